/* analyzers.h - entry points of the analyses; each takes a capture and returns a typed result. */
#ifndef XPSTAT_ANALYZERS_H
#define XPSTAT_ANALYZERS_H

#include "../formats/capture.h"
#include "result.h"

struct xp_info_opts {
	bool lines;             /* add the per-line table */
};

/* What a capture holds and what is missing from it (the `info` command). */
struct xp_result *xp_analyze_info(const struct xp_capture *c, const struct xp_info_opts *o);

struct xp_run_list;
/* The runs of one logdir as rows of the `runs` and `run_hosts` tables. */
void xp_runs_add(struct xp_result *r, const char *logdir, const struct xp_run_list *runs);
/* Verdict and summary once every logdir has been added. */
void xp_runs_finish(struct xp_result *r);

/* ==== device op DB, overview, steps, pod (opdb.c, overview.c, steps_table.c, pod.c) ==== */

#include "prepare.h"

/* --- device op-metrics database (spec analyzers §3.2-§3.4), opdb.c --- */

enum xp_op_kind {
	XP_OPK_TF = 0,  /* an event annotated with tf_op (or TF 2.4's "level 0") */
	XP_OPK_XLA,     /* an XLA op: hlo_op + hlo_module (kept, where xprof drops them) */
	XP_OPK_IDLE     /* device time covered by no op */
};

struct xp_op_row {
	char *name;         /* op level: "<TF op>/<kernel>" or the HLO op; TF level: the TF op or HLO op */
	char *module;       /* XLA rows: the HLO module; NULL otherwise */
	char *category;     /* TF op type, HLO category ("fusion"), "IDLE", "Unknown"/"unknown" */
	char *provenance;   /* TF rows: the full tf_op text ("scope/op:Type"); NULL otherwise */
	enum xp_op_kind kind;
	uint64_t occurrences;
	int64_t time_ps;    /* total time */
	int64_t self_ps;    /* device ops do not nest: equal to time_ps */
	uint64_t flops;     /* from the event's flops stat (XLA); 0 for TF ops */
	uint64_t bytes_accessed;
	bool is_eager;
	uint32_t num_cores; /* device planes the op ran on */
};

struct xp_op_index;

struct xp_op_db {
	size_t n, cap;
	struct xp_op_row *rows;     /* insertion order until xp_op_db_sort */
	int64_t total_time_ps;      /* Σ over planes of max(op time, event span); includes IDLE */
	int64_t total_op_time_ps;   /* Σ self time of the non-IDLE rows */
	uint32_t n_planes;          /* GPU planes read */
	uint64_t n_dropped_xla;     /* XLA events dropped (--compat=xprof) */
	struct xp_op_index *index;  /* private */
};

struct xp_op_db_opts {
	bool xprof_compat;          /* drop XLA events as xprof does without HLO protos */
};

/* Device op DB of one host: every GPU plane, combined; one IDLE row. */
struct xp_op_db *xp_op_db_device(const struct xp_capture *c, const struct xp_host *h, const struct xp_op_db_opts *o);
/* TF-level form (spec §3.3): rows merged by TF op, occurrences = max. */
struct xp_op_db *xp_op_db_tf_level(const struct xp_op_db *dev, bool with_idle);
/* An empty DB, to merge hosts into. */
struct xp_op_db *xp_op_db_empty(void);
/* Add FROM's rows and totals to INTO (spec §3.4: sums, eager OR). */
void xp_op_db_merge(struct xp_op_db *into, const struct xp_op_db *from);
/* Self time descending, then name, module ascending. */
void xp_op_db_sort(struct xp_op_db *db);
const struct xp_op_row *xp_op_db_find(const struct xp_op_db *db, enum xp_op_kind kind, const char *module,
				      const char *name);
void xp_op_db_free(struct xp_op_db *db);

/* --- steps (steps_table.c) --- */

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

/* "grouped", "pre-grouped", "step-marker", "none". */
const char *xp_step_source_name(enum xp_step_source s);
/* "562 ms", "1.23 s", "551 us": three significant digits, for verdict lines. */
void xp_format_duration(int64_t ps, char *buf, size_t n);
/* The table NAME of every host's steps, one row per step. */
struct xp_table *xp_steps_add_table(struct xp_result *r, const struct xp_prep *p, const char *name, const char *title);
/* Diagnostics about a host's steps: none, TPU, dropped, grouping skipped. */
void xp_step_diags(struct xp_result *r, const struct xp_prep *p, uint32_t host);

/* The `steps` command: one row per step of every host. */
struct xp_result *xp_analyze_steps(const struct xp_prep *p);

/* --- overview (overview.c) --- */

/* Run environment of one host (spec §1.9). */
struct xp_run_env {
	char device_type[96];       /* "Nvidia GPU (Volta)", "AMD GPU - gfx942", "GPU", "TPU v6 Lite", "CPU" */
	uint32_t device_cores;      /* GPU planes (TPU planes on TPU hosts) */
	uint32_t devices_with_events;
	bool gpu, tpu;
};
void xp_run_env_host(const struct xp_capture *c, const struct xp_host *h, struct xp_run_env *e);

/* Input-bound classification (spec §1.10) of step totals: "host", "both",
 * "device" or "unknown"; *input_pct and *all_others_pct are set. LEVEL gets
 * "HIGHLY", "MODERATELY", "POTENTIALLY", "NOT" or "" (unknown). */
const char *xp_input_bound(const struct xp_step_totals *t, double *input_pct, double *all_others_pct,
			   const char **level);

struct xp_overview_opts {
	size_t top_ops;             /* rows of top_ops (default 10) */
	bool xprof_compat;
};
/* The Overview page: step-time summary, precision, top device ops, run
 * environment, recommendation, diagnostics. */
struct xp_result *xp_analyze_overview(const struct xp_prep *p, const struct xp_overview_opts *o);

/* --- pod (pod.c) --- */

/* The Pod Viewer: every host's step breakdown side by side. */
struct xp_result *xp_analyze_pod(const struct xp_prep *p);

/* ==== GPU kernel stats (kernel_stats.c, kernel_details.c) ==== */

#include "kernel_stats.h"

struct xp_kernel_stats_opts {
	const char *op_regex;       /* --op: keep kernels whose op matches (POSIX extended) */
	const char *kernel_regex;   /* --kernel: keep kernels whose name matches */
	enum xp_kernel_sort sort;   /* --sort */
	size_t top;                 /* --top: keep the first N rows (0 = every row) */
	bool xprof_compat;          /* op names as the reference gives them */
};
/* GPU Kernel Stats: one row per kernel-op pair per host, and the Tensor Core
 * summary. NULL with *errmsg set for a bad regular expression (a usage error). */
struct xp_result *xp_analyze_kernel_stats(const struct xp_capture *c, const struct xp_kernel_stats_opts *o,
					  char *errmsg, size_t errlen);

#endif
