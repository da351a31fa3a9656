/*
 * sb_result.c
 *		Turn what the child sent and how it ended into jsonb, notices or a
 *		PostgreSQL error with the SQLSTATE of the README's Errors table.
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
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

/* What joins a text to a sentence after it: nothing, a space, or ". " */
static const char *
sb_sentence_gap(const char *text)
{
	size_t		n = text ? strlen(text) : 0;

	if (n == 0)
		return "";
	return strchr(".!?", text[n - 1]) ? " " : ". ";
}

/* Is text (len bytes) valid UTF-8 with no NUL bytes? */
bool
sb_text_ok(const char *text, Size len)
{
	return memchr(text, '\0', len) == NULL &&
		pg_verify_mbstr(PG_UTF8, text, (int) len, true);
}

/*
 * In a PG_CATCH block (cxt: the PG_TRY's memory context): the error a
 * conversion to the server encoding raises for a character the encoding
 * lacks (22P05) is flushed; any other goes on.
 */
void
sb_catch_untranslatable(MemoryContext cxt)
{
	ErrorData  *e;

	MemoryContextSwitchTo(cxt);
	e = CopyErrorData();
	if (e->sqlerrcode != ERRCODE_UNTRANSLATABLE_CHARACTER)
		PG_RE_THROW();
	FreeErrorData(e);
	FlushErrorState();
}

/* Convert UTF-8 text, or NULL if the server encoding lacks one of its characters. */
char *
sb_try_to_server(const char *text, int len)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *volatile res = NULL;

	PG_TRY();
	{
		res = pg_any_to_server(text, len, PG_UTF8);
	}
	PG_CATCH();
	{
		sb_catch_untranslatable(cxt);
		res = NULL;
	}
	PG_END_TRY();
	return res;
}

/*
 * Valid UTF-8 text from the child (len bytes) in the server encoding, for
 * what describes a call: prints, captured output, error reports.  In a
 * database whose encoding lacks one of its characters (LATIN1 has no "€")
 * that character becomes "?", rather than an error that would end the
 * call or sandbox_run's report.  Values (results, rows) still fail, as
 * any SQL value that cannot be held.
 */
char *
sb_to_server_lossy(const char *text, Size len)
{
	StringInfoData buf;
	char	   *s;
	Size		i = 0;

	if (GetDatabaseEncoding() == PG_UTF8 || GetDatabaseEncoding() == PG_SQL_ASCII)
		return pg_any_to_server(text, (int) len, PG_UTF8);
	s = sb_try_to_server(text, (int) len);
	if (s != NULL)
		return s;
	initStringInfo(&buf);
	while (i < len)
	{
		int			n = pg_utf_mblen((const unsigned char *) text + i);
		char	   *c;

		/* a character at a time, each lacking one an error caught: cancel may come */
		CHECK_FOR_INTERRUPTS();

		if (n <= 1 || i + n > len)
		{
			appendStringInfoChar(&buf, text[i]);
			i++;
			continue;
		}
		c = sb_try_to_server(text + i, n);
		if (c != NULL)
			appendStringInfoString(&buf, c);
		else
			appendStringInfoChar(&buf, '?');
		i += n;
	}
	return buf.data;
}

/*
 * Text the child wrote, made safe to show in a terminal: psql writes a
 * NOTICE's or an error's text as it is, and a control character in it is
 * an instruction to the terminal of the person who ran the call (ESC
 * sequences clear the screen, set its title, write the clipboard; a CR
 * writes over what was shown).  Each C0 control but newline and tab, DEL,
 * and the C1 controls (U+0080..U+009F in UTF-8, and in SQL_ASCII, which
 * passes the child's UTF-8 on; bytes 0x80..0x9F in the ISO 8859 encodings)
 * become "\x1b" as Python writes them; in UTF-8 the bidirectional
 * formatting characters too (U+202A..U+202E, U+2066..U+2069, U+200E,
 * U+200F, U+061C: an override shows the text after it reversed, so an error could
 * read as another), as "\u202e".  Values (results, rows) are data and stay
 * as they are.  Returns s itself when it holds none.
 */
char *
sb_printable(const char *s)
{
	StringInfoData buf;
	int			enc = GetDatabaseEncoding();

	/* C1 in UTF-8 (SQL_ASCII passes the child's UTF-8 on), or as a byte */
	bool		utf8 = enc == PG_UTF8 || enc == PG_SQL_ASCII;
	bool		iso8859 = (enc >= PG_LATIN1 && enc <= PG_LATIN10) ||
		(enc >= PG_ISO_8859_5 && enc <= PG_ISO_8859_8);
	const unsigned char *p;

#define SB_C0(c)	(((c) < 0x20 && (c) != '\n' && (c) != '\t') || (c) == 0x7f)
#define SB_C1(p)	((utf8 && (p)[0] == 0xc2 && (p)[1] >= 0x80 && (p)[1] <= 0x9f) || \
					 (iso8859 && (p)[0] >= 0x80 && (p)[0] <= 0x9f))
	/* (p[1] is not NUL when p[0] is 0xe2 and p[1] 0x80 or 0x81) */
#define SB_BIDI(p)	(utf8 && (((p)[0] == 0xe2 && \
					  (((p)[1] == 0x80 && (((p)[2] >= 0xaa && (p)[2] <= 0xae) || \
										   (p)[2] == 0x8e || (p)[2] == 0x8f)) || \
					   ((p)[1] == 0x81 && (p)[2] >= 0xa6 && (p)[2] <= 0xa9))) || \
					 ((p)[0] == 0xd8 && (p)[1] == 0x9c)))
	for (p = (const unsigned char *) s; *p; p++)
		if (SB_C0(*p) || SB_C1(p) || SB_BIDI(p))
			break;
	if (*p == '\0')
		return (char *) s;
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, s, (const char *) p - s);
	for (; *p; p++)
	{
		if (SB_C0(*p))
			appendStringInfo(&buf, "\\x%02x", *p);
		else if (SB_C1(p))
		{
			if (utf8)
				p++;
			appendStringInfo(&buf, "\\x%02x", *p);
		}
		else if (SB_BIDI(p) && p[0] == 0xd8)
		{
			appendStringInfoString(&buf, "\\u061c");	/* ARABIC LETTER MARK */
			p += 1;
		}
		else if (SB_BIDI(p))
		{
			appendStringInfo(&buf, "\\u%04x",
							 ((p[0] & 0x0f) << 12) | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f));
			p += 2;
		}
		else
			appendStringInfoChar(&buf, (char) *p);
	}
#undef SB_C0
#undef SB_C1
#undef SB_BIDI
	return buf.data;
}

/*
 * An error about a value the child sent (a type's input function quotes
 * it: invalid input syntax for type inet: "..."), made printable as the
 * child's own texts are before it is raised again.
 */
void
sb_error_printable(ErrorData *edata)
{
	if (edata->message)
		edata->message = sb_printable(edata->message);
	if (edata->detail)
		edata->detail = sb_printable(edata->detail);
	if (edata->detail_log)
		edata->detail_log = sb_printable(edata->detail_log);
	if (edata->hint)
		edata->hint = sb_printable(edata->hint);
	if (edata->context)
		edata->context = sb_printable(edata->context);
	if (edata->internalquery)
		edata->internalquery = sb_printable(edata->internalquery);
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
	s = sb_to_server_lossy(text, len);
	if (s == text)
		s = pnstrdup(text, len);
	ereport(NOTICE, errmsg_internal("%s", sb_printable(s)));
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

/*
 * The SQLSTATE an uncaught SQLError ends the call with: the one its query
 * of sql() was answered with, as PL/Python's spiexceptions keep theirs, if
 * the backend really gave this call that code (the child's word alone
 * could claim any, 57014 or 40001 to a caller that retries); else
 * external_routine_exception, as for any exception.
 */
static int
sb_sql_error_code(const SbOutcome *out, Jsonb *err, const char *type)
{
	char	   *claimed = sb_json_string(err, "sqlstate");

	if (claimed != NULL && type != NULL && strcmp(type, "SQLError") == 0 &&
		strlen(claimed) == 5 && strspn(claimed, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5)
	{
		int			code = MAKE_SQLSTATE(claimed[0], claimed[1], claimed[2],
										 claimed[3], claimed[4]);

		for (int i = 0; i < out->n_sql_errcodes; i++)
			if (out->sql_errcodes[i] == code)
				return code;
	}
	return ERRCODE_EXTERNAL_ROUTINE_EXCEPTION;
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

/* Fill f as one failure; the helpers below keep the table readable. */
static void
sb_fail(SbFailure *f, int sqlstate, const char *kind, char *message,
		char *detail, char *hint)
{
	f->sqlstate = sqlstate;
	f->kind = kind;
	f->message = message;
	f->detail = detail;
	f->hint = hint;
}

#define SB_NO_ACCESS_DETAIL \
	"The sandbox does not allow access to files, the network, other processes or new programs."
#define SB_NO_ACCESS_HINT \
	"Compute with the inputs you were given; pass more data through inputs instead."
#define SB_OUTPUT_HINT "Return an aggregate instead of raw rows, or print less."

/*
 * Where a limit stopped the code, if the child said (SB_DATA_WHERE, its
 * claim: a line and a checked name): the line as an exception's is given.
 */
static void
sb_fail_where(const SbOutcome *out, SbFailure *f)
{
	if (out->where_line <= 0)
		return;
	f->line = out->where_line;
	f->detail = out->where_function[0] ?
		psprintf("It was stopped at line %d, in %s().", out->where_line, out->where_function) :
		psprintf("It was stopped at line %d.", out->where_line);
	f->context = psprintf("sandbox code, line %d", out->where_line);
	/* sandbox_run's report: as an exception's traceback would say it */
	f->traceback = out->where_function[0] ?
		psprintf("  line %d, in %s", out->where_line, out->where_function) :
		psprintf("  line %d", out->where_line);
}

static void
sb_fail_cpu(const SbOutcome *out, const SbLimits *limits, SbFailure *f)
{
	sb_fail(f, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "cpu",
			psprintf("sandbox code exceeded the CPU time limit of %d ms", limits->cpu_ms),
			NULL, sb_limit_hint("Use vectorised pandas operations instead of Python loops, or give it less data",
								limits, SB_LIMIT_CPU));
	sb_fail_where(out, f);
}

/* Describe the error the child reported in its ERROR frame. */
static void
sb_child_failure(const SbOutcome *out, const SbLimits *limits, SbFailure *f)
{
	Jsonb	   *err = NULL;
	char	   *kind;
	char	   *message;

	/* a NUL in a message is shown as "\x00", as in prints */
	Size		error_len = out->error_len;
	char	   *error = out->error && error_len > 0 ?
		sb_json_nul_shown(out->error, &error_len) : out->error;

	if (sb_json_ok(error, error_len))
	{
		/* in another server encoding the converted text has its own length */
		char	   *text = sb_to_server_lossy(error, error_len);
		Size		len = text == error ? error_len : strlen(text);

		err = sb_jsonb_build_lossy(text, len, sb_jsonb_limit(len));
	}
	if (err == NULL || !JB_ROOT_IS_OBJECT(err))
	{
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process sent an invalid error report", NULL, NULL);
		return;
	}

	kind = sb_json_string(err, "kind");
	f->type = sb_json_string(err, "type");
	message = sb_json_string(err, "message");
	f->traceback = sb_json_string(err, "traceback");
	f->rule = sb_json_string(err, "rule");
	{
		JsonbValue *findings = getKeyJsonValueFromContainer(&err->root, "findings", 8, NULL);

		if (findings != NULL && findings->type == jbvBinary)
			f->findings = JsonbToCString(NULL, findings->val.binary.data,
										 findings->val.binary.len);
	}
	f->line = sb_json_int(err, "line");
	f->col = sb_json_int(err, "col");
	if (kind == NULL)
		kind = "crash";
	if (f->type == NULL)
		f->type = "Error";
	if (message == NULL)
		message = "";
	f->report_message = message;

	if (strcmp(kind, "exception") == 0)
	{
		sb_fail(f, sb_sql_error_code(out, err, f->type), "exception",
				message[0] ? psprintf("%s: %s", f->type, message) : pstrdup(f->type),
				f->traceback ? psprintf("Traceback (most recent call last):\n%s", f->traceback) : NULL,
				NULL);
		if (f->line > 0)
		{
			char	   *where = sb_json_string(err, "where");

			f->context = psprintf("%s, line %d",
								  where && strcmp(where, "verify") == 0 ?
								  "options.verify" : "sandbox code", f->line);
		}
	}
	else if (strcmp(kind, "arguments") == 0)
		sb_fail(f, ERRCODE_INVALID_PARAMETER_VALUE, "input", message, NULL, NULL);
	else if (strcmp(kind, "validation") == 0)
		sb_fail(f, ERRCODE_INSUFFICIENT_PRIVILEGE, "validation", message,
				psprintf("Rejected at line %d, column %d by rule \"%s\"; the code did not run.",
						 f->line, f->col, f->rule ? f->rule : "?"),
				sb_json_string(err, "hint"));
	else if (strcmp(kind, "syntax") == 0)
		sb_fail(f, ERRCODE_SYNTAX_ERROR, "validation",
				psprintf("syntax error in sandbox code: %s", message),
				f->line > 0 ? psprintf("At line %d, column %d.", f->line, f->col) : NULL,
				sb_json_string(err, "hint"));
	else if (strcmp(kind, "memory") == 0)
	{
		/*
		 * the traceback where the code ran out; else the child's word of
		 * where (its inputs did not fit), which the message does not say
		 */
		char	   *detail = NULL;
		char	   *hint = sb_json_string(err, "hint");

		if (strncmp(message, "out of memory while ", 20) == 0)
			detail = psprintf("Out of memory while %s.", message + 20);
		if (f->traceback)
			detail = psprintf("%s%sTraceback (most recent call last):\n%s",
							  detail ? detail : "", detail ? "\n" : "", f->traceback);
		/* where drawing ran out, the child's hint: smaller figures */
		sb_fail(f, ERRCODE_OUT_OF_MEMORY, "memory",
				psprintf("sandbox code exceeded its memory limit of %d MB", limits->memory_mb),
				detail,
				hint != NULL ? sb_limit_hint(hint, limits, SB_LIMIT_MEMORY) :
				sb_limit_hint(limits->workspace != NULL ?
							  "Filter or aggregate in the input query so less data reaches Python, or free what ws keeps and no longer needs (del ws[\"name\"]): it counts against the same limit" :
							  "Filter or aggregate in the input query so less data reaches Python",
							  limits, SB_LIMIT_MEMORY));
	}
	else if (strcmp(kind, "output") == 0)
	{
		/* figures left open say so: the child's hint (review 155 F3) */
		char	   *hint = sb_json_string(err, "hint");

		sb_fail(f, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "output",
				psprintf("sandbox output exceeded the limit of %d bytes", limits->max_output_bytes),
				message, hint != NULL ? hint : SB_OUTPUT_HINT);
	}
	else if (strcmp(kind, "rows") == 0)
	{
		char	   *state = sb_json_string(err, "sqlstate");
		char	   *shape = sb_json_string(err, "shape");
		char	   *value_hint = sb_json_string(err, "hint");

		/*
		 * a value that does not fit its column says how to convert it; the
		 * child names one of these SQLSTATEs, no other
		 */
		sb_fail(f, state == NULL ? ERRCODE_DATATYPE_MISMATCH :
				strcmp(state, "42703") == 0 ? ERRCODE_UNDEFINED_COLUMN :
				strcmp(state, "42702") == 0 ? ERRCODE_AMBIGUOUS_COLUMN :
				strcmp(state, "22003") == 0 ? ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE :
				strcmp(state, "2F005") == 0 ? ERRCODE_S_R_E_FUNCTION_EXECUTED_NO_RETURN_STATEMENT :
				strcmp(state, "22P02") == 0 ? ERRCODE_INVALID_TEXT_REPRESENTATION :
				ERRCODE_DATATYPE_MISMATCH,
				"exception", message, NULL,
				value_hint != NULL ? value_hint :
				shape == NULL ?
				"Return a DataFrame (or a list of dicts or tuples) whose columns match the column definition list." :
				strcmp(shape, "scalar") == 0 ?
				"Return one value of the function's result type, or None for NULL." :
				strcmp(shape, "composite") == 0 ?
				"Return one row of the function's result type: a dict (by column name), a tuple or namedtuple, a Series, or None for NULL." :
				strcmp(shape, "setof_scalar") == 0 ?
				"Return the set's values: yield them, or return a list, a Series or a one-column DataFrame." :
				"Return the set's rows: yield them, or return a list of dicts or tuples, or a DataFrame whose columns match the result's.");
	}
	else if (strcmp(kind, "setup") == 0 && !(out->exit.flags & SB_EXIT_CONTAINED) &&
			 WIFEXITED(out->exit.wait_status) &&
			 WEXITSTATUS(out->exit.wait_status) == SB_CHILD_EXIT_SETUP)
		sb_fail(f, ERRCODE_SYSTEM_ERROR, NULL, "could not set up the sandbox", message, NULL);
	else if (strcmp(kind, "setup") == 0)
	{
		/* the worker saw its filter on: user code wrote this report */
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process sent an invalid error report",
				"It reported a failure to set up the sandbox after it had been set up.", NULL);
		f->report_message = f->message;
	}
	else
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process failed", message, NULL);
}

/*
 * The hint for new executable memory (a blocked mmap or mprotect): most
 * often a module loading native code that the worker did not preload.
 * Which module the backend does not know: with preloaded packages, code
 * that does not name one gets none, and any other module is the
 * administrator's to add (review 120 F3); a change of preload_modules made
 * since the worker read it is said (review 117 F6).
 */
static char *
sb_native_hint(const SbOutcome *out)
{
	const char *preloaded = sb_sandbox_preloaded();
	const char *change = sb_preload_change();
	char	   *when = change == NULL ? "" :
		psprintf(" (a change to it made already takes effect %s)", change);

	if (preloaded[0] && !out->preloaded)
		return psprintf("A module that loads native code, or that pandas loads on demand (such as scipy for some interpolation methods), can be used only if the worker preloads it, and only by code that names it: this server preloads %s, so import the package by name (for example \"import %.*s\"); an administrator can add any other module to pysandbox.preload_modules%s.",
						preloaded, (int) strcspn(preloaded, ".,"), preloaded, when);
	return psprintf("A module that loads native code, or that pandas loads on demand (such as scipy for some interpolation methods), can be used only if the worker preloads it: an administrator can add it to pysandbox.preload_modules%s.",
					when);
}

/*
 * Judge how a call ended.  Returns false if the child exited cleanly without
 * reporting an error; otherwise fills f with what went wrong.  f->kind is
 * the report kind of sandbox_run, or NULL for server faults, which are
 * always raised.
 */
bool
sb_outcome_failure(const SbOutcome *out, const SbLimits *limits, SbFailure *f)
{
	const SbExitReport *ex = &out->exit;
	int			st = ex->wait_status;
	uint64		cpu_ms = (ex->user_us + ex->sys_us) / 1000;

	/*
	 * The CPU timer (sb_contain.c, sb_io.c) fires at the limit or later, and
	 * the worker measures the time, not the child: an exit code or a signal
	 * the child can give itself names the limit only when the time is spent
	 * (a fifth of it, at most 50 ms, for the kernel's and the worker's clocks
	 * reading apart: a fixed 50 ms let a child of a 50 ms limit say so at
	 * once, review 50).
	 */
	uint64		cpu_slack = Min((uint64) limits->cpu_ms / 5, 50);
	bool		cpu_at_limit = cpu_ms + cpu_slack >= (uint64) limits->cpu_ms;

	memset(f, 0, sizeof(*f));
	if (out->complete)
		return false;			/* a whole result: how the child ended is moot */
	if (out->protocol_error)
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process sent an invalid message",
				"The process was stopped; its output was discarded.", NULL);
	else if (out->worker_lost)
		sb_fail(f, ERRCODE_SYSTEM_ERROR, NULL, "sandbox worker stopped responding",
				NULL, "The worker was restarted; try again.");
	else if (out->workspace_ended != NULL && sb_workspace_ended_idle(ex))
	{
		/*
		 * the worker ended the workspace's child between calls just as
		 * this call began: said as a call that finds it ended says it
		 * (sb_workspace.c), not as a crash (review 122 F1)
		 */
		f->sqlstate = ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
		f->kind = "input";
		f->type = "";
		f->line = f->col = -1;
		f->message = psprintf("workspace \"%s\" has ended", out->workspace_ended);
		f->report_message = f->message;
		f->detail = sb_workspace_why(ex);
		f->hint = pstrdup("Open a new workspace with sandbox_workspace_open(); what the old one kept in ws is gone.");
		f->workspace_ended = out->workspace_ended;
		return true;
	}
	else if (ex->cause == SB_EXIT_IDLE_CPU)
		sb_fail(f, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "cpu",
				psprintf("sandbox code kept running between two calls of the function"),
				psprintf("A function called for many rows may use CPU time only while it is called (%d ms in all between two calls); its process was stopped.",
						 SB_IDLE_CPU_MS),
				"Do not leave threads or other work running after the function returns.");
	else if (ex->cause == SB_EXIT_YIELDED)
		sb_fail(f, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED, "crash",
				"sandbox process was taken back for another session's call",
				psprintf("All pysandbox.max_concurrent (%d) sandbox processes were in use, another session's call was waiting, and this session held more than that one; it had been idle until this call began.",
						 sb_max_concurrent),
				"Run the call again (in a workspace, open a new one: its state went with the process).");
	else if (ex->cause == SB_EXIT_EVICTED)
		sb_fail(f, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED, "crash",
				"sandbox process was taken back for another call",
				psprintf("All pysandbox.max_concurrent (%d) sandbox processes were in use and a call was waiting for one while this process was idle between calls; it ended just as this call began.",
						 sb_max_concurrent),
				"Run the statement again.");
	else if (ex->cause == SB_EXIT_MEMORY)
		sb_fail(f, ERRCODE_OUT_OF_MEMORY, "memory",
				psprintf("sandbox code exceeded its memory limit of %d MB", limits->memory_mb),
				"Its page tables outgrew what the limit allows: it mapped many small, scattered pieces of memory.",
				NULL);
	else if (ex->cause == SB_EXIT_RESIDENT)
		sb_fail(f, ERRCODE_OUT_OF_MEMORY, "memory",
				psprintf("sandbox code exceeded its memory limit of %d MB", limits->memory_mb),
				"Its process held more private memory than the limit allows: native code made the address space of the libraries it inherited into memory of its own.",
				NULL);
	else if (ex->cause == SB_EXIT_TIMEOUT)
	{
		sb_fail(f, ERRCODE_QUERY_CANCELED, "timeout",
				psprintf("sandbox code exceeded the wall-clock limit of %d ms", limits->timeout_ms),
				out->streaming ? sb_stream_timeout_detail(out->streaming) : NULL,
				sb_limit_hint(out->streaming ? "Make the input's query faster or give it less data" :
							  /*
							   * stopped in the code's own line: most often a
							   * loop over rows (review 172 F7).  Not by its
							   * share of CPU time, which a loaded machine
							   * or a preloaded child's start made vary
							   */
							  out->where_line > 0 ?
							  "Make the code faster (if it loops over rows: vectorised pandas operations instead of iterrows() or apply(axis=1)) or give it less data" :
							  "Make the code faster or give it less data",
							  limits, SB_LIMIT_TIMEOUT));
		if (!out->streaming)
			sb_fail_where(out, f);
	}
	else if (out->output_exceeded)
		sb_fail(f, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "output",
				psprintf("sandbox output exceeded the limit of %d bytes", limits->max_output_bytes),
				NULL, SB_OUTPUT_HINT);
	else if (out->violation && WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_VIOLATION)
	{
		const char *name = sb_syscall_name(&out->violation_info);

		/* new executable memory: most often a library loading native code */
		sb_fail(f, ERRCODE_INSUFFICIENT_PRIVILEGE, "violation",
				psprintf("sandbox code attempted a blocked system call: %s", name),
				SB_NO_ACCESS_DETAIL,
				strcmp(name, "mmap") != 0 && strcmp(name, "mprotect") != 0 ? SB_NO_ACCESS_HINT :
				sb_native_hint(out));
	}
	else if (ex->cause == SB_EXIT_CPU ||
			 (WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_LIMIT && cpu_at_limit))
		sb_fail_cpu(out, limits, f);	/* the CPU timer's SIGPROF (sb_where.c) */
	else if (WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_STACK)
	{
		/* a fault at the native stack's end (sb_where.c): the message only */
		f->type = "RecursionError";
		f->report_message = "the native stack ran out: calls or iterators were nested too deeply";
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_EXCEPTION, "exception",
				psprintf("%s: %s", f->type, f->report_message), NULL,
				"Nest less: apply map(), filter() or zip() to a list once instead of to their own results in a loop (x = list(map(f, x))), and write deep recursion as a loop.");
		sb_fail_where(out, f);
	}
	else if (WIFSIGNALED(st))
	{
		int			sig = WTERMSIG(st);

		/*
		 * SIGSEGV at the limit: SIGPROF's handler met a frame being made
		 * or freed (sb_where.c); the limit is what stopped the code
		 */
		if (ex->cause == SB_EXIT_CPU ||
			((sig == SIGPROF || sig == SIGXCPU || sig == SIGKILL) && cpu_at_limit) ||
			(sig == SIGSEGV && cpu_ms >= (uint64) limits->cpu_ms))
			sb_fail_cpu(out, limits, f);
		/* SIGSYS with signals blocked (e.g. inside system()) or another ABI */
		else if (sig == SIGSYS)
			sb_fail(f, ERRCODE_INSUFFICIENT_PRIVILEGE, "violation",
					"sandbox code attempted a blocked system call",
					SB_NO_ACCESS_DETAIL, SB_NO_ACCESS_HINT);
		/* not its limits' kill (above): the OOM killer's, or someone's (review 117 F5) */
		else if (sig == SIGKILL)
			sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
					psprintf("sandbox process crashed: killed by signal %d (%s)", sig, strsignal(sig)),
					NULL, "It was killed from outside its own limits: by the kernel's out-of-memory killer when the server ran short of memory, or by an administrator; the kernel log (dmesg) says which. Running it again may work.");
		else
			sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
					psprintf("sandbox process crashed: killed by signal %d (%s)", sig, strsignal(sig)),
					NULL, "Native code in numpy or pandas failed; this often means memory ran out or data was invalid.");
	}
	else if (out->error)
		sb_child_failure(out, limits, f);
	else if (out->cut)
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process sent an invalid message",
				"Its output ended in the middle of a message.", NULL);
	else if (WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_UNCLEAN)
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process could not clean up after its last call",
				"A function of that call's code ran between two calls, where nothing of the code's may run.",
				NULL);
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != SB_CHILD_EXIT_OK)
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				psprintf("sandbox process exited with code %d without a result",
						 WIFEXITED(st) ? WEXITSTATUS(st) : -1),
				NULL, NULL);
	else
		return false;
	if (f->type == NULL)
		f->type = "";
	if (f->report_message == NULL)
		f->report_message = f->message;
	if (out->workspace_ended != NULL)
	{
		sb_workspace_ended_by(out->workspace_ended, f->report_message);
		f->workspace_ended = out->workspace_ended;
		f->detail = psprintf("%s%sThe workspace \"%s\" has ended with its process.",
							 f->detail ? f->detail : "", sb_sentence_gap(f->detail),
							 out->workspace_ended);
		f->hint = psprintf("%s%sThe workspace \"%s\" has ended, and what its ws held is gone: open a new one with sandbox_workspace_open().",
						   f->hint ? f->hint : "", sb_sentence_gap(f->hint),
						   out->workspace_ended);
	}
	return true;
}

/* Raise a failure as a PostgreSQL error. */
void
sb_raise_failure(const SbFailure *f)
{
	sb_stat_failure(f->kind, f->sqlstate);
	ereport(ERROR,
			(errcode(f->sqlstate),
			 errmsg_internal("%s", sb_printable(f->message)),
			 f->detail && f->detail[0] ? errdetail_internal("%s", sb_printable(f->detail)) : 0,
			 f->hint && f->hint[0] ? errhint("%s", sb_printable(f->hint)) : 0,
			 f->context && f->context[0] ? errcontext("%s", sb_printable(f->context)) : 0));
}

/* Raise the error of a call that did not end cleanly. */
void
sb_check_outcome(const SbOutcome *out, const SbLimits *limits)
{
	SbFailure	f;

	if (sb_outcome_failure(out, limits, &f))
		sb_raise_failure(&f);
}

/*
 * Is the child's result unfit for jsonb?  Returns true and fills f if so:
 * missing or invalid (crash), nested too deep (54001) or holding a number
 * outside numeric's range (22003); the last two are report kind "output".
 */
bool
sb_result_failure(const SbOutcome *out, SbFailure *f)
{
	SbJsonCheck problem;

	memset(f, 0, sizeof(*f));
	f->type = "";
	f->line = f->col = -1;
	if (out->result == NULL)
	{
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process ended without a result", NULL, NULL);
		f->report_message = f->message;
		return true;
	}
	problem = sb_json_check(out->result, out->result_len);
	if (problem == SB_JSON_VALID)
		return false;
	if (problem == SB_JSON_INVALID)
		sb_fail(f, ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION, "crash",
				"sandbox process sent an invalid result", NULL, NULL);
	else
		sb_json_failure(problem, "sandbox result", f);
	f->report_message = f->message;
	return true;
}

/*
 * The child's result as jsonb, or NULL if building it would take too much
 * memory (its text passed sb_result_failure()).
 */
Jsonb *
sb_result_jsonb(const SbOutcome *out)
{
	char	   *text = pg_any_to_server(out->result, (int) out->result_len, PG_UTF8);

	return sb_jsonb_build(text, text == out->result ? out->result_len : strlen(text),
						  sb_jsonb_limit(out->result_len));
}

/* The result of sandbox_execute as jsonb, or the error of the call. */
Jsonb *
sb_result_to_jsonb(const SbOutcome *out, const SbLimits *limits)
{
	SbFailure	f;
	Jsonb	   *result;

	sb_check_outcome(out, limits);
	if (sb_result_failure(out, &f))
		sb_raise_failure(&f);
	result = sb_result_jsonb(out);
	if (result == NULL)
	{
		memset(&f, 0, sizeof(f));
		sb_json_failure(SB_JSON_TOO_BIG, "sandbox result", &f);
		sb_raise_failure(&f);
	}
	return result;
}
