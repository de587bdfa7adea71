/* radix.h - sorts of millions of packed 64-bit keys without comparison callbacks: radix, and merges of sorted runs. */
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

/*
 * Sort the N keys of A ascending with TMP (N keys) as the second buffer, for keys that come as a few ascending
 * runs (a line's spans in time order, one line after another): natural merge sort, each pass merging adjacent
 * runs in one sequential sweep, so R runs take log2 R passes and an array already in order one scan.
 */
void xp_sort_runs_u64(uint64_t *a, size_t n, uint64_t *tmp);

/* Sort the N keys of A (only their low BITS bits set) with TMP (N keys): the merge of runs when the keys come
 * in few enough runs, else the radix sort, whichever takes fewer passes over them. */
void xp_sort_u64(uint64_t *a, size_t n, uint64_t *tmp, unsigned bits);

#endif
