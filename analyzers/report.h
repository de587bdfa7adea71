/* report.h - every analysis of one capture from one preparation (`report`), and the set of results that check and compare read. */
#ifndef XPSTAT_REPORT_H
#define XPSTAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "prepare.h"
#include "result.h"

/* One analysis of a report: its snake_case key ("kernel_stats") and its result. */
struct xp_report_section {
	char *key;              /* JSON key and CSV file prefix: "overview", "kernel_stats" */
	char *command;          /* the command that shows it alone: "kernel-stats" */
	struct xp_result *r;
};

struct xp_report {
	size_t n;
	struct xp_report_section *sec;  /* in report order (xp_report_sections) */
	char *source;           /* what it was made from: the paths, or the saved file */
	bool from_json;         /* read back from a saved document */
};

struct xp_report_opts {
	bool xprof_compat;      /* --compat xprof */
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
struct xp_report *xp_report_new(const char *source);
/* Append R (taken over) under COMMAND ("kernel-stats"); its key is derived. */
void xp_report_add(struct xp_report *rep, const char *command, struct xp_result *r);
void xp_report_free(struct xp_report *rep);
/* The result of COMMAND ("steps", "kernel-stats" or "kernel_stats"), or NULL. */
const struct xp_result *xp_report_get(const struct xp_report *rep, const char *command);
/* "kernel-stats" -> "kernel_stats" into BUF. */
void xp_report_key(const char *command, char *buf, size_t n);

#endif
