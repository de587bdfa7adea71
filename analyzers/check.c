/* check.c - the CI gate: thresholds on a report's metrics and a significance-tested regression against a baseline. */
#include "check.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/metrics.h"
#include "analyzers/db/mwu.h"
#include "analyzers/db/steptime.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"
#include "formats/core/suggest.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Rows of the table "checks", in this order: min_steps (when any check
 * needs steps), step_time_regression (with a baseline), max_step_time,
 * max_median_step_time, each max_category, max_input_bound, each
 * max_op_self_time, max_peak_memory. A status is one of
 *   pass   the value is within its limit;
 *   fail   it is not (a regression: over the limit AND significant);
 *   skip   not evaluated: a step check when min_steps is an error;
 *   error  the input cannot answer it: no steps, fewer than --min-steps,
 *          a test that cannot reach significance, no memory data, an op
 *          or allocator that the candidate does not have (a typo must not
 *          pass the gate).
 * The exit status is 1 when any check failed, else 3 when any is an error,
 * else 0: a failure found is real whatever else could not be checked.
 */

enum st { ST_PASS, ST_FAIL, ST_SKIP, ST_ERROR };
static const char *const st_name[] = {"pass", "fail", "skip", "error"};

struct ck {
	struct xp_result *r;
	struct xp_table *t;
	const struct xp_metrics *cand, *base;
	const struct xp_check_opts *o;
	size_t n[4];            /* rows per status */
	bool steps_ok;          /* min_steps passed (or no check needs steps) */
	char *failed;           /* names of the failed checks, for the verdict */
	char *unusable;         /* why the input cannot answer, for the verdict */
	struct xp_mwu mwu;
	bool have_mwu;
	double alpha;
};

/* Append ", "-separated text to *S. */
__attribute__((format(printf, 2, 3)))
static void appendf(char **s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t old = *s ? strlen(*s) : 0;
	char *n = realloc(*s, old + strlen(buf) + 3);
	if (!n)
		xp_oom();
	snprintf(n + old, strlen(buf) + 3, "%s%s", old ? ", " : "", buf);
	*s = n;
}

/* --- display text ------------------------------------------------------------------------------ */

static void fmt_dur(int64_t ps, char *b, size_t n)
{
	xp_format_duration(ps, b, n);
}

static void fmt_bytes(int64_t v, char *b, size_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double d = (double)v;
	int u = 0;
	while (d >= 1023.5 && u < 6) {
		d /= 1024;
		u++;
	}
	if (!u)
		snprintf(b, n, "%" PRId64 " B", v);
	else
		snprintf(b, n, d >= 99.95 ? "%.0f %s" : "%.1f %s", d, unit[u]);
}

static void fmt_p(double p, char *b, size_t n)
{
	snprintf(b, n, "%.2g", p);
}

static void fmt_limit(const struct xp_limit *l, bool plus, char *b, size_t n)
{
	char t[32];
	switch (l->kind) {
	case XP_LIM_DUR:
		fmt_dur(l->v, t, sizeof t);
		snprintf(b, n, "%s%s", plus ? "+" : "", t);
		return;
	case XP_LIM_PCT:
		snprintf(b, n, plus ? "%+.1f%%" : "%.1f%%", l->pct);
		return;
	case XP_LIM_BYTES:
		fmt_bytes(l->v, b, n);
		return;
	case XP_LIM_NONE:
		break;
	}
	snprintf(b, n, "-");
}

/* --- rows ------------------------------------------------------------------------------------------ */

/* The checks table's columns. */
enum {
	CC_CHECK, CC_SUBJECT, CC_STATUS, CC_VALUE, CC_LIMIT, CC_BASELINE, CC_VALUE_MS, CC_LIMIT_MS, CC_BASELINE_MS,
	CC_VALUE_PCT, CC_LIMIT_PCT, CC_BASELINE_PCT, CC_VALUE_BYTES, CC_LIMIT_BYTES, CC_BASELINE_BYTES, CC_P_VALUE,
	CC_MESSAGE
};
static const struct xp_col_def check_cols[] = {
	[CC_CHECK] = {"check", "Check", XP_T_STR},
	[CC_SUBJECT] = {"subject", "Of", XP_T_STR},
	[CC_STATUS] = {"status", "Status", XP_T_STR},
	[CC_VALUE] = {"value", "Value", XP_T_STR, XP_U_NONE, XP_COL_TEXT_RIGHT},
	[CC_LIMIT] = {"limit", "Limit", XP_T_STR, XP_U_NONE, XP_COL_TEXT_RIGHT},
	[CC_BASELINE] = {"baseline", "Baseline", XP_T_STR, XP_U_NONE, XP_COL_TEXT_RIGHT},
	[CC_VALUE_MS] = {"value_ms", "Value (ms)", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[CC_LIMIT_MS] = {"limit_ms", "Limit (ms)", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[CC_BASELINE_MS] = {"baseline_ms", "Baseline (ms)", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[CC_VALUE_PCT] = {"value_pct", "Value (%)", XP_T_PCT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_LIMIT_PCT] = {"limit_pct", "Limit (%)", XP_T_PCT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_BASELINE_PCT] = {"baseline_pct", "Baseline (%)", XP_T_PCT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_VALUE_BYTES] = {"value_bytes", "Value (bytes)", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_LIMIT_BYTES] = {"limit_bytes", "Limit (bytes)", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_BASELINE_BYTES] = {"baseline_bytes", "Baseline (bytes)", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_P_VALUE] = {"p_value", "p", XP_T_F64, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CC_MESSAGE] = {"message", "Why", XP_T_STR},
};

/* A value of a check: a duration, a percentage or bytes, set into the typed column and its display. */
struct val {
	enum xp_limit_kind kind;    /* NONE: no value */
	int64_t v;
	double pct;
};

static void set_val(struct ck *k, size_t row, size_t disp, size_t ms, size_t pct, size_t bytes, const struct val *v)
{
	char b[48];
	switch (v->kind) {
	case XP_LIM_DUR:
		xp_set_dur(k->t, row, ms, v->v);
		fmt_dur(v->v, b, sizeof b);
		break;
	case XP_LIM_PCT:
		xp_set_pct(k->t, row, pct, v->pct);
		snprintf(b, sizeof b, "%.1f%%", v->pct);
		break;
	case XP_LIM_BYTES:
		xp_set_bytes(k->t, row, bytes, v->v);
		fmt_bytes(v->v, b, sizeof b);
		break;
	case XP_LIM_NONE:
		snprintf(b, sizeof b, "-");
		break;
	}
	xp_set_str(k->t, row, disp, b);
}

static struct val from_limit(const struct xp_limit *l)
{
	return (struct val){l->kind, l->v, l->pct};
}

__attribute__((format(printf, 7, 8)))
static size_t add_row(struct ck *k, const char *check, const char *subject, enum st s, const struct val *value,
		      const struct val *baseline, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	size_t row = xp_table_row(k->t);
	static const struct val none;
	xp_set_str(k->t, row, CC_CHECK, check);
	xp_set_str(k->t, row, CC_SUBJECT, subject ? subject : "");
	xp_set_str(k->t, row, CC_STATUS, st_name[s]);
	set_val(k, row, CC_VALUE, CC_VALUE_MS, CC_VALUE_PCT, CC_VALUE_BYTES, value ? value : &none);
	set_val(k, row, CC_BASELINE, CC_BASELINE_MS, CC_BASELINE_PCT, CC_BASELINE_BYTES,
		baseline ? baseline : &none);
	xp_set_str(k->t, row, CC_LIMIT, "-");
	xp_set_str(k->t, row, CC_MESSAGE, msg);
	k->n[s]++;
	if (s == ST_FAIL)
		appendf(&k->failed, "%s%s%s", check, subject && *subject ? " " : "", subject ? subject : "");
	return row;
}

static void set_limit(struct ck *k, size_t row, const struct xp_limit *l, bool plus)
{
	char b[48];
	struct val v = from_limit(l);
	set_val(k, row, CC_LIMIT, CC_LIMIT_MS, CC_LIMIT_PCT, CC_LIMIT_BYTES, &v);
	fmt_limit(l, plus, b, sizeof b);
	xp_set_str(k->t, row, CC_LIMIT, b);
}

/* --- which checks need steps, and do we have enough -------------------------------------------------- */

static bool needs_steps(const struct xp_check_opts *o)
{
	return o->max_step.kind || o->max_median.kind || o->n_cat || o->max_input.kind || o->regression.kind;
}

/* The steps diagnostics of a side (no_step_markers, tpu_unsupported) become the check's. */
static void copy_step_diags(struct ck *k, const struct xp_metrics *m, const char *side)
{
	const struct xp_result *sr = m->steps_result;
	for (size_t i = 0; sr && i < sr->n_diags; i++) {
		const struct xp_diag *d = &sr->diags[i];
		if (d->severity == XP_SEV_INFO)
			continue;
		xp_result_diag(k->r, d->severity, d->code, d->host, d->hint, "%s: %s", side, d->message);
	}
}

/* Is one side's sample usable? Adds the reason to *why otherwise. */
static bool sample_ok(struct ck *k, const struct xp_metrics *m, const char *side, char *why, size_t n)
{
	if (!m->has_steps) {
		snprintf(why, n, "the %s has no per-step times (save it with xpstat report --format json)", side);
		xp_result_diag(k->r, XP_SEV_ERROR, "no_step_times", NULL,
			       "make the baseline with xpstat report --format json (or xpstat steps --format json)",
			       "the %s (%s) holds no per-step times", side, m->source ? m->source : "");
		return false;
	}
	if (!m->n_steps) {
		snprintf(why, n, "the %s has no steps", side);
		copy_step_diags(k, m, side);
		xp_result_diag(k->r, XP_SEV_ERROR, "no_steps", NULL,
			       "see the diagnostics above; xpstat steps shows what was found",
			       "the %s (%s) has no steps, so its step time is unknown", side, m->source ? m->source : "");
		return false;
	}
	if (m->n_steps < k->o->min_steps) {
		snprintf(why, n, "the %s has %zu step%s, fewer than --min-steps %zu", side, m->n_steps,
			 m->n_steps == 1 ? "" : "s", k->o->min_steps);
		xp_result_diag(k->r, XP_SEV_ERROR, "too_few_steps", NULL,
			       "profile more steps (for example tf.profiler.experimental.start/stop around 20 or more "
			       "steps), or lower --min-steps",
			       "the %s has %zu step%s; a verdict on step time needs at least %zu (--min-steps)", side,
			       m->n_steps, m->n_steps == 1 ? "" : "s", k->o->min_steps);
		return false;
	}
	return true;
}

static void min_steps_row(struct ck *k)
{
	char why[256] = "", why2[256] = "";
	bool ok = sample_ok(k, k->cand, "candidate", why, sizeof why);
	bool with_base = k->o->regression.kind && k->base;
	bool base_ok = !with_base || sample_ok(k, k->base, "baseline", why2, sizeof why2);
	if (ok && base_ok && with_base) {
		double minp = xp_mwu_min_p(k->base->n_steps, k->cand->n_steps);
		if (minp >= k->alpha) {
			base_ok = false;
			snprintf(why2, sizeof why2,
				 "with %zu baseline and %zu candidate steps the smallest p-value the test can give is %.2g, "
				 "not below %.2g", k->base->n_steps, k->cand->n_steps, minp, k->alpha);
			xp_result_diag(k->r, XP_SEV_ERROR, "test_powerless", NULL,
				       "profile more steps in both runs, or raise --min-steps so this is caught early",
				       "%s: no slowdown could ever be significant", why2);
		}
	}
	struct val v = {XP_LIM_NONE, 0, 0};
	size_t row;
	k->steps_ok = ok && base_ok;
	if (k->steps_ok) {
		row = add_row(k, "min_steps", NULL, ST_PASS, &v, NULL, "%zu candidate step%s%s, at least %zu needed",
			      k->cand->n_steps, k->cand->n_steps == 1 ? "" : "s",
			      with_base ? " and enough baseline steps" : "", k->o->min_steps);
	} else {
		char all[600];
		snprintf(all, sizeof all, "%s%s%s", why, *why && *why2 ? "; " : "", why2);
		row = add_row(k, "min_steps", NULL, ST_ERROR, &v, NULL, "%s", all);
		k->unusable = strdup(all);
		if (!k->unusable)
			xp_oom();
	}
	char b[32];
	snprintf(b, sizeof b, "%zu", k->cand->n_steps);
	xp_set_str(k->t, row, CC_VALUE, b);
	if (k->base && k->base->has_steps) {
		snprintf(b, sizeof b, "%zu", k->base->n_steps);
		xp_set_str(k->t, row, CC_BASELINE, b);
	}
	snprintf(b, sizeof b, "%zu", k->o->min_steps);
	xp_set_str(k->t, row, CC_LIMIT, b);
}

static bool skip_if_no_steps(struct ck *k, const char *check, const char *subject, const struct xp_limit *l)
{
	if (k->steps_ok)
		return false;
	size_t row = add_row(k, check, subject, ST_SKIP, NULL, NULL, "not evaluated: see min_steps");
	set_limit(k, row, l, !strcmp(check, "step_time_regression"));
	return true;
}

/* --- the regression test ---------------------------------------------------------------------------------- */

static void regression_row(struct ck *k)
{
	const struct xp_limit *l = &k->o->regression;
	if (skip_if_no_steps(k, "step_time_regression", NULL, l))
		return;
	const struct xp_metrics *b = k->base, *c = k->cand;
	xp_mwu_greater(b->step_ps, b->n_steps, c->step_ps, c->n_steps, &k->mwu);
	k->have_mwu = true;
	int64_t diff = xp_sat_sub(c->median_ps, b->median_ps);
	double rel = b->median_ps > 0 ? 100.0 * (double)diff / (double)b->median_ps : 0;
	bool over = l->kind == XP_LIM_PCT ? rel > l->pct : diff > l->v;
	bool sig = k->mwu.p < k->alpha;
	char cm[32], bm[32], lim[48], p[32], d[32], change[48];
	fmt_dur(c->median_ps, cm, sizeof cm);
	fmt_dur(b->median_ps, bm, sizeof bm);
	fmt_limit(l, true, lim, sizeof lim);
	fmt_p(k->mwu.p, p, sizeof p);
	fmt_dur(diff, d, sizeof d);
	if (l->kind == XP_LIM_PCT)
		snprintf(change, sizeof change, "%+.1f%%", rel);
	else
		snprintf(change, sizeof change, "%s%s", diff >= 0 ? "+" : "", d);
	struct val v = {XP_LIM_DUR, c->median_ps, 0}, bv = {XP_LIM_DUR, b->median_ps, 0};
	enum st s = over && sig ? ST_FAIL : ST_PASS;
	size_t row;
	if (over && sig)
		row = add_row(k, "step_time_regression", NULL, s, &v, &bv,
			      "median step time %s vs %s (%s, over the %s limit) and significant: one-sided Mann-Whitney U "
			      "p = %s < %.2g", cm, bm, change, lim, p, k->alpha);
	else if (over)
		row = add_row(k, "step_time_regression", NULL, s, &v, &bv,
			      "median step time %s vs %s (%s, over the %s limit) but not significant: one-sided "
			      "Mann-Whitney U p = %s, not below %.2g", cm, bm, change, lim, p, k->alpha);
	else if (sig)
		row = add_row(k, "step_time_regression", NULL, s, &v, &bv,
			      "median step time %s vs %s (%s): significantly slower (p = %s) but within the %s limit", cm,
			      bm, change, p, lim);
	else
		row = add_row(k, "step_time_regression", NULL, s, &v, &bv,
			      "median step time %s vs %s (%s, limit %s); one-sided Mann-Whitney U p = %s", cm, bm, change,
			      lim, p);
	set_limit(k, row, l, true);
	xp_set_f64(k->t, row, CC_P_VALUE, k->mwu.p);
	xp_set_pct(k->t, row, CC_VALUE_PCT, rel);
	char cmd[1024];
	if (over && sig && xp_metrics_trace_command(c, cmd, sizeof cmd))
		xp_result_diag(k->r, XP_SEV_INFO, "trace_slowest_step", NULL, cmd,
			       "the candidate's slowest step is step %" PRId64 ": the hint exports its timeline for Perfetto",
			       c->slowest_step);
}

/* --- thresholds ------------------------------------------------------------------------------------------- */

static void threshold(struct ck *k, const char *check, const char *subject, const struct xp_limit *l,
		      const struct val *v, const struct val *bv, const char *what)
{
	bool over = l->kind == XP_LIM_PCT ? v->pct > l->pct : v->v > l->v;
	char vs[48], ls[48], bs[64] = "";
	struct xp_limit vl = {v->kind, v->v, v->pct};
	fmt_limit(&vl, false, vs, sizeof vs);
	fmt_limit(l, false, ls, sizeof ls);
	if (bv) {
		struct xp_limit bl = {bv->kind, bv->v, bv->pct};
		char t[48];
		fmt_limit(&bl, false, t, sizeof t);
		snprintf(bs, sizeof bs, " (baseline %s)", t);
	}
	size_t row = add_row(k, check, subject, over ? ST_FAIL : ST_PASS, v, bv, "%s %s%s %s the limit %s", what, vs, bs,
			     over ? "is over" : "is within", ls);
	set_limit(k, row, l, false);
}

static void step_time_rows(struct ck *k)
{
	const struct xp_metrics *c = k->cand, *b = k->base && k->base->n_steps ? k->base : NULL;
	if (k->o->max_step.kind && !skip_if_no_steps(k, "max_step_time", NULL, &k->o->max_step)) {
		struct val v = {XP_LIM_DUR, c->avg_ps, 0}, bv = {XP_LIM_DUR, b ? b->avg_ps : 0, 0};
		threshold(k, "max_step_time", NULL, &k->o->max_step, &v, b ? &bv : NULL, "average step time");
	}
	if (k->o->max_median.kind && !skip_if_no_steps(k, "max_median_step_time", NULL, &k->o->max_median)) {
		struct val v = {XP_LIM_DUR, c->median_ps, 0}, bv = {XP_LIM_DUR, b ? b->median_ps : 0, 0};
		threshold(k, "max_median_step_time", NULL, &k->o->max_median, &v, b ? &bv : NULL, "median step time");
	}
}

static struct val cat_val(const struct xp_metrics *m, enum xp_step_cat cat, enum xp_limit_kind kind)
{
	if (kind == XP_LIM_PCT)
		return (struct val){XP_LIM_PCT, 0, xp_metrics_cat_pct(m, cat)};
	return (struct val){XP_LIM_DUR, xp_metrics_cat_avg(m, cat), 0};
}

static void category_rows(struct ck *k)
{
	const struct xp_metrics *b = k->base && k->base->n_steps ? k->base : NULL;
	for (size_t i = 0; i < k->o->n_cat; i++) {
		const struct xp_named_limit *nl = &k->o->cat[i];
		if (skip_if_no_steps(k, "max_category", nl->name, &nl->lim))
			continue;
		enum xp_step_cat cat = xp_step_cat_from_key(nl->name);
		struct val v = cat_val(k->cand, cat, nl->lim.kind), bv = b ? cat_val(b, cat, nl->lim.kind) : v;
		char what[96];
		snprintf(what, sizeof what, "%s%s", xp_step_cat_label(cat),
			 nl->lim.kind == XP_LIM_PCT ? " share of step time" : " per step");
		threshold(k, "max_category", xp_step_cat_key(cat), &nl->lim, &v, b ? &bv : NULL, what);
	}
	if (k->o->max_input.kind && !skip_if_no_steps(k, "max_input_bound", NULL, &k->o->max_input)) {
		struct val v = cat_val(k->cand, XP_SC_INPUT, XP_LIM_PCT);
		struct val bv = b ? cat_val(b, XP_SC_INPUT, XP_LIM_PCT) : v;
		threshold(k, "max_input_bound", NULL, &k->o->max_input, &v, b ? &bv : NULL,
			  "input (share of step time waiting for input)");
	}
}

/* The op named NAME: a device row first, else a host row. */
static const struct xp_metric_row *find_op(const struct xp_metric_list *l, const char *name)
{
	const struct xp_metric_row *host = NULL;
	for (size_t i = 0; l && i < l->n; i++) {
		if (strcmp(l->rows[i].name, name))
			continue;
		if (!strcmp(l->rows[i].side, "device"))
			return &l->rows[i];
		if (!host)
			host = &l->rows[i];
	}
	return host;
}

static struct val op_val(const struct xp_metric_row *op, enum xp_limit_kind kind)
{
	if (kind == XP_LIM_PCT)
		return (struct val){XP_LIM_PCT, 0, op->pct};
	return (struct val){XP_LIM_DUR, op->time_ps, 0};
}

/* The check names something the candidate lacks: an error (exit 3) that
 * names the closest names it has, never a silent pass. */
static void not_found(struct ck *k, const char *check, const struct xp_named_limit *nl, const char *code,
		      const char *what, const char *const *names, size_t n, const char *hint)
{
	char mean[600], opt[32];
	xp_did_you_mean(mean, sizeof mean, nl->name, names, n, true, 3);
	snprintf(opt, sizeof opt, "%s", check);
	for (char *p = opt; *p; p++)
		*p = *p == '_' ? '-' : *p;
	size_t row = add_row(k, check, nl->name, ST_ERROR, NULL, NULL, "no %s of this name in the candidate%s", what,
			     mean);
	set_limit(k, row, &nl->lim, false);
	xp_result_diag(k->r, XP_SEV_ERROR, code, NULL, hint, "--%s: no %s '%s' in the candidate%s", opt, what,
		       nl->name, mean);
	char why[700];
	snprintf(why, sizeof why, "no %s '%s' in the candidate", what, nl->name);
	if (!k->unusable && !(k->unusable = strdup(why)))
		xp_oom();
}

static void missing_op(struct ck *k, const struct xp_metric_list *l, const struct xp_named_limit *nl)
{
	const char **names = xmalloc((l->n ? l->n : 1) * sizeof *names);
	for (size_t i = 0; i < l->n; i++)
		names[i] = l->rows[i].name;
	char hint[160];
	snprintf(hint, sizeof hint, "op names are the full names %s shows (xpstat tf-stats --format csv)", l->from);
	not_found(k, "max_op_self_time", nl, "op_not_found", "op", names, l->n, hint);
	free(names);
}

static void op_rows(struct ck *k)
{
	const struct xp_metric_list *l = xp_metrics_ops(k->cand, NULL, false);
	const struct xp_metric_list *bl = k->base ? xp_metrics_ops(k->base, NULL, false) : NULL;
	for (size_t i = 0; i < k->o->n_op; i++) {
		const struct xp_named_limit *nl = &k->o->op[i];
		const struct xp_metric_row *op = find_op(l, nl->name), *bop = find_op(bl, nl->name);
		if (!l) {
			size_t row = add_row(k, "max_op_self_time", nl->name, ST_ERROR, NULL, NULL,
					     "the candidate has no op table (tf-stats or overview)");
			set_limit(k, row, &nl->lim, false);
			if (!k->unusable && !(k->unusable = strdup("the candidate has no op table")))
				xp_oom();
			continue;
		}
		if (!op) {
			missing_op(k, l, nl);
			continue;
		}
		struct val v = op_val(op, nl->lim.kind), bv = bop ? op_val(bop, nl->lim.kind) : v;
		char what[64];
		snprintf(what, sizeof what, "%s self time%s", op->side,
			 nl->lim.kind == XP_LIM_PCT ? " share of op time" : "");
		threshold(k, "max_op_self_time", nl->name, &nl->lim, &v, bop ? &bv : NULL, what);
	}
}

/* The highest peak of the allocators called NAME ("" = all). */
static bool peak_of(const struct xp_metrics *m, const char *name, int64_t *out)
{
	bool any = false;
	for (size_t i = 0; m && i < m->n_allocs; i++) {
		if (*name && strcmp(m->allocs[i].allocator, name))
			continue;
		if (!any || m->allocs[i].peak_bytes > *out)
			*out = m->allocs[i].peak_bytes;
		any = true;
	}
	return any;
}

static void memory_row(struct ck *k)
{
	const struct xp_named_limit *nl = &k->o->peak;
	int64_t v = 0, bv = 0;
	if (!peak_of(k->cand, nl->name, &v)) {
		if (k->cand->has_memory) {
			const char **names = xmalloc((k->cand->n_allocs ? k->cand->n_allocs : 1) * sizeof *names);
			for (size_t i = 0; i < k->cand->n_allocs; i++)
				names[i] = k->cand->allocs[i].allocator;
			not_found(k, "max_peak_memory", nl, "no_memory_data", "allocator", names, k->cand->n_allocs,
				  "name an allocator that xpstat memory lists, or leave the name out for the highest peak");
			free(names);
			return;
		}
		size_t row = add_row(k, "max_peak_memory", nl->name, ST_ERROR, NULL, NULL, "%s",
				     "the candidate has no memory profile");
		set_limit(k, row, &nl->lim, false);
		xp_result_diag(k->r, XP_SEV_ERROR, "no_memory_data", NULL,
				       "profile with memory tracking on (the allocators that xpstat memory lists come from "
				       "the profiler's memory events)",
				       "--max-peak-memory: the candidate has no memory profile (no allocator events)");
		if (!k->unusable && !(k->unusable = strdup("the candidate has no memory data for --max-peak-memory")))
			xp_oom();
		return;
	}
	struct val cv = {XP_LIM_BYTES, v, 0}, bvv = {XP_LIM_BYTES, 0, 0};
	bool have_b = k->base && peak_of(k->base, nl->name, &bv);
	bvv.v = bv;
	threshold(k, "max_peak_memory", nl->name, &nl->lim, &cv, have_b ? &bvv : NULL,
		  *nl->name ? "peak memory usage" : "highest peak memory usage of any allocator");
}

/* --- summary and verdict --------------------------------------------------------------------------------- */

static void summary(struct ck *k, const char *status)
{
	struct xp_result *r = k->r;
	const struct xp_metrics *c = k->cand, *b = k->base;
	xp_sum_str(r, "status", "Status", status);
	xp_sum_int(r, "checks", "Checks", (int64_t)k->t->n_rows);
	xp_sum_int(r, "passed", "Passed", (int64_t)k->n[ST_PASS]);
	xp_sum_int(r, "failed", "Failed", (int64_t)k->n[ST_FAIL]);
	xp_sum_int(r, "skipped", "Skipped", (int64_t)k->n[ST_SKIP]);
	xp_sum_int(r, "errors", "Not answerable", (int64_t)k->n[ST_ERROR]);
	/* Without a baseline, or without steps, what is not known is null ("-" in text), never "" or 0. */
	xp_sum_str(r, "candidate", "Candidate", c->source ? c->source : "");
	xp_sum_str(r, "baseline", "Baseline", b ? (b->source ? b->source : "") : NULL);
	xp_sum_int(r, "steps", "Candidate steps", (int64_t)c->n_steps);
	if (b)
		xp_sum_int(r, "baseline_steps", "Baseline steps", (int64_t)b->n_steps);
	else
		xp_sum_null(r, "baseline_steps", "Baseline steps");
	xp_sum_dur_if(r, "median_step_time_ms", "Median step time", c->n_steps, c->median_ps, XP_U_MS);
	xp_sum_dur_if(r, "baseline_median_step_time_ms", "Baseline median step time", b && b->n_steps,
		      b ? b->median_ps : 0, XP_U_MS);
	xp_sum_dur_if(r, "avg_step_time_ms", "Average step time", c->n_steps, c->avg_ps, XP_U_MS);
	xp_sum_dur_if(r, "baseline_avg_step_time_ms", "Baseline average step time", b && b->n_steps,
		      b ? b->avg_ps : 0, XP_U_MS);
	xp_sum_f64(r, "confidence", "Confidence", k->o->confidence);
	xp_sum_int(r, "min_steps", "Minimum steps", (int64_t)k->o->min_steps);
	xp_sum_str(r, "test", "Test", k->have_mwu ? "one-sided Mann-Whitney U" : NULL);
	xp_sum_str(r, "test_method", "Test method", k->have_mwu ? xp_mwu_method(&k->mwu) : NULL);
	xp_sum_f64(r, "u_statistic", "U", k->have_mwu ? k->mwu.u : NAN);
	xp_sum_f64(r, "p_value", "p-value", k->have_mwu ? k->mwu.p : NAN);
	double rel = b && k->have_mwu && b->median_ps > 0
			     ? 100.0 * (double)xp_sat_sub(c->median_ps, b->median_ps) / (double)b->median_ps
			     : NAN;
	xp_sum_pct(r, "median_change_pct", "Median change", rel);
}

static void regression_sentence(struct ck *k, char *buf, size_t n)
{
	const struct xp_metrics *c = k->cand, *b = k->base;
	char cm[32], bm[32], p[32];
	fmt_dur(c->median_ps, cm, sizeof cm);
	fmt_dur(b->median_ps, bm, sizeof bm);
	fmt_p(k->mwu.p, p, sizeof p);
	double rel = b->median_ps > 0 ? 100.0 * (double)xp_sat_sub(c->median_ps, b->median_ps) / (double)b->median_ps : 0;
	snprintf(buf, n,
		 " The median step time is %s against %s in the baseline (%+.1f%%); the one-sided Mann-Whitney U test "
		 "(%s, %zu baseline and %zu candidate steps) gives U = %g, p = %s, %s %.2g (1 - confidence).",
		 cm, bm, rel, xp_mwu_method(&k->mwu), b->n_steps, c->n_steps, k->mwu.u, p,
		 k->mwu.p < k->alpha ? "below" : "not below", k->alpha);
}

static void verdict(struct ck *k, int status)
{
	char reg[512] = "";
	size_t total = k->t->n_rows;
	if (k->have_mwu)
		regression_sentence(k, reg, sizeof reg);
	if (status == XP_CHECK_FAIL)
		xp_result_set_verdict(k->r, "FAIL: %zu of %zu checks failed (%s).%s", k->n[ST_FAIL], total, k->failed, reg);
	else if (status == XP_CHECK_UNUSABLE)
		xp_result_set_verdict(k->r, "UNUSABLE: the input cannot answer %zu of %zu checks: %s.%s No check failed.",
				      k->n[ST_ERROR] + k->n[ST_SKIP], total, k->unusable ? k->unusable : "see the diagnostics",
				      reg);
	else
		xp_result_set_verdict(k->r, "PASS: %zu of %zu checks passed%s.%s", k->n[ST_PASS], total,
				      k->n[ST_SKIP] ? " (the others were skipped: see the table)" : "", reg);
}

struct xp_result *xp_check(const struct xp_metrics *cand, const struct xp_metrics *base,
			   const struct xp_check_opts *o, int *status)
{
	/* 1 - 0.95 is 0.050000000000000044 in binary: round to 1e-12 so that p = 1/20 is not below "0.05". */
	struct ck k = {.cand = cand, .base = base, .o = o, .alpha = nearbyint((1 - o->confidence) * 1e12) / 1e12};
	k.r = xp_result_new("check");
	k.t = xp_result_add_table(k.r, "checks", "Checks");
	xp_table_cols(k.t, XP_COLS(check_cols));
	k.steps_ok = true;
	if (needs_steps(o))
		min_steps_row(&k);
	if (o->regression.kind && base)
		regression_row(&k);
	step_time_rows(&k);
	category_rows(&k);
	op_rows(&k);
	if (o->has_peak)
		memory_row(&k);
	*status = k.n[ST_FAIL] ? XP_CHECK_FAIL : k.n[ST_ERROR] ? XP_CHECK_UNUSABLE : XP_CHECK_PASS;
	verdict(&k, *status);
	summary(&k, *status == XP_CHECK_FAIL ? "fail" : *status == XP_CHECK_UNUSABLE ? "unusable" : "pass");
	k.r->primary = 0;
	free(k.failed);
	free(k.unusable);
	return k.r;
}
