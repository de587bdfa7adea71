/* report.h - the report container: the results of several analyses of one capture, in report order (a run or a saved document). */
#ifndef XPSTAT_REPORT_H
#define XPSTAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
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

struct xp_report *xp_report_new(const char *source);
/* Append R (taken over) under COMMAND ("kernel-stats"); its key is derived. */
void xp_report_add(struct xp_report *rep, const char *command, struct xp_result *r);
void xp_report_free(struct xp_report *rep);
/* The result of COMMAND ("steps", "kernel-stats" or "kernel_stats"), or NULL. */
const struct xp_result *xp_report_get(const struct xp_report *rep, const char *command);
/* "kernel-stats" -> "kernel_stats" into BUF. */
void xp_report_key(const char *command, char *buf, size_t n);

#endif
