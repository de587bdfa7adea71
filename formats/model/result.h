/* result.h - typed results (summary values, tables of typed columns, diagnostics) that analyzers return. */
#ifndef XPSTAT_RESULT_H
#define XPSTAT_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "formats/core/satint.h"

struct xp_pool;
struct xp_row_source;

/*
 * An analyzer fills a struct xp_result and never prints. Writers in formats/
 * render any result as text, CSV or JSON. Cell values are stored raw and
 * exact: durations in integer picoseconds, bytes and counts as integers; the
 * column's unit says how CSV/JSON show them (e.g. a duration column with unit
 * XP_UNIT_US is printed as an exact decimal number of microseconds).
 */

/* 2: a value that is not known is null (version 1 wrote 0); check and compare read both. */
#define XP_SCHEMA_VERSION 2

enum xp_type {
	XP_T_NULL = 0,  /* empty cell */
	XP_T_STR,       /* UTF-8 text (escaped by writers) */
	XP_T_INT,       /* int64 */
	XP_T_UINT,      /* uint64 */
	XP_T_F64,       /* double */
	XP_T_BOOL,
	XP_T_DUR,       /* int64 picoseconds */
	XP_T_BYTES,     /* int64 bytes */
	XP_T_PCT,       /* double, 0-100 */
	XP_T_FRAC,      /* double, 0-1 */
	XP_T_ID         /* 64-bit identifier: a JSON string, since a double cannot hold it */
};

/* How a duration column is shown in CSV/JSON (the key carries the suffix). */
enum xp_unit {
	XP_U_NONE = 0,
	XP_U_PS,
	XP_U_NS,
	XP_U_US,
	XP_U_MS,
	XP_U_S
};

enum xp_col_flags {
	XP_COL_TEXT_HIDDEN = 1,  /* not shown in the text table */
	XP_COL_TEXT_RIGHT = 2,   /* force right alignment (numbers are right-aligned anyway) */
	/* hidden in the text table when no row has a value; decided when a writer that hides columns first asks
	 * (xp_table_settle_hidden), so that JSON and CSV, which show every column, never make the rows for it */
	XP_COL_TEXT_HIDE_EMPTY = 4
};

struct xp_col {
	char *key;      /* stable snake_case key with unit suffix, e.g. self_time_us */
	char *header;   /* short header for text */
	enum xp_type type;
	enum xp_unit unit;
	unsigned flags;
};

/* A column as its table declares it: an analysis keeps one static const array per table (indexed by
 * an enum of the table's columns) and installs it with xp_table_cols. */
struct xp_col_def {
	const char *key;
	const char *header;     /* NULL: the key */
	enum xp_type type;
	enum xp_unit unit;
	unsigned flags;
};

struct xp_cell {
	enum xp_type type;
	bool pooled;    /* v.s is the table's pooled copy (xp_set_str_pooled), freed with the table */
	union {
		int64_t i;
		uint64_t u;
		double d;
		bool b;
		char *s;
	} v;
};

struct xp_table {
	char *name;     /* snake_case table name: --table NAME, CSV file name in report */
	char *title;    /* heading in text output */
	size_t n_cols, cap_cols;
	struct xp_col *cols;
	size_t n_rows, cap_rows;
	struct xp_cell *cells;  /* n_rows * n_cols, row-major */
	size_t text_limit;      /* text shows at most this many rows (0 = all) */
	char *text_note;        /* shown under the text table, e.g. "12 more rows: use --format csv" */
	struct xp_pool *pool;   /* one copy of each text of the xp_set_str_pooled cells (NULL: none yet) */
	struct xp_row_source *source;   /* rows made on demand (xp_table_rows_from), or NULL: cells hold them */
};

enum xp_severity { XP_SEV_INFO = 0, XP_SEV_WARNING = 1, XP_SEV_ERROR = 2 };

struct xp_diag {
	enum xp_severity severity;
	char *code;     /* stable snake_case id, e.g. no_step_markers */
	char *message;  /* what is wrong */
	char *hint;     /* what the user can do (may be NULL) */
	char *host;     /* host it concerns (may be NULL) */
};

struct xp_kv {
	char *key;      /* snake_case */
	char *label;    /* human label for text */
	struct xp_cell value;
	enum xp_unit unit;
};

struct xp_result {
	char *command;
	char *verdict;          /* one-line verdict shown first in text (may be NULL) */
	size_t n_summary, cap_summary;
	struct xp_kv *summary;
	size_t n_tables, cap_tables;
	struct xp_table **tables;
	size_t n_diags, cap_diags;
	struct xp_diag *diags;
	size_t primary;         /* index of the table CSV writes by default */
	/* Whose rules made the numbers, when not TensorFlow's ("pytorch-2"): a saved document records it, and
	 * check and compare refuse a baseline made by other rules. NULL = TensorFlow/JAX semantics. */
	char *semantics;
	/* Step times in step order (picoseconds) for the text sparkline (overview): text only, never written to
	 * CSV, JSON or a saved report. */
	int64_t *spark_ps;
	size_t n_spark;
};

struct xp_result *xp_result_new(const char *command);
void xp_result_free(struct xp_result *r);
void xp_result_set_semantics(struct xp_result *r, const char *semantics);
void xp_result_set_verdict(struct xp_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Summary scalars (rendered as "label: value" in text, an object in JSON). */
void xp_sum_str(struct xp_result *r, const char *key, const char *label, const char *s);
void xp_sum_int(struct xp_result *r, const char *key, const char *label, int64_t v);
void xp_sum_f64(struct xp_result *r, const char *key, const char *label, double v);
void xp_sum_pct(struct xp_result *r, const char *key, const char *label, double v);
void xp_sum_bool(struct xp_result *r, const char *key, const char *label, bool v);
void xp_sum_dur(struct xp_result *r, const char *key, const char *label, int64_t ps, enum xp_unit unit);
void xp_sum_bytes(struct xp_result *r, const char *key, const char *label, int64_t v);
/* A value that is not known (no steps, no baseline): null in JSON, "-" in text, empty in CSV -- never 0. */
void xp_sum_null(struct xp_result *r, const char *key, const char *label);
/* xp_sum_dur when KNOWN, else xp_sum_null. */
void xp_sum_dur_if(struct xp_result *r, const char *key, const char *label, bool known, int64_t ps,
		   enum xp_unit unit);

struct xp_table *xp_result_add_table(struct xp_result *r, const char *name, const char *title);
size_t xp_table_col(struct xp_table *t, const char *key, const char *header, enum xp_type type,
		    enum xp_unit unit, unsigned flags);
/* Append the N columns of DEFS to T, in order; returns the index of the first. */
size_t xp_table_cols(struct xp_table *t, const struct xp_col_def *defs, size_t n);
#define XP_COLS(defs) (defs), (sizeof(defs) / sizeof((defs)[0]))
/* What of a declared column depends on the capture: hidden from text (or shown), another text header. */
void xp_col_hide(struct xp_table *t, size_t col, bool hidden);
/* Each XP_COL_TEXT_HIDE_EMPTY column of T becomes XP_COL_TEXT_HIDDEN when no row has a value in it, and the
 * flag is cleared: text, Markdown and HTML call it before they read the flags. It makes the rows (once each) only
 * while such a column is undecided; the flags are a decision about T's own rows, hence const T. */
void xp_table_settle_hidden(const struct xp_table *t);
void xp_col_header(struct xp_table *t, size_t col, const char *header);
/* Append a row of NULL cells and return its index. */
size_t xp_table_row(struct xp_table *t);
struct xp_cell *xp_table_cell(const struct xp_table *t, size_t row, size_t col);

/*
 * A table of millions of rows that a compact database already holds (a kernel row per launch shape) would cost
 * 16 bytes a cell if copied into cells; instead its rows can be made on demand, one at a time, when a writer
 * reads them. FILL sets the table's n_cols CELLS of ROW (they come zeroed, i.e. null); a text cell points into
 * the source or into TEXT (TEXT_SIZE bytes, the row's own), and stays valid until that row is replaced: the
 * table keeps the two rows read last, so two rows can be compared, not three. RELEASE (may be NULL) frees SRC
 * with the table. The columns must be in place; the table's cells can no longer be set.
 */
#define XP_ROW_TEXT_SIZE 1024
typedef void xp_row_fill(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size);
void xp_table_rows_from(struct xp_table *t, size_t n_rows, xp_row_fill *fill, void *src, void (*release)(void *src));
/* A text cell that FILL points at TEXT it does not own (the source's or the row's text). */
void xp_cell_text(struct xp_cell *c, const char *text);
/* A boolean cell that FILL makes. */
void xp_cell_bool(struct xp_cell *c, bool v);
void xp_set_str(struct xp_table *t, size_t row, size_t col, const char *s);
void xp_set_strn(struct xp_table *t, size_t row, size_t col, const char *s, size_t len);
/* As xp_set_str, for a text many rows repeat (a kernel or op name, a launch shape): the table keeps it once,
 * so that a table of millions of rows costs its cells, not a copy of each name in each. */
void xp_set_str_pooled(struct xp_table *t, size_t row, size_t col, const char *s);
void xp_set_int(struct xp_table *t, size_t row, size_t col, int64_t v);
void xp_set_uint(struct xp_table *t, size_t row, size_t col, uint64_t v);
void xp_set_f64(struct xp_table *t, size_t row, size_t col, double v);
void xp_set_bool(struct xp_table *t, size_t row, size_t col, bool v);
void xp_set_dur(struct xp_table *t, size_t row, size_t col, int64_t ps);
void xp_set_bytes(struct xp_table *t, size_t row, size_t col, int64_t v);
void xp_set_pct(struct xp_table *t, size_t row, size_t col, double v);
void xp_set_frac(struct xp_table *t, size_t row, size_t col, double v);
void xp_set_id(struct xp_table *t, size_t row, size_t col, int64_t v);
struct xp_table *xp_result_table(const struct xp_result *r, const char *name);

void xp_result_diag(struct xp_result *r, enum xp_severity sev, const char *code, const char *host,
		    const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
const char *xp_severity_name(enum xp_severity s);

/* Exact decimal text of ps in the given unit ("29690.748" for 29690748000 ps in us). */
void xp_format_dur_exact(int64_t ps, enum xp_unit unit, char *buf, size_t bufsz);
const char *xp_unit_suffix(enum xp_unit u);

#endif
