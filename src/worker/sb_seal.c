/*
 * sb_seal.c
 *		Seal the worker's file mappings (and its inaccessible anonymous
 *		ones), so that a child cannot trade the address space of the
 *		libraries it inherited for memory.
 *
 * A child's memory limit is an address-space limit (RLIMIT_AS) on top of
 * what it inherits from the worker: ~100 MB of it is libraries and their
 * data files (libicudata alone is 29 MB), mapped from files and, for the
 * most part, never written.  Native code (the Python layer off, or a
 * library's memory bug) could unmap them and map as much new memory, or
 * make their pages writable and write them, which turns each into private
 * memory without any new address space (review 87: 104 MB resident under a
 * 64 MB limit).
 *
 * mseal() (Linux 6.10) makes a mapping's extent and protection final:
 * munmap, mremap, mprotect and discarding madvise fail on it with EPERM,
 * and a fork copies the seal.  So the worker, and the preloaded process,
 * seal every private file mapping they hold once they are warm, before
 * any call's child is forked: every child inherits them sealed, at no cost
 * per call.  Mappings made afterwards (a module a call imports) are not,
 * but their address space counts against the call's limit, so unmapping
 * them gains nothing.  Shared mappings are left alone: the worker unmaps
 * its clients' clock pages (sb_held.c), and shared pages are not a
 * child's own.  What honest code does is unchanged: CPython never unloads
 * an extension module, nothing remaps a library, and the writable data of
 * a library stays writable.  On a kernel without mseal the child's data
 * limit (RLIMIT_DATA, sb_contain.c) counts the simple forms of either
 * trade; the others (review 95) the worker finds within 20 ms, reading the
 * private memory the child holds (SB_RESIDENT_SLACK_KB), and the seccomp
 * filter refuses shared memory, which is not data.
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_mseal
#define SYS_mseal 462			/* the same number on every architecture */
#endif

/*
 * Tests of the kernels without mseal (test/check.sh): the cluster's
 * environment asks (PYSANDBOX_TEST_NO_SEAL), sandbox_layers() then reports
 * the mappings as not sealed.  Read at the worker's start: its warm-up
 * clears the environment.
 */
static bool sb_seal_off = false;

void
sb_seal_read_switch(void)
{
	sb_seal_off = getenv("PYSANDBOX_TEST_NO_SEAL") != NULL;
}

/*
 * Seal every private mapping of a file this process holds, and every
 * anonymous one that is inaccessible (PROT_NONE: guard pages, a reserve
 * such as a malloc arena's): address space a child inherits, counted
 * against its limit, that it could otherwise unmap for memory or make
 * writable.  Returns the number sealed, or -1 with errno set (ENOSYS: the
 * kernel has no mseal, or PYSANDBOX_TEST_NO_SEAL is set; anything else: it refused one, and the others may
 * or may not be).
 */
int
sb_seal_file_mappings(void)
{
	char	   *maps;
	size_t		cap;
	ssize_t		len = sb_read_proc_file("/proc/self/maps", &maps, &cap);
	char	   *line;
	int			sealed = 0;
	int			err = 0;

	if (sb_seal_off)
	{
		if (len >= 0)
			munmap(maps, cap);
		errno = ENOSYS;
		return -1;
	}
	if (len < 0)
		return -1;
	maps[len] = '\0';
	for (line = maps; *line != '\0' && err == 0;)
	{
		char	   *next = strchr(line, '\n');
		unsigned long start,
					end,
					inode;
		char		perms[8];
		int			path = 0;

		if (next != NULL)
			*next = '\0';
		/* start-end perms offset dev inode   path */
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &start, &end, perms, &inode, &path) >= 4 &&
			((inode != 0 && perms[3] == 'p' && path > 0 && line[path] == '/' &&
			  strncmp(line + path, "/memfd:", 7) != 0) ||
			 (inode == 0 && strcmp(perms, "---p") == 0)))
		{
			if (syscall(SYS_mseal, start, end - start, 0) == 0)
				sealed++;
			else
				err = errno;
		}
		line = next != NULL ? next + 1 : line + strlen(line);
	}
	munmap(maps, cap);
	if (err != 0)
	{
		errno = err;
		return -1;
	}
	return sealed;
}
