/* json_lex.h - a validating JSON lexer over a window of text that may end mid-value: spans, not trees. */
#ifndef XPSTAT_JSON_LEX_H
#define XPSTAT_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/core/xperr.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * The lexer reads the text in [base, end) and records where values are; it
 * copies nothing. When a value runs into the end of the window and more text
 * may follow (eof false), it says J_MORE: the caller refills the window and
 * lexes the value again from its start. Every byte is validated: RFC 8259
 * syntax, UTF-8, control characters, nesting depth. Errors are recorded in
 * err as status 3 with the stream offset of the offending byte.
 */

#define JL_MAX_DEPTH 64 /* nesting of arrays/objects below the value lexed first */

enum { J_OK = 0, J_MORE = 1, J_ERR = -1 };
enum { JV_NONE = 0, JV_STR, JV_NUM, JV_TRUE, JV_FALSE, JV_NULL, JV_ARR, JV_OBJ };

/* The window being lexed: stream byte off0 is base[0]. */
struct jlex {
	const uint8_t *base, *end;
	uint64_t off0;
	bool eof;               /* no text follows end */
	const char *path;       /* names the input in errors */
	struct xp_err *err;
};

/* A string's content between the quotes, escapes still in. */
struct jstr {
	const uint8_t *p;
	size_t len;
	bool esc;
};

struct jval {
	uint8_t type;
	bool esc;               /* JV_STR with escapes */
	bool is_int;            /* JV_NUM without fraction or exponent */
	const uint8_t *p;       /* JV_STR: the content between the quotes; else the whole text */
	size_t len;
};

/* One object member. */
struct jarg {
	struct jstr key;
	struct jval val;
};

/* Record a syntax error at p (a pointer into the window); returns J_ERR. */
int jl_err(const struct jlex *lx, const uint8_t *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Any value; *pp at its first byte (not whitespace, not the window end). depth counts the
 * containers around it: deeper than JL_MAX_DEPTH is an error. */
int jl_value(const struct jlex *lx, const uint8_t **pp, int depth, struct jval *v);
/* Length of the UTF-8 sequence at p (p[0] >= 0x80): -1 invalid, 0 cut by the window end. */
int jl_utf8_len(const uint8_t *p, const uint8_t *end);
/* Decode the escapes of a lexed string's content into out (never longer than the content).
 * A lone UTF-16 surrogate becomes U+FFFD and is counted in *lone_surrogates (NULL: not counted). */
size_t jl_unescape(const uint8_t *p, size_t len, uint8_t *out, uint64_t *lone_surrogates);

/* 0: plain string byte; 1 '"'; 2 '\\'; 3 control; 4 first byte of a UTF-8 sequence (or invalid). */
extern const uint8_t jl_str_class[256];

static inline bool jl_is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static inline bool jl_is_ws(uint8_t c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline int jl_hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* Eight bytes (a little-endian load) that are all decimal digits: each in
 * 0x30..0x39, so its high nibble is 3 and adding 6 keeps it 3. */
static inline bool jl_eight_digits(uint64_t x)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull, sixes = 0x0606060606060606ull;
	return (x & hi) == threes && ((x + sixes) & hi) == threes;
}

/* Their value, the first byte the most significant digit: neighbouring
 * digits, then pairs, then quads are joined by one multiply each. */
static inline uint64_t jl_eight_digits_value(uint64_t x)
{
	x = ((x & 0x0f0f0f0f0f0f0f0full) * (10 * 256 + 1)) >> 8;
	x = ((x & 0x00ff00ff00ff00ffull) * (100 * 65536 + 1)) >> 16;
	return ((x & 0x0000ffff0000ffffull) * (10000 * 4294967296ull + 1)) >> 32;
}

/* Nonzero in each byte of x that is not a digit -- exact up to the first such
 * byte, which is all that is read: a byte's carry (from +6) only spoils those
 * after it. */
static inline uint64_t jl_non_digits(uint64_t x)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull, sixes = 0x0606060606060606ull;
	return ((x & hi) ^ threes) | (((x + sixes) & hi) ^ threes);
}

/* The first byte at or after p, before end, that is not a decimal digit (eight a step). */
static inline const uint8_t *jl_skip_digits(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		uint64_t m = jl_non_digits(x);
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
	while (p < end && jl_is_digit(*p))
		p++;
	return p;
}

/* The value of the n (at most 19) digits at p: eight at a time, and the rest
 * as the low digits of a word when eight bytes can be read there. */
static inline uint64_t jl_digits_value(const uint8_t *p, size_t n, const uint8_t *end)
{
	static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
	uint64_t v = 0, x;
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&x, p, 8);
		v = v * 100000000 + jl_eight_digits_value(x);
	}
	if (n && end - p >= 8) {
		memcpy(&x, p, 8);
		return v * pow10[n] + jl_eight_digits_value(x << (8 * (8 - n))); /* zero bytes read as leading 0s */
	}
	for (; n; n--, p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* The window ended at p inside a value: J_MORE while text may follow, else an error. */
static inline int jl_at_end(const struct jlex *lx, const uint8_t *p)
{
	if (!lx->eof)
		return J_MORE;
	return jl_err(lx, p, "unexpected end of input");
}

/* Past whitespace; J_OK leaves *pp at a byte of the window. */
static inline int jl_skip_ws(const struct jlex *lx, const uint8_t **pp)
{
	const uint8_t *p = *pp, *end = lx->end;
	if (p < end && *p > ' ')
		return J_OK; /* the usual case: compact JSON has no space there */
	while (p < end && jl_is_ws(*p))
		p++;
	*pp = p;
	return p < end ? J_OK : jl_at_end(lx, p);
}

/* The first byte at or after p that ends a run of plain string bytes: '"', '\\', a control
 * byte, a non-ASCII one, or end. */
static inline const uint8_t *jl_plain_run(const uint8_t *p, const uint8_t *end)
{
#ifdef __SSE2__
	/* 16 bytes at a time (signed bytes below 0x20 are both control and non-ASCII ones) */
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
	while (p + 16 <= end) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
					 _mm_cmplt_epi8(v, space));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (p < end && !jl_str_class[*p])
		p++;
	return p;
}

/* The escape at p (a backslash): its length, or J_MORE/J_ERR as a negative of the lexer's
 * codes would be ambiguous -- so the result goes to *n and the code is returned. */
static inline int jl_escape(const struct jlex *lx, const uint8_t *p, size_t *n)
{
	const uint8_t *end = lx->end;
	if (end - p < 2)
		return jl_at_end(lx, end);
	switch (p[1]) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		*n = 2;
		return J_OK;
	case 'u':
		for (int k = 2; k < 6; k++) {
			if (p + k >= end)
				return jl_at_end(lx, end);
			if (jl_hexval(p[k]) < 0)
				return jl_err(lx, p, "invalid \\u escape");
		}
		*n = 6;
		return J_OK;
	default:
		return jl_err(lx, p, "invalid escape sequence (backslash followed by byte 0x%02x)", p[1]);
	}
}

/* A string; *pp at the opening quote, left past the closing one. Inlined where it is called:
 * most values and keys are strings, and a call's frame cost as much as scanning a short one. */
static inline __attribute__((always_inline)) int jl_string(const struct jlex *lx, const uint8_t **pp,
							      struct jstr *s)
{
	const uint8_t *p = *pp + 1, *end = lx->end;
	int rc;
	s->p = p;
	s->len = 0;
	s->esc = false;
	for (;;) {
		p = jl_plain_run(p, end);
		if (p >= end)
			return jl_at_end(lx, p);
		size_t n = 0;
		switch (jl_str_class[*p]) {
		case 1:
			s->len = (size_t)(p - s->p);
			*pp = p + 1;
			return J_OK;
		case 2:
			s->esc = true;
			if ((rc = jl_escape(lx, p, &n)))
				return rc;
			p += n;
			break;
		case 3:
			return jl_err(lx, p, "unescaped control character 0x%02x in a string", *p);
		default: {
			int k = jl_utf8_len(p, end);
			if (k < 0)
				return jl_err(lx, p, "invalid UTF-8 in a string");
			if (k == 0)
				return jl_at_end(lx, end);
			p += k;
		}
		}
	}
}

/* jl_value, with strings and plain integers -- most member values -- lexed without its frame. */
static inline int jl_member_value(const struct jlex *lx, const uint8_t **pp, int depth, struct jval *v)
{
	const uint8_t *p = *pp;
	if (*p == '"') {
		struct jstr s;
		int rc = jl_string(lx, pp, &s);
		*v = (struct jval){.type = JV_STR, .esc = s.esc, .p = s.p, .len = s.len};
		return rc;
	}
	if (*p >= '1' && *p <= '9') {
		const uint8_t *q = jl_skip_digits(p, lx->end);
		if (q < lx->end && *q != '.' && *q != 'e' && *q != 'E') {
			*v = (struct jval){.type = JV_NUM, .is_int = true, .p = p, .len = (size_t)(q - p)};
			*pp = q;
			return J_OK;
		}
	}
	return jl_value(lx, pp, depth, v);
}

/* One "key": part of an object member; *pp at the key's quote, left at the value's first byte. */
static inline int jl_member_key(const struct jlex *lx, const uint8_t **pp, struct jstr *k)
{
	int rc;
	if (**pp != '"')
		return jl_err(lx, *pp, "expected a string key in an object");
	if ((rc = jl_string(lx, pp, k)) || (rc = jl_skip_ws(lx, pp)))
		return rc;
	if (**pp != ':')
		return jl_err(lx, *pp, "expected ':' after an object key");
	(*pp)++;
	return jl_skip_ws(lx, pp);
}

/* After a member or element: past a ',' (1, more follow) or the closing byte (0, the
 * container ends); anything else is the error msg. */
static inline int jl_next(const struct jlex *lx, const uint8_t **pp, uint8_t close, const char *msg, bool *more)
{
	int rc = jl_skip_ws(lx, pp);
	if (rc)
		return rc;
	if (**pp == ',') {
		(*pp)++;
		*more = true;
		return jl_skip_ws(lx, pp);
	}
	if (**pp == close) {
		*more = false;
		return J_OK;
	}
	return jl_err(lx, *pp, "%s", msg);
}

#endif
