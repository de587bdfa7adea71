/* registry.c - every analysis in report order (adding one: a line here), and the drop lists derived from the stats they read. */
#include "registry.h"
#include "info.h"
#include "overview.h"
#include "steps.h"
#include "input_pipeline.h"
#include "tf_data.h"
#include "tf_stats.h"
#include "kernel_stats.h"
#include "memory/memory.h"
#include "pod.h"

#include <string.h>

const struct xp_analysis *const xp_analyses[] = {
	&xp_analysis_info,
	&xp_analysis_overview,
	&xp_analysis_steps,
	&xp_analysis_input_pipeline,
	&xp_analysis_tf_data,
	&xp_analysis_tf_stats,
	&xp_analysis_kernel_stats,
	&xp_analysis_memory,
	&xp_analysis_pod,
	NULL,
};
_Static_assert(sizeof xp_analyses / sizeof *xp_analyses == XP_N_ANALYSES + 1, "XP_N_ANALYSES counts xp_analyses");

/* Every optional stat, in the order the drop lists give them. */
static const char *const optional_stats[] = {XP_ALLOCATOR_STATS, XP_KERNEL_DETAIL_STATS, XP_NEVER_READ_STATS, NULL};

size_t xp_analysis_index(const struct xp_analysis *a)
{
	size_t i = 0;
	while (xp_analyses[i] && xp_analyses[i] != a)
		i++;
	return i;
}

const struct xp_analysis *xp_analysis_find(const char *name)
{
	for (size_t i = 0; xp_analyses[i]; i++)
		if (!strcmp(xp_analyses[i]->name, name))
			return xp_analyses[i];
	return NULL;
}

static bool reads(const struct xp_analysis *a, const char *stat)
{
	for (const char *const *r = a->reads; r && *r; r++)
		if (!strcmp(*r, stat))
			return true;
	return false;
}

static bool any_reads(const struct xp_analysis *const *list, const char *stat)
{
	for (; list && *list; list++)
		if (reads(*list, stat))
			return true;
	return false;
}

void xp_drop_list(const struct xp_analysis *const *list, struct xp_drop_list *out)
{
	size_t n = 0;
	for (const char *const *s = optional_stats; *s && n < XP_MAX_DROP; s++)
		if (!any_reads(list, *s))
			out->names[n++] = *s;
	out->names[n] = NULL;
}
