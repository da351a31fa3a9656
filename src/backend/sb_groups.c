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
 * into rows (sandbox_rows) by sb_group_results.c, and its buffers are freed
 * before the next group is read.  The backend holds one group's columns at
 * a time.
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
 * keeps them for the group's call (sb_partitions.c).
 */
#include "pysandbox.h"

#include "catalog/pg_type.h"
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

#include "sb_groups.h"

/* errcontext: which group failed */
static void
sb_group_context(void *arg)
{
	SbGroupScan *gs = (SbGroupScan *) arg;

	errcontext("group %s of input \"%s\"",
			   gs->judging ? gs->judging->described : sb_group_describe(gs), gs->input);
}

/* the context of the workers' messages (they name their group themselves) */
void
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
 * PostgreSQL's sort is not stable: a query with an ORDER BY (ordered)
 * would see its order lost within each group, to diff(), cumsum() or
 * iloc[0] per group (pandas' groupby().apply(), and the parallel path,
 * keep the input's order), so its rows' positions break the ties:
 *   SELECT *, row_number() OVER () FROM (query) AS pysandbox_group_input
 *   ORDER BY 2, 1, 4
 * (sb_group_columns() leaves them out of the rows).  Only then: the
 * second sort key made the sort of 4M rows in 100 groups 2.3 times as
 * long, and without an ORDER BY the query has no order to keep.  The
 * input's query goes in as the parser delimits its one statement.
 */
char *
sb_group_query(SbGroupScan *gs, TupleDesc desc, const char *query, bool ordered)
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
	gs->ncols = desc->natts;
	gs->ordered = ordered;
	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT *%s FROM (\n%.*s\n) AS pysandbox_group_input ORDER BY ",
					 ordered ? ", pg_catalog.row_number() OVER ()" : "", len, query + start);
	for (i = 0; i < gs->nkeys; i++)
		appendStringInfo(&buf, "%s%d", i > 0 ? ", " : "", gs->keys[i].attno + 1);
	if (ordered)
		appendStringInfo(&buf, ", %d", desc->natts + 1);
	return buf.data;
}

/*
 * The rows' columns (DestReceiver startup): the input query's, which
 * sb_group_query() checked; the sorted query's last column, the rows'
 * positions, is left out.  Returns a copy that lives as long as the call.
 */
TupleDesc
sb_group_columns(SbGroupScan *gs, TupleDesc typeinfo)
{
	MemoryContext old;
	TupleDesc	copy;
	int			i;

	/*
	 * exactly the positions' column when the sorted query added it: the
	 * partitions' scan runs the query itself (sb_group_partitioned), and a
	 * row type changed between the two prepares (SELECT * FROM f(), whose
	 * composite type no lock protects) must not pass either way, as the
	 * positions taken for the last column, or a new int8 column for them
	 */
	if (typeinfo->natts != gs->ncols + (gs->ordered && !sb_group_partitioned(gs) ? 1 : 0) ||
		(typeinfo->natts > gs->ncols &&
		 TupleDescAttr(typeinfo, gs->ncols)->atttypid != INT8OID))
		elog(ERROR, "pysandbox: the sorted input's columns differ from the query's");
	for (i = 0; i < gs->nkeys; i++)
		if (gs->keys[i].attno >= gs->ncols ||
			TupleDescAttr(typeinfo, gs->keys[i].attno)->atttypid != gs->keys[i].typid)
			elog(ERROR, "pysandbox: the sorted input's columns differ from the query's");
	old = MemoryContextSwitchTo(gs->cxt);
	copy = CreateTemplateTupleDesc(gs->ncols);
	for (i = 0; i < gs->ncols; i++)
		TupleDescCopyEntry(copy, i + 1, typeinfo, i + 1);
	MemoryContextSwitchTo(old);
	return copy;
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
 * The first key column (in the order of options.group_by) whose values in
 * keys a and b differ, by the key type's equality; nkeys if none does.
 */
int
sb_group_first_diff(SbGroupScan *gs, const Datum *a, const bool *anulls,
					const Datum *b, const bool *bnulls)
{
	int			i;

	for (i = 0; i < gs->nkeys; i++)
	{
		SbGroupKey *k = &gs->keys[i];

		if (anulls[i] != bnulls[i])
			break;
		if (anulls[i])
			continue;
		if (k->binary_eq ? a[i] != b[i] :
			!DatumGetBool(FunctionCall2Coll(&k->eq, k->collation, a[i], b[i])))
			break;
	}
	return i;
}

/*
 * A group begins: remember its key (the values of the key columns, in
 * the order of options.group_by).
 */
/*
 * A key's text, as the results are keyed by it: what the type prints,
 * but dates and times in ISO 8601 as a result's own are (a timestamptz in
 * UTC, "2024-03-29T00:00:00+00:00"), whatever the session's TimeZone and
 * DateStyle, and a bool as JSON's true/false (review 58: the same call gave
 * "2024-03-29 09:00:00+09" in Tokyo, and "t").
 */
static char *
sb_group_canonical_key(SbGroupKey *k, Datum value)
{
	Oid			base = getBaseType(k->typid);
	int			utc = 0;

	switch (base)
	{
		case BOOLOID:
			return pstrdup(DatumGetBool(value) ? "true" : "false");
		case DATEOID:
		case TIMESTAMPOID:
			return JsonEncodeDateTime(NULL, value, base, NULL);
		case TIMESTAMPTZOID:
			return JsonEncodeDateTime(NULL, value, base, &utc);
		default:
			return OutputFunctionCall(&k->out, value);
	}
}

void
sb_group_set_key(SbGroupScan *gs, const Datum *vals, const bool *nulls)
{
	MemoryContext old;
	int			i;

	/* which key (from the first) begins to differ from the last group's */
	gs->first_diff = 0;
	if (gs->begun++ > 0)
		gs->first_diff = sb_group_first_diff(gs, gs->keyvals, gs->keynulls, vals, nulls);

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
		gs->keytexts[i] = sb_group_canonical_key(k, gs->keyvals[i]);
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
void
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
SbGroupTask *
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
void
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
		gs->pool = sb_pool_start(sb_pool_want(gs->limits->parallel));
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
		sb_partitions_load(gs);
	errcb.callback = sb_group_context;
	errcb.arg = gs;
	errcb.previous = gs->outer;
	error_context_stack = &errcb;
	if (gs->parts != NULL)
		sb_partitions_run(gs);
	while (gs->inflight != NIL)
		sb_group_collect(gs);
	error_context_stack = saved;
	sb_pool_finish(gs->pool);
	gs->pool = NULL;
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

	/* the groups' prints relayed as notices: capped together, reported once */
	base->prints = &gs->prints;
	sb_table_input_grouped(base, base->group_query, gs);
	base->prints = NULL;
	sb_prints_report(&gs->prints);

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
