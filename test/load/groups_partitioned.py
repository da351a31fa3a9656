#!/usr/bin/python3
"""options.group_by with options.parallel over partitions (doc/groups.md).

    /usr/bin/python3 test/load/groups_partitioned.py

Against the test cluster with pysandbox in shared_preload_libraries (a
superuser's PG* settings).  Checks that:
  - an eligible call runs over partitions (its DEBUG1 line), and the calls
    that cannot keep the sorted path: a key type without a hash function
    (money), an input query that cannot run in parallel mode, sandbox_run;
  - on 200,000 rows in 37 groups (text keys with NULLs, a column whose
    NULLs are in some groups only), results and sandbox_rows' order equal
    the sorted path's;
  - a partition larger than the children's memory (the planner was told a
    set-returning function returns 10 rows) fails with the memory error
    and the partition named; a statement_timeout while the rows are read,
    and a cancel while the groups run, end the call at once (57014); a
    process whose CPU time has no room for more groups fails the call
    with the group named;
  - keys over 64 MB in all fail before they fill the backend's memory; a
    group whose process exits reports that exit; with fewer parallel
    workers than asked for the sorted path runs;
  - after each failure the session works, and no call's process is left.
Last line: "groups_partitioned: N passed, M failed".
"""

import os
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from proctools import (WORKER_EXE, call_children, children, exe_of,  # noqa: E402
                       postmaster_pid, process_table)

CODE = """
def main(df):
    return {"rows": len(df), "x": int(df.x.sum()), "n": str(df.n.dtype),
            "nulls": int(df.n.isna().sum()), "name": str(df.name)}
"""
ROWS_CODE = """
def main(df):
    return df.groupby("k", dropna=False, as_index=False).agg(rows=("x", "size"), x=("x", "sum"))
"""
PARTITIONS = "run over 2 partitions"

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what + (": " + str(detail) if detail else ""))


def connect():
    conn = psycopg2.connect("")
    conn.autocommit = True
    return conn


def execute(cur, code, inputs, options, func="sandbox_execute"):
    cur.execute("SELECT %s(%%s, %%s::jsonb, '{main}', %%s::jsonb)" % func,
                (code, inputs, options))
    return cur.fetchone()[0]


def failure(cur, sql, params=()):
    """(sqlstate, message, context) of a statement that must fail."""
    try:
        cur.execute(sql, params)
    except psycopg2.Error as exc:
        return exc.pgcode, exc.diag.message_primary, exc.diag.context or ""
    return None, "no error", ""


def call_processes():
    """The fork server worker's children that serve calls (not spares)."""
    table = process_table()
    pm = postmaster_pid()
    workers = [p for b in children(table, pm) for p in children(table, b)
               if exe_of(p) == WORKER_EXE]
    return [c for w in workers for c in call_children(table, w)]


def none_left(what):
    deadline = time.monotonic() + 10
    left = call_processes()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = call_processes()
    check(not left, "no call's process is left after " + what, left)


def partitioned(conn, code, inputs, options, func="sandbox_execute"):
    """Did the call run over partitions (its DEBUG1 line)?"""
    cur = conn.cursor()
    del conn.notices[:]
    cur.execute("SET client_min_messages = debug1")
    try:
        if func == "sandbox_run":
            cur.execute("SELECT sandbox_run(%s, %s::jsonb, options => %s::jsonb)",
                        (code, inputs, options))
        elif func == "sandbox_rows":
            cur.execute("SELECT count(*) FROM sandbox_rows(%s, %s::jsonb, options => %s::jsonb)"
                        " AS (t text, k int, rows int, x bigint)", (code, inputs, options))
        else:
            execute(cur, code, inputs, options, func)
    finally:
        cur.execute("RESET client_min_messages")
    return any(PARTITIONS in n for n in conn.notices)


def main():
    conn = connect()
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("DROP TABLE IF EXISTS gp_rows")
    cur.execute("""CREATE TABLE gp_rows AS
        SELECT CASE WHEN i % 41 = 0 THEN NULL ELSE 'key ' || (i % 36) END AS t,
               CASE WHEN i % 3 = 0 THEN NULL ELSE i % 4 END AS k,
               (i % 5)::money AS m,
               CASE WHEN i % 36 = 8 AND i % 5 = 0 THEN NULL ELSE i END AS n,
               i AS x
        FROM generate_series(1, 200000) i""")
    cur.execute("ANALYZE gp_rows")
    table = '{"df": {"$table": "gp_rows"}}'

    # which path
    check(partitioned(conn, CODE, table, '{"group_by": "t", "parallel": 2}'),
          "group_by + parallel over a text key runs over partitions")
    check(partitioned(conn, ROWS_CODE, table, '{"group_by": ["t", "k"], "parallel": 2}',
                      "sandbox_rows"),
          "sandbox_rows with two keys runs over partitions")
    check(not partitioned(conn, CODE, table, '{"group_by": "m", "parallel": 2}'),
          "a money key (no hash function) keeps the sorted path")
    check(not partitioned(conn, CODE, table, '{"group_by": "t"}'),
          "without parallel, the sorted path")
    check(not partitioned(conn, CODE, table, '{"group_by": "t", "parallel": 2}', "sandbox_run"),
          "sandbox_run keeps the sorted path (a report per group)")
    cur.execute("""CREATE OR REPLACE FUNCTION pg_temp.careful(x int) RETURNS int
        LANGUAGE plpgsql AS $f$ BEGIN RETURN x; EXCEPTION WHEN OTHERS THEN RETURN NULL; END $f$""")
    check(not partitioned(conn, CODE, '{"df": {"$query": "SELECT t, pg_temp.careful(x) AS x, '
                          'n FROM gp_rows"}}', '{"group_by": "t", "parallel": 2}'),
          "an input query unsafe in parallel mode keeps the sorted path")

    # the same answers
    one = execute(cur, CODE, table, '{"group_by": "t"}')
    par = execute(cur, CODE, table, '{"group_by": "t", "parallel": 2}')
    check(one == par and len(one["main"]) == 37,
          "200,000 rows in 37 groups: the same result as the sorted path", (len(one["main"]),))
    dtypes = {v["n"] for v in par["main"].values()}
    check(dtypes == {"int64", "Int64"}, "each group's dtypes are its own (int64 or Int64)", dtypes)
    cur.execute("""SELECT array_agg(p ORDER BY o) = array_agg(s ORDER BY o), count(*)
        FROM ROWS FROM (sandbox_rows(%s, %s::jsonb, options => '{"group_by": ["t", "k"], "parallel": 2}')
            AS (t text, k int, rows int, x bigint)) WITH ORDINALITY AS p(t, k, rows, x, o)
        JOIN ROWS FROM (sandbox_rows(%s, %s::jsonb, options => '{"group_by": ["t", "k"]}')
            AS (t text, k int, rows int, x bigint)) WITH ORDINALITY AS s(t, k, rows, x, o) USING (o)""",
                (ROWS_CODE, table, ROWS_CODE, table))
    same, nrows = cur.fetchone()
    cur.execute("SELECT count(*) FROM (SELECT DISTINCT t, k FROM gp_rows) d")
    want = cur.fetchone()[0]
    check(same and nrows == want, "sandbox_rows: the same rows in the same order",
          (same, nrows, want))
    none_left("the calls above")

    # a partition larger than the memory limit: the planner expected 10 rows
    cur.execute("SET pysandbox.timeout = '60s'")
    cur.execute("""CREATE OR REPLACE FUNCTION pg_temp.many() RETURNS TABLE (g int, s text)
        LANGUAGE sql ROWS 10 PARALLEL SAFE AS
        $f$ SELECT i % 2, repeat('x', 1000) || i FROM generate_series(1, 1200000) i $f$""")
    state, message, context = failure(
        cur, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
        ("def main(df):\n    return len(df)\n", '{"df": {"$query": "SELECT * FROM pg_temp.many()"}}',
         '{"group_by": "g", "parallel": 2, "memory_mb": 128, "timeout_ms": 60000}'))
    check(state == "53200" and "memory limit" in message and "parallel process" in context,
          "a partition over the memory limit: 53200 naming the partition, as soon as it "
          "fails (reading on, each group would pass the 512 MB input limit: 54000)",
          (state, message, context))
    none_left("a partition over the memory limit")

    # a statement_timeout while the rows are read
    cur.execute("SET statement_timeout = '300ms'")
    start = time.monotonic()
    state, message, _ = failure(
        cur, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
        ("def main(df):\n    return len(df)\n",
         '{"df": {"$query": "SELECT a.x % 7 AS g, b.x FROM gp_rows a, gp_rows b"}}',
         '{"group_by": "g", "parallel": 2}'))
    took = time.monotonic() - start
    cur.execute("RESET statement_timeout")
    check(state == "57014" and took < 3, "statement_timeout while the rows are read: 57014 at once",
          (state, message, round(took, 2)))
    none_left("a statement_timeout while the rows are read")

    # a cancel while the groups run
    def cancel_later():
        time.sleep(1.5)
        conn.cancel()
    killer = threading.Thread(target=cancel_later)
    killer.start()
    start = time.monotonic()
    state, message, _ = failure(
        cur, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
        ("import time\ndef main(df):\n    time.sleep(1)\n    return len(df)\n", table,
         '{"group_by": "t", "parallel": 2}'))
    took = time.monotonic() - start
    killer.join()
    check(state == "57014" and took < 4, "a cancel while the groups run: 57014 at once",
          (state, message, round(took, 2)))
    none_left("a cancel while the groups run")

    # a process whose CPU time (ten groups' cpu_ms) has no room for more:
    # 185 groups of 50 ms (the rest of each group's 200 ms is for the call
    # around it and its rows: 80 ms, then 50, left too little on a VM of
    # dear page faults, where a group's rows alone took over 50 ms)
    burn = ("import time\ndef main(df):\n    end = time.process_time() + 0.05\n"
            "    while time.process_time() < end:\n        pass\n    return len(df)\n")
    state, message, context = failure(
        cur, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
        (burn, '{"df": {"$query": "SELECT t, x % 5 AS five, x FROM gp_rows"}}',
         '{"group_by": ["t", "five"], "parallel": 2, "cpu_ms": 200}'))
    check(state == "39000" and "ended before the group ran" in message and "group (t, five)=" in context,
          "a process out of CPU time for more groups: the call fails naming the group",
          (state, message, context))
    none_left("a process out of CPU time")

    # the keys the backend keeps are bounded (1 MB keys in 70 groups)
    state, message, _ = failure(
        cur, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
        ("def main(df):\n    return None\n",
         '{"df": {"$query": "SELECT repeat(md5(i::text), 32768) AS g FROM generate_series(1, 70) i"}}',
         '{"group_by": "g", "parallel": 2}'))
    check(state == "54000" and "take more than 64 MB" in message,
          "group keys over 64 MB in all: 54000 before they use the backend's memory",
          (state, message))
    none_left("keys over 64 MB")

    # a group whose process exits during its call says so, as on the sorted path
    cur.execute("SET pysandbox.python_layer = off")
    for options in ('{"group_by": "t"}', '{"group_by": "t", "parallel": 2}'):
        state, message, context = failure(
            cur, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
            ("import os\ndef main(df):\n    if df.name == 'key 2':\n        os._exit(3)\n"
             "    return len(df)\n", table, options))
        check(state == "39000" and "exited with code 3" in message and "(t)=(key 2)" in context,
              "a group's process that exits during the group: its exit, %s" % options,
              (state, message, context))
    cur.execute("RESET pysandbox.python_layer")
    none_left("a group's process exiting")

    # fewer parallel workers than asked for: the sorted path on those that started
    cur.execute("SET max_parallel_workers = 1")
    check(not partitioned(conn, CODE, table, '{"group_by": "t", "parallel": 2}'),
          "one parallel worker of two: the sorted path")
    check(execute(cur, CODE, table, '{"group_by": "t", "parallel": 2}') == par,
          "... with the same result")
    cur.execute("RESET max_parallel_workers")

    check(execute(cur, CODE, table, '{"group_by": "t", "parallel": 2}') == par,
          "the session still runs partitioned calls")
    cur.execute("DROP TABLE gp_rows")
    conn.close()
    print("groups_partitioned: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
