/*
 * pysandbox.h
 *		Declarations shared by the backend half of pysandbox.
 *
 * The backend half runs inside PostgreSQL and never links or runs Python.
 * It turns SQL arguments into request frames, moves table inputs into
 * columnar frames, supervises a sandboxed child through the worker, and
 * turns the child's (hostile) frames back into jsonb, notices and errors.
 */
#ifndef PYSANDBOX_H
#define PYSANDBOX_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "nodes/params.h"
#include "tcop/dest.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "portability/instr_time.h"

#include "../protocol/sb_protocol.h"

/* ---- sb_guc.c: settings ---- */
extern int	sb_timeout_ms;
extern int	sb_cpu_ms;
extern int	sb_memory_mb;
extern int	sb_max_output_bytes;
extern int	sb_max_figure_pixels;
extern int	sb_max_input_rows;
extern int	sb_max_input_mb;
extern char *sb_allowed_modules;
extern char *sb_preload_modules;
extern int	sb_print_mode;
extern int	sb_max_print_bytes;
extern bool sb_python_layer;
extern bool sb_allow_weak_isolation;
extern int	sb_filesystem_layer;
extern int	sb_max_concurrent;
extern int	sb_max_parallel;
extern int	sb_stream_threshold_kb;
extern int	sb_spare_children;
extern int	sb_queue_timeout_ms;
extern int	sb_max_workspaces;
extern int	sb_workspace_idle_timeout_ms;
extern char *sb_invalid_setting;
extern bool sb_setting_still_invalid(void);
extern bool sb_preload_modules_pending(void);
extern GucSource sb_setting_source(const char *name);
extern bool sb_invalid_setting_settable(void);

/* workspaces a session may hold at most (pysandbox.max_workspaces' maximum) */
#define SB_MAX_WORKSPACES 8

/* pysandbox.filesystem_layer */
typedef enum SbFilesystemLayer
{
	SB_FS_AUTO,
	SB_FS_LANDLOCK,
	SB_FS_MOUNT_NAMESPACE
} SbFilesystemLayer;

#define SB_PRINT_NOTICE		0
#define SB_PRINT_DISCARD	1

extern void sb_guc_init(void);
extern bool sb_split_modules(const char *value, List **names);

/* sb_modules.c */
extern bool sb_code_names_modules(const char *code, const char *modules);
extern bool sb_module_lists_differ(const char *a, const char *b);
extern int	sb_log_calls_value(const char *value);
extern bool sb_options_check(char **newval, void **extra, GucSource source);
extern void sb_options_assign(const char *newval, void *extra);

/* ---- sb_worker.c: "get me a sandbox" ---- */

/* how long cleanup waits for the worker to confirm a kill */
#define SB_CLEANUP_WAIT_MS			2000

/* one contained child, for one call */
struct SbLimits;

typedef struct SbSandbox
{
	int			data_fd;		/* our end of the child's data socket */
	int			mailbox_fd;		/* its mailbox (sb_protocol.h) */
	volatile SbMailbox *mailbox;	/* held: mapped, else NULL */
	int32		pid;			/* the child's pid, for messages only */
	bool		in_use;			/* acquired and not yet released */
	bool		exited;			/* the worker reported the child reaped */
	bool		from_reservation;	/* the worker reserved it for this session */
	bool		revoked;		/* ... and took it back before the call began */
	bool		preloaded;		/* a child of the preloaded process */
	SubTransactionId subid;		/* acquired in this subtransaction: its
								 * abort releases it (an outer one's not:
								 * sql() runs queries in subtransactions) */
	bool		held;			/* kept for its statement's next calls */
	bool		workspace;		/* held for a workspace: across statements */
	bool		in_call;		/* held, and a call of it is running */
	uint64		generation;		/* which holding of this slot */
	uint64		used;			/* held: when last called (a counter) */
	bool		stray;			/* held: bytes came after its last result */
	uint64		cpu_read_us;	/* held: when its CPU time was last read */
	SbExitReport exit;			/* valid once exited */
} SbSandbox;

extern SbSandbox *sb_sandbox_acquire(const SbSpawnRequest *req, bool allow_reserved,
									 const char *code);
extern void sb_sandbox_kill(SbSandbox *sb);
extern int	sb_sandbox_control_fd(void);
extern bool sb_sandbox_read_exit(SbSandbox *sb);
extern void sb_sandbox_release(SbSandbox *sb);
extern void sb_sandbox_detach(SbSandbox *sb);
extern void sb_sandbox_close_channel(SbSandbox *sb);
extern void sb_sandbox_abandon_worker(void);
extern uint64 sb_worker_epoch;
extern void sb_sandbox_poll_worker(void);
extern void sb_control_send_pid(uint32 type, int32 pid);
extern bool sb_sandbox_verdict(SbSandbox *sb, long timeout_ms, bool interruptible);

/* ---- sb_held.c: children held for a statement's next calls ---- */
extern SbSandbox *sb_sandbox_hold(SbSandbox *sb, bool workspace, bool many_calls);
extern void sb_sandbox_call_begin(SbSandbox *sb, const struct SbLimits *limits);
extern void sb_sandbox_call_idle(SbSandbox *sb);
extern uint64 sb_held_cpu_baseline(SbSandbox *sb);
extern void sb_held_shown(SbSandbox *sb, uint64 cpu_us);
extern bool sb_sandbox_held_ready(SbSandbox *sb);
typedef enum SbHeldState
{
	SB_HELD_WAITING,			/* for its next call */
	SB_HELD_WROTE,				/* between calls */
	SB_HELD_ENDED				/* sb->exit says how */
} SbHeldState;
extern SbHeldState sb_held_state(SbSandbox *sb);
extern void sb_sandbox_drop(SbSandbox *sb);
extern void sb_held_forget(void);
extern bool sb_held_exit_report(const SbExitReport *report);
extern void sb_held_released(SbSandbox *sb);
extern void sb_held_drop_all(void);
extern void sb_held_subxact_abort(SubTransactionId mySubid);
extern void sb_worker_init(void);
extern void sb_statements_init(void);
extern uint64 sb_statement_serial;
extern bool sb_sandbox_shared(void);
extern uint64 sb_sandbox_instance(void);
extern pid_t sb_worker_exec(const char *path, char *const *argv, int control_fd);

/* ---- sb_server.c: the cluster-wide fork server (shared_preload_libraries) ---- */
extern bool sb_server_preloaded;
extern void sb_server_register(void);
extern const char *sb_server_socket_path(void);
extern PGDLLEXPORT void sb_server_main(Datum arg);
extern uint32 sb_sandbox_layers(uint32 *landlock_abi);
extern const char *sb_preload_change(void);
extern const char *sb_sandbox_preloaded(void);

/* microseconds between 1970-01-01 and 2000-01-01 (PostgreSQL's epoch) */
#define SB_UNIX_OFFSET_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/* ---- sb_columns.c: executor values -> columnar buffers ---- */

/* a growable buffer that may pass 1 GB */
typedef struct SbBuf
{
	char	   *data;
	Size		len;
	Size		cap;
	MemoryContext cxt;
	struct SbMapping *map;		/* data's own mapping, once it is large */
} SbBuf;

typedef struct SbColumn
{
	char	   *name;
	Oid			typid;
	Oid			basetype;
	int			kind;			/* SbColumnKind */
	FmgrInfo	out;			/* output function, for text-form kinds */
	bool		fast_text;		/* text/varchar in a UTF-8 database */
	SbBuf		values;
	SbBuf		validity;
	SbBuf		offsets;		/* var kinds only */
	uint64		nulls;
	uint64		row_base;		/* rows of earlier row groups (a streamed
								 * input), for messages */
	int			argument;		/* for messages: SB_ARG_* if a function's
								 * argument, not a table input */
	bool		digits;			/* its values may print numerics (numeric,
								 * jsonb, arrays and rows of them) */
	Size		expansion;		/* what their print gained so far */
	bool		numeric_elements;	/* an array of numeric, as floats: each
									 * element within float64's range */
	bool		interval_text;	/* an array or composite holding intervals:
								 * their text in IntervalStyle postgres */
	bool		money_elements; /* an array of money: its amounts */
	bool		float4_elements;	/* an array of real: its elements as
									 * doubles, as a real scalar arrives */
} SbColumn;

/* what an SbColumn of a LANGUAGE pysandbox function's arguments holds */
#define SB_ARG_NONE 0			/* a table input's column */
#define SB_ARG_SCALAR 1			/* the argument */
#define SB_ARG_FIELD 2			/* a field of a composite argument */
#define SB_ARG_ELEMENT 3		/* a field of an array of composites' elements */

struct SbRequest;
extern int	sb_input_kind(Oid typid, bool numeric_decimal);
extern bool sb_is_money(Oid typid);
extern Datum sb_money_array_amounts(Datum d);
extern bool sb_prints_numeric(Oid typid, int depth);
/* does typid, or a type it holds, satisfy is() (sb_rows.c) */
extern bool sb_type_holds(Oid typid, int depth, bool (*is) (Oid base, int depth));

/* ---- sb_slowinput.c: how a type's values are held to bounded parsing ---- */
typedef enum SbSlowInput
{
	SB_SLOW_NONE = 0,
	SB_SLOW_QUERY,				/* a tsquery, query_int, ltxtquery, lquery in it */
	SB_SLOW_XML,				/* xml itself, or a domain over it */
	SB_SLOW_XML_INSIDE			/* xml in an array, range or composite */
} SbSlowInput;
extern int	sb_slow_input(Oid typid);
extern void sb_check_slow_input(int kind, Oid typid, const char *text, Size len,
								const char *what);
extern int	sb_builds_elements(Oid typid);
extern Datum sb_build_input(FmgrInfo *flinfo, char *str, Size len, Oid typid, Oid typioparam,
							int32 typmod, int per_byte, const char *what);
extern bool sb_kind_is_var(int kind);
extern char *sb_alloc_large(MemoryContext cxt, Size size);
extern void sb_column_argument(SbColumn *c, int argument);
/* sb_params.c: a query parameter's text; sb_names.c: a missing table's names */
extern char *sb_param_text(JsonbValue *v, Oid type, int i, const char *what, bool *isnull);
extern char sb_money_point(void);
extern bool sb_prints_interval(Oid typid);
extern char *sb_missing_hint(const char *query, int cursorpos);
extern char *sb_columns_hint(const char *query, int cursorpos);
extern const char *sb_foreign_placeholder(const char *query);
extern void sb_column_init(SbColumn *c, const char *name, Oid typid,
						   bool numeric_decimal, MemoryContext cxt);
extern void sb_column_append(SbColumn *c, Datum d, bool isnull, uint64 row,
							 const char *input);
extern Size sb_column_size(const SbColumn *c);
extern void sb_column_rewind(SbColumn *c, uint64 nrows);
extern void sb_column_add_frame(struct SbRequest *req, SbColumn *c, uint64 nrows);
extern const char *sb_kind_name(int kind);

/* ---- sb_inputs.c: inputs jsonb -> request frames ---- */

/* a buffer to send: a frame header plus up to three payload pieces */
typedef struct SbChunk
{
	const char *data;
	size_t		len;
} SbChunk;

/* The limits options can lower (sb_options.c), in the order of sb_limit_info. */
typedef enum SbLimitId
{
	SB_LIMIT_TIMEOUT,
	SB_LIMIT_CPU,
	SB_LIMIT_MEMORY,
	SB_LIMIT_OUTPUT,
	SB_LIMIT_INPUT_ROWS,
	SB_LIMIT_INPUT_SIZE,
	SB_NLIMITS
} SbLimitId;

typedef struct SbLimitInfo
{
	const char *key;			/* its name in options and pysandbox.options */
	const char *setting;		/* the setting it is lowered from */
	int			least;			/* the smallest value options may give */
} SbLimitInfo;

extern const SbLimitInfo sb_limit_info[SB_NLIMITS];

/* What set a limit of a call: for the hint of an error that hit it. */
typedef enum SbLimitSetBy
{
	SB_SET_BY_SETTING,			/* pysandbox.timeout, ... */
	SB_SET_BY_ROLE,				/* the current role's stored value (sb_role.c) */
	SB_SET_BY_OPTIONS_SETTING,	/* pysandbox.options lowered it */
	SB_SET_BY_ROLE_OPTIONS,		/* ... the one stored for the current role */
	SB_SET_BY_OPTIONS,			/* the call's options lowered it */
	SB_SET_BY_WORKSPACE			/* the workspace's (sandbox_workspace_open) */
} SbLimitSetBy;

/* ---- sb_role.c: the current role's stored settings, after SET ROLE ---- */

/* the integer settings it can lower: SbLimitId's, then these */
#define SB_ROLE_FIGURE_PIXELS	SB_NLIMITS
#define SB_ROLE_MAX_WORKSPACES	(SB_NLIMITS + 1)
#define SB_ROLE_MAX_PARALLEL	(SB_NLIMITS + 2)
#define SB_ROLE_NINTS			(SB_NLIMITS + 3)
typedef int SbRoleInt;

extern int	sb_role_int(SbRoleInt i);
extern bool sb_role_lowered(SbRoleInt i);
extern const char *sb_role_options(void);
extern const char *sb_role_name(void);
extern void sb_role_login_items(void (*take) (const char *item));
extern const char *sb_role_allowed_modules(void);
extern bool sb_role_python_layer(void);
extern int	sb_role_log_calls(void);
extern bool sb_role_log_code(void);

/* what a login gets before stored values (sb_guc.c): a switch's base */
extern int	sb_base_int[SB_ROLE_NINTS];
extern bool sb_base_python_layer;
extern int	sb_base_log_calls;
extern bool sb_base_log_code;
extern char *sb_base_allowed_modules;

struct SbWorkspace;

typedef struct SbLimits
{
	int			timeout_ms;
	int			cpu_ms;
	int			memory_mb;
	int			max_output_bytes;
	int			max_input_rows;
	int			max_input_mb;
	bool		numeric_decimal;	/* options.numeric = "decimal" */
	char	   *verify;			/* options.verify: assertions, or NULL */
	struct SbWorkspace *workspace;	/* options.workspace: the call runs in
									 * it, or NULL */
	uint64		workspace_id;	/* ... which must still be that one */
	List	   *group_by;		/* options.group_by: key column names, or NIL */
	int			parallel;		/* options.parallel: groups at once (1) */
	/* per SbLimitId */
	int			setting[SB_NLIMITS];	/* the setting's value */
	int			allowed[SB_NLIMITS];	/* most the call's options could ask */
	SbLimitSetBy set_by[SB_NLIMITS];
	char		role[NAMEDATALEN];	/* the role of SB_SET_BY_ROLE, for hints */
} SbLimits;

/*
 * print() output relayed as NOTICEs, counted against its caps: per call, or
 * across the calls of one group_by call's groups in one process.
 */
typedef struct SbPrints
{
	uint64		notices;		/* prints relayed as NOTICEs */
	uint64		kept_bytes;		/* printed bytes relayed or kept */
	uint64		not_shown;		/* prints past the caps */
	uint64		not_shown_bytes;
} SbPrints;

typedef struct SbRequest
{
	bool		numeric_decimal;	/* numeric inputs as Decimal */
	StringInfoData json;		/* the REQUEST payload being built */
	List	   *chunks;			/* SbChunk *, in sending order */
	uint64		input_rows;
	uint64		input_bytes;
	bool		rows_mode;		/* sandbox_rows: columns come back, not jsonb */
	bool		capture_output; /* sandbox_run: keep prints, do not relay */
	SbPrints   *prints;			/* relayed prints counted here, or NULL: per
								 * call (group_by: all groups') */
	int			rows_ncols;		/* how many columns */
	bool		python_layer;	/* pysandbox.python_layer when it was built */
	char	   *allowed_modules;	/* pysandbox.allowed_modules then */
	bool		validated;		/* the child may skip the validator (sb_main.c) */
	const char *code;			/* the code, to choose the child's process
								 * (sb_worker.c); NULL: any */
	bool		function;		/* a LANGUAGE pysandbox function's or DO
								 * block's call: errors speak of arguments */
	bool		hold;			/* keep the child for the statement's next
								 * calls (the language, sb_language.c) or
								 * the call's next group (sb_groups.c) */
	bool		many_calls;		/* a child for many calls (a workspace's,
								 * a group_by call's): SB_SPAWN_WORKSPACE,
								 * and CPU time to collect between them */
	SbSandbox  *held;			/* run on this held child: the chunks are
								 * SB_DATA_CALL and the arguments (or a
								 * whole request) */
	SbLimits	limits;			/* the call's, for the input budget */
	struct SbWorkspace *workspace;	/* runs in this workspace, or NULL */
	uint64		workspace_id;	/* ... as long as it is still this one */
	/* options.group_by (sb_groups.c): the one table input, not yet run */
	List	   *group_by;
	char	   *group_input;	/* its name, once sb_request_finish saw it */
	char	   *group_query;
	JsonbValue *group_params;
	char	   *group_payload;	/* the REQUEST frame's payload (UTF-8) */
	Size		group_payload_len;
	/* streamed table inputs (sb_stream.c) */
	bool		stream_ok;		/* the call may stream its large inputs */
	List	   *streams;		/* SbStreamInput *, sent after the others */
	struct SbStreamRun *stream;	/* while the call runs: what is sent next */
	/*
	 * frames that arrive while the call runs from elsewhere (a partition's
	 * rows, sb_parallel.c): the next ones, NIL once pull_ended
	 */
	List	   *(*pull) (struct SbRequest *req);
	void	   *pull_arg;
	bool		pull_ended;
	/*
	 * while sql() is answered: the child that asked, to which a large
	 * answer's row groups go as its query runs (sb_sql_send_now); torn: a
	 * row group was cut short by an error, and nothing more can follow;
	 * sent: a row group went out (or began to), and its rows count
	 */
	SbSandbox  *answering;
	bool		sql_torn;
	bool		sql_sent;
	/* options.parallel's partitions (sb_groups.c): the call's rows are on
	 * its held child; never run it again on a fresh one */
	bool		partitioned;
} SbRequest;

/* at most this many columns in options.group_by */
#define SB_MAX_GROUP_KEYS	8
/* at most this many groups at once (options.parallel) */
#define SB_MAX_PARALLEL		64
/* the largest request or outcome sent through a parallel worker's queue */
#define SB_PARALLEL_MAX_MESSAGE	((Size) 512 * 1024 * 1024)

extern void sb_inputs_encode(SbRequest *req, Jsonb *inputs);
extern void sb_input_limit_error(const SbLimits *lim, SbLimitId which, const char *input,
								 const char *group) pg_attribute_noreturn();
extern void sb_request_add_table(SbRequest *req, const char *name, SbColumn *cols,
								 int ncols, uint64 nrows);
extern void sb_request_add_table_header(SbRequest *req, const char *name, SbColumn *cols,
										int ncols, int64 nrows);

/*
 * A DestReceiver filling one column buffer per result column (sb_inputs.c),
 * within the call's input budget.
 */
typedef struct SbReceiver
{
	DestReceiver pub;
	SbRequest  *req;
	const char *input;			/* the input's name, for messages */
	int			ncols;
	SbColumn   *cols;
	uint64		nrows;
	MemoryContext cxt;			/* where the buffers live */
	MemoryContext rowcxt;		/* per-row output function garbage */
	struct SbGroupScan *group;	/* options.group_by: each group is run as
								 * soon as its last row is in (sb_groups.c);
								 * cxt is then the group's alone */
	TupleDesc	typeinfo;		/* group_by: the columns, for the next group */
	bool		stream;			/* a streamed input (sb_stream.c): the
								 * columns are made once, not per run */
} SbReceiver;
extern SbReceiver *sb_receiver_new(SbRequest *req, const char *input, MemoryContext cxt);
extern void sb_receiver_columns(SbReceiver *r, TupleDesc typeinfo);

/* ---- sb_stream.c: large table inputs sent while their queries run ---- */
struct SbOutcome;
struct _SPI_plan;
extern bool sb_stream_wanted(SbRequest *req, struct _SPI_plan *plan);
extern void sb_stream_add(SbRequest *req, const char *name, const char *query,
						  JsonbValue *params);
extern List *sb_stream_next(SbRequest *req);
extern bool sb_stream_large(struct _SPI_plan *plan);
extern void sb_sql_stream(SbRequest *req, struct _SPI_plan *plan, ParamListInfo paramLI,
						  MemoryContext cxt);
extern void sb_sql_send_now(SbRequest *req);
extern bool sb_stream_over(const SbRequest *req);
extern const char *sb_stream_current(const SbRequest *req);
extern char *sb_stream_timeout_detail(const char *input);
extern bool sb_stream_fetching;
extern bool sb_describing;
extern void sb_call_streamed(SbRequest *req, const SbLimits *limits, struct SbOutcome *out);
extern bool sb_sql_active;
extern List *sb_sql_answer(SbRequest *req, char *payload, Size len, long ms_left,
						   int *answered_errcode);
extern bool sb_inputs_check(Jsonb *inputs);
extern void sb_sql_hooks_init(void);
/* sb_inputs.c's, for sb_sql.c */
extern void sb_table_input(SbRequest *req, const char *name, const char *query, JsonbValue *params);
extern JsonbValue *sb_get_key(JsonbContainer *obj, const char *key);
/* sb_sql.c's, for sb_inputs.c */
struct _SPI_plan;
extern Oid	sb_plan_volatile_function(struct _SPI_plan *plan);
extern Oid	sb_type_volatile_function(Oid typid);
extern void sb_refuse_volatile(Oid fn) pg_attribute_noreturn();
extern void sb_rolled_back(void (*fn) (void *arg), void *arg);

/* one table input's query, run by sb_rolled_back() for a call or a description */
typedef struct SbTableJob
{
	struct SbRequest *req;		/* a call's request, or NULL */
	struct SbDescribe *d;		/* sandbox_describe's, or NULL */
	const char *name;
	const char *query;
	JsonbValue *params;
	struct SbGroupScan *group;	/* options.group_by's scan, or NULL */
} SbTableJob;
extern void sb_table_input_context(void *arg);
extern void sb_push_input_context(ErrorContextCallback *cb, const char *name);
extern struct _SPI_plan *sb_table_prepare(const char *name, const char *query,
										  JsonbValue *params, ParamListInfo *paramLI);
extern struct CachedPlan *sb_table_plan(struct _SPI_plan *plan);
extern struct _SPI_plan *sb_table_prepare_with(const char *name, const char *query,
											   JsonbValue *params, ParamListInfo *paramLI,
											   int cursor_options);

/* ---- sb_groups.c: options.group_by ---- */
struct SbGroupScan;
struct SbRowsOut;
extern void sb_table_input_grouped(SbRequest *req, const char *query, struct SbGroupScan *group);
extern char *sb_group_query(struct SbGroupScan *gs, TupleDesc desc, const char *query,
							 bool ordered);
extern TupleDesc sb_group_columns(struct SbGroupScan *gs, TupleDesc typeinfo);
extern bool sb_group_same_key(struct SbGroupScan *gs, TupleTableSlot *slot);
extern void sb_group_begin(struct SbGroupScan *gs, TupleTableSlot *slot);
extern void sb_group_flush(struct SbGroupScan *gs, SbColumn *cols, int ncols, uint64 nrows);
extern const char *sb_group_describe(struct SbGroupScan *gs);
extern void sb_groups_drain(struct SbGroupScan *gs);
extern void sb_group_check_parallel(struct SbGroupScan *gs, struct _SPI_plan *plan);
extern bool sb_group_partition(struct SbGroupScan *gs, struct _SPI_plan *plan);
extern bool sb_group_partitioned(struct SbGroupScan *gs);
extern void sb_group_route(struct SbGroupScan *gs, TupleTableSlot *slot);
extern void sb_group_partition_columns(struct SbGroupScan *gs, TupleDesc typeinfo);

/* the child a group_by call keeps for its next group (leader or worker) */
typedef struct SbGroupChild
{
	SbSandbox  *held;			/* NULL: none */
	uint64		generation;		/* held->generation when it was kept */
} SbGroupChild;
struct SbOutcome;
extern void sb_group_call(SbGroupChild *gc, SbRequest *g, const struct SbLimits *lim,
						  struct SbOutcome *out);
extern void sb_group_child_drop(SbGroupChild *gc);

/* ---- sb_parallel.c: options.parallel, groups in parallel workers ---- */
struct SbGroupPool;
extern struct SbGroupPool *sb_pool_start(int nworkers);
extern int	sb_pool_want(int parallel);
extern bool sb_in_group_worker;
extern int	sb_pool_size(struct SbGroupPool *pool);
extern int	sb_pool_idle(struct SbGroupPool *pool);
extern void sb_pool_send(struct SbGroupPool *pool, int worker, const SbRequest *g,
						 const SbLimits *lim, const char *described, const char *input);
struct SbOutcome;
extern void sb_pool_receive(struct SbGroupPool *pool, int worker, struct SbOutcome *out);
extern bool sb_pool_receive_now(struct SbGroupPool *pool, int worker, struct SbOutcome *out,
								bool wait);
extern void sb_pool_finish(struct SbGroupPool *pool);
extern bool sb_pool_fits(const SbRequest *g);
extern void sb_pool_send_load(struct SbGroupPool *pool, int worker, const SbRequest *g,
							  const SbLimits *lim, const char *described, const char *input);
extern void sb_pool_send_piece(struct SbGroupPool *pool, int worker, List *chunks, bool last);
extern bool sb_pool_busy(struct SbGroupPool *pool, int worker);
struct SbOutcome;
extern Jsonb *sb_groups_run(SbRequest *base, const struct SbLimits *limits, ArrayType *returns,
							struct SbRowsOut *rows, const char *func, Tuplestorestate *store,
							bool report, struct SbOutcome *usage);

/* ---- sb_describe.c: sandbox_describe ---- */
typedef struct SbDescribe
{
	StringInfo	out;			/* the description being written */
	int			sample;			/* rows to show of each table input */
	bool		numeric_decimal;
} SbDescribe;

extern void sb_inputs_describe(Jsonb *inputs, SbDescribe *d);
extern void sb_describe_table(SbDescribe *d, const char *name, const char *query,
							  JsonbValue *params);
extern void sb_describe_value(SbDescribe *d, const JsonbValue *v);
extern void sb_request_add_frame(SbRequest *req, uint32 type,
								 const char *p1, size_t l1,
								 const char *p2, size_t l2,
								 const char *p3, size_t l3);
extern bool sb_is_identifier(const char *s);

/* ---- sb_call.c: one call, start to end ---- */


#define SB_SQL_ERRCODES 8

typedef struct SbOutcome
{
	/* at most one of result / error / violation is set by the child */
	char	   *result;			/* RESULT payload, NUL-terminated */
	Size		result_len;
	char	   *error;			/* ERROR payload (JSON), NUL-terminated */
	Size		error_len;
	bool		violation;
	SbViolation violation_info;
	int			where_line;		/* SB_DATA_WHERE: the line a limit stopped
								 * the code at (0: none), its function */
	char		where_function[sizeof(((SbWhere *) 0)->function)];
	StringInfo	stdout_text;	/* sandbox_run: captured print() output */
	StringInfo	stderr_text;	/* sandbox_run: captured sys.stderr output */
	char	   *rows_header;	/* sandbox_rows: ROWS payload (uint64) */
	List	   *rows_columns;	/* sandbox_rows: SbChunk per COLUMN frame */
	bool		output_exceeded;	/* the backend cut the child off */
	bool		protocol_error; /* the child broke the frame protocol */
	bool		cut;			/* its output ended in the middle of a frame */
	bool		worker_lost;	/* the worker died or stopped answering */
	bool		preloaded;		/* the child had pysandbox.preload_modules */
	struct ErrorData *input_error;	/* sandbox_run: a table input failed;
									 * nothing ran */
	bool		complete;		/* a complete result, then the end of the
								 * output: a success whatever the exit */
	bool		detached;		/* complete result taken without waiting for
								 * the exit: exit holds only wall_us */
	SbSandbox  *held;			/* req->hold: the child kept for the next
								 * calls, or NULL */
	const char *streaming;		/* a streamed input still being sent when the
								 * call ended (sb_stream.c), or NULL */
	bool		held_closed;	/* req->held sent nothing and ended (not at a
								 * limit): it closed its channel or exited */
	bool		held_evicted;	/* req->held sent nothing: the worker took it
								 * back for a waiting call as this call began
								 * (SB_EXIT_EVICTED): nothing of the call ran */
	const char *workspace_ended;	/* the call's workspace ended with its
									 * child: its handle, else NULL */
	SbExitReport exit;
	uint64		call_cpu_us;	/* CPU time of this call (exit's is the
								 * child's whole life) */
	Jsonb	   *grouped;		/* options.group_by: the call's result */
	bool		partition_lost; /* req->partitioned, but its child is gone */
	/* the SQLSTATEs the backend answered this call's sql() queries with:
	 * the only ones an uncaught SQLError may end the call with */
	int			sql_errcodes[SB_SQL_ERRCODES];
	int			n_sql_errcodes;
} SbOutcome;

extern void sb_limits_from_options(SbLimits *limits, Jsonb *options);

/* ---- sb_workspace.c: workspaces ---- */
extern void sb_workspace_enter(SbLimits *limits, const char *handle);
extern void sb_workspace_request(SbRequest *req);
extern void sb_workspace_after_call(SbRequest *req, SbOutcome *out);
extern void sb_workspace_discard_all(void);
extern void sb_workspace_ended_by(const char *handle, const char *message);
extern char *sb_workspace_why(const SbExitReport *ex);
extern bool sb_workspace_ended_idle(const SbExitReport *ex);
extern char *sb_limit_hint(const char *advice, const SbLimits *limits, SbLimitId i);
extern void sb_call_run(SbRequest *req, const SbLimits *limits, SbOutcome *out);
extern void sb_prints_report(const SbPrints *p);

/* ---- sb_main.c: building requests ---- */
extern void sb_check_args(FunctionCallInfo fcinfo, const char *function, int first,
						  const char *const *names);
extern void sb_request_start(SbRequest *req, const char *code, ArrayType *returns,
							 const SbLimits *limits);
extern void sb_request_finish(SbRequest *req, Jsonb *inputs);
extern struct ErrorData *sb_request_finish_or_error(SbRequest *req, Jsonb *inputs);
/* sb_rows.c: rows results (sandbox_rows, the language) */
typedef struct SbRowsOut SbRowsOut;
extern SbRowsOut *sb_rows_declare(SbRequest *req, TupleDesc tupdesc, MemoryContext cache_cxt);
extern bool sb_rows_parallel_safe(const SbRowsOut *ro);
extern uint64 sb_rows_receive(SbRowsOut *ro, const SbOutcome *out, const SbLimits *limits,
							  const char *func, Tuplestorestate *store,
							  Datum *values, bool *nulls);
extern int	sb_private_debug_level(void);
extern void sb_report_usage(const SbRequest *req, const SbOutcome *out);
extern bool sb_request_validate(SbRequest *req, const char *code, Jsonb *inputs,
								const SbLimits *limits, SbOutcome *out);
extern void sb_validated_note(const SbRequest *req, const char *code, const SbOutcome *out);
extern void sb_run_functions(const char *code, Jsonb *inputs, ArrayType *returns,
							 Jsonb *options, bool capture_output, SbRequest *req,
							 SbLimits *limits, SbOutcome *out);
extern int	sb_fixed_kind(Oid basetype);

/* ---- sb_result.c: outcome -> jsonb or error ---- */

/* what went wrong in a call, as an error or as sandbox_run's report */
typedef struct SbFailure
{
	int			sqlstate;
	const char *kind;			/* report kind, or NULL: a server fault */
	char	   *type;			/* Python exception type, or "" */
	char	   *message;		/* the error's primary message */
	char	   *report_message; /* the report's message (Python's own text) */
	char	   *detail;
	char	   *hint;
	char	   *context;
	char	   *traceback;
	char	   *rule;
	char	   *findings;		/* every validator finding (JSON), or NULL */
	int			line;			/* -1 if unknown */
	int			col;
	int			position;		/* kind "input": where in the query, or 0 */
	const char *workspace_ended;	/* the handle of the workspace this call
									 * ended, or NULL */
} SbFailure;

/* sb_workspace.c: sandbox_run's report of an ended workspace */
extern bool sb_workspace_unusable(const char *handle, SbFailure *f);

/* sb_json_check(): what is wrong with JSON text from the child, if anything */
typedef enum SbJsonCheck
{
	SB_JSON_VALID,
	SB_JSON_INVALID,			/* not UTF-8, or not JSON */
	SB_JSON_TOO_DEEP,			/* nested deeper than PostgreSQL should parse */
	SB_JSON_NUMBER_RANGE,		/* a number numeric cannot hold */
	SB_JSON_TOO_BIG,			/* too large to build as jsonb */
	SB_JSON_NUMBERS_TOO_LONG,	/* its numbers would print as too many
								 * digits (1e131071) */
	SB_JSON_NUL,				/* a string holds \u0000, which text cannot */
	SB_JSON_SURROGATE			/* a string holds half a surrogate pair */
} SbJsonCheck;

extern bool sb_outcome_failure(const SbOutcome *out, const SbLimits *limits, SbFailure *f);
extern bool sb_result_failure(const SbOutcome *out, SbFailure *f);
/* sb_run.c: sandbox_run's report */
extern bool sb_run_split(const SbOutcome *out, char **returns, char **figures, SbFailure *f);
extern void sb_run_error_json(StringInfo r, const SbFailure *f);
extern void sb_run_report(StringInfo r, bool failed, const SbFailure *f, const SbOutcome *out,
						  uint64 input_rows, uint64 input_bytes, const char *returns,
						  const char *figures);
extern Jsonb *sb_result_jsonb(const SbOutcome *out);

/* ---- sb_json.c: the child's JSON, checked and built into jsonb ---- */
/* the digits a result's numbers may gain in print, in all (sb_json.c) */
#define SB_NUMBER_MAX_EXPANSION	((Size) 16 << 20)

/*
 * The most text a value holding jsonb inside an array or composite (or a
 * jsonpath) may take: jsonb_in builds up to ~220 times its text (a flood
 * of "{}"), ~56 MB and some 50 ms here, without a check for cancel.
 */
#define SB_NESTED_JSON_MAX_TEXT	(256 << 10)
/* the text of a value whose input function is quadratic (sb_slow_input) */
#define SB_SLOW_INPUT_MAX_TEXT	(16 << 10)
/* an xml value's text, and what it may hold past 16 kB (sb_xml_complexity) */
#define SB_XML_MAX_TEXT			(256 << 10)
#define SB_XML_MAX_EQUALS		1024
#define SB_XML_MAX_NAMESPACES	256
extern SbJsonCheck sb_json_check(char *text, Size len);
extern Size sb_json_expansion(const char *text, Size len);
extern Size sb_number_expansion(const char *text, Size len);
extern bool sb_json_ok(char *text, Size len);
extern Size sb_jsonb_limit(Size len);
extern Jsonb *sb_jsonb_build(char *text, Size len, Size limit);
extern Jsonb *sb_jsonb_build_lossy(char *text, Size len, Size limit);
extern char *sb_json_nul_shown(char *text, Size *len);
extern Jsonb *sb_jsonb_build_encodable(char *text, Size len, Size limit, bool *untranslatable);
extern void sb_json_failure(SbJsonCheck problem, const char *what, SbFailure *f);
extern void sb_raise_failure(const SbFailure *f);
extern void sb_check_outcome(const SbOutcome *out, const SbLimits *limits);
extern Jsonb *sb_result_to_jsonb(const SbOutcome *out, const SbLimits *limits);
extern void sb_emit_print(const char *text, Size len);
extern char *sb_printable(const char *s);
extern void sb_error_printable(ErrorData *edata);
extern bool sb_text_ok(const char *text, Size len);
extern char *sb_to_server_lossy(const char *text, Size len);
extern char *sb_try_to_server(const char *text, int len);
extern void sb_catch_untranslatable(MemoryContext cxt);


/* ---- sb_stat.c: pysandbox_stat, pysandbox_activity, pysandbox.log_calls ---- */
extern int	sb_stat_max;
extern int	sb_log_calls;
extern bool sb_log_code;

#define SB_LOG_CALLS_OFF	0
#define SB_LOG_CALLS_ERRORS	1
#define SB_LOG_CALLS_ALL	2

/* how a call ended: ok, or sandbox_run's error.kind */
typedef enum SbKind
{
	SB_KIND_OK,
	SB_KIND_VALIDATION,
	SB_KIND_EXCEPTION,
	SB_KIND_TIMEOUT,
	SB_KIND_CPU,
	SB_KIND_MEMORY,
	SB_KIND_OUTPUT,
	SB_KIND_VIOLATION,
	SB_KIND_CRASH,
	SB_KIND_INPUT,
	SB_KIND_BUSY,				/* no slot (max_concurrent): the view and log only */
	SB_KIND_COUNT
} SbKind;

/* one call in flight through sb_stat_wrap() */
typedef struct SbCallRecord
{
	bool		skip;			/* not counted (sandbox_validate) */
	char	   *names;			/* role, session role and database for the
								 * audit line, read when the call began */
	int			log_calls;		/* pysandbox.log_calls and log_code then */
	bool		log_code;
	Oid			userid;
	TimestampTz started;
	bool		has_code;		/* code_id, funcoid and code are set */
	uint64		code_id;
	Oid			funcoid;		/* a language function's, else InvalidOid */
	const char *code;
	int32		child_pid;
	uint64		cpu_base_us;	/* child_pid's CPU time when the call took it */
	bool		ran;			/* a child ran: usage below is set */
	uint64		wall_us;
	uint64		cpu_us;
	uint64		peak_kb;
	uint64		rows_in;
	uint64		bytes_in;
	uint64		bytes_out;
	int			kind;			/* SbKind judged by pysandbox, or OK */
	int			sqlstate;
} SbCallRecord;

extern void sb_stat_init(void);
extern bool sb_stat_available(void);
extern Datum sb_stat_wrap(PGFunction fn, FunctionCallInfo fcinfo);
extern Datum sb_stat_wrap_uncounted(PGFunction fn, FunctionCallInfo fcinfo);
extern void sb_stat_code(const char *code, Oid funcoid);
extern void sb_stat_child(int32 pid, uint64 cpu_base_us);
extern void sb_stat_held(int i, int32 pid, bool workspace, uint64 cpu_us);
extern void sb_stat_usage(const SbRequest *req, const SbOutcome *out, uint64 output_bytes);
extern void sb_stat_failure(const char *kind, int sqlstate);
extern uint64 sb_child_cpu_us(int32 pid);
extern uint64 sb_child_peak_kb(int32 pid);

#endif							/* PYSANDBOX_H */
