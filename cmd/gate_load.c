/* gate_load.c - loading a path as a report (a saved JSON document or captures, prepared once) and parsing limits, for report, check and compare. */
#include "gate.h"
#include "config.h"
#include "formats/core/hash.h"
#include "formats/core/xalloc.h"
#include "formats/in/input.h"
#include "formats/out/out.h"
#include "formats/in/report_read.h"
#include "formats/core/xalloc.h"
#include "analyzers/memory/memory.h"
#include "analyzers/prepare/prep.h"
#include "analyzers/memory/profile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *join_paths(char **paths, size_t n)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(paths[i]) + 1;
	char *s = xcalloc(len, 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, paths[i]);
	}
	return s;
}

static char *dupn(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d)
		xp_oom();
	return d;
}

/* Provenance: each capture by its file name and its run directory's name (what is the same whatever
 * path was typed), the host it became, its size; the digest is made when the report is saved. */
void xp_gate_provenance(struct xp_report *rep, const struct xp_capture *c, bool xprof_compat)
{
	rep->version = dupn(XPSTAT_VERSION, sizeof XPSTAT_VERSION);
	rep->compat = dupn(xprof_compat ? "xprof" : "xpstat", 6);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_host *host = &c->hosts[h];
		size_t nl, rl;
		const char *name, *run;
		xp_path_run_parts(host->path, &name, &nl, &run, &rl);
		char *n = dupn(name, nl), *r = dupn(run, rl);
		xp_report_add_capture(rep, n, r, host->name, NULL, host->path, host->file_bytes);
		const char *prod = xp_host_producer(c, host);
		rep->captures[rep->n_captures - 1].producer = dupn(prod, strlen(prod));
		free(n);
		free(r);
	}
}

/* What check and compare read, in the order of their arguments: FIRST's captures, then SECOND's (a saved
 * report's as it recorded them; none for a result of an older xpstat). Their compat modes agree. */
struct xp_report *xp_gate_pair_provenance(const struct xp_report *first, const struct xp_report *second)
{
	struct xp_report *prov = xp_report_new(NULL);
	prov->version = dupn(XPSTAT_VERSION, sizeof XPSTAT_VERSION);
	const char *compat = first->compat ? first->compat : "xpstat";
	prov->compat = dupn(compat, strlen(compat));
	const struct xp_report *side[2] = {first, second};
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; side[s] && i < side[s]->n_captures; i++) {
			const struct xp_report_capture *k = &side[s]->captures[i];
			xp_report_add_capture(prov, k->name, k->run, k->host, NULL, NULL, k->bytes);
			if (k->producer)
				prov->captures[prov->n_captures - 1].producer = dupn(k->producer, strlen(k->producer));
		}
	return prov;
}

int xp_gate_digest(struct xp_report *rep)
{
	for (size_t i = 0; i < rep->n_captures; i++) {
		struct xp_report_capture *k = &rep->captures[i];
		if (k->digest || !k->path)
			continue;
		FILE *f = fopen(k->path, "rb");
		if (!f) {
			xp_eprintf("xpstat: %s: cannot open: %s\n", k->path, strerror(errno));
			return XP_EXIT_BAD_INPUT;
		}
		static uint8_t buf[1 << 20];
		uint64_t h = 0x9e3779b97f4a7c15ull;
		size_t got;
		while ((got = fread(buf, 1, sizeof buf, f)) > 0)
			h = xp_hash_bytes(h, buf, got);
		bool bad = ferror(f);
		fclose(f);
		if (bad) {
			xp_eprintf("xpstat: %s: cannot read\n", k->path);
			return XP_EXIT_BAD_INPUT;
		}
		k->digest = xcalloc(17, 1);
		snprintf(k->digest, 17, "%016llx", (unsigned long long)h);
	}
	return 0;
}

/* One decode (xp_load), one preparation (in xp_report_run), then the analyses. */
static int run_captures(struct xp_ctx *ctx, char **paths, size_t n, const char *const *only, struct xp_report **out,
			uint32_t *hosts)
{
	char **saved_paths = ctx->paths;
	size_t saved_n = ctx->n_paths;
	struct xp_capture *c;
	ctx->paths = paths;
	ctx->n_paths = n;
	int rc = xp_load(ctx, &c);
	ctx->paths = saved_paths;
	ctx->n_paths = saved_n;
	if (rc)
		return rc;
	struct xp_err e = {0};
	struct xp_prep_opts po = {.xprof_compat = ctx->xprof_compat, .step_marker = ctx->step_marker};
	/* The HTML page draws the memory timeline: sampled, each window's lowest and highest point, so its size
	 * does not grow with the events and the peak survives. */
	struct xp_memory_opts mo = {.breakdown = true, .timeline = true, .points = XP_HTML_MEMORY_POINTS, .minmax = true};
	struct xp_report_opts ro = {.xprof_compat = ctx->xprof_compat, .threads = ctx->threads,
				    .state = ctx->report_state};
	if (ctx->memory_timeline)
		ro.opts[xp_analysis_index(&xp_analysis_memory)] = &mo;
	struct xp_report *rep = xp_report_run(c, &po, &ro, only, &e);
	if (!rep) {
		xp_capture_free(c);
		return xp_usage_error(ctx, "%s", e.msg);
	}
	free(rep->source);
	rep->source = join_paths(paths, n);
	xp_gate_provenance(rep, c, ctx->xprof_compat);
	if (hosts)
		*hosts = c->n_hosts;
	xp_capture_free(c);
	*out = rep;
	return 0;
}

int xp_gate_load(struct xp_ctx *ctx, char **paths, size_t n, const char *const *only, struct xp_report **out)
{
	*out = NULL;
	size_t saved = 0;
	for (size_t i = 0; i < n; i++)
		saved += xp_saved_json_path(paths[i]);
	if (!saved)
		return run_captures(ctx, paths, n, only, out, NULL);
	if (n != 1)
		return xp_usage_error(ctx, "a saved xpstat result (JSON) stands alone: not with other paths");
	struct xp_err err = {0};
	if (!ctx->max_input_bytes)
		ctx->max_input_bytes = xp_physical_memory();
	if (xp_report_read(paths[0], ctx->max_input_bytes, out, &err)) {
		xp_err_print(&err);
		return err.status ? err.status : XP_EXIT_BAD_INPUT;
	}
	return 0;
}

const char *xp_gate_report_semantics(const struct xp_report *rep)
{
	for (size_t i = 0; rep && i < rep->n; i++)
		if (rep->sec[i].r && rep->sec[i].r->semantics)
			return rep->sec[i].r->semantics;
	return NULL;
}

int xp_gate_same_semantics(const struct xp_report *base, const char *base_path, const struct xp_report *cand)
{
	const char *b = xp_gate_report_semantics(base), *c = xp_gate_report_semantics(cand);
	if (!strcmp(b ? b : "", c ? c : ""))
		return 0;
	/* Numbers made by other rules: a false regression (or improvement) otherwise. */
	fprintf(stderr, "xpstat: %s: made with %s semantics, the candidate with %s: regenerate the baseline with this "
		"xpstat\n", base_path, b ? b : (c && !strncmp(c, "pytorch", 7) ? "older PyTorch" : "TensorFlow/JAX"),
		c ? c : "TensorFlow/JAX");
	return XP_EXIT_BAD_INPUT;
}

int xp_gate_load_captures(struct xp_ctx *ctx, struct xp_report **out, uint32_t *hosts)
{
	*out = NULL;
	return run_captures(ctx, ctx->paths, ctx->n_paths, NULL, out, hosts);
}

/* --- limits ----------------------------------------------------------------------------------------- */

/* Decimal "123.456" into an integer scaled by 10^DIGITS (extra digits are cut); false on junk or overflow. */
static bool parse_decimal(const char *s, size_t len, int digits, int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;
	bool any = false;
	for (; i < len && isdigit((unsigned char)s[i]); i++, any = true) {
		if (v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	int frac = 0;
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++, any = true) {
			if (frac >= digits)
				continue;
			if (v > (INT64_MAX - 9) / 10)
				return false;
			v = v * 10 + (s[i] - '0');
			frac++;
		}
	}
	if (!any || i != len)
		return false;
	for (; frac < digits; frac++) {
		if (v > INT64_MAX / 10)
			return false;
		v *= 10;
	}
	*out = v;
	return true;
}

bool xp_parse_duration(const char *s, int64_t *ps)
{
	static const struct {
		const char *unit;
		int digits;     /* ps = value * 10^digits */
	} units[] = {{"ps", 0}, {"ns", 3}, {"us", 6}, {"\xc2\xb5s", 6}, {"ms", 9}, {"s", 12}};
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		size_t ul = strlen(units[i].unit);
		if (n > ul && !strcmp(s + n - ul, units[i].unit) &&
		    (isdigit((unsigned char)s[n - ul - 1]) || s[n - ul - 1] == '.'))
			return parse_decimal(s, n - ul, units[i].digits, ps);
	}
	return false;
}

bool xp_parse_percent(const char *s, bool bare_ok, double *pct)
{
	size_t n = s ? strlen(s) : 0;
	bool sign = n && s[n - 1] == '%';
	if (!n || (!sign && !bare_ok))
		return false;
	char buf[64];
	if (n - sign >= sizeof buf)
		return false;
	memcpy(buf, s, n - sign);
	buf[n - sign] = 0;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || end == buf || *end || !isfinite(v) || v < 0 || v > 1e6 || !isdigit((unsigned char)buf[0]))
		return false;
	*pct = v;
	return true;
}

bool xp_parse_limit(const char *s, struct xp_limit *l)
{
	memset(l, 0, sizeof *l);
	if (xp_parse_percent(s, false, &l->pct)) {
		l->kind = XP_LIM_PCT;
		return true;
	}
	if (xp_parse_duration(s, &l->v)) {
		l->kind = XP_LIM_DUR;
		return true;
	}
	return false;
}

bool xp_parse_confidence(const char *s, double *c)
{
	double v;
	size_t n = s ? strlen(s) : 0;
	if (n && s[n - 1] == '%') {
		if (!xp_parse_percent(s, false, &v))
			return false;
		v /= 100;
	} else {
		char *end;
		errno = 0;
		v = strtod(s, &end);
		if (errno || end == s || *end || !isdigit((unsigned char)s[0]))
			return false;
	}
	if (!(v >= 0.5 && v < 1))
		return false;
	*c = v;
	return true;
}
