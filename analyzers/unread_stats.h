/* unread_stats.h - event stats that only some analyses read: what each command need not load. */
#ifndef XPSTAT_UNREAD_STATS_H
#define XPSTAT_UNREAD_STATS_H


/* --- event stats that only some analyses read (unread_stats.c); NULL-terminated lists for xp_read_opts.drop_stats --- */

extern const char *const xp_drop_all_details[];         /* for analyses of neither kernels nor memory */
extern const char *const xp_drop_but_kernel_details[];  /* for kernel-stats and tf-stats */
extern const char *const xp_drop_but_allocator_stats[]; /* for memory */
extern const char *const xp_drop_never_read[];          /* for info, report, check and compare */

#endif
