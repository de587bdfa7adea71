/* hash.h - one fast byte hash for every hash table of the reader and the analyzers. */
#ifndef XPSTAT_HASH_H
#define XPSTAT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define XP_HASH_SEED 0x9e3779b97f4a7c15ull

/* A 64-bit finalizer (murmur3's): every input bit reaches every output bit. */
static inline uint64_t xp_hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* One multiply-fold step: the 128-bit product of two words, halves xored. */
static inline uint64_t xp_hash_fold(uint64_t a, uint64_t b)
{
	__uint128_t p = (__uint128_t)a * b;
	return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* Hashes N bytes eight at a time, continuing from H. Kernel details and op
 * names run to hundreds of bytes and are hashed once per event, so a byte
 * loop (FNV) cost whole seconds on a large capture. Only equality of inputs
 * matters to callers: no output order depends on these values. */
static inline uint64_t xp_hash_bytes(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	h ^= (uint64_t)n * 0xa0761d6478bd642full;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = xp_hash_fold(h ^ w, 0xe7037ed1a0b428dbull);
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, p, n);
		h = xp_hash_fold(h ^ w, 0x8ebc6af09c88c6e3ull);
	}
	return h;
}

/* A NUL-terminated string (NULL hashes differently from ""). */
static inline uint64_t xp_hash_str(uint64_t h, const char *s)
{
	return s ? xp_hash_bytes(h, s, strlen(s)) : xp_hash_mix(h ^ 0x5bd1e995u);
}

static inline uint64_t xp_hash_u64(uint64_t h, uint64_t v)
{
	return xp_hash_fold(h ^ v, 0x589965cc75374cc3ull);
}

#endif
