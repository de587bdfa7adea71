/* out_json.c - the JSON writer: the result written as one JSON document, streamed. */
#include "out.h"
#include "formats/core/dectext.h"

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

/* The writer owns the stream while it writes (flockfile in the public entry
 * points), so it uses the unlocked stdio calls: locking once per character
 * was an eighth of `report --format json`'s time. */
static void put_raw(FILE *f, const char *s, size_t n)
{
	fwrite_unlocked(s, 1, n, f);
}

static void put_str(FILE *f, const char *s)
{
	fputs_unlocked(s, f);
}

static void put_tabs(FILE *f, int n)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	for (; n > 0; n -= 16)
		put_raw(f, tabs, n < 16 ? (size_t)n : 16);
}

static void put_u64(FILE *f, uint64_t v, bool negative)
{
	char buf[XP_DEC_SIZE], *p = xp_dec_back(buf + sizeof buf, v, negative);
	put_raw(f, p, (size_t)(buf + sizeof buf - p));
}

static void put_i64(FILE *f, int64_t v)
{
	/* The magnitude of INT64_MIN does not fit int64_t: negate as unsigned. */
	put_u64(f, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/* A JSON string: bytes below 0x20, '"' and '\\' escaped as cJSON does; S must be valid UTF-8. */
static void put_escaped(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	const unsigned char *run = (const unsigned char *)s, *p = run;
	for (;; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p != 0x7f && *p != 0xc2 && *p != 0xd8 && *p != 0xe2)
			continue;
		uint32_t cp = 0;
		size_t len = *p >= 0x7f ? xp_utf8_decode(p, strnlen((const char *)p, 4), &cp) : 0;
		if (len && !xp_must_escape(cp)) {
			p += len - 1;
			continue;
		}
		put_raw(f, (const char *)run, (size_t)(p - run));
		if (len) { /* DEL, a C1 control or a bidi override: valid text a terminal would act on */
			fprintf(f, "\\u%04x", (unsigned)cp);
			p += len - 1;
			run = p + 1;
			continue;
		}
		run = p + 1;
		switch (*p) {
		case 0: putc_unlocked('"', f); return;
		case '"': put_str(f, "\\\""); break;
		case '\\': put_str(f, "\\\\"); break;
		case '\b': put_str(f, "\\b"); break;
		case '\f': put_str(f, "\\f"); break;
		case '\n': put_str(f, "\\n"); break;
		case '\r': put_str(f, "\\r"); break;
		case '\t': put_str(f, "\\t"); break;
		default: fprintf(f, "\\u%04x", *p);
		}
	}
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

/* Printable ASCII that needs no escape: most names, written in one piece. A loop over a known length with
 * no early exit, which the compiler turns into vector compares (a kernel name is a hundred bytes or more). */
static bool plain_ascii(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	unsigned char other = 0;
	for (size_t i = 0; i < n; i++)
		other |= (unsigned char)(p[i] - 0x20) >= 0x5f || p[i] == '"' || p[i] == '\\';
	*len = n;
	return !other;
}

/* A string value or key; bytes that are not UTF-8 become U+FFFD. */
static void put_string(FILE *f, const char *s)
{
	size_t len;
	if (plain_ascii(s, &len)) {
		putc_unlocked('"', f);
		put_raw(f, s, len);
		putc_unlocked('"', f);
		return;
	}
	if (valid_utf8(s)) {
		put_escaped(f, s);
		return;
	}
	char *clean = xp_utf8_sanitize(s);
	put_escaped(f, clean);
	free(clean);
}

static void member(FILE *f, int depth, bool first, const char *key)
{
	put_str(f, first ? "\n" : ",\n");
	put_tabs(f, depth + 1);
	put_string(f, key ? key : "");
	put_raw(f, ":\t", 2);
}

static void object_end(FILE *f, int depth)
{
	putc_unlocked('\n', f);
	put_tabs(f, depth);
	putc_unlocked('}', f);
}

static void put_string_or_null(FILE *f, const char *s)
{
	if (s)
		put_string(f, s);
	else
		put_str(f, "null");
}

static void put_cell(FILE *f, const struct xp_cell *c, enum xp_unit unit)
{
	char num[64];

	switch (c->type) {
	case XP_T_NULL:
		break;
	case XP_T_STR:
		put_string(f, c->v.s ? c->v.s : "");
		return;
	case XP_T_INT:
	case XP_T_BYTES:
		put_i64(f, c->v.i);
		return;
	case XP_T_UINT:
		put_u64(f, c->v.u, false);
		return;
	case XP_T_ID:
		putc_unlocked('"', f);
		put_i64(f, c->v.i);
		putc_unlocked('"', f);
		return;
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC:
		put_str(f, xp_format_f64(c->v.d, num, sizeof(num)) ? num : "null");
		return;
	case XP_T_BOOL:
		put_str(f, c->v.b ? "true" : "false");
		return;
	case XP_T_DUR:
		xp_format_dur_exact(c->v.i, unit, num, sizeof(num));
		put_str(f, num);
		return;
	}
	put_str(f, "null");
}

static void put_summary(FILE *f, const struct xp_result *r, int depth)
{
	putc_unlocked('{', f);
	for (size_t i = 0; i < r->n_summary; i++) {
		member(f, depth, i == 0, r->summary[i].key);
		put_cell(f, &r->summary[i].value, r->summary[i].unit);
	}
	object_end(f, depth);
}

/* What member() writes before each column's value, made once per table: a table of millions of rows repeats it. */
static char **member_texts(const struct xp_table *t, int depth, size_t **lens)
{
	char **text = calloc(t->n_cols ? t->n_cols : 1, sizeof *text);
	*lens = calloc(t->n_cols ? t->n_cols : 1, sizeof **lens);
	for (size_t c = 0; text && *lens && c < t->n_cols; c++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&buf, &n);
		if (!m)
			break;
		member(m, depth, c == 0, t->cols[c].key);
		if (fclose(m))
			break;
		text[c] = buf;
		(*lens)[c] = n;
	}
	return text;
}

static void free_texts(char **text, size_t *lens, size_t n)
{
	for (size_t c = 0; text && c < n; c++)
		free(text[c]);
	free(text);
	free(lens);
}

/* An array of row objects; the array's elements sit one level deeper than it. */
static void put_table(FILE *f, const struct xp_table *t, int depth)
{
	size_t *lens;
	char **text = member_texts(t, depth + 1, &lens);
	putc_unlocked('[', f);
	for (size_t row = 0; row < t->n_rows; row++) {
		if (row)
			put_str(f, ", ");
		putc_unlocked('{', f);
		for (size_t c = 0; c < t->n_cols; c++) {
			if (text && lens && text[c])
				put_raw(f, text[c], lens[c]);
			else
				member(f, depth + 1, c == 0, t->cols[c].key);
			put_cell(f, xp_table_cell(t, row, c), t->cols[c].unit);
		}
		object_end(f, depth + 1);
	}
	putc_unlocked(']', f);
	free_texts(text, lens, t->n_cols);
}

static void put_diags(FILE *f, const struct xp_result *r, int depth)
{
	static const char *const keys[] = {"severity", "code", "message", "hint", "host"};
	putc_unlocked('[', f);
	for (size_t i = 0; i < r->n_diags; i++) {
		const struct xp_diag *d = &r->diags[i];
		const char *vals[] = {xp_severity_name(d->severity), d->code, d->message, d->hint, d->host};
		if (i)
			put_str(f, ", ");
		putc_unlocked('{', f);
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
			member(f, depth + 1, k == 0, keys[k]);
			put_string_or_null(f, vals[k]);
		}
		object_end(f, depth + 1);
	}
	putc_unlocked(']', f);
}

static void put_result(FILE *f, const struct xp_result *r, int depth, const struct xp_report *prov)
{
	putc_unlocked('{', f);
	member(f, depth, true, "schema_version");
	put_i64(f, XP_SCHEMA_VERSION);
	if (r->semantics) {
		member(f, depth, false, "semantics");
		put_string(f, r->semantics);
	}
	member(f, depth, false, "command");
	put_string(f, r->command ? r->command : "");
	if (r->verdict) {
		member(f, depth, false, "verdict");
		put_string(f, r->verdict);
	}
	if (prov && prov->version) {
		funlockfile(f);
		xp_json_put_provenance(f, prov);
		flockfile(f);
	}
	member(f, depth, false, "summary");
	put_summary(f, r, depth + 1);
	member(f, depth, false, "tables");
	putc_unlocked('{', f);
	for (size_t i = 0; i < r->n_tables; i++) {
		member(f, depth + 1, i == 0, r->tables[i]->name);
		put_table(f, r->tables[i], depth + 2);
	}
	object_end(f, depth + 1);
	member(f, depth, false, "diagnostics");
	put_diags(f, r, depth + 1);
	object_end(f, depth);
}

/* --- the pieces other writers stream with (each holds the stream's lock) ------------ */

void xp_json_put_result(FILE *f, const struct xp_result *r, int depth)
{
	flockfile(f);
	put_result(f, r, depth, NULL);
	funlockfile(f);
}

void xp_json_put_string(FILE *f, const char *s)
{
	flockfile(f);
	put_string(f, s);
	funlockfile(f);
}

void xp_json_member(FILE *f, int depth, bool first, const char *key)
{
	flockfile(f);
	member(f, depth, first, key);
	funlockfile(f);
}

void xp_json_object_end(FILE *f, int depth)
{
	flockfile(f);
	object_end(f, depth);
	funlockfile(f);
}

/* "provenance": what was read, by names that are the same whatever path was typed (so that combine can
 * check saved reports of one run against each other), and by which xpstat. */
void xp_json_put_provenance(FILE *f, const struct xp_report *rep)
{
	xp_json_member(f, 0, false, "provenance");
	putc('{', f);
	xp_json_member(f, 1, true, "xpstat_version");
	xp_json_put_string(f, rep->version ? rep->version : "");
	xp_json_member(f, 1, false, "compat");
	xp_json_put_string(f, rep->compat ? rep->compat : "xpstat");
	xp_json_member(f, 1, false, "captures");
	putc('[', f);
	for (size_t i = 0; i < rep->n_captures; i++) {
		const struct xp_report_capture *k = &rep->captures[i];
		fputs(i ? ", {" : "{", f);
		xp_json_member(f, 2, true, "name");
		xp_json_put_string(f, k->name);
		xp_json_member(f, 2, false, "run");
		xp_json_put_string(f, k->run);
		xp_json_member(f, 2, false, "host");
		xp_json_put_string(f, k->host);
		if (k->producer) {
			xp_json_member(f, 2, false, "producer");
			xp_json_put_string(f, k->producer);
		}
		xp_json_member(f, 2, false, "bytes");
		fprintf(f, "%llu", (unsigned long long)k->bytes);
		if (k->digest) {
			xp_json_member(f, 2, false, "digest");
			xp_json_put_string(f, k->digest);
		}
		xp_json_object_end(f, 2);
	}
	putc(']', f);
	xp_json_object_end(f, 1);
}

static int json_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e)
{
	flockfile(f);
	put_result(f, r, 0, o ? o->provenance : NULL);
	putc_unlocked('\n', f);
	funlockfile(f);
	return 0;
}

const struct xp_writer xp_writer_json = {
	.name = "json",
	.description = "one JSON document with every value raw and exact, for programs",
	.write = json_write,
};
