/* preputil.h - running xp_prepare on built captures and looking at its groups and steps (header-only helpers). */
#ifndef XPSTAT_TESTS_PREPUTIL_H
#define XPSTAT_TESTS_PREPUTIL_H

#include <stdio.h>

#include "analyzers/prepare/prepare.h"
#include "caputil.h"
#include "check.h"
#include "xsbuild.h"

/* A built capture and its preparation, freed together by prep_done(). */
struct prepared {
	struct xsb *b;
	struct xp_capture *c;
	struct xp_prep *p;
	const struct xp_step_db *db;   /* host 0 */
	int failed_before;             /* check failures of the test before prep_run */
};

static inline struct prepared prep_run(struct xsb *b, bool compat, const char *marker)
{
	struct prepared r = {b, xsb_read(b), NULL, NULL, check_failed_now};
	struct xp_prep_opts o = {.xprof_compat = compat, .step_marker = marker};
	struct xp_err err = {0};
	r.p = xp_prepare(r.c, &o, &err);
	if (!r.p)
		fprintf(stderr, "xp_prepare failed: %s\n", err.msg);
	else if (r.p->n_hosts > 0)
		r.db = &r.p->hosts[0].steps;
	return r;
}

static inline void prep_dump(const struct xp_step_db *db)
{
	if (!db)
		return;
	fprintf(stderr, "  step db: %zu steps, source %d, has_device %d, dropped %llu, c16 %lld, c32 %lld\n", db->n,
		(int)db->source, db->has_device, (unsigned long long)db->n_dropped, (long long)db->compute16_ps,
		(long long)db->compute32_ps);
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_step *s = &db->steps[i];
		fprintf(stderr, "  step %lld \"%s\" begin %lld dur %lld:", (long long)s->id, s->name ? s->name : "(null)",
			(long long)s->begin_ps, (long long)s->duration_ps);
		for (int t = 0; t < XP_N_EVENT_TYPES; t++)
			if (xp_step_type_ps(s, t))
				fprintf(stderr, " %s=%lld", xp_event_type_name((enum xp_event_type)t), (long long)xp_step_type_ps(s, t));
		fputc('\n', stderr);
	}
}

/* Frees everything; dumps the step db first when a check failed since prep_run. */
static inline void prep_done(struct prepared *r)
{
	if (check_failed_now > r->failed_before)
		prep_dump(r->db);
	if (r->p)
		xp_prep_free(r->p);
	xp_capture_free(r->c);
	xsb_free(r->b);
}

/* Group id the preparation gave builder event ev of builder plane bplane (host 0);
 * -1 when ungrouped or when the preparation keeps no group array there. */
static inline int32_t prep_group(const struct prepared *r, int bplane, int ev)
{
	struct cap_pos pos = cap_find(r->c, 0, r->b, bplane, ev);
	if (!pos.ok || !r->p || !r->p->hosts[0].planes)
		return -1;
	const struct xp_prep_plane *pl = &r->p->hosts[0].planes[pos.plane];
	if (!pl->lines || !pl->lines[pos.line].group)
		return -1;
	return pl->lines[pos.line].group[pos.index];
}

/* Σ type_ps of a step: every step's breakdown sums to its duration. */
static inline int64_t step_sum(const struct xp_step *s)
{
	int64_t sum = 0;
	for (int t = 0; t < XP_N_EVENT_TYPES; t++)
		sum += xp_step_type_ps(s, t);
	return sum;
}

#endif
