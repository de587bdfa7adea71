/* trace_json_kmap.c - open addressing, linear probing, a power-of-two table kept at most half full. */
#include "trace_json_kmap.h"

#include <stdlib.h>
#include <string.h>

#include "formats/core/xalloc.h"

static uint64_t key3_hash(const struct key3 *k)
{
	uint64_t h = (uint64_t)k->a * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)k->b + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
	h ^= k->c * 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
}

uint32_t kmap_get(const struct kmap *m, const struct key3 *k)
{
	if (!m->cap)
		return UINT32_MAX;
	size_t j = key3_hash(k) & (m->cap - 1);
	while (m->vals[j]) {
		if (key3_eq(&m->keys[j], k))
			return m->vals[j] - 1;
		j = (j + 1) & (m->cap - 1);
	}
	return UINT32_MAX;
}

void kmap_put(struct kmap *m, const struct key3 *k, uint32_t v)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct kmap old = *m;
		m->cap = old.cap ? old.cap * 2 : 64;
		m->keys = xcalloc(m->cap, sizeof *m->keys);
		m->vals = xcalloc(m->cap, sizeof *m->vals);
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.vals[i])
				kmap_put(m, &old.keys[i], old.vals[i] - 1);
		free(old.keys);
		free(old.vals);
	}
	size_t j = key3_hash(k) & (m->cap - 1);
	while (m->vals[j] && !key3_eq(&m->keys[j], k))
		j = (j + 1) & (m->cap - 1);
	if (!m->vals[j])
		m->n++;
	m->keys[j] = *k;
	m->vals[j] = v + 1;
}

void kmap_free(struct kmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

