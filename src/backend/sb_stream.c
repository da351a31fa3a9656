/*
 * sb_stream.c
 *		Large table inputs, and large answers of sql(), sent to the child in
 *		row groups while their queries run.
 *
 * A buffered table input (sb_inputs.c) is scanned completely before the
 * child is asked for: the scan, the transfer and the child's decoding run
 * one after another, and the backend holds the whole input.  An input the
 * planner expects to be larger than pysandbox.stream_threshold is streamed
 * instead: its query is opened as a cursor in the caller's snapshot, the
 * call takes its child, and the call's send loop (sb_call_run) asks
 * sb_stream_next() for the next row group whenever the previous one is out.
 * The child decodes a row group while the backend fetches the next, and
 * builds one DataFrame of all of them (sb_runtime._read_tables); the
 * backend holds one row group per input at a time, in buffers reused from
 * one row group to the next.
 *
 * Everything that holds for a buffered input holds here: the query runs as
 * the caller, read-only (XactReadOnly during each fetch), inside a
 * subtransaction rolled back once the call is over, with the same budget
 * (max_input_rows, max_input_size) and the same messages.  What differs:
 * the query's time counts toward the call's wall-clock limit, since the
 * child is running while the rows arrive; a query error or a limit reached
 * in the middle of the input ends the call and its child.
 *
 * Streamed calls do not use the session's reservation (sb_worker.c): a
 * reservation the worker takes back before the call began is resent from
 * the start, and rows already fetched cannot be fetched again.
 *
 * sql()'s answer streams the same way (sb_sql_stream, at the end), inside
 * the query's own subtransaction: each row group is sent whole before the
 * next is fetched (sb_sql_send_now), the child decoding meanwhile.
 */
#include "pysandbox.h"

#include <limits.h>

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/latch.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "nodes/plannodes.h"
#include "tcop/pquery.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/portal.h"
#include "utils/timeout.h"

/*
 * A row group holds about SB_ROW_GROUP_BYTES, judged by the previous row
 * group's bytes per row: large enough that the child's per-row-group cost
 * (a few Python calls per column) is noise, small enough that the child
 * decodes one while the backend fetches the next.
 */
#define SB_ROW_GROUP_BYTES		((uint64) 4 * 1024 * 1024)
#define SB_ROW_GROUP_FIRST		16384
#define SB_ROW_GROUP_MIN		64
#define SB_ROW_GROUP_MAX		1048576

/* a streamed input's query is running (sb_call_run refuses pysandbox code) */
bool		sb_stream_fetching = false;

typedef struct SbStreamInput
{
	const char *name;
	const char *query;
	JsonbValue *params;
	Portal		portal;			/* its cursor, while the call runs */
	SbReceiver *r;				/* its columns */
} SbStreamInput;

/*
 * The call's wall-clock limit counts while a streamed input's query runs:
 * the worker ends the child at the limit, and this timer ends a fetch that
 * is still running then (a large sort, a slow function), with the same
 * error, instead of letting the backend finish the fetch for nothing.
 */
static TimeoutId sb_stream_timeout = MAX_TIMEOUTS;
static volatile sig_atomic_t sb_stream_timed_out = false;

static void
sb_stream_timeout_handler(void)
{
	sb_stream_timed_out = true;
	QueryCancelPending = true;
	InterruptPending = true;
	SetLatch(MyLatch);
}

typedef struct SbStreamRun
{
	int			cur;			/* the input being sent */
	long		fetch;			/* rows in its next row group */
	bool		header_sent;	/* its TABLE header is out */
	bool		ended;			/* END is queued */
	instr_time	start;			/* when the call began, for its limit */
	int			timeout_ms;		/* the call's wall-clock limit */
	const SbLimits *limits;
	MemoryContext frames;		/* one row group's frame headers */
	MemoryContext done;			/* a finished input's columns, emptied once
								 * its last row group is out */
} SbStreamRun;

/*
 * Should this table input stream?  Only for calls that allow it (not
 * sandbox_run, workspaces, group_by or functions), and only when the
 * planner expects more than pysandbox.stream_threshold of rows: a small
 * input is scanned before the call as ever and keeps the session's
 * reservation.  plan is the input's, prepared by the buffered scan
 * (sb_inputs.c), which queues a streamed input with sb_stream_add() instead
 * of running it: a syntax error or a bad $params is raised before any
 * child is taken, and an input is planned once on the buffered path.
 */
bool
sb_stream_wanted(SbRequest *req, SPIPlanPtr plan)
{
	/* (the queries of sql() answer the running call: sb_sql_stream) */
	if (!req->stream_ok || req->stream != NULL)
		return false;
	return sb_stream_large(plan);
}

/* Does the planner expect more than pysandbox.stream_threshold of rows? */
bool
sb_stream_large(SPIPlanPtr plan)
{
	CachedPlan *cplan;
	PlannedStmt *stmt;
	double		bytes;

	if (sb_stream_threshold_kb < 0)
		return false;
	/* the buffered path runs this very plan */
	cplan = sb_table_plan(plan);
	if (cplan == NULL)
		return false;
	stmt = linitial_node(PlannedStmt, cplan->stmt_list);
	/* a row costs its width and about 9 bytes more: offsets, validity */
	bytes = stmt->planTree->plan_rows * (stmt->planTree->plan_width + 9);
	ReleaseCachedPlan(cplan, NULL);
	return bytes >= (double) sb_stream_threshold_kb * 1024;
}

/* Queue a table input to stream while the call runs (in the request's memory). */
void
sb_stream_add(SbRequest *req, const char *name, const char *query, JsonbValue *params)
{
	SbStreamInput *in = palloc0(sizeof(SbStreamInput));

	in->name = name;
	in->query = query;
	in->params = params;
	req->streams = lappend(req->streams, in);
}

/* The input being sent, or NULL. */
const char *
sb_stream_current(const SbRequest *req)
{
	SbStreamRun *s = req->stream;

	if (req->pull != NULL)
		return NULL;
	if (s == NULL || s->cur >= list_length(req->streams))
		return NULL;
	return ((SbStreamInput *) list_nth(req->streams, s->cur))->name;
}

/* The call has sent everything: every row group and END. */
bool
sb_stream_over(const SbRequest *req)
{
	if (req->pull != NULL)
		return req->pull_ended;
	return req->stream == NULL || req->stream->ended;
}

/* what the call's timeout error says when a streamed input was still being read */
char *
sb_stream_timeout_detail(const char *input)
{
	return psprintf("Table input \"%s\" was still being sent when the limit passed: a streamed input's query counts toward the call's limit.",
					input);
}

/* The call's wall-clock limit passed while the input's query ran. */
static void
sb_stream_timeout_error(SbStreamRun *s, SbStreamInput *in)
{
	ereport(ERROR,
			(errcode(ERRCODE_QUERY_CANCELED),
			 errmsg("sandbox code exceeded the wall-clock limit of %d ms", s->timeout_ms),
			 errdetail_internal("%s", sb_stream_timeout_detail(in->name)),
			 errhint("%s", sb_limit_hint("Make the input's query faster or give it less data",
										 s->limits, SB_LIMIT_TIMEOUT))));
}

/*
 * Queue a row group of r's columns (CHUNK, then a COLUMN frame each; last:
 * the input's or answer's last), count it against the call's input, and
 * return how many rows the next should hold: about SB_ROW_GROUP_BYTES at
 * this one's width (fetch, this one's, when it was empty).
 */
static long
sb_queue_row_group(SbRequest *req, SbReceiver *r, bool last, long fetch)
{
	SbChunkHeader *ch = palloc0(sizeof(SbChunkHeader));
	uint64		bytes = 0;
	int			i;

	ch->nrows = r->nrows;
	ch->flags = last ? SB_CHUNK_LAST : 0;
	sb_request_add_frame(req, SB_DATA_CHUNK, (const char *) ch, sizeof(*ch), NULL, 0, NULL, 0);
	for (i = 0; i < r->ncols; i++)
	{
		bytes += sb_column_size(&r->cols[i]);
		sb_column_add_frame(req, &r->cols[i], r->nrows);
	}
	req->input_rows += r->nrows;
	req->input_bytes += bytes;
	if (r->nrows == 0)
		return fetch;
	return (long) Max(Min(SB_ROW_GROUP_BYTES / Max(bytes / r->nrows, 1),
						  SB_ROW_GROUP_MAX), SB_ROW_GROUP_MIN);
}

/* Fetch the current input's next row group into its columns and queue it. */
static void
sb_stream_row_group(SbRequest *req, SbStreamRun *s)
{
	SbStreamInput *in = list_nth(req->streams, s->cur);
	SbReceiver *r = in->r;
	ErrorContextCallback errcb;
	bool		save_read_only = XactReadOnly;
	bool		last;
	MemoryContext cxt = CurrentMemoryContext;
	instr_time	now;
	long		left;
	int			i;

	sb_push_input_context(&errcb, in->name);

	/* the previous row group is out: its buffers take the next */
	for (i = 0; i < r->ncols; i++)
		sb_column_rewind(&r->cols[i], r->nrows);
	r->nrows = 0;

	INSTR_TIME_SET_CURRENT(now);
	/* the limit counts from when the child is the call's, after any queueing */
	if (INSTR_TIME_IS_ZERO(s->start))
		s->start = now;
	INSTR_TIME_SUBTRACT(now, s->start);
	left = s->timeout_ms - (long) INSTR_TIME_GET_MILLISEC(now);
	if (left <= 0)
		sb_stream_timeout_error(s, in);
	if (sb_stream_timeout == MAX_TIMEOUTS)
		sb_stream_timeout = RegisterTimeout(USER_TIMEOUT, sb_stream_timeout_handler);
	sb_stream_timed_out = false;
	enable_timeout_after(sb_stream_timeout, (int) Min(left, INT_MAX));
	XactReadOnly = true;
	sb_stream_fetching = true;
	PG_TRY();
	{
		(void) PortalRunFetch(in->portal, FETCH_FORWARD, s->fetch, (DestReceiver *) r);
	}
	PG_CATCH();
	{
		disable_timeout(sb_stream_timeout, false);
		XactReadOnly = save_read_only;
		sb_stream_fetching = false;
		if (sb_stream_timed_out)
		{
			/* the timer's cancel, whatever error it met, is not the statement's */
			QueryCancelPending = false;
			if (geterrcode() == ERRCODE_QUERY_CANCELED)
			{
				MemoryContextSwitchTo(cxt);
				FlushErrorState();
				sb_stream_timeout_error(s, in);
			}
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	disable_timeout(sb_stream_timeout, false);
	XactReadOnly = save_read_only;
	sb_stream_fetching = false;
	/*
	 * fired as the fetch ended: the limit has passed, so the call ends here
	 * (a cancel that came at the same moment is this error too); the
	 * timer's pending cancel goes with it, or a later statement of a
	 * handler that caught this error would meet it
	 */
	if (sb_stream_timed_out)
	{
		QueryCancelPending = false;
		sb_stream_timeout_error(s, in);
	}
	error_context_stack = errcb.previous;

	if (!s->header_sent)
	{
		sb_request_add_table_header(req, in->name, r->cols, r->ncols, -1);
		s->header_sent = true;
	}
	last = in->portal->atEnd || r->nrows < (uint64) s->fetch;
	s->fetch = sb_queue_row_group(req, r, last, s->fetch);

	if (last)
	{
		/* its columns go once this last row group is sent */
		SPI_cursor_close(in->portal);
		in->portal = NULL;
		s->done = r->cxt;
		s->cur++;
		s->header_sent = false;
		s->fetch = SB_ROW_GROUP_FIRST;
	}
}

/*
 * The frames to send next: the current input's next row group, or END
 * after the last input; NIL once END is out.  Called by sb_call_run() when
 * everything queued before is sent (so the previous row group's buffers
 * are free again); a query error is raised from here and ends the call.
 */
List *
sb_stream_next(SbRequest *req)
{
	SbStreamRun *s = req->stream;
	List	   *queued = req->chunks;
	List	   *chunks;
	MemoryContext old;

	/* frames from elsewhere: a partition's rows (sb_parallel.c) */
	if (req->pull != NULL)
		return req->pull_ended ? NIL : req->pull(req);
	if (s->ended)
		return NIL;
	if (s->done != NULL)
	{
		MemoryContextReset(s->done);
		s->done = NULL;
	}
	MemoryContextReset(s->frames);
	old = MemoryContextSwitchTo(s->frames);
	req->chunks = NIL;
	if (s->cur < list_length(req->streams))
		sb_stream_row_group(req, s);
	else
	{
		sb_request_add_frame(req, SB_DATA_END, NULL, 0, NULL, 0, NULL, 0);
		s->ended = true;
	}
	chunks = req->chunks;
	req->chunks = queued;
	MemoryContextSwitchTo(old);
	return chunks;
}

typedef struct SbStreamJob
{
	SbRequest  *req;
	const SbLimits *limits;
	SbOutcome  *out;
} SbStreamJob;

/* The streamed call, inside its subtransaction. */
static void
sb_stream_job(void *arg)
{
	SbStreamJob *job = (SbStreamJob *) arg;
	SbRequest  *req = job->req;
	SbStreamRun *s;
	MemoryContext cxt = CurrentMemoryContext;
	bool		save_read_only = XactReadOnly;
	ListCell   *lc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	MemoryContextSwitchTo(cxt);

	/*
	 * Every input's cursor is opened first: permissions and the like fail
	 * before a child is taken
	 */
	foreach(lc, req->streams)
	{
		SbStreamInput *in = (SbStreamInput *) lfirst(lc);
		ErrorContextCallback errcb;
		ParamListInfo paramLI = NULL;
		SPIPlanPtr	plan;
		MemoryContext colcxt;

		sb_push_input_context(&errcb, in->name);
		/* read forward only: a sort need not keep its result for rewinding */
		plan = sb_table_prepare_with(in->name, in->query, in->params, &paramLI,
									 CURSOR_OPT_NO_SCROLL);
		XactReadOnly = true;
		sb_stream_fetching = true;
		PG_TRY();
		{
			in->portal = SPI_cursor_open_with_paramlist(NULL, plan, paramLI, true);
		}
		PG_FINALLY();
		{
			XactReadOnly = save_read_only;
			sb_stream_fetching = false;
		}
		PG_END_TRY();
		error_context_stack = errcb.previous;
		MemoryContextSwitchTo(cxt);

		colcxt = AllocSetContextCreate(cxt, "pysandbox streamed input", ALLOCSET_DEFAULT_SIZES);
		in->r = sb_receiver_new(req, in->name, colcxt);
		in->r->stream = true;
		sb_receiver_columns(in->r, in->portal->tupDesc);
	}

	s = palloc0(sizeof(SbStreamRun));
	s->fetch = SB_ROW_GROUP_FIRST;
	s->timeout_ms = job->limits->timeout_ms;
	s->limits = job->limits;
	INSTR_TIME_SET_ZERO(s->start);	/* set by the first row group */
	s->frames = AllocSetContextCreate(cxt, "pysandbox row group", ALLOCSET_SMALL_SIZES);
	req->stream = s;
	sb_call_run(req, job->limits, job->out);
	req->stream = NULL;
	SPI_finish();
	MemoryContextSwitchTo(cxt);
	/* the call is over: the last row groups' buffers go now, not with the query */
	foreach(lc, req->streams)
		MemoryContextDelete(((SbStreamInput *) lfirst(lc))->r->cxt);
	MemoryContextDelete(s->frames);
}

/*
 * Run the call (sb_call_run), streaming the inputs queued on req->streams:
 * their queries run while the child takes their rows, in a subtransaction
 * rolled back afterwards as any table input's (sb_rolled_back).
 */
void
sb_call_streamed(SbRequest *req, const SbLimits *limits, SbOutcome *out)
{
	SbStreamJob job;

	if (req->streams == NIL)
	{
		sb_call_run(req, limits, out);
		return;
	}
	job.req = req;
	job.limits = limits;
	job.out = out;
	sb_rolled_back(sb_stream_job, &job);
}

/*
 * Answer sql() with a large query's rows in row groups, as a streamed
 * input's: each is sent to the child (sb_sql_send_now) while the query goes
 * on to the next, and the child decodes one while the next is fetched,
 * instead of the backend building the whole answer before the child reads
 * any of it.  Called by sb_table_input_scan inside sb_sql_answer's
 * subtransaction, with plan prepared (CURSOR_OPT_NO_SCROLL) and SPI
 * connected; the answer is built in cxt, which outlives SPI.  The last row group stays queued on req->chunks as the
 * answer's end, sent only once the query is over and checked
 * (sb_sql_run): an error until then reaches the child as SQL_ERROR in
 * place of a row group.  An answer the first row group holds whole is
 * queued as a buffered table, as a small query's is.
 */
void
sb_sql_stream(SbRequest *req, SPIPlanPtr plan, ParamListInfo paramLI, MemoryContext cxt)
{
	MemoryContext frames;
	bool		save_read_only = XactReadOnly;
	Portal		portal;
	SbReceiver *r;
	long		fetch = SB_ROW_GROUP_FIRST;
	bool		first = true;
	int			i;

	XactReadOnly = true;
	PG_TRY();
	{
		portal = SPI_cursor_open_with_paramlist(NULL, plan, paramLI, true);
	}
	PG_FINALLY();
	{
		XactReadOnly = save_read_only;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	r = sb_receiver_new(req, "sql()", cxt);
	r->stream = true;
	sb_receiver_columns(r, portal->tupDesc);
	frames = AllocSetContextCreate(cxt, "pysandbox sql() row group", ALLOCSET_SMALL_SIZES);

	for (;;)
	{
		bool		last;

		/* the previous row group is out: its buffers take the next */
		for (i = 0; i < r->ncols; i++)
			sb_column_rewind(&r->cols[i], r->nrows);
		r->nrows = 0;
		XactReadOnly = true;
		PG_TRY();
		{
			(void) PortalRunFetch(portal, FETCH_FORWARD, fetch, (DestReceiver *) r);
		}
		PG_FINALLY();
		{
			XactReadOnly = save_read_only;
		}
		PG_END_TRY();
		MemoryContextSwitchTo(cxt);
		last = portal->atEnd || r->nrows < (uint64) fetch;
		if (first && last)
		{
			/* all of it in one: the answer a small query gives */
			sb_request_add_table(req, "sql()", r->cols, r->ncols, r->nrows);
			break;
		}
		MemoryContextReset(frames);
		MemoryContextSwitchTo(frames);
		if (first)
			sb_request_add_table_header(req, "sql()", r->cols, r->ncols, -1);
		first = false;
		fetch = sb_queue_row_group(req, r, last, fetch);
		MemoryContextSwitchTo(cxt);
		/* the last stays queued: the answer (frames is kept with it) */
		if (last)
			break;
		sb_sql_send_now(req);
	}
	SPI_cursor_close(portal);
}
