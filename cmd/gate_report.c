/* gate_report.c - writing a report (report, combine): text, one JSON document, a CSV directory or table, HTML, Markdown. */
#include "gate.h"
#include "formats/out/out_report.h"
#include "formats/core/xalloc.h"
#include "formats/out/out_html.h"

#include <stdlib.h>
#include <string.h>

struct report_out {
	const struct xp_report *rep;
	const char *verdict;
	struct xp_ctx *ctx;
};

static int write_text(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	const struct report_out *ro = arg;
	return xp_report_write_text(ro->rep, ro->verdict, f, oo, e);
}

static int write_json(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	(void)oo;
	const struct report_out *ro = arg;
	/* "inputs": each capture by its name in its run directory, in host order, never the path typed, so that
	 * per-host reports of one run combine into the bytes report writes for the whole run. */
	size_t n = ro->rep->n_captures;
	char **names = xcalloc(n ? n : 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = ro->rep->captures[i].name;
	int rc = xp_report_write_json(ro->rep, ro->verdict, names, n, f);
	free(names);
	return rc;
}

static int write_html(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	const struct report_out *ro = arg;
	(void)e;
	return xp_report_write_html(ro->rep, ro->verdict, f, oo);
}

static int write_markdown(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	const struct report_out *ro = arg;
	(void)e;
	return xp_report_write_markdown(ro->rep, ro->verdict, f, oo);
}

static int write_csv_table(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	const struct report_out *ro = arg;
	return xp_report_write_csv_table(ro->rep, ro->ctx->table, f, oo, e);
}

/* "9 analyses of 1 host: <overview's verdict>". */
static char *report_verdict(const struct xp_report *rep, uint32_t hosts)
{
	const struct xp_result *ov = xp_report_get(rep, "overview");
	char *v;
	if (asprintf(&v, "%zu analyses of %u host%s%s%s", rep->n, hosts, hosts == 1 ? "" : "s",
		     ov && ov->verdict ? ": " : "", ov && ov->verdict ? ov->verdict : "") < 0)
		xp_oom();
	return v;
}

int xp_gate_emit_report(struct xp_ctx *ctx, struct xp_report *rep, uint32_t hosts)
{
	int rc;
	bool csv = !strcmp(ctx->format, "csv");
	struct report_out ro = {rep, report_verdict(rep, hosts), ctx};
	if (csv && ctx->table) {
		rc = xp_emit_fn(ctx, write_csv_table, &ro);
	} else if (csv) {
		struct xp_out_opts oo = {.csv_raw = ctx->csv_raw};
		struct xp_err e = {0};
		rc = xp_report_write_csv_dir(rep, ctx->output, &oo, &e);
		if (e.status)
			xp_err_print(&e);
	} else if (!strcmp(ctx->format, "json")) {
		rc = xp_gate_digest(rep);
		if (!rc)
			rc = xp_emit_fn(ctx, write_json, &ro);
	} else {
		ctx->provenance = rep;
		rc = xp_emit_fn(ctx, !strcmp(ctx->format, "html")     ? write_html
				     : !strcmp(ctx->format, "markdown") ? write_markdown
									: write_text,
				&ro);
	}
	ctx->provenance = NULL;
	free((char *)ro.verdict);
	return rc;
}
