/*
 * sb_contain.c
 *		The child's containment steps, in the order they run.
 *
 * Runs in the freshly forked child, single-threaded, before it reads the
 * request or parses any code.  Steps 1-4b (sb_contain_prepare) depend only
 * on the child's shape and run at once, even in a spare forked ahead of
 * time; steps 5-8 (sb_contain_finish) take the call's limits, which the
 * worker writes on the data socket before handing it to a backend.  Each step either succeeds or ends the child
 * with SB_CHILD_EXIT_SETUP after sending an error frame: nothing runs with a
 * layer missing (fail closed).  The order matters:
 *
 *	1. fds: data socket on 3, a spare's claim token on 4 (sb_protocol.h;
 *	   closed before the call acts on its request), /dev/null on 0-2,
 *	   everything else closed; working directory /
 *	2. environment scrubbed
 *	3. die with the worker, and check the worker is still our parent
 *	4. oom_score_adj 1000: the OOM killer takes us, never PostgreSQL
 *	4b. namespaces, where unprivileged user namespaces work: the user and
 *	   mount namespaces of the worker's template, whose root holds only
 *	   the Python library directories, read-only (sb_mountns.c): outside
 *	   them nothing exists, not even for stat(), access() or readlink(),
 *	   which Landlock does not mediate; and a new network (no interface at
 *	   all) and IPC namespace of the child's own; then every capability
 *	   that entering a user namespace gave is dropped
 *	5. rlimits: memory, CPU (hard = soft + 1 s), processes, file size,
 *	   core, fds, queued signals; plus a CPU-time timer for millisecond
 *	   precision
 *	6. no_new_privs, not dumpable (no ptrace or /proc/pid/mem from peers)
 *	7. Landlock: read-only access to the Python library directories, on
 *	   top of 4b's root (skipped only where Landlock is missing, or an
 *	   administrator chose the mount namespace alone)
 *	8. seccomp allowlist (last: it forbids the calls the steps above need)
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

/* few fds: 0-2, the data socket, and room for a handful of module reads */
#define SB_CHILD_MAX_FDS	16

/* where the template's namespaces wait for step 4b, then closed */
#define SB_CHILD_USERNS_FD	14
#define SB_CHILD_MNTNS_FD	15

/*
 * Report a failed containment step on the data socket and exit.  Uses only
 * async-signal-safe calls: the child may be in any state.
 */
void
sb_child_fail(const char *step, int err)
{
	char		buf[512];
	int			n;

	n = snprintf(buf, sizeof(buf),
				 "{\"kind\":\"setup\",\"type\":\"SandboxSetupError\","
				 "\"message\":\"could not %s: %s\"}",
				 step, strerror(err));
	if (n > 0 && n < (int) sizeof(buf))
	{
		sigset_t	all;

		/* a whole frame: no handler (SIGPROF's, sb_where.c) writes inside it */
		sigfillset(&all);
		(void) sigprocmask(SIG_BLOCK, &all, NULL);
		(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_ERROR, buf, (uint32_t) n);
	}
	_exit(SB_CHILD_EXIT_SETUP);
}

/*
 * Step 1: only the data socket (fd 3), a spare's claim token (fd 4) and
 * /dev/null (0-2) stay open; and, until step 4b joins them, the mount
 * namespace template's namespaces, on fds 14 and 15 (*userns, *mntns: -1
 * for none, else their new numbers).
 *
 * The child opens /dev/null itself (its mount namespace is still the
 * worker's): an open file description inherited from the worker would be
 * every child's, and its status flags (O_NONBLOCK, O_APPEND: fcntl
 * F_SETFL) two bits that one role's call could set and another's read,
 * then or much later.
 */
static void
sb_contain_fds(int data_fd, int claim_fd, int *userns, int *mntns)
{
	int			fd;
	int			devnull_fd;
	int			keep = claim_fd >= 0 ? SB_CHILD_CLAIM_FD : SB_CHILD_DATA_FD;

	/*
	 * All out of the way first: any of them may sit on a number another
	 * one is about to take.
	 */
	if ((data_fd = fcntl(data_fd, F_DUPFD_CLOEXEC, 16)) < 0 ||
		(claim_fd >= 0 && (claim_fd = fcntl(claim_fd, F_DUPFD_CLOEXEC, 16)) < 0) ||
		(*userns >= 0 && (*userns = fcntl(*userns, F_DUPFD_CLOEXEC, 16)) < 0) ||
		(*mntns >= 0 && (*mntns = fcntl(*mntns, F_DUPFD_CLOEXEC, 16)) < 0))
		_exit(SB_CHILD_EXIT_SETUP); /* no channel to report on */
	if (dup2(data_fd, SB_CHILD_DATA_FD) < 0)
		_exit(SB_CHILD_EXIT_SETUP);
	devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull_fd < 0 || (devnull_fd < 16 &&
						   (devnull_fd = fcntl(devnull_fd, F_DUPFD_CLOEXEC, 16)) < 0))
		sb_child_fail("open /dev/null", errno);
	for (fd = 0; fd <= 2; fd++)
		if (dup2(devnull_fd, fd) < 0)
			sb_child_fail("redirect standard streams", errno);
	if (claim_fd >= 0 && dup2(claim_fd, SB_CHILD_CLAIM_FD) < 0)
		sb_child_fail("keep the claim token", errno);
	if (*userns >= 0)
	{
		/* out of the way of the fds opened next (/proc/self/statm: 5) */
		if (dup2(*userns, SB_CHILD_USERNS_FD) < 0 || dup2(*mntns, SB_CHILD_MNTNS_FD) < 0)
			sb_child_fail("keep the sandbox's namespaces", errno);
		*userns = SB_CHILD_USERNS_FD;
		*mntns = SB_CHILD_MNTNS_FD;
	}
	for (fd = keep + 1; fd < SB_CHILD_USERNS_FD; fd++)
		(void) close(fd);
	if (syscall(SYS_close_range, *userns >= 0 ? SB_CHILD_MNTNS_FD + 1 : SB_CHILD_USERNS_FD,
				~0U, 0) < 0)
	{
		/* kernels before 5.9: close one by one */
		long		maxfd = sysconf(_SC_OPEN_MAX);

		for (fd = *userns >= 0 ? SB_CHILD_MNTNS_FD + 1 : SB_CHILD_USERNS_FD; fd < maxfd; fd++)
			(void) close(fd);
	}
	if (fcntl(SB_CHILD_DATA_FD, F_SETFD, 0) < 0)
		sb_child_fail("configure the data socket", errno);
	/* the worker inherited the data directory as its working directory */
	if (chdir("/") < 0)
		sb_child_fail("change to the root directory", errno);
}

/* Step 3: SIGKILL when the worker dies; exit if it already has. */
static void
sb_contain_lifetime(pid_t worker_pid)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		sb_child_fail("set the parent-death signal", errno);
	if (getppid() != worker_pid)
		_exit(SB_CHILD_EXIT_SETUP);
}

/* Step 4: make this process the OOM killer's first choice. */
static void
sb_contain_oom(void)
{
	int			fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		sb_child_fail("open /proc/self/oom_score_adj", errno);
	if (write(fd, "1000", 4) != 4)
		sb_child_fail("set oom_score_adj", errno);
	close(fd);
}

#define SB_NAMESPACE_FLAGS (CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)

/* uname()'s node name in a child: not the server's */
#define SB_HOSTNAME "sandbox"

static void
sb_contain_hostname(void)
{
	if (sethostname(SB_HOSTNAME, strlen(SB_HOSTNAME)) < 0 ||
		setdomainname("", 0) < 0)
		sb_child_fail("name the sandbox's host", errno);
}

/*
 * Probe (in the worker, once): can a child of ours unshare its user, net
 * and IPC namespaces?  Decided by trying it in a short-lived child.
 */
bool
sb_namespaces_work(void)
{
	pid_t		pid = fork();
	int			status;

	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(unshare(SB_NAMESPACE_FLAGS) == 0 ? 0 : 1);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Current virtual size and data size (private writable memory and stack)
 * in bytes, from an open /proc/self/statm ("size resident shared text lib
 * data dt", in pages).
 */
static void
sb_current_vm(int statm_fd, unsigned long *vsize, unsigned long *data)
{
	char		buf[128];
	ssize_t		n;
	unsigned long pages[6];
	char	   *p;
	char	   *end;
	unsigned long page = (unsigned long) sysconf(_SC_PAGESIZE);
	int			i;

	n = pread(statm_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		sb_child_fail("read /proc/self/statm", errno);
	buf[n] = '\0';
	for (p = buf, i = 0; i < 6; i++, p = end)
	{
		pages[i] = strtoul(p, &end, 10);
		if (end == p)
			sb_child_fail("read /proc/self/statm", EINVAL);
	}
	*vsize = pages[0] * page;
	*data = pages[5] * page;
}

/* CPU seconds this process has used so far (a spare's warm-up), rounded up. */
static rlim_t
sb_cpu_used_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		sb_child_fail("read the CPU time used", errno);
	return (rlim_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1);
}

static void
sb_setrlimit(int resource, rlim_t soft, rlim_t hard, const char *what)
{
	struct rlimit rl = {.rlim_cur = soft,.rlim_max = hard};

	if (setrlimit(resource, &rl) < 0)
		sb_child_fail(what, errno);
}

/*
 * Step 5: resource limits.  Memory is an address-space limit on top of what
 * the preloaded interpreter already maps, so memory_mb is what the call may
 * allocate; and a data limit (private writable memory) on top of what it
 * already holds, by the same memory_mb.  Honest code's new private memory
 * is within memory_mb under either.  The second counts inherited address
 * space made writable (a library's pages) and private mappings made where
 * libraries were unmapped, which matters on a kernel without mseal (before
 * 6.10, sb_seal.c) -- but not against code that fills its address space
 * first (the kernel then skips the data check of mprotect, and of a
 * mapping made over another): the worker reads what such a child holds
 * and kills it (SB_RESIDENT_SLACK_KB); shared memory, which is not data,
 * it cannot map (sb_seccomp.c, review 95).
 * CPU: a profiling timer kills at the exact millisecond (SIGPROF,
 * default action terminate) and RLIMIT_CPU backs it up (SIGXCPU at soft,
 * SIGKILL at soft + 1 s, since SIGXCPU can be ignored).
 */
static void
sb_contain_rlimits(const SbSpawnRequest *req, int statm_fd)
{
	unsigned long vsize;
	unsigned long data;
	rlim_t		budget = (rlim_t) req->memory_mb * 1024 * 1024;
	rlim_t		mem;
	rlim_t		data_limit;
	uint64_t	cpu_ms = (uint64_t) req->cpu_ms *
		((req->flags & (SB_SPAWN_WORKSPACE | SB_SPAWN_HELD)) ? SB_WORKSPACE_CPU_CALLS : 1);
	rlim_t		cpu_s = sb_cpu_used_s() + (cpu_ms + 999) / 1000 + 1;
	struct itimerval it;

	sb_current_vm(statm_fd, &vsize, &data);
	mem = (rlim_t) vsize + budget;
	data_limit = (rlim_t) data + budget;
	sb_setrlimit(RLIMIT_AS, mem, mem, "set the memory limit");
	sb_setrlimit(RLIMIT_DATA, data_limit, data_limit, "set the data limit");
	sb_setrlimit(RLIMIT_CPU, cpu_s, cpu_s + 1, "set the CPU limit");
	sb_setrlimit(RLIMIT_NPROC, 0, 0, "set the process limit");
	sb_setrlimit(RLIMIT_FSIZE, 0, 0, "set the file size limit");
	sb_setrlimit(RLIMIT_CORE, 0, 0, "set the core size limit");
	sb_setrlimit(RLIMIT_NOFILE, SB_CHILD_MAX_FDS, SB_CHILD_MAX_FDS, "set the fd limit");
	sb_setrlimit(RLIMIT_MEMLOCK, 0, 0, "set the locked memory limit");
	sb_setrlimit(RLIMIT_MSGQUEUE, 0, 0, "set the message queue limit");
	/*
	 * No queued signals: the count is shared by every process of the user
	 * (in the template's user namespace, and the server's uid), so one
	 * call filling it could signal bits to another that watches its own
	 * signals lose their siginfo.  Signals the kernel sends (SIGPROF,
	 * SIGXCPU, SIGSYS) are not limited by it.
	 */
	sb_setrlimit(RLIMIT_SIGPENDING, 0, 0, "set the pending signal limit");

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = req->cpu_ms / 1000;
	it.it_value.tv_usec = (req->cpu_ms % 1000) * 1000;
	if (setitimer(ITIMER_PROF, &it, NULL) < 0)
		sb_child_fail("set the CPU timer", errno);
}

/*
 * End of 4b: entering (or creating) a user namespace gives the process
 * every capability in it, and every child of every session joins the same
 * template namespace.  None is needed from here on (the steps left need
 * no_new_privs, not privilege), and in that namespace the kernel's own
 * permission checks would let one child act on another (signals, for one)
 * were seccomp and Landlock's scoping not there: drop them all, the
 * ambient ones too.  exec is refused anyway, so nothing can regain them;
 * all the same (while CAP_SETPCAP still allows it) the bounding set is
 * emptied and the securebits locked so that no exec or uid change would
 * give any back, should a later kernel or policy let one through.
 */
static void
sb_contain_drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3,.pid = 0};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int			i;
	bool		any = false;

	/*
	 * none held (no user namespace entered): nothing to do, and no capset,
	 * which a security module may refuse even when it only drops
	 */
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		sb_child_fail("read the capabilities", errno);
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		any |= data[i].effective != 0 || data[i].permitted != 0 || data[i].inheritable != 0;
	if (!any)
		return;
	for (i = 0; i <= 63; i++)
		if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0)
		{
			if (errno == EINVAL)
				break;			/* past the kernel's last capability */
			sb_child_fail("drop the capability bounding set", errno);
		}
	if (prctl(PR_SET_SECUREBITS,
			  SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			  SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
			  SECBIT_KEEP_CAPS_LOCKED |
			  SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0) < 0)
		sb_child_fail("lock the securebits", errno);
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	/* an empty permitted set empties the ambient one too; this is for clarity */
	(void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &hdr, data) < 0)
		sb_child_fail("drop the capabilities", errno);
}

/*
 * Steps 1 to 4b, which depend only on the child's shape (c->flags), not on
 * the call's limits: a spare runs them as soon as it is forked.  Returns an
 * fd on /proc/self/statm for sb_contain_finish (a mount namespace root has
 * no /proc).
 */
int
sb_contain_prepare(int data_fd, int claim_fd, const SbContainment *c)
{
	int			statm_fd;
	int			userns = (c->flags & SB_SPAWN_FS_MOUNT) ? c->userns_fd : -1;
	int			mntns = (c->flags & SB_SPAWN_FS_MOUNT) ? c->mntns_fd : -1;

	sb_contain_fds(data_fd, claim_fd, &userns, &mntns);	/* 1 */
	if (clearenv() != 0)		/* 2 */
		sb_child_fail("clear the environment", errno);
	sb_contain_lifetime(c->worker_pid); /* 3 */
	sb_contain_oom();			/* 4 */
	statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (statm_fd < 0)
		sb_child_fail("open /proc/self/statm", errno);

	/* 4b */
	if (c->flags & SB_SPAWN_FS_MOUNT)
	{
		/* the template's user namespace, its root, then our own net and IPC */
		if (userns < 0)
			sb_child_fail("find the sandbox's mount namespace", ENOENT);
		if (setns(userns, CLONE_NEWUSER) < 0)
			sb_child_fail("enter the sandbox's user namespace", errno);
		if (setns(mntns, CLONE_NEWNS) < 0)
			sb_child_fail("enter the sandbox's mount namespace", errno);
		close(userns);
		close(mntns);
		if (unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) < 0)
			sb_child_fail("enter new network, IPC and UTS namespaces", errno);
		sb_contain_hostname();
		if (chdir("/") < 0)
			sb_child_fail("change to the sandbox's root directory", errno);
	}
	else if (c->flags & SB_SPAWN_NAMESPACES)
	{
		if (unshare(SB_NAMESPACE_FLAGS) < 0)
			sb_child_fail("enter new user, network, IPC and UTS namespaces", errno);
		sb_contain_hostname();
	}
	sb_contain_drop_capabilities();

	/*
	 * 3 again: entering a user namespace changes our credentials, and the
	 * kernel clears the parent-death signal on such a change.
	 */
	sb_contain_lifetime(c->worker_pid);
	return statm_fd;
}

/*
 * Steps 5 to 8 with the call's limits; returns only if all succeeded.  The
 * limits come from the worker (the first frame on the data socket), before
 * the backend holds the socket, so no code has been read yet.
 */
void
sb_contain_finish(const SbContainment *c, const SbSpawnRequest *req, int statm_fd)
{
	if ((req->flags & SB_SPAWN_SHAPE_FLAGS) != (c->flags & SB_SPAWN_SHAPE_FLAGS))
		sb_child_fail("match the requested isolation", EINVAL);

	sb_contain_rlimits(req, statm_fd);	/* 5 */
	close(statm_fd);

	/* 6 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		sb_child_fail("set no_new_privs", errno);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		sb_child_fail("clear the dumpable flag", errno);

	/* 7 */
	if (!(c->flags & SB_SPAWN_NO_LANDLOCK) &&
		sb_landlock_apply(c->read_paths, c->n_read_paths) < 0 &&
		!(c->flags & SB_SPAWN_ALLOW_NO_LANDLOCK))
		sb_child_fail("confine the file system with Landlock", errno);

	/* 3, checked once more: no step above may have cleared it */
	{
		int			sig = 0;

		if (prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) < 0 || sig != SIGKILL)
			sb_contain_lifetime(c->worker_pid);
	}

	/* 8 */
	if (sb_seccomp_apply(getpid()) < 0)
		sb_child_fail("install the seccomp filter", errno);
}
