#!/usr/bin/python3
"""The README's SQL examples, run verbatim.

    /usr/bin/python3 test/readme.py [README.md]

Every ```sql block of the README runs through psql (-X -q -At, stopping at
the first error) in a new database "readme" of the test cluster
(PGHOST/PGPORT/PGUSER), after a role "analyst" is made for the GRANTs of
the install block.  Blocks run in page order, except that the block with
CREATE EXTENSION runs first and the one that creates the example table
second (the page's first example uses the Quick start's table).

What a block shows is checked: a line "--  text" (two spaces) is a row
psql prints, "-- NOTICE:  text" a notice; the rows a block prints must be
exactly its "--  " lines, in order, and its notices exactly its NOTICE
lines.  A block that imports scipy or sklearn runs only where the worker
preloaded them (sandbox_layers()), and one that reads pysandbox_stat or
pysandbox_activity only with pysandbox in shared_preload_libraries; both are
reported as skipped elsewhere.

Prints one line per block and "readme: N passed, M failed, K skipped".
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PSQL = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"]
LIBRARIES = re.compile(r"^\s*(from|import)\s+(scipy|sklearn|statsmodels)\b", re.M)
STATISTICS = re.compile(r"\bpysandbox_(stat|activity)\b")


def blocks(path):
    """[(line number, text)] of the ```sql blocks."""
    out, current, start = [], None, 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if current is None and line.strip() == "```sql":
                current, start = [], n + 1
            elif current is not None and line.strip() == "```":
                out.append((start, "".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    return out


def psql(sql, db, *extra):
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(sql)
    os.chmod(f.name, 0o644)
    try:
        return subprocess.run(PSQL + list(extra) + ["-d", db, "-f", f.name],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, check=False)
    finally:
        os.unlink(f.name)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "README.md")
    found = blocks(path)
    if not found:
        print("readme: no sql blocks in %s" % path)
        return 1
    admin = os.environ.get("PGDATABASE", "postgres")
    setup = psql("DROP DATABASE IF EXISTS readme;\nCREATE DATABASE readme;\n"
                 "DO $$BEGIN CREATE ROLE analyst; EXCEPTION WHEN duplicate_object THEN END$$;\n",
                 admin)
    if setup.returncode != 0:
        print("readme: could not make the database: %s" % setup.stderr.strip())
        return 1
    first = [b for b in found if "CREATE EXTENSION" in b[1]]
    second = [b for b in found if "CREATE TABLE" in b[1] and b not in first]
    ordered = first + second + [b for b in found if b not in first and b not in second]

    passed = failed = skipped = 0
    preloaded = None
    for line, sql in ordered:
        what = "README.md line %d" % line
        if LIBRARIES.search(sql):
            if preloaded is None:
                r = psql("SELECT detail FROM sandbox_layers() WHERE layer = 'preload';",
                         "readme", "-At")
                preloaded = r.stdout
            needs = set(m.group(2) for m in LIBRARIES.finditer(sql))
            if not all(n + "." in preloaded or n + "," in preloaded for n in needs):
                print("skip %s: needs %s preloaded (test/corpus/libraries.py --conf)"
                      % (what, ", ".join(sorted(needs))))
                skipped += 1
                continue
        if STATISTICS.search(sql):
            r = psql("SHOW shared_preload_libraries;", "readme", "-At")
            if "pysandbox" not in r.stdout:
                print("skip %s: needs pysandbox in shared_preload_libraries" % what)
                skipped += 1
                continue
        want_rows = [m[4:] for m in sql.splitlines() if m.startswith("--  ")]
        want_notices = [m[3:] for m in sql.splitlines() if m.startswith("-- NOTICE:")]
        r = psql(sql, "readme", "-At")
        rows = [x for x in r.stdout.splitlines() if x != ""]
        notices = [x[x.index("NOTICE:"):] for x in r.stderr.splitlines() if "NOTICE:" in x]
        problems = []
        if r.returncode != 0:
            problems.append("psql failed: %s" % r.stderr.strip()[-500:])
        if rows != want_rows:
            problems.append("rows %r, the README shows %r" % (rows, want_rows))
        if notices != want_notices:
            problems.append("notices %r, the README shows %r" % (notices, want_notices))
        if problems:
            failed += 1
            print("FAIL %s" % what)
            for p in problems:
                print("       ! " + p[:1500])
        else:
            passed += 1
            print("ok   %s (%d rows)" % (what, len(rows)))
    psql("DROP DATABASE IF EXISTS readme;\n", admin)
    print("readme: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
