/*
 * sb_held.c
 *		The worker's side of held children (sb_protocol.h, "Held children"):
 *		taking a call's child into a client's held ones, mapping the call
 *		clocks its backend shares, and timing each held call by them.
 */
#include "sb_children.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The client's held child of that pid, or NULL. */
SbChild *
sb_held_find(SbClient *cl, pid_t pid)
{
	int			i;

	for (i = 0; i < cl->nheld; i++)
		if (cl->held[i].pid == pid)
			return &cl->held[i];
	return NULL;
}

/*
 * SB_CTL_HOLD: the backend has its child's complete result and keeps the
 * child for the statement's next calls: it moves to the held ones (its
 * slot is free for the client's next call, or a new reservation), timed
 * by the client's call clocks from now on.  A child already reaped (its
 * report is on the way) is left alone; one the client cannot time (no
 * clocks shared) or past the SB_MAX_HELD the backend keeps to is killed.
 */
void
sb_client_hold(SbClient *cl, pid_t pid)
{
	uint64_t	now = sb_now_us();
	SbChild    *c;

	if (cl->child.pid <= 0 || cl->child.pid != pid)
		return;
	if (cl->child.reserved)
		sb_start_reserved(cl);	/* its claim was not seen yet */
	if (cl->nheld == SB_MAX_HELD || cl->clocks == NULL)
	{
		fprintf(stderr, "pysandbox-worker: a backend asked to hold a child it cannot\n");
		if (!cl->child.killed)
			kill(cl->child.pid, SIGKILL);
		cl->child.killed = true;
		cl->child.cause = SB_EXIT_KILLED;
		return;
	}
	cl->held[cl->nheld] = cl->child;
	c = &cl->held[cl->nheld++];
	sb_nheld_all++;
	sb_child_clear(&cl->child);
	c->seen = false;
	c->cpu_check_us = now;		/* read its clock at once */
	cl->last_active_us = now;
	sb_last_busy_us = now;
}

/*
 * SB_CTL_CLOCKS: map the client's call clocks, read-only and not inherited
 * by the children forked later.  The memfd must be sealed against resizing
 * (a shrink would fault this process, which serves every session).
 */
bool
sb_client_clocks(SbClient *cl, int fd)
{
	struct stat st;
	int			seals = fcntl(fd, F_GET_SEALS);
	void	   *p;

	if (cl->clocks != NULL || seals < 0 || !(seals & F_SEAL_SHRINK) ||
		fstat(fd, &st) < 0 || st.st_size < (off_t) sizeof(SbHeldClocks))
		return false;
	p = mmap(NULL, sizeof(SbHeldClocks), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	if (madvise(p, sizeof(SbHeldClocks), MADV_DONTFORK) < 0)
	{
		munmap(p, sizeof(SbHeldClocks));
		return false;
	}
	cl->clocks = p;
	return true;
}

/* Held child c's call clock in its client's clocks, or NULL. */
static const volatile SbHeldClock *
sb_held_slot(const SbClient *cl, const SbChild *c)
{
	const volatile SbHeldClock *slot = NULL;
	int			i;

	for (i = 0; cl->clocks != NULL && i < SB_MAX_HELD; i++)
		if (cl->clocks->slot[i].pid == c->pid)
			slot = &cl->clocks->slot[i];
	return slot;
}

/* Does slot say a call of c runs, or ran since the worker last read it? */
static bool
sb_held_calling(const volatile SbHeldClock *slot, const SbChild *c)
{
	return __atomic_load_n(&slot->in_call, __ATOMIC_ACQUIRE) != 0 ||
		__atomic_load_n(&slot->calls, __ATOMIC_ACQUIRE) != c->seen_calls;
}

/*
 * Is held child c between two calls, by its call clock read now, and since
 * when (*since: when the worker last saw a call of it end, or saw it
 * first)?  One whose client shares no clocks is never taken for idle.
 */
bool
sb_held_idle(const SbClient *cl, const SbChild *c, uint64_t now, uint64_t *since)
{
	const volatile SbHeldClock *slot;

	if (cl->clocks == NULL || c->pid <= 0 || c->killed || !c->seen || c->in_call)
		return false;
	slot = sb_held_slot(cl, c);
	if (slot == NULL || sb_held_calling(slot, c))
		return false;			/* a call runs, or ran since the last reading */
	*since = c->started_us;
	return now >= *since;
}

/*
 * Is held child c idle (sb_held_idle) and one its client let the worker
 * end for the client's own waiting call (a function's, by its clock)?
 */
bool
sb_held_evictable(const SbClient *cl, const SbChild *c, uint64_t now, uint64_t *since)
{
	const volatile SbHeldClock *slot;

	if (!sb_held_idle(cl, c, now, since))
		return false;
	slot = sb_held_slot(cl, c);
	return slot != NULL && __atomic_load_n(&slot->evictable, __ATOMIC_ACQUIRE) == 1;
}

/*
 * Is a held child of any client in a call now, by its call clock, or did
 * one run a call since the worker last read that clock?  No spare is
 * forked then: the fork and the spare's warm-up take a core from the
 * calls (a group_by call's groups, a statement's calls of a function),
 * and sb_held_check's readings, SB_HELD_CHECK_MS apart, can miss them by
 * as much as the idle time a refill waits for.
 */
bool
sb_held_busy(void)
{
	int			i;
	int			j;

	for (i = 0; i < sb_nclients; i++)
	{
		const SbClient *cl = &sb_clients[i];

		for (j = 0; j < cl->nheld; j++)
		{
			const SbChild *c = &cl->held[j];
			const volatile SbHeldClock *slot;

			if (c->pid <= 0 || c->killed)
				continue;
			slot = sb_held_slot(cl, c);
			if (c->in_call || (slot != NULL && sb_held_calling(slot, c)))
				return true;
		}
	}
	return false;
}

/*
 * Read a held child's call clock (sb_protocol.h) and its CPU clock: a
 * running call is held to its limits from its start, the time between
 * calls to SB_IDLE_CPU_MS of CPU time from the last call's end (from the
 * CPU times the backend wrote; where it could not, from this process's
 * first reading after the change).  Called every SB_HELD_CHECK_US and at
 * a running call's deadline.
 */
void
sb_held_check(SbClient *cl, SbChild *c, uint64_t now)
{
	const volatile SbHeldClock *slot = NULL;
	uint64_t	calls = c->seen_calls;
	uint64_t	since = 0;
	uint64_t	base = 0;
	uint64_t	cpu;
	uint64_t	grace;
	uint32_t	idle_cpu_ms = 0;
	uint32_t	idle_timeout_ms = 0;
	uint32_t	call_timeout_ms = c->limits.timeout_ms;
	uint32_t	call_cpu_ms = c->limits.cpu_ms;
	uint32_t	v;
	bool		in_call = false;

	if (c->pid <= 0 || c->killed || now < c->cpu_check_us)
		return;
	/* page tables and traded memory, which its limits do not count (sb_children.h) */
	if (sb_child_memory_over(c))
		return;
	/* CPU first: what the clock says then started no later than that */
	cpu = sb_child_cpu_us(c);
	slot = sb_held_slot(cl, c);
	if (slot != NULL)
	{
		calls = __atomic_load_n(&slot->calls, __ATOMIC_ACQUIRE);
		in_call = __atomic_load_n(&slot->in_call, __ATOMIC_ACQUIRE) != 0;
		since = __atomic_load_n(&slot->since_us, __ATOMIC_ACQUIRE);
		base = __atomic_load_n(&slot->cpu_us, __ATOMIC_ACQUIRE);
		idle_cpu_ms = __atomic_load_n(&slot->idle_cpu_ms, __ATOMIC_ACQUIRE);
		idle_timeout_ms = __atomic_load_n(&slot->idle_timeout_ms, __ATOMIC_ACQUIRE);
		/* a call's own limits may only be lower than the child's */
		v = __atomic_load_n(&slot->call_timeout_ms, __ATOMIC_ACQUIRE);
		if (v != 0 && v < call_timeout_ms)
			call_timeout_ms = v;
		v = __atomic_load_n(&slot->call_cpu_ms, __ATOMIC_ACQUIRE);
		if (v != 0 && v < call_cpu_ms)
			call_cpu_ms = v;
	}
	c->cpu_check_us = now + SB_HELD_CHECK_US;
	/* calls going on: no spare is forked meanwhile (fork competes for CPU) */
	if (in_call || calls != c->seen_calls)
		sb_last_busy_us = now;
	if (!c->seen || calls != c->seen_calls || in_call != c->in_call)
	{
		/* a call began, or ended, since the last reading */
		c->seen = true;
		c->seen_calls = calls;
		c->in_call = in_call;
		c->cpu_before_us = cpu;
		c->cpu_limit_us = in_call ? (uint64_t) call_cpu_ms * 1000
			: (uint64_t) (idle_cpu_ms != 0 ? idle_cpu_ms : SB_IDLE_CPU_MS) * 1000;
		c->started_us = in_call ? since : now;
		c->deadline_us = in_call ? since + (uint64_t) call_timeout_ms * 1000 :
			idle_timeout_ms != 0 ? now + (uint64_t) idle_timeout_ms * 1000 : UINT64_MAX;
		/*
		 * stop_us stays: a child sent SIGPROF at a limit is killed at
		 * stop_us even if its call ended meanwhile (one that blocked the
		 * signal and answered in time would live on with the stop's cause)
		 */
	}
	/* the backend's reading at the start (or end) is exact: prefer it */
	if (base != 0 && base <= c->cpu_before_us)
		c->cpu_before_us = base;
	/* a call's grace leaves its SIGPROF handler time; between calls none runs */
	grace = c->in_call ? SB_CPU_GRACE_US : SB_IDLE_CPU_GRACE_US;
	if (c->stop_us != 0)
	{
		/* stopped (SIGPROF) in this call: SIGKILL if it is still there */
		if (now >= c->stop_us)
		{
			kill(c->pid, SIGKILL);
			c->killed = true;
		}
		else
			c->cpu_check_us = c->stop_us;
	}
	else if (now >= c->deadline_us && c->in_call)
		sb_child_stop(c, now, SB_EXIT_TIMEOUT);
	else if (now >= c->deadline_us)
	{
		kill(c->pid, SIGKILL);
		c->killed = true;
		c->cause = SB_EXIT_IDLE_TIMEOUT;
	}
	else if (cpu >= c->cpu_before_us &&
			 cpu - c->cpu_before_us >= c->cpu_limit_us + grace)
	{
		if (c->in_call)
			sb_child_stop(c, now, SB_EXIT_CPU);
		else
		{
			kill(c->pid, SIGKILL);
			c->killed = true;
			c->cause = SB_EXIT_IDLE_CPU;
		}
	}
	else
	{
		/* a call may spend what it has left soonest on every CPU at once */
		if (cpu >= c->cpu_before_us)
		{
			uint64_t	left = c->cpu_limit_us + grace - (cpu - c->cpu_before_us);
			uint64_t	soonest = now + (left / sb_ncpus > SB_CPU_CHECK_MIN_US ?
										 left / sb_ncpus : SB_CPU_CHECK_MIN_US);

			if (soonest < c->cpu_check_us)
				c->cpu_check_us = soonest;
		}
		if (c->deadline_us < c->cpu_check_us)
			c->cpu_check_us = c->deadline_us;
	}
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U	/* Linux 6.3 */
#endif

/*
 * A new child's mailbox (sb_protocol.h): a memfd of SB_MAILBOX_SIZE bytes,
 * sealed against resizing before anyone maps it.  Returns the fd, or -1
 * (the child then has none: its calls go on the socket).
 */
int
sb_mailbox_create(void)
{
	int			fd = memfd_create("pysandbox mailbox",
								  MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);

	if (fd < 0 && errno == EINVAL)	/* a kernel before MFD_NOEXEC_SEAL */
		fd = memfd_create("pysandbox mailbox", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, SB_MAILBOX_SIZE) < 0 ||
		fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
	{
		close(fd);
		return -1;
	}
	return fd;
}
