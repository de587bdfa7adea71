/* trace.h - the `trace` export: a selection of the capture (steps, window, planes, lines) as Chrome trace events. */
#ifndef XPSTAT_TRACE_H
#define XPSTAT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzers/prepare/prep.h"
#include "formats/out/out_trace.h"
#include "formats/core/xperr.h"

struct xp_trace_opts {
	bool has_steps;
	int64_t step_first, step_last;  /* --steps A[:B], as `steps` numbers them */
	bool has_window;
	int64_t window_t0_ps, window_t1_ps; /* --window, relative to the capture's start */
	const char *plane_regex, *line_regex;
	int64_t min_duration_ps;        /* --min-duration */
	/* Set when the capture was read without its events (a streamed load, whole lines selected: no --steps,
	 * --window or --min-duration): called for each line before it is written; else NULL. */
	const struct xp_trace_lines *lines;
};

/* Where the events of a line come from in a streamed load: LOAD decodes line L of host H into L (0), or
 * fails with *E set (-1). */
struct xp_trace_lines {
	int (*load)(void *arg, struct xp_host *h, struct xp_line *l, struct xp_err *e);
	void *arg;
};

/* What the export wrote. */
struct xp_trace_counts {
	uint64_t events, flows, counters, steps, processes, threads;
};

/* --- the selection's values (shared with the fuzz target) ----------------------------------- */

/* "A" or "A:B" (B >= A, both >= 0): the step numbers. */
bool xp_trace_parse_steps(const char *s, int64_t *first, int64_t *last);
/* A duration: a non-negative decimal with a unit ps, ns, us, ms or s (none: microseconds, the
 * trace's unit), exact to the picosecond. */
bool xp_trace_parse_duration(const char *s, int64_t *ps);
/* "T0:T1", two durations with T0 < T1. */
bool xp_trace_parse_window(const char *s, int64_t *t0, int64_t *t1);

/* The capture's start (picoseconds since the epoch of its clock): the earliest host base. */
int64_t xp_trace_start_ns(const struct xp_capture *c);

/*
 * Write the selection of C (steps from P, which may be NULL when no --steps is asked and no
 * step track is wanted) to W, which has been begun and whose traceEvents are open. Returns 0,
 * or an exit status with *E set: XP_EXIT_USAGE when nothing is selected (the message lists
 * what exists). The export is C's last reader: each line's events are released once the line
 * is written (xp_line_release), so that C is only for freeing afterwards.
 */
int xp_trace_export(struct xp_capture *c, const struct xp_prep *p, const struct xp_trace_opts *o,
		    struct xp_tw *w, struct xp_trace_counts *n, struct xp_err *e);
/* Does the selection match any event at all? The same rule as the export, without writing;
 * false with *E set as the export sets it. */
bool xp_trace_selects_any(const struct xp_capture *c, const struct xp_prep *p, const struct xp_trace_opts *o,
			  struct xp_err *e);

#endif
