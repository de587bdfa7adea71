/* kernel_stats.h - the `kernel-stats` command: GPU Kernel Stats from the kernel report database. */
#ifndef XPSTAT_KERNEL_STATS_H
#define XPSTAT_KERNEL_STATS_H

#include "analyzers/analysis.h"
#include "analyzers/db/kernel_db.h"
#include "formats/model/result.h"

struct xp_kernel_stats_opts {
	const char *op_regex;       /* --op: keep kernels whose op matches (POSIX extended) */
	const char *kernel_regex;   /* --kernel: keep kernels whose name matches */
	enum xp_kernel_sort sort;   /* --sort */
	size_t top;                 /* --top: keep the first N rows (0 = every row) */
	bool xprof_compat;          /* op names as the reference gives them */
};
/* GPU Kernel Stats: one row per kernel-op pair per host, and the Tensor Core
 * summary. NULL with *E set (XP_EXIT_USAGE) for a bad regular expression. */
struct xp_result *xp_analyze_kernel_stats(const struct xp_capture *c, const struct xp_kernel_stats_opts *o,
					  struct xp_err *e);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_kernel_stats;

#endif
