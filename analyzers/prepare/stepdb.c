/* stepdb.c - the step database: step events typed and clipped to step markers, overlaps resolved by priority (spec §1.2-§1.6). */
#include "group.h"
#include "formats/core/xalloc.h"
#include "formats/core/radix.h"
#include "formats/core/sort.h"

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* qsort with an empty array is undefined when the pointer is NULL. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* A typed span of one step (packed: there can be tens of millions). */
struct __attribute__((packed)) typed {
	int64_t begin, end;
	uint32_t step;
	uint8_t type;
};

struct span {
	int64_t begin, end;
	bool set;
};

struct builder {
	const struct xp_capture *c;
	const struct xp_host *h;
	const struct xp_prep_opts *o;
	uint32_t n_steps;               /* step slots (group ids or marker ordinals) */
	/* Typed spans are gathered in one pass over the events, packed (gather_span), then moved,
	 * a part at a time, into one slice per step (step_spans). */
	size_t *first;                  /* per step + 1: start of its slice */
	unsigned char *ev;              /* gathered, in line order, packed */
	size_t n_ev;                    /* spans gathered */
	size_t ev_bytes, cap_ev, faulted_ev; /* bytes held, room, room faulted in */
	struct typed last_ev;           /* the span gathered last, which the next is packed against */
	struct span_block *blocks;      /* per SPAN_BLOCK spans gathered: where they start, their steps */
	size_t n_blocks, cap_blocks;
	struct span *host_marker, *dev_marker;
	bool *on_device;
	int64_t (*xfer)[9];             /* per step: its copies' values (XP_STEP_TRANSFER on); NULL until one */
	char **names;                   /* the groups' (NULL: none); each freed once its step has a copy */
	bool *want;                     /* per step: kept (xp_prep_opts.keep_step); NULL: all */
	uint8_t **hcls, **dcls;         /* per plane: name classes of its event metadata */
	bool every_host_step;           /* trace JSON: host steps count without device work */
};

/* Name classes, decided once per event metadata instead of once per event. */
enum { HC_MARKER = 1, HC_SKIP = 2, HC_H2D = 4, HC_H2H = 8, HC_PROCESS = 16, HC_GETNEXT = 32 };
enum { DC_COMPUTE32 = 0, DC_H2D, DC_D2H, DC_D2D, DC_NCCL, DC_COMPUTE16 };

/* --- gathered spans, packed ---------------------------------------------------------------- */

/* A gathered span takes 21 bytes as it is, and a capture of small events has nearly one per event: the
 * gathering array was the largest allocation of the step database, as large as the decoded events. Packed
 * against the span before it (same step, begin a little later, a short length), it takes 6 to 8 bytes:
 * three varints: of the step's difference (zigzag) and the type, of begin's difference (zigzag), of the
 * length. Differences are taken modulo 2^64, so any pair of int64 times comes back exactly. */
enum { PACKED_MAX = 30 };       /* three varints of at most 10 bytes */

/* The packed spans come in blocks, each with the steps it holds, so that a part unpacks only the blocks
 * with spans of its steps: the steps follow time, and each line's spans come in time order. */
enum { SPAN_BLOCK = 4096 };

struct span_block {
	size_t at;              /* its first span's offset in the packed array */
	struct typed before;    /* the span gathered before it, which its first is packed against */
	uint32_t min_step, max_step;
};

static inline uint64_t zigzag(uint64_t v)
{
	return v << 1 ^ (uint64_t)-(int64_t)(v >> 63);
}

static inline uint64_t unzigzag(uint64_t v)
{
	return v >> 1 ^ (uint64_t)-(int64_t)(v & 1);
}

static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static inline const unsigned char *get_varint(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0;; shift += 7) {
		unsigned char c = *p++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80)
			break;
	}
	*v = x;
	return p;
}

/* Room for one more packed span; the room ahead is written through: its pages in one call, not a trap
 * each, but only a window of them, or the doubled room's unused half would be resident too. */
static void room_for_span(struct builder *b)
{
	if (b->ev_bytes + PACKED_MAX <= b->faulted_ev)
		return;
	if (b->ev_bytes + PACKED_MAX > b->cap_ev) {
		b->cap_ev = b->cap_ev ? b->cap_ev * 2 : (size_t)64 << 10;
		b->ev = xrealloc(b->ev, b->cap_ev);
	}
	size_t window = (size_t)2 << 20;
	b->faulted_ev = b->cap_ev - b->ev_bytes < window ? b->cap_ev : b->ev_bytes + window;
	xp_prefault(b->ev + b->ev_bytes, b->faulted_ev - b->ev_bytes);
}

/* Note span T in the block it belongs to, a new one every SPAN_BLOCK spans. */
static void block_of_span(struct builder *b, struct typed t)
{
	if (b->n_ev % SPAN_BLOCK == 0) {
		if (b->n_blocks == b->cap_blocks) {
			b->cap_blocks = b->cap_blocks ? b->cap_blocks * 2 : 64;
			b->blocks = xrealloc(b->blocks, b->cap_blocks * sizeof *b->blocks);
		}
		b->blocks[b->n_blocks++] = (struct span_block){b->ev_bytes, b->last_ev, t.step, t.step};
	}
	struct span_block *k = &b->blocks[b->n_blocks - 1];
	k->min_step = t.step < k->min_step ? t.step : k->min_step;
	k->max_step = t.step > k->max_step ? t.step : k->max_step;
}

static void gather_span(struct builder *b, struct typed t)
{
	block_of_span(b, t);
	room_for_span(b);
	unsigned char *p = b->ev + b->ev_bytes;
	uint64_t step_diff = zigzag((uint64_t)t.step - (uint64_t)b->last_ev.step);
	p = put_varint(p, step_diff << 5 | t.type);
	p = put_varint(p, zigzag((uint64_t)t.begin - (uint64_t)b->last_ev.begin));
	p = put_varint(p, (uint64_t)t.end - (uint64_t)t.begin);
	b->ev_bytes = (size_t)(p - b->ev);
	b->last_ev = t;
	b->n_ev++;
}

/* The span packed at P after LAST (updated to it); where the next one starts. */
static const unsigned char *unpack_span(const unsigned char *p, struct typed *last)
{
	uint64_t head, begin, len;
	p = get_varint(p, &head);
	p = get_varint(p, &begin);
	p = get_varint(p, &len);
	last->step = (uint32_t)((uint64_t)last->step + unzigzag(head >> 5));
	last->type = (uint8_t)(head & 31);
	last->begin = (int64_t)((uint64_t)last->begin + unzigzag(begin));
	last->end = (int64_t)((uint64_t)last->begin + len);
	return p;
}

_Static_assert(XP_N_EVENT_TYPES <= 32, "a span's type fits 5 bits of its packed head");

static void push_typed(struct builder *b, uint32_t step, enum xp_event_type t, int64_t begin, int64_t end)
{
	if (b->want && !b->want[step])
		return; /* a step left out: its spans are never swept */
	gather_span(b, (struct typed){begin, end, step, (uint8_t)t});
	b->first[step + 1]++;
}

/* After the pass: slice offsets from the counts; the spans stay where they were gathered, in line order,
 * until step_spans moves them into per-step slices a part at a time. */
static void group_by_step(struct builder *b)
{
	/* The gathering array is up to twice what it holds: give the rest back. */
	b->ev = xrealloc(b->ev, b->ev_bytes + 1);
	b->cap_ev = b->faulted_ev = b->ev_bytes;
	for (uint32_t s = 0; s < b->n_steps; s++)
		b->first[s + 1] += b->first[s];
}

/* One thread's share of the sweep (finish_steps): steps [lo, hi), a part of their spans at a time, and what it
 * adds to the database. */
struct finisher {
	struct builder *b;
	uint32_t lo, hi;
	size_t part_spans;              /* a part holds this many spans or more */
	struct typed *part;             /* steps [part_lo, part_hi)'s spans, in slices (step_spans) */
	uint32_t part_lo, part_hi;
	bool has_device, keep_all;
	struct xp_step *steps;          /* the steps made, in order */
	uint32_t n;
	uint64_t dropped;
	int64_t compute16_ps, compute32_ps;
};

/* The next part's slices, steps LO on: a stable counting sort of its spans out of the gathered ones, each
 * line's in time order, so the writes run through the slices as a few sequential streams. Parts in flight hold
 * an eighth of the spans or more together: a copy of them all, unpacked, would be three times the packed array;
 * and a part unpacks only the blocks that hold its steps. */
static void next_part(struct finisher *f, uint32_t lo)
{
	const struct builder *b = f->b;
	uint32_t hi = lo + 1;
	while (hi < f->hi && b->first[hi + 1] - b->first[lo] <= f->part_spans)
		hi++;
	free(f->part);
	size_t base = b->first[lo], n = b->first[hi] - base;
	f->part = xmalloc(n * sizeof *f->part + 1);
	xp_prefault(f->part, n * sizeof *f->part);  /* written whole: its pages in one call, not a trap each */
	size_t *next = xmalloc((size_t)(hi - lo) * sizeof *next);
	for (uint32_t s = lo; s < hi; s++)
		next[s - lo] = b->first[s] - base;
	for (size_t k = 0; k < b->n_blocks; k++) {
		const struct span_block *blk = &b->blocks[k];
		if (blk->max_step < lo || blk->min_step >= hi)
			continue;
		struct typed t = blk->before;
		size_t in_block = k + 1 < b->n_blocks ? SPAN_BLOCK : b->n_ev - k * SPAN_BLOCK;
		const unsigned char *p = b->ev + blk->at;
		for (size_t i = 0; i < in_block; i++) {
			p = unpack_span(p, &t);
			if (t.step >= lo && t.step < hi)
				f->part[next[t.step - lo]++] = t;
		}
	}
	free(next);
	f->part_lo = lo;
	f->part_hi = hi;
}

/* Step S's spans, contiguous; a finisher asks for its steps in ascending order. */
static const struct typed *step_spans(struct finisher *f, uint32_t s)
{
	if (!f->part || s >= f->part_hi)
		next_part(f, s);
	return f->part + (f->b->first[s] - f->b->first[f->part_lo]);
}

static void longest(struct span *s, int64_t begin, int64_t end)
{
	if (!s->set || end - begin > s->end - s->begin) {
		s->begin = begin;
		s->end = end;
		s->set = true;
	}
}

/* --- per-plane stat lookups ------------------------------------------------ */

struct plane_ids {
	uint32_t corr, shape, memcpy_details, group_id, step_name, ipl_stage_name, pt, p, ct, c;
};

static struct plane_ids plane_ids(const struct xp_capture *c, const struct xp_plane *p)
{
	struct plane_ids s = {
		xp_plane_stat_id(c, p, "correlation_id"), xp_plane_stat_id(c, p, "shape"),
		xp_plane_stat_id(c, p, "memcpy_details"), xp_plane_stat_id(c, p, "group_id"),
		xp_plane_stat_id(c, p, "step_name"), xp_plane_stat_id(c, p, "_ipl_stage_name"),
		xp_plane_stat_id(c, p, "_pt"), xp_plane_stat_id(c, p, "_p"), xp_plane_stat_id(c, p, "_ct"),
		xp_plane_stat_id(c, p, "_c"),
	};
	return s;
}

static bool has_stat(struct xp_stat_view v, uint32_t sid)
{
	if (!sid)
		return false;
	for (uint32_t k = 0; k < v.n; k++)
		if (xp_stat_meta(v.keys[k]) == sid && xp_stat_kind(v.keys[k]) != XP_STAT_NONE)
			return true;
	return false;
}

static bool starts_ci(const char *s, const char *pre)
{
	for (; *pre; s++, pre++)
		if (!*s || ((*s | 0x20) != (*pre | 0x20)))
			return false;
	return true;
}

/* --- device events (spec §1.2) ------------------------------------------------ */

static uint8_t device_class(const char *name, size_t len, bool xprof_compat)
{
	switch (xp_memcpy_kind(name, len, xprof_compat)) {
	case XP_OP_MEMCPY_H2D: return DC_H2D;
	case XP_OP_MEMCPY_D2H: return DC_D2H;
	case XP_OP_MEMCPY_D2D: return DC_D2D;
	default: break;
	}
	if (starts_ci(name, "nccl"))
		return DC_NCCL;
	return strstr(name, "half") || strstr(name, "fp16") ? DC_COMPUTE16 : DC_COMPUTE32;
}

static enum xp_event_type device_type(const struct builder *b, uint32_t plane, const struct xp_line *l,
				      uint64_t i, const struct plane_ids *ids, enum xp_op_cat *memcpy_kind)
{
	uint8_t dc = b->dcls[plane][xp_meta_of(l, i)];
	*memcpy_kind = XP_OP_UNKNOWN;
	switch (dc) {
	case DC_H2D: *memcpy_kind = XP_OP_MEMCPY_H2D; return XP_ET_HOST_TO_DEVICE;
	case DC_D2H: *memcpy_kind = XP_OP_MEMCPY_D2H; return XP_ET_DEVICE_TO_HOST;
	case DC_D2D: *memcpy_kind = XP_OP_MEMCPY_D2D; return XP_ET_DEVICE_TO_DEVICE;
	case DC_NCCL: return XP_ET_DEVICE_COLLECTIVES;
	default: break;
	}
	struct xp_value shape;
	if (ids->shape && xp_view_find(b->c, xp_event_stats(l, i), ids->shape, &shape) && shape.len &&
	    (shape.kind == XP_STAT_STR || shape.kind == XP_STAT_BLOBSTR))
		return memmem(shape.s, shape.len, "half", 4) ? XP_ET_DEVICE_COMPUTE_16 : XP_ET_DEVICE_COMPUTE_32;
	return dc == DC_COMPUTE16 ? XP_ET_DEVICE_COMPUTE_16 : XP_ET_DEVICE_COMPUTE_32;
}

static void record_transfer(struct builder *b, uint32_t step, enum xp_op_cat kind, const struct xp_plane *p,
			    const struct xp_line *l, uint64_t i, const struct plane_ids *ids)
{
	int k = kind == XP_OP_MEMCPY_H2D ? 0 : kind == XP_OP_MEMCPY_D2H ? 1 : 2;
	struct xp_value v;
	if (!b->xfer)   /* many captures copy nothing: no room for every step until one does */
		b->xfer = xcalloc(b->n_steps, sizeof *b->xfer);
	int64_t *x = &b->xfer[step][3 * k];
	x[XP_XFER_COUNT]++;
	x[XP_XFER_PS] += xp_dur(l, i);
	if (xp_event_find(b->c, p, l, i, ids->memcpy_details, &v) && (v.kind == XP_STAT_STR || v.kind == XP_STAT_BLOBSTR))
		x[XP_XFER_BYTES] = (int64_t)((uint64_t)x[XP_XFER_BYTES] + xp_memcpy_bytes(v.s, v.len));
}

/* Step S's copies into its values V. */
static void step_transfers(const struct builder *b, uint32_t s, int64_t v[XP_STEP_N_VALUES])
{
	if (b->xfer)
		memcpy(v + XP_STEP_TRANSFER, b->xfer[s], sizeof b->xfer[s]);
}

/* Markers of one GPU plane: its Steps line if the capture has one, else runs
 * of equal group ids in time order (spec §0.3 (b)). */
static void plane_markers(struct builder *b, const struct xp_group_out *g, uint32_t plane, struct span *m)
{
	const struct xp_plane *p = &b->h->planes[plane];
	struct plane_ids ids = plane_ids(b->c, p);
	bool steps_line = false;
	for (uint32_t k = 0; k < p->n_lines; k++) {
		const struct xp_line *l = &p->lines[k];
		if (!l->derived || strcmp(xp_str(b->c, l->name), "Steps"))
			continue;
		steps_line = true;
		for (uint64_t i = 0; i < l->n_events; i++) {
			struct xp_value v;
			int64_t gid;
			if (xp_event_find(b->c, p, l, i, ids.group_id, &v) && xp_value_int(&v, &gid) && gid >= 0 &&
			    (uint64_t)gid < b->n_steps)
				longest(&m[gid], l->start_ps[i], xp_event_end(l, i));
		}
	}
	if (steps_line)
		return;
	struct xp_time_merge tm;
	xp_time_merge_init(&tm, b->h, plane, g->flines, g->n_flines);
	uint32_t fl;
	uint64_t i;
	int32_t cur = -1;
	int64_t begin = 0, end = 0;
	while (xp_time_merge_next(&tm, &fl, &i)) {
		uint32_t line, base;
		xp_group_fline_plane(g, fl, &line, &base);
		const struct xp_line *l = &p->lines[line];
		int32_t gid = g->gid[base + i];
		if (gid != cur) {
			if (cur >= 0)
				longest(&m[cur], begin, end);
			cur = gid;
			begin = l->start_ps[i];
			end = xp_event_end(l, i);
		} else if (xp_event_end(l, i) > end) {
			end = xp_event_end(l, i);
		}
	}
	if (cur >= 0)
		longest(&m[cur], begin, end);
	xp_time_merge_free(&tm);
}

static void device_plane_events(struct builder *b, const struct xp_group_out *g, uint32_t plane)
{
	const struct xp_plane *p = &b->h->planes[plane];
	struct plane_ids ids = plane_ids(b->c, p);
	struct span *m = xcalloc(b->n_steps, sizeof *m);
	plane_markers(b, g, plane, m);
	for (uint32_t k = 0; k < g->n_flines; k++) {
		uint32_t line, base;
		if (xp_group_fline_plane(g, k, &line, &base) != plane)
			continue;
		const struct xp_line *l = &p->lines[line];
		for (uint64_t i = 0; i < l->n_events; i++) {
			int32_t gid = g->gid[base + i];
			/* only events with both correlation_id and group_id count (spec §7 item 10) */
			if (gid < 0 || !m[gid].set || (b->want && !b->want[gid]) || !has_stat(xp_event_stats(l, i), ids.corr))
				continue;
			enum xp_op_cat kind;
			enum xp_event_type t = device_type(b, plane, l, i, &ids, &kind);
			push_typed(b, (uint32_t)gid, t, l->start_ps[i], xp_event_end(l, i));
			if (kind != XP_OP_UNKNOWN)
				record_transfer(b, (uint32_t)gid, kind, p, l, i, &ids);
		}
	}
	for (uint32_t s = 0; s < b->n_steps; s++)
		if (m[s].set) {
			longest(&b->dev_marker[s], m[s].begin, m[s].end);
			b->on_device[s] = true;
		}
	free(m);
}

/* --- host events (spec §1.3, DESIGN §8) ------------------------------------------- */

static bool explicit_marker(const char *name)
{
	return (!strncmp(name, "train", 5) || !strncmp(name, "test", 4) || !strncmp(name, "TraceContext", 12)) &&
	       !strchr(name, '/');
}

static bool not_real_compute(const char *name)
{
	return !strncmp(name, "EagerExecute", 12) || !strncmp(name, "EagerLocalExecute", 17) ||
	       !strncmp(name, "EagerKernelExecute", 18) || !strncmp(name, "FunctionRun", 11);
}

static uint8_t host_class(const char *name, size_t len)
{
	uint8_t c = 0;
	struct xp_tfop op;
	if (explicit_marker(name))
		c |= HC_MARKER;
	if (not_real_compute(name))
		c |= HC_SKIP;
	xp_parse_tf_op(name, len, &op);
	if ((op.cat == XP_OP_TF && op.type_len >= 13 && !memcmp(op.type, "InfeedEnqueue", 13)) ||
	    op.cat == XP_OP_MEMCPY_H2D)
		c |= HC_H2D;
	if (op.cat == XP_OP_MEMCPY_H2H)
		c |= HC_H2H;
	if (starts_ci(name, "ExecutorState::Process"))
		c |= HC_PROCESS;
	if (starts_ci(name, "IteratorGetNext"))
		c |= HC_GETNEXT;
	return c;
}

static enum xp_event_type host_type(uint8_t cls, struct xp_stat_view v, const struct plane_ids *ids,
				    bool has_device, bool root_stage)
{
	if (cls & HC_H2D)
		return XP_ET_HOST_TO_DEVICE;
	if (cls & HC_H2H)
		return XP_ET_HOST_TO_HOST;
	if (has_device && ((cls & HC_PROCESS) || has_stat(v, ids->corr)))
		return XP_ET_HOST_PREPARE;
	if ((cls & HC_GETNEXT) || root_stage)
		return XP_ET_HOST_WAIT_INPUT;
	return XP_ET_HOST_COMPUTE;
}

/* Input-pipeline stages: root stages count as input (spec §1.3). The
 * producer-context half of "descendant" is approximated by nesting only. */
static bool is_stage(const struct builder *b, struct xp_stat_view v, const struct plane_ids *ids)
{
	struct xp_value s;
	return xp_view_find(b->c, v, ids->ipl_stage_name, &s) && s.len > 0;
}

/* Spans already pushed on one line, innermost last. An event inside a span
 * of the same step whose type (or an enclosing one) ranks at least as high
 * cannot change the priority sweep, so it is left out: nested host events
 * are most of a capture's events. */
struct cover_entry {
	int64_t begin, end;
	int32_t gid;
	uint8_t max_type;   /* highest type of this span and the ones enclosing it */
};

struct cover {
	struct cover_entry *v;
	size_t n, cap;
};

static bool covered(struct cover *c, int32_t gid, enum xp_event_type t, int64_t b, int64_t e)
{
	while (c->n && !(c->v[c->n - 1].begin <= b && e <= c->v[c->n - 1].end))
		c->n--;
	uint8_t enclosing = 0;
	if (c->n && c->v[c->n - 1].gid == gid) {
		enclosing = c->v[c->n - 1].max_type;
		if (enclosing >= t)
			return true;
	} else if (c->n) {
		c->n = 0; /* another step: start over */
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n++] = (struct cover_entry){b, e, gid, (uint8_t)(t > enclosing ? t : enclosing)};
	return false;
}

static void host_line_events(struct builder *b, const struct xp_group_out *g, uint32_t fl, bool has_device)
{
	uint32_t line, base;
	uint32_t plane = xp_group_fline_plane(g, fl, &line, &base);
	const struct xp_plane *p = &b->h->planes[plane];
	const struct xp_line *l = &p->lines[line];
	const uint32_t *order = xp_group_fline_order(g, fl);
	struct plane_ids ids = plane_ids(b->c, p);
	int64_t stage_end = INT64_MIN; /* end of the enclosing root stage on this line */
	struct cover cov = {0};
	for (uint64_t k = 0; k < l->n_events; k++) {
		uint64_t i = order ? order[k] : k;
		int32_t gid = g->gid[base + i];
		struct xp_stat_view v = xp_event_stats(l, i);
		bool inside_stage = l->start_ps[i] < stage_end;
		bool root_stage = false;
		if (!inside_stage && ids.ipl_stage_name && is_stage(b, v, &ids)) {
			root_stage = true;
			stage_end = xp_event_end(l, i);
		}
		if (gid < 0 || (uint32_t)gid >= b->n_steps || (has_device && !b->on_device[gid] && !b->every_host_step))
			continue;
		uint8_t cls = b->hcls[plane][xp_meta_of(l, i)];
		int64_t s = l->start_ps[i], e = xp_event_end(l, i);
		if ((cls & HC_MARKER) || has_stat(v, ids.step_name) || xp_group_named_root(g, base + (uint32_t)i)) {
			longest(&b->host_marker[gid], s, e);
			continue;
		}
		if (cls & HC_SKIP)
			continue;
		enum xp_event_type t = host_type(cls, v, &ids, has_device, root_stage);
		if (!covered(&cov, gid, t, s, e))
			push_typed(b, (uint32_t)gid, t, s, e);
	}
	free(cov.v);
}

/* --- overlap resolution and the per-step breakdown (spec §1.4) ---------------- */

struct boundary {
	int64_t t;
	uint8_t type;
	uint8_t is_start;
};

static inline bool bd_less(const struct boundary *a, const struct boundary *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->is_start != b->is_start)
		return !a->is_start; /* ends first */
	return a->type > b->type;    /* higher priority first */
}

XP_DEFINE_SORT(sort_boundaries, struct boundary, bd_less)

/* What a sweep adds up for one step: the counts of open spans by type, and the sums it gives back. */
struct sweep_sums {
	int32_t count[XP_N_EVENT_TYPES];
	uint32_t open;          /* bit t: count[t] > 0 */
	int64_t sb, se;
	int64_t *type_ps, *c16, *c32;
	bool *present;
};

/* The boundary of a span of TYPE at A (a start when IS_START), then the segment [A, B) up to the next boundary:
 * given to the open type of the highest priority. Signed counts: a zero-length event's end sorts before its
 * start, so its count dips to -1 and comes back to 0. */
static void sweep_segment(struct sweep_sums *z, unsigned type, bool is_start, int64_t a, int64_t b)
{
	z->count[type] += is_start ? 1 : -1;
	uint32_t bit = (uint32_t)1 << type;
	z->open = z->count[type] > 0 ? z->open | bit : z->open & ~bit;
	int cur = z->open ? 31 - __builtin_clz(z->open) : 0;   /* the open type of the highest priority */
	z->present[cur] = true;
	if (cur == XP_ET_DEVICE_COMPUTE_16)
		*z->c16 += b - a;
	else if (cur == XP_ET_DEVICE_COMPUTE_32)
		*z->c32 += b - a;
	int64_t lo = a > z->sb ? a : z->sb, hi = b < z->se ? b : z->se;
	if (hi > lo)
		z->type_ps[cur] += hi - lo;
}

/* Boundaries packed in one key in bd_less's order: time from the first, then ends before starts, then the higher
 * priority first. They fit when the step's spans cover less than 2^58 ps (three days). */
enum { KEY_TYPE_BITS = 5, KEY_SHIFT = KEY_TYPE_BITS + 1, FEW_SPANS = 32 };
_Static_assert(XP_N_EVENT_TYPES <= 1 << KEY_TYPE_BITS, "event types fit the boundary key");

static uint64_t boundary_key(int64_t t, int64_t t0, unsigned type, bool is_start)
{
	return ((uint64_t)t - (uint64_t)t0) << KEY_SHIFT | (uint64_t)is_start << KEY_TYPE_BITS |
	       ((1u << KEY_TYPE_BITS) - 1 - type);
}

/* Sweep with packed keys, sorted by insertion when they are few, else as merged runs (each line's spans come in
 * time order) or by radix; false when the times span too much for a key. */
static bool sweep_keys(const struct typed *ev, size_t n, struct sweep_sums *z)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		t0 = ev[i].begin < t0 ? ev[i].begin : t0;
		t1 = ev[i].end > t1 ? ev[i].end : t1;
		t0 = ev[i].end < t0 ? ev[i].end : t0;
		t1 = ev[i].begin > t1 ? ev[i].begin : t1;
	}
	uint64_t span = (uint64_t)t1 - (uint64_t)t0;
	if (!n || span >> (64 - KEY_SHIFT))
		return n == 0;
	unsigned bits = KEY_SHIFT;
	while (bits < 64 && span >> (bits - KEY_SHIFT))
		bits++;
	/* Most steps have a few spans: their keys (and the sort's room) on the stack, not a malloc a step. */
	uint64_t few[4 * FEW_SPANS];
	uint64_t *key = n <= FEW_SPANS ? few : xmalloc(4 * n * sizeof *key);
	for (size_t i = 0; i < n; i++) {
		key[2 * i] = boundary_key(ev[i].begin, t0, ev[i].type, true);
		key[2 * i + 1] = boundary_key(ev[i].end, t0, ev[i].type, false);
	}
	xp_sort_u64(key, 2 * n, key + 2 * n, bits);
	const unsigned type_mask = (1u << KEY_TYPE_BITS) - 1;
	for (size_t i = 0; i + 1 < 2 * n; i++)
		sweep_segment(z, type_mask - (unsigned)(key[i] & type_mask), key[i] >> KEY_TYPE_BITS & 1,
			      t0 + (int64_t)(key[i] >> KEY_SHIFT), t0 + (int64_t)(key[i + 1] >> KEY_SHIFT));
	if (key != few)
		free(key);
	return true;
}

/* Sweep the typed spans of one step into non-overlapping segments; add each segment's overlap with [sb, se)
 * to type_ps and the whole segment to the 16- and 32-bit compute sums. Packed keys when they fit, else the
 * boundaries themselves sorted (a step whose events lie days apart). */
static void sweep(const struct typed *ev, size_t n, int64_t sb, int64_t se, int64_t type_ps[XP_N_EVENT_TYPES],
		  bool present[XP_N_EVENT_TYPES], int64_t *c16, int64_t *c32)
{
	struct sweep_sums z = {.sb = sb, .se = se, .type_ps = type_ps, .c16 = c16, .c32 = c32, .present = present};
	if (sweep_keys(ev, n, &z))
		return;
	struct boundary *bd = xmalloc(2 * n * sizeof *bd);
	for (size_t i = 0; i < n; i++) {
		bd[2 * i] = (struct boundary){ev[i].begin, ev[i].type, 1};
		bd[2 * i + 1] = (struct boundary){ev[i].end, ev[i].type, 0};
	}
	sort_boundaries(bd, 2 * n);
	for (size_t i = 0; i + 1 < 2 * n; i++)
		sweep_segment(&z, bd[i].type, bd[i].is_start, bd[i].t, bd[i + 1].t);
	free(bd);
}

/* Step S's name: its group's, else its number (in BUF, 32 bytes). */
static const char *step_name_in(const struct builder *b, uint32_t s, char *buf)
{
	if (b->names && b->names[s])
		return b->names[s];
	snprintf(buf, 32, "%u", s);
	return buf;
}

/* The steps O keeps, by slot, when it chooses (else every step is made). */
static void choose_steps(struct builder *b, const struct xp_prep_opts *o)
{
	if (!o->keep_step)
		return;
	b->want = xcalloc(b->n_steps ? b->n_steps : 1, sizeof *b->want);
	for (uint32_t s = 0; s < b->n_steps; s++) {
		char buf[32];
		b->want[s] = o->keep_step(s, step_name_in(b, s, buf), o->keep_arg);
	}
}

/* Step S into F's steps, unless it is none (no marker, or not well formed without KEEP_ALL). */
static void finish_step(struct finisher *f, uint32_t s)
{
	struct builder *b = f->b;
	size_t first = b->first[s], e = b->first[s + 1];
	if (b->want && !b->want[s])
		return;
	const struct span *hm = &b->host_marker[s], *dm = &b->dev_marker[s];
	struct span st = *dm;
	if (!dm->set || (hm->set && hm->begin <= dm->begin && dm->end <= hm->end))
		st = *hm;
	if (!st.set)
		return;
	struct xp_step *out = &f->steps[f->n];
	memset(out, 0, sizeof *out);
	bool present[XP_N_EVENT_TYPES] = {0};
	int64_t v[XP_STEP_N_VALUES] = {0};
	int64_t *type_ps = v + XP_STEP_TYPE;
	sweep(step_spans(f, s), e - first, st.begin, st.end, type_ps, present, &f->compute16_ps, &f->compute32_ps);
	bool well_formed = f->has_device ? (present[XP_ET_DEVICE_COMPUTE_16] || present[XP_ET_DEVICE_COMPUTE_32])
					 : present[XP_ET_HOST_COMPUTE];
	if ((!well_formed && !f->keep_all) || st.end < st.begin || (st.end == st.begin && !f->keep_all)) {
		f->dropped++;
		return;
	}
	out->id = s;
	out->begin_ps = st.begin;
	out->duration_ps = st.end - st.begin;
	int64_t sum = 0;
	for (int t = 0; t < XP_N_EVENT_TYPES; t++)
		sum += type_ps[t];
	if (sum < out->duration_ps)
		type_ps[XP_ET_UNKNOWN] += out->duration_ps - sum;
	step_transfers(b, s, v);
	char buf[32];
	xp_step_set(out, v, step_name_in(b, s, buf));
	if (b->names) {         /* not held twice at the peak: a capture can have millions */
		free(b->names[s]);
		b->names[s] = NULL;
	}
	f->n++;
}

static void *finish_range(void *arg)
{
	struct finisher *f = arg;
	f->steps = xcalloc((size_t)(f->hi - f->lo) + 1, sizeof *f->steps);
	for (uint32_t s = f->lo; s < f->hi; s++)
		finish_step(f, s);
	free(f->part);
	f->part = NULL;
	return NULL;
}

/* A part's least spans (of both threads' parts in flight together); below that, one thread sweeps every step. */
#define PART_MIN_SPANS ((size_t)1 << 18)

/* The steps swept, on two threads when the options allow and the spans are many: each sweeps the steps of
 * half the spans, a part at a time (parts half the size, so that both in flight hold what one did), and the
 * first's steps come first. Sums are of integers: the same whatever the split.
 * keep_all: --step-marker steps are steps by definition (DESIGN §8), with or without compute inside. */
static void finish_steps(struct builder *b, struct xp_step_db *db, bool has_device, bool keep_all)
{
	int n = b->o && b->o->threads > 1 && b->n_ev >= PART_MIN_SPANS && b->n_steps > 1 ? 2 : 1;
	size_t part = b->n_ev / 8 > PART_MIN_SPANS ? b->n_ev / 8 / (size_t)n : PART_MIN_SPANS / (size_t)n;
	struct finisher f[2];
	uint32_t mid = b->n_steps;
	if (n == 2) {   /* the first step whose spans start past half of them */
		uint32_t lo = 1, hi = b->n_steps - 1;
		while (lo < hi) {
			uint32_t m = lo + (hi - lo) / 2;
			if (b->first[m] < b->n_ev / 2)
				lo = m + 1;
			else
				hi = m;
		}
		mid = lo;
	}
	for (int k = 0; k < n; k++)
		f[k] = (struct finisher){.b = b, .lo = k ? mid : 0, .hi = k + 1 < n ? mid : b->n_steps, .part_spans = part,
					 .has_device = has_device, .keep_all = keep_all};
	pthread_t tid;
	bool helper = n == 2 && !pthread_create(&tid, NULL, finish_range, &f[1]);
	finish_range(&f[0]);
	if (n == 2 && helper)
		pthread_join(tid, NULL);
	else if (n == 2)
		finish_range(&f[1]);
	free(b->ev);
	b->ev = NULL;
	free(b->blocks);
	b->blocks = NULL;
	/* The first's array, cut down to both (room was made for every group; many are no step). */
	size_t total = (size_t)f[0].n + (n == 2 ? f[1].n : 0);
	db->steps = xrealloc(f[0].steps, (total ? total : 1) * sizeof *db->steps);
	if (n == 2)
		memcpy(db->steps + f[0].n, f[1].steps, f[1].n * sizeof *db->steps);
	db->n = total;
	for (int k = 0; k < n; k++) {
		db->n_dropped += f[k].dropped;
		db->compute16_ps += f[k].compute16_ps;
		db->compute32_ps += f[k].compute32_ps;
	}
	if (n == 2)
		free(f[1].steps);
}

static void builder_init(struct builder *b, const struct xp_capture *c, const struct xp_host *h,
			 const struct xp_prep_opts *o, uint32_t n_steps, char **names)
{
	memset(b, 0, sizeof *b);
	b->c = c;
	b->h = h;
	b->o = o;
	b->n_steps = n_steps;
	b->names = names;
	b->first = xcalloc((size_t)n_steps + 1, sizeof *b->first);
	b->hcls = xcalloc(h->n_planes, sizeof *b->hcls);
	b->dcls = xcalloc(h->n_planes, sizeof *b->dcls);
	for (uint32_t p = 0; p < h->n_planes; p++) {
		const struct xp_plane *pl = &h->planes[p];
		b->hcls[p] = xcalloc(pl->n_emeta, 1);
		b->dcls[p] = xcalloc(pl->n_emeta, 1);
		for (uint32_t m = 0; m < pl->n_emeta; m++) {
			const char *name = xp_str(c, pl->emeta[m].name);
			size_t len = xp_strlen(c, pl->emeta[m].name);
			b->hcls[p][m] = host_class(name, len);
			b->dcls[p][m] = device_class(name, len, o->xprof_compat);
		}
	}
	b->host_marker = xcalloc(n_steps, sizeof *b->host_marker);
	b->dev_marker = xcalloc(n_steps, sizeof *b->dev_marker);
	b->on_device = xcalloc(n_steps, sizeof *b->on_device);
}

static void builder_free(struct builder *b)
{
	for (uint32_t p = 0; p < b->h->n_planes; p++) {
		free(b->hcls[p]);
		free(b->dcls[p]);
	}
	free(b->hcls);
	free(b->dcls);
	free(b->ev);
	free(b->blocks);
	free(b->first);
	free(b->host_marker);
	free(b->dev_marker);
	free(b->on_device);
	free(b->xfer);
	free(b->want);
}

void xp_drop_group_names(struct xp_prep_host *ph)
{
	for (uint32_t g = 0; ph->group_names && g < ph->n_groups; g++)
		free(ph->group_names[g]);
	free(ph->group_names);
	ph->group_names = NULL;
}

static bool plane_has_events(const struct xp_plane *p)
{
	for (uint32_t k = 0; k < p->n_lines; k++)
		if (p->lines[k].n_events && !p->lines[k].derived)
			return true;
	return false;
}

static void detect_devices(const struct xp_host *h, struct xp_step_db *db)
{
	for (uint32_t p = 0; p < h->n_planes; p++) {
		db->tpu |= h->planes[p].kind == XP_PLANE_TPU;
		db->has_device |= h->planes[p].kind == XP_PLANE_GPU && plane_has_events(&h->planes[p]);
	}
}

static void collect_grouped(struct builder *b, const struct xp_group_out *g, bool has_device)
{
	const struct xp_host *h = b->h;
	for (uint32_t p = 0; p < h->n_planes; p++)
		if (h->planes[p].kind == XP_PLANE_GPU && has_device)
			device_plane_events(b, g, p);
	bool host_events = !has_device || !b->o->xprof_compat;
	for (uint32_t k = 0; host_events && k < g->n_flines; k++) {
		uint32_t line, base;
		if (h->planes[xp_group_fline_plane(g, k, &line, &base)].kind == XP_PLANE_HOST_CPU)
			host_line_events(b, g, k, has_device);
	}
}

void xp_stepdb_from_groups(const struct xp_capture *c, struct xp_prep_host *ph, const struct xp_prep_opts *o,
			   const struct xp_group_out *g)
{
	struct xp_step_db *db = &ph->steps;
	detect_devices(ph->host, db);
	db->source = g->source;
	db->grouping_skipped_loops = g->loop_ops;
	if (db->tpu || !ph->n_groups || o->groups_only)
		return;
	struct builder b;
	/* Current xprof names GPU steps from the device Steps line, which only
	 * pre-grouped captures carry; otherwise the step number is the name. */
	bool device_names_only = o->xprof_compat && db->has_device && g->source != XP_STEPS_PREGROUPED;
	builder_init(&b, c, ph->host, o, ph->n_groups, device_names_only ? NULL : ph->group_names);
	b.every_host_step = ph->host->format == XP_FMT_TRACE_JSON;
	choose_steps(&b, o);
	collect_grouped(&b, g, db->has_device);
	group_by_step(&b);

	/* PyTorch traces: one step per ProfilerStep#N (DESIGN §8), also one
	 * that ran no device work (a warm-up step, say). */
	finish_steps(&b, db, db->has_device, ph->host->format == XP_FMT_TRACE_JSON);
	builder_free(&b);
	xp_drop_group_names(ph);  /* the steps have their names */
}

/* --- --step-marker: every matching host event is one step ------------------------ */

struct marker {
	int64_t begin, end;
	uint32_t fline;
	uint64_t event;
};

static int cmp_marker(const void *x, const void *y)
{
	const struct marker *a = x, *b = y;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1; /* the enclosing one first */
	if (a->fline != b->fline)
		return a->fline < b->fline ? -1 : 1;
	return (a->event > b->event) - (a->event < b->event);
}

static struct marker *find_markers(const struct xp_capture *c, const struct xp_host *h, const struct xp_group_out *g,
				   regex_t *re, size_t *n)
{
	struct marker *m = NULL;
	size_t cap = 0;
	*n = 0;
	for (uint32_t k = 0; k < g->n_flines; k++) {
		uint32_t line, base;
		const struct xp_plane *p = &h->planes[xp_group_fline_plane(g, k, &line, &base)];
		if (p->kind != XP_PLANE_HOST_CPU)
			continue;
		const struct xp_line *l = &p->lines[line];
		/* Match each metadata name once, not each event. */
		int8_t *hit = xcalloc(p->n_emeta, 1);
		for (uint32_t e = 1; e < p->n_emeta; e++)
			hit[e] = regexec(re, xp_str(c, p->emeta[e].name), 0, NULL, 0) == 0;
		for (uint64_t i = 0; i < l->n_events; i++) {
			if (!hit[xp_meta_of(l, i)])
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				m = xrealloc(m, cap * sizeof *m);
			}
			m[(*n)++] = (struct marker){l->start_ps[i], xp_event_end(l, i), k, i};
		}
		free(hit);
	}
	sort(m, *n, sizeof *m, cmp_marker);
	/* A match inside another match (PjitFunction(train_step) holding
	 * jit_train_step, say) is part of that step, not a step of its own. */
	size_t kept = 0;
	int64_t reach = INT64_MIN;
	for (size_t i = 0; i < *n; i++) {
		if (kept && m[i].end <= reach)
			continue;
		if (m[i].end > reach)
			reach = m[i].end;
		m[kept++] = m[i];
	}
	*n = kept;
	return m;
}

/* The step whose span holds t: the last marker starting at or before t. */
static int64_t step_at(const struct marker *m, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m[mid].begin <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t >= m[lo - 1].end)
		return -1;
	return (int64_t)(lo - 1);
}

static void marker_events(struct builder *b, const struct xp_group_out *g, const struct marker *m, size_t n,
			  bool has_device)
{
	for (uint32_t k = 0; k < g->n_flines; k++) {
		uint32_t line, base;
		const struct xp_plane *p = &b->h->planes[xp_group_fline_plane(g, k, &line, &base)];
		const struct xp_line *l = &p->lines[line];
		struct plane_ids ids = plane_ids(b->c, p);
		bool host = p->kind == XP_PLANE_HOST_CPU;
		if (!host && p->kind != XP_PLANE_GPU)
			continue;
		if (host && has_device && b->o->xprof_compat)
			continue;
		for (uint64_t i = 0; i < l->n_events; i++) {
			int64_t s = step_at(m, n, l->start_ps[i]);
			if (s < 0 || (m[s].fline == k && m[s].event == i))
				continue;
			enum xp_event_type t;
			uint32_t plane = (uint32_t)(p - b->h->planes);
			if (host) {
				uint8_t cls = b->hcls[plane][xp_meta_of(l, i)];
				if (cls & HC_SKIP)
					continue;
				t = host_type(cls, xp_event_stats(l, i), &ids, has_device, false);
			} else {
				enum xp_op_cat kind;
				t = device_type(b, plane, l, i, &ids, &kind);
				if (kind != XP_OP_UNKNOWN)
					record_transfer(b, (uint32_t)s, kind, p, l, i, &ids);
			}
			push_typed(b, (uint32_t)s, t, l->start_ps[i], xp_event_end(l, i));
		}
	}
}

int xp_stepdb_from_marker(const struct xp_capture *c, struct xp_prep_host *ph, const struct xp_prep_opts *o,
			  const struct xp_group_out *g, struct xp_err *e)
{
	struct xp_step_db *db = &ph->steps;
	regex_t re;
	int rc = regcomp(&re, o->step_marker, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char buf[256];
		regerror(rc, &re, buf, sizeof buf);
		return xp_err_set(e, XP_EXIT_USAGE, NULL, "--step-marker '%s': %s", o->step_marker, buf);
	}
	detect_devices(ph->host, db);
	db->source = XP_STEPS_MARKER_REGEX;
	size_t n;
	struct marker *m = find_markers(c, ph->host, g, &re, &n);
	regfree(&re);
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	char **names = xcalloc(n + 1, sizeof *names);
	for (size_t s = 0; s < n; s++) {
		uint32_t line, base;
		const struct xp_plane *p = &ph->host->planes[xp_group_fline_plane(g, m[s].fline, &line, &base)];
		const char *nm = xp_str(c, xp_event_name(p, &p->lines[line], m[s].event));
		names[s] = xmalloc(strlen(nm) + 24);
		sprintf(names[s], "%s %zu", nm, s);
	}
	ph->n_groups = (uint32_t)n;
	ph->group_names = names;
	struct builder b;
	builder_init(&b, c, ph->host, o, (uint32_t)n, names);
	for (size_t s = 0; s < n; s++)
		longest(&b.host_marker[s], m[s].begin, m[s].end);
	marker_events(&b, g, m, n, db->has_device);
	group_by_step(&b);
	finish_steps(&b, db, db->has_device, true);
	builder_free(&b);
	xp_drop_group_names(ph);  /* the steps have their names */
	free(m);
	return 0;
}
