#!/usr/bin/python3
"""pandas 1.5's Period.strftime formats with C's strftime into a buffer of
the format's length plus 50 (review 86); sb_bounds counts what each
directive may write.  Review 171 F1: the table gave a year 7 characters,
but Periods of years, months or days reach years past 2**31, which glibc
writes in 11: "x" * 3000 + "%Y" * 9 overflowed the buffer and the code got
heap bytes read past it (strftime left it without its NUL)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sb_incall import run  # noqa: E402 - src/python on sys.path, hardened
import pandas as pd  # noqa: E402
import sb_bounds  # noqa: E402

# Periods at the ends of what each frequency takes, and past 2**31 years
ORDINALS = (0, 2**31 - 1, 2**31, 2**31 + 1900, -2**31, -2**31 - 1900, 2**40, -2**40,
            2**62, -2**62, 2**63 - 1000, -2**63 + 1000, 3 * 2**31 + 777777)
FREQS = ("A", "Q", "M", "W", "D", "H", "T", "S", "L", "U", "N")


def extreme_periods():
    for freq in FREQS:
        for ordinal in ORDINALS:
            try:
                yield pd.Period(ordinal=ordinal, freq=freq)
            except (ValueError, OverflowError):
                continue


class WidthTableTests(unittest.TestCase):

    def test_table_covers_what_glibc_writes(self):
        # one directive in a format of 2 has 50 characters of room: glibc's
        # real width, measured, must not pass the table's
        widest = {}
        for p in extreme_periods():
            for directive in sb_bounds._STRFTIME_WIDTHS:
                if directive in sb_bounds._PANDAS_DIRECTIVES:
                    continue
                widest[directive] = max(widest.get(directive, 0),
                                        len(p.strftime("%" + directive)))
        self.assertEqual(widest["Y"], 11)       # the measurement reached 2**31
        for directive, width in sorted(widest.items()):
            self.assertLessEqual(width, sb_bounds._STRFTIME_WIDTHS[directive],
                                 "%%%s writes %d" % (directive, width))


class InCallTests(unittest.TestCase):

    CODE = '''
        import pandas as pd
        def main():
            p = pd.Period(ordinal=2**31, freq="A")
            return p.strftime("x" * 3000 + "DIRECTIVE")
        '''

    def test_years_past_int32_refused(self):
        for directive in ("%Y" * 9, "%G" * 9, "%C" * 16, "%c" * 2):
            with self.subTest(directive=directive):
                with self.assertRaisesRegex(ValueError, "may write .* characters more"):
                    run(self.CODE.replace("DIRECTIVE", directive), {"pandas"})

    def test_usual_formats_kept(self):
        self.assertEqual(run(self.CODE.replace('"x" * 3000 + ', "").replace(
            "DIRECTIVE", "%Y-%m-%d"), {"pandas"}), "-2147481678-12-31")
        self.assertEqual(run('''
            import pandas as pd
            def main():
                return list(pd.period_range("2020-01", periods=2, freq="M").strftime("%c|%Y|%C"))
            ''', {"pandas"}), ["Fri Jan 31 00:00:00 2020|2020|20",
                               "Sat Feb 29 00:00:00 2020|2020|20"])


if __name__ == "__main__":
    unittest.main()
