/* out_markdown.c - the Markdown writer: the verdict, summary, tables and diagnostics as GitHub-flavoured Markdown, for $GITHUB_STEP_SUMMARY and merge-request comments (check, compare, report). */
#include "out_html.h"
#include "formats/core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * Layout: the verdict in bold, the summary as a two-column table, each table
 * under a "###" heading as a pipe table (numbers right-aligned; its top
 * rows as text shows them, then "… N more rows"), the diagnostics as a list.
 * Every string is made terminal-safe as text shows it (no raw newline can
 * break a row), then each character Markdown or HTML would act on (\ ` * _
 * [ ] | ~ < > &) is escaped, so a capture's names are text.
 */

#define MD_ROWS 20  /* as report text shows (XP_TEXT_REPORT_ROWS) */

static void md_put(FILE *f, const char *s)
{
	char *safe = xp_text_escape(s ? s : "");

	for (const char *p = safe; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~':
			fputc('\\', f);
			fputc(*p, f);
			break;
		default: fputc(*p, f);
		}
	}
	free(safe);
}

static bool numeric(enum xp_type t)
{
	return t != XP_T_STR && t != XP_T_NULL && t != XP_T_BOOL;
}

static void md_summary(FILE *f, const struct xp_result *r)
{
	if (!r->n_summary)
		return;
	fputs("| Summary | Value |\n|---|---:|\n", f);
	for (size_t i = 0; i < r->n_summary; i++) {
		char *v = xp_text_cell(&r->summary[i].value);
		fputs("| ", f);
		md_put(f, r->summary[i].label);
		fputs(" | ", f);
		md_put(f, v);
		fputs(" |\n", f);
		free(v);
	}
	fputc('\n', f);
}

static void md_table(FILE *f, const struct xp_table *t)
{
	size_t limit = t->text_limit && t->text_limit < MD_ROWS ? t->text_limit : MD_ROWS;
	size_t shown = t->n_rows < limit ? t->n_rows : limit, vis = 0;

	fputs("### ", f);
	md_put(f, t->title);
	fputs("\n\n", f);
	xp_table_settle_hidden(t);
	for (size_t j = 0; j < t->n_cols; j++)
		vis += !(t->cols[j].flags & XP_COL_TEXT_HIDDEN);
	if (!t->n_rows || !vis) {
		fputs("(no rows)\n\n", f);
		return;
	}
	fputc('|', f);
	for (size_t j = 0; j < t->n_cols; j++)
		if (!(t->cols[j].flags & XP_COL_TEXT_HIDDEN)) {
			fputc(' ', f);
			md_put(f, t->cols[j].header);
			fputs(" |", f);
		}
	fputs("\n|", f);
	for (size_t j = 0; j < t->n_cols; j++)
		if (!(t->cols[j].flags & XP_COL_TEXT_HIDDEN))
			fputs(numeric(t->cols[j].type) || (t->cols[j].flags & XP_COL_TEXT_RIGHT) ? "---:|" : "---|", f);
	fputc('\n', f);
	for (size_t i = 0; i < shown; i++) {
		fputc('|', f);
		for (size_t j = 0; j < t->n_cols; j++) {
			if (t->cols[j].flags & XP_COL_TEXT_HIDDEN)
				continue;
			char *s = xp_text_cell(xp_table_cell(t, i, j));
			fputc(' ', f);
			md_put(f, s);
			fputs(" |", f);
			free(s);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
	if (shown < t->n_rows)
		fprintf(f, "\xe2\x80\xa6 %zu more row%s (--format csv or json for all)\n\n", t->n_rows - shown,
			t->n_rows - shown == 1 ? "" : "s");
	if (t->text_note && *t->text_note) {
		md_put(f, t->text_note);
		fputs("\n\n", f);
	}
}

static void md_diags(FILE *f, const struct xp_result *r)
{
	for (size_t i = 0; i < r->n_diags; i++) {
		const struct xp_diag *d = &r->diags[i];
		fprintf(f, "- **%s**: ", xp_severity_name(d->severity));
		if (d->host) {
			md_put(f, d->host);
			fputs(": ", f);
		}
		md_put(f, d->message);
		if (d->hint) {
			fputs(" (hint: ", f);
			md_put(f, d->hint);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	if (r->n_diags)
		fputc('\n', f);
}

static void md_result(FILE *f, const struct xp_result *r, bool verdict)
{
	if (verdict && r->verdict) {
		fputs("**", f);
		md_put(f, r->verdict);
		fputs("**\n\n", f);
	}
	md_summary(f, r);
	for (size_t i = 0; i < r->n_tables; i++)
		md_table(f, r->tables[i]);
	md_diags(f, r);
}

static int md_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e)
{
	(void)e;
	(void)o;
	fprintf(f, "## xpstat %s\n\n", r->command);
	md_result(f, r, true);
	return 0;
}

int xp_report_write_markdown(const struct xp_report *rep, const char *verdict, FILE *f, const struct xp_out_opts *o)
{
	(void)o;
	fputs("## xpstat report\n\n**", f);
	md_put(f, verdict ? verdict : "");
	fputs("**\n\n| Analysis | Verdict |\n|---|---|\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		fputs("| ", f);
		md_put(f, rep->sec[i].command);
		fputs(" | ", f);
		md_put(f, rep->sec[i].r->verdict ? rep->sec[i].r->verdict : "-");
		fputs(" |\n", f);
	}
	fputc('\n', f);
	for (size_t i = 0; i < rep->n; i++) {
		fputs("## ", f);
		md_put(f, rep->sec[i].command);
		fputs("\n\n", f);
		md_result(f, rep->sec[i].r, false);
	}
	return 0;
}

const struct xp_writer xp_writer_markdown = {
	.name = "markdown",
	.description = "GitHub-flavoured Markdown tables and the verdict, for CI job summaries",
	.write = md_write,
	.only = "check, compare, report and combine",
};
