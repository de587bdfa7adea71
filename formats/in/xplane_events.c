/* xplane_events.c - the XSpace reader's event loop: stats, events, and the one line iterator its three paths share. */
#include "xplane_host.h"
#include "xplane_read.h"
#include "formats/core/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* --- stats (shared by metadata, plane and event stats) ------------------ */

/* Room for more stats; -1 when the count would pass 32 bits (the sink reports it). */
static int __attribute__((noinline)) stats_grow(struct xp_stats *st)
{
	uint32_t cap = st->cap ? st->cap + st->cap / 2 + 16 : 64;
	if (cap < st->cap)
		return -1;
	st->keys = xrealloc(st->keys, (size_t)cap * sizeof *st->keys);
	st->vals = xrealloc(st->vals, (size_t)cap * sizeof *st->vals);
	xp_prefault(st->keys + st->cap, (size_t)(cap - st->cap) * sizeof *st->keys);
	xp_prefault(st->vals + st->cap, (size_t)(cap - st->cap) * sizeof *st->vals);
	st->cap = cap;
	return 0;
}

static int __attribute__((noinline)) wide_grow(struct xp_stats *st)
{
	if (st->cap_wide >= UINT32_MAX / 2)
		return -1;
	st->cap_wide = st->cap_wide ? st->cap_wide * 2 : 16;
	st->wide = xrealloc(st->wide, (size_t)st->cap_wide * sizeof *st->wide);
	return 0;
}

int xpr_sink_check(struct reader *r, const struct stat_sink *s)
{
	if (!s->full)
		return 0;
	xpr_limit(r, "too many stats in one block");
	return -1;
}

static inline __attribute__((always_inline)) void stat_finish(struct stat_sink *s, uint64_t mid, unsigned kind,
							      uint64_t val, bool is_ref)
{
	uint32_t dense = xp_idmap_get(s->smap, (int64_t)mid);
	if (unlikely(!dense))
		s->odd->missing_stat_meta++;
	if (is_ref) {
		uint32_t target = xp_idmap_get(s->smap, (int64_t)val);
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
	if (unlikely(st->n == st->cap) && stats_grow(st)) {
		s->full = true;
		return;
	}
	uint32_t key = xp_stat_make_key(kind, dense);
	if (unlikely(val > UINT32_MAX)) {
		if (st->n_wide == st->cap_wide && wide_grow(st)) {
			s->full = true;
			return;
		}
		st->wide[st->n_wide] = val;
		val = st->n_wide++;
		key |= XP_STAT_WIDE;
	}
	st->keys[s->key_at++] = key;
	st->vals[st->n] = (uint32_t)val;
	st->n++;
}

/* The value field FIELD of a stat (its tag at AT, *PP after it): into *VAL, *KIND and *IS_REF. */
static int stat_value(struct reader *r, const uint8_t *at, const uint8_t **pp, const uint8_t *end, uint32_t field,
		      unsigned wt, struct stat_sink *s, uint64_t *val, unsigned *kind)
{
	const uint8_t *body;
	uint64_t len;
	if (field == XPF_STAT_DOUBLE_VALUE) {
		if (expect_wt(r, at, wt, XP_WT_I64))
			return -1;
		if (end - *pp < 8)
			return fail(r, at, "truncated double");
		memcpy(val, *pp, 8);
		*pp += 8;
		*kind = XP_STAT_F64;
	} else if (field == XPF_STAT_STR_VALUE || field == XPF_STAT_BYTES_VALUE) {
		if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, pp, end, &body, &len))
			return -1;
		if (len > UINT32_MAX - 8)
			return fail(r, at, "string stat larger than 4 GiB");
		*val = xp_blob_put(s->blob, body, (uint32_t)len);
		*kind = field == XPF_STAT_STR_VALUE ? XP_STAT_BLOBSTR : XP_STAT_BYTES;
	} else {
		if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, pp, end, val))
			return -1;
		*kind = field == XPF_STAT_UINT64_VALUE ? XP_STAT_U64
		      : field == XPF_STAT_INT64_VALUE ? XP_STAT_I64 : XP_STAT_STR;
	}
	return 0;
}

/* The general stat decoder: any field order and encoding, full checks. The last value field wins (oneof). */
int xpr_decode_stat(struct reader *r, const uint8_t *p, const uint8_t *end, struct stat_sink *s)
{
	uint64_t mid = 0, val = 0;
	unsigned kind = XP_STAT_NONE;
	bool is_ref = false;
	while (p < end) {
		const uint8_t *at = p;
		uint32_t field;
		unsigned wt;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == XPF_STAT_METADATA_ID) {
			if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, &p, end, &mid))
				return -1;
		} else if (field >= XPF_STAT_DOUBLE_VALUE && field <= XPF_STAT_REF_VALUE) {
			if (stat_value(r, at, &p, end, field, wt, s, &val, &kind))
				return -1;
			is_ref = field == XPF_STAT_REF_VALUE;
		} else {
			s->odd->unknown_fields++;
			if (xpr_skip_field(r, &p, end, wt))
				return -1;
		}
	}
	stat_finish(s, mid, kind, val, is_ref);
	return 0;
}

/* The kind of a varint value field's tag: uint64_value, int64_value or ref_value. */
static inline unsigned varint_kind(uint8_t tag)
{
	return tag == XPT_STAT_UINT64_VALUE ? XP_STAT_U64 : tag == XPT_STAT_INT64_VALUE ? XP_STAT_I64 : XP_STAT_STR;
}

/* A stat field by field, in the common encodings only (one-byte tags of known fields). Returns 1 when
 * the stat needs the general decoder (nothing was recorded then). */
static inline __attribute__((always_inline)) int stat_fields(const uint8_t *p, const uint8_t *end, struct stat_sink *s)
{
	uint64_t mid = 0, val = 0, len;
	unsigned kind = XP_STAT_NONE;
	bool is_ref = false;
	const uint8_t *text = NULL;
	while (p < end) {
		uint8_t tag = *p++;
		switch (tag) {
		case XPT_STAT_METADATA_ID:
			if (!(p = fast_varint(p, end, &mid)))
				return 1;
			break;
		case XPT_STAT_UINT64_VALUE:
		case XPT_STAT_INT64_VALUE:
		case XPT_STAT_REF_VALUE:
			if (!(p = fast_varint(p, end, &val)))
				return 1;
			kind = varint_kind(tag);
			is_ref = tag == XPT_STAT_REF_VALUE;
			text = NULL;
			break;
		case XPT_STAT_DOUBLE_VALUE:
			if (end - p < 8)
				return 1;
			memcpy(&val, p, 8);
			p += 8;
			kind = XP_STAT_F64;
			is_ref = false;
			text = NULL;
			break;
		case XPT_STAT_STR_VALUE:
		case XPT_STAT_BYTES_VALUE:
			if (!(p = fast_len(p, end, &len)) || len > UINT32_MAX - 8)
				return 1;
			text = p;
			val = len;
			p += len;
			kind = tag == XPT_STAT_STR_VALUE ? XP_STAT_BLOBSTR : XP_STAT_BYTES;
			is_ref = false;
			break;
		default:
			return 1;
		}
	}
	if (text && !(s->drops && s->smeta[xp_idmap_get(s->smap, (int64_t)mid)].dropped))
		val = xp_blob_put(s->blob, text, (uint32_t)val);
	stat_finish(s, mid, kind, val, is_ref);
	return 0;
}

/* An event's stat in the common encodings; 1 when it needs the general decoder (nothing recorded then).
 * Nearly every stat is its metadata id, then one number, and nothing else: that goes straight through,
 * without the loop's dispatch; anything else takes the loop from the start. (Kept in this one shape: as
 * a separate test-and-return the head cost 2 % more instructions on the event loop.) */
static inline __attribute__((always_inline)) int stat_fast(const uint8_t *p, const uint8_t *end, struct stat_sink *s)
{
	if (likely(end - p >= 3 && p[0] == XPT_STAT_METADATA_ID && p[1] < 0x80)) {
		uint8_t tag = p[2];
		const uint8_t *q = p + 3;
		uint64_t val;
		if (tag == XPT_STAT_UINT64_VALUE || tag == XPT_STAT_INT64_VALUE || tag == XPT_STAT_REF_VALUE) {
			q = fast_varint(q, end, &val);
			if (likely(q == end)) {
				stat_finish(s, p[1], varint_kind(tag), val, tag == XPT_STAT_REF_VALUE);
				return 0;
			}
		} else if (tag == XPT_STAT_DOUBLE_VALUE && end - q == 8) {
			memcpy(&val, q, 8);
			stat_finish(s, p[1], XP_STAT_F64, val, false);
			return 0;
		}
	}
	return stat_fields(p, end, s);
}

/* --- events ------------------------------------------------------------------ */

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
	uint32_t dense = xp_idmap_get(&lj->pctx->emap, (int64_t)mid);
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
	xp_line_put_dur(l, blk, i, d);
	xp_line_put_meta(l, i, dense);
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

/* An event's own fields as they are read; the last of offset_ps and num_occurrences wins (oneof). */
struct event_fields {
	uint64_t mid, off, dur;
	bool aggregated;
};

/* A varint field of an event (its tag at AT, *PP after it). */
static int event_varint(struct reader *r, const uint8_t *at, const uint8_t **pp, const uint8_t *end, uint32_t field,
			unsigned wt, struct event_fields *ev)
{
	if (expect_wt(r, at, wt, XP_WT_VARINT))
		return -1;
	uint64_t *to = field == XPF_EVENT_METADATA_ID ? &ev->mid : field == XPF_EVENT_DURATION_PS ? &ev->dur : &ev->off;
	if (read_varint(r, pp, end, to))
		return -1;
	if (field == XPF_EVENT_NUM_OCCURRENCES) {
		ev->aggregated = true;
		ev->off = 0; /* num_occurrences replaces offset_ps in the oneof */
	} else if (field == XPF_EVENT_OFFSET_PS) {
		ev->aggregated = false;
	}
	return 0;
}

/* The general event decoder: any field order and encoding, full checks. */
static int event_slow(struct reader *r, const uint8_t *p, const uint8_t *end, struct line_job *lj,
		      struct xp_block *blk, uint64_t i, struct stat_sink *sink)
{
	struct event_fields ev = {0};
	uint32_t first = sink->stats->n;
	lj->line->stat_begin[i] = first;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == XPF_EVENT_STATS) {
			if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, &p, end, &body, &len) ||
			    xpr_decode_stat(r, body, body + len, sink))
				return -1;
		} else if (field >= XPF_EVENT_METADATA_ID && field <= XPF_EVENT_NUM_OCCURRENCES) {
			if (event_varint(r, at, &p, end, field, wt, &ev))
				return -1;
		} else {
			sink->odd->unknown_fields++;
			if (xpr_skip_field(r, &p, end, wt))
				return -1;
		}
	}
	event_keys(lj, i, sink, first);
	event_finish(lj, blk, i, ev.mid, ev.off, ev.dur, ev.aggregated, sink->odd);
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
		case XPT_EVENT_METADATA_ID:
			p = fast_varint(p, end, &mid);
			break;
		case XPT_EVENT_OFFSET_PS:
			p = fast_varint(p, end, &off);
			aggregated = false;
			break;
		case XPT_EVENT_DURATION_PS:
			p = fast_varint(p, end, &dur);
			break;
		case XPT_EVENT_NUM_OCCURRENCES:
			p = fast_varint(p, end, &off);
			off = 0;
			aggregated = true;
			break;
		case XPT_EVENT_STATS:
			p = fast_len(p, end, &len);
			if (p) {
				if (stat_fast(p, p + len, sink) && xpr_decode_stat(r, p, p + len, sink))
					return -1;
				p += len;
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

/* --- the line iterator ---------------------------------------------------------- */

/*
 * The one loop over a line's fields, shared by the walk (step 2), the block decode (step 3) and the
 * one-thread pass. line_next stops at each event; the line's own fields met on the way are read into
 * the line, or only skipped where the walk has read them already.
 */
struct line_iter {
	struct reader *r;
	struct line_job *lj;
	bool read_fields;               /* false: skip the line's own fields */
	const uint8_t *p, *end;         /* what is left of the line */
	const uint8_t *at;              /* the current event's tag */
	const uint8_t *body;            /* its body, LEN bytes */
	uint64_t len;
};

static inline struct line_iter line_iter(struct reader *r, struct line_job *lj, const uint8_t *from, bool read_fields)
{
	return (struct line_iter){.r = r, .lj = lj, .read_fields = read_fields, .p = from, .end = lj->end};
}

/* The body of the event at P when it has the usual encoding (its tag, a length that fits); NULL when the
 * field needs the general path. The prefetch asks for the bytes a few dozen events ahead, since the next
 * event's position waits on this one's length. */
static inline __attribute__((always_inline)) const uint8_t *quick_event(const uint8_t *p, const uint8_t *end,
									   uint64_t *len)
{
	if (unlikely(*p != XPT_LINE_EVENTS))
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
	case XPF_LINE_ID:
	case XPF_LINE_TIMESTAMP_NS:
	case XPF_LINE_DURATION_PS:
	case XPF_LINE_DISPLAY_ID:
		if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, pp, end, &v))
			return -1;
		*(field == XPF_LINE_ID ? &l->id : field == XPF_LINE_TIMESTAMP_NS ? &l->timestamp_ns
		  : field == XPF_LINE_DURATION_PS ? &l->duration_ps : &l->display_id) = (int64_t)v;
		return 0;
	case XPF_LINE_NAME:
	case XPF_LINE_DISPLAY_NAME:
		if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, pp, end, &body, &v))
			return -1;
		*(field == XPF_LINE_NAME ? &lj->name : &lj->dname) = (struct range){body, v};
		return 0;
	default:
		return xpr_skip_field(r, pp, end, wt);
	}
}

/* The field at it->p when it is not a quick event: an event in another encoding (1), one of the line's
 * own fields (0, read or skipped), or broken structure (-1). */
static inline __attribute__((always_inline)) int line_other(struct line_iter *it)
{
	const uint8_t *at = it->p;
	uint32_t field;
	unsigned wt;
	if (get_tag(it->r, &it->p, it->end, &field, &wt))
		return -1;
	if (field == XPF_LINE_EVENTS) {
		if (expect_wt(it->r, at, wt, XP_WT_LEN) || read_len(it->r, &it->p, it->end, &it->body, &it->len))
			return -1;
		it->at = at;
		return 1;
	}
	if (!it->read_fields)
		return xpr_skip_field(it->r, &it->p, it->end, wt);
	return line_field(it->r, it->lj, at, &it->p, it->end, field, wt);
}

/* The next event: 1 with it->at, it->body and it->len set; 0 at the end of the line; -1 on broken structure. */
static inline __attribute__((always_inline)) int line_next(struct line_iter *it)
{
	while (it->p < it->end) {
		const uint8_t *q = quick_event(it->p, it->end, &it->len);
		if (likely(q)) {
			it->at = it->p;
			it->body = q;
			it->p = q + it->len;
			return 1;
		}
		int k = line_other(it);
		if (k)
			return k;
	}
	return 0;
}

/* --- step 2: line headers and block boundaries ---------------------------- */

static void push_block(struct line_job *lj, uint64_t off)
{
	if (lj->n_block_off == lj->cap_block_off) {
		lj->cap_block_off = lj->cap_block_off ? lj->cap_block_off * 2 : 4;
		lj->block_off = xrealloc(lj->block_off, lj->cap_block_off * sizeof *lj->block_off);
	}
	lj->block_off[lj->n_block_off++] = off;
}

/* Where block N's events start, for the block jobs; only an event's extent matters here. */
static inline int note_block(struct reader *r, struct line_job *lj, const struct line_iter *it, uint64_t n)
{
	if ((n & (XP_BLOCK_EVENTS - 1)) == 0) {
		push_block(lj, (uint64_t)(it->at - r->base));
		if (atomic_load_explicit(&r->failed, memory_order_relaxed))
			return -1;
	}
	return 0;
}

/* event_times for any field order and encoding, with full checks. */
static int event_times_slow(struct reader *r, const uint8_t *p, const uint8_t *end, struct event_fields *ev)
{
	uint32_t field;
	unsigned wt;
	for (const uint8_t *at = p; p < end; at = p) {
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		bool time = field >= XPF_EVENT_METADATA_ID && field <= XPF_EVENT_NUM_OCCURRENCES && field != XPF_EVENT_STATS;
		if (time ? event_varint(r, at, &p, end, field, wt, ev) : xpr_skip_field(r, &p, end, wt))
			return -1;
	}
	return 0;
}

/* The offset and duration of the event in [p, end), read as the decoders read them (the last of offset_ps and
 * num_occurrences wins), its stats skipped by their length: 0, or -1 on broken structure. */
static inline int event_times(struct reader *r, const uint8_t *p, const uint8_t *end, struct event_fields *ev)
{
	const uint8_t *begin = p;
	uint64_t v;
	while (p < end) {
		switch (*p++) {
		case XPT_EVENT_METADATA_ID:
			p = fast_varint(p, end, &ev->mid);
			break;
		case XPT_EVENT_OFFSET_PS:
			p = fast_varint(p, end, &ev->off);
			ev->aggregated = false;
			break;
		case XPT_EVENT_DURATION_PS:
			p = fast_varint(p, end, &ev->dur);
			break;
		case XPT_EVENT_NUM_OCCURRENCES:
			p = fast_varint(p, end, &v);
			ev->off = 0;
			ev->aggregated = true;
			break;
		case XPT_EVENT_STATS:
			p = fast_len(p, end, &v);
			if (p)
				p += v;
			break;
		default:
			p = NULL;
		}
		if (unlikely(!p)) {
			*ev = (struct event_fields){0};
			return event_times_slow(r, begin, end, ev);
		}
	}
	return 0;
}

/* For a stream: where each chunk of XPR_CHUNK events starts and, with SPANS, event N's times into the span of
 * its chunk; without, the chunk's span is all time (no chunk is skipped unless spans come from elsewhere). */
static inline int note_chunk(struct reader *r, struct line_job *lj, const struct line_iter *it, uint64_t n, bool spans)
{
	if ((n & (XPR_CHUNK - 1)) == 0) {
		if (lj->n_chunks == lj->cap_chunks) {
			lj->cap_chunks = lj->cap_chunks ? lj->cap_chunks * 2 : 4;
			lj->chunks = xrealloc(lj->chunks, lj->cap_chunks * sizeof *lj->chunks);
		}
		lj->chunks[lj->n_chunks++] = spans ? (struct xpr_chunk){(uint64_t)(it->at - r->base), INT64_MAX, INT64_MIN}
						   : (struct xpr_chunk){(uint64_t)(it->at - r->base), INT64_MIN, INT64_MAX};
	}
	if (!spans)
		return 0;
	struct event_fields ev = {0};
	if (event_times(r, it->body, it->body + it->len, &ev))
		return -1;
	struct xpr_chunk *c = &lj->chunks[lj->n_chunks - 1];
	int64_t rel = (int64_t)ev.off, d = (int64_t)ev.dur < 0 ? 0 : (int64_t)ev.dur;
	int64_t end = rel > INT64_MAX - d ? INT64_MAX : rel + d; /* as late as the decode can make it */
	if (rel < c->first)
		c->first = rel;
	if (end > c->last)
		c->last = end;
	return 0;
}

enum walk_notes { WALK_BLOCKS, WALK_CHUNKS, WALK_SPANS };

/* Counts the line's events, noting block starts, chunks, or chunks and their spans. The pages stay mapped: the
 * block jobs read them next, and release them as they go. */
static inline int walk_line(struct host_reader *hr, struct line_job *lj, enum walk_notes notes)
{
	struct reader *r = &hr->r;
	struct line_iter it = line_iter(r, lj, lj->beg, true);
	uint64_t n = 0;
	int k;
	while ((k = line_next(&it)) > 0) {
		if (notes != WALK_BLOCKS ? note_chunk(r, lj, &it, n, notes == WALK_SPANS) : note_block(r, lj, &it, n))
			return -1;
		n++;
	}
	if (k)
		return -1;
	lj->line->n_events = lj->n_walked = n;
	return 0;
}

int xpr_walk_line(struct host_reader *hr, struct line_job *lj)
{
	return walk_line(hr, lj, WALK_BLOCKS);
}

/* Step 2 for a stream: the line's own fields and event count, and for each chunk of XPR_CHUNK events where it
 * starts and, with SPANS, the span of its events' times relative to the line, so that a decode in a window skips
 * the chunks that lie outside it without reading them. */
int xpr_walk_line_chunks(struct host_reader *hr, struct line_job *lj, bool spans)
{
	return walk_line(hr, lj, spans ? WALK_SPANS : WALK_CHUNKS);
}

/* --- step 3: blocks of events ------------------------------------------------- */

void xpr_release_range(struct host_reader *hr, const uint8_t *p, const uint8_t *end)
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
	if (blk->n_long && blk->cap_long > blk->n_long) {
		blk->long_at = xrealloc(blk->long_at, blk->n_long * sizeof *blk->long_at);
		blk->long_ps = xrealloc(blk->long_ps, blk->n_long * sizeof *blk->long_ps);
		blk->cap_long = blk->n_long;
	}
	if (blk->blob.len && blk->blob.cap > blk->blob.len) {
		blk->blob.data = xrealloc(blk->blob.data, blk->blob.len);
		blk->blob.cap = blk->blob.len;
	}
}

/* Room for N stats and WIDE wide values in a new block, faulted in unless SPARSE; the keys only as far as KEYS
 * (shared key runs leave the rest of their room untouched). */
static void reserve_stats(struct xp_block *blk, uint64_t n, uint64_t wide, uint64_t keys, bool sparse)
{
	blk->stats.keys = xmalloc(n * sizeof *blk->stats.keys);
	blk->stats.vals = xmalloc(n * sizeof *blk->stats.vals);
	/* SPARSE: a guess for every event of the line, of which a window keeps a few; untouched room stays unmapped */
	uint64_t f = sparse ? 0 : n, fw = sparse ? 0 : wide;
	xp_prefault(blk->stats.keys, (keys < f ? keys : f) * sizeof *blk->stats.keys);
	xp_prefault(blk->stats.vals, f * sizeof *blk->stats.vals);
	blk->stats.cap = (uint32_t)n;
	if (wide) {
		blk->stats.wide = xmalloc(wide * sizeof *blk->stats.wide);
		xp_prefault(blk->stats.wide, fw * sizeof *blk->stats.wide);
		blk->stats.cap_wide = (uint32_t)wide;
	}
}

/* Fault in the line's per-event arrays for events [from, to), which are about to be written. */
static void fault_events(struct xp_line *l, uint64_t from, uint64_t to)
{
	if (to <= from)
		return;
	xp_prefault(l->start_ps + from, (to - from) * sizeof *l->start_ps);
	xp_prefault(l->dur32 + from, (to - from) * sizeof *l->dur32);
	if (l->meta16)
		xp_prefault(l->meta16 + from, (to - from) * sizeof *l->meta16);
	else
		xp_prefault(l->meta32 + from, (to - from) * sizeof *l->meta32);
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
	uint64_t first = (uint64_t)bj->block << XP_BLOCK_SHIFT, last = first + XP_BLOCK_EVENTS;
	if (last > l->n_events)
		last = l->n_events;
	/* The walk read the line's own fields already. */
	struct line_iter it = line_iter(r, lj, r->base + lj->block_off[bj->block], false);
	const uint8_t *start = it.p;
	struct stat_sink sink = {&blk->stats, &blk->blob, &lj->pctx->smap, lj->plane->smeta, odd, lj->pctx->drops};
	reserve_stats(blk, guess_stats((uint64_t)(it.end - it.p), last - first), 0, 0, false);
	fault_events(l, first, last);
	int64_t prev = INT64_MIN;
	for (uint64_t i = first; i < last; i++) {
		int k = line_next(&it);
		if (k <= 0)
			return k ? -1 : fail(r, it.p, "line ends before its events"); /* the walk counted them */
		if (decode_event(r, it.body, it.body + it.len, lj, blk, i, &sink))
			return -1;
		if (unlikely(l->start_ps[i] < prev))
			blk->unsorted = true;
		prev = l->start_ps[i];
	}
	shrink_block(blk);
	xpr_release_range(hr, start, it.p);
	return xpr_sink_check(r, &sink);
}

int xpr_decode_block(struct host_reader *hr, struct block_job *bj, struct xp_oddities *odd)
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

/* --- one thread: walk and decode in one pass ---------------------------------- */

/*
 * With one thread there is no work to split, so each line is walked and
 * decoded in the same pass and its bytes are read once (the separate walk was
 * a sixth of the decode time). The line's arrays grow as events come, and
 * times stay relative to the line until every line's timestamp, and so the
 * host base, is known (xpr_rebase_line). Same model as the two-pass decode: the
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
	bool sparse;                    /* a window's decode: a few of the line's events, room not faulted in ahead */
};

/* Fault in the line's arrays for events [from, the end of from's block), as far as they reach:
 * a block at a time, so that slack past the last event is never touched. */
static void fused_fault_block(struct fused *fu, uint64_t from)
{
	if (fu->sparse)
		return;
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
	l->dur32 = xrealloc(l->dur32, fu->cap * sizeof *l->dur32);
	xp_line_size_meta(l, fu->cap, fu->lj->plane->n_emeta);
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
	xpr_release_range(fu->hr, fu->blk_start, p);
}

static void fused_open_block(struct fused *fu, const uint8_t *p)
{
	struct xp_line *l = fu->lj->line;
	l->blocks = xrealloc(l->blocks, (l->n_blocks + 1) * sizeof *l->blocks);
	memset(&l->blocks[l->n_blocks++], 0, sizeof *l->blocks);
	/* Like the previous block, which was full; the first one is a guess. */
	if (l->n_blocks > 1)
		reserve_stats(&fu->blk, fu->prev_stats + fu->prev_stats / 16 + 16, fu->prev_wide + fu->prev_wide / 16,
			      fu->prev_keys, fu->sparse);
	else
		reserve_stats(&fu->blk, guess_stats((uint64_t)(fu->lj->end - p), XP_BLOCK_EVENTS), 0, 0, fu->sparse);
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

static void fused_shrink_line(struct xp_line *l)
{
	shrink_array((void **)&l->start_ps, l->n_events, sizeof *l->start_ps);
	shrink_array((void **)&l->dur32, l->n_events, sizeof *l->dur32);
	if (l->n_events)
		xp_line_size_meta(l, l->n_events, 0);
	shrink_array((void **)&l->stat_begin, l->n_events, sizeof *l->stat_begin);
	shrink_array((void **)&l->key_begin, l->n_events, sizeof *l->key_begin);
}

/* Does the event in [p, end) overlap W (an instant one: lo <= start < hi)? Its times as the line's decode and
 * rebase make them (negative durations 0, ends kept <= INT64_MAX). 1, 0, or -1 on broken structure. */
static int event_in(struct reader *r, const uint8_t *p, const uint8_t *end, const struct xpr_window *w)
{
	struct event_fields ev = {0};
	if (event_times(r, p, end, &ev))
		return -1;
	int64_t d = (int64_t)ev.dur < 0 ? 0 : (int64_t)ev.dur, rel = (int64_t)ev.off;
	if (rel > INT64_MAX - d)
		d = INT64_MAX - rel;
	bool ovf = false;
	int64_t start = sat_add(w->base, rel, &ovf);
	if (start > INT64_MAX - d)
		d = INT64_MAX - start;
	return d ? start < w->hi && start + d > w->lo : start >= w->lo && start < w->hi;
}

int xpr_walk_decode_line(struct host_reader *hr, struct line_job *lj, struct xp_oddities *odd)
{
	return xpr_walk_decode_line_in(hr, lj, odd, NULL);
}

/* Could chunk C of LJ hold an event that overlaps W? (Its span moved to host time without saturation.) */
static bool chunk_meets(const struct line_job *lj, const struct xpr_chunk *c, const struct xpr_window *w)
{
	__int128 base = lj->spans_in_host_time ? 0 : w->base;
	return base + c->first < w->hi && base + c->last >= w->lo;
}

/* The events of the line that overlap W, chunk by chunk (xpr_walk_line_times), the chunks outside it skipped. */
static int fused_chunks(struct fused *fu, struct line_iter *it, const struct xpr_window *w)
{
	struct line_job *lj = fu->lj;
	struct reader *r = &fu->hr->r;
	for (uint32_t j = 0; j < lj->n_chunks; j++) {
		if (!chunk_meets(lj, &lj->chunks[j], w))
			continue;
		uint64_t m = j + 1 < lj->n_chunks ? XPR_CHUNK : lj->n_walked - (uint64_t)j * XPR_CHUNK;
		*it = line_iter(r, lj, r->base + lj->chunks[j].at, false);
		for (uint64_t i = 0; i < m; i++) {
			int k = line_next(it);
			if (k <= 0)
				return k ? -1 : fail(r, it->p, "line ends before its events"); /* the walk counted them */
			int in = event_in(r, it->body, it->body + it->len, w);
			if (in < 0 || (in && fused_event(fu, it->at, it->body, it->body + it->len)))
				return -1;
		}
	}
	return 0;
}

int xpr_walk_decode_line_in(struct host_reader *hr, struct line_job *lj, struct xp_oddities *odd,
			    const struct xpr_window *w)
{
	struct xp_line *l = lj->line;
	struct fused fu = {.hr = hr, .lj = lj, .sparse = w != NULL};
	fu.sink = (struct stat_sink){&fu.blk.stats, &fu.blk.blob, &lj->pctx->smap, lj->plane->smeta, odd, lj->pctx->drops};
	struct line_iter it = line_iter(&hr->r, lj, lj->beg, true);
	int k = 0;
	if (w && lj->chunks) {
		k = fused_chunks(&fu, &it, w);
	} else {
		while ((k = line_next(&it)) > 0) {
			int in = w ? event_in(&hr->r, it.body, it.body + it.len, w) : 1;
			if (in < 0 || (in && fused_event(&fu, it.at, it.body, it.body + it.len))) {
				k = -1;
				break;
			}
		}
	}
	/* The block being filled joins the model even after an error, so that freeing the model frees it. */
	if (l->n_blocks)
		fused_close_block(&fu, it.p);
	if (k || xpr_sink_check(&hr->r, &fu.sink))
		return -1;
	fused_shrink_line(l);
	xpr_name_line(hr, lj);
	return 0;
}

/* Line-relative times to host-relative ones, with event_finish's saturation; the order check. */
void xpr_rebase_line(struct line_job *lj)
{
	struct xp_line *l = lj->line;
	int64_t base = lj->line_base_ps, prev = INT64_MIN;
	for (uint64_t i = 0; i < l->n_events; i++) {
		bool ovf = false;
		int64_t d = xp_dur(l, i), start = sat_add(base, l->start_ps[i], &ovf);
		if (unlikely(ovf || start > INT64_MAX - d)) {
			if (start > INT64_MAX - d)
				xp_line_lower_dur(l, i, INT64_MAX - start);
			l->blocks[i >> XP_BLOCK_SHIFT].time_overflow = true;
		}
		l->start_ps[i] = start;
		l->unsorted |= start < prev;
		prev = start;
	}
}
