#!/usr/bin/python3
"""pandas' codes that alias the code's writable arrays (rev30):
payloads run in-process with the Python layer as a call has it."""

import unittest

from sb_incall import run as run_in_call  # noqa: E402 - src/python on sys.path, hardened

ALLOWED = ["numpy", "pandas"]


def run(source):
    return run_in_call(source, ALLOWED)


class Rev30Tests(unittest.TestCase):

    def test_from_codes_keeps_no_alias(self):
        self.assertEqual(run('''
            import numpy as np
            import pandas as pd
            def main():
                codes = np.array([0, 1, 0, 1], dtype=np.int8)
                c = pd.Categorical.from_codes(codes, categories=["a", "b"])
                codes[1] = 100
                return c.codes.tolist()
            '''), [0, 1, 0, 1])

    def test_from_codes_view_keeps_no_alias(self):
        self.assertEqual(run('''
            import numpy as np
            import pandas as pd
            def main():
                codes = np.array([0, 1, 0, 1], dtype=np.int8)
                c = pd.Categorical.from_codes(codes[:], categories=["a", "b"])
                codes[2] = -7
                return c.codes.tolist()
            '''), [0, 1, 0, 1])

    def test_multiindex_from_categorical_keeps_no_alias(self):
        self.assertEqual(run('''
            import numpy as np
            import pandas as pd
            def main():
                codes = np.array([0, 1, 0, 1], dtype=np.int8)
                c = pd.Categorical.from_codes(codes, categories=["a", "b"])
                mi = pd.MultiIndex.from_arrays([c, [10, 20, 30, 40]])
                codes[1] = -100
                return [list(x) for x in mi.codes]
            '''), [[0, 1, 0, 1], [0, 1, 2, 3]])

    def test_multiindex_codes_view_keeps_no_alias(self):
        self.assertEqual(run('''
            import numpy as np
            import pandas as pd
            def main():
                a = np.array([0, 1, 0, 1], dtype=np.int8)
                mi = pd.MultiIndex(levels=[["a", "b"], [1, 2, 3, 4]], codes=[a[:], [0, 1, 2, 3]])
                w = np.array([0, 1, 0, 1], dtype=np.int8)
                view = w[:]
                mi2 = pd.MultiIndex(levels=[["a", "b"]], codes=[w])
                mi3 = mi2.set_codes([view[::-1]])
                a[1] = 100
                view[0] = 100
                return [list(mi.codes[0]), list(mi2.codes[0]), list(mi3.codes[0])]
            '''), [[0, 1, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0]])

    def test_ordinary_categorical_and_multiindex_work(self):
        self.assertEqual(run('''
            import pandas as pd
            def main():
                s = pd.Series(["b", "a", "b"], dtype="category")
                s.iloc[0] = "a"
                c = pd.Categorical.from_codes([1, 0, -1], categories=["x", "y"])
                df = pd.DataFrame({"k": ["a", "a", "b"], "j": [1, 2, 1], "v": [1, 2, 3]})
                g = df.groupby(["k", "j"]).v.sum()
                return [s.tolist(), c.tolist()[:2], g.unstack().fillna(0).values.tolist(),
                        g.sort_index(ascending=False).tolist()]
            '''), [["a", "a", "b"], ["y", "x"], [[1.0, 2.0], [3.0, 0.0]], [3, 2, 1]])


if __name__ == "__main__":
    unittest.main()
