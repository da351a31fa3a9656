"""CPython 3.11.2's own crashes that the code reaches without a library,
closed in the worker before any child exists (sb_harden.py calls
harden_interpreter()).  Those that re-entrant special methods turn into
memory reads and writes are in sb_memory.py; these crash the child (a
reference count or an index C trusts): each is a call's end with 39000 and
no more, but a crash the code chose is still the sandbox's bug.
"""

import sys

import sb_guard
from sb_memory import _set_on_immutable_type


def harden_interpreter():
    _harden_property_copy()
    _harden_datetime_state()
    _mask_library_ids()
    _harden_decimal_rationals()


def _harden_decimal_rationals():
    """gh-148382 (review 153 F2, open upstream): _decimal compares a Decimal
    with a numbers.Rational by reading the other's numerator and
    denominator in the middle of the comparison, the current context only
    borrowed; the code's property that replaced the context meanwhile
    (setcontext(), or a generator leaving localcontext()) freed it, and the
    comparison wrote its flags into the freed memory.  An object of a class
    the code made, registered as a Rational or derived from one (a Fraction
    subclass), is no numbers.Rational in the sandbox: the comparison is
    NotImplemented, as with any other object.  The code's ints (IntEnum)
    stay Rationals: _decimal compares them as ints before it asks."""
    import abc
    import numbers

    class RationalMeta(abc.ABCMeta):
        def __instancecheck__(cls, instance):
            if not isinstance(instance, int) and any(
                    sb_guard._made_by_code(c) for c in
                    type.__getattribute__(type(instance), "__mro__")):
                return False
            return abc.ABCMeta.__instancecheck__(cls, instance)
    RationalMeta.__module__ = "abc"
    RationalMeta.__qualname__ = RationalMeta.__name__ = "ABCMeta"
    numbers.Rational.__class__ = RationalMeta


def _harden_property_copy():
    """gh-115618 (review 85, fixed in 3.11.9): property.getter(None),
    setter(None) and deleter(None) dropped a reference to None they never
    took; three million of them freed None (Py_FatalError, SIGABRT).  With
    None the copy is made here, as property_copy() makes it: the same
    class, called with the three functions and the documentation."""
    real = {name: property.__dict__[name] for name in ("getter", "setter", "deleter")}

    def copy(self, get, set_, delete):
        doc = property.__dict__["__doc__"].__get__(self)
        return type(self)(get, set_, delete, doc)

    def getter(self, fget, /):
        if fget is None:
            return copy(self, None, self.fset, self.fdel)
        return real["getter"](self, fget)

    def setter(self, fset, /):
        if fset is None:
            return copy(self, self.fget, None, self.fdel)
        return real["setter"](self, fset)

    def deleter(self, fdel, /):
        if fdel is None:
            return copy(self, self.fget, self.fset, None)
        return real["deleter"](self, fdel)
    methods = [("getter", getter), ("setter", setter), ("deleter", deleter)]
    for name, method in methods:
        method.__qualname__ = "property." + name
        method.__doc__ = real[name].__doc__
    if not _set_on_immutable_type(property, methods):
        sys.stderr.write("pysandbox-worker: property's copies could not be checked in place\n")


def _harden_datetime_state():
    """Review 85: date(b"\\x00\\x00\\x01\\x01"), the form pickle and
    copy rebuild a date with, checks only the month: year 0 made weekday()
    -1, and ctime() read the name of day -1 before C's array of day names
    (SIGSEGV).  Such a date's (or datetime's) ctime() raises instead.  The
    constructor itself is left as it is: pandas' Timestamp, a Cython
    subclass of datetime, calls datetime's C constructor slot, which a
    __new__ written in Python would send back to Timestamp.__new__."""
    import datetime
    weekday = datetime.date.__dict__["weekday"]      # C's, whatever a subclass says
    for cls in (datetime.date, datetime.datetime):
        ctime = _checked_ctime(cls, cls.__dict__["ctime"], weekday)
        if not _set_on_immutable_type(cls, [("ctime", ctime)]):
            sys.stderr.write("pysandbox-worker: %s.ctime could not be checked in place\n"
                             % cls.__name__)


def _checked_ctime(cls, real, weekday):
    def ctime(self, /):
        if weekday(self) < 0:
            raise ValueError("ctime() of a date before year 1 (made from a pickled "
                             "state) is not allowed in the sandbox")
        return real(self)
    ctime.__qualname__ = cls.__name__ + ".ctime"
    ctime.__doc__ = real.__doc__
    return ctime


def _mask_library_ids():
    """Review 88: library code that keeps ids where the code reads them
    gave real addresses past the code's masked id() (sb_guard.sb_id):
    pprint's PrettyPrinter.format(obj, context, ...) stores id(obj) in the
    context it is given (an override of format() gets pprint's own),
    json's C encoder stores the ids of the containers it encodes in the
    markers dict it is given (c_make_encoder(markers, ...), while the
    code's default() runs), and weakref's dictionaries and finalize print
    theirs; pyparsing hashes its elements by id(self), matplotlib's SVG
    writer digests id() with a salt the code sets.  Their ids are the masked ones (a permutation: the same
    objects compare the same), and json's encoder gets a dict of its own."""
    import json.encoder
    import pprint
    import weakref
    for module in (pprint, weakref):
        module.id = sb_guard.sb_id
    # review 89: pyparsing's elements hash by id(self) (matplotlib's
    # fontconfig_pattern hands them out), and matplotlib's SVG writer names
    # clip paths by a digest of id() and a salt the code sets
    import importlib
    for name in ("pyparsing.core", "matplotlib.backends.backend_svg"):
        if name.partition(".")[0] not in sys.modules:
            continue                     # not allowed here: nothing imported it
        try:
            importlib.import_module(name).id = sb_guard.sb_id
        except ImportError:
            pass
    real = json.encoder.c_make_encoder
    if real is None:
        return

    def c_make_encoder(markers, *args, **kwargs):
        # a dict only the encoder sees, for the ids of what it is inside
        return real(None if markers is None else {}, *args, **kwargs)
    c_make_encoder.__doc__ = real.__doc__
    json.encoder.c_make_encoder = c_make_encoder
