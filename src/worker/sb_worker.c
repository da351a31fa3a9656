/*
 * sb_worker.c
 *		Entry point of pysandbox-worker, the exec'd half of pysandbox.
 *
 * The backend starts this binary with a clean environment, its control
 * socket on fd 3, and /dev/null or the server log on fds 0-2.  The worker
 *
 *	1. makes sure it dies with the backend that started it,
 *	2. starts CPython and imports and warms numpy and pandas (threads off),
 *	3. says READY, then serves SPAWN requests one at a time: for each it
 *	   forks a child, hands the backend the child's data socket, and waits
 *	   for the child to exit, the wall-clock deadline to pass or the backend
 *	   to ask for a kill; it then reaps the child and reports how it ended.
 *
 * Invariants: at most one child exists at a time; every child is reaped
 * before the next request is read; when the control socket closes the
 * worker kills and reaps its child and exits.  Nothing here runs user code:
 * the child contains itself before reading any (sb_contain.c).
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int	sb_control_fd = SB_WORKER_CONTROL_FD;
static SbContainment sb_containment;

/* Print a diagnostic to the worker's stderr (the server log) and exit. */
static void __attribute__((noreturn))
sb_worker_die(const char *what)
{
	fprintf(stderr, "pysandbox-worker: %s: %s\n", what, strerror(errno));
	_exit(1);
}

/* Monotonic clock in microseconds. */
static uint64_t
sb_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/*
 * Receive one control record (SOCK_SEQPACKET: one frame per record) with a
 * payload of exactly want bytes into payload.  Returns 0 on success, -1 on
 * EOF or error, -2 on a malformed record.
 */
static int
sb_worker_recv(uint32_t *type, void *payload, uint32_t want)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + SB_CONTROL_MAX_PAYLOAD];
	uint32_t	len;
	ssize_t		n;

	do
		n = recv(sb_control_fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	if (n < SB_FRAME_HEADER_SIZE)
		return -2;
	sb_frame_header_decode(buf, type, &len);
	if (len != want || (size_t) n != SB_FRAME_HEADER_SIZE + (size_t) len)
		return -2;
	if (want > 0)
		memcpy(payload, buf + SB_FRAME_HEADER_SIZE, want);
	return 0;
}

/* Send a FAILED frame with a short reason. */
static void
sb_worker_send_failed(const char *reason)
{
	if (sb_send_frame(sb_control_fd, SB_CTL_FAILED, reason, (uint32_t) strlen(reason)) < 0)
		sb_worker_die("could not write to control socket");
}

/* Send SPAWNED with the backend's end of the data socket attached. */
static int
sb_worker_send_spawned(pid_t pid, int fd)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + sizeof(SbSpawned)];
	SbSpawned	sp = {.pid = pid};
	struct msghdr msg = {0};
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	union
	{
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	}			ctl;
	struct cmsghdr *cmsg;
	ssize_t		n;

	sb_frame_header_encode(buf, SB_CTL_SPAWNED, sizeof(sp));
	memcpy(buf + SB_FRAME_HEADER_SIZE, &sp, sizeof(sp));
	memset(&ctl, 0, sizeof(ctl));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));

	do
		n = sendmsg(sb_control_fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return (n == (ssize_t) sizeof(buf)) ? 0 : -1;
}

/*
 * Wait for the child to end, killing it on the deadline or when the backend
 * asks, then reap it and report.  Returns false if the backend went away.
 */
static bool
sb_worker_supervise(pid_t pid, uint64_t started_us, uint32_t timeout_ms)
{
	int			pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
	uint64_t	deadline = started_us + (uint64_t) timeout_ms * 1000;
	uint32_t	cause = SB_EXIT_BY_ITSELF;
	bool		backend_alive = true;
	bool		killed = false;
	SbExitReport rep;
	struct rusage ru;
	int			status;
	pid_t		r;

	if (pidfd < 0)
		sb_worker_die("pidfd_open failed");

	for (;;)
	{
		struct pollfd pfd[2];
		int			nfds = 0;
		int			wait_ms = -1;
		int			rc;

		pfd[nfds].fd = pidfd;
		pfd[nfds++].events = POLLIN;
		if (backend_alive)
		{
			pfd[nfds].fd = sb_control_fd;
			pfd[nfds++].events = POLLIN;
		}
		if (!killed)
		{
			uint64_t	now = sb_now_us();

			wait_ms = now >= deadline ? 0 : (int) ((deadline - now + 999) / 1000);
		}

		rc = poll(pfd, nfds, wait_ms);
		if (rc < 0 && errno != EINTR)
			sb_worker_die("poll failed");
		if (rc > 0 && (pfd[0].revents & POLLIN))
			break;				/* the child has exited */

		if (rc == 0 && !killed)
		{
			kill(pid, SIGKILL);
			killed = true;
			cause = SB_EXIT_TIMEOUT;
			continue;
		}
		if (backend_alive && nfds > 1 && pfd[1].revents)
		{
			uint32_t	type;

			/* EOF, an error or anything but KILL: the backend is gone */
			if (sb_worker_recv(&type, NULL, 0) != 0 || type != SB_CTL_KILL)
				backend_alive = false;
			if (!killed)
			{
				kill(pid, SIGKILL);
				killed = true;
				cause = SB_EXIT_KILLED;
			}
		}
	}

	do
		r = wait4(pid, &status, 0, &ru);
	while (r < 0 && errno == EINTR);
	close(pidfd);
	if (r != pid)
		sb_worker_die("wait4 failed");

	if (!backend_alive)
		_exit(0);

	memset(&rep, 0, sizeof(rep));
	rep.pid = pid;
	rep.wait_status = status;
	rep.cause = cause;
	rep.wall_us = sb_now_us() - started_us;
	rep.user_us = (uint64_t) ru.ru_utime.tv_sec * 1000000 + (uint64_t) ru.ru_utime.tv_usec;
	rep.sys_us = (uint64_t) ru.ru_stime.tv_sec * 1000000 + (uint64_t) ru.ru_stime.tv_usec;
	rep.maxrss_kb = (uint64_t) ru.ru_maxrss;
	return sb_send_frame(sb_control_fd, SB_CTL_EXITED, &rep, sizeof(rep)) == 0;
}

/* Fork a contained child for one call and supervise it to the end. */
static bool
sb_worker_spawn(const SbSpawnRequest *req)
{
	int			sv[2];
	pid_t		pid;
	uint64_t	started_us = sb_now_us();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
	{
		sb_worker_send_failed("could not create data socket");
		return true;
	}

	sb_containment.timeout_ms = req->timeout_ms;
	sb_containment.cpu_ms = req->cpu_ms;
	sb_containment.memory_mb = req->memory_mb;
	sb_containment.flags = req->flags;

	sb_python_before_fork();
	pid = fork();
	if (pid == 0)
	{
		sb_python_after_fork_child();
		sb_contain(sv[1], &sb_containment);
		_exit(sb_python_serve(req->flags));
	}
	sb_python_after_fork_parent();
	close(sv[1]);

	if (pid < 0)
	{
		close(sv[0]);
		sb_worker_send_failed("could not fork sandbox process");
		return true;
	}

	if (sb_worker_send_spawned(pid, sv[0]) < 0)
	{
		close(sv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return false;
	}
	close(sv[0]);

	return sb_worker_supervise(pid, started_us, req->timeout_ms);
}

int
main(int argc, char **argv)
{
	const char *allowed = argc > 2 ? argv[2] : "";
	pid_t		expected_parent = argc > 1 ? (pid_t) atol(argv[1]) : 0;
	SbReady		ready;

	/* 1. die with the backend that started us, and check it is still there */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		sb_worker_die("could not set parent-death signal");
	if (expected_parent <= 0 || getppid() != expected_parent)
		_exit(1);
	if (fcntl(sb_control_fd, F_GETFD) < 0)
		sb_worker_die("no control socket on fd 3");
	(void) fcntl(sb_control_fd, F_SETFD, FD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);

	sb_containment.worker_pid = getpid();
	sb_containment.devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (sb_containment.devnull_fd < 0)
		sb_worker_die("could not open /dev/null");

	/* 2. interpreter, pandas, warm-up; then what the child may read */
	sb_seccomp_prepare();
	if (sb_python_start(allowed) < 0)
	{
		sb_worker_send_failed("could not start the embedded Python interpreter");
		_exit(1);
	}
	sb_containment.n_read_paths =
		sb_python_read_paths(sb_containment.read_paths, SB_MAX_READ_PATHS);

	/* 3. serve */
	memset(&ready, 0, sizeof(ready));
	ready.version = SB_PROTOCOL_VERSION;
	ready.landlock_abi = (uint32_t) sb_landlock_abi();
	ready.layers = (sb_seccomp_ready() ? SB_LAYER_SECCOMP : 0) |
		(ready.landlock_abi > 0 ? SB_LAYER_LANDLOCK : 0) |
		(sb_namespaces_work() ? SB_LAYER_NAMESPACES : 0) |
		(sb_mountns_works(&sb_containment) ? SB_LAYER_MOUNTNS : 0);
	if (sb_send_frame(sb_control_fd, SB_CTL_READY, &ready, sizeof(ready)) < 0)
		_exit(0);

	for (;;)
	{
		uint32_t	type = 0;
		SbSpawnRequest req;
		int			rc = sb_worker_recv(&type, &req, sizeof(req));

		if (rc == -1)
			_exit(0);			/* the backend closed the socket */
		if (rc == -2 && type == SB_CTL_KILL)
			continue;			/* a kill that raced with the exit report */
		if (rc != 0 || type != SB_CTL_SPAWN)
		{
			fprintf(stderr, "pysandbox-worker: unexpected control frame %u\n", type);
			_exit(1);
		}
		if (!sb_worker_spawn(&req))
			_exit(0);
	}
}
