/* tfs_state.h - what tf-stats reads of each host besides its op databases, in a saved report's state, and back (combine). */
#ifndef XPSTAT_TFS_STATE_H
#define XPSTAT_TFS_STATE_H

#include "perfenv.h"
#include "prepstate.h"
#include "pt_ops.h"

/* One host's facts tf-stats sums or picks over the hosts of a run. */
struct xp_tfs_host {
	bool gpu;                   /* a GPU plane (the kernels' Tensor Core shares are looked up) */
	uint32_t tpu_planes;
	bool has_host_plane;        /* its host op DB read a host-threads plane (eager flags are known) */
	bool has_env;               /* a GPU plane: ENV is its first one's */
	struct xp_perf_env env;
	bool pytorch;               /* a PyTorch (Kineto) trace: its operators follow */
	uint64_t pt_orphans;        /* device events launched by no operator */
	int64_t pt_orphan_ps;
	struct xp_pt_op *pt;        /* its operators in xp_pt_ops_build's order; names are string ids of a capture */
	size_t n_pt;
};

/* The state tables: tfs_hosts (a row per host), tfs_pt_ops (a row per PyTorch operator of a host), and the
 * device op databases' packed tables (opdb_state.h, database "device": tfs_dbs, their totals; tfs_texts, their
 * texts; tfs_rows, their rows made when written). */
#define XP_TFS_STATE_TABLES "tfs_hosts", "tfs_pt_ops", "tfs_dbs", "tfs_texts", "tfs_rows"
/* The device op databases' packed tables (struct xp_packed_tables of opdb_state.h). */
#define XP_TFS_DEVICE_TABLES {"tfs_dbs", "tfs_texts", "tfs_rows"}

/* HOST (named NAME; its operators' names are C's string ids) as rows of STATE's tfs_hosts and tfs_pt_ops. */
void xp_tfs_host_state(struct xp_result *state, const struct xp_capture *c, const char *name,
		       const struct xp_tfs_host *host);
/* Host SH's facts, its operators' names interned in NAMES; false when the state does not read back. */
bool xp_tfs_host_from_state(const struct xp_state_host *sh, struct xp_capture *names, struct xp_tfs_host *host);

#endif
