/* out_json.c - the JSON writer: the whole result as one cJSON document. */
#include "out.h"

#include <cjson/cJSON.h>
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
 * empty cells null. Strings are escaped by cJSON after each byte that is not
 * valid UTF-8 has become U+FFFD, so the document is always valid UTF-8 JSON.
 * Printed pretty by cJSON_Print (tab indentation) with a final newline.
 */

static void oom(void)
{
	fputs("xpstat: out of memory\n", stderr);
	abort();
}

/* cJSON reports allocation failure as NULL: treat it like any other OOM. */
static cJSON *ok(cJSON *item)
{
	if (!item)
		oom();
	return item;
}

static cJSON *jstring(const char *s)
{
	char *clean = xp_utf8_sanitize(s);
	cJSON *item = ok(cJSON_CreateString(clean));

	free(clean);
	return item;
}

static cJSON *jstring_or_null(const char *s)
{
	return s ? jstring(s) : ok(cJSON_CreateNull());
}

static cJSON *jraw(const char *text)
{
	return ok(cJSON_CreateRaw(text));
}

static void jadd(cJSON *obj, const char *key, cJSON *item)
{
	char *clean = xp_utf8_sanitize(key ? key : "");

	if (!cJSON_AddItemToObject(obj, clean, item))
		oom();
	free(clean);
}

static void jappend(cJSON *arr, cJSON *item)
{
	if (!cJSON_AddItemToArray(arr, item))
		oom();
}

static cJSON *jdouble(double v)
{
	char num[64];

	if (!xp_format_f64(v, num, sizeof(num)))
		return ok(cJSON_CreateNull());
	return jraw(num);
}

static cJSON *jcell(const struct xp_cell *c, enum xp_unit unit)
{
	char num[64];

	switch (c->type) {
	case XP_T_NULL:
		break;
	case XP_T_STR:
		return jstring(c->v.s ? c->v.s : "");
	case XP_T_INT:
	case XP_T_BYTES:
		snprintf(num, sizeof(num), "%" PRId64, c->v.i);
		return jraw(num);
	case XP_T_UINT:
		snprintf(num, sizeof(num), "%" PRIu64, c->v.u);
		return jraw(num);
	case XP_T_ID:
		snprintf(num, sizeof(num), "%" PRId64, c->v.i);
		return ok(cJSON_CreateString(num));
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC:
		return jdouble(c->v.d);
	case XP_T_BOOL:
		return ok(cJSON_CreateBool(c->v.b));
	case XP_T_DUR:
		xp_format_dur_exact(c->v.i, unit, num, sizeof(num));
		return jraw(num);
	}
	return ok(cJSON_CreateNull());
}

static cJSON *jsummary(const struct xp_result *r)
{
	cJSON *obj = ok(cJSON_CreateObject());
	size_t i;

	for (i = 0; i < r->n_summary; i++)
		jadd(obj, r->summary[i].key, jcell(&r->summary[i].value, r->summary[i].unit));
	return obj;
}

static cJSON *jtable(const struct xp_table *t)
{
	cJSON *rows = ok(cJSON_CreateArray());
	size_t row, c;

	for (row = 0; row < t->n_rows; row++) {
		cJSON *obj = ok(cJSON_CreateObject());

		for (c = 0; c < t->n_cols; c++)
			jadd(obj, t->cols[c].key, jcell(xp_table_cell(t, row, c), t->cols[c].unit));
		jappend(rows, obj);
	}
	return rows;
}

static cJSON *jdiags(const struct xp_result *r)
{
	cJSON *arr = ok(cJSON_CreateArray());
	size_t i;

	for (i = 0; i < r->n_diags; i++) {
		const struct xp_diag *d = &r->diags[i];
		cJSON *obj = ok(cJSON_CreateObject());

		jadd(obj, "severity", jstring(xp_severity_name(d->severity)));
		jadd(obj, "code", jstring_or_null(d->code));
		jadd(obj, "message", jstring_or_null(d->message));
		jadd(obj, "hint", jstring_or_null(d->hint));
		jadd(obj, "host", jstring_or_null(d->host));
		jappend(arr, obj);
	}
	return arr;
}

static cJSON *jdocument(const struct xp_result *r)
{
	cJSON *doc = ok(cJSON_CreateObject());
	cJSON *tables = ok(cJSON_CreateObject());
	size_t i;
	char num[32];

	snprintf(num, sizeof(num), "%d", XP_SCHEMA_VERSION);
	jadd(doc, "schema_version", jraw(num));
	jadd(doc, "command", jstring(r->command ? r->command : ""));
	if (r->verdict)
		jadd(doc, "verdict", jstring(r->verdict));
	jadd(doc, "summary", jsummary(r));
	for (i = 0; i < r->n_tables; i++)
		jadd(tables, r->tables[i]->name, jtable(r->tables[i]));
	jadd(doc, "tables", tables);
	jadd(doc, "diagnostics", jdiags(r));
	return doc;
}

struct cJSON *xp_json_document(const struct xp_result *r)
{
	return jdocument(r);
}

static int json_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o)
{
	cJSON *doc = jdocument(r);
	char *text = cJSON_Print(doc);

	(void)o;    /* JSON has no options: it always carries everything */
	cJSON_Delete(doc);
	if (!text)
		oom();
	fputs(text, f);
	fputc('\n', f);
	cJSON_free(text);
	return 0;
}

const struct xp_writer xp_writer_json = {
	.name = "json",
	.description = "one JSON document with every value raw and exact, for programs",
	.write = json_write,
};
