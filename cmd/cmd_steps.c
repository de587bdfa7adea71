/* cmd_steps.c - `xpstat steps`: one row per step with its step time and every category. */
#include "cmd.h"
#include "../analyzers/analyzers.h"

static int steps_run(struct xp_ctx *ctx)
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
	struct xp_result *r = xp_analyze_steps(p);
	rc = xp_emit(ctx, r);
	xp_result_free(r);
	xp_prep_free(p);
	xp_capture_free(c);
	return rc;
}

const struct xp_cmd xp_cmd_steps = {
	.name = "steps",
	.summary = "List every step: step time and each category of the breakdown, one row per step",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = steps_run,
};
