/*
 * sb_group_results.c
 *		What becomes of each group's outcome under options.group_by: judged
 *		against the call's limits and its shared output budget, then kept
 *		(rows into the store, a result for the grouped object, sandbox_run's
 *		report of the group), and the groups' results put together at the
 *		end, keyed and nested by the keys' text.
 *
 * The groups are read, run and collected in sb_groups.c (sorted) and
 * sb_partitions.c (options.parallel over partitions); both hand each
 * outcome here, in key order, through sb_group_judge().
 */
#include "pysandbox.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "sb_groups.h"

/* The groups together went past the call's output limit. */
void
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

/* A group ran: its usage counts toward the call's. */
static void
sb_group_count(SbGroupScan *gs, const SbGroupTask *task, const SbOutcome *out)
{
	gs->groups++;
	gs->rows_in += task->input_rows;
	gs->bytes_in += task->input_bytes;
	gs->cpu_us += out->call_cpu_us;
	gs->peak_kb = Max(gs->peak_kb, out->exit.maxrss_kb);
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

	sb_group_count(gs, task, out);
	/* the error a group reported goes into the report too (review 57 F3) */
	output = out->result_len + out->stdout_text->len + out->stderr_text->len +
		(out->error != NULL ? out->error_len : 0);
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
	if (gs->output_bytes > (uint64) gs->limits->max_output_bytes)
	{
		/* past the budget, a failed group's own error gives way to it */
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
void
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

	sb_group_count(gs, task, out);
	output = out->result_len;
	foreach(lc, out->rows_columns)
		output += ((SbChunk *) lfirst(lc))->len;
	/* rows of no columns have no payload to count: each counts a byte */
	if (out->rows_header != NULL && out->rows_columns == NIL)
	{
		uint64		nrows;

		memcpy(&nrows, out->rows_header, sizeof(nrows));
		output = nrows > PG_UINT64_MAX / 2 ? PG_UINT64_MAX / 2 : output + nrows;
	}
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
Jsonb *
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
Jsonb *
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
