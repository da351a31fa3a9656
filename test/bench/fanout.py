#!/usr/bin/python3
"""Benchmark: the same analysis fanned out over three PL/Proxy shards vs one
node over the same rows (issue 19's numbers).

    /usr/bin/python3 test/bench/fanout.py [--rows 3000000] [--reps 5]

Starts a coordinator and three shards with pysandbox preloaded
(test/plproxy/clusters.sh), sets them up with doc/scale-out.md's SQL
(test/plproxy/fanout.py's runner, which checks it too), loads --rows rows
through the coordinator's sales_load (each row to the shard its id hashes
to) and the same rows into one table on the coordinator, then times, round
robin in one coordinator session (PL/Proxy keeps its shard connections),
medians of --reps after one untimed round:

  one node    sandbox_execute over all rows on the coordinator (partial,
              then combine, in one call each: the same two steps)
  fan-out     sandbox_fanout: partial on the three shards at once, then
              combine on the coordinator
  native SQL  GROUP BY on the coordinator's table, for scale

The answers must be equal.  Prints a table with ratios to one node.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "plproxy"))
import fanout  # noqa: E402

LIMITS = "SET pysandbox.timeout = '120s'; SET pysandbox.cpu_limit = '120s'; " \
         "SET pysandbox.memory_limit = '4GB';\n"


_conn = None


def timed(sql):
    """(ms, the answer as text) on one coordinator session: PL/Proxy keeps
    its shard connections, as an application's pool would."""
    global _conn
    if _conn is None:
        _conn = psycopg2.connect(host=fanout.DIR, port=fanout.COORDINATOR, user="postgres",
                                 dbname="postgres")
        _conn.autocommit = True
        _conn.cursor().execute(LIMITS)
    cur = _conn.cursor()
    start = time.perf_counter()
    cur.execute(sql)
    row = cur.fetchone()[0]
    ms = (time.perf_counter() - start) * 1000
    return ms, row if isinstance(row, str) else json.dumps(row)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=3000000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    os.environ["PYSANDBOX_PRELOAD"] = "1"
    if subprocess.run(["sh", os.path.join(HERE, "..", "plproxy", "clusters.sh"), "start"]).returncode:
        print("fanout bench: could not start the clusters")
        return 1
    try:
        fanout.page()
        if fanout.failed:
            print("fanout bench: doc/scale-out.md's SQL failed")
            return 1
        n = args.rows
        for p in fanout.SHARDS:
            fanout.value(p, "TRUNCATE sales")
        fanout.value(fanout.COORDINATOR, """
SELECT sum(n) FROM sales_load(
    ARRAY(SELECT i FROM generate_series(1, %d) i),
    ARRAY(SELECT (ARRAY['north', 'south', 'east', 'west'])[1 + i %% 11 %% 4] FROM generate_series(1, %d) i),
    ARRAY(SELECT (i::int8 * i + 3 * i) %% 1000 FROM generate_series(1, %d) i)) n;
DROP TABLE IF EXISTS sales_all;
CREATE TABLE sales_all AS
SELECT i AS id, (ARRAY['north', 'south', 'east', 'west'])[1 + i %% 11 %% 4] AS region,
       ((i::int8 * i + 3 * i) %% 1000)::bigint AS amount
FROM generate_series(1, %d) i;
VACUUM ANALYZE sales_all;
""" % (n, n, n, n))
        for p in fanout.SHARDS:
            fanout.value(p, "VACUUM ANALYZE sales")
        block = [b for _, b in fanout.blocks(fanout.DOC) if "sandbox_fanout(\n" in b][0]
        partial, combine = fanout.dollar_bodies(block)[:2]
        lit = fanout.literal
        contenders = [
            ("one node", "SELECT sandbox_execute(%s, jsonb_build_object('parts', jsonb_build_array("
                         "sandbox_execute(%s, '{\"df\": {\"$table\": \"sales_all\"}}') -> 'main')));"
             % (lit(combine), lit(partial))),
            ("fan-out, 3 shards", "SELECT sandbox_fanout(%s, %s, '{\"df\": {\"$table\": \"sales\"}}');"
             % (lit(partial), lit(combine))),
            ("native SQL", "SELECT jsonb_object_agg(region, jsonb_build_object('n', n, 'total', t)) "
                           "FROM (SELECT region, count(*) AS n, sum(amount) AS t FROM sales_all "
                           "GROUP BY region) s;"),
        ]
        times = {name: [] for name, _ in contenders}
        answers = {}
        for name, sql in contenders:        # once untimed
            answers[name] = json.loads(timed(sql)[1])
        for _ in range(args.reps):
            for name, sql in contenders:
                times[name].append(timed(sql)[0])
        same = answers["one node"] == answers["fan-out, 3 shards"]
        base = statistics.median(times["one node"])
        _conn.close()
        print("\n%d rows, %d reps, %d cores; medians (client wall clock, one session)"
              % (n, args.reps, os.cpu_count() or 0))
        for name, _ in contenders:
            m = statistics.median(times[name])
            print("  %-20s %9.0f ms  %6.2fx" % (name, m, m / base))
        print("fan-out answer equals one node's: %s" % same)
        return 0 if same else 1
    finally:
        subprocess.run(["sh", os.path.join(HERE, "..", "plproxy", "clusters.sh"), "stop"])


if __name__ == "__main__":
    sys.exit(main())
