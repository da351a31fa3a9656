/*
 * sb_describe.c
 *		sandbox_describe(inputs, options): what each input of a call would be
 *		in Python, without running any.
 *
 * Table inputs are prepared as sb_table_input() prepares them (sb_inputs.c)
 * and read as the calling role: the permissions the executor would check
 * are checked before anything about them is told, the sample is read
 * through a cursor in a read-only, rolled-back subtransaction, and row-level
 * security applies to it.
 */
#include "pysandbox.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "catalog/pg_statistic.h"
#include "utils/plancache.h"
#include "utils/syscache.h"

/* How a column of each kind arrives in pandas (README, Types). */
static const struct
{
	int			kind;
	const char *dtype;
	const char *with_nulls;		/* what NULLs make of it, or NULL */
	const char *python_type;	/* of an object column's values, or NULL */
}			sb_dtypes[] = {
	{SB_COL_INT64, "int64", "\"dtype_with_nulls\": \"Int64\"", NULL},
	{SB_COL_FLOAT64, "float64", "\"nulls_as\": \"NaN\"", NULL},
	{SB_COL_BOOL, "bool", "\"dtype_with_nulls\": \"boolean\"", NULL},
	{SB_COL_DATE, "datetime64[ns]", NULL, NULL},
	{SB_COL_TIMESTAMP, "datetime64[ns]", NULL, NULL},
	{SB_COL_TIMESTAMPTZ, "datetime64[ns, UTC]", NULL, NULL},
	{SB_COL_INTERVAL, "timedelta64[ns]", NULL, NULL},
	{SB_COL_JSON, "object", NULL, "dict, list, str, int, float, bool or None (JSON)"},
	{SB_COL_DECIMAL_JSON, "object", NULL, "dict, list, str, int, decimal.Decimal, bool or None (JSON)"},
	{SB_COL_BYTES, "object", NULL, "bytes"},
	{SB_COL_DECIMAL, "object", NULL, "decimal.Decimal"},
	{SB_COL_NUMERIC_ARRAY, "object", NULL, "list of float"},
	{SB_COL_DECIMAL_ARRAY, "object", NULL, "list of decimal.Decimal"},
	{SB_COL_DATE_ARRAY, "object", NULL, "list of datetime.date"},
	{SB_COL_TIMESTAMP_ARRAY, "object", NULL, "list of datetime.datetime"},
	{SB_COL_TIMESTAMPTZ_ARRAY, "object", NULL, "list of datetime.datetime (aware, UTC)"},
	{SB_COL_BYTES_ARRAY, "object", NULL, "list of bytes"},
	{SB_COL_TEXT, "object", NULL, "str"},
};

/*
 * The fraction of a table column's values that are NULL, as ANALYZE found
 * it, or -1 if unknown; only where pg_stats would show it to the caller
 * (the column's SELECT privilege, no row security in force).
 */
static double
sb_describe_null_frac(Oid relid, AttrNumber attnum)
{
	HeapTuple	tup;
	double		frac = -1;

	/* has_column_privilege(): the table's privilege, or the column's */
	if ((pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		 pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) != ACLCHECK_OK) ||
		check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		return -1;
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(attnum),
						  BoolGetDatum(false));
	if (HeapTupleIsValid(tup))
	{
		frac = ((Form_pg_statistic) GETSTRUCT(tup))->stanullfrac;
		ReleaseSysCache(tup);
	}
	return frac;
}

/*
 * A column's dtype: the one it arrives as without NULLs and, if it may
 * hold some, what they make of it; where the table's statistics or the
 * sample say it holds NULLs, the dtype it then arrives as (review 111 F4:
 * "int64" was read as the dtype of a column that arrived as Int64).
 */
/* null_frac of a column the sample met NULLs in, where no fraction is known */
#define SB_NULLS_SEEN 2.0

/*
 * What the elements of an array column that arrives through JSON are, as
 * python_type says it (review 165 F6: "list" alone, where numeric[] and
 * date[] named theirs): a NULL element is None in any of them.
 */
static const char *
sb_array_python_type(Oid arraytype, bool decimal)
{
	Oid			element = getBaseType(get_element_type(arraytype));

	if (!OidIsValid(element))
		return "list";
	if (sb_is_money(element))
		return decimal ? "list of decimal.Decimal (the amounts)" : "list of float (the amounts)";
	switch (element)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
			return "list of int";
		case BOOLOID:
			return "list of bool";
		case INTERVALOID:
			return "list of str (interval text, as '1 day 02:00:00' or '-1 mons')";
		case JSONOID:
		case JSONBOID:
			return decimal ? "list of JSON values (dict, list, str, int, decimal.Decimal, bool or None)" :
				"list of JSON values (dict, list, str, int, float, bool or None)";
		default:
			break;
	}
	if (type_is_rowtype(element))
		return "list of dict (each row's fields as JSON values)";
	if (type_is_range(element) || type_is_multirange(element))
		return "list of str (range text)";
	return "list of str";
}

static void
sb_describe_dtype(StringInfo out, int kind, Oid typid, bool nullable, double null_frac)
{
	int			i = lengthof(sb_dtypes) - 1;	/* text, if nothing else */

	for (int k = 0; k < lengthof(sb_dtypes); k++)
		if (sb_dtypes[k].kind == kind)
			i = k;
	if (nullable && null_frac > 0 && (kind == SB_COL_INT64 || kind == SB_COL_BOOL))
		appendStringInfo(out, "\"dtype\": \"%s\", \"dtype_without_nulls\": \"%s\"",
						 kind == SB_COL_INT64 ? "Int64" : "boolean", sb_dtypes[i].dtype);
	else
	{
		appendStringInfo(out, "\"dtype\": \"%s\"", sb_dtypes[i].dtype);
		if (nullable && sb_dtypes[i].with_nulls)
			appendStringInfo(out, ", %s", sb_dtypes[i].with_nulls);
	}
	if (nullable && null_frac > 0 && null_frac <= 1)
		appendStringInfo(out, ", \"null_frac\": %.4g", null_frac);
	if ((kind == SB_COL_JSON || kind == SB_COL_DECIMAL_JSON) && type_is_array(getBaseType(typid)))
		appendStringInfo(out, ", \"python_type\": \"%s\"",
						 sb_array_python_type(getBaseType(typid), kind == SB_COL_DECIMAL_JSON));
	else if ((kind == SB_COL_JSON || kind == SB_COL_DECIMAL_JSON) &&
			 type_is_rowtype(getBaseType(typid)))
		appendStringInfoString(out, ", \"python_type\": \"dict (its fields as JSON values)\"");
	else if (sb_dtypes[i].python_type)
		appendStringInfo(out, ", \"python_type\": \"%s\"", sb_dtypes[i].python_type);
}

/* Can the query make NULLs of a NOT NULL column (outer joins, grouping sets)? */
static bool
sb_makes_nulls(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, JoinExpr) && IS_OUTER_JOIN(((JoinExpr *) node)->jointype))
		return true;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		if (q->groupingSets != NIL || q->setOperations != NULL)
			return true;
		return query_tree_walker(q, sb_makes_nulls, context, 0);
	}
	return expression_tree_walker(node, sb_makes_nulls, context);
}

/*
 * Is expr a column of the query's own tables that the WHERE keeps NULLs out
 * of (find_nonnullable_vars: the WHERE is false or NULL when it is NULL)?
 * Review 165 F6: "WHERE qty IS NOT NULL" was described as Int64 with the
 * table's fraction of NULLs, and the code got int64.
 */
static bool
sb_var_kept_from_nulls(Expr *expr, List *nonnull_vars)
{
	ListCell   *lc;
	Var		   *var;

	if (expr == NULL || !IsA(expr, Var))
		return false;
	var = (Var *) expr;
	if (var->varlevelsup != 0)
		return false;
	foreach(lc, nonnull_vars)
	{
		Var		   *kept = (Var *) lfirst(lc);

		if (IsA(kept, Var) && kept->varlevelsup == 0 && kept->varno == var->varno &&
			kept->varattno == var->varattno)
			return true;
	}
	return false;
}

/* A description's sample stops growing past this many bytes. */
#define SB_DESCRIBE_SAMPLE_BYTES	(1024 * 1024)

/*
 * The sample's rows are written as the code gets their values where
 * PostgreSQL's JSON says otherwise: money as its amount (row_to_json writes
 * its text, "$13.25", and a model shown that stripped "$" from a float64
 * column: review 66), and so money[]'s elements (review 115).  The row's descriptor with money columns as numeric,
 * or NULL when it has none.
 */
static TupleDesc
sb_describe_sample_desc(TupleDesc desc)
{
	TupleDesc	amounts = NULL;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || !sb_is_money(att->atttypid))
			continue;
		if (amounts == NULL)
		{
			/* a record type of its own: the copy has desc's typmod */
			amounts = CreateTupleDescCopy(desc);
			amounts->tdtypeid = RECORDOID;
			amounts->tdtypmod = -1;
		}
		TupleDescInitEntry(amounts, i + 1, NameStr(att->attname),
						   type_is_array(getBaseType(att->atttypid)) ? NUMERICARRAYOID : NUMERICOID,
						   -1, 0);
	}
	return amounts == NULL ? NULL : BlessTupleDesc(amounts);
}

/*
 * One sample row as JSON text (amounts: sb_describe_sample_desc's), its
 * timestamptz values in UTC as the code gets them (review 165 F6: in the
 * session's zone, "01:04:24-04:00" where the code saw 05:04:24+00:00, and a
 * model read hours and dates off the sample).  Only the writing is in UTC:
 * the query ran in the session's zone, as it does for the code.
 */
static char *sb_describe_sample_row_zoned(HeapTuple tup, TupleDesc desc, TupleDesc amounts);

static char *
sb_describe_sample_row(HeapTuple tup, TupleDesc desc, TupleDesc amounts)
{
	pg_tz	   *zone = session_timezone;
	pg_tz	   *utc = pg_tzset("UTC");
	char	   *row;

	if (utc == NULL)
		return sb_describe_sample_row_zoned(tup, desc, amounts);
	PG_TRY();
	{
		session_timezone = utc;
		row = sb_describe_sample_row_zoned(tup, desc, amounts);
	}
	PG_FINALLY();
	{
		session_timezone = zone;
	}
	PG_END_TRY();
	return row;
}

static char *
sb_describe_sample_row_zoned(HeapTuple tup, TupleDesc desc, TupleDesc amounts)
{
	Datum	   *values;
	bool	   *isnull;
	int			i;

	if (amounts == NULL)
		return TextDatumGetCString(DirectFunctionCall1(row_to_json,
													   heap_copy_tuple_as_datum(tup, desc)));
	values = palloc(sizeof(Datum) * desc->natts);
	isnull = palloc(sizeof(bool) * desc->natts);
	heap_deform_tuple(tup, desc, values, isnull);
	for (i = 0; i < desc->natts; i++)
	{
		Oid			t = TupleDescAttr(desc, i)->atttypid;

		if (isnull[i] || TupleDescAttr(desc, i)->attisdropped || !sb_is_money(t))
			continue;
		values[i] = type_is_array(getBaseType(t)) ? sb_money_array_amounts(values[i]) :
			DirectFunctionCall1(cash_numeric, values[i]);
	}
	return TextDatumGetCString(DirectFunctionCall1(row_to_json,
												   heap_copy_tuple_as_datum(heap_form_tuple(amounts, values, isnull),
																			amounts)));
}

/*
 * The names among desc's first ncols columns that more than one column has,
 * as JSON strings separated by ", " into names; how many.  A sample row is a
 * JSON object, which keeps one of them (jsonb the last) where the DataFrame
 * has every column.
 */
static int
sb_describe_repeated_names(TupleDesc desc, int ncols, StringInfo names)
{
	int			found = 0;

	for (int i = 0; i < ncols; i++)
	{
		const char *name = NameStr(TupleDescAttr(desc, i)->attname);
		bool		earlier = false;
		bool		later = false;

		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < i && !earlier; j++)
			earlier = strcmp(name, NameStr(TupleDescAttr(desc, j)->attname)) == 0;
		for (int j = i + 1; j < ncols && !earlier && !later; j++)
			later = strcmp(name, NameStr(TupleDescAttr(desc, j)->attname)) == 0;
		if (earlier || !later)
			continue;
		if (found++ > 0)
			appendStringInfoString(names, ", ");
		escape_json(names, name);
	}
	return found;
}

/*
 * The public attributes of pandas 1.5's DataFrame, sorted (dir() without
 * the "_" names; test/python/test_describe_names.py keeps this so): a
 * column named as one is not reached as df.<name>, which is the
 * DataFrame's own (df.count is its method: review 172 F4).
 */
static const char *const sb_frame_attributes[] = {
	"T", "abs", "add", "add_prefix", "add_suffix", "agg", "aggregate", "align", "all",
	"any", "append", "apply", "applymap", "asfreq", "asof", "assign", "astype", "at",
	"at_time", "attrs", "axes", "backfill", "between_time", "bfill", "bool", "boxplot",
	"clip", "columns", "combine", "combine_first", "compare", "convert_dtypes", "copy",
	"corr", "corrwith", "count", "cov", "cummax", "cummin", "cumprod", "cumsum",
	"describe", "diff", "div", "divide", "dot", "drop", "drop_duplicates", "droplevel",
	"dropna", "dtypes", "duplicated", "empty", "eq", "equals", "eval", "ewm", "expanding",
	"explode", "ffill", "fillna", "filter", "first", "first_valid_index", "flags",
	"floordiv", "from_dict", "from_records", "ge", "get", "groupby", "gt", "head", "hist",
	"iat", "idxmax", "idxmin", "iloc", "index", "infer_objects", "info", "insert",
	"interpolate", "isetitem", "isin", "isna", "isnull", "items", "iteritems", "iterrows",
	"itertuples", "join", "keys", "kurt", "kurtosis", "last", "last_valid_index", "le",
	"loc", "lookup", "lt", "mad", "mask", "max", "mean", "median", "melt", "memory_usage",
	"merge", "min", "mod", "mode", "mul", "multiply", "ndim", "ne", "nlargest", "notna",
	"notnull", "nsmallest", "nunique", "pad", "pct_change", "pipe", "pivot",
	"pivot_table", "plot", "pop", "pow", "prod", "product", "quantile", "query", "radd",
	"rank", "rdiv", "reindex", "reindex_like", "rename", "rename_axis", "reorder_levels",
	"replace", "resample", "reset_index", "rfloordiv", "rmod", "rmul", "rolling", "round",
	"rpow", "rsub", "rtruediv", "sample", "select_dtypes", "sem", "set_axis", "set_flags",
	"set_index", "shape", "shift", "size", "skew", "slice_shift", "sort_index",
	"sort_values", "sparse", "squeeze", "stack", "std", "style", "sub", "subtract", "sum",
	"swapaxes", "swaplevel", "tail", "take", "to_clipboard", "to_csv", "to_dict",
	"to_excel", "to_feather", "to_gbq", "to_hdf", "to_html", "to_json", "to_latex",
	"to_markdown", "to_numpy", "to_orc", "to_parquet", "to_period", "to_pickle",
	"to_records", "to_sql", "to_stata", "to_string", "to_timestamp", "to_xarray",
	"to_xml", "transform", "transpose", "truediv", "truncate", "tshift", "tz_convert",
	"tz_localize", "unstack", "update", "value_counts", "values", "var", "where", "xs"
};

static int
sb_name_cmp(const void *key, const void *item)
{
	return strcmp((const char *) key, *(const char *const *) item);
}

/*
 * The columns among desc's first ncols named as a DataFrame attribute, as
 * JSON strings separated by ", " into names (each once); the first of
 * them, or NULL.
 */
static const char *
sb_describe_attribute_names(TupleDesc desc, int ncols, StringInfo names)
{
	const char *first = NULL;

	for (int i = 0; i < ncols; i++)
	{
		const char *name = NameStr(TupleDescAttr(desc, i)->attname);
		bool		earlier = false;

		CHECK_FOR_INTERRUPTS();
		if (bsearch(name, sb_frame_attributes, lengthof(sb_frame_attributes),
					sizeof(sb_frame_attributes[0]), sb_name_cmp) == NULL)
			continue;
		for (int j = 0; j < i && !earlier; j++)
			earlier = strcmp(name, NameStr(TupleDescAttr(desc, j)->attname)) == 0;
		if (earlier)
			continue;
		if (first != NULL)
			appendStringInfoString(names, ", ");
		else
			first = name;
		escape_json(names, name);
	}
	return first;
}

/*
 * sandbox_describe: one table input described into job->describe, with no
 * Python: its columns (SQL type, pandas dtype, whether NULL can occur), the
 * planner's row estimate and up to job->d->sample rows.  The query is
 * prepared and run as sb_table_input() runs it; the caller must be allowed
 * to read what it reads before anything about it is told.  The text goes
 * straight into d->out, which lives in the caller's memory context
 * (appending keeps it there), not SPI's.
 */
static void
sb_describe_job(void *arg)
{
	SbTableJob *job = (SbTableJob *) arg;
	ErrorContextCallback errcb;
	SPIPlanPtr	plan;
	ParamListInfo paramLI = NULL;
	CachedPlanSource *ps;
	CachedPlan *cplan;
	Query	   *q;
	TupleDesc	desc;
	ListCell   *lc;
	double		rows = 0;
	bool		save_read_only = XactReadOnly;
	StringInfo	out = job->d->out;
	bool		nulls_anywhere;
	int			col = 0;
	bool	   *notnull;
	double	   *null_frac;
	int		   *nulls_seen;
	StringInfoData sample;
	int			taken = 0;
	volatile bool exhausted = false;
	List	   *nonnull_vars;

	sb_push_input_context(&errcb, job->name);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = sb_table_prepare(job->name, job->query, job->params, &paramLI);
	ps = (CachedPlanSource *) linitial(SPI_plan_get_plan_sources(plan));

	/*
	 * The privileges the query needs, as the executor checks them.  Read-only
	 * from here: planning may run functions (to estimate), as running does.
	 */
	cplan = sb_table_plan(plan);
	if (cplan == NULL)
		elog(ERROR, "could not plan the query of input \"%s\"", job->name);
	foreach(lc, cplan->stmt_list)
	{
		PlannedStmt *stmt = lfirst_node(PlannedStmt, lc);

		(void) ExecCheckRTPerms(stmt->rtable, true);
		if (stmt->planTree != NULL)
			rows = stmt->planTree->plan_rows;
	}
	ReleaseCachedPlan(cplan, NULL);

	desc = ps->resultDesc;
	q = linitial_node(Query, ps->query_list);
	nulls_anywhere = sb_makes_nulls((Node *) q, NULL);
	/* columns the WHERE keeps NULL out of (qty IS NOT NULL, qty > 0) */
	nonnull_vars = q->jointree != NULL && q->jointree->quals != NULL ?
		find_nonnullable_vars(q->jointree->quals) : NIL;
	notnull = palloc0(sizeof(bool) * Max(desc->natts, 1));
	null_frac = palloc(sizeof(double) * Max(desc->natts, 1));
	nulls_seen = palloc0(sizeof(int) * Max(desc->natts, 1));
	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk || col >= desc->natts)
			continue;
		null_frac[col] = -1;
		if (!nulls_anywhere && OidIsValid(te->resorigtbl) && te->resorigcol > 0)
		{
			HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(te->resorigtbl),
											  Int16GetDatum(te->resorigcol));

			if (HeapTupleIsValid(tup))
			{
				notnull[col] = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
				ReleaseSysCache(tup);
			}
			if (!notnull[col] && sb_var_kept_from_nulls(te->expr, nonnull_vars))
				notnull[col] = true;
			if (!notnull[col])
				null_frac[col] = sb_describe_null_frac(te->resorigtbl, te->resorigcol);
		}
		col++;
	}

	/* row by row through a cursor: one row in memory, the text capped */
	initStringInfo(&sample);
	appendStringInfoString(&sample, "\"sample\": [");
	if (job->d->sample > 0)
	{
		Portal		portal;
		TupleDesc	sample_desc = NULL;
		TupleDesc	amounts = NULL;
		int			start = sample.len;
		volatile bool truncated = false;

		XactReadOnly = true;
		PG_TRY();
		{
			portal = SPI_cursor_open_with_paramlist(NULL, plan, paramLI, true);
			while (taken < job->d->sample)
			{
				HeapTuple	tup;
				char	   *row;

				SPI_cursor_fetch(portal, true, 1);
				if (SPI_processed == 0 || SPI_tuptable == NULL)
				{
					exhausted = true;	/* every row read: their number is known */
					break;
				}
				tup = SPI_tuptable->vals[0];
				if (sample_desc == NULL)
				{
					/* a copy: each row's tuple table goes with the row */
					sample_desc = BlessTupleDesc(CreateTupleDescCopy(SPI_tuptable->tupdesc));
					amounts = sb_describe_sample_desc(sample_desc);
				}
				for (int i = 0; i < col && i < sample_desc->natts; i++)
					if (heap_attisnull(tup, i + 1, sample_desc))
						nulls_seen[i]++;
				row = sb_describe_sample_row(tup, sample_desc, amounts);
				SPI_freetuptable(SPI_tuptable);
				/* a row past the cap is left out, however wide (review 124 F2) */
				if ((size_t) (sample.len - start) + strlen(row) + 2 > SB_DESCRIBE_SAMPLE_BYTES)
				{
					truncated = true;
					pfree(row);
					break;
				}
				if (taken > 0)
					appendStringInfoString(&sample, ", ");
				appendStringInfoString(&sample, row);
				pfree(row);
				taken++;
			}
			SPI_cursor_close(portal);
		}
		PG_FINALLY();
		{
			XactReadOnly = save_read_only;
		}
		PG_END_TRY();
		/*
		 * a table never analysed has the planner's guess (470 rows for an
		 * empty one, review 58): when the sample read every row, the count
		 */
		if (exhausted)
			rows = taken;
		if (truncated)
			appendStringInfoString(&sample, "], \"sample_truncated\": true");
		else
			appendStringInfoString(&sample, "]");
	}
	else
		appendStringInfoString(&sample, "]");

	/*
	 * The columns, their dtype by what the sample saw where it says more than
	 * the statistics: a sample that read every row counts the NULLs, and one
	 * that met a NULL shows the column has some (review 151 F5: a table not
	 * yet analysed said "int64" of a column that arrived as Int64)
	 */
	appendStringInfoString(out, "{\"kind\": \"table\", \"columns\": [");
	for (int i = 0; i < col; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		double		frac = null_frac[i];

		if (!notnull[i] && exhausted)
			frac = taken > 0 ? (double) nulls_seen[i] / taken : 0;
		else if (!notnull[i] && nulls_seen[i] > 0 && frac <= 0)
			frac = SB_NULLS_SEEN;
		if (i > 0)
			appendStringInfoString(out, ", ");
		appendStringInfoString(out, "{\"name\": ");
		escape_json(out, NameStr(att->attname));
		appendStringInfoString(out, ", \"type\": ");
		escape_json(out, format_type_with_typemod(att->atttypid, att->atttypmod));
		appendStringInfoString(out, ", ");
		sb_describe_dtype(out, sb_input_kind(att->atttypid, job->d->numeric_decimal),
						  att->atttypid, !notnull[i], frac);
		appendStringInfo(out, ", \"nullable\": %s}", notnull[i] ? "false" : "true");
	}
	appendStringInfoString(out, "], ");
	appendBinaryStringInfo(out, sample.data, sample.len);
	pfree(sample.data);
	if (taken > 0)
	{
		StringInfoData names;

		/* select a.id, b.id: the sample showed one "id" */
		initStringInfo(&names);
		if (sb_describe_repeated_names(desc, col, &names) > 0)
			appendStringInfo(out, ", \"sample_repeated_names\": [%s], \"sample_note\": "
							 "\"A sample row is a JSON object, which shows one value of a "
							 "name that more than one column has; the DataFrame has every "
							 "column. Name them apart in the query (AS) to see each.\"",
							 names.data);
		pfree(names.data);
	}
	{
		StringInfoData names;
		const char *first;

		/* count(*) AS count: df.count is the DataFrame's method */
		initStringInfo(&names);
		first = sb_describe_attribute_names(desc, col, &names);
		if (first != NULL)
		{
			StringInfoData note;

			initStringInfo(&note);
			appendStringInfo(&note, "These columns are named as DataFrame attributes or methods, "
							 "which df.<name> reaches instead of the column (df.%s is the "
							 "DataFrame's own): write df[\"%s\"].", first, first);
			appendStringInfo(out, ", \"attribute_names\": [%s], \"attribute_note\": ",
							 names.data);
			escape_json(out, note.data);
			pfree(note.data);
		}
		pfree(names.data);
	}
	appendStringInfo(out, ", \"rows_estimate\": %.0f}", rows);

	SPI_finish();
	error_context_stack = errcb.previous;
}

/* What a plain input is in Python. */
static const char *
sb_plain_python_type(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "None";
		case jbvString:
			return "str";
		case jbvBool:
			return "bool";
		case jbvNumeric:
			return "int or float";
		default:
			return JsonContainerIsArray(v->val.binary.data) ? "list" : "dict";
	}
}

/*
 * While an input's query is described: it opens and closes no workspace
 * (review 124 F3: one its query opened outlived the rolled-back
 * subtransaction the query ran in).  A pysandbox function the query calls
 * runs, as the query asks, to read the sample's rows.
 */
bool		sb_describing = false;

/* A table input, described into d->out (sb_inputs_walk). */
void
sb_describe_table(SbDescribe *d, const char *name, const char *query, JsonbValue *params)
{
	SbTableJob	job;
	bool		save_describing = sb_describing;

	memset(&job, 0, sizeof(job));
	job.d = d;
	job.name = name;
	job.query = query;
	job.params = params;
	sb_describing = true;
	PG_TRY();
	{
		sb_rolled_back(sb_describe_job, &job);
	}
	PG_FINALLY();
	{
		sb_describing = save_describing;
	}
	PG_END_TRY();
}

/* A plain input: what it is in Python (sb_inputs_walk). */
void
sb_describe_value(SbDescribe *d, const JsonbValue *v)
{
	appendStringInfo(d->out, "{\"kind\": \"value\", \"python_type\": \"%s\"}",
					 sb_plain_python_type(v));
}

/*
 * sandbox_describe(inputs jsonb, options jsonb) returns jsonb: what each
 * input would be in Python, without running any (README, sandbox_describe).
 */
PG_FUNCTION_INFO_V1(sandbox_describe);

Datum
sandbox_describe(PG_FUNCTION_ARGS)
{
	Jsonb	   *inputs;
	Jsonb	   *options;
	JsonbValue *v;
	JsonbIterator *it;
	JsonbValue	jv;
	JsonbIteratorToken tok;
	StringInfoData out;
	SbDescribe	d;
	bool		numeric_decimal = false;
	int			sample = 5;

	static const char *const args[] = {"inputs", "options", NULL};

	sb_check_args(fcinfo, "sandbox_describe", 0, args);
	inputs = PG_GETARG_JSONB_P(0);
	options = PG_GETARG_JSONB_P(1);
	if (!JB_ROOT_IS_OBJECT(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object")));
	v = getKeyJsonValueFromContainer(&options->root, "sample_rows", 11, NULL);
	if (v != NULL)
	{
		double		n = -1;

		if (v->type == jbvNumeric)
			n = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
												   NumericGetDatum(v->val.numeric)));
		if (n != floor(n) || n < 0 || n > 1000)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.sample_rows must be an integer from 0 to 1000")));
		sample = (int) n;
	}
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &jv, true)) != WJB_DONE)
		if (tok == WJB_KEY &&
			!(jv.val.string.len == 11 && memcmp(jv.val.string.val, "sample_rows", 11) == 0) &&
			!(jv.val.string.len == 7 && memcmp(jv.val.string.val, "numeric", 7) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\"", jv.val.string.len, jv.val.string.val),
					 errhint("Known options of sandbox_describe are sample_rows and numeric.")));
	v = getKeyJsonValueFromContainer(&options->root, "numeric", 7, NULL);
	if (v != NULL)
	{
		if (v->type == jbvString && v->val.string.len == 7 &&
			memcmp(v->val.string.val, "decimal", 7) == 0)
			numeric_decimal = true;
		else if (!(v->type == jbvString && v->val.string.len == 5 &&
				   memcmp(v->val.string.val, "float", 5) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.numeric must be \"float\" or \"decimal\"")));
	}

	initStringInfo(&out);
	d.out = &out;
	d.sample = sample;
	d.numeric_decimal = numeric_decimal;
	sb_inputs_describe(inputs, &d);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

