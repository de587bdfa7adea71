/* xplane_read.c - reading one XSpace into the capture model: the three steps in order, threads, and the host's totals. */
#include "xplane_read.h"
#include "xplane_host.h"
#include "formats/core/work.h"
#include "formats/core/xalloc.h"
#include "input.h"

#include <stdlib.h>
#include <string.h>

/* The steps and the files that hold them: xplane_host.h. */

/* --- threads -------------------------------------------------------------- */

typedef int (*job_fn)(struct host_reader *hr, size_t job, struct xp_oddities *odd);

struct worker_arg {
	struct host_reader *hr;
	job_fn fn;
	size_t n_jobs;
	struct xp_oddities *odd;
};

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct host_reader *hr = wa->hr;
	for (;;) {
		size_t j = atomic_fetch_add(&hr->next, 1);
		if (j >= wa->n_jobs || atomic_load(&hr->r.failed))
			break;
		if (wa->fn(hr, j, wa->odd))
			break;
	}
	return NULL;
}

static int run_parallel(struct host_reader *hr, job_fn fn, size_t n_jobs)
{
	int threads = hr->opts->threads < 1 ? 1 : hr->opts->threads;
	if ((size_t)threads > n_jobs)
		threads = n_jobs ? (int)n_jobs : 1;
	atomic_store(&hr->next, 0);
	struct worker_arg *args = xcalloc((size_t)threads, sizeof *args);
	pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
	for (int t = 0; t < threads; t++)
		args[t] = (struct worker_arg){hr, fn, n_jobs, &hr->thread_odd[t]};
	int started = 0;
	for (int t = 1; t < threads; t++)
		if (pthread_create(&tids[t], NULL, worker, &args[t]) == 0)
			started = t;
		else
			break;
	worker(&args[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	free(args);
	free(tids);
	return atomic_load(&hr->r.failed) ? -1 : 0;
}

static int job_walk_line(struct host_reader *hr, size_t j, struct xp_oddities *odd)
{
	(void)odd;
	return xpr_walk_line(hr, &hr->lines[j]);
}

static int job_decode_block(struct host_reader *hr, size_t j, struct xp_oddities *odd)
{
	return xpr_decode_block(hr, &hr->blocks[j], odd);
}

/* --- the host ----------------------------------------------------------------- */

/* The host base is the earliest line timestamp; a line too far from it (an
 * un-normalized epoch timestamp among normalized ones) keeps its own base. */
static void set_time_bases(struct host_reader *hr)
{
	struct xp_host *h = hr->host;
	bool any = false;
	for (size_t i = 0; i < hr->n_lines; i++) {
		int64_t ts = hr->lines[i].line->timestamp_ns;
		if (!any || ts < h->base_ns)
			h->base_ns = ts;
		any = true;
	}
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct line_job *lj = &hr->lines[i];
		int64_t delta, ps;
		if (__builtin_sub_overflow(lj->line->timestamp_ns, h->base_ns, &delta) ||
		    __builtin_mul_overflow(delta, (int64_t)1000, &ps)) {
			lj->line->time_overflow = true;
			ps = 0;
		}
		lj->line_base_ps = ps;
	}
}

static void prepare_lines(struct host_reader *hr)
{
	size_t total = 0;
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct line_job *lj = &hr->lines[i];
		struct xp_line *l = lj->line;
		xpr_name_line(hr, lj);
		l->n_blocks = lj->n_block_off;
		l->blocks = xcalloc(l->n_blocks, sizeof *l->blocks);
		l->start_ps = xmalloc(l->n_events * sizeof *l->start_ps);
		l->dur32 = xmalloc(l->n_events * sizeof *l->dur32);
		xp_line_size_meta(l, l->n_events, lj->plane->n_emeta);
		l->stat_begin = xmalloc(l->n_events * sizeof *l->stat_begin);
		l->key_begin = xmalloc(l->n_events * sizeof *l->key_begin);
		total += l->n_blocks; /* each block job faults its part of the arrays in, side by side */
	}
	hr->blocks = xcalloc(total, sizeof *hr->blocks);
	for (size_t i = 0; i < hr->n_lines; i++)
		for (uint32_t b = 0; b < hr->lines[i].line->n_blocks; b++)
			hr->blocks[hr->n_blocks++] = (struct block_job){&hr->lines[i], b};
}

static void finish_lines(struct host_reader *hr)
{
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct xp_line *l = hr->lines[i].line;
		/* Blocks check order inside themselves; check the seams. */
		for (uint32_t b = 1; b < l->n_blocks && !l->unsorted; b++) {
			uint64_t k = (uint64_t)b << XP_BLOCK_SHIFT;
			if (l->start_ps[k] < l->start_ps[k - 1])
				l->unsorted = true;
		}
		for (uint32_t b = 0; b < l->n_blocks; b++) {
			l->n_stats += (uint64_t)l->blocks[b].stats.n + l->blocks[b].stats.n_dropped;
			l->n_aggregated += l->blocks[b].n_aggregated;
			l->time_overflow |= l->blocks[b].time_overflow;
			l->unsorted |= l->blocks[b].unsorted;
		}
		if (l->unsorted)
			hr->host->odd.unsorted_lines++;
		if (l->time_overflow)
			hr->host->odd.time_overflow_lines++;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

struct name_at {
	uint32_t name, plane;
};

static int cmp_name_at(const void *a, const void *b)
{
	const struct name_at *x = a, *y = b;
	xp_work_steps++;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return (x->plane > y->plane) - (x->plane < y->plane);
}

/* Planes whose name an earlier plane has point at the first of them: sorted
 * by (name, position), so a million planes cost n log n, not n^2. */
static void mark_duplicate_planes(struct xp_host *h)
{
	if (h->n_planes < 2)
		return;
	struct name_at *v = xmalloc(h->n_planes * sizeof *v);
	for (uint32_t i = 0; i < h->n_planes; i++)
		v[i] = (struct name_at){h->planes[i].base_name, i};
	qsort(v, h->n_planes, sizeof *v, cmp_name_at);
	uint32_t first = 0;
	for (uint32_t i = 1; i < h->n_planes; i++) {
		if (v[i].name != v[i - 1].name) {
			first = i;
			continue;
		}
		h->planes[v[i].plane].dup_of_plane = v[first].plane + 1;
		h->odd.duplicate_planes++;
	}
	xp_work_add(XP_WORK_PLANES, h->n_planes);
	xp_work_flush(XP_WORK_PLANES);
	free(v);
}

static void count_duplicates(struct xp_host *h)
{
	mark_duplicate_planes(h);
	for (uint32_t i = 0; i < h->n_planes; i++) {
		struct xp_plane *pl = &h->planes[i];
		if (pl->n_lines < 2)
			continue;
		int64_t *ids = xmalloc(pl->n_lines * sizeof *ids);
		for (uint32_t k = 0; k < pl->n_lines; k++)
			ids[k] = pl->lines[k].id;
		qsort(ids, pl->n_lines, sizeof *ids, cmp_i64);
		for (uint32_t k = 1; k < pl->n_lines; k++)
			if (ids[k] == ids[k - 1])
				h->odd.duplicate_lines++;
		free(ids);
	}
}

static void sum_oddities(struct xp_oddities *dst, const struct xp_oddities *src)
{
	const uint64_t *s = (const uint64_t *)src;
	uint64_t *d = (uint64_t *)dst;
	for (size_t k = 0; k < sizeof *src / sizeof(uint64_t); k++)
		d[k] += s[k];
}

static void detect_grouping(struct xp_capture *c, struct xp_host *h)
{
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (xp_plane_stat_id(c, &h->planes[i], "group_id")) {
			h->pre_grouped = true;
			return;
		}
}

static void free_host_reader(struct host_reader *hr)
{
	for (size_t i = 0; i < hr->n_lines; i++) {
		free(hr->lines[i].block_off);
		free(hr->lines[i].chunks);
	}
	free(hr->lines);
	free(hr->blocks);
	if (hr->pctx)
		for (uint32_t i = 0; i < hr->plane_ranges.n; i++) {
			xp_idmap_free(&hr->pctx[i].emap);
			xp_idmap_free(&hr->pctx[i].smap);
		}
	free(hr->pctx);
	free(hr->plane_ranges.v);
	free(hr->thread_odd);
	pthread_mutex_destroy(&hr->r.err_lock);
}

/* Does the read leave LJ's events out (xp_read_opts.device_events_only)? */
static bool events_left_out(const struct host_reader *hr, const struct line_job *lj)
{
	enum xp_plane_kind k = lj->plane->kind;
	return hr->opts->device_events_only && k != XP_PLANE_GPU && k != XP_PLANE_TPU && k != XP_PLANE_DEVICE_OTHER;
}

/* A walked line whose events are left out: none kept, no blocks to decode, its pages given back. */
static void leave_out_events(struct host_reader *hr, struct line_job *lj)
{
	lj->line->n_events = 0;
	lj->n_block_off = 0;
	xpr_release_range(hr, lj->beg, lj->end);
}

/* One thread: each line walked and decoded in one pass, then the times moved to the host base. */
static int decode_fused(struct host_reader *hr)
{
	/* line_base_ps stays 0 while decoding: the event decoder keeps the offsets as they are. */
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct line_job *lj = &hr->lines[i];
		if (!events_left_out(hr, lj)) {
			if (xpr_walk_decode_line(hr, lj, &hr->thread_odd[0]))
				return -1;
		} else if (xpr_walk_line(hr, lj)) {
			return -1;
		} else {
			leave_out_events(hr, lj);
			xpr_name_line(hr, lj);
		}
	}
	set_time_bases(hr);
	for (size_t i = 0; i < hr->n_lines; i++)
		xpr_rebase_line(&hr->lines[i]);
	return 0;
}

/* Several threads: every line walked, then the blocks of every line decoded. */
static int decode_parallel(struct host_reader *hr)
{
	if (run_parallel(hr, job_walk_line, hr->n_lines))
		return -1;
	set_time_bases(hr);
	for (size_t i = 0; i < hr->n_lines; i++)
		if (events_left_out(hr, &hr->lines[i]))
			leave_out_events(hr, &hr->lines[i]);
	prepare_lines(hr);
	return run_parallel(hr, job_decode_block, hr->n_blocks);
}

static char *dup_name(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* The host's totals, oddities and name, once every line is decoded. */
static void finish_host(struct host_reader *hr, int threads, const char *path)
{
	struct xp_capture *c = hr->cap;
	finish_lines(hr);
	count_duplicates(hr->host);
	for (int t = 0; t < threads; t++)
		sum_oddities(&hr->host->odd, &hr->thread_odd[t]);
	detect_grouping(c, hr->host);
	if (hr->host->n_hostnames && xp_strlen(c, hr->host->hostnames[0]))
		hr->host->name = dup_name(xp_str(c, hr->host->hostnames[0]));
	else
		hr->host->name = xp_host_from_filename(path ? path : "");
}

static void start_host(struct host_reader *hr, struct xp_capture *c, const char *path, const uint8_t *data,
		       uint64_t len, const struct xp_read_opts *o, struct xp_err *err)
{
	memset(hr, 0, sizeof *hr);
	hr->r.base = data;
	hr->r.path = path;
	hr->r.err = err;
	pthread_mutex_init(&hr->r.err_lock, NULL);
	hr->cap = c;
	hr->opts = o;
	hr->host = xp_capture_add_host(c);
	hr->host->path = dup_name(path ? path : "");
	hr->host->format = XP_FMT_XSPACE;
	hr->host->decoded_bytes = len;
	hr->thread_odd = xcalloc((size_t)(o->threads < 1 ? 1 : o->threads), sizeof *hr->thread_odd);
}

/* Threads meet faults in whatever order they run, and the walk of every line comes before any event:
 * the failed host is dropped and the file read again on one thread, which meets them in one fixed
 * order, so that the fault reported does not depend on --threads (nor on timing). */
static int reread_one_thread(struct xp_capture *c, const char *path, const uint8_t *data, uint64_t len,
			     const struct xp_read_opts *o, struct xp_err *err)
{
	bool *keep = xcalloc(c->n_hosts, sizeof *keep);
	for (uint32_t h = 0; h + 1 < c->n_hosts; h++)
		keep[h] = true;
	xp_capture_keep_hosts(c, keep);
	free(keep);
	if (err)
		*err = (struct xp_err){0};
	struct xp_read_opts one = *o;
	one.threads = 1;
	return xp_read_xspace(c, path, data, len, &one, err);
}

int xp_read_xspace(struct xp_capture *c, const char *path, const uint8_t *data, uint64_t len,
		   const struct xp_read_opts *o, struct xp_err *err)
{
	struct host_reader hr;
	start_host(&hr, c, path, data, len, o, err);
	int threads = o->threads < 1 ? 1 : o->threads;
	int rc = xpr_read_space(&hr, data, data + len);
	if (!rc)
		rc = xpr_read_planes(&hr);
	if (!rc)
		rc = threads == 1 ? decode_fused(&hr) : decode_parallel(&hr);
	if (!rc)
		finish_host(&hr, threads, path);
	free_host_reader(&hr);
	if (rc && threads > 1)
		return reread_one_thread(c, path, data, len, o, err);
	return rc ? -1 : 0;
}

/* --- streamed: each line's events on demand ---------------------------------------------- */

struct xp_xspace_stream {
	struct host_reader hr;
	struct xp_read_opts opts;       /* the caller's, on one thread */
	struct xp_buf buf;              /* the file's bytes, held until the stream closes */
	uintptr_t host_path;            /* its host's path: the hosts array moves as hosts come, a path does not */
	size_t next;                    /* where the search for a line starts (they are asked for in order) */
};

/* Every line's own fields and event count, the host base, names and totals: all but the events. The walk
 * checks every event's framing, so that a line's decode later meets only faults inside events. */
static int read_headers(struct host_reader *hr, const char *path)
{
	for (size_t i = 0; i < hr->n_lines; i++) {
		if (xpr_walk_line_chunks(hr, &hr->lines[i], hr->opts->stream_spans))
			return -1;
		/* the line is read again when decoded: meanwhile its pages need not stay */
		xpr_release_range(hr, hr->lines[i].beg, hr->lines[i].end);
	}
	set_time_bases(hr);
	for (size_t i = 0; i < hr->n_lines; i++)
		xpr_name_line(hr, &hr->lines[i]);
	finish_host(hr, 1, path);
	return 0;
}

void xp_xspace_stream_close(struct xp_xspace_stream *s)
{
	if (!s)
		return;
	free_host_reader(&s->hr);
	xp_buf_close(&s->buf);
	free(s);
}

void xp_xspace_streams_close(struct xp_xspace_streams *l)
{
	for (size_t i = 0; i < l->n; i++)
		xp_xspace_stream_close(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int xp_xspace_stream_open(struct xp_capture *c, const char *path, struct xp_buf *buf, const struct xp_read_opts *o,
			  struct xp_xspace_stream **out, struct xp_err *err)
{
	struct xp_xspace_stream *s = xcalloc(1, sizeof *s);
	s->opts = *o;
	s->opts.threads = 1;
	s->buf = *buf;
	memset(buf, 0, sizeof *buf);
	start_host(&s->hr, c, path, s->buf.data, s->buf.len, &s->opts, err);
	s->host_path = (uintptr_t)s->hr.host->path;
	int rc = xpr_read_space(&s->hr, s->buf.data, s->buf.data + s->buf.len);
	if (!rc)
		rc = xpr_read_planes(&s->hr);
	if (!rc)
		rc = read_headers(&s->hr, path);
	if (rc) {
		xp_xspace_stream_close(s);
		s = NULL;
	}
	*out = s;
	return rc ? -1 : 0;
}

bool xp_xspace_stream_is_for(const struct xp_xspace_stream *s, const struct xp_host *h)
{
	return s && (uintptr_t)h->path == s->host_path;
}

static struct line_job *find_line(struct xp_xspace_stream *s, const struct xp_line *l)
{
	size_t n = s->hr.n_lines;
	for (size_t k = 0; k < n; k++) {
		size_t j = (s->next + k) % n;
		if (s->hr.lines[j].line == l) {
			s->next = j + 1;
			return &s->hr.lines[j];
		}
	}
	return NULL;
}

static int stream_line(struct xp_xspace_stream *s, struct xp_host *h, struct xp_line *l, const int64_t *lo_hi,
		       struct xp_err *err)
{
	struct line_job *lj = find_line(s, l);
	if (!lj || lj->streamed)
		return 0; /* not one of this host's lines, or decoded already */
	struct host_reader *hr = &s->hr;
	hr->host = h;
	hr->r.err = err;
	lj->streamed = true;
	/* as the one-thread read: times relative to the line while decoding, then moved to the host base */
	int64_t base = lj->line_base_ps;
	struct xpr_window w = {base, lo_hi ? lo_hi[0] : 0, lo_hi ? lo_hi[1] : 0};
	lj->line_base_ps = 0;
	l->n_events = 0;
	int rc = xpr_walk_decode_line_in(hr, lj, &hr->thread_odd[0], lo_hi ? &w : NULL);
	lj->line_base_ps = base;
	if (rc)
		return -1;
	xpr_rebase_line(lj);
	return 0;
}

int xp_xspace_stream_line(struct xp_xspace_stream *s, struct xp_host *h, struct xp_line *l, struct xp_err *err)
{
	return stream_line(s, h, l, NULL, err);
}

int xp_xspace_stream_line_in(struct xp_xspace_stream *s, struct xp_host *h, struct xp_line *l, int64_t lo, int64_t hi,
			     struct xp_err *err)
{
	int64_t lo_hi[2] = {lo, hi};
	return stream_line(s, h, l, lo_hi, err);
}

/* --- the spans of a whole read, for a stream of the same file -------------------------------- */

struct xp_run_spans {
	size_t n_lines, n_runs;
	uint64_t *n_events;             /* per line: the planes in order, their lines in order */
	struct xp_run_span {
		int64_t first, last;
	} *runs;                        /* each line's runs of XPR_CHUNK events, in order */
};

struct xp_run_spans *xp_run_spans_of(const struct xp_host *h)
{
	struct xp_run_spans *sp = xcalloc(1, sizeof *sp);
	for (uint32_t i = 0; i < h->n_planes; i++)
		for (uint32_t k = 0; k < h->planes[i].n_lines; k++) {
			sp->n_lines++;
			sp->n_runs += (h->planes[i].lines[k].n_events + XPR_CHUNK - 1) / XPR_CHUNK;
		}
	sp->n_events = xcalloc(sp->n_lines ? sp->n_lines : 1, sizeof *sp->n_events);
	sp->runs = xcalloc(sp->n_runs ? sp->n_runs : 1, sizeof *sp->runs);
	size_t line = 0, run = 0;
	for (uint32_t i = 0; i < h->n_planes; i++)
		for (uint32_t k = 0; k < h->planes[i].n_lines; k++) {
			const struct xp_line *l = &h->planes[i].lines[k];
			sp->n_events[line++] = l->n_events;
			for (uint64_t e = 0; e < l->n_events; e++) {
				struct xp_run_span *r = &sp->runs[run + e / XPR_CHUNK];
				int64_t end = xp_event_end(l, e); /* the reader keeps ends <= INT64_MAX */
				if (e % XPR_CHUNK == 0)
					*r = (struct xp_run_span){l->start_ps[e], end};
				if (l->start_ps[e] < r->first)
					r->first = l->start_ps[e];
				if (end > r->last)
					r->last = end;
			}
			run += (l->n_events + XPR_CHUNK - 1) / XPR_CHUNK;
		}
	return sp;
}

void xp_run_spans_free(struct xp_run_spans *sp)
{
	if (!sp)
		return;
	free(sp->n_events);
	free(sp->runs);
	free(sp);
}

bool xp_xspace_stream_use_spans(struct xp_xspace_stream *s, const struct xp_run_spans *sp)
{
	struct host_reader *hr = &s->hr;
	if (!sp || sp->n_lines != hr->n_lines)
		return false;
	for (size_t j = 0; j < hr->n_lines; j++) /* the same lines, the same events: else the file changed */
		if (hr->lines[j].n_walked != sp->n_events[j] || hr->lines[j].n_chunks != (sp->n_events[j] + XPR_CHUNK - 1) / XPR_CHUNK)
			return false;
	size_t run = 0;
	for (size_t j = 0; j < hr->n_lines; j++) {
		struct line_job *lj = &hr->lines[j];
		for (uint32_t c = 0; c < lj->n_chunks; c++, run++) {
			lj->chunks[c].first = sp->runs[run].first;
			lj->chunks[c].last = sp->runs[run].last;
		}
		lj->spans_in_host_time = true;
	}
	return true;
}
