/* opdb.h - the device op-metrics database (spec analyzers §3.2-§3.4): one row per op, per host or merged. */
#ifndef XPSTAT_OPDB_H
#define XPSTAT_OPDB_H

#include "analyzers/prepare/prepare.h"

/* --- device op-metrics database (spec analyzers §3.2-§3.4), opdb.c --- */

enum xp_op_kind {
	XP_OPK_TF = 0,  /* an event annotated with tf_op (or TF 2.4's "level 0") */
	XP_OPK_XLA,     /* an XLA op: hlo_op + hlo_module (kept, where xprof drops them) */
	XP_OPK_IDLE,    /* device time covered by no op */
	XP_OPK_STAGE    /* host: an input-pipeline stage op (_ipl_stage_id); module holds the stage id in decimal */
};

struct xp_op_row {
	/* The texts live in the database's pool (xp_op_db_text): one copy of each, freed with it. */
	const char *name;       /* op level: "<TF op>/<kernel>" or the HLO op; TF level: the TF op or HLO op */
	const char *module;     /* XLA rows: the HLO module; NULL otherwise */
	const char *category;   /* TF op type, HLO category ("fusion"), "IDLE", "Unknown"/"unknown" */
	const char *provenance; /* TF rows: the full tf_op text ("scope/op:Type"); NULL otherwise */
	enum xp_op_kind kind;
	uint64_t occurrences;
	int64_t time_ps;    /* total time */
	int64_t self_ps;    /* device ops do not nest: equal to time_ps */
	uint64_t flops;     /* from the event's flops stat (XLA); 0 for TF ops */
	uint64_t bytes_accessed;
	bool is_eager;
	bool is_eager_stat; /* ... by the is_eager stats alone (not by eager launches: the database overview reads) */
	uint32_t num_cores; /* device planes the op ran on */
	int64_t program_id; /* XLA rows resolved through the HLO proto: its program; -1 otherwise */
	uint64_t executions;/* XLA rows: runs of consecutive kernels of the op (one execution each) */
	bool cost_known;    /* XLA rows resolved to an instruction: flops and bytes come from its shapes */
	bool flops_gap;     /* ... but its FLOPs could not be counted from them */
	int elem_type;      /* XLA rows resolved: the instruction's element type (formats/in/hlo.h), else 0 */
	uint64_t hlo_flops, hlo_bytes; /* ... and its cost per execution */
};

struct xp_op_index;

struct xp_op_db {
	size_t n, cap;
	struct xp_op_row *rows;     /* insertion order until xp_op_db_sort */
	int64_t total_time_ps;      /* Σ over planes of max(op time, event span); includes IDLE */
	int64_t total_op_time_ps;   /* Σ self time of the non-IDLE rows */
	uint32_t n_planes;          /* GPU planes read */
	uint64_t n_dropped_xla;     /* XLA events dropped (--compat=xprof) */
	uint64_t n_xla_events;      /* device events with an hlo_op annotation */
	uint64_t n_xla_resolved;    /* ... that resolved to an HLO instruction */
	uint64_t n_xla_ambiguous;   /* ... to one of several programs of the same name */
	uint64_t n_hlo_bad;         /* Hlo Proto stats that did not decode */
	char *hlo_problem;          /* the first of them, as a line; NULL when none */
	struct xp_op_index *index;  /* private */
	struct xp_pool *texts;      /* private: the rows' texts */
};

struct xp_op_db_opts {
	bool xprof_compat;          /* drop the XLA events no HLO proto resolves, as xprof does */
	/* Sorted correlation ids of launches by eagerly run ops (xp_eager_launches): a TF-annotated kernel
	 * without an is_eager stat is eager when its correlation_id is one of them. */
	const int64_t *eager_launches;
	size_t n_eager_launches;
};

/* Device op DB of one host: every GPU plane, combined; one IDLE row. */
struct xp_op_db *xp_op_db_device(const struct xp_capture *c, const struct xp_host *h, const struct xp_op_db_opts *o);
/* TF-level form (spec §3.3): rows merged by TF op, occurrences = max. */
struct xp_op_db *xp_op_db_tf_level(const struct xp_op_db *dev, bool with_idle);
/* xp_op_db_tf_level(the device op DBs of P's hosts merged in host order, no IDLE), the same rows but in another
 * order (xp_op_db_sort gives the same), without a device row per TF op and kernel. */
struct xp_op_db *xp_op_db_tf_device(const struct xp_capture *c, const struct xp_op_db_opts *o);
/* xp_op_db_tf_level(C's hosts' device op DBs merged in host order, host H's read with HOST_OPTS[H], WITH_IDLE),
 * the same rows but in another order, without a device row per TF op and kernel; *ALL gets the merged device
 * rows it was made from (their totals and counts whole) but those of TF ops: the XLA and IDLE ones. */
struct xp_op_db *xp_op_db_tf_device_hosts(const struct xp_capture *c, const struct xp_op_db_opts *host_opts,
					  bool with_idle, struct xp_op_db **all);
/* An empty DB, to merge hosts into. */
struct xp_op_db *xp_op_db_empty(void);
/* Add FROM's rows and totals to INTO (spec §3.4: sums, eager OR). */
void xp_op_db_merge(struct xp_op_db *into, const struct xp_op_db *from);
/* xp_op_db_merge, then free FROM; returns the merged database. Into a database nothing was merged into
 * yet, FROM itself becomes it (a merge would copy every row: one host's capture pays nothing). */
struct xp_op_db *xp_op_db_absorb(struct xp_op_db *into, struct xp_op_db *from);
/* Self time descending, then name, module ascending. */
void xp_op_db_sort(struct xp_op_db *db);
const struct xp_op_row *xp_op_db_find(const struct xp_op_db *db, enum xp_op_kind kind, const char *module,
				      const char *name);
/* Index of the row (kind, module, name), created empty when new (*created says so). */
size_t xp_op_db_row(struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name, bool *created);
void xp_op_db_free(struct xp_op_db *db);
/* The pool of DB's row texts, which the caller now owns (xp_pool_free): they outlive xp_op_db_free(DB). */
struct xp_pool *xp_op_db_take_texts(struct xp_op_db *db);
/* The database's copy of LEN bytes at S, for a row's text; NULL for NULL. */
const char *xp_op_db_text(struct xp_op_db *db, const char *s, size_t len);
const char *xp_op_db_text0(struct xp_op_db *db, const char *s);

#endif
