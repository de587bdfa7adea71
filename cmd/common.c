/* common.c - what every command shares: loading captures, writing results, parsing option values. */
#include "cmd.h"
#include "../formats/input.h"
#include "../formats/out.h"
#include "../formats/xplane_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int xp_usage_error(const struct xp_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (ctx && ctx->cmd)
		fprintf(stderr, "xpstat: %s: ", ctx->cmd->name);
	else
		fputs("xpstat: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return XP_EXIT_USAGE;
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

static bool show_progress(const struct xp_ctx *ctx, uint64_t bytes)
{
	return !ctx->quiet && bytes >= (256ull << 20) && isatty(STDERR_FILENO);
}

static int load_file(struct xp_ctx *ctx, struct xp_capture *c, const struct xp_input_file *f, struct xp_err *err)
{
	struct xp_buf buf;
	if (xp_buf_open(f->path, ctx->max_input_bytes, &buf, err))
		return -1;
	bool progress = show_progress(ctx, buf.len);
	if (progress)
		fprintf(stderr, "xpstat: reading %s (%.1f MB)...\r", f->path, (double)buf.len / 1e6);
	int rc;
	if (f->kind == XP_FILE_TRACE_JSON) {
		rc = xp_err_set(err, XP_EXIT_BAD_INPUT, f->path, "trace JSON input is not supported yet");
	} else {
		struct xp_read_opts ro = {.threads = ctx->threads, .release_pages = buf.map != NULL};
		rc = xp_read_xspace(c, f->path, buf.data, buf.len, &ro, err);
	}
	if (!rc) {
		struct xp_host *h = &c->hosts[c->n_hosts - 1];
		h->compression = buf.comp;
		h->file_bytes = buf.file_bytes;
		h->decoded_bytes = buf.len;
	}
	if (progress)
		fprintf(stderr, "\033[K");
	xp_buf_close(&buf);
	return rc;
}

int xp_load(struct xp_ctx *ctx, struct xp_capture **out)
{
	struct xp_err err = {0};
	struct xp_input_list in = {0};
	*out = NULL;
	if (!ctx->max_input_bytes)
		ctx->max_input_bytes = xp_physical_memory();
	if (xp_resolve_inputs(ctx->paths, ctx->n_paths, ctx->run, ctx->host, &in, &err)) {
		xp_err_print(&err);
		return err.status ? err.status : XP_EXIT_BAD_INPUT;
	}
	struct xp_capture *c = xp_capture_new();
	for (size_t i = 0; i < in.n; i++) {
		if (load_file(ctx, c, &in.files[i], &err)) {
			xp_err_print(&err);
			xp_capture_free(c);
			xp_input_list_free(&in);
			return err.status ? err.status : XP_EXIT_BAD_INPUT;
		}
	}
	xp_input_list_free(&in);
	*out = c;
	return 0;
}

static bool want_color(const struct xp_ctx *ctx)
{
	if (ctx->color >= 0)
		return ctx->color == 1;
	const char *term = getenv("TERM");
	if (getenv("NO_COLOR") || (term && !strcmp(term, "dumb")) || ctx->output)
		return false;
	return isatty(STDOUT_FILENO);
}

int xp_emit(struct xp_ctx *ctx, const struct xp_result *r)
{
	const struct xp_writer *w = xp_writer_find(ctx->format);
	if (!w)
		return xp_usage_error(ctx, "unknown --format '%s'", ctx->format);
	struct xp_out_opts oo = {
		.table = ctx->table,
		.csv_raw = ctx->csv_raw,
		.color = want_color(ctx),
		.tty = !ctx->output && isatty(STDOUT_FILENO),
	};
	if (!ctx->output)
		return w->write(r, stdout, &oo);
	struct xp_outfile of;
	if (xp_outfile_open(&of, ctx->output)) {
		fprintf(stderr, "xpstat: %s: cannot create: %s\n", ctx->output, strerror(errno));
		return XP_EXIT_INTERNAL;
	}
	int rc = w->write(r, of.f, &oo);
	if (rc) {
		xp_outfile_abort(&of);
		return rc;
	}
	if (xp_outfile_commit(&of)) {
		fprintf(stderr, "xpstat: %s: cannot write: %s\n", ctx->output, strerror(errno));
		return XP_EXIT_INTERNAL;
	}
	return 0;
}
