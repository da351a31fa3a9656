"""Runtime guards for sandboxed user code: restricted builtins and imports.

This module runs inside the sandbox child, once per call, so building the
globals must stay cheap: the tables below are computed once at load time and
make_globals() only completes the builtins table and creates a few closures.

It is the second line of the Python layer (sb_validator is the first) and is
NOT the security boundary: seccomp, rlimits and Landlock are.  Its job is to
block the easy paths and to explain precisely what is not allowed:

- imports go through make_import(), which applies the module allowlist and
  the denied submodules, and hands out SbModule proxies instead of modules;
- an SbModule proxy never returns a module that is not allowed, so paths such
  as np.ctypeslib, pd.compat.os or np.lib.function_base.builtins end in an
  AttributeError instead of the real ctypes, os or builtins;
- the builtins have no eval/exec/open/globals/..., and getattr/hasattr/type
  are wrapped to refuse what the validator refuses statically.

sb_validator imports the shared policy tables from here, so the worker must
load this module before sb_validator.  Only the standard library is used.
"""

import _string
import __future__
import abc
import ast
import builtins
import collections
import datetime
import string
import sys
import types
import typing

# Captured at load time, before any user code can run.
_real_import = builtins.__import__
_ModuleType = type(sys)
_FORMATTER = string.Formatter()

# Submodules of allowed packages that stay denied: they reach ctypes, files,
# pickle, subprocesses or test helpers that import the world.  A module whose
# dotted name has a component starting with "_" is denied as well.
DENIED_SUBMODULES = frozenset({
    "numpy.ctypeslib",
    "numpy.f2py",
    "numpy.distutils",
    "numpy.testing",
    "numpy.lib.utils",
    # container's conversions (__int__, __float__) index an attribute the
    # code sets: its __getitem__ ran inside float() (review 76 F2)
    "numpy.lib.user_array",
    "numpy.compat",
    "pandas.compat",
    "pandas.util",
    "pandas.io.clipboard",
    "pandas.io.pickle",
    "pandas.io.parsers",
    "pandas.io.sql",
    "pandas.io.pytables",
    "pandas.io.excel",
    # pandas' internals: helpers that trust their arguments (BlockManager.
    # apply calls any method by name, the interchange protocol reads any
    # address, pin_allowlisted_properties sets any attribute).  The public
    # API is pandas' own namespace, pandas.api and the objects it returns
    "pandas.core",
    "pandas.io.common",
    "pandas.testing",
    "pandas.conftest",
    "pandas.tests",
    "pandas._testing",
    # matplotlib: writers of animations and LaTeX run programs, the
    # backends other than the ones below draw on screens, pylab imports
    # numpy's namespace whole, test helpers import the world
    "matplotlib.animation",
    "matplotlib.backends",
    "matplotlib.testing",
    "matplotlib.texmanager",
    "matplotlib.dviread",
    "matplotlib.sphinxext",
    "matplotlib.pylab",
    "matplotlib.ft2font",
})

# components of a dotted module name that make the module denied, in every
# package: test suites and their helpers import what the code may not
# (matplotlib.tests.test_getattr hands out importlib.import_module, numpy's
# tests pathlib, tempfile, ctypes and unittest.mock), and they are never
# anything a call needs
DENIED_COMPONENTS = frozenset({"tests", "testing", "conftest", "testutils", "test"})

# modules under a denied one that are allowed again: the backends that draw
# to memory (a PNG, a PDF or an SVG in an io.BytesIO)
REOPENED_SUBMODULES = frozenset({
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "matplotlib.backends.backend_svg",
})

# The public namedtuple API is the one exception to the private-name rule,
# with the fields namedtuple(rename=True) names by position: itertuples()
# calls a column that is no identifier ("Amount USD") _1, _2, ... (review
# 143 F2); no library object has an attribute of that form.
NAMEDTUPLE_ATTRIBUTES = frozenset({"_asdict", "_replace", "_fields", "_make"})


def namedtuple_attribute(name):
    """Whether name is the namedtuple API's, or a renamed field's (_4)."""
    return name in NAMEDTUPLE_ATTRIBUTES or (
        len(name) > 1 and name[0] == "_" and name[1:].isdigit() and name[1:].isascii())

# "__" names code may read (never set): what they give is a str (or None),
# as in type(exc).__name__ or x.__class__.__qualname__
READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__module__", "__doc__",
                              "__version__"})    # a module's is a str only (SbModule)

_REASON_FRAMES = "it exposes interpreter frames or code objects"
_REASON_CLASSES = "it walks the class hierarchy"
_REASON_FILES = "it reads or writes files"
_REASON_INTERNALS = "it reaches interpreter or operating system internals"

# Attribute names refused even though they carry no underscore.
FORBIDDEN_ATTRIBUTES = {}
FORBIDDEN_ATTRIBUTES.update(dict.fromkeys((
    "gi_frame", "gi_code", "gi_yieldfrom",
    "cr_frame", "cr_code", "cr_await",
    "ag_frame", "ag_code", "ag_await",
    "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "f_trace",
    "tb_frame", "tb_next",
    "co_code", "co_consts",
    "func_globals", "func_code",
), _REASON_FRAMES))
FORBIDDEN_ATTRIBUTES["mro"] = _REASON_CLASSES
FORBIDDEN_ATTRIBUTES.update(dict.fromkeys((
    # numpy
    "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt",
    "genfromtxt", "fromfile", "fromregex", "tofile", "memmap",
    "open_memmap", "DataSource",
    # ... and the readers and openers by path review 70 found handed out
    "recfromcsv", "recfromtxt", "fromtextfile", "StataReader", "get_buffer",
    # pandas writers that never return their output as a value
    "to_pickle", "to_parquet", "to_excel", "to_hdf", "to_feather",
    "to_stata", "to_sql", "to_clipboard", "to_orc", "to_gbq",
    "ExcelWriter", "ExcelFile", "HDFStore",
), _REASON_FILES))
FORBIDDEN_ATTRIBUTES.update(dict.fromkeys((
    "ctypeslib", "ctypes", "f2py", "distutils", "testing", "compat",
    "builtins", "os", "sys", "subprocess", "importlib", "modules",
    "pickle", "marshal", "shutil", "socket", "gc", "inspect",
    # numpy's bit generators: a PyCapsule of the generator's own bitgen_t
    # that keeps no reference to the generator; np.random.Generator(obj)
    # takes any object with .capsule and copies the bitgen_t (state and
    # function pointers) out of freed memory (rev27)
    "capsule",
), _REASON_INTERNALS))

# matplotlib's font objects (reachable from mathtext's output) are native
# code that trusts its arguments: a charmap index out of range reads outside
# the table, the image of a font is freed under an array that still points
# to it (matplotlib 3.6)
FORBIDDEN_ATTRIBUTES.update(dict.fromkeys((
    "set_charmap", "select_charmap", "draw_glyphs_to_bitmap", "draw_glyph_to_bitmap",
    "get_image",
), "it reaches native font code that does not check its arguments"))

# typing evaluates string annotations with eval().
FORBIDDEN_ATTRIBUTES.update(dict.fromkeys((
    "get_type_hints", "ForwardRef",
), "it evaluates strings as code"))

# str.format and friends can walk attributes from inside a string.  Calls
# of .format/.format_map are checked (format_string_problem): statically on
# a string literal, at run time on anything else (guard_format_method);
# these names are refused where neither check can apply (getattr with the
# name); string.Formatter is refused by its module (other libraries'
# Formatter classes, matplotlib.ticker's and the sandbox's logging's,
# format with rules of their own).  string.Template is allowed: its $name
# and ${name} only look names up in the mapping given, never attributes.
FORMAT_ATTRIBUTES = frozenset({
    "format", "format_map",
})
FORMAT_METHODS = frozenset({"format", "format_map"})
# the builtin that user code reaches only through that rewriting: a dunder
# name, which the validator refuses in user code
FORMAT_GUARD_NAME = "__sb_format_method__"


# pandas readers and writers that work on data in memory: allowed, and
# checked when called (guard_pandas_io): the argument naming the source or
# target must be an io.StringIO or io.BytesIO, not a path or URL
READERS = {"read_csv": "filepath_or_buffer", "read_table": "filepath_or_buffer",
           "read_fwf": "filepath_or_buffer", "read_json": "path_or_buf"}
WRITERS = {"to_csv": "path_or_buf", "to_json": "path_or_buf", "to_string": "buf",
           "to_markdown": "buf", "to_html": "buf", "to_latex": "buf",
           "to_xml": "path_or_buffer"}

# attributes refused on one module only (the proxy checks them)
MODULE_ATTRIBUTES = {
    "io": dict(dict.fromkeys(("open", "FileIO", "open_code"),
                             "it opens files; use io.StringIO or io.BytesIO for data in memory"),
               # they hand the raw stream's readinto()/write() a memoryview of
               # their own buffer that the raw stream can keep: once the buffer
               # is freed, it reads and writes whatever is allocated there
               **dict.fromkeys(("BufferedReader", "BufferedWriter", "BufferedRandom",
                                "BufferedRWPair"),
                               "it lends its buffer to the raw stream's code, which can "
                               "keep it after it is freed; read io.BytesIO directly"),
               # over a buffer object of the code's, CPython's text layer has
               # memory bugs of the same kind (gh-143008 and later reports)
               **dict.fromkeys(("TextIOWrapper", "IncrementalNewlineDecoder"),
                               "it calls the code's buffer object in ways CPython does not "
                               "guard; decode the bytes instead: io.StringIO(data.decode())")),
    # these read a line of a source file named by the caller (linecache)
    "warnings": dict.fromkeys(("warn_explicit", "showwarning", "formatwarning"),
                              "it reads files by name; use warnings.warn"),
    "string": {"Formatter": "format fields can reach attributes; use an f-string"},
    # they read the machine's network address (a socket, or a program)
    "uuid": dict.fromkeys(("uuid1", "getnode"),
                          "it reads the machine's network address; use uuid.uuid4() "
                          "or a name-based uuid.uuid5()"),
    "zoneinfo": dict.fromkeys(("reset_tzpath", "TZPATH"),
                              "it chooses the directories time zone files are read from"),
    # they change the process's working directory or the real sys module's
    # streams, which the sandbox's own print() and error reports use
    "contextlib": {"chdir": "it changes the working directory, which the sandbox has none of",
                   **dict.fromkeys(("redirect_stdout", "redirect_stderr"),
                                   "it replaces the process's own stream; write to a buffer "
                                   "with print(..., file=buf) (buf = io.StringIO())")},
}


# what to use instead, for the refused attributes code reaches for most
_INSTEAD = {
    "read_sql": 'it reads a database connection, which the sandbox has none of; use '
                'sql(query, *params), which returns a DataFrame, or pass the query as an '
                'input: {"df": {"$query": "SELECT ..."}}',
    "loadtxt": _REASON_FILES + "; parse text with pd.read_csv(io.StringIO(text)).to_numpy()",
    "genfromtxt": _REASON_FILES + "; parse text with pd.read_csv(io.StringIO(text)).to_numpy()",
    "save": _REASON_FILES + "; return the array (it becomes a JSON list)",
    "savez": _REASON_FILES + "; return the arrays (they become JSON lists)",
    "savez_compressed": _REASON_FILES + "; return the arrays (they become JSON lists)",
    "savetxt": _REASON_FILES + "; return the array, or text made with "
                               "pd.DataFrame(a).to_csv(index=False)",
    "load": _REASON_FILES + "; pass the data as an input",
    "to_excel": _REASON_FILES + "; return the DataFrame (rows), or text from to_csv(), "
                                "to_json() or to_markdown()",
    "to_parquet": _REASON_FILES + "; return the DataFrame, or text from to_csv() or to_json()",
    "to_pickle": _REASON_FILES + "; return the DataFrame, or text from to_csv() or to_json()",
    "to_sql": "it writes tables, which the sandbox cannot; return the DataFrame and insert "
              "its rows with INSERT ... SELECT * FROM sandbox_rows(...)",
    "testing": "the libraries' test helpers are not handed out; compare with a.equals(b), "
               "np.array_equal(a, b) or np.allclose(a, b)",
}
_INSTEAD["read_sql_query"] = _INSTEAD["read_sql_table"] = _INSTEAD["read_sql"]


def forbidden_attribute_reason(name):
    """Return why attribute `name` is forbidden, or None if it is not."""
    reason = FORBIDDEN_ATTRIBUTES.get(name)
    if reason is None and name.startswith("read_") and name not in READERS:
        reason = _REASON_FILES          # every other pandas reader takes a path
    if reason is not None and reason in (_REASON_FILES, _REASON_INTERNALS):
        reason = _INSTEAD.get(name, reason)
    return reason


# what to write instead of a "__" name code reaches for most
_DUNDER_INSTEAD = {
    "__all__": "remove it: the call names the functions it runs",
    "__dict__": "use vars(obj)",
    "__class__": "use type(obj)",
    "__file__": "the code has no file",
    "__cause__": "use the exception itself, str(e) for its message",
    "__context__": "use the exception itself, str(e) for its message",
    "__traceback__": "use the exception itself, str(e) for its message",
    "__setattr__": "set attributes as obj.name = value; for a frozen dataclass, make the "
                   "value a field's default or use dataclasses.replace(obj, name=value)",
    "__getattribute__": "use obj.name, or getattr(obj, name)",
}
_DUNDER_OPERATORS = {
    "add": "a + b", "radd": "b + a", "sub": "a - b", "rsub": "b - a", "mul": "a * b",
    "rmul": "b * a", "truediv": "a / b", "floordiv": "a // b", "mod": "a % b",
    "pow": "a ** b", "matmul": "a @ b", "neg": "-a", "abs": "abs(a)", "eq": "a == b",
    "ne": "a != b", "lt": "a < b", "le": "a <= b", "gt": "a > b", "ge": "a >= b",
    "len": "len(a)", "getitem": "a[key]", "setitem": "a[key] = value",
    "delitem": "del a[key]", "contains": "x in a", "iter": "iter(a)", "next": "next(a)",
    "str": "str(a)", "repr": "repr(a)", "hash": "hash(a)", "bool": "bool(a)",
    "int": "int(a)", "float": "float(a)", "call": "a(...)", "format": "format(a, spec)",
}


def dunder_message(name):
    """Why a "__" name is refused, and what to write instead where that is
    known (the reader is often a model repairing its code)."""
    message = ('name "%s" is not allowed: names that begin with "__" are '
               'reserved' % name)
    instead = _DUNDER_INSTEAD.get(name)
    if instead is None and name.endswith("__") and name[2:-2] in _DUNDER_OPERATORS:
        instead = "use %s" % _DUNDER_OPERATORS[name[2:-2]]
    return message + ("; " + instead if instead else "")


def exact_str(value):
    """A str the code gave, as an exact str; anything else as it is.  A
    subclass of the code's answers startswith(), lower() and == as it likes,
    and as a dict key (a class's or an instance's namespace, keywords) its
    __hash__ and __eq__ make any lookup of the name it imitates find it:
    H("harmless") hashing as "__array_interface__" was numpy's array
    interface (review 53).  str.__str__ copies the text, running none of
    the subclass's methods."""
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def attribute_problem(name):
    """Check an attribute name against the static rules.

    Returns None or (rule, message), rule being the sb_validator rule name:
    "dunder", "private-attribute", "forbidden-attribute" or "format-string".
    A str subclass is checked as its text: its own startswith() would answer
    (review 53); callers pass on exact_str(name), not the subclass.
    """
    name = exact_str(name)
    if name.startswith("__"):
        return ("dunder", dunder_message(name))
    if name.startswith("_") and not namedtuple_attribute(name):
        return ("private-attribute", 'attribute "%s" is not allowed: names '
                'that begin with "_" are private' % name)
    reason = forbidden_attribute_reason(name)
    if reason is not None:
        return ("forbidden-attribute",
                'attribute "%s" is not allowed: %s' % (name, reason))
    if name in FORMAT_ATTRIBUTES:
        return ("format-string", 'attribute "%s" is not allowed: format '
                'fields can reach attributes; use an f-string' % name)
    return None


def format_string_problem(text, depth=0):
    """Why str.format() on `text` is refused, or None.

    A field may be empty, a position or a name, followed by item lookups
    ("{0[0]}", "{row[name]}") and by attributes the validator would allow
    in code ("{0.real}"); not "{0.__class__}" or a private attribute.
    """
    try:
        parsed = list(_FORMATTER.parse(text))
    except ValueError as exc:
        return "invalid format string: %s" % exc
    for _literal, field, spec, _conversion in parsed:
        if field is None:
            continue
        try:
            first, rest = _string.formatter_field_name_split(field)
            path = list(rest)
        except ValueError as exc:
            return "invalid format string: %s" % exc
        if type(first) is str and first and not first.isidentifier():
            return 'format field "{%s}" is not allowed: it must begin with a ' \
                   'position or a name' % field
        for is_attribute, key in path:
            problem = attribute_problem(key) if is_attribute else None
            if problem is not None and problem[0] != "format-string":
                return 'format field "{%s}" is not allowed: %s' % (field, problem[1])
        if spec:
            if depth >= 2:
                return "format specification is nested too deeply"
            problem = format_string_problem(spec, depth + 1)
            if problem is not None:
                return problem
    return None


def guard_format_method(method):
    """A .format/.format_map method, checked at run time before it is called.

    User code's "X.format" is compiled as "guard(X.format)"
    (compile_user_code), so what is checked is the method itself, however X
    was reached (a string, a str subclass, super()): str's own methods bound
    to a string have that string checked like a literal one; unbound
    (str.format(fmt, ...), which takes the format string as an argument)
    they are refused; any other format method (pandas' Styler.format,
    Index.format, a user class's) has rules of its own and passes.
    """
    owner = getattr(method, "__self__", None)
    if isinstance(owner, str):
        # str's own, or a str subclass's (markupsafe's Markup.format runs a
        # string.Formatter over the string): the string is the format
        problem = format_string_problem(str.__str__(owner))
        if problem is not None:
            raise AttributeError(problem)
    elif type(method) is types.MethodDescriptorType and \
            getattr(method, "__objclass__", None) is str:
        raise AttributeError('"str.format" is not allowed: call .format on the '
                             'format string itself, or use an f-string')
    return method


# the builtin every "except ... as name:" block calls first (compile_user_code)
EXCEPT_GUARD_NAME = "__sb_caught__"


def guard_caught(exc):
    """An exception the code caught: an AttributeError forgets the object
    its lookup failed on (Python keeps it as .obj: inside a library, an
    internal object, or the real module behind a proxy)."""
    if isinstance(exc, AttributeError):
        try:
            exc.obj = None
        except (AttributeError, TypeError):
            pass
    return exc


# the builtin a call with **mapping passes the mapping through (compile_user_code)
KWARGS_GUARD_NAME = "__sb_kwargs__"


def guard_kwargs(mapping):
    """f(**mapping): no keyword that begins with "__" (the validator refuses
    f(__x=...) written out): SimpleNamespace(**{"__array_interface__": ...})
    made an object numpy reads memory through.  What is checked is a plain
    dict made once, which is what the call gets (a dict subclass is
    unpacked from its contents whatever its keys() says)."""
    if isinstance(mapping, dict):
        items = list(dict.items(mapping))
    else:
        items = [(key, mapping[key]) for key in mapping.keys()]
    # the keywords the callee gets are exact strs (exact_str)
    checked = {exact_str(key): value for key, value in items}
    if len(checked) != len(items):
        raise TypeError("keyword arguments repeat a name")
    for key in checked:
        if isinstance(key, str) and key.startswith("__"):
            raise TypeError('keyword argument "%s" is not allowed: names that begin with '
                            '"__" are reserved' % (str.__str__(key),))
        if isinstance(key, str) and str.__str__(key) in FORBIDDEN_KEYWORDS:
            raise TypeError('keyword argument "%s" is not allowed: %s'
                            % (str.__str__(key), FORBIDDEN_KEYWORDS[str.__str__(key)]))
    return checked


# keyword arguments refused in any call, written out or unpacked: numpy's
# ndarray.resize(refcheck=False) reallocates the memory under the array's
# views (they then read and write it freed), and a library that passes
# keywords on (Series.apply(f, **kw), functools.partial) would call it so
# from its own code, which the checked resize lets through for pandas
FORBIDDEN_KEYWORDS = {
    "refcheck": "resize(refcheck=False) would leave the array's views on freed memory; "
                "use np.resize(a, shape), which copies",
}


class _KwargsGuard(ast.NodeTransformer):
    """f(**m) is compiled as f(**__sb_kwargs__(m))."""

    def visit_Call(self, node):
        self.generic_visit(node)
        for kw in node.keywords:
            if kw.arg is None:
                kw.value = ast.copy_location(ast.Call(
                    func=ast.Name(id=KWARGS_GUARD_NAME, ctx=ast.Load()),
                    args=[kw.value], keywords=[]), kw.value)
        return node


class _SetDataGuard(ast.NodeTransformer):
    """"obj.data = value" is compiled as __sb_set_data__(obj, value) (the
    validator allows no other way to set an attribute named data)."""

    def _replace(self, node, target, value):
        call = ast.Call(func=ast.Name(id=SET_DATA_GUARD_NAME, ctx=ast.Load()),
                        args=[target.value, value], keywords=[])
        return ast.copy_location(ast.Expr(value=ast.copy_location(call, node)), node)

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) and \
                node.targets[0].attr == "data":
            return self._replace(node, node.targets[0], node.value)
        return node

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.target, ast.Attribute) and node.target.attr == "data" and \
                node.value is not None:
            return self._replace(node, node.target, node.value)
        return node


class _SetAttributeGuard(ast.NodeTransformer):
    """obj.name as a target (assigned, augmented, deleted, a for or with
    target, unpacked into) -> __sb_settable__(obj, "name").name; del adds
    True.  Its own walk, after the others: _SetDataGuard has made
    obj.data = value a call by then (guard_set_data checks the object)."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            args = [node.value, ast.Constant(value=node.attr)]
            if isinstance(node.ctx, ast.Del):
                args.append(ast.Constant(value=True))
            node.value = ast.copy_location(ast.Call(
                func=ast.Name(id=SETTABLE_GUARD_NAME, ctx=ast.Load()), args=args,
                keywords=[]), node.value)
        return node


class _ExceptGuard(ast.NodeTransformer):
    """"except E as e:" begins with __sb_caught__(e); a method __exit__(self,
    t, e, tb) of the code's own (a with block hands it the exception)
    begins with __sb_caught__(e) and tb = None."""

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        params = node.args.posonlyargs + node.args.args
        if node.name in ("__exit__", "__aexit__") and len(params) >= 4:
            exc, tb = params[2].arg, params[3].arg
            first = node.body[0] if node.body else node
            guard = ast.Expr(value=ast.Call(
                func=ast.Name(id=EXCEPT_GUARD_NAME, ctx=ast.Load()),
                args=[ast.Name(id=exc, ctx=ast.Load())], keywords=[]))
            clear = ast.Assign(targets=[ast.Name(id=tb, ctx=ast.Store())],
                               value=ast.Constant(value=None))
            node.body[0:0] = [ast.copy_location(guard, first), ast.copy_location(clear, first)]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        if node.name:
            call = ast.Expr(value=ast.Call(
                func=ast.Name(id=EXCEPT_GUARD_NAME, ctx=ast.Load()),
                args=[ast.Name(id=node.name, ctx=ast.Load())], keywords=[]))
            node.body.insert(0, ast.copy_location(call, node.body[0] if node.body else node))
        return node


class _FormatGuard(ast.NodeTransformer):
    """Route every .format/.format_map read through the guard."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in FORMAT_METHODS and isinstance(node.ctx, ast.Load) and not (
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            guard = ast.copy_location(ast.Name(id=FORMAT_GUARD_NAME, ctx=ast.Load()), node)
            return ast.copy_location(ast.Call(func=guard, args=[node], keywords=[]), node)
        return node


# the builtin an explicit super(cls, obj) passes its arguments through
SUPER_GUARD_NAME = "__sb_super_args__"


def guard_super_args(*args):
    """super(cls, obj) written out: obj must be an object (or a class) of
    the code's own classes, as the zero-argument super() of their methods
    gives.  The validator lets super(...).__init__ (and the other common
    special methods) through: on a library object super(pd.DataFrame, df).
    __init__(m) ran NDFrame.__init__, which set df's internal manager to m."""
    if len(args) != 2:
        raise TypeError("super() takes no argument or two (a class and an object of "
                        "it) in the sandbox")
    obj = args[1]
    cls = obj if isinstance(obj, type) else type(obj)
    if not _own_class(cls):
        raise TypeError('super() of a "%s" is not allowed in the sandbox: only objects '
                        'of the classes the code defines; call super() without '
                        'arguments in a method' % type.__getattribute__(cls, "__name__"))
    return args


class _SuperGuard(ast.NodeTransformer):
    """super(a, b) -> super(*__sb_super_args__(a, b)); super() stays."""

    def visit_Call(self, node):
        node = super().visit_Call(node) if hasattr(super(), "visit_Call") \
            else self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and \
                (node.args or node.keywords):
            guard = ast.copy_location(ast.Call(
                func=ast.Name(id=SUPER_GUARD_NAME, ctx=ast.Load()),
                args=node.args, keywords=node.keywords), node)
            node.args = [ast.copy_location(ast.Starred(value=guard, ctx=ast.Load()), node)]
            node.keywords = []
        return node


class _RunTimeGuards(_SuperGuard, _FormatGuard, _ExceptGuard, _KwargsGuard, _SetDataGuard):
    """The rewrites above in one walk of the tree (each handles node types
    of its own: Attribute, ExceptHandler and FunctionDef, Call, Assign;
    _SuperGuard's Call goes on to _KwargsGuard's): the code is compiled for
    every call."""


# what a language function's body ending with a bare call of a function it
# defines (main(x) where return main(x) was meant) returns instead (sb_runtime)
UNRETURNED_NAME = "__sb_unreturned__"


def _returns_anything(body):
    """Does a body return or yield anywhere outside the functions, classes
    and lambdas it defines?"""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def function_tree(tree, name, params, unreturned=False):
    """The module "def name(*params): <body>" for the parsed body of a
    LANGUAGE pysandbox function (a module whose statements are the body):
    built as a syntax tree, so every node keeps the line and column it has
    in the body as written.  unreturned (to run it): a body that returns
    nothing and ends with a bare expression returns
    UNRETURNED_NAME(<the expression>, "<its text>", <is it a call>), so that
    a value it drops is an error, not NULL (review 95: a call of a function
    it defines; review 107: any expression, `y`); one that ends otherwise
    returns UNRETURNED_NAME(None, "", False): it has no return at all."""
    body = list(tree.body)
    if not body:
        body = [ast.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)]
    last = body[-1]
    if unreturned and not _returns_anything(body):
        bare = isinstance(last, ast.Expr) and not isinstance(last.value, ast.Constant)
        where = last.value if bare else last
        args = [last.value, ast.Constant(value=ast.unparse(last.value)),
                ast.Constant(value=isinstance(last.value, ast.Call))] if bare else \
            [ast.Constant(value=None), ast.Constant(value=""), ast.Constant(value=False)]
        wrapped = ast.copy_location(
            ast.Call(func=ast.copy_location(ast.Name(id=UNRETURNED_NAME, ctx=ast.Load()), where),
                     args=[a if bare and a is last.value else ast.copy_location(a, where)
                           for a in args],
                     keywords=[]), where)
        if bare:
            body[-1] = ast.copy_location(ast.Return(value=wrapped), last)
        else:
            body.append(ast.copy_location(ast.Return(value=wrapped), last))
    fn = ast.FunctionDef(
        name=name,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None,
        lineno=1, col_offset=0,
        end_lineno=getattr(last, "end_lineno", None) or 1,
        end_col_offset=getattr(last, "end_col_offset", None) or 0)
    return ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[]))


# self._x in a method of the code's own class (own_attributes): the object
# is checked to be an instance of classes the code defined, as it is used
OWN_GUARD_NAME = "__sb_own_object__"
# what such a class may derive from besides its own classes: nothing of
# these holds a private attribute that reaches anything (builtin exceptions
# are allowed too: guard_own_object)
_OWN_BASES = frozenset({object, abc.ABC, typing.Generic})


def own_attributes(tree):
    """The Attribute nodes (by id) that read or set a private attribute
    ("_name", not "__name") of a method's first parameter, in a method
    defined directly in a class body: self._cache, cls._registry."""
    own = set()
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef) or not fn.args.args:
                continue
            first = fn.args.args[0].arg
            for node in ast.walk(fn):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id == first and node.attr.startswith("_")
                        and not node.attr.startswith("__")):
                    own.add(id(node))
    return own


def guard_own_object(obj, name):
    """self._x: only on an instance (or a class) of classes the code
    defined, from object, abc.ABC, typing.Generic or a builtin exception;
    a library object's private attributes stay out of reach however a
    method is called (MyClass.method(df))."""
    cls = obj if isinstance(obj, type) else type(obj)
    mro = type.__getattribute__(cls, "__mro__")
    theirs = [c for c in mro if not _own_class(c)]
    if cls is obj:
        # a class's attribute lookup also reaches its metaclass's
        theirs += list(type.__getattribute__(type(cls), "__mro__"))
    if _own_class(mro[0]) and not name.startswith("_abc_") and all(
            _allowed_base(c) and name not in type.__getattribute__(c, "__dict__")
            for c in theirs):
        return obj
    raise AttributeError('attribute "%s" of a "%s" is not allowed: names that begin with '
                         '"_" are private, except on objects of the classes the code '
                         'defines' % (name, type.__getattribute__(cls, "__name__")))


def _own_class(c):
    """A class the code's own class statement made."""
    return (type.__getattribute__(c, "__dict__").get("__module__") == "__sandbox__"
            and type(c) in (type, abc.ABCMeta))


def _allowed_base(c):
    """What a class of the code's may derive from, or its metaclass be."""
    if c in _OWN_BASES or c is type or c is abc.ABCMeta:
        return True
    return issubclass(c, BaseException) and \
        type.__getattribute__(c, "__module__") == "builtins"


class _OwnGuard(ast.NodeTransformer):
    """self._x -> __sb_own_object__(self, "_x")._x (own_attributes)."""

    def __init__(self, own):
        self.own = own

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if id(node) in self.own:
            guard = ast.copy_location(ast.Name(id=OWN_GUARD_NAME, ctx=ast.Load()), node)
            name = ast.copy_location(ast.Constant(value=node.attr), node)
            node.value = ast.copy_location(
                ast.Call(func=guard, args=[node.value, name], keywords=[]), node.value)
        return node


# A class statement of the code's whose bases include a library class
# (pd.DataFrame, RendererAgg, ...) may not give private names ("_x") to the
# library: its code calls self._constructor(mgr), sets self._mgr, reads
# self._renderer, so a method, property or attribute of the code's under such
# a name received the library's internals (pandas' BlockManager, whose
# reindex_indexer reads memory unchecked).  The code cannot use such names
# itself (guard_own_object refuses self._x on an object with a library base).
OWN_CLASS_GUARD_NAME = "__sb_own_class__"
_OWN_PRIVATE = {}          # own class -> the private names its body binds
# what enum reads from an Enum subclass's body, by design
_ENUM_HOOKS = frozenset({"_missing_", "_generate_next_value_", "_ignore_", "_order_"})


def _class_body_private_names(node):
    """The names a class body binds in the class's namespace, however it
    binds them: an assignment, a def or class statement anywhere in the
    body (under if, for, with, try), an import, a match capture, an except
    clause; not in nested scopes (a method's body, a lambda, a
    comprehension), whose defaults, decorators and bases it walks."""
    names = set()
    pending = list(node.body)
    while pending:
        sub = pending.pop()
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
            pending.extend(sub.decorator_list)
            if isinstance(sub, ast.ClassDef):
                pending.extend(sub.bases)
                pending.extend(sub.keywords)
            else:
                pending.extend(sub.args.defaults)
                pending.extend(d for d in sub.args.kw_defaults if d is not None)
            continue
        if isinstance(sub, ast.Lambda):
            pending.extend(sub.args.defaults)
            pending.extend(d for d in sub.args.kw_defaults if d is not None)
            continue
        if isinstance(sub, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            pending.append(sub.generators[0].iter)   # evaluated in the class body
            continue
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
        elif isinstance(sub, ast.alias):
            names.add(sub.asname or sub.name.partition(".")[0])
        elif isinstance(sub, (ast.MatchAs, ast.MatchStar)) and sub.name:
            names.add(sub.name)
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            names.add(sub.rest)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            names.add(sub.name)
        elif (isinstance(sub, ast.Assign) and len(sub.targets) == 1
              and isinstance(sub.targets[0], ast.Name) and sub.targets[0].id == "__slots__"):
            for item in ast.walk(sub.value):
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    names.add(item.value)
        pending.extend(ast.iter_child_nodes(sub))
    return sorted(n for n in names if n.startswith("_") and not
                  (n.startswith("__") and n.endswith("__")))


class _OwnClassGuard(ast.NodeTransformer):
    """class C(...): ... -> @__sb_own_class__(("_x", ...)) innermost."""

    def visit_ClassDef(self, node):
        self.generic_visit(node)
        names = _class_body_private_names(node)
        guard = ast.copy_location(ast.Call(
            func=ast.Name(id=OWN_CLASS_GUARD_NAME, ctx=ast.Load()),
            args=[ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())],
            keywords=[]), node)
        node.decorator_list = list(node.decorator_list) + [guard]
        return node


# pandas' classes meant to be subclassed by user code (a window's bounds
# are checked where pandas uses them: sb_harden._guard_window_bounds)
DERIVABLE_LIBRARY_CLASSES = []


def _deriving_refused(c):
    """May a class of the code's not derive from c, a pandas or numpy class?
    (A subclass that overrides a public property of pandas.Categorical made
    pandas take codes past the categories; exceptions and the classes in
    DERIVABLE_LIBRARY_CLASSES may be derived from.)"""
    module = type.__getattribute__(c, "__module__")
    if not isinstance(module, str):
        return False
    if (module.partition(".")[0] == "pytz" or module.startswith("dateutil.tz")) and \
            not issubclass(c, BaseException):
        # pandas caches a zone's transitions by its zone (a pytz class's
        # attribute, a dateutil zone's file name) and reads the real zone's
        # list with the cached positions: a subclass's, or an instance's,
        # zone of another name read that list past its end (review 161 F1)
        return True
    if module.partition(".")[0] not in ("pandas", "numpy"):
        return False
    if issubclass(c, BaseException):
        return False
    return not any(c is d or issubclass(c, d) for d in DERIVABLE_LIBRARY_CLASSES)


def guard_own_class(names):
    """The decorator _OwnClassGuard puts on each class statement: the class
    may not bind the private names its body does (names) when a library
    class is among its bases (_OWN_PRIVATE remembers them for subclasses)."""
    names = frozenset(names)

    def check(cls):
        if not isinstance(cls, type):
            return cls
        _OWN_PRIVATE[cls] = names
        if not guard_on():
            return cls
        if issubclass(cls, type):
            # a base whose __mro_entries__ gives type (typing.Type[int]):
            # a metaclass, which builds a class with any special methods
            # from a dict (__array_interface__: an array over any address)
            raise TypeError('class "%s": deriving from type is not allowed in the sandbox: '
                            'it makes a metaclass, which builds classes from a dict'
                            % type.__getattribute__(cls, "__name__"))
        mro = type.__getattribute__(cls, "__mro__")
        # builtin types (dict, list, Exception) call no "_x" of a subclass
        theirs = [c for c in mro if not _own_class(c) and not _allowed_base(c)
                  and type.__getattribute__(c, "__module__") != "builtins"]
        if not theirs:
            return cls
        core = [c for c in theirs if _deriving_refused(c)]
        if core:
            module = type.__getattribute__(core[0], "__module__")
            if module.partition(".")[0] in ("pytz", "dateutil"):
                raise TypeError(
                    'class "%s": deriving from the time zone "%s" is not allowed in the '
                    'sandbox: pandas caches a zone\'s transitions by its name, which a '
                    'subclass could give another zone; name the zone instead '
                    '(tz_convert("Europe/Paris"))'
                    % (type.__getattribute__(cls, "__name__"),
                       type.__getattribute__(core[0], "__name__")))
            raise TypeError(
                'class "%s": deriving from "%s" is not allowed in the sandbox: pandas and '
                'numpy classes trust their own attributes and methods, which a subclass '
                'could replace; hold the object in an attribute instead (self.df = df)'
                % (type.__getattribute__(cls, "__name__"),
                   type.__getattribute__(core[0], "__name__")))
        private = set()
        for c in mro:
            private |= _OWN_PRIVATE.get(c, frozenset())
        if any(getattr(c, "__module__", None) == "enum" for c in theirs):
            private -= _ENUM_HOOKS
        private = {n for n in private if not n.startswith("_abc_")}
        if private:
            raise TypeError(
                'class "%s": private names (%s) are not allowed in a class that '
                'derives from the library class "%s", whose code would call or set '
                'them with its internal objects; give them names without a leading "_"'
                % (type.__getattribute__(cls, "__name__"), ", ".join(sorted(private)),
                   type.__getattribute__(theirs[0], "__name__")))
        return cls
    return check


def compile_user_code(source, filename, function=None):
    """compile() for code that passed the validator: .format methods not
    taken from a string literal are checked at run time (guard_format_method),
    and so are the objects of a method's private attributes (guard_own_object).
    function is (name, params) for the body of a language function."""
    # decided on the tree, as the validator decides: the text can spell an
    # attribute so that no substring test sees it ("self. _x", "x.ｆｏｒｍａｔ")
    tree = ast.parse(source, filename)
    if function is not None:
        tree = function_tree(tree, *function, unreturned=True)
    own = own_attributes(tree)
    if own:
        tree = _OwnGuard(own).visit(tree)
    tree = _RunTimeGuards().visit(tree)
    tree = _OwnClassGuard().visit(tree)
    tree = _SetAttributeGuard().visit(tree)
    CODE_FILENAMES.add(filename)
    return compile(ast.fix_missing_locations(tree), filename, "exec", dont_inherit=True)


# the file names the code is compiled as: a class's pinned methods must be
# functions of the code's own (sb_build_class)
CODE_FILENAMES = set()


def is_allowed(fullname, allowed):
    """True if module `fullname` may be imported given the `allowed` names.

    A module is allowed when it or one of its parent packages is in
    `allowed`, it is not (under) a DENIED_SUBMODULES entry, and no component
    of its name is private.
    """
    parts = fullname.split(".")
    for part in parts:
        if not part or part.startswith("_") or part in DENIED_COMPONENTS:
            return False
    found = False
    prefix = ""
    for i, part in enumerate(parts):
        prefix = prefix + "." + part if prefix else part
        if prefix in DENIED_SUBMODULES and not any(
                ".".join(parts[:j]) in REOPENED_SUBMODULES for j in range(i + 2, len(parts) + 1)):
            return False
        if prefix in allowed:
            found = True
    return found


def _internals_hint(name):
    if isinstance(name, str) and (name == "pandas.core" or name.startswith("pandas.core.")):
        return ("; pandas' internals are not handed out: use its own names (pd.DataFrame, "
                "pd.Series, pd.merge) and pandas.api.types")
    if name == "pandas.util" or (isinstance(name, str) and name.startswith("pandas.util.")):
        # pd.util.hash_pandas_object (review 100)
        return ("; to hash rows, df.astype(str).agg(\"|\".join, axis=1).map(lambda s: "
                "hashlib.md5(s.encode()).hexdigest())")
    return ""


def _import_message(name, allowed):
    listed = ", ".join(sorted(allowed)) if allowed else "(none)"
    return 'import of module "%s" is not allowed%s; allowed modules: %s' % (
        name, _internals_hint(name), listed)


class SbModule:
    """Read-only proxy over a module that only hands out allowed modules.

    The wrapped module lives in a slot whose name starts with "_", and every
    attribute starting with "_" is refused, so the module itself is never
    reachable through the proxy.
    """

    __slots__ = ("_sb_module", "_sb_allowed", "_sb_cache")

    def __init__(self, module, allowed, cache=None):
        object.__setattr__(self, "_sb_module", module)
        object.__setattr__(self, "_sb_allowed", frozenset(allowed))
        object.__setattr__(self, "_sb_cache", {} if cache is None else cache)

    def __init_subclass__(cls, **kwargs):
        # A subclass could override __getattribute__ and unwrap the module.
        raise TypeError("SbModule cannot be subclassed")

    def __getattribute__(self, name):
        module = object.__getattribute__(self, "_sb_module")
        modname = module.__name__
        if name == "__version__":
            # which pandas this is (models write pandas 2 code): a str only
            version = getattr(module, name, None)
            if type(version) is str:
                return version
            if version is None:
                raise AttributeError('module "%s" has no attribute "__version__"' % modname)
        if name.startswith("_"):
            raise AttributeError('attribute "%s" of module "%s" is not '
                                 'allowed: names that begin with "_" are '
                                 'private' % (name, modname))
        try:
            value = getattr(module, name)
        except AttributeError as exc:
            # a fresh one: Python keeps the object of a failed lookup as
            # the error's .obj, and that is the real module
            message = str(exc)
        else:
            message = None
        if message is not None:
            raise AttributeError(message) from None
        if isinstance(value, _ModuleType):
            allowed = object.__getattribute__(self, "_sb_allowed")
            cache = object.__getattribute__(self, "_sb_cache")
            return _proxy(value, allowed, cache, modname)
        reason = forbidden_attribute_reason(name) or \
            MODULE_ATTRIBUTES.get(modname, {}).get(name)
        refused = _REFUSED.get(id(value))
        if refused is not None and refused[0] is value:
            reason = refused[1]
        if reason is None:
            reason = foreign_object_reason(value)
        if reason is not None:
            raise AttributeError('attribute "%s" of module "%s" is not '
                                 'allowed: %s' % (name, modname, reason))
        if modname == "warnings" and name == "filters" and type(value) is list:
            # a copy to read: the interpreter's own list, which native code
            # reads as it raises a warning, took an entry of the code's
            # whose match() ran there (review 135 F1): filterwarnings() and
            # simplefilter() add entries
            return tuple(value)
        # a pandas reader, however reached: the one that reads only memory
        return _SUBSTITUTES.get(id(value), value)

    def __setattr__(self, name, value):
        raise AttributeError('cannot set attribute "%s": sandboxed modules '
                             'are read-only' % name)

    def __delattr__(self, name):
        raise AttributeError('cannot delete attribute "%s": sandboxed '
                             'modules are read-only' % name)

    def __dir__(self):
        module = object.__getattribute__(self, "_sb_module")
        return sorted(n for n in dir(module) if not n.startswith("_"))

    def __repr__(self):
        module = object.__getattribute__(self, "_sb_module")
        return "<module %r (sandboxed)>" % (module.__name__,)


# objects a module proxy never hands out, by identity (refuse()): a library's
# entry points that trust their arguments or that write and run things
_REFUSED = {}


# modules whose functions and classes a module proxy never hands out, even
# as another module's attribute (matplotlib.Path is pathlib's, which opens
# and lists files; json.tool.Path, pandas.io.spss.Path too): they reach
# files, programs, imports or the interpreter, and the module itself is
# not allowed
FOREIGN_ORIGINS = frozenset({
    "importlib", "pathlib", "os", "posix", "posixpath", "nt", "ntpath", "genericpath",
    "tempfile", "shutil", "glob", "pkgutil", "runpy", "zipimport", "inspect", "code",
    "codeop", "pydoc", "linecache", "tokenize", "ctypes", "_ctypes", "subprocess",
    "_posixsubprocess", "pickle", "_pickle", "copyreg", "marshal", "shelve", "dbm",
    "unittest", "multiprocessing", "_multiprocessing", "threading", "socket", "_socket",
    "signal", "mmap", "gc", "sys", "pytest", "_pytest",
    "webbrowser", "urllib.request", "urllib.response", "urllib.error", "urllib.robotparser",
    "http", "ftplib", "sqlite3", "zipfile", "tarfile",
    # pandas' helpers that import a module by name and return it
    # (import_optional_dependency("builtins").eval, review 59) and open
    # files and URLs by name (get_handle, file_exists, urlopen)
    "pandas.compat._optional", "pandas.io.common", "pandas.util._test_decorators",
})
_REAL_BUILTINS = {}


_FOREIGN_SEEN = {}


def foreign_object_reason(value):
    """Why a module proxy must not hand out value, a function or class of
    a module in FOREIGN_ORIGINS (by its __module__), or one of the real
    builtins the sandbox replaces or leaves out; None otherwise.  Known
    per object (a module's attributes are looked up again and again)."""
    seen = _FOREIGN_SEEN.get(id(value))
    if seen is not None and seen[0] is value:
        return seen[1]
    reason = _foreign_object_reason(value)
    if len(_FOREIGN_SEEN) < 65536:
        _FOREIGN_SEEN[id(value)] = (value, reason)
    return reason


def _foreign_object_reason(value):
    real = _REAL_BUILTINS.get(id(value))
    if real is not None and real[0] is value:
        return "it is the real builtin %s, which the sandbox does not hand out" % real[1]
    if not callable(value) or isinstance(value, SbModule):
        return None
    try:
        origin = type.__getattribute__(value, "__module__") if isinstance(value, type) \
            else getattr(value, "__module__", None)
    except Exception:
        return None
    if not isinstance(origin, str):
        return None
    origin = str.__str__(origin)
    top = origin.partition(".")[0]
    if origin in FOREIGN_ORIGINS or top in FOREIGN_ORIGINS:
        # not "may not import": a DBA may have named it in
        # pysandbox.allowed_modules, which cannot allow it (review 109 F5)
        return ('it belongs to module "%s", whose functions and classes sandboxed code '
                'never gets, whatever pysandbox.allowed_modules says' % origin)
    return None


def refuse(obj, reason):
    """In the worker: never hand out obj through a module proxy, nor, if
    it is a class, as the type() of an instance."""
    _REFUSED[id(obj)] = (obj, reason)


# type(np) is the proxy class: called, it would proxy any object with any
# allowlist (its module-valued attributes handed out as allowed modules)
refuse(SbModule, "a module proxy is the sandbox's own; use the module itself")


def _proxy(module, allowed, cache, via=None):
    """Return the (cached) proxy for `module`, or raise if not allowed."""
    name = getattr(module, "__name__", None)
    # the real sys, traceback or logging, as another module's attribute:
    # the sandbox's own versions are imported by name only
    if not isinstance(name, str) or not is_allowed(name, allowed) or \
            name.partition(".")[0] in SHIMS:
        if via is None:
            raise ImportError(_import_message(name, allowed))
        raise AttributeError('access to module "%s" through "%s" is not '
                             'allowed%s' % (name, via, _internals_hint(name)))
    # Modules stay alive in sys.modules, so their id() is stable.
    proxy = cache.get(id(module))
    if proxy is None:
        proxy = SbModule(module, allowed, cache)
        cache[id(module)] = proxy
    return proxy


# modules that are not imported yet, and whether importing them would load
# native code (which a contained child cannot map)
_NATIVE = {}


def _loads_native_code(name):
    """Would importing module `name` load native code it has not loaded yet?

    Looks at the first part of the dotted name that is not imported: an
    extension module, or a package with one anywhere beneath it.  Nothing
    is imported to find out.
    """
    if name in sys.modules:
        return False
    parts = name.split(".")
    path = None
    for i, part in enumerate(parts):
        prefix = ".".join(parts[:i + 1])
        module = sys.modules.get(prefix)
        if module is not None:
            path = getattr(module, "__path__", None)
            continue
        if prefix not in _NATIVE:
            import importlib.machinery
            import os
            spec = importlib.machinery.PathFinder.find_spec(part, path)
            native = False
            if spec is not None:
                native = bool(spec.origin) and spec.origin.endswith(".so")
                for location in spec.submodule_search_locations or ():
                    for _dir, _dirs, files in os.walk(location):
                        if any(f.endswith(".so") for f in files):
                            native = True
                            break
            _NATIVE[prefix] = native
        return _NATIVE[prefix]
    return False


def note_native_modules(names):
    """In the worker: learn once which allowed modules that are not imported
    would need native code, so that children need not look."""
    for name in names:
        _loads_native_code(name)


# top-level packages of pysandbox.preload_modules, in a worker's children:
# the worker's preloaded process has them, and calls whose code names one
# are forked from it (sb_preloaded.c)
_PRELOADED_ELSEWHERE = set()


def preloaded_elsewhere(names):
    _PRELOADED_ELSEWHERE.clear()
    _PRELOADED_ELSEWHERE.update(n.partition(".")[0] for n in names)


# set per request: when a change of pysandbox.preload_modules made since the
# worker read it takes effect ("when the server restarts", "in a new
# session"), or None (review 117 F6, review 120 F4)
PRELOAD_CHANGE = [None]


def _not_preloaded_message(name):
    top = name.partition(".")[0]
    if top in _PRELOADED_ELSEWHERE:
        return ('module "%s" is not available to this call: preloaded modules are '
                'given only to calls whose code names their package; import "%s" '
                'by name in the code (for example "import %s")' % (name, top, top))
    return ('module "%s" is allowed but was not preloaded, and it loads native '
            'code, which a sandboxed process cannot do; an administrator can add '
            'it to pysandbox.preload_modules%s' % (name, (
                " (a change to it made already takes effect %s)" % PRELOAD_CHANGE[0]
                if PRELOAD_CHANGE[0] else "")))


class _FutureFeatures:
    """What "from __future__ import x" binds x to in the sandbox: the
    feature's name (the directive itself acts at compile time)."""

    def __getattribute__(self, name):
        if name in _FUTURE_FEATURES:
            return name
        raise AttributeError(name)


_FUTURE_FEATURES = frozenset(__future__.all_feature_names)
_FUTURE = _FutureFeatures()


# modules the sandbox has its own version of (sb_shims registers them):
# name -> a function that makes a fresh one
SHIMS = {}


def _import_shim(name, fromlist, allowed, cache):
    """The sandbox's own sys, traceback or logging: one per call's import
    function (its state, a logging configuration, lives as long as that)."""
    if name not in SHIMS:
        raise ImportError('module "%s" is not available in the sandbox: "%s" is the '
                          "sandbox's own version, without submodules; its names: %s"
                          % (name, name.partition(".")[0],
                             ", ".join(dir(_import_shim(name.partition(".")[0], (),
                                                        allowed, cache)))))
    key = ("shim", name)
    proxy = cache.get(key)
    if proxy is None:
        proxy = cache[key] = SbModule(SHIMS[name](name), allowed, cache)
    for item in fromlist or ():
        if not isinstance(item, str):
            raise TypeError("item in fromlist must be str, not %s" % type(item).__name__)
        if item == "*":
            raise ImportError('"from %s import *" is not allowed; import '
                              'the names you need' % name)
        try:
            getattr(proxy, item)
        except AttributeError as exc:
            raise ImportError(str(exc)) from None
    return proxy


def partial_package(name, allowed):
    """For "import a.b" and "from a import b" where a.b is allowed but the
    package a is not (dateutil.parser): the package's name, else None."""
    top, dot, rest = name.partition(".")
    if not dot or is_allowed(top, allowed) or not is_allowed(name, allowed):
        return None
    return top if is_allowed(top + "." + rest.partition(".")[0], allowed) else None


def _partial_package(top, allowed, cache):
    """What "import dateutil.parser" binds dateutil to when only dateutil's
    allowed submodules are: a module of its own holding those the code
    imported, never the package itself (whose other names the allowlist
    does not give)."""
    key = ("partial", top)
    proxy = cache.get(key)
    if proxy is None:
        holder = _ModuleType(top)

        def __getattr__(name):
            if type(name) is str and is_allowed(top + "." + name, allowed):
                raise AttributeError('module "%s.%s" is not imported: add "import %s.%s"'
                                     % (top, name, top, name))
            raise AttributeError(_import_message(top + "." + name, allowed))
        holder.__getattr__ = __getattr__
        proxy = cache[key] = (holder, SbModule(holder, allowed, cache))
    return proxy


def _import_into_partial(top, item, allowed, cache):
    """Import top.item (an allowed submodule) into top's partial package."""
    name = top + "." + item
    if not is_allowed(name, allowed):
        raise ImportError(_import_message(name, allowed))
    if _loads_native_code(name):
        raise ImportError(_not_preloaded_message(name))
    _real_import(name, None, None, (), 0)
    module = sys.modules.get(name)
    if not isinstance(module, _ModuleType):
        raise ImportError(_import_message(top, allowed))
    holder, proxy = _partial_package(top, allowed, cache)
    setattr(holder, item, module)
    return proxy


def make_import(allowed):
    """Return an __import__ replacement enforcing the `allowed` modules."""
    allowed = frozenset(allowed)
    cache = {}

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        # C code inside numpy and pandas imports through PyImport_Import,
        # which finds this function in the calling (user) frame's builtins
        # and passes fromlist as a list.  Import statements pass None or a
        # tuple, and user code cannot call __import__ directly (dunder names
        # are rejected), so a list means the library itself is importing:
        # it gets the real module it needs.
        if type(fromlist) is list and level == 0:
            return _real_import(name, globals, locals, fromlist, 0)
        if level != 0:
            raise ImportError("relative imports are not allowed")
        if not isinstance(name, str):
            raise TypeError("module name must be str, not %s"
                            % type(name).__name__)
        name = exact_str(name)
        if fromlist:
            fromlist = tuple(exact_str(item) for item in fromlist)
        if name == "__future__" and type(name) is str and fromlist and all(
                type(f) is str and f in _FUTURE_FEATURES for f in fromlist):
            # "from __future__ import annotations": its directive took effect
            # when the code was compiled; the names are plain objects
            return _FUTURE
        fromlist = tuple(fromlist or ())
        if not is_allowed(name, allowed):
            if fromlist and "." not in name and all(
                    type(item) is str and partial_package(name + "." + item, allowed)
                    for item in fromlist):
                # from dateutil import parser (only dateutil.parser allowed)
                for item in fromlist:
                    proxy = _import_into_partial(name, item, allowed, cache)
                return proxy
            raise ImportError(_import_message(name, allowed))
        top = name.partition(".")[0]
        if not fromlist and partial_package(name, allowed):
            # import dateutil.parser: binds dateutil, the partial package
            proxy = _import_into_partial(top, name.split(".")[1], allowed, cache)
            if name.count(".") > 1:
                if _loads_native_code(name):
                    raise ImportError(_not_preloaded_message(name))
                _real_import(name, None, None, (), 0)
            return proxy
        if top in SHIMS:
            return _import_shim(name, fromlist, allowed, cache)
        if not fromlist:
            # "import a.b.c" binds "a": it must be allowed on its own.
            top = name.partition(".")[0]
            if not is_allowed(top, allowed):
                raise ImportError(_import_message(top, allowed))
        for item in fromlist:
            if not isinstance(item, str):
                raise TypeError("item in fromlist must be str, not %s"
                                % type(item).__name__)
            if item == "*":
                raise ImportError('"from %s import *" is not allowed; import '
                                  'the names you need' % name)
            # Checked before the real import, which would import the
            # submodule as a side effect.
            if not is_allowed(name + "." + item, allowed):
                raise ImportError(_import_message(name + "." + item, allowed))
        if _loads_native_code(name):
            raise ImportError(_not_preloaded_message(name))
        parent = sys.modules.get(name)
        for item in fromlist:
            # a name the module has is no submodule to import
            if (parent is None or not hasattr(parent, item)) and \
                    _loads_native_code(name + "." + item):
                raise ImportError(_not_preloaded_message(name + "." + item))
        module = _real_import(name, None, None, fromlist, 0)
        proxy = _proxy(module, allowed, cache)
        # Resolve every name now: when IMPORT_FROM fails it falls back to
        # sys.modules, which would hand out the real, unproxied module.
        for item in fromlist:
            try:
                getattr(proxy, item)
            except AttributeError as exc:
                raise ImportError(str(exc)) from None
        return proxy

    return __import__


def read_attribute_problem(name):
    """attribute_problem() for a read: READABLE_DUNDERS pass."""
    return None if name in READABLE_DUNDERS else attribute_problem(name)


def _attribute_name(name):
    """The attribute name as an exact str (a subclass's own methods decide
    nothing of the check), or TypeError."""
    if not isinstance(name, str):
        raise TypeError("attribute name must be string, not '%s'"
                        % type(name).__name__)
    return str.__str__(name)


def sb_getattr(*args, **kwargs):
    """getattr() that refuses the attribute names the validator refuses
    (the name may be computed: it is checked here, as it is looked up)."""
    if kwargs:
        raise TypeError("getattr() takes no keyword arguments")
    if not 2 <= len(args) <= 3:
        raise TypeError("getattr expected 2 or 3 arguments, got %d"
                        % len(args))
    name = _attribute_name(args[1])
    problem = read_attribute_problem(name)
    if problem is not None:
        raise AttributeError(problem[1])
    return getattr(args[0], name, *args[2:])


# attributes the code may not set on any object: numpy's check of an
# array's new strides overflows (any address)
NO_SET_ATTRIBUTES = {
    "strides": "numpy's check of an array's strides overflows; make the array you "
               "need with reshape, transpose or np.lib.stride_tricks.sliding_window_view",
}
# the builtin "obj.data = value" is compiled to (compile_user_code)
SET_DATA_GUARD_NAME = "__sb_set_data__"
_NDARRAY = [None]       # numpy.ndarray, once harden_numpy ran


def guard_set_data(obj, value):
    """obj.data = value: not on a numpy array (its bytes would be read as
    whatever its dtype says: objects are pointers)."""
    if _NDARRAY[0] is not None and isinstance(obj, _NDARRAY[0]):
        raise AttributeError('setting the "data" of a numpy array is not allowed in the '
                             'sandbox; make a new array, as np.frombuffer(value, dtype)')
    setattr(guard_settable(obj, "data"), "data", value)


def sb_setattr(obj, name, value, /):
    """setattr() with the rules of obj.name = value (the name may be
    computed: it is checked here, as it is set)."""
    name = _attribute_name(name)
    problem = attribute_problem(name)
    if problem is None and name in NO_SET_ATTRIBUTES:
        problem = (None, 'setting attribute "%s" is not allowed: %s'
                   % (name, NO_SET_ATTRIBUTES[name]))
    if problem is not None:
        raise AttributeError(problem[1])
    if name == "data":
        guard_set_data(obj, value)
        return
    setattr(guard_settable(obj, name), name, value)


def sb_delattr(obj, name, /):
    """delattr() with the rules of del obj.name."""
    name = _attribute_name(name)
    problem = attribute_problem(name)
    if problem is not None:
        raise AttributeError(problem[1])
    delattr(guard_settable(obj, name, True), name)


# obj.name = value, and del obj.name, in any target (for, with, unpacking,
# augmented) are compiled with the object checked first:
# __sb_settable__(obj, "name").name = value (_SetAttributeGuard)
SETTABLE_GUARD_NAME = "__sb_settable__"
_MISSING = object()


_CLASS_DICT = type.__dict__["__dict__"].__get__      # a class's own namespace


def _made_by_code(cls):
    """A class the code made: its class statement (and namedtuple,
    NamedTuple, Enum called by it) gives "__sandbox__" as its module,
    make_dataclass "types".  A library class's __module__ cannot be set
    to either: the code sets no dunder attribute of anything."""
    own = type.__getattribute__(cls, "__dict__")
    module = own.get("__module__")
    return module == "__sandbox__" or (module == "types" and "__dataclass_fields__" in own)


def _data_descriptor(value):
    """A property, a slot, pandas' cache_readonly: setting the attribute on
    an instance goes through the class's own setter (which may refuse)."""
    for c in type.__getattribute__(type(value), "__mro__"):
        own = type.__getattribute__(c, "__dict__")
        if "__set__" in own or "__delete__" in own:
            return True
    return False


def _callable_member(value):
    return callable(value) or isinstance(value, (classmethod, staticmethod))


def _library_of(cls):
    """Whose class cls is, for a message: pandas, numpy, Python."""
    module = type.__getattribute__(cls, "__module__")
    top = module.partition(".")[0] if isinstance(module, str) else ""
    if not top or top.startswith("_") or top.startswith("sb_") or top == "builtins" or \
            top in sys.stdlib_module_names:
        return "Python"         # sb_shims: the sandbox's logging, made for each call
    return top


# What a str or bytes subclass of the code's may define of its own: the
# text's behaviour stays str's (or bytes'), which library code relies on
# when it is handed one (review 53: its startswith() passed the name
# checks, its lower() chose matplotlib's backend module, its __hash__ and
# __eq__ made a namespace key found as any name)
_TEXT_OWN_NAMES = frozenset({"__doc__", "__format__", "__new__", "__repr__", "__str__"})
_TEXT_NAMES = frozenset(str.__dict__) | frozenset(bytes.__dict__) | frozenset({
    "__getattribute__", "__getattr__", "__class__", "__instancecheck__"})
# ... and so of a date, datetime, time or timedelta subclass: pandas' C code
# reads a moment's fields (month), isoformat(), total_seconds() and value by
# name and trusts what they give: a month property of 10**6 indexed its
# calendar tables past their end, an isoformat() returning a tuple was read
# as bytes (its item pointers: addresses), a raising total_seconds() was a
# NULL it read (review 160 F3, F4)
_MOMENT_TYPES = (datetime.date, datetime.time, datetime.timedelta)
_MOMENT_NAMES = frozenset(datetime.date.__dict__) | frozenset(datetime.datetime.__dict__) | \
    frozenset(datetime.time.__dict__) | frozenset(datetime.timedelta.__dict__) | frozenset({
        "value", "__getattribute__", "__getattr__", "__class__", "__instancecheck__"})
_KEPT_NAMES = _TEXT_NAMES | _MOMENT_NAMES
_KEPT_TYPES = (str, bytes) + _MOMENT_TYPES
_KEPT_BASES = frozenset({str, bytes, datetime.date, datetime.datetime, datetime.time,
                         datetime.timedelta})


def _kept_names(cls):
    """The names a subclass cls of str, bytes or a moment type may not
    define of its own; an empty set for any other class."""
    if issubclass(cls, (str, bytes)):
        return _TEXT_NAMES
    if issubclass(cls, _MOMENT_TYPES):
        return _MOMENT_NAMES
    return frozenset()


def _text_classes(cls):
    """cls and the classes below it (the code's, all made here) that are
    subclasses of str, bytes or a moment type other than those types."""
    found, todo, seen = [], [cls], set()
    while todo:
        c = todo.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        if issubclass(c, _KEPT_TYPES) and c not in _KEPT_BASES:
            found.append(c)
        try:
            todo.extend(type.__subclasses__(c))
        except TypeError:
            pass
    return found


def _text_override(cls, name, mixins=True):
    """Does setting name on cls (or its instances) change what a str or
    bytes subclass (or a moment type's) does?  cls: a class; with mixins, a
    mixin of one counts too (review 54: class H(M, str) took M's split(),
    __eq__ and __hash__): a store on the class, not on an instance of it."""
    if name not in _KEPT_NAMES or name in _TEXT_OWN_NAMES or cls in _KEPT_BASES:
        return False
    if issubclass(cls, _KEPT_TYPES):
        return name in _kept_names(cls)
    return mixins and _CLASS_DICT(cls).get("__module__") == "__sandbox__" and \
        any(name in _kept_names(c) for c in _text_classes(cls))


def text_class_problem(cls):
    """Why the code's class cls, a subclass of str, bytes or a moment type,
    is refused, or None: no class of the code's in its MRO, a mixin
    included, may define a name its kind defines (but _TEXT_OWN_NAMES)."""
    names = _kept_names(cls)
    for base in type.__getattribute__(cls, "__mro__"):
        if base in _KEPT_BASES or base is object:
            continue
        if not issubclass(base, _KEPT_TYPES) and \
                _CLASS_DICT(base).get("__module__") != "__sandbox__":
            continue            # a library's mixin (enum.Enum, ReprEnum)
        for name in type.__getattribute__(base, "__dict__"):
            if name not in names or name in _TEXT_OWN_NAMES:
                continue
            if names is _TEXT_NAMES:
                return ('class "%s": defining "%s" in a subclass of %s is not allowed in the '
                        'sandbox: library code handed one uses it as text; keep the text in '
                        'an attribute, or define methods of other names'
                        % (type.__getattribute__(cls, "__name__"), name,
                           "str" if issubclass(cls, str) else "bytes"))
            kind = next(k for k in (datetime.datetime, datetime.date, datetime.time,
                                    datetime.timedelta) if issubclass(cls, k))
            return ('class "%s": defining "%s" in a subclass of datetime.%s is not allowed in '
                    'the sandbox: pandas reads a %s\'s fields and methods by name from its C '
                    'code; keep the value in an attribute, or define methods of other names'
                    % (type.__getattribute__(cls, "__name__"), name, kind.__name__,
                       kind.__name__, ))
    return None


# the code's classes on whose instances any name may be set or deleted (no
# str, bytes or numpy array among their bases): a store on one costs a set
# lookup (review 123 F4: self.total += x ran 5-10 times slower than plain
# Python).  What decides it never changes for a class; emptied when a call
# ends (sb_runtime._clean_between_calls), so no class outlives its call here
OWN_PLAIN_CLASSES = set()


def guard_settable(obj, name, deleting=False):
    """The object of obj.name = value or del obj.name, checked.  A class the
    code did not make is not changed: a library's classes are shared by
    everything the process runs after the statement, pysandbox's own reading
    of a workspace's next inputs and pandas' native code included (pd.Categorical.codes replaced by a
    property of the code's made pandas take codes past the categories; a
    DatetimeArray method replaced in one call ran in the next call's input
    decoding).  On an instance of a pandas or numpy class, a name its class
    defines other than as a property (a method, a class attribute) is not
    hidden, which is what deriving from the class would do (refused:
    _deriving_refused).  Everything else is set as Python sets it."""
    cls = type(obj)
    if cls in OWN_PLAIN_CLASSES:
        return obj
    if _NDARRAY[0] is not None and isinstance(obj, _NDARRAY[0]) and \
            exact_str(name) == "shape" and not deleting:
        # numpy frees the old shape and strides for new ones, which native
        # code holding the array still reads (matplotlib's array views:
        # the freed block, refilled by another array's strides, read the
        # heap; review 161 F3)
        raise TypeError('setting attribute "shape" of an array is not allowed in the sandbox: '
                        'native code holding the array keeps its old shape; use '
                        'a = a.reshape(shape), which gives a view')
    if _NDARRAY[0] is not None and isinstance(obj, _NDARRAY[0]) and \
            exact_str(name) == "dtype" and not deleting:
        # in place, the same bytes read as another type: an IntegerArray's
        # values 8x as long as its mask, which pandas' hash tables then
        # read past (review 60 F4)
        raise TypeError('setting attribute "dtype" of an array is not allowed in the sandbox: '
                        'other objects (pandas\' arrays) may share its memory; use '
                        'a.view(dtype) or a.astype(dtype)')
    if _text_override(obj if isinstance(obj, type) else cls, exact_str(name),
                      isinstance(obj, type)):
        target = obj if isinstance(obj, type) else cls
        if issubclass(target, _MOMENT_TYPES) or not issubclass(target, (str, bytes)) and \
                exact_str(name) not in _TEXT_NAMES:
            raise TypeError('%s attribute "%s" of a date, time or timedelta subclass is not '
                            'allowed: pandas reads it by name from its C code'
                            % ("deleting" if deleting else "setting", exact_str(name)))
        raise TypeError('%s attribute "%s" of a str or bytes subclass is not allowed: '
                        'library code handed one uses it as text'
                        % ("deleting" if deleting else "setting", exact_str(name)))
    if _CLASS_DICT(cls).get("__module__") == "__sandbox__":
        # an instance of the code's class (it derives from no type)
        if not issubclass(cls, _KEPT_TYPES) and len(OWN_PLAIN_CLASSES) < 1024 and \
                (_NDARRAY[0] is None or not issubclass(cls, _NDARRAY[0])):
            OWN_PLAIN_CLASSES.add(cls)
        return obj
    if issubclass(cls, type):
        if _made_by_code(obj):
            if exact_str(name) == "dtype" and not deleting:
                # a property stored there later than class_problem's check
                # ran the code inside numpy's dtype conversion (review 170)
                raise TypeError('setting attribute "dtype" of a class is not allowed in the '
                                'sandbox: numpy reads it in the middle of its own work; '
                                'give it in the class body, or set self.dtype on instances')
            return obj
        name_of = type.__getattribute__(obj, "__name__")
        library = _library_of(obj)
        if _deriving_refused(obj) or issubclass(obj, type) or \
                type.__getattribute__(obj, "__module__") == "builtins":
            instead = "write a function that takes the object instead"
        else:
            instead = ('derive a class of your own instead (class My%s(%s): ...)'
                       % (name_of, name_of))
        raise TypeError('%s attribute "%s" of class "%s" is not allowed: %s classes '
                        'are shared by everything this process runs after the statement, '
                        'pysandbox\'s own code included; %s'
                        % ("deleting" if deleting else "setting", name, name_of,
                           library + ("'" if library.endswith("s") else "'s"), instead))
    if deleting or _made_by_code(cls):
        return obj
    # a library class's answer for a name does not change (no class of a
    # library's is changed): kept, so that a loop setting df.x costs one lookup
    key = (cls, name)
    problem = _HIDING.get(key, _MISSING)
    if problem is _MISSING:
        if len(_HIDING) > 4096:         # names computed by the code: setattr(df, name)
            _HIDING.clear()
        problem = _HIDING[key] = _hiding_problem(cls, name)
    if problem is not None:
        raise TypeError(problem)
    return obj


# (a library's class, a name) -> why an instance may not set it, or None
_HIDING = {}


def _hiding_problem(cls, name):
    for c in type.__getattribute__(cls, "__mro__"):
        found = type.__getattribute__(c, "__dict__").get(name, _MISSING)
        if found is _MISSING:
            continue
        if _deriving_refused(c) and not _data_descriptor(found):
            return ('setting attribute "%s" of a "%s" object is not allowed: it would '
                    'hide the %s of class "%s" that %s itself %s; write a function '
                    'that takes the object instead'
                    % (name, type.__getattribute__(cls, "__name__"),
                       "method" if _callable_member(found) else "attribute",
                       type.__getattribute__(c, "__name__"), _library_of(c),
                       "calls" if _callable_member(found) else "reads"))
        return None
    return None


def sb_hasattr(obj, name, /):
    """hasattr(): any name, since only True or False comes back
    (hasattr(x, "__len__") is a common test of a protocol)."""
    return hasattr(obj, _attribute_name(name))


def sb_type(*args, **kwargs):
    """One-argument type(): returns the type of an object.

    The three-argument form would build classes (and dunder methods) from a
    dict, so it is refused.  It is a function, not the real type:
    isinstance() and issubclass() take it for the class of classes.
    """
    if len(args) != 1 or kwargs:
        raise TypeError("type() takes exactly one argument in the sandbox; "
                        "use a class statement to define a class")
    found = type(args[0])
    refused = _REFUSED.get(id(found))
    if refused is not None and refused[0] is found:
        raise TypeError('type() of a "%s" is not allowed in the sandbox: %s'
                        % (found.__name__, refused[1]))
    if issubclass(found, type):
        # type(int) is type, type(abc.ABC) ABCMeta: called with a dict,
        # either builds a class with any special methods
        raise TypeError("type() of a class is not allowed in the sandbox: it is a metaclass, "
                        "which builds classes; compare classes with is or issubclass()")
    substitute = _TYPE_SUBSTITUTES.get(id(found))
    if substitute is not None:
        return substitute
    if id(found) in _SUBSTITUTES:
        # operator.attrgetter's class: the module hands out a checked copy
        raise TypeError('type() of a "%s" is not allowed in the sandbox: its module hands '
                        'out a checked copy; call that' % found.__name__)
    return found


_MASK = []            # sb_io.mask_address, once found


def _mask(value):
    """value (an address, a hash) through the worker's keyed permutation
    of 64-bit numbers (src/worker/sb_addrguard.c), the one the reprs that
    print an address print it through."""
    if not _MASK:
        try:
            import sb_io
            _MASK.append(sb_io.mask_address)
        except ImportError:              # unit tests without the worker's module
            import os
            odd, key = (int.from_bytes(os.urandom(8), "little") | 1 for _ in range(2))
            _MASK.append(lambda n: ((n * odd) & 0xFFFFFFFFFFFFFFFF) ^ key)
    return _MASK[0](value & 0xFFFFFFFFFFFFFFFF)


def sb_id(obj, /):
    """id(): distinct and constant for an object while it lives, as
    Python's, but not its address (memory exploits start from one); the
    number "at 0x..." in a default repr shows."""
    return _mask(id(obj))


def _types_for_isinstance(classinfo):
    """isinstance(x, type): the sandbox's type() is a function, so the
    class it stands for is put back (in a tuple too, as Python nests them)."""
    if classinfo is sb_type:
        return type
    if type(classinfo) is tuple:
        return tuple(_types_for_isinstance(c) for c in classinfo)
    return classinfo


def sb_isinstance(obj, classinfo, /):
    """isinstance(), where type means the class of classes."""
    if classinfo is sb_type or type(classinfo) is tuple:
        classinfo = _types_for_isinstance(classinfo)
    return isinstance(obj, classinfo)


def sb_issubclass(cls, classinfo, /):
    """issubclass(), where type means the class of classes."""
    if classinfo is sb_type or type(classinfo) is tuple:
        classinfo = _types_for_isinstance(classinfo)
    return issubclass(cls, classinfo)


def sb_vars(*args):
    """vars(obj) of an object of the code's own classes: its attributes,
    the object's own dictionary (vars(self).update(options) sets them).
    Without an argument (the local names) or for any other object (a
    module's or a library class's namespace) it is refused."""
    if len(args) != 1:
        raise TypeError("vars() without an argument is not allowed in the sandbox: it "
                        "would show the local names; pass it an object of a class the "
                        "code defines")
    obj = args[0]
    cls = type(obj)
    if isinstance(obj, type) or not _own_class(cls) or not all(
            _own_class(c) or _allowed_base(c)
            for c in type.__getattribute__(cls, "__mro__")):
        what = "a module" if cls is SbModule else \
            'a "%s"' % type.__getattribute__(cls, "__name__")
        raise TypeError("vars() of %s is not allowed in the sandbox: only objects of "
                        "the classes the code defines show their attributes; use dir() "
                        "or the object's own methods" % what)
    try:
        real = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        raise TypeError("vars() argument must have __dict__ attribute") from None
    return OwnAttributes(real)


def _own_attribute_name(key):
    """A key written through vars(obj): an attribute name as obj.name = value
    would bind it.  A name that begins with "__" shadows, on the instance,
    what libraries look up by getattr (copy's __reduce_ex__ and
    __deepcopy__, numpy's __array_interface__: an array over any address);
    a key that is not an exact str may hash and compare equal to one."""
    if type(key) is not str:
        raise TypeError("an attribute name of type %s is not allowed in the sandbox "
                        "(vars()): attribute names are strings" % type(key).__name__)
    if key.startswith("__"):
        raise AttributeError('name "%s" is not allowed: names that begin with "__" '
                             'are reserved' % key)
    return key


class OwnAttributes(dict):
    """vars(obj) of an object of the code's own classes: a dict of its
    attributes (as they are when vars() is called) whose changes are made
    on the object too, each name checked (_own_attribute_name).  The
    object's own __dict__ is not handed out: a write to it is no setattr,
    and was never checked."""

    __slots__ = ("_sb_real",)

    def __init__(self, real):
        dict.__init__(self, real)
        object.__setattr__(self, "_sb_real", real)

    def _sb_items(self, args, kwargs):
        items = dict(*args, **kwargs)
        for key in items:
            _own_attribute_name(key)
        return items

    def __setitem__(self, key, value):
        _own_attribute_name(key)
        self._sb_real[key] = value
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        del self._sb_real[_own_attribute_name(key)]
        dict.pop(self, key, None)

    def update(self, *args, **kwargs):
        items = self._sb_items(args, kwargs)
        self._sb_real.update(items)
        dict.update(self, items)

    def __ior__(self, other):
        self.update(other)
        return self

    def setdefault(self, key, default=None):
        _own_attribute_name(key)
        value = self._sb_real.setdefault(key, default)
        dict.__setitem__(self, key, value)
        return value

    def pop(self, key, *default):
        _own_attribute_name(key)
        value = self._sb_real.pop(key, *default)
        dict.pop(self, key, None)
        return value

    def popitem(self):
        key, value = dict.popitem(self)
        self._sb_real.pop(key, None)
        return key, value

    def clear(self):
        self._sb_real.clear()
        dict.clear(self)

    def __reduce__(self):
        return (dict, (dict(self),))


def sb_open(*args, **kwargs):
    """open(): refused.  User code cannot name it (the validator refuses
    the name); native code looking for the builtins' open finds it."""
    raise PermissionError("opening files is not allowed in the sandbox: pass data "
                          "through inputs, or use io.StringIO / io.BytesIO")


# Tracebacks and reprs should show the names user code called.
for _fn, _name in ((sb_getattr, "getattr"), (sb_hasattr, "hasattr"),
                   (sb_type, "type"), (sb_open, "open"), (sb_vars, "vars"),
                   (sb_isinstance, "isinstance"), (sb_issubclass, "issubclass")):
    _fn.__name__ = _fn.__qualname__ = _name
del _fn, _name


# The binary special methods of the code's classes, which CPython calls
# with operands it may not own: list's ordering comparison (gh-120298) and
# deque.index() (gh-115243) compare items they only borrow, and a method
# that empties the container and returns NotImplemented freed the other
# operand before CPython called its reflected method on it (the code then
# held a reference to freed memory, which a bytes object filled: a fake
# bytearray over all memory).  The operands of a call that returns
# NotImplemented are kept for the rest of the call (a child serves one).
# The binary operators a class may define (sb_validator), each with its
# reflected (__radd__) and in-place (__iadd__) form.
BINARY_OPERATORS = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow",
                    "and", "or", "xor", "lshift", "rshift")
PINNED_METHODS = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__divmod__", "__rdivmod__",
} | {"__%s%s__" % (prefix, op) for op in BINARY_OPERATORS for prefix in ("", "r", "i")})
PINNED = {}     # cleared when a child that serves on ends a call
_real_build_class = builtins.__build_class__


def _pinning(name, method):
    # A reserved name ("__array_interface__") is never equal to an object
    # of the code's: with a __hash__ of the name's and an __eq__ answering
    # True, an object stored as a key in a namespace (a class's made by a
    # library, an instance's __dict__) was found as that name (reviews
    # 53-55: each way in was closed where it stored the key; this closes
    # the class).  No other comparison with text changes.
    reserved = {"__eq__": False, "__ne__": True}.get(name)

    def pinned(self, other, *rest):
        if reserved is not None and issubclass(type(other), str) and \
                str.startswith(other, "__"):
            return reserved
        result = method(self, other, *rest)
        if result is NotImplemented:
            PINNED[id(self)] = self
            PINNED[id(other)] = other
        return result
    pinned.__name__ = name
    pinned.__qualname__ = getattr(method, "__qualname__", name)
    pinned.__doc__ = getattr(method, "__doc__", None)
    pinned.__module__ = getattr(method, "__module__", None)
    return pinned


# The conversions native code calls in the middle of its own work (a
# buffer's index, a slice's bounds, a byte's value): the validator keeps them
# out of the code's class bodies, and a class of the code's may not inherit
# one written in Python either, whose Python calls what the code defines
# (numbers.Integral's __index__ is int(self), Fraction's __int__ computes
# with the numerator a property of the code's gave: review 73 ran the code
# inside bytearray's item assignment, which then wrote through a freed
# buffer).  Native implementations (int's, float's, numpy's) run no Python.
CONVERSIONS = ("__index__", "__int__", "__float__", "__complex__", "__trunc__")
_NATIVE_METHOD_TYPES = (types.WrapperDescriptorType, types.MethodDescriptorType,
                        types.BuiltinFunctionType, types.MethodWrapperType,
                        types.ClassMethodDescriptorType)


# Builtin classes whose C state only their own __init__ sets, read by C
# code that does not check for it (review 85): an __init__ of the code's
# that skipped the base's left it NULL (a staticmethod's function: calling
# it, gh-144330; a StopIteration's value: yield from it) and crashed the
# child.  Such a class may not have an __init__ of the code's.
_INIT_ONLY_STATE = (
    (staticmethod, "an instance whose function the base's __init__ did not set crashes "
                   "when called"),
    (StopIteration, "an instance whose value the base's __init__ did not set crashes "
                    "yield from; raise StopIteration(value)"),
)


# What a class may hold as "dtype": numpy's dtype conversion reads an
# object's dtype attribute with the items of a field list borrowed (a list
# of ("name", obj) pairs, _convert_from_array_descr): a property of the
# code's emptied the list or freed a field's title, which numpy then read
# and stored (review 170 F1: SIGSEGV, and a freed object reused).  These run
# no Python when read: a function binds, and the rest are numpy's and
# Python's own slots.
_QUIET_DESCRIPTORS = (types.FunctionType, staticmethod, classmethod, types.GetSetDescriptorType,
                      types.MemberDescriptorType,
                      type(collections.namedtuple("_Field", "dtype").dtype)  # a field's
                      ) + _NATIVE_METHOD_TYPES


def class_problem(cls):
    """Why cls may not be a class of the code's, or None: it inherits a
    conversion written in Python, defines __init__ where C state only the
    builtin base's sets (_INIT_ONLY_STATE), or overrides an exception group's split()
    or subgroup() (except* trusts their result as a tuple, gh-128049: a
    bytes object's bytes were read as an object pointer; except* is refused,
    and this stays so if it is ever allowed: review 80).  For every maker of
    the code's classes: class statements, make_dataclass, Enum()."""
    mro = type.__getattribute__(cls, "__mro__")
    if issubclass(cls, BaseExceptionGroup) and any(
            name in type.__getattribute__(c, "__dict__") for c in mro
            if issubclass(c, BaseExceptionGroup) and c is not BaseExceptionGroup
            and c is not ExceptionGroup for name in ("split", "subgroup")):
        return ('class "%s": overriding split() or subgroup() of an exception group is not '
                'allowed in the sandbox' % type.__getattribute__(cls, "__name__"))
    for base, why in _INIT_ONLY_STATE:
        if issubclass(cls, base):
            for c in mro[:mro.index(base)]:
                if "__init__" in type.__getattribute__(c, "__dict__"):
                    return ('class "%s": defining __init__ in a class that derives from "%s" '
                            'is not allowed in the sandbox: %s; give the class no __init__'
                            % (type.__getattribute__(cls, "__name__"),
                               type.__getattribute__(base, "__name__"), why))
    for c in mro:
        found = type.__getattribute__(c, "__dict__").get("dtype", _MISSING)
        if found is _MISSING:
            continue
        # (a library class's own dtype runs the library's code: a class
        # deriving from one is refused or allowed on its own grounds)
        if _made_by_code(c) and hasattr(type(found), "__get__") and \
                type(found) not in _QUIET_DESCRIPTORS:
            return ('class "%s": "dtype" as a %s is not allowed in the sandbox: numpy reads '
                    'an object\'s dtype in the middle of its own work, where no Python may '
                    'run; set self.dtype = ... in __init__, or name the property otherwise'
                    % (type.__getattribute__(cls, "__name__"), type(found).__name__))
        break
    for name in CONVERSIONS:
        for c in mro:
            found = type.__getattribute__(c, "__dict__")
            if name not in found:
                continue
            method = found[name]
            if method is not None and type(method) not in _NATIVE_METHOD_TYPES:
                return ('class "%s": deriving from "%s" is not allowed in the sandbox: it '
                        'brings %s written in Python, and no Python runs inside a conversion; '
                        'hold the value in an attribute instead and convert with a method of '
                        'your own (def as_number(self): ...)'
                        % (type.__getattribute__(cls, "__name__"),
                           type.__getattribute__(c, "__name__"), name))
            break
    return None


def sb_build_class(func, name, /, *bases, **kwargs):
    """__build_class__ for a class statement: the class's binary special
    methods keep their operands alive when they return NotImplemented
    (PINNED_METHODS).  Each must be a function (def or lambda)."""
    cls = _real_build_class(func, name, *bases, **kwargs)
    if not isinstance(cls, type):
        return cls
    problem = class_problem(cls)
    if problem is not None:
        raise TypeError(problem)
    if issubclass(cls, _KEPT_TYPES):
        problem = text_class_problem(cls)
        if problem is not None:
            raise TypeError(problem)
    for attr, method in list(type.__getattribute__(cls, "__dict__").items()):
        if attr not in PINNED_METHODS or method is None:
            continue
        if type(method) is not types.FunctionType:
            raise TypeError('"%s" of class "%s" must be a function (def) in the sandbox'
                            % (attr, name))
        # a decorator may return a library's function (UserList.append as
        # __eq__ appended the compared object to what self.data was: run
        # by a dict's comparison as an object died, review 138 F1)
        if method.__code__.co_filename not in CODE_FILENAMES and not any(
                type.__getattribute__(base, "__dict__").get(attr) is method
                for base in type.__getattribute__(cls, "__mro__")[1:]):
            # (what a base class holds under that name the class could
            # inherit anyway: Python 3.11's enum copies Flag's __or__ and
            # __and__ into each Flag class, review 140 F2)
            raise TypeError('"%s" of class "%s": a library\'s function made by a decorator is '
                            'not allowed in the sandbox; define it with def in the class'
                            % (attr, name))
        type.__setattr__(cls, attr, _pinning(attr, method))
    # a finalizer the class inherits (io's, which calls its close(), or a
    # library class's __del__) runs the code's Python as an object dies,
    # which native code that drops an object still in its array does not
    # expect: none in a call (_finalizers)
    mro = type.__getattribute__(cls, "__mro__")
    if any("__del__" in type.__getattribute__(base, "__dict__") for base in mro[1:-1]):
        _finalizers(False, [cls])
    return cls


_SAFE_NAMES = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes",
    "callable", "chr", "classmethod", "complex", "dict", "dir", "divmod",
    "enumerate", "filter", "float", "format", "frozenset", "hash", "hex",
    "id", "int", "iter", "len", "list", "map",
    "max", "min", "next", "object", "oct", "ord", "pow", "property", "range",
    "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod",
    "str", "sum", "super", "tuple", "zip", "memoryview",
    "True", "False", "None", "NotImplemented", "Ellipsis",
    "__build_class__",          # needed by every class statement
)


def _base_builtins():
    table = {name: getattr(builtins, name) for name in _SAFE_NAMES}
    for name, value in vars(builtins).items():
        # Every exception and warning class, ExceptionGroup included.
        if (isinstance(value, type) and issubclass(value, BaseException)
                and not name.startswith("_")):
            table[name] = value
    # native code called from user code finds this table as "the
    # builtins" (PyEval_GetBuiltins): matplotlib's FT2Font opens a font
    # named by a path with builtins' open, and crashed without one
    table["open"] = sb_open
    table["getattr"] = sb_getattr
    table["hasattr"] = sb_hasattr
    table["setattr"] = sb_setattr
    table["delattr"] = sb_delattr
    table["type"] = sb_type
    # hash() is Python's: the worker keys the hash of every object hashed
    # by its address (src/worker/sb_hashguard.c), before any dict holds one
    table["id"] = sb_id
    table["isinstance"] = sb_isinstance
    table["issubclass"] = sb_issubclass
    table["vars"] = sb_vars
    table[FORMAT_GUARD_NAME] = guard_format_method
    table[OWN_GUARD_NAME] = guard_own_object
    table[OWN_CLASS_GUARD_NAME] = guard_own_class
    table[EXCEPT_GUARD_NAME] = guard_caught
    table[KWARGS_GUARD_NAME] = guard_kwargs
    table[SET_DATA_GUARD_NAME] = guard_set_data
    table[SETTABLE_GUARD_NAME] = guard_settable
    table[SUPER_GUARD_NAME] = guard_super_args
    table["__build_class__"] = sb_build_class
    return table


_BASE_BUILTINS = _base_builtins()
for _name in ("eval", "exec", "compile", "open", "__import__", "breakpoint", "input",
              "globals", "locals", "vars", "getattr", "setattr", "delattr", "type", "help",
              "exit", "quit"):
    if hasattr(builtins, _name):
        _REAL_BUILTINS[id(getattr(builtins, _name))] = (getattr(builtins, _name), _name)
_REAL_BUILTINS[id(_real_import)] = (_real_import, "__import__")
import io as _io_module  # noqa: E402 - io.open and FileIO under another module's name
for _name in ("open", "open_code", "FileIO"):
    _REAL_BUILTINS[id(getattr(_io_module, _name))] = (getattr(_io_module, _name), "io." + _name)
del _name, _io_module


def make_builtins(allowed, print_fn):
    """Return the restricted builtins for this child's one call.

    Not a copy: copying the table would write the reference count of every
    builtin it holds, and in a child forked from the warm worker each such
    write copies a page (~30 of a trivial call's ~600).  A child serves one
    call, so completing the module's own table is safe; "print" and
    "__import__" are set anew for every call.
    """
    table = _BASE_BUILTINS
    table["print"] = print_fn
    table["__import__"] = make_import(allowed)
    return table


def make_globals(allowed, print_fn):
    """Return fresh globals for exec() of sandboxed code."""
    return {
        "__builtins__": make_builtins(allowed, print_fn),
        "__name__": "__sandbox__",
        "__doc__": None,
    }


_PANDAS_GUARD = {"on": True}

# id(a library's function) -> what a module proxy hands out instead: the
# pandas readers that read only memory (harden_pandas), the functions that
# take attribute names as strings, checked (harden_libraries)
_SUBSTITUTES = {}


def set_pandas_guard(on):
    """Switch the guards inside libraries for a call: pandas expressions,
    readers and writers, matplotlib's files and backends, programs (off
    only with the Python layer)."""
    _PANDAS_GUARD["on"] = bool(on)
    _IN_CALL["on"] = bool(on)
    _finalizers(not on)


def leave_call():
    """Out of a call (prewarm in the worker): native loads and programs are
    the worker's again; the pandas guard stays as it is, set by each call."""
    _IN_CALL["on"] = False
    _finalizers(True)


def _finalizers(on, classes=None):
    """In a call no finalizer runs the code's Python while an object dies:
    numpy's stores into arrays of objects drop the old object before they
    store the new one (a cast's move_references, put), and a suspended
    generator's finally, or the close() that io's finalizer calls on a class
    of the code's, read the dying object back from the array and kept it
    past its free (a fake bytearray over all memory).  Off for the call:
    generators' and every class's (finalizer_classes; the worker's sb_io)."""
    try:
        import sb_io
    except ImportError:                  # the unit tests load no worker
        return
    if not hasattr(sb_io, "finalizers_off"):
        return
    if on:
        sb_io.finalizers_on()
        return
    if classes is not None:
        if _IN_CALL["on"]:
            sb_io.finalizers_off(classes)
        return
    sb_io.finalizers_off(finalizer_classes())


# every class with a finalizer of its own or inherited (io's, a __del__):
# found once, in the worker, and from modules imported since
# (sb_harden.guard_library_getattrs); a class made in a call has none
# (the worker's sb_type_new).  Library classes call the code's methods from
# theirs: numpy's NpzFile.__del__ its fid's close(), zipfile.ZipFile's its
# file's write() (review 133 F3)
FINALIZER_CLASSES = []


def has_finalizer(cls):
    """Whether a __del__ (io's own, a library's) is in cls's MRO."""
    try:
        mro = type.__getattribute__(cls, "__mro__")
    except (AttributeError, TypeError):
        return False
    return any("__del__" in type.__getattribute__(base, "__dict__") for base in mro[:-1])


def all_classes():
    """Every class reachable from object through __subclasses__ now."""
    found, todo, seen = [], [object], set()
    while todo:
        cls = todo.pop()
        if id(cls) in seen:
            continue
        seen.add(id(cls))
        found.append(cls)
        try:
            todo.extend(type.__subclasses__(cls))
        except TypeError:           # type.__subclasses__ of type itself
            todo.extend(type.__subclasses__(type))
    return found


def finalizer_classes():
    """FINALIZER_CLASSES, found the first time."""
    if not FINALIZER_CLASSES:
        FINALIZER_CLASSES.extend(cls for cls in all_classes() if has_finalizer(cls))
    return FINALIZER_CLASSES


def guard_on():
    """Whether the guards inside libraries apply (set_pandas_guard)."""
    return _PANDAS_GUARD["on"]


# on in a call with the Python layer; off in the worker, which may run
# programs while it warms up (a library looking for its native parts)
_IN_CALL = {"on": False}


class NativeCodeNotLoaded(ImportError):
    """A library tried to load native code during a call (harden_native_loads)."""


def native_code_message(name):
    top = name.partition(".")[0]
    if top in _PRELOADED_ELSEWHERE:
        return _not_preloaded_message(name)
    return ('package "%s" needs native code (%s) that was not loaded before the call, '
            'and a sandboxed process cannot load any; an administrator can preload it '
            'with pysandbox.preload_modules' % (top, name))


# id(a library's class) -> what type() of its instances gives the code: a
# checked class that is the same for isinstance and issubclass
_TYPE_SUBSTITUTES = {}
