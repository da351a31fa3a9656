--
-- types: PostgreSQL columns as pandas sees them (README: Types), and Python
-- results as JSON
--

-- text output of date/time types does not depend on the test harness
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

-- SQLSTATE and (the start of) the message of a call, or 'ok'
CREATE FUNCTION pg_temp.sqlstate(code text, inputs jsonb DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM sandbox_execute(code, inputs); RETURN 'ok';
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || left(SQLERRM, 80); END $f$;
-- the dtypes of a table input, as seen inside Python
CREATE FUNCTION pg_temp.dtypes(query text) RETURNS jsonb LANGUAGE sql AS $f$
    SELECT sandbox_execute($$
def main(df):
    return {c: str(t) for c, t in df.dtypes.items()}
$$, jsonb_build_object('df', jsonb_build_object('$query', query))) -> 'main'
$f$;
-- a table input's values, as JSON records
CREATE FUNCTION pg_temp.roundtrip(query text) RETURNS jsonb LANGUAGE sql AS $f$
    SELECT sandbox_execute('def main(df): return df',
        jsonb_build_object('df', jsonb_build_object('$query', query))) -> 'main'
$f$;

-- integers: int64, or the nullable Int64 when a column has NULLs
SELECT pg_temp.dtypes($$SELECT 1::int2 AS a, 2::int4 AS b, 3::int8 AS c$$);
SELECT pg_temp.dtypes($$SELECT * FROM (VALUES (1::int2, 1::int4, 1::int8), (NULL, NULL, NULL)) v(a, b, c)$$);
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES ('-32768'::int2, '-2147483648'::int4, '-9223372036854775808'::int8),
                                            (32767::int2, 2147483647::int4, 9223372036854775807::int8),
                                            (NULL, NULL, NULL)) v(a, b, c)$$);
-- NULL integers are pd.NA inside Python, the other values stay exact
SELECT sandbox_execute($$
import pandas as pd
def main(df):
    return {"na": [v is pd.NA for v in df["n"]], "sum": int(df["n"].sum()),
            "big": int(df["big"].max())}
$$, '{"df": {"$query": "SELECT * FROM (VALUES (1, 9007199254740993::int8), (NULL, 1)) v(n, big)"}}');

-- floats and numeric: float64; NULL becomes NaN, and NaN and infinities
-- become null in JSON
SELECT pg_temp.dtypes($$SELECT 1::float4 AS a, 2::float8 AS b, 3.5::numeric AS c, NULL::float8 AS d$$);
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES (1.5::float4, 0.1::float8, 12.345::numeric(10,3)),
                                            (NULL, 'NaN', 'NaN'),
                                            ('Infinity', '-Infinity', NULL)) v(a, b, c) $$);
SELECT sandbox_execute($$
import math
def main(df):
    return [[math.isnan(v) for v in df["a"]], [math.isinf(v) for v in df["a"]]]
$$, '{"df": {"$query": "SELECT * FROM (VALUES (NULL::float8), (''NaN''), (''Infinity''), (1)) v(a)"}}');
-- numeric beyond float64's precision is rounded; beyond its range it is
-- refused as numeric::float8 refuses it (22003; it arrived as an infinity
-- no row held: review 104 F5), and decimal mode holds it exactly
SELECT pg_temp.roundtrip($$SELECT 12345678901234567890.123456789::numeric AS a, 'Infinity'::numeric AS b$$);
SELECT pg_temp.roundtrip($$SELECT 1.5::numeric AS a, -1e400::numeric AS b$$);
SELECT pg_temp.roundtrip($$SELECT 0::numeric AS a, 1e-400::numeric AS b$$);
-- an element of a numeric[] too (review 108: 1e400.5 came as inf), while
-- NaN, the infinities and values near the edges stay
SELECT pg_temp.roundtrip($$SELECT ARRAY[1e400 + 0.5, 1]::numeric[] AS a$$);
SELECT sandbox_execute('def main(df): return [repr(v) for v in df.a[0]]',
    '{"df": {"$query": "SELECT ARRAY[''Infinity'', ''NaN'', NULL, 0, 1.5e-300, -1.7e308]::numeric[] AS a"}}');
SELECT sandbox_execute('def main(df): return str(df.b[0])[:8]',
    '{"df": {"$query": "SELECT 1e400::numeric AS b"}}', options => '{"numeric": "decimal"}');
CREATE FUNCTION pg_temp.num_arg(x numeric) RETURNS text LANGUAGE pysandbox AS 'return repr(x)';
SELECT pg_temp.num_arg(1e400);

-- bool: bool, or the nullable boolean when a column has NULLs
SELECT pg_temp.dtypes($$SELECT * FROM (VALUES (true, true), (false, NULL)) v(a, b)$$);
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES (true, true), (false, NULL)) v(a, b)$$);

-- text-like types arrive as str (object dtype); NULL is None
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
SELECT pg_temp.dtypes($$SELECT 'a'::text AS t, 'b'::varchar(5) AS v, 'c'::char(3) AS c, 'd'::name AS n,
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, 'ok'::mood AS m$$);
SELECT pg_temp.roundtrip($$SELECT 'a'::text AS t, 'b'::varchar(5) AS v, 'c'::char(3) AS c, 'd'::name AS n,
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, 'ok'::mood AS m, NULL::text AS z,
    E'tab\there "quote" \\ ünï 日本' AS s, '' AS empty$$);
SELECT sandbox_execute($$
def main(df):
    return {"str": [type(v) is str for v in df.iloc[0]], "null_is_none": df["z"][1] is None}
$$, '{"df": {"$query": "SELECT ''a''::text AS a, ''b''::char(2) AS b, ''ok''::mood AS m, gen_random_uuid() AS u, ''x'' AS z UNION ALL SELECT ''y'', ''yy'', ''sad'', gen_random_uuid(), NULL"}}');

-- date and timestamp: datetime64[ns]; timestamptz: datetime64[ns, UTC]
SELECT pg_temp.dtypes($$SELECT '2024-02-29'::date AS d, '2024-02-29 13:45:01.5'::timestamp AS ts,
    '2024-02-29 13:45:01.5+02'::timestamptz AS tz$$);
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES
    ('2024-02-29'::date, '2024-02-29 13:45:01.123456'::timestamp, '2024-02-29 13:45:01.5+02'::timestamptz),
    ('1970-01-01', '1969-12-31 23:59:59', '1970-01-01 00:00:00+00'),
    (NULL, NULL, NULL)) v(d, ts, tz)$$);
-- a timestamptz is the same instant, in UTC, whatever the session TimeZone
SET TimeZone = 'America/New_York';
SELECT pg_temp.roundtrip($$SELECT '2024-07-01 12:00:00+00'::timestamptz AS tz, '2024-07-01 12:00'::timestamp AS ts$$);
SET TimeZone = 'Asia/Kolkata';
SELECT pg_temp.roundtrip($$SELECT '2024-07-01 12:00:00+00'::timestamptz AS tz, '2024-07-01 12:00'::timestamp AS ts$$);
SELECT sandbox_execute($$
def main(df):
    t = df["tz"][0]
    return [str(t.tz), t.hour, t.isoformat()]
$$, '{"df": {"$query": "SELECT ''2024-07-01 08:30:00-04''::timestamptz AS tz"}}');
RESET TimeZone;
-- the edges pandas can hold, and values it cannot: errors name column and row
SELECT pg_temp.roundtrip($$SELECT '1677-09-21 00:12:43.145225'::timestamp AS lo, '2262-04-11 23:47:16.854775+00'::timestamptz AS hi,
    '2262-04-11'::date AS d$$);
SELECT pg_temp.roundtrip($$SELECT '2262-04-11 23:47:16.854776'::timestamp AS ts$$);
SELECT pg_temp.roundtrip($$SELECT '1677-09-21 00:12:43.145224+00'::timestamptz AS tz$$);
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES (1, '2024-01-01'::date), (2, '3000-01-01')) v(n, when_)$$);
SELECT pg_temp.sqlstate('def main(df): return 1', '{"df": {"$query": "SELECT ''3000-01-01''::date AS d"}}');
SELECT pg_temp.roundtrip($$SELECT 'infinity'::timestamp AS ts$$);
SELECT pg_temp.roundtrip($$SELECT '-infinity'::timestamptz AS tz$$);
SELECT pg_temp.roundtrip($$SELECT '1500-01-01'::date AS d$$);
SELECT pg_temp.roundtrip($$SELECT 'infinity'::date AS d$$);
-- the hint's way out: cast to text
SELECT pg_temp.roundtrip($$SELECT '3000-01-01'::date::text AS d$$);

-- json, jsonb, arrays, interval, bytea and other types arrive as str for
-- now (their output function's text)
SELECT pg_temp.dtypes($$SELECT '{"a": 1}'::json AS j, '{"a": 1}'::jsonb AS jb, ARRAY[1,2] AS arr,
    '1 day 02:00'::interval AS iv, '\xdeadbeef'::bytea AS b, '10.0.0.1'::inet AS ip, point(1,2) AS pt, 1.50::money AS m$$);
SELECT pg_temp.roundtrip($$SELECT '{"a": 1}'::json AS j, '{"a":  1}'::jsonb AS jb, ARRAY[1,2] AS arr,
    ARRAY['x', NULL] AS tarr, '1 day 02:00'::interval AS iv, '\xdeadbeef'::bytea AS b,
    '10.0.0.1'::inet AS ip, point(1,2) AS pt, '12:30'::time AS tm, int4range(1, 5) AS r$$);

-- a domain is sent as its base type
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
SELECT pg_temp.dtypes($$SELECT 5::posint AS p$$);

-- no rows: the columns and their dtypes are still there
SELECT sandbox_execute($$
def main(df):
    return {"rows": len(df), "columns": list(df.columns),
            "dtypes": {c: str(t) for c, t in df.dtypes.items()}, "records": df}
$$, '{"df": {"$query": "SELECT 1::int AS a, ''x''::text AS b, now() AS c WHERE false"}}');
-- no columns
SELECT sandbox_execute($$
def main(df):
    return {"rows": len(df), "columns": list(df.columns), "shape": list(df.shape)}
$$, '{"df": {"$query": "SELECT FROM generate_series(1, 3)"}}');
-- duplicate and odd column names are kept
SELECT sandbox_execute($$
def main(df):
    return [list(df.columns), df.iloc[0].tolist()]
$$, '{"df": {"$query": "SELECT 1 AS a, 2 AS a, 3 AS \"with space\", 4 AS \"ünï\", 5 AS \"?column?\""}}');

-- Python results become JSON; key by key:
-- DataFrame -> list of row objects (the index is not kept), Series -> object
-- keyed by its index, numpy scalars -> numbers, arrays -> lists, NaN / NaT /
-- NA / infinity -> null, datetimes -> ISO 8601, Decimal -> number
SELECT key, value FROM jsonb_each(sandbox_execute($$
import numpy as np
import pandas as pd
import datetime
import decimal
def main():
    df = pd.DataFrame({"a": [1, 2], "b": ["x", None], "c": [1.5, np.nan],
                       "d": pd.to_datetime(["2024-01-02 03:04:05", None]),
                       "e": pd.array([1, None], dtype="Int64"),
                       "f": pd.array([True, None], dtype="boolean")})
    return {
        "frame": df,
        "frame_indexed": df[["a", "c"]].set_index("a"),
        "frame_empty": df.head(0),
        "frame_multi": df.groupby("a").agg({"c": ["sum", "max"]}),
        "series": pd.Series([10, 20], index=["x", "y"]),
        "series_int_index": pd.Series([1.5, np.nan]),
        "series_ts_index": pd.Series([1, 2], index=pd.to_datetime(["2024-01-01", "2024-01-02"])),
        "series_category": pd.Series(pd.Categorical(["x", "y", "x"])),
        "series_tz": df["d"].dt.tz_localize("UTC"),
        "np_int64": np.int64(7), "np_int8": np.int8(-3),
        "np_uint64": np.uint64(18446744073709551615),
        # types of their own beside int64, uint64, float64 (review 100)
        "np_longlong": np.array([5]).astype("q")[0], "np_ulonglong": np.ulonglong(6),
        "np_longdouble": np.longdouble(1.5),
        # a float32's own digits (review 100: 1.100000023841858)
        "np_float32_digits": [np.float32(1.1), np.array([0.1, 2.2], dtype=np.float32)],
        "np_float32": np.float32(0.5), "np_bool": np.bool_(True), "np_str": np.str_("s"),
        "np_array": np.arange(3), "np_array2d": np.array([[1, 2], [3, 4]]),
        "np_float_array": np.array([1.0, np.nan, np.inf]),
        "np_object_array": np.array([1, "a", None], dtype=object),
        "np_datetime_array": np.array(["2024-01-01", "NaT"], dtype="datetime64[ns]"),
        "nan": float("nan"), "neg_inf": float("-inf"), "nat": pd.NaT, "na": pd.NA,
        "datetime": datetime.datetime(2024, 5, 6, 7, 8, 9, 10),
        "datetime_aware": datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc),
        "date": datetime.date(2024, 5, 6), "time": datetime.time(7, 8),
        "pd_timestamp": pd.Timestamp("2024-05-06 07:08:09", tz="Europe/Paris"),
        "np_datetime64": np.datetime64("2024-05-06T07:08"),
        "timedelta": datetime.timedelta(days=1, seconds=2),
        "pd_timedelta": pd.Timedelta(minutes=90),
        "decimal": decimal.Decimal("1234567890.123456789012345"),
        "decimal_nan": decimal.Decimal("NaN"),
        "pd_index": pd.Index(["p", "q"]),
        "pd_range_index": pd.RangeIndex(3),
        "tuple": (1, "two"),
        "nested": {"l": [{"t": (1, [2, {"deep": None}])}]},
        "keys": {5: "int", True: "bool", 1.5: "float", None: "none", (1, 2): "tuple",
                 datetime.date(2024, 1, 1): "date"},
    }
$$) -> 'main') ORDER BY key;

-- what analysts return (README, "Results become JSON"): dtypes, every Index,
-- extension arrays, periods, intervals, offsets, time zones, sets
SELECT key, value FROM jsonb_each(sandbox_execute($$
import datetime
import numpy as np
import pandas as pd
def main():
    df = pd.DataFrame({"f": [1.5, 2.5], "c": pd.Categorical(["u", "v"]),
                       "p": pd.period_range("2024-01", periods=2, freq="M")})
    return {
        "dtypes": df.dtypes,
        "int64_index": pd.Index([3, 4]),
        "float64_index": pd.Index([0.5]),
        "timedelta_index": pd.timedelta_range("1h", periods=2),
        "period_index": pd.period_range("2024Q1", periods=2, freq="Q"),
        "interval_index": pd.interval_range(0, 2),
        "categorical_index": pd.CategoricalIndex(["b", "a"]),
        "multi_index": pd.MultiIndex.from_tuples([(1, "a"), (2, "b")]),
        "categorical_unique": df["c"].unique(),
        "integer_array": pd.array([1, None], dtype="Int64"),
        "boolean_array": pd.array([True, None], dtype="boolean"),
        "string_array": pd.array(["s", None], dtype="string"),
        "sparse_array": pd.arrays.SparseArray([0, 1]),
        "period": pd.Period("2024-03", "M"),
        "interval": pd.Interval(0, 1, closed="left"),
        "offset": pd.offsets.MonthEnd(2),
        "time_zone": pd.Timestamp("2024-01-01", tz="Europe/Paris").tz,
        "frozen_list": df.columns.names,
        "set": {3, 1, 2},
        "frozenset": frozenset({"b", "a"}),
        "period_keys": pd.Series([1, 2], index=df["p"]),
        "interval_keys": pd.cut([0.5, 1.5, 1.7], [0, 1, 2]).value_counts(),
        "timedelta_keys": pd.Series([1], index=pd.to_timedelta(["1D"])),
        "records": df[["f"]].to_records(),
    }
$$) -> 'main') ORDER BY key;

-- anything else is an error naming the type and where it was found
SELECT sandbox_execute('def main(): return object()');
SELECT sandbox_execute('def main(): return main');
SELECT sandbox_execute($$
class Money:
    def __init__(self, v):
        self.v = v
def main():
    return {"total": [1, Money(3)]}
$$);
-- exact types only: a subclass of dict is not converted (its methods never run)
SELECT sandbox_execute($$
class D(dict):
    def items(self):
        raise RuntimeError("never called")
def main():
    return D(a=1)
$$);
SELECT sandbox_execute('def main(): return b"bytes"');
SELECT sandbox_execute('def main(): return 1j');
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.complex128(1)
$$);
SELECT sandbox_execute('def main(): return {frozenset(): 1}');
-- a missing key (a NULL group kept by dropna=False) is "null"; dict views
-- and ranges are arrays
SELECT sandbox_execute($$
import pandas as pd
def main():
    s = pd.DataFrame({"k": ["a", None, "a"], "v": [1, 2, 3]}).groupby("k", dropna=False).v.sum()
    d = {"x": 1, "y": 2}
    return [s, d.keys(), d.values(), d.items(), range(2, 5)]
$$);
SELECT pg_temp.sqlstate('def main(): return object()');
-- a self-referencing list ends at the nesting limit
SELECT pg_temp.sqlstate($$
def main():
    x = []
    x.append(x)
    return x
$$);

--
-- the input side of interval, json/jsonb, arrays, bytea, numeric as
-- Decimal, uuid and enum: the Python values themselves
--
-- the Python type and repr() of every value of every column
CREATE FUNCTION pg_temp.pyvalues(query text, opts jsonb DEFAULT '{}') RETURNS TABLE (col text, types text, reprs text)
LANGUAGE sql AS $f$
    SELECT key, value -> 0 #>> '{}', value -> 1 #>> '{}'
    FROM jsonb_each(sandbox_execute($$
def main(df):
    out = {}
    for c in df.columns:
        out[c] = [" ".join(str(type(v)).split("'")[1].rsplit(".", 1)[-1] for v in df[c]),
                  " | ".join(repr(v) for v in df[c])]
    return out
$$, jsonb_build_object('df', jsonb_build_object('$query', query)), '{main}', opts) -> 'main')
    ORDER BY key
$f$;

-- interval: timedelta64[ns]; NULL is NaT; a month counts as 30 days (as
-- interval comparison does), so a year is 360 days
SELECT pg_temp.dtypes($$SELECT * FROM (VALUES ('1 day'::interval), (NULL)) v(iv)$$);
SELECT * FROM pg_temp.pyvalues($$SELECT * FROM (VALUES
    ('1 day 02:03:04.5'::interval), ('-00:00:00.000001'), ('1 mon'), ('1 year 1 mon -1 day'),
    ('-3 days +04:00'), (NULL), ('0')) v(iv)$$);
SELECT sandbox_execute($$
def main(df):
    iv = df["iv"]
    return {"days": iv.dt.days.tolist(), "seconds": iv.dt.total_seconds().tolist(),
            "sum": iv.sum(), "month_is_30_days": bool(iv[0] == iv[1])}
$$, '{"df": {"$query": "SELECT * FROM (VALUES (''1 mon''::interval), (''30 days''), (''-12:00'')) v(iv)"}}');
-- as ISO 8601 durations in JSON
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES ('1 day 02:03:04.5'::interval), ('-1 mon'), ('00:00:00.000001'), (NULL)) v(iv)$$);
-- beyond timedelta64[ns] (106751 days, 296 of these years): an error
-- naming column and row
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES ('1 day'::interval), ('300 years')) v(iv)$$);
SELECT pg_temp.roundtrip($$SELECT '-2147483648 days -2147483648 hours'::interval AS iv$$);
SELECT pg_temp.sqlstate('def main(df): return 1', '{"df": {"$query": "SELECT ''-297 years''::interval AS iv"}}');
SELECT pg_temp.sqlstate('def main(df): return 1', '{"df": {"$query": "SELECT ''106752 days''::interval AS iv"}}');
-- ... and within it
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES ('296 years'::interval), ('-106751 days')) v(iv)$$);

-- json and jsonb: Python objects (dict, list, str, int, float, bool, None);
-- SQL NULL is None too
SELECT * FROM pg_temp.pyvalues($$SELECT * FROM (VALUES
    ('{"a": [1, 2.5, null, true, "x"]}'::json, '{"b": {"c": []}}'::jsonb),
    ('[1, "two"]', '"s"'),
    ('3', '4.5'),
    ('null', 'false'),
    (NULL, NULL)) v(j, jb)$$);
-- JSON numbers as Python's json reads them: integers exact, others float
SELECT * FROM pg_temp.pyvalues($$SELECT '[12345678901234567890, 12345678901234567890.5, 0.1, 1e2]'::jsonb AS jb$$);
-- a json value keeps duplicate keys' last value and its own key order
SELECT * FROM pg_temp.pyvalues($$SELECT '{"z": 1, "a": 2, "z": 3}'::json AS j, '{"z": 1, "a": 2, "z": 3}'::jsonb AS jb$$);
-- a domain over jsonb arrives as jsonb does
CREATE DOMAIN jobject AS jsonb CHECK (jsonb_typeof(VALUE) = 'object');
SELECT * FROM pg_temp.pyvalues($$SELECT '{"k": "v"}'::jobject AS d$$);

-- arrays: lists (nested for more dimensions); NULL elements are None;
-- elements as JSON values (array_to_json), dates and times as their
-- scalars arrive (datetime.date here)
SELECT * FROM pg_temp.pyvalues($$SELECT * FROM (VALUES
    (ARRAY[1, NULL, 3], ARRAY['a', NULL, 'b,"c"'], ARRAY[[1.5, 2], [NULL, 4]]::float8[]),
    ('{}', '{}', '{}'),
    (NULL, NULL, NULL)) v(ia, ta, fa)$$);
SELECT * FROM pg_temp.pyvalues($$SELECT ARRAY[true, NULL] AS ba, ARRAY['2024-01-02'::date] AS da,
    ARRAY['{"k": 1}'::jsonb] AS ja, ARRAY['\x01ff'::bytea] AS bya, ARRAY['ok', 'sad']::mood[] AS ma,
    '[2:3]={7,8}'::int[] AS lower_bound, ARRAY[1.5]::numeric[] AS na$$);
-- a list per row: an object column
SELECT pg_temp.dtypes($$SELECT ARRAY[1, 2] AS a, ARRAY[[1], [2]] AS aa$$);
SELECT sandbox_execute($$
def main(df):
    return {"lengths": df["a"].map(len).tolist(), "flat": df["a"].explode().tolist()}
$$, '{"df": {"$query": "SELECT * FROM (VALUES (ARRAY[1, 2]), (ARRAY[3]), (''{}''::int[])) v(a)"}}');

-- bytea: bytes, exactly (NUL bytes included); bytes in a result are
-- bytea's text form
SELECT * FROM pg_temp.pyvalues($$SELECT * FROM (VALUES ('\x00ff5c27'::bytea), ('\x'), (NULL), ('abc'::bytea)) v(b)$$);
SELECT sandbox_execute($$
def main(df):
    b = df["b"][0]
    return {"len": len(b), "first": b[0], "last": b[-1], "zeros": b.count(0)}
$$, '{"df": {"$query": "SELECT decode(repeat(''00ff'', 1000), ''hex'') AS b"}}');
SELECT pg_temp.roundtrip($$SELECT * FROM (VALUES ('\x00ff5c27'::bytea), ('\x'), (NULL)) v(b)$$);
SELECT sandbox_execute('def main(): return {"b": b"\x00\\\xff", "ba": bytearray(b"ab"), "empty": b""}');
-- ... which casts back to the same bytea
SELECT (sandbox_execute('def main(df): return df["b"][0]', '{"df": {"$query": "SELECT ''\\x00ff5c27''::bytea AS b"}}')
        ->> 'main')::bytea = '\x00ff5c27'::bytea AS same_bytes;

-- numeric: float64 by default, Decimal with options.numeric = 'decimal'
-- (exact, NaN and infinities included; NULL is None)
SELECT * FROM pg_temp.pyvalues($$SELECT * FROM (VALUES (12345678901234567890.123456789::numeric), (0.10),
    ('NaN'), ('Infinity'), ('-Infinity'), (NULL), (-0.000)) v(n)$$, '{"numeric": "decimal"}');
SELECT pg_temp.dtypes($$SELECT 1.5::numeric AS n$$);
SELECT sandbox_execute('def main(df): return [str(df["n"].dtype), repr(df["n"][0])]',
    '{"df": {"$query": "SELECT 1.5::numeric AS n"}}', options => '{"numeric": "float"}');
SELECT sandbox_execute('def main(df): return [str(df["n"].dtype), repr(df["n"][0])]',
    '{"df": {"$query": "SELECT 1.5::numeric AS n"}}', options => '{"numeric": "decimal"}');
-- Decimal arithmetic is exact, and a Decimal in a result is a JSON number
SELECT sandbox_execute($$
import decimal
def main(df):
    return {"sum": df["n"].sum(), "sum_is_decimal": type(df["n"].sum()) is decimal.Decimal,
            "float_sum": float(df["n"].astype(float).sum())}
$$, '{"df": {"$query": "SELECT * FROM (VALUES (0.1::numeric), (0.2)) v(n)"}}', options => '{"numeric": "decimal"}');
-- a domain over numeric follows the option too; other types are unaffected
SELECT * FROM pg_temp.pyvalues($$SELECT 2.50::numeric(5,2) AS n2, 7::int AS i, 1.5::float8 AS f$$, '{"numeric": "decimal"}');
-- options.numeric must be "float" or "decimal" (22023)
SELECT sandbox_execute('def main(): return 1', options => '{"numeric": "exact"}');
SELECT sandbox_execute('def main(): return 1', options => '{"numeric": true}');
SELECT sandbox_execute('def main(): return 1', options => '{"numeric": null}');
SELECT sandbox_execute('def main(): return 1', options => '{"numeric": "Decimal"}');
CREATE FUNCTION pg_temp.option_sqlstate(opts jsonb) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM sandbox_execute('def main(): return 1', options => opts); RETURN 'ok';
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
SELECT pg_temp.option_sqlstate('{"numeric": "exact"}'), pg_temp.option_sqlstate('{"numeric": "decimal"}'),
       pg_temp.option_sqlstate('{"numeric": "float"}');

-- uuid and enum: str
SELECT * FROM pg_temp.pyvalues($$SELECT * FROM (VALUES
    ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'happy'::mood), (NULL, NULL),
    ('{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12}', 'sad')) v(u, m)$$);

-- JSON output of timedeltas: ISO 8601 durations (NaT is null)
SELECT sandbox_execute($$
import datetime
import numpy as np, pandas as pd
def main():
    return {"td": pd.Timedelta(days=1, hours=2, microseconds=3), "neg": pd.Timedelta(hours=-1),
            "dt": datetime.timedelta(minutes=90), "zero": pd.Timedelta(0),
            "np": np.timedelta64(1500, "ms"), "nat": pd.NaT,
            "series": pd.Series(pd.to_timedelta(["1 day", None])),
            "array": pd.to_timedelta(["00:00:01", "2 days"]).to_numpy()}
$$);
-- ... which cast back to the same intervals (negative ones included)
SELECT key, value ->> 'v' AS iso, (value ->> 'v')::interval AS iv, (value ->> 'v')::interval = (value ->> 'expected')::interval AS same
FROM jsonb_each(sandbox_execute($$
import datetime
import pandas as pd
def main():
    return {"a": {"v": pd.Timedelta(days=1, hours=2, microseconds=3), "expected": "1 day 02:00:00.000003"},
            "b": {"v": pd.Timedelta(hours=-1), "expected": "-01:00:00"},
            "c": {"v": -datetime.timedelta(days=3, seconds=1), "expected": "-3 days -00:00:01"},
            "d": {"v": pd.Timedelta(microseconds=-1), "expected": "-00:00:00.000001"}}
$$) -> 'main') ORDER BY key;
DROP DOMAIN jobject;

DROP TYPE mood;
DROP DOMAIN posint;
RESET DateStyle;
RESET IntervalStyle;

-- numeric[]: elements as floats, NaN and infinities too; Decimal in decimal mode
SELECT sandbox_execute($$
def main(df):
    return [None if row is None else [type(v).__name__ + ':' + str(v) for v in row] for row in df.n]
$$, '{"df": {"$query": "SELECT array[1.5, 2, 123456789012345678901234567890.1, ''NaN'', ''-Infinity'', NULL]::numeric[] n UNION ALL SELECT NULL"}}');
SELECT sandbox_execute($$
def main(df):
    return [None if row is None else [type(v).__name__ + ':' + str(v) for v in row] for row in df.n]
$$, '{"df": {"$query": "SELECT array[1.5, 2, 123456789012345678901234567890.1, ''NaN'', ''-Infinity'', NULL]::numeric[] n UNION ALL SELECT NULL"}}',
    options => '{"numeric": "decimal"}');
-- in float mode numeric's NaN arrives as a float NaN, and a float NaN
-- goes back NULL, as in a column (review 165 F1); decimal mode keeps it
SELECT t.n::text FROM sandbox_rows($$
def main(df):
    return df
$$, '{"df": {"$query": "SELECT array[1.5, ''NaN'', NULL]::numeric[] n"}}') AS t(n numeric[]);
-- in decimal mode numeric's NaN is Decimal('NaN'), and goes back as NaN
-- (a float's NaN is pandas' missing value: NULL)
SELECT t.x::text, t.y::text FROM sandbox_rows($$
import decimal
def main(df):
    df["y"] = [float("nan"), 2.5, None]
    return df
$$, '{"df": {"$query": "SELECT x FROM (VALUES (''NaN''::numeric), (3.14159), (NULL)) v(x)"}}',
    'main', '{"numeric": "decimal"}') AS t(x numeric, y numeric);
-- a text[] keeps its strings
SELECT sandbox_execute($$
def main(df):
    return [type(v).__name__ for v in df.t.iloc[0]]
$$, '{"df": {"$query": "SELECT array[''NaN'', ''1.5'']::text[] t"}}');

-- money arrives as its amount, as numeric does ('$1,234.50' was text: sum()
-- joined the strings), in a LANGUAGE argument too
SELECT sandbox_execute($$
def main(t):
    return [t.fee.dtype.name, float(t.fee.sum()), t.fee.tolist()]
$$, '{"t": {"$query": "SELECT fee::money AS fee FROM (VALUES (0.31), (1234.5), (NULL), (-2)) v(fee)"}}');
SELECT sandbox_execute($$
def main(t):
    return [str(x) for x in t.fee]
$$, '{"t": {"$query": "SELECT fee::money AS fee FROM (VALUES (0.31), (1234.5)) v(fee)"}}', '{main}',
   '{"numeric": "decimal"}');
CREATE FUNCTION types_fee_tax(fee money) RETURNS money LANGUAGE pysandbox AS $$ return fee * 1.19 $$;
SELECT types_fee_tax('10.00');
DROP FUNCTION types_fee_tax(money);
-- so do money[]'s elements, in every dimension (array_agg of a money column
-- came as strings "$12.50": review 115), as floats or Decimals
SELECT sandbox_execute($$
def main(t):
    return [repr(t.a[0]), repr(t.e[0]), repr(t.n[0]), float(sum(x for x in t.a[0] if x is not None))]
$$, '{"t": {"$query": "SELECT array_agg(f::money ORDER BY f) AS a, ''{}''::money[] AS e, ''[0:1][1:2]={{1,2},{3,NULL}}''::money[] AS n FROM (VALUES (0.31), (1234.5), (NULL), (-2)) v(f)"}}');
SELECT sandbox_run($$
def main(t):
    return [repr(x) for x in t.a[0]]
$$, '{"t": {"$query": "SELECT array[0.31, 1234.5]::money[] AS a"}}', '{main}',
   '{"numeric": "decimal"}')->'returns';
CREATE FUNCTION types_fees_total(fees money[]) RETURNS money LANGUAGE pysandbox AS $$ return sum(fees) $$;
SELECT types_fees_total(array[0.31, 1234.5]::money[]);
DROP FUNCTION types_fees_total(money[]);
-- ipaddress' objects are inet's and cidr's text (as uuid.UUID is uuid's), in
-- rows, JSON and sql() parameters; a memoryview is bytes; numpy's str_ and
-- datetime64 are parameters as their Python values are (review 58)
SELECT * FROM sandbox_rows($$
import ipaddress
def main():
    return [{"ip": ipaddress.ip_address("10.0.0.1"), "net": ipaddress.ip_network("10.2.0.0/16"),
             "b": memoryview(b"\x01\x02")}]
$$) AS t(ip inet, net cidr, b bytea);
SELECT sandbox_execute($$
import ipaddress
def main():
    return [ipaddress.ip_address("::1"), ipaddress.ip_interface("10.0.0.1/24"),
            ipaddress.ip_address('fe80::1%x", "injected": "1')]
$$);

-- a composite column arrives as a dict of its fields as row_to_json gives
-- them, as its arrays' elements already did (was the record's text: review
-- 58); whole-row references and ROW() too; sandbox_describe says so
CREATE TYPE ty_inner AS (a integer, b text);
CREATE TYPE ty_point AS (x numeric, d date, tags text[], inner_ ty_inner);
CREATE TABLE ty_points(id integer, p ty_point);
INSERT INTO ty_points VALUES (1, ROW(1.5, '2024-01-02', '{a,b}', ROW(7, 'q"x'))),
                             (2, NULL), (3, ROW(NULL, NULL, NULL, NULL));
SELECT sandbox_execute($$
def main(df):
    return [[type(v).__name__, v] for v in df.p] + [str(df.p.dtype), df.p[0]["inner_"]["b"],
                                                     df.whole[0]["p"]["x"] * 2, df.anon[0]]
$$, '{"df": {"$query": "SELECT p, t AS whole, ROW(id, ''x'') AS anon FROM ty_points t ORDER BY id"}}');
SELECT sandbox_describe('{"df": {"$table": "ty_points"}}') #> '{df,columns,1}';
-- in decimal mode a number with a fraction in jsonb, a composite, or an
-- array of them is a Decimal, as numeric's are (review 58: floats); an
-- integer stays an int
SELECT sandbox_execute($$
def main(df):
    return [repr(v) for v in df.iloc[0]]
$$, '{"df": {"$query": "SELECT p, ''{\"price\": 1.10, \"qty\": 3, \"l\": [0.1]}''::jsonb AS j, ARRAY[p] AS ps FROM ty_points WHERE id = 1"}}',
   '{main}', '{"numeric": "decimal"}');
DROP TABLE ty_points;
DROP TYPE ty_point, ty_inner;

-- bytea[] elements are bytes, as a bytea scalar is, whatever bytea_output
-- says (review 75: they were bytea's text, '\\x0102', 6 characters)
SELECT sandbox_execute($$
def main(df):
    return [[repr(v) for v in row] for row in df.b]
$$, '{"df": {"$query": "SELECT ARRAY[''\\x0102''::bytea, NULL, ''\\x5c61ff''::bytea] AS b UNION ALL SELECT ''{{\"\\\\x00\"},{\"\\\\x41\"}}''::bytea[]"}}');
SET bytea_output = escape;
SELECT sandbox_execute($$
def main(df):
    return [repr(v) for v in df.b[0]]
$$, '{"df": {"$query": "SELECT ARRAY[''\\x0102''::bytea, ''\\x5c61ff''::bytea] AS b"}}');
RESET bytea_output;

-- whole elements of float8[], float4[] and numeric[] arrive as floats:
-- as ints, numpy made the list int64 and its product wrapped without a
-- word (review 115 F2: 7.77e18 for four 100000s)
SELECT sandbox_execute($$
import numpy as np
def main(df):
    return [[str(np.array(v).dtype), float(np.prod(v)), repr(v[0])] for v in df.factors]
$$, '{"df": {"$query": "SELECT ''{100000,100000,100000,100000}''::float8[] AS factors UNION ALL SELECT ''{-0,2}''::float4[] UNION ALL SELECT ''{3,NaN}''::numeric[]"}}');

-- an interval's parts each carry their sign: under IntervalStyle
-- sql_standard a leading minus applied to the parts after it (review 115
-- F7: -1 month +1 day came back as -1 month -1 day)
SET IntervalStyle = 'sql_standard';
SELECT a, b, a = interval '-1 mon +1 day' AS a_ok, b = interval '-10 mons' AS b_ok
FROM sandbox_rows($$
import pandas as pd
from dateutil.relativedelta import relativedelta
def main():
    return [{"a": relativedelta(months=-1, days=+1), "b": pd.DateOffset(years=-1, months=2)}]
$$) AS r(a interval, b interval);
RESET IntervalStyle;

-- a date's text is read in DateStyle's order, as PostgreSQL reads it
-- (review 115 F6: month first whatever DateStyle said); ISO text is ISO
SET DateStyle = 'ISO, DMY';
SELECT '01/02/2024'::date AS postgres, d, t
FROM sandbox_rows($$
def main():
    return [{"d": "01/02/2024", "t": "2024-03-04 10:00"}]
$$) AS r(d date, t timestamp);
SELECT * FROM sandbox_rows($$
def main():
    return [{"d": "02/13/2024"}]
$$) AS r(d date);
-- text that begins with its year is read year first whatever DateStyle
-- (review 116 F1: dateutil read these as 1 February under DMY)
SELECT a, b, c FROM sandbox_rows($$
def main():
    return [{"a": "2024-01-02 10:00 UTC", "b": "2024/01/02 10:00 PM", "c": "2024-01-02"}]
$$) AS r(a timestamptz, b timestamp, c date);
SELECT * FROM sandbox_rows($$
def main():
    return [{"d": "2024-13-01"}]
$$) AS r(d date);
SET DateStyle = 'ISO, YMD';
SELECT '01/02/03'::date AS postgres, d
FROM sandbox_rows($$
def main():
    return [{"d": "01/02/03"}]
$$) AS r(d date);
RESET DateStyle;

-- money goes back with lc_monetary's decimal point, scalars, arrays and
-- fields alike: under de_DE, whose "." groups thousands, 1234.50 came
-- back as 12345.00 and 0.07 as 7.00 (review 115 F1)
SET lc_monetary = 'de_DE.UTF-8';
CREATE TYPE ty_fee AS (amount money, n int);
CREATE TABLE ty_acct(id int, bal money);
INSERT INTO ty_acct VALUES (1, 1234.5), (2, 0.07), (3, -2.5);
SELECT q.id, q.bal, q.bal = a.bal AS same
FROM sandbox_rows(NULL::ty_acct, $$
def main(t):
    return t
$$, '{"t": {"$table": "ty_acct"}}') AS q JOIN ty_acct a USING (id) ORDER BY id;
SELECT q.id, q.bal = a.bal AS same
FROM sandbox_rows(NULL::ty_acct, $$
def main(t):
    return t
$$, '{"t": {"$table": "ty_acct"}}', options => '{"numeric": "decimal"}') AS q
JOIN ty_acct a USING (id) ORDER BY id;
SELECT s, a, f FROM sandbox_rows($$
def main():
    return [{"s": 1234.5, "a": [0.07, 1234.5], "f": {"amount": 2.25, "n": 1}}]
$$) AS r(s money, a money[], f ty_fee);
-- a function's child kept for the statement's next rows is not kept
-- past a change of lc_monetary (review 116 F3: 1234.5 became 12345)
CREATE FUNCTION ty_ident_money(m numeric) RETURNS money LANGUAGE pysandbox AS $$ return m $$;
SELECT l, set_config('lc_monetary', l, false) = l AS set,
       ty_ident_money(1234.5)::numeric AS amount
FROM unnest(ARRAY['C', 'de_DE.UTF-8', 'C']) AS l;
DROP FUNCTION ty_ident_money(numeric);
RESET lc_monetary;
SELECT s FROM sandbox_rows($$
def main():
    return [{"s": 1234.5}]
$$) AS r(s money);
DROP TABLE ty_acct;
DROP TYPE ty_fee;

-- what Python cannot read or hold is said, with what to do (review 115
-- F10: 39000 "sandbox process failed", a hint to call
-- sys.set_int_max_str_digits() before the code ran, a bare OverflowError)
SELECT sandbox_execute('def main(df): return 1', jsonb_build_object('df',
    jsonb_build_object('$query', 'SELECT (repeat(''['', 1500) || repeat('']'', 1500))::jsonb AS j')));
SELECT sandbox_execute('def main(df): return 1', jsonb_build_object('df',
    jsonb_build_object('$query', 'SELECT repeat(''7'', 5000)::jsonb AS j')));
SELECT length(n::text), m FROM sandbox_rows($$
def main():
    return [{"n": 10**400, "m": 1}, {"m": 2, "n": 5}]
$$) AS r(n numeric, m int);
SELECT * FROM sandbox_rows($$
def main():
    return [{"n": 10**400}]
$$) AS r(n float8);
SELECT * FROM sandbox_rows($$
from decimal import Decimal
def main():
    return [{"n": Decimal("2.7")}]
$$) AS r(n int);

-- naive text in a timestamptz[] and a naive time into timetz are UTC, as
-- a scalar's are, whatever TimeZone (review 115 F8: the session's zone)
SET TimeZone = 'America/New_York';
SELECT scalar = arr[1] AS same, arr, tt FROM sandbox_rows($$
import datetime as dt
def main():
    return [{"scalar": "2024-07-01 12:00",
             "arr": ["2024-07-01 12:00", "2024-07-01 12:00+02", "infinity", None,
                     "2024-07-01T12:00:00.5"],
             "tt": dt.time(1, 2, 3)}]
$$) AS r(scalar timestamptz, arr timestamptz[], tt timetz);
-- a moment's time of day keeps the moment's offset, and a time in a named
-- zone (s.dt.timetz of pandas) that zone's offset then; a time with a
-- named zone and no date has none, and says so (review 151 F1: both were
-- read in the session's zone)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    s = pd.Series(pd.to_datetime(["2024-01-05 05:37:00"], utc=True)).dt.tz_convert("Asia/Kolkata")
    return pd.DataFrame({"a": s.dt.timetz, "b": s, "arr": [[s[0]]]})
$$) AS r(a timetz, b timetz, arr timetz[]);
SELECT * FROM sandbox_rows($$
import datetime, zoneinfo
def main():
    return [{"a": datetime.time(11, 7, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))}]
$$) AS r(a timetz);
-- ... and so has pandas' zone itself, not localized to a moment (review
-- 152 F4: its first offset, New York's local mean time -04:56)
SELECT * FROM sandbox_rows($$
import datetime, pandas as pd
def main():
    s = pd.Series(pd.to_datetime(["2024-01-05 05:37:00"], utc=True)).dt.tz_convert("America/New_York")
    return [{"a": datetime.time(9, 0, tzinfo=s.dt.tz)}]
$$) AS r(a timetz);
RESET TimeZone;

-- an interval in an array, a composite or a range arrives as the same text
-- whatever IntervalStyle says, and the session's style is left as it was
-- (review 118 F3: a range's in the session's)
CREATE TYPE ty_span AS (i interval, n int);
CREATE TYPE ty_spans AS RANGE (subtype = interval);
SET IntervalStyle = 'iso_8601';
SELECT sandbox_execute($$
def main(df):
    return [df.a[0], df.c[0], df.r[0]]
$$, '{"df": {"$query": "SELECT ARRAY[interval ''-1 mon +1 day -3 hours'', NULL] AS a, ROW(interval ''1 year -2 days'', 1)::ty_span AS c, ty_spans(''1 day'', ''2 days 03:00'') AS r"}}');
SELECT interval '-1 mon +1 day' AS still_iso_8601;
RESET IntervalStyle;
DROP TYPE ty_span;
DROP TYPE ty_spans;

-- NULLs stay missing in arithmetic between an integer column with NULLs
-- (Int64, NA) and a float one (NaN): pandas 1.5 kept the NaN as a value of
-- the Float64 result, which sum() did not skip (review 139 F1: revenue =
-- amount * qty summed to null where SQL gives the number)
CREATE TABLE ty_sales AS
  SELECT g AS id, CASE WHEN g % 5 = 0 THEN NULL ELSE g * 1.5 END::numeric AS amount,
         CASE WHEN g % 7 = 0 THEN NULL ELSE g % 4 END AS qty,
         CASE WHEN g % 2 = 0 THEN 'east' ELSE 'west' END AS region
  FROM generate_series(1, 40) g;
SELECT sandbox_execute($$
def main(sales):
    sales["revenue"] = sales.amount * sales.qty
    return {"dtypes": [str(sales.amount.dtype), str(sales.qty.dtype), str(sales.revenue.dtype)],
            "total": sales.revenue.sum(), "missing": int(sales.revenue.isna().sum()),
            "by_region": sales.groupby("region").revenue.sum(),
            "reversed": (sales.qty * sales.amount).sum()}
$$, '{"sales": {"$table": "ty_sales"}}');
SELECT sum(amount * qty) AS sql_total, count(*) FILTER (WHERE amount * qty IS NULL) AS sql_missing
FROM ty_sales;
SELECT region, sum(amount * qty) FROM ty_sales GROUP BY region ORDER BY region;
-- running aggregates skip the NULLs as SQL's window functions do (review
-- 159 F1: cummin() took the 0 under Int64's NA, cumsum() was NA for every
-- row after the first NULL), the NULL rows staying NULL
SELECT * FROM sandbox_rows($$
def main(s):
    s = s.sort_values("id")
    s["run_min"] = (s.qty + 1).cummin()
    s["run_max"] = s.qty.cummax()
    s["run_sum"] = s.qty.cumsum()
    s["run_east"] = (s.region == "east").astype("boolean").where(s.qty.notna()).cumsum()
    return s[["id", "qty", "run_min", "run_max", "run_sum", "run_east"]].head(16)
$$, '{"s": {"$table": "ty_sales"}}') AS t(id int, qty int, run_min int, run_max int, run_sum bigint, run_east bigint);
SELECT id, qty, min(qty + 1) OVER w AS run_min, max(qty) OVER w AS run_max, sum(qty) OVER w AS run_sum
FROM ty_sales WINDOW w AS (ORDER BY id) ORDER BY id LIMIT 16;
DROP TABLE ty_sales;
-- a float16 operand keeps pandas' own result (FloatingArray has no float16)
SELECT sandbox_execute($$
import numpy as np, pandas as pd
def main():
    qty = pd.Series([1, None, 3], dtype="Int64")
    price = pd.Series([1.5, 2.0, np.nan]).astype("float16")
    return str((qty * price).tolist())
$$);
