--
-- limits: wall-clock time, CPU time, memory and output, set by the
-- pysandbox.* settings and tightened by options; statement_timeout; the
-- session goes on working after each
--

-- SQLSTATE and message of a call, or 'ok'
CREATE FUNCTION pg_temp.sqlstate(code text, opts jsonb DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM sandbox_execute(code, options => opts); RETURN 'ok';
EXCEPTION WHEN OTHERS OR query_canceled THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;

-- wall-clock limit: 57014
SELECT pg_temp.sqlstate('def main():
    while True: pass', '{"timeout_ms": 300}');
SELECT sandbox_execute($$
def main():
    while True: pass
$$, options => '{"timeout_ms": 300}');
SELECT 1 AS still_alive;
SELECT sandbox_execute('def main(): return "next call works"');
-- the same limit set by an administrator
SET pysandbox.timeout = 300;
SELECT sandbox_execute($$
def main():
    while True: pass
$$);
RESET pysandbox.timeout;
-- whichever limit is lower ends the call: here the wall-clock limit
SELECT sandbox_execute($$
def main():
    n = 0
    while True: n += 1
$$, options => '{"timeout_ms": 300, "cpu_ms": 5000}');

-- CPU time limit: 54000
SELECT pg_temp.sqlstate('def main():
    while True: pass', '{"cpu_ms": 300}');
SELECT sandbox_execute($$
def main():
    while True: pass
$$, options => '{"cpu_ms": 300}');
SELECT 1 AS still_alive;
SELECT sandbox_execute('def main(): return "next call works"');
SET pysandbox.cpu_limit = 300;
SELECT sandbox_execute($$
import numpy as np
def main():
    a = np.ones((300, 300))
    while True: a = a @ a / 300
$$);
RESET pysandbox.cpu_limit;
-- a call stopped at a limit says where its code was: the innermost line of
-- the code (not of pandas), and its function
SELECT sandbox_execute($$
import pandas as pd
class Model:
    def fit(self, v):
        while True: v += 1
def main():
    return int(pd.Series([1, 2]).apply(Model().fit).sum())
$$, options => '{"cpu_ms": 300}');
SELECT sandbox_execute($$
import time
def main():
    for i in range(3):
        time.sleep(0.2)
    return i
$$, options => '{"timeout_ms": 300}');
-- a name that is not ASCII is left out
SELECT sandbox_execute($$
def rechnen_für_immer():
    while True: pass
def main():
    return rechnen_für_immer()
$$, options => '{"cpu_ms": 300}');

-- memory limit: 53200, with the line that allocated
SELECT pg_temp.sqlstate('def main(): return len(bytearray(200 * 1024 * 1024))', '{"memory_mb": 64}');
SELECT sandbox_execute($$
def main():
    data = bytearray(200 * 1024 * 1024)
    return len(data)
$$, options => '{"memory_mb": 64}');
SELECT 1 AS still_alive;
SELECT sandbox_execute('def main(): return "next call works"');
-- numpy, pandas and plain Python allocations all count
SELECT sandbox_execute($$
import numpy as np
def main():
    return int(np.ones(200 * 1024 * 1024 // 8).sum())
$$, options => '{"memory_mb": 64}');
SELECT sandbox_execute($$
import pandas as pd
import numpy as np
def main():
    df = pd.DataFrame({"a": np.arange(20_000_000)})
    return len(df)
$$, options => '{"memory_mb": 64}');
SELECT sandbox_execute($$
def main():
    rows = []
    while True:
        rows.append("y" * 1000)
$$, options => '{"memory_mb": 64}');
SET pysandbox.memory_limit = '64MB';
SELECT sandbox_execute($$
def main():
    return len("x" * (300 * 1024 * 1024))
$$);
RESET pysandbox.memory_limit;
-- a MemoryError the code catches is just an exception it handled
SELECT sandbox_execute($$
def main():
    try:
        data = bytearray(200 * 1024 * 1024)
    except MemoryError:
        return "too big, used a smaller sample"
$$, options => '{"memory_mb": 64}');
-- a call that stays under the limit is not affected
SELECT sandbox_execute($$
def main():
    return len(bytearray(8 * 1024 * 1024))
$$, options => '{"memory_mb": 64}');

-- output limit: the result's JSON text counts ...
-- {"main":"xxxxxxxx"} is 19 bytes
SELECT pg_temp.sqlstate('def main(): return "xxxxxxxx"', '{"max_output_bytes": 18}');
SELECT sandbox_execute('def main(): return "xxxxxxxx"', options => '{"max_output_bytes": 19}');
SELECT sandbox_execute('def main(): return "xxxxxxxx"', options => '{"max_output_bytes": 18}');
SELECT 1 AS still_alive;
SELECT sandbox_execute($$
import pandas as pd
def main():
    return pd.DataFrame({"a": range(100000)})
$$, options => '{"max_output_bytes": 100000}');
-- ... and so does printed output, each print() its text and 8 bytes of
-- framing: what was printed before the limit arrives
SELECT sandbox_execute($$
def main():
    for i in range(5):
        print("0123456789")
$$, options => '{"max_output_bytes": 30}');
-- prints and the result share one budget
SELECT sandbox_execute($$
def main():
    print("0123456789")
    return "0123456789"
$$, options => '{"max_output_bytes": 30}');
SELECT sandbox_execute($$
def main():
    print("0123456789")
    return "0123456789"
$$, options => '{"max_output_bytes": 40}');
-- bytes count, not characters
SELECT sandbox_execute($$
def main():
    print("é" * 10)
$$, options => '{"max_output_bytes": 15}');
SET pysandbox.max_output_bytes = 1024;
SELECT sandbox_execute('def main(): return "x" * 2000');
RESET pysandbox.max_output_bytes;
SELECT sandbox_execute('def main(): return "next call works"');

-- statement_timeout cancels a running call like any other statement
SET statement_timeout = '300ms';
SELECT pg_temp.sqlstate('def main():
    while True: pass');
SELECT sandbox_execute($$
def main():
    while True: pass
$$);
-- ... also while the table input is being read
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT pg_sleep(10)"}}');
RESET statement_timeout;
SELECT 1 AS still_alive;
SELECT sandbox_execute('def main(): return "next call works"');

-- a limit error inside a transaction aborts it, as any error does
BEGIN;
SELECT sandbox_execute('def main(): return 1');
SELECT sandbox_execute('def main():
    while True: pass', options => '{"timeout_ms": 200}');
SELECT 1;
ROLLBACK;
-- and a savepoint or an EXCEPTION block recovers from it
BEGIN;
SAVEPOINT s;
SELECT sandbox_execute('def main():
    while True: pass', options => '{"cpu_ms": 200}');
ROLLBACK TO SAVEPOINT s;
SELECT sandbox_execute('def main(): return "after savepoint"');
COMMIT;
DO $$
BEGIN
    PERFORM sandbox_execute('def main():
    while True: pass', options => '{"timeout_ms": 200}');
EXCEPTION WHEN query_canceled THEN
    RAISE NOTICE 'caught %', SQLSTATE;
END $$;
SELECT sandbox_execute('def main(): return "after exception block"');
