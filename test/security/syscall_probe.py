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
"""

import os
import re
import sys

import psycopg2

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
    if kind in ("SB_SELF_ONLY", "SB_THREAD_ONLY"):
        return "blocked"         # -1 is not our pid; -1 as clone flags has namespace bits
    if kind == "SB_ARG_EQUALS":
        return "blocked"         # ioctl request 0 / fcntl command 0 (F_DUPFD) are not listed
    return "ran"                 # SB_ALLOW; SB_NO_EXEC, SB_READ_ONLY_OPEN, SB_ARG_ZERO pass 0


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
    # numbers past this header's table (newer kernels' calls): all blocked
    for nr in range(max(numbers) + 1, 512):
        cur.execute("SELECT sandbox_run(%s, %s, '{main}', '{\"timeout_ms\": 5000}')",
                    (CODE, '{"nr": %d}' % nr))
        report = cur.fetchone()[0]
        got = "blocked" if not report["ok"] and report["error"]["kind"] == "violation" else \
            "ran" if report["ok"] and report["returns"]["main"][1] != 38 else \
            "enosys" if report["ok"] else report["error"]["kind"]
        # ENOSYS from the kernel itself (no such call) is as good as blocked
        ok = got in ("blocked", "enosys")
        passed += ok
        failed += not ok
        if not ok:
            drift.append((nr, "(unnamed)", "blocked", got, str(report.get("error"))))
    print("numbers %d..511 (past the header): checked" % (max(numbers) + 1))
    for nr, name, want, got, detail in drift:
        print("DRIFT: %s (%d): policy says %s, the filter did %s: %s" % (name, nr, want, got, detail))
    print("syscall_probe: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
