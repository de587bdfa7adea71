/* gate.h - what report, check and compare share in cmd/: loading a path as a report, parsing limits. */
#ifndef XPSTAT_CMD_GATE_H
#define XPSTAT_CMD_GATE_H

#include <stdio.h>

#include "cmd.h"
#include "analyzers/check.h"
#include "analyzers/compare.h"
#include "analyzers/report.h"
#include "formats/model/report.h"
#include "formats/out/out.h"

/* PATHS as a report: one saved xpstat JSON document (any command's, or a
 * report), or captures read with xp_load and prepared once, then every
 * analysis of ONLY (NULL = all). Returns 0 or an exit status (the error
 * printed). */
int xp_gate_load(struct xp_ctx *ctx, char **paths, size_t n, const char *const *only, struct xp_report **out);
/* Captures only (report): the same, refusing saved documents. */
int xp_gate_load_captures(struct xp_ctx *ctx, struct xp_report **out, uint32_t *hosts);
/* The content digest of each capture of REP's provenance (read once more from disk, so only a saved
 * report pays for it). Returns 0 or an exit status (the error printed). */
int xp_gate_digest(struct xp_report *rep);
/* The provenance check and compare write: FIRST's captures, then SECOND's (SECOND may be NULL). */
struct xp_report *xp_gate_pair_provenance(const struct xp_report *first, const struct xp_report *second);
/* Add C's provenance to REP: the xpstat version, --compat, each host's file by its name in its run. */
void xp_gate_provenance(struct xp_report *rep, const struct xp_capture *c, bool xprof_compat);
/* Whose rules made REP's numbers ("pytorch-3"), or NULL: TensorFlow/JAX's. */
const char *xp_gate_report_semantics(const struct xp_report *rep);
/* 0 when BASE and CAND were made by the same rules (semantics), else a one-line error and exit status 3. */
int xp_gate_same_semantics(const struct xp_report *base, const char *base_path, const struct xp_report *cand);

/* REP (of HOSTS hosts) written as --format, -o and --table say: what report writes once it has its results.
 * Returns 0 or an exit status (the error printed). */
int xp_gate_emit_report(struct xp_ctx *ctx, struct xp_report *rep, uint32_t hosts);

struct xp_out_opts;
/* Write through FN to standard output, or to -o atomically, with the output
 * options xp_emit would use (colour, terminal). Returns 0 or an exit status. */

/* "120ms", "1.5s", "250us", "800ns", "5ps": exact picoseconds; a unit is required. */
bool xp_parse_duration(const char *s, int64_t *ps);
/* "5%" or, when BARE_OK, "5": a percentage in [0, 1e6]. */
bool xp_parse_percent(const char *s, bool bare_ok, double *pct);
/* A duration or a percentage ("5%" or "3ms"). */
bool xp_parse_limit(const char *s, struct xp_limit *l);
/* "0.95" or "95%": 0.5 <= c < 1. */
bool xp_parse_confidence(const char *s, double *c);

#endif
