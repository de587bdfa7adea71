/* report.h - the `report` command: every analysis of one capture from one preparation. */
#ifndef XPSTAT_ANALYZERS_REPORT_H
#define XPSTAT_ANALYZERS_REPORT_H

#include "formats/model/report.h"
#include "analyzers/prepare/prepare.h"
#include "analyzers/registry.h"

struct xp_report_opts {
	bool xprof_compat;      /* --compat xprof */
	/* Each analysis's options (its struct xp_<name>_opts), by its place in xp_analyses (xp_analysis_index);
	 * NULL: as report runs it (complete tables). The HTML page passes memory's sampled timeline. */
	const void *opts[XP_N_ANALYSES];
	int threads;            /* analyses run side by side on this many threads (0, 1: one) */
	bool state;             /* keep what combine rebuilds from (rep->state): only a saved JSON report writes it */
};

/* The command name of the I-th analysis a report runs ("info", "overview", ...), NULL past the last. */
const char *xp_report_command(size_t i);

/* Prepare C once (PO) and run every analysis on the capture and that
 * preparation. ONLY (may be NULL = all) is a NULL-terminated list of
 * command names to run. NULL with *E set when the preparation fails (a
 * bad --step-marker: XP_EXIT_USAGE). */
struct xp_report *xp_report_run(const struct xp_capture *c, const struct xp_prep_opts *po,
				const struct xp_report_opts *o, const char *const *only, struct xp_err *e);

#endif
