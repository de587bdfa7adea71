/* steps.c - the `steps` command: one row per step of every host with its time and every category. */
#include "steps.h"
#include "analyzers/db/steptime.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the `steps` result ------------------------------------------------------------------ */

/* Step times of every host, one after the other. */
static size_t all_step_times(const struct xp_prep *p, int64_t **out)
{
	size_t n = 0, k = 0;
	for (uint32_t h = 0; h < p->n_hosts; h++)
		n += p->hosts[h].steps.n;
	int64_t *v = xcalloc(n, sizeof *v);
	for (uint32_t h = 0; h < p->n_hosts; h++)
		for (size_t i = 0; i < p->hosts[h].steps.n; i++)
			v[k++] = p->hosts[h].steps.steps[i].duration_ps;
	*out = v;
	return n;
}

static bool any_tpu(const struct xp_prep *p)
{
	for (uint32_t h = 0; h < p->n_hosts; h++)
		if (p->hosts[h].steps.tpu)
			return true;
	return false;
}

static const char *steps_source(const struct xp_prep *p)
{
	const char *s = p->n_hosts ? xp_step_source_name(p->hosts[0].steps.source) : "none";
	for (uint32_t h = 1; h < p->n_hosts; h++)
		if (strcmp(s, xp_step_source_name(p->hosts[h].steps.source)))
			return "mixed";
	return s;
}

static void steps_verdict(struct xp_result *r, const struct xp_prep *p, const struct xp_dur_stat *st)
{
	char avg[32], mn[32], mx[32], where[48] = "";
	if (!st->n) {
		if (any_tpu(p))
			xp_result_set_verdict(r, "TPU capture: the TPU step-time breakdown is not supported yet");
		else
			xp_result_set_verdict(r, "No steps: no step marker observed, so the step time is unknown");
		return;
	}
	xp_format_duration(st->avg_ps, avg, sizeof avg);
	xp_format_duration(st->min_ps, mn, sizeof mn);
	xp_format_duration(st->max_ps, mx, sizeof mx);
	if (p->n_hosts > 1)
		snprintf(where, sizeof where, " on %" PRIu32 " hosts", p->n_hosts);
	xp_result_set_verdict(r, "%zu step%s%s: average step time %s (min %s, max %s)", st->n, st->n == 1 ? "" : "s",
			      where, avg, mn, mx);
}

struct xp_result *xp_analyze_steps(const struct xp_prep *p)
{
	struct xp_result *r = xp_result_new("steps");
	struct xp_step_align a;
	xp_align_or_die(p, &a);
	int64_t *v;
	size_t n = all_step_times(p, &v);
	struct xp_dur_stat st;
	xp_dur_stat(v, n, &st);
	free(v);
	steps_verdict(r, p, &st);
	xp_sum_int(r, "hosts", "Hosts", p->n_hosts);
	xp_sum_int(r, "steps", "Steps", (int64_t)n);
	xp_sum_int(r, "combined_steps", "Steps common to all hosts", (int64_t)a.n);
	xp_sum_str(r, "step_source", "Step markers", steps_source(p));
	xp_sum_str(r, "compat", "Compatibility", p->opts.xprof_compat ? "xprof" : "xpstat");
	xp_sum_step_stat(r, &st);
	xp_steps_add_table(r, p, &a, "steps", "Steps");
	r->primary = 0;
	for (uint32_t h = 0; h < p->n_hosts; h++)
		xp_step_diags(r, p, h);
	xp_align_diags(r, p, &a);
	xp_step_align_free(&a);
	return r;
}

/* It reads only the step databases, host names and time bases, which the saved state holds. */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	return xp_analyze_steps(in->p);
}

static struct xp_result *run(const struct xp_run_in *in)
{
	return xp_analyze_steps(in->p);
}

const struct xp_analysis xp_analysis_steps = {
	.name = "steps",
	.needs = XP_NEEDS_PREP,
	.reads = NULL,
	.run = run,
	.combine = combine,
};
