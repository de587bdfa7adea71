/* out_html.c - the HTML writer: one self-contained page (no request of any kind) with inline SVG charts drawn here, each table below its chart (report, compare). */
#include "out_html.h"
#include "svg.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * The page (xpstat-report(1) lists its sections and colours):
 * - one file: the style and a few lines of script inline, no font, image,
 *   link or URL, and a Content-Security-Policy that forbids every request
 *   and every script but the page's own (by its hash);
 * - the verdict and the recommendations first, then each analysis: its
 *   verdict, summary, charts, each table below its chart (the top rows, as
 *   text shows them, with the count of the rest; sortable by a click on a
 *   column heading when scripting is on, plain tables when it is off), and
 *   its diagnostics;
 * - every string from a capture goes through xp_html_put: made terminal-safe
 *   as text shows it, then escaped, so a hostile name is text, never markup;
 * - the same bytes for the same input: no time stamps, numbers in the C
 *   locale with fixed precision;
 * - its size grows with the steps, allocators and rows shown, never with the
 *   events: more than STEP_BARS steps of a host are drawn as STEP_BARS bars
 *   (each the mean of its steps), the memory timeline comes sampled (memory
 *   --points), bar charts show the top PARETO_BARS rows.
 */

#define CHART_W 960.0
#define CHART_H 240.0
#define PAD_L 80.0     /* room for the value axis */
#define PAD_B 28.0     /* room for the step axis */
#define PAD_T 10.0
#define STEP_BARS 600
#define PARETO_BARS 20
#define TABLE_ROWS 20  /* as report text shows (XP_TEXT_REPORT_ROWS) */
#define BAR_H 18.0
#define LABEL_W 300.0

/* The sorting script; its SHA-256 (base64) is in the page's Content-Security-Policy, so no other script
 * can run. Change both together (the browser suite fails on a mismatch: the script is refused). */
static const char sort_script[] =
	"for(const t of document.querySelectorAll('table.sortable')){"
	"t.querySelectorAll('th').forEach((h,i)=>{h.tabIndex=0;h.addEventListener('click',()=>{"
	"const b=t.tBodies[0],up=h.dataset.dir!=='asc';"
	"t.querySelectorAll('th').forEach(x=>delete x.dataset.dir);h.dataset.dir=up?'asc':'desc';"
	"const k=r=>{const c=r.cells[i];return c.dataset.v===undefined?null:c.dataset.v};"
	"[...b.rows].sort((p,q)=>{const x=k(p),y=k(q);let d;"
	"if(x!==null&&y!==null)d=x-y;else if(x===null&&y===null)d=p.cells[i].textContent.localeCompare(q.cells[i].textContent);"
	"else d=x===null?-1:1;return up?d:-d}).forEach(r=>b.appendChild(r))})})}";
#define SORT_SCRIPT_SHA256 "sha256-551P1Yo1snti9NaeFOETfFsKs/IxcUagHS20I6ATxD8="

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1000px;color:#222;padding:0 1em}"
	"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.05em}"
	".verdict{font-weight:bold}table{border-collapse:collapse;margin:.5em 0;font-size:13px}"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f4f4f4;cursor:pointer}"
	"th[data-dir=asc]::after{content:' \\25b2'}th[data-dir=desc]::after{content:' \\25bc'}"
	"svg.chart{max-width:100%;height:auto;display:block;font-size:11px}svg text{fill:#333}"
	".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:12px}"
	".legend span{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em}"
	".more,.note{color:#555;font-size:12px}.error{color:#b00}.warning{color:#a60}"
	"td{max-width:40em;overflow-wrap:anywhere}";

/* --- small helpers ------------------------------------------------------------------------------- */

static char *dup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		xp_oom();
	return d;
}

static size_t col_of(const struct xp_table *t, const char *key)
{
	for (size_t j = 0; j < t->n_cols; j++)
		if (!strcmp(t->cols[j].key, key))
			return j;
	return SIZE_MAX;
}

/* A duration, percentage, number or byte cell as a double (picoseconds for durations), 0 when empty. */
static double num_at(const struct xp_table *t, size_t row, size_t col)
{
	if (col == SIZE_MAX)
		return 0;
	const struct xp_cell *c = xp_table_cell(t, row, col);
	switch (c->type) {
	case XP_T_INT: case XP_T_DUR: case XP_T_BYTES: case XP_T_ID: return (double)c->v.i;
	case XP_T_UINT: return (double)c->v.u;
	case XP_T_F64: case XP_T_PCT: case XP_T_FRAC: return isfinite(c->v.d) ? c->v.d : 0;
	default: return 0;
	}
}

static const char *str_at(const struct xp_table *t, size_t row, size_t col)
{
	if (col == SIZE_MAX)
		return "";
	const struct xp_cell *c = xp_table_cell(t, row, col);
	return c->type == XP_T_STR && c->v.s ? c->v.s : "";
}

/* The cell as text shows it, malloc'd ("" for a missing column). */
static char *text_at(const struct xp_table *t, size_t row, size_t col)
{
	return col == SIZE_MAX ? dup("") : xp_text_cell(xp_table_cell(t, row, col));
}

__attribute__((format(printf, 1, 2)))
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		xp_oom();
	va_end(ap);
	return s;
}

/* "<key>_<suffix>" of category K, e.g. device_compute_ms. */
static size_t category_col(const struct xp_table *t, size_t k, const char *suffix)
{
	char key[64];
	snprintf(key, sizeof key, "%s%s", xp_categories[k].key, suffix);
	return col_of(t, key);
}

static void legend(FILE *f, const struct xp_table *t, const bool *used, const char *suffix)
{
	fputs("<ul class=\"legend\">", f);
	for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
		if (!used[k])
			continue;
		fprintf(f, "<li><span style=\"background:%s\"></span>", xp_categories[k].color);
		xp_html_put(f, t->cols[category_col(t, k, suffix)].header);
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static char *pct_label(int64_t v)
{
	return fmt("%" PRId64 "%%", v);
}

/* The value axis of a vertical chart: 0, half and the top, humanized by FMT_V. */
static void value_axis(FILE *f, double top, char *(*fmt_v)(int64_t))
{
	double plot_h = CHART_H - PAD_T - PAD_B;
	for (int i = 0; i <= 2; i++) {
		double y = PAD_T + plot_h * (1 - i / 2.0);
		char *s = fmt_v((int64_t)llround(top * i / 2.0));
		xp_svg_text(f, PAD_L - 6, y + 4, "end", s);
		fputs("<line stroke=\"#ddd\" x1=\"", f);
		xp_svg_num(f, PAD_L);
		fputs("\" x2=\"", f);
		xp_svg_num(f, CHART_W);
		fputs("\" y1=\"", f);
		xp_svg_num(f, y);
		fputs("\" y2=\"", f);
		xp_svg_num(f, y);
		fputs("\"/>\n", f);
		free(s);
	}
}

/* The hosts of a table with a "host" column, in order of first appearance. */
struct hosts {
	size_t n;
	const char **name;
};

static void hosts_of(const struct xp_table *t, struct hosts *h)
{
	size_t c = col_of(t, "host");
	h->n = 0;
	h->name = xcalloc(t->n_rows + 1, sizeof *h->name);
	for (size_t i = 0; i < t->n_rows; i++) {
		const char *s = str_at(t, i, c);
		size_t k = 0;
		while (k < h->n && strcmp(h->name[k], s))
			k++;
		if (k == h->n)
			h->name[h->n++] = s;
	}
}

/* --- step-time graph: a stacked bar per step by category, per host -------------------------------- */

struct step_bar {
	double cat[XP_N_CATEGORIES], total;   /* picoseconds: the mean of the bar's steps */
	size_t first, last;                   /* rows of its first and last step */
	size_t n;
};

/* The bars of HOST: one per step, or STEP_BARS bars of consecutive steps (their means). */
static size_t step_bars(const struct xp_table *t, const char *host, struct step_bar **out)
{
	size_t c_host = col_of(t, "host"), c_time = col_of(t, "step_time_ms"), n = 0, cols[XP_N_CATEGORIES];
	for (size_t k = 0; k < XP_N_CATEGORIES; k++)
		cols[k] = category_col(t, k, "_ms");
	size_t *rows = xcalloc(t->n_rows + 1, sizeof *rows);
	for (size_t i = 0; i < t->n_rows; i++)
		if (!strcmp(str_at(t, i, c_host), host))
			rows[n++] = i;
	size_t nb = n > STEP_BARS ? STEP_BARS : n;
	struct step_bar *b = xcalloc(nb + 1, sizeof *b);
	for (size_t j = 0; j < nb; j++) {
		size_t first = j * n / nb, end = (j + 1) * n / nb;
		b[j].first = rows[first];
		b[j].last = rows[end - 1];
		b[j].n = end - first;
		for (size_t i = first; i < end; i++) {
			b[j].total += num_at(t, rows[i], c_time) / (double)b[j].n;
			for (size_t k = 0; k < XP_N_CATEGORIES; k++)
				b[j].cat[k] += num_at(t, rows[i], cols[k]) / (double)b[j].n;
		}
	}
	free(rows);
	*out = b;
	return nb;
}

/* The column that names a step as text shows it: step_name ("train 10") when every step has one, else the
 * step number. */
static size_t step_col(const struct xp_table *t)
{
	size_t c = col_of(t, "step_name");
	for (size_t i = 0; c != SIZE_MAX && i < t->n_rows; i++)
		if (!*str_at(t, i, c))
			c = SIZE_MAX;
	return c != SIZE_MAX ? c : col_of(t, "step");
}

/* The hover text of a bar: "step train 12: 527 us" and each category's time. */
static char *step_title(const struct xp_table *t, const struct step_bar *b)
{
	size_t c_step = step_col(t);
	char *first = text_at(t, b->first, c_step), *last = text_at(t, b->last, c_step);
	char *tot = xp_svg_dur((int64_t)llround(b->total));
	char *s = b->n == 1 ? fmt("step %s: %s", first, tot)
			    : fmt("steps %s-%s: %s on average (%zu steps)", first, last, tot, b->n);
	free(first);
	free(last);
	free(tot);
	for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
		size_t c = category_col(t, k, "_ms");
		if (c == SIZE_MAX || b->cat[k] <= 0)
			continue;
		char *v = xp_svg_dur((int64_t)llround(b->cat[k]));
		char *n = fmt("%s; %s: %s", s, t->cols[c].header, v);
		free(v);
		free(s);
		s = n;
	}
	return s;
}

static void step_chart_host(FILE *f, const struct xp_table *t, const char *host, double top, bool *used)
{
	struct step_bar *b;
	size_t nb = step_bars(t, host, &b);
	double plot_w = CHART_W - PAD_L, plot_h = CHART_H - PAD_T - PAD_B, slot = nb ? plot_w / (double)nb : 0;
	double bw = slot > 3 ? slot * 0.8 : slot;
	char *label = fmt("Step time by category, host %s", host);
	xp_svg_begin(f, "step-time", CHART_W, CHART_H, label);
	free(label);
	value_axis(f, top, xp_svg_dur);
	for (size_t j = 0; j < nb; j++) {
		char *title = step_title(t, &b[j]);
		fputs("<g class=\"step\"><title>", f);
		xp_html_put(f, title);
		fputs("</title>\n", f);
		free(title);
		double y = PAD_T + plot_h, x = PAD_L + slot * (double)j + (slot - bw) / 2;
		for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
			if (b[j].cat[k] <= 0)
				continue;
			used[k] = true;
			double h = top > 0 ? b[j].cat[k] / top * plot_h : 0;
			y -= h;
			xp_svg_rect(f, "seg", x, y, bw, h, xp_categories[k].color, NULL);
		}
		fputs("</g>\n", f);
	}
	if (nb) {
		size_t c_step = step_col(t);
		char *a = text_at(t, b[0].first, c_step), *z = text_at(t, b[nb - 1].last, c_step);
		char *s = fmt("step %s", a);
		xp_svg_text(f, PAD_L, CHART_H - 8, "start", s);
		free(s);
		s = fmt("step %s", z);
		xp_svg_text(f, CHART_W, CHART_H - 8, "end", s);
		free(s);
		free(a);
		free(z);
	}
	xp_svg_end(f);
	free(b);
}

static void step_chart(FILE *f, const struct xp_table *t)
{
	struct hosts h;
	bool used[XP_N_CATEGORIES] = {false};
	size_t c_time = col_of(t, "step_time_ms");
	double top = 0;
	if (c_time == SIZE_MAX || !t->n_rows)
		return;
	for (size_t i = 0; i < t->n_rows; i++)
		top = fmax(top, num_at(t, i, c_time));
	hosts_of(t, &h);
	for (size_t k = 0; k < h.n; k++) {
		if (h.n > 1) {
			fputs("<h3>Host ", f);
			xp_html_put(f, h.name[k]);
			fputs("</h3>\n", f);
		}
		step_chart_host(f, t, h.name[k], top, used);
	}
	legend(f, t, used, "_ms");
	free(h.name);
}

/* --- input pipeline: input time per step, host breakdown ---------------------------------------- */

static void input_chart(FILE *f, const struct xp_table *t)
{
	struct hosts h;
	size_t c_in = col_of(t, "input_ms"), c_step = step_col(t), c_host = col_of(t, "host");
	double top = 0, plot_w = CHART_W - PAD_L, plot_h = CHART_H - PAD_T - PAD_B;
	if (c_in == SIZE_MAX || !t->n_rows)
		return;
	for (size_t i = 0; i < t->n_rows; i++)
		top = fmax(top, num_at(t, i, c_in));
	hosts_of(t, &h);
	for (size_t k = 0; k < h.n; k++) {
		size_t n = 0;
		for (size_t i = 0; i < t->n_rows; i++)
			n += !strcmp(str_at(t, i, c_host), h.name[k]);
		size_t nb = n > STEP_BARS ? STEP_BARS : n, j = 0, seen = 0;
		double slot = nb ? plot_w / (double)nb : 0, bw = slot > 3 ? slot * 0.8 : slot, sum = 0;
		char *label = fmt("Input time per step, host %s", h.name[k]);
		if (h.n > 1) {
			fputs("<h3>Host ", f);
			xp_html_put(f, h.name[k]);
			fputs("</h3>\n", f);
		}
		xp_svg_begin(f, "input-steps", CHART_W, CHART_H, label);
		free(label);
		value_axis(f, top, xp_svg_dur);
		for (size_t i = 0; i < t->n_rows && nb; i++) {
			if (strcmp(str_at(t, i, c_host), h.name[k]))
				continue;
			sum += num_at(t, i, c_in);
			seen++;
			/* Bar j holds the steps up to (j + 1) * n / nb, their mean. */
			if (seen < (j + 1) * n / nb)
				continue;
			size_t cnt = (j + 1) * n / nb - j * n / nb;
			double v = sum / (double)cnt, bh = top > 0 ? v / top * plot_h : 0;
			char *step = text_at(t, i, c_step), *d = xp_svg_dur((int64_t)llround(v));
			char *title = cnt == 1 ? fmt("step %s: input %s", step, d)
					       : fmt("%zu steps to step %s: input %s on average", cnt, step, d);
			xp_svg_rect(f, "bar", PAD_L + slot * (double)j + (slot - bw) / 2, PAD_T + plot_h - bh, bw, bh,
				    xp_categories[5].color, title);
			free(title);
			free(step);
			free(d);
			sum = 0;
			j++;
		}
		xp_svg_end(f);
	}
	free(h.name);
}

/* The label left of a horizontal bar at Y; a long name is cut in the middle (the table below has it
 * whole; the cut may split a UTF-8 sequence, which then shows as its escapes). */
static void row_label(FILE *f, double y, const char *lab)
{
	if (strlen(lab) > 48) {
		char *cut = fmt("%.22s\xe2\x80\xa6%s", lab, lab + strlen(lab) - 22);
		xp_svg_text(f, LABEL_W - 6, y + BAR_H - 5, "end", cut);
		free(cut);
	} else {
		xp_svg_text(f, LABEL_W - 6, y + BAR_H - 5, "end", lab);
	}
}

/* Horizontal bars: LABELS[i] and VALUES[i] (scaled to TOP), hover TITLES[i]; CHART names it. */
static void hbars(FILE *f, const char *chart, size_t n, char **labels, const double *values, double top,
		  const char *color, char **titles)
{
	double h = PAD_T + BAR_H * (double)n + 4, plot_w = CHART_W - LABEL_W - 10;
	xp_svg_begin(f, chart, CHART_W, h, chart);
	for (size_t i = 0; i < n; i++) {
		double y = PAD_T + BAR_H * (double)i, w = top > 0 ? fmax(values[i], 0) / top * plot_w : 0;
		row_label(f, y, labels[i]);
		xp_svg_rect(f, "bar", LABEL_W, y + 2, w, BAR_H - 4, color, titles[i]);
	}
	xp_svg_end(f);
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void breakdown_chart(FILE *f, const struct xp_table *t)
{
	size_t c_l = col_of(t, "label"), c_v = col_of(t, "time_us"), n = t->n_rows;
	if (c_l == SIZE_MAX || c_v == SIZE_MAX || !n)
		return;
	char **labels = xcalloc(n, sizeof *labels), **titles = xcalloc(n, sizeof *titles);
	double *v = xcalloc(n, sizeof *v), top = 0;
	for (size_t i = 0; i < n; i++) {
		char *d = text_at(t, i, c_v);
		labels[i] = dup(str_at(t, i, c_l));
		v[i] = num_at(t, i, c_v);
		top = fmax(top, v[i]);
		titles[i] = fmt("%s: %s", labels[i], d);
		free(d);
	}
	hbars(f, "input-host-breakdown", n, labels, v, top, xp_categories[5].color, titles);
	free_strs(labels, n);
	free_strs(titles, n);
	free(v);
}

/* --- Pareto bars: the top rows' share and the cumulative share ----------------------------------- */

static void pareto_chart(FILE *f, const char *chart, const struct xp_table *t, const char *name_key,
			 const char *pct_key, const char *cum_key)
{
	size_t c_n = col_of(t, name_key), c_p = col_of(t, pct_key), c_c = cum_key ? col_of(t, cum_key) : SIZE_MAX;
	size_t n = t->n_rows < PARETO_BARS ? t->n_rows : PARETO_BARS;
	double plot_w = CHART_W - PAD_L - 10, plot_h = CHART_H - PAD_T - PAD_B, slot = n ? plot_w / (double)n : 0;
	double cum = 0;
	if (c_n == SIZE_MAX || c_p == SIZE_MAX || !n)
		return;
	xp_svg_begin(f, chart, CHART_W, CHART_H, chart);
	value_axis(f, 100, pct_label);
	fputs("<polyline class=\"cumulative\" fill=\"none\" stroke=\"#e15759\" stroke-width=\"2\" points=\"", f);
	for (size_t i = 0; i < n; i++) {
		cum = c_c != SIZE_MAX ? num_at(t, i, c_c) : cum + num_at(t, i, c_p);
		if (i)
			fputc(' ', f);
		xp_svg_num(f, PAD_L + slot * ((double)i + 0.5));
		fputc(',', f);
		xp_svg_num(f, PAD_T + plot_h * (1 - fmin(cum, 100) / 100));
	}
	fputs("\"/>\n", f);
	cum = 0;
	for (size_t i = 0; i < n; i++) {
		double p = num_at(t, i, c_p), h = fmin(fmax(p, 0), 100) / 100 * plot_h;
		cum = c_c != SIZE_MAX ? num_at(t, i, c_c) : cum + p;
		char *pt = text_at(t, i, c_p);
		char cs[32];
		snprintf(cs, sizeof cs, "%.1f", cum);
		xp_c_decimal_point(cs);
		char *title = fmt("%s: %s of the time, %s%% cumulative", str_at(t, i, c_n), pt, cs);
		xp_svg_rect(f, "bar", PAD_L + slot * (double)i + slot * 0.1, PAD_T + plot_h - h, slot * 0.8, h,
			    xp_categories[0].color, title);
		free(title);
		free(pt);
	}
	char *s = fmt("top %zu by time (bars: share, line: cumulative share)", n);
	xp_svg_text(f, PAD_L, CHART_H - 8, "start", s);
	free(s);
	xp_svg_end(f);
}

/* Tensor Core share of kernel time (kernel-stats' summary). */
static void tensor_core_chart(FILE *f, const struct xp_result *r)
{
	const char *keys[] = {"tc_used_pct", "tc_eligible_pct"};
	const char *names[] = {"Kernel time on Tensor Cores", "Kernel time in Tensor-Core-eligible ops"};
	char *labels[2], *titles[2];
	double v[2] = {0, 0};
	size_t n = 0;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < r->n_summary; i++)
			if (!strcmp(r->summary[i].key, keys[k]) && r->summary[i].value.type == XP_T_PCT) {
				char *p = xp_text_cell(&r->summary[i].value);
				labels[n] = dup(names[k]);
				titles[n] = fmt("%s: %s", names[k], p);
				v[n++] = r->summary[i].value.v.d;
				free(p);
			}
	if (!n)
		return;
	fputs("<h3>Tensor Core share</h3>\n", f);
	hbars(f, "tensor-core", n, labels, v, 100, xp_categories[0].color, titles);
	for (size_t i = 0; i < n; i++) {
		free(labels[i]);
		free(titles[i]);
	}
}

/* --- memory timeline, per allocator --------------------------------------------------------------- */

struct series {
	size_t first, n;        /* rows of one allocator (consecutive in the timeline table) */
};

static void memory_polyline(FILE *f, const struct xp_table *t, const struct series *s, size_t col, double t0,
			    double span, double top, const char *cls, const char *color)
{
	size_t c_t = col_of(t, "time_ms");
	double plot_w = CHART_W - PAD_L - 40, plot_h = CHART_H - PAD_T - PAD_B;
	fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", cls, color);
	for (size_t i = 0; i < s->n; i++) {
		size_t r = s->first + i;
		if (i)
			fputc(' ', f);
		xp_svg_num(f, PAD_L + (span > 0 ? (num_at(t, r, c_t) - t0) / span * plot_w : 0));
		fputc(',', f);
		xp_svg_num(f, PAD_T + plot_h * (1 - (top > 0 ? num_at(t, r, col) / top : 0)));
	}
	fputs("\"/>\n", f);
}

/* The time of the allocator's peak in the allocators table (AT), or -1: several points may reach the peak's
 * bytes, the dot goes where the memory analysis puts the peak. */
static double peak_time(const struct xp_table *at, const char *host, const char *alc)
{
	size_t c_h = at ? col_of(at, "host") : SIZE_MAX, c_a = at ? col_of(at, "allocator") : SIZE_MAX;
	for (size_t i = 0; c_a != SIZE_MAX && i < at->n_rows; i++)
		if (!strcmp(str_at(at, i, c_h), host) && !strcmp(str_at(at, i, c_a), alc))
			return num_at(at, i, col_of(at, "peak_time_ms"));
	return -1;
}

static void memory_one(FILE *f, const struct xp_table *t, const struct xp_table *at, const struct series *s)
{
	size_t c_t = col_of(t, "time_ms"), c_use = col_of(t, "in_use_bytes"), c_frag = col_of(t, "fragmentation_pct");
	size_t c_a = col_of(t, "allocator"), c_h = col_of(t, "host"), peak = s->first;
	double t0 = num_at(t, s->first, c_t), span = num_at(t, s->first + s->n - 1, c_t) - t0, top = 0;
	double plot_w = CHART_W - PAD_L - 40, plot_h = CHART_H - PAD_T - PAD_B;
	double when = peak_time(at, str_at(t, s->first, c_h), str_at(t, s->first, c_a));
	for (size_t i = 0; i < s->n; i++) {
		double v = num_at(t, s->first + i, c_use), best = num_at(t, peak, c_use);
		if (v > best || (v == best && num_at(t, s->first + i, c_t) == when))
			peak = s->first + i;
	}
	top = num_at(t, peak, c_use);
	fputs("<h3>", f);
	xp_html_put(f, str_at(t, s->first, c_a));
	fputs(" on ", f);
	xp_html_put(f, str_at(t, s->first, c_h));
	fputs("</h3>\n", f);
	xp_svg_begin(f, "memory", CHART_W, CHART_H, "Memory in use and fragmentation over time");
	value_axis(f, top, xp_svg_bytes);
	xp_svg_text(f, CHART_W, PAD_T + 4, "end", "100%");
	xp_svg_text(f, CHART_W, PAD_T + plot_h, "end", "0%");
	memory_polyline(f, t, s, c_use, t0, span, top, "in-use", "#4e79a7");
	memory_polyline(f, t, s, c_frag, t0, span, 100, "fragmentation", "#f28e2b");
	char *b = text_at(t, peak, c_use), *at_text = text_at(t, peak, c_t);
	char *title = fmt("peak: %s in use at %s", b, at_text);
	fputs("<circle class=\"peak\" r=\"5\" fill=\"#e15759\" cx=\"", f);
	xp_svg_num(f, PAD_L + (span > 0 ? (num_at(t, peak, c_t) - t0) / span * plot_w : 0));
	fputs("\" cy=\"", f);
	xp_svg_num(f, PAD_T + plot_h * (top > 0 ? 0 : 1));
	fprintf(f, "\" data-bytes=\"%.0f\"><title>", num_at(t, peak, c_use));
	xp_html_put(f, title);
	fputs("</title></circle>\n", f);
	char *t_end = text_at(t, s->first + s->n - 1, c_t), *t_first = text_at(t, s->first, c_t);
	xp_svg_text(f, PAD_L, CHART_H - 8, "start", t_first);
	xp_svg_text(f, CHART_W - 40, CHART_H - 8, "end", t_end);
	xp_svg_end(f);
	fprintf(f, "<p class=\"note\">%zu points (blue: heap and stack in use; orange: fragmentation, right axis); ",
		s->n);
	xp_html_put(f, title);
	fputs("</p>\n", f);
	free(b);
	free(at_text);
	free(title);
	free(t_end);
	free(t_first);
}

static void memory_chart(FILE *f, const struct xp_result *r, const struct xp_table *t)
{
	const struct xp_table *at = xp_result_table(r, "allocators");
	size_t c_a = col_of(t, "allocator"), c_h = col_of(t, "host");
	if (c_a == SIZE_MAX || col_of(t, "in_use_bytes") == SIZE_MAX)
		return;
	for (size_t i = 0; i < t->n_rows;) {
		struct series s = {i, 0};
		while (i < t->n_rows && !strcmp(str_at(t, i, c_a), str_at(t, s.first, c_a)) &&
		       !strcmp(str_at(t, i, c_h), str_at(t, s.first, c_h)))
			i++, s.n++;
		memory_one(f, t, at, &s);
	}
}

/* --- pod: per-host stacked bars --------------------------------------------------------------------- */

static void pod_chart(FILE *f, const struct xp_table *t)
{
	size_t c_h = col_of(t, "host"), c_t = col_of(t, "step_time_avg_ms"), n = t->n_rows;
	bool used[XP_N_CATEGORIES] = {false};
	double top = 0, plot_w = CHART_W - LABEL_W - 10;
	if (c_h == SIZE_MAX || c_t == SIZE_MAX || !n)
		return;
	for (size_t i = 0; i < n; i++)
		top = fmax(top, num_at(t, i, c_t));
	xp_svg_begin(f, "pod", CHART_W, PAD_T + BAR_H * (double)n + 4, "Average step time by category, per host");
	for (size_t i = 0; i < n; i++) {
		double y = PAD_T + BAR_H * (double)i, x = LABEL_W;
		char *avg = text_at(t, i, c_t);
		char *title = fmt("%s: %s average step time", str_at(t, i, c_h), avg);
		free(avg);
		fputs("<g class=\"host\"><title>", f);
		xp_html_put(f, title);
		fputs("</title>\n", f);
		free(title);
		xp_svg_text(f, LABEL_W - 6, y + BAR_H - 5, "end", str_at(t, i, c_h));
		for (size_t k = 0; k < XP_N_CATEGORIES; k++) {
			double v = num_at(t, i, category_col(t, k, "_avg_ms"));
			if (v <= 0)
				continue;
			used[k] = true;
			double w = top > 0 ? v / top * plot_w : 0;
			xp_svg_rect(f, "seg", x, y + 2, w, BAR_H - 4, xp_categories[k].color, NULL);
			x += w;
		}
		fputs("</g>\n", f);
	}
	xp_svg_end(f);
	legend(f, t, used, "_avg_ms");
}

/* --- compare: side by side, and the deltas ---------------------------------------------------------- */

static void compare_step_chart(FILE *f, const struct xp_table *t)
{
	size_t c_l = col_of(t, "label"), c_b = col_of(t, "baseline_ms"), c_c = col_of(t, "candidate_ms"),
	       c_d = col_of(t, "delta_pct"), n = t->n_rows;
	double top = 0, plot_w = CHART_W - LABEL_W - 10, row_h = BAR_H * 2 + 4;
	if (c_l == SIZE_MAX || c_b == SIZE_MAX || c_c == SIZE_MAX || !n)
		return;
	for (size_t i = 0; i < n; i++)
		top = fmax(top, fmax(num_at(t, i, c_b), num_at(t, i, c_c)));
	xp_svg_begin(f, "compare-steps", CHART_W, PAD_T + row_h * (double)n + 4, "Baseline and candidate side by side");
	for (size_t i = 0; i < n; i++) {
		double y = PAD_T + row_h * (double)i;
		char *b = text_at(t, i, c_b), *c = text_at(t, i, c_c), *d = text_at(t, i, c_d);
		char *title = fmt("%s: baseline %s, candidate %s (%s)", str_at(t, i, c_l), b, c, d);
		fputs("<g class=\"metric\"><title>", f);
		xp_html_put(f, title);
		fputs("</title>\n", f);
		char *lab = fmt("%s (%s)", str_at(t, i, c_l), d);
		xp_svg_text(f, LABEL_W - 6, y + BAR_H + 2, "end", lab);
		xp_svg_rect(f, "baseline", LABEL_W, y + 1, top > 0 ? fmax(num_at(t, i, c_b), 0) / top * plot_w : 0,
			    BAR_H - 2, "#bab0ac", NULL);
		xp_svg_rect(f, "candidate", LABEL_W, y + BAR_H + 1,
			    top > 0 ? fmax(num_at(t, i, c_c), 0) / top * plot_w : 0, BAR_H - 2, "#4e79a7", NULL);
		fputs("</g>\n", f);
		free(lab);
		free(title);
		free(b);
		free(c);
		free(d);
	}
	xp_svg_end(f);
	fputs("<ul class=\"legend\"><li><span style=\"background:#bab0ac\"></span>baseline</li>"
	      "<li><span style=\"background:#4e79a7\"></span>candidate</li></ul>\n", f);
}

/* The shown rows' deltas: slower (longer) to the right in red, faster to the left in green. */
static void delta_chart(FILE *f, const char *chart, const struct xp_table *t, const char *name_key)
{
	size_t c_n = col_of(t, name_key), c_d = col_of(t, "delta_us"), n = t->n_rows < PARETO_BARS ? t->n_rows
												      : PARETO_BARS;
	double top = 0, mid = LABEL_W + (CHART_W - LABEL_W) / 2, half = (CHART_W - LABEL_W) / 2 - 10;
	if (c_n == SIZE_MAX || c_d == SIZE_MAX || !n)
		return;
	for (size_t i = 0; i < n; i++)
		top = fmax(top, fabs(num_at(t, i, c_d)));
	xp_svg_begin(f, chart, CHART_W, PAD_T + BAR_H * (double)n + 4, "Largest changes (red: slower, green: faster)");
	for (size_t i = 0; i < n; i++) {
		double v = num_at(t, i, c_d), w = top > 0 ? fabs(v) / top * half : 0, y = PAD_T + BAR_H * (double)i;
		char *d = text_at(t, i, c_d);
		char *title = fmt("%s: %s%s", str_at(t, i, c_n), v > 0 ? "+" : "", d);
		row_label(f, y, str_at(t, i, c_n));
		xp_svg_rect(f, "bar", v > 0 ? mid : mid - w, y + 2, w, BAR_H - 4, v > 0 ? "#e15759" : "#59a14f", title);
		free(title);
		free(d);
	}
	xp_svg_end(f);
}

/* The chart above table T of R, when it has one. */
static void chart_for(FILE *f, const struct xp_result *r, const struct xp_table *t)
{
	const char *c = r->command, *n = t->name;
	if (!strcmp(c, "steps") && !strcmp(n, "steps"))
		step_chart(f, t);
	else if (!strcmp(c, "input-pipeline") && !strcmp(n, "steps"))
		input_chart(f, t);
	else if (!strcmp(c, "input-pipeline") && !strcmp(n, "host_breakdown"))
		breakdown_chart(f, t);
	else if (!strcmp(c, "overview") && !strcmp(n, "top_ops"))
		pareto_chart(f, "top-ops", t, "operation", "self_time_pct", "cumulative_time_pct");
	else if (!strcmp(c, "kernel-stats") && !strcmp(n, "kernels")) {
		pareto_chart(f, "kernels", t, "kernel_name", "kernel_time_pct", NULL);
		tensor_core_chart(f, r);
	} else if (!strcmp(c, "memory") && !strcmp(n, "timeline"))
		memory_chart(f, r, t);
	else if (!strcmp(c, "pod") && !strcmp(n, "hosts"))
		pod_chart(f, t);
	else if (!strcmp(c, "compare") && !strcmp(n, "step_time"))
		compare_step_chart(f, t);
	else if (!strcmp(c, "compare") && (!strcmp(n, "ops") || !strcmp(n, "kernels")))
		delta_chart(f, !strcmp(n, "ops") ? "compare-ops" : "compare-kernels", t,
			    !strcmp(n, "ops") ? "op_name" : "kernel_name");
}

/* --- tables, summaries, diagnostics ------------------------------------------------------------------ */

/* The raw value a column sorts by (data-v), or nothing for text and empty cells. */
static void sort_value(FILE *f, const struct xp_cell *c)
{
	char buf[64];
	switch (c->type) {
	case XP_T_INT: case XP_T_DUR: case XP_T_BYTES: case XP_T_ID:
		fprintf(f, " data-v=\"%" PRId64 "\"", c->v.i);
		break;
	case XP_T_UINT:
		fprintf(f, " data-v=\"%" PRIu64 "\"", c->v.u);
		break;
	case XP_T_F64: case XP_T_PCT: case XP_T_FRAC:
		if (xp_format_f64(c->v.d, buf, sizeof buf))
			fprintf(f, " data-v=\"%s\"", buf);
		break;
	case XP_T_BOOL:
		fprintf(f, " data-v=\"%d\"", c->v.b ? 1 : 0);
		break;
	default:
		break;
	}
}

static void html_table(FILE *f, const struct xp_table *t)
{
	size_t limit = t->text_limit && t->text_limit < TABLE_ROWS ? t->text_limit : TABLE_ROWS;
	size_t shown = t->n_rows < limit ? t->n_rows : limit;
	fputs("<h3>", f);
	xp_html_put(f, t->title);
	fputs("</h3>\n", f);
	fprintf(f, "<table class=\"sortable\" data-table=\"%s\">\n<thead><tr>", t->name);
	xp_table_settle_hidden(t);
	for (size_t j = 0; j < t->n_cols; j++) {
		if (t->cols[j].flags & XP_COL_TEXT_HIDDEN)
			continue;
		fprintf(f, "<th title=\"%s\">", t->cols[j].key);
		xp_html_put(f, t->cols[j].header);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < shown; i++) {
		fputs("<tr>", f);
		for (size_t j = 0; j < t->n_cols; j++) {
			if (t->cols[j].flags & XP_COL_TEXT_HIDDEN)
				continue;
			const struct xp_cell *c = xp_table_cell(t, i, j);
			char *s = xp_text_cell(c);
			fputs(c->type == XP_T_STR || c->type == XP_T_NULL ? "<td" : "<td class=\"n\"", f);
			sort_value(f, c);
			fputc('>', f);
			xp_html_put(f, s);
			fputs("</td>", f);
			free(s);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!t->n_rows)
		fputs("<p class=\"more\">(no rows)</p>\n", f);
	if (shown < t->n_rows)
		fprintf(f, "<p class=\"more\">\xe2\x80\xa6 %zu more row%s (--format csv or json for all)</p>\n",
			t->n_rows - shown, t->n_rows - shown == 1 ? "" : "s");
	if (t->text_note && *t->text_note) {
		fputs("<p class=\"note\">", f);
		xp_html_put(f, t->text_note);
		fputs("</p>\n", f);
	}
}

static void html_summary(FILE *f, const struct xp_result *r)
{
	if (!r->n_summary)
		return;
	fputs("<table class=\"summary\">\n", f);
	for (size_t i = 0; i < r->n_summary; i++) {
		char *v = xp_text_cell(&r->summary[i].value);
		fputs("<tr><th>", f);
		xp_html_put(f, r->summary[i].label);
		fputs("</th><td>", f);
		xp_html_put(f, v);
		fputs("</td></tr>\n", f);
		free(v);
	}
	fputs("</table>\n", f);
}

static void html_diags(FILE *f, const struct xp_result *r)
{
	if (!r->n_diags)
		return;
	fputs("<ul class=\"diagnostics\">\n", f);
	for (size_t i = 0; i < r->n_diags; i++) {
		const struct xp_diag *d = &r->diags[i];
		const char *sev = xp_severity_name(d->severity);
		fprintf(f, "<li class=\"%s\"><b>%s</b>: ", sev, sev);
		if (d->host) {
			xp_html_put(f, d->host);
			fputs(": ", f);
		}
		xp_html_put(f, d->message);
		if (d->hint) {
			fputs("<br>hint: ", f);
			xp_html_put(f, d->hint);
		}
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* One analysis: its verdict (unless shown above), summary, each chart with its table, diagnostics. */
static void html_result(FILE *f, const struct xp_result *r, bool verdict)
{
	if (verdict && r->verdict) {
		fputs("<p class=\"verdict\">", f);
		xp_html_put(f, r->verdict);
		fputs("</p>\n", f);
	}
	html_diags(f, r);
	html_summary(f, r);
	for (size_t i = 0; i < r->n_tables; i++) {
		chart_for(f, r, r->tables[i]);
		html_table(f, r->tables[i]);
	}
}

static void page_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "script-src '" SORT_SCRIPT_SHA256 "'; base-uri 'none'; form-action 'none'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	xp_html_put(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	xp_html_put(f, title);
	fputs("</h1>\n", f);
}

static void page_end(FILE *f)
{
	fprintf(f, "<script>%s</script>\n</body>\n</html>\n", sort_script);
}

/* Is MSG a message of an earlier recommendation row (results before K, rows before I of K)? */
static bool seen_before(const struct xp_result *const *rs, size_t k, size_t i, size_t c_m, const char *msg)
{
	for (size_t j = 0; j <= k; j++) {
		const struct xp_table *t = xp_result_table(rs[j], "recommendation");
		size_t c = t ? col_of(t, "message") : SIZE_MAX;
		for (size_t r = 0; c != SIZE_MAX && r < (j == k ? i : t->n_rows); r++)
			if (!strcmp(str_at(t, r, c), msg))
				return true;
	}
	(void)c_m;
	return false;
}

/* The rows of every "recommendation" table that say what to do, first on the page. */
static void recommendations(FILE *f, const struct xp_result *const *rs, size_t n)
{
	bool any = false;
	for (size_t k = 0; k < n; k++) {
		const struct xp_table *t = xp_result_table(rs[k], "recommendation");
		size_t c_m = t ? col_of(t, "message") : SIZE_MAX, c_l = t ? col_of(t, "level") : SIZE_MAX;
		for (size_t i = 0; c_m != SIZE_MAX && i < t->n_rows; i++) {
			/* What to do: not the "no" rows (nothing to do), the tips and links (no level), nor a row an
			 * earlier analysis gave already (input-pipeline repeats the overview's). */
			const char *lv = str_at(t, i, c_l);
			if (!*lv || !strcmp(lv, "no") || !strcmp(lv, "-") || seen_before(rs, k, i, c_m, str_at(t, i, c_m)))
				continue;
			if (!any)
				fputs("<h2 id=\"recommendations\">Recommendations</h2>\n<ul class=\"recommendations\">\n", f);
			any = true;
			fputs("<li>", f);
			if (*str_at(t, i, c_l)) {
				fputs("<b>", f);
				xp_html_put(f, str_at(t, i, c_l));
				fputs("</b>: ", f);
			}
			xp_html_put(f, str_at(t, i, c_m));
			fputs("</li>\n", f);
		}
	}
	if (any)
		fputs("</ul>\n", f);
}

static int html_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e)
{
	(void)e;
	(void)o;
	char *title = fmt("xpstat %s", r->command);
	page_begin(f, title);
	free(title);
	if (r->verdict) {
		fputs("<p class=\"verdict\">", f);
		xp_html_put(f, r->verdict);
		fputs("</p>\n", f);
	}
	recommendations(f, &r, 1);
	html_result(f, r, false);
	page_end(f);
	return 0;
}

int xp_report_write_html(const struct xp_report *rep, const char *verdict, FILE *f, const struct xp_out_opts *o)
{
	(void)o;
	const struct xp_result **rs = xcalloc(rep->n + 1, sizeof *rs);
	page_begin(f, "xpstat report");
	fputs("<p class=\"verdict\">", f);
	xp_html_put(f, verdict ? verdict : "");
	fputs("</p>\n<p class=\"note\">", f);
	/* What was read, as the text's Read line names it (by the run, never the path typed: the page that
	 * combine writes of saved per-host reports is the page report writes of the run). */
	char *read = rep->n_captures ? xp_read_line(rep) : NULL;
	xp_html_put(f, read ? read : rep->source ? rep->source : "");
	free(read);
	fputs("</p>\n", f);
	for (size_t i = 0; i < rep->n; i++)
		rs[i] = rep->sec[i].r;
	recommendations(f, (const struct xp_result *const *)rs, rep->n);
	free(rs);
	fputs("<h2 id=\"verdicts\">Verdicts</h2>\n<table class=\"verdicts\">\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		fprintf(f, "<tr><th><a href=\"#%s\">%s</a></th><td>", rep->sec[i].key, rep->sec[i].command);
		xp_html_put(f, rep->sec[i].r->verdict ? rep->sec[i].r->verdict : "-");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", rep->sec[i].key, rep->sec[i].command);
		html_result(f, rep->sec[i].r, true);
		fputs("</section>\n", f);
	}
	page_end(f);
	return 0;
}

const struct xp_writer xp_writer_html = {
	.name = "html",
	.description = "one self-contained page with SVG charts, for a browser without network",
	.write = html_write,
	.only = "compare, report and combine",
};
