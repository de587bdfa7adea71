/* radix.c - a least-significant-digit radix sort of 64-bit keys. */
#include "radix.h"
#include "sort.h"

#include <stdbool.h>
#include <string.h>

enum { DIGIT_BITS = 11, BUCKETS = 1 << DIGIT_BITS, SHORT = 256 };

static inline bool u64_less(const uint64_t *a, const uint64_t *b)
{
	return *a < *b;
}

XP_DEFINE_SORT(sort_short, uint64_t, u64_less)

/* One stable pass over the digit at SHIFT, from SRC into DST; false, and nothing moved, when every key has the
 * same digit there (the high digits of timestamps close together). */
static bool pass(const uint64_t *src, uint64_t *dst, size_t n, unsigned shift)
{
	size_t count[BUCKETS] = {0}, pos = 0;
	for (size_t i = 0; i < n; i++)
		count[(src[i] >> shift) & (BUCKETS - 1)]++;
	if (count[(src[0] >> shift) & (BUCKETS - 1)] == n)
		return false;
	for (size_t d = 0; d < BUCKETS; d++) {
		size_t c = count[d];
		count[d] = pos;
		pos += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
	return true;
}

void xp_radix_sort_u64(uint64_t *a, size_t n, uint64_t *tmp, unsigned bits)
{
	if (n < SHORT) {
		sort_short(a, n);
		return;
	}
	uint64_t *src = a, *dst = tmp;
	for (unsigned shift = 0; shift < bits; shift += DIGIT_BITS) {
		if (!pass(src, dst, n, shift))
			continue;
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}
