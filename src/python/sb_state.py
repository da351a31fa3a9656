"""The libraries' global settings a call may change, kept as a serving
child's first call found them and put back before each of its next calls
(doc/workspaces.md).

A plain call's child is forked from the warm worker and ends with the
call, so whatever its code sets for the whole process ends with it.  A
workspace's child serves many calls, and only the dict ws is to carry
anything from one to the next; a group_by call's child runs the next
group as a fresh child would.  Without this, pd.set_option(), np.seterr(),
np.set_printoptions(), a seed, a warnings filter, decimal's precision or a
registered colormap of one call changed what the next call's code did
(review 63).  Each part is compared by identity and put back through the
library's own setter when it differs (pandas' option callbacks run), so
that nothing of the code's runs here: no == against what the code left.
The runtime puts them back under the checks it reads a next call's inputs
with (sb_runtime._read_next: no frame of the code's may run).

Not put back: modules a call imported (they stay imported, as a fresh
child's worker may have them too), what abc.ABC.register() recorded in
a library ABC's registry, which CPython keeps where no Python code reads,
and registries this module does not name (doc/workspaces.md).
"""

import calendar
import decimal
import operator
import os
import random
import sys
import warnings

import numpy as np

import sb_charts
import sb_harden


class _Settings:
    """What a serving child's calls start from (one per workspace's or
    group_by call's child, made before its first call)."""

    def __init__(self):
        self.pandas = _pandas_leaves()
        # a copy: np.seterr() changes the list geterrobj() gives in place
        self.errobj = list(np.geterrobj()) if hasattr(np, "geterrobj") else None
        self.err = (np.geterr(), np.geterrcall(), np.getbufsize())
        self.printoptions = np.get_printoptions()
        # np.random.set_bit_generator(PCG64()) replaces the legacy
        # generator's (review 68 F2: the reseed then failed, and ended the
        # workspace)
        get = getattr(np.random, "get_bit_generator", None)
        self.bit_generator = get() if get is not None else None
        # warnings' own names: catch_warnings() left open (a generator kept
        # in ws) binds a new filters list and showwarning (review 65 F2)
        self.names = tuple((namespace, _snapshot(namespace, names))
                           for namespace, names in _module_names())
        self.filter_items = list(warnings.filters)
        self.context = decimal.getcontext().copy()
        self.templates = tuple((ctx, ctx.copy()) for ctx in (
            decimal.DefaultContext, decimal.BasicContext, decimal.ExtendedContext))
        self.dicts = tuple((live, tuple(dict.keys(live)), tuple(dict.values(live)))
                           for live in _dicts())
        self.lists = tuple((live, tuple(live)) for live in _lists())

    def restore(self, reseed=True):
        """The settings as they were when this was made; with reseed (as
        the runtime always asks), the random generators reseeded as a fresh
        child's are: a seed an earlier call set makes no later call's draws
        known in advance."""
        # registries first: pandas' option callbacks look into them
        # (register_converters compares keys of matplotlib's units registry)
        for live, keys, values in self.dicts:
            _restore_dict(live, keys, values)
        for live, items in self.lists:
            _restore_list(live, items)
        _restore_pandas(self.pandas)
        if self.errobj is not None:
            np.seterrobj(list(self.errobj))
        else:
            err, call, size = self.err
            np.seterr(**err)
            np.seterrcall(call)
            np.setbufsize(size)
        np.set_printoptions(**self.printoptions)
        for namespace, saved in self.names:
            _restore_names(namespace, saved)
        _restore_list(warnings.filters, self.filter_items)
        # a warning shown "once" or by "default" in an earlier call shows
        # again, as in a fresh child (the registries are emptied lazily)
        warnings._filters_mutated()
        decimal.setcontext(self.context.copy())
        for live, saved in self.templates:
            _restore_context(live, saved)
        sb_harden.forget_code_accessors()
        if self.bit_generator is not None and \
                np.random.get_bit_generator() is not self.bit_generator:
            np.random.set_bit_generator(self.bit_generator)
        if reseed:
            _reseed_numpy()
            random.seed()


def _pandas_leaves():
    """Every pandas option as (its key, the dict that holds it, its name
    there, its value)."""
    config = sys.modules.get("pandas._config.config")
    if config is None:
        return ()
    leaves = []

    def walk(prefix, d):
        for name, value in dict.items(d):
            if type(value) is dict:
                walk(prefix + name + ".", value)
            else:
                leaves.append((prefix + name, d, name, value))
    walk("", config._global_config)
    return tuple(leaves)


_MISSING = object()


def _restore_pandas(leaves):
    if not leaves:
        return
    config = sys.modules["pandas._config.config"]
    for key, holder, name, value in leaves:
        if dict.get(holder, name, _MISSING) is not value:
            # the validator and the callback (use_inf_as_na, numexpr)
            # run as for pd.set_option, without deprecation warnings
            config._set_option(key, value, silent=True)


def _restore_list(live, saved):
    if list.__len__(live) != len(saved) or not all(map(operator.is_, live, saved)):
        list.__setitem__(live, slice(None), saved)


# the names of warnings' module a catch_warnings() rebinds, and what shows
_WARNINGS_NAMES = ("filters", "showwarning", "_showwarnmsg_impl", "formatwarning",
                   "_formatwarnmsg_impl", "defaultaction", "onceregistry")


def _module_names():
    """(a module's namespace, the names in it a library function rebinds):
    warnings' (catch_warnings), matplotlib.dates' epoch (set_epoch)."""
    found = [(warnings.__dict__, _WARNINGS_NAMES)]
    dates = sys.modules.get("matplotlib.dates")
    if dates is not None and sb_charts.ready():
        found.append((dates.__dict__, ("_epoch",)))
    return found


def _snapshot(namespace, names):
    return tuple((name, namespace[name]) for name in names if name in namespace)


def _restore_names(namespace, saved):
    for name, value in saved:
        if dict.get(namespace, name) is not value:
            namespace[name] = value


def _restore_context(live, saved):
    for field in ("prec", "rounding", "Emin", "Emax", "capitals", "clamp"):
        if getattr(live, field) != getattr(saved, field):   # ints and strs
            setattr(live, field, getattr(saved, field))
    for field in ("traps", "flags"):
        wanted = dict(getattr(saved, field))
        if dict(getattr(live, field)) != wanted:            # signal: bool
            setattr(live, field, wanted)


def _restore_dict(live, keys, values):
    """A library's registry as it was (its keys and values, in order): what
    the code added or replaced goes.  Compared by identity, item by item,
    and rebuilt without a lookup, so that no key of the code's is hashed or
    compared; the named colors' mapping also empties its cache."""
    if (dict.__len__(live) == len(keys) and all(map(operator.is_, dict.keys(live), keys))
            and all(map(operator.is_, dict.values(live), values))):
        return
    dict.clear(live)
    dict.update(live, zip(keys, values))
    cache = getattr(live, "cache", None)
    if type(cache) is dict:
        cache.clear()


def _reseed_numpy():
    """numpy's legacy generator (np.random.rand, pandas' sample) given fresh
    entropy as the worker's C code gives a fresh child's (its Gaussian
    cache emptied): a third of np.random.seed()'s time."""
    state = sys.modules["numpy.random.mtrand"]._rand
    state.set_state(("MT19937", np.frombuffer(os.urandom(2496), dtype=np.uint32), 624, 0, 0.0))


def _dicts():
    """The libraries' registries and settings kept in dicts the code may
    change through a library's function or as a dict: matplotlib's
    colormaps, named colors, unit converters, scales, projections, styles
    and its font manager's settings; numpy's type names and sizes
    (np.sctypeDict.update(float64=np.int8) made later calls' float64
    int8: review 65 F3) and masked arrays' print option; pandas' plotting
    parameters; calendar's first weekday."""
    found = [vars(calendar.c)] if isinstance(getattr(calendar, "c", None), calendar.Calendar) \
        else []
    for owner, name in ((np, "sctypeDict"), (np, "typecodes"), (np, "nbytes"), (np, "sctypes"),
                        (np, "cast"), (getattr(np.core, "numerictypes", None), "allTypes"),
                        (getattr(np, "ma", None), "masked_print_option")):
        found.append(getattr(owner, name, None))
    pandas_plotting = sys.modules.get("pandas.plotting")
    if pandas_plotting is not None:
        found.append(getattr(pandas_plotting, "plot_params", None))
    # dateutil's default parser and its words (DEFAULTPARSER.info.dayfirst)
    parser = getattr(sys.modules.get("dateutil.parser"), "DEFAULTPARSER", None)
    if parser is not None:
        found += [parser, getattr(parser, "info", None)]
    if "matplotlib" in sys.modules and sb_charts.ready():
        import matplotlib
        import matplotlib.colors
        import matplotlib.font_manager
        import matplotlib.projections
        import matplotlib.scale
        import matplotlib.style
        import matplotlib.units
        found += [getattr(matplotlib.colormaps, "_cmaps", None),
                  matplotlib.colors.get_named_colors_mapping(),
                  matplotlib.units.registry,
                  getattr(matplotlib.scale, "_scale_mapping", None),
                  getattr(matplotlib.projections.projection_registry,
                          "_all_projection_types", None),
                  getattr(matplotlib.style, "library", None),
                  getattr(matplotlib.font_manager, "fontManager", None)]

    dicts = []
    for live in found:
        if live is not None and not isinstance(live, dict):
            live = getattr(live, "__dict__", None)      # an object's settings
        if isinstance(live, dict):
            dicts.append(live)
    return dicts


def _lists():
    """Lists the code may change: numpy's scalar types by kind and the
    URL schemes urllib.parse treats alike."""
    lists = [value for value in getattr(np, "sctypes", {}).values() if type(value) is list]
    parse = sys.modules.get("urllib.parse")
    if parse is not None:
        for name in ("uses_relative", "uses_netloc", "uses_params", "non_hierarchical",
                     "uses_query", "uses_fragment"):
            if type(getattr(parse, name, None)) is list:
                lists.append(getattr(parse, name))
    manager = sys.modules.get("matplotlib.font_manager")
    if manager is not None and sb_charts.ready():
        for name in ("ttflist", "afmlist"):
            value = getattr(getattr(manager, "fontManager", None), name, None)
            if type(value) is list:
                lists.append(value)
    return lists


# the settings a serving child started its first call with
_FIRST = [None]


def keep():
    """In a workspace's child, or a group_by call's, before its first call:
    what its next calls start from."""
    _FIRST[0] = _Settings()


def kept():
    return _FIRST[0] is not None


def restore():
    """Before a serving child's next call: the settings kept by keep()
    (none in a held function's child, whose calls share what the function
    keeps)."""
    if _FIRST[0] is not None:
        _FIRST[0].restore()
