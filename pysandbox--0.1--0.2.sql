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
