/*
 * sb_options.c
 *		The limits of one call: the settings, lowered by pysandbox.options and
 *		by the call's options.
 *
 * The limit settings (pysandbox.timeout, ...) are PGC_SUSET: what an
 * administrator allows, per server, database or role.  PostgreSQL 15 cannot
 * tell who stored a per-role or per-database value of a setting anyone may
 * set, so the same names cannot also be lowered by ordinary roles without
 * letting them raise their own.  Lowering has its own setting instead:
 * pysandbox.options (PGC_USERSET), a JSON object with the keys of the
 * call's options argument, which anyone may SET, and which a function may
 * carry (ALTER FUNCTION ... SET pysandbox.options): it is the only way to
 * lower the limits of a LANGUAGE pysandbox function, which has no options
 * argument.  Its values and the call's options can only lower a limit:
 * the strictest of setting, pysandbox.options and options applies.  A
 * call's option above the setting is an error (the caller asked for
 * something it cannot have); a value of pysandbox.options above the setting
 * changes nothing (it is stored on functions that roles with other settings
 * call).
 *
 * Both are parsed by one parser, so they take the same keys and values.
 */
#include "pysandbox.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

const SbLimitInfo sb_limit_info[SB_NLIMITS] = {
	[SB_LIMIT_TIMEOUT] = {"timeout_ms", "pysandbox.timeout", 1},
	[SB_LIMIT_CPU] = {"cpu_ms", "pysandbox.cpu_limit", 1},
	[SB_LIMIT_MEMORY] = {"memory_mb", "pysandbox.memory_limit", 1},
	[SB_LIMIT_OUTPUT] = {"max_output_bytes", "pysandbox.max_output_bytes", 1},
	[SB_LIMIT_INPUT_ROWS] = {"max_input_rows", "pysandbox.max_input_rows", 0},
	[SB_LIMIT_INPUT_SIZE] = {"max_input_mb", "pysandbox.max_input_size", 1},
};

#define SB_KNOWN_OPTIONS \
	"timeout_ms, cpu_ms, memory_mb, max_output_bytes, max_input_rows, max_input_mb, numeric, verify, workspace, group_by and parallel"
#define SB_KNOWN_GUC_OPTIONS \
	"timeout_ms, cpu_ms, memory_mb, max_output_bytes, max_input_rows, max_input_mb and numeric"

/* What went wrong in an options object, for the two ways of saying it. */
typedef enum SbOptionsError
{
	SB_OPT_OK,
	SB_OPT_SYNTAX,				/* not JSON */
	SB_OPT_NOT_OBJECT,
	SB_OPT_UNKNOWN,				/* key: an unknown name */
	SB_OPT_NOT_INTEGER,			/* key: a limit that is not a whole number */
	SB_OPT_NUMERIC,				/* numeric is not "float" or "decimal" */
	SB_OPT_VERIFY,				/* verify is not a string */
	SB_OPT_VERIFY_IN_SETTING,	/* verify in pysandbox.options */
	SB_OPT_WORKSPACE,			/* workspace is not a string */
	SB_OPT_WORKSPACE_IN_SETTING,	/* workspace in pysandbox.options */
	SB_OPT_GROUP_BY,			/* group_by is not a name or names */
	SB_OPT_GROUP_BY_IN_SETTING,	/* group_by in pysandbox.options */
	SB_OPT_PARALLEL,			/* parallel is not an integer in range */
	SB_OPT_PARALLEL_IN_SETTING	/* parallel in pysandbox.options */
} SbOptionsError;

/* What an options object asks; a parse's state. */
typedef struct SbOptionValues
{
	bool		has[SB_NLIMITS];
	int			value[SB_NLIMITS];
	int			numeric;		/* -1: not given; 0: float; 1: decimal */
	char	   *verify;			/* options.verify, or NULL */
	char	   *workspace;		/* options.workspace, or NULL */
	List	   *group_by;		/* options.group_by: column names (char *) */
	bool		has_group_by;
	int			parallel;		/* options.parallel, or 0 */

	/* while parsing */
	bool		group_by_array; /* inside group_by's array */
	int			depth;
	const char *field;			/* the key at depth 1 whose value comes */
	bool		setting;		/* parsing pysandbox.options */
	SbOptionsError error;
	char	   *error_key;
} SbOptionValues;

/* The parsed value of pysandbox.options (GUC "extra": malloc'd). */
static SbOptionValues *sb_options_setting = NULL;

static void
sb_opt_fail(SbOptionValues *o, SbOptionsError error, const char *key)
{
	if (o->error != SB_OPT_OK)
		return;					/* the first mistake is the one reported */
	o->error = error;
	o->error_key = key ? pstrdup(key) : NULL;
}

static void
sb_opt_object_start(void *state)
{
	((SbOptionValues *) state)->depth++;
}

static void
sb_opt_object_end(void *state)
{
	((SbOptionValues *) state)->depth--;
}

static void
sb_opt_array_start(void *state)
{
	SbOptionValues *o = state;

	if (o->depth == 0)
		sb_opt_fail(o, SB_OPT_NOT_OBJECT, NULL);
	o->depth++;
}

static void
sb_opt_array_end(void *state)
{
	SbOptionValues *o = state;

	o->depth--;
	if (o->depth == 1)
		o->group_by_array = false;
}

/* A key of the object: known, or the object is refused. */
static void
sb_opt_field_start(void *state, char *fname, bool isnull)
{
	SbOptionValues *o = state;
	int			i;

	if (o->depth != 1)
		return;
	o->field = NULL;
	for (i = 0; i < SB_NLIMITS; i++)
		if (strcmp(fname, sb_limit_info[i].key) == 0)
			o->field = sb_limit_info[i].key;
	if (strcmp(fname, "numeric") == 0)
		o->field = "numeric";
	else if (strcmp(fname, "verify") == 0)
	{
		o->field = "verify";
		if (o->setting)
			sb_opt_fail(o, SB_OPT_VERIFY_IN_SETTING, NULL);
	}
	else if (strcmp(fname, "workspace") == 0)
	{
		o->field = "workspace";
		if (o->setting)
			sb_opt_fail(o, SB_OPT_WORKSPACE_IN_SETTING, NULL);
	}
	else if (strcmp(fname, "group_by") == 0)
	{
		o->field = "group_by";
		o->has_group_by = true;
		if (o->setting)
			sb_opt_fail(o, SB_OPT_GROUP_BY_IN_SETTING, NULL);
	}
	else if (strcmp(fname, "parallel") == 0)
	{
		o->field = "parallel";
		if (o->setting)
			sb_opt_fail(o, SB_OPT_PARALLEL_IN_SETTING, NULL);
	}
	if (o->field == NULL)
		sb_opt_fail(o, SB_OPT_UNKNOWN, fname);
}

static void
sb_opt_value(SbOptionValues *o, char *token, JsonTokenType type)
{
	int			i;

	if (o->field == NULL)
		return;
	if (strcmp(o->field, "numeric") == 0)
	{
		if (type == JSON_TOKEN_STRING && strcmp(token, "decimal") == 0)
			o->numeric = 1;
		else if (type == JSON_TOKEN_STRING && strcmp(token, "float") == 0)
			o->numeric = 0;
		else
			sb_opt_fail(o, SB_OPT_NUMERIC, NULL);
		return;
	}
	if (strcmp(o->field, "verify") == 0)
	{
		if (type == JSON_TOKEN_STRING && !o->setting)
			o->verify = pstrdup(token);
		else
			sb_opt_fail(o, o->setting ? SB_OPT_VERIFY_IN_SETTING : SB_OPT_VERIFY, NULL);
		return;
	}
	if (strcmp(o->field, "group_by") == 0)
	{
		/* a name, or the start of an array of names (sb_opt_scalar takes them) */
		if (type == JSON_TOKEN_STRING && token[0] != '\0' && !o->setting)
			o->group_by = lappend(o->group_by, pstrdup(token));
		else if (type != JSON_TOKEN_ARRAY_START)
			sb_opt_fail(o, o->setting ? SB_OPT_GROUP_BY_IN_SETTING : SB_OPT_GROUP_BY, NULL);
		return;
	}
	if (strcmp(o->field, "parallel") == 0)
	{
		double		n = 0;
		char	   *end = NULL;

		if (type == JSON_TOKEN_NUMBER)
			n = strtod(token, &end);
		if (o->setting)
			sb_opt_fail(o, SB_OPT_PARALLEL_IN_SETTING, NULL);
		else if (type != JSON_TOKEN_NUMBER || end == token || *end != '\0' || isnan(n) ||
				 n != floor(n) || n < 1 || n > SB_MAX_PARALLEL)
			sb_opt_fail(o, SB_OPT_PARALLEL, NULL);
		else
			o->parallel = (int) n;
		return;
	}
	if (strcmp(o->field, "workspace") == 0)
	{
		if (type == JSON_TOKEN_STRING && !o->setting)
			o->workspace = pstrdup(token);
		else
			sb_opt_fail(o, o->setting ? SB_OPT_WORKSPACE_IN_SETTING : SB_OPT_WORKSPACE, NULL);
		return;
	}
	for (i = 0; i < SB_NLIMITS; i++)
	{
		double		n = 0;
		char	   *end = NULL;

		if (o->field != sb_limit_info[i].key)
			continue;
		if (type == JSON_TOKEN_NUMBER)
			n = strtod(token, &end);
		if (type != JSON_TOKEN_NUMBER || end == token || *end != '\0' || isnan(n) ||
			n != floor(n) || n < sb_limit_info[i].least || n > INT_MAX)
			sb_opt_fail(o, SB_OPT_NOT_INTEGER, o->field);
		else
		{
			o->has[i] = true;
			o->value[i] = (int) n;
		}
	}
}

static void
sb_opt_scalar(void *state, char *token, JsonTokenType type)
{
	SbOptionValues *o = state;

	if (o->depth == 0)
		sb_opt_fail(o, SB_OPT_NOT_OBJECT, NULL);
	else if (o->depth == 1)
		sb_opt_value(o, token, type);
	else if (o->depth == 2 && o->field != NULL && strcmp(o->field, "group_by") == 0 &&
			 o->group_by_array)
	{
		/* an element of group_by's array: a name */
		if (type == JSON_TOKEN_STRING && token[0] != '\0')
			o->group_by = lappend(o->group_by, pstrdup(token));
		else
			sb_opt_fail(o, SB_OPT_GROUP_BY, NULL);
	}
}

/*
 * A value at depth 1 that starts an object or an array: the key's value is
 * not a scalar.  Seen as the depth rising past 1 right after a key.
 */
static void
sb_opt_nested_start(void *state)
{
	SbOptionValues *o = state;

	if (o->depth == 1 && o->field != NULL)
		sb_opt_value(o, "", JSON_TOKEN_OBJECT_START);
	else if (o->depth == 2 && o->group_by_array)
		sb_opt_fail(o, SB_OPT_GROUP_BY, NULL);
	sb_opt_object_start(state);
}

static void
sb_opt_nested_array_start(void *state)
{
	SbOptionValues *o = state;

	if (o->depth == 1 && o->field != NULL)
	{
		sb_opt_value(o, "", JSON_TOKEN_ARRAY_START);
		o->group_by_array = strcmp(o->field, "group_by") == 0;
	}
	else if (o->depth == 2 && o->group_by_array)
		sb_opt_fail(o, SB_OPT_GROUP_BY, NULL);
	sb_opt_array_start(state);
}

/*
 * Parse an options object (text) into *o.  Never throws for bad input:
 * o->error says what was wrong.  Allocates in CurrentMemoryContext.
 */
static void
sb_options_parse(const char *json, bool setting, SbOptionValues *o)
{
	JsonLexContext *lex;
	JsonSemAction sem;

	memset(o, 0, sizeof(*o));
	o->numeric = -1;
	o->setting = setting;

	memset(&sem, 0, sizeof(sem));
	sem.semstate = o;
	sem.object_start = sb_opt_nested_start;
	sem.object_end = sb_opt_object_end;
	sem.array_start = sb_opt_nested_array_start;
	sem.array_end = sb_opt_array_end;
	sem.object_field_start = sb_opt_field_start;
	sem.scalar = sb_opt_scalar;

	lex = makeJsonLexContextCstringLen((char *) json, strlen(json), GetDatabaseEncoding(), true);
	if (pg_parse_json(lex, &sem) != JSON_SUCCESS)
	{
		o->error = SB_OPT_SYNTAX;
		return;
	}
}

/* Report a mistake in the call's options argument. */
static void
sb_options_report(const SbOptionValues *o)
{
	switch (o->error)
	{
		case SB_OPT_OK:
		case SB_OPT_VERIFY_IN_SETTING:
		case SB_OPT_WORKSPACE_IN_SETTING:
			break;
		case SB_OPT_WORKSPACE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.workspace must be a workspace handle (text)"),
					 errhint("Use the text that sandbox_workspace_open() returned.")));
			break;
		case SB_OPT_SYNTAX:
		case SB_OPT_NOT_OBJECT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options must be a JSON object")));
			break;
		case SB_OPT_UNKNOWN:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%s\"", o->error_key),
					 errhint("Known options are " SB_KNOWN_OPTIONS ".")));
			break;
		case SB_OPT_NOT_INTEGER:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 strcmp(o->error_key, "max_input_rows") == 0 ?
					 errmsg("options.%s must be a non-negative integer", o->error_key) :
					 errmsg("options.%s must be a positive integer", o->error_key)));
			break;
		case SB_OPT_NUMERIC:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.numeric must be \"float\" or \"decimal\"")));
			break;
		case SB_OPT_VERIFY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.verify must be a string of Python assertions"),
					 errhint("For example: \"assert result['main'] > 0\".")));
			break;
		case SB_OPT_GROUP_BY:
		case SB_OPT_GROUP_BY_IN_SETTING:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.group_by must be a column name or an array of column names"),
					 errhint("For example: {\"group_by\": \"region\"} or {\"group_by\": [\"region\", \"year\"]}.")));
			break;
		case SB_OPT_PARALLEL:
		case SB_OPT_PARALLEL_IN_SETTING:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.parallel must be an integer from 1 to %d", SB_MAX_PARALLEL),
					 errhint("For example: {\"group_by\": \"region\", \"parallel\": 4}.")));
			break;
	}
}

/* Check hook of pysandbox.options: parse it once, keep the result. */
bool
sb_options_check(char **newval, void **extra, GucSource source)
{
	MemoryContext cxt;
	MemoryContext old;
	SbOptionValues o;
	SbOptionValues *keep;
	const char *p = *newval;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "pysandbox.options",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	if (*p == '\0')
		sb_options_parse("{}", true, &o);	/* empty: nothing lowered */
	else
		sb_options_parse(*newval, true, &o);
	MemoryContextSwitchTo(old);

	switch (o.error)
	{
		case SB_OPT_OK:
			break;
		case SB_OPT_SYNTAX:
		case SB_OPT_NOT_OBJECT:
			GUC_check_errdetail("pysandbox.options must be a JSON object, such as '{\"timeout_ms\": 1000}'.");
			break;
		case SB_OPT_UNKNOWN:
			GUC_check_errdetail("Unknown option \"%s\".", o.error_key);
			GUC_check_errhint("Known options are " SB_KNOWN_GUC_OPTIONS ".");
			break;
		case SB_OPT_NOT_INTEGER:
			GUC_check_errdetail("%s must be a %s integer.", o.error_key,
								strcmp(o.error_key, "max_input_rows") == 0 ?
								"non-negative" : "positive");
			break;
		case SB_OPT_NUMERIC:
			GUC_check_errdetail("numeric must be \"float\" or \"decimal\".");
			break;
		case SB_OPT_VERIFY:
		case SB_OPT_VERIFY_IN_SETTING:
			GUC_check_errdetail("verify belongs to one call, not to pysandbox.options.");
			GUC_check_errhint("Pass it in the options argument of the call.");
			break;
		case SB_OPT_WORKSPACE:
		case SB_OPT_WORKSPACE_IN_SETTING:
			GUC_check_errdetail("workspace belongs to one call, not to pysandbox.options.");
			GUC_check_errhint("Pass it in the options argument of the call.");
			break;
		case SB_OPT_GROUP_BY:
		case SB_OPT_GROUP_BY_IN_SETTING:
			GUC_check_errdetail("group_by belongs to one call, not to pysandbox.options.");
			GUC_check_errhint("Pass it in the options argument of the call.");
			break;
		case SB_OPT_PARALLEL:
		case SB_OPT_PARALLEL_IN_SETTING:
			GUC_check_errdetail("parallel belongs to one call, not to pysandbox.options.");
			GUC_check_errhint("Pass it in the options argument of the call, with group_by.");
			break;
	}
	MemoryContextDelete(cxt);
	if (o.error != SB_OPT_OK)
		return false;

	keep = malloc(sizeof(SbOptionValues));
	if (keep == NULL)
		return false;
	memcpy(keep, &o, sizeof(o));
	keep->verify = NULL;
	keep->workspace = NULL;
	keep->group_by = NIL;
	keep->error_key = NULL;
	keep->field = NULL;
	*extra = keep;
	return true;
}

/* Assign hook of pysandbox.options. */
void
sb_options_assign(const char *newval, void *extra)
{
	sb_options_setting = (SbOptionValues *) extra;
}

/* The field of limits that holds limit i. */
static int *
sb_limit_field(SbLimits *limits, SbLimitId i)
{
	switch (i)
	{
		case SB_LIMIT_TIMEOUT:
			return &limits->timeout_ms;
		case SB_LIMIT_CPU:
			return &limits->cpu_ms;
		case SB_LIMIT_MEMORY:
			return &limits->memory_mb;
		case SB_LIMIT_OUTPUT:
			return &limits->max_output_bytes;
		case SB_LIMIT_INPUT_ROWS:
			return &limits->max_input_rows;
		case SB_LIMIT_INPUT_SIZE:
		default:
			return &limits->max_input_mb;
	}
}

/*
 * Limits for this call: the settings, lowered by pysandbox.options and by
 * options (the call's options argument; NULL when there is none).
 */
void
sb_limits_from_options(SbLimits *limits, Jsonb *options)
{
	int			settings[SB_NLIMITS];
	const SbOptionValues *g = sb_options_setting;
	const char *stored = sb_role_options();
	SbOptionValues role;
	SbOptionValues call;
	int			max_parallel = sb_role_int(SB_ROLE_MAX_PARALLEL);
	int			i;

	if (sb_setting_still_invalid())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for a pysandbox setting of this session: %s", sb_invalid_setting),
				 errdetail("The value was given or stored where pysandbox could not check it (ALTER ROLE or ALTER DATABASE ... SET, or SET, before pysandbox was loaded); it was not applied, and calls are refused rather than run with the default."),
				 sb_invalid_setting_settable() ?
				 errhint("Set a valid value in the session, or have a superuser correct the stored one (ALTER ROLE or ALTER DATABASE ... SET, or ... RESET) and reconnect; with pysandbox in session_preload_libraries or shared_preload_libraries, values are checked when they are set.") :
				 errhint("Only a superuser can set it: ask one to correct the stored value (ALTER ROLE or ALTER DATABASE ... SET, or ... RESET), then reconnect; with pysandbox in session_preload_libraries or shared_preload_libraries, values are checked when they are set.")));

	memset(limits, 0, sizeof(*limits));
	/* the current role's stored pysandbox.options, after SET ROLE (sb_role.c) */
	if (stored != NULL)
		sb_options_parse(pstrdup(stored), true, &role);
	if (options != NULL)
	{
		if (!JB_ROOT_IS_OBJECT(options))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options must be a JSON object")));
		sb_options_parse(JsonbToCString(NULL, &options->root, VARSIZE(options)), false, &call);
		sb_options_report(&call);
	}

	for (i = 0; i < SB_NLIMITS; i++)
	{
		int		   *field = sb_limit_field(limits, i);

		*field = settings[i] = sb_role_int(i);
		limits->set_by[i] = SB_SET_BY_SETTING;
		if (sb_role_lowered(i))
		{
			limits->set_by[i] = SB_SET_BY_ROLE;
			strlcpy(limits->role, sb_role_name(), NAMEDATALEN);
		}
		limits->setting[i] = settings[i];
		if (g != NULL && g->has[i] && g->value[i] < *field)
		{
			*field = g->value[i];
			limits->set_by[i] = SB_SET_BY_OPTIONS_SETTING;
		}
		if (stored != NULL && role.has[i] && role.value[i] < *field)
		{
			*field = role.value[i];
			limits->set_by[i] = SB_SET_BY_ROLE_OPTIONS;
			strlcpy(limits->role, sb_role_name(), NAMEDATALEN);
		}
		limits->allowed[i] = *field;
		if (options == NULL || !call.has[i])
			continue;
		if (call.value[i] > settings[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.%s cannot exceed %s (%d)", sb_limit_info[i].key,
							sb_limit_info[i].setting, settings[i]),
					 sb_role_lowered(i) ?
					 errhint("Options can only tighten limits; ask an administrator to raise %s for role \"%s\".",
							 sb_limit_info[i].setting, limits->role) :
					 errhint("Options can only tighten limits; ask an administrator to raise %s.",
							 sb_limit_info[i].setting)));
		if (call.value[i] < *field)
		{
			*field = call.value[i];
			limits->set_by[i] = SB_SET_BY_OPTIONS;
		}
	}

	limits->numeric_decimal = g != NULL && g->numeric == 1;
	if (options != NULL && call.numeric >= 0)
		limits->numeric_decimal = call.numeric == 1;
	limits->verify = options != NULL ? call.verify : NULL;
	if (options != NULL && call.has_group_by)
	{
		int			k,
					j;

		if (call.group_by == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.group_by must name at least one column")));
		if (list_length(call.group_by) > SB_MAX_GROUP_KEYS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.group_by names %d columns; at most %d are allowed",
							list_length(call.group_by), SB_MAX_GROUP_KEYS)));
		for (k = 0; k < list_length(call.group_by); k++)
			for (j = 0; j < k; j++)
				if (strcmp(list_nth(call.group_by, k), list_nth(call.group_by, j)) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("options.group_by names column \"%s\" twice",
									(char *) list_nth(call.group_by, k))));
		if (call.workspace != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("options.group_by cannot be used with a workspace"),
					 errhint("Each group runs in a fresh process of its own; group inside the workspace with pandas instead (df.groupby(...)).")));
		limits->group_by = call.group_by;
	}
	limits->parallel = 1;
	if (options != NULL && call.parallel > 0)
	{
		if (!call.has_group_by)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.parallel needs options.group_by"),
					 errhint("parallel runs that many groups at once; name the groups' key in group_by, such as {\"group_by\": \"region\", \"parallel\": %d}.",
							 call.parallel)));
		if (call.parallel > max_parallel)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options.parallel cannot exceed pysandbox.max_parallel (%d)", max_parallel),
					 sb_role_lowered(SB_ROLE_MAX_PARALLEL) ?
					 errhint("Ask an administrator to raise pysandbox.max_parallel for role \"%s\", or run fewer groups at once.",
							 sb_role_name()) :
					 errhint("Ask an administrator to raise pysandbox.max_parallel, or run fewer groups at once.")));
		limits->parallel = call.parallel;
	}

	/* a call in a workspace has the workspace's process, and its limits */
	if (options != NULL && call.workspace != NULL)
	{
		for (i = SB_LIMIT_TIMEOUT; i <= SB_LIMIT_MEMORY; i++)
			if (call.has[i])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("options.%s cannot be given for a call in a workspace",
								sb_limit_info[i].key),
						 errhint("A workspace's timeout_ms, cpu_ms and memory_mb are set when it is opened: pass them to sandbox_workspace_open().")));
		sb_workspace_enter(limits, call.workspace);
	}
}

/*
 * A hint for limit i, which was hit: what to change in the code (advice),
 * then what lowered the limit and how far it may be raised, or who can
 * raise it.
 */
char *
sb_limit_hint(const char *advice, const SbLimits *limits, SbLimitId i)
{
	switch (limits->set_by[i])
	{
		case SB_SET_BY_OPTIONS:
			return psprintf("%s; options.%s may be raised up to %d.", advice,
							sb_limit_info[i].key, limits->allowed[i]);
		case SB_SET_BY_WORKSPACE:
			if (*sb_limit_field((SbLimits *) limits, i) >= limits->allowed[i])
				return psprintf("%s; the workspace was opened with %s %d, the most allowed: an administrator can raise %s.",
								advice, sb_limit_info[i].key, *sb_limit_field((SbLimits *) limits, i),
								sb_limit_info[i].setting);
			return psprintf("%s; the workspace was opened with %s %d: open another with a higher one (up to %d).",
							advice, sb_limit_info[i].key, *sb_limit_field((SbLimits *) limits, i),
							limits->allowed[i]);
		case SB_SET_BY_OPTIONS_SETTING:
			return psprintf("%s; pysandbox.options lowers %s to %d; it may be raised up to %d.",
							advice, sb_limit_info[i].key, *sb_limit_field((SbLimits *) limits, i),
							limits->setting[i]);
		case SB_SET_BY_ROLE_OPTIONS:
			return psprintf("%s; pysandbox.options stored for role \"%s\" lowers %s to %d (ALTER ROLE ... SET).",
							advice, limits->role, sb_limit_info[i].key,
							*sb_limit_field((SbLimits *) limits, i));
		case SB_SET_BY_ROLE:
			return psprintf("%s; an administrator can raise %s for role \"%s\" (ALTER ROLE ... SET).",
							advice, sb_limit_info[i].setting, limits->role);
		default:
			/*
			 * the login's value, stored for the role or the database: a
			 * DBA raising postgresql.conf's would change nothing (review
			 * 117 F8)
			 */
			switch (sb_setting_source(sb_limit_info[i].setting))
			{
				case PGC_S_USER:
				case PGC_S_DATABASE_USER:
					{
						char	   *role = GetUserNameFromId(GetAuthenticatedUserId(), true);

						if (role != NULL)
							return psprintf("%s; an administrator can raise %s for role \"%s\" (%s).",
											advice, sb_limit_info[i].setting, role,
											sb_setting_source(sb_limit_info[i].setting) == PGC_S_USER ?
											"ALTER ROLE ... SET" :
											"ALTER ROLE ... IN DATABASE ... SET");
						break;
					}
				case PGC_S_DATABASE:
					return psprintf("%s; an administrator can raise %s for this database (ALTER DATABASE ... SET).",
									advice, sb_limit_info[i].setting);
				case PGC_S_GLOBAL:
					return psprintf("%s; an administrator can raise %s for all roles (ALTER ROLE ALL ... SET).",
									advice, sb_limit_info[i].setting);
				default:
					break;
			}
			return psprintf("%s; an administrator can raise %s.", advice,
							sb_limit_info[i].setting);
	}
}
