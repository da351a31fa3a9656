--
-- guc: the pysandbox.* settings, their defaults, who may change them, and
-- what they do
--

CREATE ROLE regress_pysandbox_user LOGIN;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) TO regress_pysandbox_user;
SELECT current_user AS superuser_name \gset
-- SQLSTATE and message of a statement, or 'ok'
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN EXECUTE stmt; RETURN 'ok';
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END $f$;
GRANT EXECUTE ON FUNCTION pg_temp.try(text) TO regress_pysandbox_user;

-- the library is loaded on first use: a limit an ordinary role set before
-- that is refused when the setting is defined, and the default applies
-- (with pysandbox in shared_preload_libraries the SET itself fails:
-- expected/guc_1.out)
SET ROLE regress_pysandbox_user;
SET pysandbox.timeout = 100000;
SELECT sandbox_execute('def main(): return 1');
SHOW pysandbox.timeout;
RESET ROLE;

-- defaults of every setting, their units and who may change them
SELECT name, boot_val, unit, context, vartype FROM pg_settings
WHERE name LIKE 'pysandbox.%' ORDER BY name;
SHOW pysandbox.timeout;
SHOW pysandbox.cpu_limit;
SHOW pysandbox.memory_limit;
SHOW pysandbox.max_output_bytes;
SHOW pysandbox.max_input_rows;
SHOW pysandbox.max_input_size;
SHOW pysandbox.allowed_modules;
SHOW pysandbox.print;
SHOW pysandbox.python_layer;

-- limits are superuser-only: a role cannot raise (or set) its own
SET ROLE regress_pysandbox_user;
SET pysandbox.timeout = 100000;
SELECT pg_temp.try('SET pysandbox.timeout = 100000');
SELECT pg_temp.try('SET pysandbox.cpu_limit = 1');
SELECT pg_temp.try('SET pysandbox.memory_limit = ''1GB''');
SELECT pg_temp.try('SET pysandbox.max_output_bytes = 1024');
SELECT pg_temp.try('SET pysandbox.max_input_rows = 1');
SELECT pg_temp.try('SET pysandbox.max_input_size = 1');
SELECT pg_temp.try('SET pysandbox.allowed_modules = ''os''');
SELECT pg_temp.try('SET pysandbox.python_layer = off');
SELECT pg_temp.try('SET pysandbox.allow_weak_isolation = on');
SELECT pg_temp.try('SET pysandbox.filesystem_layer = mount_namespace');
SELECT pg_temp.try('SET pysandbox.queue_timeout = 0');
SELECT pg_temp.try('SET pysandbox.max_concurrent = 1000');
SELECT set_config('pysandbox.timeout', '100000', false);
SHOW pysandbox.timeout;
-- but it may choose what happens to print() output
SET pysandbox.print = discard;
SHOW pysandbox.print;
SELECT sandbox_execute('def main(): print("hidden"); return "quiet"');
RESET pysandbox.print;
-- and it may tighten limits for a call with options
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 5000}');
RESET ROLE;

-- settings take units and are range-checked
SET pysandbox.timeout = '1min';
SHOW pysandbox.timeout;
SET pysandbox.timeout = 0;
SET pysandbox.timeout = '2h';
SET pysandbox.memory_limit = '8MB';
SET pysandbox.max_output_bytes = '1kB';
SHOW pysandbox.max_output_bytes;
SET pysandbox.max_output_bytes = 1000;
SET pysandbox.max_input_size = '2GB';
SHOW pysandbox.max_input_size;
SET pysandbox.max_input_size = '65GB';
SET pysandbox.max_input_rows = -1;
RESET ALL;

-- pysandbox.allowed_modules decides what may be imported
SET pysandbox.allowed_modules = 'math, json';
SELECT sandbox_execute($$
import math
import json
def main():
    return json.dumps([math.floor(2.5)])
$$);
-- pandas removed: importing it is rejected, and the message lists the modules
SELECT sandbox_execute($$
import pandas as pd
def main():
    return 1
$$);
-- ... inside a function as well
SELECT sandbox_execute($$
def main():
    import numpy
    return 1
$$);
-- a module added to the list can be imported, with its submodules
SET pysandbox.allowed_modules = 'math, operator, email';
SELECT sandbox_execute($$
import operator
from email.utils import parseaddr
def main():
    return [operator.add(1, 2), list(parseaddr("Ann <ann@example.com>"))]
$$);
-- a module that reaches outside the process stays unusable when named:
-- the error says the setting cannot allow it (review 109 F5)
SET pysandbox.allowed_modules = 'ctypes, pickle';
SELECT sandbox_execute($$
import pickle
def main():
    return pickle.dumps(1)
$$);
-- an empty list allows no import at all; code without imports still runs
SET pysandbox.allowed_modules = '';
SHOW pysandbox.allowed_modules;
SELECT sandbox_execute($$
import math
def main():
    return 1
$$);
SELECT sandbox_execute('def main(): return sum([1, 2])');
-- denied submodules stay denied even when their package is listed
SET pysandbox.allowed_modules = 'numpy';
SELECT sandbox_execute($$
import numpy.ctypeslib
def main():
    return 1
$$);
RESET pysandbox.allowed_modules;
-- the check hook rejects what is not a comma-separated list of module names
SET pysandbox.allowed_modules = 'os;rm -rf';
SET pysandbox.allowed_modules = '1abc';
SET pysandbox.allowed_modules = '"math"';
SET pysandbox.allowed_modules = 'math,,json';
SET pysandbox.allowed_modules = 'math json';
SHOW pysandbox.allowed_modules;

-- the prefix is reserved: unknown pysandbox.* settings are refused
SET pysandbox.foo = 1;
SET pysandbox.timeout_ms = 1;
SELECT pg_temp.try('SET pysandbox.foo = 1');

-- pysandbox.print takes notice or discard (case-insensitive)
SET pysandbox.print = discard;
SHOW pysandbox.print;
SET pysandbox.print = 'NOTICE';
SHOW pysandbox.print;
SET pysandbox.print = 'loud';
SET pysandbox.print = on;
SELECT sandbox_execute('def main(): print("shown"); return 1');
-- SET LOCAL lasts for the transaction
BEGIN;
SET LOCAL pysandbox.print = discard;
SELECT sandbox_execute('def main(): print("hidden in this transaction"); return 1');
COMMIT;
SELECT sandbox_execute('def main(): print("shown again"); return 1');

-- pysandbox.options lowers limits, for anyone: the keys of the options
-- argument, checked when set
SET ROLE regress_pysandbox_user;
SET pysandbox.options = '{"timeout_ms": 300, "max_input_rows": 2}';
SHOW pysandbox.options;
SELECT sandbox_execute('def main():
    while True: pass');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT generate_series(1, 3)"}}');
-- the strictest of the setting, pysandbox.options and options applies
SELECT sandbox_execute('def main():
    while True: pass', options => '{"timeout_ms": 200}');
SELECT sandbox_execute('def main():
    while True: pass', options => '{"timeout_ms": 5000}');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 20000}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT generate_series(1, 3)"}}', options => '{"max_input_rows": 1}');
-- mistakes are refused when set (22023), and the value in force stays
SELECT pg_temp.try('SET pysandbox.options = ''{"timeout": 5}''');
SELECT pg_temp.try('SET pysandbox.options = ''{"cpu_ms": 0}''');
SELECT pg_temp.try('SET pysandbox.options = ''{"cpu_ms": [1]}''');
SELECT pg_temp.try('SET pysandbox.options = ''{"numeric": "int"}''');
SELECT pg_temp.try('SET pysandbox.options = ''{"verify": "assert True"}''');
SELECT pg_temp.try('SET pysandbox.options = ''timeout_ms=5''');
SELECT pg_temp.try('SET pysandbox.options = ''[1]''');
SET pysandbox.options = '{"timeout": 5}';
SHOW pysandbox.options;
-- numeric as an option of every call
SET pysandbox.options = '{"numeric": "decimal"}';
SELECT sandbox_execute($$def main(df): return str(type(df["n"][0]))$$,
    '{"df": {"$query": "SELECT 1.5::numeric AS n"}}');
-- a value above the setting changes nothing: the setting applies
RESET ROLE;
SET pysandbox.timeout = 300;
SET ROLE regress_pysandbox_user;
SET pysandbox.options = '{"timeout_ms": 3600000}';
SELECT sandbox_execute('def main():
    while True: pass');
RESET ROLE;
RESET pysandbox.timeout;
RESET pysandbox.options;
-- empty: nothing lowered
SET pysandbox.options = '';
SELECT sandbox_execute('def main(): return 1');
RESET pysandbox.options;

-- pysandbox.allow_weak_isolation is set in the server configuration only
SET pysandbox.allow_weak_isolation = on;

DROP FUNCTION pg_temp.try(text);

-- an administrator can set limits per role; options stay below them
ALTER ROLE regress_pysandbox_user SET pysandbox.timeout = '2s';
\c - regress_pysandbox_user
SHOW pysandbox.timeout;
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 3000}');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 2000}');
-- the limit's hint names where the login's value came from (review 117:
-- "an administrator can raise pysandbox.timeout", postgresql.conf's)
SELECT sandbox_execute('import time
def main(): time.sleep(5)');
SET pysandbox.timeout = '5s';
\c - :superuser_name
ALTER ROLE regress_pysandbox_user RESET pysandbox.timeout;

-- PostgreSQL applies a role's settings at login only; pysandbox applies the
-- current role's where they are stricter, also after SET ROLE (a pooler's
-- login switching to each request's role) and in SECURITY DEFINER functions
GRANT EXECUTE ON FUNCTION sandbox_workspace_open(jsonb), sandbox_layers() TO regress_pysandbox_user;
SELECT current_database() AS dbname \gset
ALTER ROLE regress_pysandbox_user SET pysandbox.timeout = '300ms';
ALTER ROLE regress_pysandbox_user SET pysandbox.allowed_modules = 'math, pandas.api, re';
ALTER ROLE regress_pysandbox_user SET pysandbox.max_output_bytes = '1MB';
-- its own in this database wins over its own in all, as at login
ALTER ROLE regress_pysandbox_user IN DATABASE :"dbname" SET pysandbox.max_output_bytes = '2kB';
ALTER ROLE regress_pysandbox_user SET pysandbox.max_parallel = 1;
ALTER ROLE regress_pysandbox_user SET pysandbox.max_workspaces = 0;
ALTER ROLE regress_pysandbox_user SET pysandbox.options = '{"max_input_rows": 2}';
SET pysandbox.allowed_modules = 'math, json, pandas, numpy';
SET ROLE regress_pysandbox_user;
SELECT sandbox_execute('def main():
    while True: pass');
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 1000}');
-- the modules both lists allow: math, and pandas.api within pandas
SELECT sandbox_execute('import json
def main(): return 1');
SELECT sandbox_execute('import pandas.api.types
import math
def main(): return math.floor(2.5)');
SELECT sandbox_execute('def main(): return "x" * 5000');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT generate_series(1, 3)"}}');
SELECT sandbox_execute('def main(df): return len(df)',
    '{"df": {"$query": "SELECT 1 AS g"}}', options => '{"group_by": "g", "parallel": 2}');
SELECT sandbox_workspace_open();
RESET ROLE;
-- a SECURITY DEFINER function's calls have its owner's
CREATE FUNCTION regress_definer_loop() RETURNS jsonb LANGUAGE sql SECURITY DEFINER
AS $$ SELECT sandbox_execute(E'def main():\n    while True: pass') $$;
ALTER FUNCTION regress_definer_loop() OWNER TO regress_pysandbox_user;
SELECT regress_definer_loop();
DROP FUNCTION regress_definer_loop();
-- never looser than the session's: a lower session value stays
SET pysandbox.timeout = '200ms';
SET ROLE regress_pysandbox_user;
SELECT sandbox_execute('def main():
    while True: pass');
RESET ROLE;
RESET pysandbox.timeout;
RESET pysandbox.allowed_modules;
-- a Python layer the session turned off is on for a role that stores it on
ALTER ROLE regress_pysandbox_user SET pysandbox.python_layer = on;
SET pysandbox.python_layer = off;
SELECT active FROM sandbox_layers() WHERE layer = 'python';
SET ROLE regress_pysandbox_user;
SELECT active FROM sandbox_layers() WHERE layer = 'python';
RESET ROLE;
RESET pysandbox.python_layer;
ALTER ROLE regress_pysandbox_user RESET ALL;
ALTER ROLE regress_pysandbox_user IN DATABASE :"dbname" RESET ALL;
-- a role with nothing stored gets what a login as it would: the server's
-- values, not looser ones of the session (review 144 F1)
SET pysandbox.python_layer = off;
SET pysandbox.timeout = '1h';
SET ROLE regress_pysandbox_user;
SELECT active FROM sandbox_layers() WHERE layer = 'python';
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 20000}');
RESET ROLE;
RESET pysandbox.timeout;
RESET pysandbox.python_layer;
-- nor a pooler's login role's own looser values: they were stored for it
CREATE ROLE regress_pysandbox_pooler LOGIN NOINHERIT;
GRANT regress_pysandbox_user TO regress_pysandbox_pooler;
ALTER ROLE regress_pysandbox_pooler SET pysandbox.timeout = '1h';
ALTER ROLE regress_pysandbox_pooler SET pysandbox.python_layer = off;
ALTER ROLE regress_pysandbox_pooler SET pysandbox.allowed_modules = 'json, math, os';
\c - regress_pysandbox_pooler
SHOW pysandbox.timeout;
SET ROLE regress_pysandbox_user;
SELECT active FROM sandbox_layers() WHERE layer = 'python';
SELECT sandbox_execute('def main(): return 1', options => '{"timeout_ms": 20000}');
-- the modules both allow: json and math, not os
SELECT sandbox_execute('import json, math
def main(): return math.floor(2.5)');
SELECT sandbox_execute('import os
def main(): return 1');
RESET ROLE;
\c - :superuser_name
DROP ROLE regress_pysandbox_pooler;
-- a parallel worker compares with the server's configuration too, not
-- with the boot value its restored settings reset (review 146 F3)
LOAD 'pysandbox';
ALTER SYSTEM SET pysandbox.timeout = '1500ms';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
CREATE FUNCTION regress_parallel_sleep(n int) RETURNS int LANGUAGE pysandbox PARALLEL SAFE
AS $$
import time
time.sleep(2)
return n
$$;
SET pysandbox.timeout = '1h';
SET ROLE regress_pysandbox_user;
SET force_parallel_mode = on;
SELECT regress_parallel_sleep(1);
RESET force_parallel_mode;
RESET ROLE;
RESET pysandbox.timeout;
DROP FUNCTION regress_parallel_sleep(int);
ALTER SYSTEM RESET pysandbox.timeout;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
-- a SECURITY DEFINER function's caller sets client_min_messages: the usage
-- line (its inputs' rows and bytes) is not the caller's to read (review
-- 144 F2); no DEBUG line below
CREATE FUNCTION regress_definer_rows() RETURNS jsonb LANGUAGE sql SECURITY DEFINER
AS $$ SELECT sandbox_execute('def main(df): return len(df) > 0',
                             '{"df": {"$query": "SELECT generate_series(1, 176) AS n"}}') $$;
ALTER FUNCTION regress_definer_rows() OWNER TO regress_pysandbox_user;
SET client_min_messages = debug1;
SELECT regress_definer_rows();
RESET client_min_messages;
DROP FUNCTION regress_definer_rows();
-- as a login as the role would get them: the database's where the role has
-- none (this session, logged in before, has the default)
ALTER DATABASE :"dbname" SET pysandbox.timeout = '250ms';
SET ROLE regress_pysandbox_user;
SELECT sandbox_execute('def main():
    while True: pass');
RESET ROLE;
ALTER DATABASE :"dbname" RESET pysandbox.timeout;
SET ROLE regress_pysandbox_user;
SELECT sandbox_execute('import json
def main(): return 1');
RESET ROLE;
\c - :superuser_name

-- a value set while the library is not loaded (this fresh session, without
-- preloading) cannot be checked then: calls refuse to run until it is
-- fixed, rather than run with the default; preloaded, it is refused at once
ALTER ROLE regress_pysandbox_user SET pysandbox.timeout = 'thirty';
\c - regress_pysandbox_user
SELECT sandbox_execute('def main(): return 1');
\c - :superuser_name
-- and so are calls after SET ROLE to that role
SET ROLE regress_pysandbox_user;
SELECT sandbox_execute('def main(): return 1');
RESET ROLE;
ALTER ROLE regress_pysandbox_user RESET pysandbox.timeout;
-- a value stored where nothing checked it (written while the library was
-- not loaded; here into the catalog itself): preloaded, the login left it
-- out with a WARNING and the role's calls ran with the looser default
-- (review 117 F1); they are refused as without preloading
INSERT INTO pg_db_role_setting
VALUES (0, 'regress_pysandbox_user'::regrole, '{pysandbox.cpu_limit=banana}');
CREATE FUNCTION regress_with_cpu_limit() RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET pysandbox.cpu_limit = '5s'
AS $$ SELECT sandbox_execute('def main(): return 4') $$;
GRANT EXECUTE ON FUNCTION regress_with_cpu_limit() TO regress_pysandbox_user;
\c - regress_pysandbox_user
SELECT sandbox_execute('def main(): return 3');
-- a function's SET clause is a value of its own for its call, and the
-- stored one is refused again after it (review 118 F2: a session's first
-- call through such a function let every later call run with the default)
\c - regress_pysandbox_user
SELECT regress_with_cpu_limit();
SELECT sandbox_execute('def main(): return 3');
\c - :superuser_name
DROP FUNCTION regress_with_cpu_limit();
DELETE FROM pg_db_role_setting WHERE setrole = 'regress_pysandbox_user'::regrole;
-- a setting only the server's start sets, stored for the role while the
-- library was not preloaded, is no invalid value (review 118 F1)
INSERT INTO pg_db_role_setting
VALUES (0, 'regress_pysandbox_user'::regrole, '{pysandbox.preload_modules=scipy}');
\c - regress_pysandbox_user
SELECT sandbox_execute('def main(): return 5');
\c - :superuser_name
DELETE FROM pg_db_role_setting WHERE setrole = 'regress_pysandbox_user'::regrole;
-- the hint above says only a superuser can mend a superuser's setting
-- (review 109 F7); one the role may set, it may mend in the session
\c - :superuser_name
ALTER ROLE regress_pysandbox_user SET pysandbox.print = 'loud';
\c - regress_pysandbox_user
SELECT sandbox_execute('def main(): return 2');
SET pysandbox.print = notice;
SELECT sandbox_execute('def main(): return 2');
\c - :superuser_name
ALTER ROLE regress_pysandbox_user RESET pysandbox.print;
DROP OWNED BY regress_pysandbox_user;
DROP ROLE regress_pysandbox_user;
