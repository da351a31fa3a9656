/*
 * sb_main.c
 *		Module entry and the SQL-callable functions.
 *
 * sandbox_execute(code, inputs, returns, options) validates its arguments
 * (bad ones are 22023 errors, before any process starts), builds the
 * request, runs it through sb_call.c and returns the jsonb result.
 */
#include "pysandbox.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplestore.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/resowner.h"
#include "utils/varlena.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(sandbox_execute);
PG_FUNCTION_INFO_V1(sandbox_layers);

void		_PG_init(void);

/* Each subsystem registers its own settings and callbacks. */
void
_PG_init(void)
{
	sb_guc_init();
	sb_worker_init();
	sb_statements_init();
	sb_sql_hooks_init();
	if (process_shared_preload_libraries_in_progress)
	{
		sb_server_register();
		sb_stat_init();
	}
}

/*
 * Every function of the extension refuses a NULL argument the same way
 * (22004, naming it): none is STRICT, so that no call silently gives NULL
 * or no rows.  names lists the function's arguments from first, in order.
 */
void
sb_check_args(FunctionCallInfo fcinfo, const char *function, int first, const char *const *names)
{
	int			i;

	for (i = 0; names[i] != NULL; i++)
	{
		const char *name = names[i];

		if (!PG_ARGISNULL(first + i))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument %s of %s() must not be NULL", name, function),
				 errhint("%s",
						 strcmp(name, "inputs") == 0 ? "Pass '{}' for no inputs." :
						 strcmp(name, "returns") == 0 ? "Pass '{main}', or leave the argument out." :
						 strcmp(name, "func") == 0 ? "Pass the name of the function that returns the rows, or leave the argument out for main." :
						 strcmp(name, "workspace") == 0 ? "Pass a handle that sandbox_workspace_open() returned." :
						 strcmp(name, "code") == 0 ? "Pass the Python code as text." :
						 "Pass '{}', or leave the argument out.")));
	}
}

static const char *const sb_execute_args[] = {"code", "inputs", "returns", "options", NULL};

/* Append "returns":[...] after checking each name. */
static void
sb_append_returns(StringInfo json, ArrayType *returns)
{
	Datum	   *names;
	bool	   *nulls;
	int			n;
	int			i,
				j;

	if (ARR_NDIM(returns) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("returns must be a one-dimensional array of function names")));
	deconstruct_array(returns, TEXTOID, -1, false, TYPALIGN_INT, &names, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("returns must name at least one function"),
				 errhint("Pass returns => '{main}' and define def main(): ... in the code.")));

	appendStringInfoString(json, "\"returns\":[");
	for (i = 0; i < n; i++)
	{
		char	   *name;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("returns must not contain NULL")));
		name = TextDatumGetCString(names[i]);
		if (!sb_is_identifier(name))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" in returns is not a valid function name", name)));
		for (j = 0; j < i; j++)
			if (strcmp(name, TextDatumGetCString(names[j])) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("returns names function \"%s\" twice", name)));
		if (i > 0)
			appendStringInfoChar(json, ',');
		escape_json(json, name);
	}
	appendStringInfoChar(json, ']');
}

/* Append "allowed_modules":[...] from a pysandbox.allowed_modules value. */
static void
sb_append_allowed_modules(StringInfo json, const char *allowed)
{
	List	   *names;
	ListCell   *lc;
	bool		first = true;

	if (!sb_split_modules(allowed, &names))
		names = NIL;			/* cannot happen: the check hook refused it */
	appendStringInfoString(json, "\"allowed_modules\":[");
	foreach(lc, names)
	{
		if (!first)
			appendStringInfoChar(json, ',');
		first = false;
		escape_json(json, (char *) lfirst(lc));
	}
	appendStringInfoChar(json, ']');
	/* a module not preloaded: its error says when a change takes effect */
	if (sb_preload_change() != NULL)
		appendStringInfo(json, ",\"preload_change\":\"%s\"", sb_preload_change());
}

/*
 * Code this session ran to a result, so the child's validator passed it
 * (the child validates before it runs anything).  The validator is a pure
 * function of the code and the import allowlist, so a later call with the
 * same code and allowlist tells the child "validated" by the worker
 * instance that passed it (SbReady.instance), and a child of that instance
 * skips the validator; a child of another (the worker was restarted,
 * perhaps after an upgrade) runs it.  In an idle child, whose caches have
 * gone cold, validating even a trivial function costs ~0.1 ms.  Everything
 * else, the guarded builtins and imports and every OS layer, applies to
 * every call.  The entries are exact copies (no hashes), a few per
 * session, in TopMemoryContext; what a request was built with is kept in
 * it (SbRequest), so settings changed during the call do not count.
 */
#define SB_VALIDATED_SLOTS		8
#define SB_VALIDATED_MAX_CODE	(64 * 1024)

typedef struct SbValidated
{
	char	   *code;			/* NULL: an empty slot */
	char	   *allowed;		/* pysandbox.allowed_modules then (in code's block) */
	uint64		instance;		/* the worker instance that ran it */
	uint64		used;			/* for replacing the least recently used */
} SbValidated;

static SbValidated sb_validated[SB_VALIDATED_SLOTS];
static uint64 sb_validated_clock = 0;

static SbValidated *
sb_validated_find(const SbRequest *req, const char *code)
{
	int			i;

	if (!req->python_layer || strnlen(code, SB_VALIDATED_MAX_CODE + 1) > SB_VALIDATED_MAX_CODE)
		return NULL;
	for (i = 0; i < SB_VALIDATED_SLOTS; i++)
	{
		SbValidated *v = &sb_validated[i];

		if (v->code != NULL && v->instance == sb_sandbox_instance() &&
			strcmp(v->code, code) == 0 && strcmp(v->allowed, req->allowed_modules) == 0)
			return v;
	}
	return NULL;
}

/* Tell the child that this code passed the validator on this worker. */
static void
sb_request_mark_validated(SbRequest *req)
{
	req->validated = true;
	appendStringInfo(&req->json, "\"validated\":\"%016llx\",",
					 (unsigned long long) sb_sandbox_instance());
}

/*
 * Make sure the code passes the validator before anything else of the
 * call happens (after sb_request_start, before anything else is added to
 * the request; not for sandbox_validate).
 *
 * Code this session ran to a result on this worker (the memo above) is
 * offered to the child as validated.  Otherwise, when the inputs read the
 * database ($query, $table), a child runs the validator alone first: a
 * forbidden import or a syntax error must not cost a scan of a large
 * table, nor show the table's error instead of the code's; its pass is
 * offered as above.  Mistakes in the inputs themselves (22023) are raised
 * before either.  Returns false, with the validator child's outcome in
 * *out, when the code failed (the caller reports it as the call's).
 */
/*
 * "input_names": the inputs' names, for the validator child's hint to a
 * script ("def main(sales): ...").
 */
static void
sb_request_input_names(StringInfo json, Jsonb *inputs)
{
	JsonbIterator *it;
	JsonbValue	jv;
	JsonbIteratorToken tok;
	bool		first = true;

	if (!JB_ROOT_IS_OBJECT(inputs))
		return;
	appendStringInfoString(json, "\"input_names\":[");
	it = JsonbIteratorInit(&inputs->root);
	while ((tok = JsonbIteratorNext(&it, &jv, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			if (!first)
				appendStringInfoChar(json, ',');
			first = false;
			escape_json(json, pnstrdup(jv.val.string.val, jv.val.string.len));
		}
	appendStringInfoString(json, "],");
}

bool
sb_request_validate(SbRequest *req, const char *code, Jsonb *inputs,
					const SbLimits *limits, SbOutcome *out)
{
	SbValidated *v;
	SbRequest	vreq;
	Jsonb	   *none;
	bool		tables = sb_inputs_check(inputs);

	v = sb_validated_find(req, code);
	if (v != NULL)
	{
		v->used = ++sb_validated_clock;
		sb_request_mark_validated(req);
		return true;
	}
	if (!tables || !req->python_layer)
		return true;			/* the call's child validates it */
	none = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	sb_request_start(&vreq, code, NULL, limits);
	vreq.workspace = NULL;		/* a child of its own, which then exits */
	vreq.group_by = NIL;
	/* what the memo keeps must be what this request was built with */
	vreq.python_layer = req->python_layer;
	vreq.allowed_modules = req->allowed_modules;
	vreq.capture_output = req->capture_output;
	appendStringInfoString(&vreq.json, "\"validate_first\":true,");
	sb_request_input_names(&vreq.json, inputs);
	vreq.code = NULL;			/* nothing is imported: any child will do */
	sb_request_finish(&vreq, none);
	sb_call_run(&vreq, limits, out);
	if (!out->complete || out->result == NULL)
		return false;
	sb_validated_note(&vreq, code, out);
	sb_request_mark_validated(req);	/* code of any size */
	return true;
}

/*
 * A call with this code has ended: if with a result, remember the code
 * (unless the request said it was known: sb_request_validate).  Not from a
 * workspace's child: it ran other code before, which may have taken it
 * over, and its word would let fresh children skip the validator (review
 * 42).
 */
void
sb_validated_note(const SbRequest *req, const char *code, const SbOutcome *out)
{
	SbValidated *v;
	size_t		code_len;
	size_t		allowed_len;
	char	   *copy;
	int			i;

	if (req->validated || !req->python_layer || req->workspace != NULL ||
		(out->result == NULL && out->rows_header == NULL) || out->error != NULL ||
		out->violation || out->protocol_error || out->output_exceeded || out->worker_lost)
		return;
	code_len = strnlen(code, SB_VALIDATED_MAX_CODE + 1);
	if (code_len > SB_VALIDATED_MAX_CODE || sb_validated_find(req, code) != NULL)
		return;
	/* one block for both: an allocation failure leaves every slot intact */
	allowed_len = strlen(req->allowed_modules);
	copy = MemoryContextAlloc(TopMemoryContext, code_len + allowed_len + 2);
	memcpy(copy, code, code_len + 1);
	memcpy(copy + code_len + 1, req->allowed_modules, allowed_len + 1);
	v = &sb_validated[0];
	for (i = 1; i < SB_VALIDATED_SLOTS && v->code != NULL; i++)
		if (sb_validated[i].code == NULL || sb_validated[i].used < v->used)
			v = &sb_validated[i];
	if (v->code != NULL)
		pfree(v->code);
	v->code = copy;
	v->allowed = copy + code_len + 1;
	v->instance = sb_sandbox_instance();
	v->used = ++sb_validated_clock;
}

/*
 * Begin a request: code, the import allowlist and the output limit.
 * The caller then appends its own members ("returns", "rows") and calls
 * sb_request_finish().
 */
void
sb_request_start(SbRequest *req, const char *code, ArrayType *returns,
				 const SbLimits *limits)
{
	/*
	 * options.verify is code that runs in the call's child too (any
	 * statements, sql() included): the audit trail names it with the code
	 * (review 103: a harmless code and the work in verify logged only the
	 * former)
	 */
	if (limits->verify != NULL && code != NULL)
		sb_stat_code(psprintf("%s\n# options.verify:\n%s", code, limits->verify), InvalidOid);
	else
		sb_stat_code(code, InvalidOid);
	memset(req, 0, sizeof(*req));
	req->limits = *limits;
	req->workspace = limits->workspace;
	req->workspace_id = limits->workspace_id;
	req->numeric_decimal = limits->numeric_decimal;
	req->group_by = limits->group_by;
	req->python_layer = sb_role_python_layer();
	req->allowed_modules = pstrdup(sb_role_allowed_modules());
	req->code = code;
	initStringInfo(&req->json);
	appendStringInfoString(&req->json, "{\"code\":");
	escape_json(&req->json, code);
	appendStringInfoChar(&req->json, ',');
	if (returns)
		sb_append_returns(&req->json, returns);
	else
		appendStringInfoString(&req->json, "\"returns\":[]");
	appendStringInfoChar(&req->json, ',');
	if (limits->verify)
	{
		appendStringInfoString(&req->json, "\"verify\":");
		escape_json(&req->json, limits->verify);
		appendStringInfoChar(&req->json, ',');
	}
	sb_append_allowed_modules(&req->json, req->allowed_modules);
	appendStringInfo(&req->json, ",\"max_output_bytes\":%d,\"max_figure_pixels\":%d,",
					 limits->max_output_bytes, sb_role_int(SB_ROLE_FIGURE_PIXELS));
}

/*
 * Finish a request: encode the inputs (running table inputs' queries) and
 * queue the frames: REQUEST first, then the table frames, then END.
 */
void
sb_request_finish(SbRequest *req, Jsonb *inputs)
{
	List	   *tables;
	char	   *utf8;

	sb_inputs_encode(req, inputs);
	if (req->workspace != NULL)
		appendStringInfoString(&req->json, ",\"workspace\":true");
	if (req->group_by != NIL)
	{
		ListCell   *lc;

		if (req->group_input == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.group_by needs a table input to group"),
					 errhint("Pass the rows as an input such as {\"df\": {\"$table\": \"sales\"}} or {\"df\": {\"$query\": \"SELECT ...\"}}.")));
		/* the runtime names each group's DataFrame by its key (sb_runtime) */
		appendStringInfoString(&req->json, ",\"group\":{\"input\":");
		escape_json(&req->json, req->group_input);
		appendStringInfoString(&req->json, ",\"by\":[");
		foreach(lc, req->group_by)
		{
			if (foreach_current_index(lc) > 0)
				appendStringInfoChar(&req->json, ',');
			escape_json(&req->json, (const char *) lfirst(lc));
		}
		appendStringInfoString(&req->json, "]}");
		/* a group's child serves the call's next groups (sb_groups.c) */
		appendStringInfoString(&req->json, ",\"held\":true");
	}
	appendStringInfoChar(&req->json, '}');

	tables = req->chunks;
	req->chunks = NIL;
	utf8 = pg_server_to_any(req->json.data, req->json.len, PG_UTF8);
	if (req->group_by != NIL)
	{
		/* each group's request is built around it (sb_groups.c) */
		req->group_payload = utf8;
		req->group_payload_len = strlen(utf8);
		return;
	}
	sb_request_add_frame(req, SB_DATA_REQUEST, utf8, strlen(utf8), NULL, 0, NULL, 0);
	req->chunks = list_concat(req->chunks, tables);
	/* streamed inputs follow while the call runs, then END (sb_stream.c) */
	if (req->streams == NIL)
		sb_request_add_frame(req, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
	if (req->workspace != NULL)
		sb_workspace_request(req);
}

/*
 * The level of a DEBUG1 line about a call's data (its inputs' rows and
 * bytes, its groups' partitions), or 0 for none: in a SECURITY DEFINER
 * function or a security-restricted operation the caller sets
 * client_min_messages, and the owner's inputs are not the caller's to
 * count (review 144 F2: a definer function that returned only a boolean
 * showed the caller input_rows=176 of a table it could not read).  There
 * the line goes to the server log only, when it logs DEBUG1.
 */
int
sb_private_debug_level(void)
{
	if (GetUserId() == GetOuterUserId() && !InSecurityRestrictedOperation())
		return DEBUG1;
	return log_min_messages <= DEBUG1 ? LOG_SERVER_ONLY : 0;
}

/*
 * The usage of a call: counted for pysandbox_stat and the audit line, and
 * left at DEBUG1.
 */
void
sb_report_usage(const SbRequest *req, const SbOutcome *out)
{
	uint64		output = out->result_len;
	int			level = sb_private_debug_level();
	ListCell   *lc;

	foreach(lc, out->rows_columns)
		output += ((SbChunk *) lfirst(lc))->len;
	if (out->stdout_text)
		output += out->stdout_text->len + out->stderr_text->len;
	sb_stat_usage(req, out, output);
	if (level == 0)
		return;
	elog(level, "pysandbox usage: wall_ms=" UINT64_FORMAT " cpu_ms=" UINT64_FORMAT
		 " peak_memory_kb=" UINT64_FORMAT " input_rows=" UINT64_FORMAT
		 " input_bytes=" UINT64_FORMAT " output_bytes=" UINT64_FORMAT "%s",
		 out->exit.wall_us / 1000, out->call_cpu_us / 1000,
		 out->exit.maxrss_kb, req->input_rows, req->input_bytes, output,
		 req->validated ? " (code validated by an earlier call)" : "");
}

/*
 * Run code's `returns` functions with inputs and options: the common path of
 * sandbox_execute and sandbox_run (capture_output keeps prints for a report
 * instead of relaying them).
 */
void
sb_run_functions(const char *code, Jsonb *inputs, ArrayType *returns, Jsonb *options,
				 bool capture_output, SbRequest *req, SbLimits *limits, SbOutcome *out)
{
	sb_limits_from_options(limits, options);
	sb_request_start(req, code, returns, limits);
	req->capture_output = capture_output;
	if (capture_output)			/* sandbox_run reports the figures left open */
		appendStringInfoString(&req->json, "\"figures\":true,");
	if (!sb_request_validate(req, code, inputs, limits, out))
	{
		sb_report_usage(req, out);
		return;
	}
	if (capture_output)
	{
		/* sandbox_run: a failing table input is reported, not raised */
		memset(out, 0, sizeof(*out));
		out->input_error = sb_request_finish_or_error(req, inputs);
		if (out->input_error != NULL)
			return;
	}
	else
	{
		/* large table inputs stream while the call runs (sb_stream.c) */
		req->stream_ok = req->workspace == NULL && req->group_by == NIL;
		sb_request_finish(req, inputs);
	}
	if (req->group_by != NIL)
	{
		/* one child per group: the result (or report) is built from all of theirs */
		Jsonb	   *grouped = sb_groups_run(req, limits, returns, NULL, NULL, NULL,
											capture_output, out);

		sb_report_usage(req, out);
		sb_validated_note(req, code, out);
		out->grouped = grouped;
		return;
	}
	sb_call_streamed(req, limits, out);
	sb_report_usage(req, out);
	sb_validated_note(req, code, out);
}

/*
 * sb_request_finish() in a subtransaction, for sandbox_run: the table
 * inputs' queries run as the caller, and an error in one (a missing table,
 * a type mismatch in $params, a permission) becomes the report's, with the
 * caller's transaction still usable.  Returns the error, or NULL.  Cancel,
 * termination and invalid arguments (22023) are raised as ever.
 */
ErrorData *
sb_request_finish_or_error(SbRequest *req, Jsonb *inputs)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *edata = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		sb_request_finish(req, inputs);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_INVALID_PARAMETER_VALUE ||
			edata->elevel > ERROR)
			ReThrowError(edata);
	}
	PG_END_TRY();
	return edata;
}

/*
 * sandbox_execute(code text, inputs jsonb, returns text[], options jsonb)
 * returns jsonb: run code in a fresh sandbox and return {name: value}.
 */
static Datum
sandbox_execute_call(PG_FUNCTION_ARGS)
{
	char	   *code;
	Jsonb	   *inputs;
	ArrayType  *returns;
	Jsonb	   *options;
	SbRequest	req;
	SbLimits	limits;
	SbOutcome	out;

	sb_check_args(fcinfo, "sandbox_execute", 0, sb_execute_args);
	code = text_to_cstring(PG_GETARG_TEXT_PP(0));
	inputs = PG_GETARG_JSONB_P(1);
	returns = PG_GETARG_ARRAYTYPE_P(2);
	options = PG_GETARG_JSONB_P(3);
	sb_run_functions(code, inputs, returns, options, false, &req, &limits, &out);
	if (out.grouped != NULL)
		PG_RETURN_JSONB_P(out.grouped);
	PG_RETURN_JSONB_P(sb_result_to_jsonb(&out, &limits));
}

/* (counted as one call: sb_stat.c) */
Datum
sandbox_execute(PG_FUNCTION_ARGS)
{
	return sb_stat_wrap(sandbox_execute_call, fcinfo);
}

/* One row of sandbox_layers(). */
static void
sb_layer_row(ReturnSetInfo *rsinfo, const char *layer, bool active, const char *detail)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = CStringGetTextDatum(layer);
	values[1] = BoolGetDatum(active);
	values[2] = CStringGetTextDatum(detail);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * sandbox_layers() returns setof (layer, active, detail): which layers of
 * the README's Security model are active on this server, and why not where they are not.
 */
Datum
sandbox_layers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint32		abi = 0;
	uint32		layers = sb_sandbox_layers(&abi);
	bool		landlock,
				mountns;
	const char *pending;

	InitMaterializedSRF(fcinfo, 0);
	sb_layer_row(rsinfo, "process", true,
				 "the backend links no Python; each call runs in a fresh child of an exec'd worker");
	sb_layer_row(rsinfo, "python", sb_role_python_layer(),
				 sb_role_python_layer() ? "validator, restricted builtins, import allowlist"
				 : "switched off by pysandbox.python_layer (tests only)");
	/* review 117 F6: a reload does not change the worker's list */
	pending = sb_preload_change() == NULL ? "" :
		psprintf("; pysandbox.preload_modules was changed since the worker read it and takes effect %s",
				 sb_preload_change());
	sb_layer_row(rsinfo, "preload", true,
				 sb_sandbox_preloaded()[0] ?
				 psprintf("numpy, pandas and the allowed modules, imported and warmed before any child is made; %s too, in a second process that forks the children of calls whose code names them (pysandbox.preload_modules)%s",
						  sb_sandbox_preloaded(), pending) :
				 psprintf("numpy, pandas and the allowed modules, imported and warmed before any child is made (pysandbox.preload_modules)%s",
						  pending));
	sb_layer_row(rsinfo, "rlimits", true,
				 (layers & SB_LAYER_SEALED) ?
				 "memory (address space and private writable memory; the libraries' mappings are sealed; "
				 "no huge pages where the code runs), "
				 "CPU (timer and RLIMIT_CPU), no processes, no file writes, no core, 16 fds; oom_score_adj 1000" :
				 "memory (address space and private writable memory; the libraries' mappings are not sealed, "
				 "which needs Linux 6.10: native code can trade their address space for memory until the worker, reading what it holds every 20 ms, ends the call; "
				 "no huge pages where the code runs), "
				 "CPU (timer and RLIMIT_CPU), no processes, no file writes, no core, 16 fds; oom_score_adj 1000");
	sb_layer_row(rsinfo, "seccomp", (layers & SB_LAYER_SECCOMP) != 0,
				 (layers & SB_LAYER_SECCOMP) ? "system call allowlist, other ABIs killed"
				 : "the filter could not be built: every call fails");
	landlock = (layers & SB_LAYER_LANDLOCK) != 0 && sb_filesystem_layer != SB_FS_MOUNT_NAMESPACE;
	mountns = (layers & SB_LAYER_MOUNTNS) != 0 && sb_filesystem_layer != SB_FS_LANDLOCK;
	sb_layer_row(rsinfo, "landlock", landlock,
				 landlock && mountns ?
				 psprintf("read-only Python library directories and zoneinfo (ABI %u)", abi) :
				 landlock ?
				 psprintf("read-only Python library directories and zoneinfo (ABI %u); alone, it does "
						  "not mediate stat, access, readlink or O_PATH opens: the size, times, mode "
						  "and existence of any file, in the data directory too, can be read", abi) :
				 (layers & SB_LAYER_LANDLOCK) ?
				 "available, but pysandbox.filesystem_layer chose the mount namespace alone" :
				 "not supported by this kernel");
	sb_layer_row(rsinfo, "mount_namespace", mountns,
				 mountns ?
				 "a read-only root holding only the Python library directories and zoneinfo: "
				 "nothing else exists, not even for stat" :
				 (layers & SB_LAYER_MOUNTNS) ?
				 "available, but pysandbox.filesystem_layer chose Landlock alone, which does not hide file metadata" :
				 "cannot be created here (unprivileged user namespaces are off); Landlock alone does not hide file metadata");
	if (!landlock && !mountns)
		sb_layer_row(rsinfo, "filesystem", false,
					 sb_allow_weak_isolation ?
					 "no filesystem confinement; running without it (pysandbox.allow_weak_isolation)" :
					 "no filesystem confinement; calls are refused unless pysandbox.allow_weak_isolation is on");
	sb_layer_row(rsinfo, "namespaces", (layers & SB_LAYER_NAMESPACES) != 0,
				 (layers & SB_LAYER_NAMESPACES) ? "new user, network (no interfaces), IPC and UTS (host name \"sandbox\") namespaces"
				 : "unprivileged user namespaces are not available on this server");
	return (Datum) 0;
}

