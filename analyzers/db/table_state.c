/* table_state.c - a result table's rows kept in a saved report's state and read back into the same table. */
#include "table_state.h"
#include "prepstate.h"
#include "formats/core/xalloc.h"
#include "formats/core/dectext.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct xp_table *state_table(struct xp_result *state, const char *name, const struct xp_table *like)
{
	struct xp_table *s = xp_result_table(state, name);
	if (s)
		return s;
	s = xp_result_add_table(state, name, name);
	for (size_t k = 0; k < like->n_cols; k++)
		xp_table_col(s, like->cols[k].key, like->cols[k].key, XP_T_STR, XP_U_NONE, 0);
	return s;
}

static void keep_cell(struct xp_table *s, size_t row, size_t col, const struct xp_cell *c)
{
	char buf[40];
	switch (c->type) {
	case XP_T_NULL: break;
	case XP_T_STR: xp_set_str(s, row, col, c->v.s ? c->v.s : ""); break;
	case XP_T_BOOL: xp_set_bool(s, row, col, c->v.b); break;
	case XP_T_UINT: xp_state_set_u64(s, row, col, c->v.u); break;
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC:
		snprintf(buf, sizeof buf, "%.17g", c->v.d);
		xp_set_str(s, row, col, buf);
		break;
	default: xp_state_set_i64(s, row, col, c->v.i); break;
	}
}

void xp_state_keep_rows(struct xp_result *state, const char *name, const struct xp_table *t, size_t from, size_t to)
{
	struct xp_table *s = state_table(state, name, t);
	for (size_t row = from; row < to; row++) {
		size_t out = xp_table_row(s);
		for (size_t k = 0; k < t->n_cols; k++)
			keep_cell(s, out, k, xp_table_cell(t, row, k));
	}
}

/* The double S begins with into cell (ROW, COL) of T, as its column's type; *END after it. False when S does not
 * begin with one. */
static bool set_double(struct xp_table *t, size_t row, size_t col, const char *s, char **end)
{
	errno = 0;
	double d = strtod(s, end);
	if (errno || *end == s)
		return false;
	if (t->cols[col].type == XP_T_PCT)
		xp_set_pct(t, row, col, d);
	else if (t->cols[col].type == XP_T_FRAC)
		xp_set_frac(t, row, col, d);
	else
		xp_set_f64(t, row, col, d);
	return true;
}

/* Integer V (U for an unsigned column) into cell (ROW, COL) of T, as its column's type. */
static void set_integer(struct xp_table *t, size_t row, size_t col, int64_t v, uint64_t u)
{
	switch (t->cols[col].type) {
	case XP_T_UINT: xp_set_uint(t, row, col, u); break;
	case XP_T_DUR: xp_set_dur(t, row, col, v); break;
	case XP_T_BYTES: xp_set_bytes(t, row, col, v); break;
	case XP_T_ID: xp_set_id(t, row, col, v); break;
	default: xp_set_int(t, row, col, v); break;
	}
}

/* An integer cell (of any integer type) read back. */
static bool restore_int(const struct xp_table *st, size_t srow, struct xp_table *t, size_t row, size_t col)
{
	int64_t v = 0;
	uint64_t u = 0;
	enum xp_type type = t->cols[col].type;
	if (type != XP_T_UINT && type != XP_T_INT && type != XP_T_DUR && type != XP_T_BYTES && type != XP_T_ID)
		return false;
	if (type == XP_T_UINT ? !xp_state_u64(st, srow, col, &u) : !xp_state_i64(st, srow, col, &v))
		return false;
	set_integer(t, row, col, v, u);
	return true;
}

/* The state cell S read back into cell (ROW, COL) of T, as T's column type; false when it is not what
 * keep_cell writes for that type. */
static bool restore_cell(const struct xp_table *st, size_t srow, struct xp_table *t, size_t row, size_t col)
{
	const struct xp_cell *c = xp_table_cell(st, srow, col);
	enum xp_type type = t->cols[col].type;
	if (c->type == XP_T_NULL)
		return true;
	if (type == XP_T_BOOL) {
		if (c->type != XP_T_BOOL)
			return false;
		xp_set_bool(t, row, col, c->v.b);
		return true;
	}
	if (type == XP_T_STR) {
		if (c->type != XP_T_STR)
			return false;
		xp_set_str(t, row, col, c->v.s);
		return true;
	}
	if (type == XP_T_F64 || type == XP_T_PCT || type == XP_T_FRAC) {
		const char *s = xp_state_str(st, srow, col);
		char *end;
		if (!s || !*s)
			return false;
		return set_double(t, row, col, s, &end) && !*end;
	}
	return restore_int(st, srow, t, row, col);
}

static bool same_keys(const struct xp_table *st, const struct xp_table *t)
{
	if (st->n_cols != t->n_cols)
		return false;
	for (size_t k = 0; k < t->n_cols; k++)
		if (strcmp(st->cols[k].key, t->cols[k].key))
			return false;
	return true;
}

/* The rows of STATE's table NAME whose host (column ST_HOST_COL there) is HOST, each read by READ into a new
 * row of T, then RENAME in T's column HOST_COL: how many, or -1 (SHAPE_OK says whether the table can be read). */
typedef bool row_reader(const struct xp_table *st, size_t srow, struct xp_table *t, size_t row, size_t host_col);
static long restore_with(const struct xp_result *state, const char *name, size_t st_host_col, size_t host_col,
			 const char *host, struct xp_table *t, const char *rename,
			 bool (*shape_ok)(const struct xp_table *st, const struct xp_table *t), row_reader *read)
{
	const struct xp_table *st = state ? xp_result_table(state, name) : NULL;
	if (!st)
		return -1;
	if (!st->n_rows)
		return 0;
	if (!shape_ok(st, t) || host_col >= t->n_cols)
		return -1;
	long n = 0;
	for (size_t srow = 0; srow < st->n_rows; srow++) {
		const char *h = xp_state_str(st, srow, st_host_col);
		if (!h)
			return -1;
		if (strcmp(h, host))
			continue;
		size_t row = xp_table_row(t);
		if (!read(st, srow, t, row, host_col))
			return -1;
		xp_set_str(t, row, host_col, rename);
		n++;
	}
	return n;
}

static bool read_cells(const struct xp_table *st, size_t srow, struct xp_table *t, size_t row, size_t host_col)
{
	for (size_t k = 0; k < t->n_cols; k++)
		if (k != host_col && !restore_cell(st, srow, t, row, k))
			return false;
	return true;
}

long xp_state_restore_rows(const struct xp_result *state, const char *name, size_t host_col, const char *host,
			   struct xp_table *t, const char *rename)
{
	return restore_with(state, name, host_col, host_col, host, t, rename, same_keys, read_cells);
}

/* --- packed rows -------------------------------------------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void pack_cell(struct sbuf *b, const struct xp_cell *c)
{
	char num[48];
	int n;
	switch (c->type) {
	case XP_T_NULL: sb_put(b, "~", 1); return;
	case XP_T_BOOL: sb_put(b, c->v.b ? "t" : "f", 1); return;
	case XP_T_STR:
		n = (int)xp_dec_u64(num, c->v.s ? strlen(c->v.s) : 0);
		num[n++] = ':';
		sb_put(b, num, (size_t)n);
		sb_put(b, c->v.s ? c->v.s : "", c->v.s ? strlen(c->v.s) : 0);
		return;
	case XP_T_UINT: n = (int)xp_dec_u64(num, c->v.u); break;
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC: n = snprintf(num, sizeof num, "%.17g", c->v.d); break;
	default: n = (int)xp_dec_i64(num, c->v.i); break;
	}
	sb_put(b, num, (size_t)n);
}

void xp_state_keep_rows_packed(struct xp_result *state, const char *name, const struct xp_table *t, size_t host_col)
{
	struct xp_table *s = xp_result_table(state, name);
	if (!s) {
		s = xp_result_add_table(state, name, name);
		xp_table_col(s, "host", "host", XP_T_STR, XP_U_NONE, 0);
		xp_table_col(s, "row", "row", XP_T_STR, XP_U_NONE, 0);
	}
	struct sbuf b = {0};
	for (size_t row = 0; row < t->n_rows; row++) {
		b.n = 0;
		for (size_t k = 0; k < t->n_cols; k++)
			if (k != host_col) {
				if (b.n)
					sb_put(&b, " ", 1);
				pack_cell(&b, xp_table_cell(t, row, k));
			}
		size_t out = xp_table_row(s);
		const struct xp_cell *h = xp_table_cell(t, row, host_col);
		xp_set_str_pooled(s, out, 0, h->type == XP_T_STR && h->v.s ? h->v.s : "");
		xp_set_str(s, out, 1, b.p ? b.p : "");
	}
	free(b.p);
}

/* The next token of *P (up to a space or the end) for a cell of TYPE into (ROW, COL) of T; false when it is not
 * what pack_cell writes for that type. */
static bool unpack_cell(const char **p, struct xp_table *t, size_t row, size_t col)
{
	const char *s = *p;
	enum xp_type type = t->cols[col].type;
	char *end;
	if (*s == '~') {
		end = (char *)s + 1;
	} else if (type == XP_T_STR) {
		errno = 0;
		unsigned long long len = strtoull(s, &end, 10);
		if (errno || end == s || *end != ':' || len > strlen(end + 1))
			return false;
		xp_set_strn(t, row, col, end + 1, (size_t)len);
		end += 1 + len;
	} else if (type == XP_T_BOOL) {
		if (*s != 't' && *s != 'f')
			return false;
		xp_set_bool(t, row, col, *s == 't');
		end = (char *)s + 1;
	} else if (type == XP_T_F64 || type == XP_T_PCT || type == XP_T_FRAC) {
		if (!set_double(t, row, col, s, &end))
			return false;
	} else {
		if (*s == '-' && type == XP_T_UINT)
			return false;
		errno = 0;
		long long v = type == XP_T_UINT ? 0 : strtoll(s, &end, 10);
		unsigned long long u = type == XP_T_UINT ? strtoull(s, &end, 10) : 0;
		if (errno || end == s)
			return false;
		set_integer(t, row, col, v, u);
	}
	if (*end && *end != ' ')
		return false;
	*p = *end ? end + 1 : end;
	return true;
}

static bool packed_shape(const struct xp_table *st, const struct xp_table *t)
{
	(void)t;
	return st->n_cols == 2 && !strcmp(st->cols[0].key, "host") && !strcmp(st->cols[1].key, "row");
}

static bool read_packed(const struct xp_table *st, size_t srow, struct xp_table *t, size_t row, size_t host_col)
{
	const char *p = xp_state_str(st, srow, 1);
	if (!p)
		return false;
	for (size_t k = 0; k < t->n_cols; k++)
		if (k != host_col && (!*p || !unpack_cell(&p, t, row, k)))
			return false;
	return !*p;
}

long xp_state_restore_rows_packed(const struct xp_result *state, const char *name, size_t host_col, const char *host,
				  struct xp_table *t, const char *rename)
{
	return restore_with(state, name, 0, host_col, host, t, rename, packed_shape, read_packed);
}

/* --- merging saved reports' states ------------------------------------------------------------------------ */

/* The names of the tables of every host's state, in the order they first appear. */
static size_t table_names(const struct xp_state_host *hosts, uint32_t n, const char ***names)
{
	size_t count = 0, cap = 0;
	*names = NULL;
	for (uint32_t h = 0; h < n; h++)
		for (size_t k = 0; hosts[h].state && k < hosts[h].state->n_tables; k++) {
			const char *name = hosts[h].state->tables[k]->name;
			size_t i = 0;
			while (i < count && strcmp((*names)[i], name))
				i++;
			if (i < count)
				continue;
			if (count == cap) {
				cap = cap ? cap * 2 : 32;
				*names = xrealloc(*names, cap * sizeof **names);
			}
			(*names)[count++] = name;
		}
	return count;
}

static long column_of(const struct xp_table *t, const char *key)
{
	for (size_t k = 0; k < t->n_cols; k++)
		if (!strcmp(t->cols[k].key, key))
			return (long)k;
	return -1;
}

/* A merged table's rows, made when written (the hosts' states are read already; a copy of them as cells
 * would double what combine holds): each row is row ROW of host HOST's table, its host column renamed. */
struct merged {
	const struct xp_table **from;   /* by host; NULL: no rows */
	const char **names;             /* by host: the name the run gives it */
	const char **first_names;       /* by host: "first_name" as the run has it ("" when it kept its name) */
	size_t *host_col;               /* by host */
	long first_col;                 /* the hosts table's first_name column (prepstate.h), or -1 */
	struct merged_row {
		uint32_t host;
		size_t row;
	} *rows;
	size_t n, cap;
};

static void merged_fill(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size)
{
	(void)text;
	(void)text_size;
	const struct merged *m = src;
	const struct merged_row *r = &m->rows[row];
	const struct xp_table *from = m->from[r->host];
	for (size_t k = 0; k < from->n_cols; k++) {
		const struct xp_cell *c = xp_table_cell(from, r->row, k);
		if (k == m->host_col[r->host])
			xp_cell_text(&cells[k], m->names[r->host]);
		else if ((long)k == m->first_col)
			xp_cell_text(&cells[k], m->first_names[r->host]);
		else if (c->type == XP_T_STR)
			xp_cell_text(&cells[k], c->v.s ? c->v.s : "");
		else
			cells[k] = *c;      /* a value without storage of its own */
	}
}

static void merged_free(void *src)
{
	struct merged *m = src;
	free(m->from);
	free(m->names);
	free(m->first_names);
	free(m->host_col);
	free(m->rows);
	free(m);
}

static void merged_add(struct merged *m, uint32_t host, size_t row)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->rows = xrealloc(m->rows, m->cap * sizeof *m->rows);
	}
	m->rows[m->n++] = (struct merged_row){host, row};
}

/* The columns of T as FROM has them. */
static void columns_of(struct xp_table *t, const struct xp_table *from)
{
	for (size_t k = 0; k < from->n_cols; k++)
		xp_table_col(t, from->cols[k].key, from->cols[k].header, from->cols[k].type, from->cols[k].unit,
			     from->cols[k].flags);
}

/* Table NAME of the N hosts' states into OUT; false when a table with rows has no host column. */
static bool merge_table(struct xp_result *out, const char *name, const struct xp_state_host *hosts, uint32_t n)
{
	struct xp_table *t = xp_result_add_table(out, name, name);
	struct merged *m = xcalloc(1, sizeof *m);
	m->from = xcalloc(n ? n : 1, sizeof *m->from);
	m->names = xcalloc(n ? n : 1, sizeof *m->names);
	m->first_names = xcalloc(n ? n : 1, sizeof *m->first_names);
	m->first_col = -1;
	m->host_col = xcalloc(n ? n : 1, sizeof *m->host_col);
	bool ok = true;
	for (uint32_t h = 0; h < n && ok; h++) {
		const struct xp_table *from = xp_result_table(hosts[h].state, name);
		const char *own = xp_state_host_name(hosts[h].state, hosts[h].row);
		if (!from || !from->n_rows)
			continue;
		long hc = column_of(from, "host");
		if (!t->n_cols)
			columns_of(t, from);
		ok = hc >= 0 && own && same_keys(from, t);
		m->from[h] = from;
		m->names[h] = hosts[h].name;
		m->first_names[h] = hosts[h].first_name ? hosts[h].first_name : "";
		if (!strcmp(name, "hosts"))
			m->first_col = column_of(from, "first_name");
		m->host_col[h] = (size_t)hc;
		for (size_t row = 0; ok && row < from->n_rows; row++) {
			const char *hn = xp_state_str(from, row, (size_t)hc);
			if (hn && !strcmp(hn, own))
				merged_add(m, h, row);
		}
	}
	if (ok && m->n)
		xp_table_rows_from(t, m->n, merged_fill, m, merged_free);
	else
		merged_free(m);
	return ok;
}

struct xp_result *xp_state_merge(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e)
{
	const char **names;
	size_t count = table_names(hosts, n, &names);
	struct xp_result *out = xp_result_new("state");
	for (size_t i = 0; i < count; i++)
		if (!merge_table(out, names[i], hosts, n)) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, NULL, "the saved state table %s does not merge: not a report as "
				   "this xpstat writes it", names[i]);
			xp_result_free(out);
			out = NULL;
			break;
		}
	free(names);
	return out;
}

/* --- each host's row count of each table ------------------------------------------------------------------ */

#define ROWS_TABLE XP_STATE_ROWS_TABLE
enum { RC_HOST, RC_TABLE, RC_ROWS, RC_N };
static const struct xp_col_def rows_cols[RC_N] = {
	[RC_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[RC_TABLE] = {"table", NULL, XP_T_STR, XP_U_NONE, 0},
	[RC_ROWS] = {"rows", NULL, XP_T_STR, XP_U_NONE, 0},
};

/* Host names as a state names them, in order; a table's rows come host after host, so the last one found is
 * tried first. OWN: the names are copies (a row made when read points into a text the next row replaces). */
struct names {
	const char **v;
	size_t n, cap, last;
	bool own;
};

static void names_free(struct names *s)
{
	for (size_t i = 0; s->own && i < s->n; i++)
		free((char *)s->v[i]);
	free(s->v);
}

static size_t name_index(struct names *s, const char *name, bool add)
{
	if (s->last < s->n && !strcmp(s->v[s->last], name))
		return s->last;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return s->last = i;
	if (!add)
		return SIZE_MAX;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n] = s->own ? strdup(name) : name;
	if (!s->v[s->n])
		xp_oom();
	return s->last = s->n++;
}

/* The hosts STATE's hosts table names, in its order. */
static void state_names(const struct xp_result *state, struct names *s)
{
	for (size_t row = 0; row < xp_state_hosts(state); row++) {
		const char *name = xp_state_host_name(state, row);
		if (name)
			name_index(s, name, true);
	}
}

/* The rows of table T (with its host column HC) of each host of S, into COUNT (S->n of them, after the hosts
 * of S as it was: ADD names the others too); false when a row names no host or one S does not hold. */
static bool count_table(const struct xp_table *t, size_t hc, struct names *s, bool add, size_t **count)
{
	size_t n0 = s->n;
	*count = xcalloc(n0 ? n0 : 1, sizeof **count);
	for (size_t row = 0; row < t->n_rows; row++) {
		const char *h = xp_state_str(t, row, hc);
		size_t i = h ? name_index(s, h, add) : SIZE_MAX;
		if (i == SIZE_MAX)
			return false;
		if (i >= n0) {
			*count = xrealloc(*count, s->n * sizeof **count);
			memset(*count + n0, 0, (s->n - n0) * sizeof **count);
			n0 = s->n;
		}
		(*count)[i]++;
	}
	return true;
}

struct host_count {
	size_t host;
	const char *table;
	size_t rows;
};

static int by_host_table(const void *a, const void *b)
{
	const struct host_count *x = a, *y = b;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return strcmp(x->table, y->table);
}

void xp_state_count_rows(struct xp_result *state)
{
	struct names s = {.own = true};
	struct host_count *hc = NULL;
	size_t n = 0, cap = 0;
	state_names(state, &s);
	for (size_t k = 0; k < state->n_tables; k++) {
		const struct xp_table *t = state->tables[k];
		long col = column_of(t, "host");
		size_t *count;
		if (col < 0 || !strcmp(t->name, ROWS_TABLE))
			continue;
		/* A table with a row of no host is not counted (xp_state_merge and the check refuse it). */
		if (count_table(t, (size_t)col, &s, true, &count))
			for (size_t h = 0; h < s.n; h++)
				if (count[h]) {
					if (n == cap) {
						cap = cap ? cap * 2 : 64;
						hc = xrealloc(hc, cap * sizeof *hc);
					}
					hc[n++] = (struct host_count){h, t->name, count[h]};
				}
		free(count);
	}
	if (n)
		qsort(hc, n, sizeof *hc, by_host_table);
	struct xp_table *t = xp_result_add_table(state, ROWS_TABLE, ROWS_TABLE);
	xp_table_cols(t, XP_COLS(rows_cols));
	for (size_t i = 0; i < n; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, RC_HOST, s.v[hc[i].host]);
		xp_set_str(t, row, RC_TABLE, hc[i].table);
		xp_state_set_u64(t, row, RC_ROWS, hc[i].rows);
	}
	free(hc);
	names_free(&s);
}

static bool kept(const char *const *keep, const char *name)
{
	for (const char *const *k = keep; k && *k; k++)
		if (!strcmp(*k, name))
			return true;
	return !keep;
}

/* The table of STATE named NAME: its index, or STATE's n_tables. */
static size_t table_index(const struct xp_result *state, const char *name)
{
	size_t k = 0;
	while (k < state->n_tables && strcmp(state->tables[k]->name, name))
		k++;
	return k;
}

/* What RC (state_rows) says: SAID[k * S->n + h], the rows of host h in table k of STATE; false with WHY when a
 * row does not read back, counts a table of a host twice or a table read that STATE lacks. */
static bool said_counts(const struct xp_result *state, const struct xp_table *rc, const char *const *keep,
			struct names *s, uint64_t *said, char *why, size_t why_size)
{
	bool *seen = xcalloc(state->n_tables * s->n + 1, sizeof *seen);
	bool ok = true;
	for (size_t row = 0; ok && row < rc->n_rows; row++) {
		const char *host = xp_state_str(rc, row, RC_HOST), *table = xp_state_str(rc, row, RC_TABLE);
		size_t h = host ? name_index(s, host, false) : SIZE_MAX, k = table ? table_index(state, table) : 0;
		uint64_t rows;
		if (h == SIZE_MAX || !table || !xp_state_u64(rc, row, RC_ROWS, &rows)) {
			snprintf(why, why_size, "its state table " ROWS_TABLE " does not read back: row %zu", row + 1);
			ok = false;
		} else if (k == state->n_tables) {
			if (rows && kept(keep, table)) {
				snprintf(why, why_size, "its state table %s does not read back: missing, it held %" PRIu64
					 " rows of host %s", table, rows, host);
				ok = false;
			}
		} else if (seen[k * s->n + h]) {
			snprintf(why, why_size, "its state table " ROWS_TABLE " does not read back: it counts %s of host %s "
				 "twice", table, host);
			ok = false;
		} else {
			seen[k * s->n + h] = true;
			said[k * s->n + h] = rows;
		}
	}
	free(seen);
	return ok;
}

/* Table K of STATE holds the rows SAID says of each host of S; false with WHY when not. */
static bool table_counts(const struct xp_result *state, size_t k, struct names *s, const uint64_t *said, char *why,
			 size_t why_size)
{
	const struct xp_table *t = state->tables[k];
	long col = column_of(t, "host");
	size_t *count;
	if (!strcmp(t->name, ROWS_TABLE) || (col < 0 && t->n_rows))
		return true;        /* rows of no host column are refused when merged */
	/* A table of no rows has no columns as read back: it holds none of any host. */
	bool ok = count_table(t, col < 0 ? 0 : (size_t)col, s, false, &count);
	if (!ok)
		snprintf(why, why_size, "its state table %s does not read back: a row of no host of the report", t->name);
	for (size_t h = 0; ok && h < s->n; h++)
		if (count[h] != said[k * s->n + h]) {
			snprintf(why, why_size, "its state table %s does not read back: %zu rows of host %s, not the %" PRIu64
				 " it was saved with", t->name, count[h], s->v[h], said[k * s->n + h]);
			ok = false;
		}
	free(count);
	return ok;
}

bool xp_state_check_rows(const struct xp_result *state, const char *const *keep, char *why, size_t why_size)
{
	const struct xp_table *rc = xp_result_table(state, ROWS_TABLE);
	if (!rc || rc->n_cols != RC_N || strcmp(rc->cols[RC_HOST].key, "host") ||
	    strcmp(rc->cols[RC_TABLE].key, "table") || strcmp(rc->cols[RC_ROWS].key, "rows")) {
		snprintf(why, why_size, "its state table " ROWS_TABLE " does not read back: missing (the rows of each host "
			 "of every table)");
		return false;
	}
	struct names s = {0};
	state_names(state, &s);
	uint64_t *said = xcalloc(state->n_tables * s.n + 1, sizeof *said);
	bool ok = said_counts(state, rc, keep, &s, said, why, why_size);
	for (size_t k = 0; ok && k < state->n_tables; k++)
		ok = table_counts(state, k, &s, said, why, why_size);
	free(said);
	names_free(&s);
	return ok;
}
