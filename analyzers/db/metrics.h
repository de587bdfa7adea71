/* metrics.h - what check and compare measure in a report (a run or a saved document). */
#ifndef XPSTAT_METRICS_H
#define XPSTAT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "formats/model/report.h"
#include "analyzers/prepare/prepare.h"

/* One op or kernel, summed over hosts. */
struct xp_metric_row {
	char *side;             /* ops: "device" or "host"; kernels: "" */
	char *name;             /* ops: the op name; kernels: the kernel name */
	char *detail;           /* ops: the HLO module; kernels: the op name ("" when none) */
	char *category;         /* ops: the op type; kernels: "" */
	int64_t time_ps;        /* ops: self time; kernels: total time */
	int64_t count;          /* occurrences */
	double pct;             /* ops: share of its side's op time (0-100); kernels: of kernel time */
};

struct xp_metric_list {
	bool present;           /* the analysis was in the report */
	const char *from;       /* "tf-stats", "overview", "kernel-stats" */
	size_t n;
	struct xp_metric_row *rows;     /* sorted by side, name, detail */
};

struct xp_metric_alloc {
	char *host, *allocator;
	int64_t peak_bytes;     /* peak usage (heap + stack at the allocator's peak) */
};

struct xp_metrics {
	const char *source;
	const struct xp_result *steps_result;   /* the steps section (its diagnostics explain an empty sample) */
	bool has_steps;         /* the report has per-step times */
	bool pytorch;           /* its steps have the PyTorch categories */
	size_t n_steps;
	int64_t *step_ps;       /* the combined steps: each the longest host's step */
	int64_t median_ps, avg_ps;
	bool from_json;         /* a saved report: no capture to export a step from */
	bool has_slowest;       /* the slowest step of any host: its number (the steps table's "step") */
	int64_t slowest_step, slowest_ps;
	const char *slowest_host;
	size_t n_bh;            /* the breakdown host's steps among them */
	int64_t bh_step_ps;     /* their step times, summed */
	int64_t cat_ps[XP_N_STEP_CATS]; /* and each category, summed */
	const char *breakdown_host;
	bool has_env;           /* overview's summary was there */
	const char *device_type, *step_source;
	int64_t device_cores, hosts;
	struct xp_metric_list ops_tf;   /* tf-stats rows without IDLE */
	struct xp_metric_list ops_dev;  /* overview's device ops */
	struct xp_metric_list kernels;  /* kernel-stats rows, summed over hosts */
	bool has_memory;
	size_t n_allocs;
	struct xp_metric_alloc *allocs;
};

/* Read what check and compare need out of a report (a run or a saved document). */
void xp_metrics_from_report(const struct xp_report *rep, struct xp_metrics *m);
void xp_metrics_free(struct xp_metrics *m);
/* The `xpstat trace` command that exports M's slowest step from its capture (false for a saved
 * report or without steps). */
bool xp_metrics_trace_command(const struct xp_metrics *m, char *buf, size_t n);
/* Median of N durations (the mean of the middle two, rounded half up, when N is even); 0 when N is 0. */
int64_t xp_median_ps(const int64_t *v, size_t n);
/* Average per step of category CAT (XP_N_STEP_CATS: the step time) over the breakdown host's steps. */
int64_t xp_metrics_cat_avg(const struct xp_metrics *m, enum xp_step_cat cat);
/* Its share of the step time, 0-100 (a ratio of sums). */
double xp_metrics_cat_pct(const struct xp_metrics *m, enum xp_step_cat cat);
/* The op list both A and B have (tf-stats first, else overview); NULL when they share none. B may be NULL. */
const struct xp_metric_list *xp_metrics_ops(const struct xp_metrics *a, const struct xp_metrics *b, bool second);
/* The category whose key (or label) is NAME, or XP_N_STEP_CATS. */
enum xp_step_cat xp_step_cat_from_key(const char *name);

#endif
