/* cmd_tf_data.c - `xpstat tf-data`: tf.data bottleneck analysis (slowest pipeline call, critical path, bottleneck iterator, suggestion). */
#include "cmd.h"
#include "analyzers/tf_data.h"
#include "analyzers/unread_stats.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

static int tf_data_run(struct xp_ctx *ctx)
{
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	/* The iterator graph needs no step grouping: the capture is enough. */
	struct xp_result *r = xp_analyze_tf_data(c);
	rc = xp_emit(ctx, r);
	xp_result_free(r);
	xp_capture_free(c);
	return rc;
}

const struct xp_cmd xp_cmd_tf_data = {
	.name = "tf-data",
	.summary = "Analyze tf.data input pipelines: slowest call, critical path, bottleneck iterator, suggestion",
	.args = "PATH...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = tf_data_run,
	.drop_stats = xp_drop_all_details,
};
