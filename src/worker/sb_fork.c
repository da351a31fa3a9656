/*
 * sb_fork.c
 *		A child's life on the worker's side until a client has it: forking
 *		it (itself, or through the preloaded process), what it runs before
 *		it waits for its call's limits (sb_child_main: the call-independent
 *		containment steps, a spare's warm-up), and discarding one no client
 *		will hear of.  Serving clients, reservations and deadlines is
 *		sb_worker.c's; the pool of spares, sb_spares.c's; timing held
 *		children, sb_held.c's.
 */
#include "sb_children.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* how every child is contained (filled in by main(), sb_worker.c) */
SbContainment sb_containment;

/* A child slot with nothing in it. */
void
sb_child_clear(SbChild *c)
{
	memset(c, 0, sizeof(*c));
	c->data_fd = -1;
	c->mailbox_fd = -1;
	c->claim_fd = -1;
}

/* Close the worker's copies of a child's data socket and mailbox. */
void
sb_child_close_channel(SbChild *c)
{
	if (c->data_fd >= 0)
		close(c->data_fd);
	if (c->mailbox_fd >= 0)
		close(c->mailbox_fd);
	c->data_fd = -1;
	c->mailbox_fd = -1;
}

/*
 * CPU time (user + system) a child has used so far, from its process CPU
 * clock (microseconds, exact); 0 if it cannot be read.  Leaves a spare's
 * warm-up out of the call's usage, and enforces the call's CPU limit.
 */
uint64_t
sb_child_cpu_us(const SbChild *c)
{
	struct timespec ts;

	if (clock_gettime(c->cpu_clock, &ts) < 0)
		return 0;
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* A "Name:   value kB" field of /proc/<pid>/status, 0 if missing. */
static uint64_t
sb_status_kb(const char *status, const char *field)
{
	const char *line = strstr(status, field);

	return line == NULL ? 0 : strtoull(line + strlen(field), NULL, 10);
}

/*
 * A child's data limit in kB, from /proc/<pid>/limits (it sets its own
 * before any of its call's code runs: sb_contain.c); 0 while it has none.
 */
static uint64_t
sb_child_data_limit_kb(const SbChild *c)
{
	char		buf[2048];
	char	   *line;
	char	   *end;
	unsigned long long bytes;

	if (!sb_proc_read(c->pid, "limits", buf, sizeof(buf)))
		return 0;
	line = strstr(buf, "\nMax data size");
	if (line == NULL)
		return 0;
	line += strlen("\nMax data size");
	bytes = strtoull(line, &end, 10);
	return end == line ? 0 : bytes / 1024;	/* "unlimited": none yet */
}

/* This process's own data limit in kB, as sb_child_data_limit_kb reads it. */
static uint64_t
sb_own_data_limit_kb(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_DATA, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return (uint64_t) rl.rlim_cur / 1024;
}

/*
 * Kill a child whose page tables outgrew what its memory limit allows
 * (SB_PTE_BUDGET_KB), or that holds more private memory than its data
 * limit and stack (SB_RESIDENT_SLACK_KB); true if it was.  Both come from
 * one reading of /proc/<pid>/status (0 where it cannot be read: an exiting
 * child).
 */
bool
sb_child_memory_over(SbChild *c)
{
	char		buf[4096];
	uint64_t	resident;
	uint64_t	stack;
	uint64_t	data_limit_kb;
	uint32_t	cause;

	if (c->pid <= 0 || c->killed ||
		!sb_proc_read(c->pid, "status", buf, sizeof(buf)))
		return false;
	/*
	 * Until the child has set its own, its limits show the worker's
	 * (finite where the server runs under ulimit -d: review 96); once they
	 * differ, they are its own and never change (held children are read
	 * every 10 ms).
	 */
	data_limit_kb = c->data_limit_kb;
	if (data_limit_kb == 0)
	{
		data_limit_kb = sb_child_data_limit_kb(c);
		if (data_limit_kb != sb_own_data_limit_kb())
			c->data_limit_kb = data_limit_kb;
	}
	resident = sb_status_kb(buf, "\nRssAnon:") + sb_status_kb(buf, "\nRssShmem:") +
		sb_status_kb(buf, "\nHugetlbPages:");
	/* its stack, up to what a stack honestly takes (review 96: VmStk counts
	 * any mapping the code makes MAP_GROWSDOWN or moves out of its stack) */
	stack = sb_status_kb(buf, "\nVmStk:");
	if (stack > SB_STACK_CREDIT_KB)
		stack = SB_STACK_CREDIT_KB;
	if (sb_status_kb(buf, "\nVmPTE:") > SB_PTE_BUDGET_KB(c->limits.memory_mb))
		cause = SB_EXIT_MEMORY;
	else if (data_limit_kb > 0 && resident > data_limit_kb + stack + SB_RESIDENT_SLACK_KB)
		cause = SB_EXIT_RESIDENT;
	else
		return false;
	kill(c->pid, SIGKILL);
	c->killed = true;
	c->cause = cause;
	return true;
}

/*
 * Did the child die with its seccomp filter on?  Read from /proc while it
 * is a zombie, before it is reaped.  A setup failure it reports is forged
 * if so: containment ends with the filter.
 */
bool
sb_child_was_contained(pid_t pid)
{
	char		buf[4096];
	char	   *line;

	if (!sb_proc_read(pid, "status", buf, sizeof(buf)))
		return true;			/* cannot tell: do not trust the report */
	line = strstr(buf, "\nSeccomp:");
	return line == NULL || atoi(line + strlen("\nSeccomp:")) != 0;
}

/*
 * A new child, forked by the worker or by its preloaded process (then
 * reparented to the worker: sb_preloaded.c): run the call-independent
 * containment steps at once, warm up if it is a spare, then block on the
 * data socket until the worker writes the call's limits.
 */
void __attribute__((noreturn))
sb_child_main(uint32_t shape, bool spare, int data_fd, int mailbox_fd, int claim_fd)
{
	unsigned char hdr[SB_FRAME_HEADER_SIZE];
	SbSpawnRequest req;
	uint32_t	type,
				len;
	int			statm_fd;
	pid_t		first_parent = getppid();

	/*
	 * Forked by the intermediate of a double fork: it is exiting, and the
	 * kernel then makes the worker (a subreaper) this process's parent.
	 * The parent-death signal may be set only after that, or the
	 * intermediate's exit would deliver it; sb_contain_prepare checks the
	 * parent is the worker.
	 */
	if (first_parent != sb_containment.worker_pid)
	{
		struct timespec pause = {.tv_sec = 0,.tv_nsec = 20000};
		int			tries;

		for (tries = 0; getppid() == first_parent && tries < 50000; tries++)
			(void) nanosleep(&pause, NULL);
	}
	/* the frames above this one are dead: it never returns */
	sb_stack_forget(__builtin_dwarf_cfa());
	sb_worker_forget();
	sb_containment.flags = shape;
	/* mapped before any containment step; the fd itself is closed by them */
	if (!sb_python_map_mailbox(mailbox_fd))
		_exit(SB_CHILD_EXIT_SETUP);
	sb_python_after_fork_child();
	statm_fd = sb_contain_prepare(data_fd, claim_fd, &sb_containment);
	if (spare)
	{
		sb_python_prewarm();
		/* tell the worker this spare is warm (read before any handover) */
		if (write(SB_CHILD_DATA_FD, "R", 1) != 1)
			_exit(SB_CHILD_EXIT_SETUP);
	}
	if (sb_read_all(SB_CHILD_DATA_FD, hdr, sizeof(hdr)) < 0)
		_exit(SB_CHILD_EXIT_SETUP); /* the worker dropped this spare */
	sb_frame_header_decode(hdr, &type, &len);
	if (type != SB_DATA_LIMITS || len != sizeof(req) ||
		sb_read_all(SB_CHILD_DATA_FD, &req, sizeof(req)) < 0)
		_exit(SB_CHILD_EXIT_SETUP);
	/* SIGPROF says where the code was (before the filter fixes it) */
	if (sb_where_install() < 0)
		_exit(SB_CHILD_EXIT_SETUP);
	sb_contain_finish(&sb_containment, &req, statm_fd);
	_exit(sb_python_serve(req.flags, req.cpu_ms, claim_fd >= 0));
}

/*
 * Fork a child of the given shape.  It runs the call-independent
 * containment steps at once, warms up if it is a spare, then blocks on its
 * data socket until the worker writes the call's limits.  A spare also
 * gets a claim token (an eventfd at 0, see sb_protocol.h), so that it can
 * later be reserved for a client and taken back until its call begins.
 */
bool
sb_fork_child(uint32_t shape, bool spare, SbChild *out)
{
	int			sv[2];
	int			claim = -1;
	int			mailbox;
	int			rc;
	pid_t		pid;

	sb_child_clear(out);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return false;
	if (spare &&
		(claim = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
	{
		close(sv[0]);
		close(sv[1]);
		return false;
	}
	/* none (no memfd here): the child's calls go on the socket */
	mailbox = sb_mailbox_create();

	if (shape & SB_SPAWN_PRELOADED && sb_preloaded_running())
		pid = sb_preloaded_fork(shape, spare, sv[1], mailbox, claim);
	else
	{
		sb_python_before_fork();
		pid = fork();
		if (pid == 0)
			sb_child_main(shape, spare, sv[1], mailbox, claim);
		sb_python_after_fork_parent();
	}
	close(sv[1]);
	if (pid < 0)
	{
		close(sv[0]);
		if (mailbox >= 0)
			close(mailbox);
		if (claim >= 0)
			close(claim);
		return false;
	}
	out->pid = pid;
	out->data_fd = sv[0];
	out->mailbox_fd = mailbox;
	out->claim_fd = claim;
	out->shape = shape;
	out->pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
	if (out->pidfd >= 0 && (rc = clock_getcpuclockid(pid, &out->cpu_clock)) != 0)
	{
		close(out->pidfd);
		out->pidfd = -1;
		errno = rc;
	}
	if (out->pidfd < 0)
	{
		int			save = errno;

		/* out of fds: this child cannot be supervised, so it must not run */
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		sb_child_close_channel(out);
		if (claim >= 0)
			close(claim);
		sb_child_clear(out);
		errno = save;
		return false;
	}
	return true;
}

/* Kill (if still running) and reap a child that no client will hear of. */
void
sb_discard_child(SbChild *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(c->pidfd);
	sb_child_close_channel(c);
	if (c->claim_fd >= 0)
		close(c->claim_fd);
	sb_child_clear(c);
}

