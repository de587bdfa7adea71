/* cmd_memory.c - `xpstat memory`: the Memory Profile of every allocator (peak, fragmentation, breakdown at the peak, timeline). */
#include "cmd.h"
#include "analyzers/memory/memory.h"
#include "analyzers/memory/profile.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

#include <string.h>

enum { OPT_ALLOCATOR = 1, OPT_BREAKDOWN, OPT_TIMELINE, OPT_POINTS };

/* Text shows a sampled timeline unless --points says otherwise (spec §5.3 step 5). */
#define TEXT_POINTS 1000

static const struct xp_opt memory_opts[] = {
	{"allocator", 1, OPT_ALLOCATOR, "NAME", "only the allocator NAME (its memory id or allocator name)"},
	{"breakdown", 0, OPT_BREAKDOWN, NULL, "add the allocations live at each allocator's peak (table breakdown)"},
	{"timeline", 0, OPT_TIMELINE, NULL, "add the memory timeline, one row per event (table timeline)"},
	{"points", 1, OPT_POINTS, "N", "timeline: at most N points per allocator, max-filtered (text default 1000)"},
	{NULL, 0, 0, NULL, NULL},
};

/* One invocation's options: the analysis's own, and whether --points was given. */
struct memory_cmd {
	struct xp_memory_opts o;
	bool points_set;
};

static int memory_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct memory_cmd *m = ctx->cmd_opts;
	long n;
	switch (key) {
	case OPT_ALLOCATOR:
		if (!*arg)
			return xp_usage_error(ctx, "--allocator needs a name");
		m->o.allocator = arg;
		return 0;
	case OPT_BREAKDOWN:
		m->o.breakdown = true;
		return 0;
	case OPT_TIMELINE:
		m->o.timeline = true;
		return 0;
	case OPT_POINTS:
		if (!xp_parse_int(arg, 1, 1000000000, &n))
			return xp_usage_error(ctx, "--points needs a number from 1 to 1000000000, not '%s'", arg);
		m->o.points = (uint64_t)n;
		m->o.timeline = true;
		m->points_set = true;
		return 0;
	}
	return 0;
}

/* An unknown --allocator is the user's mistake: a usage error naming the allocators there are. */
static int memory_run(struct xp_ctx *ctx)
{
	struct memory_cmd *m = ctx->cmd_opts;
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	struct xp_err e = {0};
	/* Memory steps are group ids (spec §5.1); --step-marker steps have none, so it does not apply, and
	 * the step database is not needed; nor the groups, when the capture has no memory event. */
	struct xp_prep_opts po = {.xprof_compat = ctx->xprof_compat, .groups_only = true,
				  .no_groups = !xp_memory_needs_groups(c)};
	struct xp_prep *p = xp_prepare(c, &po, &e);
	if (!p) {
		xp_capture_free(c);
		return xp_usage_error(ctx, "%s", e.msg);
	}
	if (!m->points_set)
		m->o.points = !strcmp(ctx->format, "text") ? TEXT_POINTS : 0;
	struct xp_result *r = xp_analyze_memory(p, &m->o, &e);
	rc = r ? xp_emit_read(ctx, c, r) : xp_usage_error(ctx, "%s", e.msg);
	xp_result_free(r);
	xp_prep_free(p);
	xp_capture_free(c);
	return rc;
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_memory, NULL};

const struct xp_cmd xp_cmd_memory = {
	.name = "memory",
	.summary = "Show the Memory Profile: per allocator the peak, fragmentation, breakdown at the peak, timeline",
	.args = "PATH...",
	.min_paths = 1,
	.opts = memory_opts,
	.set_opt = memory_set,
	.run = memory_run,
	.opts_size = sizeof(struct memory_cmd),
	.analyses = analyses,
};
