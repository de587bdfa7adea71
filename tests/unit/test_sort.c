/* test_sort.c - the generated sort (formats/core/sort.h): sorted output and n log n comparisons on inputs that break simple quicksorts; the radix sort (radix.h) against it. */
#include "formats/core/radix.h"
#include "formats/core/sort.h"
#include "check.h"

#include <string.h>

static unsigned long comparisons;

static inline bool u64_less(const uint64_t *a, const uint64_t *b)
{
	comparisons++;
	return *a < *b;
}

XP_DEFINE_SORT(sort_u64, uint64_t, u64_less)

#define N 200000

static uint64_t keys[N], either[N];   /* either: the same keys for xp_sort_u64 */

/* Sorts keys[0..n) and checks the order and that it took at most 40 n log2 n comparisons: a quadratic case
 * takes thousands of times more at this size. */
static void sorted_within_bound(size_t n, const char *shape)
{
	comparisons = 0;
	sort_u64(keys, n);
	size_t bad = 0;
	for (size_t i = 1; i < n; i++)
		bad += keys[i] < keys[i - 1];
	double log2n = 0;
	for (size_t m = n; m > 1; m >>= 1)
		log2n++;
	if (bad || comparisons > 40 * n * log2n)
		fprintf(stderr, "%s: %zu out of order, %lu comparisons for %zu keys\n", shape, bad, comparisons, n);
	CHECK(bad == 0);
	CHECK(comparisons <= 40 * n * log2n);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

/* The extra edges of a grouped capture: short ascending runs, each higher than the last, then one long run
 * that overlaps them (keys as group.c makes them: target << 32 | edge index). */
static void runs_then_long_run(void)
{
	size_t n = 0;
	for (uint64_t r = 0; r < 150; r++)
		for (uint64_t k = 0; k < 12; k++, n++)
			keys[n] = (300 + r * 1600 + k * 100) << 32 | n;
	for (uint64_t t = 0; n < N; t += 3, n++)
		keys[n] = t << 32 | n;
	sorted_within_bound(N, "runs then a long run");
}

static void common_shapes(void)
{
	for (size_t i = 0; i < N; i++)
		keys[i] = i;
	sorted_within_bound(N, "ascending");
	for (size_t i = 0; i < N; i++)
		keys[i] = N - i;
	sorted_within_bound(N, "descending");
	for (size_t i = 0; i < N; i++)
		keys[i] = i < N / 2 ? i : N - i;
	sorted_within_bound(N, "organ pipe");
	for (size_t i = 0; i < N; i++)
		keys[i] = i % 1000;
	sorted_within_bound(N, "sawtooth");
	for (size_t i = 0; i < N; i++)
		keys[i] = 7;
	sorted_within_bound(N, "all equal");
	for (size_t i = 0; i < N; i++)
		keys[i] = next();
	sorted_within_bound(N, "random");
	for (size_t i = 0; i < N; i++)
		keys[i] = next() % 16;
	sorted_within_bound(N, "few distinct");
	for (size_t n = 0; n < 40; n++) {
		for (size_t i = 0; i < n; i++)
			keys[i] = next() % 5;
		sorted_within_bound(n, "short");
	}
}

/* A median-of-three killer for the first, middle and last as candidates (Musser's construction): the
 * depth limit must hand it to the heap sort. */
static void median_of_three_killer(void)
{
	size_t k = N / 2;
	for (size_t i = 1; i <= k; i++) {
		if (i % 2) {
			keys[i - 1] = i;
			keys[i] = k + i;
		}
		keys[k + i - 1] = 2 * i;
	}
	sorted_within_bound(N, "median-of-3 killer");
}

/* The radix sort gives what the comparison sort gives, on random keys of every width it is used at (short
 * arrays, keys whose high digits are all equal, duplicates, all 64 bits). */
static void radix_matches_sort(void)
{
	static uint64_t want[N], tmp[N];
	static const size_t sizes[] = {0, 1, 2, 5, 17, 24, 25, 255, 256, 257, 5000, N};
	static const unsigned widths[] = {1, 11, 12, 37, 58, 64};
	uint64_t x = 0x2545f4914f6cdd1du;
	size_t bad = 0;
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
		for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
			size_t n = sizes[si];
			unsigned bits = widths[wi];
			uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				/* a third of the keys share their upper half, so passes over equal digits are skipped */
				keys[i] = (i % 3 ? x : (x & 0xffffffffu) | 0x5a5a5a5a00000000u) & mask;
				want[i] = keys[i];
			}
			memcpy(either, keys, n * sizeof *keys);
			sort_u64(want, n);
			xp_radix_sort_u64(keys, n, tmp, bits);
			xp_sort_u64(either, n, tmp, bits);
			for (size_t i = 0; i < n; i++)
				bad += keys[i] != want[i] || either[i] != want[i];
		}
	CHECK(bad == 0);
}

/* The merge of runs gives what the comparison sort gives: sorted input, runs of every count up to one a key,
 * equal keys across runs. */
static void runs_match_sort(void)
{
	static uint64_t want[N], tmp[N];
	static const size_t sizes[] = {0, 1, 2, 3, 1000, N};
	static const size_t run_lens[] = {1, 2, 3, 100, 4096, N};
	uint64_t x = 0x9e3779b97f4a7c15u;
	size_t bad = 0;
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
		for (size_t ri = 0; ri < sizeof run_lens / sizeof *run_lens; ri++) {
			size_t n = sizes[si];
			uint64_t v = 0;
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v = i % run_lens[ri] ? v + x % 5 : x % 1000;     /* ascending within a run */
				keys[i] = want[i] = v;
			}
			memcpy(either, keys, n * sizeof *keys);
			sort_u64(want, n);
			xp_sort_runs_u64(keys, n, tmp);
			xp_sort_u64(either, n, tmp, 64);
			for (size_t i = 0; i < n; i++)
				bad += keys[i] != want[i] || either[i] != want[i];
		}
	CHECK(bad == 0);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(runs_then_long_run),
		TEST(common_shapes),
		TEST(median_of_three_killer),
		TEST(radix_matches_sort),
		TEST(runs_match_sort),
	};
	return RUN_TESTS("test_sort", tests);
}
