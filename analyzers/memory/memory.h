/* memory.h - the `memory` command's analysis: the Memory Profile (spec analyzers §5). */
#ifndef XPSTAT_MEMORY_H
#define XPSTAT_MEMORY_H

#include "analyzers/analysis.h"
#include "profile.h"
#include "formats/model/result.h"

/* The Memory Profile (spec analyzers §5) of every allocator of every host, in
 * absolute time order (DESIGN §8). NULL with *E set (XP_EXIT_USAGE, the
 * allocators there are) for an unknown opts->allocator. */
struct xp_result *xp_analyze_memory(const struct xp_prep *p, const struct xp_memory_opts *o, struct xp_err *e);

/* Whether the profile of C reads group ids: true when a host plane of C names a memory event, or a host is
 * PyTorch's. Without them the command need not group the events into steps, the most of its work. */
bool xp_memory_needs_groups(const struct xp_capture *c);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_memory;

#endif
