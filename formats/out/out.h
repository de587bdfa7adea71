/* out.h - the output writers (text, csv, json) and atomic output files. */
#ifndef XPSTAT_OUT_H
#define XPSTAT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/model/result.h"
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
};

/* Rows a text table shows when it fits a width and has no limit of its own,
 * and per table in report text: the rest is in CSV and JSON. */
#define XP_TEXT_FIT_ROWS 40
#define XP_TEXT_REPORT_ROWS 20

struct xp_writer {
	const char *name;
	const char *description;
	/* Returns 0, or an xp_exit status (usage error for an unknown --table). */
	int (*write)(const struct xp_result *r, FILE *f, const struct xp_out_opts *o);
};

extern const struct xp_writer xp_writer_text, xp_writer_csv, xp_writer_json;
extern const struct xp_writer xp_writer_junit;  /* check only: one testcase per row of its table "checks" */
const struct xp_writer *xp_writer_find(const char *name);
/* The JSON writer's pieces, for documents that nest results (report). DEPTH is the nesting level of
 * the object being written (0 at the top). An object is '{', then xp_json_member before each value
 * (FIRST for the first), then xp_json_object_end. */
void xp_json_put_result(FILE *f, const struct xp_result *r, int depth);
void xp_json_put_string(FILE *f, const char *s);
void xp_json_member(FILE *f, int depth, bool first, const char *key);
void xp_json_object_end(FILE *f, int depth);

/* Atomic -o: write to a temporary file next to PATH, rename on commit (a special file such as
 * /dev/null is written in place: a rename would replace it). */
struct xp_outfile {
	FILE *f;
	char *path;
	char *tmp;
	/* PATH ends .gz or .zst: F is a memory stream, compressed into REAL on commit. */
	FILE *real;
	char *mem;
	size_t mem_len;
};
int xp_outfile_open(struct xp_outfile *of, const char *path);    /* 0 or -1 (errno set) */
int xp_outfile_commit(struct xp_outfile *of);                    /* 0 or -1 */
void xp_outfile_abort(struct xp_outfile *of);                    /* safe to call twice */

/* The compression an output path asks for by its suffix (out_compress.c). */
enum xp_out_comp { XP_OUT_PLAIN = 0, XP_OUT_GZIP, XP_OUT_ZSTD };
enum xp_out_comp xp_out_comp_of(const char *path);
/* N bytes of SRC to DST, compressed as C (deterministic bytes); 0 or an errno value. */
int xp_out_compress(FILE *dst, enum xp_out_comp c, const void *src, size_t n);

/* Helpers shared by the writers. */

/* "xpstat: no table NAME in CMD output; tables: ...; did you mean ...?" on stderr. */
void xp_out_no_table(const struct xp_result *r, const char *name);

/* Malloc'd copy of S where each byte that does not start a valid UTF-8
 * sequence becomes U+FFFD. Aborts on OOM. */
char *xp_utf8_sanitize(const char *s);
/* Shortest of "%.15g", "%.16g", "%.17g" that reads back as V, with '.' as the
 * decimal point and -0 written as 0. Returns false (and "") for NaN/Inf. */
bool xp_format_f64(double v, char *buf, size_t bufsz);
/* Rewrite the locale's decimal point in BUF (printf output) as '.'. */
void xp_c_decimal_point(char *buf);

#endif
