/* cmd_input_pipeline.c - `xpstat input-pipeline`: the Input Pipeline Analyzer (input-bound verdict, step statistics, host-side breakdown, input ops). */
#include "cmd.h"
#include "analyzers/input_pipeline.h"
#include "analyzers/prepare/prepare.h"
#include "analyzers/unread_stats.h"
#include "formats/model/result.h"

static struct xp_result *analyze(const struct xp_prep *p)
{
	struct xp_input_opts o = {.xprof_compat = p->opts.xprof_compat};
	return xp_analyze_input_pipeline(p, &o);
}

static int input_pipeline_run(struct xp_ctx *ctx)
{
	return xp_run_prepared(ctx, analyze);
}

const struct xp_cmd xp_cmd_input_pipeline = {
	.name = "input-pipeline",
	.summary = "Show the Input Pipeline Analyzer: input-bound verdict, step statistics, host-side breakdown, input ops",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = input_pipeline_run,
	.drop_stats = xp_drop_all_details,
};
