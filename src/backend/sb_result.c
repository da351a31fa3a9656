/*
 * sb_result.c
 *		Turn what the child sent and how it ended into jsonb, notices or a
 *		PostgreSQL error with the SQLSTATE of SPEC 3.
 *
 * Every byte here came from the sandbox: texts are checked to be valid
 * UTF-8 without NULs and JSON is validated by PostgreSQL's own parser
 * before anything reads it.  How the child ended comes from the worker
 * (wait status), which the child cannot forge; which system call was
 * blocked comes from the child and is only shown, never trusted.
 */
#include "pysandbox.h"

#include <limits.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

/* Is text (len bytes) valid UTF-8 with no NUL bytes? */
static bool
sb_text_ok(const char *text, Size len)
{
	return memchr(text, '\0', len) == NULL &&
		pg_verify_mbstr(PG_UTF8, text, (int) len, true);
}

/* Is text valid JSON (by PostgreSQL's parser, without raising)? */
static bool
sb_json_ok(char *text, Size len)
{
	JsonLexContext *lex;
	JsonSemAction sem;

	if (!sb_text_ok(text, len))
		return false;
	memset(&sem, 0, sizeof(sem));
	lex = makeJsonLexContextCstringLen(text, (int) len, PG_UTF8, true);
	return pg_parse_json(lex, &sem) == JSON_SUCCESS;
}

/* Relay one print() call as a NOTICE (invalid text from the child is dropped). */
void
sb_emit_print(const char *text, Size len)
{
	char	   *s;

	if (len > 0 && text[len - 1] == '\n')
		len--;
	if (!sb_text_ok(text, len))
		return;
	s = pg_any_to_server(text, (int) len, PG_UTF8);
	if (s == text)
		s = pnstrdup(text, len);
	ereport(NOTICE, errmsg_internal("%s", s));
}

/* A string member of a validated JSON object, or NULL. */
static char *
sb_json_string(Jsonb *jb, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&jb->root, key, strlen(key), NULL);

	if (v == NULL || v->type != jbvString)
		return NULL;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* An integer member of a validated JSON object, or -1. */
static int
sb_json_int(Jsonb *jb, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&jb->root, key, strlen(key), NULL);
	double		d;

	if (v == NULL || v->type != jbvNumeric)
		return -1;
	d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(v->val.numeric)));
	return (d >= 0 && d < INT_MAX) ? (int) d : -1;
}

/* Keep a system call name printable: [a-z0-9_] only. */
static const char *
sb_syscall_name(const SbViolation *v)
{
	const char *p;

	if (v->name[0] == '\0')
		return psprintf("number %d", v->syscall_nr);
	for (p = v->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return psprintf("number %d", v->syscall_nr);
	return v->name;
}

/* Raise the error the child reported in its ERROR frame. */
static void
sb_raise_child_error(const SbOutcome *out, const SbLimits *limits)
{
	Jsonb	   *err;
	char	   *kind,
			   *type,
			   *message,
			   *traceback,
			   *rule;
	int			line,
				col;

	if (!sb_json_ok(out->error, out->error_len))
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process sent an invalid error report")));
	err = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(
															pg_any_to_server(out->error, (int) out->error_len, PG_UTF8))));
	if (!JB_ROOT_IS_OBJECT(err))
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process sent an invalid error report")));

	kind = sb_json_string(err, "kind");
	type = sb_json_string(err, "type");
	message = sb_json_string(err, "message");
	traceback = sb_json_string(err, "traceback");
	rule = sb_json_string(err, "rule");
	line = sb_json_int(err, "line");
	col = sb_json_int(err, "col");
	if (kind == NULL)
		kind = "crash";
	if (type == NULL)
		type = "Error";
	if (message == NULL)
		message = "";

	if (strcmp(kind, "exception") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 message[0] ? errmsg_internal("%s: %s", type, message) : errmsg_internal("%s", type),
				 traceback ? errdetail_internal("Traceback (most recent call last):\n%s", traceback) : 0,
				 line > 0 ? errcontext("sandbox code, line %d", line) : 0));
	if (strcmp(kind, "validation") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg_internal("%s", message),
				 errdetail("Rejected at line %d, column %d by rule \"%s\"; the code did not run.",
						   line, col, rule ? rule : "?")));
	if (strcmp(kind, "syntax") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg_internal("syntax error in sandbox code: %s", message),
				 line > 0 ? errdetail("At line %d, column %d.", line, col) : 0));
	if (strcmp(kind, "memory") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("sandbox code exceeded its memory limit of %d MB", limits->memory_mb),
				 traceback ? errdetail_internal("Traceback (most recent call last):\n%s", traceback) : 0,
				 errhint("Filter or aggregate in the input query so less data reaches Python, or ask an administrator to raise pysandbox.memory_limit.")));
	if (strcmp(kind, "output") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("sandbox output exceeded the limit of %d bytes", limits->max_output_bytes),
				 errdetail_internal("%s", message),
				 errhint("Return an aggregate instead of raw rows, or print less.")));
	if (strcmp(kind, "rows") == 0)
	{
		char	   *state = sb_json_string(err, "sqlstate");

		ereport(ERROR,
				(errcode(state && strcmp(state, "42703") == 0 ?
						 ERRCODE_UNDEFINED_COLUMN : ERRCODE_DATATYPE_MISMATCH),
				 errmsg_internal("%s", message),
				 errhint("Return a DataFrame (or a list of dicts or tuples) whose columns match the column definition list.")));
	}
	if (strcmp(kind, "setup") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not set up the sandbox"),
				 errdetail_internal("%s", message)));
	ereport(ERROR,
			(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
			 errmsg("sandbox process failed"),
			 errdetail_internal("%s", message)));
}

/*
 * Judge how a call ended: return if the child exited cleanly without
 * reporting an error, or raise the error that says what went wrong.
 */
void
sb_check_outcome(const SbOutcome *out, const SbLimits *limits)
{
	const SbExitReport *ex = &out->exit;
	int			st = ex->wait_status;
	uint64		cpu_ms = (ex->user_us + ex->sys_us) / 1000;

	if (out->protocol_error)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process sent an invalid message"),
				 errdetail("The process was stopped; its output was discarded.")));
	if (out->worker_lost)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker stopped responding"),
				 errhint("The worker was restarted; try again.")));
	if (ex->cause == SB_EXIT_TIMEOUT)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("sandbox code exceeded the wall-clock limit of %d ms", limits->timeout_ms),
				 errhint("Make the code faster or give it less data; an administrator can raise pysandbox.timeout.")));
	if (out->output_exceeded)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("sandbox output exceeded the limit of %d bytes", limits->max_output_bytes),
				 errhint("Return an aggregate instead of raw rows, or print less.")));
	if (out->violation && WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_VIOLATION)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("sandbox code attempted a blocked system call: %s",
						sb_syscall_name(&out->violation_info)),
				 errdetail("The sandbox does not allow access to files, the network, other processes or new programs."),
				 errhint("Compute with the inputs you were given; pass more data through inputs instead.")));
	if (WIFSIGNALED(st))
	{
		int			sig = WTERMSIG(st);

		if (sig == SIGPROF || sig == SIGXCPU ||
			(sig == SIGKILL && cpu_ms + 50 >= (uint64) limits->cpu_ms))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("sandbox code exceeded the CPU time limit of %d ms", limits->cpu_ms),
					 errhint("Use vectorised pandas operations instead of Python loops, or give it less data.")));
		/* SIGSYS with signals blocked (e.g. inside system()) or another ABI */
		if (sig == SIGSYS)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("sandbox code attempted a blocked system call"),
					 errdetail("The sandbox does not allow access to files, the network, other processes or new programs."),
					 errhint("Compute with the inputs you were given; pass more data through inputs instead.")));
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process crashed: killed by signal %d (%s)", sig, strsignal(sig)),
				 errhint("Native code in numpy or pandas failed; this often means memory ran out or data was invalid.")));
	}

	if (out->error)
		sb_raise_child_error(out, limits);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != SB_CHILD_EXIT_OK)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process exited with code %d without a result",
						WIFEXITED(st) ? WEXITSTATUS(st) : -1)));
}

/* The result of sandbox_execute as jsonb, or the error of the call. */
Jsonb *
sb_result_to_jsonb(const SbOutcome *out, const SbLimits *limits)
{
	sb_check_outcome(out, limits);
	if (out->result == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process ended without a result")));
	if (!sb_json_ok(out->result, out->result_len))
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process sent an invalid result")));

	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(
																		pg_any_to_server(out->result, (int) out->result_len, PG_UTF8))));
}
