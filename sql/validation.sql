--
-- validation: code is checked before it runs (README: Security model, layer 3); each
-- rule rejects with 42501, its message, and the line and column
--

-- SQLSTATE and message of a call, or 'ok'
CREATE FUNCTION pg_temp.check(code text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM sandbox_execute(code); RETURN 'ok';
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
-- the rule, line and column of a rejection
CREATE FUNCTION pg_temp.rule(code text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE d text;
BEGIN PERFORM sandbox_execute(code); RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ' ' || coalesce(substring(d from '^Rejected at (line \d+, column \d+ by rule "[a-z-]+")'), d);
END $f$;

-- rejected code never runs: the print() in main is never reached, and a
-- top-level statement is refused before anything executes
SELECT sandbox_execute($$
def main():
    print("this must not be printed")
    return 1
print("top level")
$$);
-- a class body would run when the code is loaded, but a problem anywhere
-- in the code stops it first
SELECT sandbox_execute($$
class Report:
    print("class body ran")
def main():
    return eval("1")
$$);
SELECT pg_temp.check($$
def main():
    return eval("1")
$$);

-- top-level: only imports, def, class, a docstring and constant assignments
SELECT sandbox_execute($$
"""A docstring is fine."""
import math
LIMIT = 10
NAMES = ("a", "b", -1, 2.5, None, {"k": [1, 2]})
threshold: float = 0.5
def main():
    return [LIMIT, NAMES[2], threshold]
$$);
-- ... a constant may be computed from literals and the constants above
SELECT sandbox_execute($$
SECONDS_PER_DAY = 24 * 60 * 60
WEEK = 7 * SECONDS_PER_DAY
RATE = 1 / 12
LABEL = f"{RATE:.3f} per " + "week"
def main():
    return [WEEK, LABEL, -RATE > 0]
$$);
SELECT sandbox_execute($$
import math
ROOT = math.sqrt(2)
def main():
    return ROOT
$$);
SELECT sandbox_execute($$
def main():
    return 1
main()
$$);
SELECT sandbox_execute($$
CONFIG = {}
CONFIG["k"] = 1
def main():
    return CONFIG
$$);
-- ... the hint names every statement to move at once, and where settings
-- a script begins with go (review 123 F1)
SELECT sandbox_execute($$
import warnings
import pandas as pd
import matplotlib.pyplot as plt
warnings.filterwarnings("ignore")
pd.set_option("display.max_columns", 50)
plt.rcParams["figure.figsize"] = (10, 6)
def main():
    return 1
$$);
SELECT sandbox_execute($$
for i in range(3):
    pass
def main():
    return 1
$$);
SELECT pg_temp.rule($$
if True:
    X = 1
def main():
    return 1
$$);

-- import: only modules in pysandbox.allowed_modules, by full name
SELECT sandbox_execute($$
import os
def main():
    return 1
$$);
SELECT sandbox_execute($$
from os import path
def main():
    return 1
$$);
SELECT sandbox_execute($$
from . import sibling
def main():
    return 1
$$);
SELECT sandbox_execute($$
import numpy.ctypeslib
def main():
    return 1
$$);
SELECT sandbox_execute($$
from pandas import compat
def main():
    return 1
$$);
SELECT sandbox_execute($$
from math import *
def main():
    return 1
$$);
SELECT sandbox_execute($$
def main():
    import subprocess
    return 1
$$);
SELECT pg_temp.rule($$
import json, os
def main():
    return 1
$$);
SELECT pg_temp.rule($$
import pandas._libs
def main():
    return 1
$$);
-- allowed imports, also inside functions and with aliases
SELECT sandbox_execute($$
import math as m
from collections import Counter, OrderedDict
import numpy as np
from pandas import DataFrame
from datetime import date, timedelta
def main():
    import statistics
    return [m.floor(2.5), Counter("aab")["a"], statistics.mean([1, 2, 3])]
$$);
-- ... the pure-Python modules analytics code cleans and reshapes with
SELECT jsonb_pretty(sandbox_execute($$
import difflib, ipaddress, html, colorsys, cmath, numbers
from urllib.parse import urlparse, parse_qs, quote
from contextlib import suppress, contextmanager
@contextmanager
def tagged(out):
    out.append("<")
    yield
    out.append(">")
def main():
    out = []
    with tagged(out):
        out.append("x")
    with suppress(KeyError):
        {}["missing"]
    url = urlparse("https://example.com/a/b?x=1&y=2")
    return {"close": difflib.get_close_matches("appel", ["ape", "apple", "peach"]),
            "host": url.netloc, "query": parse_qs(url.query), "quoted": quote("a b/c"),
            "private": ipaddress.ip_address("10.1.2.3").is_private,
            "escaped": html.escape("<a&b>"), "hls": [round(v, 3) for v in colorsys.rgb_to_hls(0.2, 0.4, 0.6)],
            "phase": round(cmath.phase(1j), 4), "real": isinstance(3.5, numbers.Real),
            "context": "".join(out)}
$$));
-- ... an ABC registers the code's own classes, not a library's or a
-- builtin (numbers.Number.register(list) made pandas take lists for numbers),
-- not even into an ABC of the code's (derived from Number, it did the same)
SELECT sandbox_execute($$
import numbers, collections.abc
class Mine:
    pass
def main():
    collections.abc.Mapping.register(Mine)
    return issubclass(Mine, collections.abc.Mapping)
$$);
SELECT sandbox_execute($$
import numbers
def main():
    numbers.Number.register(list)
$$);
SELECT sandbox_execute($$
import numbers
class MyNumber(numbers.Number):
    pass
def main():
    MyNumber.register(list)
$$);
-- ... but not what changes the process: its directory, its real streams;
-- nor urllib's readers of the network
SELECT pg_temp.check('from contextlib import chdir');
SELECT sandbox_execute($$
import contextlib, io
def main():
    with contextlib.redirect_stdout(io.StringIO()):
        return 1
$$);
SELECT pg_temp.rule('import urllib.request');
SELECT pg_temp.check('import urllib.request');

-- dunder: no name or attribute beginning with "__"
SELECT sandbox_execute($$
def main():
    return ().__class__
$$);
SELECT sandbox_execute($$
def main():
    return __builtins__
$$);
SELECT sandbox_execute($$
def main():
    return __import__("os")
$$);
SELECT pg_temp.rule($$
def main(__x=1):
    return 1
$$);
SELECT pg_temp.rule($$
def __main():
    return 1
$$);
SELECT pg_temp.rule($$
class A:
    def __getattr__(self, name):
        return 1
def main():
    return 1
$$);
-- ... except common special methods in a class, and super().__init__()
SELECT sandbox_execute($$
class Base:
    def __init__(self, x):
        self.x = x
class Point(Base):
    def __init__(self, x, y):
        super().__init__(x)
        self.y = y
    def __repr__(self):
        return f"Point({self.x}, {self.y})"
    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)
    def __add__(self, other):
        return Point(self.x + other.x, self.y + other.y)
def main():
    return repr(Point(1, 2) + Point(3, 4))
$$);
-- ... the operators with their reflected and in-place forms, containers,
-- formatting and rounding, also as numpy's loops over objects call them
SELECT sandbox_execute($$
import numpy as np
class Flags:
    def __init__(self, bits):
        self.bits = bits
    def __and__(self, other):
        return Flags(self.bits & (other.bits if isinstance(other, Flags) else other))
    def __rand__(self, other):
        return self & other
    def __ior__(self, other):
        self.bits |= other.bits
        return self
    def __format__(self, spec):
        return format(self.bits, spec)
    def __round__(self, n=None):
        return self.bits
class Defaults(dict):
    def __missing__(self, key):
        return 0
class Box:
    def __init__(self):
        self.items = {}
    def __setitem__(self, key, value):
        self.items[key] = value
    def __delitem__(self, key):
        del self.items[key]
def main():
    f = Flags(0b1100)
    f |= Flags(0b0011)
    both = np.array([Flags(6), Flags(3)], dtype=object) & Flags(2)
    box = Box()
    box["a"] = 1
    box["b"] = 2
    del box["a"]
    return [f"{f:08b}", round(f), [x.bits for x in both], (5 & Flags(4)).bits,
            Defaults(a=1)["missing"], box.items]
$$);

-- private-attribute: no attribute beginning with "_" ...
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.DataFrame()._data
$$);
SELECT pg_temp.rule($$
def main(df):
    return df._mgr
$$);
-- ... except the namedtuple API
SELECT sandbox_execute($$
from collections import namedtuple
def main():
    Pair = namedtuple("Pair", ["a", "b"])
    p = Pair(1, 2)._replace(b=3)
    return [list(p._fields), p._asdict(), Pair._make([5, 6]).a]
$$);
-- and the fields it names by position: itertuples() calls a column that is
-- no identifier _1, _2, ... (review 143 F2); "_x" stays private
SELECT sandbox_execute($$
import pandas as pd
def main():
    df = pd.DataFrame({"Amount USD": [1.5, 2.5], "k": ["a", "b"]})
    return [[t._1, getattr(t, "_1"), t.k] for t in df.itertuples()]
$$);
SELECT sandbox_execute($$
def main(df):
    return df._x1
$$);

-- forbidden-name: builtins that run code, open files or expose namespaces
SELECT sandbox_execute($$
def main():
    return eval("1 + 1")
$$);
SELECT pg_temp.rule($$
def main():
    exec("x = 1")
$$);
SELECT sandbox_execute($$
def main():
    return open("/etc/passwd").read()
$$);
SELECT pg_temp.rule($$
def main():
    return compile("1", "f", "eval")
$$);
SELECT pg_temp.rule($$
def main():
    return globals()
$$);
SELECT pg_temp.rule($$
def main():
    return locals()
$$);
-- vars() only of the code's own objects, refused when it runs otherwise
SELECT sandbox_execute($$
class Opt:
    def __init__(self, **kw):
        vars(self).update(kw)
def main():
    return vars(Opt(a=1))
$$);
SELECT sandbox_execute($$
def main():
    return vars()
$$);
SELECT pg_temp.rule($$
def main():
    breakpoint()
$$);
SELECT pg_temp.rule($$
def main():
    f = eval
    return 1
$$);
SELECT pg_temp.rule($$
def main(x):
    setattr(x, "__class__", 1)
$$);
-- setattr and delattr have the rules of obj.name = value and del obj.name:
-- a constant name before the code runs, a computed one as it is set
SELECT sandbox_execute($$
class Row:
    pass
def main(fields, bad):
    r = Row()
    for k, v in fields.items():
        setattr(r, k, v)
    delattr(r, "b")
    out = [r.a, hasattr(r, "b")]
    try:
        setattr(r, bad, 1)
    except AttributeError as e:
        out.append(str(e))
    return out
$$, '{"fields": {"a": 1, "b": 2}, "bad": "__class__"}');
-- getattr with a constant name is checked before the code runs; a computed
-- one as it is looked up (below, and security.sql); the dunders that give a
-- str may be read, and hasattr() answers for any name
SELECT sandbox_execute($$
def main(name, e=ValueError("x")):
    return [getattr("abc", name)(), type(e).__name__, e.__class__.__qualname__,
            hasattr([], "__len__"), hasattr(1, "_nope")]
$$, '{"name": "upper"}');
SELECT sandbox_execute($$
def main(name):
    return getattr("abc", name)
$$, '{"name": "__class__"}');
SELECT sandbox_execute($$
def main(e=ValueError("x")):
    return e.__class__.__base__.__name__
$$);
-- a method's own private attributes (self._x in a class the code defines);
-- never a library object's, however the method is called
SELECT sandbox_execute($$
class Cache:
    def __init__(self):
        self._seen = {}
    def _key(self, x):
        return str(x)
    def add(self, x):
        self._seen[self._key(x)] = x
        return len(self._seen)
def main():
    c = Cache()
    c.add(1)
    return c.add(2)
$$);
SELECT sandbox_execute($$
import pandas as pd
class Peek:
    def inside(self):
        return type(self._mgr).__name__
def main():
    return Peek.inside(pd.DataFrame({"a": [1]}))
$$);
SELECT sandbox_execute($$
def main():
    return getattr((), "__class__")
$$);
SELECT sandbox_execute($$
def main():
    g = getattr
    return 1
$$);
SELECT sandbox_execute($$
def main():
    return [getattr("abc", "upper")(), hasattr([], "append"), getattr(1, "missing", "default")]
$$);
-- type() only with one argument
SELECT sandbox_execute($$
def main():
    return type("X", (), {})
$$);
SELECT sandbox_execute($$
def main():
    return str(type(1))
$$);

-- forbidden-attribute: frames, files and interpreter internals
SELECT sandbox_execute($$
def gen():
    yield 1
def main():
    return gen().gi_frame
$$);
SELECT pg_temp.rule($$
def main():
    try:
        1 / 0
    except Exception as e:
        return e.with_traceback(None).tb_frame
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.read_csv("/etc/passwd")
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    pd.DataFrame({"a": [1]}).to_csv("/tmp/x.csv")
$$);
SELECT pg_temp.rule($$
import numpy as np
def main():
    np.save("/tmp/x.npy", np.arange(3))
$$);
SELECT pg_temp.rule($$
import numpy as np
def main():
    return np.ctypeslib
$$);
SELECT pg_temp.rule($$
def main(df):
    return df.to_pickle
$$);
-- writers that return a string are fine without a path
SELECT sandbox_execute($$
import pandas as pd
def main():
    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    return [df.to_csv(index=False), df.to_json(orient="records"), df.to_string(index=False)]
$$);
-- data in memory: io's buffers with pandas' readers and writers
SELECT sandbox_execute($$
import io
import pandas as pd
def main(text):
    df = pd.read_csv(io.StringIO(text))
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return {"read": df, "written": buf.getvalue(),
            "json": pd.read_json('[{"a": 1}]').to_dict("records"),
            "fwf": pd.read_fwf(io.StringIO("a  b\n1  2\n")).to_dict("records"),
            "bytes": pd.read_table(io.BytesIO(b"a\tb\n5\t6\n")).to_dict("records"),
            "markdown": df.head(1).to_markdown(index=False)}
$$, '{"text": "a,b\n1,x\n2,y\n"}');
-- ... but not paths, however they are given, nor io's file opening
SELECT sandbox_execute($$
import pandas as pd
def main(path):
    return pd.read_csv(path)
$$, '{"path": "/etc/passwd"}');
SELECT sandbox_execute($$
import pandas as pd
def main(url):
    return pd.read_json(url)
$$, '{"url": "https://example.com/data.json"}');
SELECT sandbox_execute($$
import pandas as pd
def main(path):
    pd.DataFrame({"a": [1]}).to_json(path_or_buf=path)
$$, '{"path": "/tmp/pysandbox_regress_y"}');
SELECT sandbox_execute($$
import io
def main():
    return io.open("/etc/passwd").read()
$$);
SELECT sandbox_execute($$
import io
def main():
    return io.FileIO("/etc/passwd").read()
$$);

-- format-string: format fields may index and name the attributes code could
-- name itself; a literal is checked here, anything else when the call runs
SELECT sandbox_execute($$
def main():
    return ["{0.real}".format(1), "{x[0]}".format(x=[1]), "{:{w.real}}".format(1, w=5),
            "{a}".format_map({"a": 2})]
$$);
SELECT pg_temp.rule($$
def main():
    return "{0.__class__}".format(1)
$$);
SELECT pg_temp.rule($$
def main():
    return "{0._mgr}".format(1)
$$);
SELECT sandbox_execute($$
def main(fmt):
    return fmt.format(1)
$$, '{"fmt": "{0:>3}"}');
SELECT sandbox_execute($$
def main(fmt):
    return fmt.format(1)
$$, '{"fmt": "{0.__class__}"}');
SELECT sandbox_execute($$
def main():
    return str.format("{0}", 1)
$$);
SELECT sandbox_execute($$
def main():
    return ["{} and {name:>5}".format(1, name="x"), "{0:.2f}".format(3.14159), f"{[1][0]:03d}"]
$$);

-- try-star
SELECT sandbox_execute($$
def main():
    try:
        pass
    except* ValueError:
        pass
$$);

-- metaclass: no class keyword arguments
SELECT sandbox_execute($$
class Meta(type):
    pass
class A(metaclass=Meta):
    pass
def main():
    return 1
$$);
SELECT pg_temp.rule($$
class A(object, **{}):
    pass
def main():
    return 1
$$);

-- async: no coroutines
SELECT sandbox_execute($$
async def main():
    return 1
$$);
SELECT pg_temp.rule($$
def main():
    return [x async for x in y]
$$);

-- too-complex, too-large: code that cannot be checked is not run
SELECT sandbox_execute('def main(): return ' || repeat('-', 100000) || '1');
SELECT sandbox_execute('def main(): return 1' || E'\n#' || repeat('x', 1048576));
-- (nesting that Python's own parser refuses is a syntax error, 42601)
SELECT pg_temp.check('def main(): return ' || repeat('(', 300) || '1' || repeat(')', 300));

-- positions count characters, and point at the attribute, not the object
SELECT sandbox_execute($$
def main(df):
    s = "héllo wörld"; return df.x.y._hidden
$$);
-- only the first problem is reported
SELECT sandbox_execute($$
import os
import sys
def main():
    return eval("1")
$$);

-- legitimate analytics code runs: f-strings, lambdas, comprehensions,
-- dataclasses, decorators, try/except, regex, df.apply, df.query, groupby
SELECT jsonb_pretty(sandbox_execute($$
"""Monthly revenue report."""
import re
import functools
from dataclasses import dataclass
import pandas as pd
import numpy as np

CURRENCY = "EUR"

@dataclass(frozen=True)
class Summary:
    region: str
    total: float

def cached(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper

@cached
def normalise(name):
    return re.sub(r"\s+", " ", name).strip().title()

def main(df, min_amount=0):
    df = df.copy()
    df["region"] = df["region"].apply(normalise)
    df["band"] = df["amount"].apply(lambda a: "high" if a >= 10 else "low")
    big = df.query("amount >= @min_amount and band == 'high'")
    totals = df.groupby("region")["amount"].sum().sort_index()
    summaries = [Summary(r, float(t)) for r, t in totals.items()]
    try:
        ratio = totals["North"] / totals["Nowhere"]
    except KeyError as e:
        ratio = f"missing {e}"
    return {
        "big_ids": sorted(big["id"].tolist()),
        "totals": totals,
        "labels": [f"{s.region}: {s.total:,.2f} {CURRENCY}" for s in summaries],
        "ratio": ratio,
        "bands": {b: int(n) for b, n in df["band"].value_counts().sort_index().items()},
        "mean": round(float(np.mean(df["amount"])), 3),
    }
$$, '{"df": {"$query": "SELECT * FROM (VALUES (1, ''  north '', 10.5), (2, ''south'', 20.0), (3, ''NORTH'', 5.25), (4, ''east  side'', 12.0)) v(id, region, amount)"},
      "min_amount": 11}'));

-- a class's comparison and operator methods must be the code's own
-- functions (a decorator made __eq__ a library's: review 138), but what a
-- base class holds under the name is allowed, as inherited: Python 3.11's
-- enum copies Flag's __or__ and __and__ into each Flag class (review 140 F2)
SELECT sandbox_execute($$
import enum
class Perm(enum.IntFlag):
    R = 4
    W = 2
class Color(enum.Flag):
    RED = 1
    BLUE = 2
def main():
    return [int(Perm.R | Perm.W), str(Color.RED | Color.BLUE), bool(Color.RED & Color.BLUE)]
$$);
SELECT sandbox_execute($$
import collections
class K:
    @(lambda f: collections.UserList.append)
    def __eq__(self, other):
        return False
def main():
    return 1
$$);
