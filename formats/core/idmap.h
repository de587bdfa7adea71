/* idmap.h - a fixed map from arbitrary int64 ids to dense uint32 slots: a direct table when the ids are compact, else hashed. */
#ifndef XPSTAT_IDMAP_H
#define XPSTAT_IDMAP_H

#include "formats/core/hash.h"

#include <stdint.h>

/* Built once for a known set of keys (xp_idmap_init), filled with xp_idmap_put; 0 means "no slot". */
struct xp_idmap {
	int64_t min;
	uint64_t span;          /* direct table size, 0 when hashed */
	uint32_t *direct;
	int64_t *hkeys;
	uint32_t *hvals;        /* 0 = empty slot */
	uint64_t hcap;
};

/* Room for the N KEYS (not stored yet). */
void xp_idmap_init(struct xp_idmap *m, const int64_t *keys, uint32_t n);
/* KEY must be one of the keys given to xp_idmap_init; VAL != 0. */
void xp_idmap_put(struct xp_idmap *m, int64_t key, uint32_t val);
void xp_idmap_free(struct xp_idmap *m);

/* Inline: the XSpace reader looks up every event's and every stat's metadata id. */
static inline uint32_t xp_idmap_get(const struct xp_idmap *m, int64_t key)
{
	if (m->direct) {
		uint64_t k = (uint64_t)key - (uint64_t)m->min;
		return k < m->span ? m->direct[k] : 0;
	}
	if (!m->hcap)
		return 0;
	uint64_t j = xp_hash_mix((uint64_t)key) & (m->hcap - 1);
	while (m->hvals[j]) {
		if (m->hkeys[j] == key)
			return m->hvals[j];
		j = (j + 1) & (m->hcap - 1);
	}
	return 0;
}

#endif
