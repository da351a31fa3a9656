#!/usr/bin/python3
"""Unit tests for the child's column decoding (src/python/sb_codec.py).

Run with Debian's interpreter: /usr/bin/python3 test/python/test_codec.py
sb_io (the worker's C module) is replaced by a stub with its constants.
"""

import os
import random
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "src", "python"))

_io = types.ModuleType("sb_io")
for _i, _name in enumerate(["COL_INT64", "COL_FLOAT64", "COL_BOOL", "COL_TEXT", "COL_DATE",
                            "COL_TIMESTAMP", "COL_TIMESTAMPTZ", "COL_INTERVAL", "COL_JSON",
                            "COL_BYTES", "COL_DECIMAL"]):
    setattr(_io, _name, _i + 1)
sys.modules["sb_io"] = _io

import numpy as np  # noqa: E402

import sb_codec  # noqa: E402


def text_payload(values):
    """The wire form of a text column (None = NULL), as the backend sends it."""
    n = len(values)
    nulls = sum(v is None for v in values)
    out = bytearray(nulls.to_bytes(8, "little"))
    if nulls:
        bits = bytearray((n + 7) // 8)
        for i, v in enumerate(values):
            if v is not None:
                bits[i // 8] |= 1 << (i % 8)
        out += bits
    encoded = [(v or "").encode("utf-8") for v in values]
    offsets = [0]
    for e in encoded:
        offsets.append(offsets[-1] + len(e) + 1)
    out += np.array(offsets, dtype="<i8").tobytes()
    out += b"".join(e + b"\0" for e in encoded)
    return out


class TextColumns(unittest.TestCase):
    def decode(self, values):
        got = sb_codec.decode_column(_io.COL_TEXT, len(values), text_payload(values))
        self.assertEqual(got.dtype, object)
        self.assertEqual(list(got), values)
        return got

    def test_short_repeated_values_share_objects(self):
        rng = random.Random(1)
        labels = ["north", "south", "", "é€", "x" * 8]
        values = [rng.choice(labels) for _ in range(20000)]
        got = self.decode(values)
        self.assertLessEqual(len(set(map(id, got))), len(labels))

    def test_two_word_values(self):
        rng = random.Random(2)
        labels = ["abcdefgh" + s for s in ("", "i", "ijklmnop", "ijklmnoq", "é")]
        labels += ["abcdefgi", "a" * 16, "a" * 15]
        self.decode([rng.choice(labels) for _ in range(10000)])

    def test_nulls_and_empty_strings_differ(self):
        values = [None if i % 3 == 0 else ("" if i % 3 == 1 else "v") for i in range(9000)]
        self.decode(values)

    def test_long_or_distinct_values_fall_back(self):
        self.decode(["row %d" % i for i in range(10000)])             # distinct
        self.decode(["y" * 17 if i % 2 else "z" for i in range(10000)])  # too long
        self.decode(["a", "b", None])                                  # few rows

    def test_all_null(self):
        self.decode([None] * 5000)

    def test_gather_edges(self):
        # the gather reads 8 bytes at each value's start: values near the
        # end of the buffer, lengths 0/7/8/9/15/16, multi-byte characters
        # across the word boundary, NULLs among them
        rng = random.Random(3)
        alphabet = "ab\u00e9\u20ac\U0001f600z"
        for trial in range(60):
            labels = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5)))
                      for _ in range(rng.randint(1, 40))]
            labels = [lab for lab in labels if len(lab.encode()) <= 16]
            labels += ["x" * 7, "y" * 8, "z" * 9, "w" * 15, "v" * 16, ""]
            n = rng.randint(4096, 9000)
            values = [rng.choice(labels) for _ in range(n)]
            if trial % 3 == 0:
                k = rng.randint(1, 6)
                values[-k:] = [rng.choice(labels[-6:]) for _ in range(k)]
            for i in rng.sample(range(n), n // 50):
                values[i] = None
            got = self.decode(values)
            self.assertLessEqual(len(set(map(id, got))), len(set(values)) + 1, trial)

    def test_all_empty_and_tiny(self):
        self.decode([""] * 5000)
        self.decode(["a"] * 4096)
        self.decode(["", "abcdefghijklmnop"] * 2048)

    def test_corrupt_offsets(self):
        payload = bytearray(text_payload(["ab", "cd"] * 3000))
        # make the second offset go backwards: 0, 3, 1, ...
        np.frombuffer(payload, dtype="<i8", count=3, offset=8)[2] = 1
        with self.assertRaises(ValueError):
            sb_codec.decode_column(_io.COL_TEXT, 6000, payload)


if __name__ == "__main__":
    unittest.main(verbosity=1)
