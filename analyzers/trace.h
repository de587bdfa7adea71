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
	/* Set when the capture was read without its events (a streamed load): called for each selected line
	 * before it is written; else NULL. */
	const struct xp_trace_lines *lines;
};

/* Where the events of a line come from in a streamed load: LOAD decodes line L of host H into L, all its
 * events (LO_HI NULL) or those overlapping [LO_HI[0], LO_HI[1]) in host time; 0, or -1 with *E set. BY_TIME:
 * the selection is in time (--steps, --window), and only the events it selects are loaded; otherwise whole
 * lines are selected, a line's event count telling whether it has any. */
struct xp_trace_lines {
	int (*load)(void *arg, struct xp_host *h, struct xp_line *l, const int64_t *lo_hi, struct xp_err *e);
	void *arg;
	bool by_time;
	/* The step databases are made in the export's own pass (the full export): P holds none, and each host's
	 * lines are kept, with the stats the step database reads, until its steps are made at the host's end. */
	bool steps_in_pass;
	const char *const *step_drop; /* the stats the step database does not read (NULL-terminated): not kept */
};

/* Is step ID named NAME one that O's --steps selects (xp_prep_opts.keep_step, O its argument)? */
bool xp_trace_keeps_step(uint32_t id, const char *name, void *o);

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
 * false with *E set as the export sets it (XP_EXIT_BAD_INPUT where a streamed line could not be read). */
bool xp_trace_selects_any(const struct xp_capture *c, const struct xp_prep *p, const struct xp_trace_opts *o,
			  struct xp_err *e);

#endif
