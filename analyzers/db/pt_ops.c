/* pt_ops.c - the operator database of a PyTorch (Kineto) trace: operator trees per thread, kernels to their launching operator. */
#include "pt_ops.h"
#include "kernel_details.h"
#include "opdb.h"
#include "analyzers/prepare/prepare.h"
#include "formats/core/satint.h"
#include "formats/core/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The rules of the PyTorch profiler's operator view (its TensorBoard plugin),
 * written anew from its documented behaviour:
 *
 * - Host nodes are the operators (category cpu_op/Operator, ProfilerStep#N
 *   among them), "python" ranges and the collective user annotations
 *   (nccl:all_reduce, ...). On each thread they nest by time: sorted by start
 *   (the longer first), a node is the child of the innermost open node that
 *   holds it; one that overlaps it without fitting is left out.
 * - A device event (kernel, memcpy, memset) belongs to the runtime call with
 *   its correlation id, and that call to the innermost node around it on its
 *   thread. A call around which no node lies launched for no operator.
 * - An operator whose only child is an operator of its own name is one call
 *   (the child's launches stand for both), as the autograd profiler does.
 * - Host self time is the duration less the children's and the own runtime
 *   calls'; device self time is the device events of its own calls, device
 *   total time adds its children's.
 * - The table lists operators other than steps, DataLoader ranges,
 *   Optimizer.* and (Distributed)DataParallel.forward, by name.
 * - An operator is Tensor Core eligible by name, or when a child operator is,
 *   or when its own calls ran a Tensor Core kernel. The eligible share is the
 *   kernel time of eligible nodes with no eligible node inside, over the kernel
 *   time operators launched themselves.
 */

enum ntype { N_OP = 1, N_STEP, N_OTHER };

struct node {
	int64_t b, e;
	uint32_t name;
	uint8_t type;           /* enum ntype; N_OP may still be left out of the table by name */
	bool dropped, merged, elig, desc_elig, own_tc;
	int32_t parent;         /* -1: the thread's root */
	int32_t rep;            /* merged: the node that stands for it */
	int32_t rt_node;        /* whose runtime calls count for it (itself unless it took a same-name child) */
	uint32_t nchild;
	int32_t only;           /* its child, when it has one */
	int64_t child_dur, own_rt, own_dev, own_kernel, dev_total;
};

struct runtime {
	int64_t b, e, corr;
	int32_t node;           /* innermost node around it, -1 none */
	uint32_t line;          /* host line (global number) */
};

struct devev {
	uint32_t plane, line;
	uint64_t i;
	int64_t dur, corr;
	bool kernel, tc, has_corr;
};

struct ptb {
	const struct xp_capture *c;
	const struct xp_host *h;
	struct node *nd;
	size_t n_nd, cap_nd;
	struct runtime *rt;
	size_t n_rt, cap_rt;
	struct devev *dv;
	size_t n_dv, cap_dv;
	uint32_t *line_of;      /* per node: global host line */
	size_t cap_lo;
};

#define PUSH(arr, n, cap)                                                         \
	(((n) == (cap) ? ((cap) = (cap) ? (cap) * 2 : 256,                         \
			  (arr) = xrealloc((arr), (cap) * sizeof *(arr))) : 0), \
	 &(arr)[(n)++])

enum cls { K_NONE, K_OP, K_PYTHON, K_ANNOT, K_RUNTIME, K_KERNEL, K_COPY };

static enum cls classify(const char *s)
{
	static const struct {
		const char *cat;
		enum cls k;
	} map[] = {
		{"cpu_op", K_OP}, {"operator", K_OP}, {"python", K_PYTHON}, {"user_annotation", K_ANNOT},
		{"runtime", K_RUNTIME}, {"cuda_runtime", K_RUNTIME}, {"kernel", K_KERNEL}, {"memcpy", K_COPY},
		{"gpu_memcpy", K_COPY}, {"memset", K_COPY}, {"gpu_memset", K_COPY},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcasecmp(s, map[i].cat))
			return map[i].k;
	return K_NONE;
}

static const char *name_of(const struct ptb *b, uint32_t id)
{
	return xp_str(b->c, id);
}

static bool is_step(const char *s)
{
	return !strncmp(s, "ProfilerStep#", 13);
}

bool xp_pt_op_tc_eligible(const char *s)
{
	/* The PyTorch profiler's list: the ops autocast runs in lower precision, and their backward ops. */
	static const char *const ops[] = {
		"aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
		"aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d", "aten::convolution",
		"aten::cudnn_convolution", "aten::cudnn_convolution_transpose", "aten::prelu", "aten::addmm",
		"aten::addmv", "aten::addr", "aten::matmul", "aten::mm", "aten::mv", "aten::linear", "aten::addbmm",
		"aten::baddbmm", "aten::bmm", "aten::chain_matmul", "aten::linalg_multi_dot",
		"aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell",
		"aten::rnn_tanh_cell", "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
		"aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward", "MmBackward",
		"aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward", "MvBackward",
		"aten::cudnn_convolution_transpose_backward_weight", "aten::cudnn_convolution_transpose_backward_input",
		"AddmmBackward", "aten::cudnn_convolution_backward_input", "AddbmmBackward",
		"aten::cudnn_convolution_backward",
	};
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (!strcmp(s, ops[i]))
			return true;
	return false;
}

/* An operator the table lists (steps, DataLoader and optimizer ranges, DataParallel wrappers are not). */
static bool listed(const struct ptb *b, const struct node *n)
{
	const char *s = name_of(b, n->name);
	return n->type == N_OP && !xp_pt_is_dataloader_name(s, strlen(s)) && strncmp(s, "Optimizer.", 10) &&
	       strcmp(s, "DataParallel.forward") && strcmp(s, "DistributedDataParallel.forward");
}

/* --- collection ------------------------------------------------------------------------------ */

struct sids {
	uint32_t cat, corr;
};

static struct sids plane_sids(const struct xp_capture *c, const struct xp_plane *p)
{
	struct sids s = {xp_plane_stat_id(c, p, "cat"), xp_plane_stat_id(c, p, "correlation_id")};
	xp_stat_must_be_loaded(c, p, s.cat);
	xp_stat_must_be_loaded(c, p, s.corr);
	return s;
}

static enum cls event_cls(const struct ptb *b, uint8_t *memo, struct xp_stat_view v, uint32_t sid)
{
	for (uint32_t k = 0; sid && k < v.n; k++) {
		if (xp_stat_meta(v.keys[k]) != sid || xp_stat_kind(v.keys[k]) != XP_STAT_STR)
			continue;
		uint32_t id = (uint32_t)xp_view_val(&v, k);
		if (!memo[id])
			memo[id] = (uint8_t)(classify(xp_str(b->c, id)) + 1);
		return (enum cls)(memo[id] - 1);
	}
	return K_NONE;
}

static bool corr_of(const struct ptb *b, struct xp_stat_view v, uint32_t sid, int64_t *out)
{
	struct xp_value x;
	return sid && xp_view_find(b->c, v, sid, &x) && xp_value_int(&x, out);
}

static void host_event(struct ptb *b, enum cls k, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
		       uint32_t gline, struct xp_stat_view v, uint32_t corr_sid)
{
	uint32_t nm = xp_event_name(p, l, i);
	const char *s = name_of(b, nm);
	int64_t begin = l->start_ps[i], end = xp_event_end(l, i), corr;
	if (k == K_RUNTIME) {
		struct runtime *r = PUSH(b->rt, b->n_rt, b->cap_rt);
		*r = (struct runtime){begin, end, corr_of(b, v, corr_sid, &corr) ? corr : INT64_MIN, -1, gline};
		return;
	}
	if (k == K_ANNOT && !is_step(s) && !xp_pt_is_comm_name(s))
		return; /* record_function ranges are not in the operator tree */
	size_t at = b->n_nd;
	struct node *n = PUSH(b->nd, b->n_nd, b->cap_nd);
	memset(n, 0, sizeof *n);
	n->b = begin;
	n->e = end;
	n->name = nm;
	n->type = is_step(s) ? N_STEP : k == K_OP ? N_OP : N_OTHER;
	n->parent = n->rep = n->only = -1;
	n->rt_node = (int32_t)at;
	if (b->cap_lo < b->cap_nd) {
		b->cap_lo = b->cap_nd;
		b->line_of = xrealloc(b->line_of, b->cap_lo * sizeof *b->line_of);
	}
	b->line_of[at] = gline;
}

static void device_event(struct ptb *b, enum cls k, const struct xp_plane *p, uint32_t pi, uint32_t li,
			 const struct xp_line *l, uint64_t i, struct xp_stat_view v, uint32_t corr_sid)
{
	struct devev *d = PUSH(b->dv, b->n_dv, b->cap_dv);
	uint32_t nm = xp_event_name(p, l, i);
	*d = (struct devev){pi, li, i, xp_dur(l, i) > 0 ? xp_dur(l, i) : 0, 0, k == K_KERNEL, false, false};
	d->has_corr = corr_of(b, v, corr_sid, &d->corr);
	d->tc = d->kernel && xp_kernel_uses_tensor_core(name_of(b, nm), xp_strlen(b->c, nm));
}

static void collect(struct ptb *b)
{
	uint8_t *memo = xcalloc(b->c->strings.n ? b->c->strings.n : 1, 1);
	uint32_t gline = 0;
	for (uint32_t pi = 0; pi < b->h->n_planes; pi++) {
		const struct xp_plane *p = &b->h->planes[pi];
		bool device = p->kind == XP_PLANE_GPU || p->kind == XP_PLANE_DEVICE_OTHER;
		struct sids s = plane_sids(b->c, p);
		for (uint32_t li = 0; li < p->n_lines; li++, gline++) {
			const struct xp_line *l = &p->lines[li];
			for (uint64_t i = 0; s.cat && i < l->n_events; i++) {
				struct xp_stat_view v = xp_event_stats(l, i);
				enum cls k = event_cls(b, memo, v, s.cat);
				if (device && (k == K_KERNEL || k == K_COPY))
					device_event(b, k, p, pi, li, l, i, v, s.corr);
				else if (!device && (k == K_OP || k == K_PYTHON || k == K_ANNOT || k == K_RUNTIME))
					host_event(b, k, p, l, i, gline, v, s.corr);
			}
		}
	}
	free(memo);
}

/* --- the trees ------------------------------------------------------------------------------- */

/* Thread, then start, the longer first, then the order of the file. */
static int cmp_node(const void *x, const void *y, void *arg)
{
	uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;
	const struct ptb *b = arg;
	const struct node *na = &b->nd[a], *nc = &b->nd[c];
	if (b->line_of[a] != b->line_of[c])
		return b->line_of[a] < b->line_of[c] ? -1 : 1;
	if (na->b != nc->b)
		return na->b < nc->b ? -1 : 1;
	if (na->e != nc->e)
		return na->e > nc->e ? -1 : 1;
	return (a > c) - (a < c);
}

static int cmp_rt(const void *x, const void *y)
{
	const struct runtime *a = x, *c = y;
	if (a->line != c->line)
		return a->line < c->line ? -1 : 1;
	if (a->b != c->b)
		return a->b < c->b ? -1 : 1;
	if (a->e != c->e)
		return a->e < c->e ? -1 : 1;
	return (a->corr > c->corr) - (a->corr < c->corr);
}

/* The innermost open node around runtime R, or -1. */
static int32_t around(const struct ptb *b, const uint32_t *stack, size_t depth, const struct runtime *r)
{
	for (size_t k = depth; k-- > 0;) {
		const struct node *n = &b->nd[stack[k]];
		if (n->b <= r->b && r->e <= n->e)
			return (int32_t)stack[k];
	}
	return -1;
}

/* Parents by nesting on one thread, and the node of each of its runtime calls: nodes ND[0..NN) sorted by
 * cmp_node, calls RT[0..NR) by cmp_rt. A call goes before a node that starts with it (the node does not hold it). */
static void nest_line(struct ptb *b, const uint32_t *nd, size_t nn, struct runtime *rt, size_t nr, uint32_t *stack)
{
	size_t depth = 0, j = 0;
	for (size_t k = 0; k <= nn; k++) {
		struct node *n = k < nn ? &b->nd[nd[k]] : NULL;
		for (; j < nr && (!n || rt[j].b < n->b); j++)
			rt[j].node = around(b, stack, depth, &rt[j]);
		if (!n)
			break;
		while (depth && !(n->b < b->nd[stack[depth - 1]].e))
			depth--;
		if (depth && n->e > b->nd[stack[depth - 1]].e) {
			n->dropped = true; /* overlaps the node it starts in: the reference leaves it out */
			continue;
		}
		n->parent = depth ? (int32_t)stack[depth - 1] : -1;
		stack[depth++] = nd[k];
	}
}

static void nest(struct ptb *b, const uint32_t *order)
{
	uint32_t *stack = xmalloc((b->n_nd ? b->n_nd : 1) * sizeof *stack);
	size_t k = 0, j = 0;
	while (k < b->n_nd || j < b->n_rt) {
		uint32_t ln = k < b->n_nd ? b->line_of[order[k]] : UINT32_MAX;
		if (j < b->n_rt && b->rt[j].line < ln)
			ln = b->rt[j].line;
		size_t k1 = k, j1 = j;
		while (k1 < b->n_nd && b->line_of[order[k1]] == ln)
			k1++;
		while (j1 < b->n_rt && b->rt[j1].line == ln)
			j1++;
		/* b->rt is NULL on a thread-less trace: no pointer arithmetic on it then */
		nest_line(b, order + k, k1 - k, j1 > j ? b->rt + j : NULL, j1 - j, stack);
		k = k1;
		j = j1;
	}
	free(stack);
}

/* An operator whose only child is an operator of its own name takes the child's place (ORDER: pre-order). */
static void merge_same_name(struct ptb *b, const uint32_t *order)
{
	for (size_t k = 0; k < b->n_nd; k++) {
		const struct node *n = &b->nd[order[k]];
		if (n->dropped || n->parent < 0)
			continue;
		struct node *p = &b->nd[n->parent];
		p->nchild++;
		p->only = (int32_t)order[k];
	}
	for (size_t k = 0; k < b->n_nd; k++) {
		struct node *n = &b->nd[order[k]];
		if (n->dropped || n->merged)
			continue;
		while (n->nchild == 1 && n->type == N_OP) {
			struct node *ch = &b->nd[n->only];
			if (ch->type != N_OP || ch->name != n->name)
				break;
			ch->merged = true;
			ch->rep = (int32_t)order[k];
			n->rt_node = n->only; /* its own calls give way to the child's */
			n->nchild = ch->nchild;
			n->only = ch->only;
		}
	}
}

/* The node that stands for node X once same-name children are merged. */
static int32_t live(const struct ptb *b, int32_t x)
{
	return x >= 0 && b->nd[x].merged ? b->nd[x].rep : x;
}

/* The node a runtime call of node X counts for, or -1 (the root, or calls a merge set aside). */
static int32_t call_owner(const struct ptb *b, int32_t x)
{
	int32_t h = live(b, x);
	return h >= 0 && b->nd[h].rt_node == x ? h : -1;
}

static int cmp_corr(const void *x, const void *y)
{
	const int64_t *a = x, *c = y;
	if (a[0] != c[0])
		return a[0] < c[0] ? -1 : 1;
	return (a[1] > c[1]) - (a[1] < c[1]);
}

/* Runtime call of each device event by correlation id (the last call of that id in time): -1 none. */
static int32_t *launches(const struct ptb *b)
{
	int64_t (*byc)[2] = xmalloc((b->n_rt ? b->n_rt : 1) * sizeof *byc);
	size_t n = 0;
	for (size_t r = 0; r < b->n_rt; r++)
		if (b->rt[r].corr != INT64_MIN) {
			byc[n][0] = b->rt[r].corr;
			byc[n][1] = (int64_t)r;
			n++;
		}
	if (n > 1)
		qsort(byc, n, sizeof *byc, cmp_corr);
	int32_t *of = xmalloc((b->n_dv ? b->n_dv : 1) * sizeof *of);
	for (size_t d = 0; d < b->n_dv; d++) {
		size_t lo = 0, hi = n;
		while (lo < hi) { /* the first entry with a larger correlation id */
			size_t mid = (lo + hi) / 2;
			if (byc[mid][0] <= b->dv[d].corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		of[d] = b->dv[d].has_corr && lo && byc[lo - 1][0] == b->dv[d].corr ? (int32_t)byc[lo - 1][1] : -1;
	}
	free(byc);
	return of;
}

/* Own runtime time and own device work of each node. Returns each device event's node (-1 none). */
static int32_t *attribute(struct ptb *b)
{
	for (size_t r = 0; r < b->n_rt; r++) {
		int32_t o = call_owner(b, b->rt[r].node);
		if (o >= 0)
			b->nd[o].own_rt = xp_sat_add(b->nd[o].own_rt, b->rt[r].e - b->rt[r].b);
	}
	int32_t *rt_of = launches(b), *owner = xmalloc((b->n_dv ? b->n_dv : 1) * sizeof *owner);
	for (size_t d = 0; d < b->n_dv; d++) {
		const struct devev *e = &b->dv[d];
		int32_t o = rt_of[d] >= 0 ? call_owner(b, b->rt[rt_of[d]].node) : -1;
		owner[d] = o;
		if (o < 0)
			continue;
		struct node *n = &b->nd[o];
		n->own_dev = xp_sat_add(n->own_dev, e->dur);
		if (e->kernel)
			n->own_kernel = xp_sat_add(n->own_kernel, e->dur);
		n->own_tc |= e->tc && e->dur > 0;
	}
	free(rt_of);
	return owner;
}

/* Children before parents (reverse pre-order): totals and Tensor Core eligibility climb the tree. */
static void fill(struct ptb *b, const uint32_t *order)
{
	for (size_t k = b->n_nd; k-- > 0;) {
		struct node *n = &b->nd[order[k]];
		if (n->dropped || n->merged)
			continue;
		n->dev_total = xp_sat_add(n->dev_total, n->own_dev);
		n->elig = xp_pt_op_tc_eligible(name_of(b, n->name)) || (n->type == N_OP && (n->elig || n->own_tc));
		int32_t p = live(b, n->parent);
		if (p < 0)
			continue;
		struct node *pn = &b->nd[p];
		pn->child_dur = xp_sat_add(pn->child_dur, n->e - n->b);
		pn->dev_total = xp_sat_add(pn->dev_total, n->dev_total);
		pn->elig |= n->elig;  /* read as "a child is eligible" above, only for operators */
		pn->desc_elig |= n->elig || n->desc_elig;
	}
}

/* --- the table ------------------------------------------------------------------------------- */

static int cmp_by_name(const void *x, const void *y, void *arg)
{
	const uint32_t *a = x, *c = y;
	const struct ptb *b = arg;
	const char *sa = xp_str(b->c, b->nd[*a].name), *sc = xp_str(b->c, b->nd[*c].name);
	int d = strcmp(sa, sc);
	return d ? d : (*a > *c) - (*a < *c);
}

static int cmp_op(const void *x, const void *y, void *arg)
{
	const struct xp_pt_op *a = x, *c = y;
	const struct xp_capture *op_ctx = arg;
	if (a->dev_self_ps != c->dev_self_ps)
		return a->dev_self_ps > c->dev_self_ps ? -1 : 1;
	if (a->host_self_ps != c->host_self_ps)
		return a->host_self_ps > c->host_self_ps ? -1 : 1;
	return strcmp(xp_str(op_ctx, a->name), xp_str(op_ctx, c->name));
}

static void aggregate(const struct ptb *b, struct xp_pt_ops *db)
{
	uint32_t *ix = xmalloc((b->n_nd ? b->n_nd : 1) * sizeof *ix);
	size_t n = 0;
	for (size_t k = 0; k < b->n_nd; k++) {
		const struct node *nd = &b->nd[k];
		if (nd->dropped || nd->merged || !listed(b, nd))
			continue;
		ix[n++] = (uint32_t)k;
		db->op_kernel_ps = xp_sat_add(db->op_kernel_ps, nd->own_kernel);
	}
	if (n > 1)
		qsort_r(ix, n, sizeof *ix, cmp_by_name, (void *)b);
	db->ops = xcalloc(n ? n : 1, sizeof *db->ops);
	for (size_t k = 0; k < n; k++) {
		const struct node *nd = &b->nd[ix[k]];
		if (!db->n || db->ops[db->n - 1].name != nd->name)
			db->ops[db->n++] = (struct xp_pt_op){.name = nd->name};
		struct xp_pt_op *o = &db->ops[db->n - 1];
		int64_t dur = nd->e - nd->b;
		o->calls++;
		o->host_total_ps = xp_sat_add(o->host_total_ps, dur);
		o->host_self_ps = xp_sat_add(o->host_self_ps, xp_sat_sub(xp_sat_sub(dur, nd->child_dur), nd->own_rt));
		o->dev_total_ps = xp_sat_add(o->dev_total_ps, nd->dev_total);
		o->dev_self_ps = xp_sat_add(o->dev_self_ps, nd->own_dev);
		o->tc_eligible |= nd->elig;
	}
	free(ix);
	if (db->n > 1)
		qsort_r(db->ops, db->n, sizeof *db->ops, cmp_op, (void *)b->c);
	for (size_t k = 0; k < b->n_nd; k++) {
		const struct node *nd = &b->nd[k];
		if (!nd->dropped && !nd->merged && nd->elig && !nd->desc_elig)
			db->tc_bottom_ps = xp_sat_add(db->tc_bottom_ps, nd->own_kernel);
		db->dropped_nodes += nd->dropped;
	}
}

static void owners(const struct ptb *b, const int32_t *owner, struct xp_pt_ops *db)
{
	db->n_planes = b->h->n_planes;
	db->owner = xcalloc(db->n_planes ? db->n_planes : 1, sizeof *db->owner);
	db->plane_lines = xcalloc(db->n_planes ? db->n_planes : 1, sizeof *db->plane_lines);
	for (size_t d = 0; d < b->n_dv; d++) {
		const struct devev *e = &b->dv[d];
		const struct xp_plane *p = &b->h->planes[e->plane];
		if (!db->owner[e->plane]) {
			db->owner[e->plane] = xcalloc(p->n_lines ? p->n_lines : 1, sizeof **db->owner);
			db->plane_lines[e->plane] = p->n_lines;
		}
		uint32_t **ln = &db->owner[e->plane][e->line];
		if (!*ln) {
			uint64_t ne = p->lines[e->line].n_events;
			*ln = xmalloc((ne ? ne : 1) * sizeof **ln);
			for (uint64_t i = 0; i < ne; i++)
				(*ln)[i] = XP_PT_NO_OWNER;
		}
		db->device_events++;
		if (e->kernel)
			db->kernel_ps = xp_sat_add(db->kernel_ps, e->dur);
		if (e->tc)
			db->tc_kernel_ps = xp_sat_add(db->tc_kernel_ps, e->dur);
		if (owner[d] < 0 || b->nd[owner[d]].name >= XP_PT_OWNER_TC) {
			db->orphan_events++;
			db->orphan_ps = xp_sat_add(db->orphan_ps, e->dur);
			continue;
		}
		(*ln)[e->i] = b->nd[owner[d]].name | (b->nd[owner[d]].elig ? XP_PT_OWNER_TC : 0);
	}
}

struct xp_pt_ops *xp_pt_ops_build(const struct xp_capture *c, const struct xp_host *h)
{
	struct ptb b = {.c = c, .h = h};
	struct xp_pt_ops *db = xcalloc(1, sizeof *db);
	collect(&b);
	uint32_t *order = xmalloc((b.n_nd ? b.n_nd : 1) * sizeof *order);
	for (size_t k = 0; k < b.n_nd; k++)
		order[k] = (uint32_t)k;
	if (b.n_nd > 1)
		qsort_r(order, b.n_nd, sizeof *order, cmp_node, &b);
	if (b.n_rt > 1)
		qsort(b.rt, b.n_rt, sizeof *b.rt, cmp_rt);
	nest(&b, order);
	merge_same_name(&b, order);
	int32_t *owner = attribute(&b);
	fill(&b, order);
	aggregate(&b, db);
	owners(&b, owner, db);
	free(owner);
	free(order);
	free(b.nd);
	free(b.rt);
	free(b.dv);
	free(b.line_of);
	return db;
}

void xp_pt_ops_free(struct xp_pt_ops *db)
{
	if (!db)
		return;
	for (uint32_t p = 0; db->owner && p < db->n_planes; p++) {
		for (uint32_t l = 0; db->owner[p] && l < db->plane_lines[p]; l++)
			free(db->owner[p][l]);
		free(db->owner[p]);
	}
	free(db->owner);
	free(db->plane_lines);
	free(db->ops);
	free(db);
}

uint32_t xp_pt_owner(const struct xp_pt_ops *db, uint32_t plane, uint32_t line, uint64_t i, bool *tc_eligible)
{
	*tc_eligible = false;
	if (!db || plane >= db->n_planes || !db->owner[plane] || !db->owner[plane][line])
		return XP_PT_NO_OWNER;
	uint32_t v = db->owner[plane][line][i];
	if (v == XP_PT_NO_OWNER)
		return v;
	*tc_eligible = (v & XP_PT_OWNER_TC) != 0;
	return v & ~XP_PT_OWNER_TC;
}

void xp_pt_op_rows(const struct xp_capture *c, const struct xp_pt_op *ops, size_t n, bool device, struct xp_op_db *db)
{
	for (size_t i = 0; i < n; i++) {
		const struct xp_pt_op *o = &ops[i];
		if (device && !o->dev_total_ps)
			continue;
		bool created;
		size_t k = xp_op_db_row(db, XP_OPK_TF, NULL, xp_str(c, o->name), &created); /* may move rows */
		struct xp_op_row *r = &db->rows[k];
		if (!r->category)
			r->category = xp_op_db_text0(db, "Operator");
		int64_t self = device ? o->dev_self_ps : o->host_self_ps;
		r->occurrences += o->calls;
		r->time_ps = xp_sat_add(r->time_ps, device ? o->dev_total_ps : o->host_total_ps);
		r->self_ps = xp_sat_add(r->self_ps, self);
		db->total_op_time_ps = xp_sat_add(db->total_op_time_ps, self);
	}
}

struct xp_op_db *xp_pt_op_db(const struct xp_capture *c, bool device)
{
	struct xp_op_db *db = xp_op_db_empty();
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		if (!xp_host_is_pytorch(&c->hosts[h]))
			continue;
		struct xp_pt_ops *pt = xp_pt_ops_build(c, &c->hosts[h]);
		xp_pt_op_rows(c, pt->ops, pt->n, device, db);
		xp_pt_ops_free(pt);
	}
	return db;
}
