/* prepstate.c - a preparation's per-host step databases saved as a result, and read back into a preparation (combine). */
#include "prepstate.h"
#include "steptime.h"
#include "analyzers/prepare/prepare.h"
#include "formats/core/xalloc.h"
#include "formats/core/dectext.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the columns ------------------------------------------------------------------------------------ */

enum { H_HOST, H_BASE, H_SOURCE, H_DEVICE, H_TPU, H_LOOPS, H_PYTORCH, H_DROPPED, H_HAS_WHY, H_WHY, H_C16, H_C32,
       H_FIRST, H_N };
static const struct xp_col_def host_cols[H_N] = {
	[H_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	/* The name the host had before another's made it unique ("" when it kept it): combine names the hosts of
	 * several reports from their first names, as one process does. */
	[H_FIRST] = {"first_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[H_BASE] = {"base_ns", NULL, XP_T_STR, XP_U_NONE, 0},
	[H_SOURCE] = {"source", NULL, XP_T_STR, XP_U_NONE, 0},
	[H_DEVICE] = {"has_device", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[H_TPU] = {"tpu", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[H_LOOPS] = {"grouping_skipped_loops", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[H_PYTORCH] = {"pytorch", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[H_DROPPED] = {"dropped", NULL, XP_T_STR, XP_U_NONE, 0},
	[H_HAS_WHY] = {"has_dropped_why", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[H_WHY] = {"dropped_why", NULL, XP_T_STR, XP_U_NONE, 0},
	[H_C16] = {"compute16_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[H_C32] = {"compute32_ps", NULL, XP_T_STR, XP_U_NONE, 0},
};

/* Steps: host, id, name, begin, duration, then the event types, then the transfers. */
enum { S_HOST, S_ID, S_NAME, S_BEGIN, S_DUR, S_TYPES, S_TRANSFERS = S_TYPES + XP_N_EVENT_TYPES,
       S_N = S_TRANSFERS + 9 };
static const char *const transfer_dir[3] = {"h2d", "d2h", "d2d"};
static const char *const transfer_what[3] = {"count", "bytes", "ps"};

static void host_columns(struct xp_table *t)
{
	xp_table_cols(t, host_cols, H_N);
}

static void step_columns(struct xp_table *t)
{
	static const struct xp_col_def head[S_TYPES] = {
		[S_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
		[S_ID] = {"id", NULL, XP_T_STR, XP_U_NONE, 0},
		[S_NAME] = {"name", NULL, XP_T_STR, XP_U_NONE, 0},
		[S_BEGIN] = {"begin_ps", NULL, XP_T_STR, XP_U_NONE, 0},
		[S_DUR] = {"duration_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	};
	char key[64];
	xp_table_cols(t, head, S_TYPES);
	for (int k = 0; k < XP_N_EVENT_TYPES; k++) {
		snprintf(key, sizeof key, "%s_ps", xp_event_type_name((enum xp_event_type)k));
		xp_table_col(t, key, key, XP_T_STR, XP_U_NONE, 0);
	}
	for (int d = 0; d < 3; d++)
		for (int w = 0; w < 3; w++) {
			snprintf(key, sizeof key, "transfer_%s_%s", transfer_dir[d], transfer_what[w]);
			xp_table_col(t, key, key, XP_T_STR, XP_U_NONE, 0);
		}
}

/* --- saving ----------------------------------------------------------------------------------------- */

void xp_state_set_i64(struct xp_table *t, size_t row, size_t col, int64_t v)
{
	char buf[XP_DEC_SIZE];
	xp_dec_i64(buf, v);
	xp_set_str(t, row, col, buf);
}

void xp_state_set_u64(struct xp_table *t, size_t row, size_t col, uint64_t v)
{
	char buf[XP_DEC_SIZE];
	xp_dec_u64(buf, v);
	xp_set_str(t, row, col, buf);
}

void xp_state_number_cell(struct xp_cell *c, char **text, int64_t v, bool is_unsigned)
{
	size_t n = is_unsigned ? xp_dec_u64(*text, (uint64_t)v) : xp_dec_i64(*text, v);
	xp_cell_text(c, *text);
	*text += n + 1;
}

static void host_row(struct xp_table *t, const struct xp_prep_host *ph)
{
	const struct xp_step_db *db = &ph->steps;
	size_t row = xp_table_row(t);
	xp_set_str(t, row, H_HOST, ph->host->name);
	xp_state_set_i64(t, row, H_BASE, ph->host->base_ns);
	xp_set_str(t, row, H_SOURCE, xp_step_source_name(db->source));
	xp_set_bool(t, row, H_DEVICE, db->has_device);
	xp_set_bool(t, row, H_TPU, db->tpu);
	xp_set_bool(t, row, H_LOOPS, db->grouping_skipped_loops);
	xp_set_bool(t, row, H_PYTORCH, db->pytorch);
	xp_state_set_u64(t, row, H_DROPPED, db->n_dropped);
	xp_set_bool(t, row, H_HAS_WHY, db->dropped_why != NULL);
	xp_set_str(t, row, H_WHY, db->dropped_why ? db->dropped_why : "");
	xp_state_set_i64(t, row, H_C16, db->compute16_ps);
	xp_state_set_i64(t, row, H_C32, db->compute32_ps);
	xp_set_str(t, row, H_FIRST, ph->host->first_name ? ph->host->first_name : "");
}

/*
 * The steps table's rows are made when written, from the preparation's steps view (which outlives the
 * preparation): a capture of a million steps costs its step database, not 36 text cells a step.
 */
struct state_steps {
	struct xp_steps_view *view;
	size_t *first;          /* per host + 1: the row of its first step */
};

enum { I64_TEXT = XP_DEC_SIZE };
_Static_assert((S_N - 2) * I64_TEXT <= XP_ROW_TEXT_SIZE, "a step's numbers fit a row's text");

/* V as decimal text at *AT, in cell C; *AT moves past it. */
static void text_i64(struct xp_cell *c, char **at, int64_t v)
{
	size_t n = xp_dec_i64(*at, v);
	xp_cell_text(c, *at);
	*at += n + 1;
}

static void text_u64(struct xp_cell *c, char **at, uint64_t v)
{
	size_t n = xp_dec_u64(*at, v);
	xp_cell_text(c, *at);
	*at += n + 1;
}

static void fill_step(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size)
{
	const struct state_steps *ss = src;
	uint32_t lo = 0, hi = ss->view->n_hosts;      /* the host whose rows hold ROW: first[lo] <= row */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ss->first[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	const struct xp_steps_view_host *vh = &ss->view->hosts[lo];
	const struct xp_step *s = &vh->steps[row - ss->first[lo]];
	char *at = text;
	(void)text_size;
	xp_cell_text(&cells[S_HOST], vh->name);
	text_i64(&cells[S_ID], &at, s->id);
	xp_cell_text(&cells[S_NAME], s->name ? s->name : "");
	text_i64(&cells[S_BEGIN], &at, s->begin_ps);
	text_i64(&cells[S_DUR], &at, s->duration_ps);
	for (int k = 0; k < XP_N_EVENT_TYPES; k++)
		text_i64(&cells[S_TYPES + k], &at, xp_step_type_ps(s, (enum xp_event_type)k));
	for (unsigned d = 0; d < 3; d++) {
		text_u64(&cells[S_TRANSFERS + d * 3], &at, (uint64_t)xp_step_transfer(s, d, XP_XFER_COUNT));
		text_u64(&cells[S_TRANSFERS + d * 3 + 1], &at, (uint64_t)xp_step_transfer(s, d, XP_XFER_BYTES));
		text_i64(&cells[S_TRANSFERS + d * 3 + 2], &at, xp_step_transfer(s, d, XP_XFER_PS));
	}
}

static void release_steps(void *src)
{
	struct state_steps *ss = src;
	xp_steps_view_unref(ss->view);
	free(ss->first);
	free(ss);
}

static void step_rows(struct xp_table *t, const struct xp_prep *p)
{
	struct state_steps *ss = xcalloc(1, sizeof *ss);
	ss->view = xp_prep_steps_view(p);
	ss->first = xcalloc(p->n_hosts + 1, sizeof *ss->first);
	for (uint32_t h = 0; h < p->n_hosts; h++)
		ss->first[h + 1] = ss->first[h] + ss->view->hosts[h].n;
	xp_table_rows_from(t, ss->first[p->n_hosts], fill_step, ss, release_steps);
}

struct xp_result *xp_prep_state(const struct xp_prep *p)
{
	struct xp_result *r = xp_result_new("state");
	struct xp_table *hosts = xp_result_add_table(r, "hosts", "Hosts");
	host_columns(hosts);
	struct xp_table *steps = xp_result_add_table(r, "steps", "Steps");
	step_columns(steps);
	for (uint32_t h = 0; h < p->n_hosts; h++)
		host_row(hosts, &p->hosts[h]);
	step_rows(steps, p);
	return r;
}

/* --- reading back ----------------------------------------------------------------------------------- */

static char *dup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		xp_oom();
	return d;
}

struct xp_table *xp_state_table_of(struct xp_result *state, const char *name, void (*columns)(struct xp_table *t))
{
	struct xp_table *t = xp_result_table(state, name);
	if (!t) {
		t = xp_result_add_table(state, name, name);
		columns(t);
	}
	return t;
}

const struct xp_table *xp_state_table(const struct xp_result *state, const char *name,
				     void (*columns)(struct xp_table *t))
{
	const struct xp_table *t = state ? xp_result_table(state, name) : NULL;
	if (!t || !t->n_rows)
		return t;
	struct xp_result *ref = xp_result_new("state");
	struct xp_table *w = xp_result_add_table(ref, name, name);
	columns(w);
	bool same = t->n_cols == w->n_cols;
	for (size_t k = 0; same && k < w->n_cols; k++)
		same = !strcmp(t->cols[k].key, w->cols[k].key);
	xp_result_free(ref);
	return same ? t : NULL;
}

static const struct xp_table *hosts_table(const struct xp_result *state)
{
	return xp_state_table(state, "hosts", host_columns);
}

size_t xp_state_hosts(const struct xp_result *state)
{
	const struct xp_table *t = hosts_table(state);
	return t ? t->n_rows : 0;
}

const char *xp_state_str(const struct xp_table *t, size_t row, size_t col)
{
	const struct xp_cell *c = xp_table_cell(t, row, col);
	return c->type == XP_T_STR && c->v.s ? c->v.s : NULL;
}

const char *xp_state_host_name(const struct xp_result *state, size_t row)
{
	const struct xp_table *t = hosts_table(state);
	return t && row < t->n_rows ? xp_state_str(t, row, H_HOST) : NULL;
}

const char *xp_state_host_first_name(const struct xp_result *state, size_t row)
{
	const struct xp_table *t = hosts_table(state);
	const char *first = t && row < t->n_rows ? xp_state_str(t, row, H_FIRST) : NULL;
	return first && *first ? first : xp_state_host_name(state, row);
}

bool xp_state_i64(const struct xp_table *t, size_t row, size_t col, int64_t *v)
{
	const char *s = xp_state_str(t, row, col);
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	*v = x;
	return !errno && !*end;
}

bool xp_state_u64(const struct xp_table *t, size_t row, size_t col, uint64_t *v)
{
	const char *s = xp_state_str(t, row, col);
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	*v = x;
	return !errno && !*end;
}

bool xp_state_u32(const struct xp_table *t, size_t row, size_t col, uint32_t *v)
{
	uint64_t x;
	bool ok = xp_state_u64(t, row, col, &x) && x <= UINT32_MAX;
	*v = (uint32_t)x;
	return ok;
}

bool xp_state_bool(const struct xp_table *t, size_t row, size_t col, bool *v)
{
	const struct xp_cell *c = xp_table_cell(t, row, col);
	*v = c->type == XP_T_BOOL && c->v.b;
	return c->type == XP_T_BOOL;
}

static bool source_of(const char *s, enum xp_step_source *out)
{
	static const enum xp_step_source all[] = {XP_STEPS_NONE, XP_STEPS_GROUPED, XP_STEPS_PREGROUPED,
						  XP_STEPS_MARKER_REGEX};
	for (size_t k = 0; s && k < sizeof all / sizeof all[0]; k++)
		if (!strcmp(s, xp_step_source_name(all[k]))) {
			*out = all[k];
			return true;
		}
	return false;
}

static bool read_host_flags(const struct xp_table *t, size_t row, struct xp_step_db *db, int64_t *base_ns)
{
	bool has_why;
	bool ok = xp_state_i64(t, row, H_BASE, base_ns) && source_of(xp_state_str(t, row, H_SOURCE), &db->source) &&
		  xp_state_bool(t, row, H_DEVICE, &db->has_device) && xp_state_bool(t, row, H_TPU, &db->tpu) &&
		  xp_state_bool(t, row, H_LOOPS, &db->grouping_skipped_loops) && xp_state_bool(t, row, H_PYTORCH, &db->pytorch) &&
		  xp_state_u64(t, row, H_DROPPED, &db->n_dropped) && xp_state_bool(t, row, H_HAS_WHY, &has_why) &&
		  xp_state_str(t, row, H_WHY) && xp_state_i64(t, row, H_C16, &db->compute16_ps) &&
		  xp_state_i64(t, row, H_C32, &db->compute32_ps);
	if (ok && has_why)
		db->dropped_why = dup(xp_state_str(t, row, H_WHY));
	return ok;
}

static bool read_step(const struct xp_table *t, size_t row, struct xp_step *s)
{
	bool ok = xp_state_i64(t, row, S_ID, &s->id) && xp_state_str(t, row, S_NAME) && xp_state_i64(t, row, S_BEGIN, &s->begin_ps) &&
		  xp_state_i64(t, row, S_DUR, &s->duration_ps);
	int64_t v[XP_STEP_N_VALUES] = {0};
	for (size_t k = 0; ok && k < XP_N_EVENT_TYPES; k++)
		ok = xp_state_i64(t, row, S_TYPES + k, &v[XP_STEP_TYPE + k]);
	for (size_t d = 0; ok && d < 3; d++) {
		int64_t *x = &v[XP_STEP_TRANSFER + 3 * d];
		uint64_t count = 0, bytes = 0;
		ok = xp_state_u64(t, row, S_TRANSFERS + d * 3, &count) &&
		     xp_state_u64(t, row, S_TRANSFERS + d * 3 + 1, &bytes) &&
		     xp_state_i64(t, row, S_TRANSFERS + d * 3 + 2, &x[XP_XFER_PS]);
		x[XP_XFER_COUNT] = (int64_t)count;
		x[XP_XFER_BYTES] = (int64_t)bytes;
	}
	if (ok)
		xp_step_set(s, v, xp_state_str(t, row, S_NAME));
	return ok;
}

/* The steps of host NAME of a state, in their saved order (xp_prepare's: ascending id). */
static bool read_steps(const struct xp_result *state, const char *name, struct xp_step_db *db)
{
	const struct xp_table *t = xp_state_table(state, "steps", step_columns);
	if (!t)
		return false;
	for (size_t row = 0; row < t->n_rows; row++) {
		const char *h = xp_state_str(t, row, S_HOST);
		if (!h)
			return false;
		if (strcmp(h, name))
			continue;
		db->steps = xrealloc(db->steps, (db->n + 1) * sizeof *db->steps);
		memset(&db->steps[db->n], 0, sizeof db->steps[db->n]);
		if (!read_step(t, row, &db->steps[db->n]))
			return false;
		db->n++;
	}
	return true;
}

struct xp_prep *xp_prep_from_state(const struct xp_state_host *hosts, uint32_t n, bool xprof_compat,
				   struct xp_capture **cap, struct xp_err *e)
{
	struct xp_capture *c = xp_capture_new();
	struct xp_prep *p = xcalloc(1, sizeof *p);
	p->steps_hold = xp_steps_hold_new();
	p->opts.xprof_compat = xprof_compat;
	p->cap = c;
	p->hosts = xcalloc(n ? n : 1, sizeof *p->hosts);
	for (uint32_t h = 0; h < n; h++) {
		struct xp_host *host = xp_capture_add_host(c);
		host->name = dup(hosts[h].name);
	}
	for (uint32_t h = 0; h < n; h++) {
		const struct xp_table *t = hosts_table(hosts[h].state);
		const char *saved = xp_state_host_name(hosts[h].state, hosts[h].row);
		struct xp_prep_host *ph = &p->hosts[p->n_hosts++];
		ph->host = &c->hosts[h];
		if (!t || !saved || !read_host_flags(t, hosts[h].row, &ph->steps, &c->hosts[h].base_ns) ||
		    !read_steps(hosts[h].state, saved, &ph->steps)) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, hosts[h].path, "the state of host %s does not read back: not a "
				   "report as this xpstat writes it", hosts[h].name);
			xp_prep_state_free(p, c);
			return NULL;
		}
	}
	*cap = c;
	return p;
}

void xp_prep_state_free(struct xp_prep *p, struct xp_capture *cap)
{
	xp_prep_free(p);
	xp_capture_free(cap);
}
