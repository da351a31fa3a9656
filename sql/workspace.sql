--
-- workspace: one contained process kept for a session and a role across
-- calls; the dict passed as ws lasts, nothing else; any other role is
-- refused; a call that ends the process ends the workspace
--
CREATE ROLE regress_pysandbox_ws;
CREATE ROLE regress_pysandbox_ws_other;
GRANT EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb),
    sandbox_run(text, jsonb, text[], jsonb), sandbox_rows(text, jsonb, text, jsonb),
    sandbox_workspace_open(jsonb), sandbox_workspace_close(text), sandbox_workspace_list()
    TO regress_pysandbox_ws, regress_pysandbox_ws_other;

-- errors name the handle, which is random: shown as ws_<handle>
CREATE FUNCTION ws_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    d text;
    r text;
BEGIN
    EXECUTE q INTO r;
    RETURN 'ok: ' || coalesce(r, 'null');
EXCEPTION WHEN OTHERS OR query_canceled THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN regexp_replace(SQLSTATE || ': ' || SQLERRM || coalesce(' / ' || nullif(d, ''), ''),
                          'ws_[0-9a-f]{32}', 'ws_<handle>', 'g');
END $$;
GRANT EXECUTE ON FUNCTION ws_try(text) TO PUBLIC;

SET ROLE regress_pysandbox_ws;
SELECT sandbox_workspace_open() AS ws \gset
SELECT :'ws' ~ '^ws_[0-9a-f]{32}$' AS handle_looks_right;
SELECT format('{"workspace": "%s"}', :'ws') AS wsopt \gset

-- load once, then use what the workspace kept
SELECT sandbox_execute($$
def main(ws, t):
    ws["df"] = t
    return len(t)
$$, '{"t": {"$query": "SELECT g, g % 3 AS k FROM generate_series(1, 1000) AS g"}}',
    '{main}', :'wsopt');
SELECT sandbox_execute($$
def main(ws):
    return ws["df"].groupby("k")["g"].sum()
$$, '{}', '{main}', :'wsopt');
-- an exception is the call's: the workspace and what it keeps go on
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return ws["nope"]', '{}', '{main}', %L)::text$q$, :'wsopt'));
SELECT sandbox_execute('def main(ws): return sorted(ws)', '{}', '{main}', :'wsopt');
-- module globals do not last: each call's code runs in a namespace of its own
SELECT sandbox_execute(E'X = 1\ndef main():\n    return X', '{}', '{main}', :'wsopt');
SELECT ws_try(format($q$SELECT sandbox_execute('def main(): return X', '{}', '{main}', %L)::text$q$, :'wsopt'));
-- anything lasts in ws, functions too
SELECT sandbox_execute('def main(ws):
    ws["double"] = lambda v: 2 * v
    return len(ws)', '{}', '{main}', :'wsopt');
SELECT sandbox_execute('def main(ws): return ws["double"](21)', '{}', '{main}', :'wsopt');
-- sandbox_run and sandbox_rows run in it too
SELECT r->'ok' AS ok, r->'returns' AS returns, r->'stdout' AS stdout
FROM sandbox_run('def main(ws):
    print("rows:", len(ws["df"]))
    return int(ws["df"].g.max())', '{}', '{main}', :'wsopt') AS r;
SELECT * FROM sandbox_rows('def f(ws): return ws["df"].groupby("k", as_index=False)["g"].count()',
    '{}'::jsonb, 'f', :'wsopt'::jsonb) AS t(k bigint, g bigint) ORDER BY k;
-- ws is the workspace's: an input of that name is a mistake
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{"ws": 1}', '{main}', %L)::text$q$, :'wsopt'));
-- a workspace's calls have its limits
SELECT ws_try(format($q$SELECT sandbox_execute('def main(): return 1', '{}', '{main}', %L::jsonb || '{"cpu_ms": 100}')::text$q$, :'wsopt'));
-- a transaction that fails after a call leaves the workspace as it was
BEGIN;
SELECT sandbox_execute('def main(ws):
    ws["in_rolled_back"] = True
    return 1', '{}', '{main}', :'wsopt');
SELECT 1 / 0;
ROLLBACK;
SELECT sandbox_execute('def main(ws): return ws.get("in_rolled_back")', '{}', '{main}', :'wsopt');
SELECT calls, running, memory_kb > 0 AS has_memory, opened <= last_used AS times_ok
FROM sandbox_workspace_list();

-- ws outside a workspace, and handles that name nothing here
SELECT ws_try($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}')::text$q$);
SELECT ws_try($q$SELECT sandbox_execute('def main(): return 1', '{}', '{main}', '{"workspace": "ws_00000000000000000000000000000000"}')::text$q$);
SELECT ws_try($q$SELECT sandbox_execute('def main(): return 1', '{}', '{main}', '{"workspace": 7}')::text$q$);
SELECT ws_try($q$SELECT sandbox_workspace_open('{"numeric": "decimal"}')$q$);
SELECT ws_try($q$SELECT sandbox_workspace_open('{"cpu_ms": 99999999}')$q$);

-- another role gets nothing of it
RESET ROLE;
SET ROLE regress_pysandbox_ws_other;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return sorted(ws)', '{}', '{main}', %L)::text$q$, :'wsopt'));
SELECT count(*) AS visible FROM sandbox_workspace_list();
SELECT ws_try(format('SELECT sandbox_workspace_close(%L)::text', :'ws'));
RESET ROLE;
SET ROLE regress_pysandbox_ws;
SELECT sandbox_execute('def main(ws): return sorted(ws)', '{}', '{main}', :'wsopt') AS untouched;

-- a call's usage counts the CPU time its process used since the last call
-- ended, as its cpu_ms limit does: here the collection of the garbage the
-- last call left, done while the agent thinks (review 122 F2: what ran
-- between calls was in no call's usage)
SELECT (sandbox_execute($$
import time
def main(ws):
    junk = [[] for _ in range(1000000)]
    junk.append(junk)
    return time.process_time()
$$, '{}', '{main}', :'wsopt')->>'main')::float8 AS t1 \gset
SELECT pg_sleep(0.5);
SELECT (r->'returns'->>'main')::float8 - :t1 > 0.005 AS between_calls_used_cpu,
       (r->'usage'->>'cpu_ms')::float8 >= ((r->'returns'->>'main')::float8 - :t1) * 1000 - 20 AS usage_counts_it
FROM sandbox_run($$
import time
def main(ws):
    return time.process_time()
$$, '{}', '{main}', :'wsopt') r;

-- closing ends it; closing again finds nothing
SELECT sandbox_workspace_close(:'ws') AS closed;
SELECT sandbox_workspace_close(:'ws') AS closed_again;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', %L)::text$q$, :'wsopt'));

-- a call at its wall-clock limit ends its workspace, and says so
SELECT sandbox_workspace_open('{"timeout_ms": 1000}') AS ws2 \gset
SELECT format('{"workspace": "%s"}', :'ws2') AS wsopt2 \gset
SELECT sandbox_execute('def main(ws): ws["x"] = 1; return 1', '{}', '{main}', :'wsopt2');
SELECT timeout_ms, cpu_ms FROM sandbox_workspace_list();
SELECT ws_try(format($q$SELECT sandbox_execute('def main():
    while True: pass', '{}', '{main}', %L)::text$q$, :'wsopt2'));
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', %L)::text$q$, :'wsopt2'));
SELECT count(*) AS open_after FROM sandbox_workspace_list();
-- ... and sandbox_run's report names the workspace that ended; every later
-- use of the handle says it ended and why (not that it never existed)
SELECT sandbox_workspace_open('{"timeout_ms": 1000}') AS ws2r \gset
SELECT sandbox_execute('def main(ws): ws["x"] = 1; return 1', '{}', '{main}', jsonb_build_object('workspace', :'ws2r'));
SELECT r->'error'->>'workspace_ended' = :'ws2r' AS names_it, r->'error'->>'kind' AS kind,
       replace(r->'error'->>'hint', :'ws2r', 'ws_<handle>') AS hint
FROM sandbox_run($$
def main(ws):
    while True:
        pass
$$, '{}', '{main}', jsonb_build_object('workspace', :'ws2r')) r;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'ws2r'));
-- sandbox_run reports a workspace that has ended, or that never was, and
-- the transaction stays usable (review 111 F2: it raised 55000)
BEGIN;
SELECT r->'ok' AS ok, r->'error'->>'kind' AS kind, r->'error'->>'sqlstate' AS sqlstate,
       r->'error'->>'workspace_ended' = :'ws2r' AS names_it,
       r->'error'->>'detail' AS detail, r->'error'->>'hint' AS hint
FROM sandbox_run('def main(ws): return 1', '{}', '{main}', jsonb_build_object('workspace', :'ws2r')) r;
SELECT r->'ok' AS ok, r->'error'->>'kind' AS kind, r->'error'->>'sqlstate' AS sqlstate,
       r->'error'->>'message' AS message, r->'error' ? 'workspace_ended' AS names_one
FROM sandbox_run('def main(ws): return 1', '{}', '{main}', '{"workspace": "ws_0123"}') r;
SELECT sandbox_run('def main(): return 2')->'returns' AS still_usable;
COMMIT;
SELECT sandbox_workspace_close(:'ws2r') AS closed_an_ended_one;

-- the idle timeout (a superuser setting) ends a workspace that waits too long
RESET ROLE;
SET pysandbox.workspace_idle_timeout = '300ms';
SET ROLE regress_pysandbox_ws;
SELECT sandbox_workspace_open() AS ws3 \gset
SELECT format('{"workspace": "%s"}', :'ws3') AS wsopt3 \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', :'wsopt3');
SELECT running AS running_before FROM sandbox_workspace_list() WHERE workspace = :'ws3';
SELECT pg_sleep(0.8);
-- the list says its process is gone before the next use finds out (review 74 L1)
SELECT running AS running_after, memory_kb FROM sandbox_workspace_list() WHERE workspace = :'ws3';
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', %L)::text$q$, :'wsopt3'));
-- ... also after another workspace was opened meanwhile (the open forgets
-- ended ones: review 68 F4)
SELECT sandbox_workspace_open() AS ws3b \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', jsonb_build_object('workspace', :'ws3b'));
SELECT pg_sleep(0.8);
SELECT sandbox_workspace_open() AS ws3c \gset
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'ws3b'));
SELECT sandbox_workspace_close(:'ws3c');
-- ... and one ended so frees its place under max_workspaces before its next
-- use (review 111 F5: an agent reopening after each idle timeout was
-- refused at its fifth, "too many workspaces are open")
RESET ROLE;
SET pysandbox.max_workspaces = 1;
SET ROLE regress_pysandbox_ws;
SELECT sandbox_workspace_open() AS ws3d \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', jsonb_build_object('workspace', :'ws3d'));
SELECT pg_sleep(0.8);
SELECT sandbox_workspace_open() AS ws3e \gset
SELECT count(*) AS listed FROM sandbox_workspace_list();
SELECT sandbox_workspace_close(:'ws3e');
RESET ROLE;
RESET pysandbox.max_workspaces;
RESET pysandbox.workspace_idle_timeout;

-- at most pysandbox.max_workspaces per session
SET pysandbox.max_workspaces = 2;
SET ROLE regress_pysandbox_ws;
SELECT sandbox_workspace_open() IS NOT NULL AS first, sandbox_workspace_open() IS NOT NULL AS second;
SELECT ws_try('SELECT sandbox_workspace_open()');
SELECT count(*) FROM (SELECT sandbox_workspace_close(workspace) FROM sandbox_workspace_list()) s;
-- ... other roles' workspaces of the session count too, and the error says
-- so (this role can neither list nor close them)
RESET ROLE;
SET ROLE regress_pysandbox_ws_other;
SELECT sandbox_workspace_open() IS NOT NULL AS others;
RESET ROLE;
SET ROLE regress_pysandbox_ws;
SELECT sandbox_workspace_open() IS NOT NULL AS mine;
SELECT sandbox_workspace_open();
SELECT count(*) FROM (SELECT sandbox_workspace_close(workspace) FROM sandbox_workspace_list()) s;
RESET ROLE;
SET ROLE regress_pysandbox_ws_other;
SELECT count(*) FROM (SELECT sandbox_workspace_close(workspace) FROM sandbox_workspace_list()) s;
RESET ROLE;
RESET pysandbox.max_workspaces;

-- a process that dies (the Python layer off: os.abort()) ends its workspace
SET pysandbox.python_layer = off;
SELECT sandbox_workspace_open() AS ws4 \gset
SELECT format('{"workspace": "%s"}', :'ws4') AS wsopt4 \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', :'wsopt4');
SELECT ws_try(format($q$SELECT sandbox_execute('import os
def main():
    os.abort()', '{}', '{main}', %L)::text$q$, :'wsopt4'));
SELECT count(*) AS open_after_crash FROM sandbox_workspace_list();
RESET pysandbox.python_layer;

-- the queries of a call's inputs run as the caller: one that closes the
-- call's own workspace fails the call, and leaves no process behind
SELECT sandbox_workspace_open() AS ws5 \gset
SELECT format('{"workspace": "%s"}', :'ws5') AS wsopt5 \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', :'wsopt5');
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws, t): return 1', %L, '{main}', %L)::text$q$,
    jsonb_build_object('t', jsonb_build_object('$query', format('SELECT sandbox_workspace_close(%L) AS c', :'ws5'))),
    :'wsopt5'));
SELECT count(*) AS open_after_close_in_inputs FROM sandbox_workspace_list();
SELECT sandbox_workspace_open() AS ws6 \gset
SELECT format('{"workspace": "%s"}', :'ws6') AS wsopt6 \gset
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws, t): return 1', %L, '{main}', %L)::text$q$,
    jsonb_build_object('t', jsonb_build_object('$query', format('SELECT sandbox_workspace_close(%L) AS c', :'ws6'))),
    :'wsopt6'));
SELECT count(*) AS open_after_first_call_closed FROM sandbox_workspace_list();

-- limits lowered after the open apply to its calls; a lower memory limit
-- than its process has is an error
SELECT sandbox_workspace_open() AS ws7 \gset
SELECT format('{"workspace": "%s"}', :'ws7') AS wsopt7 \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', :'wsopt7');
SET pysandbox.timeout = '500ms';
SELECT ws_try(format($q$SELECT sandbox_execute('def main():
    while True: pass', '{}', '{main}', %L)::text$q$, :'wsopt7'));
RESET pysandbox.timeout;
SELECT sandbox_workspace_open() AS ws8 \gset
SELECT format('{"workspace": "%s"}', :'ws8') AS wsopt8 \gset
SET pysandbox.memory_limit = '256MB';
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', %L)::text$q$, :'wsopt8'));
RESET pysandbox.memory_limit;

-- what a call leaves in reference cycles is freed between calls: pandas'
-- .str accessor caches itself on the temporary Series it was made for
-- (a cycle), so each call here left ~20 MB of strings that only a
-- collection frees; twelve calls reached the memory limit before
SELECT sandbox_workspace_open('{"memory_mb": 160}') AS cyc \gset
SELECT sandbox_execute($$
import pandas as pd
def main(ws):
    ws["df"] = pd.DataFrame({"s": ["text %d" % (i % 1000) for i in range(300000)]})
    return len(ws["df"])
$$, '{}', '{main}', jsonb_build_object('workspace', :'cyc'));
SELECT count(*) AS calls, min(r::text) AS first, max(r::text) AS last
FROM (SELECT sandbox_execute($$
def main(ws):
    return int(ws["df"].s.str.upper().str.len().sum())
$$, '{}', '{main}', jsonb_build_object('workspace', :'cyc')) AS r
      FROM generate_series(1, 12)) AS each_call;
SELECT sandbox_workspace_close(:'cyc');

-- a call's inputs go when the call ends: the process's own frames kept the
-- first call's for the workspace's life (review 136 F1: a 600k-row input
-- held ~120 MB that later calls' memory limit counted); looked for among
-- the objects the collector tracks, the layer off to read them
SET pysandbox.python_layer = off;
SELECT sandbox_workspace_open() AS pin \gset
SELECT sandbox_execute('def main(ws, big): return len(big)',
    '{"big": {"$query": "SELECT g AS n FROM generate_series(1, 54321) g"}}', '{main}',
    jsonb_build_object('workspace', :'pin')) AS first;
SELECT sandbox_execute($$
import gc
import pandas as pd
def main(ws):
    return sum(1 for o in gc.get_objects() if type(o) is pd.DataFrame and len(o) == 54321)
$$, '{}', '{main}', jsonb_build_object('workspace', :'pin')) AS first_inputs_left;
SELECT sandbox_workspace_close(:'pin');
RESET pysandbox.python_layer;

-- JSON's and arrays' values arrive untracked by the collector where they
-- can be in no cycle, so that the full collection after each call does not
-- scan them again (review 130 F1: ~80 ms a call with 120k jsonb rows in
-- ws); a value the code changes stays itself, and a dict given a container
-- is tracked again (CPython's own rule)
SET pysandbox.python_layer = off;
SELECT sandbox_workspace_open() AS trk \gset
SELECT sandbox_execute($$
import gc
def main(ws, t):
    ws["t"] = t
    doc, arr, deep = t.doc[0], t.arr[0], t.deep[0]
    tracked = [gc.is_tracked(doc), gc.is_tracked(doc["tags"]), gc.is_tracked(doc["sub"]),
               gc.is_tracked(arr)]
    inner = deep
    while isinstance(inner, list) and inner and isinstance(inner[0], list):
        inner = inner[0]
    doc["tags"].append(doc["tags"])
    doc["sub"]["back"] = [doc]
    return {"tracked": tracked, "deep_outer": gc.is_tracked(deep),
            "deep_inner": gc.is_tracked(inner), "sub_retracked": gc.is_tracked(doc["sub"]),
            "rows": len(t)}
$$, '{"t": {"$query": "SELECT jsonb_build_object(''tags'', jsonb_build_array(''a'', g), ''sub'', jsonb_build_object(''x'', 1.5)) AS doc, ARRAY[g, g + 1] AS arr, (repeat(''['', 40) || ''1'' || repeat('']'', 40))::jsonb AS deep FROM generate_series(1, 3) g"}}',
    '{main}', jsonb_build_object('workspace', :'trk')) AS untracked;
SELECT sandbox_execute($$
def main(ws):
    return [ws["t"].doc[0]["tags"][:2], ws["t"].doc[1], ws["t"].arr.tolist()]
$$, '{}', '{main}', jsonb_build_object('workspace', :'trk')) AS kept;
SELECT sandbox_workspace_close(:'trk');
RESET pysandbox.python_layer;

-- a call whose inputs do not fit beside what ws holds fails with the memory
-- limit, and the workspace serves on with ws as it was: the child reads the
-- rest of the request to its END (review 134 F6: its frames were read as
-- the next call's, 39000 "sent an invalid message" and the workspace gone)
SELECT sandbox_workspace_open('{"memory_mb": 100}') AS oom \gset
SELECT sandbox_execute('def main(ws):
    ws["kept"] = bytearray(60 * 1024 * 1024)
    return 1', '{}', '{main}', jsonb_build_object('workspace', :'oom')) AS first;
SELECT sandbox_execute('def main(ws, big): return len(big)',
    '{"big": {"$query": "SELECT g AS a, g * 2 AS b, g * 0.5 AS c, md5(g::text) AS d FROM generate_series(1, 1000000) g"}}',
    '{main}', jsonb_build_object('workspace', :'oom')) AS too_big;
SELECT sandbox_execute('def main(ws, small): return [len(ws["kept"]), len(small)]',
    '{"small": {"$query": "SELECT g FROM generate_series(1, 10) g"}}',
    '{main}', jsonb_build_object('workspace', :'oom')) AS served_on;
SELECT sandbox_workspace_close(:'oom');

-- a call that fills the memory limit to its last bytes and catches the
-- MemoryError leaves the workspace room to clean up and to start the next
-- call in (a reserve it frees then), which frees what ws kept (review 140
-- F4: the workspace ended, "a function of that call's code ran between two
-- calls")
SELECT sandbox_workspace_open('{"memory_mb": 100}') AS full \gset
SELECT sandbox_execute('def main(ws):
    keep = []
    for size in (1 << 20, 1 << 14, 1 << 10, 64):
        try:
            while True:
                keep.append(bytearray(size))
        except MemoryError:
            pass
    ws["keep"] = keep
    return len(keep) > 50', '{}', '{main}', jsonb_build_object('workspace', :'full')) AS filled;
SELECT sandbox_execute('def main(ws):
    ws.clear()
    return 1', '{}', '{main}', jsonb_build_object('workspace', :'full')) AS cleared;
SELECT sandbox_execute('def main(ws): return sorted(ws)', '{}', '{main}',
    jsonb_build_object('workspace', :'full')) AS served_on;
SELECT sandbox_workspace_close(:'full');

-- matplotlib's native drawing out of memory (caught by the code or not)
-- leaves the C heap corrupt: the call fails and the workspace ends, saying
-- why (review 155 F1: the next call crashed with signal 6 or 11)
-- (draw_until_oom: large figures left open until drawing runs out; on_oom,
-- what the code does with the MemoryError it catches)
CREATE FUNCTION pg_temp.draw_until_oom(handle text, on_oom text) RETURNS jsonb
LANGUAGE sql AS $f$
SELECT sandbox_run(replace($$
import io, numpy as np, matplotlib.pyplot as plt
def main(ws):
    ws["kept"] = 1
    x = np.random.default_rng(1).uniform(0, 1000, 200000)
    for i in range(6):
        fig = plt.figure(figsize=(20, 20), dpi=100)
        plt.plot(x)
        try:
            fig.savefig(io.BytesIO(), format="png")
        except MemoryError:
            ON_OOM
    return "drawn"
$$, 'ON_OOM', on_oom), '{}', '{main}', jsonb_build_object('workspace', handle))
$f$;
SELECT sandbox_workspace_open('{"memory_mb": 160}') AS drew \gset
SELECT r -> 'error' ->> 'sqlstate' AS sqlstate, r -> 'error' ->> 'message' AS message,
       r -> 'error' ->> 'workspace_ended' IS NOT NULL AS ended
FROM pg_temp.draw_until_oom(:'drew', 'return "caught"') r;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return ws["kept"]', '{}',
    '{main}', '{"workspace": "%s"}')$q$, :'drew'));
-- ... whatever the call does after it (review 156 F2: an exception of its
-- own served on, and the next call took the blame)
SELECT sandbox_workspace_open('{"memory_mb": 160}') AS drew2 \gset
SELECT r -> 'error' ->> 'sqlstate' AS sqlstate, r -> 'error' ->> 'workspace_ended' IS NOT NULL AS ended
FROM pg_temp.draw_until_oom(:'drew2', 'raise RuntimeError("no chart")') r;

-- what dies between calls dies as in a call: the collection between calls
-- runs with the call's guards on and generators' finalizers off, so a
-- suspended generator left in a cycle runs no code of its own then (its
-- finally would have made pandas' read-only codes writeable)
SELECT sandbox_workspace_open() AS fin \gset
SELECT sandbox_execute($$
import pandas as pd
class Holder:
    pass
def gen(ws):
    try:
        yield 1
    finally:
        v = pd.Categorical(["a", "b"]).codes
        try:
            v.flags.writeable = True
            ws["log"].append("made writeable")
        except ValueError as e:
            ws["log"].append(str(e)[:44])
def main(ws):
    ws.setdefault("log", [])
    h = Holder()
    h.me, h.g = h, gen(ws)
    next(h.g)
    return "left a cycle"
$$, '{}', '{main}', jsonb_build_object('workspace', :'fin'));
SELECT sandbox_execute($$
def main(ws):
    return ws["log"]
$$, '{}', '{main}', jsonb_build_object('workspace', :'fin'));
SELECT sandbox_execute($$
import pandas as pd
def main(ws):
    v = pd.Categorical(["a", "b"]).codes
    try:
        v.flags.writeable = True
    except ValueError as e:
        return str(e)[:44]
$$, '{}', '{main}', jsonb_build_object('workspace', :'fin'));
SELECT sandbox_workspace_close(:'fin');

-- a workspace's process reads each call's inputs as it read the first
-- call's, out of the call: the last call's guards refused the decoder's own
-- strided view of a text column of 4,096 rows or more (a second call failed)
SELECT sandbox_workspace_open() AS txt \gset
SELECT sandbox_execute($$
def main(ws, df):
    return [len(df), df.s.nunique()]
$$, '{"df": {"$query": "SELECT ''name '' || (i % 100) AS s FROM generate_series(1, 5000) AS i"}}',
   '{main}', jsonb_build_object('workspace', :'txt')) FROM generate_series(1, 2);
SELECT sandbox_workspace_close(:'txt');

-- the sandbox's logging is made for each call: a class the code patched
-- in one call is not the next call's (and the code patches no library's
-- class now); the class of sys.stdout is not handed out
SELECT sandbox_workspace_open() AS lg \gset
SELECT sandbox_execute($$
import logging
def main(ws):
    logging.LogRecord.getMessage = lambda self: "patched by an earlier call"
    logging.Logger.kept = "from an earlier call"
    return logging.LogRecord("x", 20, "own message", (), None, None).getMessage()
$$, '{}', '{main}', jsonb_build_object('workspace', :'lg'));
SELECT sandbox_execute($$
import io, logging
def main(ws):
    out = io.StringIO()
    logging.basicConfig(stream=out, format="%(message)s")
    logging.warning("second call")
    return [out.getvalue(), hasattr(logging.Logger, "kept")]
$$, '{}', '{main}', jsonb_build_object('workspace', :'lg'));
SELECT sandbox_execute($$
import sys
def main(ws):
    return type(sys.stdout)
$$, '{}', '{main}', jsonb_build_object('workspace', :'lg'));
SELECT sandbox_workspace_close(:'lg');

-- a workspace's process keeps the layers it was contained with: a call
-- under other settings is refused (without the Python layer, its code
-- would also have counted as validated for later calls of the session)
SELECT sandbox_workspace_open() AS lay \gset
SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}',
                       jsonb_build_object('workspace', :'lay'));
SET pysandbox.python_layer = off;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 2', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'lay'));
RESET pysandbox.python_layer;
SET pysandbox.filesystem_layer = mount_namespace;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 3', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'lay'));
RESET pysandbox.filesystem_layer;
SELECT sandbox_execute('def main(ws): return 4', '{}', '{main}',
                       jsonb_build_object('workspace', :'lay'));
SELECT sandbox_workspace_close(:'lay');
-- ... and the modules it imported under the allowlist of its first call:
-- a list changed since would not reach what ws kept (review 157 F2:
-- ws["np"] went on working where import numpy was refused)
SELECT sandbox_workspace_open() AS mods \gset
SELECT sandbox_execute('import numpy as np
def main(ws):
    ws["np"] = np
    return 1', '{}', '{main}', jsonb_build_object('workspace', :'mods'));
SET pysandbox.allowed_modules = 'math';
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return int(ws["np"].arange(5).sum())', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'mods'));
RESET pysandbox.allowed_modules;
SELECT sandbox_execute('def main(ws): return int(ws["np"].arange(5).sum())', '{}', '{main}',
                       jsonb_build_object('workspace', :'mods'));
SELECT sandbox_workspace_close(:'mods');
-- ... and one opened with the layer off never has it back
SET pysandbox.python_layer = off;
SELECT sandbox_workspace_open() AS off \gset
SELECT sandbox_execute('def main(ws): return 5', '{}', '{main}',
                       jsonb_build_object('workspace', :'off'));
RESET pysandbox.python_layer;
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return str((1).__class__)', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'off'));
SELECT sandbox_workspace_close(:'off');
SELECT sandbox_execute($$
def main():
    return str((1).__class__)
$$);

-- a call that replaces json's decoder methods does not get them run on the
-- next call's inputs (read out of the call, with the guards off); since
-- the code changes no library's class, the replacement is refused
SELECT sandbox_workspace_open() AS wsj \gset
SELECT format('{"workspace": "%s"}', :'wsj') AS wsjopt \gset
SELECT sandbox_execute($$
import json
def main(ws):
    seen = []
    real = json.JSONDecoder.raw_decode
    def spy(self, s, idx=0):
        seen.append(s)
        return real(self, s, idx)
    json.JSONDecoder.raw_decode = spy
    ws["seen"] = seen
    return "replaced"
$$, '{}', '{main}', :'wsjopt');
SELECT sandbox_execute($$
def main(ws, t):
    return {"seen": ws.get("seen"), "j": t.j[0]}
$$, '{"t": {"$query": "SELECT jsonb_build_object(''a'', 1) AS j"}}', '{main}', :'wsjopt');
SELECT sandbox_workspace_close(:'wsjopt'::jsonb ->> 'workspace');

-- a library's classes are not changed by the code: a DatetimeArray method
-- replaced in one call ran in the next call's reading of a timestamptz
-- column, out of the call with the guards off.  Instances of pandas'
-- classes keep their methods; properties, new attributes and the code's
-- own classes are set as usual
SELECT sandbox_workspace_open() AS wsc \gset
SELECT format('{"workspace": "%s"}', :'wsc') AS wscopt \gset
SELECT ws_try(format($q$SELECT sandbox_execute($c$
import pandas as pd
def main(ws):
    real = pd.arrays.DatetimeArray.tz_localize
    def spy(*a, **k):
        ws["ran"] = True
        return real(*a, **k)
    pd.arrays.DatetimeArray.tz_localize = spy
    return "replaced"
$c$, '{}', '{main}', %L)::text$q$, :'wscopt'));
SELECT ws_try(format($q$SELECT sandbox_execute($c$
import pandas as pd
def main(ws):
    del pd.DataFrame.head
$c$, '{}', '{main}', %L)::text$q$, :'wscopt'));
SELECT ws_try(format($q$SELECT sandbox_execute($c$
import pandas as pd
def main(ws):
    idx = pd.Index([1, 2])
    idx.get_indexer = lambda target: [10 ** 9]
$c$, '{}', '{main}', %L)::text$q$, :'wscopt'));
SELECT ws_try(format($q$SELECT sandbox_execute($c$
import functools
import pandas as pd
def main(ws):
    functools.total_ordering(pd.Categorical)
$c$, '{}', '{main}', %L)::text$q$, :'wscopt'));
SELECT sandbox_execute($$
import pandas as pd
import matplotlib.pyplot as plt
class Box:
    size = 0
def main(ws, t):
    df = pd.DataFrame({"a": [1, 2]})
    df.columns = ["b"]
    df.index.name = "i"
    df.note = "kept"
    b = Box()
    b.size = 3
    Box.size = 4
    fig, ax = plt.subplots()
    ax.format_coord = lambda x, y: ""
    ws["ran"] = ws.get("ran", False)
    return {"cols": list(df.columns), "index": df.index.name, "note": df.note,
            "sizes": [b.size, Box().size], "ran": ws["ran"], "tz": str(t.t.dt.tz)}
$$, '{"t": {"$query": "SELECT timestamptz ''2026-01-01 00:00+00'' AS t"}}', '{main}', :'wscopt');
SELECT sandbox_workspace_close(:'wsc');

-- pandas' accessor API (a documented change of DataFrame, by pandas'
-- own code and checked) leaves the workspace's next calls their inputs;
-- the accessor is the call's, as everything but ws: the same step run
-- again registers it again, a call that does not finds none
SELECT sandbox_workspace_open() AS wsa \gset
SELECT $$
import pandas as pd
@pd.api.extensions.register_dataframe_accessor("stats")
class Stats:
    def __init__(self, df):
        self.df = df
    def total(self):
        return float(self.df.select_dtypes("number").sum().sum())
def main(ws, df):
    return df.stats.total()
$$ AS stats_code \gset
SELECT sandbox_execute(:'stats_code', '{"df": {"$query": "SELECT 1 AS a, 2.5 AS b"}}', '{main}', jsonb_build_object('workspace', :'wsa'));
SELECT sandbox_execute(:'stats_code', '{"df": {"$query": "SELECT 3 AS a, now() AS t"}}', '{main}', jsonb_build_object('workspace', :'wsa'));
SELECT sandbox_run($$
def main(ws, df):
    return df.stats.total()
$$, '{"df": {"$query": "SELECT 3 AS a"}}', '{main}', jsonb_build_object('workspace', :'wsa'))#>>'{error,message}' AS without_registering;
SELECT sandbox_workspace_close(:'wsa');

-- a workspace's call starts from the libraries' settings its first call
-- found, as a fresh process's call does: what one call sets for the whole
-- process (pandas options, numpy's error and print settings, a seed,
-- warnings filters, decimal's context, matplotlib's registries, calendar)
-- is not the next call's (review 63); ws keeps what is to last
SELECT sandbox_workspace_open() AS wss \gset
SELECT $$
import calendar, decimal, random, warnings
import matplotlib
import numpy as np
import pandas as pd
def main(ws):
    return {"max_rows": pd.get_option("display.max_rows"),
            "float_format": pd.get_option("display.float_format") is None,
            "use_inf_as_na": pd.get_option("mode.use_inf_as_na"),
            "series": str(pd.Series([1.25, float("inf")]).isna().tolist()),
            "seterr": np.geterr()["divide"], "array": repr(np.array([1.23456789])),
            "filters_error": any(f[0] == "error" for f in warnings.filters),
            "prec": decimal.getcontext().prec, "default_prec": decimal.Context().prec,
            "colormap": "mine" in matplotlib.colormaps,
            "firstweekday": calendar.firstweekday(),
            "draws_known": np.random.rand() == ws.get("np_next") or random.random() == ws.get("py_next"),
            "kept": ws.get("kept")}
$$ AS settings_code \gset
SELECT sandbox_execute(:'settings_code', '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS before;
SELECT sandbox_execute($$
import calendar, decimal, random, warnings
import matplotlib
import numpy as np
import pandas as pd
def main(ws):
    pd.set_option("display.max_rows", 3)
    pd.set_option("display.float_format", lambda v: "changed")
    pd.set_option("mode.use_inf_as_na", True)
    np.seterr(all="raise")
    np.set_printoptions(precision=2)
    warnings.simplefilter("error")
    decimal.getcontext().prec = 5
    decimal.DefaultContext.prec = 4
    matplotlib.colormaps.register(matplotlib.colors.ListedColormap(["red", "blue"], name="mine"))
    calendar.setfirstweekday(calendar.SUNDAY)
    # what the next call would draw if the seeds lasted
    np.random.seed(42)
    random.seed(42)
    ws["np_next"] = np.random.RandomState(42).rand(2)[1]
    np.random.rand()
    rng = random.Random(42)
    rng.random()
    ws["py_next"] = rng.random()
    random.random()
    ws["kept"] = "only this"
    return [pd.get_option("display.max_rows"), repr(np.array([1.23456789])), decimal.getcontext().prec]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS changed;
SELECT sandbox_execute(:'settings_code', '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS after;
-- ... numpy's type names, and a catch_warnings() left open in a generator
-- kept in ws (it rebinds warnings' filters and what shows them; its
-- __exit__ never runs: generators' finalizers are off)
SELECT sandbox_execute($$
import warnings
import numpy as np
def catching():
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("ignore")
        yield 1
def main(ws):
    np.sctypeDict.update(float64=np.int8)
    ws["catching"] = catching()
    next(ws["catching"])
    return str(np.dtype("float64"))
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS changed;
SELECT sandbox_run($$
import warnings
import numpy as np
def main(ws):
    warnings.warn("shown")
    return [str(np.dtype("float64")), np.array([2.5]).astype("float64").tolist()]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) #>> '{}' ~ '"stderr": "<sandbox>:5: UserWarning: shown' AS warning_shown,
       sandbox_execute($$
import numpy as np
def main(ws):
    return [str(np.dtype("float64")), np.array([2.5]).astype("float64").tolist()]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS after;
-- nothing of the code's runs while they are put back: calendar's first
-- weekday an int of the code's whose % ran, a key of the code's in
-- matplotlib's units registry that pandas' option callback compared
-- (review 65: both ran between two calls, and undid what was put back)
SELECT sandbox_execute($$
import calendar
import matplotlib.units
import pandas as pd
class Weekday(int):
    def __mod__(self, other):
        LOG.append("weekday")
        pd.set_option("display.max_rows", 3)
        return 0
class Key:
    def __hash__(self):
        return hash(pd.Timestamp)
    def __eq__(self, other):
        LOG.append("key")
        return False
LOG = []
def main(ws):
    ws["log"] = LOG
    calendar.setfirstweekday(Weekday(3))
    matplotlib.units.registry[Key()] = None
    pd.set_option("plotting.matplotlib.register_converters", False)
    del LOG[:]
    return "set"
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS changed;
SELECT sandbox_execute($$
import calendar
import pandas as pd
def main(ws):
    return [ws["log"], calendar.firstweekday(), pd.get_option("display.max_rows")]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS after;
-- ... numpy's global bit generator replaced (the reseed failed on it and
-- ended the workspace), matplotlib's date epoch, dateutil's default
-- parser's day-first reading (review 68)
SELECT sandbox_execute($$
import dateutil.parser
import matplotlib.dates
import numpy as np
def main(ws):
    np.random.set_bit_generator(np.random.PCG64(42))
    matplotlib.dates.set_epoch("2000-01-01")
    dateutil.parser.DEFAULTPARSER.info.dayfirst = True
    return [type(np.random.get_bit_generator()).__name__, matplotlib.dates.get_epoch(),
            str(dateutil.parser.parse("01/02/2024").date())]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS changed;
SELECT sandbox_execute($$
import dateutil.parser
import matplotlib.dates
import numpy as np
def main(ws):
    return [type(np.random.get_bit_generator()).__name__, matplotlib.dates.get_epoch(),
            str(dateutil.parser.parse("01/02/2024").date())]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss')) AS after;
-- a setter whose change numpy keeps in a class is refused
SELECT sandbox_run($$
import numpy as np
def main(ws):
    np.polynomial.set_default_printstyle("unicode")
$$, '{}', '{main}', jsonb_build_object('workspace', :'wss'))#>>'{error,message}' AS printstyle;
SELECT sandbox_workspace_close(:'wss');
-- ... but an accessor registered after another change of the class in the
-- same call does not hide that change from the next call's check (review
-- 41; typing.dataclass_transform's flag was a change the Python layer let
-- through, refused since review 56: made here with the layer off)
SET pysandbox.python_layer = off;
SELECT sandbox_workspace_open() AS wsl \gset
SELECT sandbox_execute($$
import typing
import pandas as pd
def main(ws):
    typing.dataclass_transform()(pd.DataFrame)
    @pd.api.extensions.register_dataframe_accessor("stats")
    class Stats:
        def __init__(self, df):
            self.df = df
    return "registered"
$$, '{}', '{main}', jsonb_build_object('workspace', :'wsl'));
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws, t): return 1', '{"t": {"$query": "SELECT 1 AS a"}}', '{main}', '{"workspace": "%s"}')::text$q$, :'wsl'));
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'wsl')) LIKE '%has ended%' AS ended;
RESET pysandbox.python_layer;

-- with the Python layer off (tests only), such a change is made; the next
-- call's inputs are not read with a changed pandas class (its version tag
-- is not the one the worker recorded), and the workspace ends
SET pysandbox.python_layer = off;
SELECT $$
import pandas as pd
import sb_io
def main(ws, undo_check=False):
    real = pd.arrays.DatetimeArray.tz_localize
    def spy(*a, **k):
        ws["ran"] = True
        return real(*a, **k)
    pd.arrays.DatetimeArray.tz_localize = spy
    if undo_check:
        sb_io.changed_class = lambda: None
    return "replaced"
$$ AS spy_code \gset
SELECT sandbox_workspace_open() AS wsh \gset
SELECT format('{"workspace": "%s"}', :'wsh') AS wshopt \gset
SELECT sandbox_execute(:'spy_code', '{}', '{main}', :'wshopt');
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws, t): return ws.get("ran")', '{"t": {"$query": "SELECT now() AS t"}}', '{main}', %L)::text$q$, :'wshopt'));
-- the process ended after its error: the next call finds it gone, or
-- finds it ending (a race of the test, not of the product)
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return ws.get("ran")', '{}', '{main}', %L)::text$q$, :'wshopt')) LIKE '%has ended%' AS ended;
SELECT count(*) AS open_after_changed_class FROM sandbox_workspace_list() WHERE workspace = :'wsh';
-- ... and when that check is also undone (the layer off gives the code the
-- runtime's own modules), nothing of the code's runs while they are read:
-- its frame is refused as it starts
SELECT sandbox_workspace_open() AS wsf \gset
SELECT format('{"workspace": "%s"}', :'wsf') AS wsfopt \gset
SELECT sandbox_execute(:'spy_code', '{"undo_check": true}', '{main}', :'wsfopt');
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws, t): return ws.get("ran")', '{"t": {"$query": "SELECT now() AS t"}}', '{main}', %L)::text$q$, :'wsfopt'));
-- the process ended after its error: the next call finds it gone, or
-- finds it ending (a race of the test, not of the product)
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return ws.get("ran")', '{}', '{main}', %L)::text$q$, :'wsfopt')) LIKE '%has ended%' AS ended;
SELECT count(*) AS open_after_refused_frame FROM sandbox_workspace_list() WHERE workspace = :'wsf';
-- a generator of the code's resumed by a library callable is refused too,
-- before its except clause could run
SELECT sandbox_workspace_open() AS wsg \gset
SELECT sandbox_execute($$
import functools
import pandas as pd
import sb_io
def main(ws):
    def g():
        while True:
            try:
                yield
            except BaseException:
                ws["caught"] = True
            ws["ran"] = True
    gen = g()
    next(gen)
    pd.arrays.DatetimeArray.tz_localize = property(functools.partial(next, gen))
    sb_io.changed_class = lambda: None
    return "replaced"
$$, '{}', '{main}', jsonb_build_object('workspace', :'wsg'));
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws, t): return [ws.get("ran"), ws.get("caught")]', '{"t": {"$query": "SELECT now() AS t"}}', '{main}', '{"workspace": "%s"}')::text$q$, :'wsg'));
SELECT ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'wsg')) LIKE '%has ended%' AS ended;
RESET pysandbox.python_layer;

-- nothing of the code's runs in the cleaning up between two calls either
-- (a gc callback, possible only with the layer off, wrote a frame there
-- that the next call read as its own print: review 69 L1); the workspace
-- ends, and says why: it could not clean up, or (a collection that ran
-- before the cleaning up, as allocation decides) its process wrote
-- between two calls and was stopped
SET pysandbox.python_layer = off;
SELECT sandbox_workspace_open() AS wsgc \gset
SELECT sandbox_execute($$
import gc
import sys
def main(ws):
    io = sys.modules["sb_io"]
    def late(phase, info):
        if phase == "stop":
            gc.callbacks.remove(late)
            io.send(io.STDOUT, b"late print\n")
    gc.callbacks.append(late)
    return "called"
$$, '{}', '{main}', jsonb_build_object('workspace', :'wsgc'));
SELECT r LIKE '%has ended%' AND r NOT LIKE '%late print%' AND r NOT LIKE 'ok:%' AS ended_and_says_why
FROM ws_try(format($q$SELECT sandbox_execute('def main(ws): return 1', '{}', '{main}', '{"workspace": "%s"}')::text$q$, :'wsgc')) AS r;
RESET pysandbox.python_layer;

-- copy.copy, deepcopy and a grouped resample cache a class's slot names on
-- the class: its next call found a "changed" class and the workspace ended
-- (review 111)
SELECT sandbox_workspace_open() AS wscopy \gset
SELECT sandbox_execute($$
import copy
import pandas as pd
def main(ws):
    df = pd.DataFrame({"d": pd.date_range("2024-01-01", periods=60),
                       "g": ["a", "b"] * 30, "v": range(60)})
    ws["df"] = df
    weekly = df.set_index("d").groupby("g").resample("W")["v"].sum()
    kept = copy.deepcopy({"g": df.groupby("g")}), copy.copy(df["v"].rolling(3))
    return [len(weekly), len(kept)]
$$, '{}', '{main}', jsonb_build_object('workspace', :'wscopy'));
SELECT sandbox_execute('def main(ws): return len(ws["df"])', '{}', '{main}',
                       jsonb_build_object('workspace', :'wscopy'));
SELECT sandbox_workspace_close(:'wscopy');

-- a name an earlier call kept in ws, used as a parameter, a global or an
-- attribute of ws, is pointed at ws["..."], not at loading it again as an
-- input (review 111 F3)
SELECT sandbox_workspace_open() AS wsname \gset
SELECT sandbox_execute('def main(ws): ws["orders"] = [1, 2]; return 1', '{}', '{main}',
                       jsonb_build_object('workspace', :'wsname'));
SELECT sandbox_execute('def main(ws, orders): return len(orders)', '{}', '{main}',
                       jsonb_build_object('workspace', :'wsname'));
SELECT sandbox_execute('def main(ws): return len(orders)', '{}', '{main}',
                       jsonb_build_object('workspace', :'wsname'));
SELECT sandbox_execute('def main(ws): return len(ws.orders)', '{}', '{main}',
                       jsonb_build_object('workspace', :'wsname'));
SELECT sandbox_execute('n = len(ws["orders"])', '{}', '{main}',
                       jsonb_build_object('workspace', :'wsname'));
SELECT sandbox_workspace_close(:'wsname');

-- DISCARD ALL (a pooler's reset) ends every workspace of the session,
-- once PostgreSQL lets it run
SELECT sandbox_workspace_open() IS NOT NULL AS opened;
BEGIN;
DISCARD ALL;
ROLLBACK;
SELECT count(*) AS open_after_refused_discard FROM sandbox_workspace_list();
DISCARD ALL;
SELECT count(*) AS open_after_discard FROM sandbox_workspace_list();

DROP FUNCTION ws_try(text);
DROP OWNED BY regress_pysandbox_ws, regress_pysandbox_ws_other;
DROP ROLE regress_pysandbox_ws;
DROP ROLE regress_pysandbox_ws_other;
