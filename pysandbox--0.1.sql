/* pysandbox--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pysandbox" to load this file. \quit

CREATE FUNCTION sandbox_execute(
    code text,
    inputs jsonb DEFAULT '{}',
    returns text[] DEFAULT '{main}',
    options jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sandbox_execute'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) IS
'run untrusted Python in a sandboxed process and return {function: result} as jsonb';

REVOKE EXECUTE ON FUNCTION sandbox_execute(text, jsonb, text[], jsonb) FROM PUBLIC;

CREATE FUNCTION sandbox_rows(
    code text,
    inputs jsonb DEFAULT '{}',
    func text DEFAULT 'main',
    options jsonb DEFAULT '{}')
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'sandbox_rows'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_rows(text, jsonb, text, jsonb) IS
'run untrusted Python in a sandboxed process and return the rows of its DataFrame; use with a column definition list';

-- The same as above for string literals: without it, a call such as
-- sandbox_rows($$...$$, '{"df": ...}') could not choose between the record
-- form and the typed form below.
CREATE FUNCTION sandbox_rows(
    code text,
    inputs text,
    func text DEFAULT 'main',
    options text DEFAULT '{}')
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'sandbox_rows_text'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_rows(text, text, text, text) IS
'sandbox_rows(code, inputs, func, options) for string-literal arguments; inputs and options are JSON';

CREATE FUNCTION sandbox_rows(
    rowtype anyelement,
    code text,
    inputs jsonb DEFAULT '{}',
    func text DEFAULT 'main',
    options jsonb DEFAULT '{}')
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'sandbox_rows_typed'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_rows(anyelement, text, jsonb, text, jsonb) IS
'run untrusted Python in a sandboxed process and return the rows of its DataFrame as rows of rowtype''s composite type';

REVOKE EXECUTE ON FUNCTION sandbox_rows(text, jsonb, text, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION sandbox_rows(text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION sandbox_rows(anyelement, text, jsonb, text, jsonb) FROM PUBLIC;

CREATE FUNCTION sandbox_run(
    code text,
    inputs jsonb DEFAULT '{}',
    returns text[] DEFAULT '{main}',
    options jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sandbox_run'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_run(text, jsonb, text[], jsonb) IS
'run untrusted Python in a sandboxed process and return a report (ok, returns, stdout, stderr, error, usage) instead of raising for what the code did';

CREATE FUNCTION sandbox_validate(code text)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sandbox_validate'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_validate(text) IS
'check Python code against the sandbox rules without running it: findings with line, column and rule, and the imports used';

REVOKE EXECUTE ON FUNCTION sandbox_run(text, jsonb, text[], jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION sandbox_validate(text) FROM PUBLIC;

CREATE FUNCTION sandbox_layers(OUT layer text, OUT active boolean, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'sandbox_layers'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION sandbox_layers() IS
'the isolation layers of pysandbox and whether each is active on this server';
REVOKE EXECUTE ON FUNCTION sandbox_layers() FROM PUBLIC;
