/* cmd_steps.c - `xpstat steps`: one row per step with its step time and every category. */
#include "cmd.h"
#include "analyzers/steps.h"
#include "analyzers/unread_stats.h"

static int steps_run(struct xp_ctx *ctx)
{
	return xp_run_prepared(ctx, xp_analyze_steps);
}

const struct xp_cmd xp_cmd_steps = {
	.name = "steps",
	.summary = "List every step: step time and each category of the breakdown, one row per step",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = steps_run,
	.drop_stats = xp_drop_all_details,
};
