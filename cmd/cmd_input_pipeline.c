/* cmd_input_pipeline.c - `xpstat input-pipeline`: the Input Pipeline Analyzer (input-bound verdict, step statistics, host-side breakdown, input ops). */
#include "cmd.h"
#include "../analyzers/analyzers.h"

static int input_pipeline_run(struct xp_ctx *ctx)
{
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	char err[256] = "";
	struct xp_prep_opts po = {.xprof_compat = ctx->xprof_compat, .step_marker = ctx->step_marker};
	struct xp_prep *p = xp_prepare(c, &po, err, sizeof err);
	if (!p) {
		xp_capture_free(c);
		return xp_usage_error(ctx, "%s", err);
	}
	struct xp_input_opts o = {.xprof_compat = ctx->xprof_compat};
	struct xp_result *r = xp_analyze_input_pipeline(p, &o);
	rc = xp_emit(ctx, r);
	xp_result_free(r);
	xp_prep_free(p);
	xp_capture_free(c);
	return rc;
}

const struct xp_cmd xp_cmd_input_pipeline = {
	.name = "input-pipeline",
	.summary = "Show the Input Pipeline Analyzer: input-bound verdict, step statistics, host-side breakdown, input ops",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = input_pipeline_run,
};
