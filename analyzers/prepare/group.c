/* group.c - event grouping into steps (the EventForest of spec xplane-format §4), or reading the ids of pre-grouped captures. */
#include "group.h"
#include "formats/core/bits.h"
#include "formats/core/dectext.h"
#include "formats/core/hash.h"
#include "formats/core/prefetch.h"
#include "formats/core/xalloc.h"
#include "formats/core/radix.h"
#include "formats/core/sort.h"
#include "formats/core/work.h"

#include <stdlib.h>
#include <string.h>

/*
 * Every event of every non-derived line is a node, numbered line by line.
 * Edges run parent -> child: time nesting on a line, producer/consumer
 * contexts, ExecutorState::Process -> IteratorGetNext by (id, iter_num), and
 * a host launch -> device kernel by correlation_id. Roots (stat _r, or named
 * TraceContext, or TF loop iterations) spread their group id breadth-first to
 * every node below them that has none yet. Arrays are 32-bit per node so a
 * capture of tens of millions of events stays within a few hundred MB.
 * Nesting children are not listed: a node's nesting descendants are the
 * events that follow it on its line (in start order) up to the first one
 * nested outside it, so a spread walks that range; only the extra edges,
 * a few per hundred nodes, are kept as a sorted list of (from, to).
 */

enum name_kind {
	NK_OTHER = 0, NK_TRACE_CONTEXT, NK_FUNCTION_RUN, NK_SESSION_RUN, NK_RUN_GRAPH, NK_EXECUTOR_PROCESS,
	NK_GET_NEXT, NK_CAPTURED_FUNCTION, NK_LOOP_OP
};

enum stat_role {
	SR_NONE = 0, SR_ROOT, SR_ASYNC, SR_PT, SR_P, SR_CT, SR_C, SR_CORR, SR_ID, SR_ITER, SR_STEP_NUM, SR_GRAPH_TYPE,
	SR_GROUP_ID, SR_STEP_NAME
};

/* --- small growable vectors ------------------------------------------------ */

struct u32vec {
	uint32_t *v;
	size_t n, cap;
};

static void u32_push(struct u32vec *a, uint32_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
		xp_prefault(a->v + a->n, (a->cap - a->n) * sizeof *a->v); /* written through: one call, not a trap a page */
	}
	a->v[a->n++] = x;
}

struct keyed {
	uint64_t a, b;      /* key */
	uint32_t node;
	uint32_t flag;      /* producer 1 / consumer 0; or iteration */
};

struct keyvec {
	struct keyed *v;
	size_t n, cap;
};

static void key_push(struct keyvec *a, uint64_t ka, uint64_t kb, uint32_t node, uint32_t flag)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
		xp_prefault(a->v + a->n, (a->cap - a->n) * sizeof *a->v);
	}
	a->v[a->n++] = (struct keyed){ka, kb, node, flag};
}

/* qsort with an empty array is undefined when the pointer is NULL. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* Keys are unique (the node is part of them), so the order is total. */
static inline bool keyed_less(const struct keyed *a, const struct keyed *b)
{
	if (a->a != b->a)
		return a->a < b->a;
	if (a->b != b->b)
		return a->b < b->b;
	if (a->flag != b->flag)
		return a->flag < b->flag;
	return a->node < b->node;
}

XP_DEFINE_SORT(sort_keyed, struct keyed, keyed_less)

/* --- correlation_id -> launch (open addressing, sized once; the last insert wins) --- */

/* A slot holds an index into the launch arrays, not the id and node: 4 bytes
 * a slot instead of 12, and the id is read from the launch array on a probe. */
struct corr_map {
	const uint64_t *ids;    /* correlation id of each launch */
	uint32_t *slots;        /* launch index + 1; 0 = empty */
	size_t cap;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	return x;
}

static void corr_init(struct corr_map *m, const uint64_t *ids, size_t n)
{
	m->ids = ids;
	m->cap = 1024;
	while (m->cap < 2 * n + 2)
		m->cap *= 2;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
}

static void corr_put(struct corr_map *m, uint32_t launch)
{
	uint64_t key = m->ids[launch];
	size_t j = mix(key) & (m->cap - 1);
	while (m->slots[j] && m->ids[m->slots[j] - 1] != key)
		j = (j + 1) & (m->cap - 1);
	m->slots[j] = launch + 1;
}

static bool corr_get(const struct corr_map *m, uint64_t key, uint32_t *launch)
{
	size_t j = mix(key) & (m->cap - 1);
	while (m->slots[j]) {
		if (m->ids[m->slots[j] - 1] == key) {
			*launch = m->slots[j] - 1;
			return true;
		}
		j = (j + 1) & (m->cap - 1);
	}
	return false;
}

/* --- the forest -------------------------------------------------------------- */

struct fline {
	uint32_t plane, line;
	uint32_t base;          /* first node */
	uint32_t *order;        /* sorted permutation for unsorted lines, else NULL */
};

struct root {
	uint32_t node;
	int64_t level;
	int64_t start;
};

struct forest {
	const struct xp_capture *c;
	const struct xp_host *h;
	struct fline *lines;
	uint32_t n_lines;
	uint32_t n;
	int32_t *gid;
	int32_t *nest_parent;           /* -1: none (at the top of a line, or async) */
	uint8_t *nested;                /* bit per node: it has a nesting parent (kept after nest_parent) */
	uint8_t *async;                 /* bit per node: async (never nested); the spreads' nesting test */
	uint32_t **rank;                /* per line: each event's place in start order (unsorted lines only) */
	struct range_ends {             /* the ranges the spreads walked (spread_range) */
		uint64_t *slot;
		size_t cap, n;
	} ends;
	uint64_t spread_steps;          /* events the spreads passed over (XP_WORK_SPREAD) */
	struct u32vec queue;            /* a spread's nodes to visit: one array for every root's spread */
	struct u32vec ex_from, ex_to;   /* extra (non-nesting) edges */
	/* Children over extra edges, as (from << 32 | to), sorted; has_child: a bit per node with any. */
	uint64_t *child_keys;
	size_t n_child_keys;
	uint8_t *has_child;
	/* Where a node's keys start, without a search: child_first[r] for the r-th node with children, r counted
	 * from child_rank (the nodes with children before each 64) and the bits of has_child before it. */
	uint32_t *child_rank, *child_first;
	/* Parents over extra edges, for the few walks up from a root: each edge as (to << 32 | from), by child
	 * and then in edge order. Sparse, where offsets would take a word for every node. */
	uint64_t *parent_keys;
	size_t n_parent_keys;
	struct root *roots;
	size_t n_roots, cap_roots;
	struct keyvec contexts, iters, getnexts;
	struct corr_map launches;       /* correlation_id -> last host launch node */
	struct u32vec launch_nodes;     /* host launches in node order ... */
	uint64_t *launch_corr;          /* ... and their ids, indexed after the scan */
	/* Device events with a correlation_id: how many, and on which lines (read again when linked, not kept). */
	size_t n_exec;
	uint8_t *exec_lines;
	struct u32vec captured_ids_nodes;
	uint64_t *captured_ids;
	size_t n_captured;
	uint8_t *named_root;    /* bit per node: a root with a group name */
	uint8_t **mkind;        /* per plane: name kind of each event metadata */
	uint8_t **srole;        /* per plane: role of each stat metadata */
	bool loop_ops;
};

static const struct fline *line_of(const struct forest *f, uint32_t node, uint32_t *idx)
{
	uint32_t lo = 0, hi = f->n_lines;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (f->lines[mid].base <= node)
			lo = mid;
		else
			hi = mid;
	}
	*idx = node - f->lines[lo].base;
	return &f->lines[lo];
}

static uint8_t classify_name(const char *n)
{
	if (!strcmp(n, "TraceContext"))
		return NK_TRACE_CONTEXT;
	if (!strcmp(n, "FunctionRun"))
		return NK_FUNCTION_RUN;
	if (!strcmp(n, "SessionRun"))
		return NK_SESSION_RUN;
	if (!strcmp(n, "RunGraph"))
		return NK_RUN_GRAPH;
	if (!strcmp(n, "ExecutorState::Process"))
		return NK_EXECUTOR_PROCESS;
	if (!strcmp(n, "IteratorGetNextOp::DoCompute") || !strcmp(n, "IteratorGetNextAsOptionalOp::DoCompute"))
		return NK_GET_NEXT;
	if (!strncmp(n, "InstantiatedCapturedFunction::Run", 33))
		return NK_CAPTURED_FUNCTION;
	if (!strcmp(n, "WhileOp-EvalCond") || !strcmp(n, "WhileOp-StartBody") || !strcmp(n, "ForOp") ||
	    !strcmp(n, "ParallelForOp") || !strcmp(n, "ForeverOp"))
		return NK_LOOP_OP;
	return NK_OTHER;
}

static uint8_t classify_stat(const char *n)
{
	static const struct {
		const char *name;
		uint8_t role;
	} roles[] = {
		{"_r", SR_ROOT}, {"_a", SR_ASYNC}, {"_pt", SR_PT}, {"_p", SR_P}, {"_ct", SR_CT}, {"_c", SR_C},
		{"correlation_id", SR_CORR}, {"id", SR_ID}, {"iter_num", SR_ITER}, {"step_num", SR_STEP_NUM},
		{"graph_type", SR_GRAPH_TYPE}, {"group_id", SR_GROUP_ID}, {"step_name", SR_STEP_NAME},
	};
	for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
		if (!strcmp(n, roles[i].name))
			return roles[i].role;
	return SR_NONE;
}

static void classify_planes(struct forest *f)
{
	const struct xp_host *h = f->h;
	f->mkind = xcalloc(h->n_planes, sizeof *f->mkind);
	f->srole = xcalloc(h->n_planes, sizeof *f->srole);
	for (uint32_t p = 0; p < h->n_planes; p++) {
		const struct xp_plane *pl = &h->planes[p];
		f->mkind[p] = xcalloc(pl->n_emeta, 1);
		f->srole[p] = xcalloc(pl->n_smeta, 1);
		for (uint32_t m = 1; m < pl->n_emeta; m++) {
			f->mkind[p][m] = classify_name(xp_str(f->c, pl->emeta[m].name));
			f->loop_ops |= f->mkind[p][m] == NK_LOOP_OP;
		}
		for (uint32_t s = 1; s < pl->n_smeta; s++)
			if ((f->srole[p][s] = classify_stat(xp_str(f->c, pl->smeta[s].name))))
				xp_stat_must_be_loaded(f->c, pl, s);
	}
}

static int cmp_order(const void *x, const void *y, void *arg)
{
	const struct xp_line *l = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (l->start_ps[a] != l->start_ps[b])
		return l->start_ps[a] < l->start_ps[b] ? -1 : 1;
	if (xp_dur(l, a) != xp_dur(l, b))
		return xp_dur(l, a) > xp_dur(l, b) ? -1 : 1;
	return (a > b) - (a < b);
}

uint32_t *xp_line_sorted_order(const struct xp_line *l)
{
	if (!l->unsorted)
		return NULL;
	uint32_t *o = xmalloc(l->n_events * sizeof *o);
	for (uint64_t i = 0; i < l->n_events; i++)
		o[i] = (uint32_t)i;
	qsort_r(o, l->n_events, sizeof *o, cmp_order, (void *)l);
	return o;
}

static void index_lines(struct forest *f)
{
	const struct xp_host *h = f->h;
	uint32_t n = 0;
	for (uint32_t p = 0; p < h->n_planes; p++)
		n += h->planes[p].n_lines;
	f->lines = xcalloc(n, sizeof *f->lines);
	uint64_t nodes = 0;
	for (uint32_t p = 0; p < h->n_planes; p++)
		for (uint32_t k = 0; k < h->planes[p].n_lines; k++) {
			const struct xp_line *l = &h->planes[p].lines[k];
			if (l->derived)
				continue;
			f->lines[f->n_lines++] = (struct fline){p, k, (uint32_t)nodes, xp_line_sorted_order(l)};
			nodes += l->n_events;
		}
	if (nodes >= INT32_MAX)
		xp_die("too many events in one host to group (more than 2^31)");
	f->n = (uint32_t)nodes;
}

/* Stats of one event that grouping cares about. */
struct evstats {
	bool async, has_root, has_corr, has_id, has_iter;
	uint8_t has_p, has_c;   /* bit 1: id seen, bit 2: type seen */
	int64_t root, pt, ct, id, iter;
	uint64_t p, c, corr;
};

static void read_stats(const struct forest *f, uint32_t plane, const struct xp_line *l, uint64_t i,
		       struct evstats *s)
{
	memset(s, 0, sizeof *s);
	struct xp_stat_view v = xp_event_stats(l, i);
	const uint8_t *role = f->srole[plane];
	for (uint32_t k = 0; k < v.n; k++) {
		unsigned kind = xp_stat_kind(v.keys[k]);
		if (kind != XP_STAT_I64 && kind != XP_STAT_U64)
			continue;
		uint64_t val = xp_view_val(&v, k);
		switch (role[xp_stat_meta(v.keys[k])]) {
		case SR_ROOT: s->has_root = true; s->root = (int64_t)val; break;
		case SR_ASYNC: s->async = val != 0; break;
		case SR_PT: s->pt = (int64_t)val; s->has_p |= 2; break;
		case SR_P: s->p = val; s->has_p |= 1; break;
		case SR_CT: s->ct = (int64_t)val; s->has_c |= 2; break;
		case SR_C: s->c = val; s->has_c |= 1; break;
		case SR_CORR: s->has_corr = true; s->corr = val; break;
		case SR_ID: s->has_id = true; s->id = (int64_t)val; break;
		case SR_ITER: s->has_iter = true; s->iter = (int64_t)val; break;
		default: break;
		}
	}
}

static void add_root(struct forest *f, uint32_t node, int64_t level, int64_t start)
{
	if (f->n_roots == f->cap_roots) {
		f->cap_roots = f->cap_roots ? f->cap_roots * 2 : 64;
		f->roots = xrealloc(f->roots, f->cap_roots * sizeof *f->roots);
	}
	f->roots[f->n_roots++] = (struct root){node, level, start};
}

/* Nesting parents: on each line in start order, the innermost open event that holds the next one (async
 * events are not nested and nest nothing). After the links, which need more memory than these. */
static void nest_events(struct forest *f)
{
	const struct xp_host *h = f->h;
	f->nest_parent = xmalloc((size_t)f->n * sizeof *f->nest_parent);
	xp_prefault(f->nest_parent, (size_t)f->n * sizeof *f->nest_parent);
	uint32_t *stack = NULL;
	size_t cap = 0;
	for (uint32_t li = 0; li < f->n_lines; li++) {
		const struct fline *fl = &f->lines[li];
		const struct xp_line *l = &h->planes[fl->plane].lines[fl->line];
		size_t depth = 0;
		for (uint64_t k = 0; k < l->n_events; k++) {
			uint32_t i = fl->order ? fl->order[k] : (uint32_t)k;
			uint32_t node = fl->base + i;
			int64_t b = l->start_ps[i], e = b + xp_dur(l, i);
			f->nest_parent[node] = -1;
			if (f->async[node >> 3] & (1u << (node & 7)))
				continue;
			while (depth) {
				uint32_t top = stack[depth - 1] - fl->base;
				if (l->start_ps[top] <= b && e <= l->start_ps[top] + xp_dur(l, top))
					break;
				depth--;
			}
			if (depth)
				f->nest_parent[node] = (int32_t)stack[depth - 1];
			if (depth == cap) {
				cap = cap ? cap * 2 : 256;
				stack = xrealloc(stack, cap * sizeof *stack);
			}
			stack[depth++] = node;
		}
	}
	free(stack);
}

/* Pass over every event's stats: async events, roots and the keyed lists for links. */
static void scan_events(struct forest *f)
{
	const struct xp_host *h = f->h;
	f->exec_lines = xcalloc(f->n_lines + 1, 1);
	f->async = xcalloc(((size_t)f->n + 7) / 8, 1);
	for (uint32_t li = 0; li < f->n_lines; li++) {
		const struct fline *fl = &f->lines[li];
		const struct xp_plane *pl = &h->planes[fl->plane];
		const struct xp_line *l = &pl->lines[fl->line];
		bool host_cpu = pl->kind == XP_PLANE_HOST_CPU;
		for (uint64_t k = 0; k < l->n_events; k++) {
			uint32_t i = fl->order ? fl->order[k] : (uint32_t)k;
			uint32_t node = fl->base + i;
			int64_t b = l->start_ps[i];
			struct evstats s;
			read_stats(f, fl->plane, l, i, &s);
			if (s.async)
				f->async[node >> 3] |= (uint8_t)(1u << (node & 7));
			uint8_t nk = f->mkind[fl->plane][xp_meta_of(l, i)];
			int64_t level = s.has_root ? s.root : nk == NK_TRACE_CONTEXT ? 1 : 0;
			if (level >= 1)
				add_root(f, node, level, b);
			if (s.has_p == 3)
				key_push(&f->contexts, (uint64_t)s.pt, s.p, node, 1);
			if (s.has_c == 3)
				key_push(&f->contexts, (uint64_t)s.ct, s.c, node, 0);
			if (s.has_corr && host_cpu) {
				if (f->launch_nodes.n == f->launch_nodes.cap)
					f->launch_corr = xrealloc(f->launch_corr, (f->launch_nodes.cap ? f->launch_nodes.cap * 2 : 64) *
									      sizeof *f->launch_corr);
				f->launch_corr[f->launch_nodes.n] = s.corr;
				u32_push(&f->launch_nodes, node);
			} else if (s.has_corr) {
				f->n_exec++;
				f->exec_lines[li] = 1;
			}
			if (nk == NK_EXECUTOR_PROCESS && s.has_id && s.has_iter)
				key_push(&f->iters, (uint64_t)s.id, (uint64_t)s.iter, node, 1);
			if (nk == NK_GET_NEXT && s.has_id && s.has_iter)
				key_push(&f->getnexts, (uint64_t)s.id, (uint64_t)s.iter, node, 0);
			if (nk == NK_CAPTURED_FUNCTION && s.has_id)
				key_push(&f->getnexts, (uint64_t)s.id, 0, node, 2); /* tf.data ids, flag 2 */
		}
	}
}

static void add_edge(struct forest *f, uint32_t from, uint32_t to)
{
	if (from == to)
		return;
	u32_push(&f->ex_from, from);
	u32_push(&f->ex_to, to);
}

/* Producer -> consumer contexts; a bucket with >= 64 of each is skipped. */
static void link_contexts(struct forest *f)
{
	struct keyvec *kv = &f->contexts;
	sort_keyed(kv->v, kv->n);
	for (size_t i = 0; i < kv->n;) {
		size_t j = i;
		while (j < kv->n && kv->v[j].a == kv->v[i].a && kv->v[j].b == kv->v[i].b)
			j++;
		size_t nc = 0;
		while (i + nc < j && kv->v[i + nc].flag == 0)
			nc++;
		size_t np = j - i - nc;
		if (!(np >= 64 && nc >= 64))
			for (size_t p = i + nc; p < j; p++)
				for (size_t c = i; c < i + nc; c++)
					add_edge(f, kv->v[p].node, kv->v[c].node);
		i = j;
	}
}

/* The launches, once their edges are made (or the direct table holds them). */
static void drop_correlations(struct forest *f)
{
	free(f->launches.slots);
	f->launches = (struct corr_map){0};
	free(f->launch_nodes.v);
	f->launch_nodes = (struct u32vec){0};
	free(f->launch_corr);
	f->launch_corr = NULL;
}

/* The correlation_id of event I of line L as the scan read it (the last one of integer type). */
static bool event_corr(const struct forest *f, uint32_t plane, const struct xp_line *l, uint64_t i, uint64_t *corr)
{
	struct xp_stat_view v = xp_event_stats(l, i);
	const uint8_t *role = f->srole[plane];
	bool found = false;
	for (uint32_t k = 0; k < v.n; k++) {
		unsigned kind = xp_stat_kind(v.keys[k]);
		if ((kind == XP_STAT_I64 || kind == XP_STAT_U64) && role[xp_stat_meta(v.keys[k])] == SR_CORR) {
			*corr = xp_view_val(&v, k);
			found = true;
		}
	}
	return found;
}

/* Correlation ids in a direct table: CUPTI numbers them densely from one counter, others from one counter per
 * thread or stream in the low 32 bits under its number in the high ones. Each distinct high word is a cluster,
 * its ids from the least to the greatest a run of the table; a capture whose clusters are too many or too
 * sparse for that uses the hash map instead. */
enum { CORR_CLUSTERS = 64, CLUSTER_SLOTS = 128 };

struct corr_direct {
	uint32_t *table;                /* launch node + 1 per id of each cluster's run; 0: none */
	uint32_t n;                     /* clusters */
	uint32_t high[CORR_CLUSTERS];   /* each's ids >> 32 */
	uint64_t lo[CORR_CLUSTERS], hi[CORR_CLUSTERS];
	size_t at[CORR_CLUSTERS];       /* its run's start in table */
	uint8_t slot[CLUSTER_SLOTS];    /* by the high word's hash: cluster + 1; 0: empty */
};

static size_t cluster_slot(const struct corr_direct *d, uint32_t high)
{
	size_t i = (size_t)(mix(high) & (CLUSTER_SLOTS - 1));
	while (d->slot[i] && d->high[d->slot[i] - 1] != high)
		i = (i + 1) & (CLUSTER_SLOTS - 1);
	return i;
}

/* ID's cluster, made when new; false when there would be too many. */
static bool note_cluster(struct corr_direct *d, uint64_t id)
{
	size_t i = cluster_slot(d, (uint32_t)(id >> 32));
	if (!d->slot[i]) {
		if (d->n == CORR_CLUSTERS)
			return false;
		d->high[d->n] = (uint32_t)(id >> 32);
		d->lo[d->n] = d->hi[d->n] = id;
		d->slot[i] = (uint8_t)++d->n;
	}
	uint32_t k = d->slot[i] - 1u;
	d->lo[k] = id < d->lo[k] ? id : d->lo[k];
	d->hi[k] = id > d->hi[k] ? id : d->hi[k];
	return true;
}

/* Where the direct table keeps correlation C, or NULL when no launch has it. */
static uint32_t *direct_entry(const struct corr_direct *d, uint64_t c)
{
	uint8_t k = d->slot[cluster_slot(d, (uint32_t)(c >> 32))];
	if (!k || c < d->lo[k - 1] || c > d->hi[k - 1])
		return NULL;
	return &d->table[d->at[k - 1] + (size_t)(c - d->lo[k - 1])];
}

/* The direct table of the N launches, the last launch of an id winning; false (nothing made) when their ids
 * come in more clusters than it holds, or its runs would take more than about four entries a launch. */
static bool direct_init(struct corr_direct *d, const struct forest *f, size_t n)
{
	memset(d, 0, sizeof *d);
	for (size_t k = 0; k < n; k++)
		if (!note_cluster(d, f->launch_corr[k]))
			return false;
	uint64_t total = 0;
	for (uint32_t k = 0; k < d->n; k++) {
		d->at[k] = (size_t)total;
		total += d->hi[k] - d->lo[k] + 1;      /* a cluster's run is 2^32 ids at most: no overflow */
		if (total >= 4 * (uint64_t)n + 1024)
			return false;
	}
	d->table = xcalloc((size_t)total, sizeof *d->table);
	for (size_t k = 0; k < n; k++)
		*direct_entry(d, f->launch_corr[k]) = f->launch_nodes.v[k] + 1;
	return true;
}

/* Where the table or map keeps correlation C: the cache line a lookup of C reads first. */
static const void *corr_slot(const struct forest *f, const struct corr_direct *direct, uint64_t c)
{
	if (direct)
		return direct_entry(direct, c);
	return &f->launches.slots[mix(c) & (f->launches.cap - 1)];
}

/*
 * The events K0..K1 (in start order) of line FL: each with a correlation_id to its launch. A lookup is two
 * cache misses (the slot, then the launch's id) a kernel, one after the other; over a chunk the slots are
 * asked for first, then the ids, then the lookups find both at hand. The edges come in the same order.
 */
enum { LINK_CHUNK = 64 };

static void link_exec_chunk(struct forest *f, const struct fline *fl, const struct xp_line *l, uint64_t k0,
			    uint64_t k1, const struct corr_direct *direct)
{
	uint32_t idx[LINK_CHUNK];
	uint64_t corr[LINK_CHUNK];
	const uint32_t *entry[LINK_CHUNK];
	size_t n = 0;
	for (uint64_t k = k0; k < k1; k++) {
		uint32_t i = fl->order ? fl->order[k] : (uint32_t)k;
		if (!event_corr(f, fl->plane, l, i, &corr[n]))
			continue;
		const void *slot = corr_slot(f, direct, corr[n]);
		if (slot)
			xp_prefetch(slot);
		entry[n] = slot;
		idx[n++] = i;
	}
	for (size_t j = 0; j < n && !direct; j++) {
		uint32_t at = *entry[j];
		if (at)
			xp_prefetch(&f->launches.ids[at - 1]);
	}
	for (size_t j = 0; j < n; j++) {
		uint32_t launch;
		if (direct) {
			if (entry[j] && *entry[j])
				add_edge(f, *entry[j] - 1, fl->base + idx[j]);
		} else if (corr_get(&f->launches, corr[j], &launch)) {
			add_edge(f, f->launch_nodes.v[launch], fl->base + idx[j]);
		}
	}
}

/* Each device event with a correlation_id (in the scan's order: line, then start) to its launch, if any:
 * from the direct table when DIRECT, else from the hash map. */
static void link_execs(struct forest *f, const struct corr_direct *direct)
{
	for (uint32_t li = 0; li < f->n_lines; li++) {
		if (!f->exec_lines[li])
			continue;
		const struct fline *fl = &f->lines[li];
		const struct xp_line *l = &f->h->planes[fl->plane].lines[fl->line];
		for (uint64_t k = 0; k < l->n_events; k += LINK_CHUNK)
			link_exec_chunk(f, fl, l, k, k + LINK_CHUNK < l->n_events ? k + LINK_CHUNK : l->n_events, direct);
	}
}

/* Host launch -> device kernel on equal correlation_id; the last launch wins. The direct table usually
 * holds them (the launches are dropped once it is filled); the hash map, sized once, covers the rest. */
static void link_correlations(struct forest *f)
{
	size_t n = f->launch_nodes.n;
	if (!n || !f->n_exec)
		return;
	struct corr_direct *direct = xmalloc(sizeof *direct);
	if (direct_init(direct, f, n)) {
		drop_correlations(f);
		link_execs(f, direct);
		free(direct->table);
		free(direct);
		return;
	}
	free(direct);
	corr_init(&f->launches, f->launch_corr, n);
	for (size_t k = 0; k < n; k += LINK_CHUNK) {    /* each insert's slot asked for a chunk ahead */
		size_t end = k + LINK_CHUNK < n ? k + LINK_CHUNK : n;
		for (size_t a = k; a < end; a++)
			xp_prefetch(corr_slot(f, NULL, f->launch_corr[a]));
		for (size_t a = k; a < end; a++)
			corr_put(&f->launches, (uint32_t)a);
	}
	link_execs(f, NULL);
}

static bool same_key(const struct keyed *x, const struct keyed *y)
{
	return x->a == y->a && x->b == y->b;
}

/* ExecutorState::Process -> IteratorGetNext on (id, iter_num): the last
 * producer of a key (the largest node) links to each of its consumers. The
 * iterations (sorted in place; loop_roots reuses the order) and the
 * consumers are sorted apart and walked together, not sorted as one list. */
static void link_iterators(struct forest *f)
{
	struct keyvec *it = &f->iters, cons = {0};
	sort_keyed(it->v, it->n);
	for (size_t i = 0; i < f->getnexts.n; i++)
		if (f->getnexts.v[i].flag == 0)
			key_push(&cons, f->getnexts.v[i].a, f->getnexts.v[i].b, f->getnexts.v[i].node, 0);
	sort_keyed(cons.v, cons.n);
	size_t p = 0;
	for (size_t c = 0; c < cons.n;) {
		const struct keyed *k = &cons.v[c];
		size_t ce = c;
		while (ce < cons.n && same_key(&cons.v[ce], k))
			ce++;
		while (p < it->n && (it->v[p].a < k->a || (it->v[p].a == k->a && it->v[p].b < k->b)))
			p++;
		size_t pe = p;
		while (pe < it->n && same_key(&it->v[pe], k))
			pe++;
		if (pe > p)
			for (size_t x = c; x < ce; x++)
				add_edge(f, it->v[pe - 1].node, cons.v[x].node);
		p = pe;
		c = ce;
	}
	free(cons.v);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static void collect_tfdata_ids(struct forest *f)
{
	f->captured_ids = xmalloc((f->getnexts.n + 1) * sizeof *f->captured_ids);
	for (size_t i = 0; i < f->getnexts.n; i++)
		if (f->getnexts.v[i].flag == 2)
			f->captured_ids[f->n_captured++] = f->getnexts.v[i].a;
	sort(f->captured_ids, f->n_captured, sizeof *f->captured_ids, cmp_u64);
}

static bool is_tfdata_id(const struct forest *f, uint64_t id)
{
	return f->n_captured && bsearch(&id, f->captured_ids, f->n_captured, sizeof id, cmp_u64);
}

/* Sort M keys of (node << 32 | node or edge). The edges are made walking the lines in time order, so the keys
 * mostly come as a few ascending runs (a stream's kernels, a thread's launches), merged rather than sorted afresh. */
static void sort_keys(const struct forest *f, uint64_t *keys, size_t m)
{
	unsigned bits = 32;
	while (bits < 64 && (uint64_t)f->n >> (bits - 32))
		bits++;
	uint64_t *tmp = xmalloc(m * sizeof *tmp + 1);
	xp_sort_u64(keys, m, tmp, bits);
	free(tmp);
}

/* The has_child bits of nodes [64 B, 64 B + 64), node 64 B + i at bit i (has_child is whole words long). */
static inline uint64_t child_word(const struct forest *f, size_t b)
{
	const uint8_t *p = f->has_child + b * 8;
	uint64_t w = 0;
	for (unsigned i = 0; i < 8; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return w;
}

/* child_rank and child_first for the sorted child_keys. */
static void rank_children(struct forest *f)
{
	size_t blocks = ((size_t)f->n + 63) / 64;
	f->child_rank = xmalloc((blocks + 1) * sizeof *f->child_rank);
	uint32_t r = 0;
	for (size_t b = 0; b < blocks; b++) {
		f->child_rank[b] = r;
		r += xp_popcount64(child_word(f, b));
	}
	f->child_first = xmalloc(((size_t)r + 1) * sizeof *f->child_first);
	uint32_t k = 0;
	for (size_t e = 0; e < f->n_child_keys; e++)
		if (!e || f->child_keys[e] >> 32 != f->child_keys[e - 1] >> 32)
			f->child_first[k++] = (uint32_t)e;
	f->child_first[k] = (uint32_t)f->n_child_keys;
}

/* The first of V's entries in child_keys; V has one (has_child). */
static size_t first_child(const struct forest *f, uint32_t v)
{
	uint64_t below = child_word(f, v >> 6) & (((uint64_t)1 << (v & 63)) - 1);
	return f->child_first[f->child_rank[v >> 6] + xp_popcount64(below)];
}

/* The children of the extra edges, sorted by parent, from parent_keys (duplicates are harmless: a spread
 * visits a node once). */
static void index_children(struct forest *f)
{
	size_t m = f->n_parent_keys;
	f->child_keys = xmalloc(m * sizeof *f->child_keys + 1);
	f->has_child = xcalloc(((size_t)f->n + 63) / 64 * 8 + 8, 1);
	for (size_t e = 0; e < m; e++) {
		uint32_t from = (uint32_t)f->parent_keys[e], to = (uint32_t)(f->parent_keys[e] >> 32);
		f->child_keys[e] = (uint64_t)from << 32 | to;
		f->has_child[from >> 3] |= (uint8_t)(1u << (from & 7));
	}
	f->n_child_keys = m;
	sort_keys(f, f->child_keys, m);
	rank_children(f);
}

/* Each event's place in start order, for the lines not stored in that order. */
static void rank_lines(struct forest *f)
{
	f->rank = xcalloc(f->n_lines + 1, sizeof *f->rank);
	for (uint32_t li = 0; li < f->n_lines; li++) {
		const struct fline *fl = &f->lines[li];
		if (!fl->order)
			continue;
		uint64_t n = f->h->planes[fl->plane].lines[fl->line].n_events;
		f->rank[li] = xmalloc(n * sizeof **f->rank + 1);
		for (uint64_t k = 0; k < n; k++)
			f->rank[li][fl->order[k]] = (uint32_t)k;
	}
}

/* The parents of the extra edges, as (to << 32 | from) in edge order for each child: sorted by (to, edge),
 * then the edge replaced by its parent. The edge lists are not needed after it. */
static void index_parents(struct forest *f)
{
	size_t m = f->ex_to.n;
	f->parent_keys = xmalloc(m * sizeof *f->parent_keys + 1);
	for (size_t e = 0; e < m; e++)
		f->parent_keys[e] = (uint64_t)f->ex_to.v[e] << 32 | e;
	f->n_parent_keys = m;
	free(f->ex_to.v);
	f->ex_to = (struct u32vec){0};
	/* the edge index makes every key distinct: a total order */
	sort_keys(f, f->parent_keys, m);
	for (size_t k = 0; k < m; k++)
		f->parent_keys[k] = (f->parent_keys[k] & ~(uint64_t)UINT32_MAX) | f->ex_from.v[(uint32_t)f->parent_keys[k]];
	free(f->ex_from.v);
	f->ex_from = (struct u32vec){0};
}

/* The first of the N sorted keys at or above V << 32 (N when none). */
static size_t first_key(const uint64_t *keys, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;
	uint64_t want = (uint64_t)v << 32;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (keys[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* V's first entry in parent_keys (n_parent_keys when it has none). */
static size_t first_parent(const struct forest *f, uint32_t v)
{
	return first_key(f->parent_keys, f->n_parent_keys, v);
}

/* --- roots and assignment ------------------------------------------------------ */

static inline bool root_less(const struct root *a, const struct root *b)
{
	if (a->level != b->level)
		return a->level > b->level;
	if (a->start != b->start)
		return a->start < b->start;
	return a->node < b->node;
}

XP_DEFINE_SORT(sort_roots, struct root, root_less)

static int64_t node_int(const struct forest *f, uint32_t node, uint8_t want, bool *found)
{
	uint32_t i;
	const struct fline *fl = line_of(f, node, &i);
	const struct xp_line *l = &f->h->planes[fl->plane].lines[fl->line];
	struct xp_stat_view v = xp_event_stats(l, i);
	*found = false;
	int64_t out = 0;
	for (uint32_t k = 0; k < v.n; k++) {
		unsigned kind = xp_stat_kind(v.keys[k]);
		if ((kind == XP_STAT_I64 || kind == XP_STAT_U64) && f->srole[fl->plane][xp_stat_meta(v.keys[k])] == want) {
			out = (int64_t)xp_view_val(&v, k);
			*found = true;
		}
	}
	return out;
}

/* Visit node and its ancestors breadth-first (parents: nesting and extra
 * edges); fn returns true to stop. Bounded by a visited set. */
typedef bool (*visit_fn)(struct forest *f, uint32_t node, void *arg);

static bool walk_ancestors(struct forest *f, uint32_t start, bool include_self, visit_fn fn, void *arg)
{
	struct u32vec queue = {0}, seen = {0};
	bool stop = false;
	u32_push(&queue, start);
	u32_push(&seen, start);
	for (size_t qi = 0; qi < queue.n && !stop; qi++) {
		uint32_t v = queue.v[qi];
		if ((v != start || include_self) && fn(f, v, arg)) {
			stop = true;
			break;
		}
		/* the nesting parent first, then the extra edges' in edge order */
		bool nested = f->nest_parent[v] >= 0;
		size_t pk = first_parent(f, v);
		while (nested || (pk < f->n_parent_keys && f->parent_keys[pk] >> 32 == v)) {
			uint32_t p;
			if (nested) {
				p = (uint32_t)f->nest_parent[v];
				nested = false;
			} else {
				p = (uint32_t)f->parent_keys[pk++];
			}
			bool dup = false;
			for (size_t s = 0; s < seen.n && !dup; s++)
				dup = seen.v[s] == p;
			if (!dup && seen.n < 4096) {
				u32_push(&seen, p);
				u32_push(&queue, p);
			}
		}
	}
	free(queue.v);
	free(seen.v);
	return stop;
}

struct level_arg {
	int64_t level;
	const int64_t *root_level;  /* per node: level if a root, else 0 (sparse via roots) */
};

static int64_t root_level_of(struct forest *f, uint32_t node)
{
	/* roots are sorted by node in a copy for this lookup */
	bool found;
	int64_t r = node_int(f, node, SR_ROOT, &found);
	if (found)
		return r;
	uint32_t i;
	const struct fline *fl = line_of(f, node, &i);
	const struct xp_line *l = &f->h->planes[fl->plane].lines[fl->line];
	return f->mkind[fl->plane][xp_meta_of(l, i)] == NK_TRACE_CONTEXT ? 1 : 0;
}

static bool same_level_root(struct forest *f, uint32_t node, void *arg)
{
	struct level_arg *a = arg;
	return root_level_of(f, node) == a->level;
}

/* A queued node whose nesting descendants a walk over its ancestor's range has already seen. */
#define RANGE_DONE 0x80000000u

static inline bool bit(const uint8_t *bits, uint32_t v)
{
	return bits[v >> 3] & (1u << (v & 7));
}

/* Event I of line L lies within [b, e] as scan_events nests (start and end inside). */
static inline bool nested_in(const struct xp_line *l, uint32_t i, int64_t b, int64_t e)
{
	return b <= l->start_ps[i] && l->start_ps[i] + xp_dur(l, i) <= e;
}

/* Group G for V's nesting descendants without one, in start order on V's line. The scan's stack keeps V
 * while the events that follow lie within it and pops it at the first that does not, so its descendants
 * are the events up to that one (async events in between are nobody's children). A descendant already
 * in a group stops the spread below it (its own range is passed over), as a walk child by child stops
 * there; the others are queued for their extra edges. */
/* Where the ranges walked so far end: node + 1 in the high word, the place (in start order on its line) of
 * the first event past its descendants in the low one. Only ranges of two events or more are kept. */
static size_t range_pos(const struct range_ends *r, uint32_t node)
{
	size_t i = (size_t)xp_hash_u64(XP_HASH_SEED, node) & (r->cap - 1);
	while (r->slot[i] && (uint32_t)(r->slot[i] >> 32) != node + 1)
		i = (i + 1) & (r->cap - 1);
	return i;
}

static void range_put(struct range_ends *r, uint32_t node, uint32_t end)
{
	if ((r->n + 1) * 2 > r->cap) {
		struct range_ends old = *r;
		r->cap = old.cap ? old.cap * 2 : 64;
		r->slot = xcalloc(r->cap, sizeof *r->slot);
		for (size_t k = 0; k < old.cap; k++)
			if (old.slot[k])
				r->slot[range_pos(r, (uint32_t)(old.slot[k] >> 32) - 1)] = old.slot[k];
		free(old.slot);
	}
	size_t i = range_pos(r, node);
	r->n += !r->slot[i];
	r->slot[i] = (uint64_t)(node + 1) << 32 | end;
}

/* The end of NODE's range when it was walked (and was long enough to keep), else 0. */
static uint32_t range_end(const struct range_ends *r, uint32_t node)
{
	if (!r->n)
		return 0;
	uint64_t s = r->slot[range_pos(r, node)];
	return s ? (uint32_t)s : 0;
}

static void spread_range(struct forest *f, uint32_t v, int32_t g, struct u32vec *queue)
{
	uint32_t li;
	const struct fline *fl = line_of(f, v, &li);
	li = (uint32_t)(fl - f->lines);
	const uint32_t *order = fl->order, *rank = f->rank[li];
	const struct xp_line *l = &f->h->planes[fl->plane].lines[fl->line];
	uint32_t i = v - fl->base, p0 = rank ? rank[i] : i;
	int64_t vb = l->start_ps[i], ve = vb + xp_dur(l, i);
	bool skipping = false;
	int64_t sb = 0, se = 0; /* the range of a descendant in a group, while its own are passed over */
	uint64_t p = (uint64_t)p0 + 1;
	for (; p < l->n_events; p++) {
		uint32_t k = order ? order[p] : (uint32_t)p, u = fl->base + k;
		f->spread_steps++;
		if (bit(f->async, u))
			continue;
		if (!nested_in(l, k, vb, ve))
			break;
		if (skipping && nested_in(l, k, sb, se))
			continue;
		skipping = false;
		if (f->gid[u] >= 0) {
			/* Its range was walked already (a root spread before, or a node reached by an edge): jump past
			 * it, so that nested roots spread innermost first cost their events once, not once per level. */
			uint32_t end = range_end(&f->ends, u);
			if (end) {
				p = end - 1;
				continue;
			}
			skipping = true;
			sb = l->start_ps[k];
			se = sb + xp_dur(l, k);
			continue;
		}
		f->gid[u] = g;
		if (bit(f->has_child, u))
			u32_push(queue, u | RANGE_DONE);
	}
	/* Only a walk over an ancestor on the line jumps past this range: one at the top of its line (a step
	 * root, most often) has none, and a capture of a million steps would index a million ranges for nothing. */
	if (p > (uint64_t)p0 + 2 && bit(f->nested, v))
		range_put(&f->ends, v, (uint32_t)p);
}

/* Group G for every node below ROOT (nesting and extra edges) that has none, not below one that has. */
static void spread(struct forest *f, uint32_t root, int32_t g)
{
	struct u32vec *queue = &f->queue;
	queue->n = 0;
	f->gid[root] = g;
	u32_push(queue, root);
	for (size_t qi = 0; qi < queue->n; qi++) {
		uint32_t v = queue->v[qi] & ~RANGE_DONE;
		if (!(queue->v[qi] & RANGE_DONE) && !bit(f->async, v))
			spread_range(f, v, g, queue);
		if (!bit(f->has_child, v))
			continue;
		for (size_t k = first_child(f, v);
		     k < f->n_child_keys && f->child_keys[k] >> 32 == v; k++) {
			uint32_t c = (uint32_t)f->child_keys[k];
			if (f->gid[c] >= 0)
				continue; /* already in a group: do not descend */
			f->gid[c] = g;
			u32_push(queue, c);
		}
	}
}

struct name_arg {
	bool found_graph, found_iter, found_step;
	int64_t iter, step;
	const char *graph;
	uint32_t graph_len;
};

static bool find_name_parts(struct forest *f, uint32_t node, void *arg)
{
	struct name_arg *a = arg;
	uint32_t i;
	const struct fline *fl = line_of(f, node, &i);
	const struct xp_plane *pl = &f->h->planes[fl->plane];
	const struct xp_line *l = &pl->lines[fl->line];
	struct xp_stat_view v = xp_event_stats(l, i);
	for (uint32_t k = 0; k < v.n; k++) {
		uint8_t role = f->srole[fl->plane][xp_stat_meta(v.keys[k])];
		unsigned kind = xp_stat_kind(v.keys[k]);
		bool is_int = kind == XP_STAT_I64 || kind == XP_STAT_U64;
		if (role == SR_ITER && is_int && !a->found_iter) {
			a->found_iter = true;
			a->iter = (int64_t)xp_view_val(&v, k);
		} else if (role == SR_STEP_NUM && is_int && !a->found_step) {
			a->found_step = true;
			a->step = (int64_t)xp_view_val(&v, k);
		} else if (role == SR_GRAPH_TYPE && !a->found_graph && (kind == XP_STAT_STR || kind == XP_STAT_BLOBSTR)) {
			struct xp_value val;
			if (xp_view_find(f->c, v, xp_stat_meta(v.keys[k]), &val)) {
				a->found_graph = true;
				a->graph = val.s;
				a->graph_len = val.len;
			}
		}
	}
	return false;
}

/* What the walks up from a root found, made for every root before any spread: the walks need the
 * nesting parents and the parents' index, which are freed before the group ids are made. 24 bytes a
 * root, where those take 4 a node and 8 an extra edge. */
struct root_survey {
	const char *graph;      /* the name's prefix when found (graph_type), not NUL-terminated */
	int64_t num;            /* its number when found (iter_num, else step_num) */
	uint32_t graph_len;
	uint8_t flags;          /* RS_* */
};

enum {
	RS_BELOW_SAME_LEVEL = 1,        /* an ancestor is a root of the same level: not a group of its own */
	RS_NUM = 2, RS_GRAPH = 4
};

static struct root_survey survey_root(struct forest *f, const struct root *r)
{
	struct level_arg la = {r->level, NULL};
	struct name_arg a = {0};
	bool below = walk_ancestors(f, r->node, false, same_level_root, &la);
	walk_ancestors(f, r->node, true, find_name_parts, &a);
	return (struct root_survey){
		a.graph, a.found_iter ? a.iter : a.step, a.graph_len,
		(uint8_t)((below ? RS_BELOW_SAME_LEVEL : 0) | (a.found_iter || a.found_step ? RS_NUM : 0) |
			  (a.found_graph ? RS_GRAPH : 0)),
	};
}

static char *group_name(struct forest *f, uint32_t root, const struct root_survey *rs, int32_t g)
{
	uint32_t i;
	const struct fline *fl = line_of(f, root, &i);
	const struct xp_plane *pl = &f->h->planes[fl->plane];
	const struct xp_line *l = &pl->lines[fl->line];
	uint8_t nk = f->mkind[fl->plane][xp_meta_of(l, i)];
	bool implicit = nk == NK_FUNCTION_RUN || nk == NK_SESSION_RUN || nk == NK_RUN_GRAPH || nk == NK_EXECUTOR_PROCESS;
	if (implicit)
		return NULL;
	int64_t num = rs->flags & RS_NUM ? rs->num : g;
	const char *prefix = rs->flags & RS_GRAPH ? rs->graph : xp_str(f->c, xp_event_name(pl, l, i));
	size_t plen = rs->flags & RS_GRAPH ? rs->graph_len : strlen(prefix);
	char digits[XP_DEC_SIZE + 1] = " ";
	size_t n = 1 + xp_dec_i64(digits + 1, num);
	char *s = xmalloc(plen + n + 1);    /* a name per step: no spare room */
	memcpy(s, prefix, plen);
	memcpy(s + plen, digits, n + 1);
	/* "ProfilerStep#7" already carries its number: no "ProfilerStep#7 7". */
	const char *hash = memrchr(prefix, '#', plen);
	if (hash && !strcmp(hash + 1, s + plen + 1))
		s[plen] = 0;
	return s;
}

/* TF while loops (spec §4 step 6): each (id, iter_num) of ExecutorState::Process is a root. */
static bool loop_roots(struct forest *f)
{
	struct keyvec *kv = &f->iters;   /* sorted by link_iterators */
	size_t n_before = f->n_roots;
	for (size_t i = 0; i < kv->n;) {
		size_t j = i;
		bool beyond_zero = false;
		while (j < kv->n && kv->v[j].a == kv->v[i].a) {
			beyond_zero |= kv->v[j].b != 0;
			j++;
		}
		if (beyond_zero && !is_tfdata_id(f, kv->v[i].a)) {
			for (size_t s = i; s < j;) {
				size_t e = s;
				uint32_t first = kv->v[s].node;
				int64_t first_start = INT64_MAX;
				while (e < j && kv->v[e].b == kv->v[s].b) {
					uint32_t li;
					const struct fline *fl = line_of(f, kv->v[e].node, &li);
					int64_t st = f->h->planes[fl->plane].lines[fl->line].start_ps[li];
					if (st < first_start) {
						first_start = st;
						first = kv->v[e].node;
					}
					e++;
				}
				for (size_t k = s; k < e; k++)
					add_edge(f, first, kv->v[k].node);
				add_root(f, first, 1, first_start);
				s = e;
			}
		}
		i = j;
	}
	if (f->n_roots == n_before)
		return false;
	/* Only the loop roots count (drop the ones found by _r / TraceContext). */
	memmove(f->roots, f->roots + n_before, (f->n_roots - n_before) * sizeof *f->roots);
	f->n_roots -= n_before;
	return true;
}

/* The walks up from every root, in the order assign_groups takes them; then the nesting parents and the
 * parents' index are freed. */
static struct root_survey *survey_roots(struct forest *f)
{
	sort_roots(f->roots, f->n_roots);
	struct root_survey *rs = xcalloc(f->n_roots + 1, sizeof *rs);
	for (size_t r = 0; r < f->n_roots; r++)
		rs[r] = survey_root(f, &f->roots[r]);
	f->nested = xcalloc(((size_t)f->n + 7) / 8, 1);
	for (uint32_t v = 0; v < f->n; v++)
		if (f->nest_parent[v] >= 0)
			f->nested[v >> 3] |= (uint8_t)(1u << (v & 7));
	free(f->nest_parent);
	f->nest_parent = NULL;
	free(f->parent_keys);
	f->parent_keys = NULL;
	f->n_parent_keys = 0;
	return rs;
}

static void assign_groups(struct forest *f, struct xp_prep_host *ph, const struct root_survey *rs)
{
	char **names = xcalloc(f->n_roots + 1, sizeof *names);
	int32_t next = 0;
	for (size_t r = 0; r < f->n_roots; r++) {
		uint32_t node = f->roots[r].node;
		if (f->gid[node] >= 0)
			continue;
		bool found;
		int64_t id = node_int(f, node, SR_ID, &found);
		if (found && is_tfdata_id(f, (uint64_t)id))
			continue;
		if (rs[r].flags & RS_BELOW_SAME_LEVEL)
			continue;
		spread(f, node, next);
		names[next] = group_name(f, node, &rs[r], next);
		if (names[next] && f->named_root)
			f->named_root[node >> 3] |= (uint8_t)(1u << (node & 7));
		next++;
	}
	ph->n_groups = (uint32_t)next;
	ph->group_names = names;
}

/* --- pre-grouped captures ------------------------------------------------------- */

/* Remember the text of stat k of v (a step_name, ref or inline string) for group g. */
static void keep_name(struct forest *f, struct xp_stat_view v, uint32_t k, int32_t g, char ***names, size_t *cap,
		      struct u32vec *groups)
{
	struct xp_value val;
	if (!xp_view_find(f->c, v, xp_stat_meta(v.keys[k]), &val) || (val.kind != XP_STAT_STR && val.kind != XP_STAT_BLOBSTR))
		return;
	if (groups->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*names = xrealloc(*names, *cap * sizeof **names);
	}
	/* blob strings are not NUL-terminated: copy exactly val.len bytes */
	char *name = xmalloc((size_t)val.len + 1);
	if (val.len)
		memcpy(name, val.s, val.len);
	name[val.len] = 0;
	(*names)[groups->n] = name;
	u32_push(groups, (uint32_t)g);
}

static void read_pregrouped(struct forest *f, struct xp_prep_host *ph)
{
	int32_t max = -1;
	struct u32vec name_groups = {0};
	char **names = NULL;
	size_t cap_names = 0;
	for (uint32_t li = 0; li < f->n_lines; li++) {
		const struct fline *fl = &f->lines[li];
		const struct xp_line *l = &f->h->planes[fl->plane].lines[fl->line];
		const uint8_t *role = f->srole[fl->plane];
		bool plane_names = false;
		for (uint32_t s = 1; s < f->h->planes[fl->plane].n_smeta; s++)
			plane_names |= role[s] == SR_STEP_NAME;
		for (uint64_t i = 0; i < l->n_events; i++) {
			struct xp_stat_view v = xp_event_stats(l, i);
			int32_t g = -1;
			uint32_t name = 0;
			/* From the last stat back, as the last valid group id and the last step name count: TF
			 * appends group_id to an event's stats, so the scan usually stops at once. */
			for (uint32_t k = v.n; k-- > 0;) {
				uint8_t rl = role[xp_stat_meta(v.keys[k])];
				unsigned kind = xp_stat_kind(v.keys[k]);
				if (g < 0 && rl == SR_GROUP_ID && (kind == XP_STAT_I64 || kind == XP_STAT_U64) &&
				    (int64_t)xp_view_val(&v, k) >= 0 && (int64_t)xp_view_val(&v, k) < INT32_MAX)
					g = (int32_t)xp_view_val(&v, k);
				else if (!name && rl == SR_STEP_NAME)
					name = k + 1;
				if (g >= 0 && (name || !plane_names))
					break;
			}
			f->gid[fl->base + i] = g;
			if (g > max)
				max = g;
			if (g >= 0 && name)
				keep_name(f, v, name - 1, g, &names, &cap_names, &name_groups);
		}
	}
	/* Step names often sit only on the derived Steps lines of the devices. */
	for (uint32_t p = 0; p < f->h->n_planes; p++) {
		const struct xp_plane *pl = &f->h->planes[p];
		for (uint32_t k = 0; k < pl->n_lines; k++) {
			const struct xp_line *l = &pl->lines[k];
			if (!l->derived)
				continue;
			for (uint64_t i = 0; i < l->n_events; i++) {
				struct xp_stat_view v = xp_event_stats(l, i);
				int64_t g = -1;
				uint32_t name = 0;
				for (uint32_t s = 0; s < v.n; s++) {
					uint8_t rl = f->srole[p][xp_stat_meta(v.keys[s])];
					unsigned kind = xp_stat_kind(v.keys[s]);
					if (rl == SR_GROUP_ID && (kind == XP_STAT_I64 || kind == XP_STAT_U64))
						g = (int64_t)xp_view_val(&v, s);
					else if (rl == SR_STEP_NAME)
						name = s + 1;
				}
				if (g >= 0 && g < INT32_MAX && name) {
					if (g > max)
						max = (int32_t)g;
					keep_name(f, v, name - 1, (int32_t)g, &names, &cap_names, &name_groups);
				}
			}
		}
	}
	ph->n_groups = (uint32_t)(max + 1);
	ph->group_names = xcalloc(ph->n_groups + 1, sizeof *ph->group_names);
	for (size_t k = 0; k < name_groups.n; k++) {
		if (!ph->group_names[name_groups.v[k]])
			ph->group_names[name_groups.v[k]] = names[k];
		else
			free(names[k]);
	}
	free(names);
	free(name_groups.v);
}

/* --- device events without a group (spec §0.3 GPU post-steps (a)) ------------- */

static void inherit_device_groups(struct forest *f)
{
	for (uint32_t p = 0; p < f->h->n_planes; p++) {
		if (f->h->planes[p].kind != XP_PLANE_GPU)
			continue;
		struct xp_time_merge m;
		xp_time_merge_init(&m, f->h, p, f->lines, f->n_lines);
		int32_t last = -1;
		uint32_t li;
		uint64_t i;
		while (xp_time_merge_next(&m, &li, &i)) {
			int32_t *g = &f->gid[f->lines[li].base + i];
			if (*g >= 0)
				last = *g;
			else
				*g = last;
		}
		xp_time_merge_free(&m);
	}
}

/* --- time-ordered walk over the lines of one plane ------------------------------ */

/* The start of line k's next event. */
static int64_t merge_start(const struct xp_time_merge *m, uint32_t k)
{
	uint64_t i = m->order[k] ? m->order[k][m->pos[k]] : m->pos[k];
	return m->lines[k]->start_ps[i];
}

/* Line a's next event comes before line b's: earlier start, then the line listed first. */
static bool merge_before(const struct xp_time_merge *m, uint32_t a, uint32_t b)
{
	int64_t sa = merge_start(m, a), sb = merge_start(m, b);
	return sa < sb || (sa == sb && a < b);
}

static void merge_sift_down(struct xp_time_merge *m, uint32_t at)
{
	uint32_t *h = m->heap;
	for (;;) {
		uint32_t l = 2 * at + 1, r = l + 1, best = at;
		if (l < m->n_heap && merge_before(m, h[l], h[best]))
			best = l;
		if (r < m->n_heap && merge_before(m, h[r], h[best]))
			best = r;
		if (best == at)
			return;
		uint32_t t = h[at];
		h[at] = h[best];
		h[best] = t;
		at = best;
	}
}

/* A heap of the lines rather than a scan of them per event: a GPU plane may have thousands of streams. */
void xp_time_merge_init(struct xp_time_merge *m, const struct xp_host *h, uint32_t plane, const void *flines,
			uint32_t n_flines)
{
	const struct fline *fl = flines;
	memset(m, 0, sizeof *m);
	m->h = h;
	m->idx = xmalloc((n_flines + 1) * sizeof *m->idx);
	m->pos = xcalloc(n_flines + 1, sizeof *m->pos);
	m->order = xcalloc(n_flines + 1, sizeof *m->order);
	m->lines = xcalloc(n_flines + 1, sizeof *m->lines);
	m->heap = xmalloc((n_flines + 1) * sizeof *m->heap);
	for (uint32_t k = 0; k < n_flines; k++)
		if (fl[k].plane == plane) {
			m->idx[m->n] = k;
			m->lines[m->n] = &h->planes[plane].lines[fl[k].line];
			m->order[m->n] = fl[k].order;
			if (m->lines[m->n]->n_events)
				m->heap[m->n_heap++] = m->n;
			m->n++;
		}
	for (uint32_t at = m->n_heap / 2; at-- > 0;)
		merge_sift_down(m, at);
}

bool xp_time_merge_next(struct xp_time_merge *m, uint32_t *fline, uint64_t *event)
{
	if (!m->n_heap)
		return false;
	uint32_t best = m->heap[0];
	uint64_t pos = m->pos[best]++;
	*fline = m->idx[best];
	*event = m->order[best] ? m->order[best][pos] : pos;
	if (m->pos[best] >= m->lines[best]->n_events)
		m->heap[0] = m->heap[--m->n_heap];
	merge_sift_down(m, 0);
	return true;
}

void xp_time_merge_free(struct xp_time_merge *m)
{
	free(m->idx);
	free(m->pos);
	free(m->order);
	free(m->lines);
	free(m->heap);
}

/* --- entry point ------------------------------------------------------------------ */

static void free_forest(struct forest *f)
{
	free(f->nest_parent);
	free(f->nested);
	free(f->async);
	free(f->ex_from.v);
	free(f->ex_to.v);
	free(f->child_keys);
	free(f->has_child);
	free(f->child_rank);
	free(f->child_first);
	for (uint32_t li = 0; f->rank && li < f->n_lines; li++)
		free(f->rank[li]);
	free(f->rank);
	free(f->ends.slot);
	free(f->queue.v);
	xp_work_add(XP_WORK_SPREAD, f->spread_steps);
	free(f->parent_keys);
	free(f->roots);
	free(f->contexts.v);
	free(f->launches.slots);
	free(f->launch_nodes.v);
	free(f->launch_corr);
	free(f->exec_lines);
	free(f->iters.v);
	free(f->getnexts.v);
	free(f->captured_ids);
	for (uint32_t p = 0; p < f->h->n_planes; p++) {
		free(f->mkind[p]);
		free(f->srole[p]);
	}
	free(f->mkind);
	free(f->srole);
}

/* The link lists are freed as soon as their edges are made, so that the CSR
 * and the group walk that follow do not add to them at the peak. */
static void drop_keys(struct keyvec *kv)
{
	free(kv->v);
	*kv = (struct keyvec){0};
}


/* Every node without a group. */
static void alloc_gid(struct forest *f)
{
	f->gid = xmalloc(((size_t)f->n + 1) * sizeof *f->gid);
	xp_prefault(f->gid, ((size_t)f->n + 1) * sizeof *f->gid);
	for (uint32_t v = 0; v < f->n; v++)
		f->gid[v] = -1;
}

void xp_group_host(const struct xp_capture *c, struct xp_prep_host *ph, bool index_only, struct xp_group_out *out)
{
	struct forest f = {.c = c, .h = ph->host};
	classify_planes(&f);
	index_lines(&f);
	out->loop_ops = f.loop_ops;
	if (index_only) {
		alloc_gid(&f);
		out->source = XP_STEPS_NONE;
	} else if (ph->host->pre_grouped) {
		alloc_gid(&f);
		read_pregrouped(&f, ph);
		out->source = XP_STEPS_PREGROUPED;
	} else if (!f.loop_ops) {
		scan_events(&f);
		link_contexts(&f);
		drop_keys(&f.contexts);
		link_correlations(&f);
		drop_correlations(&f);
		link_iterators(&f);
		collect_tfdata_ids(&f);
		drop_keys(&f.getnexts);
		loop_roots(&f);
		drop_keys(&f.iters);
		rank_lines(&f);
		index_parents(&f);
		index_children(&f);
		nest_events(&f);
		struct root_survey *rs = survey_roots(&f);
		f.named_root = xcalloc(((size_t)f.n + 7) / 8, 1);
		alloc_gid(&f); /* after the walks up, which need the most memory of the assignment */
		assign_groups(&f, ph, rs);
		free(rs);
		free(f.queue.v);
		f.queue = (struct u32vec){0};
		if (ph->n_groups)
			inherit_device_groups(&f);
		out->source = ph->n_groups ? XP_STEPS_GROUPED : XP_STEPS_NONE;
	}
	if (!f.gid)
		alloc_gid(&f); /* TF loops: no groups */
	/* Hand the per-line ids and the line index to the step database. */
	out->gid = f.gid;
	out->n_nodes = f.n;
	out->flines = f.lines;
	out->n_flines = f.n_lines;
	out->named_root = f.named_root;
	f.lines = NULL;
	free_forest(&f);
}

void xp_group_out_free(struct xp_group_out *g)
{
	struct fline *fl = g->flines;
	for (uint32_t k = 0; k < g->n_flines; k++)
		free(fl[k].order);
	free(g->flines);
	free(g->gid);
	free(g->named_root);
	memset(g, 0, sizeof *g);
}

uint32_t xp_group_fline_plane(const struct xp_group_out *g, uint32_t k, uint32_t *line, uint32_t *base)
{
	const struct fline *fl = g->flines;
	*line = fl[k].line;
	*base = fl[k].base;
	return fl[k].plane;
}

const uint32_t *xp_group_fline_order(const struct xp_group_out *g, uint32_t k)
{
	const struct fline *fl = g->flines;
	return fl[k].order;
}
