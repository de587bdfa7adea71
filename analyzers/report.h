/* report.h - the `report` command: every analysis of one capture from one preparation. */
#ifndef XPSTAT_ANALYZERS_REPORT_H
#define XPSTAT_ANALYZERS_REPORT_H

#include "formats/model/report.h"
#include "analyzers/prepare/prepare.h"

struct xp_memory_opts;

struct xp_report_opts {
	bool xprof_compat;      /* --compat xprof */
	const struct xp_memory_opts *memory; /* memory's options (the HTML page's sampled timeline); NULL: the default */
	int threads;            /* analyses run side by side on this many threads (0, 1: one) */
};

/* The command name of the I-th analysis a report runs ("info", "overview", ...), NULL past the last. */
const char *xp_report_command(size_t i);

/* Prepare C once (PO) and run every analysis on the capture and that
 * preparation. ONLY (may be NULL = all) is a NULL-terminated list of
 * command names to run. NULL with ERRMSG set when the preparation fails (a
 * bad --step-marker: the caller's usage error). */
struct xp_report *xp_report_run(const struct xp_capture *c, const struct xp_prep_opts *po,
				const struct xp_report_opts *o, const char *const *only, char *errmsg, size_t errlen);

#endif
