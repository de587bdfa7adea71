/* sort.h - a typed in-place sort generated per element type, for the hot sorts of millions of items. */
#ifndef XPSTAT_SORT_H
#define XPSTAT_SORT_H

#include <stddef.h>

/*
 * XP_DEFINE_SORT(name, type, less) defines `static void name(type *a, size_t n)`
 * sorting by the inline predicate `static inline bool less(const type *, const type *)`.
 * qsort calls its comparator through a pointer for every comparison; with
 * millions of grouping keys and step boundaries that call was most of the
 * sort's time. Introsort: quicksort (pivot the median of the elements at a
 * quarter, a half and three quarters, recursing into the smaller half so the
 * stack stays O(log n)); a range that is still being split after 2 log2 n
 * rounds is heap-sorted, so no input makes it quadratic. (The extra edges of a
 * capture, short sorted runs before a long one, took 776 M comparisons for
 * 485 k keys with the first, middle and last as candidates.) Insertion sort
 * for short runs. Not
 * stable: callers give a total order (ties broken by a unique field) when the
 * result must not depend on the input order.
 */
#define XP_DEFINE_SORT(name, type, less)                                                   \
	static void name##_sift(type *a, size_t root, size_t n)                            \
	{                                                                                  \
		type x = a[root];                                                          \
		for (size_t c; (c = 2 * root + 1) < n; root = c) {                        \
			if (c + 1 < n && less(&a[c], &a[c + 1]))                           \
				c++;                                                       \
			if (!less(&x, &a[c]))                                              \
				break;                                                     \
			a[root] = a[c];                                                    \
		}                                                                          \
		a[root] = x;                                                               \
	}                                                                                  \
	static void name##_heap(type *a, size_t n)                                         \
	{                                                                                  \
		for (size_t i = n / 2; i-- > 0;)                                           \
			name##_sift(a, i, n);                                              \
		for (size_t end = n; end-- > 1;) {                                         \
			type top = a[0];                                                   \
			a[0] = a[end];                                                     \
			a[end] = top;                                                      \
			name##_sift(a, 0, end);                                            \
		}                                                                          \
	}                                                                                  \
	static void name##_intro(type *a, size_t n, unsigned depth)                        \
	{                                                                                  \
		while (n > 16) {                                                           \
			if (!depth--) {                                                    \
				name##_heap(a, n);                                         \
				return;                                                    \
			}                                                                  \
			type lo = a[n / 4], pivot = a[n / 2], hi = a[n - 1 - n / 4], tmp;  \
			if (less(&pivot, &lo)) {                                           \
				tmp = lo;                                                  \
				lo = pivot;                                                \
				pivot = tmp;                                               \
			}                                                                  \
			if (less(&hi, &pivot))                                             \
				pivot = less(&hi, &lo) ? lo : hi;                          \
			size_t i = 0, j = n - 1;                                           \
			for (;;) {                                                         \
				while (less(&a[i], &pivot))                                \
					i++;                                               \
				while (less(&pivot, &a[j]))                                \
					j--;                                               \
				if (i >= j)                                                \
					break;                                             \
				tmp = a[i];                                                \
				a[i] = a[j];                                               \
				a[j] = tmp;                                                \
				i++;                                                       \
				j--;                                                       \
			}                                                                  \
			if (j + 1 < n - j - 1) {                                           \
				name##_intro(a, j + 1, depth);                             \
				a += j + 1;                                                \
				n -= j + 1;                                                \
			} else {                                                           \
				name##_intro(a + j + 1, n - j - 1, depth);                 \
				n = j + 1;                                                 \
			}                                                                  \
		}                                                                          \
		for (size_t i = 1; i < n; i++) {                                           \
			type x = a[i];                                                     \
			size_t k = i;                                                      \
			while (k > 0 && less(&x, &a[k - 1])) {                             \
				a[k] = a[k - 1];                                           \
				k--;                                                       \
			}                                                                  \
			a[k] = x;                                                          \
		}                                                                          \
	}                                                                                  \
	static void name(type *a, size_t n)                                                \
	{                                                                                  \
		unsigned depth = 0;                                                        \
		for (size_t m = n; m > 1; m >>= 1)                                         \
			depth += 2;                                                        \
		name##_intro(a, n, depth);                                                 \
	}

#endif
