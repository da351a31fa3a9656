#!/usr/bin/python3
"""Lifecycle suite: cancel, timeouts, termination, killed processes, leaks.

Run as root (it reads /proc of postgres processes and signals them) with
Debian's interpreter, against a running test cluster:

    /usr/bin/python3 test/lifecycle/lifecycle.py [--calls 300]

Connection settings come from PGHOST/PGPORT/PGUSER (a superuser); the data
directory and server log from PYSANDBOX_TEST_DIR (default /tmp/pysandbox-test).

A session's backend has one child, the pysandbox-worker; during a call the
worker has one child, the contained sandbox process.  Checks:

  (a) pg_cancel_backend from a second connection ends a running
      `while True: pass` call with 57014 within 100 ms, measured from issuing
      the cancel to the error reaching the client (five trials, all printed);
  (b) SET statement_timeout = '300ms' ends a sleeping call with 57014 (with
      pysandbox.python_layer = off for time.sleep; a busy loop if that mode
      cannot run code);
  (c) pg_terminate_backend during a call (three trials): the backend, its
      worker and the sandbox child are all gone within 1 s, no zombies, and
      the child is reaped by its worker (never orphaned to init);
  (d) the client disappears mid-call (its process is SIGKILLed): with
      client_connection_check_interval = 100ms the same as (c) within 1 s;
      with default settings the call's own wall-clock limit ends it (2 s);
  (e) SIGKILL to the worker mid-call gives an ERROR (no hang, no crash), and
      the next call in the same session works with a new worker; the child
      dies within 1 s (parent-death signal) and is reaped (by init: it is
      orphaned by design here) within 5 s;
  (f) SIGKILL to the sandbox child mid-call gives 39000; the worker stays;
  (g) N consecutive calls (default 300) mixing success, exceptions, timeouts
      (timeout_ms 50), memory bombs, table inputs, cancels and statements
      calling a function per row (one of them failing at a row): afterwards the
      backend has exactly one worker and no other descendant, its open fd
      count equals the count after the first round of calls, and its RSS grew by at
      most 5 MB (numbers printed);
  (h) a LANGUAGE pysandbox function called for every row of a statement
      gives every row's value from one child, which is gone within 1 s of
      the statement's end (also inside a transaction still open); a
      statement cancelled during one of its calls ends with 57014, its
      child gone, and the next call works;
  (i) the postmaster never restarted (same pid) and the server log has no
      crash lines.

After every check there must be no zombie under the postmaster and no
pysandbox-worker outside a backend.  One line per check, then exactly
"lifecycle: N passed, M failed"; the exit status is non-zero on failure.
"""

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

import psycopg2
import psycopg2.extras

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from proctools import (  # noqa: E402
    CRASH_LOG, LOG_PATH, WORKER_EXE, call_children, children, descendants, is_spare,
    exe_of, owned_by_a_backend, postmaster_pid, process_table, read_stat)


CANCEL_BOUND_MS = 100
GONE_BOUND_S = 1.0
RSS_GROWTH_BOUND_KB = 5 * 1024

LOOP = "def main():\n    while True:\n        pass\n"
SLEEP = "import time\ndef main():\n    time.sleep(60)\n"


# --------------------------------------------------------------------------
# processes

def alive(pid):
    """True while pid exists and is not a zombie."""
    st = read_stat(pid)
    return st is not None and st[1] != "Z"


def exists(pid):
    return read_stat(pid) is not None


def worker_of(backend):
    """The backend's pysandbox-worker and that worker's call children.

    The worker also keeps a spare child forked ahead of the next call; it is
    not counted (the worker still holds the other end of its socket).
    """
    table = process_table()
    workers = [p for p in children(table, backend) if exe_of(p) == WORKER_EXE]
    if not workers:
        return None, []
    return workers[0], call_children(table, workers[0])


def wait_for(predicate, timeout):
    """Poll predicate every 5 ms; returns seconds taken, or None on timeout."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.005)
    return None


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def strays(postmaster):
    """Zombies under the postmaster and sandbox processes outside it."""
    problems = []
    # Another session's child may be mid-reap.  A sandbox process whose
    # worker was killed dies of its parent-death signal and is then reaped
    # by init, which takes up to a second or two on some hosts: dead ones
    # (state Z) do not count, live ones must be gone within 3 s.
    for attempt in range(15):
        table = process_table()
        under = set(descendants(table, postmaster))
        zombies = [(p, table[p][0]) for p in under if table[p][1] == "Z"]
        orphans = [(p, table[p][2], table[p][1]) for p, (comm, state, _pp) in table.items()
                   if comm.startswith("pysandbox-work") and p not in under
                   and state != "Z" and not owned_by_a_backend(table, p)]
        if not zombies and not orphans:
            return []
        time.sleep(0.2)
    if zombies:
        problems.append("zombies under the postmaster: %s" % zombies)
    if orphans:
        problems.append("sandbox processes outside any backend (pid, parent, state): %s" % orphans)
    return problems


# --------------------------------------------------------------------------
# sessions

def connect(appname="pysandbox-lifecycle"):
    conn = psycopg2.connect("", connect_timeout=10, application_name=appname)
    conn.autocommit = True
    return conn


def execute(conn, code, options=None, inputs=None):
    cur = conn.cursor()
    cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)",
                (code, psycopg2.extras.Json(inputs or {}),
                 psycopg2.extras.Json(options or {})))
    return cur.fetchone()[0]


class Call(threading.Thread):
    """One sandbox call in the background; records when and how it ended."""

    def __init__(self, conn, code, options=None, inputs=None):
        super().__init__(daemon=True)
        self.conn, self.code, self.options, self.inputs = conn, code, options, inputs
        self.result = self.error = self.ended = None

    def run(self):
        try:
            self.result = execute(self.conn, self.code, self.options, self.inputs)
        except psycopg2.Error as exc:
            self.error = exc
        self.ended = time.monotonic()

    def outcome(self):
        if self.error is None:
            return "result %r" % (self.result,)
        return "%s %s" % (self.error.pgcode,
                          (self.error.diag.message_primary or str(self.error)).strip())


def wait_running(backend, timeout=15.0, settle=0.05, exclude=()):
    """Wait until the backend's worker has a sandbox child; return (worker, child).

    The sandbox child is a fork of the worker (same executable); this tells it
    from the short-lived helpers pandas runs while a new worker warms up.
    Children in `exclude` (a previous call's, still being reaped) don't count.
    """
    found = {}

    def running():
        worker, kids = worker_of(backend)
        kids = [k for k in kids if exe_of(k) == WORKER_EXE and k not in exclude]
        if worker and kids:
            found["worker"], found["child"] = worker, kids[0]
            return True
        return False
    if wait_for(running, timeout) is None:
        return None, None
    time.sleep(settle)          # let the child reach the user's code
    return found["worker"], found["child"]


class Suite:
    def __init__(self):
        self.passed = self.failed = 0
        self.postmaster = postmaster_pid()
        self.log_offset = os.path.getsize(LOG_PATH) if os.path.exists(LOG_PATH) else 0
        self.admin = connect("pysandbox-lifecycle-admin")
        cur = self.admin.cursor()
        cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")

    def report(self, name, problems, info=""):
        problems = list(problems) + strays(self.postmaster)
        if problems:
            self.failed += 1
            print("FAIL %-40s %s" % (name, info), flush=True)
            for p in problems:
                print("     ! " + p, flush=True)
        else:
            self.passed += 1
            print("ok   %-40s %s" % (name, info), flush=True)

    def admin_sql(self, sql, *args):
        cur = self.admin.cursor()
        cur.execute(sql, args)
        return cur.fetchone()[0] if cur.description else None

    # -- (a) ---------------------------------------------------------------
    def check_cancel(self, trials=5):
        conn = connect()
        backend = conn.get_backend_pid()
        execute(conn, "def main():\n    return 1\n")        # worker is warm
        times, problems = [], []
        for i in range(trials):
            call = Call(conn, LOOP, {"timeout_ms": 10000})
            call.start()
            worker, child = wait_running(backend)
            if child is None:
                problems.append("trial %d: the call never started a sandbox child" % i)
                call.join(15)
                continue
            issued = time.monotonic()
            self.admin_sql("SELECT pg_cancel_backend(%s)", backend)
            call.join(5)
            if call.is_alive():
                problems.append("trial %d: the call did not end within 5 s of the cancel" % i)
                continue
            ms = (call.ended - issued) * 1000
            times.append(ms)
            if call.error is None or call.error.pgcode != "57014":
                problems.append("trial %d: %s, expected 57014" % (i, call.outcome()))
            if ms > CANCEL_BOUND_MS:
                problems.append("trial %d: the error arrived %.1f ms after the cancel "
                                "(bound %d ms)" % (i, ms, CANCEL_BOUND_MS))
            if exists(child):
                problems.append("trial %d: the sandbox child %d outlived the call" % (i, child))
            if worker_of(backend)[0] != worker:
                problems.append("trial %d: the worker was replaced" % i)
        try:
            if execute(conn, "def main():\n    return 2\n") != {"main": 2}:
                problems.append("the next call returned a wrong result")
        except psycopg2.Error as exc:
            problems.append("the next call failed: %s" % str(exc).strip())
        conn.close()
        self.report("(a) pg_cancel_backend", problems,
                    "57014 after " + ", ".join("%.1f" % t for t in times) + " ms")

    # -- (h) ---------------------------------------------------------------
    def check_language_per_row(self, rows=40):
        """A LANGUAGE pysandbox function called for every row of a statement,
        then a statement cancelled in its middle (during a call): every row
        gets its value, the cancel ends the statement with 57014, and no
        child is left behind."""
        problems = []
        self.admin_sql("CREATE OR REPLACE FUNCTION lifecycle_inc(i integer) RETURNS integer "
                       "LANGUAGE pysandbox AS 'return i + 1'")
        self.admin_sql("CREATE OR REPLACE FUNCTION lifecycle_slow(i integer) RETURNS integer "
                       "LANGUAGE pysandbox AS %s",
                       "if i == 5:\n    while True:\n        pass\nreturn i")
        conn = connect()
        backend = conn.get_backend_pid()
        cur = conn.cursor()
        cur.execute("SELECT sum(lifecycle_inc(i)) FROM generate_series(1, %s) AS i", (rows,))
        got = cur.fetchone()[0]
        if got != rows * (rows + 1) // 2 + rows:
            problems.append("the per-row sum was %r" % (got,))
        # the child held for the statement's rows ends with the statement,
        # also while its transaction stays open
        if wait_for(lambda: not worker_of(backend)[1], GONE_BOUND_S) is None:
            problems.append("a child outlived its statement: %r" % (worker_of(backend)[1],))
        cur.execute("BEGIN")
        cur.execute("SELECT sum(lifecycle_inc(i)) FROM generate_series(1, %s) AS i", (rows,))
        cur.fetchone()
        if wait_for(lambda: not worker_of(backend)[1], GONE_BOUND_S) is None:
            problems.append("a child outlived its statement in an open transaction: %r"
                            % (worker_of(backend)[1],))
        cur.execute("COMMIT")

        class Statement(threading.Thread):
            def run(self):
                try:
                    c = conn.cursor()
                    c.execute("SELECT sum(lifecycle_slow(i)) FROM generate_series(1, 10) AS i")
                    self.error = None
                except psycopg2.Error as exc:
                    self.error = exc

        st = Statement(daemon=True)
        st.start()
        worker, child = wait_running(backend, settle=0.3)
        if child is None:
            problems.append("the statement never started a sandbox child")
        self.admin_sql("SELECT pg_cancel_backend(%s)", backend)
        st.join(5)
        if st.is_alive():
            problems.append("the statement did not end within 5 s of the cancel")
        elif st.error is None or st.error.pgcode != "57014":
            problems.append("the cancelled statement ended with %r, expected 57014"
                            % (st.error and st.error.pgcode,))
        if child is not None and wait_for(lambda: not exists(child), 3) is None:
            problems.append("the sandbox child %d outlived the statement" % child)
        try:
            cur.execute("SELECT lifecycle_inc(41)")
            if cur.fetchone()[0] != 42:
                problems.append("the next call returned a wrong result")
        except psycopg2.Error as exc:
            problems.append("the next call failed: %s" % str(exc).strip())
        conn.close()
        self.admin_sql("DROP FUNCTION lifecycle_inc(integer), lifecycle_slow(integer)")
        self.report("(h) a function per row, cancelled mid-statement", problems,
                    "%d rows, then 57014" % rows)

    # -- (b) ---------------------------------------------------------------
    def check_statement_timeout(self):
        conn = connect()
        cur = conn.cursor()
        cur.execute("SET pysandbox.python_layer = off")
        code, what = SLEEP, "time.sleep"
        try:
            if execute(conn, "import time\ndef main():\n    return time.time() > 0\n") != {"main": True}:
                raise RuntimeError("unexpected result")
        except (psycopg2.Error, RuntimeError) as exc:
            code, what = LOOP, "busy loop (python_layer=off cannot run: %s)" % (
                str(exc).strip().splitlines()[0][:80])
            cur.execute("SET pysandbox.python_layer = on")
        cur.execute("SET statement_timeout = '300ms'")
        start = time.monotonic()
        problems = []
        try:
            execute(conn, code)
            problems.append("the call returned")
        except psycopg2.Error as exc:
            if exc.pgcode != "57014" or "statement timeout" not in str(exc):
                problems.append("got %s %s, expected 57014 statement timeout"
                                % (exc.pgcode, str(exc).strip()))
        ms = (time.monotonic() - start) * 1000
        if not 250 <= ms <= 300 + CANCEL_BOUND_MS:
            problems.append("ended after %.0f ms, expected about 300 ms" % ms)
        cur.execute("RESET statement_timeout")
        cur.execute("RESET pysandbox.python_layer")
        if worker_of(conn.get_backend_pid())[1]:
            problems.append("the sandbox child outlived the call")
        conn.close()
        self.report("(b) statement_timeout 300ms", problems,
                    "%s ended with 57014 after %.0f ms" % (what, ms))

    # -- (c) and (d) ---------------------------------------------------------
    def gone_within(self, pids, bound, label):
        """Problems if any of pids still exists (even as a zombie) after bound s."""
        took = wait_for(lambda: not any(exists(p) for p in pids), bound)
        if took is None:
            left = [(p, read_stat(p)) for p in pids if exists(p)]
            return ["%s: still there after %.1f s: %s" % (label, bound, left)], None
        return [], took

    def check_terminate(self, trials=3):
        """pg_terminate_backend mid-call, a few times (the failure is a race).

        PostgreSQL signals the backend's whole process group, which includes
        the worker and the sandbox child.  Besides "all gone within 1 s", the
        child must be reaped by its own worker: if it is ever seen with
        another parent, it was orphaned and left for init to reap.
        """
        problems, took_ms = [], []
        for i in range(trials):
            conn = connect()
            backend = conn.get_backend_pid()
            execute(conn, "def main():\n    return 1\n")
            call = Call(conn, LOOP, {"timeout_ms": 10000})
            call.start()
            worker, child = wait_running(backend)
            if child is None:
                problems.append("trial %d: no sandbox child appeared" % i)
                continue
            parents = set()

            def gone():
                st = read_stat(child)
                if st is not None:
                    parents.add(st[2])
                return not any(exists(p) for p in (backend, worker, child))
            self.admin_sql("SELECT pg_terminate_backend(%s)", backend)
            took = wait_for(gone, GONE_BOUND_S)
            if took is None:
                left = [(p, read_stat(p)) for p in (backend, worker, child) if exists(p)]
                problems.append("trial %d: still there after %.1f s: %s"
                                % (i, GONE_BOUND_S, left))
            else:
                took_ms.append(took * 1000)
            if parents - {worker}:
                problems.append("trial %d: the sandbox child %d was orphaned (parent %s "
                                "instead of worker %d): the worker died before reaping it"
                                % (i, child, sorted(parents - {worker}), worker))
                wait_for(lambda: not exists(child), 5.0)   # let init reap it
            call.join(5)
            if call.error is None:
                problems.append("trial %d: the client saw %s" % (i, call.outcome()))
        self.report("(c) pg_terminate_backend mid-call", problems,
                    "%d trials; backend, worker and child gone after %s ms" % (
                        trials, ", ".join("%.0f" % t for t in took_ms) or "-"))

    def client_dies(self, check_interval, bound, timeout_ms, label):
        """Run a call from a psql process, SIGKILL that process mid-call."""
        app = "pysandbox-lifecycle-%d" % os.getpid()
        env = dict(os.environ, PGAPPNAME=app)
        sql = "SELECT sandbox_execute('def main():\n    return 1\n');\n"
        if check_interval:
            sql += "SET client_connection_check_interval = '%s';\n" % check_interval
        sql += ("SELECT sandbox_execute($c$%s$c$, '{}', '{main}', '{\"timeout_ms\": %d}');\n"
                % (LOOP, timeout_ms))
        client = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=env)
        client.stdin.write(sql.encode())
        client.stdin.flush()
        backend = None

        def found_backend():
            nonlocal backend
            backend = self.admin_sql("SELECT max(pid) FROM pg_stat_activity "
                                     "WHERE application_name = %s", app)
            return backend is not None
        wait_for(found_backend, 10)
        worker, child = wait_running(backend) if backend else (None, None)
        if child is None:
            client.kill()
            client.wait()
            self.report(label, ["no sandbox child appeared"])
            return
        client.kill()
        client.wait()
        problems, took = self.gone_within([backend, worker, child], bound,
                                          "backend, worker, child")
        self.report(label, problems, "gone %s after the client died" % (
            "%.0f ms" % (took * 1000) if took is not None else "never"))

    # -- (e) and (f) ---------------------------------------------------------
    def kill_mid_call(self, which, label, want):
        conn = connect()
        backend = conn.get_backend_pid()
        execute(conn, "def main():\n    return 1\n")
        call = Call(conn, LOOP, {"timeout_ms": 10000})
        call.start()
        worker, child = wait_running(backend)
        if child is None:
            self.report(label, ["no sandbox child appeared"])
            return
        victim = worker if which == "worker" else child
        killed = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        call.join(5)
        problems = []
        if call.is_alive():
            problems.append("the call hung: no answer 5 s after the kill")
            self.admin_sql("SELECT pg_cancel_backend(%s)", backend)
            call.join(5)
            self.report(label, problems)
            return
        ms = (call.ended - killed) * 1000
        if call.error is None:
            problems.append("the call returned %r" % (call.result,))
        elif want and call.error.pgcode != want:
            problems.append("got %s, expected %s" % (call.outcome(), want))
        elif call.error.pgcode == "57014":
            problems.append("it ended by a timeout, not because of the kill: %s" % call.outcome())
        # The child dies at once (SIGKILL, or the parent-death signal when the
        # worker is killed).  An orphaned child is reaped by init, which may
        # take a while on some hosts: that is reported, and bounded by 5 s.
        if wait_for(lambda: not alive(child), GONE_BOUND_S) is None:
            problems.append("the sandbox child %d is still running %.1f s after the kill"
                            % (child, GONE_BOUND_S))
        reaped = wait_for(lambda: not exists(child), 5.0)
        if reaped is None:
            problems.append("the sandbox child %d was not reaped within 5 s: %s"
                            % (child, read_stat(child)))
        if which == "worker":
            problems += self.gone_within([worker], GONE_BOUND_S, "old worker")[0]
            # the server log says what became of it (review 117 F4: the
            # hint said the log may say why, and it said nothing)
            said = "this session's worker process %d was killed by signal 9" % worker
            if wait_for(lambda: said in open(LOG_PATH, errors="replace").read(), 5.0) is None:
                problems.append("the server log does not say: %s" % said)
        table = process_table()
        zombies = [p for p in descendants(table, backend) if table[p][1] == "Z"]
        if zombies:
            problems.append("zombies under the backend: %s" % zombies)
        try:
            if execute(conn, "def main():\n    return 3\n") != {"main": 3}:
                problems.append("the next call returned a wrong result")
        except psycopg2.Error as exc:
            problems.append("the next call failed: %s" % str(exc).strip())
        new_worker = worker_of(backend)[0]
        if which == "worker" and new_worker in (None, worker):
            problems.append("no new worker after the old one was killed")
        if which == "child" and new_worker != worker:
            problems.append("the worker was replaced (%s -> %s)" % (worker, new_worker))
        try:
            conn.cursor().execute("SELECT 1")
        except psycopg2.Error as exc:
            problems.append("the session is gone: %s" % exc)
        conn.close()
        self.report(label, problems, "%s after %.0f ms; child reaped after %s; "
                    "next call ok on worker %s" % (
                        call.outcome()[:70], ms,
                        "%.0f ms" % (reaped * 1000) if reaped is not None else "-",
                        new_worker))

    # -- (g) ---------------------------------------------------------------
    def check_many_calls(self, n):
        conn = connect()
        backend = conn.get_backend_pid()
        notices = []
        conn.notices = notices
        kinds = [
            ("success", "import pandas as pd\ndef main(x=3):\n"
                        "    return int(pd.Series(range(x)).sum())\n", {}, None, None),
            ("exception", "def main():\n    return 1 / 0\n", {}, None, "38000"),
            ("timeout", LOOP, {"timeout_ms": 50}, None, "57014"),
            ("memory", "def main():\n    return len('x' * 10**10)\n",
             {"memory_mb": 64}, None, "53200"),
            ("table input", "def main(t):\n    print(len(t))\n    return int(t['x'].sum())\n",
             {}, {"t": {"$query": "SELECT g AS x FROM generate_series(1, 1000) g"}}, None),
            ("cancel", LOOP, {"timeout_ms": 10000}, None, "57014"),
            ("list bomb", "def main():\n    x = []\n    while True:\n"
                          "        x.append(' ' * 100000)\n", {"memory_mb": 16}, None, "53200"),
            # a segfault in native code (the Python layer is off for this call)
            ("crash", "import ctypes\ndef main():\n    return ctypes.string_at(0)\n",
             {}, None, "39000"),
            # a LANGUAGE pysandbox function for 25 rows (one held child), and
            # one that fails at its 10th row
            ("per row", "SELECT sum(lifecycle_soak_row(i, 0)) FROM generate_series(1, 25) i",
             {}, None, None),
            ("per row error", "SELECT sum(lifecycle_soak_row(i, 10)) FROM generate_series(1, 25) i",
             {}, None, "38000"),
        ]
        self.admin_sql("CREATE OR REPLACE FUNCTION lifecycle_soak_row(i integer, bad integer) "
                       "RETURNS integer LANGUAGE pysandbox AS %s",
                       "SD['n'] = SD.get('n', 0) + 1\nif i == bad:\n    raise ValueError(i)\n"
                       "return SD['n']")
        counts = {k[0]: 0 for k in kinds}
        problems = []
        first_fds = first_rss = None
        start = time.monotonic()
        for i in range(n):
            name, code, options, inputs, want = kinds[i % len(kinds)]
            del notices[:]
            if name == "cancel":
                before = set(worker_of(backend)[1])
                call = Call(conn, code, options, inputs)
                call.start()
                if wait_running(backend, settle=0.01, exclude=before)[1] is None:
                    problems.append("call %d (cancel): no sandbox child" % i)
                cancelled = time.monotonic()
                self.admin_sql("SELECT pg_cancel_backend(%s)", backend)
                call.join(10)
                got = call.error.pgcode if call.error else None
                took = time.monotonic() - cancelled
                if took > 1.0:
                    problems.append("call %d (cancel): ended %.1f s after the cancel" % (i, took))
            elif name.startswith("per row"):
                try:
                    c = conn.cursor()
                    c.execute(code)
                    total = c.fetchone()[0]
                    got = None
                    if total != 25 * 26 // 2:
                        problems.append("call %d (per row): sum %r" % (i, total))
                except psycopg2.Error as exc:
                    got = exc.pgcode
            else:
                if name == "crash":
                    conn.cursor().execute("SET pysandbox.python_layer = off")
                try:
                    execute(conn, code, options, inputs)
                    got = None
                except psycopg2.Error as exc:
                    got = exc.pgcode
                if name == "crash":
                    conn.cursor().execute("RESET pysandbox.python_layer")
            if got != want:
                problems.append("call %d (%s): got %s, expected %s" % (i, name, got, want))
            counts[name] += 1
            # Baseline after one call of every kind: PostgreSQL's own file
            # cache keeps catalog files open after their first use.
            if i == len(kinds) - 1:
                first_fds, first_rss = fd_count(backend), rss_kb(backend)
        elapsed = time.monotonic() - start
        table = process_table()
        workers = [p for p in children(table, backend) if exe_of(p) == WORKER_EXE]
        spares = [p for p in descendants(table, backend) if p not in workers and is_spare(p)]
        mine = [p for p in descendants(table, backend) if p not in spares]
        if len(workers) != 1 or len(mine) != 1 or len(spares) > 1:
            problems.append("backend descendants after the run: %s (expected one worker "
                            "and at most one spare)"
                            % [(p, table[p][0], table[p][1]) for p in descendants(table, backend)])
        fds, rss = fd_count(backend), rss_kb(backend)
        if fds != first_fds:
            problems.append("backend fds: %d after the first round, %d at the end"
                            % (first_fds, fds))
        if rss - first_rss > RSS_GROWTH_BOUND_KB:
            problems.append("backend RSS grew by %d kB (bound %d kB)"
                            % (rss - first_rss, RSS_GROWTH_BOUND_KB))
        conn.close()
        self.admin_sql("DROP FUNCTION lifecycle_soak_row(integer, integer)")
        self.report("(g) %d mixed calls" % n, problems[:10] + (
            ["... %d more" % (len(problems) - 10)] if len(problems) > 10 else []),
            "in %.1f s; fds %d -> %d; RSS %d -> %d kB (%+d kB); %s" % (
                elapsed, first_fds, fds, first_rss, rss, rss - first_rss,
                ", ".join("%s %d" % kv for kv in counts.items())))

    # -- (l) ---------------------------------------------------------------
    def check_idle_timeout_race(self, tries=40):
        """(l) Review 122 F1: a workspace call that begins just as the
        worker ends the workspace's child at pysandbox.workspace_idle_timeout
        (the kill sent, the exit not yet reported) is told that the
        workspace ended and why (55000, kind "input" in sandbox_run's
        report), as a call that finds it ended is, not that its process
        crashed (39000 "killed by signal 9").  The second call of each try
        begins around the timeout: some find the child waiting, some ended,
        some ending."""
        conn = connect()
        cur = conn.cursor()
        cur.execute("SET pysandbox.workspace_idle_timeout = 200")
        problems = []
        counts = {"ok": 0, "ended": 0}
        for i in range(tries):
            cur.execute("SELECT sandbox_workspace_open()")
            handle = cur.fetchone()[0]
            options = psycopg2.extras.Json({"workspace": handle})
            cur.execute("SELECT sandbox_execute('def main(ws):\n    ws[\"n\"] = 1\n    return 1', "
                        "'{}', '{main}', %s)", (options,))
            time.sleep(0.194 + 0.001 * (i % 12))
            code = "def main(ws):\n    return ws[\"n\"]\n"
            try:
                if i % 2 == 0:
                    cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)", (code, options))
                    counts["ok"] += 1
                    continue
                cur.execute("SELECT sandbox_run(%s, '{}', '{main}', %s)", (code, options))
                report = cur.fetchone()[0]
                if report["ok"]:
                    counts["ok"] += 1
                    continue
                error = report["error"]
                said = (error["sqlstate"], error["kind"], error["message"], error.get("detail") or "")
            except psycopg2.Error as exc:
                said = (exc.pgcode, "-", exc.diag.message_primary, exc.diag.message_detail or "")
            if (said[0] == "55000" and said[1] in ("input", "-")
                    and said[2] == 'workspace "%s" has ended' % handle
                    and "workspace_idle_timeout" in said[3]):
                counts["ended"] += 1
            else:
                problems.append("try %d: %s" % (i, " | ".join(said)))
        conn.close()
        self.report("(l) a workspace call racing its idle timeout says it ended (55000)",
                    problems[:5], "%d answered, %d ended" % (counts["ok"], counts["ended"]))

    # -- (h) ---------------------------------------------------------------
    def check_preload_change(self):
        """(k) Review 120 F4: without preloading, a session's worker reads
        pysandbox.preload_modules at the session's first call; a change made
        after it (here the superuser's SET) takes effect in a new session,
        which sandbox_layers() and the error of an import of a module not
        preloaded say (they only advised adding it).  A new session that
        sets it before its first call imports the module.  With preloading
        the fork server's worker reads it at server start: forkserver.py
        (l) checks that."""
        conn = connect()
        cur = conn.cursor()
        cur.execute("SHOW shared_preload_libraries")
        if "pysandbox" in cur.fetchone()[0]:
            conn.close()
            return
        problems = []
        allowed = "SET pysandbox.allowed_modules = 'math, numpy, pandas, scipy'"
        cur.execute(allowed)
        execute(conn, "def main():\n    return 1\n")
        cur.execute("SET pysandbox.preload_modules = 'scipy'")
        cur.execute("SELECT detail FROM sandbox_layers() WHERE layer = 'preload'")
        detail = cur.fetchone()[0]
        if "takes effect in a new session" not in detail:
            problems.append("sandbox_layers(): %s" % detail)
        for layer in ("on", "off"):
            cur.execute("SET pysandbox.python_layer = %s" % layer)
            try:
                execute(conn, "import scipy.stats\ndef main():\n    return 1\n")
                problems.append("layer %s: scipy.stats imported" % layer)
            except psycopg2.Error as exc:
                said = "%s %s" % (exc.diag.message_primary, exc.diag.message_hint)
                if "a change to it made already takes effect in a new session" not in said:
                    problems.append("layer %s: %s" % (layer, said))
        conn.close()
        fresh = connect()
        cur = fresh.cursor()
        cur.execute(allowed)
        cur.execute("SET pysandbox.preload_modules = 'scipy'")
        try:
            got = execute(fresh, "import scipy\ndef main():\n    return scipy.pi\n")
            if got != {"main": 3.141592653589793}:
                problems.append("a new session: %r" % (got,))
        except psycopg2.Error as exc:
            problems.append("a new session could not import scipy: %s" % exc.diag.message_primary)
        # its worker preloaded scipy (plain "import scipy" works without:
        # review 121 F2), and nothing is pending
        cur.execute("SELECT detail FROM sandbox_layers() WHERE layer = 'preload'")
        detail = cur.fetchone()[0]
        if "takes effect" in detail or "; scipy too" not in detail:
            problems.append("a new session's sandbox_layers(): %s" % detail)
        # the same modules written otherwise are no change (review 121 F3)
        cur.execute("SET pysandbox.preload_modules = ' scipy , scipy'")
        cur.execute("SELECT detail FROM sandbox_layers() WHERE layer = 'preload'")
        detail = cur.fetchone()[0]
        if "takes effect" in detail:
            problems.append("the same modules respelled: %s" % detail)
        fresh.close()
        self.report("(k) a changed preload_modules takes effect in a new session, and says so",
                    problems)

    def check_postmaster(self):
        problems = []
        try:
            now = postmaster_pid()
        except OSError:
            now = None
        if now != self.postmaster or not alive(self.postmaster):
            problems.append("the postmaster restarted (%d -> %s)" % (self.postmaster, now))
        try:
            with open(LOG_PATH, "rb") as f:
                f.seek(self.log_offset)
                log = f.read().decode("utf-8", "replace")
        except OSError:
            log = ""
        problems += ["server log: " + line.strip()[:200]
                     for line in log.splitlines() if CRASH_LOG.search(line)]
        self.report("(i) postmaster", problems, "pid %d unchanged, no crash in the log"
                    % self.postmaster if not problems else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("lifecycle: run as root (it reads /proc and signals postgres processes)")
        return 2
    start = time.monotonic()
    try:
        suite = Suite()
    except psycopg2.OperationalError as exc:
        print("lifecycle: cannot connect (is the test cluster running?): %s" % exc)
        print("lifecycle: 0 passed, 1 failed")
        return 1
    suite.check_cancel()
    suite.check_statement_timeout()
    suite.check_terminate()
    suite.client_dies("100ms", GONE_BOUND_S, 10000,
                      "(d) client killed mid-call (check 100ms)")
    suite.client_dies(None, 2.0 + GONE_BOUND_S, 2000,
                      "(d) client killed mid-call (defaults)")
    suite.kill_mid_call("worker", "(e) SIGKILL the worker mid-call", None)
    suite.kill_mid_call("child", "(f) SIGKILL the sandbox child mid-call", "39000")
    suite.check_language_per_row()
    suite.check_many_calls(args.calls)
    suite.check_preload_change()
    suite.check_idle_timeout_race()
    suite.check_postmaster()
    print("lifecycle: finished in %.1f s" % (time.monotonic() - start))
    print("lifecycle: %d passed, %d failed" % (suite.passed, suite.failed))
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
