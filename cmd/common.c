/* common.c - what every command shares: loading captures, writing results, parsing option values. */
#include "cmd.h"
#include "analyzers/db/shared.h"
#include "analyzers/prepare/prepare.h"
#include "formats/in/input.h"
#include "formats/out/out.h"
#include "formats/in/xplane_read.h"
#include "formats/in/trace_json.h"
#include "formats/in/report_read.h"
#include "formats/core/suggest.h"
#include "formats/core/xalloc.h"
#include "gate.h"

#include <errno.h>
#include <pthread.h>
#include <langinfo.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int xp_usage_error(const struct xp_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (ctx && ctx->cmd)
		xp_eprintf("xpstat: %s: ", ctx->cmd->name);
	else
		fputs("xpstat: ", stderr);
	xp_veprintf(fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return XP_EXIT_USAGE;
}

int xp_output_not_input(const struct xp_ctx *ctx, char *const *paths, size_t n)
{
	struct stat out, in;
	if (!ctx->output || stat(ctx->output, &out) != 0 || !S_ISREG(out.st_mode))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (stat(paths[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return xp_usage_error(ctx, "-o %s would replace the input %s; write the result elsewhere",
					      ctx->output, paths[i]);
	return 0;
}

bool xp_parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool xp_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || *s == '-')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	unsigned shift = 0;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: return false;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* The optional stats none of the command's analyses reads (registry.c), or NULL: load all. */
static const char *const *drop_stats(struct xp_ctx *ctx)
{
	const struct xp_analysis *const *list = ctx->load_for ? ctx->load_for : ctx->cmd ? ctx->cmd->analyses : NULL;
	if (!list)
		return NULL;
	xp_drop_list(list, &ctx->drop);
	return ctx->drop.names;
}

/* Whether every analysis of the command reads device events alone (a command of none reads everything). */
static bool device_events_only(const struct xp_ctx *ctx)
{
	const struct xp_analysis *const *list = ctx->load_for ? ctx->load_for : ctx->cmd ? ctx->cmd->analyses : NULL;
	if (!list || !*list)
		return false;
	for (; *list; list++)
		if (!(*list)->device_events_only)
			return false;
	return true;
}

/* Progress on stderr: by the inflated size (a small .gz can hold gigabytes), only on a terminal, or always
 * with XPSTAT_PROGRESS=1 (one line per file then, for logs and tests); XPSTAT_PROGRESS=0 or -q: never. */
struct progress {
	bool on, tty;
	size_t n;
	uint64_t total, done;
};

static void progress_start(const struct xp_ctx *ctx, const struct xp_input_list *in, struct progress *pg)
{
	const char *force = getenv("XPSTAT_PROGRESS");
	*pg = (struct progress){.n = in->n, .tty = isatty(STDERR_FILENO)};
	for (size_t i = 0; i < in->n; i++)
		pg->total += xp_inflated_size_guess(in->files[i].path);
	if (ctx->quiet || (force && !strcmp(force, "0")))
		return;
	pg->on = (force && !strcmp(force, "1")) || (pg->total >= (256ull << 20) && pg->tty);
	pg->tty = pg->tty && !(force && !strcmp(force, "1"));
}

static void progress_file(struct progress *pg, size_t i, const char *path)
{
	if (!pg->on)
		return;
	const char *base = strrchr(path, '/');
	uint64_t bytes = xp_inflated_size_guess(path);
	double pct = pg->total ? 100.0 * (double)pg->done / (double)pg->total : 0;
	xp_eprintf("xpstat: reading file %zu of %zu (%.0f%% of %.1f MiB): %s, %.1f MiB%s", i + 1, pg->n, pct,
		   (double)pg->total / 1048576.0, base ? base + 1 : path, (double)bytes / 1048576.0,
		   pg->tty ? "...\033[K\r" : "\n");
	pg->done += bytes;
}

static void progress_end(const struct progress *pg)
{
	if (pg->on && pg->tty)
		fputs("\033[K", stderr);
	else if (pg->on)
		xp_eprintf("xpstat: read %zu file%s (100%% of %.1f MiB)\n", pg->n, pg->n == 1 ? "" : "s",
			   (double)pg->total / 1048576.0);
}

/* Trace JSON streams: it is never held whole, decompressed or not. */
static int load_trace_json(struct xp_ctx *ctx, struct xp_capture *c, const struct xp_input_file *f, struct xp_err *err)
{
	struct xp_json_opts jo = {.max_bytes = ctx->max_input_bytes, .threads = ctx->threads,
				  .drop_stats = drop_stats(ctx)};
	return xp_read_trace_json_file(c, f->path, &jo, err);
}

/* An XSpace file as a stream of LIST: its events read later, line by line. */
static int open_stream(struct xp_xspace_streams *list, struct xp_capture *c, const char *path, struct xp_buf *buf,
		       const struct xp_read_opts *ro, struct xp_err *err)
{
	struct xp_xspace_stream *s;
	struct xp_read_opts o = *ro;
	o.stream_spans = list->spans;
	if (xp_xspace_stream_open(c, path, buf, &o, &s, err))
		return -1;
	list->v = xrealloc(list->v, (list->n + 1) * sizeof *list->v);
	list->v[list->n++] = s;
	return 0;
}

static int load_file(struct xp_ctx *ctx, struct xp_capture *c, const struct xp_input_file *f, struct xp_err *err)
{
	if (f->kind == XP_FILE_TRACE_JSON)
		return load_trace_json(ctx, c, f, err);
	struct xp_buf buf;
	if (xp_buf_open(f->path, ctx->max_input_bytes, &buf, err))
		return -1;
	struct xp_read_opts ro = {.threads = ctx->threads, .release_pages = buf.map != NULL,
				  .drop_stats = drop_stats(ctx), .device_events_only = device_events_only(ctx)};
	struct xp_buf kept = buf; /* a stream takes the bytes; the sizes are noted from this copy */
	int rc = ctx->streams ? open_stream(ctx->streams, c, f->path, &buf, &ro, err)
			      : xp_read_xspace(c, f->path, buf.data, buf.len, &ro, err);
	if (!rc) {
		struct xp_host *h = &c->hosts[c->n_hosts - 1];
		h->compression = kept.comp;
		h->file_bytes = kept.file_bytes;
		h->decoded_bytes = kept.len;
	}
	xp_buf_close(&buf);
	return rc;
}

/* Real XSpace files always carry a host or device plane; other protobufs
 * (say an overview_page.pb) decode as XSpace too but hold none. */
static int check_looks_like_capture(const struct xp_capture *c, struct xp_err *err)
{
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_host *host = &c->hosts[h];
		bool known = false;
		for (uint32_t i = 0; i < host->n_planes && !known; i++)
			known = host->planes[i].kind != XP_PLANE_OTHER;
		if (!known)
			return xp_err_set(err, XP_EXIT_BAD_INPUT, host->path,
					  "not a profiler capture: no /host: or /device: plane (%u planes)", host->n_planes);
	}
	return 0;
}

/* --host matches the file's host part or, failing that, XSpace.hostnames[0]. */
static int filter_hosts(struct xp_ctx *ctx, struct xp_capture *c)
{
	bool *keep = xcalloc(c->n_hosts, sizeof *keep);
	uint32_t kept = 0;
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		keep[h] = xp_host_matches(ctx->host, c->hosts[h].name);
		kept += keep[h];
	}
	if (!kept) {
		xp_eprintf("xpstat: no host '%s'; hosts:", ctx->host);
		const char **names = calloc(c->n_hosts ? c->n_hosts : 1, sizeof *names);
		for (uint32_t h = 0; h < c->n_hosts; h++) {
			xp_eprintf("%s %s", h ? "," : "", c->hosts[h].name);
			if (names)
				names[h] = c->hosts[h].name;
		}
		char hint[256] = "";
		if (names)
			xp_did_you_mean(hint, sizeof hint, ctx->host, names, c->n_hosts, false, 1);
		free(names);
		xp_eprintf("%s\n", hint);
		free(keep);
		return XP_EXIT_USAGE;
	}
	xp_capture_keep_hosts(c, keep);
	free(keep);
	return 0;
}

static int load_all(struct xp_ctx *ctx, struct xp_capture *c, const struct xp_input_list *in)
{
	struct xp_err err = {0};
	struct progress pg;
	progress_start(ctx, in, &pg);
	for (size_t i = 0; i < in->n; i++) {
		progress_file(&pg, i, in->files[i].path);
		if (load_file(ctx, c, &in->files[i], &err) || check_looks_like_capture(c, &err)) {
			progress_end(&(struct progress){.on = pg.on && pg.tty, .tty = true});
			xp_err_print(&err);
			return err.status ? err.status : XP_EXIT_BAD_INPUT;
		}
	}
	progress_end(&pg);
	return 0;
}

static int by_file_name(const void *a, const void *b)
{
	const struct xp_input_file *x = a, *y = b;
	const char *bx = strrchr(x->path, '/'), *by = strrchr(y->path, '/');
	int c = strcmp(bx ? bx + 1 : x->path, by ? by + 1 : y->path);
	return c ? c : strcmp(x->path, y->path);
}

/* --shard I/N, --host-index I: keep the files of one array task. The order is by file name (what a
 * run directory's listing of one host per file gives whatever the path typed), then path. */
static int pick_shard(struct xp_ctx *ctx, struct xp_input_list *in)
{
	if (!ctx->shard_n)
		return 0;
	long n = ctx->shard_n < 0 ? (long)in->n : ctx->shard_n;
	if (ctx->shard_i >= n || (ctx->shard_n < 0 && !in->n))
		return xp_usage_error(ctx, "--host-index %ld: the run has %zu capture file%s (0 to %zu)", ctx->shard_i,
				      in->n, in->n == 1 ? "" : "s", in->n ? in->n - 1 : 0);
	qsort(in->files, in->n, sizeof *in->files, by_file_name);
	size_t w = 0, all = in->n;
	for (size_t k = 0; k < in->n; k++) {
		if ((long)(k % (size_t)n) == ctx->shard_i)
			in->files[w++] = in->files[k];
		else
			xp_input_file_free(&in->files[k]);
	}
	in->n = w;
	if (!w)
		return xp_usage_error(ctx, "--shard %ld/%ld: no capture file falls in this shard (%zu in all)",
				      ctx->shard_i, n, all);
	return 0;
}

int xp_load(struct xp_ctx *ctx, struct xp_capture **out)
{
	struct xp_err err = {0};
	struct xp_input_list in = {0};
	*out = NULL;
	if (!ctx->max_input_bytes)
		ctx->max_input_bytes = xp_physical_memory();
	/* A saved result would otherwise be refused as a trace without traceEvents: say what it is. */
	for (size_t i = 0; i < ctx->n_paths; i++)
		if (xp_saved_json_path(ctx->paths[i]))
			return xp_usage_error(ctx, "%s is a saved xpstat result, not a capture; check and compare read "
					      "saved results, %s reads captures", ctx->paths[i],
					      ctx->cmd ? ctx->cmd->name : "this command");
	/* By file name first: that avoids reading the other hosts. */
	int rc = xp_resolve_inputs(ctx->paths, ctx->n_paths, ctx->run, ctx->host, &in, &err);
	bool by_name = rc == 0;
	if (rc && ctx->host && err.status == XP_EXIT_USAGE) {
		memset(&err, 0, sizeof err);
		rc = xp_resolve_inputs(ctx->paths, ctx->n_paths, ctx->run, NULL, &in, &err);
	}
	if (rc) {
		xp_err_print(&err);
		return err.status ? err.status : XP_EXIT_BAD_INPUT;
	}
	for (size_t i = 0; i < in.n; i++) {
		char *p = in.files[i].path;
		if ((rc = xp_output_not_input(ctx, &p, 1))) {
			xp_input_list_free(&in);
			return rc;
		}
	}
	if ((rc = pick_shard(ctx, &in))) {
		xp_input_list_free(&in);
		return rc;
	}
	if (in.run_note && !ctx->quiet)
		xp_eprintf("xpstat: %s\n", in.run_note);
	struct xp_capture *c = xp_capture_new();
	rc = load_all(ctx, c, &in);
	xp_input_list_free(&in);
	if (!rc)
		xp_hosts_join_spans(c);
	if (!rc && ctx->host && !by_name)
		rc = filter_hosts(ctx, c);
	if (!rc)
		xp_hosts_name_and_sort(c);
	if (rc) {
		xp_capture_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static bool want_color(const struct xp_ctx *ctx)
{
	if (ctx->color >= 0)
		return ctx->color == 1;
	const char *term = getenv("TERM");
	const char *no_color = getenv("NO_COLOR");
	if ((no_color && *no_color) || (term && !strcmp(term, "dumb")) || ctx->output)
		return false;
	return isatty(STDOUT_FILENO);
}

size_t xp_text_width(const struct xp_ctx *ctx)
{
	if (ctx->wide || strcmp(ctx->format, "text"))
		return 0;
	const char *env = getenv("COLUMNS");
	long n;
	if (env && *env && xp_parse_int(env, 1, 1000000, &n))
		return n < 40 ? 40 : (size_t)n;
	if (ctx->output || !isatty(STDOUT_FILENO))
		return 0;
	struct winsize ws;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col < 40 ? 40 : ws.ws_col;
	return 80;
}

int xp_emit_fn(struct xp_ctx *ctx, xp_emit_write_fn fn, void *arg)
{
	struct xp_out_opts oo = {
		.table = ctx->table,
		.csv_raw = ctx->csv_raw,
		.color = want_color(ctx),
		.tty = !ctx->output && isatty(STDOUT_FILENO),
		.width = xp_text_width(ctx),
		.wide = ctx->wide,
		.charts = ctx->charts == 1 || (ctx->charts < 0 && !ctx->output && isatty(STDOUT_FILENO)),
		.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8"),
		.provenance = ctx->provenance,
		.no_read_line = ctx->quiet,
	};
	struct xp_err e = {0};
	if (!ctx->output) {
		int rc = fn(stdout, &oo, arg, &e);
		if (rc)
			xp_err_print(&e);
		return rc;
	}
	struct xp_outfile of;
	if (xp_outfile_open(&of, ctx->output)) {
		/* An output that cannot be written is exit 4 (README), as a failed write. */
		xp_eprintf("xpstat: %s: cannot create: %s\n", ctx->output, strerror(errno));
		return XP_EXIT_INTERNAL;
	}
	int rc = fn(of.f, &oo, arg, &e);
	if (rc) {
		xp_err_print(&e);
		xp_outfile_abort(&of);
		return rc;
	}
	if (xp_outfile_commit(&of)) {
		xp_eprintf("xpstat: %s: cannot write: %s\n", ctx->output, strerror(errno));
		return XP_EXIT_INTERNAL;
	}
	return 0;
}

struct emit_result {
	const struct xp_writer *w;
	const struct xp_result *r;
};

static int write_result(FILE *f, const struct xp_out_opts *oo, void *arg, struct xp_err *err)
{
	const struct emit_result *e = arg;
	return e->w->write(e->r, f, oo, err);
}

int xp_emit(struct xp_ctx *ctx, const struct xp_result *r)
{
	const struct xp_writer *w = xp_writer_find(ctx->format);
	if (!w)
		return xp_usage_error(ctx, "unknown --format '%s'", ctx->format);
	/* --table names a table in every format: JSON, which holds them all, must not pass a typo silently. */
	if (ctx->table && r && !xp_result_table(r, ctx->table)) {
		struct xp_err err = {0};
		xp_out_no_table(r, ctx->table, &err);
		xp_err_print(&err);
		return XP_EXIT_USAGE;
	}
	struct emit_result e = {w, r};
	return xp_emit_fn(ctx, write_result, &e);
}

int xp_emit_read(struct xp_ctx *ctx, const struct xp_capture *c, const struct xp_result *r)
{
	struct xp_report *prov = xp_report_new(NULL);
	xp_gate_provenance(prov, c, ctx->xprof_compat);
	ctx->provenance = prov;
	int rc = xp_emit(ctx, r);
	ctx->provenance = NULL;
	xp_report_free(prov);
	return rc;
}

struct warm_job {
	const struct xp_analysis *a;
	struct xp_shared *s;
	bool xprof_compat;
};

static void *warm_thread(void *arg)
{
	struct warm_job *w = arg;
	w->a->warm(w->s, w->xprof_compat);
	return NULL;
}

/* C's preparation for A, on --threads threads where it can use them; the inputs A reads of the capture alone are
 * built meanwhile on a second thread (most of the preparation runs on one), into the preparation's shared
 * inputs. NULL with E set when it fails. */
static struct xp_prep *prepare_warm(const struct xp_ctx *ctx, const struct xp_capture *c, const struct xp_analysis *a,
				    struct xp_err *e)
{
	struct xp_prep_opts po = {.xprof_compat = ctx->xprof_compat, .step_marker = ctx->step_marker,
				  .threads = ctx->threads};
	struct warm_job w = {a, a->warm && ctx->threads > 1 ? xp_shared_new(c) : NULL, ctx->xprof_compat};
	pthread_t tid;
	bool warming = w.s && !pthread_create(&tid, NULL, warm_thread, &w);
	struct xp_prep *p = xp_prepare(c, &po, e);
	if (warming)
		pthread_join(tid, NULL);
	if (p)
		p->shared = w.s;
	else
		xp_shared_free(w.s);
	return p;
}

int xp_run_analysis(struct xp_ctx *ctx, const struct xp_analysis *a, const void *opts)
{
	struct xp_capture *c;
	int rc = xp_load(ctx, &c);
	if (rc)
		return rc;
	struct xp_err e = {0};
	struct xp_prep *p = NULL;
	if (a->needs != XP_NEEDS_CAPTURE) {
		p = prepare_warm(ctx, c, a, &e);
		if (!p) {
			xp_capture_free(c);
			return xp_usage_error(ctx, "%s", e.msg);
		}
	}
	struct xp_run_in in = {.c = c, .p = p, .opts = opts, .xprof_compat = ctx->xprof_compat};
	struct xp_result *r = a->run(&in);
	if (r)
		xp_result_set_semantics(r, xp_capture_semantics(c));
	rc = xp_emit_read(ctx, c, r);
	xp_result_free(r);
	struct xp_shared *shared = p ? p->shared : NULL;
	xp_prep_free(p);
	xp_shared_free(shared);
	xp_capture_free(c);
	return rc;
}

int xp_check_regex(const struct xp_ctx *ctx, const char *opt, const char *arg)
{
	regex_t re;
	int rc = regcomp(&re, arg, REG_EXTENDED | REG_NOSUB);
	if (!rc) {
		regfree(&re);
		return 0;
	}
	char buf[128];
	regerror(rc, &re, buf, sizeof buf);
	return xp_usage_error(ctx, "bad %s regular expression '%s': %s", opt, arg, buf);
}

int xp_parse_choice(const struct xp_ctx *ctx, const char *opt, const char *arg, const char *const *names,
		    size_t n, int *out)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, names[i])) {
			*out = (int)i;
			return 0;
		}
	char list[256] = "";
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? (i + 1 == n ? " or " : ", ") : "",
			 names[i]);
	char hint[256];
	xp_did_you_mean(hint, sizeof hint, arg, names, n, false, 1);
	return xp_usage_error(ctx, "%s takes %s, not '%s'%s", opt, list, arg, hint);
}
