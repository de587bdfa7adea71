/* cmd_combine.c - `xpstat combine`: saved per-host reports (one per job array task) put together into the run's report. */
#include "gate.h"
#include "config.h"
#include "formats/in/input.h"
#include "formats/in/report_read.h"
#include "analyzers/db/prepstate.h"
#include "analyzers/db/shared.h"
#include "analyzers/registry.h"
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
 *   - the whole report of several hosts: info's plane survey needs per-host
 *     state that saved reports do not carry yet. The analyses whose
 *     descriptors have a combine function (steps, pod, kernel-stats, tf-data,
 *     input-pipeline, memory, tf-stats, overview)
 *     are rebuilt of any number of hosts
 *     from each report's "state" with --analysis, through the analysis' own
 *     code, so they are `xpstat NAME` over the run, byte for byte.
 */

struct combine_opts {
	const struct xp_analysis *analysis;     /* --analysis NAME; NULL: the whole report */
	const char *keep[16];                   /* the state tables it reads (the others are not kept) */
};

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

/* "steps|pod": the analyses --analysis rebuilds. */
static const char *combinable_names(void)
{
	static char names[128];
	if (!names[0])
		for (size_t i = 0; xp_analyses[i]; i++)
			if (xp_analyses[i]->combine)
				snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? "|" : "",
					 xp_analyses[i]->name);
	return names;
}

/* Report I, checked as soon as it is read (so a refusal comes before the other reports are parsed). */
static int check_as_read(struct xp_ctx *ctx, const struct combine_in *in, size_t i, size_t *hosts)
{
	const struct combine_opts *co = ctx->cmd_opts;
	const struct xp_report *rep = in->reps[i];
	int rc = check_one(ctx->paths[i], rep);
	/* --compat is fixed when the reports are made; combine's own may only repeat it. */
	if (!rc && i == 0 && ctx->xprof_compat && strcmp(or_empty(rep->compat), "xprof"))
		rc = refuse(ctx->paths[0], "made with --compat %s, not --compat xprof", rep->compat);
	if (!rc && i > 0)
		rc = check_pair(ctx->paths[i], in->reps[0], rep);
	if (!rc)
		rc = check_twice(ctx->paths, in, i);
	if (!rc && !co->analysis && *hosts + rep->n_captures > 1)
		rc = refuse(ctx->paths[i], "%s is a second host: reports of several hosts cannot be combined "
			    "byte-identically yet (the cross-host tables need per-host state saved reports do not carry): "
			    "run 'xpstat report' over the run's captures, or combine one analysis (--analysis %s)",
			    rep->captures[*hosts ? 0 : 1].host, combinable_names());
	if (!rc && co->analysis && xp_state_hosts(rep->state) != rep->n_captures)
		rc = refuse(ctx->paths[i], "no state of its %zu host%s (a report of an older xpstat): save it again with "
			    "this xpstat", rep->n_captures, rep->n_captures == 1 ? "" : "s");
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
	/* Compressed reports decompress one after another into the same buffer, not each into a new one doubled
	 * and copied as it fills (combine --analysis steps of 64 saved reports: 5.0 s -> 1.3 s). */
	struct xp_scratch scratch = {0};
	for (size_t i = 0; i < ctx->n_paths && !rc; i++, in->n++) {
		struct xp_err err = {0};
		/* Read whatever it is: a truncated or corrupt report is told as such (where it breaks). */
		const struct combine_opts *co = ctx->cmd_opts;
		int rc_read = co->analysis ? xp_report_read_heads(ctx->paths[i], ctx->max_input_bytes, co->keep,
								  &scratch, &in->reps[i], &err)
					   : xp_report_read(ctx->paths[i], ctx->max_input_bytes, &in->reps[i], &err);
		if (rc_read) {
			xp_err_print(&err);
			rc = err.status ? err.status : XP_EXIT_BAD_INPUT;
			break;
		}
		rc = check_as_read(ctx, in, i, &hosts);
	}
	xp_scratch_free(&scratch);
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

/* --- one analysis of several hosts (--analysis) --------------------------------------------------------- */

/* The hosts of every report, named and ordered as one process reading their captures names and orders them
 * (xp_hosts_name_and_sort: a hostname two captures record is named by its file). */
struct host_ref {
	size_t rep, row;
};

static struct xp_capture *order_hosts(const struct combine_in *in, struct host_ref **refs)
{
	struct xp_capture *c = xp_capture_new();
	size_t n = 0;
	for (size_t i = 0; i < in->n; i++)
		n += in->reps[i]->n_captures;
	*refs = xcalloc(n ? n : 1, sizeof **refs);
	for (size_t i = 0; i < in->n; i++)
		for (size_t k = 0; k < in->reps[i]->n_captures; k++) {
			struct xp_host *h = xp_capture_add_host(c);
			h->name = strdup(in->reps[i]->captures[k].host);
			h->path = strdup(in->reps[i]->captures[k].name);
			if (!h->name || !h->path)
				xp_oom();
		}
	xp_hosts_name_and_sort(c);
	/* Capture names are distinct (check_twice), so a host's file finds its report again. */
	for (uint32_t h = 0; h < c->n_hosts; h++)
		for (size_t i = 0; i < in->n; i++)
			for (size_t k = 0; k < in->reps[i]->n_captures; k++)
				if (!strcmp(in->reps[i]->captures[k].name, c->hosts[h].path))
					(*refs)[h] = (struct host_ref){i, k};
	return c;
}

/* The provenance one process would write: the captures in host order, under their names in the run. */
static struct xp_report *combined_provenance(const struct combine_in *in, const struct xp_capture *c,
					     const struct host_ref *refs)
{
	const struct xp_report *first = in->reps[0];
	struct xp_report *prov = xp_report_new(NULL);
	prov->version = strdup(first->version);
	prov->compat = strdup(or_empty(first->compat));
	if (!prov->version || !prov->compat)
		xp_oom();
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_report_capture *k = &in->reps[refs[h].rep]->captures[refs[h].row];
		xp_report_add_capture(prov, k->name, k->run, c->hosts[h].name, NULL, NULL, k->bytes);
		if (k->producer && !(prov->captures[prov->n_captures - 1].producer = strdup(k->producer)))
			xp_oom();
	}
	return prov;
}

static int combine_analysis(struct xp_ctx *ctx, const struct combine_in *in, const struct xp_analysis *a)
{
	struct host_ref *refs;
	struct xp_capture *names = order_hosts(in, &refs);
	struct xp_state_host *hosts = xcalloc(names->n_hosts ? names->n_hosts : 1, sizeof *hosts);
	for (uint32_t h = 0; h < names->n_hosts; h++)
		hosts[h] = (struct xp_state_host){in->reps[refs[h].rep]->state, refs[h].row, names->hosts[h].name,
						  ctx->paths[refs[h].rep]};
	struct xp_err e = {0};
	struct xp_capture *cap = NULL;
	bool xprof = !strcmp(or_empty(in->reps[0]->compat), "xprof");
	struct xp_prep *p = xp_prep_from_state(hosts, names->n_hosts, xprof, &cap, &e);
	/* The inputs report's analyses share (host op DB, tf.data model, run environments), as the analysis reads. */
	if (p && !(p->shared = xp_shared_from_state(hosts, names->n_hosts, a->state_tables, &e))) {
		xp_prep_state_free(p, cap);
		p = NULL;
	}
	int rc = 0;
	if (!p) {
		xp_err_print(&e);
		rc = e.status;
	} else {
		/* The rules that made the numbers are the capture's: each report's section says them. */
		const struct xp_result *saved = xp_report_get(in->reps[0], a->name);
		struct xp_combine_in cin = {.c = cap, .p = p, .hosts = hosts, .xprof_compat = xprof,
					    .semantics = saved ? saved->semantics : NULL, .err = &e,
					    .text = !strcmp(ctx->format, "text")};
		struct xp_result *r = a->combine(&cin);
		if (r)
			xp_result_set_semantics(r, cin.semantics);
		struct xp_report *prov = combined_provenance(in, names, refs);
		ctx->provenance = prov;
		if (r) {
			rc = xp_emit(ctx, r);
		} else {
			xp_err_print(&e);
			rc = e.status ? e.status : XP_EXIT_BAD_INPUT;
		}
		ctx->provenance = NULL;
		xp_report_free(prov);
		xp_result_free(r);
		xp_shared_free(p->shared);
		xp_prep_state_free(p, cap);
	}
	free(hosts);
	free(refs);
	xp_capture_free(names);
	return rc;
}

static int combine_run(struct xp_ctx *ctx)
{
	struct combine_in in = {0};
	const struct combine_opts *co = ctx->cmd_opts;
	if (!co->analysis && strcmp(ctx->format, "json") && strcmp(ctx->format, "csv"))
		return emit(ctx, NULL, NULL, NULL, 0);
	int rc = read_all(ctx, &in);
	if (!rc && co->analysis) {
		rc = combine_analysis(ctx, &in, co->analysis);
	} else if (!rc) {
		const struct xp_report *one = in.reps[0];
		rc = emit(ctx, one, one->verdict, one->inputs, one->n_inputs);
	}
	for (size_t i = 0; i < in.n; i++)
		xp_report_free(in.reps[i]);
	free(in.reps);
	return rc;
}

enum { OPT_ANALYSIS = 1 };

static const struct xp_opt combine_cli[] = {
	{"analysis", 1, OPT_ANALYSIS, "NAME", "only the analysis NAME, as 'xpstat NAME' writes it over the whole run, "
	 "in any format: steps, pod, kernel-stats, tf-data, input-pipeline, memory, tf-stats or overview (of any number of hosts)"},
	{NULL, 0, 0, NULL, NULL},
};

static int combine_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct combine_opts *co = ctx->cmd_opts;
	(void)key;
	const struct xp_analysis *a = xp_analysis_find(arg);
	if (!a || !a->combine)
		return xp_usage_error(ctx, "--analysis %s: combine rebuilds %s of several hosts (the others: "
				      "combine the whole report of one host, or run 'xpstat report')", arg,
				      combinable_names());
	co->analysis = a;
	/* Every analysis gets the step databases; its own tables besides. */
	static const char *const prep[] = {XP_PREP_STATE_TABLES};
	size_t n = 0;
	for (size_t k = 0; k < sizeof prep / sizeof *prep; k++)
		co->keep[n++] = prep[k];
	for (const char *const *t = a->state_tables; t && *t && n + 1 < sizeof co->keep / sizeof *co->keep; t++)
		co->keep[n++] = *t;
	co->keep[n] = NULL;
	return 0;
}

const struct xp_cmd xp_cmd_combine = {
	.name = "combine",
	.summary = "Combine saved per-host reports (job array tasks) into the run's report, as report writes it",
	.args = "REPORT.json[.gz|.zst]...",
	.min_paths = 1,
	.opts = combine_cli,
	.set_opt = combine_set,
	.run = combine_run,
	.analyses = NULL,
	.opts_size = sizeof(struct combine_opts),
};
