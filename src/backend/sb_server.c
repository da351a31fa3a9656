/*
 * sb_server.c
 *		The cluster-wide fork server: a background worker that keeps one
 *		pysandbox-worker running for every backend of the cluster.
 *
 * With pysandbox in shared_preload_libraries, _PG_init registers this
 * background worker.  It creates a Unix socket, listens on it, and starts
 * pysandbox-worker in server mode with the listening socket on fd 3 (fork,
 * then exec at once: the worker holds no PostgreSQL memory).  Backends
 * connect instead of starting a worker of their own; the worker accepts
 * only peers running as its own uid (SO_PEERCRED) and the backend checks
 * the server's uid the same way.
 *
 * The socket lives in the data directory (mode 0700, so only the server's
 * user can reach it at all), under pg_stat_tmp, whose contents base backups
 * leave out.  Both sides use the relative path: every backend and this
 * worker run with the data directory as working directory.
 *
 * If the worker dies, in-flight calls fail (their control sockets close),
 * idle sessions notice at their next call and reconnect, and this process
 * starts a new worker at once; the listening socket stays
 * open meanwhile, so new connections wait in its backlog instead of
 * failing.  If this process dies, the postmaster restarts it and the worker
 * follows it down (parent-death signal).
 */
#include "pysandbox.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#define SB_SERVER_SOCKET "pg_stat_tmp/pysandbox.sock"

/* true in every process of a cluster that preloaded pysandbox */
bool		sb_server_preloaded = false;

const char *
sb_server_socket_path(void)
{
	return SB_SERVER_SOCKET;
}

/* Register the fork server; called from _PG_init while preloading. */
void
sb_server_register(void)
{
	BackgroundWorker bgw;

	sb_server_preloaded = true;
	memset(&bgw, 0, sizeof(bgw));
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS;	/* required; no database */
	bgw.bgw_start_time = BgWorkerStart_PostmasterStart;
	bgw.bgw_restart_time = 1;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "pysandbox");
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "sb_server_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, "pysandbox fork server");
	snprintf(bgw.bgw_type, BGW_MAXLEN, "pysandbox fork server");
	RegisterBackgroundWorker(&bgw);
}

/* Create the listening socket (replacing a stale one). */
static int
sb_server_listen(void)
{
	struct sockaddr_un addr;
	int			fd;

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, SB_SERVER_SOCKET, sizeof(addr.sun_path));
	(void) unlink(SB_SERVER_SOCKET);
	/* initdb creates pg_stat_tmp; a data directory restored without it gets it back */
	if (mkdir("pg_stat_tmp", S_IRWXU) < 0 && errno != EEXIST)
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("pysandbox fork server could not create directory \"pg_stat_tmp\": %m")));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ereport(FATAL,
				(errcode_for_socket_access(),
				 errmsg("pysandbox fork server could not create a socket: %m")));
	if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0 ||
		chmod(SB_SERVER_SOCKET, S_IRUSR | S_IWUSR) < 0 ||
		listen(fd, 128) < 0)
		ereport(FATAL,
				(errcode_for_socket_access(),
				 errmsg("pysandbox fork server could not listen on \"%s\": %m",
						SB_SERVER_SOCKET)));
	return fd;
}

/* Start pysandbox-worker in server mode with the listener on fd 3. */
static pid_t
sb_server_start_worker(int listen_fd)
{
	char		path[MAXPGPATH];
	char		ppid[32];
	char		spares[16];
	char		maxc[16];
	char	   *argv[8];
	pid_t		pid;

	snprintf(path, sizeof(path), "%s/pysandbox-worker", pkglib_path);
	snprintf(ppid, sizeof(ppid), "%d", (int) getpid());
	snprintf(spares, sizeof(spares), "%d", sb_spare_children);
	snprintf(maxc, sizeof(maxc), "%d", sb_max_concurrent);
	argv[0] = path;
	argv[1] = ppid;
	argv[2] = sb_allowed_modules ? sb_allowed_modules : "";
	argv[3] = "server";
	argv[4] = spares;
	argv[5] = maxc;
	argv[6] = sb_preload_modules ? sb_preload_modules : "";
	argv[7] = NULL;

	pid = sb_worker_exec(path, argv, listen_fd);
	if (pid < 0)
		ereport(LOG,
				(errmsg("pysandbox fork server could not start \"%s\": %m", path)));
	else
		ereport(LOG,
				(errmsg("pysandbox fork server started worker process %d", (int) pid),
				 errdetail("spare_children = %d, max_concurrent = %d",
						   sb_spare_children, sb_max_concurrent)));
	return pid;
}

/* Describe how the worker ended, for the log. */
static void
sb_server_log_exit(pid_t pid, int status)
{
	if (WIFSIGNALED(status))
		ereport(LOG,
				(errmsg("pysandbox fork server: its worker process %d was killed with signal %d; restarting it",
						(int) pid, WTERMSIG(status)),
				 errdetail("Sandbox calls in flight failed.")));
	else
		ereport(LOG,
				(errmsg("pysandbox fork server: worker process %d exited with code %d; restarting it",
						(int) pid, WEXITSTATUS(status)),
				 errdetail("Sandbox calls in flight failed.")));
}

void
sb_server_main(Datum arg)
{
	int			listen_fd;
	pid_t		worker = 0;
	TimestampTz last_start = 0;

	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SIG_IGN);
	BackgroundWorkerUnblockSignals();

	listen_fd = sb_server_listen();

	for (;;)
	{
		int			status;
		pid_t		r;

		if (ShutdownRequestPending)
			break;

		if (worker <= 0)
		{
			/* a worker that dies at once is not restarted in a tight loop */
			if (last_start != 0 &&
				!TimestampDifferenceExceeds(last_start, GetCurrentTimestamp(), 1000))
				pg_usleep(1000000L);
			last_start = GetCurrentTimestamp();
			worker = sb_server_start_worker(listen_fd);
		}

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);

		if (worker > 0 && (r = waitpid(worker, &status, WNOHANG)) == worker)
		{
			sb_server_log_exit(worker, status);
			worker = 0;
		}
	}

	/* shutdown: take the worker (and so its children) down with us */
	if (worker > 0)
	{
		kill(worker, SIGKILL);
		while (waitpid(worker, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(listen_fd);
	(void) unlink(SB_SERVER_SOCKET);
	proc_exit(0);
}
