/* xp2trace.c - test tool: export an XSpace (*.xplane.pb[.gz|.zst]) as TF-style trace JSON (spec xplane-format §6.1), read with the project's own reader. */
#include "formats/in/input.h"
#include "formats/core/xalloc.h"
#include "formats/in/xplane_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * What TSL's TraceContainerToJson writes, as the spec describes it:
 *   - /host:CPU as pid 701 (--host-pid 501 for TF 2.3), /device:GPU:N as pid
 *     1 + N (TPU planes when there is no GPU plane); no other plane;
 *   - process_name/process_sort_index per plane, thread_name/thread_sort_index
 *     per line (host lines numbered 1, 2, ...; device lines by tid), lines
 *     named "Async XLA Ops" skipped, tid = display_id or id as uint32;
 *   - one "X" event per event: ts = start / 1e6 and dur = max(dur, 1 ps) / 1e6
 *     microseconds printed with %.17g (--exact: exact decimals instead), name
 *     = display name (full name in args.long_name) or the step_name stat;
 *   - args: metadata stats, then event stats (the event's copy wins), sorted by
 *     key, every value a string, internal stats (_r, _p, _pt, _c, _ct, flops,
 *     program_id, symbol_id) left out; MemoryAllocation/Deallocation and the
 *     tf.data Produce/Consume events not exported;
 *   - the earliest --max-events events when capped (then ordered by start);
 *   - a trailing {} element.
 */

struct opts {
	const char *dropped;    /* write the per-line count of events not exported here */
	bool exact;
	int64_t host_pid;
	uint64_t max_events;    /* 0 = no cap */
};

struct out_event {
	uint32_t plane, line;
	uint64_t index;
	int64_t start;
};

/* JsonCpp-style quoting: '"', '\\' and control characters escaped, other bytes as they are. */
static void put_str(FILE *f, const char *s, size_t n)
{
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				putc(c, f);
		}
	}
	putc('"', f);
}

/* Picoseconds as microseconds: exact decimal, or the exporter's %.17g of a double. */
static void put_us(FILE *f, __int128 ps, bool exact)
{
	if (!exact) {
		fprintf(f, "%.17g", (double)ps / 1e6);
		return;
	}
	if (ps < 0) {
		putc('-', f);
		ps = -ps;
	}
	unsigned __int128 whole = (unsigned __int128)ps / 1000000;
	unsigned frac = (unsigned)((unsigned __int128)ps % 1000000);
	char digits[48];
	int n = 0;
	do {
		digits[n++] = (char)('0' + (int)(whole % 10));
		whole /= 10;
	} while (whole);
	while (n)
		putc(digits[--n], f);
	if (frac) {
		char fb[8];
		snprintf(fb, sizeof fb, "%06u", frac);
		int k = 6;
		while (fb[k - 1] == '0')
			k--;
		fprintf(f, ".%.*s", k, fb);
	}
}

static bool starts(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

static bool ends(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && !strcmp(s + n - k, suf);
}

static bool hidden_event(const char *name)
{
	if (!strcmp(name, "MemoryAllocation") || !strcmp(name, "MemoryDeallocation") ||
	    !strcmp(name, "ParallelInterleaveInitializeInput"))
		return true;
	static const char *const tfdata[] = {"Prefetch", "ParallelInterleave", "ParallelMap", "MapAndBatch",
					     "ParseExample", "ParallelBatch"};
	for (size_t i = 0; i < sizeof tfdata / sizeof *tfdata; i++)
		if (starts(name, tfdata[i]) && (ends(name, "Produce") || ends(name, "Consume")) &&
		    strlen(name) == strlen(tfdata[i]) + 7)
			return true;
	return false;
}

static bool internal_stat(const char *name)
{
	static const char *const hidden[] = {"_pt", "_p", "_ct", "_c", "_r", "flops", "program_id", "symbol_id"};
	for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++)
		if (!strcmp(name, hidden[i]))
			return true;
	return false;
}

/* The pid of each plane (-1: not exported). */
static int64_t *plane_pids(const struct xp_capture *c, const struct xp_host *h, const struct opts *o)
{
	int64_t *pid = xmalloc(h->n_planes * sizeof *pid);
	bool gpu = false, tpu = false;
	for (uint32_t i = 0; i < h->n_planes; i++) {
		gpu |= h->planes[i].kind == XP_PLANE_GPU;
		tpu |= h->planes[i].kind == XP_PLANE_TPU;
	}
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		const char *name = xp_str(c, p->name);
		pid[i] = -1;
		if (!strcmp(name, "/host:CPU"))
			pid[i] = o->host_pid;
		else if (p->kind == XP_PLANE_GPU || (!gpu && p->kind == XP_PLANE_TPU) ||
			 (!gpu && !tpu && starts(name, "/device:CUSTOM:")))
			pid[i] = 1 + (p->device_ordinal >= 0 ? p->device_ordinal : p->id);
	}
	return pid;
}

struct arg {
	uint32_t key;           /* interned stat name */
	const char *val;
	size_t len;
	char *owned;
};

static int cmp_arg(const void *a, const void *b, void *cap)
{
	const struct arg *x = a, *y = b;
	const struct xp_capture *c = cap;
	size_t nx = xp_strlen(c, x->key), ny = xp_strlen(c, y->key);
	int r = memcmp(xp_str(c, x->key), xp_str(c, y->key), nx < ny ? nx : ny);
	return r ? r : (nx > ny) - (nx < ny);
}

/* Stat values as the exporter prints them: integers in decimal, doubles with 6 significant digits. */
static void add_args(const struct xp_capture *c, const struct xp_plane *p, struct xp_stat_view v, struct arg **args,
		     size_t *n, size_t *cap)
{
	for (uint32_t k = 0; k < v.n; k++) {
		uint32_t sm = xp_stat_meta(v.keys[k]);
		if (!sm || sm >= p->n_smeta || xp_stat_kind(v.keys[k]) == XP_STAT_NONE)
			continue;
		uint32_t key = p->smeta[sm].name;
		if (internal_stat(xp_str(c, key)))
			continue;
		struct xp_value val;
		if (!xp_view_find(c, v, sm, &val))
			continue;
		struct arg a = {key, NULL, 0, NULL};
		char buf[64];
		uint32_t len;
		if (val.kind == XP_STAT_BYTES) {
			a.val = "<opaque bytes>";
			a.len = 14;
		} else if (val.kind == XP_STAT_F64) {
			snprintf(buf, sizeof buf, "%g", val.d);
			a.owned = strdup(buf);
			a.val = a.owned;
			a.len = strlen(buf);
		} else {
			const char *s = xp_value_text(&val, buf, sizeof buf, &len);
			a.owned = xmalloc(len + 1);
			memcpy(a.owned, s, len);
			a.val = a.owned;
			a.len = len;
		}
		size_t i;
		for (i = 0; i < *n && (*args)[i].key != key; i++)
			;
		if (i < *n) {
			free((*args)[i].owned);
			(*args)[i] = a; /* the event's copy wins */
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*args = xrealloc(*args, *cap * sizeof **args);
		}
		(*args)[(*n)++] = a;
	}
}

/* The separator before an element of traceEvents. */
static void sep(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

static void put_event(FILE *f, const struct xp_capture *c, const struct xp_host *h, const struct xp_plane *p,
		      const struct xp_line *l, uint64_t i, int64_t pid, uint32_t tid, const struct opts *o, bool *first)
{
	static struct arg *args;
	static size_t cap;
	size_t n = 0;
	const struct xp_event_meta *m = &p->emeta[xp_meta_of(l, i)];
	add_args(c, p, xp_meta_stats(p, xp_meta_of(l, i)), &args, &n, &cap);
	add_args(c, p, xp_event_stats(l, i), &args, &n, &cap);
	uint32_t name = m->display_name && xp_strlen(c, m->display_name) ? m->display_name : m->name;
	const char *step_name = NULL;
	size_t step_len = 0;
	for (size_t k = 0; k < n; k++)
		if (!strcmp(xp_str(c, args[k].key), "step_name")) {
			step_name = args[k].val;
			step_len = args[k].len;
		}
	sep(f, first);
	fprintf(f, "{\"ph\":\"X\",\"pid\":%" PRId64 ",\"tid\":%u,\"ts\":", pid, tid);
	put_us(f, (__int128)h->base_ns * 1000 + l->start_ps[i], o->exact);
	fputs(",\"dur\":", f);
	put_us(f, xp_dur(l, i) > 0 ? xp_dur(l, i) : 1, o->exact);
	fputs(",\"name\":", f);
	if (step_name)
		put_str(f, step_name, step_len);
	else
		put_str(f, xp_str(c, name), xp_strlen(c, name));
	if (name != m->name) {
		/* long_name sorts with the other args */
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			args = xrealloc(args, cap * sizeof *args);
		}
		args[n++] = (struct arg){xp_intern((struct xp_strtab *)&c->strings, "long_name", 9), xp_str(c, m->name),
					 xp_strlen(c, m->name), NULL};
	}
	if (n) {
		qsort_r(args, n, sizeof *args, cmp_arg, (void *)c);
		fputs(",\"args\":{", f);
		for (size_t k = 0; k < n; k++) {
			if (k)
				putc(',', f);
			put_str(f, xp_str(c, args[k].key), xp_strlen(c, args[k].key));
			putc(':', f);
			put_str(f, args[k].val, args[k].len);
			free(args[k].owned);
		}
		putc('}', f);
	}
	putc('}', f);
}

static bool exported_line(const struct xp_capture *c, const struct xp_line *l)
{
	return strcmp(xp_str(c, l->name), "Async XLA Ops") != 0;
}

static uint32_t line_tid(const struct xp_line *l)
{
	return (uint32_t)(l->display_id ? l->display_id : l->id);
}

static int cmp_pid(const void *a, const void *b, void *pids)
{
	const int64_t *pid = pids;
	int64_t x = pid[*(const uint32_t *)a], y = pid[*(const uint32_t *)b];
	return (x > y) - (x < y);
}

static void put_metadata(FILE *f, const struct xp_capture *c, const struct xp_host *h, const int64_t *pid, bool *first)
{
	/* processes in ascending pid */
	uint32_t *order = xmalloc(h->n_planes * sizeof *order);
	uint32_t n = 0;
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (pid[i] >= 0)
			order[n++] = i;
	qsort_r(order, n, sizeof *order, cmp_pid, (void *)pid);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = order[j];
		const struct xp_plane *p = &h->planes[i];
		if (xp_strlen(c, p->name)) {
			sep(f, first);
			fprintf(f, "{\"ph\":\"M\",\"pid\":%" PRId64 ",\"name\":\"process_name\",\"args\":{\"name\":", pid[i]);
			put_str(f, xp_str(c, p->name), xp_strlen(c, p->name));
			fputs("}}", f);
		}
		sep(f, first);
		fprintf(f, "{\"ph\":\"M\",\"pid\":%" PRId64 ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%" PRId64
			   "}}", pid[i], pid[i]);
		uint32_t sort = 1;
		for (uint32_t k = 0; k < p->n_lines; k++) {
			const struct xp_line *l = &p->lines[k];
			if (!exported_line(c, l))
				continue;
			uint32_t tid = line_tid(l);
			uint32_t name = xp_strlen(c, l->display_name) ? l->display_name : l->name;
			sep(f, first);
			fprintf(f, "{\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
				pid[i], tid);
			put_str(f, xp_str(c, name), xp_strlen(c, name));
			fputs("}}", f);
			sep(f, first);
			fprintf(f, "{\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{"
				   "\"sort_index\":%u}}", pid[i], tid, p->kind == XP_PLANE_HOST_CPU ? sort++ : tid);
		}
	}
	free(order);
}

static int cmp_out(const void *a, const void *b)
{
	const struct out_event *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->plane != y->plane)
		return x->plane < y->plane ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* [{"pid":P,"tid":T,"dropped":N},...] for the lines that lost events (hidden names). */
static int write_dropped(const struct xp_capture *c, const struct xp_host *h, const int64_t *pid, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	bool first = true;
	fputc('[', f);
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		for (uint32_t k = 0; pid[i] >= 0 && k < p->n_lines; k++) {
			const struct xp_line *l = &p->lines[k];
			uint64_t n = 0;
			for (uint64_t e = 0; exported_line(c, l) && e < l->n_events; e++)
				n += hidden_event(xp_str(c, xp_event_name(p, l, e)));
			if (n)
				fprintf(f, "%s{\"pid\":%" PRId64 ",\"tid\":%u,\"dropped\":%" PRIu64 "}", first ? "" : ",", pid[i],
					line_tid(l), n);
			first = first && !n;
		}
	}
	fputs("]\n", f);
	return fclose(f);
}

static int export_host(FILE *f, const struct xp_capture *c, const struct xp_host *h, const struct opts *o)
{
	int64_t *pid = plane_pids(c, h, o);
	fputs("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":[", f);
	bool first = true;
	put_metadata(f, c, h, pid, &first);
	/* host plane first, then the devices, line by line */
	uint64_t total = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < h->n_planes; i++) {
			const struct xp_plane *p = &h->planes[i];
			if (pid[i] < 0 || (pass == 0) != (pid[i] == o->host_pid))
				continue;
			for (uint32_t k = 0; k < p->n_lines; k++)
				for (uint64_t e = 0; exported_line(c, &p->lines[k]) && e < p->lines[k].n_events; e++)
					total += !hidden_event(xp_str(c, xp_event_name(p, &p->lines[k], e)));
		}
	bool capped = o->max_events && total > o->max_events;
	struct out_event *keep = capped ? xmalloc(total * sizeof *keep) : NULL;
	size_t n_keep = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < h->n_planes; i++) {
			const struct xp_plane *p = &h->planes[i];
			if (pid[i] < 0 || (pass == 0) != (pid[i] == o->host_pid))
				continue;
			for (uint32_t k = 0; k < p->n_lines; k++) {
				const struct xp_line *l = &p->lines[k];
				if (!exported_line(c, l))
					continue;
				for (uint64_t e = 0; e < l->n_events; e++) {
					if (hidden_event(xp_str(c, xp_event_name(p, l, e))))
						continue;
					if (capped)
						keep[n_keep++] = (struct out_event){i, k, e, l->start_ps[e]};
					else
						put_event(f, c, h, p, l, e, pid[i], line_tid(l), o, &first);
				}
			}
		}
	if (capped) {
		/* the earliest events, then in start order */
		qsort(keep, n_keep, sizeof *keep, cmp_out);
		for (size_t k = 0; k < o->max_events; k++) {
			const struct xp_plane *p = &h->planes[keep[k].plane];
			const struct xp_line *l = &p->lines[keep[k].line];
			put_event(f, c, h, p, l, keep[k].index, pid[keep[k].plane], line_tid(l), o, &first);
		}
		free(keep);
	}
	sep(f, &first);
	fputs("{}]}\n", f);
	int rc = ferror(f) || (o->dropped && write_dropped(c, h, pid, o->dropped)) ? -1 : 0;
	free(pid);
	return rc;
}

static int usage(void)
{
	fputs("usage: xp2trace [--exact] [--host-pid N] [--max-events N] [--dropped FILE] IN.xplane.pb OUT.json\n"
	      "Write the trace JSON TF/TSL would export for an XSpace (one host). OUT '-' is stdout.\n"
	      "--dropped FILE: the per-line counts of events TF does not export (memory, tf.data produce/consume).\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = {NULL, false, 701, 0};
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--exact"))
			o.exact = true;
		else if (!strcmp(argv[i], "--host-pid") && i + 1 < argc)
			o.host_pid = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--dropped") && i + 1 < argc)
			o.dropped = argv[++i];
		else if (!strcmp(argv[i], "--max-events") && i + 1 < argc)
			o.max_events = strtoull(argv[++i], NULL, 10);
		else
			return usage();
	}
	if (argc - i != 2)
		return usage();
	struct xp_err err = {0};
	struct xp_buf buf;
	if (xp_buf_open(argv[i], 0, &buf, &err)) {
		xp_err_print(&err);
		return 3;
	}
	struct xp_capture *c = xp_capture_new();
	struct xp_read_opts ro = {.threads = 2, .release_pages = false};
	if (xp_read_xspace(c, argv[i], buf.data, buf.len, &ro, &err)) {
		xp_err_print(&err);
		return 3;
	}
	FILE *f = strcmp(argv[i + 1], "-") ? fopen(argv[i + 1], "w") : stdout;
	if (!f) {
		perror(argv[i + 1]);
		return 2;
	}
	static char obuf[1 << 20];
	setvbuf(f, obuf, _IOFBF, sizeof obuf);
	int rc = export_host(f, c, &c->hosts[0], &o);
	if (fclose(f) || rc) {
		perror(argv[i + 1]);
		rc = 1;
	}
	xp_capture_free(c);
	xp_buf_close(&buf);
	return rc;
}
