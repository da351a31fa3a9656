#!/usr/bin/python3
"""A table input larger than 1 GB, and the input limit failing cleanly.

    /usr/bin/python3 test/load/big_input.py

Against the test cluster (PGHOST/PGPORT/PGUSER, a superuser): one $query
input of 1,100,000 rows whose text column holds about 1.1 GB reaches a
DataFrame whole (exact row count and character total checked), with
pysandbox.max_input_size = 2GB; with 1GB the same call fails with 54000
"table inputs are larger than 1024 MB" before the child starts, and the
session still works.  About 40 s on 2 cores.  Last line:
"big_input: N passed, M failed".
"""

import sys
import time

import psycopg2

ROWS = 1100000
QUERY = ("SELECT i, repeat(chr(97 + i %% 26), 1000) || i AS t "
         "FROM generate_series(1, %d) i" % ROWS)
CODE = ('def main(df):\n'
        '    return {"rows": len(df), "chars": int(df["t"].str.len().sum()),\n'
        '            "first": df["t"].iloc[0][:3] + df["t"].iloc[0][-1:]}\n')
OPTIONS = '{"timeout_ms": 300000, "cpu_ms": 300000, "memory_mb": 6144}'


def main():
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    for setting, value in (("memory_limit", "6GB"), ("timeout", "300s"), ("cpu_limit", "300s")):
        cur.execute("SET pysandbox.%s = '%s'" % (setting, value))
    inputs = '{"df": {"$query": "%s"}}' % QUERY
    passed = failed = 0

    cur.execute("SET pysandbox.max_input_size = '2GB'")
    want = {"rows": ROWS, "chars": ROWS * 1000 + sum(len(str(i)) for i in range(1, ROWS + 1)),
            "first": "bbb1"}
    start = time.monotonic()
    cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)", (CODE, inputs, OPTIONS))
    got = cur.fetchone()[0]["main"]
    took = time.monotonic() - start
    if got == want:
        passed += 1
        print("ok   a 1.1 GB text column reached the DataFrame whole in %.1f s: %s" % (took, got))
    else:
        failed += 1
        print("FAIL 1.1 GB input: got %r, expected %r" % (got, want))

    cur.execute("SET pysandbox.max_input_size = '1GB'")
    start = time.monotonic()
    try:
        cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)", (CODE, inputs, OPTIONS))
        failed += 1
        print("FAIL the 1 GB limit let the input through")
    except psycopg2.Error as exc:
        took = time.monotonic() - start
        if exc.pgcode == "54000" and "table inputs are larger than 1024 MB" in str(exc):
            passed += 1
            print("ok   max_input_size = 1GB: 54000 after %.1f s, before the child started" % took)
        else:
            failed += 1
            print("FAIL the limit raised %s: %s" % (exc.pgcode, exc))
    cur.execute("SELECT sandbox_execute('def main(): return 7')")
    if cur.fetchone()[0] == {"main": 7}:
        passed += 1
        print("ok   the session still works")
    else:
        failed += 1
        print("FAIL the session's next call")
    print("big_input: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
