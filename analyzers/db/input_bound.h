/* input_bound.h - shared by overview, pod and input-pipeline: the input-bound classification and the steps of the step-time breakdown. */
#ifndef XPSTAT_INPUT_BOUND_H
#define XPSTAT_INPUT_BOUND_H

#include "steptime.h"

/* Input-bound classification (spec §1.10; input_bound.c) of step totals: "host", "both",
 * "device" or "unknown"; *input_pct and *all_others_pct are set. LEVEL gets
 * "HIGHLY", "MODERATELY", "POTENTIALLY", "NOT" or "" (unknown). */
const char *xp_overview_bottleneck(const struct xp_step_totals *t, double *input_pct, double *all_others_pct,
				   const char **level);

/* The reference's input statement for LEVEL ("HIGHLY", ..., "" = no step time). */
void xp_input_statement(const char *level, double input_pct, double all_others_pct, char *buf, size_t n);
/* The host whose steps make the step-time breakdown: the first host with steps (0 when none has). */
uint32_t xp_breakdown_host(const struct xp_prep *p);

/* The steps of the step-time breakdown, as the overview takes them (spec §6(a)). */
struct xp_breakdown_steps {
	struct xp_step_align al;
	uint32_t host;              /* whose steps make the breakdown */
	struct xp_step_db view;     /* its aligned steps (a view into the prep, no copy) */
	int64_t *step_ps;           /* per combined step: the longest host's step time */
	struct xp_dur_stat step;    /* over step_ps */
	struct xp_step_totals tot;  /* over view */
};
void xp_breakdown_steps_init(const struct xp_prep *p, struct xp_breakdown_steps *b);
void xp_breakdown_steps_free(struct xp_breakdown_steps *b);

#endif
