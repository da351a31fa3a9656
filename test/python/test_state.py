#!/usr/bin/python3
"""Unit tests for the settings a workspace's calls start from
(src/python/sb_state.py).

Run with Debian's interpreter: /usr/bin/python3 test/python/test_state.py
matplotlib is prepared as the worker prepares it; sb_state.keep() is
taken as a workspace's child takes it before its first call.  The SQL side
(a call that changes them, the next that finds them as they were) is in
sql/workspace.sql.
"""

import calendar
import decimal
import os
import random
import sys
import unittest
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "src", "python"))

import sb_charts  # noqa: E402

with sb_charts.home():
    import matplotlib  # noqa: E402
    sb_charts.prepare()
import matplotlib.colors  # noqa: E402
import matplotlib.units  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import sb_state  # noqa: E402


class StateTests(unittest.TestCase):

    def setUp(self):
        self.saved = sb_state._FIRST[0]
        sb_state.keep()

    def tearDown(self):
        sb_state.restore()
        sb_state._FIRST[0] = self.saved

    def test_restores_what_a_call_set(self):
        pd.set_option("display.max_rows", 3)
        pd.set_option("mode.use_inf_as_na", True)
        np.seterr(all="raise")
        np.set_printoptions(precision=2)
        warnings.simplefilter("error")
        decimal.getcontext().prec = 5
        decimal.DefaultContext.prec = 4
        decimal.DefaultContext.traps[decimal.Inexact] = True
        calendar.setfirstweekday(calendar.SUNDAY)
        sb_state.restore()
        self.assertEqual(pd.get_option("display.max_rows"), 60)
        # the option's callback ran: isna() no longer counts infinity
        self.assertEqual(pd.Series([float("inf")]).isna().tolist(), [False])
        self.assertEqual(np.geterr()["divide"], "warn")
        self.assertEqual(repr(np.array([1.23456789])), "array([1.23456789])")
        self.assertFalse(any(f[0] == "error" for f in warnings.filters))
        self.assertEqual(decimal.getcontext().prec, 28)
        self.assertEqual(decimal.Context().prec, 28)
        self.assertFalse(decimal.DefaultContext.traps[decimal.Inexact])
        self.assertEqual(calendar.firstweekday(), 0)

    def test_reseeds(self):
        np.random.seed(42)
        random.seed(42)
        known_np = np.random.RandomState(42).rand()
        known_py = random.Random(42).random()
        sb_state.restore()
        self.assertNotEqual(np.random.rand(), known_np)
        self.assertNotEqual(random.random(), known_py)

    def test_registries_without_the_code_keys_hash(self):
        if not sb_charts.ready():
            self.skipTest("matplotlib is not ready")
        hashed = []

        class Meta(type):
            def __hash__(cls):
                hashed.append(cls)
                return 1

            def __eq__(cls, other):
                hashed.append(other)
                return False

        class Unit(metaclass=Meta):
            pass
        matplotlib.units.registry[Unit] = matplotlib.units.ConversionInterface()
        matplotlib.colormaps.register(matplotlib.colors.ListedColormap(["red"], name="mine"))
        named = matplotlib.colors.get_named_colors_mapping()
        named["red"] = "#00ff00"
        self.assertEqual(matplotlib.colors.to_hex("red"), "#00ff00")
        del hashed[:]
        sb_state.restore()
        self.assertEqual(hashed, [])
        self.assertNotIn(Unit, list(dict.keys(matplotlib.units.registry)))
        self.assertNotIn("mine", matplotlib.colormaps)
        # the mapping's cache went with the replaced color
        self.assertEqual(matplotlib.colors.to_hex("red"), "#ff0000")

    def test_nothing_changed_keeps_the_objects(self):
        before = pd.get_option("display.float_format"), warnings.filters
        sb_state.restore()
        self.assertIs(pd.get_option("display.float_format"), before[0])
        self.assertIs(warnings.filters, before[1])


if __name__ == "__main__":
    unittest.main()
