--
-- repairs: every error an agent can cause names what exists and what to do,
-- so that a model can repair its code in one step (issue 15, part 5).  Each
-- case shows what sandbox_execute raises and what sandbox_run reports.
--
\pset format unaligned

CREATE FUNCTION pg_temp.both(code text, inputs jsonb DEFAULT '{}',
                             returns text[] DEFAULT '{main}')
RETURNS jsonb LANGUAGE plpgsql AS $f$
DECLARE
    s text; m text;
    raised jsonb := 'null';
BEGIN
    BEGIN
        PERFORM sandbox_execute(code, inputs, returns);
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
        raised := jsonb_build_object('sqlstate', s, 'message', m);
    END;
    RETURN jsonb_build_object('raised', raised,
        'report', (sandbox_run(code, inputs, returns)->'error') - 'traceback');
END
$f$;

CREATE TABLE repairs_sales (region text, amount numeric, sold_on date);
INSERT INTO repairs_sales VALUES ('east', 10, '2024-01-01'), ('west', 5, '2024-01-02');

-- a column that does not exist: the DataFrame's columns, closest first
SELECT jsonb_pretty(pg_temp.both($$
def main(sales):
    return sales.groupby("region")["amont"].sum()
$$, '{"sales": {"$table": "repairs_sales"}}'));
SELECT jsonb_pretty(pg_temp.both($$
def main(sales):
    return sales[["region", "sold"]]
$$, '{"sales": {"$table": "repairs_sales"}}'));

-- a script, not a function: the hint shows the function, with the inputs
-- as its parameters
SELECT jsonb_pretty(pg_temp.both($$
import pandas as pd
df = sales.copy()
result = df.groupby("region").amount.sum()
$$, '{"sales": {"$table": "repairs_sales"}, "top": 3}'));

-- a column read as an attribute: the DataFrame's columns, closest first
SELECT jsonb_pretty(pg_temp.both($$
def main(sales):
    return sales.amont.sum()
$$, '{"sales": {"$table": "repairs_sales"}}'));
-- a row label the index does not have: its labels, closest first
SELECT jsonb_pretty(pg_temp.both($$
def main(sales):
    return float(sales.groupby("region").amount.sum().loc["eats"])
$$, '{"sales": {"$table": "repairs_sales"}}'));

-- a parameter no input fills: the inputs given (22023, the caller's to fix)
SELECT jsonb_pretty(pg_temp.both($$
def main(sales, year):
    return len(sales)
$$, '{"sales": {"$table": "repairs_sales"}, "region": "east"}'));

-- a returns name the code does not define: the functions it defines
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return 1
def totals():
    return 2
$$, '{}', '{main,total}'));

-- an input used as a global name: inputs arrive as parameters
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return len(sales)
$$, '{"sales": [1, 2, 3]}'));

-- every validator finding, not just the first
SELECT jsonb_pretty(sandbox_run($$
import os
def main():
    return eval("1") + os.getpid()
$$)->'error'->'findings');

-- a table input that fails is a report, with its position, and the
-- transaction goes on
BEGIN;
SELECT jsonb_pretty((sandbox_run('def main(t): return len(t)',
                                 '{"t": {"$query": "SELECT amount FROM repairs_salez"}}')->'error')
                    - 'traceback');
SELECT jsonb_pretty((sandbox_run('def main(t): return len(t)',
                                 '{"t": {"$query": "SELECT amount / $1 FROM repairs_sales", "$params": [0]}}')->'error')
                    - 'traceback');
SELECT count(*) FROM repairs_sales;
COMMIT;
-- ... while sandbox_execute raises it, as a query would
SELECT sandbox_execute('def main(t): return len(t)',
                       '{"t": {"$query": "SELECT amount FROM repairs_salez"}}');

-- printed output has its own cap (pysandbox.max_print_bytes), cut whole
SET pysandbox.max_print_bytes = 40;
SELECT sandbox_run($$
def main():
    for i in range(10):
        print("line", i)
    return 1
$$)->>'stdout' AS stdout;
SET pysandbox.print = notice;
SELECT sandbox_execute($$
def main():
    for i in range(10):
        print("line", i)
    return 1
$$);
-- with group_by, all groups' prints together (one NOTICE says what was not shown)
SELECT sandbox_execute($$
def main(df):
    for i in range(3):
        print("group", df.g.iloc[0], i)
    return 1
$$, '{"df": {"$query": "SELECT g FROM generate_series(1, 3) g"}}', options => '{"group_by": "g"}');
RESET pysandbox.max_print_bytes;
RESET pysandbox.print;

-- a module that is allowed but would load native code the worker did not
-- preload: the setting that fixes it (here nothing is preloaded)
SELECT detail FROM sandbox_layers() WHERE layer = 'preload';
SET pysandbox.allowed_modules = 'pandas, numpy, scipy';
SELECT sandbox_execute($$
import scipy.stats
def main():
    return 1
$$);
-- ... as pandas' own use of it says, in the hint of the blocked call
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.Series([1.0, None, 3.0, 5.0]).interpolate(method="akima")
$$);
RESET pysandbox.allowed_modules;
-- pandas' numba engine compiles machine code: never available, preloaded or
-- not (it ended the call as a blocked mmap that hinted at preloading)
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.DataFrame({"a": [1.0, 2.0]}).ewm(0.5).online().mean()
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.Series([1.0, 2.0, 3.0]).rolling(2).apply(lambda w: w.sum(), engine="numba", raw=True)
$$) -> 'main';

-- a module the sandbox does not have: the hint names what to use instead,
-- for the ones analytics code reaches for most
SELECT jsonb_pretty(pg_temp.both($$
import pytz
def main():
    return str(pytz.timezone("Europe/Paris"))
$$) #- '{raised,message}' #- '{report,message}' #- '{report,findings}');
SELECT r->'error'->'findings'->0->>'hint' AS hint
FROM unnest(ARRAY['import seaborn as sns', 'from sklearn.linear_model import LinearRegression',
                  'import psycopg2', 'import requests', 'import csv', 'import tqdm',
                  'from types import SimpleNamespace', 'import joblib',
                  -- a submodule's own hint before its package's (review 100)
                  'from dateutil.rrule import rrule', 'import pandas.util', 'import numpy.testing',
                  'import openpyxl', 'from tabulate import tabulate', 'import secrets',
                  -- a misspelt allowed module (review 123 F5)
                  'import pandsa as pd']) AS i,
     sandbox_run(i || E'\ndef main(): return 1') AS r;
-- ... and a misspelt submodule of one, when the import runs
SELECT sandbox_run(E'import matplotlib.pyplott as plt\ndef main(): return 1')->'error'->>'message';
-- ... and none whose advice the allowlist does not permit
SET pysandbox.allowed_modules = 'math';
SELECT sandbox_run($$
import pytz
def main(): return 1
$$)->'error'->>'hint' IS NULL AS no_hint;
RESET pysandbox.allowed_modules;

-- pandas 2 names, in pandas 1.5: which pandas this is, and its spelling
SELECT coalesce(r->'error'->>'message', 'ok: ' || (r->'returns'->>'main')) AS message
FROM unnest(ARRAY[
$c$import pandas as pd
def main():
    s = pd.Series(range(10), index=pd.date_range("2024-01-01", periods=10, freq="D"))
    return s.resample("ME").sum()$c$,
$c$import pandas as pd
def main():
    return pd.DataFrame({"a": [1]}).map(str)$c$,
$c$import pandas as pd
def main():
    df = pd.DataFrame({"k": [1, 1], "v": [2, 3]})
    return df.groupby("k").apply(lambda g: len(g), include_groups=False)$c$,
$c$import pandas as pd
def main():
    return pd.__version__.count(".")$c$]) AS c, sandbox_run(c) AS r;
-- to_datetime's format="mixed" and "ISO8601" parse as this pandas does
-- without a format (each was a strftime format nothing matched: with
-- errors="coerce", all NaT)
SELECT sandbox_execute($$
import pandas as pd
def main():
    s = pd.Series(["2024-01-05", "05/01/2024", "Jan 3 2024", "2024-01-06T10:00:00", "bad"])
    return [pd.to_datetime(s, format="mixed", errors="coerce").astype(str).tolist(),
            pd.to_datetime(s.iloc[[0, 3]], format="ISO8601").astype(str).tolist()]
$$);

-- the types a table's columns arrive as, when code expects others (review
-- 44): a date compared with datetime.date, a timestamptz with a naive
-- datetime, a jsonb column indexed like one object, Decimal times float;
-- and PL/Python's plpy
SELECT sandbox_run(c, '{"df": {"$query": "SELECT date ''2023-07-01'' AS d, timestamptz ''2023-07-01 00:00+00'' AS ts, jsonb_build_object(''channel'', ''web'') AS meta, 1.5::numeric AS x"}}',
                   '{main}', '{"numeric": "decimal"}')->'error'->>'message' AS message
FROM unnest(ARRAY[
$c$import datetime
def main(df):
    return len(df[df["d"] >= datetime.date(2023, 6, 1)])$c$,
$c$from datetime import datetime
def main(df):
    return len(df[df["ts"] >= datetime(2023, 6, 1)])$c$,
$c$def main(df):
    return df["meta"]["channel"]$c$,
$c$def main(df):
    return float((df["x"] * 1.1).sum())$c$,
$c$def main(df):
    return plpy.execute("SELECT 1")$c$]) AS c;

-- code is validated before its table inputs are read: a forbidden import
-- fails as itself, not as the query that would fail (or take long)
CREATE FUNCTION repairs_noisy() RETURNS int LANGUAGE plpgsql AS
$$BEGIN RAISE NOTICE 'repairs_noisy read'; RETURN 1; END$$;
SELECT sandbox_execute($$
import os
def main(t): return len(t)
$$, '{"t": {"$query": "SELECT 1/0 AS x"}}');
SELECT sandbox_execute($$
def main(t) return len(t)
$$, '{"t": {"$query": "SELECT repairs_noisy() AS n"}}');
SELECT * FROM sandbox_rows($$
import socket
def main(t): return t
$$, '{"t": {"$query": "SELECT repairs_noisy() AS n"}}', 'main') AS r(n int);
-- ... but the caller's own mistakes in the inputs (22023) come first
SELECT sandbox_execute($$
import os
def main(t): return len(t)
$$, '{"t": {"$query": "SELECT 1/0 AS x"}, "__t": 1}');
SELECT sandbox_execute($$
import os
def main(t): return len(t)
$$, '{"t": {"$query": "SELECT 1/0 AS x", "$params": 5}}');
-- ... sandbox_run reports it with no input read
SELECT r->'error'->>'kind' AS kind, r->'error'->>'rule' AS rule,
       r->'error'->>'sqlstate' AS sqlstate, r->'usage'->'input_rows' AS input_rows
FROM sandbox_run($$
import os
def main(t): return len(t)
$$, '{"t": {"$query": "SELECT repairs_noisy() AS n"}}') AS r;
-- code that passes reads its inputs once, then and on every later call
SELECT sandbox_execute($$
def main(t): return int(t["n"].sum())
$$, '{"t": {"$query": "SELECT repairs_noisy() AS n"}}');
SELECT sandbox_execute($$
def main(t): return int(t["n"].sum())
$$, '{"t": {"$query": "SELECT repairs_noisy() AS n"}}');
SELECT sandbox_execute($$
def main(t): return len(t)
$$, '{"t": {"$query": "SELECT 1/0 AS x"}}');
DROP FUNCTION repairs_noisy();

-- timestamptz arrives time zone-aware: comparing it with a naive value says so
SELECT sandbox_execute($$
import pandas as pd
def main(t):
    return int((t["ts"] > pd.Timestamp("2024-01-01")).sum())
$$, '{"t": {"$query": "SELECT timestamptz ''2024-06-01 12:00+00'' AS ts"}}');
SELECT sandbox_execute($$
import pandas as pd
def main(t):
    return int((t["ts"] > pd.Timestamp("2024-01-01", tz="UTC")).sum())
$$, '{"t": {"$query": "SELECT timestamptz ''2024-06-01 12:00+00'' AS ts"}}');

-- what agents' charts begin with: choosing Agg, the sandbox's own backend,
-- may stay (review 48); the notebook's has its own message, without the
-- advice for scripts
SELECT r -> 'ok' AS ok, r -> 'returns' -> 'main' ->> '$image' AS image
FROM sandbox_run($$
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots()
    return fig
$$) AS r;
SELECT r -> 'error' ->> 'message' AS message, r -> 'error' ->> 'hint' AS hint
FROM sandbox_run($$
import matplotlib
matplotlib.use("module://matplotlib_inline.backend_inline")
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots()
    return fig
$$) AS r;
-- a chart shown (plt.show()) instead of returned: the report says to return
-- the figure; returning pyplot itself names the module and the fix; a KDE
-- plot (scipy) says what to draw instead (review 48)
SELECT r -> 'returns' AS returns, r ->> 'hint' AS hint, jsonb_array_length(r -> 'figures') AS figures
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.plot([1, 2])
    plt.show()
$$) AS r;
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.plot([1, 2])
    return plt
$$) -> 'error' ->> 'message' AS message;
SELECT sandbox_run($$
import pandas as pd
def main():
    return pd.Series([1.0, 2.0, 3.0]).plot.kde().figure
$$) -> 'error' ->> 'message' AS message;
-- Spearman's correlation of two Series imports scipy; pandas ranks alone
SELECT sandbox_run($$
import pandas as pd
def main():
    return pd.Series([1.0, 2.0, 3.0]).corr(pd.Series([3.0, 1.0, 2.0]), method="spearman")
$$) -> 'error' ->> 'message' AS message;
-- merge keys with NULLs (Int64) against int64 keys: what pandas 1.5.3 says
-- names neither; the message says what to change
SELECT sandbox_run($$
def main(e):
    return len(e.merge(e, left_on="mgr", right_on="id", suffixes=("", "_m")))
$$, '{"e": {"$query": "SELECT * FROM (VALUES (1, NULL::int), (2, 1)) v(id, mgr)"}}')
       -> 'error' ->> 'message' AS message;
-- Jupyter's display() says what to do instead
SELECT sandbox_run($$
def main():
    display([1, 2])
$$) -> 'error' ->> 'message' AS message;

-- numpy on an integer column with NULLs (nullable Int64) says what to do
SELECT sandbox_execute($$
import numpy as np
def main(t):
    return float(np.polyfit(t["a"], t["b"], 1)[0])
$$, '{"t": {"$query": "SELECT * FROM (VALUES (1, 2), (NULL, 3), (3, 5)) AS v(a, b)"}}');
-- a column list written unquoted in mixed case is folded to lower case: said so
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return pd.DataFrame({"totalSalary": [1]})
$$) AS t(totalSalary int);

-- a library's warning names the code's line, also where the sandbox wraps
-- the library function that warned (a string aggregation)
SELECT sandbox_run($$
import pandas as pd
def main():
    df = pd.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3], "s": ["x", "y", "z"]})
    return len(df.groupby("k").agg("mean"))
$$) ->> 'stderr' AS stderr;

-- code in a markdown fence, as models write it: the hint says to drop it
SELECT sandbox_execute($$```python
def main():
    return 1
```$$);
-- a misspelled name: the names it may mean
SELECT sandbox_run($$
def main():
    total = 5
    return totl
$$) -> 'error' ->> 'message' AS message;
-- df.query() naming no column: the frame's columns
SELECT sandbox_run($$
import pandas as pd
def main():
    df = pd.DataFrame({"amount": [1, 9], "region": ["a", "b"]})
    return len(df.query("amnt > 5"))
$$) -> 'error' ->> 'message' AS message;
-- astype(int) over missing values: what to do instead
SELECT sandbox_run($$
import pandas as pd
def main():
    return pd.Series([1.0, None]).astype(int).tolist()
$$) -> 'error' ->> 'message' AS message;
-- a groupby or a Styler returned as it is: aggregate it, or return its data
SELECT sandbox_run($$
import pandas as pd
def main():
    return pd.DataFrame({"k": ["a", "b"], "v": [1, 2]}).groupby("k")
$$) -> 'error' ->> 'message' AS message;
-- printing the answer instead of returning it: sandbox_run says so
SELECT sandbox_run($$
def main():
    print({"total": 3})
$$) ->> 'hint' AS hint;
SELECT sandbox_run('def main(): return None') ? 'hint' AS hint_without_print;
-- def main(*args) would get no inputs: said so; def main(**inputs) gets them all
SELECT sandbox_execute('def main(*args): return len(args)', '{"df": {"$query": "SELECT 1 AS a"}, "n": 3}');
SELECT sandbox_execute('def main(n, **rest): return [n, sorted(rest)]', '{"df": {"$query": "SELECT 1 AS a"}, "n": 3}');

DROP TABLE repairs_sales;

-- mistakes of code written without the data in view, each with its repair
-- (review 58): json.loads of a parsed jsonb value, json.dumps of what
-- pysandbox converts itself, resample (review 155 F4: rolling("7D")) without
-- a datetime index, a row of an empty input, a condition holding pd.NA,
-- .str on numbers
SELECT r->'error'->>'message' AS message
FROM unnest(ARRAY[
$c$import json
def main(t, e):
    return t.j.apply(json.loads).tolist()$c$,
$c$import json
import pandas as pd
def main(t, e):
    return json.dumps({"a": pd.Timestamp("2024-01-01")})$c$,
$c$def main(t, e):
    return t.resample("W")["x"].sum()$c$,
$c$def main(t, e):
    return t.x.rolling("7D").sum().tolist()$c$,
$c$def main(t, e):
    return t.x.rolling(len(t) / 4).sum().tolist()$c$,
$c$def main(t, e):
    return e.sort_values("x").iloc[0].to_dict()$c$,
$c$def main(t, e):
    return int(e.x.idxmax())$c$,
$c$import numpy as np
import pandas as pd
def main(t, e):
    s = pd.Series([1, None, 9], dtype="Int64")
    return np.select([s >= 9, s >= 0], ["a", "b"], "c").tolist()$c$,
$c$def main(t, e):
    return t.x.str.upper().tolist()$c$]) AS c,
     sandbox_run(c, '{"t": {"$query": "SELECT 1 AS x, ''{\"a\": 1}''::jsonb AS j"}, "e": {"$query": "SELECT 1 AS x WHERE false"}}') AS r;

-- ... and (review 66) a misspelt method of a DataFrame or a Series, a
-- notebook's magic line, several statements or another command as a
-- table input's query; (review 79) a module's usual name without its
-- import, a NULL jsonb value subscripted
SELECT r->'error'->>'message' AS message, r->'error'->>'hint' AS hint
FROM unnest(ARRAY[
$c$def main(t):
    return t.groupyb("x").size()$c$,
$c$def main(t):
    return t.x.vaule_counts()$c$,
$c$%matplotlib inline
def main(t):
    return 1$c$,
$c$def main(t):
    return pd.DataFrame(t).shape$c$,
$c$import json
def main(t):
    meta = json.loads("null")
    return meta["a"]$c$]) AS c,
     sandbox_run(c, '{"t": {"$query": "SELECT 1 AS x, 2 AS y"}}') AS r;
-- a NULL used in arithmetic, iterated or compared says it is a NULL, as
-- its attribute does (review 139 F7: plain Python's text)
SELECT r->'error'->>'message' AS message, r->'error'->>'hint' AS hint
FROM unnest(ARRAY[
$c$def main(n):
    return n + 1$c$,
$c$def main(n):
    return 2 ** n$c$,
$c$def main(n):
    return [x for x in n]$c$,
$c$def main(n):
    return n < 3$c$]) AS c,
     sandbox_run(c, '{"n": null}') AS r;
-- the statistics module takes numpy's integers (an Int64 column's
-- tolist()) as ints: a Fraction made of them holds ints (review 73; review
-- 66 found stdev failing on them) and their mean is not truncated to one
-- (mean([1, 3, 6]) was 3, as in plain Python with numpy), nor are their
-- squares summed in 32 bits (review 77: a variance came out negative)
SELECT sandbox_execute($$
import statistics
import numpy as np
import pandas as pd
def main():
    values = pd.Series([1, None, 3, 6], dtype="Int64").dropna().tolist()
    wide = pd.Series([100000, 200000, 300000, 400000, 500000], dtype="Int32").tolist()
    return [round(statistics.stdev(values), 6), statistics.mean(values), statistics.median(values),
            statistics.variance(wide), statistics.mean([np.True_, np.False_, np.True_])]
$$);
SELECT sandbox_execute('def main(t): return 1', '{"t": {"$query": "SELECT 1; SELECT 2"}}');
SELECT sandbox_execute('def main(t): return 1', '{"t": {"$query": "SET work_mem = ''64MB''"}}');
-- value_counts().reset_index() of pandas 1.5 names its columns ("index",
-- "product"), pandas 2's ("product", "count"): the hint writes the 1.5 form
SELECT * FROM sandbox_rows(NULL::record, $$
import pandas as pd
def main():
    return pd.Series(["a", "b", "a"], name="product").value_counts().reset_index()
$$, '{}', 'main') AS t(product text, count bigint);
SELECT * FROM sandbox_rows(NULL::record, $$
import pandas as pd
def main():
    return pd.Series(["a", "b", "a"], name="product").value_counts().rename_axis("product").reset_index(name="count")
$$, '{}', 'main') AS t(product text, count bigint);
-- itertuples() renames a column whose name is no identifier ("_0"): the
-- error says so and what to return instead, which runs
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"total sales": [1.5, 2.5], "region": ["a", "b"]})
    return list(df.itertuples(index=False))
$$) AS t("total sales" numeric, region text);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    df = pd.DataFrame({"total sales": [1.5, 2.5], "region": ["a", "b"]})
    return list(df.itertuples(index=False, name=None))
$$) AS t("total sales" numeric, region text);
-- review 100: sys.exit() says to return instead; a refused scipy import
-- is "not available", not scipy's "reinstall"; a one-value container where
-- a scalar result was meant names the one value
SELECT sandbox_execute($$
import sys
def main():
    sys.exit(0)
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.Series([1, 2, 3.0]).corr(pd.Series([3, 1, 2.0]), method="kendall")
$$);
CREATE FUNCTION pg_temp.one_mean(x float8) RETURNS float8 LANGUAGE pysandbox AS $$
import numpy as np
return np.array([x])
$$;
SELECT pg_temp.one_mean(1);
CREATE FUNCTION pg_temp.one_sum(x float8) RETURNS numeric LANGUAGE pysandbox AS $$
import pandas as pd
return pd.Series([x]).agg(["sum"])
$$;
SELECT pg_temp.one_sum(1);
-- numpy's functions of a Decimal column (decimal mode): convert first
-- (review 100: numpy's bare "loop of ufunc does not support")
SELECT sandbox_execute($$
import numpy as np
def main(t):
    return np.log(t["n"]).tolist()
$$, '{"t": {"$query": "SELECT 2.5::numeric AS n"}}', '{main}', '{"numeric": "decimal"}');
-- review 104: a datetime.date against a date column (datetime64) is the
-- TypeError ordering already was, not a silent "no match" for ==, != and
-- lookups; pd.Timestamp(d) matches
SELECT sandbox_execute($$
import datetime as dt
def main(t):
    return int((t.day == dt.date(2024, 1, 5)).sum())
$$, '{"t": {"$query": "SELECT date ''2024-01-05'' + i AS day FROM generate_series(0, 2) i"}}');
SELECT sandbox_execute($$
import datetime as dt
def main(t):
    return dt.date(2024, 1, 5) in t.groupby("day").size().index
$$, '{"t": {"$query": "SELECT date ''2024-01-05'' + i AS day FROM generate_series(0, 2) i"}}');
CREATE FUNCTION pg_temp.day_count(d date) RETURNS int LANGUAGE pysandbox AS $$
import pandas as pd
days = pd.Series(pd.to_datetime(["2024-01-05", "2024-01-05", "2024-01-06"]))
return int((days != d).sum())
$$;
SELECT pg_temp.day_count('2024-01-05');
SELECT sandbox_execute($$
import datetime as dt
import pandas as pd
def main(t):
    d = dt.date(2024, 1, 5)
    return [int((t.day == pd.Timestamp(d)).sum()), pd.Timestamp(d) in t.set_index("day").index]
$$, '{"t": {"$query": "SELECT date ''2024-01-05'' + i AS day FROM generate_series(0, 2) i"}}');
-- review 104: a list where the function returns one value names it (the
-- type's input said "invalid input syntax" of an array literal)
CREATE FUNCTION pg_temp.list_mean(x float8) RETURNS numeric LANGUAGE pysandbox AS $$
return [x / 2]
$$;
SELECT pg_temp.list_mean(3);
CREATE FUNCTION pg_temp.list_ints(x int) RETURNS int LANGUAGE pysandbox AS $$
return [x, x + 1]
$$;
SELECT pg_temp.list_ints(3);
CREATE FUNCTION pg_temp.list_text(x int) RETURNS text LANGUAGE pysandbox AS $$
return [x, x + 1]
$$;
SELECT pg_temp.list_text(3);
-- a Decimal method of a numeric value, which arrives as a float: the hint
-- says how to get Decimals, in a LANGUAGE function its own way (review 147
-- F1: options.numeric cannot be passed there)
CREATE FUNCTION repairs_round2(x numeric) RETURNS numeric LANGUAGE pysandbox AS $$
from decimal import Decimal
return x.quantize(Decimal("0.01"))
$$;
SELECT repairs_round2(2.675);
ALTER FUNCTION repairs_round2(numeric) SET pysandbox.options = '{"numeric": "decimal"}';
SELECT repairs_round2(2.675);
DROP FUNCTION repairs_round2(numeric);
SELECT sandbox_execute($$
def main(df):
    return float(df.x[0].quantize(1))
$$, '{"df": {"$query": "SELECT 2.5::numeric AS x"}}');
-- a body that yields, declared to return one value: the hint says a set
-- is RETURNS SETOF (review 147: it was int(v)'s hint)
CREATE FUNCTION repairs_counts(n int) RETURNS int LANGUAGE pysandbox AS $$
for i in range(n):
    yield i
$$;
SELECT repairs_counts(3);
DROP FUNCTION repairs_counts(int);
-- an accessor of the wrong kind of values says what they are and how to
-- convert (review 159 F5: "did you mean "dt"?", its own name)
SELECT sandbox_execute($$
def main(df):
    return int(df.day.dt.year.max())
$$, '{"df": {"$query": "SELECT ''2024-03-10''::text AS day"}}');
SELECT sandbox_execute($$
def main(df):
    return list(df.n.str.len())
$$, '{"df": {"$query": "SELECT 5 AS n"}}');
SELECT sandbox_execute($$
import pandas as pd
def main():
    s = pd.Series(pd.to_datetime(["2024-03-10 02:30"]))
    return str(s.dt.tz_localize("America/New_York")[0])
$$);
-- a function without a return gives null, and a note says why (review 159
-- F5: null, or no rows, without a word); one that returns None says nothing
SELECT sandbox_execute($$
def main(df):
    df.groupby("g").x.sum()
$$, '{"df": {"$query": "SELECT 1 AS g, 2 AS x"}}');
SELECT * FROM sandbox_rows($$
def main(df):
    out = df.groupby("g").x.sum().reset_index()
$$, '{"df": {"$query": "SELECT 1 AS g, 2 AS x"}}') AS t(g int, x int);
-- sandbox_run: in "stderr" when the code printed nothing and left no
-- figure open (review 172 F2); printing, it may mean to return nothing
SELECT r->'stderr' AS stderr, r->'returns' AS returns FROM sandbox_run($$
def main(df):
    r = df.groupby("g").x.sum()
$$, '{"df": {"$query": "SELECT 1 AS g, 2 AS x"}}') AS r;
SELECT r->'stderr' AS stderr, r->'stdout' AS stdout FROM sandbox_run($$
def main(df):
    print(df.groupby("g").x.sum().to_dict())
$$, '{"df": {"$query": "SELECT 1 AS g, 2 AS x"}}') AS r;
SELECT sandbox_execute($$
def main():
    def inner():
        return 1
    if inner() > 5:
        return 2
$$);
-- a composite argument is a dict, and a method returned without its ()
-- is not its result (review 159 F5)
CREATE TYPE repairs_order AS (id int, qty int);
CREATE FUNCTION repairs_qty(o repairs_order) RETURNS int LANGUAGE pysandbox AS $$
return o.qty
$$;
SELECT repairs_qty((1, 5)::repairs_order);
DROP FUNCTION repairs_qty(repairs_order);
DROP TYPE repairs_order;
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    s = pd.Series(["a", "b", "a"])
    return [(s.value_counts().idxmax,)]
$$) AS t(top text);
