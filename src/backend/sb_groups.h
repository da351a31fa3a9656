/*
 * sb_groups.h
 *		options.group_by's state, shared by the sorted path (sb_groups.c)
 *		and the path over partitions (sb_partitions.c).
 */
#ifndef SB_GROUPS_H
#define SB_GROUPS_H

#include "pysandbox.h"

#include "fmgr.h"

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
	SbPrints	prints;			/* the groups' prints relayed here */
	const char *input;
	int			nkeys;
	SbGroupKey	keys[SB_MAX_GROUP_KEYS];
	int			ncols;			/* the input query's columns (the sorted
								 * query adds its rows' positions after them) */
	bool		ordered;		/* ... if it has an ORDER BY: it does */
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

/* sb_groups.c's, for sb_partitions.c */
extern void sb_group_pool_context(void *arg);
extern int	sb_group_first_diff(SbGroupScan *gs, const Datum *a, const bool *anulls,
								const Datum *b, const bool *bnulls);
extern void sb_group_set_key(SbGroupScan *gs, const Datum *vals, const bool *nulls);
extern void sb_group_output_exceeded(SbGroupScan *gs, const char *described);
extern void sb_group_collect(SbGroupScan *gs);
extern void sb_group_limits(SbGroupScan *gs, SbLimits *lim);
extern SbGroupTask *sb_group_task_new(SbGroupScan *gs);

/* sb_group_results.c's: each group's outcome, and the groups' result */
extern void sb_group_judge(SbGroupScan *gs, SbGroupTask *task, SbOutcome *out);
extern Jsonb *sb_groups_returns(SbGroupScan *gs, ArrayType *returns);
extern Jsonb *sb_groups_report(SbGroupScan *gs, ArrayType *returns, const SbOutcome *usage,
							   const SbRequest *base);

/* sb_partitions.c's, for sb_groups.c */
extern void sb_partitions_load(SbGroupScan *gs);
extern void sb_partitions_run(SbGroupScan *gs);

#endif							/* SB_GROUPS_H */
