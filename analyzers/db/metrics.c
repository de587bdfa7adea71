/* metrics.c - what check and compare read out of a report: per-step times, the breakdown, ops, kernels, memory peaks. */
#include "metrics.h"
#include "steptime.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/report.h"
#include "formats/model/result.h"
#include "formats/core/xalloc.h"
#include "formats/core/work.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Everything comes from the report's tables by key, never from the capture,
 * so a report read back from a saved JSON document gives the same metrics as
 * the capture it was made from:
 * - steps: the table "steps" of the steps section. The combined step k
 *   (column combined_step) takes the longest host's step time, as the
 *   overview does; the categories come from the steps of the first host
 *   that has combined steps (overview's breakdown host).
 * - ops: tf-stats' rows without IDLE (device and host), and overview's
 *   top_ops (device ops; a report keeps them all).
 * - kernels: kernel-stats' rows, summed over hosts per kernel and op.
 * - memory: the peak usage of each allocator of each host.
 */

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		xp_oom();
	return d;
}

/* --- cells by key ------------------------------------------------------------------------------------ */

static long col_of(const struct xp_table *t, const char *key)
{
	for (size_t c = 0; t && c < t->n_cols; c++)
		if (!strcmp(t->cols[c].key, key))
			return (long)c;
	return -1;
}

static const struct xp_cell *cell(const struct xp_table *t, size_t row, long c)
{
	return c < 0 ? NULL : xp_table_cell(t, row, (size_t)c);
}

static bool cell_i64(const struct xp_table *t, size_t row, long c, int64_t *out)
{
	const struct xp_cell *x = cell(t, row, c);
	if (!x)
		return false;
	switch (x->type) {
	case XP_T_INT:
	case XP_T_DUR:
	case XP_T_BYTES:
	case XP_T_ID:
		*out = x->v.i;
		return true;
	case XP_T_UINT:
		*out = (int64_t)x->v.u;
		return true;
	case XP_T_F64:
		*out = (int64_t)x->v.d;
		return true;
	default:
		return false;
	}
}

static int64_t cell_i64_or0(const struct xp_table *t, size_t row, long c)
{
	int64_t v = 0;
	return cell_i64(t, row, c, &v) ? v : 0;
}

static const char *cell_str(const struct xp_table *t, size_t row, long c)
{
	const struct xp_cell *x = cell(t, row, c);
	return x && x->type == XP_T_STR && x->v.s ? x->v.s : "";
}

static const struct xp_kv *summary_kv(const struct xp_result *r, const char *key)
{
	for (size_t i = 0; r && i < r->n_summary; i++)
		if (!strcmp(r->summary[i].key, key))
			return &r->summary[i];
	return NULL;
}

static const char *summary_str(const struct xp_result *r, const char *key)
{
	const struct xp_kv *kv = summary_kv(r, key);
	return kv && kv->value.type == XP_T_STR && kv->value.v.s ? kv->value.v.s : "";
}

static int64_t summary_int(const struct xp_result *r, const char *key)
{
	const struct xp_kv *kv = summary_kv(r, key);
	if (!kv)
		return 0;
	if (kv->value.type == XP_T_UINT)
		return (int64_t)kv->value.v.u;
	if (kv->value.type == XP_T_F64)
		return (int64_t)kv->value.v.d;
	return kv->value.type == XP_T_STR || kv->value.type == XP_T_NULL || kv->value.type == XP_T_BOOL ? 0
												       : kv->value.v.i;
}

/* --- small statistics ----------------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int64_t xp_median_ps(const int64_t *v, size_t n)
{
	if (!n)
		return 0;
	int64_t *s = xcalloc(n, sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_i64);
	int64_t m = s[n / 2];
	if (n % 2 == 0) {
		int64_t a = s[n / 2 - 1], b = s[n / 2];
		/* (a + b) / 2 rounded half up, without overflow */
		m = a / 2 + b / 2 + ((a % 2) + (b % 2) + 1) / 2;
	}
	free(s);
	return m;
}

static int64_t avg_ps(const int64_t *v, size_t n)
{
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum = xp_sat_add(sum, v[i]);
	return n ? xp_sat_add(sum, (int64_t)(n / 2)) / (int64_t)n : 0; /* sum may be saturated */
}

int64_t xp_metrics_cat_avg(const struct xp_metrics *m, enum xp_step_cat cat)
{
	int64_t sum = cat == XP_N_STEP_CATS ? m->bh_step_ps : m->cat_ps[cat];
	return m->n_bh ? xp_sat_add(sum, (int64_t)(m->n_bh / 2)) / (int64_t)m->n_bh : 0;
}

double xp_metrics_cat_pct(const struct xp_metrics *m, enum xp_step_cat cat)
{
	int64_t sum = cat == XP_N_STEP_CATS ? m->bh_step_ps : m->cat_ps[cat];
	return m->bh_step_ps > 0 ? 100.0 * (double)sum / (double)m->bh_step_ps : 0;
}

enum xp_step_cat xp_step_cat_from_key(const char *name)
{
	for (int c = 0; c < XP_N_STEP_CATS; c++)
		if (!strcmp(name, xp_step_cat_key((enum xp_step_cat)c)) ||
		    !strcasecmp(name, xp_step_cat_label((enum xp_step_cat)c)))
			return (enum xp_step_cat)c;
	return XP_N_STEP_CATS;
}

/* --- steps ----------------------------------------------------------------------------------------------- */

/* The slowest step of the table (the first of equal ones): what `xpstat trace --steps` exports. */
static void slowest(struct xp_metrics *m, const struct xp_table *t, long c_host, long c_time)
{
	long c_step = col_of(t, "step"), c_name = col_of(t, "step_name");
	int64_t id;
	for (size_t row = 0; row < t->n_rows; row++) {
		int64_t v = cell_i64_or0(t, row, c_time);
		if (!cell_i64(t, row, c_step, &id) || (m->has_slowest && v <= m->slowest_ps))
			continue;
		m->has_slowest = true;
		m->slowest_step = xp_step_number(id, cell_str(t, row, c_name));
		m->slowest_ps = v;
		m->slowest_host = cell_str(t, row, c_host);
	}
}

bool xp_metrics_trace_command(const struct xp_metrics *m, char *buf, size_t n)
{
	if (m->from_json || !m->has_slowest || !m->source)
		return false;
	snprintf(buf, n, "xpstat trace --steps %" PRId64 "%s%s -o step-%" PRId64 ".json.gz %s", m->slowest_step,
		 m->hosts > 1 && m->slowest_host && *m->slowest_host ? " --host " : "",
		 m->hosts > 1 && m->slowest_host ? m->slowest_host : "", m->slowest_step, m->source);
	return true;
}

static void read_steps(struct xp_metrics *m, const struct xp_report *rep)
{
	const struct xp_result *r = xp_report_get(rep, "steps");
	const struct xp_table *t = r ? xp_result_table(r, "steps") : NULL;
	m->steps_result = r;
	if (!t)
		return;
	m->has_steps = true;
	m->pytorch = col_of(t, "memcpy_ms") >= 0; /* only a PyTorch steps table has the Memcpy category */
	long c_host = col_of(t, "host"), c_comb = col_of(t, "combined_step"), c_time = col_of(t, "step_time_ms");
	slowest(m, t, c_host, c_time);
	long c_cat[XP_N_STEP_CATS];
	char key[64];
	for (int c = 0; c < XP_N_STEP_CATS; c++) {
		snprintf(key, sizeof key, "%s_ms", xp_step_cat_key((enum xp_step_cat)c));
		c_cat[c] = col_of(t, key);
	}
	int64_t n = 0, k;
	for (size_t row = 0; row < t->n_rows; row++)
		if (cell_i64(t, row, c_comb, &k) && k >= 0 && k + 1 > n)
			n = k + 1;
	/* A hostile document could claim a huge index: never more combined steps than rows. */
	if ((uint64_t)n > t->n_rows)
		n = (int64_t)t->n_rows;
	m->n_steps = (size_t)n;
	m->step_ps = xcalloc(m->n_steps, sizeof *m->step_ps);
	long first = -1;
	for (size_t row = 0; row < t->n_rows; row++) {
		if (!cell_i64(t, row, c_comb, &k) || k < 0 || k >= n)
			continue;
		int64_t v = cell_i64_or0(t, row, c_time);
		if (v > m->step_ps[k])
			m->step_ps[k] = v;
		if (first < 0)
			first = (long)row;
	}
	if (first < 0)
		return;
	/* The breakdown host: its combined steps 0, 1, 2, ... follow each other in the table. */
	const char *bh = cell_str(t, (size_t)first, c_host);
	m->breakdown_host = bh;
	for (size_t row = (size_t)first; row < t->n_rows; row++) {
		if (strcmp(cell_str(t, row, c_host), bh) || !cell_i64(t, row, c_comb, &k) || k != (int64_t)m->n_bh)
			break;
		m->n_bh++;
		m->bh_step_ps = xp_sat_add(m->bh_step_ps, cell_i64_or0(t, row, c_time));
		for (int c = 0; c < XP_N_STEP_CATS; c++)
			m->cat_ps[c] = xp_sat_add(m->cat_ps[c], cell_i64_or0(t, row, c_cat[c]));
	}
	m->median_ps = xp_median_ps(m->step_ps, m->n_steps);
	m->avg_ps = avg_ps(m->step_ps, m->n_steps);
}

/* --- op and kernel lists ------------------------------------------------------------------------------------ */

static int cmp_row(const void *a, const void *b)
{
	const struct xp_metric_row *x = a, *y = b;
	xp_work_steps++;
	int c = strcmp(x->side, y->side);
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->detail, y->detail);
	if (!c)
		c = strcmp(x->category, y->category);
	return c;
}

/* Sort, sum rows with the same key (hosts), and give each row its share of its side's time. */
static void finish_list(struct xp_metric_list *l)
{
	qsort(l->rows, l->n, sizeof *l->rows, cmp_row);
	size_t w = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (w && !cmp_row(&l->rows[w - 1], &l->rows[i])) {
			l->rows[w - 1].time_ps = xp_sat_add(l->rows[w - 1].time_ps, l->rows[i].time_ps);
			l->rows[w - 1].count = xp_sat_add(l->rows[w - 1].count, l->rows[i].count);
			free(l->rows[i].side);
			free(l->rows[i].name);
			free(l->rows[i].detail);
			free(l->rows[i].category);
			continue;
		}
		l->rows[w++] = l->rows[i];
	}
	l->n = w;
	/* sorted by side first: each side's rows follow each other, its total is one pass */
	for (size_t i = 0, j; i < l->n; i = j) {
		int64_t total = 0;
		for (j = i; j < l->n && !strcmp(l->rows[j].side, l->rows[i].side); j++)
			total = xp_sat_add(total, l->rows[j].time_ps);
		for (size_t k = i; k < j; k++)
			l->rows[k].pct = total > 0 ? 100.0 * (double)l->rows[k].time_ps / (double)total : 0;
	}
	xp_work_add(XP_WORK_MATCH, 2 * l->n);
	xp_work_flush(XP_WORK_MATCH);
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static void read_tf_ops(struct xp_metrics *m, const struct xp_report *rep)
{
	const struct xp_result *r = xp_report_get(rep, "tf-stats");
	const struct xp_table *t = r ? xp_result_table(r, "tf_stats") : NULL;
	struct xp_metric_list *l = &m->ops_tf;
	if (!t)
		return;
	l->present = true;
	l->from = "tf-stats";
	long c_side = col_of(t, "host_or_device"), c_type = col_of(t, "op_type"), c_name = col_of(t, "op_name"),
	     c_mod = col_of(t, "hlo_module"), c_self = col_of(t, "total_self_time_us"), c_n = col_of(t, "occurrences");
	l->rows = xcalloc(t->n_rows, sizeof *l->rows);
	for (size_t row = 0; row < t->n_rows; row++) {
		if (!strcmp(cell_str(t, row, c_type), "IDLE"))
			continue;
		struct xp_metric_row *x = &l->rows[l->n++];
		x->side = xstrdup(cell_str(t, row, c_side));
		lower(x->side);
		x->name = xstrdup(cell_str(t, row, c_name));
		x->detail = xstrdup(cell_str(t, row, c_mod));
		x->category = xstrdup(cell_str(t, row, c_type));
		x->time_ps = cell_i64_or0(t, row, c_self);
		x->count = cell_i64_or0(t, row, c_n);
	}
	finish_list(l);
}

static void read_dev_ops(struct xp_metrics *m, const struct xp_report *rep)
{
	const struct xp_result *r = xp_report_get(rep, "overview");
	const struct xp_table *t = r ? xp_result_table(r, "top_ops") : NULL;
	struct xp_metric_list *l = &m->ops_dev;
	if (!t)
		return;
	l->present = true;
	l->from = "overview";
	long c_cat = col_of(t, "category"), c_name = col_of(t, "operation"), c_mod = col_of(t, "hlo_module"),
	     c_self = col_of(t, "self_time_us"), c_n = col_of(t, "occurrences");
	l->rows = xcalloc(t->n_rows, sizeof *l->rows);
	for (size_t row = 0; row < t->n_rows; row++) {
		if (!strcmp(cell_str(t, row, c_cat), "IDLE"))
			continue;
		struct xp_metric_row *x = &l->rows[l->n++];
		x->side = xstrdup("device");
		x->name = xstrdup(cell_str(t, row, c_name));
		x->detail = xstrdup(cell_str(t, row, c_mod));
		x->category = xstrdup(cell_str(t, row, c_cat));
		x->time_ps = cell_i64_or0(t, row, c_self);
		x->count = cell_i64_or0(t, row, c_n);
	}
	finish_list(l);
}

static void read_kernels(struct xp_metrics *m, const struct xp_report *rep)
{
	const struct xp_result *r = xp_report_get(rep, "kernel-stats");
	const struct xp_table *t = r ? xp_result_table(r, "kernels") : NULL;
	struct xp_metric_list *l = &m->kernels;
	if (!t)
		return;
	l->present = true;
	l->from = "kernel-stats";
	long c_name = col_of(t, "kernel_name"), c_op = col_of(t, "op_name"), c_mod = col_of(t, "hlo_module"),
	     c_tot = col_of(t, "total_duration_us"), c_n = col_of(t, "occurrences");
	l->rows = xcalloc(t->n_rows, sizeof *l->rows);
	for (size_t row = 0; row < t->n_rows; row++) {
		struct xp_metric_row *x = &l->rows[l->n++];
		x->side = xstrdup("");
		x->name = xstrdup(cell_str(t, row, c_name));
		x->detail = xstrdup(cell_str(t, row, c_op));
		x->category = xstrdup(cell_str(t, row, c_mod));
		x->time_ps = cell_i64_or0(t, row, c_tot);
		x->count = cell_i64_or0(t, row, c_n);
	}
	finish_list(l);
}

static void read_memory(struct xp_metrics *m, const struct xp_report *rep)
{
	const struct xp_result *r = xp_report_get(rep, "memory");
	const struct xp_table *t = r ? xp_result_table(r, "allocators") : NULL;
	if (!t || !t->n_rows)
		return;
	m->has_memory = true;
	long c_host = col_of(t, "host"), c_alloc = col_of(t, "allocator"), c_peak = col_of(t, "peak_usage_bytes");
	m->allocs = xcalloc(t->n_rows, sizeof *m->allocs);
	for (size_t row = 0; row < t->n_rows; row++) {
		struct xp_metric_alloc *a = &m->allocs[m->n_allocs++];
		a->host = xstrdup(cell_str(t, row, c_host));
		a->allocator = xstrdup(cell_str(t, row, c_alloc));
		a->peak_bytes = cell_i64_or0(t, row, c_peak);
	}
}

void xp_metrics_from_report(const struct xp_report *rep, struct xp_metrics *m)
{
	memset(m, 0, sizeof *m);
	m->source = rep->source;
	m->from_json = rep->from_json;
	read_steps(m, rep);
	const struct xp_result *ov = xp_report_get(rep, "overview");
	if (ov) {
		m->has_env = true;
		m->device_type = summary_str(ov, "device_type");
		m->device_cores = summary_int(ov, "device_core_count");
		m->hosts = summary_int(ov, "hosts");
		m->step_source = summary_str(ov, "step_source");
	}
	read_tf_ops(m, rep);
	read_dev_ops(m, rep);
	read_kernels(m, rep);
	read_memory(m, rep);
}

static void free_list(struct xp_metric_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->rows[i].side);
		free(l->rows[i].name);
		free(l->rows[i].detail);
		free(l->rows[i].category);
	}
	free(l->rows);
}

void xp_metrics_free(struct xp_metrics *m)
{
	free(m->step_ps);
	free_list(&m->ops_tf);
	free_list(&m->ops_dev);
	free_list(&m->kernels);
	for (size_t i = 0; i < m->n_allocs; i++) {
		free(m->allocs[i].host);
		free(m->allocs[i].allocator);
	}
	free(m->allocs);
	memset(m, 0, sizeof *m);
}

const struct xp_metric_list *xp_metrics_ops(const struct xp_metrics *a, const struct xp_metrics *b, bool second)
{
	const struct xp_metrics *m = second ? b : a;
	if (a->ops_tf.present && (!b || b->ops_tf.present))
		return &m->ops_tf;
	if (a->ops_dev.present && (!b || b->ops_dev.present))
		return &m->ops_dev;
	return NULL;
}
