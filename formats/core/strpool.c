/* strpool.c - the string pool and text maps of strpool.h. */
#include "strpool.h"

#include "hash.h"
#include "xalloc.h"

#include <stdlib.h>

#define CHUNK (1u << 16)

struct xp_pool {
	char **chunks;          /* texts live here, each after its 4-byte id */
	size_t n_chunks, used;  /* used: bytes taken in the last chunk */
	const char **strs;      /* by id; strs[0] unused */
	uint32_t n;             /* strings interned */
	size_t cap;             /* index slots (power of two), each an id or 0 */
	uint32_t *slot;
	uint32_t *ranks;        /* by id, made on demand */
	uint32_t ranked;        /* strings the ranks cover */
};

struct xp_pool *xp_pool_new(void)
{
	struct xp_pool *p = xcalloc(1, sizeof *p);
	p->cap = 256;
	p->slot = xcalloc(p->cap, sizeof *p->slot);
	p->strs = xcalloc(p->cap / 2 + 1, sizeof *p->strs);
	return p;
}

void xp_pool_free(struct xp_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_chunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->strs);
	free(p->slot);
	free(p->ranks);
	free(p);
}

static uint64_t text_hash(const char *s, size_t len)
{
	return xp_hash_bytes(XP_HASH_SEED, s, len);
}

/* Room for an id and LEN + 1 bytes, 4-aligned; long texts get a chunk of their own. */
static char *take(struct xp_pool *p, size_t len)
{
	size_t need = (sizeof(uint32_t) + len + 1 + 3) & ~(size_t)3;
	if (!p->n_chunks || p->used + need > CHUNK) {
		p->chunks = xrealloc(p->chunks, (p->n_chunks + 1) * sizeof *p->chunks);
		p->chunks[p->n_chunks++] = xmalloc(need > CHUNK ? need : CHUNK);
		p->used = 0;
	}
	char *at = p->chunks[p->n_chunks - 1] + p->used;
	p->used += need;
	return at;
}

static void grow(struct xp_pool *p)
{
	free(p->slot);
	p->cap *= 2;
	p->slot = xcalloc(p->cap, sizeof *p->slot);
	p->strs = xrealloc(p->strs, (p->cap / 2 + 1) * sizeof *p->strs);
	for (uint32_t id = 1; id <= p->n; id++) {
		const char *s = p->strs[id];
		size_t i = (size_t)text_hash(s, strlen(s)) & (p->cap - 1);
		while (p->slot[i])
			i = (i + 1) & (p->cap - 1);
		p->slot[i] = id;
	}
}

const char *xp_pool_str(struct xp_pool *p, const char *s, size_t len)
{
	size_t i = (size_t)text_hash(s, len) & (p->cap - 1);
	for (; p->slot[i]; i = (i + 1) & (p->cap - 1)) {
		const char *t = p->strs[p->slot[i]];
		/* Length first: a shorter pooled text may end its chunk, and memcmp would read past it. */
		if (strnlen(t, len + 1) == len && !memcmp(t, s, len))
			return t;
	}
	uint32_t id = ++p->n;
	char *at = take(p, len);
	memcpy(at, &id, sizeof id);
	at += sizeof id;
	if (len)
		memcpy(at, s, len);
	at[len] = 0;
	p->strs[id] = at;
	p->slot[i] = id;
	if (p->n * 2 >= p->cap)
		grow(p);
	return at;
}

const char *xp_pool_copy(struct xp_pool *p, const char *s, size_t len)
{
	char *at = take(p, len);
	memset(at, 0, sizeof(uint32_t));
	at += sizeof(uint32_t);
	if (len)
		memcpy(at, s, len);
	at[len] = 0;
	return at;
}

static _Thread_local const struct xp_pool *rank_pool;

static int cmp_ids(const void *a, const void *b)
{
	return strcmp(rank_pool->strs[*(const uint32_t *)a], rank_pool->strs[*(const uint32_t *)b]);
}

const uint32_t *xp_pool_ranks(struct xp_pool *p)
{
	if (p->ranks && p->ranked == p->n)
		return p->ranks;
	uint32_t *ids = xcalloc(p->n + 1, sizeof *ids);
	for (uint32_t id = 1; id <= p->n; id++)
		ids[id - 1] = id;
	rank_pool = p;
	qsort(ids, p->n, sizeof *ids, cmp_ids);
	free(p->ranks);
	p->ranks = xcalloc(p->n + 1, sizeof *p->ranks);
	for (uint32_t r = 0; r < p->n; r++)
		p->ranks[ids[r]] = r + 1;
	p->ranked = p->n;
	free(ids);
	return p->ranks;
}

/* --- text maps --------------------------------------------------------------------------------- */

static size_t fast_pos(const char *s, uint32_t len)
{
	uintptr_t a = (uintptr_t)s;
	return (size_t)((a >> 3) ^ (a >> 11) ^ len) & 255;
}

static size_t map_pos(const struct xp_textmap *m, const char *s, uint32_t len, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);
	for (; m->slot[i].s; i = (i + 1) & (m->cap - 1)) {
		const struct xp_tm_slot *t = &m->slot[i];
		if (m->hash[i] == h && t->len == len && (t->s == s || !memcmp(t->s, s, len)))
			break;
	}
	return i;
}

bool xp_textmap_get(struct xp_textmap *m, const char *s, uint32_t len, uint32_t *val)
{
	struct xp_tm_slot *f = &m->fast[fast_pos(s, len)];
	if (f->s == s && f->len == len && s) {
		*val = f->val;
		return true;
	}
	if (!m->cap)
		return false;
	size_t i = map_pos(m, s, len, text_hash(s, len));
	if (!m->slot[i].s)
		return false;
	*val = m->slot[i].val;
	*f = (struct xp_tm_slot){s, len, *val};
	return true;
}

/* The id array of M for N_IDS ids (made on first use; NULL when ID is not one of them). */
static uint32_t *ids_for(struct xp_textmap *m, uint32_t id, uint32_t n_ids)
{
	if (id >= n_ids || (m->by_id && n_ids != m->n_ids))
		return NULL;
	if (!m->by_id) {
		m->by_id = xcalloc(n_ids, sizeof *m->by_id);
		m->n_ids = n_ids;
	}
	return m->by_id;
}

bool xp_textmap_get_interned(struct xp_textmap *m, uint32_t id, uint32_t n_ids, const char *s, uint32_t len,
			     uint32_t *val)
{
	uint32_t *ids = m->by_id && id < m->n_ids && n_ids == m->n_ids ? m->by_id : NULL;
	if (ids && ids[id]) {
		*val = ids[id] - 1;
		return true;
	}
	if (!xp_textmap_get(m, s, len, val))
		return false;
	if ((ids = ids_for(m, id, n_ids)))
		ids[id] = *val + 1;
	return true;
}

static void map_grow(struct xp_textmap *m)
{
	struct xp_textmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->slot = xcalloc(m->cap, sizeof *m->slot);
	m->hash = xcalloc(m->cap, sizeof *m->hash);
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.slot[i].s)
			continue;
		size_t j = map_pos(m, old.slot[i].s, old.slot[i].len, old.hash[i]);
		m->slot[j] = old.slot[i];
		m->hash[j] = old.hash[i];
	}
	free(old.slot);
	free(old.hash);
}

/* S must not be NULL (absent texts are the caller's case) and must not be in the map yet. */
void xp_textmap_put(struct xp_textmap *m, const char *s, uint32_t len, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap)
		map_grow(m);
	uint64_t h = text_hash(s, len);
	size_t i = map_pos(m, s, len, h);
	m->slot[i] = (struct xp_tm_slot){s, len, val};
	m->hash[i] = h;
	m->n++;
	m->fast[fast_pos(s, len)] = m->slot[i];
}

void xp_textmap_put_interned(struct xp_textmap *m, uint32_t id, uint32_t n_ids, const char *s, uint32_t len,
			     uint32_t val)
{
	xp_textmap_put(m, s, len, val);
	uint32_t *ids = ids_for(m, id, n_ids);
	if (ids)
		ids[id] = val + 1;
}

void xp_textmap_free(struct xp_textmap *m)
{
	free(m->slot);
	free(m->hash);
	free(m->by_id);
	memset(m, 0, sizeof *m);
}
