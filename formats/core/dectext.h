/* dectext.h - integers as decimal text without printf: the writers and the saved state print millions of them. */
#ifndef XPSTAT_DECTEXT_H
#define XPSTAT_DECTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { XP_DEC_SIZE = 21 };      /* "-9223372036854775808" and its NUL */

/* The digits of U, and a '-' before them when NEGATIVE, written backwards to end just before END; returns
 * where they start. */
static inline char *xp_dec_back(char *end, uint64_t u, int negative)
{
	char *p = end;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (negative)
		*--p = '-';
	return p;
}

/* U (negated when NEGATIVE) as decimal text at BUF (XP_DEC_SIZE bytes), NUL-terminated; returns its length. */
static inline size_t xp_dec_text(char *buf, uint64_t u, int negative)
{
	char tmp[XP_DEC_SIZE], *p = xp_dec_back(tmp + sizeof tmp, u, negative);
	size_t n = (size_t)(tmp + sizeof tmp - p);
	memcpy(buf, p, n);
	buf[n] = 0;
	return n;
}

static inline size_t xp_dec_u64(char *buf, uint64_t v)
{
	return xp_dec_text(buf, v, 0);
}

static inline size_t xp_dec_i64(char *buf, int64_t v)
{
	/* The magnitude of INT64_MIN does not fit int64_t: negate as unsigned. */
	return xp_dec_text(buf, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

#endif
