/* chart.c - the fixed step-category palette, and the text charts: a stacked bar per step (steps), the step-time sparkline (overview). */
#include "out.h"
#include "svg.h"
#include "formats/core/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The palette (xpstat-report(1) lists it): one colour per category of the
 * step-time breakdown, the same in HTML, SVG and the terminal, in the order
 * the bars stack from the bottom (left in text). Cells without colour tell
 * the categories apart by their glyph: Unicode shades and blocks when the
 * locale is UTF-8, ASCII otherwise.
 */
const struct xp_category xp_categories[XP_N_CATEGORIES] = {
	{"device_compute", "#4e79a7", 67, "\xe2\x96\x88", "#"},          /* blue, full block */
	{"device_to_device", "#76b7b2", 109, "\xe2\x96\x93", "="},       /* teal, dark shade */
	{"device_collectives", "#b07aa1", 139, "\xe2\x96\x92", "%"},     /* purple, medium shade */
	{"host_compute", "#59a14f", 71, "\xe2\x96\x91", "h"},            /* green, light shade */
	{"kernel_launch", "#edc948", 221, "\xe2\x96\x84", "k"},          /* yellow, lower half */
	{"input", "#e15759", 167, "\xe2\x96\x80", "i"},                  /* red, upper half */
	{"output", "#f28e2b", 208, "\xe2\x96\x8c", "o"},                 /* orange, left half */
	{"compilation", "#9c755f", 137, "\xe2\x96\x90", "c"},            /* brown, right half */
	{"all_others", "#bab0ac", 249, "\xc2\xb7", "."},                 /* grey, middle dot */
};

/* Sparkline levels, low to high. */
static const char *const spark_utf8[] = {"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
					 "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"};
static const char *const spark_ascii[] = {"_", ".", ",", "-", "=", "+", "*", "#"};

static size_t col_index(const struct xp_table *t, const char *key)
{
	for (size_t j = 0; j < t->n_cols; j++)
		if (!strcmp(t->cols[j].key, key))
			return j;
	return SIZE_MAX;
}

static int64_t dur_at(const struct xp_table *t, size_t row, size_t col)
{
	const struct xp_cell *c;

	if (col == SIZE_MAX)
		return 0;
	c = xp_table_cell(t, row, col);
	return c->type == XP_T_DUR && c->v.i > 0 ? c->v.i : 0;
}

static void put_glyph(FILE *f, const struct xp_out_opts *o, size_t k, size_t n)
{
	if (!n)
		return;
	if (o->color)
		fprintf(f, "\033[38;5;%dm", xp_categories[k].ansi);
	while (n--)
		fputs(o->utf8 ? xp_categories[k].utf8 : xp_categories[k].ascii, f);
	if (o->color)
		fputs("\033[0m", f);
}

/* The step table's category columns ("<key>_ms"), SIZE_MAX where absent. */
static void category_cols(const struct xp_table *t, size_t *cols)
{
	char key[64];

	for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
		snprintf(key, sizeof key, "%s_ms", xp_categories[k].key);
		cols[k] = col_index(t, key);
	}
}

/* "# Device compute  = ..." for the categories the shown steps have, wrapped to the width. */
static void put_legend(FILE *f, const struct xp_table *t, const size_t *cols, const bool *used,
		       const struct xp_out_opts *o)
{
	size_t width = o->width ? o->width : 80, col = 2;

	fputs("  ", f);
	for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
		if (!used[k])
			continue;
		char *label = xp_text_escape(t->cols[cols[k]].header);
		size_t w = strlen(label) + 2;
		if (col > 2 && col + 2 + w > width) {
			fputs("\n  ", f);
			col = 2;
		} else if (col > 2) {
			fputs("  ", f);
			col += 2;
		}
		put_glyph(f, o, k, 1);
		fprintf(f, " %s", label);
		col += w;
		free(label);
	}
	fputs("\n", f);
}

/* One line per shown step: its label, the bar (the longest step fills it), its time. */
static void step_bars(const struct xp_table *t, FILE *f, const struct xp_out_opts *o)
{
	size_t cols[XP_N_CATEGORIES], c_time = col_index(t, "step_time_ms"), c_step = col_index(t, "step"),
	       c_host = col_index(t, "host");
	size_t rows = xp_text_rows(t, o);
	bool used[XP_N_CATEGORIES] = {false}, hosts = false;
	int64_t max = 0;

	if (c_time == SIZE_MAX || c_step == SIZE_MAX || !t->n_rows)
		return;
	category_cols(t, cols);
	if (!rows || rows > t->n_rows)
		rows = t->n_rows;
	for (size_t i = 0; i < rows; i++) {
		int64_t v = dur_at(t, i, c_time);
		max = v > max ? v : max;
		const struct xp_cell *h = c_host == SIZE_MAX ? NULL : xp_table_cell(t, i, c_host);
		const struct xp_cell *h0 = c_host == SIZE_MAX ? NULL : xp_table_cell(t, 0, c_host);
		if (h && h->type == XP_T_STR && h0->type == XP_T_STR && strcmp(h->v.s, h0->v.s))
			hosts = true;
		for (size_t k = 0; k < XP_N_CATEGORIES; k++)
			used[k] |= dur_at(t, i, cols[k]) > 0;
	}
	/* Labels: the step number, with its host when there are several. */
	char **label = xcalloc(rows, sizeof *label);
	char **time = xcalloc(rows, sizeof *time);
	size_t lw = 0, tw = 0, width = o->width ? o->width : 80;
	/* The step names text shows ("train 10") when they are short, else the step numbers. */
	size_t c_name = col_index(t, "step_name");
	for (size_t i = 0; c_name != SIZE_MAX && i < rows; i++) {
		const struct xp_cell *c = xp_table_cell(t, i, c_name);
		if (c->type != XP_T_STR || !*c->v.s || strlen(c->v.s) > 20)
			c_name = SIZE_MAX;
	}
	if (c_name != SIZE_MAX)
		c_step = c_name;
	for (size_t i = 0; i < rows; i++) {
		char *step = xp_text_cell(xp_table_cell(t, i, c_step));
		if (hosts) {
			char *h = xp_text_cell(xp_table_cell(t, i, c_host));
			if (asprintf(&label[i], "%s %s", h, step) < 0)
				xp_oom();
			free(h);
			free(step);
		} else {
			label[i] = step;
		}
		time[i] = xp_svg_dur(dur_at(t, i, c_time));
		lw = strlen(label[i]) > lw ? strlen(label[i]) : lw;
		tw = strlen(time[i]) > tw ? strlen(time[i]) : tw;
	}
	size_t bar = width > lw + tw + 8 + 10 ? width - lw - tw - 8 : 10;
	fputs("\nStep time by category (one line per step)\n", f);
	for (size_t i = 0; i < rows; i++) {
		fprintf(f, "  %-*s ", (int)lw, label[i]);
		/* Cumulative rounding: the segments add up to the bar of the step time. */
		int64_t cum = 0;
		size_t at = 0;
		for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
			cum += dur_at(t, i, cols[k]);
			size_t end = max ? (size_t)llround((double)cum / (double)max * (double)bar) : 0;
			end = end > bar ? bar : end;
			if (end > at)
				put_glyph(f, o, k, end - at);
			at = end > at ? end : at;
		}
		fprintf(f, "%*s  %s\n", (int)(bar - at), "", time[i]);
		free(label[i]);
		free(time[i]);
	}
	free(label);
	free(time);
	put_legend(f, t, cols, used, o);
}

/* Overview: "Step time: ▁▂█▅ (min 507 us, max 537 us, 10 steps)", the steps bucketed (each cell its
 * bucket's longest step) so that the line fits the width. */
static void sparkline(const struct xp_result *r, FILE *f, const struct xp_out_opts *o)
{
	size_t n = r->n_spark, width = o->width ? o->width : 80;
	size_t cells = width > 20 ? width - 14 : 6;
	int64_t lo = INT64_MAX, hi = 0;

	if (!n)
		return;
	cells = n < cells ? n : cells;
	for (size_t i = 0; i < n; i++) {
		lo = r->spark_ps[i] < lo ? r->spark_ps[i] : lo;
		hi = r->spark_ps[i] > hi ? r->spark_ps[i] : hi;
	}
	fputs("\nStep time per step  ", f);
	for (size_t c = 0; c < cells; c++) {
		size_t first = c * n / cells, end = (c + 1) * n / cells;
		int64_t v = 0;
		for (size_t i = first; i < end; i++)
			v = r->spark_ps[i] > v ? r->spark_ps[i] : v;
		int level = hi > lo ? (int)llround((double)(v - lo) / (double)(hi - lo) * 7) : 3;
		fputs(o->utf8 ? spark_utf8[level] : spark_ascii[level], f);
	}
	char *a = xp_svg_dur(lo), *b = xp_svg_dur(hi);
	fprintf(f, "\n  min %s, max %s, %zu step%s%s\n", a, b, n, n == 1 ? "" : "s",
		cells < n ? "; each cell the longest of its steps" : "");
	free(a);
	free(b);
}

void xp_text_charts(const struct xp_result *r, const struct xp_table *t, FILE *f, const struct xp_out_opts *o)
{
	if (!strcmp(r->command, "steps") && !strcmp(t->name, "steps"))
		step_bars(t, f, o);
	else if (!strcmp(r->command, "overview") && !strcmp(t->name, "step_time"))
		sparkline(r, f, o);
}
