/*
 * sb_io.c
 *		The child's channel to the backend: the builtin module sb_io.
 *
 * sb_io reads and writes frames on SB_CHILD_DATA_FD (and a held child's
 * calls through its mailbox), claims a spare's call, times a held child's
 * calls, and receives streamed columns in place (Store).  It trusts nothing
 * it reads: lengths are checked against SB_FRAME_MAX_PAYLOAD, and memory is
 * bounded by the child's RLIMIT_AS.  The interpreter that imports it is
 * sb_python.c's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/* Frames smaller than this are left to fault in page by page. */
#define SB_PREFAULT_MIN		(256 * 1024)
#define SB_HUGE_PAGE		(2 * 1024 * 1024)


/*
 * After the last frame (sent with end=exit code): close the channel and exit
 * at once.  The backend sees the end of the output right behind the result
 * instead of a wake-up later, and nothing runs after it: tearing down the
 * call's objects could run user code (a generator's finally, a __del__)
 * after the backend has taken the result.
 *
 * The exit itself unmaps this address space, ~1.5 ms of kernel work, and
 * the kernel often queues the backend it just woke on this very CPU (a
 * socket write is a "sync" wake-up): the backend, and then its client,
 * waited behind the teardown in one call of six.  Yielding once lets them
 * run first.  (SCHED_IDLE for the exit did that too, but under load it
 * starved the teardowns: -2 % throughput.)
 */
/*
 * A workspace's child serves call after call (sb_runtime._serve_workspace):
 * the last frame of a call does not end it (sb_io.keep).
 */
static bool sb_keep = false;

/* Is this a workspace's child, which a call's last frame does not end? */
bool
sb_io_kept(void)
{
	return sb_keep;
}

/*
 * A plain call's child that ends with its result stays until the backend
 * has taken it (sb_io.linger): it shuts its side of the socket, which ends
 * the backend's read, and waits for the backend to close its own, so that
 * the backend reads the child's CPU time and peak memory from /proc while
 * it is still there, without waiting for its exit (sb_call.c).
 */
static bool sb_linger = false;

static void __attribute__((noreturn))
sb_io_end(int code, bool result)
{
	if (sb_linger && result && code == SB_CHILD_EXIT_OK &&
		shutdown(SB_CHILD_DATA_FD, SHUT_WR) == 0)
	{
		char		c;

		while (read(SB_CHILD_DATA_FD, &c, 1) < 0 && errno == EINTR)
			;
	}
	(void) close(SB_CHILD_DATA_FD);
	(void) sched_yield();
	_exit(code);
}

/*
 * Map the whole pages inside [p, p + len) writable now, in one system call,
 * instead of one page fault per page as a read fills them: for a large
 * frame about to be received, on a virtual machine where each fault is
 * expensive.  Best effort: before Linux 5.14, or where the range is not
 * plain anonymous memory, the pages fault in as before.
 */
static void
sb_prefault(void *p, size_t len)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	uintptr_t	end = ((uintptr_t) p + len) & ~(page - 1);

	if (len < SB_PREFAULT_MIN || end <= start)
		return;
	(void) madvise((void *) start, end - start, MADV_POPULATE_WRITE);
}

/*
 * The mailbox (sb_protocol.h), mapped before containment: a held child's
 * calls come and go there without a system call while both sides poll.
 */
static SbMailbox *sb_mailbox = NULL;
static bool sb_mb_call = false; /* the running call came through it, and
								 * nothing of it went on the socket yet */
static uint32_t sb_mb_left = SB_MB_IDLE;	/* the state this process last set */

/* In a new child, before containment: map its mailbox (fd < 0: none). */
bool
sb_python_map_mailbox(int fd)
{
	void	   *p;

	if (fd < 0)
		return true;
	p = mmap(NULL, SB_MAILBOX_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	sb_mailbox = p;
	return true;
}

/*
 * Anything of a call about to go on the data socket: the call goes on
 * there (SOCKET), before the first byte, so that the backend polling the
 * mailbox turns to the socket.
 */
void
sb_python_mailbox_to_socket(void)
{
	if (!sb_mb_call)
		return;
	sb_mb_call = false;
	(void) __atomic_exchange_n(&sb_mailbox->state, SB_MB_SOCKET, __ATOMIC_SEQ_CST);
	sb_mb_left = SB_MB_SOCKET;
}

/* a spare's claim token is still to be taken (see sb_protocol.h) */
bool		sb_claim_pending = false;

/* the call's CPU time limit (ms), from the limits the worker sent */
uint32_t	sb_call_cpu_ms = 0;

/*
 * The first bytes of the request have arrived: claim the call before acting
 * on any of them, by adding 1 to the claim token (sb_protocol.h).  If the
 * worker took the reservation back first, the write would overflow the
 * counter and fails: this process is being killed, and nothing may run.
 * A claim also wakes the worker, which times this call from now on.
 *
 * A spare's CPU timer was armed when it was contained, ahead of its call:
 * what it ran since (the rest of its containment, the runtime's start)
 * counted on that timer but not in the call's usage, which the worker
 * measures from the call's dispatch.  On a loaded machine that was 100 ms
 * and more, and the timer then fired short of the limit: SIGPROF's exit
 * (SB_CHILD_EXIT_LIMIT) with too little CPU time used to name the limit,
 * "exited with code 74 without a result".  The timer starts over here,
 * after the worker's reading, so it never fires before the call has spent
 * its limit as the worker counts it.
 */
static void
sb_claim_call(void)
{
	uint64_t	one = 1;
	struct itimerval it;

	sb_claim_pending = false;
	if (write(SB_CHILD_CLAIM_FD, &one, sizeof(one)) != (ssize_t) sizeof(one))
		_exit(SB_CHILD_EXIT_SETUP);
	(void) close(SB_CHILD_CLAIM_FD);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t) (sb_call_cpu_ms / 1000);
	it.it_value.tv_usec = (suseconds_t) ((sb_call_cpu_ms % 1000) * 1000);
	if (sb_call_cpu_ms != 0 && setitimer(ITIMER_PROF, &it, NULL) < 0)
		_exit(SB_CHILD_EXIT_SETUP);
}

/*
 * Bytes the data socket delivered ahead of the frame being read: a small
 * request (REQUEST and END, in one sendmsg() from the backend) comes in
 * with one read() instead of three, each a system call through the filter
 * in a child whose caches are cold.  Large payloads (table columns) are
 * read straight into their buffers.
 */
#define SB_READ_AHEAD 65536
static unsigned char sb_ahead[SB_READ_AHEAD];
static size_t sb_ahead_pos = 0;
static size_t sb_ahead_len = 0;

/* len bytes of the stream into buf; -1 with errno set (0: the end) */
static int
sb_read_stream(void *buf, size_t len)
{
	size_t		have = sb_ahead_len - sb_ahead_pos;
	size_t		take = have < len ? have : len;
	ssize_t		got;

	memcpy(buf, sb_ahead + sb_ahead_pos, take);
	sb_ahead_pos += take;
	buf = (char *) buf + take;
	len -= take;
	if (len == 0)
		return 0;
	if (len >= SB_READ_AHEAD)
		return sb_read_all(SB_CHILD_DATA_FD, buf, len);

	/* the buffer is empty: refill it with what is there, at least len */
	got = sb_read_some(SB_CHILD_DATA_FD, sb_ahead, len, sizeof(sb_ahead));
	if (got < 0)
	{
		sb_ahead_pos = sb_ahead_len = 0;
		return -1;
	}
	sb_ahead_len = (size_t) got;
	memcpy(buf, sb_ahead, len);
	sb_ahead_pos = len;
	return 0;
}

/*
 * Bytes of the current frame's payload not read yet: a reader that failed
 * half-way (MemoryError while a column was allocated) skips them, and the
 * frames after, with sb_io.skip() (sql()'s answer, sb_runtime._drain_answer).
 */
static size_t sb_payload_left = 0;
static uint32_t sb_last_type = 0;	/* the type of the last header read */

static void
sb_payload_read(size_t n)
{
	sb_payload_left -= n < sb_payload_left ? n : sb_payload_left;
}

/*
 * The next frame's header: type and payload length (-1 with a Python
 * exception set).  The first bytes of a call claim it (sb_claim_call).
 */
static int
sb_recv_header(uint32_t *type, uint32_t *len)
{
	unsigned char hdr[SB_FRAME_HEADER_SIZE];

	if (sb_read_stream(hdr, sizeof(hdr)) < 0)
	{
		if (errno == 0)
			PyErr_SetString(PyExc_EOFError, "the backend closed the data channel");
		else
			PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	if (sb_claim_pending)
		sb_claim_call();
	if (sb_mb_left == SB_MB_IDLE_SLEEP || sb_mb_left == SB_MB_DONE_SLEEP ||
		sb_mb_left == SB_MB_CALL_SOCKET)
	{
		/* a call on the socket: answered there; the next may use the mailbox */
		__atomic_store_n(&sb_mailbox->state, SB_MB_SOCKET, __ATOMIC_SEQ_CST);
		sb_mb_left = SB_MB_SOCKET;
	}
	sb_frame_header_decode(hdr, type, len);
	if (*len > SB_FRAME_MAX_PAYLOAD)
	{
		PyErr_SetString(PyExc_ValueError, "oversized frame on the data channel");
		return -1;
	}
	sb_payload_left = *len;
	sb_last_type = *type;
	return 0;
}

/*
 * n bytes of the stream as a new bytearray (writable for numpy), or NULL.
 * Made empty and then resized: CPython 3.11's PyByteArray_FromStringAndSize
 * frees the object when the allocation fails before it set ob_exports, and
 * the dealloc, reading it, may print "SystemError: deallocated bytearray
 * object has exported buffers" beside the MemoryError; the resize's failure
 * leaves a sound empty object.
 */
static PyObject *
sb_recv_bytearray(size_t n)
{
	PyObject   *payload = PyByteArray_FromStringAndSize(NULL, 0);

	if (payload == NULL)
		return NULL;
	if (n > 0 && PyByteArray_Resize(payload, (Py_ssize_t) n) < 0)
	{
		Py_DECREF(payload);
		return NULL;
	}
	sb_prefault(PyByteArray_AS_STRING(payload), n);
	if (n > 0 && sb_read_stream(PyByteArray_AS_STRING(payload), n) < 0)
	{
		Py_DECREF(payload);
		PyErr_SetString(PyExc_EOFError, "truncated frame on the data channel");
		return NULL;
	}
	sb_payload_read(n);
	return payload;
}

/* sb_io.recv() -> (type, payload bytearray); raises EOFError or OSError. */
static PyObject *
sb_io_recv(PyObject *self, PyObject *args)
{
	uint32_t	type,
				len;
	PyObject   *payload;

	(void) self;
	(void) args;
	if (sb_recv_header(&type, &len) < 0)
		return NULL;
	payload = sb_recv_bytearray(len);
	if (payload == NULL)
		return NULL;
	return Py_BuildValue("(IN)", type, payload);
}

/*
 * sb_io.recv_head() -> (type, length): only the next frame's header; its
 * payload is read with recv_bytes() and recv_append(), in that order.
 */
static PyObject *
sb_io_recv_head(PyObject *self, PyObject *args)
{
	uint32_t	type,
				len;

	(void) self;
	(void) args;
	if (sb_recv_header(&type, &len) < 0)
		return NULL;
	return Py_BuildValue("(II)", type, len);
}

/* sb_io.recv_bytes(n) -> the next n bytes of a frame's payload */
static PyObject *
sb_io_recv_bytes(PyObject *self, PyObject *arg)
{
	Py_ssize_t	n = PyLong_AsSsize_t(arg);

	(void) self;
	if (n < 0 || n > (Py_ssize_t) SB_FRAME_MAX_PAYLOAD)
	{
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "bad length");
		return NULL;
	}
	return sb_recv_bytearray((size_t) n);
}

/*
 * A fixed-width column of a streamed table input, received in place
 * (sb_runtime._read_row_groups): each row group's values are read from the
 * socket straight to the end of one mapping, which grows by mremap() (its
 * pages move, they are not copied or faulted again).  The column is then a
 * numpy array over it: no row group is held apart and nothing is joined.
 * Python code cannot create one (no tp_new) and it has no methods; once a
 * buffer of it was taken it is sealed: shrunk to its last page, never
 * grown or moved again.
 */
typedef struct SbStore
{
	PyObject_HEAD
	char	   *data;
	size_t		len;
	size_t		cap;
	Py_ssize_t	exports;
	bool		sealed;			/* a buffer of it was taken: it never grows
								 * again (numpy keeps a pointer, not an export) */
} SbStore;

static void
sb_store_dealloc(PyObject *o)
{
	SbStore    *st = (SbStore *) o;

	if (st->data != NULL)
		munmap(st->data, st->cap);
	Py_TYPE(o)->tp_free(o);
}

static int
sb_store_getbuffer(PyObject *o, Py_buffer *view, int flags)
{
	SbStore    *st = (SbStore *) o;

	/*
	 * The first view seals it: the slack beyond its last page goes back
	 * (the memory limit counts address space), and it never moves again
	 */
	if (!st->sealed && st->data != NULL)
	{
		size_t		page = (size_t) sysconf(_SC_PAGESIZE);
		size_t		keep = (st->len + page - 1) & ~(page - 1);

		if (keep == 0)
		{
			munmap(st->data, st->cap);
			st->data = NULL;
			st->cap = 0;
		}
		else if (keep < st->cap && mremap(st->data, st->cap, keep, 0) != MAP_FAILED)
			st->cap = keep;
	}
	st->sealed = true;

	if (PyBuffer_FillInfo(view, o, st->len > 0 ? st->data : (void *) "", (Py_ssize_t) st->len,
						  0, flags) < 0)
		return -1;
	st->exports++;
	return 0;
}

static void
sb_store_releasebuffer(PyObject *o, Py_buffer *view)
{
	(void) view;
	((SbStore *) o)->exports--;
}

static PyBufferProcs sb_store_as_buffer = {sb_store_getbuffer, sb_store_releasebuffer};

static PyTypeObject SbStoreType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sb_io.Store",
	.tp_basicsize = sizeof(SbStore),
	.tp_dealloc = sb_store_dealloc,
	.tp_as_buffer = &sb_store_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "a streamed column's values",
};

/* A fresh 2 MB-aligned mapping of len bytes (a multiple of 2 MB), or NULL. */
static char *
sb_store_map_huge(size_t len)
{
	char	   *p = mmap(NULL, len + SB_HUGE_PAGE, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char	   *aligned;

	if (p == MAP_FAILED)
		return NULL;
	aligned = (char *) (((uintptr_t) p + SB_HUGE_PAGE - 1) & ~(uintptr_t) (SB_HUGE_PAGE - 1));
	if (aligned > p)
		munmap(p, aligned - p);
	munmap(aligned + len, (p + len + SB_HUGE_PAGE) - (aligned + len));
	/*
	 * huge pages, as malloc's arenas here (glibc.malloc.hugetlb): a fault
	 * per 2 MB, for the inputs (none once the code runs: huge_pages_off)
	 */
	(void) madvise(aligned, len, MADV_HUGEPAGE);
	return aligned;
}

/*
 * Room for want bytes.  A small column takes pages (the memory limit counts
 * address space, and an input may have hundreds of columns); past 2 MB it
 * moves once to a 2 MB-aligned mapping on huge pages, which then grows by
 * mremap() in whole huge pages, at most a quarter unused.  -1: no memory.
 */
static int
sb_store_grow(SbStore *st, size_t want)
{
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		cap = st->cap + st->cap / 4;
	char	   *p;

	if (cap < want)
		cap = want;
	if (cap < SB_HUGE_PAGE)
	{
		cap = (cap + page - 1) & ~(page - 1);
		p = st->data == NULL ?
			mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) :
			mremap(st->data, st->cap, cap, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return -1;
	}
	else
	{
		cap = (cap + SB_HUGE_PAGE - 1) & ~(size_t) (SB_HUGE_PAGE - 1);
		if (st->cap < SB_HUGE_PAGE)
		{
			/* the first huge mapping: what is there (under 2 MB) is copied */
			p = sb_store_map_huge(cap);
			if (p == NULL)
				return -1;
			if (st->data != NULL)
			{
				sb_prefault(p, st->len);
				memcpy(p, st->data, st->len);
				munmap(st->data, st->cap);
			}
		}
		else
		{
			p = mremap(st->data, st->cap, cap, MREMAP_MAYMOVE);
			if (p == MAP_FAILED)
				return -1;
			(void) madvise(p, cap, MADV_HUGEPAGE);
		}
	}
	st->data = p;
	st->cap = cap;
	return 0;
}

/* sb_io.store() -> an empty Store */
static PyObject *
sb_io_store(PyObject *self, PyObject *args)
{
	SbStore    *st;

	(void) self;
	(void) args;
	st = PyObject_New(SbStore, &SbStoreType);
	if (st == NULL)
		return NULL;
	st->data = NULL;
	st->len = st->cap = 0;
	st->exports = 0;
	st->sealed = false;
	return (PyObject *) st;
}

/*
 * sb_io.recv_append(store, n): the next n bytes of a frame's payload onto
 * the end of store.  MemoryError past the memory limit.
 */
static PyObject *
sb_io_recv_append(PyObject *self, PyObject *args)
{
	PyObject   *o;
	Py_ssize_t	n;
	SbStore    *st;

	(void) self;
	if (!PyArg_ParseTuple(args, "O!n", &SbStoreType, &o, &n))
		return NULL;
	st = (SbStore *) o;
	if (n < 0 || n > (Py_ssize_t) SB_FRAME_MAX_PAYLOAD || st->sealed)
	{
		PyErr_SetString(PyExc_ValueError, st->sealed ? "store in use" : "bad length");
		return NULL;
	}
	if (st->len + (size_t) n > st->cap && sb_store_grow(st, st->len + (size_t) n) < 0)
		return PyErr_NoMemory();
	sb_prefault(st->data + st->len, (size_t) n);
	if (n > 0 && sb_read_stream(st->data + st->len, (size_t) n) < 0)
	{
		PyErr_SetString(PyExc_EOFError, "truncated frame on the data channel");
		return NULL;
	}
	st->len += (size_t) n;
	sb_payload_read((size_t) n);
	Py_RETURN_NONE;
}

/*
 * sb_io.last_type(): the type of the last frame header read (a reader that
 * failed after the header of an answer's END, MemoryError making the
 * tuple, knows the END is read)
 */
static PyObject *
sb_io_last_type(PyObject *self, PyObject *args)
{
	(void) self;
	(void) args;
	return PyLong_FromUnsignedLong(sb_last_type);
}

/* sb_io.skip(): the rest of the current frame's payload, read and dropped */
static PyObject *
sb_io_skip(PyObject *self, PyObject *args)
{
	static unsigned char sink[65536];

	(void) self;
	(void) args;
	while (sb_payload_left > 0)
	{
		size_t		n = sb_payload_left < sizeof(sink) ? sb_payload_left : sizeof(sink);

		if (sb_read_stream(sink, n) < 0)
		{
			PyErr_SetString(PyExc_EOFError, "truncated frame on the data channel");
			return NULL;
		}
		sb_payload_left -= n;
	}
	Py_RETURN_NONE;
}

/*
 * sb_io.prefault(buffer): fault in a fresh writable buffer's pages at once
 * (a streamed input's joined columns, sb_codec.concat_column): one system
 * call instead of a page fault per 4 kB, the dearest part of a copy here.
 */
static PyObject *
sb_io_prefault(PyObject *self, PyObject *arg)
{
	Py_buffer	buf;

	(void) self;
	if (PyObject_GetBuffer(arg, &buf, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
		return NULL;
	sb_prefault(buf.buf, (size_t) buf.len);
	PyBuffer_Release(&buf);
	Py_RETURN_NONE;
}

/*
 * sb_io.send(type, data, end=-1): data is bytes or str (sent as UTF-8); an
 * end >= 0 makes this the last frame: the child exits with that code once it
 * is out (sb_io_end).
 */
static PyObject *
sb_io_send(PyObject *self, PyObject *args)
{
	unsigned int type;
	Py_buffer	buf;
	int			rc;
	int			end = -1;

	(void) self;
	if (!PyArg_ParseTuple(args, "Is*|i", &type, &buf, &end))
		return NULL;
	if ((size_t) buf.len > SB_FRAME_MAX_PAYLOAD)
	{
		PyBuffer_Release(&buf);
		PyErr_SetString(PyExc_ValueError, "frame too large");
		return NULL;
	}
	sb_python_mailbox_to_socket();
	sb_io_sending = 1;
	rc = sb_send_frame(SB_CHILD_DATA_FD, type, buf.buf, (uint32_t) buf.len);
	sb_io_sending = 0;
	PyBuffer_Release(&buf);
	if (rc < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	if (end >= 0 && !sb_keep)
		sb_io_end(end, type == SB_DATA_RESULT || type == SB_DATA_ROWS || type == SB_DATA_COLUMN);
	Py_RETURN_NONE;
}

/*
 * sb_io.sendv(type, parts, end=-1): one frame whose payload is the concatenation of
 * parts (bytes-like objects, e.g. numpy arrays), written without joining
 * them: on this kind of machine every fresh page a copy touches is costly.
 */
static PyObject *
sb_io_sendv(PyObject *self, PyObject *args)
{
	unsigned int type;
	PyObject   *seq;
	PyObject   *fast;
	Py_buffer  *bufs;
	Py_ssize_t	n,
				i,
				got = 0;
	size_t		total = 0;
	unsigned char hdr[SB_FRAME_HEADER_SIZE];
	int			rc = 0;
	int			end = -1;

	(void) self;
	if (!PyArg_ParseTuple(args, "IO|i", &type, &seq, &end))
		return NULL;
	fast = PySequence_Fast(seq, "parts must be a sequence");
	if (fast == NULL)
		return NULL;
	n = PySequence_Fast_GET_SIZE(fast);
	bufs = PyMem_Calloc(n > 0 ? n : 1, sizeof(Py_buffer));
	if (bufs == NULL)
	{
		Py_DECREF(fast);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n; i++, got++)
	{
		if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, i), &bufs[i], PyBUF_C_CONTIGUOUS) < 0)
		{
			rc = -2;
			break;
		}
		total += (size_t) bufs[i].len;
	}
	if (rc == 0 && total > SB_FRAME_MAX_PAYLOAD)
	{
		PyErr_SetString(PyExc_ValueError, "frame too large");
		rc = -2;
	}
	if (rc == 0)
	{
		sb_python_mailbox_to_socket();
		sb_frame_header_encode(hdr, type, (uint32_t) total);
		sb_io_sending = 1;
		rc = sb_write_all(SB_CHILD_DATA_FD, hdr, sizeof(hdr));
		for (i = 0; rc == 0 && i < n; i++)
			if (bufs[i].len > 0)
				rc = sb_write_all(SB_CHILD_DATA_FD, bufs[i].buf, (size_t) bufs[i].len);
		sb_io_sending = 0;
		if (rc < 0)
			PyErr_SetFromErrno(PyExc_OSError);
	}
	for (i = 0; i < got; i++)
		PyBuffer_Release(&bufs[i]);
	PyMem_Free(bufs);
	Py_DECREF(fast);
	if (rc != 0)
		return NULL;
	if (end >= 0 && !sb_keep)
		sb_io_end(end, type == SB_DATA_COLUMN);
	Py_RETURN_NONE;
}

/*
 * The CPU timer of a held child's calls is armed for sb_call_cpu_ms plus
 * SB_REARM_SLACK_MS, and re-armed once SB_REARM_SLACK_MS have been used
 * since: every call then has at least its whole limit before SIGPROF,
 * with one system call per call instead of two.  (The worker ends a call
 * SB_CPU_GRACE_US past its limit whatever this timer says.)
 */
#define SB_REARM_SLACK_MS	100
/*
 * The process CPU clock is a system call (no vDSO): between calls it is
 * read at most every SB_CPU_READ_EVERY_MS of wall-clock time, in which a
 * single thread uses no more CPU time than that; the timer is re-armed
 * that much early.
 */
#define SB_CPU_READ_EVERY_MS	5
static uint64_t sb_cpu_read_at_ms = 0;	/* CLOCK_MONOTONIC when last read */
static bool sb_rearmed = false;
static uint64_t sb_armed_at_ms;		/* process CPU time when last re-armed */
static uint64_t sb_rlimit_cpu_ms = 0;	/* RLIMIT_CPU's soft limit; 0: none */

/* process CPU time used so far, in ms; UINT64_MAX if it cannot be read */
static uint64_t
sb_cpu_used_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return UINT64_MAX;
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/*
 * sb_io.next_call() -> bool, in a held child about to wait for its next
 * call: keep the CPU timer ahead of that call (above), and say whether
 * RLIMIT_CPU, which counts the whole process, leaves room for a whole call
 * more.  If not, the child ends with its result instead, and the
 * statement's next call gets a fresh child.  The timer is the child's own
 * courtesy: the worker times every call itself.
 */
static PyObject *
sb_io_next_call(PyObject *self, PyObject *args)
{
	struct timespec ts;
	uint64_t	wall;
	uint64_t	used;

	(void) self;
	(void) args;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	wall = (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
	if (sb_rearmed && wall - sb_cpu_read_at_ms < SB_CPU_READ_EVERY_MS)
		Py_RETURN_TRUE;
	sb_cpu_read_at_ms = wall;
	used = sb_cpu_used_ms();
	if (used == UINT64_MAX)
		Py_RETURN_FALSE;
	if (!sb_rearmed)
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_CPU, &rl) < 0)
			Py_RETURN_FALSE;
		sb_rlimit_cpu_ms = rl.rlim_cur == RLIM_INFINITY ? 0 : (uint64_t) rl.rlim_cur * 1000;
	}
	/* the timer fires before RLIMIT_CPU: keep that so for a whole call */
	if (sb_rlimit_cpu_ms != 0 &&
		used + sb_call_cpu_ms + 2 * SB_REARM_SLACK_MS > sb_rlimit_cpu_ms)
		Py_RETURN_FALSE;
	if (!sb_rearmed || used - sb_armed_at_ms >= SB_REARM_SLACK_MS - 2 * SB_CPU_READ_EVERY_MS)
	{
		struct itimerval it;
		uint64_t	ms = (uint64_t) sb_call_cpu_ms + SB_REARM_SLACK_MS;

		memset(&it, 0, sizeof(it));
		it.it_value.tv_sec = (time_t) (ms / 1000);
		it.it_value.tv_usec = (suseconds_t) ((ms % 1000) * 1000);
		if (setitimer(ITIMER_PROF, &it, NULL) < 0)
			Py_RETURN_FALSE;
		sb_rearmed = true;
		sb_armed_at_ms = used;
	}
	Py_RETURN_TRUE;
}

/*
 * sb_io.wait_call(spin_us): a held child about to wait for its next call
 * polls for it for up to spin_us first (yielding the CPU each round)
 * instead of sleeping at once: a statement's next row usually comes within
 * tens of microseconds, and waking a sleeping process costs about as much
 * on a virtual machine.  What arrives goes to the read-ahead buffer;
 * sb_io.recv() reads it from there (or, after the spin, blocks as ever).
 * The spin costs at most spin_us of CPU time between two calls, well
 * within SB_IDLE_CPU_MS.
 */
#define SB_SPIN_NO_YIELD_US	30

/* A call posted in the mailbox: its bytes to the read-ahead buffer. */
static PyObject *
sb_mailbox_take_call(void)
{
	uint32_t	len = __atomic_load_n(&sb_mailbox->req_len, __ATOMIC_RELAXED);

	if (len > SB_MAILBOX_REQ_MAX || len > sizeof(sb_ahead))
	{
		PyErr_SetString(PyExc_ValueError, "oversized call in the mailbox");
		return NULL;
	}
	memcpy(sb_ahead, sb_mailbox->req, len);
	sb_ahead_pos = 0;
	sb_ahead_len = len;
	sb_mb_call = true;
	Py_RETURN_NONE;
}

/*
 * The mailbox's wait_call: poll its state; after spin_us go to sleep on
 * the socket (IDLE_SLEEP, unless a call came meanwhile): the backend then
 * sends the call there.
 */
static PyObject *
sb_mailbox_wait_call(unsigned int spin_us)
{
	struct timespec start,
				now;
	uint64_t	waited;
	int			spins = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;)
	{
		uint32_t	state = __atomic_load_n(&sb_mailbox->state, __ATOMIC_ACQUIRE);

		/* (the backend may have gone to sleep waiting for its answer) */
		if (state == SB_MB_CALL || state == SB_MB_CALL_SLEEP)
			return sb_mailbox_take_call();
		if (state == SB_MB_CALL_SOCKET)
		{
			/* a call too large for the mailbox: sb_io.recv() reads it */
			sb_mb_left = SB_MB_CALL_SOCKET;
			Py_RETURN_NONE;
		}
		if ((++spins & 15) != 0)
		{
			sb_spin_pause();
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (uint64_t) (now.tv_sec - start.tv_sec) * 1000000 +
			(uint64_t) (now.tv_nsec - start.tv_nsec) / 1000;
		if (waited >= spin_us)
		{
			/* a result not taken yet stays readable (DONE_SLEEP) */
			uint32_t	sleep = state == SB_MB_DONE ? SB_MB_DONE_SLEEP : SB_MB_IDLE_SLEEP;

			if (__atomic_compare_exchange_n(&sb_mailbox->state, &state, sleep, false,
											__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			{
				sb_mb_left = sleep;
				Py_RETURN_NONE; /* sb_io.recv() blocks on the socket */
			}
			continue;			/* it changed meanwhile: see to what */
		}
		if (waited >= SB_SPIN_NO_YIELD_US)
			(void) sched_yield();
	}
}

static PyObject *
sb_io_wait_call(PyObject *self, PyObject *args)
{
	unsigned int spin_us;
	struct timespec start,
				now;
	uint64_t	waited;

	(void) self;
	if (!PyArg_ParseTuple(args, "I", &spin_us))
		return NULL;
	if (sb_ahead_pos < sb_ahead_len || spin_us == 0)
		Py_RETURN_NONE;
	if (sb_mailbox != NULL)
		return sb_mailbox_wait_call(spin_us);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;)
	{
		ssize_t		n = recv(SB_CHILD_DATA_FD, sb_ahead, sizeof(sb_ahead), MSG_DONTWAIT);

		if (n > 0)
		{
			sb_ahead_pos = 0;
			sb_ahead_len = (size_t) n;
			break;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			break;				/* the end, or an error: recv() sees it */
		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (uint64_t) (now.tv_sec - start.tv_sec) * 1000000 +
			(uint64_t) (now.tv_nsec - start.tv_nsec) / 1000;
		if (waited >= spin_us)
			break;
		/* the next row usually comes within microseconds: poll at once */
		if (waited >= SB_SPIN_NO_YIELD_US)
			(void) sched_yield();
	}
	Py_RETURN_NONE;
}

/*
 * sb_io.linger(on): whether the call's last frame, if it is its result
 * (RESULT, ROWS or COLUMN sent by send or sendv), waits for the backend.
 */
static PyObject *
sb_io_linger(PyObject *self, PyObject *args)
{
	int			on;

	(void) self;
	if (!PyArg_ParseTuple(args, "p", &on))
		return NULL;
	sb_linger = on && !sb_keep;
	Py_RETURN_NONE;
}

/*
 * sb_io.write(data, end=-1): bytes that are whole frames already, in one
 * system call (a held child's one-row result: ROWS and its COLUMN).
 */
static PyObject *
sb_io_write(PyObject *self, PyObject *args)
{
	Py_buffer	buf;
	int			rc;
	int			end = -1;

	(void) self;
	if (!PyArg_ParseTuple(args, "y*|i", &buf, &end))
		return NULL;
	sb_python_mailbox_to_socket();
	sb_io_sending = 1;
	rc = sb_write_all(SB_CHILD_DATA_FD, buf.buf, (size_t) buf.len);
	sb_io_sending = 0;
	PyBuffer_Release(&buf);
	if (rc < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	if (end >= 0 && !sb_keep)
		sb_io_end(end, true);	/* whole frames: a result */
	Py_RETURN_NONE;
}

/*
 * sb_io.reply(data, end=-1): a call's whole result, whole frames: in the
 * mailbox if the call came through it and it fits, else on the socket.
 * The exchange to DONE says whether the backend still polls; if it went
 * to sleep on the socket meanwhile, the same bytes go there.
 */
static PyObject *
sb_io_reply(PyObject *self, PyObject *args)
{
	Py_buffer	buf;
	int			rc = 0;
	int			end = -1;
	bool		to_socket = true;

	(void) self;
	if (!PyArg_ParseTuple(args, "y*|i", &buf, &end))
		return NULL;
	if (sb_mb_call && (size_t) buf.len <= SB_MAILBOX_RESP_MAX)
	{
		memcpy(sb_mailbox->resp, buf.buf, (size_t) buf.len);
		sb_mailbox->resp_len = (uint32_t) buf.len;
		sb_mb_call = false;
		sb_mb_left = SB_MB_DONE;
		to_socket = __atomic_exchange_n(&sb_mailbox->state, SB_MB_DONE, __ATOMIC_SEQ_CST) !=
			SB_MB_CALL;
	}
	else
		sb_python_mailbox_to_socket();
	if (to_socket)
	{
		sb_io_sending = 1;
		rc = sb_write_all(SB_CHILD_DATA_FD, buf.buf, (size_t) buf.len);
		sb_io_sending = 0;
	}
	PyBuffer_Release(&buf);
	if (rc < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	if (end >= 0 && !sb_keep)
		sb_io_end(end, true);	/* whole frames: a result */
	Py_RETURN_NONE;
}

/*
 * sb_io.mailbox() -> int: where this child's mailbox is mapped (0: none).
 * The runtime does not need it; the floor tests do, to play a child that
 * breaks the mailbox's protocol (the mapping is this process's own memory:
 * knowing where it is gives nothing).
 */
static PyObject *
sb_io_mailbox(PyObject *self, PyObject *args)
{
	(void) self;
	(void) args;
	return PyLong_FromVoidPtr(sb_mailbox);
}

/* sb_io.keep(flag): whether a call's last frame leaves the child running. */
static PyObject *
sb_io_keep(PyObject *self, PyObject *args)
{
	int			flag;

	(void) self;
	if (!PyArg_ParseTuple(args, "p", &flag))
		return NULL;
	sb_keep = flag != 0;
	Py_RETURN_NONE;
}

/*
 * sb_io.huge_pages_off(): no transparent huge pages from now on, called
 * once the request and its inputs are read, before any of the code runs.
 * A huge page is one 2 MB allocation, and unmapping all but 4 kB of it
 * frees nothing until the kernel splits it under memory pressure, so
 * RLIMIT_AS saw 4 kB where 2 MB were held (review 91: 2 GB at memory_mb
 * 64).  The inputs' columns stay on the huge pages they were read into:
 * code that unmaps them gains at most their size (they count against the
 * limit).  The seccomp filter allows this prctl and no other: with
 * these arguments exactly (Linux 6.18's PR_THP_DISABLE_EXCEPT_ADVISED in
 * arg2 would turn huge pages back on where advised: review 93).
 */
static PyObject *
sb_io_huge_pages_off(PyObject *self, PyObject *unused)
{
	(void) self;
	(void) unused;
	/* every argument a full word: the filter compares all five */
	if (prctl(PR_SET_THP_DISABLE, 1UL, 0UL, 0UL, 0UL) < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	Py_RETURN_NONE;
}

static PyMethodDef sb_io_methods[] = {
	{"huge_pages_off", sb_io_huge_pages_off, METH_NOARGS, "No transparent huge pages from now on."},
	{"keep", sb_io_keep, METH_VARARGS, "Keep the child after a call's last frame (a workspace)."},
	{"mailbox", sb_io_mailbox, METH_NOARGS, "Where this child's mailbox is mapped."},
	{"linger", sb_io_linger, METH_VARARGS, "Let the last frame wait for the backend to take it."},
	{"next_call", sb_io_next_call, METH_NOARGS, "Keep the CPU timer ahead of a held child's next call."},
	{"write", sb_io_write, METH_VARARGS, "Send bytes that are whole frames."},
	{"reply", sb_io_reply, METH_VARARGS, "Send a call's whole result (whole frames)."},
	{"wait_call", sb_io_wait_call, METH_VARARGS, "Poll briefly for a held child's next call."},
	{"recv", sb_io_recv, METH_NOARGS, "Read one frame from the backend."},
	{"prefault", sb_io_prefault, METH_O, "Fault in a writable buffer's pages at once."},
	{"untrack_leaves", sb_io_untrack_leaves, METH_O,
	 "Untrack the lists and dicts of decoded values that can be in no cycle."},
	{"recv_head", sb_io_recv_head, METH_NOARGS, "Read the next frame's header."},
	{"recv_bytes", sb_io_recv_bytes, METH_O, "Read n bytes of a frame's payload."},
	{"skip", sb_io_skip, METH_NOARGS, "Drop the rest of the current frame's payload."},
	{"last_type", sb_io_last_type, METH_NOARGS, "The type of the last frame header read."},
	{"store", sb_io_store, METH_NOARGS, "A new empty Store."},
	{"recv_append", sb_io_recv_append, METH_VARARGS, "Read n bytes of a payload onto a Store."},
	{"send", sb_io_send, METH_VARARGS, "Send one frame to the backend."},
	{"sendv", sb_io_sendv, METH_VARARGS, "Send one frame made of several buffers."},
	{"finalizers_off", sb_io_finalizers_off, METH_O,
	 "Let objects of these types die without their finalizer in a call."},
	{"finalizers_on", sb_io_finalizers_on, METH_NOARGS, "Their finalizers again."},
	{"code_off", sb_io_code_off, METH_O,
	 "Refuse frames of code compiled from these file names (between calls)."},
	{"death_guard", sb_io_death_guard, METH_VARARGS,
	"Nothing runs as an object dies but what is known safe (None: as it is)."},
	{"death_callbacks_take", sb_io_death_callbacks_take, METH_NOARGS,
	"The weakref callbacks queued as objects died, emptied."},
	{"code_on", sb_io_code_on, METH_NOARGS,
	 "Stop refusing them; the name of the first function refused, or None."},
	{"watch_classes", sb_io_watch_classes, METH_O,
	 "Record these classes' version tags (in the worker)."},
	{"changed_class", sb_io_changed_class, METH_NOARGS,
	 "The first watched class changed since, or None."},
	{"rewatch_class", sb_io_rewatch_class, METH_O,
	 "Record again the tags of a class the runtime changed, and of its subclasses."},
	{"guard_object_stores", sb_io_guard_object_stores, METH_O,
	 "Store into arrays of objects before dropping the old object."},
	{"guard_object_buffers", sb_io_guard_object_buffers, METH_O,
	 "Refuse the memory of arrays of objects to readers of bytes."},
	{"guard_object_loops", sb_io_guard_object_loops, METH_O,
	 "Hold a reference to each object numpy's object loops compare."},
	{"guard_set_counts", sb_io_guard_set_counts, METH_NOARGS,
	 "Empty and free sets by the elements their table holds, not by their count."},
	{"guard_numpy_dtypes", sb_io_guard_numpy_dtypes, METH_VARARGS,
	 "Refuse numpy data types whose size overflows a C int."},
	{"guard_addresses", sb_io_guard_addresses, METH_NOARGS,
	 "Mask the address every repr that prints one prints."},
	{"mask_address", sb_io_mask_address, METH_O,
	 "An address (or hash) through the worker's keyed permutation."},
	{"positions_outside", sb_io_positions_outside, METH_VARARGS,
	 "Whether an array of integers holds a value outside [low, high)."},
	{NULL, NULL, 0, NULL}
};

static struct PyModuleDef sb_io_module = {
	PyModuleDef_HEAD_INIT, "sb_io", "pysandbox frame I/O", -1, sb_io_methods,
	NULL, NULL, NULL, NULL
};

/* this worker's random instance id (SbReady), the same in all its children */
static uint64_t sb_instance;

uint64_t
sb_python_instance(void)
{
	return sb_instance;
}

PyObject *
sb_io_init(void)
{
	PyObject   *m;
	char		instance[17];

	if (PyType_Ready(&SbStoreType) < 0)
		return NULL;
	m = PyModule_Create(&sb_io_module);
	if (m == NULL)
		return NULL;
	if (sb_getrandom_all(&sb_instance, sizeof(sb_instance)) < 0)
		sb_instance = ((uint64_t) getpid() << 32) ^ (uint64_t) time(NULL);
	snprintf(instance, sizeof(instance), "%016llx", (unsigned long long) sb_instance);
	PyModule_AddStringConstant(m, "INSTANCE", instance);
	PyModule_AddIntConstant(m, "REQUEST", SB_DATA_REQUEST);
	PyModule_AddIntConstant(m, "TABLE", SB_DATA_TABLE);
	PyModule_AddIntConstant(m, "COLUMN", SB_DATA_COLUMN);
	PyModule_AddIntConstant(m, "END", SB_DATA_END);
	PyModule_AddIntConstant(m, "CHUNK", SB_DATA_CHUNK);
	PyModule_AddIntConstant(m, "CHUNK_LAST", SB_CHUNK_LAST);
	PyModule_AddIntConstant(m, "STDOUT", SB_DATA_STDOUT);
	PyModule_AddIntConstant(m, "STDERR", SB_DATA_STDERR);
	PyModule_AddIntConstant(m, "RESULT", SB_DATA_RESULT);
	PyModule_AddIntConstant(m, "ERROR", SB_DATA_ERROR);
	PyModule_AddIntConstant(m, "ROWS", SB_DATA_ROWS);
	PyModule_AddIntConstant(m, "SQL", SB_DATA_SQL);
	PyModule_AddIntConstant(m, "SQL_ERROR", SB_DATA_SQL_ERROR);
	PyModule_AddIntConstant(m, "CALL", SB_DATA_CALL);
	PyModule_AddIntConstant(m, "LAST", SB_DATA_LAST);
	PyModule_AddIntConstant(m, "COL_INT64", SB_COL_INT64);
	PyModule_AddIntConstant(m, "COL_FLOAT64", SB_COL_FLOAT64);
	PyModule_AddIntConstant(m, "COL_BOOL", SB_COL_BOOL);
	PyModule_AddIntConstant(m, "COL_TEXT", SB_COL_TEXT);
	PyModule_AddIntConstant(m, "COL_DATE", SB_COL_DATE);
	PyModule_AddIntConstant(m, "COL_TIMESTAMP", SB_COL_TIMESTAMP);
	PyModule_AddIntConstant(m, "COL_TIMESTAMPTZ", SB_COL_TIMESTAMPTZ);
	PyModule_AddIntConstant(m, "COL_INTERVAL", SB_COL_INTERVAL);
	PyModule_AddIntConstant(m, "COL_JSON", SB_COL_JSON);
	PyModule_AddIntConstant(m, "COL_BYTES", SB_COL_BYTES);
	PyModule_AddIntConstant(m, "COL_DECIMAL", SB_COL_DECIMAL);
	PyModule_AddIntConstant(m, "COL_NUMERIC_ARRAY", SB_COL_NUMERIC_ARRAY);
	PyModule_AddIntConstant(m, "COL_DECIMAL_ARRAY", SB_COL_DECIMAL_ARRAY);
	PyModule_AddIntConstant(m, "COL_DATE_ARRAY", SB_COL_DATE_ARRAY);
	PyModule_AddIntConstant(m, "COL_TIMESTAMP_ARRAY", SB_COL_TIMESTAMP_ARRAY);
	PyModule_AddIntConstant(m, "COL_TIMESTAMPTZ_ARRAY", SB_COL_TIMESTAMPTZ_ARRAY);
	PyModule_AddIntConstant(m, "COL_DECIMAL_JSON", SB_COL_DECIMAL_JSON);
	PyModule_AddIntConstant(m, "COL_BYTES_ARRAY", SB_COL_BYTES_ARRAY);
	PyModule_AddIntConstant(m, "COL_INTERVAL_PARTS", SB_COL_INTERVAL_PARTS);
	return m;
}
