/*
 * sb_run.c
 *		The report forms for agents: sandbox_run() and sandbox_validate().
 *
 * sandbox_run never raises for anything the code did: the same
 * classification that sandbox_execute raises (sb_result.c) becomes the
 * "error" member of a report, with the printed output and usage, so a
 * failing run leaves the caller's transaction usable.  It still raises for
 * invalid arguments, table-input query errors, interrupts and server
 * faults.  sandbox_validate runs only the validator, in a sandbox child.
 */
#include "pysandbox.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/json.h"

PG_FUNCTION_INFO_V1(sandbox_run);
PG_FUNCTION_INFO_V1(sandbox_validate);

/* Append "key":"text" (text in server encoding), or "key":null. */
static void
sb_json_member(StringInfo buf, const char *key, const char *text, bool comma)
{
	if (comma)
		appendStringInfoChar(buf, ',');
	escape_json(buf, key);
	appendStringInfoChar(buf, ':');
	if (text)
		escape_json(buf, text);
	else
		appendStringInfoString(buf, "null");
}

/* Captured output (UTF-8, already checked) in the server encoding. */
static char *
sb_captured(StringInfo text)
{
	return sb_to_server_lossy(text->data, text->len);
}

/* The result holds a character the database encoding lacks: reported. */
static void
sb_run_untranslatable(SbFailure *f)
{
	memset(f, 0, sizeof(*f));
	f->type = "";
	f->line = f->col = -1;
	f->sqlstate = ERRCODE_UNTRANSLATABLE_CHARACTER;
	f->kind = "output";
	f->message = f->report_message =
		psprintf("the result holds a character that encoding \"%s\" cannot hold",
				 GetDatabaseEncodingName());
	f->hint = "Return text in characters of the database's encoding, or use a UTF8 database.";
}

/* Past JSON whitespace. */
static const char *
sb_json_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/*
 * The end of the object or array that starts at p, in text that is valid
 * JSON (sb_result_failure checked it); NULL if p starts neither.
 */
static const char *
sb_json_container_end(const char *p, const char *end)
{
	int			depth = 0;

	if (p >= end || (*p != '{' && *p != '['))
		return NULL;
	while (p < end)
	{
		if (*p == '"')
		{
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
		}
		else if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	return NULL;
}

/*
 * sandbox_run's child answers {"returns": {...}, "figures": [...]}: the
 * functions' results and the figures the call left open (sb_runtime).  Its
 * JSON passed sb_result_failure(); here the two members are cut out of its
 * text as they are (in the server encoding), and anything else — another
 * member, one twice, a member of another type — is an invalid result.  The
 * text is not rebuilt from jsonb: numeric's output of a number stored
 * compactly (1e131071) would be 131,072 digits.  Returns false with f
 * filled when the result is not that.
 */
bool
sb_run_split(const SbOutcome *out, char **returns, char **figures, SbFailure *f)
{
	const char *text = out->result;
	const char *end = text + out->result_len;
	const char *p = sb_json_skip_ws(text, end);
	const char *member[2] = {NULL, NULL};	/* returns, figures */
	size_t		len[2] = {0, 0};

	if (p < end && *p == '{')
	{
		p = sb_json_skip_ws(p + 1, end);
		while (p < end && *p == '"')
		{
			const char *key = ++p;
			const char *value_end;
			int			which;

			while (p < end && *p != '"' && *p != '\\')
				p++;
			if (p >= end || *p != '"')
				break;			/* an escape: no name of ours */
			if (p - key == 7 && memcmp(key, "returns", 7) == 0)
				which = 0;
			else if (p - key == 7 && memcmp(key, "figures", 7) == 0)
				which = 1;
			else
				break;
			p = sb_json_skip_ws(p + 1, end);
			if (p >= end || *p != ':' || member[which] != NULL)
				break;
			p = sb_json_skip_ws(p + 1, end);
			value_end = sb_json_container_end(p, end);
			if (value_end == NULL || *p != (which == 0 ? '{' : '['))
				break;
			member[which] = p;
			len[which] = value_end - p;
			p = sb_json_skip_ws(value_end, end);
			if (p < end && *p == ',')
				p = sb_json_skip_ws(p + 1, end);
			else if (p < end && *p == '}' && sb_json_skip_ws(p + 1, end) == end &&
					 member[0] != NULL && member[1] != NULL)
			{
				*returns = sb_try_to_server(pnstrdup(member[0], len[0]), (int) len[0]);
				*figures = sb_try_to_server(pnstrdup(member[1], len[1]), (int) len[1]);
				if (*returns != NULL && *figures != NULL)
					return true;
				sb_run_untranslatable(f);
				return false;
			}
			else
				break;
		}
	}
	memset(f, 0, sizeof(*f));
	f->type = "";
	f->line = f->col = -1;
	f->sqlstate = ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION;
	f->kind = "crash";
	f->message = f->report_message = "sandbox process sent an invalid result";
	return false;
}

/* A report's "error" object: what failed, as sandbox_execute would raise it. */
void
sb_run_error_json(StringInfo r, const SbFailure *f)
{
	appendStringInfoChar(r, '{');
	sb_json_member(r, "kind", f->kind, false);
	sb_json_member(r, "type", f->type && f->type[0] ? f->type : NULL, true);
	sb_json_member(r, "message", f->report_message, true);
	appendStringInfo(r, ",\"line\":%s", f->line > 0 ? psprintf("%d", f->line) : "null");
	appendStringInfo(r, ",\"col\":%s", f->col > 0 ? psprintf("%d", f->col) : "null");
	sb_json_member(r, "traceback", f->traceback, true);
	if (f->rule)
		sb_json_member(r, "rule", f->rule, true);
	if (f->findings)			/* checked JSON, from the child's report */
		appendStringInfo(r, ",\"findings\":%s", f->findings);
	if (strcmp(f->kind, "input") == 0)
	{
		appendStringInfo(r, ",\"position\":%s",
						 f->position > 0 ? psprintf("%d", f->position) : "null");
		sb_json_member(r, "detail", f->detail, true);
		sb_json_member(r, "context", f->context, true);
	}
	sb_json_member(r, "sqlstate", unpack_sql_state(f->sqlstate), true);
	sb_json_member(r, "hint", f->hint, true);
	if (f->workspace_ended)
		sb_json_member(r, "workspace_ended", f->workspace_ended, true);
	appendStringInfoChar(r, '}');
}

/*
 * A hint for a run that printed or drew and whose functions returned None
 * (null): code that prints its answer or shows its chart (plt.show())
 * instead of returning it, as in a notebook.  Only a short result without
 * escapes is looked into (None is "null"): an escaped character the
 * database encoding lacks would make jsonb_in raise (the report says so
 * instead, sb_jsonb_build_encodable).
 */
static char *
sb_run_none_hint(const char *returns, const char *figures, const SbOutcome *out)
{
	bool		printed = out->stdout_text != NULL && out->stdout_text->len > 0;
	bool		drew = figures != NULL && strcmp(figures, "[]") != 0;

	Jsonb	   *j;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	StringInfoData names;
	char	   *key = NULL;
	int			n = 0;

	if (returns == NULL || (!printed && !drew) ||
		strlen(returns) > 1024 || strchr(returns, '\\') != NULL)
		return NULL;
	j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(returns)));
	if (!JB_ROOT_IS_OBJECT(j))
		return NULL;
	initStringInfo(&names);
	it = JsonbIteratorInit(&j->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			key = pnstrdup(v.val.string.val, v.val.string.len);
		else if (tok == WJB_VALUE && v.type == jbvNull && key != NULL)
		{
			appendStringInfo(&names, "%s%s()", n ? ", " : "", key);
			n++;
		}
	}
	if (n == 0)
		return NULL;
	if (drew)
		return psprintf("%s returned None and the code drew a figure: return the figure, plt.gcf() (or the Axes), to get its PNG in \"returns\" (plt.show() shows nothing here; the figures left open are in \"figures\")",
						names.data);
	return psprintf("%s returned None and the code printed: return the value to get it in \"returns\" (what was printed is in \"stdout\")",
					names.data);
}

/*
 * The report's text: the result and figures (if not failed), output,
 * error and usage; appended to r.
 */
void
sb_run_report(StringInfo r, bool failed, const SbFailure *f, const SbOutcome *out,
			  uint64 input_rows, uint64 input_bytes, const char *returns, const char *figures)
{
	uint64		output_bytes;
	char	   *hint = failed ? NULL : sb_run_none_hint(returns, figures, out);

	appendStringInfo(r, "{\"ok\":%s,\"returns\":", failed ? "false" : "true");
	appendStringInfoString(r, failed ? "null" : returns);
	appendStringInfo(r, ",\"figures\":%s", failed ? "[]" : figures);
	sb_json_member(r, "stdout", sb_captured(out->stdout_text), true);
	sb_json_member(r, "stderr", sb_captured(out->stderr_text), true);
	appendStringInfoString(r, ",\"error\":");
	if (!failed)
		appendStringInfoString(r, "null");
	else
		sb_run_error_json(r, f);
	if (hint != NULL)
		sb_json_member(r, "hint", hint, true);
	output_bytes = out->result_len + out->stdout_text->len + out->stderr_text->len;
	appendStringInfo(r, ",\"usage\":{\"wall_ms\":" UINT64_FORMAT ",\"cpu_ms\":" UINT64_FORMAT
					 ",\"peak_memory_kb\":" UINT64_FORMAT ",\"input_rows\":" UINT64_FORMAT
					 ",\"input_bytes\":" UINT64_FORMAT ",\"output_bytes\":" UINT64_FORMAT "}}",
					 out->exit.wall_us / 1000, out->call_cpu_us / 1000,
					 out->exit.maxrss_kb, input_rows, input_bytes, output_bytes);
}

/*
 * sandbox_run(code, inputs, returns, options) returns jsonb: a report of
 * the run (README, sandbox_run).
 */
static Datum
sandbox_run_call(PG_FUNCTION_ARGS)
{
	static const char *const args[] = {"code", "inputs", "returns", "options", NULL};
	char	   *code;
	Jsonb	   *inputs;
	ArrayType  *returns;
	Jsonb	   *options;
	SbRequest	req;
	SbLimits	limits;
	SbOutcome	out;
	SbFailure	f;
	bool		failed;
	StringInfoData r;
	Jsonb	   *report;
	char	   *returns_text = NULL,
			   *figures_text = NULL;
	bool		untranslatable;

	sb_check_args(fcinfo, "sandbox_run", 0, args);
	code = text_to_cstring(PG_GETARG_TEXT_PP(0));
	inputs = PG_GETARG_JSONB_P(1);
	returns = PG_GETARG_ARRAYTYPE_P(2);
	options = PG_GETARG_JSONB_P(3);

	/* a workspace that has ended (or never was) is reported: nothing runs */
	if (JB_ROOT_IS_OBJECT(options))
	{
		JsonbValue *ws = sb_get_key(&options->root, "workspace");

		if (ws != NULL && ws->type == jbvString &&
			sb_workspace_unusable(pnstrdup(ws->val.string.val, ws->val.string.len), &f))
		{
			sb_stat_code(code, InvalidOid);
			sb_stat_failure(f.kind, f.sqlstate);
			memset(&out, 0, sizeof(out));
			out.stdout_text = makeStringInfo();
			out.stderr_text = makeStringInfo();
			initStringInfo(&r);
			sb_run_report(&r, true, &f, &out, 0, 0, NULL, NULL);
			PG_RETURN_JSONB_P(sb_jsonb_build(r.data, r.len, sb_jsonb_limit(r.len)));
		}
	}

	sb_run_functions(code, inputs, returns, options, true, &req, &limits, &out);

	/* group_by: the groups' report (sb_groups.c), unless nothing ran */
	if (out.grouped != NULL && out.input_error == NULL)
		PG_RETURN_JSONB_P(out.grouped);
	if (out.input_error != NULL)
	{
		/* a table input's query failed: nothing ran (sb_main.c) */
		ErrorData  *e = out.input_error;

		memset(&f, 0, sizeof(f));
		f.kind = "input";
		f.type = "";
		f.sqlstate = e->sqlerrcode;
		f.message = f.report_message = e->message;
		f.detail = e->detail;
		f.hint = e->hint;
		f.context = e->context;
		f.position = e->cursorpos > 0 ? e->cursorpos : e->internalpos;
		f.line = f.col = -1;
		out.stdout_text = makeStringInfo();
		out.stderr_text = makeStringInfo();
		failed = true;
	}
	else
		failed = sb_outcome_failure(&out, &limits, &f);
	if (failed && f.kind == NULL && out.input_error == NULL)
		sb_raise_failure(&f);	/* a server fault, not the code's doing */
	/* the child's JSON is hostile: it is checked before anything parses it */
	if (!failed)
		failed = sb_result_failure(&out, &f);
	if (!failed)
		failed = !sb_run_split(&out, &returns_text, &figures_text, &f);
	if (failed)
		sb_stat_failure(f.kind, f.sqlstate);	/* reported, not raised */

	/* built within a memory budget: a result too large for it is reported */
	initStringInfo(&r);
	sb_run_report(&r, failed, &f, &out, req.input_rows, req.input_bytes,
				  returns_text, figures_text);
	report = sb_jsonb_build_encodable(r.data, r.len, sb_jsonb_limit(r.len), &untranslatable);
	if (untranslatable)
	{
		/* an escaped character of the result the encoding lacks */
		failed = true;
		sb_run_untranslatable(&f);
		returns_text = figures_text = NULL;
		resetStringInfo(&r);
		sb_run_report(&r, failed, &f, &out, req.input_rows, req.input_bytes,
					  returns_text, figures_text);
		report = sb_jsonb_build_encodable(r.data, r.len, sb_jsonb_limit(r.len), &untranslatable);
	}
	if (report == NULL)
	{
		failed = true;
		memset(&f, 0, sizeof(f));
		f.type = "";
		sb_json_failure(SB_JSON_TOO_BIG, "sandbox result", &f);
		resetStringInfo(&r);
		sb_run_report(&r, failed, &f, &out, req.input_rows, req.input_bytes,
					  returns_text, figures_text);
		report = sb_jsonb_build(r.data, r.len, sb_jsonb_limit(r.len));
	}
	PG_RETURN_JSONB_P(report);
}

/* (counted as one call: sb_stat.c) */
Datum
sandbox_run(PG_FUNCTION_ARGS)
{
	return sb_stat_wrap(sandbox_run_call, fcinfo);
}

/*
 * sandbox_validate(code) returns jsonb: the validator's findings and the
 * imports used (README, sandbox_validate).  Nothing runs but the validator, in a sandbox child.
 */
static Datum
sandbox_validate_call(PG_FUNCTION_ARGS)
{
	static const char *const args[] = {"code", NULL};
	char	   *code;
	SbRequest	req;
	SbLimits	limits;
	SbOutcome	out;
	Jsonb	   *empty = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));

	sb_check_args(fcinfo, "sandbox_validate", 0, args);
	code = text_to_cstring(PG_GETARG_TEXT_PP(0));

	sb_limits_from_options(&limits, NULL);
	sb_request_start(&req, code, NULL, &limits);
	appendStringInfoString(&req.json, "\"validate_only\":true,");
	sb_request_finish(&req, empty);
	sb_call_run(&req, &limits, &out);
	PG_RETURN_JSONB_P(sb_result_to_jsonb(&out, &limits));
}

/* (not counted: no code of the caller's runs) */
Datum
sandbox_validate(PG_FUNCTION_ARGS)
{
	return sb_stat_wrap_uncounted(sandbox_validate_call, fcinfo);
}
