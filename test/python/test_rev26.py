#!/usr/bin/python3
"""Metaclasses a library hands out (rev26):
payloads run in-process with the Python layer as a call has it."""

import sys
import unittest

from sb_incall import run as run_in_call  # noqa: E402 - src/python on sys.path, hardened

ALLOWED = ["io", "warnings", "numpy", "pandas", "matplotlib", "typing", "dataclasses"]


def run(source):
    return run_in_call(source, ALLOWED)


class Rev26Tests(unittest.TestCase):

    def test_categorical_dtype_type_builds_no_class(self):
        with self.assertRaisesRegex(TypeError, "building a class from a dict"):
            run('''
                import numpy as np
                import pandas as pd
                def main():
                    meta = pd.CategoricalDtype.type
                    b = bytes(range(65, 73))
                    iface = {"shape": (8,), "typestr": "|u1", "data": (id(b) + 32, False),
                             "version": 3}
                    Raw = meta("Raw", (), {"_" + "_array_interface__": iface})
                    np.asarray(Raw())[:] = 0x5A
                    return b
                ''')

    def test_categorical_dtype_type_plain_dict(self):
        with self.assertRaisesRegex(TypeError, "building a class from a dict"):
            run('''
                import pandas as pd
                def main():
                    return pd.Categorical(["a"]).dtype.type("X", (), {})
                ''')

    def test_metaclass_derived_by_make_dataclass(self):
        with self.assertRaisesRegex(TypeError, "building a class from a dict|make_dataclass: deriving from \"CategoricalDtypeType\""):
            run('''
                import dataclasses
                import pandas as pd
                def main():
                    N = dataclasses.make_dataclass("N", [], bases=(pd.CategoricalDtype.type,))
                    return N("X", (), {"_" + "_array_interface__": {}})
                ''')

    def test_pandas_still_knows_categoricals(self):
        self.assertEqual(run('''
            import pandas as pd
            def main():
                s = pd.Series(["a", "b", "a"], dtype="category")
                return [pd.api.types.is_categorical_dtype(s), str(s.dtype),
                        s.value_counts().to_dict()]
            '''), [True, "category", {"a": 2, "b": 1}])

    def test_multiindex_codes_made_read_only_by_the_code_first(self):
        # refused (the code's array frozen by pandas), or since rev30 the
        # MultiIndex keeps a copy: either way pandas' codes stay as checked
        try:
            codes = run('''
                import numpy as np
                import pandas as pd
                def main():
                    arr = np.array([0, 1, 0], dtype=np.int8)
                    arr.flags.writeable = False
                    m = pd.MultiIndex(levels=[["a", "b"], [1, 2]],
                                      codes=[arr, np.array([0, 1, 1], dtype=np.int8)])
                    arr.flags.writeable = True
                    arr[0] = 100
                    return m.codes[0].tolist()
                ''')
        except ValueError as exc:
            self.assertIn("making a read-only array writeable", str(exc))
        else:
            self.assertEqual(codes, [0, 1, 0])

    def test_own_read_only_array_made_writeable_again(self):
        self.assertEqual(run('''
            import numpy as np
            def main():
                a = np.arange(3)
                a.flags.writeable = False
                a.setflags(write=True)
                a[0] = 7
                return a.tolist()
            '''), [7, 1, 2])

    def test_dataclass_of_a_pandas_class(self):
        with self.assertRaisesRegex(TypeError, "not a class the code defines"):
            run('''
                import dataclasses
                import pandas as pd
                def main():
                    dataclasses.dataclass(pd.TimedeltaIndex)
                    return pd.TimedeltaIndex(["1 day", "2 days"])[0]
                ''')

    def test_dataclass_with_arguments_of_a_pandas_class(self):
        with self.assertRaisesRegex(TypeError, "not a class the code defines"):
            run('''
                import dataclasses
                import pandas as pd
                def main():
                    dataclasses.dataclass(eq=True)(pd.RangeIndex)
                    return len(pd.RangeIndex(2, 5))
                ''')

    def test_dataclass_of_own_classes(self):
        self.assertEqual(run('''
            import dataclasses
            @dataclasses.dataclass(frozen=True)
            class P:
                x: int
                y: int = 2
            def main():
                Q = dataclasses.make_dataclass("Q", [("a", int)])
                return [repr(P(1)), dataclasses.asdict(Q(3)), dataclasses.dataclass(Q) is Q]
            '''), ["P(x=1, y=2)", {"a": 3}, True])

    def test_holiday_calendar_metaclass(self):
        with self.assertRaisesRegex(AttributeError, "not allowed"):
            run('''
                import pandas.tseries.holiday as h
                def main():
                    return h.HolidayCalendarMetaClass
                ''')
        self.assertEqual(run('''
            from pandas.tseries.holiday import USFederalHolidayCalendar
            def main():
                return len(USFederalHolidayCalendar().holidays("2020-01-01", "2020-12-31"))
            '''), 10)

    def test_metaclass_keyword_namespace(self):
        with self.assertRaisesRegex(TypeError, "building a class from a dict|make_dataclass: deriving from \"CategoricalDtypeType\""):
            run('''
                import dataclasses
                import pandas as pd
                def main():
                    N = dataclasses.make_dataclass("N", [], bases=(pd.CategoricalDtype.type,))
                    return N(name="X", bases=(), dict={"_" + "_len__": len})
                ''')

    def test_library_metaclasses_outside_a_call(self):
        from pandas.core.dtypes.dtypes import CategoricalDtypeType
        self.assertTrue(isinstance(CategoricalDtypeType("Y", (), {}), type))
        import pandas as pd
        self.assertEqual(pd.offsets.Day(2).n, 2)


if __name__ == "__main__":
    unittest.main()
