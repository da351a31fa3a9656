#!/usr/bin/python3
"""A review of the fixes of rev15/17/19 (rev20): payloads run in-process with
the Python layer as a call has it.  No OS layer."""

import sys
import unittest

from sb_incall import run as run_in_call  # noqa: E402 - src/python on sys.path, hardened
import matplotlib  # noqa: E402

ALLOWED = ["io", "warnings", "numpy", "pandas", "matplotlib", "decimal"]


def run(source):
    return run_in_call(source, ALLOWED)


class Rev20Tests(unittest.TestCase):

    def test_rolling_on_shorter_index_refused(self):
        with self.assertRaisesRegex(ValueError, "one per value"):
            run('''
                import pandas as pd
                import numpy as np
                def main():
                    s = pd.Series(np.ones(40))
                    idx = pd.DatetimeIndex([0], dtype="datetime64[ns]")
                    return s.rolling("1ns", on=idx, closed="both").count().tolist()
                ''')

    def test_rolling_on_index_of_the_rows_works(self):
        result = run('''
            import pandas as pd
            import numpy as np
            def main():
                s = pd.Series(np.ones(4))
                idx = pd.date_range("2020-01-01", periods=4, freq="D")
                return s.rolling("2D", on=idx).sum().tolist()
            ''')
        self.assertEqual(result, [1.0, 2.0, 2.0, 2.0])

    def test_group_functions_of_objects(self):
        # the checked group functions keep the fused functions' signatures,
        # which pandas reads for object columns (text, Decimal)
        result = run('''
            import pandas as pd
            import decimal
            def main():
                df = pd.DataFrame({"k": ["a", "b", "a"], "s": ["x", "y", "z"],
                                   "d": [decimal.Decimal("1.5"), decimal.Decimal("2"),
                                         decimal.Decimal("0.5")]})
                g = df.groupby("k")
                return [g["s"].first().tolist(), g["s"].last().tolist(), g["s"].min().tolist(),
                        g["s"].max().tolist(), g["s"].rank().tolist(),
                        [str(v) for v in g["d"].sum().tolist()],
                        df.groupby("k").agg(first_s=("s", "first"))["first_s"].tolist()]
            ''')
        self.assertEqual(result, [["x", "y"], ["z", "y"], ["x", "y"], ["z", "y"],
                                  [1.0, 1.0, 2.0], ["2.0", "2"], ["x", "y"]])

    def test_cached_group_ids_written_refused(self):
        with self.assertRaisesRegex(ValueError, "generate_slices"):
            run('''
                import pandas as pd
                def main():
                    df = pd.DataFrame({"k": [0, 1], "v": [1.0, 2.0]})
                    gb = df.groupby("k")
                    ids = gb.grouper.group_info[0]
                    ids[1] = 5
                    return gb.apply(lambda g: len(g)).tolist()
                ''')

    def test_groupby_apply_works(self):
        result = run('''
            import pandas as pd
            def main():
                df = pd.DataFrame({"k": [0, 1, 1], "v": [1.0, 2.0, 3.0]})
                return df.groupby("k").apply(lambda g: len(g)).tolist()
            ''')
        self.assertEqual(result, [1, 2])

    def test_font_image_through_getp_is_a_copy(self):
        result = run('''
            import io
            import matplotlib.pyplot as plt
            from matplotlib import artist
            from matplotlib.mathtext import MathTextParser
            def draw(text, size):
                fig = plt.figure(figsize=(8, 3), dpi=100)
                fig.text(0.01, 0.3, text, fontsize=size, family="DejaVu Sans")
                fig.savefig(io.BytesIO(), format="png")
                plt.close(fig)
            def main():
                font = MathTextParser("path").parse("W").glyphs[0][0]
                draw("a", 10)
                image = artist.getp(font, "image")
                before = image.tobytes()
                draw("WWWWWWWWWWWWWWWWWWWWWW", 60)
                junk = [bytes(50) for i in range(200)]
                return [image.flags.owndata or image.base is not None,
                        image.tobytes() == before]
            ''')
        self.assertEqual(result, [True, True])


    def test_imsave_format_is_checked(self):
        with self.assertRaisesRegex(ValueError, "not available in the sandbox"):
            run('''
                import io
                import numpy as np
                import matplotlib.pyplot as plt
                def main():
                    plt.imsave(io.BytesIO(), np.zeros((8, 8, 4)), format="jpeg2000")
                ''')

    def test_imsave_rcparams_format_is_checked(self):
        with self.assertRaisesRegex(ValueError, "not available in the sandbox"):
            run('''
                import io
                import numpy as np
                import matplotlib
                import matplotlib.pyplot as plt
                def main():
                    with matplotlib.rc_context({"savefig.format": "icns"}):
                        plt.imsave(io.BytesIO(), np.zeros((8, 8, 4)))
                ''')

    def test_imsave_png_works(self):
        result = run('''
            import io
            import numpy as np
            import matplotlib.pyplot as plt
            def main():
                b = io.BytesIO()
                plt.imsave(b, np.zeros((8, 8, 4)), format="png")
                c = io.BytesIO()
                plt.imsave(c, np.zeros((8, 8, 4)))
                return [b.getvalue()[:4], c.getvalue()[:4]]
            ''')
        self.assertEqual(result, [b"\x89PNG", b"\x89PNG"])

class WriteableTests(unittest.TestCase):
    """A read-only view pandas hands out stays read-only in a call: every
    way of setting the flag comes to ndarray.setflags."""

    FLIPS = ["v.flags.writeable = True", 'v.flags["W"] = True',
             'v.flags["WRITEABLE"] = 1', "v.setflags(write=True)",
             "np.ndarray.setflags(v, True)"]

    def test_categorical_codes_stay_read_only(self):
        for flip in self.FLIPS:
            with self.subTest(flip=flip), \
                    self.assertRaisesRegex(ValueError, "making a read-only array writeable is not allowed"):
                run('''
                    import pandas as pd
                    import numpy as np
                    def main():
                        v = pd.Categorical(["a", "b", "a"]).codes
                        %s
                        v[2] = 120
                    ''' % flip)

    def test_multiindex_codes_stay_read_only(self):
        with self.assertRaisesRegex(ValueError, "write to a copy"):
            run('''
                import pandas as pd
                def main():
                    v = pd.MultiIndex.from_arrays([[1, 2], ["a", "b"]]).codes[0]
                    v.setflags(write=True)
                ''')

    def test_base_of_a_read_only_view_is_read_only(self):
        result = run('''
            import pandas as pd
            import numpy as np
            def main():
                c = pd.Categorical(["a", "b", "a"])
                b = c.codes.base
                try:
                    b[2] = 120
                except ValueError as e:
                    refused = str(e)
                own = np.arange(4)
                view = own[1:]
                data = bytes(8)
                store = bytearray(8)
                over = np.frombuffer(store, "u1")
                over.flags.writeable = False
                return [refused, b.tolist(), b.flags.writeable, view.base is own,
                        c.codes.tolist(), np.frombuffer(data, "u1").base is data,
                        over.base.readonly, over.base.tolist()]
            ''')
        self.assertEqual(result, ["assignment destination is read-only", [0, 1, 0], False,
                                  True, [0, 1, 0], True, True, [0] * 8])

    def test_writeable_arrays_and_copies_and_broadcasts_work(self):
        result = run('''
            import pandas as pd
            import numpy as np
            def main():
                v = pd.Categorical(["a", "b", "a"]).codes.copy()
                v.flags.writeable = True
                v[2] = 1
                a = np.zeros(3)
                a.setflags(write=False)
                a.setflags(write=True, align=True)
                x, y = np.broadcast_arrays(np.zeros((2, 1)), np.arange(3))
                return [v.tolist(), a.flags.writeable, x.flags.writeable, x.shape]
            ''')
        self.assertEqual(result, [[0, 1, 1], True, True, (2, 3)])


class NativeSizeTests(unittest.TestCase):
    """Review 86: sizes numpy's Dragon4, pandas' Period.strftime and agg's
    image filter trusted are bounded in a call; ordinary ones still work."""

    def test_float_formatting_bounded(self):
        for call in ("np.format_float_positional(np.float64(1.5), pad_left=16498)",
                     "np.format_float_positional(np.float64(1.5), pad_right=2**31 - 1)",
                     "np.format_float_positional(np.float64(1.5), precision=2**31 - 1, "
                     "unique=False)",
                     "np.format_float_scientific(np.float64(1.5), min_digits=2**31 - 1)",
                     "np.format_float_scientific(np.float64(1.5), exp_digits=5000)",
                     "np.core.multiarray.dragon4_positional(1.5, pad_left=100000)",
                     "np.core.umath.dragon4_positional(1.5, pad_left=100000)",
                     "np.set_printoptions(precision=3000)"):
            with self.subTest(call=call), self.assertRaisesRegex(ValueError, "use 0 to 2000 .or None"):
                run("import numpy as np\ndef main():\n    return %s\n" % call)
        with self.assertRaisesRegex(ValueError, "precision of 3000 is not allowed"):
            run('''
                import numpy as np
                def main():
                    with np.printoptions(precision=3000):
                        return str(np.array([1.5]))
                ''')
        result = run('''
            import numpy as np
            def main():
                with np.printoptions(precision=3):
                    shown = str(np.array([1.23456, 2.5]))
                return [np.format_float_positional(np.float64(1.5), pad_left=4, precision=3,
                                                   unique=False),
                        np.format_float_scientific(np.float64(1234.5), exp_digits=3), shown]
            ''')
        self.assertEqual(result, ["   1.500", "1.2345e+003", "[1.235 2.5  ]"])

    def test_period_strftime_bounded(self):
        for fmt, message in (("%Z", 'the directive "%Z"'), ("%z", 'the directive "%z"'),
                             ("%10Y", 'the directive "%1"'), ("%A" * 100, "may write 700"),
                             ("100%", 'ending in a lone "%" .* write "%%"')):
            with self.subTest(fmt=fmt), self.assertRaisesRegex(ValueError, message):
                run('''
                    import pandas as pd
                    def main():
                        return pd.Period("2020-01-05", "D").strftime(%r)
                    ''' % fmt)
        result = run('''
            import pandas as pd
            def main():
                p = pd.Period("2020-01-05", "D")
                idx = pd.period_range("2020-01", periods=2, freq="M")
                return [p.strftime("%A %d %B %Y (%j) %%"), p.strftime("%F-Q%q"),
                        list(idx.strftime("%b-%Y")), str(p), repr(idx[0])]
            ''')
        self.assertEqual(result, ["Sunday 05 January 2020 (005) %", "2020-Q1",
                                  ["Jan-2020", "Feb-2020"], "2020-01-05",
                                  "Period('2020-01', 'M')"])

    def test_image_filter_radius_bounded(self):
        with self.assertRaisesRegex(ValueError, "filter radius .filterrad. of 16777217"):
            run('''
                import numpy as np
                import matplotlib.pyplot as plt
                def main():
                    fig, ax = plt.subplots(figsize=(1, 1), dpi=20)
                    ax.imshow(np.random.rand(8, 8), interpolation="lanczos", filterrad=2**24 + 1)
                    fig.canvas.draw()
                ''')
        run('''
            import numpy as np
            import matplotlib.pyplot as plt
            def main():
                fig, ax = plt.subplots(figsize=(1, 1), dpi=20)
                ax.imshow(np.random.rand(8, 8), interpolation="lanczos", filterrad=6.0)
                fig.canvas.draw()
            ''')


class ResizeTests(unittest.TestCase):
    """ndarray.resize() to another size is refused in a call, with a message
    naming the copy to make (review 167 F1: allowed for an unshared array,
    native numpy code in an outer frame still wrote through the old
    pointer); pandas' hash tables still grow their vectors."""

    def test_resize_to_another_size_refused(self):
        for code in ("b = np.arange(3.0); b.resize(5)",
                     "G = [np.zeros(4)]; G.pop().resize(8)",
                     "a = np.arange(4096.0); h = a[1:]; a.resize(1 << 16)"):
            with self.subTest(code=code):
                with self.assertRaisesRegex(ValueError, r"resize\(\) to another size is not "
                                                        r"allowed in the sandbox.*np.resize"):
                    run('''
                        import numpy as np
                        def main():
                            %s
                        ''' % code)

    def test_what_still_works(self):
        self.assertEqual(run('''
            import numpy as np
            import pandas as pd
            def main():
                b = np.arange(3.0)
                b = np.resize(b, 5)
                c = np.arange(6)
                c.resize((2, 3)) if False else None
                s = pd.Series(np.arange(100000) % 977)
                return [b.tolist(), int(s.nunique()), len(s.value_counts())]
            '''), [[0.0, 1.0, 2.0, 0.0, 1.0], 977, 977])


class RollingTimesTests(unittest.TestCase):
    """A time-based window reads a private copy of its times, checked
    sorted (review 163 F1); honest indexes, increasing or decreasing, and
    spans past int64's 292 years of differences, still work."""

    def test_sorted_times_work(self):
        self.assertEqual(run('''
            import pandas as pd
            def main():
                idx = pd.DatetimeIndex(["1850-01-01", "2000-01-01", "2050-01-01"])
                s = pd.Series([1.0, 2.0, 3.0], index=idx)
                d = pd.Series([1.0, 2.0, 3.0], index=pd.date_range("2024-01-03", periods=3,
                                                                     freq="-1D"))
                g = pd.DataFrame({"k": [1, 1, 2], "v": [1.0, 2.0, 3.0]},
                                 index=pd.date_range("2024-01-01", periods=3))
                return [s.rolling("20000D").sum().tolist(), d.rolling("2D").sum().tolist(),
                        g.groupby("k")["v"].rolling("2D").sum().tolist()]
            '''), [[1.0, 2.0, 5.0], [1.0, 3.0, 5.0], [1.0, 3.0, 3.0]])

    def test_times_past_int64_arithmetic_refused(self):
        # pandas subtracts in int64: 500 years of nanoseconds wrapped (plain
        # pandas gives [1, 3, 6] for a 2-day window here)
        with self.assertRaisesRegex(ValueError, "span more than pandas' arithmetic holds"):
            run('''
                import pandas as pd
                def main():
                    idx = pd.DatetimeIndex(["1700-01-01", "2000-01-01", "2200-01-01"])
                    return pd.Series([1.0, 2.0, 3.0], index=idx).rolling("2D").sum().tolist()
                ''')

    def test_times_unsorted_after_the_check_refused(self):
        with self.assertRaisesRegex(ValueError, "must stay sorted"):
            run('''
                import numpy as np
                import pandas as pd
                def main():
                    a = (np.arange(6, dtype="i8") * 10**9).view("M8[ns]")
                    r = pd.Series(np.ones(6), index=pd.DatetimeIndex(a)).rolling("1D")
                    a.view("i8")[2] = -1
                    return r.sum().tolist()
                ''')


if __name__ == "__main__":
    unittest.main()
