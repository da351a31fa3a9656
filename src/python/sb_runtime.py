"""The sandbox runtime: warm-up in the worker, one call in each child.

warm() runs once in the worker before any child exists: it imports numpy,
pandas and the allowed modules, and exercises the code paths a typical call
uses, so that children never load native code (seccomp forbids executable
mappings) and pay fewer copy-on-write faults.

serve() runs in the contained child: it reads the request frames, validates
the code (the Python layer; the OS layers are the boundary), runs it, and
sends exactly one RESULT or ERROR frame.  Errors name the line in the
user's code and keep only the user's frames in tracebacks.
"""

import ast
import builtins
import copyreg
import datetime
import decimal
import gc
import inspect
import ipaddress
import json
import mmap
import os
import re
import struct
import sys
import time
import traceback
import types
import uuid

import sb_codec
import sb_charts
import sb_errors
import sb_guard
import sb_harden
import sb_io
import sb_shims
import sb_state
import sb_validator

FILENAME = sb_errors.FILENAME
SQLError = sb_errors.SQLError

# Modules the runtime itself needs in the child, imported here once.
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


class SandboxProtocolError(Exception):
    """The request frames were not what the backend promised."""


# --------------------------------------------------------------------------
# worker side

_WARM_ALLOWED = []
_PRELOADED = []
_LATER = set()        # packages whose allowed modules the preloaded process imports
_WORKER_ENV = {}      # the worker's environment (BLAS thread counts) before warm() cleared it


def warm(allowed_csv, preload_csv=""):
    """Import and exercise everything a child may need (runs in the worker).

    preload_csv is pysandbox.preload_modules: neither they nor the allowed
    modules of their packages are imported here, but in the worker's
    preloaded process (warm_preload()), so that this worker's children stay
    small.
    """
    _WARM_ALLOWED[:] = [m.strip() for m in allowed_csv.split(",") if m.strip()]
    _LATER.update(_packages(preload_csv))
    _import_allowed(lambda top: top not in _LATER)
    sb_guard.note_native_modules(_WARM_ALLOWED)
    sb_harden.harden_pandas()
    sb_errors.refuse_date_equality()
    sb_codec.remember_series_dicts()
    sb_codec.nulls_stay_missing()
    sb_codec.running_skips_nulls()
    sb_harden.harden_numpy()
    sb_harden.harden_processes()
    sb_harden.harden_native_loads()
    sb_harden.harden_libraries()
    _attribute_warnings()
    _exercise()
    _read_zone_files()
    # The trivial call's own path last, so that what it uses (the type
    # attribute cache, specialised bytecode, allocator pools) is as a call
    # finds it: children then write fewer of the worker's pages.
    for _ in range(3):
        prewarm(collect=False, pandas=False)
    # what _exercise() and the calls above imported: swept here, not in
    # every child's first call
    sb_harden.guard_library_getattrs()
    _guard_addresses()
    # Children inherit an empty environment (the worker's own, set by the
    # backend, was read at start-up) and a legacy numpy generator with no
    # cached Gaussian; the worker's C code overwrites that generator's state
    # with fresh entropy in every child (see _fresh_process_state).
    _WORKER_ENV.update(os.environ)   # for the preloaded process's imports
    os.environ.clear()
    np.random.seed()
    watched = _watched_classes()
    # copy.copy, deepcopy and pickling cache a class's slot names on the
    # class the first time (copyreg._slotnames sets __slotnames__), which
    # changes its version tag: the next call of a workspace, a group_by's
    # next group or a function's next row then found a "changed" class and
    # ended (review 111: groupby().resample(), deepcopy of a groupby).
    # Cached here, before the watch.
    for cls in watched:
        try:
            copyreg._slotnames(cls)
        except Exception:       # noqa: BLE001 -- a class that refuses it keeps its tag
            pass
    sb_io.watch_classes(watched)
    gc.collect()
    gc.freeze()  # children never scan (and so never copy) the warm heap
    bit_generator = np.random.mtrand._rand._bit_generator
    state = bit_generator.state["state"]
    return bit_generator.capsule, state["key"][:8].tobytes(), state["pos"]


def _read_zone_files(root="/usr/share/zoneinfo"):
    """Read every time zone file once, so that all of them are in the
    host's page cache: a child that times its own read of one (or counts
    its blocks read) no longer learns which zone another role's call loaded
    (review 106 F1: the zone of another tenant's data).  ~900 files, 4 MB."""
    for directory, _, files in os.walk(root):
        for name in files:
            try:
                with open(os.path.join(directory, name), "rb") as f:
                    while f.read(1 << 16):
                        pass
            except OSError:
                pass


def _guard_addresses():
    """The reprs that print an address ("<function f at 0x...>", every
    object without a repr of its own) print it masked, as the code's id()
    gives it (src/worker/sb_addrguard.c): for the types of everything
    imported so far; types readied later copy the masked reprs."""
    guard = getattr(sb_io, "guard_addresses", None)
    if guard is not None:
        guard()


def _attribute_warnings():
    """A library's warning names the first frame outside the library
    (pandas' find_stack_level): where the sandbox wraps a library function,
    that was the wrapper's file (<pysandbox/sb_harden.py>:991), not the
    code's line.  Shown, such a warning names the code's innermost line."""
    import warnings
    show = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        if type(filename) is str and filename.startswith("<pysandbox/"):
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename != FILENAME:
                frame = frame.f_back
            if frame is not None:
                filename, lineno = FILENAME, frame.f_lineno
        return show(message, category, filename, lineno, file, line)
    warnings.showwarning = showwarning


def _warm_library_helpers():
    """sklearn's helpers ask the system in ways a child may not (a blocked
    system call ends the call).  joblib counts cores by reading cgroup files
    and running lscpu before every OpenMP loop (KMeans): a call is one
    process with a CPU limit, so it gets one core, counted here.
    threadpoolctl (which sklearn uses to limit BLAS threads) finds the C
    library by running ldconfig, and lists the loaded libraries through a
    ctypes callback, for which libffi would map a writable and executable
    page: a child can load no library, so the list is taken once, here,
    from the dynamic linker's own list, and no such page is ever made."""
    loky = sys.modules.get("joblib.externals.loky")
    if loky is not None and hasattr(loky, "cpu_count"):
        loky.cpu_count = _one_core
    # n_jobs=2 or -1 would start worker processes (or threads): every
    # joblib backend runs the jobs in turn, in the calling process
    parallel = sys.modules.get("joblib.parallel")
    backends = getattr(parallel, "BACKENDS", None)
    if type(backends) is dict and "sequential" in backends:
        for name in list(backends):
            backends[name] = backends["sequential"]
    tpc = getattr(sys.modules.get("threadpoolctl"), "ThreadpoolController", None)
    cache = getattr(tpc, "_system_libraries", None)
    if type(cache) is not dict or not hasattr(tpc, "_find_libraries_with_dl_iterate_phdr"):
        return
    import ctypes
    try:
        cache.setdefault("libc", ctypes.CDLL("libc.so.6", mode=os.RTLD_NOLOAD))
    except OSError:
        return
    # the controllers are made here, where the libraries' files can be
    # opened (a child's filesystem layer hides some); a child reuses them
    found = tpc.__new__(tpc)
    found.lib_controllers = []
    for name in _loaded_library_names():
        try:
            found._make_controller_from_path(name)
        except Exception:  # a library threadpoolctl cannot handle: left out
            pass
    controllers = tuple(found.lib_controllers)

    def find_loaded_libraries(self):
        self.lib_controllers.extend(controllers)
    tpc._find_libraries_with_dl_iterate_phdr = find_loaded_libraries


def _loaded_library_names():
    """The names the dynamic linker loaded each library by (what
    dl_iterate_phdr reports), walking its link_map list: no callback."""
    import ctypes

    class LinkMap(ctypes.Structure):
        pass
    LinkMap._fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p),
                        ("l_ld", ctypes.c_void_p), ("l_next", ctypes.POINTER(LinkMap)),
                        ("l_prev", ctypes.POINTER(LinkMap))]
    try:
        dlinfo = ctypes.CDLL("libc.so.6", mode=os.RTLD_NOLOAD).dlinfo
    except AttributeError:  # glibc before 2.34
        dlinfo = ctypes.CDLL("libdl.so.2").dlinfo
    lm = ctypes.POINTER(LinkMap)()
    rtld_di_linkmap = 2
    if dlinfo(ctypes.c_void_p(ctypes.CDLL(None)._handle), rtld_di_linkmap,
              ctypes.byref(lm)) != 0:
        return ()
    names = []
    while lm:
        name = lm.contents.l_name
        if name:
            names.append(name.decode("utf-8", "replace"))
        lm = lm.contents.l_next
    return tuple(names)


def _one_core(only_physical_cores=False):
    return 1


def _import_preload(preload_csv):
    """Import the modules of preload_csv; one that fails to import is
    reported in the server log and left out (preloaded() lists the rest)."""
    import importlib
    for name in [m.strip() for m in preload_csv.split(",") if m.strip()]:
        try:
            importlib.import_module(name)
            _PRELOADED.append(name)
        except Exception as exc:  # not installed, or broken: say so, go on
            sys.stderr.write("pysandbox-worker: could not preload module \"%s\": %s: %s\n"
                             % (name, type(exc).__name__, exc))


def _import_allowed(wanted):
    """Import the allowed modules whose top-level package wanted(top) takes
    (one not installed is left out), then prepare the helpers of what they
    brought (_warm_library_helpers; a failure is only logged)."""
    import importlib
    with sb_charts.home():
        for name in _WARM_ALLOWED:
            if wanted(name.partition(".")[0]):
                try:
                    importlib.import_module(name)
                except Exception:  # an allowlisted module that is not installed
                    pass
        if wanted("matplotlib") and "matplotlib" in _packages(",".join(_WARM_ALLOWED)):
            try:
                sb_charts.prepare()
            except Exception as exc:  # another version: calls then fail closed
                sys.stderr.write("pysandbox-worker: could not prepare matplotlib for "
                                 "sandboxed calls: %s: %s\n" % (type(exc).__name__, exc))
    try:
        _warm_library_helpers()
    except Exception as exc:  # other versions: left as they are, children fail closed
        sys.stderr.write("pysandbox-worker: could not prepare sklearn's helpers for "
                         "sandboxed calls: %s: %s\n" % (type(exc).__name__, exc))


def _packages(csv):
    """The top-level packages of a comma-separated list of modules."""
    return {m.strip().partition(".")[0] for m in csv.split(",") if m.strip()}


def warm_preload(preload_csv):
    """In the preloaded process, a fork of the warm worker (sb_preloaded.c):
    import pysandbox.preload_modules and the allowed modules of their
    packages, prepare the helpers they bring, and run the trivial call's
    path again, as warm() does; returns preloaded()."""
    sb_guard.preloaded_elsewhere(())
    # native libraries read their thread counts (OPENBLAS_NUM_THREADS=1 ...)
    # when they load: from the worker's environment, cleared again below
    os.environ.update(_WORKER_ENV)
    with sb_charts.home():
        _import_preload(preload_csv)
        if _PRELOADED:
            tops = _packages(preload_csv)
            _import_allowed(lambda top: top in tops)
        for _ in range(3):
            prewarm(collect=False, pandas=False)
    sb_harden.guard_library_getattrs()
    _guard_addresses()
    os.environ.clear()
    np.random.seed()
    gc.collect()
    gc.freeze()
    return preloaded()


def warm_later():
    """In the worker, when its preloaded process did not start: import the
    allowed modules warm() left to it, as a worker without one does."""
    later = set(_LATER)
    _LATER.clear()
    # their native libraries read their thread counts when they load, as in
    # warm_preload (review 95: a BLAS first loaded here read none)
    os.environ.update(_WORKER_ENV)
    try:
        _import_allowed(lambda top: top in later)
    finally:
        os.environ.clear()
    sb_harden.guard_library_getattrs()
    _guard_addresses()
    gc.collect()
    gc.freeze()


def preloaded_elsewhere(names_csv):
    """In the worker: the modules its preloaded process holds (see
    sb_guard.preloaded_elsewhere)."""
    sb_guard.preloaded_elsewhere([m.strip() for m in names_csv.split(",") if m.strip()])


def preloaded():
    """The modules imported from pysandbox.preload_modules, comma-separated."""
    return ", ".join(_PRELOADED)


_PREWARM_CODE = """import pandas as pd
def main(x=1):
    df = pd.DataFrame({"g": ["a", "b", "a"], "v": [1.5, 2.5, x]})
    print(len(df))
    return {"sum": df.groupby("g")["v"].sum(), "n": int(df["v"].count())}
"""


_TRIVIAL_CODE = """def main(x=1):
    return x
"""


# the modules whose classes a serving child's reading of inputs relies on,
# and which no call changes (a call's matplotlib and pyparsing keep caches
# in their classes: not watched)
_WATCHED_TOPS = frozenset({"pandas", "numpy", "json", "decimal", "_decimal", "datetime",
                           "zoneinfo", "uuid", "collections", "abc", "enum", "typing",
                           "sb_codec", "sb_runtime", "sb_errors", "sb_guard"})


def _watched_classes():
    """The classes sb_io.changed_class watches (in the worker, warmed)."""
    found = []
    for cls in sb_guard.all_classes():
        module = type.__getattribute__(cls, "__dict__").get("__module__")
        if isinstance(module, str) and module.partition(".")[0] in _WATCHED_TOPS:
            found.append(cls)
    return found


def prewarm(collect=True, pandas=True, validated=False):
    """In a spare child: touch what a typical call touches, then wait.

    Reference counts live in the objects, so merely using the warm heap
    writes to its pages; each first write costs a copy-on-write fault.
    Doing it here moves those faults out of the caller's time.  It runs the
    real serve() on a synthetic request with the channel stubbed out, so it
    touches what a call touches (request parsing, validation, the guarded
    namespace, a small pandas operation, print, result encoding) and no
    more: a spare is replaced after each call, and a heavier warm-up would
    compete with the next call for the CPU.  Nothing of it reaches a call:
    serve() builds everything per call.

    The worker's probe child (sb_hotpages.c) runs it with a trivial call
    (pandas=False) to learn which pages every call writes; collect=False
    leaves out the final collection there, as a call does not do one.
    """
    request = {"code": _PREWARM_CODE if pandas else _TRIVIAL_CODE, "returns": ["main"],
               "allowed_modules": list(_WARM_ALLOWED), "max_output_bytes": 1 << 20,
               "inputs": {"x": 1}}
    if validated:
        request["validated"] = sb_io.INSTANCE
    frames = [(sb_io.REQUEST, json.dumps(request).encode("utf-8")), (sb_io.END, b"")]
    saved = (sb_io.recv, sb_io.send, sb_io.sendv, sb_io.write, sb_io.reply,
             sb_io.huge_pages_off, sys.stdout, sys.stderr)
    try:
        # the real serve() on a synthetic request, with the channel stubbed
        sb_io.recv = lambda: frames.pop(0)
        sb_io.send = lambda *args: None
        sb_io.sendv = lambda *args: None
        sb_io.write = lambda *args: None
        sb_io.reply = lambda *args: None
        sb_io.huge_pages_off = lambda: None
        serve(True)
    finally:
        (sb_io.recv, sb_io.send, sb_io.sendv, sb_io.write, sb_io.reply,
         sb_io.huge_pages_off, sys.stdout, sys.stderr) = saved
        # out of the call again: the worker's preloaded process, forked
        # after this, imports native code and may run programs as it warms
        sb_guard.leave_call()
        sb_io.death_guard(None)
        sb_io.death_callbacks_take()
    if collect:
        gc.collect()


def _exercise():
    """A typical call's code paths on synthetic data."""
    frame = pd.DataFrame({"g": ["a", "b", "c", "d"] * 256,
                          "x": np.arange(1024, dtype=np.int64),
                          "f": np.arange(1024) / 7.0,
                          "t": pd.date_range("2024-01-01", periods=1024, freq="h")})
    grouped = frame.groupby("g").agg({"x": "sum", "f": ["mean", "max"]})
    repr(frame)
    repr(grouped)
    str(frame.describe())
    frame.query("x > 3 and g == 'a'")
    frame.sort_values(["g", "x"]).merge(frame.head(), on="g")
    frame.pivot_table(index="g", values="x", aggfunc="sum")
    frame.apply(lambda row: row["x"], axis=1)
    frame["t"].dt.date
    frame.set_index("t").resample("D")["x"].sum()
    pd.to_datetime(["2024-01-01"]).tz_localize("UTC")
    frame.to_dict("records")
    for kind, raw in ((sb_io.COL_INT64, np.arange(3, dtype="<i8")),
                      (sb_io.COL_FLOAT64, np.arange(3, dtype="<f8")),
                      (sb_io.COL_TIMESTAMPTZ, np.arange(3, dtype="<i8"))):
        payload = bytearray(b"\x01\x00\x00\x00\x00\x00\x00\x00\x03") + raw.tobytes()
        sb_codec.decode_column(kind, 3, payload)
    text = bytearray(8) + np.array([0, 2, 4, 6], dtype="<i8").tobytes() + b"1\0002\0003\000"
    for kind in (sb_io.COL_TEXT, sb_io.COL_JSON, sb_io.COL_DECIMAL, sb_io.COL_BYTES,
                 sb_io.COL_NUMERIC_ARRAY, sb_io.COL_DECIMAL_ARRAY, sb_io.COL_DATE_ARRAY,
                 sb_io.COL_TIMESTAMP_ARRAY, sb_io.COL_TIMESTAMPTZ_ARRAY, sb_io.COL_DECIMAL_JSON,
                 sb_io.COL_BYTES_ARRAY):
        sb_codec.decode_column(kind, 3, text)
    parts = b"0 1 2\0001 0 0\000"
    sb_codec.decode_column(sb_io.COL_INTERVAL_PARTS, 2, bytearray(8) + np.array(
        [0, 6, 12], dtype="<i8").tobytes() + parts)
    sb_codec.dumps({"a": frame.head(), "b": grouped["x"]["sum"],
                    "c": np.float64(1.5), "d": frame["t"].head()}, 1 << 30)
    sb_validator.validate("import math\ndef main(x=1):\n    return f'{x:.2f}'\n",
                          ["math"])


def read_paths():
    """Directories the child may read: Python's library paths, zoneinfo,
    and matplotlib's data and the fonts when it is allowed."""
    found = []
    charts = sb_charts.read_paths(_packages(",".join(_WARM_ALLOWED)))
    for entry in list(sys.path) + ["/usr/share/zoneinfo"] + charts:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real not in found:
            found.append(real)
    return found


# --------------------------------------------------------------------------
# child side

# what the backend charges each printed frame beyond its text: its header
FRAME_OVERHEAD = 8


class _Output:
    """print() for the sandbox: each call becomes one STDOUT frame."""

    def __init__(self, limit):
        self.limit = limit
        self.used = 0

    def emit(self, text, stderr=False):
        """Send text as one STDOUT (or STDERR) frame, within the limit.

        Nothing is sent for empty text; every frame costs its header too,
        as the backend counts it.
        """
        if not text or _BETWEEN_CALLS[0]:
            return
        data = text.encode("utf-8", "replace")
        self.used += len(data) + FRAME_OVERHEAD
        if self.used > self.limit:
            raise sb_codec.OutputLimitExceeded(
                "printed output exceeds the output limit of %d bytes" % self.limit)
        # the backend relays, captures (sandbox_run) or drops it
        sb_io.send(sb_io.STDERR if stderr else sb_io.STDOUT, data)

    def print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if type(sep) is not str or type(end) is not str:
            raise TypeError("sep and end must be strings")
        text = sep.join(str(a) for a in args) + end
        if file is None:
            self.emit(text)
        else:
            # sys.stderr, an io.StringIO: what the code could write itself
            write = getattr(file, "write", None)
            if not callable(write):
                raise TypeError("print(file=...) takes sys.stdout, sys.stderr or an object "
                                "with a write() method such as io.StringIO, not %s"
                                % type(file).__name__)
            write(text)
            if flush and callable(getattr(file, "flush", None)):
                file.flush()


class _Stream:
    """sys.stdout/sys.stderr in the child: whole lines go out as prints.

    Library code (df.info(), warnings) writes here rather than calling
    print(); the text reaches the client the same way print() does.
    """

    # private: the code reaches these streams (sys.stdout in the sandbox)
    __slots__ = ("_out", "_stderr", "_pending")

    def __init__(self, out, stderr):
        self._out = out
        self._stderr = stderr
        self._pending = ""

    def write(self, text):
        if type(text) is not str:
            raise TypeError("write() argument must be str")
        self._pending += text
        if "\n" in self._pending:
            head, _, self._pending = self._pending.rpartition("\n")
            self._out.emit(head + "\n", self._stderr)
        return len(text)

    def flush(self):
        if self._pending:
            text, self._pending = self._pending, ""
            self._out.emit(text, self._stderr)

    def isatty(self):
        return False


# one class for every call of a child: the code gets its objects (sys.stdout),
# never the class, whose methods it could replace for the next call
sb_guard.refuse(_Stream, "it is the class of the call's output streams")


def _frame_json(payload):
    """A JSON frame from the backend (compact UTF-8, nothing around it).

    Read by json's scanner (sb_codec.scan_json): json.loads()'s machinery
    costs ~50 us of a ~1 ms call in an idle child, whose caches have gone
    cold.
    """
    return sb_codec.scan_json(payload.decode("utf-8"), "the frame")


def _read_request():
    """Read REQUEST, the table inputs, and END; return (request, inputs)."""
    ftype, payload = sb_io.recv()
    if ftype != sb_io.REQUEST:
        raise SandboxProtocolError("expected a request frame")
    request = _frame_json(payload)
    inputs = _read_tables(dict(request.get("inputs") or {}))
    if request.get("held_group") is not None:
        inputs[request["group"]["input"]] = _held_group(request["held_group"])
    return request, inputs


# options.group_by with options.parallel (sb_groups.c, "partitions"): the
# rows of the groups this child runs, kept between its groups' calls: the
# input's columns (their names and arrays), each row's group (numbered from 0 in this
# partition), how many rows each group has, and, with many groups, the
# rows in the order of their groups and where each group begins there
_PARTITION = {"names": None, "columns": None, "groups": None, "counts": None, "order": None,
              "starts": None}

# up to this many groups, a group's rows are found when it runs (a pass
# over the group numbers); with more, sorted once.  Measured on machine c
# over 2M rows: a pass 2.7 ms, the stable sort 63 ms, so the passes cost
# more from ~23 groups on (workload 13's 50 groups a child: 134 ms of
# passes against one sort)
_PARTITION_SCAN_GROUPS = 16


def _hold_partition(request, inputs):
    """A partition's call: keep its rows (the input's columns, then each
    row's group number) for the calls of its groups, which follow.
    Returns the exit code, or _NEXT_GROUP."""
    try:
        df = inputs.pop(request["hold_input"])
        groups = np.asarray(df.iloc[:, -1], dtype=np.int64)
        counts = np.bincount(groups) if len(groups) else np.zeros(0, np.int64)
        if len(counts) <= 255:
            groups = groups.astype(np.uint8)
        elif len(counts) <= 65535:
            groups = groups.astype(np.uint16)
        _PARTITION["order"] = _PARTITION["starts"] = None
        if len(counts) > _PARTITION_SCAN_GROUPS:
            # a stable sort: each group's rows keep the input's order
            _PARTITION["order"] = np.argsort(groups, kind="stable")
            _PARTITION["starts"] = np.cumsum(counts) - counts
        _PARTITION["names"] = list(df.columns[:-1])
        _PARTITION["columns"] = [_held_column(df.iloc[:, i].array)
                                 for i in range(df.shape[1] - 1)]
        _PARTITION["groups"] = groups
        _PARTITION["counts"] = counts
    except MemoryError:
        _send_error("memory", "MemoryError",
                    "out of memory while keeping the rows of its groups: they need more "
                    "than the memory limit allows")
        return 0
    except Exception as exc:  # the backend is trusted, but say what broke
        _send_error("crash", "ProtocolError", "could not keep the rows of its groups: %s" % exc,
                    exit_code=72)
        return 72
    del df, inputs
    held = sb_io.next_call()
    sb_io.linger(False)
    _send_value(None, 0, (), "{}", -1 if held else 0, last=not held)
    return _NEXT_GROUP if held else 0


# A held partition is read only through numpy's take, a method of a type
# code cannot change, and pandas' private constructors, which the validator
# keeps code from replacing: a public method of a pandas class
# (ExtensionArray.take) patched by a group's code would have been handed,
# and could have read or rewritten, the whole partition: other groups'
# rows, before they run (the code changes no library class now:
# sb_guard.guard_settable; this holds without the Python layer too)
_ND_TAKE = np.ndarray.take
_MASKED = (pd.arrays.IntegerArray, pd.arrays.BooleanArray)
_DATETIMELIKE = (pd.arrays.DatetimeArray, pd.arrays.TimedeltaArray)


def _held_column(array):
    """A column of a held partition: (kind, class, values, mask, dtype)."""
    if isinstance(array, _MASKED):
        return ("masked", type(array), array._data, array._mask, None)
    if isinstance(array, _DATETIMELIKE):
        return ("datetimelike", type(array), array._ndarray, None, array.dtype)
    if isinstance(array, pd.arrays.PandasArray):
        return ("numpy", None, array._ndarray, None, None)
    raise SandboxProtocolError("a held column of type %s" % type(array).__name__)


def _held_group(gid):
    """The DataFrame of group gid from the rows this child keeps, as the
    sorted path would have sent it: its rows in scan order, a fresh index,
    and the same dtypes (integers and booleans of a group without NULLs
    are numpy's, not pandas' nullable ones)."""
    counts = _PARTITION["counts"]
    if counts is None or type(gid) is not int or not 0 <= gid < len(counts) or not counts[gid]:
        raise SandboxProtocolError("the rows of group %r are not in this process" % (gid,))
    if _PARTITION["order"] is not None:
        start = int(_PARTITION["starts"][gid])
        rows = _PARTITION["order"][start:start + int(counts[gid])]
    else:
        rows = np.flatnonzero(_PARTITION["groups"] == gid)
    columns = []
    for kind, cls, data, mask, dtype in _PARTITION["columns"]:
        values = _ND_TAKE(data, rows)
        if kind == "masked":
            mask = _ND_TAKE(mask, rows)
            if mask.any():
                values = cls(values, mask)
        elif kind == "datetimelike":
            values = cls._simple_new(values, dtype=dtype)
        columns.append(values)
    header = {"columns": [{"name": name} for name in _PARTITION["names"]], "nrows": len(rows)}
    return sb_codec.decode_table(header, columns)


_CHUNK_HEADER = struct.Struct("<QQ")

# the latest arguments' table header, as bytes and parsed: a function's calls
# send the same one, and parsing it is a tenth of a per-row call
_ARGS_HEADER = [None, None]


def _read_tables(inputs):
    """Read table inputs into inputs until END; a language function's
    arguments (a table without a name) go under "" as a list."""
    while True:
        ftype, payload = sb_io.recv()
        if ftype == sb_io.END:
            return inputs
        if ftype != sb_io.TABLE:
            raise SandboxProtocolError("unexpected frame %d" % ftype)
        if payload == _ARGS_HEADER[0]:
            header = _ARGS_HEADER[1]
        else:
            header = _frame_json(payload)
            if header["name"] == "":
                _ARGS_HEADER[:] = [bytes(payload), header]
        if header["name"] == "":
            # a language function's arguments: one row, no DataFrame
            inputs[""] = _read_row(header)
            continue
        if header["name"].startswith("#") and header["name"].endswith("="):
            # a composite argument: its fields, as plain values in a dict
            inputs[header["name"][:-1]] = dict(zip(
                [col["name"] for col in header["columns"]], _read_row(header)))
            continue
        if header.get("stream"):
            columns, header["nrows"] = _read_row_groups(header)
            inputs[header["name"]] = sb_codec.decode_table(header, columns)
        else:
            inputs[header["name"]] = _read_table(header)


def _read_row(header):
    """The plain Python values of a one-row TABLE (a language function's
    arguments, or the fields of one of them)."""
    values = []
    for col in header["columns"]:
        ftype, payload = sb_io.recv()
        if ftype != sb_io.COLUMN or header["nrows"] != 1:
            raise SandboxProtocolError("malformed arguments")
        values.append(sb_codec.decode_scalar(col["kind"], payload))
    return values


def _read_table(header):
    """The DataFrame of a TABLE header whose columns follow, one COLUMN frame each."""
    columns = []
    for col in header["columns"]:
        ftype, payload = sb_io.recv()
        if ftype != sb_io.COLUMN:
            raise SandboxProtocolError("expected a column frame")
        columns.append(sb_codec.decode_column(col["kind"], header["nrows"], payload))
    return sb_codec.decode_table(header, columns)


def _read_row_groups(header, answering=False):
    """A streamed table input: row groups (CHUNK, then a COLUMN frame per
    column) until the last.  A fixed-width column's values are read straight
    onto the end of its store (no row group is kept apart, nothing joined);
    a text-like column's row groups are decoded as they arrive, while the
    backend fetches the next, and joined at the end.  Returns the columns
    and the row count.  answering: an answer of sql(), where SQL_ERROR may
    come in place of a row group (raised as _SQLAnswerError)."""
    kinds = [col["kind"] for col in header["columns"]]
    widths = [sb_codec.fixed_width(kind) for kind in kinds]
    stores = [sb_io.store() if width else None for width in widths]
    parts = [[] for _ in kinds]     # fixed: (rows, mask); others: arrays
    nrows = 0
    while True:
        ftype, payload = sb_io.recv()
        if ftype == sb_io.SQL_ERROR and answering:
            raise _SQLAnswerError(payload)
        if ftype != sb_io.CHUNK or len(payload) != 16:
            raise SandboxProtocolError("expected a row group frame")
        rows, flags = _CHUNK_HEADER.unpack(payload)
        for kind, width, store, kept in zip(kinds, widths, stores, parts):
            if width:
                kept.append((rows, _read_fixed_column(rows, width, store)))
                continue
            ftype, payload = sb_io.recv()
            if ftype != sb_io.COLUMN:
                raise SandboxProtocolError("expected a column frame")
            if rows > 0 or not kept:
                kept.append(sb_codec.decode_column(kind, rows, payload))
            del payload
        nrows += rows
        if flags & sb_io.CHUNK_LAST:
            # column by column, each column's row groups let go once joined:
            # the input is held about once, not twice
            columns = []
            for i, kept in enumerate(parts):
                parts[i] = None
                if widths[i]:
                    columns.append(sb_codec.store_column(kinds[i], nrows, stores[i], kept))
                else:
                    columns.append(sb_codec.concat_column(kept))
                stores[i] = None
                del kept
            return columns, nrows


def _read_fixed_column(rows, width, store):
    """One row group's COLUMN frame of a fixed-width column: its values onto
    the end of store; returns its valid-mask, or None without NULLs."""
    ftype, length = sb_io.recv_head()
    if ftype != sb_io.COLUMN or length < 8:
        raise SandboxProtocolError("expected a column frame")
    nulls = int.from_bytes(sb_io.recv_bytes(8), "little")
    mask_bytes = (rows + 7) // 8 if nulls else 0
    if length != 8 + mask_bytes + width * rows:
        raise SandboxProtocolError("malformed column frame")
    valid = None
    if mask_bytes:
        valid = sb_codec.unpack_valid(sb_io.recv_bytes(mask_bytes), rows)
    sb_io.recv_append(store, width * rows)
    return valid


def _read_call(ftype):
    """A held child's next call (its first frame, ftype, read): the arguments."""
    if ftype != sb_io.CALL:
        raise SandboxProtocolError("unexpected frame %d between calls" % ftype)
    return _call_args(_read_tables({}))


def _call_args(inputs):
    """A language function's arguments, out of its inputs: the one-row table
    without a name, with each array of composites (a table "#i" after it)
    in its place as a DataFrame."""
    args = list(inputs.pop("", ()))
    for key in [k for k in inputs if k.startswith("#")]:
        index = int(key[1:])
        if not 0 <= index < len(args):
            raise SandboxProtocolError("malformed arguments")
        args[index] = inputs.pop(key)
    return args


def _function_hint(hint, shape):
    """A value's conversion hint, for a language function whose one value
    is its result (RETURNS int, SETOF int): its return type is what to
    declare, not a column's (review 66)."""
    if type(hint) is str and shape in ("scalar", "setof_scalar"):
        if shape == "scalar":
            # one value, not a Series s (review 107 F8)
            for series, value in _SCALAR_HINTS:
                hint = hint.replace(series, value)
        # a function's one value has no row to wrap a list in (review 108 F4)
        hint = re.sub(r'; values are one JSON array only as one row\'s value: \[\{.*\}\]\.$',
                      "; a list is one JSON array.", hint)
        hint = re.sub(r' For one row holding the list, return \[\{.*\}\]; for a DataFrame '
                      r'column, put a list in each cell\.$',
                      " Return the list itself%s." % (
                          "" if shape == "scalar" else " as one row's value, [[1, 2]]"), hint)
        return hint.replace("declare the column", "declare the function's return type")
    return hint


# a column's conversion advice, for one returned value v
_SCALAR_HINTS = [
    ('Convert the values first: pd.to_numeric(s, errors="coerce").astype("Int64") for text, '
     's.round().astype("Int64") for fractions;',
     "Convert the value first: int(v) for the text of a whole number, round(v) for a "
     "fraction;"),
    ('Convert the values first: pd.to_numeric(s, errors="coerce") for text;',
     "Convert the value first: float(v) for the text of a number;"),
    ('Convert the values first: s.astype(bool), s.eq("yes"), or s.map({"y": True, "n": '
     'False});', 'Convert the value first: bool(v), or v == "yes";'),
]


def _read_or_report(read, data, what):
    """(read(), None); or, if reading failed, the error sent and (None, the
    exit code).  Inputs larger than the memory limit: the code never ran."""
    try:
        return read(), None
    except MemoryError:
        _send_error("memory", "MemoryError",
                    "out of memory while reading the %s: they need more than the "
                    "memory limit allows" % data)
        return None, 0
    except RecursionError:
        # PostgreSQL's JSON nests deeper than Python's json module reads
        # (39000 "sandbox process failed" before: review 115 F10)
        _send_error("arguments", "ArgumentsError",
                    "the %s hold a JSON value nested deeper than Python reads (about %d "
                    "levels): take its parts apart in the query (->, jsonb_path_query) or "
                    "pass it as text (::text)" % (data, sys.getrecursionlimit() - 100),
                    exit_code=72)
        return None, 72
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            _send_error("crash", "ProtocolError", "could not read the %s: %s" % (what, exc),
                        exit_code=72)
            return None, 72
        # its hint, sys.set_int_max_str_digits(), is no help: the code has
        # not run yet (review 115 F10)
        _send_error("arguments", "ArgumentsError",
                    "the %s hold a JSON number with more than %d digits, more than Python "
                    "reads as an int: cast it to numeric in the query (with options "
                    "{\"numeric\": \"decimal\"}) or pass it as text (::text)"
                    % (data, sys.get_int_max_str_digits()), exit_code=72)
        return None, 72
    except Exception as exc:  # the backend is trusted, but say what broke
        _send_error("crash", "ProtocolError", "could not read the %s: %s" % (what, exc),
                    exit_code=72)
        return None, 72


def _send_error(kind, etype, message, line=None, col=None, tb=None, exit_code=0, **extra):
    """The call's last frame: the child exits once it is out (sb_io).  A
    workspace's child that ends with it (exit_code) says first that this is
    its last frame (SB_DATA_LAST), so the backend waits for its end and the
    call's error says the workspace ended (it found the process gone at
    the next call, "exited with code 72 between two calls": review 65 F4)."""
    err = {"kind": kind, "type": etype, "message": message,
           "line": line, "col": _written_position(line, col), "traceback": tb}
    err.update(extra)
    if _COLUMN_SHIFT[0] and type(err.get("findings")) is list:
        err["findings"] = [dict(f, col=_written_position(f.get("line"), f.get("col")))
                           if type(f) is dict else f for f in err["findings"]]
    if exit_code and _WS[0] is not None:
        sb_io.keep(False)
        sb_io.write(_FRAME_HEADER.pack(sb_io.LAST, 0))
    sb_io.send(sb_io.ERROR, json.dumps(err).encode("utf-8"), exit_code)


_FEWER_FIGURES = ("Close the figures not needed with plt.close(fig) (plt.close(\"all\") "
                  "before returning sends none), or draw them smaller (figsize, dpi)")
_DRAW_SMALLER = ("Draw smaller figures (figsize, dpi) or fewer points, and close the figures "
                 "not needed with plt.close(fig)")


def _ended_by_native_oom(line=None, col=None, tb=None):
    """If matplotlib's native drawing ran out of memory in this process
    (sb_charts.native_out_of_memory), whatever the call did after it: its
    error sent, the process ending with it.  Agg leaves the C heap corrupt
    (review 155 F1); checked wherever a call ends, before its answer
    (review 156 F2: an exception the code raised instead, a generator's
    rows, a function's next row, served on)."""
    where = sb_charts.native_out_of_memory()
    if where is None:
        return False
    _send_error("memory", "MemoryError",
                "out of memory while matplotlib drew (%s), whose native code is not "
                "reliable after that: the process ended with the call%s"
                % (where, ", and its workspace with it" if _WS[0] is not None else ""),
                line, col, tb, hint=_DRAW_SMALLER, exit_code=72)
    return True


def _report_exception(exc, lines, inputs=None):
    tb, line, col = sb_errors.user_traceback(exc, lines)
    if isinstance(exc, ArgumentsError):
        _send_error("arguments", "ArgumentsError", str(exc), line, col, tb)
        return
    if _ended_by_native_oom(line, col, tb):
        pass
    elif isinstance(exc, MemoryError) and exc.args and type(exc.args[0]) is str and \
            exc.args[0].startswith("figure "):
        # the figures left open, drawn for sandbox_run after main() returned
        _send_error("memory", "MemoryError", "out of memory while drawing " + exc.args[0],
                    line, col, tb, hint=_DRAW_SMALLER)
    elif isinstance(exc, MemoryError):
        _send_error("memory", "MemoryError",
                    "out of memory: the code tried to allocate more than its memory limit",
                    line, col, tb)
    elif isinstance(exc, sb_codec.OutputLimitExceeded):
        hint = exc.args[1] if len(exc.args) > 1 and type(exc.args[1]) is str else None
        _send_error("output", "OutputLimitExceeded", str(exc.args[0]) if exc.args else "",
                    line, col, tb, **({"hint": hint} if hint else {}))
    else:
        message = sb_errors.exception_message(exc)
        try:
            extra = sb_errors.exception_help(exc, inputs or {}, _WS[0])
        except BaseException:  # the help is a courtesy: never fail the report on it
            extra = None
        if extra and isinstance(exc, ImportError) and "scipy" in message and \
                "seems to be broken" in message:
            # scipy's own words for an import the sandbox refused would
            # have a model reinstall it (review 100)
            message = "scipy is not available here"
        if extra:
            message = "%s: %s" % (message, extra) if message else extra
        # an uncaught SQLError ends the call with its query's SQLSTATE, if
        # the backend answered one of this call's queries with it (sb_result.c)
        state = exc.__dict__.get("sqlstate") if type(exc) is SQLError else None
        if type(state) is str and len(state) == 5:
            _send_error("exception", "SQLError", message, line, col, tb, sqlstate=state)
        else:
            # re's exception class is named "error": "re.error" says whose
            _send_error("exception", "re.error" if type(exc) is re.error else
                        type(exc).__name__, message, line, col, tb)


VERIFY_FILENAME = "<verify>"


class VerificationFailed(Exception):
    """options.verify failed: an assertion, or an error, at a line of it."""

    def __init__(self, message, line, etype="AssertionError"):
        super().__init__(message)
        self.line = line
        self.etype = etype


def _verify_hint(results):
    """What result holds, for an error of the verify text: the values the
    functions returned, not the JSON the caller sees (review 143 F3: a
    Series's .values() read as a dict's was "'IntegerArray' object is not
    callable")."""
    if type(results) is not dict:
        return None
    said = []
    for name, value in list(results.items())[:4]:
        if type(name) is not str:   # a key the verify text put there
            continue
        kind = type(value)          # not value.__class__, a property of the code's
        if issubclass(kind, pd.DataFrame):
            what = "a pandas DataFrame (its rows: .to_dict(\"records\"))"
        elif issubclass(kind, pd.Series):
            what = "a pandas Series (.tolist(), .items(), .to_dict())"
        elif issubclass(kind, np.ndarray):
            what = "a numpy array (.tolist())"
        else:
            what = "a " + str(type.__getattribute__(kind, "__name__"))
        said.append('result["%s"] is %s' % (name, what))
    return ("result holds what the functions returned, not their JSON: %s."
            % "; ".join(said)) if said else None


def _check_verify_shape(tree):
    """The verify text is a list of statements: no return or yield outside a
    nested function (either would let failing assertions pass)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            raise VerificationFailed("options.verify may not use return or yield: "
                                     "write assertions such as assert result[\"main\"] > 0",
                                     node.lineno)
        stack.extend(ast.iter_child_nodes(node))


def _verify(source, results, namespace, allowed, python_layer):
    """Run options.verify's assertions with `result` bound to the results."""
    lines = source.splitlines()
    try:
        _check_verify_shape(ast.parse(source, VERIFY_FILENAME))
    except SyntaxError as exc:
        raise VerificationFailed("options.verify has a syntax error: %s" % exc.msg,
                                 max(exc.lineno or 1, 1)) from None
    except (RecursionError, MemoryError, ValueError):
        raise VerificationFailed("options.verify is too complex", 1) from None
    wrapped = "def _sb_verify(result):\n" + "".join(
        "    " + line + "\n" for line in lines) + "    return None\n"
    if python_layer:
        findings, _ = sb_validator.validate(wrapped, allowed)
        if findings:
            first = findings[0]
            raise VerificationFailed("options.verify is not allowed: %s" % first["message"],
                                     max(first["line"] - 1, 1))
    exec(sb_guard.compile_user_code(wrapped, VERIFY_FILENAME) if python_layer
         else compile(wrapped, VERIFY_FILENAME, "exec", dont_inherit=True), namespace)
    try:
        namespace["_sb_verify"](results)
    except Exception as exc:  # an assertion, or any other error in the text
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if f.filename == VERIFY_FILENAME]
        line = frames[-1].lineno - 1 if frames else 1
        detail = sb_errors.exception_message(exc)
        if not isinstance(exc, AssertionError):
            hint = _verify_hint(results)
            raise VerificationFailed(detail + (": " + hint if hint else ""), line,
                                     type(exc).__name__) from None
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        raise VerificationFailed("verification failed: %s%s" % (
            text, (" (%s)" % detail) if detail else ""), line) from None


def _bind(fn, name, inputs):
    """Keyword arguments for fn from inputs, by parameter name.

    The parameters are read from the code object: inspect.signature() costs
    ~50 us in a fresh child, a fifth of a trivial call.  A function that
    carries attributes (functools.wraps sets __wrapped__; __signature__) is
    left to inspect.signature(), which follows them.
    """
    if fn.__dict__:
        signature = inspect.signature(fn).parameters.values()
        params = [(p.name, p.default is not p.empty) for p in signature
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        var_args = any(p.kind == p.VAR_POSITIONAL for p in signature)
        var_kw = any(p.kind == p.VAR_KEYWORD for p in signature)
    else:
        code = fn.__code__
        npos = code.co_argcount
        names = code.co_varnames[:npos + code.co_kwonlyargcount]
        first_default = npos - len(fn.__defaults__ or ())
        kwdefaults = fn.__kwdefaults__ or {}
        params = [(pname, i >= first_default if i < npos else pname in kwdefaults)
                  for i, pname in enumerate(names)]
        var_args = bool(code.co_flags & inspect.CO_VARARGS)
        var_kw = bool(code.co_flags & inspect.CO_VARKEYWORDS)
    if var_args and not params and not var_kw and inputs:
        # def main(*args): the inputs would silently not reach it
        raise ArgumentsError(
            '%s() takes *args, but inputs arrive by name (given: %s); declare them as '
            'parameters, as in def %s(%s): ...'
            % (name, ", ".join('"%s"' % k for k in sorted(inputs)), name,
               ", ".join(k for k in sorted(inputs) if k.isidentifier())))
    kwargs = {}
    for pname, has_default in params:
        if pname == "ws" and _WS[0] is not None:
            if "ws" in inputs:
                raise ArgumentsError(
                    'the input "ws" would be hidden by the workspace\'s dict, which %s() takes as '
                    '"ws"; give the input another name' % name)
            kwargs[pname] = _WS[0]      # the workspace's dict
        elif pname in inputs:
            kwargs[pname] = inputs[pname]
        elif pname == "ws" and not has_default:
            raise ArgumentsError(
                '%s() takes "ws", the dict a workspace keeps from one call to the next, but '
                'this call runs in no workspace; open one with sandbox_workspace_open() and '
                'pass its handle as options => \'{"workspace": "<handle>"}\'' % name)
        elif not has_default:
            given = ", ".join('"%s"' % k for k in sorted(inputs)) or "none"
            if _WS[0] is not None and pname in _WS[0]:
                # what an earlier step kept: not an input to load again (review 111 F3)
                raise ArgumentsError(
                    '%s() needs the parameter "%s", which is not among the inputs (given: %s); '
                    'an earlier call kept "%s" in the workspace: read it from ws, as in '
                    'def %s(ws): %s = ws["%s"]' % (name, pname, given, pname, name, pname, pname))
            raise ArgumentsError(
                '%s() needs the parameter "%s", which is not among the inputs (given: %s); '
                'add "%s" to inputs or give the parameter a default'
                % (name, pname, given, pname))
    if var_kw:
        # def main(**inputs): every input its parameters do not take
        for k, v in inputs.items():
            if k not in kwargs and not any(k == pname for pname, _ in params):
                kwargs[k] = v
    return kwargs


def _group_key(inputs, group):
    """options.group_by: this child runs one group.  Its DataFrame is named
    by the key, as pandas' groupby(...).apply() names each group (df.name: a
    value, or a tuple for several columns); returns {column: key value},
    which fills declared key columns a sandbox_rows result leaves out."""
    df = inputs[group["input"]]
    by = group["by"]
    values = {k: df[k].iloc[0] for k in by}
    key = values[by[0]] if len(by) == 1 else tuple(values[k] for k in by)
    object.__setattr__(df, "name", key)
    return values


def _one_row(value, func, row=None):
    """A composite result as one row: a dict (by column name), a tuple or a
    list (in column order), a namedtuple or a Series (by name).  row: its
    number in a set, for the message."""
    t = type(value)
    if t is dict:
        return value
    if t is tuple or t is list:
        return tuple(value)
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return dict(value._asdict())
    if t is pd.Series:
        return {str(k): v for k, v in value.items()}
    if row is not None:
        raise sb_codec.RowsError(
            'row %d of the set %s() returned is a value of type "%s"; a set\'s rows are '
            "dicts, tuples, lists, namedtuples or Series (None is a row of NULLs)"
            % (row, func, t.__name__), "42804")
    raise sb_codec.RowsError(
        '%s() returned a value of type "%s" for a composite result; return a dict, '
        "a tuple, a namedtuple, a Series or None" % (func, t.__name__), "42804")


def _column_value(value, column):
    """Whether a composite result of one column given value is that
    column's value, not a row: anything that is not a row (a dict, tuple,
    namedtuple, Series, DataFrame), and a list or array for an array
    column (a tuple stays a row)."""
    t = type(value)
    if t is dict or isinstance(value, tuple) or t is pd.Series or t is pd.DataFrame:
        return False
    if t is list or t is np.ndarray:
        return column.get("category") == "array"
    return True


class _Unreturned:
    """The value of the bare expression a language function's body ended
    with (sb_guard.function_tree): Python drops it, and the function
    returned NULL where return was meant; text "": the body has no return
    at all."""
    __slots__ = ("value", "text", "call")

    def __init__(self, value, text, call):
        self.value = value
        self.text = text
        self.call = call


def _unreturned(value, text, call=True):
    # a bare expression that is None (print(...)) drops nothing: the body
    # has no return at all all the same
    return _Unreturned(None, "", False) if value is None else _Unreturned(value, text, call)


def _function_rows(value, shape, func, rows=None, budget=1 << 30, procedure=False):
    """A language function's value as rows for the declared result (shape
    from sb_language.c): a list of one-value tuples, of rows, or a
    DataFrame.  None is no row (NULL, or an empty set).  A json/jsonb
    result is any value, made JSON as sandbox_execute makes it (a DataFrame
    its records), but a str is JSON text, as jsonb_in reads it and as every
    other result column takes it: return json.dumps(d), PL/Python's way
    (review 75: it was stored as a JSON string).  procedure: CREATE
    PROCEDURE, whose result is its OUT and INOUT parameters."""
    columns = (rows or {}).get("columns") or ()
    if type(value) is _Unreturned:
        if shape == "void" or (procedure and not value.text):
            value = None        # a procedure that calls its helper: as in Python
        elif not value.text:
            # as PL/pgSQL's "control reached end of function without
            # RETURN" (review 107: a body that only printed returned NULL)
            raise sb_codec.RowsError(
                "the body of %s() has no return statement, so the function would return %s"
                % (func, "no rows" if shape.startswith("setof") else "NULL"), "2F005",
                "Return the rows (a list, a DataFrame) or yield them; return None for no rows."
                if shape.startswith("setof") else
                "End the body with return {%s} (return None for NULL)." % ", ".join(
                    '"%s": ...' % c.get("name") for c in columns)
                if shape == "composite" and columns else
                "End the body with return and the value (return None for NULL).")
        else:
            raise sb_codec.RowsError(
                "the body of %s() ends with %s, which %s a value of type \"%s\", but "
                "does not return it, so %s"
                % (func, value.text, "returned" if value.call else "is",
                   type(value.value).__name__,
                   "its OUT and INOUT parameters would be NULL" if procedure else
                   "the function would return %s"
                   % ("no rows" if shape.startswith("setof") else "NULL")), "2F005",
                "End the body with return %s." % value.text)
    if shape == "void" and value is not None:
        # as PL/Python: a value the caller never sees is a mistake (review 75)
        if func == "do":        # sb_language.c's name for a DO block
            raise sb_codec.RowsError(
                'a DO block returned a value of type "%s"; a DO block returns nothing'
                % type(value).__name__, "42804",
                "Print what it should show, or write a function that returns it.")
        if procedure:
            raise sb_codec.RowsError(
                'procedure %s() returned a value of type "%s", but it has no OUT or INOUT '
                "parameter to return it in" % (func, type(value).__name__), "42804",
                "Return nothing (a bare return), or declare a parameter for what it gives "
                "back: CREATE OR REPLACE PROCEDURE %s(..., INOUT result <type>) and "
                "return its value." % func)
        raise sb_codec.RowsError(
            '%s() returned a value of type "%s", but it returns void'
            % (func, type(value).__name__), "42804",
            "Return nothing (a bare return), or declare the type it returns: "
            "CREATE OR REPLACE FUNCTION ... RETURNS that type.")
    if procedure and shape == "composite" and value is None and columns:
        # PostgreSQL's "procedure returned null record" names nothing
        names = ", ".join(c.get("name", "?") for c in columns)
        raise sb_codec.RowsError(
            "procedure %s() returned None, but a procedure with OUT or INOUT parameters "
            "returns their values (%s)" % (func, names), "42804",
            "Return %s: return %s." % (("its value", names) if len(columns) == 1 else
                                       ("them", "(%s)" % names)))
    if shape == "void" or value is None:
        return []
    if shape == "scalar":
        columns = (rows or {}).get("columns") or [{}]
        if type(value) is dict and len(value) == 1 and columns[0].get("name") in value and \
                columns[0].get("name") != func and \
                columns[0].get("category") not in ("json", "record"):
            # one OUT parameter, by name, as a procedure's one INOUT takes
            # it (review 107: {"y": x} did not fit an integer)
            value = value[columns[0]["name"]]
        if columns[0].get("category") == "json" and type(value) is not str:
            value = sb_codec.dumps(value, budget, path="the result of %s()" % func,
                                   notes=sb_codec._NOTES)
        elif (type(value) in (list, tuple) or
              (type(value) in sb_codec.ONE_VALUE_TAKE and type(value) is not pd.DataFrame and
               value.ndim > 0)) and \
                columns[0].get("kind") is not None and \
                columns[0].get("category") in ("", "numeric", "money", "interval"):
            # return [x.mean()] where the type is one value (review 104: the
            # type's input said "invalid input syntax" of an array literal;
            # review 151 F4: np.percentile(x, [50]) into numeric still did;
            # review 156 F5: a matrix, a masked array, an Index)
            count = len(value) if type(value) in (list, tuple) else value.size
            kind = "ndarray" if type(value) is np.ndarray else type(value).__name__
            raise sb_codec.RowsError(
                "%s() returned %s %s of %d value%s, but the function returns one value of "
                "type %s" % (func, "an" if kind == "ndarray" or kind[0].lower() in "aeiou" else "a",
                             kind, count, "" if count == 1 else "s",
                             columns[0].get("type")),
                "42804",
                ("Return that value, %s." % ("s.iloc[0]" if type(value) is pd.Series else
                                             "x[0]" if type(value) in (list, tuple) else
                                             sb_codec.ONE_VALUE_TAKE[type(value)]))
                if count == 1 else
                "Return one value, or declare the function RETURNS SETOF %s (a row per value) "
                "or RETURNS %s[]." % (columns[0].get("type"), columns[0].get("type")))
        return [(value,)]
    if shape == "composite":
        if type(value) is pd.DataFrame:
            if len(value) > 1:
                raise sb_codec.RowsError(
                    "%s() returned a DataFrame of %d rows where one row was expected; "
                    "declare the function RETURNS SETOF, or return one row"
                    % (func, len(value)), "42804")
            return value
        if len(columns) == 1 and _column_value(value, columns[0]):
            # one output column (a procedure's one INOUT parameter, a type
            # of one field): its value alone, as PL/pgSQL's x := x + 1
            return [(value,)]
        if procedure and _column_value(value, {}):
            names = ", ".join(c.get("name", "?") for c in columns)
            raise sb_codec.RowsError(
                'procedure %s() returned a value of type "%s" for its %d OUT and INOUT '
                "parameters (%s); return a tuple of their values in order, or a dict by name"
                % (func, type(value).__name__, len(columns), names), "42804",
                "Return all of them: return (%s)." % names)
        return [_one_row(value, func)]
    if shape == "setof_composite" and type(value) is dict:
        return value    # columns (a dict of lists) or one row, as sandbox_rows takes it
    if type(value) in (str, bytes, dict) or not hasattr(type(value), "__iter__"):
        # return 5 from a SETOF function: not "'int' object is not iterable"
        raise sb_codec.RowsError(
            '%s() returned a value of type "%s" for a set; return an iterable of %s '
            "(a list, a generator, a DataFrame) or None"
            % (func, type(value).__name__,
               "values" if shape == "setof_scalar" else "rows"), "42804")
    if shape == "setof_scalar":
        if type(value) is pd.DataFrame:
            if value.shape[1] != 1:
                raise sb_codec.RowsError(
                    "%s() returned a DataFrame of %d columns for a set of single "
                    "values; return one column, a Series or a list"
                    % (func, value.shape[1]), "42804")
            value = value.iloc[:, 0]
        column = ((rows or {}).get("columns") or [{}])[0]
        if column.get("category") == "json":
            return [(v,) for v in value]
        # RETURNS TABLE (a int) is a set of values: rows of one value given
        # as a 1-tuple or a dict of that column come as sandbox_rows takes
        # them (review 50)
        name = column.get("name")
        return [(v[0],) if type(v) is tuple and len(v) == 1 else
                (v[name],) if type(v) is dict and len(v) == 1 and name in v else (v,)
                for v in value]
    if type(value) in (pd.DataFrame, pd.Series):
        return value
    if type(value) is np.ndarray and value.ndim == 2:
        # a row per line, as sandbox_rows takes it (review 151 F4), its
        # moments and durations as such (review 156 F1: tolist() gave
        # int nanoseconds, an interval 10**9 times too long)
        value = sb_codec.plain_list(value)
    out = [row if type(row) is tuple or row is None else _one_row(row, func, i + 1)
           for i, row in enumerate(value)]
    columns = [c["name"] for c in (rows or {}).get("columns") or ()]
    if any(type(row) is dict for row in out) and any(type(row) is tuple for row in out):
        # rows given both ways (a generator that yields tuples, then a
        # dict): each as PL/Python takes it, tuples by position (review 75)
        out = [dict(zip(columns, row)) if type(row) is tuple and len(row) == len(columns)
               else row for row in out]
    if any(row is None for row in out):
        # None is a row of NULLs (a composite function's None is NULL), of
        # the other rows' kind
        null = (None,) * len(columns) if any(type(row) is tuple for row in out) else \
            dict.fromkeys(columns)
        out = [null if row is None else row for row in out]
    return out


def _sql_listlike(value):
    t = type(value)
    return (t is np.ndarray and value.ndim > 0) or t is pd.Series or isinstance(value, pd.Index)


_IP_TYPES = (ipaddress.IPv4Address, ipaddress.IPv6Address, ipaddress.IPv4Network,
             ipaddress.IPv6Network, ipaddress.IPv4Interface, ipaddress.IPv6Interface)


def _sql_param(value, i):
    """A query parameter as JSON: text the backend gives the parameter's
    type's input function, or null."""
    t = type(value)
    if value is pd.NaT or value is pd.NA:
        return None
    if t is str and "\0" in value:
        raise ValueError("sql() parameter %d contains a NUL character, which PostgreSQL "
                         "text cannot hold" % i)
    if value is None or t in (bool, int, str):
        return value
    if isinstance(value, str):
        return _sql_param(str.__str__(value), i)        # np.str_, a str Enum's member
    if t is np.datetime64 or t is np.timedelta64:
        if np.isnat(value):
            return None
        unit = np.datetime_data(value.dtype)[0]
        if unit in ("ps", "fs", "as") or (t is np.timedelta64 and unit in ("Y", "M")):
            # pandas 1.5 takes these wrong, silently (review 174 F3:
            # datetime64(-1, "ps") as 1972, timedelta64(1, "M") as 30 days)
            return _sql_param(_numpy_time(value, i), i)
        try:
            value = pd.Timestamp(value) if t is np.datetime64 else pd.Timedelta(value)
        except (OverflowError, ValueError):
            # past pandas' nanoseconds (1677-2262; review 173 F3): exact,
            # from the count of its unit, as datetime's own
            value = _numpy_time(value, i)
        return _sql_param(value, i)
    if isinstance(value, _IP_TYPES):
        return str(value)                               # inet's and cidr's text
    if t is bytes or t is bytearray or t is memoryview:
        return "\\x" + bytes(value).hex()              # bytea's text
    if t is float:
        if value != value or value in (float("inf"), float("-inf")):
            return repr(value).replace("inf", "Infinity").replace("nan", "NaN")
        if value == 0 and str(value)[0] == "-":
            return "-0"         # a JSON number has no sign of zero (review 173 F2)
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return _sql_param(value.item(), i)
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        # a naive moment is UTC, as the code's clock and timestamptz columns
        # are: read in the session's TimeZone, datetime.now() - 2 hours was
        # 5 hours off in New York (review 115 F4); timestamp ignores the zone
        return value.isoformat() + "+00:00"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return sb_codec.timedelta_text(value // datetime.timedelta(microseconds=1))
    # an interval with months (a language function's argument of '1 mon' is
    # one): its text, as a result of that type gets it (review 139 F5)
    relative = sb_codec._relative_interval(value)
    if relative is not None:
        return relative
    if t is pd.DateOffset or (sb_codec._relativedelta is not None and
                              t is sb_codec._relativedelta):
        raise TypeError('sql() parameter %d is a %s that sets a field of the date (such as '
                        'day=31) or another rule, which is no interval: pass one with amounts '
                        'only (months=1, days=2), or compute the date in Python and pass it'
                        % (i, t.__name__))
    if t is list or t is tuple or _sql_listlike(value):
        return _sql_array(value, i, 0)
    if t is dict:
        # JSON's text, for a json or jsonb parameter (meta @> $1)
        return sb_codec.dumps(value, 1 << 24, path="sql() parameter %d" % i)
    if t is set or t is frozenset:
        # an array, for = ANY($1), in order where its values have one
        try:
            return _sql_array(sorted(value), i, 0)
        except TypeError:
            return _sql_array(list(value), i, 0)
    raise TypeError('sql() parameter %d has type "%s"; pass None, bool, int, float, str, '
                    "Decimal, a date, time or datetime, a timedelta or relativedelta, a UUID, "
                    "an IP address or "
                    "network, bytes, a dict (JSON), or a list or set of them (an array: WHERE "
                    "x = ANY($1))"
                    % (i, t.__name__))


# microseconds in one of a numpy time unit, and units in one microsecond
_NP_UNIT_US = {"W": 7 * 86400 * 10**6, "D": 86400 * 10**6, "h": 3600 * 10**6, "m": 60 * 10**6,
               "s": 10**6, "ms": 1000, "us": 1}
_NP_UNITS_PER_US = {"ns": 1000, "ps": 10**6, "fs": 10**9, "as": 10**12}


def _numpy_time(value, i):
    """A datetime64 or timedelta64 as datetime's date, datetime or
    timedelta, counted exactly from its unit (numpy's astype wraps)."""
    unit, step = np.datetime_data(value.dtype)
    n = int(value.view(np.int64)) * step
    kind = "datetime64" if type(value) is np.datetime64 else "timedelta64"
    try:
        if kind == "datetime64" and unit in ("Y", "M"):
            year, month = (1970 + n, 1) if unit == "Y" else (1970 + n // 12, n % 12 + 1)
            return datetime.datetime(year, month, 1)
        if unit in _NP_UNIT_US:
            us = n * _NP_UNIT_US[unit]
        elif unit in _NP_UNITS_PER_US:
            us = n // _NP_UNITS_PER_US[unit]
        else:
            raise TypeError('sql() parameter %d is a timedelta64 in years or months, which '
                            'have no fixed length: pass an interval as text ("1 year") or '
                            'a relativedelta' % i)
        if kind == "timedelta64":
            return datetime.timedelta(microseconds=us)
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=us)
    except (OverflowError, ValueError):
        raise ValueError("sql() parameter %d is a %s past what Python's datetime holds (the "
                         "years 1 to 9999, 999,999,999 days): pass it as text with a cast, "
                         "as in sql(\"... $1::%s\", %s)"
                         % (i, kind, "timestamp" if kind == "datetime64" else "interval",
                            '"20000-01-01"' if kind == "datetime64" else '"3000000000 days"')
                         ) from None


def _sql_array(values, i, depth):
    """A list as a JSON array, which the backend makes an array literal for
    an array parameter (= ANY($1)), JSON for a json/jsonb one, and refuses
    for any other (IN ($1) with a list matched nothing: review 79): its
    elements as a parameter of their type is, a list inside a list a
    dimension."""
    if depth >= 6:
        raise ValueError("sql() parameter %d is nested more than 6 lists deep" % i)
    if type(values) is np.ndarray:
        values = sb_codec.plain_list(values)    # datetimes as such, not ns
    elif type(values) is not list and type(values) is not tuple:
        values = values.tolist()                # a Series, an Index
    parts = []
    for v in values:
        if type(v) is list or type(v) is tuple or _sql_listlike(v):
            parts.append(_sql_array(v, i, depth + 1))
        elif type(v) is dict:
            # an object: JSON's for a jsonb parameter (jsonb_to_recordset($1)
            # of a list of dicts), its text for a jsonb[] element (review 81)
            parts.append(json.loads(_sql_param(v, i)))
        else:
            parts.append(_sql_param(v, i))      # None, bool, int, float or str
    return parts


_SQL_CALLS = [0]            # sql() calls of this call
_SQL_MAX_CALLS = 10000      # SB_MAX_SQL_CALLS


def sql(query, *params, **named):
    """Run one read-only query through the calling backend, as the calling
    role in the statement's snapshot, and return its rows as a DataFrame
    (the columns as a $query input has them).  $1, $2, ... in the query take
    params (or params=[...], as pandas' read_sql takes them).  A failing
    query raises SQLError with its SQLSTATE."""
    if sb_harden.in_pandas_expression():
        raise RuntimeError(
            "sql() may not run while a pandas expression (pd.eval, DataFrame.eval, query) "
            "is evaluated: call sql() in the code itself, before the expression, and use "
            "its result there")
    if type(query) is not str:
        raise TypeError('sql() takes the query as a str, not "%s"' % type(query).__name__)
    if named:
        given = named.pop("params", None)
        if named or params or (given is not None and type(given) not in (list, tuple)):
            raise TypeError(
                "sql() takes the query and its values, sql(query, a, b) for $1 and $2 "
                "(or sql(query, params=[a, b])), not %s" % (
                    "the keyword arguments %s" % ", ".join(sorted(named)) if named else
                    "values both ways (positional and params=)" if params else
                    'params of type "%s"' % type(given).__name__))
        params = tuple(given or ())
    if "\0" in query:
        raise ValueError("sql() query contains a NUL character")
    if _SQL_CALLS[0] >= _SQL_MAX_CALLS:
        # the backend ends a child that asks more (SB_MAX_SQL_CALLS): said
        # here, not as "sent an invalid message" (review 110 F4)
        raise SQLError("sql() was called %d times in this call, the most a call may: "
                       "fetch the rows of many keys with one query (WHERE id = ANY($1), "
                       "passing a list)" % _SQL_MAX_CALLS, "54000")
    _SQL_CALLS[0] += 1
    payload = json.dumps({"query": query,
                          "params": [_sql_param(p, i + 1) for i, p in enumerate(params)]},
                         ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(payload) > 1024 * 1024:
        raise ValueError("sql() takes a query and parameters of at most 1 MB")
    sb_io.send(sb_io.SQL, payload)
    _ANSWER_OPEN[0] = True
    try:
        ftype, data = sb_io.recv()
        if ftype == sb_io.TABLE:
            header = _frame_json(data)
            if not header.get("stream"):
                df = _read_table(header)
                _end_answer()
                return df
            try:
                # a large answer: its row groups, sent as the query runs
                columns, header["nrows"] = _read_row_groups(header, answering=True)
            except _SQLAnswerError as e:
                # the query failed after some of its rows were out
                ftype, data = sb_io.SQL_ERROR, e.args[0]
            else:
                _end_answer()
                return sb_codec.decode_table(header, columns)
        if ftype != sb_io.SQL_ERROR:
            raise SandboxProtocolError("unexpected frame %d answering sql()" % ftype)
        _end_answer()
    except BaseException as e:
        # (not after a protocol error: the backend's bug, no END to wait for)
        if _ANSWER_OPEN[0] and not isinstance(e, SandboxProtocolError):
            _drain_answer()
        raise
    raise _sql_error(data, query, params)


sb_harden.refuse_in_expressions(sql)


# an answer of sql() is being read: a failure before its END leaves the
# rest of it to skip (_drain_answer)
_ANSWER_OPEN = [False]


def _end_answer():
    """The END that closes every answer of sql()."""
    ftype, _ = sb_io.recv()
    if ftype != sb_io.END:
        raise SandboxProtocolError("unexpected frame %d ending the answer of sql()" % ftype)
    _ANSWER_OPEN[0] = False


def _drain_answer():
    """Skip the rest of an answer whose reading failed half-way (code that
    catches the MemoryError of a large answer and asks for less): its frames
    up to its END, so that the next sql() reads its own answer (review 119
    O1: it read the rest of this one, and the call ended with 39000)."""
    _ANSWER_OPEN[0] = False
    _skip_to_end()


def _skip_to_end(frames=None):
    """Read and drop the rest of the frame being read and the frames after
    it, up to an END; False, where frames names those that may come, if
    another comes first."""
    sb_io.skip()
    # the END's header read, its tuple not made (review 121 F1): nothing follows
    if sb_io.last_type() == sb_io.END:
        return True
    while True:
        ftype, _length = sb_io.recv_head()
        if frames is not None and ftype not in frames:
            return False
        sb_io.skip()
        if ftype == sb_io.END:
            return True


# the frames of a request (_read_request), up to its END
_REQUEST_FRAMES = frozenset((sb_io.REQUEST, sb_io.TABLE, sb_io.COLUMN, sb_io.CHUNK, sb_io.END))


def _drain_request():
    """Skip the rest of a request whose reading failed half-way (out of
    memory; the error is sent): its frames up to its END, which the backend
    sends whole before the call ends.  False if the channel says anything
    else (the child then ends: its error is out)."""
    try:
        return _skip_to_end(_REQUEST_FRAMES)
    except (EOFError, OSError, ValueError, MemoryError):
        return False


class _SQLAnswerError(Exception):
    """SQL_ERROR in place of a streamed answer's next row group (its payload)."""


# the SQL type a $n holding a value of these types most likely meant (a
# datetime is a date: looked for first)
_PARAM_TYPED = ((datetime.datetime, "timestamptz"), (datetime.date, "date"),
                (datetime.timedelta, "interval"), (decimal.Decimal, "numeric"),
                (pd.DateOffset, "interval")) + (
    ((sb_codec._relativedelta, "interval"),) if sb_codec._relativedelta is not None else ())


def _typed_param(params, message):
    """(n, SQL type, Python type's name) of the first parameter whose
    value has a type of its own in SQL, or None; for an input syntax
    error, only one whose text the message quotes ("2023-03-01" read as
    an integer)."""
    if type(params) not in (list, tuple):
        return None
    quoted = message.startswith("invalid input syntax")
    for n, value in enumerate(params[:100], 1):
        for cls, sqltype in _PARAM_TYPED:
            if isinstance(value, cls) and (not quoted or '"%s"' % value in message):
                return n, sqltype, type(value).__name__
    return None


def _sql_error(data, query, params):
    """The SQLError of a SQL_ERROR frame's payload, with hints for the
    placeholders and parameters other database APIs take."""
    err = _frame_json(data)
    hint = str(err.get("hint", ""))
    message = str(err.get("message", ""))
    if str(err.get("sqlstate", "")) == "42601" and len(query) <= 100000 and (
            m := re.search(r"\bIN\s{0,20}(\$\d{1,5})", query, re.I)):
        # WHERE status IN $1 with a tuple, psycopg2's way (review 165 F3)
        hint = ('write = ANY(%s) and pass a list: sql("SELECT ... WHERE status = ANY(%s)", '
                '["paid", "new"]); IN takes a parenthesized list of values, not a '
                'parameter' % (m.group(1), m.group(1)))
    elif str(err.get("sqlstate", "")) == "42601" and (
            m := re.search(r"%s|%\(\w+\)s|(?<![:\w]):[A-Za-z_]\w*|\?(?![|&])", query)):
        # psycopg's, SQLAlchemy's or sqlite's placeholders, in a query
        # for PostgreSQL's (review 100: only %s had a hint)
        hint = ('sql() takes PostgreSQL\'s placeholders $1, $2, ..., not %s: '
                'sql("SELECT ... WHERE region = $1", region)' % m.group(0))
    elif len(params) == 1 and (type(params[0]) is tuple or (
            type(params[0]) is list and len(params[0]) == 1)) and \
            "is a list, but the query uses $1 as one value" in message:
        # cursor.execute(query, (region,)): DB-API's one tuple of values
        # (a longer list for IN ($1) keeps the backend's hint, = ANY)
        hint = ("Pass the values as separate arguments, sql(query, a, b), not as one "
                "tuple or list; to match any of a list's values, compare with "
                "= ANY($1)")
    elif ((str(err.get("sqlstate", "")) in ("42883", "42725") and
           message.startswith(("operator does not exist", "operator is not unique"))) or
          (str(err.get("sqlstate", "")) == "22P02" and
           message.startswith("invalid input syntax for type"))) and \
            (typed := _typed_param(params, message)) is not None:
        # "$1 - 7" with a date made $1 an integer (review 130 F2): psycopg
        # sends the value's type, PostgreSQL takes a $n's from around it
        hint = ("A parameter's type comes from the query around it, not from the Python "
                "value: write $%d::%s where it meets an operator or a function (the value is a %s)"
                % typed)
    return SQLError(message, str(err.get("sqlstate", "")), str(err.get("detail", "")), hint)


class ArgumentsError(Exception):
    """The call's arguments do not fit the code: a parameter no input fills,
    a returns name the code does not define (the caller's to fix, 22023)."""


_FRESH_IN = [0]
# Set by the worker's C code once it has checked that it can reseed numpy's
# legacy generator in each child right after fork (sb_python.c).
_NUMPY_RESEEDED_AT_FORK = False


def _fresh_process_state():
    """Once per child: an empty environment and numpy's generator reseeded.

    Every child is forked from the same warm worker, so without a reseed
    each would draw the same numpy random numbers (Python's random module
    reseeds itself at fork).  The worker's C code normally does it right
    after fork, writing fresh entropy into the generator's state: a fresh
    child's np.random.seed() costs ~4 ms here, nearly all of it
    copy-on-write faults.  The environment was cleared in the worker; both
    are checked again here.  A spare does this in prewarm().
    """
    if _FRESH_IN[0] != os.getpid():
        if os.environ:
            os.environ.clear()
        if not _NUMPY_RESEEDED_AT_FORK:
            np.random.seed()
        _FRESH_IN[0] = os.getpid()


# the notes this process said: a function's child serves a statement's
# rows, and says each once
_SAID = set()


def _unreturned_notes(results, code, returns):
    """For each function whose result is None and whose body returns no
    value anywhere (nor yields): a note that it has no return (review 159
    F5: def main(df): df.groupby(...).sum() gave null, or no rows, without
    a word).  The code is parsed only when some result is None."""
    if not any(results.get(name) is None for name in returns):
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    notes = []
    last = {}               # a name defined twice is its last definition
    for node in tree.body:
        if type(node) is ast.FunctionDef and node.name in returns:
            last[node.name] = node
    for node in last.values():
        if results.get(node.name) is not None:
            continue
        todo, gives = list(node.body), False
        while todo and not gives:
            item = todo.pop()
            if type(item) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
                continue        # their returns are their own
            if (type(item) is ast.Return and item.value is not None) or \
                    type(item) in (ast.Yield, ast.YieldFrom):
                gives = True
            todo.extend(ast.iter_child_nodes(item))
        if not gives:
            notes.append("%s() returned None: its body returns no value (no return <value>); "
                         "end it with return <the result>" % node.name)
    return notes


def _say_notes(notes, room):
    """Notes of the result (sb_codec: a ranking a JSON object loses), said
    as a warning is (stderr: a NOTICE, sandbox_run's "stderr"), not in the
    result; each once per process, and only with room in the output."""
    fresh = [n for n in notes if n not in _SAID]
    if not fresh or not room:
        return
    _SAID.update(fresh)
    sys.stderr.write("".join("pysandbox: note: %s\n" % n for n in fresh))
    sys.stderr.flush()


def serve(python_layer):
    """Run one call in the contained child.  Returns the exit code.

    In a real call the child exits with it inside the last send (sb_io):
    nothing of the call, user code in a finalizer included, runs after the
    backend has its result.  prewarm() stubs the sends, so it returns.
    A workspace's child serves its calls until the backend lets it go.
    """
    _fresh_process_state()
    got, failed = _read_or_report(_read_request, "inputs", "request")
    if failed is not None:
        return failed
    request, inputs = got
    got = None
    if request.get("workspace"):
        # handed over in a box the callee empties: this frame, alive as
        # long as the workspace, kept its first call's inputs (review 136 F1)
        box = [(request, inputs)]
        request = inputs = None
        return _serve_workspace(python_layer, box)
    while True:
        if request.get("hold_input") is not None:
            code = _hold_partition(request, inputs)
        else:
            if request.get("group") is not None and not sb_state.kept():
                sb_state.keep()     # what the call's next groups start from
            code = _serve_request(python_layer, request, inputs)
        if code is not _NEXT_GROUP:
            return code
        # options.group_by: this child runs the call's next group, as a
        # fresh one would (a new namespace, no figures, the libraries'
        # settings as the first group found them: _read_next)
        if not _clean_between_calls():
            return _EXIT_UNCLEAN
        got = _next_request()
        if type(got) is int:
            return got
        request, inputs = got
        got = None


# _serve_request's answer for a group's call whose child serves on
_NEXT_GROUP = object()

# the last code compiled with the guards, as (code, function, code object):
# a child that serves on (a group_by call's groups, a workspace's calls)
# mostly runs the same code again, and compiling it costs more than a
# small group's own work; a code object is immutable, each call still
# runs it in a namespace of its own
_COMPILED = [None]


def _compile_user_code(code, function):
    last = _COMPILED[0]
    if last is not None and last[0] == code and last[1] == function:
        return last[2]
    compiled = sb_guard.compile_user_code(code, FILENAME, function)
    _COMPILED[0] = (code, function, compiled)
    return compiled


# the workspace's dict (the parameter ws) in a workspace's child, else None
_WS = [None]


def _serve_workspace(python_layer, box):
    """A workspace's child (sandbox_workspace_open): its calls one after the
    other, each an SB_DATA_CALL and a whole request; a call that fails with
    an exception leaves the child serving; only the dict passed as ws is
    meant to last from one call to the next.  Ends when the backend closes
    the channel, or when the child's CPU rlimit leaves no room for a whole
    call more (its next call then finds it gone and says so)."""
    request, inputs = box.pop()     # (the first call's: its box emptied)
    sb_io.keep(True)
    _WS[0] = {}
    sb_state.keep()     # the libraries' settings its next calls start from
    while True:
        _SAID.clear()       # each of its calls is said its own notes
        if _RESERVE[0] is None:
            _hold_reserve()
        code = _serve_request(python_layer, request, inputs)
        request = inputs = None
        if code != 0:
            return code
        if not _clean_between_calls():
            return _EXIT_UNCLEAN
        if not sb_io.next_call():
            return 0
        got = _next_request()
        if type(got) is int:
            return got
        request, inputs = got
        got = None      # the call's inputs go with the call (review 136 F1)


def _next_request():
    """A child that serves on (a workspace's, a group_by call's) waits for its
    next call: SB_DATA_CALL, then a whole request.  Returns (request,
    inputs), or the exit code: 0 when the backend let the child go."""
    while True:
        sb_io.wait_call(_HELD_SPIN_US)
        try:
            ftype, _payload = sb_io.recv()
        except EOFError:
            return 0
        if ftype != sb_io.CALL:
            _send_error("crash", "ProtocolError", "unexpected frame %d between calls"
                        % ftype, exit_code=72)
            return 72
        got, failed = _read_next(_read_request)
        if failed:
            return failed
        if got is not None:
            return got
        # out of memory reading it (said): the rest of the request still
        # comes, up to its END, before the next call (review 134 F6: its
        # frames were read as the next call's, 39000 and the workspace gone)
        if not _drain_request():
            return 72


def _read_next(read, data="inputs", what="request"):
    """Read a serving child's next request as its first was read, but with
    the last call's guards still on: whatever the code left behind that
    runs in pandas' and numpy's decoding (a property of library callables on
    a class of its own put in numpy's sctypeDict, np.set_numeric_ops, an
    entry of warnings.filters: review 40) runs as it would in a call,
    checked; the decoder's own strided view is made with numpy's unchecked
    constructor (sb_memory.raw_ndarray).  The collector is off meanwhile, so
    that nothing of the code's is collected here (its generators'
    finalizers stay off as well).  And two checks in the worker stand
    whatever the Python layer missed: no class pandas reads with was
    changed since the worker warmed it (sb_io.changed_class), and no frame
    of the code's runs (sb_io.code_off: a library class's method replaced
    in the last call ran in pandas' decoding of this request; CPython 3.11
    runs a specialised __getitem__ inline, past it); either ends the child
    with an error that says so.  Before the reading, in a workspace's or a
    group_by call's child, the libraries' settings the last call changed
    are put back (sb_state), under the same two checks: a pandas option's
    callback compared a key the code had put in matplotlib's units
    registry, and calendar's first weekday was an int of the code's whose
    __mod__ ran (review 65 F1)."""
    changed = sb_io.changed_class()
    if changed is not None:
        # the reading would use it
        _send_error("crash", "ProtocolError",
                    'could not read the %s: the class "%s.%s" was changed by an earlier call, '
                    'and pysandbox reads inputs with it between two calls' % (
                        what, type.__getattribute__(changed, "__module__"),
                        type.__getattribute__(changed, "__qualname__")), exit_code=72)
        return None, 72
    collecting = gc.isenabled()
    gc.disable()
    refused = None
    try:
        sb_io.code_off(_CODE_FILENAMES)
        try:
            got = _restore_or_report(what)
            if got is None:
                got = _read_or_report(read, data, what)
        finally:
            refused = sb_io.code_on()
    finally:
        if collecting:
            gc.enable()
    if refused is None:
        return got
    if got[1] is None:
        # a library caught the refusal and read on
        _send_error("crash", "ProtocolError",
                    'could not read the %s: the code\'s function "%s" ran between two calls, '
                    'where nothing of the code\'s may run: an earlier call changed a library\'s '
                    'class or registry' % (what, refused), exit_code=72)
    return None, 72


def _restore_or_report(what):
    """None once the libraries' settings are as the serving child's first
    call found them (sb_state); or, if putting them back failed, the error
    sent and (None, the exit code)."""
    try:
        sb_state.restore()
        return None
    except Exception as exc:  # noqa: B902 - what the last call left broke it
        _send_error("crash", "ProtocolError",
                    "could not read the %s: putting back the libraries' settings an earlier "
                    "call changed failed: %s" % (what, str(exc) or type(exc).__name__),
                    exit_code=72)
        return None, 72


# a serving child that could not clean up between two calls ends with this
# (SB_CHILD_EXIT_UNCLEAN: the workspace's next use says why)
_EXIT_UNCLEAN = 73


# what the code's code objects are compiled as (sb_io.code_off)
_CODE_FILENAMES = (FILENAME, VERIFY_FILENAME)


# set in a workspace's child between its calls: the backend reads nothing
# then, so what runs then (finalizers) prints nothing
_BETWEEN_CALLS = [False]

# the generation collected between a workspace's calls: all of them, until
# one full collection takes longer than this (the workspace keeps millions
# of objects); then the young ones only, and Python's own collections
# during calls do the rest
_COLLECT = {"generation": 2}
_COLLECT_FULL_MAX_S = 0.25

# the weakref callbacks that run as their object dies, under the check of
# the code's frames (sb_between.c): matplotlib's, which drop an entry keyed
# by id() - later, a new object with that id could lose its own
_IMMEDIATE = []


def _immediate_callbacks():
    """The code objects of _IMMEDIATE's callbacks, a frozenset: found once
    matplotlib's transforms are imported (the worker's warm-up imports
    them; a call never pays for importing them here)."""
    if _IMMEDIATE:
        return _IMMEDIATE[0]
    transforms = sys.modules.get("matplotlib.transforms")
    node = getattr(transforms, "TransformNode", None)
    if node is None:
        return frozenset()
    codes, todo = set(), [node.set_children.__code__, node.__setstate__.__code__]
    while todo:         # (__setstate__'s is inside a comprehension's code)
        for c in todo.pop().co_consts:
            if type(c) is types.CodeType:
                (codes.add if c.co_name == "<lambda>" else todo.append)(c)
    _IMMEDIATE.append(frozenset(codes))
    return _IMMEDIATE[0]


def _run_death_callbacks():
    """Run the weakref callbacks queued as objects died in the call, now
    that its functions have returned; one that fails is reported as
    CPython reports it, and the others run."""
    for _ in range(100):
        queued = sb_io.death_callbacks_take()
        if not queued:
            return
        for callback, args in queued:
            try:
                callback(*args)
            except Exception as exc:  # noqa: B902 - a callback's errors are ignored, and said
                print("Exception ignored in a weakref callback: %s: %s"
                      % (type(exc).__name__, exc), file=sys.stderr)



def _lines_text(numbers):
    """ "the statement at line 4", "the statements at lines 4, 5 and 7"
    (the first 12 named)."""
    numbers = sorted(set(n for n in numbers if type(n) is int))
    if not numbers:
        return "the statements"
    if len(numbers) == 1:
        return "the statement at line %d" % numbers[0]
    shown = [str(n) for n in numbers[:12]] + (["%d more" % (len(numbers) - 12)]
                                              if len(numbers) > 12 else [])
    return "the statements at lines %s and %s" % (", ".join(shown[:-1]), shown[-1])


# settings a script begins with (warnings, pandas' display, matplotlib's
# style, logging): what they become in the function
_SETTING_CALL = re.compile(r"\b(filterwarnings|simplefilter|set_option|rcParams|style\.use|"
                           r"getLogger|basicConfig|random\.seed|set_printoptions)\b")


def _settings_text(numbers, lines):
    """'; settings such as pd.set_option(...) go at the start of the
    function' when a top-level statement to move is one; else ''."""
    for n in numbers:
        if type(n) is int and 0 < n <= len(lines) and _SETTING_CALL.search(lines[n - 1][:500]):
            return ("; a setting such as warnings.filterwarnings(), pd.set_option() or "
                    "plt.rcParams[...] = ... goes at the start of the function, and lasts "
                    "for the call")
    return ""


def _clean_between_calls():
    """A child that serves on, its call answered: close the call's figures
    and restore matplotlib's settings, then collect what the call left
    (the libraries' other settings are put back when the next call comes:
    _read_next).  False if the next call would not start clean."""
    _BETWEEN_CALLS[0] = True    # answered: nothing more to print
    _free_reserve()             # room to clean up in, whatever the call left
    # dropping the call's module and what it pinned, and closing its
    # figures, frees what they held, as the collection frees the rest:
    # under the same check (_collect_between_calls; review 122 F2: a
    # finalizer freed with the module ran unchecked)
    sb_io.code_off(_CODE_FILENAMES)
    try:
        sys.modules.pop("__sandbox__", None)     # the call's module goes with it
        sb_guard.PINNED.clear()     # operands a comparison kept for the call
        sb_guard.OWN_PLAIN_CLASSES.clear()
        sb_charts.end_call()
        closed = True
    except BaseException:  # noqa: B902 - the next call would not start clean
        closed = False
    finally:
        refused = sb_io.code_on()
    return closed and refused is None and _collect_between_calls()


# a workspace's child keeps this much memory aside during its calls and frees
# it to clean up after each (_clean_between_calls) and to read the next
# call's request, then puts it aside again as that call starts (if there is
# room): a call that filled the memory limit and caught the MemoryError
# left no room for either, and the workspace ended as if the code had run
# between two calls (review 140 F4).  A private mapping never touched: it
# counts against the memory limit (RLIMIT_DATA) and costs no page, and
# unmapped it leaves room for an arena of Python's allocator (256 kB, which
# maps its own: a malloc'd reserve could have been freed into the heap).
_RESERVE_BYTES = 1 << 19
_RESERVE = [None]


def _hold_reserve():
    """Put the reserve aside again (none if the memory is full: the next
    call then has what is left)."""
    try:
        _RESERVE[0] = mmap.mmap(-1, _RESERVE_BYTES, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (MemoryError, OSError, ValueError):
        _RESERVE[0] = None


def _free_reserve():
    reserve, _RESERVE[0] = _RESERVE[0], None
    if reserve is not None:
        reserve.close()


def _collect_between_calls():
    """After a workspace's call has its answer: free what the call left in
    reference cycles.  pandas makes such cycles all the time (a Series and
    the .str or .dt accessor it caches on itself), and a cycle that holds a
    temporary column of a million strings goes only with a collection,
    which allocating containers triggers, not allocating strings: a
    workspace's calls grew by that much each until its memory limit ended
    one.  The collection scans only what the workspace's calls made (the
    warm heap is frozen); its time, mostly freeing what it finds, is spent
    between calls, against the workspace's CPU allowance between calls
    (SB_WORKSPACE_IDLE_CPU_MS), before the CPU rlimit is checked for the
    next call.  A workspace whose full collection takes longer than
    _COLLECT_FULL_MAX_S (it keeps millions of objects) is collected only in
    the young generations afterwards, so that no collection nears that
    allowance."""
    _BETWEEN_CALLS[0] = True
    start = time.perf_counter()
    # no frame of the code's runs meanwhile (a gc callback of the code's,
    # possible with the Python layer off, ran there and its write reached
    # the next call: review 69 L1); if one tried, the child does not serve on
    refused = None
    sb_io.code_off(_CODE_FILENAMES)
    try:
        gc.collect(_COLLECT["generation"])
    except BaseException:  # noqa: B902 - a finalizer's; nothing to tell it to
        pass
    finally:
        refused = sb_io.code_on()
    if time.perf_counter() - start > _COLLECT_FULL_MAX_S:
        _COLLECT["generation"] = 1
    return refused is None


def _module_namespace(namespace):
    """The call's namespace as the dict of a fresh module named __sandbox__,
    registered in sys.modules (the last call's, or group's, replaced): what
    dataclasses and typing look up by a class's __module__ to resolve
    annotations written as strings (from __future__ import annotations with
    a ClassVar field failed on None.__dict__).  Code cannot import it (the
    name is no allowed module) and gets nothing from it that globals() of
    its own functions do not already hold."""
    module = types.ModuleType("__sandbox__")
    module.__dict__.update(namespace)
    sys.modules["__sandbox__"] = module
    return module.__dict__


# per line of the call's code, the columns function_body() took off it:
# errors name the column as the code was written
_COLUMN_SHIFT = [None]


def _column_shifts(written, body):
    """How many leading characters each line of body lost (function_body
    keeps the lines, and takes only leading blanks)."""
    return [len(a) - len(b) for a, b in zip(written.split("\n"), body.split("\n"))]


def _written_position(line, col):
    """col of line in the code as written (function_body dedented it)."""
    shifts = _COLUMN_SHIFT[0]
    if shifts and type(line) is int and type(col) is int and 1 <= line <= len(shifts):
        return col + shifts[line - 1]
    return col


def function_body(code):
    """A language function's body (or sandbox_execute's code) as Python can
    parse it, line for line: one that starts on the line of its $$ (AS $$
    return x + y $$) without that line's leading blanks, as PL/Python takes
    it; one written on the lines after its $$, indented as a block, without
    their common indentation.  A body that starts on the $$ line and goes
    on below, indented as that line's blanks are (AS $$  y = x + 1 /
    "  return y"), loses that common indentation too, as PL/Python, which
    indents every line alike, takes it (review 107: "unexpected indent")."""
    first, newline, rest = code.partition("\n")
    on_first = bool(first.strip())
    # the common indentation of the lines that hold code goes from every
    # line that has it, a line of blanks too (in a string literal, its
    # blanks past the indentation stay: textwrap.dedent emptied it)
    lines = (code if on_first else rest).split("\n")
    margins = [line[:len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]
    if not margins:
        return code
    margin = margins[0]
    for other in margins[1:]:
        while not other.startswith(margin):
            margin = margin[:-1]
    if on_first:
        body = first.lstrip(" \t") + newline + rest
        if not margin or len(margins) < 2:
            return body
        try:
            ast.parse(body)
            return body             # as it was: a string literal's lines keep their blanks
        except Exception:           # noqa: B902 (the validator reports what it is)
            pass
        return "\n".join(line[len(margin):] if line.startswith(margin) else line.lstrip(" \t")
                         for line in lines)
    if not margin:
        return code
    return first + newline + "\n".join(
        line[len(margin):] if line.startswith(margin) else line.lstrip(" \t")
        for line in lines)


def _serve_request(python_layer, request, inputs):
    """One request: validate, run and answer it.  Returns the exit code."""
    # the inputs are read: no huge page from here on, where the code runs
    # (sb_io.c; prewarm() stubs it out, the worker and spares keep them)
    sb_io.huge_pages_off()
    _BETWEEN_CALLS[0] = False
    _SQL_CALLS[0] = 0
    _COLUMN_SHIFT[0] = None
    sb_codec.take_notes()       # an earlier call's, which ended in an error
    # the library classes of modules imported since the worker's sweep (a
    # workspace's earlier call, a lazy import): their attribute hooks guarded
    sb_harden.sweep_new_modules()
    if python_layer:
        sb_harden.clean_warning_filters()   # only entries native code reads safely
    code = request["code"]
    returns = request["returns"]
    allowed = request["allowed_modules"]
    change = request.get("preload_change")
    sb_guard.PRELOAD_CHANGE[0] = change if type(change) is str else None
    limit = int(request["max_output_bytes"])
    sb_charts.MAX_PIXELS[0] = int(request.get("max_figure_pixels", sb_charts.MAX_PIXELS[0]))
    # a LANGUAGE pysandbox function: code is its body (sb_language.c)
    spec = request.get("function")
    function = None
    if spec is not None:
        # an SQL name the validator refuses as a name (open, input, ...)
        # is no name for the wrapper
        name = spec["name"]
        if name in sb_validator.FORBIDDEN_NAMES or name != returns[0]:
            name = "function"
        returns = [name]
        function = (name, tuple(spec["params"]))
        inputs = dict(zip(function[1], _call_args(inputs)))
    # as a language function's body: $$ def main(): ... $$ on one line, or
    # a module indented as a block (SQL embedded in an application's code)
    written = code
    code = function_body(code)
    _COLUMN_SHIFT[0] = _column_shifts(written, code) if code != written else None
    out = _Output(limit)
    lines = code.splitlines()
    sb_shims.USER_TRACEBACK[0] = lambda exc: sb_errors.user_traceback(exc, lines)[0]
    sb_errors.CALL_CODE[0] = code       # what a hint may look for in it
    sys.stdout = _Stream(out, False)
    sys.stderr = _Stream(out, True)
    sb_guard.set_pandas_guard(python_layer)
    # nothing runs as an object dies but what is known to run nothing of
    # the code's: weakref callbacks wait for the call's functions to return
    # (sb_between.c), as no finalizer runs (sb_guard._finalizers)
    sb_io.death_callbacks_take()     # an earlier call's, left: dropped
    if python_layer:
        sb_io.death_guard(_CODE_FILENAMES, _immediate_callbacks())
    else:
        sb_io.death_guard(None)

    if request.get("validate_only"):
        findings, imports = sb_validator.validate(code, allowed, function)
        sb_io.send(sb_io.RESULT, sb_codec.dumps(
            {"ok": not findings, "findings": findings, "imports": imports}, limit).encode(),
            0)
        return 0

    if python_layer:
        # the backend says whether this session has run this very code (and
        # allowlist) to a result on this worker before: then it passed this
        # validator, and would again
        if request.get("validated") == sb_io.INSTANCE:
            findings = ()
        else:
            findings = sb_validator.validate(code, allowed, function)[0]
        if findings:
            first = findings[0]
            kind = "syntax" if first["rule"] == "syntax" else "validation"
            extra = {}
            if kind == "syntax" and sb_errors.fenced(lines):
                extra["hint"] = sb_errors.FENCE_HINT
            script = [f["line"] for f in findings if f["rule"] == "top-level" and
                      f["message"] not in sb_validator.NOT_A_SCRIPT]
            if function is None and script:
                # a script: what the code should look like instead, every
                # statement to move named at once (review 123 F1: an agent
                # moved one, and met the next at its next try)
                extra["hint"] = (
                    "Put %s in a function that returns the result, as in "
                    "def main(%s): ... return result; its parameters receive the inputs by "
                    "name%s. Only imports, definitions and constant assignments stay at top "
                    "level%s."
                    % (_lines_text(script),
                       ", ".join((["ws"] if _WS[0] is not None else []) + sorted(
                           {k for k in inputs if type(k) is str} |
                           {k for k in request.get("input_names") or ()
                            if type(k) is str and k.isidentifier()})),
                       ", and ws the workspace's dict" if _WS[0] is not None else "",
                       _settings_text(script, lines)))
            if "hint" in first and "hint" not in extra:
                extra["hint"] = first["hint"]   # what to import instead
            _send_error(kind, "SyntaxError" if kind == "syntax" else "ValidationError",
                        first["message"], first["line"], first["col"], None,
                        rule=first["rule"], findings=findings, **extra)
            return 0
        namespace = sb_guard.make_globals(allowed, out.print)
        namespace["sql"] = sql
        namespace["SQLError"] = SQLError
        if function is not None:
            namespace["SD"] = {}
            namespace[sb_guard.UNRETURNED_NAME] = _unreturned
    else:
        # tests only: real builtins and imports, so only the OS layers stand
        real = dict(vars(builtins))
        real["print"] = out.print
        namespace = {"__builtins__": real, "__name__": "__sandbox__", "sql": sql,
                     "SQLError": SQLError}
        if function is not None:
            namespace["SD"] = {}
            namespace[sb_guard.UNRETURNED_NAME] = _unreturned
    namespace = _module_namespace(namespace)

    try:
        if python_layer:
            compiled = _compile_user_code(code, function)
        elif function is not None:
            compiled = compile(sb_guard.function_tree(ast.parse(code, FILENAME), *function,
                                                      unreturned=True),
                               FILENAME, "exec", dont_inherit=True)
        else:
            compiled = compile(code, FILENAME, "exec", dont_inherit=True)
    except SyntaxError as exc:
        _send_error("syntax", "SyntaxError", exc.msg, exc.lineno,
                    exc.offset, None, rule="syntax",
                    **({"hint": sb_errors.FENCE_HINT} if sb_errors.fenced(lines) else {}))
        return 0
    except (ValueError, RecursionError, MemoryError) as exc:
        _send_error("syntax", "SyntaxError", "could not compile the code: %s" % exc,
                    rule="syntax")
        return 0

    if request.get("validate_first"):
        # the code passed: only now does the backend read its table inputs
        sb_io.send(sb_io.RESULT, b"{}", 0)
        return 0

    rows = request.get("rows")
    sb_codec.money_point(rows.get("money_point") if type(rows) is dict else None)
    sb_codec.date_order(rows.get("date_order") if type(rows) is dict else None)
    group = request.get("group")
    try:
        key = _group_key(inputs, group) if group is not None else None
        exec(compiled, namespace)
        results = {}
        for name in returns:
            fn = namespace.get(name)
            if type(fn) is not types.FunctionType:
                defined = sorted(k for k, v in namespace.items()
                                 if type(v) is types.FunctionType and not k.startswith("_")
                                 and v is not sql)
                what = "func" if rows is not None else "returns"
                if not defined:
                    # a script (result = 42) or a class only (review 94)
                    raise ArgumentsError(
                        '%s names "%s", but the code defines no functions: write it as one, '
                        'def %s(<the inputs by name>): ... return <the result>'
                        % (what, name, name))
                raise ArgumentsError(
                    '%s names "%s", but the code defines no function of that name '
                    '(it defines: %s); name a defined function in %s, or define it'
                    % (what, name, ", ".join(defined), what))
            results[name] = fn(**_bind(fn, name, inputs))
        if function is not None:
            # generators run here, inside the same error handling
            results[returns[0]] = _function_rows(results[returns[0]], spec["shape"],
                                                 returns[0], rows, limit - out.used,
                                                 bool(spec.get("procedure")))
        _run_death_callbacks()
        if request.get("verify"):
            _verify(request["verify"], results, namespace, allowed, python_layer)
        sys.stdout.flush()
        sys.stderr.flush()
        if rows is not None:
            nrows, payloads = sb_codec.encode_rows(
                results[returns[0]], rows["columns"], returns[0], limit - out.used, key)
            notes = sb_codec.take_notes()
            if function is None:
                notes += _unreturned_notes(results, code, returns)
            _say_notes(notes, out.used + 4096 < limit)
        elif function is not None:
            text = "{}"         # a function returning void, a DO block
        else:
            notes = []
            text = sb_codec.dumps(results, limit, out.used, notes=notes)
            if not request.get("figures") or (out.used == 0 and not sb_charts.any_open()):
                # sandbox_run's code may print or draw and return nothing;
                # one that did neither has its note in "stderr" (review 172 F2)
                notes += _unreturned_notes(results, code, returns)
            _say_notes(notes, out.used + len(text) + 4096 < limit)
            if request.get("figures"):
                # sandbox_run: the figures the call left open, beside the
                # results (sb_run.c takes both apart)
                left_open = sb_charts.figures()
                try:
                    shown = sb_codec.dumps(left_open, limit, out.used + len(text) + 24,
                                           "figures")
                except sb_codec.OutputLimitExceeded:
                    # the images, not rows (review 155 F3: "return an
                    # aggregate instead of raw rows")
                    raise sb_codec.OutputLimitExceeded(
                        "the %d figure%s left open when the call ended, as PNG images beside "
                        "the result, exceed the output limit of %d bytes"
                        % (len(left_open), "" if len(left_open) == 1 else "s", limit),
                        _FEWER_FIGURES) from None
                text = '{"returns":' + text + ',"figures":' + shown + '}'
    except sb_codec.RowsError as exc:
        if _ended_by_native_oom():
            return 72
        if function is not None:    # the backend's hint says what the function must return
            _send_error("rows", "ResultError", str(exc), sqlstate=exc.sqlstate,
                        shape=spec["shape"], hint=_function_hint(exc.hint, spec["shape"]))
        else:
            _send_error("rows", "ResultError", str(exc), sqlstate=exc.sqlstate, hint=exc.hint)
        return 0
    except VerificationFailed as exc:
        if _ended_by_native_oom():
            return 72
        _send_error("exception", exc.etype, str(exc), exc.line, None,
                    "  options.verify, line %d" % exc.line, where="verify")
        return 0
    except BaseException as exc:  # noqa: B902 - report everything, incl. SystemExit
        _report_exception(exc, lines, inputs)
        return 0

    # the last frame ends the child (exit code 0): the end of the output goes
    # out with the result, and nothing of the call's runs after it; unless
    # the child is held for the statement's next calls of the function, or
    # for the next group of a group_by call
    if _ended_by_native_oom():
        return 72
    asked = bool(request.get("held"))
    held = asked and sb_io.next_call()
    sb_io.linger(not asked)     # the backend reads the usage while it waits
    _send_value(rows, nrows if rows is not None else 0,
                payloads if rows is not None else (), text if rows is None else "",
                -1 if held else 0, last=asked and not held)
    if held and function is not None:
        sb_charts.end_call(full=False)
        return _serve_held(namespace[returns[0]], returns[0], spec["shape"], function[1],
                           rows, limit, out, lines, bool(spec.get("procedure")))
    if held:
        return _NEXT_GROUP
    return 0


_FRAME_HEADER = struct.Struct("=II")


def _send_value(rows, nrows, payloads, text, end, last=False):
    """The call's value: ROWS and its columns, or RESULT; end as sb_io's.
    last: a held child's last result (SB_DATA_LAST goes first: the backend
    then waits for its end, not for its next call).  One small column (a
    function called per row) goes out in one write."""
    head = _FRAME_HEADER.pack(sb_io.LAST, 0) if last else b""
    # small results in one piece: through a held call's mailbox (sb_protocol.h)
    if rows is not None and len(payloads) == 1:
        column = b"".join(payloads[0])
        if len(column) <= 65536:
            sb_io.reply(head + _FRAME_HEADER.pack(sb_io.ROWS, 8) + nrows.to_bytes(8, "little") +
                        _FRAME_HEADER.pack(sb_io.COLUMN, len(column)) + column, end)
            return
    if rows is None and len(text) <= 16384:
        data = text.encode("utf-8")
        sb_io.reply(head + _FRAME_HEADER.pack(sb_io.RESULT, len(data)) + data, end)
        return
    if head:
        sb_io.write(head)
    if rows is not None:
        sb_io.send(sb_io.ROWS, nrows.to_bytes(8, "little"), -1 if payloads else end)
        for i, parts in enumerate(payloads):
            sb_io.sendv(sb_io.COLUMN, parts, end if i == len(payloads) - 1 else -1)
    else:
        sb_io.send(sb_io.RESULT, text.encode("utf-8"), end)


# how long a held child polls for its next call before it sleeps (sb_io.c)
_HELD_SPIN_US = 200


def _serve_held(fn, name, shape, params, rows, limit, out, lines, procedure=False):
    """A held child (sb_protocol.h): the statement's next calls of the same
    function, each an SB_DATA_CALL and its arguments, until the backend
    closes the channel.  Only what the function keeps (SD, its globals)
    lasts from one call to the next; a failing call ends the child."""
    # the body's parameters are the arguments, in order: called as such
    # (what _bind would do, without its work on every row)
    code = fn.__code__
    positional = (not fn.__dict__ and not code.co_kwonlyargcount and
                  not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) and
                  code.co_varnames[:code.co_argcount] == tuple(params))
    while True:
        try:
            sb_io.wait_call(_HELD_SPIN_US)
            ftype, payload = sb_io.recv()
        except EOFError:
            return 0            # the statement is over
        args, failed = _read_next(lambda: _read_call(ftype), "arguments", "call")
        if failed is not None:
            return failed
        out.used = 0
        _SQL_CALLS[0] = 0
        try:
            if positional and fn.__code__ is code and len(args) == len(params):
                result = fn(*args)
            else:
                result = fn(**_bind(fn, name, dict(zip(params, args))))
            value = _function_rows(result, shape, name, rows, limit - out.used, procedure)
            _run_death_callbacks()      # as at a call's end (_serve_request)
            sys.stdout.flush()
            sys.stderr.flush()
            nrows, payloads = 0, ()
            if rows is not None:
                nrows, payloads = sb_codec.encode_rows(value, rows["columns"], name,
                                                       limit - out.used)
            sb_charts.end_call(full=False)
        except sb_codec.RowsError as exc:
            if _ended_by_native_oom():
                return 72
            _send_error("rows", "ResultError", str(exc), sqlstate=exc.sqlstate, shape=shape,
                        hint=_function_hint(exc.hint, shape))
            return 0
        except BaseException as exc:  # noqa: B902 - report everything, incl. SystemExit
            _report_exception(exc, lines, dict(zip(params, args)))
            return 0
        if _ended_by_native_oom():
            return 72
        stay = sb_io.next_call()
        _send_value(rows, nrows, payloads, "{}", -1 if stay else 0, last=not stay)
