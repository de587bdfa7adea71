/* kernel_db.c - the kernel report database (spec analyzers §4): kernel reports per kernel-op pair and their by-op form. */
#include "kernel_db.h"
#include "formats/core/hash.h"
#include "formats/core/xalloc.h"
#include "analyzers/prepare/prepare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Reports live in an array with an open-addressing index over their whole
 * key (host, name, details, Tensor Core flags, op, module). Per GPU plane a
 * cache maps what a kernel event is made of - its metadata entry and the
 * kernel_details, op, module and equation texts - to its report, so that
 * the common case costs a few stat lookups, one hash of those texts and one
 * probe, not a parse, string copies and a report hash per kernel. The texts
 * are slices of the capture (interned strings or the blob arena, where
 * str_value strings live), valid as long as the capture.
 */

static void oom(void)
{
	fputs("xpstat: out of memory\n", stderr);
	abort();
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		oom();
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

struct xp_kernel_index {
	size_t cap;         /* power of two */
	size_t *slot;       /* row + 1; 0 = empty */
};

static bool opt_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static uint64_t report_hash(const struct xp_kernel_report *r)
{
	const struct xp_kernel_details *d = &r->details;
	uint32_t nums[9] = {d->grid[0], d->grid[1], d->grid[2], d->block[0], d->block[1], d->block[2],
			    d->regs, d->static_shmem, d->dynamic_shmem};
	unsigned char flags[3] = {r->uses_tc, r->tc_eligible, r->module != NULL};
	uint64_t h = xp_hash_bytes(XP_HASH_SEED, &r->host, sizeof r->host);
	h = xp_hash_bytes(h, r->name, strlen(r->name) + 1);
	h = xp_hash_bytes(h, r->op_name, strlen(r->op_name) + 1);
	if (r->module)
		h = xp_hash_bytes(h, r->module, strlen(r->module) + 1);
	h = xp_hash_bytes(h, nums, sizeof nums);
	return xp_hash_bytes(h, flags, sizeof flags);
}

/* Same key (spec §4.4, plus host and module); occupancy and the value are not part of it. */
static bool same_key(const struct xp_kernel_report *a, const struct xp_kernel_report *b)
{
	const struct xp_kernel_details *x = &a->details, *y = &b->details;
	return a->host == b->host && a->uses_tc == b->uses_tc && a->tc_eligible == b->tc_eligible &&
	       x->regs == y->regs && x->static_shmem == y->static_shmem && x->dynamic_shmem == y->dynamic_shmem &&
	       !memcmp(x->grid, y->grid, sizeof x->grid) && !memcmp(x->block, y->block, sizeof x->block) &&
	       !strcmp(a->name, b->name) && !strcmp(a->op_name, b->op_name) && opt_eq(a->module, b->module);
}

static void index_put(struct xp_kernel_db *db, size_t row)
{
	struct xp_kernel_index *ix = db->index;
	size_t mask = ix->cap - 1, i = (size_t)report_hash(&db->rows[row]) & mask;
	while (ix->slot[i])
		i = (i + 1) & mask;
	ix->slot[i] = row + 1;
}

static void index_rebuild(struct xp_kernel_db *db)
{
	size_t cap = 64;
	while (cap < db->n * 2 + 2)
		cap *= 2;
	free(db->index->slot);
	db->index->cap = cap;
	db->index->slot = xcalloc(cap, sizeof *db->index->slot);
	for (size_t i = 0; i < db->n; i++)
		index_put(db, i);
}

static struct xp_kernel_db *db_new(void)
{
	struct xp_kernel_db *db = xcalloc(1, sizeof *db);
	db->index = xcalloc(1, sizeof *db->index);
	index_rebuild(db);
	return db;
}

static void report_free(struct xp_kernel_report *r)
{
	free(r->name);
	free(r->op_name);
	free(r->module);
}

void xp_kernel_db_free(struct xp_kernel_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n; i++)
		report_free(&db->rows[i]);
	free(db->rows);
	free(db->index->slot);
	free(db->index);
	free(db);
}

/* The row with R's key; R (its strings) is taken over when new, freed otherwise. */
static size_t db_insert(struct xp_kernel_db *db, struct xp_kernel_report *r)
{
	struct xp_kernel_index *ix = db->index;
	size_t mask = ix->cap - 1, i = (size_t)report_hash(r) & mask;
	for (; ix->slot[i]; i = (i + 1) & mask) {
		if (same_key(&db->rows[ix->slot[i] - 1], r)) {
			report_free(r);
			return ix->slot[i] - 1;
		}
	}
	if (db->n == db->cap) {
		db->cap = db->cap ? db->cap * 2 : 64;
		db->rows = realloc(db->rows, db->cap * sizeof *db->rows);
		if (!db->rows)
			oom();
	}
	size_t row = db->n++;
	db->rows[row] = *r;
	if (ix->cap < db->n * 2 + 2)
		index_rebuild(db);
	else
		ix->slot[i] = row + 1;
	return row;
}

/* --- reading one GPU plane ------------------------------------------------------------ */

struct plane_ids {
	uint32_t details, tf_op, level0, hlo_op, hlo_module, equation, occupancy;
};

/* What a kernel event is made of: slices of the capture (s NULL = absent). */
struct text {
	const char *s;
	uint32_t len;
};

struct kernel_src {
	uint32_t meta;
	bool xla;               /* op from hlo_op */
	struct text details, op, module, equation;
};

struct cache_slot {
	bool used;
	struct kernel_src k;
	uint64_t hash;
	size_t row;
};

struct plane_cache {
	size_t cap, n;
	struct cache_slot *slot;
};

struct plane_pass {
	const struct xp_capture *c;
	const struct xp_plane *p;
	uint32_t host;
	bool compat;
	struct plane_ids ids;
	struct xp_kernel_db *db;
	struct plane_cache cache;
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
		find_in(pp, xp_meta_stats(pp->p, l->meta[i]), sid, ks, left);
}

/* A non-empty string stat of the event (its own first, then its metadata's). */
static bool event_text(const struct kernel_stats *ks, unsigned j)
{
	return ks->found[j] && is_text(&ks->v[j]);
}

static struct text text_of(const struct kernel_stats *ks, unsigned j)
{
	return event_text(ks, j) ? (struct text){ks->v[j].s, ks->v[j].len} : (struct text){NULL, 0};
}

/* Which op annotation names the kernel (see kernel_stats.h). */
static void find_op(const struct plane_pass *pp, const struct kernel_stats *ks, struct kernel_src *k)
{
	if (!pp->compat && event_text(ks, S_HLO_OP)) {
		k->xla = true;
		k->op = text_of(ks, S_HLO_OP);
		k->module = text_of(ks, S_HLO_MODULE);
		return;
	}
	k->op = text_of(ks, event_text(ks, S_TF_OP) ? S_TF_OP : S_LEVEL0);
}

static bool kernel_source(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, struct kernel_src *k)
{
	struct kernel_stats ks;
	memset(k, 0, sizeof *k);
	find_stats(pp, l, i, &ks);
	if (!event_text(&ks, S_DETAILS))
		return false;
	k->details = text_of(&ks, S_DETAILS);
	k->meta = l->meta[i];
	find_op(pp, &ks, k);
	k->equation = text_of(&ks, S_EQUATION);
	return true;
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

/* Theoretical occupancy: occ_pct of kernel_details, else the theoretical_occupancy_pct stat. */
static void occupancy(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, struct xp_kernel_report *r)
{
	struct xp_value v;
	int64_t n;
	if (r->details.fields & XP_KD_F_OCC) {
		r->has_occupancy = true;
		r->occupancy_pct = r->details.occupancy_pct;
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

/* A new report (value zero) for the kernel event i; strings are copied. */
static void make_report(const struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct kernel_src *k,
			struct xp_kernel_report *r)
{
	memset(r, 0, sizeof *r);
	r->host = pp->host;
	const char *name = xp_str(pp->c, xp_event_name(pp->p, l, i));
	size_t name_len = xp_strlen(pp->c, xp_event_name(pp->p, l, i));
	r->name = xstrndup(name, name_len);
	xp_kernel_details_parse(k->details.s, k->details.len, &r->details);
	if (k->xla) {
		const char *op;
		size_t op_len;
		hlo_name(k->op.s, k->op.len, &op, &op_len);
		r->op_name = xstrndup(op, op_len);
		r->module = xstrndup(k->module.s ? k->module.s : "", k->module.len);
	} else if (k->op.s) {
		struct xp_tfop t;
		xp_parse_tf_op(k->op.s, k->op.len, &t);
		r->op_name = xstrndup(t.name, t.name_len);
	} else {
		r->op_name = xstrndup("", 0);
	}
	r->uses_tc = xp_kernel_uses_tensor_core(name, name_len);
	r->tc_eligible = r->uses_tc || xp_op_tensor_core_eligible(r->op_name, strlen(r->op_name)) ||
			 (k->equation.s && xp_einsum_tensor_core_eligible(k->equation.s, k->equation.len));
	occupancy(pp, l, i, r);
}

static uint64_t hash_text(uint64_t h, struct text t)
{
	return t.s ? xp_hash_bytes(h, t.s, t.len) : xp_hash_u64(h, UINT64_MAX);
}

static uint64_t src_hash(const struct kernel_src *k)
{
	uint64_t h = xp_hash_u64(XP_HASH_SEED, (uint64_t)k->meta << 1 | k->xla);
	h = hash_text(h, k->details);
	h = hash_text(h, k->op);
	h = hash_text(h, k->module);
	return hash_text(h, k->equation);
}

static bool text_eq(struct text a, struct text b)
{
	if (!a.s || !b.s)
		return a.s == b.s;
	return a.len == b.len && (a.s == b.s || !memcmp(a.s, b.s, a.len));
}

static bool src_eq(const struct kernel_src *a, const struct kernel_src *b)
{
	return a->meta == b->meta && a->xla == b->xla && text_eq(a->details, b->details) && text_eq(a->op, b->op) &&
	       text_eq(a->module, b->module) && text_eq(a->equation, b->equation);
}

static size_t cache_pos(const struct plane_cache *pc, const struct kernel_src *k, uint64_t h)
{
	size_t mask = pc->cap - 1, i = (size_t)h & mask;
	while (pc->slot[i].used && !(pc->slot[i].hash == h && src_eq(&pc->slot[i].k, k)))
		i = (i + 1) & mask;
	return i;
}

static void cache_grow(struct plane_cache *pc)
{
	struct plane_cache old = *pc;
	pc->cap = old.cap ? old.cap * 2 : 256;
	pc->slot = xcalloc(pc->cap, sizeof *pc->slot);
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].used)
			pc->slot[cache_pos(pc, &old.slot[i].k, old.slot[i].hash)] = old.slot[i];
	free(old.slot);
}

static size_t report_row(struct plane_pass *pp, const struct xp_line *l, uint64_t i, const struct kernel_src *k)
{
	if (pp->cache.n * 2 >= pp->cache.cap)
		cache_grow(&pp->cache);
	uint64_t h = src_hash(k);
	struct cache_slot *s = &pp->cache.slot[cache_pos(&pp->cache, k, h)];
	if (!s->used) {
		struct xp_kernel_report r;
		make_report(pp, l, i, k, &r);
		*s = (struct cache_slot){true, *k, h, db_insert(pp->db, &r)};
		pp->cache.n++;
	}
	return s->row;
}

static void add_kernel(struct plane_pass *pp, const struct xp_line *l, uint64_t i)
{
	struct kernel_src k;
	if (!kernel_source(pp, l, i, &k))
		return;
	int64_t d = l->dur_ps[i];
	struct xp_kernel_value one = {1, d, d, d};
	size_t row = report_row(pp, l, i, &k);   /* may move db->rows */
	xp_kernel_value_merge(&pp->db->rows[row].v, &one);
	pp->db->kernels++;
	pp->db->total_ps += d;
}

static void read_plane(struct xp_kernel_db *db, const struct xp_capture *c, const struct xp_plane *p, uint32_t host,
		       bool compat)
{
	struct plane_pass pp = {.c = c, .p = p, .host = host, .compat = compat, .db = db};
	pp.ids = (struct plane_ids){
		xp_plane_stat_id(c, p, "kernel_details"), xp_plane_stat_id(c, p, "tf_op"),
		xp_plane_stat_id(c, p, "level 0"), xp_plane_stat_id(c, p, "hlo_op"),
		xp_plane_stat_id(c, p, "hlo_module"), xp_plane_stat_id(c, p, "equation"),
		xp_plane_stat_id(c, p, "theoretical_occupancy_pct"),
	};
	if (!pp.ids.details)
		return;
	for (uint32_t k = 0; k < p->n_lines; k++) {
		const struct xp_line *l = &p->lines[k];
		if (l->derived)
			continue;
		for (uint64_t i = 0; i < l->n_events; i++)
			if (l->dur_ps[i] > 0)   /* zero-length (and negative) events are no kernels */
				add_kernel(&pp, l, i);
	}
	free(pp.cache.slot);
}

static void read_host(struct xp_kernel_db *db, const struct xp_capture *c, uint32_t h,
		      const struct xp_kernel_db_opts *o)
{
	const struct xp_host *host = &c->hosts[h];
	for (uint32_t i = 0; i < host->n_planes; i++) {
		if (host->planes[i].kind != XP_PLANE_GPU)
			continue;
		db->gpu_planes++;
		read_plane(db, c, &host->planes[i], h, o && o->xprof_compat);
	}
}

struct xp_kernel_db *xp_kernel_db_host(const struct xp_capture *c, uint32_t h, const struct xp_kernel_db_opts *o)
{
	struct xp_kernel_db *db = db_new();
	db->n_hosts = 1;
	if (h < c->n_hosts)
		read_host(db, c, h, o);
	return db;
}

struct xp_kernel_db *xp_kernel_db_build(const struct xp_capture *c, const struct xp_kernel_db_opts *o)
{
	struct xp_kernel_db *db = db_new();
	db->n_hosts = c->n_hosts;
	for (uint32_t h = 0; h < c->n_hosts; h++)
		read_host(db, c, h, o);
	return db;
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

/* The reference's order (total descending, then the key ascending), then module and host. */
static int cmp_reference(const struct xp_kernel_report *a, const struct xp_kernel_report *b)
{
	int d = cmp_i64_desc(a->v.total_ps, b->v.total_ps);
	if (d || (d = strcmp(a->name, b->name)))
		return d;
	for (int k = 0; k < 3; k++)
		if ((d = cmp_u32(a->details.grid[k], b->details.grid[k])))
			return d;
	for (int k = 0; k < 3; k++)
		if ((d = cmp_u32(a->details.block[k], b->details.block[k])))
			return d;
	if ((d = cmp_u32(a->details.regs, b->details.regs)) ||
	    (d = cmp_u32(a->details.static_shmem, b->details.static_shmem)) ||
	    (d = cmp_u32(a->details.dynamic_shmem, b->details.dynamic_shmem)) ||
	    (d = cmp_u32(a->uses_tc, b->uses_tc)) || (d = cmp_u32(a->tc_eligible, b->tc_eligible)) ||
	    (d = strcmp(a->op_name, b->op_name)))
		return d;
	if (!a->module != !b->module)
		return a->module ? 1 : -1;
	if (a->module && (d = strcmp(a->module, b->module)))
		return d;
	return cmp_u32(a->host, b->host);
}

static int cmp_reports(const void *pa, const void *pb, void *arg)
{
	const struct xp_kernel_report *a = pa, *b = pb;
	int d = 0;
	switch (*(const enum xp_kernel_sort *)arg) {
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

void xp_kernel_db_sort(struct xp_kernel_db *db, enum xp_kernel_sort key)
{
	if (db->n > 1)
		qsort_r(db->rows, db->n, sizeof *db->rows, cmp_reports, &key);
	index_rebuild(db);
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

struct xp_kernel_ops *xp_kernel_ops_by_op(const struct xp_kernel_db *db, bool merge_hosts)
{
	struct xp_kernel_ops *ops = xcalloc(1, sizeof *ops);
	ops->ops = xcalloc(db->n, sizeof *ops->ops);
	/* A small index over (host, op, module): ops are far fewer than kernel events, not than reports. */
	size_t cap = 64;
	while (cap < db->n * 2 + 2)
		cap *= 2;
	size_t *slot = xcalloc(cap, sizeof *slot);
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_kernel_report *r = &db->rows[i];
		uint32_t host = merge_hosts ? 0 : r->host;
		uint64_t h = xp_hash_bytes(XP_HASH_SEED, &host, sizeof host);
		h = xp_hash_bytes(h, r->op_name, strlen(r->op_name) + 1);
		if (r->module)
			h = xp_hash_bytes(h, r->module, strlen(r->module) + 1);
		size_t j = (size_t)h & (cap - 1);
		while (slot[j] && !op_is(&ops->ops[slot[j] - 1], host, r->op_name, r->module))
			j = (j + 1) & (cap - 1);
		if (!slot[j]) {
			struct xp_kernel_op *o = &ops->ops[ops->n];
			o->host = host;
			o->op_name = xstrndup(r->op_name, strlen(r->op_name));
			o->module = r->module ? xstrndup(r->module, strlen(r->module)) : NULL;
			o->tc_eligible = r->tc_eligible;    /* the first report's flag */
			slot[j] = ++ops->n;
		}
		struct xp_kernel_op *o = &ops->ops[slot[j] - 1];
		o->total_ps += r->v.total_ps;
		o->occurrences += r->v.occurrences;
		if (r->uses_tc)
			o->tensor_core_ps += r->v.total_ps;
	}
	free(slot);
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
