--
-- agents: the report forms for agents (README: sandbox_run, sandbox_validate).
-- sandbox_run reports what the code did instead of raising: every error kind
-- is shown here in both forms, as sandbox_execute raises it and as
-- sandbox_run reports it.  sandbox_validate checks code without running it.
-- options.verify runs assertions after the functions.
--

-- reports are shown whole, one member a line
\pset format unaligned

-- Both forms of one call.  "raised": what sandbox_execute raised (SQLSTATE,
-- message, detail, hint, context), or null if it did not; its print() output
-- is discarded here so that no NOTICE can be mistaken for sandbox_run's.
-- "report": sandbox_run's report without "usage", whose values vary; usage is
-- checked here instead: exactly its six keys, each a non-negative integer.
CREATE FUNCTION pg_temp.both(code text, inputs jsonb DEFAULT '{}',
                             returns text[] DEFAULT '{main}', opts jsonb DEFAULT '{}')
RETURNS jsonb LANGUAGE plpgsql AS $f$
DECLARE
    print_mode text := coalesce(current_setting('pysandbox.print', true), 'notice');
    s text; m text; d text; h text; c text;
    raised jsonb := 'null';
    r jsonb;
BEGIN
    BEGIN
        PERFORM set_config('pysandbox.print', 'discard', false);
        PERFORM sandbox_execute(code, inputs, returns, opts);
    EXCEPTION WHEN OTHERS OR query_canceled THEN
        GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT,
            d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT, c = PG_EXCEPTION_CONTEXT;
        raised := jsonb_build_object(
            'sqlstate', s, 'message', m, 'detail', nullif(d, ''), 'hint', nullif(h, ''),
            'context', nullif(regexp_replace(c, '\n?(SQL statement|PL/pgSQL function) .*$', ''), ''));
    END;
    PERFORM set_config('pysandbox.print', print_mode, false);
    r := sandbox_run(code, inputs, returns, opts);
    IF (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(r->'usage') k)
           IS DISTINCT FROM '{cpu_ms,input_bytes,input_rows,output_bytes,peak_memory_kb,wall_ms}'
       OR EXISTS (SELECT FROM jsonb_each(r->'usage') u
                  WHERE jsonb_typeof(u.value) <> 'number' OR u.value::numeric < 0
                     OR u.value::numeric <> trunc(u.value::numeric)) THEN
        RAISE EXCEPTION 'unexpected usage: %', r->'usage';
    END IF;
    RETURN jsonb_build_object('raised', raised, 'report', r - 'usage');
END $f$;

CREATE TABLE agents_sales (region text, amount numeric);
INSERT INTO agents_sales VALUES ('north', 10), ('south', 20), ('north', 5.5);

--
-- a successful run: ok, returns, captured stdout, error null
--
SELECT jsonb_pretty(pg_temp.both($$
import pandas as pd
def main(df, top):
    totals = df.groupby("region")["amount"].sum()
    print("regions:", len(totals))
    return totals.sort_values(ascending=False).head(top)
$$, '{"df": {"$table": "agents_sales"}, "top": 1}'));
-- several functions, each called once
SELECT jsonb_pretty(pg_temp.both($$
def total(df):
    return float(df["amount"].sum())
def count(df):
    return len(df)
$$, '{"df": {"$table": "agents_sales"}}', '{total,count}'));

--
-- validation: rejected before anything runs; 42501 with the line, column and
-- rule; the report carries the first finding and its rule
--
-- rule "import"
SELECT jsonb_pretty(pg_temp.both($$
import pandas as pd
import os
def main():
    print("never printed")
    return os.getcwd()
$$));
-- rule "forbidden-name"
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return eval("1 + 1")
$$));
-- rule "dunder"
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return (1).__class__.__subclasses__()
$$));
-- rule "top-level": top-level statements would run on import
SELECT jsonb_pretty(pg_temp.both($$
import pandas as pd
print("loading")
def main():
    return 1
$$));

--
-- syntax: 42601; kind "validation" with rule "syntax"
--
SELECT jsonb_pretty(pg_temp.both($$
def main(:
    return 1
$$));
SELECT jsonb_pretty(pg_temp.both($$
def main():
    if True
        return 1
$$));

--
-- exception: 38000 "Type: message", a traceback of the user's frames only,
-- and the line and column where it was raised
--
SELECT jsonb_pretty(pg_temp.both($$
def parse(s):
    return int(s)

def main(items):
    return [parse(s) for s in items]
$$, '{"items": ["1", "2", "three"]}'));
-- raised inside pandas: still only the user's frame, with its line and column
SELECT jsonb_pretty(pg_temp.both($$
import pandas as pd
def main(df):
    by_region = df.groupby("region")
    return by_region["amount_usd"].sum()
$$, '{"df": {"$table": "agents_sales"}}'));
-- a user-defined exception keeps its name; what was printed before is kept
SELECT jsonb_pretty(pg_temp.both($$
class BudgetError(Exception):
    pass

def main():
    print("checking")
    raise BudgetError("over budget by 3")
$$));
-- a required parameter missing from inputs, a function that is not defined,
-- a result that cannot become JSON: exceptions with no line in the code
SELECT jsonb_pretty(pg_temp.both('def main(df): return 1'));
SELECT jsonb_pretty(pg_temp.both('def main(): return 1', returns => '{main,summary}'));
SELECT jsonb_pretty(pg_temp.both('def main(): return object()'));

--
-- timeout: the wall-clock limit; 57014 from sandbox_execute, a report from
-- sandbox_run
--
SELECT jsonb_pretty(pg_temp.both($$
def main():
    while True: pass
$$, opts => '{"timeout_ms": 300}'));

--
-- cpu: the CPU time limit; 54000
--
SELECT jsonb_pretty(pg_temp.both($$
def main():
    n = 0
    while True: n += 1
$$, opts => '{"cpu_ms": 300}'));

--
-- memory: 53200, with the line that allocated
--
SELECT jsonb_pretty(pg_temp.both($$
import numpy as np
def main():
    big = np.ones((1024, 1024, 128))
    return float(big.sum())
$$, opts => '{"memory_mb": 64}'));

--
-- output: 54000, for a result too large and for too much printing; what was
-- printed within the limit is kept in the report
--
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return "x" * 2000
$$, opts => '{"max_output_bytes": 1000}'));
SELECT jsonb_pretty(pg_temp.both($$
def main():
    for i in range(100):
        print("row", i)
    return 1
$$, opts => '{"max_output_bytes": 100}'));

--
-- violation and crash: the operating system layers, seen with the Python
-- layer off (superuser only, for tests)
--
SET pysandbox.python_layer = off;
-- a blocked system call: 42501, named
SELECT jsonb_pretty(pg_temp.both($$
import os
def main():
    print("about to fork")
    return os.fork()
$$));
-- a crash: 39000, with the signal
SELECT jsonb_pretty(pg_temp.both($$
import ctypes
def main():
    print("about to read address 0")
    return ctypes.string_at(0)
$$));
-- stderr is captured apart from stdout
SELECT r->'ok' AS ok, r->'stdout' AS stdout, r->'stderr' AS stderr
FROM sandbox_run($$
import sys
def main():
    sys.stderr.write("to stderr\n")
    print("to stdout")
    return 1
$$) r;
RESET pysandbox.python_layer;

--
-- options.verify: assertions run after the functions, with result bound to
-- the returns object; a failed one is an AssertionError naming the
-- assertion's source line, its line counted in the verify text
--
-- passing: the result is returned as usual
SELECT jsonb_pretty(pg_temp.both($$
def main(df):
    return float(df["amount"].sum())
$$, '{"df": {"$table": "agents_sales"}}',
    opts => jsonb_build_object('verify', E'assert result["main"] > 0\nassert result["main"] == 35.5')));
-- failing, with and without an assertion message
SELECT jsonb_pretty(pg_temp.both($$
def main(df):
    return float(df["amount"].sum())
$$, '{"df": {"$table": "agents_sales"}}',
    opts => jsonb_build_object('verify',
        E'assert isinstance(result["main"], float)\nassert result["main"] == 35, "total should be 35"')));
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return [3, 1, 2]
$$, opts => jsonb_build_object('verify', E'\nassert result["main"] == sorted(result["main"])')));
-- the verify text may use the code's own functions
SELECT jsonb_pretty(pg_temp.both($$
def double(x):
    return 2 * x
def main():
    return double(21)
$$, opts => jsonb_build_object('verify', 'assert result["main"] == double(21)')));
-- the same rules as the code: a forbidden name is refused, nothing in it runs
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return 42
$$, opts => jsonb_build_object('verify', E'assert result["main"] == 42\nassert open("/etc/passwd")')));
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return 42
$$, opts => jsonb_build_object('verify', 'import os')));
-- a syntax error in the verify text
SELECT jsonb_pretty(pg_temp.both($$
def main():
    return 42
$$, opts => jsonb_build_object('verify', E'assert result["main"] == 42\nassert result["main"] ==')));
-- an error other than a failed assertion in the verify text is also located
-- in options.verify, not blamed on the code
SELECT r->'error'->>'kind' AS kind, r->'error'->>'type' AS type,
       r->'error'->'line' AS line,
       coalesce(r->'error'->>'traceback' LIKE '%options.verify, line 2%', false) AS names_verify
FROM sandbox_run($$
def main():
    return {"total": 1}
$$, options => jsonb_build_object('verify', E'assert result["main"]["total"] == 1\nassert result["main"]["count"] == 1')) r;
SELECT (x->'raised'->>'sqlstate') AS sqlstate,
       concat_ws(' ', x->'raised'->>'message', x->'raised'->>'detail',
                 x->'raised'->>'context') LIKE '%options.verify, line 2%' AS names_verify
FROM pg_temp.both($$
def main():
    return {"total": 1}
$$, opts => jsonb_build_object('verify', E'assert result["main"]["total"] == 1\nassert result["main"]["count"] == 1')) x;
-- result holds what the functions returned, not their JSON: an error of
-- the verify text says what it holds (review 143 F3: a Series's .values()
-- read as a dict's)
SELECT r->'error'->>'message' AS message
FROM sandbox_run($$
import pandas as pd
def main():
    return pd.Series([4, 2], index=["a", "b"])
$$, options => jsonb_build_object('verify', 'assert all(v > 0 for v in result["main"].values())')) r;
-- the verify text is assertions, not a function body: a "yield" or "return"
-- in it cannot make failing assertions pass
SELECT replace(v, E'\n', ' \n ') AS verify, r->'ok' AS ok
FROM unnest(ARRAY[E'assert result["main"] == 2\nyield',
                  E'return\nassert result["main"] == 2']) v,
     sandbox_run('def main(): return 1', options => jsonb_build_object('verify', v)) r;
-- verify must be a string: an invalid argument, raised by both (22023)
SELECT sandbox_execute('def main(): return 1', options => '{"verify": true}');
SELECT sandbox_run('def main(): return 1', options => '{"verify": ["assert True"]}');

--
-- stdout and stderr: print() goes to the report's stdout, never to NOTICE
-- (sandbox_execute relays the same print as NOTICE)
--
SELECT r->'stdout' AS stdout, r->'stderr' AS stderr, r->'returns' AS returns
FROM sandbox_run($$
def main():
    print("one")
    print("two", 3, sep="-", end="!\n")
    return "done"
$$) r;
SELECT sandbox_execute($$
def main():
    print("one")
    return "done"
$$);
-- warnings from numpy and pandas go to stderr
SELECT r->'stdout' AS stdout, r->'stderr' AS stderr, r->'returns' AS returns
FROM sandbox_run($$
import numpy as np
def main():
    print("log of zero")
    return str(np.log(0.0))
$$) r;
-- df.info() writes to sys.stdout, which is captured too
SELECT r->>'stdout' LIKE E'%RangeIndex: 3 entries%amount%' AS info_captured
FROM sandbox_run($$
def main(df):
    df.info()
    return None
$$, '{"df": {"$table": "agents_sales"}}') r;

--
-- usage: present in every report, successful or not; values vary, so only
-- their keys and what must hold are shown
--
SELECT array_agg(k ORDER BY k) AS usage_keys
FROM sandbox_run('def main(): return 1') r, jsonb_object_keys(r->'usage') k;
SELECT (r->'usage'->>'wall_ms')::int >= 0 AS wall_ms,
       (r->'usage'->>'cpu_ms')::int >= 0 AS cpu_ms,
       (r->'usage'->>'peak_memory_kb')::int > 0 AS peak_memory_kb,
       (r->'usage'->>'input_rows')::int = 3 AS input_rows,
       (r->'usage'->>'input_bytes')::int > 0 AS input_bytes,
       (r->'usage'->>'output_bytes')::int > octet_length(r->>'stdout') AS output_bytes
FROM sandbox_run($$
def main(df, note):
    print("rows:", len(df))
    return df.to_dict("records")
$$, '{"df": {"$query": "SELECT * FROM agents_sales ORDER BY amount"}, "note": "x"}') r;
-- no input: no input rows or bytes
SELECT (r->'usage'->>'input_rows')::int = 0 AS no_input_rows,
       (r->'usage'->>'input_bytes')::int = 0 AS no_input_bytes
FROM sandbox_run('def main(): return 1') r;
-- a failed run has usage too; a timed-out one used at least its limit
SELECT r->'error'->>'kind' AS kind, (r->'usage'->>'wall_ms')::int >= 300 AS ran_300ms,
       (r->'usage'->>'wall_ms')::int < 5000 AS stopped_in_time
FROM sandbox_run($$
def main():
    while True: pass
$$, options => '{"timeout_ms": 300}') r;
SELECT r->'error'->>'kind' AS kind, (r->'usage'->>'cpu_ms')::int >= 250 AS used_cpu
FROM sandbox_run($$
def main():
    while True: pass
$$, options => '{"cpu_ms": 300}') r;
SELECT r->'error'->>'kind' AS kind, (r->'usage'->>'output_bytes')::int = 0 AS no_output
FROM sandbox_run('import os
def main(): return 1') r;

--
-- a failing run leaves the transaction usable
--
BEGIN;
SELECT r->'ok' AS ok, r->'error'->>'kind' AS kind FROM sandbox_run('def main(): return 1 / 0') r;
SELECT 1 AS still_usable;
SELECT r->'ok' AS ok, r->'error'->>'kind' AS kind
FROM sandbox_run('def main():
    while True: pass', options => '{"timeout_ms": 300}') r;
INSERT INTO agents_sales VALUES ('east', 1);
SELECT r->'ok' AS ok, r->'returns' AS returns
FROM sandbox_run('def main(df): return len(df)', '{"df": {"$table": "agents_sales"}}') r;
COMMIT;
SELECT count(*) AS committed_rows FROM agents_sales;
-- sandbox_execute, by contrast, aborts the transaction
BEGIN;
SELECT sandbox_execute('def main(): return 1 / 0');
SELECT 1;
ROLLBACK;

--
-- what still raises in sandbox_run: invalid arguments (22023), table-input
-- query errors, interrupts (57014)
--
SELECT sandbox_run('def main(): return 1', options => '{"timeout_ms": 0}');
SELECT sandbox_run('def main(): return 1', options => '{"timeout_ms": 100000000}');
SELECT sandbox_run('def main(): return 1', options => '{"memory": 64}');
SELECT sandbox_run('def main(): return 1', options => '[]');
SELECT sandbox_run('def main(): return 1', inputs => '[1, 2]');
SELECT sandbox_run('def main(): return 1', inputs => '{"__class__": 1}');
SELECT sandbox_run('def main(): return 1', inputs => '{"df": {"$table": 42}}');
SELECT sandbox_run('def main(): return 1', returns => '{}');
SELECT sandbox_run('def main(): return 1', returns => '{"not a name"}');
SELECT sandbox_run('def main(): return 1', returns => '{main,main}');
SELECT sandbox_run('def main(df): return 1', '{"df": {"$table": "agents_no_such_table"}}');
SELECT sandbox_run('def main(df): return 1', '{"df": {"$query": "SELECT 1 / 0"}}');
SET statement_timeout = '300ms';
SELECT sandbox_run('def main():
    while True: pass');
RESET statement_timeout;
-- a NULL argument: 22004, naming it
SELECT sandbox_run(NULL);
-- the session goes on working
SELECT sandbox_run('def main(): return "fine"')->'returns' AS returns;

--
-- sandbox_validate: static findings with line, column, rule and message,
-- and the imports used; nothing runs
--
-- clean code
SELECT sandbox_validate($$
import pandas as pd
import numpy as np
from collections import Counter
LIMIT = 10
def main(df):
    return df.head(LIMIT)
$$);
-- several findings, in order of position, each with its rule; every import
-- is listed, allowed or not
SELECT jsonb_pretty(sandbox_validate($$
import pandas as pd
import math, os
from subprocess import run
print("top level")
def main(df):
    f = open("data.csv")
    cls = df.__class__
    return eval("1")
$$));
-- as a table
SELECT f->'line' AS line, f->'col' AS col, f->>'rule' AS rule
FROM jsonb_array_elements(sandbox_validate($$
def main(df):
    g = globals()
    return getattr(df, "_data")
async def other():
    return 1
$$)->'findings') f;
-- a syntax error is a finding with rule "syntax"
SELECT sandbox_validate($$
import pandas as pd
def main(:
    return 1
$$);
SELECT sandbox_validate('');
-- nothing runs: neither a default argument nor a class body, both of which
-- run when the module is loaded (sandbox_run shows what that prints), nor a
-- loop that never ends
SELECT sandbox_validate($$
def main(x=print("default evaluated")):
    return x
class Config:
    print("class body ran")
def spin():
    while True: pass
$$);
SELECT r->'stdout' AS stdout FROM sandbox_run($$
def main(x=print("default evaluated")):
    return x
class Config:
    print("class body ran")
$$) r;

--
-- sys, traceback, logging: the sandbox's own versions (the code's output
-- streams, its own frames, records to its stderr); uuid without the
-- functions that read the machine's network address
--
SELECT r->'stdout' AS stdout, r->'stderr' AS stderr, r->'returns' AS returns
FROM sandbox_run($$
import sys, traceback
def main():
    print("to stdout", file=sys.stdout)
    print("to stderr", file=sys.stderr)
    sys.stderr.write("written\n")
    try:
        {}["b"]
    except KeyError:
        text = traceback.format_exc()
        kind = sys.exc_info()[0].__name__
    return [text, kind, sys.maxsize == 2**63 - 1, sys.version_info >= (3, 9)]
$$) r;
SELECT r->'stderr' AS stderr FROM sandbox_run($$
import logging
def main():
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    etl = logging.getLogger("etl")
    etl.info("loaded %d rows", 5)
    etl.debug("not shown")
    logging.getLogger("etl.load").warning("from a child logger")
    logging.warning("from the root")
    try:
        1 / 0
    except ZeroDivisionError:
        etl.exception("step failed")
$$) r;
SELECT sandbox_run($$
import io, logging
def main():
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("{levelname}|{name}|{message}", style="{"))
    log = logging.getLogger("quiet")
    log.addHandler(handler)
    log.propagate = False
    log.setLevel("DEBUG")
    log.debug("x=%s", 1)
    logging.getLogger("loud").error("no handler: the message alone, to stderr")
    return buf.getvalue()
$$) - 'usage';
SELECT sandbox_execute($$
import logging
def main():
    logging.basicConfig(filename="/tmp/log.txt")
$$);
SELECT sandbox_execute($$
import logging
def main():
    logging.Formatter("{name.__class__}", style="{")
$$);
SELECT sandbox_execute($$
import logging.handlers
def main():
    return 1
$$);
-- the real modules are not reached through another module
SELECT sandbox_execute($$
import matplotlib.font_manager
def main():
    return matplotlib.font_manager.logging
$$);
SELECT sandbox_execute($$
import sys
def main():
    return sys.modules
$$);
SELECT sandbox_execute($$
import sys
def main():
    return sys.path
$$);
-- a script's entry point: the error says to remove it (no hint to wrap statements)
SELECT sandbox_execute($$
import pandas as pd
def main(n=2):
    return n * 2
if __name__ == "__main__":
    print(main())
$$);
-- what the sandbox's sys lends works (they were refused as "the real sys")
SELECT sandbox_execute($$
import sys
def main():
    return [sys.getsizeof(1) > 0, sys.getsizeof(object(), 7) > 0, sys.getrecursionlimit() > 100,
            sys.getdefaultencoding(), sys.maxsize == 2 ** 63 - 1, list(sys.version_info[:2])]
$$);
SELECT sandbox_execute($$
import uuid
def main():
    u = uuid.uuid4()
    return [u.version, len(str(u)), str(uuid.uuid5(uuid.NAMESPACE_DNS, "example.org"))]
$$);
SELECT sandbox_execute($$
import uuid
def main():
    return str(uuid.uuid1())
$$);
-- string.Formatter stays refused; other libraries' Formatter classes are not it
SELECT sandbox_validate('from string import Formatter')->'findings' AS findings;
SELECT sandbox_execute($$
from matplotlib import ticker
class Percent(ticker.Formatter):
    def __call__(self, x, pos=None):
        return f"{x:.0%}"
def main():
    return Percent()(0.25)
$$);
-- string.Template looks names up in its mapping only: a dotted name is a key
SELECT sandbox_execute($$
from string import Template
class Dotted(Template):
    idpattern = r"[a-z][a-z0-9_.]*"
def main():
    return [Template("Hello $name, ${n} rows").substitute(name="Ana", n=3),
            Dotted("$x.real").safe_substitute({"x.real": "a key, not an attribute"}),
            Dotted("$y.real").safe_substitute(y=1)]
$$);

-- numpy's array classes as the code gets them: isinstance and type() as
-- usual; no strides=, and over a buffer no Python objects (numpy's own
-- checks of those can be passed); obj.data = value on the code's objects
SELECT sandbox_execute($$
import numpy as np
class Holder:
    def __init__(self, data):
        self.data = data
def main():
    a = np.arange(6)
    b = np.ndarray((2,), dtype="<u2", buffer=b"\x01\x00\x02\x00")
    r = np.recarray((1,), dtype=[("x", "<i4")], buf=bytearray(4))
    return [isinstance(a, np.ndarray), type(a) is np.ndarray, issubclass(type(r), np.ndarray),
            b.tolist(), int(r.x[0]), Holder([1, 2]).data, np.ndarray((2, 3)).shape]
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    return np.ndarray((2,), dtype="u1", buffer=bytes(8), strides=(4,)).tolist()
$$);
SELECT sandbox_execute($$
import numpy as np
def main():
    a = np.zeros(3)
    a.strides = (8,)
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.core.frame.DataFrame
$$);

--
-- privileges: EXECUTE is revoked from PUBLIC; VOLATILE, PARALLEL UNSAFE,
-- with a comment
--
SELECT p.oid::regprocedure AS function,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute,
       p.provolatile, p.proparallel, p.proisstrict,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p WHERE p.proname IN ('sandbox_run', 'sandbox_validate')
ORDER BY p.oid::regprocedure::text;
CREATE ROLE regress_pysandbox_agent;
SET ROLE regress_pysandbox_agent;
SELECT sandbox_run('def main(): return 1');
SELECT sandbox_validate('def main(): return 1');
RESET ROLE;
GRANT EXECUTE ON FUNCTION sandbox_run(text, jsonb, text[], jsonb),
                          sandbox_validate(text) TO regress_pysandbox_agent;
SET ROLE regress_pysandbox_agent;
SELECT sandbox_run('def main(): return 1')->'returns' AS returns;
SELECT sandbox_validate('import os')->'findings'->0->>'rule' AS rule;
-- a table input is read as the calling role
SELECT sandbox_run('def main(df): return len(df)', '{"df": {"$table": "agents_sales"}}');
RESET ROLE;
DROP OWNED BY regress_pysandbox_agent;
DROP ROLE regress_pysandbox_agent;

-- a Series ranked by its values loses that order as a JSON object (jsonb
-- orders keys itself): a note says so, in stderr and as a NOTICE, and how
-- to keep it (review 100); a Series in key order, or not ranked, gets none
SELECT r->'returns', r->>'stderr' AS stderr FROM sandbox_run($$
import pandas as pd
def main():
    return pd.Series({"west": 5, "east": 40, "north": 12}).nlargest(3)
$$) AS r;
SELECT sandbox_execute($$
import pandas as pd
def main():
    return {"top": pd.Series([3, 1, 2, 1, 1]).value_counts(),
            "kept": pd.Series([3, 1, 2, 1, 1]).value_counts().reset_index().values.tolist(),
            "by_key": pd.Series([10, 20, 5], index=[1, 2, 3]).cumsum()}
$$);
-- ... so does its to_dict(), and one written into a jsonb column or
-- returned by a function RETURNS jsonb (once for all of a statement's
-- rows); a dict of its own gets none, ordered by its values or not
-- (review 104)
SELECT sandbox_execute($$
import pandas as pd
def main():
    return [pd.Series({"west": 5, "east": 40, "north": 12}).nlargest(3).to_dict(),
            {"count": 5, "mean": 7.5, "max": 9}]
$$);
SELECT * FROM sandbox_rows($$
import pandas as pd
def main():
    return [{"top": pd.Series({"west": 5, "east": 40, "north": 12}).nlargest(3)}]
$$) AS t(top jsonb);
CREATE FUNCTION pg_temp.ranked(n int) RETURNS jsonb LANGUAGE pysandbox AS $$
import pandas as pd
return pd.Series({"west": 5, "east": 40 + n, "north": 12}).nlargest(3)
$$;
SELECT pg_temp.ranked(g) FROM generate_series(1, 3) g;

DROP TABLE agents_sales;
