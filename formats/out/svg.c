/* svg.c - the pieces of the HTML writer's inline SVG charts: escaped text, numbers in the C locale, rectangles with a hover title. */
#include "svg.h"
#include "out.h"

#include <math.h>
#include <stdlib.h>

void xp_html_put(FILE *f, const char *s)
{
	char *safe = xp_text_escape(s ? s : "");

	for (const char *p = safe; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f);
		}
	}
	free(safe);
}

void xp_svg_num(FILE *f, double v)
{
	long long t = isfinite(v) ? llround(v * 10) : 0;

	/* Integer arithmetic: no locale, no "-0.0". */
	if (t < 0) {
		fputc('-', f);
		t = -t;
	}
	if (t % 10)
		fprintf(f, "%lld.%lld", t / 10, t % 10);
	else
		fprintf(f, "%lld", t / 10);
}

void xp_svg_begin(FILE *f, const char *chart, double w, double h, const char *label)
{
	fprintf(f, "<svg class=\"chart\" data-chart=\"%s\" role=\"img\" viewBox=\"0 0 ", chart);
	xp_svg_num(f, w);
	fputc(' ', f);
	xp_svg_num(f, h);
	fputs("\" width=\"", f);
	xp_svg_num(f, w);
	fputs("\" aria-label=\"", f);
	xp_html_put(f, label);
	fputs("\">\n", f);
}

void xp_svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void xp_svg_rect(FILE *f, const char *cls, double x, double y, double w, double h, const char *color,
		 const char *title)
{
	fputs("<rect", f);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputs(" x=\"", f);
	xp_svg_num(f, x);
	fputs("\" y=\"", f);
	xp_svg_num(f, y);
	fputs("\" width=\"", f);
	xp_svg_num(f, w);
	fputs("\" height=\"", f);
	xp_svg_num(f, h);
	fprintf(f, "\" fill=\"%s\"", color);
	if (title) {
		fputs("><title>", f);
		xp_html_put(f, title);
		fputs("</title></rect>\n", f);
	} else {
		fputs("/>\n", f);
	}
}

void xp_svg_text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fputs("<text x=\"", f);
	xp_svg_num(f, x);
	fputs("\" y=\"", f);
	xp_svg_num(f, y);
	fprintf(f, "\" text-anchor=\"%s\">", anchor);
	xp_html_put(f, s);
	fputs("</text>\n", f);
}

char *xp_svg_dur(int64_t ps)
{
	struct xp_cell c = {.type = XP_T_DUR, .v.i = ps};

	return xp_text_cell(&c);
}

char *xp_svg_bytes(int64_t n)
{
	struct xp_cell c = {.type = XP_T_BYTES, .v.i = n};

	return xp_text_cell(&c);
}
