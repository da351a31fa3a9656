--
-- rows: sandbox_rows() (README: sandbox_rows), a Python function's DataFrame (or
-- Series, list of dicts, list of tuples) as a set of rows, and every type
-- of the README's Types table on the way back to PostgreSQL
--

-- output of date/time types does not depend on the test harness
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET TimeZone = 'UTC';

-- SQLSTATE and message of a query, plus the CONTEXT line naming the column
-- and row when there is one; 'ok' if it ran
CREATE FUNCTION pg_temp.sqlstate(query text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE s text; m text; c text;
BEGIN
    EXECUTE query;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, c = PG_EXCEPTION_CONTEXT;
    RETURN s || ': ' || m
        || coalesce(' [' || substring(c FROM '(column "[^\n]* of the result of [^\n]*)') || ']', '');
END $f$;
-- the same for sandbox_rows(code, inputs, 'main', options) AS t(coldef)
CREATE FUNCTION pg_temp.rows_error(coldef text, code text, inputs jsonb DEFAULT '{}',
                                   opts jsonb DEFAULT '{}') RETURNS text LANGUAGE sql AS $f$
    SELECT pg_temp.sqlstate(format('SELECT * FROM sandbox_rows(%L, %L::jsonb, %L, %L::jsonb) AS t(%s)',
                                   code, inputs, 'main', opts, coldef))
$f$;

--
-- the two forms
--

-- SETOF record with a column definition list
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b", None]})
$$) AS t(id int, name text);
-- a composite type: NULL::type gives the row type
CREATE TYPE rows_pair AS (id int, name text);
SELECT * FROM sandbox_rows(NULL::rows_pair, $$
def main():
    return [{"id": 1, "name": "x"}, {"id": 2, "name": None}]
$$);
-- the rows are values of the type
SELECT r, pg_typeof(r) FROM sandbox_rows(NULL::rows_pair, $$
def main():
    return [(1, "x")]
$$) AS r;
-- a table's row type
CREATE TABLE rows_target (id int PRIMARY KEY, label text, score float8, seen date);
SELECT * FROM sandbox_rows(NULL::rows_target, $$
import pandas as pd
def main():
    return pd.DataFrame({"seen": pd.to_datetime(["2024-01-02", None]), "score": [0.5, None],
                         "label": ["p", "q"], "id": [10, 20]})
$$);
-- the usual way to store the rows
INSERT INTO rows_target SELECT * FROM sandbox_rows(NULL::rows_target, $$
def main(n):
    return [(i, "row %d" % i, i / 4, None) for i in range(n)]
$$, '{"n": 3}');
SELECT * FROM rows_target ORDER BY id;
-- a dropped column is skipped: tuples give the live columns only
ALTER TABLE rows_target DROP COLUMN label;
SELECT * FROM sandbox_rows(NULL::rows_target, $$
def main():
    return [(1, 1.5, "2024-03-01"), (2, None, None)]
$$);
SELECT * FROM sandbox_rows(NULL::rows_target, $$
def main():
    return [{"id": 3, "label": "ignored", "score": -1.0, "seen": None}]
$$);
SELECT pg_temp.sqlstate($q$SELECT * FROM sandbox_rows(NULL::rows_target, 'def main(): return [(1, "x", 1.5, None)]')$q$);

-- arguments: string literals (the text overload) or jsonb expressions,
-- positional or named; func names the function to call; inputs bind to its
-- parameters by name
SELECT * FROM sandbox_rows('def main(n): return [(n, "lit")]', '{"n": 1}') AS t(n int, s text);
SELECT * FROM sandbox_rows('def main(n): return [(n, "lit")]', '{"n": 2}', 'main', '{"timeout_ms": 5000}') AS t(n int, s text);
SELECT * FROM sandbox_rows('def main(n): return [(n, "expr")]', jsonb_build_object('n', 3)) AS t(n int, s text);
SELECT * FROM sandbox_rows('def main(n): return [(n, "expr")]', jsonb_build_object('n', 4), 'main',
                           jsonb_build_object('timeout_ms', 5000)) AS t(n int, s text);
SELECT * FROM sandbox_rows('def main(): return [(5, "named")]', options => '{"timeout_ms": 5000}') AS t(n int, s text);
SELECT * FROM sandbox_rows($$
def helper(n):
    return n * 10
def main():
    return [(0, "main")]
def other(n, suffix="!"):
    return [(helper(n), "other" + suffix)]
$$, '{"n": 6}', 'other') AS t(n int, s text);
SELECT * FROM sandbox_rows('def pick(n): return [(n, "func =>")]', '{"n": 7}', func => 'pick') AS t(n int, s text);
SELECT * FROM sandbox_rows(NULL::rows_pair, 'def pick(n): return [(n, "typed")]', '{"n": 8}', 'pick');
SELECT * FROM sandbox_rows(NULL::rows_pair, 'def pick(n): return [(n, "typed")]', jsonb_build_object('n', 9),
                           func => 'pick', options => '{"timeout_ms": 5000}');
-- table inputs feed the function as DataFrames
CREATE TABLE rows_sales (region text, amount numeric, sold date);
INSERT INTO rows_sales VALUES ('n', 10, '2024-01-01'), ('n', 5.5, '2024-01-02'), ('s', 7, '2024-01-01'),
    ('e', 1, '2024-01-03'), ('e', 2, '2024-01-03'), ('e', 3, NULL);
SELECT * FROM sandbox_rows($$
def main(sales):
    return sales.groupby("region", as_index=False)["amount"].sum().sort_values("region")
$$, '{"sales": {"$table": "rows_sales"}}') AS t(region text, amount numeric);
SELECT * FROM sandbox_rows($$
def main(df, factor):
    return df.assign(doubled=df["amount"] * factor)
$$, '{"df": {"$query": "SELECT * FROM rows_sales WHERE region = $1 ORDER BY amount", "$params": ["e"]},
      "factor": 2}') AS t(sold date, doubled float8, region text);
-- print() still reaches the client
SELECT * FROM sandbox_rows($$
def main():
    print("making one row")
    return [(1,)]
$$) AS t(n int);
-- argument errors (22023, 22P02, 22004)
SELECT * FROM sandbox_rows('def main(): return []', '{}', 'not a name') AS t(n int);
SELECT * FROM sandbox_rows('def main(): return []', '{"n": ', 'main', '{}') AS t(n int);
SELECT * FROM sandbox_rows('def main(): return []', options => '{"rows": 5}') AS t(n int);
SELECT * FROM sandbox_rows(NULL, '{}') AS t(n int);
SELECT * FROM sandbox_rows(NULL::rows_pair, 'def main(): return []', NULL);
-- the function must exist and its parameters be bound (38000)
SELECT pg_temp.rows_error('n int', 'def other(): return []');
SELECT pg_temp.rows_error('n int', 'def main(x): return [(x,)]');
SELECT pg_temp.rows_error('n int', 'def main(): return [(1 / 0,)]');
-- the record form needs a column definition list
SELECT * FROM sandbox_rows('def main(): return []');
-- ... and so cannot be called in the select list; the typed form can
SELECT pg_temp.sqlstate($q$SELECT sandbox_rows('def main(): return []')$q$) NOT LIKE 'XX000%' AS not_internal_error;
SELECT sandbox_rows(NULL::rows_pair, 'def main(): return [(1, "a"), (2, None)]');
-- the row type must be composite
SELECT * FROM sandbox_rows(NULL::int, 'def main(): return [(1,)]');
SELECT pg_temp.sqlstate($q$SELECT * FROM sandbox_rows(NULL::text[], 'def main(): return []')$q$);

--
-- what the function may return
--

-- a list of dicts: keys in any order, a missing key is NULL, extra keys ignored
SELECT * FROM sandbox_rows($$
def main():
    return [{"b": "x", "a": 1}, {"a": 2}, {"b": "z", "extra": [1, 2]}]
$$) AS t(a int, b text);
-- a list of tuples or lists: positional, in the declared order
SELECT * FROM sandbox_rows($$
def main():
    return [(1, "x"), [2, None], (None, "z")]
$$) AS t(a int, b text);
-- a DataFrame: by name; extra columns ignored; the index is not a column
-- and its order is kept
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"a": [3, 1, 2], "b": ["z", "x", "y"], "unused": [{1, 2}, None, 1]},
                      index=[30, 10, 20])
    return df.sort_values("a")
$$) AS t(b text, a int);
-- names are matched exactly (quote mixed case); non-string labels by str()
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"A": [1], "a": [2], "Mixed Case": [3], 7: [4]})
$$) AS t("Mixed Case" int, a int, "A" int, "7" int);
-- a Series is a one-column frame named by the Series' name; an unnamed
-- one fills a one-column result, as a 1-D array does (review 105 F7)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.Series([1, None, 3], name="v")
$$) AS t(v int);
SELECT pg_temp.rows_error('v int', $$
import pandas as pd
def main():
    return pd.Series([1, 2])
$$);
-- a groupby result keeps its keys in the index; a non-default index becomes
-- leading columns (as with reset_index(), and as in sandbox_execute's JSON)
SELECT pg_temp.rows_error('region text, amount float8', $$
def main(df):
    return df.groupby("region")["amount"].sum()
$$, '{"df": {"$table": "rows_sales"}}');
SELECT * FROM sandbox_rows($$
def main(df):
    return df.groupby("region")["amount"].sum().reset_index()
$$, '{"df": {"$table": "rows_sales"}}') AS t(region text, amount float8) ORDER BY region;
-- an index level named like a column: dropped when it holds the column's
-- values (groupby().apply() keeps the key both ways), refused otherwise
-- (review 44: the whole index was dropped without a word)
SELECT * FROM sandbox_rows($$
def main(df):
    return df.groupby("region").apply(lambda g: g.nlargest(1, "amount"))
$$, '{"df": {"$table": "rows_sales"}}') AS t(region text, amount float8) ORDER BY region;
-- ... a key of a nullable type too (an integer column with NULLs is Int64)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"k": pd.array([1, 1, 2, None], dtype="Int64"), "amount": [1.0, 5.0, 3.0, 4.0]})
    return df.groupby("k").apply(lambda g: g.nlargest(1, "amount"))
$$) AS t(k int, amount float8) ORDER BY k;
SELECT * FROM sandbox_rows($$
def main(df):
    d = df.set_index("region")[["amount"]]
    d["region"] = "elsewhere"
    return d
$$, '{"df": {"$table": "rows_sales"}}') AS t(region text, amount float8);
SELECT sandbox_execute($$
import pandas as pd
def main():
    df = pd.DataFrame({"region": ["e", "e", "w"], "amount": [1, 5, 3]})
    return df.groupby("region").apply(lambda g: g.nlargest(1, "amount"))
$$);
-- no rows: an empty list or tuple, or a zero-row frame
SELECT * FROM sandbox_rows('def main(): return []') AS t(a int, b text, c date, d jsonb, e int[]);
SELECT * FROM sandbox_rows('def main(): return ()') AS t(a int);
SELECT * FROM sandbox_rows(NULL::rows_pair, 'def main(): return []');
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"a": [1], "b": ["x"]}).head(0)
$$) AS t(a int, b text);
SELECT * FROM sandbox_rows($$
def main(df):
    return df
$$, '{"df": {"$query": "SELECT 1::int AS a, ''x''::text AS b WHERE false"}}') AS t(b text, a int);
-- no rows: None, pd.DataFrame() (if df.empty: return pd.DataFrame()), and
-- a generator that yields none; a generator's dicts or tuples are rows
SELECT count(*) FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame()
$$) AS t(a int);
SELECT count(*) FROM sandbox_rows('def main(): return None') AS t(a int);
SELECT * FROM sandbox_rows($$
def main():
    return ({"a": i, "b": str(i)} for i in range(3) if i)
$$) AS t(a int, b text);
SELECT * FROM sandbox_rows('def main(): return zip(range(2), "xy")') AS t(a int, b text);
-- rows but no columns have none of the declared columns
SELECT pg_temp.rows_error('a int', $$
import pandas as pd
def main():
    return pd.DataFrame(index=range(2))
$$);
-- a composite type without columns: one empty row per row of the result
CREATE TYPE rows_nothing AS ();
SELECT * FROM sandbox_rows(NULL::rows_nothing, $$
import pandas as pd
def main():
    return pd.DataFrame(index=range(3))
$$);
SELECT count(*) FROM sandbox_rows(NULL::rows_nothing, $$
import pandas as pd
def main():
    return pd.DataFrame({"x": [1, 2]})
$$);
SELECT (SELECT count(*) FROM sandbox_rows(NULL::rows_nothing, 'def main(): return [(), ()]')) AS tuples,
       (SELECT count(*) FROM sandbox_rows(NULL::rows_nothing, 'def main(): return [{}, {}, {}]')) AS dicts;
-- a dict of lists is columns, as pd.DataFrame(d) takes it; any other dict is
-- one row (a group's summary), a list in it an array
SELECT * FROM sandbox_rows('def main(): return {"a": [1, 2], "b": ("x", "y")}') AS t(a int, b text);
SELECT * FROM sandbox_rows('def main(): return {"a": 1, "tags": ["x", "y"]}') AS t(a int, tags text[]);
SELECT pg_temp.rows_error('a int', 'def main(): return {"a": [1, 2], "b": [3]}');
-- single values are the rows of a one-column result; a 2-D array's rows
-- and a 1-D array's values are rows (review 48: all three were refused)
SELECT * FROM sandbox_rows('def main(): return ["north", None, "south"]') AS t(store text);
SELECT * FROM sandbox_rows($$
import numpy as np
def main():
    return np.column_stack([np.arange(3), np.arange(3) * 1.5])
$$) AS t(i int, x float8);
SELECT * FROM sandbox_rows('import numpy as np
def main(): return np.array([3, 1])') AS t(n int);
-- ... datetimes and timedeltas as such, a structured array's fields by name
-- (review 52: nanoseconds, and fields by position)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.Series(pd.to_timedelta(["5min", None])).values
$$) AS t(took interval);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.to_datetime(["2024-01-02 03:04:05.5"]).values
$$) AS t(at timestamp);
SELECT * FROM sandbox_rows($$
import numpy as np
def main():
    return np.array([(1, 2), (3, 4)], dtype=[("b", "i8"), ("a", "i8")])
$$) AS t(a int, b int);
SELECT pg_temp.rows_error('a int, b int', 'def main(): return [1, 2]');
-- anything else is 42804 (one value is a one-column result's row)
SELECT pg_temp.rows_error('a int', 'def main(): return 5');
SELECT pg_temp.rows_error('a int', 'def main(): return [{"a": 1}, (2,)]');
SELECT pg_temp.rows_error('a int', 'def main(): return [(1,), 2]');
SELECT * FROM sandbox_rows('def main(): return 5') AS t(a int);
SELECT pg_temp.rows_error('a int', 'def main(): return {1, 2}');

--
-- integers: range-checked for the declared type
--
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({
        "i2": [-32768, 32767, 0],
        "i4": np.array([-2147483648, 2147483647, 0], dtype=np.int32),
        "i8": [-9223372036854775808, 9223372036854775807, 0],
        "nullable": pd.array([1, None, 3], dtype="Int64"),
        "from_float": [1.0, np.nan, -3.0],
        "from_objects": [np.int16(5), None, 2**40],
        "from_uint8": np.array([0, 255, 7], dtype=np.uint8),
    })
$$) AS t(i2 int2, i4 int4, i8 int8, nullable int4, from_float int8, from_objects int8, from_uint8 int2);
-- NaN, None, NaT and NA are NULL
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return [{"a": None}, {"a": np.nan}, {"a": pd.NA}, {"a": pd.NaT}, {"a": 4}]
$$) AS t(a int);
-- out of range for the declared type: 22003, naming column and row
SELECT * FROM sandbox_rows('def main(): return [{"a": 1}, {"a": 32768}]') AS t(a int2);
SELECT pg_temp.rows_error('a int2', 'def main(): return [(-32769,)]');
SELECT pg_temp.rows_error('a int4', 'def main(): return [(1,), (2,), (-2**31 - 1,)]');
SELECT pg_temp.rows_error('a int4', 'import numpy as np
def main(): return [(np.int64(2**31),)]');
-- beyond 64 bits, however the value is held: 22003, as for the narrower
-- integers (never wrapped around; review 71: it was 42804)
SELECT pg_temp.rows_error('a int8', 'def main(): return [(2**64,)]');
SELECT pg_temp.rows_error('a int8', 'def main(): return [(2**63,)]');
SELECT pg_temp.rows_error('a int8', 'def main(): return [{"a": 1}, {"a": 2**63}]');
SELECT pg_temp.rows_error('a int8', $$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"a": np.array([1, 2**63 + 5], dtype=np.uint64)})
$$);
-- pandas' nullable UInt64 too (review 100: 2**63 was stored as -2**63);
-- its elements (np.ulonglong) into numeric
SELECT pg_temp.rows_error('a int8', $$
import pandas as pd
def main():
    return pd.DataFrame({"a": pd.array([None, 2**63], dtype="UInt64")})
$$);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"a": pd.array([2**64 - 1, None], dtype="UInt64")})
$$) AS t(a numeric);
-- a float must be integral: 42804, naming column and row
SELECT * FROM sandbox_rows('def main(): return [{"a": 1}, {"a": 2.5}]') AS t(a int);
SELECT pg_temp.rows_error('a int8', 'def main(): return [(float("inf"),)]');
SELECT pg_temp.rows_error('a int8', 'def main(): return [(1e19,)]');
SELECT pg_temp.rows_error('a int4', 'def main(): return [(1,), ("2 apples",)]');

--
-- float4, float8: NaN is NULL (pandas' missing value); infinities stay
--
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"f8": [1.5, np.nan, np.inf, -np.inf, None, 0.1, -0.0],
                         "f4": [1.5, np.nan, np.inf, -np.inf, None, 0.1, 3.4e38],
                         "from_int": [1, 2, 3, 4, 5, 2**53, -7],
                         "objects": [np.float32(0.5), None, float("inf"), pd.NA, True, 7, np.nan]})
$$) AS t(f8 float8, f4 float4, from_int float8, objects float8);
SELECT f8 = 'Infinity'::float8 AS pos_inf, f8 = '-Infinity'::float8 AS neg_inf, f8 IS NULL AS is_null
FROM sandbox_rows('def main(): return [(float("inf"),), (float("-inf"),), (float("nan"),)]') AS t(f8 float8);
-- too large or too small for real: 22003, as float8::real (review 104:
-- 1e-50 was stored as 0)
SELECT * FROM sandbox_rows('def main(): return [(1.0,), (1e300,)]') AS t(f4 real);
SELECT * FROM sandbox_rows('def main(): return [(1.0,), (1e-50,)]') AS t(f4 real);
SELECT * FROM sandbox_rows('def main(): return [(1e-40,), (0.0,), (-0.0,)]') AS t(f4 real);
SELECT pg_temp.rows_error('f float8', 'def main(): return [("1.5 kg",)]');

--
-- numeric: travels as text: floats as float8::numeric makes them (15
-- significant digits: 0.1 + 0.2 is 0.3; whole ones exactly as integers),
-- ints and Decimals exactly; a float's NaN is NULL (pandas' missing
-- value), a Decimal's NaN is NaN
--
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"n": [1.5, 0.1 + 0.2, np.nan, np.inf, -np.inf, None, 123456789.123456789]})
$$) AS t(n numeric);
-- from 1e15 on, the nearest whole number, every digit (2^53; an id pandas
-- made float), and in order (review 98),
-- float32 as float4::numeric (6 digits), numeric[] elements and a language
-- function's numeric result as float8::numeric
SELECT n, n > lag(n) OVER (ORDER BY ord) AS ascending FROM sandbox_rows($$
def main():
    return [(1, 999999999999999.9), (2, 1234567890123456.5), (3, 1234567890123457.0),
            (4, 2.0 ** 53 - 1), (5, 2.0 ** 53), (6, 2.0 ** 53 + 2)]
$$) AS t(ord int, n numeric);
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"n": [2.0 ** 53, 1e20, 23.788099999999996],
                         "f4": np.array([0.1, 2.5, 1 / 3], dtype=np.float32),
                         "arr": [[0.1 + 0.2, 1 / 3], [], None]})
$$) AS t(n numeric, f4 numeric, arr numeric[]);
CREATE FUNCTION pg_temp.third(x float8) RETURNS numeric LANGUAGE pysandbox AS 'return x / 3';
SELECT pg_temp.third(1), (1 / 3::float8)::numeric AS same_as_the_cast;
-- a language function's scalar float NaN is NULL, as a column's is (review
-- 165 F1: it was numeric's NaN, review 98, and a float column's NULLs came
-- back NaN); the text 'NaN' is numeric's NaN
CREATE FUNCTION pg_temp.nan_numeric(t boolean) RETURNS numeric LANGUAGE pysandbox AS $$
import numpy as np
return "NaN" if t else np.float64("nan")
$$;
SELECT pg_temp.nan_numeric(false), pg_temp.nan_numeric(false) IS NULL AS is_null,
       pg_temp.nan_numeric(true) AS the_text;
-- a domain is written as its base type (review 98: an array of a domain
-- over numeric kept the float's repr, and a naive datetime in an array of
-- a domain over timestamptz was read in the session's zone, not as UTC);
-- a float NaN element is NULL there as in any array (review 165 F1)
CREATE DOMAIN pg_temp.dnum AS numeric;
CREATE DOMAIN pg_temp.dnums AS numeric[];
CREATE DOMAIN pg_temp.dmoment AS timestamptz;
CREATE TYPE pg_temp.dpair AS (n pg_temp.dnum, ns pg_temp.dnum[]);
SET timezone = 'America/New_York';
SELECT * FROM sandbox_rows($$
import datetime
def main():
    return [([0.1 + 0.2, float("nan"), None], 0.1 + 0.2, [1 / 3, float("nan")],
             [datetime.datetime(2020, 1, 1, 12)], (0.1 + 0.2, [0.1 + 0.2]))]
$$) AS t(a pg_temp.dnum[], b pg_temp.dnum, c pg_temp.dnums, m pg_temp.dmoment[],
         p pg_temp.dpair);
SET TimeZone = 'UTC';
SELECT * FROM sandbox_rows($$
import decimal
def main():
    D = decimal.Decimal
    return [(D("12345678901234567890.123456789"),), (D("0.1"),), (D("-1E-20"),), (D("NaN"),),
            (D("Infinity"),), (None,), (2**70,), (-5,)]
$$) AS t(n numeric);
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"n": np.array([9007199254740993, -9223372036854775807], dtype=np.int64)})
$$) AS t(n numeric);
-- numeric arrives as Decimal on request and goes back unchanged
SELECT n, n = 12345678901234567890.123456789 AS exact FROM sandbox_rows($$
def main(df):
    return df
$$, '{"df": {"$query": "SELECT 12345678901234567890.123456789::numeric AS n"}}', 'main',
    '{"numeric": "decimal"}') AS t(n numeric);
-- the declared precision and scale apply, as for any other input
SELECT * FROM sandbox_rows('def main(): return [(3.14159,), (-2.5,), (None,)]') AS t(n numeric(5,2));
SELECT pg_temp.rows_error('n numeric(5,2)', 'def main(): return [(1,), (12345.678,)]');
SELECT pg_temp.rows_error('n numeric(5,2)', 'import decimal
def main(): return [(decimal.Decimal("999.999"),)]');
-- a numeric column reads strings through numeric_in
SELECT pg_temp.rows_error('n numeric', 'def main(): return [("1.5",)]');

--
-- bool
--
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"b": [True, False, True, False],
                         "nullable": pd.array([True, None, False, None], dtype="boolean"),
                         "objects": [np.bool_(True), None, np.nan, False]})
$$) AS t(b bool, nullable bool, objects bool);
SELECT pg_temp.rows_error('b bool', 'def main(): return [(True,), (2,)]');
SELECT pg_temp.rows_error('b bool', 'def main(): return [("maybe",)]');

--
-- text and other types that go through the type's input function
--
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({
        "t": ["plain", "\"quote\" \\ ünï 日本 😀", "", None, np.nan],
        "s": pd.array(["a", None, "c", "d", None], dtype="string"),
        "c": pd.Categorical(["x", "y", None, "x", "y"]),
        "from_int": [1, 2, 3, 4, -5],
        "from_float": [1.5, np.nan, 3.0, -0.25, 1e20],
        "from_bool": [True, False, None, True, np.bool_(False)],
    })
$$) AS t(t text, s text, c text, from_int text, from_float text, from_bool text);
-- varchar(n), char(n), name: the type's input applies its typmod
SELECT v, c, length(c) AS c_len, octet_length(c) AS c_octets, n
FROM sandbox_rows('def main(): return [("abc", "ab", "name")]') AS t(v varchar(3), c char(4), n name);
SELECT pg_temp.rows_error('v varchar(3)', 'def main(): return [("abc",), ("abcd",)]');
-- dicts and lists in a text column become their JSON text
SELECT * FROM sandbox_rows('def main(): return [({"k": [1, None]},)]') AS t(t text);
-- bytes must be decoded first; NUL characters and lone surrogates are refused
SELECT pg_temp.rows_error('t text', 'def main(): return [(b"raw",)]');
SELECT pg_temp.rows_error('t text', 'def main(): return [("ok",), ("nul\0inside",)]');
SELECT * FROM sandbox_rows('def main(): return [("nul\0inside",)]') AS t(t text);
SELECT pg_temp.rows_error('t text', 'def main(): return [("\ud800",)]');
-- a value of no known type is 42804
SELECT pg_temp.rows_error('t text', 'def main(): return [(object(),)]');
-- a column of periods, intervals, dtypes or sets: the same text forms as JSON
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"p": pd.period_range("2024-01", periods=2, freq="M"),
                         "i": pd.interval_range(0, 2),
                         "d": [pd.Series([1]).dtype, pd.Series(["a"]).dtype],
                         "s": [{2, 1}, frozenset({"b", "a"})]})
$$) AS t(p text, i text, d text, s text[]);

-- uuid and enum from str
CREATE TYPE rows_mood AS ENUM ('sad', 'ok', 'happy');
SELECT * FROM sandbox_rows($$
def main():
    return [("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "happy"),
            ("{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}", "sad"),
            (None, None)]
$$) AS t(u uuid, m rows_mood);
SELECT * FROM sandbox_rows('def main(): return [("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",), ("not-a-uuid",)]') AS t(u uuid);
-- uuid.UUID objects, in a uuid column and as JSON; pandas' and dateutil's
-- relative offsets in an interval column; a value that fits no column names
-- the column's type
SELECT * FROM sandbox_rows($$
import uuid
import pandas as pd
from dateutil.relativedelta import relativedelta
def main():
    return [(uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), pd.DateOffset(months=1, days=2),
             relativedelta(years=1, weeks=2, hours=3), pd.DateOffset(months=2) * 3)]
$$) AS t(u uuid, a interval, b interval, c interval);
SELECT sandbox_execute($$
import uuid
def main():
    return [uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")]
$$);
SELECT pg_temp.rows_error('a inet', 'def main(): return [(object(),)]');
-- a composite column from a dict (by field), a namedtuple or a tuple
SELECT k, p, (p).name IS NULL AS name_null FROM sandbox_rows($$
import collections
def main():
    Named = collections.namedtuple("Named", "name id")
    return [{"k": 1, "p": {"id": 1, "name": 'a "q" b'}}, {"k": 2, "p": (2, "b,c")},
            {"k": 3, "p": Named("z", 3)}, {"k": 4, "p": (4, "")}, {"k": 5, "p": {"id": 5}},
            {"k": 6, "p": None}]
$$) AS t(k int, p rows_pair);
SELECT pg_temp.rows_error('p rows_pair', 'def main(): return [((1, "a", 3),)]');
-- a 0-d numpy array is its value
SELECT sandbox_execute($$
import numpy as np
def main():
    return {"f": np.array(5.5), "s": np.array("x"), "i": np.array(3), "n": np.array(None)}
$$);
SELECT pg_temp.rows_error('m rows_mood', 'def main(): return [("ok",), ("angry",)]');
-- other types through their input function
SELECT * FROM sandbox_rows($$
import datetime
def main():
    return [("10.0.0.1/8", datetime.time(12, 30, 1), "[1,5)", "(1,2)", 1.5, "x=>1"),
            (None, "23:59", "empty", None, None, None)]
$$) AS t(ip inet, tm time, r int4range, pt point, m money, h text);
SELECT pg_temp.rows_error('r int4range', 'def main(): return [("[5,1)",)]');

--
-- date: date-like values, whole days (times are truncated, towards the past
-- before 1970 too)
--
SELECT * FROM sandbox_rows($$
import datetime
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({
        "frame": pd.to_datetime(["2024-02-29", "1969-12-31 23:59:59.999999", "1900-02-28 12:00", None, "1677-09-22"]),
        "objects": pd.Series([datetime.date(2024, 7, 1), datetime.datetime(1960, 6, 15, 18, 0), "1901-12-13",
                              pd.NaT, np.datetime64("1970-01-01T00:00:01")], dtype=object),
    })
$$) AS t(frame date, objects date);
-- a time zone-aware value gives its own day, as .date() does: daily totals
-- made in a zone keep their days (review 48: they came back a day early,
-- UTC's day of local midnight), in a frame or as objects, in range or not
SELECT * FROM sandbox_rows($$
import datetime
import pandas as pd
def main():
    days = pd.date_range("2024-07-01", periods=2, tz="Europe/Berlin")
    east = datetime.timezone(datetime.timedelta(hours=5))
    return pd.DataFrame({
        "d": pd.to_datetime(["2024-07-01 23:00", "2024-07-02 00:30"]).tz_localize("America/New_York"),
        "berlin": days,
        "objects": pd.Series([datetime.datetime(2024, 7, 1, 1, tzinfo=east),
                              datetime.datetime(3000, 7, 1, 1, tzinfo=east)], dtype=object),
    })
$$) AS t(d date, berlin date, objects date);
-- a Period is its start (a month, a quarter), in a date or timestamp column
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return [(pd.Period("2024-03", "M"), pd.Period("2024Q2", "Q"))]
$$) AS t(month date, quarter timestamp);
-- bytes (numpy's too) into bytea and bytea[]; in jsonb[] a list next to
-- other JSON values is a JSON array (all lists: a dimension); a declared
-- column the frame has twice is refused, as sandbox_execute refuses it
-- (review 71)
SELECT * FROM sandbox_rows($$
import numpy as np
def main():
    return [([b"ab", None, np.bytes_(b"c")], [{"a": 1}, [1, 2], '"x"'], [[1, 2], [3, 4]], np.bytes_(b"z"))]
$$) AS t(b bytea[], j jsonb[], dims jsonb[], s bytea);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame([[1, 2]], columns=["a", "a"])
$$) AS t(a int);
-- ... a NULL next to a list: the list is a JSON value (review 72)
SELECT * FROM sandbox_rows('def main(): return [([None, [1]],)]') AS t(j jsonb[]);
-- text too long to be a date/time is refused at once (review 72)
SELECT * FROM sandbox_rows('def main(): return [("2024-01-01" * 100,)]') AS t(ts timestamptz);
-- not a date: 42804, naming column and row
SELECT * FROM sandbox_rows('def main(): return [("2024-01-01",), ("2024-13-01",)]') AS t(d date);
-- text is read as pandas reads it (ISO 8601, "Mar 5, 2024", 01/02 month
-- first), but not where pandas would guess: a zone name it does not know
-- ("10:00 PST" was 10:00 UTC) or a day-first date (review 71)
SELECT * FROM sandbox_rows($$
def main():
    return [("2024-03-05T10:00:00-08:00", "Mar 5, 2024"), ("2024-03-05 10:00Z", "01/02/2024")]
$$) AS t(ts timestamptz, d date);
SELECT * FROM sandbox_rows('def main(): return [("2024-03-05 10:00 PST",)]') AS t(ts timestamptz);
SELECT * FROM sandbox_rows('def main(): return [("01/02/2024",), ("13/02/2024",)]') AS t(d date);
SELECT pg_temp.rows_error('d date', 'def main(): return [(20240101,)]');
-- "infinity" and "-infinity" are PostgreSQL's infinite dates and
-- timestamps, as its input reads them (case and spaces too); nothing else
-- near them is
SELECT d, ts, tz, isfinite(d) AS finite FROM sandbox_rows($$
def main():
    return [("infinity", " -Infinity ", "+infinity"), ("-infinity", "infinity", "-INFINITY"),
            ("2024-01-02", "2024-01-02 10:00", None)]
$$) AS t(d date, ts timestamp, tz timestamptz);
SELECT * FROM sandbox_rows('def main(): return [("infinite",)]') AS t(d date);
-- dates and times outside pandas' range (about 1677 to 2262) are returned
-- as they are, aware ones in UTC
SELECT * FROM sandbox_rows($$
import datetime
def main():
    utc, east = datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=5))
    return [(datetime.date(1500, 1, 1), datetime.datetime(3000, 1, 1, 12), datetime.datetime(1, 1, 1, tzinfo=utc)),
            (datetime.date(9999, 12, 31), datetime.datetime(1600, 2, 29, 23, 59, 59, 999999), datetime.datetime(2999, 1, 1, 3, tzinfo=east)),
            (None, None, None)]
$$) AS t(d date, ts timestamp, tz timestamptz);
-- ... and ISO 8601 text of them (review 151 F2: "9999-12-31", an open
-- end, said only that it did not fit); other text says what is read
SELECT * FROM sandbox_rows($$
def main():
    return [("9999-12-31", "2500-01-01 00:00", "1200-05-05 10:00+02"),
            (" 0001-01-01 ", "1600-02-29T23:59:59.5", "3000-01-01")]
$$) AS t(d date, ts timestamp, tz timestamptz);
SELECT * FROM sandbox_rows('def main(): return [("05/05/1200",)]') AS t(d date);

--
-- timestamp: wall-clock time; an aware value's own wall clock, as
-- tz_localize(None) and PostgreSQL's input of "12:00+02" give it, and as
-- its day goes into a date column (review 50: it was UTC's clock, so one
-- value gave a date and a timestamp of different days)
--
SELECT * FROM sandbox_rows($$
import datetime
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({
        "frame": pd.to_datetime(["2024-02-29 13:45:01.123456", "1969-12-31 23:59:59.999999", None, "1677-09-22 00:00"]),
        "objects": pd.Series([datetime.datetime(1960, 1, 1, 0, 0, 0, 1), "2024-07-01 12:00:00+02",
                              pd.Timestamp("2024-07-01 12:00", tz="Asia/Kolkata"), None], dtype=object),
    })
$$) AS t(frame timestamp, objects timestamp);
-- the declared precision applies
SELECT * FROM sandbox_rows('def main(): return [("2024-01-01 10:00:00.7",), ("2024-01-01 10:00:00.2",)]') AS t(ts timestamp(0));
SELECT pg_temp.rows_error('ts timestamp', 'def main(): return [("yesterday-ish",)]');

--
-- arrays' elements as the scalars: into timestamptz[] a naive value is UTC,
-- whatever the session's zone (review 51: the element's text was read in
-- the session's zone); into timestamp[] an aware one is its wall clock
SET timezone = 'Asia/Tokyo';
SELECT tz::text[] = ARRAY['2024-01-01 21:00:00+09', '2024-01-01 20:00:00+09'] AS instants_ok,
       ts, d
FROM sandbox_rows($$
import datetime, pandas as pd
def main():
    naive = datetime.datetime(2024, 1, 1, 12)
    aware = pd.Timestamp("2024-01-01 12:00", tz="Europe/Berlin")
    return [([naive, aware], [naive, aware], [aware])]
$$) AS t(tz timestamptz[], ts timestamp(0)[], d date[]);
SET TimeZone = 'UTC';
-- timestamptz: an aware value is that instant; a naive one is taken as UTC
-- (as pandas does, and as timestamptz inputs arrive), whatever the session
-- TimeZone
--
CREATE FUNCTION pg_temp.instants() RETURNS TABLE (naive timestamptz, paris timestamptz, utc timestamptz,
                                                  objects timestamptz) LANGUAGE sql AS $f$
    SELECT * FROM sandbox_rows($$
import datetime
import pandas as pd
def main():
    naive = pd.to_datetime(["2024-07-01 12:00", "1965-03-04 05:06:07.000008", None])
    return pd.DataFrame({
        "naive": naive,
        "paris": naive.tz_localize("Europe/Paris"),
        "utc": naive.tz_localize("UTC"),
        "objects": [datetime.datetime(2024, 7, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=5))),
                    "2024-07-01 12:00:00-03:30", datetime.datetime(2024, 7, 1, 12, 0)],
    })
$$) AS t(naive timestamptz, paris timestamptz, utc timestamptz, objects timestamptz)
$f$;
SELECT * FROM pg_temp.instants();
SET TimeZone = 'America/New_York';
SELECT * FROM pg_temp.instants();
SET TimeZone = 'Asia/Kolkata';
SELECT * FROM pg_temp.instants();
-- the same instants, compared rather than printed
SELECT naive = '2024-07-01 12:00+00' AS naive_is_utc, paris = '2024-07-01 10:00+00' AS paris_ok,
       utc = '2024-07-01 12:00+00' AS utc_ok, objects = '2024-07-01 07:00+00' AS aware_ok
FROM pg_temp.instants() LIMIT 1;
SET TimeZone = 'UTC';
-- out of PostgreSQL's range cannot happen (pandas' range is narrower);
-- not a time: 42804
SELECT pg_temp.rows_error('ts timestamptz', 'def main(): return [(1.5,)]');

--
-- interval: Timedeltas (and str in interval syntax)
--
SELECT iv, iv = '1 day 02:00:00.000003' AS same FROM sandbox_rows($$
import datetime
import numpy as np, pandas as pd
def main():
    return [(pd.Timedelta(days=1, hours=2, microseconds=3),), (datetime.timedelta(days=-40, seconds=5),),
            ("1 mon 2 days",), (pd.NaT,), (None,), (pd.Timedelta(0),), (np.timedelta64(90, "m"),)]
$$) AS t(iv interval);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"iv": pd.to_timedelta(["1 day", None, "-00:00:01.5", "400 days"])})
$$) AS t(iv interval);
-- an interval input comes back as the same length of time (a month is 30 days)
SELECT iv, iv = '1 year 2 mons 3 days 04:05:06.000007'::interval AS same FROM sandbox_rows($$
def main(df):
    return df
$$, '{"df": {"$query": "SELECT ''1 year 2 mons 3 days 04:05:06.000007''::interval AS iv"}}') AS t(iv interval);
SELECT pg_temp.rows_error('iv interval', 'def main(): return [("forever",)]');

--
-- json and jsonb: Python values as JSON; a str is JSON text
--
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return [({"a": 1, "b": [1, 2.5, None, "x"]}, {"b": [True, None], "a": 1}),
            ([1, "two"], []),
            ('"already json"', 5),
            (None, float("nan")),
            ({"nested": {"k": "ünï"}}, {"n": np.int64(3), "f": np.nan, "t": pd.Timestamp("2024-01-01"),
                                         "arr": np.arange(3), "tuple": (1, 2)}),
            (True, 1.5)]
$$) AS t(j json, jb jsonb);
SELECT jb -> 'nested' ->> 'k' AS k FROM sandbox_rows('def main(): return [({"nested": {"k": "ünï 日本"}},)]') AS t(jb jsonb);
SELECT pg_temp.rows_error('jb jsonb', 'def main(): return [({"ok": 1},), ("not json",)]');
SELECT pg_temp.rows_error('jb jsonb', 'def main(): return [({"x": object()},)]');
-- whatever sandbox_execute returns as jsonb goes in a jsonb column the same way:
-- a DataFrame per group (its rows), a Series (an object)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"dept": ["a", "b", "a"], "name": ["x", "y", "z"], "pay": [1, 2, 3]})
    return [(k, g[["name", "pay"]], g.set_index("name")["pay"]) for k, g in df.groupby("dept")]
$$) AS t(dept text, people jsonb, pay jsonb);

--
-- arrays: lists (or tuples, numpy arrays), NULL elements from None/NaN,
-- nested lists for more dimensions
--
SELECT * FROM sandbox_rows($$
import numpy as np
def main():
    return [([1, 2, None], ["a", None, "b,c", 'q"uote', "back\\slash", "NULL", "", " sp ", "{}"]),
            ([], []),
            (None, None),
            (np.array([4, 5]), ("x", "y")),
            ([np.int64(7), float("nan")], ["日本"])]
$$) AS t(i int[], t text[]);
SELECT i, array_dims(i) AS dims, i[2][1] AS i21 FROM sandbox_rows($$
def main():
    return [([[1, 2], [3, None]],), ([[[1], [2]], [[3], [4]]],)]
$$) AS t(i int[][]);
SELECT * FROM sandbox_rows($$
import datetime
def main():
    return [([1.5, float("inf"), None], [datetime.date(2024, 1, 2), None], [True, False], ["ok", "sad"])]
$$) AS t(f float8[], d date[], b bool[], m rows_mood[]);
-- MultiIndex columns (agg with lists) match by their levels joined with
-- commas, as JSON names them, or with underscores; an empty last level
-- (the index made a column) is dropped (review 100: not found)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"region": ["e", "w", "e"], "amount": [1.0, 2.0, 3.0], "qty": [1, 2, 3]})
    return df.groupby("region").agg({"amount": ["sum", "mean"], "qty": "max"})
$$) AS t(region text, amount_sum numeric, "amount,mean" float8, qty_max int);
-- a dict of flat lists for array columns is one row of arrays (review
-- 100: read as columns, "malformed array literal"); lists of lists stay
-- columns, and so do empty lists (no rows)
SELECT * FROM sandbox_rows($$
def main():
    return {"top_ids": [1, 2, 3], "top_amounts": [1.5, 2.5, 3.5]}
$$) AS t(top_ids int[], top_amounts numeric[]);
SELECT * FROM sandbox_rows($$
def main():
    return {"top_ids": [[1, 2], [3]], "top_amounts": [[1.5], [2.5, 3.5]]}
$$) AS t(top_ids int[], top_amounts numeric[]);
SELECT count(*) FROM sandbox_rows($$
def main():
    return {"top_ids": [], "top_amounts": []}
$$) AS t(top_ids int[], top_amounts numeric[]);
-- array literals in text are each a row's array (review 101)
SELECT * FROM sandbox_rows($$
def main():
    return {"tags": ["{a,b}", "{c}"]}
$$) AS t(tags text[]);
-- a Series or an Index is its values, as an ndarray (review 94: refused)
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    s = pd.Series([3, 1, 2], index=["c", "a", "b"])
    df = pd.DataFrame({"x": [1.5, 2.5]}, index=pd.date_range("2024-01-01", periods=2))
    return [(s.sort_values(), s.index, pd.Series([0.5, float("nan")]),
             pd.RangeIndex(3), df.index, [pd.Series([1, 2]), pd.Series([3, 4])])]
$$) AS t(i int[], t text[], f float8[], r int[], d date[], n int[][]);
-- errors come from the element type's input
SELECT pg_temp.rows_error('i int[]', 'def main(): return [([[1, 2], [3]],)]');
SELECT pg_temp.rows_error('i int[]', 'def main(): return [([1, 2.5],)]');
SELECT pg_temp.rows_error('i int2[]', 'def main(): return [([1, 70000],)]');

--
-- bytea: bytes (a str is bytea's text form)
--
SELECT * FROM sandbox_rows($$
def main():
    return [(b"\x00\xff\\abc",), (b"",), (None,), (bytearray(b"xy"),), ("\\x4142",)]
$$) AS t(b bytea);
SELECT octet_length(b) AS len, md5(b) = md5(decode(repeat('00ff', 50000), 'hex')) AS same
FROM sandbox_rows('def main(): return [(bytes([0, 255]) * 50000,)]') AS t(b bytea);

--
-- domains: the base type's conversion, then the domain's constraints
--
CREATE DOMAIN rows_posint AS int CHECK (VALUE > 0);
CREATE DOMAIN rows_code AS text CHECK (VALUE ~ '^[A-Z]{2}$');
CREATE DOMAIN rows_required AS text NOT NULL;
CREATE DOMAIN rows_moment AS timestamptz;
SELECT * FROM sandbox_rows($$
def main():
    return [(1, "FR", "a"), (None, None, "b"), (42, "DE", "")]
$$) AS t(p rows_posint, c rows_code, r rows_required);
SELECT pg_temp.rows_error('p rows_posint', 'def main(): return [(1,), (0,)]');
SELECT * FROM sandbox_rows('def main(): return [("FR",), ("fr",)]') AS t(c rows_code);
SELECT pg_temp.rows_error('r rows_required', 'def main(): return [("a",), (None,)]');
SELECT * FROM sandbox_rows('def main(): return [("a",), (None,)]') AS t(r rows_required);
-- a domain accepts what its base type accepts
SELECT * FROM sandbox_rows($$
import numpy as np, pandas as pd
def main():
    return pd.DataFrame({"p": [1.0, np.nan, 3.0]})
$$) AS t(p rows_posint);
SET TimeZone = 'America/New_York';
SELECT d = b AS same_as_base_type FROM sandbox_rows($$
import pandas as pd
def main():
    ts = pd.to_datetime(["2024-07-01 12:00"])
    return pd.DataFrame({"d": ts, "b": ts})
$$) AS t(d rows_moment, b timestamptz);
SET TimeZone = 'UTC';

--
-- errors name the column and the row
--
-- a missing column: 42703, listing the columns there are
SELECT * FROM sandbox_rows('def main(): return [{"b": 1, "c": 2}]') AS t(a int, b int);
SELECT * FROM sandbox_rows(NULL::rows_pair, 'def main(): return [{"id": 1}]');
SELECT pg_temp.rows_error('A int', 'def main(): return [{"A": 1}]');
-- a tuple of the wrong width: 42804
SELECT * FROM sandbox_rows('def main(): return [(1, "x"), (2,)]') AS t(a int, b text);
SELECT pg_temp.rows_error('a int, b text', 'def main(): return [(1, "x", 3)]');
-- every error of this section, as SQLSTATEs
SELECT pg_temp.rows_error('a int', 'def main(): return [{"b": 1}]') AS missing_column,
       pg_temp.rows_error('a int', 'def main(): return [(0.5,)]') AS not_integral,
       pg_temp.rows_error('a int2', 'def main(): return [(65536,)]') AS out_of_range,
       pg_temp.rows_error('a date', 'def main(): return [("2023-02-29",)]') AS bad_date,
       pg_temp.rows_error('a uuid', 'def main(): return [("a0eebc99",)]') AS bad_uuid,
       pg_temp.rows_error('a text', 'def main(): return [("a\0b",)]') AS nul,
       pg_temp.rows_error('a int, b int', 'def main(): return [(1,)]') AS wrong_width,
       pg_temp.rows_error('a int, b int', 'def main(): return 1') AS not_rows
\gx
-- the output limit counts the rows: 54000
SELECT * FROM sandbox_rows($$
def main():
    return [("x" * 100,) for i in range(20)]
$$, options => '{"max_output_bytes": 1000}') AS t(a text);
SELECT count(*) FROM sandbox_rows($$
def main():
    return [("x" * 100,) for i in range(5)]
$$, options => '{"max_output_bytes": 1000}') AS t(a text);
SELECT pg_temp.rows_error('a int8', 'def main(): return [(i,) for i in range(1000)]', '{}', '{"max_output_bytes": 4096}');
-- ... and printed output too
SELECT pg_temp.rows_error('a int', $$
def main():
    print("x" * 2000)
    return [(1,)]
$$, '{}', '{"max_output_bytes": 1000}');
-- the session goes on
SELECT * FROM sandbox_rows('def main(): return [("still fine",)]') AS t(a text);

--
-- many rows: 100,000 rows of mixed types, checked by aggregates
--
SELECT count(*), sum(i), sum(f), count(DISTINCT s), min(d), max(d), count(*) - count(n) AS nulls, sum(n)
FROM sandbox_rows($$
import numpy as np, pandas as pd
def main(n):
    i = np.arange(n)
    return pd.DataFrame({"i": i, "f": i * 0.5, "s": pd.Series(i % 100).astype(str),
                         "d": pd.Timestamp("2024-01-01") + pd.to_timedelta(i % 366, unit="D"),
                         "n": pd.array(np.where(i % 10 == 0, None, i), dtype="Int64")})
$$, '{"n": 100000}') AS t(i int8, f float8, s text, d date, n int4);
SELECT count(*), sum(i), min(i), max(i) FROM sandbox_rows($$
def main(df):
    return df.assign(i=df["i"] * 2)
$$, '{"df": {"$query": "SELECT g AS i FROM generate_series(1, 100000) g"}}') AS t(i int8);

--
-- inside bigger queries
--
CREATE TABLE rows_regions (code text PRIMARY KEY, name text);
INSERT INTO rows_regions VALUES ('n', 'North'), ('s', 'South'), ('e', 'East'), ('w', 'West');
SELECT r.name, t.total, t.n
FROM sandbox_rows($$
def main(sales):
    return sales.groupby("region", as_index=False).agg(total=("amount", "sum"), n=("amount", "size"))
$$, '{"sales": {"$table": "rows_sales"}}') AS t(region text, total numeric, n int)
JOIN rows_regions r ON r.code = t.region
WHERE t.n > 1
ORDER BY t.total DESC;
SELECT r.code, coalesce(t.id, 0) AS total
FROM rows_regions r
LEFT JOIN sandbox_rows(NULL::rows_pair, $$
def main():
    return [(10, "n"), (20, "e")]
$$) AS t ON t.name = r.code
ORDER BY r.code;
WITH squares AS (
    SELECT * FROM sandbox_rows('def main(): return [{"k": i, "sq": i * i} for i in range(5)]') AS t(k int, sq int)
)
SELECT g, squares.sq FROM generate_series(0, 6) g LEFT JOIN squares ON squares.k = g ORDER BY g;
SELECT region, sum(amount) AS amount,
       (SELECT count(*) FROM sandbox_rows('def main(): return [(1,), (2,)]') AS t(x int)) AS constant_subquery
FROM rows_sales GROUP BY region ORDER BY region;
-- the typed form called once per outer row
SELECT r.code, t.*
FROM rows_regions r, LATERAL sandbox_rows(NULL::rows_pair, $$
def main(name):
    return [(len(name), name.upper())]
$$, jsonb_build_object('name', r.name)) AS t
ORDER BY r.code;

--
-- privileges: EXECUTE is revoked from PUBLIC on every form
--
SELECT p.oid::regprocedure AS function, p.proretset, p.provolatile, p.proparallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment,
       EXISTS (SELECT FROM aclexplode(p.proacl) a WHERE a.grantee = 0) AS public_can_execute
FROM pg_proc p WHERE p.proname = 'sandbox_rows' ORDER BY p.oid::regprocedure::text;
CREATE ROLE regress_pysandbox_rows;
SELECT p.oid::regprocedure AS function,
       has_function_privilege('regress_pysandbox_rows', p.oid, 'EXECUTE') AS can_execute
FROM pg_proc p WHERE p.proname = 'sandbox_rows' ORDER BY p.oid::regprocedure::text;
SET ROLE regress_pysandbox_rows;
SELECT * FROM sandbox_rows('def main(): return [(1,)]') AS t(a int);
SELECT * FROM sandbox_rows('def main(): return [(1,)]', '{}'::jsonb) AS t(a int);
SELECT * FROM sandbox_rows(NULL::rows_pair, 'def main(): return [(1, "x")]');
RESET ROLE;
GRANT EXECUTE ON FUNCTION sandbox_rows(text, text, text, text) TO regress_pysandbox_rows;
SET ROLE regress_pysandbox_rows;
SELECT * FROM sandbox_rows('def main(): return [(1,)]', '{}') AS t(a int);
SELECT * FROM sandbox_rows('def main(): return [(1,)]', '{}'::jsonb) AS t(a int);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION sandbox_rows(text, text, text, text) FROM regress_pysandbox_rows;

--
-- a view over sandbox_rows: its inputs are read as the role that queries
-- the view, as any function's queries are, whatever security_invoker says:
-- a view does not lend its owner's right to read them; a SECURITY DEFINER
-- function does, deliberately
--
CREATE TABLE rows_secret (region text, amount int);
INSERT INTO rows_secret VALUES ('north', 10), ('north', 5), ('south', 7);
CREATE VIEW rows_secret_totals AS
SELECT * FROM sandbox_rows($$
def main(df):
    return df.groupby("region", as_index=False)["amount"].sum()
$$, '{"df": {"$table": "rows_secret"}}'::jsonb) AS t(region text, amount int8);
GRANT SELECT ON rows_secret_totals TO regress_pysandbox_rows;
GRANT EXECUTE ON FUNCTION sandbox_rows(text, jsonb, text, jsonb) TO regress_pysandbox_rows;
SET ROLE regress_pysandbox_rows;
SELECT * FROM rows_secret_totals ORDER BY region;
RESET ROLE;
ALTER VIEW rows_secret_totals SET (security_invoker = true);
SET ROLE regress_pysandbox_rows;
SELECT * FROM rows_secret_totals ORDER BY region;
RESET ROLE;
CREATE FUNCTION rows_secret_totals_definer() RETURNS TABLE (region text, amount int8)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $f$ SELECT * FROM public.sandbox_rows($$
def main(df):
    return df.groupby("region", as_index=False)["amount"].sum()
$$, '{"df": {"$table": "public.rows_secret"}}'::jsonb) AS t(region text, amount int8) $f$;
GRANT EXECUTE ON FUNCTION rows_secret_totals_definer() TO regress_pysandbox_rows;
SET ROLE regress_pysandbox_rows;
SELECT * FROM rows_secret_totals_definer() ORDER BY region;
RESET ROLE;
DROP FUNCTION rows_secret_totals_definer();
DROP VIEW rows_secret_totals;
DROP TABLE rows_secret;
REVOKE EXECUTE ON FUNCTION sandbox_rows(text, jsonb, text, jsonb) FROM regress_pysandbox_rows;
DROP ROLE regress_pysandbox_rows;

--
-- the record form called again with other arguments: once per outer row
-- (LATERAL) and in a correlated subquery
--
SELECT r.code, t.*
FROM rows_regions r, LATERAL sandbox_rows($$
def main(name):
    return [(len(name), name.upper())]
$$, jsonb_build_object('name', r.name)) AS t(n int, upper text)
ORDER BY r.code;
SELECT g, (SELECT sum(v) FROM sandbox_rows('def main(n): return [(i,) for i in range(n + 1)]',
                                           jsonb_build_object('n', g)) AS t(v int)) AS total
FROM generate_series(1, 4) g;

--
-- frames of a few MB both ways (such buffers live in mappings of their
-- own, with huge pages): exact aggregates of 600,000 input rows and of
-- 300,000 rows sent back
--
SELECT sandbox_execute($$
def main(df):
    return {"rows": len(df), "sum_i": int(df["i"].sum()), "sum_f": float(df["f"].sum()),
            "distinct_s": int(df["s"].nunique()), "last": df["s"].iloc[-1]}
$$, '{"df": {"$query": "SELECT i::int8 AS i, i / 4.0::float8 AS f, ''v'' || (i % 7) AS s FROM generate_series(1, 600000) i"}}');
SELECT count(*), sum(a), sum(b), count(DISTINCT d), min(d), max(d)
FROM sandbox_rows($$
import numpy as np
import pandas as pd
def main():
    a = np.arange(300000, dtype=np.int64)
    return pd.DataFrame({"a": a, "b": a * 0.5,
                         "d": np.array(["x", "yy", "zzz"], dtype=object)[a % 3]})
$$) AS t(a int8, b float8, d text);

--
-- numbers that print as far more digits than they take: refused before a
-- backend spends seconds, deaf to cancel, printing them (1e131071 is
-- 131,072 digits); ordinary large and small numbers pass
--
SELECT * FROM sandbox_rows($$
import decimal
import pandas as pd
def main():
    return pd.DataFrame({"x": [[decimal.Decimal("1e131071")] * 7000]})
$$) AS t(x numeric[]);
-- and in all the values of a result, not only in each
SELECT count(*) FROM sandbox_rows($$
import decimal
import pandas as pd
def main():
    return pd.DataFrame({"x": [[decimal.Decimal("1e131071")] * 100] * 40})
$$) AS t(x numeric[]);
-- ... jsonb values too (review 43: 100 rows of 120 were 1.5 GB printed)
SELECT count(*) FROM sandbox_rows($$
from decimal import Decimal
def main():
    return [{"j": [Decimal("1e131071")] * 120} for i in range(100)]
$$) AS t(j jsonb);
-- ... their numbers, not their strings (a hex digest holds "3e12345"), and
-- no text that is not a number's (text[] prints its elements as they are)
SELECT count(*), sum(length(j::text)), sum(length(t::text)) FROM sandbox_rows($$
def main():
    return [{"j": {"digest": "3e131071"}, "t": ["3e131071"]} for i in range(200)]
$$) AS t(j jsonb, t text[]);
SELECT length(x::text) FROM sandbox_rows($$
import decimal
import pandas as pd
def main():
    return pd.DataFrame({"x": [[decimal.Decimal("1e300"), decimal.Decimal("1.5e-7")]]})
$$) AS t(x numeric[]);
SELECT sandbox_execute($$
import decimal
def main():
    return [decimal.Decimal("1e131071")] * 7000
$$);
SELECT length(sandbox_execute($$
def main():
    return [1e300, 1.5e-7, -2.5]
$$)::text);

DROP TABLE rows_target, rows_sales, rows_regions;
DROP DOMAIN rows_posint, rows_code, rows_required, rows_moment;
DROP TYPE rows_pair, rows_nothing, rows_mood;
RESET DateStyle;
RESET IntervalStyle;
RESET TimeZone;
-- a domain over a composite type as rowtype: the rows would be handed out as
-- the domain without its CHECK (review 34); cast the composite rows instead
CREATE TYPE rows_cpair AS (x int, y int);
CREATE DOMAIN rows_cpair_pos AS rows_cpair CHECK ((VALUE).x > 0);
SELECT * FROM sandbox_rows(NULL::rows_cpair_pos, 'def main(): return [{"x": -1, "y": 2}]');
SELECT r::rows_cpair_pos FROM sandbox_rows(NULL::rows_cpair, 'def main(): return [{"x": -1, "y": 2}]') r;
SELECT r::rows_cpair_pos FROM sandbox_rows(NULL::rows_cpair, 'def main(): return [{"x": 1, "y": 2}]') r;
DROP DOMAIN rows_cpair_pos;
-- an array of a composite type takes dicts, tuples, namedtuples and
-- dataclasses as its elements, as a composite column does (each was JSON or
-- a nested array: "malformed record literal"); a list is a dimension
SELECT * FROM sandbox_rows($$
import collections
import dataclasses
@dataclasses.dataclass
class D:
    y: int
    x: int
def main():
    P = collections.namedtuple("P", "y x")
    return [{"a": [{"x": 1, "y": 2}, {"x": 3}, None, (4, 5), P(6, 7), D(8, 9), "(10,11)"],
             "b": [[(1, 2)], [(3, None)]]}]
$$) AS t(a rows_cpair[], b rows_cpair[]);
-- a composite's fields are taken as columns of their types are: a naive
-- datetime into timestamptz is UTC (it was read in the session's zone),
-- in an array field too; bytes into bytea, a dict into jsonb
SET TimeZone = 'America/New_York';
CREATE TYPE rows_event AS (at timestamptz, ats timestamptz[], raw bytea, j jsonb, d date);
SELECT * FROM sandbox_rows($$
import datetime
def main():
    t = datetime.datetime(2024, 1, 1, 12, 0)
    return [{"e": {"at": t, "ats": [t], "raw": b"\x01", "j": {"k": [1]}, "d": t.date()},
             "es": [(t, [t], b"\xff", [1], t)]}]
$$) AS t(e rows_event, es rows_event[]);
DROP TYPE rows_event;
RESET TimeZone;
SELECT * FROM sandbox_rows('def main(): return [{"a": [1, 2]}]') AS t(a rows_cpair[]);
SELECT * FROM sandbox_rows('def main(): return [{"a": [(1, 2, 3)]}]') AS t(a rows_cpair[]);
DROP TYPE rows_cpair;
-- jsonb inside an array or a composite, and jsonpath, are read by their
-- input functions, which take no memory budget and no cancel: their
-- numbers' digits are counted as a jsonb column's are, and their text is
-- at most 256 kB (15 MB of "{}," in one jsonb[] element took 3.2 GB,
-- review 57)
CREATE TYPE rows_jcomp AS (j jsonb);
SELECT length(a::text) FROM sandbox_rows($$
from decimal import Decimal
def main():
    return [{"a": [[Decimal("1e131071")] * 7000]}]
$$) AS t(a jsonb[]);
SELECT length(a::text) FROM sandbox_rows($$
def main():
    return [{"a": {"j": "[" + ",".join(["1e131071"] * 7000) + "]"}}]
$$) AS t(a rows_jcomp);
SELECT length(p::text) FROM sandbox_rows($$
def main():
    return [{"p": "$[" + ",".join(["1e131071"] * 7000) + "]"}]
$$) AS t(p jsonpath);
SELECT count(*) FROM sandbox_rows($$
def main():
    return [{"a": ["[" + "{}," * 100000 + "0]"]}]
$$) AS t(a jsonb[]);
SELECT a, c FROM sandbox_rows($$
def main():
    return [{"a": [{"k": [1, 2.5]}, None], "c": {"j": {"x": "y"}}}]
$$) AS t(a jsonb[], c rows_jcomp);
DROP TYPE rows_jcomp;
-- tsquery's input function takes time quadratic in its text and does not
-- stop for a cancel (review 127 F1: 1 MB of "a|a|..." took 57 s through
-- pg_cancel_backend and statement_timeout): at most 16 kB of it, in a
-- column, an array's element or a sql() parameter; a cancel between values
SET statement_timeout = '5s';
SELECT length(q::text) FROM sandbox_rows($$
def main():
    return [{"q": "|".join(["a"] * 300000)}]
$$) AS t(q tsquery);
SELECT q, qs FROM sandbox_rows($$
def main():
    return [{"q": "cat & dog", "qs": ["|".join(["a"] * 9000)]}]
$$) AS t(q tsquery, qs tsquery[]);
SELECT q FROM sandbox_rows($$
def main():
    return [{"q": "fat & (rat | cat)"}]
$$) AS t(q tsquery);
CREATE ROLE regress_pysandbox_tsq;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO regress_pysandbox_tsq;
SET ROLE regress_pysandbox_tsq;
SELECT sandbox_execute($$
def main():
    try:
        sql("SELECT $1::tsquery AS q", "|".join(["a"] * 300000))
    except SQLError as e:
        return [e.sqlstate, str(e)[:60]]
$$);
RESET ROLE;
-- so do libxml2's checks of a tag's attributes and namespaces (review 141
-- F1: a tag of 80,000 attributes, 0.8 MB, took 10 s through cancel and
-- terminate): an xml value past 16 kB is scanned for them and held to
-- 256 kB; xml inside an array or a composite to 16 kB, as a tsquery
SELECT length(x::text) FROM sandbox_rows($$
def main():
    return [{"x": "<r>" + "<a b='1'>t</a>" * 15000 + "</r>"}]
$$) AS t(x xml);
SELECT length(x::text) FROM sandbox_rows($$
def main():
    return [{"x": "<r " + " ".join('a%d=""' % i for i in range(80000)) + "/>"}]
$$) AS t(x xml);
SELECT length(x::text) FROM sandbox_rows($$
def main():
    return [{"x": "<r " + " ".join('a%d=""' % i for i in range(3000)) + "/>"}]
$$) AS t(x xml);
SELECT length(x::text) FROM sandbox_rows($$
def main():
    return [{"x": "<r " + " ".join("xmlns:p%d='u%d'" % (i, i) for i in range(300)) + ">"
                  + "<p1:a/>" * 3000 + "</r>"}]
$$) AS t(x xml);
SELECT length(x::text) FROM sandbox_rows($$
def main():
    return [{"x": "<!DOCTYPE r [<!ENTITY e 'x'>]><r>" + "<a>&e;</a>" * 3000 + "</r>"}]
$$) AS t(x xml);
SELECT length(xs::text) FROM sandbox_rows($$
def main():
    return [{"xs": ["<r " + " ".join('a%d=""' % i for i in range(3000)) + "/>"]}]
$$) AS t(xs xml[]);
-- a document type declaration at any length (review 146 F2: 14.9 kB of
-- entity-valued attribute defaults took 3.9 s and 1.7 GB), escaped in an
-- array too; the word as text is fine
SELECT length(x::text) FROM sandbox_rows($$
def main():
    return [{"x": "<!DOCTYPE r [<!ENTITY e 'x'>]><r>&e;</r>"}]
$$) AS t(x xml);
SELECT length(xs::text) FROM sandbox_rows($$
def main():
    return [{"xs": ["<!DOCTYPE r><r/>"]}]
$$) AS t(xs xml[]);
SELECT x FROM sandbox_rows($$
def main():
    return [{"x": "<r><doctype/>DOCTYPE</r>"}]
$$) AS t(x xml);
-- a composite's parser drops the double quotes that split the word
-- (review 148 F1: '<!DOC"TYPE' reached libxml2 as <!DOCTYPE)
CREATE TYPE rows_xml_pair AS (x xml, n int);
SELECT * FROM sandbox_rows($$
def main():
    return [{"c": ('<!DOC"TYPE r><r/>', 1)}]
$$) AS t(c rows_xml_pair);
DROP TYPE rows_xml_pair;
-- a container's input function keeps each element's working memory until
-- the value is built (review 149 F1: 2 MB of tsvector[] held 2.3 GB of the
-- backend's memory, deaf to cancel): built within a budget of its own, in
-- results and in sql()'s parameters; a large array of small elements fits
SELECT * FROM sandbox_rows($$
def main():
    return [{"x": "{" + ",".join(["a"] * 1000000) + "}"}]
$$) AS t(x tsvector[]);
SELECT cardinality(x), x[100000] FROM sandbox_rows($$
def main():
    return [{"x": list(range(1, 100001))}]
$$) AS t(x int[]);
-- ranges keep two 1 kB buffers each however short their text, and get a
-- larger budget (review 152 F3: 150,000 int8range elements were refused)
SELECT cardinality(x), x[150000] FROM sandbox_rows($$
def main():
    return [{"x": "{" + ",".join('"[%d,%d)"' % (i, i + 1) for i in range(150000)) + "}"}]
$$) AS t(x int8range[]);
SET ROLE regress_pysandbox_tsq;
SELECT sandbox_execute($$
def main():
    try:
        sql("SELECT cardinality($1::tsvector[]) AS n", "{" + ",".join(["a"] * 500000) + "}")
    except SQLError as e:
        return [e.sqlstate, str(e)]
$$);
SELECT sandbox_execute($$
def main():
    big = "<r " + " ".join('a%d=""' % i for i in range(80000)) + "/>"
    try:
        sql("SELECT $1::xml IS DOCUMENT AS d", big)
    except SQLError as e:
        return [e.sqlstate, str(e)[:70], bool(sql("SELECT $1::xml IS DOCUMENT AS d", "<r a='1'/>").d[0])]
$$);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM regress_pysandbox_tsq;
DROP ROLE regress_pysandbox_tsq;
RESET statement_timeout;
-- text into integer, float and boolean columns is read as their input
-- functions read it (str.extract's groups, PL/Python's habit of returning
-- m.group(1)); 0 and 1 go into boolean; what does not fit says how to
-- convert it (the hint was about the shape of the result)
SELECT * FROM sandbox_rows($$
import numpy as np
def main():
    return [(" 101 ", "1.5e3", "yes", 1), ("-7", "-Infinity", "f", np.int64(0)),
            ("+3", "nan", " On ", True), (None, ".5", "0", None)]
$$) AS t(a int, b float8, c bool, d bool);
SELECT * FROM sandbox_rows($$ def main(): return [("1.0",)] $$) AS t(a int);
SELECT * FROM sandbox_rows($$ def main(): return [("1_000",)] $$) AS t(a bigint);
SELECT * FROM sandbox_rows($$ def main(): return [("x",)] $$) AS t(a float8);
SELECT * FROM sandbox_rows($$ def main(): return [(2,)] $$) AS t(a bool);
SELECT * FROM sandbox_rows($$ def main(): return [("o",)] $$) AS t(a bool);
SELECT * FROM sandbox_rows($$ def main(): return [("99999999999",)] $$) AS t(a int);
-- ... as PostgreSQL reads it: no other whitespace than its own, nothing out
-- of float8's range (float() made 1e400 infinity and 1e-400 zero)
SELECT * FROM sandbox_rows($$ def main(): return [("\u00a012",)] $$) AS t(a int);
SELECT * FROM sandbox_rows($$ def main(): return [("1e400",)] $$) AS t(a float8);
SELECT * FROM sandbox_rows($$ def main(): return [("1e-400",)] $$) AS t(a float8);
-- a column of ints with a None in a list of dicts or tuples keeps its ints
-- (it went through float64: 2**53 + 1 came back as 2**53, 501 as '501.0')
SELECT * FROM sandbox_rows($$
def main():
    return [{"id": 9007199254740993, "z": 501}, {"id": None, "z": None}, {"id": 7}]
$$) AS t(id bigint, z text);
SELECT * FROM sandbox_rows($$
def main():
    return [(9007199254740993, 501, 0.5), (None, None, None)]
$$) AS t(id bigint, z text, f float8);
-- a child that escaped the Python layer sends the rows itself: text values
-- must lie end to end (review 43: offsets 0, L, 0, L over NULL odd rows made
-- one L-byte value, charged once, into every even row)
SET pysandbox.python_layer = off;
CREATE FUNCTION pg_temp.rows_frames(offsets int[], nulls int[]) RETURNS text
LANGUAGE sql AS $f$
SELECT format($c$
import sb_io, struct
def main():
    offsets, nulls = %s, %s
    n = len(offsets) - 1
    bits = bytearray((n + 7) // 8)
    for r in range(n):
        if r not in nulls:
            bits[r // 8] |= 1 << (r %% 8)
    data = bytearray(offsets[-1])
    for r in range(n):
        if offsets[r + 1] > offsets[r]:
            data[offsets[r + 1] - 1] = 0
            data[offsets[r]:offsets[r + 1] - 1] = b"v" * (offsets[r + 1] - 1 - offsets[r])
    sb_io.send(sb_io.ROWS, n.to_bytes(8, "little"))
    sb_io.sendv(sb_io.COLUMN, [len(nulls).to_bytes(8, "little"), bytes(bits) if nulls else b"",
                               struct.pack("=%%dq" %% (n + 1), *offsets), bytes(data)])
    import os
    os._exit(0)
$c$, array_to_json(offsets), array_to_json(nulls))
$f$;
-- honest: "vvv", NULL, "v"
SELECT * FROM sandbox_rows(pg_temp.rows_frames('{0,4,5,7}', '{1}')) AS t(s text);
-- the offsets go back (row 2 repeats row 0)
SELECT * FROM sandbox_rows(pg_temp.rows_frames('{0,4,0,4}', '{1}')) AS t(s text);
-- a NULL spans a value
SELECT * FROM sandbox_rows(pg_temp.rows_frames('{0,4,8,10}', '{1}')) AS t(s text);
RESET pysandbox.python_layer;

-- a bytea column takes bytes (or a figure as its PNG), not the text of a
-- list or a number (return [1, 2, 3] stored the bytes of '{"1","2","3"}':
-- review 75); money takes a large amount's float, whose repr has an
-- exponent money's input does not read
SELECT * FROM sandbox_rows('def main(): return [([1, 2, 3],)]') AS t(b bytea);
SELECT * FROM sandbox_rows('def main(): return [(1.5,)]') AS t(b bytea);
SELECT * FROM sandbox_rows('def main(): return [(b"\x01\x02", 92233720368547.75), (bytearray(b"ok"), 1e16)]')
    AS t(b bytea, m money);
-- ... in a domain over money and in money[] too (review 77)
CREATE DOMAIN rows_amount AS money;
SELECT * FROM sandbox_rows('def main(): return [(1e16, [1e16, 2.5])]') AS t(m rows_amount, ms money[]);
DROP DOMAIN rows_amount;

-- review 104: one-row summaries and rows as Series are rows (a Series
-- whose labels name the columns; a list or generator of Series; a Series
-- of dicts; one value for a one-column result); a dict of lists repeats
-- its single values as pd.DataFrame(d) does, and df.to_dict() is columns;
-- a list in an array, json or record column stays one row's value
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"a": [1.5, 2.5], "b": [3, 4]}).agg({"a": "sum", "b": "max"})
$$) AS t(a float8, b int);
SELECT * FROM sandbox_rows('def main(): return 42') AS t(total int);
SELECT * FROM sandbox_rows('def main(): return 42') AS t(total int, n int);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"k": ["a", "b"], "v": [1, 2]})
    return (r for _, r in df.iterrows())
$$) AS t(k text, v int);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"k": ["a", "b"], "v": [1, 2]})
    return df.apply(lambda r: {"k": r.k.upper(), "v": r.v * 10}, axis=1)
$$) AS t(k text, v int);
SELECT * FROM sandbox_rows('def main(): return {"v": [1, 2, 3], "w": 5}') AS t(v int, w int);
SELECT * FROM sandbox_rows('def main(): return {"n": 5, "top": ["a", "b"], "ids": [1, 2]}')
    AS t(n int, top jsonb, ids int[]);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_dict()
$$) AS t(a int, b text);
SELECT * FROM sandbox_rows('def main(): return {"meta": {"a": 1}, "id": {"x": 2}}') AS t(meta jsonb, id jsonb);
-- a Timedelta into text is its ISO 8601 duration (as in JSON), into time
-- the time of day it reaches from midnight; an offset that is a rule of
-- the calendar is no interval
SELECT * FROM sandbox_rows($$
import datetime
import pandas as pd
def main():
    return pd.DataFrame({"v": [pd.Timedelta("1 day 2h")], "t": [datetime.timedelta(hours=13, minutes=45)],
                         "i": [pd.Timedelta("1 day 2h")]})
$$) AS t(v text, t time, i interval);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return [(pd.Timedelta("25h"),)]') AS t(t time);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return [(pd.offsets.MonthEnd(),)]') AS t(i interval);
-- a declared name in double quotes that the result has in another case
-- says so; df.to_records() is a structured array (review 104)
SELECT pg_temp.rows_error('"Region" text', 'import pandas as pd
def main(): return pd.DataFrame({"region": ["a"]})');
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"region": ["a", "b"], "n": [1, 2]}).to_records(index=False)
$$) AS t(n int, region text);
-- review 105: a 0-d array in a one-row dict is a value; a group's summary
-- Series is its row (the key filled in); one column takes a Series as a
-- row only when it holds that one label (these counts are the column's
-- values, not one row); a Timedelta into jsonb is JSON
SELECT * FROM sandbox_rows($$
import numpy as np
def main():
    return {"n": 3, "mean": np.array(5.5)}
$$) AS t(n int, mean float8);
SELECT * FROM sandbox_rows($$
def main(df):
    return df[["amount"]].sum()
$$, '{"df": {"$query": "SELECT g, amount FROM (VALUES (1, 2.5), (1, 3.5), (2, 1.0)) v(g, amount)"}}',
    'main', '{"group_by": "g"}') AS t(g int, amount float8);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.Series(["a", "region", "region"]).value_counts()') AS t(region int);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return [{"d": pd.Timedelta("90min")}]') AS t(d jsonb);
-- review 105 F7/F8 and review 104 F6: a Timedelta inside time[] and
-- text[] as in a column of the element's type; a Categorical, pd.array or
-- Index is a column's values (a jsonb column took it as one array); an
-- unnamed Series fills the one column; a list of single values into an
-- array column says how to return one row holding the list
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return [{"t": [pd.Timedelta("13h45m"), None], "s": [pd.Timedelta("90min")]}]')
    AS t(t time[], s text[]);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.Categorical(["u", "v", "u"]).unique()') AS t(a text);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.array([1, None, 3])') AS t(a jsonb);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.Index(["x", "y"], name="a")') AS t(a text);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.Series([10, 20], index=["p", "q"])') AS t(n int);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.MultiIndex.from_tuples([("a", 1), ("b", 2)])') AS t(k text, n int);
-- with named levels, by name, as a DataFrame's columns (review 108 F2)
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.DataFrame({"k": ["a", "b"], "n": [1, 2]}).groupby(["k", "n"]).size().index')
    AS t(n int, k text);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.DataFrame({"k": ["a", "b", "a"]}).groupby("k").size()') AS t(k text, n int);
SELECT * FROM sandbox_rows('def main(): return [1, 2]') AS t(v int[]);
SELECT * FROM sandbox_rows('def main(): return {"ids": [1, 2, 3], "name": ["a", "b", "c"]}')
    AS t(ids int[], name text);
-- a str into a jsonb column is JSON text: one that is not JSON says how to
-- make it a JSON string (it was jsonb's "Token "u" is invalid")
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.Categorical(["u", "v"])') AS t(a jsonb);
SELECT * FROM sandbox_rows('def main(): return [{"a": "nope"}, {"a": {"k": 1}}]') AS t(a jsonb);
SELECT * FROM sandbox_rows('def main(): return ["1", " true", "\"s\"", "null"]') AS t(a jsonb);
-- every value of a column of str is looked at, not only its first (review 108 F5)
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.DataFrame({"j": [''{"a": 1}'', None, '' [2]'', ''Lisbon'', ''[1]'']})') AS t(j jsonb);
SELECT * FROM sandbox_rows('import pandas as pd
def main(): return pd.DataFrame({"j": [''{"a": 1}'', '' 5'', ''  x'']})') AS t(j jsonb);
