/* out.h - the output writers (text, csv, json) and atomic output files. */
#ifndef XPSTAT_OUT_H
#define XPSTAT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/model/result.h"
#include "formats/model/report.h"
#include "formats/core/xperr.h" /* xp_utf8_decode, xp_must_escape */

struct xp_out_opts {
	const char *table;      /* CSV: which table (NULL = the result's primary) */
	bool csv_raw;           /* CSV: do not neutralize formula-like text cells */
	bool color;             /* text: ANSI colour allowed */
	bool tty;               /* text: stdout is a terminal (bar charts) */
	size_t text_rows;       /* text: override table text_limit (0 = keep) */
	size_t max_rows;        /* text: and never more than this many (0 = no cap) */
	size_t width;           /* text: fit every line in this many columns (0 = no limit) */
	bool wide;              /* text: --wide, no row cut beyond the tables' own */
	bool charts;            /* text: terminal charts (--charts, or auto on a terminal) */
	bool utf8;              /* text: the locale is UTF-8 (charts use block characters, else ASCII) */
	/* What was read (NULL: not known, a saved result): JSON's "provenance"; text's line after the verdict
	 * unless no_read_line (--quiet). */
	const struct xp_report *provenance;
	bool no_read_line;
};

/* Rows a text table shows when it fits a width and has no limit of its own,
 * and per table in report text: the rest is in CSV and JSON. */
#define XP_TEXT_FIT_ROWS 40
#define XP_TEXT_REPORT_ROWS 20

struct xp_writer {
	const char *name;
	const char *description;
	/* Returns 0, or an xp_exit status with *E set (a usage error for an unknown --table); it never prints
	 * the error itself: cmd/ does. */
	int (*write)(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e);
	const char *only;       /* the commands that take it, as prose ("check, compare and report"); NULL: every command */
};

extern const struct xp_writer xp_writer_text, xp_writer_csv, xp_writer_json;
extern const struct xp_writer xp_writer_junit;  /* check only: one testcase per row of its table "checks" */
/* Every writer, NULL-terminated, the default first: --format's choices, its help and its messages. */
extern const struct xp_writer *const xp_writers[];
extern const struct xp_writer xp_writer_markdown; /* check, compare, report: GitHub-flavoured tables */
extern const struct xp_writer xp_writer_html;   /* compare, report: one self-contained page with SVG charts */
const struct xp_writer *xp_writer_find(const char *name);
/* The I-th writer of the registry, NULL past the last (--format's choices and help). */
const struct xp_writer *xp_writer_at(size_t i);
/* Does COMMAND take writer W? */
bool xp_writer_takes(const struct xp_writer *w, const char *command);
/* A cell as text shows it: humanized, terminal-safe (malloc'd); and any string made terminal-safe. */
char *xp_text_cell(const struct xp_cell *c);
/* xp_text_cell, knowing the cell's key: a FLOP rate (*_gflop_per_s) is scaled with its unit. */
char *xp_text_value(const char *key, const struct xp_cell *c);
char *xp_text_escape(const char *s);
/* How many rows of T text shows (0: all). */
size_t xp_text_rows(const struct xp_table *t, const struct xp_out_opts *o);
/* The step-time categories in chart order, with their fixed colours (xpstat-report(1)): KEY is the
 * column key less its unit ("device_compute" for device_compute_ms, device_compute_avg_ms). */
struct xp_category {
	const char *key;
	const char *color;      /* #rrggbb, HTML and SVG */
	int ansi;               /* 256-colour terminal index */
	const char *utf8, *ascii; /* the terminal chart's cell */
};
#define XP_N_CATEGORIES 9
extern const struct xp_category xp_categories[XP_N_CATEGORIES];
/* Text charts after table T of R (steps: a bar per step; overview: the step-time sparkline). */
void xp_text_charts(const struct xp_result *r, const struct xp_table *t, FILE *f, const struct xp_out_opts *o);
/* The JSON writer's pieces, for documents that nest results (report). DEPTH is the nesting level of
 * the object being written (0 at the top). An object is '{', then xp_json_member before each value
 * (FIRST for the first), then xp_json_object_end. */
void xp_json_put_result(FILE *f, const struct xp_result *r, int depth);
void xp_json_put_string(FILE *f, const char *s);
void xp_json_member(FILE *f, int depth, bool first, const char *key);
void xp_json_object_end(FILE *f, int depth);
/* "provenance" at the top of a document (a member, not the first): the xpstat version, --compat and each
 * capture by its name in its run directory, run, host, size, digest (when made: saved reports). */
void xp_json_put_provenance(FILE *f, const struct xp_report *rep);
/* The text line naming what was read: "Read: run RUN, 2 files, 1.2 MiB: a.xplane.pb, b.xplane.pb". */
char *xp_read_line(const struct xp_report *rep);

/* Atomic -o: write to a temporary file next to PATH, rename on commit (a special file such as
 * /dev/null is written in place: a rename would replace it). */
struct xp_outfile {
	FILE *f;
	char *path;
	char *tmp;
	/* PATH ends .gz or .zst: F is a stream that compresses into REAL (the temporary file) as it
	 * is written; commit closes it (the stream's end) before REAL. */
	FILE *real;
};
int xp_outfile_open(struct xp_outfile *of, const char *path);    /* 0 or -1 (errno set) */
int xp_outfile_commit(struct xp_outfile *of);                    /* 0 or -1 */
void xp_outfile_abort(struct xp_outfile *of);                    /* safe to call twice */

/* Atomic -o DIR (report --format csv): the files are written into a temporary directory next to
 * DIR, which is renamed into place on commit (its files moved in one by one when DIR already
 * holds files). Nothing is left behind on abort or on a signal. */
struct xp_outdir {
	char *path;
	char *tmp;
	size_t n;
	char **files;           /* written into tmp, by name */
};
int xp_outdir_open(struct xp_outdir *d, const char *path);      /* 0 or -1 (errno set) */
/* Open NAME in the temporary directory (an xp_outfile to commit or abort). */
int xp_outdir_file(struct xp_outdir *d, const char *name, struct xp_outfile *of);
int xp_outdir_commit(struct xp_outdir *d);                      /* 0 or -1 (errno set) */
void xp_outdir_abort(struct xp_outdir *d);

/* Temporary files and directories being written, removed by the handler that
 * xp_pending_on_signals installs for SIGINT, SIGTERM and SIGHUP (which then ends
 * the program with the signal's status). The path is kept, not copied: mark it
 * done before freeing it. */
void xp_pending_on_signals(void);
int xp_pending_file(const char *path);                          /* 0, or -1: no room */
void xp_pending_file_done(const char *path);
int xp_pending_dir(const char *path);
void xp_pending_dir_done(const char *path);

/* The compression an output path asks for by its suffix (out_compress.c). */
enum xp_out_comp { XP_OUT_PLAIN = 0, XP_OUT_GZIP, XP_OUT_ZSTD };
enum xp_out_comp xp_out_comp_of(const char *path);
/* A stream that compresses what is written to it as C into RAW (deterministic bytes; RAW stays
 * open: fclose the stream to write the compressed stream's end); NULL with errno set. */
FILE *xp_out_compressor(FILE *raw, enum xp_out_comp c);

/* Helpers shared by the writers. */

/* A writer or stream that drops the rest of its output once a write fails tells why here (ERR, an errno
 * value): stdio then holds nothing more to write, and closing the output could not say. The first one said is
 * what xp_outfile_commit reports. */
void xp_out_write_failed(int err);

/* "no table NAME in CMD output; tables: ...; did you mean ...?" into *E (a usage error); returns its status. */
int xp_out_no_table(const struct xp_result *r, const char *name, struct xp_err *e);

/* Malloc'd copy of S where each byte that does not start a valid UTF-8
 * sequence becomes U+FFFD. Aborts on OOM. */
char *xp_utf8_sanitize(const char *s);
/* Shortest of "%.15g", "%.16g", "%.17g" that reads back as V, with '.' as the
 * decimal point and -0 written as 0. Returns false (and "") for NaN/Inf. */
bool xp_format_f64(double v, char *buf, size_t bufsz);
/* Rewrite the locale's decimal point in BUF (printf output) as '.'. */
void xp_c_decimal_point(char *buf);

#endif
