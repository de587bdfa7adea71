/* cmd_pod.c - `xpstat pod`: the Pod Viewer, every host's step breakdown side by side. */
#include "cmd.h"
#include "analyzers/pod.h"

static int pod_run(struct xp_ctx *ctx)
{
	return xp_run_analysis(ctx, &xp_analysis_pod, NULL);
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_pod, NULL};

const struct xp_cmd xp_cmd_pod = {
	.name = "pod",
	.summary = "Compare hosts: each host's step-time breakdown side by side, the slowest host and the spread",
	.args = "RUN_DIR|PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = pod_run,
	.analyses = analyses,
};
