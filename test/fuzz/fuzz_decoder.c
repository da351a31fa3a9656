/*
 * fuzz_decoder.c
 *		libFuzzer target over what the backend does with the child's bytes.
 *
 * The input is a hostile byte stream as the child would send it, preceded
 * by four configuration bytes (rows mode, number of columns, output limit).
 * It is cut into frames exactly as the backend reads them; every header
 * goes through sb_decode_header() and, when it allows the payload, the
 * payload is checked the way the backend then uses it: a ROWS frame gives
 * the row count, each COLUMN payload must pass sb_column_check() for the
 * column's kind, and then every value is read (validity bit, fixed value
 * or text bounds).  AddressSanitizer reports any read out of bounds; an
 * assertion failure or a hang is a bug.  Nothing may be read from a payload
 * the decoder refused.
 */
#include "../../src/protocol/sb_protocol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int kinds[] = {
	SB_COL_INT64, SB_COL_FLOAT64, SB_COL_BOOL, SB_COL_TEXT, SB_COL_DATE,
	SB_COL_TIMESTAMP, SB_COL_TIMESTAMPTZ, SB_COL_INTERVAL, SB_COL_JSON,
	SB_COL_BYTES, SB_COL_DECIMAL
};

/*
 * Read every value of a validated column, as sb_rows.c does.  The values
 * read may add up to no more than the payload: a value counted once against
 * the output budget must not come back as many rows.
 */
static void
touch_column(const SbColumnView *v)
{
	volatile unsigned sink = 0;
	uint64_t	row;
	uint64_t	total = 0;

	for (row = 0; row < v->nrows; row++)
	{
		if (!sb_column_valid(v, row))
			continue;
		if (v->values)
		{
			int			width = v->kind == SB_COL_BOOL ? 1 : 8;

			sink += (unsigned char) v->values[row * width + width - 1];
		}
		else
		{
			const char *s;
			uint64_t	n;

			if (sb_column_text(v, row, &s, &n) == 0)
			{
				total += n + 1;
				if (total > v->data_len)
					abort();
				if (n > 0)
					sink += (unsigned char) s[n - 1] + (unsigned char) s[n];
			}
		}
	}
	(void) sink;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	SbDecoder	d;
	uint64_t	nrows = 0;
	int			column = 0;
	size_t		pos = 4;

	if (size < 4)
		return 0;
	sb_decoder_init(&d, (uint64_t) data[2] << (data[3] % 24), data[0] & 1, data[1] % 8);

	while (size - pos >= SB_FRAME_HEADER_SIZE)
	{
		uint32_t	type,
					len;
		int			rc;

		sb_frame_header_decode(data + pos, &type, &len);
		pos += SB_FRAME_HEADER_SIZE;
		rc = sb_decode_header(&d, type, len);
		if (rc != SB_DEC_OK)
			return 0;			/* the backend stops the child here */
		if (len > size - pos)
			return 0;			/* EOF inside the payload */

		/* the backend copies the payload into its own buffer */
		{
			char	   *payload = malloc((size_t) len + 1);

			memcpy(payload, data + pos, len);
			payload[len] = '\0';
			if (type == SB_DATA_ROWS)
				memcpy(&nrows, payload, sizeof(nrows));	/* len checked == 8 */
			else if (type == SB_DATA_SQL && (data[0] & 2))
				sb_decoder_sql_answered(&d);	/* sql(): the backend answered */
			else if (type == SB_DATA_COLUMN)
			{
				SbColumnView v;
				int			kind = kinds[(column + data[1]) % (sizeof(kinds) / sizeof(kinds[0]))];

				if (sb_column_check(payload, len, nrows, kind, &v) == 0)
					touch_column(&v);
				column++;
			}
			free(payload);
		}
		pos += len;
	}
	return 0;
}
