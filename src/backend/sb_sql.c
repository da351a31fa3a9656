/*
 * sb_sql.c
 *		sql() in the child: its query, run for it as a table input is, and
 *		more strictly.
 *
 * The child sends SB_DATA_SQL (hostile JSON: a query and scalar
 * parameters); the backend runs the query as the caller, read-only, in a
 * subtransaction rolled back afterwards, as a security-restricted
 * operation, within the call's time, and refuses any volatile function it
 * could run (the walker over the rewritten query, and fmgr_hook and the
 * executor's object access hook while it is parsed, planned and run).  The answer is the rows as a table input's
 * frames (a large answer's row groups sent as the query runs: sb_stream.c),
 * or SB_DATA_SQL_ERROR, which the child raises as SQLError, then END.
 * Table inputs themselves are sb_inputs.c's.
 */
#include "pysandbox.h"

#include <signal.h>

#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "libpq/pqsignal.h"
#include "miscadmin.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timeout.h"
#include "utils/typcache.h"

/*
 * Stable built-ins that run queries of their own over whole tables, views
 * included, which neither the walker nor the hooks below see before they
 * run, and build their result in the backend's memory without looking at
 * interrupts (review 110: a view's pg_try_advisory_lock ran, 1.1 GB and
 * 8 s past the call's limit from a 200k-row table).
 */
static bool
sb_runs_queries(Oid func_id)
{
	switch (func_id)
	{
		case F_TABLE_TO_XML:
		case F_TABLE_TO_XML_AND_XMLSCHEMA:
		case F_SCHEMA_TO_XML:
		case F_SCHEMA_TO_XML_AND_XMLSCHEMA:
		case F_DATABASE_TO_XML:
		case F_DATABASE_TO_XML_AND_XMLSCHEMA:
			return true;
		default:
			return false;
	}
}

/* the first volatile function a query tree calls, into *(Oid *) context */
static bool
sb_volatile_checker(Oid func_id, void *context)
{
	/*
	 * Two stable functions give the caller's top transaction an id, which
	 * the query's subtransaction does not take back (review 103 F4)
	 */
	if (func_volatile(func_id) != PROVOLATILE_VOLATILE &&
		func_id != F_TXID_CURRENT && func_id != F_PG_CURRENT_XACT_ID &&
		!sb_runs_queries(func_id))
		return false;
	*(Oid *) context = func_id;
	return true;
}

static bool sb_volatile_walker(Node *node, void *context);

/* sql()'s query calls volatile function fn: refused. */
void
sb_refuse_volatile(Oid fn)
{
	if (sb_runs_queries(fn))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of sql() may not call function %s",
						format_procedure(fn)),
				 errdetail("It runs queries of its own, which sql() cannot check, and builds the whole result in the server's memory."),
				 errhint("Select the rows with sql() and convert them in Python.")));
	if (func_volatile(fn) != PROVOLATILE_VOLATILE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of sql() may not call function %s",
						format_procedure(fn)),
				 errdetail("sql() runs queries that only read: it gives the session's transaction an id."),
				 errhint("Compute it in Python instead.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("the query of sql() may not call volatile function %s",
					format_procedure(fn)),
			 errdetail("sql() runs queries that only read: a volatile function (random() and nextval() too) can act beyond them."),
			 errhint("Compute it in Python instead.")));
}

/*
 * An aggregate's own pg_proc entry says nothing of what it runs (CREATE
 * AGGREGATE makes it immutable): its support functions do.  False for a
 * function that is no aggregate (a window function).
 */
static bool
sb_volatile_aggregate(Oid aggfnoid, void *context)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_aggregate agg;
	Oid			fns[8];
	int			i;

	if (!HeapTupleIsValid(tup))
		return false;
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	fns[0] = agg->aggtransfn;
	fns[1] = agg->aggfinalfn;
	fns[2] = agg->aggcombinefn;
	fns[3] = agg->aggserialfn;
	fns[4] = agg->aggdeserialfn;
	fns[5] = agg->aggmtransfn;
	fns[6] = agg->aggminvtransfn;
	fns[7] = agg->aggmfinalfn;
	ReleaseSysCache(tup);
	for (i = 0; i < lengthof(fns); i++)
		if (OidIsValid(fns[i]) && sb_volatile_checker(fns[i], context))
			return true;
	return false;
}

/*
 * A call that leaves out arguments runs their defaults, which the planner
 * adds to the query: they are no part of the tree walked here (review 103
 * F2: a function whose default was pg_advisory_lock(n) took the lock).
 * All its defaults are walked, whichever are used.
 */
static bool
sb_volatile_defaults(FuncExpr *call, void *context)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(call->funcid));
	Node	   *defaults = NULL;

	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tup))->pronargdefaults > 0 &&
		list_length(call->args) < ((Form_pg_proc) GETSTRUCT(tup))->pronargs)
	{
		bool		isnull;
		Datum		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_proargdefaults, &isnull);

		if (!isnull)
			defaults = stringToNode(TextDatumGetCString(d));
	}
	ReleaseSysCache(tup);
	return defaults != NULL && sb_volatile_walker(defaults, context);
}

/*
 * A value made a domain's runs the domain's CHECK constraints (its base
 * domains' too), which are no part of the query tree.
 */
static bool
sb_volatile_domain(Oid typid, void *context)
{
	/* palloc'd: the reference is released by a callback of the context */
	DomainConstraintRef *ref = palloc(sizeof(DomainConstraintRef));
	ListCell   *lc;

	InitDomainConstraintRef(typid, ref, CurrentMemoryContext, false);
	foreach(lc, ref->constraints)
	{
		DomainConstraintState *c = (DomainConstraintState *) lfirst(lc);

		if (c->constrainttype == DOM_CONSTRAINT_CHECK &&
			sb_volatile_walker((Node *) c->check_expr, context))
			return true;
	}
	return false;
}

static bool
sb_volatile_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (check_functions_in_node(node, sb_volatile_checker, context))
		return true;
	if (IsA(node, Aggref) && sb_volatile_aggregate(((Aggref *) node)->aggfnoid, context))
		return true;
	if (IsA(node, WindowFunc) && sb_volatile_aggregate(((WindowFunc *) node)->winfnoid, context))
		return true;
	if (IsA(node, FuncExpr) && sb_volatile_defaults((FuncExpr *) node, context))
		return true;
	if (IsA(node, CoerceToDomain) &&
		sb_volatile_domain(((CoerceToDomain *) node)->resulttype, context))
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, sb_volatile_walker, context, 0);
	return expression_tree_walker(node, sb_volatile_walker, context);
}

/*
 * The first volatile function a value made of type typid runs: a domain's
 * CHECK constraints (its base domains' too), or InvalidOid.  A parameter
 * whose type the query makes a domain is converted before it runs, where
 * the plan's tree shows no domain (review 105: CHECK
 * (pg_try_advisory_lock(VALUE)) took the lock).
 */
Oid
sb_type_volatile_function(Oid typid)
{
	Oid			found = InvalidOid;

	if (get_typtype(typid) == TYPTYPE_DOMAIN)
		(void) sb_volatile_domain(typid, &found);
	return found;
}

/*
 * The first volatile function the prepared plan's (rewritten, so views'
 * bodies included) queries call, or InvalidOid.  A read-only transaction
 * does not stop them all: lo_export writes a server file, set_config and
 * advisory locks act on the session, query_to_xml runs SQL text, and
 * pg_terminate_backend ends sessions.
 */
Oid
sb_plan_volatile_function(SPIPlanPtr plan)
{
	Oid			found = InvalidOid;
	ListCell   *lc;
	ListCell   *q;

	foreach(lc, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);

		foreach(q, ps->query_list)
			if (sb_volatile_walker((Node *) lfirst(q), &found))
				return found;
	}
	return found;
}

/* true while a child's sql() query runs: pysandbox may not be re-entered */
bool		sb_sql_active = false;

/*
 * The query tree does not show every function a query runs: a domain's
 * CHECK runs when a value becomes the domain, also where the tree has no
 * CoerceToDomain (a parameter typed $1::dom, a literal '{5}'::dom[]
 * converted as the query is parsed, text made dom[] by array_in,
 * jsonb_populate_record into a row with a domain column).  While a sql()
 * query is parsed, planned and run, every volatile function that is no
 * built-in goes through fmgr_hook, which refuses it as the walker does.
 * (A built-in named directly in such a CHECK is called without fmgr's hooks,
 * and a function declared stable or immutable is taken at its word.)
 */
static needs_fmgr_hook_type sb_prev_needs_fmgr_hook = NULL;
static fmgr_hook_type sb_prev_fmgr_hook = NULL;

/*
 * Volatile, and callable from SQL.  A C function with an argument of type
 * internal is not: no SQL expression makes such a value, and only a
 * superuser installs C code.  PostgreSQL calls it itself,
 * as the support of something the query uses, and such functions are often
 * volatile by default rather than by nature: a text search dictionary's
 * init (dsnowball_init, to_tsvector('english', ...) in a fresh session),
 * an index access method's handler (bloom's, pgvector's: a table with such
 * an index in a fresh session), a planner support function.
 */
static bool
sb_sql_callable_volatile(Oid fn_oid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	Form_pg_proc proc;
	bool		result;
	int			i;

	if (!HeapTupleIsValid(tup))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	result = proc->provolatile == PROVOLATILE_VOLATILE;
	/* C's only: a procedural language of a third party might take internal */
	if (proc->prolang == ClanguageId || proc->prolang == INTERNALlanguageId)
		for (i = 0; result && i < proc->pronargs; i++)
			if (proc->proargtypes.values[i] == INTERNALOID)
				result = false;
	ReleaseSysCache(tup);
	return result;
}

static bool
sb_needs_fmgr_hook(Oid fn_oid)
{
	if (sb_sql_active && sb_sql_callable_volatile(fn_oid))
		return true;
	return sb_prev_needs_fmgr_hook != NULL && sb_prev_needs_fmgr_hook(fn_oid);
}

static void
sb_fmgr_hook(FmgrHookEventType event, FmgrInfo *flinfo, Datum *arg)
{
	if (event == FHET_START && sb_sql_active &&
		sb_sql_callable_volatile(flinfo->fn_oid))
		sb_refuse_volatile(flinfo->fn_oid);
	if (sb_prev_fmgr_hook != NULL)
		sb_prev_fmgr_hook(event, flinfo, arg);
}

/*
 * The executor announces every function it sets up to call, built-ins
 * included (ExecInitFunc; aggregates and window functions): while a sql()
 * query is parsed, planned and run, one the walker would refuse is refused
 * here too.  This reaches what neither the walker nor fmgr_hook sees: a
 * built-in in a domain's CHECK, compiled when a literal or a parameter of
 * an array or composite of the domain is converted, and the queries
 * built-ins run of their own (review 110 F1, F3).
 */
static object_access_hook_type sb_prev_object_access_hook = NULL;

static void
sb_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId,
				 void *arg)
{
	Oid			found;

	if (sb_prev_object_access_hook != NULL)
		sb_prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access == OAT_FUNCTION_EXECUTE && sb_sql_active &&
		sb_volatile_checker(objectId, &found))
		sb_refuse_volatile(objectId);
}

/* Install the hooks above (from _PG_init). */
void
sb_sql_hooks_init(void)
{
	sb_prev_needs_fmgr_hook = needs_fmgr_hook;
	needs_fmgr_hook = sb_needs_fmgr_hook;
	sb_prev_fmgr_hook = fmgr_hook;
	fmgr_hook = sb_fmgr_hook;
	sb_prev_object_access_hook = object_access_hook;
	object_access_hook = sb_object_access;
}

/*
 * The call's time is up while its sql() query runs: cancel the query.  The
 * cancel the timer raises is the call's, turned into an SQLError for the
 * child; any other cancel (the client's, statement_timeout) must reach the
 * statement.  PostgreSQL has one QueryCancelPending for them all, so a
 * cancel that was pending when the timer fired, one whose SIGINT came
 * while the query ran, or a statement_timeout that fired then, is never
 * taken for the timer's (sb_sql_cancel_is_ours).
 */
static TimeoutId sb_sql_timeout = MAX_TIMEOUTS;
static volatile sig_atomic_t sb_sql_timed_out = false;
static volatile sig_atomic_t sb_sql_foreign_cancel = false;
static pqsigfunc sb_sql_prev_sigint = NULL;

static void
sb_sql_timeout_handler(void)
{
	if (QueryCancelPending)
		sb_sql_foreign_cancel = true;	/* someone else's, pending already */
	else
		sb_sql_timed_out = true;
	QueryCancelPending = true;
	InterruptPending = true;
	SetLatch(MyLatch);
}

/* SIGINT while a query of sql() runs: the client's cancel, never the timer's */
static void
sb_sql_sigint(SIGNAL_ARGS)
{
	sb_sql_foreign_cancel = true;
	if (sb_sql_prev_sigint != NULL && sb_sql_prev_sigint != SIG_IGN &&
		sb_sql_prev_sigint != SIG_DFL)
		sb_sql_prev_sigint(postgres_signal_arg);
}

/*
 * Was the cancel that ended (or is pending after) the query the timer's
 * alone?  stmt_armed: statement_timeout's timer was running before it.
 */
static bool
sb_sql_cancel_is_ours(bool stmt_armed)
{
	if (!sb_sql_timed_out || sb_sql_foreign_cancel)
		return false;
	/* statement_timeout fired meanwhile (its timer is spent) */
	if (stmt_armed && !get_timeout_active(STATEMENT_TIMEOUT))
		return false;
	return true;
}

/* A SQL_ERROR frame: what the child raises as SQLError. */
static void
sb_sql_error_frame(SbRequest *req, int sqlerrcode, const char *message,
				   const char *detail, const char *hint)
{
	StringInfoData buf;
	char	   *u;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"sqlstate\":\"%s\",\"message\":", unpack_sql_state(sqlerrcode));
	escape_json(&buf, message ? message : "");
	appendStringInfoString(&buf, ",\"detail\":");
	escape_json(&buf, detail ? detail : "");
	appendStringInfoString(&buf, ",\"hint\":");
	escape_json(&buf, hint ? hint : "");
	appendStringInfoChar(&buf, '}');
	u = pg_server_to_any(buf.data, buf.len, PG_UTF8);
	sb_request_add_frame(req, SB_DATA_SQL_ERROR, u, strlen(u), NULL, 0, NULL, 0);
}

/*
 * Parse a child's sql() request and run its query (in sb_sql_answer's
 * subtransaction); top_xid is the caller's transaction id before it.
 */
static void
sb_sql_run(SbRequest *req, char *payload, Size len, TransactionId top_xid)
{
	Jsonb	   *jb = NULL;
	JsonbValue *query;
	JsonbValue *params;
	char	   *text;
	SbJsonCheck problem;

	if (superuser() ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES) ||
		has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES) ||
		has_privs_of_role(GetUserId(), ROLE_PG_EXECUTE_SERVER_PROGRAM))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("sql() is not available to superusers or to roles that can read or write server files or run programs"),
				 req->function ?
				 /* a LANGUAGE pysandbox function's words (review 107 F8) */
				 errhint("Run untrusted code as an ordinary role (a function runs as its caller, or as its owner if it is SECURITY DEFINER), or pass the data as the function's arguments.") :
				 errhint("Run untrusted code as an ordinary role, or pass the data as $query and $table inputs.")));
	problem = sb_json_check(payload, len);
	if (problem == SB_JSON_NUL || problem == SB_JSON_SURROGATE)
		ereport(ERROR,
				(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
				 problem == SB_JSON_NUL ?
				 errmsg("the query or a parameter of sql() holds a NUL character (\\u0000), which PostgreSQL text cannot hold") :
				 errmsg("the query or a parameter of sql() holds half a surrogate pair, which PostgreSQL text cannot hold"),
				 problem == SB_JSON_NUL ?
				 errhint("Remove it first: s.replace(\"\\x00\", \"\").") :
				 errhint("Encode it properly first: s.encode(\"utf-8\", \"replace\").decode(\"utf-8\").")));
	if (problem == SB_JSON_VALID)
	{
		text = pg_any_to_server(payload, (int) len, PG_UTF8);
		jb = sb_jsonb_build(text, text == payload ? len : strlen(text), sb_jsonb_limit(len));
		if (jb == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("the query and parameters of sql() are too large to read"),
					 errdetail("Its request of %zu bytes would take more than %zu MB of the server's memory, or holds numbers too long to read.",
							   (size_t) len, (size_t) (sb_jsonb_limit(len) >> 20)),
					 errhint("Pass fewer or smaller parameters; give large data to the call as a $query or $table input.")));
	}
	query = jb && JB_ROOT_IS_OBJECT(jb) ? sb_get_key(&jb->root, "query") : NULL;
	params = jb && JB_ROOT_IS_OBJECT(jb) ? sb_get_key(&jb->root, "params") : NULL;
	if (query == NULL || query->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sql() needs a query: a string")));
	sb_table_input(req, "sql()", pnstrdup(query->val.string.val, query->val.string.len), params);
	/* a read-only query that took a transaction id wrote, or asked for one */
	if (TransactionIdIsValid(GetCurrentTransactionIdIfAny()) ||
		GetTopTransactionIdIfAny() != top_xid)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the query of sql() took a transaction id: it wrote, or asked for one"),
				 errdetail("What it wrote was undone.")));
}

/*
 * Answer a child's sql(query, *params) (an SB_DATA_SQL payload: hostile
 * JSON, {"query": text, "params": [scalars]}): run the query as a $query
 * table input is run (one plain SELECT, read-only, as the current user in
 * the statement's snapshot, within the call's input budget), and more
 * strictly, since untrusted code wrote it: not for superusers or roles that
 * reach server files or programs, with no volatile function, as a
 * security-restricted operation (no SET ROLE), and within the time the
 * call has left (ms_left).  Returns the frames of the answer: the rows as a
 * table, or SQL_ERROR with the error's SQLSTATE and message, which the
 * child raises as an exception (answered_errcode: that SQLSTATE, else 0;
 * an uncaught SQLError may end the call with it).  The query runs in a subtransaction that is
 * rolled back either way, so a failing one leaves the caller's transaction
 * as it was and nothing a query does outlives it (sb_table_input_undone);
 * cancel and termination are raised as ever.  A query that would run
 * pysandbox code is refused (sb_call_run): the child waiting for its answer
 * holds the session's one sandbox.
 */
List *
sb_sql_answer(SbRequest *req, char *payload, Size len, long ms_left,
			  int *answered_errcode)
{
	List	   *saved = req->chunks;
	List	   *answer;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Oid			save_userid;
	int			save_sec_context;
	ErrorData  *edata = NULL;
	TransactionId top_xid = GetTopTransactionIdIfAny();
	bool		stmt_armed;
	uint64		input_rows = req->input_rows;
	uint64		input_bytes = req->input_bytes;

	req->chunks = NIL;
	req->sql_torn = false;
	req->sql_sent = false;
	*answered_errcode = 0;
	if (IsInParallelMode())
	{
		/* options.parallel: a worker cannot start the query's subtransaction */
		*answered_errcode = ERRCODE_FEATURE_NOT_SUPPORTED;
		if (sb_in_group_worker)
			sb_sql_error_frame(req, ERRCODE_FEATURE_NOT_SUPPORTED,
							   "sql() is not available in groups run in parallel",
							   "With options.parallel, each group runs in a parallel worker of the server, which cannot run queries for it.",
							   "Pass what the function needs as an input, or leave out options.parallel.");
		else
			/* a PARALLEL SAFE or RESTRICTED function in a parallel plan (review 107) */
			sb_sql_error_frame(req, ERRCODE_FEATURE_NOT_SUPPORTED,
							   "sql() cannot run while the statement runs in parallel mode",
							   "The function was called in a parallel plan (it is marked PARALLEL SAFE or PARALLEL RESTRICTED), where no query can start a subtransaction.",
							   "A function that calls sql() must be PARALLEL UNSAFE, the default: ALTER FUNCTION name(argument types) PARALLEL UNSAFE.");
		sb_request_add_frame(req, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
		answer = req->chunks;
		req->chunks = saved;
		return answer;
	}
	if (sb_sql_timeout == MAX_TIMEOUTS)
		sb_sql_timeout = RegisterTimeout(USER_TIMEOUT, sb_sql_timeout_handler);
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	stmt_armed = get_timeout_active(STATEMENT_TIMEOUT);
	/* a cancel pending already is the statement's: the loop raises it */
	sb_sql_foreign_cancel = QueryCancelPending;
	sb_sql_timed_out = false;
	{
		pqsigfunc	prev = pqsignal(SIGINT, sb_sql_sigint);

		/* never our own handler as the one to call (an earlier error left it) */
		if (prev != sb_sql_sigint)
			sb_sql_prev_sigint = prev;
	}

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		SetUserIdAndSecContext(save_userid, save_sec_context |
							   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
		sb_sql_active = true;
		enable_timeout_after(sb_sql_timeout, (int) Max(ms_left, 1));
		sb_sql_run(req, payload, len, top_xid);
		disable_timeout(sb_sql_timeout, false);
		/* fired as the query ended: its cancel (its alone) is not for the statement */
		if (sb_sql_cancel_is_ours(stmt_armed))
			QueryCancelPending = false;
		/* after the check: a SIGINT before it is seen as foreign */
		pqsignal(SIGINT, sb_sql_prev_sigint);
		sb_sql_active = false;
		SetUserIdAndSecContext(save_userid, save_sec_context);
	}
	PG_CATCH();
	{
		disable_timeout(sb_sql_timeout, false);
		sb_sql_active = false;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		SetUserIdAndSecContext(save_userid, save_sec_context);
		if ((edata->sqlerrcode == ERRCODE_QUERY_CANCELED && !sb_sql_cancel_is_ours(stmt_armed)) ||
			edata->elevel > ERROR)
		{
			pqsignal(SIGINT, sb_sql_prev_sigint);
			ReThrowError(edata);
		}
		/* the timer's cancel, still pending after another error, goes with it */
		if (sb_sql_cancel_is_ours(stmt_armed))
			QueryCancelPending = false;
		pqsignal(SIGINT, sb_sql_prev_sigint);
	}
	PG_END_TRY();
	if (edata == NULL)
	{
		/* its rows are copied: undo whatever else it did (sb_table_input_undone) */
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	/*
	 * The caller's transaction keeps an id its query took, whatever became
	 * of the query: the code could catch the SQLError and go on with it
	 * assigned (review 105 F5), so the call ends here instead.
	 */
	if (GetTopTransactionIdIfAny() != top_xid)
	{
		req->chunks = saved;
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the query of sql() took a transaction id: it wrote, or asked for one"),
				 errdetail("What it wrote was undone, and the call ends: the transaction id would outlive the query."),
				 errhint("Keep functions that write or assign a transaction id (txid_current()) out of the queries of sql().")));
	}
	if (edata != NULL && !req->sql_sent)
	{
		/*
		 * a failed query's rows do not count against the call's limits
		 * unless the child has some: a streamed answer's row groups sent
		 * count, or a child could take any number of rows through queries
		 * made to fail after their first row groups (review 120 F1)
		 */
		req->input_rows = input_rows;
		req->input_bytes = input_bytes;
	}
	if (edata != NULL && req->sql_torn)
	{
		/*
		 * A row group is out in part (the call's time ran out while it was
		 * sent, or the child stopped reading): the child cannot read an
		 * error after it.  It waits for the rest until the worker ends it
		 * at its wall-clock limit, which this is (or it has ended).
		 */
		req->chunks = saved;
		return NIL;
	}
	if (edata != NULL)
	{
		/*
		 * the partial answer, if any, goes: only the error is sent (after a
		 * streamed answer's row groups, in place of the next)
		 */
		req->chunks = NIL;
		*answered_errcode = edata->sqlerrcode;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			sb_sql_error_frame(req, ERRCODE_QUERY_CANCELED,
							   "the query of sql() ran out of the call's wall-clock time",
							   NULL, "Make the query faster, or filter and aggregate in it.");
		else
			sb_sql_error_frame(req, edata->sqlerrcode, edata->message, edata->detail,
							   edata->hint);
	}
	/* every answer ends so: a child that failed to read one skips to here */
	sb_request_add_frame(req, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
	answer = req->chunks;
	req->chunks = saved;
	return answer;
}
