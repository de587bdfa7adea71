/* trace_json_time.c - exact decimal time: ts/dur microsecond text to integer picoseconds without a double, and the host base. */
#include "trace_json_time.h"

static __int128 pow10_33(void)
{
	return (__int128)1000000000000000000ll * 1000000000000000ll;
}

/* A number's text, split: [ib, ie) the integer digits, [fb, fe) the fraction's, exp the exponent. */
struct decimal {
	bool neg;
	size_t ib, ie, fb, fe;
	int64_t exp;
};

/* The exponent at s[*i] (after 'e'); false without a digit. Huge ones saturate: they only overflow. */
static bool parse_exponent(const uint8_t *s, size_t len, size_t *i, int64_t *exp)
{
	bool eneg = false;
	if (++*i < len && (s[*i] == '+' || s[*i] == '-'))
		eneg = s[(*i)++] == '-';
	size_t eb = *i;
	for (; *i < len && jl_is_digit(s[*i]); ++*i)
		if (*exp < 100000000)
			*exp = *exp * 10 + (s[*i] - '0');
	if (*i == eb)
		return false;
	if (eneg)
		*exp = -*exp;
	return true;
}

/* JSON number syntax (optionally signed, fraction, exponent) into its parts. */
static bool parse_decimal(const uint8_t *s, size_t len, struct decimal *d)
{
	size_t i = d->neg = len && s[0] == '-';
	d->ib = i;
	while (i < len && jl_is_digit(s[i]))
		i++;
	d->ie = d->fb = d->fe = i;
	d->exp = 0;
	if (d->ie == d->ib || (d->ie - d->ib > 1 && s[d->ib] == '0'))
		return false;
	if (i < len && s[i] == '.') {
		d->fb = ++i;
		while (i < len && jl_is_digit(s[i]))
			i++;
		d->fe = i;
		if (d->fe == d->fb)
			return false;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E') && !parse_exponent(s, len, &i, &d->exp))
		return false;
	return i == len;
}

/* The k-th digit of the integer digits followed by the fraction digits. */
static uint8_t digit_at(const uint8_t *s, const struct decimal *d, int64_t k)
{
	int64_t nint = (int64_t)(d->ie - d->ib);
	return k < nint ? s[d->ib + (size_t)k] : s[d->fb + (size_t)(k - nint)];
}

/* Any number: value = D * 10^e10, D = the integer digits followed by the fraction digits. */
static int us_to_ps_slow(const uint8_t *s, size_t len, __int128 *out)
{
	struct decimal d;
	if (!parse_decimal(s, len, &d))
		return TM_BAD;
	int64_t nint = (int64_t)(d.ie - d.ib), nfrac = (int64_t)(d.fe - d.fb), n = nint + nfrac;
	int64_t e10 = d.exp - nfrac + 6;
	int64_t keep = n + e10; /* digits before the picosecond point */
	const __int128 lim = pow10_33();
	__int128 acc = 0;
	int64_t take = keep < n ? keep : n;
	for (int64_t k = 0; k < take; k++) {
		acc = acc * 10 + (digit_at(s, &d, k) - '0');
		if (acc >= lim)
			return TM_RANGE;
	}
	if (keep > n) {
		for (int64_t k = n; k < keep && acc; k++) {
			acc *= 10;
			if (acc >= lim)
				return TM_RANGE;
		}
	} else if (keep >= 0 && keep < n) {
		if (digit_at(s, &d, keep) >= '5' && ++acc >= lim)
			return TM_RANGE;
	}
	*out = d.neg ? -acc : acc;
	return TM_OK;
}

/* Up to 24 significant digits, 18 in a word and the rest in 128 bits. */
struct digits {
	uint64_t acc;
	unsigned __int128 big;
	int nd;
};

static inline void push_digit(struct digits *g, uint64_t d)
{
	if (g->nd < 18)
		g->acc = g->acc * 10 + d;
	else
		g->big = (g->nd == 18 ? g->acc : g->big) * 10 + d;
	g->nd++;
}

/* The common form (no exponent, at most 24 digits before the point) digit by digit without a
 * division; the rest by us_to_ps_slow. */
int tj_us_to_ps(const uint8_t *s, size_t len, __int128 *out)
{
	bool neg = len && s[0] == '-', up = false;
	size_t i = neg;
	if (i < len && s[i] == '0' && i + 1 < len && jl_is_digit(s[i + 1]))
		return TM_BAD;
	struct digits g = {0, 0, 0};
	size_t ib = i;
	for (; i < len && jl_is_digit(s[i]) && g.nd < 24; i++)
		push_digit(&g, (uint64_t)(s[i] - '0'));
	if (i == ib || (i < len && jl_is_digit(s[i])))
		return us_to_ps_slow(s, len, out);
	int nfrac = 0;
	if (i < len && s[i] == '.') {
		size_t fb = ++i;
		for (; i < len && jl_is_digit(s[i]); i++, nfrac++) {
			if (nfrac < 6)
				push_digit(&g, (uint64_t)(s[i] - '0'));
			else if (nfrac == 6)
				up = s[i] >= '5'; /* the first dropped digit: ties away from zero */
		}
		if (i == fb)
			return TM_BAD;
	}
	if (i != len)
		return us_to_ps_slow(s, len, out);
	for (; nfrac < 6; nfrac++)
		push_digit(&g, 0);
	__int128 v = g.nd <= 18 ? (__int128)g.acc : (__int128)g.big;
	*out = neg ? -(v + up) : v + up;
	return TM_OK;
}

static int64_t floor_div(__int128 a, int64_t b)
{
	__int128 q = a / b;
	if ((a % b) && (a < 0))
		q--;
	return (int64_t)q;
}

void tj_base(const struct tj_clock *c, int64_t min_rel, int64_t *base_ns, int64_t *shift)
{
	__int128 base_ps = c->t0 + min_rel;
	*base_ns = floor_div(base_ps, 1000);
	__int128 s = (__int128)*base_ns * 1000 - c->t0;
	*shift = s < INT64_MIN ? INT64_MIN : s > INT64_MAX ? INT64_MAX : (int64_t)s;
}
