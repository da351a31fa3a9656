/*
 * sb_worker.c
 *		Entry point of pysandbox-worker, the exec'd half of pysandbox.
 *
 * The worker runs in one of two modes:
 *
 *	session	started by one backend for itself (no shared_preload_libraries):
 *			fd 3 is that backend's control socket; the worker exits when it
 *			closes.
 *	server	started by the cluster's pysandbox background worker: fd 3 is a
 *			listening Unix socket; any backend of the cluster connects (peer
 *			credentials must show the server's own uid) and speaks the same
 *			control protocol.  Children in flight across all backends are
 *			capped at max_concurrent; callers beyond it wait in FIFO order
 *			for up to their queue_ms, then get SB_CTL_BUSY (sb_admission.c).
 *
 * Either way the worker
 *
 *	1. makes sure it dies with the process that started it,
 *	2. starts CPython and imports and warms numpy and pandas (threads off)
 *	   and, if pysandbox.preload_modules names any, forks the preloaded
 *	   process that imports those and forks the children of the calls that
 *	   ask for them (sb_preloaded.c; they become this process's children),
 *	3. keeps `spares` children forked ahead of time: each has already run
 *	   the containment steps that do not depend on the call (sb_contain.c:
 *	   fds, environment, parent-death signal, OOM score, namespaces, the
 *	   mount namespace root the worker built once, sb_mountns.c) and a
 *	   typical call's code paths, so the copy-on-write
 *	   faults are paid before anyone waits; once recent calls agree on
 *	   their limits, a warm spare gets them at once and finishes its
 *	   containment while it waits (sb_spares.c), and
 *	4. serves SPAWN requests: it takes a spare of the requested shape and
 *	   limits (or forks a fresh child), writes the call's limits as the
 *	   first frame on the child's data socket unless it has them already,
 *	   hands the backend the other end (SCM_RIGHTS) and supervises the
 *	   child until it exits, its wall-clock deadline passes, its CPU time
 *	   runs out (read from its CPU clock: the child's own timer signal
 *	   can be blocked) or the backend asks for a kill; then reaps it and
 *	   reports.  A reserved child's call is timed from its claim of the
 *	   call, which wakes the worker (sb_protocol.h): no child's limits
 *	   depend on what its backend does.
 *
 * The child applies the limits, no_new_privs, Landlock and seccomp as soon
 * as it reads that first frame, before the backend can send it any code.
 * A child serves one call and then exits, except one the backend keeps for
 * the next calls of a LANGUAGE pysandbox function in the same statement
 * (held, sb_protocol.h): it moves out of its client's call slot, and the
 * worker times each of its calls by the call clocks the backend shares
 * with it, and holds it to SB_IDLE_CPU_MS of CPU time between calls.
 *
 * Invariants: one call child per client at a time (a backend that asks
 * for the next one before the last is reaped has its complete result: the
 * last one is killed and reaped as an orphan), plus at most SB_MAX_HELD
 * held ones; every child is reaped (pidfd in the poll set); a client that
 * goes away has all its children killed; nothing here runs user code.
 * Single-threaded: one poll loop.
 */
#include "sb_worker.h"
#include "sb_children.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static SbReady sb_ready;
static bool sb_server_mode = false;
static int	sb_listen_fd = -1;
SbAdmission sb_adm = {.max_concurrent = 0,.target_spares = 1};
int			sb_nheld_all = 0;	/* of sb_adm.in_flight, held by their
								 * clients: not on the worker's path, so
								 * spares may be forked while they wait
								 * (their clocks say when calls go on:
								 * sb_held_check) */
uint64_t	sb_last_busy_us = 0;	/* last dispatch or exit */
static uint64_t sb_listen_paused_until = 0;	/* out of fds: accept later */

/*
 * A spare is forked only after this long without a call starting or ending:
 * fork blocks the worker for a millisecond or two (page tables of the warm
 * heap), and a caller arriving meanwhile would wait for it.  10 ms: a
 * session calling every 15 ms finds a spare (0.4 ms a call, against 2.5 ms
 * with 20 ms); pgbench throughput was the same; with 5 ms, callers every
 * 5 ms met the fork and 8 clients lost ~2 %.
 */
#define SB_SPARE_IDLE_US 10000

/*
 * ... but not forever: held children of any session in calls back to back
 * (a statement calling a pysandbox function per row, a workspace) would
 * keep every session without spares for as long as they run.  A spare
 * missing this long is forked even then, one per this interval.
 */
#define SB_SPARE_MAX_DEFER_US 1000000
static uint64_t sb_spare_wanted_us = 0; /* since when one is missing with
										 * only held calls running; 0: none */

/* CPUs online: how soon a child can spend its CPU time (sb_children.h) */
uint64_t	sb_ncpus = 1;

SbClient   *sb_clients = NULL;
int			sb_nclients = 0;	/* slots allocated */

/*
 * sb_serve's poll array: which sessions have a call, a reservation and how
 * many held children is written in its fds (review 49 read it from a
 * child's heap), so it is forgotten with the tables.
 */
static struct pollfd *sb_pfds = NULL;
static size_t sb_pfds_cap = 0;

/*
 * Children no client will hear of again, killed and waiting to be reaped:
 * those whose backend took a complete result and moved on before they
 * were reaped, and reservations taken back.  They count against
 * max_concurrent until then (they still hold their memory), but the next
 * call does not wait for them.
 */
SbChild    *sb_orphans = NULL;
int			sb_norphans = 0;
static int	sb_orphans_cap = 0;

/* Print a diagnostic to the worker's stderr (the server log) and exit. */
static void __attribute__((noreturn))
sb_worker_die(const char *what)
{
	fprintf(stderr, "pysandbox-worker: %s: %s\n", what, strerror(errno));
	_exit(1);
}

/* Monotonic clock in microseconds. */
uint64_t
sb_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/*
 * Receive one control record (SOCK_SEQPACKET: one frame per record) into
 * payload (at most max bytes), and the fd it carries into *fd_out (-1:
 * none).  Returns 0 on success, -1 on EOF or error, -2 on a malformed
 * record, -3 if nothing is there yet.
 */
static int
sb_worker_recv(int fd, uint32_t *type, void *payload, uint32_t max, uint32_t *len,
			   int *fd_out)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + SB_CONTROL_MAX_PAYLOAD];
	union
	{
		char		buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	}			ctl;
	struct iovec iov = {.iov_base = buf,.iov_len = sizeof(buf)};
	struct msghdr msg;
	struct cmsghdr *cmsg;
	ssize_t		n;

	*fd_out = -1;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	do
		n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -3;
	/* every fd received is ours to close: keep the first, close the rest */
	for (cmsg = CMSG_FIRSTHDR(&msg); n >= 0 && cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS &&
			cmsg->cmsg_len >= CMSG_LEN(0))
		{
			size_t		nfds = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			size_t		i;

			for (i = 0; i < nfds; i++)
			{
				int			got;

				memcpy(&got, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
				if (*fd_out < 0)
					*fd_out = got;
				else
					close(got);
			}
		}
	if (n <= 0 && *fd_out >= 0)
	{
		close(*fd_out);
		*fd_out = -1;
	}
	if (n <= 0)
		return -1;
	if (n < SB_FRAME_HEADER_SIZE || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -2;
	sb_frame_header_decode(buf, type, len);
	if (*len > max || (size_t) n != SB_FRAME_HEADER_SIZE + (size_t) *len)
		return -2;
	if (*len > 0)
		memcpy(payload, buf + SB_FRAME_HEADER_SIZE, *len);
	return 0;
}

/* Send a control frame; false if the peer is gone. */
bool
sb_worker_send(int fd, uint32_t type, const void *payload, uint32_t len)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + SB_CONTROL_MAX_PAYLOAD];
	ssize_t		n;

	sb_frame_header_encode(buf, type, len);
	if (len > 0)
		memcpy(buf + SB_FRAME_HEADER_SIZE, payload, len);
	do
		n = send(fd, buf, SB_FRAME_HEADER_SIZE + len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t) (SB_FRAME_HEADER_SIZE + len);
}

/* Send a control frame with a child's data socket and mailbox (SPAWNED, RESERVED). */
bool
sb_worker_send_channel(int control_fd, uint32_t type, const void *payload, uint32_t len,
					   const SbChild *c)
{
	int			fds[2] = {c->data_fd, c->mailbox_fd};

	return sb_send_record_fds(control_fd, type, payload, len, fds, c->mailbox_fd >= 0 ? 2 : 1,
							  MSG_NOSIGNAL | MSG_DONTWAIT) == 0;
}

/* The call on c starts now: time its wall clock and CPU from here. */
void
sb_child_start(SbChild *c, uint32_t timeout_ms, uint32_t cpu_ms, uint64_t now)
{
	c->started_us = now;
	c->deadline_us = now + (uint64_t) timeout_ms * 1000;
	c->cpu_limit_us = (uint64_t) cpu_ms * 1000;
	/*
	 * the earliest it could have spent its CPU time, on every CPU at once,
	 * or the next reading of its page tables' size, whichever is sooner
	 */
	c->cpu_check_us = now + (c->cpu_limit_us / sb_ncpus < SB_PTE_CHECK_US ?
							 c->cpu_limit_us / sb_ncpus : SB_PTE_CHECK_US);
	c->killed = false;
	c->stop_us = 0;
	c->cause = SB_EXIT_BY_ITSELF;
}

/* Close a client's socket and free its slot (its child is already reaped). */
static void
sb_client_free(SbClient *cl)
{
	if (cl->fd >= 0)
		close(cl->fd);
	if (cl->clocks != NULL)
		munmap((void *) cl->clocks, sizeof(SbHeldClocks));
	memset(cl, 0, sizeof(*cl));
	cl->fd = -1;
	sb_child_clear(&cl->child);
}

static void sb_orphan_held(SbClient *cl, int j);

/*
 * A per-session worker whose backend has left: reap the children it killed
 * (no zombie outlives it), then exit.
 */
static void __attribute__((noreturn))
sb_session_exit(void)
{
	int			i;

	for (i = 0; i < sb_norphans; i++)
		while (waitpid(sb_orphans[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
	_exit(0);
}

/*
 * The client went away: kill its child (reaped later) and its held ones
 * (reaped as orphans), drop its request.
 */
void
sb_client_gone(SbClient *cl)
{
	cl->queued = false;
	cl->owed = false;
	cl->evicted = false;
	while (cl->nheld > 0)
		sb_orphan_held(cl, cl->nheld - 1);
	if (cl->child.pid > 0)
	{
		if (!cl->child.killed)
		{
			kill(cl->child.pid, SIGKILL);
			cl->child.killed = true;
			cl->child.cause = SB_EXIT_KILLED;
		}
		cl->gone = true;
		if (cl->fd >= 0)
		{
			close(cl->fd);
			cl->fd = -2;		/* slot stays taken until the reap */
		}
		return;
	}
	if (!sb_server_mode)
		sb_session_exit();		/* our only backend has left */
	sb_client_free(cl);
}

/*
 * A table of the worker's, grown: the old copy is zeroed before it is freed
 * (realloc would leave it in the heap every child inherits).
 */
static void *
sb_grow(void *old, size_t old_size, size_t new_size)
{
	void	   *grown = malloc(new_size);

	if (grown == NULL)
		sb_worker_die("out of memory");
	if (old != NULL)
	{
		memcpy(grown, old, old_size);
		explicit_bzero(old, old_size);
		free(old);
	}
	return grown;
}

/*
 * In a child, right after fork: forget the worker's bookkeeping of every
 * session (its clients, their children, limits and CPU clocks, the spares,
 * the orphans, the last call's limits).  The child has its own copy of the
 * worker's memory and needs none of it; code that escaped the Python layer
 * read another session's workspace child, its limits, calls made and CPU
 * used from it, without a system call (review 42).  What the worker's
 * deeper calls left on the stack below this frame goes too.
 */
void
sb_worker_forget(void)
{
	/* what the worker reads from its clients is a few kB deep (4 kB frames) */
	volatile unsigned char stack[64 * 1024];

	/* the tables stay where they are, empty (floor_scenarios.py reads them) */
	if (sb_clients != NULL)
		explicit_bzero(sb_clients, sizeof(SbClient) * (size_t) sb_nclients);
	if (sb_orphans != NULL)
		explicit_bzero(sb_orphans, sizeof(SbChild) * (size_t) sb_orphans_cap);
	sb_norphans = 0;
	sb_nheld_all = 0;
	explicit_bzero(&sb_adm, sizeof(sb_adm));
	if (sb_pfds != NULL)
		explicit_bzero(sb_pfds, sizeof(struct pollfd) * sb_pfds_cap);
	sb_spares_forget();
	explicit_bzero((void *) stack, sizeof(stack));
}

/*
 * Where the frames a child may wipe end: the serve loop's canonical frame
 * address (the worker's sb_serve, or the preloaded process's; the stack
 * pointer before the call that entered it: __builtin_dwarf_cfa, which is
 * where a frame ends on x86-64 and aarch64 alike, where the frame pointer
 * is not), set as it starts.  Below it are the loop's own frame and the
 * dead frames of what it called; its caller's frame (main, or the loop's
 * if the compiler inlined it there) and what sits above it (argv, the
 * environment) are not touched.
 */
void	   *sb_stack_live_end;

/*
 * In a child, right after fork: wipe the stack from "from" (the child's
 * own canonical frame address: its frame, which never returns, ends there;
 * it takes no arguments on the stack) up to the serve loop's.  Those are dead frames of the worker's loop, and the holes the
 * fork path did not overwrite kept what the worker last sent and received:
 * another session's exit report (its child's pid, CPU, wall time and peak
 * memory), its reservation (its limits, whether its Python layer is off)
 * and its children's pids (review 129 F1: sb_worker_forget wiped only
 * below its own frame).
 */
void
__attribute__((noinline))
sb_stack_forget(void *from)
{
	char	   *start = from;
	char	   *end = sb_stack_live_end;

	if (end == NULL || start >= end)
		return;
	explicit_bzero(start, (size_t) (end - start));
}

/* Add a child to the orphans: killed, reaped later, unreported. */
static void
sb_orphan_add(SbChild *c)
{
	if (sb_norphans == sb_orphans_cap)
	{
		int			old = sb_orphans_cap;

		sb_orphans_cap = old == 0 ? 16 : old * 2;
		sb_orphans = sb_grow(sb_orphans, sizeof(SbChild) * (size_t) old,
							 sizeof(SbChild) * (size_t) sb_orphans_cap);
	}
	if (!c->killed)
		kill(c->pid, SIGKILL);
	c->killed = true;
	sb_orphans[sb_norphans++] = *c;
	sb_child_clear(c);
}

/* Drop a client's held child j: killed, reaped later, unreported. */
static void
sb_orphan_held(SbClient *cl, int j)
{
	sb_nheld_all--;
	sb_orphan_add(&cl->held[j]);
	cl->held[j] = cl->held[--cl->nheld];
	sb_child_clear(&cl->held[cl->nheld]);
}

/* Move a client's child to the orphans: killed, reaped later, unreported. */
void
sb_orphan_child(SbClient *cl)
{
	if (cl->child.claim_fd >= 0)
		close(cl->child.claim_fd);
	cl->child.claim_fd = -1;
	if (cl->child.reserved)
	{
		/* a reservation becomes an orphan: in flight until it is reaped */
		cl->child.reserved = false;
		sb_adm.nreserved--;
		sb_adm.in_flight++;
	}
	sb_orphan_add(&cl->child);
}

/*
 * Tell a client how its child ended (the child is reaped); a client that
 * is gone has its slot freed instead, and a per-session worker exits.
 */
static void
sb_child_report(SbClient *cl, uint32_t type, const void *payload, uint32_t len)
{
	if (cl->gone)
	{
		if (!sb_server_mode)
			sb_session_exit();
		sb_client_free(cl);
	}
	else if (!sb_worker_send(cl->fd, type, payload, len))
		sb_client_gone(cl);
}

/* A client's child (its call's, or a held one) has exited: reap it and report. */
static void
sb_child_exited(SbClient *cl, SbChild *c)
{
	SbExitReport rep;
	struct rusage ru;
	siginfo_t	info;
	int			status = 0;
	pid_t		r;
	uint64_t	cpu_us,
				user_us,
				sys_us;

	if (c->pid <= 0)
		return;
	/* a setup failure is told by the exit code: was the child contained? */
	memset(&rep, 0, sizeof(rep));
	memset(&info, 0, sizeof(info));
	if (waitid(P_PID, (id_t) c->pid, &info, WEXITED | WNOWAIT | WNOHANG) == 0 &&
		info.si_pid == c->pid && info.si_code == CLD_EXITED && info.si_status == SB_CHILD_EXIT_SETUP &&
		sb_child_was_contained(c->pid))
		rep.flags |= SB_EXIT_CONTAINED;
	do
		r = wait4(c->pid, &status, 0, &ru);
	while (r < 0 && errno == EINTR);
	if (r != c->pid)
		sb_worker_die("wait4 failed");
	close(c->pidfd);
	if (c->claim_fd >= 0)
		close(c->claim_fd);
	if (c->reserved)
	{
		/* a reservation died before its call (the OOM killer, say) */
		SbSpawned	rev = {.pid = c->pid};

		sb_adm.nreserved--;
		sb_child_clear(c);
		sb_child_report(cl, SB_CTL_REVOKED, &rev, sizeof(rev));
		return;
	}
	sb_adm.in_flight--;
	sb_last_busy_us = sb_now_us();
	cl->last_active_us = sb_last_busy_us;

	user_us = (uint64_t) ru.ru_utime.tv_sec * 1000000 + (uint64_t) ru.ru_utime.tv_usec;
	sys_us = (uint64_t) ru.ru_stime.tv_sec * 1000000 + (uint64_t) ru.ru_stime.tv_usec;
	/* leave out what a spare spent warming up, user time first */
	cpu_us = c->cpu_before_us;
	if (cpu_us > user_us)
	{
		cpu_us -= user_us;
		user_us = 0;
		sys_us = cpu_us > sys_us ? 0 : sys_us - cpu_us;
	}
	else
		user_us -= cpu_us;

	rep.pid = c->pid;
	rep.wait_status = status;
	rep.cause = c->cause;
	rep.wall_us = sb_now_us() - c->started_us;
	rep.user_us = user_us;
	rep.sys_us = sys_us;
	rep.maxrss_kb = (uint64_t) ru.ru_maxrss;
	sb_child_clear(c);
	if (c != &cl->child)
	{
		/* a held child: its entry goes */
		sb_nheld_all--;
		*c = cl->held[--cl->nheld];
		sb_child_clear(&cl->held[cl->nheld]);
	}
	sb_child_report(cl, SB_CTL_EXITED, &rep, sizeof(rep));
}

/* An orphan has exited: reap it. */
static void
sb_orphan_exited(int i)
{
	pid_t		r;

	do
		r = waitpid(sb_orphans[i].pid, NULL, 0);
	while (r < 0 && errno == EINTR);
	if (r != sb_orphans[i].pid)
		sb_worker_die("waitpid failed");
	close(sb_orphans[i].pidfd);
	if (sb_orphans[i].revoked)
		sb_adm.revoking--;
	sb_orphans[i] = sb_orphans[--sb_norphans];
	sb_adm.in_flight--;
	sb_last_busy_us = sb_now_us();
}

/* One control frame from a client. */
static void
sb_client_readable(SbClient *cl)
{
	union
	{
		SbSpawnRequest req;
		SbSpawned	kill;
		char		raw[SB_CONTROL_MAX_PAYLOAD];
	}			payload;
	uint32_t	type = 0,
				len = 0;
	int			fd = -1;
	int			rc = sb_worker_recv(cl->fd, &type, &payload, sizeof(payload), &len, &fd);

	/* only SB_CTL_CLOCKS carries an fd */
	if (fd >= 0 && !(rc == 0 && type == SB_CTL_CLOCKS))
	{
		close(fd);
		fd = -1;
	}

	if (rc == -3)
		return;					/* a spurious wakeup */
	if (rc == 0 && type == SB_CTL_SPAWN && len == sizeof(SbSpawnRequest) && !cl->queued)
	{
		/*
		 * The backend did not wait for the previous child's exit, or did
		 * not want its reservation (other limits): either goes.
		 */
		if (cl->child.pid > 0)
			sb_orphan_child(cl);
		cl->reserve = payload.req.reserve != 0;
		cl->reserve_req = payload.req;
		sb_request_slot(cl, &payload.req);
		return;
	}
	if (rc == 0 && type == SB_CTL_HOLD && len == sizeof(SbSpawned))
	{
		sb_client_hold(cl, payload.kill.pid);
		return;
	}
	if (rc == 0 && type == SB_CTL_CLOCKS && len == 0 && fd >= 0)
	{
		bool		ok = sb_client_clocks(cl, fd);

		close(fd);
		if (ok)
			return;
		fprintf(stderr, "pysandbox-worker: a backend shared call clocks that cannot be used\n");
		sb_client_gone(cl);
		return;
	}

	if (rc == 0 && type == SB_CTL_DROP && len == sizeof(SbSpawned))
	{
		SbChild    *c = sb_held_find(cl, payload.kill.pid);

		if (c != NULL)
			sb_orphan_held(cl, (int) (c - cl->held));
		return;
	}
	if (rc == 0 && type == SB_CTL_KILL && len == sizeof(SbSpawned))
	{
		SbChild    *c = sb_held_find(cl, payload.kill.pid);

		if (c != NULL)
		{
			if (!c->killed)
			{
				kill(c->pid, SIGKILL);
				c->killed = true;
				c->cause = SB_EXIT_KILLED;
			}
			return;
		}
		/*
		 * A kill that raced with the exit report finds no child, or
		 * already the next reservation: fine.  A reserved child's claim
		 * may not have been seen yet.
		 */
		if (cl->child.pid > 0 && cl->child.pid == payload.kill.pid &&
			cl->child.reserved)
			sb_start_reserved(cl);
		if (cl->child.pid > 0 && cl->child.pid == payload.kill.pid &&
			!cl->child.killed)
		{
			kill(cl->child.pid, SIGKILL);
			cl->child.killed = true;
			cl->child.cause = SB_EXIT_KILLED;
		}
		return;
	}
	if (rc != -1)
		fprintf(stderr, "pysandbox-worker: unexpected control frame %u from a backend\n", type);
	sb_client_gone(cl);
}

/* A slot for a new client (grows the table). */
static SbClient *
sb_client_slot(void)
{
	int			i,
				old = sb_nclients;

	for (i = 0; i < sb_nclients; i++)
		if (sb_clients[i].fd == -1)
			return &sb_clients[i];
	sb_nclients = old == 0 ? 8 : old * 2;
	sb_clients = sb_grow(sb_clients, sizeof(SbClient) * (size_t) old,
						 sizeof(SbClient) * (size_t) sb_nclients);
	for (i = old; i < sb_nclients; i++)
	{
		memset(&sb_clients[i], 0, sizeof(SbClient));
		sb_clients[i].fd = -1;
		sb_child_clear(&sb_clients[i].child);
	}
	return &sb_clients[old];
}

/* Take a new client, if it runs as our own user; greet it with READY. */
static void
sb_accept(void)
{
	struct ucred cred;
	socklen_t	credlen = sizeof(cred);
	int			fd = accept4(sb_listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	SbClient   *cl;

	if (fd < 0)
	{
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
		{
			/* the connection stays in the backlog; do not spin on it */
			fprintf(stderr, "pysandbox-worker: cannot accept a connection: %s\n", strerror(errno));
			sb_listen_paused_until = sb_now_us() + 100000;
		}
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) < 0 ||
		credlen != sizeof(cred) || cred.uid != geteuid())
	{
		fprintf(stderr, "pysandbox-worker: refused a connection from uid %d\n",
				credlen == sizeof(cred) ? (int) cred.uid : -1);
		close(fd);
		return;
	}
	if (!sb_worker_send(fd, SB_CTL_READY, &sb_ready, sizeof(sb_ready)))
	{
		close(fd);
		return;
	}
	cl = sb_client_slot();
	cl->fd = fd;
}

/*
 * Stop a call past a limit: SIGPROF, whose handler sends where the code
 * was and exits (sb_where.c); SIGKILL at stop_us if it is still there.
 */
void
sb_child_stop(SbChild *c, uint64_t now, uint32_t cause)
{
	kill(c->pid, SIGPROF);
	c->stop_us = now + SB_STOP_GRACE_US;
	c->deadline_us = c->stop_us;
	c->cpu_check_us = c->stop_us;
	c->cause = cause;
}

/* Stop a call's child past its wall-clock deadline or its CPU time. */
static void
sb_child_enforce(SbChild *c, uint64_t now)
{
	uint64_t	cpu,
				used;

	if (c->pid <= 0 || c->reserved || c->killed)
		return;
	if (c->stop_us != 0)
	{
		if (now >= c->stop_us)
		{
			kill(c->pid, SIGKILL);
			c->killed = true;
		}
		return;
	}
	if (now >= c->deadline_us)
	{
		sb_child_stop(c, now, SB_EXIT_TIMEOUT);
		return;
	}
	if (now < c->cpu_check_us)
		return;
	if (sb_child_memory_over(c))
		return;
	cpu = sb_child_cpu_us(c);
	used = cpu > c->cpu_before_us ? cpu - c->cpu_before_us : 0;
	if (used >= c->cpu_limit_us + SB_CPU_GRACE_US)
		sb_child_stop(c, now, SB_EXIT_CPU);
	else
	{
		uint64_t	left = c->cpu_limit_us + SB_CPU_GRACE_US - used;
		uint64_t	wait = left / sb_ncpus > SB_CPU_CHECK_MIN_US ?
			left / sb_ncpus : SB_CPU_CHECK_MIN_US;

		c->cpu_check_us = now + (wait < SB_PTE_CHECK_US ? wait : SB_PTE_CHECK_US);
	}
}

/*
 * Kill children past their wall-clock deadline or their CPU time.  A
 * reserved child is timed once it claims its call; a held one by its
 * client's call clocks.
 */
static void
sb_enforce_deadlines(uint64_t now)
{
	int			i,
				j;

	for (i = 0; i < sb_nclients; i++)
	{
		sb_child_enforce(&sb_clients[i].child, now);
		for (j = 0; j < sb_clients[i].nheld; j++)
			sb_held_check(&sb_clients[i], &sb_clients[i].held[j], now);
	}
}

/* How long poll may sleep: until the next deadline, CPU check or queue expiry. */
static int
sb_poll_timeout(uint64_t now)
{
	uint64_t	next = UINT64_MAX;
	/* expiry waits while a slot taken back dies (its pidfd wakes us) */
	bool		dying = sb_adm.revoking > 0 || sb_yielding();
	int			i;

	for (i = 0; i < sb_nclients; i++)
	{
		SbClient   *cl = &sb_clients[i];
		int			j;

		if (cl->child.pid > 0 && !cl->child.reserved && !cl->child.killed)
		{
			if (cl->child.deadline_us < next)
				next = cl->child.deadline_us;
			if (cl->child.cpu_check_us < next)
				next = cl->child.cpu_check_us;
		}
		/* held: the next reading of its clock (at its deadline, if sooner) */
		for (j = 0; j < cl->nheld; j++)
			if (!cl->held[j].killed && cl->held[j].cpu_check_us < next)
				next = cl->held[j].cpu_check_us;
		if (cl->fd >= 0 && cl->queued && !dying &&
			cl->queued_us + (uint64_t) cl->req.queue_ms * 1000 < next)
			next = cl->queued_us + (uint64_t) cl->req.queue_ms * 1000;
	}
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int) ((next - now + 999) / 1000);
}

/* The poll loop; never returns. */
/* Is pid one of the worker's own children that it knows of? */
static bool
sb_pid_known(pid_t pid)
{
	int			i;

	for (i = 0; i < sb_nclients; i++)
	{
		if (sb_clients[i].child.pid == pid ||
			sb_held_find(&sb_clients[i], pid) != NULL)
			return true;
	}
	if (sb_spares_has(pid))
		return true;
	for (i = 0; i < sb_norphans; i++)
		if (sb_orphans[i].pid == pid)
			return true;
	return false;
}

/*
 * As a child subreaper (sb_preloaded.c) the worker also inherits processes
 * it never forked: a child whose intermediate was killed before the
 * preloaded process could name it.  Reap those once they exit; the worker's
 * own are reaped where they are supervised.
 */
static void
sb_reap_strays(void)
{
	for (;;)
	{
		siginfo_t	info;

		memset(&info, 0, sizeof(info));
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
			info.si_pid == 0 || sb_pid_known(info.si_pid))
			return;
		if (waitpid(info.si_pid, NULL, WNOHANG) != info.si_pid)
			return;
	}
}

static void __attribute__((noreturn))
sb_serve(void)
{
	sb_stack_live_end = __builtin_dwarf_cfa();
	for (;;)
	{
		struct pollfd *pfds;
		size_t		need = 2 + (size_t) sb_nclients * (3 + SB_MAX_HELD) + 2 * SB_MAX_SPARES +
			(size_t) sb_norphans;
		size_t		n = 0;
		size_t		i;
		int			j;
		int			timeout;
		int			rc;
		/* new spares are forked only when idle: fork blocks us */
		uint64_t	now = sb_now_us();
		bool		refill = sb_spares_count() + sb_adm.nreserved < sb_adm.target_spares &&
			sb_adm.in_flight == sb_nheld_all;
		bool		overdue;
		int			idle_wait = 0;
		size_t		spares_at;
		size_t		orphans_at;
		int			norphans = sb_norphans;

		if (!refill)
			sb_spare_wanted_us = 0; /* counted while only held calls run */
		else if (sb_spare_wanted_us == 0)
			sb_spare_wanted_us = now;
		overdue = refill && now - sb_spare_wanted_us >= SB_SPARE_MAX_DEFER_US;
		if (refill && !overdue && now - sb_last_busy_us < SB_SPARE_IDLE_US)
			idle_wait = (int) ((SB_SPARE_IDLE_US - (now - sb_last_busy_us) + 999) / 1000);

		if (need > sb_pfds_cap)
		{
			sb_pfds = sb_grow(sb_pfds, sizeof(struct pollfd) * sb_pfds_cap,
							  sizeof(struct pollfd) * need * 2);
			sb_pfds_cap = need * 2;
		}
		pfds = sb_pfds;
		if (sb_listen_fd >= 0)
			pfds[n++] = (struct pollfd) {.fd = now < sb_listen_paused_until ? -1 : sb_listen_fd,.events = POLLIN};
		for (i = 0; i < (size_t) sb_nclients; i++)
		{
			SbClient   *cl = &sb_clients[i];

			pfds[n++] = (struct pollfd) {.fd = cl->fd >= 0 ? cl->fd : -1,.events = POLLIN};
			pfds[n++] = (struct pollfd) {.fd = cl->child.pid > 0 ? cl->child.pidfd : -1,.events = POLLIN};
			pfds[n++] = (struct pollfd) {.fd = cl->child.pid > 0 && cl->child.reserved ? cl->child.claim_fd : -1,.events = POLLIN};
			for (j = 0; j < SB_MAX_HELD; j++)
				pfds[n++] = (struct pollfd) {.fd = j < cl->nheld ? cl->held[j].pidfd : -1,.events = POLLIN};
		}
		spares_at = n;
		n += sb_spares_poll(pfds + n);
		orphans_at = n;
		for (i = 0; i < (size_t) sb_norphans; i++)
			pfds[n++] = (struct pollfd) {.fd = sb_orphans[i].pidfd,.events = POLLIN};
		/* last: the preloaded process's socket says only that it has gone */
		pfds[n++] = (struct pollfd) {.fd = sb_preloaded_socket(),.events = POLLIN};

		/* requests first; a missing spare is forked when nothing is pending */
		timeout = sb_poll_timeout(now);
		if (refill && (timeout < 0 || timeout > idle_wait))
			timeout = idle_wait;
		if (sb_listen_fd >= 0 && now < sb_listen_paused_until)
		{
			int			pause = (int) ((sb_listen_paused_until - now + 999) / 1000);

			if (timeout < 0 || timeout > pause)
				timeout = pause;
		}
		rc = poll(pfds, n, timeout);
		if (rc < 0 && errno != EINTR)
			sb_worker_die("poll failed");
		now = sb_now_us();

		if (rc > 0)
		{
			int			nclients = sb_nclients;
			size_t		k;

			if (pfds[n - 1].fd >= 0 && pfds[n - 1].revents)
				sb_preloaded_lost();

			/* orphans first, from the last: a reap moves the last one down */
			for (i = (size_t) norphans; i-- > 0;)
				if (pfds[orphans_at + i].revents)
					sb_orphan_exited((int) i);

			/*
			 * Spares next: a dispatch below may take one and reorder the
			 * pool, and these poll entries follow its current order.
			 */
			sb_spares_polled(pfds + spares_at);

			k = 0;
			if (sb_listen_fd >= 0 && (pfds[k++].revents & POLLIN))
				sb_accept();
			for (i = 0; i < (size_t) nclients; i++, k += 3 + SB_MAX_HELD)
			{
				SbClient   *cl = &sb_clients[i];

				/*
				 * the child polled for may be gone already: a revocation
				 * on another client's behalf earlier in this round made
				 * it an orphan
				 */
				/* a reserved child claimed its call: time it from now */
				if (pfds[k + 2].fd >= 0 && pfds[k + 2].revents &&
					cl->child.pid > 0 && cl->child.reserved &&
					cl->child.claim_fd == pfds[k + 2].fd)
					sb_start_reserved(cl);
				if (pfds[k + 1].fd >= 0 && pfds[k + 1].revents &&
					cl->child.pid > 0 && cl->child.pidfd == pfds[k + 1].fd)
				{
					/*
					 * A reservation that ended before we saw its claim: if
					 * it claimed the call, the call ran (and is over).
					 */
					if (cl->child.reserved && !cl->gone && !sb_claim_back(&cl->child))
						sb_start_reserved(cl);
					sb_child_exited(cl, &cl->child);
				}
				/* held children, from the last: a reap moves the last one down */
				for (j = SB_MAX_HELD; j-- > 0;)
					if (pfds[k + 3 + j].fd >= 0 && pfds[k + 3 + j].revents &&
						j < cl->nheld && cl->held[j].pidfd == pfds[k + 3 + j].fd)
						sb_child_exited(cl, &cl->held[j]);
				if (pfds[k].fd >= 0 && cl->fd == pfds[k].fd && pfds[k].revents)
					sb_client_readable(cl);
			}
		}
		if (sb_preloaded_running())
			sb_reap_strays();
		now = sb_now_us();		/* handlers above may have queued requests */
		sb_enforce_deadlines(now);
		sb_dispatch_queue();
		sb_expire_queue(now);
		sb_grant_reservations();

		if (rc == 0 && refill && (overdue || sb_now_us() - sb_last_busy_us >= SB_SPARE_IDLE_US))
		{
			if (!overdue && sb_held_busy())
				sb_last_busy_us = sb_now_us();	/* calls go on: later */
			else if (!sb_spares_add(sb_adm.default_shape))
			{
				fprintf(stderr, "pysandbox-worker: could not fork a spare: %s\n",
						strerror(errno));
				sb_adm.target_spares = sb_spares_count();	/* do not spin */
			}
			else
				sb_spare_wanted_us = sb_now_us();	/* the next one waits its turn */
		}
	}
}

/*
 * Before any thread can start: one malloc arena, and small thread stacks.
 * A thread of the warm-up (matplotlib starts a Timer while it builds its
 * font list) made glibc reserve an arena of its own, 64 MB of PROT_NONE
 * address space every child inherits, counted by RLIMIT_AS but not used;
 * when a child's main heap met its limit, malloc grew into that reserve
 * with mprotect, which needs no new address space (a list of strings held
 * 81 MB at memory_mb 16), and native code could unmap it for as much
 * memory mapped shared (review 93).  The thread's stack, 8 MB, stayed in
 * glibc's cache after it ended, writable and hardly touched: room a child
 * could fill without new address space or data.  With one arena, threads
 * allocate from the main heap, whose growth the limits count; their
 * stacks are 256 kB.  Children start no threads (RLIMIT_NPROC 0).
 */
static void
sb_worker_one_arena(void)
{
	pthread_attr_t attr;

	(void) mallopt(M_ARENA_MAX, 1);
	if (pthread_attr_init(&attr) == 0)
	{
		if (pthread_attr_setstacksize(&attr, 256 * 1024) == 0)
			(void) pthread_setattr_default_np(&attr);
		pthread_attr_destroy(&attr);
	}
}

int
main(int argc, char **argv)
{
	pid_t		expected_parent = argc > 1 ? (pid_t) atol(argv[1]) : 0;
	const char *allowed = argc > 2 ? argv[2] : "";
	const char *preload = argc > 6 ? argv[6] : "";
	uint32_t	layers;

	sb_server_mode = argc > 3 && strcmp(argv[3], "server") == 0;
	sb_adm.target_spares = argc > 4 ? atoi(argv[4]) : 1;
	if (sb_adm.target_spares < 0)
		sb_adm.target_spares = 0;
	if (sb_adm.target_spares > SB_MAX_SPARES)
		sb_adm.target_spares = SB_MAX_SPARES;
	sb_adm.max_concurrent = argc > 5 ? (uint32_t) strtoul(argv[5], NULL, 10) : 0;

	/* 1. die with the process that started us, and check it is still there */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		sb_worker_die("could not set parent-death signal");
	if (expected_parent <= 0 || getppid() != expected_parent)
		_exit(1);
	if (fcntl(SB_WORKER_CONTROL_FD, F_GETFD) < 0)
		sb_worker_die("no control socket on fd 3");
	(void) fcntl(SB_WORKER_CONTROL_FD, F_SETFD, FD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);

	sb_containment.worker_pid = getpid();
	sb_containment.userns_fd = sb_containment.mntns_fd = -1;
	sb_worker_one_arena();
	sb_seal_read_switch();

	/* 2. interpreter, pandas, warm-up; then what the child may read */
	sb_seccomp_prepare();
	if (sb_python_start(allowed, preload) < 0)
	{
		static const char msg[] = "could not start the embedded Python interpreter";

		if (!sb_server_mode)
			(void) sb_worker_send(SB_WORKER_CONTROL_FD, SB_CTL_FAILED, msg, sizeof(msg) - 1);
		fprintf(stderr, "pysandbox-worker: %s\n", msg);
		_exit(1);
	}
	sb_containment.n_read_paths =
		sb_python_read_paths(sb_containment.read_paths, SB_MAX_READ_PATHS);

	layers = (sb_seccomp_ready() ? SB_LAYER_SECCOMP : 0) |
		(sb_landlock_abi() > 0 ? SB_LAYER_LANDLOCK : 0) |
		(sb_namespaces_work() ? SB_LAYER_NAMESPACES : 0) |
		(sb_mountns_template(&sb_containment) ? SB_LAYER_MOUNTNS : 0);

	/* the shape the backends' defaults ask for (pysandbox.filesystem_layer auto) */
	/* both filesystem layers where both work (sb_worker.c in the backend) */
	sb_adm.default_shape = (layers & SB_LAYER_NAMESPACES) ? SB_SPAWN_NAMESPACES : 0;
	if (layers & SB_LAYER_MOUNTNS)
		sb_adm.default_shape |= (layers & SB_LAYER_LANDLOCK) ? SB_SPAWN_FS_MOUNT
			: SB_SPAWN_FS_MOUNT | SB_SPAWN_NO_LANDLOCK;
	else if (!(layers & SB_LAYER_LANDLOCK))
		sb_adm.default_shape |= SB_SPAWN_ALLOW_NO_LANDLOCK;
	sb_ncpus = (uint64_t) sysconf(_SC_NPROCESSORS_ONLN);
	if (sb_ncpus < 1)
		sb_ncpus = 1;

	memset(&sb_ready, 0, sizeof(sb_ready));
	sb_ready.version = SB_PROTOCOL_VERSION;
	sb_ready.layers = layers;
	sb_ready.landlock_abi = (uint32_t) sb_landlock_abi();
	sb_ready.max_concurrent = sb_adm.max_concurrent;
	sb_ready.spares = (uint32_t) sb_adm.target_spares;
	sb_ready.shared = sb_server_mode ? 1 : 0;
	sb_ready.instance = sb_python_instance();

	/*
	 * The extra modules go into a process of their own, forked now that
	 * the containment is built: this worker's children stay small
	 * (sb_preloaded.c).
	 */
	if (sb_preloaded_start(preload, SB_WORKER_CONTROL_FD, sb_server_mode,
						   sb_ready.preloaded, sizeof(sb_ready.preloaded)))
		sb_python_preloaded_elsewhere(sb_ready.preloaded);
	else if (preload[0] != '\0')
		sb_python_warm_later();

	/*
	 * Warm: seal the libraries' mappings, so that no child can trade their
	 * address space for memory (sb_seal.c).  Without mseal (Linux 6.10)
	 * sandbox_layers() says what that leaves open.
	 */
	if (sb_seal_file_mappings() >= 0)
		sb_ready.layers |= SB_LAYER_SEALED;
	else if (errno != ENOSYS)
		fprintf(stderr, "pysandbox-worker: could not seal the libraries' mappings: %s\n",
				strerror(errno));

	/* 3. serve */
	if (sb_server_mode)
	{
		struct rlimit nofile;

		/* one worker for the cluster: worth pinning what calls write */
		sb_hot_pages_pin();

		/* one fd per backend, two per child: use all the fds we may */
		if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max)
		{
			nofile.rlim_cur = nofile.rlim_max;
			(void) setrlimit(RLIMIT_NOFILE, &nofile);
		}
		sb_listen_fd = SB_WORKER_CONTROL_FD;
		if (fcntl(sb_listen_fd, F_SETFL, O_NONBLOCK) < 0)
			sb_worker_die("could not configure the listening socket");
	}
	else
	{
		SbClient   *cl;

		if (!sb_worker_send(SB_WORKER_CONTROL_FD, SB_CTL_READY, &sb_ready, sizeof(sb_ready)))
			_exit(0);
		cl = sb_client_slot();
		cl->fd = SB_WORKER_CONTROL_FD;
	}
	sb_serve();
}
