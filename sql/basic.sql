--
-- basic: calling sandbox_execute, binding inputs, returning values, print()
--

-- the simplest call: defaults for inputs, returns and options
SELECT sandbox_execute('def main(): return 1');
SELECT sandbox_execute($$
def main():
    return 40 + 2
$$, '{}', '{main}', '{}');

-- several functions in returns: each is called once, keys keep the names
SELECT sandbox_execute($$
def total(xs):
    return sum(xs)
def count(xs):
    return len(xs)
def main():
    return "unused"
$$, '{"xs": [1, 2, 3, 4]}', '{total,count}');

-- named arguments: the SQL defaults still apply to the ones left out
SELECT sandbox_execute(code => 'def f(): return "named"', returns => '{f}');

-- parameters are bound by name from inputs, in any order; defaults apply
SELECT sandbox_execute($$
def main(b, a, c=10, d="default"):
    return [a, b, c, d]
$$, '{"a": 1, "b": 2, "d": "given"}');
-- inputs the function does not ask for are ignored
SELECT sandbox_execute('def main(a): return a', '{"a": 1, "unused": 2}');
-- **kwargs receives the inputs no parameter takes, *args nothing
SELECT sandbox_execute($$
def main(a, *args, **kwargs):
    return [a, list(args), kwargs]
$$, '{"a": 1, "b": 2}');
-- keyword-only parameters bind the same way, with their defaults
SELECT sandbox_execute($$
def main(a, *, scale, offset=0.5):
    return a * scale + offset
$$, '{"a": 2, "scale": 3}');
-- a decorated function binds by the names of the function it wraps
SELECT sandbox_execute($$
import functools
def logged(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner
@logged
def main(a, b=10):
    return a + b
$$, '{"a": 2}');
-- each function binds its own parameters
SELECT sandbox_execute($$
def double(n):
    return 2 * n
def greet(name, punct="!"):
    return f"hello {name}{punct}"
$$, '{"n": 21, "name": "world"}', '{double,greet}');

-- a missing required parameter is an error naming it
SELECT sandbox_execute('def main(x, y): return x', '{"x": 1}');

-- plain JSON inputs arrive as dict, list, str, int, float, bool and None
SELECT sandbox_execute($$
def main(d, l, s, i, f, b, n):
    return [type(d) is dict, type(l) is list, type(s) is str, type(i) is int,
            type(f) is float, type(b) is bool, n is None]
$$, '{"d": {"k": 1}, "l": [1], "s": "x", "i": 7, "f": 1.5, "b": true, "n": null}');

-- returned values: dict, list, str, None, bool, float, int, tuple
SELECT jsonb_pretty(sandbox_execute($$
def d(): return {"a": 1, "b": [True, None]}
def l(): return [1, "two", 3.5]
def s(): return "text with \"quotes\" and ünïcödé"
def n(): return None
def t(): return True
def f(): return 0.1
def i(): return 12345678901234567890
def tup(): return (1, 2)
$$, returns => '{d,l,s,n,t,f,i,tup}'));
-- a function without a return statement returns null
SELECT sandbox_execute('def main(): pass');
-- a NULL argument is an error naming it (22004), in every function
SELECT sandbox_execute(NULL);
SELECT sandbox_execute('def main(): return 1', NULL);
SELECT sandbox_execute('def main(): return 1', '{}', NULL);
SELECT sandbox_execute('def main(): return 1', '{}', '{main}', NULL);
SELECT sandbox_run('def main(): return 1', NULL);
SELECT sandbox_validate(NULL);
SELECT * FROM sandbox_rows('def main(): return []', '{}', NULL) AS t(n int);
SELECT sandbox_describe('{}', NULL);
SELECT sandbox_workspace_open(NULL);
SELECT sandbox_workspace_close(NULL);
-- no sandbox_* function is STRICT (only the language's handlers are, as PostgreSQL calls them)
SELECT p.proname, p.proisstrict FROM pg_proc p
JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pysandbox'
WHERE p.proisstrict AND p.pronargs > 0 AND p.proname LIKE 'sandbox\_%' ORDER BY 1;
-- the result is jsonb: it can be used in SQL at once
SELECT sandbox_execute('def main(): return {"x": [10, 20]}') -> 'main' -> 'x' ->> 1 AS second;

-- print() becomes a NOTICE, one per print() call, without its final newline
SELECT sandbox_execute($$
def main():
    print("hello")
    print("a", 1, None, sep="|")
    print("no newline", end="")
    print("two\nlines")
    return "done"
$$);
-- code on the line of its $$, or indented as a block (SQL in an
-- application's source), runs as a language function's body does
SELECT sandbox_execute($$ def main(): return 1 $$);
SELECT sandbox_execute($$
        import math
        def main():
            return math.floor(2.5)
$$);
-- ... and its errors name the line and column as written
SELECT r->'error'->>'line' AS line, r->'error'->>'col' AS col, r->'error'->>'message' AS message
FROM sandbox_run($$
        def main():
            return 1 / 0
$$) r;
SELECT r->'error'->>'line' AS line, r->'error'->>'col' AS col, r->'error'->'findings'->0->>'col' AS finding_col
FROM sandbox_run($$
        import os
        def main():
            return 1
$$) r;
-- control characters other than newline and tab are written as Python
-- writes them: they would be instructions to the terminal of whoever ran
-- the call (here: set its title, clear the screen, go back to the line's
-- start); in the result they are data, as jsonb escapes them
SELECT sandbox_execute($$
def main():
    print("\x1b]0;owned\x07\x1b[2Jshown\rhidden\x7f\x9b\ttab")
    raise ValueError("\x1b[31mred\x1b[0m")
$$);
SELECT sandbox_execute($$
def main():
    return "\x1b[2J"
$$);
-- ... and so are the bidirectional overrides and isolates, which show the
-- text after them reversed ("\u202e" before "txt.exe" reads "exe.txt")
SELECT sandbox_execute($$
def main():
    print("file \u202etxt.exe \u2066x\u2069 \u200f \u061c \u05d0 \u2014 \u2070")
    raise ValueError("\u202d\u202e")
$$);
-- a NUL character: in an error shown as "\x00"; in a result an error that
-- says so (sandbox_run reports it: PostgreSQL's JSON parser raised 22P05
-- for either, and sandbox_run lost its report, review 57/58)
SELECT sandbox_execute($$
def main():
    raise ValueError("bad byte " + chr(0) + " end")
$$);
SELECT sandbox_run($$
def main():
    return {"k": "a" + chr(0)}
$$)->'error';
SELECT * FROM sandbox_rows($$
def main():
    return [{"j": {"a": "x" + chr(0)}}]
$$) AS t(j jsonb);
-- ... and so is half a surrogate pair (an astral character is a whole pair)
SELECT sandbox_run($$
def main():
    raise ValueError("half " + chr(0xd800) + " pair " + chr(0x1F600))
$$)->'error'->>'message';
SELECT sandbox_run('def main(): return {"a": "x" + chr(0xdc00)}')->'error'->>'message';
-- ... and so does a type's error quoting a value the code returned
-- (review 50)
SELECT * FROM sandbox_rows($$
def main():
    return [("X\x1b]0;owned\x07",)]
$$) AS t(a inet);
-- a DataFrame prints as in a terminal
SELECT sandbox_execute($$
import pandas as pd
def main():
    df = pd.DataFrame({"region": ["north", "south"], "total": [10.5, 20.0]})
    print(df)
    print(f"{len(df)} rows")
    return str(df.shape)
$$);
-- pysandbox.print = discard drops printed output
SET pysandbox.print = discard;
SELECT sandbox_execute($$
def main():
    print("never shown")
    return "quiet"
$$);
RESET pysandbox.print;
-- print() to a file is refused
SELECT sandbox_execute($$
def main():
    print("x", file=1)
$$);

-- modules are read-only
SELECT sandbox_execute($$
import math
def main():
    math.pi = 3
$$);

-- nothing persists between calls: module state is rebuilt every time
SELECT sandbox_execute($$
CACHE = []
def main():
    CACHE.append(1)
    return len(CACHE)
$$) AS first_call, sandbox_execute($$
CACHE = []
def main():
    CACHE.append(1)
    return len(CACHE)
$$) AS second_call;
-- a class attribute changed in one call is back in the next
CREATE TEMP TABLE state_code AS SELECT $$
class Counter:
    n = 0
def main():
    Counter.n += 1
    return Counter.n
$$ AS code;
SELECT sandbox_execute(code) FROM state_code, generate_series(1, 3);
-- library state (pandas options) changed in one call is back in the next
SELECT sandbox_execute(code) AS first_call, sandbox_execute(code) AS second_call
FROM (VALUES ($$
import pandas as pd
def main():
    before = pd.get_option("display.max_rows")
    pd.set_option("display.max_rows", 5)
    return before
$$)) AS v(code);
-- a function defined in one call does not exist in the next
SELECT sandbox_execute('def helper(): return 1', returns => '{helper}');
SELECT sandbox_execute('def main(): return helper()');

-- random numbers are seeded per call: two calls differ
SELECT sandbox_execute(code) <> sandbox_execute(code) AS stdlib_random_differs
FROM (VALUES ($$
import random
def main():
    return [random.random() for _ in range(4)]
$$)) AS v(code);
SELECT sandbox_execute(code) <> sandbox_execute(code) AS numpy_random_differs
FROM (VALUES ($$
import numpy as np
def main():
    return np.random.random(4)
$$)) AS v(code);
-- also the first Gaussian (the legacy generator caches every second one)
-- and what pandas draws from numpy
SELECT sandbox_execute(code) <> sandbox_execute(code) AS numpy_normal_differs
FROM (VALUES ($$
import numpy as np
def main():
    return np.random.normal()
$$)) AS v(code);
SELECT sandbox_execute(code) <> sandbox_execute(code) AS pandas_sample_differs
FROM (VALUES ($$
import pandas as pd
def main():
    return pd.Series(range(1000)).sample(5).tolist()
$$)) AS v(code);
-- the code may still seed the global generator itself
SELECT sandbox_execute(code) = sandbox_execute(code) AS global_seed_equal
FROM (VALUES ($$
import numpy as np
def main():
    np.random.seed(7)
    return [np.random.random(3), np.random.normal(size=2)]
$$)) AS v(code);
-- but a seeded generator is reproducible
SELECT sandbox_execute(code) = sandbox_execute(code) AS seeded_equal
FROM (VALUES ($$
import numpy as np
def main():
    return np.random.default_rng(42).integers(0, 1000, 5)
$$)) AS v(code);

-- ordinary Python works: classes, dataclasses, lambdas, comprehensions,
-- f-strings, try/except, regular expressions, generators, decorators
SELECT jsonb_pretty(sandbox_execute($$
import re
import functools
from dataclasses import dataclass, field

@dataclass
class Point:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)

    def norm1(self):
        return abs(self.x) + abs(self.y)

class Shape:
    def __init__(self, name):
        self.name = name
    def __repr__(self):
        return f"Shape({self.name!r})"

def twice(fn):
    @functools.wraps(fn)
    def inner(*args):
        return 2 * fn(*args)
    return inner

@twice
def add(a, b):
    return a + b

def squares(n):
    for i in range(n):
        yield i * i

def main():
    p = Point(3, -4)
    try:
        1 / 0
    except ZeroDivisionError as e:
        caught = f"caught {e}"
    finally:
        cleaned = True
    return {
        "dataclass": [p.norm1(), p.tags, p == Point(3, -4)],
        "class": repr(Shape("sq")),
        "lambda": sorted(["bb", "a", "ccc"], key=lambda s: -len(s)),
        "listcomp": [x * x for x in range(5) if x % 2],
        "dictcomp": {k: len(k) for k in ("ab", "cde")},
        "setcomp": sorted({c for c in "hello"}),
        "generator": list(squares(4)),
        "decorator": add(1, 2),
        "fstring": f"{3.14159:.2f}|{42:>5}|{'x'!r}",
        "try": [caught, cleaned],
        "regex": re.findall(r"\d+", "a1b22c333"),
        "sub": re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@host"),
    }
$$));
-- annotations as strings (from __future__ import annotations): dataclasses
-- resolves ClassVar through the class's module, the call's own namespace
SELECT sandbox_execute($$
from __future__ import annotations
from dataclasses import dataclass, field, fields
from typing import ClassVar

@dataclass
class Stat:
    unit: ClassVar[str] = "ms"
    name: str
    value: float = 0.0
    tags: list[str] = field(default_factory=list)

def main():
    return [Stat("p95", 12.5), Stat.unit, [f.name for f in fields(Stat)]]
$$);
-- pandas and numpy: build, apply, group
SELECT sandbox_execute($$
import pandas as pd
import numpy as np
def main():
    df = pd.DataFrame({"g": ["a", "b", "a"], "v": [1, 2, 3]})
    df["w"] = df.apply(lambda r: r["v"] * 10 if r["g"] == "a" else 0, axis=1)
    return {
        "apply": df["w"].tolist(),
        "groupby": df.groupby("g")["v"].sum(),
        "mean": float(np.mean(df["v"])),
    }
$$);
