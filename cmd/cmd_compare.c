/* cmd_compare.c - `xpstat compare`: two captures or saved results side by side, with deltas and a comparability check. */
#include "gate.h"

enum { OPT_CONFIDENCE = 1 };

static const struct xp_opt compare_opts[] = {
	{"confidence", 1, OPT_CONFIDENCE, "C", "a step-time change is significant at p < 1 - C (default 0.95)"},
	{NULL, 0, 0, NULL, NULL},
};

static const struct xp_compare_opts opts_init = {.confidence = 0.95};

static int compare_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct xp_compare_opts *o = ctx->cmd_opts;
	if (key == OPT_CONFIDENCE && !xp_parse_confidence(arg, &o->confidence))
		return xp_usage_error(ctx, "--confidence needs a number from 0.5 to below 1 (0.95) or a percentage "
				      "(95%%), not '%s'", arg);
	return 0;
}

static int compare_run(struct xp_ctx *ctx)
{
	struct xp_compare_opts *o = ctx->cmd_opts;
	if (ctx->n_paths != 2)
		return xp_usage_error(ctx, "needs exactly two paths, BASELINE and CANDIDATE (%zu given)", ctx->n_paths);
	struct xp_report *b = NULL, *c = NULL;
	int rc = xp_gate_load(ctx, &ctx->paths[0], 1, NULL, &b);
	if (!rc)
		rc = xp_gate_load(ctx, &ctx->paths[1], 1, NULL, &c);
	if (!rc)
		rc = xp_gate_same_semantics(b, ctx->paths[0], c);
	if (rc)
		xp_report_free(c);
	if (rc) {
		xp_report_free(b);
		return rc;
	}
	struct xp_metrics mb, mc;
	xp_metrics_from_report(b, &mb);
	xp_metrics_from_report(c, &mc);
	struct xp_result *r = xp_compare(&mb, &mc, o);
	struct xp_report *prov = xp_gate_pair_provenance(b, c);
	ctx->provenance = prov;
	rc = xp_emit(ctx, r);
	ctx->provenance = NULL;
	xp_report_free(prov);
	xp_result_free(r);
	xp_metrics_free(&mb);
	xp_metrics_free(&mc);
	xp_report_free(b);
	xp_report_free(c);
	return rc;
}

const struct xp_cmd xp_cmd_compare = {
	.name = "compare",
	.summary = "Compare two captures or saved reports: step time and categories, op and kernel deltas, comparability",
	.args = "BASELINE CANDIDATE",
	.min_paths = 2,
	.opts = compare_opts,
	.set_opt = compare_set,
	.run = compare_run,
	.opts_size = sizeof(struct xp_compare_opts),
	.opts_init = &opts_init,
	.analyses = xp_analyses,
};
