#!/usr/bin/python3
"""Upgrades: CREATE EXTENSION pysandbox at 0.1, uses of it (a view, a
function and a column default that call it), ALTER EXTENSION pysandbox
UPDATE; then everything still works, the language is there, and the
extension's objects are exactly those of a fresh install of the default
version.

    /usr/bin/python3 test/upgrade.py

Runs against the test cluster (PGHOST/PGPORT/PGUSER); creates and drops
two databases of its own.  Prints one line per check and
"upgrade: N passed, M failed".
"""

import sys

import psycopg2

DATABASES = ("regress_pysandbox_fresh", "regress_pysandbox_upgraded")

# every object of the extension, with what defines it: signature and
# definition of functions, privileges, comments, the language's handlers
OBJECTS = """
SELECT pg_describe_object(d.classid, d.objid, 0) AS object,
       CASE WHEN d.classid = 'pg_proc'::regclass THEN
              (SELECT concat_ws(' | ', pg_get_function_identity_arguments(p.oid),
                                pg_get_function_result(p.oid), p.prosrc, p.probin,
                                p.provolatile, p.proparallel, p.proisstrict, p.prosecdef,
                                p.proacl::text, pg_get_function_arguments(p.oid))
               FROM pg_proc p WHERE p.oid = d.objid)
            WHEN d.classid = 'pg_language'::regclass THEN
              (SELECT concat_ws(' | ', l.lanpltrusted, l.lanplcallfoid::regprocedure,
                                l.laninline::regprocedure, l.lanvalidator::regprocedure,
                                l.lanacl::text)
               FROM pg_language l WHERE l.oid = d.objid)
       END AS definition,
       obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) AS comment
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pysandbox')
ORDER BY 1
"""


def connect(dbname=None):
    conn = psycopg2.connect("" if dbname is None else "dbname=%s" % dbname)
    conn.autocommit = True
    return conn


def main():
    passed = failed = 0

    def check(ok, what, why=""):
        nonlocal passed, failed
        print("%-4s %s%s" % ("ok" if ok else "FAIL", what, "" if ok else ": " + why), flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    admin = connect()
    cur = admin.cursor()
    for db in DATABASES:
        cur.execute("DROP DATABASE IF EXISTS %s" % db)
        cur.execute("CREATE DATABASE %s" % db)
    cur.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'pysandbox'")
    default = cur.fetchone()[0]
    try:
        fresh = connect(DATABASES[0])
        fresh.cursor().execute("CREATE EXTENSION pysandbox")

        old = connect(DATABASES[1])
        c = old.cursor()
        c.execute("CREATE EXTENSION pysandbox VERSION '0.1'")
        c.execute("SELECT extversion FROM pg_extension WHERE extname = 'pysandbox'")
        check(c.fetchone()[0] == "0.1", "CREATE EXTENSION pysandbox VERSION '0.1'")
        # uses of 0.1 that an update must keep working
        c.execute("""CREATE VIEW answers AS
                     SELECT sandbox_execute('def main(): return 42') -> 'main' AS answer""")
        c.execute("""CREATE FUNCTION doubled(x integer) RETURNS jsonb LANGUAGE sql AS
                     $$ SELECT sandbox_execute('def main(x): return 2 * x',
                                               jsonb_build_object('x', x)) $$""")
        c.execute("""CREATE TABLE notes (id integer,
                     checked jsonb DEFAULT sandbox_validate('def main(): return 1'))""")
        c.execute("INSERT INTO notes (id) VALUES (1)")
        c.execute("SELECT count(*) FROM pg_language WHERE lanname = 'pysandbox'")
        check(c.fetchone()[0] == 0, "0.1 has no language")

        c.execute("ALTER EXTENSION pysandbox UPDATE")
        c.execute("SELECT extversion FROM pg_extension WHERE extname = 'pysandbox'")
        version = c.fetchone()[0]
        check(version == default, "ALTER EXTENSION pysandbox UPDATE reaches %s" % default,
              "at %s" % version)
        c.execute("SELECT answer FROM answers")
        check(c.fetchone()[0] == 42, "a view calling sandbox_execute still works")
        c.execute("SELECT doubled(21)")
        check(c.fetchone()[0] == {"main": 42}, "a SQL function calling it still works")
        c.execute("INSERT INTO notes (id) VALUES (2)")
        c.execute("SELECT checked ->> 'ok' FROM notes ORDER BY id")
        check([r[0] for r in c.fetchall()] == ["true", "true"],
              "a column default calling sandbox_validate still works")
        c.execute("""CREATE FUNCTION py_inc(x integer) RETURNS integer
                     LANGUAGE pysandbox AS 'return x + 1'""")
        c.execute("SELECT py_inc(41)")
        check(c.fetchone()[0] == 42, "the language works after the update")

        got = {}
        for name, conn in (("fresh", fresh), ("upgraded", old)):
            k = conn.cursor()
            k.execute(OBJECTS)
            got[name] = k.fetchall()
        missing = sorted(set(got["fresh"]) - set(got["upgraded"]))
        extra = sorted(set(got["upgraded"]) - set(got["fresh"]))
        check(not missing and not extra and len(got["fresh"]) > 0,
              "the update gives the objects of a fresh install (%d)" % len(got["fresh"]),
              "only in a fresh install: %s; only after the update: %s" % (missing[:3], extra[:3]))
        fresh.close()
        old.close()
    except psycopg2.Error as exc:
        check(False, "upgrade", "%s %s" % (exc.pgcode, str(exc).strip()[:300]))
    finally:
        for db in DATABASES:
            cur.execute("DROP DATABASE IF EXISTS %s WITH (FORCE)" % db)
        admin.close()
    print("upgrade: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
