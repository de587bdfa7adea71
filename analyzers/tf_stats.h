/* tf_stats.h - the `tf-stats` command: TensorFlow Stats, device rows then host rows. */
#ifndef XPSTAT_TF_STATS_H
#define XPSTAT_TF_STATS_H

#include "analyzers/analysis.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

enum xp_tfs_sort {
	XP_TFS_SORT_SELF = 0,       /* total self time descending (the reference's order) */
	XP_TFS_SORT_TOTAL,          /* total time descending */
	XP_TFS_SORT_COUNT,          /* occurrences descending */
	XP_TFS_SORT_AVG,            /* average self time descending */
	XP_TFS_SORT_NAME            /* op name ascending */
};

/* Text shows this many rows of each side unless --top says otherwise; CSV and JSON carry all. */
#define XP_TF_STATS_TEXT_TOP 25

struct xp_tf_stats_opts {
	bool no_idle;               /* leave out IDLE; percentages of op time */
	bool host_only, device_only;
	enum xp_tfs_sort sort;
	size_t top;                 /* rows per side (device, host); 0 = all */
	const char *op_regex;       /* op name filter (POSIX extended), NULL = all */
	const char *type_regex;     /* op type filter */
	bool xprof_compat;          /* --compat xprof: XLA ops dropped as xprof does without HLO protos */
	int threads;                /* above 1: the kernels' per-op facts built on a second thread */
};

/* TensorFlow Stats: one table "tf_stats", device rows then host rows.
 * Returns NULL with *E set (XP_EXIT_USAGE) for an invalid regular expression. */
struct xp_result *xp_analyze_tf_stats(const struct xp_capture *c, const struct xp_tf_stats_opts *o, struct xp_err *e);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_tf_stats;

#endif
