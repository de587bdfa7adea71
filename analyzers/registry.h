/* registry.h - every analysis, in report order, and what a command leaves out of the load for them. */
#ifndef XPSTAT_REGISTRY_H
#define XPSTAT_REGISTRY_H

#include "analysis.h"

/* The analyses a report runs, in report order; NULL-terminated after the XP_N_ANALYSES. */
enum { XP_N_ANALYSES = 9 };
extern const struct xp_analysis *const xp_analyses[];

/* A's place in xp_analyses (report order); XP_N_ANALYSES when it is not there. */
size_t xp_analysis_index(const struct xp_analysis *a);
/* The analysis named NAME ("kernel-stats"), or NULL. */
const struct xp_analysis *xp_analysis_find(const char *name);

#define XP_MAX_DROP 64
/* The optional stats none of LIST's analyses (NULL-terminated) read, NULL-terminated, in a fixed order. */
struct xp_drop_list {
	const char *names[XP_MAX_DROP + 1];
};
void xp_drop_list(const struct xp_analysis *const *list, struct xp_drop_list *out);

#endif
