/* trace_json_time.h - trace JSON times: ts/dur decimal microseconds as exact integer picoseconds, and the host's time base. */
#ifndef XPSTAT_TRACE_JSON_TIME_H
#define XPSTAT_TRACE_JSON_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "json_lex.h"

/* How a conversion went: TM_BAD is not a number, TM_RANGE a magnitude of 10^33 ps or more. */
enum { TM_OK = 0, TM_BAD = 1, TM_RANGE = 2 };

/* Times are kept relative to the first ts seen, in picoseconds. */
struct tj_clock {
	bool have_t0;
	__int128 t0;
};

/* Decimal microseconds (JSON number text) to picoseconds, rounded to the nearest, ties away from zero. */
int tj_us_to_ps(const uint8_t *s, size_t len, __int128 *out);

/* A ts or dur value in picoseconds: converted while lexing (done), else a number or a string without escapes. */
static inline int tj_time_ps(const struct jval *v, bool done, __int128 converted, __int128 *ps)
{
	if (done) {
		*ps = converted;
		return TM_OK;
	}
	return v->type == JV_NUM || (v->type == JV_STR && !v->esc) ? tj_us_to_ps(v->p, v->len, ps) : TM_BAD;
}

/* ts relative to the first ts (which it sets when it is the first); TM_RANGE past 9e15 us. A
 * difference beyond int64 is clamped and sets *overflow. */
static inline int tj_ts_rel(struct tj_clock *c, __int128 ps, int64_t *rel, bool *overflow)
{
	/* |ts| below 9e21 ps keeps the host base (in ns) inside int64. */
	const __int128 lim = (__int128)9000000000000000000ll * 1000;
	if (ps >= lim || ps <= -lim)
		return TM_RANGE;
	if (!c->have_t0) {
		c->t0 = ps;
		c->have_t0 = true;
	}
	__int128 d = ps - c->t0;
	if (d > INT64_MAX || d < INT64_MIN) {
		*overflow = true;
		*rel = d > 0 ? INT64_MAX : INT64_MIN;
	} else {
		*rel = (int64_t)d;
	}
	return TM_OK;
}

/* A dur in picoseconds; negative ones become 0 and set *negative. */
static inline int tj_dur(__int128 ps, int64_t *dur, bool *negative)
{
	if (ps > INT64_MAX || ps < -INT64_MAX)
		return TM_RANGE;
	*negative = ps < 0;
	*dur = ps < 0 ? 0 : (int64_t)ps;
	return TM_OK;
}

/* The host's base (ns) for the earliest start min_rel, and what to subtract from every start so
 * that it counts from there. */
void tj_base(const struct tj_clock *c, int64_t min_rel, int64_t *base_ns, int64_t *shift);

/* A ts or dur in its common form -- [-]digits[.digits], at most 18 digits
 * before the point -- lexed and turned into picoseconds in one pass, rounded
 * as tj_us_to_ps does. False: anything else (an exponent, a leading zero, the
 * window's end), for the general lexer and tj_us_to_ps to take. */
static inline bool tj_lex_time(const uint8_t *p, const uint8_t *end, struct jval *v, __int128 *ps)
{
	const uint8_t *q = p, *digits;
	bool neg = *q == '-', up = false;
	q += neg;
	if (q >= end || !jl_is_digit(*q) || (*q == '0' && q + 1 < end && jl_is_digit(q[1])))
		return false;
	uint64_t whole, frac = 0;
	q = jl_skip_digits(digits = q, end);
	if (q - digits > 18)
		return false;
	whole = jl_digits_value(digits, (size_t)(q - digits), end);
	int nfrac = 0;
	bool point = q < end && *q == '.';
	if (point) {
		digits = ++q;
		q = jl_skip_digits(q, end);
		if (q == digits)
			return false;
		/* digits past the seventh only need to be digits */
		nfrac = q - digits < 6 ? (int)(q - digits) : 6;
		frac = jl_digits_value(digits, (size_t)nfrac, end);
		up = q - digits > 6 && digits[6] >= '5'; /* the first digit past the picosecond: ties away from zero */
	}
	if (q >= end || *q == 'e' || *q == 'E')
		return false;
	for (; nfrac < 6; nfrac++)
		frac *= 10;
	__int128 mag = (__int128)whole * 1000000 + (__int128)(frac + up);
	*ps = neg ? -mag : mag;
	*v = (struct jval){.type = JV_NUM, .is_int = !point, .p = p, .len = (size_t)(q - p)};
	return true;
}

#endif
