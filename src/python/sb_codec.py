"""Conversions between the wire format and Python values, inside the child.

decode_column() turns one SB_DATA_COLUMN payload into a numpy/pandas array
without per-value Python work for fixed-width kinds.

dumps() turns a returned value into JSON text.  It dispatches on exact
types (``type(x) is ...``), never on isinstance, and never calls str(),
repr() or iteration protocols that user classes could override: only values
of known built-in, numpy and pandas types are converted, anything else is a
TypeError naming the type and where it was found.
"""

import codecs
import collections
import dataclasses
import re
import enum
import datetime
import warnings
import decimal
import ipaddress
import itertools
import json
import math
import sys
import struct
import types
import unicodedata
import uuid

import numpy as np
import pandas as pd
from pandas._libs import hashtable as _hashtable
from pandas.core.internals.construction import arrays_to_mgr

import sb_charts
import sb_guard
import sb_io
import sb_memory

try:
    import zoneinfo as _zoneinfo
except ImportError:  # pragma: no cover - Python 3.9+
    _zoneinfo = None
try:
    from pytz.tzinfo import BaseTzInfo as _PytzTzInfo
except ImportError:
    _PytzTzInfo = None
try:
    from dateutil import tz as _dateutil_tz
    from dateutil.relativedelta import relativedelta as _relativedelta
except ImportError:
    _dateutil_tz = _relativedelta = None

_MAX_DEPTH = 100

_encode_str = json.encoder.encode_basestring_ascii
_Timestamp = pd.Timestamp
_NaTType = type(pd.NaT)
_NAType = type(pd.NA)
_Timedelta = pd.Timedelta
_ExtensionArray = pd.api.extensions.ExtensionArray
# np.longlong and np.ulonglong are types of their own beside int64 and
# uint64 ("q" arrays' items, a UInt64 Series times a large int), and
# np.longdouble is float128 (review 100: "cannot convert")
_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64, np.longlong,
                        np.uint8, np.uint16, np.uint32, np.uint64, np.ulonglong})
_FLOAT_TYPES = frozenset({float, np.float16, np.float32, np.float64, np.longdouble})
_BOOL_TYPES = frozenset({bool, np.bool_})
_Period = pd.Period
# dict subclasses of the standard library, written as objects (and the
# sandbox's own collections.OrderedDict, which sb_harden adds)
_DICT_TYPES = {collections.OrderedDict, collections.defaultdict, collections.Counter}
try:                                     # vars() of the code's objects (sb_guard)
    from sb_guard import OwnAttributes
except ImportError:
    pass
else:
    _DICT_TYPES.add(OwnAttributes)
_Interval = pd.Interval
_FrozenList = type(pd.Index([]).names)
# dict views and range: written as lists (their elements, in order)
_VIEW_TYPES = frozenset({type({}.keys()), type({}.values()), type({}.items()), range})

# iterators a function may return for a list (return map(f, xs), a
# generator): iterated while the result is written, within its budget
_ITERATOR_TYPES = frozenset(
    [types.GeneratorType, map, zip, filter, enumerate, reversed,
     type(iter([])), type(iter(())), type(iter(range(1))), type(iter("")),
     type(iter({})), type(iter({}.values())), type(iter({}.items())),
     type(reversed([])), type(iter(set()))] +
    [getattr(itertools, name) for name in (
        "accumulate", "chain", "combinations", "combinations_with_replacement", "compress",
        "count", "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise",
        "permutations", "product", "repeat", "starmap", "takewhile", "zip_longest")] +
    [type(itertools.groupby("a").__next__()[1])])

# what a function or method the code forgot to call is
_CALLABLE_TYPES = frozenset({types.MethodType, types.FunctionType, types.BuiltinMethodType,
                             types.BuiltinFunctionType, types.MethodWrapperType})


def _index_kinds():
    """pandas' Index classes (Index, RangeIndex, Float64Index,
    DatetimeIndex ...), read when this module loads, before any code ran."""
    kinds, todo = set(), [pd.Index]
    while todo:
        kind = todo.pop()
        if kind not in kinds and kind.__module__.startswith("pandas."):
            kinds.add(kind)
            todo.extend(type.__subclasses__(kind))
    return kinds


# containers whose one value the code meant to return, and how to take it
# (review 100: o.agg({"amount": "sum"}), np.array([m]); review 156 F5: a
# matrix, a masked array, an Index got the generic hint)
ONE_VALUE_TAKE = dict(
    [(pd.Series, "s.iloc[0] (or s.item())"), (pd.DataFrame, "df.iloc[0, 0]"),
     (np.ndarray, "a.item()"), (np.matrix, "m.item()"), (np.ma.MaskedArray, "a.item()")] +
    [(kind, "idx[0]") for kind in _index_kinds() if kind is not pd.MultiIndex])


# numpy's dtype classes (one per kind: dtype[float64], dtype[datetime64] ...)
# and pandas' extension dtypes: written as their names ("float64", "category")
_DTYPE_TYPES = frozenset(
    [type(np.dtype(c)) for c in "?bhilqpBHILQPefdgFDGSUVOMm"] +
    [type(np.dtype(t)) for t in ("M8[ns]", "m8[ns]", "U1", "S1", "V8")] +
    [t for t in vars(pd).values() if isinstance(t, type) and t.__name__.endswith("Dtype")
     and issubclass(t, pd.api.extensions.ExtensionDtype)])

# every Index subclass but DatetimeIndex and RangeIndex (as lists of values)
_INDEX_TYPES = frozenset(type(i) for i in (
    pd.Index([], dtype=object), pd.Index([1]), pd.Index([1.5]), pd.Index([True]),
    pd.Index([1], dtype="uint64"), pd.TimedeltaIndex([]), pd.PeriodIndex([], freq="D"),
    pd.IntervalIndex.from_breaks([0, 1]), pd.CategoricalIndex([]),
    pd.MultiIndex.from_tuples([(1, 2)]), pd.DatetimeIndex([]), pd.RangeIndex(0)))

# what an array column takes as its values, as an ndarray: a Series, an
# Index (not a MultiIndex: its values are tuples)
_ARRAY_LIKE_TYPES = frozenset({pd.Series} | (_INDEX_TYPES - {pd.MultiIndex}))

# pandas' extension arrays (Categorical, IntegerArray, ...): lists of values
_EXTENSION_ARRAY_TYPES = frozenset(
    t for t in vars(pd.arrays).values() if isinstance(t, type)
    and issubclass(t, pd.api.extensions.ExtensionArray))

# ipaddress' addresses, networks and interfaces: inet's and cidr's text
_IP_TYPES = frozenset({ipaddress.IPv4Address, ipaddress.IPv6Address, ipaddress.IPv4Network,
                       ipaddress.IPv6Network, ipaddress.IPv4Interface,
                       ipaddress.IPv6Interface})

# date offsets (MonthEnd, Day, DateOffset(months=1) ...): their frequency text
_OFFSET_TYPES = frozenset(
    t for t in vars(pd.offsets).values() if isinstance(t, type)
    and issubclass(t, pd.offsets.BaseOffset))


# what a DateOffset or relativedelta that only moves by amounts is, as an interval
_RELATIVE_UNITS = ("years", "months", "weeks", "days", "hours", "minutes", "seconds",
                   "microseconds")
_ABSOLUTE_FIELDS = ("year", "month", "day", "weekday", "hour", "minute", "second",
                    "microsecond")


def timedelta_text(micros):
    """An interval's text for a duration of micros microseconds: its whole
    days as days, as psycopg2 adapts a timedelta (a day is then the
    calendar's day in timestamptz arithmetic, as interval '1 day' is; it
    was 24:00:00, an hour off across a DST change), the rest as
    microseconds, both with the duration's sign."""
    sign = -1 if micros < 0 else 1
    days, rest = divmod(abs(micros), 86400000000)
    return "%d days %d microseconds" % (sign * days, sign * rest)


def _relative_interval(v):
    """The interval text of pd.DateOffset(months=1, days=2) or
    relativedelta(months=1), or None if v sets a field (day=31) or is not one."""
    t = type(v)
    if t is pd.DateOffset:
        kwds = v.kwds
        if v.normalize or any(k not in _RELATIVE_UNITS for k in kwds):
            return None
        amounts = [(k, kwds[k] * v.n) for k in _RELATIVE_UNITS if k in kwds]
    elif _relativedelta is not None and t is _relativedelta:
        if v.leapdays or any(getattr(v, k) is not None for k in _ABSOLUTE_FIELDS):
            return None
        # its weeks are part of its days
        amounts = [(k, getattr(v, k)) for k in _RELATIVE_UNITS if k != "weeks"]
    else:
        return None
    # every amount signed: under IntervalStyle sql_standard a leading minus
    # applies to the fields after it that have no sign of their own
    # ("-1 months 1 days" was -1 month -1 day, review 115 F7)
    return " ".join("%s%s %s" % ("+" if n > 0 else "", n, k)
                    for k, n in amounts if n) or "0 seconds"


# the decimal point money's input (cash_in) reads under the session's
# lc_monetary, which the backend declares with a rows result: "1234.5" was
# 12345 under de_DE, whose "." groups thousands (review 115 F1)
_MONEY = ["."]


def money_point(point):
    """The decimal point of money's text for the call's results."""
    _MONEY[0] = point if type(point) is str and len(point) == 1 and point not in "-0123456789" \
        else "."


# DateStyle's order of day, month and year, in which PostgreSQL reads
# "01/02/2024" (the backend declares it with a rows result): a str into a
# date/time column is read in it, not always month first (review 115 F6)
_DATE_ORDER = ["MDY"]


def date_order(order):
    _DATE_ORDER[0] = order if order in ("DMY", "YMD") else "MDY"


class OutputLimitExceeded(Exception):
    """The result would be larger than max_output_bytes."""


# --------------------------------------------------------------------------
# wire -> pandas

def _validity(view, nrows, pos):
    """Return (valid-mask or None, new position) for a column payload."""
    if len(view) < 8:
        raise ValueError("truncated column")
    null_count = int.from_bytes(view[:8], "little")
    pos = 8
    if null_count == 0:
        return None, pos
    nbytes = (nrows + 7) // 8
    bits = np.frombuffer(view, dtype=np.uint8, count=nbytes, offset=pos)
    valid = np.unpackbits(bits, count=nrows, bitorder="little").astype(bool)
    return valid, pos + nbytes


def unpack_valid(bits, nrows):
    """A validity bitmap (least significant bit first) as a bool array."""
    return np.unpackbits(np.frombuffer(bits, dtype=np.uint8), count=nrows,
                         bitorder="little").astype(bool)


_VAR_KINDS = frozenset({sb_io.COL_TEXT, sb_io.COL_JSON, sb_io.COL_BYTES,
                        sb_io.COL_DECIMAL, sb_io.COL_NUMERIC_ARRAY, sb_io.COL_DECIMAL_ARRAY,
                        sb_io.COL_DATE_ARRAY, sb_io.COL_TIMESTAMP_ARRAY,
                        sb_io.COL_TIMESTAMPTZ_ARRAY, sb_io.COL_DECIMAL_JSON,
                        sb_io.COL_BYTES_ARRAY, sb_io.COL_INTERVAL_PARTS})


def _numeric_leaves(value, number):
    """A numeric[] from array_to_json, whose NaN and infinities are strings,
    with them as numbers (float('nan'), Decimal('NaN'))."""
    if type(value) is list:
        return [_numeric_leaves(v, number) for v in value]
    if type(value) is str:
        return number(value)
    return value


# json's C scanners, bound now: json.loads() looks up JSONDecoder's methods
# when called, and a workspace's earlier call may have replaced them (the
# next call's inputs are decoded out of the call, without the guards)
_SCAN_JSON = json.decoder.JSONDecoder().scan_once
_SCAN_DECIMAL_JSON = json.decoder.JSONDecoder(parse_float=decimal.Decimal,
                                              parse_int=decimal.Decimal).scan_once
# json, jsonb and composites in decimal mode: a number with a fraction or an
# exponent is a Decimal (numeric's exactness: 0.1 + 0.2 is 0.3), an integer
# stays an int (a count, an id, an index)
_SCAN_FRACTIONS_JSON = json.decoder.JSONDecoder(parse_float=decimal.Decimal).scan_once
# float8[], float4[] and numeric[] (float mode): array_to_json writes 2 for
# 2.0, which must stay a float: as an int, numpy made the list int64 and
# wrapped without a word (np.prod of four 100000s, review 115 F2)
_SCAN_FLOAT_JSON = json.decoder.JSONDecoder(parse_int=float).scan_once


def scan_json(text, where, scan=_SCAN_JSON):
    """The one JSON value text holds, with nothing around it (where: what
    text is, for the error).  The C scanner directly: json.loads() also
    detects the encoding and skips whitespace with a regular expression."""
    try:
        value, end = scan(text, 0)
    except StopIteration:
        raise ValueError("%s is not JSON" % where) from None
    if end != len(text):
        raise ValueError("extra data after the JSON value in %s" % where)
    return value


def _json_value(text, scan=_SCAN_JSON):
    """One JSON value of a column (json's text may have spaces around it)."""
    return scan_json(text.strip(" \t\n\r"), "a JSON column's value", scan)


def _decimal_json_value(text):
    return _json_value(text, _SCAN_FRACTIONS_JSON)


def _numeric_array(text):
    return _numeric_leaves(_json_value(text, _SCAN_FLOAT_JSON), float)


def _decimal_array(text):
    return _numeric_leaves(_json_value(text, _SCAN_DECIMAL_JSON), decimal.Decimal)


def _time_leaves(value, parse):
    """An array of dates or times from array_to_json (ISO 8601 text) with
    its elements as Python's: a value Python's types cannot hold (infinity,
    a date BC or after 9999) stays its text."""
    if type(value) is list:
        return [_time_leaves(v, parse) for v in value]
    if type(value) is str:
        try:
            return parse(value)
        except (ValueError, OverflowError):
            return value
    return value


_UTC = datetime.timezone.utc


def _date_array(text):
    return _time_leaves(_json_value(text), datetime.date.fromisoformat)


def _timestamp_array(text):
    return _time_leaves(_json_value(text), datetime.datetime.fromisoformat)


def _timestamptz_array(text):
    # the text has the session's zone: the instant, in UTC as scalars arrive
    return _time_leaves(_json_value(text),
                        lambda v: datetime.datetime.fromisoformat(v).astimezone(_UTC))


def _bytea_leaves(value):
    """A bytea[] from array_to_json, whose elements are bytea's text (hex,
    or the escape format under bytea_output = escape), as bytes."""
    if type(value) is list:
        return [_bytea_leaves(v) for v in value]
    if type(value) is str:
        if value.startswith("\\x"):
            return bytes.fromhex(value[2:])
        # escape format: printable ASCII as itself, \\ and \ooo
        return codecs.escape_decode(value.encode("latin-1"))[0]
    return value


def _bytes_array(text):
    return _bytea_leaves(_json_value(text))


def _interval_parts(text):
    """A language function's interval argument, "months days microseconds":
    a timedelta, or with months a relativedelta (a month is not 30 days:
    date + relativedelta(months=1) is the same day of the next month)."""
    months, days, micros = (int(part) for part in text.split(" "))
    if months == 0 or _relativedelta is None:
        try:
            return datetime.timedelta(days=days + months * 30, microseconds=micros)
        except OverflowError:
            if _relativedelta is None:
                raise ValueError("an interval argument is outside the range of Python's "
                                 "timedelta") from None
    # (past timedelta's 999,999,999 days too)
    return _relativedelta(months=months, days=days, microseconds=micros)


_VAR_CONVERT = {sb_io.COL_JSON: _json_value, sb_io.COL_DECIMAL: decimal.Decimal,
                sb_io.COL_NUMERIC_ARRAY: _numeric_array, sb_io.COL_DECIMAL_ARRAY: _decimal_array,
                sb_io.COL_DATE_ARRAY: _date_array, sb_io.COL_TIMESTAMP_ARRAY: _timestamp_array,
                sb_io.COL_TIMESTAMPTZ_ARRAY: _timestamptz_array,
                sb_io.COL_DECIMAL_JSON: _decimal_json_value,
                sb_io.COL_BYTES_ARRAY: _bytes_array,
                sb_io.COL_INTERVAL_PARTS: _interval_parts}


_SHORT_TEXT_MIN_ROWS = 4096
_SHORT_TEXT_SAMPLE = 4096


def _word_keys(data, starts, lengths, shift, width):
    """The bytes [shift, shift + 8) of each value as a zero-padded uint64.

    One gather from an overlapping view (element i = the 8 bytes at byte i)
    instead of a pass per byte position: on a fresh process every page of
    a temporary costs a fault, so this touches one output array and one
    mask array.  The few last values, whose 8-byte read would run past the
    buffer, are read from a padded copy of the tail; their entries of
    starts (a writable view of the received offsets) point at 0 meanwhile.
    width is the longest value of the column (the caller knows it).
    """
    size = len(data)
    nrows = len(starts)
    positions = size - shift - 7        # where an 8-byte read fits
    first_tail = int(np.searchsorted(starts, max(positions, 0)))
    tail_starts = starts[first_tail:].tolist()
    if positions > 0:
        # the checked ndarray refuses strides= to code, and a serving child
        # reads its next call's inputs with the guards on
        words = sb_memory.raw_ndarray(shape=(positions,), dtype="<u8", buffer=data,
                                      offset=shift, strides=(1,))
        starts[first_tail:] = 0
        try:
            keys = words[starts]        # fancy indexing: np.take is slow on this view
        finally:
            starts[first_tail:] = tail_starts
    else:
        keys = np.zeros(nrows, dtype="<u8")
    # bytes of a value past its length belong to the terminator and the next
    # value: keep the low min(max(length - shift, 0), 8) bytes
    if shift:
        kept = np.clip(lengths - shift, 0, 8)
    elif width > 8:
        kept = np.minimum(lengths, 8)
    else:
        kept = lengths
    np.bitwise_and(keys, _BYTE_MASKS.take(kept), out=keys)
    if tail_starts:
        base = max(size - 32, 0)
        tail = bytes(data[base:]) + bytes(16)
        for i, start in enumerate(tail_starts, first_tail):
            a = start + shift - base
            keys[i] = int.from_bytes(tail[a:a + int(kept[i])], "little")
    return keys


_BYTE_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype="<u8")


def _factorize(values):
    """(uniques, codes) of an integer array, first-seen order.

    pandas' own hash table, started small: pd.factorize sizes it for every
    row, which is tens of MB of fresh pages for a column of a few distinct
    values.
    """
    if values.dtype == np.uint64:
        table = _hashtable.UInt64HashTable(1024)
    else:
        table = _hashtable.Int64HashTable(1024)
    return table.factorize(values)


def _word_bytes(word):
    return int(word).to_bytes(8, "little")


def _decode_short_texts(data, offsets, lengths, nrows):
    """A text column of short, repeated values, without one str per row.

    Categories, codes and labels (at most 16 bytes, few distinct values)
    are the common case of analytics text.  Each value is packed into one
    or two zero-padded 64-bit keys (PostgreSQL texts hold no NUL, so the
    padding is unambiguous and the key alone gives the value back), the
    keys are factorized with pandas' hash table, and only the distinct
    values become Python strings; the rows share them.  Returns None where
    this does not pay (long or mostly distinct values): the caller then
    decodes every row.
    """
    if nrows < _SHORT_TEXT_MIN_ROWS:
        return None
    width = int(lengths.max())
    if width > 16:
        return None
    starts = offsets[:-1]
    sample = slice(0, _SHORT_TEXT_SAMPLE)
    # a cheap look at the first rows before any pass over the column
    probe = [_word_keys(data, starts[sample], lengths[sample], 0, width)]
    if width > 8:
        probe.append(_word_keys(data, starts[sample], lengths[sample], 8, width))
    distinct = len(set(zip(*[p.tolist() for p in probe])))
    if distinct > _SHORT_TEXT_SAMPLE // 4:
        return None             # mostly distinct: sharing would not pay
    lo = _word_keys(data, starts, lengths, 0, width)
    if width <= 8:
        uniques, codes = _factorize(lo)
        del lo
        if len(uniques) > nrows // 4:
            return None
        raw = [_word_bytes(u) for u in uniques.tolist()]
    else:
        lo_uniques, lo_codes = _factorize(lo)
        del lo
        hi_uniques, hi_codes = _factorize(_word_keys(data, starts, lengths, 8, width))
        # two words: codes of each half, combined exactly
        np.multiply(lo_codes, len(hi_uniques), out=lo_codes)
        np.add(lo_codes, hi_codes, out=lo_codes)
        del hi_codes
        pairs, codes = _factorize(lo_codes)
        del lo_codes
        if len(pairs) > nrows // 4:
            return None
        lo_text = [_word_bytes(u) for u in lo_uniques.tolist()]
        hi_text = [_word_bytes(u) for u in hi_uniques.tolist()]
        nhi = len(hi_uniques)
        raw = [lo_text[p // nhi] + hi_text[p % nhi] for p in pairs.tolist()]
    texts = np.empty(len(raw), dtype=object)
    texts[:] = [codecs.utf_8_decode(r.rstrip(b"\0"), "replace", True)[0] for r in raw]
    return texts.take(codes)


def _decode_var(kind, view, nrows, pos, valid):
    """Values of a NUL-terminated kind: str, JSON objects, bytes or Decimal."""
    offsets = np.frombuffer(view, dtype="<i8", count=nrows + 1, offset=pos)
    data = view[pos + 8 * (nrows + 1):]
    if offsets[0] != 0 or offsets[-1] != len(data):
        raise ValueError("corrupt variable-length column")
    if nrows == 0:
        return np.empty(0, dtype=object)
    lengths = np.diff(offsets)
    lengths -= 1                # the terminator
    if int(lengths.min()) < 0:
        raise ValueError("corrupt variable-length column")
    if kind == sb_io.COL_TEXT:
        shared = _decode_short_texts(data, offsets, lengths, nrows)
        if shared is not None:
            if valid is not None:
                shared[~valid] = None
            return shared
    del lengths
    out = np.empty(nrows, dtype=object)
    if kind == sb_io.COL_BYTES:
        bounds = offsets.tolist()
        out[:] = [bytes(data[bounds[i]:bounds[i + 1] - 1]) for i in range(nrows)]
    else:
        # PostgreSQL texts hold no NUL: one split does the whole column,
        # decoded straight from the received buffer
        texts = codecs.utf_8_decode(data[:-1], "replace", True)[0].split("\0")
        if len(texts) != nrows:
            raise ValueError("corrupt text column")
        if kind == sb_io.COL_TEXT:
            out[:] = texts
        else:
            convert = _VAR_CONVERT[kind]
            if valid is None:
                values = list(map(convert, texts))
            else:
                values = [convert(t) if ok else None for t, ok in zip(texts, valid.tolist())]
            # JSON's and arrays' lists and dicts of plain values are in no
            # cycle: the collector need not scan them (in a workspace, after
            # every call)
            sb_io.untrack_leaves(values)
            # each value as it is: out[:] = values asked every Decimal for
            # numpy's array protocols first (150k numeric values in decimal
            # mode took 80 ms there and 4 ms here; review 172 F5)
            out = np.fromiter(values, dtype=object, count=nrows)
            del values
    if valid is not None:
        out[~valid] = None
    return out


def decode_column(kind, nrows, payload):
    """Build an array of nrows values of the given kind from payload."""
    view = memoryview(payload)
    valid, pos = _validity(view, nrows, 0)

    if kind in _VAR_KINDS:
        return _decode_var(kind, view, nrows, pos, valid)

    width = 1 if kind == sb_io.COL_BOOL else 8
    if len(view) - pos < width * nrows:
        raise ValueError("truncated column")
    return _decode_fixed(kind, nrows, view, pos, valid)


def fixed_width(kind):
    """Bytes a value of a fixed-width kind takes; None for the others."""
    if kind in _VAR_KINDS:
        return None
    return 1 if kind == sb_io.COL_BOOL else 8


def store_column(kind, nrows, store, masks):
    """A streamed fixed-width column: its values received in place in
    store (sb_io.Store), masks the row groups' (rows, valid-mask or None).
    The same array decode_column makes of all the rows at once."""
    valid = None
    if any(m is not None for _rows, m in masks):
        valid = np.concatenate([m if m is not None else np.ones(rows, bool)
                                for rows, m in masks])
    return _decode_fixed(kind, nrows, store, 0, valid)


def _decode_fixed(kind, nrows, view, pos, valid):
    """Values of a fixed-width kind from view at pos (the caller checked
    that they are there)."""
    if kind == sb_io.COL_INT64:
        values = np.frombuffer(view, dtype="<i8", count=nrows, offset=pos)
        if valid is not None:
            return pd.arrays.IntegerArray(values, ~valid)
        return values
    if kind == sb_io.COL_FLOAT64:
        values = np.frombuffer(view, dtype="<f8", count=nrows, offset=pos)
        if valid is not None:
            values = values.copy()
            values[~valid] = np.nan
        return values
    if kind == sb_io.COL_BOOL:
        values = np.frombuffer(view, dtype=np.uint8, count=nrows, offset=pos).astype(bool)
        if valid is not None:
            return pd.arrays.BooleanArray(values, ~valid)
        return values
    if kind == sb_io.COL_INTERVAL:
        micros = np.frombuffer(view, dtype="<i8", count=nrows, offset=pos)
        values = micros.view("timedelta64[us]").astype("timedelta64[ns]")
        if valid is not None:
            values[~valid] = np.timedelta64("NaT")
        return values
    if kind in (sb_io.COL_DATE, sb_io.COL_TIMESTAMP, sb_io.COL_TIMESTAMPTZ):
        micros = np.frombuffer(view, dtype="<i8", count=nrows, offset=pos)
        values = micros.view("datetime64[us]").astype("datetime64[ns]")
        if valid is not None:
            values[~valid] = np.datetime64("NaT")
        if kind == sb_io.COL_TIMESTAMPTZ:
            return pd.DatetimeIndex(values).tz_localize("UTC").array
        return values
    raise ValueError("unknown column kind %d" % kind)


def concat_column(parts):
    """One array of a streamed column's row groups, as decode_column would
    have made it of all the rows at once: a row group without NULLs decodes
    to a numpy array, one with NULLs to pandas' nullable array (Int64,
    boolean), so parts that differ take the nullable type."""
    if len(parts) == 1:
        return parts[0]
    nullable = [p for p in parts if not isinstance(p, np.ndarray)]
    if not nullable:
        return _joined(parts)
    if all(isinstance(p, (np.ndarray, pd.arrays.IntegerArray, pd.arrays.BooleanArray))
           for p in parts):
        # values and mask joined apart: a part without NULLs has no mask
        values = _joined([p if isinstance(p, np.ndarray) else p._data for p in parts])
        mask = _joined([np.zeros(len(p), bool) if isinstance(p, np.ndarray) else p._mask
                        for p in parts])
        return type(nullable[0])(values, mask)
    dtype = nullable[0].dtype
    parts = [p if not isinstance(p, np.ndarray) else pd.array(p, dtype=dtype) for p in parts]
    return type(parts[0])._concat_same_type(parts)


def _joined(arrays):
    """np.concatenate into an array whose pages are faulted in at once
    (on a virtual machine a fault per 4 kB costs more than the copy)."""
    out = np.empty(sum(len(a) for a in arrays), dtype=arrays[0].dtype)
    if out.dtype != object:
        sb_io.prefault(out)
    return np.concatenate(arrays, out=out)


# what one value of a fixed-width moment kind is counted from, as the
# general path's datetime64[ns] reads it (so within its range only)
_MOMENT_BASE = {sb_io.COL_DATE: datetime.datetime(1970, 1, 1),
                sb_io.COL_TIMESTAMP: datetime.datetime(1970, 1, 1),
                sb_io.COL_TIMESTAMPTZ: pd.Timestamp(0, tz="UTC").to_pydatetime(),
                sb_io.COL_INTERVAL: datetime.timedelta(0)}
# an argument's own date or time may take Python's whole range, years 1 to
# 9999 (the backend's SB_PY_MIN_US .. SB_PY_MAX_US), an interval any int64;
# its infinities come as int64's ends, and arrive as an array's do: text
_PY_MIN_US = -62135596800000000
_PY_MAX_US = 253402300799999999
_INFINITIES = {2 ** 63 - 1: "infinity", -2 ** 63: "-infinity"}
_GENERAL = object()


def _one_var(kind, payload):
    """The one value without NULL of a variable-length column payload
    (offsets 0 and the data's length, the data ending in its terminator),
    as _decode_var gives it; _GENERAL where that path must decide."""
    if payload[-1] != 0 or int.from_bytes(payload[8:16], "little", signed=True) != 0 or \
            int.from_bytes(payload[16:24], "little", signed=True) != len(payload) - 24:
        return _GENERAL
    data = payload[24:-1]
    if kind == sb_io.COL_BYTES:
        return bytes(data)
    text = codecs.utf_8_decode(data, "replace", True)[0]
    if "\0" in text:
        return _GENERAL
    if kind == sb_io.COL_TEXT:
        return text
    value = _VAR_CONVERT[kind](text)
    sb_io.untrack_leaves([value])
    return value


def decode_scalar(kind, payload):
    """The value of a one-row column payload as a plain Python value (an
    argument of a LANGUAGE pysandbox function): None for NULL; int, float,
    bool, str, bytes, Decimal, JSON's objects; datetime.date, datetime (aware,
    UTC, for timestamptz) and timedelta."""
    # numbers without NULL, as the per-row calls of a function mostly get
    # them: read straight from the bytes (numpy costs a microsecond or two)
    if payload.startswith(_ZERO8):
        n = len(payload)
        if kind == sb_io.COL_INT64 and n == 16:
            return int.from_bytes(payload[8:16], "little", signed=True)
        if kind == sb_io.COL_FLOAT64 and n == 16:
            return _DOUBLE.unpack_from(payload, 8)[0]
        if kind == sb_io.COL_BOOL and n == 9:
            return payload[8] != 0
        # text, dates and times, JSON too (review 143 F1: 24-63 us a row
        # through numpy and pandas, where an int took 12)
        if kind in _MOMENT_BASE and n == 16:
            micros = int.from_bytes(payload[8:16], "little", signed=True)
            if kind != sb_io.COL_INTERVAL and micros in _INFINITIES:
                return _INFINITIES[micros]
            if _PY_MIN_US <= micros <= _PY_MAX_US or kind == sb_io.COL_INTERVAL:
                value = _MOMENT_BASE[kind] + datetime.timedelta(microseconds=micros)
                return value.date() if kind == sb_io.COL_DATE else value
        elif kind in _VAR_KINDS and n >= 25:
            value = _one_var(kind, payload)
            if value is not _GENERAL:
                return value
    valid, _pos = _validity(memoryview(payload), 1, 0)
    if valid is not None and not valid[0]:
        return None
    value = decode_column(kind, 1, payload)[0]
    if kind == sb_io.COL_INT64:
        return int(value)
    if kind == sb_io.COL_FLOAT64:
        return float(value)
    if kind == sb_io.COL_BOOL:
        return bool(value)
    if kind == sb_io.COL_DATE:
        return pd.Timestamp(value).date()
    if kind in (sb_io.COL_TIMESTAMP, sb_io.COL_TIMESTAMPTZ):
        return pd.Timestamp(value).to_pydatetime()
    if kind == sb_io.COL_INTERVAL:
        return pd.Timedelta(value).to_pytimedelta()
    return value


def decode_table(header, columns):
    """Build a DataFrame from a TABLE header and its decoded columns."""
    # One block per column, no consolidation: pd.DataFrame(dict) would copy
    # every column into per-dtype 2-D blocks, which costs a fresh page fault
    # per 4 kB of input here and doubles the child's memory.  The arrays were
    # decoded into buffers this call owns, so the frame may keep them.
    names = pd.Index([c["name"] for c in header["columns"]], dtype=object)
    return pd.DataFrame(arrays_to_mgr(columns, names, pd.RangeIndex(header["nrows"]),
                                      consolidate=False, typ="block"))


# --------------------------------------------------------------------------
# Python -> JSON text

class _Writer:
    """Accumulates JSON text and enforces the output cap as it grows.

    The text is ASCII (non-ASCII is escaped), so characters are bytes.
    """

    def __init__(self, limit, used, notes=None):
        self.parts = []
        self.size = used
        self.limit = limit
        self.notes = notes      # a list for what the caller should hear

    def put(self, text):
        self.size += len(text)
        if self.size > self.limit:
            raise OutputLimitExceeded(
                "result exceeds the output limit of %d bytes" % self.limit)
        self.parts.append(text)


def _float_text(value):
    if math.isnan(value) or math.isinf(value):
        return "null"
    if type(value) is np.float32 or type(value) is np.float16:
        # its own shortest digits, as to_jsonb(float4) and a numeric column
        # give them: 1.1, not 1.100000023841858 (review 100)
        return repr(float(str(value)))
    return repr(float(value))


def _period_text(period):
    """A Period as pandas prints it: "2024-01", "2024Q1", "2024-01-01"."""
    return _Period.__str__(period)


def _interval_text(interval, path):
    """An Interval as pandas prints it, "(0, 1]", with its ends checked."""
    left = _key_text(interval.left, path)
    right = _key_text(interval.right, path)
    closed = interval.closed
    return "%s%s, %s%s" % ("[" if closed in ("left", "both") else "(", left, right,
                           "]" if closed in ("right", "both") else ")")


def _tz_text(tz):
    """A time zone's name, or None if tz is not a known time-zone object."""
    t = type(tz)
    if t is datetime.timezone:
        return tz.tzname(None)
    if _zoneinfo is not None and t is _zoneinfo.ZoneInfo:
        return tz.key
    if _PytzTzInfo is not None and isinstance(tz, _PytzTzInfo) and \
            t.__module__.startswith("pytz"):
        return tz.zone          # pytz makes a class per zone
    if _dateutil_tz is not None:
        if t is _dateutil_tz.tzutc:
            return "UTC"
        if t is _dateutil_tz.tzfile:
            # gettz("Europe/Paris") keeps the file's path
            return tz._filename.rpartition("zoneinfo/")[2]
        if t is _dateutil_tz.tzoffset or t is _dateutil_tz.tzlocal:
            return tz.tzname(None) or "UTC%s" % tz.utcoffset(None)
    return None


def _key_text(key, path):
    """Object keys: JSON needs strings."""
    t = type(key)
    if t is str:
        return key
    if t in _INT_TYPES or t in _BOOL_TYPES:
        return str(int(key)) if t not in _BOOL_TYPES else ("true" if key else "false")
    if t in _FLOAT_TYPES:
        # a missing key (a NULL group of groupby(dropna=False)) is NaN there
        return "null" if key != key else repr(float(key))
    if key is None or t is _NaTType or t is _NAType:
        return "null"
    if t is _Timestamp or t is datetime.datetime or t is datetime.date:
        return key.isoformat()
    if t is np.str_ or isinstance(key, str):
        return str.__str__(key)     # a str subclass, a str Enum's member: its text
    if t is _Timedelta or t is datetime.timedelta or t is np.timedelta64:
        return _Timedelta(key).isoformat()
    if t is np.datetime64:
        return _Timestamp(key).isoformat()
    if t is _Period:
        return _period_text(key)
    if t is _Interval:
        return _interval_text(key, path)
    if t is decimal.Decimal:
        return str(key)
    if t is tuple:
        # MultiIndex labels; reset_index() pads the index name with ""
        parts = [_key_text(k, path) for k in key]
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        return ",".join(parts)
    raise TypeError('cannot use a value of type "%s" as a JSON object key at %s'
                    % (t.__name__, path))


# numeric's range, which jsonb applies to every number: at most 131072
# digits before the decimal point and 16383 after it
_NUMERIC_MAX_INT_DIGITS = 131072
_NUMERIC_MAX_SCALE = 16383


def _decimal_text(value, path):
    if not value.is_finite():
        return "null"
    _sign, digits, exponent = value.as_tuple()
    if len(digits) + exponent > _NUMERIC_MAX_INT_DIGITS or -exponent > _NUMERIC_MAX_SCALE:
        raise ValueError("the Decimal at %s is outside the range of PostgreSQL's numeric type "
                         "(at most %d digits before the decimal point and %d after it); "
                         "round it, or return it as a string"
                         % (path, _NUMERIC_MAX_INT_DIGITS, _NUMERIC_MAX_SCALE))
    return str(value)


def _scalar_text(value, t, path):
    """JSON text for a scalar of exact type t, or None if t is not scalar."""
    if value is None or t is _NaTType or t is _NAType:
        return "null"
    if t in _BOOL_TYPES:
        return "true" if value else "false"
    if t in _INT_TYPES:
        return str(int(value))
    if t in _FLOAT_TYPES:
        return _float_text(value)
    if t is str:
        return _encode_str(value)
    if t is np.str_:
        return _encode_str(str.__str__(value))
    if t is _Timestamp or t is datetime.datetime or t is datetime.date \
            or t is datetime.time:
        return '"' + value.isoformat() + '"'
    if t is np.datetime64:
        return "null" if np.isnat(value) else '"' + _Timestamp(value).isoformat() + '"'
    if t is _Timedelta or t is datetime.timedelta:
        return '"' + _Timedelta(value).isoformat() + '"'
    if t is np.timedelta64:
        return "null" if np.isnat(value) else '"' + _Timedelta(value).isoformat() + '"'
    if t is decimal.Decimal:
        return _decimal_text(value, path)
    if t is _Period:
        return _encode_str(_period_text(value))
    if t is _Interval:
        return _encode_str(_interval_text(value, path))
    if t in _DTYPE_TYPES:
        return _encode_str(str(value))
    if t in _OFFSET_TYPES:
        return _encode_str(value.freqstr)
    if isinstance(value, datetime.tzinfo):
        name = _tz_text(value)
        if name is not None:
            return _encode_str(name)
    if t is bytes or t is bytearray:
        # bytea's own text form, so the value round-trips through SQL
        return '"\\\\x' + bytes(value).hex() + '"'
    if t is uuid.UUID:
        return '"' + str(value) + '"'
    if t in _IP_TYPES:
        # inet's and cidr's text; an IPv6 scope id is any text (review 61)
        return _encode_str(str(value))
    if t is memoryview:
        return '"\\\\x' + bytes(value).hex() + '"'
    if isinstance(value, str):
        # a str subclass (a str Enum's member): its text, as json.dumps
        # writes it (the code's subclasses keep str's methods: sb_guard)
        return _encode_str(str.__str__(value))
    return None


def _figure_image(figure, path):
    """A returned figure's image; the error of one that cannot be drawn
    names where the result holds it (drawn after the code returned: no line
    of the code's to show)."""
    try:
        return sb_charts.image(figure)
    except ValueError as exc:
        raise ValueError("the figure returned in %s could not be drawn: %s" % (path, exc)) from None


def _write(w, value, path, depth):
    if depth > _MAX_DEPTH:
        raise ValueError("result is nested more than %d levels deep at %s"
                         % (_MAX_DEPTH, path))
    t = type(value)
    text = _scalar_text(value, t, path)
    if text is not None:
        w.put(text)
        return
    if (t is list or t is tuple or t is np.ndarray) and \
            (figure := sb_charts.one_figure(value)) is not None:
        # Axes of one figure (df.hist(), plt.subplots(2, 2)): its one PNG
        _write(w, _figure_image(figure, path), path, depth)
    elif t is list or t is tuple:
        _write_list(w, value, path, depth)
    elif t is dict or t in _DICT_TYPES:
        w.put("{")
        first = True
        seen = {}
        for k, v in dict.items(value):
            if not first:
                w.put(",")
            first = False
            key = _key_text(k, path)
            if key in seen:
                raise _repeated_key(path, "the dict", key, seen[key], k,
                                    "give the keys different text (JSON keys are text)")
            seen[key] = k
            w.put(_encode_str(key))
            w.put(":")
            _write(w, v, "%s[%s]" % (path, _encode_str(key)), depth + 1)
        w.put("}")
        if w.notes is not None and len(w.notes) < 3 and _made_by_to_dict(value) and \
                _ranked_out_of_order(list(seen), list(dict.values(value))):
            # s.sort_values().to_dict(): the ranking is lost as a Series' is
            w.notes.append(_ranked_note("the dict at %s" % path[:200],
                                        "list(d.items())"))
    elif (t is np.ndarray or t is np.recarray) and value.ndim == 0:
        # np.array(5.5), as np.sum(..., keepdims=False) of an object array
        # gives: its one value
        _write(w, value[()], path, depth + 1)
    elif t is np.ndarray or t is np.recarray:
        _write_list(w, _array_values(value), path, depth)
    elif t is np.record:
        _write_list(w, value.tolist(), path, depth)
    elif t is slice:
        _write(w, {"start": value.start, "stop": value.stop, "step": value.step}, path, depth)
    elif t is pd.Series:
        _write_series(w, value, path, depth)
    elif t is pd.DataFrame:
        _write_frame(w, value, path, depth)
    elif t in _INDEX_TYPES:
        _write_list(w, _array_values(value.to_numpy()), path, depth)
    elif t in _EXTENSION_ARRAY_TYPES:
        _write_list(w, _column_values(pd.Series(value, copy=False)), path, depth)
    elif t is _FrozenList:
        _write_list(w, list.__iter__(value), path, depth)
    elif t is set or t is frozenset:
        _write_list(w, _set_values(value), path, depth)
    elif t in _VIEW_TYPES:
        _write_list(w, iter(value), path, depth)
    elif t in _ITERATOR_TYPES:
        _write_list(w, value, path, depth)
    elif isinstance(value, tuple) and type(getattr(t, "_fields", None)) is tuple:
        # a namedtuple: an object of its fields
        _write(w, dict(zip(t._fields, tuple.__iter__(value))), path, depth)
    elif dataclasses.is_dataclass(t) and not isinstance(value, type):
        # a dataclass instance: an object of its fields (not deep-copied,
        # as dataclasses.asdict() would)
        _write(w, {f.name: getattr(value, f.name) for f in dataclasses.fields(value)
                   if not f.name.startswith("_")}, path, depth)
    elif sb_charts.figure_of(value) is not None:
        _write(w, _figure_image(sb_charts.figure_of(value), path), path, depth)
    else:
        if issubclass(t, enum.Enum):
            what = "return its .value or .name"
        elif t.__name__ in ("DataFrameGroupBy", "SeriesGroupBy"):
            what = "aggregate the groups first, such as .sum(), .mean(), .size() or .agg(...)"
        elif t.__name__ in ("Resampler", "DatetimeIndexResampler", "Rolling", "Expanding",
                            "ExponentialMovingWindow"):
            what = "aggregate it first, such as .sum() or .mean()"
        elif t.__name__ == "Styler":
            what = "return the styled frame's data (.data) or its HTML (.to_html())"
        elif issubclass(t, (int, float, str)):
            what = "convert it with int(x), float(x) or str(x)"
        elif type(getattr(t, "__module__", None)) is str and t.__module__.startswith("matplotlib."):
            # plt.plot(...)'s Line2D list, ax.bar(...)'s BarContainer (review 111 F9)
            what = ("it is a part of a chart: return the figure, plt.gcf() (or the Axes, "
                    "ax), to get its PNG")
        else:
            what = "return lists, dicts, numbers, strings, pandas objects or matplotlib figures"
        name = t.__name__
        if t is sb_guard.SbModule or isinstance(value, types.ModuleType):
            module = object.__getattribute__(value, "_sb_module") if t is sb_guard.SbModule \
                else value
            name = "module %s" % getattr(module, "__name__", "?")
            what = ("return the figure, plt.gcf() (or the Axes), to get its PNG"
                    if name == "module matplotlib.pyplot" else what)
        raise TypeError('cannot convert a value of type "%s" at %s to JSON; %s'
                        % (name, path, what))


def _set_values(value):
    """A set's elements, sorted when they are all numbers or all strings."""
    items = list(set.__iter__(value) if type(value) is set else frozenset.__iter__(value))
    kinds = {str if type(v) is str else float
             if type(v) in _INT_TYPES or type(v) in _FLOAT_TYPES or type(v) in _BOOL_TYPES
             else None for v in items}
    if len(kinds) == 1 and None not in kinds:
        try:
            items.sort(key=str.__str__ if str in kinds else float)
        except OverflowError:  # an int beyond float's range: left unsorted
            pass
    return items


def _write_list(w, values, path, depth):
    w.put("[")
    if type(values) is list:
        values = list.__iter__(values)
    elif type(values) is tuple:
        values = tuple.__iter__(values)
    for i, v in enumerate(values):
        if i:
            w.put(",")
        _write(w, v, "%s[%d]" % (path, i), depth + 1)
    w.put("]")


def _array_values(arr):
    """A numpy array as a list of plain Python values (datetimes as Timestamps)."""
    kind = arr.dtype.kind
    if kind == "M":
        return [None if np.isnat(x) else _Timestamp(x) for x in arr.ravel()]
    if kind == "m":
        return [None if np.isnat(x) else _Timedelta(x) for x in arr.ravel()]
    if kind == "f" and arr.dtype.itemsize <= 4:
        # float32's shortest digits (_float_text)
        return [float(x) for x in arr.astype(str).ravel()] if arr.ndim <= 1 else \
            [_array_values(a) for a in arr]
    if kind in "biufU":
        return arr.tolist()
    if kind == "O" and arr.ndim == 1:
        return list(arr)
    return arr.tolist()


def _column_values(series):
    """The values of a Series as plain Python objects, NA as None."""
    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        return [None if v is pd.NaT else v for v in series.array]
    if isinstance(dtype, (pd.Int64Dtype, pd.BooleanDtype, pd.Float64Dtype)) or \
            pd.api.types.is_extension_array_dtype(dtype):
        return [None if v is pd.NA else v for v in series.array]
    return _array_values(series.to_numpy())


def _repeated_key(path, what, key, first, again, fix):
    """A JSON object keeps one value per key (jsonb the last): two labels
    that give the same key would lose values without a word."""
    if _short_repr(first) == _short_repr(again):
        found = 'the label %s more than once' % _short_repr(first)
    else:
        found = 'the labels %s and %s, which are both the key "%s"' % (
            _short_repr(first), _short_repr(again), key[:60])
    return ValueError("%s at %s has %s, and a JSON object keeps one value per key; %s"
                      % (what, path, found, fix))


def _short_repr(value):
    try:
        text = repr(value)
    except Exception:  # noqa: B902 - a label's own __repr__
        text = "?"
    return text if len(text) <= 60 else text[:57] + "..."


_SERIES_FIX = ("return s.reset_index() for its rows, s.tolist() for the values alone, "
               "or s.groupby(level=0, dropna=False).agg(list) for a list per label")


def _write_series(w, series, path, depth):
    keys = _array_values(series.index.to_numpy())
    values = _column_values(series)
    seen = {}
    w.put("{")
    for i, (k, v) in enumerate(zip(keys, values)):
        if i:
            w.put(",")
        key = _key_text(k, path)
        if key in seen:
            raise _repeated_key(path, "the Series", key, seen[key], k, _SERIES_FIX)
        seen[key] = k
        w.put(_encode_str(key))
        w.put(":")
        _write(w, v, "%s[%s]" % (path, _encode_str(key)), depth + 1)
    w.put("}")
    if w.notes is not None and len(w.notes) < 3 and _ranked_out_of_order(list(seen), values):
        w.notes.append(_ranked_note("the Series at %s" % path[:200],
                                    "s.reset_index().values.tolist() (or "
                                    "s.to_frame().reset_index() for records)"))


def _ranked_note(what, keep):
    return ("%s is ordered by its values (nlargest, sort_values, value_counts), and a JSON "
            "object keeps its keys in jsonb's own order (shorter keys first), so that order "
            "is lost: return %s to keep it" % (what, keep))


# what a value written into a json column, or a LANGUAGE function's json
# result, says of itself (the call says it once: take_notes())
_NOTES = []


def take_notes():
    """The notes of the json values written since the last take (and the
    end of the dicts remembered for them: a call begins with a take)."""
    notes = _NOTES[:]
    del _NOTES[:]
    _RANKED_DICTS.clear()
    return notes


# the dicts this call's Series.to_dict() made, by id: their length and
# first and last keys (not the dicts: a loop that made and dropped large
# ones would keep them all, review 105).  Only such a dict is a ranking a
# note is about (a summary dict, {"count": 5, "mean": 7.5, "max": 9}, is
# also ordered by its values).
_RANKED_DICTS = {}


def _made_by_to_dict(d):
    made = _RANKED_DICTS.get(id(d))
    if made is None or made[0] != len(d) or not d:
        return False
    keys = iter(dict.keys(d))
    first = next(keys)
    return made[1] is first and made[2] is next(reversed(dict.keys(d)))


def nulls_stay_missing():
    """A float column's NULL arrives as NaN, an integer column's as pandas'
    NA (Int64): pandas 1.5 computes Int64 * float64 as Float64 with the
    NaN kept as a value, which isna() does not see, fillna() does not
    fill and sum() does not skip, so revenue = price * qty summed to NaN
    where SQL's sum skips the NULL rows (review 139 F1; pandas' own
    GH#45810, and #42630 where its maintainers say NaN of a float operand
    is meant as missing).  In arithmetic between a masked array and a
    numpy float array, the array's NaN count as missing: the result's NA.
    Runs once, in the worker."""
    from pandas.core.arrays.masked import BaseMaskedArray
    arith = BaseMaskedArray._arith_method

    def _arith_method(self, other, op):
        if type(other) is np.ndarray and other.ndim == 1 and \
                (other.dtype == np.float64 or other.dtype == np.float32):
            missing = np.isnan(other)
            if missing.any():
                other = pd.arrays.FloatingArray(other, missing)
        return arith(self, other, op)
    _arith_method.__qualname__ = arith.__qualname__
    _arith_method.__doc__ = arith.__doc__
    BaseMaskedArray._arith_method = _arith_method


def running_skips_nulls():
    """An integer column's NULLs arrive as Int64's NA, over a hidden 0: pandas
    1.5 accumulates a masked integer or boolean array over its raw data, so
    cummin()/cummax() took the hidden 0 (every later row 0, in a column of
    prices) and cumsum()/cumprod() were NA for every row after the first
    NULL, where SQL's min() OVER and sum() OVER, pandas 2 and a float column
    skip the NULL (review 159 F1).  With skipna (the default) the NULLs are
    the accumulation's neutral value and stay NA in the result, as pandas 2
    does it.  Runs once, in the worker."""
    from pandas.core import nanops
    from pandas.core.arrays.masked import BaseMaskedArray
    real = nanops.na_accum_func

    def na_accum_func(values, accum_func, *, skipna):
        if not skipna or not isinstance(values, BaseMaskedArray) or \
                values.dtype.kind not in "iub" or values.ndim != 1:
            return real(values, accum_func, skipna=skipna)
        data = values._data.copy()
        mask = values._mask.copy()
        if mask.any():
            if accum_func is np.cumprod or accum_func == np.cumprod:
                data[mask] = 1
            elif accum_func is np.cumsum or accum_func == np.cumsum:
                data[mask] = 0
            elif accum_func == np.minimum.accumulate:
                data[mask] = True if data.dtype == bool else np.iinfo(data.dtype).max
            elif accum_func == np.maximum.accumulate:
                data[mask] = False if data.dtype == bool else np.iinfo(data.dtype).min
            else:
                return real(values, accum_func, skipna=skipna)
        result = accum_func(data, axis=0)
        if result.dtype == bool:
            return pd.arrays.BooleanArray(result, mask)
        if result.dtype.kind in "iu":
            return pd.arrays.IntegerArray(result, mask)
        return real(values, accum_func, skipna=skipna)
    na_accum_func.__doc__ = real.__doc__
    nanops.na_accum_func = na_accum_func


def remember_series_dicts():
    """Series.to_dict() remembers what it made, up to 64 dicts a call
    (review 104: s.sort_values().to_dict() lost its ranking unnoticed).
    Runs once, in the worker."""
    to_dict = pd.Series.to_dict

    def remembering_to_dict(self, *args, **kwargs):
        made = to_dict(self, *args, **kwargs)
        if type(made) is dict and len(made) >= 2 and len(_RANKED_DICTS) < 64:
            _RANKED_DICTS[id(made)] = (len(made), next(iter(dict.keys(made))),
                                       next(reversed(dict.keys(made))))
        return made

    remembering_to_dict.__doc__ = to_dict.__doc__
    pd.Series.to_dict = remembering_to_dict


def _ranked_out_of_order(keys, values):
    """Whether a Series whose keys are keys (their JSON text) is sorted by
    its values, which are numbers, and jsonb's key order (length, then
    bytes) is another: a ranking a JSON object loses (review 100)."""
    if len(keys) < 2 or len(keys) > 100000:
        return False
    numbers = [v for v in values if v is not None]
    if len(numbers) < 2 or not all(type(v) in _INT_TYPES or type(v) in _FLOAT_TYPES
                                   for v in numbers):
        return False
    pairs = list(zip(numbers, numbers[1:]))
    if not (all(a >= b for a, b in pairs) or all(a <= b for a, b in pairs)):
        return False
    if all(a == b for a, b in pairs):
        return False
    encoded = [k.encode("utf-8", "surrogatepass") for k in keys]
    return encoded != sorted(encoded, key=lambda b: (len(b), b))


def _has_default_index(frame):
    index = frame.index
    if index.name is None and len(index) == 0:
        return True                     # pd.DataFrame() has an empty object index
    return (type(index) is pd.RangeIndex and index.start == 0 and index.step == 1
            and index.name is None)


def _index_as_columns(frame, where):
    """The frame with its index as leading columns, as reset_index() makes
    them.  A level named like a column (groupby("g").apply(f) keeps g both
    ways) is dropped when it holds that column's values, and refused when it
    does not: reset_index() raises for both, and writing the frame without
    its index lost every level."""
    try:
        return frame.reset_index()
    except ValueError:
        pass
    index = frame.index
    labels = set()
    for label in frame.columns:
        try:
            labels.add(label)
        except TypeError:           # an unhashable label matches no level name
            pass
    clashing = []
    for level, name in enumerate(index.names):
        try:
            clash = name is not None and name in labels
        except TypeError:
            clash = False
        if not clash:
            continue
        column = frame[name]
        values = index.get_level_values(level)
        if isinstance(column, pd.DataFrame) or not values.equals(pd.Index(column)):
            raise ValueError(
                'the DataFrame at %s has an index level and a column both named %s, with '
                'different values, and its rows carry the index as fields; rename the level '
                "(df.rename_axis(index={%s: 'other'})) or drop it (df.reset_index(level=%s, "
                "drop=True))" % (where, _short_repr(name), _short_repr(name), _short_repr(name)))
        clashing.append(level)
    if clashing:
        frame = frame.reset_index(level=clashing, drop=True)
    if _has_default_index(frame):
        return frame
    try:
        return frame.reset_index()
    except ValueError:  # an unnamed level's default name ("level_0") is a column's
        return frame.reset_index(drop=True)


def _write_frame(w, frame, path, depth):
    # Rows carry their index as leading fields unless it is the default
    # 0..n-1, so df.groupby('g').sum() keeps its keys (like reset_index()).
    if not _has_default_index(frame):
        frame = _index_as_columns(frame, path)
    seen = {}
    for c in frame.columns:
        key = _key_text(c, path)
        if key in seen:
            raise _repeated_key(path, "the DataFrame", key, seen[key], c,
                                "give its columns different names (df.columns = [...])")
        seen[key] = c
    names = [_encode_str(_key_text(c, path)) + ":" for c in frame.columns]
    columns = [_column_values(frame.iloc[:, j]) for j in range(frame.shape[1])]
    w.put("[")
    for i in range(frame.shape[0]):
        if i:
            w.put(",")
        w.put("{")
        for j, name in enumerate(names):
            if j:
                w.put(",")
            w.put(name)
            _write(w, columns[j][i], "%s[%d]" % (path, i), depth + 2)
        w.put("}")
    w.put("]")


def dumps(value, limit, used=0, path="result", notes=None):
    """JSON text for value; used + its length may not exceed limit bytes.
    notes: a list that gets what the caller should hear of the result (a
    ranking a JSON object loses)."""
    w = _Writer(limit, used, notes)
    _write(w, value, path, 0)
    return "".join(w.parts)


# --------------------------------------------------------------------------
# Python -> wire: a function's result as rows (sandbox_rows)

class RowsError(Exception):
    """The result does not fit the declared columns; sqlstate says how."""

    def __init__(self, message, sqlstate, hint=None):
        super().__init__(message)
        self.sqlstate = sqlstate
        self.hint = hint        # instead of the backend's, which is about shapes


_MISSING = "42703"      # undefined_column
_MISMATCH = "42804"     # datatype_mismatch
_BAD_TEXT = "22P02"     # invalid_text_representation, as jsonb's input says
_INT64_MAX = 2 ** 63 - 1


def _is_null(v):
    if v is None or v is pd.NaT or v is pd.NA:
        return True
    t = type(v)
    if t in _FLOAT_TYPES:
        return v != v
    if t is decimal.Decimal:
        return v.is_nan()
    if t is np.datetime64 or t is np.timedelta64:
        return bool(np.isnat(v))
    return False


def _records_frame(rows, columns=None):
    """Rows (dicts, or sequences of the columns given) as a DataFrame.
    from_records() makes a column of ints with a None (or a missing key)
    float64: 2**53 + 1 arrived as 2**53, and 501 in a text column as
    "501.0".  Such a column, a float64 one with a missing value, is taken
    again as the code gave it (objects); the others keep their inferred
    dtypes (all objects would make 200k rows twice as slow to encode)."""
    try:
        frame = pd.DataFrame.from_records(rows, columns=columns)
    except OverflowError:
        # an int past float64 (10**400, for a numeric column) among others:
        # pandas' inference gave up (a bare OverflowError: review 115 F10);
        # the values as the code gave them
        if columns is None:
            names = list(dict.fromkeys(k for r in rows for k in r))
            frame = pd.DataFrame({n: pd.Series([r.get(n) for r in rows], dtype=object)
                                  for n in names}, columns=names)
        else:
            frame = pd.DataFrame({n: pd.Series([r[i] for r in rows], dtype=object)
                                  for i, n in enumerate(columns)}, columns=columns)
    for i in range(frame.shape[1]):
        column = frame.iloc[:, i]
        if column.dtype == np.float64 and column.isna().any():
            if columns is None:
                name = frame.columns[i]
                values = [r.get(name) for r in rows]
            else:
                values = [r[i] for r in rows]
            # floats and missing values only: the float64 column is theirs
            # already (as objects, 100k rows of 5 such columns took 2.3
            # times as long to encode, and inf became "Infinity" in text)
            if all(type(v) is float or v is None for v in values):
                continue
            frame.isetitem(i, pd.Series(values, dtype=object, index=frame.index))
    return frame


def plain_list(array):
    """A numpy array as (nested) lists of Python values, datetime64 and
    timedelta64 as datetime and timedelta (their tolist() at nanosecond
    resolution gives int nanoseconds: 5 minutes became 300000000000)."""
    if array.dtype.kind == "M":
        array = array.astype("datetime64[us]")
    elif array.dtype.kind == "m":
        array = array.astype("timedelta64[us]")
    return array.tolist()


def _one_row_of_arrays(value, spec):
    """Whether a dict of flat lists is one row of array columns: every
    declared column it names is an array, and none of its lists holds a
    list (as columns, each row's value would be a scalar, which no array
    column takes: review 100, "malformed array literal").  Empty lists
    alone stay columns: no rows; so do strings that are array literals
    ("{a,b}": each a row's array, review 101)."""
    arrays = {c["name"] for c in spec if c.get("category") == "array"}
    named = [k for k in value if k in arrays]
    if not named or any(k not in arrays for k in value if any(c["name"] == k for c in spec)):
        return False
    sized = 0
    for k in named:
        v = value[k]
        if isinstance(v, np.ndarray) and v.ndim != 1:
            return False        # np.array(5) has no len()
        items = v.tolist() if isinstance(v, (np.ndarray, pd.Series, pd.Index)) else list(v)
        sized += len(items)
        if any(type(x) in (list, tuple) or isinstance(x, np.ndarray) or
               (isinstance(x, str) and str.startswith(str.lstrip(x), ("{", "[")))
               for x in items):
            return False
    return sized > 0


# columns that take a list or a dict as one value
_WHOLE_VALUE_KINDS = frozenset({"array", "json", "record"})


def _column_like(v):
    """A dict's value that pd.DataFrame(d) takes as a column's values."""
    return type(v) in (list, tuple) or isinstance(v, (pd.Series, pd.Index)) or \
        (isinstance(v, np.ndarray) and v.ndim >= 1)


def _series_is_row(series, spec, fill=None):
    """Whether a Series is one row: its labels, unique text, name every
    declared column (but a group's key, which group_by fills in), and its
    own name none (a named Series of values is a column).  For one column,
    the Series holds that one label alone (a value_counts() with a label
    like the column's name is no row)."""
    names = [c["name"] for c in spec if not fill or c["name"] not in fill]
    if not names or len(series) == 0 or series.name in names or \
            (len(spec) == 1 and len(series) != 1):
        return False
    index = series.index
    if isinstance(index, pd.MultiIndex) or not index.is_unique or \
            not all(type(k) is str for k in index):
        return False
    return all(n in index for n in names)


def _as_frame(value, spec, func, fill=None):
    """The function's result as a DataFrame with string column labels."""
    t = type(value)
    if value is None or (t is pd.DataFrame and value.shape == (0, 0)):
        # no rows: return None, or pd.DataFrame() (if df.empty: ...)
        return pd.DataFrame({c["name"]: [] for c in spec}, index=pd.RangeIndex(0))
    if t in _ITERATOR_TYPES or t in _VIEW_TYPES:
        # a generator of dicts or tuples, as a LANGUAGE function may yield
        value = list(value)
        t = list
    if t is pd.MultiIndex and all(type(n) is str for n in value.names):
        # its levels are columns by name, as a DataFrame's (review 108 F2:
        # by position, t(b, a) swapped them)
        value = value.to_frame(index=False)
        t = pd.DataFrame
    elif t is pd.MultiIndex:
        value = list(value)         # its tuples: rows, by position
        t = list
    elif isinstance(value, (pd.Index, _ExtensionArray)):
        # df.col.unique() of a categorical column, pd.array(...), an Index:
        # a column's values, as a 1-D ndarray's (review 105 F7: a jsonb
        # column took a Categorical as one JSON array, an Index was refused)
        value = pd.Series(value, name=value.name if isinstance(value, pd.Index) else None)
        t = pd.Series
    if t is dict:
        # a dict of lists (arrays, Series) is columns, as pd.DataFrame(d)
        # takes it, single values beside them repeated on every row when no
        # list is an array column's (review 104); a dict of dicts too
        # (df.to_dict()) unless one is a json column's; any other dict is one
        # row (a group's summary with group_by: {"total": ..., "n": ...}; a
        # list value is then an array)
        listed = [k for k, v in value.items() if _column_like(v)]
        kinds = {c["name"]: c.get("category") for c in spec}
        if value and ((len(listed) == len(value) and not _one_row_of_arrays(value, spec)) or
                      (listed and all(kinds.get(k, "array") not in _WHOLE_VALUE_KINDS
                                      for k in listed) and
                       all(type(v) not in (dict, set) for v in value.values())) or
                      (all(type(v) is dict for v in value.values()) and
                       all(kinds.get(k) not in _WHOLE_VALUE_KINDS for k in value))):
            try:
                value = pd.DataFrame(value)
            except ValueError as exc:
                raise RowsError("%s() returned a dict of columns that pandas cannot make a "
                                "DataFrame of (%s); give every column as many values, or "
                                "return a list of dicts" % (func, exc), _MISMATCH) from None
            t = pd.DataFrame
        else:
            # a 0-d array (np.where() of scalars, np.array(5.5)) is its value
            value = [{k: v[()] if type(v) is np.ndarray and v.ndim == 0 else v
                      for k, v in value.items()}]
            t = list
    if t is pd.Series and _series_is_row(value, spec, fill):
        # df.agg({"a": "sum", "b": "max"}), df.sum(): labels that name the
        # declared columns are one row, as a LANGUAGE function takes a
        # Series for its composite result (review 104)
        value = [value]
        t = list
    elif t is pd.Series and len(value) and value.dtype == object and \
            all(type(v) is dict for v in value):
        # df.apply(lambda r: {...}, axis=1): a dict per row
        value = list(value)
        t = list
    if t is pd.Series:
        names = [c["name"] for c in spec if not fill or c["name"] not in fill]
        if value.name is None and len(names) == 1 and names[0] not in value.index.names:
            # an unnamed Series of values (s.unique() of a Series, a 1-D
            # ndarray's kin) into the one column to fill: that column
            value = value.rename(names[0])
        value = value.to_frame()
        t = pd.DataFrame
    if t is np.recarray:
        # df.to_records(index=False): a structured array (review 104)
        value = value.view(np.ndarray)
        t = np.ndarray
    if t is np.ndarray and value.dtype.names is not None and value.ndim == 1:
        # a structured array's fields are columns, by name (review 52)
        value = pd.DataFrame(value)
        t = pd.DataFrame
    elif t is np.ndarray and value.ndim in (1, 2):
        # rows of a 2-D array, the values of a 1-D one (np.column_stack);
        # datetimes and timedeltas as such (tolist() gives nanoseconds)
        value = plain_list(value)
        t = list
    if t is pd.DataFrame:
        # like the JSON path: a non-default index (groupby keys) is a column
        if not _has_default_index(value):
            value = _index_as_columns(value, "the result of %s()" % func)
        return value
    if t is list or t is tuple:
        rows = list(value)
        if not rows or not spec:
            # from_records() would drop the rows of a zero-column result
            return pd.DataFrame({c["name"]: [None] * len(rows) for c in spec},
                                index=pd.RangeIndex(len(rows)))
        first = type(rows[0])
        if all(type(r) is first for r in rows) and (
                (issubclass(first, tuple) and type(getattr(first, "_fields", None)) is tuple)
                or (dataclasses.is_dataclass(first) and not isinstance(rows[0], type))):
            # namedtuples and dataclass instances: columns by field name
            if issubclass(first, tuple):
                rows = [dict(zip(first._fields, tuple.__iter__(r))) for r in rows]
            else:
                names = [f.name for f in dataclasses.fields(first) if not f.name.startswith("_")]
                rows = [{n: getattr(r, n) for n in names} for r in rows]
            return _records_frame(rows)
        if first is pd.Series and all(type(r) is pd.Series for r in rows):
            # a Series per row (iterrows(), df.apply(f, axis=1) by rows):
            # its labels are the columns, as a dict's keys are
            rows = [r.to_dict() for r in rows]
            first = dict
        if first is dict:
            if any(type(r) is not dict for r in rows):
                raise RowsError("%s() returned a list mixing dicts with other "
                                "values; return a list of dicts" % func, _MISMATCH)
            return _records_frame(rows)
        if first is tuple or first is list:
            width = len(spec)
            for i, r in enumerate(rows):
                if type(r) is not tuple and type(r) is not list:
                    raise RowsError("row %d of the result of %s() is not a tuple"
                                    % (i + 1, func), _MISMATCH)
                if len(r) != width:
                    raise RowsError(
                        "row %d of the result of %s() has %d values, but %d columns "
                        "are declared" % (i + 1, func, len(r), width), _MISMATCH)
            return _records_frame(rows, [c["name"] for c in spec])
        if not issubclass(first, (tuple, list, dict)) and \
                not any(type(r) in (tuple, list, dict) for r in rows):
            # single values: each a row of a one-column result
            if len(spec) == 1:
                return _records_frame([(r,) for r in rows], [spec[0]["name"]])
            raise RowsError('%s() returned single values (the first of type "%s"), but %d '
                            "columns are declared; return a tuple or a dict per row"
                            % (func, first.__name__, len(spec)), _MISMATCH)
    if not isinstance(value, (list, tuple, dict, set, frozenset, pd.DataFrame, pd.Series,
                              pd.Index, np.ndarray)) and t not in _ITERATOR_TYPES:
        # one value: the one row of a one-column result (review 104)
        if len(spec) == 1:
            return _records_frame([(value,)], [spec[0]["name"]])
        raise RowsError('%s() returned one value of type "%s", but %d columns are declared'
                        % (func, t.__name__, len(spec)), _MISMATCH,
                        "Return one row as a tuple or a dict in a list, [(a, b)] or "
                        '[{"a": a, "b": b}], or a DataFrame.')
    raise RowsError('%s() returned a value of type "%s"; return a DataFrame, '
                    "a list of dicts or a list of tuples" % (func, t.__name__),
                    _MISMATCH)


_CONVERT_HINTS = {
    "a bytea column (bytes, or a figure as its PNG)": (
        'Give bytes: bytes(values) for a list of byte values, text.encode() for text (a str '
        'is read as bytea\'s own text, such as "\\x0102"); or declare the column with the '
        'type the values have.'),
    "an integer column": ('Convert the values first: pd.to_numeric(s, errors="coerce")'
                          '.astype("Int64") for text, s.round().astype("Int64") for '
                          'fractions; or declare the column numeric or float8.'),
    "a floating-point column": ('Convert the values first: pd.to_numeric(s, errors="coerce") '
                                'for text; or declare the column with the type they have.'),
    "a boolean column": ('Convert the values first: s.astype(bool), s.eq("yes"), or '
                         's.map({"y": True, "n": False}); or declare the column with the type '
                         'they have.'),
}


def _out_of_bigint(name, row, value):
    """An integer past int8's range: 22003, as PostgreSQL's int8 input and
    the backend's narrower integer columns say it (review 71: it was 42804)."""
    return RowsError('column "%s", row %d: value %d is out of range for type bigint'
                     % (name, row + 1, value), "22003",
                     "Declare the column numeric, or return the value as text.")


def _single_into_array(name, row, value, sqltype):
    """A single value where an array column wants a list: the result was
    read as rows of values ([1, 2] into t(v int[]) is two rows: review 104
    F6, "malformed array literal")."""
    return _bad_value(name, row, value, "type %s" % (sqltype or "array"), (
        "An array column takes a list (or an array) per row; this result was read as rows "
        'of single values. For one row holding the list, return [{"%s": [1, 2]}]; for a '
        "DataFrame column, put a list in each cell." % name))


# how JSON text begins (after white space)
_JSON_STARTS = frozenset('{["-0123456789')
_JSON_WORDS = ("true", "false", "null")


def _json_text_checked(v, name, row, sqltype, whole=False):
    """v, a str for a json or jsonb column, which reads it as JSON text;
    an error with the fix if it is no JSON (a city's name: "Token "u" is
    invalid", which said nothing of json.dumps).  whole: parse it (once
    per column), else look at its first character only."""
    text = v.lstrip(" \t\n\r")
    if (text[:1] in _JSON_STARTS and text) or text.startswith(_JSON_WORDS):
        if not whole:
            return v
        try:
            json.loads(v)
            return v
        except RecursionError:
            return v            # deeper than Python parses: PostgreSQL decides
        except ValueError as exc:
            if "digits" in str(exc):
                return v        # an integer longer than Python reads (review 108 F3)
    raise RowsError('column "%s", row %d: %s is not JSON text, which type %s reads from a str'
                    % (name, row + 1, repr(v)[:80], sqltype or "jsonb"), _BAD_TEXT, (
                        "json.dumps(s) makes a str a JSON string (s.map(json.dumps) for a "
                        "column); values are one JSON array only as one row's value: "
                        '[{"%s": list(values)}].' % name))


# bytes a JSON text may start with (whitespace: looked at per value)
_JSON_FIRST_BYTES = np.zeros(256, dtype=bool)
_JSON_FIRST_BYTES[np.frombuffer(b'{["-0123456789tfn \t\n\r', dtype=np.uint8)] = True


def _json_starts_checked(series, fast, name, sqltype):
    """Every value of a plain-string column for json/jsonb starts as JSON
    text may (the first byte of each, found at once); the first that does
    not gets the error with the fix, not jsonb's "Token ... is invalid"
    (review 108 F5: only the column's first value was looked at)."""
    offsets, data = fast[2], fast[3]
    firsts = np.frombuffer(data, dtype=np.uint8)[offsets[:-1]]
    bad = ~_JSON_FIRST_BYTES[firsts] & series.notna().to_numpy()
    for row in np.flatnonzero(bad)[:1].tolist():
        _json_text_checked(series.iloc[row], name, row, sqltype)
    blank = (firsts == 0x20) | (firsts == 0x09) | (firsts == 0x0A) | (firsts == 0x0D)
    for row in np.flatnonzero(blank)[:100].tolist():
        _json_text_checked(series.iloc[row], name, row, sqltype)


def _bad_value(name, row, value, what, hint=None):
    t = type(value)
    if isinstance(value, np.generic) and type(value.item()) in (int, float, bool):
        t = type(value.item())      # a number from a column: shown as written (review 107)
        value = value.item()
    if t is int and value.bit_length() > 14000:
        # repr() refuses past 4300 digits, with a hint the code cannot take
        text = "an int of about %d digits" % int(value.bit_length() * 0.30103)
    else:
        text = repr(value) if t in (str, int, float, bool, decimal.Decimal) \
            else '"%s" value' % t.__name__
    hint = hint or _CONVERT_HINTS.get(what, "Convert the value to the column's type, or "
                                      "declare the column with the type the values have.")
    if t in _ITERATOR_TYPES:       # by type: no method of the code's is asked
        # the body yields, or returns an iterator, into one value (review 147)
        hint = ("The function returns an iterator (a body that yields is a generator): "
                "declare RETURNS SETOF (or RETURNS TABLE) for a set, return list(...) for an "
                "array, or return one value.")
    elif t in _CALLABLE_TYPES or t.__name__ == "cython_function_or_method":
        # s.value_counts().idxmax without its () (review 159 F5)
        hint = ("It is a method or function, not its result: call it (add the parentheses, "
                "s.idxmax()).")
    elif t in ONE_VALUE_TAKE and value.size == 1:
        # a one-value container where the value was meant: o.agg({"amount":
        # "sum"}), np.array([m]), a 1x1 frame (review 100: the generic hint)
        hint = "It holds one value: return that value, %s." % ONE_VALUE_TAKE[t]
    if len(text) > 80:
        text = text[:60] + "...(%d characters)" % len(text)
    return RowsError('column "%s", row %d: %s does not fit %s'
                     % (name, row + 1, text, what), _MISMATCH, hint)


# text as PostgreSQL's input functions of the binary kinds take it (int8in,
# float8in, boolin): PL/Python passes a returned str to them, and so does a
# column of another type here (numeric, date, arrays)
_INT_TEXT = re.compile(r"[ \t\n\r\f\v]*[+-]?[0-9]+[ \t\n\r\f\v]*\Z")
_FLOAT_TEXT = re.compile(r"[ \t\n\r\f\v]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|"
                         r"inf|infinity|nan)[ \t\n\r\f\v]*\Z", re.IGNORECASE)
_NONZERO_DIGIT = re.compile(r"[1-9][0-9]*(?:\.[0-9]*)?(?:[eE]|\Z|[ \t\n\r\f\v])|\.[0-9]*[1-9]")


def _int_of_text(v):
    return int(v) if _INT_TEXT.match(v) else None


def _float_of_text(v):
    """float8in's reading of v, or None; out of range (1e400, 1e-400) is None,
    as float8in refuses it (float() made it infinity or 0)."""
    if not _FLOAT_TEXT.match(v):
        return None
    f = float(v)
    if f in (math.inf, -math.inf) and "inf" not in v.lower():
        return None
    if f == 0.0 and _NONZERO_DIGIT.search(v.split("e")[0].split("E")[0]):
        return None
    return f


def _bool_of_text(v):
    """boolin's words: true/false, yes/no and their prefixes, on/off, 1/0."""
    word = v.strip(" \t\n\r\f\v").lower()
    if not word or word == "o":
        return None
    if "true".startswith(word) or "yes".startswith(word) or word in ("on", "1"):
        return True
    if "false".startswith(word) or "no".startswith(word) or word in ("of", "off", "0"):
        return False
    return None


def _packed(valid):
    """(null_count, validity bytes) for a boolean validity mask."""
    nulls = int(len(valid) - np.count_nonzero(valid))
    if nulls == 0:
        return nulls, b""
    return nulls, np.packbits(valid, bitorder="little").tobytes()


def _fixed_payload(valid, values):
    """Payload parts (sent with sb_io.sendv, never joined) for a fixed kind."""
    nulls, bits = _packed(valid)
    return [nulls.to_bytes(8, "little"), bits, np.ascontiguousarray(values)]


def _encode_int(series, name):
    arr = series.array
    n = len(series)
    if pd.api.types.is_extension_array_dtype(series.dtype):
        if series.dtype.kind in "iub":     # Int64, boolean: nullable
            valid = ~series.isna().to_numpy()
            if series.dtype.kind == "u":
                # UInt64 past bigint's range: refused, as numpy's uint64 is
                # (review 100: 2**63 was stored as -2**63)
                wide = series.to_numpy(dtype="u8", na_value=0)
                over = valid & (wide > np.uint64(_INT64_MAX))
                if over.any():
                    row = int(np.argmax(over))
                    raise _out_of_bigint(name, row, int(wide[row]))
            values = series.to_numpy(dtype="i8", na_value=0).astype("<i8")
            return _fixed_payload(valid, values)
    elif series.dtype.kind in "iub":
        values = series.to_numpy()
        if values.dtype.kind == "u" and n and values.max() > np.uint64(_INT64_MAX):
            row = int(np.argmax(values > np.uint64(_INT64_MAX)))
            raise _out_of_bigint(name, row, int(values[row]))
        return _fixed_payload(np.ones(n, bool), values.astype("<i8"))
    if series.dtype.kind == "f" and not pd.api.types.is_extension_array_dtype(series.dtype):
        values = series.to_numpy(dtype="f8")
        valid = ~np.isnan(values)
        ok = values[valid]
        bad = (ok != np.floor(ok)) | (np.abs(ok) > 9.2e18)
        if bad.any():
            row = int(np.flatnonzero(valid)[np.argmax(bad)])
            raise _bad_value(name, row, float(values[row]), "an integer column")
        return _fixed_payload(valid, np.where(valid, values, 0).astype("<i8"))
    out = np.zeros(n, dtype="<i8")
    valid = np.ones(n, dtype=bool)
    for i, v in enumerate(arr):
        t = type(v)
        if _is_null(v):
            valid[i] = False
        elif t in _INT_TYPES or t in _BOOL_TYPES:
            iv = int(v)
            if iv > _INT64_MAX or iv < -_INT64_MAX - 1:
                raise _out_of_bigint(name, i, iv)
            out[i] = iv
        elif t in _FLOAT_TYPES and float(v).is_integer() and abs(v) < 9.2e18:
            out[i] = int(v)
        elif t is decimal.Decimal and v == v.to_integral_value() and abs(v) < _INT64_MAX:
            out[i] = int(v)
        elif (t is str or t is np.str_) and (iv := _int_of_text(v)) is not None:
            if iv > _INT64_MAX or iv < -_INT64_MAX - 1:
                raise _out_of_bigint(name, i, iv)
            out[i] = iv
        else:
            raise _bad_value(name, i, v, "an integer column")
    return _fixed_payload(valid, out)


def _encode_float(series, name):
    if series.dtype.kind in "iufb" and series.dtype != object:
        values = series.to_numpy(dtype="f8", na_value=np.nan)
        return _fixed_payload(~np.isnan(values), np.nan_to_num(values, nan=0.0,
                              posinf=np.inf, neginf=-np.inf).astype("<f8"))
    n = len(series)
    out = np.zeros(n, dtype="<f8")
    valid = np.ones(n, dtype=bool)
    for i, v in enumerate(series.array):
        t = type(v)
        if _is_null(v):
            valid[i] = False
        elif t in _FLOAT_TYPES or t in _INT_TYPES or t in _BOOL_TYPES or t is decimal.Decimal:
            try:
                out[i] = float(v)
                if t is decimal.Decimal and v.is_finite() and math.isinf(out[i]):
                    raise OverflowError     # Decimal("1e400") became inf (review 116 F5)
            except OverflowError:       # 10**400 (review 115 F10: a bare OverflowError)
                raise _bad_value(name, i, v, "a floating-point column",
                                 "It is past float8's range (about 1.8e308): declare the "
                                 "column numeric, which holds it exactly.") from None
        elif (t is str or t is np.str_) and (f := _float_of_text(v)) is not None:
            out[i] = f
        else:
            raise _bad_value(name, i, v, "a floating-point column")
    return _fixed_payload(valid, out)


def _encode_bool(series, name):
    n = len(series)
    if series.dtype == bool:
        return _fixed_payload(np.ones(n, bool), series.to_numpy().astype(np.uint8))
    out = np.zeros(n, dtype=np.uint8)
    valid = np.ones(n, dtype=bool)
    for i, v in enumerate(series.array):
        if _is_null(v):
            valid[i] = False
        elif type(v) in _BOOL_TYPES:
            out[i] = 1 if v else 0
        elif type(v) in _INT_TYPES and (v == 0 or v == 1):
            out[i] = int(v)         # as int4's cast to boolean, and (s > 0).astype(int)
        elif (type(v) is str or type(v) is np.str_) and (b := _bool_of_text(v)) is not None:
            out[i] = 1 if b else 0
        else:
            raise _bad_value(name, i, v, "a boolean column")
    return _fixed_payload(valid, out)


_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_MICROSECOND = datetime.timedelta(microseconds=1)


def _far_micros(v, wall_clock=False):
    """Microseconds since 1970 (UTC) of a date or datetime that pandas'
    datetime64[ns] cannot hold (before 1677 or after 2262) but PostgreSQL
    can, or None.  wall_clock: an aware value's own wall clock (a date's
    day), not its instant."""
    t = type(v)
    try:
        if t is str and len(v) <= 64:
            # ISO 8601 text, as Python reads it over years 1 to 9999
            # (review 151 F2: "9999-12-31", an open end, was refused)
            v = datetime.datetime.fromisoformat(v.strip())
            t = datetime.datetime
        if t is datetime.date:
            return (v - _EPOCH_DATE).days * 86400000000
        if t is datetime.datetime:
            offset = None if wall_clock else v.utcoffset()
            naive = v.replace(tzinfo=None) - offset if offset is not None else v.replace(tzinfo=None)
            return (naive - _EPOCH) // _MICROSECOND
    except (OverflowError, ValueError, TypeError):
        return None
    return None


# a date and time in ISO 8601 without an offset
_NAIVE_ISO = re.compile(r"[ \t]*[0-9]{4}-[0-9]{2}-[0-9]{2}"
                        r"(?:[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?)?[ \t]*\Z")
# text that begins with its year, which PostgreSQL reads year, month, day
# whatever DateStyle says
_YEAR_FIRST = re.compile(r"[ \t]*[0-9]{4}[-/.]")


def _moment_text(text):
    """text as pandas reads a moment, in DateStyle's order of day and month
    (but year first when it begins with its year: dateutil read
    "2024-01-02 10:00 UTC" as 1 February with dayfirst, review 116 F1)."""
    if _DATE_ORDER[0] == "MDY" or _YEAR_FIRST.match(text):
        return _Timestamp(text)
    stamp = pd.to_datetime(text, dayfirst=_DATE_ORDER[0] == "DMY",
                           yearfirst=_DATE_ORDER[0] == "YMD")
    if type(stamp) is not _Timestamp:       # NaT for "", "NaT"
        raise ValueError(text)
    return stamp


def _text_moment(text, name, row, caught):
    """A str into a date/time column, read as pandas reads it, but not
    where pandas would guess (it warns): a zone name it does not know
    ("10:00 PST" was read as 10:00 UTC) or a day-first date among
    month-first ones ("13/02/2024" and "01/02/2024" were Feb 13 and Jan 2:
    review 71).  ISO 8601 text is read as it is.  caught: the warnings
    recorded for the whole column (_encode_datetime)."""
    if len(text) > 200:
        # no date/time is that long (dateutil took the call's whole time
        # on 2 MB of text: review 72 F4)
        raise _bad_value(name, row, text, "a date/time column")
    before = len(caught)
    stamp = _moment_text(text)
    if len(caught) > before:
        raise RowsError('column "%s", row %d: %r cannot be read as a date/time without guessing (%s)'
                        % (name, row + 1, text[:80],
                           str(caught[before].message).split(".")[0][:120]),
                        _MISMATCH,
                        'Write ISO 8601 text, such as "2024-03-05T10:00:00-08:00" (a zone as '
                        'an offset), or convert first: pd.to_datetime(s, format="%d/%m/%Y"), '
                        'then .dt.tz_localize("America/Los_Angeles") for a zone.')
    return stamp


# PostgreSQL's infinite dates and timestamps, sent as the extreme int64s
# (sb_rows.c reads them as infinity and -infinity)
_INFINITY_MICROS = {"infinity": 2 ** 63 - 1, "+infinity": 2 ** 63 - 1, "-infinity": -2 ** 63}
_INFINITY_TEXT = re.compile(r"[ \t\n\r\f\v]*[+-]?infinity[ \t\n\r\f\v]*\Z", re.IGNORECASE)


def _datetime_values(s, name, kind, sqltype, far, caught):
    """A column's values as Timestamps (NaT for NULL); a value pandas
    cannot hold but PostgreSQL can goes into far by row, as microseconds:
    "infinity" and "-infinity", as PostgreSQL's input reads them (a valid_to
    of an open-ended row), too."""
    converted = []
    for i, v in enumerate(s.array):
        if _is_null(v):
            converted.append(pd.NaT)
            continue
        t = type(v)
        if t is str and len(v) < 40 and _INFINITY_TEXT.match(v):
            far[i] = _INFINITY_MICROS[v.strip(" \t\n\r\f\v").lower()]
            converted.append(pd.NaT)
            continue
        if t in (_Timestamp, datetime.datetime, datetime.date, np.datetime64, str):
            try:
                stamp = _Timestamp(v) if t is not str else _text_moment(v, name, i, caught)
                if kind != sb_io.COL_TIMESTAMPTZ and stamp.tzinfo is not None:
                    stamp = stamp.tz_localize(None)     # its own day and clock
                converted.append(stamp)
                continue
            except (ValueError, TypeError, OverflowError):
                micros = _far_micros(v, kind != sb_io.COL_TIMESTAMPTZ)
                if micros is not None:
                    far[i] = micros
                    converted.append(pd.NaT)
                    continue
                if t is str:
                    raise _bad_value(name, i, v, "type %s" % (sqltype or "timestamp"),
                                     hint="Write ISO 8601 text (\"2024-03-05\", \"9999-12-31 "
                                     "23:59:59+00:00\"), read over years 1 to 9999; other text "
                                     "is read by pandas, within 1677 to 2262.")
        if t is _Period:            # a month, a quarter ...: its first moment
            converted.append(v.start_time)
            continue
        raise _bad_value(name, i, v, "type %s" % sqltype if sqltype
                         else "a date/time column")
    return converted


def _encode_datetime(series, name, kind, sqltype=None):
    s = series
    far = {}
    if s.dtype.kind != "M" and not isinstance(s.dtype, pd.DatetimeTZDtype):
        # one recording of warnings for the column, not one per value
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            converted = _datetime_values(s, name, kind, sqltype, far, caught)
        try:
            s = pd.Series(pd.to_datetime(converted, utc=kind == sb_io.COL_TIMESTAMPTZ))
        except (ValueError, TypeError):
            s = pd.Series(pd.to_datetime(converted, utc=True))
    if isinstance(s.dtype, pd.DatetimeTZDtype) and kind != sb_io.COL_TIMESTAMPTZ:
        # a day and a wall clock are the value's own: midnight in Berlin is
        # that day, not the day before in UTC (as .date(), tz_localize(None),
        # a cast in that zone and PostgreSQL's input of "...+01:00" give it)
        s = s.dt.tz_localize(None)
    elif isinstance(s.dtype, pd.DatetimeTZDtype):
        s = s.dt.tz_convert("UTC").dt.tz_localize(None)
    values = s.to_numpy(dtype="datetime64[ns]")
    valid = ~np.isnat(values)
    micros = np.where(valid, values.astype("<i8") // 1000, 0).astype("<i8")
    for i, m in far.items():
        valid[i] = True
        micros[i] = m
    return _fixed_payload(valid, micros)


def _quoted(text):
    """An element of an array or record literal, double-quoted."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# arrays whose elements may be NaN: a Decimal's NaN is a value (a float's
# is missing, NULL, as in a column: review 165 F1, a numeric column's
# NULLs through rows.amount.tolist() came back as NaN elements)
_NAN_ARRAYS = frozenset({"numeric[]", "double precision[]", "real[]"})


def _moment_element(v, sqltype):
    """A datetime element of a timestamptz array as a scalar of that type
    takes it (review 51): a naive value is UTC, not the session's zone,
    which the element's text would be read in.  (Into timestamp an aware
    value's text gives its own wall clock, as the scalar does.)"""
    if type(v) is str and sqltype.startswith("timestamp with time zone") and \
            _NAIVE_ISO.match(v):
        # naive ISO text too is UTC, as a scalar's is (review 115 F8: read in
        # the session's zone); PostgreSQL reads the rest (review 116 F4:
        # pandas read "today" as now, and "2024" at all)
        return v.strip() + "+00:00"
    if type(v) is not _Timestamp and type(v) is not datetime.datetime:
        return v
    if sqltype.startswith("timestamp") and "with time zone" in sqltype and v.tzinfo is None:
        return v.replace(tzinfo=datetime.timezone.utc)
    return v


# an integer array's element type, as the column's type names it
_INT_ELEMENTS = frozenset({"smallint", "integer", "bigint"})


def _array_literal(value, name, row, sqltype=None, fields=None):
    """A PostgreSQL array literal for a (nested) list; fields: the element
    type's, an array of a composite type, whose elements are dicts, tuples
    or namedtuples (a list is a dimension)."""
    parts = []
    element = sqltype[:-2] if sqltype is not None and sqltype.endswith("[]") else None
    # bytea[] takes bytes, json[]/jsonb[] JSON values (review 71: bytes were
    # refused as text, and a list next to dicts was taken as a dimension)
    category = _field_category(element) if element in ("bytea", "json", "jsonb", "money",
                                                        "interval") else "text"
    if element is not None and _field_category(element) == "numeric":
        category = "numeric"        # floats as float8::numeric gives them
    lists_are_values = category == "json" and not all(
        type(v) is list or type(v) is tuple or (type(v) is np.ndarray and v.ndim > 0)
        for v in value)
    for v in value:
        if sqltype is not None:
            v = _moment_element(v, sqltype)
        t = type(v)
        if sqltype in _NAN_ARRAYS and t is decimal.Decimal and v.is_nan():
            parts.append("NaN")
        elif _is_null(v):
            parts.append("NULL")
        elif fields and t is not list and t is not np.ndarray and (record := _record_literal(
                v, fields, name, row, sqltype[:-2] if sqltype.endswith("[]") else sqltype)):
            parts.append(_quoted(record))
        elif (t is list or t is tuple or (t is np.ndarray and v.ndim > 0)) and \
                not lists_are_values:
            parts.append(_array_literal(list(v), name, row, sqltype, fields))
        elif t in _ARRAY_LIKE_TYPES and not lists_are_values:
            parts.append(_array_literal(v.tolist(), name, row, sqltype, fields))
        elif fields and t is not str:
            raise _bad_value(name, row, v, "an element of type %s (a dict, a tuple or a "
                             "namedtuple of its fields: %s)" % (sqltype, ", ".join(fields)))
        else:
            # with the element's type: a Timedelta in time[] is a time of
            # day, in text[] its ISO text, as in a column of that type
            # (review 105 F8: the interval's input text in both)
            parts.append(_quoted(_text_value(v, category, name, row, element)))
    return "{" + ",".join(parts) + "}"


def _frame_records(frame, fields, name, row, sqltype):
    """A DataFrame's rows as tuples of the composite's fields: its columns
    named as the fields (in any order, others left out), or as many
    columns as fields, in field order."""
    columns = list(frame.columns)
    lowered = {f.lower() for f in fields if type(f) is str}
    if all(f in columns for f in fields):
        if len(set(columns)) != len(columns):
            raise _bad_value(name, row, frame, "type %s (a DataFrame whose column names are "
                             "unique)" % sqltype)
        frame = frame.loc[:, list(fields)]
    elif any(type(c) is str and (c in fields or c.lower() in lowered) for c in columns):
        # some columns named as fields (or as fields in another case), not
        # all: by position they went into other fields (y, x, label, date
        # into x, y, label, day swapped x and y: review 159 F2; Y, X, Label,
        # Day too: review 162 F2), as no other way of returning it does
        raise _bad_value(name, row, frame, "type %s (a DataFrame with a column named as each "
                         "field, with its case: %s; it has no %s)"
                         % (sqltype, ", ".join(fields),
                            ", ".join('"%s"' % f for f in fields if f not in columns)))
    elif len(columns) != len(fields):
        raise _bad_value(name, row, frame, "type %s (a DataFrame with a column for each "
                         "field: %s)" % (sqltype, ", ".join(fields)))
    return list(frame.itertuples(index=False, name=None))


def _record_literal(v, fields, name, row, sqltype):
    """A composite column's value from a dict (by field name), a namedtuple,
    or a tuple or list (in field order): its record literal, or None if v
    is none of these."""
    t = type(v)
    if t is dict:
        given = v
    elif isinstance(v, tuple) and type(getattr(t, "_fields", None)) is tuple:
        given = dict(zip(t._fields, tuple.__iter__(v)))
    elif dataclasses.is_dataclass(t) and not isinstance(v, type):
        given = {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}
    else:
        given = None
    if given is not None:
        values = [given.get(f) for f in fields]
        names = set(fields)
        # a key not a str is no field either ({0: 1, 1: "x"}: review 152 F5),
        # named by its type: no method of the code's key runs
        unknown = ['"%s"' % k if type(k) is str else repr(k) if type(k) in (int, float, bool)
                   else "(a %s)" % type(k).__name__
                   for k in given if type(k) is not str or k not in names]
        if unknown and not all(f in given for f in fields):
            # a missing field is NULL, but a name that is no field beside it
            # is a mistake, not a NULL ({"first": 2} or itertuples()' Pandas
            # (a=..., b=...) into (x, label) stored a row of NULLs; PL/Python
            # refuses any missing key)
            raise RowsError('column "%s", row %d: the %s for type %s has the %s%s %s, '
                            "which %s of it (its fields: %s)"
                            % (name, row + 1, "dict" if t is dict else t.__name__, sqltype,
                               "key" if t is dict else "name", "s" if len(unknown) > 1 else "",
                               ", ".join(unknown[:5]),
                               "are not fields" if len(unknown) > 1 else "is not a field",
                               ", ".join(fields)),
                            _MISMATCH, hint="Name the values as the type's fields; a field "
                            "left out is NULL.")
    elif t is tuple or t is list:
        if len(v) != len(fields):
            raise RowsError('column "%s", row %d: %d values for type %s, which has %d fields (%s)'
                            % (name, row + 1, len(v), sqltype, len(fields), ", ".join(fields)),
                            _MISMATCH)
        values = list(v)
    else:
        return None
    types = getattr(fields, "types", ())
    nested = getattr(fields, "nested", ())
    parts = []
    for i, x in enumerate(values):
        if _is_null(x):
            parts.append("")
        elif i < len(types):
            # as a column of the field's type takes it: a naive datetime
            # into timestamptz is UTC (not the session's zone), bytes are
            # bytea, a dict jsonb, a list an array of its elements' type, a
            # dict or tuple in a composite field its record (review 148 F3)
            x = _moment_element(x, types[i])
            inner = nested[i] if i < len(nested) else None
            category = _field_category(types[i]) if inner is None else \
                "array" if types[i].endswith("[]") else "record"
            parts.append(_quoted(_text_value(x, category, name, row, types[i], inner)))
        else:
            parts.append(_quoted(_text_value(x, "text", name, row)))
    return "(" + ",".join(parts) + ")"


class _Fields(list):
    """A composite type's field names; .types their types, as
    format_type_be() names them; .nested, per field, the _Fields of a field
    that is a composite or an array of one (else None)."""
    types = ()
    nested = ()


def _fields_of(spec, depth=0):
    """The _Fields the backend described for a column or a field
    (sb_append_fields): None if it is no composite."""
    names = spec.get("fields")
    if names is None:
        return None
    fields = _Fields(names)
    fields.types = tuple(spec.get("field_types") or ())
    specs = spec.get("field_specs")
    if type(specs) is list and depth < 8:
        fields.nested = tuple(_fields_of(x, depth + 1) if type(x) is dict else None
                              for x in specs)
    return fields


def _field_category(sqltype):
    """The category sb_text_category() gives a column of this type."""
    if sqltype in ("json", "jsonb"):
        return "json"
    if sqltype == "bytea":
        return "bytea"
    if sqltype == "numeric" or sqltype.startswith("numeric("):
        return "numeric"
    if sqltype == "money":
        return "money"
    if sqltype == "interval":
        return "interval"
    if sqltype.endswith("[]"):
        return "array"
    return "text"


def _numeric_float_text(f, single=False):
    """A float's text for a numeric column or result, as float8::numeric
    (float4::numeric) makes it: 15 (6) significant digits, so that 0.1 + 0.2
    stores 0.3 and a mean 23.7881, not 23.788099999999996 (review 94).  From
    1e15 (1e6) on, where those digits end before the decimal point, the
    nearest whole number instead, every digit kept: ids that pandas made
    float for their NULLs stay themselves, and stored values keep their
    order (review 98: 2.0**53 + 2 fell below 2.0**53)."""
    if f != f:
        return "NaN"
    if f == math.inf or f == -math.inf:
        return "Infinity" if f > 0 else "-Infinity"
    if abs(f) >= (1e6 if single else 1e15):
        return str(round(f))
    return ("%.6g" if single else "%.15g") % f


def _fixed_offset_time(clock, offset):
    """A naive time of day with a UTC offset, as timetz's input reads it."""
    return clock.replace(tzinfo=datetime.timezone(offset)).isoformat()


def _pytz_offset(tz):
    """The offset a pytz zone localized to one moment holds (pandas'
    .dt.timetz gives times with one: <DstTzInfo 'Asia/Kolkata' IST+5:30:00
    STD>), which its utcoffset() of a time without a date does not say; None
    for any other zone."""
    pytz = sys.modules.get("pytz")
    if pytz is None or not isinstance(tz, pytz.tzinfo.BaseTzInfo) or \
            type(tz).__module__ != "pytz.tzfile":
        return None
    # the zone itself (s.dt.tz), not localized to a moment, holds its first
    # offset, local mean time (review 152 F4: 09:00 in New York was -04:56)
    zone = type(tz).__dict__.get("zone")
    try:
        if type(zone) is not str or pytz.timezone(zone) is tz:
            return None
    except (KeyError, ValueError, OSError):
        return None
    offset = object.__getattribute__(tz, "__dict__").get("_utcoffset")
    return offset if type(offset) is datetime.timedelta else None


def _text_value(v, category, name, row, sqltype=None, fields=None):
    """The PostgreSQL text form of one value, for the type's input function
    (sqltype: the column's type, for the error; fields: a composite type's)."""
    t = type(v)
    if t is str:
        return _json_text_checked(v, name, row, sqltype) if category == "json" else v
    if category == "record" and fields:
        record = _record_literal(v, fields, name, row, sqltype)
        if record is not None:
            return record
    if t is uuid.UUID or t in _IP_TYPES:
        return str(v)
    if t is memoryview or t is np.bytes_:
        v, t = bytes(v), bytes
    if category == "bytea" and (t is list or t is tuple or t is np.ndarray) and \
            (figure := sb_charts.one_figure(v)) is not None:
        return "\\x" + sb_charts.render(figure).hex()    # Axes of one figure: its PNG
    if category == "bytea" and t is not bytes and t is not bytearray and \
            not (t is np.ndarray and v.ndim == 0) and sb_charts.figure_of(v) is None:
        # a list's or a number's text is no bytea (return [1, 2, 3] stored
        # the bytes of '{"1","2","3"}': review 75)
        raise _bad_value(name, row, v, "a bytea column (bytes, or a figure as its PNG)")
    if t is np.ndarray and v.ndim == 0:
        if type(v[()]) is np.ndarray:       # an array in an array in ...
            raise _bad_value(name, row, v, "type %s" % sqltype if sqltype else "a column")
        return _text_value(v[()], category, name, row, sqltype)
    if t is np.str_:
        v = str.__str__(v)
        return _json_text_checked(v, name, row, sqltype) if category == "json" else v
    if category == "array" and (t in _INT_TYPES or t in _FLOAT_TYPES or t in _BOOL_TYPES or
                                t is decimal.Decimal or t is _Timestamp or
                                isinstance(v, (datetime.date, datetime.time))):
        raise _single_into_array(name, row, v, sqltype)
    if t in _BOOL_TYPES:
        return "true" if v else "false"
    if t in _INT_TYPES:
        return str(int(v))
    if t in _FLOAT_TYPES and sqltype in _INT_ELEMENTS and math.isfinite(v) and \
            float(v).is_integer():
        # a whole float in an integer array or field, as an integer column
        # takes it (np.array([1.0, nan]), a column of ints with a NaN in an
        # array of a composite: review 148 F2)
        return str(int(v))
    if t in _FLOAT_TYPES:
        f = float(v)
        if category == "money" and math.isfinite(f):
            # money's input takes no exponent (a large amount's repr has one),
            # and its decimal point is lc_monetary's
            return np.format_float_positional(f, trim="-").replace(".", _MONEY[0])
        if category == "numeric":
            return _numeric_float_text(f, t is np.float32 or t is np.float16)
        return "Infinity" if f == math.inf else "-Infinity" if f == -math.inf else repr(f)
    if t is decimal.Decimal:
        if category == "money" and v.is_finite():
            return format(v, "f").replace(".", _MONEY[0])
        return str(v)
    if t is _Timestamp or t is datetime.datetime or t is datetime.date or t is datetime.time:
        if sqltype in ("time without time zone", "time with time zone") and t is not \
                datetime.time and t is not datetime.date:
            # a moment into a time of day: its clock, as ::time takes it,
            # with the offset the moment has (review 151 F1: its named
            # zone's time of day has none, and was read in the session's)
            if sqltype == "time with time zone" and v.tzinfo is not None:
                return _fixed_offset_time(v.time(), v.utcoffset())
            v = v.time()
            t = datetime.time
        if sqltype == "time with time zone" and t is datetime.time and v.tzinfo is None:
            # naive is UTC, as into timestamptz (review 115 F8: the session's offset)
            return v.isoformat() + "+00:00"
        if sqltype == "time with time zone" and t is datetime.time:
            offset = v.utcoffset()
            if offset is None:
                offset = _pytz_offset(v.tzinfo)
            if offset is None:
                raise _bad_value(name, row, v, "type time with time zone (a time of day in "
                                 "the named zone %s has no offset without its date)" % v.tzinfo,
                                 hint="Return the moments (timestamptz), or times with a fixed "
                                 "offset: datetime.timezone(datetime.timedelta(hours=5, "
                                 "minutes=30)); s.dt.timetz keeps the offsets of a Series of "
                                 "moments.")
            return _fixed_offset_time(v.replace(tzinfo=None), offset)
        return v.isoformat()
    if t is _Timedelta or t is datetime.timedelta or t is np.timedelta64:
        micros = _Timedelta(v).value // 1000
        if category == "json":
            return '"' + _Timedelta(v).isoformat() + '"'     # as in a JSON result
        if sqltype is None or category == "interval" or sqltype.startswith("interval"):
            return timedelta_text(micros)
        if sqltype.startswith("time "):
            # a time of day since midnight, as interval::time takes it
            # (review 104: its interval text was no time)
            if not 0 <= micros < 86400000000:
                raise _bad_value(name, row, v, "type %s (a duration of less than a "
                                 "day, from midnight)" % sqltype)
            return (datetime.datetime.min + datetime.timedelta(microseconds=micros)).time() \
                .isoformat()
        # text: the ISO 8601 duration a JSON result has (review 104: the
        # interval's input text, "1 days 7200000000 microseconds")
        return _Timedelta(v).isoformat()
    if t is _Period:
        return _period_text(v)
    if t is _Interval:
        return _interval_text(v, 'column "%s", row %d' % (name, row + 1))
    if t in _DTYPE_TYPES:
        return str(v)
    if (sqltype == "interval" or category == "interval") and _relative_interval(v) is not None:
        return _relative_interval(v)
    if t in _OFFSET_TYPES and (sqltype == "interval" or category == "interval"):
        # MonthEnd, BDay: rules of the calendar, no length (review 104:
        # "invalid input syntax for type interval: "M"")
        raise _bad_value(name, row, v, "type interval (%s is a rule of the calendar, not a "
                         "length: use pd.DateOffset(months=1) or a pd.Timedelta)" % t.__name__)
    if t in _OFFSET_TYPES:
        return v.freqstr
    if isinstance(v, datetime.tzinfo) and _tz_text(v) is not None:
        return _tz_text(v)
    if t is set or t is frozenset:
        v = _set_values(v)
        t = list
    if t is bytes or t is bytearray:
        if category == "bytea":
            return "\\x" + bytes(v).hex()
        raise _bad_value(name, row, v, "a text column (decode the bytes first)")
    if category == "array" and t in _ARRAY_LIKE_TYPES:
        # a column's values, as an ndarray's go (review 94: refused; any
        # Index, df.index's RangeIndex too: review 98)
        return _array_literal(v.tolist(), name, row, sqltype, fields)
    if category == "array" and fields and isinstance(v, pd.DataFrame):
        # an array of a composite arrives as a DataFrame, and goes back as
        # one: a row an element (review 147 F2: return xs was refused)
        return _array_literal(_frame_records(v, fields, name, row, sqltype), name, row,
                              sqltype, fields)
    if t is dict or t is list or t is tuple or t is np.ndarray:
        if category == "array" and t is not dict:
            return _array_literal(list(v), name, row, sqltype, fields)
        if category == "json" or t is dict:
            return dumps(v, 1 << 30, path='column "%s", row %d' % (name, row + 1),
                         notes=_NOTES if len(_NOTES) < 3 else None)
        return _array_literal(list(v), name, row)
    figure = sb_charts.figure_of(v)
    if figure is not None:
        if category == "bytea":
            return "\\x" + sb_charts.render(figure).hex()
        if category == "json":
            return dumps(sb_charts.image(figure), 1 << 30)
        raise _bad_value(name, row, v, "a text column (a figure goes in a bytea "
                         "column as a PNG, or in a jsonb column)")
    if category == "json":
        # whatever sandbox_execute returns as jsonb (a DataFrame, a Series,
        # a dataclass) goes in a jsonb column as the same JSON
        return dumps(v, 1 << 30, path='column "%s", row %d' % (name, row + 1),
                     notes=_NOTES if len(_NOTES) < 3 else None)
    if sqltype:
        raise _bad_value(name, row, v, "type %s" % sqltype)
    raise _bad_value(name, row, v, {"numeric": "a numeric column", "array": "an array column",
                                    "bytea": "a bytea column"}.get(category, "a text column"))


def _encode_plain_strings(series):
    """The text payload of a column of str and missing values, or None.

    One join and one encode for the whole column; the NUL terminators found
    by numpy give the offsets.  None if a value is not a str or contains a
    NUL (the per-value path then reports it precisely).
    """
    if pd.api.types.infer_dtype(series, skipna=True) not in ("string", "empty"):
        return None
    valid = ~series.isna().to_numpy()
    values = series.to_numpy(dtype=object)
    if not valid.all():
        values = values.copy()
        values[~valid] = ""
    data = ("\0".join(values.tolist()) + "\0").encode("utf-8", "surrogatepass") \
        if len(values) else b""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0)
    if len(ends) != len(values):
        return None
    offsets = np.zeros(len(values) + 1, dtype="<i8")
    offsets[1:] = ends + 1
    nulls, bits = _packed(valid)
    return [nulls.to_bytes(8, "little"), bits, offsets, data]


def _encode_text(series, name, category, sqltype=None, fields=None):
    if category == "array" and series.dtype.kind in "iufcbmM" and series.notna().any():
        # numbers, booleans, moments: no cell holds a list
        row = int(np.flatnonzero(series.notna().to_numpy())[0])
        raise _single_into_array(name, row, series.iloc[row], sqltype)
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        fast = _encode_plain_strings(series)
        if fast is not None:
            if category == "json" and series.notna().any():
                row = int(np.flatnonzero(series.notna().to_numpy())[0])
                _json_text_checked(series.iloc[row], name, row, sqltype, whole=True)
                _json_starts_checked(series, fast, name, sqltype)
            return fast
    elif series.dtype.kind in "iuf" and not pd.api.types.is_extension_array_dtype(
            series.dtype) and category != "bytea" and category != "money":
        # numbers for text columns: numpy's shortest repr, which the type's
        # input reads back exactly; floats for numeric ones as
        # float8::numeric gives them (_numeric_float_text)
        values = series.to_numpy()
        if values.dtype.kind == "f" and category == "numeric":
            single = values.dtype.itemsize <= 4
            strings = np.array([_numeric_float_text(x, single) for x in values.tolist()],
                               dtype=object)
        else:
            strings = values.astype(str)
        texts = pd.Series(strings, dtype=object)
        texts[series.isna().to_numpy()] = None
        return _encode_plain_strings(texts)
    n = len(series)
    valid = np.ones(n, dtype=bool)
    pieces = []
    if series.dtype == object:
        values = series.array
    else:
        values = list(series.array)
    for i, v in enumerate(values):
        if category == "numeric" and type(v) is decimal.Decimal and v.is_nan():
            # a Decimal's NaN is a value (decimal mode gives numeric's NaN
            # as one, and NULL as None); a float's NaN is pandas' missing
            pieces.append(b"NaN")
        elif _is_null(v):
            valid[i] = False
            pieces.append(b"")
        else:
            pieces.append(_text_value(v, category, name, i, sqltype, fields)
                          .encode("utf-8", "surrogatepass"))
    # each value is followed by a NUL byte (see sb_protocol.h)
    lengths = np.fromiter((len(p) + 1 for p in pieces), dtype="<i8", count=n)
    offsets = np.zeros(n + 1, dtype="<i8")
    np.cumsum(lengths, out=offsets[1:])
    nulls, bits = _packed(valid)
    data = b"\0".join(pieces) + b"\0" if n else b""
    return [nulls.to_bytes(8, "little"), bits, offsets, data]


_ZERO8 = bytes(8)
_ONE_NULL = [(1).to_bytes(8, "little"), b"\0"]
_TEXT_EMPTY_OFFSETS = (0).to_bytes(8, "little") + (1).to_bytes(8, "little")
_DOUBLE = struct.Struct("<d")


def _encode_one(v, col):
    """The payload of a one-row column holding v, for the plain values whose
    payload is plain (None, int, float, bool, str), or None: the DataFrame
    path then decides, with its errors.  A language function called per row
    returns one value: building a DataFrame for it costs ~100 us.  A float
    NaN is NULL, as everywhere (review 165 F1: a scalar result kept it, as
    PL/Python does, but here a float column's NULL arrives as NaN, and came
    back as a NaN that made SQL's sum() and max() NaN)."""
    kind = col["kind"]
    t = type(v)
    if kind == sb_io.COL_INT64:
        if v is None:
            return _ONE_NULL + [_ZERO8]
        if (t in _INT_TYPES or t in _BOOL_TYPES) and -_INT64_MAX - 1 <= int(v) <= _INT64_MAX:
            return [_ZERO8, b"", int(v).to_bytes(8, "little", signed=True)]
    elif kind == sb_io.COL_FLOAT64:
        if v is None:
            return _ONE_NULL + [_ZERO8]
        if (t in _FLOAT_TYPES and v == v) or \
                ((t in _INT_TYPES or t in _BOOL_TYPES) and abs(int(v)) <= _INT64_MAX):
            return [_ZERO8, b"", _DOUBLE.pack(float(v))]
    elif kind == sb_io.COL_BOOL:
        if v is None:
            return _ONE_NULL + [b"\0"]
        if t in _BOOL_TYPES:
            return [_ZERO8, b"", b"\1" if v else b"\0"]
    elif kind == sb_io.COL_TEXT:
        if v is None:
            return _ONE_NULL + [_TEXT_EMPTY_OFFSETS, b"\0"]
        if t is str and "\0" not in v and \
                (col.get("category") != "json" or _one_json_text(v, col)):
            data = (v + "\0").encode("utf-8", "surrogatepass")
            return [_ZERO8, b"", (0).to_bytes(8, "little") + len(data).to_bytes(8, "little"),
                    data]
        text = _one_text(v, t, col)
        if text is not None:
            data = (text + "\0").encode("utf-8", "surrogatepass")
            return [_ZERO8, b"", (0).to_bytes(8, "little") + len(data).to_bytes(8, "little"),
                    data]
    elif kind in (sb_io.COL_DATE, sb_io.COL_TIMESTAMP, sb_io.COL_TIMESTAMPTZ):
        if v is None:
            return _ONE_NULL + [_ZERO8]
        micros = _one_moment(v, t, kind)
        if micros is not None:
            return [_ZERO8, b"", micros.to_bytes(8, "little", signed=True)]
    return None


# a value's types and a text column's categories whose one value's text is
# the general path's _text_value of it, with nothing of the DataFrame's
# inference between (review 139 F2: numeric, jsonb and array results of a
# function called per row took ~0.2-0.4 ms each through a DataFrame)
_ONE_TEXT = {
    "numeric": _INT_TYPES | {decimal.Decimal, float, np.float64},
    "json": frozenset({dict, list}),
    "array": frozenset({list, tuple}),
    "interval": frozenset({datetime.timedelta}),
}


def _one_json_text(v, col):
    """Is v, a str for a json or jsonb column, JSON text, as the general
    path checks a column's first value?  (A function's jsonb result is a
    str here, made JSON by the runtime or given by the code.)"""
    try:
        _json_text_checked(v, col["name"], 0, col.get("base") or col.get("type"), whole=True)
    except RowsError:
        return False        # the general path says so
    return True


def _one_text(v, t, col):
    """The text of one value v (of type t) for a text column, as the
    DataFrame path writes it, or None to take that path (and its errors)."""
    category = col.get("category", "text")
    if t not in _ONE_TEXT.get(category, ()) or col.get("fields") is not None:
        return None
    if t is decimal.Decimal and not v.is_finite():
        return None         # NaN, a value; infinities: their own errors
    if (t is float or t is np.float64) and not math.isfinite(v):
        return None
    try:
        text = _text_value(v, category, col["name"], 0, col.get("base") or col.get("type"))
    except Exception:       # noqa: BLE001 - the general path says what is wrong
        return None
    return text if type(text) is str and "\0" not in text else None


_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_ORDINAL = _EPOCH.toordinal()
_MICROSECOND = datetime.timedelta(microseconds=1)


def _one_moment(v, t, kind):
    """Microseconds since 1970 of one date or datetime as the DataFrame path
    stores it in a date, timestamp or timestamptz column (a naive moment
    into timestamptz is UTC, an aware one into timestamp its wall clock), or
    None for that path: other types, zones other than a fixed offset, years
    near the ends of pandas' range."""
    if t is datetime.date:
        if kind == sb_io.COL_DATE and 1678 <= v.year <= 2261:
            return (v.toordinal() - _EPOCH_ORDINAL) * 86400000000
        return None
    if t is not datetime.datetime or kind == sb_io.COL_DATE or not 1678 <= v.year <= 2261:
        return None
    zone = v.tzinfo
    if zone is not None:
        if type(zone) is not datetime.timezone:
            return None
        if kind == sb_io.COL_TIMESTAMPTZ:
            v = v.astimezone(datetime.timezone.utc)
        v = v.replace(tzinfo=None)
    return (v - _EPOCH) // _MICROSECOND


def _encode_one_row(row, spec):
    """The payloads of a one-row result whose row is a tuple of a value per
    column (in order) or a dict with a str key for each column, when every
    value is one _encode_one writes; else None (the DataFrame path
    decides, with its errors)."""
    t = type(row)
    if t is tuple:
        if len(row) != len(spec):
            return None
        values = row
    elif t is dict:
        if not all(type(key) is str for key in row):
            return None
        values = []
        for col in spec:
            if col["name"] not in row:
                return None
            values.append(row[col["name"]])
    else:
        return None
    payloads = []
    for v, col in zip(values, spec):
        payload = _encode_one(v, col)
        if payload is None:
            return None
        payloads.append(payload)
    return payloads


# how many rows _encode_small_rows writes without a DataFrame
_SMALL_ROWS = 64

# the payloads of no rows, by the columns' spec (what the DataFrame path
# wrote for them the first time: a held child's calls repeat them)
_EMPTY_ROWS = {}


def _encode_small_rows(rows, spec):
    """The payloads of a few rows, each a tuple or a str-keyed dict of plain
    values that _encode_one writes (_encode_one_row), joined column by
    column; of no rows, what the DataFrame path wrote for this spec before;
    else None (the DataFrame path decides, with its errors)."""
    if not rows:
        return _EMPTY_ROWS.get(repr(spec))
    kind = type(rows[0])
    per_row = []
    for row in rows:
        if type(row) is not kind:
            return None         # dicts and tuples mixed: the general path's error
        payloads = _encode_one_row(row, spec)
        if payloads is None:
            return None
        per_row.append(payloads)
    joined = []
    for j in range(len(spec)):
        parts = [payloads[j] for payloads in per_row]
        valid = np.array([p[0] == _ZERO8 for p in parts], dtype=bool)
        nulls, bits = _packed(valid)
        head = [nulls.to_bytes(8, "little"), bits]
        if all(len(p) == 3 for p in parts):
            joined.append(head + [b"".join(p[2] for p in parts)])
        elif all(len(p) == 4 for p in parts):
            # text: the offsets of each value's bytes (with its NUL) after
            # the last's, then the bytes
            ends = np.cumsum([len(p[3]) for p in parts], dtype=np.int64)
            offsets = np.concatenate([np.zeros(1, dtype=np.int64), ends]).astype("<i8")
            joined.append(head + [offsets.tobytes(), b"".join(p[3] for p in parts)])
        else:
            return None
    return joined


def encode_rows(value, spec, func, budget, fill=None):
    """(nrows, [column payload parts]) for a sandbox_rows result, in spec's
    order; each column's parts are sent as one frame with sb_io.sendv.
    fill: {column: value} for declared columns the result may leave out
    (group_by: the group's key)."""
    if fill is None and type(value) is list and len(value) == 1 and len(spec) == 1 and \
            type(value[0]) is tuple and len(value[0]) == 1:
        payload = _encode_one(value[0][0], spec[0])
        if payload is not None:
            if sum(len(part) for part in payload) > budget:
                raise OutputLimitExceeded("the rows of %s() exceed the output limit" % func)
            return 1, [payload]
    if fill is None and type(value) is list and len(value) == 1 and len(spec) > 1:
        # one row of several columns, a language function's composite or OUT
        # parameters per call (review 159 F6: a DataFrame for each row cost
        # milliseconds): its plain values each as _encode_one writes them
        payloads = _encode_one_row(value[0], spec)
        if payloads is not None:
            if sum(len(part) for payload in payloads for part in payload) > budget:
                raise OutputLimitExceeded("the rows of %s() exceed the output limit" % func)
            return 1, payloads
    if fill is None and type(value) is list and len(value) <= _SMALL_ROWS:
        # no rows, or a few (a set-returning function called per row: review
        # 165 F7, ~2 ms a call through a DataFrame, 10 s for a LATERAL of
        # 5,000 calls)
        payloads = _encode_small_rows(value, spec)
        if payloads is not None:
            if sum(memoryview(part).nbytes for payload in payloads for part in payload) > budget:
                raise OutputLimitExceeded("the rows of %s() exceed the output limit" % func)
            return len(value), payloads
    frame = _as_frame(value, spec, func, fill)
    labels = {}
    twice = set()
    joined = {}
    for j, label in enumerate(frame.columns):
        if type(label) is tuple:
            # MultiIndex columns (agg({"amount": ["sum", "mean"]})): named
            # as the JSON path names them, ("region", "") "region" and
            # ("amount", "sum") "amount,sum", or "amount_sum" (review 100)
            parts = [p if type(p) is str else str(p) for p in label]
            while len(parts) > 1 and parts[-1] == "":
                parts.pop()
            text = ",".join(parts)
            under = "_".join(parts)
            joined[under] = None if under in joined else j
        else:
            text = label if type(label) is str else str(label)
        if text in labels:
            twice.add(text)
        labels.setdefault(text, j)
    for text, j in joined.items():
        if j is not None:       # two that join the same: neither (review 101)
            labels.setdefault(text, j)
    # a declared column the frame has twice: which one is meant is not
    # known (sandbox_execute's JSON refuses such a frame too: review 71)
    for col in spec:
        if col["name"] in twice:
            raise RowsError('column "%s" appears more than once in the result of %s(): '
                            'rename or drop one, as df.loc[:, ~df.columns.duplicated()]'
                            % (col["name"], func), "42702")
    if fill:
        missing = {c["name"]: fill[c["name"]] for c in spec
                   if c["name"] in fill and c["name"] not in labels}
        if missing:
            # set one by one, each value as one object per row: a key may
            # be a list (array), a dict (jsonb) or named like a keyword
            frame = frame.copy(deep=False)
            for name, key in missing.items():
                if isinstance(key, (list, dict, tuple)):
                    frame[name] = pd.Series([key] * len(frame), index=frame.index, dtype=object)
                else:
                    frame[name] = key
            for j, label in enumerate(frame.columns):
                labels.setdefault(label if type(label) is str else str(label), j)
    payloads = []
    used = 0
    for col in spec:
        name = col["name"]
        if name not in labels:
            have = ", ".join(sorted(labels)) or "none"
            folded = [label for label in labels if label.lower() == name and label != name]
            extra = ('; PostgreSQL folds unquoted names to lower case: write "%s" in double '
                     'quotes in the column list' % folded[0]) if folded else ""
            cased = [label for label in labels if label != name and
                     label.lower() == name.lower()] if not folded else []
            if cased:
                # RETURNS TABLE("Region" text) and a column region (review
                # 104): names match with their case
                extra = ('; names are matched with their case, and the result has "%s": '
                         'rename it (df.rename(columns={"%s": "%s"})), or declare the '
                         'column without double quotes' % (cased[0], cased[0], name))
            composed = [label for label in labels if label != name and
                        unicodedata.normalize("NFC", label) == unicodedata.normalize("NFC", name)]
            others = [label for label in labels if label != "index"]
            if not extra and "index" in labels and len(others) == 1 and name in ("count",
                                                                               "counts"):
                # pandas 1.5's value_counts().reset_index(): ("index", "x")
                # with the counts under "x"; pandas 2 names them ("x", "count")
                extra = ('; pandas here is %s, whose value_counts().reset_index() gives '
                         'the columns "index" and "%s" (the counts): write '
                         's.value_counts().rename_axis("%s").reset_index(name="%s")'
                         % (pd.__version__, others[0], others[0], name))
            if composed and not extra:
                # "Größe" typed two ways: the same letters, other code points
                extra = ('; "%s" differs from the column list\'s name only in how its accents '
                         'are encoded (Unicode normalization): rename the column with '
                         'df.rename(columns=lambda c: unicodedata.normalize("NFC", c))'
                         % composed[0].encode("ascii", "backslashreplace").decode())
            renamed = [label for label in labels if type(label) is str and
                       re.fullmatch(r"_[0-9]+", label)]
            if renamed and not extra and not name.isidentifier():
                # namedtuples (itertuples' rows) rename fields whose names
                # are no identifiers: "total sales" is "_1"
                extra = ('; itertuples() renames columns whose names are not Python '
                         'identifiers (%s): return the DataFrame itself, or '
                         'df.itertuples(index=False, name=None) for plain tuples in column '
                         'order' % renamed[0])
            if set(labels) == {"index", "0"} and len(spec) == 2 and not extra:
                # pd.Series(xs).value_counts(): neither the labels nor the
                # values have a name (review 151 F4: the hint named the
                # counts after the first column)
                extra = ('; a Series whose index and values have no names gives the columns '
                         '"index" and 0: write s.rename_axis("%s").reset_index(name="%s")'
                         % (spec[0]["name"], spec[1]["name"]))
            if "0" in labels and not extra:
                # df.groupby("k").size(): a Series without a name
                extra = ('; a Series without a name (df.groupby(...).size()) is the column '
                         '0: name it, s.reset_index(name="%s") or s.rename("%s")'
                         % (name, name))
            raise RowsError('column "%s" is missing from the result of %s(); '
                            "it has columns: %s%s" % (name, func, have, extra), _MISSING)
        series = frame.iloc[:, labels[name]]
        kind = col["kind"]
        if kind == sb_io.COL_INT64:
            payload = _encode_int(series, name)
        elif kind == sb_io.COL_FLOAT64:
            payload = _encode_float(series, name)
        elif kind == sb_io.COL_BOOL:
            payload = _encode_bool(series, name)
        elif kind in (sb_io.COL_DATE, sb_io.COL_TIMESTAMP, sb_io.COL_TIMESTAMPTZ):
            payload = _encode_datetime(series, name, kind, col.get("type"))
        else:
            fields = _fields_of(col)
            # the type with its domains resolved decides how values are
            # written (sb_base_type_name): a dnum[]'s floats as numeric's
            payload = _encode_text(series, name, col.get("category", "text"),
                                   col.get("base") or col.get("type"), fields)
        used += sum(memoryview(part).nbytes for part in payload)
        if used > budget:
            raise OutputLimitExceeded("the rows of %s() exceed the output limit" % func)
        payloads.append(payload)
    if fill is None and type(value) is list and not value and len(_EMPTY_ROWS) < 256:
        _EMPTY_ROWS[repr(spec)] = payloads
    return len(frame), payloads
