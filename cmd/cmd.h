/* cmd.h - the command table, shared options and the helpers every command uses. */
#ifndef XPSTAT_CMD_H
#define XPSTAT_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/model/capture.h"
#include "formats/core/xperr.h"
#include "formats/model/result.h"
#include "analyzers/registry.h"

/* One option of a command (global options live in main.c). */
struct xp_opt {
	const char *name;       /* long name without "--" */
	int has_arg;            /* 0 or 1 */
	int key;                /* value passed to the command's set_opt */
	const char *arg_name;   /* e.g. "N", "REGEX" (NULL when no argument) */
	const char *help;
};

/* Options common to all commands. */
struct xp_report;
struct xp_xspace_streams;
struct xp_ctx {
	/* What was read, for the line after the verdict and JSON's "provenance" (NULL: nothing to say). */
	const struct xp_report *provenance;
	const char *format;     /* text, csv, json */
	const char *output;     /* -o FILE (NULL = stdout) */
	const char *host;
	const char *run;
	const char *table;
	int threads;
	int color;              /* -1 auto, 0 never, 1 always */
	bool quiet;
	bool csv_raw;
	bool wide;              /* --wide: text neither fitted to the terminal nor cut */
	int charts;             /* --charts: -1 auto (on a terminal), 0 never, 1 always */
	bool memory_timeline;   /* report: run memory with its sampled timeline (the HTML chart) */
	bool report_state;      /* report: keep the state combine reads (written in JSON only) */
	uint64_t max_input_bytes;
	const char *step_marker; /* --step-marker REGEX */
	bool xprof_compat;       /* --compat xprof */
	/* report --shard I/N (--host-index I is I/number of files): of the capture files in their
	 * stable order (by file name), those whose position k has k % N == I; 0 = all. */
	long shard_i, shard_n;
	char **paths;
	size_t n_paths;
	const struct xp_cmd *cmd;
	void *cmd_opts;           /* this invocation's options of the command (xp_cmd.opts_size bytes) */
	struct xp_drop_list drop; /* what the command's analyses leave out of the load */
	/* Set while a command loads for other analyses than its own (trace's step database), else NULL. */
	const struct xp_analysis *const *load_for;
	/* Set while a command loads XSpace files as streams (trace's export): their events are read line by line
	 * later (xp_xspace_stream_line), the streams added here; else NULL. */
	struct xp_xspace_streams *streams;
};

struct xp_cmd {
	const char *name;
	const char *summary;
	const char *args;       /* synopsis of positional arguments, e.g. "PATH..." */
	size_t min_paths;
	const struct xp_opt *opts;  /* terminated by a {NULL} entry; may be NULL */
	/* Returns 0, or an xp_exit status for a bad option value. */
	int (*set_opt)(struct xp_ctx *ctx, int key, const char *arg);
	int (*run)(struct xp_ctx *ctx);
	/* The analyses it runs, NULL-terminated: the optional stats none of them reads are not
	 * loaded (NULL: load all). */
	const struct xp_analysis *const *analyses;
	/* Its options, one struct per invocation in ctx->cmd_opts: OPTS_SIZE bytes copied from OPTS_INIT
	 * (zeroes when NULL) before the first option is parsed -- when OPTS_SIZE is 0, those its one
	 * analysis declares (xp_analysis.opts_size, opts_init); OPTS_FREE (may be NULL) releases what
	 * set_opt allocated in it, whichever way the invocation ends. */
	size_t opts_size;
	const void *opts_init;
	void (*opts_free)(void *opts);
};

extern const struct xp_cmd xp_cmd_info, xp_cmd_runs;
extern const struct xp_cmd xp_cmd_overview, xp_cmd_steps, xp_cmd_pod;
extern const struct xp_cmd xp_cmd_input_pipeline, xp_cmd_tf_data;
extern const struct xp_cmd xp_cmd_kernel_stats;
extern const struct xp_cmd xp_cmd_tf_stats;
extern const struct xp_cmd xp_cmd_memory;
extern const struct xp_cmd xp_cmd_report, xp_cmd_check, xp_cmd_compare;
extern const struct xp_cmd xp_cmd_trace;
extern const struct xp_cmd xp_cmd_combine;

/* Load every capture named by ctx->paths (honouring --run, --host). */
int xp_load(struct xp_ctx *ctx, struct xp_capture **out);
/* Load, prepare when A needs it (steps, with --step-marker and --compat), run A with
 * OPTS (its options struct, may be NULL), emit: the whole job of most commands. */
int xp_run_analysis(struct xp_ctx *ctx, const struct xp_analysis *a, const void *opts);
/* Render r with the chosen writer to stdout or -o (atomically). Frees nothing. */
int xp_emit(struct xp_ctx *ctx, const struct xp_result *r);
/* xp_emit with what C's captures were (issue 21): the Read line under the verdict, JSON's provenance. */
int xp_emit_read(struct xp_ctx *ctx, const struct xp_capture *c, const struct xp_result *r);
struct xp_out_opts;
/* The same for any rendering FN (report's sections, check's JUnit): stdout or -o, written atomically. */
/* FN writes to F and returns 0, or an xp_exit status with *E set, which xp_emit_fn prints. */
typedef int (*xp_emit_write_fn)(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e);
int xp_emit_fn(struct xp_ctx *ctx, xp_emit_write_fn fn, void *arg);
/* Columns text output must fit: COLUMNS, else the terminal's width when
 * standard output is one; 0 (no limit) for --wide, CSV, JSON, pipes and files. */
size_t xp_text_width(const struct xp_ctx *ctx);
/* "xpstat: CMD: ..." usage error; returns XP_EXIT_USAGE. */
int xp_usage_error(const struct xp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit 2 when -o names one of PATHS (the same file by device and inode): the report would replace its capture. */
int xp_output_not_input(const struct xp_ctx *ctx, char *const *paths, size_t n);
/* A bad regular expression is a usage error before any file is read. */
int xp_check_regex(const struct xp_ctx *ctx, const char *opt, const char *arg);
/* arg must be one of names[0..n); its index goes to *out. */
int xp_parse_choice(const struct xp_ctx *ctx, const char *opt, const char *arg, const char *const *names,
		    size_t n, int *out);
/* Parse "123", "4k", "2M", "1G" (binary multiples). */
bool xp_parse_size(const char *s, uint64_t *out);
bool xp_parse_int(const char *s, long min, long max, long *out);

#endif
