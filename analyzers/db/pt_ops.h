/* pt_ops.h - the operator database of a PyTorch (Kineto) trace: operators, the device work each launched, and who launched each kernel. */
#ifndef XPSTAT_PT_OPS_H
#define XPSTAT_PT_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/model/capture.h"

/* One operator name, summed over its calls on every thread of the host. */
struct xp_pt_op {
	uint32_t name;              /* capture string id */
	uint64_t calls;
	int64_t host_total_ps, host_self_ps;
	int64_t dev_total_ps, dev_self_ps;  /* kernels, copies and memsets it (or its children) launched */
	bool tc_eligible;           /* by name, a Tensor Core eligible child, or a Tensor Core kernel of its own */
};

/* Who launched a device event: the name of the innermost host node around its launch. */
#define XP_PT_NO_OWNER UINT32_MAX

struct xp_pt_ops {
	struct xp_pt_op *ops;       /* by device self time, host self time (descending), then name */
	size_t n;
	/* owner[plane][line][event]: the launching node's name id, with XP_PT_OWNER_TC set when that node is
	 * Tensor Core eligible, or XP_PT_NO_OWNER; NULL for planes and lines without device events (read it
	 * through xp_pt_owner). */
	uint32_t ***owner;
	uint32_t n_planes;
	uint32_t *plane_lines;      /* lines of each plane in owner */
	int64_t op_kernel_ps;       /* kernel time launched by operators themselves (not by steps or the root) */
	int64_t tc_bottom_ps;       /* of it, by Tensor Core eligible operators with no eligible operator inside */
	int64_t kernel_ps, tc_kernel_ps;   /* every kernel; of them, Tensor Core kernels (by name) */
	uint64_t device_events, orphan_events;  /* device events; of them, launched by no node (or no launch) */
	int64_t orphan_ps;
	uint64_t dropped_nodes;     /* host ranges that overlap a sibling on their thread (left out, as the reference) */
};

#define XP_PT_OWNER_TC 0x80000000u

/* The operator database of host H (a PyTorch trace: xp_host_is_pytorch). */
struct xp_pt_ops *xp_pt_ops_build(const struct xp_capture *c, const struct xp_host *h);
void xp_pt_ops_free(struct xp_pt_ops *db);

/* The launching node of device event I of line L of plane P: its name id (XP_PT_NO_OWNER when none) and
 * whether it is Tensor Core eligible. */
uint32_t xp_pt_owner(const struct xp_pt_ops *db, uint32_t plane, uint32_t line, uint64_t i, bool *tc_eligible);

struct xp_op_db;
/* The operators of every PyTorch host of C as op rows (category "Operator"), summed by name: DEVICE, the
 * operators that launched device work with their device total and self time; else every operator with its host
 * total and self time. total_op_time_ps is the sum of self times; total_time_ps is left 0. */
struct xp_op_db *xp_pt_op_db(const struct xp_capture *c, bool device);
/* The N operators OPS of one host (names C's) added to DB as xp_pt_op_db adds a host's. */
void xp_pt_op_rows(const struct xp_capture *c, const struct xp_pt_op *ops, size_t n, bool device, struct xp_op_db *db);

/* Operator names that may use Tensor Cores (the PyTorch profiler's list: autocast's lower-precision ops and
 * their backward ops). */
bool xp_pt_op_tc_eligible(const char *name);

#endif
