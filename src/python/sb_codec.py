"""Conversions between the wire format and Python values, inside the child.

decode_column() turns one SB_DATA_COLUMN payload into a numpy/pandas array
without per-value Python work for fixed-width kinds.

dumps() turns a returned value into JSON text.  It dispatches on exact
types (``type(x) is ...``), never on isinstance, and never calls str(),
repr() or iteration protocols that user classes could override: only values
of known built-in, numpy and pandas types are converted, anything else is a
TypeError naming the type and where it was found.
"""

import datetime
import decimal
import json
import math

import numpy as np
import pandas as pd

import sb_io

_MAX_DEPTH = 100

_encode_str = json.encoder.encode_basestring_ascii
_Timestamp = pd.Timestamp
_NaTType = type(pd.NaT)
_NAType = type(pd.NA)
_Timedelta = pd.Timedelta
_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64,
                        np.uint8, np.uint16, np.uint32, np.uint64})
_FLOAT_TYPES = frozenset({float, np.float16, np.float32, np.float64})
_BOOL_TYPES = frozenset({bool, np.bool_})


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


def decode_column(kind, nrows, payload):
    """Build an array of nrows values of the given kind from payload."""
    view = memoryview(payload)
    valid, pos = _validity(view, nrows, 0)

    if kind == sb_io.COL_TEXT:
        offsets = np.frombuffer(view, dtype="<i8", count=nrows + 1, offset=pos)
        start = pos + 8 * (nrows + 1)
        data = bytes(view[start:])
        if nrows and (offsets[0] != 0 or offsets[-1] != len(data)
                      or np.any(np.diff(offsets) < 0)):
            raise ValueError("corrupt text column")
        bounds = offsets.tolist()
        if data.isascii():
            text = data.decode("ascii")
            values = [text[bounds[i]:bounds[i + 1]] for i in range(nrows)]
        else:
            values = [data[bounds[i]:bounds[i + 1]].decode("utf-8")
                      for i in range(nrows)]
        out = np.empty(nrows, dtype=object)
        out[:] = values
        if valid is not None:
            out[~valid] = None
        return out

    width = 1 if kind == sb_io.COL_BOOL else 8
    if len(view) - pos < width * nrows:
        raise ValueError("truncated column")

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
    if kind in (sb_io.COL_DATE, sb_io.COL_TIMESTAMP, sb_io.COL_TIMESTAMPTZ):
        micros = np.frombuffer(view, dtype="<i8", count=nrows, offset=pos)
        values = micros.view("datetime64[us]").astype("datetime64[ns]")
        if valid is not None:
            values[~valid] = np.datetime64("NaT")
        if kind == sb_io.COL_TIMESTAMPTZ:
            return pd.DatetimeIndex(values).tz_localize("UTC").array
        return values
    raise ValueError("unknown column kind %d" % kind)


def decode_table(header, columns):
    """Build a DataFrame from a TABLE header and its decoded columns."""
    names = [c["name"] for c in header["columns"]]
    frame = pd.DataFrame(dict(zip(range(len(names)), columns)),
                         index=pd.RangeIndex(header["nrows"]))
    frame.columns = names
    return frame


# --------------------------------------------------------------------------
# Python -> JSON text

class _Writer:
    """Accumulates JSON text and enforces the output cap as it grows.

    The text is ASCII (non-ASCII is escaped), so characters are bytes.
    """

    def __init__(self, limit, used):
        self.parts = []
        self.size = used
        self.limit = limit

    def put(self, text):
        self.size += len(text)
        if self.size > self.limit:
            raise OutputLimitExceeded(
                "result exceeds the output limit of %d bytes" % self.limit)
        self.parts.append(text)


def _float_text(value):
    if math.isnan(value) or math.isinf(value):
        return "null"
    return repr(float(value))


def _key_text(key, path):
    """Object keys: JSON needs strings."""
    t = type(key)
    if t is str:
        return key
    if t in _INT_TYPES or t in _BOOL_TYPES:
        return str(int(key)) if t not in _BOOL_TYPES else ("true" if key else "false")
    if t in _FLOAT_TYPES:
        return repr(float(key))
    if key is None or t is _NaTType or t is _NAType:
        return "null"
    if t is _Timestamp or t is datetime.datetime or t is datetime.date:
        return key.isoformat()
    if t is np.str_:
        return str.__str__(key)
    if t is tuple:
        # MultiIndex labels; reset_index() pads the index name with ""
        parts = [_key_text(k, path) for k in key]
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        return ",".join(parts)
    raise TypeError('cannot use a value of type "%s" as a JSON object key at %s'
                    % (t.__name__, path))


def _scalar_text(value, t):
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
        return str(value) if value.is_finite() else "null"
    return None


def _write(w, value, path, depth):
    if depth > _MAX_DEPTH:
        raise ValueError("result is nested more than %d levels deep at %s"
                         % (_MAX_DEPTH, path))
    t = type(value)
    text = _scalar_text(value, t)
    if text is not None:
        w.put(text)
        return
    if t is list or t is tuple:
        _write_list(w, value, path, depth)
    elif t is dict:
        w.put("{")
        first = True
        for k, v in dict.items(value):
            if not first:
                w.put(",")
            first = False
            key = _key_text(k, path)
            w.put(_encode_str(key))
            w.put(":")
            _write(w, v, "%s[%s]" % (path, _encode_str(key)), depth + 1)
        w.put("}")
    elif t is np.ndarray:
        _write_list(w, _array_values(value), path, depth)
    elif t is pd.Series:
        _write_series(w, value, path, depth)
    elif t is pd.DataFrame:
        _write_frame(w, value, path, depth)
    elif t is pd.Index or t is pd.RangeIndex or t is pd.DatetimeIndex:
        _write_list(w, _array_values(value.to_numpy()), path, depth)
    else:
        raise TypeError('cannot convert a value of type "%s" at %s to JSON; '
                        "return lists, dicts, numbers, strings or pandas objects"
                        % (t.__name__, path))


def _write_list(w, values, path, depth):
    w.put("[")
    for i, v in enumerate(list.__iter__(values) if type(values) is list
                          else tuple.__iter__(values)):
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


def _write_series(w, series, path, depth):
    keys = _array_values(series.index.to_numpy())
    values = _column_values(series)
    w.put("{")
    for i, (k, v) in enumerate(zip(keys, values)):
        if i:
            w.put(",")
        key = _key_text(k, path)
        w.put(_encode_str(key))
        w.put(":")
        _write(w, v, "%s[%s]" % (path, _encode_str(key)), depth + 1)
    w.put("}")


def _has_default_index(frame):
    index = frame.index
    return (type(index) is pd.RangeIndex and index.start == 0 and index.step == 1
            and index.name is None)


def _write_frame(w, frame, path, depth):
    # Rows carry their index as leading fields unless it is the default
    # 0..n-1, so df.groupby('g').sum() keeps its keys (like reset_index()).
    if not _has_default_index(frame):
        try:
            frame = frame.reset_index()
        except ValueError:  # an index name that is also a column name
            pass
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


def dumps(value, limit, used=0, path="result"):
    """JSON text for value; used + its length may not exceed limit bytes."""
    w = _Writer(limit, used)
    _write(w, value, path, 0)
    return "".join(w.parts)
