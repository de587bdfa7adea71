/* json_lex.c - the JSON lexer's values that are not inlined where they are used: numbers, literals, containers, escapes. */
#include "json_lex.h"

#include <stdarg.h>
#include <stdio.h>

const uint8_t jl_str_class[256] = {
	[0 ... 0x1f] = 3, ['"'] = 1, ['\\'] = 2, [0x80 ... 0xff] = 4,
};

int jl_err(const struct jlex *lx, const uint8_t *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	uint64_t off = lx->off0 + (uint64_t)(p - lx->base);
	xp_err_at(lx->err, XP_EXIT_BAD_INPUT, lx->path, off, "malformed trace JSON: %s", msg);
	return J_ERR;
}

int jl_utf8_len(const uint8_t *p, const uint8_t *end)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	int n;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f; /* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* nothing past U+10FFFF */
	} else {
		return -1;
	}
	for (int k = 1; k < n; k++) {
		if (p + k >= end)
			return 0;
		uint8_t b = p[k];
		if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf))
			return -1;
	}
	return n;
}

/* Past one or more digits at *pp: "what" names the place in the error. */
static int more_digits(const struct jlex *lx, const uint8_t **pp, const char *what)
{
	const uint8_t *p = *pp;
	if (p >= lx->end)
		return jl_at_end(lx, p);
	if (!jl_is_digit(*p))
		return jl_err(lx, p, "invalid number: no digit %s", what);
	*pp = jl_skip_digits(p, lx->end);
	return J_OK;
}

/* The fraction and exponent of a number, *pp past its integer part; *is_int false when either is there. */
static int number_tail(const struct jlex *lx, const uint8_t **pp, bool *is_int)
{
	const uint8_t *p = *pp, *end = lx->end;
	int rc;
	if (p < end && *p == '.') {
		*is_int = false;
		p++;
		if ((rc = more_digits(lx, &p, "after '.'")))
			return rc;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		*is_int = false;
		if (++p >= end)
			return jl_at_end(lx, p);
		if ((*p == '+' || *p == '-') && ++p >= end)
			return jl_at_end(lx, p);
		if ((rc = more_digits(lx, &p, "in the exponent")))
			return rc;
	}
	*pp = p;
	return J_OK;
}

static int lex_number(const struct jlex *lx, const uint8_t **pp, struct jval *v)
{
	const uint8_t *p = *pp, *end = lx->end, *s = p;
	bool is_int = true;
	int rc;
	if (*p == '-' && ++p >= end)
		return jl_at_end(lx, p);
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p = jl_skip_digits(p, end);
	else
		return jl_err(lx, p, "invalid number");
	if ((rc = number_tail(lx, &p, &is_int)))
		return rc;
	if (p >= end && !lx->eof)
		return J_MORE; /* the number may go on */
	*v = (struct jval){.type = JV_NUM, .is_int = is_int, .p = s, .len = (size_t)(p - s)};
	*pp = p;
	return J_OK;
}

static int lex_literal(const struct jlex *lx, const uint8_t **pp, const char *lit, uint8_t type, struct jval *v)
{
	const uint8_t *p = *pp;
	size_t n = strlen(lit), avail = (size_t)(lx->end - p), k = avail < n ? avail : n;
	if (memcmp(p, lit, k))
		return jl_err(lx, p, "invalid literal (expected %s)", lit);
	if (k < n)
		return jl_at_end(lx, lx->end);
	v->type = type;
	v->p = p;
	v->len = n;
	*pp = p + n;
	return J_OK;
}

/* An array or object; *pp at its opening byte. */
static int lex_container(const struct jlex *lx, const uint8_t **pp, int depth, struct jval *v)
{
	const uint8_t *start = *pp, *p = start + 1;
	bool obj = *start == '{', more = true;
	uint8_t close = obj ? '}' : ']';
	const char *msg = obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array";
	int rc;
	if (depth >= JL_MAX_DEPTH)
		return jl_err(lx, start, "nesting deeper than %d levels", JL_MAX_DEPTH);
	if ((rc = jl_skip_ws(lx, &p)))
		return rc;
	if (*p == close)
		more = false;
	while (more) {
		struct jstr k;
		struct jval sub;
		if (obj && (rc = jl_member_key(lx, &p, &k)))
			return rc;
		if ((rc = jl_value(lx, &p, depth + 1, &sub)) || (rc = jl_next(lx, &p, close, msg, &more)))
			return rc;
	}
	p++;
	*v = (struct jval){.type = obj ? JV_OBJ : JV_ARR, .p = start, .len = (size_t)(p - start)};
	*pp = p;
	return J_OK;
}

int jl_value(const struct jlex *lx, const uint8_t **pp, int depth, struct jval *v)
{
	const uint8_t *p = *pp;
	int rc;
	v->esc = v->is_int = false;
	switch (*p) {
	case '"': {
		struct jstr s;
		if ((rc = jl_string(lx, &p, &s)))
			return rc;
		*v = (struct jval){.type = JV_STR, .esc = s.esc, .p = s.p, .len = s.len};
		break;
	}
	case '{':
	case '[':
		rc = lex_container(lx, &p, depth, v);
		break;
	case 't':
		rc = lex_literal(lx, &p, "true", JV_TRUE, v);
		break;
	case 'f':
		rc = lex_literal(lx, &p, "false", JV_FALSE, v);
		break;
	case 'n':
		rc = lex_literal(lx, &p, "null", JV_NULL, v);
		break;
	default:
		if (*p != '-' && !jl_is_digit(*p))
			return jl_err(lx, p, "unexpected byte 0x%02x where a value should start", *p);
		rc = lex_number(lx, &p, v);
	}
	if (rc)
		return rc;
	*pp = p;
	return J_OK;
}

/* --- unescaping --------------------------------------------------------------------- */

static size_t put_utf8(uint8_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (uint8_t)(0xc0 | (cp >> 6));
		o[1] = (uint8_t)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (uint8_t)(0xe0 | (cp >> 12));
		o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (uint8_t)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | (cp >> 18));
	o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (uint8_t)(0x80 | (cp & 0x3f));
	return 4;
}

static uint32_t hex4(const uint8_t *p)
{
	return (uint32_t)(jl_hexval(p[0]) << 12 | jl_hexval(p[1]) << 8 | jl_hexval(p[2]) << 4 | jl_hexval(p[3]));
}

/* The code point of a \u escape whose four digits are at *pp, joined with a low surrogate
 * escape right after it when it is a high one; *pp moves past what it used. */
static uint32_t code_point(const uint8_t **pp, const uint8_t *end, uint64_t *lone_surrogates)
{
	const uint8_t *p = *pp;
	uint32_t cp = hex4(p);
	p += 4;
	if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2) >= 0xdc00 &&
	    hex4(p + 2) <= 0xdfff) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(p + 2) - 0xdc00);
		p += 6;
	} else if (cp >= 0xd800 && cp <= 0xdfff) {
		cp = 0xfffd; /* a lone surrogate */
		if (lone_surrogates)
			(*lone_surrogates)++;
	}
	*pp = p;
	return cp;
}

size_t jl_unescape(const uint8_t *p, size_t len, uint8_t *out, uint64_t *lone_surrogates)
{
	const uint8_t *end = p + len;
	size_t n = 0;
	while (p < end) {
		const uint8_t *bs = memchr(p, '\\', (size_t)(end - p));
		size_t plain = bs ? (size_t)(bs - p) : (size_t)(end - p);
		memcpy(out + n, p, plain);
		n += plain;
		p += plain;
		if (!bs)
			break;
		uint8_t c = p[1];
		p += 2;
		switch (c) {
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': n += put_utf8(out + n, code_point(&p, end, lone_surrogates)); break;
		default: out[n++] = c; break; /* '"', '\\', '/' */
		}
	}
	return n;
}
