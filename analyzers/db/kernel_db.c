/* kernel_db.c - the kernel report database (spec analyzers §4): kernel reports per kernel-op pair and their by-op form. */
#include "kernel_db.h"
#include "pt_ops.h"
#include "hlodb.h"
#include "formats/core/hash.h"
#include "formats/core/satint.h"
#include "formats/core/prefetch.h"
#include "formats/core/xalloc.h"
#include "analyzers/prepare/prepare.h"
#include "formats/core/sort.h"
#include "formats/core/strpool.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Reports live in an array with an open-addressing index over their whole
 * key (host, name, details, Tensor Core flags, op, module). What a kernel
 * is made of is worked out once per distinct text or metadata entry of a
 * GPU plane - the kernel name (pooled, with its Tensor Core check), the
 * parsed kernel_details, the op named by tf_op or hlo_op (pooled, with its
 * eligibility), the module and the einsum equation - so that a kernel
 * event costs a few stat lookups, lookups of those texts (by address for
 * interned strings) and one probe over integers. A report is its struct
 * and an index slot: its strings are the pool's. The texts are slices of
 * the capture (interned strings or the blob arena, where str_value strings
 * live), valid as long as the capture.
 */

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		xp_oom();
	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* --- values (A9) ---------------------------------------------------------------- */

void xp_kernel_value_merge(struct xp_kernel_value *a, const struct xp_kernel_value *b)
{
	if (!b->occurrences)
		return;
	if (!a->occurrences || b->min_ps < a->min_ps)
		a->min_ps = b->min_ps;
	if (!a->occurrences || b->max_ps > a->max_ps)
		a->max_ps = b->max_ps;
	a->occurrences += b->occurrences;
	a->total_ps += b->total_ps;
}

int64_t xp_kernel_avg_ps(const struct xp_kernel_value *v)
{
	if (!v->occurrences)
		return 0;
	int64_t n = (int64_t)v->occurrences;
	return (v->total_ps + n / 2) / n;   /* totals are never negative */
}
/* --- the report index ------------------------------------------------------------- */

/*
 * A report's strings are the pool's (one copy per distinct name), so that a row costs its struct and an index
 * slot, and its key compares as integers: the ids of its name, op and module, the launch shape and the flags.
 */
/* One copy of each launch shape, in blocks that never move (reports point at them): a capture with a launch shape
 * per launch has millions of reports but hundreds of shapes. */
#define SHAPE_BLOCK 256
struct shape_store {
	struct xp_kernel_details **blocks;
	size_t n;               /* shapes */
	size_t cap;             /* slots: a power of two */
	uint32_t *slot;         /* shape + 1; 0 = empty */
};

struct xp_kernel_index {
	struct xp_pool *pool;
	size_t cap;             /* power of two; 0 after a sort, rebuilt when needed */
	/* A cell: row + 1 (0 = empty) and the low half of its key's hash, in one read: most rows that differ are
	 * told apart without reading the row, which is elsewhere in memory (a cache miss each), and the index
	 * grows without reading them either. */
	struct index_cell {
		uint32_t row, hash;
	} *cell;
	struct shape_store shapes;
	struct op_acc *acc;     /* xp_kernel_ops_build's pass: per-op facts instead of rows; else NULL */
};

static struct xp_kernel_details *shape_at(const struct shape_store *s, size_t i)
{
	return &s->blocks[i / SHAPE_BLOCK][i % SHAPE_BLOCK];
}

static size_t shape_pos(const struct shape_store *s, const struct xp_kernel_details *d)
{
	size_t i = (size_t)xp_hash_bytes(XP_HASH_SEED, d, sizeof *d) & (s->cap - 1);
	while (s->slot[i] && memcmp(shape_at(s, s->slot[i] - 1), d, sizeof *d))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static void shapes_grow(struct shape_store *s)
{
	free(s->slot);
	s->cap = s->cap ? s->cap * 2 : 64;
	s->slot = xcalloc(s->cap, sizeof *s->slot);
	for (size_t i = 0; i < s->n; i++)
		s->slot[shape_pos(s, shape_at(s, i))] = (uint32_t)i + 1;
}

/* The store's copy of D (made now when new). D must be fully set, padding included (parse and memset do). */
static const struct xp_kernel_details *shape_intern(struct shape_store *s, const struct xp_kernel_details *d)
{
	if (s->n * 2 + 2 > s->cap)
		shapes_grow(s);
	size_t i = shape_pos(s, d);
	if (s->slot[i])
		return shape_at(s, s->slot[i] - 1);
	if (s->n % SHAPE_BLOCK == 0) {
		s->blocks = xrealloc(s->blocks, (s->n / SHAPE_BLOCK + 1) * sizeof *s->blocks);
		s->blocks[s->n / SHAPE_BLOCK] = xmalloc(SHAPE_BLOCK * sizeof **s->blocks);
	}
	*shape_at(s, s->n) = *d;
	s->slot[i] = (uint32_t)++s->n;
	return shape_at(s, s->n - 1);
}

static void shapes_free(struct shape_store *s)
{
	for (size_t b = 0; b * SHAPE_BLOCK < s->n; b++)
		free(s->blocks[b]);
	free(s->blocks);
	free(s->slot);
}

const struct xp_kernel_details *xp_kernel_db_shape(struct xp_kernel_db *db, const struct xp_kernel_details *d)
{
	struct xp_kernel_details copy;
	memset(&copy, 0, sizeof copy);  /* the store compares bytes */
	copy.regs = d->regs;
	copy.static_shmem = d->static_shmem;
	copy.dynamic_shmem = d->dynamic_shmem;
	copy.private_mem = d->private_mem;
	memcpy(copy.grid, d->grid, sizeof copy.grid);
	memcpy(copy.block, d->block, sizeof copy.block);
	copy.occupancy_pct = d->occupancy_pct;
	copy.fields = d->fields;
	copy.form = d->form;
	return shape_intern(&db->index->shapes, &copy);
}

static bool opt_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* The key of a report (spec §4.4, plus host and module) as numbers; occupancy and the value are not in it. */
struct rkey {
	uint32_t host, name, op, module;    /* pool ids; module 0 = none (a TF kernel) */
	uint32_t nums[9];                   /* grid, block, registers, static and dynamic shared memory */
	uint32_t flags;                     /* uses_tc, tc_eligible */
};

static void key_of(const struct xp_kernel_report *r, struct rkey *k)
{
	const struct xp_kernel_details *d = r->details;
	*k = (struct rkey){r->host, xp_pool_id(r->name), xp_pool_id(r->op_name), r->module ? xp_pool_id(r->module) : 0,
			   {d->grid[0], d->grid[1], d->grid[2], d->block[0], d->block[1], d->block[2], d->regs,
			    d->static_shmem, d->dynamic_shmem},
			   (uint32_t)r->uses_tc | (uint32_t)r->tc_eligible << 1};
}

static uint64_t key_hash(const struct rkey *k)
{
	return xp_hash_bytes(XP_HASH_SEED, k, sizeof *k);
}

/* Whether rows A and B have one key (key_of's fields). Their texts are pooled in the one database, so equal
 * ids are equal pointers, and interned details at one address are equal: most rows that differ are told
 * apart without reading their pool ids or details, which are elsewhere in memory (a cache miss each). */
static bool same_key(const struct xp_kernel_report *a, const struct xp_kernel_report *b)
{
	if (a->host != b->host || a->name != b->name || a->op_name != b->op_name || a->module != b->module ||
	    a->uses_tc != b->uses_tc || a->tc_eligible != b->tc_eligible)
		return false;
	const struct xp_kernel_details *x = a->details, *y = b->details;
	return x == y || (x->regs == y->regs && x->static_shmem == y->static_shmem &&
			  x->dynamic_shmem == y->dynamic_shmem && !memcmp(x->grid, y->grid, sizeof x->grid) &&
			  !memcmp(x->block, y->block, sizeof x->block));
}

/* The cell of R's key: the cell that holds it, or the empty one where it goes. H: key_hash of its key (its low
 * half chooses the cell: the index never reaches 2^32 cells). */
static size_t index_pos(const struct xp_kernel_db *db, const struct xp_kernel_report *r, uint64_t h)
{
	const struct xp_kernel_index *ix = db->index;
	size_t mask = ix->cap - 1, i = (size_t)(uint32_t)h & mask;
	for (; ix->cell[i].row; i = (i + 1) & mask)
		if (ix->cell[i].hash == (uint32_t)h && same_key(&db->rows[ix->cell[i].row - 1], r))
			break;
	return i;
}

/* Row ROW into cell I of the index, found for hash H. */
static void index_put(struct xp_kernel_index *ix, size_t i, size_t row, uint64_t h)
{
	ix->cell[i] = (struct index_cell){(uint32_t)row + 1, (uint32_t)h};
}

static void index_free(struct xp_kernel_index *ix)
{
	free(ix->cell);
	ix->cell = NULL;
	ix->cap = 0;
}

/* Room for twice the rows: the cells move by their hashes when the index grows, else (after a sort, which
 * dropped it) each row's key is hashed again. */
static void index_rebuild(struct xp_kernel_db *db)
{
	struct xp_kernel_index *ix = db->index, old = *ix;
	size_t cap = 64;
	while (cap < db->n * 2 + 2)
		cap *= 2;
	ix->cap = cap;
	ix->cell = xcalloc(cap, sizeof *ix->cell);
	size_t mask = cap - 1;
	if (old.cell) {
		for (size_t k = 0; k < old.cap; k++) {
			if (!old.cell[k].row)
				continue;
			size_t i = old.cell[k].hash & mask;
			while (ix->cell[i].row)
				i = (i + 1) & mask;
			ix->cell[i] = old.cell[k];
		}
		free(old.cell);
		return;
	}
	struct rkey k;
	for (size_t i = 0; i < db->n; i++) {
		key_of(&db->rows[i], &k);
		uint64_t h = key_hash(&k);
		index_put(ix, index_pos(db, &db->rows[i], h), i, h);
	}
}

static struct xp_kernel_db *db_new(void)
{
	struct xp_kernel_db *db = xcalloc(1, sizeof *db);
	db->index = xcalloc(1, sizeof *db->index);
	db->index->pool = xp_pool_new();
	index_rebuild(db);
	return db;
}

struct xp_kernel_db *xp_kernel_db_ref(struct xp_kernel_db *db)
{
	db->refs++;
	return db;
}

void xp_kernel_db_keep_names(struct xp_kernel_db *db, const struct xp_capture *c)
{
	if (db->host_names)
		return;
	db->n_names = c->n_hosts;
	db->host_names = xcalloc(c->n_hosts ? c->n_hosts : 1, sizeof *db->host_names);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		db->host_names[h] = xstrndup(c->hosts[h].name, strlen(c->hosts[h].name));
}

const char *xp_kernel_db_host_name(const struct xp_kernel_db *db, uint32_t h)
{
	return h < db->n_names ? db->host_names[h] : "";
}

_Static_assert(sizeof(struct xp_kernel_report) <= 80, "a kernel row stays 80 bytes");

void xp_kernel_db_number(struct xp_kernel_db *db)
{
	for (size_t i = 0; i < db->n; i++)
		db->rows[i].seq = (uint32_t)i;
}

void xp_kernel_db_free(struct xp_kernel_db *db)
{
	if (!db)
		return;
	if (db->refs) {
		db->refs--;
		return;
	}
	for (uint32_t h = 0; h < db->n_names; h++)
		free(db->host_names[h]);
	free(db->host_names);
	for (uint32_t h = 0; h < db->n_hosts && db->hosts; h++)
		free(db->hosts[h].hlo_problem);
	free(db->hosts);
	free(db->rows);
	free(db->hlo_problem);
	index_free(db->index);
	xp_pool_free(db->index->pool);
	shapes_free(&db->index->shapes);
	free(db->index);
	free(db);
}

/* The row of K, or a new one made from R (value zero) when there is none. */
static size_t db_insert(struct xp_kernel_db *db, const struct rkey *k, const struct xp_kernel_report *r)
{
	if (db->index->cap < db->n * 2 + 2)
		index_rebuild(db);
	uint64_t h = key_hash(k);
	size_t i = index_pos(db, r, h);
	if (db->index->cell[i].row)
		return db->index->cell[i].row - 1;
	if (db->n == db->cap) {
		if (db->n >= XP_KERNEL_ROWS_MAX)
			xp_die("too many kernel rows in one database (more than 2^29)");
		db->cap = db->cap ? db->cap * 2 : 64;
		db->rows = xrealloc(db->rows, db->cap * sizeof *db->rows);
	}
	size_t row = db->n++;
	db->rows[row] = *r;
	index_put(db->index, i, row, h);
	return row;
}

/* --- reading one GPU plane ------------------------------------------------------------ */

struct plane_ids {
	uint32_t details, tf_op, level0, hlo_op, hlo_module, equation, occupancy;
};

/* What is known once per distinct text or event metadata entry of a plane, not per kernel. */
struct kname {
	const char *name;       /* NULL until the first kernel of the metadata entry */
	bool tc;
};

struct kop {
	const char *name;       /* pooled op name */
	bool eligible;          /* by the op rule */
};

struct op_acc;

struct plane_pass {
	struct op_acc *acc;                     /* xp_kernel_ops_build: per-op facts instead of rows; else NULL */
	const struct xp_capture *c;
	const struct xp_plane *p;
	uint32_t host;
	bool compat;
	struct plane_ids ids;
	struct xp_kernel_db *db;
	struct kname *names;                    /* by event metadata index */
	struct xp_textmap details, tf_ops, hlo_ops, modules, equations;
	struct xp_textmap xla_ops;              /* "module\x1fhlo_op" -> op, where HLO protos resolve them */
	const struct xp_hlo_db *hlo;
	const struct xp_pt_ops *pt;             /* PyTorch: the launching operator of each kernel */
	uint32_t plane;
	struct xp_textmap pt_ops;               /* PyTorch operator name -> op */
	const struct xp_kernel_details **dets;  /* values of `details`: the database's copies */
	struct kop *ops;                        /* values of `tf_ops` and `hlo_ops` */
	const char **mods;                      /* values of `modules` */
	size_t n_dets, n_ops, n_mods;
};

static bool is_text(const struct xp_value *v)
{
	return (v->kind == XP_STAT_STR || v->kind == XP_STAT_BLOBSTR) && v->len > 0;
}

/* The stats a kernel is made of, in the order of struct plane_ids. */
enum { S_DETAILS, S_TF_OP, S_LEVEL0, S_HLO_OP, S_HLO_MODULE, S_EQUATION, S_N };

/* Each of them as xp_event_find gives it (the event's last one, else its metadata's last one),
 * found in one pass over each list instead of one per stat: kernels are most of a GPU capture. */
struct kernel_stats {
	struct xp_value v[S_N];
	bool found[S_N];
};

static unsigned find_in(const struct plane_pass *pp, struct xp_stat_view v, const uint32_t *sid,
			struct kernel_stats *ks, unsigned left)
{
	for (uint32_t k = v.n; k-- > 0 && left;) {
		uint32_t meta = xp_stat_meta(v.keys[k]);
		if (xp_stat_kind(v.keys[k]) == XP_STAT_NONE)
			continue;
		for (unsigned j = 0; j < S_N; j++)
			if (sid[j] && sid[j] == meta && !ks->found[j]) {
				xp_view_value(pp->c, &v, k, &ks->v[j]);
				ks->found[j] = true;
				left--;
			}
	}
	return left;
}

static void find_stats(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, struct kernel_stats *ks)
{
	const uint32_t sid[S_N] = {pp->ids.details, pp->ids.tf_op, pp->ids.level0, pp->ids.hlo_op,
				   pp->ids.hlo_module, pp->ids.equation};
	unsigned left = 0;
	for (unsigned j = 0; j < S_N; j++) {
		ks->found[j] = false;
		left += sid[j] != 0; /* a stat the plane lacks is not looked for */
	}
	left = find_in(pp, xp_event_stats(l, i), sid, ks, left);
	if (left)
		find_in(pp, xp_meta_stats(pp->p, xp_meta_of(l, i)), sid, ks, left);
}

/* A non-empty string stat of the event (its own first, then its metadata's). */
static bool event_text(const struct kernel_stats *ks, unsigned j)
{
	return ks->found[j] && is_text(&ks->v[j]);
}

/* The HLO op name is the last "::" part of the hlo_op stat. */
static void hlo_name(const char *s, size_t len, const char **name, size_t *nlen)
{
	const char *start = s;
	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			start = s + i + 2;
	*name = start;
	*nlen = len - (size_t)(start - s);
}

static void *grow_to(void *p, size_t n, size_t size)
{
	/* n is the new count: double at powers of two */
	return (n & (n - 1)) ? p : xrealloc(p, 2 * n * size);
}

/* D with only what a report's key reads of it (grid, block, registers, shared memory): xp_kernel_ops_build
 * keys its rows by the shape's address, so that two texts that differ elsewhere (occupancy) are one row. */
static void key_shape(struct xp_kernel_details *d)
{
	d->private_mem = 0;
	d->occupancy_pct = 0;
	d->fields = 0;
	d->form = XP_KD_NONE;
}

/* V's entry in M: an interned text (the capture's strings) is found by its id. */
static bool text_get(const struct plane_pass *pp, struct xp_textmap *m, const struct xp_value *v, uint32_t *k)
{
	return v->kind == XP_STAT_STR ? xp_textmap_get_interned(m, v->id, pp->c->strings.n, v->s, v->len, k)
				      : xp_textmap_get(m, v->s, v->len, k);
}

static void text_put(const struct plane_pass *pp, struct xp_textmap *m, const struct xp_value *v, uint32_t k)
{
	if (v->kind == XP_STAT_STR)
		xp_textmap_put_interned(m, v->id, pp->c->strings.n, v->s, v->len, k);
	else
		xp_textmap_put(m, v->s, v->len, k);
}

static const struct xp_kernel_details *details_of(struct plane_pass *pp, const struct xp_value *v)
{
	uint32_t k;
	if (!text_get(pp, &pp->details, v, &k)) {
		struct xp_kernel_details d;
		memset(&d, 0, sizeof d);
		xp_kernel_details_parse(v->s, v->len, &d);
		if (pp->acc)
			key_shape(&d);
		k = (uint32_t)pp->n_dets++;
		pp->dets = grow_to(pp->dets, pp->n_dets, sizeof *pp->dets);
		pp->dets[k] = xp_kernel_db_shape(pp->db, &d);
		text_put(pp, &pp->details, v, k);
	}
	return pp->dets[k];
}

static const struct kop *new_op(struct plane_pass *pp, const char *name, size_t len)
{
	size_t k = pp->n_ops++;
	pp->ops = grow_to(pp->ops, pp->n_ops, sizeof *pp->ops);
	pp->ops[k].name = xp_pool_str(pp->db->index->pool, name, len);
	pp->ops[k].eligible = xp_op_tensor_core_eligible(pp->ops[k].name, len);
	return &pp->ops[k];
}

/* The op named by an annotation text (hlo_op, else tf_op or "level 0"), once per distinct text. */
static const struct kop *op_of(struct plane_pass *pp, const struct xp_value *v, bool xla)
{
	struct xp_textmap *m = xla ? &pp->hlo_ops : &pp->tf_ops;
	uint32_t k;
	if (text_get(pp, m, v, &k))
		return &pp->ops[k];
	const char *name;
	size_t len;
	if (xla) {
		hlo_name(v->s, v->len, &name, &len);
	} else {
		struct xp_tfop t;
		xp_parse_tf_op(v->s, v->len, &t);
		name = t.name, len = t.name_len;
	}
	const struct kop *o = new_op(pp, name, len);
	text_put(pp, m, v, (uint32_t)(o - pp->ops));
	return o;
}

/* The op of an XLA kernel where the host has HLO protos: the framework op of its instruction (metadata
 * op_name) when they resolve it and name one, else the HLO op; once per distinct (module, hlo_op). */
static const struct kop *xla_op_of(struct plane_pass *pp, const struct kernel_stats *ks)
{
	const struct xp_value *h = &ks->v[S_HLO_OP], *m = event_text(ks, S_HLO_MODULE) ? &ks->v[S_HLO_MODULE] : NULL;
	if (!pp->hlo || !pp->hlo->n)
		return op_of(pp, h, true);
	size_t mlen = m ? m->len : 0, klen = mlen + 1 + h->len;
	char *key = xmalloc(klen);
	if (m)
		memcpy(key, m->s, mlen);
	key[mlen] = 0x1f;
	memcpy(key + mlen + 1, h->s, h->len);
	/* The map keeps its keys' pointers and its fast path compares them: look up and insert the
	 * pool's copy, one pointer per distinct text, never the temporary. */
	const char *pooled = xp_pool_str(pp->db->index->pool, key, klen);
	free(key);
	uint32_t k;
	const struct kop *o;
	struct xp_hlo_hit hit;
	if (xp_textmap_get(&pp->xla_ops, pooled, klen, &k)) {
		o = &pp->ops[k];
	} else if (xp_hlo_db_resolve(pp->hlo, false, 0, m ? m->s : NULL, mlen, h->s, h->len, &hit) &&
		   hit.in->op_name[0]) {
		o = new_op(pp, hit.in->op_name, strlen(hit.in->op_name));
		xp_textmap_put(&pp->xla_ops, pooled, klen, (uint32_t)(o - pp->ops));
	} else {
		const char *name;
		size_t len;
		hlo_name(h->s, h->len, &name, &len);
		o = new_op(pp, name, len);
		xp_textmap_put(&pp->xla_ops, pooled, klen, (uint32_t)(o - pp->ops));
	}
	return o;
}

static const char *module_of(struct plane_pass *pp, const struct kernel_stats *ks)
{
	if (!event_text(ks, S_HLO_MODULE))
		return xp_pool_str(pp->db->index->pool, "", 0);
	const struct xp_value *v = &ks->v[S_HLO_MODULE];
	uint32_t k;
	if (!text_get(pp, &pp->modules, v, &k)) {
		k = (uint32_t)pp->n_mods++;
		pp->mods = grow_to(pp->mods, pp->n_mods, sizeof *pp->mods);
		pp->mods[k] = xp_pool_str(pp->db->index->pool, v->s, v->len);
		text_put(pp, &pp->modules, v, k);
	}
	return pp->mods[k];
}

static bool einsum_eligible(struct plane_pass *pp, const struct kernel_stats *ks)
{
	if (!event_text(ks, S_EQUATION))
		return false;
	const struct xp_value *v = &ks->v[S_EQUATION];
	uint32_t k;
	if (!text_get(pp, &pp->equations, v, &k)) {
		k = xp_einsum_tensor_core_eligible(v->s, v->len);
		text_put(pp, &pp->equations, v, k);
	}
	return k;
}

static const struct kname *name_of(struct plane_pass *pp, const struct xp_line *l, uint64_t i)
{
	struct kname *n = &pp->names[xp_meta_of(l, i)];
	if (!n->name) {
		uint32_t s = xp_event_name(pp->p, l, i);
		n->name = xp_pool_str(pp->db->index->pool, xp_str(pp->c, s), xp_strlen(pp->c, s));
		n->tc = xp_kernel_uses_tensor_core(n->name, xp_strlen(pp->c, s));
	}
	return n;
}

/* Theoretical occupancy: occ_pct of kernel_details, else the theoretical_occupancy_pct stat. */
static void occupancy(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, struct xp_kernel_report *r)
{
	struct xp_value v;
	int64_t n;
	if (r->details->fields & XP_KD_F_OCC) {
		r->has_occupancy = true;
		r->occupancy_pct = r->details->occupancy_pct;
	} else if (pp->ids.occupancy && xp_event_find(pp->c, pp->p, l, i, pp->ids.occupancy, &v)) {
		if (v.kind == XP_STAT_F64 && v.d == v.d) {
			r->has_occupancy = true;
			r->occupancy_pct = v.d;
		} else if (xp_value_int(&v, &n)) {
			r->has_occupancy = true;
			r->occupancy_pct = (double)n;
		}
	}
}

/* PyTorch: the op is the operator whose runtime call launched the kernel; eligible as that operator is. */
static void pt_report(struct plane_pass *pp, const struct xp_line *l, uint64_t i, struct xp_kernel_report *r)
{
	bool elig;
	uint32_t line = (uint32_t)(l - pp->p->lines), id = xp_pt_owner(pp->pt, pp->plane, line, i, &elig);
	const char *s = id == XP_PT_NO_OWNER ? "" : xp_str(pp->c, id);
	size_t n = id == XP_PT_NO_OWNER ? 0 : xp_strlen(pp->c, id);
	uint32_t k;
	if (!xp_textmap_get(&pp->pt_ops, s, n, &k)) {
		k = (uint32_t)(new_op(pp, s, n) - pp->ops);
		xp_textmap_put(&pp->pt_ops, s, n, k);
	}
	r->op_name = (char *)pp->ops[k].name;
	r->tc_eligible = elig;
}

/* The report of kernel event i without its value (see kernel_stats.h for which annotation names the op). */
static void report_of(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct kernel_stats *ks,
		      struct xp_kernel_report *r)
{
	const struct kname *n = name_of(pp, l, i);
	const struct kop *op;
	memset(r, 0, sizeof *r);
	r->host = pp->host;
	r->name = (char *)n->name;
	r->details = details_of(pp, &ks->v[S_DETAILS]);
	r->uses_tc = n->tc;
	if (pp->pt) {
		pt_report(pp, l, i, r);
		return;
	}
	if (!pp->compat && event_text(ks, S_HLO_OP)) {
		op = xla_op_of(pp, ks);
		r->module = (char *)module_of(pp, ks);
	} else if (event_text(ks, S_TF_OP) || event_text(ks, S_LEVEL0)) {
		op = op_of(pp, &ks->v[event_text(ks, S_TF_OP) ? S_TF_OP : S_LEVEL0], false);
	} else {
		op = NULL;
	}
	r->op_name = (char *)(op ? op->name : xp_pool_str(pp->db->index->pool, "", 0));
	r->uses_tc = n->tc;
	r->tc_eligible = n->tc || (op ? op->eligible : xp_op_tensor_core_eligible("", 0)) || einsum_eligible(pp, ks);
}

/* --- per-op facts without a row per launch shape (xp_kernel_ops_build) ---------------------------------- */

/*
 * The ops by (op name, module), pooled texts compared by address; ELIG: for each op, bit 1 when one of its
 * kernels is Tensor Core eligible, bit 2 when one is not. An op's eligibility is its first row's (by
 * cmp_reference), and only the ops with both bits need it found: each distinct report key is kept as what
 * that order reads of it (a total, the pooled name and key shape, the op, host and flags: 32 bytes), with
 * no report, occupancy or index of the database, and the kernels are read once.
 */
struct op_key {
	int64_t total_ps;
	const char *name;                       /* pooled */
	const struct xp_kernel_details *shape;  /* key_shape's copy: equal keys, equal addresses */
	uint32_t op;                            /* index in ops */
	uint32_t host_flags;                    /* host << 2 | tc_eligible << 1 | uses_tc (hosts: files, far below 2^30) */
};

/* A slot of the key index: the key and the low half of its hash, one cache line read per probe, which tells
 * most keys apart and places them again when the index grows, without reading the key itself. */
struct key_cell {
	uint32_t key;                           /* key + 1; 0 = empty */
	uint32_t hash;
};

struct op_acc {
	struct xp_kernel_ops *ops;
	size_t cap_ops, cap;
	struct key_cell *slot;                  /* the ops' index: op + 1 and the low half of its hash */
	uint8_t *elig;
	struct op_key *keys;
	size_t n_keys, cap_keys, key_cap;       /* key_cap: cells of key_cell, a power of two */
	struct key_cell *key_cell;
	/* Keys waiting to be added, in kernel order: their cells are asked for a chunk ahead (op_key_defer). */
	struct pending_key {
		struct op_key key;
		int64_t d;
	} pend[64];
	size_t n_pend;
};

static uint32_t acc_hash(const char *op, const char *module)
{
	return (uint32_t)xp_hash_mix(xp_hash_u64(xp_hash_u64(XP_HASH_SEED, (uintptr_t)op), (uintptr_t)module));
}

static size_t acc_pos(const struct op_acc *a, const char *op, const char *module, uint32_t h)
{
	size_t i = h & (a->cap - 1);
	for (; a->slot[i].key; i = (i + 1) & (a->cap - 1)) {
		const struct xp_kernel_op *o = &a->ops->ops[a->slot[i].key - 1];
		if (a->slot[i].hash == h && o->op_name == op && o->module == module)
			break;
	}
	return i;
}

static void acc_grow(struct op_acc *a)
{
	free(a->slot);
	a->cap = a->cap ? a->cap * 2 : 64;
	a->slot = xcalloc(a->cap, sizeof *a->slot);
	for (size_t k = 0; k < a->ops->n; k++) {
		const struct xp_kernel_op *o = &a->ops->ops[k];
		uint32_t h = acc_hash(o->op_name, o->module);
		a->slot[acc_pos(a, o->op_name, o->module, h)] = (struct key_cell){(uint32_t)k + 1, h};
	}
}

/* The index of R's op, made when new. */
static size_t acc_op(struct op_acc *a, const struct xp_kernel_report *r)
{
	if ((a->ops->n + 1) * 2 > a->cap)
		acc_grow(a);
	uint32_t h = acc_hash(r->op_name, r->module);
	size_t i = acc_pos(a, r->op_name, r->module, h);
	if (a->slot[i].key)
		return a->slot[i].key - 1;
	if (a->ops->n == a->cap_ops) {
		a->cap_ops = a->cap_ops ? a->cap_ops * 2 : 64;
		a->ops->ops = xrealloc(a->ops->ops, a->cap_ops * sizeof *a->ops->ops);
		a->elig = xrealloc(a->elig, a->cap_ops);
	}
	size_t k = a->ops->n++;
	a->ops->ops[k] = (struct xp_kernel_op){.op_name = r->op_name, .module = r->module};
	a->elig[k] = 0;
	a->slot[i] = (struct key_cell){(uint32_t)k + 1, h};
	return k;
}

static uint64_t op_key_hash(const struct op_key *k)
{
	uint64_t h = xp_hash_u64(XP_HASH_SEED, (uintptr_t)k->name);
	h = xp_hash_u64(h, (uintptr_t)k->shape);
	return xp_hash_mix(xp_hash_u64(h, (uint64_t)k->op << 32 | k->host_flags));
}

/* The cell of K: the one that holds its key, or the empty one where it goes. H: the low half of
 * op_key_hash (K), which alone places a key (the index never reaches 2^32 cells). */
static size_t op_key_pos(const struct op_acc *a, const struct op_key *k, uint32_t h)
{
	size_t mask = a->key_cap - 1, i = h & mask;
	for (; a->key_cell[i].key; i = (i + 1) & mask) {
		const struct op_key *x = &a->keys[a->key_cell[i].key - 1];
		if (a->key_cell[i].hash == h && x->name == k->name && x->shape == k->shape && x->op == k->op &&
		    x->host_flags == k->host_flags)
			break;
	}
	return i;
}

#define KEY_CHUNK 8192

static void op_keys_grow(struct op_acc *a)
{
	size_t cap = a->key_cap ? a->key_cap * 2 : 64, mask = cap - 1;
	struct key_cell *cell = xcalloc(cap, sizeof *cell);
	xp_prefault(cell, cap * sizeof *cell);  /* a quarter full at once: every page is written */
	for (size_t j = 0; j < a->key_cap; j++) {
		if (!a->key_cell[j].key)
			continue;
		size_t i = a->key_cell[j].hash & mask;
		while (cell[i].key)
			i = (i + 1) & mask;
		cell[i] = a->key_cell[j];
	}
	free(a->key_cell);
	a->key_cell = cell;
	a->key_cap = cap;
}

/* D picoseconds more for the report key of K (its total not set). */
static void op_key_add(struct op_acc *a, const struct op_key *k, int64_t d)
{
	if ((a->n_keys + 1) * 2 > a->key_cap)
		op_keys_grow(a);
	uint32_t h = (uint32_t)op_key_hash(k);
	size_t i = op_key_pos(a, k, h);
	if (!a->key_cell[i].key) {
		if (a->n_keys == a->cap_keys) {
			a->cap_keys = a->cap_keys ? a->cap_keys * 2 : 64;
			a->keys = xrealloc(a->keys, a->cap_keys * sizeof *a->keys);
		}
		if (a->n_keys % KEY_CHUNK == 0)   /* the next keys' pages in one call, not a trap each */
			xp_prefault(a->keys + a->n_keys,
				    (a->cap_keys - a->n_keys < KEY_CHUNK ? a->cap_keys - a->n_keys : KEY_CHUNK) *
					    sizeof *a->keys);
		a->keys[a->n_keys] = *k;
		a->keys[a->n_keys].total_ps = 0;
		a->key_cell[i] = (struct key_cell){(uint32_t)++a->n_keys, h};
	}
	a->keys[a->key_cell[i].key - 1].total_ps += d;   /* as xp_kernel_value_merge adds a row's kernels */
}

/*
 * op_key_add for the waiting keys, in order. A key's lookup reads a cell and then the key it holds, two cache
 * misses one after the other when launch shapes are many; asking for all the cells first, then their keys,
 * has them at hand.
 */
static void op_keys_flush(struct op_acc *a)
{
	size_t mask = a->key_cap ? a->key_cap - 1 : 0;
	for (size_t j = 0; j < a->n_pend && a->key_cap; j++)
		xp_prefetch(&a->key_cell[(uint32_t)op_key_hash(&a->pend[j].key) & mask]);
	for (size_t j = 0; j < a->n_pend && a->key_cap; j++) {
		uint32_t at = a->key_cell[(uint32_t)op_key_hash(&a->pend[j].key) & mask].key;
		if (at)
			xp_prefetch(&a->keys[at - 1]);
	}
	for (size_t j = 0; j < a->n_pend; j++)
		op_key_add(a, &a->pend[j].key, a->pend[j].d);
	a->n_pend = 0;
}

static void op_key_defer(struct op_acc *a, const struct op_key *k, int64_t d)
{
	a->pend[a->n_pend++] = (struct pending_key){*k, d};
	if (a->n_pend == sizeof a->pend / sizeof *a->pend)
		op_keys_flush(a);
}

/* Kernel R of D picoseconds counted into its op, and into its report key's total. */
static void op_gathered(struct op_acc *a, const struct xp_kernel_report *r, int64_t d)
{
	size_t k = acc_op(a, r);
	struct xp_kernel_op *o = &a->ops->ops[k];
	/* summed as xp_kernel_ops_by_op sums its rows' totals */
	o->total_ps += d;
	o->occurrences++;
	if (r->uses_tc)
		o->tensor_core_ps += d;
	a->elig[k] |= r->tc_eligible ? 1 : 2;
	struct op_key key = {0, r->name, r->details, (uint32_t)k,
			     r->host << 2 | (uint32_t)r->tc_eligible << 1 | (uint32_t)r->uses_tc};
	op_key_defer(a, &key, d);
}

static void add_kernel(struct plane_pass *pp, const struct xp_line *l, uint64_t i)
{
	struct kernel_stats ks;
	find_stats(pp, l, i, &ks);
	if (!event_text(&ks, S_DETAILS))
		return;
	struct xp_kernel_report r;
	struct rkey k;
	report_of(pp, l, i, &ks, &r);
	if (pp->acc) {
		op_gathered(pp->acc, &r, xp_dur(l, i));
		return;
	}
	key_of(&r, &k);
	size_t n = pp->db->n, row = db_insert(pp->db, &k, &r);
	if (row == n)   /* new: occupancy is the first occurrence's */
		occupancy(pp, l, i, &pp->db->rows[row]);
	int64_t d = xp_dur(l, i);
	struct xp_kernel_value one = {1, d, d, d};
	xp_kernel_value_merge(&pp->db->rows[row].v, &one);
	pp->db->kernels++;
	pp->db->total_ps += d;
}

static void pass_free(struct plane_pass *pp)
{
	free(pp->names);
	xp_textmap_free(&pp->details);
	xp_textmap_free(&pp->tf_ops);
	xp_textmap_free(&pp->hlo_ops);
	xp_textmap_free(&pp->modules);
	xp_textmap_free(&pp->equations);
	xp_textmap_free(&pp->xla_ops);
	xp_textmap_free(&pp->pt_ops);
	free(pp->dets);
	free(pp->ops);
	free(pp->mods);
}

static void read_plane(struct xp_kernel_db *db, const struct xp_capture *c, uint32_t plane, uint32_t host,
		       bool compat, const struct xp_hlo_db *hlo, const struct xp_pt_ops *pt)
{
	const struct xp_plane *p = &c->hosts[host].planes[plane];
	bool zero_ok = xp_host_is_pytorch(&c->hosts[host]);
	struct plane_pass pp = {.c = c, .p = p, .host = host, .compat = compat, .db = db, .hlo = hlo, .pt = pt,
				.plane = plane, .acc = db->index->acc};
	pp.ids = (struct plane_ids){
		xp_plane_stat_id(c, p, "kernel_details"), xp_plane_stat_id(c, p, "tf_op"),
		xp_plane_stat_id(c, p, "level 0"), xp_plane_stat_id(c, p, "hlo_op"),
		xp_plane_stat_id(c, p, "hlo_module"), xp_plane_stat_id(c, p, "equation"),
		xp_plane_stat_id(c, p, "theoretical_occupancy_pct"),
	};
	if (!pp.ids.details)
		return;
	pp.names = xcalloc(p->n_emeta + 1, sizeof *pp.names);
	for (uint32_t k = 0; k < p->n_lines; k++) {
		const struct xp_line *l = &p->lines[k];
		if (l->derived)
			continue;
		for (uint64_t i = 0; i < l->n_events; i++)
			/* Zero-length (and negative) events are no kernels, but in microsecond trace JSON (PyTorch)
			 * dur 0 means a launch under a microsecond: counted, as the PyTorch profiler does. */
			if (xp_dur(l, i) > 0 || (zero_ok && xp_dur(l, i) == 0))
				add_kernel(&pp, l, i);
	}
	pass_free(&pp);
}

struct xp_kernel_db *xp_kernel_db_new(uint32_t n_hosts)
{
	struct xp_kernel_db *db = db_new();
	db->n_hosts = n_hosts;
	db->hosts = xcalloc(n_hosts ? n_hosts : 1, sizeof *db->hosts);
	return db;
}

void xp_kernel_db_add_host(struct xp_kernel_db *db, uint32_t h, const struct xp_kernel_host *hs)
{
	struct xp_kernel_host *mine = &db->hosts[h];
	*mine = *hs;
	mine->hlo_problem = hs->hlo_problem ? xstrndup(hs->hlo_problem, strlen(hs->hlo_problem)) : NULL;
	db->gpu_planes += hs->gpu_planes;
	db->kernels += hs->kernels;
	db->total_ps += hs->total_ps;
	if (hs->pt) {
		db->pt = true;
		db->pt_op_kernel_ps = xp_sat_add(db->pt_op_kernel_ps, hs->pt_op_kernel_ps);
		db->pt_tc_bottom_ps = xp_sat_add(db->pt_tc_bottom_ps, hs->pt_tc_bottom_ps);
	}
	if (hs->n_hlo_bad && !db->hlo_problem)
		db->hlo_problem = xstrndup(hs->hlo_problem, strlen(hs->hlo_problem));
	db->n_hlo_bad += hs->n_hlo_bad;
}

void xp_kernel_db_add(struct xp_kernel_db *db, const struct xp_kernel_report *r)
{
	struct xp_pool *pool = db->index->pool;
	struct xp_kernel_report c = *r;
	c.name = (char *)xp_pool_str(pool, r->name, strlen(r->name));
	c.op_name = (char *)xp_pool_str(pool, r->op_name, strlen(r->op_name));
	c.module = r->module ? (char *)xp_pool_str(pool, r->module, strlen(r->module)) : NULL;
	c.details = xp_kernel_db_shape(db, r->details);
	struct rkey k;
	key_of(&c, &k);
	size_t n = db->n, row = db_insert(db, &k, &c);
	if (row != n)
		xp_kernel_value_merge(&db->rows[row].v, &c.v);
}

/* Host H's planes into DB, its totals through xp_kernel_db_add_host (what combine rebuilds them with). */
static void read_host(struct xp_kernel_db *db, const struct xp_capture *c, uint32_t h, uint32_t slot,
		      const struct xp_kernel_db_opts *o)
{
	const struct xp_host *host = &c->hosts[h];
	struct xp_hlo_db *hlo = xp_hlo_db_build(c, host);
	struct xp_pt_ops *pt = xp_host_is_pytorch(host) ? xp_pt_ops_build(c, host) : NULL;
	struct xp_kernel_host hs = {0};
	uint64_t kernels = db->kernels;
	int64_t total = db->total_ps;
	for (uint32_t i = 0; i < host->n_planes; i++) {
		if (host->planes[i].kind != XP_PLANE_GPU)
			continue;
		hs.gpu_planes++;
		read_plane(db, c, i, h, o && o->xprof_compat, hlo, pt);
	}
	/* read_plane counts kernels into DB's totals; they move to the host's. */
	hs.kernels = db->kernels - kernels;
	hs.total_ps = db->total_ps - total;
	db->kernels = kernels;
	db->total_ps = total;
	if (pt) {
		hs.pt = true;
		hs.pt_op_kernel_ps = pt->op_kernel_ps;
		hs.pt_tc_bottom_ps = pt->tc_bottom_ps;
	}
	xp_pt_ops_free(pt);
	hs.n_hlo_bad = hlo->n_bad;
	hs.hlo_problem = hlo->n_bad ? (char *)hlo->first_bad : NULL;
	xp_kernel_db_add_host(db, slot, &hs);
	xp_hlo_db_free(hlo);
}

struct xp_kernel_db *xp_kernel_db_host(const struct xp_capture *c, uint32_t h, const struct xp_kernel_db_opts *o)
{
	struct xp_kernel_db *db = xp_kernel_db_new(1);
	if (h < c->n_hosts)
		read_host(db, c, h, 0, o);
	return db;
}

struct xp_kernel_db *xp_kernel_db_build(const struct xp_capture *c, const struct xp_kernel_db_opts *o)
{
	struct xp_kernel_db *db = xp_kernel_db_new(c->n_hosts);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		read_host(db, c, h, h, o);
	return db;
}

static int cmp_key_shape(const char *na, const struct xp_kernel_details *a, unsigned fa, const char *nb,
			 const struct xp_kernel_details *b, unsigned fb);

/* Whether key A of an op sorts before key B of the same op in cmp_reference's order: what that order
 * compares but the op and module, which they share. */
static bool op_key_first(const struct op_key *a, const struct op_key *b)
{
	if (a->total_ps != b->total_ps)
		return a->total_ps > b->total_ps;
	int d = cmp_key_shape(a->name, a->shape, a->host_flags & 3, b->name, b->shape, b->host_flags & 3);
	return d ? d < 0 : a->host_flags >> 2 < b->host_flags >> 2;
}

/* The ops whose kernels disagree on eligibility take their first row's (by the reference's order). */
static void settle_mixed(struct op_acc *a)
{
	size_t *best = xmalloc((a->ops->n ? a->ops->n : 1) * sizeof *best);
	for (size_t k = 0; k < a->ops->n; k++)
		best[k] = SIZE_MAX;
	for (size_t i = 0; i < a->n_keys; i++) {
		const struct op_key *x = &a->keys[i];
		size_t *b = &best[x->op];
		if (a->elig[x->op] == 3 && (*b == SIZE_MAX || op_key_first(x, &a->keys[*b])))
			*b = i;
	}
	for (size_t k = 0; k < a->ops->n; k++)
		if (best[k] != SIZE_MAX)
			a->ops->ops[k].tc_eligible = (a->keys[best[k]].host_flags >> 1) & 1;
	free(best);
}

struct xp_kernel_ops *xp_kernel_ops_build(const struct xp_capture *c, const struct xp_kernel_db_opts *o)
{
	struct op_acc a = {.ops = xcalloc(1, sizeof *a.ops)};
	struct xp_kernel_db *db = xp_kernel_db_new(c->n_hosts);
	db->index->acc = &a;
	for (uint32_t h = 0; h < c->n_hosts; h++)
		read_host(db, c, h, h, o);
	op_keys_flush(&a);
	for (size_t k = 0; k < a.ops->n; k++)
		a.ops->ops[k].tc_eligible = a.elig[k] & 1;
	settle_mixed(&a);
	/* the texts outlive the database's pool */
	for (size_t k = 0; k < a.ops->n; k++) {
		struct xp_kernel_op *op = &a.ops->ops[k];
		op->op_name = xstrndup(op->op_name, strlen(op->op_name));
		op->module = op->module ? xstrndup(op->module, strlen(op->module)) : NULL;
	}
	free(a.slot);
	free(a.elig);
	free(a.keys);
	free(a.key_cell);
	xp_kernel_db_free(db);
	return a.ops;
}

/* --- ordering ------------------------------------------------------------------------------ */

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_i64_desc(int64_t a, int64_t b)
{
	return a > b ? -1 : a < b;
}

/* The reference's key order from the kernel name to the flags (FA, FB: tc_eligible << 1 | uses_tc). */
static int cmp_key_shape(const char *na, const struct xp_kernel_details *a, unsigned fa, const char *nb,
			 const struct xp_kernel_details *b, unsigned fb)
{
	int d = na == nb ? 0 : strcmp(na, nb);
	if (d)
		return d;
	for (int k = 0; k < 3; k++)
		if ((d = cmp_u32(a->grid[k], b->grid[k])))
			return d;
	for (int k = 0; k < 3; k++)
		if ((d = cmp_u32(a->block[k], b->block[k])))
			return d;
	if ((d = cmp_u32(a->regs, b->regs)) || (d = cmp_u32(a->static_shmem, b->static_shmem)) ||
	    (d = cmp_u32(a->dynamic_shmem, b->dynamic_shmem)) || (d = cmp_u32(fa & 1, fb & 1)))
		return d;
	return cmp_u32(fa >> 1, fb >> 1);
}

/* The reference's order (total descending, then the key ascending), then module and host. */
static int cmp_reference(const struct xp_kernel_report *a, const struct xp_kernel_report *b)
{
	int d = cmp_i64_desc(a->v.total_ps, b->v.total_ps);
	if (d || (d = cmp_key_shape(a->name, a->details, (unsigned)a->tc_eligible << 1 | a->uses_tc, b->name,
				    b->details, (unsigned)b->tc_eligible << 1 | b->uses_tc)) ||
	    (d = strcmp(a->op_name, b->op_name)))
		return d;
	if (!a->module != !b->module)
		return a->module ? 1 : -1;
	if (a->module && (d = strcmp(a->module, b->module)))
		return d;
	return cmp_u32(a->host, b->host);
}

static int cmp_reports(const struct xp_kernel_report *a, const struct xp_kernel_report *b, enum xp_kernel_sort key)
{
	int d = 0;
	switch (key) {
	case XP_KSORT_COUNT:
		d = a->v.occurrences > b->v.occurrences ? -1 : a->v.occurrences < b->v.occurrences;
		break;
	case XP_KSORT_AVG:
		d = cmp_i64_desc(xp_kernel_avg_ps(&a->v), xp_kernel_avg_ps(&b->v));
		break;
	case XP_KSORT_MAX:
		d = cmp_i64_desc(a->v.max_ps, b->v.max_ps);
		break;
	case XP_KSORT_NAME:
		d = strcmp(a->name, b->name);
		break;
	case XP_KSORT_TOTAL:
		break;
	}
	return d ? d : cmp_reference(a, b);
}

/*
 * Sorting moves 16-byte keys, not 120-byte reports, and compares two integers that settle almost every
 * pair: the sort key and then the total (descending) or the name's rank; only ties go to the full order.
 */
struct skey {
	uint64_t a, b;
	uint32_t row;
};

static _Thread_local const struct xp_kernel_report *sort_rows;
static _Thread_local enum xp_kernel_sort sort_key;

static inline bool skey_less(const struct skey *x, const struct skey *y)
{
	if (x->a != y->a)
		return x->a < y->a;
	if (x->b != y->b)
		return x->b < y->b;
	return cmp_reports(&sort_rows[x->row], &sort_rows[y->row], sort_key) < 0;
}

XP_DEFINE_SORT(sort_skeys, struct skey, skey_less)

/* Descending order of a signed value as an ascending unsigned one. */
static uint64_t desc(int64_t v)
{
	return ~((uint64_t)v ^ (1ull << 63));
}

static struct skey skey_of(const struct xp_kernel_report *r, size_t row, enum xp_kernel_sort key, const uint32_t *rank)
{
	uint64_t total = desc(r->v.total_ps), name = rank[xp_pool_id(r->name)];
	switch (key) {
	case XP_KSORT_COUNT:
		return (struct skey){~r->v.occurrences, total, (uint32_t)row};
	case XP_KSORT_AVG:
		return (struct skey){desc(xp_kernel_avg_ps(&r->v)), total, (uint32_t)row};
	case XP_KSORT_MAX:
		return (struct skey){desc(r->v.max_ps), total, (uint32_t)row};
	case XP_KSORT_NAME:
		return (struct skey){name, total, (uint32_t)row};
	default:
		return (struct skey){total, name, (uint32_t)row};
	}
}

/* Rows into the order of K (K[i].row is the row that goes to place i); K's rows are used up. */
static void permute(struct xp_kernel_report *rows, struct skey *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (k[i].row == UINT32_MAX)
			continue;
		struct xp_kernel_report tmp = rows[i];
		size_t j = i;
		for (;;) {
			size_t from = k[j].row;
			k[j].row = UINT32_MAX;
			if (from == i) {
				rows[j] = tmp;
				break;
			}
			rows[j] = rows[from];
			j = from;
		}
	}
}

/* The index is rebuilt only if a report is added to a database that was sorted or ordered. */
static void drop_index(struct xp_kernel_db *db)
{
	index_free(db->index);
}

void xp_kernel_db_sort(struct xp_kernel_db *db, enum xp_kernel_sort key)
{
	if (db->n < 2)
		return;
	const uint32_t *rank = xp_pool_ranks(db->index->pool);
	struct skey *k = xcalloc(db->n, sizeof *k);
	for (size_t i = 0; i < db->n; i++)
		k[i] = skey_of(&db->rows[i], i, key, rank);
	sort_rows = db->rows;
	sort_key = key;
	sort_skeys(k, db->n);
	permute(db->rows, k, db->n);
	free(k);
	db->sorts++;
	drop_index(db);
}

/* Insert X into BEST, the HAVE best keys seen so far in order, keeping at most N. */
static void keep_best(struct skey *best, size_t *have, size_t n, const struct skey *x)
{
	if (*have == n && !skey_less(x, &best[n - 1]))
		return;
	size_t j = *have < n ? (*have)++ : n - 1;
	for (; j > 0 && skey_less(x, &best[j - 1]); j--)
		best[j] = best[j - 1];
	best[j] = *x;
}

size_t xp_kernel_db_order(struct xp_kernel_db *db, enum xp_kernel_sort key, const bool *kept, size_t n, uint32_t *out)
{
	const uint32_t *rank = xp_pool_ranks(db->index->pool);
	sort_rows = db->rows;
	sort_key = key;
	size_t m = 0;
	struct skey *k;
	if (n <= 64) {
		/* A text table shows 25 rows: keep the best N seen, in order, instead of keying and sorting
		 * millions; no key per row is held. */
		k = xcalloc(n ? n : 1, sizeof *k);
		for (size_t i = 0; i < db->n; i++)
			if (kept[i]) {
				struct skey x = skey_of(&db->rows[i], i, key, rank);
				keep_best(k, &m, n, &x);
			}
		n = m;
	} else {
		k = xcalloc(db->n ? db->n : 1, sizeof *k);
		for (size_t i = 0; i < db->n; i++)
			if (kept[i])
				k[m++] = skey_of(&db->rows[i], i, key, rank);
		sort_skeys(k, m);
		if (n > m)
			n = m;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = k[i].row;
	free(k);
	drop_index(db);
	return n;
}

/* --- by op (spec §4.5) ---------------------------------------------------------------------- */

static bool op_is(const struct xp_kernel_op *o, uint32_t host, const char *op, const char *module)
{
	return o->host == host && !strcmp(o->op_name, op) && opt_eq(o->module, module);
}

const struct xp_kernel_op *xp_kernel_ops_find(const struct xp_kernel_ops *ops, uint32_t host, const char *op_name,
					      const char *module)
{
	for (size_t i = 0; ops && i < ops->n; i++)
		if (op_is(&ops->ops[i], host, op_name, module))
			return &ops->ops[i];
	return NULL;
}

/* Where (host, op, module) of report R goes in the op index; a database's own reports have pooled names,
 * whose addresses stand for them. */
static size_t op_pos(const struct xp_kernel_ops *ops, const size_t *slot, size_t cap, uint32_t host,
		     const struct xp_kernel_report *r, bool pooled)
{
	uint64_t h = xp_hash_u64(XP_HASH_SEED, host);
	if (pooled) {
		h = xp_hash_u64(xp_hash_u64(h, (uintptr_t)r->op_name), (uintptr_t)r->module);
	} else {
		h = xp_hash_bytes(h, r->op_name, strlen(r->op_name) + 1);
		if (r->module)
			h = xp_hash_bytes(h, r->module, strlen(r->module) + 1);
	}
	size_t j = (size_t)h & (cap - 1);
	while (slot[j]) {
		const struct xp_kernel_op *o = &ops->ops[slot[j] - 1];
		if (pooled ? o->host == host && o->op_name == r->op_name && o->module == r->module
			   : op_is(o, host, r->op_name, r->module))
			break;
		j = (j + 1) & (cap - 1);
	}
	return j;
}

/* The op's flag is that of its report that sorts first by total (the reference's "first report"), found in
 * one pass: the database need not be sorted. Names are the pool's until copied at the end. */
struct xp_kernel_ops *xp_kernel_ops_by_op(const struct xp_kernel_db *db, bool merge_hosts)
{
	struct xp_kernel_ops *ops = xcalloc(1, sizeof *ops);
	ops->ops = xcalloc(db->n ? db->n : 1, sizeof *ops->ops);
	bool pooled = db->index != NULL;
	size_t cap = 64;
	while (cap < db->n * 2 + 2)
		cap *= 2;
	size_t *slot = xcalloc(cap, sizeof *slot), *first = xcalloc(db->n ? db->n : 1, sizeof *first);
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_kernel_report *r = &db->rows[i];
		uint32_t host = merge_hosts ? 0 : r->host;
		size_t j = op_pos(ops, slot, cap, host, r, pooled);
		if (!slot[j]) {
			ops->ops[ops->n] = (struct xp_kernel_op){.host = host, .op_name = r->op_name, .module = r->module};
			first[ops->n] = i;
			slot[j] = ++ops->n;
		}
		struct xp_kernel_op *o = &ops->ops[slot[j] - 1];
		if (cmp_reference(r, &db->rows[first[slot[j] - 1]]) < 0)
			first[slot[j] - 1] = i;
		o->total_ps += r->v.total_ps;
		o->occurrences += r->v.occurrences;
		if (r->uses_tc)
			o->tensor_core_ps += r->v.total_ps;
	}
	for (size_t k = 0; k < ops->n; k++) {
		struct xp_kernel_op *o = &ops->ops[k];
		o->tc_eligible = db->rows[first[k]].tc_eligible;
		o->op_name = xstrndup(o->op_name, strlen(o->op_name));
		o->module = o->module ? xstrndup(o->module, strlen(o->module)) : NULL;
	}
	free(slot);
	free(first);
	return ops;
}

void xp_kernel_ops_free(struct xp_kernel_ops *ops)
{
	if (!ops)
		return;
	for (size_t i = 0; i < ops->n; i++) {
		free(ops->ops[i].op_name);
		free(ops->ops[i].module);
	}
	free(ops->ops);
	free(ops);
}
