"""The libraries' entry points, checked in the worker (once, before any
child exists): pandas, numpy and the standard library functions that get,
set or evaluate what a string names, read memory at an address, or run
programs and native loads.

sb_guard.py holds the rules and the sandbox's builtins and imports; this
module applies them inside the libraries, where the validator never looks:
pandas' string dispatch and expressions, its readers and writers, the
Styler's templates and formats, numpy's array construction and
unpickling, typing's evaluation of annotations, dataclasses' field names,
Enum's functional API, functools' and operator's attribute helpers; and
the guards of sb_memory.py against memory the code could reach.  Each
check applies only in a call with the Python layer (sb_guard._IN_CALL);
the worker itself, warming up, runs the libraries unchecked.
"""

import abc
import ast
import datetime as _datetime
import io
import sys

from sb_guard import (  # noqa: F401 - the shared policy and the call's state
    _CLASS_DICT, DERIVABLE_LIBRARY_CLASSES, _BASE_BUILTINS, _IN_CALL, _NDARRAY, _PANDAS_GUARD, _SUBSTITUTES, _TYPE_SUBSTITUTES,
    NativeCodeNotLoaded, READERS, WRITERS, attribute_problem, class_problem, exact_str,
    format_string_problem, guard_kwargs,
    _deriving_refused, _made_by_code, guard_own_class, guard_settable, native_code_message,
    refuse, FINALIZER_CLASSES, has_finalizer)
import sb_bounds  # sizes native code trusts: numpy's and pandas' formatting
import sb_cpython  # CPython's own crashes: harden_interpreter()
from sb_memory import (  # noqa: F401 - the memory guards harden_* apply
    _set_on_immutable_type, _c_new, _harden_struct, _harden_bytearray_join,
    _harden_bytearray_mod, _harden_bytearray_index, _harden_fractions, _harden_list_slices,
    _harden_memoryview_hash,
    _harden_ordered_dict,
    _harden_zoneinfo, _harden_itertools,
    _harden_borrowed_comparisons, _harden_borrowed_calls, _harden_unicode_errors,
    _guard_lexsort, _guard_object_products,
    _array_args_problem,
    _holds_objects, _buffer_extent_problem, _checked_array_class, _check_array_new,
    _patch_ndarray_type, _guard_object_memory, _hashtable_vector_array, _pandas_frame,
    _guard_dtype_sizes, _guard_ufunc_at, _guard_bit_generator_state, _guard_generator_owners,
    _guard_nditer_writeback,
    _hand_out_checked_ndarray, _checked_origin, _guard_json_encoder, _guard_object_hashtables,
    _guard_string_arrays, _guard_ambiguous_times, _guard_period_fields,
    _guard_pandas_reexports, _guard_explode, _guard_reader_reentry,
    _guard_sparse_ops, _guard_join_indexers, _guard_take_nd, _guard_window_bounds,
    _guard_pandas_codes, _guard_pandas_abcs)


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
    """names (any iterable, taken once) if each is in allowed, as the exact
    strs checked (an object's own __eq__ answered "in", review 54)."""
    names = tuple(exact_str(name) for name in names)
    for name in names:
        if type(name) is not str or name not in allowed:
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
    if extra is None:
        return
    if isinstance(wrapped, types.MethodType):
        wrapped = wrapped.__func__      # its attributes are its function's
    if type(extra) is dict and extra and not isinstance(wrapped, types.FunctionType) and \
            _CLASS_DICT(type(wrapped)).get("__module__") != "__sandbox__":
        # a library object's attributes, its private ones raw (a copied
        # Styler's jinja2 Templates, a DataFrame's BlockManager: review 59)
        raise TypeError("functools.update_wrapper: copying the attributes of a \"%s\" is not "
                        "allowed in the sandbox: wrap a function, or pass updated=()"
                        % type(wrapped).__name__)
    if type(extra) is not dict:
        # a class's namespace (a mappingproxy) held its private members
        # and descriptors, each copied raw: pandas' jinja2 Environment
        # behind a Styler class's _LibraryOnly (review 56 F4)
        raise TypeError("functools.update_wrapper: copying the attributes of a %s is not "
                        "allowed in the sandbox: wrap a function, or pass updated=()"
                        % ("class" if isinstance(wrapped, type) else type(wrapped).__name__))
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

    try:
        import sb_io
    except ImportError:                  # the unit tests' stub
        sb_io = None
    if hasattr(sb_io, "guard_set_counts"):
        # a set's count made one too high by a comparison of the code's that
        # added to it (CPython gh-143546): emptied and freed by what its
        # table holds
        sb_io.guard_set_counts()
    assigned_ok = tuple(functools.WRAPPER_ASSIGNMENTS)
    updated_ok = tuple(functools.WRAPPER_UPDATES)
    update_wrapper = functools.update_wrapper

    def checked_update_wrapper(wrapper, wrapped, assigned=assigned_ok, updated=updated_ok):
        assigned = _checked_names(assigned, assigned_ok, "functools.update_wrapper")
        updated = _checked_names(updated, updated_ok, "functools.update_wrapper")
        if _IN_CALL["on"]:
            # it sets __wrapped__, the names assigned and (updated) every
            # attribute of the wrapped on the wrapper: not on a library's
            # class, nor hiding what a pandas object's class defines
            # (guard_settable)
            guard_settable(wrapper, "__wrapped__")
            for name in assigned:
                guard_settable(wrapper, name)
            if isinstance(wrapper, type) and "__module__" in assigned:
                # the code's class given another module's name no longer
                # counts as the code's (sb_guard._made_by_code: review 70 F3)
                raise TypeError("functools.update_wrapper: a class's __module__ is not set in "
                                "the sandbox; pass assigned=(\"__name__\", \"__qualname__\", "
                                "\"__doc__\") for a class")
            if "__dict__" in updated:
                _check_dict_copy(wrapper, wrapped)
                extra = getattr(wrapped, "__dict__", None)
                if type(extra) is dict:
                    for name in list(extra):
                        if type(name) is str:
                            guard_settable(wrapper, name)
        return update_wrapper(wrapper, wrapped, assigned, updated)

    def checked_wraps(wrapped, assigned=assigned_ok, updated=updated_ok):
        assigned = _checked_names(assigned, assigned_ok, "functools.wraps")
        updated = _checked_names(updated, updated_ok, "functools.wraps")
        return functools.partial(checked_update_wrapper, wrapped=wrapped,
                                 assigned=assigned, updated=updated)

    make_dataclass = dataclasses.make_dataclass

    def checked_make_dataclass(cls_name, fields, *args, namespace=None, **kwargs):
        # names as exact strs, checked and passed on (exact_str: review 53)
        cls_name = exact_str(cls_name)
        fields = [exact_str(f) if isinstance(f, str) else
                  (exact_str(f[0]),) + tuple(f[1:]) if isinstance(f, tuple) and f else f
                  for f in fields]
        names = [f if isinstance(f, str) else (f[0] if isinstance(f, tuple) and f else None)
                 for f in fields]
        if namespace is not None:
            items = list(dict(namespace).items())
            namespace = {exact_str(k): v for k, v in items}
            if len(namespace) != len(items):
                raise TypeError("make_dataclass: the namespace repeats a name")
            names += list(namespace)
        for name in names + [cls_name]:
            if type(name) is not str:
                # an object's own __hash__ and __eq__ would find it as any
                # name in the class's namespace (review 54)
                raise TypeError("make_dataclass: a name of type %s is not allowed in the "
                                "sandbox: names must be str"
                                % type(name).__name__)
        for name in names + [cls_name]:
            problem = attribute_problem(name) if isinstance(name, str) else None
            if problem is not None:
                raise AttributeError("make_dataclass: " + problem[1])
        _class_name_problem(cls_name, "make_dataclass")
        if not _IN_CALL["on"]:
            return make_dataclass(cls_name, fields, *args, namespace=namespace, **kwargs)
        # the bases a class statement may derive from (guard_own_class):
        # make_dataclass(bases=(pd.Categorical,), namespace={"categories":
        # property(...)}) overrode what pandas' native code trusts
        for base in kwargs.get("bases") or ():
            for c in (type.__getattribute__(base, "__mro__") if isinstance(base, type) else ()):
                if _deriving_refused(c):
                    raise TypeError('make_dataclass: deriving from "%s" is not allowed in the '
                                    'sandbox: pandas and numpy classes trust their own '
                                    'attributes and methods, which a subclass could replace; '
                                    'hold the object in a field instead'
                                    % type.__getattribute__(c, "__name__"))
        cls = make_dataclass(cls_name, fields, *args, namespace=namespace, **kwargs)
        problem = class_problem(cls)
        if problem is not None:
            raise TypeError("make_dataclass: " + problem)
        # the code's class, whatever module its metaclass's frame gave it
        type.__setattr__(cls, "__module__", "__sandbox__")
        if issubclass(cls, (str, bytes, _datetime.date, _datetime.time, _datetime.timedelta)):
            # what a class statement deriving from str may not be (review 55:
            # bases=(str,) with a namespace of its own startswith, or a mixin;
            # review 160: a date's month)
            from sb_guard import text_class_problem
            problem = text_class_problem(cls)
            if problem is not None:
                raise TypeError("make_dataclass: " + problem)
        return guard_own_class(tuple(n for n in names if isinstance(n, str)
                                     and n.startswith("_")))(cls)

    # dataclass(cls) writes into the class it is given: __init__ (where the
    # class has none of its own), __repr__, __eq__, __hash__, __setattr__
    # (frozen), __match_args__.  On a pandas class it rewrote pandas for
    # every caller: dataclass(pd.TimedeltaIndex) made TimedeltaIndex(data)
    # set the private _data to the code's own object after pandas' checks
    # (pd.TimedeltaIndex(["1 day"])[0] was the str "1 day"), and the
    # generated __repr__ shows private fields.  In a call it takes the
    # code's own classes (and make_dataclass's) only
    real_dataclass = dataclasses.dataclass

    def _dataclass_target(cls):
        if not _IN_CALL["on"] or not isinstance(cls, type):
            return
        module = type.__getattribute__(cls, "__module__")
        if module == "__sandbox__" or (module == "types" and dataclasses.is_dataclass(cls)):
            return
        raise TypeError('dataclass(): "%s" is not a class the code defines: making a library '
                        'class a dataclass rewrites its methods, which is not allowed in the '
                        'sandbox' % type.__getattribute__(cls, "__name__"))

    def checked_dataclass(cls=None, /, **kwargs):
        if cls is None:
            wrap = real_dataclass(**kwargs)

            def checked_wrap(cls):
                _dataclass_target(cls)
                return wrap(cls)
            return checked_wrap
        _dataclass_target(cls)
        return real_dataclass(cls, **kwargs)
    checked_dataclass.__name__ = real_dataclass.__name__
    checked_dataclass.__doc__ = real_dataclass.__doc__

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
        if _IN_CALL["on"] and isinstance(func, type) and not _made_by_code(func):
            # it copies what it wraps with the real update_wrapper: a
            # class's namespace raw (review 59 F5)
            raise TypeError("singledispatch of a library's class is not allowed in the "
                            "sandbox: wrap a function that makes its objects instead")
        dispatcher = functools.singledispatch(func)
        dispatcher.register = checked_dispatch_register(dispatcher.register)
        return dispatcher

    def checked_singledispatchmethod(func):
        method = functools.singledispatchmethod(func)
        method.register = checked_dispatch_register(method.register)
        return method

    total_ordering = functools.total_ordering

    # total_ordering(cls) sets the comparisons cls lacks on cls
    def checked_total_ordering(cls):
        if _IN_CALL["on"]:
            guard_settable(cls, "__le__")
        return total_ordering(cls)
    checked_total_ordering.__name__ = total_ordering.__name__
    checked_total_ordering.__doc__ = total_ordering.__doc__

    substitutes = [(functools.partial, _checked_partial_class()),
                   (functools.partialmethod, _checked_partialmethod_class()),
                   (functools.lru_cache, _no_library_class(functools.lru_cache, True)),
                   (functools.cache, _no_library_class(functools.cache)),
                   (update_wrapper, checked_update_wrapper),
                   (total_ordering, checked_total_ordering),
                   (functools.wraps, checked_wraps),
                   (make_dataclass, checked_make_dataclass),
                   (real_dataclass, checked_dataclass),
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
    _harden_copy_hooks()
    _harden_keyword_sinks()
    _harden_enum()
    _harden_namedtuple()
    _harden_warnings()
    _harden_typing()
    _harden_dataclasses()
    harden_dataclass_readers()
    _harden_struct()
    _harden_itertools()
    _harden_borrowed_comparisons()
    _harden_borrowed_calls()
    _harden_unicode_errors()
    _harden_bytearray_join()
    _harden_bytearray_mod()
    _harden_bytearray_index()
    _harden_list_slices()
    _harden_memoryview_hash()
    _harden_fractions()
    _harden_ordered_dict()
    _harden_zoneinfo()
    sb_cpython.harden_interpreter()
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
        # the exact strs that are checked are passed on (review 54)
        names = tuple(exact_str(name) for name in (attr,) + attrs)
        for name in names:
            for part in name.split(".") if type(name) is str else ():
                _name_problem(part, "attrgetter")
        return operator.attrgetter(*names)

    def checked_methodcaller(name, *args, **kwargs):
        name = exact_str(name)
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
    import typing

    # typing.final and no_type_check set a flag on the class they are given
    # (no_type_check on its functions too): not on a library's class
    def flagging(original, flag):
        def checked(arg):
            if _IN_CALL["on"] and isinstance(arg, type):
                guard_settable(arg, flag)
            return original(arg)
        return checked
    substitutes += [(typing.final, flagging(typing.final, "__final__")),
                    (typing.no_type_check, flagging(typing.no_type_check, "__no_type_check__"))]
    refuse(copy.dispatch_table, "it changes how every object is copied")
    # an ABC's register() changes what isinstance() answers for every
    # library that asks (numbers.Number.register(list) made pandas'
    # is_number() true for lists, and in a workspace for its next calls):
    # in a call, only the code's own classes are registered, into any ABC
    # (into the code's own ABC too: derived from numbers.Number, it made
    # list a Number as well, review 46)
    register = abc.ABCMeta.register

    def checked_register(cls, subclass):
        if _IN_CALL["on"] and isinstance(subclass, type) and not _made_by_code(subclass):
            raise TypeError('%s.register(%s) is not allowed in the sandbox: registering a '
                            'class the code did not make changes how every library checks '
                            'types; register a class of your own' % (
                                type.__getattribute__(cls, "__name__"),
                                type.__getattribute__(subclass, "__name__")))
        return register(cls, subclass)
    checked_register.__name__ = register.__name__
    checked_register.__qualname__ = register.__qualname__
    checked_register.__doc__ = register.__doc__
    abc.ABCMeta.register = checked_register
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
        if _IN_CALL["on"] and name is not None and type(name) is not str:
            # a key's own hash and == would find it as any name (a str
            # subclass, review 53; any object, review 55): the value is
            # stored in the instance's __dict__ under it
            raise AttributeError("cached_property: a name of type %s is not allowed in the "
                                 "sandbox: names must be str" % type(name).__name__)
        if _IN_CALL["on"] and isinstance(name, str) and name.startswith("__"):
            raise AttributeError('cached_property: name "%s" is not allowed: names that '
                                 'begin with "__" are reserved' % name)
        return cached_get(self, instance, owner)
    cached_property_get.__qualname__ = cached_get.__qualname__
    functools.cached_property.__get__ = cached_property_get
    # abc.abstractmethod and typing.dataclass_transform set a flag on what
    # they are given: not on a library's function or class (review 56 F7)
    def flag_setting(original, flag, called=None):
        def checked(arg):
            if _IN_CALL["on"] and not _code_made(arg):
                raise TypeError("%s() of a library's %s is not allowed in the sandbox: it "
                                "sets %s on it; use it on the code's own functions and classes"
                                % (called or original.__name__, "class" if isinstance(arg, type)
                                   else "object", flag))
            return original(arg)
        checked.__name__ = original.__name__
        checked.__qualname__ = getattr(original, "__qualname__", original.__name__)
        checked.__doc__ = original.__doc__
        return checked
    substitutes.append((abc.abstractmethod, flag_setting(abc.abstractmethod,
                                                         "__isabstractmethod__")))
    if hasattr(typing, "dataclass_transform"):
        transform = typing.dataclass_transform

        def checked_dataclass_transform(**kwargs):
            return flag_setting(transform(**kwargs), "__dataclass_transform__",
                                "dataclass_transform")
        checked_dataclass_transform.__name__ = "dataclass_transform"
        checked_dataclass_transform.__doc__ = transform.__doc__
        substitutes.append((transform, checked_dataclass_transform))
    for original, checked in substitutes:
        checked.__name__ = original.__name__
        checked.__qualname__ = original.__qualname__
        checked.__doc__ = original.__doc__
        _SUBSTITUTES[id(original)] = checked
    guard_library_getattrs()


# AttributeError's own member descriptor of .obj, once it is hidden
_ATTRIBUTE_ERROR_MEMBER = [None]


def attribute_error_object(exc):
    """The object an AttributeError's lookup failed on, for the runtime's
    own messages (df.amont: the DataFrame's columns); the code sees None."""
    member = _ATTRIBUTE_ERROR_MEMBER[0]
    if member is None:
        return getattr(exc, "obj", None)
    return member.__get__(exc, AttributeError)


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


def _class_name_problem(name, call):
    """A class's name is an identifier, as a class statement's is: libraries
    paste type names into text they compile (pandas' numexpr temporaries,
    review 56 F5)."""
    import keyword
    if type(name) is str and (not name.isidentifier() or keyword.iskeyword(name)):
        raise TypeError("%s: class name %r is not an identifier" % (call, name[:80]))


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


def _code_made(obj):
    """A function (or method) or class the code's own statements made."""
    import types
    if isinstance(obj, type):
        return _made_by_code(obj)
    if type(obj) is types.MethodType:
        obj = obj.__func__
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    return type(obj) is types.FunctionType and \
        getattr(obj, "__module__", None) == "__sandbox__"


def _no_library_class(decorator, takes_arguments=False):
    """functools.lru_cache / cache, refusing a library's
    class: they copy what they wrap with the real update_wrapper, a class's
    namespace raw, its private members included (review 59 F5).
    takes_arguments: lru_cache(maxsize) returns the decorator."""
    def check(wrapped):
        if _IN_CALL["on"] and isinstance(wrapped, type) and not _made_by_code(wrapped):
            raise TypeError("%s of a library's class is not allowed in the sandbox: wrap a "
                            "function that makes its objects instead" % decorator.__name__)

    def checked(*args, **kwargs):
        if args and callable(args[0]):
            check(args[0])
            return decorator(*args, **kwargs)
        inner = decorator(*args, **kwargs)
        if not takes_arguments or not callable(inner):
            return inner

        def decorating(wrapped):
            check(wrapped)
            return inner(wrapped)
        return decorating
    return checked


def _checked_partial_class():
    """functools.partial as the code gets it: its keywords, a dict anyone
    holding the partial may write (p.keywords["__array_interface__"] = x),
    are checked as f(**mapping) checks them when it is called (review 59
    F2)."""
    import functools

    class partial(functools.partial):
        __slots__ = ()

        def __call__(self, /, *args, **kwargs):
            if _IN_CALL["on"] and self.keywords:
                guard_kwargs(self.keywords)
            return functools.partial.__call__(self, *args, **kwargs)
    partial.__module__ = "functools"
    partial.__qualname__ = "partial"
    return partial


def _checked_partialmethod_class():
    """functools.partialmethod as the code gets it: its keywords are
    checked as f(**mapping) checks them when set, and kept as a read-only
    mapping; a real partial built from a writable dict passed
    "__array_interface__" on (review 61)."""
    import functools
    import types

    class partialmethod(functools.partialmethod):
        @property
        def keywords(self):
            return self._sb_keywords

        @keywords.setter
        def keywords(self, value):
            self._sb_keywords = types.MappingProxyType(guard_kwargs(value))
    partialmethod.__module__ = "functools"
    partialmethod.__qualname__ = "partialmethod"
    return partialmethod


def _harden_keyword_sinks():
    """Library classes that copy their keyword arguments into their own
    attributes (matplotlib's PickEvent, numpy's MachArLike): keywords a
    library or a partial passes on (a picker's returned props, a partial's
    writable .keywords) reached them past f(**mapping)'s check, and
    "__array_interface__" became an attribute numpy reads (review 59 F2).
    In a call, their keywords are checked as f(**mapping) checks them."""
    sinks = []
    try:
        from matplotlib.backend_bases import PickEvent
        sinks.append(PickEvent)
    except ImportError:
        pass
    try:
        from numpy.core.getlimits import MachArLike
        sinks.append(MachArLike)
    except ImportError:
        pass
    for cls in sinks:
        cls.__init__ = _checked_keywords_init(cls.__dict__["__init__"])


def _checked_keywords_init(init):
    def __init__(self, *args, **kwargs):
        if _IN_CALL["on"] and kwargs:
            kwargs = guard_kwargs(kwargs)
            for key in kwargs:
                if type(key) is str and key.startswith("_"):
                    raise TypeError('keyword argument "%s" is not allowed: it would set a '
                                    'private attribute' % key)
        return init(self, *args, **kwargs)
    __init__.__qualname__ = init.__qualname__
    __init__.__doc__ = init.__doc__
    return __init__


# names copy looks up on an object to copy it
_COPY_HOOKS = ("__deepcopy__", "__copy__", "__reduce_ex__", "__reduce__", "__getstate__",
               "__setstate__")


def _harden_copy_hooks():
    """copy.copy() and copy.deepcopy() look up __deepcopy__ and
    __reduce_ex__ on the object, where its own attributes come first: a
    function stored there (numpy.ma copied one into a MaskedArray's
    attributes) was called with deepcopy's memo, which holds the real
    __dict__ of the objects copied before it (review 56 F3), or returned
    a state written into any object's namespace.  In a call, an object
    whose own attributes hold one of those names is not copied."""
    import copy
    real_copy, real_deepcopy = copy.copy, copy.deepcopy
    plain = frozenset(copy._deepcopy_dispatch) | frozenset(copy._copy_dispatch)

    def own_hooks(x):
        if type(x) in plain or isinstance(x, type):
            return
        try:
            own = object.__getattribute__(x, "__dict__")
        except AttributeError:
            return
        if type(own) is not dict:
            return
        for key in own:
            if type(key) is not str or key in _COPY_HOOKS:
                raise TypeError('copying a "%s" whose own attributes hold "%s" is not allowed '
                                'in the sandbox: copying calls it' % (
                                    type(x).__name__, key if type(key) is str else
                                    type(key).__name__))

    def copy_(x):
        if _IN_CALL["on"]:
            own_hooks(x)
        return real_copy(x)

    def deepcopy(x, memo=None, _nil=[]):
        if _IN_CALL["on"]:
            own_hooks(x)
        return real_deepcopy(x, memo, _nil)
    for wrapper, real in ((copy_, real_copy), (deepcopy, real_deepcopy)):
        wrapper.__name__ = real.__name__
        wrapper.__qualname__ = real.__qualname__
        wrapper.__doc__ = real.__doc__
    # copy's own recursion finds deepcopy in its module's namespace, or as
    # a default argument bound when copy was imported (_deepcopy_list,
    # _deepcopy_dict, _reconstruct)
    copy.copy, copy.deepcopy = copy_, deepcopy
    for helper in list(vars(copy).values()):
        if not isinstance(helper, type(deepcopy)):
            continue
        if helper.__defaults__ and real_deepcopy in helper.__defaults__:
            helper.__defaults__ = tuple(deepcopy if d is real_deepcopy else d
                                        for d in helper.__defaults__)
        if helper.__kwdefaults__ and helper.__kwdefaults__.get("deepcopy") is real_deepcopy:
            helper.__kwdefaults__ = dict(helper.__kwdefaults__, deepcopy=deepcopy)


_GETATTR_SWEPT = set()
_SWEPT_COUNT = [0]      # len(sys.modules) at the last sweep (children inherit it)


def sweep_new_modules():
    """guard_library_getattrs() for modules imported since the last sweep
    (a workspace's earlier call, a lazy import); nothing when none was."""
    if len(sys.modules) != _SWEPT_COUNT[0]:
        guard_library_getattrs()


def guard_library_getattrs():
    """A library class whose __getattr__ or __getattribute__ answers names
    from data answered "__array_interface__" too, from what the code put
    there: numpy's BagObj looked every name up with the code's
    __getitem__, matplotlib's Spines in a dict the code writes (review 56
    F1, F2; numpy then read any address).  In a call, such a class answers
    no name that begins with "__" from its hook but those that describe a
    function (_DESCRIPTIVE_DUNDERS): __getattr__ raises AttributeError,
    __getattribute__ finds it as object's does.  Every
    class of every module imported so far (again for modules imported
    since: the preloaded process, a call's start)."""
    import types
    _SWEPT_COUNT[0] = len(sys.modules)
    for name, module in list(sys.modules.items()):
        if module is None or id(module) in _GETATTR_SWEPT or type(name) is not str:
            continue
        _GETATTR_SWEPT.add(id(module))
        if name.startswith("sb_") or name == "__sandbox__":
            continue
        try:
            members = list(vars(module).values())
        except TypeError:
            continue
        todo = [m for m in members if isinstance(m, type)]
        seen = set()
        while todo:
            cls = todo.pop()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            try:
                if type.__getattribute__(cls, "__module__") != name:
                    continue
                own = type.__getattribute__(cls, "__dict__")
            except (AttributeError, TypeError):
                continue
            todo.extend(v for v in own.values() if isinstance(v, type))
            if FINALIZER_CLASSES and has_finalizer(cls) and cls not in FINALIZER_CLASSES:
                FINALIZER_CLASSES.append(cls)     # off in calls from now on
            for hook in ("__getattr__", "__getattribute__"):
                found = own.get(hook)
                if type(found) is types.FunctionType and \
                        not str(getattr(found, "__module__", "")).startswith("sb_"):
                    try:
                        type.__setattr__(cls, hook, _dunders_refused(hook, found))
                    except (AttributeError, TypeError):
                        pass


# special names a forwarding __getattr__ may answer: what describes a
# wrapped function (sklearn's wrappers forward __name__; libraries ask for
# it in a call), never what libraries act on (__array_interface__,
# __deepcopy__, __reduce_ex__, __dict__, __globals__, ...)
_DESCRIPTIVE_DUNDERS = frozenset({
    "__name__", "__qualname__", "__doc__", "__module__", "__annotations__",
    "__text_signature__", "__isabstractmethod__", "__wrapped__", "__signature__"})


def _refused_dunder(name):
    return isinstance(name, str) and str.startswith(name, "__") and \
        str.__str__(name) not in _DESCRIPTIVE_DUNDERS


def _dunders_refused(hook, found):
    if hook == "__getattr__":
        def guarded(self, name):
            if _IN_CALL["on"] and _refused_dunder(name):
                raise AttributeError(name)
            return found(self, name)
    else:
        def guarded(self, name):
            if _IN_CALL["on"] and _refused_dunder(name):
                return object.__getattribute__(self, name)
            return found(self, name)
    guarded.__name__ = found.__name__
    guarded.__qualname__ = found.__qualname__
    guarded.__doc__ = found.__doc__
    return guarded


def _harden_namedtuple():
    """namedtuple(module="json") set the new class's __module__ to any
    module's name: the code's class then no longer counted as the code's
    (sb_guard._made_by_code), so a str subclass mixing it in kept its lying
    startswith() (review 70 F3).  In a call: no module=, as for Enum()."""
    import collections
    namedtuple = collections.namedtuple

    def checked_namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
        if _IN_CALL["on"] and module not in (None, "__sandbox__"):
            raise TypeError("namedtuple(): module= is not allowed in the sandbox")
        if module is None:
            # in a call the code's (through functools.partial or pandas'
            # apply the caller's frame was theirs: review 72 F2); else the
            # caller's, as namedtuple itself finds it (not this module's)
            module = "__sandbox__" if _IN_CALL["on"] else \
                sys._getframe(1).f_globals.get("__name__", "__main__")
        return namedtuple(typename, field_names, rename=rename, defaults=defaults,
                          module=module)
    checked_namedtuple.__name__ = checked_namedtuple.__qualname__ = "namedtuple"
    checked_namedtuple.__doc__ = namedtuple.__doc__
    _SUBSTITUTES[id(namedtuple)] = checked_namedtuple


def warning_filter_ok(entry):
    """Whether an entry of warnings.filters holds only what CPython's
    warnings code reads without running Python: (action str, None, a str
    or a compiled pattern, a Warning class of type's own metaclass, the
    same as the second, int).  A pattern of the code's had its match() run,
    and a category of the code's metaclass its __subclasscheck__, wherever
    native code raised a warning, one an object raises as it dies too
    (numpy's nditer: review 135 F1)."""
    import re
    if type(entry) is not tuple or len(entry) != 5:
        return False
    action, message, category, module, lineno = entry
    return (type(action) is str and type(lineno) is int and
            all(p is None or type(p) in (str, re.Pattern) for p in (message, module)) and
            type(category) is type and issubclass(category, Warning))


def clean_warning_filters():
    """Drop the entries of warnings.filters that warning_filter_ok refuses
    (a call's start: a library may have put one there)."""
    import warnings
    filters = warnings.filters
    if type(filters) is not list or not all(warning_filter_ok(f) for f in filters):
        warnings.filters = [f for f in (filters if type(filters) is list else ())
                            if warning_filter_ok(f)]
        warnings._filters_mutated()


def _harden_warnings():
    """warnings.filterwarnings() and simplefilter() store only what
    warning_filter_ok takes; the live warnings.filters is refused
    (sb_guard.MODULE_ATTRIBUTES): the code put its own object there."""
    import warnings
    filterwarnings = warnings.filterwarnings
    simplefilter = warnings.simplefilter

    def category_checked(category, lineno):
        if type(category) is not type or not issubclass(category, Warning):
            raise TypeError("category must be a Warning class (of a plain class statement)")
        if type(lineno) is not int:
            raise TypeError("lineno must be an int")

    def checked_filterwarnings(action, message="", category=Warning, module="", lineno=0,
                               append=False):
        if type(action) is not str or type(message) is not str or type(module) is not str:
            raise TypeError("filterwarnings(): action, message and module must be str")
        category_checked(category, lineno)
        return filterwarnings(action, message, category, module, lineno, bool(append))

    def checked_simplefilter(action, category=Warning, lineno=0, append=False):
        if type(action) is not str:
            raise TypeError("simplefilter(): action must be a str")
        category_checked(category, lineno)
        return simplefilter(action, category, lineno, bool(append))
    for checked, original in ((checked_filterwarnings, filterwarnings),
                              (checked_simplefilter, simplefilter)):
        checked.__name__ = checked.__qualname__ = original.__name__
        checked.__doc__ = original.__doc__
        _SUBSTITUTES[id(original)] = checked


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
            if module not in (None, "__sandbox__") or qualname is not None:
                raise TypeError("Enum(): module= and qualname= are not allowed in the sandbox")
            if isinstance(names, dict):
                names = list(names.items())
            elif not isinstance(names, str):
                names = list(names)
            # the members' names as exact strs, checked and passed on (review 53)
            if isinstance(names, str):
                names = exact_str(names)
            else:
                names = [exact_str(item) if isinstance(item, str) else
                         [exact_str(item[0])] + list(item[1:])
                         if isinstance(item, list) and item else
                         (exact_str(item[0]),) + tuple(item[1:])
                         if isinstance(item, tuple) and item else item
                         for item in names]
            class_name = exact_str(class_name)
            listed = names.replace(",", " ").split() if isinstance(names, str) else names
            for item in listed:
                member = item if isinstance(item, str) else (
                    item[0] if isinstance(item, (tuple, list)) and item else None)
                if type(member) is not str:
                    raise TypeError("Enum(): a member name of type %s is not allowed in the "
                                    "sandbox: names must be str"
                                    % type(member).__name__)
                _name_problem(member, "Enum()")
            _name_problem(class_name, "Enum()")
            _class_name_problem(class_name, "Enum()")
            mixin = kwargs.get("type")
            if isinstance(mixin, type) and _deriving_refused(mixin):
                raise TypeError('Enum(type=%s): deriving from a pandas or numpy class is not '
                                'allowed in the sandbox; use plain values'
                                % type.__getattribute__(mixin, "__name__"))
            # the code's class (its frame would be this function's module)
            module = "__sandbox__"
            made = create(cls, class_name, names, module=module, qualname=qualname, **kwargs)
            problem = class_problem(made)
            if problem is not None:
                raise TypeError("Enum(): " + problem)
            return made
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
    # an alias sets any name not its own on its origin, with the real
    # setattr: typing.Annotated[pd.DataFrame, 0].head = f changed pandas'
    # class (and Mapping, Counter... the standard library's); in a call the
    # origin is checked as obj.name = value checks an object
    alias_setattr = typing._BaseGenericAlias.__dict__["__setattr__"]

    def __setattr__(self, attr, val):
        if _IN_CALL["on"] and not (type(attr) is str and (
                typing._is_dunder(attr) or attr in {"_name", "_inst", "_nparams", "_paramspec_tvars",
                                                    "_typevar_types", "_defaults"})):
            guard_settable(self.__dict__.get("__origin__"), attr)
        return alias_setattr(self, attr, val)
    __setattr__.__qualname__ = alias_setattr.__qualname__
    typing._BaseGenericAlias.__setattr__ = __setattr__
    # typing.get_origin(typing.Type) (and of Type[X]) is the real type, a
    # metaclass: type("X", (), {"__array_interface__": ...}) made an array
    # over any address.  The module hands out a checked copy, which gives
    # the sandbox's type() in its place and refuses other metaclasses
    _SUBSTITUTES.setdefault(id(typing.get_origin), _checked_origin(typing.get_origin))
    # and typing.Type[X] as a base gives type as the base (__mro_entries__):
    # class M(typing.Type[int]), or make_dataclass("M", [], bases=(...)),
    # made a metaclass of the code's, which builds a class from a dict
    for cls in (typing._BaseGenericAlias, typing._GenericAlias):
        entries = cls.__dict__.get("__mro_entries__")
        if entries is None:
            continue

        def __mro_entries__(self, bases, __entries=entries):
            result = __entries(self, bases)
            if _IN_CALL["on"] and any(isinstance(c, type) and issubclass(c, type)
                                      for c in result):
                raise TypeError("deriving from %r is not allowed in the sandbox: it makes a "
                                "metaclass, which builds classes from a dict" % (self,))
            return result
        __mro_entries__.__qualname__ = entries.__qualname__
        cls.__mro_entries__ = __mro_entries__


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


# (class, name) of the accessors the code registered: a workspace's next
# call may register them again
_CODE_ACCESSORS = set()


def _rewatch(cls):
    try:
        import sb_io
    except ImportError:                  # the unit tests load no worker
        return
    if hasattr(sb_io, "rewatch_class"):
        sb_io.rewatch_class(cls)


def _changed_class():
    try:
        import sb_io
    except ImportError:
        return None
    return sb_io.changed_class() if hasattr(sb_io, "changed_class") else None


def forget_code_accessors():
    """Before a workspace's next call (sb_state): the accessors the code
    registered gone from pandas' classes, which are watched again as they
    are then (unless another change of a watched class was found first)."""
    if not _CODE_ACCESSORS:
        return
    clean = _changed_class() is None
    for cls, name in sorted(_CODE_ACCESSORS, key=lambda pair: (id(pair[0]), pair[1])):
        if name in type.__getattribute__(cls, "__dict__"):
            type.__delattr__(cls, name)
        accessors = type.__getattribute__(cls, "_accessors")
        if type(accessors) is set:
            set.discard(accessors, name)
        if clean:
            _rewatch(cls)
    _CODE_ACCESSORS.clear()


def _checked_register(register):
    import pandas as pd
    cls = {"register_dataframe_accessor": pd.DataFrame, "register_series_accessor": pd.Series,
           "register_index_accessor": pd.Index}.get(register.__name__)

    def checked(name):
        if isinstance(name, str):
            name = str.__str__(name)        # the exact str that is checked is set
        problem = attribute_problem(name) if isinstance(name, str) else None
        if problem is not None:
            raise AttributeError("%s: %s" % (register.__name__, problem[1]))
        if _IN_CALL["on"] and cls is not None and isinstance(name, str):
            # an accessor replaces the attribute for every object of the
            # class, pandas' own calls included: Index.is_monotonic_increasing
            # or DataFrame.values of the code's choosing fed pandas' native
            # code what it assumes of them
            if hasattr(cls, name) and (cls, name) not in _CODE_ACCESSORS:
                raise AttributeError('%s: "%s" already has an attribute "%s", which an accessor '
                                     'may not replace in the sandbox; choose another name'
                                     % (register.__name__, cls.__name__, name))
            _CODE_ACCESSORS.add((cls, name))
            decorate = register(name)

            def checked_decorate(accessor):
                # pandas sets the accessor on its class: a change of a
                # watched class that is known and checked, recorded again
                # before anything else runs (sb_io.changed_class); only if
                # no watched class had changed before it (review 41: one
                # registration hid typing.final(pd.DataFrame) from the
                # next call's check), and only if it succeeded
                clean = _changed_class() is None
                result = decorate(accessor)
                if clean:
                    _rewatch(cls)
                return result
            return checked_decorate
        return register(name)
    checked.__name__ = register.__name__
    checked.__doc__ = register.__doc__
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
            if isinstance(name, str) and exact_str(name).startswith("_"):
                try:
                    guard_own_object(obj, exact_str(name))
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
    sys.meta_path.insert(0, _RefuseCompilers)


# packages that compile machine code while they run (numba, through
# llvmlite, which loads LLVM with ctypes, not as an extension module): a
# child may not map memory executable, so they could not work even if
# preloaded, and the attempt ended the call as a blocked mmap with a hint
# to preload them
_COMPILERS = frozenset({"numba", "llvmlite"})


class _RefuseCompilers:
    """Refuses, in a call, the import of a package of _COMPILERS (pandas
    imports numba for engine="numba" and ewm().online()) with what to do."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        top = name.partition(".")[0]
        if top in _COMPILERS and _IN_CALL["on"]:
            raise NativeCodeNotLoaded(
                'package "%s" compiles machine code while it runs, which a sandboxed '
                'process cannot run, preloaded or not: use pandas\' default engine '
                '(leave out engine="numba"); ewm(...).online() always uses numba: '
                'use ewm(...).mean() over all the rows' % top, name=name)
        return None


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

    sb_bounds.guard_period_strftime()
    original = expr.BaseExprVisitor.visit_Attribute

    def visit_Attribute(self, node, **kwargs):
        problem = attribute_problem(node.attr) if _PANDAS_GUARD["on"] else None
        if problem is not None:
            raise AttributeError(problem[1] + " (in a pandas expression)")
        if _PANDAS_GUARD["on"] and node.attr in _LIBRARY_ONLY:
            # pandas reads it for the expression, in its own frame (review 61)
            raise AttributeError('attribute "%s" is not allowed: %s (in a pandas expression)'
                                 % (node.attr, _LIBRARY_ONLY[node.attr]))
        return original(self, node, **kwargs)

    expr.BaseExprVisitor.visit_Attribute = visit_Attribute
    _guard_pandas_scope()
    _guard_pandas_io()
    _guard_pandas_names()
    _guard_styler_templates()
    _guard_styler_format_sites()
    _guard_styler_export()
    _guard_library_metaclasses()
    _guard_template_compile()
    _guard_take_nd()
    _guard_object_hashtables()
    _guard_json_encoder()
    _guard_string_arrays()
    _guard_ambiguous_times()
    _guard_period_fields()
    _guard_pandas_reexports()
    _guard_explode()
    _guard_reader_reentry()
    _guard_sparse_ops()
    _guard_join_indexers()
    _later_datetime_formats()
    _guard_numexpr()
    # pd.options.d is pandas' own table of every option's value, past the
    # validators set_option runs (review 56 F6): pandas' code reads it
    from pandas._config import config
    if "d" not in config.DictWrapper.__dict__:
        config.DictWrapper.d = _LibraryOnly(None, "d", "it is pandas' own table of "
                                            "options; use pd.set_option() and pd.get_option()",
                                            "pandas._config.")
    from pandas.api.indexers import BaseIndexer
    DERIVABLE_LIBRARY_CLASSES.append(BaseIndexer)


# what numexpr's text may hold: operators on names, constants and calls
# of names (its functions), as pandas writes it
_NUMEXPR_NODES = (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name,
                  ast.Constant, ast.Load, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _numexpr_text_problem(text):
    """Why numexpr must not compile text, or None.  numexpr compile()s and
    eval()s the text pandas gives it with the real builtins: pandas named
    a call's result after its type, and a class named "1 if (lambda: exec)
    ()(...) else a" ran any Python (review 56 F5)."""
    if not isinstance(text, str):
        return None
    try:
        tree = ast.parse(str.__str__(text), mode="eval")
    except SyntaxError:
        return None                 # compile() raises it as numexpr would
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.keywords or \
                    any(isinstance(a, ast.Starred) for a in node.args):
                return "a call of anything but one of its functions by name"
        elif not isinstance(node, _NUMEXPR_NODES):
            return "%s" % type(node).__name__
    return None


def _guard_numexpr():
    """numexpr (pandas' engine for eval() and query()) runs only
    expressions of operators, names, constants and its own functions, and
    pandas names its temporaries with identifiers (a type's name made
    one)."""
    try:
        from numexpr import necompiler
    except ImportError:
        necompiler = None
    if necompiler is not None:
        real = necompiler.stringToExpression

        def stringToExpression(s, types, context):
            if _IN_CALL["on"]:
                problem = _numexpr_text_problem(s)
                if problem is not None:
                    raise ValueError("the expression is not evaluated in the sandbox: numexpr "
                                     "takes only operators, names, numbers and its functions "
                                     "(it held %s)" % problem)
            return real(s, types, context)
        stringToExpression.__qualname__ = real.__qualname__
        stringToExpression.__doc__ = real.__doc__
        necompiler.stringToExpression = stringToExpression
    import re
    from pandas.core.computation import scope
    if not hasattr(scope, "_raw_hex_id"):
        return
    not_word = re.compile(r"[^0-9A-Za-z_]")

    def add_tmp(self, value):
        kind = not_word.sub("_", str.__str__(type(value).__name__))
        name = "%s_%d_%s" % (kind if kind[:1].isalpha() else "t" + kind, self.ntemps,
                             scope._raw_hex_id(self))
        assert name not in self.temps
        self.temps[name] = value
        return name
    add_tmp.__qualname__ = scope.Scope.add_tmp.__qualname__
    add_tmp.__doc__ = scope.Scope.add_tmp.__doc__
    scope.Scope.add_tmp = add_tmp


def _later_datetime_formats():
    """pd.to_datetime(format="mixed" / "ISO8601"), pandas 2's names, as this
    pandas does them: without a format it parses each value as it comes
    (mixed) and ISO 8601 text among them.  It took each name as a strftime
    format that nothing matches: with errors="coerce" every value was NaT,
    silently (review 51 N2); without, an error a hint answered."""
    import pandas as pd
    pd.to_datetime = later_formats(pd.to_datetime)


def later_formats(real):
    """pd.to_datetime taking pandas 2's format names (_later_datetime_formats)."""
    def to_datetime(arg, *args, **kwargs):
        if type(kwargs.get("format")) is str and kwargs["format"] in ("mixed", "ISO8601"):
            kwargs["format"] = None
        return real(arg, *args, **kwargs)
    for name in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(to_datetime, name, getattr(real, name))
    return to_datetime


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
    resolve = scope.Scope.resolve

    def resolve_name(self, key, is_local):
        value = resolve(self, key, is_local)
        if _IN_CALL["on"] and any(value is held for held in _NOT_IN_EXPRESSIONS):
            raise NameError(
                '"%s" is sql(), which the text of a pandas expression may not name in the '
                'sandbox (pd.eval, DataFrame.eval and query name columns, values and '
                'pandas\' math functions): call sql() in the code itself and use its '
                'result in the expression' % key)
        return value
    resolve_name.__qualname__ = resolve.__qualname__
    resolve_name.__doc__ = resolve.__doc__
    scope.Scope.resolve = resolve_name
    from pandas.core.computation import eval as pd_eval, expr
    _EXPRESSION_CODES[:] = (pd_eval.eval.__code__, expr.Expr.__init__.__code__,
                            expr.Expr.__call__.__code__)


# What a pandas expression's text may not name, though the code's frame
# holds it: the runtime's sql(), whose queries run with the privileges of
# the function's owner.  pd.eval resolves names in the code's globals and
# calls what they name, so a SECURITY DEFINER function that evaluated a
# formula from its caller ran the caller's queries as the owner (review
# 173 F1); DataFrame.eval and query did not reach it.  sb_runtime adds sql.
# A function of the code's that calls sql() (def lookup(q): return sql(q))
# was reached all the same (review 174 F2): sql() itself refuses to run
# inside an expression's evaluation (in_pandas_expression).
_NOT_IN_EXPRESSIONS = []

# the code of pandas' expression evaluation: pd.eval (DataFrame.eval and
# query call it) and an Expr's parse and call, which run what it names
# (compared by identity: a code object's == compares its contents)
_EXPRESSION_CODES = []


def refuse_in_expressions(value):
    """Keep value from being named in a pandas expression's text."""
    _NOT_IN_EXPRESSIONS.append(value)


def in_pandas_expression():
    """Is a pandas expression being evaluated below the caller?  Its frames
    are found by their code objects, whatever the code's frames between."""
    if not _EXPRESSION_CODES:
        return False            # (tests without harden_pandas)
    first, second, third = _EXPRESSION_CODES
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code is first or code is second or code is third:
            return True
        frame = frame.f_back
    return False


# name -> why: class attributes only the library reads (_LibraryOnly)
_LIBRARY_ONLY = {}


class _LibraryOnly:
    """A class attribute the library reads and the code may not: pandas'
    Styler renders with its jinja2 templates, whose Environment (and the
    Template class, whose environment_class) compiles any template text
    without jinja2's sandbox, so {{ x.__class__ }} walks attributes."""

    # private names: the code reads no "_" attribute of a library object
    # (its value was a public attribute, which reached the Environment once
    # the object itself was copied out of the class, review 56 F4)
    __slots__ = ("_sb_value", "_sb_name", "_sb_reason", "_sb_reader")

    def __init__(self, value, name, reason, reader="pandas.io.formats."):
        self._sb_value = value
        self._sb_name = name
        self._sb_reason = reason
        # the pandas modules whose code reads it: any pandas frame let
        # pd.eval(engine="python") read it for the code (review 61)
        self._sb_reader = reader

    def _check(self):
        # the frame that reads or sets the attribute: two above this one
        if _IN_CALL["on"]:
            module = sys._getframe(2).f_globals.get("__name__", "")
            if not (type(module) is str and module.startswith(self._sb_reader)):
                raise AttributeError('attribute "%s" is not allowed: %s'
                                     % (self._sb_name, self._sb_reason))

    def __get__(self, obj, cls=None):
        self._check()
        value = self._sb_value
        if obj is not None:
            own = getattr(obj, "__dict__", ())
            for key in ("_sb_library_" + self._sb_name, self._sb_name):
                if key in own:
                    # pandas' copy of a Styler; an object made before the
                    # descriptor (pd.options) holds it under its name
                    return own[key]
        return value.__get__(obj, cls) if hasattr(type(value), "__get__") else value

    def __set__(self, obj, value):
        # kept under a private name: the instance's own attributes were
        # copied out raw (update_wrapper of a copied Styler, review 59 F3)
        self._check()
        obj.__dict__["_sb_library_" + self._sb_name] = value


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


# what a class statement puts in the namespace it hands its metaclass
_CLASS_STATEMENT_NAMES = frozenset({"__module__", "__qualname__", "__doc__", "__annotations__",
                                    "__classcell__", "__orig_bases__"})
# metaclasses the code's class statements use (their module proxies refuse them)
_CODE_METACLASS_MODULES = frozenset({"abc", "enum", "typing"})


def _guard_library_metaclasses():
    """A library's metaclass, called with a dict, builds a class with any
    special methods: pandas hands one out publicly, CategoricalDtype.type
    (and every categorical dtype's .type) is CategoricalDtypeType, a
    subclass of type, so CategoricalDtype.type("X", (), {"__array_interface__":
    {"data": (address, False), ...}}) gave an array over any address, read
    and written; pandas.tseries.holiday.HolidayCalendarMetaClass is a
    module attribute.  pandas never builds a class with CategoricalDtypeType
    (it compares dtypes' .type with it).  In a call every metaclass of the
    libraries loaded (pandas', dateutil's, jinja2's; numpy's _DTypeMeta is
    not a heap type, matplotlib has none) refuses a namespace with special
    names other than the ones a class statement gives, however it is
    passed, unless a library module's own class statement (imported in the
    call) calls it; CategoricalDtypeType builds no class at all."""
    from pandas.core.dtypes.dtypes import CategoricalDtypeType
    try:
        # loaded on first import otherwise, after this walk
        from pandas.tseries.holiday import HolidayCalendarMetaClass
    except ImportError:
        HolidayCalendarMetaClass = None
    if HolidayCalendarMetaClass is not None:
        refuse(HolidayCalendarMetaClass, "it builds classes from a dict; a holiday calendar "
               "is made with AbstractHolidayCalendar's subclasses or HolidayCalendarFactory")

    def metaclasses(cls):
        for sub in type.__subclasses__(cls):
            yield sub
            yield from metaclasses(sub)

    def special(ns):
        # a key that is not an exact str answers startswith() and == as it
        # likes (review 53): such a namespace is special too
        return not isinstance(ns, dict) or any(
            type(k) is not str or (k.startswith("__") and k not in _CLASS_STATEMENT_NAMES)
            for k in ns)

    done = set()
    for meta in list(metaclasses(type)):
        module = type.__getattribute__(meta, "__module__")
        heap = type.__getattribute__(meta, "__flags__") & (1 << 9)
        if id(meta) in done or not heap or not isinstance(module, str) or \
                module.partition(".")[0] in _CODE_METACLASS_MODULES or module.startswith("sb_"):
            continue
        done.add(id(meta))
        own = meta.__dict__.get("__new__")
        original = own.__func__ if isinstance(own, staticmethod) else own

        def __new__(mcls, *args, __meta=meta, __original=original, **kwargs):
            caller = sys._getframe(1)
            # a library module imported in the call: its own class statements
            library = caller.f_code.co_name == "<module>" and \
                caller.f_globals.get("__name__") != "__sandbox__"
            if _IN_CALL["on"] and not library:
                given = list(args[2:3]) + [v for v in kwargs.values() if isinstance(v, dict)]
                if __meta is CategoricalDtypeType or len(args) + len(kwargs) != 3 or \
                        not given or any(special(ns) for ns in given):
                    raise TypeError("%s: building a class from a dict is not allowed in the "
                                    "sandbox: a metaclass gives it any special methods"
                                    % type.__getattribute__(__meta, "__name__"))
            if __original is not None:
                return __original(mcls, *args, **kwargs)
            return super(__meta, mcls).__new__(mcls, *args, **kwargs)
        __new__.__qualname__ = "%s.__new__" % type.__getattribute__(meta, "__qualname__")
        try:
            meta.__new__ = staticmethod(__new__)
        except (TypeError, AttributeError):  # a native metaclass that takes no attributes
            sys.stderr.write("pysandbox-worker: metaclass %s could not be checked\n"
                             % type.__getattribute__(meta, "__qualname__"))


def _guard_styler_export():
    """Styler.export()["apply"] hands out pandas' own getters of the styles
    to apply, lambda instance: getattr(instance, "_apply") (and
    "_applymap", "_apply_index"): called on any object, a read of a private
    attribute the validator refuses (a Rolling's _apply, and a groupby
    Resampler's _apply("name"), which is getattr(x, name)(**kwargs) for any
    name: __reduce__ gave copyreg's _reconstructor, __getstate__ a library
    object's real __dict__).  In a call they take only a Styler, and
    _GroupByMixin._apply checks a name it is given (it is also a groupby
    Resampler's _upsample: fillna("__getstate__") looked that name up on a
    Resampler and called it)."""
    try:
        from pandas.io.formats.style import Styler
    except ImportError:  # no jinja2: no Styler either
        return
    export = Styler.export

    def styler_only(getter):
        def get(instance):
            if _IN_CALL["on"] and not isinstance(instance, Styler):
                raise TypeError("applying a style exported by Styler.export() to a \"%s\" "
                                "is not allowed in the sandbox: it applies to a Styler only"
                                % type(instance).__name__)
            return getter(instance)
        get.__name__ = getattr(getter, "__name__", "get")
        get.__qualname__ = getattr(getter, "__qualname__", "get")
        return get

    def checked_export(self):
        styles = export(self)
        if _IN_CALL["on"] and isinstance(styles, dict) and "apply" in styles:
            styles["apply"] = [
                (styler_only(entry[0]),) + tuple(entry[1:])
                if isinstance(entry, tuple) and entry and callable(entry[0]) else entry
                for entry in styles["apply"]]
        return styles
    checked_export.__name__ = export.__name__
    checked_export.__qualname__ = export.__qualname__
    checked_export.__doc__ = export.__doc__
    Styler.export = checked_export
    import pandas.core.resample as resample
    mixin = getattr(resample, "_GroupByMixin", None)
    if mixin is not None and "_apply" in mixin.__dict__:
        apply = mixin.__dict__["_apply"]

        def _apply(self, *args, **kwargs):
            if _IN_CALL["on"]:
                _name_problem(args[0] if args else kwargs.get("f"), "pandas")
            return apply(self, *args, **kwargs)
        _apply.__name__ = apply.__name__
        _apply.__qualname__ = apply.__qualname__
        _apply.__doc__ = apply.__doc__
        # _upsample, _downsample and _groupby_and_aggregate are the same
        # function: Resampler.fillna(name) is _upsample(name, limit=...)
        for alias, value in list(mixin.__dict__.items()):
            if value is apply:
                setattr(mixin, alias, _apply)


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
    env = env._sb_value if isinstance(env, _LibraryOnly) else env
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
        found = found._sb_value if isinstance(found, _LibraryOnly) else found
        refuse(getattr(found, "__func__", found),
               "it compiles templates from files outside jinja2's sandbox")


def _guard_masked_ids(np):
    """Review 89: MaskedArray.ids() returns the addresses of an array's
    data and mask (numpy reads them through ctypes itself)."""
    cls = np.ma.MaskedArray
    real = cls.__dict__.get("ids")
    if real is None:
        return

    def ids(self):
        if _IN_CALL["on"]:
            raise TypeError("MaskedArray.ids() is not allowed in the sandbox: it returns memory "
                            "addresses; compare arrays with np.shares_memory(a, b)")
        return real(self)
    ids.__doc__ = real.__doc__
    cls.ids = ids


def harden_numpy():
    """numpy's entry points that reach memory by address or unpickle:
    as_strided and DummyArray (an __array_interface__ of any address, with
    id() an address: read and write anywhere), and read_array's
    allow_pickle (NpzFile(io.BytesIO(...), allow_pickle=True) ran a pickle,
    and so any builtin)."""
    import numpy.lib.npyio as npyio
    # every attribute of a BagObj is an item of the object it was given: the
    # code's __getitem__ answered numpy's "__array_interface__" (review 56 F1)
    refuse(npyio.BagObj, "it answers every attribute name with an item of the object it "
                         "wraps; index the object itself")
    import numpy as np
    import numpy.ma as ma
    update_from = ma.MaskedArray._update_from

    def _update_from(self, obj):
        # numpy.ma's own attributes (_optinfo, _basedict, _baseclass, ...) and
        # the whole __dict__ of what is not a MaskedArray were copied into
        # the result's attributes from any object: np.ma.sqrt(obj) of the
        # code's object gave a MaskedArray its own "__deepcopy__" (review 56
        # F3).  In a call, only an ndarray gives them.
        if _IN_CALL["on"] and not isinstance(obj, np.ndarray):
            obj = None
        return update_from(self, obj)
    _update_from.__qualname__ = update_from.__qualname__
    _update_from.__doc__ = update_from.__doc__
    ma.MaskedArray._update_from = _update_from
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
    _guard_lexsort(np)
    _guard_object_products(np)
    _guard_dtype_sizes(np)
    if not _guard_ufunc_at(np):
        sys.stderr.write("pysandbox-worker: numpy's ufunc.at could not be checked\n")
    if not _guard_nditer_writeback(np):
        # its writeback at death is the code's __bool__ run inside numpy's
        # stores: no iterator rather than that one
        sys.stderr.write("pysandbox-worker: numpy's nditer could not be checked; the code "
                         "does not get it\n")
        refuse(np.nditer, "it could not be checked in this numpy")
        refuse(np.nested_iters, "it could not be checked in this numpy")
    if not _guard_generator_owners(np):
        sys.stderr.write("pysandbox-worker: numpy's Generator and RandomState could not be "
                         "checked\n")
    if not _guard_bit_generator_state(np):
        sys.stderr.write("pysandbox-worker: numpy's bit generators' states could not be "
                         "checked\n")
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
    sb_bounds.guard_numpy_formatting()
    _guard_masked_ids(np)
    refuse(stride_tricks.as_strided,
           "it reads and writes memory at any offset; use "
           "numpy.lib.stride_tricks.sliding_window_view")
    refuse(stride_tricks.DummyArray, "it makes an array of any address")
    _guard_name_factories(np)
    _substitutes_in_place(np)
    refuse(np.add_newdoc, "it imports any module named by a string")
    # numpy's operators and array repr for every later call of the process,
    # pysandbox's own reading of a workspace's next inputs included
    for name in ("set_numeric_ops", "set_string_function"):
        obj = getattr(np, name, None)
        if obj is not None:
            refuse(obj, "it changes numpy for everything the process runs after it")
    # ... and the native ones numpy.core.multiarray and numpy.core.umath
    # hand out (review 166 F1, F5): set_typeDict makes a dict of the code's
    # numpy's table of type names, whose items numpy borrows (the code's
    # dtype property freed the object numpy was using)
    from numpy.core import multiarray, umath
    for module in (multiarray, umath):
        for name in ("set_typeDict", "set_string_function", "set_numeric_ops",
                     "set_legacy_print_mode", "set_datetimeparse_function",
                     "add_docstring"):
            obj = getattr(module, name, None)
            if obj is not None:
                refuse(obj, "it changes numpy for everything the process runs after it")
    # ... and how every polynomial prints, a class attribute (a workspace's
    # next call found numpy's class changed and ended: review 65 F4)
    printstyle = getattr(getattr(np, "polynomial", None), "set_default_printstyle", None)
    if printstyle is not None:
        refuse(printstyle, "it changes how numpy prints polynomials for everything the "
               "process runs after it; format one with format(p, \"unicode\") or "
               "format(p, \"ascii\")")
    from numpy.core import overrides
    # set_module(m)(obj) sets obj.__module__: a pandas class given
    # "__sandbox__" counted as the code's own (changed, derived from)
    refuse(overrides.set_module, "it sets the module of what it is given")
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
    _guard_pandas_abcs()
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
    # pipe((func, "name")): pandas passes the object as the keyword named,
    # a name the code gave; "__x" reached a library function's kwargs past
    # f(**mapping)'s check (review 55 F3: PickEvent set it as an attribute)
    pipe = common.pipe

    def checked_pipe(obj, func, *args, **kwargs):
        if _IN_CALL["on"] and isinstance(func, tuple):
            func = tuple(func)
            if len(func) != 2 or not isinstance(func[1], str):
                raise TypeError("pipe: a tuple must be (function, keyword), the keyword a "
                                "str naming the function's parameter that takes the data")
            target, = guard_kwargs({func[1]: None})     # as f(**{target: obj})
            func = (func[0], target)
        return pipe(obj, func, *args, **kwargs)
    checked_pipe.__name__ = pipe.__name__
    checked_pipe.__qualname__ = pipe.__qualname__
    checked_pipe.__doc__ = pipe.__doc__
    common.pipe = checked_pipe
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
    if id(found) in _SUBSTITUTES:
        # the proxy hands out a checked one (np.matmul); the real one, which
        # the factory would get, is not handed out (review 70 F1)
        raise AttributeError('%s: numpy function "%s" is not allowed here in the sandbox; '
                             'call np.%s itself' % (call, name, name))
    return name


def _substitutes_in_place(np):
    """The checked numpy functions (private copies of object arrays,
    dtype checks: sb_memory) in numpy's own module, not only in the code's
    proxy: numpy.ma's factories and pandas' agg("name") look a function up
    by name on the real module, and type(np.ma.arange)("lexsort", "", "")
    was the unchecked lexsort, which brought back review 63's freed array
    (review 70 F1).  Plain functions only: a ufunc (np.matmul) or a type
    stays itself there, and its name is refused to the factories
    (_numpy_name_problem).  numpy.ma's own factories made at import hold
    the checked ones too."""
    import numpy.ma.core as macore
    multiarray = np.core.multiarray
    checked_of = {}
    for owner, name in ((np, "lexsort"), (np, "frombuffer"), (np, "dot"), (np, "vdot"),
                        (np, "inner"), (np, "correlate"), (np, "convolve"), (np, "frompyfunc"),
                        (multiarray, "correlate"), (multiarray, "correlate2")):
        real = getattr(owner, name, None)
        checked = _SUBSTITUTES.get(id(real))
        if real is not None and checked is not None:
            checked_of[id(real)] = checked
    # wherever numpy's modules hold them by name: tensordot and
    # linalg.multi_dot call numeric's and linalg's own dot, polymul
    # numeric's convolve, which calls multiarray.correlate (review 72 F1)
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "numpy" or module_name.startswith("numpy.")):
            continue
        namespace = getattr(module, "__dict__", None)
        if type(namespace) is not dict or module_name.endswith("_multiarray_umath"):
            continue
        for name, value in list(namespace.items()):
            checked = checked_of.get(id(value))
            if checked is not None:
                namespace[name] = checked
    for value in list(vars(macore).values()):
        if isinstance(value, macore._convert2ma):
            function = value.__dict__.get("_func")
            if id(function) in _SUBSTITUTES and not isinstance(function, type):
                value._func = _SUBSTITUTES[id(function)]


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
