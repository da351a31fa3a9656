"""Sizes the libraries' native code trusts, bounded in a call: numpy's
float formatting (Dragon4's paddings and digit counts, written into one
static 16 KiB buffer) and pandas' Period.strftime (a buffer the length of
the format plus 50).  Review 86 reached both with the Python layer on: a
write of spaces past numpy's buffer over its cached object pointers, and
reads of the heap and of an uninitialised pointer.  sb_harden.py calls
guard_numpy_formatting() and guard_period_strftime() in the worker.
"""

import operator
import sys

from sb_guard import _IN_CALL
from sb_memory import _set_on_immutable_type

# numpy's Dragon4 writes into a static buffer of 16384 characters and
# checks its digits but not its paddings (FormatPositional's left padding
# wrote pad_left - 16384 spaces past it; precision=2**31-1 and
# pad_right=2**31-1 overflowed an int).  Each of these stays within this,
# so that a long double's 4,933 integer digits and all of them fit.
FORMAT_COUNT_MAX = 2000
_DRAGON4_COUNTS = ("precision", "pad_left", "pad_right", "min_digits", "exp_digits")


def _checked_dragon4(real):
    name = real.__name__

    def dragon4(x, *args, **kwargs):
        if _IN_CALL["on"]:
            if args:
                raise TypeError("%s(): pass its options by name in the sandbox" % name)
            for key in _DRAGON4_COUNTS:
                value = kwargs.get(key)
                if value is None:
                    continue
                count = operator.index(value)
                if not -1 <= count <= FORMAT_COUNT_MAX:
                    raise ValueError(_count_message(key, count))
                kwargs[key] = count
        return real(x, *args, **kwargs)
    dragon4.__name__ = name
    dragon4.__qualname__ = name
    dragon4.__doc__ = real.__doc__
    return dragon4


def _count_message(key, count):
    return ("%s of %d is not allowed in the sandbox: numpy formats a number into a buffer of "
            "16384 characters; use 0 to %d (or None, numpy's default)"
            % (key, count, FORMAT_COUNT_MAX))


def _checked_set_printoptions(real):
    def set_printoptions(*args, **kwargs):
        precision = kwargs.get("precision", args[0] if args else None)
        if _IN_CALL["on"] and precision is not None:
            count = operator.index(precision)
            if not 0 <= count <= FORMAT_COUNT_MAX:
                raise ValueError(_count_message("precision", count))
        return real(*args, **kwargs)
    set_printoptions.__name__ = real.__name__
    set_printoptions.__qualname__ = real.__qualname__
    set_printoptions.__doc__ = real.__doc__
    return set_printoptions


def guard_numpy_formatting():
    """np.format_float_positional/scientific, array printing and
    numpy.polynomial's printing all reach Dragon4 through these two names,
    which each module imported for itself."""
    from numpy.core import multiarray
    # every numpy module that holds them (umath star-imports them too:
    # review 89 reached the unchecked one there)
    modules = [m for n, m in list(sys.modules.items())
               if type(n) is str and (n == "numpy" or n.startswith("numpy.")) and m is not None]
    from numpy.core import arrayprint
    # set_printoptions(precision=3000) is refused where it is set, not at
    # the next array's repr (review 90); np.printoptions() calls it too
    wrappers = [(multiarray, "dragon4_positional", _checked_dragon4),
                (multiarray, "dragon4_scientific", _checked_dragon4),
                (arrayprint, "set_printoptions", _checked_set_printoptions)]
    for home, name, wrap in wrappers:
        real = getattr(home, name)
        checked = wrap(real)
        for module in modules:
            if getattr(module, name, None) is real:
                setattr(module, name, checked)


# The most characters glibc's strftime writes for each conversion in the C
# locale; others are refused.  A year may take 11: pandas puts a Period's
# year - 1900 in C's int tm_year, and Periods of years, months or days
# reach far past 2**31 (Period(ordinal=2**31, freq="A") is the year
# -2147481678; review 171 F1: a table of 7 for the nanosecond range let
# "%Y" * 9 past the buffer).  %Z and %z read the time zone name and offset,
# which pandas never sets (an uninitialised pointer and number).
_STRFTIME_WIDTHS = {
    "a": 3, "A": 9, "b": 3, "B": 9, "h": 3, "c": 31, "C": 9, "d": 2, "D": 8, "e": 2,
    "g": 2, "G": 11, "H": 2, "I": 2, "j": 3, "k": 2, "m": 2, "M": 2, "n": 1,
    "p": 2, "P": 2, "r": 11, "R": 5, "S": 2, "t": 1, "T": 8, "U": 2, "V": 2,
    "w": 1, "W": 2, "x": 8, "X": 8, "y": 2, "Y": 11, "%": 1,
}
# pandas' own directives, replaced before strftime by six characters each
_PANDAS_DIRECTIVES = "qfFlun"
# pandas' buffer holds the format's length plus 50, its NUL included
_STRFTIME_SLACK = 49


def period_format_problem(fmt):
    """Why pandas' Period.strftime may not take fmt in a call, or None."""
    if type(fmt) is not str:
        return None                          # pandas raises its own error
    extra = 0
    i = 0
    while i < len(fmt):
        if fmt[i] != "%":
            i += 1
            continue
        conversion = fmt[i + 1:i + 2]
        if conversion and conversion in _PANDAS_DIRECTIVES:
            i += 2
            continue
        width = _STRFTIME_WIDTHS.get(conversion)
        if not conversion:
            return ('a Period format ending in a lone "%" is not allowed in the sandbox: '
                    'write "%%" for a percent sign')
        if width is None:
            return ('the directive "%%%s" in a Period format is not allowed in the sandbox: '
                    'pandas formats Periods with C\'s strftime, which reads no time zone and '
                    'takes no width or flags there; use the directives of time.strftime (%%Y, '
                    '%%m, %%d, %%H, %%M, %%S, %%b, ...), or format '
                    'p.to_timestamp().strftime(...)' % conversion)
        extra += max(0, width - 2)
        i += 2
    if extra > _STRFTIME_SLACK:
        return ("this Period format is not allowed in the sandbox: its directives may write "
                "%d characters more than the format's length, and pandas' buffer holds %d "
                "more; split it, or format p.to_timestamp().strftime(...)"
                % (extra, _STRFTIME_SLACK))
    return None


def guard_period_strftime():
    """Review 86: pandas 1.5's Period.strftime formats with C's strftime
    into a buffer of the format's length plus 50 and never sets the time
    zone fields: "%Z" read a string through an uninitialised pointer (the
    stack's bytes came back; SIGSEGV after other work), and "%A" * 100
    read past the heap buffer.  Every way to format Periods with a format
    (PeriodIndex.strftime, Series.dt.strftime, to_csv(date_format=)) calls
    Period.strftime."""
    try:
        from pandas._libs.tslibs.period import _Period
    except ImportError:
        return
    real = _Period.__dict__["strftime"]

    # PeriodIndex.strftime calls this once per period: a format is read once
    checked = {}

    def strftime(self, fmt):
        if _IN_CALL["on"]:
            problem = checked.get(fmt, False) if type(fmt) is str else None
            if problem is False:
                problem = period_format_problem(fmt)
                if len(checked) < 256:
                    checked[fmt] = problem
            if problem is not None:
                raise ValueError(problem)
        return real(self, fmt)
    strftime.__qualname__ = "Period.strftime"
    strftime.__doc__ = real.__doc__
    if not _set_on_immutable_type(_Period, [("strftime", strftime)]):
        sys.stderr.write("pysandbox-worker: pandas' Period.strftime could not be checked in "
                         "place\n")
