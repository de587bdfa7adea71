/* profile.c - the Memory Profile collected: per allocator of every host, the peak, fragmentation, the live allocations at the peak and the timeline (spec analyzers §5). */
#include "profile.h"
#include "formats/core/hash.h"
#include "formats/core/xalloc.h"

#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * How it works, per host:
 *  1. Pass 1 walks the MemoryAllocation/MemoryDeallocation events of the
 *     host planes in absolute time order (the model's start_ps: line
 *     timestamp + offset, from the host base; ties by line and position), a
 *     k-way merge of the lines with a tournament tree. xprof orders by the
 *     line-relative offset, which mixes up an allocator whose events sit on
 *     lines that start at different times (DESIGN §8). Each line's events are
 *     read a window of 256 at a time, in the line's order, into a compact
 *     record each (allocator, stack + heap, address, group, flags): reading
 *     them one by one in merge order jumps between the lines' stats and
 *     misses the cache. The walk does the counts, the step fix (spec §5.3
 *     step 3), the peak (largest stack+heap, the later on a tie) and the
 *     address map that pairs each deallocation with its allocation (step 4),
 *     and keeps the order (8 bytes an event) with each event's allocator and
 *     step (8 bytes).
 *  3. Pass 2 knows each allocator's peak, peak step and event count. It reads
 *     again only the events of the peak step up to the peak (step 7) and,
 *     with a timeline, every event for the max box filter (step 5).
 * Memory: 16 bytes an event, the live allocations and the windows (8 KB a
 * line). No copy of the events' stats.
 */

static char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* Capture values are hostile: sums saturate instead of overflowing. */
int64_t xp_mem_sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return a > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

int64_t xp_mem_sat_sub(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* --- names ------------------------------------------------------------------------ */

/* TF DataType enum names as DataTypeString prints them (spec §5.1). */
static const char *const dtype_names[] = {
	"INVALID", "float", "double", "int32", "uint8", "int16", "int8", "string", "complex64", "int64", "bool",
	"qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16", "complex128", "half", "resource",
	"variant", "uint32", "uint64", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
	"float8_e5m2fnuz", "int4", "uint4",
};
#define N_DTYPES ((int64_t)(sizeof dtype_names / sizeof *dtype_names))

const char *xp_memory_dtype_name(int64_t v, char *buf, size_t n)
{
	/* Reference types are the base type + 100 (DT_FLOAT_REF = 101). */
	bool ref = v > 100;
	int64_t base = ref ? v - 100 : v;
	if (base >= 0 && base < N_DTYPES)
		snprintf(buf, n, "%s%s", dtype_names[base], ref ? "_ref" : "");
	else
		snprintf(buf, n, "unknown dtype enum (%" PRId64 ")%s", base, ref ? "_ref" : "");
	return buf;
}

void xp_memory_window(uint64_t n, uint64_t points, uint64_t w, uint64_t *first, uint64_t *len)
{
	if (!points || n <= points) {
		*first = w;
		*len = w < n ? 1 : 0;
		return;
	}
	/* c1 windows of `width` snapshots, then points - c1 windows of width + 1. */
	uint64_t width = n / points;
	uint64_t c1 = points * (width + 1) - n;
	if (w < c1) {
		*first = w * width;
		*len = width;
	} else {
		*first = c1 * width + (w - c1) * (width + 1);
		*len = width + 1;
	}
}

/* --- maps (linear probing, backward-shift deletion) ----------------------------- */

/* Addresses are aligned: mix every bit into the slot (the murmur3 finalizer). */
static size_t map_home(const struct mem_map *m, uint64_t key)
{
	uint64_t x = key;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)(x & (m->cap - 1));
}

static void map_put(struct mem_map *m, uint64_t key, uint64_t v);

static void map_grow(struct mem_map *m)
{
	struct mem_map old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->n = 0;
	m->keys = xmalloc(m->cap * sizeof *m->keys);
	m->vals = xmalloc(m->cap * sizeof *m->vals);
	m->used = xcalloc(m->cap, 1);
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	free(old.used);
}

/* Slot of key, or SIZE_MAX when absent. */
static size_t map_find(const struct mem_map *m, uint64_t key)
{
	if (!m->n)
		return SIZE_MAX;
	for (size_t i = map_home(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return SIZE_MAX;
		if (m->keys[i] == key)
			return i;
	}
}

/* Insert or overwrite. */
static void map_put(struct mem_map *m, uint64_t key, uint64_t v)
{
	if ((m->n + 1) * 4 > m->cap * 3)
		map_grow(m);
	size_t i = map_home(m, key);
	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i])
		m->n++;
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = v;
}

/* Insert key -> v unless key is present; true when inserted. */
static bool map_add(struct mem_map *m, uint64_t key, uint64_t v)
{
	if ((m->n + 1) * 4 > m->cap * 3)
		map_grow(m);
	size_t i = map_home(m, key);
	for (; m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return false;
	m->n++;
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = v;
	return true;
}

static void map_del_slot(struct mem_map *m, size_t i)
{
	size_t mask = m->cap - 1, j = i;
	m->used[i] = 0;
	m->n--;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->used[j])
			return;
		size_t home = map_home(m, m->keys[j]);
		/* j stays unless the hole i lies cyclically in [home, j). */
		bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (stays)
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		m->used[i] = 1;
		m->used[j] = 0;
		i = j;
	}
}

static void map_free(struct mem_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof *m);
}

/* --- allocators -------------------------------------------------------------------- */

static uint64_t hash_id(uint32_t host, const char *s, size_t n)
{
	return xp_hash_bytes(xp_hash_u64(XP_HASH_SEED, host), s, n);
}

static void ht_insert(struct mem *m, size_t a)
{
	const struct mem_alc *x = m->alcs[a];
	size_t i = hash_id(x->host, x->id, strlen(x->id)) & (m->hcap - 1);
	while (m->ht[i])
		i = (i + 1) & (m->hcap - 1);
	m->ht[i] = (uint32_t)a + 1;
}

static void ht_grow(struct mem *m)
{
	free(m->ht);
	m->hcap = m->hcap ? m->hcap * 2 : 64;
	m->ht = xcalloc(m->hcap, sizeof *m->ht);
	for (size_t a = 0; a < m->n_alcs; a++)
		ht_insert(m, a);
}

/* Index of the allocator (host, id), created when new. */
static uint32_t alc_get(struct mem *m, uint32_t host, const char *id, size_t n)
{
	n = strnlen(id, n);     /* an id is text: a NUL byte ends it */
	if (!m->hcap)
		ht_grow(m);
	for (size_t i = hash_id(host, id, n) & (m->hcap - 1);; i = (i + 1) & (m->hcap - 1)) {
		uint32_t k = m->ht[i];
		if (!k)
			break;
		const struct mem_alc *a = m->alcs[k - 1];
		if (a->host == host && !strncmp(a->id, id, n) && !a->id[n])
			return k - 1;
	}
	if (m->n_alcs >= UINT32_MAX - 1)
		xp_oom();
	if (m->n_alcs == m->cap_alcs) {
		m->cap_alcs = m->cap_alcs ? m->cap_alcs * 2 : 16;
		m->alcs = xrealloc(m->alcs, m->cap_alcs * sizeof *m->alcs);
	}
	struct mem_alc *a = xcalloc(1, sizeof *a);
	a->id = xstrndup(id, n);
	a->host = host;
	a->last_valid = -1;
	m->alcs[m->n_alcs++] = a;
	if (m->n_alcs * 2 > m->hcap)
		ht_grow(m);     /* re-inserts every allocator, the new one too */
	else
		ht_insert(m, m->n_alcs - 1);
	return (uint32_t)(m->n_alcs - 1);
}

/* The allocator an event belongs to (spec §5.1: the memory id). */
static uint32_t alc_of(struct mem *m, uint32_t host, const struct mem_ev *e)
{
	char num[24];
	if (e->have & MEM_H_ID_INT) {
		int len = snprintf(num, sizeof num, "%" PRId64, e->id_int);
		return alc_get(m, host, num, (size_t)len);
	}
	return alc_get(m, host, e->name.s ? e->name.s : "", e->name.s ? e->name.len : 0);
}

/* A few allocators serve most events: remember which id is which allocator,
 * in a small direct-mapped cache keyed by the integer id or the interned name. */
#define ALC_CACHE 64

struct alc_slot {
	bool valid;
	unsigned kind;          /* MEM_H_ID_INT, MEM_H_NAME or 0 (no id) */
	uint64_t key;           /* the integer id, or the interned name's address */
	uint32_t len;
	uint32_t idx;
};

static uint32_t alc_of_cached(struct mem *m, uint32_t host, const struct mem_ev *e, struct alc_slot *cache)
{
	unsigned kind = e->have & MEM_H_ID_INT ? MEM_H_ID_INT : e->have & MEM_H_NAME ? MEM_H_NAME : 0;
	/* Only interned (ref_value) names have an address that identifies them. */
	if (kind == MEM_H_NAME && !e->name_interned)
		return alc_of(m, host, e);
	uint64_t key = kind == MEM_H_ID_INT ? (uint64_t)e->id_int : kind == MEM_H_NAME ? (uint64_t)(uintptr_t)e->name.s : 0;
	struct alc_slot *c = &cache[((key * 0x9e3779b97f4a7c15ull) >> 58) % ALC_CACHE];
	if (c->valid && c->kind == kind && c->key == key && c->len == e->name.len)
		return c->idx;
	uint32_t idx = alc_of(m, host, e);
	*c = (struct alc_slot){true, kind, key, e->name.len, idx};
	return idx;
}

static void alc_free(struct mem_alc *a)
{
	free(a->id);
	free(a->name);
	map_free(&a->pending);
	map_free(&a->matched);
	map_free(&a->active);
	free(a->pts);
	free(a);
}

/* --- reading events ------------------------------------------------------------------ */

enum role {
	R_NONE = 0, R_ALLOCATOR_NAME, R_INDEX_ON_HOST, R_DEVICE_ORDINAL, R_RESERVED, R_ALLOCATED, R_AVAILABLE,
	R_FRAGMENTATION, R_PEAK, R_REQUESTED, R_ALLOC_BYTES, R_ADDR, R_TF_OP, R_REGION, R_DTYPE, R_SHAPE
};

static uint8_t stat_role(const char *n)
{
	static const struct {
		const char *name;
		uint8_t role;
	} roles[] = {
		{"allocator_name", R_ALLOCATOR_NAME}, {"index_on_host", R_INDEX_ON_HOST},
		{"device_ordinal", R_DEVICE_ORDINAL}, {"bytes_reserved", R_RESERVED},
		{"bytes_allocated", R_ALLOCATED}, {"bytes_available", R_AVAILABLE},
		{"fragmentation", R_FRAGMENTATION}, {"peak_bytes_in_use", R_PEAK},
		{"requested_bytes", R_REQUESTED}, {"allocation_bytes", R_ALLOC_BYTES}, {"addr", R_ADDR},
		{"tf_op", R_TF_OP}, {"region_type", R_REGION}, {"data_type", R_DTYPE}, {"shape", R_SHAPE},
	};
	for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
		if (!strcmp(n, roles[i].name))
			return roles[i].role;
	return R_NONE;
}

/* The roles pass 1 reads: the allocator, stack and heap, the address, and whether size and peak are there. */
static uint8_t scan_role(uint8_t r)
{
	switch (r) {
	case R_ALLOCATOR_NAME:
	case R_INDEX_ON_HOST:
	case R_DEVICE_ORDINAL:
	case R_RESERVED:
	case R_ALLOCATED:
	case R_ADDR:
	case R_PEAK:
	case R_ALLOC_BYTES:
		return r;
	default:
		return R_NONE;
	}
}

/* Memory events live on the host planes (all of their lines). */
static void classify_planes(struct mem_host *mh)
{
	const struct xp_host *h = mh->h;
	mh->act = xcalloc(h->n_planes, sizeof *mh->act);
	mh->role = xcalloc(h->n_planes, sizeof *mh->role);
	mh->scan_role = xcalloc(h->n_planes, sizeof *mh->scan_role);
	for (uint32_t p = 0; p < h->n_planes; p++) {
		const struct xp_plane *pl = &h->planes[p];
		if (pl->kind != XP_PLANE_HOST_CPU)
			continue;
		mh->act[p] = xcalloc(pl->n_emeta, 1);
		mh->role[p] = xcalloc(pl->n_smeta, 1);
		mh->scan_role[p] = xcalloc(pl->n_smeta, 1);
		for (uint32_t m = 1; m < pl->n_emeta; m++) {
			mh->act[p][m] = xp_mem_action(xp_str(mh->c, pl->emeta[m].name));
		}
		for (uint32_t s = 1; s < pl->n_smeta; s++) {
			if ((mh->role[p][s] = stat_role(xp_str(mh->c, pl->smeta[s].name))))
				xp_stat_must_be_loaded(mh->c, pl, s);
			mh->scan_role[p][s] = scan_role(mh->role[p][s]);
		}
	}
}

static bool stat_int(unsigned kind, uint64_t raw, int64_t *out)
{
	if (kind == XP_STAT_I64) {
		*out = (int64_t)raw;
		return true;
	}
	if (kind == XP_STAT_U64) {
		*out = raw > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)raw;
		return true;
	}
	return false;
}

static bool stat_str(const struct xp_capture *c, const struct xp_stat_view *v, unsigned kind, uint64_t raw,
		     struct mem_str *out)
{
	if (kind == XP_STAT_STR) {
		out->s = xp_str(c, (uint32_t)raw);
		out->len = xp_strlen(c, (uint32_t)raw);
		return true;
	}
	if (kind == XP_STAT_BLOBSTR) {
		out->s = (const char *)xp_blob_get(v->blob, raw, &out->len);
		return out->s != NULL;
	}
	return false;
}

/* The int64 field of struct mem_ev each integer role fills (0: not an integer role), and its
 * presence bit: a table, as the roles of an event's stats come in no order a branch could learn. */
static const struct {
	uint16_t off;
	uint16_t bit;
} int_slot[] = {
	[R_INDEX_ON_HOST] = {offsetof(struct mem_ev, id_int), MEM_H_ID_INT},
	[R_DEVICE_ORDINAL] = {offsetof(struct mem_ev, id_int), MEM_H_ID_INT},
	[R_RESERVED] = {offsetof(struct mem_ev, stack), MEM_H_STACK},
	[R_ALLOCATED] = {offsetof(struct mem_ev, heap), MEM_H_HEAP},
	[R_AVAILABLE] = {offsetof(struct mem_ev, free_b), MEM_H_FREE},
	[R_PEAK] = {offsetof(struct mem_ev, peak), MEM_H_PEAK},
	[R_REQUESTED] = {offsetof(struct mem_ev, req), MEM_H_REQ},
	[R_ALLOC_BYTES] = {offsetof(struct mem_ev, bytes), MEM_H_BYTES},
	[R_DTYPE] = {offsetof(struct mem_ev, dtype), MEM_H_DTYPE},
	[R_SHAPE] = {0, 0},
};

static inline void read_view(const struct xp_capture *c, const uint8_t *role, struct xp_stat_view v, struct mem_ev *e)
{
	for (uint32_t k = 0; k < v.n; k++) {
		uint8_t r = role[xp_stat_meta(v.keys[k])];
		if (r == R_NONE)
			continue;
		unsigned kind = xp_stat_kind(v.keys[k]);
		uint64_t raw = xp_view_val(&v, k);
		if (int_slot[r].off) {
			if (stat_int(kind, raw, (int64_t *)(void *)((char *)e + int_slot[r].off)))
				e->have |= int_slot[r].bit;
			continue;
		}
		switch (r) {
		case R_ALLOCATOR_NAME:
			if (stat_str(c, &v, kind, raw, &e->name)) {
				e->have |= MEM_H_NAME;
				e->name_interned = kind == XP_STAT_STR;
			}
			break;
		case R_FRAGMENTATION: {
			int64_t i;
			if (kind == XP_STAT_F64) {
				memcpy(&e->frag, &raw, sizeof e->frag);
				e->have |= MEM_H_FRAG;
			} else if (stat_int(kind, raw, &i)) {
				e->frag = (double)i;
				e->have |= MEM_H_FRAG;
			}
			break;
		}
		case R_ADDR:
			if (kind == XP_STAT_I64 || kind == XP_STAT_U64) {
				e->addr = raw;
				e->have |= MEM_H_ADDR;
			}
			break;
		case R_TF_OP: stat_str(c, &v, kind, raw, &e->op); break;
		case R_REGION: stat_str(c, &v, kind, raw, &e->region); break;
		case R_SHAPE: stat_str(c, &v, kind, raw, &e->shape); break;
		default: break;
		}
	}
}

static const struct xp_line *ref_line(const struct mem_host *mh, struct mem_ref r, const struct xp_plane **p)
{
	*p = &mh->h->planes[mh->lines[r.line].plane];
	return &(*p)->lines[mh->lines[r.line].line];
}

/* One memory line, resolved once: what decoding an event of it needs. */
struct lctx {
	const struct xp_plane *p;
	const struct xp_line *l;
	const uint8_t *role, *scan_role, *act;
	const int32_t *group;   /* NULL: no group ids */
};

static void line_ctx(const struct mem_host *mh, uint32_t k, struct lctx *x)
{
	uint32_t plane = mh->lines[k].plane, line = mh->lines[k].line;
	x->p = &mh->h->planes[plane];
	x->l = &x->p->lines[line];
	x->role = mh->role[plane];
	x->scan_role = mh->scan_role[plane];
	x->act = mh->act[plane];
	x->group = mh->ph && mh->ph->planes && mh->ph->planes[plane].lines ? mh->ph->planes[plane].lines[line].group
									   : NULL;
}

/* The stats of event i of a line (xp_event_stats, here so that it inlines in the hot loop). */
static inline struct xp_stat_view event_view(const struct xp_line *l, uint64_t i)
{
	uint32_t b = (uint32_t)(i >> XP_BLOCK_SHIFT);
	const struct xp_block *blk = &l->blocks[b];
	uint32_t first = l->stat_begin[i], last = blk->stats.n;
	if (i + 1 < l->n_events && ((i + 1) >> XP_BLOCK_SHIFT) == b)
		last = l->stat_begin[i + 1];
	struct xp_stat_view v = {NULL, NULL, blk->stats.wide, last - first, &blk->blob};
	if (v.n) {
		v.keys = blk->stats.keys + xp_event_key_begin(l, i, first);
		v.vals = blk->stats.vals + first;
	}
	return v;
}

/* Event EV's stats of the roles in ROLE; E is cleared by the caller. */
static inline void decode_roles(const struct mem_host *mh, const struct lctx *x, const uint8_t *role, uint32_t ev,
				struct mem_ev *e)
{
	uint32_t meta = xp_meta_of(x->l, ev);
	e->t = x->l->start_ps[ev];
	e->act = x->act[meta];
	/* Metadata stats first, so that the event's own copy wins. */
	const struct xp_event_meta *em = &x->p->emeta[meta];
	if (em->stat_end > em->stat_begin)
		read_view(mh->c, role, xp_meta_stats(x->p, meta), e);
	read_view(mh->c, role, event_view(x->l, ev), e);
	e->group = x->group ? x->group[ev] : -1;
}

static inline void decode_at(const struct mem_host *mh, const struct lctx *x, uint32_t ev, struct mem_ev *e)
{
	memset(e, 0, sizeof *e);
	decode_roles(mh, x, x->role, ev, e);
}

/* What pass 1 reads of event EV (scan_role): only those fields are cleared and set. */
static inline void decode_scan(const struct mem_host *mh, const struct lctx *x, uint32_t ev, struct mem_ev *e)
{
	e->have = 0;
	e->stack = e->heap = e->id_int = 0;
	e->addr = 0;
	e->name = (struct mem_str){NULL, 0};
	e->name_interned = false;
	decode_roles(mh, x, x->scan_role, ev, e);
}

void xp_mem_decode(const struct mem_host *mh, struct mem_ref r, struct mem_ev *e)
{
	struct lctx x;
	line_ctx(mh, r.line, &x);
	decode_at(mh, &x, r.ev, e);
}

void xp_mem_inherit_size(const struct mem_host *mh, struct mem_ref alloc, struct mem_ev *e)
{
	struct mem_ev al;
	xp_mem_decode(mh, alloc, &al);
	if (al.have & MEM_H_BYTES) {
		e->bytes = al.bytes;
		e->have |= MEM_H_BYTES;
	}
	if (!(e->have & MEM_H_REQ) && (al.have & MEM_H_REQ)) {
		e->req = al.req;
		e->have |= MEM_H_REQ;
	}
}

/* --- the time-ordered sequence ----------------------------------------------------- */

/* What pass 1 needs of one event, read in storage order (compact, so that the
 * time-ordered walk over many lines stays in cache). */
struct crec {
	int64_t t;              /* start, from the host base */
	int64_t use;            /* stack + heap */
	uint64_t addr;
	uint32_t aidx;          /* allocator */
	int32_t group;
	uint32_t flags;         /* activity (2 bits) | F_* */
};

enum { F_ACT = 3, F_MISSING = 1 << 2, F_BYTES = 1 << 3, F_PEAK = 1 << 4, F_NAME = 1 << 5 };

/* Pass 1 reads each line's events a window at a time, in the line's order: one stream at a time stays
 * sequential, where reading event by event in merge order jumps between 16 lines' stats and misses the
 * cache; and no record of every event is kept. */
#define SCAN_WINDOW 256

struct lcur {
	const struct xp_line *l;
	uint32_t *idx;          /* memory events of the line in time order */
	struct lctx x;          /* what decoding them needs */
	struct crec *win;       /* what pass 1 needs of events [win_first, win_first + win_len) */
	uint64_t win_first, win_len;
	uint64_t n, pos;
	int64_t t;              /* start of idx[pos]; INT64_MAX when done */
	uint64_t tie;           /* the line's index, | 1 << 32 when done */
};

static int cmp_ev_start(const void *x, const void *y, void *arg)
{
	const struct xp_line *l = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (l->start_ps[a] != l->start_ps[b])
		return l->start_ps[a] < l->start_ps[b] ? -1 : 1;
	if (xp_dur(l, a) != xp_dur(l, b))
		return xp_dur(l, a) > xp_dur(l, b) ? -1 : 1;
	return (a > b) - (a < b);
}

/* The memory events of line l (plane p) in time order; NULL when it has none. */
static uint32_t *line_events(const struct mem_host *mh, uint32_t p, const struct xp_line *l, uint64_t *n)
{
	const uint8_t *act = mh->act[p];
	uint64_t cnt = 0;
	/* Grouping refuses hosts of 2^31 events or more, so indices fit 32 bits. */
	uint64_t end = l->n_events < UINT32_MAX ? l->n_events : UINT32_MAX;
	for (uint64_t i = 0; i < end; i++)
		cnt += act[xp_meta_of(l, i)] != MEM_ACT_NONE;
	*n = cnt;
	if (!cnt)
		return NULL;
	uint32_t *idx = xmalloc(cnt * sizeof *idx);
	xp_prefault(idx, cnt * sizeof *idx);
	uint64_t k = 0;
	for (uint64_t i = 0; i < end; i++)
		if (act[xp_meta_of(l, i)] != MEM_ACT_NONE)
			idx[k++] = (uint32_t)i;
	if (l->unsorted)
		qsort_r(idx, k, sizeof *idx, cmp_ev_start, (void *)l);
	return idx;
}

/* A line's next event as the merge orders it: time, then line; an exhausted line (t = INT64_MAX
 * and the done bit in its tie key) after everything. The tie key's low 32 bits are the line. */
struct mkey {
	int64_t t;
	uint64_t tie;
};

/* Branch-free: which line wins is unpredictable. */
static inline bool key_less(struct mkey a, struct mkey b)
{
	return (a.t < b.t) | ((a.t == b.t) & (a.tie < b.tie));
}

static inline struct mkey cur_key(const struct lcur *c)
{
	return (struct mkey){c->t, c->tie};
}

/* A tournament (loser) tree over the lines: log2(lines) comparisons per event. The nodes hold the
 * losers' keys, not their lines: the loads of one replay do not wait on each other. */
static struct mkey tree_build(struct mkey *tree, uint32_t size, uint32_t node, const struct lcur *c)
{
	if (node >= size)
		return cur_key(&c[node - size]);
	struct mkey a = tree_build(tree, size, 2 * node, c), b = tree_build(tree, size, 2 * node + 1, c);
	bool a_wins = key_less(a, b);
	tree[node] = a_wins ? b : a;
	return a_wins ? a : b;
}

/* Line W has a new key: the line that is next now. */
static uint32_t tree_replay(struct mkey *tree, uint32_t size, uint32_t w, struct mkey k)
{
	for (uint32_t node = (w + size) / 2; node >= 1; node /= 2) {
		struct mkey t = tree[node];
		bool swap = key_less(t, k);
		tree[node] = swap ? k : t;
		k = swap ? t : k;
	}
	return (uint32_t)k.tie;
}

static struct lcur *collect_lines(struct mem_host *mh)
{
	const struct xp_host *h = mh->h;
	uint32_t cap = 0;
	struct lcur *cur = NULL;
	for (uint32_t p = 0; p < h->n_planes; p++) {
		if (!mh->act[p])
			continue;
		for (uint32_t k = 0; k < h->planes[p].n_lines; k++) {
			const struct xp_line *l = &h->planes[p].lines[k];
			uint64_t n;
			uint32_t *idx = line_events(mh, p, l, &n);
			if (!idx)
				continue;
			if (mh->n_lines == cap) {
				cap = cap ? cap * 2 : 16;
				mh->lines = xrealloc(mh->lines, cap * sizeof *mh->lines);
				cur = xrealloc(cur, cap * sizeof *cur);
			}
			mh->lines[mh->n_lines].plane = p;
			mh->lines[mh->n_lines].line = k;
			cur[mh->n_lines] = (struct lcur){.l = l, .idx = idx, .n = n, .t = l->start_ps[idx[0]],
							 .tie = mh->n_lines};
			mh->n_lines++;
			mh->n_seq += n;
		}
	}
	return cur;
}

static void mem_host_free(struct mem_host *mh)
{
	for (uint32_t p = 0; mh->act && p < mh->h->n_planes; p++) {
		free(mh->act[p]);
		free(mh->role[p]);
		free(mh->scan_role[p]);
	}
	free(mh->act);
	free(mh->role);
	free(mh->scan_role);
	free(mh->lines);
	free(mh->seq);
	free(mh->aidx);
	free(mh->step);
}

/* --- pass 1: every event ------------------------------------------------------------ */

/* Spec §5.3 step 3: a missing step id becomes the last valid one + 1. */
static int32_t fix_step(struct mem_alc *a, int32_t group)
{
	if (group >= 0) {
		a->last_valid = group;
		a->any_step = true;
		return group;
	}
	return a->last_valid == INT32_MAX ? INT32_MAX : a->last_valid + 1;
}

/* What an event must carry for the analysis to mean something. A deallocation
 * may leave out its size (PJRT's TPU allocator does): it is its allocation's. */
#define H_NEEDED (MEM_H_HEAP | MEM_H_ADDR)
#define H_NEEDED_ALLOC (H_NEEDED | MEM_H_BYTES)

/* What pass 1 needs of event EV of a line. */
static struct crec scan_event(struct mem *m, const struct mem_host *mh, const struct lctx *x, uint32_t ev,
			      struct alc_slot *cache)
{
	struct mem_ev e;
	decode_scan(mh, x, ev, &e);
	unsigned need = e.act == MEM_ACT_ALLOC ? H_NEEDED_ALLOC : H_NEEDED;
	bool missing = (e.have & need) != need || !(e.have & (MEM_H_ID_INT | MEM_H_NAME));
	return (struct crec){
		e.t, xp_mem_sat_add(e.stack, e.heap), e.addr, alc_of_cached(m, mh->host, &e, cache), e.group,
		e.act | (missing ? F_MISSING : 0) | (e.have & MEM_H_BYTES ? F_BYTES : 0) |
			(e.have & MEM_H_PEAK ? F_PEAK : 0) | (e.have & MEM_H_NAME ? F_NAME : 0),
	};
}

static void summarize(struct mem_alc *a, const struct crec *c, int64_t t, struct mem_ref r, int32_t step)
{
	if (!a->n)
		a->first_t = t;
	a->last_t = t;
	a->n++;
	a->n_alloc += (c->flags & F_ACT) == MEM_ACT_ALLOC;
	a->n_dealloc += (c->flags & F_ACT) == MEM_ACT_DEALLOC;
	a->n_missing += (c->flags & F_MISSING) != 0;
	/* The last name and lifetime peak: read from their events once pass 1 is done. */
	if (c->flags & F_NAME) {
		a->name_ref = r;
		a->has_name = true;
	}
	if (c->flags & F_PEAK) {
		a->life_ref = r;
		a->has_lifetime = true;
	}
	/* >= : the later of equal peaks wins (spec §5.2); the initial peak is 0. */
	if (c->use >= (a->has_peak ? a->peak : 0)) {
		a->has_peak = true;
		a->peak = c->use;
		a->peak_t = t;
		a->peak_ref = r;
		a->peak_step = step;
	}
}

/* Spec §5.3 step 4: pair each deallocation with the pending allocation at its address. */
static void pair(struct mem_alc *a, const struct crec *c, struct mem_ref r, uint64_t s, bool keep_all)
{
	if ((c->flags & F_ACT) == MEM_ACT_ALLOC) {
		map_add(&a->pending, c->addr, xp_mem_pack(r));
		return;
	}
	size_t slot = map_find(&a->pending, c->addr);
	if (slot == SIZE_MAX) {
		a->n_unmatched++;
		return;
	}
	/* The timeline shows every deallocation with its allocation's metadata;
	 * otherwise only a deallocation without a size needs its allocation later. */
	if (keep_all || !(c->flags & F_BYTES))
		map_put(&a->matched, s, a->pending.vals[slot]);
	map_del_slot(&a->pending, slot);
}

/* The next window of line C's events, from its current one. */
static void scan_window(struct mem *m, const struct mem_host *mh, struct lcur *c, struct alc_slot *cache)
{
	c->win_first = c->pos;
	c->win_len = c->n - c->pos < SCAN_WINDOW ? c->n - c->pos : SCAN_WINDOW;
	for (uint64_t k = 0; k < c->win_len; k++)
		c->win[k] = scan_event(m, mh, &c->x, c->idx[c->pos + k], cache);
}

/* Line C's next event; its time comes from the window, which the merge reads without a cache miss. */
static void cur_advance(struct mem *m, const struct mem_host *mh, struct lcur *c, struct alc_slot *cache)
{
	if (++c->pos < c->n) {
		if (c->pos >= c->win_first + c->win_len)
			scan_window(m, mh, c, cache);
		c->t = c->win[c->pos - c->win_first].t;
	} else {
		c->t = INT64_MAX;
		c->tie |= 1ull << 32;
	}
}

/* Pass 1: merge the lines by (time, line) into mh->seq, and walk the events in that order. */
static void walk(struct mem *m, struct mem_host *mh, struct lcur *cur, struct alc_slot *cache)
{
	bool keep_all = m->o.timeline;
	uint32_t size = 1;
	while (size < mh->n_lines)
		size *= 2;
	/* Padding leaves are empty lines, which always lose. */
	for (uint32_t k = mh->n_lines; k < size; k++)
		cur[k] = (struct lcur){.t = INT64_MAX, .tie = 1ull << 32 | k};
	struct mkey *tree = xmalloc(size * sizeof *tree);
	uint32_t w = (uint32_t)tree_build(tree, size, 1, cur).tie;
	for (uint64_t s = 0; s < mh->n_seq; s++) {
		struct lcur *c = &cur[w];
		struct mem_ref r = {w, c->idx[c->pos]};
		const struct crec *rec = &c->win[c->pos - c->win_first];
		struct mem_alc *a = m->alcs[rec->aidx];
		int32_t step = fix_step(a, rec->group);
		mh->seq[s] = r;
		mh->aidx[s] = rec->aidx;
		mh->step[s] = step;
		summarize(a, rec, c->t, r, step);
		pair(a, rec, r, s, keep_all);
		cur_advance(m, mh, c, cache);
		w = tree_replay(tree, size, w, cur_key(c));
	}
	free(tree);
}

static void pass1(struct mem *m, struct mem_host *mh)
{
	struct lcur *cur = collect_lines(mh);
	uint32_t size = 1;
	while (size < mh->n_lines)
		size *= 2;
	cur = xrealloc(cur, size * sizeof *cur);
	mh->seq = xmalloc(mh->n_seq * sizeof *mh->seq);
	mh->aidx = xmalloc(mh->n_seq * sizeof *mh->aidx);
	mh->step = xmalloc(mh->n_seq * sizeof *mh->step);
	xp_prefault(mh->seq, mh->n_seq * sizeof *mh->seq);
	xp_prefault(mh->aidx, mh->n_seq * sizeof *mh->aidx);
	xp_prefault(mh->step, mh->n_seq * sizeof *mh->step);
	struct alc_slot cache[ALC_CACHE] = {{0}};
	for (uint32_t k = 0; k < mh->n_lines; k++) {
		line_ctx(mh, k, &cur[k].x);
		cur[k].win = xmalloc(SCAN_WINDOW * sizeof *cur[k].win);
		scan_window(m, mh, &cur[k], cache);
	}
	walk(m, mh, cur, cache);
	for (uint32_t k = 0; k < mh->n_lines; k++) {
		free(cur[k].idx);
		free(cur[k].win);
	}
	free(cur);
	m->n_events += mh->n_seq;
}

/* The peak's stats, the last name and lifetime peak: from their events. */
static void finish_pass1(struct mem *m)
{
	struct mem_ev e;
	for (size_t i = 0; i < m->n_alcs; i++) {
		struct mem_alc *a = m->alcs[i];
		const struct mem_host *mh = &m->hosts[a->host];
		if (a->has_peak) {
			xp_mem_decode(mh, a->peak_ref, &e);
			a->stack = e.stack;
			a->heap = e.heap;
			a->free_b = e.free_b;
			a->frag = e.frag;
			a->capacity = xp_mem_sat_add(a->peak, e.free_b);
		}
		if (a->has_lifetime) {
			xp_mem_decode(mh, a->life_ref, &e);
			a->lifetime_peak = e.peak;
		}
		if (a->has_name) {
			xp_mem_decode(mh, a->name_ref, &e);
			a->name = xstrndup(e.name.s, e.name.len);
		}
	}
}

/* --- pass 2: the peak step up to the peak, and the timeline ------------------------ */

static void pts_push(struct mem_alc *a, const struct mem_point *pt)
{
	if (a->n_pts == a->cap_pts) {
		a->cap_pts = a->cap_pts ? a->cap_pts * 2 : 64;
		a->pts = xrealloc(a->pts, a->cap_pts * sizeof *a->pts);
	}
	a->pts[a->n_pts++] = *pt;
}

static void pass2_begin(struct mem_alc *a, bool timeline, uint64_t points, bool minmax)
{
	a->minmax = minmax;
	a->i = 0;
	a->unmapped = a->heap;
	a->points = timeline && points && a->n > points ? points : 0;
	a->win = 0;
	a->have_best = false;
	if (a->points) {
		uint64_t first, len;
		xp_memory_window(a->n, a->points, 0, &first, &len);
		a->win_end = first + len;
	}
}

/* The max box filter (spec §5.3 step 5), streaming: the first largest stack+heap of each window. */
static void timeline_add(struct mem_alc *a, const struct mem_point *pt, int64_t use)
{
	if (!a->points) {
		pts_push(a, pt);
		return;
	}
	if (!a->have_best || use < a->low_v) {
		a->low = *pt;
		a->low_v = use;
	}
	if (!a->have_best || use > a->best_v) {
		a->best = *pt;
		a->best_v = use;
		a->have_best = true;
	}
	if (pt->index + 1 < a->win_end)
		return;
	/* With minmax the window's lowest point too, the two in event order. */
	if (a->minmax && a->low.index < a->best.index)
		pts_push(a, &a->low);
	pts_push(a, &a->best);
	if (a->minmax && a->low.index > a->best.index)
		pts_push(a, &a->low);
	a->have_best = false;
	if (++a->win < a->points) {
		uint64_t first, len;
		xp_memory_window(a->n, a->points, a->win, &first, &len);
		a->win_end = first + len;
	}
}

/* Spec §5.3 step 7: the allocations of the peak step live at the peak. */
static void track_active(struct mem_alc *a, const struct mem_ev *e, struct mem_ref r)
{
	if (e->act == MEM_ACT_ALLOC) {
		map_put(&a->active, e->addr, xp_mem_pack(r));
		a->unmapped = xp_mem_sat_sub(a->unmapped, e->bytes);
		return;
	}
	size_t slot = map_find(&a->active, e->addr);
	if (slot != SIZE_MAX)
		map_del_slot(&a->active, slot);
	else
		a->unmapped_dealloc = xp_mem_sat_add(a->unmapped_dealloc, e->bytes);
	a->unmapped = xp_mem_sat_add(a->unmapped, e->bytes);
}

static void pass2(struct mem *m, const struct mem_host *mh)
{
	bool timeline = m->o.timeline;
	struct mem_ev e;
	for (uint64_t s = 0; s < mh->n_seq; s++) {
		struct mem_alc *a = m->alcs[mh->aidx[s]];
		if (!a->selected)
			continue;
		struct mem_ref r = mh->seq[s];
		int32_t step = mh->step[s];
		uint64_t index = a->i++;
		const struct xp_plane *p;
		bool active = a->has_peak && step == a->peak_step && ref_line(mh, r, &p)->start_ps[r.ev] <= a->peak_t;
		if (!active && !timeline)
			continue;
		xp_mem_decode(mh, r, &e);
		struct mem_ref meta = r;
		if (e.act == MEM_ACT_DEALLOC) {
			size_t slot = map_find(&a->matched, s);
			if (slot != SIZE_MAX) {
				meta = xp_mem_unpack(a->matched.vals[slot]);
				if (!(e.have & MEM_H_BYTES))
					xp_mem_inherit_size(mh, meta, &e);
			}
		}
		if (active)
			track_active(a, &e, r);
		if (timeline) {
			struct mem_point pt = {r, meta, step, index};
			timeline_add(a, &pt, xp_mem_sat_add(e.stack, e.heap));
		}
	}
}

/* --- entry point ------------------------------------------------------------------- */

static int cmp_alc(const void *x, const void *y)
{
	const struct mem_alc *a = *(struct mem_alc *const *)x, *b = *(struct mem_alc *const *)y;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return strcmp(a->id, b->id);
}

static bool alc_matches(const struct mem_alc *a, const char *want)
{
	return !want || !strcmp(a->id, want) || (a->name && !strcmp(a->name, want));
}

/* Sort for output, apply --allocator, set up pass 2. */
static void select_allocators(struct mem *m)
{
	m->sorted = xmalloc((m->n_alcs + 1) * sizeof *m->sorted);
	if (m->n_alcs) {
		memcpy(m->sorted, m->alcs, m->n_alcs * sizeof *m->sorted);
		qsort(m->sorted, m->n_alcs, sizeof *m->sorted, cmp_alc);
	}
	uint32_t last_host = UINT32_MAX;
	for (size_t i = 0; i < m->n_alcs; i++) {
		struct mem_alc *a = m->sorted[i];
		a->selected = alc_matches(a, m->o.allocator);
		if (!a->selected)
			continue;
		m->n_selected++;
		if (a->host != last_host)
			m->hosts_with++;
		last_host = a->host;
		pass2_begin(a, m->o.timeline, m->o.points, m->o.minmax);
	}
}

void xp_mem_profile(struct mem *m, const struct xp_prep *p, const struct xp_memory_opts *o)
{
	*m = (struct mem){.p = p};
	if (o)
		m->o = *o;
	m->hosts = xcalloc(p->n_hosts, sizeof *m->hosts);
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct mem_host *mh = &m->hosts[h];
		*mh = (struct mem_host){.c = p->cap, .ph = &p->hosts[h], .h = p->hosts[h].host, .host = h};
		classify_planes(mh);
		pass1(m, mh);
	}
	finish_pass1(m);
	select_allocators(m);
	for (uint32_t h = 0; h < p->n_hosts; h++)
		pass2(m, &m->hosts[h]);
}

void xp_mem_profile_free(struct mem *m)
{
	for (uint32_t h = 0; h < m->p->n_hosts; h++)
		mem_host_free(&m->hosts[h]);
	free(m->hosts);
	for (size_t i = 0; i < m->n_alcs; i++)
		alc_free(m->alcs[i]);
	free(m->alcs);
	free(m->sorted);
	free(m->ht);
}
