/* cmd_combine.c - `xpstat combine`: saved per-host reports (one per job array task) put together into the run's report. */
#include "gate.h"
#include "config.h"
#include "formats/in/input.h"
#include "formats/in/report_read.h"
#include "analyzers/db/prepstate.h"
#include "analyzers/db/shared.h"
#include "analyzers/db/table_state.h"
#include "analyzers/registry.h"
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
 *   - the same capture (name and content digest) twice.
 * Every analysis is rebuilt of any number of hosts from each report's
 * "state" through the analysis' own code (its descriptor's combine), so the
 * whole report is `xpstat report` over the run, and one analysis
 * (--analysis) is `xpstat NAME` over the run, byte for byte; the state
 * written is the hosts' states one after another, as one process writes it.
 */

struct combine_opts {
	const struct xp_analysis *analysis;     /* --analysis NAME; NULL: the whole report */
	const char *keep[32];                   /* the state tables it reads (the others are not kept) */
};

struct combine_in {
	struct xp_report **reps;
	size_t n;
	char **paths;           /* each report's path, for errors */
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
	if (!rep->n_captures)
		return refuse(path, "a report of no capture: nothing to combine");
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
	const char *sa = xp_gate_report_semantics(a), *sb = xp_gate_report_semantics(b);
	if (strcmp(or_empty(sa), or_empty(sb)))
		return refuse(path, "its captures are read by %s rules, the first report's by %s: reports of captures "
			      "read by different rules do not combine (run 'xpstat report' over the run)",
			      sb ? sb : "TensorFlow/JAX", sa ? sa : "TensorFlow/JAX");
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
static int check_as_read(struct xp_ctx *ctx, const struct combine_in *in, size_t i)
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
	return rc;
}

/* Each report holds the state of its hosts (checked once they are all read: a report of another run or
 * xpstat is told as such first). */
static int check_states(struct xp_ctx *ctx, const struct combine_in *in)
{
	for (size_t i = 0; i < in->n; i++) {
		const struct xp_report *rep = in->reps[i];
		size_t hosts = xp_state_hosts(rep->state);
		bool counted = rep->state && xp_result_table(rep->state, XP_STATE_ROWS_TABLE);
		if (hosts != rep->n_captures && !counted)
			return refuse(ctx->paths[i], "no state of its %zu host%s (a report of an older xpstat): save it "
				      "again with this xpstat", rep->n_captures, rep->n_captures == 1 ? "" : "s");
		if (hosts != rep->n_captures)
			return refuse(ctx->paths[i], "its state table hosts does not read back: %zu rows, for %zu captures: "
				      "not a report as this xpstat writes it", hosts, rep->n_captures);
		if (!counted)
			return refuse(ctx->paths[i], "its state has no row counts (table " XP_STATE_ROWS_TABLE "; a report of an "
				      "older xpstat): save it again with this xpstat");
		/* Every table read holds as many rows of each host as it was saved with (a row lost or doubled by
		 * hand would combine into a wrong answer). */
		char why[400];
		const struct combine_opts *co = ctx->cmd_opts;
		if (!xp_state_check_rows(rep->state, co->analysis ? co->keep : NULL, why, sizeof why))
			return refuse(ctx->paths[i], "%s: not a report as this xpstat writes it", why);
	}
	return 0;
}

static int read_all(struct xp_ctx *ctx, struct combine_in *in)
{
	if (!ctx->max_input_bytes)
		ctx->max_input_bytes = xp_physical_memory();
	in->reps = xcalloc(ctx->n_paths, sizeof *in->reps);
	in->paths = ctx->paths;
	int rc = 0;
	/* Compressed reports decompress one after another into the same buffer, not each into a new one doubled
	 * and copied as it fills (combine --analysis steps of 64 saved reports: 5.0 s -> 1.3 s). */
	struct xp_scratch scratch = {0};
	for (size_t i = 0; i < ctx->n_paths && !rc; i++, in->n++) {
		struct xp_err err = {0};
		/* Read whatever it is: a truncated or corrupt report is told as such (where it breaks). */
		const struct combine_opts *co = ctx->cmd_opts;
		/* The sections' numbers are not read: every analysis is rebuilt of the states (all of them for the
		 * whole report, which writes them again). */
		int rc_read = xp_report_read_heads(ctx->paths[i], ctx->max_input_bytes, co->analysis ? co->keep : NULL,
						   &scratch, &in->reps[i], &err);
		if (rc_read) {
			xp_err_print(&err);
			rc = err.status ? err.status : XP_EXIT_BAD_INPUT;
			break;
		}
		rc = check_as_read(ctx, in, i);
	}
	xp_scratch_free(&scratch);
	return rc ? rc : check_states(ctx, in);
}

/* --- the analyses of several hosts ------------------------------------------------------------------------ */

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
			/* As its capture named it, before the other hosts of its report made it unique. */
			const char *first = xp_state_host_first_name(in->reps[i]->state, k);
			h->name = strdup(first ? first : in->reps[i]->captures[k].host);
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
					     const struct host_ref *refs, bool digests)
{
	const struct xp_report *first = in->reps[0];
	struct xp_report *prov = xp_report_new(NULL);
	prov->version = strdup(first->version);
	prov->compat = strdup(or_empty(first->compat));
	if (!prov->version || !prov->compat)
		xp_oom();
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_report_capture *k = &in->reps[refs[h].rep]->captures[refs[h].row];
		xp_report_add_capture(prov, k->name, k->run, c->hosts[h].name, digests ? k->digest : NULL, NULL, k->bytes);
		if (k->producer && !(prov->captures[prov->n_captures - 1].producer = strdup(k->producer)))
			xp_oom();
	}
	return prov;
}

/* What every analysis is rebuilt of: the hosts in the run's order, their states, their step databases and the
 * inputs the analyses share. */
struct rebuild {
	struct host_ref *refs;
	struct xp_capture *names;       /* the hosts, named and ordered as one process does */
	struct xp_state_host *hosts;
	struct xp_capture *cap;
	struct xp_prep *p;
	bool xprof;
};

/* Every state table the analyses read (the whole report: all of them). */
static const char *const *tables_read(const struct xp_analysis *only)
{
	static const char *all[128];
	if (only)
		return only->state_tables;
	size_t n = 0;
	for (size_t i = 0; xp_analyses[i]; i++)
		for (const char *const *t = xp_analyses[i]->state_tables; t && *t && n + 1 < 128; t++)
			all[n++] = *t;
	all[n] = NULL;
	return all;
}

static void rebuild_free(struct rebuild *rb)
{
	if (rb->p) {
		xp_shared_free(rb->p->shared);
		xp_prep_state_free(rb->p, rb->cap);
	}
	free(rb->hosts);
	free(rb->refs);
	xp_capture_free(rb->names);
}

/* RB set up of the reports; false with E set when a state does not read back. */
static bool rebuild_init(struct rebuild *rb, const struct combine_in *in, const struct xp_analysis *only,
			 struct xp_err *e)
{
	*rb = (struct rebuild){.xprof = !strcmp(or_empty(in->reps[0]->compat), "xprof")};
	rb->names = order_hosts(in, &rb->refs);
	uint32_t n = rb->names->n_hosts;
	rb->hosts = xcalloc(n ? n : 1, sizeof *rb->hosts);
	for (uint32_t h = 0; h < n; h++)
		rb->hosts[h] = (struct xp_state_host){in->reps[rb->refs[h].rep]->state, rb->refs[h].row,
						      rb->names->hosts[h].name, in->paths[rb->refs[h].rep],
						      rb->names->hosts[h].first_name};
	rb->p = xp_prep_from_state(rb->hosts, n, rb->xprof, &rb->cap, e);
	/* The inputs report's analyses share (host op DB, tf.data model, run environments), as they read them. */
	if (rb->p && !(rb->p->shared = xp_shared_from_state(rb->hosts, n, tables_read(only), e))) {
		xp_prep_state_free(rb->p, rb->cap);
		rb->p = NULL;
	}
	return rb->p != NULL;
}

/* Analysis A of the hosts, as report (REPORT) or its command writes it; NULL with E set. */
static struct xp_result *rebuild_one(const struct rebuild *rb, const struct combine_in *in, const struct xp_analysis *a,
				     bool report, const char *format, struct xp_err *e)
{
	/* The rules that made the numbers are the capture's: each report's section says them. */
	const struct xp_result *saved = xp_report_get(in->reps[0], a->name);
	struct xp_combine_in cin = {.c = rb->cap, .p = rb->p, .hosts = rb->hosts, .xprof_compat = rb->xprof,
				    .semantics = saved ? saved->semantics : NULL, .err = e, .report = report,
				    .text = !strcmp(format, "text") || !strcmp(format, "markdown"),
				    .html = report && !strcmp(format, "html")};
	struct xp_result *r = a->combine(&cin);
	if (r)
		xp_result_set_semantics(r, cin.semantics);
	else if (!e->status)
		xp_err_set(e, XP_EXIT_BAD_INPUT, NULL, "%s does not combine", a->name);
	return r;
}

/* The whole report of the hosts: every analysis in report order, and the state one process saves. */
static struct xp_report *rebuild_report(const struct rebuild *rb, const struct combine_in *in, const char *format,
					struct xp_err *e)
{
	struct xp_report *rep = combined_provenance(in, rb->names, rb->refs, true);
	for (size_t i = 0; xp_analyses[i]; i++) {
		struct xp_result *r = rebuild_one(rb, in, xp_analyses[i], true, format, e);
		if (!r) {
			xp_report_free(rep);
			return NULL;
		}
		xp_report_add(rep, xp_analyses[i]->name, r);
	}
	if (!(rep->state = xp_state_merge(rb->hosts, rb->names->n_hosts, e))) {
		xp_report_free(rep);
		return NULL;
	}
	return rep;
}

static int combine_hosts(struct xp_ctx *ctx, const struct combine_in *in, const struct xp_analysis *only)
{
	struct rebuild rb;
	struct xp_err e = {0};
	int rc = 0;
	if (!rebuild_init(&rb, in, only, &e)) {
		rc = XP_EXIT_BAD_INPUT;
	} else if (only) {
		struct xp_result *r = rebuild_one(&rb, in, only, false, ctx->format, &e);
		struct xp_report *prov = combined_provenance(in, rb.names, rb.refs, false);
		ctx->provenance = prov;
		rc = r ? xp_emit(ctx, r) : XP_EXIT_BAD_INPUT;
		ctx->provenance = NULL;
		xp_report_free(prov);
		xp_result_free(r);
	} else {
		struct xp_report *rep = rebuild_report(&rb, in, ctx->format, &e);
		rc = rep ? xp_gate_emit_report(ctx, rep, rb.names->n_hosts) : XP_EXIT_BAD_INPUT;
		xp_report_free(rep);
	}
	if (e.status) {
		xp_err_print(&e);
		rc = e.status;
	}
	rebuild_free(&rb);
	return rc;
}

/* What combine cannot write as asked, or NULL. */
static const char *unwritable(const struct xp_ctx *ctx, const struct xp_analysis *only)
{
	if (only && (!strcmp(ctx->format, "html") || !strcmp(ctx->format, "markdown")))
		return "--analysis writes text, json or csv, as the analysis' command does (the HTML page and Markdown "
		       "are the whole report's)";
	if (only)
		return NULL;
	if (!strcmp(ctx->format, "csv") && !ctx->output && !ctx->table)
		return "--format csv writes one file per table: give -o DIR (or --table ANALYSIS-TABLE)";
	return NULL;
}

static int combine_run(struct xp_ctx *ctx)
{
	struct combine_in in = {0};
	const struct combine_opts *co = ctx->cmd_opts;
	const char *why = unwritable(ctx, co->analysis);
	if (ctx->host)
		return xp_usage_error(ctx, "--host: combine writes every host of the reports (for one host, combine its "
				      "report alone)");
	if (why)
		return xp_usage_error(ctx, "%s", why);
	int rc = read_all(ctx, &in);
	if (!rc)
		rc = combine_hosts(ctx, &in, co->analysis);
	for (size_t i = 0; i < in.n; i++)
		xp_report_free(in.reps[i]);
	free(in.reps);
	return rc;
}

enum { OPT_ANALYSIS = 1 };

static const struct xp_opt combine_cli[] = {
	{"analysis", 1, OPT_ANALYSIS, "NAME", "only the analysis NAME, as 'xpstat NAME' writes it over the whole run, "
	 "in text, JSON or CSV: info, overview, steps, input-pipeline, tf-data, tf-stats, kernel-stats, memory or pod"},
	{NULL, 0, 0, NULL, NULL},
};

static int combine_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct combine_opts *co = ctx->cmd_opts;
	(void)key;
	const struct xp_analysis *a = xp_analysis_find(arg);
	if (!a || !a->combine)
		return xp_usage_error(ctx, "--analysis %s: not an analysis of a report (%s)", arg, combinable_names());
	co->analysis = a;
	/* Every analysis gets the step databases; its own tables besides. */
	static const char *const prep[] = {XP_PREP_STATE_TABLES, XP_STATE_ROWS_TABLE};
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
