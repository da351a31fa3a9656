#!/usr/bin/python3
"""sql()'s memory cap (src/backend/sb_sql.c) never turns into a crash.

    /usr/bin/python3 test/security/sqlcap.py

While a query of sql() runs, the backend's address space is capped so that
a value PostgreSQL builds whole without looking at interrupts fails with
53200 (review 110).  Code that aborts where memory runs out must not run
under it: a crash restarts every session.  Review 112 crashed the cluster
through libLLVM's start-up (JIT), review 113 through plpython3u's
interpreter starting under the cap.  This checks, as an ordinary role with
a small input budget (the cap is then about 180 MB above the backend):
an internal builder still fails with 53200; a plpython3u function runs
uncapped (a 300 MB bytearray in it works); the first plpython3u call of
fresh sessions, after a query filled memory close to the cap, never crashes
the server; the limit is back after each query.  Against the test cluster
(PGHOST/PGPORT/PGUSER); needs postgresql-plpython3-15 (test/setup.sh).
Prints one line per check and "sqlcap: N passed, M failed".
"""

import sys

import psycopg2

ROLE = "regress_sqlcap"
passed = failed = 0


def check(ok, what, why=""):
    global passed, failed
    print("%-4s %s%s" % ("ok" if ok else "FAIL", what, "" if ok else ": " + str(why)), flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def connect(user=None):
    conn = psycopg2.connect("" if user is None else "user=%s" % user)
    conn.autocommit = True
    return conn


def one(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchone()[0] if cur.description else None


def run(code):
    """(result, error) of a sandbox_execute as the role, in a fresh session."""
    conn = connect(ROLE)
    try:
        pid = one(conn, "SELECT pg_backend_pid()")
        try:
            return one(conn, "SELECT sandbox_execute(%s)", (code,)), None, pid, conn
        except psycopg2.Error as e:
            return None, (e.pgcode, str(e).splitlines()[0]), pid, conn
    except psycopg2.Error as e:
        return None, (e.pgcode, str(e).splitlines()[0]), None, None


def address_limit(su, pid):
    text = one(su, "SELECT pg_read_file(%s)", ("/proc/%d/limits" % pid,))
    return [line for line in text.splitlines() if line.startswith("Max address space")][0].split()[3]


def main():
    su = connect()
    start = one(su, "SELECT pg_postmaster_start_time()")
    one(su, "CREATE EXTENSION IF NOT EXISTS plpython3u")
    one(su, "DROP FUNCTION IF EXISTS regress_sqlcap_big(), regress_sqlcap_one(), regress_sqlcap_rec(int)")
    one(su, "DO $d$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') "
            "THEN CREATE ROLE %s LOGIN; END IF; END$d$" % (ROLE, ROLE))
    one(su, "ALTER ROLE %s SET pysandbox.max_input_size = '16MB'" % ROLE)
    one(su, "GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO %s" % ROLE)
    one(su, "CREATE FUNCTION regress_sqlcap_big() RETURNS bigint LANGUAGE plpython3u STABLE "
            "AS 'return len(bytearray(300 * 1024 * 1024))'")
    one(su, "CREATE FUNCTION regress_sqlcap_one() RETURNS int LANGUAGE plpython3u STABLE "
            "AS 'return 1'")
    one(su, "CREATE FUNCTION regress_sqlcap_rec(n int) RETURNS int LANGUAGE sql STABLE AS "
            "'SELECT CASE WHEN n <= 0 THEN 0 ELSE regress_sqlcap_rec(n - 1) + 1 END'")
    one(su, "GRANT EXECUTE ON FUNCTION regress_sqlcap_big(), regress_sqlcap_one(), "
            "regress_sqlcap_rec(int) TO %s" % ROLE)
    try:
        got, err, pid, conn = run('def main():\n    return int(sql("SELECT length(repeat('
                                  '\'x\', 300000000)) AS n").n[0])\n')
        check(err is not None and err[0] == "53200" and "ran out of memory" in err[1],
              "an internal builder past the cap fails with 53200", (got, err))
        if conn is not None:
            check(address_limit(su, pid) == "unlimited", "the limit is back after it",
                  address_limit(su, pid))
            conn.close()
        got, err, pid, conn = run('def main():\n    return int(sql("SELECT regress_sqlcap_big() AS n").n[0])\n')
        check(got == {"main": 300 * 1024 * 1024} and err is None,
              "a plpython3u function runs uncapped (300 MB in it)", (got, err))
        if conn is not None:
            check(address_limit(su, pid) == "unlimited", "the limit is back after it",
                  address_limit(su, pid))
            conn.close()
        # a recursive SQL function: the stack goes deep under the cap (review
        # 113: its mapping grown under the cap faulted, and the server crashed)
        got, err, pid, conn = run('def main():\n    return int(sql("SELECT regress_sqlcap_rec(100000) AS n").n[0])\n')
        if conn is not None:
            conn.close()
        again = connect()
        check(one(again, "SELECT pg_postmaster_start_time()") == start and err is not None,
              "a recursive SQL function under the cap fails, never crashes", err)
        again.close()
        # a fresh session's first plpython3u call after memory was filled
        # close to the cap, at steps across the edge (review 113's crash)
        outcomes = set()
        for mb in range(40, 200, 8):
            got, err, pid, conn = run(
                'def main():\n    return int(sql("SELECT regress_sqlcap_one() + length(c) AS n '
                'FROM (SELECT repeat(\'x\', %d) c OFFSET 0) s").n[0])\n' % (mb * 1024 * 1024))
            outcomes.add("ok" if err is None else err[0])
            if conn is not None:
                conn.close()
        still = connect()
        check(one(still, "SELECT pg_postmaster_start_time()") == start and
              outcomes <= {"ok", "53200"},
              "first plpython3u calls near the cap: ok or 53200, never a crash", sorted(outcomes))
        still.close()
    finally:
        one(su, "DROP FUNCTION IF EXISTS regress_sqlcap_big(), regress_sqlcap_one(), regress_sqlcap_rec(int)")
        one(su, "REVOKE ALL ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM %s" % ROLE)
        one(su, "DROP ROLE IF EXISTS %s" % ROLE)
        one(su, "DROP EXTENSION IF EXISTS plpython3u")
    print("sqlcap: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
