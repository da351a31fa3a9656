#!/usr/bin/python3
"""pg_dump and restore of LANGUAGE pysandbox functions: an ordinary role
(USAGE on the language granted) creates functions in it, pg_dump writes the
database out, and psql restores it into a new database; the functions come
back with their bodies, owners and privileges, and run (also per row) with
the same results.

    /usr/bin/python3 test/dump.py

Runs against the test cluster (PGHOST/PGPORT/PGUSER), with the pg_dump and
psql of PostgreSQL 15; creates and drops two databases and a role of its
own.  Prints one line per check and "dump: N passed, M failed".
"""

import os
import subprocess
import sys

import psycopg2

BIN = "/usr/lib/postgresql/15/bin"
SOURCE, TARGET = "regress_pysandbox_dump_src", "regress_pysandbox_dump_dst"
ROLE = "regress_pysandbox_dump_owner"

SETUP = [
    "CREATE EXTENSION pysandbox",
    "GRANT USAGE ON LANGUAGE pysandbox TO %s" % ROLE,
    "GRANT CREATE ON SCHEMA public TO %s" % ROLE,
    "SET ROLE %s" % ROLE,
    """CREATE FUNCTION dump_scale(x integer, by_ numeric DEFAULT 2) RETURNS numeric
       LANGUAGE pysandbox AS $$
return x * by_
$$""",
    """CREATE FUNCTION dump_words(t text) RETURNS TABLE(i integer, word text)
       LANGUAGE pysandbox AS $$
for i, w in enumerate(t.split(), 1):
    yield i, w
$$""",
    """CREATE FUNCTION dump_count(x integer) RETURNS integer LANGUAGE pysandbox AS $$
SD["n"] = SD.get("n", 0) + 1
return SD["n"]
$$""",
    "COMMENT ON FUNCTION dump_count(integer) IS 'counts its rows'",
    "REVOKE EXECUTE ON FUNCTION dump_words(text) FROM PUBLIC",
    "CREATE VIEW dump_view AS SELECT g, dump_scale(g) AS s FROM generate_series(1, 3) g",
    "RESET ROLE",
]

CHECKS = [
    ("a scalar function and its default argument", "SELECT dump_scale(21)"),
    ("a set-returning function", "SELECT array_agg(word ORDER BY i) FROM dump_words('a b c')"),
    ("a view over a function", "SELECT array_agg(s ORDER BY g) FROM dump_view"),
    ("per-row calls on one child", "SELECT array_agg(c) FROM (SELECT dump_count(g) AS c "
                                   "FROM generate_series(1, 4) g) s"),
    ("definitions, owners, privileges and comments",
     "SELECT array_agg(concat_ws(' | ', p.proname, pg_get_functiondef(p.oid), "
     "pg_get_userbyid(p.proowner), p.proacl::text, obj_description(p.oid, 'pg_proc')) "
     "ORDER BY p.proname) FROM pg_proc p WHERE p.proname LIKE 'dump\\_%'"),
]


def connect(db):
    conn = psycopg2.connect(dbname=db)
    conn.autocommit = True
    return conn


def main():
    passed = failed = 0
    admin = connect(os.environ.get("PGDATABASE", "postgres"))
    cur = admin.cursor()
    for db in (SOURCE, TARGET):
        cur.execute("DROP DATABASE IF EXISTS %s" % db)
    cur.execute("DROP ROLE IF EXISTS %s" % ROLE)
    cur.execute("CREATE ROLE %s" % ROLE)
    cur.execute("CREATE DATABASE %s" % SOURCE)
    cur.execute("CREATE DATABASE %s" % TARGET)
    try:
        src = connect(SOURCE)
        for sql in SETUP:
            src.cursor().execute(sql)
        dump = subprocess.run([BIN + "/pg_dump", "--no-password", "-d", SOURCE],
                              capture_output=True, text=True, timeout=120)
        ok = dump.returncode == 0 and "LANGUAGE pysandbox" in dump.stdout
        print("%-4s pg_dump writes the functions out%s" % (
            "ok" if ok else "FAIL", "" if ok else ": " + dump.stderr[-300:]))
        passed, failed = passed + ok, failed + (not ok)
        restore = subprocess.run([BIN + "/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1",
                                  "-d", TARGET], input=dump.stdout, capture_output=True,
                                 text=True, timeout=120)
        ok = restore.returncode == 0
        print("%-4s psql restores them into a new database%s" % (
            "ok" if ok else "FAIL", "" if ok else ": " + restore.stderr[-500:]))
        passed, failed = passed + ok, failed + (not ok)
        dst = connect(TARGET)
        for name, sql in CHECKS:
            got = []
            for conn in (src, dst):
                c = conn.cursor()
                c.execute("SET ROLE %s" % ROLE)
                try:
                    c.execute(sql)
                    got.append(c.fetchone()[0])
                except psycopg2.Error as exc:
                    got.append("ERROR %s %s" % (exc.pgcode, str(exc).strip()))
                finally:
                    c.execute("RESET ROLE")
            ok = got[0] == got[1] and not str(got[0]).startswith("ERROR")
            print("%-4s %s%s" % ("ok" if ok else "FAIL", name,
                                 "" if ok else ": before %r, after %r" % tuple(got)))
            passed, failed = passed + ok, failed + (not ok)
        src.close()
        dst.close()
    finally:
        for db in (SOURCE, TARGET):
            cur.execute("DROP DATABASE IF EXISTS %s WITH (FORCE)" % db)
        cur.execute("DROP ROLE IF EXISTS %s" % ROLE)
        admin.close()
    print("dump: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
