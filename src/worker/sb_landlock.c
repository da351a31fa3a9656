/*
 * sb_landlock.c
 *		Filesystem confinement with Landlock, ABI probed at run time.
 *
 * The child may read (files and directories) beneath the Python library
 * directories and zoneinfo, and nothing else: no writes anywhere, no reads
 * of the data directory, /proc, /dev/shm, /etc or the socket directory.
 * From ABI 4 on, TCP bind/connect are handled with no rule (denied); from
 * ABI 6 on, abstract Unix sockets and signals outside the domain are scoped.
 *
 * The structures are declared here rather than taken from <linux/landlock.h>
 * so that a build on older headers still uses what the running kernel has.
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define SB_LL_CREATE_RULESET_VERSION	(1U << 0)
#define SB_LL_RULE_PATH_BENEATH			1

#define SB_LL_FS_EXECUTE		(1ULL << 0)
#define SB_LL_FS_READ_FILE		(1ULL << 2)
#define SB_LL_FS_READ_DIR		(1ULL << 3)
#define SB_LL_FS_ABI1_ALL		((1ULL << 13) - 1)
#define SB_LL_FS_REFER			(1ULL << 13)
#define SB_LL_FS_TRUNCATE		(1ULL << 14)
#define SB_LL_FS_IOCTL_DEV		(1ULL << 15)
#define SB_LL_NET_BIND_TCP		(1ULL << 0)
#define SB_LL_NET_CONNECT_TCP	(1ULL << 1)
#define SB_LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)
#define SB_LL_SCOPE_SIGNAL		(1ULL << 1)

typedef struct SbLandlockRulesetAttr
{
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
} SbLandlockRulesetAttr;

typedef struct __attribute__((packed)) SbLandlockPathBeneath
{
	uint64_t	allowed_access;
	int32_t		parent_fd;
} SbLandlockPathBeneath;

/* The Landlock ABI version of the running kernel, or 0 if unavailable. */
int
sb_landlock_abi(void)
{
	long		abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
							  SB_LL_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int) abi;
}

/*
 * Restrict this process to read-only access beneath paths.  Returns 0 on
 * success, -1 with errno set (ENOSYS / EOPNOTSUPP when Landlock is missing).
 * Requires no_new_privs to be set already.
 */
int
sb_landlock_apply(const char *const *paths, int npaths)
{
	int			abi = sb_landlock_abi();
	SbLandlockRulesetAttr attr;
	size_t		attr_size;
	int			ruleset;
	int			i;

	if (abi <= 0)
	{
		errno = EOPNOTSUPP;
		return -1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = SB_LL_FS_ABI1_ALL;
	if (abi >= 2)
		attr.handled_access_fs |= SB_LL_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= SB_LL_FS_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= SB_LL_FS_IOCTL_DEV;
	attr_size = sizeof(uint64_t);
	if (abi >= 4)
	{
		attr.handled_access_net = SB_LL_NET_BIND_TCP | SB_LL_NET_CONNECT_TCP;
		attr_size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6)
	{
		attr.scoped = SB_LL_SCOPE_ABSTRACT_UNIX | SB_LL_SCOPE_SIGNAL;
		attr_size = 3 * sizeof(uint64_t);
	}

	ruleset = (int) syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset < 0)
		return -1;

	for (i = 0; i < npaths; i++)
	{
		SbLandlockPathBeneath rule;
		int			fd = open(paths[i], O_PATH | O_CLOEXEC);

		if (fd < 0)
			continue;			/* a path that vanished grants nothing */
		rule.allowed_access = SB_LL_FS_READ_FILE | SB_LL_FS_READ_DIR;
		rule.parent_fd = fd;
		if (syscall(SYS_landlock_add_rule, ruleset, SB_LL_RULE_PATH_BENEATH, &rule, 0) < 0)
		{
			int			save = errno;

			close(fd);
			close(ruleset);
			errno = save;
			return -1;
		}
		close(fd);
	}

	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
	{
		int			save = errno;

		close(ruleset);
		errno = save;
		return -1;
	}
	close(ruleset);
	return 0;
}
