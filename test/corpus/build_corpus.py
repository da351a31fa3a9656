#!/usr/bin/python3
"""Build the pandas corpus: real pandas code, written by others.

Source: the examples in the docstrings of Debian's pandas 1.5.3
(python3-pandas, /usr/lib/python3/dist-packages/pandas; BSD-3-Clause,
(c) the pandas development team), the "Examples" sections of the API
reference: reshaping, groupby, time series, text, missing data, window,
categorical, indexing, io on in-memory strings.  Each example whose doctest
shows a value becomes one snippet: the docstring's earlier examples, then
"return <the expression>", wrapped in def main().

A snippet is kept only if, run twice in plain Python, it succeeds and gives
the same value both times (no unseeded randomness, no files, no clock), and
its value is data rather than an intermediate object (a GroupBy, a plot, a
Styler): the corpus measures whether code runs as written, not whether
every object has a JSON form.

    /usr/bin/python3 test/corpus/build_corpus.py > test/corpus/pandas_docs.json

The output is deterministic for a given pandas; test/corpus/run_corpus.py
runs it.
"""

import ast
import contextlib
import doctest
import importlib
import io
import json
import os
import signal
import sys
import tempfile
import textwrap
import warnings

import numpy as np
import pandas as pd

MODULES = [
    "pandas.core.frame", "pandas.core.series", "pandas.core.generic",
    "pandas.core.groupby.groupby", "pandas.core.groupby.generic",
    "pandas.core.reshape.pivot", "pandas.core.reshape.melt", "pandas.core.reshape.merge",
    "pandas.core.reshape.concat", "pandas.core.reshape.reshape", "pandas.core.reshape.tile",
    "pandas.core.reshape.encoding", "pandas.core.strings.accessor",
    "pandas.core.indexes.base", "pandas.core.indexes.datetimes", "pandas.core.indexes.multi",
    "pandas.core.indexes.period", "pandas.core.indexes.interval",
    "pandas.core.indexes.datetimelike", "pandas.core.window.rolling", "pandas.core.window.ewm",
    "pandas.core.window.expanding", "pandas.core.resample", "pandas.core.tools.datetimes",
    "pandas.core.tools.numeric", "pandas.core.tools.timedeltas",
    "pandas.core.arrays.categorical", "pandas.core.arrays.datetimes", "pandas.core.accessor",
    "pandas.core.indexing", "pandas.core.algorithms", "pandas.core.missing",
    "pandas.core.dtypes.missing", "pandas.io.json._json", "pandas.io.parsers.readers",
    "pandas.io.formats.format",
]

# values that are steps on the way, not results: no JSON form is promised
INTERMEDIATE = ("GroupBy", "Resampler", "Rolling", "Expanding", "ExponentialMovingWindow",
                "Styler", "Axes", "Figure", "AxesSubplot", "Window", "Accessor",
                "Properties", "Grouper", "ndarray.flags", "function", "method", "type",
                "module", "generator", "Flags", "Timer")


def snippets():
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    for name in MODULES:
        module = importlib.import_module(name)
        for test in sorted(finder.find(module), key=lambda t: t.name):
            if "._" in test.name:
                continue        # private API: not code people write
            lines = []
            for i, example in enumerate(test.examples):
                if example.options.get(doctest.SKIP):
                    continue    # not run by pandas' own doctests either
                source = example.source.rstrip("\n")
                try:
                    tree = ast.parse(source)
                except SyntaxError:
                    break
                if example.want.strip() and len(tree.body) == 1 and \
                        isinstance(tree.body[0], ast.Expr) and "plot" not in source:
                    body = lines + ["return (%s)" % source]
                    yield "%s[%d]" % (test.name, i), (
                        "import numpy as np\nimport pandas as pd\n\ndef main():\n"
                        + textwrap.indent("\n".join(body), "    ") + "\n")
                lines.append(source)


class Timeout(Exception):
    pass


def _alarm(*_args):
    raise Timeout()


def run(code):
    """The value main() returns, run in plain Python (stdout swallowed)."""
    namespace = {"__name__": "__corpus__"}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<snippet>", "exec"), namespace)
        return namespace["main"]()


def same(a, b):
    try:
        if isinstance(a, (pd.DataFrame, pd.Series, pd.Index)):
            return type(a) is type(b) and a.equals(b)
        if isinstance(a, np.ndarray):
            return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return repr(a) == repr(b)
    except Exception:
        return False


def main():
    signal.signal(signal.SIGALRM, _alarm)
    kept, dropped = [], {}
    workdir = tempfile.mkdtemp(prefix="pysandbox-corpus-")
    os.chdir(workdir)           # a snippet that writes a file writes it here
    for name, code in snippets():
        if "read_" in code and ("StringIO" not in code and "BytesIO" not in code):
            dropped["reads a file"] = dropped.get("reads a file", 0) + 1
            continue
        try:
            signal.alarm(5)
            first = run(code)
            second = run(code)
        except BaseException as exc:  # noqa: B902 - Timeout, SystemExit, anything
            reason = "fails in plain Python" if not isinstance(exc, Timeout) else "slow"
            dropped[reason] = dropped.get(reason, 0) + 1
            continue
        finally:
            signal.alarm(0)
        kind = type(first).__name__
        if any(k in kind for k in INTERMEDIATE) or callable(first) and \
                not isinstance(first, (pd.DataFrame, pd.Series, pd.Index)):
            dropped["not data: " + kind] = dropped.get("not data: " + kind, 0) + 1
            continue
        if not same(first, second):
            dropped["not deterministic"] = dropped.get("not deterministic", 0) + 1
            continue
        kept.append({"name": name, "code": code})
    json.dump({"source": "docstring examples of pandas %s (Debian python3-pandas), "
                         "BSD-3-Clause, the pandas development team" % pd.__version__,
               "snippets": kept}, sys.stdout, indent=0)
    sys.stdout.write("\n")
    print("kept %d snippets; dropped: %s" % (len(kept), json.dumps(dropped, sort_keys=True)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
