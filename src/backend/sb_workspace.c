/*
 * sb_workspace.c
 *		Workspaces: one contained child kept for a session and a role across
 *		calls, statements and transactions (sandbox_workspace_open, _close,
 *		_list; a call's options.workspace).
 *
 * A workspace is a handle ("ws_" and 32 random hex digits) in this
 * backend's memory, the role that opened it, and the limits of its calls.
 * Its first call forks a child as any call does (with SB_SPAWN_WORKSPACE:
 * its RLIMIT_CPU allows SB_WORKSPACE_CPU_CALLS calls' CPU limits in all);
 * with the result the child is held (sb_held.c), as a LANGUAGE pysandbox
 * function's is for the rows of a statement, but the end of a statement or
 * a transaction does not drop it.  Each later call sends SB_DATA_CALL and a
 * whole request to that child; the worker times every call by the held
 * children's clocks (whole wall-clock and CPU limits per call), the time
 * between calls by pysandbox.workspace_idle_timeout and
 * SB_WORKSPACE_IDLE_CPU_MS; the memory limit is the child's, for all its
 * calls.  In the child only the dict passed as the parameter ws is meant
 * to last (sb_runtime._serve_workspace).
 *
 * Nothing of a workspace is reachable from elsewhere: another session has
 * other memory (the handle names nothing there), and another role (SET
 * ROLE, SECURITY DEFINER) is refused by the owner check of every call,
 * close and list.  A call names its workspace by slot and id (unique in the
 * session): the table inputs of a call run SQL as the caller, which may
 * close the workspace (and open another in its slot) before the request
 * goes out, so the request and the call's end look it up again.  A call
 * that ends its child (a limit, a crash, a cancel, an error of the
 * transaction while it ran) ends the workspace, and the error says so.
 * Workspaces are session state: a rolled-back transaction does not close
 * one, DISCARD ALL closes them all (a pooler's reset between clients), and
 * none may be opened, closed or called inside a query of sql() or a
 * security-restricted operation (REFRESH MATERIALIZED VIEW, ANALYZE, an
 * index expression).
 */
#include "pysandbox.h"

#include "common/hashfn.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(sandbox_workspace_open);
PG_FUNCTION_INFO_V1(sandbox_workspace_close);
PG_FUNCTION_INFO_V1(sandbox_workspace_list);

#define SB_WS_HANDLE_LEN	(3 + 32)

typedef struct SbWorkspace
{
	bool		in_use;
	uint64		id;				/* unique in this session */
	char		handle[SB_WS_HANDLE_LEN + 1];
	Oid			owner;			/* the role that opened it */
	TimestampTz opened;
	TimestampTz last_used;
	uint64		calls;
	int			timeout_ms;		/* each call's limits */
	int			cpu_ms;
	int			memory_mb;		/* the child's, for all its calls */
	int			allowed[3];		/* the settings when it was opened */
	/* the layers its child was contained with (its first call's settings) */
	bool		python_layer;
	int			filesystem_layer;
	bool		allow_weak;
	uint64		allowed_hash;	/* pysandbox.allowed_modules then (a hash) */
	SbSandbox  *child;			/* its held child, or NULL before the first
								 * call */
	uint64		generation;		/* ... and which holding of that slot */
	uint64		child_started;	/* ... and its start time in /proc, read
								 * when it answered (0: unknown) */
	uint64		worker_epoch;	/* sb_worker_epoch when it answered */
} SbWorkspace;

static uint64 sb_proc_start_time(int32 pid);
static char *sb_workspace_gone(SbWorkspace *ws);
static int64 sb_workspace_memory_kb(SbWorkspace *ws);

/* in static memory, as the held children: nothing here is freed on abort */
static SbWorkspace sb_workspaces[SB_MAX_WORKSPACES];
static uint64 sb_workspace_ids = 0;

/*
 * The session's last workspaces that ended: the next use of such a handle
 * says it ended and why (55000), not that it never existed (an agent that
 * reran a step after a timeout, or after closing it, was told 42704).
 */
#define SB_ENDED_KEPT 16
#define SB_ENDED_WHY_MAX 600

typedef struct SbEndedWorkspace
{
	char		handle[SB_WS_HANDLE_LEN + 1];
	Oid			owner;
	char		why[SB_ENDED_WHY_MAX];
} SbEndedWorkspace;

static SbEndedWorkspace sb_ended[SB_ENDED_KEPT];
static int	sb_ended_next = 0;

/* Remember why a workspace ended (why: a sentence; clipped, whole characters). */
static void
sb_workspace_remember_end(const char *handle, Oid owner, const char *why)
{
	SbEndedWorkspace *e = NULL;
	int			i;

	for (i = 0; i < SB_ENDED_KEPT; i++)
		if (sb_ended[i].handle[0] != '\0' && strcmp(sb_ended[i].handle, handle) == 0)
			e = &sb_ended[i];
	if (e == NULL)
		e = &sb_ended[sb_ended_next++ % SB_ENDED_KEPT];
	strlcpy(e->handle, handle, sizeof(e->handle));
	e->owner = owner;
	i = pg_mbcliplen(why, strlen(why), sizeof(e->why) - 1);
	memcpy(e->why, why, i);
	e->why[i] = '\0';
}

/* Why the workspace of that handle ended, if it ended in this session. */
static const SbEndedWorkspace *
sb_workspace_find_ended(const char *handle)
{
	int			i;

	for (i = 0; i < SB_ENDED_KEPT; i++)
		if (sb_ended[i].handle[0] != '\0' && strcmp(sb_ended[i].handle, handle) == 0)
			return &sb_ended[i];
	return NULL;
}

/*
 * The call that ended the workspace of handle failed with message: its
 * next use says so (sb_result.c, as it makes the call's error).
 */
void
sb_workspace_ended_by(const char *handle, const char *message)
{
	const SbEndedWorkspace *e = sb_workspace_find_ended(handle);

	if (e != NULL)
		sb_workspace_remember_end(handle, e->owner,
								  psprintf("Its process ended with a call in it that failed: %s",
										   message));
}

/* Refuse workspaces where session state must not change. */
static void
sb_workspace_allowed(const char *what)
{
	if (sb_sql_active)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot be used in a query run by sql()", what),
				 errhint("Open, close and use workspaces in the statements of the session itself.")));
	if (sb_describing)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot be used in the query of an input of sandbox_describe", what),
				 errhint("Open, close and use workspaces in the statements of the session itself.")));
	if (sb_stream_fetching)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot be used in the query of a streamed table input", what),
				 errhint("Open, close and use workspaces in the statements of the session itself.")));
	if (InSecurityRestrictedOperation())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s cannot be used within a security-restricted operation", what)));
}

static const char *
sb_ws_hint_list(void)
{
	return "sandbox_workspace_list() shows this session's workspaces; sandbox_workspace_open() opens one.";
}

/* The workspace of that handle in this session, or NULL. */
static SbWorkspace *
sb_workspace_find(const char *handle)
{
	int			i;

	for (i = 0; i < SB_MAX_WORKSPACES; i++)
		if (sb_workspaces[i].in_use && strcmp(sb_workspaces[i].handle, handle) == 0)
			return &sb_workspaces[i];
	return NULL;
}

/* The workspace of that handle, which the current role may use; or an error. */
static SbWorkspace *
sb_workspace_get(const char *handle)
{
	SbWorkspace *ws = sb_workspace_find(handle);
	const SbEndedWorkspace *ended = ws == NULL ? sb_workspace_find_ended(handle) : NULL;

	if (ended != NULL && ended->owner != GetUserId())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("workspace \"%s\" belongs to another role", handle),
				 errdetail("Only the role that opened a workspace may use it (not after SET ROLE, nor inside a SECURITY DEFINER function of another owner)."),
				 errhint("Open a workspace as this role with sandbox_workspace_open().")));
	if (ended != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("workspace \"%s\" has ended", handle),
				 errdetail("%s", ended->why),
				 errhint("Open a new workspace with sandbox_workspace_open(); what the old one kept in ws is gone.")));
	if (ws == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("workspace \"%s\" does not exist", handle),
				 errdetail("A workspace belongs to the session that opened it, and ends with it, when it is closed, or when it waits longer than pysandbox.workspace_idle_timeout."),
				 errhint("%s", sb_ws_hint_list())));
	if (ws->owner != GetUserId())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("workspace \"%s\" belongs to another role", handle),
				 errdetail("Only the role that opened a workspace may use it (not after SET ROLE, nor inside a SECURITY DEFINER function of another owner)."),
				 errhint("Open a workspace as this role with sandbox_workspace_open().")));
	return ws;
}

/* Does the workspace still hold its child (the same holding)? */
static bool
sb_workspace_has_child(const SbWorkspace *ws)
{
	return ws->child != NULL && ws->child->in_use && ws->child->workspace &&
		ws->child->generation == ws->generation;
}

/* Forget a workspace; its child, if any, is dropped (the worker kills it). */
static void
sb_workspace_free(SbWorkspace *ws)
{
	if (sb_workspace_has_child(ws))
		sb_sandbox_drop(ws->child);
	memset(ws, 0, sizeof(*ws));
}

/* Has the workspace lost its child (it ended, or ended between calls)? */
static bool
sb_workspace_dead(const SbWorkspace *ws)
{
	return ws->child != NULL && (!sb_workspace_has_child(ws) || ws->child->exited);
}

/* The workspace a request names, if it is still that one and the caller's. */
static SbWorkspace *
sb_workspace_live(const SbRequest *req)
{
	SbWorkspace *ws = req->workspace;

	if (!ws->in_use || ws->id != req->workspace_id || ws->owner != GetUserId())
		return NULL;
	return ws;
}

/* DISCARD ALL: the session's workspaces end. */
void
sb_workspace_discard_all(void)
{
	int			i;

	for (i = 0; i < SB_MAX_WORKSPACES; i++)
		if (sb_workspaces[i].in_use)
			sb_workspace_free(&sb_workspaces[i]);
	/* the next client of a pooler learns nothing of the last one's */
	memset(sb_ended, 0, sizeof(sb_ended));
}

/*
 * Why a workspace's child ended, from the worker's report on it (for the
 * error of the call that found it gone).
 */
char *
sb_workspace_why(const SbExitReport *ex)
{
	int			st = ex->wait_status;

	if (ex->cause == SB_EXIT_IDLE_TIMEOUT)
		return psprintf("It waited longer than pysandbox.workspace_idle_timeout (%d ms) for a call.",
						sb_workspace_idle_timeout_ms);
	if (ex->cause == SB_EXIT_IDLE_CPU)
		return psprintf("Its process used more than %d ms of CPU time between two calls.",
						SB_WORKSPACE_IDLE_CPU_MS);
	if (ex->cause == SB_EXIT_MEMORY)
		return pstrdup("Its process's page tables outgrew what its memory limit allows.");
	if (ex->cause == SB_EXIT_RESIDENT)
		return pstrdup("Its process held more private memory than its memory limit allows.");
	if (ex->cause == SB_EXIT_YIELDED)
		return psprintf("Its process was taken back while it waited for a call: all pysandbox.max_concurrent (%d) sandbox processes were in use, another session's call was waiting, and this session held more than one.",
						sb_max_concurrent);
	if (WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_UNCLEAN)
		return pstrdup("Its process could not clean up after its last call: a function of that call's code ran between two calls, where nothing of the code's may run, or the call left its memory full.");
	if (WIFEXITED(st) && WEXITSTATUS(st) == SB_CHILD_EXIT_OK)
		return psprintf("Its process ended between two calls, as it does when it has used the CPU time a workspace has in all (%d times a call's limit).",
						SB_WORKSPACE_CPU_CALLS);
	if (WIFSIGNALED(st))
		return psprintf("Its process was killed by signal %d (%s) between two calls.",
						WTERMSIG(st), strsignal(WTERMSIG(st)));
	return psprintf("Its process exited with code %d between two calls.",
					WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * Did the worker end the workspace's child between calls (its idle
 * timeout, its CPU time between calls, another session's need), whatever
 * call it found there after?
 */
bool
sb_workspace_ended_idle(const SbExitReport *ex)
{
	return ex->cause == SB_EXIT_IDLE_TIMEOUT || ex->cause == SB_EXIT_IDLE_CPU ||
		ex->cause == SB_EXIT_YIELDED;
}

/* The workspace has ended: forget it and say why. */
static void
pg_attribute_noreturn()
sb_workspace_ended(SbWorkspace *ws, char *why)
{
	char		handle[SB_WS_HANDLE_LEN + 1];

	strlcpy(handle, ws->handle, sizeof(handle));
	sb_workspace_remember_end(ws->handle, ws->owner, why);
	sb_workspace_free(ws);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("workspace \"%s\" has ended", handle),
			 errdetail("%s", why),
			 errhint("Open a new workspace with sandbox_workspace_open(); what the old one kept in ws is gone.")));
}

/*
 * Is the workspace's child still waiting for its next call?  Raises the
 * error that ends the workspace if not: it ended between calls (its idle
 * timeout, its CPU time, a crash), it wrote between calls, or a call of it
 * was interrupted (the transaction's abort dropped it).
 */
static void
sb_workspace_check(SbWorkspace *ws)
{
	char	   *why = sb_workspace_gone(ws);

	if (why != NULL)
		sb_workspace_ended(ws, why);
}

/* Why the workspace's child no longer waits for a call; NULL if it does. */
static char *
sb_workspace_gone(SbWorkspace *ws)
{
	if (ws->child == NULL)
		return NULL;			/* no call yet */
	/* review 74 L3: a worker killed between calls is noticed here, not by the call */
	sb_sandbox_poll_worker();
	if (ws->worker_epoch != sb_worker_epoch)
		return pstrdup("Its sandbox worker exited or was restarted since its last call, and its process ended with it.");
	if (!sb_workspace_has_child(ws))
		return pstrdup("A call in it was interrupted (a cancel, a timeout, an error of its transaction), or its sandbox worker was restarted: its state is unknown.");
	switch (sb_held_state(ws->child))
	{
		case SB_HELD_WAITING:
			return NULL;		/* as it should */
		case SB_HELD_WROTE:
			return pstrdup("Its process wrote between two calls; it was stopped.");
		case SB_HELD_ENDED:
			break;
	}
	return sb_workspace_why(&ws->child->exit);
}

/*
 * sandbox_run's report of a workspace that has ended or does not exist
 * (review 111 F2: its 55000 aborted an agent loop's transaction, where the
 * README promises a report): f is filled (kind "input": nothing ran) and
 * true is returned.  False if the workspace may be used, or for any other
 * error, which entering it raises as ever (another role's is refused
 * alike, reported or not).
 */
bool
sb_workspace_unusable(const char *handle, SbFailure *f)
{
	SbWorkspace *ws = sb_workspace_find(handle);
	const SbEndedWorkspace *ended = ws == NULL ? sb_workspace_find_ended(handle) : NULL;
	char	   *why = NULL;

	memset(f, 0, sizeof(*f));
	f->type = "";
	f->kind = "input";
	f->line = f->col = -1;
	if (ws != NULL)
	{
		if (ws->owner != GetUserId() || (why = sb_workspace_gone(ws)) == NULL)
			return false;
		f->workspace_ended = pstrdup(ws->handle);
		sb_workspace_remember_end(ws->handle, ws->owner, why);
		sb_workspace_free(ws);
	}
	else if (ended != NULL)
	{
		if (ended->owner != GetUserId())
			return false;
		why = pstrdup(ended->why);
		f->workspace_ended = pstrdup(handle);
	}
	if (why != NULL)
	{
		f->sqlstate = ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
		f->message = psprintf("workspace \"%s\" has ended", handle);
		f->detail = why;
		f->hint = pstrdup("Open a new workspace with sandbox_workspace_open(); what the old one kept in ws is gone.");
	}
	else
	{
		f->sqlstate = ERRCODE_UNDEFINED_OBJECT;
		f->message = psprintf("workspace \"%s\" does not exist", handle);
		f->detail = pstrdup("A workspace belongs to the session that opened it, and ends with it, when it is closed, or when it waits longer than pysandbox.workspace_idle_timeout.");
		f->hint = pstrdup(sb_ws_hint_list());
	}
	f->report_message = f->message;
	return true;
}

/*
 * options.workspace of a call (sb_options.c): the call runs in that
 * workspace, which the current role must own and which must still be
 * there, with its limits.
 */
void
sb_workspace_enter(SbLimits *limits, const char *handle)
{
	SbWorkspace *ws;

	sb_workspace_allowed("a workspace");
	ws = sb_workspace_get(handle);
	sb_workspace_check(ws);

	/*
	 * The workspace's limits, unless the settings are lower now: its
	 * process's memory limit cannot be lowered, so that is an error.
	 */
	if (limits->memory_mb < ws->memory_mb)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the memory limit is %d MB, below the %d MB workspace \"%s\" was opened with",
						limits->memory_mb, ws->memory_mb, handle),
				 errhint("Close the workspace and open one within the limits that apply now.")));
	if (ws->timeout_ms <= limits->timeout_ms)
	{
		limits->timeout_ms = ws->timeout_ms;
		limits->allowed[SB_LIMIT_TIMEOUT] = ws->allowed[SB_LIMIT_TIMEOUT];
		limits->set_by[SB_LIMIT_TIMEOUT] = SB_SET_BY_WORKSPACE;
	}
	if (ws->cpu_ms <= limits->cpu_ms)
	{
		limits->cpu_ms = ws->cpu_ms;
		limits->allowed[SB_LIMIT_CPU] = ws->allowed[SB_LIMIT_CPU];
		limits->set_by[SB_LIMIT_CPU] = SB_SET_BY_WORKSPACE;
	}
	limits->memory_mb = ws->memory_mb;
	limits->allowed[SB_LIMIT_MEMORY] = ws->allowed[SB_LIMIT_MEMORY];
	limits->set_by[SB_LIMIT_MEMORY] = SB_SET_BY_WORKSPACE;
	limits->workspace = ws;
	limits->workspace_id = ws->id;
}

/* The allowlist a workspace's calls run under, as a hash to compare. */
static uint64
sb_workspace_allowed_hash(const char *allowed)
{
	if (allowed == NULL)
		allowed = "";
	return DatumGetUInt64(hash_bytes_extended((const unsigned char *) allowed,
											  (int) strlen(allowed), 0));
}

/*
 * A request of a call in a workspace is complete (sb_request_finish): the
 * child learns it serves a workspace; a workspace that has a child already
 * gets SB_DATA_CALL and the request on it.
 */
void
sb_workspace_request(SbRequest *req)
{
	SbWorkspace *ws = sb_workspace_live(req);
	List	   *request;

	/* its inputs' queries ran SQL: the workspace may be gone, or ended */
	if (ws == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the workspace of this call was closed while its inputs were read"),
				 errhint("Do not close a workspace in the queries of a call that runs in it.")));
	sb_workspace_check(ws);
	req->hold = true;
	req->many_calls = true;
	if (ws->child == NULL)
	{
		/* the first call: a fresh child, contained as the settings say now */
		ws->python_layer = req->python_layer;
		ws->filesystem_layer = sb_filesystem_layer;
		ws->allow_weak = sb_allow_weak_isolation;
		ws->allowed_hash = sb_workspace_allowed_hash(req->allowed_modules);
		return;
	}

	/*
	 * Its child was contained with the settings of its first call: a call
	 * under other ones would run with layers it was not given (and a code
	 * run without the Python layer would count as validated)
	 */
	if (ws->python_layer != req->python_layer || ws->filesystem_layer != sb_filesystem_layer ||
		ws->allow_weak != sb_allow_weak_isolation)
	{
		static const char *const fs[] = {"auto", "landlock", "mount_namespace"};
		const char *name = "pysandbox.allow_weak_isolation";
		const char *then = ws->allow_weak ? "on" : "off";
		const char *now = sb_allow_weak_isolation ? "on" : "off";

		if (ws->python_layer != req->python_layer)
		{
			name = "pysandbox.python_layer";
			then = ws->python_layer ? "on" : "off";
			now = req->python_layer ? "on" : "off";
		}
		else if (ws->filesystem_layer != sb_filesystem_layer)
		{
			name = "pysandbox.filesystem_layer";
			then = ws->filesystem_layer >= 0 && ws->filesystem_layer < 3 ? fs[ws->filesystem_layer] : "?";
			now = sb_filesystem_layer >= 0 && sb_filesystem_layer < 3 ? fs[sb_filesystem_layer] : "?";
		}
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the sandbox's layers have changed since workspace \"%s\" began", ws->handle),
				 errdetail("Its process was contained with %s = %s; it is %s now.", name, then, now),
				 errhint("Close the workspace and open a new one under the settings that apply now.")));
	}
	/*
	 * ... and imported modules under the allowlist then, which ws keeps: a
	 * list narrowed since (ALTER ROLE ... SET pysandbox.allowed_modules)
	 * would not reach what a call kept (review 157 F2: ws["np"] went on
	 * working where import numpy was refused)
	 */
	if (ws->allowed_hash != sb_workspace_allowed_hash(req->allowed_modules))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pysandbox.allowed_modules has changed since workspace \"%s\" began", ws->handle),
				 errdetail("Its process imported modules under the list of its first call, and what it keeps in ws may hold them."),
				 errhint("Close the workspace and open a new one under the settings that apply now.")));
	req->held = ws->child;
	request = req->chunks;
	req->chunks = NIL;
	sb_request_add_frame(req, SB_DATA_CALL, NULL, 0, NULL, 0, NULL, 0);
	req->chunks = list_concat(req->chunks, request);
}

/*
 * A call in a workspace is over (sb_call_run): its child is held again, or
 * is the workspace's now (its first call), or is gone, and with it the
 * workspace (out->workspace_ended says so to the call's error).
 */
void
sb_workspace_after_call(SbRequest *req, SbOutcome *out)
{
	SbWorkspace *ws = sb_workspace_live(req);

	if (ws == NULL)
	{
		/* closed meanwhile (by a query of sql()): its process goes too */
		if (out->held != NULL)
			sb_sandbox_drop(out->held);
		out->held = NULL;
		return;
	}
	ws->calls++;
	ws->last_used = GetCurrentTimestamp();
	if (out->held != NULL)
	{
		/* a process that just answered is the child: what its pid names now */
		if (ws->child != out->held || ws->generation != out->held->generation ||
			ws->child_started == 0)
			ws->child_started = sb_proc_start_time(out->held->pid);
		ws->child = out->held;
		ws->generation = out->held->generation;
		ws->worker_epoch = sb_worker_epoch;
		return;
	}
	out->workspace_ended = pstrdup(ws->handle);
	/*
	 * the call's error, if it fails, says more (sb_workspace_ended_by); a
	 * child the worker ended between calls, as this call began, ended for
	 * that (review 122 F1: its idle timeout was told as a crash)
	 */
	sb_workspace_remember_end(ws->handle, ws->owner,
							  sb_workspace_ended_idle(&out->exit) ? sb_workspace_why(&out->exit) :
							  "Its process ended with a call in it (a limit, a crash or a cancel), as that call's error said.");
	/* a call that succeeded, but its process could not be kept */
	if (out->complete)
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("workspace \"%s\" has ended: its process could not be kept after this call",
						ws->handle),
				 errhint("Close workspaces no longer needed, and open a new one.")));
	sb_workspace_free(ws);
}

/* A random handle: "ws_" and 32 hex digits. */
static void
sb_workspace_handle(char *out)
{
	uint8		bytes[16];
	int			i;

	if (!pg_strong_random(bytes, sizeof(bytes)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random workspace handle")));
	memcpy(out, "ws_", 3);
	for (i = 0; i < 16; i++)
		snprintf(out + 3 + 2 * i, 3, "%02x", bytes[i]);
}

/*
 * sandbox_workspace_open(options jsonb DEFAULT '{}') returns text: a new
 * workspace of this session and role, with its calls' limits (timeout_ms,
 * cpu_ms, memory_mb: options can only lower the settings).
 */
Datum
sandbox_workspace_open(PG_FUNCTION_ARGS)
{
	static const char *const args[] = {"options", NULL};
	Jsonb	   *options;
	SbLimits	limits;
	SbWorkspace *ws = NULL;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			open = 0,
				others = 0;
	int			max_workspaces = sb_role_int(SB_ROLE_MAX_WORKSPACES);
	int			i;

	sb_check_args(fcinfo, "sandbox_workspace_open", 0, args);
	options = PG_GETARG_JSONB_P(0);
	sb_workspace_allowed("sandbox_workspace_open()");
	if (!JB_ROOT_IS_OBJECT(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object")));
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY &&
			!(v.val.string.len == 10 && memcmp(v.val.string.val, "timeout_ms", 10) == 0) &&
			!(v.val.string.len == 6 && memcmp(v.val.string.val, "cpu_ms", 6) == 0) &&
			!(v.val.string.len == 9 && memcmp(v.val.string.val, "memory_mb", 9) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\" of sandbox_workspace_open", v.val.string.len,
							v.val.string.val),
					 errhint("A workspace takes timeout_ms, cpu_ms and memory_mb, the limits of its calls; the other options go with each call.")));
	}
	sb_limits_from_options(&limits, options);

	/* the worker's reports of processes that ended while idle (review 111 F5) */
	sb_sandbox_poll_worker();
	for (i = 0; i < SB_MAX_WORKSPACES; i++)
	{
		SbWorkspace *old = &sb_workspaces[i];

		/*
		 * one whose process ended between calls counts no more; its handle
		 * still says why (review 68 F4); one whose process is gone before
		 * its report came neither (review 111 F5: an agent that reopened
		 * after each idle timeout was refused at its fifth)
		 */
		if (old->in_use && sb_workspace_has_child(old) && !old->child->exited &&
			sb_workspace_memory_kb(old) < 0 &&
			(old->child_started == 0 || sb_proc_start_time(old->child->pid) != old->child_started))
		{
			sb_workspace_remember_end(old->handle, old->owner,
									  "Its process ended between two calls (pysandbox.workspace_idle_timeout, or it was taken back).");
			sb_workspace_free(old);
		}
		if (sb_workspaces[i].in_use && sb_workspace_dead(&sb_workspaces[i]))
		{
			char	   *why = sb_workspace_gone(&sb_workspaces[i]);

			sb_workspace_remember_end(sb_workspaces[i].handle, sb_workspaces[i].owner,
									  why ? why : "Its process ended between two calls.");
			sb_workspace_free(&sb_workspaces[i]);
		}
		if (sb_workspaces[i].in_use)
		{
			open++;
			if (sb_workspaces[i].owner != GetUserId())
				others++;
		}
		else if (ws == NULL)
			ws = &sb_workspaces[i];
	}
	/*
	 * The limit is the session's: workspaces other roles opened in it (SET
	 * ROLE, a SECURITY DEFINER function) count, though this role can
	 * neither list nor close them.
	 */
	if (open >= max_workspaces || ws == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many workspaces are open in this session"),
				 others > 0 ?
				 errdetail_plural("pysandbox.max_workspaces is %d; %d of the session's open workspaces belongs to another role (opened under SET ROLE or in a SECURITY DEFINER function).",
								  "pysandbox.max_workspaces is %d; %d of the session's open workspaces belong to other roles (opened under SET ROLE or in a SECURITY DEFINER function).",
								  others, max_workspaces, others) :
				 errdetail("pysandbox.max_workspaces is %d.", max_workspaces),
				 max_workspaces == 0 ?
				 errhint("Workspaces are turned off for this role; call without options.workspace, or ask an administrator to raise pysandbox.max_workspaces.") :
				 others > 0 ?
				 errhint("Close this role's with sandbox_workspace_close() (sandbox_workspace_list() shows them); the other roles' close as their role, or all of them with DISCARD ALL or when the session ends.") :
				 errhint("Close one with sandbox_workspace_close(); sandbox_workspace_list() shows them.")));

	memset(ws, 0, sizeof(*ws));
	ws->id = ++sb_workspace_ids;
	sb_workspace_handle(ws->handle);
	ws->owner = GetUserId();
	ws->opened = ws->last_used = GetCurrentTimestamp();
	ws->timeout_ms = limits.timeout_ms;
	ws->cpu_ms = limits.cpu_ms;
	ws->memory_mb = limits.memory_mb;
	for (i = SB_LIMIT_TIMEOUT; i <= SB_LIMIT_MEMORY; i++)
		ws->allowed[i] = limits.allowed[i];
	ws->in_use = true;
	PG_RETURN_TEXT_P(cstring_to_text(ws->handle));
}

/*
 * sandbox_workspace_close(workspace text) returns boolean: end it (its
 * child is killed); false if this session has no such workspace.
 */
Datum
sandbox_workspace_close(PG_FUNCTION_ARGS)
{
	static const char *const args[] = {"workspace", NULL};
	char	   *handle;
	SbWorkspace *ws;

	sb_check_args(fcinfo, "sandbox_workspace_close", 0, args);
	handle = text_to_cstring(PG_GETARG_TEXT_PP(0));
	sb_workspace_allowed("sandbox_workspace_close()");
	ws = sb_workspace_find(handle);
	if (ws == NULL)
		PG_RETURN_BOOL(false);
	ws = sb_workspace_get(handle);	/* another role's: refused */
	if (sb_workspace_has_child(ws) && ws->child->in_call)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("workspace \"%s\" is running a call", handle)));
	sb_workspace_remember_end(ws->handle, ws->owner,
							  "It was closed with sandbox_workspace_close().");
	sb_workspace_free(ws);
	PG_RETURN_BOOL(true);
}

/*
 * A process's start time (field 22 of /proc/<pid>/stat, clock ticks after
 * boot), or 0 if it cannot be read.  The comm before it may hold any
 * bytes, ')' too: the fields begin after the last ')'.
 */
static uint64
sb_proc_start_time(int32 pid)
{
	char		buf[1024];
	char	   *p;
	int			field;

	if (!sb_proc_read(pid, "stat", buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	if (p == NULL)
		return 0;
	/* after ") ": field 3 (state) onwards; the start time is field 22 */
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return 0;
	return strtoull(p + 1, NULL, 10);
}

/*
 * The workspace's child's resident memory in kB, from /proc, or -1: also
 * when its pid no longer names it (it ended, its exit not yet reported,
 * and the pid went to another process), checked before and after.
 */
static int64
sb_workspace_memory_kb(SbWorkspace *ws)
{
	int32		pid = ws->child->pid;
	char		buf[128];
	long		size,
				resident;

	if (ws->child_started == 0 || sb_proc_start_time(pid) != ws->child_started)
		return -1;
	if (!sb_proc_read(pid, "statm", buf, sizeof(buf)) ||
		sscanf(buf, "%ld %ld", &size, &resident) != 2)
		return -1;
	if (sb_proc_start_time(pid) != ws->child_started)
		return -1;
	return (int64) resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * sandbox_workspace_list() returns the current role's workspaces in this
 * session: handle, when opened and last used, calls, whether its process
 * is up, its resident memory, its limits.
 */
Datum
sandbox_workspace_list(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			i;

	sb_workspace_allowed("sandbox_workspace_list()");
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < SB_MAX_WORKSPACES; i++)
	{
		SbWorkspace *ws = &sb_workspaces[i];
		Datum		values[9];
		bool		nulls[9];
		bool		up;
		int64		kb = -1;

		if (!ws->in_use || ws->owner != GetUserId())
			continue;
		up = sb_workspace_has_child(ws) && !ws->child->exited;
		if (up)
			kb = sb_workspace_memory_kb(ws);
		/*
		 * a process taken back, killed or timed out while idle is known
		 * here only at the workspace's next use: its own start time says
		 * it is gone (review 74 L1: it showed running until then)
		 */
		if (up && kb < 0 && (ws->child_started == 0 ||
							 sb_proc_start_time(ws->child->pid) != ws->child_started))
			up = false;
		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum(ws->handle);
		values[1] = TimestampTzGetDatum(ws->opened);
		values[2] = TimestampTzGetDatum(ws->last_used);
		values[3] = Int64GetDatum((int64) ws->calls);
		values[4] = BoolGetDatum(up);
		values[5] = Int64GetDatum(kb);
		nulls[5] = kb < 0;
		values[6] = Int32GetDatum(ws->timeout_ms);
		values[7] = Int32GetDatum(ws->cpu_ms);
		values[8] = Int32GetDatum(ws->memory_mb);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
