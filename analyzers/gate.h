/* gate.h - what `check` and `compare` measure: the Mann-Whitney U test, the metrics of a report, the checks and the comparison. */
#ifndef XPSTAT_GATE_H
#define XPSTAT_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prepare.h"
#include "report.h"
#include "result.h"

/* --- the one-sided Mann-Whitney U test (mwu.c) --------------------------------------------- */

struct xp_mwu {
	size_t n1, n2;          /* baseline and candidate sample sizes */
	double u;               /* the candidate's U: pairs with y > x, plus half the ties */
	double p;               /* P(U >= u) under H0: the candidate is not slower */
	bool exact;             /* the exact conditional distribution (both samples < 50) */
	double z;               /* normal approximation: the continuity-corrected z (0 when exact) */
	double tie_sum;         /* sum over tie groups of t^3 - t */
};

/* Test "Y (candidate) tends to be larger than X (baseline)". p = 1 when a sample is empty. */
void xp_mwu_greater(const int64_t *x, size_t n1, const int64_t *y, size_t n2, struct xp_mwu *out);
/* Two-sided p: twice the smaller one-sided p, at most 1. */
double xp_mwu_two_sided(const int64_t *x, size_t n1, const int64_t *y, size_t n2);
/* The smallest one-sided p that samples of these sizes can give (no ties): 1/C(n1+n2, n2) when exact. */
double xp_mwu_min_p(size_t n1, size_t n2);
/* "exact" or "normal approximation". */
const char *xp_mwu_method(const struct xp_mwu *m);
/* 1 - Phi(z). */
double xp_normal_upper(double z);

/* --- metrics of a report (metrics.c) -------------------------------------------------------- */

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
	size_t n_steps;
	int64_t *step_ps;       /* the combined steps: each the longest host's step */
	int64_t median_ps, avg_ps;
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

/* --- check (check.c) -------------------------------------------------------------------------- */

enum xp_limit_kind { XP_LIM_NONE = 0, XP_LIM_DUR, XP_LIM_PCT, XP_LIM_BYTES };

struct xp_limit {
	enum xp_limit_kind kind;
	int64_t v;              /* ps or bytes */
	double pct;             /* percent */
};

struct xp_named_limit {
	char *name;             /* category key, op name or allocator ("" = the highest) */
	struct xp_limit lim;
};

struct xp_check_opts {
	struct xp_limit max_step;       /* average step time: DUR */
	struct xp_limit max_median;     /* median step time: DUR */
	size_t n_cat;
	struct xp_named_limit *cat;     /* DUR (average per step) or PCT (of step time) */
	struct xp_limit max_input;      /* PCT */
	size_t n_op;
	struct xp_named_limit *op;      /* DUR (self time) or PCT (of its side's op time) */
	bool has_peak;
	struct xp_named_limit peak;     /* BYTES */
	struct xp_limit regression;     /* PCT or DUR; NONE without a baseline */
	double confidence;              /* 0.5 < c < 1 */
	size_t min_steps;
	const char *baseline_source;
};

/* Exit statuses of a check: pass, a check failed, input unusable. */
enum { XP_CHECK_PASS = 0, XP_CHECK_FAIL = 1, XP_CHECK_UNUSABLE = 3 };

/* Evaluate every check on CAND (and BASE, may be NULL). *STATUS gets the
 * exit status: 1 when any check failed, else 3 when one could not be
 * evaluated, else 0. */
struct xp_result *xp_check(const struct xp_metrics *cand, const struct xp_metrics *base,
			   const struct xp_check_opts *o, int *status);

/* --- compare (compare.c) --------------------------------------------------------------------- */

struct xp_compare_opts {
	double confidence;      /* for "significant" */
};

/* BASE and CAND side by side: step time and categories, ops, kernels, comparability. */
struct xp_result *xp_compare(const struct xp_metrics *base, const struct xp_metrics *cand,
			     const struct xp_compare_opts *o);

#endif
