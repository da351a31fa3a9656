/*
 * sb_json.c
 *		JSON from the child: checked, then built into jsonb within limits.
 *
 * The child's results and error reports are JSON text, and hostile.  Two
 * things in PostgreSQL would let such text hurt the backend: the JSON
 * parser recurses (a result nested millions deep raises 54001 from deep in
 * the stack), and jsonb_in builds a tree that may take two hundred times
 * the text's size ("{}," costs ~660 bytes an object) without ever checking
 * for interrupts (16 MB of it took 3.4 GB and half a minute).
 *
 * So sb_json_check() reads the text once before any parser does: valid
 * UTF-8 without NULs, at most SB_JSON_MAX_DEPTH deep, numbers numeric can
 * hold, no longer than jsonb can hold, then PostgreSQL's parser without
 * building anything.  sb_jsonb_build() then builds the jsonb as jsonb_in
 * would, but checks for interrupts every SB_JSONB_TICK tokens and stops
 * building once its tree takes more than a budget (sb_jsonb_limit()): the
 * parse goes on to the end, keeping nothing, and the caller reports the
 * result as too large instead of raising.  Neither raises for anything in
 * the text, except a cancel and, in a database whose encoding is not UTF8,
 * a \u escape the server encoding cannot hold.
 */
#include "pysandbox.h"

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonfuncs.h"
#include "utils/memutils.h"

static int	sb_hex4(const char *p);

/*
 * The deepest nesting of arrays and objects accepted from the child.  The
 * child's serializer stops at 100 levels.
 */
#define SB_JSON_MAX_DEPTH	1000

/*
 * The range numeric_in accepts, which jsonb applies to every number: at
 * most 131072 decimal digits before the point (weight 32767 in base 10000)
 * and a display scale of at most 16383.
 */
#define SB_NUMERIC_MAX_INT_DIGITS	131072
#define SB_NUMERIC_MAX_DSCALE		16383

/* longer texts are refused: jsonb holds at most 256 MB, and no result needs it */
#define SB_JSONB_MAX_TEXT	((Size) 128 << 20)

/*
 * How much memory building a jsonb may take: 64 times the text, at least
 * 64 MB, at most 1 GB.  Measured on PostgreSQL 15, rows of a DataFrame take
 * 12 to 60 times their text (60 for many small integers), a list of small
 * lists 77; floods of empty objects 220.
 */
#define SB_JSONB_MEMORY_FACTOR	64
#define SB_JSONB_MEMORY_FLOOR	((Size) 64 << 20)
#define SB_JSONB_MEMORY_MAX		((Size) 1 << 30)

/*
 * numeric prints a number in full: "1e131071" (8 bytes of JSON) becomes
 * 131,072 digits when the jsonb holding it is output, in one string that
 * jsonb_out (or array_out) builds without a check for interrupts: 7,000 of
 * them, a 63 kB result, took 18 s and 900 MB of the backend, deaf to
 * statement_timeout and cancel.  The digits a text's numbers gain in print,
 * over what they take in the text, are limited to this in all.
 */
/* SB_NUMBER_MAX_EXPANSION (pysandbox.h) */

/* interrupts and the budget are checked every this many tokens */
#define SB_JSONB_TICK		4096

/*
 * Is the JSON number starting at p (ending before end) within numeric's
 * range?  Sets *next past it.  Only the shape of a JSON number is read; the
 * parser checks the syntax afterwards, and anything malformed fails there.
 */
static bool
sb_json_number_ok(const char *p, const char *end, const char **next, Size *extra)
{
	const char *start = p;
	int64		int_digits = 0;
	int64		frac_digits = 0;
	int64		exponent = 0;
	bool		negative_exponent = false;

	if (p < end && *p == '-')
		p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		int_digits++;
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
			frac_digits++;
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			negative_exponent = *p++ == '-';
		/* saturate: anything past 10^9 is out of range either way */
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (exponent < 1000000000)
				exponent = exponent * 10 + (*p - '0');
		if (negative_exponent)
			exponent = -exponent;
	}
	*next = p;
	if (int_digits + exponent > SB_NUMERIC_MAX_INT_DIGITS ||
		frac_digits - exponent > SB_NUMERIC_MAX_DSCALE)
		return false;
	{
		/* numeric_out: a sign, the integral digits (at least one), a point and the scale's */
		int64		scale = Max(frac_digits - exponent, 0);
		int64		printed = (*start == '-') + Max(int_digits + exponent, 1) + scale + (scale > 0);

		if (printed > p - start)
			*extra += (Size) (printed - (p - start));
	}
	return true;
}

/*
 * The digits the numbers written in a value's text (a numeric array, a row
 * holding numerics) would gain when the value is printed, as sb_json_check
 * counts them; a number outside numeric's range counts nothing (its input
 * function says so).
 */
Size
sb_number_expansion(const char *text, Size len)
{
	const char *p = text;
	const char *end = text + len;
	Size		extra = 0;

	while (p < end)
	{
		const char *next = p;
		Size		one = 0;

		if ((*p >= '0' && *p <= '9') || *p == '.')
		{
			if (sb_json_number_ok(p, end, &next, &one))
				extra += one;
			if (extra > SB_NUMBER_MAX_EXPANSION)
				return extra;
		}
		p = next > p ? next : p + 1;
	}
	return extra;
}

/*
 * Walk JSON text once, as sb_json_check and sb_json_expansion read it:
 * strings skipped (a backslash escapes the next byte), the nesting
 * counted, each number checked against numeric's range and the digits it
 * would gain in print added to *extra.  Returns SB_JSON_VALID (the syntax
 * is not checked here) or the first problem met.
 */
static SbJsonCheck
sb_json_scan(const char *text, Size len, Size *extra)
{
	const char *p = text;
	const char *end = text + len;
	int			depth = 0;

	while (p < end)
	{
		char		c = *p;

		if (c == '"')
		{
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\' && p + 1 < end)
				{
					/*
					 * \u0000 and half a surrogate pair: jsonb (text) cannot
					 * hold them, and the build raises
					 */
					int			code = p[1] == 'u' && end - p >= 6 ? sb_hex4(p + 2) : -1;

					if (code == 0)
						return SB_JSON_NUL;
					if (code >= 0xDC00 && code <= 0xDFFF)
						return SB_JSON_SURROGATE;
					if (code >= 0xD800 && code <= 0xDBFF)
					{
						int			low = end - p >= 12 && p[6] == '\\' && p[7] == 'u' ?
							sb_hex4(p + 8) : -1;

						if (low < 0xDC00 || low > 0xDFFF)
							return SB_JSON_SURROGATE;
						p += 6;	/* past the high half: the low one is no lone half */
					}
					p++;
				}
			if (p < end)
				p++;
		}
		else if (c == '[' || c == '{')
		{
			if (++depth > SB_JSON_MAX_DEPTH)
				return SB_JSON_TOO_DEEP;
			p++;
		}
		else if (c == ']' || c == '}')
		{
			depth--;
			p++;
		}
		else if (c == '-' || (c >= '0' && c <= '9'))
		{
			if (!sb_json_number_ok(p, end, &p, extra))
				return SB_JSON_NUMBER_RANGE;
			if (*extra > SB_NUMBER_MAX_EXPANSION)
				return SB_JSON_NUMBERS_TOO_LONG;
		}
		else
			p++;
	}
	return SB_JSON_VALID;
}

/*
 * The digits the numbers of JSON text would gain when printed, its strings
 * skipped ("3e12345" in a hex digest is text, not a number).  Text with a
 * problem counts what came before it: sb_json_check refuses it after.
 */
Size
sb_json_expansion(const char *text, Size len)
{
	Size		extra = 0;

	(void) sb_json_scan(text, len, &extra);
	return extra;
}

/*
 * Check JSON text from the child before anything builds from it: valid
 * UTF-8 without NULs, no longer than SB_JSONB_MAX_TEXT, nested at most
 * SB_JSON_MAX_DEPTH deep, numbers within numeric's range, and valid JSON.
 * Never raises.
 */
SbJsonCheck
sb_json_check(char *text, Size len)
{
	Size		extra = 0;
	SbJsonCheck problem;
	JsonLexContext *lex;
	JsonSemAction sem;

	if (!sb_text_ok(text, len))
		return SB_JSON_INVALID;
	if (len > SB_JSONB_MAX_TEXT)
		return SB_JSON_TOO_BIG;
	problem = sb_json_scan(text, len, &extra);
	if (problem != SB_JSON_VALID)
		return problem;

	/*
	 * Without de-escaping, so nothing is allocated: with it, the parser
	 * converts \u escapes to the server encoding, and raises where it
	 * cannot.
	 */
	memset(&sem, 0, sizeof(sem));
	lex = makeJsonLexContextCstringLen(text, (int) len, PG_UTF8, false);
	return pg_parse_json(lex, &sem) == JSON_SUCCESS ? SB_JSON_VALID : SB_JSON_INVALID;
}

/* Is text acceptable JSON (sb_json_check)? */
bool
sb_json_ok(char *text, Size len)
{
	return sb_json_check(text, len) == SB_JSON_VALID;
}

/* The memory budget for building a jsonb from len bytes of JSON text. */
Size
sb_jsonb_limit(Size len)
{
	Size		limit = len > SB_JSONB_MEMORY_MAX / SB_JSONB_MEMORY_FACTOR ?
		SB_JSONB_MEMORY_MAX : len * SB_JSONB_MEMORY_FACTOR;

	return Max(limit, SB_JSONB_MEMORY_FLOOR);
}

/* the state of one build: jsonb_in's, plus the budget */
typedef struct SbJsonbBuild
{
	JsonbParseState *parse;
	JsonbValue *res;
	MemoryContext cxt;			/* where the tree grows */
	Size		limit;			/* the most it may hold */
	uint64		tokens;
	bool		over;			/* over budget: build no more */
} SbJsonbBuild;

/*
 * Every SB_JSONB_TICK tokens: interrupts, and the budget.  Returns false
 * once the build is over budget (the parse then only reads on).
 */
static bool
sb_jsonb_tick(SbJsonbBuild *b)
{
	if (b->over)
		return false;
	if (++b->tokens % SB_JSONB_TICK == 0)
	{
		CHECK_FOR_INTERRUPTS();
		if (MemoryContextMemAllocated(b->cxt, true) > b->limit)
			b->over = true;
	}
	return !b->over;
}

/* Open or close an array or object; opening counts as a token. */
static void
sb_jsonb_push(SbJsonbBuild *b, JsonbIteratorToken token, bool opens)
{
	if (opens ? sb_jsonb_tick(b) : !b->over)
		b->res = pushJsonbValue(&b->parse, token, NULL);
}

static void
sb_jsonb_object_start(void *state)
{
	sb_jsonb_push((SbJsonbBuild *) state, WJB_BEGIN_OBJECT, true);
}

static void
sb_jsonb_object_end(void *state)
{
	sb_jsonb_push((SbJsonbBuild *) state, WJB_END_OBJECT, false);
}

static void
sb_jsonb_array_start(void *state)
{
	sb_jsonb_push((SbJsonbBuild *) state, WJB_BEGIN_ARRAY, true);
}

static void
sb_jsonb_array_end(void *state)
{
	sb_jsonb_push((SbJsonbBuild *) state, WJB_END_ARRAY, false);
}

static void
sb_jsonb_field(void *state, char *fname, bool isnull)
{
	SbJsonbBuild *b = (SbJsonbBuild *) state;
	JsonbValue	v;

	if (!sb_jsonb_tick(b))
	{
		pfree(fname);			/* ours (jsonapi.c): over budget, keep nothing */
		return;
	}
	v.type = jbvString;
	v.val.string.len = (int) strlen(fname);
	v.val.string.val = fname;
	b->res = pushJsonbValue(&b->parse, WJB_KEY, &v);
}

static void
sb_jsonb_scalar(void *state, char *token, JsonTokenType tokentype)
{
	SbJsonbBuild *b = (SbJsonbBuild *) state;
	JsonbValue	v;

	if (!sb_jsonb_tick(b))
	{
		if (token != NULL)
			pfree(token);		/* as for a field name */
		return;
	}
	switch (tokentype)
	{
		case JSON_TOKEN_STRING:
			v.type = jbvString;
			v.val.string.len = (int) strlen(token);
			v.val.string.val = token;
			break;
		case JSON_TOKEN_NUMBER:
			/* within numeric's range: sb_json_check() saw to it */
			v.type = jbvNumeric;
			v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																CStringGetDatum(token),
																ObjectIdGetDatum(InvalidOid),
																Int32GetDatum(-1)));
			break;
		case JSON_TOKEN_TRUE:
		case JSON_TOKEN_FALSE:
			v.type = jbvBool;
			v.val.boolean = tokentype == JSON_TOKEN_TRUE;
			break;
		default:
			v.type = jbvNull;
			break;
	}
	if (b->parse == NULL)
	{
		/* a lone scalar: jsonb keeps it as a raw scalar array */
		JsonbValue	va;

		va.type = jbvArray;
		va.val.array.rawScalar = true;
		va.val.array.nElems = 1;
		b->res = pushJsonbValue(&b->parse, WJB_BEGIN_ARRAY, &va);
		b->res = pushJsonbValue(&b->parse, WJB_ELEM, &v);
		b->res = pushJsonbValue(&b->parse, WJB_END_ARRAY, NULL);
	}
	else
		b->res = pushJsonbValue(&b->parse, b->parse->contVal.type == jbvArray ?
								WJB_ELEM : WJB_VALUE, &v);
}

/*
 * A callback of sb_json_rewrite_escapes(): what stands in buf for the
 * character a \u escape (or a surrogate pair's two) names, code; false to
 * keep the escape as it is.
 */
typedef bool (*SbEscapeRewrite) (int code, StringInfo buf);

/* A character past ASCII that UTF-8 can hold (not half a surrogate pair). */
static inline bool
sb_code_past_ascii(int code)
{
	return code >= 0x80 && !(code >= 0xD800 && code <= 0xDFFF);
}

/*
 * JSON text (len bytes, valid) with each \u escape in its strings (a
 * surrogate pair taken as one code point) as rewrite() has it; returns text
 * itself when it holds no backslash, *len the new length.  The one walk of
 * the escapes for the SQL_ASCII, lossy and NUL rewritings below.
 */
static char *
sb_json_rewrite_escapes(char *text, Size *len, SbEscapeRewrite rewrite)
{
	StringInfoData buf;
	bool		in_string = false;
	Size		n = *len;
	Size		i = 0;

	if (memchr(text, '\\', n) == NULL)
		return text;
	initStringInfo(&buf);
	while (i < n)
	{
		char		c = text[i];

		if (c == '"')
			in_string = !in_string;
		if (!in_string || c != '\\' || i + 1 >= n)
		{
			appendStringInfoChar(&buf, c);
			i++;
			continue;
		}
		if (text[i + 1] == 'u' && n - i >= 6)
		{
			int			code = sb_hex4(text + i + 2);
			Size		width = 6;

			CHECK_FOR_INTERRUPTS();	/* an escape at a time */

			if (code >= 0xD800 && code <= 0xDBFF && n - i >= 12 &&
				text[i + 6] == '\\' && text[i + 7] == 'u')
			{
				int			low = sb_hex4(text + i + 8);

				if (low >= 0xDC00 && low <= 0xDFFF)
				{
					code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
					width = 12;
				}
			}
			if (code < 0 || !rewrite(code, &buf))
				appendBinaryStringInfo(&buf, text + i, width);
			i += width;
			continue;
		}
		/* another escape: both characters (an escaped quote stays inside) */
		appendBinaryStringInfo(&buf, text + i, 2);
		i += 2;
	}
	*len = buf.len;
	return buf.data;
}

/* A character past ASCII as its UTF-8 bytes (sb_json_escapes_to_utf8). */
static bool
sb_escape_as_utf8(int code, StringInfo buf)
{
	unsigned char utf8[8];

	if (!sb_code_past_ascii(code))
		return false;
	unicode_to_utf8((pg_wchar) code, utf8);
	appendBinaryStringInfo(buf, (char *) utf8, pg_utf_mblen(utf8));
	return true;
}

/*
 * JSON text (valid) with every \u escape of a character past ASCII written
 * as the character's UTF-8 bytes, for a SQL_ASCII database: PostgreSQL's
 * JSON parser takes such bytes as they are there (jsonb_in does), but has no
 * conversion for an escape (0A000: the call, or sandbox_run's report of an
 * error whose message had an "é", failed).  The child's JSON escapes all
 * non-ASCII text; prints already arrive as UTF-8 there.  A lone surrogate
 * stays an escape, which the parser refuses as it does in UTF8.
 */
static char *
sb_json_escapes_to_utf8(char *text, Size len, Size *newlen)
{
	*newlen = len;
	return sb_json_rewrite_escapes(text, newlen, sb_escape_as_utf8);
}

/*
 * Build jsonb from JSON text (accepted by sb_json_check, in the server
 * encoding) as jsonb_in would, checking interrupts as it goes; NULL if the
 * tree would take more than limit bytes.
 */
Jsonb *
sb_jsonb_build(char *text, Size len, Size limit)
{
	SbJsonbBuild b;
	JsonSemAction sem;
	JsonLexContext *lex;
	MemoryContext old;
	Jsonb	   *result = NULL;

	if (GetDatabaseEncoding() == PG_SQL_ASCII)
		text = sb_json_escapes_to_utf8(text, len, &len);
	memset(&b, 0, sizeof(b));
	b.cxt = AllocSetContextCreate(CurrentMemoryContext, "pysandbox jsonb",
								  ALLOCSET_DEFAULT_SIZES);
	b.limit = limit;
	memset(&sem, 0, sizeof(sem));
	sem.semstate = &b;
	sem.object_start = sb_jsonb_object_start;
	sem.object_end = sb_jsonb_object_end;
	sem.array_start = sb_jsonb_array_start;
	sem.array_end = sb_jsonb_array_end;
	sem.object_field_start = sb_jsonb_field;
	sem.scalar = sb_jsonb_scalar;

	old = MemoryContextSwitchTo(b.cxt);
	lex = makeJsonLexContextCstringLen(text, (int) len, GetDatabaseEncoding(), true);
	PG_TRY();
	{
		pg_parse_json_or_ereport(lex, &sem);
	}
	PG_CATCH();
	{
		/*
		 * the parser's error quotes the child's text in its context: made
		 * printable as the child's own texts are (review 57: C1 controls
		 * and a bidi override reached the terminal)
		 */
		ErrorData  *e;

		MemoryContextSwitchTo(old);
		e = CopyErrorData();
		FlushErrorState();
		sb_error_printable(e);
		ReThrowError(e);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	if (!b.over && b.res != NULL)
		result = JsonbValueToJsonb(b.res);
	MemoryContextDelete(b.cxt);
	return result;
}

/*
 * Describe why valid JSON cannot become jsonb: too deep (54001), too large
 * (54000) or a number numeric cannot hold (22003), as report kind
 * "output".  what names it ("sandbox result").
 */
void
sb_json_failure(SbJsonCheck problem, const char *what, SbFailure *f)
{
	f->kind = "output";
	switch (problem)
	{
		case SB_JSON_TOO_DEEP:
			f->sqlstate = ERRCODE_STATEMENT_TOO_COMPLEX;
			f->message = psprintf("%s is nested more than %d levels deep", what, SB_JSON_MAX_DEPTH);
			f->hint = "Return a flatter structure, such as a DataFrame or a list of records.";
			break;
		case SB_JSON_TOO_BIG:
			f->sqlstate = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			f->message = psprintf("%s is too large to become jsonb", what);
			f->detail = psprintf("Its text may take at most %d MB, and building it at most %d times that in the server's memory (at least %d MB, at most %d MB).",
								 (int) (SB_JSONB_MAX_TEXT >> 20), SB_JSONB_MEMORY_FACTOR,
								 (int) (SB_JSONB_MEMORY_FLOOR >> 20),
								 (int) (SB_JSONB_MEMORY_MAX >> 20));
			f->hint = "Return fewer, larger values: aggregate, or return the rows with sandbox_rows.";
			break;
		case SB_JSON_NUMBERS_TOO_LONG:
			f->sqlstate = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			f->message = psprintf("%s holds numbers whose output would take more than %d MB of digits",
								  what, (int) (SB_NUMBER_MAX_EXPANSION >> 20));
			f->detail = "A number written with an exponent (1e131071) prints in full.";
			f->hint = "Round the numbers, or return them as strings.";
			break;
		case SB_JSON_SURROGATE:
			f->sqlstate = ERRCODE_UNTRANSLATABLE_CHARACTER;
			f->message = psprintf("%s holds text with half a surrogate pair (a code point between \\ud800 and \\udfff alone), which PostgreSQL text cannot hold", what);
			f->hint = "Encode it properly first: s.encode(\"utf-8\", \"replace\").decode(\"utf-8\") replaces it with \"?\".";
			break;
		case SB_JSON_NUL:
			f->sqlstate = ERRCODE_UNTRANSLATABLE_CHARACTER;
			f->message = psprintf("%s holds text with a NUL character (\\u0000), which PostgreSQL text cannot hold", what);
			f->hint = "Remove it before returning: s.replace(\"\\x00\", \"\"), or df[col].str.replace(\"\\x00\", \"\").";
			break;
		default:
			f->sqlstate = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			f->message = psprintf("%s holds a number outside the range of type numeric", what);
			f->detail = "Numbers may have at most 131072 digits before the decimal point and 16383 after it.";
			f->hint = "Round the number, or return it as a string.";
			break;
	}
	f->report_message = f->message;
}

/* \u0000 as "\x00", half a surrogate pair as "\ud800" (sb_json_nul_shown). */
static bool
sb_escape_shown(int code, StringInfo buf)
{
	if (code == 0)
		appendStringInfoString(buf, "\\\\x00");
	else if (code >= 0xD800 && code <= 0xDFFF)
		appendStringInfo(buf, "\\\\u%04x", code);	/* as Python writes it */
	else
		return false;
	return true;
}

/*
 * JSON text (len bytes, valid but for them) whose strings' \\u0000 escapes
 * are shown as "\\x00", as prints show a control character, and half a
 * surrogate pair as "\\ud800": for what describes a call (a child's error
 * report), which PostgreSQL's parser would refuse whole.  Returns text
 * itself when it holds none; *len is the new length.
 */
char *
sb_json_nul_shown(char *text, Size *len)
{
	return sb_json_rewrite_escapes(text, len, sb_escape_shown);
}

/*
 * sb_jsonb_build(), but where a \\u escape names a character the server
 * encoding lacks, NULL with *untranslatable set instead of an error (22P05).
 */
Jsonb *
sb_jsonb_build_encodable(char *text, Size len, Size limit, bool *untranslatable)
{
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile res = NULL;
	volatile bool lacks = false;

	*untranslatable = false;
	if (GetDatabaseEncoding() == PG_UTF8)
		return sb_jsonb_build(text, len, limit);
	PG_TRY();
	{
		res = sb_jsonb_build(text, len, limit);
	}
	PG_CATCH();
	{
		sb_catch_untranslatable(cxt);
		lacks = true;
	}
	PG_END_TRY();
	*untranslatable = lacks;
	return lacks ? NULL : res;
}

/* The value of the 4 hex digits at p, or -1. */
static int
sb_hex4(const char *p)
{
	int			v = 0;
	int			i;

	for (i = 0; i < 4; i++)
	{
		char		c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* A character the server encoding lacks as "?" (sb_jsonb_build_lossy). */
static bool
sb_escape_encodable(int code, StringInfo buf)
{
	unsigned char utf8[8];

	if (!sb_code_past_ascii(code))
		return false;
	unicode_to_utf8((pg_wchar) code, utf8);
	if (sb_try_to_server((char *) utf8, pg_utf_mblen(utf8)) != NULL)
		return false;
	appendStringInfoChar(buf, '?');
	return true;
}

/*
 * sb_jsonb_build() for text that describes a call (a child's error report):
 * in a database whose encoding lacks a character written as a \u escape
 * (LATIN1 has no "\u20ac"), the escape becomes "?" instead of an error
 * (22P05) that would end the call, or sandbox_run's report.  text is valid
 * JSON (checked before).
 */
Jsonb *
sb_jsonb_build_lossy(char *text, Size len, Size limit)
{
	Jsonb	   *res;
	bool		untranslatable;

	res = sb_jsonb_build_encodable(text, len, limit, &untranslatable);
	if (!untranslatable)
		return res;
	text = sb_json_rewrite_escapes(text, &len, sb_escape_encodable);
	return sb_jsonb_build(text, len, limit);
}
