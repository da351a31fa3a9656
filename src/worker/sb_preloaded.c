/*
 * sb_preloaded.c
 *		The preloaded process: a copy of the warm worker that also imports
 *		pysandbox.preload_modules, and forks the children of the calls
 *		whose code names one of them.
 *
 * Every fresh child is a fork of the process it comes from, and a fork (and
 * the child's exit) costs in proportion to that process's mappings and
 * private pages: scipy alone adds ~500 mappings and ~22 MB of private
 * pages to a worker, and every call paid for them, ~17 % of throughput on
 * a two-core VM, whether its code used scipy or not.  So the worker leaves
 * those modules out of its own address space.  Right after it has warmed
 * numpy and pandas (and built its containment: the mount namespace
 * template, the read paths) it forks this process, which imports and warms
 * the extra modules and then only forks, on the worker's request, the
 * children that need them.  The backend asks for such a child
 * (SB_SPAWN_PRELOADED) when the call's code names a preloaded package
 * (sb_worker.c in the backend); other calls fork from the lean worker.
 *
 * The worker supervises every child the same way, so every child must be
 * the worker's own: it waits for them (wait4 with their resource usage),
 * and their parent-death signal must follow the worker.  glibc has no fork
 * that makes a sibling (CLONE_PARENT would leave the child's thread
 * descriptor naming this process's thread), so each child is made by a
 * double fork: this process vforks an intermediate, the intermediate forks
 * the child and exits at once, and the child is reparented to the worker,
 * which is a child subreaper (PR_SET_CHILD_SUBREAPER).  The child waits for
 * that before its containment sets the parent-death signal and checks its
 * parent (sb_child_main), and this process reaps the intermediate before it
 * tells the worker the child's pid, so the worker never waits for a process
 * that is not yet its own.
 *
 * Requests: one SEQPACKET message per child, {shape, spare} with the
 * child's data socket and claim token (or none) attached; the reply is the
 * child's pid, or minus an errno.  If the worker goes, this process dies
 * with it (parent-death signal, and the socket's end); if this process
 * goes, the worker stops (sb_worker.c): the fork server starts a new pair.
 * Nothing here runs user code; the children contain themselves exactly as
 * the worker's own do (sb_contain.c).
 */
#include "sb_worker.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * How long the worker waits for a fork: two forks of a large process take
 * milliseconds even on a loaded machine; a process that does not answer in
 * this time is stopped or hung, and the worker's own loop waits meanwhile.
 */
#define SB_PRELOADED_REPLY_MS 10000

typedef struct SbPreloadedRequest
{
	uint32_t	shape;
	uint32_t	spare;
	uint32_t	mailbox;		/* 1: a mailbox fd comes after the data fd */
} SbPreloadedRequest;

/* the worker's end of the socket to the preloaded process, or -1 */
static int	sb_preloaded_fd = -1;
static pid_t sb_preloaded_pid = 0;

/* Send one message with up to three fds attached. */
static int
sb_send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
	struct msghdr msg;
	struct iovec iov = {.iov_base = (void *) buf,.iov_len = len};
	union
	{
		char		buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	}			cmsgbuf;
	ssize_t		n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0)
	{
		struct cmsghdr *cmsg;

		memset(&cmsgbuf, 0, sizeof(cmsgbuf));
		msg.msg_control = cmsgbuf.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, nfds * sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t) len ? 0 : -1;
}

/*
 * In the preloaded process: the next request, with its fds.  Returns the
 * message length, 0 when the worker has gone, -1 on a malformed message
 * (its fds are closed).
 */
static ssize_t
sb_recv_request(int sock, SbPreloadedRequest *req, int *data_fd, int *mailbox_fd,
				int *claim_fd)
{
	struct msghdr msg;
	struct iovec iov = {.iov_base = req,.iov_len = sizeof(*req)};
	union
	{
		char		buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	}			cmsgbuf;
	struct cmsghdr *cmsg;
	int			fds[3] = {-1, -1, -1};
	int			nfds = 0;
	ssize_t		n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cmsgbuf.buf;
	msg.msg_controllen = sizeof(cmsgbuf.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? 0 : n;	/* an error on our own socket: as gone */
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL; cmsg = CMSG_NXTHDR(&msg, cmsg))
	{
		if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS)
		{
			int			k = (int) ((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int			i;

			for (i = 0; i < k; i++)
			{
				int			fd;

				memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
				if (nfds < 3)
					fds[nfds++] = fd;
				else
					close(fd);
			}
		}
	}
	if (n != (ssize_t) sizeof(*req) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		nfds != 1 + (req->mailbox ? 1 : 0) + (req->spare ? 1 : 0))
	{
		for (nfds = 0; nfds < 3; nfds++)
			if (fds[nfds] >= 0)
				close(fds[nfds]);
		return -1;
	}
	*data_fd = fds[0];
	*mailbox_fd = req->mailbox ? fds[1] : -1;
	*claim_fd = req->spare ? fds[req->mailbox ? 2 : 1] : -1;
	return n;
}

/* what the intermediate says: the child's pid, or minus an errno */
static volatile int32_t sb_intermediate_said;

/*
 * Fork a child for the worker: the intermediate is a vfork() child, which
 * shares this process's memory (no page tables copied: a second fork of a
 * process this size would cost as much as the child's own) and runs only
 * until it has forked the child with fork(), so that glibc sets the child
 * up as any forked process.  This process resumes once the intermediate has
 * exited; it reaps it, and so the child has been reparented to the worker
 * before its pid is returned.
 */
static int32_t
sb_fork_for_worker(uint32_t shape, bool spare, int data_fd, int mailbox_fd, int claim_fd,
				   int sock)
{
	pid_t		mid;
	int32_t		said;

	sb_intermediate_said = -ECHILD;
	sb_python_before_fork();
	mid = vfork();
	if (mid == 0)
	{
		pid_t		child = fork();

		if (child == 0)
		{
			close(sock);
			(void) prctl(PR_SET_NAME, SB_WORKER_COMM);	/* a child like any other */
			sb_child_main(shape, spare, data_fd, mailbox_fd, claim_fd);
		}
		sb_intermediate_said = child < 0 ? -errno : (int32_t) child;
		_exit(0);
	}
	sb_python_after_fork_parent();
	if (mid < 0)
		return -errno;
	said = sb_intermediate_said;
	while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
		;
	return said;
}

/* The preloaded process's loop: fork children until the worker goes. */
static void __attribute__((noreturn))
sb_preloaded_serve(int sock)
{
	sb_stack_live_end = __builtin_dwarf_cfa();
	for (;;)
	{
		SbPreloadedRequest req;
		int			data_fd = -1;
		int			mailbox_fd = -1;
		int			claim_fd = -1;
		int32_t		reply;
		ssize_t		n = sb_recv_request(sock, &req, &data_fd, &mailbox_fd, &claim_fd);

		if (n == 0)
			_exit(0);			/* the worker has gone */
		if (n < 0)
			reply = -EPROTO;
		else
			reply = sb_fork_for_worker(req.shape, req.spare != 0, data_fd, mailbox_fd, claim_fd,
									   sock);
		if (data_fd >= 0)
			close(data_fd);
		if (mailbox_fd >= 0)
			close(mailbox_fd);
		if (claim_fd >= 0)
			close(claim_fd);
		if (sb_send_with_fds(sock, &reply, sizeof(reply), NULL, 0) < 0)
			_exit(0);
	}
}

/*
 * In the worker, once warm and with its containment built: fork the
 * preloaded process, which imports preload_modules (and, with pin, pins
 * the pages its children's calls write, as the fork server's worker does:
 * sb_hotpages.c).  Returns true once it is ready, with the names it
 * imported in names; false (and no process) if it could not start or
 * imported none of them: children then all come from the worker, and code
 * that imports one of them is told it is not preloaded.
 */
bool
sb_preloaded_start(const char *preload, int worker_fd, bool pin, char *names, size_t size)
{
	int			sv[2];
	pid_t		pid;
	char		buf[SB_PRELOADED_MAX];
	pid_t		worker = getpid();
	ssize_t		n;

	names[0] = '\0';
	if (preload == NULL || preload[0] == '\0')
		return false;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ||
		socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
	{
		fprintf(stderr, "pysandbox-worker: could not start the preloaded process: %s\n",
				strerror(errno));
		return false;
	}
	sb_python_before_fork();
	pid = fork();
	if (pid == 0)
	{
		char		out[SB_PRELOADED_MAX];

		sb_python_after_fork_child();
		(void) prctl(PR_SET_NAME, SB_PRELOADED_COMM);	/* for ps and the tests */
		close(sv[0]);
		/* nothing of the worker's clients: only the worker talks to us */
		if (worker_fd >= 0)
			close(worker_fd);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
			getppid() != worker)
			_exit(1);
		sb_python_preload(preload, out, sizeof(out));
		/* as the worker does once warm (sb_seal.c): its children inherit these */
		if (sb_seal_file_mappings() < 0 && errno != ENOSYS)
		{
			fprintf(stderr, "pysandbox-worker: could not seal the preloaded libraries' mappings: %s\n",
					strerror(errno));
			_exit(1);
		}
		/* its children write other pages than the worker's: its own pins */
		if (pin && out[0] != '\0')
			sb_hot_pages_pin();
		if (sb_send_with_fds(sv[1], out, strlen(out) + 1, NULL, 0) < 0)
			_exit(1);
		sb_preloaded_serve(sv[1]);
	}
	sb_python_after_fork_parent();
	close(sv[1]);
	if (pid < 0)
	{
		fprintf(stderr, "pysandbox-worker: could not start the preloaded process: %s\n",
				strerror(errno));
		close(sv[0]);
		return false;
	}
	do
		n = recv(sv[0], buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0 || buf[n - 1] != '\0' || buf[0] == '\0')
	{
		/* it died starting, or preloaded nothing: do without it */
		if (n > 0)
			fprintf(stderr, "pysandbox-worker: none of pysandbox.preload_modules could be imported\n");
		else
			fprintf(stderr, "pysandbox-worker: the preloaded process exited while starting\n");
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(sv[0]);
		return false;
	}
	snprintf(names, size, "%s", buf);
	sb_preloaded_fd = sv[0];
	sb_preloaded_pid = pid;
	return true;
}

/* Is there a preloaded process to fork SB_SPAWN_PRELOADED children from? */
bool
sb_preloaded_running(void)
{
	return sb_preloaded_fd >= 0;
}

/*
 * The worker's end of the socket to the preloaded process, for its poll
 * set (-1: none): readable between requests only if that process has gone.
 */
int
sb_preloaded_socket(void)
{
	return sb_preloaded_fd;
}

/* In the worker: the preloaded process has gone; so does the worker. */
void
sb_preloaded_lost(void)
{
	fprintf(stderr, "pysandbox-worker: the preloaded process %d has exited; stopping\n",
			(int) sb_preloaded_pid);
	_exit(1);					/* whoever started us starts a new pair */
}

/*
 * In the worker: have the preloaded process fork a child (data_fd and
 * claim_fd as sb_fork_child makes them; the worker keeps its copies).
 * Returns the child's pid, by then the worker's own child, or -1 with
 * errno set.  If the preloaded process has gone, so does the worker.
 */
pid_t
sb_preloaded_fork(uint32_t shape, bool spare, int data_fd, int mailbox_fd, int claim_fd)
{
	SbPreloadedRequest req = {.shape = shape,.spare = spare ? 1 : 0,.mailbox = mailbox_fd >= 0};
	int			fds[3] = {data_fd, mailbox_fd, claim_fd};
	int			nfds = 1;
	int32_t		reply;
	ssize_t		n;

	if (sb_preloaded_fd < 0)
	{
		errno = ENOSYS;
		return -1;
	}
	if (mailbox_fd >= 0)
		fds[nfds++] = mailbox_fd;
	if (spare)
		fds[nfds++] = claim_fd;
	if (sb_send_with_fds(sb_preloaded_fd, &req, sizeof(req), fds, nfds) < 0)
	{
		if (errno != EPIPE && errno != ECONNRESET)
			return -1;			/* out of buffers or fds: this child only */
		sb_preloaded_lost();
	}
	n = -1;
	for (;;)
	{
		struct pollfd p = {.fd = sb_preloaded_fd,.events = POLLIN};
		int			rc = poll(&p, 1, SB_PRELOADED_REPLY_MS);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 1)
			do
				n = recv(sb_preloaded_fd, &reply, sizeof(reply), MSG_DONTWAIT);
			while (n < 0 && errno == EINTR);
		break;
	}
	/* gone, or hung (stopped, say): every call waits on this loop */
	if (n != (ssize_t) sizeof(reply))
		sb_preloaded_lost();
	if (reply < 0)
	{
		errno = -reply;
		return -1;
	}
	return (pid_t) reply;
}
