/* analyzers.h - entry points of the analyses; each takes a capture and returns a typed result. */
#ifndef XPSTAT_ANALYZERS_H
#define XPSTAT_ANALYZERS_H

#include "../formats/capture.h"
#include "result.h"

struct xp_info_opts {
	bool lines;             /* add the per-line table */
};

/* What a capture holds and what is missing from it (the `info` command). */
struct xp_result *xp_analyze_info(const struct xp_capture *c, const struct xp_info_opts *o);

struct xp_run_list;
/* The runs of one logdir as rows of the `runs` and `run_hosts` tables. */
void xp_runs_add(struct xp_result *r, const char *logdir, const struct xp_run_list *runs);
/* Verdict and summary once every logdir has been added. */
void xp_runs_finish(struct xp_result *r);

#endif
