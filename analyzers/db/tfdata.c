/* tfdata.c - the tf.data model and its bottleneck analysis: iterator graphs from Iterator:: events, slowest calls, critical path, bottleneck iterator, suggestion (spec §6(c)). */
#include "tfdata.h"
#include "formats/core/xalloc.h"
#include "analyzers/prepare/group.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Per host, only the /host:CPU plane is read, and on it only the lines
 * that hold tf.data events (Iterator::*, *Produce, *Consume). On those
 * lines the events are nested by time the way the reference's event forest
 * nests them (per line, a stack; an event is the child of the innermost
 * event that includes its span, endpoints included; `_a` events are left
 * out). Then tf.data's own links are added: the iterator that directly
 * encloses a *Consume event with element_id E gets, as a child, the first
 * iterator event inside every *Produce event with the same element_id
 * whose parent_id equals the consumer's id. Each root iterator
 * ("Iterator::X", one "::") is one input pipeline; each of its events is one
 * call, walked through its tf.data children to get every iterator's self
 * time and whether it blocks the root.
 */

#define MAX_LEVEL 100                   /* the reference stops deeper walks */
#define MAX_VISITS_PER_CALL 1000000     /* links can make the graph a DAG: bound the walk */

/* Grow *arr (elements of SIZE bytes) to hold one more than *n. */
static void grow(void **arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 64;
	*arr = xrealloc(*arr, *cap * size);
}

static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* --- an int64 -> uint32 map (open addressing) --------------------------------- */

struct idmap {
	int64_t *keys;
	uint32_t *vals;         /* value + 1; 0 = empty */
	size_t cap, n;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static void idmap_put(struct idmap *m, int64_t key, uint32_t val);

static void idmap_grow(struct idmap *m)
{
	struct idmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = xcalloc(m->cap, sizeof *m->keys);
	m->vals = xcalloc(m->cap, sizeof *m->vals);
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i])
			idmap_put(m, old.keys[i], old.vals[i] - 1);
	free(old.keys);
	free(old.vals);
}

/* Insert or overwrite. */
static void idmap_put(struct idmap *m, int64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap)
		idmap_grow(m);
	size_t i = mix((uint64_t)key) & (m->cap - 1);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val + 1;
}

static bool idmap_get(const struct idmap *m, int64_t key, uint32_t *val)
{
	if (!m->cap)
		return false;
	size_t i = mix((uint64_t)key) & (m->cap - 1);
	while (m->vals[i]) {
		if (m->keys[i] == key) {
			*val = m->vals[i] - 1;
			return true;
		}
		i = (i + 1) & (m->cap - 1);
	}
	return false;
}

static void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
}

/* --- names ------------------------------------------------------------------------ */

enum { EC_NONE = 0, EC_ITER, EC_GENERATOR, EC_PRODUCE, EC_CONSUME };

static const char *const produce_names[] = {
	"PrefetchProduce", "ParallelInterleaveProduce", "ParallelMapProduce", "MapAndBatchProduce",
	"ParseExampleProduce", "ParallelBatchProduce",
};
static const char *const consume_names[] = {
	"PrefetchConsume", "ParallelInterleaveConsume", "ParallelMapConsume", "MapAndBatchConsume",
	"ParseExampleConsume", "ParallelBatchConsume",
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* Spec §0.2: a name whose part before the first ':' is exactly "Iterator" is a tf.data op. */
static uint8_t event_class(const char *name)
{
	if (!strncmp(name, "Iterator:", 9))
		return strcmp(name, "Iterator::Prefetch::Generator") ? EC_ITER : EC_GENERATOR;
	if (in_list(name, produce_names, sizeof produce_names / sizeof *produce_names))
		return EC_PRODUCE;
	if (in_list(name, consume_names, sizeof consume_names / sizeof *consume_names))
		return EC_CONSUME;
	return EC_NONE;
}

/* "Iterator::Prefetch::Map" -> "Map": the part after the last "::". */
static const char *short_name(const char *long_name)
{
	const char *s = long_name, *last = long_name;
	while ((s = strstr(s, "::"))) {
		s += 2;
		last = s;
	}
	return last;
}

/* A root iterator's name has exactly one "::" ("Iterator::Prefetch"). */
static bool is_root_name(const char *name)
{
	const char *s = strstr(name, "::");
	return s && !strstr(s + 2, "::");
}

static bool is_async_iterator(const char *name)
{
	static const char *const async[] = {
		"Prefetch", "ParallelInterleave", "ParallelMap", "ParseExample", "MapAndBatch", "DataService",
		"LegacyParallelInterleave", "ParallelBatch",
	};
	return in_list(name, async, sizeof async / sizeof *async);
}

/* --- bottleneck types and suggestions (reference strings, anchors as "text (URL)") --- */

static const struct {
	const char *name;
	enum xp_tfdata_bottleneck type;
} bottleneck_names[] = {
	{"TFRecord", XP_TFB_SLOW_SOURCE}, {"SSTable", XP_TFB_SLOW_SOURCE}, {"RecordIO", XP_TFB_SLOW_SOURCE},
	{"Spanner", XP_TFB_SLOW_SOURCE}, {"TFColumn", XP_TFB_SLOW_SOURCE},
	{"SleepwalkRemoteDataset", XP_TFB_SLOW_SOURCE}, {"TextLine", XP_TFB_SLOW_SOURCE},
	{"StitchedTimelineDataset", XP_TFB_SLOW_SOURCE}, {"DateKeyDataset", XP_TFB_SLOW_SOURCE},
	{"CapacitorProto", XP_TFB_SLOW_SOURCE}, {"LMDB", XP_TFB_SLOW_SOURCE}, {"ExternalDataset", XP_TFB_SLOW_SOURCE},
	{"PearModel", XP_TFB_SLOW_SOURCE}, {"FixedLengthRecordV2", XP_TFB_SLOW_SOURCE},
	{"FromTensor", XP_TFB_SLOW_SOURCE}, {"TensorSlice", XP_TFB_SLOW_SOURCE}, {"Generator", XP_TFB_SLOW_SOURCE},
	{"SyntheticDatasetOp", XP_TFB_SLOW_SOURCE},
	{"DataService", XP_TFB_DATA_SERVICE},
	{"GuzzlerDataGuzzlerRemoteDataset", XP_TFB_REMOTE_SOURCE}, {"ReverbDataset", XP_TFB_REMOTE_SOURCE},
	{"DatasetSampleGame", XP_TFB_REMOTE_SOURCE}, {"Courier", XP_TFB_REMOTE_SOURCE},
	{"ReverbEpisodeDataset", XP_TFB_REMOTE_SOURCE},
	{"Map", XP_TFB_PARALLEL_TRANSFORM}, {"Interleave", XP_TFB_PARALLEL_TRANSFORM},
	{"Filter", XP_TFB_SEQUENTIAL_TRANSFORM}, {"Batch", XP_TFB_SEQUENTIAL_TRANSFORM},
	{"Unbatch", XP_TFB_SEQUENTIAL_TRANSFORM},
};

enum xp_tfdata_bottleneck xp_tfdata_bottleneck_type(const char *iterator_name)
{
	for (size_t i = 0; i < sizeof bottleneck_names / sizeof *bottleneck_names; i++)
		if (iterator_name && !strcmp(iterator_name, bottleneck_names[i].name))
			return bottleneck_names[i].type;
	return XP_TFB_OTHER;
}

const char *xp_tfdata_bottleneck_key(enum xp_tfdata_bottleneck t)
{
	switch (t) {
	case XP_TFB_SLOW_SOURCE: return "slow_source";
	case XP_TFB_DATA_SERVICE: return "slow_data_service";
	case XP_TFB_REMOTE_SOURCE: return "slow_remote_source";
	case XP_TFB_PARALLEL_TRANSFORM: return "slow_transformation_with_parallel_version";
	case XP_TFB_SEQUENTIAL_TRANSFORM: return "slow_transformation_without_parallel_version";
	case XP_TFB_OTHER: break;
	}
	return "other";
}

#define PLAYBOOK "https://www.tensorflow.org/guide/data_performance_analysis"
#define TF_GUIDE "https://www.tensorflow.org/guide/data_performance"

const char *xp_tfdata_suggestion(enum xp_tfdata_bottleneck t)
{
	switch (t) {
	case XP_TFB_SLOW_SOURCE:
		return "1. Check the locality of a host and input data. Ideally, they should be in the same cell (or very "
		       "close, like the same region). 2. Parallelize reading from this dataset source. See here (" PLAYBOOK
		       "#source_datasets) and here (" TF_GUIDE "#parallelizing_data_extraction) for more details.";
	case XP_TFB_DATA_SERVICE:
		return "1. Fetching data from tf.data service took a while. Profile the tf.data service worker to analyze "
		       "the issue further. 2. See this (https://www.tensorflow.org/api_docs/python/tf/data/experimental/"
		       "service?version=nightly) for more details on tf.data service. 3. See this (" PLAYBOOK ") for other "
		       "suggestions.";
	case XP_TFB_REMOTE_SOURCE:
		return "1. The remote data source is slow. Profile its host to analyze the issue further. 2. See this ("
		       PLAYBOOK ") for other suggestions.";
	case XP_TFB_PARALLEL_TRANSFORM:
		return "1. Parallelize this transformation by setting num_parallel_calls=tf.data.experimental.AUTOTUNE. See "
		       "this (" TF_GUIDE "#parallelizing_data_transformation) for more details. 2. Consider adding cache "
		       "after this transformation if your data fits into memory and it is appropriate (e.g., there is no "
		       "randomness in upstream transformations like shuffle). See this (" TF_GUIDE "#caching) for more "
		       "details. 3. Find more resources here (" PLAYBOOK "#transformation_datasets).";
	case XP_TFB_SEQUENTIAL_TRANSFORM:
		return "1. This transformation is inherently sequential. Add outer parallelism by running multiple copies "
		       "of the input pipeline over sharded inputs and combining the results. See this (" PLAYBOOK
		       "#transformation_datasets) for more details. 2. Consider adding cache after this transformation if "
		       "your data fits into memory and it is appropriate (e.g., there is no randomness in upstream "
		       "transformations like shuffle). See this (" TF_GUIDE "#caching) for more details. 3. Find more "
		       "resources here (" PLAYBOOK "#3_are_you_reaching_high_cpu_utilization).";
	case XP_TFB_OTHER:
		break;
	}
	return "See this (" PLAYBOOK ") for suggestions.";
}

/* --- the iterator graph of one host ------------------------------------------------------- */

struct node {
	int64_t start, end;
	int64_t id, parent_id;
	uint32_t name;          /* interned event name */
	bool has_id, has_parent, generator;
	int32_t nest_parent;    /* enclosing iterator node, -1 when the enclosing event is none */
};

/* An iterator event inside a *Produce event: produced the element (parent_id, element_id). */
struct produced {
	int64_t parent_id, element_id;
	uint32_t node;
};

/* A *Consume event directly inside iterator node `node`. */
struct consumed {
	uint32_t node;
	int64_t element_id;
};

struct graph {
	const struct xp_capture *c;
	size_t n, cap;
	struct node *nodes;
	size_t n_prod, cap_prod;
	struct produced *prod;
	size_t n_cons, cap_cons;
	struct consumed *cons;
	uint32_t *child_begin;  /* CSR: children of node i are child[child_begin[i] .. child_begin[i+1]) */
	uint32_t *child;
	uint64_t n_edges;
};

/* One entry of the nesting stack of a line. */
struct frame {
	uint64_t ev;
	int64_t end;
	int32_t node;           /* iterator node, or -1 */
	bool produce;           /* a *Produce event with element_id ... */
	bool produced;          /* ... whose first iterator child has been seen */
	int64_t element_id;
};

struct stat_ids {
	uint32_t id, parent_id, element_id, async;
};

static bool event_int(const struct xp_capture *c, struct xp_stat_view v, uint32_t sid, int64_t *out)
{
	struct xp_value val;
	return sid && xp_view_find(c, v, sid, &val) && xp_value_int(&val, out);
}

static uint32_t add_node(struct graph *g, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			 const struct stat_ids *ids, uint8_t cls, int32_t nest_parent)
{
	grow((void **)&g->nodes, &g->cap, g->n, sizeof *g->nodes);
	struct node *nd = &g->nodes[g->n];
	struct xp_stat_view v = xp_event_stats(l, i);
	memset(nd, 0, sizeof *nd);
	nd->start = l->start_ps[i];
	nd->end = xp_event_end(l, i);
	nd->name = xp_event_name(p, l, i);
	nd->generator = cls == EC_GENERATOR;
	nd->has_id = event_int(g->c, v, ids->id, &nd->id);
	nd->has_parent = event_int(g->c, v, ids->parent_id, &nd->parent_id);
	nd->nest_parent = nest_parent;
	return (uint32_t)g->n++;
}

/* The reference's first iterator child of a *Produce event names what it produced. */
static void note_produced(struct graph *g, struct frame *top, uint32_t node)
{
	top->produced = true;
	const struct node *nd = &g->nodes[node];
	if (!nd->has_parent)
		return;
	grow((void **)&g->prod, &g->cap_prod, g->n_prod, sizeof *g->prod);
	g->prod[g->n_prod++] = (struct produced){nd->parent_id, top->element_id, node};
}

static void note_consumed(struct graph *g, const struct frame *top, const struct xp_line *l, uint64_t i,
			  const struct stat_ids *ids)
{
	int64_t el;
	if (!top || top->node < 0 || !g->nodes[top->node].has_id)
		return;
	if (!event_int(g->c, xp_event_stats(l, i), ids->element_id, &el))
		return;
	grow((void **)&g->cons, &g->cap_cons, g->n_cons, sizeof *g->cons);
	g->cons[g->n_cons++] = (struct consumed){(uint32_t)top->node, el};
}

/* One line: nest its events and keep the tf.data ones. */
static void scan_line(struct graph *g, const struct xp_plane *p, const struct xp_line *l, const uint8_t *cls,
		      const struct stat_ids *ids, struct frame **stack, size_t *cap)
{
	uint32_t *order = xp_line_sorted_order(l);
	size_t depth = 0;
	for (uint64_t k = 0; k < l->n_events; k++) {
		uint64_t i = order ? order[k] : k;
		int64_t b = l->start_ps[i], e = xp_event_end(l, i);
		int64_t async = 0;
		uint8_t c = cls[xp_meta_of(l, i)];
		if (ids->async && event_int(g->c, xp_event_stats(l, i), ids->async, &async) && async) {
			/* Async events are neither nested nor parents; an async iterator is still a node. */
			if (c == EC_ITER || c == EC_GENERATOR)
				add_node(g, p, l, i, ids, c, -1);
			continue;
		}
		while (depth && !(l->start_ps[(*stack)[depth - 1].ev] <= b && e <= (*stack)[depth - 1].end))
			depth--;
		struct frame *top = depth ? &(*stack)[depth - 1] : NULL;
		struct frame f = {.ev = i, .end = e, .node = -1};
		if (c == EC_ITER || c == EC_GENERATOR) {
			f.node = (int32_t)add_node(g, p, l, i, ids, c, top ? top->node : -1);
			if (top && top->produce && !top->produced)
				note_produced(g, top, (uint32_t)f.node);
		} else if (c == EC_PRODUCE) {
			f.produce = event_int(g->c, xp_event_stats(l, i), ids->element_id, &f.element_id);
		} else if (c == EC_CONSUME) {
			note_consumed(g, top, l, i, ids);
		}
		if (depth == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			*stack = xrealloc(*stack, *cap * sizeof **stack);
		}
		(*stack)[depth++] = f;
	}
	free(order);
}

static bool line_has_tfdata(const struct xp_line *l, const uint8_t *cls)
{
	if (l->derived)
		return false;
	for (uint64_t i = 0; i < l->n_events; i++)
		if (cls[xp_meta_of(l, i)])
			return true;
	return false;
}

static int cmp_produced(const void *x, const void *y)
{
	const struct produced *a = x, *b = y;
	if (a->parent_id != b->parent_id)
		return a->parent_id < b->parent_id ? -1 : 1;
	if (a->element_id != b->element_id)
		return a->element_id < b->element_id ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

struct edge {
	uint32_t from, to;
};

/* Children in time order, so the walk (and the first-visit order) follows the timeline. */
static int cmp_edge(const void *x, const void *y, void *arg)
{
	const struct graph *g = arg;
	const struct edge *a = x, *b = y;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	const struct node *na = &g->nodes[a->to], *nb = &g->nodes[b->to];
	if (na->start != nb->start)
		return na->start < nb->start ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

/* Nesting edges plus consumer -> producer links, as a CSR. */
static void build_children(struct graph *g)
{
	size_t n = 0, cap = 0;
	struct edge *e = NULL;
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].nest_parent >= 0) {
			grow((void **)&e, &cap, n, sizeof *e);
			e[n++] = (struct edge){(uint32_t)g->nodes[i].nest_parent, (uint32_t)i};
		}
	sort(g->prod, g->n_prod, sizeof *g->prod, cmp_produced);
	for (size_t k = 0; k < g->n_cons; k++) {
		const struct consumed *cs = &g->cons[k];
		struct produced key = {g->nodes[cs->node].id, cs->element_id, 0};
		/* lower bound of (id, element) */
		size_t lo = 0, hi = g->n_prod;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_produced(&g->prod[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < g->n_prod && g->prod[lo].parent_id == key.parent_id && g->prod[lo].element_id == key.element_id;
		     lo++) {
			grow((void **)&e, &cap, n, sizeof *e);
			e[n++] = (struct edge){cs->node, g->prod[lo].node};
		}
	}
	if (n > 1)
		qsort_r(e, n, sizeof *e, cmp_edge, g);
	g->child_begin = xcalloc(g->n + 1, sizeof *g->child_begin);
	g->child = xmalloc(n * sizeof *g->child);
	for (size_t k = 0; k < n; k++) {
		g->child_begin[e[k].from + 1]++;
		g->child[k] = e[k].to;
	}
	for (size_t i = 0; i < g->n; i++)
		g->child_begin[i + 1] += g->child_begin[i];
	g->n_edges = n;
	free(e);
}

static void free_graph(struct graph *g)
{
	free(g->nodes);
	free(g->prod);
	free(g->cons);
	free(g->child_begin);
	free(g->child);
}

/* --- iterator metadata and pipelines ------------------------------------------------------ */

struct meta {
	int64_t id;
	uint32_t name;          /* long name of the first event with this id */
	int64_t parent_id;
	bool has_parent;
};

struct host_ctx {
	const struct xp_capture *c;
	struct graph g;
	struct idmap meta_of;   /* iterator id -> index in metas */
	size_t n_meta, cap_meta;
	struct meta *metas;
	struct idmap device_ids;  /* root ids of device input pipelines */
	struct idmap pipe_of;   /* root iterator id -> pipeline index */
	size_t n_pipes, cap_pipes;
	struct xp_tfdata_pipeline *pipes;
	size_t *n_roots, *cap_roots;
	uint32_t **roots;       /* per pipeline: its root events (nodes) */
};

/* The reference records each iterator id's metadata from the first event seen. */
static bool add_meta(struct host_ctx *hc, const struct node *nd)
{
	uint32_t k;
	if (idmap_get(&hc->meta_of, nd->id, &k))
		return false;
	grow((void **)&hc->metas, &hc->cap_meta, hc->n_meta, sizeof *hc->metas);
	hc->metas[hc->n_meta] = (struct meta){nd->id, nd->name, nd->parent_id, nd->has_parent};
	idmap_put(&hc->meta_of, nd->id, (uint32_t)hc->n_meta++);
	return true;
}

static void add_root_call(struct host_ctx *hc, uint32_t node)
{
	const struct node *nd = &hc->g.nodes[node];
	uint32_t k;
	if (!idmap_get(&hc->pipe_of, nd->id, &k)) {
		grow((void **)&hc->pipes, &hc->cap_pipes, hc->n_pipes, sizeof *hc->pipes);
		size_t cap = hc->cap_pipes;
		hc->n_roots = xrealloc(hc->n_roots, cap * sizeof *hc->n_roots);
		hc->cap_roots = xrealloc(hc->cap_roots, cap * sizeof *hc->cap_roots);
		hc->roots = xrealloc(hc->roots, cap * sizeof *hc->roots);
		k = (uint32_t)hc->n_pipes++;
		memset(&hc->pipes[k], 0, sizeof hc->pipes[k]);
		hc->pipes[k].id = nd->id;
		hc->pipes[k].root_name = xp_str(hc->c, nd->name);
		hc->n_roots[k] = hc->cap_roots[k] = 0;
		hc->roots[k] = NULL;
		idmap_put(&hc->pipe_of, nd->id, k);
	}
	grow((void **)&hc->roots[k], &hc->cap_roots[k], hc->n_roots[k], sizeof **hc->roots);
	hc->roots[k][hc->n_roots[k]++] = node;
}

/* Iterator events first, then Iterator::Prefetch::Generator events, as the reference visits them. */
static void find_pipelines(struct host_ctx *hc)
{
	for (size_t i = 0; i < hc->g.n; i++) {
		const struct node *nd = &hc->g.nodes[i];
		if (nd->generator || !nd->has_id)
			continue;
		add_meta(hc, nd);
		if (is_root_name(xp_str(hc->c, nd->name)))
			add_root_call(hc, (uint32_t)i);
	}
	for (size_t i = 0; i < hc->g.n; i++) {
		const struct node *nd = &hc->g.nodes[i];
		if (nd->generator && nd->has_id && add_meta(hc, nd) && nd->has_parent)
			idmap_put(&hc->device_ids, nd->parent_id, 0);
	}
}

/* --- walking one call ------------------------------------------------------------------------- */

struct walk {
	const struct host_ctx *hc;
	struct idmap slot_of;   /* iterator id -> slot in stats, for this call */
	size_t n, cap;
	struct xp_tfdata_iter *stats;  /* first-visit order */
	uint64_t visits;
	bool truncated;
};

static int64_t overlap(const struct node *a, const struct node *b)
{
	int64_t lo = a->start > b->start ? a->start : b->start;
	int64_t hi = a->end < b->end ? a->end : b->end;
	return hi > lo ? hi - lo : 0;
}

static struct xp_tfdata_iter *iter_stat(struct walk *w, const struct node *nd, int level)
{
	uint32_t k;
	if (idmap_get(&w->slot_of, nd->id, &k))
		return &w->stats[k];
	grow((void **)&w->stats, &w->cap, w->n, sizeof *w->stats);
	struct xp_tfdata_iter *s = &w->stats[w->n];
	memset(s, 0, sizeof *s);
	const struct host_ctx *hc = w->hc;
	const struct meta *m = idmap_get(&hc->meta_of, nd->id, &k) ? &hc->metas[k] : NULL;
	s->id = nd->id;
	s->long_name = xp_str(hc->c, m ? m->name : nd->name);
	s->name = short_name(s->long_name);
	s->has_parent = m ? m->has_parent : nd->has_parent;
	s->parent_id = m ? m->parent_id : nd->parent_id;
	s->is_async = is_async_iterator(s->name);
	s->depth = (uint32_t)level;
	s->start_ps = nd->start;
	idmap_put(&w->slot_of, nd->id, (uint32_t)w->n);
	return &w->stats[w->n++];
}

/* Self time = duration - the overlap with each tf.data child; blocking only through overlapping children. */
static void walk_node(struct walk *w, uint32_t node, bool blocking, int level)
{
	const struct graph *g = &w->hc->g;
	const struct node *nd = &g->nodes[node];
	if (level > MAX_LEVEL || !nd->has_id)
		return;
	if (++w->visits > MAX_VISITS_PER_CALL) {
		w->truncated = true;
		return;
	}
	size_t slot = (size_t)(iter_stat(w, nd, level) - w->stats);
	int64_t self = nd->end - nd->start;
	for (uint32_t k = g->child_begin[node]; k < g->child_begin[node + 1]; k++) {
		const struct node *ch = &g->nodes[g->child[k]];
		int64_t ov = overlap(nd, ch);
		walk_node(w, g->child[k], blocking && ov > 0, level + 1);
		self -= ov;
	}
	struct xp_tfdata_iter *s = &w->stats[slot];  /* stats may have moved */
	s->duration_ps += nd->end - nd->start;
	s->self_ps += self;
	s->is_blocking |= blocking;
	s->num_calls++;
}

static void walk_reset(struct walk *w)
{
	idmap_free(&w->slot_of);
	memset(&w->slot_of, 0, sizeof w->slot_of);
	w->n = 0;
	w->visits = 0;
	w->truncated = false;
}

/* The blocking iterator with the largest self time (> 0); the first visited wins a tie. */
static const struct xp_tfdata_iter *bottleneck_of(const struct walk *w)
{
	const struct xp_tfdata_iter *best = NULL;
	int64_t max = 0;
	for (size_t i = 0; i < w->n; i++)
		if (w->stats[i].is_blocking && w->stats[i].self_ps > max) {
			best = &w->stats[i];
			max = best->self_ps;
		}
	return best;
}

/* --- per pipeline ------------------------------------------------------------------------------ */

static int cmp_call(const void *x, const void *y, void *arg)
{
	const struct graph *g = arg;
	const struct node *a = &g->nodes[*(const uint32_t *)x], *b = &g->nodes[*(const uint32_t *)y];
	int64_t da = a->end - a->start, db = b->end - b->start;
	if (da != db)
		return da > db ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

static void process_pipeline(struct host_ctx *hc, size_t k, struct walk *w, uint64_t *truncated)
{
	struct xp_tfdata_pipeline *pl = &hc->pipes[k];
	uint32_t *roots = hc->roots[k];
	size_t n = hc->n_roots[k];
	uint32_t dummy;
	if (n > 1)
		qsort_r(roots, n, sizeof *roots, cmp_call, &hc->g);
	pl->device = idmap_get(&hc->device_ids, pl->id, &dummy);
	pl->n_calls = n;
	pl->calls = xcalloc(n, sizeof *pl->calls);
	int64_t sum = 0;
	pl->min_latency_ps = n ? INT64_MAX : 0;
	for (size_t i = 0; i < n; i++) {
		const struct node *nd = &hc->g.nodes[roots[i]];
		struct xp_tfdata_call *call = &pl->calls[i];
		walk_reset(w);
		walk_node(w, roots[i], true, 0);
		const struct xp_tfdata_iter *b = bottleneck_of(w);
		call->start_ps = nd->start;
		call->latency_ps = nd->end - nd->start;
		call->truncated = w->truncated;
		*truncated += w->truncated;
		if (b) {
			call->has_bottleneck = true;
			call->bottleneck_id = b->id;
			call->bottleneck_self_ps = b->self_ps;
			call->bottleneck_name = b->name;
			call->bottleneck_long_name = b->long_name;
		}
		if (i == 0) {   /* the slowest call: keep every iterator */
			pl->n_iters = w->n;
			pl->iters = xmalloc(w->n * sizeof *pl->iters);
			memcpy(pl->iters, w->stats, w->n * sizeof *pl->iters);
		}
		sum += call->latency_ps;
		if (call->latency_ps < pl->min_latency_ps)
			pl->min_latency_ps = call->latency_ps;
		if (call->latency_ps > pl->max_latency_ps)
			pl->max_latency_ps = call->latency_ps;
		pl->num_slow_calls += call->latency_ps > XP_TFDATA_SLOW_CALL_PS;
	}
	pl->avg_latency_ps = n ? sum / (int64_t)n : 0;
}

static int64_t first_start(const struct xp_tfdata_pipeline *p)
{
	int64_t t = INT64_MAX;
	for (size_t i = 0; i < p->n_calls; i++)
		if (p->calls[i].start_ps < t)
			t = p->calls[i].start_ps;
	return t;
}

static int cmp_pipeline(const void *x, const void *y)
{
	const struct xp_tfdata_pipeline *a = x, *b = y;
	int64_t ta = first_start(a), tb = first_start(b);
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* Pipelines in order of their first call; "Host:N" and "Device:N" numbered in that order. */
static void name_pipelines(struct xp_tfdata_pipeline *p, size_t n)
{
	sort(p, n, sizeof *p, cmp_pipeline);
	unsigned nh = 0, nd = 0;
	for (size_t i = 0; i < n; i++)
		snprintf(p[i].name, sizeof p[i].name, "%s:%u", p[i].device ? "Device" : "Host",
			 p[i].device ? nd++ : nh++);
}

/* --- one host --------------------------------------------------------------------------------- */

static uint8_t *classify_meta(const struct xp_capture *c, const struct xp_plane *p)
{
	uint8_t *cls = xcalloc(p->n_emeta, 1);
	for (uint32_t m = 1; m < p->n_emeta; m++)
		cls[m] = event_class(xp_str(c, p->emeta[m].name));
	return cls;
}

static bool any_class(const uint8_t *cls, uint32_t n)
{
	for (uint32_t m = 0; m < n; m++)
		if (cls[m])
			return true;
	return false;
}

static void scan_plane(struct host_ctx *hc, const struct xp_plane *p)
{
	uint8_t *cls = classify_meta(hc->c, p);
	if (!any_class(cls, p->n_emeta)) {
		free(cls);
		return;
	}
	struct stat_ids ids = {
		xp_plane_stat_id(hc->c, p, "id"), xp_plane_stat_id(hc->c, p, "parent_id"),
		xp_plane_stat_id(hc->c, p, "element_id"), xp_plane_stat_id(hc->c, p, "_a"),
	};
	struct frame *stack = NULL;
	size_t cap = 0;
	for (uint32_t k = 0; k < p->n_lines; k++)
		if (line_has_tfdata(&p->lines[k], cls))
			scan_line(&hc->g, p, &p->lines[k], cls, &ids, &stack, &cap);
	free(stack);
	free(cls);
}

static void build_host(const struct xp_capture *c, const struct xp_host *h, struct xp_tfdata_host *out)
{
	struct host_ctx hc = {.c = c, .g = {.c = c}};
	out->host = h->name;
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (h->planes[i].kind == XP_PLANE_HOST_CPU)
			scan_plane(&hc, &h->planes[i]);
	build_children(&hc.g);
	find_pipelines(&hc);
	out->n_iterator_events = hc.g.n;
	struct walk w = {.hc = &hc};
	for (size_t k = 0; k < hc.n_pipes; k++)
		process_pipeline(&hc, k, &w, &out->n_truncated_calls);
	name_pipelines(hc.pipes, hc.n_pipes);
	out->n_pipelines = hc.n_pipes;
	out->pipelines = hc.pipes;
	idmap_free(&w.slot_of);
	free(w.stats);
	for (size_t k = 0; k < hc.n_pipes; k++)
		free(hc.roots[k]);
	free(hc.roots);
	free(hc.n_roots);
	free(hc.cap_roots);
	free(hc.metas);
	idmap_free(&hc.meta_of);
	idmap_free(&hc.device_ids);
	idmap_free(&hc.pipe_of);
	free_graph(&hc.g);
}

/* --- all hosts: the bottleneck analysis ----------------------------------------------------------- */

static int cmp_bottleneck(const void *x, const void *y)
{
	const struct xp_tfdata_bottleneck_row *a = x, *b = y;
	if (a->max_latency_ps != b->max_latency_ps)
		return a->max_latency_ps > b->max_latency_ps ? -1 : 1;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return (a->pipeline > b->pipeline) - (a->pipeline < b->pipeline);
}

/* Host pipelines only, each by its slowest call; the slowest pipeline first. */
static void bottleneck_analysis(struct xp_tfdata *t)
{
	size_t cap = 0;
	for (uint32_t h = 0; h < t->n_hosts; h++)
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++) {
			const struct xp_tfdata_pipeline *p = &t->hosts[h].pipelines[k];
			if (p->device || !p->n_calls)
				continue;
			grow((void **)&t->bottlenecks, &cap, t->n_bottlenecks, sizeof *t->bottlenecks);
			struct xp_tfdata_bottleneck_row *b = &t->bottlenecks[t->n_bottlenecks++];
			const struct xp_tfdata_call *slowest = &p->calls[0];
			memset(b, 0, sizeof *b);
			b->host = h;
			b->pipeline = k;
			b->max_latency_ps = p->max_latency_ps;
			b->iterator_name = slowest->has_bottleneck ? slowest->bottleneck_name : "";
			b->iterator_long_name = slowest->has_bottleneck ? slowest->bottleneck_long_name : "";
			b->iterator_latency_ps = slowest->bottleneck_self_ps;
			b->type = xp_tfdata_bottleneck_type(b->iterator_name);
		}
	sort(t->bottlenecks, t->n_bottlenecks, sizeof *t->bottlenecks, cmp_bottleneck);
}

static void set_summary(struct xp_tfdata *t)
{
	t->max_latency_ps = t->n_bottlenecks ? t->bottlenecks[0].max_latency_ps : 0;
	t->is_input_bound = t->max_latency_ps > XP_TFDATA_SLOW_CALL_PS;
	if (t->is_input_bound)
		t->summary = "Your profile has a tf.data input pipeline slower than 50 us. For each slow input pipeline, "
			     "below shows a bottleneck in the input pipeline and a suggestion on how to fix it.";
	else if (t->max_latency_ps > 0)
		t->summary = "Your profile does not have any tf.data input pipeline slower than 50 us. Your job could be "
			     "still input bound if this profile didn't capture all workers.";
	else
		t->summary = "No tf.data activity captured in your profile. If your job uses tf.data, try to capture a "
			     "longer profile.";
}

struct xp_tfdata *xp_tfdata_build(const struct xp_capture *c)
{
	struct xp_tfdata *t = xcalloc(1, sizeof *t);
	t->n_hosts = c->n_hosts;
	t->hosts = xcalloc(c->n_hosts, sizeof *t->hosts);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		build_host(c, &c->hosts[h], &t->hosts[h]);
	xp_tfdata_finish(t);
	return t;
}

void xp_tfdata_finish(struct xp_tfdata *t)
{
	bottleneck_analysis(t);
	set_summary(t);
}

void xp_tfdata_free(struct xp_tfdata *t)
{
	if (!t)
		return;
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++) {
			free(t->hosts[h].pipelines[k].calls);
			free(t->hosts[h].pipelines[k].iters);
		}
		free(t->hosts[h].pipelines);
	}
	free(t->hosts);
	free(t->bottlenecks);
	free(t);
}

const struct xp_tfdata_pipeline *xp_tfdata_row_pipeline(const struct xp_tfdata *t,
							 const struct xp_tfdata_bottleneck_row *b)
{
	return &t->hosts[b->host].pipelines[b->pipeline];
}
