/*
 * sb_parallel.c
 *		options.parallel: several groups of options.group_by at once, each
 *		call made by a parallel worker of PostgreSQL's own.
 *
 * The backend that runs the statement (the leader) keeps scanning the
 * sorted input and building each group's request; it hands the request to
 * an idle worker through a shared-memory queue and takes the outcome back
 * through another.  A worker does nothing but sb_group_call(): it gets a
 * child from the fork server as any backend does (and keeps it for its
 * next group, as the leader does), sends the request,
 * checks every frame the child sends (sb_call.c) and returns the outcome;
 * the leader judges outcomes in the groups' order (sb_groups.c), as if it
 * had made the calls itself.  What crosses the queues comes from the
 * leader or from PostgreSQL code in the worker: the child's bytes reach
 * the leader only inside an outcome that sb_call_run() already checked
 * frame by frame, and the leader's decoders check them again as for any
 * call.
 *
 * PostgreSQL's parallel machinery gives the workers the leader's role,
 * settings and snapshot, relays their notices (print()) and errors to the
 * leader, and on any error or cancel of the leader terminates them; a
 * worker's death closes its connection to the fork server, which kills
 * its child.  Workers are only used with the fork server
 * (shared_preload_libraries): without it each would start a worker
 * process of its own, which costs more than it saves.  In a worker, sql()
 * is refused (a parallel operation cannot start the subtransaction it
 * runs in): sb_sql_answer() says so to the child.
 *
 * Over partitions (sb_groups.c), a worker's first task is its partition:
 * a call whose rows come as pieces through the same queue while the
 * leader scans (SB_LOAD_MAGIC, then SB_PIECE_MAGIC messages, the last one
 * marked), which the worker passes on to its child as they come
 * (SbRequest.pull); the groups that follow name the rows the child kept.
 */
#include "pysandbox.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"

#define SB_PARALLEL_KEY_SHARED	UINT64CONST(0x5053424F58000001)
#define SB_PARALLEL_KEY_QUEUES	UINT64CONST(0x5053424F58000002)

/* each direction's ring; larger messages go through it in pieces */
#define SB_PARALLEL_QUEUE_SIZE	((Size) 256 << 10)

#define SB_TASK_MAGIC	0x5342544B	/* "SBTK" */
#define SB_LOAD_MAGIC	0x53424C44	/* "SBLD" */
#define SB_PIECE_MAGIC	0x53425043	/* "SBPC" */
#define SB_DONE_MAGIC	0x5342444E	/* "SBDN" */

typedef struct SbParallelShared
{
	int			nworkers;
	Size		queue_size;
} SbParallelShared;

/*
 * a group's request, leader to worker; then the code, the group's key
 * ("(region)=(north)") and the input's name, then the frames
 */
typedef struct SbTaskHeader
{
	uint32		magic;
	bool		rows_mode;
	bool		python_layer;
	bool		partitioned;	/* the group's rows are on the held child */
	int			rows_ncols;
	int			timeout_ms;
	int			cpu_ms;
	int			memory_mb;
	int			max_output_bytes;
	Size		code_len;		/* 0: no code (any child) */
	Size		described_len;	/* the group, for the worker's messages */
	Size		input_len;
	Size		request_len;
} SbTaskHeader;

/* its outcome, worker to leader; then result, error, rows header, columns */
typedef struct SbDoneHeader
{
	uint32		magic;
	bool		has_result;
	bool		has_error;
	bool		has_rows_header;
	bool		violation;
	bool		output_exceeded;
	bool		protocol_error;
	bool		cut;
	bool		worker_lost;
	bool		preloaded;
	bool		complete;
	bool		detached;
	bool		partition_lost;
	int			n_sql_errcodes; /* what sql() was answered with (0A000) */
	int			sql_errcodes[SB_SQL_ERRCODES];
	SbViolation violation_info;
	SbExitReport exit;
	uint64		call_cpu_us;
	Size		result_len;
	Size		error_len;
	Size		rows_header_len;
	int			ncolumns;
} SbDoneHeader;

typedef struct SbGroupPool
{
	ParallelContext *pcxt;
	int			nqueues;		/* queue pairs made: the workers asked for */
	int			nworkers;		/* launched */
	shm_mq_handle **to;			/* leader -> worker i */
	shm_mq_handle **from;		/* worker i -> leader */
	bool	   *busy;
} SbGroupPool;

static shm_mq *
sb_queue(char *base, int worker, int direction, Size size)
{
	return (shm_mq *) (base + ((Size) (2 * worker + direction)) * size);
}

/*
 * How many groups one call runs at once for options.parallel: at most half
 * of pysandbox.max_concurrent (no pool when that leaves one), so that one
 * call's groups, whose processes are never idle between groups, cannot
 * hold every slot for the whole call while other sessions' calls wait
 * (review 99 N1).
 */
int
sb_pool_want(int parallel)
{
	int			n = Min(parallel, Max(1, sb_max_concurrent / 2));

	/* one parallel worker where more were asked: one at a time, no pool */
	return n < 2 && parallel >= 2 ? 0 : n;
}

/*
 * Start up to nworkers workers for the groups of this call.  NULL when
 * none could start (no fork server, no free worker slots): the groups
 * then run one at a time in the leader.  Enters parallel mode, which
 * sb_pool_finish() (or the error's abort) leaves.
 */
SbGroupPool *
sb_pool_start(int nworkers)
{
	SbGroupPool *pool;
	ParallelContext *pcxt;
	SbParallelShared *shared;
	char	   *queues;
	int			i;

	if (!sb_server_preloaded || nworkers < 1 || IsInParallelMode())
		return NULL;
	EnterParallelMode();
	pcxt = CreateParallelContext("pysandbox", "sb_group_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(SbParallelShared));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(SB_PARALLEL_QUEUE_SIZE, 2 * nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 2);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no dynamic shared memory: no workers */
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return NULL;
	}
	shared = shm_toc_allocate(pcxt->toc, sizeof(SbParallelShared));
	shared->nworkers = nworkers;
	shared->queue_size = SB_PARALLEL_QUEUE_SIZE;
	shm_toc_insert(pcxt->toc, SB_PARALLEL_KEY_SHARED, shared);
	queues = shm_toc_allocate(pcxt->toc, mul_size(SB_PARALLEL_QUEUE_SIZE, 2 * nworkers));
	shm_toc_insert(pcxt->toc, SB_PARALLEL_KEY_QUEUES, queues);

	pool = palloc0(sizeof(SbGroupPool));
	pool->pcxt = pcxt;
	pool->nqueues = nworkers;
	pool->to = palloc0(sizeof(shm_mq_handle *) * nworkers);
	pool->from = palloc0(sizeof(shm_mq_handle *) * nworkers);
	pool->busy = palloc0(sizeof(bool) * nworkers);
	for (i = 0; i < nworkers; i++)
	{
		shm_mq	   *to = shm_mq_create(sb_queue(queues, i, 0, SB_PARALLEL_QUEUE_SIZE),
									   SB_PARALLEL_QUEUE_SIZE);
		shm_mq	   *from = shm_mq_create(sb_queue(queues, i, 1, SB_PARALLEL_QUEUE_SIZE),
										 SB_PARALLEL_QUEUE_SIZE);

		shm_mq_set_sender(to, MyProc);
		shm_mq_set_receiver(from, MyProc);
		pool->to[i] = shm_mq_attach(to, pcxt->seg, NULL);
		pool->from[i] = shm_mq_attach(from, pcxt->seg, NULL);
	}
	LaunchParallelWorkers(pcxt);
	pool->nworkers = pcxt->nworkers_launched;
	if (pool->nworkers == 0)
	{
		sb_pool_finish(pool);
		return NULL;
	}
	/* a worker that dies before it attaches shows as a detached queue */
	for (i = 0; i < pool->nworkers; i++)
	{
		shm_mq_set_handle(pool->to[i], pcxt->worker[i].bgwhandle);
		shm_mq_set_handle(pool->from[i], pcxt->worker[i].bgwhandle);
	}
	return pool;
}

int
sb_pool_size(SbGroupPool *pool)
{
	return pool->nworkers;
}

/* An idle worker, or -1. */
int
sb_pool_idle(SbGroupPool *pool)
{
	int			i;

	for (i = 0; i < pool->nworkers; i++)
		if (!pool->busy[i])
			return i;
	return -1;
}

static void
sb_pool_lost(void)
{
	/* a worker that failed said why: its error comes first */
	CHECK_FOR_INTERRUPTS();
	ereport(ERROR,
			(errcode(ERRCODE_SYSTEM_ERROR),
			 errmsg("a parallel worker running groups of options.group_by ended unexpectedly"),
			 errhint("The server log may say why; without options.parallel the groups run one at a time.")));
}

/* Does a group's request fit through a queue (one message)? */
bool
sb_pool_fits(const SbRequest *g)
{
	Size		total = sizeof(SbTaskHeader) + (g->code ? strlen(g->code) : 0) + 1024;
	ListCell   *lc;

	foreach(lc, g->chunks)
		total += ((SbChunk *) lfirst(lc))->len;
	return total <= SB_PARALLEL_MAX_MESSAGE;
}

/*
 * One message to worker i: iov's n parts, then the chunks (iov has room for
 * them); frees iov.
 */
static void
sb_pool_sendv(SbGroupPool *pool, int i, shm_mq_iovec *iov, int n, List *chunks)
{
	ListCell   *lc;

	foreach(lc, chunks)
	{
		SbChunk    *c = (SbChunk *) lfirst(lc);

		if (c->len == 0)
			continue;
		iov[n].data = c->data;
		iov[n++].len = c->len;
	}
	if (shm_mq_sendv(pool->to[i], iov, n, false, true) != SHM_MQ_SUCCESS)
		sb_pool_lost();
	pfree(iov);
}

/* Hand a task (a group's request, or a partition's first frames) to worker i. */
static void
sb_pool_send_task(SbGroupPool *pool, int i, uint32 magic, const SbRequest *g,
				  const SbLimits *lim, const char *described, const char *input)
{
	SbTaskHeader h;
	shm_mq_iovec *iov;
	int			n = 0;
	ListCell   *lc;

	memset(&h, 0, sizeof(h));
	h.magic = magic;
	h.rows_mode = g->rows_mode;
	h.python_layer = g->python_layer;
	h.partitioned = g->partitioned;
	h.rows_ncols = g->rows_ncols;
	h.timeout_ms = lim->timeout_ms;
	h.cpu_ms = lim->cpu_ms;
	h.memory_mb = lim->memory_mb;
	h.max_output_bytes = lim->max_output_bytes;
	h.code_len = g->code ? strlen(g->code) : 0;
	h.described_len = strlen(described);
	h.input_len = strlen(input);
	foreach(lc, g->chunks)
		h.request_len += ((SbChunk *) lfirst(lc))->len;

	iov = palloc(sizeof(shm_mq_iovec) * (list_length(g->chunks) + 4));
	iov[n].data = (const char *) &h;
	iov[n++].len = sizeof(h);
	if (h.code_len > 0)
	{
		iov[n].data = g->code;
		iov[n++].len = h.code_len;
	}
	iov[n].data = described;
	iov[n++].len = h.described_len;
	iov[n].data = input;
	iov[n++].len = h.input_len;
	sb_pool_sendv(pool, i, iov, n, g->chunks);
	pool->busy[i] = true;
}

/* Hand a group's request (its frames) to worker i. */
void
sb_pool_send(SbGroupPool *pool, int i, const SbRequest *g, const SbLimits *lim,
			 const char *described, const char *input)
{
	sb_pool_send_task(pool, i, SB_TASK_MAGIC, g, lim, described, input);
}

/*
 * Start worker i's partition (sb_groups.c): a call whose first frames are
 * g's (its REQUEST and the table's header) and whose row groups follow as
 * pieces (sb_pool_send_piece), the last one with the table's last row
 * group and END.  Its outcome comes back as a group's does.
 */
void
sb_pool_send_load(SbGroupPool *pool, int i, const SbRequest *g, const SbLimits *lim,
				  const char *described, const char *input)
{
	sb_pool_send_task(pool, i, SB_LOAD_MAGIC, g, lim, described, input);
}

typedef struct SbPieceHeader
{
	uint32		magic;
	bool		last;			/* the partition's last frames */
} SbPieceHeader;

/* The next frames of worker i's partition. */
void
sb_pool_send_piece(SbGroupPool *pool, int i, List *chunks, bool last)
{
	SbPieceHeader h;
	shm_mq_iovec *iov;
	int			n = 0;

	memset(&h, 0, sizeof(h));
	h.magic = SB_PIECE_MAGIC;
	h.last = last;
	iov = palloc(sizeof(shm_mq_iovec) * (list_length(chunks) + 1));
	iov[n].data = (const char *) &h;
	iov[n++].len = sizeof(h);
	sb_pool_sendv(pool, i, iov, n, chunks);
}

/* Is worker i running a task? */
bool
sb_pool_busy(SbGroupPool *pool, int i)
{
	return pool->busy[i];
}

/* take n bytes of a message, or fail */
static const char *
sb_take(const char **p, const char *end, Size n)
{
	const char *at = *p;

	if ((Size) (end - at) < n)
		elog(ERROR, "pysandbox: a parallel worker's message is too short");
	*p = at + n;
	return at;
}

static char *
sb_take_copy(const char **p, const char *end, Size n)
{
	const char *at = sb_take(p, end, n);
	char	   *copy = palloc(n + 1);

	memcpy(copy, at, n);
	copy[n] = '\0';
	return copy;
}

/* Wait for worker i's outcome (in CurrentMemoryContext). */
void
sb_pool_receive(SbGroupPool *pool, int i, SbOutcome *out)
{
	(void) sb_pool_receive_now(pool, i, out, true);
}

/*
 * Worker i's outcome (in CurrentMemoryContext), if it has sent it (wait:
 * wait for it); false if not yet.
 */
bool
sb_pool_receive_now(SbGroupPool *pool, int i, SbOutcome *out, bool wait)
{
	Size		len;
	void	   *data;
	SbDoneHeader h;
	const char *p;
	const char *end;
	int			c;
	shm_mq_result r = shm_mq_receive(pool->from[i], &len, &data, !wait);

	if (r == SHM_MQ_WOULD_BLOCK && !wait)
		return false;
	if (r != SHM_MQ_SUCCESS)
		sb_pool_lost();
	pool->busy[i] = false;
	p = data;
	end = p + len;
	memcpy(&h, sb_take(&p, end, sizeof(h)), sizeof(h));
	if (h.magic != SB_DONE_MAGIC)
		elog(ERROR, "pysandbox: a parallel worker sent a message of the wrong kind");

	memset(out, 0, sizeof(*out));
	if (h.has_result)
	{
		out->result = sb_take_copy(&p, end, h.result_len);
		out->result_len = h.result_len;
	}
	if (h.has_error)
	{
		out->error = sb_take_copy(&p, end, h.error_len);
		out->error_len = h.error_len;
	}
	if (h.has_rows_header)
	{
		if (h.rows_header_len != sizeof(uint64))
			elog(ERROR, "pysandbox: a parallel worker sent a rows header of %zu bytes",
				 h.rows_header_len);
		out->rows_header = sb_take_copy(&p, end, h.rows_header_len);
	}
	if (h.ncolumns < 0)
		elog(ERROR, "pysandbox: a parallel worker sent %d columns", h.ncolumns);
	for (c = 0; c < h.ncolumns; c++)
	{
		Size		clen;
		SbChunk    *chunk = palloc(sizeof(SbChunk));

		memcpy(&clen, sb_take(&p, end, sizeof(Size)), sizeof(Size));
		chunk->data = sb_take_copy(&p, end, clen);
		chunk->len = clen;
		out->rows_columns = lappend(out->rows_columns, chunk);
	}
	if (p != end)
		elog(ERROR, "pysandbox: a parallel worker's message is longer than its parts");
	out->violation = h.violation;
	out->violation_info = h.violation_info;
	out->output_exceeded = h.output_exceeded;
	out->protocol_error = h.protocol_error;
	out->cut = h.cut;
	out->worker_lost = h.worker_lost;
	out->preloaded = h.preloaded;
	out->complete = h.complete;
	out->detached = h.detached;
	out->partition_lost = h.partition_lost;
	out->exit = h.exit;
	out->call_cpu_us = h.call_cpu_us;
	/* an uncaught SQLError keeps the code its query was answered with */
	out->n_sql_errcodes = Min(Max(h.n_sql_errcodes, 0), SB_SQL_ERRCODES);
	memcpy(out->sql_errcodes, h.sql_errcodes, sizeof(out->sql_errcodes));
	return true;
}

/* Let the workers go (they end when their queue is closed) and leave parallel mode. */
void
sb_pool_finish(SbGroupPool *pool)
{
	int			i;

	for (i = 0; i < pool->nqueues; i++)
	{
		if (pool->to[i] != NULL)
			shm_mq_detach(pool->to[i]);
		pool->to[i] = NULL;
	}
	WaitForParallelWorkersToFinish(pool->pcxt);
	for (i = 0; i < pool->nqueues; i++)
	{
		if (pool->from[i] != NULL)
			shm_mq_detach(pool->from[i]);
		pool->from[i] = NULL;
	}
	DestroyParallelContext(pool->pcxt);
	pool->pcxt = NULL;
	ExitParallelMode();
}

/* the group a worker runs, in its messages' context */
typedef struct SbWorkerGroup
{
	const char *described;
	const char *input;
} SbWorkerGroup;

/*
 * A partition's call (SB_LOAD_MAGIC) asks for its next frames: the
 * leader's next piece.  The message stays valid until the next receive,
 * which comes only once all of it is sent (sb_call_run).
 */
static List *
sb_worker_pull(SbRequest *req)
{
	shm_mq_handle *in = (shm_mq_handle *) req->pull_arg;
	Size		len;
	void	   *data;
	SbPieceHeader h;
	const char *p;
	const char *end;
	SbChunk    *chunk;

	if (shm_mq_receive(in, &len, &data, false) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("the leader of a parallel per-group run ended while sending its rows")));
	p = data;
	end = p + len;
	memcpy(&h, sb_take(&p, end, sizeof(h)), sizeof(h));
	if (h.magic != SB_PIECE_MAGIC)
		elog(ERROR, "pysandbox: the leader sent a message of the wrong kind");
	req->pull_ended = h.last;
	if (p == end)
		return NIL;
	chunk = palloc(sizeof(SbChunk));
	chunk->data = p;
	chunk->len = end - p;
	return list_make1(chunk);
}

/*
 * Read (and drop) the leader's next piece for a partition whose call has
 * ended; false when there is none now (nowait) or the leader is gone.
 */
static bool
sb_worker_drain(shm_mq_handle *in, SbRequest *g, bool nowait)
{
	Size		len;
	void	   *data;
	SbPieceHeader h;

	if (shm_mq_receive(in, &len, &data, nowait) != SHM_MQ_SUCCESS || len < sizeof(h))
		return false;
	memcpy(&h, data, sizeof(h));
	if (h.magic != SB_PIECE_MAGIC)
		elog(ERROR, "pysandbox: the leader sent a message of the wrong kind");
	g->pull_ended = h.last;
	return true;
}

/* Send the outcome (iov[2]) while dropping the pieces that still come. */
static bool
sb_worker_send_draining(shm_mq_handle *in, shm_mq_handle *out, shm_mq_iovec *iov,
						SbRequest *g)
{
	for (;;)
	{
		shm_mq_result r = shm_mq_sendv(out, iov, 2, true, true);

		if (r == SHM_MQ_SUCCESS)
			return true;
		if (r != SHM_MQ_WOULD_BLOCK)
			return false;
		while (!g->pull_ended && sb_worker_drain(in, g, true))
			;
		/* either queue moving sets this process's latch */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

static void
sb_worker_group_context(void *arg)
{
	SbWorkerGroup *wg = (SbWorkerGroup *) arg;

	if (wg->described != NULL && wg->described[0] != '\0')
		errcontext("group %s of input \"%s\"", wg->described, wg->input);
}

/*
 * A parallel worker: take group requests until the leader closes the
 * queue, run each as a call, send back its outcome.
 */
PGDLLEXPORT void sb_group_worker_main(dsm_segment *seg, shm_toc *toc);

/* this process is a parallel worker of options.parallel (sb_sql_answer) */
bool		sb_in_group_worker = false;

void
sb_group_worker_main(dsm_segment *seg, shm_toc *toc)
{
	SbParallelShared *shared = shm_toc_lookup(toc, SB_PARALLEL_KEY_SHARED, false);
	char	   *queues = shm_toc_lookup(toc, SB_PARALLEL_KEY_QUEUES, false);
	shm_mq	   *inq;
	shm_mq	   *outq;
	shm_mq_handle *in;
	shm_mq_handle *out;
	MemoryContext cxt;
	SbWorkerGroup wg = {NULL, NULL};
	SbGroupChild child = {NULL, 0};
	SbPrints	prints;
	ErrorContextCallback errcb;

	if (ParallelWorkerNumber < 0 || ParallelWorkerNumber >= shared->nworkers)
		elog(ERROR, "pysandbox: parallel worker %d of %d", ParallelWorkerNumber, shared->nworkers);
	sb_in_group_worker = true;
	inq = sb_queue(queues, ParallelWorkerNumber, 0, shared->queue_size);
	outq = sb_queue(queues, ParallelWorkerNumber, 1, shared->queue_size);
	shm_mq_set_receiver(inq, MyProc);
	shm_mq_set_sender(outq, MyProc);
	in = shm_mq_attach(inq, seg, NULL);
	out = shm_mq_attach(outq, seg, NULL);
	cxt = AllocSetContextCreate(TopMemoryContext, "pysandbox parallel group", ALLOCSET_DEFAULT_SIZES);
	errcb.callback = sb_worker_group_context;
	errcb.arg = &wg;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	memset(&prints, 0, sizeof(prints));

	for (;;)
	{
		Size		len;
		void	   *data;
		SbTaskHeader h;
		const char *p;
		const char *end;
		SbRequest	g;
		SbLimits	lim;
		SbOutcome	o;
		SbChunk    *request;
		SbDoneHeader d;
		StringInfoData buf;
		shm_mq_iovec iov[2];
		ListCell   *lc;
		MemoryContext old;

		if (shm_mq_receive(in, &len, &data, false) != SHM_MQ_SUCCESS)
			break;				/* the leader is done */
		old = MemoryContextSwitchTo(cxt);
		p = data;
		end = p + len;
		memcpy(&h, sb_take(&p, end, sizeof(h)), sizeof(h));
		if (h.magic != SB_TASK_MAGIC && h.magic != SB_LOAD_MAGIC)
			elog(ERROR, "pysandbox: the leader sent a message of the wrong kind");

		memset(&g, 0, sizeof(g));
		memset(&lim, 0, sizeof(lim));
		g.prints = &prints;		/* this worker's groups' prints, capped together */
		g.rows_mode = h.rows_mode;
		g.rows_ncols = h.rows_ncols;
		g.python_layer = h.python_layer;
		g.partitioned = h.partitioned;
		g.code = h.code_len > 0 ? sb_take_copy(&p, end, h.code_len) : NULL;
		wg.described = sb_take_copy(&p, end, h.described_len);
		wg.input = sb_take_copy(&p, end, h.input_len);
		request = palloc(sizeof(SbChunk));
		request->len = h.request_len;
		request->data = sb_take(&p, end, h.request_len);
		if (p != end)
			elog(ERROR, "pysandbox: the leader's message is longer than its parts");
		g.chunks = list_make1(request);
		lim.timeout_ms = h.timeout_ms;
		lim.cpu_ms = h.cpu_ms;
		lim.memory_mb = h.memory_mb;
		lim.max_output_bytes = h.max_output_bytes;
		lim.parallel = 1;

		if (h.magic == SB_LOAD_MAGIC)
		{
			/* a partition: its rows follow while the call runs */
			g.pull = sb_worker_pull;
			g.pull_arg = in;
			g.partitioned = false;
		}
		sb_group_call(&child, &g, &lim, &o);

		memset(&d, 0, sizeof(d));
		d.magic = SB_DONE_MAGIC;
		d.has_result = o.result != NULL;
		d.result_len = o.result_len;
		d.has_error = o.error != NULL;
		d.error_len = o.error_len;
		d.has_rows_header = o.rows_header != NULL;
		d.rows_header_len = o.rows_header ? sizeof(uint64) : 0;
		d.ncolumns = list_length(o.rows_columns);
		d.violation = o.violation;
		d.violation_info = o.violation_info;
		d.output_exceeded = o.output_exceeded;
		d.protocol_error = o.protocol_error;
		d.cut = o.cut;
		d.worker_lost = o.worker_lost;
		d.preloaded = o.preloaded;
		d.complete = o.complete;
		d.detached = o.detached;
		d.partition_lost = o.partition_lost;
		d.exit = o.exit;
		d.call_cpu_us = o.call_cpu_us;
		d.n_sql_errcodes = o.n_sql_errcodes;
		memcpy(d.sql_errcodes, o.sql_errcodes, sizeof(d.sql_errcodes));

		initStringInfo(&buf);
		if (d.has_result)
			appendBinaryStringInfo(&buf, o.result, o.result_len);
		if (d.has_error)
			appendBinaryStringInfo(&buf, o.error, o.error_len);
		if (d.has_rows_header)
			appendBinaryStringInfo(&buf, o.rows_header, sizeof(uint64));
		foreach(lc, o.rows_columns)
		{
			SbChunk    *c = (SbChunk *) lfirst(lc);
			Size		clen = c->len;

			appendBinaryStringInfo(&buf, (const char *) &clen, sizeof(Size));
			appendBinaryStringInfo(&buf, c->data, c->len);
		}
		iov[0].data = (const char *) &d;
		iov[0].len = sizeof(d);
		iov[1].data = buf.data;
		iov[1].len = buf.len;
		/*
		 * A partition's call that ended before its last rows (its child
		 * failed): the leader, told so first, stops reading the input, and
		 * the rows it sent meanwhile go unread, until the last or until it
		 * lets the workers go.  The outcome goes out while they are read:
		 * the leader may be waiting to send a piece into a full queue, and
		 * an outcome larger than this one's queue (the child's error) would
		 * otherwise wait for the leader, which waits for this worker.
		 */
		if (g.pull != NULL && !g.pull_ended)
		{
			if (!sb_worker_send_draining(in, out, iov, &g))
				break;			/* the leader is gone */
			while (!g.pull_ended && sb_worker_drain(in, &g, false))
				;
		}
		else if (shm_mq_sendv(out, iov, 2, false, true) != SHM_MQ_SUCCESS)
			break;				/* the leader is gone */
		MemoryContextSwitchTo(old);
		wg.described = wg.input = NULL;
		MemoryContextReset(cxt);
	}
	error_context_stack = errcb.previous;
	sb_prints_report(&prints);
	sb_group_child_drop(&child);
	shm_mq_detach(in);
	shm_mq_detach(out);
}
