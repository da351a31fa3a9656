--
-- groups: options.group_by (README: Per-group runs): the function once per
-- group of the one table input, each group in a fresh namespace (on a
-- process that serves the call's groups one after another), results
-- keyed by group (sandbox_execute) or concatenated (sandbox_rows), equal to
-- pandas' groupby(..., dropna=False).apply()
--

CREATE TABLE grp_sales (region text, year int, amount float8);
INSERT INTO grp_sales
SELECT (ARRAY['north', 'south', 'east'])[1 + i % 3], 2020 + i % 2, i
FROM generate_series(1, 30) i;
INSERT INTO grp_sales VALUES (NULL, 2020, 100), (NULL, 2021, 200);

-- SQLSTATE and message of a query, and the group named in its context
CREATE FUNCTION pg_temp.sqlstate(query text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE s text; m text; c text;
BEGIN
    EXECUTE query;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, c = PG_EXCEPTION_CONTEXT;
    RETURN s || ': ' || m || coalesce(' [' || substring(c FROM '(group [^\n]*)') || ']', '');
END $f$;
CREATE FUNCTION pg_temp.exec_error(code text, inputs jsonb, opts jsonb) RETURNS text
LANGUAGE sql AS $f$
    SELECT pg_temp.sqlstate(format('SELECT sandbox_execute(%L, %L::jsonb, options => %L::jsonb)',
                                   code, inputs, opts))
$f$;

-- one key: an object keyed by the key's text; the DataFrame is named by
-- its key as pandas names a group (df.name); NULL keys are one group
SELECT jsonb_pretty(sandbox_execute($$
def main(df):
    return {"rows": len(df), "total": float(df.amount.sum()), "name": df.name}
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region"}'));

-- several keys: nested one level per key; every function in returns
SELECT sandbox_execute($$
def main(df):
    return len(df)
def first(df):
    return float(df.amount.min())
$$, '{"df": {"$query": "SELECT * FROM grp_sales WHERE region IS NOT NULL"}}',
    '{main,first}', '{"group_by": ["region", "year"]}');

-- the other inputs go to every group; $params work as ever
SELECT sandbox_execute($$
def main(df, factor):
    return float(df.amount.sum()) * factor
$$, '{"df": {"$query": "SELECT region, amount FROM grp_sales WHERE year = $1;", "$params": [2021]}, "factor": 2}',
    options => '{"group_by": "region"}');

-- sandbox_rows: the groups' rows in key order; a declared key column the
-- function leaves out is filled with the group's key
SELECT * FROM sandbox_rows($$
def main(df):
    return df.groupby("year", as_index=False).amount.sum()
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region"}')
    AS t(region text, year int, amount float8);
-- ... a dict is one row: each group's summary
SELECT * FROM sandbox_rows($$
def main(df):
    return {"rows": len(df), "total": float(df.amount.sum())}
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region"}')
    AS t(region text, rows int, total float8);

-- keys of any type are filled as they are: arrays, jsonb, a column named
-- like a Python keyword argument
SELECT * FROM sandbox_rows($$
def main(df):
    return df[["n"]].head(1)
$$, '{"df": {"$query": "SELECT ARRAY[g % 2, 1] AS k, (g % 2)::text AS self, jsonb_build_object(''a'', g % 2) AS j, g AS n FROM generate_series(1, 4) g"}}',
    options => '{"group_by": ["k", "self", "j"]}') AS t(k int[], self text, j jsonb, n int);

-- the input query as the parser delimits it: a trailing comment after its
-- semicolon stays outside the sorting query
SELECT sandbox_execute($$def main(df): return len(df)$$,
    '{"df": {"$query": "SELECT * FROM grp_sales WHERE year = 2020; -- one year"}}',
    options => '{"group_by": "region"}');

-- two different keys whose text is the same would be one key of the
-- result: an error, not a lost group
SET extra_float_digits = 0;
SELECT pg_temp.exec_error($$def main(df): return len(df)$$,
    '{"df": {"$query": "SELECT x FROM (VALUES (0.3::float8), (0.1::float8 + 0.2::float8)) v(x)"}}', '{"group_by": "x"}');
RESET extra_float_digits;
-- ... at any key, not only the last: (NULL, 'a') and ('null', 'b') would
-- nest under one "null"
SELECT pg_temp.exec_error($$def main(df): return len(df)$$,
    '{"df": {"$query": "SELECT * FROM (VALUES (NULL, ''a''), (''null'', ''b'')) v(k, j)"}}', '{"group_by": ["k", "j"]}');
-- a child that sends a result that is not an object (an array whose bytes
-- look like a key) gets an error, with the Python layer off too
SET pysandbox.python_layer = off;
SELECT pg_temp.exec_error($$
import sb_io, os
def main(df):
    sb_io.send(sb_io.RESULT, b'["\\u0001\\u0001\\u0001\\u0001", "xxxxmainyyyy"]')
    os._exit(0)
$$, '{"df": {"$query": "SELECT 1 AS g"}}', '{"group_by": "g"}');
RESET pysandbox.python_layer;
SELECT sandbox_execute($$def main(df): return len(df)$$,
    '{"df": {"$query": "SELECT x FROM (VALUES (0.3::float8), (0.1::float8 + 0.2::float8)) v(x)"}}', options => '{"group_by": "x"}');

-- equal to pandas' groupby(..., dropna=False).apply() over the whole table
-- in one call, both ways
CREATE TEMP TABLE grp_per_group AS
SELECT * FROM sandbox_rows($$
def main(df):
    top = df.nlargest(2, "amount")
    return top.assign(share=top.amount / df.amount.sum())[["region", "year", "amount", "share"]]
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": ["region"]}')
    AS t(region text, year int, amount float8, share float8);
CREATE TEMP TABLE grp_pandas AS
SELECT * FROM sandbox_rows($$
def f(df):
    top = df.nlargest(2, "amount")
    return top.assign(share=top.amount / df.amount.sum())[["region", "year", "amount", "share"]]
def main(df):
    return df.groupby("region", dropna=False, group_keys=False).apply(f)
$$, '{"df": {"$table": "grp_sales"}}') AS t(region text, year int, amount float8, share float8);
SELECT count(*) AS rows,
       (SELECT count(*) FROM (SELECT * FROM grp_per_group EXCEPT ALL SELECT * FROM grp_pandas) d) AS only_grouped,
       (SELECT count(*) FROM (SELECT * FROM grp_pandas EXCEPT ALL SELECT * FROM grp_per_group) d) AS only_pandas
FROM grp_per_group;

-- options.parallel: up to that many groups at once (in parallel workers,
-- with the fork server; one at a time without it), the same results in the
-- same order
SELECT sandbox_execute($$
def main(df):
    return {"rows": len(df), "total": float(df.amount.sum()), "name": df.name}
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region", "parallel": 3}') =
       sandbox_execute($$
def main(df):
    return {"rows": len(df), "total": float(df.amount.sum()), "name": df.name}
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region"}') AS same;
SELECT * FROM sandbox_rows($$
def main(df):
    return df.groupby("year", as_index=False).amount.sum()
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region", "parallel": 2}')
    AS t(region text, year int, amount float8);
SELECT pg_temp.exec_error($$
def main(df):
    if df.name == "south":
        raise ValueError("no south")
    return 1
$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "parallel": 4}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"parallel": 2}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "parallel": 0}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "parallel": 65}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "parallel": "2"}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "parallel": 5}');
SELECT pg_temp.sqlstate($q$SET pysandbox.options = '{"parallel": 2}'$q$);
-- an input query that could not run in parallel mode (a function with an
-- exception block starts a subtransaction per row): its groups run one at
-- a time, with the same result
CREATE FUNCTION pg_temp.careful(x float8) RETURNS float8 LANGUAGE plpgsql AS $f$
BEGIN
    RETURN x * 2;
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END $f$;
SELECT sandbox_execute($$def main(df): return float(df.doubled.sum())$$,
    '{"df": {"$query": "SELECT region, pg_temp.careful(amount) AS doubled FROM grp_sales"}}',
    options => '{"group_by": "region", "parallel": 2}');

-- options.parallel over partitions (with the fork server): the input is
-- read once, unsorted, and each group's rows are kept by one of the
-- parallel processes; keys are equal and ordered as the key types say
-- (NULLs one group, last), and each group's DataFrame is the one the
-- sorted path gives it (rows, dtypes per group, name, index)
CREATE TABLE grp_keys AS
SELECT CASE WHEN i % 11 = 0 THEN NULL ELSE (ARRAY['b', 'A', 'a', 'B', 'ä'])[1 + i % 5] END AS t,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i % 3 END AS k,
       (i % 4 * 5)::numeric(4, 1) AS num,
       CASE i % 4 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 0.0 WHEN 2 THEN 1.5 END AS fl,
       date '2024-01-01' + i % 3 AS d,
       i % 2 = 0 AS b,
       (i % 3)::money AS m,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i END AS n,
       i AS x
FROM generate_series(1, 600) i;
CREATE FUNCTION pg_temp.groups_same(opts jsonb, query text DEFAULT 'SELECT * FROM grp_keys')
RETURNS boolean LANGUAGE sql AS $f$
    SELECT sandbox_execute($$
def main(df):
    return {"rows": len(df), "x": int(df.x.sum()), "first": sorted(df.x.tolist())[:3],
            "dtypes": [str(t) for t in df.dtypes], "name": str(df.name),
            "index": [int(df.index.start), int(df.index.stop)], "nulls": int(df.n.isna().sum())}
$$, jsonb_build_object('df', jsonb_build_object('$query', query)), options => opts || '{"parallel": 2}') =
           sandbox_execute($$
def main(df):
    return {"rows": len(df), "x": int(df.x.sum()), "first": sorted(df.x.tolist())[:3],
            "dtypes": [str(t) for t in df.dtypes], "name": str(df.name),
            "index": [int(df.index.start), int(df.index.stop)], "nulls": int(df.n.isna().sum())}
$$, jsonb_build_object('df', jsonb_build_object('$query', query)), options => opts)
$f$;
SELECT opts, pg_temp.groups_same(opts) AS same
FROM (VALUES ('{"group_by": "t"}'::jsonb), ('{"group_by": ["t", "k"]}'), ('{"group_by": "num"}'),
             ('{"group_by": "fl"}'), ('{"group_by": ["d", "b"]}'), ('{"group_by": "m"}'),
             ('{"group_by": ["k", "t"]}')) v(opts);
-- no rows, one group, more processes than groups
SELECT pg_temp.groups_same('{"group_by": "t"}', 'SELECT * FROM grp_keys WHERE x < 0') AS no_rows,
       pg_temp.groups_same('{"group_by": "b"}', 'SELECT * FROM grp_keys WHERE b') AS one_group,
       sandbox_execute($$def main(df): return len(df)$$, '{"df": {"$query": "SELECT * FROM grp_keys WHERE b"}}',
                       options => '{"group_by": "b", "parallel": 4}') AS four_for_one;
-- sandbox_rows: the groups' rows in key order, as the sorted path gives them
SELECT array_agg(p ORDER BY o) = array_agg(s ORDER BY o) AS same_order, count(*) AS rows
FROM ROWS FROM (sandbox_rows($$
def main(df):
    return df.groupby("k", dropna=False, as_index=False).agg(n=("x", "size"), x=("x", "sum"))
$$, '{"df": {"$table": "grp_keys"}}', options => '{"group_by": ["t", "d"], "parallel": 2}')
    AS (t text, d date, k int, n int, x bigint)) WITH ORDINALITY AS p(t, d, k, n, x, o)
JOIN ROWS FROM (sandbox_rows($$
def main(df):
    return df.groupby("k", dropna=False, as_index=False).agg(n=("x", "size"), x=("x", "sum"))
$$, '{"df": {"$table": "grp_keys"}}', options => '{"group_by": ["t", "d"]}')
    AS (t text, d date, k int, n int, x bigint)) WITH ORDINALITY AS s(t, d, k, n, x, o) USING (o);
-- a failing group names its key; the input limits apply to each group
SELECT pg_temp.exec_error($$
def main(df):
    if df.name == ("a", 2):
        raise ValueError("not this one")
    return len(df)
$$, '{"df": {"$table": "grp_keys"}}', '{"group_by": ["t", "k"], "parallel": 2}');
SELECT pg_temp.exec_error($$def main(df): return len(df)$$, '{"df": {"$table": "grp_keys"}}',
                          '{"group_by": "b", "parallel": 2, "max_input_rows": 299}');

-- sandbox_run: every group runs and is reported; the first failure is
-- the report's error, naming its group
SELECT r->'ok' AS ok, r->'returns' AS returns, r->'error'->>'group' AS failed_group,
       r->'error'->>'message' AS message, r->'groups_not_run' AS not_run,
       (r->'usage'->>'input_rows')::int AS rows_in,
       jsonb_path_query_array(r, '$.groups[*].group') AS groups,
       jsonb_path_query_array(r, '$.groups[*].ok') AS oks,
       jsonb_path_query_array(r, '$.groups[*].stdout') AS stdouts,
       jsonb_path_query_array(r, '$.groups[*].key') AS keys
FROM sandbox_run($$
def main(df):
    print(len(df))
    if df.name == "north":
        raise ValueError("no north")
    return float(df.amount.sum())
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region"}') r;
SELECT r->'ok' AS ok, r->'returns' AS returns, r->'error' AS error,
       jsonb_path_query_array(r, '$.groups[*].returns') AS each
FROM sandbox_run($$
def main(df):
    return len(df)
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": ["region", "year"]}') r;
-- past the shared output budget: that group fails (output), the rest do
-- not run
SELECT r->'ok' AS ok, r->'error'->>'kind' AS kind, r->'error'->>'group' AS failed_group,
       r->'groups_not_run' AS not_run, jsonb_array_length(r->'groups') AS reported
FROM sandbox_run($$
def main(df):
    return "x" * 60
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region", "max_output_bytes": 250}') r;

-- each group runs in a fresh namespace: nothing of one group's code
-- reaches the next
SELECT sandbox_execute($$
seen = []
def main(df):
    seen.append(df.name)
    return len(seen)
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region"}');
-- ... on the process the call's last group left (with the Python layer
-- off, to see it)
SET pysandbox.python_layer = off;
SELECT count(DISTINCT pid) AS processes, count(*) AS groups, bool_and(fresh) AS fresh
FROM sandbox_rows($$
import os
import pandas as pd
seen = []
def main(df):
    seen.append(df.name)
    return pd.DataFrame({"pid": [os.getpid()], "fresh": [len(seen) == 1]})
$$, '{"df": {"$query": "SELECT g % 6 AS g FROM generate_series(1, 60) g"}}',
    options => '{"group_by": "g"}') AS t(g int, pid int, fresh bool);
-- ... but what earlier groups kept cannot fail a later one: a group out of
-- memory on a process that ran earlier groups runs again on a fresh one
-- (each group keeps 100 MB more here, under a 256 MB limit)
SELECT g, kept, dense_rank() OVER (ORDER BY first) AS process
FROM (SELECT g, kept, min(g) OVER (PARTITION BY pid) AS first FROM sandbox_rows($$
import builtins, os
import numpy as np
import pandas as pd
def main(df):
    kept = builtins.__dict__.setdefault("kept", [])
    kept.append(np.ones(100 << 17))
    return pd.DataFrame({"pid": [os.getpid()], "kept": [len(kept)]})
$$, '{"df": {"$query": "SELECT g % 6 AS g FROM generate_series(1, 60) g"}}',
    options => '{"group_by": "g", "memory_mb": 256}') AS t(g int, pid int, kept int)) s
ORDER BY g;
-- ... and a process with no CPU time left for a whole group more (its
-- RLIMIT_CPU allows ten calls' cpu_ms) ends after its group: the next
-- group gets a fresh one
SELECT count(*) AS groups, count(DISTINCT pid) > 1 AS fresh_ones
FROM sandbox_rows($$
import os, time
import pandas as pd
def main(df):
    start = time.process_time()
    while df.name > 0 and time.process_time() - start < 0.03:
        pass
    return pd.DataFrame({"pid": [os.getpid()]})
$$, '{"df": {"$query": "SELECT g % 100 AS g FROM generate_series(1, 100) g"}}',
    options => '{"group_by": "g", "cpu_ms": 100}') AS t(g int, pid int);
RESET pysandbox.python_layer;

-- no rows: no groups
SELECT sandbox_execute($$def main(df): return len(df)$$,
    '{"df": {"$query": "SELECT * FROM grp_sales WHERE false"}}', options => '{"group_by": "region"}');
SELECT count(*) FROM sandbox_rows($$def main(df): return df$$,
    '{"df": {"$query": "SELECT * FROM grp_sales WHERE false"}}', options => '{"group_by": "region"}')
    AS t(region text, year int, amount float8);

-- a failing group fails the call, naming the group
SELECT pg_temp.exec_error($$
def main(df):
    if df.name == "south":
        raise ValueError("no south")
    return 1
$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region"}');
SELECT pg_temp.exec_error($$
def main(df):
    if df.name == (None, 2021):
        raise ValueError("no null")
    return 1
$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": ["region", "year"]}');

-- the limits apply to each group's process; the output budget is shared
SELECT pg_temp.exec_error($$def main(df): return len(df)$$,
    '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "max_input_rows": 9}');
SELECT sandbox_execute($$def main(df): return len(df)$$,
    '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region", "max_input_rows": 10}');
SELECT pg_temp.exec_error($$
def main(df):
    return "x" * 40
$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "max_output_bytes": 100}');
-- a group that goes past what the earlier groups left of the budget
SELECT pg_temp.exec_error($$
def main(df):
    return "x" * 60
$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region", "max_output_bytes": 150}');
-- (a timeout is 57014, which PL/pgSQL's WHEN OTHERS does not catch)
SELECT sandbox_execute($$
def main(df):
    if df.name == "north":
        while True: pass
    return 1
$$, '{"df": {"$table": "grp_sales"}}', options => '{"group_by": "region", "timeout_ms": 1000}');

-- mistakes, before any process starts
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "nope"}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": []}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": ["region", 1]}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": {"a": 1}}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": ["year", "year"]}');
SELECT pg_temp.exec_error($$def main(df, b): return 1$$,
    '{"df": {"$table": "grp_sales"}, "b": {"$table": "grp_sales"}}', '{"group_by": "region"}');
SELECT pg_temp.exec_error($$def main(x): return 1$$, '{"x": 1}', '{"group_by": "region"}');
SELECT pg_temp.exec_error($$def main(df): return 1$$,
    '{"df": {"$query": "SELECT 1 AS a, 2 AS a"}}', '{"group_by": "a"}');
SELECT pg_temp.exec_error($$def main(df): return 1$$,
    '{"df": {"$query": "SELECT ''{}''::json AS j"}}', '{"group_by": "j"}');
SELECT pg_temp.exec_error($$def main(df): return 1$$,
    '{"df": {"$query": "SELECT NULLIF(region, ''east'') AS region FROM grp_sales UNION ALL SELECT ''null''"}}',
    '{"group_by": "region"}');
SELECT pg_temp.sqlstate($q$SET pysandbox.options = '{"group_by": "region"}'$q$);
-- the code is validated once, before the input is read
SELECT pg_temp.exec_error($$import os
def main(df): return 1$$, '{"df": {"$table": "grp_sales"}}', '{"group_by": "region"}');

-- as an ordinary role: its privileges hold for the input, and sql() works
-- in each group's process
CREATE ROLE regress_pysandbox_groups;
GRANT SELECT ON grp_sales TO regress_pysandbox_groups;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO regress_pysandbox_groups;
CREATE TABLE grp_secret (x int);
SET ROLE regress_pysandbox_groups;
SELECT sandbox_execute($$
def main(df):
    return len(sql("SELECT * FROM grp_sales WHERE region = $1", df.name))
$$, '{"df": {"$query": "SELECT * FROM grp_sales WHERE region IS NOT NULL"}}', options => '{"group_by": "region"}');
SELECT pg_temp.exec_error($$def main(df): return 1$$, '{"df": {"$table": "grp_secret"}}', '{"group_by": "x"}');
RESET ROLE;
DROP TABLE grp_secret;
REVOKE ALL ON grp_sales FROM regress_pysandbox_groups;
REVOKE ALL ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM regress_pysandbox_groups;
DROP ROLE regress_pysandbox_groups;

-- a group's child reads the next group's rows as it read the first
-- group's (a text column of 4,096 rows or more in each group)
SELECT sandbox_execute($$
def main(df):
    return [len(df), df.s.nunique()]
$$, '{"df": {"$query": "SELECT i % 2 AS g, ''name '' || (i % 100) AS s FROM generate_series(1, 20000) AS i"}}',
   '{main}', '{"group_by": "g"}');

-- ... and runs it as a fresh child would: what a group sets for the whole
-- process (pandas options, numpy's error settings, warnings filters, a
-- seed) is put back before the next group, on the sorted path and on the
-- parallel one (review 65 F5)
SELECT $$
import warnings
import numpy as np
import pandas as pd
def main(t):
    found = [pd.get_option("display.max_rows"), np.geterr()["divide"],
             any(f[0] == "error" for f in warnings.filters),
             np.random.rand() == np.random.RandomState(1).rand()]
    pd.set_option("display.max_rows", 7)
    np.seterr(all="raise")
    warnings.simplefilter("error")
    np.random.seed(1)
    return found
$$ AS grp_settings \gset
SELECT sandbox_execute(:'grp_settings', '{"t": {"$query": "SELECT x % 3 AS g FROM generate_series(1, 9) x"}}',
   '{main}', '{"group_by": "g"}');
SELECT sandbox_execute(:'grp_settings', '{"t": {"$query": "SELECT x % 3 AS g FROM generate_series(1, 9) x"}}',
   '{main}', '{"group_by": "g", "parallel": 1}');

-- a group's rows come in the query's order, on the sorted path as on the
-- parallel one (PostgreSQL's sort is not stable: an ORDER BY in the query
-- was lost within groups, review 33)
CREATE TABLE grp_order (k int, v int);
INSERT INTO grp_order SELECT i % 3, i FROM generate_series(1, 20) i;
SELECT sandbox_execute($$
def main(df):
    return {"v": df.v.tolist(), "first": int(df.v.iloc[0]), "falling": bool(df.v.is_monotonic_decreasing)}
$$, '{"df": {"$query": "SELECT * FROM grp_order ORDER BY v DESC"}}', '{main}', '{"group_by": "k"}');
SELECT sandbox_execute($$
def main(df):
    return df.v.tolist()
$$, '{"df": {"$query": "SELECT * FROM grp_order ORDER BY v DESC"}}', '{main}', '{"group_by": "k"}') =
       sandbox_execute($$
def main(df):
    return df.v.tolist()
$$, '{"df": {"$query": "SELECT * FROM grp_order ORDER BY v DESC"}}', '{main}', '{"group_by": "k", "parallel": 2}')
    AS same_order;
-- the positions are not a column of the group's DataFrame, whatever the
-- query's columns are called
SELECT sandbox_execute($$
def main(df):
    return list(df.columns)
$$, '{"df": {"$query": "SELECT k, v, v AS v, 1 AS row_number FROM grp_order ORDER BY v"}}', '{main}', '{"group_by": "k"}');
DROP TABLE grp_order;
-- what every group sends counts against the call's output budget: the
-- errors of failed groups in sandbox_run's report (2,000 failing groups
-- made a 33 MB report with output_bytes 0), and rows of no columns (a byte
-- each: 16M rows a group were free, review 57)
SELECT jsonb_array_length(r->'groups') < 40 AS stopped_early, r->>'ok' AS ok,
       (r->'usage'->>'output_bytes')::int BETWEEN 100000 AND 200000 AS counted
FROM sandbox_run($$
def main(t):
    raise ValueError("x" * 10000)
$$, '{"t": {"$query": "SELECT g AS k FROM generate_series(1, 200) g"}}', '{main}',
   '{"group_by": "k", "max_output_bytes": 100000}') r;
CREATE TYPE grp_nothing AS ();
SELECT count(*) FROM sandbox_rows(NULL::grp_nothing, $$
import pandas as pd
def main(t):
    return pd.DataFrame(index=range(60000))
$$, '{"t": {"$query": "SELECT g % 3 AS k FROM generate_series(1, 6) g"}}', 'main',
   '{"group_by": "k", "max_output_bytes": 100000}');
SELECT count(*) FROM sandbox_rows(NULL::grp_nothing, $$
import pandas as pd
def main(t):
    return pd.DataFrame(index=range(1000))
$$, '{"t": {"$query": "SELECT g % 3 AS k FROM generate_series(1, 6) g"}}', 'main',
   '{"group_by": "k", "max_output_bytes": 100000}');
DROP TYPE grp_nothing;
