/* cmd_steps.c - `xpstat steps`: one row per step with its step time and every category. */
#include "cmd.h"
#include "analyzers/steps.h"

static int steps_run(struct xp_ctx *ctx)
{
	return xp_run_analysis(ctx, &xp_analysis_steps, NULL);
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_steps, NULL};

const struct xp_cmd xp_cmd_steps = {
	.name = "steps",
	.summary = "List every step: step time and each category of the breakdown, one row per step",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = steps_run,
	.analyses = analyses,
};
