/* analyzers.h - entry points of the analyses; each takes a capture and returns a typed result. */
#ifndef XPSTAT_ANALYZERS_H
#define XPSTAT_ANALYZERS_H

#include "../formats/capture.h"
#include "result.h"

struct xp_info_opts {
	bool lines;             /* add the per-line table */
	int threads;            /* the event pass on this many threads (0, 1: one) */
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

/* --- event stats that only some analyses read (unread_stats.c); NULL-terminated lists for xp_read_opts.drop_stats --- */

extern const char *const xp_drop_all_details[];         /* for analyses of neither kernels nor memory */
extern const char *const xp_drop_but_kernel_details[];  /* for kernel-stats and tf-stats */
extern const char *const xp_drop_but_allocator_stats[]; /* for memory */
extern const char *const xp_drop_never_read[];          /* for info, report, check and compare */

/* --- device op-metrics database (spec analyzers §3.2-§3.4), opdb.c --- */

enum xp_op_kind {
	XP_OPK_TF = 0,  /* an event annotated with tf_op (or TF 2.4's "level 0") */
	XP_OPK_XLA,     /* an XLA op: hlo_op + hlo_module (kept, where xprof drops them) */
	XP_OPK_IDLE,    /* device time covered by no op */
	XP_OPK_STAGE    /* host: an input-pipeline stage op (_ipl_stage_id); module holds the stage id in decimal */
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
	/* Sorted correlation ids of launches by eagerly run ops (xp_eager_launches): a TF-annotated kernel
	 * without an is_eager stat is eager when its correlation_id is one of them. */
	const int64_t *eager_launches;
	size_t n_eager_launches;
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
/* Index of the row (kind, module, name), created empty when new (*created says so). */
size_t xp_op_db_row(struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name, bool *created);
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
/* The same over N durations. */
void xp_dur_stat(const int64_t *v, size_t n, struct xp_dur_stat *out);
/* DB's steps that make combined steps 0..a->n-1 of host H, as a view into DB
 * (no copy); all of DB's steps when A is NULL, none when H is not aligned. */
struct xp_step_db xp_step_view(const struct xp_step_db *db, const struct xp_step_align *a, uint32_t h);

/* "grouped", "pre-grouped", "step-marker", "none". */
const char *xp_step_source_name(enum xp_step_source s);
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
/* Align P's hosts; aborts when out of memory. */
void xp_align_or_die(const struct xp_prep *p, struct xp_step_align *a);

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

/* Input-bound classification (spec §1.10; input_bound.c) of step totals: "host", "both",
 * "device" or "unknown"; *input_pct and *all_others_pct are set. LEVEL gets
 * "HIGHLY", "MODERATELY", "POTENTIALLY", "NOT" or "" (unknown). */
const char *xp_overview_bottleneck(const struct xp_step_totals *t, double *input_pct, double *all_others_pct,
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

/* ==== input pipeline and tf.data (input_bound.c, tf_data.c, tf_data_result.c, input_pipeline.c) ==== */

/* --- shared by overview and input-pipeline (input_bound.c); xp_overview_bottleneck is declared above --- */

/* The reference's input statement for LEVEL ("HIGHLY", ..., "" = no step time). */
void xp_input_statement(const char *level, double input_pct, double all_others_pct, char *buf, size_t n);
/* The host whose steps make the step-time breakdown: the first host with steps (0 when none has). */
uint32_t xp_breakdown_host(const struct xp_prep *p);

/* The steps of the step-time breakdown, as the overview takes them (spec §6(a)). */
struct xp_breakdown_steps {
	struct xp_step_align al;
	uint32_t host;              /* whose steps make the breakdown */
	struct xp_step_db view;     /* its aligned steps (a view into the prep, no copy) */
	int64_t *step_ps;           /* per combined step: the longest host's step time */
	struct xp_dur_stat step;    /* over step_ps */
	struct xp_step_totals tot;  /* over view */
};
void xp_breakdown_steps_init(const struct xp_prep *p, struct xp_breakdown_steps *b);
void xp_breakdown_steps_free(struct xp_breakdown_steps *b);

/* --- tf.data bottleneck analysis (spec analyzers §6(c)), tf_data.c --- */

/* A call slower than this (50 us) is a slow call. */
#define XP_TFDATA_SLOW_CALL_PS 50000000

enum xp_tfdata_bottleneck {
	XP_TFB_OTHER = 0,
	XP_TFB_SLOW_SOURCE,             /* TFRecord, TextLine, Generator, TensorSlice, ... */
	XP_TFB_DATA_SERVICE,
	XP_TFB_REMOTE_SOURCE,
	XP_TFB_PARALLEL_TRANSFORM,      /* Map, Interleave: have a parallel version */
	XP_TFB_SEQUENTIAL_TRANSFORM     /* Filter, Batch, Unbatch */
};

/* One iterator within one call of a pipeline, summed over its GetNext events in that call. */
struct xp_tfdata_iter {
	int64_t id, parent_id;
	bool has_parent;
	const char *long_name;      /* "Iterator::Prefetch::Map" (capture string) */
	const char *name;           /* "Map": the part after the last "::" */
	bool is_async;              /* Prefetch, ParallelMap, ParallelInterleave, ... */
	bool is_blocking;           /* on the critical path: overlaps its blocking parent */
	uint32_t depth;             /* 0 = the root iterator, at its first visit */
	int64_t start_ps;           /* first visited event */
	int64_t duration_ps, self_ps;
	uint64_t num_calls;
};

struct xp_tfdata_call {
	int64_t start_ps, latency_ps;   /* the root iterator event */
	bool has_bottleneck;            /* false when no blocking iterator has self time */
	int64_t bottleneck_id, bottleneck_self_ps;
	const char *bottleneck_name, *bottleneck_long_name;
	bool truncated;                 /* the walk hit its bound (hostile graphs) */
};

struct xp_tfdata_pipeline {
	int64_t id;                 /* root iterator id */
	bool device;                /* feeds Iterator::Prefetch::Generator (a device input pipeline) */
	char name[32];              /* "Host:0", "Device:1" */
	const char *root_name;      /* "Iterator::Prefetch" */
	size_t n_calls;
	struct xp_tfdata_call *calls;   /* slowest first (ties: earlier first) */
	int64_t avg_latency_ps;     /* integer mean, as the reference */
	int64_t min_latency_ps, max_latency_ps;
	uint64_t num_slow_calls;    /* latency > XP_TFDATA_SLOW_CALL_PS */
	size_t n_iters;
	struct xp_tfdata_iter *iters;   /* the slowest call's iterators, in first-visit (depth-first) order */
};

struct xp_tfdata_host {
	const char *host;
	size_t n_pipelines;
	struct xp_tfdata_pipeline *pipelines;   /* in order of their first call */
	uint64_t n_iterator_events;
	uint64_t n_truncated_calls;
};

/* One host pipeline of the bottleneck analysis, by its slowest call. */
struct xp_tfdata_bottleneck_row {
	uint32_t host;
	size_t pipeline;            /* index in hosts[host].pipelines */
	int64_t max_latency_ps;
	const char *iterator_name, *iterator_long_name;    /* "" when no blocking iterator */
	int64_t iterator_latency_ps;                        /* its self time */
	enum xp_tfdata_bottleneck type;
};

struct xp_tfdata {
	uint32_t n_hosts;
	struct xp_tfdata_host *hosts;
	size_t n_bottlenecks;
	struct xp_tfdata_bottleneck_row *bottlenecks;   /* slowest pipeline first: [0] is the most input-bound */
	int64_t max_latency_ps;     /* of bottlenecks[0], 0 when none */
	bool is_input_bound;        /* max_latency_ps > 50 us */
	const char *summary;        /* the reference's summary sentence */
};

/* Every host's pipelines and the bottleneck analysis. Strings point into c. */
struct xp_tfdata *xp_tfdata_build(const struct xp_capture *c);
void xp_tfdata_free(struct xp_tfdata *t);
const struct xp_tfdata_pipeline *xp_tfdata_row_pipeline(const struct xp_tfdata *t,
							 const struct xp_tfdata_bottleneck_row *b);
enum xp_tfdata_bottleneck xp_tfdata_bottleneck_type(const char *iterator_name);
const char *xp_tfdata_bottleneck_key(enum xp_tfdata_bottleneck t);  /* "slow_source", ... */
/* The reference's suggestion as plain text, links as "text (URL)". */
const char *xp_tfdata_suggestion(enum xp_tfdata_bottleneck t);

/* --- the Input Pipeline Analyzer (spec §2), input_pipeline.c --- */

/* Categories of input ops (spec §2.2). */
enum xp_input_cat {
	XP_IC_ENQUEUE = 0,
	XP_IC_DEMANDED_READ,
	XP_IC_ADVANCED_READ,
	XP_IC_PREPROCESSING,
	XP_IC_UNKNOWN,
	XP_N_INPUT_CATS
};
/* "Enqueue", "Demanded file read", "Advanced file read", "Preprocessing", "Unknown". */
const char *xp_input_cat_label(enum xp_input_cat c);
/* The input category of a host op from its name and category (TF op type or stage
 * category), or -1 when it is no input op. */
int xp_input_op_category(const char *name, const char *category);

/* The host-side input-time breakdown (spec §2.3). */
enum xp_host_input_cat {
	XP_HI_DEMANDED_READ = 0,
	XP_HI_ADVANCED_READ,
	XP_HI_PREPROCESSING,
	XP_HI_ENQUEUE,
	XP_HI_UNCLASSIFIED,
	XP_N_HOST_INPUT
};
struct xp_host_input {
	size_t n_ops;                           /* input ops (rows of the host op DB) */
	int64_t input_op_ps;                    /* their self time */
	int64_t cat_self_ps[XP_N_INPUT_CATS];   /* their self time per category */
	double ratio;                           /* host-to-device share used to scale; 0 = none */
	int64_t ps[XP_N_HOST_INPUT];            /* the breakdown */
	bool tf_data_in_use;                    /* demanded, advanced or preprocessing > 0 */
};
void xp_host_input_breakdown(const struct xp_op_db *host_db, double h2d_ratio, bool xprof_compat,
			     struct xp_host_input *out);
const char *xp_host_input_key(enum xp_host_input_cat k);      /* "demanded_file_read", ..., "unclassified" */
const char *xp_host_input_label(enum xp_host_input_cat k);    /* "Reading data from files on demand", ... */
const char *xp_host_input_advice(enum xp_host_input_cat k);   /* spec §2.4, links as "text (URL)" */
/* The host op DB of every host, summed (spec §6(a)) and sorted. */
struct xp_op_db *xp_input_host_db(const struct xp_capture *c);
/* Average host-to-device time over average step time of the breakdown steps (spec §2.3). */
double xp_input_h2d_ratio(const struct xp_step_totals *tot);

/* What to change about the input, for the recommendation tables: the host
 * category with the most time and its advice, the tf.data bottleneck and its
 * suggestion. Levels: a host category key or "none"; a bottleneck type key or "no". */
struct xp_input_advice {
	char host[1024], host_level[32];
	char tf_data[4096], tf_data_level[64];
	bool tf_data_in_use;
};
void xp_input_advice(const struct xp_prep *p, const struct xp_step_totals *tot, struct xp_input_advice *a);

struct xp_input_opts {
	bool xprof_compat;
};
struct xp_result *xp_analyze_input_pipeline(const struct xp_prep *p, const struct xp_input_opts *o);

/* The `tf-data` command (tf_data_result.c): from the capture, or from its tf.data model. */
struct xp_result *xp_analyze_tf_data(const struct xp_capture *c);
struct xp_result *xp_tf_data_result(const struct xp_tfdata *t);

/* ==== inputs shared by the analyses of one report (shared.c) ==== */

/* Built once, on first use, by whichever thread asks first; thread-safe; never changed by readers. */
struct xp_shared *xp_shared_new(const struct xp_capture *c);
void xp_shared_free(struct xp_shared *s);
const struct xp_op_db *xp_shared_input_host_db(struct xp_shared *s);   /* xp_input_host_db(c) */
const struct xp_tfdata *xp_shared_tfdata(struct xp_shared *s);         /* xp_tfdata_build(c) */
/* The shared object when p->shared is set, else a new one put in *own (the caller frees *own). */
const struct xp_op_db *xp_use_input_host_db(const struct xp_prep *p, struct xp_op_db **own);
const struct xp_tfdata *xp_use_tfdata(const struct xp_prep *p, struct xp_tfdata **own);

/* ==== memory profile (memory.c) ==== */

struct xp_memory_opts {
	const char *allocator;  /* only the allocator whose memory id or allocator_name this is (NULL = all) */
	bool breakdown;         /* add the table "breakdown": allocations live at each allocator's peak */
	bool timeline;          /* add the table "timeline" */
	uint64_t points;        /* timeline: at most this many points per allocator (0 = every event) */
};
/* The Memory Profile (spec analyzers §5) of every allocator of every host, in
 * absolute time order (DESIGN §8). An unknown opts->allocator gives an error
 * diagnostic with code "unknown_allocator" and no rows. */
struct xp_result *xp_analyze_memory(const struct xp_prep *p, const struct xp_memory_opts *o);
/* Window w of the max box filter that samples n snapshots to `points` (spec §5.3 step 5). */
void xp_memory_window(uint64_t n, uint64_t points, uint64_t w, uint64_t *first, uint64_t *len);
/* A TF DataType enum value as the reference names it: "float", "int64_ref", "unknown dtype enum (99)". */
const char *xp_memory_dtype_name(int64_t v, char *buf, size_t n);

/* ==== TensorFlow Stats (hostdb.c, perfenv.c, tf_stats.c) ==== */

/* --- host op-metrics database (spec analyzers §3.1), hostdb.c --- */

/* Op-level builder (spec Appendix A19): OCCURRENCES executions of the row (kind, module, name) that took TIME_PS
 * in all, CHILDREN_PS of it in direct children; FLOPS and BYTES are per execution (the row gains them times
 * OCCURRENCES). A new row takes CATEGORY and the eager flag; later calls OR the flag in when EAGER_OR (host
 * rows), else keep the first (device rows). The self time is added to db->total_op_time_ps. Returns the row. */
size_t xp_op_db_enter(struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name,
		      const char *category, uint64_t occurrences, int64_t time_ps, int64_t children_ps, uint64_t flops,
		      uint64_t bytes, bool eager, bool eager_or);

struct xp_host_db_info {
	bool has_host_plane;        /* a host-threads plane (/host:CPU, ...) was read */
	bool eager_stat;            /* a host plane has the is_eager stat */
	bool eager_exec;            /* an EagerExecute event with is_func 0 exists (eager ops ran) */
	uint64_t op_events;         /* events that were ops: by name, stage, or tf_op stat */
	uint64_t lines;             /* lines with at least one op */
};

/* Eager marking of device kernels (spec §0.3): the sorted, distinct correlation ids of the host's launch events
 * (events with a correlation_id stat) that ran inside an EagerExecute whose is_func stat is 0, on the same thread.
 * NULL (and *n 0) when there are none. */
int64_t *xp_eager_launches(const struct xp_capture *c, const struct xp_host *h, size_t *n);

/* Host op DB of one host (every host-threads plane, non-derived lines), one
 * IDLE row; rows kind XP_OPK_TF (by TF op name, also XLA:CPU tf_op ops),
 * XP_OPK_STAGE (input-pipeline stages) and XP_OPK_IDLE. INFO may be NULL. */
struct xp_op_db *xp_op_db_host(const struct xp_capture *c, const struct xp_host *h, struct xp_host_db_info *info);

/* --- GPU performance envelope (spec analyzers §3.6), perfenv.c --- */

struct xp_perf_env {
	bool known;                 /* a GPU plane with enough stats */
	bool amd;
	double peak_tflops;         /* TFLOP/s */
	double peak_hbm_gbps;       /* GB/s (10^9 bytes) */
	double peak_sram_rd_gbps, peak_sram_wr_gbps;
	double ridge_point;         /* FLOP per byte: peak GFLOP/s / HBM GB/s */
};
/* PerfEnv of one GPU plane from its stats. */
void xp_perf_env_plane(const struct xp_capture *c, const struct xp_plane *p, struct xp_perf_env *e);
/* PerfEnv of the capture: the first GPU plane of each host; the last host with a positive peak wins (spec §6(a)). */
void xp_perf_env_capture(const struct xp_capture *c, struct xp_perf_env *e);
/* "Compute", "HBM", "Shm/L1" or "Unknown" (spec §3.5) for an op's GFLOP/s and GiB/s. */
const char *xp_bound_by(const struct xp_perf_env *e, double gflops, double gibps);

/* --- the tf-stats command, tf_stats.c --- */

enum xp_tfs_sort {
	XP_TFS_SORT_SELF = 0,       /* total self time descending (the reference's order) */
	XP_TFS_SORT_TOTAL,          /* total time descending */
	XP_TFS_SORT_COUNT,          /* occurrences descending */
	XP_TFS_SORT_AVG,            /* average self time descending */
	XP_TFS_SORT_NAME            /* op name ascending */
};

struct xp_tf_stats_opts {
	bool no_idle;               /* leave out IDLE; percentages of op time */
	bool host_only, device_only;
	enum xp_tfs_sort sort;
	size_t top;                 /* rows per side (device, host); 0 = all */
	const char *op_regex;       /* op name filter (POSIX extended), NULL = all */
	const char *type_regex;     /* op type filter */
	bool xprof_compat;          /* --compat xprof: XLA ops dropped as xprof does without HLO protos */
};

/* TensorFlow Stats: one table "tf_stats", device rows then host rows.
 * Returns NULL with ERRMSG set for an invalid regular expression. */
struct xp_result *xp_analyze_tf_stats(const struct xp_capture *c, const struct xp_tf_stats_opts *o, char *errmsg,
				      size_t errlen);

/* ==== report, check, compare (report.c, metrics.c, mwu.c, check.c, compare.c) ==== */

#include "report.h"
#include "gate.h"

#endif
