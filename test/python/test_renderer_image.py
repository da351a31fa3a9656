#!/usr/bin/python3
"""Library code run on objects the code chooses (a review, 2026-12-03): payloads
run in-process with the Python layer as a call has it."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_mpl_review import run  # noqa: E402  (sets up the worker's guards)


class LibraryFrameTests(unittest.TestCase):

    def test_draw_image_through_pandas(self):
        with self.assertRaisesRegex(ValueError, r"draw_image: an image of shape \(40, 40, 1\)"):
            run('''
                import numpy as np
                import pandas as pd
                import matplotlib.pyplot as plt
                def main():
                    r = plt.figure(figsize=(1, 1), dpi=100).canvas.get_renderer()
                    img = np.zeros((40, 40, 1), np.uint8)
                    pd.Series([r.new_gc()], dtype=object).apply(r.draw_image, args=(0.0, 0.0, img))
                ''')

    def test_draw_image_rgba_still_drawn_by_matplotlib(self):
        self.assertTrue(run('''
            import io
            import numpy as np
            import matplotlib.pyplot as plt
            def main():
                fig, ax = plt.subplots()
                ax.imshow(np.random.rand(4, 4))
                buf = io.BytesIO()
                fig.savefig(buf, format="png")
                return len(buf.getvalue()) > 1000
            '''))


if __name__ == "__main__":
    unittest.main()
