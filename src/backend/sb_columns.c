/*
 * sb_columns.c
 *		Executor values -> columnar buffers for table inputs.
 *
 * One SbColumn per result column collects a validity bitmap and the values
 * in the layout of sb_protocol.h.  Fixed-width types are copied as binary
 * (no output functions); text and varchar are copied straight from the
 * varlena when the database is UTF-8; json/jsonb, arrays (as JSON),
 * numeric-as-Decimal and every other type go through their text form;
 * bytea is sent raw.  Buffers grow with repalloc_huge, so a column may pass
 * 1 GB; the caller enforces pysandbox.max_input_size as they grow.
 */
#include "pysandbox.h"

#include "catalog/pg_type.h"
#include "access/htup_details.h"
#include "common/int.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/cash.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/jsonpath.h"
#include "utils/multirangetypes.h"
#include "utils/numeric.h"
#include "utils/rangetypes.h"
#include "utils/typcache.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include <sys/mman.h>

static char *sb_interval_postgres_text(SbColumn *c, Datum d);

/* pandas datetime64[ns] and timedelta64[ns] span about +-292 years */
#define SB_MAX_ABS_US		INT64CONST(9223372036854775)
/*
 * Python's datetime.date and datetime span years 1 to 9999 (microseconds
 * from 1970-01-01): the range of a language function's own date or time
 * argument, or of its composite argument's field, which arrive as those
 * and not in a pandas column (review 147 F3: 9999-12-31, a common "open
 * end", was refused).  Their infinities go as these two values, which
 * arrive as the text "infinity" and "-infinity", as an array's elements'.
 */
#define SB_PY_MIN_US		INT64CONST(-62135596800000000)
#define SB_PY_MAX_US		INT64CONST(253402300799999999)
#define SB_PY_INFINITY_US	PG_INT64_MAX
#define SB_PY_MINUS_INFINITY_US PG_INT64_MIN

/* Is the column a language function's argument of plain Python values? */
#define SB_PLAIN_ARGUMENT(c) \
	((c)->argument == SB_ARG_SCALAR || (c)->argument == SB_ARG_FIELD)

/*
 * Buffers from SB_HUGE_MIN on live in their own 2 MB-aligned mappings that
 * ask for transparent huge pages: filling one then costs a fault per 2 MB
 * instead of one per 4 kB, which on a virtual machine is most of the cost
 * of building a large column.  A memory context callback unmaps them, so
 * they go away with the request's context on every path, errors included.
 */
#define SB_HUGE_MIN		(2 * 1024 * 1024)

typedef struct SbMapping
{
	MemoryContextCallback cb;
	void	   *base;
	Size		len;
} SbMapping;

static void
sb_mapping_release(void *arg)
{
	SbMapping  *m = (SbMapping *) arg;

	if (m->base != NULL)
		munmap(m->base, m->len);
	m->base = NULL;
}

/* A fresh 2 MB-aligned mapping of at least size bytes into m. */
static void
sb_mapping_create(SbMapping *m, Size size)
{
	Size		len = TYPEALIGN(SB_HUGE_MIN, size);
	Size		total = len + SB_HUGE_MIN;
	char	   *p = mmap(NULL, total, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char	   *aligned;

	if (p == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on a buffer of %zu bytes.", len)));
	aligned = (char *) TYPEALIGN(SB_HUGE_MIN, p);
	if (aligned > p)
		munmap(p, aligned - p);
	if (p + total > aligned + len)
		munmap(aligned + len, (p + total) - (aligned + len));
	(void) madvise(aligned, len, MADV_HUGEPAGE);	/* a hint: 4 kB pages otherwise */
	m->base = aligned;
	m->len = len;
}

/* A mapping of at least size bytes, unmapped when cxt is reset or deleted. */
static SbMapping *
sb_mapping_new(MemoryContext cxt, Size size)
{
	SbMapping  *m = MemoryContextAllocZero(cxt, sizeof(SbMapping));

	sb_mapping_create(m, size);
	m->cb.func = sb_mapping_release;
	m->cb.arg = m;
	MemoryContextRegisterResetCallback(cxt, &m->cb);
	return m;
}

/*
 * size bytes that live as long as cxt: from a mapping of their own (huge
 * pages) when large, else palloc'd.  For large buffers filled once, such as
 * the frames a child sends back.
 */
char *
sb_alloc_large(MemoryContext cxt, Size size)
{
	if (size < SB_HUGE_MIN)
		return MemoryContextAllocHuge(cxt, size);
	return sb_mapping_new(cxt, size)->base;
}

/* Make room for extra more bytes. */
static void
sb_buf_reserve(SbBuf *b, Size extra)
{
	Size		need = b->len + extra;
	Size		cap;

	if (need <= b->cap)
		return;
	if (need > MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table input column is too large")));
	cap = Max(b->cap * 2, Max(need, (Size) 1024));
	cap = Min(cap, MaxAllocHugeSize);
	if (cap < SB_HUGE_MIN)
	{
		b->data = b->data == NULL ? MemoryContextAllocHuge(b->cxt, cap) :
			repalloc_huge(b->data, cap);
		b->cap = cap;
		return;
	}

	/* a new mapping; what was written so far is copied over */
	if (b->map == NULL)
	{
		b->map = sb_mapping_new(b->cxt, cap);
		if (b->data != NULL)
		{
			memcpy(b->map->base, b->data, b->len);
			pfree(b->data);
		}
	}
	else
	{
		SbMapping	old = *b->map;

		sb_mapping_create(b->map, cap);
		memcpy(b->map->base, old.base, b->len);
		munmap(old.base, old.len);
	}
	b->data = b->map->base;
	b->cap = b->map->len;
}

/* Append n bytes. */
static inline void
sb_buf_append(SbBuf *b, const void *p, Size n)
{
	if (b->len + n > b->cap)
		sb_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void
sb_buf_append_int64(SbBuf *b, int64 v)
{
	sb_buf_append(b, &v, sizeof(v));
}

/* Is this kind sent as NUL-terminated byte strings with offsets? */
bool
sb_kind_is_var(int kind)
{
	return kind == SB_COL_TEXT || kind == SB_COL_JSON ||
		kind == SB_COL_BYTES || kind == SB_COL_DECIMAL ||
		kind == SB_COL_NUMERIC_ARRAY || kind == SB_COL_DECIMAL_ARRAY ||
		kind == SB_COL_DATE_ARRAY || kind == SB_COL_TIMESTAMP_ARRAY ||
		kind == SB_COL_TIMESTAMPTZ_ARRAY || kind == SB_COL_DECIMAL_JSON ||
		kind == SB_COL_BYTES_ARRAY || kind == SB_COL_INTERVAL_PARTS;
}

/*
 * The binary column kind of a fixed-width type (numeric counts as float),
 * or SB_COL_TEXT; shared by inputs and sandbox_rows results.
 */
int
sb_fixed_kind(Oid basetype)
{
	switch (basetype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return SB_COL_INT64;
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			return SB_COL_FLOAT64;
		case BOOLOID:
			return SB_COL_BOOL;
		case DATEOID:
			return SB_COL_DATE;
		case TIMESTAMPOID:
			return SB_COL_TIMESTAMP;
		case TIMESTAMPTZOID:
			return SB_COL_TIMESTAMPTZ;
		default:
			return SB_COL_TEXT;
	}
}

/* The column kind used to send input values of type typid. */
int
sb_input_kind(Oid typid, bool numeric_decimal)
{
	Oid			base = getBaseType(typid);

	switch (base)
	{
		case NUMERICOID:
		case CASHOID:			/* money: its amount, as numeric (review 58) */
			return numeric_decimal ? SB_COL_DECIMAL : SB_COL_FLOAT64;
		case INTERVALOID:
			return SB_COL_INTERVAL;
		case JSONOID:
		case JSONBOID:
			/* in decimal mode its fractions are Decimal, as numeric's */
			return numeric_decimal ? SB_COL_DECIMAL_JSON : SB_COL_JSON;
		case BYTEAOID:
			return SB_COL_BYTES;
		default:
			/* a composite: a dict of its fields as row_to_json gives
			 * them, as its arrays' elements are (was the record's text) */
			if (type_is_rowtype(base))
				return numeric_decimal ? SB_COL_DECIMAL_JSON : SB_COL_JSON;
			if (type_is_array(base))
			{
				/*
				 * numeric's elements: NaN as a number, Decimal in decimal
				 * mode; dates and times as a scalar of their type arrives
				 * (review 48: text, timestamptz's in the session's zone)
				 */
				switch (getBaseType(get_element_type(base)))
				{
					case NUMERICOID:
					case CASHOID:	/* their amounts, as a money scalar */
						return numeric_decimal ? SB_COL_DECIMAL_ARRAY : SB_COL_NUMERIC_ARRAY;
					case FLOAT4OID:
					case FLOAT8OID:
						return SB_COL_NUMERIC_ARRAY;	/* NaN, Infinity as floats too */
					case DATEOID:
						return SB_COL_DATE_ARRAY;
					case TIMESTAMPOID:
						return SB_COL_TIMESTAMP_ARRAY;
					case TIMESTAMPTZOID:
						return SB_COL_TIMESTAMPTZ_ARRAY;
					case BYTEAOID:
						return SB_COL_BYTES_ARRAY;	/* bytes, as a scalar (review 75) */
					default:
						/* composites' and jsonb's numbers in them too */
						return numeric_decimal ? SB_COL_DECIMAL_JSON : SB_COL_JSON;
				}
			}
			return sb_fixed_kind(base);
	}
}

/*
 * Column c (just set up, empty) holds a language function's argument, or a
 * field of one (argument: SB_ARG_*).  An interval goes as its parts, which
 * the child makes a timedelta, or with months a relativedelta: an argument
 * is a value, not a DataFrame column whose timedelta64 counts a month as 30
 * days ('1 mon' came as 30 days, and date + it was another date: review 75).
 */
void
sb_column_argument(SbColumn *c, int argument)
{
	c->argument = argument;
	if (c->kind == SB_COL_INTERVAL && c->values.len == 0)
	{
		c->kind = SB_COL_INTERVAL_PARTS;
		sb_buf_append_int64(&c->offsets, 0);
	}
}

/* Set up an empty column of type typid, its buffers in cxt. */
void
sb_column_init(SbColumn *c, const char *name, Oid typid, bool numeric_decimal,
			   MemoryContext cxt)
{
	memset(c, 0, sizeof(*c));
	c->name = MemoryContextStrdup(cxt, name);
	c->typid = typid;
	c->basetype = getBaseType(typid);
	c->kind = sb_input_kind(typid, numeric_decimal);
	c->values.cxt = c->validity.cxt = c->offsets.cxt = cxt;
	if (sb_kind_is_var(c->kind))
	{
		Oid			outfunc;
		bool		isvarlena;

		/* money is read as the numeric it holds (sb_column_append) */
		getTypeOutputInfo(c->basetype == CASHOID ? NUMERICOID : typid, &outfunc, &isvarlena);
		fmgr_info_cxt(outfunc, &c->out, cxt);
		c->fast_text = (c->basetype == TEXTOID || c->basetype == VARCHAROID) &&
			GetDatabaseEncoding() == PG_UTF8;
		sb_buf_append_int64(&c->offsets, 0);
		c->digits = sb_prints_numeric(c->basetype, 0);
		c->numeric_elements = c->kind == SB_COL_NUMERIC_ARRAY &&
			getBaseType(get_element_type(c->basetype)) == NUMERICOID;
		c->interval_text = c->basetype != INTERVALOID && sb_prints_interval(c->basetype);
		c->money_elements = (c->kind == SB_COL_NUMERIC_ARRAY || c->kind == SB_COL_DECIMAL_ARRAY) &&
			getBaseType(get_element_type(c->basetype)) == CASHOID;
		c->float4_elements = c->kind == SB_COL_NUMERIC_ARRAY &&
			getBaseType(get_element_type(c->basetype)) == FLOAT4OID;
	}
}

/*
 * A numeric's weight (in base-10000 digits) and display scale, read from
 * its header as numeric.c lays it out on disk (a short header: sign,
 * display scale and weight in 16 bits; a long one: sign and scale, then a
 * 16-bit weight); false for NaN and the infinities.
 */
static bool
sb_numeric_header(Numeric n, int *weight, int *dscale)
{
	uint16		header = *(uint16 *) VARDATA(n);

	if ((header & 0xC000) == 0xC000)
		return false;			/* NaN, Infinity, -Infinity */
	if (header & 0x8000)
	{
		*dscale = (header & 0x1F80) >> 7;
		*weight = (header & 0x0040 ? ~0x003F : 0) | (header & 0x003F);
	}
	else
	{
		*dscale = header & 0x3FFF;
		*weight = ((int16 *) VARDATA(n))[1];
	}
	return true;
}

/*
 * A numeric's printed length, at most: a sign, four digits per base-10000
 * digit before the point, the point and the scale.
 */
static Size
sb_numeric_printed(Numeric n)
{
	int			weight;
	int			dscale;

	if (!sb_numeric_header(n, &weight, &dscale))
		return 9;				/* NaN, Infinity, -Infinity */
	return 1 + (weight >= 0 ? ((Size) weight + 1) * 4 : 1) + (dscale > 0 ? dscale + 1 : 0);
}

/*
 * What a numeric's print gains over four times its size (and 32 bytes).
 * One inside a jsonb or a jsonpath is as it was stored, perhaps with a
 * short varlena header: read it as PG_GETARG_NUMERIC would.
 */
static Size
sb_numeric_gain(Numeric n)
{
	Size		printed;
	Size		room;

	n = DatumGetNumeric(NumericGetDatum(n));
	printed = sb_numeric_printed(n);
	room = 4 * VARSIZE(n) + 32;

	return printed > room ? printed - room : 0;
}

/* What a jsonpath's numbers gain in print, item by item (sb_datum_gain). */
static Size
sb_jsonpath_gain(JsonPathItem *v)
{
	Size		gain = 0;
	JsonPathItem a;
	JsonPathItem b;
	bool		more = true;

	while (more && gain <= SB_NUMBER_MAX_EXPANSION)
	{
		check_stack_depth();
		CHECK_FOR_INTERRUPTS();
		switch (v->type)
		{
			case jpiNumeric:
				gain += sb_numeric_gain(jspGetNumeric(v));
				break;
			case jpiAnd:
			case jpiOr:
			case jpiEqual:
			case jpiNotEqual:
			case jpiLess:
			case jpiGreater:
			case jpiLessOrEqual:
			case jpiGreaterOrEqual:
			case jpiAdd:
			case jpiSub:
			case jpiMul:
			case jpiDiv:
			case jpiMod:
			case jpiStartsWith:
				jspGetLeftArg(v, &a);
				gain += sb_jsonpath_gain(&a);
				jspGetRightArg(v, &b);
				gain += sb_jsonpath_gain(&b);
				break;
			case jpiNot:
			case jpiIsUnknown:
			case jpiPlus:
			case jpiMinus:
			case jpiFilter:
			case jpiExists:
				jspGetArg(v, &a);
				gain += sb_jsonpath_gain(&a);
				break;
			case jpiDatetime:
				if (v->content.arg)
				{
					jspGetArg(v, &a);
					gain += sb_jsonpath_gain(&a);
				}
				break;
			case jpiLikeRegex:
				jspInitByBuffer(&a, v->base, v->content.like_regex.expr);
				gain += sb_jsonpath_gain(&a);
				break;
			case jpiIndexArray:
				for (int i = 0; i < v->content.array.nelems; i++)
				{
					if (jspGetArraySubscript(v, &a, &b, i))
						gain += sb_jsonpath_gain(&b);
					gain += sb_jsonpath_gain(&a);
				}
				break;
			default:
				break;
		}
		more = jspGetNext(v, &a);
		if (more)
			*v = a;
	}
	return gain;
}

/*
 * What printing value d of type typid gains over its size in numerics'
 * digits: numeric prints in full ("1e131071", a few bytes, is 131,072
 * digits), in arrays, jsonb, rows and ranges too.  An sql() answer of the
 * code's own (array_fill(1e131071::numeric, ...)) was printed into 900 MB
 * without a check for cancel (review 57 F2).
 */
static Size
sb_datum_gain(Datum d, Oid typid, int depth)
{
	Oid			base = getBaseType(typid);
	Size		gain = 0;

	CHECK_FOR_INTERRUPTS();
	if (depth > 32)
		return SB_NUMBER_MAX_EXPANSION + 1;		/* too deep to count: refused */
	if (base == NUMERICOID)
		return sb_numeric_gain(DatumGetNumeric(d));
	if (base == JSONPATHOID)
	{
		JsonPathItem v;

		jspInit(&v, DatumGetJsonPathP(d));
		return sb_jsonpath_gain(&v);
	}
	if (type_is_multirange(base))
	{
		MultirangeType *mr = DatumGetMultirangeTypeP(d);
		TypeCacheEntry *tc = lookup_type_cache(base, TYPECACHE_MULTIRANGE_INFO);
		int32		n;
		RangeType **ranges;

		multirange_deserialize(tc->rngtype, mr, &n, &ranges);
		for (int i = 0; i < n && gain <= SB_NUMBER_MAX_EXPANSION; i++)
			gain += sb_datum_gain(RangeTypePGetDatum(ranges[i]), tc->rngtype->type_id, depth + 1);
		return gain;
	}
	if (base == JSONBOID)
	{
		Jsonb	   *jb = DatumGetJsonbP(d);
		JsonbIterator *it = JsonbIteratorInit(&jb->root);
		JsonbValue	v;
		JsonbIteratorToken tok;
		uint64		n = 0;

		while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
		{
			if ((tok == WJB_VALUE || tok == WJB_ELEM) && v.type == jbvNumeric)
				gain += sb_numeric_gain(v.val.numeric);
			if (++n % 65536 == 0)
				CHECK_FOR_INTERRUPTS();
		}
		return gain;
	}
	if (type_is_array(base))
	{
		ArrayType  *a = DatumGetArrayTypeP(d);
		Oid			elem = ARR_ELEMTYPE(a);
		int16		typlen;
		bool		byval;
		char		align;
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		if (!sb_prints_numeric(elem, depth + 1))
			return 0;
		get_typlenbyvalalign(elem, &typlen, &byval, &align);
		deconstruct_array(a, elem, typlen, byval, align, &elems, &nulls, &n);
		for (int i = 0; i < n && gain <= SB_NUMBER_MAX_EXPANSION; i++)
			if (!nulls[i])
				gain += sb_datum_gain(elems[i], elem, depth + 1);
		return gain;
	}
	if (type_is_range(base))
	{
		RangeType  *r = DatumGetRangeTypeP(d);
		TypeCacheEntry *tc = lookup_type_cache(base, TYPECACHE_RANGE_INFO);
		RangeBound	lower;
		RangeBound	upper;
		bool		empty;

		range_deserialize(tc, r, &lower, &upper, &empty);
		if (!empty && !lower.infinite)
			gain += sb_datum_gain(lower.val, tc->rngelemtype->type_id, depth + 1);
		if (!empty && !upper.infinite)
			gain += sb_datum_gain(upper.val, tc->rngelemtype->type_id, depth + 1);
		return gain;
	}
	if (type_is_rowtype(base))
	{
		HeapTupleHeader th = DatumGetHeapTupleHeader(d);
		TupleDesc	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th),
												  HeapTupleHeaderGetTypMod(th));
		HeapTupleData tuple;
		Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
		bool	   *nulls = palloc(sizeof(bool) * Max(desc->natts, 1));

		tuple.t_len = HeapTupleHeaderGetDatumLength(th);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = InvalidOid;
		tuple.t_data = th;
		heap_deform_tuple(&tuple, desc, values, nulls);
		for (int i = 0; i < desc->natts && gain <= SB_NUMBER_MAX_EXPANSION; i++)
			if (!nulls[i] && !TupleDescAttr(desc, i)->attisdropped)
				gain += sb_datum_gain(values[i], TupleDescAttr(desc, i)->atttypid, depth + 1);
		ReleaseTupleDesc(desc);
		return gain;
	}
	return 0;
}

/* Count what printing d gains (sb_datum_gain) against the column's budget. */
static void
sb_column_count_digits(SbColumn *c, Datum d, uint64 row, const char *input)
{
	c->expansion += sb_datum_gain(d, c->basetype, 0);
	if (c->expansion > SB_NUMBER_MAX_EXPANSION)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the numbers in column \"%s\" of input \"%s\" would print as more than %d MB of digits",
						c->name, input ? input : "", (int) (SB_NUMBER_MAX_EXPANSION >> 20)),
				 errdetail("Row " UINT64_FORMAT " passed the limit: a number written with an exponent (1e131071) prints in full.",
						   c->row_base + row + 1),
				 errhint("Round the numbers in the query, or cast them to float8 or text.")));
}

/*
 * Raise the error for a value pandas cannot hold (sqlstate; target: "for
 * pandas", "for type float64"), worded for a table input's column or a
 * function's argument, with the hint for each.
 */
static void
sb_range_error(SbColumn *c, uint64 row, const char *input, int sqlstate, const char *target,
			   const char *detail, const char *column_hint, const char *argument_hint)
{
	if (c->argument == SB_ARG_NONE)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("value in column \"%s\", row " UINT64_FORMAT " of input \"%s\" is out of range %s",
						c->name, c->row_base + row + 1, input, target),
				 errdetail("%s", detail), errhint("%s", column_hint)));
	ereport(ERROR,
			(errcode(sqlstate),
			 c->argument == SB_ARG_SCALAR ?
			 errmsg("argument \"%s\" is out of range %s", input, target) :
			 c->argument == SB_ARG_FIELD ?
			 errmsg("field \"%s\" of argument \"%s\" is out of range %s", c->name, input, target) :
			 errmsg("field \"%s\" of element " UINT64_FORMAT " of argument \"%s\" is out of range %s",
					c->name, row + 1, input, target),
			 errdetail("%s", detail), errhint("%s", argument_hint)));
}

/* Raise the error for a date/time value pandas cannot hold. */
static void
sb_out_of_range(SbColumn *c, uint64 row, const char *input, const char *what, bool infinite)
{
	const char *detail = infinite ? "pandas %s has no infinity." :
		strcmp(what, "timedelta64[ns]") == 0 ?
		"pandas %s holds about 292 years either way." :
		"pandas %s holds dates from 1677-09-21 to 2262-04-11.";

	sb_range_error(c, row, input, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE, "for pandas",
				   psprintf(detail, what),
				   "Cast the column to text in the query, or filter such rows out.",
				   "Pass it as text (a cast to text in the call), or keep it within the range in the call (LEAST, GREATEST, or NULL for infinity).");
}

/*
 * A plain argument's date or time (microseconds from 1970), or the error
 * for one Python cannot hold.
 */
static int64
sb_plain_moment(SbColumn *c, uint64 row, const char *input, int64 us, bool finite, bool ahead)
{
	if (!finite)
		return ahead ? SB_PY_INFINITY_US : SB_PY_MINUS_INFINITY_US;
	if (us < SB_PY_MIN_US || us > SB_PY_MAX_US)
		sb_range_error(c, row, input, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE, "for Python",
					   "Python's datetime holds years 1 to 9999.",
					   NULL,
					   "Pass it as text (a cast to text in the call), or keep it within the range in the call (LEAST, GREATEST).");
	return us;
}

/*
 * Raise the error for a numeric past float64's range (1e400, 1e-400): it
 * would arrive as an infinity or a zero no row holds, as numeric::float8
 * refuses it (review 104 F5, review 108 F1).
 */
static void
sb_numeric_overflow(SbColumn *c, uint64 row, const char *input)
{
	sb_range_error(c, row, input, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, "for type float64",
				   "numeric arrives as float64, which holds magnitudes from about 5e-324 to 1.8e308.",
				   strcmp(input, "sql()") == 0 ?
				   "Cast the column to text in the query, or round it there; SET pysandbox.options = '{\"numeric\": \"decimal\"}' on the function gives exact decimal.Decimal values." :
				   "Use options => '{\"numeric\": \"decimal\"}' for exact decimal.Decimal values, or cast the column to text in the query.",
				   "Pass it as text (a cast to text in the call), or keep it within float8's range in the call.");
}

/*
 * Whether a numeric is past float64's range (1e400, 1e-400), as
 * numeric::float8 refuses it; its header's weight (in base-10000 digits,
 * sb_numeric_header) rules out all but those within a digit of the edges,
 * without a conversion.
 */
static bool
sb_numeric_past_float64(Numeric n)
{
	int			weight;
	int			dscale;
	double		f8;

	if (!sb_numeric_header(n, &weight, &dscale))
		return false;			/* NaN, Infinity, -Infinity */
	if (weight < 76 && weight > -80)
		return false;			/* 1e304 > |n| > 1e-320, or 0 */
	f8 = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(n)));
	return isinf(f8) ||
		(f8 == 0.0 && !DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(n),
														NumericGetDatum(int64_to_numeric(0)))));
}

/* Refuse a numeric[] value with an element past float64's range (review 108). */
static void
sb_numeric_elements_check(SbColumn *c, Datum d, uint64 row, const char *input)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	deconstruct_array(a, NUMERICOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i] && sb_numeric_past_float64(DatumGetNumeric(elems[i])))
			sb_numeric_overflow(c, row, input);
	pfree(elems);
	pfree(nulls);
}

/*
 * An array of money as the numeric[] of its amounts, as a money scalar
 * arrives (array_to_json writes money's text, "$12.50", and array_agg of a
 * money column came as strings: review 115).  Its dimensions are kept.
 */
Datum
sb_money_array_amounts(Datum d)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(a) == 0)
		return PointerGetDatum(construct_empty_array(NUMERICOID));
	deconstruct_array(a, ARR_ELEMTYPE(a), sizeof(Cash), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			elems[i] = DirectFunctionCall1(cash_numeric, elems[i]);
	return PointerGetDatum(construct_md_array(elems, nulls, ARR_NDIM(a), ARR_DIMS(a),
											  ARR_LBOUND(a), NUMERICOID, -1, false,
											  TYPALIGN_INT));
}

/*
 * A real[] as float8[]: array_to_json writes a real's shortest digits
 * (1.1), a real scalar arrives as the double it is (1.100000023841858, as
 * in PL/Python), and the same value compared unequal with itself in the
 * code (review 151 F3).  Its dimensions are kept.
 */
static Datum
sb_float4_array_doubles(Datum d)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(a) == 0)
		return PointerGetDatum(construct_empty_array(FLOAT8OID));
	deconstruct_array(a, ARR_ELEMTYPE(a), sizeof(float4), true, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			elems[i] = Float8GetDatum((float8) DatumGetFloat4(elems[i]));
	return PointerGetDatum(construct_md_array(elems, nulls, ARR_NDIM(a), ARR_DIMS(a),
											  ARR_LBOUND(a), FLOAT8OID, sizeof(float8),
											  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* Whether typid is money or an array of it (or domains over them). */
bool
sb_is_money(Oid typid)
{
	Oid			base = getBaseType(typid);

	if (type_is_array(base))
		base = getBaseType(get_element_type(base));
	return base == CASHOID;
}

/* Append a variable-length value (already UTF-8 or raw bytes). */
static void
sb_column_append_var(SbColumn *c, const char *p, Size n)
{
	sb_buf_append(&c->values, p, n);
	sb_buf_append(&c->values, "", 1);
	sb_buf_append_int64(&c->offsets, (int64) c->values.len);
}

/* Append a value's text form, converted to UTF-8. */
static void
sb_column_append_text(SbColumn *c, char *s)
{
	int			len = strlen(s);
	char	   *u = pg_server_to_any(s, len, PG_UTF8);

	sb_column_append_var(c, u, u == s ? len : strlen(u));
}

/*
 * Append row `row` (value d, or NULL).  Temporary allocations go to the
 * current memory context, which the caller resets per row.
 */
void
sb_column_append(SbColumn *c, Datum d, bool isnull, uint64 row, const char *input)
{
	static const char zeros[8] = {0};
	int64		i64;
	double		f8;

	if (row % 8 == 0)
		sb_buf_append(&c->validity, zeros, 1);
	if (isnull)
	{
		c->nulls++;
		if (sb_kind_is_var(c->kind))
			sb_column_append_var(c, "", 0);
		else
			sb_buf_append(&c->values, zeros, c->kind == SB_COL_BOOL ? 1 : 8);
		return;
	}
	c->validity.data[row / 8] |= (char) (1 << (row % 8));
	if (c->basetype == CASHOID)
		d = DirectFunctionCall1(cash_numeric, d);	/* '$1,234.50' is 1234.50 */
	if (c->digits && sb_kind_is_var(c->kind))
		sb_column_count_digits(c, d, row, input);

	switch (c->kind)
	{
		case SB_COL_INT64:
			i64 = c->basetype == INT2OID ? DatumGetInt16(d) :
				c->basetype == INT4OID ? DatumGetInt32(d) : DatumGetInt64(d);
			sb_buf_append_int64(&c->values, i64);
			break;
		case SB_COL_FLOAT64:
			f8 = c->basetype == FLOAT4OID ? DatumGetFloat4(d) :
				c->basetype == FLOAT8OID ? DatumGetFloat8(d) :
				DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, d));
			/* past float64's range either way, as numeric::float8 refuses it */
			if (c->basetype != FLOAT4OID && c->basetype != FLOAT8OID &&
				((isinf(f8) && !numeric_is_inf(DatumGetNumeric(d))) ||
				 (f8 == 0.0 &&
				  !DatumGetBool(DirectFunctionCall2(numeric_eq, d,
													NumericGetDatum(int64_to_numeric(0)))))))
				sb_numeric_overflow(c, row, input);
			sb_buf_append(&c->values, &f8, sizeof(f8));
			break;
		case SB_COL_BOOL:
			sb_buf_append(&c->values, DatumGetBool(d) ? "\1" : "\0", 1);
			break;
		case SB_COL_DATE:
			{
				DateADT		date = DatumGetDateADT(d);

				i64 = (int64) date * USECS_PER_DAY + SB_UNIX_OFFSET_US;
				if (SB_PLAIN_ARGUMENT(c))
					i64 = sb_plain_moment(c, row, input, i64, !DATE_NOT_FINITE(date),
										  DATE_IS_NOEND(date));
				else if (DATE_NOT_FINITE(date) || i64 > SB_MAX_ABS_US || i64 < -SB_MAX_ABS_US)
					sb_out_of_range(c, row, input, "datetime64[ns]", DATE_NOT_FINITE(date));
				sb_buf_append_int64(&c->values, i64);
				break;
			}
		case SB_COL_TIMESTAMP:
		case SB_COL_TIMESTAMPTZ:
			{
				Timestamp	ts = DatumGetTimestamp(d);

				if (SB_PLAIN_ARGUMENT(c))
				{
					/* finite timestamps are far from int64's ends */
					sb_buf_append_int64(&c->values,
										sb_plain_moment(c, row, input,
														TIMESTAMP_NOT_FINITE(ts) ? 0 :
														ts + SB_UNIX_OFFSET_US,
														!TIMESTAMP_NOT_FINITE(ts),
														TIMESTAMP_IS_NOEND(ts)));
					break;
				}
				if (TIMESTAMP_NOT_FINITE(ts) || ts > SB_MAX_ABS_US - SB_UNIX_OFFSET_US ||
					ts < -SB_MAX_ABS_US - SB_UNIX_OFFSET_US)
					sb_out_of_range(c, row, input, "datetime64[ns]", TIMESTAMP_NOT_FINITE(ts));
				sb_buf_append_int64(&c->values, ts + SB_UNIX_OFFSET_US);
				break;
			}
		case SB_COL_INTERVAL:
			{
				/* months count as 30 days, as interval comparison does */
				Interval   *iv = DatumGetIntervalP(d);
				int64		days_us;
				int64		months_us;

				if (pg_mul_s64_overflow((int64) iv->day, USECS_PER_DAY, &days_us) ||
					pg_mul_s64_overflow((int64) iv->month * DAYS_PER_MONTH, USECS_PER_DAY, &months_us) ||
					pg_add_s64_overflow(iv->time, days_us, &i64) ||
					pg_add_s64_overflow(i64, months_us, &i64) ||
					(!SB_PLAIN_ARGUMENT(c) && (i64 > SB_MAX_ABS_US || i64 < -SB_MAX_ABS_US)))
					sb_out_of_range(c, row, input, "timedelta64[ns]", false);
				sb_buf_append_int64(&c->values, i64);
				break;
			}
		case SB_COL_INTERVAL_PARTS:
			{
				Interval   *iv = DatumGetIntervalP(d);

				sb_column_append_text(c, psprintf("%d %d " INT64_FORMAT,
												  iv->month, iv->day, iv->time));
				break;
			}
		case SB_COL_BYTES:
			{
				bytea	   *b = DatumGetByteaPP(d);

				sb_column_append_var(c, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
				break;
			}
		case SB_COL_JSON:
		case SB_COL_DECIMAL_JSON:
		case SB_COL_BYTES_ARRAY:
		case SB_COL_NUMERIC_ARRAY:
		case SB_COL_DECIMAL_ARRAY:
		case SB_COL_DATE_ARRAY:
		case SB_COL_TIMESTAMP_ARRAY:
		case SB_COL_TIMESTAMPTZ_ARRAY:
			if (c->numeric_elements)
				sb_numeric_elements_check(c, d, row, input);
			if (c->money_elements)
				d = sb_money_array_amounts(d);
			if (c->float4_elements)
				d = sb_float4_array_doubles(d);
			if (c->interval_text)
				sb_column_append_text(c, sb_interval_postgres_text(c, d));
			else if (type_is_array(c->basetype))
				sb_column_append_text(c, TextDatumGetCString(DirectFunctionCall1(array_to_json, d)));
			else if (type_is_rowtype(c->basetype))
				sb_column_append_text(c, TextDatumGetCString(DirectFunctionCall1(row_to_json, d)));
			else
				sb_column_append_text(c, OutputFunctionCall(&c->out, d));
			break;
		default:				/* SB_COL_TEXT, SB_COL_DECIMAL */
			if (c->fast_text)
			{
				text	   *t = DatumGetTextPP(d);

				sb_column_append_var(c, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
			}
			else if (c->interval_text)
				sb_column_append_text(c, sb_interval_postgres_text(c, d));	/* a range */
			else
				sb_column_append_text(c, OutputFunctionCall(&c->out, d));
			break;
	}
}

/*
 * The text of a value that holds intervals (an array's or a composite's
 * JSON, a range's text) in the one style, whatever the session's
 * IntervalStyle ('-0-1 +1 -3:00:00' under sql_standard, 'P-1M1DT-3H' under
 * iso_8601: review 116, 118); the session's is put back, errors included.
 */
static char *
sb_interval_postgres_text(SbColumn *c, Datum d)
{
	int			save = IntervalStyle;
	char	   *out;

	IntervalStyle = INTSTYLE_POSTGRES;
	PG_TRY();
	{
		if (type_is_array(c->basetype))
			out = TextDatumGetCString(DirectFunctionCall1(array_to_json, d));
		else if (type_is_rowtype(c->basetype))
			out = TextDatumGetCString(DirectFunctionCall1(row_to_json, d));
		else
			out = OutputFunctionCall(&c->out, d);
	}
	PG_FINALLY();
	{
		IntervalStyle = save;
	}
	PG_END_TRY();
	return out;
}

/* Bytes the column has buffered so far. */
Size
sb_column_size(const SbColumn *c)
{
	return c->values.len + c->validity.len + c->offsets.len;
}

/*
 * Empty the column for a streamed input's next row group (its nrows rows
 * are sent), keeping the buffers: their pages are already faulted in.
 */
void
sb_column_rewind(SbColumn *c, uint64 nrows)
{
	c->values.len = 0;
	c->validity.len = 0;
	c->offsets.len = 0;
	c->nulls = 0;
	c->row_base += nrows;
	if (sb_kind_is_var(c->kind))
		sb_buf_append_int64(&c->offsets, 0);
}

/* Queue the column's COLUMN frame; nrows is the row count. */
void
sb_column_add_frame(SbRequest *req, SbColumn *c, uint64 nrows)
{
	SbBuf	   *head = palloc0(sizeof(SbBuf));
	uint64		nulls = c->nulls;

	/*
	 * null count and validity (small: copied together), then for var kinds
	 * the offsets and the values, sent from their own buffers: copying
	 * megabytes of offsets would touch as many fresh pages
	 */
	head->cxt = CurrentMemoryContext;
	sb_buf_append(head, &nulls, sizeof(nulls));
	if (c->nulls > 0)
		sb_buf_append(head, c->validity.data, (nrows + 7) / 8);
	sb_request_add_frame(req, SB_DATA_COLUMN, head->data, head->len,
						 sb_kind_is_var(c->kind) ? c->offsets.data : NULL,
						 sb_kind_is_var(c->kind) ? c->offsets.len : 0,
						 c->values.data, c->values.len);
}

/* The kind's name as the child sees it in the TABLE header. */
const char *
sb_kind_name(int kind)
{
	switch (kind)
	{
		case SB_COL_INT64:
			return "int64";
		case SB_COL_FLOAT64:
			return "float64";
		case SB_COL_BOOL:
			return "bool";
		case SB_COL_DATE:
			return "date";
		case SB_COL_TIMESTAMP:
			return "timestamp";
		case SB_COL_TIMESTAMPTZ:
			return "timestamptz";
		case SB_COL_INTERVAL:
			return "interval";
		case SB_COL_JSON:
			return "json";
		case SB_COL_DECIMAL_JSON:
			return "decimal_json";
		case SB_COL_BYTES_ARRAY:
			return "bytes_array";
		case SB_COL_INTERVAL_PARTS:
			return "interval_parts";
		case SB_COL_BYTES:
			return "bytes";
		case SB_COL_DECIMAL:
			return "decimal";
		case SB_COL_NUMERIC_ARRAY:
			return "numeric_array";
		case SB_COL_DECIMAL_ARRAY:
			return "decimal_array";
		case SB_COL_DATE_ARRAY:
			return "date_array";
		case SB_COL_TIMESTAMP_ARRAY:
			return "timestamp_array";
		case SB_COL_TIMESTAMPTZ_ARRAY:
			return "timestamptz_array";
		default:
			return "text";
	}
}
