/*
 * sb_slowinput.c
 *		Values whose input functions take time no limit bounds: their text
 *		is held to a shape those functions read in bounded time.
 *
 * The backend turns a child's text into values of the declared types with
 * their input functions (results: sb_rows.c; sql()'s parameters:
 * sb_inputs.c).  Some of them take time that grows faster than their text
 * and check no interrupt, so a few hundred kB of a child's text held the
 * backend deaf to cancel, statement_timeout and terminate for seconds to
 * minutes: tsquery's and contrib's query types (review 127), libxml2's
 * reading of xml (reviews 141, 146).  Their text is checked here before
 * the input function sees it.
 */
#include "pysandbox.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/*
 * Input functions that take time quadratic in their text and never stop
 * for a cancel (review 127 F1: tsquery_in took 57 s for 1 MB of "a|a|...",
 * through cancel and statement_timeout): tsquery's, and the query types of
 * contrib's intarray and ltree, built the same way.
 */
static bool
sb_is_slow_input(Oid base, int depth)
{
	Oid			infunc;
	Oid			ioparam;
	char	   *name;
	bool		slow;

	(void) depth;
	if (base == TSQUERYOID)
		return true;
	if (base < FirstNormalObjectId)
		return false;			/* the others built in are linear */
	getTypeInputInfo(base, &infunc, &ioparam);
	if (infunc < FirstNormalObjectId)
		return false;			/* a built-in one: record_in, enum_in, array_in, ... */
	name = get_func_name(infunc);
	slow = name != NULL && (strcmp(name, "bqarr_in") == 0 || strcmp(name, "ltxtq_in") == 0 ||
							strcmp(name, "lquery_in") == 0);
	if (name != NULL)
		pfree(name);
	return slow;
}

/*
 * xml's input, libxml2 (Debian 12's 2.9.14), checks a start tag's
 * attributes against each other and resolves namespace prefixes against
 * every declaration in scope, in time that grows with the square of their
 * number, and stops for no cancel (review 141 F1: a tag of 80,000
 * attributes, 0.8 MB, took 10 s through cancel and terminate).
 */
static bool
sb_is_xml(Oid base, int depth)
{
	(void) depth;
	return base == XMLOID;
}

/*
 * How a value of this type is held to bounded parsing (SbSlowInput): a
 * query type anywhere in it, or xml inside an array, a range or a
 * composite, whose text (escaped as the container writes it) is not
 * scanned, at SB_SLOW_INPUT_MAX_TEXT; an xml value itself (or a domain
 * over xml) is scanned (sb_xml_complexity).
 */
int
sb_slow_input(Oid typid)
{
	if (sb_type_holds(typid, 0, sb_is_slow_input))
		return SB_SLOW_QUERY;
	if (getBaseType(typid) == XMLOID)
		return SB_SLOW_XML;
	if (sb_type_holds(typid, 0, sb_is_xml))
		return SB_SLOW_XML_INSIDE;
	return SB_SLOW_NONE;
}

/*
 * Does the text hold a document type declaration, whatever its length?
 * One of 14.9 kB (attribute defaults taking their values from entities)
 * took 3.9 s and 1.7 GB in xml_in, deaf to cancel (review 146 F2).  In an
 * array's or a composite's text the xml is escaped ("<\!DOC\TYPE"), and
 * a composite's or a range's parser drops double quotes ("DOC""TYPE",
 * review 148 F1): there backslashes and double quotes are skipped and
 * "DOCTYPE" alone is looked for.
 */
static bool
sb_xml_has_doctype(const char *s, Size n, bool escaped)
{
	static const char word[] = "doctype";
	Size		i;
	Size		matched = 0;

	if (!escaped)
	{
		for (i = 0; i + 9 <= n; i++)
			if (s[i] == '<' && s[i + 1] == '!' && pg_strncasecmp(s + i + 2, word, 7) == 0)
				return true;
		return false;
	}
	/* the word, backslashes left out, in any case */
	for (i = 0; i < n; i++)
	{
		char		ch = pg_tolower((unsigned char) s[i]);

		if (ch == '\\' || ch == '"')
			continue;
		if (ch == word[matched])
			matched++;
		else
			matched = ch == word[0] ? 1 : 0;
		if (matched == sizeof(word) - 1)
			return true;
	}
	return false;
}

/*
 * What makes xml text past 16 kB too costly to parse, or NULL: more than
 * SB_XML_MAX_EQUALS "=" between two "<" (a tag's attributes: "<" may not
 * appear in an attribute's value, "=" may, and text between tags counts
 * too), or more than SB_XML_MAX_NAMESPACES "xmlns" in all.  Linear, over
 * the text exactly as xml_in will read it.
 */
static const char *
sb_xml_complexity(const char *s, Size n)
{
	Size		i;
	int			equals = 0;
	int			namespaces = 0;

	for (i = 0; i < n; i++)
	{
		if (s[i] == '<')
			equals = 0;
		else if (s[i] == '=' && ++equals > SB_XML_MAX_EQUALS)
			return psprintf("a tag with more than %d attributes (\"=\" between two \"<\")",
							SB_XML_MAX_EQUALS);
		else if (s[i] == 'x' && n - i >= 5 && memcmp(s + i, "xmlns", 5) == 0 &&
				 ++namespaces > SB_XML_MAX_NAMESPACES)
			return psprintf("more than %d namespace declarations", SB_XML_MAX_NAMESPACES);
	}
	return NULL;
}

/*
 * Refuse the text of a value of such a type (kind: sb_slow_input) that
 * could take long to parse: past SB_SLOW_INPUT_MAX_TEXT (at most ~20 ms
 * of parsing, where 1 MB took a minute) for a query type or xml inside a
 * container; xml with a document type declaration at any length; an xml
 * value past SB_XML_MAX_TEXT, or past 16 kB and built as
 * sb_xml_complexity says; what: "a value", "parameter $2".
 */
void
sb_check_slow_input(int kind, Oid typid, const char *text, Size len, const char *what)
{
	const char *why;

	if (kind == SB_SLOW_NONE)
		return;
	if ((kind == SB_SLOW_XML || kind == SB_SLOW_XML_INSIDE) &&
		sb_xml_has_doctype(text, len, kind == SB_SLOW_XML_INSIDE))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of type %s may not hold a document type declaration (<!DOCTYPE ...>)",
						what, format_type_be(typid)),
				 errdetail("libxml2 expands a document type's entities and attribute defaults as it reads, in time and memory that no limit bounds, and does not stop for a cancel."),
				 errhint("Leave the DOCTYPE out, or keep the document as text.")));
	if (len <= SB_SLOW_INPUT_MAX_TEXT)
		return;
	if (kind == SB_SLOW_QUERY || kind == SB_SLOW_XML_INSIDE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of type %s may take at most %d kB of text",
						what, format_type_be(typid), SB_SLOW_INPUT_MAX_TEXT >> 10),
				 kind == SB_SLOW_QUERY ?
				 errdetail("A tsquery (or another query type) in it is read by an input function whose time grows with the square of its text, and which does not stop for a cancel.") :
				 errdetail("The xml in it is read by libxml2, whose time can grow with the square of a tag's attributes and namespaces, and which does not stop for a cancel."),
				 kind == SB_SLOW_QUERY ?
				 errhint("Use a shorter value, or build it in SQL from shorter parts.") :
				 errhint("Use each document as an xml value of its own (up to %d kB), or keep it as text.",
						 SB_XML_MAX_TEXT >> 10)));
	if (len > SB_XML_MAX_TEXT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of type %s may take at most %d kB of text",
						what, format_type_be(typid), SB_XML_MAX_TEXT >> 10),
				 errdetail("It is read by libxml2, which does not stop for a cancel."),
				 errhint("Use a smaller document, or keep it as text.")));
	if ((why = sb_xml_complexity(text, len)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of type %s past %d kB has %s",
						what, format_type_be(typid), SB_SLOW_INPUT_MAX_TEXT >> 10, why),
				 errdetail("libxml2 reads a tag's attributes and namespaces in time that grows with the square of their number, and does not stop for a cancel."),
				 errhint("Use a simpler document (fewer attributes in a tag, fewer namespace declarations), or keep it as text.")));
}

/*
 * Containers: array_in, record_in, range_in and multirange_in call their
 * elements' input functions in one memory context and free nothing until
 * the whole value is built, nor stop for a cancel (review 149 F1: 2 MB of
 * "{a,a,...}" into tsvector[] held 2.3 GB, each element keeping tsvectorin's
 * working memory; 15.8 MB of nummultirange 2.1 GB, deaf to cancel for 5 s).
 * Such a value is built here in a memory context of its own: each
 * allocation in it checks for interrupts and is held to a budget that
 * grows with the text, and the value is copied out of it.  A range or a
 * record keeps two or one 1 kB buffers of its input however short its text
 * (reviews 152 F3, 154 F2: 150,000 int8range elements, 2.5 MB, were
 * refused at 32 times the text; "[1,2)" takes 350 times), so a type
 * holding them gets more per byte.
 */
#define SB_BUILD_MIN_BUDGET		((Size) 256 << 20)
#define SB_BUILD_PER_BYTE		32
#define SB_BUILD_PER_BYTE_RECORDS 160
#define SB_BUILD_PER_BYTE_RANGES 400
#define SB_BUILD_MAX_BUDGET		((Size) 1 << 30)

static MemoryContextMethods sb_build_methods;
static const MemoryContextMethods *sb_build_aset;
static Size sb_build_budget = SIZE_MAX;
static Oid	sb_build_typid;
static const char *sb_build_what;

static bool
sb_is_record(Oid base, int depth)
{
	(void) depth;
	return get_typtype(base) == TYPTYPE_COMPOSITE;
}

static bool
sb_is_range(Oid base, int depth)
{
	char		typtype = get_typtype(base);

	(void) depth;
	return typtype == TYPTYPE_RANGE || typtype == TYPTYPE_MULTIRANGE;
}

/*
 * Does building a value of typid call other input functions, per element?
 * The budget's bytes per byte of its text if so (sb_build_input), else 0.
 */
int
sb_builds_elements(Oid typid)
{
	Oid			base = getBaseType(typid);
	char		typtype = get_typtype(base);

	if (typtype != TYPTYPE_COMPOSITE && typtype != TYPTYPE_RANGE &&
		typtype != TYPTYPE_MULTIRANGE && !OidIsValid(get_element_type(base)))
		return 0;
	if (sb_type_holds(typid, 0, sb_is_range))
		return SB_BUILD_PER_BYTE_RANGES;
	return sb_type_holds(typid, 0, sb_is_record) ? SB_BUILD_PER_BYTE_RECORDS :
		SB_BUILD_PER_BYTE;
}

static void
sb_build_account(MemoryContext cxt, Size size)
{
	CHECK_FOR_INTERRUPTS();
	if (cxt->mem_allocated + size > sb_build_budget)
	{
		Size		budget = sb_build_budget;

		sb_build_budget = SIZE_MAX; /* the error's own allocations */
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of type %s takes more than %d MB of the server's memory to build",
						sb_build_what, format_type_be(sb_build_typid), (int) (budget >> 20)),
				 errdetail("Its input function keeps the working memory of every element until the whole value is built."),
				 errhint("Return fewer elements in one value: rows (RETURNS SETOF, sandbox_rows) or several smaller values.")));
	}
}

static void *
sb_build_alloc(MemoryContext cxt, Size size)
{
	sb_build_account(cxt, size);
	return sb_build_aset->alloc(cxt, size);
}

static void *
sb_build_realloc(MemoryContext cxt, void *pointer, Size size)
{
	sb_build_account(cxt, size);
	return sb_build_aset->realloc(cxt, pointer, size);
}

/*
 * The value of typid (a container: sb_builds_elements gave per_byte) for
 * str, len bytes of text, built within that budget and copied into the
 * caller's memory context; what names it in the error ("a value",
 * "parameter $1 of ...").
 */
Datum
sb_build_input(FmgrInfo *flinfo, char *str, Size len, Oid typid, Oid typioparam,
			   int32 typmod, int per_byte, const char *what)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext build = AllocSetContextCreate(caller, "pysandbox value",
												ALLOCSET_DEFAULT_SIZES);
	Size		save_budget = sb_build_budget;
	Oid			save_typid = sb_build_typid;
	const char *save_what = sb_build_what;
	int16		typlen;
	bool		typbyval;
	Datum		value;

	if (sb_build_aset == NULL)
	{
		sb_build_aset = build->methods;
		sb_build_methods = *build->methods;
		sb_build_methods.alloc = sb_build_alloc;
		sb_build_methods.realloc = sb_build_realloc;
	}
	if (build->methods != sb_build_aset)
		elog(ERROR, "pysandbox: a memory context is not the AllocSet expected");
	build->methods = &sb_build_methods;
	get_typlenbyval(typid, &typlen, &typbyval);
	sb_build_budget = Min(Max(SB_BUILD_MIN_BUDGET, len * per_byte), SB_BUILD_MAX_BUDGET);
	sb_build_typid = typid;
	sb_build_what = what;
	PG_TRY();
	{
		MemoryContextSwitchTo(build);
		value = InputFunctionCall(flinfo, str, typioparam, typmod);
		MemoryContextSwitchTo(caller);
		if (!typbyval)
			value = datumCopy(value, typbyval, typlen);
	}
	PG_FINALLY();
	{
		MemoryContextSwitchTo(caller);
		sb_build_budget = save_budget;
		sb_build_typid = save_typid;
		sb_build_what = save_what;
	}
	PG_END_TRY();
	MemoryContextDelete(build);
	return value;
}
