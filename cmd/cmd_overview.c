/* cmd_overview.c - `xpstat overview`: the Overview page (step-time breakdown, precision, top ops, environment, recommendation). */
#include "cmd.h"
#include "analyzers/overview.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

enum { OPT_TOP = 1 };

static const struct xp_opt overview_opts[] = {
	{"top", 1, OPT_TOP, "N", "rows of the top device operations table (default 10)"},
	{NULL, 0, 0, NULL, NULL},
};

static int overview_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct xp_overview_opts *o = ctx->cmd_opts;
	long n;
	if (key != OPT_TOP)
		return 0;
	if (!xp_parse_int(arg, 1, 1000000, &n))
		return xp_usage_error(ctx, "--top needs a number from 1 to 1000000, not '%s'", arg);
	o->top_ops = (size_t)n;
	return 0;
}

static int overview_run(struct xp_ctx *ctx)
{
	struct xp_overview_opts *o = ctx->cmd_opts;
	return xp_run_analysis(ctx, &xp_analysis_overview, o);
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_overview, NULL};

const struct xp_cmd xp_cmd_overview = {
	.name = "overview",
	.summary = "Show the Overview page: step-time breakdown, precision, top device ops, environment, recommendation",
	.args = "PATH...",
	.min_paths = 1,
	.opts = overview_opts,
	.set_opt = overview_set,
	.run = overview_run,
	.analyses = analyses,
};
