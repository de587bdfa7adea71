/* analysis.h - one analysis as report and cmd/ see it: its name, what it needs, the optional stats it reads, its options, its run function. */
#ifndef XPSTAT_ANALYSIS_H
#define XPSTAT_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "analyzers/prepare/prep.h"
#include "formats/model/result.h"
#include "formats/core/xperr.h"

/*
 * Optional stats: memory events carry about ten allocator stats each and
 * kernels a few detail stats; in a large capture they are most of the stats
 * decoded. An analysis names in `reads` those it reads; a command leaves the
 * values of the others out of the load (registry.c derives the list). Should
 * an analysis read one it did not declare, it stops with an internal error
 * (xp_stat_must_be_loaded, exit 4) instead of answering as if the capture
 * lacked it.
 */

/* Read by memory, and by info for its survey (tf_op and shape are also read elsewhere, so they are not here). */
#define XP_ALLOCATOR_STATS                                                                                      \
	"allocator_name", "index_on_host", "device_ordinal", "bytes_reserved", "bytes_allocated", "bytes_available", \
		"fragmentation", "peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", "region_type",  \
		"data_type", "total_reserved"

/* Read by kernel-stats and tf-stats, and by info for its survey (memcpy_details, read by the step
 * database, is not here). */
#define XP_KERNEL_DETAIL_STATS                                                                                \
	"kernel_details", "theoretical_occupancy_pct", "occupancy_min_grid_size", "occupancy_suggested_block_size"

/* Read by no analysis: what TensorFlow's executor, kernel launches and tf.data write for other tools. */
#define XP_NEVER_READ_STATS                                                                                     \
	"kernel_name", "num_output_edges", "num_output_control_edges", "tf_function_call", "tracing_count",    \
		"buffer_limit", "device_id", "context_id"

/* What of the preparation an analysis needs before it can start. */
enum xp_needs {
	XP_NEEDS_CAPTURE = 0,   /* the capture alone */
	XP_NEEDS_GROUPS,        /* group ids (report starts it while the step databases are built) */
	XP_NEEDS_PREP           /* the whole preparation: steps */
};

struct xp_shared;

/* What a run function gets. */
struct xp_run_in {
	const struct xp_capture *c;
	const struct xp_prep *p;    /* NULL for an XP_NEEDS_CAPTURE analysis that report runs */
	struct xp_shared *s;        /* report's inputs built once for several analyses; NULL when run alone */
	const void *opts;           /* the analysis's own options (struct xp_<name>_opts); NULL: as report runs it */
	bool xprof_compat;          /* --compat xprof */
	struct xp_err *err;         /* a usage error (a bad regular expression) when run returns NULL; may be NULL */
	/* report: where the analysis adds the tables its combine rebuilds it from (they go to the saved
	 * report's "state"); NULL when not asked. */
	struct xp_result *state;
};

struct xp_state_host;

/* What combine gives an analysis to rebuild it of several hosts from saved reports (prepstate.h). */
struct xp_combine_in {
	const struct xp_capture *c;         /* the hosts, in the run's order: names and time bases only */
	const struct xp_prep *p;            /* their step databases */
	const struct xp_state_host *hosts;  /* each host's saved state (n: c->n_hosts) */
	bool xprof_compat;
	const char *semantics;              /* the capture's rules (NULL: TensorFlow/JAX) */
	bool report;                        /* as report runs it (complete tables), not as its command by default */
	bool text;                          /* written as text: as its command writes text (tf-stats: the first rows) */
	bool html;                          /* as report writes its HTML page (memory: with the sampled timeline) */
	struct xp_err *err;                 /* why, when combine returns NULL (exit 3) */
};

struct xp_analysis {
	const char *name;           /* the command that shows it alone: "kernel-stats" */
	enum xp_needs needs;
	/* Reads the events of device planes alone: when every analysis of a command does, the load decodes no
	 * other plane's events (their lines stay, with none). */
	bool device_events_only;
	const char *const *reads;   /* optional stats (above) it reads, NULL-terminated; NULL: none */
	/* Its options: a struct xp_<name>_opts of OPTS_SIZE bytes (0: it takes none), one per invocation.
	 * The command that shows it alone parses its flags into one that starts as OPTS_INIT (NULL:
	 * zeroes); report passes its own or NULL (run's defaults: complete tables). */
	size_t opts_size;
	const void *opts_init;
	struct xp_result *(*run)(const struct xp_run_in *in);
	/* Builds inputs of run that need only the capture (shared.h's) into S: a command that runs the analysis
	 * alone calls it on a second thread while the preparation is made, and run finds them there. NULL: none. */
	void (*warm)(struct xp_shared *s, bool xprof_compat);
	/* The analysis of several hosts from saved reports' state, as run makes it from their captures (NULL:
	 * combine cannot rebuild it); it takes the options run takes by default. */
	struct xp_result *(*combine)(const struct xp_combine_in *in);
	/* The state tables combine reads besides the step databases' (hosts, steps), NULL-terminated; NULL: none. */
	const char *const *state_tables;
};

/* A table report made complete shows this many rows as text. */
#define XP_REPORT_TEXT_TOP 10

/* Text shows the first ROWS rows of TABLE (when its analysis set no limit). */
static inline void xp_text_top(struct xp_result *r, const char *table, size_t rows)
{
	struct xp_table *t = r ? xp_result_table(r, table) : NULL;
	if (t && !t->text_limit)
		t->text_limit = rows;
}

#endif
