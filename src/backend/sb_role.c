/*
 * sb_role.c
 *		The pysandbox settings stored for the current role, when it is not
 *		the role that logged in.
 *
 * PostgreSQL applies a role's stored settings (ALTER ROLE ... SET) when a
 * session logs in as that role, never on SET ROLE and never inside a
 * SECURITY DEFINER function.  Poolers and API servers (PostgREST, say) log
 * in as one role and switch to each request's: the limits an administrator
 * set for the role that runs the code would not apply to it.  So when the
 * current role is not the one that logged in, a call works out the
 * pysandbox settings a login as the current role would get (its own in
 * this database, its own, the database's, all roles', else the server's
 * configuration: sb_guc.c's sb_base_*) and applies the stricter of them
 * and the session's: the lower limit, the modules both allowlists allow,
 * the Python layer on if either has it on, the fuller audit line.  A role
 * switch never loosens anything: neither the login role's own looser
 * values nor a superuser's SET pass to the role (review 144 F1).  An invalid stored value refuses the call, as one given before
 * the library was loaded does (sb_guc.c).
 *
 * Read once per statement and command (four index lookups in
 * pg_db_role_setting), and not at all while the login role is current.
 */
#include "pysandbox.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_db_role_setting.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* the integer settings a role's value can only lower */
static const struct
{
	const char *name;
	int		   *session;
}			sb_role_ints[SB_ROLE_NINTS] = {
	[SB_LIMIT_TIMEOUT] = {"pysandbox.timeout", &sb_timeout_ms},
	[SB_LIMIT_CPU] = {"pysandbox.cpu_limit", &sb_cpu_ms},
	[SB_LIMIT_MEMORY] = {"pysandbox.memory_limit", &sb_memory_mb},
	[SB_LIMIT_OUTPUT] = {"pysandbox.max_output_bytes", &sb_max_output_bytes},
	[SB_LIMIT_INPUT_ROWS] = {"pysandbox.max_input_rows", &sb_max_input_rows},
	[SB_LIMIT_INPUT_SIZE] = {"pysandbox.max_input_size", &sb_max_input_mb},
	[SB_ROLE_FIGURE_PIXELS] = {"pysandbox.max_figure_pixels", &sb_max_figure_pixels},
	[SB_ROLE_MAX_WORKSPACES] = {"pysandbox.max_workspaces", &sb_max_workspaces},
	[SB_ROLE_MAX_PARALLEL] = {"pysandbox.max_parallel", &sb_max_parallel},
};

/* What the current role has stored, read for one command. */
static struct
{
	bool		valid;
	Oid			role;
	LocalTransactionId lxid;
	CommandId	cid;
	TimestampTz statement;		/* read again for each statement, too */
	NameData	name;			/* the role's name, for hints */
	bool		has[SB_ROLE_NINTS];
	int			value[SB_ROLE_NINTS];
	char	   *options;		/* its pysandbox.options, or NULL */
	char	   *allowed;		/* its pysandbox.allowed_modules, or NULL */
	int			python_layer;	/* -1: not stored */
	int			log_calls;		/* -1: not stored */
	int			log_code;		/* -1: not stored */
	char	   *merged;			/* both allowlists' common modules, or NULL */
	char	   *merged_from;	/* ... made of this session value */
} sb_role;

static MemoryContext sb_role_cxt = NULL;

/* what the settings being read were stored for, for errors */
static const char *sb_role_where = "";

static void
sb_role_invalid(const char *name, const char *value)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for %s stored %s: \"%s\"",
					name, sb_role_where, value),
			 errdetail("After SET ROLE, and in a SECURITY DEFINER function, calls apply the current role's stored pysandbox settings where they are stricter; they are refused while one is invalid."),
			 errhint("Have a superuser correct it with ALTER ROLE (or ALTER DATABASE) ... SET %s, or remove it with ... RESET %s.",
					 name, name)));
}

/* Take one "name=value" of a stored setconfig array. */
static void
sb_role_take(const char *item)
{
	const char *eq = strchr(item, '=');
	char	   *name;
	const char *value;
	int			flags;
	int			i;

	/* names are case-insensitive, as PostgreSQL's own lookup is */
	if (eq == NULL || pg_strncasecmp(item, "pysandbox.", 10) != 0)
		return;
	name = pnstrdup(item, eq - item);
	for (char *c = name; *c; c++)
		*c = pg_tolower((unsigned char) *c);
	value = eq + 1;
	for (i = 0; i < SB_ROLE_NINTS; i++)
		if (strcmp(name, sb_role_ints[i].name) == 0)
			break;
	if (i == SB_ROLE_NINTS && strcmp(name, "pysandbox.options") != 0 &&
		strcmp(name, "pysandbox.allowed_modules") != 0 &&
		strcmp(name, "pysandbox.python_layer") != 0 &&
		strcmp(name, "pysandbox.log_calls") != 0 &&
		strcmp(name, "pysandbox.log_code") != 0)
		return;					/* not a restriction of the role's calls */

	/* checked as a superuser's SET of it would be, changing nothing */
	if (set_config_option(name, value, PGC_SUSET, PGC_S_TEST, GUC_ACTION_SET,
						  false, DEBUG1, false) == 0)
		sb_role_invalid(name, value);
	flags = GetConfigOptionFlags(name, false);
	if (i < SB_ROLE_NINTS)
	{
		if (!parse_int(value, &sb_role.value[i], flags, NULL))
			sb_role_invalid(name, value);
		sb_role.has[i] = true;
	}
	else if (strcmp(name, "pysandbox.options") == 0)
		sb_role.options = value[0] ? MemoryContextStrdup(sb_role_cxt, value) : NULL;
	else if (strcmp(name, "pysandbox.allowed_modules") == 0)
		sb_role.allowed = MemoryContextStrdup(sb_role_cxt, value);
	else if (strcmp(name, "pysandbox.log_calls") == 0)
		sb_role.log_calls = sb_log_calls_value(value);
	else
	{
		bool		on;

		if (!parse_bool(value, &on))
			sb_role_invalid(name, value);
		if (strcmp(name, "pysandbox.python_layer") == 0)
			sb_role.python_layer = on;
		else
			sb_role.log_code = on;
	}
}

/* Read the stored settings of role in database (InvalidOid: all). */
/* Each "name=value" stored for (database, role), to take(item). */
static void
sb_role_items(Relation rel, Oid database, Oid role, void (*take) (const char *item))
{
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;

	ScanKeyInit(&keys[0], Anum_pg_db_role_setting_setdatabase,
				BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(database));
	ScanKeyInit(&keys[1], Anum_pg_db_role_setting_setrole,
				BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(role));
	scan = systable_beginscan(rel, DbRoleSettingDatidRolidIndexId, true, NULL, 2, keys);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_db_role_setting_setconfig,
									 RelationGetDescr(rel), &isnull);
		Datum	   *items;
		bool	   *nulls;
		int			n,
					i;

		if (isnull)
			continue;
		deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
						  &items, &nulls, &n);
		for (i = 0; i < n; i++)
			if (!nulls[i])
				take(TextDatumGetCString(items[i]));
	}
	systable_endscan(scan);
}

/* The current role's stored settings at one level, into sb_role. */
static void
sb_role_read(Relation rel, Oid database, Oid role)
{
	if (!OidIsValid(role))
		sb_role_where = OidIsValid(database) ?
			psprintf("for database \"%s\"", get_database_name(database)) : "for all roles";
	else
		sb_role_where = psprintf(OidIsValid(database) ? "for role \"%s\" in database \"%s\"" :
								 "for role \"%s\"", GetUserNameFromId(role, false),
								 OidIsValid(database) ? get_database_name(database) : "");
	sb_role_items(rel, database, role, sb_role_take);
}

/*
 * Each "name=value" stored for the role that logged in (ALTER ROLE ALL,
 * ALTER DATABASE, the role's own, the role's own in this database: in the
 * order login applies them), to take(item).
 */
void
sb_role_login_items(void (*take) (const char *item))
{
	Relation	rel = table_open(DbRoleSettingRelationId, AccessShareLock);

	sb_role_items(rel, InvalidOid, InvalidOid, take);
	sb_role_items(rel, MyDatabaseId, InvalidOid, take);
	sb_role_items(rel, InvalidOid, GetAuthenticatedUserId(), take);
	sb_role_items(rel, MyDatabaseId, GetAuthenticatedUserId(), take);
	table_close(rel, AccessShareLock);
}

/*
 * Is the current role another than the one that logged in?  Then read its
 * stored settings, once per command.  Returns whether they apply.
 */
static bool
sb_role_load(void)
{
	Oid			role = GetUserId();
	Relation	rel;

	if (role == GetAuthenticatedUserId())
		return false;			/* applied at login, as PostgreSQL does */
	if (sb_role.valid && sb_role.role == role && sb_role.lxid == MyProc->lxid &&
		sb_role.cid == GetCurrentCommandId(false) &&
		sb_role.statement == GetCurrentStatementStartTimestamp())
		return true;

	if (sb_role_cxt == NULL)
		sb_role_cxt = AllocSetContextCreate(TopMemoryContext, "pysandbox role settings",
											ALLOCSET_SMALL_SIZES);
	MemoryContextReset(sb_role_cxt);
	memset(&sb_role, 0, sizeof(sb_role));
	sb_role.python_layer = sb_role.log_calls = sb_role.log_code = -1;

	rel = table_open(DbRoleSettingRelationId, AccessShareLock);

	/*
	 * As at login, each level over the one before: ALTER ROLE ALL, ALTER
	 * DATABASE, the role's own, the role's own in this database.  (The
	 * session's values came the same way for the login role.)
	 */
	sb_role_read(rel, InvalidOid, InvalidOid);
	sb_role_read(rel, MyDatabaseId, InvalidOid);
	sb_role_read(rel, InvalidOid, role);
	sb_role_read(rel, MyDatabaseId, role);
	table_close(rel, AccessShareLock);

	namestrcpy(&sb_role.name, GetUserNameFromId(role, false));
	sb_role.role = role;
	sb_role.lxid = MyProc->lxid;
	sb_role.cid = GetCurrentCommandId(false);
	sb_role.statement = GetCurrentStatementStartTimestamp();
	sb_role.valid = true;
	return true;
}

/* What a login as the current role gets of setting i (loaded). */
static int
sb_role_login_int(SbRoleInt i)
{
	return sb_role.has[i] ? sb_role.value[i] : sb_base_int[i];
}

/* Setting i for this call: the session's, or a login as the role's if lower. */
int
sb_role_int(SbRoleInt i)
{
	int			value = *sb_role_ints[i].session;

	if (sb_role_load() && sb_role_login_int(i) < value)
		return sb_role_login_int(i);
	return value;
}

/* Did the current role's settings lower setting i? */
bool
sb_role_lowered(SbRoleInt i)
{
	return sb_role_load() && sb_role_login_int(i) < *sb_role_ints[i].session;
}

/* The current role's name, when its stored settings apply (for hints). */
const char *
sb_role_name(void)
{
	return sb_role_load() ? NameStr(sb_role.name) : NULL;
}

/* The current role's stored pysandbox.options, or NULL. */
const char *
sb_role_options(void)
{
	return sb_role_load() ? sb_role.options : NULL;
}

/* Does module allowlist "names" allow module (or its submodules)? */
static bool
sb_role_allows(List *names, const char *module)
{
	ListCell   *lc;

	foreach(lc, names)
	{
		const char *a = lfirst(lc);
		size_t		len = strlen(a);

		if (strncmp(module, a, len) == 0 && (module[len] == '\0' || module[len] == '.'))
			return true;
	}
	return false;
}

/*
 * pysandbox.allowed_modules for this call: the session's, or what both it
 * and the current role's stored list allow.  A module allows its
 * submodules, so a name is kept where the other list allows it: "pandas"
 * and "pandas.api, numpy" give "pandas.api".
 */
const char *
sb_role_allowed_modules(void)
{
	const char *session = sb_allowed_modules ? sb_allowed_modules : "";
	const char *login;
	List	   *mine,
			   *theirs;
	ListCell   *lc;
	StringInfoData buf;
	MemoryContext old;

	if (!sb_role_load())
		return session;
	login = sb_role.allowed ? sb_role.allowed :
		sb_base_allowed_modules ? sb_base_allowed_modules : session;
	if (strcmp(login, session) == 0)
		return session;
	if (sb_role.merged != NULL && strcmp(sb_role.merged_from, session) == 0)
		return sb_role.merged;
	if (!sb_split_modules(session, &mine) || !sb_split_modules(login, &theirs))
		sb_role_invalid("pysandbox.allowed_modules", login);
	old = MemoryContextSwitchTo(sb_role_cxt);
	initStringInfo(&buf);
	foreach(lc, mine)
		if (sb_role_allows(theirs, lfirst(lc)))
			appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", (char *) lfirst(lc));
	foreach(lc, theirs)
	{
		ListCell   *m;
		bool		listed = false;

		foreach(m, mine)
			listed = listed || strcmp(lfirst(m), lfirst(lc)) == 0;
		if (!listed && sb_role_allows(mine, lfirst(lc)))
			appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", (char *) lfirst(lc));
	}
	sb_role.merged = buf.data;
	sb_role.merged_from = pstrdup(session);
	MemoryContextSwitchTo(old);
	list_free_deep(mine);
	list_free_deep(theirs);
	return sb_role.merged;
}

/* pysandbox.python_layer for this call: on if the session's or the role's is */
bool
sb_role_python_layer(void)
{
	return sb_python_layer ||
		(sb_role_load() && (sb_role.python_layer >= 0 ? sb_role.python_layer == 1 :
							sb_base_python_layer));
}

/* pysandbox.log_calls for this call: the fuller of the two */
int
sb_role_log_calls(void)
{
	int			login;

	if (!sb_role_load())
		return sb_log_calls;
	login = sb_role.log_calls >= 0 ? sb_role.log_calls : sb_base_log_calls;
	return login > sb_log_calls ? login : sb_log_calls;
}

/* pysandbox.log_code for this call: on if either is */
bool
sb_role_log_code(void)
{
	return sb_log_code ||
		(sb_role_load() && (sb_role.log_code >= 0 ? sb_role.log_code == 1 : sb_base_log_code));
}
