/* hostdb.c - the host op-metrics database (spec analyzers §3.1): TF ops, input-pipeline stages and XLA:CPU ops on host threads, with self time and IDLE. */
#include "hostdb.h"
#include "opdb.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/core/xalloc.h"
#include "formats/core/satint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Per host-threads line, every op event gives a begin and an end activity;
 * the reference stable-sorts all activities by time and sweeps them with a
 * stack of open ops: an end pops up to its own begin (discarding the ops
 * above it, which overlapped), its self time is its span minus the spans of
 * the ops that ended directly inside it, and its span then counts as a
 * child of the op below.
 *
 * Sorting every activity of a line with millions of events would dominate
 * the pass, so the sweep runs in event order instead: begins come in start
 * order, and ends wait in a small heap keyed (time, push order) until a
 * begin at a later key. The push order of an activity is its place in the
 * reference's list (4 per event: name op begin/end, tf_op begin/end), so
 * ties come out exactly as the stable sort leaves them, also on lines whose
 * events are stored out of order.
 */

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		xp_oom();
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* --- the builder (Appendix A19) ------------------------------------------------------------ */

static void enter_row(struct xp_op_db *db, size_t row, bool created, uint64_t occurrences, int64_t time_ps,
		      int64_t children_ps, uint64_t flops, uint64_t bytes, bool eager, bool eager_or)
{
	struct xp_op_row *r = &db->rows[row];
	int64_t self = time_ps - children_ps;
	if (created || eager_or)
		r->is_eager = created ? eager : (r->is_eager || eager);
	r->occurrences += occurrences;
	r->time_ps += time_ps;
	r->self_ps += self;
	r->flops += flops * occurrences;
	r->bytes_accessed += bytes * occurrences;
	db->total_op_time_ps += self;
}

size_t xp_op_db_enter(struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name,
		      const char *category, uint64_t occurrences, int64_t time_ps, int64_t children_ps, uint64_t flops,
		      uint64_t bytes, bool eager, bool eager_or)
{
	bool created;
	size_t row = xp_op_db_row(db, kind, module, name, &created);
	if (created)
		db->rows[row].category = xp_op_db_text0(db, category ? category : "");
	enter_row(db, row, created, occurrences, time_ps, children_ps, flops, bytes, eager, eager_or);
	return row;
}

/* --- one host-threads plane ------------------------------------------------------------------ */

enum meta_class {
	MC_SEEN = 1,        /* classified */
	MC_NAME_OP = 2,     /* the name parses to a TF, JAX, tf.data or memcpy op */
	MC_TF = 4,          /* ... of category TensorFlow: the eager marking applies */
	MC_MEMORY = 8,      /* MemoryAllocation / MemoryDeallocation */
	MC_EAGER_EXEC = 16  /* EagerExecute */
};

/* Bits of meta_info.has: the event metadata carries the stat. */
enum { HAS_TF_OP = 1, HAS_STAGE_ID = 2, HAS_EAGER = 4, HAS_STAGE_CAT = 8, HAS_IS_FUNC = 16 };

struct meta_info {
	uint8_t cls;
	uint8_t has;        /* HAS_* */
	uint32_t row;       /* name op's row + 1; 0 = not made yet */
};

/* interned tf_op string -> row + 1 */
struct ptr_map {
	size_t cap, n;
	struct ptr_slot {
		const char *key;
		size_t row;
	} *slot;
};

static struct ptr_slot *ptr_get(struct ptr_map *m, const char *key)
{
	if (m->n * 2 >= m->cap) {
		struct ptr_map old = *m;
		m->cap = old.cap ? old.cap * 2 : 64;
		m->slot = xcalloc(m->cap, sizeof *m->slot);
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.slot[i].key)
				*ptr_get(m, old.slot[i].key) = old.slot[i], m->n++;
		free(old.slot);
	}
	uintptr_t h = (uintptr_t)key;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 7) & (m->cap - 1);
	while (m->slot[i].key && m->slot[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

/* What names an op: its row is made when the op ends, so ops that never end (they overlapped) leave no row. */
enum src_kind { SRC_NAME, SRC_TF_OP, SRC_STAGE };
struct op_src {
	enum src_kind kind;
	uint32_t meta;      /* SRC_NAME, SRC_STAGE: the event's metadata */
	const char *s;      /* SRC_TF_OP: the tf_op text; SRC_STAGE: the category */
	uint32_t len;
	bool interned;      /* SRC_TF_OP: s is an interned string (a cache key) */
	int64_t stage_id;
};

/* An open op on the line's stack. */
struct frame {
	uint64_t seq;       /* push order of its begin */
	int64_t start_ps;
	int64_t children_ps;
	struct op_src src;
	bool eager;
};

/* A pending end, waiting in the heap. */
struct pend {
	int64_t ts;
	uint64_t seq;
};

/* An EagerExecute event that may enclose later events of the line. */
struct eager_frame {
	int64_t end_ps;
	bool eager;         /* is_func == 0: not a compiled function */
};

struct hpass {
	const struct xp_capture *c;
	const struct xp_plane *p;
	struct xp_op_db *db;
	struct xp_host_db_info *info;
	uint32_t sid_tf_op, sid_eager, sid_stage_id, sid_stage_cat, sid_is_func;
	bool any_eager_exec;
	struct meta_info *meta;
	struct ptr_map tf_op_rows;
	size_t idle_row;
	bool idle_made;
	/* per line */
	struct frame *stack;
	size_t n_stack, cap_stack;
	struct pend *heap;
	size_t n_heap, cap_heap;
	struct eager_frame *estack;
	size_t n_estack, cap_estack;
	int64_t first_ps, last_ps, op_ps;
	bool any;
};

static bool pend_less(const struct pend *a, const struct pend *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void heap_push(struct hpass *hp, int64_t ts, uint64_t seq)
{
	if (hp->n_heap == hp->cap_heap) {
		hp->cap_heap = hp->cap_heap ? hp->cap_heap * 2 : 64;
		hp->heap = xrealloc(hp->heap, hp->cap_heap * sizeof *hp->heap);
	}
	size_t i = hp->n_heap++;
	struct pend x = {ts, seq};
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!pend_less(&x, &hp->heap[up]))
			break;
		hp->heap[i] = hp->heap[up];
		i = up;
	}
	hp->heap[i] = x;
}

static struct pend heap_pop(struct hpass *hp)
{
	struct pend top = hp->heap[0], x = hp->heap[--hp->n_heap];
	size_t i = 0, n = hp->n_heap;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && pend_less(&hp->heap[l], &x))
			m = l;
		if (l + 1 < n && pend_less(&hp->heap[l + 1], m == i ? &x : &hp->heap[l]))
			m = l + 1;
		if (m == i)
			break;
		hp->heap[i] = hp->heap[m];
		i = m;
	}
	if (n)
		hp->heap[i] = x;
	return top;
}

static size_t name_row(struct hpass *hp, uint32_t m);
static size_t tf_text_row(struct hpass *hp, const char *s, size_t len);

/* The row of an op, made when new. */
static size_t src_row(struct hpass *hp, const struct op_src *src)
{
	if (src->kind == SRC_NAME)
		return name_row(hp, src->meta);
	if (src->kind == SRC_STAGE) {
		char key[32];
		snprintf(key, sizeof key, "%" PRId64, src->stage_id);
		bool created;
		size_t row = xp_op_db_row(hp->db, XP_OPK_STAGE, key, xp_str(hp->c, hp->p->emeta[src->meta].name), &created);
		if (created)
			hp->db->rows[row].category = xp_op_db_text(hp->db, src->s, src->len);
		return row;
	}
	if (!src->interned)
		return tf_text_row(hp, src->s, src->len);
	struct ptr_slot *slot = ptr_get(&hp->tf_op_rows, src->s);
	if (!slot->key) {
		size_t row = tf_text_row(hp, src->s, src->len);
		slot = ptr_get(&hp->tf_op_rows, src->s);
		*slot = (struct ptr_slot){src->s, row};
		hp->tf_op_rows.n++;
	}
	return slot->row;
}

/* The end activity SEQ at TS (its begin is SEQ - 1): pop up to its begin; the ops above it overlapped it and
 * are dropped; with no begin the stack is emptied, as the reference does. */
static void end_op(struct hpass *hp, int64_t ts, uint64_t seq)
{
	while (hp->n_stack) {
		struct frame f = hp->stack[--hp->n_stack];
		if (f.seq + 1 != seq)
			continue;
		int64_t span = ts - f.start_ps;
		enter_row(hp->db, src_row(hp, &f.src), false, 1, span, f.children_ps, 0, 0, f.eager, true);
		hp->op_ps += span - f.children_ps;
		if (hp->n_stack)
			hp->stack[hp->n_stack - 1].children_ps += span;
		return;
	}
}

/* Every pending end that sorts before (TS, SEQ). */
static void flush_ends(struct hpass *hp, int64_t ts, uint64_t seq)
{
	struct pend key = {ts, seq};
	while (hp->n_heap && pend_less(&hp->heap[0], &key)) {
		struct pend e = heap_pop(hp);
		end_op(hp, e.ts, e.seq);
	}
}

static void begin_op(struct hpass *hp, const struct xp_line *l, uint64_t i, uint64_t seq, const struct op_src *src,
		     bool eager)
{
	int64_t s = l->start_ps[i], e = xp_event_end(l, i);
	flush_ends(hp, s, seq);
	if (hp->n_stack == hp->cap_stack) {
		hp->cap_stack = hp->cap_stack ? hp->cap_stack * 2 : 64;
		hp->stack = xrealloc(hp->stack, hp->cap_stack * sizeof *hp->stack);
	}
	hp->stack[hp->n_stack++] = (struct frame){seq, s, 0, *src, eager};
	heap_push(hp, e, seq + 1);
	/* Begins come in start order: the first is the line's first activity. */
	if (!hp->any)
		hp->first_ps = s;
	if (!hp->any || e > hp->last_ps)
		hp->last_ps = e;
	hp->any = true;
	hp->info->op_events++;
}

/* Classify event metadata M once: name op, memory event, EagerExecute. */
static uint8_t meta_class(struct hpass *hp, uint32_t m)
{
	struct meta_info *mi = &hp->meta[m];
	if (mi->cls)
		return mi->cls;
	uint32_t name = hp->p->emeta[m].name;
	const char *s = xp_str(hp->c, name);
	size_t len = xp_strlen(hp->c, name);
	uint8_t cls = MC_SEEN;
	if (len) {
		struct xp_tfop t;
		xp_parse_tf_op(s, len, &t);
		if (t.cat != XP_OP_UNKNOWN)
			cls |= MC_NAME_OP;
		if (t.cat == XP_OP_TF)
			cls |= MC_TF;
		if (!strcmp(s, "MemoryAllocation") || !strcmp(s, "MemoryDeallocation"))
			cls |= MC_MEMORY;
		if (!strcmp(s, "EagerExecute"))
			cls |= MC_EAGER_EXEC;
	}
	struct xp_stat_view v = xp_meta_stats(hp->p, m);
	for (uint32_t k = 0; k < v.n; k++) {
		uint32_t sid = xp_stat_meta(v.keys[k]);
		mi->has |= (sid == hp->sid_tf_op ? HAS_TF_OP : 0) | (sid == hp->sid_stage_id ? HAS_STAGE_ID : 0) |
			   (sid == hp->sid_eager ? HAS_EAGER : 0) | (sid == hp->sid_stage_cat ? HAS_STAGE_CAT : 0) |
			   (sid == hp->sid_is_func ? HAS_IS_FUNC : 0);
	}
	mi->cls = cls;
	return cls;
}

/* xp_event_find for the stat SID (metadata bit BIT), quick when neither the event nor its metadata has it:
 * most host events carry none of the stats looked for, and this runs for every one of them. */
static bool find_stat(const struct hpass *hp, const struct xp_line *l, uint64_t i, uint32_t sid, unsigned bit,
		      struct xp_value *v)
{
	if (!sid)
		return false;
	uint32_t b = (uint32_t)(i >> XP_BLOCK_SHIFT);
	const struct xp_block *blk = &l->blocks[b];
	uint32_t first = l->stat_begin[i], last = blk->stats.n;
	if (i + 1 < l->n_events && ((i + 1) >> XP_BLOCK_SHIFT) == b)
		last = l->stat_begin[i + 1];
	/* A block without stats has no key array at all (offsetting its NULL is undefined). */
	const uint32_t *keys = last > first ? blk->stats.keys + xp_event_key_begin(l, i, first) : NULL;
	for (uint32_t k = 0; k < last - first; k++)
		if (xp_stat_meta(keys[k]) == sid)
			return xp_event_find(hp->c, hp->p, l, i, sid, v);
	return (hp->meta[xp_meta_of(l, i)].has & bit) && xp_event_find(hp->c, hp->p, l, i, sid, v);
}

/* Row of an op named by TF-op text S (the event name or a tf_op stat). */
static size_t tf_text_row(struct hpass *hp, const char *s, size_t len)
{
	struct xp_tfop t;
	xp_parse_tf_op(s, len, &t);
	char *name = xstrndup(t.name, t.name_len);
	bool created;
	size_t row = xp_op_db_row(hp->db, XP_OPK_TF, NULL, name, &created);
	/* The category is the first type seen. */
	if (created)
		hp->db->rows[row].category = xp_op_db_text(hp->db, t.type ? t.type : "", t.type ? t.type_len : 0);
	free(name);
	return row;
}

static size_t name_row(struct hpass *hp, uint32_t m)
{
	struct meta_info *mi = &hp->meta[m];
	if (!mi->row) {
		uint32_t name = hp->p->emeta[m].name;
		mi->row = (uint32_t)tf_text_row(hp, xp_str(hp->c, name), xp_strlen(hp->c, name)) + 1;
	}
	return mi->row - 1;
}

static bool stat_text(const struct hpass *hp, const struct xp_line *l, uint64_t i, uint32_t sid, unsigned bit,
		      struct xp_value *v)
{
	return find_stat(hp, l, i, sid, bit, v) && (v->kind == XP_STAT_STR || v->kind == XP_STAT_BLOBSTR) &&
	       v->len > 0;
}

/* Input-pipeline stage (spec §3.1 step 1a): *STAGE is set when the event has a stage id; it is an op when it also
 * has a category. */
static bool stage_src(struct hpass *hp, const struct xp_line *l, uint64_t i, bool *stage, struct op_src *src)
{
	struct xp_value v, cat;
	int64_t id;
	*stage = false;
	if (!find_stat(hp, l, i, hp->sid_stage_id, HAS_STAGE_ID, &v) || !xp_value_int(&v, &id))
		return false;
	*stage = true;
	if (!stat_text(hp, l, i, hp->sid_stage_cat, HAS_STAGE_CAT, &cat))
		return false;
	*src = (struct op_src){.kind = SRC_STAGE, .meta = xp_meta_of(l, i), .s = cat.s, .len = cat.len, .stage_id = id};
	return true;
}

/* The is_eager stat of the event, else the eager marking (spec §0.3): inside an EagerExecute of an op that is
 * not a function, on the same thread. */
static bool op_eager(struct hpass *hp, const struct xp_line *l, uint64_t i, bool tf_op_run)
{
	struct xp_value v;
	int64_t n;
	if (find_stat(hp, l, i, hp->sid_eager, HAS_EAGER, &v) && xp_value_int(&v, &n))
		return n != 0;
	return tf_op_run && hp->n_estack && hp->estack[hp->n_estack - 1].eager;
}

/* Keep the stack of enclosing EagerExecute events in step with event i. */
static void track_eager_exec(struct hpass *hp, const struct xp_line *l, uint64_t i, uint8_t cls)
{
	int64_t e = xp_event_end(l, i);
	while (hp->n_estack && hp->estack[hp->n_estack - 1].end_ps < e)
		hp->n_estack--;
	if (!(cls & MC_EAGER_EXEC))
		return;
	struct xp_value v;
	int64_t is_func = 1;
	if (find_stat(hp, l, i, hp->sid_is_func, HAS_IS_FUNC, &v))
		xp_value_int(&v, &is_func);
	if (hp->n_estack == hp->cap_estack) {
		hp->cap_estack = hp->cap_estack ? hp->cap_estack * 2 : 16;
		hp->estack = xrealloc(hp->estack, hp->cap_estack * sizeof *hp->estack);
	}
	hp->estack[hp->n_estack++] = (struct eager_frame){e, is_func == 0};
	if (is_func == 0)
		hp->info->eager_exec = true;
}

/* Event i of the line, stored at position POS: its activities. */
static void visit(struct hpass *hp, const struct xp_line *l, uint64_t i, uint64_t pos)
{
	uint32_t m = xp_meta_of(l, i);
	uint8_t cls = meta_class(hp, m);
	if (hp->any_eager_exec)
		track_eager_exec(hp, l, i, cls);
	uint64_t seq = pos * 4;
	bool stage;
	struct op_src src;
	if (stage_src(hp, l, i, &stage, &src)) {
		begin_op(hp, l, i, seq, &src, op_eager(hp, l, i, false));
	} else if (!stage && (cls & MC_NAME_OP)) {
		src = (struct op_src){.kind = SRC_NAME, .meta = m};
		begin_op(hp, l, i, seq, &src, op_eager(hp, l, i, cls & MC_TF));
	}
	/* XLA:CPU ops carry their TF op as a tf_op stat. Memory events carry one too, naming the op that
	 * allocated: they are no op execution (the reference counts them; see the man page). */
	struct xp_value v;
	if ((cls & MC_MEMORY) || !stat_text(hp, l, i, hp->sid_tf_op, HAS_TF_OP, &v))
		return;
	src = (struct op_src){.kind = SRC_TF_OP, .s = v.s, .len = v.len, .interned = v.kind == XP_STAT_STR};
	begin_op(hp, l, i, seq + 2, &src, false);
}

static int cmp_by_start(const void *pa, const void *pb, void *arg)
{
	const struct xp_line *l = arg;
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	if (l->start_ps[a] != l->start_ps[b])
		return l->start_ps[a] < l->start_ps[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Close the line: its total is the larger of its op time and its activities' span; the rest is IDLE. */
static void finish_line(struct hpass *hp)
{
	flush_ends(hp, INT64_MAX, UINT64_MAX);
	hp->n_stack = 0;
	hp->n_estack = 0;
	if (!hp->any)
		return;
	int64_t span = xp_sat_sub(hp->last_ps, hp->first_ps);
	int64_t total = span > hp->op_ps ? span : hp->op_ps;
	if (!hp->idle_made) {
		bool created;
		hp->idle_row = xp_op_db_row(hp->db, XP_OPK_IDLE, NULL, "IDLE", &created);
		hp->db->rows[hp->idle_row].category = xp_op_db_text0(hp->db, "IDLE");
		hp->idle_made = true;
	}
	struct xp_op_row *idle = &hp->db->rows[hp->idle_row];
	idle->time_ps += total - hp->op_ps;
	idle->self_ps += total - hp->op_ps;
	hp->db->total_time_ps += total;
	hp->info->lines++;
}

static void read_line(struct hpass *hp, const struct xp_line *l)
{
	hp->any = false;
	hp->op_ps = 0;
	if (!l->unsorted) {
		for (uint64_t i = 0; i < l->n_events; i++)
			visit(hp, l, i, i);
	} else {
		uint64_t *order = xcalloc(l->n_events, sizeof *order);
		for (uint64_t i = 0; i < l->n_events; i++)
			order[i] = i;
		qsort_r(order, l->n_events, sizeof *order, cmp_by_start, (void *)l);
		for (uint64_t k = 0; k < l->n_events; k++)
			visit(hp, l, order[k], order[k]);
		free(order);
	}
	finish_line(hp);
}

static bool has_meta_named(const struct xp_capture *c, const struct xp_plane *p, const char *name)
{
	for (uint32_t m = 1; m < p->n_emeta; m++)
		if (!strcmp(xp_str(c, p->emeta[m].name), name))
			return true;
	return false;
}

static void read_plane(struct xp_op_db *db, const struct xp_capture *c, const struct xp_plane *p,
		       struct xp_host_db_info *info, size_t *idle_row, bool *idle_made)
{
	struct hpass hp = {.c = c, .p = p, .db = db, .info = info, .idle_row = *idle_row, .idle_made = *idle_made};
	hp.sid_tf_op = xp_plane_stat_id(c, p, "tf_op");
	hp.sid_eager = xp_plane_stat_id(c, p, "is_eager");
	hp.sid_stage_id = xp_plane_stat_id(c, p, "_ipl_stage_id");
	hp.sid_stage_cat = xp_plane_stat_id(c, p, "_ipl_stage_cat");
	hp.sid_is_func = xp_plane_stat_id(c, p, "is_func");
	hp.any_eager_exec = has_meta_named(c, p, "EagerExecute");
	hp.meta = xcalloc(p->n_emeta, sizeof *hp.meta);
	if (hp.sid_eager)
		info->eager_stat = true;
	for (uint32_t k = 0; k < p->n_lines; k++)
		if (!p->lines[k].derived && p->lines[k].n_events)
			read_line(&hp, &p->lines[k]);
	*idle_row = hp.idle_row;
	*idle_made = hp.idle_made;
	free(hp.meta);
	free(hp.tf_op_rows.slot);
	free(hp.stack);
	free(hp.heap);
	free(hp.estack);
}

/* --- eager launches (spec §0.3) --------------------------------------------------------------- */

struct i64vec {
	int64_t *v;
	size_t n, cap;
};

static void i64_push(struct i64vec *a, int64_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* One line: the launches inside an EagerExecute of a non-function op, in start order. */
static void line_eager_launches(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l,
				const bool *is_ee, uint32_t sid_corr, uint32_t sid_func, struct i64vec *out)
{
	uint64_t *order = NULL;
	if (l->unsorted) {
		order = xcalloc(l->n_events, sizeof *order);
		for (uint64_t k = 0; k < l->n_events; k++)
			order[k] = k;
		qsort_r(order, l->n_events, sizeof *order, cmp_by_start, (void *)l);
	}
	struct eager_frame *stack = NULL;
	size_t n = 0, cap = 0;
	for (uint64_t k = 0; k < l->n_events; k++) {
		uint64_t i = order ? order[k] : k;
		int64_t e = xp_event_end(l, i);
		struct xp_value v;
		while (n && stack[n - 1].end_ps < e)
			n--;
		if (is_ee[xp_meta_of(l, i)]) {
			int64_t is_func = 1;
			if (sid_func && xp_event_find(c, p, l, i, sid_func, &v))
				xp_value_int(&v, &is_func);
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				stack = xrealloc(stack, cap * sizeof *stack);
			}
			stack[n++] = (struct eager_frame){e, is_func == 0};
		} else if (n && stack[n - 1].eager && xp_event_find(c, p, l, i, sid_corr, &v) &&
			   (v.kind == XP_STAT_I64 || v.kind == XP_STAT_U64)) {
			i64_push(out, (int64_t)v.u);
		}
	}
	free(stack);
	free(order);
}

int64_t *xp_eager_launches(const struct xp_capture *c, const struct xp_host *h, size_t *n)
{
	struct i64vec ids = {0};
	for (uint32_t pi = 0; pi < h->n_planes; pi++) {
		const struct xp_plane *p = &h->planes[pi];
		uint32_t sid_corr = xp_plane_stat_id(c, p, "correlation_id");
		if (p->kind != XP_PLANE_HOST_CPU || !sid_corr || !has_meta_named(c, p, "EagerExecute"))
			continue;
		bool *is_ee = xcalloc(p->n_emeta, sizeof *is_ee);
		for (uint32_t m = 1; m < p->n_emeta; m++)
			is_ee[m] = !strcmp(xp_str(c, p->emeta[m].name), "EagerExecute");
		uint32_t sid_func = xp_plane_stat_id(c, p, "is_func");
		for (uint32_t k = 0; k < p->n_lines; k++)
			if (!p->lines[k].derived)
				line_eager_launches(c, p, &p->lines[k], is_ee, sid_corr, sid_func, &ids);
		free(is_ee);
	}
	size_t u = 0;
	if (ids.n)
		qsort(ids.v, ids.n, sizeof *ids.v, cmp_i64);
	for (size_t i = 0; i < ids.n; i++)
		if (!u || ids.v[u - 1] != ids.v[i])
			ids.v[u++] = ids.v[i];
	*n = u;
	if (!u) {
		free(ids.v);
		return NULL;
	}
	return ids.v;
}

struct xp_op_db *xp_op_db_host(const struct xp_capture *c, const struct xp_host *h, struct xp_host_db_info *info)
{
	struct xp_host_db_info scratch;
	if (!info)
		info = &scratch;
	memset(info, 0, sizeof *info);
	struct xp_op_db *db = xp_op_db_empty();
	size_t idle_row = 0;
	bool idle_made = false;
	for (uint32_t i = 0; i < h->n_planes; i++) {
		if (h->planes[i].kind != XP_PLANE_HOST_CPU)
			continue;
		info->has_host_plane = true;
		read_plane(db, c, &h->planes[i], info, &idle_row, &idle_made);
	}
	return db;
}

struct xp_op_db *xp_input_host_db(const struct xp_capture *c)
{
	struct xp_op_db *all = xp_op_db_empty();
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		struct xp_op_db *one = xp_op_db_host(c, &c->hosts[h], NULL);
		all = xp_op_db_absorb(all, one);
	}
	xp_op_db_sort(all);
	return all;
}
