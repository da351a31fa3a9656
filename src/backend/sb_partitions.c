/*
 * sb_partitions.c
 *		options.group_by with options.parallel, over partitions: the input
 *		read once, unsorted, into the processes that run its groups.
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
#include "sb_groups.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/typcache.h"

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
	int			n = sb_pool_want(gs->limits->parallel);
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
		if (sb_private_debug_level() != 0)
			elog(sb_private_debug_level(), "pysandbox: %d of %d parallel workers started: the groups of input \"%s\" run sorted",
				 sb_pool_size(gs->pool), n, gs->input);
		return false;
	}
	gs->parts = MemoryContextAllocZero(gs->cxt, sizeof(SbPartitions));
	gs->parts->n = sb_pool_size(gs->pool);
	if (sb_private_debug_level() != 0)
		elog(sb_private_debug_level(), "pysandbox: the groups of input \"%s\" run over %d partitions",
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
		if (ps->groups[gid].hash == hash &&
			sb_group_first_diff(gs, ps->groups[gid].vals, ps->groups[gid].nulls,
								vals, nulls) == gs->nkeys)
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
		sb_input_limit_error(gs->limits, SB_LIMIT_INPUT_ROWS, gs->input,
							 sb_part_describe(gs, grp));
	if (grp->bytes > (uint64) gs->limits->max_input_mb * 1024 * 1024)
		sb_input_limit_error(gs->limits, SB_LIMIT_INPUT_SIZE, gs->input,
							 sb_part_describe(gs, grp));
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
	MemoryContext callcxt;
	MemoryContext old;
	SbOutcome	out;

	/* looked for after every piece: nothing is made unless it came */
	if (!wait && !sb_pool_receive_now(gs->pool, p, &out, false))
		return false;
	callcxt = AllocSetContextCreate(gs->cxt, "pysandbox partition outcome",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(callcxt);
	errcb.callback = sb_part_context;
	errcb.arg = gs;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ps->loading = p;
	if (wait)
		sb_pool_receive(gs->pool, p, &out);
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
void
sb_partitions_load(SbGroupScan *gs)
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
void
sb_partitions_run(SbGroupScan *gs)
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
