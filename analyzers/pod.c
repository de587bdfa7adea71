/* pod.c - the Pod Viewer: every host's step-time breakdown side by side, the slowest host and the spread between hosts. */
#include "pod.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/input_bound.h"
#include "analyzers/db/steptime.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct host_stat {
	struct xp_step_db view;     /* the steps compared: the combined ones, or all of the host's */
	bool aligned;               /* view holds the steps common to all hosts */
	struct xp_dur_stat step;
	struct xp_dur_stat cat[XP_N_STEP_CATS];
	struct xp_step_totals tot;
};

struct pod {
	const struct xp_prep *p;
	struct xp_step_align al;
	struct host_stat *hs;
	uint32_t with_steps;
	uint32_t slowest, fastest;  /* by average step time, among hosts with steps */
};

/*
 * Hosts are compared on the steps common to all of them (spec §6(a)), so a
 * host that profiled a few more steps does not skew its average. Without
 * common steps (one host, an empty intersection) each host's own steps are
 * compared; hosts left out of the alignment (coordinators) are not compared.
 */
static void host_view(struct pod *pd, uint32_t h)
{
	struct host_stat *s = &pd->hs[h];
	const struct xp_step_db *db = &pd->p->hosts[h].steps;
	s->aligned = pd->al.n && pd->al.first[h] >= 0;
	s->view = pd->al.n ? xp_step_view(db, &pd->al, h) : *db;
}

static void gather(struct pod *pd)
{
	const struct xp_prep *p = pd->p;
	xp_align_or_die(p, &pd->al);
	pd->hs = calloc(p->n_hosts ? p->n_hosts : 1, sizeof *pd->hs);
	if (!pd->hs)
		xp_oom();
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct host_stat *s = &pd->hs[h];
		host_view(pd, h);
		xp_step_stat(&s->view, XP_N_STEP_CATS, &s->step);
		for (int c = 0; c < XP_N_STEP_CATS; c++)
			xp_step_stat(&s->view, (enum xp_step_cat)c, &s->cat[c]);
		xp_step_totals(&s->view, &s->tot);
		if (!s->view.n)
			continue;
		/* Ties go to the first host, so the answer does not depend on anything but file order. */
		if (!pd->with_steps || s->step.avg_ps > pd->hs[pd->slowest].step.avg_ps)
			pd->slowest = h;
		if (!pd->with_steps || s->step.avg_ps < pd->hs[pd->fastest].step.avg_ps)
			pd->fastest = h;
		pd->with_steps++;
	}
}

static int64_t spread_ps(const struct pod *pd)
{
	return pd->with_steps ? pd->hs[pd->slowest].step.avg_ps - pd->hs[pd->fastest].step.avg_ps : 0;
}

static double spread_pct(const struct pod *pd)
{
	int64_t fast = pd->with_steps ? pd->hs[pd->fastest].step.avg_ps : 0;
	return fast > 0 ? 100.0 * (double)spread_ps(pd) / (double)fast : 0;
}

static void set_verdict(struct xp_result *r, const struct pod *pd)
{
	const struct xp_prep *p = pd->p;
	char slow[32], fast[32];
	if (!pd->with_steps) {
		bool tpu = false;
		for (uint32_t h = 0; h < p->n_hosts; h++)
			tpu |= p->hosts[h].steps.tpu;
		xp_result_set_verdict(r, tpu ? "TPU capture: the TPU step-time breakdown is not supported yet"
					     : "No steps on any host: no step marker observed, so the step time is unknown");
		return;
	}
	xp_format_duration(pd->hs[pd->slowest].step.avg_ps, slow, sizeof slow);
	xp_format_duration(pd->hs[pd->fastest].step.avg_ps, fast, sizeof fast);
	if (pd->with_steps == 1) {
		xp_result_set_verdict(r, "1 host with steps (%s): average step time %s; nothing to compare it with",
				      p->hosts[pd->slowest].host->name, slow);
		return;
	}
	xp_result_set_verdict(r, "Slowest host %s: average step time %s, %.1f%% above the fastest (%s, %s)",
			      p->hosts[pd->slowest].host->name, slow, spread_pct(pd), p->hosts[pd->fastest].host->name,
			      fast);
}

static void add_summary(struct xp_result *r, const struct pod *pd)
{
	const struct xp_prep *p = pd->p;
	xp_sum_int(r, "hosts", "Hosts", p->n_hosts);
	xp_sum_int(r, "hosts_compared", "Hosts compared", pd->with_steps);
	xp_sum_int(r, "combined_steps", "Steps common to all hosts", (int64_t)pd->al.n);
	xp_sum_str(r, "chief_host", "Chief host", pd->al.n ? p->hosts[pd->al.chief].host->name : "");
	xp_sum_str(r, "slowest_host", "Slowest host", pd->with_steps ? p->hosts[pd->slowest].host->name : "");
	xp_sum_str(r, "fastest_host", "Fastest host", pd->with_steps ? p->hosts[pd->fastest].host->name : "");
	xp_sum_dur(r, "step_time_spread_ms", "Spread of average step time", spread_ps(pd), XP_U_MS);
	xp_sum_pct(r, "step_time_spread_pct", "Spread, relative to the fastest", spread_pct(pd));
	xp_sum_str(r, "compat", "Compatibility", p->opts.xprof_compat ? "xprof" : "xpstat");
}

/* The hosts table: fixed columns, one per step-time category the capture has, fixed columns again. */
struct host_cols {
	size_t cat[XP_N_STEP_CATS], input_pct, bottleneck, slowest, vs_fastest;
	size_t n_cats;
	enum xp_step_cat which[XP_N_STEP_CATS];
};

enum {
	HC_HOST, HC_STEPS, HC_ALIGNED, HC_COMPARED, HC_FIRST, HC_AVG, HC_SDV, HC_MIN, HC_MAX
};
static const struct xp_col_def pod_host_cols[] = {
	[HC_HOST] = {"host", "Host", XP_T_STR},
	[HC_STEPS] = {"steps", "Steps", XP_T_INT},
	[HC_ALIGNED] = {"aligned", "Aligned", XP_T_BOOL, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HC_COMPARED] = {"compared_steps", "Compared", XP_T_INT},
	[HC_FIRST] = {"first_step", "From step", XP_T_STR},
	[HC_AVG] = {"step_time_avg_ms", "Step time", XP_T_DUR, XP_U_MS},
	[HC_SDV] = {"step_time_sdv_ms", "Std dev", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[HC_MIN] = {"step_time_min_ms", "Min", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[HC_MAX] = {"step_time_max_ms", "Max", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
};

static const struct xp_col_def pod_host_tail_cols[] = {
	{"input_pct", "Input %", XP_T_PCT},
	{"bottleneck", "Bottleneck", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	{"slowest", "Slowest", XP_T_BOOL},
	{"vs_fastest_pct", "vs fastest", XP_T_PCT},
};

static void host_columns(struct xp_table *t, struct host_cols *hc, const struct pod *pd)
{
	char key[64];
	int64_t total[XP_N_STEP_CATS] = {0};
	for (uint32_t h = 0; h < pd->p->n_hosts; h++)
		for (int c = 0; c < XP_N_STEP_CATS; c++)
			total[c] += pd->hs[h].tot.cat_ps[c];
	xp_table_cols(t, XP_COLS(pod_host_cols));
	bool pytorch = xp_prep_pytorch(pd->p), hidden[XP_N_STEP_CATS];
	hc->n_cats = xp_step_cat_columns(pytorch, hc->which, hidden);
	for (size_t k = 0; k < hc->n_cats; k++) {
		enum xp_step_cat c = hc->which[k];
		snprintf(key, sizeof key, "%s_avg_ms", xp_step_cat_key(c));
		/* A category that is zero on every host only widens the text. */
		hc->cat[k] = xp_table_col(t, key, xp_step_cat_short(c, pytorch), XP_T_DUR, XP_U_MS,
					  total[c] && !hidden[k] ? 0 : XP_COL_TEXT_HIDDEN);
	}
	size_t first = xp_table_cols(t, XP_COLS(pod_host_tail_cols));
	hc->input_pct = first + 0;
	hc->bottleneck = first + 1;
	hc->slowest = first + 2;
	hc->vs_fastest = first + 3;
}

static void host_row(struct xp_table *t, const struct host_cols *hc, const struct pod *pd, uint32_t h)
{
	const struct host_stat *s = &pd->hs[h];
	size_t row = xp_table_row(t);
	xp_set_str(t, row, HC_HOST, pd->p->hosts[h].host->name);
	xp_set_int(t, row, HC_STEPS, (int64_t)pd->p->hosts[h].steps.n);
	xp_set_bool(t, row, HC_ALIGNED, s->aligned);
	xp_set_int(t, row, HC_COMPARED, (int64_t)s->step.n);
	if (!s->step.n)
		return;     /* no steps: the averages stay empty, not zero */
	const struct xp_step *first = &s->view.steps[0];
	char num[32];
	snprintf(num, sizeof num, "%" PRId64, first->id);
	xp_set_str(t, row, HC_FIRST, first->name && *first->name ? first->name : num);
	xp_set_dur(t, row, HC_AVG, s->step.avg_ps);
	xp_set_dur(t, row, HC_SDV, s->step.sdv_ps);
	xp_set_dur(t, row, HC_MIN, s->step.min_ps);
	xp_set_dur(t, row, HC_MAX, s->step.max_ps);
	for (size_t k = 0; k < hc->n_cats; k++)
		xp_set_dur(t, row, hc->cat[k], s->cat[hc->which[k]].avg_ps);
	double input, others;
	const char *level;
	xp_set_str(t, row, hc->bottleneck, xp_overview_bottleneck(&s->tot, &input, &others, &level));
	xp_set_pct(t, row, hc->input_pct, input);
	xp_set_bool(t, row, hc->slowest, h == pd->slowest);
	int64_t fast = pd->hs[pd->fastest].step.avg_ps;
	xp_set_pct(t, row, hc->vs_fastest, fast > 0 ? 100.0 * (double)(s->step.avg_ps - fast) / (double)fast : 0);
}

static void hosts_table(struct xp_result *r, const struct pod *pd)
{
	struct xp_table *t = xp_result_add_table(r, "hosts", "Step time per host (averages per step)");
	struct host_cols hc;
	host_columns(t, &hc, pd);
	for (uint32_t h = 0; h < pd->p->n_hosts; h++)
		host_row(t, &hc, pd, h);
}

static void add_diags(struct xp_result *r, const struct pod *pd)
{
	const struct xp_prep *p = pd->p;
	for (uint32_t h = 0; h < p->n_hosts; h++)
		xp_step_diags(r, p, h);
	xp_align_diags(r, p, &pd->al);
	if (p->n_hosts == 1)
		xp_result_diag(r, XP_SEV_INFO, "single_host", p->hosts[0].host->name,
			       "give the run directory (or several capture files) to compare hosts",
			       "only one host: the Pod Viewer compares hosts");
}

struct xp_result *xp_analyze_pod(const struct xp_prep *p)
{
	struct xp_result *r = xp_result_new("pod");
	struct pod pd = {.p = p};
	gather(&pd);
	set_verdict(r, &pd);
	add_summary(r, &pd);
	hosts_table(r, &pd);
	r->primary = 0;
	struct xp_table *t = xp_steps_add_table(r, p, &pd.al, "steps", "Steps of every host");
	/* The per-step rows of many hosts are long: text shows the first ones. */
	t->text_limit = 40;
	add_diags(r, &pd);
	xp_step_align_free(&pd.al);
	free(pd.hs);
	return r;
}

/* It reads only the step databases, host names and time bases, which the saved state holds. */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	return xp_analyze_pod(in->p);
}

static struct xp_result *run(const struct xp_run_in *in)
{
	return xp_analyze_pod(in->p);
}

const struct xp_analysis xp_analysis_pod = {
	.name = "pod",
	.needs = XP_NEEDS_PREP,
	.reads = NULL,
	.run = run,
	.combine = combine,
};
