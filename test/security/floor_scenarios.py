"""The OS floor in scenarios a single payload cannot express.

hostile.py runs each payload as one call and checks what it left behind.
What is here needs more: a flood timed against cancel, terminate and the
wall limit; a child that goes on living after its result; two children
talking to each other through shared futexes; a function's child kept for
the rows of a statement; prints counted one by one;
and sandbox_run's promise to report, never raise, for anything a child
sends.  Every check is one function returning a list of problems (empty:
passed); hostile.py runs them all in both cluster modes (per-session
workers and the fork server).

Most scenarios turn the Python layer off (what an escape from it gives:
arbitrary Python, ctypes included), so they need a superuser connection;
the two-role scenario creates its own roles.
"""

import json
import os
import platform
import signal
import struct
import threading
import time

import psycopg2

from proctools import process_table

# frame types (src/protocol/sb_protocol.h)
STDOUT, RESULT, ERROR, VIOLATION, STDERR, WHERE = 48, 49, 50, 51, 53, 56
EXIT_LIMIT = 74             # SB_CHILD_EXIT_LIMIT: SIGPROF's handler
NOTICE_CAP = 10000          # relayed prints per call (README)


class Notices:
    """Every NOTICE of a connection (psycopg2 trims a plain list to 50)."""

    def __init__(self):
        self.items = []

    def append(self, item):
        self.items.append(item)


def connect(role=None):
    conn = psycopg2.connect("", connect_timeout=10)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SET statement_timeout = '60s'")
    if role:
        cur.execute("SET ROLE %s" % role)
    return conn


def alive(pid):
    """Is pid a live (not zombie) process?"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return []
        time.sleep(0.01)
    return [p for p in pids if alive(p)]


def tree(pid):
    """pid and every process below it."""
    table = process_table()
    kids = {}
    for p, (_c, _s, ppid) in table.items():
        kids.setdefault(ppid, []).append(p)
    found, stack = [pid], [pid]
    while stack:
        for k in kids.get(stack.pop(), []):
            found.append(k)
            stack.append(k)
    return found


class Watchdog:
    """Frees a backend that a broken build leaves trapped, so the suite ends.

    After `seconds`, it kills every sandbox child (a pysandbox-worker whose
    parent is one too: per-session or the fork server's) and remembers that
    it had to: the scenario then fails instead of hanging.
    """

    def __init__(self, seconds):
        self.fired = False
        self.timer = threading.Timer(seconds, self.fire)

    def fire(self):
        self.fired = True
        table = process_table()
        for pid, (comm, _state, ppid) in table.items():
            if comm.startswith("pysandbox-work") and \
                    table.get(ppid, ("",))[0].startswith("pysandbox-work"):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()


# --------------------------------------------------------------------------
# finding 1: a child flooding frames must not trap its backend

FLOOD = """
import os, struct
frame = struct.pack("=II", {ftype}, {length}) + b"v" * {length}
chunk = frame * max(1, 65536 // len(frame))
while True:
    os.write(3, chunk)
def main():
    return 1
"""


def flood_once(ftype, length, action, child, output):
    """Flood frames of one type; act; return a problem or None.

    action: "wall" (the 1 s limit must end it), "cancel" or "terminate"
    (sent 300 ms in); child: "reserved" (the session's reserved child) or
    "fresh" (a child of a spawn); output: "notice", "discard" or "run"
    (sandbox_run captures prints).
    """
    what = "%s flood of type %d/%d on a %s child (%s)" % (action, ftype, length, child, output)
    conn = connect()
    cur = conn.cursor()
    pid = conn.get_backend_pid()
    cur.execute("SET pysandbox.python_layer = off")
    cur.execute("SET pysandbox.max_output_bytes = '1GB'")
    cur.execute("SET pysandbox.print = %s" % ("discard" if output == "discard" else "notice"))
    options = {"timeout_ms": 1000, "cpu_ms": 5000}
    # the reservation the call meets fits only the limits of the call before
    warm = dict(options) if child == "reserved" else dict(options, cpu_ms=4000)
    cur.execute("SELECT sandbox_execute('def main(): return 1', '{}', '{main}', %s)",
                (json.dumps(warm),))
    time.sleep(0.3)
    before = set(tree(pid))
    fn = "sandbox_run" if output == "run" else "sandbox_execute"
    acted = {}

    def act():
        time.sleep(0.3)
        other = connect()
        acted["at"] = time.monotonic()
        other.cursor().execute("SELECT pg_%s_backend(%d)" % (action, pid))
        other.close()

    if action != "wall":
        threading.Thread(target=act, daemon=True).start()
    start = time.monotonic()
    outcome = "ok"
    with Watchdog(10) as dog:
        try:
            cur.execute("SELECT %s(%%s, '{}', '{main}', %%s)" % fn,
                        (FLOOD.format(ftype=ftype, length=length), json.dumps(options)))
            got = cur.fetchone()[0]
            if output == "run" and not got["ok"]:
                outcome = got["error"]["sqlstate"]   # the report says how it ended
        except psycopg2.Error as exc:
            outcome = exc.pgcode or "connection lost"
    end = time.monotonic()
    problem = None
    if dog.fired:
        problem = "%s: THE BACKEND WAS TRAPPED (freed after 10 s by killing its child; %s)" % (
            what, outcome)
    elif action == "wall":
        # the child's limit is 1 s from when it is the call's
        if end - start > 1.0 + 0.1 + 0.05:
            problem = "%s: the call ended after %.0f ms (%s), limit 1000 ms" % (
                what, (end - start) * 1000, outcome)
        elif outcome not in ("57014", "54000", "39000"):
            problem = "%s: ended with %s" % (what, outcome)
    elif "at" not in acted:
        problem = "%s: the call ended (%s) before the %s was sent" % (what, outcome, action)
    elif action == "cancel":
        if end - acted["at"] > 0.1:
            problem = "%s: %.0f ms after pg_cancel_backend (%s)" % (
                what, (end - acted["at"]) * 1000, outcome)
        elif outcome != "57014":
            problem = "%s: cancel ended with %s" % (what, outcome)
    else:
        if end - acted["at"] > 1.0:
            problem = "%s: %.0f ms after pg_terminate_backend" % (what, (end - acted["at"]) * 1000)
    if action == "terminate":
        left = wait_gone(list(before | set(tree(pid))), 2.0)
        if left:
            problem = problem or "%s: processes left after terminate: %s" % (what, left)
    else:
        try:
            cur.execute("SELECT 1")
        except psycopg2.Error as exc:
            problem = problem or "%s: the session is unusable afterwards: %s" % (what, exc)
    try:
        conn.close()
    except psycopg2.Error:
        pass
    return problem


def flood_check():
    """Finding 1: cancel <= 100 ms, terminate <= 1 s, wall limit within 100 ms."""
    runs = [
        # every relayed type (and the fixed-size one) against the wall limit
        (STDOUT, 0, "wall", "reserved", "discard"),
        (STDERR, 0, "wall", "reserved", "discard"),
        (STDOUT, 1, "wall", "reserved", "notice"),
        (VIOLATION, 64, "wall", "reserved", "discard"),
        (STDOUT, 0, "wall", "fresh", "notice"),
        (STDERR, 0, "wall", "reserved", "run"),
        # cancel and terminate, on reserved and fresh children
        (STDOUT, 0, "cancel", "reserved", "discard"),
        (STDERR, 0, "cancel", "fresh", "notice"),
        (STDOUT, 1, "cancel", "reserved", "run"),
        (STDOUT, 0, "terminate", "reserved", "discard"),
        (STDOUT, 0, "terminate", "fresh", "notice"),
    ]
    return [p for p in (flood_once(*r) for r in runs) if p]


# --------------------------------------------------------------------------
# finding 2: every child has a deadline, a reserved one that detached too

LINGER = """
import os, struct, time
body = ('{{"main": %d}}' % os.getpid()).encode()
os.write(3, struct.pack("=II", 49, len(body)) + body)
os.close(3)
time.sleep(60)
def main():
    return 0
"""


def detached_calls(code, timeout_ms):
    """Run code (a LINGER-like body reporting its pid) on a reserved and on
    a fresh child with the Python layer off: yields (which child, its pid,
    when the call began) after each call returned, then closes the session
    and waits for the child to go."""
    for child in ("reserved", "fresh"):
        conn = connect()
        cur = conn.cursor()
        cur.execute("SET pysandbox.python_layer = off")
        options = json.dumps({"timeout_ms": timeout_ms, "cpu_ms": 5000})
        # the reservation the call meets fits only the limits of the call before
        warm = options if child == "reserved" else \
            json.dumps({"timeout_ms": timeout_ms, "cpu_ms": 4000})
        cur.execute("SELECT sandbox_execute('def main(): return 1', '{}', '{main}', %s)", (warm,))
        time.sleep(0.3)
        start = time.monotonic()
        cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)", (code, options))
        child_pid = cur.fetchone()[0]["main"]
        yield child, child_pid, start
        conn.close()
        wait_gone([child_pid], 10)


def linger_check():
    """A child that sends a whole result, closes its socket and sleeps."""
    problems = []
    for child, child_pid, start in detached_calls(LINGER.format(), 1000):
        if wait_gone([child_pid], 1.0 + 0.3 - (time.monotonic() - start)):
            problems.append("a %s child that detached after its result lived past its "
                            "1 s limit (pid %d)" % (child, child_pid))
    return problems


# A child that sends a whole result, closes its side and goes on computing
# (review 49 F3): it ran to its wall limit after the call had returned, its
# CPU time counted nowhere, holding a place of max_concurrent.
SPIN_AFTER = """
import os, struct
body = ('{{"main": %d}}' % os.getpid()).encode()
os.write(3, struct.pack("=II", 49, len(body)) + body)
os.close(3)
while True:
    pass
def main():
    return 0
"""


def detach_check():
    """A child that computes on after its whole result is stopped when the call returns."""
    problems = []
    for child, child_pid, _ in detached_calls(SPIN_AFTER.format(), 5000):
        if wait_gone([child_pid], 0.5):
            problems.append("a %s child that computed on after its result was still there "
                            "0.5 s after its call returned (pid %d)" % (child, child_pid))
    return problems


# --------------------------------------------------------------------------
# a LANGUAGE pysandbox function's child, kept for the rows of its statement

# Row 1 returns the pid; row 2 forges its own result, then sleeps (no CPU
# time: the idle limit does not end it), keeping its socket open.
HELD_SLEEPER = """
import os, sb_io, time
if x == 2:
    sb_io.send(sb_io.ROWS, (1).to_bytes(8, "little"))
    sb_io.sendv(sb_io.COLUMN, [bytes(8), b"", os.getpid().to_bytes(8, "little")])
    time.sleep(60)
return os.getpid()
"""

# Row 2 forges its result, then closes its socket and sleeps: not waiting
# for calls, not dead either.
HELD_CLOSER = """
import os, sb_io, time
if x == 2:
    sb_io.send(sb_io.ROWS, (1).to_bytes(8, "little"))
    sb_io.sendv(sb_io.COLUMN, [bytes(8), b"", os.getpid().to_bytes(8, "little")])
    os.close(3)
    time.sleep(60)
return os.getpid()
"""

# Row 2 works a while, then exits cleanly without an answer: the call must
# fail, not run again on a fresh child with fresh limits.
HELD_EXITER = """
import os, time
if x == 2:
    time.sleep(0.2)
    os._exit(0)
return os.getpid()
"""

# Every row appends to a list hidden where a process keeps it (builtins).
HELD_STASH = """
import builtins
stash = builtins.__dict__.setdefault("_pysandbox_stash", [])
stash.append(x)
return len(stash)
"""


def held_check():
    """The child kept for a statement's rows dies with the statement, even
    one that forged a result and sleeps with its socket open; nothing it
    keeps reaches the next statement, in the same session or under another
    role."""
    problems = []
    conn = connect()
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("SET pysandbox.python_layer = off")
    for name, body in (("floor_held_sleeper", HELD_SLEEPER), ("floor_held_stash", HELD_STASH),
                       ("floor_held_closer", HELD_CLOSER), ("floor_held_exiter", HELD_EXITER)):
        cur.execute("CREATE OR REPLACE FUNCTION %s(x integer) RETURNS bigint "
                    "LANGUAGE pysandbox AS %%s" % name, (body,))
    cur.execute("GRANT EXECUTE ON FUNCTION floor_held_stash(integer) TO PUBLIC")
    cur.execute("SELECT floor_held_sleeper(i) FROM generate_series(1, 2) AS i")
    pids = [r[0] for r in cur.fetchall()]
    if len(set(pids)) != 1:
        problems.append("the two rows ran in %d processes, expected one" % len(set(pids)))
    elif wait_gone(pids[:1], 1.0):
        problems.append("the child of a finished statement (pid %d) lived on for 1 s"
                        % pids[0])
    # one that closed its socket and lives on fails the next row at once,
    # and is ended; the worker stays
    cur.execute("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pysandbox fork server'")
    before = cur.fetchall()
    start = time.monotonic()
    try:
        cur.execute("SELECT floor_held_closer(i) FROM generate_series(1, 3) AS i")
        problems.append("a child that closed its socket between rows went unnoticed")
    except psycopg2.Error as exc:
        if exc.pgcode != "39000" or time.monotonic() - start > 1.5:
            problems.append("a child that closed its socket between rows: %s %s after %.1f s"
                            % (exc.pgcode, str(exc).strip()[:120], time.monotonic() - start))
    cur.execute("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pysandbox fork server'")
    if cur.fetchall() != before:
        problems.append("the fork server changed after a child closed its socket between rows")
    try:
        cur.execute("SELECT floor_held_exiter(i) FROM generate_series(1, 3) AS i")
        problems.append("a child that exited without answering a call went unnoticed")
    except psycopg2.Error as exc:
        if exc.pgcode != "39000":
            problems.append("a child that exited without answering a call: %s %s"
                            % (exc.pgcode, str(exc).strip()[:120]))
    cur.execute("SELECT floor_held_stash(i) FROM generate_series(1, 3) AS i")
    first = [r[0] for r in cur.fetchall()]
    cur.execute("SELECT floor_held_stash(i) FROM generate_series(1, 2) AS i")
    second = [r[0] for r in cur.fetchall()]
    cur.execute("CREATE ROLE floor_held_other")
    # a login as it would have the layer on: the session's SET stays its own
    cur.execute("ALTER ROLE floor_held_other SET pysandbox.python_layer = off")
    try:
        cur.execute("SET ROLE floor_held_other")
        cur.execute("SELECT floor_held_stash(1)")
        other = [r[0] for r in cur.fetchall()]
    finally:
        cur.execute("RESET ROLE")
        cur.execute("DROP FUNCTION floor_held_sleeper(integer), floor_held_stash(integer), "
                    "floor_held_closer(integer), floor_held_exiter(integer)")
        cur.execute("DROP ROLE floor_held_other")
    if first != [1, 2, 3] or second != [1, 2] or other != [1]:
        problems.append("state crossed statements or roles: %r, then %r, then %r as another "
                        "role (expected [1, 2, 3], [1, 2], [1])" % (first, second, other))
    conn.close()
    return problems



# --------------------------------------------------------------------------
# a workspace (sandbox_workspace_open): reachable from its session and role
# only, and its process ends with it

def workspace_check():
    """Another session cannot use a workspace's handle (nothing of it
    exists there); the workspace's process ends when it is closed and when
    its session ends."""
    problems = []
    a = connect()
    b = connect()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    ca.execute("SET pysandbox.python_layer = off")
    ca.execute("SELECT sandbox_workspace_open()")
    ws = ca.fetchone()[0]
    opt = json.dumps({"workspace": ws})
    ca.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)",
               ("import os\ndef main(ws):\n    ws['secret'] = 'kept'\n    return os.getpid()\n", opt))
    pid = ca.fetchone()[0]["main"]
    try:
        cb.execute("SELECT sandbox_execute('def main(ws): return ws', '{}', '{main}', %s)", (opt,))
        problems.append("another session used the workspace: %r" % (cb.fetchone(),))
    except psycopg2.Error as exc:
        if exc.pgcode != "42704":
            problems.append("another session's call: %s %s, expected 42704"
                            % (exc.pgcode, str(exc).strip()[:120]))
    cb.execute("SELECT count(*) FROM sandbox_workspace_list()")
    if cb.fetchone()[0] != 0:
        problems.append("another session lists the workspace")
    cb.execute("SELECT sandbox_workspace_close(%s)", (ws,))
    if cb.fetchone()[0] is not False:
        problems.append("another session closed the workspace")
    if not alive(pid):
        problems.append("the workspace's process (pid %d) is gone after another session tried it" % pid)
    ca.execute("SELECT sandbox_execute('def main(ws): return ws[\"secret\"]', '{}', '{main}', %s)",
               (opt,))
    if ca.fetchone()[0] != {"main": "kept"}:
        problems.append("the workspace lost its state")
    ca.execute("SELECT sandbox_workspace_close(%s)", (ws,))
    if wait_gone([pid], 2.0):
        problems.append("a closed workspace's process (pid %d) lived on for 2 s" % pid)
    # the end of the session ends its workspaces
    ca.execute("SELECT sandbox_workspace_open()")
    ws = ca.fetchone()[0]
    ca.execute("SELECT sandbox_execute('import os\ndef main(): return os.getpid()', '{}', "
               "'{main}', %s)", (json.dumps({"workspace": ws}),))
    pid = ca.fetchone()[0]["main"]
    a.close()
    if wait_gone([pid], 3.0):
        problems.append("a workspace's process (pid %d) outlived its session by 3 s" % pid)
    b.close()
    return problems

# --------------------------------------------------------------------------
# a held child breaking its mailbox's protocol (sb_protocol.h, "The mailbox")

# The first row after the first whose call came through the mailbox (its
# state still CALL: the backend polls it) does ATTACK; other rows return
# the pid.  Offsets: state 0, resp_len 8, resp at 128 + 32768.  The backend
# may stop polling (after 1 ms) while the attack is written: each attack
# also writes to the socket what means the same there, so that the outcome
# does not depend on which the backend reads.
MAILBOX_PAYLOAD = """
import ctypes, os, sb_io, struct, time
mb = sb_io.mailbox()
state = ctypes.c_uint32.from_address(mb)
if x > 1 and mb and state.value == 2:
    resp_len = ctypes.c_uint32.from_address(mb + 8)
    resp = mb + 128 + 32768
%s
return os.getpid()
"""

MAILBOX_ATTACKS = {
    # a length past the mailbox's end
    "floor_mb_length": """
    resp_len.value = 0xFFFFFFFF
    state.value = 4
    os.write(3, struct.pack("=II", 0x7FFFFFFF, 0))
    time.sleep(60)
""",
    # a column announcing 2 GB, in a 24-byte result
    "floor_mb_frame": """
    ctypes.memmove(resp, struct.pack("=IIQII", 52, 8, 1, 34, 0x7FFFFFF0), 24)
    resp_len.value = 24
    state.value = 4
    os.write(3, struct.pack("=IIQII", 52, 8, 1, 34, 0x7FFFFFF0))
    time.sleep(60)
""",
    # a state that means nothing, then silence
    "floor_mb_state": """
    state.value = 0x5A5A5A5A
    time.sleep(60)
""",
    # the result, then rewritten for as long as the backend may read it
    "floor_mb_rewrite": """
    good = struct.pack("=IIQII", 52, 8, 1, 34, 16) + bytes(8) + (7).to_bytes(8, "little")
    bad = struct.pack("=IIQII", 52, 0x7FFFFFF0, 1, 34, 0x7FFFFFF0) + bytes(16)
    ctypes.memmove(resp, good, len(good))
    resp_len.value = len(good)
    state.value = 4
    os.write(3, good)
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        ctypes.memmove(resp, bad, len(bad))
        ctypes.memmove(resp, good, len(good))
    return 8
""",
}


def mailbox_check():
    """A held child that writes nonsense into its mailbox (a length past
    its end, a frame announcing 2 GB, a meaningless state, a result
    rewritten while the backend reads it) fails its call with the error of
    a bad message on the socket, within its limits, and is ended."""
    problems = []
    conn = connect()
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("SET pysandbox.python_layer = off")
    expected = {"floor_mb_length": "39000", "floor_mb_frame": "54000",
                "floor_mb_state": "57014", "floor_mb_rewrite": None}
    for name, attack in MAILBOX_ATTACKS.items():
        cur.execute("CREATE OR REPLACE FUNCTION %s(x integer) RETURNS bigint "
                    "LANGUAGE pysandbox SET pysandbox.options = '{\"timeout_ms\": 1000}' "
                    "AS %%s" % name, (MAILBOX_PAYLOAD % attack,))
        start = time.monotonic()
        got = None
        try:
            cur.execute("SELECT %s(i) FROM generate_series(1, 200) AS i" % name)
            rows = [r[0] for r in cur.fetchall()]
            if expected[name] is None:
                # what the backend copied is what it decodes: the forged 7,
                # the 8 of the call it rewrote during, or the pid of others
                if len(set(rows) - {8, 7}) != 1 or not set(rows) & {7, 8}:
                    got = "rows %r" % sorted(set(rows))
            else:
                got = "no error (%d rows): the mailbox was never used" % len(rows)
        except psycopg2.Error as exc:
            took = time.monotonic() - start
            if expected[name] is None:
                if exc.pgcode not in ("39000", "54000"):
                    got = "%s %s" % (exc.pgcode, str(exc).strip()[:160])
            elif exc.pgcode != expected[name] or took > 2.5:
                got = "%s after %.1f s: %s" % (exc.pgcode, took, str(exc).strip()[:160])
        if got is not None:
            problems.append("%s: expected %s, got %s" % (name, expected[name] or "its rows", got))
        cur.execute("DROP FUNCTION %s(integer)" % name)
    conn.close()
    return problems



# --------------------------------------------------------------------------
# finding 3: every frame costs against the budget; relayed prints are capped

def print_check():
    problems = []
    conn = connect()
    cur = conn.cursor()
    notices = conn.notices = Notices()
    cur.execute("SELECT sandbox_execute(%s)", ("def main():\n"
                                               "    for i in range(300000):\n"
                                               "        print(end='')\n"
                                               "    return 1\n",))
    if len(notices.items) != 0:
        problems.append("print(end='') 300,000 times relayed %d NOTICEs, expected none"
                        % len(notices.items))
    notices.items = []
    cur.execute("SELECT sandbox_execute(%s)", ("def main():\n"
                                               "    for i in range(%d):\n"
                                               "        print(i)\n"
                                               "    return 1\n" % (NOTICE_CAP + 5000),))
    shown = [n for n in notices.items if "more lines" not in n]
    summary = [n for n in notices.items if "more lines" in n]
    if len(shown) != NOTICE_CAP or len(summary) != 1 or "5000 more lines" not in summary[0]:
        problems.append("%d prints relayed %d NOTICEs and %r, expected %d and one saying "
                        "5000 more lines" % (NOTICE_CAP + 5000, len(shown), summary[:1], NOTICE_CAP))
    # without the Python layer: empty frames still cost their header
    cur.execute("SET pysandbox.python_layer = off")
    try:
        cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', '{\"max_output_bytes\": 80000}')",
                    ("import os, struct\n"
                     "os.write(3, struct.pack('=II', 48, 0) * 20000)\n"
                     "def main():\n"
                     "    return 1\n",))
        problems.append("20,000 empty STDOUT frames (160,000 bytes on the wire) passed an "
                        "80,000-byte output limit")
    except psycopg2.Error as exc:
        if exc.pgcode != "54000":
            problems.append("empty frames over the budget: %s, expected 54000" % exc.pgcode)
    conn.close()
    return problems


# --------------------------------------------------------------------------
# finding 4: no covert channel between two children through shared futexes

# both children map the same page of a library file, shared and read-only
FUTEX_NR = {"x86_64": 202, "aarch64": 98}.get(platform.machine(), 202)
SHARED_PAGE = """
import ctypes, os, time
import numpy as np
def shared_word():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    fd = os.open(np.__file__, os.O_RDONLY)
    addr = libc.mmap(None, 4096, 1, 1, fd, 0) + 64      # PROT_READ, MAP_SHARED
    return libc, addr
"""

RECEIVER = SHARED_PAGE + """
def main():
    libc, addr = shared_word()
    word = ctypes.c_int.from_address(addr).value
    timeout = (ctypes.c_long * 2)(4, 0)
    start = time.monotonic()
    rc = libc.syscall(%d, ctypes.c_void_p(addr), 0, word, timeout, None, 0)   # FUTEX_WAIT
    return ["woken" if rc == 0 else "errno %%d" %% ctypes.get_errno(), time.monotonic() - start]
""" % FUTEX_NR

SENDER = SHARED_PAGE + """
def main():
    libc, addr = shared_word()
    woke = 0
    end = time.monotonic() + 2.5
    while time.monotonic() < end:
        woke += max(0, libc.syscall(%d, ctypes.c_void_p(addr), 1, 1, None, None, 0))  # FUTEX_WAKE
        time.sleep(0.01)
    return woke
""" % FUTEX_NR


def covert_channel_check():
    """Two sessions of two roles: one waits on a shared futex, one wakes it."""
    admin = connect()
    cur = admin.cursor()
    problems = []
    for role in ("pysandbox_futex_a", "pysandbox_futex_b"):
        cur.execute("DROP ROLE IF EXISTS %s" % role)
        cur.execute("CREATE ROLE %s LOGIN" % role)
        cur.execute("GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO %s" % role)
        # an escape from the Python layer gives this much; only an
        # administrator can switch it off, here for these roles alone
        cur.execute("ALTER ROLE %s SET pysandbox.python_layer = off" % role)
    results = {}

    def run(name, code):
        conn = psycopg2.connect("user=%s" % name, connect_timeout=10)
        conn.autocommit = True
        c = conn.cursor()
        try:
            c.execute("SELECT sandbox_execute(%s, '{}', '{main}', '{\"timeout_ms\": 6000}')", (code,))
            results[name] = c.fetchone()[0]["main"]
        except psycopg2.Error as exc:
            results[name] = "%s %s" % (exc.pgcode, exc.diag.message_primary)
        conn.close()

    try:
        receiver = threading.Thread(target=run, args=("pysandbox_futex_a", RECEIVER))
        receiver.start()
        time.sleep(0.5)
        with Watchdog(20):
            run("pysandbox_futex_b", SENDER)
            receiver.join()
        got = results.get("pysandbox_futex_a")
        if isinstance(got, list) and got[0] == "woken":
            problems.append("a child woke another session's child through a shared futex "
                            "(after %.2f s; the sender woke %s)" % (got[1], results.get("pysandbox_futex_b")))
        for name in results:
            if not str(results[name]).startswith("42501"):
                problems.append("%s's futex call: %r, expected a blocked system call (42501)"
                                % (name, results[name]))
    finally:
        for role in ("pysandbox_futex_a", "pysandbox_futex_b"):
            cur.execute("REVOKE ALL ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM %s" % role)
            cur.execute("DROP ROLE IF EXISTS %s" % role)
        admin.close()
    return problems


# --------------------------------------------------------------------------
# review 126 F1: no shared futex wake when a child exits.  The kernel wakes
# the pending entry of a dying task's robust list (a zero word: a shared
# wake, without writing it) and its clear_child_tid address; both pointed
# into a read-only shared mapping of a library file woke a waiter outside
# the sandbox.  The child unregisters both before its filter goes on, and
# the filter refuses to register them again.

EXIT_WAKE = """
import ctypes, os
def main(path, offset):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.pthread_self.restype = ctypes.c_void_p
    fd = os.open(path, os.O_RDONLY)
    word = libc.mmap(None, 4096, 1, 1, fd, offset & ~4095) + (offset & 4095)  # shared, read-only
    said = []
    # a robust list of its own, its pending entry on the word
    class Head(ctypes.Structure):
        _fields_ = [("next", ctypes.c_void_p), ("futex_offset", ctypes.c_long),
                    ("pending", ctypes.c_void_p)]
    head = Head()
    head.next = ctypes.addressof(head)
    head.pending = word
    KEEP.append(head)
    said.append(["set_robust_list", libc.syscall(273, ctypes.byref(head), 24), ctypes.get_errno()])
    said.append(["set_tid_address", libc.syscall(218, ctypes.c_void_p(word)) > 0])
    # and the one glibc registered at start, in its thread's memory: its
    # pending entry set in place, no system call (a self-pointer, then a
    # small negative futex offset, then NULL)
    base = libc.pthread_self()
    for i in range(8, 0x1000, 8):
        at = base + i
        if ctypes.c_uint64.from_address(at).value == at and \
                -64 <= ctypes.c_int64.from_address(at + 8).value < 0 and \
                ctypes.c_uint64.from_address(at + 16).value == 0:
            # the kernel wakes pending + futex_offset
            ctypes.c_uint64.from_address(at + 16).value = \
                word - ctypes.c_int64.from_address(at + 8).value
            said.append(["glibc's head", i])
            break
    return said
KEEP = []
"""


def exit_wake_check():
    """A waiter on the host, on a shared futex over a zero word of a library
    file the sandbox may read; a child (the Python layer off) points every
    exit-time wake at it and exits: the waiter must time out."""
    import ctypes
    import numpy.core._multiarray_umath as native
    path = native.__file__
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    offset = next(o for o in range(8192, len(data) - 4, 4) if data[o:o + 4] == bytes(4))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    fd = os.open(path, os.O_RDONLY)
    word = libc.mmap(None, 4096, 1, 1, fd, offset & ~4095) + (offset & 4095)
    woken = {}

    def wait():
        timeout = (ctypes.c_long * 2)(60, 0)
        start = time.monotonic()
        rc = libc.syscall(FUTEX_NR, ctypes.c_void_p(word), 0, 0, timeout, None, 0)  # shared
        woken["rc"] = (rc, ctypes.get_errno(), time.monotonic() - start)

    problems = []
    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    conn = connect()
    cur = conn.cursor()
    try:
        cur.execute("SET pysandbox.python_layer = off")
        cur.execute("SELECT sandbox_execute(%s, %s, '{main}', '{\"timeout_ms\": 5000}')",
                    (EXIT_WAKE, json.dumps({"path": path, "offset": offset})))
        said = cur.fetchone()[0]["main"]
        if said[0][1:] != [-1, 38]:
            problems.append("set_robust_list in the child: %r, expected ENOSYS" % (said[0],))
        if said[1][1]:
            problems.append("set_tid_address ran in the child")
        if len(said) < 3:
            problems.append("glibc's robust list head was not found in the child (%r)" % (said,))
    finally:
        conn.close()
    # the child has exited (its result came with its end); the kernel's
    # wakes at exit are done by now
    time.sleep(1.0)
    if woken:
        problems.append("a waiter outside the sandbox was woken when the child exited: %r"
                        % (woken["rc"],))
    else:
        # still waiting, as it should be: end it ourselves
        for _ in range(50):
            libc.syscall(FUTEX_NR, ctypes.c_void_p(word), 1, 1, None, None, 0)  # FUTEX_WAKE
            waiter.join(0.1)
            if not waiter.is_alive():
                break
    waiter.join(5)
    os.close(fd)
    return problems


# --------------------------------------------------------------------------
# no state shared through the standard streams' file status flags: they
# were one open file description (the worker's /dev/null) in every child,
# and O_NONBLOCK / O_APPEND set by one role's call stayed for every later
# call of every role (two bits of a channel, or of state kept between calls)

SET_STDIO_FLAGS = """
import fcntl, os
def main():
    for fd in (0, 1, 2):
        fl = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, fl | os.O_NONBLOCK | os.O_APPEND)
    return [bool(fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_NONBLOCK | os.O_APPEND)) for fd in (0, 1, 2)]
"""

READ_STDIO_FLAGS = """
import fcntl, os
def main():
    return [bool(fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_NONBLOCK | os.O_APPEND)) for fd in (0, 1, 2)]
"""


def stdio_flags_check():
    """Role a sets its standard streams' status flags; role b's later call
    (another session) must not see them."""
    admin = connect()
    cur = admin.cursor()
    problems = []
    roles = ("pysandbox_stdio_a", "pysandbox_stdio_b")
    for role in roles:
        cur.execute("DROP ROLE IF EXISTS %s" % role)
        cur.execute("CREATE ROLE %s LOGIN" % role)
        cur.execute("GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO %s" % role)
        cur.execute("ALTER ROLE %s SET pysandbox.python_layer = off" % role)
    try:
        got = {}
        for role, code in ((roles[0], SET_STDIO_FLAGS), (roles[1], READ_STDIO_FLAGS),
                           (roles[1], READ_STDIO_FLAGS)):
            conn = psycopg2.connect("user=%s" % role, connect_timeout=10)
            conn.autocommit = True
            c = conn.cursor()
            with Watchdog(20):
                c.execute("SELECT sandbox_execute(%s)", (code,))
            got.setdefault(role, []).append(c.fetchone()[0]["main"])
            conn.close()
        if got[roles[0]] != [[True, True, True]]:
            problems.append("the setting call did not set its own flags: %r" % got[roles[0]])
        if got[roles[1]] != [[False, False, False]] * 2:
            problems.append("another role's later calls saw the flags: %r" % got[roles[1]])
    finally:
        for role in roles:
            cur.execute("REVOKE ALL ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM %s" % role)
            cur.execute("DROP ROLE IF EXISTS %s" % role)
        admin.close()
    return problems


# --------------------------------------------------------------------------
# review 42: a child forked from the worker inherits its memory, without a
# system call to stop a read of it: nothing of other sessions may be there

WORKER = "/usr/lib/postgresql/15/lib/pysandbox-worker"

READ_WORKER_TABLES = """
import ctypes, struct
def main(symbols):
    class LinkMap(ctypes.Structure):
        _fields_ = [("l_addr", ctypes.c_size_t), ("l_name", ctypes.c_char_p)]
    base = ctypes.cast(ctypes.CDLL(None)._handle, ctypes.POINTER(LinkMap)).contents.l_addr
    def nonzero(addr, size):
        return sum(1 for b in ctypes.string_at(addr, size) if b)
    def word(name, size):
        return struct.unpack("Q" if size == 8 else "i", ctypes.string_at(base + symbols[name][0], size))[0]
    got = {}
    for name in ("sb_spares", "sb_recent_limits", "sb_adm", "sb_norphans"):
        got[name] = nonzero(base + symbols[name][0], symbols[name][1])
    # the tables the worker's pointers lead to: the clients' (sb_nclients
    # slots; the first 1 kB of each, a slot being larger) and the orphans'
    # (sb_orphans_cap children; the first 64 bytes of each)
    n, table = word("sb_nclients", 4), word("sb_clients", 8)
    got["the client table"] = nonzero(table, n * 1024) if table and 0 < n < 1 << 16 else 0
    got["client slots"] = n
    n, table = word("sb_orphans_cap", 4), word("sb_orphans", 8)
    got["the orphans' table"] = nonzero(table, n * 64) if table and 0 < n < 1 << 16 else 0
    # the poll array (review 49: its fds told who had a call, a reservation,
    # how many held children)
    n, table = word("sb_pfds_cap", 8), word("sb_pfds", 8)
    got["the poll array"] = nonzero(table, n * 8) if table and 0 < n < 1 << 20 else 0
    got["poll slots"] = n
    return got
"""


def worker_symbols():
    """{name: (offset, size)} of the worker's bookkeeping, from its symbols."""
    import subprocess
    out = subprocess.run(["nm", "-S", WORKER], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in ("sb_clients", "sb_nclients", "sb_spares",
                                            "sb_recent_limits", "sb_adm", "sb_orphans",
                                            "sb_orphans_cap", "sb_norphans",
                                            "sb_pfds", "sb_pfds_cap"):
            found[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return found


def inherited_tables_check():
    """Session A holds a workspace with its own limits and calls it; a
    child of session B (Python layer off) reads the worker's tables in its
    own memory: the worker's clients (the table its pointer leads to),
    orphans, spares, last limits and admission counts must be zero there."""
    problems = []
    symbols = worker_symbols()
    if len(symbols) != 10:
        return ["the worker's symbols were not found: %r" % sorted(symbols)]
    a, b = connect(), connect()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    ca.execute("SELECT sandbox_workspace_open('{\"timeout_ms\": 7777, \"memory_mb\": 123}')")
    opt = json.dumps({"workspace": ca.fetchone()[0]})
    for _ in range(3):
        ca.execute("SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', %s)", (opt,))
    cb.execute("SET pysandbox.python_layer = off")
    try:
        with Watchdog(20):
            cb.execute("SELECT sandbox_execute(%s, %s)",
                       (READ_WORKER_TABLES, json.dumps({"symbols": symbols})))
        got = cb.fetchone()[0]["main"]
        slots = got.pop("client slots")
        poll_slots = got.pop("poll slots")
        seen = {name: count for name, count in got.items() if count}
        if seen:
            problems.append("a child holds the worker's bookkeeping (nonzero bytes): %r" % seen)
        if slots < 2 or poll_slots < 2:
            problems.append("the client table or poll array was not read (%d, %d slots): "
                            "the check proves nothing" % (slots, poll_slots))
    except psycopg2.Error as exc:
        problems.append("the reading call failed: %s" % str(exc).strip()[:200])
    finally:
        a.close()
        b.close()
    return problems


# The worker's stack: the top 2 MB of a child's stack, read page by page
# while it is readable (rt_sigprocmask reads 8 bytes from an address or
# fails with EFAULT, and puts the mask back), as hex.
SIGPROCMASK_NR = {"x86_64": 14, "aarch64": 135}.get(platform.machine(), 14)
READ_STACK_TOP = """
import ctypes
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    page = 4096
    old = ctypes.create_string_buffer(8)
    def readable(a):
        if libc.syscall(NR, 0, ctypes.c_void_p(a), old, 8) == 0:
            libc.syscall(NR, 2, old, None, 8)
            return True
        return False
    top = ctypes.c_void_p.in_dll(libc, "__libc_stack_end").value & ~(page - 1)
    while readable(top + page):
        top += page
    top += page
    low = top
    while low - page >= top - 2048 * 1024 and readable(low - page):
        low -= page
    return ctypes.string_at(low, top - low).hex()
""".replace("NR", str(SIGPROCMASK_NR))


def stack_residue_check():
    """Session A's calls, with limits of their own, go through the worker's
    control messages (the reservation, the exit report); a child of session
    B (Python layer off) reads the top of its own stack, the worker's dead
    frames it inherited: A's limits and its children's exit reports (a pid,
    then its wait status) must not be there (review 129 F1: the reservation
    held A's limits in every try, the exit report A's pid, CPU and peak
    memory), while B's own limits, in its live frame, are."""
    problems = []
    a, b = connect(), connect()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    ca.execute("SET pysandbox.python_layer = off")
    cb.execute("SET pysandbox.python_layer = off")
    theirs = struct.pack("<II", 7013, 6011)
    own = struct.pack("<II", 9973, 8867)
    # a pid and a zero status are also just a 64-bit number (17408, 0x4400,
    # a size) that a child's own live frames may hold: the worker's residue
    # was there in every try (review 129), a number of that value in one now
    # and then (CI, 2026-12-07: one try of ten), so an exit report counts
    # when found in three tries or more
    reported = []
    try:
        for attempt in range(10):
            pids = []
            for _ in range(3):
                ca.execute("SELECT sandbox_run('import os\ndef main(): return os.getpid()', "
                           "'{}', '{main}', '{\"timeout_ms\": 7013, \"cpu_ms\": 6011}')")
                pids.append(ca.fetchone()[0]["returns"]["main"])
            with Watchdog(20):
                cb.execute("SELECT sandbox_execute(%s, '{}', '{main}', "
                           "'{\"timeout_ms\": 9973, \"cpu_ms\": 8867}')", (READ_STACK_TOP,))
            stack = bytes.fromhex(cb.fetchone()[0]["main"])
            if own not in stack:
                problems.append("the child's own limits were not in the %d bytes read: the "
                                "check proves nothing" % len(stack))
                break
            if theirs in stack:
                problems.append("another session's limits (timeout 7013, cpu 6011) are on a "
                                "child's stack, %d bytes below its top (try %d)"
                                % (len(stack) - stack.index(theirs), attempt + 1))
                break
            reports = [p for p in pids for status in (0, 9)
                       if struct.pack("<ii", p, status) in stack]
            if reports:
                reported.append((attempt + 1, reports[0]))
        if len(reported) >= 3:
            problems.append("another session's child's exit report (a pid, then its status) "
                            "is on a child's stack in %d tries of 10 (try, pid: %s)"
                            % (len(reported), reported))
        # a spare contained ahead for a streak of calls with one CPU and
        # memory limit serves any session's next call with those: it was
        # contained with the whole request that began the streak, whose
        # wall-clock limit (another session's) stayed on its stack (review
        # 157 F1); B's call asks for A's CPU limit and a wall limit of its own
        streak = struct.pack("<II", 7019, 6007)         # A's timeout_ms, cpu_ms
        shape = struct.pack("<I", 6007)                 # B's cpu_ms, as B asked for it
        for attempt in range(5):
            for _ in range(3):
                ca.execute("SELECT sandbox_run('def main(): return 1', '{}', '{main}', "
                           "'{\"timeout_ms\": 7019, \"cpu_ms\": 6007}')")
            time.sleep(1.5)             # the spares are contained ahead while idle
            with Watchdog(20):
                cb.execute("SELECT sandbox_execute(%s, '{}', '{main}', "
                           "'{\"timeout_ms\": 9967, \"cpu_ms\": 6007}')", (READ_STACK_TOP,))
            stack = bytes.fromhex(cb.fetchone()[0]["main"])
            if shape not in stack:
                problems.append("the child's own CPU limit was not in the %d bytes read: the "
                                "spare check proves nothing" % len(stack))
                break
            if streak in stack:
                problems.append("a spare contained ahead holds another session's wall-clock "
                                "limit beside its CPU limit on its stack (try %d)" % (attempt + 1))
                break
    except psycopg2.Error as exc:
        problems.append("a call failed: %s" % str(exc).strip()[:200])
    finally:
        a.close()
        b.close()
    return problems


# --------------------------------------------------------------------------
# finding 8: sandbox_run reports, never raises, for what a child sends

def frame_then(ftype, body, then):
    return ("import os, struct\n"
            "body = %r\n"
            "os.write(3, struct.pack('=II', %d, len(body)) + body)\n"
            "%s\n"
            "def main():\n"
            "    return 0\n" % (body, ftype, then))


def report_check():
    problems = []
    conn = connect()
    cur = conn.cursor()
    cur.execute("SET pysandbox.python_layer = off")

    def run(code, options="{}", inputs="{}"):
        try:
            cur.execute("SELECT sandbox_run(%s, %s, '{main}', %s)", (code, inputs, options))
            return cur.fetchone()[0]
        except psycopg2.Error as exc:
            return "raised %s: %s" % (exc.pgcode, exc.diag.message_primary)

    def execute(code, options="{}", inputs="{}"):
        try:
            cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)", (code, inputs, options))
            return cur.fetchone()[0]
        except psycopg2.Error as exc:
            return exc.pgcode

    def expect_report(what, report, kind, sqlstate):
        if not isinstance(report, dict):
            problems.append("sandbox_run %s: %s, expected a report" % (what, report))
        elif report["ok"] or report["error"]["kind"] != kind or report["error"]["sqlstate"] != sqlstate:
            problems.append("sandbox_run %s: %s, expected kind %s, %s" % (
                what, json.dumps(report["error"])[:200], kind, sqlstate))

    spoof = frame_then(ERROR, b'{"kind":"setup","type":"SandboxSetupError",'
                              b'"message":"could not set up: forged"}', "os._exit(70)")
    expect_report("a forged setup error", run(spoof), "crash", "39000")
    got = execute(spoof)
    if got != "39000":
        problems.append("sandbox_execute, a forged setup error: %s, expected 39000" % got)

    # sandbox_run's child answers {"returns": {...}, "figures": [...]}
    def answer(main):
        return b'{"returns": {"main": ' + main + b'}, "figures": []}'

    deep = frame_then(RESULT, answer(b"[" * 2000000 + b"]" * 2000000), "os._exit(0)")
    expect_report("a result nested 2,000,000 deep", run(deep), "output", "54001")
    huge = frame_then(RESULT, answer(b"1e1000000"), "os._exit(0)")
    expect_report("1e1000000 in a result", run(huge), "output", "22003")
    got = execute(frame_then(RESULT, b'{"main": 1e1000000}', "os._exit(0)"))
    if got != "22003":
        problems.append("sandbox_execute, 1e1000000 in a result: %s, expected 22003" % got)
    deep_error = frame_then(ERROR, b'{"kind":"exception","type":"E","message":"m","x":'
                                   + b"[" * 500000 + b"]" * 500000 + b"}", "os._exit(0)")
    expect_report("an error report nested 400,000 deep", run(deep_error), "crash", "39000")

    # anything but {"returns": {...}, "figures": [...]} is no sandbox_run answer
    for shape in (b'{"main": 1}', b'{"returns": {"main": 1}}', b'{"returns": 1, "figures": []}',
                  b'{"returns": {"main": 1}, "figures": {"$image": "x"}}', b'[1]'):
        expect_report("the answer %s" % shape.decode(), run(frame_then(RESULT, shape, "os._exit(0)")),
                      "crash", "39000")
    expect_report("an answer with an \"ok\" of its own", run(frame_then(
        RESULT, b'{"returns": {"main": 7}, "figures": [], "ok": false}', "os._exit(0)")),
        "crash", "39000")
    expect_report("an answer with returns twice", run(frame_then(
        RESULT, b'{"returns": {"main": 7}, "figures": [], "returns": {}}', "os._exit(0)")),
        "crash", "39000")
    report = run(frame_then(RESULT, b' { "figures" : [{"$image": "image/png", "data": "AA=="}] ,'
                                    b' "returns":{"main": "}]\\"[{"} } ', "os._exit(0)"))
    if not (isinstance(report, dict) and report.get("ok") is True and
            report.get("returns") == {"main": '}]"[{'} and
            report.get("figures") == [{"$image": "image/png", "data": "AA=="}]):
        problems.append("sandbox_run, a child's returns and figures: %r" % (report,))

    # 70 kB of numbers that numeric stores compactly but prints in full
    # (131,072 digits each: ~900 MB in one string, built deaf to cancel when
    # the report is output): refused at once as an output limit
    start = time.monotonic()
    expect_report("7,000 numbers of 131,072 digits in 70 kB", run(frame_then(
        RESULT, answer(b"[" + b",".join([b"1E+131071"] * 7000) + b"]"), "os._exit(0)")),
        "output", "54000")
    if time.monotonic() - start > 5:
        problems.append("sandbox_run, 7,000 numbers of 131,072 digits in 70 kB: %.1f s"
                        % (time.monotonic() - start))

    # the edges: what numeric and the parser take passes, one step past fails
    edges = [(b"1e131071", "ok"), (b"1e131072", "22003"), (b"12e131070", "ok"),
             (b"1e-16383", "ok"), (b"1e-16384", "22003"), (b"0e-16384", "22003"),
             (b"1." + b"0" * 16383, "ok"), (b"1." + b"0" * 16384, "22003"),
             (b"9" * 131072, "ok"), (b"9" * 131073, "22003"),
             # 1,000 levels in all: {"returns": {"main": ...}} holds 998
             (b"[" * 998 + b"]" * 998, "ok"), (b"[" * 999 + b"]" * 999, "54001")]
    for value, want in edges:
        # read in SQL: the client's json module refuses ints of 4,300 digits
        try:
            cur.execute("SELECT r->'ok', r->'error'->>'sqlstate' FROM sandbox_run(%s) r",
                        (frame_then(RESULT, answer(value), "os._exit(0)"),))
            ok, state = cur.fetchone()
            got = "ok" if ok else state
        except psycopg2.Error as exc:
            got = "raised %s" % exc.pgcode
        if got != want:
            problems.append("sandbox_run, %s... (%d bytes) in a result: %s, expected %s"
                            % (value[:12].decode(), len(value), got, want))

    # a small result that would take jsonb_in hundreds of MB (and seconds it
    # cannot be cancelled in) is refused before it is built; real rows pass
    flood = b"[" + b"{}," * 700000 + b"0]"
    start = time.monotonic()
    expect_report("2 MB of empty objects", run(frame_then(RESULT, answer(flood),
                                                          "os._exit(0)")), "output", "54000")
    if time.monotonic() - start > 3:
        problems.append("sandbox_run took %.1f s to refuse 2 MB of empty objects"
                        % (time.monotonic() - start))
    got = execute(frame_then(RESULT, b'{"main": ' + flood + b"}", "os._exit(0)"))
    if got != "54000":
        problems.append("sandbox_execute, 2 MB of empty objects: %s, expected 54000" % got)
    try:
        cur.execute("SELECT count(*) FROM sandbox_rows(%s, '{}', 'main') AS t(j jsonb)",
                    ("import pandas as pd\ndef main():\n"
                     "    return pd.DataFrame({'j': ['[' + '{},' * 700000 + '0]']})\n",))
        problems.append("sandbox_rows built 2 MB of empty objects into a jsonb value")
    except psycopg2.Error as exc:
        if exc.pgcode != "54000":
            problems.append("sandbox_rows, 2 MB of empty objects in a jsonb column: %s, "
                            "expected 54000" % exc.pgcode)
    rows = "import pandas as pd\ndef main():\n    return pd.DataFrame({'region': ['east'] * 100000, " \
           "'n': range(100000), 'amount': [123.45] * 100000})\n"
    report = run(rows)
    if not (isinstance(report, dict) and report["ok"] and len(report["returns"]["main"]) == 100000):
        problems.append("sandbox_run, 100,000 DataFrame rows: %s" % (str(report)[:200],))
    # a complete result, then a frame cut off: not a success
    cut = frame_then(RESULT, b'{"main": 42}', "os.write(3, b'\\x30\\x00\\x00'); os._exit(0)")
    expect_report("a result, then a frame cut off", run(cut), "crash", "39000")
    got = execute(cut)
    if got != "39000":
        problems.append("sandbox_execute, a result, then a frame cut off: %s, expected 39000" % got)

    # a complete result, then a non-zero exit: the same answer from both
    report = run(frame_then(RESULT, answer(b"42"), "os._exit(3)"))
    got = execute(frame_then(RESULT, b'{"main": 42}', "os._exit(3)"))
    if not (isinstance(report, dict) and report["ok"] and report["returns"] == {"main": 42}):
        problems.append("sandbox_run, a result then exit code 3: %s, expected ok" % (report,))
    if got != {"main": 42}:
        problems.append("sandbox_execute, a result then exit code 3: %s, expected the result" % got)

    # out of memory while reading a table input (the Python layer on)
    cur.execute("SET pysandbox.python_layer = on")
    big = json.dumps({"t": {"$query": "SELECT repeat('x', 1000000) AS s FROM generate_series(1, 300)"}})
    expect_report("out of memory reading its input", run("def main(t):\n    return len(t)\n",
                                                          '{"memory_mb": 64}', big),
                  "memory", "53200")
    got = execute("def main(t):\n    return len(t)\n", '{"memory_mb": 64}', big)
    if got != "53200":
        problems.append("sandbox_execute, out of memory reading its input: %s, expected 53200" % got)
    conn.close()
    return problems


def latin1_check():
    """In a LATIN1 database a child's error report is converted before it is
    parsed, and parsed at its converted length: "café" in a report made
    sandbox_run raise 22P02 (invalid json) instead of reporting."""
    problems = []
    admin = connect()
    cur = admin.cursor()
    cur.execute("DROP DATABASE IF EXISTS pysandbox_latin1")
    cur.execute("CREATE DATABASE pysandbox_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' "
                "LC_CTYPE 'C' TEMPLATE template0")
    try:
        conn = psycopg2.connect("dbname=pysandbox_latin1", connect_timeout=10)
        conn.autocommit = True
        c = conn.cursor()
        conn.set_client_encoding("UTF8")
        c.execute("CREATE EXTENSION pysandbox")
        c.execute("SET pysandbox.python_layer = off")
        body = ('{"kind":"exception","type":"ValueError","message":"caf\u00e9 ' + "x" * 40
                + '"}').encode("utf-8")
        try:
            c.execute("SELECT sandbox_run(%s)", (frame_then(ERROR, body, "os._exit(0)"),))
            err = c.fetchone()[0]["error"]
            if (err["kind"], err["message"]) != ("exception", "caf\u00e9 " + "x" * 40):
                problems.append("a report with \"caf\u00e9\": %s" % json.dumps(err)[:200])
        except psycopg2.Error as exc:
            problems.append("a report with \"caf\u00e9\" raised %s: %s"
                            % (exc.pgcode, exc.diag.message_primary))
        # what LATIN1 lacks ("\u20ac"): a "?" in what describes the call
        # (reports, prints), an error for a value (reported by sandbox_run)
        c.execute("SET pysandbox.python_layer = on")
        checks = [
            ("sandbox_run", "def main():\n    raise ValueError('price in \\u20ac')\n",
             lambda r: (r["error"]["kind"], r["error"]["message"]), ("exception", "price in ?")),
            ("sandbox_run", "def main():\n    print('caf\\u00e9 \\u20ac')\n    return {'p': '\\u20ac'}\n",
             lambda r: (r["stdout"], r["error"]["kind"], r["error"]["sqlstate"]),
             ("caf\u00e9 ?\n", "output", "22P05")),
            ("sandbox_run", "def main():\n    return {'p': 'caf\\u00e9'}\n",
             lambda r: r["returns"], {"main": {"p": "caf\u00e9"}}),
            ("sandbox_execute", "def main():\n    print('\\u20ac')\n    return 1\n",
             lambda r: r, {"main": 1})]
        for fn, code, pick, want in checks:
            try:
                c.execute("SELECT %s(%%s)" % fn, (code,))
                got = pick(c.fetchone()[0])
            except psycopg2.Error as exc:
                got = "raised %s: %s" % (exc.pgcode, exc.diag.message_primary)
            if got != want:
                problems.append("LATIN1, %s %r: %r, expected %r" % (fn, code, got, want))
        conn.close()
    finally:
        cur.execute("DROP DATABASE IF EXISTS pysandbox_latin1")
        admin.close()
    return problems


def sql_ascii_check():
    """In a SQL_ASCII database text past ASCII arrives as the child's UTF-8
    bytes, as jsonb_in takes them there: a result, an error report or a
    key with "\u00e9" raised 0A000 (PostgreSQL has no conversion for a
    JSON escape into SQL_ASCII), and sandbox_run lost its report."""
    problems = []
    admin = connect()
    cur = admin.cursor()
    cur.execute("DROP DATABASE IF EXISTS pysandbox_sql_ascii")
    cur.execute("CREATE DATABASE pysandbox_sql_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' "
                "LC_CTYPE 'C' TEMPLATE template0")
    try:
        conn = psycopg2.connect("dbname=pysandbox_sql_ascii", connect_timeout=10)
        conn.autocommit = True
        c = conn.cursor()
        conn.set_client_encoding("UTF8")      # no conversion: the bytes as stored
        c.execute("CREATE EXTENSION pysandbox")
        checks = [
            ("sandbox_execute", "def main():\n    return {'k\\u00e9': ['\\u20ac', '\\\\u00e9', "
             "'\\U0001F600', '\\\"']}\n",
             lambda r: r, {"main": {"k\u00e9": ["\u20ac", "\\u00e9", "\U0001F600", '"']}}),
            ("sandbox_run", "def main():\n    print('caf\\u00e9')\n    raise ValueError('price in \\u20ac')\n",
             lambda r: (r["stdout"], r["error"]["kind"], r["error"]["message"]),
             ("caf\u00e9\n", "exception", "price in \u20ac")),
            ("sandbox_rows", "def main():\n    return [{'t': 'caf\\u00e9', 'j': {'p': '\\u20ac'}}]\n",
             None, [("caf\u00e9", {"p": "\u20ac"})])]
        for fn, code, pick, want in checks:
            try:
                if fn == "sandbox_rows":
                    c.execute("SELECT t, j FROM sandbox_rows(%s) AS r(t text, j jsonb)", (code,))
                    got = c.fetchall()
                else:
                    c.execute("SELECT %s(%%s)" % fn, (code,))
                    got = pick(c.fetchone()[0])
            except psycopg2.Error as exc:
                got = "raised %s: %s" % (exc.pgcode, exc.diag.message_primary)
            if got != want:
                problems.append("SQL_ASCII, %s %r: %r, expected %r" % (fn, code, got, want))
        conn.close()
    finally:
        cur.execute("DROP DATABASE IF EXISTS pysandbox_sql_ascii")
        admin.close()
    return problems


def where_check():
    """A call stopped at a limit says where its code was (sb_where.c), with
    the Python layer off: the line comes from the child's SIGPROF handler,
    and the backend takes nothing of it but a checked line and name."""
    problems = []
    conn = connect()
    cur = conn.cursor()
    cur.execute("SET pysandbox.python_layer = off")

    def error(code, options):
        try:
            cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)", (code, options))
            return ("ok", cur.fetchone()[0], None)
        except psycopg2.Error as exc:
            return (exc.pgcode, exc.diag.message_primary, exc.diag.message_detail)

    def expect(what, got, want):
        if got != want:
            problems.append("%s: %r, expected %r" % (what, got, want))

    spin = ("class Model:\n    def fit(self):\n        while True: pass\n"
            "def main():\n    return Model().fit()\n")
    expect("a loop at its CPU limit", error(spin, '{"cpu_ms": 200}'),
           ("54000", "sandbox code exceeded the CPU time limit of 200 ms",
            "It was stopped at line 3, in Model.fit()."))
    expect("a loop at its wall-clock limit", error(spin, '{"timeout_ms": 300}'),
           ("57014", "sandbox code exceeded the wall-clock limit of 300 ms",
            "It was stopped at line 3, in Model.fit()."))
    # the innermost frame of the call's code, under pandas' own frames
    apply = ("import pandas as pd\ndef slow(v):\n    while True: pass\n"
             "def main():\n    return int(pd.Series([1, 2]).apply(slow).sum())\n")
    expect("a loop in a function pandas calls", error(apply, '{"cpu_ms": 200}'),
           ("54000", "sandbox code exceeded the CPU time limit of 200 ms",
            "It was stopped at line 3, in slow()."))
    # SIGPROF blocked: no handler runs; the worker's clock still ends it
    blocked = ("import signal\ndef main():\n"
               "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF})\n"
               "    while True: pass\n")
    expect("a loop with SIGPROF blocked", error(blocked, '{"cpu_ms": 200}'),
           ("54000", "sandbox code exceeded the CPU time limit of 200 ms", None))

    # forged frames: a name that is not [A-Za-z0-9_.<>] is dropped, a line
    # out of range drops both, a second frame is a protocol violation.  The
    # CPU timer's exit code is believed only with the time spent: the child
    # spends it (its timer blocked) before it exits with that code.
    at_limit = ("import signal, time\n"
                "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF})\n"
                "t0 = time.process_time()\n"
                "while time.process_time() - t0 < 0.2: pass\n"
                "os._exit(%d)" % EXIT_LIMIT)

    def forged(line, name, then=at_limit):
        return frame_then(WHERE, struct.pack("=i60s", line, name), then)
    expect("a forged frame, a name with a quote", error(forged(7, b'main"; --'), '{"cpu_ms": 200}'),
           ("54000", "sandbox code exceeded the CPU time limit of 200 ms",
            "It was stopped at line 7."))
    expect("a forged frame, line 2,000,000", error(forged(2000000, b"main"), '{"cpu_ms": 200}'),
           ("54000", "sandbox code exceeded the CPU time limit of 200 ms", None))
    expect("a forged frame, unterminated name", error(forged(5, b"m" * 60), '{"cpu_ms": 200}'),
           ("54000", "sandbox code exceeded the CPU time limit of 200 ms",
            "It was stopped at line 5."))
    # the code, not the limit: a crash, and its frame is not read
    expect("a forged frame, the timer's exit code at once",
           error(forged(7, b"main", "os._exit(%d)" % EXIT_LIMIT), "{}"),
           ("39000", "sandbox process exited with code %d without a result" % EXIT_LIMIT, None))
    twice = forged(3, b"main", "os.write(3, struct.pack('=II', %d, 64) + bytes(64))\n"
                   "os._exit(%d)" % (WHERE, EXIT_LIMIT))
    expect("two frames", error(twice, "{}")[:2],
           ("39000", "sandbox process sent an invalid message"))
    short = frame_then(WHERE, b"\x01\x00\x00\x00", "os._exit(%d)" % EXIT_LIMIT)
    expect("a short frame", error(short, "{}")[:2],
           ("39000", "sandbox process sent an invalid message"))
    # a frame, then a whole result: the call succeeded
    expect("a frame, then a result",
           error(forged(3, b"main", "os.write(3, struct.pack('=II', %d, 11) + "
                                    "b'{\"main\": 1}')\nos._exit(0)" % RESULT), "{}"),
           ("ok", {"main": 1}, None))
    conn.close()
    return problems


# --------------------------------------------------------------------------
# memory the address-space limit does not see: a transparent huge page is
# one 2 MB allocation, and unmapping all but one 4 kB page of it frees
# nothing until the kernel splits it under memory pressure.  Each page kept
# cost 4 kB of address space and held 2 MB: one call at memory_mb 64 held
# 2 GB (review 91).  Children run with THP off (sb_contain.c step 5).

THP_PAGES = 400

KEEP_HUGE_PAGES = """
import numpy as np, time
def main():
    ctypes = np.ctypeslib.ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    libc.mmap.restype = vp
    libc.mmap.argtypes = [vp, sz, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [vp, sz]
    libc.madvise.argtypes = [vp, sz, ctypes.c_int]
    libc.mremap.restype = vp
    libc.mremap.argtypes = [vp, sz, sz, ctypes.c_int, vp]
    huge, n = 2 << 20, %d
    dest = libc.mmap(None, n * 4096, 3, 0x22, -1, 0)       # a hole to pack the pages into
    libc.munmap(dest, n * 4096)
    for i in range(n):
        a = libc.mmap(None, huge, 3, 0x22, -1, 0)          # the kernel aligns it to 2 MB
        libc.madvise(a, huge, 14)                          # MADV_HUGEPAGE, as numpy does
        ctypes.memset(a, 1, 1)                             # one fault: a whole huge page
        libc.munmap(a + 4096, huge - 4096)                 # all but its first 4 kB back
        libc.mremap(a, 4096, 4096, 3, dest + i * 4096)     # MREMAP_MAYMOVE | MREMAP_FIXED
    time.sleep(3)
    return n
""" % THP_PAGES


def mem_available_kb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def huge_pages_check():
    """A call keeps 400 huge pages by 4 kB each (800 MB under a 64 MB
    limit); the host's available memory must not drop by that."""
    conn = connect()
    cur = conn.cursor()
    cur.execute("SET pysandbox.python_layer = off")
    out = {}

    def run():
        try:
            cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', "
                        "'{\"memory_mb\": 64}')", (KEEP_HUGE_PAGES,))
            out["result"] = cur.fetchone()[0]
        except psycopg2.Error as exc:
            out["result"] = "%s %s" % (exc.pgcode, exc.diag.message_primary)

    before = mem_available_kb()
    lowest = before
    worker = threading.Thread(target=run)
    with Watchdog(60):
        worker.start()
        while worker.is_alive():
            lowest = min(lowest, mem_available_kb())
            time.sleep(0.05)
        worker.join()
    conn.close()
    problems = []
    if out.get("result") != {"main": THP_PAGES}:
        problems.append("the call gave %r, expected {'main': %d}" % (out.get("result"), THP_PAGES))
    held_mb = (before - lowest) // 1024
    if held_mb > THP_PAGES // 2:    # kept: 2 MB a page; not: 4 kB
        problems.append("the host's available memory dropped by %d MB during a call of "
                        "memory_mb 64 that kept %d huge pages by 4 kB each"
                        % (held_mb, THP_PAGES))
    return problems


SCENARIOS = [
    ("a flood of frames never traps the backend: cancel <= 100 ms, terminate <= 1 s, "
     "the wall limit within 100 ms", flood_check),
    ("a call cannot hold huge pages by a 4 kB page of each: the host's memory stays "
     "within its limit", huge_pages_check),
    ("a child that detached after its result still dies at its wall limit", linger_check),
    ("a child that computes on after its whole result stops when its call returns",
     detach_check),
    ("a function's child kept for a statement's rows dies with it; nothing it keeps "
     "reaches the next statement or another role", held_check),
    ("a held child breaking its mailbox's protocol fails its call within its limits",
     mailbox_check),
    ("a workspace is reachable from its session only, and its process ends with it",
     workspace_check),
    ("every frame costs against the output budget; relayed prints are capped", print_check),
    ("no covert channel between two sessions' children through shared futexes",
     covert_channel_check),
    ("no shared futex woken when a child exits (robust list, clear_child_tid)",
     exit_wake_check),
    ("no state shared between two roles' children through their standard streams' "
     "status flags", stdio_flags_check),
    ("a child holds nothing of the worker's bookkeeping of other sessions (clients, "
     "their children and limits, spares)", inherited_tables_check),
    ("a child's stack holds nothing of another session's calls (the worker's dead frames: "
     "limits, exit reports)", stack_residue_check),
    ("sandbox_run reports what a child sent (forged setup, deep or out-of-range JSON, "
     "memory while reading input); a result then an exit is a success in both forms",
     report_check),
    ("a child's report is read whole in a LATIN1 database", latin1_check),
    ("text past ASCII arrives as UTF-8 in a SQL_ASCII database", sql_ascii_check),
    ("a call stopped at a limit says which line its code was at; forged frames give "
     "no more than a checked line and name", where_check),
]


def run_all(only=""):
    """Run every scenario; returns (passed, failed)."""
    passed = failed = 0
    for title, check in SCENARIOS:
        if only and only not in check.__name__:
            continue
        start = time.monotonic()
        try:
            problems = check()
        except Exception as exc:  # a broken scenario is a failure, not a crash of the suite
            problems = ["the scenario failed: %r" % exc]
        print("%-4s %s  (%.1f s)" % ("ok" if not problems else "FAIL", title,
                                     time.monotonic() - start), flush=True)
        for p in problems:
            print("       ! " + p, flush=True)
        if problems:
            failed += 1
        else:
            passed += 1
    return passed, failed
