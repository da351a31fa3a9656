/*
 * sb_stat.c
 *		What a DBA sees of the calls: the pysandbox_stat and
 *		pysandbox_activity views, and the audit line of pysandbox.log_calls.
 *
 * Each SQL entry point that runs code (sandbox_execute, sandbox_run,
 * sandbox_rows, the language's handlers) runs through sb_stat_wrap(): it
 * keeps a record of the call on its own stack (a language function called
 * by a $query input of another call has a record of its own), the request
 * fills in the code's id, the child and its usage, and whatever ends the
 * call — a result, a report of sandbox_run or an error from anywhere —
 * is counted once and, if pysandbox.log_calls asks, logged once.
 *
 * With pysandbox in shared_preload_libraries the counters live in shared
 * memory as in pg_stat_statements: a hash table of pysandbox.stat_max
 * entries keyed by (role, database, code id) under one LWLock, taken shared
 * to find an entry and exclusive only to add one (evicting the least-called
 * 5 % when full); each entry's counters change under its own spinlock, so
 * concurrent calls add up exactly.  Calls in flight are one slot per
 * backend, with the children it holds idle between calls (workspaces, a
 * statement's LANGUAGE pysandbox children), which also hold slots of
 * pysandbox.max_concurrent: a DBA who meets 53400 sees who holds them
 * (review 109).  Without preloading, the views raise an error saying so;
 * the audit lines need no shared memory.
 */
#include "pysandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "common/cryptohash.h"
#include "common/hashfn.h"
#include "common/sha2.h"
#include "funcapi.h"
#include "storage/proc.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/backendid.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(pysandbox_stat);
PG_FUNCTION_INFO_V1(pysandbox_stat_reset);
PG_FUNCTION_INFO_V1(pysandbox_activity);

/* outcome kinds: sandbox_run's error.kind, plus ok */
static const char *const sb_kind_names[SB_KIND_COUNT] = {
	"ok", "validation", "exception", "timeout", "cpu", "memory", "output",
	"violation", "crash", "input", "busy"
};

#define SB_STAT_CODE_CHARS	200
#define SB_STAT_CODE_BYTES	(SB_STAT_CODE_CHARS * MAX_MULTIBYTE_CHAR_LEN + 1)

typedef struct SbStatKey
{
	Oid			userid;
	Oid			dbid;
	uint64		code_id;
} SbStatKey;

typedef struct SbStatEntry
{
	SbStatKey	key;			/* hash key: first */
	slock_t		mutex;			/* guards everything below */
	Oid			funcoid;
	int64		calls;
	int64		kinds[SB_KIND_COUNT];
	double		total_wall_ms;
	double		max_wall_ms;
	double		total_cpu_ms;
	int64		max_peak_kb;
	int64		rows_in;
	int64		bytes_in;
	int64		bytes_out;
	TimestampTz first_call;
	TimestampTz last_call;
	char		code[SB_STAT_CODE_BYTES];	/* the first 200 characters */
} SbStatEntry;

/* a child held idle between calls: what its last call was */
typedef struct SbActivityHeld
{
	int			child_pid;		/* 0: none */
	bool		workspace;
	Oid			userid;
	Oid			funcoid;
	uint64		code_id;
	TimestampTz started;
	TimestampTz ended;
	double		cpu_ms;
} SbActivityHeld;

typedef struct SbActivitySlot
{
	slock_t		mutex;
	int			pid;			/* 0: no call */
	Oid			userid;
	Oid			dbid;
	uint64		code_id;
	Oid			funcoid;
	int			child_pid;
	uint64		cpu_base_us;	/* child_pid's CPU time when the call took it */
	TimestampTz started;
	int			backend_pid;	/* for the held ones, whether a call runs or not */
	Oid			backend_dbid;
	SbActivityHeld held[SB_MAX_HELD];	/* sb_held.c's slots */
} SbActivitySlot;

typedef struct SbStatShared
{
	LWLock	   *lock;			/* the hash table's shape */
	TimestampTz reset;
	int			nslots;
	SbActivitySlot slots[FLEXIBLE_ARRAY_MEMBER];
} SbStatShared;

int			sb_stat_max = 1000;
int			sb_log_calls = SB_LOG_CALLS_OFF;
bool		sb_log_code = false;

static SbStatShared *sb_shared = NULL;
static HTAB *sb_stat_hash = NULL;
static shmem_request_hook_type sb_prev_shmem_request = NULL;
static shmem_startup_hook_type sb_prev_shmem_startup = NULL;

/* the innermost call of this backend running through sb_stat_wrap() */
static SbCallRecord *sb_current = NULL;

/*
 * A child's peak resident memory in kB (VmHWM), 0 if it cannot be read.
 * Like the exit report's maxrss, it counts the pages the child shares with
 * the process it was forked from.
 */
uint64
sb_child_peak_kb(int32 pid)
{
	char		buf[2048];
	char	   *p;

	if (pid <= 0 || !sb_proc_read(pid, "status", buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "\nVmHWM:");
	return p != NULL ? strtoull(p + 7, NULL, 10) : 0;
}

static Size
sb_stat_shmem_size(void)
{
	return add_size(offsetof(SbStatShared, slots) +
					mul_size(MaxBackends, sizeof(SbActivitySlot)),
					hash_estimate_size(sb_stat_max, sizeof(SbStatEntry)));
}

static void
sb_stat_shmem_request(void)
{
	if (sb_prev_shmem_request)
		sb_prev_shmem_request();
	RequestAddinShmemSpace(sb_stat_shmem_size());
	RequestNamedLWLockTranche("pysandbox", 1);
}

static void
sb_stat_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;
	int			i;

	if (sb_prev_shmem_startup)
		sb_prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	sb_shared = ShmemInitStruct("pysandbox",
								offsetof(SbStatShared, slots) +
								mul_size(MaxBackends, sizeof(SbActivitySlot)),
								&found);
	if (!found)
	{
		sb_shared->lock = &(GetNamedLWLockTranche("pysandbox"))->lock;
		sb_shared->reset = GetCurrentTimestamp();
		sb_shared->nslots = MaxBackends;
		for (i = 0; i < MaxBackends; i++)
		{
			memset(&sb_shared->slots[i], 0, sizeof(SbActivitySlot));
			SpinLockInit(&sb_shared->slots[i].mutex);
		}
	}
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(SbStatKey);
	info.entrysize = sizeof(SbStatEntry);
	sb_stat_hash = ShmemInitHash("pysandbox statistics", sb_stat_max, sb_stat_max,
								 &info, HASH_ELEM | HASH_BLOBS);
	LWLockRelease(AddinShmemInitLock);
}

/* Ask for shared memory (from _PG_init, while preloading). */
void
sb_stat_init(void)
{
	sb_prev_shmem_request = shmem_request_hook;
	shmem_request_hook = sb_stat_shmem_request;
	sb_prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = sb_stat_shmem_startup;
}

/* Are pysandbox_stat and pysandbox_activity there (preloading)? */
bool
sb_stat_available(void)
{
	return sb_shared != NULL;
}

/* This backend's slot of pysandbox_activity, or NULL. */
static volatile SbActivitySlot *
sb_my_slot(void)
{
	if (sb_shared == NULL || MyBackendId < 1 || MyBackendId > sb_shared->nslots)
		return NULL;
	return &sb_shared->slots[MyBackendId - 1];
}

/* A backend that exits (even from FATAL, mid-call) leaves no call behind. */
static void
sb_activity_exit(int code, Datum arg)
{
	volatile SbActivitySlot *s = sb_my_slot();

	if (s == NULL)
		return;
	SpinLockAcquire(&s->mutex);
	s->pid = 0;
	for (int i = 0; i < SB_MAX_HELD; i++)
		s->held[i].child_pid = 0;
	SpinLockRelease(&s->mutex);
}

/* The exit hook that clears this backend's slot, once. */
static volatile SbActivitySlot *
sb_activity_slot(void)
{
	static bool exit_hook = false;
	volatile SbActivitySlot *s = sb_my_slot();

	if (s != NULL && !exit_hook)
	{
		before_shmem_exit(sb_activity_exit, (Datum) 0);
		exit_hook = true;
	}
	return s;
}

/* Show rec (or nothing, if NULL) as this backend's call in flight. */
static void
sb_activity_publish(const SbCallRecord *rec)
{
	volatile SbActivitySlot *s = sb_activity_slot();

	if (s == NULL)
		return;
	SpinLockAcquire(&s->mutex);
	if (rec == NULL || !rec->has_code)
		s->pid = 0;
	else
	{
		s->pid = MyProcPid;
		s->userid = rec->userid;
		s->dbid = MyDatabaseId;
		s->code_id = rec->code_id;
		s->funcoid = rec->funcoid;
		s->child_pid = rec->child_pid;
		s->cpu_base_us = rec->cpu_base_us;
		s->started = rec->started;
	}
	SpinLockRelease(&s->mutex);
}

/*
 * The code of the current call (the first one named counts: a call that
 * validates first builds a second request with the same code).
 */
void
sb_stat_code(const char *code, Oid funcoid)
{
	SbCallRecord *rec = sb_current;
	size_t		len;

	if (rec == NULL || rec->skip || rec->has_code || code == NULL)
		return;
	len = strlen(code);
	rec->code = code;
	rec->funcoid = funcoid;
	rec->code_id = hash_bytes_extended((const unsigned char *) code, (int) Min(len, INT_MAX), 0);
	if (OidIsValid(funcoid))
		rec->code_id = hash_combine64(rec->code_id, (uint64) funcoid);
	/* an id that fits bigint's positive half reads the same everywhere */
	rec->code_id &= UINT64CONST(0x7FFFFFFFFFFFFFFF);
	rec->has_code = true;
	sb_activity_publish(rec);
}

/*
 * The child now running the current call, and its CPU time when the call
 * took it (a spare's setup, a held child's earlier calls are not the call's).
 */
void
sb_stat_child(int32 pid, uint64 cpu_base_us)
{
	SbCallRecord *rec = sb_current;

	if (rec == NULL || rec->skip || !rec->has_code ||
		(rec->child_pid == pid && rec->cpu_base_us == cpu_base_us))
		return;
	rec->child_pid = pid;
	rec->cpu_base_us = cpu_base_us;
	sb_activity_publish(rec);
}

/*
 * Held slot i (sb_held.c) keeps child pid idle after the current call,
 * which used cpu_us; pid 0: the slot holds nothing now.  Never raises.
 */
void
sb_stat_held(int i, int32 pid, bool workspace, uint64 cpu_us)
{
	volatile SbActivitySlot *s = sb_activity_slot();
	SbCallRecord *rec = sb_current;
	volatile SbActivityHeld *h;

	if (s == NULL || i < 0 || i >= SB_MAX_HELD)
		return;
	h = &s->held[i];
	if (pid <= 0 || rec == NULL)
	{
		if (h->child_pid != 0)
		{
			SpinLockAcquire(&s->mutex);
			h->child_pid = 0;
			SpinLockRelease(&s->mutex);
		}
		return;
	}
	{
		TimestampTz now = GetCurrentTimestamp();

		SpinLockAcquire(&s->mutex);
		s->backend_pid = MyProcPid;
		s->backend_dbid = MyDatabaseId;
		h->child_pid = pid;
		h->workspace = workspace;
		h->userid = rec->userid;
		h->funcoid = rec->funcoid;
		h->code_id = rec->code_id;
		h->started = rec->started;
		h->ended = now;
		h->cpu_ms = cpu_us / 1000.0;
		SpinLockRelease(&s->mutex);
	}
}

/* The usage of the current call's child (sb_report_usage). */
void
sb_stat_usage(const SbRequest *req, const SbOutcome *out, uint64 output_bytes)
{
	SbCallRecord *rec = sb_current;

	if (rec == NULL)
		return;
	rec->ran = true;
	rec->wall_us = out->exit.wall_us;
	rec->cpu_us = out->call_cpu_us;
	rec->peak_kb = out->exit.maxrss_kb;
	rec->rows_in = req->input_rows;
	rec->bytes_in = req->input_bytes;
	rec->bytes_out = output_bytes;
}

/* How the current call failed, when pysandbox judged it (kind of sandbox_run). */
void
sb_stat_failure(const char *kind, int sqlstate)
{
	SbCallRecord *rec = sb_current;
	int			i;

	if (rec == NULL || kind == NULL)
		return;
	for (i = 1; i < SB_KIND_COUNT; i++)
		if (strcmp(kind, sb_kind_names[i]) == 0)
		{
			rec->kind = i;
			rec->sqlstate = sqlstate;
			return;
		}
}

/* An error pysandbox did not judge: its kind from its SQLSTATE and the phase. */
static int
sb_stat_kind_of(const SbCallRecord *rec, int sqlstate)
{
	if (sqlstate == ERRCODE_QUERY_CANCELED)
		return SB_KIND_TIMEOUT;
	if (sqlstate == ERRCODE_OUT_OF_MEMORY)
		return SB_KIND_MEMORY;
	/* the worker lost under a call (58000) is no input's fault (review 109) */
	if (ERRCODE_TO_CATEGORY(sqlstate) == ERRCODE_SYSTEM_ERROR)
		return SB_KIND_CRASH;
	/*
	 * no slot free within queue_timeout (max_concurrent): a DBA sizing it
	 * must see these apart from users' broken inputs (review 117 F3)
	 */
	if (sqlstate == ERRCODE_CONFIGURATION_LIMIT_EXCEEDED && !rec->ran)
		return SB_KIND_BUSY;
	if (!rec->ran)
		return SB_KIND_INPUT;	/* reading the inputs, before any child ran */
	if (ERRCODE_TO_CATEGORY(sqlstate) == ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION)
		return SB_KIND_CRASH;
	return SB_KIND_OUTPUT;		/* converting what the child returned */
}

/* Entries by calls, the least called (then the least recently) first. */
static int
sb_stat_least_used(const void *a, const void *b)
{
	const SbStatEntry *x = *(SbStatEntry *const *) a;
	const SbStatEntry *y = *(SbStatEntry *const *) b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? -1 : 1;
	if (x->last_call != y->last_call)
		return x->last_call < y->last_call ? -1 : 1;
	return 0;
}

/* Find or add the entry of key (with the lock held shared; may retake it). */
static SbStatEntry *
sb_stat_entry(const SbStatKey *key, const SbCallRecord *rec, TimestampTz now)
{
	SbStatEntry *e;
	bool		found;

	e = hash_search(sb_stat_hash, key, HASH_FIND, NULL);
	if (e != NULL)
		return e;
	LWLockRelease(sb_shared->lock);
	LWLockAcquire(sb_shared->lock, LW_EXCLUSIVE);
	e = hash_search(sb_stat_hash, key, HASH_FIND, NULL);
	if (e != NULL)
		return e;
	if (hash_get_num_entries(sb_stat_hash) >= sb_stat_max)
	{
		/* evict the 5 % least called (the oldest first among equals) */
		HASH_SEQ_STATUS seq;
		SbStatEntry **all;
		long		n = 0,
					i,
					evict;

		all = palloc_extended(sizeof(SbStatEntry *) * hash_get_num_entries(sb_stat_hash),
							  MCXT_ALLOC_NO_OOM);
		if (all == NULL)
			return NULL;		/* not counted rather than an error */
		hash_seq_init(&seq, sb_stat_hash);
		while ((e = hash_seq_search(&seq)) != NULL)
			all[n++] = e;
		evict = Max(n / 20, 1);
		qsort(all, n, sizeof(SbStatEntry *), sb_stat_least_used);
		for (i = 0; i < evict && i < n; i++)
			hash_search(sb_stat_hash, &all[i]->key, HASH_REMOVE, NULL);
		pfree(all);
	}
	e = hash_search(sb_stat_hash, key, HASH_ENTER_NULL, &found);
	if (e == NULL)
		return NULL;
	if (!found)
	{
		int			len = (int) strnlen(rec->code, SB_STAT_CODE_BYTES - 1);

		memset((char *) e + sizeof(SbStatKey), 0, sizeof(SbStatEntry) - sizeof(SbStatKey));
		SpinLockInit(&e->mutex);
		e->funcoid = rec->funcoid;
		e->first_call = now;	/* the last_call of its first call too */
		len = pg_mbcliplen(rec->code, len, SB_STAT_CODE_BYTES - 1);
		len = Min(len, pg_mbcharcliplen(rec->code, len, SB_STAT_CODE_CHARS));
		memcpy(e->code, rec->code, len);
		e->code[len] = '\0';
	}
	return e;
}

/* Add the ended call to its entry. */
static void
sb_stat_count(const SbCallRecord *rec, int kind)
{
	SbStatKey	key;
	SbStatEntry *e;
	double		wall_ms = rec->wall_us / 1000.0;

	TimestampTz now = GetCurrentTimestamp();

	/* an error raised while this backend read the table ends here: not counted */
	if (sb_shared == NULL || sb_stat_hash == NULL || LWLockHeldByMe(sb_shared->lock))
		return;
	memset(&key, 0, sizeof(key));
	key.userid = rec->userid;
	key.dbid = MyDatabaseId;
	key.code_id = rec->code_id;
	LWLockAcquire(sb_shared->lock, LW_SHARED);
	e = sb_stat_entry(&key, rec, now);
	if (e != NULL)
	{
		volatile SbStatEntry *v = e;

		SpinLockAcquire(&v->mutex);
		v->calls++;
		v->kinds[kind]++;
		v->total_wall_ms += wall_ms;
		if (wall_ms > v->max_wall_ms)
			v->max_wall_ms = wall_ms;
		v->total_cpu_ms += rec->cpu_us / 1000.0;
		if ((int64) rec->peak_kb > v->max_peak_kb)
			v->max_peak_kb = (int64) rec->peak_kb;
		v->rows_in += (int64) rec->rows_in;
		v->bytes_in += (int64) rec->bytes_in;
		v->bytes_out += (int64) rec->bytes_out;
		/* another backend's call may have made the entry a moment later */
		if (now > v->last_call)
			v->last_call = now;
		if (now < v->first_call)
			v->first_call = now;
		SpinLockRelease(&v->mutex);
	}
	LWLockRelease(sb_shared->lock);
}

/* the code in an audit line: at most this much of it */
#define SB_LOG_CODE_MAX (1024 * 1024)

/*
 * Who runs a call, for its audit line: the current role (a SECURITY
 * DEFINER function's owner), the session's role and the database, quoted
 * as identifiers where they need it.  Read when the call begins, from the
 * catalogs, only if calls are logged.
 */
static const char *
sb_stat_name(char *name)
{
	char	   *p;

	for (p = name; *p; p++)		/* no line of a name begins another */
		if ((unsigned char) *p < 0x20 || *p == 0x7f)
			*p = '?';
	return quote_identifier(name);
}

static char *
sb_stat_names(Oid userid)
{
	char	   *role = GetUserNameFromId(userid, true);
	char	   *session = GetUserNameFromId(GetSessionUserId(), true);
	char	   *db = get_database_name(MyDatabaseId);

	return psprintf("role=%s session_role=%s database=%s",
					role ? sb_stat_name(role) : "?",
					session ? sb_stat_name(session) : "?",
					db ? sb_stat_name(db) : "?");
}

/*
 * The audit line of one call (pysandbox.log_calls): to the server log only
 * (LOG_SERVER_ONLY), never to the client, whose client_min_messages may
 * ask for LOG: the code may be a SECURITY DEFINER function's secret.
 */
/*
 * Was this code logged whole already in this statement?  A function called
 * for every row logged its whole body on every row's line (review 117 F2:
 * 99 MB of log from 1000 rows of a 100 kB body): a statement's lines give
 * each code once, the first time.  The last few codes are remembered by
 * their SHA-256, not by code_id, a 64-bit hash that crafted code could
 * collide with to keep its text out of the log (review 118 F6).
 */
#define SB_LOGGED_CODES 8

static bool
sb_stat_code_logged(const char *code)
{
	static uint8 logged[SB_LOGGED_CODES][PG_SHA256_DIGEST_LENGTH];
	static int	nlogged = 0;
	static int	next = 0;
	static LocalTransactionId lxid = InvalidLocalTransactionId;
	static TimestampTz statement = 0;
	uint8		digest[PG_SHA256_DIGEST_LENGTH];
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	int			i;

	if (ctx == NULL || pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) code, strlen(code)) < 0 ||
		pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
	{
		pg_cryptohash_free(ctx);
		return false;			/* logged again, whole */
	}
	pg_cryptohash_free(ctx);
	if (lxid != MyProc->lxid || statement != GetCurrentStatementStartTimestamp())
	{
		lxid = MyProc->lxid;
		statement = GetCurrentStatementStartTimestamp();
		nlogged = next = 0;
	}
	for (i = 0; i < nlogged; i++)
		if (memcmp(logged[i], digest, sizeof(digest)) == 0)
			return true;
	memcpy(logged[next], digest, sizeof(digest));
	next = (next + 1) % SB_LOGGED_CODES;
	nlogged = Min(nlogged + 1, SB_LOGGED_CODES);
	return false;
}

static void
sb_stat_log(const SbCallRecord *rec, int kind)
{
	size_t		len;
	bool		code;

	if (rec->log_calls == SB_LOG_CALLS_OFF ||
		(rec->log_calls == SB_LOG_CALLS_ERRORS && kind == SB_KIND_OK))
		return;
	code = rec->log_code && !sb_stat_code_logged(rec->code);
	len = code ? strlen(rec->code) : 0;
	ereport(LOG_SERVER_ONLY,
			(errmsg("pysandbox call: %s code_id=" INT64_FORMAT
					" function=%u outcome=%s sqlstate=%s wall_ms=%.3f cpu_ms=%.3f"
					" peak_memory_kb=" UINT64_FORMAT " input_rows=" UINT64_FORMAT
					" input_bytes=" UINT64_FORMAT " output_bytes=" UINT64_FORMAT,
					rec->names ? rec->names : psprintf("role=%u", rec->userid),
					(int64) rec->code_id, rec->funcoid,
					sb_kind_names[kind], unpack_sql_state(rec->sqlstate),
					rec->wall_us / 1000.0, rec->cpu_us / 1000.0, rec->peak_kb,
					rec->rows_in, rec->bytes_in, rec->bytes_out),
			 !rec->log_code ? 0 : !code ?
			 errdetail_internal("code: as on an earlier line with code_id " INT64_FORMAT,
								(int64) rec->code_id) :
			 len <= SB_LOG_CODE_MAX ?
			 errdetail_internal("code:\n%s", rec->code) :
			 errdetail_internal("code (the first %d of its %zu bytes):\n%.*s", SB_LOG_CODE_MAX, len,
								pg_mbcliplen(rec->code, (int) Min(len, INT_MAX), SB_LOG_CODE_MAX),
								rec->code),
			 errhidestmt(true),
			 errhidecontext(true)));
}

/* The call of rec has ended (kind given, or judged from sqlstate). */
static void
sb_stat_end(SbCallRecord *rec, bool failed, int sqlstate)
{
	int			kind = rec->kind;

	if (rec->skip || !rec->has_code)
		return;					/* not a call, or its options were refused */
	if (failed && kind == SB_KIND_OK)
	{
		kind = sb_stat_kind_of(rec, sqlstate);
		rec->sqlstate = sqlstate;
	}
	if (!rec->ran)
		rec->wall_us = (uint64) (GetCurrentTimestamp() - rec->started);
	sb_stat_count(rec, kind);
	sb_stat_log(rec, kind);
}

static Datum
sb_stat_run(PGFunction fn, FunctionCallInfo fcinfo, bool counted)
{
	SbCallRecord rec;
	SbCallRecord *volatile outer = sb_current;
	MemoryContext cxt = CurrentMemoryContext;
	Datum		result;

	memset(&rec, 0, sizeof(rec));
	rec.skip = !counted;
	rec.userid = GetUserId();
	rec.started = GetCurrentTimestamp();
	rec.sqlstate = ERRCODE_SUCCESSFUL_COMPLETION;
	if (counted)
	{
		/* the current role's, after SET ROLE, where they log more (sb_role.c) */
		rec.log_calls = sb_role_log_calls();
		rec.log_code = sb_role_log_code();
	}
	if (counted && rec.log_calls != SB_LOG_CALLS_OFF)
		rec.names = sb_stat_names(rec.userid);
	sb_current = &rec;
	PG_TRY();
	{
		result = fn(fcinfo);
	}
	PG_CATCH();
	{
		int			sqlstate = geterrcode();
		MemoryContext errcxt = MemoryContextSwitchTo(cxt);

		sb_current = outer;
		sb_activity_publish(outer);
		/*
		 * Nothing here reads the catalogs or raises, but for running out of
		 * memory or the log itself; a lock of the table this backend held
		 * when the error came skips the count.
		 */
		sb_stat_end(&rec, true, sqlstate);
		MemoryContextSwitchTo(errcxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	sb_current = outer;
	sb_activity_publish(outer);
	sb_stat_end(&rec, rec.kind != SB_KIND_OK, rec.sqlstate);
	return result;
}

/*
 * Run an SQL entry point that runs code as one counted call.  Errors are
 * counted and logged on their way out, then raised again unchanged.
 */
Datum
sb_stat_wrap(PGFunction fn, FunctionCallInfo fcinfo)
{
	return sb_stat_run(fn, fcinfo, true);
}

/*
 * Run one that runs code but is not a call of its own (sandbox_validate):
 * its child is not the enclosing call's.
 */
Datum
sb_stat_wrap_uncounted(PGFunction fn, FunctionCallInfo fcinfo)
{
	return sb_stat_run(fn, fcinfo, false);
}

static void
sb_stat_require(void)
{
	if (sb_shared == NULL || sb_stat_hash == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pysandbox statistics need pysandbox in shared_preload_libraries"),
				 errhint("Add pysandbox to shared_preload_libraries in postgresql.conf and restart the server.")));
}

/* May the current role see other roles' rows? */
static bool
sb_stat_sees_all(void)
{
	return superuser() || has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
}

#define SB_STAT_COLS (16 + SB_KIND_COUNT)

/* pysandbox_stat(): one row per (role, database, code id). */
Datum
pysandbox_stat(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		all = sb_stat_sees_all();
	Oid			me = GetUserId();
	HASH_SEQ_STATUS seq;
	SbStatEntry *e;
	SbStatEntry *copies;
	long		room,
				n = 0,
				i;

	sb_stat_require();
	InitMaterializedSRF(fcinfo, 0);
	/* copied under the lock, turned into rows after it (which may raise) */
	/*
	 * Sized under the lock for the rows this role sees (an error here
	 * releases the lock, and sb_stat_count skips a lock it holds).
	 */
	LWLockAcquire(sb_shared->lock, LW_SHARED);
	room = 0;
	hash_seq_init(&seq, sb_stat_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (all || e->key.userid == me)
			room++;
	copies = palloc_extended(sizeof(SbStatEntry) * Max(room, 1), MCXT_ALLOC_HUGE);
	hash_seq_init(&seq, sb_stat_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		volatile SbStatEntry *v = e;

		if (n >= room)
		{
			hash_seq_term(&seq);
			break;
		}
		if (!all && e->key.userid != me)
			continue;
		SpinLockAcquire(&v->mutex);
		memcpy(&copies[n++], e, sizeof(SbStatEntry));
		SpinLockRelease(&v->mutex);
	}
	LWLockRelease(sb_shared->lock);

	for (i = 0; i < n; i++)
	{
		SbStatEntry *c = &copies[i];
		Datum		values[SB_STAT_COLS];
		bool		nulls[SB_STAT_COLS];
		int			col = 0,
					k;

		memset(nulls, 0, sizeof(nulls));
		values[col++] = ObjectIdGetDatum(c->key.userid);
		values[col++] = ObjectIdGetDatum(c->key.dbid);
		values[col++] = Int64GetDatum((int64) c->key.code_id);
		nulls[col] = !OidIsValid(c->funcoid);
		values[col++] = ObjectIdGetDatum(c->funcoid);
		values[col++] = Int64GetDatum(c->calls);
		for (k = 0; k < SB_KIND_COUNT; k++)
			values[col++] = Int64GetDatum(c->kinds[k]);
		values[col++] = Float8GetDatum(c->total_wall_ms);
		values[col++] = Float8GetDatum(c->calls > 0 ? c->total_wall_ms / c->calls : 0);
		values[col++] = Float8GetDatum(c->max_wall_ms);
		values[col++] = Float8GetDatum(c->total_cpu_ms);
		values[col++] = Int64GetDatum(c->max_peak_kb);
		values[col++] = Int64GetDatum(c->rows_in);
		values[col++] = Int64GetDatum(c->bytes_in);
		values[col++] = Int64GetDatum(c->bytes_out);
		values[col++] = TimestampTzGetDatum(c->first_call);
		values[col++] = TimestampTzGetDatum(c->last_call);
		values[col++] = CStringGetTextDatum(c->code);
		Assert(col == SB_STAT_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copies);
	return (Datum) 0;
}

/* pysandbox_stat_reset(): forget every entry. */
Datum
pysandbox_stat_reset(PG_FUNCTION_ARGS)
{
	HASH_SEQ_STATUS seq;
	SbStatEntry *e;

	sb_stat_require();
	LWLockAcquire(sb_shared->lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, sb_stat_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
		hash_search(sb_stat_hash, &e->key, HASH_REMOVE, NULL);
	sb_shared->reset = GetCurrentTimestamp();
	LWLockRelease(sb_shared->lock);
	PG_RETURN_VOID();
}

/*
 * pysandbox_activity(): the calls running now, cluster-wide, and the
 * children held idle between calls (a workspace's, a statement's), each
 * shown with its last call.
 */
Datum
pysandbox_activity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		all = sb_stat_sees_all();
	Oid			me = GetUserId();
	int			i,
				j;

	sb_stat_require();
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < sb_shared->nslots; i++)
	{
		volatile SbActivitySlot *s = &sb_shared->slots[i];
		SbActivitySlot c;
		Datum		values[10];
		bool		nulls[10];

		SpinLockAcquire(&s->mutex);
		c.pid = s->pid;
		c.userid = s->userid;
		c.dbid = s->dbid;
		c.code_id = s->code_id;
		c.funcoid = s->funcoid;
		c.child_pid = s->child_pid;
		c.cpu_base_us = s->cpu_base_us;
		c.started = s->started;
		c.backend_pid = s->backend_pid;
		c.backend_dbid = s->backend_dbid;
		for (j = 0; j < SB_MAX_HELD; j++)
			c.held[j] = s->held[j];
		SpinLockRelease(&s->mutex);
		if (c.pid != 0 && (all || c.userid == me))
		{
			uint64		cpu = c.child_pid > 0 ? sb_child_cpu_us(c.child_pid) : 0;

			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(c.pid);
			values[1] = ObjectIdGetDatum(c.userid);
			values[2] = ObjectIdGetDatum(c.dbid);
			values[3] = Int64GetDatum((int64) c.code_id);
			nulls[4] = !OidIsValid(c.funcoid);
			values[4] = ObjectIdGetDatum(c.funcoid);
			nulls[5] = c.child_pid <= 0;
			values[5] = Int32GetDatum(c.child_pid);
			values[6] = TimestampTzGetDatum(c.started);
			/* the call's own: a spare's setup and earlier calls left out (review 109) */
			nulls[7] = c.child_pid <= 0;
			values[7] = Float8GetDatum((cpu > c.cpu_base_us ? cpu - c.cpu_base_us : 0) / 1000.0);
			values[8] = CStringGetTextDatum("running");
			values[9] = TimestampTzGetDatum(c.started);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		for (j = 0; j < SB_MAX_HELD; j++)
		{
			SbActivityHeld *h = &c.held[j];

			/* a held child whose next call runs is that call's row */
			if (h->child_pid == 0 || (c.pid != 0 && h->child_pid == c.child_pid) ||
				(!all && h->userid != me))
				continue;
			/* one that ended while idle, before its backend heard of it (review 112 F4) */
			if (kill(h->child_pid, 0) != 0 && errno == ESRCH)
				continue;
			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(c.backend_pid);
			values[1] = ObjectIdGetDatum(h->userid);
			values[2] = ObjectIdGetDatum(c.backend_dbid);
			values[3] = Int64GetDatum((int64) h->code_id);
			nulls[4] = !OidIsValid(h->funcoid);
			values[4] = ObjectIdGetDatum(h->funcoid);
			values[5] = Int32GetDatum(h->child_pid);
			values[6] = TimestampTzGetDatum(h->started);
			values[7] = Float8GetDatum(h->cpu_ms);
			values[8] = CStringGetTextDatum(h->workspace ? "idle in workspace" : "idle in statement");
			values[9] = TimestampTzGetDatum(h->ended);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
