"""Process and server-log helpers shared by the security and lifecycle suites.

Everything here reads /proc and the test cluster's files; nothing changes
them.  The suites run as root so they can see the postgres user's processes.
"""

import os
import re
import subprocess

TEST_DIR = os.environ.get("PYSANDBOX_TEST_DIR", "/tmp/pysandbox-test")
DATA_DIR = os.path.join(TEST_DIR, "data")
LOG_PATH = os.path.join(TEST_DIR, "log")
WORKER_EXE = "/usr/lib/postgresql/15/lib/pysandbox-worker"

# Lines PostgreSQL logs when a backend crashed and the postmaster restarted.
CRASH_LOG = re.compile(r"terminated by signal|server process \(PID \d+\)|"
                       r"was terminated|terminating any other active server|"
                       r"all server processes terminated|"
                       r"database system was interrupted")


def read_stat(pid):
    """(comm, state, ppid) of a process, or None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return None
    close = text.rfind(")")
    fields = text[close + 2:].split()
    return text[text.find("(") + 1:close], fields[0], int(fields[1])


def process_table():
    """{pid: (comm, state, ppid)} for every process now."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = read_stat(int(entry))
            if st is not None:
                table[int(entry)] = st
    return table


def children(table, parent):
    return [pid for pid, (_c, _s, ppid) in table.items() if ppid == parent]


def descendants(table, root):
    """Every process below root in the table, depth first."""
    kids = {}
    for pid, (_comm, _state, ppid) in table.items():
        kids.setdefault(ppid, []).append(pid)
    found, stack = [], [root]
    while stack:
        for child in kids.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def exe_of(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


def postmaster_pid():
    with open(os.path.join(DATA_DIR, "postmaster.pid")) as f:
        return int(f.readline())


def owned_by_a_backend(table, pid):
    """True if some ancestor of pid is a PostgreSQL process (of any cluster).

    Other clusters on the machine (a developer's, another test run) have
    sandbox processes of their own; only those whose chain of parents ends
    without a postgres process are orphans.
    """
    seen = set()
    while pid in table and pid not in seen and pid > 1:
        seen.add(pid)
        comm, _state, ppid = table[pid]
        if comm == "postgres":
            return True
        pid = ppid
    return False


def seccomp_mode(pid):
    """The Seccomp: field of /proc/pid/status (0 none, 2 filter), or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Seccomp:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


_SS_LINE = re.compile(r"^u_\w+\s+\S+\s+\d+\s+\d+\s+\S+\s+(\d+)\s+\S+\s+(\d+)\s*(.*)$")


def unix_socket_holders():
    """{socket inode: (peer inode, {pids holding it})}, from ss -xpn."""
    out = subprocess.run(["ss", "-xpn"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         check=True).stdout.decode("utf-8", "replace")
    sockets = {}
    for line in out.splitlines():
        m = _SS_LINE.match(line)
        if m:
            pids = {int(x) for x in re.findall(r"pid=(\d+)", m.group(3))}
            sockets[int(m.group(1))] = (int(m.group(2)), pids)
    return sockets


def _socket_inode(pid, fd):
    try:
        link = os.readlink("/proc/%d/fd/%d" % (pid, fd))
    except OSError:
        return None
    m = re.match(r"socket:\[(\d+)\]$", link)
    return int(m.group(1)) if m else None


def _parent(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def holds_claim_token(pid):
    """True if the child still holds its claim token (fd 4, an eventfd).

    Every spare gets one; it keeps it while it waits, in the pool or
    reserved for a session, and closes it the moment a call's request
    arrives (src/protocol/sb_protocol.h).
    """
    try:
        return os.readlink("/proc/%d/fd/4" % pid) == "anon_inode:[eventfd]"
    except OSError:
        return False


PRELOADED_COMM = "pysandbox-prel"   # src/worker/sb_worker.h


def is_preloaded_process(pid):
    """The worker's preloaded process (src/worker/sb_preloaded.c): a child of
    the worker that holds pysandbox.preload_modules, runs no call, and forks
    the children of calls that name them.  It renames itself."""
    st = read_stat(pid)
    return st is not None and st[0] == PRELOADED_COMM


def is_spare(pid, sockets=None):
    """A spare: a worker's child forked ahead of any call and still idle.

    A spare holds its claim token until a call's request arrives, whether
    it waits in the worker's pool or reserved for a session (whose backend
    then holds the other end of its data socket).  Without one, the worker
    gives the other end of a child's data socket (the child's fd 3) to a
    backend for a call and closes its own copy, so a child whose peer is
    still held by its parent, the worker, has never served a call.  A spare
    may already have finished its containment, seccomp included, while it
    waits; one without a filter yet (just forked: its fd 3 may still be the
    worker's) has not run any call either.
    """
    if is_preloaded_process(pid):
        return False
    if seccomp_mode(pid) == 0 or holds_claim_token(pid):
        return True
    inode = _socket_inode(pid, 3)
    parent = _parent(pid)
    if inode is None or parent is None:
        return False
    if sockets is None:
        sockets = unix_socket_holders()
    peer = sockets.get(inode, (None, set()))[0]
    return peer is not None and parent in sockets.get(peer, (None, set()))[1]


def call_children(table, worker):
    """The worker's children that serve (or served) a call: not spares, not
    its preloaded process."""
    sockets = unix_socket_holders()
    return [p for p in children(table, worker)
            if not is_spare(p, sockets) and not is_preloaded_process(p)]
