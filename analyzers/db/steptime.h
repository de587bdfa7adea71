/* steptime.h - step-time helpers the analyses share: totals, statistics, aligned views, the steps table and its diagnostics. */
#ifndef XPSTAT_STEPTIME_H
#define XPSTAT_STEPTIME_H

#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

#include <math.h>

/* --- step totals and statistics (steptime.c) --- */

/* Totals over the steps of one host, in ps. */
struct xp_step_totals {
	size_t n;
	int64_t step_ps;
	int64_t cat_ps[XP_N_STEP_CATS];
	int64_t wait_input_ps;      /* HOST_WAIT_INPUT */
	int64_t host_to_device_ps;  /* HOST_TO_DEVICE + DEVICE_WAIT_HOST */
};
void xp_step_totals(const struct xp_step_db *db, struct xp_step_totals *t);

/* Average, sample standard deviation, min and max over steps, in ps. */
struct xp_dur_stat {
	size_t n;
	int64_t avg_ps, sdv_ps, min_ps, max_ps;
};
/* CAT = XP_N_STEP_CATS for the step time itself. */
void xp_step_stat(const struct xp_step_db *db, enum xp_step_cat cat, struct xp_dur_stat *out);
/* The same over N durations. */
void xp_dur_stat(const int64_t *v, size_t n, struct xp_dur_stat *out);
/* Summary values KEY[0..3] (average, deviation, min, max, in ms) of ST; null when there is no step:
 * unknown, not 0. xp_sum_step_stat: the step_time_*_ms ones. */
void xp_sum_dur_stat(struct xp_result *r, const char *const key[4], const char *const label[4],
		     const struct xp_dur_stat *st);
void xp_sum_step_stat(struct xp_result *r, const struct xp_dur_stat *st);
/* V, or NAN (null in JSON, "-" in text) when it is a share of steps there are none of. */
static inline double xp_pct_if_steps(size_t n_steps, double v)
{
	return n_steps ? v : NAN;
}
/* DB's steps that make combined steps 0..a->n-1 of host H, as a view into DB
 * (no copy); all of DB's steps when A is NULL, none when H is not aligned. */
struct xp_step_db xp_step_view(const struct xp_step_db *db, const struct xp_step_align *a, uint32_t h);

/* "grouped", "pre-grouped", "step-marker", "none". */
const char *xp_step_source_name(enum xp_step_source s);
/* A step's number as users read it in the Step column: the integer that ends its name ("train 11",
 * "ProfilerStep#5"), else its id. What `xpstat trace --steps` selects by. */
int64_t xp_step_number(int64_t id, const char *name);
/* "562 ms", "1.23 s", "551 us": three significant digits, for verdict lines. */
void xp_format_duration(int64_t ps, char *buf, size_t n);
/* The table NAME of every host's steps, one row per step; A (may be NULL)
 * gives each step's combined step index. */
struct xp_table *xp_steps_add_table(struct xp_result *r, const struct xp_prep *p, const struct xp_step_align *a,
				    const char *name, const char *title);
/* Diagnostics about a host's steps: none, TPU, dropped, grouping skipped. */
void xp_step_diags(struct xp_result *r, const struct xp_prep *p, uint32_t host);
/* The empty_intersection diagnostic when A found none (several hosts). */
void xp_align_diags(struct xp_result *r, const struct xp_prep *p, const struct xp_step_align *a);
/* Align P's hosts; out of memory ends the program (exit 4). */
void xp_align_or_die(const struct xp_prep *p, struct xp_step_align *a);

#endif
