/*
 * sb_mountns.c
 *		Filesystem confinement with a mount namespace, under Landlock where
 *		the kernel has it, alone where it does not.
 *
 * The child builds a new root that holds only read-only bind mounts of the
 * Python library directories and zoneinfo, on a read-only tmpfs, and pivots
 * into it; the old root is detached, so the data directory, /proc, /dev,
 * /etc and the socket directory do not exist inside: not for open(), and
 * not for stat(), access(), readlink() or O_PATH opens either, which
 * Landlock does not mediate.  The seccomp filter
 * installed afterwards forbids mount, umount2, pivot_root, chroot and
 * unshare, so the view cannot be changed back.
 *
 * The same steps bubblewrap takes: a tmpfs on /tmp as the staging root
 * (any existing directory would do; /tmp exists everywhere), bind mounts
 * remounted read-only while keeping the flags the kernel locks for mounts
 * inherited from a more privileged namespace, then pivot_root(".", ".")
 * and a lazy unmount of the old root stacked beneath.
 *
 * It is built once per worker, not per child: a helper process enters a
 * new user namespace, builds the root in a new mount namespace and holds
 * both until the worker has opened them (/proc/<pid>/ns/user and mnt);
 * the open namespace files keep them alive after the helper exits.  Each
 * child then joins them with setns() (sb_contain.c): a process owns the
 * user namespaces its uid created, so it needs no privilege for that.
 * Building and tearing down a mount namespace per child cost two
 * expedited RCU grace periods (the old root's detach, and the namespace's
 * end at exit): ~1.3 ms per child on a virtual machine.  The children
 * share one read-only view and cannot change it (seccomp forbids mount,
 * umount2, pivot_root, chroot, setns and unshare), so sharing it is not
 * a channel between them.
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SB_MOUNT_STAGING "/tmp"

/* Write text to a /proc file; 0 on success, -1 with errno set. */
static int
sb_write_proc(const char *path, const char *text)
{
	int			fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t		len = strlen(text);
	ssize_t		n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	if (n != (ssize_t) len)
	{
		int			save = n < 0 ? errno : EIO;

		close(fd);
		errno = save;
		return -1;
	}
	return close(fd);
}

/*
 * Map our own uid and gid into the new user namespace (files on the tmpfs
 * need a mapped owner), as nobody and nogroup: inside, the child sees the
 * ids an unmapped process would see, not the server's.  setgroups must be
 * denied before an unprivileged process may write gid_map.
 */
#define SB_INNER_ID 65534

static int
sb_map_ids(uid_t uid, gid_t gid)
{
	char		line[64];

	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned) SB_INNER_ID, (unsigned) uid);
	if (sb_write_proc("/proc/self/uid_map", line) < 0)
		return -1;
	if (sb_write_proc("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned) SB_INNER_ID, (unsigned) gid);
	return sb_write_proc("/proc/self/gid_map", line);
}

/* mkdir -p for an absolute path; existing directories are fine. */
static int
sb_mkdirs(const char *path)
{
	char		buf[PATH_MAX];
	size_t		len = strlen(path);
	char	   *p;

	if (len == 0 || len >= sizeof(buf))
	{
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (p = buf + 1;; p++)
	{
		if (*p == '/' || *p == '\0')
		{
			char		save = *p;

			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = save;
			if (save == '\0')
				break;
		}
	}
	return 0;
}

/*
 * The mount flags a read-only remount of a bind of path must keep: the
 * kernel refuses to clear nosuid, nodev, noexec or the atime flags of a
 * mount that came from a more privileged namespace.
 */
static unsigned long
sb_locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long flags = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_NOEXEC)
		flags |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		flags |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		flags |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		flags |= MS_RELATIME;
	return flags;
}

/* Is path equal to or beneath prefix (both absolute, no trailing slash)? */
static bool
sb_path_within(const char *path, const char *prefix)
{
	size_t		n = strlen(prefix);

	if (strcmp(prefix, "/") == 0)
		return true;
	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * Enter a new mount namespace whose root holds only read-only copies of
 * paths.  The caller has already entered a new user namespace and has not
 * yet changed uid_map.  Returns 0, or -1 with errno set and *step naming
 * what failed.
 */
static int
sb_mountns_apply(const char *const *paths, int npaths, uid_t uid, gid_t gid,
				 const char **step)
{
	char		target[PATH_MAX];
	int			sources[SB_MAX_READ_PATHS];
	int			i,
				j;

	*step = "map the user and group ids";
	if (sb_map_ids(uid, gid) < 0)
		return -1;
	*step = "enter a new mount namespace";
	if (unshare(CLONE_NEWNS) < 0)
		return -1;
	*step = "make the mounts private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	/*
	 * Hold every source open before the staging tmpfs hides /tmp: a library
	 * directory beneath /tmp (a virtualenv) is then still reachable, bound
	 * through /proc/self/fd.
	 */
	*step = "open a library directory";
	for (i = 0; i < npaths && i < SB_MAX_READ_PATHS; i++)
	{
		sources[i] = paths[i][0] == '/' ? open(paths[i], O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		if (sources[i] < 0 && paths[i][0] == '/' && errno != ENOENT)
			return -1;
	}

	*step = "mount the new root";
	if (mount("tmpfs", SB_MOUNT_STAGING, "tmpfs", MS_NOSUID | MS_NODEV,
			  "size=64k,nr_inodes=1024,mode=0755") < 0)
		return -1;

	for (i = 0; i < npaths && i < SB_MAX_READ_PATHS; i++)
	{
		const char *p = paths[i];
		bool		covered = false;
		char		source[64];

		if (p[0] != '/' || sources[i] < 0)
			continue;			/* a path that vanished grants nothing */
		/* beneath a directory bound already: that bind carries it */
		for (j = 0; j < npaths && !covered; j++)
			if (j != i && paths[j][0] == '/' && sb_path_within(p, paths[j]) &&
				(strcmp(p, paths[j]) != 0 || j < i))
				covered = true;
		if (covered)
			continue;

		if (snprintf(target, sizeof(target), "%s%s", SB_MOUNT_STAGING, p) >= (int) sizeof(target))
		{
			*step = "bind a library directory";
			errno = ENAMETOOLONG;
			return -1;
		}
		*step = "create a mount point in the new root";
		if (sb_mkdirs(target) < 0)
			return -1;
		*step = "bind a library directory";
		snprintf(source, sizeof(source), "/proc/self/fd/%d", sources[i]);
		if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) < 0)
			return -1;
		*step = "make a library directory read-only";
		if (mount(NULL, target, NULL,
				  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | sb_locked_flags(target),
				  NULL) < 0)
			return -1;
	}

	for (i = 0; i < npaths && i < SB_MAX_READ_PATHS; i++)
		if (sources[i] >= 0)
			close(sources[i]);

	*step = "change to the new root";
	if (chdir(SB_MOUNT_STAGING) < 0)
		return -1;
	*step = "pivot to the new root";
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return -1;
	*step = "detach the old root";
	if (umount2(".", MNT_DETACH) < 0)
		return -1;
	if (chdir("/") < 0)
		return -1;
	*step = "make the new root read-only";
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
			  NULL) < 0)
		return -1;
	return 0;
}

/*
 * Build the template: a helper enters a new user namespace and the mount
 * namespace root above, and the worker opens both namespaces before the
 * helper exits.  Sets c->userns_fd and c->mntns_fd (close-on-exec) and
 * returns true, or returns false (with a line in the server log) where it
 * cannot be done, e.g. without unprivileged user namespaces.
 */
bool
sb_mountns_template(SbContainment *c)
{
	uid_t		uid = getuid();
	gid_t		gid = getgid();
	int			ready[2];
	int			hold[2];
	char		path[64];
	char		byte = 0;
	int			status;
	pid_t		pid;

	c->userns_fd = c->mntns_fd = -1;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return false;
	if (pipe2(hold, O_CLOEXEC) < 0)
	{
		close(ready[0]);
		close(ready[1]);
		return false;
	}
	pid = fork();
	if (pid == 0)
	{
		const char *step = "enter a new user namespace";

		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER) < 0 ||
			sb_mountns_apply(c->read_paths, c->n_read_paths, uid, gid, &step) < 0 ||
			access("/proc/self", F_OK) == 0)
		{
			fprintf(stderr, "pysandbox-worker: no mount namespace for the sandbox: could not %s: %s\n",
					step, strerror(errno));
			_exit(1);
		}
		/* ready; hold the namespaces until the worker has them */
		if (write(ready[1], "R", 1) != 1)
			_exit(1);
		while (read(hold[0], &byte, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (pid > 0 && read(ready[0], &byte, 1) == 1 && byte == 'R')
	{
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int) pid);
		c->userns_fd = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int) pid);
		c->mntns_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	close(ready[0]);
	close(hold[1]);				/* the helper may go */
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (c->userns_fd < 0 || c->mntns_fd < 0)
	{
		if (c->userns_fd >= 0)
			close(c->userns_fd);
		if (c->mntns_fd >= 0)
			close(c->mntns_fd);
		c->userns_fd = c->mntns_fd = -1;
		return false;
	}
	return true;
}
