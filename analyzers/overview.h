/* overview.h - the `overview` command: the Overview page. */
#ifndef XPSTAT_OVERVIEW_H
#define XPSTAT_OVERVIEW_H

#include "analyzers/analysis.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

struct xp_overview_opts {
	size_t top_ops;             /* rows of top_ops (default 10) */
	bool xprof_compat;
};
/* The Overview page: step-time summary, precision, top device ops, run
 * environment, recommendation, diagnostics. */
struct xp_result *xp_analyze_overview(const struct xp_prep *p, const struct xp_overview_opts *o);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_overview;

#endif
