/* memgen.c - write a memory-heavy XSpace capture (MemoryAllocation/MemoryDeallocation events only) with its truth, for the memory benchmark and tests. */
//
// One host plane "/host:CPU" with --lines thread lines, each starting at a
// different timestamp_ns, so that the line-relative offsets of one
// allocator's events are not in time order (DESIGN §8). Every event carries
// the allocator stats of TF's BFC allocator and a group_id (one step per
// --step-events events), so the capture is "pre-grouped".
//
// The simulation runs twice with the same seed: pass 1 only measures each
// line's encoded size, pass 2 writes each line's events straight to their
// offsets (pwrite from small buffers). Memory stays bounded by the number of
// lines and allocators, not by the file size.
//
// --truth FILE writes per allocator what an analysis must find: counts, the
// peak (largest stack+heap, the later on a tie) with its time, step and
// stats, the lifetime peak (peak_bytes_in_use of the last event), the live
// allocations at the end and the deallocations of chunks allocated before
// the capture.

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXALC 64
#define MAXLINES 256
#define LBUF (1u << 20)
#define PRE_LIVE 8          /* chunks each allocator holds before the capture starts */

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "memgen: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s ? s : 1);
	if (!p)
		die("%s", "out of memory");
	return p;
}

/* --- protobuf encoding ------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		while (b->n + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("%s", "out of memory");
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	put(b, t, n);
}

static void put_tag(struct buf *b, unsigned field, unsigned wt)
{
	put_varint(b, (uint64_t)field << 3 | wt);
}

static void put_len(struct buf *b, unsigned field, const void *d, size_t n)
{
	put_tag(b, field, 2);
	put_varint(b, n);
	put(b, d, n);
}

static void put_str(struct buf *b, unsigned field, const char *s)
{
	put_len(b, field, s, strlen(s));
}

/* An XStat: metadata id and one value (kind: 'i' int64, 'u' uint64, 'r' ref, 'd' double). */
static void put_stat(struct buf *ev, int64_t mid, char kind, uint64_t v)
{
	uint8_t t[32];
	struct buf tmp = {t, 0, sizeof t};     /* never grows: a stat is at most 23 bytes */
	put_tag(&tmp, 1, 0);
	put_varint(&tmp, (uint64_t)mid);
	switch (kind) {
	case 'd':
		put_tag(&tmp, 2, 1);
		put(&tmp, &v, 8);
		break;
	case 'u':
		put_tag(&tmp, 3, 0);
		put_varint(&tmp, v);
		break;
	case 'r':
		put_tag(&tmp, 7, 0);
		put_varint(&tmp, v);
		break;
	default:
		put_tag(&tmp, 4, 0);
		put_varint(&tmp, v);
		break;
	}
	put_len(ev, 4, tmp.p, tmp.n);
}

/* --- the model ------------------------------------------------------------------ */

enum {
	S_ALLOCATOR = 1, S_RESERVED, S_ALLOCATED, S_AVAILABLE, S_FRAG, S_PEAK, S_REQUESTED, S_ALLOC_BYTES, S_ADDR,
	S_TF_OP, S_REGION, S_DTYPE, S_SHAPE, S_GROUP, S_ID, N_STATS
};
static const char *const stat_names[N_STATS] = {
	NULL, "allocator_name", "bytes_reserved", "bytes_allocated", "bytes_available", "fragmentation",
	"peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", "tf_op", "region_type", "data_type",
	"shape", "group_id", "id",
};
/* String values are stat metadata entries (ref_value), ids from 100 up. */
#define REF_BASE 100
static const char *const ops[] = {
	"model/conv1/Conv2D:Conv2D", "model/conv1/Relu:Relu", "model/dense/MatMul:MatMul",
	"gradient_tape/model/dense/MatMul/MatMul_1:MatMul", "gradient_tape/model/conv1/ReluGrad:ReluGrad",
	"SGD/update/ResourceApplyGradientDescent:ResourceApplyGradientDescent", "model/dropout/Mul:Mul",
	"model/softmax/Softmax:Softmax",
};
static const char *const shapes[] = {"[32,224,224,3]", "[32,112,112,64]", "[2048,1000]", "[1000]", "[32,1000]",
				     "[64,64,3,3]", "[32,56,56,256]", "[]"};
static const char *const regions[] = {"output", "temp", "persist"};
static const int dtypes[] = {1, 19, 3, 9, 14, 10, 2, 1};
#define N_OPS (sizeof ops / sizeof *ops)
#define REF_OPS REF_BASE
#define REF_SHAPES (REF_OPS + 16)
#define REF_REGIONS (REF_SHAPES + 16)
#define REF_ALLOCATORS (REF_REGIONS + 8)

struct chunk {
	uint64_t addr;
	int64_t bytes, req;
	int op;
};

struct alc {
	char name[32];
	int64_t limit, reserved, inuse, peak_life, inuse0;
	uint64_t base, next;
	struct chunk *live;     /* FIFO ring */
	size_t head, n_live, cap;
	uint64_t n_alloc, n_dealloc, n_unmatched;
	/* truth */
	bool has_peak;
	int64_t peak, peak_t, peak_stack, peak_heap, peak_free, peak_step;
	double peak_frag;
	int64_t last_peak_life;
};

struct line {
	int64_t ts_ns;
	uint64_t events, bytes;     /* pass 1 */
	uint64_t off, wrote;        /* pass 2: where its events go */
	struct buf out;
};

struct gen {
	uint64_t seed, rng;
	uint64_t allocations;
	int n_alc, n_lines;
	uint64_t step_events;
	int64_t base_ns;
	struct alc alc[MAXALC];
	struct line ln[MAXLINES];
	int fd;
	bool write;
};

static uint64_t next_rand(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void chunk_push(struct alc *a, struct chunk c)
{
	if (a->n_live == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 64;
		struct chunk *n = xcalloc(ncap, sizeof *n);
		for (size_t i = 0; i < a->n_live; i++)
			n[i] = a->live[(a->head + i) % a->cap];
		free(a->live);
		a->live = n;
		a->head = 0;
		a->cap = ncap;
	}
	a->live[(a->head + a->n_live++) % a->cap] = c;
}

static struct chunk chunk_pop(struct alc *a)
{
	struct chunk c = a->live[a->head];
	a->head = (a->head + 1) % a->cap;
	a->n_live--;
	return c;
}

static void reset(struct gen *g)
{
	g->rng = g->seed;
	for (int k = 0; k < g->n_alc; k++) {
		struct alc *a = &g->alc[k];
		free(a->live);
		memset(a, 0, sizeof *a);
		snprintf(a->name, sizeof a->name, "GPU_%d_bfc", k);
		a->limit = 16LL << 30;
		a->reserved = (int64_t)(k + 1) << 20;
		a->base = 0x7f0000000000ull + ((uint64_t)k << 36);
		a->peak_life = 2LL << 30;
		/* Chunks allocated before the capture: their frees have no allocation in it. */
		for (int i = 0; i < PRE_LIVE; i++) {
			struct chunk c = {a->base + a->next, 1 << 20, 1 << 20, -1};
			a->next += c.bytes;
			a->inuse += c.bytes;
			chunk_push(a, c);
		}
		a->inuse0 = a->inuse;
	}
	for (int i = 0; i < g->n_lines; i++) {
		g->ln[i].events = g->ln[i].bytes = 0;
		g->ln[i].wrote = 0;
	}
}

static void flush_line(struct gen *g, struct line *l)
{
	if (!l->out.n)
		return;
	const uint8_t *p = l->out.p;
	size_t n = l->out.n;
	while (n) {
		ssize_t w = pwrite(g->fd, p, n, (off_t)(l->off + l->wrote));
		if (w <= 0)
			die("write: %s", strerror(errno));
		p += w;
		n -= (size_t)w;
		l->wrote += (uint64_t)w;
	}
	l->out.n = 0;
}

/* One memory event at absolute time t_ns on line li. */
static void emit(struct gen *g, int li, bool alloc, int64_t t_ns, const struct alc *a, const struct chunk *c,
		 int ak, int64_t step)
{
	static struct buf ev, rec;    /* reused: no allocation per event */
	struct line *l = &g->ln[li];
	ev.n = rec.n = 0;
	put_tag(&ev, 1, 0);
	put_varint(&ev, alloc ? 1 : 2);
	put_tag(&ev, 2, 0);
	put_varint(&ev, (uint64_t)(t_ns - l->ts_ns) * 1000);
	double frag = (double)((a->inuse >> 12) % 97) / 1000.0;
	uint64_t fbits;
	memcpy(&fbits, &frag, 8);
	put_stat(&ev, S_ALLOCATOR, 'r', REF_ALLOCATORS + (uint64_t)ak);
	put_stat(&ev, S_RESERVED, 'i', (uint64_t)a->reserved);
	put_stat(&ev, S_ALLOCATED, 'i', (uint64_t)a->inuse);
	put_stat(&ev, S_AVAILABLE, 'i', (uint64_t)(a->limit - a->reserved - a->inuse));
	put_stat(&ev, S_FRAG, 'd', fbits);
	put_stat(&ev, S_PEAK, 'i', (uint64_t)a->peak_life);
	put_stat(&ev, S_REQUESTED, 'i', (uint64_t)c->req);
	put_stat(&ev, S_ALLOC_BYTES, 'i', (uint64_t)c->bytes);
	put_stat(&ev, S_ADDR, 'u', c->addr);
	if (alloc) {
		put_stat(&ev, S_TF_OP, 'r', REF_OPS + (uint64_t)c->op);
		put_stat(&ev, S_REGION, 'r', REF_REGIONS + (uint64_t)(c->op % 3));
		put_stat(&ev, S_DTYPE, 'i', (uint64_t)dtypes[c->op]);
		put_stat(&ev, S_SHAPE, 'r', REF_SHAPES + (uint64_t)c->op);
		put_stat(&ev, S_ID, 'i', (uint64_t)step);
	}
	put_stat(&ev, S_GROUP, 'i', (uint64_t)step);
	put_len(&rec, 4, ev.p, ev.n);
	l->events++;
	l->bytes += rec.n;
	if (g->write) {
		put(&l->out, rec.p, rec.n);
		if (l->out.n >= LBUF)
			flush_line(g, l);
	}
}

/* The truth: the peak as the analysis must find it, in time order, later wins. */
static void observe(struct gen *g, struct alc *a, int64_t t_ns, int64_t step)
{
	int64_t use = a->reserved + a->inuse;
	if (!a->has_peak || use >= a->peak) {
		a->has_peak = true;
		a->peak = use;
		a->peak_t = (t_ns - g->base_ns) * 1000;
		a->peak_stack = a->reserved;
		a->peak_heap = a->inuse;
		a->peak_free = a->limit - a->reserved - a->inuse;
		a->peak_frag = (double)((a->inuse >> 12) % 97) / 1000.0;
		a->peak_step = step;
	}
	a->last_peak_life = a->peak_life;
}

static void simulate(struct gen *g)
{
	reset(g);
	int64_t t = g->base_ns + 1000000;      /* every line has started by then */
	uint64_t allocs = 0, ev = 0;
	while (allocs < g->allocations) {
		uint64_t r = next_rand(g);
		int k = (int)(r % (uint64_t)g->n_alc);
		struct alc *a = &g->alc[k];
		int li = (int)((r >> 8) % (uint64_t)g->n_lines);
		int64_t step = (int64_t)(ev / g->step_events);
		t += 1 + (int64_t)((r >> 16) % 900);
		/* Live chunks wander between 0 and 600: the peak moves around. */
		size_t want = 300 + (size_t)(300.0 * sin((double)ev / 50000.0));
		bool alloc = a->n_live == 0 || (a->n_live < want ? (r >> 40) % 4 != 0 : (r >> 40) % 4 == 0);
		struct chunk c;
		if (alloc) {
			int op = (int)((r >> 24) % N_OPS);
			int64_t req = (int64_t)(256 + ((r >> 32) % 65536) * 64);
			c = (struct chunk){a->base + a->next, (req + 255) & ~255LL, req, op};
			a->next += (uint64_t)c.bytes;
			a->inuse += c.bytes;
			if (a->inuse > a->peak_life)
				a->peak_life = a->inuse;
			chunk_push(a, c);
			a->n_alloc++;
			allocs++;
		} else {
			c = chunk_pop(a);
			a->inuse -= c.bytes;
			a->n_dealloc++;
			if (c.op < 0)
				a->n_unmatched++;
		}
		emit(g, li, alloc, t, a, &c, k, step);
		observe(g, a, t, step);
		ev++;
	}
}

/* --- file layout ----------------------------------------------------------------- */

static void line_header(struct buf *b, const struct gen *g, int i)
{
	char name[32];
	snprintf(name, sizeof name, "tf_Compute/%d", 100 + i);
	put_tag(b, 1, 0);
	put_varint(b, (uint64_t)(100 + i));
	put_str(b, 2, name);
	put_tag(b, 3, 0);
	put_varint(b, (uint64_t)g->ln[i].ts_ns);
}

static void meta_entry(struct buf *b, unsigned field, int64_t id, const char *name)
{
	struct buf v = {0}, e = {0};
	put_tag(&v, 1, 0);
	put_varint(&v, (uint64_t)id);
	put_str(&v, 2, name);
	put_tag(&e, 1, 0);
	put_varint(&e, (uint64_t)id);
	put_len(&e, 2, v.p, v.n);
	put_len(b, field, e.p, e.n);
	free(v.p);
	free(e.p);
}

static void plane_metadata(struct buf *b, const struct gen *g)
{
	meta_entry(b, 4, 1, "MemoryAllocation");
	meta_entry(b, 4, 2, "MemoryDeallocation");
	for (int s = 1; s < N_STATS; s++)
		meta_entry(b, 5, s, stat_names[s]);
	for (size_t i = 0; i < N_OPS; i++) {
		meta_entry(b, 5, REF_OPS + (int64_t)i, ops[i]);
		meta_entry(b, 5, REF_SHAPES + (int64_t)i, shapes[i]);
	}
	for (int i = 0; i < 3; i++)
		meta_entry(b, 5, REF_REGIONS + i, regions[i]);
	for (int k = 0; k < g->n_alc; k++)
		meta_entry(b, 5, REF_ALLOCATORS + k, g->alc[k].name);
}

/* Write everything but the events, and set each line's event offset. */
static void write_frame(struct gen *g)
{
	struct buf plane = {0}, head = {0}, meta = {0};
	put_tag(&plane, 1, 0);
	put_varint(&plane, 1);
	put_str(&plane, 2, "/host:CPU");
	uint64_t lines_bytes = 0;
	struct buf lh[MAXLINES] = {{0}};
	for (int i = 0; i < g->n_lines; i++) {
		line_header(&lh[i], g, i);
		uint64_t len = lh[i].n + g->ln[i].bytes;
		lines_bytes += 1 + varint_len(len) + len;
	}
	plane_metadata(&meta, g);
	uint64_t plane_len = plane.n + lines_bytes + meta.n;
	put_tag(&head, 1, 2);
	put_varint(&head, plane_len);
	put(&head, plane.p, plane.n);
	uint64_t off = head.n;
	if (pwrite(g->fd, head.p, head.n, 0) != (ssize_t)head.n)
		die("write: %s", strerror(errno));
	for (int i = 0; i < g->n_lines; i++) {
		struct buf t = {0};
		uint64_t len = lh[i].n + g->ln[i].bytes;
		put_tag(&t, 3, 2);
		put_varint(&t, len);
		put(&t, lh[i].p, lh[i].n);
		if (pwrite(g->fd, t.p, t.n, (off_t)off) != (ssize_t)t.n)
			die("write: %s", strerror(errno));
		g->ln[i].off = off + t.n;
		off += t.n + g->ln[i].bytes;
		free(t.p);
		free(lh[i].p);
	}
	struct buf tail = {0};
	put(&tail, meta.p, meta.n);
	put_str(&tail, 4, "memgen");
	if (pwrite(g->fd, tail.p, tail.n, (off_t)off) != (ssize_t)tail.n)
		die("write: %s", strerror(errno));
	free(plane.p);
	free(head.p);
	free(meta.p);
	free(tail.p);
}

static void write_truth(const struct gen *g, const char *path, uint64_t bytes)
{
	FILE *f = fopen(path, "w");
	if (!f)
		die("cannot create %s", path);
	uint64_t na = 0, nd = 0, ev = 0;
	for (int k = 0; k < g->n_alc; k++) {
		na += g->alc[k].n_alloc;
		nd += g->alc[k].n_dealloc;
	}
	for (int i = 0; i < g->n_lines; i++)
		ev += g->ln[i].events;
	fprintf(f, "{\n  \"generator\": \"memgen\",\n  \"file_bytes\": %" PRIu64 ",\n  \"events\": %" PRIu64
		",\n  \"memory_allocations\": %" PRIu64 ",\n  \"memory_deallocations\": %" PRIu64 ",\n  \"allocators\": [",
		bytes, ev, na, nd);
	for (int k = 0; k < g->n_alc; k++) {
		const struct alc *a = &g->alc[k];
		fprintf(f, "%s\n    {\"name\": \"%s\", \"allocations\": %" PRIu64 ", \"deallocations\": %" PRIu64
			", \"unmatched_deallocations\": %" PRIu64 ", \"unfreed_allocations\": %" PRIu64
			", \"initial_bytes_allocated\": %" PRId64 ", \"final_bytes_allocated\": %" PRId64
			", \"peak_bytes_in_use\": %" PRId64 ", \"peak_usage_bytes\": %" PRId64 ", \"peak_time_ps\": %" PRId64
			", \"peak_step\": %" PRId64 ", \"stack_bytes\": %" PRId64 ", \"heap_bytes\": %" PRId64
			", \"free_bytes\": %" PRId64 ", \"fragmentation\": %.17g, \"memory_capacity_bytes\": %" PRId64 "}",
			k ? "," : "", a->name, a->n_alloc, a->n_dealloc, a->n_unmatched,
			(uint64_t)a->n_live - (PRE_LIVE - a->n_unmatched), a->inuse0, a->inuse, a->last_peak_life, a->peak,
			a->peak_t, a->peak_step, a->peak_stack, a->peak_heap, a->peak_free, a->peak_frag, a->limit);
	}
	fprintf(f, "\n  ]\n}\n");
	if (fclose(f))
		die("cannot write %s", path);
}

static uint64_t num(const char *opt, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-')
		die("bad number for %s", opt);
	return n;
}

int main(int argc, char **argv)
{
	struct gen g = {.seed = 1, .allocations = 100000, .n_alc = 4, .n_lines = 8, .step_events = 20000};
	const char *out = NULL, *truth = NULL;
	/* Every option takes a value: step over the pair. */
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			puts("usage: memgen [--allocations N] [--allocators K] [--lines L] [--step-events N] [--seed S]\n"
			     "              [--truth FILE.json] -o FILE.xplane.pb");
			return 0;
		}
		if (!v)
			die("%s needs a value", a);
		if (!strcmp(a, "--allocations"))
			g.allocations = num(a, v);
		else if (!strcmp(a, "--allocators"))
			g.n_alc = (int)num(a, v);
		else if (!strcmp(a, "--lines"))
			g.n_lines = (int)num(a, v);
		else if (!strcmp(a, "--step-events"))
			g.step_events = num(a, v);
		else if (!strcmp(a, "--seed"))
			g.seed = num(a, v);
		else if (!strcmp(a, "--truth"))
			truth = v;
		else if (!strcmp(a, "-o"))
			out = v;
		else
			die("unknown option %s", a);
	}
	if (!out || g.n_alc < 1 || g.n_alc > MAXALC || g.n_lines < 1 || g.n_lines > MAXLINES || !g.step_events)
		die("%s", "usage: memgen [options] -o FILE (1-64 allocators, 1-256 lines)");
	/* Lines start 0.5 ms apart, the last first, so offsets and absolute times disagree. */
	g.base_ns = 1700000000000000000LL;
	for (int i = 0; i < g.n_lines; i++)
		g.ln[i].ts_ns = g.base_ns + (int64_t)(g.n_lines - 1 - i) * 500000;
	g.base_ns = g.ln[g.n_lines - 1].ts_ns;
	simulate(&g);
	g.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (g.fd < 0)
		die("cannot create %s", out);
	write_frame(&g);
	g.write = true;
	simulate(&g);
	for (int i = 0; i < g.n_lines; i++)
		flush_line(&g, &g.ln[i]);
	off_t size = lseek(g.fd, 0, SEEK_END);
	if (close(g.fd))
		die("cannot write %s", out);
	if (truth)
		write_truth(&g, truth, (uint64_t)size);
	for (int i = 0; i < g.n_lines; i++)
		free(g.ln[i].out.p);
	for (int k = 0; k < g.n_alc; k++)
		free(g.alc[k].live);
	return 0;
}
