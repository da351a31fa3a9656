/*
 * sb_language.c
 *		LANGUAGE pysandbox: the call handler, the inline handler (DO) and
 *		the validator.
 *
 * A function's body is the body of a Python function whose parameters are
 * the function's input arguments, by their SQL names; PL/Python's
 * conventions where they fit.  Every call runs like a sandbox_execute call,
 * in a contained child with the session's limits (pysandbox.* settings,
 * which ALTER FUNCTION ... SET can tighten), and never in the backend; the
 * first call of a call site in a statement gets a fresh child, which the
 * site's next calls in the statement reuse (SbFnCache, sb_protocol.h):
 *
 *	- the request carries the body and {"function": {"name", "params",
 *	  "shape"}}: the child parses the body as it is and wraps it in a
 *	  function definition as a syntax tree (sb_validator.function_tree), so
 *	  the validator's findings and tracebacks give lines and columns of the
 *	  body itself;
 *	- the arguments travel as a one-row table input with no name, on the
 *	  columnar path of table inputs (the same types as a $query column; a
 *	  composite argument as JSON, an object); the child hands them to the
 *	  function as plain Python values (sb_codec.decode_scalar);
 *	- the result comes back on the rows path of sandbox_rows (sb_rows.c):
 *	  a scalar as one row of one column, a composite as one row, a set as
 *	  rows, so every type converts with the same checks and errors;
 *	- a call on a kept child sends SB_DATA_CALL and the arguments only: the
 *	  child has the body compiled, and its SD dict from the earlier rows.
 *
 * The validator checks the declaration (named arguments that are Python
 * identifiers, no trigger) and, with check_function_bodies, has a child
 * validate and compile the body: CREATE FUNCTION fails with the same
 * SQLSTATE, line and column as sandbox_execute would give.
 */
#include "pysandbox.h"

#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(pysandbox_call_handler);
PG_FUNCTION_INFO_V1(pysandbox_inline_handler);
PG_FUNCTION_INFO_V1(pysandbox_validator);

/* what the child does with the function's value */
typedef enum SbShape
{
	SB_SHAPE_VOID,				/* nothing comes back */
	SB_SHAPE_SCALAR,			/* one value: a row of one column, or none */
	SB_SHAPE_COMPOSITE,			/* one row, or none */
	SB_SHAPE_SETOF_SCALAR,		/* rows of one column */
	SB_SHAPE_SETOF_COMPOSITE	/* rows */
} SbShape;

static const char *const sb_shape_names[] = {
	"void", "scalar", "composite", "setof_scalar", "setof_composite"
};

/* one function, as its call handler needs it */
typedef struct SbFunction
{
	char	   *proname;		/* the SQL name, for messages */
	char	   *pyname;			/* the Python function's name */
	char	   *body;
	int			nparams;		/* input arguments */
	char	  **params;			/* their names */
	int		   *argno;			/* their positions among the call's arguments */
	Oid		   *argtypes;		/* their declared types */
	bool	   *frames;			/* declared arrays of composites (DataFrames;
								 * polymorphic ones are judged per call) */
	bool		procedure;		/* CREATE PROCEDURE: its messages say so */
} SbFunction;

/*
 * One call site's state (fn_extra, in fn_mcxt): the child held for the
 * calls of its statement, and what it was made for.  A call reuses it only
 * for the same function definition, the same current user, the same
 * top-level statement (and transaction) and the same limits; otherwise
 * the old one is dropped.  When fn_mcxt goes (the end of the executor run
 * of the statement; for a PL/pgSQL simple expression, the end of the
 * transaction) the child goes too; the end of any transaction drops all
 * (sb_worker.c).
 */
typedef struct SbFnCache
{
	SbSandbox  *held;			/* NULL: none */
	uint64		generation;		/* held->generation when it was made */
	Oid			userid;
	uint64		statement;		/* sb_statement_serial */
	LocalTransactionId lxid;
	TransactionId fn_xmin;
	ItemPointerData fn_tid;
	SbLimits	limits;
	bool		python_layer;
	int			filesystem_layer;
	bool		allow_weak;
	char	   *allowed;		/* pysandbox.allowed_modules */
	/* what the child writes money and reads dates by (review 116 F3) */
	char		money_point;
	int			date_order;
	/* the definition as read for this call site (not for sets), in fn_mcxt */
	SbFunction *def;			/* NULL: not read yet */
	TransactionId def_xmin;		/* of the pg_proc row it was read from */
	ItemPointerData def_tid;
	SbShape		def_shape;
	Oid			def_rettype;
	TupleDesc	def_desc;
	MemoryContextCallback cb;
} SbFnCache;

/* Is the held child still the one this call site made? */
static bool
sb_fn_cache_holds(const SbFnCache *c)
{
	return c->held != NULL && c->held->in_use && c->held->generation == c->generation;
}

/* fn_mcxt is going: so is the call site's held child. */
static void
sb_fn_cache_release(void *arg)
{
	SbFnCache  *c = (SbFnCache *) arg;

	if (sb_fn_cache_holds(c))
		sb_sandbox_drop(c->held);
	c->held = NULL;
}

/* The call site's state, made on its first call. */
static SbFnCache *
sb_fn_cache(FunctionCallInfo fcinfo)
{
	SbFnCache  *c = (SbFnCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SbFnCache));
		c->cb.func = sb_fn_cache_release;
		c->cb.arg = c;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, &c->cb);
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/*
 * The child held for this call, if the call site has one made for the
 * same function, user, statement and limits, still waiting; NULL if the
 * call needs a new one (an unfit one is dropped).  Raises if the held
 * child misbehaved between calls (sb_sandbox_held_ready).
 */
static SbSandbox *
sb_fn_cache_take(SbFnCache *c, TransactionId fn_xmin, const ItemPointerData *fn_tid,
				 const SbLimits *limits)
{
	if (!sb_fn_cache_holds(c))
	{
		c->held = NULL;
		return NULL;
	}
	if (c->userid != GetUserId() || c->statement != sb_statement_serial ||
		c->lxid != MyProc->lxid ||
		c->fn_xmin != fn_xmin || !ItemPointerEquals(&c->fn_tid, (ItemPointer) fn_tid) ||
		c->limits.timeout_ms != limits->timeout_ms || c->limits.cpu_ms != limits->cpu_ms ||
		c->limits.memory_mb != limits->memory_mb ||
		c->limits.max_output_bytes != limits->max_output_bytes ||
		c->limits.numeric_decimal != limits->numeric_decimal ||
		c->python_layer != sb_role_python_layer() || c->filesystem_layer != sb_filesystem_layer ||
		c->allow_weak != sb_allow_weak_isolation ||
		c->money_point != sb_money_point() || c->date_order != DateOrder ||
		strcmp(c->allowed, sb_role_allowed_modules()) != 0)
	{
		sb_sandbox_drop(c->held);
		c->held = NULL;
		return NULL;
	}
	if (!sb_sandbox_held_ready(c->held))
	{
		c->held = NULL;			/* it ended cleanly: a fresh one */
		return NULL;
	}
	return c->held;
}

/* A call kept its child: remember it, and what it was made for. */
static void
sb_fn_cache_keep(SbFnCache *c, SbSandbox *held, TransactionId fn_xmin,
				 const ItemPointerData *fn_tid, const SbLimits *limits, MemoryContext cxt)
{
	if (held == NULL)
		return;
	c->held = held;
	c->generation = held->generation;
	c->userid = GetUserId();
	c->statement = sb_statement_serial;
	c->lxid = MyProc->lxid;
	c->fn_xmin = fn_xmin;
	c->fn_tid = *fn_tid;
	c->limits = *limits;
	c->limits.verify = NULL;
	c->python_layer = sb_role_python_layer();
	c->filesystem_layer = sb_filesystem_layer;
	c->allow_weak = sb_allow_weak_isolation;
	c->money_point = sb_money_point();
	c->date_order = DateOrder;
	if (c->allowed != NULL)
		pfree(c->allowed);
	c->allowed = MemoryContextStrdup(cxt, sb_role_allowed_modules());
}

/* errcontext: which function failed */
static void
sb_function_error_context(void *arg)
{
	const char *name = (const char *) arg;

	errcontext("pysandbox function \"%s\"", name);
}

/* The Python name of a function: its SQL name if that is an identifier. */
static char *
sb_python_name(const char *proname)
{
	return pstrdup(sb_is_identifier(proname) ? proname : "function");
}

/*
 * Read a function's definition: its body and its input arguments, each of
 * which must have a name that is a Python identifier.
 */
static Oid	sb_frame_element(Oid type);

static SbFunction *
sb_function_read(HeapTuple procTup)
{
	Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(procTup);
	SbFunction *fn = palloc0(sizeof(SbFunction));
	Oid		   *argtypes;
	char	  **argnames;
	char	   *argmodes;
	bool		isnull;
	Datum		src;
	int			nargs;
	int			i;
	int			in = 0;

	fn->proname = pstrdup(NameStr(proc->proname));
	fn->pyname = sb_python_name(fn->proname);
	fn->procedure = proc->prokind == PROKIND_PROCEDURE;
	src = SysCacheGetAttr(PROCOID, procTup, Anum_pg_proc_prosrc, &isnull);
	if (isnull)
		elog(ERROR, "null prosrc");
	fn->body = TextDatumGetCString(src);

	nargs = get_func_arg_info(procTup, &argtypes, &argnames, &argmodes);
	fn->params = palloc0(sizeof(char *) * Max(nargs, 1));
	fn->argno = palloc0(sizeof(int) * Max(nargs, 1));
	fn->argtypes = palloc0(sizeof(Oid) * Max(nargs, 1));
	fn->frames = palloc0(sizeof(bool) * Max(nargs, 1));
	for (i = 0; i < nargs; i++)
	{
		char		mode = argmodes ? argmodes[i] : PROARGMODE_IN;
		const char *name = argnames ? argnames[i] : NULL;

		if (mode == PROARGMODE_OUT || mode == PROARGMODE_TABLE)
			continue;
		if (name == NULL || name[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
					 errmsg("argument %d of pysandbox function \"%s\" has no name", i + 1,
							fn->proname),
					 errhint("Arguments reach the Python code by their names: name every argument, as in CREATE FUNCTION %s(x integer) ...",
							 fn->proname)));
		if (!sb_is_identifier(name))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
					 errmsg("argument name \"%s\" of pysandbox function \"%s\" is not a Python identifier",
							name, fn->proname),
					 errhint("Arguments reach the Python code by their names: use letters, digits and underscores, not a Python keyword, not starting with \"__\".")));
		fn->params[in] = pstrdup(name);
		fn->argno[in] = in;
		fn->argtypes[in] = argtypes[i];
		fn->frames[in] = !IsPolymorphicType(argtypes[i]) &&
			OidIsValid(sb_frame_element(argtypes[i]));
		in++;
	}
	fn->nparams = in;
	return fn;
}

/*
 * The key of a function's body in the session's validated-code memo
 * (sb_main.c): its Python name and parameters with the body, after a
 * character no Python module may contain, so that neither a module's memo
 * entry serves a body nor a body's a module (one that began so would not
 * compile).
 */
static char *
sb_function_memo_key(const SbFunction *fn)
{
	StringInfoData key;
	int			i;

	initStringInfo(&key);
	appendStringInfo(&key, "\x01%s(", fn->pyname);
	for (i = 0; i < fn->nparams; i++)
		appendStringInfo(&key, "%s%s", i > 0 ? ", " : "", fn->params[i]);
	appendStringInfo(&key, ")\n%s", fn->body);
	return key.data;
}

/* Can an argument or a result have this pseudo-type? */
static bool
sb_pseudo_type_ok(Oid type, bool result)
{
	if (get_typtype(type) != TYPTYPE_PSEUDO)
		return true;
	/* record[] in: an array of records, as a DataFrame (sb_function_add_frame) */
	return IsPolymorphicType(type) || type == RECORDOID || (result && type == VOIDOID) ||
		(!result && type == RECORDARRAYOID);
}

/*
 * Refuse what the language does not do: triggers, internal and other
 * pseudo-types, domains over composite types, SETOF void.
 */
static void
sb_function_check_types(const SbFunction *fn, Oid rettype, bool retset)
{
	int			i;

	if (rettype == TRIGGEROID || rettype == EVENT_TRIGGEROID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pysandbox functions cannot be triggers"),
				 errdetail("Function \"%s\" returns %s.", fn->proname, format_type_be(rettype)),
				 errhint("Call a pysandbox function from a PL/pgSQL trigger function instead.")));
	if (!sb_pseudo_type_ok(rettype, true) || (retset && rettype == VOIDOID))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pysandbox functions cannot return type %s%s",
						retset ? "SETOF " : "", format_type_be(rettype))));
	if (get_typtype(rettype) == TYPTYPE_DOMAIN && type_is_rowtype(getBaseType(rettype)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pysandbox functions cannot return a domain over a composite type yet"),
				 errdetail("Function \"%s\" returns %s.", fn->proname, format_type_be(rettype)),
				 errhint("Return the composite type itself.")));
	for (i = 0; i < fn->nparams; i++)
		if (!sb_pseudo_type_ok(fn->argtypes[i], false))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("pysandbox functions cannot take type %s",
							format_type_be(fn->argtypes[i])),
					 errdetail("Argument \"%s\" of function \"%s\".", fn->params[i],
							   fn->proname)));
}

/*
 * Begin a request for the function's body: "function" and the limits; with
 * hold, the child is kept for the statement's next calls (sb_protocol.h).
 */
static void
sb_function_request(SbRequest *req, SbFunction *fn, SbShape shape, SbLimits *limits,
					bool hold)
{
	Datum		name = CStringGetTextDatum(fn->pyname);
	ArrayType  *returns = construct_array(&name, 1, TEXTOID, -1, false, TYPALIGN_INT);
	int			i;

	sb_limits_from_options(limits, NULL);
	sb_request_start(req, fn->body, returns, limits);
	appendStringInfoString(&req->json, "\"function\":{\"name\":");
	escape_json(&req->json, fn->pyname);
	appendStringInfoString(&req->json, ",\"params\":[");
	for (i = 0; i < fn->nparams; i++)
	{
		if (i > 0)
			appendStringInfoChar(&req->json, ',');
		escape_json(&req->json, fn->params[i]);
	}
	appendStringInfo(&req->json, "],\"shape\":\"%s\"%s},", sb_shape_names[shape],
					 fn->procedure ? ",\"procedure\":true" : "");
	if (hold)
		appendStringInfoString(&req->json, "\"held\":true,");
	req->hold = hold;
	req->function = true;
}

/*
 * Begin the request of a call on a held child: SB_DATA_CALL; the caller
 * adds the arguments and SB_DATA_END.  (req->json only takes the result's
 * columns from sb_rows_declare: the child has them.)
 */
static void
sb_function_next_call(SbRequest *req, SbSandbox *held, const SbLimits *limits)
{
	memset(req, 0, sizeof(*req));
	req->limits = *limits;
	req->numeric_decimal = limits->numeric_decimal;
	req->python_layer = sb_role_python_layer();
	req->allowed_modules = "";
	initStringInfo(&req->json);
	req->hold = true;
	req->function = true;
	req->held = held;
	sb_request_add_frame(req, SB_DATA_CALL, NULL, 0, NULL, 0, NULL, 0);
}

/*
 * The element type of an array of a composite type (a table's row type, a
 * composite type or record), or InvalidOid: such an argument arrives as a
 * DataFrame, one row per element, as array_agg(t) of a group gives it.
 */
static Oid
sb_frame_element(Oid type)
{
	Oid			elem = get_element_type(getBaseType(type));

	return OidIsValid(elem) && type_is_rowtype(elem) ? elem : InvalidOid;
}

/* Raise the arguments' size error if adding bytes would pass max_input_mb. */
static void
sb_frame_budget(SbRequest *req, SbFunction *fn, uint64 bytes)
{
	if (req->input_bytes + bytes > (uint64) req->limits.max_input_mb * 1024 * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the arguments of pysandbox function \"%s\" are larger than %d MB",
						fn->proname, req->limits.max_input_mb),
				 errhint("%s", sb_limit_hint("Pass less data", &req->limits, SB_LIMIT_INPUT_SIZE))));
}

/*
 * Argument i, an array of composites, as a table input named "#i": its
 * elements' fields as columns, typed as a table input's (a NULL element is
 * a row of NULLs; a multidimensional array is read in storage order).
 */
static void
sb_function_add_frame(SbRequest *req, SbFunction *fn, int i, Datum d)
{
	ArrayType  *arr = DatumGetArrayTypeP(d);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int			n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	ArrayIterator it;
	Datum		elem;
	bool		elemnull;
	int			j = 0;
	int			k;
	int			ncols = 0;
	Oid			typid = elemtype;
	int32		typmod = -1;
	TupleDesc	desc;
	SbColumn   *cols;
	int		   *attno;
	Datum	   *values;
	bool	   *isnull;
	MemoryContext rowcxt;
	MemoryContext old;
	const char *param = fn->params[i];

	/*
	 * The input budget first, at a byte a row, before anything is allocated
	 * per element: an array of NULLs is a bit an element, and a few MB of
	 * it would otherwise ask for gigabytes of element arrays.  The elements
	 * are read in place, one at a time.
	 */
	sb_frame_budget(req, fn, (uint64) n);
	if (elemtype == RECORDOID && n == 0)
	{
		/* no records, no row type: a frame without columns or rows */
		sb_request_add_table(req, psprintf("#%d", i), NULL, 0, 0);
		return;
	}
	if (elemtype != RECORDOID)
		typid = getBaseType(elemtype);	/* a domain's elements carry its base type */
	else
	{
		/* anonymous records: the first element's row type is the frame's */
		bool		found = false;

		it = array_create_iterator(arr, 0, NULL);
		while (!found && array_iterate(it, &elem, &elemnull))
		{
			found = !elemnull;
			if ((++j & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		array_free_iterator(it);
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("could not determine the columns of argument \"%s\"", param),
					 errdetail("It is an array of anonymous records, all of them NULL."),
					 errhint("Pass an array of a named composite type, such as array_agg(t) of a table t.")));
		typid = HeapTupleHeaderGetTypeId(DatumGetHeapTupleHeader(elem));
		typmod = HeapTupleHeaderGetTypMod(DatumGetHeapTupleHeader(elem));
	}
	desc = lookup_rowtype_tupdesc(typid, typmod);
	cols = palloc0(sizeof(SbColumn) * Max(desc->natts, 1));
	attno = palloc(sizeof(int) * Max(desc->natts, 1));
	for (k = 0; k < desc->natts; k++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, k);

		if (att->attisdropped)
			continue;
		sb_column_init(&cols[ncols], NameStr(att->attname), att->atttypid,
					   req->numeric_decimal, CurrentMemoryContext);
		cols[ncols].argument = SB_ARG_ELEMENT;
		attno[ncols++] = k;
	}

	/*
	 * The input budget before and while the columns fill: a NULL element
	 * is a bit in the array but at least a byte a column here, so a small
	 * array can ask for far more than it holds
	 */
	sb_frame_budget(req, fn, (uint64) n * (uint64) Max(ncols, 1));
	values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "pysandbox argument row",
								   ALLOCSET_SMALL_SIZES);
	it = array_create_iterator(arr, 0, NULL);
	for (j = 0; array_iterate(it, &elem, &elemnull); j++)
	{
		old = MemoryContextSwitchTo(rowcxt);
		if (elemnull)
		{
			for (k = 0; k < desc->natts; k++)
				isnull[k] = true;
		}
		else
		{
			HeapTupleHeader th = DatumGetHeapTupleHeader(elem);
			HeapTupleData tup;

			if (HeapTupleHeaderGetTypeId(th) != typid ||
				HeapTupleHeaderGetTypMod(th) != typmod)
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("the records of argument \"%s\" are not all of one row type", param),
						 errhint("Pass an array of a named composite type, such as array_agg(t) of a table t.")));
			tup.t_len = HeapTupleHeaderGetDatumLength(th);
			ItemPointerSetInvalid(&tup.t_self);
			tup.t_tableOid = InvalidOid;
			tup.t_data = th;
			heap_deform_tuple(&tup, desc, values, isnull);
		}
		for (k = 0; k < ncols; k++)
			sb_column_append(&cols[k], values[attno[k]], isnull[attno[k]], (uint64) j, param);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
		if (j % 1024 == 1023)
		{
			uint64		bytes = 0;

			CHECK_FOR_INTERRUPTS();
			for (k = 0; k < ncols; k++)
				bytes += sb_column_size(&cols[k]);
			sb_frame_budget(req, fn, bytes);
		}
	}
	array_free_iterator(it);
	MemoryContextDelete(rowcxt);
	ReleaseTupleDesc(desc);
	sb_request_add_table(req, psprintf("#%d", i), cols, ncols, (uint64) n);
	req->input_rows -= (uint64) n;	/* arguments, not a table's rows */
}

/*
 * Argument i, a composite, as a one-row table input named "#i=": its fields
 * as columns, so that the child makes each field the plain Python value an
 * argument of its type would be (a date a datetime.date, an interval a
 * timedelta), in a dict.  A field that is itself a composite goes as JSON
 * (an object), as before.
 */
static void
sb_function_add_record(SbRequest *req, SbFunction *fn, int i, Datum d)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(d);
	Oid			typid = HeapTupleHeaderGetTypeId(th);
	int32		typmod = HeapTupleHeaderGetTypMod(th);
	TupleDesc	desc = lookup_rowtype_tupdesc(typid, typmod);
	HeapTupleData tup;
	Datum	   *values;
	bool	   *isnull;
	SbColumn   *cols;
	int			ncols = 0;
	int			k;

	sb_frame_budget(req, fn, (uint64) Max(desc->natts, 1));
	values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	cols = palloc0(sizeof(SbColumn) * Max(desc->natts, 1));
	tup.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	tup.t_data = th;
	heap_deform_tuple(&tup, desc, values, isnull);
	for (k = 0; k < desc->natts; k++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, k);
		Oid			type = att->atttypid;
		Datum		v = values[k];

		if (att->attisdropped)
			continue;
		if (type_is_rowtype(type))
		{
			if (!isnull[k])
				v = DirectFunctionCall1(row_to_json, v);
			type = JSONOID;
		}
		sb_column_init(&cols[ncols], NameStr(att->attname), type, req->numeric_decimal,
					   CurrentMemoryContext);
		sb_column_argument(&cols[ncols], SB_ARG_FIELD);
		sb_column_append(&cols[ncols], v, isnull[k], 0, fn->params[i]);
		ncols++;
	}
	ReleaseTupleDesc(desc);
	sb_request_add_table(req, psprintf("#%d=", i), cols, ncols, 1);
	req->input_rows -= 1;		/* an argument, not a table's row */
}

/*
 * The call's arguments as a one-row table input without a name: the child
 * makes plain Python values of them.  A composite goes as its own one-row
 * table "#i=" (sb_function_add_record), an array of composites as its own
 * table "#i" (sb_function_add_frame), their places among the arguments NULL.
 */
static void
sb_function_add_args(SbRequest *req, SbFunction *fn, FunctionCallInfo fcinfo)
{
	SbColumn   *cols;
	int			i;
	List	   *frames = NIL;
	List	   *records = NIL;
	ListCell   *lc;

	if (fn->nparams == 0)
		return;
	cols = palloc0(sizeof(SbColumn) * fn->nparams);
	for (i = 0; i < fn->nparams; i++)
	{
		int			argno = fn->argno[i];
		Oid			type = fn->argtypes[i];
		bool		isnull = fcinfo->args[argno].isnull;
		Datum		d = fcinfo->args[argno].value;

		bool		frame = fn->frames[i];

		if (IsPolymorphicType(type))
		{
			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
			frame = OidIsValid(type) && OidIsValid(sb_frame_element(type));
		}
		if (!OidIsValid(type))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("could not determine the type of argument \"%s\"", fn->params[i])));
		if (frame)
		{
			/* sent after the arguments, as its own table */
			if (!isnull)
				frames = lappend_int(frames, i);
			isnull = true;
			type = JSONOID;
		}
		else if (type_is_rowtype(type) || type == RECORDOID)
		{
			/* sent after the arguments, as a one-row table */
			if (!isnull)
				records = lappend_int(records, i);
			isnull = true;
			type = JSONOID;
		}
		sb_column_init(&cols[i], fn->params[i], type, req->numeric_decimal, CurrentMemoryContext);
		sb_column_argument(&cols[i], SB_ARG_SCALAR);
		sb_column_append(&cols[i], d, isnull, 0, fn->params[i]);
	}
	sb_request_add_table(req, "", cols, fn->nparams, 1);
	req->input_rows--;			/* arguments are no table's rows: max_input_rows is for sql() */
	foreach(lc, frames)
		sb_function_add_frame(req, fn, lfirst_int(lc), fcinfo->args[fn->argno[lfirst_int(lc)]].value);
	foreach(lc, records)
		sb_function_add_record(req, fn, lfirst_int(lc), fcinfo->args[fn->argno[lfirst_int(lc)]].value);
	if (req->input_bytes > (uint64) req->limits.max_input_mb * 1024 * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the arguments of pysandbox function \"%s\" are larger than %d MB",
						fn->proname, req->limits.max_input_mb),
				 errhint("%s", sb_limit_hint("Pass less data", &req->limits, SB_LIMIT_INPUT_SIZE))));
}

/* The one-column descriptor of a scalar result. */
static TupleDesc
sb_scalar_desc(const char *name, Oid type)
{
	TupleDesc	desc = CreateTemplateTupleDesc(1);

	TupleDescInitEntry(desc, (AttrNumber) 1, name, type, -1, 0);
	return desc;
}

/*
 * The call's failure, if any, raised; a set-returning function that ran
 * out of time, CPU, memory or output is told that its rows are all made
 * before the first is returned (review 107: an endless generator under a
 * LIMIT was told to be faster).
 */
static void
sb_function_check_outcome(const SbOutcome *out, const SbLimits *limits, bool retset)
{
	SbFailure	f;

	if (!sb_outcome_failure(out, limits, &f))
		return;
	if (retset && f.kind != NULL &&
		(strcmp(f.kind, "timeout") == 0 || strcmp(f.kind, "cpu") == 0 ||
		 strcmp(f.kind, "memory") == 0 || strcmp(f.kind, "output") == 0))
		f.hint = psprintf("%s%sA set-returning function makes all its rows before the first is returned, "
						  "whatever LIMIT the query has: a generator must end on its own.",
						  f.hint != NULL ? f.hint : "", f.hint != NULL ? " " : "");
	sb_raise_failure(&f);
}

/*
 * Set up materialize mode for a set of scalars (InitMaterializedSRF wants a
 * row type): a tuplestore of one column, named for the function.
 */
static void
sb_materialize_scalar(FunctionCallInfo fcinfo, const char *name, Oid type)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	rsinfo->setDesc = sb_scalar_desc(name, type);
	rsinfo->setResult = tuplestore_begin_heap((rsinfo->allowedModes & SFRM_Materialize_Random) != 0,
											  false, work_mem);
	rsinfo->returnMode = SFRM_Materialize;
	MemoryContextSwitchTo(old);
}

/*
 * The call handler: run the function's body in a sandbox child with the
 * call's arguments and return its value, or its rows.
 */
static Datum
pysandbox_call_handler_call(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HeapTuple	procTup;
	Form_pg_proc proc;
	SbFunction *fn;
	SbRequest	req;
	SbLimits	limits;
	SbOutcome	out;
	SbRowsOut  *ro;
	SbShape		shape;
	TypeFuncClass cls;
	Oid			rettype;
	TupleDesc	desc = NULL;
	bool		retset;
	ErrorContextCallback errcb;
	Jsonb	   *empty;
	Datum	   *values;
	bool	   *nulls;
	uint64		nrows;
	Datum		result = (Datum) 0;
	char	   *memo_key;
	SbFnCache  *cache;
	SbSandbox  *held;
	TransactionId fn_xmin;
	ItemPointerData fn_tid;
	char	   *result_name;

	if (CALLED_AS_TRIGGER(fcinfo) || CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pysandbox functions cannot be triggers")));
	/* one declared WINDOW before the validator refused it: no arguments in fcinfo */
	if (fcinfo->context != NULL && IsA(fcinfo->context, WindowObjectData))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pysandbox functions cannot be window functions")));

	procTup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	if (!HeapTupleIsValid(procTup))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	proc = (Form_pg_proc) GETSTRUCT(procTup);
	retset = proc->proretset;
	fn_xmin = HeapTupleHeaderGetRawXmin(procTup->t_data);
	fn_tid = procTup->t_self;
	cache = sb_fn_cache(fcinfo);
	if (!retset && cache->def != NULL && cache->def_xmin == fn_xmin &&
		ItemPointerEquals(&cache->def_tid, &fn_tid))
	{
		/* the call site's next row, the same definition: as read before */
		ReleaseSysCache(procTup);
		fn = cache->def;
		errcb.callback = sb_function_error_context;
		errcb.arg = fn->proname;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		shape = cache->def_shape;
		rettype = cache->def_rettype;
		desc = cache->def_desc;
		goto call;
	}
	fn = sb_function_read(procTup);
	ReleaseSysCache(procTup);

	errcb.callback = sb_function_error_context;
	errcb.arg = fn->proname;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	cls = get_call_result_type(fcinfo, &rettype, &desc);
	sb_function_check_types(fn, rettype, retset);
	if (rettype == VOIDOID)
		shape = SB_SHAPE_VOID;
	else if (cls == TYPEFUNC_COMPOSITE)
		shape = retset ? SB_SHAPE_SETOF_COMPOSITE : SB_SHAPE_COMPOSITE;
	else if (cls == TYPEFUNC_SCALAR)
		shape = retset ? SB_SHAPE_SETOF_SCALAR : SB_SHAPE_SCALAR;
	else
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record"),
				 errhint("Declare the result columns: RETURNS TABLE(...), OUT parameters, or a column definition list.")));

	/* RETURNS TABLE (a int), a single OUT parameter: the column is "a" */
	result_name = get_func_result_name(fcinfo->flinfo->fn_oid);
	if (result_name == NULL)
		result_name = fn->pyname;
	if (retset && shape == SB_SHAPE_SETOF_SCALAR)
	{
		sb_materialize_scalar(fcinfo, result_name, rettype);
		desc = rsinfo->setDesc;
	}
	else if (retset)
	{
		/*
		 * Our own copy of the descriptor: for a column definition list,
		 * get_call_result_type() handed back the executor's, which it frees
		 * after the call (a rescan would read freed memory).
		 */
		InitMaterializedSRF(fcinfo, rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) &&
							desc == rsinfo->expectedDesc ? MAT_SRF_USE_EXPECTED_DESC : 0);
		desc = rsinfo->setDesc;
	}
	else
	{
		/* kept for the call site's next rows (sb_function_read's again) */
		MemoryContext keep = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		HeapTuple	again = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));

		if (!HeapTupleIsValid(again))
			elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
		if (shape == SB_SHAPE_SCALAR)
			desc = sb_scalar_desc(result_name, rettype);
		else if (shape == SB_SHAPE_COMPOSITE)
			desc = BlessTupleDesc(CreateTupleDescCopy(desc));
		cache->def = NULL;
		if (HeapTupleHeaderGetRawXmin(again->t_data) == fn_xmin &&
			ItemPointerEquals(&again->t_self, &fn_tid))
		{
			cache->def = sb_function_read(again);
			cache->def_xmin = fn_xmin;
			cache->def_tid = fn_tid;
			cache->def_shape = shape;
			cache->def_rettype = rettype;
			cache->def_desc = desc;
		}
		ReleaseSysCache(again);
		MemoryContextSwitchTo(keep);
	}

	/*
	 * Per-row calls: the statement's next call of this call site runs on
	 * the child its first call kept, if that still fits.
	 */
call:
	sb_stat_code(fn->body, fcinfo->flinfo->fn_oid);
	sb_limits_from_options(&limits, NULL);
	held = sb_fn_cache_take(cache, fn_xmin, &fn_tid, &limits);
	if (held != NULL)
	{
		sb_function_next_call(&req, held, &limits);
		ro = shape == SB_SHAPE_VOID ? NULL :
			sb_rows_declare(&req, desc, CurrentMemoryContext);
		sb_function_add_args(&req, fn, fcinfo);
		sb_request_add_frame(&req, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
		sb_call_run(&req, &limits, &out);
		/*
		 * taken back by the worker for a waiting call (this statement's
		 * own, whose eviction the backend had not heard of yet) as the call
		 * was posted: it sent nothing, and the call site starts afresh as it
		 * does when it hears of the eviction first (review 102 N1's race)
		 */
		if (out.held_evicted)
		{
			cache->held = NULL;
			goto fresh;
		}
		if (out.held_closed && !out.violation)
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
					 errmsg("sandbox process ended between two calls of the function"),
					 errdetail("It closed its channel or exited before it answered the call; it was stopped.")));
		sb_report_usage(&req, &out);
		sb_function_check_outcome(&out, &limits, retset);
	}
	else
	{
fresh:
		sb_function_request(&req, fn, shape, &limits, true);
		empty = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
		memo_key = sb_function_memo_key(fn);
		/* no table inputs: this only offers a body the session ran before as validated */
		(void) sb_request_validate(&req, memo_key, empty, &limits, &out);
		/* caches of input functions and domain checks: for this call only */
		ro = shape == SB_SHAPE_VOID ? NULL :
			sb_rows_declare(&req, desc, CurrentMemoryContext);
		sb_function_add_args(&req, fn, fcinfo);
		sb_request_finish(&req, empty);

		sb_call_run(&req, &limits, &out);
		sb_report_usage(&req, &out);
		sb_validated_note(&req, memo_key, &out);
		sb_function_check_outcome(&out, &limits, retset);
		sb_fn_cache_keep(cache, out.held, fn_xmin, &fn_tid, &limits, fcinfo->flinfo->fn_mcxt);
	}

	if (shape == SB_SHAPE_VOID)
	{
		if (out.result == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
					 errmsg("sandbox process ended without a result")));
		error_context_stack = errcb.previous;
		PG_RETURN_VOID();
	}
	if (retset)
	{
		(void) sb_rows_receive(ro, &out, &limits, fn->pyname, rsinfo->setResult, NULL, NULL);
		error_context_stack = errcb.previous;
		return (Datum) 0;
	}
	values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	nulls = palloc(sizeof(bool) * Max(desc->natts, 1));
	nrows = sb_rows_receive(ro, &out, &limits, fn->pyname, NULL, values, nulls);
	/* None: NULL, which a domain may not allow (review 47) */
	if (nrows == 0 && shape == SB_SHAPE_SCALAR && get_typtype(rettype) == TYPTYPE_DOMAIN)
		domain_check((Datum) 0, true, rettype, NULL, NULL);
	error_context_stack = errcb.previous;
	if (nrows == 0)
		PG_RETURN_NULL();
	if (shape == SB_SHAPE_SCALAR)
	{
		if (nulls[0])
			PG_RETURN_NULL();
		result = values[0];
	}
	else
		result = HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
	PG_RETURN_DATUM(result);
}

/* (counted as one call: sb_stat.c) */
Datum
pysandbox_call_handler(PG_FUNCTION_ARGS)
{
	return sb_stat_wrap(pysandbox_call_handler_call, fcinfo);
}

/* DO LANGUAGE pysandbox $$ ... $$: the block is the body of a function. */
static Datum
pysandbox_inline_handler_call(PG_FUNCTION_ARGS)
{
	InlineCodeBlock *block = (InlineCodeBlock *) DatumGetPointer(PG_GETARG_DATUM(0));
	SbFunction	fn;
	SbRequest	req;
	SbLimits	limits;
	SbOutcome	out;
	ErrorContextCallback errcb;
	Jsonb	   *empty = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));

	memset(&fn, 0, sizeof(fn));
	fn.proname = "inline code block";
	fn.pyname = "do";
	fn.body = block->source_text;

	errcb.callback = sb_function_error_context;
	errcb.arg = "DO block";
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	sb_function_request(&req, &fn, SB_SHAPE_VOID, &limits, false);
	sb_request_finish(&req, empty);
	sb_call_run(&req, &limits, &out);
	sb_report_usage(&req, &out);
	sb_check_outcome(&out, &limits);
	if (out.result == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process ended without a result")));
	error_context_stack = errcb.previous;
	PG_RETURN_VOID();
}

/* (counted as one call: sb_stat.c) */
Datum
pysandbox_inline_handler(PG_FUNCTION_ARGS)
{
	return sb_stat_wrap(pysandbox_inline_handler_call, fcinfo);
}

/*
 * The validator, at CREATE FUNCTION: the declaration always; the body, with
 * check_function_bodies, in a child that validates and compiles it and runs
 * nothing.
 */
Datum
pysandbox_validator(PG_FUNCTION_ARGS)
{
	Oid			funcoid = PG_GETARG_OID(0);
	HeapTuple	procTup;
	Form_pg_proc proc;
	SbFunction *fn;
	SbRequest	req;
	SbLimits	limits;
	SbOutcome	out;
	ErrorContextCallback errcb;
	Jsonb	   *empty;
	Oid			rettype;

	if (!CheckFunctionValidatorAccess(fcinfo->flinfo->fn_oid, funcoid))
		PG_RETURN_VOID();
	procTup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcoid));
	if (!HeapTupleIsValid(procTup))
		elog(ERROR, "cache lookup failed for function %u", funcoid);
	proc = (Form_pg_proc) GETSTRUCT(procTup);
	rettype = proc->prorettype;
	fn = sb_function_read(procTup);
	/* a window function gets no arguments through fcinfo: all would be NULL */
	if (proc->prokind == PROKIND_WINDOW)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pysandbox functions cannot be window functions"),
				 errhint("Compute over the rows in the function from an array or a table input instead.")));
	sb_function_check_types(fn, rettype, proc->proretset);
	ReleaseSysCache(procTup);
	if (!check_function_bodies)
		PG_RETURN_VOID();

	errcb.callback = sb_function_error_context;
	errcb.arg = fn->proname;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	empty = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	sb_function_request(&req, fn, SB_SHAPE_VOID, &limits, false);
	appendStringInfoString(&req.json, "\"validate_first\":true,");
	sb_request_finish(&req, empty);
	sb_call_run(&req, &limits, &out);
	/* the body passed: this session's calls of it need not validate it again */
	sb_validated_note(&req, sb_function_memo_key(fn), &out);
	sb_check_outcome(&out, &limits);
	error_context_stack = errcb.previous;
	PG_RETURN_VOID();
}
