/* trace_json_values.h - trace JSON values as the model wants them: text unescaped or compacted, interned strings, integers, doubles. */
#ifndef XPSTAT_TRACE_JSON_VALUES_H
#define XPSTAT_TRACE_JSON_VALUES_H

#include <string.h>

#include "trace_json_state.h"

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* memcmp(a, b, n) == 0 for the short names and keys most events carry,
 * without a call: overlapping words cover up to 32 bytes. */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n >= 8 && n <= 16)
		return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
	if (n > 16 && n <= 32)
		return load64(a) == load64(b) && load64(a + 8) == load64(b + 8) && load64(a + n - 16) == load64(b + n - 16) &&
		       load64(a + n - 8) == load64(b + n - 8);
	if (n >= 4 && n < 8)
		return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
	if (n < 4) /* first, middle and last cover 1 to 3 bytes */
		return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
	return !memcmp(a, b, n);
}

static inline bool bytes_eq(const uint8_t *p, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(p, s, n);
}

uint8_t *tj_scratch(struct tj_stage *r, int slot, size_t n);
/* A string value with escapes, unescaped into scratch slot (lone surrogates counted as invalid UTF-8). */
const uint8_t *tj_unescaped(struct tj_stage *r, const struct jval *v, int slot, size_t *len);
/* An array or object as compact JSON text: the source without insignificant whitespace. */
const uint8_t *tj_compact(struct tj_stage *r, const struct jval *v, int slot, size_t *len);

/* The bytes of a string value, unescaped into scratch slot when needed (inline: most have no escape). */
static inline const uint8_t *tj_str_bytes(struct tj_stage *r, const struct jval *v, int slot, size_t *len)
{
	if (v->esc)
		return tj_unescaped(r, v, slot, len);
	*len = v->len;
	return v->p;
}

/* Any value as text: strings unescaped, the rest as compact JSON. */
static inline const uint8_t *tj_val_text(struct tj_stage *r, const struct jval *v, int slot, size_t *len)
{
	if (v->type == JV_STR)
		return tj_str_bytes(r, v, slot, len);
	if (v->type == JV_ARR || v->type == JV_OBJ)
		return tj_compact(r, v, slot, len);
	*len = v->len;
	return v->p;
}
uint32_t tj_intern(struct tj_stage *r, const uint8_t *p, size_t len);
uint32_t tj_intern_val(struct tj_stage *r, const struct jval *v, int slot);
/* Integer text (optional '-', digits): 1 = int64 in *i, 2 = uint64 above INT64_MAX in *u, 0 = neither. */
int tj_int_text(const uint8_t *p, size_t len, int64_t *i, uint64_t *u);
/* A value as int64: integer numbers, and strings holding one (TF writes numbers as strings). */
bool tj_val_int(const struct jval *v, int64_t *out);
/* Decimal text as a finite double, as strtod rounds it. */
bool tj_text_double(struct tj_stage *r, const uint8_t *p, size_t len, double *out);

#endif
