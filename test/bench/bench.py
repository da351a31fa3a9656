#!/usr/bin/python3
"""pysandbox benchmark: the workloads of doc/performance.md, side by side in one run.

Run with Debian's interpreter (it has pandas, numpy and psycopg2), as root
(workload 5 reads /proc/<backend pid>/status of the postgres user's
processes), against a running cluster where `make install` has put the
extension:

    /usr/bin/python3 test/bench/bench.py [--reps 7] [--workloads 1,2,3,4,5]

`sh test/bench/run.sh` does all of that on a throwaway cluster.  Connection
settings come from libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE);
the user must be a superuser (limits are superuser-settable, plpython3u is
untrusted).

Contenders, each on its own connection so that PL/Python's in-backend
interpreter never shares a backend with pysandbox:

  pysandbox    sandbox_execute / sandbox_rows
  PL/Python    plpython3u functions: plpy.execute + pandas.DataFrame, and a
               set-returning function for rows out
  client       psycopg2 + pandas.read_sql into this process, then the same
               pandas code here
  fresh proc   a new /usr/bin/python3 that imports pandas, per call (what a
               subprocess sandbox does)
  native SQL   the closest plain SQL, for scale

Workloads:
  1. trivial call `def main(): return 1` (p50/p99), plus pysandbox's first
     call in a brand-new connection
  2. 1M rows x (int, int, float8, text) -> DataFrame -> groupby-sum -> jsonb
  3. a 1M-row DataFrame built in Python -> rows in PostgreSQL (sandbox_rows)
  4. 100k rows x 20 mixed-type columns with NULLs -> DataFrame -> describe-like
     aggregate -> JSON
  5. backend peak memory (VmHWM) while pysandbox moves workload 2's rows in,
     against the columnar size of the input
  6. throughput of trivial calls at 1, 2 and 8 concurrent clients (pgbench
     -T for pysandbox and PL/Python, parallel subprocess loops for a fresh
     process per call) against the floor: test/bench/sb-floor forking a
     pandas-loaded interpreter, applying the same containment and exiting,
     one loop per core
  7. what pysandbox.preload_modules costs: for none, scipy, and (when
     installed) sklearn and statsmodels, the cluster is restarted with that
     setting and the fork server's worker memory and mappings, the time to
     its first answer, a paced warm call, pgbench at 8 clients and the floor
     importing the same modules are measured, sets interleaved (--preload-rounds);
     the modules live in the worker's preloaded process (its memory is
     measured too), and pgbench at 8 clients of a trivial call whose code
     names the set's package (so it forks from that process) is measured

  8. a trivial function called per row, SELECT sum(f(i)) FROM
     generate_series(1, --lang-rows): a LANGUAGE pysandbox function, the same
     plpython3u function and native SQL; sandbox_execute per row over
     --execute-rows rows (a fork a row), compared per row
  9. --rows rows out of a set-returning LANGUAGE pysandbox function (the
     DataFrame of workload 3) against the same code through sandbox_rows
 10. --rows rows in through sql() (as an ordinary role: sql() refuses
     superusers) against the same rows as a $query input, then groupby-sum
 11. a workspace holding --rows rows: a second call against the first
 12. a chart of 1,000 points as a PNG against the same data as JSON
 13. --group-rows rows in 100 groups (not run by default): options.group_by
     (a child per group) against one child grouping in pandas, and SQL

Repetitions of a workload are interleaved across contenders (round robin)
so that drift in the machine hits all of them alike; each contender is run
once untimed first.  Times are client-side wall clock (time.perf_counter)
around execute + fetch, in milliseconds.  The script reports; it asserts no
bar.  It exits non-zero only if a contender failed unexpectedly or returned
a result that differs from pysandbox's.
"""

import argparse
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import psycopg2
import psycopg2.errors
import psycopg2.extras

PYTHON = "/usr/bin/python3"

SANDBOX_SETTINGS = [
    ("pysandbox.timeout", "60s"),
    ("pysandbox.cpu_limit", "60s"),
    ("pysandbox.memory_limit", "4GB"),
    ("pysandbox.max_output_bytes", "256MB"),
]
SANDBOX_OPTIONS = {"timeout_ms": 60000, "cpu_ms": 60000, "memory_mb": 4096}

# --------------------------------------------------------------------------
# the user code, shared verbatim by every contender

TRIVIAL_CODE = "def main():\n    return 1\n"

GROUPBY_CODE = """\
def main(df):
    return df.groupby('g')['f'].sum()
"""

ROWS_OUT_CODE = """\
import numpy as np
import pandas as pd

N = {rows}


def main():
    a = np.arange(N, dtype=np.int64)
    d = np.array(['s%d' % i for i in range(1000)], dtype=object)[a % 1000]
    return pd.DataFrame({{'a': a, 'b': a % 7,
                         'c': np.random.default_rng(1).random(N), 'd': d}})
"""

WIDE_NUM = ["i2", "i4", "i8", "i4n", "i8n", "f4", "f8", "f8n", "n1", "n2"]
WIDE_BOOL = ["b", "bn"]
WIDE_TEXT = ["t1", "t2", "v"]
WIDE_TIME = ["d", "dn", "ts"]
WIDE_TZ = ["tsz", "tszn"]

# The first block normalises dtypes: a no-op for pysandbox (its DataFrame
# already has them), the conversion PL/Python (str dates, Decimal, None) and
# read_sql (Decimal, date objects) need to reach the same DataFrame.
WIDE_CODE = """\
import pandas as pd

NUM = {num!r}
BOOL = {bool!r}
TEXT = {text!r}
TIME = {time!r}
TZ = {tz!r}


def main(df):
    for c in NUM:
        df[c] = pd.to_numeric(df[c]).astype('float64')
    for c in BOOL:
        df[c] = df[c].astype('boolean')
    for c in TIME:
        df[c] = pd.to_datetime(df[c])
    for c in TZ:
        df[c] = pd.to_datetime(df[c], utc=True)
    return {{
        'rows': len(df),
        'count': {{c: int(n) for c, n in df.count().items()}},
        'numeric': df[NUM].describe().to_dict(),
        'time': {{c: [df[c].min().isoformat(), df[c].max().isoformat()]
                 for c in TIME + TZ}},
        'true': {{c: int(df[c].sum()) for c in BOOL}},
        'distinct': {{c: int(df[c].nunique()) for c in TEXT}},
        'avg_len': {{c: float(df[c].str.len().mean()) for c in TEXT}},
    }}
""".format(num=WIDE_NUM, bool=WIDE_BOOL, text=WIDE_TEXT, time=WIDE_TIME,
           tz=WIDE_TZ)

# What the caller of PL/Python or of the client has to do to get the JSON
# pysandbox's serializer produces (Series -> object keyed by index, numpy
# scalars -> numbers, NaN -> null).
JSONABLE_CODE = """\
def _jsonable(o):
    if isinstance(o, pd.Series):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, pd.DataFrame):
        return [_jsonable(r) for r in o.to_dict('records')]
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, np.generic):
        o = o.item()
    if isinstance(o, float) and (o != o or o in (float('inf'), float('-inf'))):
        return None
    return o
"""

FRESH_SCRIPT = "import pandas\n" + TRIVIAL_CODE + "print(main())\n"


class ContenderError(Exception):
    pass


class ContenderNA(Exception):
    """An expected absence, shown as n/a (e.g. sandbox_rows not installed)."""


# the contender each workload's ratios are taken against
BASES = ("pysandbox", "pysandbox (warm)")


# --------------------------------------------------------------------------
# connections

def connect(appname):
    conn = psycopg2.connect("", connect_timeout=10, application_name=appname)
    conn.autocommit = True
    return conn


def one(conn, sql, params=None):
    with conn.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone()[0]


def run(conn, sql, params=None):
    with conn.cursor() as cur:
        cur.execute(sql, params)


def sandbox_session(conn, state):
    """Raise this session's limits so 1M-row calls fit; decide the options."""
    if state.get("options") is not None:
        if state["settings_ok"]:
            with conn.cursor() as cur:
                for name, value in SANDBOX_SETTINGS:
                    cur.execute("SELECT set_config(%s, %s, false)", (name, value))
        return
    try:
        with conn.cursor() as cur:
            for name, value in SANDBOX_SETTINGS:
                cur.execute("SELECT set_config(%s, %s, false)", (name, value))
        state["settings_ok"] = True
        state["options"] = json.dumps(SANDBOX_OPTIONS)
    except psycopg2.Error as e:
        print("warning: could not raise pysandbox limits (%s); running with "
              "the server's limits and no options" % str(e).strip(),
              file=sys.stderr)
        state["settings_ok"] = False
        state["options"] = "{}"


# --------------------------------------------------------------------------
# machine, versions, data

def machine_info(conn, plconn):
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.1f GB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    pl = one(plconn, "SELECT bench_pl_versions()")
    lines = [
        "machine:    nproc %d, %s, %s RAM, kernel %s" % (
            len(os.sched_getaffinity(0)), model, mem, platform.release()),
        "postgres:   %s" % one(conn, "SELECT version()"),
        "pysandbox:  %s" % one(conn, "SELECT extversion FROM pg_extension "
                                     "WHERE extname = 'pysandbox'"),
        "PL/Python:  %s" % pl,
        "client:     Python %s, pandas %s, numpy %s, psycopg2 %s" % (
            platform.python_version(), pd.__version__, np.__version__,
            psycopg2.__version__.split()[0]),
    ]
    return lines


def ensure_table(conn, name, rows, create_sql):
    exists = one(conn, "SELECT to_regclass(%s) IS NOT NULL", (name,))
    if exists and one(conn, "SELECT count(*) FROM %s" % name) == rows:
        print("table %s: present, %d rows" % (name, rows))
    else:
        t = time.perf_counter()
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS %s" % name)
            cur.execute(create_sql)
        print("table %s: created, %d rows (%.1f s)" % (
            name, rows, time.perf_counter() - t))
    with conn.cursor() as cur:
        cur.execute("VACUUM (FREEZE, ANALYZE) %s" % name)


def setup_data(conn, rows, wide_rows):
    # deterministic content, so every run and every contender sees the same
    ensure_table(conn, "bench_rows", rows, """
        CREATE TABLE bench_rows AS
        SELECT (i %% 100)::int AS g, i::int AS x,
               ((i::int8 * 2654435761) %% 1000003)::float8 / 1000003 AS f,
               'row ' || (i %% 1000) AS s
        FROM generate_series(1, %d) i""" % rows)
    ensure_table(conn, "bench_wide", wide_rows, """
        CREATE TABLE bench_wide AS
        SELECT (i %% 30000)::int2 AS i2, i::int4 AS i4,
          i::int8 * 1000003 AS i8,
          CASE WHEN i %% 10 = 0 THEN NULL ELSE i %% 1000 END AS i4n,
          CASE WHEN i %% 7 = 0 THEN NULL ELSE i::int8 * 31 END AS i8n,
          ((i %% 1000)::float4 / 7)::float4 AS f4,
          ((i::int8 * 2654435761) %% 1000003)::float8 / 1000003 AS f8,
          CASE WHEN i %% 5 = 0 THEN NULL
               ELSE ((i::int8 * 40503) %% 100003)::float8 / 100 END AS f8n,
          round((i %% 100000)::numeric / 100, 2)::numeric(12,2) AS n1,
          CASE WHEN i %% 9 = 0 THEN NULL ELSE (i %% 777)::numeric / 3 END AS n2,
          i %% 2 = 0 AS b,
          CASE WHEN i %% 11 = 0 THEN NULL ELSE i %% 3 = 0 END AS bn,
          'text ' || (i %% 5000) AS t1,
          CASE WHEN i %% 4 = 0 THEN NULL ELSE md5(i::text) END AS t2,
          ('v' || (i %% 97))::varchar(20) AS v,
          date '2000-01-01' + (i %% 9000) AS d,
          CASE WHEN i %% 13 = 0 THEN NULL
               ELSE date '2020-01-01' + (i %% 1000) END AS dn,
          timestamp '2010-01-01' + i * interval '17 seconds' AS ts,
          timestamptz '2015-06-01 00:00+00' + i * interval '61 seconds' AS tsz,
          CASE WHEN i %% 3 = 0 THEN NULL
               ELSE timestamptz '2021-01-01 00:00+00' + i * interval '1 minute'
          END AS tszn
        FROM generate_series(1, %d) i""" % wide_rows)


def plpython_body(code, tail):
    """A plpython3u body: the user code, the harness, then `tail`."""
    return ("import json\nimport numpy as np\nimport pandas as pd\n"
            + code + "\n" + JSONABLE_CODE + "\n" + tail)


def setup_plpython(conn, rows):
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS plpython3u")
        cur.execute("""
            CREATE OR REPLACE FUNCTION bench_pl_versions() RETURNS text
            LANGUAGE plpython3u AS $$
import sys, pandas, numpy
return 'Python %s, pandas %s, numpy %s' % (
    sys.version.split()[0], pandas.__version__, numpy.__version__)
$$""")
        cur.execute("""
            CREATE OR REPLACE FUNCTION bench_pl_trivial() RETURNS int
            LANGUAGE plpython3u AS $pl$%s$pl$""" % (TRIVIAL_CODE + "return main()\n"))
        cur.execute("""
            CREATE OR REPLACE FUNCTION bench_pl_groupby() RETURNS jsonb
            LANGUAGE plpython3u AS $pl$%s$pl$""" % plpython_body(
            GROUPBY_CODE,
            "rv = plpy.execute('SELECT * FROM bench_rows')\n"
            "df = pd.DataFrame(list(rv))\n"
            "return json.dumps({'main': _jsonable(main(df))})\n"))
        cur.execute("""
            CREATE OR REPLACE FUNCTION bench_pl_rows_out()
            RETURNS TABLE(a int8, b int8, c float8, d text)
            LANGUAGE plpython3u AS $pl$%s$pl$""" % plpython_body(
            ROWS_OUT_CODE.format(rows=rows),
            # the fastest way we found to hand PL/Python a DataFrame's rows
            # (itertuples: ~1.5x slower, to_dict('records'): ~1.7x slower)
            "df = main()\n"
            "return list(zip(*(df[c].tolist() for c in df.columns)))\n"))
        cur.execute("""
            CREATE OR REPLACE FUNCTION bench_pl_wide() RETURNS jsonb
            LANGUAGE plpython3u AS $pl$%s$pl$""" % plpython_body(
            WIDE_CODE,
            "rv = plpy.execute('SELECT * FROM bench_wide')\n"
            "df = pd.DataFrame(list(rv))\n"
            "return json.dumps({'main': _jsonable(main(df))})\n"))


def native_wide_sql():
    """Roughly what WIDE_CODE computes, in one SQL pass."""
    cols = WIDE_NUM + WIDE_BOOL + WIDE_TEXT + WIDE_TIME + WIDE_TZ
    parts = ["count(*)"]
    parts += ["count(%s)" % c for c in cols]
    for c in WIDE_NUM:
        parts += ["avg(%s)" % c, "stddev(%s)" % c, "min(%s)" % c, "max(%s)" % c,
                  "percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP "
                  "(ORDER BY %s)" % c]
    for c in WIDE_TIME + WIDE_TZ:
        parts += ["min(%s)" % c, "max(%s)" % c]
    for c in WIDE_BOOL:
        parts += ["count(*) FILTER (WHERE %s)" % c]
    for c in WIDE_TEXT:
        parts += ["count(DISTINCT %s)" % c, "avg(length(%s))" % c]
    return "SELECT to_jsonb(t) FROM (SELECT %s FROM bench_wide) t" % ", ".join(parts)


# --------------------------------------------------------------------------
# timing

def pct(samples, q):
    return float(np.percentile(np.asarray(samples, dtype=float), q))


class Result:
    def __init__(self, workload, contender, note=""):
        self.workload = workload
        self.contender = contender
        self.note = note
        self.times = []
        self.value = None
        self.error = None          # unexpected failure
        self.na = None             # expected absence (sandbox_rows missing)

    @property
    def median(self):
        return statistics.median(self.times) if self.times else None


def run_round_robin(workload, contenders, reps):
    """contenders: [(name, fn, note)]; fn() returns the result value.

    Each is warmed once, then the reps are interleaved, in an order shuffled
    for each round (seeded: the same in every run).  In a fixed order one
    contender always came right after the client's, and on a virtual
    machine that hands freed memory back to its host (free page reporting)
    the first call after the client's DataFrame is freed faults its pages
    in from the host: workload 2's $table child took 200 ms of CPU there
    against 70 elsewhere, its median doubled, and $query, next, was not
    touched (doc/performance.md).  A contender that raises ContenderNA is
    shown as n/a; any other exception is an error."""
    results = []
    live = []
    for name, fn, note in contenders:
        r = Result(workload, name, note)
        results.append(r)
        try:
            r.value = fn()
            live.append((r, fn))
        except ContenderNA as e:
            r.na = str(e)
        except Exception as e:     # noqa: BLE001 - reported, exit status set
            r.error = "%s: %s" % (type(e).__name__, str(e).strip())
    for rep in range(reps):
        order = list(live)
        random.Random(1000 + rep).shuffle(order)
        for r, fn in order:
            if r.error:
                continue
            t = time.perf_counter()
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                r.error = "%s: %s" % (type(e).__name__, str(e).strip())
                continue
            r.times.append((time.perf_counter() - t) * 1000)
    return results


def progress(msg):
    print(msg, flush=True)


# --------------------------------------------------------------------------
# workloads

def w1_trivial(ctx, args):
    progress("== 1. trivial call")
    sb, pl, nat = ctx["sb"], ctx["pl"], ctx["native"]
    out = []

    def series(name, fn, n, note=""):
        r = Result("1 trivial", name, note)
        try:
            r.value = fn()
            for _ in range(n):
                t = time.perf_counter()
                fn()
                r.times.append((time.perf_counter() - t) * 1000)
        except Exception as e:  # noqa: BLE001
            r.error = "%s: %s" % (type(e).__name__, str(e).strip())
        out.append(r)
        return r

    def sb_call():
        v = one(sb, "SELECT sandbox_execute(%s)", (TRIVIAL_CODE,))
        if v != {"main": 1}:
            raise ContenderError("unexpected result %r" % (v,))
        return v

    def pl_call():
        return one(pl, "SELECT bench_pl_trivial()")

    def fresh_call():
        p = subprocess.run([PYTHON, "-c", FRESH_SCRIPT], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
        if p.returncode != 0 or p.stdout.strip() != b"1":
            raise ContenderError("fresh python failed: %r" % p.stderr[-300:])
        return 1

    series("pysandbox (warm)", sb_call, args.trivial_calls,
           "%d calls back to back" % args.trivial_calls)

    # an interactive caller (an agent, a person) pauses between calls; the
    # worker then has a spare forked and warm when the call arrives
    def paced():
        time.sleep(args.pace_ms / 1000.0)
        t = time.perf_counter()
        sb_call()
        return (time.perf_counter() - t) * 1000
    r = Result("1 trivial", "pysandbox (warm, paced)",
               "%d calls, %d ms apart" % (args.paced_calls, args.pace_ms))
    try:
        sb_call()
        r.times = [paced() for _ in range(args.paced_calls)]
        r.value = 1
    except Exception as e:  # noqa: BLE001
        r.error = "%s: %s" % (type(e).__name__, str(e).strip())
    out.append(r)

    # the same, with code the session has not run before (a comment makes
    # each call's code new): the child runs the validator, which it skips
    # for code this session already ran to a result
    def paced_new(i):
        code = TRIVIAL_CODE + "# call %d\n" % i
        time.sleep(args.pace_ms / 1000.0)
        t = time.perf_counter()
        v = one(sb, "SELECT sandbox_execute(%s)", (code,))
        ms = (time.perf_counter() - t) * 1000
        if v != {"main": 1}:
            raise ContenderError("unexpected result %r" % (v,))
        return ms
    r = Result("1 trivial", "pysandbox (paced, new code)",
               "%d calls, %d ms apart, each code new" % (args.paced_calls, args.pace_ms))
    try:
        r.times = [paced_new(i) for i in range(args.paced_calls)]
        r.value = 1
    except Exception as e:  # noqa: BLE001
        r.error = "%s: %s" % (type(e).__name__, str(e).strip())
    out.append(r)

    # first call in a brand-new connection: starts the worker
    r = Result("1 trivial", "pysandbox (1st call, new conn)",
               "median of %d new connections, %d ms after connecting"
               % (args.new_conns, args.pace_ms))
    try:
        for _ in range(args.new_conns):
            c = connect("pysandbox-bench-new")
            try:
                one(c, "SELECT 1")
                time.sleep(args.pace_ms / 1000.0)
                t = time.perf_counter()
                one(c, "SELECT sandbox_execute(%s)", (TRIVIAL_CODE,))
                r.times.append((time.perf_counter() - t) * 1000)
            finally:
                c.close()
    except Exception as e:  # noqa: BLE001
        r.error = "%s: %s" % (type(e).__name__, str(e).strip())
    out.append(r)

    series("PL/Python", pl_call, args.trivial_calls,
           "%d calls after one" % args.trivial_calls)
    series("fresh python+pandas", fresh_call, args.fresh_calls,
           "%d subprocess.run calls" % args.fresh_calls)
    series("native SELECT 1", lambda: one(nat, "SELECT 1"), args.trivial_calls,
           "round-trip floor")
    return out


PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
FLOOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sb-floor")


def pgbench_tps(sql, clients, seconds):
    """tps of pgbench running sql with this many clients, or raise."""
    with open("/tmp/pysandbox-bench.sql", "w") as f:
        f.write(sql + "\n")
    p = subprocess.run([PGBENCH, "-n", "-c", str(clients), "-j", str(min(clients, 2)),
                        "-T", str(seconds), "-f", "/tmp/pysandbox-bench.sql"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    out = p.stdout.decode("utf-8", "replace")
    failed = [l for l in out.splitlines() if l.startswith("number of failed")]
    for line in out.splitlines():
        if line.startswith("tps = "):
            if p.returncode != 0 or (failed and not failed[0].split(":")[1].strip().startswith("0")):
                raise ContenderError("pgbench failed: %s" % out[-300:])
            return float(line.split()[2])
    raise ContenderError("pgbench printed no tps: %s" % out[-300:])


def fresh_tps(clients, seconds):
    """Calls per second of `clients` parallel loops of a fresh python+pandas."""
    import concurrent.futures

    def loop():
        n, until = 0, time.monotonic() + seconds
        while time.monotonic() < until:
            subprocess.run([PYTHON, "-c", FRESH_SCRIPT], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            n += 1
        return n
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as ex:
        total = sum(ex.map(lambda _: loop(), range(clients)))
    return total / (time.monotonic() - start)


def floor_rate(seconds, loops, preload=""):
    """Forks per second of the floor program (run as postgres); preload:
    modules it imports first, as pysandbox.preload_modules does."""
    if not os.path.exists(FLOOR):
        raise ContenderNA("build it first: make floor")
    p = subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c",
                        "cd /tmp && FLOOR_PRELOAD='%s' %s %s %d"
                        % (preload, FLOOR, seconds, loops)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0 or "forks/s" not in out:
        raise ContenderError("sb-floor failed: %s" % out[-300:])
    return float(out.split("=")[1].split()[0])


def w6_throughput(ctx, args):
    """Rows of (contender, clients, calls per second)."""
    progress("== 6. throughput at 1, 2 and 8 clients (%d s each)" % args.tput_seconds)
    T = args.tput_seconds
    rows = []
    sb_sql = "SELECT sandbox_execute('def main(): return 1');"
    pl_sql = "SELECT bench_pl_trivial();"

    def add(name, clients, fn):
        try:
            rows.append((name, clients, fn(), None))
        except (ContenderError, ContenderNA, subprocess.SubprocessError) as e:
            rows.append((name, clients, None, str(e)))
    for c in (1, 2, 8):
        add("pysandbox", c, lambda: pgbench_tps(sb_sql, c, T))
        add("PL/Python", c, lambda: pgbench_tps(pl_sql, c, T))
        add("fresh python+pandas", c, lambda: fresh_tps(c, T))
    cores = os.cpu_count() or 1
    add("floor (sb-floor)", 1, lambda: floor_rate(T, 1))
    add("floor (sb-floor)", cores, lambda: floor_rate(T, cores))
    return rows


def report_throughput(rows):
    print()
    print("6. throughput, trivial calls per second (higher is better)")
    print("  %-22s %8s %12s" % ("contender", "clients", "calls/s"))
    for name, clients, rate, err in rows:
        print("  %-22s %8d %12s" % (name, clients, "%.1f" % rate if rate else "ERROR " + (err or "")[:60]))
    floor = max((r for n, _c, r, _e in rows if n.startswith("floor") and r), default=None)
    sb8 = [r for n, c, r, _e in rows if n == "pysandbox" and c == 8 and r]
    if floor and sb8:
        print("  bar: pgbench at 8 clients >= 70%% of the floor: %.1f / %.1f = %.0f%% : %s"
              % (sb8[0], floor, 100 * sb8[0] / floor, "MET" if sb8[0] >= 0.7 * floor else "NOT MET"))


# what preloading costs (pysandbox.preload_modules): each set is measured
# on a restarted cluster, the sets interleaved, against none at all
PRELOAD_SETS = [
    ("none", ""),
    ("scipy", "scipy.stats, scipy.optimize, scipy.interpolate"),
    ("sklearn", "sklearn.linear_model, sklearn.cluster, sklearn.preprocessing"),
    ("statsmodels", "statsmodels.api"),
]


def _restart_with_preload(modules):
    """Set pysandbox.preload_modules (None: back to the configuration
    file's), restart the cluster, and return a new connection once the
    fork server answers (and the seconds that took)."""
    c = connect("pysandbox-bench-preload")
    if modules is None:
        run(c, "ALTER SYSTEM RESET pysandbox.preload_modules")
    else:
        run(c, "ALTER SYSTEM SET pysandbox.preload_modules = %s", (modules,))
    c.close()
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run(["sh", os.path.join(here, "..", "cluster.sh"), "restart"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    if p.returncode != 0:
        raise ContenderError("cluster restart failed: %s" % p.stdout[-300:])
    t = time.perf_counter()
    c = connect("pysandbox-bench-preload")
    if one(c, "SELECT sandbox_execute(%s)", (TRIVIAL_CODE,)) != {"main": 1}:
        raise ContenderError("no result after the restart")
    return c, time.perf_counter() - t


def _fork_server_worker(postmaster):
    """/proc facts of this cluster's fork server's worker process (a child
    of the fork server, itself a child of the postmaster)."""
    def status_of(pid):
        with open("/proc/%s/status" % pid) as f:
            return dict(l.split(":", 1) for l in f if ":" in l)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = status_of(pid)
            parent = status["PPid"].strip()
            with open("/proc/%s/cmdline" % parent, "rb") as f:
                parent_cmd = f.read()
            grandparent = int(status_of(parent)["PPid"])
        except (OSError, KeyError, ValueError):
            continue
        if (status["Name"].strip().startswith("pysandbox-worke") and b"fork server" in parent_cmd
                and grandparent == postmaster):
            with open("/proc/%s/maps" % pid) as f:
                maps = sum(1 for _ in f)
            return {"rss_mb": int(status["VmRSS"].split()[0]) / 1024,
                    "anon_mb": int(status["RssAnon"].split()[0]) / 1024, "maps": maps,
                    "preloaded_mb": _preloaded_process_mb(pid)}
    raise ContenderNA("no fork server worker (pysandbox is not in shared_preload_libraries)")


def _preloaded_process_mb(worker):
    """RSS of the worker's preloaded process (src/worker/sb_preloaded.c,
    named "pysandbox-prel"); 0 if none."""
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
            if (stat[stat.find("(") + 1:stat.rfind(")")] != "pysandbox-prel"
                    or int(stat.rsplit(")", 1)[1].split()[1]) != int(worker)):
                continue
            with open("/proc/%s/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return 0.0


def w7_preload(ctx, args):
    """Rows of (set, modules, round, facts) for each preload set."""
    progress("== 7. what pysandbox.preload_modules costs (%d rounds, cluster restarted per set)"
             % args.preload_rounds)
    # it restarts the cluster: only run.sh's throwaway one
    c = connect("pysandbox-bench-preload")
    data_dir = one(c, "SHOW data_directory")
    c.close()
    own = os.path.join(os.environ.get("PYSANDBOX_TEST_DIR", "/nonexistent"), "data")
    if os.environ.get("PYSANDBOX_BENCH_THROWAWAY") != "1" or \
            os.path.realpath(data_dir) != os.path.realpath(own):
        print("  skipped: it restarts the cluster, so it runs only on test/bench/run.sh's own")
        return []
    with open(os.path.join(data_dir, "postmaster.pid")) as f:
        postmaster = int(f.readline())
    try:
        _fork_server_worker(postmaster)
    except ContenderNA as e:
        print("  skipped: %s" % e)
        return []
    sets = []
    for name, modules in PRELOAD_SETS:
        try:
            if modules:
                __import__(modules.split(".")[0])
        except ImportError:
            print("  %s: not installed, skipped" % name)
            continue
        sets.append((name, modules))
    rows = []
    try:
        for rnd in range(args.preload_rounds):
            for name, modules in sets:
                facts = {}
                try:
                    c, facts["start_s"] = _restart_with_preload(modules)
                    with open(os.path.join(data_dir, "postmaster.pid")) as f:
                        postmaster = int(f.readline())
                    facts.update(_fork_server_worker(postmaster))
                    times = []
                    for _ in range(args.paced_calls):
                        time.sleep(args.pace_ms / 1000.0)
                        t = time.perf_counter()
                        one(c, "SELECT sandbox_execute(%s)", (TRIVIAL_CODE,))
                        times.append((time.perf_counter() - t) * 1000)
                    facts["paced_ms"] = statistics.median(times)
                    c.close()
                    facts["tps8"] = pgbench_tps("SELECT sandbox_execute('def main(): return 1');",
                                                8, args.tput_seconds)
                    # the same call, its code naming the package: a fork of
                    # the preloaded process (a comment is enough to route it)
                    facts["tps8_named"] = pgbench_tps(
                        "SELECT sandbox_execute(E'# %s\\ndef main(): return 1');"
                        % (modules.split(".")[0] if modules else "none"), 8, args.tput_seconds)
                    facts["floor"] = floor_rate(args.tput_seconds, os.cpu_count() or 1, modules)
                except (ContenderError, ContenderNA, psycopg2.Error) as e:
                    facts["error"] = str(e).strip()[:200]
                rows.append((name, modules, rnd, facts))
                progress("  %s round %d: %s" % (name, rnd + 1, facts))
    finally:
        try:
            _restart_with_preload(None)[0].close()
        except (ContenderError, psycopg2.Error) as e:
            rows.append(("restore", None, 0, {"error": "could not restore the setting: %s" % e}))
    return rows


def report_preload(rows):
    print()
    print("7. pysandbox.preload_modules: cost of each set against none (medians of rounds)")
    print("  %-12s %9s %9s %6s %9s %9s %9s %9s %9s %9s" % (
        "set", "worker MB", "anon MB", "maps", "preload MB", "start s", "paced ms", "8 cl/s",
        "named/s", "floor/s"))
    keys = ("rss_mb", "anon_mb", "maps", "preloaded_mb", "start_s", "paced_ms", "tps8",
            "tps8_named", "floor")
    med = {}
    if not rows:
        print("  (not measured)")
        return []
    for name in dict.fromkeys(r[0] for r in rows):
        got = [f for n, _m, _r, f in rows if n == name and "error" not in f]
        errs = [f["error"] for n, _m, _r, f in rows if n == name and "error" in f]
        if not got:
            print("  %-12s ERROR %s" % (name, errs[0] if errs else ""))
            continue
        med[name] = {k: statistics.median(f[k] for f in got) for k in keys}
        m = med[name]
        print("  %-12s %9.0f %9.0f %6d %10.0f %9.2f %9.2f %9.1f %9.1f %9.1f" % (
            name, m["rss_mb"], m["anon_mb"], m["maps"], m["preloaded_mb"], m["start_s"],
            m["paced_ms"], m["tps8"], m["tps8_named"], m["floor"]))
    base = med.get("none")
    for name, m in med.items():
        if name == "none" or base is None:
            continue
        print("  %-12s vs none: paced %.2fx, 8 clients %.0f%%, naming it %.0f%%, floor %.0f%%, "
              "worker +%.0f MB, preloaded process %.0f MB"
              % (name, m["paced_ms"] / base["paced_ms"], 100 * m["tps8"] / base["tps8"],
                 100 * m["tps8_named"] / base["tps8"], 100 * m["floor"] / base["floor"],
                 m["rss_mb"] - base["rss_mb"], m["preloaded_mb"]))
    if base and "scipy" in med:
        m = med["scipy"]
        ok = m["paced_ms"] <= 1.1 * base["paced_ms"] and m["tps8"] >= 0.9 * base["tps8"]
        print("  bar: scipy preloaded, warm call and 8-client throughput within 10%% : %s"
              % ("MET" if ok else "NOT MET"))
    return [e for _n, _m, _r, f in rows for e in [f.get("error")] if e]


def w2_groupby(ctx, args):
    progress("== 2. %d rows -> DataFrame -> groupby-sum -> jsonb" % args.rows)
    sb, pl, nat, cl = ctx["sb"], ctx["pl"], ctx["native"], ctx["client"]
    opts = ctx["sbstate"]["options"]
    client_ns = {"pd": pd, "np": np}
    exec(GROUPBY_CODE + "\n" + JSONABLE_CODE, client_ns)

    def sb_table():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (GROUPBY_CODE, '{"df": {"$table": "bench_rows"}}', opts))

    def sb_query():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (GROUPBY_CODE,
                    '{"df": {"$query": "SELECT g, x, f, s FROM bench_rows"}}',
                    opts))

    def sb_buffered():
        # the path before streamed inputs: the whole input scanned, then sent
        run(sb, "SET pysandbox.stream_threshold = -1")
        try:
            return sb_table()
        finally:
            run(sb, "RESET pysandbox.stream_threshold")

    def pl_call():
        return one(pl, "SELECT bench_pl_groupby()")

    def client_call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # read_sql wants SQLAlchemy
            df = pd.read_sql("SELECT * FROM bench_rows", cl)
        return json.loads(json.dumps(
            {"main": client_ns["_jsonable"](client_ns["main"](df))}))

    def native():
        return one(nat, "SELECT jsonb_build_object('main', jsonb_object_agg(g, s)) "
                        "FROM (SELECT g, sum(f) AS s FROM bench_rows GROUP BY g) t")

    res = run_round_robin("2 %s rows in, groupby" % human(args.rows), [
        ("pysandbox", sb_table, "{$table}"),
        ("pysandbox ($query)", sb_query, "{$query: SELECT ...}"),
        ("pysandbox, not streamed", sb_buffered, "{$table}, stream_threshold = -1"),
        ("PL/Python", pl_call, "plpy.execute + DataFrame(list(rv))"),
        ("client read_sql", client_call, "psycopg2 + pandas.read_sql"),
        ("native SQL", native, "GROUP BY -> jsonb_object_agg"),
    ], args.reps)
    check_same(res, compare_groupby)
    return res


def w3_rows_out(ctx, args):
    progress("== 3. %d-row DataFrame -> rows in PostgreSQL" % args.rows)
    sb, pl, nat = ctx["sb"], ctx["pl"], ctx["native"]
    opts = ctx["sbstate"]["options"]
    code = ROWS_OUT_CODE.format(rows=args.rows)

    def sb_rows():
        try:
            return one(sb, "SELECT count(*) FROM sandbox_rows(%s, '{}'::jsonb, "
                           "'main', %s::jsonb) AS t(a int8, b int8, c float8, d text)",
                       (code, opts))
        except psycopg2.errors.UndefinedFunction as e:
            if "sandbox_rows" in str(e):
                raise ContenderNA("n/a (sandbox_rows not installed)")
            raise

    def sb_build_only():
        v = one(sb, "SELECT sandbox_execute(%s, '{}'::jsonb, '{n}', %s::jsonb)",
                (code + "\n\ndef n():\n    return len(main())\n", opts))
        return v["n"]

    def pl_rows():
        return one(pl, "SELECT count(*) FROM bench_pl_rows_out()")

    def native():
        return one(nat, "SELECT count(*) FROM generate_series(1, %d)" % args.rows)

    res = run_round_robin("3 %s rows out" % human(args.rows), [
        ("pysandbox", sb_rows, "count(*) FROM sandbox_rows(...)"),
        ("pysandbox build only", sb_build_only,
         "sandbox_execute -> len(df): the build, no rows out"),
        ("PL/Python", pl_rows, "SRF returning list of tuples"),
        ("native SQL", native, "count(*) FROM generate_series"),
    ], args.reps)
    for r in res:
        if r.value is not None and r.value != args.rows and not r.error:
            r.error = "returned %r rows, expected %d" % (r.value, args.rows)
    return res


def w8_per_row(ctx, args):
    progress("== 8. a trivial function for each of %d rows" % args.lang_rows)
    sb, pl, nat = ctx["sb"], ctx["pl"], ctx["native"]
    n = args.lang_rows
    want = n * (n + 1) // 2 + n
    run(nat, "CREATE OR REPLACE FUNCTION bench_pl_inc(i integer) RETURNS integer "
             "LANGUAGE plpython3u AS 'return i + 1'")
    try:
        run(nat, "CREATE OR REPLACE FUNCTION bench_sb_inc(i integer) RETURNS integer "
                 "LANGUAGE pysandbox AS 'return i + 1'")
    except psycopg2.Error as e:
        raise ContenderError("could not create the pysandbox function: %s" % str(e).strip())
    run(nat, "GRANT USAGE ON LANGUAGE pysandbox TO PUBLIC")

    def sb_lang():
        return one(sb, "SELECT sum(bench_sb_inc(i)) FROM generate_series(1, %d) i" % n)

    m = args.execute_rows
    want_m = m * (m + 1) // 2 + m

    def sb_execute():
        return one(sb, "SELECT sum((sandbox_execute('def main(i): return i + 1', "
                       "jsonb_build_object('i', i)) ->> 'main')::int) "
                       "FROM generate_series(1, %d) i" % m)

    def pl_call():
        return one(pl, "SELECT sum(bench_pl_inc(i)) FROM generate_series(1, %d) i" % n)

    def native():
        return one(nat, "SELECT sum(i + 1) FROM generate_series(1, %d) i" % n)

    res = run_round_robin("8 f(i) for %s rows" % human(n), [
        ("pysandbox", sb_lang, "LANGUAGE pysandbox function"),
        ("PL/Python", pl_call, "plpython3u function"),
        ("native SQL", native, "sum(i + 1)"),
    ], args.reps)
    for r in res:
        if r.value is not None and int(r.value) != want and not r.error:
            r.error = "returned %r, expected %d" % (r.value, want)
    # a fork a row: fewer rows, compared per row (report())
    ex = run_round_robin("8 the same for %s rows" % human(m), [
        ("pysandbox execute", sb_execute, "sandbox_execute per row"),
    ], min(args.reps, 3))
    for r in ex:
        if r.value is not None and int(r.value) != want_m and not r.error:
            r.error = "returned %r, expected %d" % (r.value, want_m)
    return [res, ex]


SQL_GROUPBY_CODE = """\
def main():
    df = sql('SELECT g, x, f, s FROM bench_rows')
    return df.groupby('g')['f'].sum()
"""


def w9_language_rows(ctx, args):
    progress("== 9, 10. %d rows out of a function, %d rows in through sql()"
             % (args.rows, args.rows))
    sb, nat = ctx["sb"], ctx["native"]
    opts = ctx["sbstate"]["options"]
    code = ROWS_OUT_CODE.format(rows=args.rows)
    try:
        run(nat, "CREATE OR REPLACE FUNCTION bench_sb_srf() "
                 "RETURNS TABLE(a int8, b int8, c float8, d text) LANGUAGE pysandbox AS %s",
            (code + "\nreturn main()\n",))
    except psycopg2.Error as e:
        raise ContenderError("could not create the pysandbox function: %s" % str(e).strip())
    run(nat, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bench_sql') "
             "THEN CREATE ROLE bench_sql; END IF; END $$")
    run(nat, "GRANT SELECT ON bench_rows TO bench_sql")
    # after SET ROLE a call has what a login as the role gets: its own
    # stored limits, as raised as this session's
    for name, value in SANDBOX_SETTINGS:
        run(nat, "ALTER ROLE bench_sql SET %s = '%s'" % (name, value))
    run(nat, "GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) "
             "TO bench_sql")

    def srf():
        return one(sb, "SELECT count(*) FROM bench_sb_srf()")

    def rows():
        return one(sb, "SELECT count(*) FROM sandbox_rows(%s, '{}'::jsonb, "
                       "'main', %s::jsonb) AS t(a int8, b int8, c float8, d text)",
                   (code, opts))

    def sql_call():
        run(sb, "SET ROLE bench_sql")
        try:
            return one(sb, "SELECT sandbox_execute(%s, '{}'::jsonb, '{main}', %s::jsonb)",
                       (SQL_GROUPBY_CODE, opts))
        finally:
            run(sb, "RESET ROLE")

    def query_call():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (GROUPBY_CODE, '{"df": {"$query": "SELECT g, x, f, s FROM bench_rows"}}',
                    opts))

    out = run_round_robin("9 %s rows out of a function" % human(args.rows), [
        ("pysandbox", srf, "RETURNS TABLE function returning the DataFrame"),
        ("sandbox_rows", rows, "the same code through sandbox_rows"),
    ], args.reps)
    for r in out:
        if r.value is not None and r.value != args.rows and not r.error:
            r.error = "returned %r rows, expected %d" % (r.value, args.rows)
    into = run_round_robin("10 %s rows in through sql()" % human(args.rows), [
        ("pysandbox", sql_call, "sql('SELECT ...') in the code, as an ordinary role"),
        ("$query", query_call, "the same rows as a $query input"),
    ], args.reps)
    check_same(into, compare_groupby)
    return [out, into]


WS_LOAD_CODE = """\
def main(ws, df):
    ws["df"] = df
    return df.groupby("g")["f"].sum()
"""

WS_AGAIN_CODE = """\
def main(ws):
    return ws["df"].groupby("g")["f"].sum()
"""


def w11_workspace(ctx, args):
    progress("== 11. a workspace: %d rows loaded, then the groupby again on what it kept"
             % args.rows)
    sb = ctx["sb"]
    try:
        ws = one(sb, "SELECT sandbox_workspace_open()")
    except psycopg2.Error as e:
        raise ContenderError("could not open a workspace: %s" % str(e).strip())
    opt = json.dumps({"workspace": ws})

    def first():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (WS_LOAD_CODE, '{"df": {"$query": "SELECT g, x, f, s FROM bench_rows"}}',
                    opt))

    def again():
        return one(sb, "SELECT sandbox_execute(%s, '{}', '{main}', %s::jsonb)",
                   (WS_AGAIN_CODE, opt))

    res = run_round_robin("11 workspace %s rows" % human(args.rows), [
        ("pysandbox", first, "1st call: $query load + groupby, kept in ws"),
        ("second call", again, "the groupby on the DataFrame ws kept"),
    ], args.reps)
    check_same(res, compare_groupby)
    one(sb, "SELECT sandbox_workspace_close(%s)", (ws,))
    return res


CHART_DATA_CODE = """\
import numpy as np
def main():
    x = np.arange(1000)
    return {"x": x, "y": np.sin(x / 50.0)}
"""

CHART_CODE = """\
import numpy as np
import matplotlib.pyplot as plt
def main():
    x = np.arange(1000)
    fig, ax = plt.subplots()
    ax.plot(x, np.sin(x / 50.0))
    ax.set_title("sin")
    return fig
"""


def w12_chart(ctx, args):
    progress("== 12. a line chart of 1,000 points as a PNG vs the same data as JSON")
    sb = ctx["sb"]

    def data():
        return one(sb, "SELECT sandbox_execute(%s)", (CHART_DATA_CODE,))

    def chart():
        return one(sb, "SELECT sandbox_execute(%s)", (CHART_CODE,))

    return run_round_robin("12 chart 1,000 points", [
        ("pysandbox", data, "the points as JSON"),
        ("chart", chart, "a 640x480 line chart as a PNG ({\"$image\": ...})"),
    ], args.reps)


GROUP_CODE = """\
def per_group(df):
    return {"n": len(df), "sum": round(float(df.f.sum()), 6), "max_x": int(df.x.max())}
"""
GROUP_BY_CODE = GROUP_CODE + """
def main(df):
    return per_group(df)
"""
GROUP_ONE_CODE = GROUP_CODE + """
def main(df):
    return {str(k): per_group(d) for k, d in df.groupby("g")}
"""


def w13_groups(ctx, args):
    progress("== 13. %d rows x 100 groups: options.group_by vs one child vs SQL"
             % args.group_rows)
    sb, nat = ctx["sb"], ctx["native"]
    ensure_table(nat, "bench_groups", args.group_rows, """
        CREATE TABLE bench_groups AS
        SELECT (i %% 100)::int AS g, i::int AS x,
               ((i::int8 * 2654435761) %% 1000003)::float8 / 1000003 AS f
        FROM generate_series(1, %d) i""" % args.group_rows)
    opts = dict(ctx["sbstate"]["options"] and json.loads(ctx["sbstate"]["options"]) or {})
    inputs = '{"df": {"$table": "bench_groups"}}'

    def one_child():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (GROUP_ONE_CODE, inputs, json.dumps(opts)))

    def group_by():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (GROUP_BY_CODE, inputs, json.dumps(dict(opts, group_by="g"))))

    def group_by_parallel():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (GROUP_BY_CODE, inputs,
                    json.dumps(dict(opts, group_by="g", parallel=os.cpu_count() or 2))))

    def native():
        return one(nat, "SELECT jsonb_build_object('main', jsonb_object_agg(g, jsonb_build_object("
                        "'n', n, 'sum', round(s::numeric, 6), 'max_x', m))) "
                        "FROM (SELECT g, count(*) AS n, sum(f) AS s, max(x) AS m "
                        "FROM bench_groups GROUP BY g) t")

    res = run_round_robin("13 %s rows, 100 groups" % human(args.group_rows), [
        ("pysandbox", one_child, "one child: df.groupby('g') in pandas"),
        ("group_by", group_by, "options.group_by: a child per group, one at a time"),
        ("group_by, parallel", group_by_parallel,
         "the same, parallel = %d (the cores)" % (os.cpu_count() or 2)),
        ("native SQL", native, "GROUP BY -> jsonb_object_agg"),
    ], args.reps)

    def compare(ref, other):
        a, b = ref["main"], other["main"]
        if set(a) != set(b):
            return "different groups"
        bad = [k for k in a if a[k]["n"] != b[k]["n"] or a[k]["max_x"] != b[k]["max_x"]
               or not close(a[k]["sum"], b[k]["sum"])]
        return "groups differ: %s" % bad[:5] if bad else None
    check_same(res, compare)

    # backend memory of a per-group run: private growth (VmHWM less the
    # shared buffers the scan touched) against the largest group's columns
    largest = one(nat, "SELECT max(n) FROM (SELECT count(*) AS n FROM bench_groups GROUP BY g) t")
    group_columnar = largest * 24 + 3 * math.ceil(largest / 8)
    for name, options in (("group_by", dict(opts, group_by="g")),
                          ("group_by, parallel",
                           dict(opts, group_by="g", parallel=os.cpu_count() or 2))):
        c = connect("pysandbox-bench-mem")
        try:
            sandbox_session(c, ctx["sbstate"])
            pid = one(c, "SELECT pg_backend_pid()")
            one(c, "SELECT sandbox_execute(%s)", (TRIVIAL_CODE,))
            before = proc_status(pid)
            one(c, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                (GROUP_BY_CODE, inputs, json.dumps(options)))
            after = proc_status(pid)
        finally:
            c.close()
        grow = (after["VmHWM"] - before["VmHWM"]) * 1024
        shmem = max(after["RssShmem"] - before["RssShmem"], 0) * 1024
        ctx.setdefault("group_memory", []).append(
            (name, grow - shmem, group_columnar, shmem))
    return res


def w4_wide(ctx, args):
    progress("== 4. %d rows x 20 mixed columns -> DataFrame -> describe" % args.wide_rows)
    sb, pl, nat, cl = ctx["sb"], ctx["pl"], ctx["native"], ctx["client"]
    opts = ctx["sbstate"]["options"]
    client_ns = {"pd": pd, "np": np}
    exec(WIDE_CODE + "\n" + JSONABLE_CODE, client_ns)
    native_sql = native_wide_sql()

    def sb_call():
        return one(sb, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
                   (WIDE_CODE, '{"df": {"$table": "bench_wide"}}', opts))

    def pl_call():
        return one(pl, "SELECT bench_pl_wide()")

    def client_call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = pd.read_sql("SELECT * FROM bench_wide", cl)
            return json.loads(json.dumps(
                {"main": client_ns["_jsonable"](client_ns["main"](df))}))

    def native():
        return one(nat, native_sql)

    res = run_round_robin("4 %s wide rows in" % human(args.wide_rows), [
        ("pysandbox", sb_call, "{$table}"),
        ("PL/Python", pl_call, "plpy.execute + DataFrame + dtype fixes"),
        ("client read_sql", client_call, "psycopg2 + read_sql + dtype fixes"),
        ("native SQL", native, "count/avg/stddev/percentile/min/max"),
    ], args.reps)
    check_same(res, compare_wide)
    return res


# --------------------------------------------------------------------------
# result checks: the contenders must agree with pysandbox

def close(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    return a == b


def compare_groupby(ref, other):
    a, b = ref["main"], other["main"]
    if set(a) != set(b):
        return "different groups: %s vs %s" % (sorted(a)[:5], sorted(b)[:5])
    bad = [k for k in a if not close(a[k], b[k])]
    return "groups differ: %s" % bad[:5] if bad else None


def compare_wide(ref, other):
    a, b = ref["main"], other["main"]
    for key in ("rows", "count", "true", "distinct"):
        if a.get(key) != b.get(key):
            return "%s differs: %r vs %r" % (key, a.get(key), b.get(key))
    for c, stats in a["numeric"].items():
        for s, v in stats.items():
            if not close(v, b["numeric"].get(c, {}).get(s)):
                return "numeric %s %s differs: %r vs %r" % (
                    c, s, v, b["numeric"].get(c, {}).get(s))
    for c, (lo, hi) in a["time"].items():
        olo, ohi = b["time"][c]
        if pd.Timestamp(lo) != pd.Timestamp(olo) or pd.Timestamp(hi) != pd.Timestamp(ohi):
            return "time %s differs: %r vs %r" % (c, a["time"][c], b["time"][c])
    return None


def check_same(results, compare):
    ref = results[0]
    if ref.value is None:
        return
    for r in results[1:]:
        if r.value is None or r.error or r.contender.startswith("native"):
            continue
        try:
            diff = compare(ref.value, r.value)
        except Exception as e:  # noqa: BLE001
            diff = "cannot compare: %s: %s" % (type(e).__name__, e)
        if diff:
            r.error = "result differs from pysandbox's: " + diff


# --------------------------------------------------------------------------
# workload 5: backend memory

def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmHWM", "VmRSS", "RssAnon", "RssShmem", "RssFile"):
                out[k] = int(v.split()[0])     # kB
    return out


def w5_memory(ctx, args):
    progress("== 5. backend memory while moving %d rows in" % args.rows)
    nat = ctx["native"]
    rows = one(nat, "SELECT count(*) FROM bench_rows")
    avg_text = float(one(nat, "SELECT avg(octet_length(s)) FROM bench_rows"))
    columnar = rows * (8 + 8 + 8 + avg_text + 8) + 4 * math.ceil(rows / 8)

    def measure(appname, warm, call):
        c = connect(appname)
        try:
            pid = one(c, "SELECT pg_backend_pid()")
            warm(c)
            one(c, "SELECT count(*) FROM bench_rows")
            before = proc_status(pid)
            call(c)
            after = proc_status(pid)
        finally:
            c.close()
        return before, after

    def sb_warm(c):
        sandbox_session(c, ctx["sbstate"])
        one(c, "SELECT sandbox_execute(%s)", (TRIVIAL_CODE,))

    def sb_call(c):
        one(c, "SELECT sandbox_execute(%s, %s::jsonb, '{main}', %s::jsonb)",
            (GROUPBY_CODE, '{"df": {"$table": "bench_rows"}}',
             ctx["sbstate"]["options"]))

    rows_out = []
    growth = []
    err = None
    try:
        for _ in range(args.mem_conns):
            b, a = measure("pysandbox-bench-mem", sb_warm, sb_call)
            growth.append((a["VmHWM"] - b["VmHWM"]) * 1024)
            rows_out.append(("pysandbox", b, a))
    except Exception as e:  # noqa: BLE001
        err = "%s: %s" % (type(e).__name__, str(e).strip())

    # context: the same measure for PL/Python (after pandas is imported in
    # the backend) and for the native GROUP BY
    ctx_rows = []
    def pl_warm(c):
        one(c, "SELECT bench_pl_versions()")    # imports pandas in the backend

    for name, warm, call in [
        ("PL/Python", pl_warm, lambda c: one(c, "SELECT bench_pl_groupby()")),
        ("native SQL", lambda c: None,
         lambda c: one(c, "SELECT g, sum(f) FROM bench_rows GROUP BY g LIMIT 1")),
    ]:
        try:
            b, a = measure("pysandbox-bench-mem", warm, call)
            ctx_rows.append((name, b, a))
        except Exception as e:  # noqa: BLE001
            ctx_rows.append((name, None, str(e).strip()))
    return {"rows": rows, "avg_text": avg_text, "columnar": columnar,
            "growth": growth, "detail": rows_out, "context": ctx_rows,
            "error": err}


# --------------------------------------------------------------------------
# report

def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def fmt_ratio(x):
    return ("%.3fx" if x < 0.1 else "%.2fx") % x


def human(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def mark(ok):
    return "MET" if ok else "NOT MET"


def report_memory(mem, bars, errors):
    """Workload 5's lines, and its bar."""
    print("workload 5: backend memory while pysandbox moves %d rows in (workload 2)" % mem["rows"])
    print("  columnar size of the input: %d x (8+8+8+%.2f text+8 offset) + 4 bitmaps = %.1f MB" % (
        mem["rows"], mem["avg_text"], mem["columnar"] / 1e6))
    if mem["error"]:
        print("  pysandbox: ERROR %s" % mem["error"])
        errors.append(mem["error"])
    print("  (MB = 10^6 bytes; VmHWM counts shared buffers the backend touched,")
    print("   shown as 'shmem'; the bar uses the whole VmHWM growth)")
    for name, b, a in mem["detail"] + mem["context"]:
        if b is None:
            print("  %-10s ERROR %s" % (name, a))
            continue
        grow = (a["VmHWM"] - b["VmHWM"]) * 1024
        print("  %-10s VmHWM %6.1f -> %6.1f MB: +%6.1f MB = %5.2fx columnar "
              "(shmem +%.1f MB)" % (
                  name, b["VmHWM"] * 1024 / 1e6, a["VmHWM"] * 1024 / 1e6,
                  grow / 1e6, grow / mem["columnar"],
                  (a["RssShmem"] - b["RssShmem"]) * 1024 / 1e6))
    if mem["growth"]:
        g = statistics.median(mem["growth"])
        x = g / mem["columnar"]
        bars.append(("5 backend peak growth %.1f MB = %.2fx columnar <= 3x" % (
            g / 1e6, x), mark(x <= 3)))


def report(machine, all_results, mem, args):
    print()
    print("=" * 78)
    print("pysandbox benchmark - medians of %d reps (workload 1: see calls)" % args.reps)
    for line in machine:
        print(line)
    print("=" * 78)
    hdr = "%-24s %-31s %9s %9s %8s  %s" % (
        "workload", "contender", "median ms", "p99 ms", "ratio", "note")
    print(hdr)
    print("-" * len(hdr))
    bars = []
    errors = []
    for results in all_results:
        base = next((r for r in results if r.contender in BASES
                     and r.median is not None and not r.error), None)
        for r in results:
            if r.na:
                line = "%-24s %-31s %9s %9s %8s  %s" % (
                    r.workload, r.contender, "n/a", "", "", r.na)
            elif r.error and not r.times:
                line = "%-24s %-31s %9s %9s %8s  %s" % (
                    r.workload, r.contender, "ERROR", "", "", r.error[:200])
                errors.append(r)
            else:
                ratio = ""
                if base is not None and r is not base and r.median:
                    ratio = fmt_ratio(r.median / base.median)
                p99 = fmt_ms(pct(r.times, 99)) if r.workload.split()[0] == "1" else ""
                line = "%-24s %-31s %9s %9s %8s  %s" % (
                    r.workload, r.contender, fmt_ms(r.median), p99, ratio, r.note)
                if r.error:
                    line += "  [ERROR: %s]" % r.error[:200]
                    errors.append(r)
            print(line)
        print()

    by = {(r.workload.split()[0], r.contender): r for res in all_results for r in res}

    def ratio(w, other, base="pysandbox"):
        a, b = by.get((w, other)), by.get((w, base))
        if a is None or b is None or not a.times or not b.times or a.error or b.error:
            return None
        return a.median / b.median

    warm = by.get(("1", "pysandbox (warm)"))
    paced = by.get(("1", "pysandbox (warm, paced)"))
    first = by.get(("1", "pysandbox (1st call, new conn)"))
    if paced is not None and paced.times:
        p50p = pct(paced.times, 50)
        bars.append(("1 warm trivial p50, paced %.2f ms <= 1 ms (pre-forked spares)" % p50p,
                     mark(p50p <= 1)))
    if first is not None and first.times:
        f50 = pct(first.times, 50)
        bars.append(("1 first call of a new connection p50 %.2f ms <= 10 ms" % f50,
                     mark(f50 <= 10)))
    if warm is not None and warm.times:
        p50 = pct(warm.times, 50)
        bars.append(("1 warm trivial p50, back to back %.2f ms <= 5 ms (fork per call)" % p50,
                     mark(p50 <= 5)))
    # The bars compare the warm trivial call, the one that finds a pre-forked
    # child, with a fresh process; back to back (no spare is ready, every
    # call forks) is shown beside it
    fr = by.get(("1", "fresh python+pandas"))
    if fr is not None and fr.times and paced is not None and paced.times:
        x = pct(fr.times, 50) / pct(paced.times, 50)
        bars.append(("1 fresh python+pandas / pysandbox warm (paced) = %.0fx >= 300x" % x,
                     mark(x >= 300)))
    if fr is not None and fr.times and warm is not None and warm.times:
        x = pct(fr.times, 50) / pct(warm.times, 50)
        bars.append(("1 fresh python+pandas / pysandbox back to back = %.0fx (fork per call)" % x,
                     "reported"))
    x = ratio("8", "PL/Python")
    if x is not None:
        bars.append(("8 per-row calls: pysandbox / PL/Python = %.0fx <= 20x" % (1 / x),
                     mark(1 / x <= 20)))
    x = ratio("8", "pysandbox execute")
    if x is not None:
        x = x * args.lang_rows / args.execute_rows
        bars.append(("8 per-row calls, per row: sandbox_execute (%s rows) / pysandbox function "
                     "(%s rows) = %.0fx >= 100x" % (human(args.execute_rows),
                                                     human(args.lang_rows), x),
                     mark(x >= 100)))
    x = ratio("11", "second call")
    if x is not None:
        bars.append(("11 workspace, %s rows: second call / first call = %.1f%% <= 5%%"
                     % (human(args.rows), 100 * x), mark(x <= 0.05)))
    x = ratio("12", "chart")
    if x is not None:
        bars.append(("12 chart of 1,000 points / the same data as JSON = %.1fx <= 3x" % x,
                     mark(x <= 3)))
    x = ratio("9", "sandbox_rows")
    if x is not None:
        bars.append(("9 %s rows out: function / sandbox_rows = %.2fx <= 1.2x"
                     % (human(args.rows), 1 / x), mark(1 / x <= 1.2)))
    x = ratio("10", "$query")
    if x is not None:
        bars.append(("10 %s rows in: sql() / $query = %.2fx <= 1.2x"
                     % (human(args.rows), 1 / x), mark(1 / x <= 1.2)))
    n = human(args.rows)
    for other, label in (("PL/Python", "PL/Python"),
                         ("client read_sql", "client pandas")):
        if ("2", "pysandbox") not in by:
            break
        x = ratio("2", other)
        bars.append(("2 %s rows in: %s / pysandbox = %s >= 6x" % (
            n, label, fmt_ratio(x) if x else "n/a"),
            mark(x >= 6) if x is not None else "n/a (a contender failed)"))
    x = ratio("2", "native SQL")
    if x:
        bars.append(("2 %s rows in: pysandbox / native SQL GROUP BY = %.2fx <= 2x" % (n, 1 / x),
                     mark(1 / x <= 2)))
    sbr = by.get(("3", "pysandbox"))
    x = ratio("3", "PL/Python")
    if sbr is not None and sbr.na:
        bars.append(("3 %s rows out: PL/Python / pysandbox >= 4x" % n,
                     "n/a (sandbox_rows not installed)"))
    elif sbr is not None:
        bars.append(("3 %s rows out: PL/Python / pysandbox = %s >= 4x" % (
            n, fmt_ratio(x) if x else "n/a"),
            mark(x >= 4) if x is not None else "n/a (a contender failed)"))
    for name, private, group_columnar, shmem in mem.get("groups", []):
        print("workload 13: %s backend VmHWM growth less shared buffers %.1f MB (shmem %.1f MB); "
              "largest group %.2f MB columnar" % (name, private / 1e6, shmem / 1e6,
                                                  group_columnar / 1e6))
        bars.append(("13 %s backend memory %.1f MB <= 1.5x largest group (%.2f MB) + 8 MB"
                     % (name, private / 1e6, group_columnar / 1e6),
                     mark(private <= 1.5 * group_columnar + 8e6)))
    if mem["rows"]:
        report_memory(mem, bars, errors)
    print()
    print("bars (reported, not asserted):")
    width = max((len(d) for d, _ in bars), default=0)
    for desc, status in bars:
        print("  bar: %s : %s" % (desc.ljust(width), status))
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7,
                    help="timed repetitions per contender, workloads 2-4")
    ap.add_argument("--trivial-calls", type=int, default=200)
    ap.add_argument("--fresh-calls", type=int, default=10)
    ap.add_argument("--new-conns", type=int, default=10)
    ap.add_argument("--paced-calls", type=int, default=50)
    ap.add_argument("--pace-ms", type=int, default=100,
                    help="pause before each paced call and after connecting")
    ap.add_argument("--mem-conns", type=int, default=3,
                    help="fresh connections measured in workload 5")
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--wide-rows", type=int, default=100000)
    ap.add_argument("--group-rows", type=int, default=4000000,
                    help="rows of workload 13 (100 groups)")
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8,9,11,12",
                    help="comma-separated subset of 1..9 and 11..13 (7 restarts the cluster: "
                    "only with test/bench/run.sh's throwaway cluster; 9 runs "
                    "workloads 9 and 10)")
    ap.add_argument("--lang-rows", type=int, default=10000,
                    help="rows each function is called for, workload 8")
    ap.add_argument("--execute-rows", type=int, default=200,
                    help="rows sandbox_execute is called for, workload 8 (a fork a "
                         "row: compared per row)")
    ap.add_argument("--preload-rounds", type=int, default=2,
                    help="rounds of the preload sets, workload 7")
    ap.add_argument("--tput-seconds", type=int, default=15,
                    help="seconds per throughput measurement, workload 6")
    args = ap.parse_args()
    wanted = set(args.workloads.split(","))

    started = time.perf_counter()
    try:
        native = connect("pysandbox-bench-native")
    except psycopg2.Error as e:
        print("bench: cannot connect (PGHOST/PGPORT/PGUSER): %s" % e, file=sys.stderr)
        return 2
    try:
        run(native, "CREATE EXTENSION IF NOT EXISTS pysandbox")
    except psycopg2.Error as e:
        print("bench: CREATE EXTENSION pysandbox failed: %s\nbench: build and "
              "install it first (make && make install, as root)" % str(e).strip(),
              file=sys.stderr)
        return 2
    if not one(native, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"):
        print("bench: connect as a superuser (PGUSER)", file=sys.stderr)
        return 2

    setup_data(native, args.rows, args.wide_rows)
    setup_plpython(native, args.rows)
    ctx = {
        "native": native,
        "sb": connect("pysandbox-bench-sandbox"),
        "pl": connect("pysandbox-bench-plpython"),
        "client": connect("pysandbox-bench-client"),
        "sbstate": {"options": None},
    }
    sandbox_session(ctx["sb"], ctx["sbstate"])
    machine = machine_info(native, ctx["pl"])
    for line in machine:
        print(line)

    all_results = []
    if "1" in wanted:
        all_results.append(w1_trivial(ctx, args))
    if "2" in wanted:
        all_results.append(w2_groupby(ctx, args))
    if "3" in wanted:
        all_results.append(w3_rows_out(ctx, args))
    if "4" in wanted:
        all_results.append(w4_wide(ctx, args))
    if "8" in wanted:
        all_results.extend(w8_per_row(ctx, args))
    if "9" in wanted:
        all_results.extend(w9_language_rows(ctx, args))
    if "11" in wanted:
        all_results.append(w11_workspace(ctx, args))
    if "12" in wanted:
        all_results.append(w12_chart(ctx, args))
    if "13" in wanted:
        all_results.append(w13_groups(ctx, args))
    mem = {"rows": 0, "avg_text": 0, "columnar": 1, "growth": [], "detail": [],
           "context": [], "error": None}
    if "5" in wanted:
        mem = w5_memory(ctx, args)
    tput = w6_throughput(ctx, args) if "6" in wanted else []
    mem["groups"] = ctx.get("group_memory", [])
    errors = report(machine, all_results, mem, args)
    if tput:
        report_throughput(tput)
        errors += [e for _n, _c, _r, e in tput if e and "make floor" not in e]
    if "7" in wanted:
        # last: it restarts the cluster under every other connection
        for c in ("sb", "pl", "client"):
            ctx[c].close()
        native.close()
        errors += report_preload(w7_preload(ctx, args))
    print("\ntotal run time %.0f s" % (time.perf_counter() - started))
    if errors:
        print("bench: %d contender(s) failed unexpectedly (see ERROR above)" % len(errors))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
