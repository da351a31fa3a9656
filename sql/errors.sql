--
-- errors: what the caller sees when the code fails (exceptions, syntax
-- errors) and when the arguments are wrong (22023)
--

-- SQLSTATE and message of a call, or 'ok'
CREATE FUNCTION pg_temp.sqlstate(code text, inputs jsonb DEFAULT '{}',
                                 returns text[] DEFAULT '{main}', opts jsonb DEFAULT '{}')
RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM sandbox_execute(code, inputs, returns, opts); RETURN 'ok';
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
-- the parts of an error that may be long
CREATE FUNCTION pg_temp.error_size(code text)
RETURNS TABLE (state text, message_start text, message_ok bool, detail_ok bool)
LANGUAGE plpgsql AS $f$
DECLARE s text; m text; d text;
BEGIN
    PERFORM sandbox_execute(code);
    state := 'ok'; RETURN NEXT;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
    state := s;
    message_start := left(m, 48);
    message_ok := length(m) <= 1048576;
    detail_ok := length(d) <= 8192;
    RETURN NEXT;
END $f$;

-- an exception is 38000 "Type: message"; the detail is the traceback of
-- the user's frames only, with line numbers counted in the code
SELECT sandbox_execute($$
def main():
    return 1 / 0
$$);
SELECT pg_temp.sqlstate('def main(): return 1 / 0');
-- nested calls show every user frame, outermost first; CONTEXT names the
-- line where it was raised
SELECT sandbox_execute($$
def parse(s):
    return int(s)

def total(items):
    return sum(parse(s) for s in items)

def main(items):
    return total(items)
$$, '{"items": ["1", "2", "three"]}');
-- a user-defined exception class keeps its name
SELECT sandbox_execute($$
class BudgetError(Exception):
    pass

def check(v):
    if v > 10:
        raise BudgetError(f"value {v} is over budget")

def main():
    check(11)
$$);
-- an exception raised inside pandas: only the user's frame is shown
SELECT sandbox_execute($$
import pandas as pd
def main():
    df = pd.DataFrame({"a": [1]})
    return df["missing"]
$$);
-- ... including a lambda called back by pandas
SELECT sandbox_execute($$
import pandas as pd
def main():
    df = pd.DataFrame({"a": [1, 2]})
    return df.apply(lambda r: r["b"], axis=1)
$$);
-- an exception without a message, and a multi-line message
SELECT sandbox_execute($$
def main():
    raise ValueError()
$$);
SELECT sandbox_execute($$
def main():
    raise Exception("first line\nsecond line")
$$);
-- chained exceptions report the last one
SELECT sandbox_execute($$
def main():
    try:
        {}["k"]
    except KeyError as e:
        raise ValueError("wrapped") from e
$$);
-- an exception whose message cannot be formatted
SELECT sandbox_execute($$
class Odd(Exception):
    def __str__(self):
        raise RuntimeError("no message")
def main():
    raise Odd()
$$);
-- SystemExit and KeyboardInterrupt are ordinary exceptions here
SELECT sandbox_execute('def main(): raise SystemExit(3)');
SELECT sandbox_execute('def main(): raise KeyboardInterrupt');
-- a class body runs when the code is loaded: its errors point there
SELECT sandbox_execute($$
class Config:
    rate = 1 / 0
def main():
    return Config.rate
$$);
-- the name of a missing input, even when other functions are fine
SELECT sandbox_execute($$
def ok():
    return 1
def needs(df, limit=3):
    return limit
$$, '{}', '{ok,needs}');
-- a keyword-only parameter without a default is required too
SELECT sandbox_execute('def main(a=1, *, key): return key');
-- deep recursion: RecursionError, with a traceback of bounded size
SELECT * FROM pg_temp.error_size($$
def f(n):
    return f(n + 1)
def main():
    return f(0)
$$);
-- ... even when the recursing line is long
SELECT * FROM pg_temp.error_size($$
def f(n):
    return f(n + 1) if n >= 0 else "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
def main():
    return f(0)
$$);
-- the native stack's end (CPython counts no C frames: a chain of map()
-- objects recursed in C when consumed) is reported as deep nesting, at
-- the line the code was at, not as a crash of native code
SELECT sandbox_execute($$
def main():
    x = [1, 2]
    for i in range(300000):
        x = map(abs, x)
    return list(x)
$$);
SELECT r->'error'->>'kind' AS kind, r->'error'->>'type' AS type, r->'error'->>'line' AS line
FROM sandbox_run($$
def main():
    x = [1, 2]
    for i in range(300000):
        x = filter(None, x)
    return len(list(x))
$$) AS r;
-- a fault elsewhere is still the crash it was
SET pysandbox.python_layer = off;
SELECT sandbox_execute($$
import ctypes
def main():
    return ctypes.string_at(8)
$$);
-- SIGKILL from outside its limits (the OOM killer, an administrator) is
-- said to be that, not a fault of numpy's (review 117 F5)
SELECT sandbox_execute($$
import os, signal
def main():
    os.kill(os.getpid(), signal.SIGKILL)
$$);
RESET pysandbox.python_layer;
-- numpy's loops over Python objects (guarded in the worker) stop at the
-- element that raised: its own exception, not a SystemError
SELECT sandbox_execute($$
import numpy as np
import pandas as pd
def main():
    return np.max(pd.Series([1, None, 3], dtype="Int64").to_numpy())
$$);
-- a result whose labels repeat would lose values as a JSON object: refused
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.Series([1, 2, 3], index=["a", "b", "a"])
$$);
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.Series([1, 2, 3], index=["a", "b", "a"]).reset_index().to_dict("records")
$$);
-- a huge exception message is still reported as the exception (shortened)
SELECT * FROM pg_temp.error_size($$
def main():
    raise ValueError("x" * 2000000)
$$);

-- a syntax error is 42601 with the line and column
SELECT sandbox_execute($$def main(:
    pass
$$);
SELECT sandbox_execute($$def main():
    return (1 +
$$);
SELECT sandbox_execute($$def main():
    x = 1
  y = 2
$$);
SELECT sandbox_execute(E'def main():\n\treturn 1\n        return 2');
-- columns count characters, not bytes
SELECT sandbox_execute($$def main():
    return "ééé" + )
$$);
SELECT pg_temp.sqlstate('def main() return 1');

-- returns must name functions defined in the code
SELECT sandbox_execute('def main(): return 1', '{}', '{nope}');
SELECT sandbox_execute($$
LIMIT = 10
def main():
    return LIMIT
$$, '{}', '{LIMIT}');
SELECT sandbox_execute($$
class Report:
    pass
$$, '{}', '{Report}');
-- a script without a function: the message says to write one
SELECT sandbox_execute($$
result = 42
$$);
-- a builtin is not a function of the code
SELECT sandbox_execute('def main(): return 1', '{}', '{print}');
-- returns: empty, NULL element, duplicate, not an identifier, 2-D (22023)
SELECT sandbox_execute('def main(): return 1', '{}', '{}');
SELECT pg_temp.sqlstate('def main(): return 1', returns => '{}');
SELECT sandbox_execute('def main(): return 1', '{}', '{main,NULL}');
SELECT sandbox_execute('def main(): return 1', '{}', '{main,main}');
SELECT sandbox_execute('def main(): return 1', '{}', '{"ma in"}');
SELECT sandbox_execute('def main(): return 1', '{}', '{""}');
SELECT sandbox_execute('def main(): return 1', '{}', '{__init__}');
SELECT sandbox_execute('def main(): return 1', '{}', '{class}');
SELECT sandbox_execute('def main(): return 1', '{}', '{1st}');
SELECT sandbox_execute('def main(): return 1', '{}', '{{main},{main}}');
SELECT pg_temp.sqlstate('def main(): return 1', returns => '{main,main}');
SELECT pg_temp.sqlstate('def main(): return 1', returns => '{nope}');

-- options: must be an object of known, positive integer options
SELECT sandbox_execute('def main(): return 1', options => '[]');
SELECT pg_temp.sqlstate('def main(): return 1', opts => '[]');
SELECT sandbox_execute('def main(): return 1', options => '"timeout_ms"');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout": 5}');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": "5"}');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 0}');
SELECT sandbox_execute('def main(): return 1', options => '{"cpu_ms": -1}');
SELECT sandbox_execute('def main(): return 1', options => '{"memory_mb": 1.5}');
SELECT sandbox_execute('def main(): return 1', options => '{"max_output_bytes": 1e30}');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": null}');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": true}');
-- options may tighten the limits but never raise them above the settings
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 10001}');
SELECT sandbox_execute('def main(): return 1', options => '{"cpu_ms": 10001}');
SELECT sandbox_execute('def main(): return 1', options => '{"memory_mb": 513}');
SELECT sandbox_execute('def main(): return 1', options => '{"max_output_bytes": 16777217}');
SELECT pg_temp.sqlstate('def main(): return 1', opts => '{"memory_mb": 100000}');
-- the limits themselves, and a value written as 5000.0, are accepted
SELECT sandbox_execute('def main(): return 1', options =>
    '{"timeout_ms": 10000, "cpu_ms": 5000.0, "memory_mb": 512, "max_output_bytes": 16777216}');
-- a lower setting lowers what options may ask for
SET pysandbox.timeout = '5s';
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 6000}');
RESET pysandbox.timeout;
-- arguments are checked before anything runs: no NOTICE from print()
SELECT sandbox_execute('def main(): print("ran")', options => '{"bogus": 1}');
