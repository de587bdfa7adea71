/* xplane_wire.h - bounds-checked protobuf wire primitives for the XSpace reader: varints, tags, lengths, skips. */
#ifndef XPSTAT_XPLANE_WIRE_H
#define XPSTAT_XPLANE_WIRE_H

#include "xplane_fields.h"
#include "formats/core/xperr.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Where faults go: the first one found wins, whichever thread finds it; the others stop at the next block. */
struct reader {
	const uint8_t *base;    /* start of the XSpace bytes, for offsets */
	const char *path;
	struct xp_err *err;
	pthread_mutex_t err_lock;
	atomic_int failed;
};

/* Broken structure at AT: status 3 with the byte offset. */
void xpr_fault(struct reader *r, const uint8_t *at, const char *what) __attribute__((cold));
/* A limit of the model rather than of the input: status 4, no offset. */
void xpr_limit(struct reader *r, const char *what) __attribute__((cold));

/* Returns -1 where the callers see it, so that the compiler knows what follows a fault. */
static inline int fail(struct reader *r, const uint8_t *at, const char *what)
{
	xpr_fault(r, at, what);
	return -1;
}
/* Skips the field of wire type WT whose value starts at *PP. */
int xpr_skip_field(struct reader *r, const uint8_t **pp, const uint8_t *end, unsigned wt);

/* Varint of at most 10 bytes; bits beyond 64 are dropped as protobuf does. 0, -1 truncated, -2 too long. */
static inline int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	if (p < end && !(*p & 0x80)) {
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			*pp = p;
			return 0;
		}
	}
	return -2;
}

/* A tag: field number >= 1 and a wire type; tags are 32-bit (5 bytes at most). */
static inline __attribute__((always_inline)) int get_tag(struct reader *r, const uint8_t **pp, const uint8_t *end,
							 uint32_t *field, unsigned *wt)
{
	const uint8_t *at = *pp;
	uint64_t t;
	if (*pp < end && **pp < 0x80) {
		t = **pp;
		(*pp)++;
	} else {
		int rc = get_varint(pp, end, &t);
		if (rc == -1)
			return fail(r, at, "truncated field tag");
		if (rc == -2 || *pp - at > 5)
			return fail(r, at, "field tag longer than 5 bytes");
	}
	/* Like protobuf-c, keep the low 32 bits of the field number. */
	*field = (uint32_t)(t >> 3);
	*wt = (unsigned)(t & 7);
	/* Field 0 is invalid; protobuf-c rejects it only in its one-byte form,
	 * and the differential test holds us to protobuf-c's verdicts. */
	if (*field == 0 && *pp - at == 1)
		return fail(r, at, "field number 0");
	if (*wt == XP_WT_SGROUP || *wt == XP_WT_EGROUP)
		return fail(r, at, "group wire type (not used by XSpace)");
	if (*wt > XP_WT_I32)
		return fail(r, at, "invalid wire type");
	return 0;
}

static inline int read_varint(struct reader *r, const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *at = *pp;
	int rc = get_varint(pp, end, out);
	if (rc == -1)
		return fail(r, at, "truncated varint");
	if (rc == -2)
		return fail(r, at, "varint longer than 10 bytes");
	return 0;
}

/* Hot-loop varint: NULL on any trouble, and the caller takes the general
 * path, which reports the error with its offset. */
static inline const uint8_t *fast_varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	if (likely(p < end && *p < 0x80)) {
		*out = *p;
		return p + 1;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Offsets and durations in ps take 4 to 7 bytes: find the last byte in
	 * one load, then squeeze out the continuation bits in three steps. */
	if (likely(end - p >= 8)) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t stop = ~w & 0x8080808080808080ull;
		if (likely(stop)) {
			unsigned bytes = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
			if (bytes < 8)
				w &= (1ull << (bytes * 8)) - 1;
			w = (w & 0x007f007f007f007full) | ((w & 0x7f007f007f007f00ull) >> 1);
			w = (w & 0x00003fff00003fffull) | ((w & 0x3fff00003fff0000ull) >> 2);
			w = (w & 0x000000000fffffffull) | ((w & 0x0fffffff00000000ull) >> 4);
			*out = w;
			return p + bytes;
		}
	}
#endif
	if (get_varint(&p, end, out))
		return NULL;
	return p;
}

/* Hot-loop length prefix: NULL when it is longer than 5 bytes (protobuf-c rejects those; the general
 * path reports it) or runs past END. */
static inline const uint8_t *fast_len(const uint8_t *p, const uint8_t *end, uint64_t *len)
{
	const uint8_t *q = fast_varint(p, end, len);
	return likely(q && q - p <= 5 && *len <= (uint64_t)(end - q)) ? q : NULL;
}

/* LEN field: returns the body [*body, *body+len) and advances past it. */
static inline int read_len(struct reader *r, const uint8_t **pp, const uint8_t *end, const uint8_t **body,
			   uint64_t *len)
{
	const uint8_t *at = *pp;
	if (read_varint(r, pp, end, len))
		return -1;
	/* A length is a 32-bit varint: like protobuf-c, refuse one longer than 5 bytes. */
	if (*pp - at > 5)
		return fail(r, at, "length longer than 5 bytes");
	if (*len > (uint64_t)(end - *pp))
		return fail(r, at, "length runs past the end of its message");
	*body = *pp;
	*pp += *len;
	return 0;
}

static inline int expect_wt(struct reader *r, const uint8_t *at, unsigned wt, unsigned want)
{
	if (wt != want)
		return fail(r, at, "known field with the wrong wire type");
	return 0;
}

#endif
