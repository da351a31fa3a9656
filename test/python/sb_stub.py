"""The sandbox's Python modules (src/python) outside the worker.

    import sb_stub; sb_io = sb_stub.install()

puts src/python on sys.path and registers a stand-in for sb_io, the
worker's C module, holding its frame types and column kinds; a test that
plays frames sets recv/send/sendv (and INSTANCE) on it; write() and
reply() (whole frames in one buffer) hand each frame to the sendv() set.
"""

import os
import struct
import sys
import types

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "python")

FRAMES = ["REQUEST", "TABLE", "COLUMN", "END", "STDOUT", "STDERR", "RESULT", "ERROR", "ROWS",
          "SQL", "SQL_ERROR", "CALL", "LAST", "CHUNK"]
COLUMN_KINDS = ["COL_INT64", "COL_FLOAT64", "COL_BOOL", "COL_TEXT", "COL_DATE",
                "COL_TIMESTAMP", "COL_TIMESTAMPTZ", "COL_INTERVAL", "COL_JSON",
                "COL_BYTES", "COL_DECIMAL", "COL_NUMERIC_ARRAY", "COL_DECIMAL_ARRAY",
                "COL_DATE_ARRAY", "COL_TIMESTAMP_ARRAY", "COL_TIMESTAMPTZ_ARRAY",
                "COL_DECIMAL_JSON", "COL_BYTES_ARRAY", "COL_INTERVAL_PARTS"]


def install():
    """The stand-in sb_io module (made once)."""
    if "sb_io" in sys.modules:
        return sys.modules["sb_io"]
    if SRC not in sys.path:
        sys.path.insert(0, SRC)
    io = types.ModuleType("sb_io")
    for i, name in enumerate(FRAMES):
        setattr(io, name, 100 + i)
    for i, name in enumerate(COLUMN_KINDS):
        setattr(io, name, i + 1)
    io.write = lambda data, end=-1: _split_write(io, bytes(data), end)
    io.reply = io.write
    io.next_call = lambda: False
    io.linger = lambda on: None
    io.wait_call = lambda spin_us: None
    # transparent huge pages off before the code runs: a process-wide
    # setting, which a test's own process keeps
    io.huge_pages_off = lambda: None
    # the worker's profile hook that refuses the code's frames between
    # calls: none refused here (a test sets code_on to play one)
    io.code_off = lambda filenames: None
    io.code_on = lambda: None
    # the worker's wrapper of weakref callbacks in a call: none here
    io.death_guard = lambda filenames, immediate=None: None
    io.death_callbacks_take = lambda: []
    # the collector's untracking of decoded values: nothing to tell here
    io.untrack_leaves = lambda values: None
    io.watch_classes = lambda types: len(types)
    io.changed_class = lambda: None
    # the worker's address mask, a permutation of 64-bit numbers: any one
    io.mask_address = lambda n: (n * 0x9E3779B97F4A7C15 ^ 0x5BD1E995) & (2 ** 64 - 1)
    sys.modules["sb_io"] = io
    return io


def _split_write(io, data, end):
    """sb_io.write() and reply(): the frames in data, each through io.sendv."""
    pos = 0
    while pos < len(data):
        ftype, length = struct.unpack_from("=II", data, pos)
        pos += 8
        last = pos + length == len(data)
        io.sendv(ftype, [data[pos:pos + length]], end if last else -1)
        pos += length
