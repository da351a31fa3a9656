/*
 * sb_call.c
 *		One sandbox call: send the request, relay output, collect the outcome.
 *
 * The child is hostile.  Every frame it sends is checked before its payload
 * is read: the type must be one the child may send, the length must fit the
 * output budget (or the fixed size of its type), and RESULT/ERROR may come
 * only once.  Anything else ends the child.
 *
 * The backend waits only on its latch and the data socket, and reads at
 * most SB_ROUND_FRAMES frames or SB_ROUND_BYTES bytes between two checks
 * of its interrupts and its deadline, so cancel, statement_timeout and
 * termination are seen at once however fast the child writes; the error
 * path then runs the memory context callback below, which kills and reaps
 * the child.  The child's socket reaches EOF only when the child is dead
 * or has closed it (the worker holds no copy), after which the worker's
 * exit report is read; the worker enforces the child's limits whatever
 * the backend does.
 */
#include "pysandbox.h"

#include <limits.h>

#include <sys/socket.h>
#include <sys/uio.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include <math.h>

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "utils/memutils.h"

/* extra time the backend gives the worker to enforce the deadline itself */
#define SB_DEADLINE_GRACE_MS	2000

/*
 * At most this many frames, bytes or reads from the child between two
 * checks of interrupts and the deadline: a child writing empty frames, or
 * one byte at a time, as fast as it can must not keep the backend from
 * noticing a cancel.
 */
#define SB_ROUND_FRAMES		256
#define SB_ROUND_BYTES		((size_t) 4 << 20)
#define SB_ROUND_READS		1024

/*
 * At most this many print() calls of one call become NOTICEs; the rest are
 * counted, and one NOTICE says how many were not shown.
 */
#define SB_MAX_NOTICES		10000

/* at most this much of the request, in this many pieces, per sendmsg() */
#define SB_SEND_MAX		((size_t) 1 << 20)
#define SB_SEND_IOV		64

/*
 * How long a call on a reservation polls for its answer before it sleeps.
 * Reservations are made when the worker has time to spare, so such a call
 * comes to an idle machine; on a virtual machine an idle CPU woken for the
 * child's result takes a tenth of a millisecond and more, and the child,
 * woken on the CPU the backend leaves, runs cold.  Polling (yielding the
 * CPU each round to whatever else wants it) keeps this CPU awake for the
 * answer and the child on the other: a paced trivial call took ~0.2 ms
 * less here.
 */
#define SB_POLL_US		1000
#define SB_POLL_NO_YIELD_US	30

/*
 * A whole result whose end of output comes this long after its last byte
 * waits for the child's exit report: it may have run into a limit with its
 * socket still open.  An honest child closes it within its last send.
 */
#define SB_RESULT_END_LAG_MS	50

/* a call's whole result has come: its RESULT, or its ROWS and every COLUMN */
#define SB_RESULT_WHOLE(out, req) \
	((out)->result != NULL || \
	 ((out)->rows_header != NULL && list_length((out)->rows_columns) == (req)->rows_ncols))

typedef struct SbCallState
{
	SbSandbox  *sb;
	MemoryContextCallback cb;
} SbCallState;

/* Memory context callback: however the call ends, the child is reaped. */
static void
sb_call_cleanup(void *arg)
{
	SbCallState *st = (SbCallState *) arg;

	if (st->sb && st->sb->in_use)
		sb_sandbox_release(st->sb);
	st->sb = NULL;
}

/* Incoming-frame state: a header being read, then its payload. */
typedef struct SbReader
{
	unsigned char hdr[SB_FRAME_HEADER_SIZE];
	size_t		hdr_got;
	uint32		type;
	uint32		len;
	char	   *payload;		/* NULL while reading a header */
	size_t		got;
	SbDecoder	dec;			/* what may come next, and the output budget */
	MemoryContext keep;			/* where RESULT, ERROR and row payloads go */
	bool		capture;		/* keep STDOUT/STDERR text instead of NOTICEs */
	SbPrints	own;			/* this call's prints ... */
	SbPrints   *prints;			/* ... or the group_by call's (req->prints) */
	bool		bad;			/* the child broke the protocol */
	bool		cut;			/* the output ended in the middle of a frame */
	bool		any;			/* the child sent at least one byte */
	int32		pid;			/* the child, for its usage */
	uint64		peak_kb;		/* its peak memory when its output began */
	char	   *sql;			/* an sql() request to answer, or NULL */
	Size		sql_len;
	bool		hold;			/* the child is kept: its result ends the call */
	bool		workspace;		/* ... and so does an error (a workspace) */
	char	   *buf;			/* bytes received and not yet taken */
	size_t		buf_pos;
	size_t		buf_len;
} SbReader;

/*
 * Say how many prints were not relayed, if any: once per call, or once for
 * all groups of a group_by call (its SbPrints).
 */
void
sb_prints_report(const SbPrints *p)
{
	if (p->not_shown > 0)
		ereport(NOTICE,
				(errmsg("%llu more lines of print() output were not shown",
						(unsigned long long) p->not_shown),
				 errdetail("A call relays at most %d print() calls and %d bytes of them as notices (pysandbox.max_print_bytes); with group_by, all groups together.",
						   SB_MAX_NOTICES, sb_max_print_bytes),
				 errhint("Print less, or call sandbox_run, which returns the printed output.")));
}

/*
 * Small frames are received SB_READ_BUF bytes at a time and taken from
 * there: a function called per row answers with three frames in one write,
 * and a system call each costs microseconds on a virtual machine.  A larger
 * payload is received straight into its buffer.
 */
#define SB_READ_BUF		8192

/*
 * A complete frame has arrived: act on it.  Returns false if the child must
 * be stopped (protocol violation or output limit).
 */
static bool
sb_frame_done(SbReader *rd, SbOutcome *out)
{
	switch (rd->type)
	{
		case SB_DATA_STDOUT:
		case SB_DATA_STDERR:
			/* whole prints only, within their own cap (they cost the budget too) */
			if (rd->len == 0 || (!rd->capture && sb_print_mode != SB_PRINT_NOTICE))
				;
			else if (rd->prints->kept_bytes + rd->len > (uint64) sb_max_print_bytes ||
					 (!rd->capture && rd->prints->notices >= SB_MAX_NOTICES))
			{
				rd->prints->not_shown++;
				rd->prints->not_shown_bytes += rd->len;
			}
			else if (rd->capture)
			{
				/* sandbox_run: keep the text (valid UTF-8 only) for the report */
				StringInfo	buf = rd->type == SB_DATA_STDOUT ? out->stdout_text : out->stderr_text;

				if (sb_text_ok(rd->payload, rd->len))
					appendBinaryStringInfo(buf, rd->payload, rd->len);
				rd->prints->kept_bytes += rd->len;
			}
			else
			{
				rd->prints->notices++;
				rd->prints->kept_bytes += rd->len;
				sb_emit_print(rd->payload, rd->len);
			}
			pfree(rd->payload);
			break;
		case SB_DATA_RESULT:
			out->result = rd->payload;
			out->result_len = rd->len;
			break;
		case SB_DATA_ERROR:
			out->error = rd->payload;
			out->error_len = rd->len;
			break;
		case SB_DATA_ROWS:
			out->rows_header = rd->payload;
			break;
		case SB_DATA_COLUMN:
			{
				MemoryContext old = MemoryContextSwitchTo(rd->keep);
				SbChunk    *c = palloc(sizeof(SbChunk));

				c->data = rd->payload;
				c->len = rd->len;
				out->rows_columns = lappend(out->rows_columns, c);
				MemoryContextSwitchTo(old);
				break;
			}
		case SB_DATA_LAST:
			/* a kept child says its result is its last: the call ends with it */
			rd->hold = false;
			pfree(rd->payload);
			break;
		case SB_DATA_SQL:
			/* answered by the call's loop (the decoder allows one at a time) */
			rd->sql = rd->payload;
			rd->sql_len = rd->len;
			break;
		case SB_DATA_WHERE:
			{
				SbWhere		w;

				/*
				 * a claim of the child's: a line, and a name that is
				 * terminated and made of [A-Za-z0-9_.<>] or none
				 */
				memcpy(&w, rd->payload, sizeof(SbWhere));
				if (w.line > 0 && w.line <= 1000000)
				{
					const char *p;

					out->where_line = w.line;
					if (memchr(w.function, '\0', sizeof(w.function)) == NULL)
						w.function[0] = '\0';
					for (p = w.function; *p; p++)
						if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
							  (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
							  *p == '<' || *p == '>'))
							break;
					if (*p == '\0')
						strlcpy(out->where_function, w.function, sizeof(out->where_function));
				}
				pfree(rd->payload);
				break;
			}
		case SB_DATA_VIOLATION:
			memcpy(&out->violation_info, rd->payload, sizeof(SbViolation));
			out->violation_info.name[sizeof(out->violation_info.name) - 1] = '\0';
			out->violation = true;
			pfree(rd->payload);
			break;
	}
	rd->payload = NULL;
	rd->hdr_got = 0;
	return true;
}

/* A header has arrived: check it (sb_decode.c) before reading anything more. */
static bool
sb_header_done(SbReader *rd, SbOutcome *out, const SbLimits *limits)
{
	sb_frame_header_decode(rd->hdr, &rd->type, &rd->len);
	switch (sb_decode_header(&rd->dec, rd->type, rd->len))
	{
		case SB_DEC_OK:
			break;
		case SB_DEC_OUTPUT:
			out->output_exceeded = true;
			return false;
		default:
			rd->bad = true;
			return false;
	}
	/* +1 for a terminating NUL, so texts can be used as C strings */
	if (rd->type == SB_DATA_STDOUT || rd->type == SB_DATA_STDERR ||
		rd->type == SB_DATA_VIOLATION || rd->type == SB_DATA_SQL ||
		rd->type == SB_DATA_LAST || rd->type == SB_DATA_WHERE)
		rd->payload = MemoryContextAllocHuge(CurrentMemoryContext, (Size) rd->len + 1);
	else
		rd->payload = sb_alloc_large(rd->keep, (Size) rd->len + 1);
	rd->payload[rd->len] = '\0';
	rd->got = 0;
	if (rd->len == 0)
		return sb_frame_done(rd, out);
	return true;
}

/* what sb_read_available() found */
typedef enum SbReadState
{
	SB_READ_DRAINED,			/* nothing more to read for now */
	SB_READ_MORE,				/* stopped at the round's cap: more is there */
	SB_READ_STOP				/* EOF (*eof), or the child must be stopped */
} SbReadState;

/*
 * Read what is available on the data socket, at most SB_ROUND_FRAMES frames
 * and SB_ROUND_BYTES bytes in SB_ROUND_READS reads: the caller checks
 * interrupts and the deadline between rounds.
 */
static SbReadState
sb_read_available(int fd, SbReader *rd, SbOutcome *out, const SbLimits *limits, bool *eof)
{
	int			frames = 0;
	int			reads = 0;
	size_t		bytes = 0;

	/* a child writing a byte at a time meets the cap on reads */
	while (frames < SB_ROUND_FRAMES && bytes < SB_ROUND_BYTES && reads < SB_ROUND_READS)
	{
		size_t		take;

		if (rd->buf_pos == rd->buf_len)
		{
			bool		direct = rd->payload != NULL && rd->len - rd->got >= SB_READ_BUF;
			ssize_t		n;

			reads++;
			if (direct)
				n = recv(fd, rd->payload + rd->got, Min((size_t) rd->len - rd->got, (size_t) 1 << 20),
						 MSG_DONTWAIT);
			else
				n = recv(fd, rd->buf, SB_READ_BUF, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
				return SB_READ_DRAINED;
			if (n <= 0)
			{
				/* the end (ECONNRESET: the child is gone), perhaps mid-frame */
				*eof = true;
				rd->cut = rd->payload != NULL || rd->hdr_got != 0;
				return SB_READ_STOP;
			}
			/* the child is alive at least until it has written: its peak now */
			if (!rd->any && rd->pid > 0)
				rd->peak_kb = sb_child_peak_kb(rd->pid);
			rd->any = true;
			bytes += (size_t) n;
			if (direct)
			{
				rd->got += n;
				if (rd->got == rd->len && !sb_frame_done(rd, out))
					return SB_READ_STOP;
			}
			else
			{
				rd->buf_pos = 0;
				rd->buf_len = (size_t) n;
			}
		}

		if (rd->buf_pos == rd->buf_len)
			;					/* received straight into a payload */
		else if (rd->payload == NULL)
		{
			take = Min(rd->buf_len - rd->buf_pos, SB_FRAME_HEADER_SIZE - rd->hdr_got);
			memcpy(rd->hdr + rd->hdr_got, rd->buf + rd->buf_pos, take);
			rd->buf_pos += take;
			rd->hdr_got += take;
			if (rd->hdr_got == SB_FRAME_HEADER_SIZE)
			{
				frames++;
				if (!sb_header_done(rd, out, limits))
					return SB_READ_STOP;
			}
		}
		else
		{
			take = Min(rd->buf_len - rd->buf_pos, (size_t) rd->len - rd->got);
			memcpy(rd->payload + rd->got, rd->buf + rd->buf_pos, take);
			rd->buf_pos += take;
			rd->got += take;
			if (rd->got == rd->len && !sb_frame_done(rd, out))
				return SB_READ_STOP;
		}
		/*
		 * Nothing after a kept child's result belongs to this call: bytes
		 * received with it (rd->buf_pos < rd->buf_len) fail the next call,
		 * as bytes waiting in the socket then do (sb_sandbox_held_ready).
		 */
		if (rd->hold && rd->payload == NULL && rd->hdr_got == 0 &&
			(out->result != NULL || (rd->workspace && out->error != NULL) ||
			 (out->rows_header != NULL && list_length(out->rows_columns) == rd->dec.rows_ncols)))
			return SB_READ_DRAINED;
	}
	return SB_READ_MORE;
}

/*
 * Has a child that is kept for the statement's next calls sent its call's
 * whole result (and nothing that fails the call)?  Only then is the call
 * over without the end of its output.
 */
static bool
sb_held_result(const SbReader *rd, const SbRequest *req, const SbOutcome *out)
{
	if (rd->payload != NULL || rd->hdr_got != 0 || rd->bad || rd->sql != NULL ||
		out->violation || out->output_exceeded)
		return false;
	/* a workspace's call may fail with an exception: its child serves on */
	if (out->error != NULL)
		return rd->workspace;
	return out->result != NULL ||
		(out->rows_header != NULL && list_length(out->rows_columns) == req->rows_ncols);
}

/* what a held call's wait on its mailbox found */
typedef enum SbMailboxOutcome
{
	SB_MB_GOT,					/* the result, copied into the reader */
	SB_MB_USE_SOCKET,			/* the call goes on on the data socket */
	SB_MB_BROKEN				/* the child broke the mailbox's protocol */
} SbMailboxOutcome;

/*
 * Post a held child's call in its mailbox (sb_protocol.h): the request's
 * bytes, then CALL.  Returns false if it must go on the data socket (the
 * child sleeps there, or the request does not fit: then a polling child is
 * told to read the socket, CALL_SOCKET); nothing was posted.
 */
static bool
sb_mailbox_post(volatile SbMailbox *mb, List *chunks)
{
	ListCell   *lc;
	size_t		total = 0;
	uint32		seen;

	foreach(lc, chunks)
		total += ((SbChunk *) lfirst(lc))->len;
	seen = __atomic_load_n(&mb->state, __ATOMIC_ACQUIRE);
	if (seen == SB_MB_IDLE_SLEEP || seen == SB_MB_DONE_SLEEP)
		return false;
	if (total > SB_MAILBOX_REQ_MAX)
	{
		/* (a child going to sleep meanwhile wins: it reads the socket anyway) */
		(void) __atomic_compare_exchange_n(&mb->state, &seen, SB_MB_CALL_SOCKET, false,
										   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		return false;
	}
	total = 0;
	foreach(lc, chunks)
	{
		SbChunk    *c = (SbChunk *) lfirst(lc);

		memcpy((char *) mb->req + total, c->data, c->len);
		total += c->len;
	}
	mb->req_len = (uint32) total;
	/* from what it was (a child going to sleep meanwhile wins) to CALL */
	return __atomic_compare_exchange_n(&mb->state, &seen, SB_MB_CALL, false,
									   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/*
 * Wait for the result of a call posted in the mailbox: spin on its state
 * for up to spin_us (SB_POLL_US: the answer of a function called per row
 * comes within microseconds), then ask the child to answer on the data socket
 * (CALL_SLEEP) and let the caller sleep there.  A result in the mailbox is
 * copied, length checked once, into the reader's buffer, from where it is
 * decoded exactly as bytes from the socket are: the child may change the
 * mailbox at any moment, never the copy.
 */
static SbMailboxOutcome
sb_mailbox_take(volatile SbMailbox *mb, SbReader *rd, long spin_us)
{
	instr_time	start;
	instr_time	now;
	uint32		state;
	uint32		len;
	int			spins = 0;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		state = __atomic_load_n(&mb->state, __ATOMIC_ACQUIRE);
		if (state != SB_MB_CALL)
			break;
		if ((++spins & 15) != 0)
		{
			sb_spin_pause();
			continue;
		}
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		if (InterruptPending || INSTR_TIME_GET_MICROSEC(now) >= spin_us)
		{
			uint32		expected = SB_MB_CALL;

			if (__atomic_compare_exchange_n(&mb->state, &expected, SB_MB_CALL_SLEEP, false,
											__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				return SB_MB_USE_SOCKET;
			/* it changed meanwhile: act on what it became, spin no more */
			state = expected;
			break;
		}
		if (INSTR_TIME_GET_MICROSEC(now) >= SB_POLL_NO_YIELD_US)
			(void) sched_yield();
	}
	/* the result, even if the child has gone to sleep since */
	if (state != SB_MB_DONE && state != SB_MB_DONE_SLEEP)
		return SB_MB_USE_SOCKET;	/* SOCKET, or nonsense: the socket says */
	len = mb->resp_len;			/* read once */
	if (len > SB_MAILBOX_RESP_MAX)
		return SB_MB_BROKEN;
	if (len > SB_READ_BUF)
		rd->buf = palloc(len);
	memcpy(rd->buf, (const char *) mb->resp, len);
	rd->buf_pos = 0;
	rd->buf_len = len;
	rd->any = rd->any || len > 0;
	return SB_MB_GOT;
}

/* Milliseconds elapsed since start. */
static long
sb_ms_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return (long) INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Did the child end at one of its limits, the worker's (wall clock, CPU,
 * memory) or its own CPU timer's (SIGPROF: sb_where.c exits with
 * SB_CHILD_EXIT_LIMIT; RLIMIT_CPU's SIGXCPU, then SIGKILL)?
 */
static bool
sb_ended_at_limit(const SbExitReport *ex)
{
	int			st = ex->wait_status;

	if (ex->cause == SB_EXIT_TIMEOUT || ex->cause == SB_EXIT_CPU ||
		ex->cause == SB_EXIT_MEMORY || ex->cause == SB_EXIT_RESIDENT)
		return true;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == SB_CHILD_EXIT_LIMIT;
	return WIFSIGNALED(st) &&
		(WTERMSIG(st) == SIGPROF || WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL);
}

/*
 * The child is dead or being killed: wait for the worker's report on it
 * (or the news that it was a reservation taken back), until the deadline.
 * Returns false if the worker is lost.
 */
static bool
sb_call_wait_exit(SbSandbox *sb, instr_time start, long deadline)
{
	while (!sb->exited)
	{
		int			fd = sb_sandbox_control_fd();

		if (fd < 0)
			return false;
		if (sb_sandbox_read_exit(sb))
			break;
		if (sb_ms_since(start) > deadline)
		{
			sb_sandbox_abandon_worker();
			return false;
		}
		if (WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_SOCKET_READABLE | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							  fd, 100, PG_WAIT_EXTENSION) & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	return true;
}

/*
 * The usage of a call whose child is not waited for (it is kept, or exits
 * on its own after its result): its CPU time (this call's share, for a
 * held child) and peak memory as the kernel counts them now, read from
 * outside the child (nothing it says of itself is believed).
 */
static void
sb_call_usage(SbSandbox *sb, uint64 cpu_before, uint64 peak_kb, instr_time start,
			  SbOutcome *out)
{
	/* a held child's peak, read again every SB_PEAK_EVERY calls of it */
#define SB_PEAK_EVERY 64
	static int32 peak_pid = 0;
	static uint64 peak_last = 0;
	static uint32 peak_age = 0;
	uint64		cpu = sb_child_cpu_us(sb->pid);
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	out->exit.wall_us = (uint64) INSTR_TIME_GET_MICROSEC(now);
	out->exit.user_us = cpu > cpu_before ? cpu - cpu_before : 0;
	out->exit.sys_us = 0;
	out->call_cpu_us = out->exit.user_us;
	/* a workspace's every call: what an agent watches against its limit (review 111 F6) */
	if (!sb->held || sb->workspace || sb->pid != peak_pid || ++peak_age >= SB_PEAK_EVERY)
	{
		peak_last = sb_child_peak_kb(sb->pid);
		peak_pid = sb->pid;
		peak_age = 0;
	}
	out->exit.maxrss_kb = Max(peak_kb, peak_last);
}

/*
 * Remember the SQLSTATE a sql() query of this call was answered with
 * (sb_sql_answer): an uncaught SQLError may end the call with one of
 * these, never with a code the backend did not give it (sb_result.c).
 */
static void
sb_sql_errcode_answered(SbOutcome *out, int errcode)
{
	if (errcode == 0)
		return;
	for (int i = 0; i < out->n_sql_errcodes; i++)
		if (out->sql_errcodes[i] == errcode)
			return;
	if (out->n_sql_errcodes < SB_SQL_ERRCODES)
		out->sql_errcodes[out->n_sql_errcodes++] = errcode;
}

/*
 * Send what the socket takes of sending, from *next (*sent bytes of it out
 * already), many chunks per system call, and move both past what went out.
 * Returns false when the child stopped reading (its socket is closed).
 */
static bool
sb_send_chunks(int fd, List *sending, ListCell **next, size_t *sent)
{
	while (*next != NULL)
	{
		struct iovec iov[SB_SEND_IOV];
		struct msghdr msg;
		ListCell   *lc = *next;
		size_t		total = 0;
		size_t		off = *sent;
		int			niov = 0;
		ssize_t		n;

		for (; lc != NULL && niov < SB_SEND_IOV && total < SB_SEND_MAX;
			 lc = lnext(sending, lc), off = 0)
		{
			SbChunk    *c = (SbChunk *) lfirst(lc);
			size_t		len = Min(c->len - off, SB_SEND_MAX - total);

			iov[niov].iov_base = (void *) (c->data + off);
			iov[niov].iov_len = len;
			niov++;
			total += len;
		}
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = niov;
		n = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		/* move past what went out */
		while (n > 0 && *next != NULL)
		{
			SbChunk    *c = (SbChunk *) lfirst(*next);
			size_t		step = Min((size_t) n, c->len - *sent);

			*sent += step;
			n -= step;
			if (*sent == c->len)
			{
				*next = lnext(sending, *next);
				*sent = 0;
			}
		}
	}
	return true;
}

/*
 * Send the frames queued on req->chunks to the child answering sql() now,
 * whole, and empty the queue: a streamed answer's row group
 * (sb_sql_stream), sent while the query goes on to the next.  Cancel,
 * termination and sql()'s own timer are raised while it waits for the
 * socket; a child that stopped reading is an error.  Either way a row
 * group may be out in part: req->sql_torn says so, and nothing more can be
 * sent to the child (sb_sql_answer).
 */
void
sb_sql_send_now(SbRequest *req)
{
	List	   *sending = req->chunks;
	ListCell   *next = list_head(sending);
	size_t		sent = 0;

	Assert(req->answering != NULL);
	req->sql_torn = true;
	req->sql_sent = true;		/* its rows count, whatever comes next */
	for (;;)
	{
		int			rc;

		if (!sb_send_chunks(req->answering->data_fd, sending, &next, &sent))
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("the sandbox process stopped reading the answer of sql()")));
		if (next == NULL)
			break;
		rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_SOCKET_WRITEABLE | WL_EXIT_ON_PM_DEATH,
							   req->answering->data_fd, -1, PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
			ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	req->sql_torn = false;
	req->chunks = NIL;
}

/*
 * Run one call: get a child, send it the request, relay its output until it
 * ends, and fill *out.  Errors for interrupts are raised from here; the
 * outcome of the code itself is judged by sb_result.c.
 */
void
sb_call_run(SbRequest *req, const SbLimits *limits, SbOutcome *out)
{
	MemoryContext cxt;
	MemoryContext old;
	SbCallState *st;
	SbSpawnRequest spawn;
	SbReader	rd;
	List	   *sending;		/* the request, or the answer to an sql() */
	MemoryContext sqlcxt = NULL;
	ListCell   *next_chunk;
	size_t		chunk_sent = 0;
	bool		writing = true;
	bool		eof = false;
	bool		held_done = false;
	bool		waited = false; /* for the worker's exit report */
	instr_time	result_at;		/* when the whole result had come */
	bool		spun = false;	/* polled the mailbox already */
	instr_time	start;
	instr_time	poll_start;	/* when this call began to poll, or zero */
	long		deadline = (long) limits->timeout_ms + SB_DEADLINE_GRACE_MS;
	uint64		cpu_before = 0; /* a held child's CPU time before this call */

	/* a query of sql() runs while the child that asked for it waits */
	if (sb_sql_active)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a query run by sql() cannot run pysandbox code"),
				 errhint("Call pysandbox functions outside the queries of sql().")));
	/* ... and so does a streamed input's, its call's child already running */
	if (sb_stream_fetching)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a streamed table input cannot run pysandbox code"),
				 errdetail("Its rows are sent while the call that reads them runs."),
				 errhint("SET pysandbox.stream_threshold = -1 to run such a query before the call, or compute the value in the calling code.")));
	cxt = AllocSetContextCreate(CurrentMemoryContext, "pysandbox call", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	st = palloc0(sizeof(SbCallState));
	st->cb.func = sb_call_cleanup;
	st->cb.arg = st;
	MemoryContextRegisterResetCallback(cxt, &st->cb);

	memset(&spawn, 0, sizeof(spawn));
	spawn.timeout_ms = limits->timeout_ms;
	spawn.cpu_ms = limits->cpu_ms;
	spawn.memory_mb = limits->memory_mb;
	spawn.flags = req->python_layer ? 0 : SB_SPAWN_PYTHON_LAYER_OFF;
	if (req->many_calls)
		spawn.flags |= SB_SPAWN_WORKSPACE;
	else if (req->hold)
		spawn.flags |= SB_SPAWN_HELD;	/* a function's: its next rows may use it */
	spawn.queue_ms = (uint32) sb_queue_timeout_ms;

	memset(out, 0, sizeof(*out));
	memset(&rd, 0, sizeof(rd));
	rd.keep = old;
	sb_decoder_init(&rd.dec, (uint64) limits->max_output_bytes, req->rows_mode, req->rows_ncols);
	rd.capture = req->capture_output;
	/* sandbox_run keeps each call's prints in its report, within its own caps */
	rd.prints = req->prints != NULL && !req->capture_output ? req->prints : &rd.own;
	rd.hold = req->hold;
	rd.workspace = req->workspace != NULL;
	rd.buf = palloc(SB_READ_BUF);
	if (req->capture_output)
	{
		MemoryContext keep = MemoryContextSwitchTo(old);

		out->stdout_text = makeStringInfo();
		out->stderr_text = makeStringInfo();
		MemoryContextSwitchTo(keep);
	}
	if (req->held != NULL)
	{
		/* the statement's next call on its held child: the worker times it */
		st->sb = req->held;
		sb_sandbox_call_begin(st->sb, limits);
	}
	else
		st->sb = sb_sandbox_acquire(&spawn, req->stream == NULL && req->pull == NULL, req->code);
again:
	/* the deadline counts from when the child is ours, after any queueing */
	INSTR_TIME_SET_CURRENT(start);
	/*
	 * a spare's setup, or a held child's earlier calls, are not this call's;
	 * a workspace's time since its last call ended is (sb_held_cpu_baseline)
	 */
	cpu_before = Min(sb_child_cpu_us(st->sb->pid), sb_held_cpu_baseline(st->sb));
	sb_stat_child(st->sb->pid, cpu_before);
	/* a child that may end after its result: its peak when output begins */
	rd.pid = req->held != NULL ? 0 : st->sb->pid;
	INSTR_TIME_SET_ZERO(poll_start);
	INSTR_TIME_SET_ZERO(result_at);
	sending = req->chunks;
	next_chunk = list_head(sending);

	/* a held child's call goes through its mailbox if it can */
	if (req->held != NULL && st->sb->mailbox != NULL &&
		sb_mailbox_post(st->sb->mailbox, req->chunks))
	{
		next_chunk = NULL;
		writing = false;
		spun = true;
		/*
		 * a group's call (group_by: many calls, no workspace) takes
		 * milliseconds: spinning for it would only take a core from the
		 * children running groups at once
		 */
		if (sb_mailbox_take(st->sb->mailbox, &rd,
							req->many_calls && req->workspace == NULL ? 0 : SB_POLL_US) ==
			SB_MB_BROKEN)
		{
			rd.bad = true;
			sb_sandbox_kill(st->sb);
			goto loop_done;
		}
	}

	while (!eof)
	{
		int			events = WL_LATCH_SET | WL_SOCKET_READABLE | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH;
		SbReadState rs;
		long		left;
		int			rc;

		/* however the child writes, cancel and termination come first */
		CHECK_FOR_INTERRUPTS();

		/* a streamed input's next row group, once the previous one is out */
		if (writing && next_chunk == NULL && !sb_stream_over(req))
		{
			sending = sb_stream_next(req);
			next_chunk = list_head(sending);
			chunk_sent = 0;
		}

		/*
		 * Send as much of the request as the socket takes, many chunks per
		 * system call: a small request then wakes the child once, with all
		 * of it, instead of once per frame header and payload.
		 */
		if (writing && next_chunk != NULL &&
			!sb_send_chunks(st->sb->data_fd, sending, &next_chunk, &chunk_sent))
			writing = false;	/* the child stopped reading: it will say why */
		if (next_chunk == NULL && sb_stream_over(req))
			writing = false;

		rs = sb_read_available(st->sb->data_fd, &rd, out, limits, &eof);
		if (INSTR_TIME_IS_ZERO(result_at) && SB_RESULT_WHOLE(out, req))
			INSTR_TIME_SET_CURRENT(result_at);
		if (rs == SB_READ_STOP)
		{
			/* protocol violation or output limit: stop the child now */
			if (!eof)
				sb_sandbox_kill(st->sb);
			break;
		}
		/*
		 * a child kept for the next calls does not end: its result does,
		 * once the whole request is out (a workspace's child that ran out
		 * of memory reading its inputs says so and reads the rest of them
		 * to their END, then waits for the next call: review 134 F6)
		 */
		if (rd.hold && sb_held_result(&rd, req, out) && next_chunk == NULL &&
			sb_stream_over(req))
		{
			held_done = true;
			break;
		}

		/*
		 * sql() in the child: answer once all that went before is sent (an
		 * honest child asks only after reading the whole request).  The
		 * previous answer is out, so its memory can go.  The query's time
		 * does not count against the worker's health: the worker still
		 * times the child's wall clock.
		 */
		if (rd.sql != NULL && next_chunk == NULL && writing == false)
		{
			MemoryContext prev;
			instr_time	asked;
			int			answered;

			INSTR_TIME_SET_CURRENT(asked);
			if (sqlcxt != NULL)
				MemoryContextDelete(sqlcxt);
			sqlcxt = AllocSetContextCreate(cxt, "pysandbox sql()", ALLOCSET_DEFAULT_SIZES);
			prev = MemoryContextSwitchTo(sqlcxt);
			/* a large answer's row groups go as the query runs (sb_sql_send_now) */
			req->answering = st->sb;
			PG_TRY();
			{
				sending = sb_sql_answer(req, rd.sql, rd.sql_len,
										(long) limits->timeout_ms - sb_ms_since(start),
										&answered);
			}
			PG_FINALLY();
			{
				req->answering = NULL;
			}
			PG_END_TRY();
			sb_sql_errcode_answered(out, answered);
			MemoryContextSwitchTo(prev);
			pfree(rd.sql);
			rd.sql = NULL;
			sb_decoder_sql_answered(&rd.dec);
			deadline += sb_ms_since(asked);
			next_chunk = list_head(sending);
			chunk_sent = 0;
			writing = next_chunk != NULL;
			continue;
		}

		left = deadline - sb_ms_since(start);
		if (left <= 0)
		{
			/* the worker did not enforce the deadline: it is stuck */
			sb_sandbox_abandon_worker();
			st->sb->exited = true;
			out->worker_lost = true;
			break;
		}
		if (rs == SB_READ_MORE)
			continue;			/* more is waiting: no need to sleep */
		if (writing)
			events |= WL_SOCKET_WRITEABLE;
		else if ((st->sb->from_reservation || st->sb->held) && !InterruptPending && !spun)
		{
			instr_time	polled;

			INSTR_TIME_SET_CURRENT(polled);
			if (INSTR_TIME_IS_ZERO(poll_start))
				poll_start = polled;
			INSTR_TIME_SUBTRACT(polled, poll_start);
			if (INSTR_TIME_GET_MICROSEC(polled) < SB_POLL_US)
			{
				/* a held child's answer usually comes within microseconds */
				if (!st->sb->held || INSTR_TIME_GET_MICROSEC(polled) >= SB_POLL_NO_YIELD_US)
					(void) sched_yield();
				continue;
			}
		}
		rc = WaitLatchOrSocket(MyLatch, events, st->sb->data_fd, left, PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
loop_done:
	/* a timeout while inputs were still arriving: say which (sb_result.c) */
	if (!sb_stream_over(req))
		out->streaming = sb_stream_current(req);

	/*
	 * A reservation that ends before it sent anything may have been taken
	 * back by the worker before the call began (then nothing of it ran):
	 * the worker says which, and such a call starts again with a fresh
	 * child.  Only a reservation can be taken back, so this happens once.
	 */
	/* a held child that ends with its result (sb_runtime._serve_held) is kept
	 * all the same: its next call finds it gone and takes a fresh one */
	if (!held_done && rd.hold && eof && next_chunk == NULL && sb_held_result(&rd, req, out))
		held_done = true;
	if (held_done)
	{
		/* the child waits for the statement's next call: keep it */
		out->complete = out->error == NULL;
		out->detached = true;
		sb_call_usage(st->sb, cpu_before, rd.peak_kb, start, out);
		if (st->sb->held)
		{
			sb_sandbox_call_idle(st->sb);
			out->held = st->sb;
		}
		else
			out->held = sb_sandbox_hold(st->sb, req->workspace != NULL, req->many_calls);
		/* it wrote past its result: its next call fails */
		if (out->held != NULL)
		{
			out->held->stray = rd.buf_pos < rd.buf_len;
			sb_held_shown(out->held, out->call_cpu_us);
		}
		st->sb = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		sb_stat_child(0, 0);	/* the call has let its child go */
		if (req->workspace != NULL)
			sb_workspace_after_call(req, out);
		return;
	}

	if (eof && !rd.any && st->sb->from_reservation)
	{
		if (!sb_call_wait_exit(st->sb, start, deadline))
			out->worker_lost = true;
		else if (st->sb->revoked)
		{
			sb_sandbox_release(st->sb);
			st->sb = sb_sandbox_acquire(&spawn, false, req->code);
			memset(&rd.hdr, 0, sizeof(rd.hdr));
			rd.hdr_got = 0;
			rd.payload = NULL;
			rd.buf_pos = rd.buf_len = 0;
			chunk_sent = 0;
			writing = true;
			eof = false;
			goto again;
		}
	}

	if (rd.own.not_shown > 0 && req->capture_output)
		appendStringInfo(out->stdout_text,
						 "\n... %llu more bytes of output (%llu prints) were not kept: pysandbox.max_print_bytes is %d\n",
						 (unsigned long long) rd.own.not_shown_bytes,
						 (unsigned long long) rd.own.not_shown, sb_max_print_bytes);
	else
		sb_prints_report(&rd.own);

	/*
	 * A complete result and then the end of the output: a success, however
	 * the child ends afterwards (it cannot take its result back).  The
	 * child is exiting on its own: unless the caller reports usage
	 * (sandbox_run), do not wait for the kernel to tear it down; the worker
	 * still reaps it and enforces its limits.
	 */
	out->complete = eof && !rd.bad && !rd.cut && !out->output_exceeded && !out->error &&
		!out->violation && SB_RESULT_WHOLE(out, req);

	/*
	 * A complete result and then the end of the output well after it, or
	 * at the wall limit: the end may be the worker's kill, not the child's
	 * exit.  A child that sent its result and then kept its socket open ran
	 * into a limit (review 99: sandbox_execute returned the result as a
	 * success after the wall limit; review 101 F10: after the CPU limit);
	 * ask how it ended.  An honest child ends its socket within the send of
	 * its last frame (sb_io.c), so only a forger, or one the scheduler held
	 * back, waits here.  Our end closes first: an honest child that lingers
	 * (sb_io.linger) then exits, and its usage comes with its report.  (Not
	 * earlier than the limit by this clock, which starts after the
	 * worker's: a child that closed its socket in time is still tearing
	 * down its memory there, and the worker counts one that is still alive
	 * at its deadline as timed out; review 102.)
	 */
	if (out->complete &&
		(sb_ms_since(start) >= limits->timeout_ms ||
		 (!INSTR_TIME_IS_ZERO(result_at) && sb_ms_since(result_at) >= SB_RESULT_END_LAG_MS)))
	{
		sb_sandbox_close_channel(st->sb);
		waited = true;
		if (!sb_call_wait_exit(st->sb, start, deadline))
		{
			out->worker_lost = true;
			out->complete = false;
		}
		else if (sb_ended_at_limit(&st->sb->exit))
			out->complete = false;
	}
	if (out->complete && !req->capture_output && !waited)
	{
		out->detached = true;
		sb_call_usage(st->sb, cpu_before, rd.peak_kb, start, out);
		/* a held child's exit is the worker's to report: never detach one */
		if (st->sb->held)
			sb_sandbox_drop(st->sb);
		else
			sb_sandbox_detach(st->sb);
		st->sb = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		sb_stat_child(0, 0);	/* the call has let its child go */
		if (req->workspace != NULL)
			sb_workspace_after_call(req, out);
		return;
	}
	/* sandbox_run waits for the usage, not for whatever the child does next */
	if (out->complete)
		sb_sandbox_kill(st->sb);
	/* a held child that closed its channel before the call: nothing to wait for */
	else if (req->held != NULL && eof && !rd.any)
		sb_sandbox_kill(st->sb);
	/*
	 * output that ended without a whole result (cut in the middle of a
	 * frame, a column short): nothing more can come, so our end closes and
	 * a child that lingers (sb_io.linger) exits on its own, its status kept
	 * (review 127 F2: one was waited for to its wall limit, and told as a
	 * timeout)
	 */
	else if (eof)
		sb_sandbox_close_channel(st->sb);

	/* the child is dead or being killed: wait for the worker's report */
	if (!out->worker_lost && !sb_call_wait_exit(st->sb, start, deadline))
		out->worker_lost = true;
	out->protocol_error = rd.bad;
	out->cut = rd.cut;
	out->exit = st->sb->exit;
	/* the worker leaves out a spare's warm-up and a held child's earlier calls */
	out->call_cpu_us = out->exit.user_us + out->exit.sys_us;
	/*
	 * A held child that sent nothing at all for its call and ended, not at
	 * a limit: it closed its channel, or exited (an honest child that ends
	 * says so with its last result: SB_DATA_LAST).
	 */
	out->held_closed = req->held != NULL && eof && !rd.any && !out->worker_lost &&
		(out->exit.cause == SB_EXIT_KILLED || out->exit.cause == SB_EXIT_BY_ITSELF) &&
		(WIFEXITED(out->exit.wait_status) ||
		 (WIFSIGNALED(out->exit.wait_status) && WTERMSIG(out->exit.wait_status) == SIGKILL));
	out->held_evicted = req->held != NULL && eof && !rd.any && !out->worker_lost &&
		out->exit.cause == SB_EXIT_EVICTED;
	out->preloaded = st->sb->preloaded;
	/* a reservation's call began before the worker heard of it */
	if (st->sb->from_reservation)
		out->exit.wall_us = (uint64) sb_ms_since(start) * 1000;
	sb_sandbox_release(st->sb);
	st->sb = NULL;

	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	sb_stat_child(0, 0);
	if (req->workspace != NULL)
		sb_workspace_after_call(req, out);
}
