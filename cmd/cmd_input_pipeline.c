/* cmd_input_pipeline.c - `xpstat input-pipeline`: the Input Pipeline Analyzer (input-bound verdict, step statistics, host-side breakdown, input ops). */
#include "cmd.h"
#include "analyzers/input_pipeline.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

static int input_pipeline_run(struct xp_ctx *ctx)
{
	return xp_run_analysis(ctx, &xp_analysis_input_pipeline, NULL);
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_input_pipeline, NULL};

const struct xp_cmd xp_cmd_input_pipeline = {
	.name = "input-pipeline",
	.summary = "Show the Input Pipeline Analyzer: input-bound verdict, step statistics, host-side breakdown, input ops",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = input_pipeline_run,
	.analyses = analyses,
};
