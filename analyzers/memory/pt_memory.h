/* pt_memory.h - the PyTorch memory table: per device the peaks of allocated and of reserved memory. */
#ifndef XPSTAT_PT_MEMORY_H
#define XPSTAT_PT_MEMORY_H

#include "formats/model/capture.h"
#include "formats/model/result.h"

/* A peak: known, its value, its time, and the step whose span holds it (has_step). */
struct xp_pt_peak {
	bool known, has_step;
	int64_t v, t, step;
};

/* One row of the table: an allocator (device) of a PyTorch host. Texts point into the capture (or a saved state). */
struct xp_pt_mem_dev {
	const char *host, *allocator, *from;
	uint64_t events, allocations;
	struct xp_pt_peak allocated, reserved;
};

/* The rows of every PyTorch host of C (only ALLOCATOR when not NULL), in table order; free *OUT. */
size_t xp_pt_memory_devices(const struct xp_capture *c, const char *allocator, struct xp_pt_mem_dev **out);
/* Adds the table "devices" to R, of the N rows D. */
void xp_pt_memory_table_of(struct xp_result *r, const struct xp_pt_mem_dev *d, size_t n);
/* Adds the table "devices" to R: one row per allocator of each PyTorch host of C (only ALLOCATOR when not
 * NULL). */
void xp_pt_memory_table(struct xp_result *r, const struct xp_capture *c, const char *allocator);

#endif
