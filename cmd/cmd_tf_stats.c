/* cmd_tf_stats.c - `xpstat tf-stats`: TensorFlow Stats, per-op total and self time on the devices and the hosts. */
#include "cmd.h"
#include "analyzers/tf_stats.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

#include <string.h>

enum { OPT_NO_IDLE = 1, OPT_HOST_ONLY, OPT_DEVICE_ONLY, OPT_TOP, OPT_SORT, OPT_OP, OPT_TYPE };

static const struct xp_opt tf_stats_opts[] = {
	{"no-idle", 0, OPT_NO_IDLE, NULL, "leave out the IDLE rows; percentages are of op time, not total time"},
	{"host-only", 0, OPT_HOST_ONLY, NULL, "only the host rows"},
	{"device-only", 0, OPT_DEVICE_ONLY, NULL, "only the device rows"},
	{"top", 1, OPT_TOP, "N", "the first N rows of each side in every format (text shows 25 by default)"},
	{"sort", 1, OPT_SORT, "KEY", "order rows by self (default), total, count, avg or name"},
	{"op", 1, OPT_OP, "REGEX", "only ops whose name matches REGEX (POSIX extended)"},
	{"type", 1, OPT_TYPE, "REGEX", "only ops whose type matches REGEX"},
	{NULL, 0, 0, NULL, NULL},
};

static int parse_sort(struct xp_ctx *ctx, const char *arg)
{
	struct xp_tf_stats_opts *o = ctx->cmd_opts;
	static const char *const names[] = {"self", "total", "count", "avg", "name"};
	int i;
	int rc = xp_parse_choice(ctx, "--sort", arg, names, sizeof names / sizeof names[0], &i);
	if (!rc)
		o->sort = (enum xp_tfs_sort)i;
	return rc;
}

static int tf_stats_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct xp_tf_stats_opts *o = ctx->cmd_opts;
	long n;
	switch (key) {
	case OPT_NO_IDLE:
		o->no_idle = true;
		return 0;
	case OPT_HOST_ONLY:
		o->host_only = true;
		return 0;
	case OPT_DEVICE_ONLY:
		o->device_only = true;
		return 0;
	case OPT_TOP:
		if (!xp_parse_int(arg, 1, 1000000000, &n))
			return xp_usage_error(ctx, "--top needs a number from 1 to 1000000000, not '%s'", arg);
		o->top = (size_t)n;
		return 0;
	case OPT_SORT:
		return parse_sort(ctx, arg);
	case OPT_OP:
		o->op_regex = arg;
		return xp_check_regex(ctx, "--op", arg);
	case OPT_TYPE:
		o->type_regex = arg;
		return xp_check_regex(ctx, "--type", arg);
	}
	return 0;
}

static int tf_stats_run(struct xp_ctx *ctx)
{
	struct xp_tf_stats_opts *o = ctx->cmd_opts;
	if (o->host_only && o->device_only)
		return xp_usage_error(ctx, "--host-only and --device-only exclude each other");
	if (!o->top && !strcmp(ctx->format, "text"))
		o->top = XP_TF_STATS_TEXT_TOP;
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	struct xp_err e = {0};
	o->xprof_compat = ctx->xprof_compat;
	o->threads = ctx->threads;
	struct xp_result *r = xp_analyze_tf_stats(c, o, &e);
	if (!r) {
		xp_capture_free(c);
		return xp_usage_error(ctx, "%s", e.msg);
	}
	rc = xp_emit_read(ctx, c, r);
	xp_result_free(r);
	xp_capture_free(c);
	return rc;
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_tf_stats, NULL};

const struct xp_cmd xp_cmd_tf_stats = {
	.name = "tf-stats",
	.summary = "Show TensorFlow Stats: per-op total and self time on the devices and the hosts",
	.args = "PATH...",
	.min_paths = 1,
	.opts = tf_stats_opts,
	.set_opt = tf_stats_set,
	.run = tf_stats_run,
	.analyses = analyses,
};
