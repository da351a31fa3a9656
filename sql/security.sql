--
-- security: representative hostile payloads and the exact errors they get
-- (the full hostile list, and checks for leftovers, live in test/)
--

-- SQLSTATE and message of a call, or its result
CREATE FUNCTION pg_temp.attempt(code text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN RETURN sandbox_execute(code)::text;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;

-- the Python layer refuses the easy paths before the code runs (42501)
-- importing os
SELECT sandbox_execute($$
import os
def main():
    return os.listdir("/")
$$);
-- numpy's ctypes bridge, directly or by a constant name
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.ctypeslib.ctypes.CDLL(None)
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return getattr(np, "ctypeslib")
$$);
-- os, sys and builtins reached through pandas and numpy modules
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.compat.os.system("id")
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.lib.function_base.builtins.open("/etc/passwd").read()
$$);
-- pandas readers and writers that take a path
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.read_csv("/etc/passwd")
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    pd.DataFrame({"a": [1]}).to_csv("/tmp/pysandbox_regress_x")
$$);
-- walking the class hierarchy to reach every loaded class
SELECT sandbox_execute($$
def main():
    return ().__class__.__bases__[0].__subclasses__()
$$);
-- walking frames from a generator to the caller's globals
SELECT sandbox_execute($$
def main():
    g = (x for x in [1])
    return g.gi_frame.f_back.f_globals
$$);
-- a format string that walks attributes
SELECT sandbox_execute($$
def main():
    return "{0.__class__.__base__}".format(())
$$);
-- getattr with a name computed at run time
SELECT sandbox_execute($$
def main(name):
    return getattr((), name)
$$, '{"name": "__class__"}');
SELECT sandbox_execute($$
def main():
    return getattr((), "_" + "_class__")
$$);
-- an expression string evaluated by pandas
SELECT sandbox_execute($$
def main(df):
    return df.query("a.__class__ == a")
$$, '{"df": {"$query": "SELECT 1 AS a"}}');
SELECT sandbox_execute($$
import pandas as pd
def main(df):
    return df.eval("@pd.compat.os")
$$, '{"df": {"$query": "SELECT 1 AS a"}}');

-- what gets past the static check meets the import guard at run time:
-- modules reached by attribute are proxies that never hand out denied ones
SELECT sandbox_execute($$
import pandas as pd
def main():
    return str(pd.io.common)
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return str(np.lib.utils)
$$);
SELECT pg_temp.attempt($$
import numpy as np
def main():
    return [str(np), str(np.linalg)]
$$);
-- sandboxed modules are read-only
SELECT sandbox_execute($$
import json
def main():
    json.loads = None
$$);

-- the operating system layers hold without the Python layer
-- (pysandbox.python_layer = off is for testing them; only superusers may set it)
SET pysandbox.python_layer = off;
-- the child's environment is empty; numpy's legacy generator was reseeded
-- right after fork (not by a fallback np.random.seed() in Python)
SELECT sandbox_execute($$
import os, sys
def main():
    return {"environ": dict(os.environ),
            "reseeded_at_fork": sys.modules["sb_runtime"]._NUMPY_RESEEDED_AT_FORK}
$$);
-- the host's name is not the server's (a UTS namespace of its own)
SELECT sandbox_execute($$
import os
def main():
    return [os.uname().nodename]
$$) -> 'main' -> 0 AS nodename;
-- no file can be read: not /etc, not /proc, not the data directory (the
-- process's working directory); with Landlock and the mount namespace
-- together, nothing outside the library directories even exists
SELECT sandbox_execute($$
def main():
    return open("/etc/passwd").read()
$$);
SELECT pg_temp.attempt($$
def main():
    return open("/proc/self/status").read()
$$);
SELECT pg_temp.attempt($$
def main():
    return open("PG_VERSION").read()
$$);
SELECT pg_temp.attempt($$
def main():
    return open("global/pg_control", "rb").read(16)
$$);
SELECT pg_temp.attempt($$
import os
def main():
    return os.listdir("/")
$$);
SELECT pg_temp.attempt($$
import pandas as pd
def main():
    return pd.read_csv("/etc/passwd")
$$);
-- nor its metadata: stat() is not mediated by Landlock, but the mount
-- namespace root holds nothing of the data directory
CREATE FUNCTION pg_temp.data_dir_file() RETURNS jsonb LANGUAGE sql AS $f$
SELECT sandbox_execute($$
import os
def main(data_dir):
    found = []
    for probe in (lambda p: os.stat(p).st_size, lambda p: open(p).read()):
        try:
            found.append(probe(data_dir + "/PG_VERSION"))
        except OSError as e:
            found.append(type(e).__name__)
    return found
$$, jsonb_build_object('data_dir', current_setting('data_directory')))
$f$;
SELECT pg_temp.data_dir_file();
-- no file can be written, not even where the directory exists: the call is
-- blocked and named (42501)
SELECT sandbox_execute($$
def main():
    open("/tmp/pysandbox_regress_x", "w").write("x")
$$);
SELECT pg_temp.attempt($$
import pandas as pd
def main():
    pd.DataFrame({"a": [1]}).to_csv("/usr/lib/python3/dist-packages/pysandbox_regress_x")
$$);
SELECT pg_stat_file('/usr/lib/python3/dist-packages/pysandbox_regress_x', missing_ok => true) IS NULL
       AS no_file_written;
-- no network
SELECT pg_temp.attempt($$
import socket
def main():
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM)
$$);
-- no new processes or programs
SELECT pg_temp.attempt($$
import os
def main():
    return os.fork()
$$);
SELECT pg_temp.attempt($$
import subprocess
def main():
    return subprocess.run(["id"]).returncode
$$);
-- (system() blocks all signals before it forks, so the process is killed
-- before it can say which call was refused)
SELECT sandbox_execute($$
import os
def main():
    return os.system("id")
$$);
-- no signals to other processes
SELECT pg_temp.attempt($$
import os
def main():
    os.kill(1, 15)
$$);
-- how a child ends names a limit only when the worker measured it spent:
-- the exit code and the signal the CPU timer ends a child with, given by
-- the child itself in its first milliseconds, are crashes
SELECT pg_temp.attempt($$
import os
def main():
    os._exit(74)
$$);
SELECT pg_temp.attempt($$
import os, signal
def main():
    os.kill(os.getpid(), signal.SIGPROF)
$$);
SELECT pg_temp.attempt($$
import os, signal
def main():
    os.kill(os.getpid(), signal.SIGXCPU)
$$);
RESET pysandbox.python_layer;

-- Landlock alone (where user namespaces are off): files stay unreadable,
-- but their metadata does not, and sandbox_layers() says so
SET pysandbox.filesystem_layer = landlock;
SELECT layer, active, detail FROM sandbox_layers()
 WHERE layer IN ('landlock', 'mount_namespace');
SET pysandbox.python_layer = off;
SELECT pg_temp.data_dir_file();
RESET pysandbox.python_layer;

-- the fallback for kernels without Landlock: a mount namespace whose root
-- holds only the Python library directories, read-only
SET pysandbox.filesystem_layer = mount_namespace;
SELECT layer, active, detail FROM sandbox_layers()
 WHERE layer IN ('landlock', 'mount_namespace');
SELECT sandbox_execute($$
import pandas as pd
def main():
    s = pd.Series([1.5, 2.5], index=pd.to_datetime(["2024-03-31", "2024-10-27"]).tz_localize("Europe/Paris"))
    return [str(s.index[0]), float(s.sum())]
$$);
-- with the Python layer off, real open(): outside the library directories
-- nothing exists, and what exists cannot be written
SET pysandbox.python_layer = off;
SELECT sandbox_execute($$
import os
def main():
    return {"root": sorted(os.listdir("/")),
            "exists": [os.path.exists(p) for p in
                       ["/etc/passwd", "/proc/self", "/tmp", "/dev/null", "/usr/lib/python3.11/os.py"]]}
$$);
SELECT sandbox_execute($$
def main():
    return open("/etc/passwd").read()
$$);
SELECT sandbox_execute($$
def main():
    return open("/usr/lib/python3.11/os.py", "a").write("x")
$$);
RESET pysandbox.python_layer;
RESET pysandbox.filesystem_layer;

-- after all that, the session and the sandbox work normally
SELECT sandbox_execute('def main(): return "still fine"');

-- sandbox_layers(): every layer of the README's Security model is active on this kind of machine
-- (Debian 12, Landlock, unprivileged user namespaces), both filesystem
-- layers together
SELECT layer, active FROM sandbox_layers();
-- a child runs in a new user namespace, as nobody (65534), not as the
-- server's user
SET pysandbox.python_layer = off;
SELECT sandbox_execute($$
import os
def main():
    return os.getuid()
$$);
RESET pysandbox.python_layer;
-- the worker's one-pass check of positions and group labels that pandas'
-- native code trusts (sb_memory._outside): outside [low, high) or not, and
-- None where it does not read the array (numpy then checks)
SET pysandbox.python_layer = off;
SELECT sandbox_execute($$
import sb_io
import numpy as np
def main():
    cases = [
        (np.array([0, 1, 2], dtype=np.int64), 0, 3), (np.array([0, 1, 3], dtype=np.int64), 0, 3),
        (np.array([-1, 0], dtype=np.intp), -1, 1), (np.array([-2, 0], dtype=np.intp), -1, 1),
        (np.array([5], dtype=np.int32), 0, 6), (np.array([6], dtype=np.int32), 0, 6),
        (np.array([2**63 + 5], dtype=np.uint64), 0, 10), (np.array([3], dtype=np.uint32), 0, 4),
        (np.array([], dtype=np.int64), 0, 0), (np.arange(10)[::2], 0, 100),
        (np.array([1], dtype=np.int8), 0, 2), (np.array([1.5]), 0, 2),
        (np.array([0, 1], dtype=">i8"), 0, 2)]
    return [sb_io.positions_outside(a, lo, hi) for a, lo, hi in cases]
$$);
RESET pysandbox.python_layer;
-- numpy counts a data type's size in a C int without an overflow check;
-- the worker checks the sizes where numpy's converter reads and stores them
-- (src/worker/sb_dtypeguard.c), with the Python layer off too: a field past
-- the record, sizes that sum past 2**31, type strings and tuples that wrap
SET pysandbox.python_layer = off;
SELECT sandbox_execute($$
import numpy as np
def main():
    return hex(int(np.zeros(1, {"names": ["x"], "formats": ["u8"], "offsets": [2**31 - 4],
                                "itemsize": 16})["x"][0]))
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.dtype([("a", "V200000000"), ("b", ("u1", (200000000,))), ("x", "V200000000")]).itemsize
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.zeros(0, "U1073741823").itemsize
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.dtype(("S", -5)).itemsize
$$);
-- the worker installs its checks once: they cannot be moved or switched off
SELECT sandbox_execute($$
import sb_io
import numpy as np
def main():
    sb_io.guard_numpy_dtypes(int, (np.dtype("V7"), np.dtype("V9"), np.dtype("S3")))
$$);
RESET pysandbox.python_layer;
-- ordinary data types are untouched: aligned records, subarrays, titles,
-- comma strings, an explicit itemsize, flexible sizes, record arrays
SELECT sandbox_execute($$
import numpy as np
def main():
    rec = np.dtype([("a", "i4"), ("b", "f8"), (("title", "c"), "S5"), ("d", ("u1", (3, 4)))],
                   align=True)
    x = np.zeros(2, rec)
    x["a"] = [1, 2]
    r = np.rec.fromarrays([[1, 2], [0.5, 1.5]], names="p,q")
    return [rec.itemsize, x["a"].tolist(), np.dtype("i4,f8").itemsize,
            np.dtype({"names": ["p", "q"], "formats": ["i8", "i8"], "offsets": [0, 8],
                      "itemsize": 32}).itemsize,
            np.dtype(("U", 10)).itemsize, np.dtype("S7").itemsize, r.q.tolist(),
            np.dtype(np.dtype([("x", "u8")] * 1)).itemsize]
$$);
