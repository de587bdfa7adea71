/* group.h - internal interface between event grouping (group.c) and the step database (stepdb.c). */
#ifndef XPSTAT_GROUP_H
#define XPSTAT_GROUP_H

#include "prep.h"
#include "formats/core/xperr.h"

/* What grouping hands on: a group id per node (every event of every
 * non-derived line, numbered line by line) and the line index. */
struct xp_group_out {
	enum xp_step_source source;
	bool loop_ops;          /* grouping skipped: a TF loop op is present */
	int32_t *gid;           /* per node, -1 = none */
	uint32_t n_nodes;
	void *flines;           /* struct fline[] (group.c) */
	uint32_t n_flines;
	/* Roots that name their group (not FunctionRun, SessionRun, RunGraph,
	 * ExecutorState::Process): xprof gives them a step_name, which makes
	 * them host step markers (spec §1.3). One bit per node. */
	uint8_t *named_root;
};

static inline bool xp_group_named_root(const struct xp_group_out *g, uint32_t node)
{
	return g->named_root && (g->named_root[node >> 3] >> (node & 7) & 1);
}

/* Group the host's events (index_only: just number the lines and events). */
void xp_group_host(const struct xp_capture *c, struct xp_prep_host *ph, bool index_only, struct xp_group_out *out);
/* The step database from group ids, or from --step-marker matches (stepdb.c). */
void xp_stepdb_from_groups(const struct xp_capture *c, struct xp_prep_host *ph, const struct xp_prep_opts *o,
			   const struct xp_group_out *g);
int xp_stepdb_from_marker(const struct xp_capture *c, struct xp_prep_host *ph, const struct xp_prep_opts *o,
			  const struct xp_group_out *g, struct xp_err *e);
/* Free the host's group names (the steps have their own copies); stepdb.c. */
void xp_drop_group_names(struct xp_prep_host *ph);
/* PyTorch (Kineto) traces: the step database by the PyTorch profiler's rules (pt_steps.c). */
void xp_stepdb_pytorch(const struct xp_capture *c, struct xp_prep_host *ph);
void xp_group_out_free(struct xp_group_out *g);
/* Line k of the index: plane index, line index in the plane, first node. */
uint32_t xp_group_fline_plane(const struct xp_group_out *g, uint32_t k, uint32_t *line, uint32_t *base);
/* Sorted order of line k when it is stored unsorted, else NULL. */
const uint32_t *xp_group_fline_order(const struct xp_group_out *g, uint32_t k);

/* Events of one plane's non-derived lines in start order (a k-way merge). */
struct xp_time_merge {
	const struct xp_host *h;
	uint32_t n;
	uint32_t *idx;                  /* index into the line index */
	uint64_t *pos;
	uint32_t **order;
	const struct xp_line **lines;
	uint32_t *heap;                 /* lines with events left, least (next start, line) first */
	uint32_t n_heap;
};
void xp_time_merge_init(struct xp_time_merge *m, const struct xp_host *h, uint32_t plane, const void *flines,
			uint32_t n_flines);
bool xp_time_merge_next(struct xp_time_merge *m, uint32_t *fline, uint64_t *event);
void xp_time_merge_free(struct xp_time_merge *m);

/* A line's events sorted by (start asc, duration desc) when the line is
 * stored unsorted; NULL when it is already in order. */
uint32_t *xp_line_sorted_order(const struct xp_line *l);

#endif
