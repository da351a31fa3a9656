#!/usr/bin/python3
"""numpy data types of negative size made by numpy's own casts (rev28):
getfield/setfield refuse them in a call; ordinary fields still work."""

import unittest

from sb_incall import run as run_in_call  # noqa: E402 - src/python on sys.path, hardened

ALLOWED = ["numpy"]


def run(source):
    return run_in_call(source, ALLOWED)


NEGATIVE = '''
import numpy as np
def negative():
    # ('S', subarray) copies a 2**30 - 16 byte size; the cast to str is
    # 4 * that in numpy's C int: -64
    s = np.dtype(("S", (("u1", (67108863,)), (16,))))
    return np.concatenate([np.empty((0, 1), s)], axis=None, dtype="U",
                          casting="unsafe").dtype
'''


class Rev28Tests(unittest.TestCase):

    def test_getfield_of_negative_size_refused(self):
        with self.assertRaisesRegex(ValueError, r"getfield\(\) with this data type is not "
                                                r"allowed in the sandbox: its size is negative"):
            run(NEGATIVE + '''
def main():
    return repr(np.zeros(1, "u8").getfield(negative(), 72).dtype)
''')

    def test_setfield_of_negative_size_refused(self):
        with self.assertRaisesRegex(ValueError, r"setfield\(\) with this data type is not "
                                                r"allowed in the sandbox"):
            run(NEGATIVE + '''
def main():
    np.zeros(1, "u8").setfield(b"x", negative(), 72)
''')

    def test_ordinary_fields(self):
        self.assertEqual(run('''
import numpy as np
def main():
    a = np.array([1, 2], dtype="<u8")
    low = a.getfield("<u4", 0)
    a.setfield(7, "<u4", 4)
    return [low.tolist(), a.tolist(), a.getfield(np.dtype("<u2"), offset=4).tolist()]
'''), [[1, 2], [(7 << 32) + 1, (7 << 32) + 2], [7, 7]])


if __name__ == "__main__":
    unittest.main()
