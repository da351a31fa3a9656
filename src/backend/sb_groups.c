/*
 * sb_groups.c
 *		options.group_by: the function once per group of the table input's
 *		rows, each group in a fresh contained process of its own.
 *
 * The one table input's query runs sorted by the key columns
 * (SELECT * FROM (query) ORDER BY keys: PostgreSQL sorts, spilling to disk
 * past work_mem).  Rows go into column buffers as for any table input
 * (sb_inputs.c); when a row's key differs from the group's (the key type's
 * default equality, the column's collation: what ORDER BY sorted by, so
 * NULL keys form one group, as in SQL's GROUP BY), the group is complete:
 * its request (the call's REQUEST frame, the group's table, END) goes to a
 * new child, its outcome is checked and kept (sandbox_execute) or turned
 * into rows (sandbox_rows), and its buffers are freed before the next group
 * is read.  The backend holds one group's columns at a time.
 *
 * A group's child serves the call's next group too (sb_group_call): a
 * held child (sb_held.c) that takes a whole request per call, each in a
 * fresh namespace, as a fresh child would; forking a contained process per
 * group cost ~28 ms a group on the slower VM, more than most groups' work.
 *
 * Every limit applies to each group's call (time, CPU, and the input
 * limits to each group's rows); memory is the child's, and a group that
 * fails for memory or crashes on a child that ran earlier groups runs once
 * more on a fresh one, so that nothing an earlier group left can fail it.
 * The output budget is the call's, shared by all groups.  A failing group
 * fails the call, with the group's key in the error's context.
 *
 * With options.parallel the input is read unsorted instead, when it can
 * be, and each group's rows go to the child of a parallel worker that
 * keeps them for the group's call ("options.parallel over partitions",
 * below).
 */
#include "pysandbox.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "catalog/pg_proc.h"
#include "executor/spi.h"
#include "optimizer/clauses.h"
#include "utils/plancache.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

typedef struct SbGroupKey
{
	const char *name;
	int			attno;			/* 0-based, in the input's columns */
	Oid			typid;
	Oid			collation;
	bool		byval;
	int16		typlen;
	FmgrInfo	eq;				/* the type's default equality */
	FmgrInfo	out;			/* its output function */
	FmgrInfo	hash;			/* partitions: its default hash function */
	FmgrInfo	cmp;			/* ... and its default ordering */
	bool		binary_eq;		/* ... and equal exactly when the Datums are */
} SbGroupKey;

/* a group whose request is built: what judging its outcome needs */
typedef struct SbGroupTask
{
	char	  **keytexts;		/* its key, as text; NULL: SQL NULL */
	char	   *described;		/* "(region)=(north)" */
	uint64		input_rows;
	uint64		input_bytes;
	int			worker;			/* the pool's worker running it */
	int			first_diff;		/* its first key whose value differs from
								 * the previous group's */
} SbGroupTask;

/* one group's result, kept for sandbox_execute's object */
typedef struct SbGroupResult
{
	char	  **keys;			/* text of each key value; NULL: SQL NULL */
	uint64		ids[SB_MAX_GROUP_KEYS];	/* which value its first i+1 keys
										 * have, numbered in scan order */
	Jsonb	   *result;			/* {"main": ..., ...} */
} SbGroupResult;

typedef struct SbGroupScan
{
	SbRequest  *base;			/* the call's request (REQUEST payload ready) */
	const SbLimits *limits;
	const char *input;
	int			nkeys;
	SbGroupKey	keys[SB_MAX_GROUP_KEYS];
	MemoryContext cxt;			/* lives for the whole call */
	MemoryContext keycxt;		/* the current group's key values */
	Datum		keyvals[SB_MAX_GROUP_KEYS];
	bool		keynulls[SB_MAX_GROUP_KEYS];
	char	   *keytexts[SB_MAX_GROUP_KEYS];
	char	   *described;		/* "(region)=(north)", for messages */
	ErrorContextCallback *outer;	/* the error context of the call itself */

	/* what becomes of each group's outcome */
	struct SbRowsOut *rows;		/* sandbox_rows: into store */
	Tuplestorestate *store;
	const char *func;
	List	   *results;		/* sandbox_execute: SbGroupResult * */
	SbGroupResult **sorted;		/* results by their keys' text */
	int			nsorted;

	SbGroupChild child;			/* the child kept for the next group */
	MemoryContextCallback child_cb; /* ... let go with cxt, however it ends */

	/* options.parallel: groups handed to workers, judged in order */
	struct SbGroupPool *pool;	/* NULL: each group runs in the leader */
	bool		pool_tried;
	bool		parallel_safe;	/* the input query may run in parallel mode */
	int			first_diff;		/* the current group's, as in SbGroupTask */
	uint64		begun;			/* groups begun */
	uint64		level_ids[SB_MAX_GROUP_KEYS];	/* SbGroupResult.ids so far */
	List	   *inflight;		/* SbGroupTask *, oldest first */
	struct SbGroupTask *judging;	/* the group whose outcome is judged */
	ErrorContextCallback pool_context;	/* the workers' messages' context:
										 * lives as long as the pool */

	/* options.parallel over partitions (below): NULL when not */
	struct SbPartitions *parts;

	/* sandbox_run: a report per group instead of raising */
	StringInfo	report;			/* the groups' reports, a JSON array's items */
	StringInfo	first_error;	/* the first failing group's error, or NULL */
	const char *first_kind;
	int			first_sqlstate;
	bool		stopped;		/* the output budget is spent: no more runs */
	uint64		not_run;
	bool		all_ok;

	/* the call's usage, over all groups */
	uint64		groups;
	uint64		output_bytes;
	uint64		cpu_us;
	uint64		peak_kb;
	uint64		rows_in;
	uint64		bytes_in;
} SbGroupScan;

/* errcontext: which group failed */
static void
sb_group_context(void *arg)
{
	SbGroupScan *gs = (SbGroupScan *) arg;

	errcontext("group %s of input \"%s\"",
			   gs->judging ? gs->judging->described : sb_group_describe(gs), gs->input);
}

/* the context of the workers' messages (they name their group themselves) */
static void
sb_group_pool_context(void *arg)
{
}

/* "(region, year)=(north, 2024)", as PostgreSQL describes a key */
const char *
sb_group_describe(SbGroupScan *gs)
{
	StringInfoData buf;
	int			i;

	if (gs->described != NULL)
		return gs->described;
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	for (i = 0; i < gs->nkeys; i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? ", " : "", quote_identifier(gs->keys[i].name));
	appendStringInfoString(&buf, ")=(");
	for (i = 0; i < gs->nkeys; i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? ", " : "",
						 gs->keytexts[i] ? gs->keytexts[i] : "null");
	appendStringInfoChar(&buf, ')');
	gs->described = MemoryContextStrdup(gs->keycxt, buf.data);
	pfree(buf.data);
	return gs->described;
}

/*
 * The input query's result columns (desc, from its plan): find the key
 * columns, check that they can be sorted and compared, and return the
 * query that reads the input sorted by them, by position (names may be
 * duplicated or need quoting):
 *   SELECT * FROM (query) AS pysandbox_group_input ORDER BY 2, 1
 * The input's query goes in as the parser delimits its one statement.
 */
char *
sb_group_query(SbGroupScan *gs, TupleDesc desc, const char *query)
{
	StringInfoData buf;
	int			start = 0;
	int			len = strlen(query);
	int			i,
				j;

	if (desc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query of input \"%s\" returns no columns to group by", gs->input)));
	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];
		TypeCacheEntry *tc;
		Oid			outfn;
		bool		isvarlena;
		Form_pg_attribute att;

		k->attno = -1;
		for (j = 0; j < desc->natts; j++)
		{
			att = TupleDescAttr(desc, j);
			if (att->attisdropped || strcmp(NameStr(att->attname), k->name) != 0)
				continue;
			if (k->attno >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_AMBIGUOUS_COLUMN),
						 errmsg("options.group_by names column \"%s\", which input \"%s\" has twice",
								k->name, gs->input),
						 errhint("Give the columns different names in the query.")));
			k->attno = j;
		}
		if (k->attno < 0)
		{
			StringInfoData cols;

			initStringInfo(&cols);
			for (j = 0; j < desc->natts; j++)
				if (!TupleDescAttr(desc, j)->attisdropped)
					appendStringInfo(&cols, "%s\"%s\"", cols.len > 0 ? ", " : "",
									 NameStr(TupleDescAttr(desc, j)->attname));
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("options.group_by names column \"%s\", which input \"%s\" does not have",
							k->name, gs->input),
					 errhint("Its columns are: %s.", cols.len > 0 ? cols.data : "none")));
		}
		att = TupleDescAttr(desc, k->attno);
		k->typid = att->atttypid;
		k->collation = att->attcollation;
		k->byval = att->attbyval;
		k->typlen = att->attlen;
		tc = lookup_type_cache(k->typid, TYPECACHE_EQ_OPR_FINFO | TYPECACHE_LT_OPR);
		if (!OidIsValid(tc->eq_opr_finfo.fn_oid) || !OidIsValid(tc->lt_opr))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("options.group_by cannot group by column \"%s\" of type %s: the type cannot be sorted",
							k->name, format_type_be(k->typid)),
					 errhint("Group by a cast of it in the query, such as %s::text AS %s.",
							 quote_identifier(k->name), quote_identifier(k->name))));
		fmgr_info_cxt(tc->eq_opr_finfo.fn_oid, &k->eq, gs->cxt);
		getTypeOutputInfo(k->typid, &outfn, &isvarlena);
		fmgr_info_cxt(outfn, &k->out, gs->cxt);
	}

	/*
	 * The statement as the parser saw it: without a trailing semicolon or
	 * what follows it (a comment), which would end the subquery.  The
	 * query was prepared already, so it parses, as one statement.
	 */
	{
		List	   *raw = raw_parser(query, RAW_PARSE_DEFAULT);

		if (list_length(raw) == 1)
		{
			RawStmt    *rs = linitial_node(RawStmt, raw);

			start = rs->stmt_location;
			if (rs->stmt_len > 0)
				len = rs->stmt_len;
			else
				len = strlen(query) - start;
		}
	}
	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT * FROM (\n%.*s\n) AS pysandbox_group_input ORDER BY ", len, query + start);
	for (i = 0; i < gs->nkeys; i++)
		appendStringInfo(&buf, "%s%d", i > 0 ? ", " : "", gs->keys[i].attno + 1);
	return buf.data;
}

/*
 * The rows' columns (DestReceiver startup): the same as the plan's, which
 * sb_group_query() checked.  Returns a copy that lives as long as the call.
 */
TupleDesc
sb_group_columns(SbGroupScan *gs, TupleDesc typeinfo)
{
	int			i;

	for (i = 0; i < gs->nkeys; i++)
		if (gs->keys[i].attno >= typeinfo->natts ||
			TupleDescAttr(typeinfo, gs->keys[i].attno)->atttypid != gs->keys[i].typid)
			elog(ERROR, "pysandbox: the sorted input's columns differ from the query's");
	{
		MemoryContext old = MemoryContextSwitchTo(gs->cxt);
		TupleDesc	copy = CreateTupleDescCopy(typeinfo);

		MemoryContextSwitchTo(old);
		return copy;
	}
}

/*
 * The sorted query is prepared: may the groups run in parallel workers?
 * Entering parallel mode in the middle of the scan is safe only if
 * nothing the query evaluates needs what parallel mode forbids (writes,
 * subtransactions, new commands): no parallel-unsafe function in it, and
 * (sandbox_rows) no result column whose checks could call one.
 */
void
sb_group_check_parallel(SbGroupScan *gs, struct _SPI_plan *plan)
{
	ListCell   *lc;
	ListCell   *lq;

	gs->parallel_safe = gs->rows == NULL || sb_rows_parallel_safe(gs->rows);
	foreach(lc, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);

		if (ps->query_list == NIL)
			gs->parallel_safe = false;
		foreach(lq, ps->query_list)
			if (max_parallel_hazard(lfirst_node(Query, lq)) == PROPARALLEL_UNSAFE)
				gs->parallel_safe = false;
	}
}

/* Does the row in slot have the current group's key? */
bool
sb_group_same_key(SbGroupScan *gs, TupleTableSlot *slot)
{
	int			i;

	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];
		bool		isnull = slot->tts_isnull[k->attno];

		if (isnull != gs->keynulls[i])
			return false;
		if (isnull)
			continue;
		if (!DatumGetBool(FunctionCall2Coll(&k->eq, k->collation, gs->keyvals[i],
											slot->tts_values[k->attno])))
			return false;
	}
	return true;
}

/*
 * A group begins: remember its key (the values of the key columns, in
 * the order of options.group_by).
 */
static void
sb_group_set_key(SbGroupScan *gs, const Datum *vals, const bool *nulls)
{
	MemoryContext old;
	int			i;

	/* which key (from the first) begins to differ from the last group's */
	gs->first_diff = 0;
	if (gs->begun++ > 0)
	{
		for (i = 0; i < gs->nkeys; i++)
		{
			SbGroupKey *k = &gs->keys[i];

			if (nulls[i] != gs->keynulls[i] ||
				(!nulls[i] && !DatumGetBool(FunctionCall2Coll(&k->eq, k->collation,
															  gs->keyvals[i], vals[i]))))
				break;
		}
		gs->first_diff = i;
	}

	/* nothing may point into the key context while it is reset */
	gs->described = NULL;
	for (i = 0; i < gs->nkeys; i++)
		gs->keytexts[i] = NULL;
	MemoryContextReset(gs->keycxt);
	old = MemoryContextSwitchTo(gs->keycxt);
	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];

		gs->keynulls[i] = nulls[i];
		if (gs->keynulls[i])
		{
			gs->keyvals[i] = (Datum) 0;
			gs->keytexts[i] = NULL;
			continue;
		}
		gs->keyvals[i] = datumCopy(vals[i], k->byval, k->typlen);
		gs->keytexts[i] = OutputFunctionCall(&k->out, gs->keyvals[i]);
	}
	MemoryContextSwitchTo(old);
}

/* The row in slot begins a group: remember its key. */
void
sb_group_begin(SbGroupScan *gs, TupleTableSlot *slot)
{
	Datum		vals[SB_MAX_GROUP_KEYS];
	bool		nulls[SB_MAX_GROUP_KEYS];
	int			i;

	for (i = 0; i < gs->nkeys; i++)
	{
		vals[i] = slot->tts_values[gs->keys[i].attno];
		nulls[i] = slot->tts_isnull[gs->keys[i].attno];
	}
	sb_group_set_key(gs, vals, nulls);
}

/* The groups together went past the call's output limit. */
static void
sb_group_output_exceeded(SbGroupScan *gs, const char *described)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("the groups' results exceed the output limit of %d bytes",
					gs->limits->max_output_bytes),
			 errdetail("With group_by, all groups share the call's output budget; %llu groups used it up before group %s.",
					   (unsigned long long) gs->groups, described),
			 errhint("%s", sb_limit_hint("Return less from each group, or group more coarsely",
										 gs->limits, SB_LIMIT_OUTPUT))));
}

/*
 * Keep a group's result (an object) for the call's grouped result, with
 * its key's text and, per key level, which value it has (numbered in scan
 * order: groups are judged in it) for sb_group_sort_results().
 */
static void
sb_group_keep(SbGroupScan *gs, SbGroupTask *task, Jsonb *result)
{
	MemoryContext old = MemoryContextSwitchTo(gs->cxt);
	SbGroupResult *r = palloc(sizeof(SbGroupResult));
	int			i;

	r->keys = palloc(sizeof(char *) * gs->nkeys);
	for (i = 0; i < gs->nkeys; i++)
	{
		r->keys[i] = task->keytexts[i] ? pstrdup(task->keytexts[i]) : NULL;
		if (task->first_diff <= i)
			gs->level_ids[i]++;
		r->ids[i] = gs->level_ids[i];
	}
	r->result = (Jsonb *) palloc(VARSIZE(result));
	memcpy(r->result, result, VARSIZE(result));
	gs->results = lappend(gs->results, r);
	MemoryContextSwitchTo(old);
}

/*
 * sandbox_run: a group's outcome becomes its report (as sandbox_run's for
 * one call, with the group's key), its returns are kept for the grouped
 * "returns", and the first failure is the report's "error".  Only server
 * faults and interrupts raise.  Past the shared output budget, the group
 * is reported failed and no further group runs.
 */
static void
sb_group_report(SbGroupScan *gs, SbGroupTask *task, SbOutcome *out)
{
	SbFailure	f;
	bool		failed;
	char	   *returns = NULL;
	char	   *figures = NULL;
	StringInfoData one;
	uint64		output;
	int			i;

	gs->groups++;
	gs->rows_in += task->input_rows;
	gs->bytes_in += task->input_bytes;
	gs->cpu_us += out->call_cpu_us;
	gs->peak_kb = Max(gs->peak_kb, out->exit.maxrss_kb);
	output = out->result_len + out->stdout_text->len + out->stderr_text->len;
	/* the groups' results print as one value: their numbers' digits count (sb_json.c) */
	if (out->result != NULL)
		output += sb_number_expansion(out->result, out->result_len);
	gs->output_bytes += output;

	failed = sb_outcome_failure(out, gs->limits, &f);
	if (failed && f.kind == NULL)
		sb_raise_failure(&f);	/* a server fault, not the code's doing */
	if (!failed)
		failed = sb_result_failure(out, &f);
	if (!failed)
		failed = !sb_run_split(out, &returns, &figures, &f);
	if (!failed && gs->output_bytes > (uint64) gs->limits->max_output_bytes)
	{
		memset(&f, 0, sizeof(f));
		f.type = "";
		f.line = f.col = -1;
		f.sqlstate = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		f.kind = "output";
		f.message = f.report_message =
			psprintf("the groups' results exceed the output limit of %d bytes",
					 gs->limits->max_output_bytes);
		f.hint = "With group_by, all groups share the call's output budget: return less from each group, or group more coarsely.";
		failed = true;
	}
	if (failed && strcmp(f.kind, "output") == 0)
		gs->stopped = true;

	/* {"group": "(region)=(east)", "key": ["east"], "ok": ..., ...} */
	initStringInfo(&one);
	appendStringInfoString(&one, "{\"group\":");
	escape_json(&one, task->described);
	appendStringInfoString(&one, ",\"key\":[");
	for (i = 0; i < gs->nkeys; i++)
	{
		if (i > 0)
			appendStringInfoChar(&one, ',');
		if (task->keytexts[i])
			escape_json(&one, task->keytexts[i]);
		else
			appendStringInfoString(&one, "null");
	}
	appendStringInfoString(&one, "],");
	{
		StringInfoData body;

		initStringInfo(&body);
		sb_run_report(&body, failed, &f, out, task->input_rows, task->input_bytes,
					  returns, figures);
		appendStringInfoString(&one, body.data + 1);	/* past its '{' */
		pfree(body.data);
	}
	if (gs->report->len > 0)
		appendStringInfoChar(gs->report, ',');
	appendBinaryStringInfo(gs->report, one.data, one.len);
	pfree(one.data);

	if (failed)
	{
		gs->all_ok = false;
		if (gs->first_error == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(gs->cxt);
			StringInfoData err;

			gs->first_error = makeStringInfo();
			initStringInfo(&err);
			sb_run_error_json(&err, &f);
			appendStringInfoString(gs->first_error, "{\"group\":");
			escape_json(gs->first_error, task->described);
			appendStringInfo(gs->first_error, ",%s", err.data + 1);
			gs->first_kind = f.kind;
			gs->first_sqlstate = f.sqlstate;
			MemoryContextSwitchTo(old);
		}
		return;
	}
	else
	{
		/* its returns, for the grouped "returns" */
		Jsonb	   *jb = sb_jsonb_build(returns, strlen(returns), sb_jsonb_limit(strlen(returns)));

		if (jb == NULL || JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
		{
			gs->all_ok = false;
			return;
		}
		sb_group_keep(gs, task, jb);
	}
}

/*
 * A group's outcome: count its usage, check it against the call's limits
 * (which its messages name) and keep it (rows into the store, or the
 * result), raising its failure with its key in the context.
 */
static void
sb_group_judge(SbGroupScan *gs, SbGroupTask *task, SbOutcome *out)
{
	ListCell   *lc;
	uint64		output;
	int			i;

	gs->judging = task;
	if (out->partition_lost)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("the process holding the rows of group %s ended before the group ran",
						task->described),
				 errdetail("With options.parallel, each process holds the rows of its groups; it ends when its CPU time (RLIMIT_CPU, ten groups' cpu_ms) has no room for a whole group more."),
				 errhint("Run without options.parallel (groups then run one at a time, each on the process the last one left or a fresh one), or give the groups less work.")));
	if (gs->report != NULL)
	{
		sb_group_report(gs, task, out);
		gs->judging = NULL;
		return;
	}
	if (out->output_exceeded)
		sb_group_output_exceeded(gs, task->described);

	gs->groups++;
	gs->rows_in += task->input_rows;
	gs->bytes_in += task->input_bytes;
	gs->cpu_us += out->call_cpu_us;
	gs->peak_kb = Max(gs->peak_kb, out->exit.maxrss_kb);
	output = out->result_len;
	foreach(lc, out->rows_columns)
		output += ((SbChunk *) lfirst(lc))->len;
	/* the keys of the result's objects, once per returned function */
	if (gs->rows == NULL)
	{
		for (i = 0; i < gs->nkeys; i++)
			output += task->keytexts[i] ? strlen(task->keytexts[i]) : 4;
		/* the groups' results print as one value: their numbers' digits count (sb_json.c) */
		if (out->result != NULL)
			output += sb_number_expansion(out->result, out->result_len);
	}
	gs->output_bytes += output;
	/* groups that ran at once each had the budget left when it began */
	if (gs->output_bytes > (uint64) gs->limits->max_output_bytes)
	{
		gs->groups--;
		sb_group_output_exceeded(gs, task->described);
	}

	if (gs->rows != NULL)
	{
		sb_check_outcome(out, gs->limits);
		(void) sb_rows_receive(gs->rows, out, gs->limits, gs->func, gs->store, NULL, NULL);
	}
	else
	{
		Jsonb	   *result = sb_result_to_jsonb(out, gs->limits);

		/*
		 * the honest child sends {"main": ...}; anything else (an array,
		 * a scalar) is not looked into by key
		 */
		if (JB_ROOT_IS_SCALAR(result) || !JB_ROOT_IS_OBJECT(result))
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
					 errmsg("sandbox process sent an invalid result")));
		sb_group_keep(gs, task, result);
	}
	gs->judging = NULL;
}

static void
sb_group_task_free(SbGroupScan *gs, SbGroupTask *task)
{
	int			i;

	for (i = 0; i < gs->nkeys; i++)
		if (task->keytexts[i])
			pfree(task->keytexts[i]);
	pfree(task->keytexts);
	pfree(task->described);
	pfree(task);
}

/* The oldest group running in a worker: wait for its outcome and judge it. */
static void
sb_group_collect(SbGroupScan *gs)
{
	SbGroupTask *task = (SbGroupTask *) linitial(gs->inflight);
	MemoryContext callcxt;
	MemoryContext old;
	SbOutcome	out;

	gs->inflight = list_delete_first(gs->inflight);
	callcxt = AllocSetContextCreate(gs->cxt, "pysandbox group outcome", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(callcxt);
	gs->judging = task;			/* the leader's own errors while waiting */
	sb_pool_receive(gs->pool, task->worker, &out);
	sb_group_judge(gs, task, &out);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(callcxt);
	sb_group_task_free(gs, task);
}

/* The current group (sb_group_set_key), for judging its outcome later. */
static SbGroupTask *
sb_group_task_new(SbGroupScan *gs)
{
	MemoryContext old = MemoryContextSwitchTo(gs->cxt);
	SbGroupTask *task = palloc0(sizeof(SbGroupTask));
	int			i;

	task->keytexts = palloc0(sizeof(char *) * gs->nkeys);
	for (i = 0; i < gs->nkeys; i++)
		task->keytexts[i] = gs->keytexts[i] ? pstrdup(gs->keytexts[i]) : NULL;
	task->described = pstrdup(sb_group_describe(gs));
	task->first_diff = gs->first_diff;
	MemoryContextSwitchTo(old);
	return task;
}

/* The limits of the next group's call: what is left of the output budget. */
static void
sb_group_limits(SbGroupScan *gs, SbLimits *lim)
{
	*lim = *gs->limits;
	lim->max_output_bytes = Max(gs->limits->max_output_bytes - (int) gs->output_bytes, 1);
	/* groups at once: each may use its share of what is left */
	if (gs->pool != NULL)
		lim->max_output_bytes = Max(lim->max_output_bytes / sb_pool_size(gs->pool), 1);
}

/*
 * A group is complete: build its request, and run it in a fresh child,
 * here or (options.parallel) in an idle worker, judging the outcomes of
 * earlier groups first when none is idle.
 */
void
sb_group_flush(SbGroupScan *gs, SbColumn *cols, int ncols, uint64 nrows)
{
	SbRequest	g;
	SbLimits	lim;
	SbOutcome	out;
	SbGroupTask *task;
	MemoryContext callcxt;
	MemoryContext old;
	ErrorContextCallback errcb;
	ErrorContextCallback *saved = error_context_stack;

	CHECK_FOR_INTERRUPTS();

	/* not the table input's context: the group's own */
	errcb.callback = sb_group_context;
	errcb.arg = gs;
	errcb.previous = gs->outer;
	error_context_stack = &errcb;

	/* sandbox_run: the budget is spent, the rest are not run */
	if (gs->stopped)
	{
		gs->not_run++;
		error_context_stack = saved;
		return;
	}
	/* what is left of the call's output budget */
	if (gs->output_bytes >= (uint64) gs->limits->max_output_bytes && gs->report == NULL)
		sb_group_output_exceeded(gs, sb_group_describe(gs));
	sb_group_limits(gs, &lim);
	task = sb_group_task_new(gs);

	callcxt = AllocSetContextCreate(gs->cxt, "pysandbox group call", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(callcxt);
	g = *gs->base;
	g.chunks = NIL;
	g.input_rows = 0;
	g.input_bytes = 0;
	g.limits = lim;
	sb_request_add_frame(&g, SB_DATA_REQUEST, gs->base->group_payload,
						 gs->base->group_payload_len, NULL, 0, NULL, 0);
	sb_request_add_table(&g, gs->input, cols, ncols, nrows);
	sb_request_add_frame(&g, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
	task->input_rows = g.input_rows;
	task->input_bytes = g.input_bytes;

	/*
	 * Parallel workers, once: not for an input query that could not run in
	 * parallel mode, and not for messages too large for their queues
	 */
	if (!gs->pool_tried && gs->limits->parallel > 1 && gs->parallel_safe && gs->report == NULL &&
		gs->limits->max_output_bytes <= SB_PARALLEL_MAX_MESSAGE &&
		(Size) gs->limits->max_input_mb * 1024 * 1024 <= SB_PARALLEL_MAX_MESSAGE)
	{
		MemoryContext keep = MemoryContextSwitchTo(gs->cxt);

		/*
		 * The workers' notices and errors are raised in the context stack
		 * in effect when the pool starts: one that lives as long as it
		 * (each worker names its own group)
		 */
		gs->pool_tried = true;
		gs->pool_context.callback = sb_group_pool_context;
		gs->pool_context.arg = gs;
		gs->pool_context.previous = gs->outer;
		error_context_stack = &gs->pool_context;
		gs->pool = sb_pool_start(Min(gs->limits->parallel, sb_max_concurrent));
		error_context_stack = &errcb;
		MemoryContextSwitchTo(keep);
	}
	if (gs->pool != NULL && !sb_pool_fits(&g))
	{
		/* too large for a queue: the earlier groups first, then this one here */
		while (gs->inflight != NIL)
			sb_group_collect(gs);
		sb_group_call(&gs->child, &g, &lim, &out);
		sb_group_judge(gs, task, &out);
		sb_group_task_free(gs, task);
	}
	else if (gs->pool != NULL)
	{
		int			w = sb_pool_idle(gs->pool);
		MemoryContext keep;

		if (w < 0)
		{
			sb_group_collect(gs);
			w = sb_pool_idle(gs->pool);
		}
		task->worker = w;
		sb_pool_send(gs->pool, w, &g, &lim, task->described, gs->input);
		keep = MemoryContextSwitchTo(gs->cxt);
		gs->inflight = lappend(gs->inflight, task);
		MemoryContextSwitchTo(keep);
	}
	else
	{
		sb_group_call(&gs->child, &g, &lim, &out);
		sb_group_judge(gs, task, &out);
		sb_group_task_free(gs, task);
	}

	error_context_stack = saved;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(callcxt);
}

/* The child kept between groups goes when the call does. */
void
sb_group_child_drop(SbGroupChild *gc)
{
	if (gc->held != NULL && gc->held->in_use && gc->held->generation == gc->generation)
		sb_sandbox_drop(gc->held);
	gc->held = NULL;
}

static void
sb_group_child_cleanup(void *arg)
{
	sb_group_child_drop((SbGroupChild *) arg);
}

/*
 * The child the call's last group left waiting, if it still waits.  One
 * that ended between two groups by itself (no CPU time left for a whole
 * call) or was taken back for another session's call is no error: the next
 * group gets a fresh child.  One that misbehaved between groups (wrote,
 * used CPU time) is (sb_sandbox_held_ready).
 */
static SbSandbox *
sb_group_child_take(SbGroupChild *gc)
{
	SbSandbox  *h = gc->held;

	gc->held = NULL;
	if (h == NULL || !h->in_use || h->generation != gc->generation)
		return NULL;
	if (sb_held_state(h) == SB_HELD_ENDED && h->exit.cause == SB_EXIT_YIELDED)
	{
		sb_sandbox_release(h);
		h->held = false;
		return NULL;
	}
	return sb_sandbox_held_ready(h) ? h : NULL;
}

/*
 * Should a group that failed on a child that had run earlier groups run
 * again on a fresh child?  When the child was gone before the group began
 * (ended as the group was sent, or taken back as its call began), and when
 * the group ran out of memory or crashed: what earlier groups left (a
 * fragmented heap, a patched module) may be why.  Not for the group's own
 * exceptions, timeouts or blocked system calls, which a fresh child would
 * repeat.
 */
static bool
sb_group_rerun(const SbOutcome *out, const SbLimits *lim)
{
	SbFailure	f;

	if (out->held_closed || out->exit.cause == SB_EXIT_YIELDED)
		return true;
	if (out->violation || out->worker_lost || !sb_outcome_failure(out, lim, &f) ||
		f.kind == NULL)
		return false;
	return strcmp(f.kind, "memory") == 0 || strcmp(f.kind, "crash") == 0;
}

/*
 * Run a group's request g (REQUEST, its table, END) on the child the call
 * keeps for its groups, or on a fresh child, which is then kept for the
 * next group.
 */
void
sb_group_call(SbGroupChild *gc, SbRequest *g, const SbLimits *lim, SbOutcome *out)
{
	SbSandbox  *held = sb_group_child_take(gc);

	g->hold = true;
	g->many_calls = true;
	if (held == NULL && g->partitioned)
	{
		/* the group's rows were on the child that is gone */
		memset(out, 0, sizeof(*out));
		out->partition_lost = true;
		return;
	}
	if (held != NULL)
	{
		List	   *request = g->chunks;

		g->chunks = NIL;
		sb_request_add_frame(g, SB_DATA_CALL, NULL, 0, NULL, 0, NULL, 0);
		g->chunks = list_concat(g->chunks, request);
		g->held = held;
		sb_call_run(g, lim, out);
		if (g->partitioned)
		{
			/*
			 * no fresh child has its rows: gone before the group began is
			 * lost.  One that closed its channel or was killed during the
			 * group (held_closed: its code exited, crashed or ran out of
			 * memory) failed the group itself, which its exit says.
			 */
			if (out->exit.cause == SB_EXIT_YIELDED)
				out->partition_lost = true;
			goto kept;
		}
		if (!sb_group_rerun(out, lim))
			goto kept;
		if (out->held != NULL)
			sb_sandbox_drop(out->held);
		g->chunks = list_delete_first(g->chunks);
		g->held = NULL;
	}
	sb_call_run(g, lim, out);
kept:
	if (out->held != NULL)
	{
		gc->held = out->held;
		gc->generation = out->held->generation;
	}
}

/*
 * ---- options.parallel over partitions ----
 *
 * With "parallel": n, the input's query runs unsorted.  Each row's key
 * finds its group in a hash table of the keys seen so far (the key types'
 * default hash function and equality, as SQL's GROUP BY hashes them:
 * NULL keys form one group); a new group goes to the partition with the
 * fewest rows so far, and each row into its partition's column buffers,
 * with its group's number as one more column.  A partition is a parallel
 * worker's call on a child of its own: its rows go to the worker in
 * pieces of about SB_PIECE_BYTES while the scan runs (sb_pool_send_piece),
 * and the child keeps them (sb_runtime._hold_partition).  Once the scan
 * is over, the groups run in key order (the key types' default ordering,
 * NULLs last: what ORDER BY gives the sorted path), each a call on the
 * child that holds its rows, one call at a time per child and all the
 * children at once; their outcomes are judged in key order as on the
 * sorted path.  The sort, which spills to disk for a large input and
 * took most of the backend's time, is gone, and so is the per-group
 * transfer of the sorted path's queues.
 *
 * The backend holds the keys and a piece per partition, not the rows.  A
 * child holds its partition, so a partition must fit the memory limit:
 * an input the planner expects larger than a quarter of the children's
 * memory keeps the sorted path, as does a key type without a default
 * hash function or ordering.  A group's call cannot run again on a fresh
 * child, which has none of its rows: a child that ends between its groups
 * fails the call.
 */
#define SB_PIECE_BYTES			((Size) 1024 * 1024)
#define SB_PARTITION_MAX_GROUPS	100000
/*
 * The backend keeps every group's key until the groups have run: a cap on
 * their bytes, as the sorted path holds only the current key (a key of
 * 1 MB in each of 100,000 groups would be 100 GB of the backend's memory)
 */
#define SB_PARTITION_MAX_KEY_MB	64

typedef struct SbPartGroup
{
	uint32		hash;
	int			next;			/* the next group of its bucket, or -1 */
	int			partition;
	int			number;			/* its number in its partition, from 0 */
	uint64		rows;
	uint64		bytes;
	Datum	   *vals;			/* its key, in gs->cxt */
	bool	   *nulls;
} SbPartGroup;

typedef struct SbPartition
{
	SbColumn   *cols;			/* the input's columns, then the group's number */
	uint64		nrows;			/* rows buffered */
	Size		size;			/* their bytes, without the group numbers */
	uint64		rows;			/* rows routed in all */
	int			ngroups;		/* groups in it */
	MemoryContext frames;		/* a piece's frame headers */
} SbPartition;

typedef struct SbPartitions
{
	int			n;
	SbPartition *part;
	int			ncols;			/* the input's columns */
	SbPartGroup *groups;
	int			ngroups;
	int			maxgroups;
	int		   *buckets;		/* the first group of each bucket, or -1 */
	int			nbuckets;		/* a power of 2 */
	MemoryContext cxt;			/* the buffers */
	MemoryContext rowcxt;		/* per-row garbage of output functions */
	int			loading;		/* the partition whose load is judged */
	Size		keybytes;		/* the groups' keys, as kept */
} SbPartitions;

/*
 * The input's unsorted query is planned (plan): should its groups run
 * over partitions?  If so, starts the parallel workers, and the scan runs
 * that plan; otherwise the caller sorts.  sb_group_check_parallel() has
 * run on plan.
 */
bool
sb_group_partition(SbGroupScan *gs, SPIPlanPtr plan)
{
	CachedPlan *cplan;
	PlannedStmt *stmt;
	double		bytes;
	int			n = Min(gs->limits->parallel, sb_max_concurrent);
	int			i;

	/* (outcomes come back through the workers' queues, as on the sorted path) */
	if (n < 2 || !gs->parallel_safe || gs->report != NULL || !sb_server_preloaded ||
		IsInParallelMode() || gs->limits->max_output_bytes > SB_PARALLEL_MAX_MESSAGE)
		return false;
	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];
		TypeCacheEntry *tc = lookup_type_cache(k->typid, TYPECACHE_EQ_OPR |
											   TYPECACHE_HASH_PROC_FINFO |
											   TYPECACHE_CMP_PROC_FINFO);

		if (!OidIsValid(tc->hash_proc_finfo.fn_oid) || !OidIsValid(tc->cmp_proc_finfo.fn_oid) ||
			!OidIsValid(tc->eq_opr) || !op_hashjoinable(tc->eq_opr, k->typid))
			return false;
		fmgr_info_cxt(tc->hash_proc_finfo.fn_oid, &k->hash, gs->cxt);
		fmgr_info_cxt(tc->cmp_proc_finfo.fn_oid, &k->cmp, gs->cxt);
		/* integers and the like: equal values are equal Datums (not floats: -0, NaN) */
		k->binary_eq = k->byval && (k->typid == INT2OID || k->typid == INT4OID || k->typid == INT8OID ||
			k->typid == BOOLOID || k->typid == DATEOID || k->typid == OIDOID ||
			k->typid == TIMESTAMPOID || k->typid == TIMESTAMPTZOID || k->typid == CHAROID);
	}

	/* each child holds its partition: at most a quarter of its memory */
	cplan = sb_table_plan(plan);
	if (cplan == NULL)
		return false;
	stmt = linitial_node(PlannedStmt, cplan->stmt_list);
	/*
	 * a row costs its width, 8 bytes of group number and about 9 more; a
	 * value of a variable-length kind becomes a Python object in the child
	 * (a str: ~50 bytes besides its characters, and its pointer)
	 */
	{
		TupleDesc	desc = ((CachedPlanSource *) linitial(SPI_plan_get_plan_sources(plan)))->resultDesc;
		int			objects = 0;

		for (i = 0; desc != NULL && i < desc->natts; i++)
			if (sb_kind_is_var(sb_input_kind(TupleDescAttr(desc, i)->atttypid,
											 gs->base->numeric_decimal)))
				objects++;
		bytes = stmt->planTree->plan_rows * (stmt->planTree->plan_width + 17 + 60 * objects);
	}
	ReleaseCachedPlan(cplan, NULL);
	if (gs->limits->memory_mb > 0 &&
		bytes / n > (double) gs->limits->memory_mb * 1024 * 1024 / 4)
		return false;

	{
		MemoryContext keep = MemoryContextSwitchTo(gs->cxt);
		ErrorContextCallback *saved = error_context_stack;

		gs->pool_tried = true;
		gs->pool_context.callback = sb_group_pool_context;
		gs->pool_context.arg = gs;
		gs->pool_context.previous = gs->outer;
		error_context_stack = &gs->pool_context;
		gs->pool = sb_pool_start(n);
		error_context_stack = saved;
		MemoryContextSwitchTo(keep);
	}
	if (gs->pool == NULL)
		return false;

	/*
	 * Fewer workers than asked for (max_parallel_workers or
	 * max_worker_processes in use elsewhere): each would hold a larger
	 * share than the check above allowed.  The sorted path runs instead,
	 * on the workers that did start.
	 */
	if (sb_pool_size(gs->pool) < 2 ||
		(gs->limits->memory_mb > 0 &&
		 bytes / sb_pool_size(gs->pool) > (double) gs->limits->memory_mb * 1024 * 1024 / 4))
	{
		elog(DEBUG1, "pysandbox: %d of %d parallel workers started: the groups of input \"%s\" run sorted",
			 sb_pool_size(gs->pool), n, gs->input);
		return false;
	}
	gs->parts = MemoryContextAllocZero(gs->cxt, sizeof(SbPartitions));
	gs->parts->n = sb_pool_size(gs->pool);
	elog(DEBUG1, "pysandbox: the groups of input \"%s\" run over %d partitions",
		 gs->input, gs->parts->n);
	gs->parts->loading = -1;
	return true;
}

bool
sb_group_partitioned(SbGroupScan *gs)
{
	return gs->parts != NULL;
}

/*
 * The scan starts (typeinfo: its columns): each partition's buffers, and
 * its call's first frames to its worker: the REQUEST that asks the child
 * to keep the rows, and the table's header (a streamed table, with the
 * group's number last).
 */
void
sb_group_partition_columns(SbGroupScan *gs, TupleDesc typeinfo)
{
	SbPartitions *ps = gs->parts;
	StringInfoData payload;
	char	   *name = pg_server_to_any(gs->input, strlen(gs->input), PG_UTF8);
	int			p;
	int			i;

	ps->ncols = typeinfo->natts;
	ps->cxt = AllocSetContextCreate(gs->cxt, "pysandbox partitions", ALLOCSET_DEFAULT_SIZES);
	ps->rowcxt = AllocSetContextCreate(ps->cxt, "pysandbox row", ALLOCSET_SMALL_SIZES);
	ps->part = MemoryContextAllocZero(ps->cxt, sizeof(SbPartition) * ps->n);
	ps->nbuckets = 1024;
	ps->buckets = MemoryContextAlloc(gs->cxt, sizeof(int) * ps->nbuckets);
	memset(ps->buckets, -1, sizeof(int) * ps->nbuckets);
	ps->maxgroups = 256;
	ps->groups = MemoryContextAlloc(gs->cxt, sizeof(SbPartGroup) * ps->maxgroups);

	initStringInfo(&payload);
	appendStringInfoString(&payload, "{\"hold_input\":");
	escape_json(&payload, name);
	appendStringInfoString(&payload, ",\"held\":true}");
	for (p = 0; p < ps->n; p++)
	{
		SbPartition *part = &ps->part[p];
		SbRequest	g;
		SbLimits	lim = *gs->limits;
		MemoryContext old = MemoryContextSwitchTo(ps->cxt);

		part->cols = palloc0(sizeof(SbColumn) * (ps->ncols + 1));
		for (i = 0; i < ps->ncols; i++)
		{
			Form_pg_attribute att = TupleDescAttr(typeinfo, i);

			sb_column_init(&part->cols[i], NameStr(att->attname), att->atttypid,
						   gs->base->numeric_decimal, ps->cxt);
		}
		sb_column_init(&part->cols[ps->ncols], "", INT4OID, false, ps->cxt);
		for (i = 0; i < ps->ncols; i++)
			part->size += sb_column_size(&part->cols[i]);
		part->frames = AllocSetContextCreate(ps->cxt, "pysandbox piece", ALLOCSET_SMALL_SIZES);

		MemoryContextSwitchTo(part->frames);
		g = *gs->base;
		g.chunks = NIL;
		g.input_rows = g.input_bytes = 0;
		g.partitioned = false;
		g.rows_mode = false;	/* it answers {} */
		g.rows_ncols = 0;
		sb_request_add_frame(&g, SB_DATA_REQUEST, payload.data, payload.len, NULL, 0, NULL, 0);
		sb_request_add_table_header(&g, gs->input, part->cols, ps->ncols + 1, -1);
		sb_pool_send_load(gs->pool, p, &g, &lim, "", gs->input);
		MemoryContextSwitchTo(old);
		MemoryContextReset(part->frames);
	}
	pfree(payload.data);
}

/* Has group grp the key vals/nulls? */
static bool
sb_part_same_key(SbGroupScan *gs, const SbPartGroup *grp, const Datum *vals, const bool *nulls)
{
	int			i;

	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];

		if (nulls[i] != grp->nulls[i])
			return false;
		if (nulls[i])
			continue;
		if (k->binary_eq ? grp->vals[i] != vals[i] :
			!DatumGetBool(FunctionCall2Coll(&k->eq, k->collation, grp->vals[i], vals[i])))
			return false;
	}
	return true;
}

/* A key not seen before: its group, in the partition with the fewest rows. */
static int
sb_part_new_group(SbGroupScan *gs, uint32 hash, const Datum *vals, const bool *nulls)
{
	SbPartitions *ps = gs->parts;
	MemoryContext old;
	SbPartGroup *grp;
	int			gid;
	int			p;
	int			i;

	if (ps->ngroups >= SB_PARTITION_MAX_GROUPS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("input \"%s\" has more than %d groups, too many for options.parallel",
						gs->input, SB_PARTITION_MAX_GROUPS),
				 errhint("Group more coarsely, or run without options.parallel: the groups then run one at a time over the sorted input.")));
	old = MemoryContextSwitchTo(gs->cxt);
	if (ps->ngroups == ps->maxgroups)
	{
		ps->maxgroups *= 2;
		ps->groups = repalloc(ps->groups, sizeof(SbPartGroup) * ps->maxgroups);
	}
	gid = ps->ngroups++;
	grp = &ps->groups[gid];
	memset(grp, 0, sizeof(*grp));
	grp->hash = hash;
	grp->vals = palloc(sizeof(Datum) * gs->nkeys);
	grp->nulls = palloc(sizeof(bool) * gs->nkeys);
	for (i = 0; i < gs->nkeys; i++)
	{
		grp->nulls[i] = nulls[i];
		grp->vals[i] = nulls[i] ? (Datum) 0 :
			datumCopy(vals[i], gs->keys[i].byval, gs->keys[i].typlen);
		if (!nulls[i] && !gs->keys[i].byval)
			ps->keybytes += datumGetSize(grp->vals[i], false, gs->keys[i].typlen);
	}
	if (ps->keybytes > (Size) SB_PARTITION_MAX_KEY_MB * 1024 * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the keys of input \"%s\" take more than %d MB, too much for options.parallel",
						gs->input, SB_PARTITION_MAX_KEY_MB),
				 errdetail("With options.parallel, the server keeps every group's key until the groups have run; %d groups so far.",
						   ps->ngroups),
				 errhint("Group by shorter keys (a hash or an id of the long ones), or run without options.parallel: the groups then run one at a time over the sorted input.")));
	grp->partition = 0;
	for (p = 1; p < ps->n; p++)
		if (ps->part[p].rows < ps->part[grp->partition].rows)
			grp->partition = p;
	grp->number = ps->part[grp->partition].ngroups++;

	/* into its bucket; more buckets past three groups in four */
	if (ps->ngroups > ps->nbuckets / 4 * 3)
	{
		int			g;

		ps->nbuckets *= 2;
		ps->buckets = repalloc(ps->buckets, sizeof(int) * ps->nbuckets);
		memset(ps->buckets, -1, sizeof(int) * ps->nbuckets);
		for (g = 0; g < ps->ngroups; g++)
		{
			int			b = ps->groups[g].hash & (ps->nbuckets - 1);

			ps->groups[g].next = ps->buckets[b];
			ps->buckets[b] = g;
		}
	}
	else
	{
		int			b = hash & (ps->nbuckets - 1);

		grp->next = ps->buckets[b];
		ps->buckets[b] = gid;
	}
	MemoryContextSwitchTo(old);
	return gid;
}

static bool sb_part_loaded(SbGroupScan *gs, int p, bool wait);

/* Partition p's buffered rows go to its worker (last: and then END). */
static void
sb_part_send(SbGroupScan *gs, int p, bool last)
{
	SbPartitions *ps = gs->parts;
	SbPartition *part = &ps->part[p];
	SbRequest	tmp;
	SbChunkHeader *ch;
	MemoryContext old;
	int			c;

	MemoryContextReset(part->frames);
	old = MemoryContextSwitchTo(part->frames);
	memset(&tmp, 0, sizeof(tmp));
	ch = palloc0(sizeof(SbChunkHeader));
	ch->nrows = part->nrows;
	ch->flags = last ? SB_CHUNK_LAST : 0;
	sb_request_add_frame(&tmp, SB_DATA_CHUNK, (const char *) ch, sizeof(*ch), NULL, 0, NULL, 0);
	for (c = 0; c <= ps->ncols; c++)
		sb_column_add_frame(&tmp, &part->cols[c], part->nrows);
	if (last)
		sb_request_add_frame(&tmp, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
	sb_pool_send_piece(gs->pool, p, tmp.chunks, last);
	MemoryContextSwitchTo(old);
	/* a partition's call that ended before its last rows: stop reading them */
	if (!last)
		(void) sb_part_loaded(gs, p, false);
	MemoryContextReset(part->frames);
	for (c = 0; c <= ps->ncols; c++)
		sb_column_rewind(&part->cols[c], part->nrows);
	part->nrows = 0;
	part->size = 0;
	for (c = 0; c < ps->ncols; c++)
		part->size += sb_column_size(&part->cols[c]);
}

/* the group of the key in error messages while the rows are read */
static const char *
sb_part_describe(SbGroupScan *gs, const SbPartGroup *grp)
{
	sb_group_set_key(gs, grp->vals, grp->nulls);
	return sb_group_describe(gs);
}

/* A row of the unsorted scan: into its group's partition. */
void
sb_group_route(SbGroupScan *gs, TupleTableSlot *slot)
{
	SbPartitions *ps = gs->parts;
	Datum		vals[SB_MAX_GROUP_KEYS];
	bool		nulls[SB_MAX_GROUP_KEYS];
	uint32		hash = 0;
	SbPartGroup *grp;
	SbPartition *part;
	MemoryContext old;
	Size		after = 0;
	int			gid;
	int			i;

	slot_getallattrs(slot);
	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];

		vals[i] = slot->tts_values[k->attno];
		nulls[i] = slot->tts_isnull[k->attno];
		hash = hash_combine(hash, nulls[i] ? 0 :
							DatumGetUInt32(FunctionCall1Coll(&k->hash, k->collation, vals[i])));
	}
	for (gid = ps->buckets[hash & (ps->nbuckets - 1)]; gid >= 0; gid = ps->groups[gid].next)
		if (ps->groups[gid].hash == hash && sb_part_same_key(gs, &ps->groups[gid], vals, nulls))
			break;
	if (gid < 0)
		gid = sb_part_new_group(gs, hash, vals, nulls);
	grp = &ps->groups[gid];
	part = &ps->part[grp->partition];

	old = MemoryContextSwitchTo(ps->rowcxt);
	for (i = 0; i < ps->ncols; i++)
	{
		sb_column_append(&part->cols[i], slot->tts_values[i], slot->tts_isnull[i],
						 part->nrows, gs->input);
		after += sb_column_size(&part->cols[i]);
	}
	sb_column_append(&part->cols[ps->ncols], Int32GetDatum(grp->number), false, part->nrows,
					 gs->input);
	MemoryContextSwitchTo(old);
	MemoryContextReset(ps->rowcxt);
	part->nrows++;
	part->rows++;
	grp->rows++;
	grp->bytes += after - part->size;
	part->size = after;

	/* the input limits apply to each group's rows, as on the sorted path */
	if (grp->rows > (uint64) gs->limits->max_input_rows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a group has more than %d rows", gs->limits->max_input_rows),
				 errdetail("Group %s of input \"%s\" reached the limit; with group_by, the limit applies to each group.",
						   sb_part_describe(gs, grp), gs->input),
				 errhint("%s", sb_limit_hint("Aggregate or filter in the query",
											 gs->limits, SB_LIMIT_INPUT_ROWS))));
	if (grp->bytes > (uint64) gs->limits->max_input_mb * 1024 * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a group is larger than %d MB", gs->limits->max_input_mb),
				 errdetail("Group %s of input \"%s\" reached the limit; with group_by, the limit applies to each group.",
						   sb_part_describe(gs, grp), gs->input),
				 errhint("%s", sb_limit_hint("Select fewer columns or rows",
											 gs->limits, SB_LIMIT_INPUT_SIZE))));
	if (after >= SB_PIECE_BYTES)
		sb_part_send(gs, grp->partition, false);
}

/* qsort_arg comparator of group numbers: by key, NULLs last (ORDER BY's order) */
static int
sb_part_cmp(const void *a, const void *b, void *arg)
{
	SbGroupScan *gs = (SbGroupScan *) arg;
	const SbPartGroup *x = &gs->parts->groups[*(const int *) a];
	const SbPartGroup *y = &gs->parts->groups[*(const int *) b];
	int			i;

	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];
		int			c;

		if (x->nulls[i] || y->nulls[i])
		{
			if (x->nulls[i] != y->nulls[i])
				return x->nulls[i] ? 1 : -1;
			continue;
		}
		c = DatumGetInt32(FunctionCall2Coll(&k->cmp, k->collation, x->vals[i], y->vals[i]));
		if (c != 0)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/* errcontext: the partition whose rows failed to load */
static void
sb_part_context(void *arg)
{
	SbGroupScan *gs = (SbGroupScan *) arg;

	errcontext("the rows of input \"%s\" for parallel process %d of %d (options.parallel)",
			   gs->input, gs->parts->loading + 1, gs->parts->n);
}

/*
 * Partition p's call, once its worker sent the outcome (wait: wait for
 * it; else return false if it has not): it must have kept its rows, and
 * only after the last of them (a failure raises, naming the partition).
 */
static bool
sb_part_loaded(SbGroupScan *gs, int p, bool wait)
{
	SbPartitions *ps = gs->parts;
	ErrorContextCallback errcb;
	MemoryContext callcxt = AllocSetContextCreate(gs->cxt, "pysandbox partition outcome",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(callcxt);
	SbOutcome	out;

	errcb.callback = sb_part_context;
	errcb.arg = gs;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ps->loading = p;
	if (!sb_pool_receive_now(gs->pool, p, &out, wait))
	{
		error_context_stack = errcb.previous;
		MemoryContextSwitchTo(old);
		MemoryContextDelete(callcxt);
		return false;
	}
	sb_check_outcome(&out, gs->limits);
	if (!out.complete || out.result == NULL || !wait)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process ended without keeping the rows of its groups")));
	gs->cpu_us += out.call_cpu_us;
	error_context_stack = errcb.previous;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(callcxt);
	return true;
}

/* The scan is over: the partitions' last rows go; their calls must have kept them. */
static void
sb_part_load(SbGroupScan *gs)
{
	SbPartitions *ps = gs->parts;
	int			p;

	for (p = 0; p < ps->n; p++)
		sb_part_send(gs, p, true);
	for (p = 0; p < ps->n; p++)
		(void) sb_part_loaded(gs, p, true);
	/* the partitions' buffers go; the keys stay */
	MemoryContextDelete(ps->cxt);
	ps->part = NULL;
}

/*
 * The groups run in key order, each on the worker whose child holds its
 * rows, one at a time per worker, and are judged in that order
 * (sb_group_collect).
 */
static void
sb_part_run(SbGroupScan *gs)
{
	SbPartitions *ps = gs->parts;
	int		   *order;
	int			i;

	order = MemoryContextAlloc(gs->cxt, sizeof(int) * Max(ps->ngroups, 1));
	for (i = 0; i < ps->ngroups; i++)
		order[i] = i;
	qsort_arg(order, ps->ngroups, sizeof(int), sb_part_cmp, gs);
	for (i = 0; i < ps->ngroups; i++)
	{
		SbPartGroup *grp = &ps->groups[order[i]];
		SbGroupTask *task;
		SbRequest	g;
		SbLimits	lim;
		StringInfoData payload;
		MemoryContext callcxt;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		sb_group_set_key(gs, grp->vals, grp->nulls);
		if (gs->output_bytes >= (uint64) gs->limits->max_output_bytes)
			sb_group_output_exceeded(gs, sb_group_describe(gs));
		/* its child runs one group at a time: judge what it runs first */
		while (sb_pool_busy(gs->pool, grp->partition))
			sb_group_collect(gs);
		sb_group_limits(gs, &lim);
		task = sb_group_task_new(gs);
		task->input_rows = grp->rows;
		task->input_bytes = grp->bytes;
		task->worker = grp->partition;

		callcxt = AllocSetContextCreate(gs->cxt, "pysandbox group call", ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(callcxt);
		g = *gs->base;
		g.chunks = NIL;
		g.input_rows = g.input_bytes = 0;
		g.limits = lim;
		g.partitioned = true;
		/* the call's request, naming the group whose rows the child holds */
		initStringInfo(&payload);
		appendStringInfo(&payload, "{\"held_group\":%d,", grp->number);
		appendBinaryStringInfo(&payload, gs->base->group_payload + 1,
							   gs->base->group_payload_len - 1);
		sb_request_add_frame(&g, SB_DATA_REQUEST, payload.data, payload.len, NULL, 0, NULL, 0);
		sb_request_add_frame(&g, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
		sb_pool_send(gs->pool, grp->partition, &g, &lim, task->described, gs->input);
		MemoryContextSwitchTo(gs->cxt);
		gs->inflight = lappend(gs->inflight, task);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(callcxt);
	}
}

/*
 * The input is read: judge the groups still running in workers, in order,
 * and let the workers go.
 */
void
sb_groups_drain(SbGroupScan *gs)
{
	ErrorContextCallback errcb;
	ErrorContextCallback *saved = error_context_stack;

	if (gs->pool == NULL)
		return;
	if (gs->parts != NULL)
		sb_part_load(gs);
	errcb.callback = sb_group_context;
	errcb.arg = gs;
	errcb.previous = gs->outer;
	error_context_stack = &errcb;
	if (gs->parts != NULL)
		sb_part_run(gs);
	while (gs->inflight != NIL)
		sb_group_collect(gs);
	error_context_stack = saved;
	sb_pool_finish(gs->pool);
	gs->pool = NULL;
}

/* the text a key has in the result: SQL NULL is "null" */
static inline const char *
sb_group_key_text(const SbGroupResult *r, int i)
{
	return r->keys[i] ? r->keys[i] : "null";
}

/* qsort_arg comparator; arg: the number of keys */
static int
sb_group_result_cmp(const void *a, const void *b, void *arg)
{
	int			nkeys = *(const int *) arg;
	const SbGroupResult *x = *(SbGroupResult *const *) a;
	const SbGroupResult *y = *(SbGroupResult *const *) b;
	int			i;

	for (i = 0; i < nkeys; i++)
	{
		int			c = strcmp(sb_group_key_text(x, i), sb_group_key_text(y, i));

		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * The groups' results in the order of their keys' text, which is how the
 * result's objects nest (groups come sorted by value, and a value's text
 * need not sort the same way).  Two groups whose keys all read the same
 * would be one key of the result: a NULL and the text 'null', or two
 * values whose text is the same (floats under extra_float_digits = 0, a
 * type whose output drops detail).  That is an error, not a lost group.
 */
static void
sb_group_sort_results(SbGroupScan *gs)
{
	ListCell   *lc;
	int			n = 0;
	int			g;

	gs->sorted = palloc(sizeof(SbGroupResult *) * Max(list_length(gs->results), 1));
	foreach(lc, gs->results)
		gs->sorted[n++] = (SbGroupResult *) lfirst(lc);
	gs->nsorted = n;
	qsort_arg(gs->sorted, n, sizeof(SbGroupResult *), sb_group_result_cmp, &gs->nkeys);

	for (g = 1; g < n; g++)
	{
		SbGroupResult *x = gs->sorted[g - 1];
		SbGroupResult *y = gs->sorted[g];
		int			i;

		/*
		 * at each level, the same text for the first keys must be the same
		 * values (sorted by text, such groups are neighbours)
		 */
		for (i = 0; i < gs->nkeys; i++)
		{
			StringInfoData keys;
			int			j;

			if (strcmp(sb_group_key_text(x, i), sb_group_key_text(y, i)) != 0)
				break;
			if (x->ids[i] == y->ids[i])
				continue;
			if ((x->keys[i] == NULL) != (y->keys[i] == NULL))
				ereport(ERROR,
						(errcode(ERRCODE_CARDINALITY_VIOLATION),
						 errmsg("group_by column \"%s\" has both NULL and the text 'null': they would be the same key of the result",
								gs->keys[i].name),
						 errhint("Replace NULL in the query, as in coalesce(%s, '(none)').",
								 quote_identifier(gs->keys[i].name))));
			initStringInfo(&keys);
			for (j = 0; j <= i; j++)
				appendStringInfo(&keys, "%s%s", j > 0 ? ", " : "", sb_group_key_text(x, j));
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg("two groups of input \"%s\" have different keys that read the same as text, (%s): they would be the same key of the result",
							gs->input, keys.data),
					 errhint("Group by a form of the key whose text tells the values apart, such as a cast to numeric or text in the query.")));
		}
	}
}

/*
 * Push the groups' results for one returned function: an object keyed by
 * the first key's text, nested one level per further key, from the
 * sorted results (sb_group_sort_results: no two read the same).
 */
static void
sb_group_push_function(SbGroupScan *gs, JsonbParseState **ps, const char *name)
{
	SbGroupResult *prev = NULL;
	int			g;
	int			open = 0;		/* nested objects open below the function's */

	(void) pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
	for (g = 0; g < gs->nsorted; g++)
	{
		SbGroupResult *r = gs->sorted[g];
		JsonbValue	k;
		JsonbValue *v;
		int			same = 0;	/* leading keys equal to the previous group's */
		int			i;

		if (prev != NULL)
			while (same < gs->nkeys - 1 &&
				   strcmp(sb_group_key_text(prev, same), sb_group_key_text(r, same)) == 0)
				same++;
		for (; open > same; open--)
			(void) pushJsonbValue(ps, WJB_END_OBJECT, NULL);
		for (i = same; i < gs->nkeys; i++)
		{
			const char *text = sb_group_key_text(r, i);

			k.type = jbvString;
			k.val.string.val = (char *) text;
			k.val.string.len = strlen(text);
			(void) pushJsonbValue(ps, WJB_KEY, &k);
			if (i < gs->nkeys - 1)
			{
				(void) pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
				open++;
			}
		}
		v = JsonContainerIsObject(&r->result->root) ?
			getKeyJsonValueFromContainer(&r->result->root, name, strlen(name), NULL) : NULL;
		if (v == NULL)
		{
			k.type = jbvNull;
			v = &k;
		}
		(void) pushJsonbValue(ps, WJB_VALUE, v);
		prev = r;
	}
	for (; open > 0; open--)
		(void) pushJsonbValue(ps, WJB_END_OBJECT, NULL);
	(void) pushJsonbValue(ps, WJB_END_OBJECT, NULL);
}

/*
 * The functions' results over the groups: {"func": {"<key>": value, ...},
 * ...} for the functions named in returns, nested one level per further
 * key.
 */
static Jsonb *
sb_groups_returns(SbGroupScan *gs, ArrayType *returns)
{
	JsonbParseState *ps = NULL;
	JsonbValue *top;
	Datum	   *names;
	bool	   *nulls;
	int			n;
	int			i;

	sb_group_sort_results(gs);
	deconstruct_array(returns, TEXTOID, -1, false, TYPALIGN_INT, &names, &nulls, &n);
	(void) pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	for (i = 0; i < n; i++)
	{
		char	   *name = TextDatumGetCString(names[i]);
		JsonbValue	k;

		k.type = jbvString;
		k.val.string.val = name;
		k.val.string.len = strlen(name);
		(void) pushJsonbValue(&ps, WJB_KEY, &k);
		sb_group_push_function(gs, &ps, name);
	}
	top = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(top);
}

/*
 * sandbox_run's report over the groups: as for one call, with "returns"
 * keyed by group (when every group succeeded), the first failing group's
 * error (naming its group), the call's usage, and "groups": each group's
 * own report, in key order.
 */
static Jsonb *
sb_groups_report(SbGroupScan *gs, ArrayType *returns, const SbOutcome *usage,
				 const SbRequest *base)
{
	StringInfoData r;
	Jsonb	   *report;

	initStringInfo(&r);
	appendStringInfo(&r, "{\"ok\":%s,\"returns\":", gs->all_ok ? "true" : "false");
	if (gs->all_ok)
	{
		Jsonb	   *grouped = sb_groups_returns(gs, returns);

		appendStringInfoString(&r, JsonbToCString(NULL, &grouped->root, VARSIZE(grouped)));
	}
	else
		appendStringInfoString(&r, "null");
	appendStringInfoString(&r, ",\"figures\":[],\"stdout\":\"\",\"stderr\":\"\",\"error\":");
	appendStringInfoString(&r, gs->first_error ? gs->first_error->data : "null");
	appendStringInfo(&r, ",\"usage\":{\"wall_ms\":" UINT64_FORMAT ",\"cpu_ms\":" UINT64_FORMAT
					 ",\"peak_memory_kb\":" UINT64_FORMAT ",\"input_rows\":" UINT64_FORMAT
					 ",\"input_bytes\":" UINT64_FORMAT ",\"output_bytes\":" UINT64_FORMAT "}",
					 usage->exit.wall_us / 1000, usage->call_cpu_us / 1000,
					 usage->exit.maxrss_kb, base->input_rows, base->input_bytes,
					 gs->output_bytes);
	appendStringInfo(&r, ",\"groups\":[%s],\"groups_not_run\":" UINT64_FORMAT "}",
					 gs->report->data, gs->not_run);
	if (gs->first_error != NULL)
		sb_stat_failure(gs->first_kind, gs->first_sqlstate);	/* reported, not raised */
	report = sb_jsonb_build(r.data, r.len, sb_jsonb_limit(r.len));
	if (report == NULL)
	{
		SbFailure	f;

		memset(&f, 0, sizeof(f));
		f.type = "";
		sb_json_failure(SB_JSON_TOO_BIG, "sandbox result", &f);
		sb_raise_failure(&f);
	}
	return report;
}

/*
 * Run the call's groups.  base is the finished request (sb_request_finish
 * with group_by: its REQUEST payload, its table input not yet run).  With
 * rows, each group's rows go into store; with report (sandbox_run), the
 * groups' report is returned; otherwise the result (sb_groups_returns).
 * *usage gets the call's usage over all groups.
 */
Jsonb *
sb_groups_run(SbRequest *base, const SbLimits *limits, ArrayType *returns,
			  struct SbRowsOut *rows, const char *func, Tuplestorestate *store,
			  bool report, SbOutcome *usage)
{
	SbGroupScan *gs = palloc0(sizeof(SbGroupScan));
	instr_time	start;
	instr_time	now;
	ListCell   *lc;
	Jsonb	   *result = NULL;

	INSTR_TIME_SET_CURRENT(start);
	gs->base = base;
	gs->limits = limits;
	gs->input = base->group_input;
	gs->cxt = AllocSetContextCreate(CurrentMemoryContext, "pysandbox groups", ALLOCSET_DEFAULT_SIZES);
	gs->keycxt = AllocSetContextCreate(gs->cxt, "pysandbox group key", ALLOCSET_SMALL_SIZES);
	gs->child_cb.func = sb_group_child_cleanup;
	gs->child_cb.arg = &gs->child;
	MemoryContextRegisterResetCallback(gs->cxt, &gs->child_cb);
	gs->outer = error_context_stack;
	gs->rows = rows;
	gs->store = store;
	gs->func = func;
	foreach(lc, base->group_by)
		gs->keys[gs->nkeys++].name = (const char *) lfirst(lc);
	if (report)
	{
		MemoryContext old = MemoryContextSwitchTo(gs->cxt);

		gs->report = makeStringInfo();
		gs->all_ok = true;
		MemoryContextSwitchTo(old);
	}

	sb_table_input_grouped(base, base->group_query, gs);

	/* the call's usage: all groups' */
	memset(usage, 0, sizeof(*usage));
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	usage->exit.wall_us = (uint64) INSTR_TIME_GET_MICROSEC(now);
	usage->call_cpu_us = gs->cpu_us;
	usage->exit.maxrss_kb = gs->peak_kb;
	usage->result_len = gs->output_bytes;
	usage->complete = true;
	usage->result = gs->groups > 0 ? "" : NULL;
	base->input_rows = gs->rows_in;
	base->input_bytes = gs->bytes_in;

	if (report)
		result = sb_groups_report(gs, returns, usage, base);
	else if (rows == NULL)
		result = sb_groups_returns(gs, returns);
	MemoryContextDelete(gs->cxt);
	return result;
}
