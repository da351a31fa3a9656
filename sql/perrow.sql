--
-- perrow: a pysandbox function called for many rows of one statement runs
-- in one child per call site, user and statement (a held child), with each
-- call's limits applied per call
--

CREATE ROLE regress_pysandbox_perrow;

-- SD lasts from one row to the next of a statement, and no further
CREATE FUNCTION pr_count(x integer) RETURNS integer
LANGUAGE pysandbox AS $$
SD["n"] = SD.get("n", 0) + 1
return x * 100 + SD["n"]
$$;
SELECT pr_count(i) FROM generate_series(1, 5) AS i;
SELECT pr_count(i) FROM generate_series(1, 3) AS i;
-- a single call has its own
SELECT pr_count(7);
-- in a WHERE clause and a lateral join
SELECT i FROM generate_series(1, 6) AS i WHERE pr_count(i) % 2 = 0 ORDER BY i;
CREATE FUNCTION pr_range(n integer) RETURNS SETOF integer
LANGUAGE pysandbox AS $$
SD["calls"] = SD.get("calls", 0) + 1
return [SD["calls"] * 10 + k for k in range(n)]
$$;
SELECT i, r FROM generate_series(1, 3) AS i, LATERAL pr_range(i) AS r ORDER BY i, r;
-- two call sites of one function: a child each; another function: its own
SELECT pr_count(i) AS a, pr_count(i + 10) AS b FROM generate_series(1, 3) AS i;
CREATE FUNCTION pr_peek(x integer) RETURNS text
LANGUAGE pysandbox AS $$
SD["seen"] = SD.get("seen", []) + [x]
return ",".join(str(v) for v in SD["seen"])
$$;
SELECT pr_count(i), pr_peek(i) FROM generate_series(1, 3) AS i;
-- sandbox_execute in the same statement runs in a child of its own
SELECT pr_count(i), sandbox_execute('def main(i): return i', jsonb_build_object('i', i))
FROM generate_series(1, 2) AS i;

-- prints are notices, row by row; sql() works in every call
CREATE FUNCTION pr_loud(x integer) RETURNS integer
LANGUAGE pysandbox AS $$
print("row", x)
return int(sql("SELECT $1::int * 2 AS y", x)["y"][0])
$$;
SET ROLE regress_pysandbox_perrow;
SELECT pr_loud(i) FROM generate_series(1, 3) AS i;
RESET ROLE;

-- an error in one row ends the statement; the next statement starts afresh
CREATE FUNCTION pr_fails_at(x integer, bad integer) RETURNS integer
LANGUAGE pysandbox AS $$
SD["n"] = SD.get("n", 0) + 1
if x == bad:
    raise ValueError("row %d of this statement" % SD["n"])
return SD["n"]
$$;
SELECT pr_fails_at(i, 3) FROM generate_series(1, 5) AS i;
SELECT pr_fails_at(i, 0) FROM generate_series(1, 2) AS i;
-- a caught error inside PL/pgSQL: the held child of the failed call is gone
DO $$
DECLARE
  r integer;
BEGIN
  BEGIN
    SELECT sum(pr_fails_at(i, 2)) INTO r FROM generate_series(1, 3) AS i;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'caught: %', SQLERRM;
  END;
  SELECT sum(pr_fails_at(i, 0)) INTO r FROM generate_series(1, 3) AS i;
  RAISE NOTICE 'sum after: %', r;
END
$$;

-- PL/pgSQL simple expressions: one child for the calls of one top-level
-- statement, a new one for the next statement of the same transaction
CREATE FUNCTION pr_loop(n integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  r integer;
BEGIN
  FOR i IN 1..n LOOP
    r := pr_count(i);
  END LOOP;
  RETURN r;
END
$$;
BEGIN;
SELECT pr_loop(3);
SELECT pr_loop(2);
COMMIT;
-- ... and for each statement of one query string
SELECT pr_loop(2) \; SELECT pr_loop(2);
-- ... and a new one for another current user, or other limits
DO $$
BEGIN
  FOR i IN 1..4 LOOP
    IF i = 3 THEN
      SET LOCAL ROLE regress_pysandbox_perrow;
    ELSIF i = 4 THEN
      RESET ROLE;
    END IF;
    RAISE NOTICE 'call % as %: %', i, current_user, pr_count(i);
  END LOOP;
END
$$;
DO $$
BEGIN
  FOR i IN 1..3 LOOP
    IF i = 3 THEN
      SET LOCAL pysandbox.cpu_limit = 5000;
    END IF;
    RAISE NOTICE 'call %: %', i, pr_count(i);
  END LOOP;
END
$$;

-- the limits apply to each call: five calls of 300 ms each pass a 1000 ms
-- limit (the Python layer off: the OS layers alone, as the hostile suite)
SET pysandbox.python_layer = off;
CREATE FUNCTION pr_nap(x integer, ms integer) RETURNS integer
LANGUAGE pysandbox AS $$
import time
time.sleep(ms / 1000)
return x
$$;
CREATE FUNCTION pr_burn(x integer, ms integer) RETURNS integer
LANGUAGE pysandbox AS $$
import time
t = time.process_time()
while time.process_time() - t < ms / 1000:
    pass
return x
$$;
SET pysandbox.timeout = 1000;
SELECT sum(pr_nap(i, 300)) FROM generate_series(1, 5) AS i;
SELECT sum(pr_nap(i, CASE WHEN i = 3 THEN 3000 ELSE 1 END)) FROM generate_series(1, 5) AS i;
SET pysandbox.timeout = 10000;
SET pysandbox.cpu_limit = 1000;
SELECT sum(pr_burn(i, 300)) FROM generate_series(1, 5) AS i;
SELECT sum(pr_burn(i, CASE WHEN i = 3 THEN 3000 ELSE 1 END)) FROM generate_series(1, 5) AS i;
-- a child near its process-wide CPU rlimit (limit + about 2 s) ends after a
-- call, and the next row runs on a fresh one: every row gets its value
SELECT sum(pr_burn(i, 250)) FROM generate_series(1, 14) AS i;
RESET pysandbox.cpu_limit;
RESET pysandbox.timeout;

-- a child may not run between calls: one that sends its result itself and
-- keeps computing is ended, and so is one that writes between calls
CREATE FUNCTION pr_lingers(x integer) RETURNS integer
LANGUAGE pysandbox AS $$
import sb_io
if x == 2:
    sb_io.send(sb_io.ROWS, (1).to_bytes(8, "little"))
    sb_io.sendv(sb_io.COLUMN, [bytes(8), b"", (x).to_bytes(8, "little")])
    while True: pass
return x
$$;
SELECT count(*) FROM (SELECT pr_lingers(i), pg_sleep(0.3) FROM generate_series(1, 4) AS i) s;
CREATE FUNCTION pr_chatty(x integer) RETURNS integer
LANGUAGE pysandbox AS $$
import sb_io
if x == 2:
    sb_io.send(sb_io.ROWS, (1).to_bytes(8, "little"))
    sb_io.sendv(sb_io.COLUMN, [bytes(8), b"", (x).to_bytes(8, "little")])
    sb_io.send(sb_io.STDOUT, b"between calls\n")
return x
$$;
SELECT count(*) FROM (SELECT pr_chatty(i), pg_sleep(0.1) FROM generate_series(1, 4) AS i) s;
-- the same after a result too large for the backend's receive buffer
CREATE FUNCTION pr_chatty_big(x integer) RETURNS text
LANGUAGE pysandbox AS $$
import sb_io
if x == 2:
    data = ("y" * 10000 + "\0").encode()
    sb_io.send(sb_io.ROWS, (1).to_bytes(8, "little"))
    sb_io.sendv(sb_io.COLUMN, [bytes(8), b"", (0).to_bytes(8, "little") + len(data).to_bytes(8, "little"), data])
    sb_io.send(sb_io.STDOUT, b"between calls\n")
return "z" * 10000
$$;
SELECT count(*) FROM (SELECT length(pr_chatty_big(i)), pg_sleep(0.1) FROM generate_series(1, 4) AS i) s;
-- the same process all along: one pid for all rows, another next statement
CREATE FUNCTION pr_pid(x integer) RETURNS integer
LANGUAGE pysandbox AS 'import os; return os.getpid()';
CREATE TEMP TABLE pr_pids AS SELECT pr_pid(i) AS pid FROM generate_series(1, 20) AS i;
SELECT count(DISTINCT pid) AS processes FROM pr_pids;
SELECT count(*) AS reused FROM (SELECT pr_pid(1) AS pid) s WHERE pid IN (SELECT pid FROM pr_pids);
RESET pysandbox.python_layer;

-- every way a call travels (sb_protocol.h, "The mailbox"): rows in quick
-- succession (through the mailbox), after a pause (the child asleep: on the
-- socket), a slow call (the backend asleep: its answer on the socket), a
-- call that prints or queries (the rest of it on the socket); each row gets
-- its own value, and the notices come in order
CREATE FUNCTION pr_paths(x integer) RETURNS integer
LANGUAGE pysandbox AS $$
if x % 7 == 3:
    sum(range(300000))
if x % 11 == 5:
    print("row", x)
if x % 13 == 6:
    return int(sql("SELECT $1::int * 2 AS y", x).y[0]) // 2
return x
$$;
SET ROLE regress_pysandbox_perrow;
SELECT sum(v) AS total, count(*) AS calls
FROM (SELECT pr_paths(i) AS v, pg_sleep(CASE WHEN i % 5 = 0 THEN 0.002 ELSE 0 END)
      FROM generate_series(1, 60) AS i) s;
RESET ROLE;
DROP FUNCTION pr_paths(integer);

DROP ROLE regress_pysandbox_perrow;
