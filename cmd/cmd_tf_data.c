/* cmd_tf_data.c - `xpstat tf-data`: tf.data bottleneck analysis (slowest pipeline call, critical path, bottleneck iterator, suggestion). */
#include "cmd.h"
#include "analyzers/tf_data.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

static int tf_data_run(struct xp_ctx *ctx)
{
	/* The iterator graph needs no step grouping: the capture is enough. */
	return xp_run_analysis(ctx, &xp_analysis_tf_data, NULL);
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_tf_data, NULL};

const struct xp_cmd xp_cmd_tf_data = {
	.name = "tf-data",
	.summary = "Analyze tf.data input pipelines: slowest call, critical path, bottleneck iterator, suggestion",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = tf_data_run,
	.analyses = analyses,
};
