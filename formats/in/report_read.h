/* report_read.h - reading saved xpstat JSON documents (a report or any command's result) back into results. */
#ifndef XPSTAT_REPORT_READ_H
#define XPSTAT_REPORT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/core/xperr.h"
#include "formats/model/report.h"

/* Is PATH a regular file holding an xpstat JSON document (its first key is "schema_version")? */
bool xp_saved_json_path(const char *path);
/* Read it: a report's analyses, or one command's result as a report of one analysis.
 * Returns 0, or -1 with ERR set (exit status 3). */
int xp_report_read(const char *path, uint64_t max_bytes, struct xp_report **out, struct xp_err *err);
/* The same, but each result holds only its verdict and semantics (no summary, tables or diagnostics), and the
 * state only its tables KEEP names (NULL-terminated; NULL: all): the provenance and the state of a report,
 * which combine --analysis reads, without the cost of its numbers. */
struct xp_scratch;
/* SCRATCH (may be NULL): a decompression buffer kept from one report to the next (input.h). */
int xp_report_read_heads(const char *path, uint64_t max_bytes, const char *const *keep, struct xp_scratch *scratch,
			 struct xp_report **out, struct xp_err *err);
/* xp_report_read_heads over LEN bytes of text in memory. */
int xp_report_parse_heads(const char *path, const char *text, size_t len, const char *const *keep,
			  struct xp_report **out, struct xp_err *err);
/* The same over LEN bytes of text in memory (PATH names them in errors). */
int xp_report_parse(const char *path, const char *text, size_t len, struct xp_report **out, struct xp_err *err);

#endif
