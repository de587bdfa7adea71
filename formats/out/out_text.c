/* out_text.c - the text writer: verdict, aligned summary, aligned tables, diagnostics. */
#include "out.h"
#include "formats/core/xalloc.h"
#include "formats/core/xperr.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * Conventions (xpstat-formats(5) repeats them):
 *
 * Layout: the verdict line, then the summary as "Label: value" lines with
 * the values aligned, then each table (its title, then rows indented by two
 * spaces, columns two spaces apart, numbers right-aligned, text
 * left-aligned), then the diagnostics. Sections are separated by one blank
 * line; no line has trailing blanks. A table shows at most the caller's
 * text_rows (else its own text_limit) rows, then "… N more rows (use --format csv or
 * json for all)" ("row" for one); a table without rows says "(no rows)";
 * its note, if any, follows. Diagnostics are "warning: [HOST: ]MESSAGE"
 * (likewise "error:", "info:") with "  hint: HINT" under it.
 *
 * Units are humanized for reading, never for parsing (CSV and JSON are for
 * that):
 * - durations: three significant digits in the largest unit that keeps the
 *   value at or above 1: "512 ps", "12.3 ns", "456 us", "1.20 ms", "3.45 s";
 *   "us" is ASCII, not "µs", so output greps the same in every terminal;
 *   picoseconds are whole numbers; seconds above 999 keep growing ("4210 s");
 *   zero is "0 s".
 * - bytes: binary units B, KiB, MiB, GiB, TiB, PiB, EiB; whole bytes below
 *   1 KiB ("512 B"), one decimal below 100 ("4.0 GiB", "12.5 MiB"), whole
 *   numbers from 100 up ("512 KiB").
 * - percentages and fractions: both as a percent with one decimal ("41.2%");
 *   a fraction 0.412 is shown as "41.2%".
 * - other numbers: counts and ids in plain decimal without thousands
 *   separators; other doubles with three significant digits ("%.3g"), whole
 *   numbers from 1000 up; booleans "yes"/"no"; empty cells and NaN "-".
 *
 * Text from the capture is made safe for a terminal: C0 and C1 control
 * characters, DEL and the Unicode bidirectional controls are shown as
 * escapes (\t, \n, \r, \x1b, \u009b, \u202e), and each byte that is not
 * valid UTF-8 as \xHH, so a hostile capture cannot move the cursor, change
 * colours or reorder what the reader sees. A backslash is shown as is.
 *
 * Colour (only when the caller allows it) marks the verdict in bold and the
 * severity words: error red, warning yellow, info cyan.
 */

#define SGR_BOLD "\033[1m"
#define SGR_RED "\033[1;31m"
#define SGR_YELLOW "\033[1;33m"
#define SGR_CYAN "\033[1;36m"
#define SGR_RESET "\033[0m"

#define INDENT "  "
#define COL_GAP "  "

/* A growing string; allocation failure is fatal like everywhere in output. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (n >= b->cap - b->len || !b->p) {
		size_t ncap = b->cap ? b->cap : 32;

		while (ncap - b->len <= n) {
			if (ncap > SIZE_MAX / 2)
				xp_oom();
			ncap *= 2;
		}
		b->p = realloc(b->p, ncap);
		if (!b->p)
			xp_oom();
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		n = (int)sizeof(tmp) - 1;   /* callers only format short numbers */
	sb_putn(b, tmp, (size_t)n);
}

/* The string, owned by the caller from now on ("" when nothing was put). */
static char *sb_take(struct sbuf *b)
{
	char *p;

	if (!b->p)
		sb_putn(b, "", 0);
	p = b->p;
	memset(b, 0, sizeof(*b));
	return p;
}

/* --- terminal-safe text --- */

static void put_escape(struct sbuf *b, uint32_t cp)
{
	if (cp == '\t')
		sb_puts(b, "\\t");
	else if (cp == '\n')
		sb_puts(b, "\\n");
	else if (cp == '\r')
		sb_puts(b, "\\r");
	else if (cp < 0x80)
		sb_printf(b, "\\x%02x", (unsigned)cp);
	else
		sb_printf(b, "\\u%04x", (unsigned)cp);
}

static void escape_into(struct sbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	while (i < n) {
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp);

		if (!len) {
			sb_printf(b, "\\x%02x", (unsigned)p[i]);
			i++;
			continue;
		}
		if (xp_must_escape(cp))
			put_escape(b, cp);
		else
			sb_putn(b, s + i, len);
		i += len;
	}
}

static char *escaped(const char *s)
{
	struct sbuf b = {0};

	escape_into(&b, s ? s : "");
	return sb_take(&b);
}

char *xp_text_escape(const char *s)
{
	return escaped(s);
}

/* Columns a code point takes in a terminal: enough to align common CJK and combining text. */
static size_t cp_width(uint32_t cp)
{
	static const uint32_t zero[][2] = {
		{0x0300, 0x036f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200d},
		{0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}, {0xe0100, 0xe01ef},
	};
	static const uint32_t wide[][2] = {
		{0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf},
		{0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff},
		{0xfe30, 0xfe4f}, {0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x1f300, 0x1f64f},
		{0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
	};
	size_t i;

	for (i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

static size_t text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, w = 0;

	while (i < n) {
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp);

		w += len ? cp_width(cp) : 1;
		i += len ? len : 1;
	}
	return w;
}

/* --- fitting a width --- */

#define ELLIPSIS "\xe2\x80\xa6"

/* Code points of s with their byte offsets and columns. */
struct cps {
	size_t n, *off, *w;
};

static void cps_of(struct cps *c, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	c->n = 0;
	c->off = xcalloc(n + 1, sizeof(*c->off));
	c->w = xcalloc(n + 1, sizeof(*c->w));
	while (i < n) {
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp);

		c->off[c->n] = i;
		c->w[c->n++] = len ? cp_width(cp) : 1;
		i += len ? len : 1;
	}
	c->off[c->n] = n;
}

/* s shortened in the middle to at most w columns with "…" (long kernel and
 * op names differ at both ends). */
static char *ellipsize(const char *s, size_t w)
{
	struct sbuf b = {0};
	struct cps c;
	size_t head = 0, tail, hw = 0, tw = 0, keep_h, keep_t;

	if (text_width(s) <= w) {
		sb_puts(&b, s);
		return sb_take(&b);
	}
	keep_t = w ? (w - 1) / 2 : 0;
	keep_h = w ? w - 1 - keep_t : 0;
	cps_of(&c, s);
	while (head < c.n && hw + c.w[head] <= keep_h)
		hw += c.w[head++];
	tail = c.n;
	while (tail > head && tw + c.w[tail - 1] <= keep_t)
		tw += c.w[--tail];
	sb_putn(&b, s, c.off[head]);
	if (w)
		sb_puts(&b, ELLIPSIS);
	sb_puts(&b, s + c.off[tail]);
	free(c.off);
	free(c.w);
	return sb_take(&b);
}

/* s from column col, broken at spaces (or inside a word longer than a line)
 * so that no line passes width; later lines start with indent. */
static char *wrapped(const char *s, size_t width, size_t col, const char *indent)
{
	struct sbuf b = {0};
	struct cps c;
	size_t i = 0, ind = strlen(indent);

	cps_of(&c, s);
	while (i < c.n) {
		size_t j = i, ww = 0;

		while (j < c.n && s[c.off[j]] != ' ')
			ww += c.w[j++];
		if (col > ind && col + 1 + ww > width) {
			sb_printf(&b, "\n%s", indent);
			col = ind;
		} else if (i > 0) {
			sb_puts(&b, " ");
			col++;
		}
		for (size_t k = i; k < j; k++) {
			if (col + c.w[k] > width && col > ind) {
				sb_printf(&b, "\n%s", indent);
				col = ind;
			}
			sb_putn(&b, s + c.off[k], c.off[k + 1] - c.off[k]);
			col += c.w[k];
		}
		i = j;
		while (i < c.n && s[c.off[i]] == ' ')
			i++;
	}
	free(c.off);
	free(c.w);
	return sb_take(&b);
}

/* --- humanized numbers --- */

/* printf a number in the C locale, and never show a negative zero ("-0.0"). */
__attribute__((format(printf, 2, 3)))
static void put_num(struct sbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	const char *digits;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	xp_c_decimal_point(tmp);
	digits = tmp;
	if (tmp[0] == '-' && strspn(tmp + 1, "0.") == strlen(tmp + 1))
		digits++;
	sb_puts(b, digits);
}

/* Three significant digits for 0 <= v < 1000 (rounded: 9.996 -> "10.0"). */
static void put_sig3(struct sbuf *b, double v)
{
	if (v >= 99.95)
		put_num(b, "%.0f", v);
	else if (v >= 9.995)
		put_num(b, "%.1f", v);
	else
		put_num(b, "%.2f", v);
}

static void human_dur(struct sbuf *b, int64_t ps)
{
	static const char *const unit[] = {"ps", "ns", "us", "ms", "s"};
	double v;
	int u = 0;

	if (ps == 0) {
		sb_puts(b, "0 s");
		return;
	}
	if (ps > -1000 && ps < 1000) {
		sb_printf(b, "%" PRId64 " ps", ps);
		return;
	}
	v = fabs((double)ps);
	/* 999.5 and up would print as "1000": show it in the next unit instead. */
	while (v >= 999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	if (ps < 0)
		sb_puts(b, "-");
	if (v >= 999.5)
		put_num(b, "%.0f", v);
	else
		put_sig3(b, v);
	sb_printf(b, " %s", unit[u]);
}

static void human_bytes(struct sbuf *b, int64_t n)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v;
	int u = 0;

	if (n > -1024 && n < 1024) {
		sb_printf(b, "%" PRId64 " B", n);
		return;
	}
	v = fabs((double)n) / 1024;
	while (v >= 1023.5 && u < 5) {
		v /= 1024;
		u++;
	}
	if (n < 0)
		sb_puts(b, "-");
	if (v >= 99.95)
		put_num(b, "%.0f", v);
	else
		put_num(b, "%.1f", v);
	sb_printf(b, " %s", unit[u]);
}

/* NaN and infinities, which no humanized form covers. */
static bool put_nonfinite(struct sbuf *b, double v)
{
	if (isnan(v))
		sb_puts(b, "-");
	else if (isinf(v))
		sb_puts(b, v < 0 ? "-inf" : "inf");
	else
		return false;
	return true;
}

static void human_f64(struct sbuf *b, double v)
{
	if (put_nonfinite(b, v))
		return;
	if (fabs(v) >= 1000 && fabs(v) < 1e15)
		put_num(b, "%.0f", v);
	else
		put_num(b, "%.3g", v);
}

static void human_pct(struct sbuf *b, double pct)
{
	if (put_nonfinite(b, pct))
		return;
	put_num(b, "%.1f", pct);
	sb_puts(b, "%");
}

char *xp_text_cell(const struct xp_cell *c)
{
	struct sbuf b = {0};

	switch (c->type) {
	case XP_T_NULL:
		sb_puts(&b, "-");
		break;
	case XP_T_STR:
		escape_into(&b, c->v.s ? c->v.s : "");
		break;
	case XP_T_INT:
	case XP_T_ID:
		sb_printf(&b, "%" PRId64, c->v.i);
		break;
	case XP_T_UINT:
		sb_printf(&b, "%" PRIu64, c->v.u);
		break;
	case XP_T_F64:
		human_f64(&b, c->v.d);
		break;
	case XP_T_BOOL:
		sb_puts(&b, c->v.b ? "yes" : "no");
		break;
	case XP_T_DUR:
		human_dur(&b, c->v.i);
		break;
	case XP_T_BYTES:
		human_bytes(&b, c->v.i);
		break;
	case XP_T_PCT:
		human_pct(&b, c->v.d);
		break;
	case XP_T_FRAC:
		human_pct(&b, c->v.d * 100);
		break;
	}
	return sb_take(&b);
}

/* A FLOP rate (key *_gflop_per_s, GFLOP/s) scaled as bytes and durations are: "125.3 TFLOP/s". */
static void human_gflops(struct sbuf *b, double g)
{
	static const char *const unit[] = {"GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s"};
	double v = fabs(g);
	int u = 0;

	if (put_nonfinite(b, g))
		return;
	while (v >= 999.95 && u < 3) {
		v /= 1000;
		u++;
	}
	if (g < 0)
		sb_puts(b, "-");
	put_num(b, v > 0 && v < 0.05 ? "%.2g" : "%.1f", v);
	sb_printf(b, " %s", unit[u]);
}

char *xp_text_value(const char *key, const struct xp_cell *c)
{
	size_t n = key ? strlen(key) : 0, sl = sizeof "_gflop_per_s" - 1;
	if (c->type != XP_T_F64 || n < sl || strcmp(key + n - sl, "_gflop_per_s"))
		return xp_text_cell(c);
	struct sbuf b = {0};
	human_gflops(&b, c->v.d);
	return sb_take(&b);
}

char *xp_read_line(const struct xp_report *rep)
{
	struct sbuf b = {0};
	uint64_t bytes = 0;
	bool one_run = true;
	for (size_t i = 0; i < rep->n_captures; i++) {
		bytes += rep->captures[i].bytes;
		one_run &= !strcmp(rep->captures[i].run, rep->captures[0].run);
	}
	sb_puts(&b, "Read: ");
	if (one_run && strcmp(rep->captures[0].run, ".")) {
		sb_puts(&b, "run ");
		escape_into(&b, rep->captures[0].run);
		sb_puts(&b, ", ");
	}
	sb_printf(&b, "%zu file%s, ", rep->n_captures, rep->n_captures == 1 ? "" : "s");
	human_bytes(&b, (int64_t)(bytes > INT64_MAX ? INT64_MAX : bytes));
	sb_puts(&b, ":");
	for (size_t i = 0; i < rep->n_captures; i++) {
		sb_puts(&b, i ? ", " : " ");
		if (!one_run) {
			escape_into(&b, rep->captures[i].run);
			sb_puts(&b, "/");
		}
		escape_into(&b, rep->captures[i].name);
	}
	return sb_take(&b);
}

/* --- sections --- */

static void put_spaces(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

static void put_sgr(FILE *f, bool color, const char *sgr, const char *s)
{
	if (color)
		fprintf(f, "%s%s%s", sgr, s, SGR_RESET);
	else
		fputs(s, f);
}

/* Escaped s, wrapped to o->width when there is one. */
static char *escaped_fit(const char *s, const struct xp_out_opts *o, size_t col, const char *indent)
{
	char *e = escaped(s);
	char *w;

	if (!o->width || col + text_width(e) <= o->width)
		return e;
	w = wrapped(e, o->width, col, indent);
	free(e);
	return w;
}

static void write_verdict(FILE *f, const struct xp_result *r, const struct xp_out_opts *o)
{
	char *v = escaped_fit(r->verdict, o, 0, "");

	put_sgr(f, o->color, SGR_BOLD, v);
	fputc('\n', f);
	free(v);
}

static void write_summary(FILE *f, const struct xp_result *r, const struct xp_out_opts *o)
{
	size_t i, width = 0;

	for (i = 0; i < r->n_summary; i++) {
		char *l = escaped(r->summary[i].label);
		size_t w = text_width(l);

		if (w > width)
			width = w;
		free(l);
	}
	for (i = 0; i < r->n_summary; i++) {
		char *l = escaped(r->summary[i].label);
		char *v = xp_text_value(r->summary[i].key, &r->summary[i].value);

		fprintf(f, "%s:", l);
		if (o->width && width + 2 + text_width(v) > o->width) {
			size_t room = o->width > width + 2 + 12 ? o->width - width - 2 : 12;
			char *cut = ellipsize(v, room);

			free(v);
			v = cut;
		}
		if (*v) {
			put_spaces(f, width - text_width(l) + 1);
			fputs(v, f);
		}
		fputc('\n', f);
		free(l);
		free(v);
	}
}

static bool col_right(const struct xp_col *c)
{
	return (c->flags & XP_COL_TEXT_RIGHT) || (c->type != XP_T_STR && c->type != XP_T_BOOL &&
						  c->type != XP_T_NULL);
}

/* The texts of the shown rows of a table, laid out for printing. */
struct grid {
	size_t n_vis, n_rows;
	size_t n_show;      /* columns printed: those with show[j] */
	bool *show;
	size_t *vis;        /* table column of each shown column */
	size_t *width;      /* widest text per shown column */
	char **head;        /* n_vis headers */
	/* The n_rows * n_vis texts, row after row, each ended by its NUL: one buffer and no pointer or allocation
	 * per cell (a steps table of a million rows has 17 million), read back in the same order when printed. */
	char *texts;
	size_t used, cap;
};

static void grid_keep(struct grid *g, const char *s)
{
	size_t n = strlen(s) + 1;
	if (g->cap - g->used < n) {
		g->cap = (g->cap + n) * 2;
		g->texts = xrealloc(g->texts, g->cap);
	}
	memcpy(g->texts + g->used, s, n);
	g->used += n;
}

static void grid_fill(struct grid *g, const struct xp_table *t, size_t rows)
{
	size_t c, j, row;

	g->vis = xcalloc(t->n_cols, sizeof(*g->vis));
	xp_table_settle_hidden(t);
	for (c = 0; c < t->n_cols; c++)
		if (!(t->cols[c].flags & XP_COL_TEXT_HIDDEN))
			g->vis[g->n_vis++] = c;
	g->n_rows = rows;
	g->width = xcalloc(g->n_vis, sizeof(*g->width));
	g->head = xcalloc(g->n_vis, sizeof(*g->head));
	for (j = 0; j < g->n_vis; j++) {
		g->head[j] = escaped(t->cols[g->vis[j]].header);
		g->width[j] = text_width(g->head[j]);
	}
	for (row = 0; row < rows; row++)
		for (j = 0; j < g->n_vis; j++) {
			char *s = xp_text_value(t->cols[g->vis[j]].key, xp_table_cell(t, row, g->vis[j]));
			size_t w = text_width(s);

			grid_keep(g, s);
			free(s);
			if (w > g->width[j])
				g->width[j] = w;
		}
	g->n_show = g->n_vis;
	g->show = xcalloc(g->n_vis ? g->n_vis : 1, sizeof(*g->show));
	for (j = 0; j < g->n_vis; j++)
		g->show[j] = true;
}

/* Other text columns are shortened down to this width before columns are left out... */
#define MIN_TEXT_COL 16
/* ... and the widest text column (the name the table is about) to this. */
#define MIN_NAME_COL 36

static size_t widest_text(const struct grid *g, const struct xp_table *t)
{
	size_t k, widest = SIZE_MAX;

	for (k = 0; k < g->n_vis; k++)
		if (!col_right(&t->cols[g->vis[k]]) && (widest == SIZE_MAX || g->width[k] > g->width[widest]))
			widest = k;
	return widest;
}

static size_t grid_line_width(const struct grid *g, bool at_min, const struct xp_table *t)
{
	size_t w = strlen(INDENT), j, done = 0, name = widest_text(g, t);

	for (j = 0; j < g->n_vis; j++) {
		size_t cw = g->width[j], min = j == name ? MIN_NAME_COL : MIN_TEXT_COL;

		if (!g->show[j])
			continue;
		if (at_min && !col_right(&t->cols[g->vis[j]]) && cw > min)
			cw = min;
		w += cw + (done++ ? strlen(COL_GAP) : 0);
	}
	return w;
}

/* Is column j one a narrow table must keep: the first two (a rank or key and
 * what follows it), the widest text (the name), the first number and a last
 * one (the main figures)? */
static bool keep_column(const struct grid *g, const struct xp_table *t, size_t j)
{
	size_t k, first_num = SIZE_MAX;

	for (k = 1; k < g->n_vis && first_num == SIZE_MAX; k++)
		if (col_right(&t->cols[g->vis[k]]))
			first_num = k;
	return j < 2 || j == widest_text(g, t) || j == first_num ||
	       (j + 1 == g->n_vis && col_right(&t->cols[g->vis[j]]));
}

/* The column to leave out next: the rightmost that need not stay, or
 * SIZE_MAX when none can go. */
static size_t column_to_drop(const struct grid *g, const struct xp_table *t)
{
	size_t j;

	for (j = g->n_vis; j-- > 0;)
		if (g->show[j] && !keep_column(g, t, j))
			return j;
	return SIZE_MAX;
}

/* Fit the grid in width: numbers are never cut; text columns give up their
 * middles, widest first; columns that still do not fit are left out (CSV
 * and JSON hold them). */
static void grid_fit(struct grid *g, const struct xp_table *t, size_t width)
{
	size_t j, total;

	if (!width || grid_line_width(g, false, t) <= width)
		return;
	while (grid_line_width(g, true, t) > width) {
		size_t d = column_to_drop(g, t);

		if (d == SIZE_MAX)
			break;
		g->show[d] = false;
		g->n_show--;
	}
	for (total = grid_line_width(g, false, t); total > width; total--) {
		size_t best = SIZE_MAX;

		for (j = 0; j < g->n_vis; j++)
			if (g->show[j] && !col_right(&t->cols[g->vis[j]]) && g->width[j] > MIN_TEXT_COL &&
			    (best == SIZE_MAX || g->width[j] > g->width[best]))
				best = j;
		if (best == SIZE_MAX)
			break;
		g->width[best]--;
	}
	/* The cells wider than their column are shortened as they are printed (grid_row). */
	for (j = 0; j < g->n_vis; j++) {
		char *h = ellipsize(g->head[j], g->width[j]);

		free(g->head[j]);
		g->head[j] = h;
	}
}

static void grid_free(struct grid *g)
{
	size_t i;

	for (i = 0; i < g->n_vis; i++)
		free(g->head[i]);
	free(g->texts);
	free(g->head);
	free(g->width);
	free(g->vis);
	free(g->show);
}

static void grid_line(FILE *f, const struct grid *g, const struct xp_table *t, char *const *texts)
{
	size_t j;

	size_t done = 0;

	fputs(INDENT, f);
	for (j = 0; j < g->n_vis; j++) {
		size_t pad = g->width[j] - text_width(texts[j]);
		bool last = done + 1 == g->n_show;

		if (!g->show[j])
			continue;
		if (done++)
			fputs(COL_GAP, f);
		if (col_right(&t->cols[g->vis[j]])) {
			put_spaces(f, pad);
			fputs(texts[j], f);
		} else {
			fputs(texts[j], f);
			if (!last)
				put_spaces(f, pad);
		}
	}
	fputc('\n', f);
}

/* The row whose texts start at AT, each shortened to its column's width (TEXTS and CUT: n_vis slots each; CUT
 * says which text was shortened, to free); returns where the next row's start. */
static const char *grid_row(FILE *f, const struct grid *g, const struct xp_table *t, const char *at, char **texts,
			    bool *cut)
{
	for (size_t j = 0; j < g->n_vis; j++) {
		size_t n = strlen(at);
		cut[j] = text_width(at) > g->width[j];
		texts[j] = cut[j] ? ellipsize(at, g->width[j]) : (char *)at;
		at += n + 1;
	}
	grid_line(f, g, t, texts);
	for (size_t j = 0; j < g->n_vis; j++)
		if (cut[j])
			free(texts[j]);
	return at;
}

/* Rows shown: --top or the table's own limit, else a screenful when fitting a width. */
size_t xp_text_rows(const struct xp_table *t, const struct xp_out_opts *o)
{
	size_t limit = o->text_rows ? o->text_rows : t->text_limit;

	if (!limit && o->width && !o->wide)
		limit = XP_TEXT_FIT_ROWS;
	if (o->max_rows && (!limit || limit > o->max_rows))
		limit = o->max_rows;
	return limit;
}

static void write_table(FILE *f, const struct xp_table *t, const struct xp_out_opts *o)
{
	size_t limit = xp_text_rows(t, o);
	size_t shown = limit && t->n_rows > limit ? limit : t->n_rows;
	struct grid g = {0};
	char *s;
	size_t row;

	s = escaped(t->title);
	if (o->width && text_width(s) > o->width) {
		char *e = ellipsize(s, o->width);

		free(s);
		s = e;
	}
	fprintf(f, "%s\n", s);
	free(s);
	grid_fill(&g, t, shown);
	grid_fit(&g, t, o->width);
	if (!t->n_rows || !g.n_vis) {
		fputs(INDENT "(no rows)\n", f);
	} else {
		char **texts = xcalloc(g.n_vis, sizeof *texts);
		bool *cut = xcalloc(g.n_vis, sizeof *cut);
		const char *at = g.texts;

		grid_line(f, &g, t, g.head);
		for (row = 0; row < shown; row++)
			at = grid_row(f, &g, t, at, texts, cut);
		free(texts);
		free(cut);
	}
	if (shown < t->n_rows) {
		size_t more = t->n_rows - shown;

		if (o->width)
			fprintf(f, INDENT ELLIPSIS " %zu more row%s (--top N, --wide or --format csv for all)\n", more,
				more == 1 ? "" : "s");
		else
			fprintf(f, INDENT ELLIPSIS " %zu more row%s (use --format csv or json for all)\n", more,
				more == 1 ? "" : "s");
	}
	if (g.n_show < g.n_vis) {
		size_t more = g.n_vis - g.n_show;

		fprintf(f, INDENT ELLIPSIS " %zu more column%s (--wide or --format csv)\n", more, more == 1 ? "" : "s");
	}
	if (t->text_note && *t->text_note) {
		s = escaped_fit(t->text_note, o, strlen(INDENT), INDENT);
		fprintf(f, INDENT "%s\n", s);
		free(s);
	}
	grid_free(&g);
}

static const char *severity_sgr(enum xp_severity s)
{
	switch (s) {
	case XP_SEV_ERROR:
		return SGR_RED;
	case XP_SEV_WARNING:
		return SGR_YELLOW;
	case XP_SEV_INFO:
		break;
	}
	return SGR_CYAN;
}

static void write_diag(FILE *f, const struct xp_diag *d, const struct xp_out_opts *o)
{
	char *msg = escaped(d->message);

	size_t col = strlen(xp_severity_name(d->severity)) + 2;

	put_sgr(f, o->color, severity_sgr(d->severity), xp_severity_name(d->severity));
	fputs(": ", f);
	if (d->host) {
		char *h = escaped(d->host);

		fprintf(f, "%s: ", h);
		col += text_width(h) + 2;
		free(h);
	}
	if (o->width) {
		free(msg);
		msg = escaped_fit(d->message, o, col, INDENT);
	}
	fprintf(f, "%s\n", msg);
	free(msg);
	if (d->hint) {
		char *h = escaped_fit(d->hint, o, strlen(INDENT "hint: "), INDENT "      ");

		fprintf(f, INDENT "hint: %s\n", h);
		free(h);
	}
}

static int text_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e)
{
	static const struct xp_out_opts defaults;
	bool started = false;
	size_t i;

	if (!o)
		o = &defaults;
	if (o->table) {
		/* --table: that table alone, as in CSV. */
		const struct xp_table *t = xp_result_table(r, o->table);

		if (!t)
			return xp_out_no_table(r, o->table, e);
		write_table(f, t, o);
		return 0;
	}
	if (r->verdict) {
		write_verdict(f, r, o);
		started = true;
	}
	if (o->provenance && !o->no_read_line && o->provenance->n_captures) {
		char *line = xp_read_line(o->provenance);
		/* Too wide: the run, count and size stay whole, the file list is shortened in the middle. */
		char *list = strstr(line + 5, ": ");
		size_t head = list ? (size_t)(list - line) + 2 : 0;
		char *fit = NULL;
		if (o->width && text_width(line) > o->width && head) {
			line[head - 1] = 0;
			size_t hw = text_width(line) + 1;
			fit = ellipsize(line + head, o->width > hw + 12 ? o->width - hw : 12);
			fprintf(f, "%s %s\n", line, fit);
		} else {
			fputs(line, f);
			fputc('\n', f);
		}
		free(fit);
		free(line);
		started = true;
	}
	if (r->n_summary) {
		if (started)
			fputc('\n', f);
		write_summary(f, r, o);
		started = true;
	}
	for (i = 0; i < r->n_tables; i++) {
		if (started)
			fputc('\n', f);
		write_table(f, r->tables[i], o);
		if (o->charts)
			xp_text_charts(r, r->tables[i], f, o);
		started = true;
	}
	if (r->n_diags && started)
		fputc('\n', f);
	for (i = 0; i < r->n_diags; i++)
		write_diag(f, &r->diags[i], o);
	return 0;
}

const struct xp_writer xp_writer_text = {
	.name = "text",
	.description = "aligned tables with humanized units, for reading",
	.write = text_write,
};
