/* hostdb.h - the host op-metrics database (spec analyzers §3.1) and the eager marking of device kernels. */
#ifndef XPSTAT_HOSTDB_H
#define XPSTAT_HOSTDB_H

#include "opdb.h"

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

/* The host op DB of every host, summed (spec §6(a)) and sorted. */
struct xp_op_db *xp_input_host_db(const struct xp_capture *c);

#endif
