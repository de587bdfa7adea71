/* sort.h - a typed in-place sort generated per element type, for the hot sorts of millions of items. */
#ifndef XPSTAT_SORT_H
#define XPSTAT_SORT_H

#include <stddef.h>

/*
 * XP_DEFINE_SORT(name, type, less) defines `static void name(type *a, size_t n)`
 * sorting by the inline predicate `static inline bool less(const type *, const type *)`.
 * qsort calls its comparator through a pointer for every comparison; with
 * millions of grouping keys and step boundaries that call was most of the
 * sort's time. Quicksort (median of three, recursing into the smaller half so
 * the stack stays O(log n)), then insertion sort for short runs. Not stable:
 * callers give a total order (ties broken by a unique field) when the result
 * must not depend on the input order.
 */
#define XP_DEFINE_SORT(name, type, less)                                                   \
	static void name(type *a, size_t n)                                                \
	{                                                                                  \
		while (n > 16) {                                                           \
			type pivot = a[n / 2], tmp;                                        \
			if (less(&a[n - 1], &pivot))                                       \
				pivot = a[n - 1];                                          \
			if (less(&pivot, &a[0]))                                           \
				pivot = a[0];                                              \
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
				name(a, j + 1);                                            \
				a += j + 1;                                                \
				n -= j + 1;                                                \
			} else {                                                           \
				name(a + j + 1, n - j - 1);                                \
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
	}

#endif
