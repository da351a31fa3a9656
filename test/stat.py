#!/usr/bin/python3
"""What a DBA sees: pysandbox_stat, pysandbox_activity, pysandbox_stat_reset
and the audit lines of pysandbox.log_calls (README, "Monitoring").

    /usr/bin/python3 test/stat.py

Runs against the test cluster (PGHOST/PGPORT/PGUSER, its server log in
$PYSANDBOX_TEST_DIR/log).  Without pysandbox in shared_preload_libraries it
checks the views' error and the audit lines; with it, exact counts per
outcome kind, the usage columns, who sees which rows, 8 concurrent clients
adding up, the calls in flight, and eviction at pysandbox.stat_max.
Prints one line per check and "stat: N passed, M failed".
"""

import os
import re
import sys
import threading
import time

import psycopg2

LOG = os.path.join(os.environ.get("PYSANDBOX_TEST_DIR", "/tmp/pysandbox-test"), "log")
ROLES = ("regress_stat_alice", "regress_stat_bob", "regress_stat_watcher")

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


def rows(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def error(conn, sql, args=None):
    """(sqlstate, message) of a statement that must fail."""
    try:
        one(conn, sql, args)
    except psycopg2.Error as e:
        return e.pgcode, e.diag.message_primary
    return None, None


def stat_of(conn, code):
    """The pysandbox_stat row of this code (as a dict), or None."""
    with conn.cursor() as cur:
        cur.execute("SELECT * FROM pysandbox_stat WHERE code = left(%s, 200) "
                    "AND userid = current_user::regrole", (code,))
        got = cur.fetchall()
        if not got:
            return None
        return dict(zip([d.name for d in cur.description], got[0]))


def log_size():
    try:
        return os.path.getsize(LOG)
    except OSError:
        return 0


def log_since(offset, pattern, wait=5.0):
    """Lines of the server log written after offset that match pattern."""
    deadline = time.time() + wait
    while True:
        with open(LOG, errors="replace") as f:
            f.seek(offset)
            text = f.read()
        found = [l for l in text.splitlines() if re.search(pattern, l)]
        if found or time.time() > deadline:
            return found, text
        time.sleep(0.1)


def audit_lines(su, preloaded):
    """pysandbox.log_calls and log_code: one line per call, with its code."""
    one(su, "SET pysandbox.log_calls = 'all'")
    one(su, "SET pysandbox.log_code = on")
    code = "def main():\n    return 'audit-%d'\n" % os.getpid()
    start = log_size()
    one(su, "SET client_min_messages = log")
    del su.notices[:]
    one(su, "SELECT sandbox_execute(%s)", (code,))
    to_client = [n for n in su.notices if "pysandbox call" in n]
    one(su, "RESET client_min_messages")
    found, text = log_since(start, r"pysandbox call: role=postgres session_role=postgres database=postgres "
                                   r"code_id=\d+ function=0 outcome=ok sqlstate=00000 "
                                   r"wall_ms=[\d.]+ cpu_ms=[\d.]+ peak_memory_kb=[1-9]\d* "
                                   r"input_rows=0 input_bytes=0 output_bytes=\d+")
    check(len(found) == 1, "log_calls = all: one line for a successful call, with its usage", text[-800:])
    check("audit-%d" % os.getpid() in text, "log_code = on: the code follows the line", text[-800:])
    check(not to_client, "the line goes to the server log only, even with client_min_messages = log",
          to_client)
    # options.verify runs in the child as code does (any statements): the
    # log and the view name it with the code (review 103: only the code)
    verify = "print('verify-%d')\nassert result['main']\n" % os.getpid()
    start = log_size()
    one(su, "SELECT sandbox_execute(%s, '{}', '{main}', jsonb_build_object('verify', %s::text))",
        (code, verify))
    found, text = log_since(start, r"pysandbox call: role=postgres .* outcome=ok")
    audited = code + "\n# options.verify:\n" + verify
    check(len(found) == 1 and ("\t" + audited.rstrip("\n").replace("\n", "\n\t")) in text,
          "log_code = on: options.verify follows the code", text[-800:])
    if preloaded:
        s = stat_of(su, audited)
        check(s is not None and s["code"] == audited[:200] and
              s["code_id"] != stat_of(su, code)["code_id"],
              "pysandbox_stat: the code with its verify, under an id of its own", s)
    # a function called for every row gives its code once per statement,
    # not on every row's line (review 117 F2: 99 MB of log from 1000 rows)
    one(su, "CREATE OR REPLACE FUNCTION pg_temp.audit_rows(i int) RETURNS int "
            "LANGUAGE pysandbox AS $$ return i + 1  # rows-%d $$" % os.getpid())
    start = log_size()
    one(su, "SELECT sum(pg_temp.audit_rows(i)) FROM generate_series(1, 20) i")
    one(su, "SELECT sum(pg_temp.audit_rows(i)) FROM generate_series(1, 3) i")
    found, text = log_since(start, r"pysandbox call: role=postgres .* outcome=ok")
    check(len(found) == 23 and text.count("rows-%d" % os.getpid()) == 2 and
          text.count("code: as on an earlier line with code_id") == 21,
          "log_code = on: a function's code once per statement, a line per row",
          (len(found), text.count("rows-%d" % os.getpid()), text[-600:]))
    # sql()'s rows count in input_rows, streamed ones too, and so do the
    # row groups of a streamed answer sent before the call's limit cut it
    # short (review 120 F1: the rows a child received all count)
    one(su, "SET pysandbox.log_code = off")
    one(su, "SET pysandbox.python_layer = off")
    # after SET ROLE the layer is what a login as the role gets (review 144)
    one(su, "ALTER ROLE %s SET pysandbox.python_layer = off" % ROLES[0])
    one(su, "SET ROLE %s" % ROLES[0])
    start = log_size()
    one(su, "SELECT sandbox_execute(%s)",
        ("def main():\n    return len(sql('SELECT x FROM generate_series(1, 300000) x'))\n",))
    torn = ("import sb_io, time\n"
            "def main():\n"
            "    sb_io.send(sb_io.SQL, b'{\"query\": \"SELECT repeat(\\'x\\', 100) || x AS s "
            "FROM generate_series(1, 2000000) x\", \"params\": []}')\n"
            "    for _ in range(30):\n"
            "        sb_io.recv()\n"
            "    time.sleep(60)\n")
    err = error(su, "SELECT sandbox_execute(%s, '{}', '{main}', '{\"timeout_ms\": 1500}')", (torn,))
    one(su, "RESET ROLE")
    one(su, "ALTER ROLE %s RESET pysandbox.python_layer" % ROLES[0])
    one(su, "RESET pysandbox.python_layer")
    one(su, "SET pysandbox.log_code = on")
    found, text = log_since(start, r"pysandbox call: .* outcome=(\w+) .* input_rows=(\d+) input_bytes=(\d+)")
    torn_rows = [int(m) for m in re.findall(r"input_rows=(\d+) ", found[1])] if len(found) == 2 else []
    check(err[0] == "57014" and [f.split(" outcome=")[1].split(" ")[0] for f in found] == ["ok", "timeout"] and
          "input_rows=300000 " in found[0] and torn_rows and torn_rows[0] >= 16384,
          "sql()'s streamed rows count in input_rows, a streamed answer cut short its rows sent",
          (err, found, text[-800:]))
    start = log_size()
    one(su, "SET pysandbox.log_calls = 'errors'")
    one(su, "SELECT sandbox_execute(%s)", (code,))
    err = error(su, "SELECT sandbox_execute('def main(): return 1/0')")
    found, text = log_since(start, r"pysandbox call: .* outcome=(\w+) sqlstate=(\w+)")
    check(err[0] == "38000" and len(found) == 1 and "outcome=exception sqlstate=38000" in found[0],
          "log_calls = errors: only the failing call, with its kind and SQLSTATE", text[-800:])
    start = log_size()
    one(su, "SET pysandbox.log_calls = 'off'")
    error(su, "SELECT sandbox_execute('def main(): return 1/0')")
    one(su, "SELECT 1")
    found, _ = log_since(start, r"pysandbox call:", wait=0.5)
    check(not found, "log_calls = off: no line")
    one(su, "RESET pysandbox.log_calls")
    one(su, "RESET pysandbox.log_code")
    alice = connect(ROLES[0])
    one(alice, "SELECT sandbox_execute('def main(): return 1')")    # the library is loaded
    check(error(alice, "SET pysandbox.log_calls = 'off'")[0] == "42501",
          "log_calls is for superusers only (42501 for another role)")
    alice.close()
    # a role's stored log_calls applies after SET ROLE too, where it logs more
    one(su, "ALTER ROLE %s SET pysandbox.log_calls = 'all'" % ROLES[1])
    try:
        start = log_size()
        one(su, "SELECT sandbox_execute('def main(): return 1')")
        one(su, "SET ROLE %s" % ROLES[1])
        one(su, "SELECT sandbox_execute('def main(): return 2')")
        one(su, "RESET ROLE")
        found, text = log_since(start, r"pysandbox call: role=\w+ session_role=\w+ ")
        check(len(found) == 1 and ("role=%s session_role=postgres " % ROLES[1]) in found[0],
              "after SET ROLE, the role's stored log_calls = all logs its call, and only its",
              text[-800:])
    finally:
        one(su, "RESET ROLE")
        one(su, "ALTER ROLE %s RESET pysandbox.log_calls" % ROLES[1])


def counts(su):
    """Each outcome kind, exact; usage; language functions per row."""
    one(su, "SELECT pysandbox_stat_reset()")
    tag = "# %d\n" % os.getpid()
    ok = tag + "def main():\n    return 41 + 1\n"
    for _ in range(3):
        one(su, "SELECT sandbox_execute(%s)", (ok,))
    s = stat_of(su, ok)
    check(s is not None and s["calls"] == 3 and s["ok"] == 3 and s["exception"] == 0,
          "three calls of one code: one row, calls 3, ok 3", s)
    check(s is not None and s["funcoid"] is None and s["code_id"] > 0 and
          s["mean_wall_ms"] > 0 and s["total_wall_ms"] >= s["max_wall_ms"] > 0 and
          s["max_peak_memory_kb"] > 10000 and s["bytes_out"] == 3 * len('{"main":42}'),
          "usage: wall time, peak memory of the child, bytes out", s)
    other = connect()
    one(other, "SELECT sandbox_execute(%s)", (ok,))
    other.close()
    s2 = stat_of(su, ok)
    check(s2 is not None and s2["calls"] == 4 and s2["code_id"] == s["code_id"],
          "another session, the same code: the same code id, counted in the same row", s2)

    burn = tag + "def main():\n    x = 0\n    for i in range(3000000):\n        x += i\n    return x\n"
    one(su, "SELECT sandbox_execute(%s)", (burn,))
    s = stat_of(su, burn)
    check(s is not None and s["total_cpu_ms"] >= 50 and s["total_cpu_ms"] <= s["total_wall_ms"] * 1.5 + 20,
          "CPU time is the call's own (a 3M-iteration loop), not n/a nor the spare's setup", s)
    usage = one(su, "SELECT sandbox_run(%s)->'usage'", (burn,))
    check(usage["cpu_ms"] >= 50, "sandbox_run's usage (the worker's exit report) counts the call's CPU time",
          usage)
    big = tag + "def main():\n    b = bytearray(150 * 1024 * 1024)\n    return len(b)\n"
    one(su, "SELECT sandbox_execute(%s, '{}', '{main}', '{\"memory_mb\": 512}')", (big,))
    s = stat_of(su, big)
    check(s is not None and s["max_peak_memory_kb"] >= 150 * 1024,
          "peak memory counts a 150 MB allocation", s)

    cases = [
        ("exception", "38000", tag + "def main():\n    return 1 / 0\n", "'{}'"),
        ("validation", "42501", tag + "import os\ndef main():\n    return 1\n", "'{}'"),
        ("timeout", "57014", tag + "def main():\n    while True:\n        pass\n",
         "'{\"timeout_ms\": 300}'"),
        ("output", "54000", tag + "def main():\n    return 'x' * 100000\n",
         "'{\"max_output_bytes\": 1024}'"),
        ("input", "42P01", tag + "def main(df):\n    return 1\n", None),
    ]
    for kind, state, code, opts in cases:
        if kind == "input":
            got = error(su, "SELECT sandbox_execute(%s, '{\"df\": {\"$table\": \"regress_no_such_table\"}}')",
                        (code,))
        else:
            got = error(su, "SELECT sandbox_execute(%%s, '{}', '{main}', %s)" % opts, (code,))
        s = stat_of(su, code)
        check(got[0] == state and s is not None and s["calls"] == 1 and s[kind] == 1 and s["ok"] == 0,
              "a failed call (%s, %s) counts as %s" % (state, got[1], kind), (got, s))

    run = tag + "def main():\n    raise ValueError('reported')\n"
    report = one(su, "SELECT sandbox_run(%s)", (run,))
    s = stat_of(su, run)
    check(report["error"]["kind"] == "exception" and s is not None and s["exception"] == 1 and s["ok"] == 0,
          "sandbox_run's failure report counts as its kind, though the statement succeeded", s)

    # options.group_by: one call, however many groups (and processes)
    grouped = tag + "def main(df):\n    return int(df.g.sum())\n"
    got = one(su, "SELECT sandbox_execute(%s, '{\"df\": {\"$query\": \"SELECT g %% 4 AS k, g "
                  "FROM generate_series(1, 100) g\"}}', '{main}', '{\"group_by\": \"k\"}')", (grouped,))
    s = stat_of(su, grouped)
    check(got == {"main": {"0": 1300, "1": 1225, "2": 1250, "3": 1275}} and s is not None and
          s["calls"] == 1 and s["ok"] == 1 and s["rows_in"] == 100 and s["total_cpu_ms"] > 0 and
          s["max_peak_memory_kb"] > 10000,
          "a call with group_by (4 groups, 4 processes) counts once, with all groups' rows and usage",
          (got, s))

    one(su, "DROP FUNCTION IF EXISTS regress_stat_double(int)")
    one(su, "CREATE FUNCTION regress_stat_double(x int) RETURNS int LANGUAGE pysandbox "
            "AS $$return x * 2  # stat$$")
    one(su, "SELECT sum(regress_stat_double(g)) FROM generate_series(1, 25) g")
    fn = rows(su, "SELECT calls, ok, funcoid = 'regress_stat_double'::regproc, code "
                  "FROM pysandbox_stat WHERE funcoid = 'regress_stat_double'::regproc")
    check(fn == [(25, 25, True, "return x * 2  # stat")],
          "a language function: one call per row, its oid and body", fn)
    one(su, "DROP FUNCTION regress_stat_double(int)")


def visibility(su):
    """Other roles' rows: superusers and pg_read_all_stats only; reset: not PUBLIC."""
    one(su, "SELECT pysandbox_stat_reset()")
    mine = {}
    for r in ROLES[:2]:
        conn = connect(r)
        code = "def main():\n    return '%s'\n" % r
        one(conn, "SELECT sandbox_execute(%s)", (code,))
        mine[r] = code
        conn.close()
    alice = connect(ROLES[0])
    seen = rows(alice, "SELECT userid::regrole::text, calls FROM pysandbox_stat ORDER BY 1")
    check(seen == [(ROLES[0], 1)], "a role sees only its own rows", seen)
    act = error(alice, "SELECT pysandbox_stat_reset()")
    check(act[0] == "42501", "pysandbox_stat_reset is not granted to PUBLIC", act)
    alice.close()
    watcher = connect(ROLES[2])
    seen = rows(watcher, "SELECT userid::regrole::text, calls FROM pysandbox_stat ORDER BY 1")
    check(seen == [(ROLES[0], 1), (ROLES[1], 1)], "pg_read_all_stats sees every role's rows", seen)
    watcher.close()


def concurrent(su):
    """8 clients x 1,000 calls of a language function, and 8 x 40 sandbox_execute."""
    one(su, "SELECT pysandbox_stat_reset()")
    one(su, "DROP FUNCTION IF EXISTS regress_stat_inc(int)")
    one(su, "CREATE FUNCTION regress_stat_inc(x int) RETURNS int LANGUAGE pysandbox "
            "AS $$return x + 1$$")
    code = "def main(x):\n    return x\n"
    errors = []

    def client(n):
        try:
            conn = connect()
            got = one(conn, "SELECT sum(regress_stat_inc(g)) FROM generate_series(1, 1000) g")
            if got != 500500 + 1000:
                errors.append("client %d: sum %s" % (n, got))
            for i in range(40):
                one(conn, "SELECT sandbox_execute(%s, %s::jsonb)", (code, '{"x": %d}' % i))
            conn.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append("client %d: %s" % (n, e))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = rows(su, "SELECT calls, ok FROM pysandbox_stat WHERE funcoid = 'regress_stat_inc'::regproc")
    check(not errors and got == [(8000, 8000)], "8 clients x 1,000 per-row calls add up to 8,000",
          (errors[:3], got))
    s = stat_of(su, code)
    check(s is not None and s["calls"] == 320 and s["ok"] == 320 and s["max_peak_memory_kb"] > 10000,
          "8 clients x 40 sandbox_execute calls add up to 320", s)
    one(su, "DROP FUNCTION regress_stat_inc(int)")


def activity(su):
    """A call in flight shows in pysandbox_activity, with its child and CPU so far."""
    code = "def main():\n    x = 0\n    for i in range(400000000):\n        x += i\n    return x\n"
    runner = connect()
    pid = one(runner, "SELECT pg_backend_pid()")
    done = threading.Event()

    def run():
        error(runner, "SELECT sandbox_execute(%s, '{}', '{main}', '{\"timeout_ms\": 4000}')", (code,))
        done.set()

    t = threading.Thread(target=run)
    t.start()
    seen = []
    deadline = time.time() + 3
    while time.time() < deadline and not seen:
        time.sleep(0.3)
        seen = rows(su, "SELECT pid, child_pid, cpu_ms, started <= now(), code_id "
                        "FROM pysandbox_activity WHERE pid = %s", (pid,))
        if seen and seen[0][2] is not None and seen[0][2] < 100:
            seen = []           # not far enough yet
    check(len(seen) == 1 and seen[0][1] is not None and seen[0][1] > 0 and seen[0][2] >= 100
          and seen[0][3], "a running call: its backend, child pid and CPU so far", seen)
    bob = connect(ROLES[1])
    check(rows(bob, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,)) == [(0,)],
          "another role does not see it")
    bob.close()
    one(su, "SELECT pg_cancel_backend(%s)", (pid,))
    done.wait(10)
    t.join()
    left = rows(su, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,))
    check(left == [(0,)], "after the call ends (canceled): gone", left)
    runner.close()

    # a backend terminated mid-call (FATAL: no error path runs) leaves no row
    runner = connect()
    pid = one(runner, "SELECT pg_backend_pid()")
    t = threading.Thread(target=lambda: error(runner, "SELECT sandbox_execute(%s, '{}', '{main}', "
                                                      "'{\"timeout_ms\": 4000}')", (code,)))
    t.start()
    deadline = time.time() + 3
    while time.time() < deadline and not rows(su, "SELECT 1 FROM pysandbox_activity WHERE pid = %s", (pid,)):
        time.sleep(0.1)
    one(su, "SELECT pg_terminate_backend(%s)", (pid,))
    t.join(10)
    deadline = time.time() + 3
    while time.time() < deadline and rows(su, "SELECT 1 FROM pysandbox_activity WHERE pid = %s", (pid,)):
        time.sleep(0.1)
    left = rows(su, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,))
    check(left == [(0,)], "a backend terminated mid-call leaves no row", left)

    # a call that only sleeps: its cpu_ms is its own, not its spare's setup
    # of 50-80 ms (review 109 F4)
    runner = connect()
    pid = one(runner, "SELECT pg_backend_pid()")
    sleeper = "import time\ndef main():\n    time.sleep(1.5)\n    return %d\n" % os.getpid()
    t = threading.Thread(target=lambda: one(runner, "SELECT sandbox_execute(%s)", (sleeper,)))
    t.start()
    seen = []
    deadline = time.time() + 3
    while time.time() < deadline and not seen:
        time.sleep(0.2)
        seen = rows(su, "SELECT cpu_ms, state, state_change = started FROM pysandbox_activity "
                        "WHERE pid = %s AND child_pid IS NOT NULL", (pid,))
    t.join(10)
    whole = one(su, "SELECT total_cpu_ms FROM pysandbox_stat WHERE code = %s", (sleeper,))
    check(len(seen) == 1 and whole is not None and seen[0][0] <= whole + 1
          and seen[0][1:] == ("running", True),
          "a sleeping call's cpu_ms is at most the whole call's in pysandbox_stat; state running",
          (seen, whole))
    runner.close()


def held(su):
    """Children held idle between calls hold slots: pysandbox_activity shows them
    with their last call (review 109 F3)."""
    alice = connect(ROLES[0])
    pid = one(alice, "SELECT pg_backend_pid()")
    ws = one(alice, "SELECT sandbox_workspace_open()")
    one(alice, "SELECT sandbox_execute(%s, '{}', '{main}', %s)",
        ("def main(ws):\n    ws['x'] = sum(range(3000000))\n    return 1\n",
         '{"workspace": "%s"}' % ws))
    got = rows(su, "SELECT userid::regrole::text, child_pid > 0, cpu_ms > 0, state, "
                   "state_change >= started, funcoid FROM pysandbox_activity WHERE pid = %s", (pid,))
    check(got == [(ROLES[0], True, True, "idle in workspace", True, None)],
          "an idle workspace: its backend, role, child and last call", got)
    check(rows(alice, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,)) == [(1,)],
          "its role sees it")
    bob = connect(ROLES[1])
    check(rows(bob, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,)) == [(0,)],
          "another role does not see it")
    one(alice, "SELECT sandbox_workspace_close(%s)", (ws,))
    left = rows(su, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,))
    check(left == [(0,)], "a closed workspace: gone", left)

    # a statement's LANGUAGE pysandbox child between two fetches of a cursor
    one(su, "CREATE OR REPLACE FUNCTION regress_stat_f(i int) RETURNS int "
            "LANGUAGE pysandbox AS 'return i * 2'")
    one(su, "GRANT EXECUTE ON FUNCTION regress_stat_f(int) TO PUBLIC")
    alice.autocommit = False
    with alice.cursor() as cur:
        cur.execute("DECLARE c CURSOR FOR SELECT regress_stat_f(i) FROM generate_series(1, 10) i")
        cur.execute("FETCH 3 FROM c")
        fetched = [r[0] for r in cur.fetchall()]
        got = rows(su, "SELECT funcoid::regproc::text, state, child_pid > 0 FROM pysandbox_activity "
                       "WHERE pid = %s", (pid,))
        check(fetched == [2, 4, 6] and got == [("regress_stat_f", "idle in statement", True)],
              "a cursor's function child between fetches", (fetched, got))
    alice.commit()
    left = rows(su, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,))
    check(left == [(0,)], "the statement's end: gone", left)
    alice.autocommit = True

    # a backend that ends with an idle workspace leaves no row
    ws = one(alice, "SELECT sandbox_workspace_open()")
    one(alice, "SELECT sandbox_execute('def main(ws):\n    return 1\n', '{}', '{main}', %s)",
        ('{"workspace": "%s"}' % ws,))
    check(rows(su, "SELECT state FROM pysandbox_activity WHERE pid = %s", (pid,)) == [("idle in workspace",)],
          "a second workspace shows")
    one(su, "SELECT pg_terminate_backend(%s)", (pid,))
    deadline = time.time() + 3
    while time.time() < deadline and rows(su, "SELECT 1 FROM pysandbox_activity WHERE pid = %s", (pid,)):
        time.sleep(0.1)
    left = rows(su, "SELECT count(*) FROM pysandbox_activity WHERE pid = %s", (pid,))
    check(left == [(0,)], "a backend terminated with an idle workspace leaves no row", left)
    one(su, "DROP FUNCTION regress_stat_f(int)")


def eviction(su):
    """Past pysandbox.stat_max entries, the least called go first."""
    limit = int(one(su, "SHOW pysandbox.stat_max"))
    one(su, "SELECT pysandbox_stat_reset()")
    keep = "def main():\n    return 'kept'\n"
    for _ in range(3):
        one(su, "SELECT sandbox_execute(%s)", (keep,))
    errors = []

    def fill(part):
        try:
            conn = connect()
            for i in range(part, limit + 20, 2):
                one(conn, "SELECT sandbox_execute(%s)", ("def main():\n    return %d\n" % i,))
            conn.close()
        except Exception as e:  # noqa: BLE001
            errors.append(str(e))

    threads = [threading.Thread(target=fill, args=(p,)) for p in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = one(su, "SELECT count(*) FROM pysandbox_stat")
    s = stat_of(su, keep)
    check(not errors and n <= limit and s is not None and s["calls"] == 3,
          "%d distinct codes into %d entries: at most %d, the most called kept" % (limit + 21, limit, limit),
          (errors[:2], n, s))


def main():
    su = connect()
    one(su, "CREATE EXTENSION IF NOT EXISTS pysandbox")
    preloaded = "pysandbox" in one(su, "SHOW shared_preload_libraries")
    for r in ROLES:
        one(su, "DROP ROLE IF EXISTS %s" % r)
        one(su, "CREATE ROLE %s LOGIN" % r)
        one(su, "GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb), "
                "sandbox_workspace_open(jsonb), sandbox_workspace_close(text) TO %s" % r)
    one(su, "GRANT pg_read_all_stats TO %s" % ROLES[2])
    try:
        audit_lines(su, preloaded)
        if not preloaded:
            for view in ("pysandbox_stat", "pysandbox_activity"):
                got = error(su, "SELECT * FROM %s" % view)
                check(got == ("55000", "pysandbox statistics need pysandbox in shared_preload_libraries"),
                      "without preloading, %s says what it needs" % view, got)
        else:
            counts(su)
            visibility(su)
            concurrent(su)
            activity(su)
            held(su)
            eviction(su)
    finally:
        for r in ROLES:
            one(su, "REVOKE ALL ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb), "
                    "sandbox_workspace_open(jsonb), sandbox_workspace_close(text) FROM %s" % r)
            one(su, "DROP ROLE IF EXISTS %s" % r)
    print("stat: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
