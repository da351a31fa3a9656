/*
 * sb_worker.c
 *		"Get me a sandbox": the session's worker process and its children.
 *
 * On first use the backend starts the pysandbox-worker binary (fork, then
 * exec at once: the worker never holds this backend's memory, only the
 * control socket on fd 3 and fds 0-2) with a clean environment, and waits
 * for it to say READY.  Each call then asks the worker for a child
 * (SB_CTL_SPAWN) and receives the child's data socket (SCM_RIGHTS).  The
 * worker reaps the child and reports it (SB_CTL_EXITED).
 *
 * Callers see only sb_sandbox_acquire/kill/read_exit/release, so the
 * cluster-wide fork server and the per-session worker look the same.
 *
 * Reservations (sb_protocol.h): after a call the worker may send, unasked,
 * a child contained with that call's limits for our next one
 * (SB_CTL_RESERVED).  It waits in the control socket, fd and all, until the
 * next call reads it; if the limits still match, that call talks to the
 * child at once, without a round trip (the child's claim of the call tells
 * the worker, which times its limits from then on).
 * The worker may take it back until the call begins (SB_CTL_REVOKED); a
 * call that meets a revoked reservation sees its socket end with nothing
 * sent, and starts again with SB_CTL_SPAWN (sb_call.c).
 *
 * Ownership: control_fd, worker_pid and the reservation's fd belong to
 * this file.  A call's data_fd belongs to its SbSandbox until release.  The control channel is
 * SOCK_SEQPACKET, one frame per record.  Nothing here blocks without also
 * waiting on the latch, except the bounded waits of cleanup paths, which
 * cannot be interrupted because they run during error recovery.
 */
#include "pysandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"

/* how long the worker may take to import pandas and say READY */
#define SB_WORKER_START_TIMEOUT_MS	60000
/* how long a backend retries while the fork server (re)starts */
#define SB_SERVER_CONNECT_TIMEOUT_MS 10000

static int	sb_control_fd = -1;
static pid_t sb_worker_pid = 0;
/* how many workers this session has lost: its held children went with each */
uint64		sb_worker_epoch = 0;
static uint32 sb_worker_layers = 0;
static uint32 sb_worker_landlock_abi = 0;
static bool sb_worker_shared = false;
static uint64 sb_worker_instance = 0;	/* SbReady.instance, 0: none yet */
static char sb_worker_preloaded[SB_PRELOADED_MAX];	/* SbReady.preloaded */
static char *sb_worker_started_preload = NULL;	/* a session's own worker:
												 * preload_modules then */

/*
 * The pid of a child whose complete result we took without waiting for its
 * exit (sb_sandbox_detach).  If the worker reaps it before our next
 * request, its EXITED report comes ahead of the answer; if not, the worker
 * kills it when that request arrives and never reports it.  0: none.
 */
static int32 sb_exit_pending = 0;
static bool sb_exit_hook_set = false;

/* the child the worker reserved for our next call, if any */
typedef struct SbReservation
{
	int			fd;				/* its data socket, or -1 */
	int			mailbox_fd;		/* its mailbox (sb_protocol.h) */
	int32		pid;
	SbSpawnRequest limits;		/* what it was contained with */
} SbReservation;

static SbReservation sb_reservation = {.fd = -1,.mailbox_fd = -1};

/* Give up the reservation we hold (the worker learns it from our next request). */
static void
sb_reservation_drop(void)
{
	if (sb_reservation.fd >= 0)
		close(sb_reservation.fd);
	if (sb_reservation.mailbox_fd >= 0)
		close(sb_reservation.mailbox_fd);
	sb_reservation.fd = -1;
	sb_reservation.mailbox_fd = -1;
	sb_reservation.pid = 0;
}

/* Close the fds of a record (those not taken: -1). */
static void
sb_close_fds(int *fds)
{
	int			i;

	for (i = 0; i < SB_RECORD_MAX_FDS; i++)
	{
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/*
 * The one child a session can have at a time.  It lives in static memory,
 * not in a memory context, so the transaction-abort callback can release it
 * whatever contexts abort has already deleted.
 */
static SbSandbox sb_the_sandbox;

static void sb_server_connect(void);
static void sb_worker_ready(void);

/* Milliseconds elapsed since start. */
static long
sb_elapsed_ms(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return (long) INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Kill the worker (and so its child, by parent-death signal) and reap it.
 * Safe to call from error and exit paths: no ereport, no allocation.
 */
void
sb_sandbox_abandon_worker(void)
{
	int			i;

	sb_exit_pending = 0;
	sb_reservation_drop();
	/* the held children end with their worker (or their connection to it) */
	sb_held_forget();
	if (sb_control_fd >= 0 || sb_worker_pid > 0)
		sb_worker_epoch++;
	if (sb_control_fd >= 0)
	{
		close(sb_control_fd);
		sb_control_fd = -1;
	}
	if (sb_worker_pid > 0)
	{
		/* closing the socket asks it to exit; give it a moment, then kill */
		for (i = 0; i < 50; i++)
		{
			int			status;

			if (waitpid(sb_worker_pid, &status, WNOHANG) == sb_worker_pid)
			{
				/*
				 * one that did not just exit as asked ended on its own: say
				 * how, as the fork server does for its worker (review 117 F4:
				 * "the server log may say why", and it said nothing)
				 */
				if (WIFSIGNALED(status))
					ereport(LOG,
							(errmsg("pysandbox: this session's worker process %d was killed by signal %d (%s)",
									(int) sb_worker_pid, WTERMSIG(status),
									strsignal(WTERMSIG(status))),
							 errdetail("Sandbox calls in flight failed; the session's next call starts a new worker.")));
				else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
					ereport(LOG,
							(errmsg("pysandbox: this session's worker process %d exited with code %d",
									(int) sb_worker_pid, WEXITSTATUS(status)),
							 errdetail("Sandbox calls in flight failed; the session's next call starts a new worker.")));
				sb_worker_pid = 0;
				return;
			}
			pg_usleep(2000L);
		}
		kill(sb_worker_pid, SIGKILL);
		while (waitpid(sb_worker_pid, NULL, 0) < 0 && errno == EINTR)
			;
		sb_worker_pid = 0;
	}
}

/* on_proc_exit callback: take the worker down with the backend. */
static void
sb_worker_at_exit(int code, Datum arg)
{
	sb_sandbox_abandon_worker();
}

/*
 * Receive one control record.  Waits up to timeout_ms (interruptibly when
 * interruptible is true); returns false on timeout.  The fds a record
 * carries (at most SB_RECORD_MAX_FDS, in order; the others -1) go to
 * fds_out (or are closed if fds_out is NULL).  Any protocol problem
 * abandons the worker and raises an error.
 */
static bool
sb_control_recv(uint32 *type, void *payload, uint32 *len, long timeout_ms,
				bool interruptible, int *fds_out)
{
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		unsigned char buf[SB_FRAME_HEADER_SIZE + SB_CONTROL_MAX_PAYLOAD];
		union
		{
			char		buf[CMSG_SPACE(sizeof(int) * SB_RECORD_MAX_FDS)];
			struct cmsghdr align;
		}			ctl;
		struct iovec iov = {.iov_base = buf,.iov_len = sizeof(buf)};
		struct msghdr msg;
		ssize_t		n;
		long		left;
		int			rc;

		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(sb_control_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n > 0)
		{
			struct cmsghdr *cmsg;
			int			fds[SB_RECORD_MAX_FDS] = {-1, -1};
			int			nfds = 0;

			for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
			{
				if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS &&
					cmsg->cmsg_len >= CMSG_LEN(0))
				{
					int			k = (int) ((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
					int			i;

					for (i = 0; i < k; i++)
					{
						int			fd;

						memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
						if (nfds < SB_RECORD_MAX_FDS)
							fds[nfds++] = fd;
						else
							close(fd);
					}
				}
			}
			if (n >= SB_FRAME_HEADER_SIZE)
				sb_frame_header_decode(buf, type, len);
			if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || n < SB_FRAME_HEADER_SIZE ||
				*len > SB_CONTROL_MAX_PAYLOAD || (size_t) n != SB_FRAME_HEADER_SIZE + *len)
			{
				sb_close_fds(fds);
				sb_sandbox_abandon_worker();
				if (!interruptible)
					return false;
				ereport(ERROR,
						(errcode(ERRCODE_SYSTEM_ERROR),
						 errmsg("sandbox worker sent a malformed message")));
			}
			memcpy(payload, buf + SB_FRAME_HEADER_SIZE, *len);
			if (fds_out)
				memcpy(fds_out, fds, sizeof(fds));
			else
				sb_close_fds(fds);
			return true;
		}
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
		{
			sb_sandbox_abandon_worker();
			if (!interruptible)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("sandbox worker exited unexpectedly"),
					 errhint("The server log may say why; the next call starts a new worker.")));
		}

		left = timeout_ms - sb_elapsed_ms(start);
		if (left <= 0)
			return false;
		if (interruptible)
		{
			rc = WaitLatchOrSocket(MyLatch,
								   WL_LATCH_SET | WL_SOCKET_READABLE | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								   sb_control_fd, left, PG_WAIT_EXTENSION);
			if (rc & WL_LATCH_SET)
			{
				ResetLatch(MyLatch);
				CHECK_FOR_INTERRUPTS();
			}
		}
		else
		{
			struct pollfd pfd = {.fd = sb_control_fd,.events = POLLIN};

			(void) poll(&pfd, 1, (int) Min(left, 100));
		}
	}
}

/*
 * Wait for the answer to a request (READY or SPAWNED).  If we stop waiting
 * for any reason (timeout, cancel, error), the answer would arrive later
 * and desynchronise the channel, so the worker is abandoned instead; the
 * next call starts a new one.  Returns false on timeout.
 */
static bool
sb_control_recv_or_abandon(uint32 *type, void *payload, uint32 *len, int *fds_out,
						   long timeout_ms)
{
	bool		ok = false;

	PG_TRY();
	{
		ok = sb_control_recv(type, payload, len, timeout_ms, true, fds_out);
	}
	PG_CATCH();
	{
		sb_sandbox_abandon_worker();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (!ok)
		sb_sandbox_abandon_worker();
	return ok;
}

/* a control record's payload, whatever its type */
typedef union SbControlPayload
{
	SbSpawned	spawned;
	SbBusy		busy;
	SbExitReport exit;
	SbReserved	reserved;
	char		text[SB_CONTROL_MAX_PAYLOAD + 1];
} SbControlPayload;

/*
 * Act on a record the worker sends unasked: a reservation, its revocation,
 * or the exit report of a child we detached from.  fds are the record's
 * fds, consumed either way.  Returns false if the record is none of those.
 */
static bool
sb_control_async(uint32 type, const SbControlPayload *payload, uint32 len, int *fds)
{
	if (type == SB_CTL_RESERVED && len == sizeof(SbReserved) && fds[0] >= 0)
	{
		sb_reservation_drop();
		sb_reservation.fd = fds[0];
		sb_reservation.mailbox_fd = fds[1];
		sb_reservation.pid = payload->reserved.pid;
		sb_reservation.limits = payload->reserved.limits;
		fds[0] = fds[1] = -1;
		return true;
	}
	sb_close_fds(fds);
	if (type == SB_CTL_REVOKED && len == sizeof(SbSpawned))
	{
		/* one for a reservation we no longer hold is late, not wrong */
		if (payload->spawned.pid == sb_reservation.pid)
			sb_reservation_drop();
		return true;
	}
	if (type == SB_CTL_EXITED && len == sizeof(SbExitReport) &&
		sb_exit_pending != 0 && payload->exit.pid == sb_exit_pending)
	{
		sb_exit_pending = 0;
		return true;
	}
	/* a held child that ended between calls, or one dropped */
	if (type == SB_CTL_EXITED && len == sizeof(SbExitReport) &&
		sb_held_exit_report(&payload->exit))
		return true;
	return false;
}

/*
 * Read what the worker sent while this session was idle.  Never blocks or
 * raises: a worker that is gone or talks nonsense is abandoned (the caller
 * starts another).
 */
static void
sb_control_drain(void)
{
	while (sb_control_fd >= 0)
	{
		SbControlPayload payload;
		uint32		type,
					len;
		int			fds[SB_RECORD_MAX_FDS] = {-1, -1};

		if (!sb_control_recv(&type, &payload, &len, 0, false, fds))
			return;
		if (!sb_control_async(type, &payload, len, fds))
		{
			elog(LOG, "pysandbox: the sandbox worker sent an unexpected message (type %u) to an idle session", type);
			sb_sandbox_abandon_worker();
		}
	}
}

/*
 * Has the worker gone since this session last heard from it?  What it sent
 * meanwhile is read (sb_control_drain), and a worker that is gone is
 * abandoned now, which ends the session's held children (sb_worker_epoch).
 */
void
sb_sandbox_poll_worker(void)
{
	sb_control_drain();
}

/* Build the worker's environment: nothing from ours but BLAS settings (and a test switch). */
static char **
sb_worker_environment(void)
{
	static const char *const fixed[] = {
		"PATH=/usr/bin:/bin",
		"LANG=C.UTF-8",
		"OPENBLAS_NUM_THREADS=1",
		"OMP_NUM_THREADS=1",
		"MKL_NUM_THREADS=1",
		"NUMEXPR_MAX_THREADS=1",
		"NUMEXPR_NUM_THREADS=1",
		"GLIBC_TUNABLES=glibc.malloc.hugetlb=1",
	};
	/* (and the tests' stand-in for a kernel without mseal: sb_seal.c) */
	static const char *const passed[] = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
	"PYSANDBOX_TEST_NO_SEAL"};
	char	  **env = palloc0(sizeof(char *) * (lengthof(fixed) + lengthof(passed) + 1));
	int			n = 0;
	int			i;

	for (i = 0; i < lengthof(fixed); i++)
		env[n++] = pstrdup(fixed[i]);
	for (i = 0; i < lengthof(passed); i++)
	{
		const char *v = getenv(passed[i]);

		if (v)
			env[n++] = psprintf("%s=%s", passed[i], v);
	}
	return env;
}

/*
 * Fork and exec the worker binary with control_fd as its fd 3, a clean
 * environment and no other fd above 2.  Used for a session's own worker and
 * by the fork server.  Returns the pid, or -1 with errno set.
 */
pid_t
sb_worker_exec(const char *path, char *const *argv, int control_fd)
{
	char	  **envp = sb_worker_environment();
	pid_t		pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
	{
		/*
		 * In the child of a PostgreSQL process: only async-signal-safe calls
		 * until the exec replaces this image.
		 */
		sigset_t	none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);

		/*
		 * A session of its own: PostgreSQL signals a backend's whole process
		 * group on cancel and terminate, and the worker must not die (or
		 * leave its child to init) on those; it follows its parent through
		 * the control socket and its parent-death signal instead.
		 */
		(void) setsid();
		if (control_fd == SB_WORKER_CONTROL_FD)
			fcntl(control_fd, F_SETFD, 0);	/* dup2 would keep close-on-exec */
		else if (dup2(control_fd, SB_WORKER_CONTROL_FD) < 0)
			_exit(127);
		if (syscall(SYS_close_range, SB_WORKER_CONTROL_FD + 1, ~0U, 0) < 0)
		{
			int			fd;

			for (fd = SB_WORKER_CONTROL_FD + 1; fd < 65536; fd++)
				close(fd);
		}
		execve(path, argv, envp);
		_exit(127);
	}
	return pid;
}

/* Start the worker and wait until it is warm.  Raises an error on failure. */
static void
sb_worker_start(void)
{
	char		path[MAXPGPATH];
	char		ppid[32];
	char	   *argv[8];
	int			sv[2];
	pid_t		pid;

	if (!sb_exit_hook_set)
	{
		on_proc_exit(sb_worker_at_exit, (Datum) 0);
		sb_exit_hook_set = true;
	}

	if (sb_server_preloaded)
	{
		sb_server_connect();
		sb_worker_ready();
		return;
	}

	snprintf(path, sizeof(path), "%s/pysandbox-worker", pkglib_path);
	if (access(path, X_OK) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("could not find the sandbox worker \"%s\": %m", path),
				 errhint("Reinstall pysandbox with \"make install\".")));

	snprintf(ppid, sizeof(ppid), "%d", (int) getpid());
	argv[0] = path;
	argv[1] = ppid;
	argv[2] = sb_allowed_modules ? sb_allowed_modules : "";
	argv[3] = "session";
	argv[4] = "1";				/* one spare: the next call's child */
	argv[5] = "0";				/* no cluster-wide cap */
	argv[6] = sb_preload_modules ? sb_preload_modules : "";
	argv[7] = NULL;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		ereport(ERROR,
				(errcode_for_socket_access(),
				 errmsg("could not create a socket for the sandbox worker: %m")));

	pid = sb_worker_exec(path, argv, sv[1]);
	close(sv[1]);
	if (pid < 0)
	{
		close(sv[0]);
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not start the sandbox worker: %m")));
	}
	sb_worker_pid = pid;
	sb_control_fd = sv[0];
	if (sb_worker_started_preload != NULL)
		pfree(sb_worker_started_preload);
	sb_worker_started_preload = MemoryContextStrdup(TopMemoryContext, argv[6]);

	sb_worker_ready();
}

/*
 * Connect to the cluster's fork server (shared_preload_libraries).  While
 * it starts or restarts, the socket may be missing or refuse: retry for a
 * while, interruptibly.  The server must run as our own uid.
 */
static void
sb_server_connect(void)
{
	struct sockaddr_un addr;
	instr_time	start;

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, sb_server_socket_path(), sizeof(addr.sun_path));
	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		int			fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		struct ucred cred;
		socklen_t	credlen = sizeof(cred);

		if (fd < 0)
			ereport(ERROR,
					(errcode_for_socket_access(),
					 errmsg("could not create a socket for the sandbox fork server: %m")));
		if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) == 0)
		{
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) < 0 ||
				credlen != sizeof(cred) || cred.uid != geteuid())
			{
				close(fd);
				ereport(ERROR,
						(errcode(ERRCODE_SYSTEM_ERROR),
						 errmsg("the sandbox fork server socket \"%s\" is not owned by the server's user",
								sb_server_socket_path())));
			}
			sb_control_fd = fd;
			sb_worker_pid = 0;	/* not ours to kill */
			return;
		}
		close(fd);
		if ((errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN) ||
			sb_elapsed_ms(start) > SB_SERVER_CONNECT_TIMEOUT_MS)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not connect to the sandbox fork server: %m"),
					 errdetail("pysandbox is in shared_preload_libraries, so calls go to the \"pysandbox fork server\" background worker."),
					 errhint("The server log may say why it is not running.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 20, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Wait for READY from a new worker (or the fork server) and record it. */
static void
sb_worker_ready(void)
{
	uint32		type,
				len;
	union
	{
		SbReady		ready;
		char		text[SB_CONTROL_MAX_PAYLOAD + 1];
	}			payload;

	if (!sb_control_recv_or_abandon(&type, &payload, &len, NULL, SB_WORKER_START_TIMEOUT_MS))
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker did not start within %d ms", SB_WORKER_START_TIMEOUT_MS)));
	if (type == SB_CTL_FAILED)
	{
		payload.text[len] = '\0';
		sb_sandbox_abandon_worker();
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker failed to start"),
				 errdetail_internal("%s", payload.text),
				 errhint("The server log may say more.")));
	}
	if (type != SB_CTL_READY || len != sizeof(SbReady) ||
		payload.ready.version != SB_PROTOCOL_VERSION)
	{
		/* a READY of another size is another version's too */
		uint32		theirs = type == SB_CTL_READY && len >= sizeof(uint32) ?
			payload.ready.version : 0;

		sb_sandbox_abandon_worker();
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker speaks another protocol version"),
				 errdetail("This session's pysandbox library speaks protocol version %d; the worker binary %s/pysandbox-worker answered with version %u: they come from different installations of pysandbox.",
						   SB_PROTOCOL_VERSION, pkglib_path, theirs),
				 errhint("Install one version's library and worker binary together (make install, or the package), then reconnect; with pysandbox in shared_preload_libraries, restart the server.")));
	}
	sb_worker_layers = payload.ready.layers;
	sb_worker_landlock_abi = payload.ready.landlock_abi;
	sb_worker_shared = payload.ready.shared != 0;
	sb_worker_instance = payload.ready.instance;
	memcpy(sb_worker_preloaded, payload.ready.preloaded, sizeof(sb_worker_preloaded));
	sb_worker_preloaded[sizeof(sb_worker_preloaded) - 1] = '\0';
}

/*
 * The random id of the worker this session last talked to (0: none yet).
 * A worker started anew, perhaps another build of pysandbox, has another.
 */
uint64
sb_sandbox_instance(void)
{
	return sb_worker_instance;
}

/* Does this session use the cluster-wide fork server? */
bool
sb_sandbox_shared(void)
{
	return sb_worker_shared;
}

/*
 * The layers the worker can apply on this server (SB_LAYER_* bits) and the
 * Landlock ABI; starts the worker if the session has none yet.
 */
uint32
sb_sandbox_layers(uint32 *landlock_abi)
{
	if (sb_control_fd < 0)
		sb_worker_start();
	*landlock_abi = sb_worker_landlock_abi;
	return sb_worker_layers;
}

/* The modules the worker preloaded besides numpy and pandas (after sb_sandbox_layers). */
const char *
sb_sandbox_preloaded(void)
{
	return sb_worker_preloaded;
}

/*
 * When a change of pysandbox.preload_modules made since the worker read it
 * takes effect (review 117 F6, review 120 F4): "when the server restarts"
 * for the fork server's worker, which read it when the server started; "in
 * a new session" for a session's own, which read it at the session's first
 * call; NULL when nothing changed.
 */
const char *
sb_preload_change(void)
{
	if (sb_server_preloaded)
		return sb_preload_modules_pending() ?
			"when the server restarts" : NULL;
	if (sb_worker_started_preload == NULL)
		return NULL;			/* no worker yet: it will read the setting */
	if (strcmp(sb_worker_started_preload, sb_preload_modules ? sb_preload_modules : "") == 0)
		return NULL;
	/* compared as sets of names (review 121 F3: " scipy" is no change) */
	return sb_module_lists_differ(sb_worker_started_preload, sb_preload_modules) ?
		"in a new session" : NULL;
}

/* The control socket, for callers that wait on it along with the data. */
int
sb_sandbox_control_fd(void)
{
	return sb_control_fd;
}

/*
 * The spawn flags that confine a child's filesystem view, following
 * pysandbox.filesystem_layer and what the worker found it can do: auto
 * uses both layers where both work (Landlock does not hide file metadata,
 * the mount namespace root does), landlock and mount_namespace one alone.
 * Raises an error where the chosen layer is missing, unless an
 * administrator allowed running without one.
 */
static uint32
sb_filesystem_flags(uint32 layers)
{
	bool		landlock = (layers & SB_LAYER_LANDLOCK) != 0;
	bool		mountns = (layers & SB_LAYER_MOUNTNS) != 0;

	switch (sb_filesystem_layer)
	{
		case SB_FS_LANDLOCK:
			if (landlock)
				return 0;
			break;
		case SB_FS_MOUNT_NAMESPACE:
			if (mountns)
				return SB_SPAWN_FS_MOUNT | SB_SPAWN_NO_LANDLOCK;
			break;
		default:
			if (landlock && mountns)
				return SB_SPAWN_FS_MOUNT;
			if (landlock)
				return 0;
			if (mountns)
				return SB_SPAWN_FS_MOUNT | SB_SPAWN_NO_LANDLOCK;
			break;
	}
	if (!sb_allow_weak_isolation)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("sandbox filesystem confinement is not available on this server"),
				 errdetail("%s",
						   sb_filesystem_layer == SB_FS_LANDLOCK ?
						   "pysandbox.filesystem_layer is landlock and the kernel does not support Landlock." :
						   sb_filesystem_layer == SB_FS_MOUNT_NAMESPACE ?
						   "pysandbox.filesystem_layer is mount_namespace and this server cannot create one (unprivileged user namespaces are off)." :
						   "The kernel does not support Landlock and this server cannot create a mount namespace."),
				 errhint("An administrator may set pysandbox.allow_weak_isolation to run without it.")));
	return SB_SPAWN_ALLOW_NO_LANDLOCK;
}

/*
 * Does a reservation contained with limits held serve a call with req?  The
 * worker times a reserved child's call with the wall-clock limit it was
 * reserved with, so that must match too.
 */
static bool
sb_reservation_fits(const SbSpawnRequest *held, const SbSpawnRequest *req)
{
	return held->cpu_ms == req->cpu_ms && held->memory_mb == req->memory_mb &&
		held->timeout_ms == req->timeout_ms && held->flags == req->flags;
}

/*
 * Get a fresh contained child for one call: the reservation the worker
 * left us if its limits fit (allow_reserved), or one it forks or takes
 * from its spares now.  The caller must sb_sandbox_release() it on every
 * path (sb_call.c ties that to a memory context callback; a transaction or
 * subtransaction abort releases it too).
 */
SbSandbox *
sb_sandbox_acquire(const SbSpawnRequest *req, bool allow_reserved, const char *code)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + sizeof(SbSpawnRequest)];
	SbSandbox  *sb;
	uint32		type,
				len;
	int			fds[SB_RECORD_MAX_FDS] = {-1, -1};
	int			fd;
	SbControlPayload payload;
	SbSpawnRequest r;
	int			attempt;

	/* a child left over by an error path that has not been cleaned up yet */
	if (sb_the_sandbox.in_use)
		sb_sandbox_release(&sb_the_sandbox);

	/*
	 * A worker (or fork server) that died while this session was idle is
	 * noticed here, when its socket ends or the request cannot be sent, and
	 * replaced once: only calls in flight fail when a worker dies.
	 */
	for (attempt = 0;; attempt++)
	{
		ssize_t		sent;
		int			save_errno;

		if (sb_control_fd < 0)
			sb_worker_start();
		r = *req;
		r.flags |= sb_filesystem_flags(sb_worker_layers);
		if (sb_worker_layers & SB_LAYER_NAMESPACES)
			r.flags |= SB_SPAWN_NAMESPACES;
		r.reserve = 1;
		/*
		 * a workspace's later calls may need any preloaded module: its one
		 * child comes from the preloaded process where there is one
		 */
		if (sb_code_names_modules(code, sb_worker_preloaded) ||
			((r.flags & SB_SPAWN_WORKSPACE) && sb_worker_preloaded[0] != '\0'))
		{
			/* forked on demand: the worker keeps no spares of that kind */
			r.flags |= SB_SPAWN_PRELOADED;
			r.reserve = 0;
		}
		sb_control_drain();
		if (sb_control_fd < 0)
		{
			if (attempt == 0)
				continue;
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("sandbox worker exited unexpectedly"),
					 errhint("The server log may say why; the next call starts a new worker.")));
		}
		if (allow_reserved && sb_reservation.fd >= 0 &&
			sb_reservation_fits(&sb_reservation.limits, &r))
		{
			sb = &sb_the_sandbox;
			memset(sb, 0, sizeof(SbSandbox));
			sb->in_use = true;
			sb->subid = GetCurrentSubTransactionId();
			sb->from_reservation = true;
			sb->data_fd = sb_reservation.fd;
			sb->mailbox_fd = sb_reservation.mailbox_fd;
			sb->pid = sb_reservation.pid;
			sb_reservation.fd = -1;
			sb_reservation.mailbox_fd = -1;
			sb_reservation.pid = 0;
			fd = sb->data_fd;
			goto have_child;
		}
		/* other limits: the worker drops it when it reads our request */
		sb_reservation_drop();
		sb_frame_header_encode(buf, SB_CTL_SPAWN, sizeof(r));
		memcpy(buf + SB_FRAME_HEADER_SIZE, &r, sizeof(r));
		sent = send(sb_control_fd, buf, sizeof(buf), MSG_NOSIGNAL);
		if (sent == (ssize_t) sizeof(buf))
			break;
		save_errno = sent < 0 ? errno : EIO;
		sb_sandbox_abandon_worker();
		errno = save_errno;
		if (attempt == 0 &&
			(errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not send a request to the sandbox worker: %m")));
	}

	for (;;)
	{
		if (!sb_control_recv_or_abandon(&type, &payload, &len, fds,
										(long) r.queue_ms + SB_WORKER_START_TIMEOUT_MS))
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("sandbox worker did not answer")));
		/*
		 * The report on the previous child comes first; a reservation sent
		 * before the worker read our request is already void.
		 */
		if (type == SB_CTL_EXITED || type == SB_CTL_RESERVED || type == SB_CTL_REVOKED)
		{
			if (!sb_control_async(type, &payload, len, fds))
			{
				sb_sandbox_abandon_worker();
				ereport(ERROR,
						(errcode(ERRCODE_SYSTEM_ERROR),
						 errmsg("sandbox worker sent an unexpected message")));
			}
			sb_reservation_drop();
			continue;
		}
		break;
	}
	/* a previous child not reported by now never will be: the worker dropped it */
	sb_exit_pending = 0;
	if (type == SB_CTL_BUSY && len == sizeof(SbBusy))
	{
		sb_close_fds(fds);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many sandbox calls are running"),
				 payload.busy.idle_held == 0 ?
				 errdetail("pysandbox.max_concurrent is %u; this call waited %u ms for one of them to finish.",
						   payload.busy.max_concurrent, payload.busy.waited_ms) :
				 errdetail_plural("pysandbox.max_concurrent is %u; this call waited %u ms for one of them to finish; %u of them is a process idle between two calls (a workspace, or a function kept across rows), which holds its slot until it is closed or pysandbox.workspace_idle_timeout passes.",
								  "pysandbox.max_concurrent is %u; this call waited %u ms for one of them to finish; %u of them are processes idle between two calls (workspaces, or functions kept across rows), which hold their slots until they are closed or pysandbox.workspace_idle_timeout passes.",
								  Min(payload.busy.idle_held, payload.busy.max_concurrent),
								  payload.busy.max_concurrent, payload.busy.waited_ms,
								  Min(payload.busy.idle_held, payload.busy.max_concurrent)),
				 payload.busy.idle_held == 0 ?
				 (sb_stat_available() ?
				  errhint("Try again later, or ask an administrator to raise pysandbox.max_concurrent or pysandbox.queue_timeout (pysandbox_activity lists the calls running).") :
				  errhint("Try again later, or ask an administrator to raise pysandbox.max_concurrent or pysandbox.queue_timeout.")) :
				 sb_stat_available() ?
				 errhint("Close workspaces no longer used (sandbox_workspace_close; pysandbox_activity lists the idle processes and their sessions), try again later, or ask an administrator to raise pysandbox.max_concurrent or lower pysandbox.workspace_idle_timeout.") :
				 errhint("Close workspaces no longer used (sandbox_workspace_close), try again later, or ask an administrator to raise pysandbox.max_concurrent or lower pysandbox.workspace_idle_timeout.")));
	}
	if (type == SB_CTL_FAILED)
	{
		payload.text[len] = '\0';
		sb_close_fds(fds);
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not start a sandbox process"),
				 errdetail_internal("%s", payload.text)));
	}
	if (type != SB_CTL_SPAWNED || len != sizeof(SbSpawned) || fds[0] < 0)
	{
		sb_close_fds(fds);
		sb_sandbox_abandon_worker();
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker sent an unexpected message")));
	}

	sb = &sb_the_sandbox;
	memset(sb, 0, sizeof(SbSandbox));
	sb->in_use = true;
	sb->subid = GetCurrentSubTransactionId();
	sb->data_fd = fd = fds[0];
	sb->mailbox_fd = fds[1];
	sb->pid = payload.spawned.pid;
	sb->preloaded = (r.flags & SB_SPAWN_PRELOADED) != 0;
have_child:
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
	{
		sb_sandbox_kill(sb);
		sb_sandbox_release(sb);
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not configure the sandbox socket: %m")));
	}
	return sb;
}

/*
 * Tell the worker something about one of our children (KILL, IDLE, CALL,
 * DROP); a worker that cannot be told is abandoned.  Never raises.
 */
void
sb_control_send_pid(uint32 type, int32 pid)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + sizeof(SbSpawned)];
	SbSpawned	which = {.pid = pid};

	if (sb_control_fd < 0)
		return;
	sb_frame_header_encode(buf, type, sizeof(which));
	memcpy(buf + SB_FRAME_HEADER_SIZE, &which, sizeof(which));
	if (send(sb_control_fd, buf, sizeof(buf), MSG_NOSIGNAL) != (ssize_t) sizeof(buf))
		sb_sandbox_abandon_worker();
}

/* Ask the worker to kill the child now (no-op once it has exited). */
void
sb_sandbox_kill(SbSandbox *sb)
{
	if (sb->exited || sb_control_fd < 0)
		return;
	sb_control_send_pid(SB_CTL_KILL, sb->pid);
}

/*
 * Read the worker's next record about our child: its exit report, or the
 * news that it was a reservation taken back before its call began (then
 * sb->revoked).  Other records the worker may send meanwhile are handled
 * on the way.  Waits up to timeout_ms; returns true once the verdict is in.
 * A protocol error abandons the worker and raises (interruptible) or
 * returns false.
 */
bool
sb_sandbox_verdict(SbSandbox *sb, long timeout_ms, bool interruptible)
{
	for (;;)
	{
		SbControlPayload payload;
		uint32		type,
					len;
		int			fds[SB_RECORD_MAX_FDS] = {-1, -1};

		if (!sb_control_recv(&type, &payload, &len, timeout_ms, interruptible, fds))
			return false;
		if (type == SB_CTL_EXITED && len == sizeof(SbExitReport) &&
			payload.exit.pid == sb->pid && fds[0] < 0)
		{
			sb->exit = payload.exit;
			sb->exited = true;
			return true;
		}
		if (type == SB_CTL_REVOKED && len == sizeof(SbSpawned) &&
			payload.spawned.pid == sb->pid && sb->from_reservation && fds[0] < 0)
		{
			sb->revoked = true;
			sb->exited = true;
			return true;
		}
		if (sb_control_async(type, &payload, len, fds))
			continue;
		sb_sandbox_abandon_worker();
		if (!interruptible)
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("sandbox worker sent an unexpected message")));
	}
}

/*
 * Read the exit report if one is waiting (never blocks).  Returns true once
 * the child has been reaped (or was revoked).  Raises an error if the
 * worker is gone.
 */
bool
sb_sandbox_read_exit(SbSandbox *sb)
{
	if (sb->exited)
		return true;
	return sb_sandbox_verdict(sb, 0, true);
}

/* Close our end of a child's data socket and its mailbox (mapped or not). */
void
sb_sandbox_close_channel(SbSandbox *sb)
{
	if (sb->data_fd >= 0)
		close(sb->data_fd);
	sb->data_fd = -1;
	if (sb->mailbox_fd >= 0)
		close(sb->mailbox_fd);
	sb->mailbox_fd = -1;
	if (sb->mailbox != NULL)
		munmap((void *) sb->mailbox, SB_MAILBOX_SIZE);
	sb->mailbox = NULL;
}

/*
 * The child sent a complete result and closed its socket: let it finish
 * exiting (tearing down a large address space takes milliseconds) without
 * waiting.  The worker still reaps it; its exit report is skipped when it
 * arrives ahead of the next answer, and if the next request comes first
 * the worker kills it and reports nothing.  How the child ended no longer
 * changes this call's outcome: its result was complete (a child killed
 * between its last byte and its exit counts as done).  The worker is told
 * to kill it all the same: an honest child is exiting already, and one
 * that went on after its result (review 49: it spun until its wall limit,
 * its CPU time counted nowhere, holding a place of max_concurrent) stops.
 */
void
sb_sandbox_detach(SbSandbox *sb)
{
	sb_sandbox_close_channel(sb);
	if (!sb->exited && sb_control_fd >= 0)
	{
		sb_sandbox_kill(sb);
		if (sb_control_fd >= 0)
			sb_exit_pending = sb->pid;
	}
	sb->exited = true;
	sb->in_use = false;
}

/*
 * Make sure the child is dead and reaped and close its socket.  Runs on
 * success and error paths alike (also from a memory context callback), so
 * it never raises: if the worker does not confirm the kill in time, the
 * worker itself is killed and a new one starts on the next call.
 */
void
sb_sandbox_release(SbSandbox *sb)
{
	sb_sandbox_close_channel(sb);
	if (!sb->exited && sb_control_fd >= 0)
	{
		sb_sandbox_kill(sb);
		if (sb_control_fd < 0 || !sb_sandbox_verdict(sb, SB_CLEANUP_WAIT_MS, false))
			sb_sandbox_abandon_worker();
	}
	sb->exited = true;
	sb->in_use = false;
	sb_held_released(sb);
}

/*
 * Abort of a (sub)transaction: the call that owned the child is over.  The
 * end of a transaction ends every statement: held children go.
 */
static void
sb_xact_callback(XactEvent event, void *arg)
{
	if ((event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT) &&
		sb_the_sandbox.in_use)
		sb_sandbox_release(&sb_the_sandbox);
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		sb_held_drop_all();
}

static void
sb_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	/* ids grow: one at or above mySubid was acquired inside what aborts */
	if (sb_the_sandbox.in_use && sb_the_sandbox.subid >= mySubid)
		sb_sandbox_release(&sb_the_sandbox);
	sb_held_subxact_abort(mySubid);
}

/* Register the abort callbacks (from _PG_init). */
void
sb_worker_init(void)
{
	RegisterXactCallback(sb_xact_callback, NULL);
	RegisterSubXactCallback(sb_subxact_callback, NULL);
}
