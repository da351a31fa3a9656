#!/usr/bin/python3
"""A review of objects whose public parts reach native code (rev23):
payloads run in-process with the Python layer as a call has it."""

import sys
import unittest

from sb_incall import run as run_in_call  # noqa: E402 - src/python on sys.path, hardened

ALLOWED = ["io", "warnings", "numpy", "pandas", "matplotlib", "typing", "dataclasses"]


def run(source):
    return run_in_call(source, ALLOWED)


class Rev23Tests(unittest.TestCase):

    def test_typing_origin_of_type_is_not_the_real_type(self):
        with self.assertRaisesRegex(TypeError, "exactly one argument"):
            run('''
                import typing
                def main():
                    T = typing.get_origin(typing.Type)
                    return T("X", (), {"__array_interface__": {}})
                ''')

    def test_typing_origin_of_type_int(self):
        with self.assertRaisesRegex(TypeError, "exactly one argument"):
            run('''
                import typing
                def main():
                    return typing.get_origin(typing.Type[int])("X", (), {})
                ''')

    def test_typing_origin_imported_by_name(self):
        with self.assertRaisesRegex(TypeError, "exactly one argument"):
            run('''
                from typing import get_origin, Type
                def main():
                    return get_origin(Type)("X", (), {})
                ''')

    def test_typing_origin_still_works(self):
        self.assertEqual(run('''
            import typing
            def main():
                return [typing.get_origin(typing.Type[int]) is type,
                        typing.get_origin(typing.List[int]) is list,
                        isinstance(int, typing.get_origin(typing.Type)),
                        typing.get_origin(int)]
            '''), [True, True, True, None])

    def test_styler_export_getter_on_other_objects(self):
        with self.assertRaisesRegex(TypeError, "not allowed.*applies to a Styler only"):
            run('''
                import pandas as pd
                def main():
                    df = pd.DataFrame({"a": [1.0, 2.0]})
                    getter = df.style.apply(lambda c: [""] * len(c)).export()["apply"][0][0]
                    return getter(df.rolling(2))
                ''')

    def test_styler_export_use_still_works(self):
        html = run('''
            import pandas as pd
            def main():
                df = pd.DataFrame({"a": [1.0, 2.0]})
                st = df.style.applymap(lambda v: "color: red;").apply(lambda c: [""] * len(c))
                st.apply_index(lambda c: [""] * len(c))
                other = pd.DataFrame({"a": [3.0, 4.0]}).style
                other.use(st.export())
                return other.to_html()
            ''')
        self.assertIn("color: red", html)

    def test_groupby_resample_apply_name_checked(self):
        with self.assertRaisesRegex(AttributeError, "not allowed"):
            run('''
                import pandas as pd
                def main():
                    df = pd.DataFrame({"k": [1, 1, 2], "v": [1.0, 2.0, 3.0]},
                                      index=pd.date_range("2020-01-01", periods=3, freq="D"))
                    return df.groupby("k").resample("1D").fillna("__getstate__")
                ''')

    def test_groupby_resample_still_works(self):
        result = run('''
            import pandas as pd
            def main():
                df = pd.DataFrame({"k": [1, 1, 2], "v": [1.0, 2.0, 3.0]},
                                  index=pd.date_range("2020-01-01", periods=3, freq="D"))
                r = df.groupby("k").resample("1D")
                return [r.sum()["v"].tolist(), r.ffill()["v"].tolist(),
                        r.fillna("ffill")["v"].tolist(), r.mean()["v"].tolist()]
            ''')
        self.assertEqual(result[0], [1.0, 2.0, 3.0])

    def test_class_derived_from_typing_type_refused(self):
        with self.assertRaisesRegex(TypeError, "metaclass"):
            run('''
                import typing
                class M(typing.Type[int]):
                    pass
                def main():
                    return M("X", (), {"__array_interface__": {}})
                ''')

    def test_class_derived_from_bare_typing_type_refused(self):
        with self.assertRaisesRegex(TypeError, "metaclass"):
            run('''
                import typing
                def main():
                    class M(typing.Type):
                        pass
                    return M
                ''')

    def test_make_dataclass_with_typing_type_base_refused(self):
        with self.assertRaisesRegex(TypeError, "metaclass"):
            run('''
                import typing
                import dataclasses
                class Own:
                    def __init__(self, *args):
                        pass
                def main():
                    M = dataclasses.make_dataclass("M", [], bases=(Own, typing.Type[int]),
                                                   init=False, repr=False, eq=False)
                    return M("X", (), {"__array_interface__": {}})
                ''')

    def test_generic_classes_still_work(self):
        self.assertEqual(run('''
            import typing
            class Box(typing.Generic[typing.AnyStr]):
                def __init__(self, v):
                    self.v = v
            class Ints(typing.List[int]):
                pass
            class Named(typing.NamedTuple):
                a: int
            def main():
                return [Box[int](3).v, len(Ints([1, 2])), Named(4).a]
            '''), [3, 2, 4])

    def test_ufunc_at_on_read_only_codes_refused(self):
        with self.assertRaisesRegex(ValueError, "read-only array is not allowed"):
            run('''
                import pandas as pd
                import numpy as np
                def main():
                    c = pd.Categorical(["a", "b", "a"])
                    np.add.at(c.codes, [0], 100)
                    return list(c.codes)
                ''')

    def test_ufunc_at_unbound_on_read_only_refused(self):
        with self.assertRaisesRegex(ValueError, "read-only array is not allowed"):
            run('''
                import pandas as pd
                import numpy as np
                def main():
                    mi = pd.MultiIndex.from_arrays([["a", "b"], [1, 2]])
                    np.ufunc.at(np.invert, mi.codes[0], [0])
                    return list(mi.codes[0])
                ''')

    def test_ufunc_at_still_works(self):
        self.assertEqual(run('''
            import numpy as np
            def main():
                a = np.zeros(4, dtype=np.int64)
                np.add.at(a, [0, 0, 2], 5)
                np.negative.at(a, [2])
                return a.tolist()
            '''), [10, 0, -5, 0])

    def test_count_level_codes_changed_by_level_name_refused(self):
        with self.assertRaisesRegex(ValueError, "read-only|count_level_2d"):
            run('''
                import pandas as pd
                import numpy as np
                import warnings
                class Level:
                    def __init__(self, codes):
                        self.codes = codes
                        self.calls = 0
                    def __eq__(self, other):
                        self.calls += 1
                        if self.calls == 4:
                            np.add.at(self.codes, [0], 2000000000)
                        return other == "L0"
                    def __hash__(self):
                        return 1
                def main():
                    warnings.simplefilter("ignore")
                    n = 40000
                    mi = pd.MultiIndex.from_arrays([np.arange(n), np.arange(n)], names=["L0", "L1"])
                    df = pd.DataFrame({"v": np.ones(n)}, index=mi)
                    return str(df.count(level=Level(df.index.codes[0])).shape)
                ''')

    def test_count_level_still_works(self):
        self.assertEqual(run('''
            import pandas as pd
            import numpy as np
            import warnings
            def main():
                warnings.simplefilter("ignore")
                mi = pd.MultiIndex.from_arrays([["a", "b", "a", None], [1, 2, 3, 4]])
                df = pd.DataFrame({"v": [1.0, np.nan, 3.0, 4.0], "w": [1, 2, 3, 4]}, index=mi)
                return [df.count(level=0)["v"].tolist(), df.count(level=0)["w"].tolist(),
                        df.T.count(axis=1, level=0).loc["w"].tolist()]
            '''), [[2, 0], [2, 1], [2, 1]])


    def test_accessor_may_not_replace_an_attribute(self):
        with self.assertRaisesRegex(AttributeError, 'already has an attribute "is_monotonic_increasing"'):
            run('''
                import pandas as pd
                def main():
                    @pd.api.extensions.register_index_accessor("is_monotonic_increasing")
                    class Always:
                        def __init__(self, obj):
                            pass
                ''')

    def test_own_accessor_registered_twice(self):
        source = '''
            import pandas as pd
            def main():
                @pd.api.extensions.register_dataframe_accessor("rev23geo")
                class Geo:
                    def __init__(self, obj):
                        self.obj = obj
                    def width(self):
                        return len(self.obj.columns)
                return pd.DataFrame({"a": [1], "b": [2]}).rev23geo.width()
            '''
        self.assertEqual(run(source), 2)
        self.assertEqual(run(source), 2)

    def test_type_of_a_module_proxy_is_refused(self):
        with self.assertRaisesRegex(TypeError, "module proxy is the sandbox's own"):
            run('''
                import numpy as np
                def main():
                    return type(np)
                ''')

if __name__ == "__main__":
    unittest.main()
