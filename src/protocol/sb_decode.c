/*
 * sb_decode.c
 *		Checks on what the sandbox child sends, shared by the backend and the
 *		fuzzer (no PostgreSQL or Python headers).
 *
 * The child is hostile.  sb_decode_header() decides, from a frame header
 * alone and the frames seen so far, whether the backend may read the
 * payload: the type must be one a child may send, in an order that makes
 * sense, and the length must fit its type and the output budget.
 * sb_column_check() validates a whole column payload against the row count
 * before any value is read, and sb_column_text() bounds every text value.
 * Nothing here allocates; all arithmetic is overflow-free for any input.
 */
#include "sb_protocol.h"

#include <string.h>

/* Set up a decoder for one call. */
void
sb_decoder_init(SbDecoder *d, uint64_t output_limit, int rows_mode, int rows_ncols)
{
	memset(d, 0, sizeof(*d));
	d->output_limit = output_limit;
	d->rows_mode = rows_mode;
	d->rows_ncols = rows_ncols;
}

/* Count bytes against the output budget. */
static int
sb_charge(SbDecoder *d, uint64_t bytes)
{
	d->output_used += bytes;
	return d->output_used > d->output_limit ? SB_DEC_OUTPUT : SB_DEC_OK;
}

/*
 * Check a frame header before its payload is read.  Returns SB_DEC_OK,
 * SB_DEC_BAD (protocol violation: stop the child) or SB_DEC_OUTPUT (the
 * output limit: stop the child and say so).  On SB_DEC_OK the frame is
 * counted as received.  Only STDOUT and STDERR may come more than once, and
 * each of those costs its header too: a flood of empty frames is not free.
 */
int
sb_decode_header(SbDecoder *d, uint32_t type, uint32_t length)
{
	switch (type)
	{
		case SB_DATA_RESULT:
			/* never while a query of sql() waits to run (review 110 I1) */
			if (d->have_result || d->have_error || d->have_rows || d->rows_mode ||
				d->sql_pending)
				return SB_DEC_BAD;
			d->have_result = 1;
			return sb_charge(d, length);
		case SB_DATA_STDOUT:
		case SB_DATA_STDERR:
			return sb_charge(d, (uint64_t) SB_FRAME_HEADER_SIZE + length);
		case SB_DATA_ERROR:
			if (d->have_result || d->have_error || d->have_rows ||
				length > SB_MAX_ERROR_PAYLOAD)
				return SB_DEC_BAD;
			d->have_error = 1;
			return SB_DEC_OK;
		case SB_DATA_ROWS:
			if (!d->rows_mode || d->have_rows || d->have_result || d->have_error ||
				d->sql_pending || length != sizeof(uint64_t))
				return SB_DEC_BAD;
			d->have_rows = 1;
			return SB_DEC_OK;
		case SB_DATA_COLUMN:
			if (!d->have_rows || d->have_error || d->columns >= d->rows_ncols)
				return SB_DEC_BAD;
			d->columns++;
			return sb_charge(d, length);
		case SB_DATA_SQL:
			/* one at a time, before the call's result */
			if (d->have_result || d->have_error || d->have_rows || d->sql_pending ||
				length > SB_MAX_SQL_PAYLOAD || d->sql_calls >= SB_MAX_SQL_CALLS)
				return SB_DEC_BAD;
			d->sql_pending = 1;
			d->sql_calls++;
			return sb_charge(d, length);
		case SB_DATA_LAST:
			/* once, empty, before the result */
			if (length != 0 || d->have_last || d->have_result || d->have_error ||
				d->have_rows || d->sql_pending)
				return SB_DEC_BAD;
			d->have_last = 1;
			return SB_DEC_OK;
		case SB_DATA_VIOLATION:
			/* the child's SIGSYS handler sends one and exits */
			if (length != sizeof(SbViolation) || d->have_violation)
				return SB_DEC_BAD;
			d->have_violation = 1;
			return SB_DEC_OK;
		case SB_DATA_WHERE:
			/* the child's SIGPROF handler sends one and exits */
			if (length != sizeof(SbWhere) || d->have_where)
				return SB_DEC_BAD;
			d->have_where = 1;
			return SB_DEC_OK;
		default:
			return SB_DEC_BAD;
	}
}

/* The backend has queued the answer to the child's SB_DATA_SQL. */
void
sb_decoder_sql_answered(SbDecoder *d)
{
	d->sql_pending = 0;
}

/* Is kind one this protocol knows, and does it carry var-length values? */
static int
sb_kind_width(int kind, int *is_var)
{
	*is_var = 0;
	switch (kind)
	{
		case SB_COL_BOOL:
			return 1;
		case SB_COL_INT64:
		case SB_COL_FLOAT64:
		case SB_COL_DATE:
		case SB_COL_TIMESTAMP:
		case SB_COL_TIMESTAMPTZ:
		case SB_COL_INTERVAL:
			return 8;
		case SB_COL_TEXT:
		case SB_COL_JSON:
		case SB_COL_BYTES:
		case SB_COL_DECIMAL:
		case SB_COL_NUMERIC_ARRAY:
		case SB_COL_DECIMAL_ARRAY:
		case SB_COL_DATE_ARRAY:
		case SB_COL_TIMESTAMP_ARRAY:
		case SB_COL_TIMESTAMPTZ_ARRAY:
		case SB_COL_DECIMAL_JSON:
		case SB_COL_BYTES_ARRAY:
		case SB_COL_INTERVAL_PARTS:
			*is_var = 1;
			return 0;
		default:
			return -1;
	}
}

/*
 * The values of a var kind are laid end to end: the offsets never go back,
 * and a NULL's value is empty (at most its NUL).  So the values' lengths add
 * up to the data's length, which the output budget was charged for.
 * Without this, offsets
 * 0, L, 0, L, ... over NULL odd rows made every even row the same L bytes:
 * one value, charged once, became nrows / 2 values in the backend (a 2 MB
 * budget gave 2 GB of rows in temporary files).
 */
static int
sb_offsets_check(const SbColumnView *v)
{
	int64_t		from,
				to;
	uint64_t	row;

	memcpy(&from, v->offsets, 8);
	for (row = 0; row < v->nrows; row++)
	{
		memcpy(&to, v->offsets + (row + 1) * 8, 8);
		if (to < from)
			return -1;
		if (to - from > 1 && v->validity != NULL &&
			!((v->validity[row / 8] >> (row % 8)) & 1))
			return -1;
		from = to;
	}
	return 0;
}

/*
 * Validate a column payload of nrows values of the given kind and fill v.
 * Returns 0, or -1 if the payload does not have exactly that shape.
 */
int
sb_column_check(const char *p, uint64_t len, uint64_t nrows, int kind, SbColumnView *v)
{
	uint64_t	pos = 8;
	int			is_var;
	int			width = sb_kind_width(kind, &is_var);

	memset(v, 0, sizeof(*v));
	/* every row costs at least one bit, so nrows is bounded by len */
	if (width < 0 || len < 8 || nrows > len * 8)
		return -1;
	memcpy(&v->null_count, p, 8);
	if (v->null_count > nrows)
		return -1;
	if (v->null_count > 0)
	{
		if ((nrows + 7) / 8 > len - pos)
			return -1;
		v->validity = (const unsigned char *) p + pos;
		pos += (nrows + 7) / 8;
	}
	v->nrows = nrows;
	v->kind = kind;
	if (is_var)
	{
		int64_t		first,
					last;

		if (nrows + 1 > (len - pos) / 8)
			return -1;
		v->offsets = p + pos;
		pos += (nrows + 1) * 8;
		v->data = p + pos;
		v->data_len = len - pos;
		memcpy(&first, v->offsets, 8);
		memcpy(&last, v->offsets + nrows * 8, 8);
		if (first != 0 || last < 0 || (uint64_t) last != v->data_len)
			return -1;
		if (sb_offsets_check(v) != 0)
			return -1;
		return 0;
	}
	if (len - pos != (uint64_t) width * nrows)
		return -1;
	v->values = p + pos;
	return 0;
}

/* Is row present (not NULL)? */
int
sb_column_valid(const SbColumnView *v, uint64_t row)
{
	return v->validity == NULL || ((v->validity[row / 8] >> (row % 8)) & 1);
}

/*
 * Bounds of text value `row`: it spans offsets[row] to offsets[row + 1] - 1
 * and must be followed by its NUL terminator.  Returns 0 and sets *start
 * and *length, or -1 if the offsets are inconsistent.
 */
int
sb_column_text(const SbColumnView *v, uint64_t row, const char **start, uint64_t *length)
{
	int64_t		from,
				to;

	if (row >= v->nrows)
		return -1;
	memcpy(&from, v->offsets + row * 8, 8);
	memcpy(&to, v->offsets + (row + 1) * 8, 8);
	if (from < 0 || to <= from || (uint64_t) to > v->data_len || v->data[to - 1] != '\0')
		return -1;
	*start = v->data + from;
	*length = (uint64_t) (to - 1 - from);
	return 0;
}
