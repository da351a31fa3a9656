--
-- sqlcall: sql() runs a read-only query through the calling backend, from
-- inside the sandbox, as the calling role, in the statement's snapshot
--
CREATE TABLE sq_items(id integer, name text, price numeric, secret text);
INSERT INTO sq_items VALUES (1, 'apple', 1.5, 's1'), (2, 'pear', 2.25, 's2'),
                            (3, 'plum', 0.75, 's3');
CREATE SEQUENCE sq_seq;

-- rows arrive as a DataFrame, as a $query input's would; $1, $2 take parameters
SELECT sandbox_execute($$
def main():
    df = sql("SELECT id, name, price FROM sq_items WHERE price > $1 ORDER BY id", 1)
    return {"names": df.name.tolist(), "dtypes": df.dtypes}
$$);

-- in a language function too, and in the statement's snapshot
CREATE FUNCTION sq_total(min_price numeric) RETURNS float8
LANGUAGE pysandbox AS $$
df = sql("SELECT price FROM sq_items WHERE price >= $1", min_price)
return float(df.price.sum())
$$;
SELECT sq_total(1);
BEGIN;
INSERT INTO sq_items VALUES (4, 'fig', 3, 's4');
SELECT sq_total(3);
ROLLBACK;

-- what it refuses is an exception in Python, with its SQLSTATE; nothing is
-- written and the caller's transaction goes on
SELECT sandbox_execute($$
def main():
    out = {}
    for q in ["INSERT INTO sq_items VALUES (9, 'x', 1, 'x')",
              "SELECT nextval('sq_seq')",
              "WITH d AS (DELETE FROM sq_items RETURNING *) SELECT * FROM d",
              "SELECT * FROM sq_items FOR UPDATE",
              "SELECT * FROM no_such_table",
              "SELECT 1/0",
              "SELECT sandbox_execute('def main(): return 1')"]:
        try:
            sql(q)
            out[q[:20]] = "ran"
        except SQLError as e:
            out[q[:20]] = e.sqlstate
    return out
$$);
SELECT count(*) FROM sq_items;
SELECT nextval('sq_seq');
-- the message names what went wrong
SELECT sandbox_execute($$
def main():
    try:
        sql("SELECT sandbox_execute('def main(): return 1')")
    except SQLError as e:
        return str(e)
$$);
-- an error the code does not catch is the call's
SELECT sandbox_execute($$
def main():
    return len(sql("SELECT * FROM no_such_table"))
$$);
-- a query is a str
SELECT sandbox_execute($$
def main():
    return sql(42)
$$);

-- privileges and row-level security are the calling role's
CREATE ROLE regress_pysandbox_sql;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO regress_pysandbox_sql;
GRANT SELECT (id, name, price) ON sq_items TO regress_pysandbox_sql;
ALTER TABLE sq_items ENABLE ROW LEVEL SECURITY;
CREATE POLICY sq_cheap ON sq_items FOR SELECT USING (price < 2);
SET ROLE regress_pysandbox_sql;
SELECT sandbox_execute($$
def main():
    names = sql("SELECT name FROM sq_items ORDER BY id").name.tolist()
    try:
        sql("SELECT secret FROM sq_items")
        secret = "read"
    except SQLError as e:
        secret = e.sqlstate
    return {"names": names, "secret": secret}
$$);
RESET ROLE;
-- inside SECURITY DEFINER, the owner's
CREATE FUNCTION sq_secrets() RETURNS integer
LANGUAGE pysandbox SECURITY DEFINER AS $$
return len(sql("SELECT secret FROM sq_items"))
$$;
GRANT USAGE ON LANGUAGE pysandbox TO regress_pysandbox_sql;
SET ROLE regress_pysandbox_sql;
SELECT sq_secrets();
RESET ROLE;

-- functions that write even in a read-only transaction (large objects) are
-- undone: the query's subtransaction is rolled back once its rows are
-- copied, for sql() and for $query inputs alike
SELECT sandbox_execute($$
def main(made):
    sql("SELECT lo_from_bytea(0, 'written')")
    return len(made)
$$, '{"made": {"$query": "SELECT lo_from_bytea(0, ''written'') AS oid"}}');
SELECT count(*) FROM pg_largeobject_metadata;

-- the call's input budget counts the rows of sql() too
SET pysandbox.max_input_rows = 4;
SELECT sandbox_execute($$
def main():
    first = len(sql("SELECT * FROM generate_series(1, 3)"))
    try:
        sql("SELECT * FROM generate_series(1, 3)")
    except SQLError as e:
        return [first, e.sqlstate, str(e)]
$$);
RESET pysandbox.max_input_rows;

DROP FUNCTION sq_total(numeric), sq_secrets();
REVOKE USAGE ON LANGUAGE pysandbox FROM regress_pysandbox_sql;
REVOKE ALL ON sq_items FROM regress_pysandbox_sql;
REVOKE EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM regress_pysandbox_sql;
DROP ROLE regress_pysandbox_sql;
DROP TABLE sq_items;
DROP SEQUENCE sq_seq;
