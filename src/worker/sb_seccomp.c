/*
 * sb_seccomp.c
 *		The child's system call allowlist (libseccomp).
 *
 * sb_policy below is THE policy: every system call not listed is trapped.
 * A trapped call raises SIGSYS; our handler sends a VIOLATION frame naming
 * the call on the data socket and exits, so the backend can say which call
 * was blocked.  Even if user code replaces or ignores the handler, the call
 * itself never runs (the kernel forces SIGSYS, which then kills).  Calls for
 * other ABIs (i386 via int 0x80, x32) kill the process outright.
 *
 * Conditions are checked on register values only; pointers are never
 * dereferenced by seccomp, so pointer arguments are only compared to NULL.
 * Comparisons are on all 64 bits of a register, while the kernel reads an
 * int argument from the low 32: so an int is only ever allowed by equality
 * with small values or by an unsigned upper bound, never by "not equal",
 * which a value with high bits set would pass while meaning the same int.
 *
 * Every call that names a process names this one only (kill, prlimit64,
 * sched_getaffinity, CPU clocks): the child can neither signal nor read
 * the state of any other process.  Futexes must be private waits and
 * wakes (FUTEX_PRIVATE_FLAG): a shared futex on a file page two children
 * map would be a channel between them, and the priority-inheritance
 * operations look up any thread id on the host.  The dispositions of the signals the
 * limits rely on (SIGPROF, SIGXCPU) and of SIGSYS, which reports blocked
 * calls, are fixed once the filter is on.
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* the fixed signals of SB_SIGNAL_NOT_FIXED, as numbered on Linux */
#if SIGXCPU != 24 || SIGPROF != 27 || SIGSYS != 31
#error "unexpected signal numbers: revise sb_seccomp_signals()"
#endif

typedef enum SbRuleKind
{
	SB_ALLOW,					/* always */
	SB_NO_EXEC,					/* arg has no PROT_EXEC bit */
	SB_MMAP_PRIVATE,			/* mmap: not executable, and private (not
								 * MAP_GROWSDOWN or MAP_HUGETLB), or shared
								 * read-only from a file */
	SB_READ_ONLY_OPEN,			/* arg has no write/create/truncate flag */
	SB_SELF_ONLY,				/* arg0 is our own pid */
	SB_THREAD_ONLY,				/* clone flags: a thread, no namespaces, no
								 * tid to clear at its exit (EPERM) */
	SB_ARG_ZERO,				/* arg is 0 (e.g. a NULL pointer) */
	SB_ARG_EQUALS,				/* arg equals value */
	SB_ENOSYS,					/* fail with ENOSYS so libc falls back */
	SB_PID_SELF,				/* arg0 is 0 or our own pid */
	SB_PID_SELF_QUERY,			/* arg0 is 0 or our own pid, arg2 is NULL */
	SB_CLOCK_OWN,				/* arg0 is a fixed clock id, not another
								 * process's CPU clock */
	SB_FUTEX_PRIVATE,			/* arg1 is a private wait or wake */
	SB_MADVISE_SAFE,			/* arg is advice in sb_madvise_ok */
	SB_THP_OFF,					/* prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) only */
	SB_SIGNAL_NOT_FIXED			/* arg0 is not SIGPROF, SIGXCPU or SIGSYS,
								 * or arg1 is NULL (a query) */
} SbRuleKind;

typedef struct SbSyscallRule
{
	const char *name;
	SbRuleKind	kind;
	int			arg;
	unsigned long value;
} SbSyscallRule;

/* the type bits of mmap's flags (MAP_SHARED, MAP_PRIVATE, ...) */
#define SB_MAP_TYPE			0x0f
#define SB_OPEN_WRITE_FLAGS \
	(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY))
#define SB_NAMESPACE_FLAGS \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
	 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/* the highest fixed clock id (CLOCK_TAI); negative ids name other processes */
#define SB_MAX_CLOCK_ID		11
/*
 * The futex operations a single-threaded child needs (glibc's locks,
 * condition variables and semaphores), private only, with or without
 * FUTEX_CLOCK_REALTIME.  Not the priority-inheritance ones: they look up
 * the thread id in the futex word across the whole host, so their errors
 * tell whether any pid exists (and LOCK_PI waits for its exit).
 */
#define SB_FUTEX_PRIVATE_FLAG	128
#define SB_FUTEX_CLOCK_REALTIME	256
static const int sb_futex_ops[] = {0 /* WAIT */ , 1 /* WAKE */ ,
9 /* WAIT_BITSET */ , 10 /* WAKE_BITSET */ };

/*
 * The madvise() advice a child may give: what allocators and numpy use.
 * Not MADV_REMOVE (it punches holes in shared memory: the mailbox, which
 * the backend then faults in again, SIGBUS where memory is committed
 * strictly), MADV_MERGEABLE (KSM merges identical pages across processes:
 * a timing channel), MADV_PAGEOUT, nor the poisoning ones.
 */
static const int sb_madvise_ok[] = {
	0 /* NORMAL */ , 1 /* RANDOM */ , 2 /* SEQUENTIAL */ , 3 /* WILLNEED */ ,
	4 /* DONTNEED */ , 8 /* FREE */ , 10 /* DONTFORK */ , 11 /* DOFORK */ ,
	14 /* HUGEPAGE */ , 15 /* NOHUGEPAGE */ , 16 /* DONTDUMP */ , 17 /* DODUMP */ ,
	18 /* WIPEONFORK */ , 19 /* KEEPONFORK */ , 22 /* POPULATE_READ */ ,
23 /* POPULATE_WRITE */ };

/* The allowlist.  Keep sorted by purpose; the syscall probe test reads it. */
static const SbSyscallRule sb_policy[] = {
	/* process lifetime and signals (only to ourselves) */
	{"exit", SB_ALLOW}, {"exit_group", SB_ALLOW},
	{"rt_sigaction", SB_SIGNAL_NOT_FIXED}, {"rt_sigprocmask", SB_ALLOW},
	{"rt_sigreturn", SB_ALLOW}, {"sigaltstack", SB_ALLOW},
	{"restart_syscall", SB_ALLOW},
	{"kill", SB_SELF_ONLY, 0}, {"tgkill", SB_SELF_ONLY, 0}, {"tkill", SB_SELF_ONLY, 0},
	{"clone", SB_THREAD_ONLY, 0}, {"clone3", SB_ENOSYS},
	/*
	 * not set_robust_list nor set_tid_address: the kernel wakes what they
	 * name when the process exits, a shared wake (sb_seccomp_apply
	 * unregisters what glibc set, review 126 F1)
	 */
	{"set_robust_list", SB_ENOSYS}, {"set_tid_address", SB_ENOSYS}, {"rseq", SB_ALLOW},
	{"futex", SB_FUTEX_PRIVATE, 1}, {"sched_yield", SB_ALLOW},
	/*
	 * its own CPU timer only: a held child re-arms it for each call (the
	 * worker times the calls itself, so disarming it gains nothing)
	 */
	{"setitimer", SB_ARG_EQUALS, 0, ITIMER_PROF},
	{"sched_getaffinity", SB_PID_SELF, 0},

	/* memory: never executable */
	{"brk", SB_ALLOW}, {"munmap", SB_ALLOW}, {"mremap", SB_ALLOW}, {"madvise", SB_MADVISE_SAFE, 2},
	{"mmap", SB_MMAP_PRIVATE}, {"mprotect", SB_NO_EXEC, 2}, {"pkey_mprotect", SB_NO_EXEC, 2},
	/* transparent huge pages off before the code runs (sb_io_huge_pages_off) */
	{"prctl", SB_THP_OFF},

	/* reading (Landlock decides what), writing only to fds we hold */
	{"read", SB_ALLOW}, {"readv", SB_ALLOW}, {"pread64", SB_ALLOW},
	{"write", SB_ALLOW}, {"writev", SB_ALLOW},
	/* read() that does not block: a held child polls for its next call */
	{"recvfrom", SB_ARG_EQUALS, 3, MSG_DONTWAIT},
	/* the end of its output, then it waits for the backend (sb_io_end) */
	{"shutdown", SB_ARG_EQUALS, 1, SHUT_WR},
	{"openat", SB_READ_ONLY_OPEN, 2}, {"open", SB_READ_ONLY_OPEN, 1},
	{"openat2", SB_ENOSYS},
	{"close", SB_ALLOW}, {"lseek", SB_ALLOW},
	/* no F_SETOWN / F_SETSIG / F_SETLEASE / F_NOTIFY: SIGIO could reach others */
	{"fcntl", SB_ARG_EQUALS, 1, F_GETFD}, {"fcntl", SB_ARG_EQUALS, 1, F_SETFD},
	{"fcntl", SB_ARG_EQUALS, 1, F_GETFL}, {"fcntl", SB_ARG_EQUALS, 1, F_SETFL},
	{"fcntl", SB_ARG_EQUALS, 1, F_DUPFD_CLOEXEC},
	{"fstat", SB_ALLOW}, {"stat", SB_ALLOW}, {"lstat", SB_ALLOW},
	{"newfstatat", SB_ALLOW}, {"statx", SB_ALLOW},
	{"access", SB_ALLOW}, {"faccessat", SB_ALLOW}, {"faccessat2", SB_ALLOW},
	{"readlink", SB_ALLOW}, {"readlinkat", SB_ALLOW},
	{"getdents64", SB_ALLOW}, {"getcwd", SB_ALLOW},
	{"ioctl", SB_ARG_EQUALS, 1, TCGETS}, {"ioctl", SB_ARG_EQUALS, 1, TIOCGWINSZ},

	/* information about ourselves and the clock */
	{"getpid", SB_ALLOW}, {"getppid", SB_ALLOW}, {"gettid", SB_ALLOW},
	{"getuid", SB_ALLOW}, {"geteuid", SB_ALLOW}, {"getgid", SB_ALLOW},
	{"getegid", SB_ALLOW}, {"getgroups", SB_ALLOW},
	{"getresuid", SB_ALLOW}, {"getresgid", SB_ALLOW},
	{"uname", SB_ALLOW}, {"getrusage", SB_ALLOW},
	/* system-wide free memory and process count: a channel between calls */
	{"sysinfo", SB_ENOSYS},
	{"times", SB_ALLOW}, {"getrandom", SB_ALLOW},
	{"prlimit64", SB_PID_SELF_QUERY}, {"getrlimit", SB_ALLOW},
	{"clock_gettime", SB_CLOCK_OWN}, {"clock_getres", SB_CLOCK_OWN},
	{"gettimeofday", SB_ALLOW}, {"time", SB_ALLOW},
	{"nanosleep", SB_ALLOW}, {"clock_nanosleep", SB_CLOCK_OWN},
};

/* syscall names by number, resolved before fork: the handler cannot malloc */
#define SB_MAX_SYSCALL 1024
static char sb_syscall_names[SB_MAX_SYSCALL][32];

/*
 * The filter is compiled once, in the worker, with a placeholder where the
 * child's own pid goes (kill/tgkill/tkill of itself); each child copies the
 * program, patches in its pid and loads it.  Compiling per child cost ~10 ms.
 */
#define SB_PID_PLACEHOLDER	0x5EC0DE01U
#define SB_MAX_BPF_INSNS	4096
static struct sock_filter sb_bpf[SB_MAX_BPF_INSNS];
static unsigned short sb_bpf_len = 0;
static int	sb_bpf_error = EINVAL;	/* why there is no program, if none */

static int	sb_seccomp_add(scmp_filter_ctx ctx, const SbSyscallRule *r, pid_t self);

/* Compile the policy to BPF (placeholder pid) into sb_bpf. */
static void
sb_seccomp_compile(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
	int			fd = -1;
	int			rc;
	size_t		i;
	ssize_t		n;

	if (ctx == NULL)
	{
		sb_bpf_error = ENOMEM;
		return;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* we set no_new_privs ourselves, before Landlock */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	for (i = 0; rc == 0 && i < sizeof(sb_policy) / sizeof(sb_policy[0]); i++)
		rc = sb_seccomp_add(ctx, &sb_policy[i], (pid_t) SB_PID_PLACEHOLDER);
	if (rc == 0)
	{
		fd = memfd_create("pysandbox-bpf", MFD_CLOEXEC);
		rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	}
	seccomp_release(ctx);
	if (rc == 0)
	{
		n = pread(fd, sb_bpf, sizeof(sb_bpf), 0);
		if (n <= 0 || n % sizeof(struct sock_filter) != 0 || n == (ssize_t) sizeof(sb_bpf))
			rc = -EINVAL;
		else
			sb_bpf_len = (unsigned short) (n / sizeof(struct sock_filter));
	}
	if (fd >= 0)
		close(fd);
	sb_bpf_error = rc == 0 ? 0 : -rc;
}

/* Did the filter compile?  (If not, every child fails closed.) */
bool
sb_seccomp_ready(void)
{
	return sb_bpf_len > 0;
}

/* Resolve syscall names and compile the filter (once, in the worker). */
void
sb_seccomp_prepare(void)
{
	int			nr;

	for (nr = 0; nr < SB_MAX_SYSCALL; nr++)
	{
		char	   *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (name)
		{
			strncpy(sb_syscall_names[nr], name, sizeof(sb_syscall_names[nr]) - 1);
			free(name);
		}
	}
	sb_seccomp_compile();
}

/* SIGSYS from a trapped call: tell the backend which call, then exit. */
static void
sb_sigsys_handler(int sig, siginfo_t *info, void *ucontext)
{
	SbViolation v;
	int			nr = info->si_syscall;

	(void) sig;
	(void) ucontext;
	memset(&v, 0, sizeof(v));
	v.syscall_nr = nr;
	if (nr >= 0 && nr < SB_MAX_SYSCALL)
		memcpy(v.name, sb_syscall_names[nr], sizeof(sb_syscall_names[nr]) - 1);
	/* (a backend polling a held call's mailbox turns to the socket within 1 ms) */
	(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_VIOLATION, &v, sizeof(v));
	_exit(SB_CHILD_EXIT_VIOLATION);
}

/*
 * rt_sigaction may change any signal's disposition but the CPU limit's
 * (SIGXCPU 24, SIGPROF 27) and SIGSYS's (31), or query any (a NULL new
 * action).  The allowed numbers as rules no number with high bits set can
 * match: 1-23 (0 is no signal), 25, 26, 28-30, 32-63 and 64.
 */
static int
sb_seccomp_signals(scmp_filter_ctx ctx, int nr)
{
	static const int singles[] = {SIGXCPU + 1, SIGXCPU + 2, SIGPROF + 1, SIGPROF + 2,
	SIGPROF + 3, 64};
	int			rc;
	size_t		i;

	rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A1(SCMP_CMP_EQ, 0));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A0(SCMP_CMP_LT, SIGXCPU));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
							  SCMP_A0(SCMP_CMP_MASKED_EQ, ~(scmp_datum_t) 31, 32));
	for (i = 0; rc == 0 && i < sizeof(singles) / sizeof(singles[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
							  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t) singles[i]));
	return rc;
}

/* Add one policy rule to the filter; 0 on success, negative on failure. */
static int
sb_seccomp_add(scmp_filter_ctx ctx, const SbSyscallRule *r, pid_t self)
{
	int			nr = seccomp_syscall_resolve_name(r->name);
	int			rc;
	size_t		i;

	if (nr == __NR_SCMP_ERROR)
		return 0;				/* not a call on this architecture */

	switch (r->kind)
	{
		case SB_ALLOW:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		case SB_NO_EXEC:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
		case SB_MMAP_PRIVATE:

			/*
			 * No shared memory of its own: a shared mapping is not data,
			 * so RLIMIT_DATA does not count it, and on a kernel without
			 * mseal code that unmapped its inherited libraries could map
			 * their address space again as shared memory and write it
			 * (review 95).  Shared read-only mappings of a file stay
			 * (glibc's gconv cache): every file it opens is read-only, so
			 * mprotect cannot make them writable.  MAP_SHARED_VALIDATE
			 * has the MAP_SHARED bit too.  Nor MAP_GROWSDOWN: the kernel
			 * counts such a mapping as stack, not data (review 96; only
			 * a thread library's stacks use it, and there are no
			 * threads).  Nor MAP_HUGETLB: the host's pool of huge pages
			 * (kept for shared_buffers), which no resident count shows
			 * (review 97).  The private type by name, not "no shared bit":
			 * a type a later kernel adds (6.11's MAP_DROPPABLE, 0x08)
			 * is refused until it is looked at (review 114 I2).
			 */
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2,
								  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
								  SCMP_A3(SCMP_CMP_MASKED_EQ,
										  SB_MAP_TYPE | MAP_GROWSDOWN | MAP_HUGETLB,
										  MAP_PRIVATE));
			if (rc == 0)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2,
									  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, 0),
									  SCMP_A3(SCMP_CMP_MASKED_EQ,
											  MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN |
											  MAP_HUGETLB, MAP_SHARED));
			return rc;
		case SB_READ_ONLY_OPEN:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ,
											 SB_OPEN_WRITE_FLAGS, 0));
		case SB_SELF_ONLY:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_EQ, (scmp_datum_t) self));
		case SB_THREAD_ONLY:

			/*
			 * A thread's CLONE_CHILD_CLEARTID makes the kernel wake a shared
			 * futex at that address when the thread exits, as the process's
			 * own clear_child_tid did (review 126 F1, review 128 F7).
			 * RLIMIT_NPROC 0 fails every clone today; this holds without it.
			 * glibc's pthread_create always asks for it: EPERM, so a thread
			 * that cannot start fails as one that the limit refused does.
			 */
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
								  SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ,
										   CLONE_THREAD | CLONE_CHILD_CLEARTID |
										   SB_NAMESPACE_FLAGS,
										   CLONE_THREAD));
			if (rc == 0)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
									  SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ,
											   CLONE_THREAD | CLONE_CHILD_CLEARTID |
											   SB_NAMESPACE_FLAGS,
											   CLONE_THREAD | CLONE_CHILD_CLEARTID));
			return rc;
		case SB_ARG_ZERO:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_EQ, 0));
		case SB_ARG_EQUALS:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_EQ, r->value));
		case SB_ENOSYS:
			return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
		case SB_PID_SELF:
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A0(SCMP_CMP_EQ, 0));
			if (rc == 0)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t) self));
			return rc;
		case SB_PID_SELF_QUERY:
			rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2, SCMP_A0(SCMP_CMP_EQ, 0),
								  SCMP_A2(SCMP_CMP_EQ, 0));
			if (rc == 0)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2,
									  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t) self),
									  SCMP_A2(SCMP_CMP_EQ, 0));
			return rc;
		case SB_CLOCK_OWN:
			/* unsigned: a negative id (another process's clock) is huge */
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_A0(SCMP_CMP_LE, SB_MAX_CLOCK_ID));
		case SB_FUTEX_PRIVATE:
			/* every bit but the clock's must match: no high bits either */
			rc = 0;
			for (i = 0; rc == 0 && i < sizeof(sb_futex_ops) / sizeof(sb_futex_ops[0]); i++)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									  SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ,
											   ~(scmp_datum_t) SB_FUTEX_CLOCK_REALTIME,
											   (scmp_datum_t) (sb_futex_ops[i] | SB_FUTEX_PRIVATE_FLAG)));
			return rc;
		case SB_MADVISE_SAFE:
			rc = 0;
			for (i = 0; rc == 0 && i < sizeof(sb_madvise_ok) / sizeof(sb_madvise_ok[0]); i++)
				rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									  SCMP_CMP(r->arg, SCMP_CMP_EQ, (scmp_datum_t) sb_madvise_ok[i]));
			return rc;
		case SB_THP_OFF:

			/*
			 * Every argument: Linux 6.18 reads arg2 as flags, and with
			 * PR_THP_DISABLE_EXCEPT_ADVISED there the call turns huge
			 * pages back on where madvise(MADV_HUGEPAGE) asks (review 93:
			 * 6 GB held at memory_mb 64).  Whatever a later kernel reads
			 * in the others, only the call sb_io_huge_pages_off makes
			 * passes.
			 */
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 5,
									SCMP_A0(SCMP_CMP_EQ, PR_SET_THP_DISABLE),
									SCMP_A1(SCMP_CMP_EQ, 1),
									SCMP_A2(SCMP_CMP_EQ, 0),
									SCMP_A3(SCMP_CMP_EQ, 0),
									SCMP_A4(SCMP_CMP_EQ, 0));
		case SB_SIGNAL_NOT_FIXED:
			return sb_seccomp_signals(ctx, nr);
	}
	return -EINVAL;
}

/*
 * In the child: install the SIGSYS handler and load the precompiled filter
 * with our pid patched in.  Returns 0 on success, -1 with errno set; the
 * caller must not run anything if this fails.
 */
int
sb_seccomp_apply(pid_t self)
{
	struct sigaction sa;
	struct sock_fprog prog;
	unsigned short i;
	int			patched = 0;

	if (sb_bpf_len == 0)
	{
		errno = sb_bpf_error ? sb_bpf_error : EINVAL;
		return -1;
	}
	/* the child owns its copy of sb_bpf: patch it in place */
	for (i = 0; i < sb_bpf_len; i++)
		if (sb_bpf[i].k == SB_PID_PLACEHOLDER)
		{
			sb_bpf[i].k = (uint32_t) self;
			patched++;
		}
	if (patched == 0)			/* libseccomp shares one test for kill/tgkill/tkill */
	{
		errno = EINVAL;
		return -1;
	}

	/*
	 * Nothing the kernel wakes for us when we exit (review 126 F1): the
	 * pending entry of a robust list is woken with a shared wake if its
	 * word is 0, clear_child_tid with a shared wake whatever it holds.
	 * glibc registered both in this process's own memory, which the code
	 * can rewrite (the list's pending entry, in place) to point into a
	 * shared mapping of a library file, waking a process outside that
	 * waits there.  A process of one thread needs neither; the filter
	 * refuses to register them again.
	 */
	(void) syscall(SYS_set_robust_list, NULL, sizeof(struct robust_list_head));
	(void) syscall(SYS_set_tid_address, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sb_sigsys_handler;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);	/* SIGPROF's handler may not write inside its frame */
	if (sigaction(SIGSYS, &sa, NULL) < 0)
		return -1;

	prog.len = sb_bpf_len;
	prog.filter = sb_bpf;
	return (int) syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
