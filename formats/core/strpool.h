/* strpool.h - one copy of each distinct text, and maps from texts to small values: what a database keeps per distinct name instead of per row. */
#ifndef XPSTAT_STRPOOL_H
#define XPSTAT_STRPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A capture of millions of kernel events names a few hundred kernels and ops. A database that copies those
 * names into each of its rows, or checks a name's Tensor Core substrings per row, pays per row for what is
 * known per name. The pool keeps each text once (NUL-terminated, ids from 1 in order of first interning,
 * stored just before the text so that a row needs only the pointer); equal texts give the same pointer, so
 * equality is a pointer comparison and order a rank lookup.
 */
struct xp_pool;

struct xp_pool *xp_pool_new(void);
void xp_pool_free(struct xp_pool *p);
/* The pool's copy of LEN bytes at S. */
const char *xp_pool_str(struct xp_pool *p, const char *s, size_t len);
/* A copy of LEN bytes at S kept with the pool's texts but not indexed (id 0, never shared): for texts known to be
 * distinct, such as a database's row keys, which cost a chunk's bytes and no lookup. */
const char *xp_pool_copy(struct xp_pool *p, const char *s, size_t len);
/* The id of a string the pool returned. */
static inline uint32_t xp_pool_id(const char *s)
{
	uint32_t id;
	memcpy(&id, s - sizeof id, sizeof id);
	return id;
}
/* Rank of every interned string in strcmp order, indexed by id (valid until the next xp_intern). */
const uint32_t *xp_pool_ranks(struct xp_pool *p);

/*
 * A map from texts (slices of the capture, not copied) to a 32-bit value. Interned capture strings come back
 * at the same address each time, so a direct-mapped front keyed by address answers most lookups without
 * reading the text; str_value texts (a new address per event) fall through to a hash of their bytes.
 */
struct xp_tm_slot {
	const char *s;
	uint32_t len, val;
};

struct xp_textmap {
	size_t cap, n;
	struct xp_tm_slot *slot;
	uint64_t *hash;
	struct xp_tm_slot fast[256];
	uint32_t *by_id;        /* interned texts by their id (xp_textmap_get_interned): value + 1, 0 = not yet */
	uint32_t n_ids;
};

bool xp_textmap_get(struct xp_textmap *m, const char *s, uint32_t len, uint32_t *val);
/* As xp_textmap_get, for text S that is interned as ID, one of N_IDS (a capture's string id: one text, one id,
 * while the map lives): after its first lookup it is found by its id alone, in an array of N_IDS values made on
 * first use, however many distinct texts miss the front. An id past N_IDS is looked up by its bytes. */
bool xp_textmap_get_interned(struct xp_textmap *m, uint32_t id, uint32_t n_ids, const char *s, uint32_t len,
			     uint32_t *val);
/* As xp_textmap_put, for text S interned as ID: found by its id from the next lookup on. */
void xp_textmap_put_interned(struct xp_textmap *m, uint32_t id, uint32_t n_ids, const char *s, uint32_t len,
			     uint32_t val);
void xp_textmap_put(struct xp_textmap *m, const char *s, uint32_t len, uint32_t val);
void xp_textmap_free(struct xp_textmap *m);

#endif
