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
 * Must run in a new user namespace (for the capabilities) before the
 * process becomes non-dumpable: writing /proc/self/uid_map needs both.
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
int
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
