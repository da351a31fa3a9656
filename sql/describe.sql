--
-- describe: sandbox_describe(inputs, options) tells what each input would
-- be in Python (columns, SQL and pandas types, NULLs, a row estimate and a
-- few rows) as the calling role, without running any Python
--
CREATE TABLE describe_t (
    id integer PRIMARY KEY,
    region text NOT NULL,
    amount numeric(10,2),
    ratio float8,
    ok boolean,
    sold_on date,
    at timestamp,
    atz timestamptz,
    span interval,
    doc jsonb,
    tags text[],
    raw bytea,
    u uuid
);
INSERT INTO describe_t
SELECT i, CASE WHEN i % 2 = 0 THEN 'east' ELSE 'west' END, i * 1.5, i / 4.0, i % 2 = 0,
       date '2024-01-01' + i, timestamp '2024-01-01 10:00' + i * interval '1 hour',
       timestamptz '2024-01-01 10:00+00' + i * interval '1 day', i * interval '1 minute',
       jsonb_build_object('i', i), ARRAY['a', 'b'], '\x00ff', '00000000-0000-0000-0000-000000000000'
FROM generate_series(1, 100) AS i;
ANALYZE describe_t;

-- every type, as it arrives; NOT NULL columns are not nullable
SELECT c->>'name' AS name, c->>'type' AS type, c->>'dtype' AS dtype,
       c->>'dtype_with_nulls' AS with_nulls, c->>'python_type' AS python_type,
       c->>'nullable' AS nullable
FROM jsonb_array_elements(sandbox_describe('{"t": {"$table": "describe_t"}}',
                                          '{"sample_rows": 0}') -> 't' -> 'columns') AS c;
SELECT d->'t'->'rows_estimate' AS estimate, d->'t'->'sample' AS sample
FROM sandbox_describe('{"t": {"$table": "describe_t"}}', '{"sample_rows": 0}') AS d;
-- numeric as decimal.Decimal, as the call's option says
SELECT sandbox_describe('{"t": {"$query": "SELECT amount FROM describe_t"}}',
                        '{"numeric": "decimal", "sample_rows": 0}') -> 't' -> 'columns';

-- a query with parameters, and a few rows of it
SELECT jsonb_pretty(sandbox_describe(
    '{"q": {"$query": "SELECT id, region, amount FROM describe_t WHERE id <= $1 ORDER BY id", "$params": [3]},
      "n": 3, "cfg": {"x": [1, 2]}, "name": "east", "flags": [true], "nothing": null}',
    '{"sample_rows": 2}'));
-- the sample's values are written as PostgreSQL's JSON writes them, but
-- money as the amount the code gets (it was "$13.25": review 66), a NULL
-- as null, a domain over money too, and money[]'s elements (review 115)
CREATE DOMAIN describe_price AS money;
SELECT sandbox_describe('{"q": {"$query": "SELECT 13.25::money AS m, NULL::money AS none, 2::describe_price AS p, ARRAY[1.5, NULL]::describe_price[] AS pa, ''1 day 02:00''::interval AS i, ''{1,2}''::int[] AS a"}}')
       -> 'q' -> 'sample';
DROP DOMAIN describe_price;
-- at most 5 rows unless told; a computed column may be NULL
SELECT jsonb_array_length(d->'q'->'sample') AS rows, d->'q'->'columns'->0->'nullable' AS nullable
FROM sandbox_describe('{"q": {"$query": "SELECT id * 2 AS twice FROM describe_t"}}') AS d;

-- an outer join or grouping sets can make NULLs of NOT NULL columns: then
-- every column is nullable (a conservative answer)
SELECT c->>'name' AS name, c->>'nullable' AS nullable, c->>'dtype_with_nulls' AS with_nulls
FROM jsonb_array_elements(sandbox_describe(
    '{"q": {"$query": "SELECT a.id, b.id AS next_id FROM describe_t a LEFT JOIN describe_t b ON b.id = a.id + 1"}}',
    '{"sample_rows": 0}') -> 'q' -> 'columns') AS c;
SELECT c->>'name' AS name, c->>'nullable' AS nullable
FROM jsonb_array_elements(sandbox_describe(
    '{"q": {"$query": "SELECT region, count(*) FROM describe_t GROUP BY ROLLUP (region)"}}',
    '{"sample_rows": 0}') -> 'q' -> 'columns') AS c;
-- the sample holds at most 1 MB: a row that would go past it is left out,
-- and sample_truncated says so; also a single row wider than that (review
-- 124 F2: a 100 MB row came whole)
SELECT jsonb_array_length(d->'q'->'sample') AS rows, d->'q'->'sample_truncated' AS truncated
FROM sandbox_describe('{"q": {"$query": "SELECT repeat(''x'', 600000) AS s FROM generate_series(1, 5)"}}') AS d;
SELECT jsonb_array_length(d->'q'->'sample') AS rows, d->'q'->'sample_truncated' AS truncated,
       length(d::text) < 2000 AS small
FROM sandbox_describe('{"q": {"$query": "SELECT repeat(''x'', 3000000) AS s"}}', '{"sample_rows": 1}') AS d;

-- an input's query opens no workspace: it would outlive the rolled-back
-- subtransaction the query runs in (review 124 F3)
SELECT sandbox_describe('{"q": {"$query": "SELECT sandbox_workspace_open() AS w"}}');
SELECT count(*) AS workspaces FROM sandbox_workspace_list();

-- as the calling role: privileges and row-level security hold
CREATE ROLE regress_describe;
GRANT EXECUTE ON FUNCTION sandbox_describe(jsonb, jsonb) TO regress_describe;
SET ROLE regress_describe;
SELECT sandbox_describe('{"t": {"$table": "describe_t"}}');
SELECT sandbox_describe('{"t": {"$query": "SELECT count(*) FROM describe_t"}}');
RESET ROLE;
GRANT SELECT ON describe_t TO regress_describe;
ALTER TABLE describe_t ENABLE ROW LEVEL SECURITY;
CREATE POLICY describe_east ON describe_t FOR SELECT TO regress_describe USING (region = 'east' AND id <= 4);
SET ROLE regress_describe;
SELECT d->'t'->'sample' AS sample
FROM sandbox_describe('{"t": {"$query": "SELECT id, region FROM describe_t ORDER BY id"}}') AS d;
RESET ROLE;
DROP POLICY describe_east ON describe_t;
ALTER TABLE describe_t DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON describe_t FROM regress_describe;

-- mistakes say what to do
SELECT sandbox_describe('{"t": {"$query": "DELETE FROM describe_t"}}');
SELECT sandbox_describe('{"t": {"$table": "describe_missing"}}');
SELECT sandbox_describe('{"t": {"$query": "SELECT $1"}}');
SELECT sandbox_describe('{"t": {"$query": "SELECT 1"}}', '{"sample_rows": 1001}');
SELECT sandbox_describe('{"t": {"$query": "SELECT 1"}}', '{"sample_rows": "5"}');
SELECT sandbox_describe('{"t": {"$query": "SELECT 1"}}', '{"rows": 5}');
SELECT sandbox_describe('[1]');
SELECT sandbox_describe('{"not an identifier": 1}');
SELECT sandbox_describe(NULL);
-- nothing it reads is kept: the query runs in a rolled-back subtransaction
SELECT count(*) FROM pg_largeobject_metadata;
SELECT (sandbox_describe('{"t": {"$query": "SELECT lo_from_bytea(0, ''x'') AS lo"}}') -> 't' -> 'sample' -> 0 ->> 'lo') IS NOT NULL AS ran;
SELECT count(*) FROM pg_largeobject_metadata;

-- a column ANALYZE found NULLs in: the dtype it then arrives as, and its
-- null fraction (review 111 F4: "int64" for a column that arrived as Int64);
-- not through a view to a role without the table's privilege, as pg_stats
CREATE TABLE describe_nulls (id int NOT NULL, qty int, ok boolean, full_qty int);
INSERT INTO describe_nulls
SELECT i, CASE WHEN i % 4 = 0 THEN NULL ELSE i END, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 2 = 0 END, i
FROM generate_series(1, 200) i;
ANALYZE describe_nulls;
SELECT jsonb_pretty(sandbox_describe('{"t": {"$table": "describe_nulls"}}', '{"sample_rows": 0}') -> 't' -> 'columns');
CREATE VIEW describe_nulls_v AS SELECT qty FROM describe_nulls;
GRANT SELECT ON describe_nulls_v TO regress_describe;
SET ROLE regress_describe;
SELECT sandbox_describe('{"t": {"$table": "describe_nulls_v"}}', '{"sample_rows": 0}') -> 't' -> 'columns';
RESET ROLE;
DROP VIEW describe_nulls_v;
DROP TABLE describe_nulls;
-- a table not yet analysed: the sample's NULLs say it (review 151 F5:
-- "int64" of a column that arrived as Int64), counted where it read every
-- row, met where it did not; a sample without NULLs and statistics says
-- nothing more
CREATE TABLE describe_fresh (id int, q int, b boolean);
INSERT INTO describe_fresh VALUES (1, NULL, NULL), (2, 5, true), (3, 6, NULL);
SELECT c ->> 'name' AS name, c ->> 'dtype' AS dtype, c ->> 'null_frac' AS null_frac
FROM jsonb_array_elements(sandbox_describe('{"t": {"$table": "describe_fresh"}}') -> 't' -> 'columns') c;
SELECT c ->> 'name' AS name, c ->> 'dtype' AS dtype, c ->> 'null_frac' AS null_frac
FROM jsonb_array_elements(sandbox_describe('{"t": {"$query": "SELECT * FROM describe_fresh ORDER BY id"}}',
                                           '{"sample_rows": 1}') -> 't' -> 'columns') c;
SELECT sandbox_execute('def main(t): return t.dtypes', '{"t": {"$table": "describe_fresh"}}');
DROP TABLE describe_fresh;

-- a name more than one column has: a sample row, a JSON object, shows one
-- value of it while the DataFrame has every column, and the description
-- says which names and what to do
SELECT d -> 'sample' AS sample, d -> 'sample_repeated_names' AS repeated, d ->> 'sample_note' AS note,
       jsonb_path_query_array(d, '$.columns[*].name') AS names
FROM (SELECT sandbox_describe('{"q": {"$query": "SELECT 1 AS a, 2 AS a, 3 AS b, 4, 5"}}') -> 'q' AS d) s;
SELECT sandbox_execute('def main(q): return [str(c) for c in q.columns]',
                       '{"q": {"$query": "SELECT 1 AS a, 2 AS a, 3 AS b, 4, 5"}}');
-- columns named as a DataFrame's attributes: df.count is its method, and
-- the description says to write df["count"] (review 172 F4)
SELECT d -> 'attribute_names' AS names, d ->> 'attribute_note' AS note
FROM (SELECT sandbox_describe('{"q": {"$query": "SELECT 1 AS count, 2 AS index, 3 AS x, 4 AS count, 5 AS \"T\""}}',
                              '{"sample_rows": 0}') -> 'q' AS d) s;
SELECT sandbox_describe('{"q": {"$query": "SELECT 1 AS n, 2 AS t"}}') -> 'q' ? 'attribute_names' AS named;
-- no sample rows asked, no note
SELECT sandbox_describe('{"q": {"$query": "SELECT 1 AS a, 2 AS a"}}', '{"sample_rows": 0}') -> 'q' ? 'sample_note' AS noted;

-- review 165 F6: a WHERE that keeps a column's NULLs out makes it int64, as
-- the code gets it (an OR does not); timestamptz sample values are in UTC,
-- as the code gets them, whatever the session's zone; an array's elements
-- are named
CREATE TABLE describe_where (id int, qty int, at timestamptz, spans interval[], tags int[]);
INSERT INTO describe_where SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE i END,
    '2023-08-29 05:04:24+00', ARRAY['1 day'::interval], ARRAY[i] FROM generate_series(1, 100) i;
ANALYZE describe_where;
SET TimeZone = 'America/New_York';
SELECT k, c ->> 'name' AS name, c ->> 'dtype' AS dtype, c ->> 'python_type' AS python_type
FROM jsonb_each(sandbox_describe('{"kept": {"$query": "SELECT qty, spans, tags FROM describe_where WHERE qty IS NOT NULL"},
                                   "cmp": {"$query": "SELECT qty FROM describe_where WHERE qty > 3 AND id < 50"},
                                   "either": {"$query": "SELECT qty FROM describe_where WHERE qty > 3 OR id < 50"}}',
                                 '{"sample_rows": 0}')) AS d(k, v),
     jsonb_array_elements(v -> 'columns') c ORDER BY 1, 2;
SELECT sandbox_execute('def main(t): return [str(t.qty.dtype), t["at"][0].isoformat()]',
    '{"t": {"$query": "SELECT qty, at FROM describe_where WHERE qty IS NOT NULL ORDER BY id LIMIT 1"}}');
SELECT sandbox_describe('{"t": {"$query": "SELECT at FROM describe_where ORDER BY id LIMIT 1"}}',
                        '{"sample_rows": 1}') -> 't' -> 'sample' AS sample;
RESET TimeZone;
DROP TABLE describe_where;

DROP TABLE describe_t;
DROP OWNED BY regress_describe;
DROP ROLE regress_describe;
