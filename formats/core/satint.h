/* satint.h - int64 sums and differences that stay at the ends of the range instead of overflowing (undefined). */
#ifndef XPSTAT_SATINT_H
#define XPSTAT_SATINT_H

#include <stdint.h>

/* Spans of hostile event times (an offset of -2^63), sums of values read back from saved documents. */
static inline int64_t xp_sat_add(int64_t a, int64_t b)
{
	int64_t s;
	return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

static inline int64_t xp_sat_sub(int64_t a, int64_t b)
{
	int64_t s;
	return __builtin_sub_overflow(a, b, &s) ? (b < 0 ? INT64_MAX : INT64_MIN) : s;
}

#endif
