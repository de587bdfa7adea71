/* compare.h - the `compare` command: a baseline and a candidate side by side. */
#ifndef XPSTAT_COMPARE_H
#define XPSTAT_COMPARE_H

#include "analyzers/db/metrics.h"
#include "formats/model/result.h"

struct xp_compare_opts {
	double confidence;      /* for "significant" */
};

/* BASE and CAND side by side: step time and categories, ops, kernels, comparability. */
struct xp_result *xp_compare(const struct xp_metrics *base, const struct xp_metrics *cand,
			     const struct xp_compare_opts *o);

#endif
