/* pysandbox--0.1--0.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pysandbox UPDATE TO '0.2'" to load this file. \quit

-- LANGUAGE pysandbox: a trusted procedural language on the same sandbox
CREATE FUNCTION pysandbox_call_handler()
RETURNS language_handler
AS 'MODULE_PATHNAME', 'pysandbox_call_handler'
LANGUAGE C;

COMMENT ON FUNCTION pysandbox_call_handler() IS
'call handler of LANGUAGE pysandbox: runs a function''s body in a sandboxed process';

CREATE FUNCTION pysandbox_inline_handler(internal)
RETURNS void
AS 'MODULE_PATHNAME', 'pysandbox_inline_handler'
LANGUAGE C STRICT;

COMMENT ON FUNCTION pysandbox_inline_handler(internal) IS
'inline handler of LANGUAGE pysandbox: runs a DO block in a sandboxed process';

CREATE FUNCTION pysandbox_validator(oid)
RETURNS void
AS 'MODULE_PATHNAME', 'pysandbox_validator'
LANGUAGE C STRICT;

COMMENT ON FUNCTION pysandbox_validator(oid) IS
'validator of LANGUAGE pysandbox: checks a function''s arguments and, with check_function_bodies, its body';

CREATE TRUSTED LANGUAGE pysandbox
    HANDLER pysandbox_call_handler
    INLINE pysandbox_inline_handler
    VALIDATOR pysandbox_validator;

COMMENT ON LANGUAGE pysandbox IS
'Python (pandas) in a sandboxed process: trusted, for roles granted USAGE';

-- like EXECUTE on sandbox_execute, USAGE is for the roles an administrator names
REVOKE USAGE ON LANGUAGE pysandbox FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pysandbox_call_handler() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pysandbox_inline_handler(internal) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pysandbox_validator(oid) FROM PUBLIC;

-- sandbox_describe: what the inputs of a call would be in Python, without
-- running any: columns, SQL types, pandas dtypes, nullability, the row
-- estimate and a few rows, read as the calling role
CREATE FUNCTION sandbox_describe(inputs jsonb, options jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sandbox_describe'
LANGUAGE C VOLATILE;

COMMENT ON FUNCTION sandbox_describe(jsonb, jsonb) IS
'describe the inputs of a sandbox call ($table, $query, plain values) as Python will see them, without running Python';
REVOKE EXECUTE ON FUNCTION sandbox_describe(jsonb, jsonb) FROM PUBLIC;

-- workspaces: a contained process kept for one session and role across
-- calls (options => '{"workspace": <handle>}'), where the dict passed as
-- the parameter ws lasts from one call to the next
CREATE FUNCTION sandbox_workspace_open(options jsonb DEFAULT '{}')
RETURNS text
AS 'MODULE_PATHNAME', 'sandbox_workspace_open'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION sandbox_workspace_close(workspace text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'sandbox_workspace_close'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION sandbox_workspace_list(
    OUT workspace text, OUT opened timestamptz, OUT last_used timestamptz,
    OUT calls bigint, OUT running boolean, OUT memory_kb bigint,
    OUT timeout_ms integer, OUT cpu_ms integer, OUT memory_mb integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'sandbox_workspace_list'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_workspace_open(jsonb) IS
'open a workspace: calls naming it run in one contained process, where the parameter ws is a dict that lasts across them';
COMMENT ON FUNCTION sandbox_workspace_close(text) IS
'close a workspace of this session (its process ends); false if there is none of that handle';
COMMENT ON FUNCTION sandbox_workspace_list() IS
'the workspaces this role has open in this session';
REVOKE EXECUTE ON FUNCTION sandbox_workspace_open(jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION sandbox_workspace_close(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION sandbox_workspace_list() FROM PUBLIC;

-- statistics per (role, database, code) and the calls running now: kept in
-- shared memory, so they need pysandbox in shared_preload_libraries.  Every
-- role may read them; a role without pg_read_all_stats sees only its own.
CREATE FUNCTION pysandbox_stat(
    OUT userid oid, OUT dbid oid, OUT code_id bigint, OUT funcoid oid,
    OUT calls bigint,
    OUT ok bigint, OUT validation bigint, OUT exception bigint, OUT timeout bigint,
    OUT cpu bigint, OUT memory bigint, OUT output bigint, OUT violation bigint,
    OUT crash bigint, OUT input bigint, OUT busy bigint,
    OUT total_wall_ms double precision, OUT mean_wall_ms double precision,
    OUT max_wall_ms double precision, OUT total_cpu_ms double precision,
    OUT max_peak_memory_kb bigint, OUT rows_in bigint, OUT bytes_in bigint,
    OUT bytes_out bigint, OUT first_call timestamptz, OUT last_call timestamptz,
    OUT code text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pysandbox_stat'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW pysandbox_stat AS SELECT * FROM pysandbox_stat();
GRANT SELECT ON pysandbox_stat TO PUBLIC;

CREATE FUNCTION pysandbox_stat_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'pysandbox_stat_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
REVOKE EXECUTE ON FUNCTION pysandbox_stat_reset() FROM PUBLIC;

CREATE FUNCTION pysandbox_activity(
    OUT pid integer, OUT userid oid, OUT dbid oid, OUT code_id bigint,
    OUT funcoid oid, OUT child_pid integer, OUT started timestamptz,
    OUT cpu_ms double precision, OUT state text, OUT state_change timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pysandbox_activity'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW pysandbox_activity AS SELECT * FROM pysandbox_activity();
GRANT SELECT ON pysandbox_activity TO PUBLIC;

COMMENT ON VIEW pysandbox_stat IS
'sandbox calls counted per role, database and code (needs pysandbox in shared_preload_libraries)';
COMMENT ON FUNCTION pysandbox_stat_reset() IS
'forget every entry of pysandbox_stat';
COMMENT ON VIEW pysandbox_activity IS
'sandbox calls running now and children held idle between calls, cluster-wide (needs pysandbox in shared_preload_libraries)';

-- a NULL argument is an error naming it (22004) in every function, as it
-- was already in sandbox_rows and sandbox_describe: a STRICT function gave
-- NULL without a word
ALTER FUNCTION sandbox_execute(text, jsonb, text[], jsonb) CALLED ON NULL INPUT;
ALTER FUNCTION sandbox_run(text, jsonb, text[], jsonb) CALLED ON NULL INPUT;
ALTER FUNCTION sandbox_validate(text) CALLED ON NULL INPUT;
