"""What the code is told when it fails: the traceback of its own frames,
the exception's message shortened to fit the backend's caps, and one
sentence of what to do for the mistakes model-written code makes most
(a column or name misspelt, an input or the workspace's dict not declared,
pandas 2 spellings, NULLs in integer columns, dates compared with
timestamps).  The help reads pandas' own frames and code objects; the
exception's str() (the code's own __str__ for its own exceptions) is
what runs, and a failure of it is the message's, never the report's.
"""

import ast
import datetime
import difflib
import operator
import re
import sys
import traceback
import types

import numpy as np
import pandas as pd

import sb_guard
import sb_harden

# the file name the code is compiled under (sb_where.c knows it too)
FILENAME = "<sandbox>"


class SQLError(Exception):
    """A query of sql() failed: .sqlstate (such as "42501" for a missing
    privilege, "25006" for a write), .detail and .hint as PostgreSQL gave them."""

    def __init__(self, message, sqlstate, detail="", hint=""):
        super().__init__(message)
        self.sqlstate = sqlstate
        self.detail = detail
        self.hint = hint

    def __str__(self):
        return "%s (SQLSTATE %s)" % (self.args[0], self.sqlstate)



# Error texts are shortened so a report always fits the backend's caps and
# stays readable: an agent needs the first and the last frames, not 1000.
_MAX_MESSAGE = 16000
_MAX_LINE = 200
_HEAD_FRAMES = 5
_TAIL_FRAMES = 20
_MAX_TRACEBACK = 7000


def _shorten(text, limit):
    if len(text) <= limit:
        return text
    return "%s... (%d more characters)" % (text[:limit], len(text) - limit)


def user_traceback(exc, lines):
    """(traceback text of user frames only, line, col) for an exception."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename == FILENAME]
    shown = frames
    if len(frames) > _HEAD_FRAMES + _TAIL_FRAMES:
        shown = frames[:_HEAD_FRAMES] + [None] + frames[-_TAIL_FRAMES:]
    out = []
    for f in shown:
        if f is None:
            out.append("  ... %d more frames ..."
                       % (len(frames) - _HEAD_FRAMES - _TAIL_FRAMES))
            continue
        out.append('  line %d, in %s' % (f.lineno, f.name))
        if 0 < f.lineno <= len(lines):
            out.append("    " + _shorten(lines[f.lineno - 1].strip(), _MAX_LINE))
    line = frames[-1].lineno if frames else None
    col = None
    if frames and getattr(frames[-1], "colno", None) is not None:
        col = frames[-1].colno + 1
    text = "\n".join(out) if out else None
    if text is not None and len(text) > _MAX_TRACEBACK:
        text = "... (earlier frames omitted)\n" + text[-_MAX_TRACEBACK:]
    return text, line, col


def exception_message(exc):
    try:
        return _shorten(str(exc), _MAX_MESSAGE)
    except BaseException:   # the code's __str__ (KeyboardInterrupt too: review 50)
        return "(the exception's message could not be formatted)"


def _pandas_in_traceback(exc):
    """(the outermost DataFrame or Series pandas' own code in exc's traceback
    looked into, the innermost Index there), each or None."""
    tb = exc.__traceback__
    frame = None
    index = None
    while tb is not None:
        # pandas' own objects only: a user class's attributes would run its code
        owner = tb.tb_frame.f_locals.get("self")
        if not getattr(type(owner), "__module__", "").startswith("pandas."):
            owner = None
        if frame is None:
            looked = owner if type(owner) in (pd.DataFrame, pd.Series) else \
                getattr(owner, "obj", None)
            if type(looked) in (pd.DataFrame, pd.Series):
                frame = looked
        if isinstance(owner, pd.Index):
            index = owner
        tb = tb.tb_next
    return frame, index


# how pandas words a lookup of several labels (review 123 F2: the whole
# sentence was taken for one column's name)
_NONE_OF = re.compile(r"None of (?:\[\w{0,20}Index\((\[.*\]),\s*dtype='[^']*'(?:,\s*name='[^']*')?\)\]|(\[.*\])) "
                      r"are in the \[?(?:columns|index)\]?$", re.S)
_DO_NOT_EXIST = re.compile(r"Column\(s\) (\[.*\]) do not exist$", re.S)


def _missing_labels(key):
    """The labels a KeyError's text says are missing, as str; None if it
    cannot be read.  pandas words some lookups itself: "Column not found:
    x", "['x'] not in index", "None of [Index(['x', 'y'], dtype='object')]
    are in the [columns]", "Column(s) ['x'] do not exist"."""
    if len(key) > 20000:
        return None             # (the patterns backtrack over the text)
    if key.startswith(("Column not found: ", "Columns not found: ")):
        return [k.strip().strip("'") for k in key.split(": ", 1)[1].split(",")]
    listed = None
    if key.startswith("[") and key.endswith((" not in index", " not found in axis")):
        listed = key[:key.rindex("]") + 1]
    else:
        match = _NONE_OF.match(key) or _DO_NOT_EXIST.match(key)
        if match is None:
            return [key]
        listed = match.group(1) or match.group(2)
    try:
        labels = ast.literal_eval(listed)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if type(labels) is not list:
        return None
    return [str(k) for k in labels]


def _case_help(missing, names):
    """' (names are case-sensitive: "amount")' when a missing name differs
    from a column's only in case."""
    lower = {}
    for n in names:
        lower.setdefault(n.lower(), n)
    meant = [lower[k.lower()] for k in missing if k not in names and k.lower() in lower]
    if not meant:
        return ""
    return " (column names are case-sensitive: %s)" % ", ".join('"%s"' % m for m in meant)


def _missing_column_help(exc):
    """For a KeyError raised looking up a DataFrame's column: what the frame
    has, closest first; None otherwise.  Reads the frames of pandas' own
    code in the traceback (trusted code; no user code runs)."""
    key = exc.args[0] if len(exc.args) == 1 else None
    if type(key) is int or (isinstance(key, np.integer) and type(key).__module__ == "numpy"):
        return _missing_position_help(exc, int(key))
    if type(key) is not str:
        return None
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or "/pandas/" not in tb.tb_frame.f_code.co_filename:
        # the code's own lookup (a dict's, in a function apply() called):
        # not the DataFrame's columns (review 50)
        return None
    missing = _missing_labels(key)
    if missing is None:
        return None
    frame, index = _pandas_in_traceback(exc)
    if type(frame) is pd.DataFrame and (index is None or index is frame.columns):
        names = [c for c in list(frame.columns) if type(c) is str]
        if names and missing in (["count"], ["proportion"]) and names[:1] == ["index"] and \
                len(names) == 2:
            # pandas 2's value_counts().reset_index() columns, in code for it
            return ('no column named "%s"; the DataFrame has columns: index, %s. pandas here '
                    'is %s, whose value_counts().reset_index() names the values "index" and '
                    'the counts after the Series: write s.value_counts().rename_axis("%s")'
                    '.reset_index(name="%s")'
                    % (missing[0], names[1], pd.__version__, names[1], missing[0]))
        if names:
            absent = [k for k in missing if k not in names] or missing
            return ('no column named %s%s; the DataFrame has columns: %s'
                    % (" or ".join('"%s"' % k for k in absent), _case_help(absent, names),
                       _closest_first(absent, names)))
    if frame is not None and index is not None and index is frame.index:
        # data only: str() of no object of the code's own classes
        labels = [str(v) for v in index[:1000]
                  if type(v) in (str, int, float) or isinstance(v, (np.generic, pd.Timestamp))]
        found = ('no row labelled %s; the index has: %s'
                 % (" or ".join('"%s"' % k for k in missing),
                    _closest_first(missing, labels, 20)))
        if type(frame) is pd.Series and frame.dtype == object and \
                any(type(v) is dict for v in frame.iloc[:100]):
            # a jsonb column: s["field"] looks the rows up, not the objects
            found += ('. The column holds JSON objects (dicts): take a field with '
                      's.str.get("%s") or s.apply(lambda d: d.get("%s") if d else None), or '
                      'flatten them with pd.json_normalize(s.dropna().tolist())'
                      % (missing[0], missing[0]))
        return found
    return None


def _missing_position_help(exc, key):
    """KeyError: 0 from pandas: a label taken for a position (review 165
    F4: big = df[df.amount > 900]; big["amount"][0], .loc[0], df[0])."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or "/pandas/" not in tb.tb_frame.f_code.co_filename:
        return None         # the code's own dict or list
    frame, index = _pandas_in_traceback(exc)
    if type(frame) is pd.DataFrame and index is frame.columns:
        names = [str(c) for c in list(frame.columns)[:30]
                 if type(c) in (str, int) or isinstance(c, np.generic)]
        return ('no column %d; the DataFrame has columns: %s. Rows by position are '
                'df.iloc[%d], a column by position df.iloc[:, %d]'
                % (key, ", ".join(names), key, key))
    if frame is None or index is None or index is not frame.index:
        return None
    labels = [str(v) for v in index[:10]
              if type(v) in (str, int, float) or isinstance(v, (np.generic, pd.Timestamp))]
    return ('no row labelled %d: [] and .loc look rows up by their label, and after a '
            'filter, a sort or a groupby rows keep the labels they had%s; take a row by '
            'position with .iloc[%d] (s.iloc[%d], df.iloc[%d]["col"]), or renumber them '
            'first with reset_index(drop=True)'
            % (key, " (the index begins %s)" % ", ".join(labels) if labels else "",
               key, key, key))


_CONTEXT = BaseException.__dict__["__context__"].__get__
_CAUSE = BaseException.__dict__["__cause__"].__get__


def _native_code_help(exc):
    """For an ImportError a library raised when a native part could not be
    loaded (pandas: "Missing optional dependency 'scipy' ... pip install"):
    why, from the exception it replaced.  Reads the exceptions' slots only
    (no user code runs)."""
    seen = 0
    inner = _CAUSE(exc) or _CONTEXT(exc)
    while inner is not None and seen < 8:
        if type(inner) is sb_guard.NativeCodeNotLoaded:
            return BaseException.__str__(inner)
        inner = _CAUSE(inner) or _CONTEXT(inner)
        seen += 1
    return None


# pandas' own (the code may define classes of the same names)
_UndefinedVariableError = getattr(pd.errors, "UndefinedVariableError", None)
_IntCastingNaNError = getattr(pd.errors, "IntCastingNaNError", None)

FENCE_HINT = ("The code is wrapped in a markdown code fence (```): send only the Python "
               "between the fences.")


def fenced(lines):
    """Does the code start with a markdown fence (```python) or end with one?"""
    shown = [l.strip() for l in lines if l.strip()]
    return bool(shown) and (shown[0].startswith("```") or shown[-1].startswith("```"))


_OWNER_BEFORE = re.compile(r"(?<!\w)(\w{1,64})[ \t]{0,8}\.[ \t]{0,8}$")
_CALLED_AFTER = re.compile(r"[ \t]{0,8}\(")


def _attribute_owners(line, name):
    """The names x of x.<name> read as a value (not called) on line: found
    from each place name stands, in time linear in the line (a pattern
    over the whole line backtracked quadratically: review 174 F5)."""
    owners = []
    at = line.find(name)
    while at >= 0 and len(owners) < 50:
        end = at + len(name)
        if not (line[end:end + 1].isalnum() or line[end:end + 1] == "_") and \
                not _CALLED_AFTER.match(line, end):
            before = _OWNER_BEFORE.search(line[max(0, at - 90):at])
            if before is not None:
                owners.append(before.group(1))
        at = line.find(name, end)
    return owners


def _user_traceback(exc):
    """The innermost entry of exc's traceback in the code's own, or None."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            found = tb
        tb = tb.tb_next
    return found


def _user_line(exc):
    """The text of the code's line where exc was raised (its innermost
    frame of the code's), or None."""
    tb = _user_traceback(exc)
    line = tb.tb_lineno if tb is not None else None
    lines = CALL_CODE[0].splitlines() if type(CALL_CODE[0]) is str and line else ()
    return lines[line - 1] if 0 < (line or 0) <= len(lines) else None


def _user_frame(exc):
    """The innermost frame of the code's own in exc's traceback, or None."""
    tb = _user_traceback(exc)
    return tb.tb_frame if tb is not None else None


# the usual short names of modules, for a NameError of a missing import
_USUAL_IMPORTS = {"pd": "import pandas as pd", "np": "import numpy as np",
                  "plt": "import matplotlib.pyplot as plt", "math": "import math",
                  "datetime": "from datetime import datetime (or import datetime, whose "
                              "class is datetime.datetime)",
                  "json": "import json", "re": "import re",
                  "statistics": "import statistics", "mpl": "import matplotlib as mpl"}


def _name_help(exc):
    """For a NameError of a misspelled name (totl): the names it may mean;
    of a module's usual name (pd, np): the import it needs."""
    name = getattr(exc, "name", None)
    if type(name) is str and name in _USUAL_IMPORTS:
        return "add %s at the top of the code" % _USUAL_IMPORTS[name]
    frame = _user_frame(exc)
    if type(name) is not str or frame is None:
        return None
    if name == "args" and type(frame.f_globals) is dict and "SD" in frame.f_globals:
        # PL/Python's list of the arguments, in a LANGUAGE function, whose
        # globals hold SD (review 107: "did you mean vars?")
        return ("args is PL/Python's list of the arguments: here each argument is a variable "
                "of its own, named as in CREATE FUNCTION")
    names = set()
    for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
        if type(scope) is dict:
            names.update(k for k in dict.keys(scope) if type(k) is str and not k.startswith("_"))
    close = difflib.get_close_matches(name, sorted(names), n=3, cutoff=0.7)
    if not close:
        return None
    return "did you mean %s?" % " or ".join('"%s"' % c for c in close)


def _query_name_help(exc):
    """For df.query("amnt > 5") naming no column: the frame's columns."""
    match = re.match(r"name '([^']{1,200})' is not defined$", str(exc.args[0]) if exc.args else "")
    frame, _ = _pandas_in_traceback(exc)
    if match is None or type(frame) is not pd.DataFrame:
        return None
    names = [c for c in list(frame.columns) if type(c) is str]
    return ('no column named "%s"; the DataFrame has columns: %s (a variable of the code '
            'goes in as @name, a column with spaces in backticks)'
            % (match.group(1), _closest_first([match.group(1)], names)))


def _module_meant(exc):
    """For "No module named 'matplotlib.pyplott'": the loaded module of the
    same package it may mean (review 123 F5)."""
    name = getattr(exc, "name", None)
    if type(exc) is not ModuleNotFoundError or type(name) is not str or \
            not 0 < len(name) <= 100 or "." not in name:
        return None
    package = name.rpartition(".")[0] + "."
    loaded = [m for m in list(sys.modules) if type(m) is str and m.startswith(package) and
              "._" not in m[len(package) - 1:]]
    close = difflib.get_close_matches(name, loaded, n=1, cutoff=0.8)
    return 'did you mean "%s"?' % close[0] if close else None


def _closest_first(wanted, names, limit=30):
    """names as text, those closest to wanted first, at most limit of them."""
    names = [n for n in names if type(n) is str]
    close = []
    for k in wanted:
        close += [c for c in difflib.get_close_matches(k, names, n=3, cutoff=0.5)
                  if c not in close]
    shown = close + [n for n in names if n not in close]
    more = "" if len(shown) <= limit else ", ... (%d more)" % (len(shown) - limit)
    return ", ".join(shown[:limit]) + more


# what a Series accessor needs of its values, and how to get there
_ACCESSOR_NEEDS = {
    "dt": ('.dt needs dates or times: convert first, pd.to_datetime(s) for text '
           '(pd.to_timedelta(s) for durations)'),
    "cat": '.cat needs a categorical: convert first, s.astype("category")',
    "sparse": '.sparse needs a sparse array: s.astype(pd.SparseDtype(s.dtype))',
}


# o.append of a dict: another type was meant, not a key
_DICT_METHODS = frozenset(n for kind in (list, str, set, tuple) for n in dir(kind)
                          if not n.startswith("_"))


def _missing_attribute_help(exc):
    """For an AttributeError of a DataFrame (df.revnue): its columns."""
    frame = sb_harden.attribute_error_object(exc)
    name = getattr(exc, "name", None)
    if type(frame) is pd.Series and type(name) is str and name in _LATER_SERIES:
        return "pandas here is %s: %s" % (pd.__version__, _LATER_SERIES[name])
    if type(frame) is pd.Series and type(name) is str and name in _ACCESSOR_NEEDS:
        # s.dt of a text column: the accessor exists, the values are not its
        # kind (review 159 F5: "did you mean "dt"?", its own name)
        return ('the Series holds %s values; %s'
                % (frame.dtype, _ACCESSOR_NEEDS[name]))
    if type(frame) is pd.Series and type(name) is str and len(name) <= 40:
        meant = _method_meant(pd.Series, name)
        return 'did you mean "%s"?' % meant if meant and meant != name else None
    if type(frame) is not pd.DataFrame or type(name) is not str:
        return None
    names = list(frame.columns)
    if name in _CURSOR_NAMES:
        # sql("...").fetchone(), DB-API's (review 165 F3)
        return ('sql() returns a DataFrame, not a cursor: its rows are df.itertuples() or '
                'df.to_dict("records"), one value df.iat[0, 0] or df["col"].iloc[0]; its '
                'columns: %s' % _closest_first([name], names))
    later = _LATER_PANDAS.get(name)
    if later is not None:
        return "pandas here is %s: %s" % (pd.__version__, later)
    if not any(type(n) is str for n in names):
        return None
    # a misspelt method (df.groupyb), unless a column is as close
    meant = _method_meant(pd.DataFrame, name) if len(name) <= 40 else None
    if meant and not difflib.get_close_matches(name, [n for n in names if type(n) is str],
                                               n=1, cutoff=0.8):
        return ('the DataFrame has no column or attribute "%s": did you mean the method '
                '"%s"? Its columns: %s' % (name, meant, _closest_first([name], names)))
    return ('the DataFrame has no column or attribute "%s"; its columns: %s'
            % (name, _closest_first([name], names)))


# a numpy scalar where a Python number's attribute was read (statistics)
_NUMPY_SCALAR_ATTRIBUTE = re.compile(r"^'numpy\.(u?int|float)\d{1,3}' object has no "
                                     r"attribute '\w{1,40}'$")


def _method_meant(cls, name):
    """The public attribute of cls that name most likely misspells, or None
    (df.groupyb: groupby)."""
    names = _PUBLIC_NAMES.get(cls)
    if names is None:
        names = _PUBLIC_NAMES[cls] = [n for n in dir(cls) if not n.startswith("_")]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    return close[0] if close else None


_PUBLIC_NAMES = {}


# what a DataFrame method of a later pandas is in this one (models write
# pandas 2 code)
# a DB-API cursor's (sql() returns a DataFrame)
_CURSOR_NAMES = frozenset({"fetchone", "fetchall", "fetchmany", "execute", "rowcount",
                           "description", "cursor"})

_LATER_PANDAS = {
    "map": "DataFrame.map is pandas 2.1's name for df.applymap(f)",
}
_LATER_SERIES = {
    "case_when": ("Series.case_when is pandas 2.2's: write np.select([cond1, cond2], "
                  "[value1, value2], default=s) (numpy's select, conditions in order)"),
}

# keyword arguments of a later pandas, and what to write in this one
_LATER_KEYWORDS = {
    "include_groups": ("groupby().apply() has no include_groups (pandas 2.2's); select the "
                       "columns to pass instead, df.groupby(key)[columns].apply(f)"),
    "dtype_backend": ("dtype_backend is pandas 2's: leave it out (an integer column with "
                      "missing values can be made nullable with .astype(\"Int64\"))"),
    "limit_area": ("ffill(limit_area=) is pandas 2.2's: write s.interpolate(method=\"pad\", "
                   "limit_area=\"inside\") for ffill, method=\"bfill\" for bfill"),
    "date_format": ("date_format is pandas 2's: parse the column after reading it, "
                    "pd.to_datetime(df[\"col\"], format=\"%Y-%m-%d\")"),
}
_UNEXPECTED_KEYWORD = re.compile(r"unexpected keyword argument '(\w{1,40})'$")

# the code of pandas' merges: a failure there is most often keys of two types
_MERGE_FILE = "/pandas/core/reshape/merge.py"
_MERGE_TYPES = re.compile(r"^You are trying to merge on (\S{1,60}) and (\S{1,60}) columns")

# pandas 2.2's frequency aliases, as this pandas spells them
_LATER_FREQUENCY = re.compile(r"^Invalid frequency: (\d{0,6}(?:B|S)?)(ME|QE|YE)(-[A-Z]{3})?$")
_FREQUENCY_NOW = {"ME": "M", "QE": "Q", "YE": "A"}


_INT_CAST_HINT = ('the column has missing values (NULL, NaN) or inf: drop them first '
                  '(s.dropna().astype(int)), fill them (s.fillna(0).astype(int)), or keep '
                  'the missing values with s.astype("Int64")')


def _code_files(exc):
    """The file names of the code objects exc's traceback went through."""
    names = []
    tb = exc.__traceback__
    while tb is not None and len(names) < 200:
        names.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return names


def _in_pandas_plotting(exc):
    return any("/pandas/plotting/" in f for f in _code_files(exc))


def _kde_help(exc):
    """pandas' KDE plots import scipy, which this server may not preload."""
    if "scipy" not in str(exc):
        return None
    return ('KDE plots (plot.kde(), plot.density(), scatter_matrix(diagonal="kde")) need '
            'scipy, which this server does not load: draw a histogram instead, '
            's.plot.hist(density=True, bins=30), or diagonal="hist"')


def _scipy_method_help(exc):
    """pandas methods that import scipy for some of their methods (review
    94): what pandas does alone instead."""
    files = _code_files(exc)
    if any(f.endswith("/pandas/core/nanops.py") for f in files):
        return ('Spearman\'s correlation needs no scipy in this form: '
                's1.rank().corr(s2.rank()), or df[["a", "b"]].corr(method="spearman"); '
                'Kendall\'s needs scipy, which this server does not load (an administrator '
                'can add it to pysandbox.preload_modules)')
    if any(f.endswith("/pandas/core/missing.py") for f in files):
        return ('this interpolation method needs scipy, which this server does not load: '
                'interpolate(method="linear"), "time", "index" or "pad" need none (spline, '
                'polynomial, cubic, nearest and scipy\'s other methods need it; an '
                'administrator can add it to pysandbox.preload_modules)')
    return None


def _merge_help(exc, text):
    """Keys of two types in a merge or join: what pandas 1.5.3 says of it
    names NAType, a dtype or pd.concat, not the keys."""
    if type(exc) not in (TypeError, ValueError) or \
            not any(f.endswith(_MERGE_FILE) for f in _code_files(exc)):
        return None
    types = _MERGE_TYPES.search(text)
    kinds = {types.group(1), types.group(2)} if types else set()
    if kinds and all(k.startswith("datetime64") for k in kinds):
        return None                     # time zones: _TZ_MIXED's hint
    if kinds and any(k.startswith("datetime64") for k in kinds):
        return ('the merge keys have different types (%s and %s): make the text keys '
                'timestamps before merging, df["key"] = pd.to_datetime(df["key"])'
                % (types.group(1), types.group(2)))
    if "object" in kinds and kinds & {"int64", "Int64", "int32"}:
        return ('the merge keys have different types (%s and %s): make the text keys '
                'numbers before merging, df["key"] = pd.to_numeric(df["key"]).astype("Int64") '
                '(Int64 keeps NULLs), or the numbers text with .astype(str)'
                % (types.group(1), types.group(2)))
    if "object" in kinds and "float64" in kinds:
        return ('the merge keys have different types (%s and %s): make the text keys '
                'numbers before merging, df["key"] = pd.to_numeric(df["key"]), or the '
                'numbers text with .astype(str)' % (types.group(1), types.group(2)))
    if types:
        return ('the merge keys have different types (%s and %s): convert one to the '
                'other\'s before merging, such as df["key"] = df["key"].astype("Int64") or '
                '.astype(str)' % (types.group(1), types.group(2)))
    if "NAType" in text or "Int64Dtype()" in text or "Int32Dtype()" in text:
        return ('a key column with NULLs arrives as Int64 (pandas\' nullable integer), which '
                'pandas %s cannot match against an int64 or float key: give both keys the '
                'same type, right["key"] = right["key"].astype("Int64"), or drop the rows '
                'whose key is NULL first, df.dropna(subset=["key"])' % pd.__version__)
    return None


def _workspace_key_help(exc, kept):
    """For a KeyError of a name the workspace's dict does not hold."""
    key = exc.args[0] if len(exc.args) == 1 else None
    if type(key) is not str or type(kept) is not dict or key in kept:
        return None
    names = [k for k in kept if type(k) is str]
    return ('if that was ws["%s"]: the workspace keeps only what earlier calls stored in '
            'ws, which holds %s' % (key, _closest_first([key], names) if names else "nothing yet"))


_DICT_ATTRIBUTE = re.compile(r"'dict' object has no attribute '(\w+)'\Z")


# a dict's, a str's or a list's missing attribute
_NOT_FRAME = re.compile(r"'(dict|str|list)' object has no attribute '(\w{1,60})'\Z")

# what a DataFrame or a Series has, which none of those has
_FRAME_NAMES = frozenset(n for cls in (pd.DataFrame, pd.Series) for n in dir(cls)
                         if not n.startswith("_")) - _DICT_METHODS - frozenset(dir(dict))

_NOT_FRAME_HELP = {
    "dict": ('the value is a dict, not a DataFrame: a table input is written with its $, '
             '{"o": {"$query": "SELECT ..."}} or {"o": {"$table": "orders"}} (without it the '
             'JSON arrives as it is); a composite argument is one row, as a dict (declare '
             'the argument as an array of the row type, orders[], and pass array_agg(o) for '
             'a DataFrame of rows); JSON data becomes one with pd.DataFrame(d) or '
             'pd.json_normalize(d)'),
    "str": ('the value is a str, not a DataFrame: an input given as a string arrives as that '
            'string; a table input is {"o": {"$table": "orders"}} or {"o": {"$query": '
            '"SELECT ..."}}, and a query\'s rows come from sql("SELECT ...") as a DataFrame'),
    "list": ('the value is a list, not a Series or a DataFrame (an array argument or an '
             'array column\'s value arrives as a list): make one with pd.Series(x) or '
             'np.array(x), or use Python\'s own sum(x), len(x), max(x)'),
}


# int(df), float(df) and a Series of more than one value as a number
_TABLE_AS_NUMBER = re.compile(r"^(?:int|float)\(\) argument must be a string or a "
                              r"(?:real number|number), not 'DataFrame'$|^(?:int|float)\(\) "
                              r"argument must be a string, a bytes-like object or a "
                              r"(?:real )?number, not 'DataFrame'$")
_SERIES_AS_NUMBER = re.compile(r"^cannot convert the series to <class '(?:int|float)'>$")


def _is_key_of(exc, inputs):
    """Whether an AttributeError's name is a key of a dict it may have been
    looked up in (o.name of a composite argument with a field "name"): the
    dict itself, if the error still holds it, or any input that is a dict
    (the runtime makes an uncaught error forget it: sb_guard.guard_caught).
    A dict is read only when every key is a str, so no code of the call's
    runs."""
    name = getattr(exc, "name", None)
    if type(name) is not str:
        return False
    obj = getattr(exc, "obj", None)
    dicts = [obj] if type(obj) is dict else [v for v in (inputs or {}).values()
                                             if type(v) is dict]
    if type(obj) is not dict:
        # a list of JSON records (review 167 F5: [r.name for r in rows])
        dicts += [d for v in (inputs or {}).values() if type(v) is list
                  for d in v[:100] if type(d) is dict]
    return any(len(d) <= 10000 and all(type(k) is str for k in d) and name in d
               for d in dicts)


def _ws_key_list(kept):
    """", which holds a, b" of the workspace's dict, for a hint."""
    names = sorted(k for k in kept if type(k) is str)[:10] if type(kept) is dict else []
    return ", which holds %s" % ", ".join(names) if names else ", which holds nothing yet"


def _plain_date(value):
    return isinstance(value, datetime.date) and not isinstance(value, datetime.datetime)


def refuse_date_equality():
    """date and timestamp columns arrive as datetime64 (sql(), table
    inputs), and a LANGUAGE function's date argument as datetime.date.
    pandas 1.5 orders the two with a TypeError, whose hint says what to do,
    but answers == with all False and != with all True, and a lookup of a
    date in a DatetimeIndex (in, .get, .loc) with "not there": a filter
    df[df.day == d] was silently empty (review 104 F1; psycopg2's read_sql
    gives dates as datetime.date, where the same code works).  These raise
    the ordering's TypeError instead.  Runs once, in the worker."""
    from pandas.core.arrays import datetimelike
    from pandas.core.indexes.datetimes import DatetimeIndex

    invalid = datetimelike.invalid_comparison

    def invalid_comparison(left, right, op):
        if (op is operator.eq or op is operator.ne) and _plain_date(right) and \
                getattr(left.dtype, "kind", None) == "M":
            raise TypeError("Invalid comparison between dtype=%s and date" % (left.dtype,))
        return invalid(left, right, op)

    get_loc = DatetimeIndex.get_loc
    contains = DatetimeIndex.__contains__

    def refuse(key):
        if _plain_date(key):
            raise TypeError("Cannot index DatetimeIndex with date")

    def checked_get_loc(self, key, *args, **kwargs):
        refuse(key)
        return get_loc(self, key, *args, **kwargs)

    def checked_contains(self, key):
        refuse(key)
        return contains(self, key)

    datetimelike.invalid_comparison = invalid_comparison
    DatetimeIndex.get_loc = checked_get_loc
    DatetimeIndex.__contains__ = checked_contains


def _rolling_window(exc):
    """The window a pandas rolling() refused (its frame's self.window), or
    None."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame if tb is not None else None
    while frame is not None:
        owner = frame.f_locals.get("self")
        if owner is not None and type(owner).__module__.startswith("pandas.core.window"):
            state = getattr(owner, "__dict__", None)
            return state.get("window") if type(state) is dict else None
        frame = frame.f_back
    return None


def exception_help(exc, inputs, ws=None):
    """One sentence of what to do, for the errors code written without the
    inputs' names or columns in view makes most often; or None.  ws is the
    workspace's dict of a workspace's call."""
    if isinstance(exc, SystemExit):
        # an agent's script ends with sys.exit(0) (review 100: a bare
        # "SystemExit: 0")
        return ("sys.exit() and exit() end the call with this error, not a result: return "
                "the result from the function instead (a bare return gives null)")
    if type(exc).__name__ == "NonExistentTimeError":
        # its message is the time alone (review 159 F5)
        return ('that local time does not exist in the zone (the clocks skip it when summer '
                'time begins): tz_localize(tz, nonexistent="shift_forward") moves it to the '
                'first time after the gap, nonexistent="NaT" makes it missing')
    if type(exc).__name__ == "AmbiguousTimeError":
        return ('that local time happens twice in the zone (the clocks go back when summer '
                'time ends): tz_localize(tz, ambiguous="infer") decides by the order of the '
                'times, ambiguous="NaT" makes it missing, or pass a bool array (True: summer '
                'time)')
    if isinstance(exc, KeyError):
        return _missing_column_help(exc) or _workspace_key_help(exc, ws)
    if isinstance(exc, ImportError):
        meant = _module_meant(exc)
        if meant is not None:
            return meant
        if "scipy" in str(exc) and any("/pandas/core/window/" in f for f in _code_files(exc)):
            return ('rolling(win_type=...) needs scipy, which is not available here: weight '
                    'the window yourself, s.rolling(7).apply(lambda w: np.average(w, '
                    'weights=weights), raw=True), or use s.ewm(span=7).mean()')
        if "pyarrow" in str(exc):
            return ('pyarrow is not installed here: use pandas\' own types, dtype "string" '
                    '(not "string[pyarrow]"), and read_csv without engine="pyarrow"')
        native = _native_code_help(exc)
        if _in_pandas_plotting(exc) and (native is None or "administrator can" in native):
            return _kde_help(exc) or native     # (a preloaded scipy: import it by name)
        if "scipy" in str(exc) and (native is None or "administrator can" in native):
            # (a preloaded scipy: import it by name, as native says)
            return _scipy_method_help(exc) or native
        return native
    # the messages hinted at below are short: a long one (the code's own, or
    # one quoting a value of the data) is not searched, as _TZ_MIXED's
    # "[^\]]+\]" alternatives took time quadratic in its length (100 kB of
    # "trying to merge on datetime64[ns, " repeated: 1.7 s; 1 MB: minutes)
    text = str(exc) if isinstance(exc, (TypeError, ValueError, AttributeError)) else ""
    if len(text) > _HINT_MAX_MESSAGE:
        text = ""
    nullable = bool(text) and _NULLABLE.search(text) is not None
    if isinstance(exc, AttributeError) and text == "Can only use .str accessor with string values!":
        return ('the column holds no strings (numbers, or lists: a PostgreSQL array '
                'arrives as a list): convert with s.astype(str), or take lists apart with '
                's.explode()')
    if (isinstance(exc, AttributeError) and _NUMPY_SCALAR_ATTRIBUTE.search(text) and
            any(f.endswith("/statistics.py") for f in _code_files(exc))):
        return ('the statistics module takes Python numbers, and numpy\'s are not (an integer '
                'column with NULLs arrives as Int64, whose tolist() gives numpy integers): '
                'convert, statistics.stdev(s.dropna().astype(float).tolist()), or use pandas\' '
                'own s.std(), s.median(), s.mode()')
    dict_attribute = _DICT_ATTRIBUTE.match(text) if ws is not None else None
    if isinstance(exc, AttributeError) and dict_attribute and dict_attribute.group(1) in ws:
        # ws.orders: the workspace's dict has keys, not attributes (review 111 F3)
        return ('ws is a dict: read what an earlier call kept as ws["%s"]%s'
                % (dict_attribute.group(1), _ws_key_list(ws)))
    none_used = _NONE_USED.search(text) if text and type(exc) in (TypeError, AttributeError) \
        else None
    if none_used and _INPLACE.search(CALL_CODE[0] or ""):
        # o = o.dropna(inplace=True); len(o) (review 130 F4)
        return ('a name holds None where a DataFrame or Series was meant: a method called '
                'with inplace=True (dropna, fillna, sort_values, reset_index, drop, rename, '
                '...) changes the frame and returns None, so df = df.dropna(inplace=True) '
                'makes df None: drop either inplace=True or the assignment')
    if none_used:
        # a NULL (review 134 F3: not inplace=True where the code has none)
        return ('the value is None: a SQL NULL arrives as None (a NULL text, jsonb, array or '
                'composite value too), so test for it first, x if x is not None else ..., '
                'or drop such rows with dropna(); and a list\'s append, extend and sort '
                'change it and return None')
    if type(exc) in (AttributeError, TypeError) and text:
        shadowed = _shadowed_column_help(exc, text, inputs, ws)
        if shadowed:
            return shadowed
    not_frame = _NOT_FRAME.match(text) if type(exc) is AttributeError else None
    if not_frame and not_frame.group(2) in _FRAME_NAMES and not _is_key_of(exc, inputs):
        # o.groupby of an input given as plain JSON or a string, or of a
        # composite argument (review 165 F2: told to write o["groupby"])
        return _NOT_FRAME_HELP[not_frame.group(1)]
    dict_attribute = _DICT_ATTRIBUTE.match(text) if isinstance(exc, AttributeError) else None
    if dict_attribute and dict_attribute.group(1) not in _DICT_METHODS:
        # o.qty of a composite argument or a JSON object, which arrive as
        # dicts (review 159 F5)
        return ('a dict has keys, not attributes (a composite value and a JSON object arrive '
                'as dicts): write o["%s"], or o.get("%s") where it may be missing'
                % (dict_attribute.group(1), dict_attribute.group(1)))
    if text and type(exc) is AttributeError and _FLOAT_NOT_DECIMAL.search(text):
        # x.quantize(...) of a numeric argument (review 147 F1)
        return ('numeric values arrive as float; for exact decimal.Decimal values set %s '
                '(Decimal(x) of the float keeps its binary error: Decimal(2.675) < 2.675)'
                % _decimal_mode(exc))
    if isinstance(exc, AttributeError) and not nullable:
        return _missing_attribute_help(exc)     # (np.cov/corrcoef of objects: nullable)
    empty = _empty_input_help(exc, inputs)
    if empty:
        return empty
    if type(exc) is NameError and getattr(exc, "name", None) in inputs:
        return ('"%s" is an input: inputs arrive as parameters of the function, '
                'so declare it, as in def main(%s): ...' % (exc.name, exc.name))
    if type(exc) is NameError and ws is not None and type(getattr(exc, "name", None)) is str \
            and exc.name in ws:
        # an earlier step's name, kept in ws (review 111 F3)
        return ('an earlier call kept "%s" in the workspace: read it from ws, as in '
                'def main(ws): %s = ws["%s"]' % (exc.name, exc.name, exc.name))
    if type(exc) is NameError and getattr(exc, "name", None) == "ws" and ws is not None:
        return ('"ws" is the workspace\'s dict: a function receives it as a parameter, '
                'so declare it, as in def main(ws): ...')
    if type(exc) is NameError and getattr(exc, "name", None) == "plpy":
        return ('plpy is PL/Python\'s: query with sql("SELECT ... WHERE x = $1", value), '
                'which returns a DataFrame, and report with print() or raise')
    if type(exc) is NameError and getattr(exc, "name", None) == "GD":
        # review 94: PL/Python's habit
        return ('GD is PL/Python\'s dict shared by a session\'s functions; a function here '
                'has SD, which keeps what it stores from one row of a statement to the next '
                '(nothing outlives the statement: a workspace\'s ws keeps state between calls)')
    if type(exc) is NameError and getattr(exc, "name", None) == "display":
        return ('display() is Jupyter\'s: return the value (a DataFrame becomes rows, a '
                'figure a PNG), or print() it')
    if isinstance(exc, SQLError) and type(exc.hint) is str and exc.hint:
        return exc.hint     # what PostgreSQL (or sql()) said to do
    if isinstance(exc, re.error) and any("/pandas/core/strings/" in f for f in _code_files(exc)):
        # s.str.contains("+49"): a regular expression (review 130 F4)
        return ('pandas\' str.contains, str.match, str.replace, str.split and str.count read '
                'the pattern as a regular expression: pass regex=False to match the text as '
                'it is, or escape it with re.escape(text)')
    if isinstance(exc, re.error):
        return ('the pattern is a regular expression: escape characters such as + * ? ( [ '
                'with a backslash, or the whole text with re.escape(text)')
    if type(exc) is TypeError and text == "'NoneType' object is not subscriptable":
        # a NULL (a jsonb, array or composite value) arrives as None (review 79)
        return ('a SQL NULL arrives as None (a NULL jsonb, array or composite value too): '
                'test for it first, as in d["k"] if d is not None else None, or drop such '
                'rows with s.dropna()')
    if type(exc) is TypeError and text == "string indices must be integers, not 'str'":
        # for row in df: row["amount"], the PL/Python and DB-API habit
        # (review 165 F3): a DataFrame iterates over its column names
        return ('the value is a str: iterating over a DataFrame gives its column names, so '
                'for row in df: row["amount"] indexes a name; use for row in '
                'df.itertuples(): row.amount, or df.to_dict("records") for dicts, or a '
                'column at once, df["amount"].sum() (an input given as a plain string '
                'arrives as that string too)')
    if type(exc) is TypeError and _TABLE_AS_NUMBER.match(text):
        # int(sql("SELECT count(*) ...")) (review 165 F3)
        return ('a DataFrame is a table, not a number (sql() returns one): take one value with '
                'df.iat[0, 0] or df["col"].iloc[0]')
    if type(exc) is TypeError and _SERIES_AS_NUMBER.match(text):
        return ('a Series is a column of values: take one with s.iloc[0], or reduce it, '
                's.sum(), s.mean()')
    if type(exc) is _UndefinedVariableError:     # df.query(), df.eval()
        return _query_name_help(exc)
    if type(exc) is NameError:
        return _name_help(exc)
    if type(exc) is _IntCastingNaNError:
        return _INT_CAST_HINT
    merge = _merge_help(exc, text) if text else None
    if merge:
        return merge
    if text and type(exc) is ValueError and text == "cannot convert NA to integer":
        return _INT_CAST_HINT
    if text and type(exc) is ValueError and _EXTENSION_INTERPOLATE.match(text):
        # Int64/Float64 (a column with NULLs) interpolate() in pandas 1.5
        # (review 159 F5)
        return ('pandas %s interpolates nullable Int64 and Float64 columns (an integer '
                'column with NULLs arrives as Int64) only with method="ffill" or "bfill": '
                'convert first, s.astype(float).interpolate() (NULL becomes NaN)'
                % pd.__version__)
    if text and type(exc) is TypeError and text.startswith("numpy boolean subtract, the `-` "
                                                           "operator, is not supported"):
        # quantile() of a boolean column (review 159 F5)
        return ('booleans cannot be subtracted, which quantile() does: convert '
                'first, s.astype(float) (True is 1.0, a NULL becomes NaN), or take the '
                'share of True values with s.mean()')
    if text and type(exc) is ValueError and text == "Index contains duplicate entries, cannot reshape":
        return ('pivot() and unstack() take one value per index and column pair: combine '
                'duplicates with pivot_table(index=..., columns=..., values=..., '
                'aggfunc="sum") or groupby([...]).sum().unstack(), or drop them first with '
                'drop_duplicates')
    if nullable:
        return ('if these are an integer or boolean column with NULLs: such columns arrive '
                'as pandas\' nullable Int64 and boolean, whose missing value is pd.NA, and '
                'numpy and matplotlib need floats: s.astype(float) (NULL becomes NaN), or '
                's.dropna().astype(float) (dropna() keeps the Int64 dtype)')
    if text and _NULLABLE_EVAL.search(text):
        return ('if the expression uses an integer or boolean column with NULLs: such '
                'columns arrive as pandas\' nullable Int64 and boolean, which df.query() and '
                'df.eval() cannot compute: convert first, df.astype({"col": float}) (NULL '
                'becomes NaN); a comparison in df.query() also works with engine="python"')
    later = _LATER_FREQUENCY.search(text) if text and type(exc) is ValueError else None
    if later:
        alias = (later.group(1) or "") + _FREQUENCY_NOW[later.group(2)] + (later.group(3) or "")
        return ('pandas here is %s: write "%s" (month, quarter and year ends are "M", "Q" '
                'and "A"; "ME", "QE" and "YE" are pandas 2.2\'s)' % (pd.__version__, alias))
    keyword = _UNEXPECTED_KEYWORD.search(text) if text and type(exc) is TypeError else None
    if keyword and keyword.group(1) in _LATER_KEYWORDS:
        return "pandas here is %s: %s" % (pd.__version__, _LATER_KEYWORDS[keyword.group(1)])
    if text and type(exc) is TypeError and _DECIMAL_FLOAT.search(text) and \
            any("/pandas/" in f for f in _code_files(exc)) and \
            any(part in _code_files(exc)[-1] for part in ("/pandas/", "/numpy/")) and \
            not any("/pandas/core/ops/" in f for f in _code_files(exc)):
        # (an operator of the code's, s * 1.1, goes through pandas' ops:
        # the mixing hint below)
        # s.round(1), s.quantile(), s.cumsum() of a Decimal column: pandas
        # computes with floats itself (review 165 F5: told to write
        # Decimal("1.1") where the code mixed nothing)
        return ('pandas computes with floats here, and the column holds Decimals '
                '(numeric values arrive as Decimal with %s): convert first, '
                's.astype(float).round(2) or s.astype(float).quantile(0.5), or keep them '
                'exact value by value, s.map(lambda d: round(d, 2) if d is not None else '
                'None); a running sum of Decimals works once NULLs are filled, '
                's.fillna(Decimal(0)).cumsum(); and a float of the code\'s with them '
                '(s * 1.1) is Decimal("1.1")' % _decimal_mode(exc))
    if text and type(exc) is TypeError and _OBJECT_REDUCTION.match(text):
        # nlargest, idxmax of Decimals (or of mixed values)
        return ('the column holds Python objects (numeric values arrive as Decimal in '
                'decimal mode; a column of mixed values is objects too), which this method '
                'does not take: convert first, s.astype(float).nlargest(3), or sort, '
                's.sort_values(ascending=False).head(3) and s.sort_values().index[-1] for '
                'the label of the largest')
    if text and type(exc) is TypeError and _DECIMAL_FLOAT.search(text):
        return ('decimal.Decimal and float do not mix (numeric values arrive as Decimal with '
                '%s): use Decimal("1.1"), a string keeps it exact, or convert with float(x) or '
                's.astype(float)' % _decimal_mode(exc))
    if text and type(exc) is TypeError and text.startswith("loop of ufunc does not support "
                                                             "argument") and "decimal.Decimal" in text:
        # np.log(df["amount"]) of a Decimal column (review 100)
        return ('numpy\'s functions take floats, and the column holds Decimals (numeric '
                'columns arrive as Decimal with options.numeric = "decimal"): convert first, '
                'np.log(s.astype(float)), or use Decimal\'s own methods (s.map(Decimal.ln))')
    compared = _DATE_COMPARED.search(text) if text and type(exc) is TypeError else None
    if compared and compared.group(2) == "date" and compared.group(1):
        return ('timestamptz columns arrive as time zone-aware pandas timestamps (UTC), not '
                'datetime.date: compare with pd.Timestamp(d, tz="UTC"), or compare '
                'df["col"].dt.date with d')
    if compared and compared.group(2) == "date":
        return ('date and timestamp columns arrive as pandas timestamps (datetime64), not '
                'datetime.date: compare with pd.Timestamp(d) (df["col"] >= '
                'pd.Timestamp("2024-01-01")), or compare df["col"].dt.date with d')
    if text == "Cannot index DatetimeIndex with date":
        return ('date and timestamp columns arrive as pandas timestamps (datetime64), not '
                'datetime.date: look up pd.Timestamp(d) (s.get(pd.Timestamp(d)), '
                'pd.Timestamp(d) in s.index), or index by dates, s.index = s.index.date')
    if compared and compared.group(1):
        return ('timestamptz columns arrive time zone-aware (UTC): compare with an aware '
                'value, pd.Timestamp(d, tz="UTC") or d.replace(tzinfo=datetime.timezone.utc)')
    if text and type(exc) is TypeError and _JSON_PARSED.search(text):
        return ('json and jsonb columns arrive already parsed, as dicts and lists: use the '
                'values as they are (drop json.loads)')
    if text and type(exc) is TypeError and _NOT_SERIALIZABLE.search(text):
        return ('return the value itself (a DataFrame, a Series, a Timestamp): pysandbox '
                'makes the result JSON; for json.dumps of your own, pass default=str')
    if text and type(exc) is TypeError and _RESAMPLE_INDEX.search(text):
        return ('resample() needs a datetime index: df.resample("W", on="ts") with the '
                'column\'s name, or df.set_index("ts").resample("W")')
    if text == "window must be an integer 0 or greater" and type(exc) is ValueError:
        window = _rolling_window(exc)
        if type(window) is str or type(window).__module__.startswith("pandas"):
            # rolling("7D") without a datetime index (review 155 F4):
            # rolling(7) would be 7 rows, not 7 days
            return ('a time window ("7D") needs a datetime index: df.rolling("7D", on="ts") '
                    'with the column\'s name, or df.set_index("ts").rolling("7D"); a number '
                    '(rolling(7)) counts rows, not days')
        if type(window) is float and window >= 0:
            # rolling(len(s) / 4) (review 156 F3)
            return 'a window of rows is a whole number: rolling(int(%r))' % window
        return None
    if text and type(exc) is TypeError and text.startswith("invalid entry 0 in condlist"):
        return ('a condition holds pd.NA (a nullable Int64 or boolean column with NULLs): '
                'fill it first, (s >= 9).fillna(False), or compare s.astype(float)')
    if text and type(exc) in (TypeError, ValueError) and _TZ_MIXED.search(text):
        return ('timestamptz columns arrive time zone-aware (UTC) and timestamp columns '
                'naive: compare or subtract values of one kind, such as '
                'pd.Timestamp("2024-01-01", tz="UTC"), or drop the zone with '
                '.dt.tz_localize(None)')
    return None


# interpolate() of a nullable extension array in pandas 1.5, by any of
# interpolate's methods but the two it takes
_EXTENSION_INTERPOLATE = re.compile(r"^Invalid fill method\. Expecting pad \(ffill\) or "
                                    r"backfill \(bfill\)\. Got (?!pad$|ffill$|backfill$|bfill$)"
                                    r"(linear|time|index|values|nearest|zero|slinear|quadratic|"
                                    r"cubic|barycentric|polynomial|krogh|piecewise_polynomial|"
                                    r"spline|pchip|akima|cubicspline|from_derivatives)$")

# the call's code (sb_runtime): what a hint may look for in it
CALL_CODE = [None]

# a method's result with inplace=True assigned (df = df.dropna(inplace=True))
_INPLACE = re.compile(r"inplace\s*=\s*True")

# what a name that holds None was used as: a method's result with inplace=True
_NONE_USED = re.compile(r"^(?:'NoneType' object has no attribute '(\w{1,60})'|"
                        r"object of type 'NoneType' has no len\(\)|"
                        # a NULL in arithmetic, iterated or compared (review 139 F7)
                        r"'NoneType' object is not iterable|"
                        r"unsupported operand type\(s\) for [^:]{1,12}: "
                        r"'(?:NoneType' and '\w{1,40}|\w{1,40}' and 'NoneType)'|"
                        r"'[<>=!]{1,2}' not supported between instances of "
                        r"'(?:NoneType' and '\w{1,40}|\w{1,40}' and 'NoneType)')$")

# "'dict' object has no attribute 'head'": the object and the attribute asked
_NO_ATTRIBUTE = re.compile(r"^'(\w{1,40})' object has no attribute '(\w{1,60})'$")
# a DataFrame's method used as a value: compared, in arithmetic, indexed
_METHOD_OPERAND = re.compile(
    r"^'[^']{1,3}' not supported between instances of ('method' and '\w{1,40}'|"
    r"'\w{1,40}' and 'method')$"
    r"|^unsupported operand type\(s\) for [^:]{1,3}: ('method' and '\w{1,40}'|"
    r"'\w{1,40}' and 'method')$"
    r"|^'method' object is not (subscriptable|iterable)$"
    r"|^bad operand type for unary [^:]{1,3}: 'method'$")


# what the DataFrame's own properties are (the rest are methods)
_FRAME_PROPERTIES = {"attrs": "dict", "size": "int", "shape": "tuple", "ndim": "int",
                     "empty": "bool", "axes": "list", "values": "ndarray", "flags": "Flags",
                     "style": "Styler", "plot": "PlotAccessor", "dtypes": "Series",
                     "index": "Index", "columns": "Index"}


def _attribute_kind(name):
    """The type's name of df.<name> for a DataFrame attribute, or None."""
    if name in _FRAME_PROPERTIES:
        return _FRAME_PROPERTIES[name]
    found = type.__getattribute__(pd.DataFrame, "__dict__").get(name)
    if found is None:
        for base in type.__getattribute__(pd.DataFrame, "__mro__")[1:-1]:
            found = type.__getattribute__(base, "__dict__").get(name)
            if found is not None:
                break
    return "method" if type(found) is types.FunctionType else None


def _shadowed_column_help(exc, text, inputs, ws):
    """p.attrs.head() where p has a column "attrs": the attribute is the
    DataFrame's own (its attrs dict), not the column (review 130 F4).  The
    hint, when an input (or a DataFrame in ws) has a column named as a
    DataFrame attribute and the attribute asked of the result is a
    Series'."""
    m = _NO_ATTRIBUTE.match(text)
    if m is not None:
        if not hasattr(pd.Series, m.group(2)):
            return None
        # Python 3.11 names a bound method's missing attribute the
        # function's: df.count.sum() says "'function' object" (review 172 F1)
        kind = "method" if m.group(1) == "function" else m.group(1)
    elif _METHOD_OPERAND.search(text):
        kind = "method"             # df.count > 0, df.count + 1, df.count[0]
    else:
        return None
    frames = [v for v in list(inputs.values())[:50] if isinstance(v, pd.DataFrame)]
    if type(ws) is dict:
        frames += [v for v in list(ws.values())[:50] if isinstance(v, pd.DataFrame)]
    names = []
    for frame in frames:
        for col in list(frame.columns)[:1000]:
            # only where df.<col> gives what the message names: a method
            # for df.count, a dict for df.attrs, an int for df.size (review
            # 134 F4: "'str' object has no attribute 'str'" is no column's)
            if type(col) is str and col.isidentifier() and col not in names and \
                    _attribute_kind(col) == kind:
                names.append(col)
    line = _user_line(exc)
    if line is not None:
        # the line reads <a DataFrame>.<col> as a value, not df.<col>(...):
        # df.x.count > 0 is a Series' call forgotten, no column's
        frame = _user_frame(exc)
        seen = None if frame is None else frame.f_locals
        names = [n for n in names if any(seen is None or type(seen.get(owner)) is pd.DataFrame
                                         for owner in _attribute_owners(line, n))]
    if not names:
        return None
    shown = ", ".join('"%s"' % n for n in names[:5])
    first = names[0]
    return ('a column named as a DataFrame attribute (%s) is not reached as df.%s, which is '
            'the DataFrame\'s own %s: write df["%s"]' % (shown, first, first, first))


# json.loads() of a value already parsed (a jsonb column's dict)
_JSON_PARSED = re.compile(r"^the JSON object must be str, bytes or bytearray, not (dict|list)$")

# json.dumps() of what pysandbox converts itself
_NOT_SERIALIZABLE = re.compile(r"^Object of type \w{1,40} is not JSON serializable$")

# resample() on a frame without a datetime index
_RESAMPLE_INDEX = re.compile(r"^Only valid with DatetimeIndex, TimedeltaIndex or PeriodIndex, "
                             r"but got an instance of '\w{1,40}'$")

# a row taken from nothing
_EMPTY_MESSAGES = re.compile(r"^single positional indexer is out-of-bounds$|"
                             r"^index 0 is out of bounds for axis 0 with size 0$|"
                             r"^attempt to get arg(max|min) of an empty sequence$|"
                             r"^zero-size array to reduction operation \w+ which has no identity$")


def _empty_input_help(exc, inputs):
    """A row taken from an input (or anything) with no rows: which input
    arrived empty, or None."""
    if type(exc) not in (IndexError, ValueError):
        return None
    text = str(exc)
    if len(text) > 200 or not _EMPTY_MESSAGES.search(text):
        return None
    empty = [name for name, value in (inputs or {}).items()
             if isinstance(value, (pd.DataFrame, pd.Series)) and len(value) == 0]
    if empty:
        return ('input "%s" has no rows: check len(%s) (or %s.empty) before taking a row '
                'from it' % (empty[0], empty[0], empty[0]))
    return ('the data it was taken from has no rows (or fewer than the position): check '
            'len(df) or df.empty first')


# longer messages get none of the hints below (see exception_help)
_HINT_MAX_MESSAGE = 2000

# numpy's and pandas' messages for pd.NA where a number was wanted
_NULLABLE = re.compile(r"boolean value of NA is ambiguous|NAType|"
                       r"with missing values\. Specify an appropriate 'na_value'|"
                       r"data type <class 'numpy\.object_'> not inexact|"
                       r"^Invalid value '.*' for dtype (Int64|Int32|Int16|Int8|boolean)$|"
                       r"^loop of ufunc does not support argument \d+ of type \w+ which has no "
                       r"callable \w+ method$|"
                       r"^ufunc '\w+' not supported for the input types|"
                       r"^Cannot cast ufunc '\w+' input \d+ from dtype\('O'\)|"
                       r"^'float' object has no attribute 'shape'$|"
                       r"^Image data of dtype object cannot be converted to float$")

# df.query() / df.eval() (numexpr) on a nullable Int64 or boolean column
_NULLABLE_EVAL = re.compile(r"^unknown type object$|"
                            r"^Cannot interpret '(Int64|Int32|Int16|Int8|Boolean)Dtype\(\)' as a data type$")

# arithmetic mixing Decimal and float
# a Decimal method asked of a float
_FLOAT_NOT_DECIMAL = re.compile(
    r"^'(float|numpy\.float64)' object has no attribute '(quantize|to_integral_value|"
    r"to_integral|to_integral_exact|normalize|as_tuple|adjusted|scaleb|copy_abs|"
    r"is_signed|is_finite|ln|log10|sqrt|exp|compare)'$")


def _decimal_mode(exc):
    """How the code's call gets numerics as Decimal: a LANGUAGE function's
    globals hold SD, and it takes no options argument."""
    frame = _user_frame(exc)
    if frame is not None and type(frame.f_globals) is dict and "SD" in frame.f_globals:
        return ("ALTER FUNCTION ... SET pysandbox.options = '{\"numeric\": \"decimal\"}' "
                "on the function")
    return 'options.numeric = "decimal"'


# nlargest/nsmallest and idxmax/idxmin of an object column
_OBJECT_REDUCTION = re.compile(r"^(?:Cannot use method '(?:nlargest|nsmallest)' with dtype "
                               r"object|reduction operation 'arg(?:max|min)' not allowed for "
                               r"this dtype)$")

_DECIMAL_FLOAT = re.compile(r"^unsupported operand type\(s\) for [^:]{1,12}: "
                            r"'(decimal\.Decimal' and 'float|float' and 'decimal\.Decimal)'$")

# a datetime64 column compared with a datetime.date or datetime.datetime
_DATE_COMPARED = re.compile(r"^Invalid comparison between dtype=datetime64\[ns(, [^\]]{1,128})?\] "
                            r"and (date|datetime)$")

# pandas' messages for mixing time zone-aware and naive values
_TZ_MIXED = re.compile(r"tz-naive and tz-aware|dtype=datetime64\[ns, [^\]]{1,128}\] and Timestamp|"
                       r"Timestamp and dtype=datetime64\[ns, |"
                       r"trying to merge on datetime64\[ns(, [^\]]{1,128})?\] and datetime64\[ns(, [^\]]{1,128})?\]")
