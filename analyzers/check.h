/* check.h - the `check` command: limits on a report, and a regression test against a baseline. */
#ifndef XPSTAT_CHECK_H
#define XPSTAT_CHECK_H

#include "analyzers/db/metrics.h"
#include "formats/model/result.h"

enum xp_limit_kind { XP_LIM_NONE = 0, XP_LIM_DUR, XP_LIM_PCT, XP_LIM_BYTES };

struct xp_limit {
	enum xp_limit_kind kind;
	int64_t v;              /* ps or bytes */
	double pct;             /* percent */
};

struct xp_named_limit {
	char *name;             /* category key, op name or allocator ("" = the highest) */
	struct xp_limit lim;
};

struct xp_check_opts {
	struct xp_limit max_step;       /* average step time: DUR */
	struct xp_limit max_median;     /* median step time: DUR */
	size_t n_cat;
	struct xp_named_limit *cat;     /* DUR (average per step) or PCT (of step time) */
	struct xp_limit max_input;      /* PCT */
	size_t n_op;
	struct xp_named_limit *op;      /* DUR (self time) or PCT (of its side's op time) */
	bool has_peak;
	struct xp_named_limit peak;     /* BYTES */
	struct xp_limit regression;     /* PCT or DUR; NONE without a baseline */
	double confidence;              /* 0.5 < c < 1 */
	size_t min_steps;
	const char *baseline_source;
};

/* Exit statuses of a check: pass, a check failed, input unusable. */
enum { XP_CHECK_PASS = 0, XP_CHECK_FAIL = 1, XP_CHECK_UNUSABLE = 3 };

/* Evaluate every check on CAND (and BASE, may be NULL). *STATUS gets the
 * exit status: 1 when any check failed, else 3 when one could not be
 * evaluated, else 0. */
struct xp_result *xp_check(const struct xp_metrics *cand, const struct xp_metrics *base,
			   const struct xp_check_opts *o, int *status);

#endif
