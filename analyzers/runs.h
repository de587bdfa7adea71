/* runs.h - the `runs` command: the runs of one or more logdirs. */
#ifndef XPSTAT_RUNS_H
#define XPSTAT_RUNS_H

#include "formats/model/result.h"

struct xp_run_list;
/* The runs of one logdir as rows of the `runs` and `run_hosts` tables. */
void xp_runs_add(struct xp_result *r, const char *logdir, const struct xp_run_list *runs);
/* Verdict and summary once every logdir has been added. */
void xp_runs_finish(struct xp_result *r);

#endif
