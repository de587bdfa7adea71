/* radix.c - a least-significant-digit radix sort of 64-bit keys, and a natural merge sort of them. */
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

/* The two buffers trade places after a pass. */
static void flip(uint64_t **src, uint64_t **dst)
{
	uint64_t *t = *src;
	*src = *dst;
	*dst = t;
}

/* The sorted keys, in SRC after the last pass, back in A. */
static void settle(uint64_t *a, const uint64_t *src, size_t n)
{
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

void xp_radix_sort_u64(uint64_t *a, size_t n, uint64_t *tmp, unsigned bits)
{
	if (n < SHORT) {
		sort_short(a, n);
		return;
	}
	uint64_t *src = a, *dst = tmp;
	for (unsigned shift = 0; shift < bits; shift += DIGIT_BITS) {
		if (pass(src, dst, n, shift))
			flip(&src, &dst);
	}
	settle(a, src, n);
}

/* The end of the ascending run of A that starts at I. */
static size_t run_end(const uint64_t *a, size_t i, size_t n)
{
	while (++i < n && a[i - 1] <= a[i])
		;
	return i;
}

/* The runs X (NX keys) and Y (NY keys) merged into OUT. */
static void merge(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *out)
{
	const uint64_t *xe = x + nx, *ye = y + ny;
	while (x < xe && y < ye)
		*out++ = *y < *x ? *y++ : *x++;
	memcpy(out, x, (size_t)(xe - x) * sizeof *x);
	out += xe - x;
	memcpy(out, y, (size_t)(ye - y) * sizeof *y);
}

void xp_sort_runs_u64(uint64_t *a, size_t n, uint64_t *tmp)
{
	uint64_t *src = a, *dst = tmp;
	for (size_t runs = 2; runs > 1;) {       /* each pass: the runs it leaves */
		runs = 0;
		for (size_t i = 0; i < n; runs++) {
			size_t j = run_end(src, i, n);
			if (j == n && i == 0)
				break;          /* one run: sorted */
			if (j == n) {
				memcpy(dst + i, src + i, (n - i) * sizeof *src);
				i = n;
			} else {
				size_t k = run_end(src, j, n);
				merge(src + i, j - i, src + j, k - j, dst + i);
				i = k;
			}
		}
		if (!runs)
			break;
		flip(&src, &dst);
	}
	settle(a, src, n);
}

/* A few keys (a step's span boundaries, most often): by insertion, with no pass to count runs. */
enum { FEW_KEYS = 24 };

static void insertion_sort_u64(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t v = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

void xp_sort_u64(uint64_t *a, size_t n, uint64_t *tmp, unsigned bits)
{
	if (n <= FEW_KEYS) {
		insertion_sort_u64(a, n);
		return;
	}
	size_t runs = 1;
	for (size_t i = 1; i < n; i++)
		runs += a[i] < a[i - 1];
	unsigned merge_passes = 0, radix_passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
	while (((size_t)1 << merge_passes) < runs)
		merge_passes++;
	/* a merge pass streams through memory; a radix pass scatters into 2,048 places: about twice the cost */
	if (merge_passes <= 2 * radix_passes)
		xp_sort_runs_u64(a, n, tmp);
	else
		xp_radix_sort_u64(a, n, tmp, bits);
}
