/* cmd_trace.c - `xpstat trace`: a selection of the capture as Chrome trace JSON for Perfetto, .gz or .zst by the output's name. */
#include "cmd.h"
#include "analyzers/prepare/prepare.h"
#include "analyzers/steps.h"
#include "analyzers/trace.h"
#include "formats/out/out.h"
#include "formats/out/out_trace.h"
#include "formats/in/xplane_read.h"
#include "config.h"
#include "formats/core/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_STEPS = 1, OPT_WINDOW, OPT_PLANE, OPT_LINE, OPT_MIN_DURATION };

static const struct xp_opt trace_opts[] = {
	{"steps", 1, OPT_STEPS, "A[:B]", "only steps A to B (the numbers ending the names in the Step column of `steps`)"},
	{"window", 1, OPT_WINDOW, "T0:T1", "only events overlapping T0..T1 after the capture's start (unit ps, ns, us, ms or s; none: us)"},
	{"plane", 1, OPT_PLANE, "REGEX", "only planes whose name matches REGEX (POSIX extended)"},
	{"line", 1, OPT_LINE, "REGEX", "only lines (threads, streams) whose name matches REGEX"},
	{"min-duration", 1, OPT_MIN_DURATION, "D", "only events lasting at least D (unit as --window)"},
	{NULL, 0, 0, NULL, NULL},
};

static int trace_set(struct xp_ctx *ctx, int key, const char *arg)
{
	struct xp_trace_opts *o = ctx->cmd_opts;
	switch (key) {
	case OPT_STEPS:
		o->has_steps = true;
		if (!xp_trace_parse_steps(arg, &o->step_first, &o->step_last))
			return xp_usage_error(ctx, "--steps takes A or A:B (step numbers, A <= B), not '%s'", arg);
		return 0;
	case OPT_WINDOW:
		o->has_window = true;
		if (!xp_trace_parse_window(arg, &o->window_t0_ps, &o->window_t1_ps))
			return xp_usage_error(ctx, "--window takes T0:T1 (T0 < T1, e.g. 1.5ms:2ms), not '%s'", arg);
		return 0;
	case OPT_PLANE:
		o->plane_regex = arg;
		return xp_check_regex(ctx, "--plane", arg);
	case OPT_LINE:
		o->line_regex = arg;
		return xp_check_regex(ctx, "--line", arg);
	case OPT_MIN_DURATION:
		if (!xp_trace_parse_duration(arg, &o->min_duration_ps))
			return xp_usage_error(ctx, "--min-duration takes a duration such as 10us, not '%s'", arg);
		return 0;
	}
	return 0;
}

struct job {
	struct xp_capture *c;               /* released line by line by the export */
	const struct xp_prep *p;
	const struct xp_trace_opts *o;
	const char *name;           /* the output's name: its compression */
	struct xp_trace_counts n;
};

/* otherData: who wrote it, where time 0 is (the capture's absolute start), its hosts and, of
 * several, each host's own base (its times' origin, which its steps' and events' times count from). */
static void put_other(struct xp_tw *w, const struct job *j)
{
	char buf[32];
	xp_tw_other_str(w, "producer", "xpstat " XPSTAT_VERSION);
	snprintf(buf, sizeof buf, "%" PRId64, xp_trace_start_ns(j->c));
	xp_tw_other_str(w, "xpstat_start_ns", buf);
	xp_tw_other_str(w, "xpstat_time_unit", "ts and dur: exact microseconds since xpstat_start_ns");
	for (uint32_t h = 0; h < j->c->n_hosts; h++) {
		char key[32];
		snprintf(key, sizeof key, "xpstat_host_%" PRIu32, h);
		xp_tw_other_str(w, key, j->c->hosts[h].name);
		if (j->c->n_hosts > 1) {
			snprintf(key, sizeof key, "xpstat_host_base_ns_%" PRIu32, h);
			snprintf(buf, sizeof buf, "%" PRId64, j->c->hosts[h].base_ns);
			xp_tw_other_str(w, key, buf);
		}
	}
}

static int write_trace(FILE *raw, const struct xp_out_opts *oo, void *arg, struct xp_err *e)
{
	(void)oo;
	struct job *j = arg;
	/* -o NAME.gz / .zst: the output file compresses by its name (xp_outfile_open), so the trace is written
	 * plain here, never compressed twice. */
	FILE *f = raw;
	struct xp_tw w;
	xp_tw_begin(&w, f);
	put_other(&w, j);
	xp_tw_events(&w);
	int rc = xp_trace_export(j->c, j->p, j->o, &w, &j->n, e);
	int wrc = xp_tw_end(&w);
	if (rc)
		return rc;
	if (wrc)
		return xp_err_set(e, XP_EXIT_INTERNAL, NULL, "trace: cannot write: %s", strerror(errno)), XP_EXIT_INTERNAL;
	return 0;
}

/* What the step preparation reads: it runs on a load of these stats alone, as `steps` loads them. */
static const struct xp_analysis *const step_analyses[] = {&xp_analysis_steps, NULL};

/* The preparation of C (its step databases); NULL with the exit status in *RC. With ONLY, the step databases
 * hold the steps that --steps selects alone (the others are neither typed nor swept). */
static struct xp_prep *prepare(struct xp_ctx *ctx, struct xp_capture *c, const struct xp_trace_opts *only, int *rc)
{
	struct xp_err e = {0};
	struct xp_prep_opts po = {.xprof_compat = ctx->xprof_compat, .step_marker = ctx->step_marker};
	if (only) {
		po.keep_step = xp_trace_keeps_step;
		po.keep_arg = (void *)only;
	}
	struct xp_prep *p = xp_prepare(c, &po, &e);
	if (!p)
		*rc = xp_usage_error(ctx, "%s", e.msg);
	return p;
}

/*
 * Each host's step database (the step track) before the export (a selection in time, whose window comes from the
 * steps), made as `steps` makes it: from a load of the stats the preparation reads, which is freed, with the
 * grouping, before the whole capture is read. The peak is
 * then the larger of the two, not the whole capture and the grouping together (1.6 times a generated
 * capture of 64 MB before, the grouping's working arrays adding a third to the capture). Returns a
 * preparation holding only the step databases, by host index, or NULL with the exit status in *RC; with SPANS,
 * also each XSpace host's runs' spans of times in *SPANS.
 */
/* Each XSpace host's runs' spans of times (xp_run_spans_of), by host index; NULL for the others. */
struct host_spans {
	struct xp_run_spans **v;
	uint32_t n;
};

static struct xp_prep *step_dbs(struct xp_ctx *ctx, int *rc, struct host_spans *spans, const struct xp_trace_opts *only)
{
	struct xp_capture *c;
	bool quiet = ctx->quiet;
	ctx->load_for = step_analyses;
	ctx->quiet = true; /* the notes and progress of the load come with the whole capture's */
	*rc = xp_load(ctx, &c);
	ctx->load_for = NULL;
	ctx->quiet = quiet;
	if (*rc)
		return NULL;
	struct xp_prep *p = prepare(ctx, c, only, rc);
	if (!p) {
		xp_capture_free(c);
		return NULL;
	}
	if (spans) { /* where each run of events lies in time, for the streams' decode in a window */
		spans->n = c->n_hosts;
		spans->v = xcalloc(c->n_hosts + 1, sizeof *spans->v);
		for (uint32_t h = 0; h < c->n_hosts; h++)
			if (c->hosts[h].format == XP_FMT_XSPACE)
				spans->v[h] = xp_run_spans_of(&c->hosts[h]);
	}
	struct xp_prep *s = xcalloc(1, sizeof *s);
	s->opts = p->opts;
	s->n_hosts = p->n_hosts;
	s->hosts = xcalloc(p->n_hosts ? p->n_hosts : 1, sizeof *s->hosts);
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		s->hosts[h].steps = p->hosts[h].steps;
		memset(&p->hosts[h].steps, 0, sizeof p->hosts[h].steps);
	}
	xp_prep_free(p);
	xp_capture_free(c);
	return s;
}

/* A line of a streamed load: decoded by the stream of its host (JSON hosts hold their events already). */
static int load_line(void *arg, struct xp_host *h, struct xp_line *l, const int64_t *lo_hi, struct xp_err *e)
{
	const struct xp_xspace_streams *s = arg;
	for (size_t i = 0; i < s->n; i++)
		if (xp_xspace_stream_is_for(s->v[i], h))
			return lo_hi ? xp_xspace_stream_line_in(s->v[i], h, l, lo_hi[0], lo_hi[1], e)
				     : xp_xspace_stream_line(s->v[i], h, l, e);
	return 0;
}

/* Each stream takes the runs' spans of its host from the first read (hosts in the same order: the same files
 * read the same way), so that its decode in a window skips the runs outside it without reading their times. */
static void use_spans(const struct xp_capture *c, const struct xp_xspace_streams *s, const struct host_spans *spans)
{
	for (uint32_t h = 0; h < c->n_hosts && h < spans->n; h++)
		for (size_t i = 0; i < s->n && spans->v[h]; i++)
			if (xp_xspace_stream_is_for(s->v[i], &c->hosts[h]))
				xp_xspace_stream_use_spans(s->v[i], spans->v[h]);
}

/* How a streamed load's lines are read (xp_trace_opts.lines). */
static struct xp_trace_lines lines = {load_line, NULL, false, false, NULL};

/* The capture is read as streams, each line's events decoded as the export comes to the line and freed once
 * written, so that the export holds one line's events at a time; with a selection in time, only the events it
 * selects are decoded, the others skipped with only their times read; with a --min-duration alone, the lines
 * are decoded whole until one has an event that long (kept until written). XPSTAT_TRACE_WHOLE=1 reads the
 * capture whole, for any selection (the differential test compares the two). */
static bool streamed(const struct xp_trace_opts *o)
{
	const char *whole = getenv("XPSTAT_TRACE_WHOLE");
	return !(whole && !strcmp(whole, "1"));
}

/* The selection whose steps alone the first read's step databases need: a streamed --steps (the whole read
 * keeps every step, the reference its differential test compares with). */
static const struct xp_trace_opts *only_steps(const struct xp_trace_opts *o)
{
	return o->has_steps && streamed(o) ? o : NULL;
}

/* The capture (XSpace files as STREAMS where streamed) and its step databases; 0 or an exit status. The full
 * export, streamed, makes the step databases in its own pass (one read: each line's events are decoded once, for
 * the export and the steps), unless a --step-marker's regular expression must be checked before anything is
 * written; P then holds none, only the preparation's options. Read whole,
 * a selection in time (--steps, --window) reads the capture once, prepared whole: there the first load would be
 * most of the export's time, and the selection's export is a small part of the full one's. */
static int load_prepared(struct xp_ctx *ctx, struct xp_capture **c, struct xp_prep **p,
			 struct xp_xspace_streams *streams)
{
	struct xp_trace_opts *o = ctx->cmd_opts;
	int rc = 0;
	*p = NULL;
	if ((o->has_steps || o->has_window) && !streamed(o)) {
		if ((rc = xp_load(ctx, c)))
			return rc;
		if (!(*p = prepare(ctx, *c, NULL, &rc)))
			xp_capture_free(*c);
		return rc;
	}
	bool by_time = streamed(o) && (o->has_steps || o->has_window);
	bool in_pass = streamed(o) && !by_time && !ctx->step_marker;
	struct host_spans spans = {0};
	if (in_pass) /* the export makes the step databases as it reads (no first read): the options only here */
		*p = xcalloc(1, sizeof **p), (*p)->opts = (struct xp_prep_opts){.xprof_compat = ctx->xprof_compat};
	else if (!(*p = step_dbs(ctx, &rc, by_time ? &spans : NULL, only_steps(o))))
		return rc;
	if (streamed(o)) {
		ctx->streams = streams;
		lines.arg = streams;
		lines.by_time = by_time;
		lines.steps_in_pass = in_pass;
		static struct xp_drop_list drop;
		xp_drop_list(step_analyses, &drop);
		lines.step_drop = drop.names;
		o->lines = &lines;
	}
	rc = xp_load(ctx, c);
	ctx->streams = NULL;
	if (!rc && spans.v)
		use_spans(*c, streams, &spans);
	for (uint32_t h = 0; h < spans.n; h++)
		xp_run_spans_free(spans.v[h]);
	free(spans.v);
	if (rc) {
		xp_prep_free(*p);
		return rc;
	}
	if (in_pass) {
		(*p)->n_hosts = (*c)->n_hosts;
		(*p)->hosts = xcalloc((*c)->n_hosts ? (*c)->n_hosts : 1, sizeof *(*p)->hosts);
	}
	if ((*c)->n_hosts != (*p)->n_hosts) { /* the same files read the same way: only if one changed in between */
		xp_prep_free(*p);
		xp_capture_free(*c);
		xp_eprintf("xpstat: trace: the input changed while it was read\n");
		return XP_EXIT_BAD_INPUT;
	}
	(*p)->cap = *c;
	for (uint32_t h = 0; h < (*c)->n_hosts; h++)
		(*p)->hosts[h].host = &(*c)->hosts[h];
	return 0;
}

static int trace_run(struct xp_ctx *ctx)
{
	struct xp_capture *c;
	struct xp_prep *p;
	struct xp_xspace_streams streams = {0};
	int rc = load_prepared(ctx, &c, &p, &streams);
	if (rc) {
		xp_xspace_streams_close(&streams);
		return rc;
	}
	const struct xp_trace_opts *o = ctx->cmd_opts;
	struct xp_err e = {0};
	if (!xp_trace_selects_any(c, p, o, &e) && e.status == XP_EXIT_USAGE && (lines.steps_in_pass || only_steps(o))) {
		/* nothing to export, and the message lists the step range: every step, as a first read makes them */
		struct xp_prep *q = step_dbs(ctx, &rc, NULL, NULL);
		if (!q)
			goto done;
		lines.steps_in_pass = false;
		e = (struct xp_err){0};
		xp_trace_selects_any(c, q, o, &e);
		xp_prep_free(q);
	}
	if (e.status) {
		if (e.status == XP_EXIT_BAD_INPUT) {
			xp_err_print(&e);
			rc = XP_EXIT_BAD_INPUT;
		} else {
			rc = xp_usage_error(ctx, "%s", e.msg);
		}
	} else {
		struct job j = {c, p, o, ctx->output, {0}};
		rc = xp_emit_fn(ctx, write_trace, &j);
		if (!rc && !ctx->quiet && ctx->output)
			xp_eprintf("xpstat: trace: %s: %" PRIu64 " events, %" PRIu64 " flows, %" PRIu64
				   " counter values, %" PRIu64 " steps\n",
				   ctx->output, j.n.events, j.n.flows, j.n.counters, j.n.steps);
	}
done:
	xp_prep_free(p);
	xp_capture_free(c);
	xp_xspace_streams_close(&streams);
	return rc;
}

const struct xp_cmd xp_cmd_trace = {
	.name = "trace",
	.summary = "Export a selection of the capture (steps, window, planes, lines) as trace JSON for Perfetto",
	.args = "PATH...",
	.min_paths = 1,
	.opts = trace_opts,
	.set_opt = trace_set,
	.run = trace_run,
	.analyses = NULL,
	.opts_size = sizeof(struct xp_trace_opts),
};
