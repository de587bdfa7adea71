/* out_csv.c - the CSV writer: one table of a result as RFC 4180 CSV. */
#include "out.h"
#include "formats/core/xalloc.h"
#include "formats/core/xperr.h"
#include "formats/core/suggest.h"
#include "formats/core/dectext.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/*
 * Conventions (xpstat-formats(5) repeats them):
 * - One table per run: --table NAME, else the result's primary table. Every
 *   column is written, also those hidden in text.
 * - Header row: the column keys (snake_case, unit in the name).
 * - Records end in CRLF ("\r\n"), as RFC 4180 says; the last record too.
 *   No BOM. Text is UTF-8; a byte that is not valid UTF-8 becomes U+FFFD.
 * - A field is quoted only when it must be: when it holds a comma, a double
 *   quote, CR or LF, or starts or ends with a space or tab. Quoting is done
 *   as libcsv's csv_fwrite does it: the field in double quotes, inner quotes doubled.
 *   The one other quoted field is the empty field of a one-column table,
 *   written "" so the record is not an empty line that readers skip.
 * - Numbers are raw, with '.' decimals and no thousands separators: integers,
 *   bytes and ids in decimal; durations as the exact decimal number of the
 *   column's unit (29690748000 ps in a _us column is 29690.748; a column
 *   without a unit holds picoseconds); doubles, percentages (0-100) and
 *   fractions (0-1) in the shortest form that reads back to the same double
 *   (up to 17 significant digits, exponent form for very large or small
 *   values, e.g. 1e-05). NaN and infinities are empty fields.
 * - Booleans are true/false; empty cells are empty fields (so is an empty
 *   string).
 * - Text cells (never numbers, even negative ones) that a spreadsheet would
 *   run as a formula - starting with =, +, -, @, tab or CR - get a leading
 *   ' unless --csv-raw.
 */

/* What is written, gathered here and handed to stdio in large pieces: a call per field was a tenth of writing
 * a large table. */
struct sink {
	FILE *f;
	size_t n;
	bool failed;            /* a write failed: the rest is dropped, its errno is with the output (out.h) */
	char buf[64 << 10];
};

static void sink_flush(struct sink *k)
{
	if (!k->failed && fwrite_unlocked(k->buf, 1, k->n, k->f) < k->n) {
		k->failed = true;
		xp_out_write_failed(errno);
	}
	k->n = 0;
}

static void sink_put(struct sink *k, const char *s, size_t n)
{
	while (n > sizeof k->buf - k->n) {      /* the buffer filled up, and handed on */
		size_t room = sizeof k->buf - k->n;
		memcpy(k->buf + k->n, s, room);
		k->n += room;
		s += room;
		n -= room;
		sink_flush(k);
	}
	memcpy(k->buf + k->n, s, n);
	k->n += n;
}

static void sink_char(struct sink *k, char c)
{
	if (k->n == sizeof k->buf)
		sink_flush(k);
	k->buf[k->n++] = c;
}

static void sink_str(struct sink *k, const char *s)
{
	sink_put(k, s, strlen(s));
}

/* In double quotes, inner quotes doubled (RFC 4180; libcsv's csv_fwrite writes the same bytes a character at a
 * time): written in runs between the quotes. */
static void put_quoted(struct sink *k, const char *s, size_t n)
{
	sink_char(k, '"');
	for (const char *q; (q = memchr(s, '"', n)); n -= (size_t)(q + 1 - s), s = q + 1) {
		sink_put(k, s, (size_t)(q + 1 - s));
		sink_char(k, '"');
	}
	sink_put(k, s, n);
	sink_char(k, '"');
}

static bool formula_like(const char *s)
{
	switch (s[0]) {
	case '=': case '+': case '-': case '@': case '\t': case '\r':
		return true;
	default:
		return false;
	}
}

/* What a field's bytes ask of it: quotes (a comma, a double quote, CR, LF), or a UTF-8 check (not ASCII). */
enum { BYTE_QUOTE = 1, BYTE_HIGH = 2 };

/* Whether one of S's N bytes has its high bit set: eight at a time. */
static bool any_high(const char *s, size_t n)
{
	uint64_t acc = 0, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, sizeof w);
		acc |= w;
	}
	for (; i < n; i++)
		acc |= (unsigned char)s[i];
	return acc & UINT64_C(0x8080808080808080);
}

/* The classes of S's bytes together, and its length. A byte at a time this was a third of writing a kernel
 * table; strlen and strcspn go by vector registers, the high bits by words. */
static unsigned classify(const char *s, size_t *len)
{
	size_t n = strlen(s);
	bool quote = strcspn(s, ",\"\r\n") < n;
	*len = n;
	return (quote ? BYTE_QUOTE : 0) | (any_high(s, n) ? BYTE_HIGH : 0);
}

/* Field S of N bytes as it is, or quoted when it must be (classify found a byte that asks for quotes, or it
 * starts or ends with a space or tab); UTF-8 passes through either way. */
static void put_classified(struct sink *k, const char *s, size_t n, unsigned cls, bool lone)
{
	if ((cls & BYTE_QUOTE) || (n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')))
		put_quoted(k, s, n);
	else if (!n && lone)
		sink_str(k, "\"\"");
	else
		sink_put(k, s, n);
}

/* LONE: the only field of its record, where an empty field must not vanish. */
static void put_field(struct sink *k, const char *s, bool lone)
{
	size_t n;
	unsigned cls = classify(s, &n);
	put_classified(k, s, n, cls, lone);
}

static void put_text(struct sink *k, const char *s, const struct xp_out_opts *o, bool lone)
{
	size_t len;
	unsigned cls = classify(s ? s : "", &len);
	bool ascii = !(cls & BYTE_HIGH);
	if (s && ascii && (o->csv_raw || !formula_like(s))) {  /* quoted as it is, without a copy */
		put_classified(k, s, len, cls, lone);
		return;
	}
	char *clean = ascii ? strdup(s ? s : "") : xp_utf8_sanitize(s ? s : "");   /* ASCII is UTF-8 as it is */
	if (!clean)
		xp_oom();

	if (!o->csv_raw && formula_like(clean)) {
		size_t n = strlen(clean);
		char *q = malloc(n + 2);

		if (!q)
			xp_oom();
		q[0] = '\'';
		memcpy(q + 1, clean, n + 1);
		free(clean);
		clean = q;
	}
	put_field(k, clean, lone);
	free(clean);
}

static void put_i64(struct sink *k, int64_t v)
{
	char buf[XP_DEC_SIZE];
	/* INT64_MIN's magnitude does not fit int64_t: negate as unsigned. */
	char *p = xp_dec_back(buf + sizeof buf, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
	sink_put(k, p, (size_t)(buf + sizeof buf - p));
}

static void put_cell(struct sink *k, const struct xp_cell *c, const struct xp_col *col,
		     const struct xp_out_opts *o, bool lone)
{
	char num[64] = "";

	switch (c->type) {
	case XP_T_STR:
		put_text(k, c->v.s, o, lone);
		return;
	case XP_T_NULL:
		break;
	case XP_T_INT:
	case XP_T_ID:
	case XP_T_BYTES:
		put_i64(k, c->v.i);
		return;
	case XP_T_UINT:
		xp_dec_u64(num, c->v.u);
		break;
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC:
		xp_format_f64(c->v.d, num, sizeof(num));
		break;
	case XP_T_BOOL:
		sink_str(k, c->v.b ? "true" : "false");
		return;
	case XP_T_DUR:
		xp_format_dur_exact(c->v.i, col->unit, num, sizeof(num));
		break;
	}
	/* A number never needs quotes; an empty one (null, NaN) is the empty field. */
	size_t n = strlen(num);
	if (!n && lone)
		sink_str(k, "\"\"");
	else
		sink_put(k, num, n);
}

int xp_out_no_table(const struct xp_result *r, const char *name, struct xp_err *e)
{
	char list[sizeof e->msg] = "", hint[256] = "";
	size_t i, n = 0;

	for (i = 0; i < r->n_tables && n < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", r->tables[i]->name);
	if (name && r->n_tables) {
		const char **names = xcalloc(r->n_tables, sizeof(*names));

		for (i = 0; i < r->n_tables; i++)
			names[i] = r->tables[i]->name;
		xp_did_you_mean(hint, sizeof(hint), name, names, r->n_tables, false, 1);
		free(names);
	}
	if (!r->n_tables)
		snprintf(list, sizeof list, "it has no tables");
	if (name)
		return xp_err_set(e, XP_EXIT_USAGE, NULL, "no table %s in %s output; %s%s%s", name, r->command,
				  r->n_tables ? "tables: " : "", list, hint), XP_EXIT_USAGE;
	return xp_err_set(e, XP_EXIT_USAGE, NULL, "%s output has no table to write as CSV; %s%s", r->command,
			  r->n_tables ? "tables: " : "", list), XP_EXIT_USAGE;
}

static const struct xp_table *pick_table(const struct xp_result *r, const char *name, struct xp_err *e)
{
	const struct xp_table *t = NULL;

	if (name)
		t = xp_result_table(r, name);
	else if (r->primary < r->n_tables)
		t = r->tables[r->primary];
	if (!t)
		xp_out_no_table(r, name, e);
	return t;
}

static int csv_write_result(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e)
{
	static const struct xp_out_opts defaults;
	if (!o)
		o = &defaults;
	const struct xp_table *t = pick_table(r, o->table, e);
	if (!t)
		return XP_EXIT_USAGE;
	bool lone = t->n_cols == 1;
	struct sink *k = xmalloc(sizeof *k);
	k->f = f;
	k->n = 0;
	k->failed = false;
	/* One lock for the whole table: stdio locks the stream at every call otherwise. */
	flockfile(f);
	for (size_t c = 0; c < t->n_cols; c++) {
		if (c)
			sink_char(k, ',');
		put_field(k, t->cols[c].key, lone);
	}
	sink_str(k, "\r\n");
	for (size_t row = 0; row < t->n_rows; row++) {
		for (size_t c = 0; c < t->n_cols; c++) {
			if (c)
				sink_char(k, ',');
			put_cell(k, xp_table_cell(t, row, c), &t->cols[c], o, lone);
		}
		sink_str(k, "\r\n");
	}
	sink_flush(k);
	funlockfile(f);
	free(k);
	return 0;
}

const struct xp_writer xp_writer_csv = {
	.name = "csv",
	.description = "one table as RFC 4180 CSV with raw numbers, for spreadsheets",
	.write = csv_write_result,
};
