#!/usr/bin/python3
"""Library code run on objects the code chooses (a review, 2026-12-03): payloads
run in-process with the Python layer as a call has it."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_mpl_review import run  # noqa: E402  (sets up the worker's guards)


class LibraryFrameTests(unittest.TestCase):

    def test_styler_environment_through_ndframe_getattr(self):
        with self.assertRaisesRegex((PermissionError, TypeError), r"jinja2 may not compile|deriving from"):
            run('''
                import pandas as pd
                from pandas.io.formats.style import Styler
                class B(pd.DataFrame, Styler):
                    pass
                def main():
                    env = B({"x": [1]}).env
                    return env.from_string("{{ lipsum.__globals__.os.getpid() }}").render()
                ''')

    def test_styler_renders(self):
        self.assertIn("<table", run('''
            import pandas as pd
            def main():
                df = pd.DataFrame({"a": [1.5, 2.0]})
                return df.style.highlight_max().format(precision=1).to_html()
            '''))


if __name__ == "__main__":
    unittest.main()
