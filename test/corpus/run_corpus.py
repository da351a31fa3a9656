#!/usr/bin/python3
"""Run the pandas corpus through sandbox_run and plain Python, and compare.

    /usr/bin/python3 test/corpus/run_corpus.py [--corpus FILE] [--bar 0.97] [--show N]

Each snippet (test/corpus/build_corpus.py says where they come from) runs in
plain Python, its value made JSON by the sandbox's own rules (sb_codec), and
through sandbox_run on the test cluster (PGHOST/PGPORT/PGUSER), with the
default settings an ordinary role would have.  Same JSON: a pass.  Prints
the failures grouped by cause, then "corpus: N of M (P %) ..."; exits
non-zero below the bar.
"""

import argparse
import collections
import contextlib
import io
import json
import os
import sys
import tempfile
import warnings

import psycopg2
import psycopg2.extras

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import sb_stub  # noqa: E402

sb_stub.install()
import sb_codec  # noqa: E402


def plain(code):
    """("ok", JSON value) or ("error", text) for code run in plain Python."""
    namespace = {"__name__": "__corpus__"}
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, "<snippet>", "exec"), namespace)
            value = namespace["main"]()
        return "ok", json.loads(sb_codec.dumps({"main": value}, 1 << 30))["main"]
    except Exception as exc:
        return "error", "%s: %s" % (type(exc).__name__, str(exc)[:200])


def cause(report):
    """A short label for why sandbox_run did not give the value."""
    err = report["error"]
    if err["kind"] == "validation":
        return "validation: " + (err.get("rule") or "?") + ": " + err["message"][:90]
    if err["kind"] == "violation":
        return "violation: " + err["message"][-40:]
    if err["kind"] == "exception":
        return "exception: %s: %s" % (err["type"], err["message"][:90])
    return "%s: %s" % (err["kind"], err["message"][:90])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.path.join(HERE, "pandas_docs.json"))
    ap.add_argument("--bar", type=float, default=0.97)
    ap.add_argument("--show", type=int, default=3, help="examples shown per cause")
    ap.add_argument("--only", default="", help="snippets whose name contains this")
    ap.add_argument("--every", type=int, default=1,
                    help="every Nth snippet only (CI's second run of the corpus)")
    args = ap.parse_args()
    with open(args.corpus) as f:
        corpus = json.load(f)
    snippets = [s for s in corpus["snippets"] if args.only in s["name"]][::max(args.every, 1)]
    os.chdir(tempfile.mkdtemp(prefix="pysandbox-corpus-"))
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("SET pysandbox.print = discard")
    passed = 0
    failures = collections.defaultdict(list)
    for s in snippets:
        status, expected = plain(s["code"])
        cur.execute("SELECT sandbox_run(%s, '{}', '{main}', '{}')::text", (s["code"],))
        report = json.loads(cur.fetchone()[0])
        if report["ok"]:
            got = report["returns"]["main"]
            if status == "ok" and got == expected:
                passed += 1
                continue
            label = "different value" if status == "ok" else "plain Python: " + expected[:80]
        else:
            label = cause(report)
            if status != "ok":
                label = "no JSON form in plain Python either: " + expected[:70]
        failures[label].append(s["name"])
    total = len(snippets)
    for label, names in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        print("%4d  %s" % (len(names), label))
        for n in names[:args.show]:
            print("        %s" % n)
    rate = passed / total if total else 0.0
    print("corpus: %d of %d (%.1f %%) give the same result as plain Python (bar %.0f %%)"
          % (passed, total, 100 * rate, 100 * args.bar))
    return 0 if rate >= args.bar else 1


if __name__ == "__main__":
    sys.exit(main())
