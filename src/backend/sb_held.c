/*
 * sb_held.c
 *		Children held for the next calls of a LANGUAGE pysandbox function in
 *		the same statement (sb_language.c asks for them; sb_protocol.h,
 *		"Held children", says how the worker times them).
 *
 * A held child lives in a slot of sb_held[]; slot i's call clock is
 * sb_clocks->slot[i], in a sealed memfd shared with the worker once per
 * connection (SB_CTL_CLOCKS).  Per call the backend only writes the clock
 * (sb_sandbox_call_begin / _idle): no message wakes the worker, which every
 * session shares.  The worker's exit reports on held children are routed
 * here by sb_control_async (sb_worker.c): a report on a held slot marks it
 * ended, one on a dropped child (SB_CTL_DROP, reported only if it ended
 * first) is skipped.
 */
#include "pysandbox.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access/xact.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * The slots, in static memory like the session's one child (sb_worker.c),
 * so that the abort callbacks can reach them whatever memory contexts are
 * gone.  A slot is free when !in_use.
 */
static SbSandbox sb_held[SB_MAX_HELD];
static uint64 sb_held_generation = 0;

/*
 * Held children dropped at the end of their statements: the worker
 * reports none of them, except one that ended on its own before it read
 * the DROP.  Such a report is late, not wrong.
 */
#define SB_DROPPED_RING 64
static int32 sb_dropped[SB_DROPPED_RING];
static int	sb_dropped_next = 0;

/*
 * The held children's call clocks (sb_protocol.h): slot i is sb_held[i]'s.
 * A sealed memfd, mapped here read-write and in the worker read-only; it
 * outlives worker restarts (shared again with each new connection).
 */
static SbHeldClocks *sb_clocks = NULL;
static int	sb_clocks_fd = -1;
static bool sb_clocks_shared = false;	/* with the current worker */

/* CLOCK_MONOTONIC in microseconds, as the worker reads it */
static uint64
sb_monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * 1000000 + (uint64) ts.tv_nsec / 1000;
}

/*
 * A child's CPU time so far (microseconds), from its process CPU clock,
 * which any process of the same user may read; 0 if it cannot be read.
 * The clock's id is the kernel's encoding of the pid (what
 * clock_getcpuclockid() returns, without its check of the pid, one more
 * system call a row).
 */
uint64
sb_child_cpu_us(int32 pid)
{
	clockid_t	clock = (clockid_t) ((~(unsigned int) pid) << 3 | 2);	/* CPUCLOCK_SCHED */
	struct timespec ts;

	if (pid <= 0 || clock_gettime(clock, &ts) != 0)
		return 0;
	return (uint64) ts.tv_sec * 1000000 + (uint64) ts.tv_nsec / 1000;
}

/* The call clock of a held child, or NULL if sb is not one. */
static volatile SbHeldClock *
sb_held_clock(SbSandbox *sb)
{
	if (sb_clocks == NULL || sb < &sb_held[0] || sb >= &sb_held[SB_MAX_HELD])
		return NULL;
	return &sb_clocks->slot[sb - sb_held];
}

/*
 * pysandbox_activity shows sb, a held child, idle after its call (which
 * used cpu_us), or no longer held (pid 0).
 */
static void
sb_held_show(SbSandbox *sb, int32 pid, uint64 cpu_us)
{
	if (sb >= &sb_held[0] && sb < &sb_held[SB_MAX_HELD])
		sb_stat_held((int) (sb - sb_held), pid, sb->workspace, cpu_us);
}

/* sb, a held child, waits for its next call now; its last used cpu_us. */
void
sb_held_shown(SbSandbox *sb, uint64 cpu_us)
{
	sb_held_show(sb, sb->exited ? 0 : sb->pid, cpu_us);
}

/*
 * Make the call clocks and share them with the current worker (once per
 * connection): a memfd sealed against resizing, sent with SB_CTL_CLOCKS.
 * Returns false if that failed (no child is held then).  Never raises.
 */
static bool
sb_clocks_share(void)
{
	if (sb_sandbox_control_fd() < 0)
		return false;
	if (sb_clocks == NULL)
	{
		int			fd = memfd_create("pysandbox call clocks", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		void	   *p;

		if (fd < 0)
			return false;
		if (ftruncate(fd, sizeof(SbHeldClocks)) < 0 ||
			(p = mmap(NULL, sizeof(SbHeldClocks), PROT_READ | PROT_WRITE, MAP_SHARED,
					  fd, 0)) == MAP_FAILED)
		{
			close(fd);
			return false;
		}
		if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		{
			munmap(p, sizeof(SbHeldClocks));
			close(fd);
			return false;
		}
		sb_clocks = p;
		sb_clocks_fd = fd;
	}
	if (sb_clocks_shared)
		return true;
	if (sb_send_record_fd(sb_sandbox_control_fd(), SB_CTL_CLOCKS, NULL, 0, sb_clocks_fd,
						  MSG_NOSIGNAL) < 0)
	{
		sb_sandbox_abandon_worker();
		return false;
	}
	sb_clocks_shared = true;
	return true;
}

/*
 * Map a held child's mailbox (sb_protocol.h), checking that it cannot
 * change size under us (a shrink would fault this process).  NULL if it
 * cannot be used: its calls then go on the data socket.
 */
static volatile SbMailbox *
sb_mailbox_map(int fd)
{
	struct stat st;
	int			seals;
	void	   *p;

	if (fd < 0)
		return NULL;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW) ||
		fstat(fd, &st) < 0 || st.st_size != SB_MAILBOX_SIZE)
		return NULL;
	p = mmap(NULL, SB_MAILBOX_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	/*
	 * Its pages allocated now, in one call: a later fault for a page the
	 * kernel cannot charge (strict overcommit) would be SIGBUS here.  The
	 * child cannot take them away (MADV_REMOVE is not in its filter).
	 */
	if (madvise(p, SB_MAILBOX_SIZE, MADV_POPULATE_WRITE) < 0 ||
		madvise(p, SB_MAILBOX_SIZE, MADV_DONTFORK) < 0)
	{
		munmap(p, SB_MAILBOX_SIZE);
		return NULL;
	}
	return (volatile SbMailbox *) p;
}

/*
 * A call on sb (the session's one child) asked to keep the child, and it
 * sent its complete result: it now waits for the statement's next call
 * (or, for a workspace, the workspace's next call, across statements).
 * Move it to a held slot, set its call clock (idle) and tell the worker,
 * which times it by that clock from now on.  Returns the held child, or
 * NULL if it cannot be held (then it is let go as any finished child is).
 * A workspace's slot is never taken for another child.  many_calls: it
 * serves many calls (a workspace, a group_by call's groups) and collects
 * its garbage between them, in SB_WORKSPACE_IDLE_CPU_MS.
 */
SbSandbox *
sb_sandbox_hold(SbSandbox *sb, bool workspace, bool many_calls)
{
	SbSandbox  *h = NULL;
	volatile SbHeldClock *clock;
	int			i;

	if (!sb_clocks_share())
	{
		sb_sandbox_detach(sb);
		return NULL;
	}
	/*
	 * a free slot, or the one called last (its call site starts anew): a
	 * statement calls its sites in turn, row after row, so the one called
	 * longest ago is the one called next, and taking it made every call of
	 * a statement with 17 sites start afresh (review 107: 26 s where 16
	 * sites took 1.1 s); the last one called costs one fresh start a row
	 */
	for (i = 0; i < SB_MAX_HELD; i++)
	{
		if (!sb_held[i].in_use)
		{
			h = &sb_held[i];
			break;
		}
		if (!sb_held[i].in_call && !sb_held[i].workspace &&
			(h == NULL || sb_held[i].used > h->used))
			h = &sb_held[i];
	}
	if (h == NULL)
	{
		sb_sandbox_detach(sb);
		return NULL;
	}
	if (h->in_use)
		sb_sandbox_drop(h);
	if (sb_sandbox_control_fd() < 0)
	{
		/* the worker was lost meanwhile: sb's child went with it */
		sb_sandbox_detach(sb);
		return NULL;
	}
	*h = *sb;
	h->held = true;
	h->workspace = workspace;
	h->in_call = false;
	h->from_reservation = false;
	h->generation = ++sb_held_generation;
	h->used = sb_held_generation;
	memset(sb, 0, sizeof(*sb));
	sb->data_fd = -1;
	sb->mailbox_fd = -1;
	sb->exited = true;
	h->mailbox = sb_mailbox_map(h->mailbox_fd);
	/* the mapping is all it takes from now */
	if (h->mailbox_fd >= 0)
		close(h->mailbox_fd);
	h->mailbox_fd = -1;
	clock = sb_held_clock(h);
	clock->in_call = 0;
	clock->calls = 0;
	clock->since_us = 0;
	clock->idle_cpu_ms = many_calls ? SB_WORKSPACE_IDLE_CPU_MS : 0;
	clock->idle_timeout_ms = workspace ? (uint32) sb_workspace_idle_timeout_ms : 0;

	/*
	 * a function's child the worker may end between calls for this
	 * session's own waiting call (SB_EXIT_EVICTED): a statement with more
	 * call sites than the cluster has slots never waits for a slot only it
	 * could free (reviews 99, 101); a workspace's state, or a group_by
	 * call's rows, are never given up so
	 */
	clock->evictable = !workspace && !many_calls;
	clock->cpu_us = sb_child_cpu_us(h->pid);
	h->cpu_read_us = sb_monotonic_us();
	__atomic_store_n(&clock->pid, h->pid, __ATOMIC_RELEASE);
	sb_control_send_pid(SB_CTL_HOLD, h->pid);
	return h;
}

/*
 * A held child's next call starts (sb_sandbox_held_ready found it ready):
 * its clock says so, and the worker gives the call its whole limits from
 * now (sb_protocol.h).  Stores, no message.
 */
void
sb_sandbox_call_begin(SbSandbox *sb, const SbLimits *limits)
{
	volatile SbHeldClock *clock = sb_held_clock(sb);

	sb->in_call = true;
	sb->subid = GetCurrentSubTransactionId();
	sb->used = ++sb_held_generation;
	if (clock == NULL)
		return;
	/*
	 * cpu_us stays what it was when the last call ended: CPU time used
	 * since counts against this call's limit.  The worker holds the child
	 * to SB_IDLE_CPU_MS between calls (checking every few milliseconds);
	 * what it used after the worker's last look and before this call is
	 * this call's.  Every moment of its CPU time is charged to a call or to
	 * the idle allowance, and no system call to read it is on the way of
	 * the row.
	 */
	/* this call's limits (the worker never goes above the child's own) */
	__atomic_store_n(&clock->call_timeout_ms, (uint32) limits->timeout_ms, __ATOMIC_RELEASE);
	__atomic_store_n(&clock->call_cpu_ms, (uint32) limits->cpu_ms, __ATOMIC_RELEASE);
	__atomic_store_n(&clock->since_us, sb_monotonic_us(), __ATOMIC_RELEASE);
	__atomic_store_n(&clock->in_call, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&clock->calls, clock->calls + 1, __ATOMIC_RELEASE);
}

/*
 * A held child's call is over, with its complete result: its clock stops.
 *
 * Its CPU time, the baseline of what it may use before its next call, is
 * read (a system call, a tenth of a short call here) only once
 * SB_CPU_READ_AFTER_US of wall-clock time have passed since the last
 * reading: until then the baseline stays at that reading, earlier, and the
 * CPU time since (at most that wall-clock time: a child has one thread)
 * counts as used between calls too.  The baseline is never later than the
 * truth, so nothing is left uncounted.
 */
#define SB_CPU_READ_AFTER_US	1000

void
sb_sandbox_call_idle(SbSandbox *sb)
{
	volatile SbHeldClock *clock = sb_held_clock(sb);
	uint64		now;

	sb->in_call = false;
	if (clock == NULL)
		return;
	now = sb_monotonic_us();
	/* a workspace's, always: its next call's usage counts from it */
	if (sb->workspace || now - sb->cpu_read_us >= SB_CPU_READ_AFTER_US)
	{
		__atomic_store_n(&clock->cpu_us, sb_child_cpu_us(sb->pid), __ATOMIC_RELEASE);
		sb->cpu_read_us = now;
	}
	__atomic_store_n(&clock->in_call, 0, __ATOMIC_RELEASE);
}

/*
 * The CPU time of sb, a workspace's child, when its last call ended: its
 * next call's usage counts from there, as its limit does (what it used in
 * between is the cleaning after that call, or code of it that ran then:
 * review 122 F2).  UINT64_MAX for any other child.
 */
uint64
sb_held_cpu_baseline(SbSandbox *sb)
{
	volatile SbHeldClock *clock = sb_held_clock(sb);

	if (clock == NULL || !sb->workspace)
		return UINT64_MAX;
	return __atomic_load_n(&clock->cpu_us, __ATOMIC_ACQUIRE);
}

/*
 * A held child's statement is over: close its socket (it exits on its
 * own) and have the worker end it without a report.  Never raises.
 */
void
sb_sandbox_drop(SbSandbox *sb)
{
	volatile SbHeldClock *clock = sb_held_clock(sb);

	if (clock != NULL)
		__atomic_store_n(&clock->pid, 0, __ATOMIC_RELEASE);
	sb_sandbox_close_channel(sb);
	if (!sb->exited && sb_sandbox_control_fd() >= 0)
	{
		sb_dropped[sb_dropped_next] = sb->pid;
		sb_dropped_next = (sb_dropped_next + 1) % SB_DROPPED_RING;
		sb_control_send_pid(SB_CTL_DROP, sb->pid);
	}
	sb->exited = true;
	sb->in_use = false;
	sb->held = false;
	sb->workspace = false;
	sb->in_call = false;
	sb_held_show(sb, 0, 0);
}

/* A held child used CPU time between two calls. */
static void
pg_attribute_noreturn()
sb_idle_cpu_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("sandbox code kept running between two calls of the function"),
			 errdetail("A function called for many rows may use CPU time only while it is called (%d ms in all between two calls); its process was stopped.",
					   SB_IDLE_CPU_MS),
			 errhint("Do not leave threads or other work running after the function returns.")));
}

/*
 * Is a held child still waiting for its next call?  Returns true if so.
 * If it ended between calls by itself, cleanly (a child whose CPU time
 * rlimit leaves no room for a whole call more ends with its result:
 * sb_runtime._serve_held), it is released and false returned: the call
 * takes a fresh child.  Anything else it did between calls ends it with an
 * error: writing (nothing may come before the call's arguments), running
 * (the worker ended it for CPU time used between calls), dying.
 */
/*
 * Between two calls of a held child (a function's or a workspace's): is
 * it waiting, as it should, did it write (bytes before the call's
 * arguments), or has it ended (sb->exit says how)?  A worker that does not
 * say how is restarted, with an error.
 */
SbHeldState
sb_held_state(SbSandbox *sb)
{
	char		byte;
	ssize_t		n;

	if (sb->exited)
		return SB_HELD_ENDED;
	n = sb->stray ? 1 : recv(sb->data_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return SB_HELD_WAITING;
	if (n > 0)
		return SB_HELD_WROTE;

	/*
	 * The end of its output: it is dead or dying, or closed its socket and
	 * lives on (then it is not waiting for calls): the worker ends it if
	 * need be, and says how it ended.
	 */
	sb_sandbox_kill(sb);
	if (!sb_sandbox_verdict(sb, SB_CLEANUP_WAIT_MS, true))
	{
		sb_sandbox_abandon_worker();
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker stopped responding"),
				 errhint("The worker was restarted; try again.")));
	}
	return SB_HELD_ENDED;
}

bool
sb_sandbox_held_ready(SbSandbox *sb)
{
	SbExitReport ex;

	switch (sb_held_state(sb))
	{
		case SB_HELD_WAITING:
			return true;		/* waiting, as it should */
		case SB_HELD_WROTE:
			sb_sandbox_release(sb);
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
					 errmsg("sandbox process sent an invalid message"),
					 errdetail("It wrote between two calls of the function; the process was stopped.")));
			break;
		case SB_HELD_ENDED:
			break;
	}
	ex = sb->exit;
	sb_sandbox_release(sb);
	sb->held = false;
	/*
	 * exited by itself and cleanly (the worker may have been asked to kill
	 * it), or ended for this session's own call: the call site starts anew
	 */
	if ((WIFEXITED(ex.wait_status) && WEXITSTATUS(ex.wait_status) == SB_CHILD_EXIT_OK) ||
		ex.cause == SB_EXIT_EVICTED)
		return false;
	if (ex.cause == SB_EXIT_IDLE_CPU)
		sb_idle_cpu_error();
	if (ex.cause == SB_EXIT_YIELDED)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("sandbox process of the function was taken back between two calls"),
				 errdetail("All pysandbox.max_concurrent (%d) sandbox processes were in use, another session's call was waiting, and this session held more than one.",
						   sb_max_concurrent),
				 errhint("Finish statements that call pysandbox functions (fetch to the end, close cursors, end transactions) before waiting, or ask an administrator to raise pysandbox.max_concurrent.")));
	if (ex.cause == SB_EXIT_MEMORY || ex.cause == SB_EXIT_RESIDENT)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("sandbox process of the function exceeded its memory limit between two calls"),
				 errdetail("%s",
						   ex.cause == SB_EXIT_MEMORY ?
						   "Its page tables outgrew what the limit allows: it mapped many small, scattered pieces of memory." :
						   "It held more private memory than the limit allows: native code made the address space of the libraries it inherited into memory of its own.")));
	if (WIFSIGNALED(ex.wait_status))
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
				 errmsg("sandbox process ended between two calls of the function"),
				 errdetail("It was killed by signal %d (%s)%s.", WTERMSIG(ex.wait_status),
						   strsignal(WTERMSIG(ex.wait_status)),
						   ex.cause == SB_EXIT_TIMEOUT ? ", at the deadline of its last call" :
						   ex.cause == SB_EXIT_CPU ? ", at the CPU time limit of its last call" : "")));
	ereport(ERROR,
			(errcode(ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION),
			 errmsg("sandbox process ended between two calls of the function"),
			 errdetail("It exited with code %d.",
					   WIFEXITED(ex.wait_status) ? WEXITSTATUS(ex.wait_status) : -1)));
	return false;				/* not reached */
}

/* The worker was abandoned: its held children went with it. */
void
sb_held_forget(void)
{
	int			i;

	for (i = 0; i < SB_MAX_HELD; i++)
		if (sb_held[i].in_use)
		{
			sb_sandbox_close_channel(&sb_held[i]);
			sb_held[i].exited = true;
			sb_held[i].in_use = false;
			sb_held_show(&sb_held[i], 0, 0);
		}
	memset(sb_dropped, 0, sizeof(sb_dropped));
	sb_clocks_shared = false;
	if (sb_clocks != NULL)
		memset(sb_clocks, 0, sizeof(SbHeldClocks));
}

/*
 * An exit report the caller did not wait for: is it about a held child
 * (then that slot ends; its next call says so) or one dropped?
 */
bool
sb_held_exit_report(const SbExitReport *report)
{
	int			i;

	if (report->pid <= 0)
		return false;
	for (i = 0; i < SB_MAX_HELD; i++)
		if (sb_held[i].in_use && !sb_held[i].exited && sb_held[i].pid == report->pid)
		{
			sb_held[i].exit = *report;
			sb_held[i].exited = true;
			sb_held_show(&sb_held[i], 0, 0);
			/* its pid may be reused: the clock slot must not name it */
			if (sb_clocks != NULL)
				__atomic_store_n(&sb_clocks->slot[i].pid, 0, __ATOMIC_RELEASE);
			return true;
		}
	for (i = 0; i < SB_DROPPED_RING; i++)
		if (sb_dropped[i] == report->pid)
		{
			sb_dropped[i] = 0;
			return true;
		}
	return false;
}

/* sb was released (sb_sandbox_release): a held one's clock slot is free. */
void
sb_held_released(SbSandbox *sb)
{
	volatile SbHeldClock *clock = sb_held_clock(sb);

	sb->workspace = false;
	if (clock != NULL)
		__atomic_store_n(&clock->pid, 0, __ATOMIC_RELEASE);
	sb_held_show(sb, 0, 0);
}

/*
 * The transaction ended: so did every statement, and its held children;
 * a workspace's lives on, unless a call of it was running (then it is in
 * no known state).
 */
void
sb_held_drop_all(void)
{
	int			i;

	for (i = 0; i < SB_MAX_HELD; i++)
		if (sb_held[i].in_use && (!sb_held[i].workspace || sb_held[i].in_call))
			sb_sandbox_drop(&sb_held[i]);
}

/*
 * A subtransaction aborted: a held child whose call it interrupted is in no
 * known state (not one whose call began outside: sql() rolls its queries
 * back in subtransactions of their own).
 */
void
sb_held_subxact_abort(SubTransactionId mySubid)
{
	int			i;

	for (i = 0; i < SB_MAX_HELD; i++)
		if (sb_held[i].in_use && sb_held[i].in_call && sb_held[i].subid >= mySubid)
			sb_sandbox_drop(&sb_held[i]);
}
