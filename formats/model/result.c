/* result.c - building and freeing typed results (summary, tables, diagnostics, verdict). */
#include "result.h"
#include "formats/core/xalloc.h"
#include "formats/core/strpool.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Results are built by analyzers that have no error path for allocation
 * failure, so running out of memory here is fatal: a half-built result
 * would only produce wrong output later.
 */
static char *xstrdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		xp_oom();
	return p;
}

/* Copies at most len bytes, stopping at a NUL; never reads past s + len,
 * since capture strings (blob arena) are not NUL-terminated. */
static char *xstrndup(const char *s, size_t len)
{
	if (!s)
		return NULL;
	const char *nul = memchr(s, 0, len);
	if (nul)
		len = (size_t)(nul - s);
	char *p = xmalloc(len + 1);
	if (len)
		memcpy(p, s, len);
	p[len] = 0;
	return p;
}

__attribute__((format(printf, 1, 0)))
static char *xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		xp_die("internal error: bad format string");
	p = xrealloc(NULL, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

/* Grow an array of elements of SIZE bytes so that it holds at least NEED; returns it. */
static void *grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			xp_oom();
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		xp_oom();
	*cap = ncap;
	return xrealloc(arr, ncap * size);
}

static void cell_clear(struct xp_cell *c)
{
	if (c->type == XP_T_STR && !c->pooled)
		free(c->v.s);
	memset(c, 0, sizeof(*c));
}

struct xp_result *xp_result_new(const char *command)
{
	struct xp_result *r = xcalloc(1, sizeof(*r));

	r->command = xstrdup(command ? command : "");
	return r;
}

/* The rows of a table made on demand, and the two made last. */
struct row_slot {
	size_t row;             /* SIZE_MAX: empty */
	struct xp_cell *cells;
	char text[XP_ROW_TEXT_SIZE];
};

struct xp_row_source {
	xp_row_fill *fill;
	void *src;
	void (*release)(void *src);
	struct row_slot slot[2];
	unsigned last;          /* the slot filled last */
};

static void source_free(struct xp_row_source *s)
{
	if (!s)
		return;
	if (s->release)
		s->release(s->src);
	free(s->slot[0].cells);
	free(s->slot[1].cells);
	free(s);
}

static void table_free(struct xp_table *t)
{
	size_t i;

	if (!t)
		return;
	source_free(t->source);
	if (t->source)
		t->n_rows = 0;  /* no cells of its own */
	for (i = 0; i < t->n_rows * t->n_cols; i++)
		cell_clear(&t->cells[i]);
	for (i = 0; i < t->n_cols; i++) {
		free(t->cols[i].key);
		free(t->cols[i].header);
	}
	free(t->cells);
	free(t->cols);
	free(t->name);
	free(t->title);
	free(t->text_note);
	if (t->pool)
		xp_pool_free(t->pool);
	free(t);
}

void xp_result_set_semantics(struct xp_result *r, const char *semantics)
{
	free(r->semantics);
	r->semantics = NULL;
	if (semantics && !(r->semantics = strdup(semantics)))
		xp_oom();
}

void xp_result_free(struct xp_result *r)
{
	size_t i;

	if (!r)
		return;
	free(r->semantics);
	free(r->spark_ps);
	for (i = 0; i < r->n_summary; i++) {
		free(r->summary[i].key);
		free(r->summary[i].label);
		cell_clear(&r->summary[i].value);
	}
	for (i = 0; i < r->n_tables; i++)
		table_free(r->tables[i]);
	for (i = 0; i < r->n_diags; i++) {
		free(r->diags[i].code);
		free(r->diags[i].message);
		free(r->diags[i].hint);
		free(r->diags[i].host);
	}
	free(r->summary);
	free(r->tables);
	free(r->diags);
	free(r->verdict);
	free(r->command);
	free(r);
}

void xp_result_set_verdict(struct xp_result *r, const char *fmt, ...)
{
	va_list ap;

	free(r->verdict);
	va_start(ap, fmt);
	r->verdict = xvasprintf(fmt, ap);
	va_end(ap);
}

/* --- summary --- */

static struct xp_kv *sum_add(struct xp_result *r, const char *key, const char *label)
{
	struct xp_kv *kv;

	r->summary = grow(r->summary, &r->cap_summary, r->n_summary + 1, sizeof(*r->summary));
	kv = &r->summary[r->n_summary++];
	memset(kv, 0, sizeof(*kv));
	kv->key = xstrdup(key);
	kv->label = xstrdup(label ? label : key);
	return kv;
}

void xp_sum_str(struct xp_result *r, const char *key, const char *label, const char *s)
{
	struct xp_kv *kv = sum_add(r, key, label);

	if (s) {
		kv->value.type = XP_T_STR;
		kv->value.v.s = xstrdup(s);
	}
}

void xp_sum_int(struct xp_result *r, const char *key, const char *label, int64_t v)
{
	struct xp_kv *kv = sum_add(r, key, label);

	kv->value.type = XP_T_INT;
	kv->value.v.i = v;
}

void xp_sum_f64(struct xp_result *r, const char *key, const char *label, double v)
{
	struct xp_kv *kv = sum_add(r, key, label);

	kv->value.type = XP_T_F64;
	kv->value.v.d = v;
}

void xp_sum_pct(struct xp_result *r, const char *key, const char *label, double v)
{
	struct xp_kv *kv = sum_add(r, key, label);

	kv->value.type = XP_T_PCT;
	kv->value.v.d = v;
}

void xp_sum_bool(struct xp_result *r, const char *key, const char *label, bool v)
{
	struct xp_kv *kv = sum_add(r, key, label);

	kv->value.type = XP_T_BOOL;
	kv->value.v.b = v;
}

void xp_sum_dur(struct xp_result *r, const char *key, const char *label, int64_t ps, enum xp_unit unit)
{
	struct xp_kv *kv = sum_add(r, key, label);

	kv->value.type = XP_T_DUR;
	kv->value.v.i = ps;
	kv->unit = unit;
}

void xp_sum_null(struct xp_result *r, const char *key, const char *label)
{
	sum_add(r, key, label)->value.type = XP_T_NULL;
}

void xp_sum_dur_if(struct xp_result *r, const char *key, const char *label, bool known, int64_t ps,
		   enum xp_unit unit)
{
	if (known)
		xp_sum_dur(r, key, label, ps, unit);
	else
		xp_sum_null(r, key, label);
}

void xp_sum_bytes(struct xp_result *r, const char *key, const char *label, int64_t v)
{
	struct xp_kv *kv = sum_add(r, key, label);

	kv->value.type = XP_T_BYTES;
	kv->value.v.i = v;
}

/* --- tables --- */

struct xp_table *xp_result_add_table(struct xp_result *r, const char *name, const char *title)
{
	struct xp_table *t = xcalloc(1, sizeof(*t));

	t->name = xstrdup(name ? name : "");
	t->title = xstrdup(title ? title : t->name);
	r->tables = grow(r->tables, &r->cap_tables, r->n_tables + 1, sizeof(*r->tables));
	r->tables[r->n_tables++] = t;
	return t;
}

/* Re-lay the row-major cells for one more column (a column added after rows). */
static void widen_rows(struct xp_table *t)
{
	size_t old = t->n_cols, nw = old + 1, row;
	struct xp_cell *cells;

	if (t->n_rows > SIZE_MAX / sizeof(*cells) / nw)
		xp_oom();
	cells = xcalloc(t->n_rows * nw, sizeof(*cells));
	for (row = 0; row < t->n_rows; row++)
		if (old)
			memcpy(&cells[row * nw], &t->cells[row * old], old * sizeof(*cells));
	free(t->cells);
	t->cells = cells;
	t->cap_rows = t->n_rows;
}

size_t xp_table_col(struct xp_table *t, const char *key, const char *header, enum xp_type type,
		    enum xp_unit unit, unsigned flags)
{
	struct xp_col *c;

	if (t->source)
		xp_die("internal error: a column added to table %s, whose rows are made on demand", t->name);
	if (t->n_rows)
		widen_rows(t);
	t->cols = grow(t->cols, &t->cap_cols, t->n_cols + 1, sizeof(*t->cols));
	c = &t->cols[t->n_cols];
	c->key = xstrdup(key ? key : "");
	c->header = xstrdup(header ? header : c->key);
	c->type = type;
	c->unit = unit;
	c->flags = flags;
	return t->n_cols++;
}

size_t xp_table_cols(struct xp_table *t, const struct xp_col_def *defs, size_t n)
{
	size_t first = t->n_cols;
	for (size_t i = 0; i < n; i++)
		xp_table_col(t, defs[i].key, defs[i].header, defs[i].type, defs[i].unit, defs[i].flags);
	return first;
}

void xp_col_hide(struct xp_table *t, size_t col, bool hidden)
{
	if (col >= t->n_cols)
		xp_die("internal error: column %zu of table %s, which has %zu", col, t->name, t->n_cols);
	if (hidden)
		t->cols[col].flags |= XP_COL_TEXT_HIDDEN;
	else
		t->cols[col].flags &= ~(unsigned)XP_COL_TEXT_HIDDEN;
}

void xp_table_settle_hidden(const struct xp_table *ct)
{
	struct xp_table *t = (struct xp_table *)ct;     /* flags only: see result.h */
	size_t left = 0;
	for (size_t c = 0; c < t->n_cols; c++)
		left += (t->cols[c].flags & XP_COL_TEXT_HIDE_EMPTY) != 0;
	/* Row by row, each row made once (a column that stays empty would otherwise make every row again). */
	for (size_t r = 0; r < t->n_rows && left; r++)
		for (size_t c = 0; c < t->n_cols; c++)
			if ((t->cols[c].flags & XP_COL_TEXT_HIDE_EMPTY) && xp_table_cell(t, r, c)->type != XP_T_NULL) {
				t->cols[c].flags &= ~(unsigned)XP_COL_TEXT_HIDE_EMPTY;
				left--;
			}
	for (size_t c = 0; c < t->n_cols; c++)
		if (t->cols[c].flags & XP_COL_TEXT_HIDE_EMPTY)
			t->cols[c].flags = (t->cols[c].flags & ~(unsigned)XP_COL_TEXT_HIDE_EMPTY) | XP_COL_TEXT_HIDDEN;
}

void xp_col_header(struct xp_table *t, size_t col, const char *header)
{
	if (col >= t->n_cols)
		xp_die("internal error: column %zu of table %s, which has %zu", col, t->name, t->n_cols);
	free(t->cols[col].header);
	t->cols[col].header = xstrdup(header);
}

size_t xp_table_row(struct xp_table *t)
{
	if (t->source)
		xp_die("internal error: a row added to table %s, whose rows are made on demand", t->name);
	/* cap_rows counts rows: the cell array holds cap_rows * n_cols cells. */
	if (t->n_rows == t->cap_rows) {
		size_t width = t->n_cols ? t->n_cols : 1;
		size_t ncap = t->cap_rows ? t->cap_rows * 2 : 16;

		if (ncap <= t->cap_rows || ncap > SIZE_MAX / sizeof(*t->cells) / width)
			xp_oom();
		t->cells = xrealloc(t->cells, ncap * width * sizeof(*t->cells));
		t->cap_rows = ncap;
	}
	if (t->n_cols)
		memset(&t->cells[t->n_rows * t->n_cols], 0, t->n_cols * sizeof(*t->cells));
	return t->n_rows++;
}

/* ROW's cell COL, made now unless one of the two slots holds the row. */
static struct xp_cell *source_cell(struct xp_row_source *s, size_t n_cols, size_t row, size_t col)
{
	for (unsigned k = 0; k < 2; k++)
		if (s->slot[k].row == row)
			return &s->slot[k].cells[col];
	s->last ^= 1;
	struct row_slot *sl = &s->slot[s->last];
	memset(sl->cells, 0, n_cols * sizeof *sl->cells);
	sl->text[0] = 0;
	s->fill(s->src, row, sl->cells, sl->text, sizeof sl->text);
	sl->row = row;
	return &sl->cells[col];
}

struct xp_cell *xp_table_cell(const struct xp_table *t, size_t row, size_t col)
{
	if (row >= t->n_rows || col >= t->n_cols)
		xp_die("internal error: cell (%zu, %zu) outside table %s (%zu x %zu)", row, col, t->name, t->n_rows,
		       t->n_cols);
	if (t->source)
		return source_cell(t->source, t->n_cols, row, col);
	return &t->cells[row * t->n_cols + col];
}

void xp_table_rows_from(struct xp_table *t, size_t n_rows, xp_row_fill *fill, void *src, void (*release)(void *src))
{
	if (t->source || t->n_rows)
		xp_die("internal error: table %s already has rows", t->name);
	struct xp_row_source *s = xcalloc(1, sizeof *s);
	s->fill = fill;
	s->src = src;
	s->release = release;
	for (int k = 0; k < 2; k++) {
		s->slot[k].row = SIZE_MAX;
		s->slot[k].cells = xcalloc(t->n_cols ? t->n_cols : 1, sizeof(struct xp_cell));
	}
	t->source = s;
	t->n_rows = n_rows;
}

void xp_cell_bool(struct xp_cell *c, bool v)
{
	c->type = XP_T_BOOL;
	c->pooled = false;
	c->v.b = v;
}

void xp_cell_text(struct xp_cell *c, const char *text)
{
	c->type = text ? XP_T_STR : XP_T_NULL;
	c->pooled = true;       /* not the cell's to free */
	c->v.s = (char *)text;
}

/* Clear a cell and give it a type; the caller fills the value. */
static struct xp_cell *set_cell(struct xp_table *t, size_t row, size_t col, enum xp_type type)
{
	if (t->source)
		xp_die("internal error: a cell of table %s set, whose rows are made on demand", t->name);
	struct xp_cell *c = xp_table_cell(t, row, col);

	cell_clear(c);
	c->type = type;
	return c;
}

void xp_set_str(struct xp_table *t, size_t row, size_t col, const char *s)
{
	struct xp_cell *c = set_cell(t, row, col, s ? XP_T_STR : XP_T_NULL);

	if (s)
		c->v.s = xstrdup(s);
}

void xp_set_strn(struct xp_table *t, size_t row, size_t col, const char *s, size_t len)
{
	struct xp_cell *c = set_cell(t, row, col, s ? XP_T_STR : XP_T_NULL);

	if (s)
		c->v.s = xstrndup(s, len);
}

void xp_set_str_pooled(struct xp_table *t, size_t row, size_t col, const char *s)
{
	struct xp_cell *c = set_cell(t, row, col, s ? XP_T_STR : XP_T_NULL);

	if (!s)
		return;
	if (!t->pool)
		t->pool = xp_pool_new();
	c->v.s = (char *)xp_pool_str(t->pool, s, strlen(s));
	c->pooled = true;
}

void xp_set_int(struct xp_table *t, size_t row, size_t col, int64_t v)
{
	set_cell(t, row, col, XP_T_INT)->v.i = v;
}

void xp_set_uint(struct xp_table *t, size_t row, size_t col, uint64_t v)
{
	set_cell(t, row, col, XP_T_UINT)->v.u = v;
}

void xp_set_f64(struct xp_table *t, size_t row, size_t col, double v)
{
	set_cell(t, row, col, XP_T_F64)->v.d = v;
}

void xp_set_bool(struct xp_table *t, size_t row, size_t col, bool v)
{
	set_cell(t, row, col, XP_T_BOOL)->v.b = v;
}

void xp_set_dur(struct xp_table *t, size_t row, size_t col, int64_t ps)
{
	set_cell(t, row, col, XP_T_DUR)->v.i = ps;
}

void xp_set_bytes(struct xp_table *t, size_t row, size_t col, int64_t v)
{
	set_cell(t, row, col, XP_T_BYTES)->v.i = v;
}

void xp_set_pct(struct xp_table *t, size_t row, size_t col, double v)
{
	set_cell(t, row, col, XP_T_PCT)->v.d = v;
}

void xp_set_frac(struct xp_table *t, size_t row, size_t col, double v)
{
	set_cell(t, row, col, XP_T_FRAC)->v.d = v;
}

void xp_set_id(struct xp_table *t, size_t row, size_t col, int64_t v)
{
	set_cell(t, row, col, XP_T_ID)->v.i = v;
}

struct xp_table *xp_result_table(const struct xp_result *r, const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < r->n_tables; i++)
		if (strcmp(r->tables[i]->name, name) == 0)
			return r->tables[i];
	return NULL;
}

/* --- diagnostics --- */

void xp_result_diag(struct xp_result *r, enum xp_severity sev, const char *code, const char *host,
		    const char *hint, const char *fmt, ...)
{
	struct xp_diag *d;
	va_list ap;

	r->diags = grow(r->diags, &r->cap_diags, r->n_diags + 1, sizeof(*r->diags));
	d = &r->diags[r->n_diags++];
	d->severity = sev;
	d->code = xstrdup(code);
	d->host = xstrdup(host);
	d->hint = xstrdup(hint);
	va_start(ap, fmt);
	d->message = xvasprintf(fmt, ap);
	va_end(ap);
}

const char *xp_severity_name(enum xp_severity s)
{
	switch (s) {
	case XP_SEV_INFO:
		return "info";
	case XP_SEV_WARNING:
		return "warning";
	case XP_SEV_ERROR:
		return "error";
	}
	return "unknown";
}

/* --- units --- */

/* Picoseconds per unit, and how many decimals that gives; NONE means raw ps. */
static uint64_t unit_ps(enum xp_unit u, int *decimals)
{
	switch (u) {
	case XP_U_NS:
		*decimals = 3;
		return UINT64_C(1000);
	case XP_U_US:
		*decimals = 6;
		return UINT64_C(1000000);
	case XP_U_MS:
		*decimals = 9;
		return UINT64_C(1000000000);
	case XP_U_S:
		*decimals = 12;
		return UINT64_C(1000000000000);
	case XP_U_NONE:
	case XP_U_PS:
		break;
	}
	*decimals = 0;
	return 1;
}

/*
 * Integer arithmetic only: a double cannot hold every picosecond count, and
 * CSV/JSON must show the exact value ("0.000001", "-1.5", "0").
 */
void xp_format_dur_exact(int64_t ps, enum xp_unit unit, char *buf, size_t bufsz)
{
	int decimals;
	uint64_t per = unit_ps(unit, &decimals);
	uint64_t mag = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
	uint64_t ip = mag / per, fp = mag % per;
	/* Digits by hand, not snprintf: tables of steps and kernels write
	 * millions of these. Sign, at most 20 digits, '.', at most 12. */
	char out[40], digits[20];
	size_t n = 0, nd = 0;

	if (!buf || !bufsz)
		return;
	if (ps < 0)
		out[n++] = '-';
	do {
		digits[nd++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (nd)
		out[n++] = digits[--nd];
	if (fp) {
		out[n++] = '.';
		for (int d = decimals - 1; d >= 0; d--) {
			out[n + (size_t)d] = (char)('0' + fp % 10);
			fp /= 10;
		}
		n += (size_t)decimals;
		while (out[n - 1] == '0')
			n--;
	}
	if (n > bufsz - 1)
		n = bufsz - 1;  /* truncated like snprintf */
	memcpy(buf, out, n);
	buf[n] = '\0';
}

const char *xp_unit_suffix(enum xp_unit u)
{
	switch (u) {
	case XP_U_PS:
		return "ps";
	case XP_U_NS:
		return "ns";
	case XP_U_US:
		return "us";
	case XP_U_MS:
		return "ms";
	case XP_U_S:
		return "s";
	case XP_U_NONE:
		break;
	}
	return "";
}
