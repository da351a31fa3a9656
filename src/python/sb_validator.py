"""Static validation of sandboxed user code (README: sandbox_validate; Security model, layer 3).

validate(source, allowed_modules) parses the code and walks its syntax tree
without running anything, and returns (findings, imports).  A finding is
{"line", "col", "rule", "message"}, with a 1-based line and a 1-based column
counted in characters; the rule names are part of the API:

    syntax, too-large, too-complex, top-level, import, dunder,
    private-attribute, forbidden-name, forbidden-attribute, format-string,
    try-star, metaclass, async

This layer is NOT the security boundary (the OS layers are): it refuses the
easy paths to interpreter internals and explains precisely what to change,
so that a person or a language model can repair the code.  Every message
names the offending identifier.

The walk is iterative, so deeply nested code cannot overflow the C stack;
ast.parse() itself is guarded against RecursionError and MemoryError.

Shared policy tables (denied submodules, forbidden attribute names) live in
sb_guard, which must therefore be loaded first.  Standard library only.
"""

import __future__
import ast
import difflib
import re
import unicodedata
import warnings

import sb_guard

MAX_SOURCE_BYTES = 1024 * 1024

TOP_LEVEL_MESSAGE = (
    "only imports, function and class definitions, and constant assignments "
    "are allowed at top level; move this statement into a function")

MAIN_GUARD_MESSAGE = (
    'an "if __name__ == \'__main__\'" block is not allowed at top level: remove it; '
    "the call itself calls the functions it names (main by default), with the inputs "
    "as their arguments")

BACKEND_MESSAGE = (
    "choosing matplotlib's notebook backend is not allowed at top level, and not needed: "
    "the sandbox draws with Agg, and a returned figure becomes a PNG; remove it")

# top-level findings that are not a script's statements (no hint to wrap
# them in a function)
NOT_A_SCRIPT = frozenset({MAIN_GUARD_MESSAGE, BACKEND_MESSAGE})


# What a top-level constant may be made of: literals, containers of them,
# operators and f-strings over them, and names bound to a constant above
# (SECONDS_PER_DAY = 24 * 60 * 60; WEEK = 7 * SECONDS_PER_DAY).  Nothing is
# called or looked up; the value is computed when the module runs, in the
# call, within its limits.
_CONSTANT_NODES = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp,
                   ast.BinOp, ast.BoolOp, ast.Compare, ast.JoinedStr, ast.FormattedValue,
                   ast.Name, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
_CONSTANT_DEPTH = 100


def _rebound_names(tree):
    """Names a function declares global or a := binds, anywhere in tree."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            names.update(node.names)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _target_names(targets):
    """The names assignment targets bind, or None if one is not a name."""
    names = []
    pending = list(targets)
    while pending:
        target = pending.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            pending.extend(target.elts)
        elif isinstance(target, ast.Starred):
            pending.append(target.value)
        elif isinstance(target, ast.Name):
            names.append(target.id)
        else:
            return None
    return names


def _called_name(func):
    """namedtuple for namedtuple(...) and collections.namedtuple(...)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _constant_problem(value, constants, rebound):
    """None if value is a constant expression, else what to say.
    constants: the names bound at top level so far, True for a constant;
    rebound(): the names bound elsewhere too (_rebound_names), asked only
    when the value names one."""
    pending = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > _CONSTANT_DEPTH:
            return "top-level constant is nested too deeply; build it in a function"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "set" and not node.args and not node.keywords and \
                "set" not in constants and "set" not in rebound():
            continue                    # set(): the empty set has no literal
        if depth == 0 and isinstance(node, ast.Call) and \
                _called_name(node.func) in ("namedtuple", "NamedTuple"):
            # P = namedtuple("P", "n total"), as models write it (review 130 F3)
            return ("top-level assignments must have a constant value; define the record "
                    "type as a class instead: class P(NamedTuple): with a line \"n: int\" "
                    "per field (from typing import NamedTuple), or a @dataclass")
        if depth == 0 and isinstance(node, ast.Call) and \
                _called_name(node.func) in ("TypeVar", "NewType"):
            return ("top-level assignments must have a constant value; type variables are "
                    "not needed here: annotate with the type itself, or leave it out")
        if not isinstance(node, _CONSTANT_NODES) or \
                isinstance(node, ast.Name) and (constants.get(node.id) is not True or
                                                 node.id in rebound()):
            return ("top-level assignments must have a constant value (literals, operators "
                    "on them, or constants assigned above); move this computation into a "
                    "function")
        if isinstance(node, ast.Dict) and any(key is None for key in node.keys):
            return ("top-level assignments must have a constant value; move this "
                    "computation into a function")
        for field in node._fields:
            child = getattr(node, field, None)
            if isinstance(child, ast.AST):
                pending.append((child, depth + 1))
            elif type(child) is list:
                pending.extend((item, depth + 1) for item in child if isinstance(item, ast.AST))
    return None


def _backend_choice(stmt, modules):
    """"agg" for matplotlib.use("Agg") or plt.switch_backend("agg") (the
    name positional or as backend=/newbackend=, a constant force= aside),
    "inline" for Jupyter's backend, else None: what almost every chart an
    agent writes begins with.  modules: what each top-level name was last
    bound to by an import (None: by anything else), so that only
    matplotlib's own use() and pyplot's switch_backend() count."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and
            (func.attr, modules.get(func.value.id)) in (("use", "matplotlib"),
                                                        ("switch_backend", "matplotlib.pyplot"))):
        return None
    named = [k.value for k in call.keywords if k.arg in ("backend", "newbackend")]
    others = [k for k in call.keywords if k.arg not in ("backend", "newbackend", "force") or
              (k.arg == "force" and not isinstance(k.value, ast.Constant))]
    given = list(call.args) + named
    if len(given) != 1 or len(call.args) > 1 or others or \
            not (isinstance(given[0], ast.Constant) and isinstance(given[0].value, str)):
        return None
    return {"agg": "agg", "module://matplotlib_inline.backend_inline": "inline"}.get(
        given[0].value.lower())


def _is_main_guard(stmt):
    """if __name__ == "__main__": a script's entry point."""
    if not isinstance(stmt, ast.If):
        return False
    test = stmt.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in sides) and \
        any(isinstance(c, ast.Constant) and c.value == "__main__" for c in sides)


_RUNS_CODE = "it runs dynamically built code"
_NAMESPACES = "it exposes namespaces"

# Builtins that are absent at run time, with the reason given to the user.
FORBIDDEN_NAMES = {
    "eval": _RUNS_CODE + '; write the expression itself, or df.eval("a + b") for '
                         'arithmetic on columns',
    "exec": _RUNS_CODE + "; write the statements themselves",
    "compile": _RUNS_CODE + "; write the code itself",
    "__import__": "use an import statement",
    "open": "it reads or writes files; the data comes as the function's inputs, and text "
            "the code makes is returned (or written into io.StringIO())",
    "input": "it reads from the terminal; pass values as inputs",
    "breakpoint": "it starts the debugger",
    "help": "it starts the interactive help",
    "globals": _NAMESPACES + '; name the values you need, as in f"{n} rows" or '
                             '"{n} rows".format(n=n)',
    "locals": _NAMESPACES + '; name the values you need, as in f"{n} rows" or '
                            '"{n} rows".format(n=n)',
    "exit": "it ends the interpreter; return from the function instead",
    "quit": "it ends the interpreter; return from the function instead",
}


def _slot_names(value):
    """The names of a class body's __slots__ = value, if value is a string
    literal or a tuple or list of them, each an identifier that does not
    begin with "__" (no __dict__ or __weakref__ slot); otherwise None."""
    items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
    names = []
    for item in items:
        if not (isinstance(item, ast.Constant) and type(item.value) is str
                and item.value.isidentifier() and not item.value.startswith("__")):
            return None
        names.append(item.value)
    return names


def _simple_assignment(node, parent):
    """Is node the one target of "target = value" (or "target: T = value")?"""
    if isinstance(parent, ast.Assign):
        return len(parent.targets) == 1 and parent.targets[0] is node
    if isinstance(parent, ast.AnnAssign):
        return parent.target is node and parent.value is not None
    return False


# Callables that look attributes up by a string: the string must be a
# constant so that the attribute rules can be applied to it.
_GETATTR_NAMES = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_GETTER_FACTORIES = frozenset({"attrgetter", "methodcaller"})

# pandas writers: without a path they return the text, with an io.StringIO
# they write to it; a path is refused here when it is a literal, and when
# the call runs otherwise (sb_guard.WRITERS).
PATH_WRITERS = frozenset(sb_guard.WRITERS)
_PATH_KEYWORDS = frozenset({"path_or_buf", "buf", "path_or_buffer", "path",
                            "filepath_or_buffer"})

# Methods whose string argument pandas evaluates or resolves with getattr.
_EXPRESSION_METHODS = frozenset({"query", "eval"})
_DISPATCH_METHODS = frozenset({
    "agg", "aggregate", "apply", "applymap", "map", "transform",
})

# Special methods a class body may define (and reach through super()): they
# only hook ordinary protocols, unlike __getattr__, __del__, __reduce__ or
# __init_subclass__, which stay refused with every other "__" name.  The
# operators are one family: each is called as __add__ is (numpy's loops
# over objects, which call them, are guarded alike: sb_memory.py; each
# keeps its operands when it returns NotImplemented: sb_guard.PINNED_METHODS).  The
# conversions __int__, __float__ and __index__ stay out: native code calls
# them in the middle of its own work (a slice's bounds, a buffer's size);
# so does __trunc__, which int() and numpy fall back to without __int__.
_OPERATORS = sb_guard.BINARY_OPERATORS
ALLOWED_DUNDER_METHODS = frozenset({
    "__init__", "__post_init__", "__repr__", "__str__", "__format__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__",
    "__len__", "__iter__", "__next__", "__reversed__", "__contains__",
    "__getitem__", "__setitem__", "__delitem__", "__missing__",
    "__bool__", "__call__", "__enter__", "__exit__",
    "__neg__", "__pos__", "__abs__", "__invert__", "__divmod__", "__rdivmod__",
    "__round__", "__floor__", "__ceil__",
} | {"__%s%s__" % (prefix, op) for op in _OPERATORS for prefix in ("", "r", "i")})

# What to write instead of a special method a class may not define.
_DUNDER_INSTEAD = {
    "__getattr__": "define the attributes in __init__, or keep the values in a dict attribute",
    "__int__": "convert with a method of your own (def as_number(self): ...) and call it",
    "__new__": "set the fields in __init__, or add a classmethod that builds the object",
    "__copy__": "copy.copy() and copy.deepcopy() copy the object's attributes without it",
    "__del__": "release what the object holds explicitly (a close() method, or a with block)",
    "__init_subclass__": "class hooks, descriptors and metaclasses are not supported",
    "__array__": "convert explicitly: np.asarray(obj.values)",
}
for _same, _as in (("__getattribute__", "__getattr__"), ("__setattr__", "__getattr__"),
                   ("__delattr__", "__getattr__"), ("__float__", "__int__"),
                   ("__index__", "__int__"), ("__complex__", "__int__"),
                   ("__trunc__", "__int__"),
                   ("__deepcopy__", "__copy__"), ("__getstate__", "__copy__"),
                   ("__setstate__", "__copy__"), ("__reduce__", "__copy__"),
                   ("__reduce_ex__", "__copy__"), ("__class_getitem__", "__init_subclass__"),
                   ("__set_name__", "__init_subclass__"), ("__get__", "__init_subclass__"),
                   ("__set__", "__init_subclass__"), ("__delete__", "__init_subclass__"),
                   ("__array_ufunc__", "__array__"), ("__array_function__", "__array__"),
                   ("__array_interface__", "__array__")):
    _DUNDER_INSTEAD[_same] = _DUNDER_INSTEAD[_as]


def _special_method_message(name):
    instead = _DUNDER_INSTEAD.get(name)
    listed = ", ".join(sorted(ALLOWED_DUNDER_METHODS - {"__%s%s__" % (p, op) for op in _OPERATORS
                                                          for p in ("r", "i")}))
    return ('special method "%s" is not allowed%s; a class may define %s (and the '
            'reflected and in-place operators: __radd__, __iadd__, ...)'
            % (name, ": " + instead if instead else "", listed))

_NEWLINE = re.compile(r"\r\n|\r|\n")
_IDENTIFIER = re.compile(r"(\.\s*)?([^\W\d]\w*)")


def _quiet_parse(source, filename, mode):
    """ast.parse() with parse-time warnings (invalid escapes, ...) dropped.

    They must not reach the worker's stderr, and compile() repeats them for
    the call anyway.  The filter list is swapped directly: the
    catch_warnings() context manager costs ~25 us in a fresh child.
    """
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is None:         # not CPython 3.11's warnings module
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, filename, mode)
    saved = warnings.filters
    warnings.filters = _IGNORE_ALL
    mutated()
    try:
        return ast.parse(source, filename, mode)
    finally:
        warnings.filters = saved
        mutated()


_IGNORE_ALL = [("ignore", None, Warning, None, 0)]


def validate(source, allowed_modules, function=None):
    """Validate `source`; return (findings, imports).

    `allowed_modules` is an iterable of module names; each allows the module
    and its submodules except sb_guard.DENIED_SUBMODULES and private ones.
    `function` is (name, params) when source is the body of a LANGUAGE
    pysandbox function: it is checked as that function's body
    (sb_guard.function_tree), with the lines and columns of source.
    """
    return _Validator(source, frozenset(allowed_modules), function).run()


def _dunder_message(name, instead=True):
    if instead:
        return sb_guard.dunder_message(name)
    return ('name "%s" is not allowed: names that begin with "__" are '
            'reserved' % name)


def _import_message(name, allowed):
    listed = ", ".join(sorted(allowed)) if allowed else "(none)"
    return 'import of module "%s" is not allowed; allowed modules: %s' % (
        name, listed)


# What to use instead of the modules analytics code reaches for most that
# the sandbox does not have (the reader is often a model repairing its own
# code in one step): (modules, hint, the allowed modules the hint names).
_IMPORT_HINTS = [
    (("pytz",), 'Name the time zone instead: zoneinfo.ZoneInfo("Europe/Paris"), or in pandas '
     's.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris").', ("zoneinfo", "pandas")),
    (("seaborn", "plotly", "bokeh", "altair"), "Draw with matplotlib.pyplot instead: return the "
     "Figure (or Axes), or leave it open for sandbox_run's figures.", ("matplotlib",)),
    (("scipy", "sklearn", "statsmodels"), "An administrator can add it to "
     "pysandbox.preload_modules and pysandbox.allowed_modules; until then use numpy and "
     "pandas (np.polyfit, np.linalg, DataFrame.corr, Series.rank).", ("numpy", "pandas")),
    (("psycopg2", "psycopg", "sqlalchemy", "sqlite3"), 'Query the database with '
     'sql("SELECT ... WHERE x = $1", value) (read-only, as the calling role), or pass tables '
     'as inputs: {"df": {"$table": "name"}}.', ()),
    (("os", "subprocess", "shutil", "pathlib", "glob", "tempfile", "socket", "requests",
      "urllib", "http"), 'The sandbox has no files, network or programs: pass the data as '
     'inputs ({"df": {"$table": "name"}} or {"$query": "SELECT ..."}) and return the '
     'result.', ()),
    (("plpy",), 'plpy is PL/Python\'s: query with sql("SELECT ... WHERE x = $1", value), '
     "which returns a DataFrame, and report with print() or raise.", ()),
    (("pickle", "joblib", "shelve", "dill"), "Nothing is saved to files: a workspace keeps "
     "objects between calls in its ws dict.", ()),
    (("csv",), "Parse text with pandas: pd.read_csv(io.StringIO(text)).", ("pandas", "io")),
    (("tqdm",), "Iterate without a progress bar.", ()),
    (("threading", "multiprocessing", "concurrent", "asyncio"), "A call runs in one process: do "
     "the work directly (options.group_by can run groups in parallel).", ()),
    (("types",), "Use a dict, a dataclass or a class of your own instead of "
     "types.SimpleNamespace.", ()),
    (("polars", "pyarrow", "duckdb"), "Use pandas.", ("pandas",)),
    (("mpl_toolkits",), "Size a colorbar with fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04); "
     'for 3D axes use fig.add_subplot(projection="3d").', ("matplotlib",)),
    (("dateutil",), 'For time zones use zoneinfo.ZoneInfo("Europe/Paris"); dateutil.parser and '
     "dateutil.relativedelta are allowed.", ("zoneinfo", "dateutil.parser",
                                             "dateutil.relativedelta")),
    # submodules, looked up before their package (review 100)
    (("dateutil.rrule",), 'For recurring dates use pandas: pd.date_range("2024-01-01", '
     'periods=12, freq="W-MON"), or pandas\' offsets (pd.offsets.MonthEnd()).', ("pandas",)),
    (("pandas.util",), "pandas.util is not available: to hash rows, "
     'df.astype(str).agg("|".join, axis=1).map(lambda s: hashlib.md5(s.encode()).hexdigest()).',
     ("pandas", "hashlib")),
    (("pandas.testing", "numpy.testing", "unittest", "pytest"), "Check with assert, "
     "df.equals(other), np.allclose(a, b), or options.verify.", ("numpy", "pandas")),
    (("openpyxl", "xlsxwriter", "xlrd"), "Nothing is written to files: return the DataFrame "
     "(or its text, df.to_csv()).", ("pandas",)),
    (("tabulate",), "Use df.to_markdown() (pandas calls tabulate itself), df.to_string() or "
     "df.to_html().", ("pandas",)),
    (("jinja2",), "Format with df.to_string() or df.to_html().", ("pandas",)),
    (("secrets",), "For random tokens use uuid.uuid4().hex.", ("uuid",)),
]
_IMPORT_HINT = {module: (hint, needs) for modules, hint, needs in _IMPORT_HINTS
                for module in modules}


def _notebook_line_hint(source, lineno):
    """A syntax error on a line of a notebook's (%matplotlib inline, !pip
    install ...): what to do instead, or None."""
    lines = source.split("\n")
    if type(lineno) is not int or not 1 <= lineno <= len(lines):
        return None
    line = lines[lineno - 1].lstrip()
    if line.startswith(("%", "!")):
        return ("a line that begins with % or ! is a notebook's (IPython magic or shell "
                "command), not Python: remove it (a figure is returned as a PNG, not shown; "
                "packages are the server's)")
    return None


# a LANGUAGE function has arguments and sql(), no inputs (review 107)
_FUNCTION_WORDING = [
    (' (read-only, as the calling role), or pass tables as inputs: {"df": {"$table": "name"}}.',
     " (read-only, as the calling role)."),
    (' as inputs ({"df": {"$table": "name"}} or {"$query": "SELECT ..."})',
     ' as arguments, or read it with sql("SELECT ...")'),
]


def import_hint(name, allowed, function=False):
    """The hint for a refused import of name, or None: only one whose
    advice the allowlist permits (function: in a LANGUAGE function's
    words)."""
    hint = _import_hint(name, allowed)
    if function and hint:
        for general, own in _FUNCTION_WORDING:
            hint = hint.replace(general, own)
    return hint


def _import_hint(name, allowed):
    inside = sorted(m for m in allowed if m.startswith(name + "."))
    if inside:
        # a package of which only submodules are allowed: import one of them
        return "Import the allowed submodule by its name: %s." % ", ".join(
            "import " + m for m in inside[:4])
    parts = name.split(".")
    found = None
    for n in range(len(parts), 0, -1):      # the longest listed prefix's hint
        found = _IMPORT_HINT.get(".".join(parts[:n]))
        if found is not None:
            break
    if found is None:
        # a misspelt allowed module (import pandsa: review 123 F5)
        tops = sorted({m.partition(".")[0] for m in allowed})
        if parts[0] in tops or len(parts[0]) > 40:
            return None         # a denied or private submodule of an allowed one
        close = difflib.get_close_matches(parts[0], tops, n=1, cutoff=0.8)
        return 'Did you mean "%s"?' % close[0] if close else None
    if not all(sb_guard.is_allowed(m, allowed) for m in found[1]):
        return None
    return found[0]


def _is_super_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")


def _string_pieces(node):
    """(node, text) for each constant string part of a str or f-string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(node, node.value)]
    if isinstance(node, ast.JoinedStr):
        return [(value, value.value) for value in node.values
                if isinstance(value, ast.Constant)
                and isinstance(value.value, str)]
    return []


def _argument(call, index, keywords):
    """The call's positional argument `index` or one of `keywords`."""
    positional = call.args[:index + 1]
    if any(isinstance(arg, ast.Starred) for arg in positional):
        return None
    if len(positional) > index:
        return positional[index]
    for keyword in call.keywords:
        if keyword.arg in keywords:
            return keyword.value
    return None


class _Validator:
    """One validation run: the source, its findings and imports."""

    def __init__(self, source, allowed, function=None):
        if not isinstance(source, str):
            raise TypeError("source must be str, not %s"
                            % type(source).__name__)
        self.source = source
        self.allowed = allowed
        self.function = function
        self._function_args = ()    # ids of a function's own arguments (ast.arg)
        self.findings = []
        self.imports = set()
        self._lines = None
        self._encoded = {}
        self._own = set()       # self._x of the code's own classes (sb_guard)
        self._slots = set()     # the targets of a class body's __slots__ = (...)

    def run(self):
        tree = self._parse()
        if tree is not None:
            try:
                self._own = sb_guard.own_attributes(tree)
                self._walk(tree)
            except (RecursionError, MemoryError):
                self._add(1, 1, "too-complex", "code is too complex to "
                          "validate; split deeply nested expressions")
        self.findings.sort(key=lambda f: (f["line"], f["col"], f["rule"],
                                          f["message"]))
        return self.findings, sorted(self.imports)

    # -- parsing and positions --------------------------------------------

    def _parse(self):
        source = self.source
        try:
            size = len(source.encode("utf-8"))
        except UnicodeEncodeError as exc:
            line, col = self._offset_position(exc.start)
            self._add(line, col, "syntax", "source contains a character "
                      "that is not valid Unicode")
            return None
        if size > MAX_SOURCE_BYTES:
            self._add(1, 1, "too-large", "source is too large: %d bytes; the "
                      "limit is %d bytes" % (size, MAX_SOURCE_BYTES))
            return None
        if "\0" in source:
            line, col = self._offset_position(source.index("\0"))
            self._add(line, col, "syntax", "source cannot contain null bytes")
            return None
        try:
            tree = _quiet_parse(source, "<sandbox>", "exec")
            if self.function is not None:
                self._check_body_runs(tree)
                tree = sb_guard.function_tree(tree, *self.function)
                self._function_args = {id(a) for a in tree.body[0].args.args}
            return tree
        except SyntaxError as exc:
            self._add(exc.lineno or 1, max(exc.offset or 1, 1), "syntax",
                      exc.msg, _notebook_line_hint(source, exc.lineno))
        except (ValueError, OverflowError) as exc:
            self._add(1, 1, "syntax", str(exc))
        except (RecursionError, MemoryError):
            self._add(1, 1, "too-complex", "code is nested too deeply to "
                      "parse; split deeply nested expressions")
        return None

    def _offset_position(self, offset):
        """(line, col) of a character offset into the source."""
        before = self.source[:offset]
        lines = _NEWLINE.split(before)
        return len(lines), len(lines[-1]) + 1

    def _line(self, lineno):
        if self._lines is None:
            self._lines = _NEWLINE.split(self.source)
        if 1 <= lineno <= len(self._lines):
            return self._lines[lineno - 1]
        return ""

    def _char_col(self, lineno, byte_offset):
        """1-based character column from ast's UTF-8 byte offset."""
        line = self._line(lineno)
        if line.isascii():
            return byte_offset + 1
        encoded = self._encoded.get(lineno)
        if encoded is None:
            encoded = self._encoded[lineno] = line.encode("utf-8")
        return len(encoded[:byte_offset].decode("utf-8", "replace")) + 1

    def _position(self, node):
        return node.lineno, self._char_col(node.lineno, node.col_offset)

    def _attribute_position(self, node):
        """Position of the attribute name in `obj.name`, not of `obj`."""
        lineno = node.end_lineno
        line = self._line(lineno)
        end = self._char_col(lineno, node.end_col_offset) - 1
        start = end
        while start > 0 and ("a" + line[start - 1]).isidentifier():
            start -= 1
        if start == end:
            return self._position(node)
        return lineno, start + 1

    def _check_body_runs(self, tree):
        """A language function's body made only of definitions (def
        main(x): ... as sandbox_execute takes it, imports, constants) runs
        none of them: the function returned NULL, silently (review 94)."""
        defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs:
            return
        for statement in tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                      ast.Import, ast.ImportFrom, ast.Pass)):
                continue
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue                        # a docstring
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and not any(
                    isinstance(node, (ast.Call, ast.Yield, ast.YieldFrom, ast.Await,
                                      ast.NamedExpr))
                    for node in ast.walk(statement)):
                continue                        # a constant
            return                              # anything else runs
        first = defs[0]
        params = ", ".join(self.function[1])
        self._add(first.lineno, first.col_offset + 1, "never-called",
                  "the function body defines %s() but never calls it, so the function would "
                  "return NULL" % first.name,
                  "In LANGUAGE pysandbox the body is the function itself, with the arguments "
                  "by name: end it with return %s(%s), or write the body without the def."
                  % (first.name, params))

    def _add(self, line, col, rule, message, hint=None):
        finding = {"line": line, "col": col, "rule": rule, "message": message}
        if hint is not None:
            finding["hint"] = hint
        self.findings.append(finding)

    def _report(self, node, rule, message, position=None, hint=None):
        line, col = position or self._position(node)
        self._add(line, col, rule, message, hint)

    def _report_import(self, node, name):
        self._report(node, "import", _import_message(name, self.allowed),
                     hint=import_hint(name, self.allowed, self.function is not None))

    # -- walking ----------------------------------------------------------

    def _walk(self, tree):
        # Explicit stack: recursion would fail on deeply nested trees.  The
        # children are read straight from _fields, as ast.iter_child_nodes
        # does, without its generators: in a fresh child every extra Python
        # frame is paid in cache misses.
        stack = [(tree, None)]
        visitors = _VISITORS
        node_type = ast.AST
        while stack:
            node, parent = stack.pop()
            visit = visitors.get(type(node))
            if visit is not None:
                visit(self, node, parent)
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, node_type):
                    stack.append((value, node))
                elif type(value) is list:
                    for item in value:
                        if isinstance(item, node_type):
                            stack.append((item, node))

    def _check_name(self, node, name):
        """Rules for a bound or referenced plain name."""
        if name in FORBIDDEN_NAMES and id(node) in self._function_args:
            # a LANGUAGE function's argument, where the body shows nothing
            # (review 107: "input" was reported at the body's line 1)
            self._report(node, "forbidden-name", 'argument name "%s" is a name the sandbox '
                         'refuses (%s)' % (name, FORBIDDEN_NAMES[name]),
                         hint='Rename the argument in CREATE FUNCTION, "%s_value" say.' % name)
        elif name in FORBIDDEN_NAMES:
            self._report(node, "forbidden-name", 'name "%s" is not allowed: '
                         '%s' % (name, FORBIDDEN_NAMES[name]))
        elif name.startswith("__"):
            self._report(node, "dunder", _dunder_message(name))

    def _check_attribute(self, node, name, call=None, position=None,
                         context=""):
        """Apply the attribute rules to `name`, accessed at `node`.

        `call` is the ast.Call when the attribute is called right away (a
        path writer called with a literal path is refused).
        """
        problem = sb_guard.attribute_problem(name)
        if problem is None and name in PATH_WRITERS and call is not None and \
                self._literal_path(call, name):
            problem = ("forbidden-attribute", 'calling "%s" with a path is not '
                       'allowed: it writes files; call it without one to get the '
                       'text back, or pass an io.StringIO' % name)
        if problem is None and name in sb_guard.READERS and call is not None and \
                self._literal_path(call, name):
            problem = ("forbidden-attribute", 'calling "%s" with a path is not '
                       'allowed: it reads files; pass the data in memory, as '
                       'io.StringIO(text)' % name)
        if problem is not None and name == "_merge" and not context:
            # merge(indicator=True)'s column: m._merge is how LLM code reads it
            problem = (problem[0], problem[1] + '; read the column merge(indicator=True) '
                       'made as df["_merge"]')
        if problem is not None:
            self._report(node, problem[0], problem[1] + context, position)

    @staticmethod
    def _literal_path(call, name):
        """True if a pandas reader or writer call names a path as a literal
        string (read_json's literal JSON text is data, not a path)."""
        target = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) \
            else None
        for keyword in call.keywords:
            if keyword.arg in _PATH_KEYWORDS:
                target = keyword.value
        if isinstance(target, ast.JoinedStr):
            return True
        if not (isinstance(target, ast.Constant) and isinstance(target.value, (str, bytes))):
            return False
        return not (name == "read_json" and isinstance(target.value, str)
                    and target.value.lstrip()[:1] in ("{", "["))

    def _check_attribute_string(self, node, text, context=""):
        # getattr() looks the string up exactly, but normalise it anyway so
        # that the check is never weaker than for an identifier.
        name = unicodedata.normalize("NFKC", text)
        self._check_attribute(node, name, context=context)

    # -- module structure ---------------------------------------------------

    def _visit_Module(self, node, parent):
        # names bound at top level so far: True for a constant, False for
        # anything else (an import, a def, a class); a name a function
        # declares global, or a := binds anywhere, is never a constant (a
        # default value or a decorator runs as the module does): the tree
        # is searched for them only when a constant names another
        self._constants = {}
        self._module = node
        self._rebound = None
        modules = {}                    # name: the module an import bound it to
        for index, stmt in enumerate(node.body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                                 ast.ClassDef, ast.AsyncFunctionDef)):
                # a name bound again is no longer a constant
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    for alias in stmt.names:
                        name = (alias.asname or alias.name).partition(".")[0]
                        self._constants[name] = False
                        if isinstance(stmt, ast.ImportFrom):
                            modules[name] = "%s.%s" % (stmt.module, alias.name) \
                                if stmt.module and not stmt.level else None
                        else:
                            modules[name] = alias.name if alias.asname else name
                else:
                    self._constants[stmt.name] = False
                    modules[stmt.name] = None
                continue                # async def is reported as "async"
            for target in _target_names(stmt.targets if isinstance(stmt, ast.Assign) else
                                        [stmt.target] if isinstance(stmt, ast.AnnAssign)
                                        else []) or ():
                modules[target] = None
            if (index == 0 and isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)):
                continue                # the docstring
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                message = self._top_level_assignment_problem(stmt)
            elif _is_main_guard(stmt):
                message = MAIN_GUARD_MESSAGE
            elif _backend_choice(stmt, modules):
                # Agg is what the sandbox draws with: choosing it changes
                # nothing and may stay (review 48: a headless script's
                # first line); the notebook's backend is not there.  Not
                # on a name a function's global or a := binds (review 53)
                rebound = stmt.value.func.value.id in self._rebound_names()
                message = None if _backend_choice(stmt, modules) == "agg" and not rebound \
                    else TOP_LEVEL_MESSAGE if rebound else BACKEND_MESSAGE
            else:
                message = TOP_LEVEL_MESSAGE
            if message is not None:
                self._report(stmt, "top-level", message)

    def _top_level_assignment_problem(self, stmt):
        names = _target_names(stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        if names is None:
            return ("top-level assignments may only bind names; move this "
                    "statement into a function")
        if stmt.value is None:
            return None                 # a bare annotation: "x: int"
        problem = _constant_problem(stmt.value, self._constants, self._rebound_names)
        if problem is not None:
            return problem
        for name in names:
            self._constants[name] = True
        return None

    def _rebound_names(self):
        if self._rebound is None:
            self._rebound = _rebound_names(self._module)
        return self._rebound

    def _visit_Import(self, node, parent):
        for alias in node.names:
            self.imports.add(alias.name)
            # "import a.b" binds "a" (and "import a.b as c" reaches a.b
            # through "a"), so "a" must be allowed by itself as well.
            top = alias.name.partition(".")[0]
            if sb_guard.partial_package(alias.name, self.allowed):
                top = alias.name        # binds a package of the allowed submodules
            for name in dict.fromkeys((alias.name, top)):
                if not sb_guard.is_allowed(name, self.allowed):
                    self._report_import(alias, name)
                    break

    def _visit_ImportFrom(self, node, parent):
        if node.level:
            self._report(node, "import", "relative imports are not allowed; "
                         "import modules by their full name")
            return
        module = node.module
        if module == "__future__":
            # a compiler directive (from __future__ import annotations)
            for alias in node.names:
                if alias.name not in __future__.all_feature_names:
                    self._report(alias, "import", '"%s" is not a feature of __future__'
                                 % alias.name)
            return
        self.imports.add(module)
        if not sb_guard.is_allowed(module, self.allowed):
            partial = [alias for alias in node.names if "." not in module and
                       sb_guard.partial_package(module + "." + alias.name, self.allowed)]
            if not partial:
                self._report_import(node, module)
                return
            # from dateutil import parser: only allowed submodules of it
            for alias in node.names:
                if alias not in partial:
                    self._report_import(alias, module + "." + alias.name)
            return
        for alias in node.names:
            name = alias.name
            if name == "*":
                self._report(alias, "import", '"from %s import *" is not '
                             'allowed; import the names you need' % module)
            elif name.startswith("_"):
                self._check_attribute(alias, name)
            elif not sb_guard.is_allowed(module + "." + name, self.allowed):
                self._report_import(alias, module + "." + name)
            elif name in sb_guard.MODULE_ATTRIBUTES.get(module, ()):
                self._report(alias, "import", 'attribute "%s" of module "%s" is not allowed: %s'
                             % (name, module, sb_guard.MODULE_ATTRIBUTES[module][name]))
            else:
                self._check_attribute_string(alias, name)

    def _visit_alias(self, node, parent):
        if node.asname is not None:
            self._check_name(node, node.asname)

    # -- names and attributes --------------------------------------------

    def _visit_Name(self, node, parent):
        name = node.id
        called = isinstance(parent, ast.Call) and parent.func is node
        if name in _GETATTR_NAMES or name in _GETTER_FACTORIES:
            if not called:
                self._report(node, "forbidden-name", '"%s" may only be '
                             'called directly, as in %s(obj, "name")' % (name, name))
            return
        if id(node) in self._slots:
            return                      # __slots__ = ("x", "y") in a class body
        if name == "__name__" and isinstance(node.ctx, ast.Load):
            return                      # "__sandbox__": logging.getLogger(__name__)
        self._check_name(node, name)

    def _visit_Attribute(self, node, parent):
        name = node.attr
        position = self._attribute_position(node)
        called = isinstance(parent, ast.Call) and parent.func is node
        if name in ALLOWED_DUNDER_METHODS and _is_super_call(node.value):
            return                      # super().__init__(...)
        if id(node) in self._own:
            return                      # self._cache: checked as it runs
        reading = isinstance(node.ctx, ast.Load)
        if reading and name in sb_guard.READABLE_DUNDERS:
            return                      # type(exc).__name__: a str
        if (reading and name == "__class__" and isinstance(parent, ast.Attribute)
                and parent.value is node and parent.attr in sb_guard.READABLE_DUNDERS
                and isinstance(parent.ctx, ast.Load)):
            return                      # exc.__class__.__name__, nothing else of it
        if name in _GETTER_FACTORIES:
            if not called:
                self._report(node, "forbidden-name", '"%s" may only be '
                             'called directly, with a constant attribute '
                             'name' % name, position)
            return
        if not reading and name in sb_guard.NO_SET_ATTRIBUTES:
            self._report(node, "forbidden-attribute", 'setting attribute "%s" is not '
                         'allowed: %s' % (name, sb_guard.NO_SET_ATTRIBUTES[name]), position)
            return
        if not reading and name == "data" and not _simple_assignment(node, parent):
            # obj.data = value alone is compiled checked (sb_guard._SetDataGuard)
            self._report(node, "forbidden-attribute", 'set attribute "data" in an '
                         'assignment of its own, as obj.data = value', position)
            return
        if name in sb_guard.FORMAT_METHODS:
            self._check_format(node, position)
            return
        self._check_attribute(node, name, parent if called else None,
                              position)

    def _check_format(self, node, position):
        # a literal's format string is checked here; any other receiver is
        # checked when the call runs (sb_guard.compile_user_code)
        receiver = node.value
        if isinstance(receiver, ast.Constant) and isinstance(receiver.value, str):
            problem = sb_guard.format_string_problem(receiver.value)
            if problem is not None:
                self._report(receiver, "format-string", problem)

    def _visit_Call(self, node, parent):
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute):
            name = func.attr
        else:
            return
        if isinstance(func, ast.Name) and name in _GETATTR_NAMES:
            self._check_getattr(node, name)
        elif name in _GETTER_FACTORIES:
            self._check_getter_factory(node, name)
        elif isinstance(func, ast.Name) and name == "type":
            if (len(node.args) != 1 or node.keywords
                    or isinstance(node.args[0], ast.Starred)):
                self._report(node, "forbidden-name", "type() may only be "
                             "called with one argument; use a class "
                             "statement to define a class")
        elif isinstance(func, ast.Attribute) and name in _EXPRESSION_METHODS:
            self._check_expression(node, name)
        elif isinstance(func, ast.Attribute) and name in _DISPATCH_METHODS:
            self._check_dispatch(node, name)

    def _check_getattr(self, node, name):
        """getattr(obj, "name"): the name's rules now; a computed name is
        checked as it is looked up (sb_guard.sb_getattr).  hasattr() gives
        only True or False, for any name."""
        args = node.args
        if name == "getattr" and len(args) >= 2 and \
                isinstance(args[1], ast.Constant) and isinstance(args[1].value, str) and \
                unicodedata.normalize("NFKC", args[1].value) not in sb_guard.READABLE_DUNDERS:
            self._check_attribute_string(args[1], args[1].value)
        elif name in ("setattr", "delattr") and len(args) >= 2 and \
                isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
            # as obj.name = value is checked: no dunder is written
            self._check_attribute_string(args[1], args[1].value)

    def _check_getter_factory(self, node, name):
        args = node.args if name == "attrgetter" else node.args[:1]
        constant = bool(args) and all(
            isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            for arg in args)
        if not constant:
            self._report(node, "forbidden-name", '%s() with a computed '
                         'attribute name is not allowed; use constant '
                         'strings' % name)
            return
        for arg in args:
            # attrgetter("a.b") follows a dotted path.
            parts = arg.value.split(".") if name == "attrgetter" else [
                arg.value]
            for part in parts:
                self._check_attribute_string(arg, part)

    def _check_expression(self, node, method):
        """Apply the attribute rules inside a pandas query/eval string."""
        expression = _argument(node, 0, {"expr"})
        context = ' (in the expression passed to "%s")' % method
        for piece, text in _string_pieces(expression):
            text = unicodedata.normalize("NFKC", text)
            for match in _IDENTIFIER.finditer(text):
                name = match.group(2)
                if match.group(1):
                    self._check_attribute_string(piece, name, context)
                elif name.startswith("__"):
                    self._report(piece, "dunder",
                                 _dunder_message(name) + context)

    def _check_dispatch(self, node, method):
        """pandas resolves a string function name with getattr()."""
        func = _argument(node, 0, {"func", "arg"})
        context = ' (in the function name passed to "%s")' % method
        for piece, text in _string_pieces(func):
            if text.startswith("_"):
                self._check_attribute_string(piece, text, context)

    # -- definitions and other bindings ----------------------------------

    def _visit_FunctionDef(self, node, parent):
        self._check_annotation_strings(node.returns)
        name = node.name
        if not name.startswith("__"):
            self._check_name(node, name)
        elif not isinstance(parent, ast.ClassDef):
            self._report(node, "dunder", _dunder_message(name))
        elif name not in ALLOWED_DUNDER_METHODS:
            self._report(node, "dunder", _special_method_message(name))

    def _visit_AsyncFunctionDef(self, node, parent):
        self._report(node, "async", "async functions are not allowed")
        self._visit_FunctionDef(node, parent)

    def _visit_ClassDef(self, node, parent):
        self._check_name(node, node.name)
        for keyword in node.keywords:
            label = keyword.arg + "=" if keyword.arg else "**"
            self._report(keyword, "metaclass", 'class keyword argument "%s" '
                         'is not allowed: metaclasses and class arguments are '
                         'not supported' % label)
        for statement in node.body:
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name)
                    and statement.targets[0].id == "__slots__"):
                if _slot_names(statement.value) is not None:
                    self._slots.add(id(statement.targets[0]))
                else:
                    self._report(statement, "dunder", "__slots__ must list the "
                                 "attribute names as string literals, such as "
                                 '__slots__ = ("x", "y"), none beginning with "__"')
                    self._slots.add(id(statement.targets[0]))

    def _visit_arg(self, node, parent):
        self._check_name(node, node.arg)
        self._check_annotation_strings(node.annotation)

    def _visit_AnnAssign(self, node, parent):
        self._check_annotation_strings(node.annotation)

    def _check_annotation_strings(self, annotation):
        """String annotations are code: typing.get_type_hints() and
        functools.singledispatch evaluate them, so they obey the same rules."""
        if annotation is None:
            return
        for node in ast.walk(annotation):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            try:
                tree = _quiet_parse(node.value.strip(), "<annotation>", "eval")
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._report(node, "syntax", "a string annotation must be a "
                             "valid expression")
                continue
            inner = _Validator(node.value.strip(), self.allowed)
            try:
                inner._walk(tree)
            except (RecursionError, MemoryError):
                inner._add(1, 1, "too-complex", "annotation is too complex")
            for finding in inner.findings:
                self._report(node, finding["rule"], finding["message"] +
                             " (in a string annotation)")

    def _visit_keyword(self, node, parent):
        if node.arg is not None and node.arg.startswith("__"):
            self._report(node, "dunder", _dunder_message(node.arg))
        elif node.arg in sb_guard.FORBIDDEN_KEYWORDS:
            self._report(node, "forbidden-attribute", 'keyword argument "%s" is not '
                         'allowed: %s' % (node.arg, sb_guard.FORBIDDEN_KEYWORDS[node.arg]))

    def _visit_ExceptHandler(self, node, parent):
        if node.name is not None:
            self._check_name(node, node.name)

    def _visit_Global(self, node, parent):
        for name in node.names:
            self._check_name(node, name)

    _visit_Nonlocal = _visit_Global

    def _visit_MatchAs(self, node, parent):
        if node.name is not None:
            self._check_name(node, node.name)

    _visit_MatchStar = _visit_MatchAs

    def _visit_MatchMapping(self, node, parent):
        if node.rest is not None:
            self._check_name(node, node.rest)

    def _visit_MatchClass(self, node, parent):
        # "case P(x=0)" reads attribute x of the subject.
        for name in node.kwd_attrs:
            self._check_attribute_string(node, name)

    # -- statements refused outright --------------------------------------

    def _visit_TryStar(self, node, parent):
        self._report(node, "try-star", "try/except* is not allowed; use "
                     "try/except")

    def _visit_Await(self, node, parent):
        self._report(node, "async", "await is not allowed")

    def _visit_AsyncFor(self, node, parent):
        self._report(node, "async", "async for is not allowed")

    def _visit_AsyncWith(self, node, parent):
        self._report(node, "async", "async with is not allowed")

    def _visit_comprehension(self, node, parent):
        if node.is_async:
            self._report(node.target, "async", "async comprehensions are not "
                         "allowed")


# node type -> visitor, for _Validator._walk
_VISITORS = {getattr(ast, name[len("_visit_"):]): method
             for name, method in vars(_Validator).items()
             if name.startswith("_visit_") and hasattr(ast, name[len("_visit_"):])}
