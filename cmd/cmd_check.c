/* cmd_check.c - `xpstat check`: the CI gate; thresholds and a baseline, exit status 0 pass, 1 fail, 3 input unusable. */
#include "gate.h"
#include "formats/core/suggest.h"
#include "formats/core/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum {
	OPT_BASELINE = 1, OPT_MAX_REGRESSION, OPT_CONFIDENCE, OPT_MAX_STEP, OPT_MAX_MEDIAN, OPT_MAX_CATEGORY,
	OPT_MAX_INPUT, OPT_MAX_OP, OPT_MAX_PEAK, OPT_MIN_STEPS
};

#define DEFAULT_REGRESSION_PCT 5.0
#define DEFAULT_CONFIDENCE 0.95
#define DEFAULT_MIN_STEPS 5

static const struct xp_opt check_opts[] = {
	{"baseline", 1, OPT_BASELINE, "FILE", "compare with FILE: a saved report (report --format json) or a capture"},
	{"max-regression", 1, OPT_MAX_REGRESSION, "LIMIT",
	 "fail when the median step time rose by more than LIMIT (5% by default, or e.g. 3ms) and significantly"},
	{"confidence", 1, OPT_CONFIDENCE, "C", "a regression must be significant at p < 1 - C (default 0.95)"},
	{"max-step-time", 1, OPT_MAX_STEP, "DURATION", "fail when the average step time is over DURATION (e.g. 120ms)"},
	{"max-median-step-time", 1, OPT_MAX_MEDIAN, "DURATION", "fail when the median step time is over DURATION"},
	{"max-category", 1, OPT_MAX_CATEGORY, "NAME=LIMIT",
	 "fail when a breakdown category is over LIMIT per step (e.g. input=5ms) or of step time (input=10%)"},
	{"max-input-bound", 1, OPT_MAX_INPUT, "PCT", "fail when more than PCT of step time waits for input (e.g. 10%)"},
	{"max-op-self-time", 1, OPT_MAX_OP, "OP=LIMIT",
	 "fail when op OP's self time is over LIMIT (e.g. 40ms) or its share of op time (e.g. 25%)"},
	{"max-peak-memory", 1, OPT_MAX_PEAK, "[ALLOCATOR=]SIZE",
	 "fail when the highest peak memory usage (of ALLOCATOR) is over SIZE (e.g. 12G)"},
	{"min-steps", 1, OPT_MIN_STEPS, "N", "step checks need at least N steps on each side, else exit 3 (default 5)"},
	{NULL, 0, 0, NULL, NULL},
};

/* One invocation's options: the gate's own, and --baseline. */
struct check_cmd {
	struct xp_check_opts o;
	const char *baseline;
};

static const struct check_cmd opts_init = {.o = {.confidence = DEFAULT_CONFIDENCE, .min_steps = DEFAULT_MIN_STEPS}};

/* "NAME=VALUE" split at the last '=' (op names may hold one). */
static bool split(const char *arg, char **name, const char **value)
{
	const char *eq = strrchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return false;
	*name = strndup(arg, (size_t)(eq - arg));
	if (!*name)
		xp_oom();
	*value = eq + 1;
	return true;
}

/* "NAME=LIMIT": NAME only when the limit reads too (nothing to free on a usage error). */
static bool split_limit(const char *arg, char **name, struct xp_limit *l)
{
	const char *value;
	if (!split(arg, name, &value))
		return false;
	if (xp_parse_limit(value, l))
		return true;
	free(*name);
	*name = NULL;
	return false;
}

static struct xp_named_limit *grow(struct xp_named_limit **v, size_t *n)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	return &(*v)[(*n)++];
}

static int set_category(struct xp_ctx *ctx, const char *arg)
{
	struct check_cmd *k = ctx->cmd_opts;
	char *name;
	struct xp_limit l;
	if (!split_limit(arg, &name, &l))
		return xp_usage_error(ctx, "--max-category needs NAME=LIMIT with LIMIT a duration or a percentage "
				      "(input=5ms, input=10%%), not '%s'", arg);
	if (xp_step_cat_from_key(name) == XP_N_STEP_CATS) {
		static const char *const cats[] = {"device_compute", "device_to_device", "device_collectives",
						   "host_compute", "kernel_launch", "input", "output", "compilation",
						   "all_others"};
		char hint[128];
		xp_did_you_mean(hint, sizeof hint, name, cats, sizeof cats / sizeof cats[0], false, 1);
		int rc = xp_usage_error(ctx, "--max-category: no category '%s'; categories: device_compute, "
					"device_to_device, device_collectives, host_compute, kernel_launch, input, output, "
					"compilation, all_others%s", name, hint);
		free(name);
		return rc;
	}
	struct xp_named_limit *nl = grow(&k->o.cat, &k->o.n_cat);
	nl->name = name;
	nl->lim = l;
	return 0;
}

static int set_op(struct xp_ctx *ctx, const char *arg)
{
	struct check_cmd *k = ctx->cmd_opts;
	char *name;
	struct xp_limit l;
	if (!split_limit(arg, &name, &l))
		return xp_usage_error(ctx, "--max-op-self-time needs OP=LIMIT with LIMIT a duration or a percentage "
				      "(model/conv2d/Conv2D=40ms), not '%s'", arg);
	struct xp_named_limit *nl = grow(&k->o.op, &k->o.n_op);
	nl->name = name;
	nl->lim = l;
	return 0;
}

static int set_peak(struct xp_ctx *ctx, const char *arg)
{
	struct check_cmd *k = ctx->cmd_opts;
	char *name = NULL;
	const char *value = arg;
	uint64_t bytes;
	if (strchr(arg, '=') && !split(arg, &name, &value))
		value = "";
	if (!xp_parse_size(value, &bytes) || bytes > INT64_MAX) {
		free(name);
		return xp_usage_error(ctx, "--max-peak-memory needs [ALLOCATOR=]SIZE such as 12G or GPU_0_bfc=30G, not "
				      "'%s'", arg);
	}
	free(k->o.peak.name);
	k->o.has_peak = true;
	k->o.peak.name = name ? name : strdup("");
	k->o.peak.lim = (struct xp_limit){XP_LIM_BYTES, (int64_t)bytes, 0};
	return 0;
}

static int check_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct check_cmd *k = ctx->cmd_opts;
	long n;
	switch (key) {
	case OPT_BASELINE:
		k->baseline = arg;
		return 0;
	case OPT_MAX_REGRESSION:
		if (!xp_parse_limit(arg, &k->o.regression))
			return xp_usage_error(ctx, "--max-regression needs a percentage (5%%) or a duration (3ms), not '%s'",
					      arg);
		return 0;
	case OPT_CONFIDENCE:
		if (!xp_parse_confidence(arg, &k->o.confidence))
			return xp_usage_error(ctx, "--confidence needs a number from 0.5 to below 1 (0.95) or a "
					      "percentage (95%%), not '%s'", arg);
		return 0;
	case OPT_MAX_STEP:
	case OPT_MAX_MEDIAN: {
		struct xp_limit *l = key == OPT_MAX_STEP ? &k->o.max_step : &k->o.max_median;
		if (!xp_parse_duration(arg, &l->v))
			return xp_usage_error(ctx, "--%s needs a duration with its unit (120ms, 1.5s, 800us), not '%s'",
					      key == OPT_MAX_STEP ? "max-step-time" : "max-median-step-time", arg);
		l->kind = XP_LIM_DUR;
		return 0;
	}
	case OPT_MAX_CATEGORY:
		return set_category(ctx, arg);
	case OPT_MAX_INPUT:
		if (!xp_parse_percent(arg, true, &k->o.max_input.pct) || k->o.max_input.pct > 100)
			return xp_usage_error(ctx, "--max-input-bound needs a percentage from 0 to 100 (10%%), not '%s'", arg);
		k->o.max_input.kind = XP_LIM_PCT;
		return 0;
	case OPT_MAX_OP:
		return set_op(ctx, arg);
	case OPT_MAX_PEAK:
		return set_peak(ctx, arg);
	case OPT_MIN_STEPS:
		if (!xp_parse_int(arg, 1, 1000000000, &n))
			return xp_usage_error(ctx, "--min-steps needs a number from 1 to 1000000000, not '%s'", arg);
		k->o.min_steps = (size_t)n;
		return 0;
	}
	return 0;
}

/* What set_opt allocated (names of limits); the options are left empty, so a second call is harmless. */
static void free_opts(void *arg)
{
	struct check_cmd *k = arg;
	for (size_t i = 0; i < k->o.n_cat; i++)
		free(k->o.cat[i].name);
	for (size_t i = 0; i < k->o.n_op; i++)
		free(k->o.op[i].name);
	free(k->o.cat);
	free(k->o.op);
	free(k->o.peak.name);
	k->o.cat = k->o.op = NULL;
	k->o.n_cat = k->o.n_op = 0;
	k->o.peak.name = NULL;
}

static bool any_check(const struct check_cmd *k)
{
	return k->baseline || k->o.max_step.kind || k->o.max_median.kind || k->o.n_cat || k->o.max_input.kind ||
	       k->o.n_op || k->o.has_peak;
}

static int check_run(struct xp_ctx *ctx)
{
	struct check_cmd *k = ctx->cmd_opts;
	int rc;
	if (!any_check(k)) {
		rc = xp_usage_error(ctx, "nothing to check: give --baseline FILE and/or a limit (--max-step-time, "
				    "--max-input-bound, ...); see 'xpstat check --help'");
		free_opts(k);
		return rc;
	}
	if (k->o.regression.kind && !k->baseline) {
		free_opts(k);
		return xp_usage_error(ctx, "--max-regression needs --baseline FILE");
	}
	if (k->baseline && !k->o.regression.kind)
		k->o.regression = (struct xp_limit){XP_LIM_PCT, 0, DEFAULT_REGRESSION_PCT};
	struct xp_report *cand = NULL, *base = NULL;
	rc = xp_gate_load(ctx, ctx->paths, ctx->n_paths, NULL, &cand);
	if (!rc && k->baseline)
		rc = xp_gate_load(ctx, (char **)&k->baseline, 1, NULL, &base);
	if (!rc && base)
		rc = xp_gate_same_semantics(base, k->baseline, cand);
	if (rc) {
		xp_report_free(base);
		xp_report_free(cand);
		free_opts(k);
		return rc;
	}
	struct xp_metrics mc, mb;
	xp_metrics_from_report(cand, &mc);
	if (base)
		xp_metrics_from_report(base, &mb);
	k->o.baseline_source = k->baseline;
	int status;
	struct xp_result *r = xp_check(&mc, base ? &mb : NULL, &k->o, &status);
	struct xp_report *prov = xp_gate_pair_provenance(cand, base);
	ctx->provenance = prov;
	rc = xp_emit(ctx, r);
	ctx->provenance = NULL;
	xp_report_free(prov);
	xp_result_free(r);
	xp_metrics_free(&mc);
	if (base)
		xp_metrics_free(&mb);
	xp_report_free(cand);
	xp_report_free(base);
	free_opts(k);
	return rc ? rc : status;
}

const struct xp_cmd xp_cmd_check = {
	.name = "check",
	.summary = "CI gate: thresholds and a significance-tested regression against a baseline; exit 0 pass, 1 fail",
	.args = "PATH...",
	.min_paths = 1,
	.opts = check_opts,
	.set_opt = check_set,
	.run = check_run,
	.opts_size = sizeof(struct check_cmd),
	.opts_init = &opts_init,
	.opts_free = free_opts,
	.analyses = xp_analyses,
};
