/* svg.h - the pieces of the HTML writer's inline SVG charts: escaped text, numbers in the C locale, rectangles with a hover title. */
#ifndef XPSTAT_SVG_H
#define XPSTAT_SVG_H

#include <stdint.h>
#include <stdio.h>

/* S as HTML text or attribute value: terminal-safe first (controls and bad UTF-8 as escapes, as text shows
 * them), then & < > " ' as character references, so no capture string is ever markup. */
void xp_html_put(FILE *f, const char *s);
/* A coordinate with one decimal, '.' whatever the locale. */
void xp_svg_num(FILE *f, double v);
/* <svg> of W x H user units that scales to the page, DATA-CHART naming the chart for tests and styles. */
void xp_svg_begin(FILE *f, const char *chart, double w, double h, const char *label);
void xp_svg_end(FILE *f);
/* A rectangle of class CLS (may be NULL) filled with COLOR; TITLE (may be NULL) is its hover text. */
void xp_svg_rect(FILE *f, const char *cls, double x, double y, double w, double h, const char *color,
		 const char *title);
/* Text at (X, Y); ANCHOR start, middle or end. */
void xp_svg_text(FILE *f, double x, double y, const char *anchor, const char *s);
/* A humanized duration or byte count (as text shows it), malloc'd. */
char *xp_svg_dur(int64_t ps);
char *xp_svg_bytes(int64_t n);

#endif
