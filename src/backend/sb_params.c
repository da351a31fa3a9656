/*
 * sb_params.c
 *		The text a query parameter's JSON value gives its type's input
 *		function ($params of a table input, sql()'s parameters): a list is
 *		an array literal for an array parameter, JSON for a json or jsonb
 *		one, refused for one value of another type; a whole float is an
 *		integer for an integer parameter or element.
 */
#include "pysandbox.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/array.h"

/* The text form of a jsonb scalar or container, for a query parameter. */
static char *
sb_jsonb_value_text(JsonbValue *v, bool *isnull)
{
	*isnull = false;
	switch (v->type)
	{
		case jbvNull:
			*isnull = true;
			return NULL;
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out,
													   NumericGetDatum(v->val.numeric)));
		case jbvBool:
			return pstrdup(v->val.boolean ? "true" : "false");
		default:
			return JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
	}
}

/* A whole number's text without its fraction (2.0: "2"), else NULL. */
static char *
sb_whole_number_text(Numeric n)
{
	Datum		whole = DirectFunctionCall2(numeric_trunc, NumericGetDatum(n), Int32GetDatum(0));

	if (!DatumGetBool(DirectFunctionCall2(numeric_eq, whole, NumericGetDatum(n))))
		return NULL;
	return DatumGetCString(DirectFunctionCall1(numeric_out, whole));
}

/*
 * An amount's text for money's input: a plain number ("1234.5", a float's
 * or a Decimal's text) gets lc_monetary's decimal point, which cash_in
 * reads ("1234.5" was 12345 under de_DE: review 115 F1, 116 F2); any other
 * text is money's own and left as it is.
 */
static void
sb_money_amount_text(char *text)
{
	char	   *p = text;
	char	   *dot = NULL;

	if (*p == '-')
		p++;
	if (!isdigit((unsigned char) *p))
		return;
	for (; *p; p++)
	{
		if (*p == '.' && dot == NULL && isdigit((unsigned char) p[1]))
			dot = p;
		else if (!isdigit((unsigned char) *p))
			return;
	}
	if (dot != NULL)
		*dot = sb_money_point();
}

/*
 * A PostgreSQL array literal of a JSON array, for an array parameter
 * ($params' JSON, sql()'s list): nested arrays are its dimensions, null is
 * NULL, every other element is quoted (an object as its JSON text); with
 * integers (an integer element type), a whole number loses its fraction.
 */
static void
sb_json_array_literal(StringInfo buf, JsonbContainer *array, int depth, bool integers,
					  bool money)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	check_stack_depth();
	if (depth >= MAXDIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a list parameter is nested more than %d lists deep", MAXDIM)));
	appendStringInfoChar(buf, '{');
	it = JsonbIteratorInit(array);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		const char *p;

		if (tok != WJB_ELEM)
			continue;
		if (!first)
			appendStringInfoChar(buf, ',');
		first = false;
		if (v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data))
		{
			sb_json_array_literal(buf, v.val.binary.data, depth + 1, integers, money);
			continue;
		}
		if (v.type == jbvNull)
		{
			appendStringInfoString(buf, "NULL");
			continue;
		}
		{
			bool		isnull;
			char	   *text = integers && v.type == jbvNumeric ?
				sb_whole_number_text(v.val.numeric) : NULL;

			if (text == NULL)
				text = sb_jsonb_value_text(&v, &isnull);
			if (money && (v.type == jbvNumeric || v.type == jbvString))
				sb_money_amount_text(text);

			appendStringInfoChar(buf, '"');
			for (p = text; *p; p++)
			{
				if (*p == '"' || *p == '\\')
					appendStringInfoChar(buf, '\\');
				appendStringInfoChar(buf, *p);
			}
			appendStringInfoChar(buf, '"');
		}
	}
	appendStringInfoChar(buf, '}');
}

/*
 * The text of parameter i (JSON value v) for its type: a list for an array
 * is an array literal; a list or an object for a type that is neither an
 * array nor json/jsonb is refused, since its text would be compared as one
 * value (WHERE status IN ($1) with a list matched nothing: review 79).
 */
char *
sb_param_text(JsonbValue *v, Oid type, int i, const char *what, bool *isnull)
{
	Oid			base = getBaseType(type);
	bool		json = base == JSONOID || base == JSONBOID;

	if (v->type == jbvNumeric && (base == INT2OID || base == INT4OID || base == INT8OID))
	{
		/* a whole float (2.0, a pandas float of an integer column) */
		char	   *whole = sb_whole_number_text(v->val.numeric);

		if (whole != NULL)
		{
			*isnull = false;
			return whole;
		}
	}
	if ((v->type == jbvNumeric || v->type == jbvString) && base == CASHOID)
	{
		/* an amount (a Decimal comes as its text) */
		char	   *text = sb_jsonb_value_text(v, isnull);

		sb_money_amount_text(text);
		return text;
	}
	if (v->type != jbvBinary || json)
		return sb_jsonb_value_text(v, isnull);
	*isnull = false;
	if (JsonContainerIsArray(v->val.binary.data) && type_is_array(base))
	{
		StringInfoData buf;
		Oid			elem = getBaseType(get_element_type(base));

		initStringInfo(&buf);
		sb_json_array_literal(&buf, v->val.binary.data, 0,
							  elem == INT2OID || elem == INT4OID || elem == INT8OID,
							  elem == CASHOID);
		return buf.data;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 JsonContainerIsArray(v->val.binary.data) ?
			 errmsg("parameter $%d of %s is a list, but the query uses $%d as one value of type %s",
					i + 1, what, i + 1, format_type_be(type)) :
			 errmsg("parameter $%d of %s is a JSON object, but the query uses $%d as type %s",
					i + 1, what, i + 1, format_type_be(type)),
			 JsonContainerIsArray(v->val.binary.data) ?
			 errhint("To match any of the list's values, compare with = ANY($%d) (IN ($%d) takes one value); or pass one value.",
					 i + 1, i + 1) :
			 errhint("A JSON object goes to a json or jsonb parameter (meta @> $%d); pass its text, or one value, otherwise.",
					 i + 1)));
	return NULL;				/* not reached */
}
