/* trace_json_values.c - trace JSON values as the model wants them: unescaped or compacted text, interned strings, integers and doubles. */
#include "trace_json_values.h"

#include <math.h>
#include <stdlib.h>

uint8_t *tj_scratch(struct tj_stage *r, int slot, size_t n)
{
	struct scratch *s = &r->scr[slot];
	if (n + 1 > s->cap) {
		s->cap = n + 1 > 256 ? n + 1 : 256;
		s->p = xrealloc(s->p, s->cap);
	}
	return s->p;
}

/* A string value with escapes, unescaped into scratch slot. */
const uint8_t *tj_unescaped(struct tj_stage *r, const struct jval *v, int slot, size_t *len)
{
	uint8_t *b = tj_scratch(r, slot, v->len);
	*len = jl_unescape(v->p, v->len, b, &r->odd.invalid_utf8);
	return b;
}

/* An array or object as compact JSON text: the source without insignificant whitespace. */
const uint8_t *tj_compact(struct tj_stage *r, const struct jval *v, int slot, size_t *len)
{
	uint8_t *o = tj_scratch(r, slot, v->len);
	bool in_str = false, esc = false;
	size_t n = 0;
	for (size_t i = 0; i < v->len; i++) {
		uint8_t c = v->p[i];
		if (in_str) {
			o[n++] = c;
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (!jl_is_ws(c)) {
			o[n++] = c;
			in_str = c == '"';
		}
	}
	*len = n;
	return o;
}


static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ull;
	h = (h << 27 | h >> 37) * 0xc2b2ae3d27d4eb4full;
	return h;
}

static uint64_t fast_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0x2545f4914f6cdd1dull ^ n;
	size_t i = 0;
	if (n >= 32) {
		/* four independent lanes: long kernel names hash at several bytes a cycle */
		uint64_t a = h, b = h ^ 0x9e3779b97f4a7c15ull, c = h ^ 0xbf58476d1ce4e5b9ull, d = h ^ 0x94d049bb133111ebull;
		for (; i + 32 <= n; i += 32) {
			a = mix(a, load64(p + i));
			b = mix(b, load64(p + i + 8));
			c = mix(c, load64(p + i + 16));
			d = mix(d, load64(p + i + 24));
		}
		h = mix(mix(mix(a, b), c), d);
	}
	for (; i + 8 <= n; i += 8)
		h = mix(h, load64(p + i));
	if (i < n) {
		/* the tail: the last 8 bytes again when there are 8, else byte by byte
		 * (a memcpy into a word would stall on store forwarding) */
		uint64_t t = 0;
		if (n >= 8) {
			t = load64(p + n - 8);
		} else {
			for (size_t k = i; k < n; k++)
				t = t << 8 | p[k];
		}
		h = mix(h, t);
	}
	h ^= h >> 32;
	return h ? h : 1;
}

static void scache_grow(struct scache *c)
{
	struct scache old = *c;
	c->cap = old.cap ? old.cap * 2 : 256;
	c->e = xcalloc(c->cap, sizeof *c->e);
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.e[i].id)
			continue;
		size_t j = old.e[i].hash & (c->cap - 1);
		while (c->e[j].id)
			j = (j + 1) & (c->cap - 1);
		c->e[j] = old.e[i];
	}
	free(old.e);
}

uint32_t tj_intern(struct tj_stage *r, const uint8_t *p, size_t len)
{
	struct scache *c = &r->strings;
	if (len > INTERN_MAX)
		return xp_intern(r->st, (const char *)p, len);
	if ((c->n + 1) * 2 > c->cap)
		scache_grow(c);
	uint64_t h = fast_hash(p, len);
	size_t j = h & (c->cap - 1);
	while (c->e[j].id) {
		const struct scache_ent *x = &c->e[j];
		if (x->hash == h && x->len == len && same_bytes((const uint8_t *)r->st->strs[x->id - 1], p, len))
			return x->id - 1;
		j = (j + 1) & (c->cap - 1);
	}
	uint32_t id = xp_intern(r->st, (const char *)p, len);
	c->e[j] = (struct scache_ent){h, id + 1, (uint32_t)len};
	c->n++;
	return id;
}

uint32_t tj_intern_val(struct tj_stage *r, const struct jval *v, int slot)
{
	size_t n;
	const uint8_t *p = tj_val_text(r, v, slot, &n);
	return tj_intern(r, p, n);
}

int tj_int_text(const uint8_t *p, size_t len, int64_t *i, uint64_t *u)
{
	size_t k = 0;
	bool neg = len && p[0] == '-';
	k = neg;
	if (k == len || len - k > 20)
		return 0;
	uint64_t v = 0;
	/* 19 digits always fit in 64 bits: only a 20th can overflow, and is added last */
	size_t last = len - k == 20 ? len - 1 : len;
	for (; last - k >= 8; k += 8) {
		uint64_t x;
		memcpy(&x, p + k, 8);
		if (!jl_eight_digits(x))
			return 0;
		v = v * 100000000 + jl_eight_digits_value(x);
	}
	for (; k < last; k++) {
		if (!jl_is_digit(p[k]))
			return 0;
		v = v * 10 + (unsigned)(p[k] - '0');
	}
	if (last < len) {
		unsigned d = (unsigned)(p[last] - '0');
		if (!jl_is_digit(p[last]) || v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return 0;
		*i = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
		return 1;
	}
	if (v <= (uint64_t)INT64_MAX) {
		*i = (int64_t)v;
		return 1;
	}
	*u = v;
	return 2;
}

bool tj_val_int(const struct jval *v, int64_t *out)
{
	uint64_t u;
	if ((v->type == JV_NUM && v->is_int) || (v->type == JV_STR && !v->esc))
		return tj_int_text(v->p, v->len, out, &u) == 1;
	return false;
}

/* [-]digits[.digits] with at most 15 digits in all: the digits as an integer
 * and the power of ten are both exact doubles, so one division is the
 * correctly rounded value, as strtod's. False: anything else, for strtod. */
static bool plain_decimal(const uint8_t *p, size_t len, double *out)
{
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	size_t i = len && p[0] == '-';
	uint64_t m = 0;
	int digits = 0, nfrac = 0;
	for (; i < len && jl_is_digit(p[i]); i++, digits++)
		m = m * 10 + (uint64_t)(p[i] - '0');
	if (!digits)
		return false;
	if (i < len && p[i] == '.') {
		for (i++; i < len && jl_is_digit(p[i]); i++, nfrac++)
			m = m * 10 + (uint64_t)(p[i] - '0');
		if (!nfrac)
			return false;
	}
	if (i != len || digits + nfrac > 15)
		return false;
	double d = (double)m / pow10[nfrac];
	*out = p[0] == '-' ? -d : d;
	return true;
}

/* strtod on a copy (the window is not NUL-terminated); false unless all of it is a finite number. */
bool tj_text_double(struct tj_stage *r, const uint8_t *p, size_t len, double *out)
{
	if (plain_decimal(p, len, out))
		return true;
	if (!len || len > 4096)
		return false;
	char *b = (char *)tj_scratch(r, 3, len);
	memcpy(b, p, len);
	b[len] = 0;
	char *e;
	double d = strtod(b, &e);
	if (e != b + len || !isfinite(d))
		return false;
	*out = d;
	return true;
}

