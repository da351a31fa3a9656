--
-- language: LANGUAGE pysandbox functions, DO blocks and the validator
--

-- a trusted language whose USAGE is granted, not given to PUBLIC
SELECT lanname, lanpltrusted, lanacl IS NOT NULL AND
       NOT EXISTS (SELECT 1 FROM aclexplode(lanacl) a WHERE a.grantee = 0) AS public_denied
FROM pg_language WHERE lanname = 'pysandbox';

-- the body is the function's body; arguments arrive by their SQL names
CREATE FUNCTION py_add(a integer, b integer) RETURNS integer
LANGUAGE pysandbox AS $$
return a + b
$$;
SELECT py_add(2, 3);
-- called for every row of a statement
SELECT i, py_add(i, 10) FROM generate_series(1, 3) AS i ORDER BY i;
-- NULL arrives as None
CREATE FUNCTION py_is_none(x text) RETURNS boolean
LANGUAGE pysandbox AS 'return x is None';
SELECT py_is_none(NULL), py_is_none('a');
-- None returns NULL
CREATE FUNCTION py_nothing(x integer) RETURNS integer
LANGUAGE pysandbox AS 'return None';
SELECT py_nothing(1) IS NULL AS is_null;
-- ... which a domain's NOT NULL or CHECK refuses, as in every language
-- (review 47: the NULL was returned, and stored in a NOT NULL domain column)
CREATE DOMAIN py_required AS integer NOT NULL;
CREATE DOMAIN py_positive AS integer CHECK (VALUE IS NOT NULL AND VALUE > 0);
CREATE FUNCTION py_required_none() RETURNS py_required
LANGUAGE pysandbox AS 'return None';
CREATE FUNCTION py_positive_none() RETURNS py_positive
LANGUAGE pysandbox AS 'return None';
SELECT py_required_none();
SELECT py_positive_none() FROM generate_series(1, 2);
CREATE TABLE py_required_t (v py_required);
INSERT INTO py_required_t VALUES (py_required_none());
SELECT count(*) FROM py_required_t;
DROP TABLE py_required_t;
DROP FUNCTION py_required_none(), py_positive_none();
DROP DOMAIN py_required, py_positive;

-- a body on the line of its $$, or indented as a block, as PL/Python takes them
CREATE FUNCTION py_one_line(x integer, y integer DEFAULT 10) RETURNS integer
LANGUAGE pysandbox AS $$ return x * y $$;
SELECT py_one_line(2), py_one_line(2, 3);
CREATE FUNCTION py_block(n integer) RETURNS integer
LANGUAGE pysandbox AS $$
    total = 0
    for i in range(n):
        total += i
    return total
$$;
SELECT py_block(4);
DO LANGUAGE pysandbox $$ print("a DO block on one line") $$;
DROP FUNCTION py_one_line, py_block;

-- every argument type arrives as a plain Python value
CREATE FUNCTION py_types(i bigint, f float8, n numeric, b boolean, t text, d date,
                         ts timestamp, tz timestamptz, iv interval, j jsonb,
                         by bytea, arr integer[], u uuid) RETURNS text
LANGUAGE pysandbox AS $$
values = [i, f, n, b, t, d, ts, tz, iv, j, by, arr, u]
return " ".join(str(type(v)) for v in values)
$$;
SELECT py_types(1, 1.5, 2.25, true, 'x', '2024-02-29', '2024-02-29 10:00',
                '2024-02-29 10:00+00', '1 day 2 hours', '{"k": [1, 2]}', '\x0102',
                '{1,2,3}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
-- ... with their values, and back to their SQL types
CREATE FUNCTION py_next_day(d date) RETURNS date
LANGUAGE pysandbox AS $$
import datetime
return d + datetime.timedelta(days=1)
$$;
SELECT py_next_day('2024-02-28'), py_next_day('2024-12-31');
-- an argument's own date or time takes Python's range, 9999-12-31 as an
-- open end, its infinities as text (review 147 F3: refused as past
-- pandas' range); past year 9999 it is refused, naming Python's
CREATE FUNCTION py_moments(d date, ts timestamp, tz timestamptz, iv interval) RETURNS text
LANGUAGE pysandbox AS 'return repr((d, ts, tz.year if tz not in ("infinity", "-infinity") else tz, iv.days))';
SELECT py_moments('9999-12-31', '0001-01-01 00:00', 'infinity', '400 years');
SELECT py_moments('-infinity', 'infinity', '2500-01-01 00:00+00', '-1 day');
SELECT py_moments('10000-01-01', now()::timestamp, now(), '1 day');
DROP FUNCTION py_moments(date, timestamp, timestamptz, interval);
CREATE FUNCTION py_stamp(ts timestamptz, iv interval) RETURNS timestamptz
LANGUAGE pysandbox AS 'return ts + iv';
SET timezone = 'UTC';
SELECT py_stamp('2024-01-01 23:30+00', '45 minutes');
RESET timezone;
CREATE FUNCTION py_json(j jsonb) RETURNS jsonb
LANGUAGE pysandbox AS $$
j["seen"] = sorted(j)
return j
$$;
SELECT py_json('{"b": 1, "a": [true, null]}');
-- a str is JSON text, as every result column reads it: PL/Python's
-- return json.dumps(d) is an object, not a JSON string (review 75); text
-- that is not JSON is an error
CREATE FUNCTION py_dumps(n integer) RETURNS jsonb
LANGUAGE pysandbox AS $$
import json
return json.dumps({"n": n, "xs": list(range(n))}) if n >= 0 else "not json"
$$;
SELECT py_dumps(2), jsonb_typeof(py_dumps(2)), py_dumps(2) -> 'xs' -> 1 AS second;
SELECT py_dumps(-1);
-- an interval argument with months is a relativedelta (a month is no
-- number of days: '1 mon' came as 30 days, review 75), without a timedelta;
-- either returns as it came, and in a composite too
CREATE TYPE py_span AS (label text, iv interval);
CREATE FUNCTION py_interval(iv interval, d date, s py_span) RETURNS text
LANGUAGE pysandbox AS $$
return "%s %s %s %s" % (type(iv).__name__, d + iv, type(s["iv"]).__name__, s["iv"])
$$;
SELECT py_interval('1 mon', '2024-01-31', ROW('a', '1 year 2 days')),
       py_interval('36 hours', '2024-01-31', ROW('b', '-3 days 04:00'));
CREATE FUNCTION py_same_interval(iv interval) RETURNS interval
LANGUAGE pysandbox AS 'return iv';
SELECT py_same_interval(iv) = iv AS same, py_same_interval(iv)
FROM unnest(ARRAY['1 mon', '1 year 2 mons -3 days 04:05:06.5', '3 days 01:00', '-1 mon']::interval[]) AS iv;
-- a domain over interval takes a relativedelta back, and an interval
-- past timedelta's range comes as a relativedelta too (review 81)
CREATE DOMAIN py_span_len AS interval;
CREATE FUNCTION py_same_span(iv py_span_len) RETURNS py_span_len
LANGUAGE pysandbox AS 'return iv';
SELECT py_same_span('1 mon 2 days'), py_same_interval('1000000000 days');
DROP FUNCTION py_interval(interval, date, py_span), py_same_interval(interval),
    py_same_span(py_span_len);
DROP TYPE py_span;
DROP DOMAIN py_span_len;
CREATE FUNCTION py_bytes(b bytea) RETURNS bytea
LANGUAGE pysandbox AS 'return b[::-1]';
SELECT py_bytes('\x010203');
CREATE FUNCTION py_array(xs integer[]) RETURNS integer[]
LANGUAGE pysandbox AS 'return [x * 2 for x in xs]';
SELECT py_array('{1,2,3}');
-- arrays of dates and times hold what a scalar of their type is:
-- datetime.date, datetime.datetime (aware, in UTC for timestamptz, whatever
-- the session's zone); what Python cannot hold (infinity) stays text
-- (review 48: every element was text, timestamptz's in the session's zone)
CREATE FUNCTION py_span(ts timestamptz[], d date[], t timestamp[]) RETURNS text
LANGUAGE pysandbox AS $$
return "%s | %r | %r | %r" % (max(ts) - min(ts), ts[0], d, t)
$$;
SET timezone = 'Asia/Tokyo';
SELECT py_span(ARRAY['2024-01-02 10:00+09', '2024-01-02 12:30+09']::timestamptz[],
               ARRAY['2024-01-02', NULL, 'infinity']::date[],
               ARRAY['2024-01-02 03:04:05.5']::timestamp[]);
RESET timezone;
-- the language's per-group form over scalars: array_agg of a timestamptz
SELECT g, py_span(array_agg(ts), NULL, NULL)
FROM (VALUES (1, timestamptz '2024-03-10 10:00+00'), (1, '2024-03-10 11:15+00'),
             (2, '2024-03-11 00:00+00')) v(g, ts)
GROUP BY g ORDER BY g;
DROP FUNCTION py_span;
CREATE FUNCTION py_numeric(x numeric) RETURNS numeric
LANGUAGE pysandbox AS 'return x * 2';
SELECT py_numeric(1.25);
-- numeric is float, or Decimal with options.numeric = "decimal", wherever
-- it sits: an argument, an array's element, a composite's field, a
-- frame's column (review 47: a plain argument stayed float)
CREATE TYPE py_amount AS (n numeric);
CREATE FUNCTION py_numeric_kinds(a numeric, b py_amount, c py_amount[], d numeric[])
RETURNS text LANGUAGE pysandbox AS $$
return "%s %s %s %s" % (type(a).__name__, type(b["n"]).__name__,
                        type(c["n"].iloc[0]).__name__, [type(v).__name__ for v in d])
$$;
SELECT py_numeric_kinds(0.1, ROW(0.1)::py_amount, ARRAY[ROW(0.1)::py_amount], ARRAY[0.1]);
SET pysandbox.options = '{"numeric": "decimal"}';
SELECT py_numeric_kinds(0.1, ROW(0.1)::py_amount, ARRAY[ROW(0.1)::py_amount], ARRAY[0.1]);
SELECT py_numeric(1.25);
RESET pysandbox.options;
DROP FUNCTION py_numeric_kinds;
DROP TYPE py_amount;
-- a value that does not fit the declared type is an error naming it
CREATE FUNCTION py_big() RETURNS smallint
LANGUAGE pysandbox AS 'return 100000';
SELECT py_big();

-- composite arguments arrive as dicts; composite results from a dict, a
-- tuple, a namedtuple or a Series
CREATE TYPE py_pair AS (x integer, label text);
CREATE FUNCTION py_swap(p py_pair) RETURNS py_pair
LANGUAGE pysandbox AS $$
return {"x": p["x"] + 1, "label": p["label"].upper()}
$$;
SELECT * FROM py_swap(ROW(1, 'a')::py_pair);
CREATE FUNCTION py_tuple() RETURNS py_pair
LANGUAGE pysandbox AS 'return (7, "seven")';
SELECT (py_tuple()).*;
CREATE FUNCTION py_named() RETURNS py_pair
LANGUAGE pysandbox AS $$
import collections
Pair = collections.namedtuple("Pair", "label x")
return Pair(label="n", x=3)
$$;
SELECT (py_named()).*;
-- a composite's fields are the values arguments of their types would be:
-- dates, aware timestamps, timedeltas, numbers; a nested composite a dict
CREATE TYPE py_event AS (day date, at timestamptz, took interval, amount numeric,
                         tags text[], meta jsonb, pair py_pair);
CREATE FUNCTION py_event_types(e py_event) RETURNS text
LANGUAGE pysandbox AS $$
return "%s %s %s" % ({k: type(v).__name__ for k, v in e.items()},
                     e["at"].date() - e["day"], e["pair"])
$$;
SELECT py_event_types(ROW('2024-01-06', '2024-01-08 15:23+00', '1 day 11:00', 1.5,
                          '{x,y}', '{"k": 1}', ROW(1, 'a'))::py_event);
CREATE FUNCTION py_record_types(r record) RETURNS text
LANGUAGE pysandbox AS 'return repr(r)';
SELECT py_record_types(ROW(1, 'x'::text, date '2024-01-01'));
-- an array of composites arrives as a DataFrame, one row per element, its
-- columns typed as a table input's: with array_agg(t), a function per group
CREATE TABLE py_sales(region text, sold_on date, amount numeric, note text);
INSERT INTO py_sales VALUES ('n', '2024-01-01', 10, 'a'), ('n', '2024-01-02', 30, NULL),
    ('s', '2024-01-01', 5, 'b'), ('s', '2024-01-03', NULL, 'c'), ('s', '2024-01-04', 7.5, NULL);
CREATE FUNCTION py_summary(rows py_sales[]) RETURNS text
LANGUAGE pysandbox AS $$
dtypes = ",".join(f"{c}:{t}" for c, t in rows.dtypes.items())
best = rows.loc[rows.amount.idxmax()]
return f"{len(rows)} rows, total {rows.amount.sum()}, best {best.sold_on.date()}, nulls {int(rows.isna().sum().sum())} | {dtypes}"
$$;
SELECT region, py_summary(array_agg(s ORDER BY sold_on)) FROM py_sales s
GROUP BY region ORDER BY region;
-- NULL elements are rows of NULLs; a NULL array is None; an empty one has
-- the columns and no rows
CREATE FUNCTION py_frame_shape(rows py_pair[]) RETURNS text
LANGUAGE pysandbox AS $$
import pandas as pd
if rows is None:
    return "None"
return f"{isinstance(rows, pd.DataFrame)} {rows.shape} {list(rows.columns)} {rows.x.tolist()}"
$$;
SELECT py_frame_shape(ARRAY[ROW(1, 'a')::py_pair, NULL, ROW(3, NULL)::py_pair]),
       py_frame_shape(NULL), py_frame_shape('{}');
-- a domain over the composite too; numeric as the options say
CREATE DOMAIN py_pos_pair AS py_pair CHECK ((VALUE).x > 0);
CREATE FUNCTION py_frame_types(rows py_pos_pair[], amounts py_sales[]) RETURNS text
LANGUAGE pysandbox AS $$
import decimal
return f"{rows.x.tolist()} {rows.dtypes.x} {isinstance(amounts.amount.iloc[0], decimal.Decimal)}"
$$;
SELECT py_frame_types(ARRAY[ROW(2, 'b')::py_pos_pair], (SELECT array_agg(s) FROM py_sales s));
ALTER FUNCTION py_frame_types SET pysandbox.options = '{"numeric": "decimal"}';
SELECT py_frame_types(ARRAY[ROW(2, 'b')::py_pos_pair], (SELECT array_agg(s) FROM py_sales s));
-- the arguments' budget holds while the frame fills: NULL elements cost
-- little in the array but a value a column in the frame
SET pysandbox.options = '{"max_input_mb": 1}';
SELECT py_frame_shape(array_fill(NULL::py_pair, ARRAY[1000000]));
SELECT py_frame_shape(array_fill(NULL::py_pair, ARRAY[100000]));
-- and before any element is read: 130M NULLs are 16 MB in the array, but
-- their values and NULL flags as arrays were 1.17 GB of the backend's
-- memory before the budget was first checked
CREATE FUNCTION pg_temp.peak_kb() RETURNS bigint LANGUAGE sql AS $$
SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status')
                 FROM 'VmHWM:\s*(\d+) kB')::bigint $$;
SELECT pg_temp.peak_kb() AS peak_before \gset
SELECT py_frame_shape(array_fill(NULL::py_pair, ARRAY[130000000]));
SELECT pg_temp.peak_kb() - :peak_before < 100 * 1024 AS backend_grew_less_than_100mb;
RESET pysandbox.options;
-- anonymous records take the first element's row type; all must share it
CREATE FUNCTION py_records_in(rows record[]) RETURNS text
LANGUAGE pysandbox AS 'return ",".join(rows.columns) + " " + str(len(rows))';
SELECT py_records_in(array_agg(ROW(g, g * 2))) FROM generate_series(1, 3) g;
SELECT py_records_in(ARRAY[NULL::record]);
SELECT py_records_in('{}'::record[]);
-- ... and goes back as one into an array of that type: a row an element,
-- by column name (others left out) or, as many as the fields, by position
-- (review 147 F2: return xs was refused)
CREATE FUNCTION py_pairs_back(xs py_pos_pair[], by_position boolean) RETURNS py_pos_pair[]
LANGUAGE pysandbox AS $$
if by_position:
    xs = xs.set_axis(["first", "second"], axis=1)
xs["extra"] = 1
return xs.drop(columns="extra") if by_position else xs.iloc[::-1]
$$;
SELECT py_pairs_back(ARRAY[ROW(2, 'b'), ROW(NULL, 'c')]::py_pos_pair[], false),
       py_pairs_back(ARRAY[ROW(2, 'b')]::py_pos_pair[], true);
DROP FUNCTION py_pairs_back(py_pos_pair[], boolean);
-- a field that is itself a composite, or an array of one, takes a dict or
-- a tuple as its record (review 148 F3: it went as JSON, "malformed record
-- literal"); a whole float in an integer field is an integer, NaN its NULL
-- (review 148 F2: a column of ints with a NaN went as "1.0")
CREATE TYPE py_outer AS (id integer, pair py_pos_pair, pairs py_pos_pair[], n integer);
CREATE FUNCTION py_nested_back() RETURNS py_outer[]
LANGUAGE pysandbox AS $$
import pandas as pd
return [{"id": 1, "pair": {"x": 2, "label": 'q"w'},
         "pairs": [{"x": 3, "label": "y"}, (4, "{z}")], "n": 5.0},
        (2, (7, None), pd.DataFrame({"x": [8.0, float("nan")], "label": ["a", "b"]}),
         float("nan"))]
$$;
SELECT py_nested_back();
SELECT (py_nested_back())[1].pair.label, (py_nested_back())[1].pairs[2].label,
       (py_nested_back())[2].pairs[2].x IS NULL AS null_x,
       (py_nested_back())[2].n IS NULL AS null_n;
CREATE FUNCTION py_nested_one(d jsonb) RETURNS py_outer
LANGUAGE pysandbox AS 'return (1, d, [(3, "y")], 4.0)';
SELECT py_nested_one('{"x": 2}');
-- a dict whose keys are not the fields is refused, not a row of NULLs
SELECT py_nested_one('{"first": 2, "label": "x"}');
SELECT py_nested_one('{"0": 2}');
CREATE FUNCTION py_int_keys() RETURNS py_pair LANGUAGE pysandbox AS 'return {0: 1, 1: "x"}';
SELECT py_int_keys();
DROP FUNCTION py_int_keys();
CREATE FUNCTION py_tuples_in() RETURNS SETOF py_pair
LANGUAGE pysandbox AS $$
import pandas as pd
return list(pd.DataFrame({"a": [1], "b": ["x"]}).itertuples(index=False))
$$;
SELECT * FROM py_tuples_in();
DROP FUNCTION py_tuples_in();
DROP FUNCTION py_nested_back(), py_nested_one(jsonb);
DROP TYPE py_outer;
-- a real[]'s elements arrive as a real scalar does, the double it is
-- (review 151 F3: 1.1 beside 1.100000023841858, unequal to itself)
CREATE FUNCTION py_reals(x real, xs real[]) RETURNS text
LANGUAGE pysandbox AS 'return repr((x, xs, x == xs[0], x in xs))';
SELECT py_reals(1.1, ARRAY[1.1::real, NULL, 'NaN', '-Infinity']), py_reals(2, '{{2},{3}}');
DROP FUNCTION py_reals(real, real[]);

-- a one-value array for a scalar says which value (review 151 F4: the
-- numeric input's "invalid input syntax" of an array literal); a 2-D array
-- is a set's rows, as sandbox_rows takes it; an unnamed Series' columns
CREATE FUNCTION py_pct() RETURNS numeric
LANGUAGE pysandbox AS 'import numpy as np
return np.percentile([1, 2, 3], [50])';
SELECT py_pct();
-- a matrix, a masked array or an Index of one value says which value too
-- (review 156 F5: they got the generic hint)
CREATE FUNCTION py_one(kind text) RETURNS numeric
LANGUAGE pysandbox AS 'import numpy as np, pandas as pd
return {"matrix": np.matrix([[2.5]]), "masked": np.ma.masked_array([2.5]),
        "index": pd.Index([2.5]), "range": pd.RangeIndex(1), "two": pd.Index([1.5, 2.5])}[kind]';
SELECT py_one('matrix');
SELECT py_one('masked');
SELECT py_one('index');
SELECT py_one('range');
SELECT py_one('two');
SELECT * FROM sandbox_rows($$import numpy as np, pandas as pd
def main(): return [(np.matrix([[2.5]]),), (pd.Index([2.5]),)]$$) AS (x numeric);
DROP FUNCTION py_one(text);
-- a DataFrame into an array of a composite takes its columns by name;
-- some named as fields and not all is an error, not a positional match
-- (review 159 F2: y, x, label, date went into x, y, label, day swapped)
CREATE TYPE py_pt AS (x float8, y numeric, label text, day date);
CREATE FUNCTION py_pts(named boolean) RETURNS py_pt[] LANGUAGE pysandbox AS $$
import pandas as pd
if named:
    return pd.DataFrame({"y": [1.5], "x": [10.0], "label": ["a"], "day": ["2024-01-01"]})
return pd.DataFrame({"y": [1.5], "x": [10.0], "label": ["a"], "date": ["2024-01-01"]})
$$;
SELECT py_pts(true);
SELECT py_pts(false);
-- ... and so are columns named as the fields in another case (review 162 F2)
CREATE FUNCTION py_pts_cased() RETURNS py_pt[] LANGUAGE pysandbox AS $$
import pandas as pd
return pd.DataFrame({"Y": [1.5], "X": [10.0], "Label": ["a"], "Day": ["2024-01-01"]})
$$;
SELECT py_pts_cased();
DROP FUNCTION py_pts(boolean), py_pts_cased();
DROP TYPE py_pt;
CREATE FUNCTION py_grid() RETURNS TABLE(a int, b int)
LANGUAGE pysandbox AS 'import numpy as np
return np.array([[1, 2], [3, 4]])';
SELECT * FROM py_grid();
CREATE FUNCTION py_spans() RETURNS TABLE(a interval, b interval)
LANGUAGE pysandbox AS 'import numpy as np
return np.array([[1, 2]], dtype="m8[s]").astype("m8[ns]")';
SELECT * FROM py_spans();
CREATE FUNCTION py_words() RETURNS TABLE(word text, n bigint)
LANGUAGE pysandbox AS 'import pandas as pd
return pd.Series(["a", "b", "a"]).value_counts().reset_index()';
SELECT * FROM py_words();
DROP FUNCTION py_pct(), py_grid(), py_spans(), py_words();

-- OUT parameters make a row
CREATE FUNCTION py_divmod(a integer, b integer, OUT q integer, OUT r integer)
LANGUAGE pysandbox AS 'return a // b, a % b';
SELECT * FROM py_divmod(17, 5);

-- sets: yield, an iterable, or a DataFrame
CREATE FUNCTION py_squares(n integer) RETURNS SETOF integer
LANGUAGE pysandbox AS $$
for i in range(n):
    yield i * i
$$;
SELECT * FROM py_squares(4);
SELECT py_squares(3);
CREATE FUNCTION py_empty() RETURNS SETOF text
LANGUAGE pysandbox AS 'return None';
SELECT count(*) FROM py_empty();
CREATE FUNCTION py_totals(n integer) RETURNS TABLE(region text, total float8)
LANGUAGE pysandbox AS $$
import pandas as pd
df = pd.DataFrame({"region": ["n", "s", "n", "s"][:n], "amount": [1.0, 2.0, 3.5, 4.0][:n]})
return df.groupby("region", as_index=False)["amount"].sum().rename(columns={"amount": "total"})
$$;
SELECT * FROM py_totals(4) ORDER BY region;
CREATE FUNCTION py_pairs() RETURNS SETOF py_pair
LANGUAGE pysandbox AS $$
return [{"x": 1, "label": "one"}, {"label": "two", "x": 2}]
$$;
SELECT * FROM py_pairs();
-- rows given both ways are taken each as it is, a tuple by position, as
-- PL/Python takes them (review 75: an error)
CREATE FUNCTION py_mixed() RETURNS SETOF py_pair
LANGUAGE pysandbox AS 'return [{"x": 1, "label": "one"}, (2, "two")]';
SELECT * FROM py_mixed();
-- RETURNS TABLE takes a dict as sandbox_rows does: a dict of lists is
-- columns, another dict one row (review 48: refused as "a dict for a set")
CREATE FUNCTION py_bins(edges float8[], counts int[])
RETURNS TABLE (lo float8, hi float8, n int) LANGUAGE pysandbox AS $$
return {"lo": edges[:-1], "hi": edges[1:], "n": counts}
$$;
SELECT * FROM py_bins('{0, 1, 2.5}', '{4, 7}');
CREATE FUNCTION py_one_summary() RETURNS TABLE (total int, n int)
LANGUAGE pysandbox AS 'return {"total": 10, "n": 2}';
SELECT * FROM py_one_summary();
-- a one-column RETURNS TABLE is a set of values, which takes its rows as
-- 1-tuples or dicts of its column too, and names the column in errors
-- (review 50: refused, naming the function as the column)
CREATE FUNCTION py_one_column() RETURNS TABLE (a int)
LANGUAGE pysandbox AS 'return [{"a": 1}, (2,), 3]';
SELECT * FROM py_one_column();
CREATE OR REPLACE FUNCTION py_one_column() RETURNS TABLE (a int)
LANGUAGE pysandbox AS 'return ["x"]';
SELECT * FROM py_one_column();
DROP FUNCTION py_bins, py_one_summary, py_one_column;
-- None in a set of rows is a row of NULLs (review 43: refused with a message
-- that listed None as allowed); another value says which row
CREATE FUNCTION py_null_rows() RETURNS SETOF py_pair
LANGUAGE pysandbox AS $$
yield (1, "one")
yield None
yield [3, "three"]
$$;
SELECT * FROM py_null_rows();
CREATE FUNCTION py_odd_row() RETURNS SETOF py_pair
LANGUAGE pysandbox AS 'return [{"x": 1, "label": "one"}, None, 5]';
SELECT * FROM py_odd_row();
CREATE FUNCTION py_records() RETURNS SETOF record
LANGUAGE pysandbox AS 'return [(1, "a"), (2, "b")]';
SELECT * FROM py_records() AS t(n integer, s text);
-- ... rescanned for every row of a lateral join
SELECT g, t.* FROM generate_series(1, 2) AS g, LATERAL py_records() AS t(n integer, s text)
ORDER BY g, n;
-- a set from a string is refused (it would be its characters)
CREATE FUNCTION py_bad_set() RETURNS SETOF text
LANGUAGE pysandbox AS 'return "abc"';
SELECT * FROM py_bad_set();
-- and so is a single value, with what to return instead
CREATE FUNCTION py_one_for_set() RETURNS SETOF int
LANGUAGE pysandbox AS 'return 5';
SELECT * FROM py_one_for_set();
-- an endless generator under a LIMIT: the rows are all made first, and the
-- hint says so (review 107)
CREATE FUNCTION py_endless() RETURNS SETOF int
LANGUAGE pysandbox SET pysandbox.timeout = '300ms' AS $$
import time
i = 0
while True:
    time.sleep(0.01)
    yield i
    i += 1
$$;
SELECT * FROM py_endless() LIMIT 3;

-- void functions, prints as NOTICE, and DO blocks
CREATE FUNCTION py_say(msg text) RETURNS void
LANGUAGE pysandbox AS 'print("said:", msg)';
SELECT py_say('hello');
DO LANGUAGE pysandbox $$
import pandas as pd
print(pd.Series([1, 2, 3]).sum())
$$;
-- a value returned from either is an error, as in PL/Python (review 75:
-- it was dropped without a word)
CREATE FUNCTION py_say_back(msg text) RETURNS void
LANGUAGE pysandbox AS 'return msg.upper()';
SELECT py_say_back('hello');
DO LANGUAGE pysandbox 'return 5';

-- errors: exceptions with the line of the body, and the function's name
CREATE FUNCTION py_fails(x integer) RETURNS integer
LANGUAGE pysandbox AS $$
y = x + 1
return y / 0
$$;
SELECT py_fails(1);
DO LANGUAGE pysandbox $$
raise ValueError("from a DO block")
$$;

-- the validator: the body is checked at CREATE FUNCTION, at its own lines
CREATE FUNCTION py_forbidden() RETURNS integer
LANGUAGE pysandbox AS $$
x = 1
import os
return x
$$;
CREATE FUNCTION py_syntax() RETURNS integer
LANGUAGE pysandbox AS $$
return (1 +
$$;
CREATE FUNCTION py_dunder() RETURNS text
LANGUAGE pysandbox AS 'return (1).__class__';
-- arguments need names that are Python identifiers
CREATE FUNCTION py_unnamed(integer) RETURNS integer
LANGUAGE pysandbox AS 'return 1';
CREATE FUNCTION py_keyword("class" integer) RETURNS integer
LANGUAGE pysandbox AS 'return 1';
-- no triggers, no internal or other pseudo-types, no domains over composites
CREATE FUNCTION py_trigger() RETURNS trigger
LANGUAGE pysandbox AS 'return None';
CREATE FUNCTION py_internal(x internal) RETURNS integer
LANGUAGE pysandbox AS 'return 1';
CREATE FUNCTION py_setof_void() RETURNS SETOF void
LANGUAGE pysandbox AS 'return None';
CREATE DOMAIN py_pair_domain AS py_pair CHECK ((VALUE).x > 0);
CREATE FUNCTION py_domain() RETURNS py_pair_domain
LANGUAGE pysandbox AS 'return (-1, "negative")';
DROP DOMAIN py_pair_domain;
-- a function named as a builtin the validator refuses still works
CREATE FUNCTION open(path text) RETURNS text
LANGUAGE pysandbox AS 'return path.upper()';
SELECT open('/etc/passwd');
DROP FUNCTION open(text);
-- with check_function_bodies off (pg_restore) the body is checked at the call
SET check_function_bodies = off;
CREATE FUNCTION py_late() RETURNS integer
LANGUAGE pysandbox AS 'import os';
RESET check_function_bodies;
SELECT py_late();

-- limits follow the settings, which ALTER FUNCTION ... SET can tighten
CREATE FUNCTION py_spin() RETURNS integer
LANGUAGE pysandbox AS $$
while True: pass
$$;
ALTER FUNCTION py_spin() SET pysandbox.cpu_limit = '200ms';
SELECT py_spin();

-- privileges: USAGE to create, EXECUTE to call
CREATE ROLE regress_pysandbox_lang;
GRANT CREATE ON SCHEMA public TO regress_pysandbox_lang;
SET ROLE regress_pysandbox_lang;
CREATE FUNCTION py_mine() RETURNS integer LANGUAGE pysandbox AS 'return 1';
DO LANGUAGE pysandbox 'print(1)';
RESET ROLE;
GRANT USAGE ON LANGUAGE pysandbox TO regress_pysandbox_lang;
SET ROLE regress_pysandbox_lang;
CREATE FUNCTION py_mine() RETURNS integer LANGUAGE pysandbox AS 'return 41 + 1';
SELECT py_mine();
REVOKE EXECUTE ON FUNCTION py_mine() FROM PUBLIC;
-- an ordinary role lowers its function's limits with pysandbox.options;
-- it cannot set the limits themselves
CREATE FUNCTION py_mine_spin(n int) RETURNS integer
LANGUAGE pysandbox AS $$
if n > 0:
    return len(sql("SELECT generate_series(1, $1)", n))
while True: pass
$$;
ALTER FUNCTION py_mine_spin(int) SET pysandbox.options = '{"cpu_ms": 150, "max_input_rows": 3}';
SELECT py_mine_spin(0);
SELECT py_mine_spin(3);
SELECT py_mine_spin(4);
-- per row, too: each call keeps to them
SELECT py_mine_spin(i) FROM generate_series(1, 3) AS i;
SELECT py_mine_spin(i) FROM (VALUES (2), (0)) AS v(i);
-- an interval argument with months (a relativedelta) goes back to sql() as
-- a parameter (review 139 F5: refused)
CREATE FUNCTION py_later(iv interval) RETURNS date
LANGUAGE pysandbox AS $$
return sql("SELECT DATE '2024-01-31' + $1 AS d", iv).d[0].date()
$$;
SELECT py_later('1 mon');
CREATE OR REPLACE FUNCTION py_later(iv interval) RETURNS date
LANGUAGE pysandbox AS $$
return sql("SELECT DATE '2024-01-31' + $1::interval AS d", iv).d[0].date()
$$;
SELECT py_later('1 mon'), py_later('-1 year -2 mons 3 days'), py_later('2 days');
DROP FUNCTION py_later(interval);
ALTER FUNCTION py_mine_spin(int) SET pysandbox.cpu_limit = '1h';
ALTER FUNCTION py_mine_spin(int) SET pysandbox.options = '{"cpu": 1}';
CREATE FUNCTION py_mine_bad() RETURNS integer LANGUAGE pysandbox
SET pysandbox.options = '{"verify": "assert True"}' AS 'return 1';
SELECT proconfig FROM pg_proc WHERE proname = 'py_mine_spin';
DROP FUNCTION py_mine_spin(int);
RESET ROLE;
SELECT pg_get_functiondef('py_mine'::regproc);
DROP FUNCTION py_mine();
REVOKE CREATE ON SCHEMA public FROM regress_pysandbox_lang;
REVOKE USAGE ON LANGUAGE pysandbox FROM regress_pysandbox_lang;
DROP ROLE regress_pysandbox_lang;

DROP FUNCTION py_add, py_is_none, py_nothing, py_types, py_next_day, py_stamp,
    py_json, py_dumps, py_say_back, py_bytes, py_array, py_numeric, py_big, py_swap, py_tuple, py_named,
    py_divmod, py_squares, py_empty, py_totals, py_pairs, py_mixed, py_null_rows, py_odd_row, py_records, py_bad_set,
    py_one_for_set, py_say, py_fails, py_late, py_spin, py_summary, py_frame_shape, py_records_in,
    py_frame_types, py_event_types, py_record_types;
DROP DOMAIN py_pos_pair;
DROP TYPE py_event;
DROP TYPE py_pair;
DROP TABLE py_sales;
-- WINDOW: PostgreSQL hands a window function no arguments in fcinfo (review 34)
CREATE FUNCTION py_window(x integer) RETURNS integer LANGUAGE pysandbox WINDOW AS $$return x$$;

-- a scalar float result's NaN is NULL, as in rows and JSON, called once or
-- per row (review 165 F1: kept as PL/Python does since review 71, it made
-- a float column's NULLs, which arrive as NaN, come back NaN); the text
-- 'NaN' is NaN
CREATE FUNCTION py_ident_f8(x float8) RETURNS float8 LANGUAGE pysandbox AS 'return x';
CREATE FUNCTION py_nan_text() RETURNS float8 LANGUAGE pysandbox AS 'return "NaN"';
SELECT py_nan_text();
DROP FUNCTION py_nan_text;
SELECT py_ident_f8('NaN') AS nan, py_ident_f8(NULL) IS NULL AS is_null, py_ident_f8(1.5) AS value,
       (SELECT array_agg(py_ident_f8(v) ORDER BY n) FROM unnest(ARRAY['NaN'::float8, 2, NULL]) WITH ORDINALITY AS u(v, n)) AS per_row;
DROP FUNCTION py_ident_f8;

-- procedures (review 98): CALL returns the INOUT and OUT parameters, from
-- a tuple or a dict, or from the value alone when there is one; a value
-- returned where there is none to return it in, or too few, says which
-- parameters there are and what to write
CREATE PROCEDURE py_bump(INOUT x int) LANGUAGE pysandbox AS 'return x + 1';
CALL py_bump(41);
CREATE PROCEDURE py_grow(INOUT a int[]) LANGUAGE pysandbox AS 'return a + [len(a) + 1]';
CALL py_grow(ARRAY[1, 2]);
CREATE PROCEDURE py_split(whole text, OUT head text, OUT rest text) LANGUAGE pysandbox AS $$
head, _, rest = whole.partition(" ")
return {"rest": rest, "head": head}
$$;
CALL py_split('hello big world', NULL, NULL);
DO $$
DECLARE n int := 1;
BEGIN
    FOR i IN 1..3 LOOP
        CALL py_bump(n);
    END LOOP;
    RAISE NOTICE 'n = %', n;
END $$;
CREATE PROCEDURE py_log(x int) LANGUAGE pysandbox AS 'print("got", x)';
CALL py_log(7);
CREATE PROCEDURE py_returns_nowhere(x int) LANGUAGE pysandbox AS 'return x * 2';
CALL py_returns_nowhere(7);
CREATE PROCEDURE py_two(INOUT a int, INOUT b text) LANGUAGE pysandbox AS 'return a + 1';
CALL py_two(1, 'x');
CREATE PROCEDURE py_bump_unreturned(INOUT x int) LANGUAGE pysandbox AS $$
def main(x):
    return x + 1
main(x)
$$;
CALL py_bump_unreturned(1);
CREATE PROCEDURE py_bump_none(INOUT x int) LANGUAGE pysandbox AS 'return None';
CALL py_bump_none(1);
DROP PROCEDURE py_bump, py_grow, py_split, py_log, py_returns_nowhere, py_two,
    py_bump_unreturned, py_bump_none;

-- a body that only defines main(), as sandbox_execute takes code, runs none
-- of it: refused at CREATE FUNCTION with what to write (review 94: NULL)
CREATE FUNCTION py_never_called(x int, y int) RETURNS int LANGUAGE pysandbox AS $$
import math
def main(x, y):
    return x + y
$$;
-- a body that calls main(x) without returning its value: an error naming
-- the return to write when the value is dropped (review 95: NULL); a
-- function returning void runs as in Python; a body with no return at all
-- (a helper that returns None) is 2F005, as PL/pgSQL's "control reached end
-- of function without RETURN" (review 107: NULL), and so is one ending
-- with a bare name
CREATE FUNCTION py_unreturned(x int) RETURNS int LANGUAGE pysandbox AS $$
def main(x):
    return x * 2
main(x)
$$;
SELECT py_unreturned(21);
CREATE FUNCTION py_unreturned_set(x int) RETURNS SETOF int LANGUAGE pysandbox AS $$
def main(x):
    return [x, x + 1]
main(x)
$$;
SELECT * FROM py_unreturned_set(1);
CREATE FUNCTION py_unreturned_void(x int) RETURNS void LANGUAGE pysandbox AS $$
def main(x):
    return x * 2
main(x)
$$;
SELECT py_unreturned_void(21);
CREATE FUNCTION py_helper_none(x int) RETURNS int LANGUAGE pysandbox AS $$
def helper(x):
    print(x)
helper(x)
$$;
SELECT py_helper_none(21) IS NULL AS is_null;
CREATE FUNCTION py_bare_name(x int) RETURNS int LANGUAGE pysandbox AS $$
y = x + 1
y
$$;
SELECT py_bare_name(1);
CREATE FUNCTION py_only_prints(x int) RETURNS SETOF int LANGUAGE pysandbox AS $$
out = [x, x + 1]
print(out)
$$;
SELECT * FROM py_only_prints(1);
CREATE FUNCTION py_out_assigned(x int, OUT a int, OUT b int) LANGUAGE pysandbox AS $$
a = x
b = x + 1
$$;
SELECT * FROM py_out_assigned(1);
CREATE FUNCTION py_none_on_purpose(x int) RETURNS int LANGUAGE pysandbox AS $$
if x > 0:
    return x
$$;
SELECT py_none_on_purpose(-1) IS NULL AS is_null;
DROP FUNCTION py_unreturned, py_unreturned_set, py_unreturned_void, py_helper_none, py_bare_name,
    py_only_prints, py_out_assigned, py_none_on_purpose;
-- review 107: an argument named as a refused builtin is named as the
-- argument; PL/Python's args and plpy get hints; imports' hints speak of
-- arguments and sql(), not inputs; a body that starts on the $$ line and
-- goes on indented alike runs, as in PL/Python
CREATE FUNCTION py_arg_input(input text) RETURNS text LANGUAGE pysandbox AS $$
return input
$$;
CREATE FUNCTION py_args(x int) RETURNS int LANGUAGE pysandbox AS $$
return args[0]
$$;
SELECT py_args(1);
CREATE FUNCTION py_plpy(x int) RETURNS int LANGUAGE pysandbox AS $$
import plpy
return x
$$;
CREATE FUNCTION py_os(x int) RETURNS int LANGUAGE pysandbox AS $$
import subprocess
return x
$$;
CREATE FUNCTION py_same_indent(x int) RETURNS int LANGUAGE pysandbox AS $$  y = x + 1
  return y
$$;
SELECT py_same_indent(1);
-- one OUT parameter takes a dict of that parameter, as a procedure's one
-- INOUT does (review 107 F7: "dict" did not fit an integer column)
CREATE FUNCTION py_one_out(x int, OUT y int) LANGUAGE pysandbox AS $$ return {"y": x + 1} $$;
SELECT py_one_out(3);
-- a function's one value gets advice for one value, not for a Series
CREATE FUNCTION py_text_for_int(x int) RETURNS int LANGUAGE pysandbox AS $$ return "abc" $$;
SELECT py_text_for_int(1);
DROP FUNCTION py_args, py_same_indent, py_one_out, py_text_for_int;
-- a statement with more call sites than a session keeps (16): the one
-- called last gives way, so most sites keep their child (and SD) from row
-- to row (review 107: the one called longest ago gave way, the one called
-- next, and every call of 17 sites started afresh, SD always 1)
DO $d$ BEGIN FOR i IN 1..17 LOOP
    EXECUTE format('CREATE FUNCTION py_site%s(x int) RETURNS int LANGUAGE pysandbox AS $b$
SD["n"] = SD.get("n", 0) + 1
return SD["n"]
$b$', i);
END LOOP; END $d$;
SELECT max((SELECT count(*) FROM unnest(v) n WHERE n = 5)) >= 10 AS most_sites_kept
FROM (SELECT ARRAY[py_site1(g), py_site2(g), py_site3(g), py_site4(g), py_site5(g), py_site6(g),
                   py_site7(g), py_site8(g), py_site9(g), py_site10(g), py_site11(g), py_site12(g),
                   py_site13(g), py_site14(g), py_site15(g), py_site16(g), py_site17(g)] AS v
      FROM generate_series(1, 5) g OFFSET 0) s;
DO $d$ BEGIN FOR i IN 1..17 LOOP
    EXECUTE format('DROP FUNCTION py_site%s(int)', i);
END LOOP; END $d$;
-- SD lasts while the child has room for nine more calls' CPU limit, not
-- about 1 s of CPU in all (review 107: 3 s of busy rows at cpu_ms 500
-- restarted the count after 24 rows)
CREATE FUNCTION py_busy_count(n float8) RETURNS int LANGUAGE pysandbox
SET pysandbox.options = '{"cpu_ms": 500}' AS $$
import time
t = time.time()
while time.time() - t < n:
    pass
SD["n"] = SD.get("n", 0) + 1
return SD["n"]
$$;
SELECT array_agg(py_busy_count(0.1)) = array_agg(g) AS counted_every_row
FROM generate_series(1, 30) g;
DROP FUNCTION py_busy_count;
-- PL/Python's GD: the hint names SD
CREATE FUNCTION py_gd(x int) RETURNS int LANGUAGE pysandbox AS $$
GD["n"] = GD.get("n", 0) + x
return GD["n"]
$$;
SELECT py_gd(1);
DROP FUNCTION py_gd;
-- sql() refused to a superuser: the hint speaks of arguments in a function
-- (review 107 F8: it spoke of $query and $table inputs)
CREATE FUNCTION py_su_sql() RETURNS int LANGUAGE pysandbox AS $$
return int(sql("SELECT 1 AS x").x[0])
$$;
SELECT py_su_sql();
DROP FUNCTION py_su_sql();
