#!/usr/bin/python3
"""test/bench/groups_cpu.py - where the CPU of workload 13's calls goes.

Runs the calls of workload 13 (test/bench/bench.py --workloads 13) on the
cluster of the PG* environment variables and prints, per call, its elapsed
time, the backend's CPU (/proc/<pid>/stat), the children's CPU
(pysandbox_stat.total_cpu_ms; reset first, so run it as a superuser on a
cluster nobody else uses) and how many cores the machine kept busy
(/proc/stat).  Makes bench_groups (4M rows) if it is missing.

    /usr/bin/python3 test/bench/groups_cpu.py [--reps 3]
"""
import argparse
import os
import time

import psycopg2

import bench  # noqa: E402  (test/bench/bench.py: the workload's code)

TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")
LEN_CODE = "def main(df):\n    return len(df)\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    c = psycopg2.connect("")
    c.autocommit = True
    cur = c.cursor()
    cur.execute("SELECT to_regclass('bench_groups') IS NULL")
    if cur.fetchone()[0]:
        cur.execute("""CREATE TABLE bench_groups AS
            SELECT (i % 100)::int AS g, i::int AS x,
                   ((i::int8 * 2654435761) % 1000003)::float8 / 1000003 AS f
            FROM generate_series(1, 4000000) i""")
        cur.execute("VACUUM ANALYZE bench_groups")
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]

    def backend_ms():
        f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) * TICK_MS

    def children_ms():
        cur.execute("SELECT coalesce(sum(total_cpu_ms), 0) FROM pysandbox_stat")
        return cur.fetchone()[0]

    def machine_ms():
        v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
        return sum(v) * TICK_MS, (v[3] + v[4]) * TICK_MS

    cases = [("one child, len(df)", LEN_CODE, "{}"),
             ("one child, groupby loop", bench.GROUP_ONE_CODE, "{}"),
             ("group_by", bench.GROUP_BY_CODE, '{"group_by": "g"}'),
             ("group_by, parallel 2", bench.GROUP_BY_CODE, '{"group_by": "g", "parallel": 2}')]
    cur.execute("SELECT pysandbox_stat_reset()")
    for _ in range(args.reps):
        for name, code, options in cases:
            b0, c0 = backend_ms(), children_ms()
            t0, idle0 = machine_ms()
            start = time.perf_counter()
            cur.execute("SELECT sandbox_execute(%s, '{\"df\": {\"$table\": \"bench_groups\"}}',"
                        " '{main}', %s::jsonb)", (code, options))
            cur.fetchone()
            elapsed = (time.perf_counter() - start) * 1000
            t1, idle1 = machine_ms()
            b1, c1 = backend_ms(), children_ms()
            busy = (t1 - t0) - (idle1 - idle0)
            print("%-24s elapsed %6.0f ms  backend CPU %5.0f  children's CPU %5.0f  "
                  "cores busy %.2f" % (name, elapsed, b1 - b0, c1 - c0, busy / elapsed))


if __name__ == "__main__":
    main()
