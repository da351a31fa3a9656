#!/usr/bin/python3
"""The syscall probe: does the seccomp filter match the policy in the source?

Inside a real sandbox child (Python layer off, so ctypes is reachable), call
every system call number of this architecture with harmless invalid
arguments (-1, 0, 0, 0, 0, 0) and record whether it ran (and failed with an
errno) or was blocked.  Then derive what the policy table in
src/worker/sb_seccomp.c says should happen for those arguments and compare:
any drift fails the test.

    /usr/bin/python3 test/security/syscall_probe.py

Connection settings come from PGHOST/PGPORT/PGUSER (a superuser: it turns
the Python layer off for its session).  Syscall numbers and names come from
the kernel headers (<asm/unistd_64.h>).  A few calls cannot be probed with
these arguments because they end the caller: exit, exit_group (they would
end the probe) and rt_sigreturn (it restores a garbage frame); they are
checked only to be in the table.

Numbers the header does not name (x86_64's unused 335..423, and past its
end up to 511) must all be blocked, or unknown to the kernel (ENOSYS), but
for KERNEL_EXEMPT: two calls the kernel never shows a seccomp filter.

Then the argument filters are probed with arguments on both sides of each
rule (ARG_PROBES): a pid-taking call for this process and for another, a
private and a shared futex, a fixed clock and another process's CPU clock,
the signals whose disposition is fixed and others, an int argument with
bits above 32 set.
"""

import os
import re
import sys

import psycopg2
import psycopg2.extras

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLICY = os.path.join(ROOT, "src", "worker", "sb_seccomp.c")
UNISTD = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
UNPROBED = {"exit", "exit_group", "rt_sigreturn"}

CODE = """
import ctypes
def main(nr):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    rc = libc.syscall(ctypes.c_long(nr), ctypes.c_long(-1), ctypes.c_long(0),
                      ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    return [rc, ctypes.get_errno()]
"""


CODE_ARGS = """
import ctypes, os
def main(nr, args):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    keep = []
    def arg(a):
        if a in ("buf", "sig_ign"):
            b = ctypes.create_string_buffer(b"\\x01" if a == "sig_ign" else b"", 256)
            keep.append(b)
            return ctypes.cast(b, ctypes.c_void_p)
        return ctypes.c_long(os.getpid() if a == "self" else a)
    rc = libc.syscall(ctypes.c_long(nr), *[arg(a) for a in args])
    return [rc, ctypes.get_errno()]
"""

HIGH = 1 << 32          # an int argument the kernel reads as its low 32 bits
OTHER_CLOCK = ((~1) << 3) | 2   # pid 1's process CPU clock
FUTEX_WAIT, FUTEX_WAKE, FUTEX_LOCK_PI, FUTEX_TRYLOCK_PI = 0, 1, 6, 8
FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET, FUTEX_CMP_REQUEUE_PI, FUTEX_LOCK_PI2 = 9, 10, 12, 13
FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME = 128, 256
SIGUSR1, SIGXCPU, SIGPROF, SIGSYS = 10, 24, 27, 31
ITIMER_REAL, ITIMER_PROF = 0, 2
MSG_OOB, MSG_DONTWAIT = 0x1, 0x40
SHUT_RD, SHUT_WR, SHUT_RDWR = 0, 1, 2
MADV_DONTNEED, MADV_REMOVE, MADV_MERGEABLE, MADV_HUGEPAGE, MADV_PAGEOUT = 4, 9, 12, 14, 21
PR_SET_DUMPABLE, PR_SET_THP_DISABLE, PR_GET_THP_DISABLE = 4, 41, 42
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
CLONE_VM, CLONE_SIGHAND, CLONE_THREAD, CLONE_NEWNET = 0x100, 0x800, 0x10000, 0x40000000
CLONE_CHILD_CLEARTID = 0x200000
MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE, MAP_ANONYMOUS = 0x01, 0x02, 0x03, 0x20
MAP_GROWSDOWN, MAP_HUGETLB = 0x0100, 0x40000

# x86_64 calls the kernel runs before any seccomp filter (Linux 6.11+ and
# 6.17+: seccomp_uprobe_exception()); they act only from a uprobe
# trampoline the kernel maps, which no child has.  Outside one, uretprobe
# kills the caller with SIGILL and uprobe fails with ENXIO: what this kernel
# does is pinned here, so a kernel that lets them do more is noticed.
KERNEL_EXEMPT = {
    335: ("uretprobe", "sandbox process crashed: killed by signal 4 (Illegal instruction)"),
    336: ("uprobe", "errno 6"),
}

# (call, arguments, "ran" or "blocked"): both sides of each argument filter
ARG_PROBES = [
    ("kill", ["self", 0], "ran"),
    ("kill", [1, 0], "blocked"),
    ("prlimit64", [0, 9, 0, "buf"], "ran"),
    ("prlimit64", ["self", 9, 0, "buf"], "ran"),
    ("prlimit64", [1, 9, 0, "buf"], "blocked"),
    ("prlimit64", [0, 9, "buf", 0], "blocked"),
    ("sched_getaffinity", [0, 128, "buf"], "ran"),
    ("sched_getaffinity", ["self", 128, "buf"], "ran"),
    ("sched_getaffinity", [1, 128, "buf"], "blocked"),
    ("clock_gettime", [1, "buf"], "ran"),
    ("clock_gettime", [2, "buf"], "ran"),
    ("clock_gettime", [11, "buf"], "ran"),
    ("clock_gettime", [12, "buf"], "blocked"),
    ("clock_gettime", [OTHER_CLOCK, "buf"], "blocked"),
    ("clock_gettime", [1 | HIGH, "buf"], "blocked"),
    ("clock_getres", [OTHER_CLOCK, "buf"], "blocked"),
    ("clock_nanosleep", [OTHER_CLOCK, 0, "buf", 0], "blocked"),
    ("futex", ["buf", FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0], "ran"),
    ("futex", ["buf", FUTEX_WAKE, 1, 0, 0, 0], "blocked"),
    ("futex", ["buf", FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0], "ran"),
    ("futex", ["buf", FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, 1, 0, 0, -1],
     "ran"),
    ("futex", ["buf", FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, 1, 0, 0, -1], "ran"),
    ("futex", ["buf", FUTEX_WAKE | FUTEX_PRIVATE_FLAG | HIGH, 1, 0, 0, 0], "blocked"),
    # priority inheritance looks the word up as a thread id, host-wide
    ("futex", ["buf", FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0], "blocked"),
    ("futex", ["buf", FUTEX_TRYLOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0], "blocked"),
    ("futex", ["buf", FUTEX_LOCK_PI2 | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0], "blocked"),
    ("futex", ["buf", FUTEX_CMP_REQUEUE_PI | FUTEX_PRIVATE_FLAG, 1, 0, "buf", 0], "blocked"),
    ("rt_sigaction", [SIGPROF, 0, "buf", 8], "ran"),
    ("rt_sigaction", [SIGUSR1, "sig_ign", 0, 8], "ran"),
    ("rt_sigaction", [40, "sig_ign", 0, 8], "ran"),
    ("rt_sigaction", [SIGPROF, "sig_ign", 0, 8], "blocked"),
    ("rt_sigaction", [SIGXCPU, "sig_ign", 0, 8], "blocked"),
    ("rt_sigaction", [SIGSYS, "sig_ign", 0, 8], "blocked"),
    ("rt_sigaction", [SIGPROF | HIGH, "sig_ign", 0, 8], "blocked"),
    ("rt_sigaction", [SIGUSR1 | HIGH, "sig_ign", 0, 8], "blocked"),
    # its own CPU timer (a NULL value disarms it), no other timer
    ("setitimer", [ITIMER_PROF, 0, 0], "ran"),
    ("setitimer", [ITIMER_REAL, 0, 0], "blocked"),
    ("setitimer", [ITIMER_PROF | HIGH, 0, 0], "blocked"),
    # a read that does not block, no other flags (MSG_OOB, MSG_PEEK, ...)
    ("recvfrom", [-1, "buf", 8, MSG_DONTWAIT, 0, 0], "ran"),
    ("recvfrom", [-1, "buf", 8, 0, 0, 0], "blocked"),
    ("recvfrom", [-1, "buf", 8, MSG_DONTWAIT | MSG_OOB, 0, 0], "blocked"),
    ("recvfrom", [-1, "buf", 8, MSG_DONTWAIT | HIGH, 0, 0], "blocked"),
    # the end of its own output (sb_io_end), nothing else of a socket
    ("shutdown", [-1, SHUT_WR], "ran"),
    ("shutdown", [-1, SHUT_RD], "blocked"),
    ("shutdown", [-1, SHUT_RDWR], "blocked"),
    ("shutdown", [-1, SHUT_WR | HIGH], "blocked"),
    # the advice allocators use; not holes in shared memory, KSM or paging out
    ("madvise", [0, 0, MADV_DONTNEED], "ran"),
    ("madvise", [0, 0, MADV_HUGEPAGE], "ran"),
    ("madvise", [0, 0, MADV_REMOVE], "blocked"),
    ("madvise", [0, 0, MADV_MERGEABLE], "blocked"),
    ("madvise", [0, 0, MADV_PAGEOUT], "blocked"),
    ("madvise", [0, 0, MADV_DONTNEED | HIGH], "blocked"),
    # private memory, never executable; no shared memory of its own (a
    # shared mapping is not data: review 95), shared only read-only from a
    # file (glibc's gconv cache; the fd -1 here fails with EBADF)
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0], "ran"),
    ("mmap", [0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ, MAP_SHARED, -1, 0], "ran"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0],
     "blocked"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | HIGH, -1, 0],
     "blocked"),
    # the private type by name: 6.11's MAP_DROPPABLE (0x08), or a type a
    # later kernel adds, is refused until looked at (review 114 I2)
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, 0x08 | MAP_ANONYMOUS, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, 0x0a | MAP_ANONYMOUS, -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_ANONYMOUS, -1, 0], "blocked"),
    # nor memory the kernel counts as stack, not data (review 96)
    ("mmap", [0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN,
              -1, 0], "blocked"),
    ("mmap", [0, 4096, PROT_READ, MAP_SHARED | MAP_GROWSDOWN, -1, 0], "blocked"),
    # nor the host's pool of huge pages, which no resident count shows (review 97)
    ("mmap", [0, 2 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
              -1, 0], "blocked"),
    ("mmap", [0, 2 << 20, PROT_READ, MAP_SHARED | MAP_HUGETLB, -1, 0], "blocked"),
    # transparent huge pages turned off (before the code runs), never on,
    # no other prctl
    ("prctl", [PR_SET_THP_DISABLE, 1, 0, 0, 0], "ran"),
    # Linux 6.18's PR_THP_DISABLE_EXCEPT_ADVISED (arg2 = 2) turned huge
    # pages back on where advised (review 93); no flag word passes
    ("prctl", [PR_SET_THP_DISABLE, 1, 2, 0, 0], "blocked"),
    ("prctl", [PR_SET_THP_DISABLE, 1, 0, 1, 0], "blocked"),
    ("prctl", [PR_SET_THP_DISABLE, 1, 0, 0, 1], "blocked"),
    ("prctl", [PR_SET_THP_DISABLE, 1, HIGH, 0, 0], "blocked"),
    ("prctl", [PR_SET_THP_DISABLE, 0, 0, 0, 0], "blocked"),
    ("prctl", [PR_SET_THP_DISABLE | HIGH, 1, 0, 0, 0], "blocked"),
    ("prctl", [PR_SET_THP_DISABLE, 1 | HIGH, 0, 0, 0], "blocked"),
    ("prctl", [PR_GET_THP_DISABLE, 0, 0, 0, 0], "blocked"),
    ("prctl", [PR_SET_DUMPABLE, 1, 0, 0, 0], "blocked"),
    # a thread (RLIMIT_NPROC 0 fails it: EAGAIN), never one whose exit
    # clears and wakes a tid word, a shared wake (review 128 F7: EPERM
    # from the filter, so it holds without the limit), nor a namespace
    ("clone", [CLONE_VM | CLONE_SIGHAND | CLONE_THREAD, 0, 0, 0, 0], "errno 11"),
    ("clone", [CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_CHILD_CLEARTID, 0, 0, 0, 0],
     "errno 1"),
    ("clone", [CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_CHILD_CLEARTID | CLONE_NEWNET,
               0, 0, 0, 0], "blocked"),
    ("clone", [CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_CHILD_CLEARTID | HIGH, 0, 0, 0,
               0], "errno 1"),
    ("clone", [CLONE_CHILD_CLEARTID | 17, 0, 0, 0, 0], "blocked"),
]


def syscall_numbers():
    table = {}
    with open(UNISTD) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
            if m:
                table[int(m.group(2))] = m.group(1)
    return table


def policy():
    """{name: kind} from the sb_policy table."""
    with open(POLICY) as f:
        text = f.read()
    body = text[text.index("sb_policy[] = {"):text.index("};", text.index("sb_policy[] = {"))]
    return {m.group(1): m.group(2) for m in re.finditer(r'\{"(\w+)",\s*(SB_\w+)', body)}


def expected(name, kind):
    """What the probe's arguments (-1, 0, ...) should meet under the policy."""
    if kind is None:
        return "blocked"
    if kind == "SB_ENOSYS":
        return "enosys"
    if kind in ("SB_SELF_ONLY", "SB_THREAD_ONLY", "SB_PID_SELF", "SB_PID_SELF_QUERY"):
        return "blocked"         # -1 is not our pid; -1 as clone flags has namespace bits
    if kind == "SB_CLOCK_OWN":
        return "blocked"         # -1 is another process's CPU clock
    if kind == "SB_FUTEX_PRIVATE":
        return "blocked"         # op 0 is FUTEX_WAIT without FUTEX_PRIVATE_FLAG
    if kind == "SB_MADVISE_SAFE":
        return "ran"             # advice 0 is MADV_NORMAL
    if kind == "SB_THP_OFF":
        return "blocked"         # option -1 is not PR_SET_THP_DISABLE
    if kind == "SB_MMAP_PRIVATE":
        return "blocked"         # flags 0 name no mapping type, MAP_PRIVATE's or another
    if kind == "SB_ARG_EQUALS":
        return "blocked"         # ioctl request 0 / fcntl command 0 (F_DUPFD) are not listed
    return "ran"                 # SB_ALLOW; SB_NO_EXEC, SB_READ_ONLY_OPEN, SB_ARG_ZERO pass 0;
    #                              SB_SIGNAL_NOT_FIXED passes a NULL new action


def main():
    numbers = syscall_numbers()
    rules = policy()
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("SET pysandbox.python_layer = off")
    passed = failed = 0
    drift = []
    for name in sorted(set(rules) - set(numbers.values())):
        # a policy entry for a call this architecture lacks is harmless, but say so
        print("note: policy names %s, which this architecture does not have" % name)
    for nr in sorted(numbers):
        name = numbers[nr]
        want = expected(name, rules.get(name))
        if name in UNPROBED:
            ok = name in rules
            print("%-4s %-4d %-24s %s" % ("ok" if ok else "FAIL", nr, name,
                                          "in the table (not probed: it ends the caller)"))
            passed += ok
            failed += not ok
            continue
        cur.execute("SELECT sandbox_run(%s, %s, '{main}', '{\"timeout_ms\": 5000}')",
                    (CODE, '{"nr": %d}' % nr))
        report = cur.fetchone()[0]
        if report["ok"]:
            rc, errno = report["returns"]["main"]
            got = "enosys" if rc == -1 and errno == 38 else "ran"
            detail = "rc %d errno %d" % (rc, errno)
        else:
            err = report["error"]
            got = "blocked" if err["kind"] == "violation" else err["kind"]
            detail = err["message"]
            if got == "blocked" and not err["message"].endswith(": " + name):
                got, detail = "misnamed", detail
        ok = got == want
        passed += ok
        failed += not ok
        if not ok:
            drift.append((nr, name, want, got, detail))
        print("%-4s %-4d %-24s want %-8s got %-8s %s" % ("ok" if ok else "FAIL", nr, name,
                                                         want, got, detail[:70]))
    # numbers this header does not name (x86_64's gap 335..423 and what is
    # past the table: newer kernels' calls): all blocked, but for the two
    # the kernel exempts from seccomp (KERNEL_EXEMPT)
    unnamed = [nr for nr in range(512) if nr not in numbers]
    for nr in unnamed:
        cur.execute("SELECT sandbox_run(%s, %s, '{main}', '{\"timeout_ms\": 5000}')",
                    (CODE, '{"nr": %d}' % nr))
        report = cur.fetchone()[0]
        got = "blocked" if not report["ok"] and report["error"]["kind"] == "violation" else \
            "enosys" if report["ok"] and report["returns"]["main"][1] == 38 else \
            "errno %d" % report["returns"]["main"][1] if report["ok"] else \
            report["error"]["message"]
        # ENOSYS from the kernel itself (no such call) is as good as blocked
        allowed = {"blocked", "enosys"}
        name = "(unnamed)"
        if nr in KERNEL_EXEMPT:
            name, exempt = KERNEL_EXEMPT[nr]
            allowed.add(exempt)
        ok = got in allowed
        passed += ok
        failed += not ok
        if nr in KERNEL_EXEMPT or not ok:
            print("%-4s %-4d %-24s want %-8s got %s" % ("ok" if ok else "FAIL", nr, name,
                                                         " or ".join(sorted(allowed)), got))
        if not ok:
            drift.append((nr, name, " or ".join(sorted(allowed)), got, str(report.get("error"))))
    print("%d numbers below 512 this header does not name: checked" % len(unnamed))
    by_name = {name: nr for nr, name in numbers.items()}
    for name, args, want in ARG_PROBES:
        cur.execute("SELECT sandbox_run(%s, %s, '{main}', '{\"timeout_ms\": 5000}')",
                    (CODE_ARGS, psycopg2.extras.Json({"nr": by_name[name], "args": args})))
        report = cur.fetchone()[0]
        if report["ok"]:
            got, detail = "ran", "rc %d errno %d" % tuple(report["returns"]["main"])
            if want.startswith("errno"):
                # which errno: the filter's own, or the kernel's past it
                rc, errno = report["returns"]["main"]
                got = "errno %d" % errno if rc == -1 else "rc %d" % rc
        else:
            err = report["error"]
            got = "blocked" if err["kind"] == "violation" else err["kind"]
            detail = err["message"]
        ok = got == want
        passed += ok
        failed += not ok
        if not ok:
            drift.append((by_name[name], "%s%r" % (name, args), want, got, detail))
        print("%-4s %-4d %-24s want %-8s got %-8s %s" % ("ok" if ok else "FAIL", by_name[name],
                                                         "%s %s" % (name, args), want, got,
                                                         detail[:60]))
    for nr, name, want, got, detail in drift:
        print("DRIFT: %s (%d): policy says %s, the filter did %s: %s" % (name, nr, want, got, detail))
    print("syscall_probe: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
