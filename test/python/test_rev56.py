#!/usr/bin/python3
"""Review 56's second lines of defence, in-process, with a call's guards on:
what the code could not reach once the first line held (BagObj refused,
numpy.ma's _update_from, identifier class names), tried directly."""

import copy
import unittest

from sb_incall import run  # noqa: F401 - src/python on sys.path, hardened
import matplotlib.spines  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import sb_guard  # noqa: E402
import sb_harden  # noqa: E402


class InCall:
    def __enter__(self):
        sb_guard.set_pandas_guard(True)

    def __exit__(self, *exc):
        sb_guard.leave_call()


class Rev56Tests(unittest.TestCase):

    def test_library_getattr_answers_no_dunder_in_a_call(self):
        # matplotlib's Spines answers attributes from a dict the code writes
        iface = {"shape": (1,), "typestr": "|u1", "data": (0, False), "version": 3}
        sp = matplotlib.spines.Spines(**{"__array_interface__": iface, "top": 1})
        self.assertIs(sp.__array_interface__, iface)        # outside a call, as before
        with InCall():
            with self.assertRaises(AttributeError):
                sp.__array_interface__
            self.assertEqual(sp.top, 1)
        self.assertIs(sb_guard._REFUSED[id(np.lib.npyio.BagObj)][0], np.lib.npyio.BagObj)

    def test_copy_refuses_hooks_in_own_attributes(self):
        class T:
            pass
        t = T()
        t.marker = 1
        t.__dict__["__deepcopy__"] = lambda memo: memo
        with InCall():
            with self.assertRaisesRegex(TypeError, 'own attributes hold "__deepcopy__"'):
                copy.deepcopy([1, {"k": t}])
            with self.assertRaisesRegex(TypeError, "own attributes"):
                copy.copy(t)
            plain = T()
            plain.marker = 2
            self.assertEqual(copy.deepcopy([plain])[0].marker, 2)
        self.assertIsInstance(copy.deepcopy(t), dict)       # outside a call, as Python does

    def test_masked_array_takes_nothing_from_other_objects(self):
        class O:
            def __init__(self):
                self._optinfo = {"__deepcopy__": print}
                self.extra = 1
        with InCall():
            m = np.ma.masked_array([1.0])
            m._update_from(O())
            self.assertNotIn("__deepcopy__", vars(m))
            self.assertNotIn("extra", vars(m))

    def test_numexpr_takes_operators_names_and_its_functions(self):
        problem = sb_harden._numexpr_text_problem
        self.assertIsNone(problem("(a + 2.5) * sin(b) > 3 & (c == 'x')"))
        self.assertIsNotNone(problem("1 if (lambda: exec)()('x') else a"))
        self.assertIsNotNone(problem("a.__class__"))
        self.assertIsNotNone(problem("[x for x in a]"))
        with InCall():
            import numexpr
            with self.assertRaisesRegex(ValueError, "not evaluated in the sandbox"):
                numexpr.evaluate("(lambda: 1)() + a", local_dict={"a": np.arange(3.0)})
            self.assertEqual(numexpr.evaluate("a * 2", local_dict={"a": np.arange(3.0)})
                             .tolist(), [0.0, 2.0, 4.0])

    def test_temporaries_are_named_by_identifiers(self):
        weird = type("1 if (lambda: exec)()('x') else a", (), {"dtype": np.dtype("float64")})
        from pandas.core.computation.scope import Scope
        scope = Scope(level=0, local_dict={})
        with InCall():
            name = scope.add_tmp(weird())
        self.assertTrue(name.isidentifier(), name)
        self.assertTrue(name.startswith("t1_if__lambda"), name)


if __name__ == "__main__":
    unittest.main()
