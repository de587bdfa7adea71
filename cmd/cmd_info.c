/* cmd_info.c - `xpstat info`: what a capture holds and what is missing from it. */
#include "cmd.h"
#include "analyzers/info.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

enum { OPT_LINES = 1 };

static const struct xp_opt info_opts[] = {
	{"lines", 0, OPT_LINES, NULL, "add a table with every line (thread or stream) of every plane"},
	{NULL, 0, 0, NULL, NULL},
};

static int info_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct xp_info_opts *o = ctx->cmd_opts;
	(void)ctx;
	(void)arg;
	if (key == OPT_LINES)
		o->lines = true;
	return 0;
}

static int info_run(struct xp_ctx *ctx)
{
	struct xp_info_opts *o = ctx->cmd_opts;
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	o->threads = ctx->threads;
	struct xp_result *r = xp_analyze_info(c, o);
	/* Whose rules the capture is read by, as every other command and report's info say it. */
	xp_result_set_semantics(r, xp_capture_semantics(c));
	rc = xp_emit_read(ctx, c, r);
	xp_result_free(r);
	xp_capture_free(c);
	return rc;
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_info, NULL};

const struct xp_cmd xp_cmd_info = {
	.name = "info",
	.summary = "Show what a capture holds: hosts, planes, devices, analyses with data, and what is missing",
	.args = "PATH...",
	.min_paths = 1,
	.opts = info_opts,
	.set_opt = info_set,
	.run = info_run,
	.analyses = analyses,
};
