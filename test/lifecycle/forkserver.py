#!/usr/bin/python3
"""The cluster-wide fork server (pysandbox in shared_preload_libraries).

Run as root with Debian's interpreter against a test cluster started with
PYSANDBOX_PRELOAD=1 (test/cluster.sh); it restarts that cluster twice to
change pysandbox.max_concurrent and puts the setting back at the end.

    /usr/bin/python3 test/lifecycle/forkserver.py

Checks, each printed as one line:
  (a) one "pysandbox fork server" background worker runs one worker; the
      socket is 0600 in the data directory; a backend's call leaves the
      backend without any child process of its own;
  (b) a client that is not the server's user is refused (no READY);
  (c) killing the worker mid-call fails that call with an error at once (no
      hang), the call's child dies, the background worker starts a new
      worker, the same session's next call works, and so does the next
      call of a session that was idle meanwhile (no error for it), and
      pysandbox_stat counts the call as a crash, not an input's failure;
  (d) with max_concurrent = 1: a second call waits and, after its
      queue_timeout, fails with 53400; a waiting call can be cancelled; a
      waiting call starts when the running one ends;
  (e) afterwards the worker has no child but its idle spares, which hold
      no capabilities, and nothing is left as a zombie or outside the
      cluster;
  (f) the worker (after the restarts above) pins the pages calls write
      through one io_uring ring (fdinfo UserBufs), within 90 % of its
      RLIMIT_MEMLOCK, or holds no ring where the kernel disables io_uring;
      a child running a call holds no fd but 0-3, and no spare holds the
      ring;
  (g) reservations: after a call the worker reserves a contained child
      for the session's next call (its data socket waits, in flight, in
      the backend's control socket), and that call runs on it; a reserved
      child killed while its session is idle costs the next call nothing;
      with max_concurrent = 1 an idle session's reservation yields to
      another session's call, and the idle session's next call still works,
      its print() relayed once; a call on its reservation that closes its
      socket at once and sleeps still ends with its timeout (57014);
  (h) options.parallel: the groups of options.group_by run at once in
      parallel workers of the backend (seen in pg_stat_activity, and two
      children running at once), with the same results as one at a time;
      sql() is refused there, a failing group is named, and a cancel
      leaves no worker and no busy child;
  (i) streamed inputs: a large table input's child runs while its query is
      still fetching rows (seen as a busy child while the query sleeps
      half-way), the result equals the buffered path's, and an error or a
      cancel in the middle of the input leaves no busy child;
  (j) with max_concurrent = 3 and a third session's idle workspace, a
      session that holds the other two slots with idle processes (a
      workspace; two functions' processes kept across a statement's rows)
      does not keep another session's call out: the longest idle one is
      taken back, the workspace's next call says so (55000), the
      statement's call site starts afresh (no error), the third session's workspace
      stays, and the session's other calls go on; with max_concurrent = 4
      and two sessions holding two idle workspaces each, a call of one
      does not take the other's; a statement with more call sites than
      max_concurrent runs (its waiting call ends one of its own idle
      function processes, whose call site starts afresh) and another
      session's calls meanwhile wait no more than a moment (review 99:
      both waited queue_timeout, and the statement failed with 53400),
      also while another session keeps slots of its own (review 101);
      a group_by call with "parallel" = max_concurrent runs on half the
      slots, and another session's calls meanwhile do not wait for its end;
  (k) once the worker has started, every time zone file is in the page
      cache: a child with the Python layer off reads four that were dropped
      from it before the restart without a block read from disk (review
      106: which zone another role's call loaded showed).
The last line is "forkserver: N passed, M failed".
"""

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from proctools import (  # noqa: E402
    DATA_DIR, WORKER_EXE, children, descendants, exe_of, holds_claim_token, is_spare,
    postmaster_pid, process_table, read_stat, seccomp_mode, unix_socket_holders)

SOCKET = os.path.join(DATA_DIR, "pg_stat_tmp", "pysandbox.sock")
LOOP = "def main():\n    while True:\n        pass\n"
PG_CTL = "/usr/lib/postgresql/15/bin/pg_ctl"


def connect():
    conn = psycopg2.connect("", connect_timeout=10)
    conn.autocommit = True
    return conn


def execute(conn, code, options="{}"):
    cur = conn.cursor()
    cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)", (code, options))
    return cur.fetchone()[0]


class Call(threading.Thread):
    """A sandbox call in a thread: result or error, and when it ended."""

    def __init__(self, conn, code, options="{}", setup=None):
        super().__init__(daemon=True)
        self.conn, self.code, self.options, self.setup = conn, code, options, setup
        self.result = self.error = None
        self.ended = None

    def run(self):
        try:
            if self.setup:
                self.conn.cursor().execute(self.setup)
            self.result = execute(self.conn, self.code, self.options)
        except psycopg2.Error as exc:
            self.error = exc
        self.ended = time.monotonic()


def timed_call(conn, value):
    """A trivial call returning value, and how long it took: its result,
    or "SQLSTATE message" if it failed."""
    started = time.monotonic()
    try:
        got = execute(conn, "def main():\n    return %d\n" % value)
    except psycopg2.Error as exc:
        got = "%s %s" % (exc.pgcode, str(exc).strip())
    return got, time.monotonic() - started


def server_processes():
    """(fork server bgworker pid, its worker pid) or (None, None)."""
    table = process_table()
    pm = postmaster_pid()
    bgw = [p for p in children(table, pm) if table[p][0] == "postgres"
           and "pysandbox fork server" in cmdline(p)]
    if len(bgw) != 1:
        return None, None
    workers = [p for p in children(table, bgw[0]) if exe_of(p) == WORKER_EXE]
    return bgw[0], (workers[0] if len(workers) == 1 else None)


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def wait_for(predicate, timeout):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    return None


def running_child(worker, exclude=()):
    """A child of the worker that runs a call (contained, not a spare)."""
    table = process_table()
    kids = [p for p in children(table, worker)
            if seccomp_mode(p) == 2 and not is_spare(p) and p not in exclude]
    return kids[0] if kids else None


def reserved_children(worker):
    """The worker's children reserved for a session: idle (they hold their
    claim token), and the other end of their data socket is held by no
    process (it waits, in flight, in a backend's control socket)."""
    sockets = unix_socket_holders()
    found = []
    for p in children(process_table(), worker):
        if not holds_claim_token(p):
            continue
        try:
            link = os.readlink("/proc/%d/fd/3" % p)
        except OSError:
            continue
        inode = int(link[len("socket:["):-1]) if link.startswith("socket:[") else None
        peer = sockets.get(inode, (None, set()))[0]
        if peer is not None and not sockets.get(peer, (None, set()))[1]:
            found.append(p)
    return found


GETPID = "import os\ndef main():\n    return os.getpid()\n"


def fd_links(pid):
    """{fd number: what it refers to} for a process, or None once it is gone."""
    try:
        return {int(fd): os.readlink("/proc/%d/fd/%s" % (pid, fd))
                for fd in os.listdir("/proc/%d/fd" % pid)}
    except OSError:
        return None


def fd_problems(pid, what, claim):
    """What is wrong with a child's fds: 0-2 /dev/null, 3 a socket, and 4
    its claim token (an eventfd) if and only if claim."""
    links = fd_links(pid)
    if links is None:
        return []
    want = {0: "/dev/null", 1: "/dev/null", 2: "/dev/null"}
    problems = ["%s %d: fd %d is %s, expected %s" % (what, pid, fd, links.get(fd), target)
                for fd, target in want.items() if links.get(fd) != target]
    if not links.get(3, "").startswith("socket:["):
        problems.append("%s %d: fd 3 is %s, expected its data socket" % (what, pid, links.get(3)))
    expected = {0, 1, 2, 3} | ({4} if claim else set())
    if claim and links.get(4) != "anon_inode:[eventfd]":
        problems.append("%s %d: fd 4 is %s, expected its claim token" % (what, pid, links.get(4)))
    if set(links) - expected - ({5} if claim else set()):
        # a spare may still hold /proc/self/statm until it gets its limits
        problems.append("%s %d holds fds %s" % (what, pid, sorted(links)))
    return problems


def open_fds(pid):
    """The fd numbers a process holds, sorted, or None once it is gone."""
    try:
        return sorted(os.listdir("/proc/%d/fd" % pid), key=int)
    except OSError:
        return None


def ring_fds(pid):
    """The process's fds that are io_uring instances."""
    rings = []
    for fd in open_fds(pid) or []:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == "anon_inode:[io_uring]":
                rings.append(fd)
        except OSError:
            pass
    return rings


def pinned_buffers(pid, fd):
    """(registered buffers, bytes they span) from the ring's fdinfo."""
    runs = pinned = 0
    with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "UserBufs:":
                runs = int(parts[1])
            elif len(parts) == 2 and parts[0].endswith(":") and parts[0][:-1].isdigit() \
                    and "/" in parts[1]:
                pinned += int(parts[1].split("/")[1])
    return runs, pinned


def memlock_limit(pid):
    """The process's soft RLIMIT_MEMLOCK in bytes, or None if unlimited."""
    with open("/proc/%d/limits" % pid) as f:
        for line in f:
            if line.startswith("Max locked memory"):
                soft = line.split()[3]
                return None if soft == "unlimited" else int(soft)
    return None


def restart_cluster():
    subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c",
                    "%s -D %s -w -m fast restart -l %s/log" % (
                        PG_CTL, DATA_DIR, os.path.dirname(DATA_DIR))],
                   check=True, stdout=subprocess.DEVNULL)
    if wait_for(lambda: server_processes()[1], 30) is None:
        raise RuntimeError("the fork server did not come back after a restart")


class Suite:
    def __init__(self):
        self.passed = self.failed = 0

    def report(self, name, problems, info=""):
        if problems:
            self.failed += 1
            print("FAIL %s" % name)
            for p in problems:
                print("     ! %s" % p)
        else:
            self.passed += 1
            print("ok   %s%s" % (name, ("  (" + info + ")") if info else ""))
        sys.stdout.flush()

    def check_topology(self):
        problems = []
        bgw, worker = server_processes()
        if bgw is None or worker is None:
            self.report("(a) topology", ["no fork server and worker under the postmaster"])
            return
        mode = os.stat(SOCKET).st_mode
        if not stat.S_ISSOCK(mode) or stat.S_IMODE(mode) != 0o600:
            problems.append("socket mode %o, expected a 0600 socket" % mode)
        conn = connect()
        t0 = time.monotonic()
        got = execute(conn, "def main():\n    return 41 + 1\n")
        first_ms = (time.monotonic() - t0) * 1000
        if got != {"main": 42}:
            problems.append("first call returned %r" % (got,))
        backend = conn.get_backend_pid()
        kids = descendants(process_table(), backend)
        if kids:
            problems.append("the backend has processes of its own: %s" % kids)
        conn.close()
        self.report("(a) one fork server, one worker, 0600 socket, backends fork nothing",
                    problems, "first call of a new connection %.0f ms" % first_ms)

    def check_foreign_uid(self):
        # root is not the server's user: the worker must close without READY
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(5)
        problems = []
        try:
            s.connect(SOCKET)
            data = s.recv(4096)
            if data:
                problems.append("a root client got %d bytes (expected to be refused)" % len(data))
        except (ConnectionResetError, socket.timeout) as exc:
            if isinstance(exc, socket.timeout):
                problems.append("the connection was neither answered nor closed")
        finally:
            s.close()
        self.report("(b) a client of another uid is refused (SO_PEERCRED)", problems)

    def check_kill_worker(self):
        problems = []
        conn = connect()
        execute(conn, "def main():\n    return 1\n")
        idle = connect()            # connected to the worker, idle during the kill
        execute(idle, "def main():\n    return 1\n")
        _bgw, worker = server_processes()

        def kinds():
            cur = idle.cursor()
            cur.execute("SELECT coalesce(sum(crash), 0), coalesce(sum(input), 0) FROM pysandbox_stat")
            return tuple(int(v) for v in cur.fetchone())
        before = kinds()
        call = Call(conn, LOOP, '{"timeout_ms": 8000}')
        call.start()
        child = wait_for(lambda: running_child(worker), 10)
        if child is None:
            self.report("(c) killing the worker mid-call", ["no running child appeared"])
            return
        killed = time.monotonic()
        os.kill(worker, 9)
        call.join(10)
        if call.is_alive():
            problems.append("the call hung 10 s after the worker was killed")
        elif call.error is None:
            problems.append("the call returned %r" % (call.result,))
        elif "sandbox worker exited unexpectedly" not in str(call.error):
            problems.append("unexpected error: %s %s" % (call.error.pgcode, call.error))
        else:
            # counted as a crash, not as an input's failure (review 109)
            after = kinds()
            if (after[0] - before[0], after[1] - before[1]) != (1, 0):
                problems.append("pysandbox_stat counted the lost worker as %d crash(es) and %d "
                                "input failure(s), not one crash"
                                % (after[0] - before[0], after[1] - before[1]))
        took = (call.ended - killed) * 1000 if call.ended else -1
        if wait_for(lambda: not os.path.exists("/proc/%d" % child), 5) is None:
            problems.append("the call's child %d outlived the worker" % child)
        new = wait_for(lambda: server_processes()[1] not in (None, worker) and server_processes()[1], 15)
        if not new:
            problems.append("no new worker within 15 s")
        try:
            if execute(conn, "def main():\n    return 3\n") != {"main": 3}:
                problems.append("the next call in the same session failed")
        except psycopg2.Error as exc:
            problems.append("the next call failed: %s" % exc)
        try:   # a session that was idle must not pay for the restart
            if execute(idle, "def main():\n    return 4\n") != {"main": 4}:
                problems.append("the idle session's next call failed")
        except psycopg2.Error as exc:
            problems.append("the idle session's next call failed: %s" % exc)
        idle.close()
        conn.close()
        self.report("(c) killing the worker mid-call: error, child gone, restarted, idle sessions unaffected", problems,
                    "error after %.0f ms: %s" % (took, str(call.error).strip().splitlines()[0]
                                                 if call.error else "-"))

    def check_kill_worker_between_workspace_calls(self):
        """Review 74 L3: a workspace whose worker was killed between two
        calls says so at its next use (55000, why), not 58000 "exited"."""
        problems = []
        conn = connect()
        cur = conn.cursor()
        cur.execute("SELECT sandbox_workspace_open()")
        handle = cur.fetchone()[0]
        options = json.dumps({"workspace": handle})
        execute(conn, "def main(ws):\n    ws['n'] = 1\n    return 1\n", options)
        _bgw, worker = server_processes()
        os.kill(worker, 9)
        if not wait_for(lambda: server_processes()[1] not in (None, worker), 15):
            problems.append("no new worker within 15 s")
        for attempt in ("first", "second"):
            try:
                got = execute(conn, "def main(ws):\n    return ws.get('n')\n", options)
                problems.append("the %s use after the kill returned %r" % (attempt, got))
            except psycopg2.Error as exc:
                want = ('workspace "%s" has ended' % handle,
                        "Its sandbox worker exited or was restarted since its last call")
                if exc.pgcode != "55000" or want[0] not in str(exc) or \
                        want[1] not in (exc.diag.message_detail or ""):
                    problems.append("the %s use after the kill: %s %s (detail: %s)"
                                    % (attempt, exc.pgcode, str(exc).strip().splitlines()[0],
                                       exc.diag.message_detail))
        try:
            if execute(conn, "def main():\n    return 5\n") != {"main": 5}:
                problems.append("a plain call after that failed")
        except psycopg2.Error as exc:
            problems.append("a plain call after that failed: %s" % exc)
        conn.close()
        self.report("(c2) a workspace whose worker was killed between calls says why (55000)",
                    problems)

    def check_max_concurrent(self):
        problems = []
        admin = connect()
        admin.cursor().execute("ALTER SYSTEM SET pysandbox.max_concurrent = 1")
        admin.close()
        restart_cluster()
        try:
            a, b, c, d = connect(), connect(), connect(), connect()
            execute(a, "def main():\n    return 1\n")
            _bgw, worker = server_processes()
            first = Call(a, LOOP, '{"timeout_ms": 3000}')
            first.start()
            if wait_for(lambda: running_child(worker), 10) is None:
                problems.append("the first call did not start")
            # (1) a call that may wait 500 ms gets 53400
            busy = Call(b, "def main():\n    return 2\n", setup="SET pysandbox.queue_timeout = '500ms'")
            t0 = time.monotonic()
            busy.start()
            busy.join(10)
            if busy.error is None or busy.error.pgcode != "53400":
                problems.append("the queued call got %s / %r, expected 53400"
                                % (busy.error and busy.error.pgcode, busy.result))
            elif "too many sandbox calls are running" not in str(busy.error):
                problems.append("unexpected message: %s" % busy.error)
            else:
                # counted as busy, not as a broken input (review 117 F3)
                cur = b.cursor()
                cur.execute("SELECT busy, input FROM pysandbox_stat "
                            "WHERE code = 'def main():' || chr(10) || '    return 2' || chr(10)")
                got = cur.fetchall()
                if got != [(1, 0)]:
                    problems.append("pysandbox_stat counts the refused call as (busy, input) "
                                    "%r, expected [(1, 0)]" % got)
            waited = (busy.ended - t0) * 1000 if busy.ended else -1
            if not 400 <= waited <= 3000:
                problems.append("it failed after %.0f ms (queue_timeout 500 ms)" % waited)
            # (2) a waiting call is cancelled promptly
            cancel = Call(c, "def main():\n    return 3\n", setup="SET pysandbox.queue_timeout = '10s'")
            cancel.start()
            time.sleep(0.3)
            t1 = time.monotonic()
            admin = connect()
            admin.cursor().execute("SELECT pg_cancel_backend(%s)", (c.get_backend_pid(),))
            cancel.join(5)
            if cancel.error is None or cancel.error.pgcode != "57014":
                problems.append("the cancelled waiting call got %s / %r"
                                % (cancel.error and cancel.error.pgcode, cancel.result))
            elif (cancel.ended - t1) > 1.0:
                problems.append("cancelling a waiting call took %.0f ms" % ((cancel.ended - t1) * 1000))
            # (3) a waiting call starts when the running one ends
            later = Call(d, "def main():\n    return 4\n", setup="SET pysandbox.queue_timeout = '10s'")
            later.start()
            first.join(10)
            later.join(15)
            if first.error is None or first.error.pgcode != "57014":
                problems.append("the running call ended with %s, expected its timeout"
                                % (first.error and first.error.pgcode))
            if later.result != {"main": 4}:
                problems.append("the waiting call got %r / %s" % (later.result, later.error))
            try:   # the cancelled session works again
                if execute(c, "def main():\n    return 5\n") != {"main": 5}:
                    problems.append("the cancelled session's next call failed")
            except psycopg2.Error as exc:
                problems.append("the cancelled session's next call failed: %s" % exc)
            # (4) a workspace idle between two calls holds the slot: the
            # refused call's DETAIL says so, and what to do (review 74 M1:
            # "too many calls are running" with none running)
            e = connect()
            cur = e.cursor()
            cur.execute("SELECT sandbox_workspace_open()")
            handle = cur.fetchone()[0]
            execute(e, "def main(ws):\n    return 6\n", json.dumps({"workspace": handle}))
            idle = Call(b, "def main():\n    return 7\n", setup="SET pysandbox.queue_timeout = '500ms'")
            idle.start()
            idle.join(10)
            if idle.error is None or idle.error.pgcode != "53400":
                problems.append("a call beside an idle workspace got %s / %r, expected 53400"
                                % (idle.error and idle.error.pgcode, idle.result))
            elif "1 of them is a process idle between two calls" not in \
                    (idle.error.diag.message_detail or "") or \
                    "sandbox_workspace_close" not in (idle.error.diag.message_hint or ""):
                problems.append("the DETAIL and HINT do not name the idle workspace: %r / %r"
                                % (idle.error.diag.message_detail, idle.error.diag.message_hint))
            # ... and pysandbox_activity names its session (review 109 F3)
            cur.execute("SELECT pg_backend_pid()")
            e_pid = cur.fetchone()[0]
            acur = admin.cursor()
            acur.execute("SELECT pid, state FROM pysandbox_activity")
            held = acur.fetchall()
            if held != [(e_pid, "idle in workspace")] or \
                    "pysandbox_activity" not in (idle.error and idle.error.diag.message_hint or ""):
                problems.append("pysandbox_activity shows %r (the workspace's session is %d); hint %r"
                                % (held, e_pid, idle.error and idle.error.diag.message_hint))
            cur.execute("SELECT sandbox_workspace_close(%s)", (handle,))
            if execute(b, "def main():\n    return 8\n") != {"main": 8}:
                problems.append("the slot did not come back when the workspace closed")
            for conn in (a, b, c, d, e, admin):
                conn.close()
            self.check_reservation_yields(problems)
        finally:
            admin = connect()
            admin.cursor().execute("ALTER SYSTEM RESET pysandbox.max_concurrent")
            admin.close()
            restart_cluster()
        self.report("(d) max_concurrent = 1: wait, 53400 after queue_timeout, cancel, FIFO start, "
                    "an idle session's reservation yields", problems)

    def check_idle_holders_yield(self):
        """With max_concurrent = 3 and a third session holding one slot: a
        session holding the other two with idle processes (a workspace, a
        function's kept for a cursor or across a statement's rows) does
        not keep another session's call out; the longest idle one is taken
        back, and its owner's next use says why.  (A session's own waiting
        call ends one of its idle function processes first, without an
        error: it never waits for a slot only it could free.)"""
        problems = []
        admin = connect()
        admin.cursor().execute("ALTER SYSTEM SET pysandbox.max_concurrent = 3")
        for name in ("fs_held", "fs_held2"):
            admin.cursor().execute("CREATE OR REPLACE FUNCTION %s(x int) RETURNS int "
                                   "LANGUAGE pysandbox AS 'return x'" % name)
        admin.close()
        restart_cluster()
        x, y, z = connect(), connect(), connect()

        def workspace_kept(conn, ws, value, which):
            """A workspace that must still answer: a problem if it does not."""
            try:
                if execute(conn, "def main(ws):\n    return %d\n" % value,
                           json.dumps({"workspace": ws})) != {"main": value}:
                    problems.append("%s answered wrong" % which)
            except psycopg2.Error as exc:
                problems.append("%s was taken: %s %s" % (which, exc.pgcode, exc))

        try:
            xc, yc, zc = x.cursor(), y.cursor(), z.cursor()
            yc.execute("SET pysandbox.queue_timeout = '5s'")
            # the third slot: a workspace of a session holding one, which
            # nothing below may take
            zc.execute("SELECT sandbox_workspace_open()")
            zws = zc.fetchone()[0]
            if execute(z, "def main(ws):\n    return 0\n",
                       json.dumps({"workspace": zws})) != {"main": 0}:
                problems.append("the third session's workspace answered wrong")

            def ws_call(ws, value):
                return execute(x, "def main(ws):\n    return %d\n" % value,
                               json.dumps({"workspace": ws}))

            def other_call(value):
                got, waited = timed_call(y, value)
                if got != {"main": value}:
                    problems.append("the other session's call got %r" % (got,))
                elif waited > 3:
                    problems.append("the other session waited %.1f s" % waited)

            # (1) a workspace, then a cursor's kept child: the workspace is
            # the longest idle, and goes
            xc.execute("SELECT sandbox_workspace_open()")
            ws1 = xc.fetchone()[0]
            ws_call(ws1, 1)
            time.sleep(0.3)
            xc.execute("BEGIN")
            xc.execute("DECLARE c CURSOR FOR SELECT fs_held(g) FROM generate_series(1, 5) g")
            xc.execute("FETCH 1 FROM c")
            time.sleep(0.5)
            other_call(2)
            xc.execute("FETCH 1 FROM c")
            if xc.fetchone() != (2,):
                problems.append("the cursor's function lost its process instead")
            xc.execute("SAVEPOINT before_ws")  # the cursor's transaction goes on
            try:
                ws_call(ws1, 3)
                problems.append("the idle workspace was not taken back")
            except psycopg2.Error as exc:
                if exc.pgcode != "55000" or "taken back while it waited" not in str(exc):
                    problems.append("the workspace's next call: %s %s" % (exc.pgcode, exc))
            xc.execute("ROLLBACK TO SAVEPOINT before_ws")
            xc.execute("ROLLBACK")
            # (2) two functions' processes kept across one statement's rows,
            # idle while it sleeps: the longer idle goes, and its call site
            # starts afresh at the next row (a function's process is a
            # cache; review 102: the statement failed with 53400)
            outcome = {}

            def statement():
                try:
                    cur = x.cursor()
                    cur.execute(
                        "SELECT fs_held(g), fs_held2(g), "
                        "pg_sleep(CASE WHEN g = 1 THEN 1.5 ELSE 0 END) "
                        "FROM generate_series(1, 3) g")
                    outcome["rows"] = [r[:2] for r in cur.fetchall()]
                    outcome["error"] = None
                except psycopg2.Error as exc:
                    outcome["error"] = exc
            runner = threading.Thread(target=statement, daemon=True)
            runner.start()
            time.sleep(0.7)
            other_call(5)
            runner.join(15)
            exc = outcome.get("error")
            if exc is not None:
                problems.append("the statement whose process was taken back: %s %s"
                                % (exc.pgcode, exc))
            elif outcome.get("rows") != [(1, 1), (2, 2), (3, 3)]:
                problems.append("the statement whose process was taken back returned %r"
                                % (outcome.get("rows"),))
            xc.execute("SELECT sandbox_workspace_open()")
            if ws_call(xc.fetchone()[0], 6) != {"main": 6}:
                problems.append("the session's calls stopped working")
            workspace_kept(z, zws, 10, "the third session's workspace (holding one)")
            x.close()
            y.close()
            z.close()
            # (3) max_concurrent = 4, two sessions holding two idle
            # workspaces each: a call of one of them may not take the
            # other's (it holds no more than the caller)
            admin = connect()
            admin.cursor().execute("ALTER SYSTEM SET pysandbox.max_concurrent = 4")
            admin.close()
            restart_cluster()
            x, y = connect(), connect()
            xc = x.cursor()
            held = {}
            for conn, name in ((x, "x"), (y, "y")):
                for k in range(2):
                    cur = conn.cursor()
                    cur.execute("SELECT sandbox_workspace_open()")
                    held[name + str(k)] = (conn, cur.fetchone()[0])
                    if execute(conn, "def main(ws):\n    return 7\n",
                               json.dumps({"workspace": held[name + str(k)][1]})) != {"main": 7}:
                        problems.append("workspace %s%d answered wrong" % (name, k))
            time.sleep(0.5)
            xc.execute("SET pysandbox.queue_timeout = '1s'")
            try:
                execute(x, "def main():\n    return 8\n")
                problems.append("a session holding two took a slot from one holding two")
            except psycopg2.Error as exc:
                if exc.pgcode != "53400":
                    problems.append("the caller holding two: %s %s" % (exc.pgcode, exc))
            for key in ("y0", "y1"):
                workspace_kept(held[key][0], held[key][1], 9, "workspace %s" % key)
            x.close()
            y.close()
            # (4) max_concurrent = 4: a statement with six call sites, over
            # and over, while another session calls (review 99: the
            # statement kept four idle processes, waited for a fifth slot
            # queue_timeout long and failed, and the other session's calls
            # waited behind it as long)
            x, y = connect(), connect()
            x.cursor().execute("SET pysandbox.queue_timeout = '4s'")
            y.cursor().execute("SET pysandbox.queue_timeout = '4s'")
            statement = ("SELECT " + ", ".join("fs_held(g + %d)" % k for k in range(6)) +
                         " FROM generate_series(1, 3) g")
            # review 102: one that runs long kept every slot while it ran
            # (each of its calls ended one of its own processes and went
            # ahead of older calls)
            long_statement = ("SELECT " + ", ".join("fs_held(g + %d)" % k for k in range(6)) +
                              " FROM generate_series(1, 40) g")
            outcome = {"runs": 0, "errors": []}
            stop = threading.Event()

            def hog():
                cur = x.cursor()
                while not stop.is_set():
                    try:
                        cur.execute(long_statement)
                        if cur.fetchall()[2] != tuple(range(3, 9)):
                            outcome["errors"].append("wrong rows")
                        outcome["runs"] += 1
                    except psycopg2.Error as exc:
                        outcome["errors"].append("%s %s" % (exc.pgcode, str(exc).strip()))
            runner = threading.Thread(target=hog, daemon=True)
            runner.start()
            time.sleep(0.5)
            for k in range(5):
                got, waited = timed_call(y, k)
                if got != {"main": k}:
                    problems.append("another session's call beside the statement got %r"
                                    % (got,))
                elif waited > 2:
                    problems.append("another session's call waited %.1f s beside the statement"
                                    % waited)
                time.sleep(0.2)
            stop.set()
            runner.join(90)
            # its processes may be taken back for the other session's call
            # (their call sites start afresh); it never waits for a slot
            # only it could free
            if outcome["errors"] or outcome["runs"] == 0:
                problems.append("the statement with six call sites: %d runs, errors %s"
                                % (outcome["runs"], outcome["errors"][:2]))
            # (5) the same statement while the other session keeps two idle
            # workspaces (review 101: the statement kept the two slots left,
            # waited for a third queue_timeout long and failed)
            yc = y.cursor()
            for k in range(2):
                yc.execute("SELECT sandbox_workspace_open()")
                yws = yc.fetchone()[0]
                execute(y, "def main(ws):\n    return 1\n", json.dumps({"workspace": yws}))
            try:
                cur = x.cursor()
                cur.execute(statement)
                if cur.fetchall()[2] != tuple(range(3, 9)):
                    problems.append("the statement beside two workspaces: wrong rows")
            except psycopg2.Error as exc:
                problems.append("the statement beside two workspaces: %s %s"
                                % (exc.pgcode, str(exc).strip()[:200]))
            workspace_kept(y, yws, 2, "the other session's workspace")
            # (6) a group_by call with "parallel" = max_concurrent beside
            # another session's calls (review 99 N1: its processes, never
            # idle between groups, held every slot for the whole call, and
            # the other session's calls waited for its end): its groups
            # run on at most half of the slots
            x.close()
            y.close()
            x, y = connect(), connect()
            xc = x.cursor()
            xc.execute("CREATE TEMP TABLE fs_pgroups AS SELECT i % 8 AS g, i AS v "
                       "FROM generate_series(1, 80) i")
            y.cursor().execute("SET pysandbox.queue_timeout = '6s'")
            grouped = {}

            def groups():
                try:
                    xc.execute("SELECT sandbox_execute(%s, '{\"df\": {\"$table\": \"fs_pgroups\"}}', "
                               "'{main}', '{\"group_by\": \"g\", \"parallel\": 4}')",
                               ("import time\ndef main(df):\n    time.sleep(1.5)\n"
                                "    return len(df)\n",))
                    grouped["result"] = xc.fetchone()[0]
                except psycopg2.Error as exc:
                    grouped["result"] = "%s %s" % (exc.pgcode, str(exc).strip())
            runner = threading.Thread(target=groups, daemon=True)
            runner.start()
            time.sleep(1.0)
            waits = []
            for k in range(3):
                got, waited = timed_call(y, k)
                waits.append(waited)
                if got != {"main": k}:
                    problems.append("another session's call beside parallel groups got %r"
                                    % (got,))
                time.sleep(0.3)
            still_running = runner.is_alive()
            runner.join(60)
            if max(waits) > 1.5 or not still_running:
                problems.append("another session's calls waited %s s beside parallel groups "
                                "(the groups still running: %s)"
                                % (", ".join("%.1f" % w for w in waits), still_running))
            if grouped.get("result") != {"main": {str(g): 10 for g in range(8)}}:
                problems.append("the parallel groups beside the other session: %r"
                                % (grouped.get("result"),))
        except psycopg2.Error as exc:
            problems.append("unexpected: %s %s" % (exc.pgcode, str(exc).strip()))
        finally:
            x.close()
            y.close()
            admin = connect()
            admin.cursor().execute("ALTER SYSTEM RESET pysandbox.max_concurrent")
            admin.cursor().execute("DROP FUNCTION IF EXISTS fs_held(int), fs_held2(int)")
            admin.close()
            restart_cluster()
        self.report("(j) max_concurrent = 3: a session's idle workspace, then a statement's "
                    "idle function process, yield to another session's call; not to one "
                    "holding as many; more call sites than slots run, beside other "
                    "sessions' calls; parallel groups leave half the slots", problems)

    def check_pinned_pages(self):
        problems = []
        _bgw, worker = server_processes()
        rings = ring_fds(worker)
        try:
            with open("/proc/sys/kernel/io_uring_disabled") as f:
                disabled = int(f.read())
        except OSError:
            disabled = 0
        if disabled:
            info = "io_uring disabled here (%d): nothing pinned" % disabled
            if rings:
                problems.append("the worker holds io_uring fds %s" % rings)
        elif len(rings) != 1:
            info = "-"
            problems.append("the worker holds %d io_uring fds, expected 1" % len(rings))
        else:
            runs, pinned = pinned_buffers(worker, rings[0])
            limit = memlock_limit(worker)
            info = "%d pages in %d runs, RLIMIT_MEMLOCK %s" % (pinned // 4096, runs, limit)
            if runs == 0 or pinned == 0:
                problems.append("the ring pins nothing")
            if limit is not None and pinned > limit * 0.9:
                problems.append("%d bytes pinned, over 90 %% of RLIMIT_MEMLOCK %d" % (pinned, limit))
        conn = connect()
        call = Call(conn, LOOP, '{"timeout_ms": 3000}')
        call.start()
        child = wait_for(lambda: running_child(worker), 10)
        if child is None:
            problems.append("no running child appeared")
        else:
            fds = open_fds(child)
            if fds != ["0", "1", "2", "3"]:
                problems.append("the running child %d holds fds %s" % (child, fds))
            problems += fd_problems(child, "the running child", False)
        call.join(10)
        conn.close()
        spares = wait_for(lambda: [p for p in children(process_table(), worker)
                                   if is_spare(p)], 5) or []
        for p in spares:
            # a spare keeps /proc/self/statm open until it gets its limits; one
            # just forked may not have closed the worker's fds yet
            def spare_problems(p=p):
                found = fd_problems(p, "the spare", True)
                st = read_stat(p)
                if st is None or st[1] in ("Z", "X"):
                    # it went (claimed, or replaced) while looked at: ci14; an
                    # exited one not yet reaped lists no fds
                    return []
                if ring_fds(p):
                    found.append("the spare %d holds the io_uring ring" % p)
                return found
            deadline = time.monotonic() + 2
            while spare_problems() and time.monotonic() < deadline:
                time.sleep(0.02)
            problems += spare_problems()
        if not spares:
            problems.append("no spare to look at")
        self.report("(f) the worker pins what calls write; no child holds the ring",
                    problems, info)

    def check_reservations(self):
        problems = []
        info = ""
        _bgw, worker = server_processes()
        conn = connect()
        conn.cursor().execute("SET pysandbox.python_layer = off")   # os.getpid()
        # a reservation serves calls with the limits it was contained with,
        # wall clock included: every call here has the same
        conn.cursor().execute("SET pysandbox.timeout = '1500ms'")
        first = execute(conn, GETPID)["main"]
        reserved = wait_for(lambda: reserved_children(worker), 5) or []
        if len(reserved) != 1:
            problems.append("after a call the worker reserved %s for the session, expected one child"
                            % reserved)
        else:
            second = execute(conn, GETPID)["main"]
            if second != reserved[0]:
                problems.append("the next call ran on %d, not on its reservation %d"
                                % (second, reserved[0]))
            elif second == first:
                problems.append("two calls ran on the same child %d" % first)
            info = "calls on %d, then on reservation %d" % (first, second)
        # a call running on its reservation holds /dev/null, its socket, no token
        reserved = wait_for(lambda: reserved_children(worker), 5) or []
        if reserved:
            call = Call(conn, LOOP)
            call.start()
            if wait_for(lambda: running_child(worker) == reserved[0], 5) is None:
                problems.append("the call did not run on its reservation %d" % reserved[0])
            else:
                problems += fd_problems(reserved[0], "the call on its reservation", False)
            call.join(10)
        # a reservation that dies while its session is idle
        victim = wait_for(lambda: reserved_children(worker), 5) or []
        if not victim:
            problems.append("no reservation after the second call")
        else:
            os.kill(victim[0], 9)
            wait_for(lambda: not os.path.exists("/proc/%d" % victim[0]), 5)
            try:
                third = execute(conn, GETPID)["main"]
                if third == victim[0]:
                    problems.append("a call ran on the killed reservation")
            except psycopg2.Error as exc:
                problems.append("the call after its reservation was killed failed: %s" % exc)
        # ... and one that dies just before the call uses it: the worker,
        # stopped meanwhile, says so only after the call has sent its request
        victim = wait_for(lambda: reserved_children(worker), 5) or []
        if not victim:
            problems.append("no reservation after the third call")
        else:
            os.kill(worker, signal.SIGSTOP)
            try:
                os.kill(victim[0], 9)
                wait_for(lambda: read_stat(victim[0]) is None or read_stat(victim[0])[1] == "Z", 5)
                call = Call(conn, "def main():\n    print('once')\n    return 5\n")
                call.start()
                time.sleep(0.3)
            finally:
                os.kill(worker, signal.SIGCONT)
            call.join(10)
            notices = [n for n in conn.notices if "once" in n]
            if call.is_alive() or call.result != {"main": 5}:
                problems.append("the call on a reservation that died before it got %r / %s"
                                % (call.result, call.error))
            elif len(notices) != 1:
                problems.append("its print() reached the client %d times" % len(notices))
        # a call on its reservation that ends its socket at once and sleeps:
        # the worker must still time it (it hears of the call from the
        # child's claim, not from the backend)
        _bgw, worker = server_processes()
        if not wait_for(lambda: reserved_children(worker), 5):
            problems.append("no reservation before the call that closes its socket")
        t0 = time.monotonic()
        try:
            execute(conn, "import os, time\ndef main():\n    os.close(3)\n    time.sleep(30)\n")
            problems.append("the call that closed its socket and slept did not fail")
        except psycopg2.Error as exc:
            took = time.monotonic() - t0
            if exc.pgcode != "57014" or took > 2.5:
                problems.append("the call that closed its socket and slept: %s %s after %.1f s "
                                "(expected 57014 after its 1.5 s timeout)"
                                % (exc.pgcode, (exc.diag.message_primary or "").strip(), took))
        if server_processes()[1] != worker:
            problems.append("the worker was replaced after the call that closed its socket")
        conn.close()
        self.report("(g) the next call runs on a child reserved for it; a dead reservation costs nothing",
                    problems, info)

    def check_reservation_yields(self, problems):
        """With max_concurrent = 1 (set by the caller): an idle session's
        reservation holds the only slot; another session's call takes it."""
        x, y = connect(), connect()
        notices = []
        try:
            execute(x, "def main():\n    return 1\n")
            _bgw, worker = server_processes()
            if not wait_for(lambda: reserved_children(worker), 5):
                problems.append("no reservation for the idle session")
            # no wait at all: the slot the reservation frees is this call's
            y.cursor().execute("SET pysandbox.queue_timeout = 0")
            t0 = time.monotonic()
            got = execute(y, "def main():\n    return 2\n")
            if got != {"main": 2}:
                problems.append("the other session got %r" % (got,))
            elif time.monotonic() - t0 > 2:
                problems.append("the other session waited %.1f s for the idle session's slot"
                                % (time.monotonic() - t0))
            got = execute(x, "def main():\n    print('once')\n    return 3\n")
            notices = [n for n in x.notices if "once" in n]
            if got != {"main": 3}:
                problems.append("the idle session's next call got %r" % (got,))
            if len(notices) != 1:
                problems.append("its print() reached the client %d times: %r" % (len(notices), notices))
        except psycopg2.Error as exc:
            problems.append("a call failed: %s %s" % (exc.pgcode, str(exc).strip()))
        finally:
            x.close()
            y.close()

    def check_parallel_groups(self):
        """(h) options.parallel: groups at once in parallel workers."""
        problems = []
        conn = connect()
        cur = conn.cursor()
        cur.execute("DROP TABLE IF EXISTS fs_groups")
        cur.execute("CREATE TABLE fs_groups AS SELECT i % 12 AS g, i AS x "
                    "FROM generate_series(1, 1200) i")
        inputs = '{"df": {"$table": "fs_groups"}}'
        code = "def main(df):\n    return {'n': len(df), 'sum': int(df.x.sum()), 'name': df.name}\n"

        def run(code, options):
            cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)", (code, inputs, options))
            return cur.fetchone()[0]

        serial = run(code, '{"group_by": "g"}')
        parallel = run(code, '{"group_by": "g", "parallel": 3}')
        if serial != parallel or len(serial["main"]) != 12:
            problems.append("parallel %r differs from one at a time %r" % (parallel, serial))
        cur.execute("SELECT array_agg(x ORDER BY g, x) FROM sandbox_rows(%s, %s, 'main', %s) "
                    "AS t(g int, x int)", ("def main(df):\n    return df.nsmallest(3, 'x')\n",
                                          inputs, '{"group_by": "g", "parallel": 2}'))
        rows = cur.fetchone()[0]
        cur.execute("SELECT array_agg(x ORDER BY g, x) FROM (SELECT g, x, "
                    "row_number() OVER (PARTITION BY g ORDER BY x) AS r FROM fs_groups) s "
                    "WHERE r <= 3")
        if rows != cur.fetchone()[0]:
            problems.append("sandbox_rows in parallel: %r" % (rows,))

        # the groups run at once: parallel workers of this backend, and
        # children running calls at the same time
        _bgw, worker = server_processes()
        busy = "def main(df):\n    n = 0\n    for i in range(4000000):\n        n += i\n    return n\n"
        watcher = connect()
        wcur = watcher.cursor()
        most_workers = most_children = 0
        leader = conn.get_backend_pid()
        t = threading.Thread(target=lambda: run(busy, '{"group_by": "g", "parallel": 2}'),
                             daemon=True)
        t.start()
        while t.is_alive():
            wcur.execute("SELECT count(*) FROM pg_stat_activity WHERE leader_pid = %s "
                         "AND backend_type = 'parallel worker'", (leader,))
            most_workers = max(most_workers, wcur.fetchone()[0])
            table = process_table()
            running = [p for p in children(table, worker)
                       if seccomp_mode(p) == 2 and not is_spare(p)] if worker else []
            most_children = max(most_children, len(running))
            time.sleep(0.02)
        t.join()
        if most_workers != 2:
            problems.append("at most %d parallel workers seen, expected 2" % most_workers)
        if most_children < 2:
            problems.append("at most %d children ran at once, expected 2" % most_children)

        for code, want, state in (
                ("def main(df):\n    return len(sql('SELECT 1'))\n",
                 "sql() is not available in groups run in parallel", "0A000"),
                ("def main(df):\n    if df.name == 5:\n        raise ValueError('five')\n    return 1\n",
                 "group (g)=(5) of input \"df\"", "38000")):
            try:
                run(code, '{"group_by": "g", "parallel": 3}')
                problems.append("%r did not fail" % code)
            except psycopg2.Error as exc:
                text = "%s\n%s" % (exc.pgerror, exc.diag.context)
                if want not in text:
                    problems.append("error %r does not say %r" % (text, want))
                # an uncaught SQLError keeps its SQLSTATE in a parallel
                # worker's group too (review 77 L5)
                if exc.pgcode != state:
                    problems.append("error %r has SQLSTATE %s, expected %s"
                                    % (text, exc.pgcode, state))

        # cancel: the workers and their children go
        cur.execute("SET statement_timeout = '1s'")
        try:
            run(LOOP.replace("main()", "main(df)"), '{"group_by": "g", "parallel": 3}')
            problems.append("the endless groups were not cancelled")
        except psycopg2.Error as exc:
            if exc.pgcode != "57014":
                problems.append("cancel: %s %s" % (exc.pgcode, exc.pgerror))
        cur.execute("RESET statement_timeout")

        def settled():
            wcur.execute("SELECT count(*) FROM pg_stat_activity WHERE leader_pid = %s",
                         (leader,))
            if wcur.fetchone()[0] != 0:
                return False
            table = process_table()
            return not [p for p in children(table, worker) if not is_spare(p)]
        if wait_for(settled, 5) is None:
            problems.append("parallel workers or children left after the cancel")
        cur.execute("DROP TABLE fs_groups")
        conn.close()
        watcher.close()
        self.report("(h) options.parallel: groups at once in parallel workers, same results, "
                    "sql() refused, the failing group named, cancel leaves nothing", problems,
                    "%d workers, %d children at once" % (most_workers, most_children))

    def check_streamed_inputs(self):
        """(i) streamed inputs: the child runs while the query fetches."""
        problems = []
        conn = connect()
        cur = conn.cursor()
        code = ("def main(df):\n"
                "    return [len(df), int(df.x.sum()), str(df.x.dtype), int(df.y.isna().sum())]\n")
        query = ("SELECT x, CASE WHEN x %% 1000 = 0 THEN NULL ELSE x END AS y, "
                 "CASE WHEN x = 150000 THEN pg_sleep(%s) END AS z "
                 "FROM generate_series(1, 300000) x")

        def run(inputs_query, options="{}"):
            cur.execute("SELECT sandbox_execute(%s, jsonb_build_object('df', "
                        "jsonb_build_object('$query', %s::text)), '{main}', %s)",
                        (code, inputs_query, options))
            return cur.fetchone()[0]

        _bgw, worker = server_processes()
        seen = []
        t = threading.Thread(target=lambda: seen.append(run(query % "1.5")), daemon=True)
        t.start()
        time.sleep(0.7)     # the query sleeps at row 150000 for 1.5 s
        table = process_table()
        busy = [p for p in children(table, worker) if seccomp_mode(p) == 2 and not is_spare(p)]
        t.join()
        if not busy:
            problems.append("no child ran while the input's query was half-way")
        want = {"main": [300000, 45000150000, "int64", 300]}
        if seen != [want]:
            problems.append("streamed result %r" % (seen,))
        cur.execute("SET pysandbox.stream_threshold = -1")
        if run(query % "0") != want:
            problems.append("buffered result differs")
        cur.execute("RESET pysandbox.stream_threshold")

        def idle():
            return not [p for p in children(process_table(), worker) if not is_spare(p)]
        # an error half-way through the input: the call and its child end
        try:
            run("SELECT x, 1 / (x - 200000) AS y FROM generate_series(1, 300000) x")
            problems.append("division by zero half-way did not fail")
        except psycopg2.Error as exc:
            if exc.pgcode != "22012" or 'table input "df"' not in (exc.diag.context or ""):
                problems.append("error half-way: %s %s %s" % (exc.pgcode, exc.pgerror,
                                                              exc.diag.context))
        if wait_for(idle, 5) is None:
            problems.append("a busy child was left after the error half-way")
        # a cancel while the query sleeps half-way
        cur.execute("SET statement_timeout = '700ms'")
        try:
            run(query % "30")
            problems.append("the sleeping input was not cancelled")
        except psycopg2.Error as exc:
            if exc.pgcode != "57014":
                problems.append("cancel half-way: %s %s" % (exc.pgcode, exc.pgerror))
        cur.execute("RESET statement_timeout")
        if wait_for(idle, 5) is None:
            problems.append("a busy child was left after the cancel half-way")
        conn.close()
        self.report("(i) streamed inputs: the child runs while the query fetches, the same "
                    "result as buffered, an error or cancel half-way leaves nothing", problems,
                    "%d busy child(ren) seen mid-query" % len(busy))

    def check_zone_files_cached(self):
        """(k) Review 106 F1: every time zone file is in the page cache once
        the worker has started, so a child (Python layer off) that counts
        the blocks its read of one takes cannot tell which zone another
        call loaded.  Four files are dropped from the cache, the cluster
        restarts, and a child reads them."""
        names = ["right/Hongkong", "right/Iceland", "right/Kwajalein", "right/MET"]
        names = [n for n in names if os.path.isfile("/usr/share/zoneinfo/" + n)]
        for n in names:
            fd = os.open("/usr/share/zoneinfo/" + n, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        restart_cluster()
        conn = connect()
        conn.cursor().execute("SET pysandbox.python_layer = off")
        code = ("import os, ctypes\n"
                "libc = ctypes.CDLL(None)\n"
                "class RU(ctypes.Structure):\n"
                "    _fields_ = [('t', ctypes.c_long * 4)] + [(n, ctypes.c_long) for n in (\n"
                "        'maxrss', 'ixrss', 'idrss', 'isrss', 'minflt', 'majflt', 'nswap',\n"
                "        'inblock', 'oublock', 'msgsnd', 'msgrcv', 'nsignals', 'nvcsw', 'nivcsw')]\n"
                "def inblock():\n"
                "    r = RU(); libc.getrusage(0, ctypes.byref(r)); return r.inblock\n"
                "def main():\n"
                "    out = {}\n"
                "    for n in %r:\n"
                "        fd = os.open('/usr/share/zoneinfo/' + n, os.O_RDONLY)\n"
                "        b = inblock()\n"
                "        os.pread(fd, 64, 0)\n"
                "        out[n] = 'read from disk' if inblock() > b else 'cached'\n"
                "        os.close(fd)\n"
                "    return out\n" % (names,))
        got = execute(conn, code)["main"]
        conn.close()
        problems = ["%s: %s" % (n, v) for n, v in sorted(got.items()) if v != "cached"]
        if len(got) != len(names):
            problems.append("read %d of %d files" % (len(got), len(names)))
        self.report("(k) time zone files are cached when the worker starts (no page-cache "
                    "probe of another call's zone)", problems, "%d files" % len(names))

    def check_preload_pending(self):
        """(l) Review 117 F6: pysandbox.preload_modules changed and reloaded
        waits for a restart (the fork server's worker reads it when the
        server starts).  sandbox_layers() says so, and a call that needs a
        module not preloaded is told so (the Python layer's ImportError, and
        the backend's hint for the blocked mmap with the layer off), besides
        the advice to add it; after a restart nothing is pending."""
        problems = []
        admin = connect()
        admin.cursor().execute("ALTER SYSTEM SET pysandbox.preload_modules = 'scipy'")
        admin.cursor().execute("SELECT pg_reload_conf()")
        admin.close()
        code = "import scipy.stats\ndef main():\n    return 1\n"
        setup = "SET pysandbox.allowed_modules = 'math, numpy, pandas, scipy'"

        def pending():
            conn = connect()
            cur = conn.cursor()
            cur.execute("SELECT detail FROM sandbox_layers() WHERE layer = 'preload'")
            detail = cur.fetchone()[0]
            conn.close()
            return detail if "takes effect when the server restarts" in detail else None

        try:
            if wait_for(pending, 10) is None:
                problems.append("sandbox_layers() did not say the change waits for a restart")
            for layer in ("on", "off"):
                conn = connect()
                conn.cursor().execute(setup)
                conn.cursor().execute("SET pysandbox.python_layer = %s" % layer)
                try:
                    execute(conn, code)
                    problems.append("layer %s: scipy imported before the restart" % layer)
                except psycopg2.Error as exc:
                    said = "%s %s" % (exc.diag.message_primary, exc.diag.message_hint)
                    if "a change to it made already takes effect when the server restarts" not in said:
                        problems.append("layer %s: %s" % (layer, said))
                conn.close()
        finally:
            admin = connect()
            admin.cursor().execute("ALTER SYSTEM RESET pysandbox.preload_modules")
            admin.close()
            restart_cluster()
        conn = connect()
        cur = conn.cursor()
        cur.execute("SELECT detail FROM sandbox_layers() WHERE layer = 'preload'")
        if "restarts" in cur.fetchone()[0]:
            problems.append("sandbox_layers() still says a restart is pending after it")
        if execute(conn, "def main():\n    return 1\n") != {"main": 1}:
            problems.append("a call after the restart failed")
        conn.close()
        self.report("(l) a changed preload_modules waits for a restart, and sandbox_layers() "
                    "and the import's error say so", problems)

    def check_leftovers(self):
        problems = []
        conn = connect()
        execute(conn, "def main():\n    return 1\n")
        conn.close()
        time.sleep(0.5)
        _bgw, worker = server_processes()
        table = process_table()
        kids = children(table, worker) if worker else []
        busy = [p for p in kids if not is_spare(p)]
        if busy:
            problems.append("children still holding a call: %s" % busy)
        # entering the sandbox's user namespace gave them every capability
        # in it; none may be left (sb_contain.c, end of step 4b)
        for pid in kids:
            try:
                with open("/proc/%d/status" % pid) as f:
                    caps = dict(line.split(":", 1) for line in f if line.startswith("Cap"))
            except OSError:
                continue
            # the bounding set too: no exec or uid change could give any back
            held = {k: v.strip() for k, v in caps.items() if int(v, 16) != 0}
            if held:
                problems.append("child %d holds capabilities: %s" % (pid, held))
        zombies = [p for p in descendants(table, postmaster_pid()) if table[p][1] == "Z"]
        if zombies:
            problems.append("zombies under the postmaster: %s" % zombies)
        def strays():
            return [p for p, (comm, _s, ppid) in process_table().items()
                    if comm.startswith("pysandbox-work") and ppid == 1]
        # the restarts above leave old spares dying of their parent-death signal
        if wait_for(lambda: not strays(), 5) is None:
            problems.append("sandbox processes adopted by init: %s" % strays())
        self.report("(e) nothing left but idle spares, and they hold no capabilities", problems,
                    "%d spares" % len(kids))


def main():
    if os.geteuid() != 0:
        print("forkserver: run as root")
        return 2
    suite = Suite()
    conn = connect()
    conn.cursor().execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    conn.close()
    if server_processes()[0] is None:
        print("FAIL the cluster has no pysandbox fork server (start it with PYSANDBOX_PRELOAD=1)")
        print("forkserver: 0 passed, 1 failed")
        return 1
    suite.check_topology()
    suite.check_foreign_uid()
    suite.check_kill_worker()
    suite.check_kill_worker_between_workspace_calls()
    suite.check_max_concurrent()
    suite.check_idle_holders_yield()
    suite.check_parallel_groups()
    suite.check_streamed_inputs()
    suite.check_zone_files_cached()
    suite.check_preload_pending()
    suite.check_leftovers()
    suite.check_pinned_pages()
    suite.check_reservations()
    print("forkserver: %d passed, %d failed" % (suite.passed, suite.failed))
    return 1 if suite.failed else 0


if __name__ == "__main__":
    sys.exit(main())
