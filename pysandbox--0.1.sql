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
