/* xplane_read.c - a bounds-checked protobuf wire walker that decodes an XSpace into the columnar model. */
#include "xplane_read.h"
#include "formats/core/hash.h"
#include "formats/core/work.h"
#include "formats/core/xalloc.h"
#include "input.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Decoding happens in three steps, so that the event loop (almost all of the
 * bytes) runs in parallel without locks:
 *   1. sequential: walk XSpace and each XPlane, skipping line bodies; decode
 *      metadata maps, plane stats and strings (interning is single-threaded);
 *   2. parallel per line: walk the line's fields, count events and note where
 *      every block of XP_BLOCK_EVENTS events starts;
 *   3. parallel per block: decode events and their stats into preallocated
 *      columns. Blocks are small, so two threads share even one huge line.
 * Every length and varint is checked against the end of its enclosing message;
 * broken structure ends the read with the byte offset of the fault.
 * The schema's field numbers come from formats/xplane.proto; a differential
 * test checks this walker against protobuf-c on the same bytes.
 */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

struct reader {
	const uint8_t *base;    /* start of the XSpace bytes, for offsets */
	const char *path;
	struct xp_err *err;
	pthread_mutex_t err_lock;
	atomic_int failed;
};

static int fail(struct reader *r, const uint8_t *at, const char *what)
{
	pthread_mutex_lock(&r->err_lock);
	xp_err_at(r->err, XP_EXIT_BAD_INPUT, r->path, (uint64_t)(at - r->base), "corrupt XSpace: %s", what);
	pthread_mutex_unlock(&r->err_lock);
	atomic_store(&r->failed, 1);
	return -1;
}

/* --- wire primitives ------------------------------------------------------ */

/* Varint of at most 10 bytes; bits beyond 64 are dropped as protobuf does. */
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
	return -2; /* more than 10 bytes */
}

/* A tag: field number >= 1 and a wire type; tags are 32-bit (5 bytes at most). */
static inline __attribute__((always_inline)) int get_tag(struct reader *r, const uint8_t **pp, const uint8_t *end, uint32_t *field, unsigned *wt)
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
	if (*wt == WT_SGROUP || *wt == WT_EGROUP)
		return fail(r, at, "group wire type (not used by XSpace)");
	if (*wt > WT_I32)
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

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

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

static int skip_field(struct reader *r, const uint8_t **pp, const uint8_t *end, unsigned wt)
{
	const uint8_t *at = *pp, *body;
	uint64_t v;
	switch (wt) {
	case WT_VARINT:
		return read_varint(r, pp, end, &v);
	case WT_I64:
		if (end - *pp < 8)
			return fail(r, at, "truncated 64-bit field");
		*pp += 8;
		return 0;
	case WT_I32:
		if (end - *pp < 4)
			return fail(r, at, "truncated 32-bit field");
		*pp += 4;
		return 0;
	case WT_LEN:
		return read_len(r, pp, end, &body, &v);
	default:
		return fail(r, at, "invalid wire type");
	}
}

static inline int expect_wt(struct reader *r, const uint8_t *at, unsigned wt, unsigned want)
{
	if (wt != want)
		return fail(r, at, "known field with the wrong wire type");
	return 0;
}

/* --- id maps: metadata id (int64, arbitrary) -> dense index --------------- */

struct idmap {
	int64_t min;
	uint64_t span;          /* direct table size, 0 when hashed */
	uint32_t *direct;
	int64_t *hkeys;
	uint32_t *hvals;        /* 0 = empty slot */
	uint64_t hcap;
};

static void idmap_init(struct idmap *m, const int64_t *keys, uint32_t n)
{
	memset(m, 0, sizeof *m);
	if (n == 0)
		return;
	int64_t lo = keys[0], hi = keys[0];
	for (uint32_t i = 1; i < n; i++) {
		if (keys[i] < lo)
			lo = keys[i];
		if (keys[i] > hi)
			hi = keys[i];
	}
	/* Writers number metadata 1, 2, 3...: a direct table is the common case. */
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	if (span != 0 && span <= 4ull * n + 1024) {
		m->min = lo;
		m->span = span;
		m->direct = xcalloc(span, sizeof *m->direct);
		return;
	}
	m->hcap = 16;
	while (m->hcap < 2ull * n)
		m->hcap *= 2;
	m->hkeys = xcalloc(m->hcap, sizeof *m->hkeys);
	m->hvals = xcalloc(m->hcap, sizeof *m->hvals);
}

static void idmap_put(struct idmap *m, int64_t key, uint32_t val)
{
	if (m->direct) {
		m->direct[(uint64_t)key - (uint64_t)m->min] = val;
		return;
	}
	uint64_t j = xp_hash_mix((uint64_t)key) & (m->hcap - 1);
	while (m->hvals[j] && m->hkeys[j] != key)
		j = (j + 1) & (m->hcap - 1);
	m->hkeys[j] = key;
	m->hvals[j] = val;
}

static inline uint32_t idmap_get(const struct idmap *m, int64_t key)
{
	if (m->direct) {
		uint64_t k = (uint64_t)key - (uint64_t)m->min;
		return k < m->span ? m->direct[k] : 0;
	}
	if (!m->hcap)
		return 0;
	uint64_t j = xp_hash_mix((uint64_t)key) & (m->hcap - 1);
	while (m->hvals[j]) {
		if (m->hkeys[j] == key)
			return m->hvals[j];
		j = (j + 1) & (m->hcap - 1);
	}
	return 0;
}

static void idmap_free(struct idmap *m)
{
	free(m->direct);
	free(m->hkeys);
	free(m->hvals);
}

/* --- byte ranges collected while walking a message ---------------------- */

struct range {
	const uint8_t *p;
	uint64_t len;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

static void ranges_push(struct ranges *rs, const uint8_t *p, uint64_t len)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->v = xrealloc(rs->v, rs->cap * sizeof *rs->v);
	}
	rs->v[rs->n].p = p;
	rs->v[rs->n].len = len;
	rs->n++;
}

/* --- UTF-8 ----------------------------------------------------------------- */

static bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t need;
		uint32_t cp, min;
		if ((c & 0xe0) == 0xc0) {
			need = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			need = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			need = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (n - i <= need)
			return false;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

/* --- per-host decoding state ---------------------------------------------- */

struct line_job {
	struct xp_plane *plane;
	struct plane_ctx *pctx;
	struct xp_line *line;
	const uint8_t *beg, *end;
	uint64_t *block_off;    /* offset (from base) of each block's first event tag */
	uint32_t n_block_off, cap_block_off;
	struct range name, dname;
	int64_t line_base_ps;   /* (timestamp - host base) * 1000 */
};

struct plane_ctx {
	struct idmap emap, smap;
	bool drops;             /* some stat metadata is marked dropped */
};

struct block_job {
	struct line_job *lj;
	uint32_t block;
};

struct host_reader {
	struct reader r;
	struct xp_capture *cap;
	struct xp_host *host;
	const struct xp_read_opts *opts;
	struct ranges plane_ranges;
	struct plane_ctx *pctx;
	struct line_job *lines;
	size_t n_lines;
	struct block_job *blocks;
	size_t n_blocks;
	atomic_size_t next;
	struct xp_oddities *thread_odd; /* one per thread, summed at the end */
};

static uint32_t intern_checked(struct host_reader *hr, const uint8_t *p, uint64_t len)
{
	if (!utf8_valid(p, len))
		hr->host->odd.invalid_utf8++;
	return xp_intern(&hr->cap->strings, (const char *)p, len);
}

/* --- stats (shared by metadata, plane and event stats) ------------------ */

struct stat_sink {
	struct xp_stats *stats;
	struct xp_blob *blob;
	const struct idmap *smap;
	const struct xp_stat_meta *smeta;
	struct xp_oddities *odd;
	bool drops;             /* skip the stats whose metadata is marked dropped */
	/* Event stats: where the next key goes (stats->n_keys at an event's start), and the last key
	 * runs stored, which a later event with the same keys in the same order points to instead. */
	uint32_t key_at;
	uint32_t run_at[4], run_len[4];
	unsigned run_next;
};

static void __attribute__((noinline)) stats_grow(struct xp_stats *st)
{
	uint32_t cap = st->cap ? st->cap + st->cap / 2 + 16 : 64;
	if (cap < st->cap) {
		fputs("xpstat: too many stats in one block\n", stderr);
		exit(4);
	}
	st->keys = xrealloc(st->keys, (size_t)cap * sizeof *st->keys);
	st->vals = xrealloc(st->vals, (size_t)cap * sizeof *st->vals);
	xp_prefault(st->keys + st->cap, (size_t)(cap - st->cap) * sizeof *st->keys);
	xp_prefault(st->vals + st->cap, (size_t)(cap - st->cap) * sizeof *st->vals);
	st->cap = cap;
}

static void __attribute__((noinline)) wide_grow(struct xp_stats *st)
{
	st->cap_wide = st->cap_wide ? st->cap_wide * 2 : 16;
	st->wide = xrealloc(st->wide, (size_t)st->cap_wide * sizeof *st->wide);
}

static inline __attribute__((always_inline)) void stat_finish(struct stat_sink *s, uint64_t mid, unsigned kind, uint64_t val, bool is_ref)
{
	uint32_t dense = idmap_get(s->smap, (int64_t)mid);
	if (unlikely(!dense))
		s->odd->missing_stat_meta++;
	if (is_ref) {
		uint32_t target = idmap_get(s->smap, (int64_t)val);
		if (unlikely(!target))
			s->odd->dangling_ref++;
		val = target ? s->smeta[target].name : 0;
	}
	if (unlikely(kind == XP_STAT_NONE))
		s->odd->value_not_set++;
	/* Dropped after the checks above, so that the oddities do not depend on the command. */
	struct xp_stats *st = s->stats;
	if (s->drops && s->smeta[dense].dropped) {
		st->n_dropped++;
		return;
	}
	if (unlikely(st->n == st->cap))
		stats_grow(st);
	uint32_t key = xp_stat_make_key(kind, dense);
	if (unlikely(val > UINT32_MAX)) {
		if (st->n_wide == st->cap_wide)
			wide_grow(st);
		st->wide[st->n_wide] = val;
		val = st->n_wide++;
		key |= XP_STAT_WIDE;
	}
	st->keys[s->key_at++] = key;
	st->vals[st->n] = (uint32_t)val;
	st->n++;
}

static int decode_stat(struct reader *r, const uint8_t *p, const uint8_t *end, struct stat_sink *s)
{
	uint64_t mid = 0, val = 0;
	unsigned kind = XP_STAT_NONE;
	bool is_ref = false;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		switch (field) {
		case 1:
			if (expect_wt(r, at, wt, WT_VARINT) || read_varint(r, &p, end, &mid))
				return -1;
			break;
		case 2:
			if (expect_wt(r, at, wt, WT_I64))
				return -1;
			if (end - p < 8)
				return fail(r, at, "truncated double");
			memcpy(&val, p, 8);
			p += 8;
			kind = XP_STAT_F64;
			is_ref = false;
			break;
		case 3:
		case 4:
		case 7:
			if (expect_wt(r, at, wt, WT_VARINT) || read_varint(r, &p, end, &val))
				return -1;
			kind = field == 3 ? XP_STAT_U64 : field == 4 ? XP_STAT_I64 : XP_STAT_STR;
			is_ref = field == 7;
			break;
		case 5:
		case 6:
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &len))
				return -1;
			if (len > UINT32_MAX - 8)
				return fail(r, at, "string stat larger than 4 GiB");
			val = xp_blob_put(s->blob, body, (uint32_t)len);
			kind = field == 5 ? XP_STAT_BLOBSTR : XP_STAT_BYTES;
			is_ref = false;
			break;
		default:
			s->odd->unknown_fields++;
			if (skip_field(r, &p, end, wt))
				return -1;
		}
	}
	stat_finish(s, mid, kind, val, is_ref);
	return 0;
}

/* The kind of a varint value field's tag: uint64_value (3), int64_value (4), ref_value (7). */
static inline unsigned varint_kind(uint8_t tag)
{
	return tag == 0x18 ? XP_STAT_U64 : tag == 0x20 ? XP_STAT_I64 : XP_STAT_STR;
}

/* The common encodings only: one-byte tags of known fields. Returns 1 when
 * the stat needs the general decoder (nothing was recorded then). */
static inline __attribute__((always_inline)) int stat_fast(const uint8_t *p, const uint8_t *end, struct stat_sink *s)
{
	uint64_t mid = 0, val = 0, len;
	unsigned kind = XP_STAT_NONE;
	bool is_ref = false;
	const uint8_t *text = NULL;
	/* Nearly every stat is its metadata id, then one number, and nothing else: straight through,
	 * without the loop's dispatch; anything else takes the loop from the start. */
	if (likely(end - p >= 3 && p[0] == 0x08 && p[1] < 0x80)) {
		uint8_t tag = p[2];
		const uint8_t *q = p + 3;
		if (tag == 0x18 || tag == 0x20 || tag == 0x38) {
			q = fast_varint(q, end, &val);
			if (likely(q == end)) {
				stat_finish(s, p[1], varint_kind(tag), val, tag == 0x38);
				return 0;
			}
		} else if (tag == 0x11 && end - q == 8) {
			memcpy(&val, q, 8);
			stat_finish(s, p[1], XP_STAT_F64, val, false);
			return 0;
		}
	}
	while (p < end) {
		uint8_t tag = *p++;
		switch (tag) {
		case 0x08:
			if (!(p = fast_varint(p, end, &mid)))
				return 1;
			break;
		case 0x18:
		case 0x20:
		case 0x38:
			if (!(p = fast_varint(p, end, &val)))
				return 1;
			kind = varint_kind(tag);
			is_ref = tag == 0x38;
			text = NULL;
			break;
		case 0x11:
			if (end - p < 8)
				return 1;
			memcpy(&val, p, 8);
			p += 8;
			kind = XP_STAT_F64;
			is_ref = false;
			text = NULL;
			break;
		case 0x2a:
		case 0x32:
			if (!(p = fast_len(p, end, &len)) || len > UINT32_MAX - 8)
				return 1;
			text = p;
			val = len;
			p += len;
			kind = tag == 0x2a ? XP_STAT_BLOBSTR : XP_STAT_BYTES;
			is_ref = false;
			break;
		default:
			return 1;
		}
	}
	if (text && !(s->drops && s->smeta[idmap_get(s->smap, (int64_t)mid)].dropped))
		val = xp_blob_put(s->blob, text, (uint32_t)val);
	stat_finish(s, mid, kind, val, is_ref);
	return 0;
}

/* --- plane metadata ---------------------------------------------------------- */

/* Map entry: key = field 1 (int64), value = field 2 (message); returns the key
 * and the value ranges (a value split over several fields merges). */
static int map_entry(struct reader *r, const uint8_t *p, const uint8_t *end, int64_t *key, struct ranges *vals)
{
	uint64_t k = 0;
	vals->n = 0;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == 1) {
			if (expect_wt(r, at, wt, WT_VARINT) || read_varint(r, &p, end, &k))
				return -1;
		} else if (field == 2) {
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &len))
				return -1;
			ranges_push(vals, body, len);
		} else if (skip_field(r, &p, end, wt)) {
			return -1;
		}
	}
	*key = (int64_t)k;
	return 0;
}

static int stat_meta_value(struct host_reader *hr, const uint8_t *p, const uint8_t *end, struct xp_stat_meta *sm)
{
	struct reader *r = &hr->r;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == 1) {
			if (expect_wt(r, at, wt, WT_VARINT) || read_varint(r, &p, end, &v))
				return -1;
		} else if (field == 2 || field == 3) {
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &v))
				return -1;
			if (field == 2)
				sm->name = intern_checked(hr, body, v);
		} else {
			hr->host->odd.unknown_fields++;
			if (skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

static int child_ids(struct reader *r, const uint8_t **pp, const uint8_t *end, unsigned wt, const uint8_t *at,
		     uint32_t *count)
{
	uint64_t v;
	if (wt == WT_VARINT) {
		if (read_varint(r, pp, end, &v))
			return -1;
		(*count)++;
		return 0;
	}
	if (wt != WT_LEN)
		return fail(r, at, "known field with the wrong wire type");
	const uint8_t *body;
	uint64_t len;
	if (read_len(r, pp, end, &body, &len))
		return -1;
	const uint8_t *q = body, *qend = body + len;
	while (q < qend) {
		if (read_varint(r, &q, qend, &v))
			return -1;
		(*count)++;
	}
	return 0;
}

static int event_meta_value(struct host_reader *hr, struct xp_plane *pl, struct stat_sink *sink, const uint8_t *p,
			    const uint8_t *end, struct xp_event_meta *em)
{
	struct reader *r = &hr->r;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		switch (field) {
		case 1:
			if (expect_wt(r, at, wt, WT_VARINT) || read_varint(r, &p, end, &v))
				return -1;
			break;
		case 2:
		case 3:
		case 4:
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &v))
				return -1;
			if (field == 2)
				em->name = intern_checked(hr, body, v);
			else if (field == 4)
				em->display_name = intern_checked(hr, body, v);
			break;
		case 5:
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &v))
				return -1;
			if (decode_stat(r, body, body + v, sink))
				return -1;
			em->stat_end = pl->meta_stats.n;
			break;
		case 6:
			if (child_ids(r, &p, end, wt, at, &em->n_children))
				return -1;
			break;
		default:
			hr->host->odd.unknown_fields++;
			if (skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

/* Dense slots for map keys: slot 0 is "missing"; a repeated key reuses its
 * slot and the later entry replaces the earlier one. */
static uint32_t *assign_slots(struct host_reader *hr, const struct ranges *entries, struct idmap *map,
			      uint32_t *n_slots)
{
	struct ranges vals = {0};
	int64_t *keys = xmalloc((entries->n + 1) * sizeof *keys);
	uint32_t *slot_of = xmalloc((entries->n + 1) * sizeof *slot_of);
	for (size_t i = 0; i < entries->n; i++)
		if (map_entry(&hr->r, entries->v[i].p, entries->v[i].p + entries->v[i].len, &keys[i], &vals)) {
			free(vals.v);
			free(keys);
			free(slot_of);
			return NULL;
		}
	idmap_init(map, keys, (uint32_t)entries->n);
	uint32_t n = 1;
	for (size_t i = 0; i < entries->n; i++) {
		uint32_t s = idmap_get(map, keys[i]);
		if (!s) {
			s = n++;
			idmap_put(map, keys[i], s);
		}
		slot_of[i] = s;
	}
	free(vals.v);
	free(keys);
	*n_slots = n;
	return slot_of;
}

static void mark_dropped(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc)
{
	const char *const *drop = hr->opts->drop_stats;
	for (uint32_t s = 1; drop && s < pl->n_smeta; s++) {
		const char *name = xp_str(hr->cap, pl->smeta[s].name);
		for (size_t k = 0; drop[k] && !pl->smeta[s].dropped; k++)
			pl->smeta[s].dropped = !strcmp(name, drop[k]);
		pc->drops |= pl->smeta[s].dropped;
	}
}

static int plane_stat_meta(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc,
			   const struct ranges *entries)
{
	uint32_t n;
	if (entries->n >= XP_STAT_META_MASK)
		return fail(&hr->r, entries->v[0].p, "too many stat metadata entries");
	uint32_t *slot_of = assign_slots(hr, entries, &pc->smap, &n);
	if (!slot_of)
		return -1;
	pl->n_smeta = n;
	pl->smeta = xcalloc(n, sizeof *pl->smeta);
	struct ranges vals = {0};
	int rc = 0;
	for (size_t i = 0; i < entries->n && !rc; i++) {
		int64_t key;
		struct xp_stat_meta *sm = &pl->smeta[slot_of[i]];
		rc = map_entry(&hr->r, entries->v[i].p, entries->v[i].p + entries->v[i].len, &key, &vals);
		memset(sm, 0, sizeof *sm);
		sm->id = key;
		for (size_t k = 0; k < vals.n && !rc; k++)
			rc = stat_meta_value(hr, vals.v[k].p, vals.v[k].p + vals.v[k].len, sm);
	}
	free(vals.v);
	free(slot_of);
	if (!rc)
		mark_dropped(hr, pl, pc);
	return rc;
}

static int plane_event_meta(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc,
			    const struct ranges *entries)
{
	uint32_t n;
	if (entries->n >= UINT32_MAX - 1)
		return fail(&hr->r, entries->v[0].p, "too many event metadata entries");
	uint32_t *slot_of = assign_slots(hr, entries, &pc->emap, &n);
	if (!slot_of)
		return -1;
	pl->n_emeta = n;
	pl->emeta = xcalloc(n, sizeof *pl->emeta);
	struct stat_sink sink = {&pl->meta_stats, &pl->meta_blob, &pc->smap, pl->smeta, &hr->host->odd};
	struct ranges vals = {0};
	int rc = 0;
	for (size_t i = 0; i < entries->n && !rc; i++) {
		int64_t key;
		struct xp_event_meta *em = &pl->emeta[slot_of[i]];
		rc = map_entry(&hr->r, entries->v[i].p, entries->v[i].p + entries->v[i].len, &key, &vals);
		memset(em, 0, sizeof *em);
		em->id = key;
		em->stat_begin = em->stat_end = pl->meta_stats.n;
		for (size_t k = 0; k < vals.n && !rc; k++)
			rc = event_meta_value(hr, pl, &sink, vals.v[k].p, vals.v[k].p + vals.v[k].len, em);
	}
	free(vals.v);
	free(slot_of);
	return rc;
}

static void name_plane(struct host_reader *hr, struct xp_plane *pl, const uint8_t *name, uint64_t len)
{
	pl->name = intern_checked(hr, name, len);
	/* Merged sub-process planes carry a " [pid]" suffix (2025+). */
	uint64_t n = len;
	if (n > 3 && name[n - 1] == ']') {
		uint64_t k = n - 1;
		while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
			k--;
		if (k >= 2 && k < n - 1 && name[k - 1] == '[' && name[k - 2] == ' ') {
			n = k - 2;
			hr->host->odd.pid_suffixed_planes++;
		}
	}
	pl->base_name = xp_intern(&hr->cap->strings, (const char *)name, n);
	pl->kind = xp_classify_plane((const char *)name, n, &pl->device_ordinal);
}

static int read_plane(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc, const uint8_t *p,
		      const uint8_t *end, struct ranges *line_ranges)
{
	struct reader *r = &hr->r;
	struct ranges emeta = {0}, smeta = {0}, stats = {0};
	const uint8_t *name = (const uint8_t *)"";
	uint64_t name_len = 0;
	int rc = 0;
	while (p < end && !rc) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v = 0;
		if (get_tag(r, &p, end, &field, &wt)) {
			rc = -1;
			break;
		}
		if (field == 1) {
			rc = expect_wt(r, at, wt, WT_VARINT) || read_varint(r, &p, end, &v);
			pl->id = (int64_t)v;
		} else if (field >= 2 && field <= 6) {
			rc = expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &v);
			if (rc)
				break;
			if (field == 2) {
				name = body;
				name_len = v;
			} else {
				ranges_push(field == 3 ? line_ranges : field == 4 ? &emeta : field == 5 ? &smeta : &stats, body, v);
			}
		} else {
			hr->host->odd.unknown_fields++;
			rc = skip_field(r, &p, end, wt);
		}
	}
	if (!rc) {
		name_plane(hr, pl, name, name_len);
		rc = plane_stat_meta(hr, pl, pc, &smeta);
	}
	if (!rc)
		rc = plane_event_meta(hr, pl, pc, &emeta);
	struct stat_sink sink = {&pl->plane_stats, &pl->plane_blob, &pc->smap, pl->smeta, &hr->host->odd};
	for (size_t i = 0; i < stats.n && !rc; i++)
		rc = decode_stat(r, stats.v[i].p, stats.v[i].p + stats.v[i].len, &sink);
	free(emeta.v);
	free(smeta.v);
	free(stats.v);
	return rc ? -1 : 0;
}

/* --- step 2: line headers and block boundaries ---------------------------- */

static void release_range(struct host_reader *hr, const uint8_t *p, const uint8_t *end)
{
	if (!hr->opts->release_pages)
		return;
	/* Only whole pages inside the range; the mapping is read-only and file
	 * backed, so a page dropped here is simply read again if needed. */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)end & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static void push_block(struct line_job *lj, uint64_t off)
{
	if (lj->n_block_off == lj->cap_block_off) {
		lj->cap_block_off = lj->cap_block_off ? lj->cap_block_off * 2 : 4;
		lj->block_off = xrealloc(lj->block_off, lj->cap_block_off * sizeof *lj->block_off);
	}
	lj->block_off[lj->n_block_off++] = off;
}

/* The body of the event at P when it has the usual encoding (tag 0x22, a length that fits); NULL when the
 * field needs the general path. Every event loop starts here; the prefetch asks for the bytes a few dozen
 * events ahead, since the next event's position waits on this one's length. */
static inline __attribute__((always_inline)) const uint8_t *quick_event(const uint8_t *p, const uint8_t *end,
									   uint64_t *len)
{
	if (unlikely(*p != 0x22))
		return NULL;
	const uint8_t *q = fast_len(p + 1, end, len);
	__builtin_prefetch(p + 2048);
	return q;
}

/* A field of a line other than an event (the tag at AT is read, *PP is after it). */
static int line_field(struct reader *r, struct line_job *lj, const uint8_t *at, const uint8_t **pp,
		      const uint8_t *end, uint32_t field, unsigned wt)
{
	struct xp_line *l = lj->line;
	const uint8_t *body;
	uint64_t v;
	switch (field) {
	case 1:
	case 3:
	case 9:
	case 10:
		if (expect_wt(r, at, wt, WT_VARINT) || read_varint(r, pp, end, &v))
			return -1;
		if (field == 1)
			l->id = (int64_t)v;
		else if (field == 3)
			l->timestamp_ns = (int64_t)v;
		else if (field == 9)
			l->duration_ps = (int64_t)v;
		else
			l->display_id = (int64_t)v;
		return 0;
	case 2:
	case 11:
		if (expect_wt(r, at, wt, WT_LEN) || read_len(r, pp, end, &body, &v))
			return -1;
		if (field == 2)
			lj->name = (struct range){body, v};
		else
			lj->dname = (struct range){body, v};
		return 0;
	default:
		return skip_field(r, pp, end, wt);
	}
}

static int walk_line(struct host_reader *hr, struct line_job *lj)
{
	struct reader *r = &hr->r;
	struct xp_line *l = lj->line;
	const uint8_t *p = lj->beg, *end = lj->end;
	uint64_t n = 0;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v;
		const uint8_t *q = quick_event(p, end, &v);
		if (likely(q)) {
			/* An event: only its extent matters here. */
			if ((n & (XP_BLOCK_EVENTS - 1)) == 0) {
				push_block(lj, (uint64_t)(p - r->base));
				if (atomic_load_explicit(&r->failed, memory_order_relaxed))
					return -1;
			}
			n++;
			p = q + v;
			continue;
		}
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == 4) {
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &v))
				return -1;
			if ((n & (XP_BLOCK_EVENTS - 1)) == 0)
				push_block(lj, (uint64_t)(at - r->base));
			n++;
		} else if (line_field(r, lj, at, &p, end, field, wt)) {
			return -1;
		}
	}
	/* The pages stay mapped: the block jobs read them next, and release them as they go. */
	l->n_events = n;
	return 0;
}

/* --- step 3: events --------------------------------------------------------- */

static inline int64_t sat_add(int64_t a, int64_t b, bool *overflow)
{
	int64_t s;
	if (__builtin_add_overflow(a, b, &s)) {
		*overflow = true;
		return b > 0 ? INT64_MAX : INT64_MIN;
	}
	return s;
}

static inline void event_finish(struct line_job *lj, struct xp_block *blk, uint64_t i, uint64_t mid, uint64_t off,
				uint64_t dur, bool aggregated, struct xp_oddities *odd)
{
	struct xp_line *l = lj->line;
	uint32_t dense = idmap_get(&lj->pctx->emap, (int64_t)mid);
	if (unlikely(!dense))
		odd->missing_event_meta++;
	if (unlikely(aggregated)) {
		odd->aggregated_events++;
		blk->n_aggregated++;
	}
	int64_t d = (int64_t)dur;
	if (unlikely(d < 0)) {
		odd->negative_durations++;
		d = 0;
	}
	bool ovf = false;
	int64_t start = sat_add(lj->line_base_ps, (int64_t)off, &ovf);
	if (unlikely(ovf || start > INT64_MAX - d)) {
		/* Keep end <= INT64_MAX so analyzers may add freely. */
		if (start > INT64_MAX - d)
			d = INT64_MAX - start;
		blk->time_overflow = true;
	}
	l->start_ps[i] = start;
	l->dur_ps[i] = d;
	l->meta[i] = dense;
}

/* Runs are short (a few keys, a dozen for memory events): a loop beats a call to memcmp. */
static inline bool same_keys(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	uint32_t diff = 0;
	for (uint32_t k = 0; k < n; k++)
		diff |= a[k] ^ b[k];
	return !diff;
}

/* Event i's keys, just written at sink->key_at - n: kept, or given back when an earlier event of the
 * block has the same run (memory events repeat a dozen keys; the values differ, the keys rarely). */
static inline void event_keys(struct line_job *lj, uint64_t i, struct stat_sink *s, uint32_t first)
{
	struct xp_stats *st = s->stats;
	uint32_t n = st->n - first, at = st->n_keys;
	lj->line->key_begin[i] = at;
	if (!n)
		return;
	for (unsigned k = 0; k < 4; k++)
		if (s->run_len[k] == n && same_keys(st->keys + s->run_at[k], st->keys + at, n)) {
			lj->line->key_begin[i] = s->run_at[k];
			s->key_at = at;
			return;
		}
	st->n_keys = at + n;
	s->run_at[s->run_next] = at;
	s->run_len[s->run_next] = n;
	s->run_next = (s->run_next + 1) & 3;
}

/* The general event decoder: any field order and encoding, full checks. */
static int event_slow(struct reader *r, const uint8_t *p, const uint8_t *end, struct line_job *lj,
		      struct xp_block *blk, uint64_t i, struct stat_sink *sink)
{
	uint64_t mid = 0, off = 0, dur = 0;
	bool aggregated = false;
	uint32_t first = sink->stats->n;
	lj->line->stat_begin[i] = first;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		switch (field) {
		case 1:
		case 2:
		case 3:
		case 5:
			if (expect_wt(r, at, wt, WT_VARINT))
				return -1;
			if (read_varint(r, &p, end, field == 1 ? &mid : field == 3 ? &dur : &off))
				return -1;
			aggregated = field == 5 ? true : field == 2 ? false : aggregated;
			if (field == 5)
				off = 0; /* num_occurrences replaces offset_ps in the oneof */
			break;
		case 4:
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &len))
				return -1;
			if (decode_stat(r, body, body + len, sink))
				return -1;
			break;
		default:
			sink->odd->unknown_fields++;
			if (skip_field(r, &p, end, wt))
				return -1;
		}
	}
	event_keys(lj, i, sink, first);
	event_finish(lj, blk, i, mid, off, dur, aggregated, sink->odd);
	return 0;
}

/* The common encodings; anything else restarts the event in event_slow. */
static inline int decode_event(struct reader *r, const uint8_t *p, const uint8_t *end, struct line_job *lj,
			       struct xp_block *blk, uint64_t i, struct stat_sink *sink)
{
	const uint8_t *begin = p;
	uint64_t mid = 0, off = 0, dur = 0, len;
	bool aggregated = false;
	uint32_t first = sink->stats->n, first_dropped = sink->stats->n_dropped;
	lj->line->stat_begin[i] = first;
	while (p < end) {
		uint8_t tag = *p++;
		switch (tag) {
		case 0x08:
			p = fast_varint(p, end, &mid);
			break;
		case 0x10:
			p = fast_varint(p, end, &off);
			aggregated = false;
			break;
		case 0x18:
			p = fast_varint(p, end, &dur);
			break;
		case 0x28:
			p = fast_varint(p, end, &off);
			off = 0;
			aggregated = true;
			break;
		case 0x22:
			p = fast_len(p, end, &len);
			if (p) {
				if (stat_fast(p, p + len, sink) && decode_stat(r, p, p + len, sink))
					return -1;
				p += len;
			} else {
				p = NULL;
			}
			break;
		default:
			p = NULL;
		}
		if (unlikely(!p)) {
			sink->stats->n = first;
			sink->stats->n_dropped = first_dropped;
			sink->key_at = sink->stats->n_keys;
			return event_slow(r, begin, end, lj, blk, i, sink);
		}
	}
	event_keys(lj, i, sink, first);
	event_finish(lj, blk, i, mid, off, dur, aggregated, sink->odd);
	return 0;
}

static void shrink_block(struct xp_block *blk)
{
	/* Growth leaves slack; give it back, the model is kept for the run. */
	struct xp_stats *st = &blk->stats;
	/* Events that share key runs leave much of the keys' room unused. */
	if (st->n && st->cap > st->n_keys)
		st->keys = xrealloc(st->keys, (size_t)st->n_keys * sizeof *st->keys);
	if (st->n && st->cap > st->n) {
		st->vals = xrealloc(st->vals, (size_t)st->n * sizeof *st->vals);
		st->cap = st->n;
	}
	if (st->n_wide && st->cap_wide > st->n_wide) {
		st->wide = xrealloc(st->wide, (size_t)st->n_wide * sizeof *st->wide);
		st->cap_wide = st->n_wide;
	}
	if (blk->blob.len && blk->blob.cap > blk->blob.len) {
		blk->blob.data = xrealloc(blk->blob.data, blk->blob.len);
		blk->blob.cap = blk->blob.len;
	}
}

/* Room for N stats and WIDE wide values in a new block, faulted in; the keys only as far as KEYS
 * (shared key runs leave the rest of their room untouched). */
static void reserve_stats(struct xp_block *blk, uint64_t n, uint64_t wide, uint64_t keys)
{
	blk->stats.keys = xmalloc(n * sizeof *blk->stats.keys);
	blk->stats.vals = xmalloc(n * sizeof *blk->stats.vals);
	xp_prefault(blk->stats.keys, (keys < n ? keys : n) * sizeof *blk->stats.keys);
	xp_prefault(blk->stats.vals, n * sizeof *blk->stats.vals);
	blk->stats.cap = (uint32_t)n;
	if (wide) {
		blk->stats.wide = xmalloc(wide * sizeof *blk->stats.wide);
		xp_prefault(blk->stats.wide, wide * sizeof *blk->stats.wide);
		blk->stats.cap_wide = (uint32_t)wide;
	}
}

/* Fault in the line's per-event arrays for events [from, to), which are about to be written. */
static void fault_events(struct xp_line *l, uint64_t from, uint64_t to)
{
	if (to <= from)
		return;
	xp_prefault(l->start_ps + from, (to - from) * sizeof *l->start_ps);
	xp_prefault(l->dur_ps + from, (to - from) * sizeof *l->dur_ps);
	xp_prefault(l->meta + from, (to - from) * sizeof *l->meta);
	xp_prefault(l->stat_begin + from, (to - from) * sizeof *l->stat_begin);
	xp_prefault(l->key_begin + from, (to - from) * sizeof *l->key_begin);
}

/* A new block's stats start: no keys yet, no runs to share. */
static void sink_new_block(struct stat_sink *s)
{
	s->key_at = 0;
	memset(s->run_len, 0, sizeof s->run_len);
	s->run_next = 0;
}

/* A first guess: one stat per 16 bytes of events, at most four per event. */
static uint64_t guess_stats(uint64_t bytes, uint64_t events)
{
	uint64_t n = bytes / 16 + 16;
	return n < events * 4 ? n : events * 4;
}

static int decode_block_into(struct host_reader *hr, struct block_job *bj, struct xp_block *blk,
			     struct xp_oddities *odd)
{
	struct reader *r = &hr->r;
	struct line_job *lj = bj->lj;
	struct xp_line *l = lj->line;
	uint64_t first = (uint64_t)bj->block << XP_BLOCK_SHIFT;
	uint64_t count = l->n_events - first;
	if (count > XP_BLOCK_EVENTS)
		count = XP_BLOCK_EVENTS;
	const uint8_t *p = r->base + lj->block_off[bj->block], *end = lj->end;
	const uint8_t *start = p;
	struct stat_sink sink = {&blk->stats, &blk->blob, &lj->pctx->smap, lj->plane->smeta, odd, lj->pctx->drops};
	reserve_stats(blk, guess_stats((uint64_t)(end - p), count), 0, 0);
	fault_events(l, first, first + count);
	uint64_t i = first;
	int64_t prev = INT64_MIN;
	while (i < first + count) {
		const uint8_t *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		/* Step 2 already validated the line's own fields. */
		const uint8_t *q = quick_event(p, end, &len);
		if (likely(q)) {
			if (decode_event(r, q, q + len, lj, blk, i, &sink))
				return -1;
			p = q + len;
			goto next;
		}
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field != 4) {
			if (skip_field(r, &p, end, wt))
				return -1;
			continue;
		}
		if (read_len(r, &p, end, &body, &len))
			return -1;
		if (decode_event(r, body, body + len, lj, blk, i, &sink))
			return -1;
next:
		if (unlikely(l->start_ps[i] < prev))
			blk->unsorted = true;
		prev = l->start_ps[i];
		i++;
	}
	shrink_block(blk);
	release_range(hr, start, p);
	return 0;
}

static int decode_block(struct host_reader *hr, struct block_job *bj, struct xp_oddities *odd)
{
	/* The block is filled in a copy on this thread's stack: neighbouring
	 * blocks, decoded by other threads, share its cache lines, and the stat
	 * count is written for every stat (false sharing cost 40% of the decode
	 * time on two threads). */
	struct xp_block *blk = &bj->lj->line->blocks[bj->block];
	struct xp_block local = *blk;
	int rc = decode_block_into(hr, bj, &local, odd);
	*blk = local;
	return rc;
}

/* --- threads -------------------------------------------------------------- */

typedef int (*job_fn)(struct host_reader *hr, size_t job, struct xp_oddities *odd);

struct worker_arg {
	struct host_reader *hr;
	job_fn fn;
	size_t n_jobs;
	struct xp_oddities *odd;
};

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct host_reader *hr = wa->hr;
	for (;;) {
		size_t j = atomic_fetch_add(&hr->next, 1);
		if (j >= wa->n_jobs || atomic_load(&hr->r.failed))
			break;
		if (wa->fn(hr, j, wa->odd))
			break;
	}
	return NULL;
}

static int run_parallel(struct host_reader *hr, job_fn fn, size_t n_jobs)
{
	int threads = hr->opts->threads < 1 ? 1 : hr->opts->threads;
	if ((size_t)threads > n_jobs)
		threads = n_jobs ? (int)n_jobs : 1;
	atomic_store(&hr->next, 0);
	struct worker_arg *args = xcalloc((size_t)threads, sizeof *args);
	pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
	for (int t = 0; t < threads; t++)
		args[t] = (struct worker_arg){hr, fn, n_jobs, &hr->thread_odd[t]};
	int started = 0;
	for (int t = 1; t < threads; t++)
		if (pthread_create(&tids[t], NULL, worker, &args[t]) == 0)
			started = t;
		else
			break;
	worker(&args[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	free(args);
	free(tids);
	return atomic_load(&hr->r.failed) ? -1 : 0;
}

static int job_walk_line(struct host_reader *hr, size_t j, struct xp_oddities *odd)
{
	(void)odd;
	return walk_line(hr, &hr->lines[j]);
}

static int job_decode_block(struct host_reader *hr, size_t j, struct xp_oddities *odd)
{
	return decode_block(hr, &hr->blocks[j], odd);
}

/* --- the host ----------------------------------------------------------------- */

static void push_string(uint32_t **arr, uint32_t *n, uint32_t id)
{
	*arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
	(*arr)[(*n)++] = id;
}

static int read_space(struct host_reader *hr, const uint8_t *p, const uint8_t *end)
{
	struct reader *r = &hr->r;
	struct xp_host *h = hr->host;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field >= 1 && field <= 4) {
			if (expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &len))
				return -1;
			if (field == 1)
				ranges_push(&hr->plane_ranges, body, len);
			else
				push_string(field == 2 ? &h->errors : field == 3 ? &h->warnings : &h->hostnames,
					    field == 2 ? &h->n_errors : field == 3 ? &h->n_warnings : &h->n_hostnames,
					    intern_checked(hr, body, len));
		} else {
			h->odd.unknown_fields++;
			if (skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

static int read_planes(struct host_reader *hr)
{
	struct xp_host *h = hr->host;
	size_t np = hr->plane_ranges.n;
	h->planes = xcalloc(np, sizeof *h->planes);
	hr->pctx = xcalloc(np, sizeof *hr->pctx);
	struct ranges lines = {0};
	int rc = 0;
	for (size_t i = 0; i < np && !rc; i++) {
		struct xp_plane *pl = &h->planes[i];
		lines.n = 0;
		h->n_planes = (uint32_t)(i + 1);
		rc = read_plane(hr, pl, &hr->pctx[i], hr->plane_ranges.v[i].p,
				hr->plane_ranges.v[i].p + hr->plane_ranges.v[i].len, &lines);
		if (rc)
			break;
		pl->n_lines = (uint32_t)lines.n;
		pl->lines = xcalloc(lines.n, sizeof *pl->lines);
		hr->lines = xrealloc(hr->lines, (hr->n_lines + lines.n) * sizeof *hr->lines);
		for (size_t k = 0; k < lines.n; k++) {
			struct line_job *lj = &hr->lines[hr->n_lines++];
			memset(lj, 0, sizeof *lj);
			lj->plane = pl;
			lj->pctx = &hr->pctx[i];
			lj->line = &pl->lines[k];
			lj->beg = lines.v[k].p;
			lj->end = lines.v[k].p + lines.v[k].len;
		}
	}
	free(lines.v);
	return rc;
}

/* The host base is the earliest line timestamp; a line too far from it (an
 * un-normalized epoch timestamp among normalized ones) keeps its own base. */
static void set_time_bases(struct host_reader *hr)
{
	struct xp_host *h = hr->host;
	bool any = false;
	for (size_t i = 0; i < hr->n_lines; i++) {
		int64_t ts = hr->lines[i].line->timestamp_ns;
		if (!any || ts < h->base_ns)
			h->base_ns = ts;
		any = true;
	}
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct line_job *lj = &hr->lines[i];
		int64_t delta, ps;
		if (__builtin_sub_overflow(lj->line->timestamp_ns, h->base_ns, &delta) ||
		    __builtin_mul_overflow(delta, (int64_t)1000, &ps)) {
			lj->line->time_overflow = true;
			ps = 0;
		}
		lj->line_base_ps = ps;
	}
}

/* The line's names (read by the walk) into the model. */
static void name_line(struct host_reader *hr, struct line_job *lj)
{
	struct xp_line *l = lj->line;
	l->name = intern_checked(hr, lj->name.p ? lj->name.p : (const uint8_t *)"", lj->name.len);
	l->display_name = intern_checked(hr, lj->dname.p ? lj->dname.p : (const uint8_t *)"", lj->dname.len);
	l->derived = xp_line_is_derived(l->id, xp_str(hr->cap, l->name));
}

static void prepare_lines(struct host_reader *hr)
{
	size_t total = 0;
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct line_job *lj = &hr->lines[i];
		struct xp_line *l = lj->line;
		name_line(hr, lj);
		l->n_blocks = lj->n_block_off;
		l->blocks = xcalloc(l->n_blocks, sizeof *l->blocks);
		l->start_ps = xmalloc(l->n_events * sizeof *l->start_ps);
		l->dur_ps = xmalloc(l->n_events * sizeof *l->dur_ps);
		l->meta = xmalloc(l->n_events * sizeof *l->meta);
		l->stat_begin = xmalloc(l->n_events * sizeof *l->stat_begin);
		l->key_begin = xmalloc(l->n_events * sizeof *l->key_begin);
		total += l->n_blocks; /* each block job faults its part of the arrays in, side by side */
	}
	hr->blocks = xcalloc(total, sizeof *hr->blocks);
	for (size_t i = 0; i < hr->n_lines; i++)
		for (uint32_t b = 0; b < hr->lines[i].line->n_blocks; b++)
			hr->blocks[hr->n_blocks++] = (struct block_job){&hr->lines[i], b};
}

static void finish_lines(struct host_reader *hr)
{
	for (size_t i = 0; i < hr->n_lines; i++) {
		struct xp_line *l = hr->lines[i].line;
		/* Blocks check order inside themselves; check the seams. */
		for (uint32_t b = 1; b < l->n_blocks && !l->unsorted; b++) {
			uint64_t k = (uint64_t)b << XP_BLOCK_SHIFT;
			if (l->start_ps[k] < l->start_ps[k - 1])
				l->unsorted = true;
		}
		for (uint32_t b = 0; b < l->n_blocks; b++) {
			l->n_stats += (uint64_t)l->blocks[b].stats.n + l->blocks[b].stats.n_dropped;
			l->n_aggregated += l->blocks[b].n_aggregated;
			l->time_overflow |= l->blocks[b].time_overflow;
			l->unsorted |= l->blocks[b].unsorted;
		}
		if (l->unsorted)
			hr->host->odd.unsorted_lines++;
		if (l->time_overflow)
			hr->host->odd.time_overflow_lines++;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

struct name_at {
	uint32_t name, plane;
};

static int cmp_name_at(const void *a, const void *b)
{
	const struct name_at *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return (x->plane > y->plane) - (x->plane < y->plane);
}

/* Planes whose name an earlier plane has point at the first of them: sorted
 * by (name, position), so a million planes cost n log n, not n^2. */
static void mark_duplicate_planes(struct xp_host *h)
{
	if (h->n_planes < 2)
		return;
	struct name_at *v = xmalloc(h->n_planes * sizeof *v);
	for (uint32_t i = 0; i < h->n_planes; i++)
		v[i] = (struct name_at){h->planes[i].base_name, i};
	qsort(v, h->n_planes, sizeof *v, cmp_name_at);
	uint32_t first = 0;
	for (uint32_t i = 1; i < h->n_planes; i++) {
		if (v[i].name != v[i - 1].name) {
			first = i;
			continue;
		}
		h->planes[v[i].plane].dup_of_plane = v[first].plane + 1;
		h->odd.duplicate_planes++;
	}
	xp_work_add(XP_WORK_PLANES, h->n_planes);
	free(v);
}

static void count_duplicates(struct xp_host *h)
{
	mark_duplicate_planes(h);
	for (uint32_t i = 0; i < h->n_planes; i++) {
		struct xp_plane *pl = &h->planes[i];
		if (pl->n_lines < 2)
			continue;
		int64_t *ids = xmalloc(pl->n_lines * sizeof *ids);
		for (uint32_t k = 0; k < pl->n_lines; k++)
			ids[k] = pl->lines[k].id;
		qsort(ids, pl->n_lines, sizeof *ids, cmp_i64);
		for (uint32_t k = 1; k < pl->n_lines; k++)
			if (ids[k] == ids[k - 1])
				h->odd.duplicate_lines++;
		free(ids);
	}
}

static void sum_oddities(struct xp_oddities *dst, const struct xp_oddities *src)
{
	const uint64_t *s = (const uint64_t *)src;
	uint64_t *d = (uint64_t *)dst;
	for (size_t k = 0; k < sizeof *src / sizeof(uint64_t); k++)
		d[k] += s[k];
}

static void detect_grouping(struct xp_capture *c, struct xp_host *h)
{
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (xp_plane_stat_id(c, &h->planes[i], "group_id")) {
			h->pre_grouped = true;
			return;
		}
}

static void free_host_reader(struct host_reader *hr)
{
	for (size_t i = 0; i < hr->n_lines; i++)
		free(hr->lines[i].block_off);
	free(hr->lines);
	free(hr->blocks);
	if (hr->pctx)
		for (uint32_t i = 0; i < hr->plane_ranges.n; i++) {
			idmap_free(&hr->pctx[i].emap);
			idmap_free(&hr->pctx[i].smap);
		}
	free(hr->pctx);
	free(hr->plane_ranges.v);
	free(hr->thread_odd);
	pthread_mutex_destroy(&hr->r.err_lock);
}

/* --- one thread: walk and decode in one pass ---------------------------------- */

/*
 * With one thread there is no work to split, so each line is walked and
 * decoded in the same pass and its bytes are read once (the separate walk was
 * a sixth of the decode time). The line's arrays grow as events come, and
 * times stay relative to the line until every line's timestamp, and so the
 * host base, is known (rebase_line). Same model as the two-pass decode: the
 * differential fuzz test runs both.
 */
struct fused {
	struct host_reader *hr;
	struct line_job *lj;
	uint64_t cap;                   /* room in the line's arrays */
	struct xp_block blk;            /* the block being filled */
	uint32_t prev_stats, prev_wide, prev_keys; /* what the line's previous block held */
	struct stat_sink sink;
	const uint8_t *blk_start;       /* where its events start, for release_range */
};

/* Fault in the line's arrays for events [from, the end of from's block), as far as they reach:
 * a block at a time, so that slack past the last event is never touched. */
static void fused_fault_block(struct fused *fu, uint64_t from)
{
	uint64_t to = (from | (XP_BLOCK_EVENTS - 1)) + 1;
	fault_events(fu->lj->line, from, to < fu->cap ? to : fu->cap);
}

static void fused_grow(struct fused *fu)
{
	struct xp_line *l = fu->lj->line;
	uint64_t old = fu->cap;
	/* First about one event per 48 bytes (they average 60 in real captures), then +25 %: the
	 * arrays shrink to fit at the end of the line. */
	fu->cap = old ? old + old / 4 + 64 : (uint64_t)(fu->lj->end - fu->lj->beg) / 48 + 64;
	l->start_ps = xrealloc(l->start_ps, fu->cap * sizeof *l->start_ps);
	l->dur_ps = xrealloc(l->dur_ps, fu->cap * sizeof *l->dur_ps);
	l->meta = xrealloc(l->meta, fu->cap * sizeof *l->meta);
	l->stat_begin = xrealloc(l->stat_begin, fu->cap * sizeof *l->stat_begin);
	l->key_begin = xrealloc(l->key_begin, fu->cap * sizeof *l->key_begin);
	fused_fault_block(fu, old);
}

static void fused_close_block(struct fused *fu, const uint8_t *p)
{
	struct xp_line *l = fu->lj->line;
	fu->prev_stats = fu->blk.stats.n;
	fu->prev_wide = fu->blk.stats.n_wide;
	fu->prev_keys = fu->blk.stats.n_keys;
	shrink_block(&fu->blk);
	l->blocks[l->n_blocks - 1] = fu->blk;
	memset(&fu->blk, 0, sizeof fu->blk);
	release_range(fu->hr, fu->blk_start, p);
}

static void fused_open_block(struct fused *fu, const uint8_t *p)
{
	struct xp_line *l = fu->lj->line;
	l->blocks = xrealloc(l->blocks, (l->n_blocks + 1) * sizeof *l->blocks);
	memset(&l->blocks[l->n_blocks++], 0, sizeof *l->blocks);
	/* Like the previous block, which was full; the first one is a guess. */
	if (l->n_blocks > 1)
		reserve_stats(&fu->blk, fu->prev_stats + fu->prev_stats / 16 + 16, fu->prev_wide + fu->prev_wide / 16,
			      fu->prev_keys);
	else
		reserve_stats(&fu->blk, guess_stats((uint64_t)(fu->lj->end - p), XP_BLOCK_EVENTS), 0, 0);
	sink_new_block(&fu->sink);
	fused_fault_block(fu, l->n_events);
	fu->blk_start = p;
}

/* The event whose tag is at AT and whose body is [Q, QEND). */
static int fused_event(struct fused *fu, const uint8_t *at, const uint8_t *q, const uint8_t *qend)
{
	struct xp_line *l = fu->lj->line;
	uint64_t i = l->n_events;
	if ((i & (XP_BLOCK_EVENTS - 1)) == 0) {
		if (i)
			fused_close_block(fu, at);
		fused_open_block(fu, at);
	}
	if (i == fu->cap)
		fused_grow(fu);
	if (decode_event(&fu->hr->r, q, qend, fu->lj, &fu->blk, i, &fu->sink))
		return -1;
	l->n_events = i + 1;
	return 0;
}

static void shrink_array(void **a, uint64_t n, size_t size)
{
	if (n)
		*a = xrealloc(*a, n * size);
}

static int walk_decode_line(struct host_reader *hr, struct line_job *lj, struct xp_oddities *odd)
{
	struct reader *r = &hr->r;
	struct xp_line *l = lj->line;
	struct fused fu = {.hr = hr, .lj = lj};
	fu.sink = (struct stat_sink){&fu.blk.stats, &fu.blk.blob, &lj->pctx->smap, lj->plane->smeta, odd, lj->pctx->drops};
	const uint8_t *p = lj->beg, *end = lj->end;
	int rc = 0;
	while (p < end && !rc) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v;
		const uint8_t *q = quick_event(p, end, &v);
		if (likely(q)) {
			rc = fused_event(&fu, p, q, q + v);
			p = q + v;
			continue;
		}
		if (get_tag(r, &p, end, &field, &wt))
			rc = -1;
		else if (field == 4)
			rc = expect_wt(r, at, wt, WT_LEN) || read_len(r, &p, end, &body, &v) ||
			     fused_event(&fu, at, body, body + v) ? -1 : 0;
		else
			rc = line_field(r, lj, at, &p, end, field, wt);
	}
	/* The block being filled joins the model even after an error, so that freeing the model frees it. */
	if (l->n_blocks)
		fused_close_block(&fu, p);
	if (rc)
		return -1;
	shrink_array((void **)&l->start_ps, l->n_events, sizeof *l->start_ps);
	shrink_array((void **)&l->dur_ps, l->n_events, sizeof *l->dur_ps);
	shrink_array((void **)&l->meta, l->n_events, sizeof *l->meta);
	shrink_array((void **)&l->stat_begin, l->n_events, sizeof *l->stat_begin);
	shrink_array((void **)&l->key_begin, l->n_events, sizeof *l->key_begin);
	name_line(hr, lj);
	return 0;
}

/* Line-relative times to host-relative ones, with event_finish's saturation; the order check. */
static void rebase_line(struct line_job *lj)
{
	struct xp_line *l = lj->line;
	int64_t base = lj->line_base_ps, prev = INT64_MIN;
	for (uint64_t i = 0; i < l->n_events; i++) {
		bool ovf = false;
		int64_t d = l->dur_ps[i], start = sat_add(base, l->start_ps[i], &ovf);
		if (unlikely(ovf || start > INT64_MAX - d)) {
			if (start > INT64_MAX - d)
				l->dur_ps[i] = INT64_MAX - start;
			l->blocks[i >> XP_BLOCK_SHIFT].time_overflow = true;
		}
		l->start_ps[i] = start;
		l->unsorted |= start < prev;
		prev = start;
	}
}

static int decode_fused(struct host_reader *hr)
{
	/* line_base_ps stays 0 while decoding: event_finish keeps the offsets as they are. */
	for (size_t i = 0; i < hr->n_lines; i++)
		if (walk_decode_line(hr, &hr->lines[i], &hr->thread_odd[0]))
			return -1;
	set_time_bases(hr);
	for (size_t i = 0; i < hr->n_lines; i++)
		rebase_line(&hr->lines[i]);
	return 0;
}

int xp_read_xspace(struct xp_capture *c, const char *path, const uint8_t *data, uint64_t len,
		   const struct xp_read_opts *o, struct xp_err *err)
{
	struct host_reader hr;
	memset(&hr, 0, sizeof hr);
	hr.r.base = data;
	hr.r.path = path;
	hr.r.err = err;
	pthread_mutex_init(&hr.r.err_lock, NULL);
	hr.cap = c;
	hr.opts = o;
	hr.host = xp_capture_add_host(c);
	hr.host->path = strdup(path ? path : "");
	hr.host->format = XP_FMT_XSPACE;
	hr.host->decoded_bytes = len;
	int threads = o->threads < 1 ? 1 : o->threads;
	hr.thread_odd = xcalloc((size_t)threads, sizeof *hr.thread_odd);

	int rc = read_space(&hr, data, data + len);
	if (!rc)
		rc = read_planes(&hr);
	if (!rc && threads == 1) {
		rc = decode_fused(&hr);
	} else if (!rc) {
		rc = run_parallel(&hr, job_walk_line, hr.n_lines);
		if (!rc) {
			set_time_bases(&hr);
			prepare_lines(&hr);
			rc = run_parallel(&hr, job_decode_block, hr.n_blocks);
		}
	}
	if (!rc) {
		finish_lines(&hr);
		count_duplicates(hr.host);
		for (int t = 0; t < threads; t++)
			sum_oddities(&hr.host->odd, &hr.thread_odd[t]);
		detect_grouping(c, hr.host);
		if (hr.host->n_hostnames && xp_strlen(c, hr.host->hostnames[0]))
			hr.host->name = strdup(xp_str(c, hr.host->hostnames[0]));
		else
			hr.host->name = xp_host_from_filename(path ? path : "");
	}
	free_host_reader(&hr);
	if (rc && threads > 1) {
		/* Threads meet faults in whatever order they run, and the walk of every line comes before
		 * any event: read the file again on one thread, which meets them in one fixed order, so that
		 * the fault reported does not depend on --threads (nor on timing). */
		bool *keep = xcalloc(c->n_hosts, sizeof *keep);
		for (uint32_t h = 0; h + 1 < c->n_hosts; h++)
			keep[h] = true;
		xp_capture_keep_hosts(c, keep);
		free(keep);
		if (err)
			*err = (struct xp_err){0};
		struct xp_read_opts one = *o;
		one.threads = 1;
		return xp_read_xspace(c, path, data, len, &one, err);
	}
	return rc ? -1 : 0;
}
