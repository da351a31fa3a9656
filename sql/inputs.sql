--
-- inputs: plain JSON, $query (with $params), $table, $literal, and the
-- rules every table input follows (read-only, privileges, row-level
-- security, size limits)
--

CREATE TABLE sales (id int PRIMARY KEY, region text, amount numeric(10,2), owner name);
INSERT INTO sales VALUES
    (1, 'north', 10.50, 'alice'), (2, 'south', 20.00, 'bob'),
    (3, 'north', 5.25, 'bob'), (4, 'east', NULL, 'alice');
CREATE SCHEMA "Odd Schema";
CREATE TABLE "Odd Schema"."Mixed Case" ("Col A" int, "select" text);
INSERT INTO "Odd Schema"."Mixed Case" VALUES (1, 'x'), (2, 'y');
CREATE VIEW north_sales AS SELECT id, amount FROM sales WHERE region = 'north';
-- SQLSTATE and message of a call with these inputs, or 'ok'
CREATE FUNCTION pg_temp.sqlstate(inputs jsonb) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM sandbox_execute('def main(): return 1', inputs); RETURN 'ok';
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;

-- a $query input arrives as a DataFrame with the query's columns and rows
SELECT jsonb_pretty(sandbox_execute($$
import pandas as pd
def main(df):
    return {"is_frame": isinstance(df, pd.DataFrame),
            "columns": list(df.columns), "rows": len(df), "data": df}
$$, '{"df": {"$query": "SELECT id, region FROM sales ORDER BY id"}}'));
-- several table inputs and plain inputs together
SELECT sandbox_execute($$
def main(a, b, factor):
    return int(a["id"].sum() * factor + len(b))
$$, '{"a": {"$query": "SELECT id FROM sales"},
      "b": {"$query": "SELECT 1 AS x FROM generate_series(1, 7)"},
      "factor": 100}');
-- a query that ends with a semicolon is still one statement
SELECT sandbox_execute('def main(df): return len(df)',
                       '{"df": {"$query": "SELECT * FROM sales;"}}');

-- $params bind to $1..$n: int, text, null and bool
SELECT sandbox_execute($$
def main(df):
    return df["id"].tolist()
$$, '{"df": {"$query": "SELECT id FROM sales WHERE id > $1 AND region = $2 ORDER BY id",
             "$params": [1, "north"]}}');
SELECT sandbox_execute($$
def main(df):
    return df.to_dict("records")
$$, '{"df": {"$query": "SELECT $1::int IS NULL AS is_null, $2::bool AS flag, $3::text AS t",
             "$params": [null, true, "it''s"]}}');
-- the type of a parameter comes from its context: here numeric and name
SELECT sandbox_execute($$
def main(df):
    return sorted(df["id"].tolist())
$$, '{"df": {"$query": "SELECT id FROM sales WHERE amount >= $1 OR owner = $2",
             "$params": [10, "alice"]}}');
-- a parameter used with a string value where an int is expected fails in
-- the type's input function
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = $1", "$params": ["one"]}}');
-- JSON arrays and objects are passed as their JSON text to json and jsonb
-- parameters; a JSON array is an array for an array parameter (= ANY($1));
-- a list or an object for one value of another type is refused: IN ($1)
-- with a list matched nothing (review 79); a whole float is an integer
SELECT sandbox_execute('def main(df): return df.iloc[0].tolist()',
    '{"df": {"$query": "SELECT $1::jsonb -> ''k'' AS k, $2::int[] AS arr, $3::jsonb AS j",
             "$params": [{"k": [1, 2]}, "{3,4}", [1, "a"]]}}');
SELECT sandbox_execute('def main(df): return sorted(df["id"].tolist())',
    '{"df": {"$query": "SELECT id FROM sales WHERE region = ANY($1) AND id <> ALL($2)",
             "$params": [["north", "we\\\"st"], [[2, 3], [4, 5]]]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE region IN ($1)", "$params": [["north", "south"]]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE region = $1", "$params": [{"r": "north"}]}}');
SELECT sandbox_execute('def main(df): return df["id"].tolist()',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = $1", "$params": [2.0]}}');
-- another client library's placeholders (psycopg's, JDBC's, SQLAlchemy's)
-- fail to parse; the hint says PostgreSQL's (review 159 F5). A ? in a
-- string, a cast (::) or a jsonb operator is none of them.
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = %s", "$params": [1]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = %(id)s", "$params": [1]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE region = ? AND id > ?", "$params": ["north", 1]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE region = :region", "$params": ["north"]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE region = ''?'' AND id::int > $1 AND", "$params": [1]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE ''{}''::jsonb ?| $1 AND", "$params": [["a"]]}}');
-- nor jsonb's ? after a value, nor an array slice's : (review 167 F4)
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT ''{\"a\": 1}''::jsonb ? ''a'', (array[1, 2, 3])[1:n] FROM (SELECT $1::int n) s WHERE", "$params": [2]}}');
-- IN $1, psycopg2's tuple: the hint says = ANY($1) (review 165 F3)
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE region IN $1", "$params": [["north", "south"]]}}');
-- a long query with parameters: their types were read from memory the
-- parser had freed (review 81 C1: the backend crashed)
SELECT sandbox_execute('def main(df): return df["x"].tolist()', jsonb_build_object('df', jsonb_build_object(
    '$query', 'SELECT x FROM generate_series(1, 3) x WHERE x = $1 AND x IN (' ||
              (SELECT string_agg(g::text, ',') FROM generate_series(1, 20000) g) || ')',
    '$params', '[2]'::jsonb)));
-- the number of $params must match the query's parameters
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = $1", "$params": [1, 2]}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = $1"}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM sales WHERE id = $2", "$params": [1, 2]}}');
-- a parameter whose type nothing decides is an error with a hint
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT 1 AS x WHERE $1 IS NULL", "$params": [1]}}');
-- (in the select list an undecided parameter is text, as in PREPARE)
SELECT sandbox_execute('def main(df): return df.to_dict("records")',
    '{"df": {"$query": "SELECT $1 AS x", "$params": ["a"]}}');
SELECT pg_temp.sqlstate('{"df": {"$query": "SELECT 1 AS x WHERE $1 IS NULL", "$params": [1]}}');
SELECT pg_temp.sqlstate('{"df": {"$query": "SELECT $1::int AS x", "$params": []}}');
-- $params must be an array
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT $1::int AS x", "$params": 1}}');

-- $table: a table or view the caller may read, every column
SELECT sandbox_execute($$
def main(t):
    return {"columns": list(t.columns), "rows": len(t)}
$$, '{"t": {"$table": "sales"}}');
SELECT sandbox_execute($$
def main(t):
    return t.sort_values("id")["id"].tolist()
$$, '{"t": {"$table": "public.north_sales"}}');
-- schema-qualified, quoted names keep their case and spaces
SELECT sandbox_execute($$
def main(t):
    return t.to_dict("list")
$$, '{"t": {"$table": "\"Odd Schema\".\"Mixed Case\""}}');
-- unquoted names are folded to lower case, as in SQL
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "PUBLIC.Sales"}}');
-- a name that is not a table, or not a valid name
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "no_such_table"}}');
-- ... with the names it may mean: close ones in search_path, and with their
-- schema those of schemas the role may use (review 79)
CREATE SCHEMA inputs_shop;
CREATE TABLE inputs_shop.orders(id int);
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "orders"}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "inputs_shop.order"}}');
-- ... and names that hold the one given, or that it holds, after those
-- (review 123 F5: "sales" had no hint beside sales_2024)
CREATE TABLE inputs_shop.orders_2024(id int);
CREATE TABLE inputs_shop.customers_2024(id int);
CREATE TABLE inputs_shop.vip_customers(id int);
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "inputs_shop.archived_orders"}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "inputs_shop.customers"}}');
-- (not for a name of under 4 characters: "ord" holds little)
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "inputs_shop.ord"}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "sale"}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "\"Odd Schema\".\"Mixed Cas\""}}');
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "WITH s AS (SELECT 1) SELECT * FROM s, sales JOIN inputs_shop.ordr o ON true"}}');
-- a column that does not exist: the columns of the tables the query reads,
-- where PostgreSQL names none close (review 172 F3), of the one its
-- qualifier names, and for a role only the tables and columns it may read
ALTER TABLE inputs_shop.orders ADD COLUMN total numeric, ADD COLUMN status text;
ALTER TABLE inputs_shop.customers_2024 ADD COLUMN name text, ADD COLUMN secret text;
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "SELECT amount FROM inputs_shop.orders"}}');
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "WITH s AS (SELECT 1 AS one) SELECT c.amount FROM s, inputs_shop.orders o JOIN inputs_shop.customers_2024 c ON c.id = o.id"}}');
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "SELECT statu FROM inputs_shop.orders"}}');
CREATE ROLE regress_inputs_columns;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO regress_inputs_columns;
GRANT USAGE ON SCHEMA inputs_shop TO regress_inputs_columns;
GRANT SELECT ON inputs_shop.orders TO regress_inputs_columns;
GRANT SELECT (id, name) ON inputs_shop.customers_2024 TO regress_inputs_columns;
CREATE SCHEMA inputs_hidden;
CREATE TABLE inputs_hidden.h (x int);
SET ROLE regress_inputs_columns;
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "SELECT amount FROM inputs_shop.orders, inputs_shop.customers_2024, inputs_shop.vip_customers"}}');
-- a schema the role may not use on the way is passed over, and a statement
-- the hint does not read (EXPLAIN) keeps the query's own error (review 174
-- F4: "permission denied for schema", "unrecognized node type")
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "SELECT amount, (SELECT 1 FROM inputs_hidden.h) FROM inputs_shop.orders"}}');
SELECT sandbox_execute('def main(t): return len(t)',
    '{"t": {"$query": "EXPLAIN SELECT amount FROM inputs_shop.orders"}}');
SELECT sandbox_execute($$
def main():
    try:
        sql("SELECT o.amount FROM inputs_shop.orders o")
    except SQLError as e:
        return [e.sqlstate, e.hint]
$$);
RESET ROLE;
DROP OWNED BY regress_inputs_columns;
DROP ROLE regress_inputs_columns;
DROP SCHEMA inputs_hidden CASCADE;
DROP SCHEMA inputs_shop CASCADE;
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "Odd Schema.Mixed Case"}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": "sales; DROP TABLE sales"}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$table": 1}}');
SELECT sandbox_execute('def main(t): return len(t)', '{"t": {"$query": 1}}');

-- $literal passes JSON that itself contains "$" keys, unchanged
SELECT sandbox_execute('def main(x): return x',
    '{"x": {"$literal": {"$query": "SELECT 1", "nested": {"$table": "t"}}}}');
SELECT sandbox_execute('def main(x): return x', '{"x": {"$literal": [1, "$2"]}}');
-- plain nested JSON arrives as dicts and lists; "$" only matters in keys
SELECT sandbox_execute($$
def main(cfg):
    return [cfg["a"]["b"][1]["c"], cfg["s"], len(cfg)]
$$, '{"cfg": {"a": {"b": [0, {"c": "deep"}]}, "s": "$query", "x": null}}');
-- an object with "$" keys deeper down is plain JSON too
SELECT sandbox_execute('def main(x): return x', '{"x": {"a": {"$query": "SELECT 1"}}}');

-- input names must be identifiers that Python code can bind
SELECT sandbox_execute('def main(): return 1', '{"class": 1}');
SELECT sandbox_execute('def main(): return 1', '{"__x": 1}');
SELECT sandbox_execute('def main(): return 1', '{"1a": 1}');
SELECT sandbox_execute('def main(): return 1', '{"a-b": 1}');
SELECT sandbox_execute('def main(): return 1', '{"": 1}');
SELECT sandbox_execute('def main(): return 1', '{"naïve": 1}');
SELECT pg_temp.sqlstate('{"class": 1}');
-- a single leading underscore is fine
SELECT sandbox_execute('def main(_x): return _x', '{"_x": 1}');

-- "$" keys must form one of the known table inputs
SELECT sandbox_execute('def main(x): return x', '{"x": {"$tabel": "sales"}}');
SELECT sandbox_execute('def main(x): return x', '{"x": {"$query": "SELECT 1", "extra": 1}}');
SELECT sandbox_execute('def main(x): return x', '{"x": {"$table": "sales", "$params": []}}');
SELECT sandbox_execute('def main(x): return x', '{"x": {"$params": [1]}}');

SELECT pg_temp.sqlstate('{"x": {"$tabel": "sales"}}');
-- inputs must be a JSON object
SELECT sandbox_execute('def main(): return 1', '[1, 2]');
SELECT sandbox_execute('def main(): return 1', '"x"');
SELECT sandbox_execute('def main(): return 1', 'null');

-- VALUES and TABLE are queries too
SELECT sandbox_execute('def main(a, b): return [len(a), len(b)]',
    '{"a": {"$query": "VALUES (1), (2)"}, "b": {"$query": "TABLE sales"}}');
-- $query must be one SELECT: no other statements, no second statement
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "INSERT INTO sales VALUES (9, ''west'', 1, ''eve'') RETURNING id"}}');
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "SELECT 1; SELECT 2"}}');
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "DELETE FROM sales"}}');
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "SELEC 1"}}');
SELECT sandbox_execute('def main(df): return 1', '{"df": {"$query": ""}}');
SELECT sandbox_execute('def main(df): return 1', '{"df": {"$query": "SHOW work_mem"}}');

SELECT pg_temp.sqlstate('{"df": {"$query": "DELETE FROM sales"}}');
-- the query runs read-only: functions that write fail
CREATE SEQUENCE seq;
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "SELECT nextval(''seq'')"}}');
SELECT pg_temp.sqlstate('{"df": {"$query": "SELECT nextval(''seq'')"}}');
-- planning is read-only too: an immutable function is run (folded) while
-- the query is planned, before it runs
CREATE FUNCTION pg_temp.next_folded() RETURNS bigint LANGUAGE plpgsql IMMUTABLE
AS 'BEGIN RETURN nextval(''seq''); END';
SELECT pg_temp.sqlstate('{"df": {"$query": "SELECT pg_temp.next_folded() AS v"}}');
-- SELECTs that write are refused like any other non-SELECT statement:
-- a data-modifying WITH, FOR UPDATE (it locks rows) and SELECT INTO
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "WITH d AS (DELETE FROM sales RETURNING id) SELECT * FROM d"}}');
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "SELECT * FROM sales FOR UPDATE"}}');
SELECT sandbox_execute('def main(df): return 1',
    '{"df": {"$query": "SELECT * INTO sales_copy FROM sales"}}');
SELECT count(*) AS still_four FROM sales;
-- and the transaction is read-write again afterwards
SELECT nextval('seq');
SHOW transaction_read_only;
-- a call inside a read-only transaction keeps it read-only
BEGIN READ ONLY;
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$table": "sales"}}');
SHOW transaction_read_only;
COMMIT;

-- the query sees the caller's snapshot: uncommitted rows of this transaction
BEGIN;
INSERT INTO sales VALUES (5, 'west', 1.00, 'eve');
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$table": "sales"}}');
ROLLBACK;
-- a table input may itself call the sandbox (jsonb arrives as text)
SELECT sandbox_execute($$def main(df): return df.to_dict("records")$$,
    '{"df": {"$query": "SELECT sandbox_execute(''def main(): return 5'') AS inner_result"}}');

-- privileges of the calling role apply to table inputs
CREATE ROLE regress_pysandbox_analyst;
CREATE TABLE secrets (id int, secret text);
INSERT INTO secrets VALUES (1, 'hidden');
CREATE TABLE accounts (id int, owner name, balance int, note text);
INSERT INTO accounts VALUES
    (1, 'regress_pysandbox_analyst', 100, 'mine'),
    (2, 'someone_else', 200, 'theirs'),
    (3, 'regress_pysandbox_analyst', 300, 'mine too');
GRANT SELECT ON sales TO regress_pysandbox_analyst;
GRANT SELECT (id, owner, balance) ON accounts TO regress_pysandbox_analyst;
SET ROLE regress_pysandbox_analyst;
-- EXECUTE is revoked from PUBLIC: a role needs a grant to call at all
SELECT sandbox_execute('def main(): return 1');
RESET ROLE;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO regress_pysandbox_analyst;
SET ROLE regress_pysandbox_analyst;
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$table": "sales"}}');
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$table": "secrets"}}');
SELECT pg_temp.sqlstate('{"df": {"$table": "secrets"}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT s.id FROM sales s JOIN secrets USING (id)"}}');
-- column privileges: the granted columns can be read, "*" cannot
SELECT sandbox_execute('def main(df): return int(df["balance"].sum())',
    '{"df": {"$query": "SELECT id, balance FROM accounts"}}');
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$table": "accounts"}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT note FROM accounts"}}');
RESET ROLE;

-- row-level security applies: the policy filters the rows Python sees
ALTER TABLE accounts ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON accounts FOR SELECT USING (owner = current_user);
SET ROLE regress_pysandbox_analyst;
SELECT sandbox_execute($$
def main(df):
    return {"ids": sorted(df["id"].tolist()), "owners": sorted(set(df["owner"]))}
$$, '{"df": {"$query": "SELECT id, owner FROM accounts"}}');
-- the same query outside the sandbox agrees
SELECT id FROM accounts ORDER BY id;
RESET ROLE;
-- the table owner (a superuser here) sees every row
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT id FROM accounts"}}');

-- pysandbox.max_input_rows counts the rows of all table inputs together
SET pysandbox.max_input_rows = 4;
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$table": "sales"}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT * FROM generate_series(1, 5)"}}');
SELECT sandbox_execute('def main(a, b): return 0',
    '{"a": {"$query": "SELECT 1 FROM generate_series(1, 3)"},
      "b": {"$query": "SELECT 1 FROM generate_series(1, 3)"}}');
SELECT pg_temp.sqlstate('{"df": {"$query": "SELECT * FROM generate_series(1, 5)"}}');
SET pysandbox.max_input_rows = 0;
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$query": "SELECT 1 WHERE false"}}');
SELECT sandbox_execute('def main(df): return len(df)', '{"df": {"$query": "SELECT 1"}}');
RESET pysandbox.max_input_rows;

-- pysandbox.max_input_size caps the encoded size of all table inputs
SET pysandbox.max_input_size = '1MB';
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT repeat(''x'', 100) FROM generate_series(1, 1000)"}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT repeat(''x'', 1000) FROM generate_series(1, 2000)"}}');
RESET pysandbox.max_input_size;

DROP FUNCTION pg_temp.sqlstate(jsonb);
DROP TABLE sales, secrets, accounts CASCADE;
DROP SCHEMA "Odd Schema" CASCADE;
DROP SEQUENCE seq;
DROP OWNED BY regress_pysandbox_analyst;
DROP ROLE regress_pysandbox_analyst;
