/* opdb.c - the device op-metrics database (spec analyzers §3.2-§3.4): per-GPU-plane op rows, IDLE, and its TF-level form. */
#include "opdb.h"
#include "formats/core/hash.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/core/xalloc.h"
#include "formats/core/satint.h"
#include "formats/core/strpool.h"
#include "hlodb.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Rows are found through a small open-addressing index keyed by a string
 * that says what kind of row it is (TF op, XLA op, IDLE) and its name, so a
 * TF op and an HLO op that happen to share a name never merge. Per plane,
 * two caches map the interned annotation of an event to its row - (tf_op,
 * kernel name) and (hlo_op, hlo_module) - because parsing names and
 * building keys for every kernel of a large capture would dominate the pass.
 */

struct xp_op_index {
	size_t cap;         /* power of two */
	uint32_t *slot;     /* row index + 1; 0 = empty */
};

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		xp_oom();
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* Texts are pooled: a category or tf_op text that many rows share is kept once, and no text costs a
 * malloc of its own. */
const char *xp_op_db_text(struct xp_op_db *db, const char *s, size_t len)
{
	return s ? xp_pool_str(db->texts, s, len) : NULL;
}

const char *xp_op_db_text0(struct xp_op_db *db, const char *s)
{
	return s ? xp_pool_str(db->texts, s, strlen(s)) : NULL;
}

/* Rows with the same kind, module and name are one row. */
static uint64_t row_hash(enum xp_op_kind kind, const char *module, const char *name)
{
	uint64_t h = XP_HASH_SEED;
	unsigned char k = (unsigned char)kind;
	h = xp_hash_bytes(h, &k, 1);
	if (module)
		h = xp_hash_bytes(h, module, strlen(module) + 1);
	return xp_hash_bytes(h, name, strlen(name));
}

static bool same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool row_is(const struct xp_op_row *r, enum xp_op_kind kind, const char *module, const char *name)
{
	return r->kind == kind && same_str(r->module, module) && !strcmp(r->name, name);
}

static void index_put(struct xp_op_index *ix, const struct xp_op_db *db, size_t row)
{
	const struct xp_op_row *r = &db->rows[row];
	size_t mask = ix->cap - 1, i = (size_t)row_hash(r->kind, r->module, r->name) & mask;
	while (ix->slot[i])
		i = (i + 1) & mask;
	ix->slot[i] = (uint32_t)row + 1;
}

static void index_rebuild(struct xp_op_db *db)
{
	struct xp_op_index *ix = db->index;
	size_t cap = 64;
	while (cap < db->n * 2 + 2)
		cap *= 2;
	free(ix->slot);
	ix->cap = cap;
	ix->slot = xcalloc(cap, sizeof *ix->slot);
	for (size_t i = 0; i < db->n; i++)
		index_put(ix, db, i);
}

static struct xp_op_db *db_new(void)
{
	struct xp_op_db *db = xcalloc(1, sizeof *db);
	db->index = xcalloc(1, sizeof *db->index);
	db->texts = xp_pool_new();
	index_rebuild(db);
	return db;
}

/* Index of the row (kind, module, name), or (size_t)-1. */
static size_t db_find(const struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name)
{
	const struct xp_op_index *ix = db->index;
	size_t mask = ix->cap - 1, i = (size_t)row_hash(kind, module, name) & mask;
	for (; ix->slot[i]; i = (i + 1) & mask)
		if (row_is(&db->rows[ix->slot[i] - 1], kind, module, name))
			return ix->slot[i] - 1;
	return (size_t)-1;
}

/* The row (kind, module, name), created empty when new; *created says which. */
static size_t db_get(struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name, bool *created)
{
	size_t row = db_find(db, kind, module, name);
	*created = row == (size_t)-1;
	if (!*created)
		return row;
	if (db->n == db->cap) {
		db->cap = db->cap ? db->cap * 2 : 32;
		db->rows = realloc(db->rows, db->cap * sizeof *db->rows);
		if (!db->rows)
			xp_oom();
	}
	if (db->n >= UINT32_MAX - 1)
		xp_die("too many op rows in one database (more than 2^32)");
	row = db->n++;
	memset(&db->rows[row], 0, sizeof db->rows[row]);
	db->rows[row].kind = kind;
	db->rows[row].module = xp_op_db_text0(db, module);
	db->rows[row].name = xp_pool_copy(db->texts, name, strlen(name));   /* a row's key: distinct */
	db->rows[row].program_id = -1;
	if (db->index->cap < db->n * 2 + 2)
		index_rebuild(db);
	else
		index_put(db->index, db, row);
	return row;
}

struct xp_pool *xp_op_db_take_texts(struct xp_op_db *db)
{
	struct xp_pool *texts = db->texts;
	db->texts = NULL;
	return texts;
}

void xp_op_db_free(struct xp_op_db *db)
{
	if (!db)
		return;
	xp_pool_free(db->texts);
	free(db->hlo_problem);
	free(db->rows);
	free(db->index->slot);
	free(db->index);
	free(db);
}

/* --- one GPU plane (spec §3.2) ----------------------------------------------- */

struct plane_ids {
	uint32_t tf_op, level0, hlo_op, hlo_module, is_eager, flops, bytes;
	uint32_t correlation_id, program_id;
};

/* Cache of (interned string, second key, third key) -> row for XLA ops: (hlo_op, hlo_module, program). */
struct row_cache {
	size_t cap, n;
	struct cache_slot {
		uintptr_t a, b;     /* a: an interned string (equal pointers mean equal strings); 0 = empty */
		uint64_t c;
		size_t row;
	} *slot;
};

static size_t cache_pos(const struct row_cache *k, uintptr_t a, uintptr_t b, uint64_t c)
{
	/* Three words: one fold each (this runs per event), not a byte hash. */
	uint64_t h = xp_hash_mix(xp_hash_u64(xp_hash_u64(xp_hash_u64(XP_HASH_SEED, a), b), c));
	size_t i = (size_t)h & (k->cap - 1);
	while (k->slot[i].a && !(k->slot[i].a == a && k->slot[i].b == b && k->slot[i].c == c))
		i = (i + 1) & (k->cap - 1);
	return i;
}

static void cache_grow(struct row_cache *k)
{
	struct row_cache old = *k;
	k->cap = old.cap ? old.cap * 2 : 256;
	k->slot = xcalloc(k->cap, sizeof *k->slot);
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].a)
			k->slot[cache_pos(k, old.slot[i].a, old.slot[i].b, old.slot[i].c)] = old.slot[i];
	free(old.slot);
}

/* The cache slot of (a, b, c), empty (a == 0) when it is new. */
static struct cache_slot *cache_get(struct row_cache *k, uintptr_t a, uintptr_t b, uint64_t c)
{
	/* Up to three quarters full: a slot is 32 bytes, and a row is looked up once per name, not per event. */
	if (k->n * 4 >= k->cap * 3)
		cache_grow(k);
	return &k->slot[cache_pos(k, a, b, c)];
}

static void cache_set(struct row_cache *k, struct cache_slot *s, uintptr_t a, uintptr_t b, uint64_t c, size_t row)
{
	*s = (struct cache_slot){a, b, c, row};
	k->n++;
}

/* Cache of (a word, a 32-bit key) -> 32-bit row, 16 bytes a slot: (tf_op, event metadata) for TF ops' rows, (TF
 * row + 1, kernel name) for their records. A capture of 300,000 ops has a slot per op and kernel, read per event. */
struct pair_cache {
	size_t cap, n;
	struct pair_slot {
		uintptr_t a;        /* 0 = empty */
		uint32_t b, row;
	} *slot;
};

static size_t pair_pos(const struct pair_cache *k, uintptr_t a, uint32_t b)
{
	uint64_t h = xp_hash_mix(xp_hash_u64(xp_hash_u64(XP_HASH_SEED, a), b));
	size_t i = (size_t)h & (k->cap - 1);
	while (k->slot[i].a && !(k->slot[i].a == a && k->slot[i].b == b))
		i = (i + 1) & (k->cap - 1);
	return i;
}

/* The slot of (a, b), empty (a == 0) when it is new; up to three quarters full. */
static struct pair_slot *pair_get(struct pair_cache *k, uintptr_t a, uint32_t b)
{
	if (k->n * 4 >= k->cap * 3) {
		struct pair_cache old = *k;
		k->cap = old.cap ? old.cap * 2 : 256;
		k->slot = xcalloc(k->cap, sizeof *k->slot);
		for (size_t i = 0; i < old.cap; i++)
			if (old.slot[i].a)
				k->slot[pair_pos(k, old.slot[i].a, old.slot[i].b)] = old.slot[i];
		free(old.slot);
	}
	return &k->slot[pair_pos(k, a, b)];
}

static void pair_set(struct pair_cache *k, struct pair_slot *s, uintptr_t a, uint32_t b, size_t row)
{
	if (row > UINT32_MAX)
		xp_die("too many op rows in one database (more than 2^32)");
	*s = (struct pair_slot){a, b, (uint32_t)row};
	k->n++;
}

/*
 * What the TF level of TF-annotated kernels needs, without their device rows (xp_op_db_tf_device): per TF op its
 * TF-level row, and per (TF op, kernel name) pair - a device row's identity - a record of the few facts the TF
 * level takes from device rows (occurrences, cores, eager flags). A record costs 24 bytes and no name.
 */
struct tf_lean {
	struct xp_op_db *tf;        /* the TF-level rows; XLA ones are added at the end */
	struct pair_cache recs_ix;  /* (TF row + 1, kernel name id) -> record */
	struct tf_rec {
		uint64_t occurrences;
		uint32_t tf_row, seen, cores;   /* seen: the last plane (lean numbering) it ran on */
		bool eager, eager_stat;
	} *recs;
	size_t n, cap;
	uint32_t plane;             /* planes read so far, every host */
	bool unsure;                /* a name two (TF op, kernel) pairs might share: the device rows must decide */
};

struct plane_pass {
	const struct xp_capture *c;
	const struct xp_plane *p;
	const struct xp_op_db_opts *o;
	struct plane_ids ids;
	struct xp_op_db *db;                /* the host's database: every plane adds to it directly */
	/* Host-wide: the keys are interned strings, whatever the plane, so a row is looked up by name once. */
	struct pair_cache tf_cache;
	struct row_cache xla_cache;
	uint32_t plane;                     /* 1 + index of the GPU plane being read */
	uint32_t *seen;                     /* per row: the plane that last touched it (0 = none yet) */
	size_t seen_cap;
	int64_t first_ps, last_ps, op_ps;   /* the plane's span and op time */
	bool any;
	const struct xp_hlo_db *hlo;
	const struct xp_line *last_line;    /* where the last XLA event was, and its row: an execution of an */
	size_t last_row;                    /* HLO op is a run of its consecutive kernels on one line */
	struct tf_lean *lean;               /* xp_op_db_tf_device: TF ops go there, not to device rows */
};

/* A non-empty string stat of the event (event stats first, then its metadata's). */
static bool event_text(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, uint32_t sid,
		       struct xp_value *v)
{
	return sid && xp_event_find(pp->c, pp->p, l, i, sid, v) &&
	       (v->kind == XP_STAT_STR || v->kind == XP_STAT_BLOBSTR) && v->len > 0;
}

static uint64_t event_uint(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, uint32_t sid)
{
	struct xp_value v;
	int64_t n;
	if (!sid || !xp_event_find(pp->c, pp->p, l, i, sid, &v))
		return 0;
	if (xp_value_int(&v, &n))
		return n > 0 ? (uint64_t)n : 0;
	if (v.kind == XP_STAT_F64 && v.d > 0 && v.d < 1.8e19)
		return (uint64_t)v.d;
	return 0;
}

/* A row's first event in a plane: the plane counts as one of its cores (spec §3.4: num_cores sums). */
static bool first_in_plane(struct plane_pass *pp, size_t row)
{
	if (row >= pp->seen_cap) {
		size_t cap = pp->seen_cap ? pp->seen_cap : 256;
		while (cap <= row)
			cap *= 2;
		pp->seen = xrealloc(pp->seen, cap * sizeof *pp->seen);
		memset(pp->seen + pp->seen_cap, 0, (cap - pp->seen_cap) * sizeof *pp->seen);
		pp->seen_cap = cap;
	}
	if (pp->seen[row] == pp->plane)
		return false;
	pp->seen[row] = pp->plane;
	pp->db->rows[row].num_cores++;
	return true;
}

static void add_time(struct plane_pass *pp, struct xp_op_row *r, int64_t dur)
{
	pp->op_ps += dur;
	r->occurrences++;
	r->time_ps += dur;
	r->self_ps += dur;     /* device ops do not nest: self time = duration */
}

/*
 * An XLA op (JAX, or TF with XLA). As xprof does, the event is resolved to its HLO instruction in
 * the module's HLO proto (/host:metadata) and its row keyed by program and instruction; the
 * instruction gives the category, the framework op (metadata op_name:op_type, the provenance) and
 * the cost. An event no proto resolves keeps a row keyed by hlo_module and HLO op name, with the op
 * name's prefix before '.' ("fusion" for "fusion.12") as the category - xprof drops it, and
 * --compat=xprof drops it too.
 */
static size_t xla_row_unresolved(struct plane_pass *pp, const struct xp_value *hlo, const struct xp_value *mod)
{
	size_t nlen;
	const char *name = xp_hlo_op_last(hlo->s, hlo->len, &nlen);
	char *op = xstrndup(name, nlen);
	char *module = mod ? xstrndup(mod->s, mod->len) : xstrndup("", 0);
	bool created;
	size_t row = db_get(pp->db, XP_OPK_XLA, module, op, &created);
	if (created) {
		const char *dot = strchr(op, '.');
		pp->db->rows[row].category = xp_op_db_text(pp->db, op, dot ? (size_t)(dot - op) : strlen(op));
	}
	free(op);
	free(module);
	return row;
}

static size_t xla_row_resolved(struct plane_pass *pp, const struct xp_hlo_hit *hit)
{
	char module[512], prov[1024];
	/* Keyed by program: separate compilations that share a module name stay apart. */
	if (hit->ambiguous)
		snprintf(module, sizeof module, "%s", hit->mod->name);
	else
		snprintf(module, sizeof module, "%s(%" PRId64 ")", hit->mod->name, hit->mod->program_id);
	bool created;
	size_t row = db_get(pp->db, XP_OPK_XLA, module, hit->in->name, &created);
	struct xp_op_row *r = &pp->db->rows[row];
	if (created) {
		r->category = xp_op_db_text0(pp->db, hit->in->category);
		xp_hlo_framework_op(hit->in, prov, sizeof prov);
		r->provenance = xp_op_db_text0(pp->db, prov);
		r->program_id = hit->ambiguous ? -1 : hit->mod->program_id;
		/* Which of the programs ran is unknown: their shapes, so their costs, may differ. A byte count
		 * the decoder saturated (shapes that overflow or are negative) is no count either. */
		r->cost_known = !hit->ambiguous && hit->in->bytes_accessed != UINT64_MAX;
		r->flops_gap = hit->in->flops_gap != XP_HLO_COST_OK;
		r->elem_type = hit->in->elem_type;
		r->hlo_flops = hit->in->flops;
		r->hlo_bytes = hit->in->bytes_accessed;
	}
	return row;
}

#define NO_ROW ((size_t)-1)

/* By the event's program id where it carries one (separate compilations of one module name stay apart), else
 * (or where no proto has that id) by module name; never by name when that id's proto did not decode (another
 * compilation of the name is another program: its instruction would lend this one a wrong cost). */
static size_t xla_row(struct plane_pass *pp, const struct xp_value *hlo, const struct xp_value *mod, bool has_pid,
		      int64_t pid)
{
	struct xp_hlo_hit hit;
	const char *m = mod ? mod->s : NULL;
	size_t mlen = mod ? mod->len : 0;
	if ((has_pid && xp_hlo_db_resolve(pp->hlo, true, pid, m, mlen, hlo->s, hlo->len, &hit)) ||
	    (!(has_pid && xp_hlo_db_unreadable(pp->hlo, pid)) &&
	     xp_hlo_db_resolve(pp->hlo, false, 0, m, mlen, hlo->s, hlo->len, &hit)))
		return xla_row_resolved(pp, &hit);
	if (pp->o && pp->o->xprof_compat)
		return NO_ROW;  /* xprof drops an XLA op it finds no instruction for */
	return xla_row_unresolved(pp, hlo, mod);
}

/* The row of an XLA event (resolved rows are the ones with a provenance), or NO_ROW. */
static size_t xla_event_row(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *hlo)
{
	struct xp_value mv, pv;
	bool has_mod = event_text(pp, l, i, pp->ids.hlo_module, &mv);
	int64_t pid = 0;
	bool has_pid = pp->ids.program_id && xp_event_find(pp->c, pp->p, l, i, pp->ids.program_id, &pv) &&
		       xp_value_int(&pv, &pid);
	if (hlo->kind != XP_STAT_STR || (has_mod && mv.kind != XP_STAT_STR))
		return xla_row(pp, hlo, has_mod ? &mv : NULL, has_pid, pid);
	uintptr_t a = (uintptr_t)hlo->s, b = has_mod ? (uintptr_t)mv.s : 0;
	/* 0 for no program id; any id (negative too) maps to a distinct non-zero key. */
	uint64_t c = has_pid ? (uint64_t)pid ^ UINT64_C(0x8000000000000000) : 0;
	c += has_pid && !c;
	struct cache_slot *s = cache_get(&pp->xla_cache, a, b, c);
	if (!s->a)
		cache_set(&pp->xla_cache, s, a, b, c, xla_row(pp, hlo, has_mod ? &mv : NULL, has_pid, pid));
	return s->row;
}

static void add_xla_event(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *hlo)
{
	size_t row = xla_event_row(pp, l, i, hlo);
	pp->db->n_xla_events++;
	if (row == NO_ROW) {
		pp->db->n_dropped_xla++;
		return;
	}
	struct xp_op_row *r = &pp->db->rows[row];
	bool resolved = r->provenance != NULL;
	pp->db->n_xla_resolved += resolved;
	pp->db->n_xla_ambiguous += resolved && r->program_id < 0;
	first_in_plane(pp, row);
	add_time(pp, r, xp_dur(l, i));
	if (pp->last_line != l || pp->last_row != row) {
		/* A new execution of the op: its instruction's cost once, however many kernels run it. */
		r->executions++;
		if (r->cost_known) {
			r->flops += r->hlo_flops;
			r->bytes_accessed += r->hlo_bytes;
		}
	}
	pp->last_line = l;
	pp->last_row = row;
	if (!r->cost_known) {
		r->flops += event_uint(pp, l, i, pp->ids.flops);
		r->bytes_accessed += event_uint(pp, l, i, pp->ids.bytes);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Without an is_eager stat: the kernel ran eagerly when its host launch (same correlation_id) is one of
 * o->eager_launches (the host's eager marking, spec §0.3); never without that list. */
static bool eager_launch(const struct plane_pass *pp, const struct xp_line *l, uint64_t i)
{
	struct xp_value v;
	if (!pp->o || !pp->o->n_eager_launches || !pp->ids.correlation_id ||
	    !xp_event_find(pp->c, pp->p, l, i, pp->ids.correlation_id, &v) ||
	    (v.kind != XP_STAT_I64 && v.kind != XP_STAT_U64))
		return false;
	int64_t corr = (int64_t)v.u;
	return bsearch(&corr, pp->o->eager_launches, pp->o->n_eager_launches, sizeof corr, cmp_i64) != NULL;
}

/* Row "<tf op name>/<kernel name>" of a TF-annotated device event, created when new. */
static size_t tf_row(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *tf)
{
	struct xp_tfop t;
	xp_parse_tf_op(tf->s, tf->len, &t);
	const char *kernel = xp_str(pp->c, xp_event_name(pp->p, l, i));
	size_t klen = strlen(kernel);
	char *name = xcalloc(t.name_len + klen + 2, 1);
	memcpy(name, t.name, t.name_len);
	name[t.name_len] = '/';
	memcpy(name + t.name_len + 1, kernel, klen);
	bool created;
	size_t row = db_get(pp->db, XP_OPK_TF, NULL, name, &created);
	free(name);
	struct xp_op_row *r = &pp->db->rows[row];
	if (created) {
		/* The first occurrence's, as the builder keeps; the first of a later plane would give the same
		 * name, so a non-empty category and provenance (a TF row always has them) stay. */
		r->category = t.type_len ? xp_op_db_text(pp->db, t.type, t.type_len) : xp_op_db_text0(pp->db, "unknown");
		r->provenance = xp_op_db_text(pp->db, tf->s, tf->len);
	}
	return row;
}

/* The eager flag of a row's first occurrence in a plane; planes OR theirs (spec §3.4). */
static bool tf_eager(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, bool *by_stat)
{
	struct xp_value ev;
	int64_t eager = 0;
	bool stat = pp->ids.is_eager && xp_event_find(pp->c, pp->p, l, i, pp->ids.is_eager, &ev) &&
		    xp_value_int(&ev, &eager);
	*by_stat = stat && eager != 0;
	return stat ? eager != 0 : eager_launch(pp, l, i);
}

/* The TF-level row of a TF op text; *unsure when a device row's name might not tell its (TF op, kernel) pair. */
static uint32_t lean_tf_row(struct tf_lean *lean, const struct xp_value *tf, const char *kernel)
{
	struct xp_tfop t;
	xp_parse_tf_op(tf->s, tf->len, &t);
	/* "<op>/<kernel>" names one pair unless a kernel name holds '/' (ops "a" + "b/k" and "a/b" + "k" share
	 * "a/b/k"), or a NUL cuts a text short: then the device rows decide. */
	lean->unsure |= strchr(kernel, '/') || memchr(tf->s, 0, tf->len);
	char *name = xstrndup(t.name, t.name_len);
	bool created;
	size_t row = db_get(lean->tf, XP_OPK_TF, NULL, name, &created);
	free(name);
	if (created) {
		/* As xp_op_db_tf_level: from the first device row of the op, whose text is the op's first. */
		struct xp_op_row *r = &lean->tf->rows[row];
		r->category = t.type_len ? xp_op_db_text(lean->tf, t.type, t.type_len) : xp_op_db_text0(lean->tf, "Unknown");
		r->provenance = xp_op_db_text(lean->tf, tf->s, tf->len);
	}
	return (uint32_t)row;
}

/* The record of a TF-annotated event's (TF op, kernel name) pair, created when new (records, like device rows,
 * in order of first event, host after host). */
static size_t lean_rec(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *tf)
{
	struct tf_lean *lean = pp->lean;
	uint32_t kernel = xp_event_name(pp->p, l, i);
	uint32_t row = lean_tf_row(lean, tf, xp_str(pp->c, kernel));
	struct pair_slot *s = pair_get(&lean->recs_ix, (uintptr_t)row + 1, kernel);
	if (s->a)
		return s->row;
	if (lean->n == lean->cap) {
		lean->cap = lean->cap ? lean->cap * 2 : 256;
		lean->recs = xrealloc(lean->recs, lean->cap * sizeof *lean->recs);
	}
	lean->recs[lean->n] = (struct tf_rec){.tf_row = row};
	pair_set(&lean->recs_ix, s, (uintptr_t)row + 1, kernel, lean->n);
	return lean->n++;
}

typedef size_t tf_make_fn(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *tf);

/* MAKE's row (or record) of a TF-annotated event, through the event cache: "<op>/<kernel name>" is known by the
 * interned op text and kernel name on every plane. A str_value text (a new address per event) is pooled in TEXTS
 * first (where a row's provenance is that same copy). */
static size_t tf_cached(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *tf,
			struct xp_op_db *texts, tf_make_fn *make)
{
	uintptr_t a = tf->kind == XP_STAT_STR ? (uintptr_t)tf->s : (uintptr_t)xp_op_db_text(texts, tf->s, tf->len);
	uint32_t b = xp_event_name(pp->p, l, i);
	struct pair_slot *s = pair_get(&pp->tf_cache, a, b);
	if (!s->a)
		pair_set(&pp->tf_cache, s, a, b, make(pp, l, i, tf));
	return s->row;
}

/* A TF-annotated event, for xp_op_db_tf_device: what add_tf_event gives its device row, to its record and TF row. */
static void lean_tf_event(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *tf)
{
	struct tf_lean *lean = pp->lean;
	size_t k = tf_cached(pp, l, i, tf, lean->tf, lean_rec);   /* may move the records */
	struct tf_rec *r = &lean->recs[k];
	if (r->seen != lean->plane) {
		bool by_stat;
		r->seen = lean->plane;
		r->cores++;
		r->eager |= tf_eager(pp, l, i, &by_stat);
		r->eager_stat |= by_stat;
	}
	int64_t dur = xp_dur(l, i);
	struct xp_op_row *op = &lean->tf->rows[r->tf_row];
	pp->op_ps += dur;
	r->occurrences++;
	op->time_ps += dur;
	op->self_ps += dur;
}

static void add_tf_event(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct xp_value *tf)
{
	if (pp->lean) {
		lean_tf_event(pp, l, i, tf);
		return;
	}
	size_t row = tf_cached(pp, l, i, tf, pp->db, tf_row);
	if (first_in_plane(pp, row)) {
		bool by_stat;
		pp->db->rows[row].is_eager |= tf_eager(pp, l, i, &by_stat);
		pp->db->rows[row].is_eager_stat |= by_stat;
	}
	add_time(pp, &pp->db->rows[row], xp_dur(l, i));
}

static void plane_event(struct plane_pass *pp, const struct xp_line *l, uint64_t i)
{
	int64_t s = l->start_ps[i], e = xp_event_end(l, i);
	if (!pp->any || s < pp->first_ps)
		pp->first_ps = s;
	if (!pp->any || e > pp->last_ps)
		pp->last_ps = e;
	pp->any = true;
	struct xp_value v;
	/* The hlo_op test comes first, as in xprof: JAX kernels also carry tf_op "XlaModule:". */
	if (event_text(pp, l, i, pp->ids.hlo_op, &v))
		add_xla_event(pp, l, i, &v);
	else if (event_text(pp, l, i, pp->ids.tf_op, &v) || event_text(pp, l, i, pp->ids.level0, &v))
		add_tf_event(pp, l, i, &v);
	/* Anything else (un-annotated kernels, memcpys) only widens the span: it becomes IDLE. */
}

/* Add the plane's IDLE time and totals to the host's (spec §3.1 step 4, summed over planes as §3.4). */
static void finish_plane(struct plane_pass *pp)
{
	struct xp_op_db *db = pp->db;
	int64_t op = pp->op_ps, span = pp->any ? xp_sat_sub(pp->last_ps, pp->first_ps) : 0;
	int64_t total = span > op ? span : op;
	db->total_op_time_ps += op;
	db->total_time_ps += total;
	bool created;
	size_t row = db_get(db, XP_OPK_IDLE, NULL, "IDLE", &created);
	if (created)
		db->rows[row].category = xp_op_db_text0(db, "IDLE");
	db->rows[row].time_ps += total - op;
	db->rows[row].self_ps += total - op;
	db->rows[row].num_cores++;
	db->n_planes++;
}

/* One GPU plane's events into the host's database. */
static void read_plane(struct plane_pass *pp, const struct xp_plane *p)
{
	const struct xp_capture *c = pp->c;
	pp->p = p;
	pp->plane++;
	if (pp->lean)
		pp->lean->plane++;
	pp->any = false;
	pp->op_ps = 0;
	pp->ids = (struct plane_ids){
		xp_plane_stat_id(c, p, "tf_op"), xp_plane_stat_id(c, p, "level 0"),
		xp_plane_stat_id(c, p, "hlo_op"), xp_plane_stat_id(c, p, "hlo_module"),
		xp_plane_stat_id(c, p, "is_eager"), xp_plane_stat_id(c, p, "flops"),
		xp_plane_stat_id(c, p, "bytes_accessed"), xp_plane_stat_id(c, p, "correlation_id"),
		xp_plane_stat_id(c, p, "program_id"),
	};
	for (uint32_t k = 0; k < p->n_lines; k++) {
		const struct xp_line *l = &p->lines[k];
		if (l->derived)
			continue;
		for (uint64_t i = 0; i < l->n_events; i++)
			plane_event(pp, l, i);
	}
	finish_plane(pp);
}

/* --- combining (spec §3.4) ----------------------------------------------------- */

/* Copy a text field into a row where it is still empty: metadata comes from the first non-empty. */
static void fill_text(struct xp_op_db *db, const char **dst, const char *src)
{
	if ((!*dst || !**dst) && src && *src)
		*dst = xp_op_db_text0(db, src);
}

static void fill_problem(char **dst, const char *src)
{
	if ((!*dst || !**dst) && src && *src) {
		free(*dst);
		*dst = xstrndup(src, strlen(src));
	}
}

/* What a resolved XLA row knows of its instruction. */
static void copy_hlo_facts(struct xp_op_db *db, struct xp_op_row *d, const struct xp_op_row *s)
{
	d->program_id = s->program_id;
	d->cost_known = s->cost_known;
	d->flops_gap = s->flops_gap;
	d->elem_type = s->elem_type;
	d->hlo_flops = s->hlo_flops;
	d->hlo_bytes = s->hlo_bytes;
	if (!d->provenance && s->provenance)
		d->provenance = xp_op_db_text0(db, s->provenance);
}

void xp_op_db_merge(struct xp_op_db *into, const struct xp_op_db *from)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct xp_op_row *s = &from->rows[i];
		bool created;
		size_t row = db_get(into, s->kind, s->module, s->name, &created);
		struct xp_op_row *d = &into->rows[row];
		fill_text(into, &d->category, s->category);
		fill_text(into, &d->provenance, s->provenance);
		d->occurrences += s->occurrences;
		d->time_ps += s->time_ps;
		d->self_ps += s->self_ps;
		d->flops += s->flops;
		d->bytes_accessed += s->bytes_accessed;
		d->is_eager |= s->is_eager;
		d->is_eager_stat |= s->is_eager_stat;
		d->num_cores += s->num_cores;
		d->executions += s->executions;
		if (created)
			copy_hlo_facts(into, d, s);
	}
	into->total_time_ps += from->total_time_ps;
	into->total_op_time_ps += from->total_op_time_ps;
	into->n_planes += from->n_planes;
	into->n_dropped_xla += from->n_dropped_xla;
	into->n_xla_events += from->n_xla_events;
	into->n_xla_resolved += from->n_xla_resolved;
	into->n_xla_ambiguous += from->n_xla_ambiguous;
	into->n_hlo_bad += from->n_hlo_bad;
	fill_problem(&into->hlo_problem, from->hlo_problem);
}

struct xp_op_db *xp_op_db_empty(void)
{
	return db_new();
}

/* Nothing merged into DB yet: its rows and totals are those of an empty database. */
static bool db_untouched(const struct xp_op_db *db)
{
	return !db->n && !db->total_time_ps && !db->total_op_time_ps && !db->n_planes && !db->n_dropped_xla &&
	       !db->n_xla_events && !db->n_xla_resolved && !db->n_xla_ambiguous && !db->n_hlo_bad && !db->hlo_problem;
}

struct xp_op_db *xp_op_db_absorb(struct xp_op_db *into, struct xp_op_db *from)
{
	if (!db_untouched(into)) {
		xp_op_db_merge(into, from);
		xp_op_db_free(from);
		return into;
	}
	/* FROM is what merging it into the empty INTO gives, but for the texts a merge leaves out: an empty
	 * category (fill_text copies non-empty ones only) and an empty first problem. */
	for (size_t i = 0; i < from->n; i++)
		if (from->rows[i].category && !from->rows[i].category[0])
			from->rows[i].category = NULL;
	if (from->hlo_problem && !from->hlo_problem[0]) {
		free(from->hlo_problem);
		from->hlo_problem = NULL;
	}
	xp_op_db_free(into);
	return from;
}

/* Host H's device op DB; with LEAN, its TF ops go to LEAN instead of rows. */
static struct xp_op_db *device_db(const struct xp_capture *c, const struct xp_host *h, const struct xp_op_db_opts *o,
				  struct tf_lean *lean)
{
	struct xp_op_db *db = db_new();
	struct xp_hlo_db *hlo = xp_hlo_db_build(c, h);
	/* Planes add to one database rather than each to its own merged after: a row costs one
	 * lookup by name per host, not one per plane and one more per merge. */
	struct plane_pass pp = {.c = c, .o = o, .db = db, .hlo = hlo, .lean = lean};
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (h->planes[i].kind == XP_PLANE_GPU)
			read_plane(&pp, &h->planes[i]);
	free(pp.seen);
	free(pp.tf_cache.slot);
	free(pp.xla_cache.slot);
	db->n_hlo_bad = hlo->n_bad;
	if (hlo->n_bad)
		db->hlo_problem = xstrndup(hlo->first_bad, strlen(hlo->first_bad));
	xp_hlo_db_free(hlo);
	return db;
}

struct xp_op_db *xp_op_db_device(const struct xp_capture *c, const struct xp_host *h, const struct xp_op_db_opts *o)
{
	return device_db(c, h, o, NULL);
}

/* --- the TF-level database (spec §3.3) ------------------------------------------- */

/* Where a device row lands at TF level: kind, module, name and category (name/category malloc'd). */
static void tf_level_key(const struct xp_op_row *r, enum xp_op_kind *kind, const char **module, char **name,
			 char **category)
{
	*kind = r->kind;
	*module = r->module;
	bool xla_resolved = r->kind == XP_OPK_XLA && r->provenance;
	if (r->kind == XP_OPK_IDLE || (r->kind == XP_OPK_XLA && !xla_resolved)) {
		/* XLA rows no HLO proto resolved have no framework op: they keep their HLO name and category. */
		*name = xstrndup(r->name, strlen(r->name));
		*category = r->category ? xstrndup(r->category, strlen(r->category)) : NULL;
		return;
	}
	if (xla_resolved)
		*module = NULL;     /* a framework op gathers its instructions from every program */
	if (!r->provenance || !*r->provenance) {
		*name = xstrndup(r->name, strlen(r->name));
		*category = xstrndup("Unknown", 7);
		return;
	}
	struct xp_tfop t;
	xp_parse_tf_op(r->provenance, strlen(r->provenance), &t);
	*name = xstrndup(t.name, t.name_len);
	*category = t.type_len ? xstrndup(t.type, t.type_len) : xstrndup("Unknown", 7);
}

static void tf_level_add(struct xp_op_db *tf, const struct xp_op_row *r)
{
	enum xp_op_kind kind;
	const char *module;
	char *name, *category;
	tf_level_key(r, &kind, &module, &name, &category);
	bool created;
	size_t row = db_get(tf, kind, module, name, &created);
	struct xp_op_row *d = &tf->rows[row];
	if (created) {
		d->category = xp_op_db_text0(tf, category);
		d->provenance = xp_op_db_text0(tf, r->provenance);
		d->cost_known = r->cost_known;
		d->elem_type = r->elem_type;
	}
	d->cost_known &= r->cost_known;
	d->flops_gap |= r->flops_gap;
	if (r->executions > d->executions)
		d->executions = r->executions;
	/* The kernels of one TF op run once per op execution: count executions, not kernels. */
	if (r->occurrences > d->occurrences)
		d->occurrences = r->occurrences;
	d->time_ps += r->time_ps;
	d->self_ps += r->self_ps;
	d->flops += r->flops;
	d->bytes_accessed += r->bytes_accessed;
	d->is_eager = r->is_eager;
	d->is_eager_stat = r->is_eager_stat;
	if (r->num_cores > d->num_cores)
		d->num_cores = r->num_cores;
	free(name);
	free(category);
}

/* DEV's rows at TF level added to TF, and DEV's totals set in it. */
static void tf_level_into(struct xp_op_db *tf, const struct xp_op_db *dev, bool with_idle)
{
	for (size_t i = 0; i < dev->n; i++) {
		if (dev->rows[i].kind == XP_OPK_IDLE && !with_idle)
			continue;
		tf_level_add(tf, &dev->rows[i]);
	}
	tf->total_op_time_ps = dev->total_op_time_ps;
	tf->total_time_ps = with_idle ? dev->total_time_ps : dev->total_op_time_ps;
	tf->n_planes = dev->n_planes;
	tf->n_dropped_xla = dev->n_dropped_xla;
	tf->n_xla_events = dev->n_xla_events;
	tf->n_xla_resolved = dev->n_xla_resolved;
	tf->n_xla_ambiguous = dev->n_xla_ambiguous;
	tf->n_hlo_bad = dev->n_hlo_bad;
	fill_problem(&tf->hlo_problem, dev->hlo_problem);
}

struct xp_op_db *xp_op_db_tf_level(const struct xp_op_db *dev, bool with_idle)
{
	struct xp_op_db *tf = db_new();
	tf_level_into(tf, dev, with_idle);
	return tf;
}

/* The TF level's facts from device rows, from the records: occurrences and cores the most of any kernel of the
 * op, eager flags those of its last (tf_level_add, over the device rows in order). */
static void lean_finish(struct tf_lean *lean)
{
	for (size_t k = 0; k < lean->n; k++) {
		const struct tf_rec *r = &lean->recs[k];
		struct xp_op_row *d = &lean->tf->rows[r->tf_row];
		if (r->occurrences > d->occurrences)
			d->occurrences = r->occurrences;
		if (r->cores > d->num_cores)
			d->num_cores = r->cores;
		d->is_eager = r->eager;
		d->is_eager_stat = r->eager_stat;
	}
}

/* C's hosts' device op DBs merged in host order, host H read with O[H * O_STEP] (O may be NULL: the defaults)
 * (TF ops in LEAN when given). */
static struct xp_op_db *devices_db(const struct xp_capture *c, const struct xp_op_db_opts *o, size_t o_step,
				   struct tf_lean *lean)
{
	struct xp_op_db *all = xp_op_db_empty();
	for (uint32_t h = 0; h < c->n_hosts; h++)
		all = xp_op_db_absorb(all, device_db(c, &c->hosts[h], o ? &o[h * o_step] : NULL, lean));
	return all;
}

/* The TF level of C's hosts' device rows (IDLE when WITH_IDLE) through the records of LEAN; *ALL_OUT (when
 * given) gets the device rows it was made from but those of TF ops. */
static struct xp_op_db *tf_device(const struct xp_capture *c, const struct xp_op_db_opts *o, size_t o_step,
				  bool with_idle, struct xp_op_db **all_out)
{
	struct tf_lean lean = {.tf = db_new()};
	struct xp_op_db *all = devices_db(c, o, o_step, &lean);
	if (lean.unsure) {  /* rare: the long way */
		xp_op_db_free(lean.tf);
		xp_op_db_free(all);
		all = devices_db(c, o, o_step, NULL);
		lean.tf = db_new();
	} else {
		lean_finish(&lean);
	}
	free(lean.recs);
	free(lean.recs_ix.slot);
	/* TF rows never meet XLA or IDLE ones at TF level (the kind keys them), and rows are found by key: adding
	 * the XLA rows after the TF ones changes nothing but the order, which xp_op_db_sort sets. */
	tf_level_into(lean.tf, all, with_idle);
	if (all_out)
		*all_out = all;
	else
		xp_op_db_free(all);
	return lean.tf;
}

struct xp_op_db *xp_op_db_tf_device(const struct xp_capture *c, const struct xp_op_db_opts *o)
{
	return tf_device(c, o, 0, false, NULL);
}

struct xp_op_db *xp_op_db_tf_device_hosts(const struct xp_capture *c, const struct xp_op_db_opts *host_opts,
					  bool with_idle, struct xp_op_db **all)
{
	return tf_device(c, host_opts, 1, with_idle, all);
}

/* --- ordering ---------------------------------------------------------------------- */

static int cmp_opt_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Self time descending, then name ascending (spec §3.5); module and kind make it total. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct xp_op_row *a = pa, *b = pb;
	if (a->self_ps != b->self_ps)
		return a->self_ps > b->self_ps ? -1 : 1;
	int d = strcmp(a->name, b->name);
	if (d)
		return d;
	d = cmp_opt_str(a->module, b->module);
	if (d)
		return d;
	return (int)a->kind - (int)b->kind;
}

void xp_op_db_sort(struct xp_op_db *db)
{
	if (db->n > 1)
		qsort(db->rows, db->n, sizeof *db->rows, cmp_rows);
	index_rebuild(db);
}

const struct xp_op_row *xp_op_db_find(const struct xp_op_db *db, enum xp_op_kind kind, const char *module,
				      const char *name)
{
	size_t row = db_find(db, kind, module, name);
	return row == (size_t)-1 ? NULL : &db->rows[row];
}

size_t xp_op_db_row(struct xp_op_db *db, enum xp_op_kind kind, const char *module, const char *name, bool *created)
{
	return db_get(db, kind, module, name, created);
}
