/* report.h - the report container: the results of several analyses of one capture, in report order (a run or a saved document). */
#ifndef XPSTAT_REPORT_H
#define XPSTAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "result.h"

/* One analysis of a report: its snake_case key ("kernel_stats") and its result. */
struct xp_report_section {
	char *key;              /* JSON key and CSV file prefix: "overview", "kernel_stats" */
	char *command;          /* the command that shows it alone: "kernel-stats" */
	struct xp_result *r;
};

/* One capture a report was made from, as combine needs it: its file name relative to its run directory
 * (never the path typed), the run directory's name, the host it became, its size and content digest. */
struct xp_report_capture {
	char *name;             /* "worker-0.xplane.pb" */
	char *run;              /* "2024_01_01_00_00_00": the directory holding it */
	char *host;             /* the host name the report uses (made unique when hostnames collide) */
	char *digest;           /* 16 hex digits over the file's bytes; NULL until computed */
	char *path;             /* where it was read (not saved) */
	uint64_t bytes;
	char *producer;         /* "TensorFlow", "JAX", ...; NULL in a report of an older xpstat */
};

struct xp_report {
	size_t n;
	struct xp_report_section *sec;  /* in report order (xp_report_sections) */
	char *source;           /* what it was made from: the paths, or the saved file */
	bool from_json;         /* read back from a saved document */
	/* A saved report's own verdict and inputs (NULL/0 otherwise). */
	char *verdict;
	size_t n_inputs;
	char **inputs;
	/* Provenance ("provenance" in JSON): NULL/0 when a saved document has none (an older xpstat). */
	char *version;          /* the xpstat that made it */
	char *compat;           /* "xpstat" or "xprof" */
	size_t n_captures;
	struct xp_report_capture *captures;
	/* What combine rebuilds the cross-host tables from ("state" in JSON, saved reports only): each host's
	 * step database and time base (analyzers/db/prepstate.c). NULL when none. */
	struct xp_result *state;
};

struct xp_report *xp_report_new(const char *source);
/* Append R (taken over) under COMMAND ("kernel-stats"); its key is derived. */
void xp_report_add(struct xp_report *rep, const char *command, struct xp_result *r);
void xp_report_free(struct xp_report *rep);
/* Append a capture to REP's provenance (strings copied; DIGEST may be NULL). */
void xp_report_add_capture(struct xp_report *rep, const char *name, const char *run, const char *host,
			   const char *digest, const char *path, uint64_t bytes);
/* The result of COMMAND ("steps", "kernel-stats" or "kernel_stats"), or NULL. */
const struct xp_result *xp_report_get(const struct xp_report *rep, const char *command);
/* "kernel-stats" -> "kernel_stats" into BUF. */
void xp_report_key(const char *command, char *buf, size_t n);

#endif
