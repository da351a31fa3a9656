"""The libraries' entry points, checked in the worker (once, before any
child exists): pandas, numpy and the standard library functions that get,
set or evaluate what a string names, read memory at an address, or run
programs and native loads.

sb_guard.py holds the rules and the sandbox's builtins and imports; this
module applies them inside the libraries, where the validator never looks:
pandas' string dispatch and expressions, its readers and writers, the
Styler's templates and formats, numpy's array construction and
unpickling, typing's evaluation of annotations, dataclasses' field names,
Enum's functional API, functools' and operator's attribute helpers.  Each
check applies only in a call with the Python layer (sb_guard._IN_CALL);
the worker itself, warming up, runs the libraries unchecked.
"""

import abc
import ast
import io
import sys

from sb_guard import (  # noqa: F401 - the shared policy and the call's state
    DERIVABLE_LIBRARY_CLASSES, _BASE_BUILTINS, _IN_CALL, _NDARRAY, _PANDAS_GUARD, _SUBSTITUTES, _TYPE_SUBSTITUTES,
    NativeCodeNotLoaded, READERS, WRITERS, attribute_problem, format_string_problem,
    native_code_message, refuse)


def _in_memory(obj):
    return type(obj) is io.StringIO or type(obj) is io.BytesIO


def _io_refusal(call, what):
    return PermissionError(
        "%s() may not %s a file or URL: %s" % (call, what, {
            "read": "pass the data in memory, as io.StringIO(text) or io.BytesIO(data)",
            "write to": "call it without a path to get the text back, or pass an "
                        "io.StringIO"}[what]))


def _guard_reader(name, argname, reader):
    def guarded(*args, **kwargs):
        source = args[0] if args else kwargs.get(argname)
        if not _in_memory(source) and not (
                name == "read_json" and type(source) is str
                and source.lstrip()[:1] in ("{", "[")):
            raise _io_refusal("pd." + name, "read")
        return reader(*args, **kwargs)
    guarded.__name__ = guarded.__qualname__ = name
    guarded.__doc__ = reader.__doc__
    return guarded


def _guard_writer(cls, name, argname):
    writer = cls.__dict__[name]

    def guarded(self, *args, **kwargs):
        if _PANDAS_GUARD["on"]:
            target = args[0] if args else kwargs.get(argname)
            if target is not None and not _in_memory(target):
                raise _io_refusal("%s.%s" % (type(self).__name__, name), "write to")
        return writer(self, *args, **kwargs)
    guarded.__name__ = name
    guarded.__qualname__ = writer.__qualname__
    guarded.__doc__ = writer.__doc__
    setattr(cls, name, guarded)


def _guard_pandas_io():
    """Readers on memory only (through the module proxies), writers without
    paths (patched into pandas' classes): checked when called."""
    import pandas
    from pandas.core.generic import NDFrame

    for name, argname in READERS.items():
        reader = getattr(pandas, name)
        _SUBSTITUTES[id(reader)] = _guard_reader(name, argname, reader)
    classes = [NDFrame, pandas.DataFrame, pandas.Series]
    try:
        from pandas.io.formats.style import Styler
    except ImportError:  # no jinja2: no Styler either
        Styler = None
    if Styler is not None:
        classes.append(Styler)
        for name in ("format", "format_index"):
            if hasattr(Styler, name):   # defined on a base class (StylerRenderer)
                _guard_styler_format(Styler, name)
    for cls in classes:
        for name, argname in WRITERS.items():
            if name in cls.__dict__:
                _guard_writer(cls, name, argname)


def _guard_styler_format(cls, name):
    """Styler.format(formatter): pandas calls formatter.format(value) itself,
    out of the compiled guard's sight: a format string (or one in a dict of
    them) is checked like a literal one."""
    method = getattr(cls, name)

    def guarded(self, formatter=None, *args, **kwargs):
        if _PANDAS_GUARD["on"]:
            strings = [formatter] if isinstance(formatter, str) else (
                list(formatter.values()) if isinstance(formatter, dict) else [])
            for text in strings:
                problem = format_string_problem(str.__str__(text)) \
                    if isinstance(text, str) else None
                if problem is not None:
                    raise AttributeError(problem + " (in Styler.%s)" % name)
        return method(self, formatter, *args, **kwargs)
    guarded.__name__ = name
    guarded.__qualname__ = method.__qualname__
    guarded.__doc__ = method.__doc__
    setattr(cls, name, guarded)


def _checked_names(names, allowed, call):
    """names (any iterable, taken once) if each is in allowed."""
    names = tuple(names)
    for name in names:
        if name not in allowed:
            raise AttributeError('%s: copying attribute %r is not allowed; it may copy '
                                 'only %s' % (call, name, ", ".join(allowed)))
    return names


def _check_dict_copy(wrapper, wrapped):
    """update_wrapper's wrapper.__dict__.update(wrapped.__dict__) wrote
    private attributes into a library object (an Index's _cache: another
    index's engine, whose positions pandas then read unchecked; a generic
    alias's _name): private names go only to the code's own objects and
    functions, as self._x does."""
    import types
    from sb_guard import guard_own_object
    extra = getattr(wrapped, "__dict__", None)
    if not isinstance(extra, dict):
        return
    own_function = (type(wrapper) is types.FunctionType and
                    getattr(wrapper, "__module__", None) == "__sandbox__")
    for key in list(extra):
        if type(key) is not str:
            raise TypeError("functools.update_wrapper: attribute names must be str")
        if key.startswith("_") and not own_function:
            guard_own_object(wrapper, key)


def harden_libraries():
    """In the worker: checked copies of the standard library's functions
    that get or set attributes named by strings, which the validator never
    sees.  functools.update_wrapper(f, g, updated=("__globals__",)) merged
    another module's globals (its real os) into the call's namespace;
    dataclasses.make_dataclass(namespace={"__len__": ...}) defined the
    dunder methods the validator refuses to let code define."""
    import dataclasses
    import functools

    assigned_ok = tuple(functools.WRAPPER_ASSIGNMENTS)
    updated_ok = tuple(functools.WRAPPER_UPDATES)
    update_wrapper = functools.update_wrapper

    def checked_update_wrapper(wrapper, wrapped, assigned=assigned_ok, updated=updated_ok):
        assigned = _checked_names(assigned, assigned_ok, "functools.update_wrapper")
        updated = _checked_names(updated, updated_ok, "functools.update_wrapper")
        if _IN_CALL["on"] and "__dict__" in updated:
            _check_dict_copy(wrapper, wrapped)
        return update_wrapper(wrapper, wrapped, assigned, updated)

    def checked_wraps(wrapped, assigned=assigned_ok, updated=updated_ok):
        assigned = _checked_names(assigned, assigned_ok, "functools.wraps")
        updated = _checked_names(updated, updated_ok, "functools.wraps")
        return functools.partial(checked_update_wrapper, wrapped=wrapped,
                                 assigned=assigned, updated=updated)

    make_dataclass = dataclasses.make_dataclass

    def checked_make_dataclass(cls_name, fields, *args, namespace=None, **kwargs):
        fields = list(fields)
        names = [f if isinstance(f, str) else (f[0] if isinstance(f, tuple) and f else None)
                 for f in fields]
        if namespace is not None:
            namespace = dict(namespace)
            names += list(namespace)
        for name in names + [cls_name]:
            problem = attribute_problem(name) if isinstance(name, str) else None
            if problem is not None:
                raise AttributeError("make_dataclass: " + problem[1])
        return make_dataclass(cls_name, fields, *args, namespace=namespace, **kwargs)

    # singledispatch's register(x) takes the class to dispatch on from x's
    # annotations when x is no class (typing.get_type_hints(x)): an instance
    # of a class whose annotation names a builtin gave the real one (type,
    # whose classes could read memory); only classes and the code's own
    # functions are registered
    def checked_dispatch_register(register):
        def checked(cls, func=None):
            if _IN_CALL["on"] and not (
                    isinstance(cls, (type, types.UnionType)) or
                    (type(cls) is types.FunctionType and
                     getattr(cls, "__module__", None) == "__sandbox__")):
                raise TypeError("register() of a %s is not allowed: it takes a class, or a "
                                "function the code defines with its first parameter annotated"
                                % type(cls).__name__)
            return register(cls, func) if func is not None else register(cls)
        return checked

    def checked_singledispatch(func):
        dispatcher = functools.singledispatch(func)
        dispatcher.register = checked_dispatch_register(dispatcher.register)
        return dispatcher

    def checked_singledispatchmethod(func):
        method = functools.singledispatchmethod(func)
        method.register = checked_dispatch_register(method.register)
        return method

    substitutes = [(update_wrapper, checked_update_wrapper),
                   (functools.wraps, checked_wraps),
                   (make_dataclass, checked_make_dataclass),
                   (functools.singledispatch, checked_singledispatch),
                   (functools.singledispatchmethod, checked_singledispatchmethod)]
    try:
        import pandas.api.extensions as extensions
    except ImportError:
        extensions = None
    for name in ("register_dataframe_accessor", "register_series_accessor",
                 "register_index_accessor"):
        # pandas sets the accessor on its class under the name given:
        # "__array_interface__" would make numpy read what it returns
        register = getattr(extensions, name, None)
        if register is not None:
            substitutes.append((register, _checked_register(register)))
    _harden_enum()
    _harden_typing()
    _harden_dataclasses()
    harden_dataclass_readers()
    _harden_struct()
    _harden_itertools()
    _harden_bytearray_join()
    _harden_bytearray_mod()
    _harden_ordered_dict()
    import decimal
    # gh-106263: a SignalDict made by calling its class (type(ctx.flags)())
    # has no flags to point to: any use read or wrote address 0 (SIGSEGV)
    refuse(type(decimal.Context().flags), "a context's flags and traps are made by the "
                                          "context; use decimal.Context()")
    _hide_attribute_error_object()
    import types
    refuse(types.SimpleNamespace, "it sets any attributes it is given")
    import dataclasses
    refuse(dataclasses.Field, "its class attributes are how dataclasses reads a field's "
                              "name; use dataclasses.field() and dataclasses.fields()")
    import typing
    refuse(typing.ForwardRef, "it evaluates strings as code")
    # io's buffered streams hand the raw stream (the code's object) a
    # memoryview of their buffer with no owner: kept past the buffer's
    # free, it read and wrote any address (a fake bytearray over all
    # memory).  Refused wherever reached (another module's attribute, the
    # type() of an instance), and so is FileIO, which opens files by name
    for cls in (io.BufferedReader, io.BufferedWriter, io.BufferedRandom, io.BufferedRWPair):
        refuse(cls, "it lends its buffer to the raw stream's code, which can keep it after "
                    "it is freed; read io.BytesIO directly")
    refuse(io.FileIO, "it opens files; use io.StringIO or io.BytesIO for data in memory")
    for cls in (io.TextIOWrapper, io.IncrementalNewlineDecoder):
        refuse(cls, "it calls the code's buffer object in ways CPython does not guard; "
                    "decode the bytes instead: io.StringIO(data.decode())")
    import operator

    # the validator checks attrgetter("a.b") and methodcaller("m") called by
    # those names; numpy re-exports them (numpy.lib.npyio.methodcaller),
    # and under another name a computed string passed: checked when called
    def checked_attrgetter(attr, *attrs):
        for name in (attr,) + attrs:
            for part in name.split(".") if isinstance(name, str) else ():
                _name_problem(part, "attrgetter")
        return operator.attrgetter(attr, *attrs)

    def checked_methodcaller(name, *args, **kwargs):
        _name_problem(name, "methodcaller")
        return operator.methodcaller(name, *args, **kwargs)
    substitutes += [(operator.attrgetter, checked_attrgetter),
                    (operator.methodcaller, checked_methodcaller)]
    import copy

    # copy.deepcopy(x, memo): the memo holds copies of private state, and
    # copy.dispatch_table (copyreg's, the process's) lets a reducer set any
    # attribute of any object
    def checked_deepcopy(x, memo=None):
        if memo is not None:
            raise TypeError("deepcopy(x, memo): a memo is not allowed in the sandbox: it "
                            "would hold copies of private state; call deepcopy(x)")
        return copy.deepcopy(x)
    substitutes.append((copy.deepcopy, checked_deepcopy))
    refuse(copy.dispatch_table, "it changes how every object is copied")
    # a metaclass called with a dict builds a class with any special methods
    # (a class statement with abc.ABC as a base needs none of it)
    refuse(abc.ABCMeta, "it builds classes from a dict; derive from abc.ABC instead")
    import enum
    refuse(enum.EnumMeta, "it builds classes from a dict; derive from enum.Enum instead")
    refuse(typing.NamedTupleMeta,
           "it builds classes from a dict; derive from typing.NamedTuple instead")
    cached_get = functools.cached_property.__get__

    def cached_property_get(self, instance, owner=None):
        # attrname is writable (C.x.attrname = "__array_interface__"), and
        # the value is stored in the instance's __dict__ under it
        name = getattr(self, "attrname", None)
        if _IN_CALL["on"] and isinstance(name, str) and name.startswith("__"):
            raise AttributeError('cached_property: name "%s" is not allowed: names that '
                                 'begin with "__" are reserved' % name)
        return cached_get(self, instance, owner)
    cached_property_get.__qualname__ = cached_get.__qualname__
    functools.cached_property.__get__ = cached_property_get
    for original, checked in substitutes:
        checked.__name__ = original.__name__
        checked.__qualname__ = original.__qualname__
        checked.__doc__ = original.__doc__
        _SUBSTITUTES[id(original)] = checked


def _set_on_immutable_type(cls, items):
    """Set attributes of a type Python may not change (a static type or
    one with Py_TPFLAGS_IMMUTABLETYPE), here in the worker before any child
    exists: its immutable flag is lifted for the assignments (which update
    the type's slots as for any class) and set again.  False if the type is
    not laid out as expected (nothing is changed then)."""
    import ctypes
    immutable = 1 << 8                   # Py_TPFLAGS_IMMUTABLETYPE
    # tp_flags: the 22nd pointer-sized field of PyTypeObject (3.8 - 3.12)
    flags = ctypes.c_ulong.from_address(id(cls) + 21 * ctypes.sizeof(ctypes.c_void_p))
    if flags.value != cls.__flags__ or not flags.value & immutable:
        return False
    flags.value &= ~immutable
    try:
        for name, value in items:
            setattr(cls, name, value)
    finally:
        flags.value |= immutable
    return True


# AttributeError's own member descriptor of .obj, once it is hidden
_ATTRIBUTE_ERROR_MEMBER = [None]


def attribute_error_object(exc):
    """The object an AttributeError's lookup failed on, for the runtime's
    own messages (df.amont: the DataFrame's columns); the code sees None."""
    member = _ATTRIBUTE_ERROR_MEMBER[0]
    if member is None:
        return getattr(exc, "obj", None)
    return member.__get__(exc, AttributeError)


def _c_new(cls):
    """cls's own C __new__ (its tp_new slot, through PyType_GetSlot) as a
    function of (subtype, args, kwargs), for a checked __new__ that calls
    it; None if cls has a Python __new__ already or no slot."""
    import ctypes
    if type(cls.__dict__.get("__new__")) is staticmethod:
        return None
    get_slot = ctypes.pythonapi.PyType_GetSlot
    get_slot.restype = ctypes.c_void_p
    get_slot.argtypes = [ctypes.py_object, ctypes.c_int]
    new_slot = get_slot(cls, 65)         # Py_tp_new
    if not new_slot:
        return None
    return ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.py_object,
                             ctypes.py_object)(new_slot)


def _hide_attribute_error_object():
    """AttributeError.obj (the object of the failed lookup) reads as None
    in a call, however the exception reaches the code.  The except-block
    rewrite (guard_caught) saw only "except ... as e" and a method
    __exit__(self, t, e, tb) of the code's own: a decorator's wrapper, a
    staticmethod or __exit__(self, *exc) got the exception unchecked, and
    so did handlers that libraries call (matplotlib's CallbackRegistry
    exception_handler); a library's own lookup on a real module it was
    handed by name (savefig(backend="module://os")) left that module in
    .obj.  AttributeError is a static type, immutable to Python: its flag
    is lifted here, in the worker, for one assignment, as for ndarray.
    Setting .obj (Python does, on a failed lookup) works as before."""
    member = AttributeError.__dict__.get("obj")
    if type(member).__name__ == "HiddenObject":
        return True             # hidden already (harden_libraries ran before)
    if member is None or not hasattr(member, "__get__") or not hasattr(member, "__set__"):
        return False

    class HiddenObject:
        """The object an AttributeError's lookup failed on: not in a call."""
        __doc__ = member.__doc__

        def __get__(self, exc, cls=None):
            if exc is None:
                return self if _IN_CALL["on"] else member
            if _IN_CALL["on"]:
                return None
            return member.__get__(exc, cls)

        def __set__(self, exc, value):
            member.__set__(exc, value)

        def __delete__(self, exc):
            member.__delete__(exc)

    _ATTRIBUTE_ERROR_MEMBER[0] = member
    if not _set_on_immutable_type(AttributeError, [("obj", HiddenObject())]):
        _ATTRIBUTE_ERROR_MEMBER[0] = None
        sys.stderr.write("pysandbox-worker: AttributeError.obj could not be hidden\n")
        return False
    return True


def _harden_struct():
    """struct.Struct's __init__ frees its compiled format and makes another,
    and a subclass of the code's reaches it again with super().__init__(fmt)
    (or a dataclass or Enum made with Struct as a base, with super(C, obj)):
    an iter_unpack() iterator of the old format then read past its buffer
    by the new format's size (heap pointers), and a pack() whose __bool__
    did it ran on freed format codes.  In a call a Struct is initialised
    once."""
    import struct
    cls = struct.Struct
    init = cls.__dict__["__init__"]      # the slot wrapper: _struct's own init
    size = cls.__dict__["size"].__get__  # the C getter, whatever a subclass defines

    def __init__(self, *args, **kwargs):
        if _IN_CALL["on"] and size(self) != -1:
            raise TypeError("initialising a struct.Struct again is not allowed in the sandbox: "
                            "it frees the format its iterators use; make a new one, "
                            "struct.Struct(format)")
        init(self, *args, **kwargs)
    __init__.__qualname__ = "Struct.__init__"
    __init__.__doc__ = init.__doc__
    if not _set_on_immutable_type(cls, [("__init__", __init__)]):
        sys.stderr.write("pysandbox-worker: struct.Struct could not be checked in place; "
                         "it is not handed out\n")
        refuse(cls, "it can be initialised again, which frees what its iterators use")


def _harden_bytearray_join():
    """gh-112625: bytearray.join() took the separator's buffer, then ran
    the iterable's __next__, which may empty the bytearray: the freed
    buffer was copied into the result (heap and libc pointers in a call;
    a SIGSEGV once it is unmapped).  In a call the separator is copied
    before the iterable is read."""
    real_join = bytearray.join

    def join(self, iterable_of_bytes, /):
        if not _IN_CALL["on"]:
            return real_join(self, iterable_of_bytes)
        return bytearray(bytes(self).join(iterable_of_bytes))
    join.__qualname__ = "bytearray.join"
    join.__doc__ = real_join.__doc__
    if not _set_on_immutable_type(bytearray, [("join", join)]):
        sys.stderr.write("pysandbox-worker: bytearray.join could not be checked in place\n")


def _harden_bytearray_mod():
    """gh-142557: bytearray % args formatted from the bytearray's buffer
    while the args' __repr__ (%r, %a) ran, which may empty it: the freed
    buffer was copied into the result (heap and libc pointers in a call).
    In a call the format is copied first."""
    real_mod = bytearray.__mod__

    def __mod__(self, args, /):
        if not _IN_CALL["on"] or type(self) is not bytearray and \
                not isinstance(self, bytearray):
            return real_mod(self, args)
        return bytearray(bytes(self) % args)
    __mod__.__qualname__ = "bytearray.__mod__"
    __mod__.__doc__ = real_mod.__doc__
    if not _set_on_immutable_type(bytearray, [("__mod__", __mod__)]):
        sys.stderr.write("pysandbox-worker: bytearray %% could not be checked in place\n")


def _harden_ordered_dict():
    """gh-142637 (open upstream): OrderedDict's __delitem__, pop() and
    move_to_end() keep pointers into its table while a key's __eq__ runs,
    and one that empties the dict left them pointing to freed memory
    (SIGSEGV in a call); copy() likewise (gh-148660).  The code gets a
    dict subclass with OrderedDict's methods instead (a dict keeps
    insertion order, and its own lookups survive such an __eq__), as
    collections' attribute and as the type() of a real one; typing's
    alias is refused."""
    import collections
    import typing

    class OrderedDict(dict):
        """collections.OrderedDict as the sandbox gives it: a dict (which
        keeps insertion order) with move_to_end(), popitem(last=) and an
        order-sensitive == between two of them."""

        def move_to_end(self, key, last=True):
            value = dict.pop(self, key)
            if last:
                dict.__setitem__(self, key, value)
            else:
                rest = list(dict.items(self))
                dict.clear(self)
                dict.__setitem__(self, key, value)
                dict.update(self, rest)

        def popitem(self, last=True):
            if not self:
                raise KeyError("dictionary is empty")
            key = next(reversed(self)) if last else next(iter(self))
            return key, dict.pop(self, key)

        def copy(self):
            return type(self)(self)

        def __eq__(self, other):
            if isinstance(other, OrderedDict):
                return dict.__eq__(self, other) and list(self) == list(other)
            return dict.__eq__(self, other)

        def __ne__(self, other):
            equal = self.__eq__(other)
            return equal if equal is NotImplemented else not equal

        __hash__ = None

        def __repr__(self):
            if not self:
                return "OrderedDict()"
            return "OrderedDict(%r)" % (list(dict.items(self)),)

    OrderedDict.__module__ = "collections"
    try:
        import sb_codec
    except ImportError:                  # the unit tests load no codec
        pass
    else:
        sb_codec._DICT_TYPES.add(OrderedDict)
    _SUBSTITUTES[id(collections.OrderedDict)] = OrderedDict
    _TYPE_SUBSTITUTES[id(collections.OrderedDict)] = OrderedDict
    refuse(typing.OrderedDict, "its class uses freed memory when a key's __eq__ changes the "
                               "dict (CPython gh-142637); use collections.OrderedDict or dict")


def _harden_itertools():
    """gh-109786: pairwise() borrowed its iterator across next(), which a
    generator re-entering the same pairwise freed (SIGSEGV in a call).
    gh-154670 (open upstream): count() with a step whose __radd__
    re-enters the same count returned its running total twice, the second
    time freed: a float subclass is a number, and the freed int, filled by
    a bytearray's buffer, became a fake bytearray over all memory.
    Generators instead: re-entering one is a ValueError."""
    import itertools
    end = object()

    def pairwise(iterable):
        iterator = iter(iterable)

        def pairs():
            first = next(iterator, end)
            if first is end:
                return
            for second in iterator:
                yield first, second
                first = second
        return pairs()

    def count(start=0, step=1):
        def counter(value):
            while True:
                yield value
                value = value + step
        return counter(start)

    # gh-142732 (open upstream): islice, chain, cycle and zip_longest
    # borrow their iterator across its next() and drop it when it ends; a
    # map() or filter() whose function re-enters the same islice and
    # drains it is freed while it runs, and islice then calls it again:
    # the freed map refilled by a bytes object's data called through the
    # code's pointers (a fake bytearray over all memory in a call).
    # Generators instead; each holds the iterator it calls.
    import operator
    import sys as _sys

    def _index(value, what):
        if value is None:
            return None
        try:
            value = operator.index(value)
        except TypeError:
            value = -1
        if not 0 <= value <= _sys.maxsize:
            raise ValueError("%s for islice() must be None or an integer: "
                             "0 <= x <= sys.maxsize." % what)
        return value

    def islice(iterable, *args):
        bounds = slice(*args)
        start = _index(bounds.start, "Indices") or 0
        stop = _index(bounds.stop, "Stop argument")
        if bounds.step is None:
            step = 1
        else:
            try:
                step = operator.index(bounds.step)
            except TypeError:
                step = 0
            if not 0 < step <= _sys.maxsize:
                raise ValueError("Step for islice() must be a positive integer or None.")
        iterator = iter(iterable)

        def sliced():                   # islice_next(), step by step
            count = 0
            wanted = start
            while True:
                while count < wanted:
                    if next(iterator, end) is end:
                        return
                    count += 1
                if stop is not None and count >= stop:
                    return
                item = next(iterator, end)
                if item is end:
                    return
                count += 1
                wanted += step
                if stop is not None and wanted > stop:
                    wanted = stop
                yield item
        return sliced()

    def _chained(iterables):
        for iterable in iterables:
            yield from iterable

    def chain(*iterables):
        return _chained(iterables)

    def from_iterable(iterable, /):
        return _chained(iter(iterable))
    chain.from_iterable = from_iterable

    def cycle(iterable, /):
        iterator = iter(iterable)

        def cycled():
            saved = []
            for item in iterator:
                yield item
                saved.append(item)
            while saved:
                yield from saved
        return cycled()

    def zip_longest(*iterables, fillvalue=None):
        iterators = [iter(iterable) for iterable in iterables]

        def zipped():
            active = len(iterators)
            if not active:
                return
            while True:
                values = []
                for i, iterator in enumerate(iterators):
                    value = next(iterator, end)
                    if value is end:
                        active -= 1
                        if not active:
                            return
                        iterators[i] = itertools.repeat(fillvalue)
                        value = fillvalue
                    values.append(value)
                yield tuple(values)
        return zipped()

    for original, checked in ((itertools.pairwise, pairwise), (itertools.count, count),
                              (itertools.islice, islice), (itertools.chain, chain),
                              (itertools.cycle, cycle), (itertools.zip_longest, zip_longest)):
        checked.__name__ = original.__name__
        checked.__qualname__ = original.__qualname__
        checked.__doc__ = original.__doc__
        _SUBSTITUTES[id(original)] = checked


def _name_problem(name, call):
    if not isinstance(name, str):
        return
    name = str.__str__(name)
    problem = attribute_problem(name)
    if problem is not None:
        raise AttributeError("%s: %s" % (call, problem[1]))
    if name in _LIBRARY_ONLY:
        # pandas' own frame reads them (_LibraryOnly): not for the code's names
        raise AttributeError('%s: attribute "%s" is not allowed: %s'
                             % (call, name, _LIBRARY_ONLY[name]))


def _harden_enum():
    """Enum("E", names, module=...) and enum.global_enum wrote into the
    module named (sys.modules[...].__dict__: the sandbox's own policy
    tables); a dunder member name became a class attribute (numpy follows
    __array_interface__).  In a call: no module or qualname, no such names,
    no global_enum."""
    import enum
    refuse(enum.global_enum, "it writes into a module's namespace")
    create = enum.EnumType.__dict__["_create_"]

    def _create_(cls, class_name, names, *, module=None, qualname=None, **kwargs):
        if _IN_CALL["on"]:
            if module is not None or qualname is not None:
                raise TypeError("Enum(): module= and qualname= are not allowed in the sandbox")
            if isinstance(names, dict):
                names = list(names.items())
            elif not isinstance(names, str):
                names = list(names)
            listed = names.replace(",", " ").split() if isinstance(names, str) else names
            for item in listed:
                member = item if isinstance(item, str) else (
                    item[0] if isinstance(item, (tuple, list)) and item else None)
                _name_problem(member, "Enum()")
            _name_problem(class_name, "Enum()")
        return create(cls, class_name, names, module=module, qualname=qualname, **kwargs)
    _create_.__qualname__ = create.__qualname__
    enum.EnumType._create_ = _create_


def _plain_annotation(text):
    """A string annotation that is names, attributes and subscripts of
    them (Optional["pd.DataFrame"], "list[int] | None"): what typing may
    evaluate in a call."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Name):
            if attribute_problem(node.id) is not None:
                return False
        elif isinstance(node, ast.Attribute):
            if attribute_problem(node.attr) is not None:
                return False
        elif not isinstance(node, (ast.Subscript, ast.Tuple, ast.List, ast.BinOp, ast.BitOr,
                                   ast.Constant, ast.Load, ast.Index if hasattr(ast, "Index")
                                   else ast.Load)):
            return False
    return True


def _harden_typing():
    """typing evaluates string annotations with eval() (get_type_hints,
    which functools.singledispatch's register calls): the validator checks
    the strings written in annotations, not one computed at run time.  In a
    call only plain names and subscripts of them are evaluated."""
    import typing
    evaluate = typing.ForwardRef._evaluate

    def _evaluate(self, globalns, localns, *args, **kwargs):
        text = getattr(self, "__forward_arg__", None)
        if _IN_CALL["on"]:
            if not (isinstance(text, str) and _plain_annotation(text)):
                raise NameError("the annotation %r is not evaluated in the sandbox: only "
                                "names, attributes and subscripts of them are" % (text,))
            # in the code's own names only: ForwardRef(module=...) and a
            # function's __wrapped__ (a library's) named another module's
            if getattr(self, "__forward_module__", None) is not None or \
                    not _code_namespace(globalns) or not _code_namespace(localns):
                raise NameError("evaluating the annotation %r in another module's names is "
                                "not allowed in the sandbox: annotations resolve in the "
                                "code's own names only" % (text,))
            # names fall back to the call's builtins, never the real ones:
            # eval() adds those to globals that have none (get_type_hints
            # of an object gives {}), and a library's module has them
            globalns = dict(globalns) if globalns is not None else {}
            globalns["__builtins__"] = _BASE_BUILTINS
            if localns is not None:
                localns = dict(localns)
                localns.pop("__builtins__", None)
        return evaluate(self, globalns, localns, *args, **kwargs)
    _evaluate.__qualname__ = evaluate.__qualname__
    typing.ForwardRef._evaluate = _evaluate

    # _GenericAlias.__reduce__ looks its _name up in typing's globals, and
    # copy.copy() calls what it returns: type(typing.List[int])(list,
    # ("eval",), name="__builtins__") copied to the real eval.  In a call
    # the name must be one of typing's public names, however it was set
    # (the constructor, update_wrapper copying a __dict__)
    alias_reduce = typing._GenericAlias.__dict__["__reduce__"]
    public = frozenset(name for name in typing.__all__ if not name.startswith("_"))

    def __reduce__(self):
        if _IN_CALL["on"]:
            name = self.__dict__.get("_name")
            if name and not (type(name) is str and name in public):
                raise TypeError("typing: copying a generic alias named %r is not allowed "
                                "in the sandbox: only typing's own names are" % (name,))
        return alias_reduce(self)
    __reduce__.__qualname__ = alias_reduce.__qualname__
    typing._GenericAlias.__reduce__ = __reduce__


def _code_namespace(ns):
    """None, a namespace that is no module's (a class's, {}), or the
    code's own module."""
    if ns is None:
        return True
    if not isinstance(ns, dict):
        return False
    name = ns.get("__name__", "__sandbox__")
    return type(name) is str and name == "__sandbox__"


def _harden_dataclasses():
    """dataclasses pastes each field's name into the text of the methods it
    exec()s (__init__, __repr__, __eq__): a Field's name set by the code
    (fields(A)[0].name = "x=0):\\n ...") was code the validator never saw,
    run with the builtins of the class's module.  In a call a field's name
    is an identifier, as Python's own class syntax makes it."""
    import dataclasses
    import keyword
    slot = dataclasses.Field.__dict__["name"]

    class FieldName:
        def __get__(self, obj, cls=None):
            return self if obj is None else slot.__get__(obj, cls)

        def __set__(self, obj, value):
            if _IN_CALL["on"] and value is not None and not (
                    type(value) is str and value.isidentifier() and
                    not keyword.iskeyword(value) and not value.startswith("__")):
                raise AttributeError("dataclass field name %r is not allowed: a field's "
                                     "name is an identifier that does not begin with \"__\""
                                     % (value,))
            slot.__set__(obj, value)

        def __delete__(self, obj):
            slot.__delete__(obj)
    dataclasses.Field.name = FieldName()


def _checked_register(register):
    def checked(name):
        problem = attribute_problem(name) if isinstance(name, str) else None
        if problem is not None:
            raise AttributeError("%s: %s" % (register.__name__, problem[1]))
        return register(name)
    return checked


def harden_dataclass_readers():
    """dataclasses.replace, asdict and astuple read every field by its name
    (getattr), and a field's name may be private: a dataclass of the code's
    mixed into a library class (class G(RendererAgg, Fields)) read the
    library's private state (the native renderer, pandas' BlockManager)
    that self._x refuses.  In a call a private field is read only from an
    object guard_own_object allows (a class of the code's own)."""
    import dataclasses
    from sb_guard import guard_own_object

    def check(obj, call):
        if not _IN_CALL["on"]:
            return
        fields = getattr(type(obj), "__dataclass_fields__", None)
        if not isinstance(fields, dict):
            return
        for name in fields:
            if isinstance(name, str) and name.startswith("_"):
                try:
                    guard_own_object(obj, str.__str__(name))
                except AttributeError as exc:
                    raise AttributeError("dataclasses.%s: %s" % (call, exc)) from None

    # the recursive readers: a nested dataclass is checked too
    for inner_name, call in (("_asdict_inner", "asdict"), ("_astuple_inner", "astuple")):
        inner = getattr(dataclasses, inner_name, None)
        if inner is not None:
            def checked_inner(obj, factory, _inner=inner, _call=call):
                if dataclasses._is_dataclass_instance(obj):
                    check(obj, _call)
                return _inner(obj, factory)
            checked_inner.__qualname__ = inner.__qualname__
            setattr(dataclasses, inner_name, checked_inner)
    replace, asdict, astuple = dataclasses.replace, dataclasses.asdict, dataclasses.astuple

    def checked_replace(obj, /, **changes):
        check(obj, "replace")
        return replace(obj, **changes)

    def checked_asdict(obj, *, dict_factory=dict):
        check(obj, "asdict")
        return asdict(obj, dict_factory=dict_factory)

    def checked_astuple(obj, *, tuple_factory=tuple):
        check(obj, "astuple")
        return astuple(obj, tuple_factory=tuple_factory)
    for original, checked in ((replace, checked_replace), (asdict, checked_asdict),
                              (astuple, checked_astuple)):
        checked.__name__ = original.__name__
        checked.__qualname__ = original.__qualname__
        checked.__doc__ = original.__doc__
        _SUBSTITUTES[id(original)] = checked


def harden_native_loads():
    """A call that would load native code not loaded before (a library
    importing an extension lazily: pandas' scipy, matplotlib's contourpy)
    gets an ImportError that says so; a child could not map it anyway
    (seccomp), and would end on the attempt."""
    import importlib.machinery
    loader = importlib.machinery.ExtensionFileLoader
    original = loader.create_module

    def create_module(self, spec):
        if _IN_CALL["on"]:
            raise NativeCodeNotLoaded(native_code_message(spec.name), name=spec.name)
        return original(self, spec)
    create_module.__qualname__ = original.__qualname__
    loader.create_module = create_module


def harden_processes():
    """A library that runs a program gets a PermissionError in a call:
    matplotlib's text.usetex runs latex, its font lookup fc-list, and
    user code reaches neither subprocess nor os.  A program could not run
    anyway (seccomp ends the child on the attempt); this says why, and
    lets the libraries that try a program and do without it go on."""
    import subprocess
    original = subprocess.Popen.__init__

    def __init__(self, args, *rest, **kwargs):
        if _IN_CALL["on"]:
            first = args if isinstance(args, (str, bytes)) else \
                next(iter(args), "") if isinstance(args, (list, tuple)) else ""
            raise PermissionError(
                'running a program ("%s") is not allowed in the sandbox'
                % (first if isinstance(first, str) else repr(first)))
        original(self, args, *rest, **kwargs)
    __init__.__qualname__ = original.__qualname__
    subprocess.Popen.__init__ = __init__


def harden_pandas():
    """Apply the attribute rules inside pandas expressions (once, in the worker).

    DataFrame.query/eval and pd.eval parse a string and look attributes up
    with getattr(); the validator sees only constant strings, so a computed
    expression such as "x.__class__" is refused here, at run time.
    """
    from pandas.core.computation import expr

    original = expr.BaseExprVisitor.visit_Attribute

    def visit_Attribute(self, node, **kwargs):
        problem = attribute_problem(node.attr) if _PANDAS_GUARD["on"] else None
        if problem is not None:
            raise AttributeError(problem[1] + " (in a pandas expression)")
        return original(self, node, **kwargs)

    expr.BaseExprVisitor.visit_Attribute = visit_Attribute
    _guard_pandas_scope()
    _guard_pandas_io()
    _guard_pandas_names()
    _guard_styler_templates()
    _guard_styler_format_sites()
    _guard_template_compile()
    _guard_take_nd()
    _guard_object_hashtables()
    from pandas.api.indexers import BaseIndexer
    DERIVABLE_LIBRARY_CLASSES.append(BaseIndexer)


def _code_frame(frame):
    """Is frame one of the code's own (its functions run in the call's
    module namespace, sys.modules["__sandbox__"])?"""
    return frame is not None and frame.f_globals.get("__name__") == "__sandbox__"


def _guard_pandas_scope():
    """pandas expressions (pd.eval, DataFrame.query/eval) resolve names,
    and "@name", in a frame level= frames up: in a call, only in the code's
    own frame (a level past it reached the runtime's globals, its real
    builtins; pd.eval passed to df.pipe, pandas' own), and local_dict is a
    dict, not a Scope (whose locals pandas gathers from every frame)."""
    from pandas.core.computation import scope
    init = scope.Scope.__init__

    def __init__(self, level, global_dict=None, local_dict=None, resolvers=(), target=None):
        if _IN_CALL["on"]:
            # an int subclass could count differently for the check and pandas
            if type(level) is not int:
                raise TypeError("a level= that is not an int is not allowed in a pandas "
                                "expression")
            if isinstance(local_dict, scope.Scope):
                raise ValueError("a Scope as local_dict of a pandas expression is not allowed; "
                                 "pass a dict")
            if (global_dict is None or local_dict is None) and \
                    not _code_frame(sys._getframe(level + 1)):
                raise ValueError(
                    "a pandas expression is not allowed to resolve names outside the "
                    "function of the code that evaluates it: call pd.eval, DataFrame.query "
                    "or DataFrame.eval from the code itself, without level=, or pass "
                    "local_dict and global_dict")
        # the frame the original takes is level + 1 above its own, one
        # deeper than this one: pandas' levels count from here
        init(self, level + 1, global_dict, local_dict, resolvers, target)
        self.level = level + 1
    __init__.__qualname__ = init.__qualname__
    scope.Scope.__init__ = __init__


# name -> why: class attributes only the library reads (_LibraryOnly)
_LIBRARY_ONLY = {}


class _LibraryOnly:
    """A class attribute the library reads and the code may not: pandas'
    Styler renders with its jinja2 templates, whose Environment (and the
    Template class, whose environment_class) compiles any template text
    without jinja2's sandbox, so {{ x.__class__ }} walks attributes."""

    def __init__(self, value, name, reason):
        self.value = value
        self.name = name
        self.reason = reason

    def _check(self):
        # the frame that reads or sets the attribute: two above this one
        if _IN_CALL["on"]:
            module = sys._getframe(2).f_globals.get("__name__", "")
            if not (type(module) is str and module.startswith("pandas.")):
                raise AttributeError('attribute "%s" is not allowed: %s' % (self.name, self.reason))

    def __get__(self, obj, cls=None):
        self._check()
        value = self.value
        if obj is not None and self.name in getattr(obj, "__dict__", ()):
            return obj.__dict__[self.name]     # pandas' copy of a Styler
        return value.__get__(obj, cls) if hasattr(type(value), "__get__") else value

    def __set__(self, obj, value):
        self._check()
        obj.__dict__[self.name] = value


def _guard_styler_format_sites():
    """Where pandas formats a string the code gave: a formatter string
    (_maybe_wrap_formatter, however Styler.format was reached, unbound on
    StylerRenderer too) and relabel_index's labels."""
    try:
        from pandas.io.formats import style_render
    except ImportError:  # no jinja2
        return
    wrap = style_render._maybe_wrap_formatter

    def _maybe_wrap_formatter(formatter=None, *args, **kwargs):
        if _PANDAS_GUARD["on"] and isinstance(formatter, str):
            problem = format_string_problem(str.__str__(formatter))
            if problem is not None:
                raise AttributeError(problem + " (in a Styler format)")
            formatter = str.__str__(formatter)
        return wrap(formatter, *args, **kwargs)
    _maybe_wrap_formatter.__qualname__ = wrap.__qualname__
    style_render._maybe_wrap_formatter = _maybe_wrap_formatter
    cls = style_render.StylerRenderer
    if "relabel_index" in cls.__dict__:
        relabel = cls.__dict__["relabel_index"]

        def relabel_index(self, labels, *args, **kwargs):
            if _PANDAS_GUARD["on"]:
                labels = list(labels)
                for i, label in enumerate(labels):
                    if isinstance(label, str):
                        problem = format_string_problem(str.__str__(label))
                        if problem is not None:
                            raise AttributeError(problem + " (in Styler.relabel_index)")
                        labels[i] = str.__str__(label)
            return relabel(self, labels, *args, **kwargs)
        relabel_index.__qualname__ = relabel.__qualname__
        relabel_index.__doc__ = relabel.__doc__
        cls.relabel_index = relabel_index


def _guard_styler_templates():
    try:
        from pandas.io.formats.style_render import StylerRenderer
        from pandas.io.formats.style import Styler
    except ImportError:  # no jinja2: no Styler either
        return
    reason = "it compiles templates outside jinja2's sandbox; format with Styler.format"
    for cls in (StylerRenderer, Styler):
        for name in list(cls.__dict__):
            if (name in ("env", "loader") or name.startswith("template_") or
                    name == "from_custom_template") and \
                    not isinstance(cls.__dict__[name], _LibraryOnly):
                setattr(cls, name, _LibraryOnly(cls.__dict__[name], name, reason))
                _LIBRARY_ONLY[name] = reason


def _guard_object_hashtables():
    """pandas' hash tables of Python objects keep their keys' pointers
    without a reference, borrowed from the array they were given
    (PyObjectHashTable.map_locations, and hashtable's duplicated, ismember,
    value_count and mode).  A key's __eq__ or __hash__ (the code's method)
    that replaces that array's elements frees keys the table still compares
    and rehashes: a use after free (Series(a, copy=False).duplicated(),
    Series.isin(a)).  An Index's ObjectEngine keeps its table across calls,
    over the Index's own array, which the code may write
    (pd.Index(a, copy=False); a[:] = None; idx.get_loc(k)).  In a call those
    functions get private copies of arrays of objects (which hold their own
    references and which the code cannot reach), and an ObjectEngine is
    always built on a private copy."""
    import numpy as np
    import pandas.core.algorithms as algorithms
    import pandas.core.frame as frame
    import pandas.core.indexes.multi as multi
    from pandas._libs import hashtable
    from pandas._libs import index as libindex
    from pandas._libs.properties import CachedProperty
    from pandas.core.indexes.base import Index
    real = np.ndarray

    def private(value):
        if isinstance(value, real) and value.dtype.hasobject:
            return real.copy(value)
        return value

    def on_private_copies(function):
        def checked(*args, **kwargs):
            if _IN_CALL["on"]:
                args = [private(a) for a in args]
                kwargs = {k: private(v) for k, v in kwargs.items()}
            return function(*args, **kwargs)
        checked.__name__ = getattr(function, "__name__", "checked")
        checked.__qualname__ = getattr(function, "__qualname__", checked.__name__)
        checked.__doc__ = function.__doc__
        return checked

    for name in ("duplicated", "ismember", "value_count", "mode"):
        setattr(hashtable, name, on_private_copies(getattr(hashtable, name)))
    frame.duplicated = hashtable.duplicated
    multi.duplicated = hashtable.duplicated
    # safe_sort maps the locations of the values it was given
    get_algo = algorithms._get_hashtable_algo

    def _get_hashtable_algo(values):
        table, values = get_algo(values)
        if _IN_CALL["on"]:
            values = private(values)
        return table, values
    _get_hashtable_algo.__doc__ = get_algo.__doc__
    algorithms._get_hashtable_algo = _get_hashtable_algo

    make_engine = Index.__dict__["_engine"].fget

    def _engine(self):
        engine = make_engine(self)
        if type(engine) is libindex.ObjectEngine:
            engine = libindex.ObjectEngine(real.copy(engine.values))
        return engine
    _engine.__doc__ = make_engine.__doc__
    Index._engine = CachedProperty(_engine)


def _guard_take_nd():
    """pandas' take_nd trusts its indexer ("assumes that the indexer is a
    valid(ated) indexer with no out of bound indices"): its Cython take
    reads arr[i] unchecked.  Codes a library method found on an object of
    the code's (pd.Categorical.astype(fake, "int64"), a fake's _codes)
    read past the categories (heap words, SIGSEGV).  In a call the indexer
    is checked, in every pandas module that imported take_nd."""
    import numpy as np
    import pandas.core.array_algos.take as take
    from pandas._libs import lib
    original = take.take_nd

    def take_nd(arr, indexer, axis=0, fill_value=lib.no_default, allow_fill=True):
        if _IN_CALL["on"] and indexer is not None:
            positions = np.asarray(indexer)
            if positions.size and positions.dtype.kind in "iu":
                shape = getattr(arr, "shape", None) or (len(arr),)
                n = shape[axis] if -len(shape) <= axis < len(shape) else 0
                low = -1 if allow_fill else 0
                if positions.min() < low or positions.max() >= n:
                    raise ValueError("a take of positions outside %d values (%d to %d) is "
                                     "not allowed in the sandbox: pandas reads them unchecked"
                                     % (n, positions.min(), positions.max()))
        return original(arr, indexer, axis, fill_value, allow_fill)
    take_nd.__name__ = original.__name__
    take_nd.__qualname__ = original.__qualname__
    take_nd.__doc__ = original.__doc__
    for name, module in list(sys.modules.items()):
        if name.startswith("pandas.") and ".tests" not in name and \
                getattr(module, "take_nd", None) is original:
            module.take_nd = take_nd


def _guard_template_compile():
    """jinja2 compiles a template to Python source and that source with
    compile() (Environment._compile), outside jinja2's sandbox: whoever
    holds an Environment or a Template class ({{ lipsum.__globals__.os }})
    runs Python with the real builtins.  _LibraryOnly keeps pandas'
    Environment from the code only by who reads it, and pandas' frame reads
    it on the code's behalf (NDFrame.__getattr__, the fallback of a class
    deriving from DataFrame and Styler, after _LibraryOnly refused the code).
    So in a call _compile takes only the Python source jinja2 made of
    pandas' own templates (recorded here, before any call), whatever
    Environment, loader, extension or code generator asks; and
    from_custom_template (an Environment over files the code names) is
    never handed out."""
    try:
        import jinja2.environment as environment
        from pandas.io.formats.style_render import StylerRenderer
    except ImportError:  # no jinja2: no Styler either
        return
    cls = environment.Environment
    real = cls.__dict__["_compile"]
    known = set()
    env = StylerRenderer.__dict__["env"]
    env = env.value if isinstance(env, _LibraryOnly) else env
    for name in env.loader.list_templates():
        source, filename, _ = env.loader.get_source(env, name)
        known.add(env.compile(source, name, filename, raw=True))

    def _compile(self, source, filename):
        if _IN_CALL["on"] and not (type(source) is str and str.__str__(source) in known):
            raise PermissionError("jinja2 may not compile templates other than pandas' own "
                                  "in the sandbox: they run outside jinja2's sandbox; format "
                                  "with Styler.format and render with Styler.to_html")
        return real(self, source, filename)
    _compile.__qualname__ = real.__qualname__
    cls._compile = _compile
    found = StylerRenderer.__dict__.get("from_custom_template")
    if found is not None:
        found = found.value if isinstance(found, _LibraryOnly) else found
        refuse(getattr(found, "__func__", found),
               "it compiles templates from files outside jinja2's sandbox")


def _array_args_problem(real, params, args, kwargs):
    """Why numpy may not make this array in a call, or None: no strides=
    (numpy's check of them sums stride * (dim - 1) in 64 bits and
    overflows, with a buffer or without: an element at any address), and
    over a buffer no Python objects in the dtype (its bytes would be read
    as pointers)."""
    import numpy as np
    given = dict(zip(params, args))
    given.update(kwargs)
    if given.get("strides") is not None:
        return ("strides= is not allowed in the sandbox: numpy's check of them "
                "overflows; reshape or transpose the array instead")
    buffer = given.get("buf" if "buf" in params else "buffer")
    if buffer is not None:
        problem = _buffer_extent_problem(np, real, given, buffer)
        if problem is not None:
            return problem
    if buffer is not None and real.__name__ != "chararray":
        dtype = given.get("dtype")
        if real.__name__ in ("recarray", "MaskedRecords") and dtype is None:
            return ("a recarray over a buffer needs dtype= in the sandbox (not formats=): "
                    "it may not hold Python objects")
        if np.dtype(float if dtype is None else dtype).hasobject:
            return ("an array of Python objects over a buffer is not allowed in the "
                    "sandbox: its bytes would be read as pointers")
    return None


def _holds_objects(buffer):
    """Does buffer export Python object pointers (an array of objects, a
    structured one with an object field, a view of either)?"""
    import numpy as np
    if isinstance(buffer, (np.ndarray, np.generic)):
        return buffer.dtype.hasobject
    try:
        view = memoryview(buffer)
    except TypeError as exc:
        # the checked memoryview refuses a view of objects (in a call)
        return "Python objects" in str(exc)
    except (BufferError, ValueError):
        return False
    try:
        return "O" in (view.format or "")
    finally:
        view.release()


def _buffer_extent_problem(np, real, given, buffer):
    """numpy checks offset + size <= len(buffer) in 64 bits: a negative
    offset, or one that overflows the sum, placed the array before or far
    past the buffer (any address).  Checked here in Python's integers."""
    import operator
    if _holds_objects(buffer):
        return ("an array over the memory of an array of Python objects is not allowed in "
                "the sandbox: its pointers would be read and written as numbers")
    try:
        nbytes = memoryview(buffer).nbytes
    except (TypeError, BufferError, ValueError):
        return None                      # numpy refuses it itself
    offset = given.get("offset", 0)
    offset = 0 if offset is None else operator.index(offset)
    if not 0 <= offset <= nbytes:
        return ("offset=%d is outside the buffer of %d bytes" % (offset, nbytes))
    shape = given.get("shape")
    if shape is None:
        return None
    shape = (shape,) if not isinstance(shape, (tuple, list)) else shape
    dims = [operator.index(d) for d in shape]
    if dims == [-1]:
        return None                      # numpy sizes it from what is left
    try:
        if real.__name__ == "chararray":
            itemsize = operator.index(given.get("itemsize", 1))
            if given.get("unicode"):
                itemsize *= 4
        elif real.__name__ in ("recarray", "MaskedRecords") and given.get("dtype") is None:
            return None                  # formats=: refused over a buffer already
        else:
            dtype = given.get("dtype")
            itemsize = np.dtype(float if dtype is None else dtype).itemsize
    except (TypeError, ValueError):
        return None
    size = itemsize
    for d in dims:
        if d < 0:
            return "a negative dimension is not allowed"
        size *= d
    if offset + size > nbytes:
        return ("the array (%d bytes at offset %d) does not fit in the buffer of %d bytes"
                % (size, offset, nbytes))
    return None


def _checked_array_class(real, params):
    """numpy's ndarray (a C type, whose __new__ cannot be replaced) as the
    code gets it: isinstance and issubclass answer for the real class, and
    making one is checked (_array_args_problem)."""

    class CheckedArrayType(type(real)):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

    def __new__(cls, *args, **kwargs):
        if _IN_CALL["on"]:
            problem = _array_args_problem(real, params, args, kwargs)
            if problem is not None:
                raise ValueError(problem)
        if cls is checked:
            return real(*args, **kwargs)
        return real.__new__(cls, *args, **kwargs)

    class ClassLevelRefused:
        """np.ndarray.strides / .data read from the class: numpy's own
        setter, which a class of the code's could bind under another name
        (s = np.ndarray.strides; arr.s = ...).  Arrays' own attributes are
        the real class's (arrays are real ndarrays)."""

        def __init__(self, name):
            self.name = name

        def __get__(self, obj, cls=None):
            if obj is None and _IN_CALL["on"]:
                raise AttributeError('ndarray.%s as a class attribute is not allowed in the '
                                     'sandbox: it sets what numpy does not check' % self.name)
            return real.__dict__[self.name].__get__(obj, cls)

        def __set__(self, obj, value):
            raise AttributeError('setting attribute "%s" is not allowed' % self.name)

    checked = CheckedArrayType(real.__name__, (real,), {
        "__new__": __new__, "__module__": real.__module__,
        "__qualname__": real.__qualname__, "__doc__": real.__doc__,
        "strides": ClassLevelRefused("strides"), "data": ClassLevelRefused("data")})
    return checked


def _check_array_new(cls, params):
    """A Python subclass of ndarray (recarray, chararray, MaskedRecords):
    its own __new__, checked in place, however it is reached (np.rec.array
    and mrecords call recarray's)."""
    original = cls.__dict__["__new__"]
    original = original.__func__ if isinstance(original, staticmethod) else original

    def __new__(subtype, *args, **kwargs):
        if _IN_CALL["on"]:
            problem = _array_args_problem(cls, params, args, kwargs)
            if problem is not None:
                raise ValueError(problem)
        return original(subtype, *args, **kwargs)
    __new__.__qualname__ = original.__qualname__
    __new__.__doc__ = original.__doc__
    cls.__new__ = staticmethod(__new__)


def _patch_ndarray_type(np):
    """numpy's ndarray itself, however the code reaches the class (an
    attribute that is the class, an alias, a subclass): its __new__ checks
    its arguments (_array_args_problem) and its strides and data refuse to
    be set in a call, nor resize(refcheck=False) made.  ndarray is a static
    type, immutable to Python: _set_on_immutable_type lifts its flag, here
    in the worker before any child exists, for those assignments.  Its C
    __new__ is called through its slot's pointer (_c_new).  False if the type is not laid out as
    expected (then the checked class alone stands)."""
    array_new = _c_new(np.ndarray)
    if array_new is None:
        return False
    params = ("shape", "dtype", "buffer", "offset", "strides", "order")
    real = np.ndarray

    def __new__(subtype, *args, **kwargs):
        if _IN_CALL["on"]:
            problem = _array_args_problem(real, params, args, kwargs)
            if problem is not None:
                raise ValueError(problem)
        return array_new(subtype, args, kwargs)

    class Unsettable:
        """An attribute of every array, read as numpy's, never set in a call."""

        def __init__(self, name, descriptor):
            self.name = name
            self.descriptor = descriptor
            self.__doc__ = descriptor.__doc__

        def __get__(self, obj, cls=None):
            if obj is None:
                if _IN_CALL["on"]:
                    raise AttributeError('ndarray.%s as a class attribute is not allowed in '
                                         'the sandbox' % self.name)
                return self
            return self.descriptor.__get__(obj, cls)

        def __set__(self, obj, value):
            if _IN_CALL["on"]:
                raise AttributeError('setting attribute "%s" of an array is not allowed in '
                                     'the sandbox: numpy does not check it' % self.name)
            self.descriptor.__set__(obj, value)

        def __delete__(self, obj):
            self.descriptor.__delete__(obj)

    class ObjectData(Unsettable):
        """arr.data: a memoryview of the array's memory; of an array of
        Python objects, one whose pointers could be cast to bytes and
        written (memoryview(...).cast("B"), or copied raw into another
        such view, without their reference counts)."""

        def __get__(self, obj, cls=None):
            if obj is not None and _IN_CALL["on"] and obj.dtype.hasobject:
                raise AttributeError('the "data" of an array of Python objects is not '
                                     'available in the sandbox')
            return Unsettable.__get__(self, obj, cls)

    resize = real.__dict__["resize"]

    def checked_resize(self, *args, **kwargs):
        # refcheck=False reallocates the memory under the array's views:
        # they read and write it after it is freed
        # pandas' hash tables resize their own vectors this way, from
        # Cython: allowed only for the array a hash table's Vector holds
        # (pandas' Python code as the caller is not enough: pandas calls
        # the code's functions with keywords of its choosing, as
        # Series.rolling().apply(f, kwargs={"refcheck": False}) does)
        if _IN_CALL["on"] and not kwargs.get("refcheck", True) and \
                not (_pandas_frame(sys._getframe(1)) and _hashtable_vector_array(self)):
            raise ValueError("resize(refcheck=False) is not allowed in the sandbox: the "
                             "array's views would point to freed memory; use np.resize(a, "
                             "shape), which copies")
        return resize(self, *args, **kwargs)
    checked_resize.__name__ = "resize"
    checked_resize.__qualname__ = "ndarray.resize"
    checked_resize.__doc__ = resize.__doc__

    def on_private_copy(name, in_place):
        # numpy's sorts and argmax/argmin of Python objects keep elements'
        # pointers without a reference (a sort's pivot, heapsort's tmp,
        # argmax's best so far) while the elements' comparison runs code
        # (a functools.cmp_to_key key): code that replaces the array's
        # elements frees them, and the sort writes the freed pointers
        # back (a use after free).  In a call they work on a private copy,
        # which holds its own references and which that code cannot reach
        method = real.__dict__[name]

        def checked(self, *args, **kwargs):
            if not (_IN_CALL["on"] and self.dtype.hasobject):
                return method(self, *args, **kwargs)
            private = real.copy(self)
            result = method(private, *args, **kwargs)
            if in_place:
                real.__setitem__(self, Ellipsis, private)
            return result
        checked.__name__ = name
        checked.__qualname__ = "ndarray." + name
        checked.__doc__ = method.__doc__
        return checked

    return _set_on_immutable_type(real, [
        ("__new__", staticmethod(__new__)),
        ("strides", Unsettable("strides", real.__dict__["strides"])),
        ("data", ObjectData("data", real.__dict__["data"])),
        ("resize", checked_resize)] + [
        (name, on_private_copy(name, name in ("sort", "partition")))
        for name in ("sort", "partition", "argmax", "argmin")])


def _guard_object_memory(np):
    """The memory of an array of Python objects is pointers: read as
    numbers it gives their addresses, written as numbers it forges objects
    (np.frombuffer(objects, "u8")[0] = address), and copied raw between two
    memoryviews of such arrays it takes no references.  In a call no
    memoryview of it is made (memoryview(x), whose __new__ is checked in
    place like ndarray's; arr.data, _patch_ndarray_type) and np.frombuffer
    refuses it; the worker's sb_io.guard_object_buffers refuses it to every
    other reader that asks for bytes without their format (struct.pack_into,
    io's readinto)."""
    frombuffer = np.frombuffer

    def checked_frombuffer(buffer, *args, **kwargs):
        if _IN_CALL["on"] and _holds_objects(buffer):
            raise ValueError("np.frombuffer of an array of Python objects is not allowed in "
                             "the sandbox: its pointers would be read and written as numbers")
        return frombuffer(buffer, *args, **kwargs)
    checked_frombuffer.__name__ = frombuffer.__name__
    checked_frombuffer.__doc__ = frombuffer.__doc__
    _SUBSTITUTES[id(frombuffer)] = checked_frombuffer

    memory_new = _c_new(memoryview)

    def __new__(subtype, *args, **kwargs):
        view = memory_new(subtype, args, kwargs)
        if _IN_CALL["on"] and "O" in (view.format or ""):
            view.release()
            raise TypeError("a memoryview of Python objects is not allowed in the sandbox: "
                            "its pointers could be cast to bytes and written")
        return view
    if memory_new is None or \
            not _set_on_immutable_type(memoryview, [("__new__", staticmethod(__new__))]):
        sys.stderr.write("pysandbox-worker: memoryview could not be checked in place; "
                         "the code does not get it\n")
        _BASE_BUILTINS.pop("memoryview", None)
    try:
        import sb_io
    except ImportError:                  # the unit tests' stub
        return
    guard = getattr(sb_io, "guard_object_buffers", None)
    if guard is not None:
        guard(np.ndarray)
    # numpy's loops over objects (maximum, minimum, clip, logical_and, ...)
    # keep an element's pointer across its comparison, which may run code
    # that frees it: the worker wraps them to hold a reference meanwhile
    guard = getattr(sb_io, "guard_object_loops", None)
    if guard is not None:
        import numpy.core.umath as umath
        ufuncs = {id(u): u for u in list(vars(np).values()) + list(vars(umath).values())
                  if isinstance(u, np.ufunc) and u.signature is None}
        guard(list(ufuncs.values()))


def _hashtable_vector_array(array):
    """Is array the buffer a pandas hash table Vector (Int64Vector,
    ObjectVector...) holds?  The code cannot make one, and pandas resizes
    it only while no view of it was handed out (external_view_exists)."""
    import gc
    for holder in gc.get_referrers(array):
        cls = type(holder)
        if type.__getattribute__(cls, "__module__") == "pandas._libs.hashtable" and \
                type.__getattribute__(cls, "__name__").endswith("Vector"):
            return True
    return False


def _pandas_frame(frame):
    name = frame.f_globals.get("__name__") if frame is not None else None
    return type(name) is str and name.startswith("pandas.")


def _hand_out_checked_ndarray(np):
    """The checked class in place of the real ndarray: from module
    proxies, type(), typing.get_origin, numpy.typing.NDArray and
    MaskedArray.baseclass (the routes to the real class the reviews found;
    arr.view(np.ndarray) then gives instances of the checked class)."""
    import typing
    import numpy.typing as npt
    checked = _checked_array_class(
        np.ndarray, ("shape", "dtype", "buffer", "offset", "strides", "order"))
    _SUBSTITUTES[id(np.ndarray)] = checked
    _TYPE_SUBSTITUTES[id(np.ndarray)] = checked
    _SUBSTITUTES[id(typing.get_origin)] = _checked_origin(typing.get_origin)
    _SUBSTITUTES[id(npt.NDArray)] = checked[typing.Any, np.dtype[typing.Any]]
    base = np.ma.MaskedArray.__dict__["baseclass"]

    def baseclass(self):
        found = base.fget(self)
        return _TYPE_SUBSTITUTES.get(id(found), found)
    np.ma.MaskedArray.baseclass = property(baseclass, doc=base.__doc__)


def _checked_origin(get_origin):
    """typing.get_origin(npt.NDArray) is the real ndarray: the checked one."""
    def checked(tp):
        found = get_origin(tp)
        return _TYPE_SUBSTITUTES.get(id(found), found)
    checked.__name__ = get_origin.__name__
    checked.__doc__ = get_origin.__doc__
    return checked


def harden_numpy():
    """numpy's entry points that reach memory by address or unpickle:
    as_strided and DummyArray (an __array_interface__ of any address, with
    id() an address: read and write anywhere), and read_array's
    allow_pickle (NpzFile(io.BytesIO(...), allow_pickle=True) ran a pickle,
    and so any builtin)."""
    import numpy as np
    from numpy.lib import format as npformat
    from numpy.lib import stride_tricks
    _NDARRAY[0] = np.ndarray
    import numpy.ma.mrecords as mrecords
    for cls, params in (
            (np.recarray, ("shape", "dtype", "buf", "offset", "strides", "formats", "names",
                           "titles", "byteorder", "aligned", "order")),
            (mrecords.MaskedRecords, ("shape", "dtype", "buf", "offset", "strides")),
            (np.chararray, ("shape", "itemsize", "unicode", "buffer", "offset", "strides",
                            "order"))):
        _check_array_new(cls, params)
    if not _patch_ndarray_type(np):
        # ndarray not laid out as expected: the code gets a checked class
        # instead, wherever the reviews found the real one handed out
        sys.stderr.write("pysandbox-worker: numpy's ndarray could not be checked in place; "
                         "the code gets a checked class instead\n")
        _hand_out_checked_ndarray(np)
    _guard_object_memory(np)
    records = np.core.records
    fromstring = records.fromstring

    def checked_fromstring(datastring, dtype=None, *args, **kwargs):
        if _IN_CALL["on"] and (dtype is None or np.dtype(dtype).hasobject):
            raise TypeError("np.rec.fromstring without a dtype, or with Python objects in "
                            "it, is not allowed in the sandbox: bytes would be read as "
                            "object pointers")
        return fromstring(datastring, dtype, *args, **kwargs)
    checked_fromstring.__name__ = fromstring.__name__
    checked_fromstring.__doc__ = fromstring.__doc__
    records.fromstring = checked_fromstring      # np.rec.array calls it too
    for name in ("lookfor", "source", "info", "byte_bounds", "deprecate",
                 "deprecate_with_doc", "safe_eval"):
        obj = getattr(np, name, None)
        if obj is not None:
            refuse(obj, "it imports modules or reads memory addresses and source files")
    refuse(stride_tricks.as_strided,
           "it reads and writes memory at any offset; use "
           "numpy.lib.stride_tricks.sliding_window_view")
    refuse(stride_tricks.DummyArray, "it makes an array of any address")
    _guard_name_factories(np)
    refuse(np.add_newdoc, "it imports any module named by a string")
    read_array = npformat.read_array

    def checked_read_array(fp, allow_pickle=False, *args, **kwargs):
        if _IN_CALL["on"] and allow_pickle:
            raise ValueError("reading arrays of Python objects is not allowed in the "
                             "sandbox: it unpickles, which runs code")
        return read_array(fp, allow_pickle, *args, **kwargs)
    checked_read_array.__name__ = read_array.__name__
    checked_read_array.__qualname__ = read_array.__qualname__
    checked_read_array.__doc__ = read_array.__doc__
    npformat.read_array = checked_read_array


def _guard_pandas_names():
    """pandas functions that take attribute names as strings: agg/apply/
    transform("name") and groupby's agg("name") look the name up on the
    object (s.agg("__dict__")), BaseIndexer(**kwargs) sets each keyword as
    an attribute, and a few helpers set attributes by name on a class
    (CachedAccessor, delegate_names, temp_setattr, inherit_names)."""
    import pandas.core.apply as apply
    for cls in (apply.Apply, apply.FrameApply, apply.SeriesApply):
        for name in ("_try_aggregate_string_function", "apply_str"):
            if name in cls.__dict__:
                _check_string_name(cls, name)
    from pandas.core.groupby import generic
    for cls in (generic.SeriesGroupBy, generic.DataFrameGroupBy):
        for name in ("aggregate", "agg"):
            if name in cls.__dict__:
                _check_string_name(cls, name, first_argument=True)
    # GroupBy.apply("name") is getattr(self, name)(...), and called unbound
    # on any object (GroupBy.apply(f, "__globals__")) a getattr of anything;
    # SeriesGroupBy.filter("name", dropna, *args) the same for each group
    from pandas.core.groupby.groupby import GroupBy
    _check_string_name(GroupBy, "apply", first_argument=True)
    _check_string_name(generic.SeriesGroupBy, "filter", first_argument=True)
    pct_change = GroupBy.pct_change

    def checked_pct_change(self, periods=1, fill_method="ffill", *args, **kwargs):
        if _IN_CALL["on"]:
            _name_problem(fill_method, "pct_change")
        return pct_change(self, periods, fill_method, *args, **kwargs)
    checked_pct_change.__name__ = pct_change.__name__
    checked_pct_change.__qualname__ = pct_change.__qualname__
    checked_pct_change.__doc__ = pct_change.__doc__
    GroupBy.pct_change = checked_pct_change
    # a library asking a Series or DataFrame for a special name
    # (__array_interface__, __dataframe__) got a column or an index label
    # the code chose
    from pandas.core.generic import NDFrame
    ndframe_getattr = NDFrame.__getattr__

    def __getattr__(self, name):
        if _IN_CALL["on"] and type(name) is str and name.startswith("__"):
            return object.__getattribute__(self, name)
        return ndframe_getattr(self, name)
    __getattr__.__qualname__ = ndframe_getattr.__qualname__
    NDFrame.__getattr__ = __getattr__
    _guard_pandas_codes()
    _guard_window_bounds()
    import pandas.api.interchange as interchange
    refuse(interchange.from_dataframe,
           "it reads the memory at the addresses an object of the interchange protocol gives")
    # getattr(ufunc, method) with the method name an argument
    import pandas.core.arraylike as arraylike
    for name in ("array_ufunc", "dispatch_ufunc_with_out", "default_array_ufunc",
                 "dispatch_reduction_ufunc"):
        if hasattr(arraylike, name):
            refuse(getattr(arraylike, name), "it looks up a method named by a string")
    from pandas.api.indexers import BaseIndexer
    init = BaseIndexer.__init__

    def __init__(self, index_array=None, window_size=0, **kwargs):
        if _IN_CALL["on"]:
            for key in list(kwargs):
                _name_problem(key, "BaseIndexer")
        init(self, index_array, window_size, **kwargs)
    __init__.__qualname__ = init.__qualname__
    BaseIndexer.__init__ = __init__
    import pandas.core.accessor as accessor
    import pandas.core.common as common
    import pandas.core.indexes.extension as extension
    for obj in (accessor.CachedAccessor, accessor.delegate_names, common.temp_setattr,
                extension.inherit_names):
        refuse(obj, "it sets attributes named by strings")


def _check_string_name(cls, name, first_argument=False):
    """cls.name, checking its string argument (or self.f) as an attribute
    name while a call's guards are on."""
    method = cls.__dict__[name]

    def checked(self, *args, **kwargs):
        if _IN_CALL["on"]:
            if first_argument:
                arg = args[0] if args else kwargs.get("func")
            elif args:
                arg = args[1] if len(args) > 1 else None
            else:
                arg = getattr(self, "f", None)
            _name_problem(arg, "pandas")
        return method(self, *args, **kwargs)
    checked.__name__ = method.__name__
    checked.__qualname__ = method.__qualname__
    checked.__doc__ = method.__doc__
    setattr(cls, name, checked)


def _guard_window_bounds():
    """rolling(indexer) with a BaseIndexer of the code's: pandas checks
    only the length of the start and end arrays its get_window_bounds
    returns, and its Cython window functions (boundscheck off) read
    values[start[i]:end[i]]: a bound past the data, or negative, read any
    memory near it (heap pointers came back as numbers; far ones crash).
    ewm's functions take the same arrays, with pandas' length check
    switched off.  In a call every window function of
    pandas._libs.window.aggregations checks its bounds first (the module
    is private: pandas looks its functions up at each call)."""
    import numpy as np
    import pandas._libs.window.aggregations as aggregations

    def bounds_problem(name, values, start, end, other):
        n = len(values)
        start = np.asarray(start)
        end = np.asarray(end)
        if start.ndim != 1 or start.shape != end.shape:
            return "the window's start and end bounds must be two arrays of one length"
        if start.size and (int(start.min()) < 0 or int(end.min()) < 0 or
                           int(start.max()) > n or int(end.max()) > n):
            return ("a window bound is outside the %d values (a window indexer's "
                    "get_window_bounds must return start and end between 0 and the "
                    "number of values)" % n)
        if other is not None and len(other) != n:
            return "the two series of a window's covariance must be of one length"
        return None

    def wrap(name, function):
        def checked(*args, **kwargs):
            if _IN_CALL["on"]:
                first = args[0] if args else next(iter(kwargs.values()), None)
                start = args[1] if len(args) > 1 else kwargs.get("start")
                end = args[2] if len(args) > 2 else kwargs.get("end")
                other = None
                if name == "ewmcov":
                    other = args[4] if len(args) > 4 else kwargs.get("input_y")
                if start is not None and end is not None and first is not None:
                    problem = bounds_problem(name, first, start, end, other)
                    if problem is not None:
                        raise ValueError(problem)
            return function(*args, **kwargs)
        checked.__name__ = name
        checked.__qualname__ = getattr(function, "__qualname__", name)
        checked.__doc__ = function.__doc__
        return checked

    for name in ("roll_sum", "roll_mean", "roll_var", "roll_skew", "roll_kurt",
                 "roll_median_c", "roll_max", "roll_min", "roll_quantile", "roll_rank",
                 "roll_apply", "ewm", "ewmcov"):
        function = getattr(aggregations, name, None)
        if function is not None:
            setattr(aggregations, name, wrap(name, function))


def _guard_pandas_codes():
    """Categorical(codes, dtype=, fastpath=True) and MultiIndex(...,
    verify_integrity=False) (and its set_codes/set_levels) take codes
    unchecked; pandas' Cython take reads categories[code] without bounds:
    a code past the categories read any memory, as numbers or as object
    pointers.  In a call the codes are checked."""
    import numpy as np
    import pandas as pd
    from pandas.core.arrays.categorical import Categorical
    init = Categorical.__init__

    def __init__(self, values, categories=None, ordered=None, dtype=None, fastpath=False,
                 copy=True):
        init(self, values, categories, ordered, dtype, fastpath, copy)
        if fastpath and _IN_CALL["on"]:
            codes = np.asarray(self.codes)
            n = len(self.categories)
            if codes.size and (codes.min() < -1 or codes.max() >= n):
                raise ValueError("codes need to be between -1 and len(categories)-1")
    __init__.__qualname__ = init.__qualname__
    __init__.__doc__ = init.__doc__
    Categorical.__init__ = __init__

    MI = pd.MultiIndex
    new = MI.__new__

    def check_codes(mi):
        # pandas' own verify_integrity also checks sortorder, which pandas'
        # internal constructions (sort_index) do not always meet: only the
        # codes, which its Cython take trusts, are checked here
        codes = mi.codes
        if len({len(c) for c in codes}) > 1:
            raise ValueError("Length of levels and codes must match")
        for i, (level, level_codes) in enumerate(zip(mi.levels, codes)):
            level_codes = np.asarray(level_codes)
            if level_codes.size and (level_codes.min() < -1 or
                                     level_codes.max() >= len(level)):
                raise ValueError("On level %d, a code is outside the level's %d values"
                                 % (i, len(level)))
        return mi

    def __new__(cls, levels=None, codes=None, sortorder=None, names=None, dtype=None,
                copy=False, name=None, verify_integrity=True):
        result = new(cls, levels, codes, sortorder, names, dtype, copy, name, verify_integrity)
        if _IN_CALL["on"] and not verify_integrity:
            check_codes(result)
        return result
    __new__.__qualname__ = new.__qualname__
    __new__.__doc__ = new.__doc__
    MI.__new__ = staticmethod(__new__)
    for method in ("set_codes", "set_levels"):
        original = MI.__dict__[method]

        def checked(self, *args, __original=original, **kwargs):
            result = __original(self, *args, **kwargs)
            if _IN_CALL["on"]:
                check_codes(self if result is None else result)
            return result
        checked.__name__ = method
        checked.__qualname__ = original.__qualname__
        checked.__doc__ = original.__doc__
        setattr(MI, method, checked)


def _numpy_name_problem(np, name, call):
    """The name a numpy.ma factory looks up on the real numpy module (or
    on an array's class): what the module proxy would hand out, no more."""
    if not isinstance(name, str):
        raise TypeError("%s: the function name must be a str" % call)
    name = str.__str__(name)
    _name_problem(name, call)
    from sb_guard import _REFUSED, forbidden_attribute_reason
    found = getattr(np, name, None)
    refused = _REFUSED.get(id(found))
    if forbidden_attribute_reason(name) is not None or (
            refused is not None and refused[0] is found):
        raise AttributeError('%s: numpy function "%s" is not allowed in the sandbox'
                             % (call, name))
    return name


def _guard_name_factories(np):
    """numpy.ma's wrappers are made from a function's name, looked up with
    getattr() on the real numpy module (not the code's proxy) when they are
    made or called: type(np.ma.arange)("load", ...) was np.load, refused by
    name everywhere else, and np.load unpickles any file object
    (allow_pickle=True): the real builtins.  In a call the name is checked
    as the proxy checks it, when the wrapper is made and when it runs (its
    __name__ can change: functools.update_wrapper copies one)."""
    import numpy.ma.core as macore
    import numpy.ma.extras as maextras
    convert_init = macore._convert2ma.__init__

    def _convert2ma_init(self, funcname, *args, **kwargs):
        if _IN_CALL["on"]:
            funcname = _numpy_name_problem(np, funcname, "numpy.ma")
        convert_init(self, funcname, *args, **kwargs)
    _convert2ma_init.__qualname__ = convert_init.__qualname__
    macore._convert2ma.__init__ = _convert2ma_init
    classes = [macore._frommethod] + [
        c for c in vars(maextras).values()
        if isinstance(c, type) and issubclass(c, maextras._fromnxfunction)]
    for cls in classes:
        for name in ("__init__", "__call__"):
            if name in cls.__dict__:
                _check_factory_name(np, cls, name)


def _check_factory_name(np, cls, method_name):
    method = cls.__dict__[method_name]

    def checked(self, *args, **kwargs):
        if _IN_CALL["on"]:
            if method_name == "__init__":
                name = args[0] if args else kwargs.get("funcname", kwargs.get("methodname"))
            else:
                name = self.__dict__.get("__name__", getattr(type(self), "__name__", None))
            _numpy_name_problem(np, name, "numpy.ma")
        return method(self, *args, **kwargs)
    checked.__qualname__ = method.__qualname__
    checked.__doc__ = method.__doc__
    setattr(cls, method_name, checked)
