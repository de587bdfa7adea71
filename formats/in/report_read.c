/* report_read.c - reading a saved xpstat JSON document (a report, or any command's result) back into typed results. */
#include "report_read.h"
#include "input.h"
#include "json_lex.h"
#include "formats/core/hash.h"
#include "formats/core/work.h"
#include "formats/core/xalloc.h"
#include "input.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The JSON writer loses the cell types, so they come back from the keys,
 * as the naming rules fix them (CONTRIBUTING, xpstat-formats(5)):
 *   *_ps, *_ns, *_us, *_ms, *_s (not *_per_s)   durations: the exact decimal
 *                                                is read back to picoseconds
 *   *_pct                                        percentages
 *   *_fraction                                   fractions
 *   *_bytes                                      bytes
 *   other numbers                                integers when whole, else doubles
 *   strings, booleans, null                      as they are
 * Numbers pass through a double, so durations come back exact to the
 * picosecond below 2^53 ps (about 2.5 hours) and integers below 2^53.
 */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && !strcmp(s + n - t, tail);
}

/* Picoseconds per unit of a duration key, 0 when KEY names no duration. */
static enum xp_unit dur_unit(const char *key)
{
	if (ends_with(key, "_ps"))
		return XP_U_PS;
	if (ends_with(key, "_ns"))
		return XP_U_NS;
	if (ends_with(key, "_us"))
		return XP_U_US;
	if (ends_with(key, "_ms"))
		return XP_U_MS;
	if (ends_with(key, "_s") && !ends_with(key, "_per_s"))
		return XP_U_S;
	return XP_U_NONE;
}

static double unit_scale(enum xp_unit u)
{
	switch (u) {
	case XP_U_NS: return 1e3;
	case XP_U_US: return 1e6;
	case XP_U_MS: return 1e9;
	case XP_U_S: return 1e12;
	default: return 1;
	}
}

/* What a saved number may reach (check_value): 2^63 and a decimal writer's rounding of it, as a
 * report on a capture whose clock jumped saturates its times at int64's ends. */
#define SAVED_MAX 9.2233720368548e18

static bool whole(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9.2e18;
}

/* The cell type a JSON value under KEY becomes. */
static enum xp_type type_of(const char *key, const cJSON *v, enum xp_unit *unit)
{
	*unit = XP_U_NONE;
	if (cJSON_IsString(v))
		return XP_T_STR;
	if (cJSON_IsBool(v))
		return XP_T_BOOL;
	if (!cJSON_IsNumber(v))
		return XP_T_NULL;
	if ((*unit = dur_unit(key)) != XP_U_NONE)
		return XP_T_DUR;
	if (ends_with(key, "_pct"))
		return XP_T_PCT;
	if (ends_with(key, "_fraction"))
		return XP_T_FRAC;
	if (ends_with(key, "_bytes"))
		return XP_T_BYTES;
	return whole(v->valuedouble) ? XP_T_INT : XP_T_F64;
}

/* A saved number as an integer cell: truncated as a cast would, but a value past int64 (a
 * hand-edited or hostile document) saturates, and NaN is 0, where the cast is undefined. */
static int64_t to_int(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

/* A saved duration in picoseconds, saturated as to_int is: a saturated time
 * reads back as the same. */
static int64_t to_ps(double v, enum xp_unit u)
{
	double ps = v * unit_scale(u);
	if (!isfinite(ps))
		return 0;
	if (ps >= 9223372036854775807.0)
		return INT64_MAX;
	if (ps <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)llround(ps);
}

/* --- tables --------------------------------------------------------------------------------------- */

/* Columns by key: the first row's keys, then a hash of them, so that a
 * table of n rows and k keys costs n * k lookups of O(1), never a scan. */
struct colmap {
	const char **keys;      /* the first row's keys, in order */
	uint32_t *slots;        /* column + 1; 0 = empty */
	size_t n, cap;
};

static size_t colmap_slot(const struct colmap *m, const char *key)
{
	size_t j = (size_t)xp_hash_bytes(XP_HASH_SEED, key, strlen(key)) & (m->cap - 1);
	xp_work_steps++;
	while (m->slots[j] && strcmp(m->keys[m->slots[j] - 1], key)) {
		j = (j + 1) & (m->cap - 1);
		xp_work_steps++;
	}
	return j;
}

/* The column of KEY at position POS of its row: the same position as in the first row, else a lookup. */
static long colmap_find(const struct colmap *m, const char *key, size_t pos)
{
	if (pos < m->n && !strcmp(m->keys[pos], key))
		return (long)pos;
	uint32_t v = m->slots[colmap_slot(m, key)];
	return v ? (long)v - 1 : -1;
}

static void colmap_init(struct colmap *m, const cJSON *first)
{
	m->n = (size_t)cJSON_GetArraySize(first);
	for (m->cap = 16; m->cap < 2 * m->n; m->cap *= 2)
		;
	m->keys = xcalloc(m->n, sizeof *m->keys);
	m->slots = xcalloc(m->cap, sizeof *m->slots);
}

static void colmap_free(struct colmap *m)
{
	free(m->keys);
	free(m->slots);
}

/* The type a column takes: from its first non-null value, as type_of says; a
 * column of integers with one fraction somewhere is a column of doubles. */
struct colkind {
	enum xp_type type;
	enum xp_unit unit;
	int json;               /* cJSON type of its non-null values (true for both booleans), 0 = none yet */
	size_t seen;            /* row + 1 it was last seen in: a key twice in a row */
};

static int json_kind(const cJSON *v)
{
	return cJSON_IsBool(v) ? cJSON_True : v->type & 0xff;
}

static void colkind_take(struct colkind *k, const char *key, const cJSON *v)
{
	if (cJSON_IsNull(v))
		return;
	if (!k->json) {
		k->json = json_kind(v);
		k->type = type_of(key, v, &k->unit);
	}
	if (k->type == XP_T_INT && cJSON_IsNumber(v) && !whole(v->valuedouble))
		k->type = XP_T_F64;
}

static void set_cell(struct xp_table *t, size_t row, size_t c, const cJSON *v)
{
	const struct xp_col *col = &t->cols[c];
	if (cJSON_IsString(v)) {
		/* Pooled: a saved table repeats its texts (host, kernel and op names) row after row. */
		xp_set_str_pooled(t, row, c, v->valuestring);
		return;
	}
	if (cJSON_IsBool(v)) {
		xp_set_bool(t, row, c, cJSON_IsTrue(v));
		return;
	}
	if (!cJSON_IsNumber(v))
		return;
	double d = v->valuedouble;
	switch (col->type) {
	case XP_T_DUR: xp_set_dur(t, row, c, to_ps(d, col->unit)); break;
	case XP_T_PCT: xp_set_pct(t, row, c, d); break;
	case XP_T_FRAC: xp_set_frac(t, row, c, d); break;
	case XP_T_BYTES: xp_set_bytes(t, row, c, to_int(d)); break;
	case XP_T_INT: xp_set_int(t, row, c, to_int(d)); break;
	default: xp_set_f64(t, row, c, d); break;
	}
}

/* What reading a document needs: where errors go, and what names the file in them. */
struct rd {
	const char *path;
	struct xp_err *err;
	bool heads_only;        /* a section's verdict and semantics, not its numbers (combine --analysis) */
};

static int bad(const struct rd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A document that is not what xpstat writes: one line naming the file and the place. */
static int bad(const struct rd *d, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return xp_err_set(d->err, XP_EXIT_BAD_INPUT, d->path, "not an xpstat result: %s", msg);
}

/* Every value a saved document may hold: a string, a number in range, a boolean or null. Numbers
 * stay within int64 (after a duration's unit): what xpstat writes, a saturated time included;
 * the gate's sums and differences of them saturate (xp_sat_add, xp_sat_sub). */
static int check_value(const struct rd *d, const char *where, const char *key, const cJSON *v)
{
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		return bad(d, "%s, key \"%s\": %s where a value belongs", where, key,
			   cJSON_IsArray(v) ? "an array" : "an object");
	if (!cJSON_IsNumber(v))
		return 0;
	enum xp_unit u = dur_unit(key);
	double x = v->valuedouble * (u == XP_U_NONE ? 1 : unit_scale(u));
	if (!(fabs(x) < SAVED_MAX))
		return bad(d, "%s, key \"%s\": the number is out of range", where, key);
	return 0;
}

static int table_shape(const struct rd *d, const char *name, const cJSON *rows, struct colmap *m,
		       struct colkind *kinds)
{
	size_t i = 0;
	const cJSON *row, *v;
	char where[160];
	cJSON_ArrayForEach(row, rows) {
		snprintf(where, sizeof where, "table \"%.64s\", row %zu", name, i + 1);
		if (!cJSON_IsObject(row))
			return bad(d, "%s is not an object", where);
		size_t pos = 0;
		cJSON_ArrayForEach(v, row) {
			long k = colmap_find(m, v->string, pos++);
			if (k < 0)
				return bad(d, "%s, key \"%s\": not a column of the first row", where, v->string);
			if (kinds[k].seen == i + 1)
				return bad(d, "%s, key \"%s\": twice in the row", where, v->string);
			kinds[k].seen = i + 1;
			if (check_value(d, where, v->string, v))
				return -1;
			if (!cJSON_IsNull(v) && kinds[k].json && kinds[k].json != json_kind(v))
				return bad(d, "%s, key \"%s\": values of different types in one column", where, v->string);
			colkind_take(&kinds[k], m->keys[k], v);
		}
		if (pos != m->n)
			return bad(d, "%s: %zu keys where the first row has %zu", where, pos, m->n);
		i++;
	}
	return 0;
}

/* One table: an array of objects that all have the first row's keys (the writer writes every
 * cell, null when empty), each column holding one type of value. */
static int read_table(const struct rd *d, struct xp_result *r, const char *name, const cJSON *rows)
{
	if (!cJSON_IsArray(rows))
		return bad(d, "table \"%.64s\" is not an array of rows", name);
	struct xp_table *t = xp_result_add_table(r, name, name);
	const cJSON *first = rows->child, *row, *v;
	if (!first)
		return 0;
	if (!cJSON_IsObject(first))
		return bad(d, "table \"%.64s\", row 1 is not an object", name);
	struct colmap m;
	colmap_init(&m, first);
	struct colkind *kinds = xcalloc(m.n ? m.n : 1, sizeof *kinds);
	size_t c = 0;
	int rc = 0;
	cJSON_ArrayForEach(v, first) {
		size_t j = colmap_slot(&m, v->string);
		if (m.slots[j]) {
			rc = bad(d, "table \"%.64s\", row 1, key \"%s\": twice in the row", name, v->string);
			break;
		}
		m.keys[c] = v->string;
		m.slots[j] = (uint32_t)++c;
	}
	if (!rc)
		rc = table_shape(d, name, rows, &m, kinds);
	for (c = 0; !rc && c < m.n; c++)
		xp_table_col(t, m.keys[c], m.keys[c], kinds[c].type, kinds[c].unit, 0);
	uint64_t cells = 0;
	cJSON_ArrayForEach(row, rows) {
		if (rc)
			break;
		size_t i = xp_table_row(t), pos = 0;
		cJSON_ArrayForEach(v, row)
			set_cell(t, i, (size_t)colmap_find(&m, v->string, pos++), v);
		cells += m.n;
	}
	xp_work_add(XP_WORK_SAVED, 2 * cells);
	xp_work_flush(XP_WORK_SAVED);
	free(kinds);
	colmap_free(&m);
	return rc;
}

/* --- summary ------------------------------------------------------------------------------------- */

static int read_summary(const struct rd *d, struct xp_result *r, const cJSON *sum)
{
	const cJSON *v;
	if (sum && !cJSON_IsObject(sum))
		return bad(d, "\"summary\" is not an object");
	cJSON_ArrayForEach(v, sum) {
		enum xp_unit u;
		const char *k = v->string;
		if (check_value(d, "summary", k, v))
			return -1;
		switch (type_of(k, v, &u)) {
		case XP_T_STR: xp_sum_str(r, k, k, v->valuestring); break;
		case XP_T_BOOL: xp_sum_bool(r, k, k, cJSON_IsTrue(v)); break;
		case XP_T_DUR: xp_sum_dur(r, k, k, to_ps(v->valuedouble, u), u); break;
		case XP_T_PCT: xp_sum_pct(r, k, k, v->valuedouble); break;
		case XP_T_BYTES: xp_sum_bytes(r, k, k, to_int(v->valuedouble)); break;
		case XP_T_INT: xp_sum_int(r, k, k, to_int(v->valuedouble)); break;
		case XP_T_FRAC:
			xp_sum_f64(r, k, k, v->valuedouble);
			r->summary[r->n_summary - 1].value.type = XP_T_FRAC;
			break;
		default:
			if (cJSON_IsNumber(v)) {
				xp_sum_f64(r, k, k, v->valuedouble);
			} else {
				xp_sum_str(r, k, k, "");
				free(r->summary[r->n_summary - 1].value.v.s);
				r->summary[r->n_summary - 1].value.type = XP_T_NULL;
			}
			break;
		}
	}
	return 0;
}

static enum xp_severity severity_of(const char *s)
{
	if (s && !strcmp(s, "error"))
		return XP_SEV_ERROR;
	if (s && !strcmp(s, "warning"))
		return XP_SEV_WARNING;
	return XP_SEV_INFO;
}

static const char *str_or_null(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int read_diags(const struct rd *d, struct xp_result *r, const cJSON *diags)
{
	const cJSON *g;
	if (diags && !cJSON_IsArray(diags))
		return bad(d, "\"diagnostics\" is not an array");
	cJSON_ArrayForEach(g, diags) {
		if (!cJSON_IsObject(g))
			return bad(d, "a diagnostic is not an object");
		const char *code = str_or_null(g, "code"), *msg = str_or_null(g, "message");
		xp_result_diag(r, severity_of(str_or_null(g, "severity")), code ? code : "", str_or_null(g, "host"),
			       str_or_null(g, "hint"), "%s", msg ? msg : "");
	}
	return 0;
}

/* One command's document as a result; NULL with the error set when it is not what xpstat writes. */
static struct xp_result *read_document(const struct rd *d, const cJSON *doc, const char *command)
{
	if (!cJSON_IsObject(doc)) {
		bad(d, "the section \"%.64s\" is not an object", command);
		return NULL;
	}
	struct xp_result *r = xp_result_new(command);
	const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(doc, "verdict");
	const cJSON *tables = cJSON_GetObjectItemCaseSensitive(doc, "tables"), *t;
	int rc = 0;
	if (verdict && !cJSON_IsString(verdict) && !cJSON_IsNull(verdict))
		rc = bad(d, "\"verdict\" is not a string");
	else if (cJSON_IsString(verdict))
		xp_result_set_verdict(r, "%s", verdict->valuestring);
	const cJSON *sem = cJSON_GetObjectItemCaseSensitive(doc, "semantics");
	if (!rc && sem && !cJSON_IsString(sem))
		rc = bad(d, "\"semantics\" is not a string");
	else if (!rc && sem)
		xp_result_set_semantics(r, sem->valuestring);
	if (!rc && d->heads_only)
		return r;
	if (!rc)
		rc = read_summary(d, r, cJSON_GetObjectItemCaseSensitive(doc, "summary"));
	if (!rc && tables && !cJSON_IsObject(tables))
		rc = bad(d, "\"tables\" is not an object");
	for (t = tables ? tables->child : NULL; t && !rc; t = t->next)
		rc = read_table(d, r, t->string, t);
	if (!rc)
		rc = read_diags(d, r, cJSON_GetObjectItemCaseSensitive(doc, "diagnostics"));
	if (rc) {
		xp_result_free(r);
		return NULL;
	}
	return r;
}

/* --- provenance (what combine checks) -------------------------------------------------------------- */

static char *copy_str(const cJSON *obj, const char *key)
{
	const char *s = str_or_null(obj, key);
	return s ? strdup(s) : NULL;
}

/* One capture of "provenance": every member a string but bytes, a whole number. */
static int read_capture(const struct rd *d, struct xp_report *rep, const cJSON *k)
{
	const char *name = str_or_null(k, "name"), *run = str_or_null(k, "run"), *host = str_or_null(k, "host");
	const char *digest = str_or_null(k, "digest");
	const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(k, "bytes");
	if (!name || !run || !host || !digest || !cJSON_IsNumber(bytes) || !whole(bytes->valuedouble) ||
	    bytes->valuedouble < 0)
		return bad(d, "\"provenance\": a capture needs name, run, host, digest (strings) and bytes");
	const cJSON *producer = cJSON_GetObjectItemCaseSensitive(k, "producer");
	if (producer && !cJSON_IsString(producer))
		return bad(d, "\"provenance\": a capture's producer is not a string");
	xp_report_add_capture(rep, name, run, host, digest, NULL, (uint64_t)bytes->valuedouble);
	if (producer && !(rep->captures[rep->n_captures - 1].producer = strdup(producer->valuestring)))
		xp_oom();
	return 0;
}

/* "provenance" of a report (absent in documents of an older xpstat: REP keeps none). */
static int read_provenance(const struct rd *d, struct xp_report *rep, const cJSON *p)
{
	if (!p)
		return 0;
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(p, "captures");
	if (!cJSON_IsObject(p) || !str_or_null(p, "xpstat_version") || !str_or_null(p, "compat") ||
	    !cJSON_IsArray(caps))
		return bad(d, "\"provenance\" needs xpstat_version, compat and captures");
	rep->version = copy_str(p, "xpstat_version");
	rep->compat = copy_str(p, "compat");
	if (!rep->version || !rep->compat)
		xp_oom();
	const cJSON *k;
	cJSON_ArrayForEach(k, caps)
		if (read_capture(d, rep, k))
			return -1;
	return 0;
}

/* A report's verdict and inputs (combine writes them back). */
static int read_head(const struct rd *d, struct xp_report *rep, const cJSON *doc)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(doc, "inputs"), *v;
	if ((cJSON_GetObjectItemCaseSensitive(doc, "verdict") && !str_or_null(doc, "verdict")) ||
	    (in && !cJSON_IsArray(in)))
		return bad(d, "a report's \"verdict\" is not a string or its \"inputs\" not an array");
	rep->verdict = copy_str(doc, "verdict");
	if (!in)
		return 0;
	rep->inputs = xcalloc((size_t)cJSON_GetArraySize(in) + 1, sizeof *rep->inputs);
	cJSON_ArrayForEach(v, in) {
		if (!cJSON_IsString(v))
			return bad(d, "\"inputs\" holds a value that is not a string");
		if (!(rep->inputs[rep->n_inputs++] = strdup(v->valuestring)))
			xp_oom();
	}
	return 0;
}

/* --- files ------------------------------------------------------------------------------------------ */

/* A saved result, plain or compressed (a baseline kept as .json.gz): its first bytes, decompressed, open
 * a JSON object whose first key is schema_version. */
/* The first bytes of PATH as stored, up to CAP of them, into HEAD; their count, or -1 when it cannot be opened. */
static ssize_t raw_head(const char *path, char *head, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < cap) {
		ssize_t got = read(fd, head + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	return (ssize_t)n;
}

bool xp_saved_json_path(const char *path)
{
	struct stat st;
	char head[64];
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return false;
	/* a plain file's first bytes read as they are: the decompressing reader reads a megabyte at a time, and
	 * every load asks this of each capture (a tenth of a one-step export of a small capture) */
	ssize_t raw = raw_head(path, head, sizeof head - 1);
	if (raw < 0)
		return false;
	size_t n = (size_t)raw;
	if (xp_sniff((const uint8_t *)head, n) != XP_COMP_NONE) {
		struct xp_pull *pull;
		struct xp_err err = {0};
		if (xp_pull_open(path, 0, false, &pull, &err))
			return false;
		n = 0;
		for (int64_t got = 1; got > 0 && n < sizeof head - 1; n += (size_t)got)
			if ((got = xp_pull_read(pull, (uint8_t *)head + n, sizeof head - 1 - n, &err)) < 0)
				got = 0;
		xp_pull_close(pull);
	}
	head[n] = 0;
	const char *p = head + strspn(head, " \t\r\n");
	if (*p++ != '{')
		return false;
	p += strspn(p, " \t\r\n");
	return !strncmp(p, "\"schema_version\"", 16);
}

static int parse(const char *path, const char *text, size_t len, bool heads_only, struct xp_report **out,
		 struct xp_err *err);

/* --- heads only: the document less its sections' numbers ---------------------------------------------- */

/*
 * combine --analysis reads of each report its provenance, its state and each section's verdict and
 * semantics. A report's tables are most of its bytes, so they are lexed (every byte still validated:
 * a truncated report is refused as one) but not parsed into a tree: the document is copied less each
 * section's summary, tables and diagnostics, and that copy is parsed.
 */
struct strip {
	const struct jlex *lx;
	char *out;
	size_t n;
	const char *const *keep;        /* the state tables kept (NULL-terminated; NULL: all) */
};

/* Where a member is: the document, "reports", a section, "state", the state's "tables". */
enum where { W_DOC, W_REPORTS, W_SECTION, W_STATE, W_STATE_TABLES };

static void put(struct strip *s, const uint8_t *p, size_t n)
{
	memcpy(s->out + s->n, p, n);
	s->n += n;
}

static const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end)
{
	while (p < end && jl_is_ws(*p))
		p++;
	return p;
}

static bool key_is(const struct jval *k, const char *name)
{
	return k->len == strlen(name) && !memcmp(k->p, name, k->len);
}

/* The member K of an object at W is left out: a section's numbers, a state table not asked for. */
static bool dropped(const struct strip *s, const struct jval *k, enum where w)
{
	if (w == W_SECTION)
		return key_is(k, "summary") || key_is(k, "tables") || key_is(k, "diagnostics");
	if (w != W_STATE_TABLES || !s->keep)
		return false;
	for (const char *const *t = s->keep; *t; t++)
		if (key_is(k, *t))
			return false;
	return true;
}

/* The object under member K of an object at W that is walked too (-1: none, copied whole). */
static int walked(const struct jval *k, enum where w)
{
	if (w == W_DOC)
		return key_is(k, "reports") ? W_REPORTS : key_is(k, "state") ? W_STATE : -1;
	if (w == W_REPORTS)
		return W_SECTION;
	if (w == W_STATE)
		return key_is(k, "tables") ? W_STATE_TABLES : -1;
	return -1;
}

/* Copy the object at *PP less the members dropped() names, walking those walked() names. */
static int strip_object(struct strip *s, const uint8_t **pp, enum where where)
{
	int level = where == W_DOC ? 0 : where == W_REPORTS || where == W_STATE ? 1 : 2;
	const struct jlex *lx = s->lx;
	const uint8_t *p = *pp, *end = lx->end;
	bool first_in = true, first_out = true;
	put(s, p++, 1);
	for (;;) {
		p = skip_ws(p, end);
		if (p < end && *p == '}') {
			p++;
			break;
		}
		if (!first_in) {
			if (p >= end || *p != ',')
				return jl_err(lx, p < end ? p : end, "',' or '}' expected");
			p = skip_ws(p + 1, end);
		}
		const uint8_t *ks = p;
		struct jval k, v;
		if (p >= end || *p != '"')
			return jl_err(lx, p < end ? p : end, "a member name expected");
		if (jl_value(lx, &p, level, &k))
			return J_ERR;
		const uint8_t *ke = p;
		p = skip_ws(p, end);
		if (p >= end || *p != ':')
			return jl_err(lx, p < end ? p : end, "':' expected");
		p = skip_ws(p + 1, end);
		if (p >= end)
			return jl_err(lx, end, "a value expected");
		bool drop = dropped(s, &k, where);
		if (!drop) {
			if (!first_out)
				put(s, (const uint8_t *)",", 1);
			put(s, ks, (size_t)(ke - ks));
			put(s, (const uint8_t *)":", 1);
			first_out = false;
		}
		int inner = *p == '{' && !drop ? walked(&k, where) : -1;
		bool walk = inner >= 0;
		const uint8_t *vs = p;
		if (walk ? strip_object(s, &p, (enum where)inner) : jl_value(lx, &p, level + 1, &v))
			return J_ERR;
		if (!drop && !walk)
			put(s, vs, (size_t)(p - vs));
		first_in = false;
	}
	put(s, (const uint8_t *)"}", 1);
	*pp = p;
	return J_OK;
}

/* TEXT less its sections' numbers into *OUT (freed by the caller); -1 with ERR set when it is not JSON. */
static int strip_numbers(const char *path, const char *text, size_t len, const char *const *keep, char **out,
			 size_t *out_len, struct xp_err *err)
{
	const uint8_t *p = (const uint8_t *)text, *end = p + len;
	struct jlex lx = {.base = p, .end = end, .off0 = 0, .eof = true, .path = path, .err = err};
	struct strip s = {&lx, xmalloc(len + 1), 0, keep};
	p = skip_ws(p, end);
	int rc = p < end && *p == '{' ? strip_object(&s, &p, W_DOC) : jl_err(&lx, p < end ? p : end, "not a JSON object");
	if (!rc && skip_ws(p, end) != end)
		rc = jl_err(&lx, skip_ws(p, end), "text after the document");
	if (rc) {
		/* The lexer names what it usually reads; this is a saved report. */
		static const char lexer[] = "malformed trace JSON: ";
		if (!strncmp(err->msg, lexer, sizeof lexer - 1)) {
			char msg[sizeof err->msg];
			snprintf(msg, sizeof msg, "not a valid JSON document: %s", err->msg + sizeof lexer - 1);
			memcpy(err->msg, msg, sizeof msg);
		}
		free(s.out);
		return -1;
	}
	*out = s.out;
	*out_len = s.n;
	return 0;
}

int xp_report_parse_heads(const char *path, const char *text, size_t len, const char *const *keep,
			  struct xp_report **out, struct xp_err *err)
{
	char *heads = NULL;
	size_t n = 0;
	*out = NULL;
	int rc = strip_numbers(path, text, len, keep, &heads, &n, err) ? -1 : parse(path, heads, n, true, out, err);
	free(heads);
	return rc;
}

static int read_file(const char *path, uint64_t max_bytes, bool heads_only, const char *const *keep,
		     struct xp_scratch *scratch, struct xp_report **out, struct xp_err *err)
{
	*out = NULL;
	/* Mapped, or decompressed when the file is gzip or zstd (report -o x.json.zst). */
	struct xp_buf b;
	if (xp_buf_open_reuse(path, max_bytes ? max_bytes : UINT64_MAX - 2, &b, scratch, err))
		return -1;
	int rc = heads_only ? xp_report_parse_heads(path, (const char *)b.data, (size_t)b.len, keep, out, err)
			    : parse(path, (const char *)b.data, (size_t)b.len, false, out, err);
	xp_buf_close(&b);
	return rc;
}

int xp_report_read(const char *path, uint64_t max_bytes, struct xp_report **out, struct xp_err *err)
{
	return read_file(path, max_bytes, false, NULL, NULL, out, err);
}

int xp_report_read_heads(const char *path, uint64_t max_bytes, const char *const *keep, struct xp_scratch *scratch,
			 struct xp_report **out, struct xp_err *err)
{
	return read_file(path, max_bytes, true, keep, scratch, out, err);
}

/* A command name as xpstat writes them ("kernel-stats", "kernel_stats"): it is
 * echoed in messages and headings, so nothing else may pass for one. */
static bool command_name(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	return n && n <= 64 && !s[n];
}

/* The command of each section of a saved report (its "command", else its key); NULL if one has none. */
static const char *bad_section(const cJSON *reports)
{
	const cJSON *sec;
	cJSON_ArrayForEach(sec, reports) {
		const char *c = str_or_null(sec, "command");
		if (!c)
			c = sec->string ? sec->string : "";
		if (!command_name(c))
			return c;
	}
	return NULL;
}

static int parse(const char *path, const char *text, size_t len, bool heads_only, struct xp_report **out,
		 struct xp_err *err)
{
	*out = NULL;
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!doc) {
		uint64_t at = end && end >= text ? (uint64_t)(end - text) : 0;
		return xp_err_at(err, XP_EXIT_BAD_INPUT, path, at, "not a valid JSON document");
	}
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "not an xpstat result: not a JSON object");
	}
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
	const char *command = str_or_null(doc, "command");
	int rc = 0;
	/* Version 1 wrote 0 where version 2 writes null (not known); what check and compare read of a saved
	 * result -- its tables' rows, its counts -- means the same in both, so both are read. */
	if (!cJSON_IsNumber(ver) || (ver->valuedouble != 1 && ver->valuedouble != XP_SCHEMA_VERSION))
		rc = xp_err_set(err, XP_EXIT_BAD_INPUT, path,
				"unsupported schema_version (this xpstat reads versions 1 and %d): save it again "
				"with this xpstat, or read it with the one that wrote it", XP_SCHEMA_VERSION);
	else if (!command)
		rc = xp_err_set(err, XP_EXIT_BAD_INPUT, path, "not an xpstat result: no \"command\"");
	else if (!command_name(command))
		rc = xp_err_set(err, XP_EXIT_BAD_INPUT, path, "not an xpstat result: \"command\" is not a command name");
	else if (!strcmp(command, "report") && bad_section(cJSON_GetObjectItemCaseSensitive(doc, "reports")))
		rc = xp_err_set(err, XP_EXIT_BAD_INPUT, path,
				"not an xpstat report: a section's \"command\" is not a command name");
	if (rc) {
		cJSON_Delete(doc);
		return rc;
	}
	struct rd d = {path, err, heads_only};
	const cJSON *reports = cJSON_GetObjectItemCaseSensitive(doc, "reports");
	if (!strcmp(command, "report") && !cJSON_IsObject(reports)) {
		cJSON_Delete(doc);
		return bad(&d, "\"reports\" is not an object of sections");
	}
	struct xp_report *rep = xp_report_new(path);
	rep->from_json = true;
	if (!strcmp(command, "report")) {
		const cJSON *sec;
		cJSON_ArrayForEach(sec, reports) {
			const char *c = str_or_null(sec, "command");
			struct xp_result *r = read_document(&d, sec, c ? c : sec->string);
			if (!r) {
				rc = -1;
				break;
			}
			xp_report_add(rep, c ? c : sec->string, r);
		}
	} else {
		struct xp_result *r = read_document(&d, doc, command);
		if (r)
			xp_report_add(rep, command, r);
		else
			rc = -1;
	}
	if (!rc)
		rc = read_provenance(&d, rep, cJSON_GetObjectItemCaseSensitive(doc, "provenance"));
	if (!rc && !strcmp(command, "report"))
		rc = read_head(&d, rep, doc);
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(doc, "state");
	struct rd whole = {path, err, false};
	if (!rc && state && !strcmp(command, "report") && !(rep->state = read_document(&whole, state, "state")))
		rc = -1;
	cJSON_Delete(doc);
	if (rc) {
		xp_report_free(rep);
		return rc;
	}
	*out = rep;
	return 0;
}

int xp_report_parse(const char *path, const char *text, size_t len, struct xp_report **out, struct xp_err *err)
{
	return parse(path, text, len, false, out, err);
}
