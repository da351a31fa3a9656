#!/usr/bin/python3
"""sandbox_describe names the columns a DataFrame's own attributes hide
(df.count is its method: review 172 F4) from a list in C,
src/backend/sb_describe.c's sb_frame_attributes: it must be the public
attributes of the pandas the children import, sorted for bsearch()."""

import os
import re
import unittest

import pandas as pd

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "src", "backend", "sb_describe.c")


class FrameAttributesTests(unittest.TestCase):

    def test_list_is_pandas_own_sorted(self):
        with open(SOURCE) as f:
            text = f.read()
        body = re.search(r"sb_frame_attributes\[\] = \{(.*?)\};", text, re.S).group(1)
        listed = re.findall(r'"([^"]*)"', body)
        self.assertEqual(listed, sorted(listed, key=lambda n: n.encode()))
        self.assertEqual(listed, sorted(n for n in dir(pd.DataFrame) if not n.startswith("_")))


if __name__ == "__main__":
    unittest.main()
