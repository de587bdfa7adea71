/* idmap.c - building and freeing the int64 -> dense slot maps (idmap.h). */
#include "idmap.h"
#include "formats/core/xalloc.h"

#include <string.h>

void xp_idmap_init(struct xp_idmap *m, const int64_t *keys, uint32_t n)
{
	memset(m, 0, sizeof *m);
	if (n == 0)
		return;
	int64_t lo = keys[0], hi = keys[0];
	for (uint32_t i = 1; i < n; i++) {
		if (keys[i] < lo)
			lo = keys[i];
		if (keys[i] > hi)
			hi = keys[i];
	}
	/* Writers number metadata 1, 2, 3...: a direct table is the common case. */
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	if (span != 0 && span <= 4ull * n + 1024) {
		m->min = lo;
		m->span = span;
		m->direct = xcalloc(span, sizeof *m->direct);
		return;
	}
	m->hcap = 16;
	while (m->hcap < 2ull * n)
		m->hcap *= 2;
	m->hkeys = xcalloc(m->hcap, sizeof *m->hkeys);
	m->hvals = xcalloc(m->hcap, sizeof *m->hvals);
}

void xp_idmap_put(struct xp_idmap *m, int64_t key, uint32_t val)
{
	if (m->direct) {
		m->direct[(uint64_t)key - (uint64_t)m->min] = val;
		return;
	}
	uint64_t j = xp_hash_mix((uint64_t)key) & (m->hcap - 1);
	while (m->hvals[j] && m->hkeys[j] != key)
		j = (j + 1) & (m->hcap - 1);
	m->hkeys[j] = key;
	m->hvals[j] = val;
}

void xp_idmap_free(struct xp_idmap *m)
{
	free(m->direct);
	free(m->hkeys);
	free(m->hvals);
}
