/*
 * floor.c
 *		The throughput floor of a fresh process per call: fork a
 *		pandas-loaded interpreter, apply pysandbox's containment, exit.
 *
 *	sb-floor SECONDS PROCS
 *
 * Starts Debian's CPython, imports numpy and pandas (as the worker does),
 * then runs PROCS loops in parallel (one per core is the fair setting) for
 * SECONDS: each forks a child that runs the same containment steps as a
 * sandbox child (src/worker/sb_contain.c, linked in: namespaces and the
 * mount namespace root, rlimits, no_new_privs, Landlock, seccomp) and
 * exits; the loop reaps it and goes again.  No request, no code, no result: nothing pysandbox could skip.
 * Prints "floor: N forks in S s = R forks/s".
 *
 * FLOOR_PRELOAD=scipy.stats,... imports more modules first, as the worker
 * does with pysandbox.preload_modules, to measure what they cost a fork.
 *
 * Built by "make floor" (test/bench/run.sh does it).
 */
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/worker/sb_worker.h"

static double
sb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One loop: fork, contain, exit, reap, until the deadline. */
static long
sb_floor_loop(const SbContainment *c, double until)
{
	long		n = 0;

	while (sb_now() < until)
	{
		int			sv[2];
		pid_t		pid;
		int			status;

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return -1;
		PyOS_BeforeFork();
		pid = fork();
		if (pid == 0)
		{
			SbSpawnRequest req = {.timeout_ms = 10000,.cpu_ms = 10000,.memory_mb = 512,
			.flags = c->flags};
			int			statm_fd;

			PyOS_AfterFork_Child();
			statm_fd = sb_contain_prepare(sv[1], -1, c);
			sb_contain_finish(c, &req, statm_fd);
			_exit(0);
		}
		PyOS_AfterFork_Parent();
		close(sv[0]);
		close(sv[1]);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return -1;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		{
			fprintf(stderr, "floor: a child failed (status %d)\n", status);
			return -1;
		}
		n++;
	}
	return n;
}

int
main(int argc, char **argv)
{
	double		seconds = argc > 1 ? atof(argv[1]) : 10;
	int			procs = argc > 2 ? atoi(argv[2]) : 1;
	long	   *counts;
	SbContainment c;
	PyObject   *mods;
	double		start,
				until;
	long		total = 0;
	int			i;

	memset(&c, 0, sizeof(c));
	Py_InitializeEx(0);
	mods = PyImport_ImportModule("pandas");
	if (mods == NULL)
	{
		PyErr_Print();
		return 1;
	}
	(void) PyRun_SimpleString("import gc, importlib, os, numpy, pandas as pd\n"
							  "pd.DataFrame({'a': [1, 2]}).groupby('a').size()\n"
							  "for m in os.environ.get('FLOOR_PRELOAD', '').split(','):\n"
							  "    m.strip() and importlib.import_module(m.strip())\n"
							  "gc.collect(); gc.freeze()\n");
	c.read_paths[c.n_read_paths++] = "/usr/lib/python3.11";
	c.read_paths[c.n_read_paths++] = "/usr/lib/python3/dist-packages";
	c.read_paths[c.n_read_paths++] = "/usr/share/zoneinfo";
	/* the shape the worker gives children by default (sb_worker.c) */
	c.flags = sb_namespaces_work() && !getenv("FLOOR_NO_NS") ? SB_SPAWN_NAMESPACES : 0;
	c.userns_fd = c.mntns_fd = -1;
	if ((c.flags & SB_SPAWN_NAMESPACES) && !getenv("FLOOR_NO_MOUNT") && sb_mountns_template(&c))
		c.flags |= sb_landlock_abi() > 0 ? SB_SPAWN_FS_MOUNT
			: SB_SPAWN_FS_MOUNT | SB_SPAWN_NO_LANDLOCK;
	else if (sb_landlock_abi() <= 0)
		c.flags |= SB_SPAWN_ALLOW_NO_LANDLOCK;
	sb_seccomp_prepare();
	if (!sb_seccomp_ready())
	{
		fprintf(stderr, "floor: the seccomp filter did not compile\n");
		return 1;
	}

	counts = mmap(NULL, sizeof(long) * (size_t) procs, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		return 1;
	start = sb_now();
	until = start + seconds;
	for (i = 0; i < procs; i++)
	{
		pid_t		pid = fork();

		if (pid == 0)
		{
			PyOS_AfterFork_Child();
			c.worker_pid = getpid();
			counts[i] = sb_floor_loop(&c, until);
			_exit(counts[i] < 0 ? 1 : 0);
		}
	}
	for (i = 0; i < procs; i++)
	{
		int			status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		{
			fprintf(stderr, "floor: a loop failed\n");
			return 1;
		}
	}
	for (i = 0; i < procs; i++)
		total += counts[i];
	printf("floor: %ld forks in %.1f s = %.1f forks/s (%d loops)\n",
		   total, sb_now() - start, total / (sb_now() - start), procs);
	return 0;
}
