#!/usr/bin/python3
"""The analyst's libraries, preloaded: scipy, sklearn and statsmodels code
gives in the sandbox what it gives in plain Python.

    /usr/bin/python3 test/corpus/libraries.py [--strict]
    /usr/bin/python3 test/corpus/libraries.py --conf   (the settings it needs)

Runs against the test cluster (PGHOST/PGPORT/PGUSER) when it was started
with the libraries in pysandbox.preload_modules and allowed (test/check.sh,
step "libraries"; the settings are LIBRARY_CONF below).  Every snippet runs
in plain Python, its value made JSON by the sandbox's rules (sb_codec), and
through sandbox_execute: the values must be equal.  A library that is not
installed is skipped, with a line saying so (a failure with --strict, as in
CI).  Also checked:

- sandbox_layers() lists what the worker preloaded;
- a submodule that is allowed but was not preloaded and loads native code
  fails with the message that names pysandbox.preload_modules (53000-like
  repair, 38000);
- no mapping of this cluster's fork-server worker or of any spare is both
  writable and executable (the libraries' helpers are warmed so that none is made:
  sb_runtime._warm_library_helpers);
- the worker itself maps none of the libraries: its preloaded process does
  (src/worker/sb_preloaded.c), and a call whose code names one runs in a
  child of that process, reparented to the worker and contained as every
  child is; code that does not name them runs without them, and a pandas
  method that needs scipy then fails with a hint that says to name it;
- when the preloaded process is killed, the worker stops with it and the
  fork server starts a new pair: the next call works.

Prints one line per check and "libraries: N passed, M failed".
"""

import os
import sys
import textwrap
import time

import psycopg2
import psycopg2.extras

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from proctools import (WORKER_EXE, call_children, children, descendants, exe_of,  # noqa: E402
                       is_preloaded_process, is_spare, process_table, read_stat, seccomp_mode)
from run_corpus import plain  # noqa: E402  (the sandbox's JSON rules, in plain Python)

PRELOAD = ("scipy.stats, scipy.optimize, scipy.interpolate, scipy.signal, "
           "sklearn.linear_model, sklearn.cluster, sklearn.preprocessing, "
           "sklearn.decomposition, sklearn.model_selection, sklearn.metrics, "
           "sklearn.ensemble, statsmodels.api, statsmodels.formula.api")
ALLOWED = ("math, statistics, json, datetime, decimal, fractions, re, collections, "
           "itertools, functools, random, string, textwrap, heapq, bisect, calendar, "
           "dataclasses, typing, enum, io, base64, struct, zlib, time, zoneinfo, operator, copy, "
           "abc, warnings, pprint, unicodedata, hashlib, uuid, sys, traceback, logging, dateutil.relativedelta, dateutil.parser, "
           "numpy, pandas, matplotlib, scipy, sklearn, "
           "statsmodels")
LIBRARY_CONF = ("pysandbox.preload_modules = '%s'\npysandbox.allowed_modules = '%s'"
                % (PRELOAD, ALLOWED))

# (library, name, code): main() returns plain values, rounded where a
# last-bit difference between runs would not matter to an analyst
SNIPPETS = [
    ("scipy", "stats.ttest_ind", """
        import numpy as np
        from scipy import stats
        def main():
            rng = np.random.default_rng(1)
            a, b = rng.normal(0, 1, 200), rng.normal(0.3, 1, 200)
            t, p = stats.ttest_ind(a, b)
            return [round(float(t), 9), round(float(p), 9)]
        """),
    ("scipy", "stats.describe, pearsonr, spearmanr", """
        import pandas as pd
        from scipy import stats
        def main():
            df = pd.DataFrame({"x": range(50), "y": [(i * 7) % 13 for i in range(50)]})
            d = stats.describe(df["y"])
            return {"mean": round(float(d.mean), 9), "var": round(float(d.variance), 9),
                    "pearson": round(float(stats.pearsonr(df.x, df.y)[0]), 9),
                    "spearman": round(float(stats.spearmanr(df.x, df.y)[0]), 9)}
        """),
    ("scipy", "stats.norm distribution", """
        from scipy.stats import norm
        def main():
            return [round(float(norm.cdf(1.96)), 12), round(float(norm.ppf(0.975)), 12),
                    round(float(norm(loc=2, scale=3).pdf(2)), 12)]
        """),
    ("scipy", "optimize.minimize and curve_fit", """
        import numpy as np
        from scipy import optimize
        def main():
            r = optimize.minimize(lambda v: (v[0] - 3) ** 2 + (v[1] + 1) ** 2, [0, 0])
            x = np.linspace(0, 4, 50)
            popt, _ = optimize.curve_fit(lambda x, a, b: a * np.exp(-b * x), x,
                                         2.5 * np.exp(-1.3 * x))
            return [round(float(v), 4) for v in list(r.x) + list(popt)]
        """),
    ("scipy", "interpolate through pandas (akima, cubic)", """
        import pandas as pd
        def main():
            s = pd.Series([1.0, None, 3.0, 4.5, None, 7.0, 8.0])
            return {"akima": s.interpolate(method="akima").round(9).tolist(),
                    "cubic": s.interpolate(method="cubic").round(9).tolist()}
        """),
    ("scipy", "signal.savgol_filter", """
        import numpy as np
        from scipy.signal import savgol_filter
        def main():
            y = np.sin(np.linspace(0, 6, 40))
            return np.round(savgol_filter(y, 7, 2), 9).tolist()
        """),
    ("scipy", "rolling with a window type", """
        import pandas as pd
        def main():
            s = pd.Series(range(20), dtype=float)
            return s.rolling(5, win_type="gaussian").mean(std=2).round(9).tolist()
        """),
    ("sklearn", "LinearRegression", """
        import numpy as np
        from sklearn.linear_model import LinearRegression
        def main():
            X = np.arange(20.0).reshape(-1, 2)
            y = X @ np.array([1.5, -2.0]) + 4
            m = LinearRegression().fit(X, y)
            return [round(float(v), 6) for v in list(m.coef_) + [m.intercept_]]
        """),
    ("sklearn", "KMeans (an OpenMP loop)", """
        import numpy as np
        from sklearn.cluster import KMeans
        def main():
            X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
            km = KMeans(n_clusters=2, random_state=0, n_init=10).fit(X)
            return sorted(km.cluster_centers_.tolist())
        """),
    ("sklearn", "scaler, split, logistic regression, metrics", """
        import numpy as np
        from sklearn.preprocessing import StandardScaler
        from sklearn.model_selection import train_test_split
        from sklearn.linear_model import LogisticRegression
        from sklearn.metrics import accuracy_score
        def main():
            rng = np.random.default_rng(0)
            X = rng.normal(size=(200, 3))
            y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
            sc = StandardScaler().fit(Xtr)
            m = LogisticRegression().fit(sc.transform(Xtr), ytr)
            return round(float(accuracy_score(yte, m.predict(sc.transform(Xte)))), 9)
        """),
    ("sklearn", "PCA on a DataFrame", """
        import pandas as pd
        from sklearn.decomposition import PCA
        def main():
            df = pd.DataFrame({"a": range(10), "b": [2 * i + 1 for i in range(10)],
                               "c": [i % 3 for i in range(10)]})
            p = PCA(n_components=2).fit(df)
            return [round(float(v), 9) for v in p.explained_variance_ratio_]
        """),
    ("sklearn", "RandomForestClassifier (n_jobs=1)", """
        import numpy as np
        from sklearn.ensemble import RandomForestClassifier
        def main():
            rng = np.random.default_rng(3)
            X = rng.normal(size=(120, 4))
            y = (X[:, 0] > 0).astype(int)
            m = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
            return int(m.predict(X).sum())
        """),
    ("sklearn", "n_jobs=2 and -1 run in turn, in the call's process", """
        import numpy as np
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.model_selection import cross_val_score
        from sklearn.linear_model import LinearRegression
        def main():
            rng = np.random.default_rng(5)
            X = rng.normal(size=(60, 3))
            y = (X[:, 0] > 0).astype(int)
            rf = RandomForestClassifier(n_estimators=8, random_state=0, n_jobs=2).fit(X, y)
            cv = cross_val_score(LinearRegression(), X, X.sum(1), cv=3, n_jobs=-1)
            return [int(rf.predict(X).sum())] + [round(float(v), 6) for v in cv]
        """),
    ("statsmodels", "OLS", """
        import numpy as np
        import statsmodels.api as sm
        def main():
            x = np.arange(30.0)
            y = 2 * x + 1 + np.sin(x)
            r = sm.OLS(y, sm.add_constant(x)).fit()
            return [round(float(v), 9) for v in r.params] + [round(float(r.rsquared), 9)]
        """),
    ("statsmodels", "formula OLS on a DataFrame", """
        import pandas as pd
        import statsmodels.formula.api as smf
        def main():
            df = pd.DataFrame({"x": range(20), "g": ["a", "b"] * 10})
            df["y"] = 3 * df["x"] + (df["g"] == "b") * 5 + 1
            fit = smf.ols("y ~ x + C(g)", df).fit()
            return {k: round(float(v), 6) for k, v in fit.params.items()}
        """),
    ("statsmodels", "seasonal decomposition", """
        import numpy as np
        import pandas as pd
        import statsmodels.api as sm
        def main():
            idx = pd.date_range("2024-01-01", periods=48, freq="MS")
            s = pd.Series(np.arange(48) + 10 * np.sin(np.arange(48) * np.pi / 6), index=idx)
            d = sm.tsa.seasonal_decompose(s, model="additive", period=12)
            return [round(float(v), 6) for v in d.seasonal.iloc[:12]]
        """),
]

# allowed, not preloaded, loads native code: the repair names the setting
NOT_PRELOADED = ("scipy", """
    from scipy.cluster.vq import kmeans2
    def main():
        return 1
    """, "scipy.cluster")


def installed(lib):
    try:
        __import__(lib)
        return True
    except ImportError:
        return False


def writable_executable_mappings(postmaster):
    """(worker processes read, mappings both writable and executable in
    them): the worker and its spares, below this cluster's postmaster."""
    table = process_table()
    read, found = 0, []
    for pid in descendants(table, postmaster):
        if exe_of(pid) != WORKER_EXE:
            continue
        try:
            with open("/proc/%d/maps" % pid) as f:
                maps = f.read()
        except OSError:
            continue        # it exited meanwhile
        read += 1
        for line in maps.splitlines():
            perms = line.split()[1]
            if "w" in perms and "x" in perms:
                found.append("pid %d: %s" % (pid, line.strip()))
    return read, found


LIBRARY_PATHS = ("/scipy/", "/sklearn/", "/statsmodels/")

# runs long enough to be seen in the process table
BUSY_SCIPY = """
import scipy.stats
def main():
    x = 0
    for i in range(60000000):
        x += i
    return x
"""

# pandas imports scipy for a Kendall correlation by itself: the code must
# name scipy to run in a child that has it (a method name spelled out, as
# "kendall" or "interpolate", counts)
KENDALL = """
import pandas as pd
def main():
    m = 'ken' + 'dall'
    a, b = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0]), pd.Series([2.0, 1.0, 4.0, 3.0, 5.0])
    return round(float(a.corr(b, method=m)), 9)
"""


def maps_libraries(pid):
    """Does process pid map a file of scipy, sklearn or statsmodels?"""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any(p in line for line in f for p in LIBRARY_PATHS)
    except OSError:
        return False


def fork_server_worker(table, postmaster):
    """The fork server's worker: a pysandbox-worker child of the postmaster's
    "pysandbox fork server" child."""
    for pid in descendants(table, postmaster):
        if exe_of(pid) == WORKER_EXE and table.get(table[pid][2], ("",))[0] != "pysandbox-worke":
            return pid
    return None


def check_processes(cur, check, postmaster):
    """The worker maps no library, its preloaded process does, and a child
    that runs code naming scipy is a contained child of the worker."""
    import threading
    table = process_table()
    worker = fork_server_worker(table, postmaster)
    if worker is None:
        check(False, "the fork server's worker is running", "not found")
        return
    kids = [p for p in children(table, worker) if exe_of(p) == WORKER_EXE]
    holders = [p for p in kids if is_preloaded_process(p)]
    check(not maps_libraries(worker) and len(holders) == 1 and maps_libraries(holders[0])
          and not any(maps_libraries(p) for p in kids if p not in holders and is_spare(p)),
          "the worker and its spares map none of the libraries; its preloaded process does",
          "worker maps them: %s; preloaded processes: %s" % (maps_libraries(worker), holders))
    if len(holders) != 1:
        return
    preloaded = holders[0]
    box = {}

    def busy():
        c = psycopg2.connect("")
        try:
            k = c.cursor()
            k.execute("SELECT sandbox_execute(%s)", (BUSY_SCIPY,))
            box["result"] = k.fetchone()[0]
        except psycopg2.Error as exc:
            box["error"] = "%s %s" % (exc.pgcode, str(exc).strip()[:200])
        finally:
            c.close()

    t = threading.Thread(target=busy)
    t.start()
    seen = None
    deadline = time.time() + 20
    while seen is None and t.is_alive() and time.time() < deadline:
        table = process_table()
        for pid in call_children(table, worker):
            if pid != preloaded and maps_libraries(pid) and seccomp_mode(pid) == 2:
                seen = pid
        time.sleep(0.05)
    t.join()
    check(seen is not None and box.get("result") == {"main": sum(range(60000000))},
          "code naming scipy runs in a contained child of the worker, forked with scipy mapped",
          "child seen: %s, result: %s" % (seen, box))


def check_preloaded_process_dies(cur, check, postmaster):
    """Kill the preloaded process: the worker goes too, the fork server
    starts a new pair, nothing is left behind, and the next calls work."""
    table = process_table()
    worker = fork_server_worker(table, postmaster)
    holders = [p for p in children(table, worker or -1) if is_preloaded_process(p)]
    if worker is None or len(holders) != 1:
        check(False, "killing the preloaded process", "no worker or preloaded process found")
        return
    old = set(descendants(table, worker)) | {worker}
    os.kill(holders[0], 9)
    deadline = time.time() + 60
    ok = False
    while time.time() < deadline:
        time.sleep(0.2)
        try:
            cur.execute("SELECT sandbox_execute(%s)", ("import scipy.stats\ndef main(): "
                                                         "return round(float(scipy.stats.norm.cdf(0)), 3)",))
            ok = cur.fetchone()[0] == {"main": 0.5}
            break
        except psycopg2.Error:
            continue    # in flight when the worker went, or not restarted yet
    left = [p for p in old if read_stat(p) is not None and read_stat(p)[1] != "Z"]
    check(ok and not left,
          "the preloaded process killed: the worker follows, a new pair serves the next call",
          "call ok: %s, old processes left: %s" % (ok, left))


def main():
    if sys.argv[1:] == ["--conf"]:
        print(LIBRARY_CONF)
        return 0
    strict = "--strict" in sys.argv[1:]
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("SELECT detail FROM sandbox_layers() WHERE layer = 'preload'")
    preloaded = cur.fetchone()[0]
    passed = failed = 0

    def check(ok, what, why=""):
        nonlocal passed, failed
        print("%-4s %s%s" % ("ok" if ok else "FAIL", what, "" if ok else ": " + why), flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    libs = [lib for lib in ("scipy", "sklearn", "statsmodels") if installed(lib)]
    for lib in ("scipy", "sklearn", "statsmodels"):
        if lib not in libs:
            check(not strict, "%s is installed" % lib,
                  "not installed here (--strict: test/setup.sh installs it)")
    for lib in libs:
        wanted = [m.strip() for m in PRELOAD.split(",") if m.strip().split(".")[0] == lib]
        missing = [m for m in wanted if m not in preloaded]
        check(not missing, "sandbox_layers() lists %s as preloaded" % lib,
              "missing %s in %r (start the cluster with LIBRARY_CONF)" % (missing, preloaded))

    for lib, name, code in SNIPPETS:
        if lib not in libs:
            continue
        code = textwrap.dedent(code).lstrip("\n")
        status, want = plain(code)
        if status != "ok":
            check(False, "%s: %s" % (lib, name), "plain Python failed: %s" % want)
            continue
        try:
            cur.execute("SELECT sandbox_execute(%s)", (code,))
            got = cur.fetchone()[0]["main"]
            check(got == want, "%s: %s" % (lib, name), "sandbox %r, plain Python %r" % (got, want))
        except psycopg2.Error as exc:
            check(False, "%s: %s" % (lib, name), "%s %s" % (exc.pgcode, str(exc).strip()[:300]))

    lib, code, module = NOT_PRELOADED
    if lib in libs:
        try:
            cur.execute("SELECT sandbox_execute(%s)", (textwrap.dedent(code).lstrip("\n"),))
            check(False, "%s, allowed but not preloaded, is refused" % module, "it ran")
        except psycopg2.Error as exc:
            msg = str(exc)
            check(exc.pgcode == "38000" and "pysandbox.preload_modules" in msg
                  and "not preloaded" in msg,
                  "%s, allowed but not preloaded: the message names the setting" % module,
                  "%s %s" % (exc.pgcode, msg[:300]))

    if "scipy" in libs:
        named = KENDALL
        status, want = plain(named)
        try:
            cur.execute("SELECT sandbox_execute(%s)", (named.replace("import pandas as pd",
                                                                     "import pandas as pd  # scipy"),))
            got = cur.fetchone()[0]["main"]
            check(status == "ok" and got == want,
                  "scipy: pandas loads it for a Kendall correlation, the code names it in a comment",
                  "sandbox %r, plain Python %r" % (got, want))
        except psycopg2.Error as exc:
            check(False, "scipy: pandas loads it for a Kendall correlation, the code names it in a comment",
                  "%s %s" % (exc.pgcode, str(exc).strip()[:300]))
        try:
            cur.execute("SELECT sandbox_execute(%s)", (named,))
            check(False, "scipy: code that does not name it runs without it", "it ran")
        except psycopg2.Error as exc:
            # pandas' ImportError, with the reason the Python layer gave for
            # the native code it could not load (sb_guard.harden_native_loads)
            hint = exc.diag.message_hint or ""
            check(exc.pgcode == "38000" and "ImportError" in str(exc)
                  and 'import "scipy" by name in the code (for example "import scipy")'
                  in str(exc),
                  "scipy: code that does not name it runs without it; the message says to name it",
                  "%s %s / %s" % (exc.pgcode, str(exc).strip()[:400], hint[:300]))

    cur.execute("SHOW data_directory")
    with open(os.path.join(cur.fetchone()[0], "postmaster.pid")) as f:
        postmaster = int(f.readline())
    if libs:
        check_processes(cur, check, postmaster)
    time.sleep(0.5)     # spares are forked again once calls stop
    read, rwx = writable_executable_mappings(postmaster)
    check(read > 0 and not rwx,
          "no writable and executable mapping in the worker or a spare (%d read)" % read,
          "; ".join(rwx[:5]) if rwx else "no worker process of this cluster could be read")
    if libs:
        check_preloaded_process_dies(cur, check, postmaster)
    print("libraries: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
