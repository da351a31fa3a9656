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
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef enum SbRuleKind
{
	SB_ALLOW,					/* always */
	SB_NO_EXEC,					/* arg has no PROT_EXEC bit */
	SB_READ_ONLY_OPEN,			/* arg has no write/create/truncate flag */
	SB_SELF_ONLY,				/* arg0 is our own pid */
	SB_THREAD_ONLY,				/* clone flags: a thread, no namespaces */
	SB_ARG_ZERO,				/* arg is 0 (e.g. a NULL pointer) */
	SB_ARG_EQUALS,				/* arg equals value */
	SB_ENOSYS					/* fail with ENOSYS so libc falls back */
} SbRuleKind;

typedef struct SbSyscallRule
{
	const char *name;
	SbRuleKind	kind;
	int			arg;
	unsigned long value;
} SbSyscallRule;

#define SB_OPEN_WRITE_FLAGS \
	(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY))
#define SB_NAMESPACE_FLAGS \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
	 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/* The allowlist.  Keep sorted by purpose; the syscall probe test reads it. */
static const SbSyscallRule sb_policy[] = {
	/* process lifetime and signals (only to ourselves) */
	{"exit", SB_ALLOW}, {"exit_group", SB_ALLOW},
	{"rt_sigaction", SB_ALLOW}, {"rt_sigprocmask", SB_ALLOW},
	{"rt_sigreturn", SB_ALLOW}, {"sigaltstack", SB_ALLOW},
	{"restart_syscall", SB_ALLOW},
	{"kill", SB_SELF_ONLY, 0}, {"tgkill", SB_SELF_ONLY, 0}, {"tkill", SB_SELF_ONLY, 0},
	{"clone", SB_THREAD_ONLY, 0}, {"clone3", SB_ENOSYS},
	{"set_robust_list", SB_ALLOW}, {"set_tid_address", SB_ALLOW}, {"rseq", SB_ALLOW},
	{"futex", SB_ALLOW}, {"sched_yield", SB_ALLOW}, {"sched_getaffinity", SB_ALLOW},

	/* memory: never executable */
	{"brk", SB_ALLOW}, {"munmap", SB_ALLOW}, {"mremap", SB_ALLOW}, {"madvise", SB_ALLOW},
	{"mmap", SB_NO_EXEC, 2}, {"mprotect", SB_NO_EXEC, 2}, {"pkey_mprotect", SB_NO_EXEC, 2},

	/* reading (Landlock decides what), writing only to fds we hold */
	{"read", SB_ALLOW}, {"readv", SB_ALLOW}, {"pread64", SB_ALLOW},
	{"write", SB_ALLOW}, {"writev", SB_ALLOW},
	{"openat", SB_READ_ONLY_OPEN, 2}, {"open", SB_READ_ONLY_OPEN, 1},
	{"openat2", SB_ENOSYS},
	{"close", SB_ALLOW}, {"lseek", SB_ALLOW}, {"fcntl", SB_ALLOW},
	{"fstat", SB_ALLOW}, {"stat", SB_ALLOW}, {"lstat", SB_ALLOW},
	{"newfstatat", SB_ALLOW}, {"statx", SB_ALLOW},
	{"access", SB_ALLOW}, {"faccessat", SB_ALLOW}, {"faccessat2", SB_ALLOW},
	{"readlink", SB_ALLOW}, {"readlinkat", SB_ALLOW},
	{"getdents64", SB_ALLOW}, {"getcwd", SB_ALLOW},
	{"ioctl", SB_ARG_EQUALS, 1, TCGETS},

	/* information about ourselves and the clock */
	{"getpid", SB_ALLOW}, {"getppid", SB_ALLOW}, {"gettid", SB_ALLOW},
	{"getuid", SB_ALLOW}, {"geteuid", SB_ALLOW}, {"getgid", SB_ALLOW},
	{"getegid", SB_ALLOW}, {"getgroups", SB_ALLOW},
	{"getresuid", SB_ALLOW}, {"getresgid", SB_ALLOW},
	{"uname", SB_ALLOW}, {"sysinfo", SB_ALLOW}, {"getrusage", SB_ALLOW},
	{"times", SB_ALLOW}, {"getrandom", SB_ALLOW},
	{"prlimit64", SB_ARG_ZERO, 2}, {"getrlimit", SB_ALLOW},
	{"clock_gettime", SB_ALLOW}, {"clock_getres", SB_ALLOW},
	{"gettimeofday", SB_ALLOW}, {"time", SB_ALLOW},
	{"nanosleep", SB_ALLOW}, {"clock_nanosleep", SB_ALLOW},
};

/* syscall names by number, resolved before fork: the handler cannot malloc */
#define SB_MAX_SYSCALL 1024
static char sb_syscall_names[SB_MAX_SYSCALL][32];

/* Resolve the names of all native system calls (once, in the worker). */
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
		memcpy(v.name, sb_syscall_names[nr], sizeof(v.name) - 1 < 32 ? sizeof(v.name) - 1 : 31);
	(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_VIOLATION, &v, sizeof(v));
	_exit(SB_CHILD_EXIT_VIOLATION);
}

/* Add one policy rule to the filter; 0 on success, negative on failure. */
static int
sb_seccomp_add(scmp_filter_ctx ctx, const SbSyscallRule *r, pid_t self)
{
	int			nr = seccomp_syscall_resolve_name(r->name);

	if (nr == __NR_SCMP_ERROR)
		return 0;				/* not a call on this architecture */

	switch (r->kind)
	{
		case SB_ALLOW:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		case SB_NO_EXEC:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
		case SB_READ_ONLY_OPEN:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ,
											 SB_OPEN_WRITE_FLAGS, 0));
		case SB_SELF_ONLY:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_EQ, (scmp_datum_t) self));
		case SB_THREAD_ONLY:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_MASKED_EQ,
											 CLONE_THREAD | SB_NAMESPACE_FLAGS,
											 CLONE_THREAD));
		case SB_ARG_ZERO:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_EQ, 0));
		case SB_ARG_EQUALS:
			return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
									SCMP_CMP(r->arg, SCMP_CMP_EQ, r->value));
		case SB_ENOSYS:
			return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	}
	return -EINVAL;
}

/*
 * Install the SIGSYS handler and the filter.  Returns 0 on success, -1 with
 * errno set; the caller must not run anything if this fails.
 */
int
sb_seccomp_apply(pid_t self)
{
	scmp_filter_ctx ctx;
	struct sigaction sa;
	size_t		i;
	int			rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sb_sigsys_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0)
		return -1;

	ctx = seccomp_init(SCMP_ACT_TRAP);
	if (ctx == NULL)
	{
		errno = ENOMEM;
		return -1;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (i = 0; rc == 0 && i < sizeof(sb_policy) / sizeof(sb_policy[0]); i++)
		rc = sb_seccomp_add(ctx, &sb_policy[i], self);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0)
	{
		errno = -rc;
		return -1;
	}
	return 0;
}
