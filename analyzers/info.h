/* info.h - the `info` command: what a capture holds and what is missing from it. */
#ifndef XPSTAT_INFO_H
#define XPSTAT_INFO_H

#include "analyzers/analysis.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

struct xp_info_opts {
	bool lines;             /* add the per-line table */
	int threads;            /* the event pass on this many threads (0, 1: one) */
};

/* What a capture holds and what is missing from it (the `info` command). */
struct xp_result *xp_analyze_info(const struct xp_capture *c, const struct xp_info_opts *o);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_info;

#endif
