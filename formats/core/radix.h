/* radix.h - a least-significant-digit radix sort of 64-bit keys, for the sorts of millions of packed keys. */
#ifndef XPSTAT_RADIX_H
#define XPSTAT_RADIX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sort the N keys of A ascending, reading only their low BITS bits (the rest must be zero), with TMP (N keys)
 * as the second buffer. Linear in N times BITS / 11: a step's boundaries, millions of them, sort in a few
 * passes instead of 2 log2 N rounds of comparisons. Short arrays go to a comparison sort.
 */
void xp_radix_sort_u64(uint64_t *a, size_t n, uint64_t *tmp, unsigned bits);

#endif
