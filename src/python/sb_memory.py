"""Memory the code could reach through the libraries and the interpreter,
and how the worker closes it (once, before any child exists): numpy's
arrays over buffers and arrays of Python objects (ndarray checked in place,
object memory given to no reader of bytes, object loops and sorts holding
references), pandas' native code that trusts indices (take, window bounds,
codes, object hash tables), and CPython 3.11.2's own bugs that re-entrant
special methods reach (itertools, bytearray, OrderedDict, struct).  A use
after free or a read out of bounds in the child defeats the Python layer
(a fake bytearray over all memory, then the real module behind a proxy),
so each of these is closed where the code can reach it.  sb_harden.py
calls them; each check applies only in a call with the Python layer
(sb_guard._IN_CALL).
"""

import json
import sys
import types
import weakref

from sb_guard import (  # noqa: F401 - the shared policy and the call's state
    DERIVABLE_LIBRARY_CLASSES, _BASE_BUILTINS, _IN_CALL, _NDARRAY, _PANDAS_GUARD,
    _SUBSTITUTES, _TYPE_SUBSTITUTES, refuse)


def _outside(values, low, high):
    """Whether an array of integers holds a value below low or at or above
    high: the worker's one-pass sb_io.positions_outside where it reads the
    array (C-contiguous integers), numpy's min() and max() otherwise."""
    fast = _POSITIONS_OUTSIDE
    if fast[0] is None:
        try:
            import sb_io
            fast[0] = getattr(sb_io, "positions_outside", False)
        except ImportError:              # the unit tests' stub
            fast[0] = False
    if fast[0]:
        got = fast[0](values, max(int(low), -1 << 63), min(int(high), (1 << 63) - 1))
        if got is not None:
            return got
    return bool(values.size) and (int(values.min()) < low or int(values.max()) >= high)


_POSITIONS_OUTSIDE = [None]


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


def _c_slot(cls, name, slot, restype):
    """cls's own C function in a type slot (PyType_GetSlot) as a function
    of (first, args, kwargs), for a checked method that calls it; None if
    cls has a Python one already (or no slot)."""
    import ctypes
    if type(cls.__dict__.get(name)) in (staticmethod, types.FunctionType):
        return None
    get_slot = ctypes.pythonapi.PyType_GetSlot
    get_slot.restype = ctypes.c_void_p
    get_slot.argtypes = [ctypes.py_object, ctypes.c_int]
    pointer = get_slot(cls, slot)
    if not pointer:
        return None
    return ctypes.PYFUNCTYPE(restype, ctypes.py_object, ctypes.py_object,
                             ctypes.py_object)(pointer)


def _c_new(cls):
    """cls's own C __new__ (tp_new) as a function of (subtype, args, kwargs)."""
    import ctypes
    return _c_slot(cls, "__new__", 65, ctypes.py_object)     # Py_tp_new


def _c_init(cls):
    """cls's own C __init__ (tp_init) as a function of (self, args, kwargs)
    that raises what it sets."""
    import ctypes
    return _c_slot(cls, "__init__", 60, ctypes.c_int)        # Py_tp_init


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
    # review 88: a subclass whose __init__ skipped Struct's left it without
    # a format (size -1): pack_into() then read its offset from past its
    # arguments and wrote (size_t) -1 bytes.  In a call, such a Struct is
    # used by none of its methods.
    methods = [("__init__", __init__)] + [
        (name, _initialised_struct_method(cls, name, size))
        for name in ("pack", "pack_into", "unpack", "unpack_from", "iter_unpack")]
    if not _set_on_immutable_type(cls, methods):
        sys.stderr.write("pysandbox-worker: struct.Struct could not be checked in place; "
                         "it is not handed out\n")
        refuse(cls, "it can be initialised again, which frees what its iterators use")


def _initialised_struct_method(cls, name, size):
    method = cls.__dict__[name]

    def checked(self, *args, **kwargs):
        if _IN_CALL["on"] and size(self) == -1:
            raise TypeError("using a struct.Struct that was never initialised is not allowed "
                            "in the sandbox: the __init__ of its class did not call "
                            "struct.Struct.__init__(self, format); call it")
        return method(self, *args, **kwargs)
    checked.__name__ = name
    checked.__qualname__ = "Struct." + name
    checked.__doc__ = method.__doc__
    return checked


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


def _harden_bytearray_index():
    """gh-91153, gh-142558..60 (review 73): bytearray's item assignment and
    deletion and its searches (count, find, index, rfind, rindex,
    startswith, endswith, in) take the buffer, then convert an index, a
    byte value or a slice's bounds with __index__, which may resize or
    empty the bytearray: the write went through the freed buffer (a
    bytearray over all memory), the search read it.  No Python of the
    code's runs in a conversion (its classes inherit none:
    sb_guard.class_problem), and in a call the numbers are converted here
    first, in Python, so the native method gets ints.  The other methods
    whose native code runs the code's Python while it holds the buffer
    read a copy or a list first: extend (gh-143003, a length hint of 0) and
    hex (gh-143195, the separator's __len__)."""
    import operator
    real_setitem = bytearray.__setitem__
    real_contains = bytearray.__contains__

    def as_int(value):
        # what has no __index__ goes on as it is, for the method's own error
        if type(value) is int or not hasattr(type(value), "__index__"):
            return value
        return operator.index(value)

    def as_key(key):
        if type(key) is int:
            return key
        if type(key) is slice:
            return slice(*(None if v is None else as_int(v)
                           for v in (key.start, key.stop, key.step)))
        return as_int(key)

    def has_buffer(value):
        # the searches take a bytes-like argument first (a numpy integer is
        # its 8 bytes), as CPython does; a class of the code's has none
        try:
            memoryview(value).release()
        except TypeError:
            return False
        return True

    def __setitem__(self, key, value, /):
        if _IN_CALL["on"]:
            key = as_key(key)
            if type(key) is int:
                value = as_int(value)
        return real_setitem(self, key, value)

    real_delitem = bytearray.__delitem__

    def __delitem__(self, key, /):
        return real_delitem(self, as_key(key) if _IN_CALL["on"] else key)
    __delitem__.__qualname__ = "bytearray.__delitem__"
    __delitem__.__doc__ = real_delitem.__doc__

    def __contains__(self, value, /):
        # `in` takes a number first, then a bytes-like argument, as CPython
        if _IN_CALL["on"] and type(value) is not int and not isinstance(
                value, (bytes, bytearray, memoryview)):
            value = as_int(value)
        return real_contains(self, value)

    def searching(real):
        def search(self, sub, *bounds):
            if _IN_CALL["on"]:
                if type(sub) is not int and not isinstance(
                        sub, (bytes, bytearray, memoryview, tuple)) and not has_buffer(sub):
                    sub = as_int(sub)
                bounds = tuple(None if b is None else as_int(b) for b in bounds)
            return real(self, sub, *bounds)
        search.__name__ = real.__name__
        search.__qualname__ = "bytearray." + real.__name__
        search.__doc__ = real.__doc__
        return search
    __setitem__.__qualname__ = "bytearray.__setitem__"
    __setitem__.__doc__ = real_setitem.__doc__
    __contains__.__qualname__ = "bytearray.__contains__"
    __contains__.__doc__ = real_contains.__doc__
    real_extend = bytearray.extend

    def extend(self, iterable_of_ints, /):
        # gh-143003 (review 78): a length hint of 0 (the code's __len__) left
        # the first byte in the shared empty buffer; a list sizes it right
        if _IN_CALL["on"] and type(iterable_of_ints) is not list and \
                type(iterable_of_ints) is not tuple and not has_buffer(iterable_of_ints):
            iterable_of_ints = list(iterable_of_ints)
        return real_extend(self, iterable_of_ints)
    extend.__qualname__ = "bytearray.extend"
    extend.__doc__ = real_extend.__doc__
    real_hex = bytearray.hex

    def hex(self, *args, **kwargs):
        # gh-143195 (review 80): the separator's __len__ could empty the
        # bytearray before its buffer was read: a copy is read instead
        if _IN_CALL["on"]:
            return bytes(self).hex(*args, **kwargs)
        return real_hex(self, *args, **kwargs)
    hex.__qualname__ = "bytearray.hex"
    hex.__doc__ = real_hex.__doc__
    items = [("__setitem__", __setitem__), ("__delitem__", __delitem__),
             ("__contains__", __contains__), ("extend", extend), ("hex", hex)]
    items += [(name, searching(getattr(bytearray, name)))
              for name in ("count", "find", "index", "rfind", "rindex", "startswith", "endswith")]
    if not _set_on_immutable_type(bytearray, items):
        sys.stderr.write("pysandbox-worker: bytearray's indexes could not be checked in place\n")


def _harden_memoryview_hash():
    """gh-142664 (review 78): hash() of a read-only view called its
    exporter's __hash__, then hashed the buffer: a bytearray subclass's
    __hash__ released the view and emptied itself, and the freed buffer was
    hashed (a read of freed heap; SIGSEGV when it was unmapped).  In a call
    the view's bytes are copied after the exporter's hash, which fails once
    the view is released; hash(mv) == hash(mv.tobytes()) as ever."""
    real_hash = memoryview.__hash__

    def __hash__(self, /):
        if not _IN_CALL["on"]:
            return real_hash(self)
        exporter = self.obj             # ValueError once released, as CPython
        if not self.readonly:
            raise ValueError("cannot hash writable memoryview object")
        if self.format not in ("B", "b", "c"):
            raise ValueError("memoryview: hashing is restricted to formats 'B', 'b' or 'c'")
        hash(exporter)                  # unhashable exporters fail, as in CPython
        return hash(self.tobytes())
    __hash__.__qualname__ = "memoryview.__hash__"
    __hash__.__doc__ = real_hash.__doc__
    if not _set_on_immutable_type(memoryview, [("__hash__", __hash__)]):
        sys.stderr.write("pysandbox-worker: memoryview's hash could not be checked in place\n")


def _harden_list_slices():
    """gh-120384 (review 76, fixed upstream in 3.12 only): a list's
    assignment to an extended slice (lst[::-1] = it) works out the slice
    from the list's length, then reads the new items, running the code's
    __iter__, which may shrink the list: the items were written past the
    end of its new array (a fake bytearray over all memory, then the real
    builtins).  In a call the new items are read first, in Python, so the
    native method gets a list.  (An ordinary slice is clamped afterwards.)"""
    real_setitem = list.__setitem__

    def __setitem__(self, key, value, /):
        if _IN_CALL["on"] and type(key) is slice and type(value) is not list and \
                type(value) is not tuple:
            value = list(value)
        return real_setitem(self, key, value)
    __setitem__.__qualname__ = "list.__setitem__"
    __setitem__.__doc__ = real_setitem.__doc__
    if not _set_on_immutable_type(list, [("__setitem__", __setitem__)]):
        sys.stderr.write("pysandbox-worker: list's slice assignment could not be checked "
                         "in place\n")


def _harden_fractions():
    """Review 73: fractions.Fraction(x) kept whatever x's numerator and
    denominator were (a registered Rational's, a float subclass's
    as_integer_ratio()), and its conversions compute with them: int(f) ran
    the code's __floordiv__ inside __int__ and __index__, where native code
    is in the middle of its own work.  A Fraction holds ints (numpy's
    integers, whose numerator is themselves, become ints), and statistics
    takes numpy's integers as ints."""
    import fractions
    import numpy as np
    real_new = fractions.Fraction.__new__

    def exact(value):
        t = type(value)
        if t is int:
            return value
        if issubclass(t, np.integer) and type.__getattribute__(t, "__module__") == "numpy":
            return int(value)
        raise TypeError("Fraction(): a numerator or denominator of type %s is not allowed in "
                        "the sandbox: a Fraction holds ints; convert first, "
                        "Fraction(int(n), int(d))" % type.__getattribute__(t, "__name__"))

    def __new__(cls, numerator=0, denominator=None, **kwargs):
        self = real_new(cls, numerator, denominator, **kwargs)
        if not _IN_CALL["on"]:
            return self
        # the slots as Fraction's own descriptors read and write them
        _FRACTION_NUMERATOR.__set__(self, exact(_FRACTION_NUMERATOR.__get__(self)))
        _FRACTION_DENOMINATOR.__set__(self, exact(_FRACTION_DENOMINATOR.__get__(self)))
        return self
    __new__.__qualname__ = real_new.__qualname__
    __new__.__doc__ = real_new.__doc__
    fractions.Fraction.__new__ = staticmethod(__new__)
    # statistics gives a result the type of its data: numpy's integers (an
    # Int64 column's tolist()) truncated mean([1, 2]) to 1, as int(1.5);
    # they count as ints, whose fractional results are floats
    import statistics
    real_convert = statistics._convert

    def _convert(value, T):
        if isinstance(T, type) and issubclass(T, (np.integer, np.bool_)):
            T = int                     # mean of numpy bools is a fraction too
        return real_convert(value, T)
    _convert.__doc__ = real_convert.__doc__
    statistics._convert = _convert
    # ... and its sums and squares are of ints, not of fixed-width numpy
    # integers that overflow (variance of an Int32 column around 1e5 came
    # out negative: review 77 M1)
    real_exact_ratio = statistics._exact_ratio

    def _exact_ratio(x):
        if isinstance(x, (np.integer, np.bool_)):
            return (int(x), 1)
        return real_exact_ratio(x)
    _exact_ratio.__doc__ = real_exact_ratio.__doc__
    statistics._exact_ratio = _exact_ratio


def _fraction_slots():
    import fractions
    return (fractions.Fraction.__dict__["_numerator"], fractions.Fraction.__dict__["_denominator"])


_FRACTION_NUMERATOR, _FRACTION_DENOMINATOR = _fraction_slots()


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


def _zone_key(key):
    """A ZoneInfo key as an exact str: a str subclass's text is copied
    (its own methods do not run), anything else is refused."""
    if type(key) is str or not _IN_CALL["on"]:
        return key
    if isinstance(key, str):
        return "".join((key,))
    raise TypeError("a ZoneInfo key must be a str in the sandbox, not %s: the cache compares "
                    "it with its keys while it walks them" % type(key).__name__)


def _harden_zoneinfo():
    """zoneinfo's C ZoneInfo (CPython 3.11.2, unfixed upstream):
    ZoneInfo(key), ZoneInfo.clear_cache(only_keys=...) and _unpickle(key, 1)
    look the key up in the class's strong cache, a linked list, comparing it
    with each cached key and then reading the node's next: a key of the
    code's whose __eq__ called ZoneInfo.clear_cache() freed the nodes while
    the walk was on one, and a bytearray's buffer refilling it led the walk
    to a key of the code's making (a fake bytearray over all memory, then
    the real builtins).  In a call a key is an exact str (_zone_key).
    load_data took a TZif transition's local time type index up to and
    including the number of types (one past the end of its array), and a
    file with no types at all: ZoneInfo.from_file(io.BytesIO(crafted)) read
    a time type from the next heap block, which a bytearray's buffer filled
    (utcoffset() returned a fake bytearray).  What zoneinfo._common.load_data
    returns, for every source (a file object, the tz path, tzdata), is
    checked before the C code uses it."""
    import zoneinfo
    import zoneinfo._common as common
    cls = zoneinfo.ZoneInfo
    real_load = common.load_data
    if getattr(real_load, "_sb_checked", False):
        return                           # checked already (the unit tests harden again)

    def load_data(fobj):
        data = real_load(fobj)
        trans_idx, trans_utc, utcoff, isdst, abbr = data[:5]
        types = len(utcoff)
        if not types or len(isdst) != types or len(abbr) != types or \
                len(trans_idx) != len(trans_utc) or \
                any(type(i) is not int or not 0 <= i < types for i in trans_idx):
            raise ValueError("Invalid TZif file: a transition names a local time type "
                             "the file does not have")
        return data
    load_data.__doc__ = real_load.__doc__
    load_data._sb_checked = True
    common.load_data = load_data         # _zoneinfo looks it up on each load
    if cls is not getattr(sys.modules.get("_zoneinfo"), "ZoneInfo", None):
        return                           # the pure-Python ZoneInfo: no C cache
    real_new = _c_new(cls)
    real_clear = cls.__dict__["clear_cache"]
    real_unpickle = cls.__dict__["_unpickle"]

    def __new__(subtype, *args, **kwargs):
        if _IN_CALL["on"]:
            args = tuple(_zone_key(arg) for arg in args)
            kwargs = {name: _zone_key(value) if name == "key" else value
                      for name, value in kwargs.items()}
        return real_new(subtype, args, kwargs)

    def clear_cache(klass, *, only_keys=None):
        if only_keys is not None and _IN_CALL["on"]:
            only_keys = [_zone_key(key) for key in only_keys]
        return real_clear.__get__(None, klass)(only_keys=only_keys)
    clear_cache.__doc__ = real_clear.__doc__

    def _unpickle(klass, key, from_cache, /):
        return real_unpickle.__get__(None, klass)(_zone_key(key), from_cache)

    # gh-111306/gh-125318 (review 78, open upstream): utcoffset(), dst() and
    # tzname() of anything but a datetime read its fold as the byte at the
    # datetime's offset, an index into a two-entry array: a bytes subclass
    # with a toordinal() chose it (a read of any address, or SIGSEGV).  In a
    # call they take a datetime (a subclass has its layout) or None
    import datetime

    def takes_datetime(name):
        real = cls.__dict__[name]

        def method(self, dt, /):
            if _IN_CALL["on"] and dt is not None and \
                    not issubclass(type(dt), datetime.datetime):
                raise TypeError('ZoneInfo.%s() of a "%s" is not allowed in the sandbox: it '
                                'takes a datetime.datetime or None' % (
                                    name, type.__getattribute__(type(dt), "__name__")))
            return real(self, dt)
        method.__name__ = name
        method.__qualname__ = "ZoneInfo." + name
        method.__doc__ = real.__doc__
        return method

    if real_new is None or not _set_on_immutable_type(cls, [
            ("__new__", staticmethod(__new__)), ("clear_cache", classmethod(clear_cache)),
            ("_unpickle", classmethod(_unpickle))] + [
            (name, takes_datetime(name)) for name in ("utcoffset", "dst", "tzname")]):
        sys.stderr.write("pysandbox-worker: zoneinfo.ZoneInfo could not be checked in place; "
                         "it is not handed out\n")
        refuse(cls, "its cache walks freed memory when a key's __eq__ clears it")


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

    # gh-143543 / gh-146613: groupby compares the keys it holds only
    # borrowed while the code's __eq__ (or a library's that runs the code)
    # may advance it; the documented pure-Python equivalent holds them
    def groupby(iterable, key=None):
        keyfunc = (lambda x: x) if key is None else key
        iterator = iter(iterable)
        exhausted = False

        def _grouper(target_key):
            nonlocal curr_value, curr_key, exhausted
            yield curr_value
            for curr_value in iterator:
                curr_key = keyfunc(curr_value)
                if curr_key != target_key:
                    return
                yield curr_value
            exhausted = True

        try:
            curr_value = next(iterator)
        except StopIteration:
            return
        curr_key = keyfunc(curr_value)

        while not exhausted:
            target_key = curr_key
            curr_group = _grouper(target_key)
            yield curr_key, curr_group
            if curr_key == target_key:
                for _ in curr_group:
                    pass

    for original, checked in ((itertools.pairwise, pairwise), (itertools.count, count),
                              (itertools.islice, islice), (itertools.chain, chain),
                              (itertools.cycle, cycle), (itertools.zip_longest, zip_longest),
                              (itertools.groupby, groupby)):
        checked.__name__ = original.__name__
        checked.__qualname__ = original.__qualname__
        checked.__doc__ = original.__doc__
        _SUBSTITUTES[id(original)] = checked


def _harden_borrowed_comparisons():
    """CPython 3.11 compares an item it holds no reference to in
    deque.index (gh-115243) and iter(callable, sentinel)'s sentinel: the
    code's __eq__ is pinned when it returns NotImplemented (sb_guard), but a
    library's __eq__ that runs the code first (ipaddress reads other._ip,
    the code's property, which emptied the deque) returned it too, and the
    freed item reached the code's reflected __eq__ (review 60 F2).
    deque.index compares over a list (list.index holds each item); the
    code's two-argument iter() is a generator; ipaddress compares only
    ipaddress objects."""
    import collections
    import ipaddress
    deque_index = collections.deque.index

    def index(self, value, start=0, stop=sys.maxsize, /):
        if not _IN_CALL["on"]:
            return deque_index(self, value, start, stop)
        items = list(self)              # each compared item held
        n = len(items)
        start, stop, _ = slice(start, stop).indices(n)
        for i in range(start, stop):
            item = items[i]
            found = item is value or bool(item == value)
            if len(self) != n or self[i] is not item:
                raise RuntimeError("deque mutated during iteration")
            if found:
                return i
        raise ValueError("%r is not in deque" % (value,))
    index.__qualname__ = "deque.index"
    index.__doc__ = deque_index.__doc__
    _set_on_immutable_type(collections.deque, [("index", index)])
    # gh-120298: list's ordering comparison compares the first items that
    # differ without holding them; numpy's array comparison ran the code
    # (an element's __gt__ emptied the list), then returned NotImplemented,
    # and CPython passed the freed array to the code's reflected method
    # (review 62).  In a call, two lists compare as tuples of their items,
    # each held until the comparison ends.
    import operator
    ordering = []
    for name, op in (("__lt__", operator.lt), ("__le__", operator.le),
                     ("__gt__", operator.gt), ("__ge__", operator.ge)):
        ordering.append((name, _held_list_ordering(list.__dict__[name], op)))
    _set_on_immutable_type(list, ordering)
    sb_iter.__name__ = sb_iter.__qualname__ = "iter"
    _BASE_BUILTINS["iter"] = sb_iter
    base = ipaddress._IPAddressBase
    for cls in (ipaddress._BaseAddress, ipaddress._BaseNetwork, ipaddress.IPv4Interface,
                ipaddress.IPv6Interface):
        for name in ("__eq__", "__lt__"):
            method = cls.__dict__.get(name)
            if method is not None:
                setattr(cls, name, _only_addresses(method, base))


def _harden_borrowed_calls():
    """CPython 3.11 calls or compares what an object keeps in an attribute
    the code may set, without a reference of its own: cmp_to_key's key
    compares its .obj (review 64 K1: numpy's comparison of a string array
    ran the code, which set k.obj = None and so freed the array, then
    returned NotImplemented, and CPython handed the freed array to the
    code's reflected __eq__), and defaultdict's __missing__ calls its
    default_factory (D1: a factory that dropped itself while it ran freed
    the iterator it was running).  In a call, cmp_to_key is the documented
    pure-Python one, whose comparisons pass both objects as arguments
    (held), and __missing__ holds the factory it calls."""
    import collections
    import functools

    def cmp_to_key(mycmp):
        class K(object):
            __slots__ = ["obj"]

            def __init__(self, obj):
                self.obj = obj

            def __lt__(self, other):
                return mycmp(self.obj, other.obj) < 0

            def __gt__(self, other):
                return mycmp(self.obj, other.obj) > 0

            def __eq__(self, other):
                return mycmp(self.obj, other.obj) == 0

            def __le__(self, other):
                return mycmp(self.obj, other.obj) <= 0

            def __ge__(self, other):
                return mycmp(self.obj, other.obj) >= 0

            __hash__ = None
        return K
    cmp_to_key.__doc__ = functools.cmp_to_key.__doc__
    _SUBSTITUTES[id(functools.cmp_to_key)] = cmp_to_key

    defaultdict = collections.defaultdict
    real_missing = defaultdict.__missing__
    factory_slot = defaultdict.__dict__["default_factory"]

    def __missing__(self, key, /):
        if not _IN_CALL["on"]:
            return real_missing(self, key)
        # the slot itself, as C reads it (not a subclass's property)
        factory = factory_slot.__get__(self, defaultdict)
        if factory is None:
            raise KeyError(key)
        value = factory()
        self[key] = value
        return value
    __missing__.__qualname__ = "defaultdict.__missing__"
    __missing__.__doc__ = real_missing.__doc__
    _set_on_immutable_type(defaultdict, [("__missing__", __missing__)])


def _harden_unicode_errors():
    """CPython 3.11.2's UnicodeDecodeError.__str__ reads the byte at
    exc.start of exc.object without checking either (gh-123378), and start,
    end and object may be set or given to the constructor: str() of
    UnicodeDecodeError("utf-8", b"abc", -100, -99, "r") showed the byte 100
    before the bytes' data (any byte at a chosen distance: a read of the
    process's memory), and an object of another type was read as bytes.
    The message is made here, as CPython makes it, from fields read after
    str() of the reason and the encoding, which may run the code (a Series
    as reason, formatted by the code's float_format, set start between a
    check and CPython's read: review 68 F1); a start outside the object
    gives the message for a range, which reads no byte.  The encode and
    translate errors are made the same way."""
    for cls, kind in ((UnicodeDecodeError, bytes), (UnicodeEncodeError, str),
                      (UnicodeTranslateError, str)):
        _set_on_immutable_type(cls, [("__str__", _checked_unicode_error_str(cls, kind))])


def _checked_unicode_error_str(cls, kind):
    real = cls.__str__
    # the fields themselves, as C reads them (not a subclass's properties)
    fields = {name: cls.__dict__[name] for name in ("object", "start", "end", "encoding",
                                                      "reason")}
    translate = cls is UnicodeTranslateError

    def __str__(self):
        if fields["object"].__get__(self, cls) is None:
            return ""
        reason = str(fields["reason"].__get__(self, cls))
        codec = "" if translate else "'%s' codec " % (str(fields["encoding"].__get__(self, cls)),)
        # read after the str() calls above, which may have changed them
        obj = fields["object"].__get__(self, cls)
        start = fields["start"].__get__(self, cls)
        end = fields["end"].__get__(self, cls)
        verb = "decode" if kind is bytes else "translate" if translate else "encode"
        if type(obj) is kind and 0 <= start < len(obj) and end == start + 1:
            if kind is bytes:
                return "%scan't decode byte 0x%02x in position %d: %s" % (
                    codec, obj[start], start, reason)
            code = ord(obj[start])
            shown = ("\\x%02x" % code if code <= 0xff else "\\u%04x" % code
                     if code <= 0xffff else "\\U%08x" % code)
            return "%scan't %s character '%s' in position %d: %s" % (
                codec, verb, shown, start, reason)
        return "%scan't %s %s in position %d-%d: %s" % (
            codec, verb, "bytes" if kind is bytes else "characters", start, end - 1, reason)
    __str__.__qualname__ = cls.__name__ + ".__str__"
    __str__.__doc__ = real.__doc__
    return __str__


def _held_list_ordering(real, op):
    def compare(self, other, /):
        if _IN_CALL["on"] and isinstance(other, list):
            # the items themselves, as list's comparison reads them (not a
            # subclass's __iter__)
            return op(tuple(list.__iter__(self)), tuple(list.__iter__(other)))
        return real(self, other)
    compare.__name__ = real.__name__
    compare.__qualname__ = "list." + real.__name__
    compare.__doc__ = real.__doc__
    return compare


def _only_addresses(method, base):
    def compare(self, other):
        if _IN_CALL["on"] and not isinstance(other, base):
            return NotImplemented       # before it reads the code's other._ip
        return method(self, other)
    compare.__name__ = method.__name__
    compare.__qualname__ = method.__qualname__
    compare.__doc__ = method.__doc__
    return compare


def sb_iter(*args):
    """iter() as the code gets it: iter(callable, sentinel) as a generator
    that holds what it compares (CPython's compared a sentinel it may have
    dropped meanwhile)."""
    if len(args) != 2:
        return iter(*args)
    function, sentinel = args
    if not callable(function):
        raise TypeError("iter(v, w): v must be callable")

    def calls():
        while True:
            value = function()
            if value is sentinel or value == sentinel:
                return
            yield value
    return calls()


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
    functions (and merge_asof's joins by a key of objects, which set_item()
    the right frame's keys) get private copies of arrays of objects (which
    hold their own references and which the code cannot reach), and an
    ObjectEngine is always built on a private copy."""
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
    # merge_asof(by=) of objects: the asof joins set_item() each right
    # "by" key into a PyObjectHashTable, borrowed from the right frame's
    # own column (ensure_object copies nothing), then compare the left
    # keys with them (a key's __eq__ that empties the column freed the
    # table's keys: SIGSEGV); pandas looks them up on the module
    from pandas._libs import join as libjoin
    for name in dir(libjoin):
        if name.startswith("asof_join_") and name.endswith("_on_X_by_Y"):
            setattr(libjoin, name, on_private_copies(getattr(libjoin, name)))
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
                if _outside(positions, low, n):
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


def _resize_dims(args):
    """The shape array.resize(*args) asks for, read once as ints (numpy then
    gets this tuple, not the code's object to read again), or None if it is
    no shape."""
    shape = args[0] if len(args) == 1 else args
    try:
        return (_INDEX(shape),)
    except TypeError:
        pass
    try:
        return tuple(_INDEX(d) for d in shape)
    except TypeError:
        return None


_NP_DTYPE = [None]       # numpy.dtype, once the ndarray methods are checked
_INDEX = __import__("operator").index


def _normalized_array_args(params, args, kwargs):
    """The arguments of an array constructor as keywords, with dtype=,
    shape=, offset= and itemsize= converted once: what is checked is what
    numpy gets.  A dtype-like object of the code's (a "dtype" property)
    answered "u8" to the checks and "O" to numpy, an array of Python
    objects over a buffer the code wrote (review 60 F1)."""
    import operator
    import numpy as np

    def converted(key, value):
        if value is None:
            return value
        if key == "dtype":
            return np.dtype(value)
        if key == "shape":
            return tuple(operator.index(d) for d in value) \
                if isinstance(value, (tuple, list)) else operator.index(value)
        if key in ("offset", "itemsize"):
            return operator.index(value)
        return value
    args = [converted(key, value) for key, value in zip(params, args)] + \
        list(args[len(params):])
    kwargs = {key: converted(key, value) for key, value in kwargs.items()}
    return tuple(args), kwargs


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


def _pinned_buffer(params, args, kwargs):
    """The arguments of ndarray(buffer=...) with a buffer that is not an
    array read through np.frombuffer first.  numpy's ndarray() releases the
    buffer it got at once and keeps only its exporter: a bytearray could
    then grow or shrink, and free the memory under the array (review 163
    F2: a list's item pointers read, a number written as an object; also
    through recarray(buf=), chararray(buffer=), np.rec.fromstring, a
    released memoryview).  np.frombuffer's array holds the export for as
    long as it lives, and numpy keeps it as the new array's base.  An
    ndarray buffer is left as it is: it cannot be resized while the new
    array holds it (resize's reference check)."""
    import numpy as np
    key = "buf" if "buf" in params else "buffer"
    at = params.index(key)
    buffer = args[at] if len(args) > at else kwargs.get(key)
    if buffer is None or isinstance(buffer, np.ndarray):
        return args, kwargs
    try:
        pinned = np.frombuffer(buffer, np.uint8)
    except BufferError as exc:
        raise ValueError("buffer= must be a C-contiguous buffer in the sandbox (%s): use "
                         "np.ascontiguousarray(a) or np.frombuffer(b, dtype)" % exc) from None
    if len(args) > at:
        return args[:at] + (pinned,) + args[at + 1:], kwargs
    kwargs = dict(kwargs)
    kwargs[key] = pinned
    return args, kwargs


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


# the largest data type the worker lets numpy make (src/worker/sb_dtypeguard.c)
DTYPE_SIZE_MAX = 2**29 - 1


def _dtype_size_problem(dtype):
    """numpy 1.24 adds a structured dtype's field offsets and sizes, and
    parses a type string's size, in a C int without an overflow check
    (descriptor.c): {"offsets": [64, 2**31 - 1]}, "S2147483648" or
    [("a", "V2147483000"), ("b", "V2000")] give a negative itemsize or a
    field past the record, and an array of it reads and writes memory
    outside its own.  None, or why the dtype is refused."""
    itemsize = dtype.itemsize
    if itemsize < 0:
        return "its size is negative (numpy's size arithmetic overflowed)"
    fields = dtype.fields
    if fields:
        for name, spec in fields.items():
            sub, offset = spec[0], spec[1]
            if offset < 0 or sub.itemsize < 0 or offset + sub.itemsize > itemsize:
                return 'its field "%s" lies outside the record' % (name,)
            problem = _dtype_size_problem(sub)
            if problem is not None:
                return problem
    if dtype.subdtype is not None:
        return _dtype_size_problem(dtype.subdtype[0])
    return None


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
            dtype = np.dtype(float if given.get("dtype") is None else given.get("dtype"))
            problem = _dtype_size_problem(dtype)
            if problem is not None:
                return "the dtype is not allowed: " + problem
            itemsize = dtype.itemsize
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
            args, kwargs = _normalized_array_args(params, args, kwargs)
            problem = _array_args_problem(real, params, args, kwargs)
            if problem is not None:
                raise ValueError(problem)
            args, kwargs = _pinned_buffer(params, args, kwargs)
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
            args, kwargs = _normalized_array_args(params, args, kwargs)
            problem = _array_args_problem(cls, params, args, kwargs)
            if problem is not None:
                raise ValueError(problem)
        return original(subtype, *args, **kwargs)
    __new__.__qualname__ = original.__qualname__
    __new__.__doc__ = original.__doc__
    cls.__new__ = staticmethod(__new__)


# numpy's own ndarray constructor (its C tp_new), once _patch_ndarray_type
# has checked the type's __new__
_RAW_ARRAY_NEW = [None]


def raw_ndarray(**kwargs):
    """np.ndarray(**kwargs) as numpy makes it, without the call's checks: for
    the runtime's own views of what the backend sent (sb_codec), which a
    serving child reads with the guards on (strides= is refused to code)."""
    import numpy as np
    new = _RAW_ARRAY_NEW[0]
    if new is None:
        return np.ndarray(**kwargs)
    return new(np.ndarray, (), kwargs)


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
    _RAW_ARRAY_NEW[0] = array_new
    params = ("shape", "dtype", "buffer", "offset", "strides", "order")
    real = np.ndarray

    def __new__(subtype, *args, **kwargs):
        if _IN_CALL["on"]:
            args, kwargs = _normalized_array_args(params, args, kwargs)
            problem = _array_args_problem(real, params, args, kwargs)
            if problem is not None:
                raise ValueError(problem)
            args, kwargs = _pinned_buffer(params, args, kwargs)
        return array_new(subtype, args, kwargs)

    flags = real.__dict__["flags"]

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

    class ReadOnlyBase(Unsettable):
        """arr.base: the object whose memory a view uses.  pandas hands out
        read-only views of what its native code trusts (a Categorical's
        codes, a MultiIndex's codes): their base is the writeable original.
        In a call the base of a read-only array is handed out read-only
        too (a read-only view of it)."""

        def __get__(self, obj, cls=None):
            base = Unsettable.__get__(self, obj, cls)
            if obj is not None and type(base) is memoryview and _IN_CALL["on"]:
                # np.frombuffer's (and _pinned_buffer's) memoryview holds the
                # export that keeps a bytearray from moving under the array,
                # and numpy holds none on it: released by the code, the
                # bytearray grew and freed the array's memory (review 166
                # F2).  The code gets a view of its own, whose release
                # leaves numpy's
                try:
                    view = memoryview(base)
                except ValueError:
                    return None
                return view if flags.__get__(obj).writeable else view.toreadonly()
            if obj is None or base is None or not _IN_CALL["on"] or \
                    flags.__get__(obj).writeable:
                return base
            if isinstance(base, real):
                if not flags.__get__(base).writeable:
                    return base
                view = real.view(base)
                setflags(view, False, None, None)
                return view
            try:
                buffer = memoryview(base)
            except TypeError as exc:
                # no buffer: nothing to write through; one of Python
                # objects (refused as a memoryview in a call): none
                return None if "Python objects" in str(exc) else base
            except (BufferError, ValueError):
                return None
            return base if buffer.readonly else buffer.toreadonly()

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
        if _IN_CALL["on"] and args:
            dims = _resize_dims(args)
            if dims is None:
                raise TypeError("resize() takes its new shape as ints in the sandbox")
            size = 1
            for d in dims:
                size *= d
            if size == self.size and dims != self.shape:
                # numpy checks no reference when the size stays: it rewrote
                # the shape and strides native code held the array with
                # (matplotlib's array views read its offsets with the new
                # strides: heap words and addresses, review 161 F3)
                raise ValueError("resize() to another shape of the same size is not allowed "
                                 "in the sandbox: native code holding the array keeps its old "
                                 "shape; use a.reshape(shape), which gives a view")
            if size != self.size and kwargs.get("refcheck", True):
                # (refcheck=False: a hash table's own vector, above)
                # numpy reallocates the array's memory, trusting that no one
                # holds it when only two references do: native numpy code in
                # an outer frame (a[i] = x calling x.__str__) held its data
                # pointer with one of them and wrote into the freed memory
                # (review 167 F1; numpy's own check has the gap too).  So,
                # as before review 162 F3, a copy
                raise ValueError("resize() to another size is not allowed in the sandbox: "
                                 "numpy would reallocate the array under code that may "
                                 "still hold it; use a = np.resize(a, shape), which copies "
                                 "(it repeats the values to fill), or a = np.concatenate("
                                 "[a, np.zeros(n - a.size, a.dtype)]) to pad with zeros")
            return resize(self, dims, **kwargs)
        return resize(self, *args, **kwargs)
    checked_resize.__name__ = "resize"
    checked_resize.__qualname__ = "ndarray.resize"
    checked_resize.__doc__ = resize.__doc__

    setstate = real.__dict__["__setstate__"]

    def checked_setstate(self, state, /):
        # __setstate__ frees the array's memory and takes the state's: its
        # views read and write the freed memory (copy.copy of an object
        # whose __reduce_ex__ returned (lambda: arr, (), state) reached it).
        # numpy's own unpickling and copy set the state of a new, empty
        # array (_reconstruct's, shape (0,)), which no view can read
        if _IN_CALL["on"] and real.__dict__["size"].__get__(self) != 0:
            raise ValueError("__setstate__ of an array that holds elements is not allowed "
                             "in the sandbox: its views would point to freed memory")
        return setstate(self, state)
    checked_setstate.__name__ = "__setstate__"
    checked_setstate.__qualname__ = "ndarray.__setstate__"
    checked_setstate.__doc__ = setstate.__doc__

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
            # a product's other operand counts as much as self
            other = args[0] if args and name in _PRODUCTS else None
            if not (_IN_CALL["on"] and (self.dtype.hasobject or (
                    isinstance(other, real) and other.dtype.hasobject))):
                return method(self, *args, **kwargs)
            private = real.copy(self) if self.dtype.hasobject else self
            if name in _PRODUCTS:
                # the operand only: dot's out is written, the caller's own
                args = (real.copy(other) if isinstance(other, real) and
                        other.dtype.hasobject else other,) + args[1:]
            else:
                # searchsorted's values are compared the same way: a
                # private copy of them too
                args = tuple(real.copy(a) if isinstance(a, real) and a.dtype.hasobject else a
                             for a in args)
                kwargs = {k: real.copy(v) if isinstance(v, real) and v.dtype.hasobject else v
                          for k, v in kwargs.items()}
            result = method(private, *args, **kwargs)
            if in_place:
                real.__setitem__(self, Ellipsis, private)
            return result
        checked.__name__ = name
        checked.__qualname__ = "ndarray." + name
        checked.__doc__ = method.__doc__
        return checked

    _PRODUCTS = ("dot", "__matmul__", "__rmatmul__")

    put = real.__dict__["put"]

    size = real.__dict__["size"].__get__

    def checked_put(self, *args, **kwargs):
        # numpy 1.24's put into an empty array with mode="clip" clips every
        # index to size - 1 == -1 and writes an item before the array's
        # memory (chosen bytes over the heap chunk before it); mode="wrap"
        # loops forever.  In a call, a put of values at any index into an
        # empty array is refused (mode="raise" gives an IndexError)
        if _IN_CALL["on"] and size(self) == 0:
            given = dict(zip(("indices", "values", "mode"), args))
            given.update(kwargs)
            import numpy as np
            if np.size(given.get("indices", ())) and np.size(given.get("values", ())):
                raise ValueError("put() into an empty array is not allowed in the sandbox: "
                                 "there is no index to put at (this numpy's mode='clip' "
                                 "writes before the array)")
        # numpy's put drops each replaced object before it stores the new
        # one: the old object's death (a generator's finally) could read
        # the slot back and keep the object being freed.  In a call the
        # replaced objects are held until every slot has its new value
        if not (_IN_CALL["on"] and self.dtype.hasobject):
            return put(self, *args, **kwargs)
        held = real.copy(self)
        try:
            return put(self, *args, **kwargs)
        finally:
            del held
    checked_put.__name__ = "put"
    checked_put.__qualname__ = "ndarray.put"
    checked_put.__doc__ = put.__doc__

    getfield = real.__dict__["getfield"]
    setfield = real.__dict__["setfield"]
    import numpy
    _NP_DTYPE[0] = numpy.dtype

    def field_problem(self, dtype, offset):
        # numpy checks 0 <= offset <= itemsize - size in a C int: a data
        # type of negative size (numpy's own casts to str multiply a size
        # by 4 unchecked) passed it, a view or a memcpy past the array
        import numpy as np
        import operator
        dt = np.dtype(dtype)
        offset = operator.index(offset)
        item = self.dtype.itemsize
        problem = _dtype_size_problem(dt)
        if problem is None and not (0 <= dt.itemsize and 0 <= offset <= item - dt.itemsize):
            problem = "the field lies outside the array's items"
        return problem

    def checked_getfield(self, dtype, offset=0):
        if _IN_CALL["on"]:
            # converted once: numpy gets what was checked (review 62)
            dtype, offset = _NP_DTYPE[0](dtype), _INDEX(offset)
            problem = field_problem(self, dtype, offset)
            if problem is not None:
                raise ValueError("getfield() with this data type is not allowed in the "
                                 "sandbox: " + problem)
        return getfield(self, dtype, offset)
    checked_getfield.__name__ = "getfield"
    checked_getfield.__qualname__ = "ndarray.getfield"
    checked_getfield.__doc__ = getfield.__doc__

    def checked_setfield(self, val, dtype, offset=0):
        if _IN_CALL["on"]:
            dtype, offset = _NP_DTYPE[0](dtype), _INDEX(offset)
            problem = field_problem(self, dtype, offset)
            if problem is not None:
                raise ValueError("setfield() with this data type is not allowed in the "
                                 "sandbox: " + problem)
        return setfield(self, val, dtype, offset)
    checked_setfield.__name__ = "setfield"
    checked_setfield.__qualname__ = "ndarray.setfield"
    checked_setfield.__doc__ = setfield.__doc__

    setflags = real.__dict__["setflags"]
    # numpy's own broadcast views (np.broadcast_arrays) are made writeable
    # again, with a warning, when their source is
    from numpy.lib import stride_tricks
    numpy_callers = frozenset({stride_tricks._broadcast_to.__code__})

    # arrays the code itself made read-only in a call may be made
    # writeable again: id -> weak reference
    made_read_only = {}

    def checked_setflags(self, write=None, align=None, uic=None):
        # pandas hands out read-only views of what it relies on (a
        # Categorical's codes, a MultiIndex's codes, cached group ids):
        # made writeable, a code past the categories is read out of
        # bounds by whatever consumes them next.  a.flags.writeable = True
        # and a.flags["W"] = True come here too (numpy calls setflags)
        if uic is not None and _IN_CALL["on"]:
            # numpy 1.24 drops the array's base for uic=False, whatever the
            # array: a view's owner was freed under it, and its bytes were
            # the next array's object pointers (review 60 F3);
            # a.flags.writebackifcopy = False comes here too
            raise ValueError("setflags(uic=...) and flags.writebackifcopy are not allowed in "
                             "the sandbox: they drop the array's base while views of it may "
                             "live; copy the array instead")
        if write is not None:
            write = bool(write)
        if write is None or not _IN_CALL["on"]:
            return setflags(self, write, align, uic)
        writeable = flags.__get__(self).writeable
        caller = sys._getframe(1)
        if not write:
            module = caller.f_globals.get("__name__")
            if _pandas_frame(caller) or (type(module) is str and module.startswith("numpy.")):
                # a library freezes an array it adopts (a MultiIndex's codes
                # are the code's own int8 array, made read-only by pandas):
                # the code made it read-only first, but may not undo pandas'
                made_read_only.pop(id(self), None)
            elif writeable:
                key = id(self)
                made_read_only[key] = weakref.ref(self, lambda _, key=key:
                                                  made_read_only.pop(key, None))
        elif not writeable and caller.f_code not in numpy_callers:
            ref = made_read_only.get(id(self))
            if ref is None or ref() is not self:
                raise ValueError("making a read-only array writeable is not allowed in the "
                                 "sandbox: it may be a view of pandas' own data (a "
                                 "Categorical's codes, an index's values); write to a copy: "
                                 "a = a.copy()")
        return setflags(self, write, align, uic)
    checked_setflags.__name__ = "setflags"
    checked_setflags.__qualname__ = "ndarray.setflags"
    checked_setflags.__doc__ = setflags.__doc__

    def no_object_bytes(name):
        # review 88: an array of objects' bytes are its pointers, and the
        # code's id() is masked so that it learns no address
        method = real.__dict__[name]

        def checked(self, *args, **kwargs):
            if _IN_CALL["on"] and dtype_of(self).hasobject:
                raise TypeError("%s() of an array of Python objects is not allowed in the "
                                "sandbox: its bytes are the objects' addresses; convert it "
                                "first (a.astype(str))" % name)
            return method(self, *args, **kwargs)
        checked.__name__ = name
        checked.__qualname__ = "ndarray." + name
        checked.__doc__ = method.__doc__
        return checked
    dtype_of = real.__dict__["dtype"].__get__

    return _set_on_immutable_type(real, [
        (name, no_object_bytes(name)) for name in ("tobytes", "tostring")
        if name in real.__dict__] + [
        ("__new__", staticmethod(__new__)), ("put", checked_put),
        ("setflags", checked_setflags), ("getfield", checked_getfield),
        ("setfield", checked_setfield),
        ("strides", Unsettable("strides", real.__dict__["strides"])),
        ("data", ObjectData("data", real.__dict__["data"])),
        ("base", ReadOnlyBase("base", real.__dict__["base"])),
        ("resize", checked_resize), ("__setstate__", checked_setstate)] + [
        (name, on_private_copy(name, name in ("sort", "partition")))
        # argsort, argpartition and searchsorted compare as sort does
        # (review 63: numpy's comparison of a string array ran the code,
        # which emptied the object array's slot, and returned NotImplemented)
        for name in ("sort", "partition", "argmax", "argmin", "argsort", "argpartition",
                     "searchsorted",
                     # products multiply elements they hold no reference
                     # to (_guard_object_products)
                     "dot", "__matmul__", "__rmatmul__")])


def _guard_lexsort(np):
    """np.lexsort compares its keys' elements as sort does, without
    references: an array of Python objects among them is a private copy
    in a call (review 63)."""
    lexsort = np.lexsort

    def checked_lexsort(keys, axis=-1):
        if _IN_CALL["on"]:
            if isinstance(keys, np.ndarray):
                keys = keys.copy() if keys.dtype.hasobject else keys
            else:
                keys = [k.copy() if isinstance(k, np.ndarray) and k.dtype.hasobject else k
                        for k in keys]
        return lexsort(keys, axis)
    checked_lexsort.__name__ = lexsort.__name__
    checked_lexsort.__doc__ = lexsort.__doc__
    _SUBSTITUTES[id(lexsort)] = checked_lexsort


def _guard_object_products(np):
    """numpy's products of arrays of Python objects (dot, vdot, inner,
    matmul, correlate, convolve) multiply and add elements whose pointers
    they read from the arrays without a reference: a multiplication that
    ran the code, which replaced the array's element, and then gave way to
    the other operand's method would hand that method a freed object.  No
    such multiplication is known (numpy's arithmetic raises where its
    comparison returned NotImplemented: review 67 N1), so this does not
    rest on that: in a call the code's object arrays go to them as private
    copies, which hold their own references and which the code cannot
    reach (ndarray.dot and @ too: _patch_ndarray_type)."""
    multiarray = np.core.multiarray
    for owner, name in ((np, "dot"), (np, "vdot"), (np, "inner"), (np, "matmul"),
                        (np, "correlate"), (np, "convolve"),
                        # what correlate and convolve call
                        (multiarray, "correlate"), (multiarray, "correlate2")):
        function = getattr(owner, name, None)
        if function is not None and id(function) not in _SUBSTITUTES:
            _SUBSTITUTES[id(function)] = _on_private_copies(function, name)


_OPERAND_KEYWORDS = frozenset({"a", "b", "v", "x1", "x2"})


def _private(value):
    return _NDARRAY[0].copy(value) if isinstance(value, _NDARRAY[0]) and \
        value.dtype.hasobject else value


def _on_private_copies(function, name):
    def checked(*args, **kwargs):
        if _IN_CALL["on"]:
            # the two operands only: out (the third positional of dot and
            # matmul) is written, the caller's own array
            args = tuple(_private(a) for a in args[:2]) + args[2:]
            kwargs = {k: _private(v) if k in _OPERAND_KEYWORDS else v
                      for k, v in kwargs.items()}
        return function(*args, **kwargs)
    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = function.__doc__
    return checked


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
        if _IN_CALL["on"]:
            # the dtype converted once, and that one passed on (review 62)
            args = list(args)
            if args:
                args[0] = np.dtype(args[0])
                dtype = args[0]
            else:
                dtype = kwargs["dtype"] = np.dtype(kwargs.get("dtype", float))
            problem = _dtype_size_problem(dtype)
            if problem is not None:
                raise ValueError("np.frombuffer with this dtype is not allowed in the sandbox: "
                                 + problem)
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
        _guard_frompyfunc(np, umath, guard)
    # numpy's stores into arrays of objects (a[i] = x, put, itemset,
    # copyto(where=), ...) dropped the old object before storing the new
    # one: its death could run the code's Python (a generator's finally),
    # which read the slot back and kept the object being freed.  The
    # worker makes them store first and drop the old object after
    guard = getattr(sb_io, "guard_object_stores", None)
    if guard is not None:
        guard(np.dtype(object))


def _dtype_state_problem(dtype):
    """What a state given to dtype.__setstate__ may not make: sizes numpy
    would not (_dtype_size_problem, above DTYPE_SIZE_MAX), names that are
    not fields, a subarray whose size is not its base's times its shape
    (a field of it reads past its record).  None, or why."""
    problem = _dtype_size_problem(dtype)
    if problem is not None:
        return problem
    if dtype.itemsize > DTYPE_SIZE_MAX:
        return "its size is above %d bytes" % DTYPE_SIZE_MAX
    if dtype.names is not None:
        fields = dtype.fields or {}
        for name in dtype.names:
            if name not in fields:
                return 'its name "%s" is not one of its fields' % (name,)
        for spec in fields.values():
            problem = _dtype_state_problem(spec[0])
            if problem is not None:
                return problem
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        count = 1
        for dim in shape:
            count *= dim
        if base.itemsize * count != dtype.itemsize:
            return "its subarray's size is not its base's times its shape"
        return _dtype_state_problem(base)
    return None


def _guard_dtype_sizes(np):
    """numpy computes a data type's size in a C int without an overflow
    check, in C that every dtype= argument reaches (_dtype_size_problem):
    the worker checks the sizes where numpy's converter reads and stores
    them (src/worker/sb_dtypeguard.c), in every child, Python layer on or
    off.  Without it numpy is not safe to load: starting fails."""
    try:
        import sb_io
    except ImportError:                  # the unit tests' stub
        return
    guard = getattr(sb_io, "guard_numpy_dtypes", None)
    if guard is None:
        return
    # three known itemsizes locate the itemsize in numpy's descriptor struct
    guard(np.dtype, (np.dtype("V7"), np.dtype("V1234567"), np.dtype("S13")))
    # numpy's dtype.__setstate__ (unpickling, copy) takes a state's itemsize
    # and fields dict as given, past the worker's checks: a state of the
    # code's (the Python layer off, or a library that copies) is checked
    setstate = np.dtype.__dict__["__setstate__"]

    def checked_setstate(self, state):
        before = self.__reduce__()[2]
        try:
            result = setstate(self, state)
        except BaseException:
            setstate(self, before)
            raise
        problem = _dtype_state_problem(self)
        if problem is not None:
            setstate(self, before)
            raise ValueError("this numpy data type state is not allowed in the sandbox: "
                             + problem)
        return result
    checked_setstate.__name__ = "__setstate__"
    checked_setstate.__qualname__ = "dtype.__setstate__"
    checked_setstate.__doc__ = setstate.__doc__
    if not _set_on_immutable_type(np.dtype, [("__setstate__", checked_setstate)]):
        raise RuntimeError("numpy's dtype.__setstate__ could not be checked")


def _guard_ufunc_at(np):
    """numpy 1.24's ufunc.at(a, indices, b) writes into a without checking
    that a is writeable: np.add.at(c.codes, [0], k) changed pandas' own
    codes through the read-only view it hands out (a MultiIndex's codes
    changed by a level name's __eq__ between pandas' take check and
    lib.count_level_2d, which wrote at counts[code] unchecked: a heap
    increment at a chosen offset).  In a call a read-only array is
    refused; a False if ufunc could not be changed."""
    at = np.ufunc.__dict__["at"]
    flags = np.ndarray.__dict__["flags"]

    def checked_at(self, a, indices, *b):
        if _IN_CALL["on"] and isinstance(a, np.ndarray) and not flags.__get__(a).writeable:
            raise ValueError("%s.at into a read-only array is not allowed in the sandbox "
                             "(this numpy's ufunc.at does not check it): write to a copy, "
                             "a = a.copy()" % getattr(self, "__name__", "ufunc"))
        return at(self, a, indices, *b)
    checked_at.__name__ = "at"
    checked_at.__qualname__ = "ufunc.at"
    checked_at.__doc__ = at.__doc__
    return _set_on_immutable_type(np.ufunc, [("at", checked_at)])


# the per-operand flags of np.nditer and np.nested_iters a call may give
# (numpy 1.24's), all but updateifcopy
_NDITER_OP_FLAGS = frozenset((
    "readonly", "readwrite", "writeonly", "no_broadcast", "contig", "aligned", "nbo", "copy",
    "allocate", "no_subtype", "arraymask", "writemasked", "overlap_assume_elementwise",
    "virtual"))


_NDITER_FLAGS_FORM = ("op_flags other than a list of str (or a list of such lists, one per "
                      "operand) are not allowed in the sandbox")


def _nditer_op_flags(op_flags):
    """(problem, flags): why op_flags may not reach numpy's iterator, or
    None and a copy of them to hand numpy instead.  updateifcopy makes a
    temporary copy that numpy writes back when the iterator is closed, or
    when it dies unclosed: cast from objects, with the code's __bool__ or
    __str__, as an object died inside numpy's stores (review 138 F2: a
    putmask that dropped the iterator ran the code's __bool__, which kept
    the list being freed).  Read as exact lists, tuples and str only, and
    copied: numpy reads its other arguments first, where a list subclass's
    __getitem__ of the code's added "updateifcopy" to the list checked
    (review 140 F1)."""
    if op_flags is None:
        return None, None
    if type(op_flags) not in (list, tuple):
        return _NDITER_FLAGS_FORM, None
    copied = []
    for item in op_flags:
        nested = type(item) in (list, tuple)
        flags = list(item) if nested else [item]
        for flag in flags:
            if type(flag) is not str:
                return _NDITER_FLAGS_FORM, None
            if flag not in _NDITER_OP_FLAGS:
                if flag == "updateifcopy":
                    return ('the op flag "updateifcopy" is not allowed in the sandbox (its '
                            "copy is written back as the iterator dies); iterate over a copy "
                            "of the wanted dtype and assign the result back"), None
                return 'unexpected per-operand iterator flag "%s"' % flag, None
        copied.append(flags if nested else item)
    return None, copied


def _checked_op_flags(args, kwargs, position, what):
    """(args, kwargs, op_flags): args and kwargs with op_flags (given by
    name or at position) replaced by their checked copy, and that copy (or
    None); ValueError if they may not be given."""
    copied = None
    if "op_flags" in kwargs:
        problem, copied = _nditer_op_flags(kwargs["op_flags"])
        kwargs = dict(kwargs, op_flags=copied)
    elif len(args) > position:
        problem, copied = _nditer_op_flags(args[position])
        args = args[:position] + (copied,) + args[position + 1:]
    else:
        problem = None
    if problem is not None:
        raise ValueError(what + ": " + problem)
    return args, kwargs, copied


def _writable_operands(op_flags, count):
    """Which of count operands the checked op_flags make writable: one list
    of flags for all, or a list per operand; none given, all read only."""
    if not op_flags:
        return [False] * count
    if all(type(item) is str for item in op_flags):
        return [any(f in ("readwrite", "writeonly") for f in op_flags)] * count
    return [type(item) is list and any(f in ("readwrite", "writeonly") for f in item)
            for item in op_flags] + [False] * max(0, count - len(op_flags))


_NDITER_OBJECT_WRITEBACK = (
    "an iterator that writes back an object copy is not allowed in the sandbox: numpy "
    "copies or buffers an operand it writes back as the iterator closes or dies (flags "
    "\"buffered\", \"copy_if_overlap\" with overlapping operands, op flag "
    "\"updateifcopy\"), and here a writable operand is cast from or into an object "
    "dtype; iterate over a copy of the dtype wanted and assign it back "
    "(c = a.astype(object); ...; a[...] = c), or pass a copy of the operand read so "
    "that none overlap (b[:-1].copy())")


def _refuse_object_writeback(np, getters, iterators, what, op_flags):
    """Close the iterators and raise ValueError if one of them will write
    an operand back from an object copy, or into an object array.  numpy
    adds updateifcopy on its own to a writable operand that overlaps
    another when the iterator's flags say "copy_if_overlap" (review 142
    F1: the unclosed iterator cast its object copy back with the code's
    __bool__ inside putmask's store, as review 138 F2's updateifcopy
    did), so what is checked is the iterator numpy made, whatever the
    arguments said: every operand numpy marked WRITEBACKIFCOPY, read with
    ndarray's own descriptors (a subclass's flags or dtype of the code's
    are not asked; getters: their __get__, taken as the worker starts).
    A buffered iterator casts its buffers back without that flag (review
    146 F1): a writable operand (op_flags, the checked copy) whose dtype in
    the iterator differs from its array's, either holding objects, is
    refused too."""
    flags_of, dtype_of, base_of = getters
    for it in iterators:
        operands = it.operands
        dtypes = it.dtypes
        writable = _writable_operands(op_flags, len(operands))
        for op, dtype, written in zip(operands, dtypes, writable):
            own = dtype_of(op)
            base = base_of(op)
            if flags_of(op).writebackifcopy:
                bad = own.hasobject or (isinstance(base, np.ndarray) and
                                        dtype_of(base).hasobject)
            else:
                bad = written and dtype != own and (dtype.hasobject or own.hasobject)
            if bad:
                for each in iterators:
                    each.close()
                raise ValueError(what + ": " + _NDITER_OBJECT_WRITEBACK)


def _guard_nditer_writeback(np):
    """np.nditer and np.nested_iters write nothing back from or into an
    object array in a call (_nditer_op_flags, _refuse_object_writeback);
    False if nditer could not be changed.  nditer reads its arguments in
    its __init__ (tp_init), which type() calls with the arguments as
    given: the check and the copy are made there."""
    nditer_init = _c_init(np.nditer)
    if nditer_init is None:
        return False
    getters = (np.ndarray.flags.__get__, np.ndarray.dtype.__get__, np.ndarray.base.__get__)

    def __init__(self, *args, **kwargs):
        if not _IN_CALL["on"]:
            nditer_init(self, args, dict(kwargs))
            return
        args, kwargs, op_flags = _checked_op_flags(args, kwargs, 2, "np.nditer")
        nditer_init(self, args, dict(kwargs))
        _refuse_object_writeback(np, getters, (self,), "np.nditer", op_flags)
    __init__.__doc__ = np.nditer.__init__.__doc__
    nested_iters = np.nested_iters

    def checked_nested_iters(*args, **kwargs):
        if not _IN_CALL["on"]:
            return nested_iters(*args, **kwargs)
        args, kwargs, op_flags = _checked_op_flags(args, kwargs, 3, "np.nested_iters")
        iterators = nested_iters(*args, **kwargs)
        _refuse_object_writeback(np, getters, tuple(iterators), "np.nested_iters", op_flags)
        return iterators
    checked_nested_iters.__name__ = nested_iters.__name__
    checked_nested_iters.__doc__ = nested_iters.__doc__
    _SUBSTITUTES[id(nested_iters)] = checked_nested_iters
    return _set_on_immutable_type(np.nditer, [("__init__", __init__)])


def _guard_bit_generator_state(np):
    """numpy 1.24's bit generators take their position in their buffer of
    outputs from a state unchecked: MT19937's pos (an index into its 624
    words) and Philox's buffer_pos (into its 4 words).
    np.random.set_state(("MT19937", key, -1000)), or
    bit_generator.state = {..., "buffer_pos": -100}, made the generator
    hand out the memory around it as random numbers (heap pointers: a
    read at a chosen offset, +-8 GiB), and MT19937's jumped() with a
    negative pos wrote outside its copy of the state (heap corruption, a
    SIGSEGV).  In a call a state whose position is out of range is
    refused and the generator keeps the state it had.  False if a
    generator could not be changed."""
    import numpy.random as npr
    done = True
    for cls, limit, position in (
            (npr.MT19937, 624, lambda state: state["state"]["pos"]),
            (npr.Philox, 4, lambda state: state["buffer_pos"])):
        done = _check_bit_generator_state(cls, limit, position) and done
    return done


def _check_bit_generator_state(cls, limit, position):
    descriptor = cls.__dict__["state"]
    real_get = descriptor.__get__
    real_set = descriptor.__set__

    class State:
        """The generator's state (numpy's own property), checked when set
        in a call: its position in its buffer must be in range."""
        __doc__ = descriptor.__doc__

        def __get__(self, obj, owner=None):
            if obj is None:
                return self
            return real_get(obj, owner)

        def __set__(self, obj, value):
            if not _IN_CALL["on"]:
                return real_set(obj, value)
            before = real_get(obj, type(obj))
            bad = False
            try:
                real_set(obj, value)
            finally:
                # numpy's setter may have stored a position and then
                # raised: the position is checked whatever happened
                got = position(real_get(obj, type(obj)))
                if not 0 <= got <= limit:
                    bad = True
                    real_set(obj, before)
            if bad:
                raise ValueError("%s state with a position of %d is not allowed: it must be "
                                 "between 0 and %d (numpy 1.24 does not check it and reads "
                                 "memory outside the generator)" % (cls.__name__, got, limit))
    return _set_on_immutable_type(cls, [("state", State())])


def _guard_generator_owners(np):
    """np.random.Generator(obj) and RandomState(obj) take any object with
    a .capsule and .lock as a bit generator and copy the bitgen_t (a state
    pointer and four function pointers) out of the capsule; the capsule of
    a real BitGenerator points into it and keeps no reference to it: with
    the BitGenerator freed and its memory remade as a bytes object, the
    Generator called a function of the code's choosing with an argument of
    its choosing (PyRun_SimpleString of a text: the real builtins).  In a
    call they take only a real BitGenerator, which they keep alive (the
    capsule itself is refused as an attribute, sb_guard).  False if a class
    could not be changed."""
    import numpy.random as npr
    from numpy.random.bit_generator import BitGenerator
    done = True
    for cls, params, duck in ((npr.Generator, ("bit_generator",), False),
                              (npr.RandomState, ("seed",), True)):
        done = _check_generator_init(cls, params, duck, BitGenerator) and done
    return done


def _check_generator_init(cls, params, duck, BitGenerator):
    init = cls.__dict__["__init__"]

    def __init__(self, *args, **kwargs):
        if _IN_CALL["on"]:
            given = dict(zip(params, args))
            given.update(kwargs)
            value = given.get(params[0])
            if not isinstance(value, BitGenerator) and \
                    (not duck or (value is not None and hasattr(value, "capsule"))):
                raise TypeError("%s() takes a numpy bit generator (np.random.PCG64(), ...) in "
                                "the sandbox, not %s: numpy would copy the state of a freed "
                                "generator" % (cls.__name__, type(value).__name__))
        init(self, *args, **kwargs)
    __init__.__qualname__ = cls.__name__ + ".__init__"
    __init__.__doc__ = init.__doc__
    return _set_on_immutable_type(cls, [("__init__", __init__)])


def _guard_count_level():
    """lib.count_level_2d(mask, labels, max_bin, axis) (boundscheck off)
    adds 1 at counts[labels[i], j] for each true mask[i, j]: a label past
    max_bin, or a -1 under a true mask, wrote outside counts.  In a call
    the labels are checked where pandas calls it (DataFrame.count(level=))."""
    import numpy as np
    import pandas._libs.lib as lib
    count = lib.count_level_2d

    def count_level_2d(mask, labels, max_bin, axis):
        if _IN_CALL["on"]:
            values = np.asarray(labels)
            m = np.asarray(mask, dtype=bool)
            rows = m.any(axis=1) if axis == 0 else m.any(axis=0)
            if values.ndim != 1 or m.ndim != 2 or len(values) != len(rows) or \
                    _outside(values[rows], 0, int(max_bin)):
                raise ValueError("pandas' count_level_2d: a level code outside the %d values "
                                 "is not allowed in the sandbox (its native code counts at "
                                 "them unchecked)" % max_bin)
        return count(mask, labels, max_bin, axis)
    count_level_2d.__name__ = "count_level_2d"
    count_level_2d.__doc__ = count.__doc__
    lib.count_level_2d = count_level_2d      # frame.py calls it as lib.count_level_2d


def _guard_frompyfunc(np, umath, guard):
    """np.frompyfunc's ufuncs (and np.vectorize's, which are made with it)
    store each result as numpy's object loops do, dropping the old output
    object first (its death ran the code's Python while the array still
    pointed to it): each is wrapped as the library's ufuncs are."""
    import numpy.lib.function_base as function_base
    real = umath.frompyfunc

    def frompyfunc(func, /, nin, nout, *args, **kwargs):
        ufunc = real(func, nin, nout, *args, **kwargs)
        if _IN_CALL["on"]:
            try:
                guard([ufunc])
            except RuntimeError:
                raise ValueError("np.frompyfunc with %d inputs and outputs is not allowed in "
                                 "the sandbox (at most 8)" % (ufunc.nin + ufunc.nout))
        return ufunc
    frompyfunc.__name__ = "frompyfunc"
    frompyfunc.__doc__ = real.__doc__
    _SUBSTITUTES[id(real)] = frompyfunc
    if getattr(function_base, "frompyfunc", None) is real:
        function_base.frompyfunc = frompyfunc


def _hashtable_vector_array(array):
    """Is array the buffer a pandas hash table Vector (Int64Vector,
    ObjectVector...) holds?  The code cannot make one, and pandas resizes
    it only while no view of it was handed out (external_view_exists).
    (A view cannot be looked for instead: numpy's arrays are not tracked
    by the collector, so gc.get_referrers never finds one.)  The Vector is
    looked for among the collector's youngest objects first (pandas makes
    one for each hash table operation, and resizes it before anything
    else it allocates could start a collection): gc.get_referrers scans
    every tracked object, which in a workspace holding millions of them
    cost milliseconds per factorize; it is the fallback."""
    import gc
    vectors = _VECTOR_TYPES
    if not vectors:
        from pandas._libs import hashtable
        vectors.update(c for name, c in vars(hashtable).items()
                       if name.endswith("Vector") and isinstance(c, type))
    for holder in [o for o in gc.get_objects(0) if type(o) in vectors]:
        if any(held is array for held in gc.get_referents(holder)):
            return True
    return any(type(holder) in vectors for holder in gc.get_referrers(array))


# pandas' hash table Vector classes (Int64Vector, ObjectVector, ...): static
# types, so a class of the code's naming their module is none of them
_VECTOR_TYPES = set()


def _pandas_frame(frame):
    """Is the nearest frame pandas' own, or the runtime's decoder's
    (sb_codec calls pandas' hash tables on what the backend sent, and a
    serving child reads its next inputs with the guards on)?  The
    sandbox's wrappers around pandas' native functions
    (_guard_object_hashtables, _guard_take_nd) are looked through: they
    call pandas' Cython for pandas."""
    while frame is not None and frame.f_globals.get("__name__") in ("sb_memory", "sb_harden"):
        frame = frame.f_back
    name = frame.f_globals.get("__name__") if frame is not None else None
    return type(name) is str and (name.startswith("pandas.") or name == "sb_codec")


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
    """typing.get_origin(npt.NDArray) is the real ndarray: the checked one.
    typing.get_origin(typing.Type) is the real type, a metaclass: called
    with a dict it built a class with any special methods
    (__array_interface__: an array over any address); the sandbox's type()
    stands for it (isinstance() and issubclass() take it for type), and
    any other metaclass is refused."""
    from sb_guard import sb_type

    def checked(tp):
        found = get_origin(tp)
        if found is type:
            return sb_type
        if isinstance(found, type) and issubclass(found, type):
            raise TypeError("typing.get_origin(): a metaclass is not allowed in the sandbox: "
                            "it builds classes from a dict")
        return _TYPE_SUBSTITUTES.get(id(found), found)
    checked.__name__ = get_origin.__name__
    checked.__doc__ = get_origin.__doc__
    return checked


def _guard_variable_window_bounds(np):
    """rolling("2D", on=index) takes any Index for the rows' times, of any
    length (BaseWindow keeps it as it is), and the Cython that computes an
    offset window's bounds (boundscheck off) reads index[i] for every value:
    s.rolling("1ns", on=shorter).count() compared the heap's words as times,
    and a long Series crashed (SIGSEGV).  In a call the index must have one
    time per value (pandas.core.indexers.objects imports the function by
    name: patched there)."""
    import pandas.core.indexers.objects as objects
    function = getattr(objects, "calculate_variable_window_bounds", None)
    if function is None:
        return

    def calculate_variable_window_bounds(num_values, window_size, min_periods, center, closed,
                                         index):
        if _IN_CALL["on"] and (index is None or np.ndim(index) != 1 or
                               len(index) < int(num_values)):
            raise ValueError("a rolling window's times (on=) must be one per value: %s for "
                             "%d values is not allowed in the sandbox"
                             % ("none" if index is None else len(index), num_values))
        if _IN_CALL["on"]:
            # pandas checked the times were sorted when the window was made;
            # they may be the code's own array (pd.DatetimeIndex(a) shares
            # it), changed since: unsorted, a "left" window's end walked
            # back before the array, each word read deciding the next
            # bound (review 163 F1: addresses read through the windows'
            # lengths).  A private copy, checked sorted, is what it reads.
            index = np.array(index, dtype=np.int64, copy=True)
            head = index[:int(num_values)]
            # compared, not subtracted: a gap past 292 years wraps in int64
            if head.size > 1 and not ((head[1:] >= head[:-1]).all() or
                                      (head[1:] <= head[:-1]).all()):
                raise ValueError("a rolling window's times must stay sorted in the sandbox: "
                                 "they changed after rolling() checked them; sort them "
                                 "(sort_values or sort_index) and make the window again")
            # pandas subtracts the times and the width in int64: wrapped, a
            # sorted index of extreme times walked the end back before the
            # array too (review 167 F2)
            if head.size:
                low, high, width = int(head.min()), int(head.max()), abs(int(window_size))
                if high - low + width >= 2**63 or low - width <= -2**63 or \
                        high + width >= 2**63:
                    raise ValueError("a rolling window's times and width span more than "
                                     "pandas' arithmetic holds (292 years in nanoseconds): "
                                     "narrow the window, or roll over fewer years at once")
        return function(num_values, window_size, min_periods, center, closed, index)
    calculate_variable_window_bounds.__doc__ = function.__doc__
    objects.calculate_variable_window_bounds = calculate_variable_window_bounds


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
                # ewm reads deltas[i - 1] for each value i (times= given)
                deltas = args[7] if len(args) > 7 else kwargs.get("deltas")
                if name == "ewm" and deltas is not None and first is not None and \
                        len(deltas) < len(first) - 1:
                    raise ValueError("an ewm's times must be one per value: fewer are not "
                                     "allowed in the sandbox")
            return function(*args, **kwargs)
        checked.__name__ = name
        checked.__qualname__ = getattr(function, "__qualname__", name)
        checked.__doc__ = function.__doc__
        return checked

    _guard_variable_window_bounds(np)
    for name in ("roll_sum", "roll_mean", "roll_var", "roll_skew", "roll_kurt",
                 "roll_median_c", "roll_max", "roll_min", "roll_quantile", "roll_rank",
                 "roll_apply", "ewm", "ewmcov"):
        function = getattr(aggregations, name, None)
        if function is not None:
            setattr(aggregations, name, wrap(name, function))


def _guard_pandas_abcs():
    """pandas decides what an object is (a Series, a Categorical, an
    Index...) by its "_typ" attribute (pandas.core.dtypes.generic: every
    isinstance(x, ABCSeries) in pandas reads getattr(x, "_typ")), which an
    object of the code's classes may have (a class attribute, or
    __getattr__): pandas then took its _values, _mgr and codes for its own
    and handed them to its native code.  In a call an object whose class
    the code made (its module is the code's) is none of pandas' types."""
    import pandas.core.dtypes.generic as generic
    for name in dir(generic):
        abc_class = getattr(generic, name)
        if not name.startswith("ABC") or not isinstance(abc_class, type):
            continue
        meta = type(abc_class)
        instancecheck = meta.__dict__.get("__instancecheck__")
        subclasscheck = meta.__dict__.get("__subclasscheck__")
        if not isinstance(instancecheck, classmethod) or \
                not isinstance(subclasscheck, classmethod):
            continue

        def _instancecheck(cls, inst, _check=instancecheck.__func__):
            if _IN_CALL["on"] and _made_by_code(type(inst)):
                return False
            return _check(cls, inst)

        def _subclasscheck(cls, inst, _check=subclasscheck.__func__):
            if _IN_CALL["on"] and isinstance(inst, type) and _made_by_code(inst):
                return False
            return _check(cls, inst)
        meta.__instancecheck__ = classmethod(_instancecheck)
        meta.__subclasscheck__ = classmethod(_subclasscheck)


def _made_by_code(cls):
    """A class the code's class statements made (its module the code's);
    the code's classes cannot derive from pandas' (sb_guard)."""
    module = type.__getattribute__(cls, "__module__")
    return type(module) is str and module == "__sandbox__"


def _guard_pandas_codes():
    """Categorical(codes, dtype=, fastpath=True) and MultiIndex(...,
    verify_integrity=False) (and its set_codes/set_levels) take codes
    unchecked; pandas' Cython take reads categories[code] without bounds:
    a code past the categories read any memory, as numbers or as object
    pointers.  In a call the codes are checked."""
    import numpy as np
    import pandas as pd
    from pandas.core.arrays.categorical import Categorical
    from pandas._libs.arrays import NDArrayBacked
    import pandas.core.indexes.multi as multi
    init = Categorical.__init__

    def __init__(self, values, categories=None, ordered=None, dtype=None, fastpath=False,
                 copy=True):
        init(self, values, categories, ordered, dtype, fastpath, copy)
        # not only fastpath: any value whose dtype is a CategoricalDtype has
        # its codes taken as they are (extract_array(values)._codes), and an
        # object of the code's can have such a dtype and any _codes
        if _IN_CALL["on"]:
            # the codes may be the code's own array, or a view of one
            # (from_codes keeps an int8 array as it is): written after this
            # check, they reached pandas' code past it.  Checked on a copy
            # no one else holds
            NDArrayBacked.__init__(self, np.array(self._ndarray, copy=True), self._dtype)
            codes = np.asarray(self.codes)
            n = len(self.categories)
            if _outside(codes, -1, n):
                raise ValueError("codes need to be between -1 and len(categories)-1: codes "
                                 "outside the categories are not allowed in the sandbox")
    __init__.__qualname__ = init.__qualname__
    __init__.__doc__ = init.__doc__
    Categorical.__init__ = __init__

    MI = pd.MultiIndex
    new = MI.__new__
    coerce = multi._coerce_indexer_frozen

    def _coerce_indexer_frozen(array_like, categories, copy=False):
        # pandas freezes the codes it is given and keeps them: a view of
        # the code's writable array (a Categorical's codes, a[:]), or an
        # array with such views, stayed writable through them after the
        # codes were checked.  In a call a MultiIndex keeps a copy
        return coerce(array_like, categories, copy=copy or _IN_CALL["on"])
    _coerce_indexer_frozen.__name__ = coerce.__name__
    _coerce_indexer_frozen.__qualname__ = coerce.__qualname__
    _coerce_indexer_frozen.__doc__ = coerce.__doc__
    multi._coerce_indexer_frozen = _coerce_indexer_frozen

    def check_codes(mi):
        # pandas' own verify_integrity also checks sortorder, which pandas'
        # internal constructions (sort_index) do not always meet: only the
        # codes, which its Cython take trusts, are checked here
        codes = mi.codes
        if len({len(c) for c in codes}) > 1:
            raise ValueError("Length of levels and codes must match")
        for i, (level, level_codes) in enumerate(zip(mi.levels, codes)):
            level_codes = np.asarray(level_codes)
            if _outside(level_codes, -1, len(level)):
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
    _guard_groupby_codes(Categorical, pd.CategoricalIndex)
    _guard_internal_attributes()
    _guard_count_level()
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


def _guard_groupby_codes(Categorical, CategoricalIndex):
    """A grouper whose dtype is a CategoricalDtype is taken for a
    Categorical (Grouping: is_categorical_dtype() reads only .dtype), and its
    .codes become the group labels unchecked: an object of the code's with
    a CategoricalDtype and codes past the categories made pandas' Cython
    group functions (boundscheck off) read and write outside their arrays
    (df.groupby(fake).cumsum() returned heap pointers, .sum() added to
    memory at a chosen offset, a far code crashed).  In a call such a
    grouper must be a pandas Categorical or CategoricalIndex, and the group
    labels every Cython groupby function gets (BaseGrouper.group_info) are
    checked against the number of groups."""
    import numpy as np
    import pandas.core.groupby.grouper as grouper
    import pandas.core.groupby.ops as ops
    from pandas._libs.properties import CachedProperty
    recode = grouper.recode_for_groupby

    def recode_for_groupby(c, sort, observed):
        if _IN_CALL["on"] and not isinstance(c, (Categorical, CategoricalIndex)):
            raise TypeError("grouping by a \"%s\" with a categorical dtype is not allowed "
                            "in the sandbox: pass a pandas Categorical (pd.Categorical(values))"
                            % type(c).__name__)
        return recode(c, sort, observed)
    recode_for_groupby.__name__ = recode.__name__
    recode_for_groupby.__qualname__ = recode.__qualname__
    recode_for_groupby.__doc__ = recode.__doc__
    grouper.recode_for_groupby = recode_for_groupby

    for cls in (ops.BaseGrouper, ops.BinGrouper):
        original = cls.__dict__["group_info"].fget

        def group_info(self, __original=original):
            info = __original(self)
            if _IN_CALL["on"]:
                ids, ngroups = np.asarray(info[0]), info[2]
                if _outside(ids, -1, ngroups):
                    raise ValueError("a group label is outside the %d groups (%d to %d): not "
                                     "allowed in the sandbox, pandas' group functions read them "
                                     "unchecked"
                                     % (ngroups, ids.min(), ids.max()))
            return info
        group_info.__name__ = "group_info"
        group_info.__qualname__ = original.__qualname__
        group_info.__doc__ = original.__doc__
        setattr(cls, "group_info", CachedProperty(group_info))
    _guard_group_functions()
    _guard_generate_slices()


def _guard_generate_slices():
    """lib.generate_slices(labels, ngroups) (boundscheck off) writes
    starts[label] and ends[label] for each label: the ids of a groupby's
    group_info are checked when made, but the array is cached and writable
    (gb.grouper.group_info[0][1] = 10**9, then gb.apply() wrote out of
    bounds, SIGSEGV).  In a call the labels are checked here, where
    DataSplitter (apply, transform, filter) uses them."""
    import numpy as np
    import pandas._libs.lib as lib
    generate = lib.generate_slices

    def generate_slices(labels, ngroups):
        if _IN_CALL["on"]:
            values = np.asarray(labels)
            if values.ndim != 1 or _outside(values, -1, int(ngroups)):
                raise ValueError("pandas' generate_slices: a group label outside the %d groups "
                                 "is not allowed in the sandbox (its native code writes at "
                                 "them unchecked)" % ngroups)
        return generate(labels, ngroups)
    generate_slices.__name__ = "generate_slices"
    generate_slices.__qualname__ = getattr(generate, "__qualname__", "generate_slices")
    generate_slices.__doc__ = generate.__doc__
    lib.generate_slices = generate_slices


# pandas._libs.groupby's functions by their positional parameters (those
# the check reads): "labels" are the rows' groups; "counts", or else
# "ngroups", or else out's rows, the number of groups; sorted_labels and
# sort_indexer positions into the rows
_GROUP_FUNCTIONS = {
    "group_any_all": ("out", "values", "labels", "mask"),
    "group_cummax": ("out", "values", "labels", "ngroups"),
    "group_cummin": ("out", "values", "labels", "ngroups"),
    "group_cumprod_float64": ("out", "values", "labels", "ngroups"),
    "group_cumsum": ("out", "values", "labels", "ngroups"),
    "group_fillna_indexer": ("out", "labels", "sorted_labels", "mask"),
    "group_last": ("out", "counts", "values", "labels", "mask"),
    "group_max": ("out", "counts", "values", "labels"),
    "group_mean": ("out", "counts", "values", "labels"),
    "group_median_float64": ("out", "counts", "values", "labels"),
    "group_min": ("out", "counts", "values", "labels"),
    "group_nth": ("out", "counts", "values", "labels", "mask"),
    "group_ohlc": ("out", "counts", "values", "labels"),
    "group_prod": ("out", "counts", "values", "labels", "mask"),
    "group_quantile": ("out", "values", "labels", "mask", "sort_indexer"),
    "group_rank": ("out", "values", "labels", "ngroups"),
    "group_shift_indexer": ("out", "labels", "ngroups"),
    "group_sum": ("out", "counts", "values", "labels", "mask"),
    "group_var": ("out", "counts", "values", "labels"),
}


def _guard_group_functions():
    """pandas' Cython group functions (boundscheck off) index their
    per-group arrays by the labels and read the labels for every row of
    the values, trusting both; some (group_ohlc) do not even compare the
    lengths.  The code can set the public attributes of pandas' groupers
    (a Resampler's grouper.bins, a GroupBy's grouper.groupings): labels
    shorter than the values were read past their end (group_ohlc wrote at
    the garbage labels, SIGSEGV).  In a call each function checks the
    labels' length against the rows and their range against the groups
    (pandas looks the functions up on the module, WrappedCythonOp through
    a cache cleared here), and so does libalgos.groupsort_indexer."""
    import numpy as np
    import pandas._libs.groupby as libgroupby
    import pandas.core.groupby.ops as ops

    def rows(value):
        return np.shape(value)[0] if np.ndim(value) else -1

    def problem(params, args, kwargs):
        given = dict(zip(params, args))
        for name in params:
            if name in kwargs:
                given[name] = kwargs[name]
        labels = np.asarray(given.get("labels"))
        if labels.ndim != 1 or labels.dtype.kind not in "iu":
            return "the group labels must be one array of integers"
        n = len(labels)
        out = given.get("out")
        if "counts" in given:
            groups = rows(given["counts"])
        elif "ngroups" in given:
            groups = given["ngroups"]
        else:
            groups = rows(out)
        per_row = [given.get(name) for name in ("values", "mask") if name in given]
        if "ngroups" in params or "sorted_labels" in params:
            per_row.append(out)        # a transform: one output row per row
        if any(value is not None and rows(value) != n for value in per_row):
            return "the group labels are not one per row"
        if _outside(labels, -1, int(groups)):
            return "a group label is outside the %d groups" % groups
        for name in ("sorted_labels", "sort_indexer"):
            if name in given:
                positions = np.asarray(given[name])
                if len(positions) != n or _outside(positions, 0, n):
                    return "a row position is outside the %d rows" % n
        return None

    def wrap(name, function, params):
        def checked(*args, **kwargs):
            if _IN_CALL["on"]:
                reason = problem(params, args, kwargs)
                if reason is not None:
                    raise ValueError("pandas' %s: %s, which is not allowed in the sandbox "
                                     "(its native code reads them unchecked)" % (name, reason))
            return function(*args, **kwargs)
        checked.__name__ = name
        checked.__qualname__ = getattr(function, "__qualname__", name)
        checked.__doc__ = function.__doc__
        # a fused function's dtypes: pandas asks it whether it takes
        # objects (first, last, min, max, rank of text and Decimal columns)
        signatures = getattr(function, "__signatures__", None)
        if signatures is not None:
            checked.__signatures__ = signatures
        return checked

    for name, params in _GROUP_FUNCTIONS.items():
        function = getattr(libgroupby, name, None)
        if function is not None:
            setattr(libgroupby, name, wrap(name, function, params))
    # counts[label + 1] += 1 for each label, unchecked: BaseGrouper.indices
    # (gb.indices, get_group) sorts the groupings' codes with it
    import pandas._libs.algos as libalgos
    groupsort = libalgos.groupsort_indexer

    def groupsort_indexer(index, ngroups):
        if _IN_CALL["on"]:
            labels = np.asarray(index)
            if _outside(labels, -1, int(ngroups)):
                raise ValueError("pandas' groupsort_indexer: a group label outside the %d "
                                 "groups is not allowed in the sandbox (its native code counts "
                                 "them unchecked)" % ngroups)
        return groupsort(index, ngroups)
    groupsort_indexer.__name__ = "groupsort_indexer"
    groupsort_indexer.__qualname__ = getattr(groupsort, "__qualname__", "groupsort_indexer")
    groupsort_indexer.__doc__ = groupsort.__doc__
    libalgos.groupsort_indexer = groupsort_indexer
    cached = getattr(ops.WrappedCythonOp, "_get_cython_function", None)
    if hasattr(cached, "cache_clear"):
        cached.cache_clear()


def _guard_internal_attributes():
    """The objects pandas builds for a groupby, a resample or a window
    (GroupBy, its grouper and Groupings, a Resampler's BinGrouper, Rolling,
    ExponentialMovingWindow) are reachable from the code (gb.grouper,
    r.grouper) and keep what their Cython functions index by in public
    attributes: a grouper's bins, a window's obj (replaced by a longer
    Series, the rows' times of a rolling("2D") and an ewm's deltas were read
    past their end, SIGSEGV).  In a call the code may not set their public
    attributes; pandas' own code (its frames) still does."""
    import pandas.core.groupby.groupby as groupby
    import pandas.core.groupby.grouper as grouper
    import pandas.core.groupby.ops as ops
    import pandas.core.window.rolling as rolling

    def __setattr__(self, name, value):
        if _IN_CALL["on"] and not name.startswith("_"):
            module = sys._getframe(1).f_globals.get("__name__")
            if not (type(module) is str and module.startswith("pandas.")):
                raise AttributeError(
                    'setting attribute "%s" of a pandas "%s" is not allowed in the sandbox: '
                    'pandas\' native code trusts it; make a new one instead'
                    % (name, type(self).__name__))
        object.__setattr__(self, name, value)

    for cls in (groupby.BaseGroupBy, ops.BaseGrouper, grouper.Grouping, grouper.Grouper,
                rolling.BaseWindow):
        cls.__setattr__ = __setattr__


def _guard_json_encoder():
    """pandas' JSON encoder (ujson, objToJSON.c: to_json, pd.io.json.dumps)
    iterates lists and dicts by borrowed pointers: a list's items with the
    length it had when it began, a dict's value across PyObject_Str() of
    its key.  A key's __str__, a default_handler, a toDict() or a property
    the encoder reads (all the code's) that empties the list or dict being
    encoded freed what the encoder then encoded: the freed value, refilled
    by a bytearray's buffer, was a fake bytearray over all memory handed to
    the code's default_handler.  In a call the encoder gets a private copy
    of what it encodes: every list, tuple, set and dict copied (the code
    cannot reach them), arrays, Series, frames and indexes of Python
    objects rebuilt over such copies, and the code's objects resolved in
    Python first as the encoder would (toDict(), then default_handler, then
    the public attributes that are not callable), each result copied."""
    import datetime
    import decimal
    import numpy as np
    import pandas as pd
    import pandas._libs.json as libjson
    import pandas.io.json as io_json
    import pandas.io.json._json as json_module
    real_dumps = libjson.dumps
    real = np.ndarray
    native = (str, bytes, int, float, bool, type(None), decimal.Decimal, datetime.date,
              datetime.time, datetime.timedelta, type(pd.NaT), type(pd.NA))

    def objectlike(dtype):
        return getattr(dtype, "kind", "O") not in "biufcmM"

    def plain_name(name):
        # a label (a Series' or an index's name) is encoded as any value,
        # and may be a hashable list or dict of the code's: a tuple of
        # such labels stays a tuple, anything else not plain is its str()
        if isinstance(name, tuple):
            return tuple(plain_name(item) for item in name)
        if isinstance(name, native) or isinstance(name, np.generic):
            return name
        return str(name)

    def private_array(values, handler):
        out = np.array(values, dtype=object, copy=True, subok=False)
        flat = out.reshape(-1)
        for i in range(flat.size):
            flat[i] = private(flat[i], handler)
        return out

    def private_index(index, handler):
        if isinstance(index, pd.MultiIndex):
            levels = [private_index(level, handler) for level in index.levels]
            return pd.MultiIndex(levels=levels, codes=[np.array(c) for c in index.codes],
                                 names=[plain_name(n) for n in index.names],
                                 verify_integrity=False)
        if type(index).__module__.startswith("pandas.") and not objectlike(index.dtype):
            return index.copy().rename(plain_name(index.name))
        return pd.Index(private_array(np.asarray(index, dtype=object), handler),
                        dtype=object, name=plain_name(index.name), tupleize_cols=False)

    def private_series(series, handler):
        values = series.array
        if type(values).__module__.startswith("pandas.") and not objectlike(series.dtype):
            values = values.copy()
        else:
            values = private_array(np.asarray(series, dtype=object), handler)
        return pd.Series(values, index=private_index(series.index, handler),
                         dtype=object if isinstance(values, real) else None,
                         name=plain_name(series.name), copy=False)

    def private_frame(frame, handler):
        columns = {}
        for i in range(frame.shape[1]):
            columns[i] = private_series(frame.iloc[:, i], handler)
        out = pd.DataFrame(columns, index=private_index(frame.index, handler))
        out.columns = private_index(frame.columns, handler)
        return out

    def private(value, handler):
        if isinstance(value, dict):
            out = {}
            for key, item in list(dict.items(value)):
                if type(key) not in (str, bytes):
                    key = str(key)      # what the encoder does (PyObject_Str)
                out[key] = private(item, handler)
            return out
        if isinstance(value, list) or isinstance(value, (set, frozenset)):
            return [private(item, handler) for item in value]
        if isinstance(value, tuple):
            return tuple(private(item, handler) for item in value)
        if isinstance(value, real):
            if value.dtype.fields is not None and value.dtype.hasobject:
                raise TypeError("an array of records holding Python objects cannot be "
                                "written as JSON in the sandbox")
            if value.dtype.hasobject:
                return private_array(value, handler)
            return np.array(value, copy=True, subok=False)
        if isinstance(value, pd.DataFrame):
            return private_frame(value, handler)
        if isinstance(value, pd.Series):
            return private_series(value, handler)
        if isinstance(value, pd.Index):
            return private_index(value, handler)
        if isinstance(value, native) or isinstance(value, np.generic) and \
                not isinstance(value, (np.void, np.float16)):
            return value
        to_dict = getattr(value, "toDict", None)
        if callable(to_dict):
            return private(to_dict(), handler)
        if handler is not None:
            return private(handler(value), handler)
        attributes = {}
        for name in dir(value):
            if type(name) is str and not name.startswith("_"):
                try:
                    item = getattr(value, name)
                except Exception:
                    continue
                if not callable(item):
                    attributes[name] = private(item, handler)
        return attributes

    def dumps(obj, *args, **kwargs):
        if not _IN_CALL["on"]:
            return real_dumps(obj, *args, **kwargs)
        if args:
            raise TypeError("dumps() takes its options by keyword in the sandbox")
        handler = kwargs.get("default_handler")
        if handler is not None and not callable(handler):
            raise TypeError("Default handler is not callable")
        obj = private(obj, handler)
        if handler is not None:
            kwargs["default_handler"] = lambda value: private(handler(value), handler)
        indent = kwargs.pop("indent", 0)
        if not indent:
            return real_dumps(obj, **kwargs)
        # the encoder wrote indent x depth spaces into its buffer without
        # making room (to_json(indent=6000) smashed the stack, a deep list
        # with indent=2 the heap: review 82 H1): compact, then indented
        # here, as Python's json writes it
        if type(indent) is not int or not 0 < indent <= 64:
            raise ValueError("indent must be an int from 0 to 64 in the sandbox")
        return json.dumps(json.loads(real_dumps(obj, **kwargs)), indent=indent,
                          separators=(",", ":"), ensure_ascii=kwargs.get("ensure_ascii", True))
    # ... on every module pandas looks the function up on
    def install(name, checked, real):
        checked.__name__ = name
        checked.__qualname__ = getattr(real, "__qualname__", name)
        checked.__doc__ = real.__doc__
        for module in (libjson, json_module, io_json):
            setattr(module, name, checked)
    install("dumps", dumps, real_dumps)
    # its decoder's numpy mode kept the shapes of nested arrays in 32
    # slots and wrote a 33rd level past them (a count of items over the
    # next heap block: a fake bytearray over all memory; review 82 C1, H4):
    # refused in a call (deprecated in pandas 1.5, gone in 2.0)
    real_loads = libjson.loads

    def loads(*args, **kwargs):
        if _IN_CALL["on"] and len(args) > 1:
            raise TypeError("loads() takes its options by keyword in the sandbox")
        # exactly off: the C code reads the flag as a number, not as the
        # object's truth (an int subclass's __bool__ said False: review 84)
        numpy_flag = kwargs.get("numpy", False)
        if _IN_CALL["on"] and not (numpy_flag is None or numpy_flag is False or
                                   (type(numpy_flag) is int and numpy_flag == 0)):
            raise TypeError("read_json(numpy=True) and loads(numpy=True) are not allowed in "
                            "the sandbox (pandas 2 removed them): read without numpy=True")
        return real_loads(*args, **kwargs)
    install("loads", loads, real_loads)


def _guard_explode():
    """pandas' explode (Series.explode, DataFrame.explode) counts each
    list-like's len() in a first pass, allocates that many slots, then
    writes list(value) with bounds checks off: an object whose __len__ said
    1 while its __iter__ gave more wrote past the array (review 82 H2), and
    one whose __iter__ property answered differently each time it was asked
    was no list-like to a check and one to pandas (review 84).  In a call,
    values of the code's classes are exploded here, in Python, as pandas
    does it, each decided and read once; values of Python's and the
    libraries' own types (lists, arrays, numbers) go to pandas as ever."""
    import numpy as np
    import pandas._libs.reshape as reshape
    from pandas.api.types import is_list_like
    real_explode = reshape.explode

    def python_explode(values):
        out = []
        counts = np.zeros(len(values), dtype="int64")
        for i, value in enumerate(values):
            if is_list_like(value):
                items = list(value)
                out.extend(items if items else [np.nan])  # empty: a NaN marker
                counts[i] = max(len(items), 1)
            else:
                out.append(value)
                counts[i] = 1
        result = np.empty(len(out), dtype=object)
        for j, item in enumerate(out):
            result[j] = item            # one by one: an item may be a list
        return result, counts

    def explode(values):
        # each value's type once (map over the array runs in C): a 1M-row
        # explode of lists stays pandas'
        if _IN_CALL["on"] and any(_made_by_code(t) for t in set(map(type, values))):
            return python_explode(values)
        return real_explode(values)
    explode.__name__ = "explode"
    explode.__qualname__ = getattr(real_explode, "__qualname__", "explode")
    explode.__doc__ = real_explode.__doc__
    reshape.explode = explode


def _guard_reader_reentry():
    """read_csv's C parser runs a converter (the code's) while it holds
    pointers into its buffers: a converter that read from its own reader
    (get_chunk) made the parser move them (review 82 H3), one that closed it
    freed them (review 84); heap bytes came back in an error's object.  In
    a call a parser does not read again while it reads, nor close but from
    its own read (which closes it at the end of the data)."""
    from pandas.io.parsers.c_parser_wrapper import CParserWrapper
    reading = set()
    own_read = CParserWrapper.read.__code__

    def guarded(name, reads):
        real = getattr(CParserWrapper, name)

        def method(self, *args, **kwargs):
            key = id(self)
            if not _IN_CALL["on"] or not reads and (
                    key not in reading or sys._getframe(1).f_code is own_read):
                return real(self, *args, **kwargs)
            if key in reading:
                raise RuntimeError("a converter of read_csv may not %s its own reader in the "
                                   "sandbox" % ("read from" if reads else "close"))
            reading.add(key)
            try:
                return real(self, *args, **kwargs)
            finally:
                reading.discard(key)
        method.__qualname__ = real.__qualname__
        method.__doc__ = real.__doc__
        return method
    CParserWrapper.read = guarded("read", True)
    CParserWrapper.close = guarded("close", False)


def _guard_sparse_ops():
    """A SparseArray's index keeps its arrays (a BlockIndex's blocs and
    blengths, an IntIndex's indices) as public, writable arrays, and counts
    its points once, when made.  pandas' Cython binary operations on two
    SparseArrays (boundscheck off) walk the values by the blocks' current
    lengths: x.sp_index.blengths[0] = 300 made x + y read 300 values from
    an array of 2 (heap pointers came back as floats).  In a call each
    operation (pandas looks them up on pandas._libs.sparse) gets indexes
    rebuilt from copies of those arrays, checked by their constructors,
    whose points must match the values."""
    import numpy as np
    import pandas._libs.sparse as splib

    def checked_index(index, values):
        if isinstance(index, splib.BlockIndex):
            index = splib.BlockIndex(index.length, np.array(index.blocs, dtype=np.int32),
                                     np.array(index.blengths, dtype=np.int32))
        elif isinstance(index, splib.IntIndex):
            index = splib.IntIndex(index.length, np.array(index.indices, dtype=np.int32))
        else:
            raise TypeError("a sparse index must be a BlockIndex or an IntIndex")
        if index.npoints != len(values):
            raise ValueError("a sparse index of %d points over %d values is not allowed in the "
                             "sandbox: pandas' sparse operations read them unchecked"
                             % (index.npoints, len(values)))
        return index

    def wrap(name, function):
        def checked(x, xindex, xfill, y, yindex, yfill):
            if _IN_CALL["on"]:
                xindex = checked_index(xindex, x)
                yindex = checked_index(yindex, y)
                if xindex.length != yindex.length:
                    raise ValueError("sparse operands of different lengths")
            return function(x, xindex, xfill, y, yindex, yfill)
        checked.__name__ = name
        checked.__qualname__ = getattr(function, "__qualname__", name)
        checked.__doc__ = function.__doc__
        return checked

    for name in dir(splib):
        if name.startswith("sparse_") and callable(getattr(splib, name)):
            setattr(splib, name, wrap(name, getattr(splib, name)))


def _guard_join_indexers():
    """pandas' left, inner and outer join indexers (Index.join, union,
    intersection, the alignment of s1 + s2 on sorted indexes) count the
    matches of two sorted arrays in a first pass, allocate that many, and
    write the matches of a second pass (boundscheck off).  Over objects
    the matches are the objects' __eq__ and __lt__, the code's methods,
    which may answer the second pass otherwise: a join of two indexes of
    300 objects wrote 600 positions and object pointers into arrays of 0
    (a heap overflow; SIGSEGV).  In a call an array of objects other than
    plain strings, numbers and dates (aware ones of library zones) is
    joined by integer codes made in
    Python (the objects sorted once, equal neighbours given one code), the
    joined values taken back from the objects."""
    import datetime
    import decimal
    import numpy as np
    import pandas as pd
    from pandas._libs import join as libjoin
    plain = {str, bytes, int, float, bool, type(None), decimal.Decimal, datetime.date,
             datetime.datetime, datetime.time, datetime.timedelta, pd.Timestamp, pd.Timedelta,
             type(pd.NaT)}

    import zoneinfo
    moments = (datetime.datetime, datetime.time, pd.Timestamp)
    zones = (datetime.timezone, zoneinfo.ZoneInfo)

    def known_zone(zone):
        # an aware moment's comparisons call its zone's utcoffset(): a
        # tzinfo class of the code's answered the counting pass and the
        # filling pass otherwise (review 166 F3: a heap overflow).
        # pytz's and dateutil's may not be derived from or changed
        # (sb_guard._deriving_refused)
        if zone is None or type(zone) in zones:
            return True
        module = type.__getattribute__(type(zone), "__module__")
        return type(module) is str and module.partition(".")[0] in ("pytz", "dateutil")

    def needs_codes(values):
        return isinstance(values, np.ndarray) and values.dtype.hasobject and \
            any(type(value) not in plain or
                (type(value) in moments and not known_zone(value.tzinfo))
                for value in values.ravel())

    def codes(left, right):
        values = list(left) + list(right)
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = np.empty(len(values), dtype=np.int64)
        code = 0
        for k, i in enumerate(order):
            if k and not bool(values[order[k - 1]] == values[i]):
                code += 1
            out[i] = code
        return out[:len(left)], out[len(left):]

    def wrap(name, function):
        def checked(left, right):
            if not (_IN_CALL["on"] and (needs_codes(left) or needs_codes(right))):
                return function(left, right)
            left = np.array(left, dtype=object, copy=True)
            right = np.array(right, dtype=object, copy=True)
            lcodes, rcodes = codes(left, right)
            _, lidx, ridx = function(lcodes, rcodes)
            joined = np.empty(len(lidx), dtype=object)
            for k in range(len(lidx)):
                joined[k] = left[lidx[k]] if lidx[k] != -1 else right[ridx[k]]
            return joined, lidx, ridx
        checked.__name__ = name
        checked.__qualname__ = getattr(function, "__qualname__", name)
        checked.__doc__ = function.__doc__
        return checked

    for name in ("left_join_indexer", "inner_join_indexer", "outer_join_indexer"):
        setattr(libjoin, name, wrap(name, getattr(libjoin, name)))


def _library_typed(value):
    """Is value of a numpy or pandas type (which the code cannot derive
    from: sb_guard), whose length and items pandas may trust?"""
    module = type.__getattribute__(type(value), "__module__")
    return type(module) is str and module.partition(".")[0] in ("numpy", "pandas")


def _guard_string_arrays():
    """pandas' ensure_string_array (pd.array(x, dtype="string"),
    astype("string"), Series(x, dtype=str)) takes len(arr), then
    arr.to_numpy() if it has one, and reads arr[i] for i below that length
    with bounds checks off: a list from the code's to_numpy() shorter than
    its __len__ said, or one an item's __str__ emptied, was read past its
    end, a pointer the code placed there incremented and used as an object
    (review 160 F1).  In a call, what is not an array of numpy's or pandas'
    own is read first, as pandas reads it, into an object array of its own."""
    import numpy as np
    import pandas._libs.lib as lib
    real = lib.ensure_string_array
    ndarray = np.ndarray

    def ensure_string_array(arr, *args, **kwargs):
        if _IN_CALL["on"] and type(arr) is not ndarray and not _library_typed(arr):
            if hasattr(arr, "to_numpy"):
                arr = arr.to_numpy()
            if type(arr) is not ndarray:
                items = list(arr)
                # item by item (an item may be a list), from a list of its own
                arr = np.fromiter(items, dtype=object, count=len(items))
        return real(arr, *args, **kwargs)
    ensure_string_array.__name__ = "ensure_string_array"
    ensure_string_array.__qualname__ = getattr(real, "__qualname__", "ensure_string_array")
    ensure_string_array.__doc__ = real.__doc__
    lib.ensure_string_array = ensure_string_array


def _guard_ambiguous_times():
    """tz_localize(ambiguous=x) compares len(x) with the number of times,
    then reads np.asarray(x, dtype=bool), which the code's object can make
    shorter, for each ambiguous time with bounds checks off: 100 kB past a
    one-byte array came back as the times' offsets (review 160 F2).  In a
    call, an ambiguous that is not a str, a bool or numpy's or pandas' own
    is read here into a bool array of its own, whose length is what pandas
    checks."""
    import numpy as np
    import pandas as pd
    from pandas._libs.tslibs import tzconversion
    real = tzconversion.tz_localize_to_utc
    real_scalar = pd.Timestamp.__dict__["tz_localize"]

    def plain(ambiguous):
        if ambiguous is None or type(ambiguous) is str or type(ambiguous) is bool or \
                _library_typed(ambiguous):
            return ambiguous
        if isinstance(ambiguous, str):
            return str.__str__(ambiguous)
        if hasattr(ambiguous, "__iter__"):
            return np.array(list(ambiguous), dtype=bool)
        return ambiguous

    def tz_localize_to_utc(vals, tz, *args, **kwargs):
        if _IN_CALL["on"]:
            if args:
                args = (plain(args[0]),) + args[1:]
            if "ambiguous" in kwargs:
                kwargs["ambiguous"] = plain(kwargs["ambiguous"])
        return real(vals, tz, *args, **kwargs)
    tz_localize_to_utc.__name__ = "tz_localize_to_utc"
    tz_localize_to_utc.__doc__ = real.__doc__
    tzconversion.tz_localize_to_utc = tz_localize_to_utc

    def tz_localize(self, tz, ambiguous="raise", nonexistent="raise"):
        if _IN_CALL["on"]:
            ambiguous = plain(ambiguous)
        return real_scalar(self, tz, ambiguous=ambiguous, nonexistent=nonexistent)
    tz_localize.__name__ = "tz_localize"
    tz_localize.__qualname__ = "Timestamp.tz_localize"
    tz_localize.__doc__ = real_scalar.__doc__
    pd.Timestamp.tz_localize = tz_localize


def _month_checked(month, what):
    """month as an int from 1 to 12, or ValueError (TypeError if it is no
    number): pandas' C code indexes its calendar tables with it.  A float
    is cut to its whole part, as pandas' C conversion cuts it."""
    value = int(float(month)) if isinstance(month, float) or \
        (_NP_FLOATING[0] is not None and isinstance(month, _NP_FLOATING[0])) else _INDEX(month)
    if not 1 <= value <= 12:
        raise ValueError("%s must be from 1 to 12, not %d" % (what, value))
    return value


_NP_FLOATING = [None]


class _CheckedCachedProperty:
    """pandas' cache_readonly (the Cython CachedProperty) for classes of
    the code's: it kept each value in self._cache, which it took for a dict
    unchecked (PyDict_Contains: a list crashed, a bytearray's bytes were
    read as the dict's keys, a pointer of the code's used as a str; review
    163 F5).  The same, with the cache checked (_cached_property_get)."""

    def __init__(self, func):
        self.fget = func
        self.name = getattr(func, "__name__", None)
        self.__doc__ = getattr(func, "__doc__", None)

    def __get__(self, obj, typ=None):
        return _cached_property_get(self, obj, typ)

    def __set__(self, obj, value):
        raise AttributeError("Can't set attribute")


_CheckedCachedProperty.__name__ = _CheckedCachedProperty.__qualname__ = "CachedProperty"


def _cached_property_get(self, obj, typ=None):
    """pandas' CachedProperty.__get__, in Python, with obj's _cache read
    once and checked to be a dict (what the Cython one did, without the
    check), for _CheckedCachedProperty too.  ~0.1 us more a read of
    pandas' own."""
    if obj is None:
        return self
    cache = getattr(obj, "_cache", None)
    if cache is None:
        try:
            cache = obj._cache = {}
        except AttributeError:
            return self.fget(obj)
    if type(cache) is not dict:
        raise TypeError("a cached property keeps its values in self._cache, which must be a "
                        "dict, not %s" % type(cache).__name__)
    name = self.name
    if name in cache:
        return cache[name]
    value = cache[name] = self.fget(obj)
    return value


def _guard_pandas_reexports():
    """Native functions of pandas' private _libs that public modules import
    under their own names, where the code reaches them (review 163: F3
    pandas.tseries.frequencies.month_position_check indexed the calendar
    table with the code's month, F4 get_unit_from_dtype of a dtype that is
    no datetime read a NULL pointer, F5 cache_readonly took any _cache for
    a dict).  The code gets a checked one instead; pandas' own calls, with
    pandas' own arguments, go to the real one."""
    import numpy as np
    from pandas._libs import properties
    from pandas._libs.tslibs import fields as libfields
    from pandas._libs.tslibs import np_datetime
    real_position = libfields.month_position_check

    def month_position_check(fields, weekdays):
        if _IN_CALL["on"]:
            # private arrays, read once: what is checked is what pandas reads
            fields = {key: np.array(fields[key], dtype=np.int32, copy=True)
                      for key in ("Y", "M", "D")}
            months = fields["M"]
            if months.size and (int(months.min()) < 1 or int(months.max()) > 12):
                raise ValueError("month_position_check: a month must be from 1 to 12, not %d"
                                 % (int(months.min()) if int(months.min()) < 1
                                    else int(months.max())))
        return real_position(fields, weekdays)
    month_position_check.__doc__ = real_position.__doc__
    real_unit = np_datetime.py_get_unit_from_dtype

    def get_unit_from_dtype(dtype):
        if _IN_CALL["on"] and not (isinstance(dtype, np.dtype) and dtype.kind in "mM"):
            raise TypeError("get_unit_from_dtype takes a datetime64 or timedelta64 dtype, "
                            "not %r" % (dtype,))
        return real_unit(dtype)
    get_unit_from_dtype.__doc__ = real_unit.__doc__
    # however a module hands them out, lazily imported ones too (the code
    # reaches them only through modules, and CachedProperty through type()
    # of a cached property read from its class)
    _SUBSTITUTES[id(real_position)] = month_position_check
    _SUBSTITUTES[id(real_unit)] = get_unit_from_dtype
    _SUBSTITUTES[id(properties.CachedProperty)] = _CheckedCachedProperty
    _TYPE_SUBSTITUTES[id(properties.CachedProperty)] = _CheckedCachedProperty
    # pandas' own descriptors are reachable too (pd.Index.is_unique read
    # from the class is the CachedProperty itself, which a class of the
    # code's can hold: review 167 F3): their __get__ is the checked one, in
    # Python, reading self._cache once (a property of the code's could
    # answer a dict to a check and a bytearray to the real __get__)
    if not _set_on_immutable_type(properties.CachedProperty,
                                  [("__get__", _cached_property_get)]):
        sys.stderr.write("pysandbox-worker: pandas' CachedProperty could not be checked in "
                         "place; it is not handed out\n")
        refuse(properties.CachedProperty, "its cache is not checked")


def _guard_period_fields():
    """Period(year=, month=, day=, freq="D"), PeriodIndex(year=, month=)
    and the 52-53-week offsets (FY5253(startingMonth=)) pass the code's
    month to pandas' C code unchecked, which adds up its calendar tables'
    days up to that month: a month of 13 read the library's memory past the
    table, one of 2**31 - 1 crashed the process (review 160 F3).  In a call
    a month outside 1..12 is refused as pandas does for a DateOffset's."""
    import numpy as np
    import pandas as pd
    from pandas._libs.tslibs import offsets
    from pandas._libs.tslibs import period as libperiod
    _NP_FLOATING[0] = np.floating
    real_new = pd.Period.__dict__["__new__"]
    real_new = real_new.__func__ if isinstance(real_new, staticmethod) else real_new

    def __new__(cls, value=None, freq=None, ordinal=None, year=None, month=None,
                quarter=None, day=None, hour=None, minute=None, second=None):
        if _IN_CALL["on"] and month is not None:
            month = _month_checked(month, "month")
        return real_new(cls, value, freq, ordinal, year, month, quarter, day, hour, minute,
                        second)
    __new__.__qualname__ = "Period.__new__"
    __new__.__doc__ = real_new.__doc__
    pd.Period.__new__ = staticmethod(__new__)

    real_ordinal = libperiod.period_ordinal

    def period_ordinal(y, m, *args):
        if _IN_CALL["on"]:
            m = _month_checked(m, "month")
        return real_ordinal(y, m, *args)
    period_ordinal.__name__ = "period_ordinal"
    period_ordinal.__doc__ = real_ordinal.__doc__
    libperiod.period_ordinal = period_ordinal

    def checked_init(cls):
        init = cls.__dict__["__init__"]

        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            if _IN_CALL["on"]:
                _month_checked(self.startingMonth, "startingMonth")
        __init__.__qualname__ = "%s.__init__" % cls.__name__
        __init__.__doc__ = init.__doc__
        return __init__
    for cls in (offsets.QuarterOffset, offsets.QuarterEnd, offsets.FY5253Mixin,
                offsets.FY5253Quarter):
        if "__init__" not in cls.__dict__ or \
                not _set_on_immutable_type(cls, [("__init__", checked_init(cls))]):
            sys.stderr.write("pysandbox-worker: %s could not be checked in place; it is not "
                             "handed out\n" % cls.__name__)
            refuse(cls, "its month is not checked")
