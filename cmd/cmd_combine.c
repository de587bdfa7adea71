/* cmd_combine.c - `xpstat combine`: saved per-host reports (one per job array task) put together into the run's report. */
#include "gate.h"
#include "config.h"
#include "formats/in/input.h"
#include "formats/in/report_read.h"
#include "formats/out/out_report.h"
#include "formats/core/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Combine checks that the saved reports can be put together, then writes the
 * run's report. Byte identity with `xpstat report` over all the hosts in one
 * process is the contract; an input it cannot keep it for is refused (exit 3,
 * one line, nothing written), never approximated:
 *   - a document that is not a whole saved report with provenance (truncated,
 *     another command's, an older xpstat's), or that fails to parse;
 *   - reports of another xpstat version, --compat mode, semantics or run;
 *   - the same capture (name and content digest) twice;
 *   - several hosts: the multi-host tables (step alignment across hosts, the
 *     pod, overview's and tf-stats' merged op rows, input-pipeline's
 *     breakdown host) need per-host state that saved reports do not carry yet.
 */

struct combine_in {
	struct xp_report **reps;
	size_t n;
};

static int refuse(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	xp_eprintf("xpstat: combine: %s: %s\n", path, msg);
	return XP_EXIT_BAD_INPUT;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* One report's own checks: a whole report, with provenance, made by this xpstat. */
static int check_one(const char *path, const struct xp_report *rep)
{
	if (!rep->version)
		return refuse(path, "no provenance: not a report of 'xpstat report' (or one of an older xpstat): "
			      "save it again with this xpstat");
	if (rep->n != XP_N_ANALYSES || !rep->verdict || !rep->inputs)
		return refuse(path, "not a whole report (%zu analyses, a report has %d)", rep->n, XP_N_ANALYSES);
	if (strcmp(rep->version, XPSTAT_VERSION))
		return refuse(path, "made by xpstat %s, this is xpstat %s: save the reports again with one xpstat",
			      rep->version, XPSTAT_VERSION);
	return 0;
}

/* What two reports must share: --compat, semantics and the run. */
static int check_pair(const char *path, const struct xp_report *a, const struct xp_report *b)
{
	if (strcmp(or_empty(a->compat), or_empty(b->compat)))
		return refuse(path, "made with --compat %s, the first report with --compat %s", b->compat, a->compat);
	if (xp_gate_same_semantics(a, path, b))
		return XP_EXIT_BAD_INPUT;
	const char *ra = a->n_captures ? a->captures[0].run : "", *rb = b->n_captures ? b->captures[0].run : "";
	if (strcmp(ra, rb))
		return refuse(path, "from run '%s', the first report from run '%s': combine the reports of one run",
			      rb, ra);
	return 0;
}

/* The same capture twice (name and digest): its host would count twice. Report I's captures against those
 * read before them. */
static int check_twice(char **paths, const struct combine_in *in, size_t i)
{
	for (size_t k = 0; k < in->reps[i]->n_captures; k++)
		for (size_t j = 0; j <= i; j++)
			for (size_t l = 0; l < (j == i ? k : in->reps[j]->n_captures); l++) {
				const struct xp_report_capture *x = &in->reps[i]->captures[k];
				const struct xp_report_capture *y = &in->reps[j]->captures[l];
				if (strcmp(x->name, y->name))
					continue;
				if (!strcmp(x->digest, y->digest))
					return refuse(paths[i], "capture %s given twice (also in %s)", x->name, paths[j]);
				return refuse(paths[i], "two different captures named %s (the other in %s): not one run",
					      x->name, paths[j]);
			}
	return 0;
}

/* Report I, checked as soon as it is read (so a refusal comes before the other reports are parsed). */
static int check_as_read(struct xp_ctx *ctx, const struct combine_in *in, size_t i, size_t *hosts)
{
	const struct xp_report *rep = in->reps[i];
	int rc = check_one(ctx->paths[i], rep);
	/* --compat is fixed when the reports are made; combine's own may only repeat it. */
	if (!rc && i == 0 && ctx->xprof_compat && strcmp(or_empty(rep->compat), "xprof"))
		rc = refuse(ctx->paths[0], "made with --compat %s, not --compat xprof", rep->compat);
	if (!rc && i > 0)
		rc = check_pair(ctx->paths[i], in->reps[0], rep);
	if (!rc)
		rc = check_twice(ctx->paths, in, i);
	if (!rc && *hosts + rep->n_captures > 1)
		rc = refuse(ctx->paths[i], "%s is a second host: reports of several hosts cannot be combined "
			    "byte-identically yet (the cross-host tables need per-host state saved reports do not carry): "
			    "run 'xpstat report' over the run's captures",
			    rep->captures[*hosts ? 0 : 1].host);
	*hosts += rep->n_captures;
	return rc;
}

static int read_all(struct xp_ctx *ctx, struct combine_in *in)
{
	if (!ctx->max_input_bytes)
		ctx->max_input_bytes = xp_physical_memory();
	in->reps = xcalloc(ctx->n_paths, sizeof *in->reps);
	size_t hosts = 0;
	int rc = 0;
	for (size_t i = 0; i < ctx->n_paths && !rc; i++, in->n++) {
		struct xp_err err = {0};
		/* Read whatever it is: a truncated or corrupt report is told as such (where it breaks). */
		if (xp_report_read(ctx->paths[i], ctx->max_input_bytes, &in->reps[i], &err)) {
			xp_err_print(&err);
			return err.status ? err.status : XP_EXIT_BAD_INPUT;
		}
		rc = check_as_read(ctx, in, i, &hosts);
	}
	return rc;
}

/* --- writing ------------------------------------------------------------------------------------------ */

struct combine_out {
	const struct xp_report *rep;
	const char *verdict;
	char **inputs;
	size_t n_inputs;
};

static int write_json(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	(void)e;
	(void)oo;
	const struct combine_out *co = arg;
	return xp_report_write_json(co->rep, co->verdict, co->inputs, co->n_inputs, f);
}

static int emit(struct xp_ctx *ctx, const struct xp_report *rep, const char *verdict, char **inputs, size_t n)
{
	struct combine_out co = {rep, verdict, inputs, n};
	if (!strcmp(ctx->format, "text"))
		return xp_usage_error(ctx, "writes --format json or csv: the text of a report needs the column labels "
				      "saved reports do not keep (run 'xpstat report' for text)");
	if (!strcmp(ctx->format, "csv")) {
		if (!ctx->output)
			return xp_usage_error(ctx, "--format csv writes one file per table: give -o DIR");
		struct xp_out_opts oo = {.csv_raw = ctx->csv_raw};
		struct xp_err e = {0};
		int rc = xp_report_write_csv_dir(rep, ctx->output, &oo, &e);
		if (e.status)
			xp_err_print(&e);
		return rc;
	}
	if (strcmp(ctx->format, "json"))
		return xp_usage_error(ctx, "unknown --format '%s' (json or csv)", ctx->format);
	return xp_emit_fn(ctx, write_json, &co);
}

static int combine_run(struct xp_ctx *ctx)
{
	struct combine_in in = {0};
	if (strcmp(ctx->format, "json") && strcmp(ctx->format, "csv"))
		return emit(ctx, NULL, NULL, NULL, 0);
	int rc = read_all(ctx, &in);
	if (!rc) {
		const struct xp_report *one = in.reps[0];
		rc = emit(ctx, one, one->verdict, one->inputs, one->n_inputs);
	}
	for (size_t i = 0; i < in.n; i++)
		xp_report_free(in.reps[i]);
	free(in.reps);
	return rc;
}

const struct xp_cmd xp_cmd_combine = {
	.name = "combine",
	.summary = "Combine saved per-host reports (job array tasks) into the run's report, as report writes it",
	.args = "REPORT.json[.gz|.zst]...",
	.min_paths = 1,
	.opts = NULL,
	.set_opt = NULL,
	.run = combine_run,
	.analyses = NULL,
};
