/* report_read.c - reading a saved xpstat JSON document (a report, or any command's result) back into typed results. */
#include "report_read.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static void oom(void)
{
	fputs("xpstat: out of memory\n", stderr);
	abort();
}

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

static int64_t to_ps(double v, enum xp_unit u)
{
	double ps = v * unit_scale(u);
	if (!isfinite(ps) || fabs(ps) > 9.2e18)
		return 0;
	return (int64_t)llround(ps);
}

/* --- summary ------------------------------------------------------------------------------------- */

static void read_summary(struct xp_result *r, const cJSON *sum)
{
	const cJSON *v;
	cJSON_ArrayForEach(v, sum) {
		enum xp_unit u;
		const char *k = v->string ? v->string : "";
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
}

/* --- tables --------------------------------------------------------------------------------------- */

/* Column of KEY, added with the type of the first non-null value found under it. */
static size_t column(struct xp_table *t, const cJSON *rows, const char *key)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (!strcmp(t->cols[c].key, key))
			return c;
	enum xp_type type = XP_T_NULL;
	enum xp_unit unit = XP_U_NONE;
	const cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
		if (v && (type = type_of(key, v, &unit)) != XP_T_NULL)
			break;
	}
	/* A column of integers with one fraction somewhere is a column of doubles. */
	if (type == XP_T_INT)
		cJSON_ArrayForEach(row, rows) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
			if (v && cJSON_IsNumber(v) && !whole(v->valuedouble))
				type = XP_T_F64;
		}
	return xp_table_col(t, key, key, type, unit, 0);
}

static void set_cell(struct xp_table *t, size_t row, size_t c, const cJSON *v)
{
	const struct xp_col *col = &t->cols[c];
	if (cJSON_IsString(v)) {
		xp_set_str(t, row, c, v->valuestring);
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

static void read_table(struct xp_result *r, const char *name, const cJSON *rows)
{
	struct xp_table *t = xp_result_add_table(r, name, name);
	const cJSON *row, *v;
	if (!cJSON_IsArray(rows))
		return;
	cJSON_ArrayForEach(row, rows)
		cJSON_ArrayForEach(v, row)
			column(t, rows, v->string ? v->string : "");
	cJSON_ArrayForEach(row, rows) {
		size_t i = xp_table_row(t);
		cJSON_ArrayForEach(v, row)
			set_cell(t, i, column(t, rows, v->string ? v->string : ""), v);
	}
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

static void read_diags(struct xp_result *r, const cJSON *diags)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, diags) {
		const char *code = str_or_null(d, "code"), *msg = str_or_null(d, "message");
		xp_result_diag(r, severity_of(str_or_null(d, "severity")), code ? code : "", str_or_null(d, "host"),
			       str_or_null(d, "hint"), "%s", msg ? msg : "");
	}
}

/* One command's document as a result. */
static struct xp_result *read_document(const cJSON *doc)
{
	const char *command = str_or_null(doc, "command");
	struct xp_result *r = xp_result_new(command ? command : "");
	const char *verdict = str_or_null(doc, "verdict");
	const cJSON *tables = cJSON_GetObjectItemCaseSensitive(doc, "tables"), *t;
	if (verdict)
		xp_result_set_verdict(r, "%s", verdict);
	read_summary(r, cJSON_GetObjectItemCaseSensitive(doc, "summary"));
	cJSON_ArrayForEach(t, tables)
		read_table(r, t->string ? t->string : "", t);
	read_diags(r, cJSON_GetObjectItemCaseSensitive(doc, "diagnostics"));
	return r;
}

/* --- files ------------------------------------------------------------------------------------------ */

bool xp_saved_json_path(const char *path)
{
	struct stat st;
	char head[64];
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	const char *p = head + strspn(head, " \t\r\n");
	if (*p++ != '{')
		return false;
	p += strspn(p, " \t\r\n");
	return !strncmp(p, "\"schema_version\"", 16);
}

static char *slurp(const char *path, uint64_t max_bytes, size_t *len, struct xp_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		xp_err_set(err, XP_EXIT_BAD_INPUT, path, "cannot open: %s", strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		oom();
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			if (!(buf = realloc(buf, cap)))
				oom();
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (max_bytes && n > max_bytes) {
			xp_err_set(err, XP_EXIT_BAD_INPUT, path, "larger than --max-input-bytes (%llu bytes)",
				   (unsigned long long)max_bytes);
			break;
		}
		if (!got)
			break;
	}
	bool bad = ferror(f) || err->status;
	if (ferror(f))
		xp_err_set(err, XP_EXIT_BAD_INPUT, path, "cannot read: %s", strerror(errno));
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int xp_report_read(const char *path, uint64_t max_bytes, struct xp_report **out, struct xp_err *err)
{
	size_t len;
	*out = NULL;
	char *text = slurp(path, max_bytes, &len, err);
	if (!text)
		return -1;
	int rc = xp_report_parse(path, text, len, out, err);
	free(text);
	return rc;
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

int xp_report_parse(const char *path, const char *text, size_t len, struct xp_report **out, struct xp_err *err)
{
	*out = NULL;
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!doc) {
		uint64_t at = end && end >= text ? (uint64_t)(end - text) : 0;
		return xp_err_at(err, XP_EXIT_BAD_INPUT, path, at, "not a valid JSON document");
	}
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
	const char *command = str_or_null(doc, "command");
	int rc = 0;
	if (!cJSON_IsNumber(ver) || ver->valuedouble != 1)
		rc = xp_err_set(err, XP_EXIT_BAD_INPUT, path, "unsupported schema_version (this xpstat reads version 1)");
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
	struct xp_report *rep = xp_report_new(path);
	rep->from_json = true;
	if (!strcmp(command, "report")) {
		const cJSON *sec;
		cJSON_ArrayForEach(sec, cJSON_GetObjectItemCaseSensitive(doc, "reports")) {
			const char *c = str_or_null(sec, "command");
			xp_report_add(rep, c ? c : sec->string ? sec->string : "", read_document(sec));
		}
	} else {
		xp_report_add(rep, command, read_document(doc));
	}
	cJSON_Delete(doc);
	*out = rep;
	return 0;
}
