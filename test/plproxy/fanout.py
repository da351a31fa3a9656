#!/usr/bin/python3
"""Fan-out over PL/Proxy shards: doc/scale-out.md's SQL, verbatim, and the
answer checked against one node's.

    /usr/bin/python3 test/plproxy/fanout.py

Starts a coordinator and three shard clusters (test/plproxy/clusters.sh;
PYSANDBOX_PRELOAD=1 preloads pysandbox in all of them), runs every ```sql
block of doc/scale-out.md in page order where its first line says ("-- on
each shard" or "-- on the coordinator"), checking the rows a block shows
("--  " lines, as test/readme.py does), then checks:

  - the rows were split over the three shards, each row on one;
  - the fanned-out analysis (the page's sandbox_fanout example) equals the
    same two steps over all rows on one node, and SQL's own aggregates;
  - the caller's privileges hold on the shards (a role that may not read a
    shard's table gets 42501 through the fan-out);
  - a shard's Python exception fails the call with its message;
  - the shards run at once (three calls whose input takes 3 s each take
    well under 9 s);
  - statement_timeout on the coordinator cancels the shards' calls: none
    is left running on a shard.

Prints one line per check and "plproxy: N passed, M failed".
"""

import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
from readme import blocks, psql  # noqa: E402

DIR = os.environ.get("PYSANDBOX_PLPROXY_DIR", "/tmp/pysandbox-plproxy")
COORDINATOR = 54360
SHARDS = [54361, 54362, 54363]
DOC = os.path.join(ROOT, "doc", "scale-out.md")

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s" % name)
        if detail:
            print("       ! " + str(detail)[:1500])


def run(port, sql, user="postgres"):
    return psql(sql, "postgres", "-At", "-h", DIR, "-p", str(port), "-U", user)


def value(port, sql, user="postgres"):
    r = run(port, sql, user)
    if r.returncode != 0:
        raise RuntimeError("port %d: %s" % (port, r.stderr.strip()))
    return r.stdout.strip()


def error(port, sql, user="postgres"):
    """(SQLSTATE, message) of a statement that fails, or ('ok', '')."""
    r = psql("\\set VERBOSITY verbose\n" + sql, "postgres", "-At", "-h", DIR,
             "-p", str(port), "-U", user)
    m = re.search(r"ERROR:\s+([0-9A-Z]{5}): (.*)", r.stderr)
    return (m.group(1), m.group(2)) if m else ("ok", r.stderr.strip())


def page():
    """The page's blocks, each run where it says, its rows checked."""
    found = blocks(DOC)
    check("doc/scale-out.md has SQL blocks for the shards and the coordinator",
          any(b.startswith("-- on each shard") for _, b in found) and
          any(b.startswith("-- on the coordinator") for _, b in found))
    for line, sql in found:
        where = sql.splitlines()[0]
        ports = SHARDS if where == "-- on each shard" else \
            [COORDINATOR] if where == "-- on the coordinator" else []
        if not ports:
            check("doc/scale-out.md line %d says where it runs" % line, False, where)
            continue
        want = [m[4:] for m in sql.splitlines() if m.startswith("--  ")]
        for port in ports:
            r = run(port, sql)
            rows = [x for x in r.stdout.splitlines() if x != ""]
            problems = []
            if r.returncode != 0:
                problems.append("psql failed: %s" % r.stderr.strip()[-800:])
            if rows != want:
                problems.append("rows %r, the page shows %r" % (rows, want))
            check("doc/scale-out.md line %d on port %d" % (line, port), not problems,
                  "; ".join(problems))


def dollar_bodies(sql):
    return re.findall(r"\$\$\n(.*?)\$\$", sql, re.S)


def answer():
    """The fan-out's answer against one node's over the same rows."""
    counts = [int(value(p, "SELECT count(*) FROM sales")) for p in SHARDS]
    ids = sum(int(value(p, "SELECT coalesce(sum(id), 0) FROM sales")) for p in SHARDS)
    check("each shard holds part of the rows, each row once (%s)" % counts,
          all(c > 0 for c in counts) and sum(counts) == 30000 and ids == 30000 * 30001 // 2)

    fanout = [b for _, b in blocks(DOC) if "sandbox_fanout(\n" in b]
    check("the page has a sandbox_fanout example", len(fanout) == 1)
    if len(fanout) != 1:
        return
    partial, combine = dollar_bodies(fanout[0])[:2]
    got = json.loads(value(COORDINATOR, """
SET ROLE analyst;
SELECT sandbox_fanout(%s, %s, '{"df": {"$table": "sales"}}');
""" % (literal(partial), literal(combine))))

    # one node: all rows in one table on the coordinator, the same two steps
    value(COORDINATOR, """
DROP TABLE IF EXISTS sales_all;
CREATE TABLE sales_all AS
SELECT i AS id, (ARRAY['north', 'south', 'east', 'west'])[1 + i % 11 % 4] AS region, ((i * i + 3 * i) % 1000)::bigint AS amount
FROM generate_series(1, 30000) i;
""")
    one = json.loads(value(COORDINATOR, """
SELECT sandbox_execute(%s, jsonb_build_object('parts', jsonb_build_array(
    sandbox_execute(%s, '{"df": {"$table": "sales_all"}}') -> 'main')));
""" % (literal(combine), literal(partial))))
    check("the fan-out equals one call over all rows on one node", got == one,
          "fan-out %r, one node %r" % (got, one))

    sql = json.loads(value(COORDINATOR, """
SELECT jsonb_object_agg(region, jsonb_build_object('n', n, 'total', total, 'mean', mean, 'std', std))
FROM (SELECT region, count(*) AS n, sum(amount) AS total, round(avg(amount), 3) AS mean,
             round(stddev_samp(amount), 3) AS std
      FROM sales_all GROUP BY region) s;
"""))
    main = got.get("main", {})
    same = set(main) == set(sql) and all(
        main[r]["n"] == sql[r]["n"] and main[r]["total"] == sql[r]["total"] and
        abs(main[r]["mean"] - float(sql[r]["mean"])) < 0.0015 and
        abs(main[r]["std"] - float(sql[r]["std"])) < 0.0015 for r in sql)
    check("the fan-out equals SQL's count, sum, avg and stddev_samp by region", same,
          "fan-out %r, SQL %r" % (main, sql))


def literal(text):
    return "$code$" + text + "$code$"


def privileges():
    value(COORDINATOR, """
CREATE ROLE outsider LOGIN;
GRANT USAGE ON FOREIGN SERVER pysandbox_shards TO outsider;
GRANT EXECUTE ON FUNCTION sandbox_execute_on_shards(text, jsonb, text[], jsonb) TO outsider;
""")
    for p in SHARDS:
        value(p, """
CREATE ROLE outsider LOGIN;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO outsider;
""")
    state, message = error(COORDINATOR, """
SET ROLE outsider;
SELECT * FROM sandbox_execute_on_shards('def main(df): return len(df)', '{"df": {"$table": "sales"}}');
""")
    check("a role that may not read the shards' table gets 42501 through the fan-out",
          state == "42501" and "permission denied for table sales" in message,
          (state, message))
    n = value(COORDINATOR, """
SET ROLE analyst;
SELECT count(*) FROM sandbox_execute_on_shards('def main(df): return len(df)', '{"df": {"$table": "sales"}}');
""")
    check("the analyst reads every shard", n == "3", n)


def failures():
    state, message = error(COORDINATOR, """
SET ROLE analyst;
SELECT * FROM sandbox_execute_on_shards($$
def main():
    raise ValueError("no such region")
$$);
""")
    check("a shard's exception fails the fan-out with its message (%s)" % state,
          state == "38000" and "ValueError: no such region" in message, (state, message))


def parallel():
    # the first fan-out of a session connects and starts the shards'
    # workers; the second is timed, inside the coordinator
    r = value(COORDINATOR, """
SET ROLE analyst;
SELECT count(*) FROM sandbox_execute_on_shards('def main(): return 1');
CREATE TEMP TABLE started AS SELECT clock_timestamp() AS t;
SELECT count(*) || ' ' || round(extract(epoch FROM clock_timestamp() - (SELECT t FROM started)), 1)
FROM sandbox_execute_on_shards('def main(x): return len(x)', '{"x": {"$query": "SELECT pg_sleep(3)"}}');
""")
    first, n, took = r.split()
    check("the shards run at once: three calls with a 3-second input in %s s" % took,
          first == "3" and n == "3" and float(took) < 6, r)


def cancel():
    start = time.monotonic()
    state, message = error(COORDINATOR, """
SET ROLE analyst;
SET statement_timeout = '2s';
SELECT * FROM sandbox_execute_on_shards($$
def main():
    while True:
        pass
$$, options => '{"timeout_ms": 10000, "cpu_ms": 10000}');
""")
    took = time.monotonic() - start
    check("statement_timeout on the coordinator ends the fan-out (%.1f s)" % took,
          state == "57014" and took < 6, (state, message))
    # well before the shards' own 10 s limit would end the calls
    left = None
    for _ in range(30):
        left = [value(p, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%sandbox_execute%' "
                         "AND state = 'active' AND pid <> pg_backend_pid()") for p in SHARDS]
        if left == ["0"] * 3:
            break
        time.sleep(0.1)
    check("no shard still runs the cancelled call", left == ["0"] * 3, left)


def main():
    if subprocess.run(["sh", os.path.join(HERE, "clusters.sh"), "start"]).returncode != 0:
        print("plproxy: could not start the clusters")
        return 1
    try:
        page()
        answer()
        privileges()
        failures()
        parallel()
        cancel()
    except RuntimeError as e:
        check("a setup statement", False, e)
    finally:
        subprocess.run(["sh", os.path.join(HERE, "clusters.sh"), "stop"])
    print("plproxy: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
