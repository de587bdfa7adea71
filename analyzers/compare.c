/* compare.c - two reports side by side: step time and categories, ops and kernels with exact deltas, and whether the two are comparable. */
#include "compare.h"
#include "analyzers/db/metrics.h"
#include "analyzers/db/mwu.h"
#include "analyzers/db/steptime.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"
#include "formats/core/xalloc.h"
#include "formats/core/work.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Deltas are candidate minus baseline, exact in picoseconds; relative
 * deltas are 100 x delta / baseline (empty when the baseline is 0). Ops and
 * kernels are matched by their full key (side, name, HLO module / op name);
 * a row only in the candidate "appeared", only in the baseline
 * "disappeared", else it is "slower", "faster" or "same". Rows are ordered
 * by the size of the change, largest first, then by key.
 */

#define TEXT_ROWS 15

static double rel_pct(int64_t base, int64_t delta)
{
	return base > 0 ? 100.0 * (double)delta / (double)base : NAN;
}

/* --- step time -------------------------------------------------------------------------------------- */

struct step_cols {
	size_t metric, label, b, c, d, dp, bs, cs;
};

static void step_row(struct xp_table *t, const struct step_cols *sc, const char *metric, const char *label,
		     int64_t b, int64_t c, double bshare, double cshare)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, sc->metric, metric);
	xp_set_str(t, row, sc->label, label);
	xp_set_dur(t, row, sc->b, b);
	xp_set_dur(t, row, sc->c, c);
	xp_set_dur(t, row, sc->d, xp_sat_sub(c, b));
	double rp = rel_pct(b, xp_sat_sub(c, b));
	if (!isnan(rp))
		xp_set_pct(t, row, sc->dp, rp);
	if (!isnan(bshare))
		xp_set_pct(t, row, sc->bs, bshare);
	if (!isnan(cshare))
		xp_set_pct(t, row, sc->cs, cshare);
}

enum {
	STEP_METRIC, STEP_LABEL, STEP_B, STEP_C, STEP_D, STEP_DP, STEP_BS, STEP_CS
};
static const struct xp_col_def step_time_cols[] = {
	[STEP_METRIC] = {"metric", "Key", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[STEP_LABEL] = {"label", "Metric", XP_T_STR},
	[STEP_B] = {"baseline_ms", "Baseline", XP_T_DUR, XP_U_MS},
	[STEP_C] = {"candidate_ms", "Candidate", XP_T_DUR, XP_U_MS},
	[STEP_D] = {"delta_ms", "Delta", XP_T_DUR, XP_U_MS},
	[STEP_DP] = {"delta_pct", "Delta %", XP_T_PCT},
	[STEP_BS] = {"baseline_share_pct", "Share before", XP_T_PCT},
	[STEP_CS] = {"candidate_share_pct", "Share after", XP_T_PCT},
};
static const struct step_cols step_time_idx = {
	.metric = STEP_METRIC, .label = STEP_LABEL, .b = STEP_B, .c = STEP_C, .d = STEP_D, .dp = STEP_DP,
	.bs = STEP_BS, .cs = STEP_CS
};

static void step_table(struct xp_result *r, const struct xp_metrics *b, const struct xp_metrics *c)
{
	struct xp_table *t = xp_result_add_table(r, "step_time", "Step time (per step; categories from the breakdown host)");
	xp_table_cols(t, XP_COLS(step_time_cols));
	if (!b->n_steps || !c->n_steps)
		return;
	step_row(t, &step_time_idx, "step_time_median", "Median step time", b->median_ps, c->median_ps, NAN, NAN);
	step_row(t, &step_time_idx, "step_time_avg", "Average step time", b->avg_ps, c->avg_ps, NAN, NAN);
	size_t n;
	const enum xp_step_cat *cats = xp_step_cats(c->pytorch, &n);
	for (size_t k = 0; k < n; k++) {
		enum xp_step_cat cat = cats[k];
		step_row(t, &step_time_idx, xp_step_cat_key(cat), xp_step_cat_label_for(cat, c->pytorch), xp_metrics_cat_avg(b, cat),
			 xp_metrics_cat_avg(c, cat), xp_metrics_cat_pct(b, cat), xp_metrics_cat_pct(c, cat));
	}
}

/* --- ops and kernels ----------------------------------------------------------------------------------- */

enum change { CH_SLOWER, CH_FASTER, CH_SAME, CH_APPEARED, CH_DISAPPEARED, CH_N };
static const char *const change_name[CH_N] = {"slower", "faster", "same", "appeared", "disappeared"};

struct pair {
	const struct xp_metric_row *b, *c;
	int64_t delta;
	enum change ch;
};

static int cmp_key(const struct xp_metric_row *x, const struct xp_metric_row *y)
{
	xp_work_steps++;
	int k = strcmp(x->side, y->side);
	if (!k)
		k = strcmp(x->name, y->name);
	if (!k)
		k = strcmp(x->detail, y->detail);
	if (!k)
		k = strcmp(x->category, y->category);
	return k;
}

static const struct xp_metric_row *key_of(const struct pair *p)
{
	return p->c ? p->c : p->b;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int64_t ax = x->delta < 0 ? -x->delta : x->delta, ay = y->delta < 0 ? -y->delta : y->delta;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	/* Same size: slowdowns before speed-ups, then by key. */
	if ((x->delta > 0) != (y->delta > 0))
		return x->delta > 0 ? -1 : 1;
	int k = cmp_key(key_of(x), key_of(y));
	if (k)
		return k;
	return (int)x->ch - (int)y->ch;
}

/* Walk two sorted lists together. */
static struct pair *pair_up(const struct xp_metric_list *b, const struct xp_metric_list *c, size_t *n,
			    size_t counts[CH_N])
{
	struct pair *p = xcalloc(b->n + c->n, sizeof *p);
	size_t i = 0, j = 0, k = 0;
	memset(counts, 0, CH_N * sizeof *counts);
	while (i < b->n || j < c->n) {
		int d = i >= b->n ? 1 : j >= c->n ? -1 : cmp_key(&b->rows[i], &c->rows[j]);
		struct pair *x = &p[k++];
		if (d < 0) {
			*x = (struct pair){&b->rows[i], NULL, -b->rows[i].time_ps, CH_DISAPPEARED};
			i++;
		} else if (d > 0) {
			*x = (struct pair){NULL, &c->rows[j], c->rows[j].time_ps, CH_APPEARED};
			j++;
		} else {
			int64_t delta = xp_sat_sub(c->rows[j].time_ps, b->rows[i].time_ps);
			*x = (struct pair){&b->rows[i], &c->rows[j], delta,
					   delta > 0 ? CH_SLOWER : delta < 0 ? CH_FASTER : CH_SAME};
			i++;
			j++;
		}
		counts[x->ch]++;
	}
	qsort(p, k, sizeof *p, cmp_pair);
	xp_work_flush(XP_WORK_MATCH);
	*n = k;
	return p;
}

struct list_cols {
	size_t change, side, cat, name, detail, b, c, d, dp, bn, cn;
};

static void list_rows(struct xp_table *t, const struct list_cols *lc, const struct pair *p, size_t n, bool ops)
{
	for (size_t i = 0; i < n; i++) {
		const struct xp_metric_row *k = key_of(&p[i]);
		size_t row = xp_table_row(t);
		xp_set_str(t, row, lc->change, change_name[p[i].ch]);
		if (ops) {
			xp_set_str(t, row, lc->side, k->side);
			xp_set_str(t, row, lc->cat, k->category);
		} else if (*k->category) {
			xp_set_str(t, row, lc->cat, k->category);
		}
		xp_set_str(t, row, lc->name, k->name);
		if (*k->detail)
			xp_set_str(t, row, lc->detail, k->detail);
		xp_set_dur(t, row, lc->b, p[i].b ? p[i].b->time_ps : 0);
		xp_set_dur(t, row, lc->c, p[i].c ? p[i].c->time_ps : 0);
		xp_set_dur(t, row, lc->d, p[i].delta);
		double rp = p[i].b ? rel_pct(p[i].b->time_ps, p[i].delta) : NAN;
		if (!isnan(rp))
			xp_set_pct(t, row, lc->dp, rp);
		xp_set_int(t, row, lc->bn, p[i].b ? p[i].b->count : 0);
		xp_set_int(t, row, lc->cn, p[i].c ? p[i].c->count : 0);
	}
}

enum {
	OPS_CHANGE, OPS_SIDE, OPS_CAT, OPS_NAME, OPS_DETAIL, OPS_B, OPS_C, OPS_D, OPS_DP, OPS_BN, OPS_CN
};
static const struct xp_col_def op_cols[] = {
	[OPS_CHANGE] = {"change", "Change", XP_T_STR},
	[OPS_SIDE] = {"host_or_device", "Side", XP_T_STR},
	[OPS_CAT] = {"op_type", "Type", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[OPS_NAME] = {"op_name", "Operation", XP_T_STR},
	[OPS_DETAIL] = {"hlo_module", "HLO module", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[OPS_B] = {"baseline_self_time_us", "Baseline", XP_T_DUR, XP_U_US},
	[OPS_C] = {"candidate_self_time_us", "Candidate", XP_T_DUR, XP_U_US},
	[OPS_D] = {"delta_us", "Delta", XP_T_DUR, XP_U_US},
	[OPS_DP] = {"delta_pct", "Delta %", XP_T_PCT},
	[OPS_BN] = {"baseline_occurrences", "Count before", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[OPS_CN] = {"candidate_occurrences", "Count after", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};
static const struct list_cols op_idx = {
	.change = OPS_CHANGE, .side = OPS_SIDE, .cat = OPS_CAT, .name = OPS_NAME, .detail = OPS_DETAIL,
	.b = OPS_B, .c = OPS_C, .d = OPS_D, .dp = OPS_DP, .bn = OPS_BN, .cn = OPS_CN
};

static struct pair *ops_table(struct xp_result *r, const struct xp_metric_list *b, const struct xp_metric_list *c,
			      size_t *n, size_t counts[CH_N])
{
	struct xp_table *t = xp_result_add_table(r, "ops", "Ops (self time), largest change first");
	xp_table_cols(t, XP_COLS(op_cols));
	t->text_limit = TEXT_ROWS;
	static const struct xp_metric_list empty;
	struct pair *p = pair_up(b ? b : &empty, c ? c : &empty, n, counts);
	list_rows(t, &op_idx, p, *n, true);
	return p;
}

enum { KER_CHANGE, KER_CAT, KER_NAME, KER_DETAIL, KER_B, KER_C, KER_D, KER_DP, KER_BN, KER_CN };
static const struct xp_col_def kernel_cols[] = {
	/* In the order of struct list_cols, as compare has always written them (kernel name before op name). */
	[KER_CHANGE] = {"change", "Change", XP_T_STR},
	[KER_CAT] = {"hlo_module", "HLO module", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[KER_NAME] = {"kernel_name", "Kernel", XP_T_STR},
	[KER_DETAIL] = {"op_name", "Op", XP_T_STR},
	[KER_B] = {"baseline_total_duration_us", "Baseline", XP_T_DUR, XP_U_US},
	[KER_C] = {"candidate_total_duration_us", "Candidate", XP_T_DUR, XP_U_US},
	[KER_D] = {"delta_us", "Delta", XP_T_DUR, XP_U_US},
	[KER_DP] = {"delta_pct", "Delta %", XP_T_PCT},
	[KER_BN] = {"baseline_occurrences", "Count before", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[KER_CN] = {"candidate_occurrences", "Count after", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};
static const struct list_cols kernel_idx = {
	.change = KER_CHANGE, .side = SIZE_MAX, .detail = KER_DETAIL, .cat = KER_CAT, .b = KER_B,
	.c = KER_C, .d = KER_D, .dp = KER_DP, .bn = KER_BN, .cn = KER_CN, .name = KER_NAME
};

static struct pair *kernels_table(struct xp_result *r, const struct xp_metric_list *b, const struct xp_metric_list *c,
				  size_t *n, size_t counts[CH_N])
{
	struct xp_table *t = xp_result_add_table(r, "kernels", "Kernels (total time), largest change first");
	xp_table_cols(t, XP_COLS(kernel_cols));
	t->text_limit = TEXT_ROWS;
	struct pair *p = pair_up(b, c, n, counts);
	list_rows(t, &kernel_idx, p, *n, false);
	return p;
}

/* --- comparability --------------------------------------------------------------------------------- */

struct cmpb {
	struct xp_table *t;
	char differs[512];
};

enum { CMP_ASPECT, CMP_B, CMP_C, CMP_SAME };
static const struct xp_col_def comparability_cols[] = {
	[CMP_ASPECT] = {"aspect", "Aspect", XP_T_STR},
	[CMP_B] = {"baseline", "Baseline", XP_T_STR},
	[CMP_C] = {"candidate", "Candidate", XP_T_STR},
	[CMP_SAME] = {"same", "Same", XP_T_BOOL},
};

static void aspect(struct cmpb *cb, const char *name, const char *b, const char *c, bool same)
{
	size_t row = xp_table_row(cb->t);
	xp_set_str(cb->t, row, CMP_ASPECT, name);
	xp_set_str(cb->t, row, CMP_B, b);
	xp_set_str(cb->t, row, CMP_C, c);
	xp_set_bool(cb->t, row, CMP_SAME, same);
	if (!same) {
		size_t len = strlen(cb->differs);
		snprintf(cb->differs + len, sizeof cb->differs - len, "%s%s (%s vs %s)", len ? ", " : "", name, b, c);
	}
}

static void aspect_int(struct cmpb *cb, const char *name, int64_t b, int64_t c)
{
	char bs[32], cs[32];
	snprintf(bs, sizeof bs, "%" PRId64, b);
	snprintf(cs, sizeof cs, "%" PRId64, c);
	aspect(cb, name, bs, cs, b == c);
}

/* "N" rows, "N only here": how a list's key set differs. */
static void aspect_set(struct cmpb *cb, const char *name, const struct xp_metric_list *b,
		       const struct xp_metric_list *c, const size_t counts[CH_N])
{
	char bs[64], cs[64];
	snprintf(bs, sizeof bs, "%zu (%zu not in the candidate)", b ? b->n : 0, counts[CH_DISAPPEARED]);
	snprintf(cs, sizeof cs, "%zu (%zu not in the baseline)", c ? c->n : 0, counts[CH_APPEARED]);
	aspect(cb, name, bs, cs, !counts[CH_DISAPPEARED] && !counts[CH_APPEARED]);
}

static bool comparability(struct xp_result *r, const struct xp_metrics *b, const struct xp_metrics *c,
			  const size_t ops[CH_N], const struct xp_metric_list *bo, const struct xp_metric_list *co,
			  const size_t kern[CH_N])
{
	struct cmpb cb = {.t = xp_result_add_table(r, "comparability", "Comparability")};
	xp_table_cols(cb.t, XP_COLS(comparability_cols));
	if (b->has_env && c->has_env) {
		aspect(&cb, "device_type", b->device_type, c->device_type, !strcmp(b->device_type, c->device_type));
		aspect_int(&cb, "device_cores", b->device_cores, c->device_cores);
		aspect_int(&cb, "hosts", b->hosts, c->hosts);
		aspect(&cb, "step_source", b->step_source, c->step_source, !strcmp(b->step_source, c->step_source));
	}
	if (bo && co)
		aspect_set(&cb, "ops", bo, co, ops);
	if (b->kernels.present && c->kernels.present)
		aspect_set(&cb, "kernels", &b->kernels, &c->kernels, kern);
	if (!cb.differs[0])
		return true;
	xp_result_diag(r, XP_SEV_WARNING, "not_comparable", NULL,
		       "compare captures of the same program on the same machine type; differences in the op set "
		       "are expected after a code change, differences in devices are not",
		       "the two inputs differ: %s", cb.differs);
	return false;
}

static bool same_steps(const struct xp_metrics *b, const struct xp_metrics *c)
{
	return b->n_steps && b->n_steps == c->n_steps && !memcmp(b->step_ps, c->step_ps, b->n_steps * sizeof *b->step_ps);
}

/* --- verdict and summary ------------------------------------------------------------------------------ */

struct outcome {
	double p;
	bool tested, significant, comparable;
	const char *method;
	const struct pair *top_op;
};

static void set_verdict(struct xp_result *r, const struct xp_metrics *b, const struct xp_metrics *c,
			const struct outcome *oc)
{
	char bm[32], cm[32], tail[320] = "";
	if (!b->n_steps || !c->n_steps) {
		xp_result_set_verdict(r, "Step time not compared: the %s has no steps%s",
				      !b->n_steps ? "baseline" : "candidate",
				      oc->comparable ? "" : "; the two inputs differ (see comparability)");
		return;
	}
	xp_format_duration(b->median_ps, bm, sizeof bm);
	xp_format_duration(c->median_ps, cm, sizeof cm);
	double rel = rel_pct(b->median_ps, xp_sat_sub(c->median_ps, b->median_ps));
	if (oc->top_op && oc->top_op->delta) {
		const struct xp_metric_row *k = key_of(oc->top_op);
		char d[32];
		xp_format_duration(oc->top_op->delta < 0 ? -oc->top_op->delta : oc->top_op->delta, d, sizeof d);
		snprintf(tail, sizeof tail, "; largest op change: %s %s%s (%s)", k->name, oc->top_op->delta < 0 ? "-" : "+",
			 d, change_name[oc->top_op->ch]);
	}
	const char *cmp = oc->comparable ? "" : "; WARNING: the two inputs differ (see comparability)";
	if (oc->significant)
		xp_result_set_verdict(r, "Candidate %s: median step time %s vs %s (%+.1f%%), significant (two-sided "
				      "Mann-Whitney U p = %.2g, %s, %zu and %zu steps)%s%s",
				      c->median_ps > b->median_ps ? "slower" : "faster", cm, bm, rel, oc->p, oc->method,
				      b->n_steps, c->n_steps, tail, cmp);
	else
		xp_result_set_verdict(r, "No significant change in step time: median %s vs %s (%+.1f%%, two-sided "
				      "Mann-Whitney U p = %.2g, %s, %zu and %zu steps)%s%s",
				      cm, bm, rel, oc->p, oc->method, b->n_steps, c->n_steps, tail, cmp);
}

static void summary(struct xp_result *r, const struct xp_metrics *b, const struct xp_metrics *c,
		    const struct outcome *oc, const char *ops_from, const size_t ops[CH_N], const size_t kern[CH_N],
		    double confidence)
{
	xp_sum_str(r, "baseline", "Baseline", b->source ? b->source : "");
	xp_sum_str(r, "candidate", "Candidate", c->source ? c->source : "");
	xp_sum_int(r, "baseline_steps", "Baseline steps", (int64_t)b->n_steps);
	xp_sum_int(r, "candidate_steps", "Candidate steps", (int64_t)c->n_steps);
	/* A side without steps has no step time: null, and so is every delta it enters. */
	bool kb = b->n_steps, kc = c->n_steps;
	xp_sum_dur_if(r, "baseline_median_step_time_ms", "Baseline median step time", kb, b->median_ps, XP_U_MS);
	xp_sum_dur_if(r, "candidate_median_step_time_ms", "Candidate median step time", kc, c->median_ps, XP_U_MS);
	xp_sum_dur_if(r, "median_delta_ms", "Median delta", kb && kc, xp_sat_sub(c->median_ps, b->median_ps), XP_U_MS);
	xp_sum_pct(r, "median_delta_pct", "Median delta %",
		   kb && kc ? rel_pct(b->median_ps, xp_sat_sub(c->median_ps, b->median_ps)) : NAN);
	xp_sum_dur_if(r, "baseline_avg_step_time_ms", "Baseline average step time", kb, b->avg_ps, XP_U_MS);
	xp_sum_dur_if(r, "candidate_avg_step_time_ms", "Candidate average step time", kc, c->avg_ps, XP_U_MS);
	xp_sum_dur_if(r, "avg_delta_ms", "Average delta", kb && kc, xp_sat_sub(c->avg_ps, b->avg_ps), XP_U_MS);
	xp_sum_pct(r, "avg_delta_pct", "Average delta %",
		   kb && kc ? rel_pct(b->avg_ps, xp_sat_sub(c->avg_ps, b->avg_ps)) : NAN);
	xp_sum_str(r, "test", "Test", oc->tested ? "two-sided Mann-Whitney U" : NULL);
	xp_sum_str(r, "test_method", "Test method", oc->tested ? oc->method : NULL);
	xp_sum_f64(r, "p_value", "p-value", oc->tested ? oc->p : NAN);
	xp_sum_f64(r, "confidence", "Confidence", confidence);
	xp_sum_bool(r, "significant", "Significant", oc->significant);
	xp_sum_bool(r, "comparable", "Comparable", oc->comparable);
	xp_sum_str(r, "ops_from", "Ops from", ops_from);
	xp_sum_int(r, "ops_slower", "Ops slower", (int64_t)ops[CH_SLOWER]);
	xp_sum_int(r, "ops_faster", "Ops faster", (int64_t)ops[CH_FASTER]);
	xp_sum_int(r, "ops_appeared", "Ops appeared", (int64_t)ops[CH_APPEARED]);
	xp_sum_int(r, "ops_disappeared", "Ops disappeared", (int64_t)ops[CH_DISAPPEARED]);
	xp_sum_int(r, "kernels_slower", "Kernels slower", (int64_t)kern[CH_SLOWER]);
	xp_sum_int(r, "kernels_faster", "Kernels faster", (int64_t)kern[CH_FASTER]);
	xp_sum_int(r, "kernels_appeared", "Kernels appeared", (int64_t)kern[CH_APPEARED]);
	xp_sum_int(r, "kernels_disappeared", "Kernels disappeared", (int64_t)kern[CH_DISAPPEARED]);
}

struct xp_result *xp_compare(const struct xp_metrics *b, const struct xp_metrics *c, const struct xp_compare_opts *o)
{
	struct xp_result *r = xp_result_new("compare");
	struct outcome oc = {.p = 1, .method = ""};
	if (b->n_steps && c->n_steps) {
		struct xp_mwu m;
		xp_mwu_greater(b->step_ps, b->n_steps, c->step_ps, c->n_steps, &m);
		oc.tested = true;
		oc.method = m.exact ? "exact" : "normal approximation";
		oc.p = xp_mwu_two_sided(b->step_ps, b->n_steps, c->step_ps, c->n_steps);
		oc.significant = oc.p < nearbyint((1 - o->confidence) * 1e12) / 1e12;   /* as check: 1 - 0.95 is 0.05 */
	}
	step_table(r, b, c);
	r->primary = 0;
	const struct xp_metric_list *bo = xp_metrics_ops(b, c, false), *co = xp_metrics_ops(b, c, true);
	size_t n_ops, n_kern, ops[CH_N], kern[CH_N];
	struct pair *po = ops_table(r, bo, co, &n_ops, ops);
	struct pair *pk = kernels_table(r, &b->kernels, &c->kernels, &n_kern, kern);
	oc.top_op = n_ops ? &po[0] : NULL;
	oc.comparable = comparability(r, b, c, ops, bo, co, kern);
	if (!bo || !co)
		xp_result_diag(r, XP_SEV_INFO, "no_op_table", NULL,
			       "save reports with xpstat report --format json, which holds tf-stats and overview",
			       "ops are not compared: the two inputs share no op table (tf-stats or overview)");
	if (same_steps(b, c))
		xp_result_diag(r, XP_SEV_WARNING, "same_input", NULL,
			       "check that the baseline and the candidate are different runs",
			       "the two inputs have exactly the same %zu step times: they look like the same capture",
			       b->n_steps);
	for (int side = 0; side < 2; side++) {
		const struct xp_metrics *m = side ? c : b;
		if (!m->n_steps)
			xp_result_diag(r, XP_SEV_WARNING, "no_steps", NULL, "xpstat steps shows what was found",
				       "the %s (%s) has no steps: step time is not compared", side ? "candidate" : "baseline",
				       m->source ? m->source : "");
	}
	char cmd[1024];
	if (oc.significant && c->median_ps > b->median_ps && xp_metrics_trace_command(c, cmd, sizeof cmd))
		xp_result_diag(r, XP_SEV_INFO, "trace_slowest_step", NULL, cmd,
			       "the candidate's slowest step is step %" PRId64 ": the hint exports its timeline for Perfetto",
			       c->slowest_step);
	set_verdict(r, b, c, &oc);
	summary(r, b, c, &oc, bo ? bo->from : "", ops, kern, o->confidence);
	free(po);
	free(pk);
	return r;
}
