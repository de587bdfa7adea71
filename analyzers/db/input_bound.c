/* input_bound.c - the input-bound test and its texts (spec §1.10, §2.4), shared by overview and input-pipeline. */
#include "input_bound.h"
#include "formats/core/xalloc.h"
#include "steptime.h"
#include "analyzers/prepare/prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thresholds of spec §1.10, in percent of the total step time. */
#define INPUT_HIGH_PCT 20.0
#define INPUT_MODERATE_PCT 5.0
#define ALL_OTHERS_POTENTIAL_PCT 3.0

static double pct_of(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

const char *xp_overview_bottleneck(const struct xp_step_totals *t, double *input_pct, double *all_others_pct,
				   const char **level)
{
	*input_pct = pct_of(t->cat_ps[XP_SC_INPUT], t->step_ps);
	*all_others_pct = pct_of(t->cat_ps[XP_SC_OTHER], t->step_ps);
	if (t->step_ps <= 0) {
		*level = "";
		return "unknown";
	}
	if (*input_pct >= INPUT_HIGH_PCT) {
		*level = "HIGHLY";
		return "host";
	}
	if (*input_pct >= INPUT_MODERATE_PCT) {
		*level = "MODERATELY";
		return "both";
	}
	if (*all_others_pct >= ALL_OTHERS_POTENTIAL_PCT) {
		*level = "POTENTIALLY";
		return "both";
	}
	*level = "NOT";
	return "device";
}

void xp_input_statement(const char *level, double input_pct, double all_others_pct, char *buf, size_t n)
{
	if (!level || !*level)
		snprintf(buf, n, "No step time measured. Therefore we cannot tell where the performance bottleneck is.");
	else if (!strcmp(level, "HIGHLY"))
		snprintf(buf, n, "Your program is HIGHLY input-bound because %.1f%% of the total step time sampled is "
			 "waiting for input. Therefore, you should first focus on reducing the input time.", input_pct);
	else if (!strcmp(level, "MODERATELY"))
		snprintf(buf, n, "Your program is MODERATELY input-bound because %.1f%% of the total step time sampled is "
			 "waiting for input. Therefore, you would need to reduce both the input time and other time.",
			 input_pct);
	else if (!strcmp(level, "POTENTIALLY"))
		snprintf(buf, n, "Your program is POTENTIALLY input-bound because %.1f%% of the total step time sampled "
			 "is spent on 'All Others' time (which could be due to I/O or Python execution or both).",
			 all_others_pct);
	else
		snprintf(buf, n, "Your program is NOT input-bound because only %.1f%% of the total step time sampled is "
			 "waiting for input. Therefore, you should focus on reducing other time.", input_pct);
}

uint32_t xp_breakdown_host(const struct xp_prep *p)
{
	for (uint32_t h = 0; h < p->n_hosts; h++)
		if (p->hosts[h].steps.n)
			return h;
	return 0;
}

/* The first aligned host: host 0 unless it takes no part (a coordinator without a device). */
static uint32_t first_aligned(const struct xp_step_align *a)
{
	for (uint32_t h = 0; h < a->n_hosts; h++)
		if (a->first[h] >= 0)
			return h;
	return 0;
}

/*
 * Spec §6(a), as the overview does: the combined step i is every host's
 * aligned step; its time is the longest of them, while the breakdown into
 * categories comes from one host's steps only, as the reference does.
 */
void xp_breakdown_steps_init(const struct xp_prep *p, struct xp_breakdown_steps *b)
{
	memset(b, 0, sizeof *b);
	if (!p->n_hosts)
		return;
	xp_align_or_die(p, &b->al);
	b->host = b->al.n ? first_aligned(&b->al) : xp_breakdown_host(p);
	b->view = xp_step_view(&p->hosts[b->host].steps, &b->al, b->host);
	b->step_ps = calloc(b->al.n ? b->al.n : 1, sizeof *b->step_ps);
	if (!b->step_ps)
		xp_oom();
	for (size_t i = 0; i < b->al.n; i++)
		for (uint32_t h = 0; h < p->n_hosts; h++) {
			struct xp_step_db v = xp_step_view(&p->hosts[h].steps, &b->al, h);
			if (v.n && v.steps[i].duration_ps > b->step_ps[i])
				b->step_ps[i] = v.steps[i].duration_ps;
		}
	xp_dur_stat(b->step_ps, b->al.n, &b->step);
	xp_step_totals(&b->view, &b->tot);
}

void xp_breakdown_steps_free(struct xp_breakdown_steps *b)
{
	free(b->step_ps);
	xp_step_align_free(&b->al);
	memset(b, 0, sizeof *b);
}
