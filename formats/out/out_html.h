/* out_html.h - a report (several results) as one HTML page or as GitHub-flavoured Markdown. */
#ifndef XPSTAT_OUT_HTML_H
#define XPSTAT_OUT_HTML_H

#include <stdio.h>

#include "out.h"
#include "formats/model/report.h"

/* The verdict and the recommendations first, the table of every analysis' verdict, then each analysis with
 * its charts and tables (xpstat-report(1)). Its memory section draws the "timeline" table when it has one. */
int xp_report_write_html(const struct xp_report *rep, const char *verdict, FILE *f, const struct xp_out_opts *o);
/* The verdict, the table of verdicts, then each analysis as the markdown writer shows a result. */
int xp_report_write_markdown(const struct xp_report *rep, const char *verdict, FILE *f,
			     const struct xp_out_opts *o);

#endif
