/* out_json.c - the JSON writer: the result written as one JSON document, streamed. */
#include "out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Document (xpstat-formats(5) repeats it):
 *   {"schema_version": 1, "command": "...", "verdict": "..." (only when set),
 *    "summary": {key: value, ...},
 *    "tables": {"<name>": [{<column key>: value, ...}, ...], ...},
 *    "diagnostics": [{"severity", "code", "message", "hint", "host"}, ...]}
 * Keys keep insertion order (summary order, table order, column order), and
 * every column is written, also those hidden in text.
 *
 * Values: integers and bytes as JSON numbers with all their digits (written
 * raw, so 2^63-1 stays exact and nothing becomes 1e+15); durations as exact
 * decimal numbers in the column's (or summary value's) unit, picoseconds
 * when it has none; doubles, percentages (0-100) and fractions (0-1) as the
 * shortest number that reads back to the same double, NaN and infinities as
 * null; 64-bit ids as strings of their decimal value; booleans true/false;
 * empty cells null. Strings are escaped after each byte that is not valid
 * UTF-8 has become U+FFFD, so the document is always valid UTF-8 JSON.
 *
 * The layout is cJSON_Print's, byte for byte (earlier versions built a cJSON
 * tree; a 41,000-step table made half a million nodes and cost more than the
 * analysis): an object opens "{\n", puts each member on its own line indented
 * by one tab per level as "key":<TAB>value, and closes on its own line; an
 * array keeps its elements on one line, separated by ", ". Written straight
 * to the stream, so memory does not grow with the output.
 */

static void put_tabs(FILE *f, int n)
{
	while (n-- > 0)
		putc('\t', f);
}

/* A JSON string: bytes below 0x20, '"' and '\\' escaped as cJSON does; S must be valid UTF-8. */
static void put_escaped(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\') {
			putc(*p, f);
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default: fprintf(f, "\\u%04x", *p);
		}
	}
	putc('"', f);
}

static bool valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* A string value or key; bytes that are not UTF-8 become U+FFFD. */
void xp_json_put_string(FILE *f, const char *s)
{
	if (valid_utf8(s)) {
		put_escaped(f, s);
		return;
	}
	char *clean = xp_utf8_sanitize(s);
	put_escaped(f, clean);
	free(clean);
}

void xp_json_member(FILE *f, int depth, bool first, const char *key)
{
	fputs(first ? "\n" : ",\n", f);
	put_tabs(f, depth + 1);
	xp_json_put_string(f, key ? key : "");
	fputs(":\t", f);
}

void xp_json_object_end(FILE *f, int depth)
{
	putc('\n', f);
	put_tabs(f, depth);
	putc('}', f);
}

static void put_string_or_null(FILE *f, const char *s)
{
	if (s)
		xp_json_put_string(f, s);
	else
		fputs("null", f);
}

static void put_cell(FILE *f, const struct xp_cell *c, enum xp_unit unit)
{
	char num[64];

	switch (c->type) {
	case XP_T_NULL:
		break;
	case XP_T_STR:
		xp_json_put_string(f, c->v.s ? c->v.s : "");
		return;
	case XP_T_INT:
	case XP_T_BYTES:
		fprintf(f, "%" PRId64, c->v.i);
		return;
	case XP_T_UINT:
		fprintf(f, "%" PRIu64, c->v.u);
		return;
	case XP_T_ID:
		fprintf(f, "\"%" PRId64 "\"", c->v.i);
		return;
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC:
		fputs(xp_format_f64(c->v.d, num, sizeof(num)) ? num : "null", f);
		return;
	case XP_T_BOOL:
		fputs(c->v.b ? "true" : "false", f);
		return;
	case XP_T_DUR:
		xp_format_dur_exact(c->v.i, unit, num, sizeof(num));
		fputs(num, f);
		return;
	}
	fputs("null", f);
}

static void put_summary(FILE *f, const struct xp_result *r, int depth)
{
	putc('{', f);
	for (size_t i = 0; i < r->n_summary; i++) {
		xp_json_member(f, depth, i == 0, r->summary[i].key);
		put_cell(f, &r->summary[i].value, r->summary[i].unit);
	}
	xp_json_object_end(f, depth);
}

/* An array of row objects; the array's elements sit one level deeper than it. */
static void put_table(FILE *f, const struct xp_table *t, int depth)
{
	putc('[', f);
	for (size_t row = 0; row < t->n_rows; row++) {
		if (row)
			fputs(", ", f);
		putc('{', f);
		for (size_t c = 0; c < t->n_cols; c++) {
			xp_json_member(f, depth + 1, c == 0, t->cols[c].key);
			put_cell(f, xp_table_cell(t, row, c), t->cols[c].unit);
		}
		xp_json_object_end(f, depth + 1);
	}
	putc(']', f);
}

static void put_diags(FILE *f, const struct xp_result *r, int depth)
{
	static const char *const keys[] = {"severity", "code", "message", "hint", "host"};
	putc('[', f);
	for (size_t i = 0; i < r->n_diags; i++) {
		const struct xp_diag *d = &r->diags[i];
		const char *vals[] = {xp_severity_name(d->severity), d->code, d->message, d->hint, d->host};
		if (i)
			fputs(", ", f);
		putc('{', f);
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
			xp_json_member(f, depth + 1, k == 0, keys[k]);
			put_string_or_null(f, vals[k]);
		}
		xp_json_object_end(f, depth + 1);
	}
	putc(']', f);
}

void xp_json_put_result(FILE *f, const struct xp_result *r, int depth)
{
	putc('{', f);
	xp_json_member(f, depth, true, "schema_version");
	fprintf(f, "%d", XP_SCHEMA_VERSION);
	xp_json_member(f, depth, false, "command");
	xp_json_put_string(f, r->command ? r->command : "");
	if (r->verdict) {
		xp_json_member(f, depth, false, "verdict");
		xp_json_put_string(f, r->verdict);
	}
	xp_json_member(f, depth, false, "summary");
	put_summary(f, r, depth + 1);
	xp_json_member(f, depth, false, "tables");
	putc('{', f);
	for (size_t i = 0; i < r->n_tables; i++) {
		xp_json_member(f, depth + 1, i == 0, r->tables[i]->name);
		put_table(f, r->tables[i], depth + 2);
	}
	xp_json_object_end(f, depth + 1);
	xp_json_member(f, depth, false, "diagnostics");
	put_diags(f, r, depth + 1);
	xp_json_object_end(f, depth);
}

static int json_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o)
{
	(void)o;    /* JSON has no options: it always carries everything */
	xp_json_put_result(f, r, 0);
	putc('\n', f);
	return 0;
}

const struct xp_writer xp_writer_json = {
	.name = "json",
	.description = "one JSON document with every value raw and exact, for programs",
	.write = json_write,
};
