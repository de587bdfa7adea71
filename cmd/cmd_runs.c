/* cmd_runs.c - `xpstat runs`: the runs and hosts under a TensorBoard logdir. */
#include "cmd.h"
#include "analyzers/runs.h"
#include "formats/core/xperr.h"
#include "formats/in/input.h"
#include "formats/model/result.h"

static int runs_run(struct xp_ctx *ctx)
{
	struct xp_result *r = xp_result_new("runs");
	int rc = 0;
	for (size_t i = 0; i < ctx->n_paths && !rc; i++) {
		struct xp_run_list runs = {0};
		struct xp_err err = {0};
		if (xp_list_runs(ctx->paths[i], &runs, &err)) {
			xp_err_print(&err);
			rc = err.status ? err.status : XP_EXIT_BAD_INPUT;
		} else {
			xp_runs_add(r, ctx->paths[i], &runs);
		}
		xp_run_list_free(&runs);
	}
	if (!rc) {
		xp_runs_finish(r);
		rc = xp_emit(ctx, r);
	}
	xp_result_free(r);
	return rc;
}

const struct xp_cmd xp_cmd_runs = {
	.name = "runs",
	.summary = "List the profile runs and their hosts under a logdir (newest last)",
	.args = "LOGDIR...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = runs_run,
};
