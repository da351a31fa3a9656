/*
 * sb_protocol.h
 *		The frame format spoken between the backend, the worker and the
 *		sandbox child.
 *
 * Every message is a frame: an 8-byte header (type, payload length, both
 * uint32 in host byte order, since all three processes run on one machine)
 * followed by exactly `length` payload bytes.  Nothing here includes
 * PostgreSQL or Python headers, so both sides compile it.
 *
 * Two channels exist per session:
 *
 *	control	backend <-> worker.  The worker is our own exec'd binary and holds
 *			no untrusted code, but its messages are still size-checked.
 *	data	backend <-> child, one socketpair per call, handed to the backend
 *			with SCM_RIGHTS.  Everything the child sends is hostile: the
 *			backend checks the type and length of each frame before it reads
 *			the payload and caps the total it will accept.
 *
 * The child never writes on the control channel (it does not hold that fd),
 * so the exit report a backend receives always comes from the worker.
 */
#ifndef SB_PROTOCOL_H
#define SB_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef SB_PROTOCOL_VERSION		/* test/protocol.sh builds another */
#define SB_PROTOCOL_VERSION		14
#endif

/* the worker inherits its control socket on this fd */
#define SB_WORKER_CONTROL_FD	3
/* the child's data socket ends up on this fd */
#define SB_CHILD_DATA_FD		3
/* a spare's claim token (an eventfd holding 1) until its call starts */
#define SB_CHILD_CLAIM_FD		4

#define SB_FRAME_HEADER_SIZE	8

/* No single frame from either side may exceed this, whatever the limits. */
#define SB_FRAME_MAX_PAYLOAD	((uint32_t) 0x7FFFFFF0)
/* Control-channel frames are small and fixed-shape. */
#define SB_CONTROL_MAX_PAYLOAD	4096

typedef enum SbFrameType
{
	/* control: backend -> worker */
	SB_CTL_SPAWN = 1,			/* SbSpawnRequest: fork a contained child */
	SB_CTL_KILL = 2,			/* SbSpawned: kill that child (ours) now */
	SB_CTL_HOLD = 3,			/* SbSpawned: that child sent its call's
								 * complete result and is kept for the
								 * statement's next calls (held) */
	SB_CTL_CLOCKS = 4,			/* empty + SCM_RIGHTS: the held children's
								 * call clocks (SbHeldClocks, a sealed memfd) */
	SB_CTL_DROP = 5,			/* SbSpawned: the statement of that held
								 * child is over: kill it, report nothing */

	/* control: worker -> backend */
	SB_CTL_READY = 16,			/* SbReady: interpreter up and warm */
	SB_CTL_SPAWNED = 17,		/* SbSpawned + SCM_RIGHTS data fd and
								 * mailbox fd */
	SB_CTL_EXITED = 18,			/* SbExitReport: the child was reaped */
	SB_CTL_FAILED = 19,			/* text: the worker could not do it */
	SB_CTL_BUSY = 20,			/* SbBusy: max_concurrent reached, waited
								 * queue_ms in vain */
	SB_CTL_RESERVED = 21,		/* SbReserved + SCM_RIGHTS data fd and
								 * mailbox fd: a child contained for this
								 * client's next call */
	SB_CTL_REVOKED = 22,		/* SbSpawned: that reservation was taken back
								 * before its call began; nothing ran */

	/* data: worker -> child, before the fd goes to the backend */
	SB_DATA_LIMITS = 31,		/* SbSpawnRequest: the call's limits */

	/* data: backend -> child */
	SB_DATA_REQUEST = 32,		/* JSON: code, returns, options, plain inputs */
	SB_DATA_TABLE = 33,			/* JSON: one table input's name and columns */
	SB_DATA_COLUMN = 34,		/* binary column, see below */
	SB_DATA_END = 35,			/* empty: the request is complete */
	SB_DATA_SQL_ERROR = 36,		/* JSON: sqlstate, message, detail, hint: the
								 * query of an SB_DATA_SQL failed (its answer
								 * otherwise is one SB_DATA_TABLE and its
								 * columns) */
	SB_DATA_CALL = 37,			/* empty: a held child's next call; its
								 * arguments follow (SB_DATA_TABLE named "",
								 * its columns, SB_DATA_END) */
	SB_DATA_CHUNK = 38,			/* SbChunkHeader: a streamed table input's
								 * next row group; one SB_DATA_COLUMN per
								 * column of its TABLE header follows */

	/* data: child -> backend */
	SB_DATA_STDOUT = 48,		/* UTF-8 text written by print() */
	SB_DATA_RESULT = 49,		/* JSON text: the returns object */
	SB_DATA_ERROR = 50,			/* JSON: kind, type, message, line, col,
								 * traceback */
	SB_DATA_VIOLATION = 51,		/* SbViolation: a blocked system call */
	SB_DATA_ROWS = 52,			/* uint64 nrows: sandbox_rows' result follows
								 * as one SB_DATA_COLUMN per requested column */
	SB_DATA_STDERR = 53,		/* UTF-8 text written to sys.stderr (warnings) */
	SB_DATA_SQL = 54,			/* JSON: query, params: sql() in the child; it
								 * waits for the answer before it sends more */
	SB_DATA_LAST = 55,			/* empty, before a held call's result: the
								 * child ends after it (it does not wait for
								 * the statement's next call) */
	SB_DATA_WHERE = 56			/* SbWhere: the line the code was at when a
								 * limit stopped it (sb_where.c); the child
								 * exits after it */
} SbFrameType;

/*
 * Column kinds in an SB_DATA_COLUMN payload.  The payload is:
 *
 *	uint64	null_count
 *	uint8	validity[(nrows + 7) / 8]	only if null_count > 0; bit set = value
 *										present, least significant bit first
 *	values:
 *	  SB_COL_INT64, SB_COL_FLOAT64		int64/double[nrows]
 *	  SB_COL_BOOL						uint8[nrows]
 *	  SB_COL_TIMESTAMP, SB_COL_TIMESTAMPTZ, SB_COL_DATE
 *										int64[nrows], microseconds since
 *										1970-01-01 (UTC for timestamptz)
 *	  SB_COL_INTERVAL					int64[nrows], microseconds (a month
 *										counts as 30 days)
 *	  SB_COL_TEXT, SB_COL_JSON, SB_COL_DECIMAL, SB_COL_BYTES,
 *	  SB_COL_NUMERIC_ARRAY, SB_COL_DECIMAL_ARRAY, SB_COL_DATE_ARRAY,
 *	  SB_COL_TIMESTAMP_ARRAY, SB_COL_TIMESTAMPTZ_ARRAY,
 *	  SB_COL_DECIMAL_JSON, SB_COL_BYTES_ARRAY, SB_COL_INTERVAL_PARTS
 *										int64 offsets[nrows + 1], then the
 *										bytes; value i spans offsets[i] to
 *										offsets[i + 1] - 1 and is followed
 *										by a NUL byte that is not part of it
 *										(texts are UTF-8; JSON is JSON text;
 *										DECIMAL is numeric's text form; the
 *										arrays of numeric are JSON text too,
 *										NaN and infinities as strings, for
 *										floats or for decimal.Decimal; the
 *										arrays of dates and times are JSON
 *										text, for datetime.date and
 *										datetime.datetime, aware in UTC;
 *										DECIMAL_JSON is JSON text whose
 *										numbers with a fraction or an
 *										exponent become decimal.Decimal:
 *										json, jsonb and composites in
 *										decimal mode; BYTES_ARRAY is
 *										bytea[] as JSON text, its elements
 *										bytea's text, for bytes;
 *										INTERVAL_PARTS is an interval as
 *										"months days microseconds", for a
 *										language function's argument: a
 *										timedelta, or with months a
 *										relativedelta)
 *
 * Values under a cleared validity bit are zero (empty for var kinds: at
 * most the NUL).  The offsets never go back, so the values' lengths add up
 * to the bytes sent (sb_column_check refuses a column whose do not).
 * Table inputs travel to the child in this layout, and sandbox_rows
 * results travel back in it (using only the first seven kinds, plus TEXT
 * for everything that goes through a type's input function).
 */
typedef enum SbColumnKind
{
	SB_COL_INT64 = 1,
	SB_COL_FLOAT64 = 2,
	SB_COL_BOOL = 3,
	SB_COL_TEXT = 4,
	SB_COL_DATE = 5,
	SB_COL_TIMESTAMP = 6,
	SB_COL_TIMESTAMPTZ = 7,
	SB_COL_INTERVAL = 8,
	SB_COL_JSON = 9,
	SB_COL_BYTES = 10,
	SB_COL_DECIMAL = 11,
	SB_COL_NUMERIC_ARRAY = 12,
	SB_COL_DECIMAL_ARRAY = 13,
	SB_COL_DATE_ARRAY = 14,
	SB_COL_TIMESTAMP_ARRAY = 15,
	SB_COL_TIMESTAMPTZ_ARRAY = 16,
	SB_COL_DECIMAL_JSON = 17,
	SB_COL_BYTES_ARRAY = 18,
	SB_COL_INTERVAL_PARTS = 19
} SbColumnKind;

/*
 * A table input whose TABLE header says "stream": true arrives in row
 * groups while its query runs (src/backend/sb_stream.c): each is an
 * SB_DATA_CHUNK frame, then its columns; the last row group has
 * SB_CHUNK_LAST set (and may have no rows).  The child builds one
 * DataFrame of all of them.
 */
#define SB_CHUNK_LAST			1

typedef struct SbChunkHeader
{
	uint64_t	nrows;
	uint64_t	flags;
} SbChunkHeader;

typedef struct SbFrameHeader
{
	uint32_t	type;
	uint32_t	length;
} SbFrameHeader;

/* flags in SbSpawnRequest */
#define SB_SPAWN_PYTHON_LAYER_OFF	0x0001	/* tests only: OS layers alone */
#define SB_SPAWN_ALLOW_NO_LANDLOCK	0x0002	/* run even where Landlock is missing */
#define SB_SPAWN_NAMESPACES		0x0004	/* unshare user, net and IPC */
#define SB_SPAWN_FS_MOUNT		0x0008	/* a mount namespace root (with Landlock) */
#define SB_SPAWN_NO_LANDLOCK	0x0010	/* the mount namespace alone: no Landlock */
#define SB_SPAWN_PRELOADED		0x0020	/* a fork of the process holding
										 * pysandbox.preload_modules */
#define SB_SPAWN_WORKSPACE		0x0040	/* a workspace's child: RLIMIT_CPU
										 * allows SB_WORKSPACE_CPU_CALLS
										 * calls' CPU limits in all */
#define SB_SPAWN_HELD			0x0080	/* a LANGUAGE pysandbox function's
										 * child, which its statement's next
										 * calls may use: RLIMIT_CPU as a
										 * workspace's (the worker times each
										 * held call, RLIMIT_CPU only backs it
										 * up; review 107: SD was lost after
										 * about 1 s of CPU in all) */

typedef struct SbSpawnRequest
{
	uint32_t	timeout_ms;		/* wall clock, enforced by the worker */
	uint32_t	cpu_ms;			/* CPU time of the child */
	uint32_t	memory_mb;		/* address-space growth allowed */
	uint32_t	flags;
	uint32_t	queue_ms;		/* how long to wait for a free slot */
	uint32_t	reserve;		/* 1: afterwards, reserve a child with these
								 * limits for this client's next call */
} SbSpawnRequest;

/*
 * A reservation (SB_CTL_RESERVED) is a spare, contained with the limits it
 * was asked for, whose data socket the backend holds while it is idle; its
 * next call sends the request straight to the child.  The child and the
 * worker race for the spare's claim token, an eventfd (counter 0) on the
 * child's SB_CHILD_CLAIM_FD: the child claims its call by adding 1 to it
 * when the request arrives, before it acts on any byte of it; the worker
 * takes the reservation back by adding SB_CLAIM_REVOKE, the counter's
 * maximum.  Whichever write comes second would overflow the counter and
 * fails (EAGAIN), so exactly one wins.  A claim makes the eventfd readable,
 * which wakes the worker: it times the call's wall-clock and CPU limits
 * from then on, whatever the backend does.  If the worker won, the child
 * exits having run nothing, the backend gets SB_CTL_REVOKED and sees the
 * socket end with nothing sent, and sends the call again through
 * SB_CTL_SPAWN.
 */
#define SB_CLAIM_REVOKE			UINT64_C(0xfffffffffffffffe)

/*
 * Held children (LANGUAGE pysandbox functions called per row).  A call
 * whose request says "held" does not end its child with the result: the
 * child waits for the statement's next call (SB_DATA_CALL).  Once the
 * backend has the complete result it sends SB_CTL_HOLD: the worker moves
 * the child out of the client's one call slot into its held children (at
 * most SB_MAX_HELD).  From then on the backend says when each call starts
 * and ends not by a message (two per row would wake the worker, which all
 * sessions share, twice a row) but in its SbHeldClocks, a memfd it shared
 * with the worker once (SB_CTL_CLOCKS; sealed against resizing, mapped
 * read-only and not inherited by children in the worker): the slot with
 * the child's pid says whether a call runs, since when, how many have
 * begun, and the child's CPU clock (which any process of the same user may
 * read) as the backend last read it at a call's end (at most every 1 ms of
 * wall-clock time: never later than the truth).  The worker reads it, and
 * the child's CPU clock, every SB_HELD_CHECK_MS and at the running call's
 * deadline: a call gets the whole wall-clock limit from its start and the
 * whole CPU limit from that reading; between calls the child may use only
 * SB_IDLE_CPU_MS of CPU time from it (more ends it, cause
 * SB_EXIT_IDLE_CPU).  The child never times itself: it
 * only re-arms its own CPU timer, a courtesy the worker does not rely on.
 * SB_CTL_DROP ends it when its statement ends; SB_CTL_KILL, as for any
 * child, ends it with a report.
 */
#define SB_MAX_HELD				16
#define SB_IDLE_CPU_MS			20
#define SB_HELD_CHECK_MS		10

/*
 * A workspace's child (sandbox_workspace_open) is a held child that the
 * backend keeps across statements and transactions: its slot's
 * idle_timeout_ms ends it (SB_EXIT_IDLE_TIMEOUT) once it waited that long
 * for a call, and idle_cpu_ms replaces SB_IDLE_CPU_MS (tearing down a large
 * call's objects takes CPU time after its result).
 */
#define SB_WORKSPACE_IDLE_CPU_MS	1000
#define SB_WORKSPACE_CPU_CALLS		10

typedef struct SbHeldClock
{
	int32_t		pid;			/* the held child; 0: a free slot */
	uint32_t	in_call;		/* 1 while a call runs */
	uint64_t	calls;			/* calls begun (the backend adds 1 at each
								 * start, after setting since_us) */
	uint64_t	since_us;		/* CLOCK_MONOTONIC, microseconds: when the
								 * running call began */
	uint64_t	cpu_us;			/* the child's CPU time when the running
								 * call began, or the last one ended; 0:
								 * not known (the worker reads its own) */
	uint32_t	idle_cpu_ms;	/* CPU time allowed between calls; 0:
								 * SB_IDLE_CPU_MS */
	uint32_t	idle_timeout_ms;	/* wall-clock time allowed between calls;
									 * 0: no limit (the statement's end) */
	uint32_t	call_timeout_ms;	/* the running call's limits, if lower
									 * than the child's (a workspace's call
									 * after the settings were lowered); */
	uint32_t	call_cpu_ms;	/* 0: the child's */
	uint32_t	evictable;		/* 1: a function's child kept across rows
								 * (not a workspace's, not a group_by
								 * call's), which the worker may end for
								 * its own client's waiting call */
} SbHeldClock;

typedef struct SbHeldClocks
{
	SbHeldClock slot[SB_MAX_HELD];
} SbHeldClocks;

/*
 * The mailbox: a held child's calls without a system call on the way.
 *
 * On a virtual machine a system call costs microseconds, and a call of a
 * trivial function per row made six of them (the backend's send, two
 * reads, the child's poll, read and write).  So each child also has a
 * mailbox, SB_MAILBOX_SIZE bytes of a memfd the worker creates for it
 * (sealed against resizing: a shrink would fault the backend), maps into
 * the child before any containment step and hands to the backend with the
 * data socket.  The backend maps it only for a held child; other children
 * never look at it.  It carries exactly the bytes the data socket would:
 * SB_DATA_CALL and the arguments one way, the call's result frames the
 * other; everything else (prints, sql(), errors, violations) stays on the
 * socket.
 *
 * One word, state, says where the call is; both sides change it only with
 * atomic read-modify-writes, so exactly one of two racing changes wins:
 *
 *	IDLE, DONE, SOCKET	the child waits for its next call, polling state
 *	IDLE_SLEEP			... asleep on the data socket (after spinning;
 *						child: compare-and-swap from the value it left)
 *	DONE_SLEEP			the same from DONE: the result in resp stays
 *						there for a backend that has not taken it yet
 *	CALL				a call is in req (backend: compare-and-swap from
 *						any value but the two SLEEPs; if the child is
 *						asleep the call goes on the data socket instead)
 *	CALL_SLEEP			the backend waits asleep on the data socket
 *						(compare-and-swap from CALL, after spinning); the
 *						call is in req all the same
 *	DONE				the child put the call's whole result in resp
 *						(exchange: if the backend was asleep, the child
 *						writes the same bytes to the socket instead)
 *	SOCKET				the call goes on on the data socket (exchange,
 *						before the child writes anything there)
 *	CALL_SOCKET			a call too large for req comes on the socket
 *						(backend: compare-and-swap, as for CALL)
 *
 * A call that came on the socket is answered on it; the child sets SOCKET
 * (a plain store: the backend, which waits for that answer, changes nothing
 * then) when it begins, so that the next call can come through the mailbox.
 * An honest child sends only a call's result frames through the mailbox;
 * whatever frames the backend's copy holds are decoded with the socket's
 * checks all the same.
 * Everything in the mailbox is written by a hostile process that may
 * change it at any moment: the backend reads resp_len once, checks it,
 * copies resp to its own memory and decodes the copy as it would decode
 * the socket's bytes, with the same limits.  A child that breaks this
 * protocol only stalls its own call, which then meets its deadline.
 */
#define SB_MAILBOX_SIZE			(128 * 1024)
#define SB_MAILBOX_HEADER		128
#define SB_MAILBOX_REQ_MAX		(32 * 1024)
#define SB_MAILBOX_RESP_MAX		(SB_MAILBOX_SIZE - SB_MAILBOX_HEADER - SB_MAILBOX_REQ_MAX)

#define SB_MB_IDLE				0
#define SB_MB_IDLE_SLEEP		1
#define SB_MB_CALL				2
#define SB_MB_CALL_SLEEP		3
#define SB_MB_DONE				4
#define SB_MB_SOCKET			5
#define SB_MB_DONE_SLEEP		6
#define SB_MB_CALL_SOCKET		7

typedef struct SbMailbox
{
	uint32_t	state;			/* SB_MB_* */
	uint32_t	req_len;		/* bytes of req (backend) */
	uint32_t	resp_len;		/* bytes of resp (child: hostile) */
	uint32_t	padding;
	char		header_rest[SB_MAILBOX_HEADER - 16];
	unsigned char req[SB_MAILBOX_REQ_MAX];
	unsigned char resp[SB_MAILBOX_RESP_MAX];
} SbMailbox;

/* a moment's pause while polling the mailbox (lets the other hyperthread run) */
static inline void
sb_spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* the floor tests write at these offsets */
_Static_assert(sizeof(SbMailbox) == SB_MAILBOX_SIZE, "the mailbox's layout");
_Static_assert(offsetof(SbMailbox, resp_len) == 8 && offsetof(SbMailbox, req) == 128 &&
			   offsetof(SbMailbox, resp) == 128 + 32768, "the mailbox's offsets");

typedef struct SbReserved
{
	int32_t		pid;
	uint32_t	padding;
	SbSpawnRequest limits;		/* what the child was contained with */
} SbReserved;

/* the flags that shape a child before its limits are known (spares) */
#define SB_SPAWN_SHAPE_FLAGS \
	(SB_SPAWN_NAMESPACES | SB_SPAWN_FS_MOUNT | SB_SPAWN_NO_LANDLOCK | \
	 SB_SPAWN_ALLOW_NO_LANDLOCK | SB_SPAWN_PRELOADED)

typedef struct SbBusy
{
	uint32_t	max_concurrent;
	uint32_t	waited_ms;
	uint32_t	idle_held;		/* of the slots, children idle between two
								 * calls (workspaces, functions' rows) */
} SbBusy;

/* room for the names of the preloaded modules in SbReady */
#define SB_PRELOADED_MAX	1024

typedef struct SbReady
{
	uint32_t	version;
	uint32_t	layers;			/* SB_LAYER_* bits the worker can apply */
	uint32_t	landlock_abi;	/* 0 if Landlock is unavailable */
	uint32_t	max_concurrent; /* 0: no cluster-wide cap (per-session) */
	uint32_t	spares;			/* children kept forked ahead of time */
	uint32_t	shared;			/* 1: the cluster-wide fork server */
	uint64_t	instance;		/* random, this worker process's own: a
								 * request may say its code passed the
								 * validator of this instance (sb_main.c) */
	char		preloaded[SB_PRELOADED_MAX];	/* pysandbox.preload_modules its
												 * preloaded process imported
												 * (SB_SPAWN_PRELOADED children
												 * have them), comma-separated,
												 * NUL-terminated */
} SbReady;

#define SB_LAYER_SECCOMP	0x0001	/* the filter compiled */
#define SB_LAYER_LANDLOCK	0x0002	/* the kernel has Landlock */
#define SB_LAYER_NAMESPACES	0x0004	/* unprivileged user/net/IPC namespaces */
#define SB_LAYER_MOUNTNS	0x0008	/* a read-only mount namespace root works */
#define SB_LAYER_SEALED		0x0010	/* the worker's file mappings are sealed */

typedef struct SbSpawned
{
	int32_t		pid;
} SbSpawned;

/* why the worker ended a child */
typedef enum SbExitCause
{
	SB_EXIT_BY_ITSELF = 0,		/* exited or died on its own */
	SB_EXIT_TIMEOUT = 1,		/* the worker's wall-clock deadline passed */
	SB_EXIT_KILLED = 2,			/* the backend asked (cancel, error) */
	SB_EXIT_CPU = 3,			/* the worker found its CPU time spent */
	SB_EXIT_IDLE_CPU = 4,		/* a held child used CPU time between calls */
	SB_EXIT_IDLE_TIMEOUT = 5,	/* a workspace's child waited longer than
								 * its idle timeout for a call */
	SB_EXIT_YIELDED = 6,		/* a held child taken back between calls
								 * for another client's waiting call */
	SB_EXIT_MEMORY = 7,			/* its page tables outgrew what its memory
								 * limit allows (sb_children.h) */
	SB_EXIT_RESIDENT = 8,		/* it held more private memory than its data
								 * limit allows (sb_children.h) */
	SB_EXIT_EVICTED = 9			/* a function's held child taken back
								 * between calls for its own client's
								 * waiting call: the call site starts
								 * afresh, no error */
} SbExitCause;

/* SbExitReport.flags */
#define SB_EXIT_CONTAINED	0x0001	/* its seccomp filter was on when it
									 * ended: a setup failure it reports
									 * is forged */

typedef struct SbExitReport
{
	int32_t		pid;
	int32_t		wait_status;	/* as returned by wait4() */
	uint32_t	cause;			/* SbExitCause */
	uint32_t	flags;			/* SB_EXIT_* */
	uint64_t	wall_us;
	uint64_t	user_us;
	uint64_t	sys_us;
	uint64_t	maxrss_kb;
} SbExitReport;

/*
 * Exit codes the child uses to tell the worker how it ended.  Anything else
 * (a signal, another code) is a crash.
 */
#define SB_CHILD_EXIT_OK			0
#define SB_CHILD_EXIT_SETUP		70	/* a containment step failed */
#define SB_CHILD_EXIT_VIOLATION	71	/* blocked system call, frame sent */
#define SB_CHILD_EXIT_PROTOCOL	72	/* the request was malformed */
#define SB_CHILD_EXIT_UNCLEAN	73	/* a serving child could not clean up
									 * between two calls (the code's function
									 * ran then) */
#define SB_CHILD_EXIT_LIMIT		74	/* SIGPROF: the CPU timer, or the worker
									 * past the wall-clock deadline; an
									 * SB_DATA_WHERE may have gone first */
#define SB_CHILD_EXIT_STACK		75	/* a fault at the native stack's end
									 * (sb_where.c); an SB_DATA_WHERE may
									 * have gone first */

typedef struct SbViolation
{
	int32_t		syscall_nr;
	char		name[60];		/* NUL-terminated, may be empty */
} SbViolation;

/* where the call's code was when SIGPROF stopped it */
typedef struct SbWhere
{
	int32_t		line;			/* in the call's code, 1-based */
	char		function[60];	/* its qualified name, NUL-terminated, ASCII */
} SbWhere;

/* ---- sb_decode.c: checks on what the child sends (backend, fuzzer) ---- */

/* the largest error report accepted; the child shortens its texts below */
#define SB_MAX_ERROR_PAYLOAD	(1024 * 1024)
/* one sql() request at most, and sql() calls per call at most */
#define SB_MAX_SQL_PAYLOAD		(1024 * 1024)
#define SB_MAX_SQL_CALLS		10000

#define SB_DEC_OK		0
#define SB_DEC_BAD		1		/* protocol violation */
#define SB_DEC_OUTPUT	2		/* output limit exceeded */

typedef struct SbDecoder
{
	uint64_t	output_limit;
	uint64_t	output_used;	/* RESULT and COLUMN payloads; STDOUT and
								 * STDERR frames, headers included */
	int			rows_mode;		/* ROWS and COLUMN frames expected */
	int			rows_ncols;		/* how many COLUMN frames */
	int			columns;		/* COLUMN frames seen */
	int			have_result;
	int			have_error;
	int			have_rows;
	int			have_violation;
	int			have_where;
	int			sql_pending;	/* an SB_DATA_SQL not answered yet */
	int			have_last;		/* SB_DATA_LAST seen */
	uint32_t	sql_calls;
} SbDecoder;

/* a validated column payload (pointers into it) */
typedef struct SbColumnView
{
	int			kind;
	uint64_t	nrows;
	uint64_t	null_count;
	const unsigned char *validity;	/* NULL if no NULLs */
	const char *values;			/* fixed-width kinds */
	const char *offsets;		/* var kinds: int64[nrows + 1], unaligned */
	const char *data;
	uint64_t	data_len;
} SbColumnView;

extern void sb_decoder_init(SbDecoder *d, uint64_t output_limit, int rows_mode, int rows_ncols);
extern int	sb_decode_header(SbDecoder *d, uint32_t type, uint32_t length);
extern void sb_decoder_sql_answered(SbDecoder *d);
extern int	sb_column_check(const char *p, uint64_t len, uint64_t nrows, int kind,
							SbColumnView *v);
extern int	sb_column_valid(const SbColumnView *v, uint64_t row);
extern int	sb_column_text(const SbColumnView *v, uint64_t row, const char **start,
						   uint64_t *length);

/* helpers shared by both sides (sb_frame.c) */
extern void sb_frame_header_encode(unsigned char *buf, uint32_t type, uint32_t length);
extern void sb_frame_header_decode(const unsigned char *buf, uint32_t *type, uint32_t *length);
extern int	sb_proc_read(pid_t pid, const char *file, char *buf, size_t size);
extern int	sb_write_all(int fd, const void *buf, size_t len);
extern int	sb_read_all(int fd, void *buf, size_t len);
extern ssize_t sb_read_some(int fd, void *buf, size_t min, size_t cap);
extern int	sb_send_frame(int fd, uint32_t type, const void *payload, uint32_t length);
/* fds one control record may carry: a data socket and its mailbox */
#define SB_RECORD_MAX_FDS	2
extern int	sb_send_record_fds(int sock, uint32_t type, const void *payload, uint32_t length,
							   const int *fds, int nfds, int flags);
extern int	sb_send_record_fd(int sock, uint32_t type, const void *payload, uint32_t length,
							  int fd, int flags);

#endif							/* SB_PROTOCOL_H */
