/* pt_memory.h - the PyTorch memory table: per device the peaks of allocated and of reserved memory. */
#ifndef XPSTAT_PT_MEMORY_H
#define XPSTAT_PT_MEMORY_H

#include "formats/model/capture.h"
#include "formats/model/result.h"

/* Adds the table "devices" to R: one row per allocator of each PyTorch host of C (only ALLOCATOR when not
 * NULL). */
void xp_pt_memory_table(struct xp_result *r, const struct xp_capture *c, const char *allocator);

#endif
