/*
 * sb_statements.c
 *		Top-level statements, counted for the children LANGUAGE pysandbox
 *		functions keep for a statement's rows (sb_language.c), and DISCARD
 *		ALL, which ends the session's workspaces (sb_workspace.c).
 *
 * Hooks on the planner, the executor and ProcessUtility; each calls the
 * hook that was there before.
 */
#include "pysandbox.h"

#include "executor/executor.h"
#include "nodes/parsenodes.h"
#include "optimizer/planner.h"
#include "tcop/utility.h"

/*
 * Top-level statements, counted: planning, ExecutorStart or ProcessUtility
 * at depth 0 (no executor, planner or utility command running) begins one
 * (its planning and its execution may count twice: only a new count
 * matters).  A multi-statement
 * query string is several; a portal fetched in parts (cursors aside) is
 * one.  A held child serves one statement of this count.
 */
uint64		sb_statement_serial = 0;
static int	sb_statement_depth = 0;
static ExecutorStart_hook_type sb_prev_executor_start = NULL;
static ExecutorRun_hook_type sb_prev_executor_run = NULL;
static ExecutorFinish_hook_type sb_prev_executor_finish = NULL;
static ProcessUtility_hook_type sb_prev_process_utility = NULL;
static planner_hook_type sb_prev_planner = NULL;

static PlannedStmt *
sb_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	PlannedStmt *result;

	if (sb_statement_depth == 0)
		sb_statement_serial++;
	sb_statement_depth++;
	PG_TRY();
	{
		if (sb_prev_planner)
			result = sb_prev_planner(parse, query_string, cursorOptions, boundParams);
		else
			result = standard_planner(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		sb_statement_depth--;
	}
	PG_END_TRY();
	return result;
}

static void
sb_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (sb_statement_depth == 0)
		sb_statement_serial++;
	if (sb_prev_executor_start)
		sb_prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
sb_executor_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count,
				bool execute_once)
{
	sb_statement_depth++;
	PG_TRY();
	{
		if (sb_prev_executor_run)
			sb_prev_executor_run(queryDesc, direction, count, execute_once);
		else
			standard_ExecutorRun(queryDesc, direction, count, execute_once);
	}
	PG_FINALLY();
	{
		sb_statement_depth--;
	}
	PG_END_TRY();
}

static void
sb_executor_finish(QueryDesc *queryDesc)
{
	sb_statement_depth++;
	PG_TRY();
	{
		if (sb_prev_executor_finish)
			sb_prev_executor_finish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_FINALLY();
	{
		sb_statement_depth--;
	}
	PG_END_TRY();
}

static void
sb_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				   ProcessUtilityContext context, ParamListInfo params,
				   QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (sb_statement_depth == 0)
		sb_statement_serial++;
	sb_statement_depth++;
	PG_TRY();
	{
		if (sb_prev_process_utility)
			sb_prev_process_utility(pstmt, queryString, readOnlyTree, context, params,
									queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
									queryEnv, dest, qc);

		/*
		 * DISCARD ALL (a pooler's reset between clients) ends the
		 * workspaces, once it has passed PostgreSQL's own checks (top
		 * level, no transaction block, no security-restricted operation).
		 */
		if (IsA(pstmt->utilityStmt, DiscardStmt) &&
			((DiscardStmt *) pstmt->utilityStmt)->target == DISCARD_ALL)
			sb_workspace_discard_all();
	}
	PG_FINALLY();
	{
		sb_statement_depth--;
	}
	PG_END_TRY();
}

/* Count top-level statements from now on (from _PG_init). */
void
sb_statements_init(void)
{
	sb_prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = sb_executor_start;
	sb_prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = sb_executor_run;
	sb_prev_executor_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = sb_executor_finish;
	sb_prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = sb_process_utility;
	sb_prev_planner = planner_hook;
	planner_hook = sb_planner;
}
