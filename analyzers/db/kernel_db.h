/* kernel_db.h - the kernel report database (spec analyzers §4): one report per kernel-op pair per host, and its by-op form. */
#ifndef XPSTAT_KERNEL_DB_H
#define XPSTAT_KERNEL_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/model/capture.h"
#include "kernel_details.h"

/*
 * A kernel is an event on a /device:GPU plane, on a line that is not
 * derived, with a duration > 0 and a non-empty kernel_details string
 * (str_value or ref_value, on the event or its metadata). Host launch events
 * carry copies of kernel_details (some of them garbage) and are never read.
 *
 * The op of a kernel: an XLA kernel (JAX, TF with XLA) is one with an
 * hlo_op stat; its op is the HLO op (the last "::" part of hlo_op) and its
 * module hlo_module. Otherwise the op is the name part of tf_op (TF 2.4:
 * "level 0") as xp_parse_tf_op reads it; no annotation gives the empty op.
 * With xprof_compat the reference's reading is used instead: tf_op first,
 * which names every JAX kernel "XlaModule".
 *
 * Durations are kept exactly in picoseconds (the reference truncates each
 * one to whole nanoseconds first).
 */

/* Occurrences and durations of one report (spec §4.4 value). */
struct xp_kernel_value {
	uint64_t occurrences;
	int64_t total_ps, min_ps, max_ps;
};
/* Merge B into A: occurrences and totals add, min and max widen (A9). */
void xp_kernel_value_merge(struct xp_kernel_value *a, const struct xp_kernel_value *b);

/* A capture may hold millions of these (a row per launch shape): 80 bytes, the flags beside the row number. */
#define XP_KERNEL_ROWS_MAX (1u << 29)

struct xp_kernel_report {
	uint32_t host;              /* index of the host in the capture */
	uint32_t seq : 29;          /* the row's place when xp_kernel_db_number last numbered them */
	bool uses_tc : 1;           /* kernel uses Tensor Cores (name rule) */
	bool tc_eligible : 1;       /* op could use them (op rule, einsum rule, or uses_tc) */
	bool has_occupancy : 1;     /* occ_pct or theoretical_occupancy_pct seen (first occurrence) */
	char *name;                 /* kernel name (the database's pooled copy, shared by its reports) */
	char *op_name;              /* TF op name, JAX framework op (HLO metadata op_name), HLO op name, or "" (pooled) */
	char *module;               /* hlo_module of an XLA kernel ("" when absent; pooled); NULL for TF kernels */
	const struct xp_kernel_details *details;   /* registers, shared memory, grid, block: the database's copy */
	double occupancy_pct;
	struct xp_kernel_value v;
};

struct xp_kernel_index;

/* What one host adds to a database besides its reports (spec §4.4 has none of it; the summary and
 * diagnostics say it), kept per host so that a saved report's state carries each host's own. */
struct xp_kernel_host {
	uint32_t gpu_planes;
	uint64_t kernels;
	int64_t total_ps;
	uint64_t n_hlo_bad;
	char *hlo_problem;          /* the host's first undecodable HLO proto, or NULL */
	bool pt;
	int64_t pt_op_kernel_ps, pt_tc_bottom_ps;
};

struct xp_kernel_db {
	size_t n, cap;
	struct xp_kernel_report *rows;
	uint64_t kernels;           /* kernel events read */
	int64_t total_ps;           /* their total duration */
	uint32_t gpu_planes;        /* /device:GPU planes seen */
	uint32_t n_hosts;
	uint64_t n_hlo_bad;         /* HLO protos that did not decode (JAX: op names fall back to HLO ops) */
	char *hlo_problem;          /* the first of them, as a line */
	/* PyTorch hosts: kernel time that operators launched themselves, and of it the time of Tensor Core
	 * eligible operators with no eligible operator inside (the PyTorch profiler's eligible share) */
	bool pt;
	int64_t pt_op_kernel_ps, pt_tc_bottom_ps;
	struct xp_kernel_index *index;  /* private */
	unsigned refs;              /* holders of the database (xp_kernel_db_ref); freed when the last lets go */
	unsigned sorts;             /* times sorted: what a row order taken earlier checks */
	char **host_names;          /* the capture's host names (xp_kernel_db_keep_names), or NULL */
	uint32_t n_names;
	struct xp_kernel_host *hosts;   /* per host of the capture (n_hosts; xp_kernel_db_host: one) */
};

struct xp_kernel_db_opts {
	bool xprof_compat;          /* op names as the reference reads them (JAX kernels: "XlaModule") */
};

/* Reports of every host of C (concatenated, hosts never merged: spec §4.4),
 * in no particular order until xp_kernel_db_sort. */
struct xp_kernel_db *xp_kernel_db_build(const struct xp_capture *c, const struct xp_kernel_db_opts *o);
/* Reports of host H only (rows' host = H). */
struct xp_kernel_db *xp_kernel_db_host(const struct xp_capture *c, uint32_t h, const struct xp_kernel_db_opts *o);
/* Lets go of DB: frees it unless a table that shows its rows still holds it (xp_kernel_db_ref). */
void xp_kernel_db_free(struct xp_kernel_db *db);
/* One more holder of DB, which lets go with xp_kernel_db_free (a table whose rows DB makes on demand). */
struct xp_kernel_db *xp_kernel_db_ref(struct xp_kernel_db *db);
/* Copies of C's host names in DB, for its rows shown after C is gone. */
void xp_kernel_db_keep_names(struct xp_kernel_db *db, const struct xp_capture *c);
/* The name of host H (kept names), or "". */
const char *xp_kernel_db_host_name(const struct xp_kernel_db *db, uint32_t h);
/* Number the rows in their present order (seq), so that this order can be found again after a sort. */
void xp_kernel_db_number(struct xp_kernel_db *db);
/* An empty database of N_HOSTS hosts that xp_kernel_db_add_host fills (combine: from saved state). */
struct xp_kernel_db *xp_kernel_db_new(uint32_t n_hosts);
/* Host H's totals into DB (its strings copied), as reading the host adds them; hosts are added in order. */
void xp_kernel_db_add_host(struct xp_kernel_db *db, uint32_t h, const struct xp_kernel_host *hs);
/* DB's one copy of launch shape D (every report of that shape points at it). */
const struct xp_kernel_details *xp_kernel_db_shape(struct xp_kernel_db *db, const struct xp_kernel_details *d);
/* R as a report of DB (its strings and shape pooled there); a report of the same key adds to it. */
void xp_kernel_db_add(struct xp_kernel_db *db, const struct xp_kernel_report *r);

enum xp_kernel_sort {
	XP_KSORT_TOTAL = 0,         /* total time descending (the reference's order) */
	XP_KSORT_COUNT,             /* occurrences descending */
	XP_KSORT_AVG,               /* average descending */
	XP_KSORT_MAX,               /* maximum descending */
	XP_KSORT_NAME               /* kernel name ascending */
};
/* Sort by KEY; ties in the reference's order: total descending, then name,
 * grid x,y,z, block x,y,z, registers, static, dynamic shared memory,
 * uses-TC, eligible, op name (all ascending), then module and host. */
void xp_kernel_db_sort(struct xp_kernel_db *db, enum xp_kernel_sort key);
/* The rows of the first N reports that KEPT marks, in the order of xp_kernel_db_sort, into OUT; their number.
 * DB stays as it is; the first few are picked without sorting the rest (a text table's rows). */
size_t xp_kernel_db_order(struct xp_kernel_db *db, enum xp_kernel_sort key, const bool *kept, size_t n, uint32_t *out);
/* Average in ps, rounded to the nearest picosecond (the reference divides
 * whole nanoseconds and truncates: up to 1 ns less). */
int64_t xp_kernel_avg_ps(const struct xp_kernel_value *v);

/* --- by op (spec §4.5), for the overview and tf-stats Tensor Core columns --- */

struct xp_kernel_op {
	uint32_t host;
	char *op_name;              /* as in the reports */
	char *module;               /* NULL for TF ops */
	int64_t total_ps;           /* Σ total of the op's kernels */
	int64_t tensor_core_ps;     /* Σ total of those that use Tensor Cores */
	bool tc_eligible;           /* the flag of the op's first report in DB's order */
	uint64_t occurrences;       /* Σ kernel occurrences */
};

struct xp_kernel_ops {
	size_t n;
	struct xp_kernel_op *ops;   /* in order of first appearance in DB */
};

/* Group the reports of DB by (host, op, module), in order of first
 * appearance in DB; an op's eligibility is that of its report that sorts
 * first by total (the reference's "first report"), whatever DB's order.
 * When MERGE_HOSTS, every host's reports of one op form one entry (host 0). */
struct xp_kernel_ops *xp_kernel_ops_by_op(const struct xp_kernel_db *db, bool merge_hosts);
/* What xp_kernel_ops_by_op (xp_kernel_db_build (C, O), true) gives, without the database: the kernels are
 * read once and summed by op, and by report key only as far as the reference's order needs (a total per
 * distinct key, 32 bytes), for the ops whose kernels disagree on Tensor Core eligibility (the first row decides). */
struct xp_kernel_ops *xp_kernel_ops_build(const struct xp_capture *c, const struct xp_kernel_db_opts *o);
/* The entry of (host, op, module), or NULL. MODULE NULL = a TF op. */
const struct xp_kernel_op *xp_kernel_ops_find(const struct xp_kernel_ops *ops, uint32_t host, const char *op_name,
					      const char *module);
void xp_kernel_ops_free(struct xp_kernel_ops *ops);

#endif
