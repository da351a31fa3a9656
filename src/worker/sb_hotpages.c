/*
 * sb_hotpages.c
 *		Copy the pages every call writes when a child is forked, not on its
 *		first write to each.
 *
 * After fork() the warm heap is shared copy-on-write, and CPython writes to
 * it all the time (reference counts, the allocator's pools, the type
 * cache): a trivial call writes the same ~600 pages in every child.  Each
 * first write is a page fault that copies the page and flushes the old
 * mapping from the TLB; on virtual machines whose page-table changes go
 * through the hypervisor that costs 10-30 us per page, the largest single
 * cost of a call without a spare.
 *
 * Linux copies an anonymous page at fork time instead, into the child's
 * fresh page table (no fault, no flush, and the worker's own mapping stays
 * writable), when the page may be pinned for DMA (copy_present_page in
 * mm/memory.c).  So the fork server
 *
 *	1. forks a probe child that runs a trivial call (a real serve() on a
 *	   synthetic request) and reports the pages that became its own:
 *	   /proc/self/pagemap's "exclusively mapped" bit, before and after, over
 *	   the private writable mappings it inherited;
 *	2. pins exactly those pages by registering them as io_uring fixed
 *	   buffers.  No I/O is ever submitted; the ring fd only holds the pins
 *	   for the worker's lifetime, and children close it with every other fd
 *	   (sb_contain.c step 1; their seccomp filter refuses io_uring anyway).
 *
 * Only what every call writes is pinned: a pinned page is copied at every
 * fork whether the call writes it or not, and the copy costs about as much
 * as the fault it saves (measured on a VM with cheap faults: ~1.3 us per
 * pinned page at fork, ~1.9 us per fault).  Pinning the ~1500 pages of a
 * pandas call as well cut throughput of trivial calls by a fifth there.
 *
 * Pages inside transparent huge pages are left out (a pinned huge page
 * would be copied whole at every fork), and the pins stay within 90 % of
 * RLIMIT_MEMLOCK, against which io_uring charges them (per user: other
 * processes of the server's user share the budget).  Each run of pages is
 * registered on its own in a sparse buffer table, so a run the kernel
 * refuses (a file-backed mapping before Linux 6.5, say) costs only itself.
 * Where io_uring is unavailable or refuses everything, nothing changes but
 * the speed: the worker says so on stderr and serves as before.
 */
#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SB_PAGE 4096UL
#define SB_HOT_MAX_RANGES 4096		/* mappings looked at */
#define SB_HOT_MAX_RUNS 16384		/* io_uring's limit on fixed buffers */
#define SB_HOT_PROBE_TIMEOUT_MS 30000
#define SB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SB_MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct SbRange
{
	uint64_t	start;
	uint64_t	end;
} SbRange;

static int	sb_hot_ring_fd = -1;

/*
 * Read a whole /proc file into an anonymous mapping (no malloc: in the probe
 * child the allocator's pages must stay as the call leaves them).  Returns
 * the length, or -1; *buf is to be munmap'd with *cap, and has room for a
 * NUL after the length.  Also sb_seal.c's.
 */
ssize_t
sb_read_proc_file(const char *path, char **buf, size_t *cap)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t		len = 0;

	*cap = 1 << 20;
	*buf = MAP_FAILED;
	if (fd < 0)
		return -1;
	for (;;)
	{
		ssize_t		n;

		if (*buf == MAP_FAILED || len == *cap)
		{
			size_t		grow = *buf == MAP_FAILED ? *cap : *cap * 2;
			char	   *next = mmap(NULL, grow, PROT_READ | PROT_WRITE,
									MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (next == MAP_FAILED)
				break;
			if (*buf != MAP_FAILED)
			{
				memcpy(next, *buf, len);
				munmap(*buf, *cap);
			}
			*buf = next;
			*cap = grow;
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			close(fd);
			return n == 0 ? (ssize_t) len : -1;
		}
		len += n;
	}
	close(fd);
	if (*buf != MAP_FAILED)
		munmap(*buf, *cap);
	*buf = MAP_FAILED;
	return -1;
}

/*
 * The private writable mappings a child shares with the worker, from
 * /proc/self/smaps (with_thp: also drop those holding transparent huge
 * pages) or /proc/self/maps.  Returns how many, or -1.
 */
static int
sb_hot_mappings(SbRange *out, int max, bool with_thp)
{
	char	   *buf;
	size_t		cap;
	ssize_t		len = sb_read_proc_file(with_thp ? "/proc/self/smaps" : "/proc/self/maps",
									   &buf, &cap);
	char	   *line;
	char	   *end;
	int			n = 0;
	bool		current = false;
	uint64_t	first = 0;		/* start of the mapping being read */

	if (len < 0)
		return -1;
	end = buf + len;
	for (line = buf; line < end;)
	{
		char	   *eol = memchr(line, '\n', end - line);
		unsigned long long a,
					b;
		char		perms[8];
		int			name_at = 0;

		if (eol == NULL)
			eol = end;
		*eol = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &name_at) >= 3)
		{
			first = a;
			const char *name = name_at > 0 ? line + name_at : "";

			current = strcmp(perms, "rw-p") == 0 &&
				strncmp(name, "/dev/", 5) != 0 &&
				strcmp(name, "[stack]") != 0 && strcmp(name, "[vvar]") != 0 &&
				strcmp(name, "[vsyscall]") != 0;
			if (current && n + 1 < max)
			{
				/*
				 * Not the buffer we read this into: it is about to go away
				 * (anonymous mappings merge, so cut it out of its mapping).
				 */
				uint64_t	lo = (uintptr_t) buf;
				uint64_t	hi = lo + cap;

				if (hi <= a || lo >= b)
					out[n++] = (SbRange) {a, b};
				else
				{
					if (a < lo)
						out[n++] = (SbRange) {a, lo};
					if (hi < b)
						out[n++] = (SbRange) {hi, b};
				}
			}
			else
				current = false;
		}
		else if (with_thp && current && strncmp(line, "AnonHugePages:", 14) == 0 &&
				 strtoul(line + 14, NULL, 10) != 0)
		{
			/* holds huge pages: leave the mapping alone */
			while (n > 0 && out[n - 1].start >= first)
				n--;
			current = false;
		}
		line = eol + 1;
	}
	munmap(buf, cap);
	return n;
}

/* Set bit i of map for every page of the ranges that this process alone maps. */
static bool
sb_hot_exclusive(const SbRange *ranges, int n, uint8_t *map)
{
	int			fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t	entries[512];
	size_t		bit = 0;
	int			i;

	if (fd < 0)
		return false;
	for (i = 0; i < n; i++)
	{
		uint64_t	page;

		for (page = ranges[i].start; page < ranges[i].end;)
		{
			size_t		want = SB_MIN((ranges[i].end - page) / SB_PAGE, 512);
			ssize_t		got = pread(fd, entries, want * 8, (off_t) (page / SB_PAGE * 8));
			size_t		k;

			if (got <= 0 || got % 8 != 0)
			{
				close(fd);
				return false;
			}
			for (k = 0; k < (size_t) got / 8; k++, bit++)
				if ((entries[k] >> 63) & (entries[k] >> 56) & 1)
					map[bit / 8] |= (uint8_t) (1 << (bit % 8));
			page += (uint64_t) got / 8 * SB_PAGE;
		}
	}
	close(fd);
	return true;
}

/*
 * Write the runs of pages set in now but not in was (a page this process
 * already had to itself stays so: was is a subset of now).
 */
static void
sb_hot_emit(int fd, const SbRange *ranges, int n, const uint8_t *now, const uint8_t *was)
{
	SbRange		run = {0, 0};
	size_t		bit = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		uint64_t	page;

		for (page = ranges[i].start; page < ranges[i].end; page += SB_PAGE, bit++)
		{
			uint8_t		fresh = now[bit / 8] & ~was[bit / 8];

			if (!((fresh >> (bit % 8)) & 1))
				continue;
			if (run.end == page)
				run.end = page + SB_PAGE;
			else
			{
				if (run.end != 0 && sb_write_all(fd, &run, sizeof(run)) < 0)
					_exit(1);
				run.start = page;
				run.end = page + SB_PAGE;
			}
		}
	}
	if (run.end != 0 && sb_write_all(fd, &run, sizeof(run)) < 0)
		_exit(1);
}

/*
 * The probe child: run a trivial call and write to fd the runs of pages it
 * made its own.  Never returns.
 */
static void
sb_hot_probe(int fd)
{
	static SbRange ranges[SB_HOT_MAX_RANGES];
	int			n = sb_hot_mappings(ranges, SB_HOT_MAX_RANGES, false);
	size_t		pages = 0;
	size_t		bytes;
	uint8_t    *start;
	uint8_t    *after;
	int			i;

	if (n <= 0)
		_exit(1);
	for (i = 0; i < n; i++)
		pages += (ranges[i].end - ranges[i].start) / SB_PAGE;
	bytes = (pages + 7) / 8;
	start = mmap(NULL, 2 * bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (start == MAP_FAILED)
		_exit(1);
	after = start + bytes;
	if (!sb_hot_exclusive(ranges, n, start))
		_exit(1);

	/* what every child does: Python's at-fork work, then a call */
	sb_python_after_fork_child();
	sb_python_probe_call();
	if (!sb_hot_exclusive(ranges, n, after))
		_exit(1);

	sb_hot_emit(fd, ranges, n, after, start);
	_exit(0);
}

/* Read the probe's runs (at most max) until it closes the pipe or times out. */
static int
sb_hot_collect(int fd, pid_t pid, SbRange *runs, int max)
{
	size_t		got = 0;
	int			status = -1;
	struct timespec now;
	long		deadline_ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline_ms = now.tv_sec * 1000L + now.tv_nsec / 1000000 + SB_HOT_PROBE_TIMEOUT_MS;
	for (;;)
	{
		struct pollfd p = {.fd = fd,.events = POLLIN};
		ssize_t		n;
		long		left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = deadline_ms - (now.tv_sec * 1000L + now.tv_nsec / 1000000);
		if (left <= 0 || poll(&p, 1, (int) left) <= 0)
			break;
		if (got == (size_t) max * sizeof(SbRange))
		{
			char		sink[4096];

			n = read(fd, sink, sizeof(sink));	/* more than we can pin: ignore */
		}
		else
			n = read(fd, (char *) runs + got, (size_t) max * sizeof(SbRange) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (got < (size_t) max * sizeof(SbRange))
			got += n;
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return (int) (got / sizeof(SbRange));
}

/*
 * Append to out (at *kept) the parts of runs[0..nruns) inside the worker's
 * own private writable mappings without huge pages, while *pages stays
 * within max_pages.  Runs and mappings are in address order.
 */
static void
sb_hot_clip(const SbRange *runs, int nruns, const SbRange *maps, int nmaps,
			size_t max_pages, SbRange *out, int *kept, size_t *pages)
{
	int			i;
	int			m;

	for (i = 0; i < nruns; i++)
	{
		SbRange		r = runs[i];

		if (r.start >= r.end || r.start % SB_PAGE != 0 || r.end % SB_PAGE != 0)
			continue;
		for (m = 0; m < nmaps && *kept < SB_HOT_MAX_RUNS; m++)
		{
			uint64_t	s = SB_MAX(r.start, maps[m].start);
			uint64_t	e = SB_MIN(r.end, maps[m].end);
			size_t		n;

			if (s >= e)
				continue;
			n = (e - s) / SB_PAGE;
			if (*pages >= max_pages)
				return;
			if (*pages + n > max_pages)
			{
				n = max_pages - *pages;
				e = s + n * SB_PAGE;
			}
			out[*kept].start = s;
			out[*kept].end = e;
			(*kept)++;
			*pages += n;
		}
	}
}

/*
 * Learn the pages a call writes and pin them (see the top of the file).
 * Call once, after the warm-up and before the first child.
 */
void
sb_hot_pages_pin(void)
{
	static SbRange runs[SB_HOT_MAX_RUNS];
	static SbRange pinned[SB_HOT_MAX_RUNS];
	static SbRange maps[SB_HOT_MAX_RANGES];
	static struct iovec iov[SB_HOT_MAX_RUNS];
	int			kept = 0;
	int			pinned_runs = 0;
	struct io_uring_params params;
	struct io_uring_rsrc_register table;
	struct rlimit memlock;
	size_t		max_pages = SIZE_MAX;
	size_t		pages;
	int			pipefd[2];
	int			nruns;
	int			nmaps;
	int			i;
	pid_t		pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return;
	sb_python_before_fork();
	pid = fork();
	if (pid == 0)
	{
		/* a short-lived child that must not outlive us or hold our listener */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
			_exit(1);
		close(SB_WORKER_CONTROL_FD);
		close(pipefd[0]);
		sb_hot_probe(pipefd[1]);
	}
	sb_python_after_fork_parent();
	close(pipefd[1]);
	if (pid < 0)
	{
		close(pipefd[0]);
		return;
	}
	nruns = sb_hot_collect(pipefd[0], pid, runs, SB_HOT_MAX_RUNS);
	close(pipefd[0]);
	nmaps = sb_hot_mappings(maps, SB_HOT_MAX_RANGES, true);
	if (nruns <= 0 || nmaps <= 0)
	{
		fprintf(stderr, "pysandbox-worker: could not learn which pages a call writes; "
				"children copy them on first write\n");
		return;
	}
	/* io_uring charges the pins to RLIMIT_MEMLOCK: stay within 90 % of it */
	if (getrlimit(RLIMIT_MEMLOCK, &memlock) == 0 && memlock.rlim_cur != RLIM_INFINITY)
		max_pages = memlock.rlim_cur / 10 * 9 / SB_PAGE;
	pages = 0;
	sb_hot_clip(runs, nruns, maps, nmaps, max_pages, pinned, &kept, &pages);
	if (kept == 0)
	{
		fprintf(stderr, "pysandbox-worker: no page a call writes can be pinned "
				"(RLIMIT_MEMLOCK or huge pages); children copy them on first write\n");
		return;
	}
	for (i = 0; i < kept; i++)
	{
		iov[i].iov_base = (void *) (uintptr_t) pinned[i].start;
		iov[i].iov_len = pinned[i].end - pinned[i].start;
	}

	memset(&params, 0, sizeof(params));
	sb_hot_ring_fd = (int) syscall(SYS_io_uring_setup, 1, &params);
	if (sb_hot_ring_fd < 0)
	{
		fprintf(stderr, "pysandbox-worker: could not pin the %zu pages a call writes "
				"(io_uring: %s); children copy them on first write\n", pages, strerror(errno));
		return;
	}
	memset(&table, 0, sizeof(table));
	table.nr = (uint32_t) kept;
	table.flags = IORING_RSRC_REGISTER_SPARSE;
	if (syscall(SYS_io_uring_register, sb_hot_ring_fd, IORING_REGISTER_BUFFERS2,
				&table, sizeof(table)) == 0)
	{
		/* one run at a time: a run the kernel refuses costs only itself */
		pages = 0;
		for (i = 0; i < kept; i++)
		{
			struct io_uring_rsrc_update2 up;

			memset(&up, 0, sizeof(up));
			up.offset = (uint32_t) i;
			up.data = (uint64_t) (uintptr_t) &iov[i];
			up.nr = 1;
			if (syscall(SYS_io_uring_register, sb_hot_ring_fd, IORING_REGISTER_BUFFERS_UPDATE,
						&up, sizeof(up)) == 1)
			{
				pinned_runs++;
				pages += iov[i].iov_len / SB_PAGE;
			}
			else if (errno == ENOMEM)
				break;			/* the memlock budget is spent */
		}
	}
	else if (syscall(SYS_io_uring_register, sb_hot_ring_fd, IORING_REGISTER_BUFFERS,
					 iov, kept) == 0)
		pinned_runs = kept;		/* kernels before 5.19: all or nothing */
	if (pinned_runs == 0)
	{
		fprintf(stderr, "pysandbox-worker: could not pin the pages a call writes "
				"(io_uring: %s); children copy them on first write\n", strerror(errno));
		close(sb_hot_ring_fd);
		sb_hot_ring_fd = -1;
	}
}
