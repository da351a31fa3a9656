/*
 * sb_guc.c
 *		pysandbox.* settings.
 *
 * Limits are PGC_SUSET: a role cannot raise its own; an administrator can
 * set them per role with ALTER ROLE ... SET.  pysandbox.options and a
 * call's options can only lower them (sb_options.c).
 */
#include "pysandbox.h"

#include <limits.h>
#include <unistd.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"

int			sb_timeout_ms = 10000;
int			sb_cpu_ms = 10000;
int			sb_memory_mb = 512;
int			sb_max_output_bytes = 16 * 1024 * 1024;
int			sb_max_figure_pixels = 4000000;
int			sb_max_input_rows = 10000000;
int			sb_max_input_mb = 512;
char	   *sb_allowed_modules = NULL;
int			sb_print_mode = SB_PRINT_NOTICE;
int			sb_max_print_bytes = 64 * 1024;
bool		sb_python_layer = true;
bool		sb_allow_weak_isolation = false;
int			sb_filesystem_layer = SB_FS_AUTO;
char	   *sb_preload_modules = NULL;
char	   *sb_options_text = NULL;
int			sb_max_concurrent = 16;
int			sb_max_parallel = 4;
int			sb_stream_threshold_kb = 1024;
int			sb_spare_children = 2;
int			sb_queue_timeout_ms = 10000;
int			sb_max_workspaces = 4;
int			sb_workspace_idle_timeout_ms = 600000;

/*
 * What the worker's preloaded process imports (src/worker/sb_preloaded.c):
 * nothing by default.  Only the calls whose code names one of these
 * packages fork from that process, and pay for its larger address space
 * (doc/performance.md); nothing is preloaded unless an administrator asks.
 */
#define SB_DEFAULT_PRELOAD ""

#define SB_DEFAULT_MODULES \
	"math, statistics, json, datetime, decimal, fractions, re, collections, " \
	"itertools, functools, random, string, textwrap, heapq, bisect, calendar, " \
	"dataclasses, typing, enum, io, base64, struct, zlib, " \
	"time, zoneinfo, operator, copy, abc, warnings, pprint, unicodedata, hashlib, " \
	"uuid, sys, traceback, logging, difflib, urllib.parse, ipaddress, html, " \
	"colorsys, cmath, numbers, contextlib, " \
	"dateutil.relativedelta, dateutil.parser, numpy, pandas, matplotlib"

static const struct config_enum_entry sb_print_options[] = {
	{"notice", SB_PRINT_NOTICE, false},
	{"discard", SB_PRINT_DISCARD, false},
	{NULL, 0, false}
};

static const struct config_enum_entry sb_log_calls_options[] = {
	{"off", SB_LOG_CALLS_OFF, false},
	{"errors", SB_LOG_CALLS_ERRORS, false},
	{"all", SB_LOG_CALLS_ALL, false},
	{"false", SB_LOG_CALLS_OFF, true},
	{"true", SB_LOG_CALLS_ALL, true},
	{"no", SB_LOG_CALLS_OFF, true},
	{"yes", SB_LOG_CALLS_ALL, true},
	{NULL, 0, false}
};

static const struct config_enum_entry sb_filesystem_options[] = {
	{"auto", SB_FS_AUTO, false},
	{"landlock", SB_FS_LANDLOCK, false},
	{"mount_namespace", SB_FS_MOUNT_NAMESPACE, false},
	{NULL, 0, false}
};

/*
 * Split a module allowlist ("math, numpy, pandas.api") into a List of
 * palloc'd names.  Names are case-sensitive dotted Python identifiers;
 * empty elements are errors.  Returns false if the list is malformed.
 */
bool
sb_split_modules(const char *value, List **names)
{
	const char *p = value;

	*names = NIL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0')
		return true;			/* an empty list: nothing may be imported */

	for (;;)
	{
		const char *start;
		bool		ident_start = true;

		while (*p == ' ' || *p == '\t')
			p++;
		start = p;
		for (; *p && *p != ',' && *p != ' ' && *p != '\t'; p++)
		{
			bool		letter = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_';
			bool		digit = *p >= '0' && *p <= '9';

			if (*p == '.' && !ident_start)
				ident_start = true;
			else if (letter || (digit && !ident_start))
				ident_start = false;
			else
				return false;
		}
		if (p == start || ident_start)
			return false;		/* empty element, or ending in "." */
		*names = lappend(*names, pnstrdup(start, p - start));
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return true;
		if (*p != ',')
			return false;		/* "math json": a missing comma */
		p++;
	}
}

/* The value of pysandbox.log_calls a valid string names. */
int
sb_log_calls_value(const char *value)
{
	const struct config_enum_entry *e;

	for (e = sb_log_calls_options; e->name != NULL; e++)
		if (pg_strcasecmp(e->name, value) == 0)
			return e->val;
	return SB_LOG_CALLS_OFF;
}

/*
 * What a login gets before any value stored for a role or database: the
 * boot value, postgresql.conf's (and postgresql.auto.conf's), the server's
 * -c.  A role switch compares with it where the current role has nothing
 * stored (sb_role.c): a login role's own looser values are not a login as
 * the current role's (review 144 F1).  Recorded by the check hooks as
 * PostgreSQL validates a value of those sources: at definition, at each
 * reload (also a value a later level hides in this session), and from the
 * configuration files when the library is loaded in a session that a
 * stored value reached first (sb_guc_base_from_files).
 */
int			sb_base_int[SB_ROLE_NINTS];
bool		sb_base_python_layer = true;
int			sb_base_log_calls = SB_LOG_CALLS_OFF;
bool		sb_base_log_code = false;
char	   *sb_base_allowed_modules = NULL;

/*
 * A parallel worker restores the leader's settings over the defaults, its
 * configuration's values hidden by the leader's own levels: the base it
 * inherited (preloaded) or read (sb_guc_base_from_files) stays, while
 * the library's own definition and the files' reading still count
 * (review 146 F3: a PARALLEL SAFE function after SET ROLE had the boot
 * value in its workers).
 */
static bool sb_base_own_reading = false;

#define SB_BASE_SOURCE(source) \
	((source) <= PGC_S_ARGV && (!InitializingParallelWorker || sb_base_own_reading))

/* a check hook that records a value of the configuration's sources as the setting's base (target) */
#define SB_BASE_HOOK(fn, ctype, target) \
static bool \
fn(ctype *newval, void **extra, GucSource source) \
{ \
	if (SB_BASE_SOURCE(source)) \
		target = *newval; \
	return true; \
}
SB_BASE_HOOK(sb_base_timeout, int, sb_base_int[SB_LIMIT_TIMEOUT])
SB_BASE_HOOK(sb_base_cpu, int, sb_base_int[SB_LIMIT_CPU])
SB_BASE_HOOK(sb_base_memory, int, sb_base_int[SB_LIMIT_MEMORY])
SB_BASE_HOOK(sb_base_output, int, sb_base_int[SB_LIMIT_OUTPUT])
SB_BASE_HOOK(sb_base_input_rows, int, sb_base_int[SB_LIMIT_INPUT_ROWS])
SB_BASE_HOOK(sb_base_input_size, int, sb_base_int[SB_LIMIT_INPUT_SIZE])
SB_BASE_HOOK(sb_base_figure_pixels, int, sb_base_int[SB_ROLE_FIGURE_PIXELS])
SB_BASE_HOOK(sb_base_max_workspaces, int, sb_base_int[SB_ROLE_MAX_WORKSPACES])
SB_BASE_HOOK(sb_base_max_parallel, int, sb_base_int[SB_ROLE_MAX_PARALLEL])
SB_BASE_HOOK(sb_base_log_calls_hook, int, sb_base_log_calls)
SB_BASE_HOOK(sb_base_python_layer_hook, bool, sb_base_python_layer)
SB_BASE_HOOK(sb_base_log_code_hook, bool, sb_base_log_code)

/* Check hook: the allowlist must split cleanly. */
static bool
sb_check_allowed_modules(char **newval, void **extra, GucSource source)
{
	List	   *names;

	if (!sb_split_modules(*newval, &names))
	{
		GUC_check_errdetail("List module names such as \"math, numpy, pandas\": dotted Python identifiers separated by commas.");
		return false;
	}
	list_free_deep(names);
	return true;
}

/* pysandbox.allowed_modules's: checked, and its base recorded */
static bool
sb_check_allowed_base(char **newval, void **extra, GucSource source)
{
	if (!sb_check_allowed_modules(newval, extra, source))
		return false;
	if (SB_BASE_SOURCE(source))
	{
		char	   *copy = strdup(*newval);

		if (copy == NULL)
			return false;		/* out of memory: PostgreSQL reports it */
		free(sb_base_allowed_modules);
		sb_base_allowed_modules = copy;
	}
	return true;
}

/*
 * A value of a setting given before this library was loaded in the session
 * (ALTER ROLE or ALTER DATABASE ... SET while it was not loaded, or a SET)
 * is applied when the library defines the setting; PostgreSQL only warns
 * if it is invalid and keeps the default.  Such a value is remembered
 * here, and every call refuses to run until it is fixed: a limit an
 * administrator set for a role is never silently replaced by the default.
 */
char	   *sb_invalid_setting = NULL;
static const char *sb_invalid_name = NULL;
static char *sb_invalid_default = NULL;	/* its value when it was refused */
static GucSource sb_invalid_source = PGC_S_DEFAULT;	/* and its source */
/*
 * a stored value (a role's or database's), not one given in the session:
 * invalid while no value of a higher source (the client's, SET, a
 * function's SET clause) is in force, however often that changes
 * (review 118 F2, F4)
 */
static bool sb_invalid_stored = false;

static void sb_check_login_settings(void);

/* a setting's entry in PostgreSQL's table, or NULL */
static struct config_generic *
sb_setting_entry(const char *name)
{
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();
	int			i;

	for (i = 0; i < n; i++)
		if (pg_strcasecmp(vars[i]->name, name) == 0)
			return vars[i];
	return NULL;
}

/*
 * Has the server's configuration changed pysandbox.preload_modules, read
 * only at server start with preloading, since the server started?  Then
 * the change waits for a restart (pg_settings.pending_restart).
 */
bool
sb_preload_modules_pending(void)
{
	/* asked at every call: the entry is found once (GUC entries stay put) */
	static struct config_generic *e = NULL;

	if (e == NULL)
		e = sb_setting_entry("pysandbox.preload_modules");
	return e != NULL && (e->status & GUC_PENDING_RESTART) != 0;
}

/* a setting's source now (where its current value came from) */
GucSource
sb_setting_source(const char *name)
{
	struct config_generic *e = sb_setting_entry(name);

	return e ? e->source : PGC_S_DEFAULT;
}

/*
 * Is the invalid value still in force?  Not while the setting has been
 * given a valid value since (SET, a function's SET clause, a reload): its
 * value or its source differs from when it was refused.  A SET of the very
 * default is one (review 109 F7: SET pysandbox.print = notice did not
 * count); a RESET brings the refusal back, the stored value being still
 * the invalid one.  A stored value is refused while no value of a higher
 * source is in force (sb_invalid_stored).
 */
bool
sb_setting_still_invalid(void)
{
	const char *now;

	if (sb_invalid_setting == NULL)
		sb_check_login_settings();
	if (sb_invalid_setting == NULL)
		return false;
	if (sb_invalid_stored)
		return sb_setting_source(sb_invalid_name) <= PGC_S_DATABASE_USER;
	now = GetConfigOption(sb_invalid_name, true, false);
	return now == NULL ||
		(strcmp(now, sb_invalid_default) == 0 &&
		 sb_setting_source(sb_invalid_name) == sb_invalid_source);
}

/*
 * May the current user set the invalid setting in the session?  Not a
 * superuser-only one, unless GRANT SET ON PARAMETER says so: then only a
 * superuser can mend it (review 109 F7).  Checked as a SET would be,
 * changing nothing and saying nothing.
 */
bool
sb_invalid_setting_settable(void)
{
	if (sb_invalid_name == NULL)
		return false;
	return set_config_option(sb_invalid_name, sb_invalid_default,
							 superuser() ? PGC_SUSET : PGC_USERSET, PGC_S_TEST,
							 GUC_ACTION_SET, false, DEBUG1, false) != 0;
}

static const char *const sb_setting_names[] = {
	"pysandbox.timeout", "pysandbox.cpu_limit", "pysandbox.memory_limit",
	"pysandbox.max_output_bytes", "pysandbox.max_figure_pixels",
	"pysandbox.max_input_rows", "pysandbox.max_input_size",
	"pysandbox.allowed_modules", "pysandbox.preload_modules", "pysandbox.options",
	"pysandbox.print", "pysandbox.max_print_bytes", "pysandbox.python_layer",
	"pysandbox.filesystem_layer", "pysandbox.queue_timeout",
	"pysandbox.max_workspaces", "pysandbox.workspace_idle_timeout", "pysandbox.max_parallel",
	"pysandbox.stream_threshold", "pysandbox.log_calls", "pysandbox.log_code"
	/* not the server-wide ones: postgresql.conf's reload reports those */
};

#define SB_NSETTINGS lengthof(sb_setting_names)

static const char *sb_login_value[SB_NSETTINGS];	/* by sb_setting_names' index */

/* one stored "name=value" of the login role: the last one of each counts */
static void
sb_login_take(const char *item)
{
	const char *eq = strchr(item, '=');
	int			i;

	if (eq == NULL)
		return;
	for (i = 0; i < SB_NSETTINGS; i++)
		if ((size_t) (eq - item) == strlen(sb_setting_names[i]) &&
			pg_strncasecmp(item, sb_setting_names[i], eq - item) == 0)
			sb_login_value[i] = MemoryContextStrdup(TopMemoryContext, eq + 1);
}

/*
 * The values stored for the role that logged in, once per session: with
 * pysandbox preloaded they were applied at login, before anything checked
 * them here, and an invalid one was left out with only a WARNING -- the
 * role's calls ran with the looser default (review 117 F1).  The one that
 * applies of each setting (the most specific level's) is checked as a
 * superuser's SET would be, and an invalid one refuses calls as at
 * sb_guc_init.
 */
static void
sb_check_login_settings(void)
{
	static bool checked = false;
	int			i;

	if (checked || !IsUnderPostmaster || !IsTransactionState() ||
		!OidIsValid(MyDatabaseId))
		return;
	checked = true;
	memset(sb_login_value, 0, sizeof(sb_login_value));
	sb_role_login_items(sb_login_take);
	for (i = 0; i < SB_NSETTINGS && sb_invalid_setting == NULL; i++)
	{
		/*
		 * Not one only the server's start or configuration sets
		 * (preload_modules once preloaded: "cannot be changed now" is no
		 * invalid value, review 118 F1).  Whether a value of a higher
		 * source is in force is decided at each call.
		 */
		if (sb_login_value[i] == NULL ||
			(sb_setting_entry(sb_setting_names[i]) != NULL &&
			 sb_setting_entry(sb_setting_names[i])->context <= PGC_SIGHUP) ||
			set_config_option(sb_setting_names[i], sb_login_value[i], PGC_SUSET, PGC_S_TEST,
							  GUC_ACTION_SET, false, DEBUG1, false) != 0)
			continue;
		sb_invalid_stored = true;
		sb_invalid_name = sb_setting_names[i];
		sb_invalid_source = sb_setting_source(sb_invalid_name);
		sb_invalid_default = MemoryContextStrdup(TopMemoryContext,
												 GetConfigOption(sb_setting_names[i], false, false));
		sb_invalid_setting = MemoryContextStrdup(TopMemoryContext,
												 psprintf("%s = '%s'", sb_setting_names[i],
														  sb_login_value[i]));
	}
}

/*
 * Loaded in a session (not preloaded): a value stored for the login role
 * or the database replaced postgresql.conf's before the settings existed,
 * so the check hooks never saw the file's.  Read postgresql.conf and
 * postgresql.auto.conf as a reload does, and have each pysandbox value
 * validated as of the file, changing nothing: the hooks record it, the
 * last one of a name winning.  A file with a syntax error gives nothing,
 * as a reload applies nothing then.  (A -c given to the server is not in
 * a file: a role switch then compares with postgresql.conf's or the boot
 * value.)
 */
static void
sb_guc_base_from_files(void)
{
	ConfigVariable *head = NULL;
	ConfigVariable *tail = NULL;
	ConfigVariable *item;
	char	   *autoconf;

	/* (a missing file is said at LOG, to the client too: review 146 F6) */
	if (ConfigFileName == NULL || access(ConfigFileName, R_OK) != 0 ||
		!ParseConfigFile(ConfigFileName, true, NULL, 0, 0, DEBUG1, &head, &tail))
	{
		FreeConfigVariables(head);
		return;
	}
	autoconf = DataDir != NULL ? psprintf("%s/%s", DataDir, PG_AUTOCONF_FILENAME) : NULL;
	if (autoconf != NULL && access(autoconf, R_OK) == 0 &&
		!ParseConfigFile(autoconf, false, NULL, 0, 0, DEBUG1, &head, &tail))
	{
		FreeConfigVariables(head);
		return;
	}
	sb_base_own_reading = true;
	PG_TRY();
	{
		for (item = head; item != NULL; item = item->next)
			if (pg_strncasecmp(item->name, "pysandbox.", 10) == 0 &&
				GetConfigOption(item->name, true, false) != NULL)
				(void) set_config_option(item->name, item->value, PGC_SUSET, PGC_S_FILE,
										 GUC_ACTION_SET, false, DEBUG1, false);
	}
	PG_FINALLY();
	{
		sb_base_own_reading = false;
	}
	PG_END_TRY();
	FreeConfigVariables(head);
}

/* Register the settings (called from _PG_init). */
void
sb_guc_init(void)
{
	char	   *given[SB_NSETTINGS];
	char	   *stored[SB_NSETTINGS];
	int			i;

	/*
	 * Values given before the settings existed (placeholders): the current
	 * one, and the one RESET would give (a role's or database's, which a
	 * SET may hide).  Not in the postmaster (preloading): postgresql.conf's
	 * values are reported at start and reload, and every value set later is
	 * checked when it is set.
	 */
	for (i = 0; i < SB_NSETTINGS; i++)
	{
		const char *v = IsUnderPostmaster ? GetConfigOption(sb_setting_names[i], true, false) : NULL;
		const char *r = v ? GetConfigOptionResetString(sb_setting_names[i]) : NULL;

		given[i] = v ? pstrdup(v) : NULL;
		stored[i] = r && r[0] && strcmp(r, v) != 0 ? pstrdup(r) : NULL;
	}

	sb_base_own_reading = true;	/* the boot values, also in a parallel worker */
	DefineCustomIntVariable("pysandbox.timeout",
							"Wall-clock limit of one sandbox call.",
							NULL,
							&sb_timeout_ms,
							10000, 1, 3600 * 1000,
							PGC_SUSET, GUC_UNIT_MS,
							sb_base_timeout, NULL, NULL);

	DefineCustomIntVariable("pysandbox.cpu_limit",
							"CPU time limit of one sandbox call.",
							NULL,
							&sb_cpu_ms,
							10000, 1, 3600 * 1000,
							PGC_SUSET, GUC_UNIT_MS,
							sb_base_cpu, NULL, NULL);

	DefineCustomIntVariable("pysandbox.memory_limit",
							"Memory one sandbox call may allocate.",
							"Counted on top of the preloaded interpreter.",
							&sb_memory_mb,
							512, 16, 1024 * 1024,
							PGC_SUSET, GUC_UNIT_MB,
							sb_base_memory, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_output_bytes",
							"Largest result plus printed output of one sandbox call.",
							NULL,
							&sb_max_output_bytes,
							16 * 1024 * 1024, 1024, 1024 * 1024 * 1024,
							PGC_SUSET, GUC_UNIT_BYTE,
							sb_base_output, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_figure_pixels",
							"Most pixels a figure drawn in a sandbox call may have.",
							"Width times height, checked before the figure is drawn.",
							&sb_max_figure_pixels,
							4000000, 10000, 100000000,
							PGC_SUSET, 0,
							sb_base_figure_pixels, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_input_rows",
							"Most rows all table inputs of one call may have together.",
							NULL,
							&sb_max_input_rows,
							10000000, 0, INT_MAX,
							PGC_SUSET, 0,
							sb_base_input_rows, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_input_size",
							"Most bytes all table inputs of one call may encode to.",
							"Columns may pass 1 GB; the child's memory limit must hold them too.",
							&sb_max_input_mb,
							512, 1, 64 * 1024,
							PGC_SUSET, GUC_UNIT_MB,
							sb_base_input_size, NULL, NULL);

	DefineCustomStringVariable("pysandbox.allowed_modules",
							   "Modules sandboxed code may import (comma-separated).",
							   "A module allows its submodules, except dangerous ones.",
							   &sb_allowed_modules,
							   SB_DEFAULT_MODULES,
							   PGC_SUSET, GUC_LIST_INPUT,
							   sb_check_allowed_base, NULL, NULL);

	DefineCustomStringVariable("pysandbox.preload_modules",
							   "Modules a sandbox worker imports and warms when it starts (comma-separated).",
							   "Native code can be loaded only before a child is contained: a module that needs it must be preloaded before code may import it. The worker imports them in a second process, which forks the children of calls whose code names one of their packages. Read when a worker starts: a session's own at its first call, the fork server's when the server starts it.",
							   &sb_preload_modules,
							   SB_DEFAULT_PRELOAD,
							   /* the fork server's is read at server start (review 109) */
							   process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SUSET,
							   GUC_LIST_INPUT,
							   sb_check_allowed_modules, NULL, NULL);

	DefineCustomStringVariable("pysandbox.options",
							   "Lower the limits of calls: a JSON object with the keys of the options argument.",
							   "Anyone may set it, also on a function (ALTER FUNCTION ... SET): it can only lower the limits the settings give.",
							   &sb_options_text,
							   "",
							   PGC_USERSET, 0,
							   sb_options_check, sb_options_assign, NULL);

	DefineCustomEnumVariable("pysandbox.print",
							 "What happens to print() output: notice or discard.",
							 NULL,
							 &sb_print_mode,
							 SB_PRINT_NOTICE, sb_print_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_print_bytes",
							"Most printed output of one call that is relayed or kept.",
							"Past it, whole prints are dropped and counted; they still count against pysandbox.max_output_bytes.",
							&sb_max_print_bytes,
							64 * 1024, 0, 1024 * 1024 * 1024,
							PGC_USERSET, GUC_UNIT_BYTE,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("pysandbox.python_layer",
							 "Use the Python-level checks (turn off only to test the OS layers).",
							 NULL,
							 &sb_python_layer,
							 true,
							 PGC_SUSET, 0,
							 sb_base_python_layer_hook, NULL, NULL);

	DefineCustomBoolVariable("pysandbox.allow_weak_isolation",
							 "Run even where no filesystem confinement is available.",
							 NULL,
							 &sb_allow_weak_isolation,
							 false,
							 PGC_SIGHUP, 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("pysandbox.filesystem_layer",
							 "How children are confined to the Python library directories: auto, landlock or mount_namespace.",
							 "auto uses Landlock and a mount namespace together where both work, else whichever does; landlock and mount_namespace use one alone.",
							 &sb_filesystem_layer,
							 SB_FS_AUTO, sb_filesystem_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_concurrent",
							"Sandbox calls that may run at once across the cluster (with shared_preload_libraries).",
							"Calls beyond it wait, up to pysandbox.queue_timeout.  Read when the server starts.",
							&sb_max_concurrent,
							16, 1, 10000,
							/*
							 * the fork server reads it once (review 109: a
							 * reload changed SHOW, not the cap); without
							 * preloading it means nothing, and a library
							 * loaded later may define no postmaster setting
							 */
							process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_parallel",
							"Groups of options.group_by one call may run at once (options.parallel).",
							"Each is a parallel worker of the server and a sandbox process; options.parallel cannot exceed it.",
							&sb_max_parallel,
							4, 1, SB_MAX_PARALLEL,
							PGC_SUSET, 0,
							sb_base_max_parallel, NULL, NULL);

	DefineCustomIntVariable("pysandbox.stream_threshold",
							"Table inputs expected to be larger than this are streamed to the sandbox while their queries run.",
							"The planner's estimate decides; -1 streams none. A streamed input's query time counts toward pysandbox.timeout.",
							&sb_stream_threshold_kb,
							1024, -1, INT_MAX / 1024,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pysandbox.spare_children",
							"Sandbox processes the fork server keeps forked and warm ahead of calls.",
							"Read when the server starts.",
							&sb_spare_children,
							2, 0, 16,
							process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pysandbox.queue_timeout",
							"How long a call waits for a free slot when pysandbox.max_concurrent calls are running.",
							NULL,
							&sb_queue_timeout_ms,
							10000, 0, 3600 * 1000,
							PGC_SUSET, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pysandbox.max_workspaces",
							"Workspaces one session may have open at once (sandbox_workspace_open).",
							"Each keeps a contained process, which counts against pysandbox.max_concurrent.",
							&sb_max_workspaces,
							4, 0, SB_MAX_WORKSPACES,
							PGC_SUSET, 0,
							sb_base_max_workspaces, NULL, NULL);

	DefineCustomIntVariable("pysandbox.workspace_idle_timeout",
							"How long a workspace may wait for its next call before it ends.",
							"0 lets it wait until its session ends.  Read when the workspace's process starts.",
							&sb_workspace_idle_timeout_ms,
							600000, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_MS,
							NULL, NULL, NULL);

	/* shared memory is sized once, at server start: only when preloading */
	if (process_shared_preload_libraries_in_progress)
		DefineCustomIntVariable("pysandbox.stat_max",
								"Most (role, database, code) entries pysandbox_stat keeps.",
								"When full, the 5 % least called are dropped.  Needs pysandbox in shared_preload_libraries.",
								&sb_stat_max,
								1000, 100, 1000000,
								PGC_POSTMASTER, 0,
								NULL, NULL, NULL);

	DefineCustomEnumVariable("pysandbox.log_calls",
							 "Which sandbox calls leave a line in the server log: off, errors or all.",
							 "The line names the role, database, code id, outcome, SQLSTATE and usage.",
							 &sb_log_calls,
							 SB_LOG_CALLS_OFF, sb_log_calls_options,
							 PGC_SUSET, 0,
							 sb_base_log_calls_hook, NULL, NULL);

	DefineCustomBoolVariable("pysandbox.log_code",
							 "Whether the lines of pysandbox.log_calls include the code that ran.",
							 NULL,
							 &sb_log_code,
							 false,
							 PGC_SUSET, 0,
							 sb_base_log_code_hook, NULL, NULL);

	sb_base_own_reading = false;
	MarkGUCPrefixReserved("pysandbox");
	if (IsUnderPostmaster)
		sb_guc_base_from_files();

	/* each given value, checked as a superuser's SET would be, changing nothing
	 * (0: invalid; -1: valid, not applied) */
	for (i = 0; i < SB_NSETTINGS && sb_invalid_setting == NULL; i++)
	{
		const char *bad = NULL;

		if (given[i] != NULL &&
			set_config_option(sb_setting_names[i], given[i], PGC_SUSET, PGC_S_TEST,
							  GUC_ACTION_SET, false, DEBUG1, false) == 0)
			bad = given[i];
		else if (stored[i] != NULL &&
				 set_config_option(sb_setting_names[i], stored[i], PGC_SUSET, PGC_S_TEST,
								   GUC_ACTION_SET, false, DEBUG1, false) == 0)
		{
			bad = stored[i];
			sb_invalid_stored = true;
		}
		if (bad == NULL)
			continue;
		sb_invalid_name = sb_setting_names[i];
		sb_invalid_source = sb_setting_source(sb_invalid_name);
		sb_invalid_default = MemoryContextStrdup(TopMemoryContext,
												 GetConfigOption(sb_setting_names[i], false, false));
		sb_invalid_setting = MemoryContextStrdup(TopMemoryContext,
												 psprintf("%s = '%s'", sb_setting_names[i], bad));
	}

}
