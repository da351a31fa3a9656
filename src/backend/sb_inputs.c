/*
 * sb_inputs.c
 *		The inputs jsonb: plain values into the request, table inputs into
 *		columnar frames.
 *
 * A table input ($query with optional $params, or $table) runs through SPI
 * as the calling role, in the caller's snapshot, with the transaction
 * marked read-only for its duration, so privileges, row-level security and
 * read-only-ness all hold.  Rows go straight from the executor into
 * per-column buffers (a DestReceiver); no tuple table of the whole result is
 * built.  Fixed-width types are copied as binary; everything else goes
 * through its output function as UTF-8 text.
 *
 * All buffers live in the call's memory context and are freed with it.
 */
#include "pysandbox.h"

#include <math.h>

#include "access/detoast.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "utils/acl.h"
#include "access/xact.h"
#include "catalog/pg_proc.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_param.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"



static const char *const sb_python_keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally",
	"for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
	"not", "or", "pass", "raise", "return", "try", "while", "with", "yield"
};

/*
 * Is s a name Python code can use as a parameter: an ASCII identifier, not
 * a keyword, not beginning with "__"?
 */
bool
sb_is_identifier(const char *s)
{
	const char *p;
	int			i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9') || strncmp(s, "__", 2) == 0)
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	for (i = 0; i < lengthof(sb_python_keywords); i++)
		if (strcmp(s, sb_python_keywords[i]) == 0)
			return false;
	return true;
}

/* Append a frame header chunk and up to three payload pieces. */
void
sb_request_add_frame(SbRequest *req, uint32 type,
					 const char *p1, size_t l1,
					 const char *p2, size_t l2,
					 const char *p3, size_t l3)
{
	const char *pieces[4];
	size_t		lens[4];
	char	   *hdr = palloc(SB_FRAME_HEADER_SIZE);
	int			i;

	if (l1 + l2 + l3 > SB_FRAME_MAX_PAYLOAD)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table input column is too large to send to the sandbox")));
	sb_frame_header_encode((unsigned char *) hdr, type, (uint32) (l1 + l2 + l3));
	pieces[0] = hdr;
	lens[0] = SB_FRAME_HEADER_SIZE;
	pieces[1] = p1;
	lens[1] = l1;
	pieces[2] = p2;
	lens[2] = l2;
	pieces[3] = p3;
	lens[3] = l3;
	for (i = 0; i < 4; i++)
	{
		SbChunk    *c;

		if (lens[i] == 0)
			continue;
		c = palloc(sizeof(SbChunk));
		c->data = pieces[i];
		c->len = lens[i];
		req->chunks = lappend(req->chunks, c);
	}
}

/* One empty column buffer per result column, in r->cxt. */
void
sb_receiver_columns(SbReceiver *r, TupleDesc typeinfo)
{
	int			i;

	r->nrows = 0;
	r->ncols = typeinfo->natts;
	r->cols = MemoryContextAllocZero(r->cxt, sizeof(SbColumn) * Max(r->ncols, 1));
	for (i = 0; i < r->ncols; i++)
	{
		Form_pg_attribute att = TupleDescAttr(typeinfo, i);

		sb_column_init(&r->cols[i], NameStr(att->attname), att->atttypid,
					   r->req->numeric_decimal, r->cxt);
	}
	r->rowcxt = AllocSetContextCreate(r->cxt, "pysandbox row", ALLOCSET_SMALL_SIZES);
}

/* DestReceiver startup: one column buffer per result column. */
static void
sb_receiver_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	SbReceiver *r = (SbReceiver *) self;

	/* a streamed input's columns outlive each fetch's run */
	if (r->stream)
		return;
	if (r->group != NULL)
		r->typeinfo = typeinfo = sb_group_columns(r->group, typeinfo);
	sb_receiver_columns(r, typeinfo);
	/* options.parallel over partitions: the rows go to them (sb_groups.c) */
	if (r->group != NULL && sb_group_partitioned(r->group))
		sb_group_partition_columns(r->group, typeinfo);
}

/*
 * Raise the error of a table input past max_input_rows (which =
 * SB_LIMIT_INPUT_ROWS) or max_input_size (SB_LIMIT_INPUT_SIZE); group is
 * the group that reached it ("(region)=(north)") with options.group_by,
 * whose limits apply to each group, or NULL.
 */
void
sb_input_limit_error(const SbLimits *lim, SbLimitId which, const char *input,
					 const char *group)
{
	bool		rows = which == SB_LIMIT_INPUT_ROWS;

	/* sql()'s rows count with the call's table inputs */
	if (group == NULL && input != NULL && strcmp(input, "sql()") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 rows ? errmsg("the rows of sql() and the table inputs are more than %d",
							   lim->max_input_rows) :
				 errmsg("the rows of sql() and the table inputs are larger than %d MB",
						lim->max_input_mb),
				 errdetail("The rows every sql() of a call returns count against its input limits, with its table inputs."),
				 errhint("%s", sb_limit_hint(rows ? "Aggregate or filter in the query passed to sql()" :
											 "Select fewer columns or rows in the query passed to sql()",
											 lim, which))));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 group ? (rows ? errmsg("a group has more than %d rows", lim->max_input_rows) :
					  errmsg("a group is larger than %d MB", lim->max_input_mb)) :
			 (rows ? errmsg("table inputs have more than %d rows", lim->max_input_rows) :
			  errmsg("table inputs are larger than %d MB", lim->max_input_mb)),
			 group ? errdetail("Group %s of input \"%s\" reached the limit; with group_by, the limit applies to each group.",
							   group, input) :
			 errdetail("Input \"%s\" reached the limit.", input),
			 errhint("%s", sb_limit_hint(rows ? "Aggregate or filter in the query" :
										 "Select fewer columns or rows", lim, which))));
}

/* DestReceiver: one row into the column buffers. */
static bool
sb_receiver_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SbReceiver *r = (SbReceiver *) self;
	MemoryContext old = MemoryContextSwitchTo(r->rowcxt);
	uint64		bytes = 0;
	int			i;

	if (r->group != NULL && sb_group_partitioned(r->group))
	{
		MemoryContextSwitchTo(old);
		sb_group_route(r->group, slot);
		return true;
	}
	slot_getallattrs(slot);
	if (r->group != NULL)
	{
		/* the rows come sorted by the key: a new key ends the group */
		if (r->nrows > 0 && !sb_group_same_key(r->group, slot))
		{
			MemoryContextSwitchTo(old);
			sb_group_flush(r->group, r->cols, r->ncols, r->nrows);
			MemoryContextReset(r->cxt);
			sb_receiver_columns(r, r->typeinfo);
			old = MemoryContextSwitchTo(r->rowcxt);
		}
		if (r->nrows == 0)
			sb_group_begin(r->group, slot);
	}
	/*
	 * A value past what is left of the budget is refused before it is
	 * converted and copied into a column (whose buffer grows by doubling):
	 * sql("SELECT repeat('x', 1000000000)") took 3 GB of the backend's
	 * memory before the check below (review 43).  The raw size is what the
	 * text form of most types is near; the check below stays exact, and
	 * the columns' sizes are added up here only for a row of a megabyte or
	 * more (a smaller one cannot take the buffers far past the budget).
	 */
	{
		uint64		have = 0;
		uint64		raw = 0;
		TupleDesc	desc = slot->tts_tupleDescriptor;

		for (i = 0; i < r->ncols; i++)
			if (!slot->tts_isnull[i] && TupleDescAttr(desc, i)->attlen == -1)
				raw += toast_raw_datum_size(slot->tts_values[i]);
		if (raw >= 1024 * 1024)
		{
			for (i = 0; i < r->ncols; i++)
				have += sb_column_size(&r->cols[i]);
			if (r->req->input_bytes + have + raw > (uint64) r->req->limits.max_input_mb * 1024 * 1024)
				sb_input_limit_error(&r->req->limits, SB_LIMIT_INPUT_SIZE, r->input,
									 r->group ? sb_group_describe(r->group) : NULL);
		}
	}
	for (i = 0; i < r->ncols; i++)
	{
		sb_column_append(&r->cols[i], slot->tts_values[i], slot->tts_isnull[i],
						 r->nrows, r->input);
		bytes += sb_column_size(&r->cols[i]);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);

	r->nrows++;
	if (r->req->input_rows + r->nrows > (uint64) r->req->limits.max_input_rows)
		sb_input_limit_error(&r->req->limits, SB_LIMIT_INPUT_ROWS, r->input,
							 r->group ? sb_group_describe(r->group) : NULL);
	if (r->req->input_bytes + bytes > (uint64) r->req->limits.max_input_mb * 1024 * 1024)
		sb_input_limit_error(&r->req->limits, SB_LIMIT_INPUT_SIZE, r->input,
							 r->group ? sb_group_describe(r->group) : NULL);
	return true;
}

static void
sb_receiver_shutdown(DestReceiver *self)
{
}

static void
sb_receiver_destroy(DestReceiver *self)
{
}

/* A receiver of rows for input `input` into buffers in cxt. */
SbReceiver *
sb_receiver_new(SbRequest *req, const char *input, MemoryContext cxt)
{
	SbReceiver *r = palloc0(sizeof(SbReceiver));

	r->pub.receiveSlot = sb_receiver_receive;
	r->pub.rStartup = sb_receiver_startup;
	r->pub.rShutdown = sb_receiver_shutdown;
	r->pub.rDestroy = sb_receiver_destroy;
	r->pub.mydest = DestNone;
	r->req = req;
	r->input = input;
	r->cxt = cxt;
	return r;
}

/* Parser hook: let the query's context decide the types of $1..$n. */
typedef struct SbParamTypes
{
	Oid		   *types;
	int			n;
} SbParamTypes;

static void
sb_param_setup(ParseState *pstate, void *arg)
{
	SbParamTypes *p = (SbParamTypes *) arg;

	setup_parse_variable_parameters(pstate, &p->types, &p->n);
}


/*
 * Is the prepared plan one plain SELECT: no data-modifying WITH, no row
 * locks, no SELECT INTO?  (The raw command tag says SELECT for all of them.)
 */
static bool
sb_plan_is_plain_select(SPIPlanPtr plan)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);
	CachedPlanSource *ps;
	ListCell   *lc;

	if (list_length(sources) != 1)
		return false;
	ps = (CachedPlanSource *) linitial(sources);
	if (ps->commandTag != CMDTAG_SELECT || ps->query_list == NIL)
		return false;
	foreach(lc, ps->query_list)
	{
		Query	   *q = lfirst_node(Query, lc);

		if (q->commandType != CMD_SELECT || q->utilityStmt != NULL ||
			q->hasModifyingCTE || q->rowMarks != NIL)
			return false;
	}
	return true;
}


/*
 * What a query that is not one plain SELECT is instead (for the error's
 * detail): no statement, several (review 66: "SELECT 1; SELECT 2" was told
 * about data-modifying WITH), another command, or a SELECT that writes.
 */
static const char *
sb_not_plain_select(SPIPlanPtr plan, bool is_sql)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);
	CachedPlanSource *ps;

	if (sources == NIL)
		return "It holds no statement.";
	if (list_length(sources) > 1)
		return psprintf("It holds %d statements; %s", list_length(sources),
						is_sql ? "run each with a call of its own." :
						"give each its own input, or join them or UNION ALL them into one query.");
	ps = (CachedPlanSource *) linitial(sources);
	if (ps->commandTag != CMDTAG_SELECT)
		return psprintf("It is %s; %s only read.", GetCommandTagName(ps->commandTag),
						is_sql ? "the queries of sql()" : "table inputs");
	return is_sql ?
		"The queries of sql() only read: no data-modifying WITH, FOR UPDATE/SHARE or SELECT INTO." :
		"Table inputs only read: no data-modifying WITH, FOR UPDATE/SHARE or SELECT INTO.";
}

/* errcontext callback: say which input's query failed. */
void
sb_table_input_context(void *arg)
{
	if (strcmp((const char *) arg, "sql()") == 0)
		errcontext("query of sql()");
	else
		errcontext("table input \"%s\"", (const char *) arg);
}

/* Push cb, naming input name in errors, onto the error context stack. */
void
sb_push_input_context(ErrorContextCallback *cb, const char *name)
{
	cb->callback = sb_table_input_context;
	cb->arg = (void *) name;
	cb->previous = error_context_stack;
	error_context_stack = cb;
}

/*
 * Run one table input's query into column buffers and add its TABLE and
 * COLUMN frames to the request.
 */
/*
 * Plan a prepared table input's query, read-only as it runs: planning may
 * run functions (an immutable one is folded, a function estimated), and
 * what they write would stay.  The caller releases the plan.
 */
CachedPlan *
sb_table_plan(SPIPlanPtr plan)
{
	bool		save_read_only = XactReadOnly;
	CachedPlan *cplan;

	XactReadOnly = true;
	PG_TRY();
	{
		cplan = SPI_plan_get_cached_plan(plan);
	}
	PG_FINALLY();
	{
		XactReadOnly = save_read_only;
	}
	PG_END_TRY();
	return cplan;
}

/*
 * Prepare a table input's query (after SPI_connect): one plain SELECT, its
 * $params bound by their inferred types into *paramLI.
 */
SPIPlanPtr
sb_table_prepare(const char *name, const char *query, JsonbValue *params,
				 ParamListInfo *paramLI_out)
{
	return sb_table_prepare_with(name, query, params, paramLI_out, 0);
}


/*
 * A hint for a query's error (sb_names.c), or NULL when building it fails
 * (a schema the role may not use, met on the way; review 174 F4): the
 * hint is a courtesy, and the query's own error is what is said.  A cancel
 * or statement_timeout met while it is built goes on as itself (review
 * 176 F2: swallowed, a loop of failing sql() calls ran to the sandbox's
 * own limit).
 */
static char *
sb_hint_or_null(char *(*hint) (const char *, int), const char *query, int pos)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *volatile found = NULL;

	PG_TRY();
	{
		found = hint(query, pos);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED || edata->elevel > ERROR ||
			ProcDiePending || QueryCancelPending)
			PG_RE_THROW();
		FreeErrorData(edata);
		FlushErrorState();
		found = NULL;
	}
	PG_END_TRY();
	return found;
}

/* sb_table_prepare() with the plan's cursor options (CURSOR_OPT_*) */
SPIPlanPtr
sb_table_prepare_with(const char *name, const char *query, JsonbValue *params,
					  ParamListInfo *paramLI_out, int cursor_options)
{
	/* palloc'd: a plan revalidated later parses again into it */
	SbParamTypes *pt = palloc0(sizeof(SbParamTypes));
	SPIPrepareOptions popts;
	SPIPlanPtr	plan;
	ParamListInfo paramLI = NULL;
	int			nparams = 0;
	JsonbValue *pvals = NULL;
	bool		is_sql = strcmp(name, "sql()") == 0;	/* sb_sql_answer */
	const char *what = is_sql ? name : psprintf("input \"%s\"", name);
	const char *given = is_sql ? "sql() was given" : "\"$params\" has";
	int			i;

	if (params != NULL)
	{
		JsonbIterator *it;
		JsonbValue	v;
		JsonbIteratorToken tok;

		if (params->type != jbvBinary || !JsonContainerIsArray(params->val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"$params\" of input \"%s\" must be a JSON array", name)));
		nparams = JsonContainerSize(params->val.binary.data);
		pvals = palloc0(sizeof(JsonbValue) * Max(nparams, 1));
		it = JsonbIteratorInit(params->val.binary.data);
		i = 0;
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			if (tok == WJB_ELEM && i < nparams)
				pvals[i++] = v;
	}

	/*
	 * The parser enlarges the types' array with repalloc, in the context
	 * of the array it is given: one of ours, so it outlives the parse (a
	 * palloc of its own was in SPI's execution context, freed before
	 * SPI_prepare returned, and the types were read from freed memory: a
	 * long query crashed the backend, review 81 C1).
	 */
	pt->types = palloc0(sizeof(Oid));
	memset(&popts, 0, sizeof(popts));
	popts.parserSetup = sb_param_setup;
	popts.parserSetupArg = pt;
	popts.parseMode = RAW_PARSE_DEFAULT;
	popts.cursorOptions = cursor_options;
	{
		MemoryContext cxt = CurrentMemoryContext;
		bool		save_read_only = XactReadOnly;

		/*
		 * read-only as the query is: parsing converts literals, and a
		 * domain's CHECK then runs (review 110 F3: nextval() in one, over
		 * '{5}'::dom[], advanced a sequence for good)
		 */
		XactReadOnly = true;
		PG_TRY();
		{
			plan = SPI_prepare_extended(query, &popts);
			XactReadOnly = save_read_only;
		}
		PG_CATCH();
		{
			ErrorData  *edata;
			char	   *similar;
			int			pos;

			XactReadOnly = save_read_only;
			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			/* SPI reports the position as the internal query's */
			pos = edata->internalpos > 0 ? edata->internalpos : edata->cursorpos;
			/* sql()'s hint for them is its own (sb_runtime.py _sql_error) */
			if (edata->sqlerrcode == ERRCODE_SYNTAX_ERROR && edata->hint == NULL && !is_sql)
			{
				const char *placeholder;

				FlushErrorState();
				placeholder = sb_foreign_placeholder(query);
				if (placeholder != NULL && strcmp(placeholder, "IN $n") == 0)
					edata->hint = pstrdup("Write = ANY($1) with a JSON array in \"$params\": WHERE status = ANY($1), \"$params\": [[\"paid\", \"new\"]]. IN takes a parenthesized list of values, not a parameter.");
				else if (placeholder != NULL)
					edata->hint = psprintf("PostgreSQL numbers a query's parameters $1, $2, ...: write them where the query has %s, and give their values in \"$params\" in that order.",
										   placeholder);
				ReThrowError(edata);
			}
			if (edata->sqlerrcode == ERRCODE_UNDEFINED_COLUMN && edata->hint == NULL && pos > 0)
			{
				char	   *columns;

				FlushErrorState();
				columns = sb_hint_or_null(sb_columns_hint, query, pos);
				if (columns != NULL)
					edata->hint = psprintf("%s.", columns);
				ReThrowError(edata);
			}
			if (edata->sqlerrcode != ERRCODE_UNDEFINED_TABLE || edata->hint != NULL || pos <= 0)
				PG_RE_THROW();
			FlushErrorState();
			similar = sb_hint_or_null(sb_missing_hint, query, pos);
			if (similar != NULL)
				edata->hint = psprintf("Did you mean %s? A name is looked up in search_path unless it names its schema (schema.table).",
									   similar);
			ReThrowError(edata);
		}
		PG_END_TRY();
	}
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not prepare the query of %s: %s",
						what, SPI_result_code_string(SPI_result))));
	/* sql()'s error reaches the code as its message and hint (review 147) */
	if (!sb_plan_is_plain_select(plan))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query of %s must be a single SELECT statement", what),
				 is_sql ? errhint("%s", sb_not_plain_select(plan, is_sql)) :
				 errdetail("%s", sb_not_plain_select(plan, is_sql))));

	if (is_sql && OidIsValid(sb_plan_volatile_function(plan)))
		sb_refuse_volatile(sb_plan_volatile_function(plan));
	for (i = 0; is_sql && i < Min(pt->n, nparams); i++)
		if (OidIsValid(sb_type_volatile_function(pt->types[i])))
			sb_refuse_volatile(sb_type_volatile_function(pt->types[i]));
	if (pt->n != nparams)
	{
		/* sql(q, (a, b)), as psycopg2 takes them (review 94) */
		bool		one_list = is_sql && nparams == 1 && pt->n > 1 &&
			pvals[0].type == jbvBinary && JsonContainerIsArray(pvals[0].val.binary.data);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("the query of %s uses %d parameter but %s %d",
							   "the query of %s uses %d parameters but %s %d",
							   pt->n, what, pt->n, given, nparams),
				 one_list ?
				 errhint("Pass the values as separate arguments, sql(query, a, b), not as one tuple or list: a list is one array parameter (WHERE x = ANY($1)).") : 0));
	}
	if (nparams > 0)
	{
		bool		save_read_only = XactReadOnly;

		paramLI = makeParamList(nparams);
		/*
		 * A parameter made a domain's runs the domain's CHECK here, before
		 * the query: read-only as the query is (review 103 F3: a CHECK that
		 * called nextval() advanced a sequence for good)
		 */
		XactReadOnly = true;
		PG_TRY();
		{
			for (i = 0; i < nparams; i++)
			{
				ParamExternData *prm = &paramLI->params[i];
				Oid			typinput,
							typioparam;
				bool		isnull;
				char	   *text;
				int			slow;
				int			per_byte;

				if (pt->types[i] == InvalidOid || pt->types[i] == UNKNOWNOID)
					ereport(ERROR,
							(errcode(ERRCODE_INDETERMINATE_DATATYPE),
							 errmsg("could not determine the data type of parameter $%d in %s",
									i + 1, what),
							 errhint("Add a cast, such as $%d::text.", i + 1)));
				text = sb_param_text(&pvals[i], pt->types[i], i, what, &isnull);
				if (text != NULL && !isnull &&
					(slow = sb_slow_input(pt->types[i])) != SB_SLOW_NONE)
					sb_check_slow_input(slow, pt->types[i], text, strlen(text),
										psprintf("parameter $%d of %s", i + 1, what));
				getTypeInputInfo(pt->types[i], &typinput, &typioparam);
				if (text != NULL && (per_byte = sb_builds_elements(pt->types[i])) != 0)
				{
					FmgrInfo	flinfo;

					fmgr_info(typinput, &flinfo);
					prm->value = sb_build_input(&flinfo, text, strlen(text), pt->types[i],
												typioparam, -1, per_byte,
												psprintf("parameter $%d of %s", i + 1, what));
				}
				else
					prm->value = OidInputFunctionCall(typinput, text, typioparam, -1);
				prm->isnull = isnull;
				prm->pflags = PARAM_FLAG_CONST;
				prm->ptype = pt->types[i];
			}
		}
		PG_FINALLY();
		{
			XactReadOnly = save_read_only;
		}
		PG_END_TRY();
	}
	*paramLI_out = paramLI;
	return plan;
}

static void
sb_table_input_scan(SbRequest *req, const char *name, const char *query, JsonbValue *params,
					struct SbGroupScan *group)
{
	ErrorContextCallback errcb;
	SbReceiver *r;
	SPIExecuteOptions eopts;
	SPIPlanPtr	plan;
	ParamListInfo paramLI = NULL;
	bool		save_read_only = XactReadOnly;
	MemoryContext cxt = CurrentMemoryContext;
	const char *what = strcmp(name, "sql()") == 0 ? name : psprintf("input \"%s\"", name);

	sb_push_input_context(&errcb, name);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (strcmp(name, "sql()") == 0)
	{
		/* a large answer is read forward in row groups (sb_sql_stream) */
		plan = sb_table_prepare_with(name, query, params, &paramLI, CURSOR_OPT_NO_SCROLL);
		if (req->answering != NULL && sb_stream_large(plan))
		{
			sb_sql_stream(req, plan, paramLI, cxt);
			SPI_finish();
			error_context_stack = errcb.previous;
			return;
		}
	}
	else
		plan = sb_table_prepare(name, query, params, &paramLI);
	if (group == NULL && strcmp(name, "sql()") != 0 && sb_stream_wanted(req, plan))
	{
		/* large: its rows go while the call runs (sb_stream.c) */
		MemoryContext spi = MemoryContextSwitchTo(cxt);

		sb_stream_add(req, name, query, params);
		MemoryContextSwitchTo(spi);
		SPI_finish();
		error_context_stack = errcb.previous;
		return;
	}
	{
		/* in the caller's memory: the rows are queued after SPI_finish() */
		MemoryContext spi = MemoryContextSwitchTo(cxt);

		r = sb_receiver_new(req, name, cxt);
		r->group = group;
		if (group != NULL)
			r->cxt = AllocSetContextCreate(cxt, "pysandbox group input", ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(spi);
	}
	if (group != NULL)
	{
		/*
		 * group_by: the key columns are checked against the query's own
		 * columns, then the query runs again sorted by them
		 */
		CachedPlanSource *ps = linitial(SPI_plan_get_plan_sources(plan));
		bool		ordered = ps->query_list != NIL &&
			linitial_node(Query, ps->query_list)->sortClause != NIL;
		char	   *sorted = sb_group_query(group, ps->resultDesc, query, ordered);

		/* options.parallel: unsorted, over partitions, when it can */
		sb_group_check_parallel(group, plan);
		if (!sb_group_partition(group, plan))
		{
			SPI_freeplan(plan);
			plan = sb_table_prepare(name, sorted, params, &paramLI);
			sb_group_check_parallel(group, plan);
		}
	}

	memset(&eopts, 0, sizeof(eopts));
	eopts.params = paramLI;
	eopts.read_only = true;
	eopts.dest = (DestReceiver *) r;

	/* read-only for real: volatile functions like nextval() fail too */
	XactReadOnly = true;
	PG_TRY();
	{
		int			rc = SPI_execute_plan_extended(plan, &eopts);

		if (rc < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not run the query of %s: %s",
							what, SPI_result_code_string(rc))));
	}
	PG_FINALLY();
	{
		XactReadOnly = save_read_only;
	}
	PG_END_TRY();

	SPI_finish();
	error_context_stack = errcb.previous;

	if (group == NULL)
		sb_request_add_table(req, name, r->cols, r->ncols, r->nrows);
	else
	{
		/*
		 * the last group, read-only as the others (run inside the scan),
		 * then the groups still running in parallel workers
		 */
		XactReadOnly = true;
		PG_TRY();
		{
			if (r->nrows > 0)
				sb_group_flush(group, r->cols, r->ncols, r->nrows);
			sb_groups_drain(group);
		}
		PG_FINALLY();
		{
			XactReadOnly = save_read_only;
		}
		PG_END_TRY();
		MemoryContextDelete(r->cxt);
	}
}

void
sb_table_input(SbRequest *req, const char *name, const char *query, JsonbValue *params)
{
	sb_table_input_scan(req, name, query, params, NULL);
}

static void
sb_group_job(void *arg)
{
	SbTableJob *job = (SbTableJob *) arg;

	sb_table_input_scan(job->req, job->name, job->query, job->params, job->group);
}

/*
 * options.group_by: run the request's one table input, sorted by the key,
 * each group as soon as it is complete (sb_groups.c), in a subtransaction
 * rolled back as any table input's.
 */
void
sb_table_input_grouped(SbRequest *req, const char *query, struct SbGroupScan *group)
{
	SbTableJob	job;

	memset(&job, 0, sizeof(job));
	job.req = req;
	job.name = req->group_input;
	job.query = query;
	job.params = req->group_params;
	job.group = group;
	sb_rolled_back(sb_group_job, &job);
}

/*
 * fn(arg) in a subtransaction that is always rolled back (sb_table_input():
 * the query is read-only (XactReadOnly) but some functions write all the same (large
 * objects: lo_from_bytea, lo_import), notify or set settings; whatever it
 * did is undone once its rows are copied into the request.  An error is
 * raised as it came, after the rollback.  (Session-level advisory locks and
 * what a query does on another server through dblink or a foreign table
 * are not undone by a rollback.)
 */
void
sb_rolled_back(void (*fn) (void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ReThrowError(edata);
	}
	PG_END_TRY();
	RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
}

static void
sb_table_job(void *arg)
{
	SbTableJob *job = (SbTableJob *) arg;

	sb_table_input(job->req, job->name, job->query, job->params);
}

static void
sb_table_input_undone(SbRequest *req, const char *name, const char *query, JsonbValue *params)
{
	SbTableJob	job;

	memset(&job, 0, sizeof(job));
	job.req = req;
	job.name = name;
	job.query = query;
	job.params = params;
	sb_rolled_back(sb_table_job, &job);
}

/*
 * Queue a table input: the TABLE header (its name, row count and columns),
 * then one COLUMN frame per column; counted against the call's input.
 */
void
sb_request_add_table(SbRequest *req, const char *name, SbColumn *cols, int ncols,
					 uint64 nrows)
{
	int			i;

	sb_request_add_table_header(req, name, cols, ncols, (int64) nrows);
	for (i = 0; i < ncols; i++)
	{
		req->input_bytes += sb_column_size(&cols[i]);
		sb_column_add_frame(req, &cols[i], nrows);
	}
	req->input_rows += nrows;
}

/*
 * Queue a TABLE header: the input's name, row count and columns; a
 * negative nrows marks a streamed input, whose rows come in row groups
 * (SB_DATA_CHUNK).
 */
void
sb_request_add_table_header(SbRequest *req, const char *name, SbColumn *cols, int ncols,
							int64 nrows)
{
	StringInfoData hdr;
	int			i;

	initStringInfo(&hdr);
	appendStringInfoString(&hdr, "{\"name\":");
	escape_json(&hdr, name);
	if (nrows < 0)
		appendStringInfoString(&hdr, ",\"nrows\":null,\"stream\":true,\"columns\":[");
	else
		appendStringInfo(&hdr, ",\"nrows\":" INT64_FORMAT ",\"columns\":[", nrows);
	for (i = 0; i < ncols; i++)
	{
		SbColumn   *c = &cols[i];
		char	   *u = pg_server_to_any(c->name, strlen(c->name), PG_UTF8);

		if (i > 0)
			appendStringInfoChar(&hdr, ',');
		appendStringInfoString(&hdr, "{\"name\":");
		escape_json(&hdr, u);
		appendStringInfo(&hdr, ",\"kind\":%d,\"dtype\":\"%s\",\"pgtype\":", c->kind, sb_kind_name(c->kind));
		escape_json(&hdr, format_type_be(c->typid));
		appendStringInfoChar(&hdr, '}');
	}
	appendStringInfoString(&hdr, "]}");
	sb_request_add_frame(req, SB_DATA_TABLE, hdr.data, hdr.len, NULL, 0, NULL, 0);
}


/* Parse a $table name, naming the input if it is not a valid name. */
static List *
sb_table_name(const char *input, const char *relname)
{
	ErrorContextCallback errcb;
	MemoryContext cxt = CurrentMemoryContext;
	List	   *volatile names = NIL;

	sb_push_input_context(&errcb, input);
	PG_TRY();
	{
		names = stringToQualifiedNameList(relname);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		/* "orders where id < 5", "orders(id, amount)" (review 165 F2) */
		if (edata->sqlerrcode != ERRCODE_INVALID_NAME || edata->hint != NULL)
			PG_RE_THROW();
		FlushErrorState();
		edata->hint = pstrdup("A \"$table\" is a table's name, as orders or shop.orders, with double quotes around a part that has spaces or capitals (\"\\\"My Table\\\"\" in JSON); for some of its rows or columns write {\"$query\": \"SELECT ... FROM orders WHERE ...\"}.");
		ReThrowError(edata);
	}
	PG_END_TRY();
	error_context_stack = errcb.previous;
	return names;
}


/* Does this object use the table-input form ($query / $table / $literal)? */
static bool
sb_has_dollar_key(JsonbContainer *obj)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		found = false;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY && v.val.string.len > 0 && v.val.string.val[0] == '$')
			found = true;
	return found;
}

JsonbValue *
sb_get_key(JsonbContainer *obj, const char *key)
{
	return getKeyJsonValueFromContainer(obj, key, strlen(key), NULL);
}

/* Append a JsonbValue as JSON text. */
static void
sb_append_json_value(StringInfo buf, JsonbValue *v)
{
	if (v->type == jbvBinary)
		(void) JsonbToCString(buf, v->val.binary.data, v->val.binary.len);
	else
	{
		Jsonb	   *jb = JsonbValueToJsonb(v);

		(void) JsonbToCString(buf, &jb->root, VARSIZE(jb));
	}
}

typedef enum SbInputForm
{
	SB_INPUT_PLAIN,				/* a JSON value ($literal's included) */
	SB_INPUT_QUERY,				/* {"$query": ..., "$params": [...]} */
	SB_INPUT_TABLE				/* {"$table": ...} */
} SbInputForm;

static void
sb_inputs_must_be_object(Jsonb *inputs)
{
	if (!JB_ROOT_IS_OBJECT(inputs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("inputs must be a JSON object"),
				 errhint("Pass inputs such as '{\"df\": {\"$query\": \"SELECT ...\"}, \"n\": 3}'.")));
}

/* An input's name, checked. */
static char *
sb_input_name(JsonbValue *v)
{
	char	   *key = pnstrdup(v->val.string.val, v->val.string.len);

	if (!sb_is_identifier(key))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("input name \"%s\" is not allowed", key),
				 errdetail("Input names must be ASCII Python identifiers that are not keywords and do not begin with \"__\".")));
	return key;
}

/*
 * What input key's value *v is, raising for a malformed table input (no
 * query runs here).  For $query, *query and *params are set; for $table,
 * *query is the SELECT; a $literal's value replaces *v.
 */
static SbInputForm
sb_input_form(const char *key, JsonbValue *v, char **query, JsonbValue **params)
{
	JsonbContainer *obj;
	JsonbValue *q;
	JsonbValue *t;
	JsonbValue *lit;
	int			nkeys;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data) ||
		!sb_has_dollar_key(v->val.binary.data))
		return SB_INPUT_PLAIN;
	obj = v->val.binary.data;
	nkeys = JsonContainerSize(obj);
	q = sb_get_key(obj, "$query");
	t = sb_get_key(obj, "$table");
	lit = sb_get_key(obj, "$literal");
	*params = sb_get_key(obj, "$params");
	if (q && nkeys == (*params ? 2 : 1))
	{
		if (q->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"$query\" of input \"%s\" must be a string", key)));
		if (*params != NULL &&
			((*params)->type != jbvBinary || !JsonContainerIsArray((*params)->val.binary.data)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"$params\" of input \"%s\" must be a JSON array", key)));
		*query = pnstrdup(q->val.string.val, q->val.string.len);
		return SB_INPUT_QUERY;
	}
	*params = NULL;
	if (t && nkeys == 1)
	{
		if (t->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"$table\" of input \"%s\" must be a string", key)));
		*query = psprintf("SELECT * FROM %s",
						  NameListToQuotedString(sb_table_name(key, pnstrdup(t->val.string.val,
																			 t->val.string.len))));
		return SB_INPUT_TABLE;
	}
	if (lit && nkeys == 1)
	{
		*v = *lit;
		return SB_INPUT_PLAIN;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("input \"%s\" is not a valid table input", key),
			 errhint("Use {\"$query\": \"SELECT ...\", \"$params\": [...]}, {\"$table\": \"schema.name\"}, "
					 "or {\"$literal\": ...} for JSON that contains \"$\" keys.")));
	return SB_INPUT_PLAIN;		/* not reached */
}

/*
 * Walk the inputs object: with req, plain values go into req->json as
 * "inputs":{...} and table inputs run into frames; with describe, each
 * input is described into describe->out (sb_describe.c); with
 * neither, only names and forms are checked.  Returns whether any input
 * reads the database.
 */
static bool
sb_inputs_walk(SbRequest *req, Jsonb *inputs, SbDescribe *describe)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;
	bool		tables = false;
	char	   *key = NULL;
	StringInfo	out = req ? &req->json : describe ? describe->out : NULL;

	sb_inputs_must_be_object(inputs);
	if (req)
		appendStringInfoString(out, "\"inputs\":");
	if (out)
		appendStringInfoChar(out, '{');
	it = JsonbIteratorInit(&inputs->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *query;
		JsonbValue *params;
		SbInputForm form;

		if (tok == WJB_KEY)
			key = sb_input_name(&v);
		if (tok != WJB_VALUE)
			continue;
		form = sb_input_form(key, &v, &query, &params);
		tables |= form != SB_INPUT_PLAIN;
		if (req && form != SB_INPUT_PLAIN && req->group_by != NIL)
		{
			/* run later, group by group (sb_groups.c) */
			if (req->group_input != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("options.group_by needs exactly one table input, but inputs \"%s\" and \"%s\" are both tables",
								req->group_input, key),
						 errhint("Join them in one $query, or pass the smaller one with sql() from inside the function.")));
			req->group_input = key;
			req->group_query = query;
			req->group_params = params;
		}
		else if (req && form != SB_INPUT_PLAIN)
			sb_table_input_undone(req, key, query, params);
		if (out == NULL || (req && form != SB_INPUT_PLAIN))
			continue;
		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		escape_json(out, key);
		appendStringInfoChar(out, ':');
		if (req)
			sb_append_json_value(out, &v);
		else if (form != SB_INPUT_PLAIN)
			sb_describe_table(describe, key, query, params);
		else
			sb_describe_value(describe, &v);
	}
	if (out)
		appendStringInfoChar(out, '}');
	return tables;
}

/*
 * Check the inputs' names and forms as sb_inputs_encode() will, raising the
 * same errors (22023), without running any query; true if they read the
 * database ($query or $table).
 */
bool
sb_inputs_check(Jsonb *inputs)
{
	return sb_inputs_walk(NULL, inputs, NULL);
}

/*
 * Encode the inputs object: plain values go into req->json as
 * "inputs":{...}; table inputs become frames.
 */
void
sb_inputs_encode(SbRequest *req, Jsonb *inputs)
{
	(void) sb_inputs_walk(req, inputs, NULL);
}

/* Describe each input into d->out, as a JSON object (sandbox_describe). */
void
sb_inputs_describe(Jsonb *inputs, SbDescribe *d)
{
	(void) sb_inputs_walk(NULL, inputs, d);
}
