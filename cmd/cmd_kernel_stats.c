/* cmd_kernel_stats.c - `xpstat kernel-stats`: GPU Kernel Stats, one row per kernel-op pair with the Tensor Core summary. */
#include "gate.h"
#include "analyzers/db/kernel_db.h"
#include "analyzers/kernel_stats.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

#include <string.h>

enum { OPT_OP = 1, OPT_KERNEL, OPT_SORT, OPT_TOP };

static const struct xp_opt kernel_stats_opts[] = {
	{"op", 1, OPT_OP, "REGEX", "only kernels whose op name matches REGEX (POSIX extended)"},
	{"kernel", 1, OPT_KERNEL, "REGEX", "only kernels whose name matches REGEX"},
	{"sort", 1, OPT_SORT, "KEY", "order rows by total (default), count, avg, max or name"},
	{"top", 1, OPT_TOP, "N", "keep the first N rows in every format (text shows 25 by default)"},
	{NULL, 0, 0, NULL, NULL},
};

static int parse_sort(struct xp_ctx *ctx, const char *arg)
{
	struct xp_kernel_stats_opts *o = ctx->cmd_opts;
	static const char *const names[] = {"total", "count", "avg", "max", "name"};
	int i;
	int rc = xp_parse_choice(ctx, "--sort", arg, names, sizeof names / sizeof names[0], &i);
	if (!rc)
		o->sort = (enum xp_kernel_sort)i;
	return rc;
}

static int kernel_stats_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct xp_kernel_stats_opts *o = ctx->cmd_opts;
	long n;
	switch (key) {
	case OPT_OP:
		o->op_regex = arg;
		return xp_check_regex(ctx, "--op", arg);
	case OPT_KERNEL:
		o->kernel_regex = arg;
		return xp_check_regex(ctx, "--kernel", arg);
	case OPT_SORT:
		return parse_sort(ctx, arg);
	case OPT_TOP:
		if (!xp_parse_int(arg, 1, 1000000000, &n))
			return xp_usage_error(ctx, "--top needs a number from 1 to 1000000000, not '%s'", arg);
		o->top = (size_t)n;
		return 0;
	}
	return 0;
}

static int kernel_stats_run(struct xp_ctx *ctx)
{
	struct xp_kernel_stats_opts *o = ctx->cmd_opts;
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	struct xp_err e = {0};
	o->xprof_compat = ctx->xprof_compat;
	struct xp_result *r = xp_analyze_kernel_stats(c, o, &e);
	if (!r) {
		xp_capture_free(c);
		return xp_usage_error(ctx, "%s", e.msg);
	}
	rc = xp_emit_read(ctx, c, r);
	xp_result_free(r);
	xp_capture_free(c);
	return rc;
}

static const struct xp_analysis *const analyses[] = {&xp_analysis_kernel_stats, NULL};

const struct xp_cmd xp_cmd_kernel_stats = {
	.name = "kernel-stats",
	.summary = "Show GPU Kernel Stats: one row per kernel and op, with time, launch shape and Tensor Core use",
	.args = "PATH...",
	.min_paths = 1,
	.opts = kernel_stats_opts,
	.set_opt = kernel_stats_set,
	.run = kernel_stats_run,
	.analyses = analyses,
};
