/* pt_steps.c - the step database of a PyTorch (Kineto) trace: ProfilerStep spans and the PyTorch breakdown. */
#include "group.h"
#include "prepare.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The rules are those of the PyTorch profiler's TensorBoard plugin (the
 * reference PyTorch users read), written anew from its documented behaviour:
 *
 * - A step is a host "ProfilerStep#N" (category cpu_op/Operator or
 *   user_annotation; one per N). Device work belongs to the step whose host
 *   span holds the whole CUDA runtime call that launched it (correlation id).
 * - When some step launched device work, each step starts at the later of its
 *   host start and the previous step's end (the first step no earlier than
 *   the last device work launched before any step, that ended before the
 *   step's first device work) and ends at the later of its host end and the
 *   end of the device work it launched: the async GPU tail is in the step.
 * - Trailing steps that launched no device work are dropped, and the last
 *   step that did when it launched fewer than 80% of the launches of the one
 *   before: the profiler may have missed their kernels.
 * - Every event of every thread counts, by category, in this priority where
 *   they overlap: Kernel, Memcpy, Memset, Communication (NCCL/Gloo operators
 *   and their kernels), Runtime, DataLoader (enumerate(DataLoader)#...__next__,
 *   enumerate(DataPipe)#...), CPU Exec (other operators); the rest of the
 *   step is Other.
 */

enum role { R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DATALOADER, R_CPUOP, R_N, R_NONE = 255 };

/* What an event's Kineto category makes of it. */
enum kcls { K_NONE = 1, K_OPERATOR, K_PYTHON, K_RUNTIME, K_KERNEL, K_MEMCPY, K_MEMSET };

struct ival {
	int64_t begin, end;
	uint8_t role;
};

struct runtime {
	int64_t begin, end;
	int64_t corr;
};

struct devnode {
	int64_t begin, end;
	int64_t corr;
	int32_t rt;             /* index into the sorted runtimes, -1 = none */
	bool matched;
};

struct pstep {
	int64_t begin, end, num;
	int64_t dev_begin, dev_end;
	uint64_t launches;      /* device events launched from inside its host span */
};

struct ptb {
	const struct xp_capture *c;
	uint8_t *cls;           /* by category string id: kcls, 0 = not decided yet */
	struct ival *iv;
	size_t n_iv, cap_iv;
	struct runtime *rt;
	size_t n_rt, cap_rt;
	struct devnode *dev;
	size_t n_dev, cap_dev;
	struct pstep *st;
	size_t n_st, cap_st;
	int64_t *comm_ext;      /* external ids of NCCL/Gloo operators */
	size_t n_comm, cap_comm;
};

#define PUSH(arr, n, cap)                                                         \
	(((n) == (cap) ? ((cap) = (cap) ? (cap) * 2 : 256,                         \
			  (arr) = xrealloc((arr), (cap) * sizeof *(arr))) : 0), \
	 &(arr)[(n)++])

static enum kcls classify(const char *s)
{
	static const struct {
		const char *cat;
		enum kcls k;
	} map[] = {
		{"cpu_op", K_OPERATOR}, {"operator", K_OPERATOR}, {"user_annotation", K_OPERATOR},
		{"python", K_PYTHON}, {"runtime", K_RUNTIME}, {"cuda_runtime", K_RUNTIME},
		{"kernel", K_KERNEL}, {"memcpy", K_MEMCPY}, {"gpu_memcpy", K_MEMCPY},
		{"memset", K_MEMSET}, {"gpu_memset", K_MEMSET},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcasecmp(s, map[i].cat))
			return map[i].k;
	return K_NONE; /* python_function, cuda_driver, gpu_user_annotation, ... take no part */
}

/* The category class of event I, through its "cat" stat (the reader keeps Kineto's category there). */
static enum kcls event_class(struct ptb *b, struct xp_stat_view v, uint32_t sid)
{
	for (uint32_t k = 0; sid && k < v.n; k++) {
		if (xp_stat_meta(v.keys[k]) != sid || xp_stat_kind(v.keys[k]) != XP_STAT_STR)
			continue;
		uint32_t id = (uint32_t)xp_view_val(&v, k);
		if (!b->cls[id])
			b->cls[id] = (uint8_t)classify(xp_str(b->c, id));
		return (enum kcls)b->cls[id];
	}
	return K_NONE;
}

static bool int_stat(const struct xp_capture *c, struct xp_stat_view v, uint32_t sid, int64_t *out)
{
	struct xp_value x;
	return sid && xp_view_find(c, v, sid, &x) && xp_value_int(&x, out);
}

static bool starts(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

static bool ends(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && !memcmp(s + n - k, suf, k);
}

bool xp_pt_is_comm_name(const char *s)
{
	static const char *const ops[] = {"broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter"};
	const char *rest = starts(s, "nccl:") ? s + 5 : starts(s, "gloo:") ? s + 5 : NULL;
	for (size_t i = 0; rest && i < sizeof ops / sizeof *ops; i++)
		if (!strcmp(rest, ops[i]))
			return true;
	return false;
}

bool xp_pt_is_dataloader_name(const char *s, size_t n)
{
	return (starts(s, "enumerate(DataLoader)#") && ends(s, n, ".__next__")) || starts(s, "enumerate(DataPipe)#");
}

/* "ProfilerStep#N" with N all digits. */
static bool step_number(const char *s, int64_t *num)
{
	if (!starts(s, "ProfilerStep#") || !s[13])
		return false;
	int64_t v = 0;
	for (const char *p = s + 13; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	*num = v;
	return true;
}

static void add_role(struct ptb *b, int64_t begin, int64_t end, enum role r)
{
	if (end > begin)
		*PUSH(b->iv, b->n_iv, b->cap_iv) = (struct ival){begin, end, (uint8_t)r};
}

/* An operator-like host event: a step, DataLoader, communication or CPU Exec. */
static void host_op(struct ptb *b, const char *name, size_t n, int64_t begin, int64_t end, bool operator_,
		    struct xp_stat_view v, uint32_t ext_sid)
{
	int64_t num, ext;
	if (operator_ && step_number(name, &num)) {
		*PUSH(b->st, b->n_st, b->cap_st) = (struct pstep){begin, end, num, INT64_MAX, INT64_MIN, 0};
		return;
	}
	if (operator_ && xp_pt_is_dataloader_name(name, n)) {
		add_role(b, begin, end, R_DATALOADER);
		return;
	}
	if (xp_pt_is_comm_name(name)) {
		add_role(b, begin, end, R_COMM);
		if (int_stat(b->c, v, ext_sid, &ext))
			*PUSH(b->comm_ext, b->n_comm, b->cap_comm) = ext;
		return;
	}
	add_role(b, begin, end, R_CPUOP);
}

struct sids {
	uint32_t cat, corr, ext, ext2;
};

static struct sids plane_sids(const struct xp_capture *c, const struct xp_plane *p)
{
	struct sids s = {xp_plane_stat_id(c, p, "cat"), xp_plane_stat_id(c, p, "correlation_id"),
			 xp_plane_stat_id(c, p, "External id"), xp_plane_stat_id(c, p, "external id")};
	xp_stat_must_be_loaded(c, p, s.cat);
	xp_stat_must_be_loaded(c, p, s.corr);
	xp_stat_must_be_loaded(c, p, s.ext);
	xp_stat_must_be_loaded(c, p, s.ext2);
	return s;
}

static int cmp_i64(const void *x, const void *y);

static void collect_event(struct ptb *b, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			  const struct sids *s)
{
	struct xp_stat_view v = xp_event_stats(l, i);
	enum kcls k = event_class(b, v, s->cat);
	int64_t begin = l->start_ps[i], end = xp_event_end(l, i), corr = 0;
	uint32_t nm = xp_event_name(p, l, i);
	switch (k) {
	case K_OPERATOR:
	case K_PYTHON:
		host_op(b, xp_str(b->c, nm), xp_strlen(b->c, nm), begin, end, k == K_OPERATOR, v,
			s->ext ? s->ext : s->ext2);
		break;
	case K_RUNTIME:
		add_role(b, begin, end, R_RUNTIME);
		if (int_stat(b->c, v, s->corr, &corr))
			*PUSH(b->rt, b->n_rt, b->cap_rt) = (struct runtime){begin, end, corr};
		break;
	case K_KERNEL:
	case K_MEMCPY:
	case K_MEMSET: {
		int64_t ext;
		bool comm = false;
		if (k == K_KERNEL && b->n_comm && (int_stat(b->c, v, s->ext, &ext) || int_stat(b->c, v, s->ext2, &ext)))
			comm = bsearch(&ext, b->comm_ext, b->n_comm, sizeof ext, cmp_i64) != NULL;
		add_role(b, begin, end, k == K_MEMCPY ? R_MEMCPY : k == K_MEMSET ? R_MEMSET : comm ? R_COMM : R_KERNEL);
		struct devnode *d = PUSH(b->dev, b->n_dev, b->cap_dev);
		*d = (struct devnode){begin, end, int_stat(b->c, v, s->corr, &corr) ? corr : INT64_MIN, -1, false};
		break;
	}
	default:
		break;
	}
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* Host events first (communication operators must be known before their kernels), then device events. */
static void collect(struct ptb *b, const struct xp_host *h)
{
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && b->n_comm > 1)
			qsort(b->comm_ext, b->n_comm, sizeof *b->comm_ext, cmp_i64);
		for (uint32_t pi = 0; pi < h->n_planes; pi++) {
			const struct xp_plane *p = &h->planes[pi];
			bool device = p->kind == XP_PLANE_GPU || p->kind == XP_PLANE_DEVICE_OTHER;
			if (device != (pass == 1))
				continue;
			struct sids s = plane_sids(b->c, p);
			if (!s.cat)
				continue;
			for (uint32_t li = 0; li < p->n_lines; li++)
				for (uint64_t i = 0; i < p->lines[li].n_events; i++)
					collect_event(b, p, &p->lines[li], i, &s);
		}
	}
}

static int cmp_rt(const void *x, const void *y)
{
	const struct runtime *a = x, *b = y;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->corr > b->corr) - (a->corr < b->corr);
}

static int cmp_corr(const void *x, const void *y)
{
	const struct runtime *const *a = x, *const *b = y;
	if ((*a)->corr != (*b)->corr)
		return (*a)->corr < (*b)->corr ? -1 : 1;
	return *a < *b ? -1 : *a > *b;
}

static int cmp_step(const void *x, const void *y)
{
	const struct pstep *a = x, *b = y;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	return (a->num > b->num) - (a->num < b->num);
}

static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* One step per N (the first in time), in time order. */
static void unique_steps(struct ptb *b)
{
	sort(b->st, b->n_st, sizeof *b->st, cmp_step);
	size_t w = 0;
	for (size_t i = 0; i < b->n_st; i++) {
		bool seen = false;
		for (size_t j = 0; j < w && !seen; j++)
			seen = b->st[j].num == b->st[i].num;
		if (!seen)
			b->st[w++] = b->st[i];
	}
	b->n_st = w;
}

/* Each device event to its launching runtime: the last runtime of its correlation id in time order that
 * began before it, else the first. */
static void link_devices(struct ptb *b)
{
	sort(b->rt, b->n_rt, sizeof *b->rt, cmp_rt);
	const struct runtime **byc = xcalloc(b->n_rt ? b->n_rt : 1, sizeof *byc);
	for (size_t i = 0; i < b->n_rt; i++)
		byc[i] = &b->rt[i];
	sort(byc, b->n_rt, sizeof *byc, cmp_corr);
	for (size_t d = 0; d < b->n_dev; d++) {
		size_t lo = 0, hi = b->n_rt;
		while (lo < hi) { /* the first runtime with a larger correlation id */
			size_t mid = (lo + hi) / 2;
			if (byc[mid]->corr <= b->dev[d].corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* Of several runtimes with its id (two spans of one worker, each file counting from 1), the last
		 * that began before it: the one of its own span. */
		size_t at = lo;
		while (at > 1 && byc[at - 2]->corr == b->dev[d].corr && byc[at - 1]->begin > b->dev[d].begin)
			at--;
		if (at && byc[at - 1]->corr == b->dev[d].corr)
			b->dev[d].rt = (int32_t)(byc[at - 1] - b->rt);
	}
	free(byc);
}

/* Device span and launch count of each step: its runtimes wholly inside its host span. */
static void device_spans(struct ptb *b)
{
	int32_t *step_of = xcalloc(b->n_rt ? b->n_rt : 1, sizeof *step_of);
	size_t s = 0;
	for (size_t i = 0; i < b->n_rt; i++) {
		const struct runtime *r = &b->rt[i];
		while (s < b->n_st && r->begin >= b->st[s].end)
			s++;
		step_of[i] = s < b->n_st && r->begin >= b->st[s].begin && r->end <= b->st[s].end ? (int32_t)s : -1;
	}
	for (size_t d = 0; d < b->n_dev; d++) {
		struct devnode *n = &b->dev[d];
		int32_t st = n->rt >= 0 ? step_of[n->rt] : -1;
		if (st < 0)
			continue;
		struct pstep *p = &b->st[st];
		n->matched = true;
		p->launches++;
		if (n->begin < p->dev_begin)
			p->dev_begin = n->begin;
		if (n->end > p->dev_end)
			p->dev_end = n->end;
	}
	free(step_of);
}

/* The step spans once device work is known; returns whether any step launched device work. */
static bool final_spans(struct ptb *b)
{
	bool any = false;
	for (size_t d = 0; d < b->n_dev && !any; d++)
		any = b->dev[d].matched;
	if (!any || !b->n_st)
		return false;
	int64_t prev = b->st[0].begin;
	if (b->st[0].launches)
		for (size_t d = 0; d < b->n_dev; d++)
			if (!b->dev[d].matched && b->dev[d].end < b->st[0].dev_begin && b->dev[d].end > prev)
				prev = b->dev[d].end;
	for (size_t i = 0; i < b->n_st; i++) {
		struct pstep *p = &b->st[i];
		int64_t begin = p->begin > prev ? p->begin : prev, end = p->end;
		if (p->launches && p->dev_end > end)
			end = p->dev_end;
		if (end < begin)
			end = begin;
		p->begin = begin;
		p->end = end;
		prev = end;
	}
	return true;
}

/* How many steps to keep: trailing steps without device work go, and a last one with under 80% of the
 * launches of the step before it. */
static size_t kept_steps(const struct ptb *b)
{
	size_t i = b->n_st;
	while (i > 0 && !b->st[i - 1].launches)
		i--;
	if (!i)
		return b->n_st;
	size_t keep = i;
	if (i > 1 && (double)b->st[i - 2].launches * 0.8 > (double)b->st[i - 1].launches)
		keep = i - 1;
	return keep;
}

struct bound {
	int64_t t;
	int8_t delta;
	uint8_t role;
};

static int cmp_bound(const void *x, const void *y)
{
	const struct bound *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	return a->delta - b->delta;
}

/* Add segment [s0, s1) of ROLE to every step it overlaps, from step *J on. */
static void attribute(const struct ptb *b, size_t n, size_t *j, int64_t s0, int64_t s1, int role,
		      int64_t (*cost)[R_N])
{
	while (*j < n && b->st[*j].end <= s0)
		(*j)++;
	for (size_t k = *j; k < n && b->st[k].begin < s1; k++) {
		int64_t lo = s0 > b->st[k].begin ? s0 : b->st[k].begin, hi = s1 < b->st[k].end ? s1 : b->st[k].end;
		if (hi > lo)
			cost[k][role] += hi - lo;
	}
}

/* Per step and role the time where that role is the highest-priority one present. */
static void breakdown(const struct ptb *b, size_t n, int64_t (*cost)[R_N])
{
	struct bound *bd = xcalloc(2 * b->n_iv + 1, sizeof *bd);
	for (size_t i = 0; i < b->n_iv; i++) {
		bd[2 * i] = (struct bound){b->iv[i].begin, 1, b->iv[i].role};
		bd[2 * i + 1] = (struct bound){b->iv[i].end, -1, b->iv[i].role};
	}
	sort(bd, 2 * b->n_iv, sizeof *bd, cmp_bound);
	int64_t count[R_N] = {0};
	size_t j = 0;
	for (size_t i = 0; i + 1 < 2 * b->n_iv; i++) {
		count[bd[i].role] += bd[i].delta;
		int top = 0;
		while (top < R_N && count[top] <= 0)
			top++;
		if (top < R_N && bd[i + 1].t > bd[i].t)
			attribute(b, n, &j, bd[i].t, bd[i + 1].t, top, cost);
	}
	free(bd);
}

static const enum xp_event_type role_type[R_N] = {
	[R_KERNEL] = XP_ET_DEVICE_COMPUTE_32, [R_MEMCPY] = XP_ET_PT_MEMCPY, [R_MEMSET] = XP_ET_PT_MEMSET,
	[R_COMM] = XP_ET_DEVICE_COLLECTIVES, [R_RUNTIME] = XP_ET_HOST_PREPARE,
	[R_DATALOADER] = XP_ET_HOST_WAIT_INPUT, [R_CPUOP] = XP_ET_HOST_COMPUTE,
};

static void fill_db(struct ptb *b, size_t n, struct xp_step_db *db)
{
	int64_t (*cost)[R_N] = xcalloc(n ? n : 1, sizeof *cost);
	breakdown(b, n, cost);
	db->steps = xcalloc(n ? n : 1, sizeof *db->steps);
	for (size_t i = 0; i < n; i++) {
		struct xp_step *s = &db->steps[i];
		char name[32];
		s->id = b->st[i].num;
		snprintf(name, sizeof name, "ProfilerStep#%" PRId64, b->st[i].num);
		s->begin_ps = b->st[i].begin;
		s->duration_ps = b->st[i].end - b->st[i].begin;
		int64_t v[XP_STEP_N_VALUES] = {0}, sum = 0;
		for (int r = 0; r < R_N; r++) {
			v[XP_STEP_TYPE + role_type[r]] += cost[i][r];
			sum += cost[i][r];
		}
		v[XP_STEP_TYPE + XP_ET_UNKNOWN] = s->duration_ps - sum;
		xp_step_set(s, v, name);
	}
	db->n = n;
	free(cost);
}

static void dropped_note(const struct ptb *b, size_t keep, struct xp_step_db *db)
{
	db->n_dropped = b->n_st - keep;
	if (!db->n_dropped)
		return;
	char buf[256];
	const struct pstep *s = &b->st[keep];
	int k = snprintf(buf, sizeof buf, "the last step%s (ProfilerStep#%" PRId64 "%s) ", db->n_dropped == 1 ? "" : "s",
			 s->num, db->n_dropped == 1 ? "" : " on");
	if (s->launches)
		snprintf(buf + k, sizeof buf - (size_t)k, "launched %" PRIu64 " device events, under 80%% of the %" PRIu64
			 " of the step before: the profiler may have missed some of its kernels", s->launches,
			 b->st[keep - 1].launches);
	else
		snprintf(buf + k, sizeof buf - (size_t)k, "launched no device work");
	db->dropped_why = strdup(buf);
	if (!db->dropped_why)
		xp_oom();
}

bool xp_host_is_pytorch(const struct xp_host *h)
{
	return h->format == XP_FMT_TRACE_JSON && h->json.kineto_events > 0;
}

const char *xp_capture_semantics(const struct xp_capture *c)
{
	for (uint32_t h = 0; h < c->n_hosts; h++)
		if (xp_host_is_pytorch(&c->hosts[h]))
			return XP_SEMANTICS_PYTORCH;
	return NULL;
}

void xp_stepdb_pytorch(const struct xp_capture *c, struct xp_prep_host *ph)
{
	struct xp_step_db *db = &ph->steps;
	const struct xp_host *h = ph->host;
	struct ptb b = {.c = c};
	b.cls = xcalloc(c->strings.n ? c->strings.n : 1, 1);
	db->pytorch = true;
	for (uint32_t p = 0; p < h->n_planes; p++)
		for (uint32_t l = 0; l < h->planes[p].n_lines; l++)
			db->has_device |= h->planes[p].kind == XP_PLANE_GPU && h->planes[p].lines[l].n_events;
	collect(&b, h);
	unique_steps(&b);
	link_devices(&b);
	device_spans(&b);
	size_t keep = final_spans(&b) && b.n_st > 1 ? kept_steps(&b) : b.n_st;
	db->source = b.n_st ? XP_STEPS_GROUPED : XP_STEPS_NONE;
	dropped_note(&b, keep, db);
	fill_db(&b, keep, db);
	free(b.cls);
	free(b.iv);
	free(b.rt);
	free(b.dev);
	free(b.st);
	free(b.comm_ext);
}
