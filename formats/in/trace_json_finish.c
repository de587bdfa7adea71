/* trace_json_finish.c - staged trace events as the model: processes to planes, raw lines to sorted lines, metadata renumbered per plane. */
#include "trace_json_finish.h"
#include "trace_json_stage.h"
#include "trace_json_values.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define DERIVED_MIN (-559038737) /* 0xdeadbeef as an int: the derived line id range */

/* --- finishing: planes and lines ----------------------------------------------------------- */

/* "id" of a deviceProperties entry, when it is a sane ordinal. */
static bool dev_id(const cJSON *d, int *out)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
	if (!cJSON_IsNumber(id) || !(id->valuedouble >= 0 && id->valuedouble < 65536))
		return false;
	*out = (int)id->valuedouble;
	return true;
}

struct plane_build {
	uint32_t host;          /* the host it belongs to (an xpstat export of several hosts; else 0) */
	uint32_t name;          /* interned plane name */
	enum xp_plane_kind kind;
	int ordinal;
	int64_t id;
	bool has_id;
	uint32_t *lines;        /* raw line indices */
	size_t n_lines, cap_lines;
	bool named;             /* a process_name or deviceProperties names it */
	uint32_t proc;          /* 1 + the process that named it, 0 = none */
};

struct finisher {
	struct tj_stage *r;
	struct plane_build *pb;
	size_t n_pb, cap_pb;
	struct kmap pb_map;     /* (plane name, host) -> index in pb */
	uint32_t n_hosts;       /* hosts the document makes: 1, or an xpstat export's */
	int64_t shift;          /* subtracted from every start */
	/* per plane: host-wide metadata id -> plane id (0 = not yet) */
	uint32_t *em_map, *sm_map;
	uint32_t *em_list, *sm_list; /* plane id -> host-wide id */
	uint32_t n_em_list, n_sm_list;
};

static uint32_t intern_fmt(struct tj_stage *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static uint32_t intern_fmt(struct tj_stage *r, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	return xp_intern(r->st, buf, (size_t)n);
}

static uint32_t find_plane(struct finisher *f, uint32_t host, uint32_t name)
{
	struct key3 k = {name, host, 0};
	uint32_t i = kmap_get(&f->pb_map, &k);
	if (i != UINT32_MAX)
		return i;
	kmap_put(&f->pb_map, &k, (uint32_t)f->n_pb);
	GROW(f->pb, f->n_pb, f->cap_pb);
	struct plane_build *b = &f->pb[f->n_pb];
	memset(b, 0, sizeof *b);
	b->host = host;
	b->name = name;
	b->kind = xp_classify_plane(xp_str(f->r->cap, name), xp_strlen(f->r->cap, name), &b->ordinal);
	return (uint32_t)f->n_pb++;
}

/* "GPU 3" (Kineto's process labels) -> 3 */
static bool gpu_label(const char *s, int *n)
{
	if (strncmp(s, "GPU ", 4) || !jl_is_digit((uint8_t)s[4]) || strlen(s + 4) > 6)
		return false;
	for (const char *p = s + 4; *p; p++)
		if (!jl_is_digit((uint8_t)*p))
			return false;
	*n = atoi(s + 4);
	return true;
}

static int64_t device_ordinal(const struct proc *p, const struct rline *l)
{
	if (l && l->has_dev_arg)
		return l->dev_arg;
	if (p->has_dev_arg)
		return p->dev_arg;
	if (!p->pid.str && p->pid.v >= 0 && p->pid.v < 65536)
		return p->pid.v;
	return 0;
}

/* The plane a process maps to (as an interned name). */
static uint32_t proc_plane(struct tj_stage *r, const struct proc *p)
{
	const char *nm = p->has_name ? xp_str(r->cap, p->name) : NULL;
	const char *lb = p->has_labels ? xp_str(r->cap, p->labels) : NULL;
	int n;
	if (nm && nm[0] == '/')
		return p->name; /* TF/JAX: the XSpace plane name */
	if ((lb && gpu_label(lb, &n)) || (nm && gpu_label(nm, &n)))
		return intern_fmt(r, "/device:GPU:%d", n);
	if (p->device_events && !(lb && !strcmp(lb, "CPU")))
		return intern_fmt(r, "/device:GPU:%" PRId64, device_ordinal(p, NULL));
	if (p->pid.str) {
		const char *s = xp_str(r->cap, (uint32_t)p->pid.v);
		size_t len = xp_strlen(r->cap, (uint32_t)p->pid.v);
		if (!len)
			return xp_intern(r->st, "/host:unnamed", 13);
		char *b = xrealloc(NULL, len + 7);
		memcpy(b, "/host:", 6);
		memcpy(b + 6, s, len);
		uint32_t id = xp_intern(r->st, b, len + 6);
		free(b);
		return id;
	}
	return xp_intern(r->st, "/host:CPU", 9);
}

static bool is_device_kind(enum xp_plane_kind k)
{
	return k == XP_PLANE_GPU || k == XP_PLANE_TPU || k == XP_PLANE_DEVICE_OTHER;
}

static void plane_add_line(struct finisher *f, uint32_t plane, uint32_t line)
{
	struct plane_build *b = &f->pb[plane];
	GROW(b->lines, b->n_lines, b->cap_lines);
	b->lines[b->n_lines++] = line;
	f->r->thr.lines[line].plane = plane;
	const struct proc *p = &f->r->thr.procs[f->r->thr.lines[line].proc];
	if (!b->has_id && !p->pid.str) {
		b->id = p->pid.v;
		b->has_id = true;
	}
}

/* Threads named in metadata are lines even when none of their events was kept
 * (TF writes every line of the XSpace; its memory events are not exported). */
static void metadata_lines(struct tj_stage *r)
{
	for (size_t i = 0; i < r->thr.tmeta_map.cap; i++) {
		if (!r->thr.tmeta_map.vals[i])
			continue;
		const struct key3 *k = &r->thr.tmeta_map.keys[i];
		struct jkey pid = {k->a, k->c & 1}, tid = {k->b, (k->c >> 1) & 1};
		tj_get_line(r, pid, tid, RT_AUTO);
	}
}

/* The host a process belongs to: its process_labels' in an xpstat export of several hosts. */
static uint32_t proc_host(const struct finisher *f, const struct proc *p)
{
	return p->xp_host < f->n_hosts ? p->xp_host : 0;
}

static void assign_planes(struct finisher *f)
{
	struct tj_stage *r = f->r;
	metadata_lines(r);
	uint32_t *proc_pl = xcalloc(r->thr.n_procs, sizeof *proc_pl);
	uint32_t host_cpu = xp_intern(r->st, "/host:CPU", 9);
	for (uint32_t h = 0; h < f->n_hosts; h++) {
		uint32_t cpu = find_plane(f, h, host_cpu); /* before f->pb: it may move it */
		f->pb[cpu].named = true;                /* always there, maybe empty */
	}
	for (size_t i = 0; i < r->thr.n_procs; i++) {
		proc_pl[i] = find_plane(f, proc_host(f, &r->thr.procs[i]), proc_plane(r, &r->thr.procs[i]));
		if (r->thr.procs[i].has_name && r->thr.procs[i].name == f->pb[proc_pl[i]].name) {
			f->pb[proc_pl[i]].named = true; /* TF/JAX wrote the plane, lines or not */
			if (!f->pb[proc_pl[i]].proc)
				f->pb[proc_pl[i]].proc = (uint32_t)i + 1;
		}
	}
	for (size_t i = 0; i < r->thr.n_lines; i++) {
		struct rline *l = &r->thr.lines[i];
		const struct proc *p = &r->thr.procs[l->proc];
		uint32_t pl = proc_pl[l->proc], h = proc_host(f, p);
		if (l->route == RT_HOST)
			pl = find_plane(f, h, host_cpu);
		else if ((l->route == RT_DEVICE || l->route == RT_ANNOT) && !is_device_kind(f->pb[pl].kind))
			pl = find_plane(f, h, intern_fmt(r, "/device:GPU:%" PRId64, device_ordinal(p, l)));
		plane_add_line(f, pl, (uint32_t)i);
	}
	free(proc_pl);
	/* Devices known from deviceProperties have a plane even without events. */
	const cJSON *d;
	int id;
	cJSON_ArrayForEach(d, r->device_props)
		if (dev_id(d, &id)) {
			uint32_t pl = find_plane(f, 0, intern_fmt(r, "/device:GPU:%d", id));
			f->pb[pl].named = true;
		}
	/* Planes with no line are kept only when the file named them (TF, deviceProperties). */
	size_t k = 0;
	for (size_t i = 0; i < f->n_pb; i++) {
		struct plane_build *b = &f->pb[i];
		if (!b->named && !b->n_lines) {
			free(b->lines);
			continue;
		}
		f->pb[k++] = *b;
	}
	f->n_pb = k;
	kmap_free(&f->pb_map);
	for (size_t i = 0; i < f->n_pb; i++)
		for (size_t j = 0; j < f->pb[i].n_lines; j++)
			r->thr.lines[f->pb[i].lines[j]].plane = (uint32_t)i;
}

static const struct xp_capture *sort_cap;

static int cmp_plane(const void *a, const void *b)
{
	const struct plane_build *x = a, *y = b;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	int kx = xp_plane_kind_rank(x->kind), ky = xp_plane_kind_rank(y->kind);
	if (kx != ky)
		return kx - ky;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	return strcmp(xp_str(sort_cap, x->name), xp_str(sort_cap, y->name));
}

/* Line order in a plane: derived last; by thread sort index (else tid); string tids, counters and async after. */
struct line_order {
	uint32_t line;
	int cls;                /* 0 integer tid, 1 string tid, 2 counters, 3 async, 4 annotations */
	int64_t key;
	uint32_t name;
};

static int cmp_line_order(const void *a, const void *b)
{
	const struct line_order *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls - y->cls;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	int c = strcmp(xp_str(sort_cap, x->name), xp_str(sort_cap, y->name));
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint32_t trimmed(struct tj_stage *r, uint32_t id)
{
	const char *s = xp_str(r->cap, id);
	size_t n = xp_strlen(r->cap, id);
	if (!n || !jl_is_ws((uint8_t)s[n - 1]))
		return id;
	while (n && jl_is_ws((uint8_t)s[n - 1]))
		n--;
	return xp_intern(r->st, s, n);
}

static uint32_t line_name(struct tj_stage *r, const struct rline *l, int cls)
{
	switch (cls) {
	case 2: return xp_intern(r->st, "Counters", 8);
	case 3: return xp_intern(r->st, "Async", 5);
	case 4: return xp_intern(r->st, "GPU user annotations", 20);
	default: break;
	}
	struct key3 k = thread_key(l->pid, l->tid);
	uint32_t t = kmap_get(&r->thr.tmeta_map, &k);
	if (t != UINT32_MAX && r->thr.tmetas[t].has_name)
		return trimmed(r, r->thr.tmetas[t].name);
	if (l->tid.str)
		return (uint32_t)l->tid.v;
	return intern_fmt(r, "%" PRId64, l->tid.v);
}

/* --- finishing: one line ----------------------------------------------------------------- */

static const struct rline *sort_line;

static int cmp_event(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	const struct rline *l = sort_line;
	if (l->start[x] != l->start[y])
		return l->start[x] < l->start[y] ? -1 : 1;
	if (l->dur[x] != l->dur[y])
		return l->dur[x] > l->dur[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static bool line_sorted(const struct rline *l)
{
	for (uint64_t i = 1; i < l->n; i++)
		if (l->start[i] < l->start[i - 1] || (l->start[i] == l->start[i - 1] && l->dur[i] > l->dur[i - 1]))
			return false;
	return true;
}

static uint32_t map_em(struct finisher *f, uint32_t g)
{
	if (!g)
		return 0;
	if (!f->em_map[g]) {
		f->em_list[++f->n_em_list] = g;
		f->em_map[g] = f->n_em_list;
	}
	return f->em_map[g];
}

static uint32_t map_sm(struct finisher *f, uint32_t g)
{
	if (!g)
		return 0;
	if (!f->sm_map[g]) {
		f->sm_list[++f->n_sm_list] = g;
		f->sm_map[g] = f->n_sm_list;
	}
	return f->sm_map[g];
}

static uint32_t remap_key(struct finisher *f, uint32_t key)
{
	return (key & ~(uint32_t)XP_STAT_META_MASK) | map_sm(f, xp_stat_meta(key));
}

/* The stats of event o of l (their blobs copied along) onto the end of block nb. */
static void copy_stats(const struct rline *l, uint64_t o, struct xp_block *nb)
{
	const struct xp_block *ob = &l->blocks[o >> XP_BLOCK_SHIFT];
	uint32_t first = l->sbeg[o];
	uint32_t last = (o + 1 < l->n && ((o + 1) >> XP_BLOCK_SHIFT) == (o >> XP_BLOCK_SHIFT)) ? l->sbeg[o + 1]
												     : ob->stats.n;
	for (uint32_t k = first; k < last; k++) {
		uint32_t key = ob->stats.keys[k];
		uint64_t v = (key & XP_STAT_WIDE) ? ob->stats.wide[ob->stats.vals[k]] : ob->stats.vals[k];
		unsigned kind = xp_stat_kind(key);
		if (kind == XP_STAT_BLOBSTR || kind == XP_STAT_BYTES) {
			uint32_t len;
			const uint8_t *p = xp_blob_get(&ob->blob, v, &len);
			v = xp_blob_put(&nb->blob, p, len);
		}
		xp_stats_push(&nb->stats, key & ~(uint32_t)XP_STAT_WIDE, v);
	}
}

/* Put the events of a line in (start asc, duration desc) order, stats and blobs with them. */
static void sort_events(struct rline *l)
{
	uint64_t n = l->n;
	uint64_t *order = xmalloc(n * sizeof *order);
	for (uint64_t i = 0; i < n; i++)
		order[i] = i;
	sort_line = l;
	qsort(order, n, sizeof *order, cmp_event);
	struct rline s = *l;
	s.start = xmalloc(n * sizeof *s.start);
	s.dur = xmalloc(n * sizeof *s.dur);
	s.meta = xmalloc(n * sizeof *s.meta);
	s.sbeg = xmalloc(n * sizeof *s.sbeg);
	s.blocks = xcalloc(l->n_blocks, sizeof *s.blocks);
	for (uint64_t j = 0; j < n; j++) {
		uint64_t o = order[j];
		struct xp_block *nb = &s.blocks[j >> XP_BLOCK_SHIFT];
		s.start[j] = l->start[o];
		s.dur[j] = l->dur[o];
		s.meta[j] = l->meta[o];
		s.sbeg[j] = nb->stats.n;
		copy_stats(l, o, nb);
	}
	free(order);
	tj_rline_free(l);
	*l = s;
	l->cap = n;
}

static void shrink_stats(struct xp_block *blk)
{
	struct xp_stats *st = &blk->stats;
	if (st->n && st->cap > st->n) {
		st->keys = xrealloc(st->keys, (size_t)st->n * sizeof *st->keys);
		st->vals = xrealloc(st->vals, (size_t)st->n * sizeof *st->vals);
		st->cap = st->n;
	}
	if (st->n_wide && st->cap_wide > st->n_wide) {
		st->wide = xrealloc(st->wide, (size_t)st->n_wide * sizeof *st->wide);
		st->cap_wide = st->n_wide;
	}
	if (blk->blob.len && blk->blob.cap > blk->blob.len) {
		blk->blob.data = xrealloc(blk->blob.data, blk->blob.len);
		blk->blob.cap = blk->blob.len;
	}
}

/* Move a raw line into the model: sorted, renumbered for its plane, times shifted to the host base. */
/* The raw line's arrays handed to the model line, trimmed to its events. */
static void take_arrays(struct rline *rl, struct xp_line *l)
{
	uint64_t n = rl->n;
	if (rl->cap > n) {
		rl->start = xrealloc(rl->start, n * sizeof *rl->start);
		rl->meta = xrealloc(rl->meta, n * sizeof *rl->meta);
		rl->sbeg = xrealloc(rl->sbeg, n * sizeof *rl->sbeg);
	}
	l->n_events = n;
	l->start_ps = rl->start;
	l->meta32 = rl->meta; /* renumbered for the plane, then narrowed (shift_events) */
	l->stat_begin = rl->sbeg;
	l->blocks = rl->blocks;
	l->n_blocks = rl->n_blocks;
	/* 32-bit durations, the longer ones beside them in their blocks */
	l->dur32 = xmalloc((n ? n : 1) * sizeof *l->dur32);
	for (uint64_t i = 0; i < n; i++)
		xp_line_put_dur(l, &l->blocks[i >> XP_BLOCK_SHIFT], i, rl->dur[i]);
	free(rl->dur);
	rl->start = rl->dur = NULL;
	rl->meta = rl->sbeg = NULL;
	rl->blocks = NULL;
	rl->n = rl->n_blocks = 0;
}

/* The line's metadata indexes, all below 65,536, kept in 16 bits. */
static void narrow_meta(struct xp_line *l)
{
	l->meta16 = xmalloc(l->n_events * sizeof *l->meta16);
	for (uint64_t i = 0; i < l->n_events; i++)
		l->meta16[i] = (uint16_t)l->meta32[i];
	free(l->meta32);
	l->meta32 = NULL;
}

/* Starts shifted to the host base (clamped, with ends kept within int64), event metadata
 * renumbered for the plane; the line's span; true when a time was clamped. */
static bool shift_events(struct finisher *f, struct xp_line *l)
{
	bool overflow = false;
	int64_t first = 0, last = 0;
	uint32_t widest = 0;
	for (uint64_t i = 0; i < l->n_events; i++) {
		int64_t s;
		if (__builtin_sub_overflow(l->start_ps[i], f->shift, &s)) {
			s = f->shift > 0 ? INT64_MIN : INT64_MAX;
			overflow = true;
		}
		if (s > INT64_MAX - xp_dur(l, i)) {
			xp_line_lower_dur(l, i, INT64_MAX - s); /* keep end <= INT64_MAX */
			overflow = true;
		}
		l->start_ps[i] = s;
		l->meta32[i] = map_em(f, l->meta32[i]);
		widest = l->meta32[i] > widest ? l->meta32[i] : widest;
		if (!i || s < first)
			first = s;
		if (!i || s + xp_dur(l, i) > last)
			last = s + xp_dur(l, i);
	}
	if (!l->n_events || __builtin_sub_overflow(last, first, &l->duration_ps))
		l->duration_ps = l->n_events ? INT64_MAX : 0;
	if (l->n_events && widest < 65536)
		narrow_meta(l);
	return overflow;
}

/* Stat keys renumbered for the plane; the dropped stats count, and their names stay in the
 * plane's metadata (marked in plane_metadata). */
static void remap_stats(struct finisher *f, const struct rline *rl, struct xp_line *l)
{
	for (uint32_t b = 0; b < l->n_blocks; b++) {
		struct xp_stats *st = &l->blocks[b].stats;
		for (uint32_t k = 0; k < st->n; k++)
			st->keys[k] = remap_key(f, st->keys[k]);
		shrink_stats(&l->blocks[b]);
		l->n_stats += st->n;
	}
	l->n_stats += rl->n_dropped;
	for (uint64_t m = rl->dropped_names; m; m &= m - 1)
		map_sm(f, f->r->meta.drop_sm[__builtin_ctzll(m)]);
}

/* Move a raw line into the model: sorted, renumbered for its plane, times shifted to the host base. */
static void build_line(struct finisher *f, struct rline *rl, struct xp_line *l, int64_t base_ns)
{
	if (!line_sorted(rl))
		sort_events(rl);
	take_arrays(rl, l);
	l->timestamp_ns = base_ns;
	bool overflow = shift_events(f, l) | rl->overflow;
	remap_stats(f, rl, l);
	l->time_overflow = overflow;
	if (overflow)
		f->r->odd.time_overflow_lines++;
}

/* --- finishing: plane stats --------------------------------------------------------------- */

static void plane_stat(struct finisher *f, struct xp_plane *p, const char *name, unsigned kind, uint64_t v)
{
	uint32_t sm = map_sm(f, tj_stat_named(f->r, name));
	xp_stats_push(&p->plane_stats, xp_stat_make_key(kind, sm), v);
}

static void plane_stat_str(struct finisher *f, struct xp_plane *p, const char *name, const char *s)
{
	plane_stat(f, p, name, XP_STAT_STR, xp_intern(f->r->st, s, strlen(s)));
}

static const char *vendor_of(const char *model)
{
	if (strstr(model, "AMD") || strstr(model, "Radeon") || strstr(model, "Instinct"))
		return "AMD";
	if (strstr(model, "NVIDIA") || strstr(model, "Tesla") || strstr(model, "Quadro") || strstr(model, "GeForce") ||
	    strstr(model, "TITAN"))
		return "Nvidia";
	return NULL;
}

static void device_stats(struct finisher *f, struct xp_plane *p, const struct plane_build *b)
{
	const cJSON *d;
	if (b->kind != XP_PLANE_GPU)
		return;
	cJSON_ArrayForEach(d, f->r->device_props) {
		int id;
		if (!dev_id(d, &id) || id != b->ordinal)
			continue;
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
		static const struct {
			const char *key, *stat;
		} ints[] = {
			{"numSms", "core_count"}, {"totalGlobalMem", "memory_size"},
			{"computeMajor", "compute_cap_major"}, {"computeMinor", "compute_cap_minor"},
		};
		if (cJSON_IsString(name) && name->valuestring) {
			plane_stat_str(f, p, "gpu_device_name", name->valuestring);
			const char *v = vendor_of(name->valuestring);
			if (v)
				plane_stat_str(f, p, "device_vendor", v);
		}
		for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, ints[k].key);
			if (cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble < 9.2e18)
				plane_stat(f, p, ints[k].stat, XP_STAT_I64, (uint64_t)(int64_t)x->valuedouble);
		}
		break;
	}
}

static void host_stats(struct finisher *f, struct xp_plane *p)
{
	static const char *const keys[] = {"rank", "world_size"};
	for (size_t k = 0; k < 2; k++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(f->r->dist_info, keys[k]);
		if (cJSON_IsNumber(x) && fabs(x->valuedouble) < 9.2e18)
			plane_stat(f, p, keys[k], XP_STAT_I64, (uint64_t)(int64_t)x->valuedouble);
	}
}

/* The plane stats an xpstat export wrote on its process (interned strings and numbers). */
static void exported_stats(struct finisher *f, struct xp_plane *p, const struct xp_stats *st)
{
	for (uint32_t k = 0; k < st->n; k++) {
		uint64_t v = (st->keys[k] & XP_STAT_WIDE) ? st->wide[st->vals[k]] : st->vals[k];
		xp_stats_push(&p->plane_stats, remap_key(f, st->keys[k] & ~(uint32_t)XP_STAT_WIDE), v);
	}
}

/* --- finishing: the host ------------------------------------------------------------------- */

/* Append the events of src (with their stats) to dst: one thread's events may
 * have come in on several raw lines (by category) and land on one plane. */
static void merge_lines(struct rline *dst, struct rline *src)
{
	for (uint64_t o = 0; o < src->n; o++) {
		tj_line_append(dst, src->start[o], src->dur[o], src->meta[o]);
		copy_stats(src, o, cur_block(dst));
	}
	dst->overflow |= src->overflow;
	dst->n_dropped += src->n_dropped;
	dst->dropped_names |= src->dropped_names;
	tj_rline_free(src);
}

static int line_class(const struct rline *l)
{
	return l->route == RT_ANNOT ? 4 : l->route == RT_ASYNC ? 3 : l->route == RT_COUNTER ? 2 : l->tid.str;
}

/* One line per (pid, tid) -- or per counters/async/annotations -- in the plane. */
static void merge_plane_lines(struct tj_stage *r, struct plane_build *b)
{
	struct kmap seen = {0};
	size_t k = 0;
	for (size_t i = 0; i < b->n_lines; i++) {
		struct rline *l = &r->thr.lines[b->lines[i]];
		int cls = line_class(l);
		struct key3 key = thread_key(l->pid, l->tid);
		if (cls >= 2)
			key = (struct key3){0, 0, 0};
		key.c |= (uint64_t)cls << 4;
		uint32_t first = kmap_get(&seen, &key);
		if (first == UINT32_MAX) {
			kmap_put(&seen, &key, b->lines[i]);
			b->lines[k++] = b->lines[i];
		} else {
			merge_lines(&r->thr.lines[first], l);
		}
	}
	b->n_lines = k;
	kmap_free(&seen);
}

/* The order of a plane's lines, with the name each gets. */
static struct line_order *order_lines(struct tj_stage *r, const struct plane_build *b)
{
	struct line_order *lo = xcalloc(b->n_lines, sizeof *lo);
	sort_cap = r->cap;
	for (size_t i = 0; i < b->n_lines; i++) {
		const struct rline *l = &r->thr.lines[b->lines[i]];
		struct line_order *o = &lo[i];
		o->line = b->lines[i];
		o->cls = line_class(l);
		struct key3 k = thread_key(l->pid, l->tid);
		uint32_t t = kmap_get(&r->thr.tmeta_map, &k);
		o->key = o->cls ? 0 : (t != UINT32_MAX && r->thr.tmetas[t].has_sort) ? r->thr.tmetas[t].sort : l->tid.v;
		o->name = line_name(r, l, o->cls);
	}
	qsort(lo, b->n_lines, sizeof *lo, cmp_line_order);
	return lo;
}

/* An integer tid's line id: the tid, or the capture's id that an xpstat export gave its thread. */
static int64_t line_id(struct tj_stage *r, const struct rline *l)
{
	struct key3 k = thread_key(l->pid, l->tid);
	uint32_t t = kmap_get(&r->thr.tmeta_map, &k);
	return t != UINT32_MAX && r->thr.tmetas[t].has_line_id ? r->thr.tmetas[t].line_id : l->tid.v;
}

/* The plane's lines in order: integer tids keep theirs, the others get ids past every tid. */
static void plane_lines(struct finisher *f, const struct plane_build *b, struct xp_plane *p, int64_t base_ns)
{
	struct tj_stage *r = f->r;
	struct line_order *lo = order_lines(r, b);
	p->n_lines = (uint32_t)b->n_lines;
	p->lines = xcalloc(b->n_lines, sizeof *p->lines);
	int64_t max_tid = -1;
	for (size_t i = 0; i < b->n_lines; i++)
		if (lo[i].cls == 0 && r->thr.lines[lo[i].line].tid.v > max_tid)
			max_tid = r->thr.lines[lo[i].line].tid.v;
	/* derived lines take ids above every tid; past INT64_MAX they wrap (defined: unsigned) */
	uint64_t next_id = max_tid < ((int64_t)1 << 32) ? (uint64_t)1 << 32 : (uint64_t)max_tid + 1;
	for (size_t i = 0; i < b->n_lines; i++) {
		struct rline *rl = &r->thr.lines[lo[i].line];
		struct xp_line *l = &p->lines[i];
		l->name = lo[i].name;
		l->id = lo[i].cls == 0 ? line_id(r, rl) : lo[i].cls == 4 ? DERIVED_MIN + 100 : (int64_t)next_id++;
		l->derived = lo[i].cls == 4 || xp_line_is_derived(l->id, xp_str(r->cap, l->name));
		build_line(f, rl, l, base_ns);
	}
	free(lo);
}

/* The plane's event and stat metadata, numbered as its lines used them; the maps reset. */
static void plane_metadata(struct finisher *f, struct xp_plane *p)
{
	const struct tj_meta *m = &f->r->meta;
	p->n_emeta = f->n_em_list + 1;
	p->emeta = xcalloc(p->n_emeta, sizeof *p->emeta);
	for (uint32_t i = 1; i < p->n_emeta; i++) {
		p->emeta[i].id = i;
		p->emeta[i].name = m->em_name[f->em_list[i]];
		p->emeta[i].display_name = m->em_disp[f->em_list[i]];
	}
	p->n_smeta = f->n_sm_list + 1;
	p->smeta = xcalloc(p->n_smeta, sizeof *p->smeta);
	for (uint32_t i = 1; i < p->n_smeta; i++) {
		p->smeta[i].id = i;
		p->smeta[i].name = m->sm_name[f->sm_list[i]];
		p->smeta[i].dropped = m->sm_drop[f->sm_list[i]] != 0;
	}
	for (uint32_t i = 1; i <= f->n_em_list; i++)
		f->em_map[f->em_list[i]] = 0;
	for (uint32_t i = 1; i <= f->n_sm_list; i++)
		f->sm_map[f->sm_list[i]] = 0;
}

static void build_plane(struct finisher *f, struct plane_build *b, struct xp_plane *p, int64_t base_ns)
{
	merge_plane_lines(f->r, b);
	/* the maps are all zero here: each plane resets the entries it used */
	f->n_em_list = f->n_sm_list = 0;
	p->name = p->base_name = b->name;
	p->kind = b->kind;
	p->device_ordinal = b->ordinal;
	p->id = b->ordinal >= 0 ? b->ordinal : b->has_id ? b->id : 0;
	plane_lines(f, b, p, base_ns);
	if (p->kind == XP_PLANE_HOST_CPU)
		host_stats(f, p);
	device_stats(f, p, b);
	if (b->proc)
		exported_stats(f, p, &f->r->thr.procs[b->proc - 1].pstats);
	plane_metadata(f, p);
}

/* The earliest start over all lines, relative to the first ts. */
static bool earliest(struct tj_stage *r, int64_t *min)
{
	bool any = false;
	for (size_t i = 0; i < r->thr.n_lines; i++)
		for (uint64_t k = 0; k < r->thr.lines[i].n; k++)
			if (!any || r->thr.lines[i].start[k] < *min) {
				*min = r->thr.lines[i].start[k];
				any = true;
			}
	return any;
}

int tj_plane_stat_names(struct tj_stage *r)
{
	static const char *const names[] = {
		"gpu_device_name", "device_vendor", "core_count", "memory_size", "compute_cap_major",
		"compute_cap_minor", "rank", "world_size",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		tj_stat_named(r, names[i]);
	return r->failed ? -1 : 0;
}

/* Per plane: host-wide metadata id -> plane id, and back. */
static void finisher_maps(struct finisher *f)
{
	f->em_map = xcalloc(f->r->meta.n_em + 1, sizeof *f->em_map);
	f->sm_map = xcalloc(f->r->meta.n_sm + 1, sizeof *f->sm_map);
	f->em_list = xcalloc(f->r->meta.n_em + 1, sizeof *f->em_list);
	f->sm_list = xcalloc(f->r->meta.n_sm + 1, sizeof *f->sm_list);
}

/* HOST's planes: the run of F's sorted planes that belong to it, from *AT on. */
static void host_planes(struct finisher *f, uint32_t host, struct xp_host *h, size_t *at, int64_t base_ns)
{
	size_t end = *at;
	while (end < f->n_pb && f->pb[end].host == host)
		end++;
	int64_t shift = f->shift;
	if (f->r->has_origin && host < f->r->n_xpstat_hosts) {
		/* an export's times count from its start; each host's, from its own base */
		int64_t own = f->r->xpstat_bases[host], d;
		__int128 s = (__int128)f->shift + ((__int128)own - base_ns) * 1000;
		if (!__builtin_sub_overflow(own, base_ns, &d) && s >= INT64_MIN && s <= INT64_MAX) {
			base_ns = own;
			f->shift = (int64_t)s;
		}
	}
	h->base_ns = base_ns;
	h->n_planes = (uint32_t)(end - *at);
	h->planes = xcalloc(h->n_planes ? h->n_planes : 1, sizeof *h->planes);
	for (size_t i = *at; i < end; i++) {
		build_plane(f, &f->pb[i], &h->planes[i - *at], base_ns);
		free(f->pb[i].lines);
	}
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (xp_plane_stat_id(f->r->cap, &h->planes[i], "group_id"))
			h->pre_grouped = true;
	f->shift = shift;
	*at = end;
}

void tj_finish(struct tj_stage *r, struct xp_host *hosts, uint32_t n_hosts)
{
	struct finisher f = {.r = r, .n_hosts = n_hosts ? n_hosts : 1};
	int64_t min_rel = 0, base_ns = 0;
	if (r->has_origin && r->clock.have_t0) {
		/* an xpstat export: ts 0 is the host's base, which otherData gives */
		base_ns = r->origin_ns;
		__int128 s = -r->clock.t0;
		f.shift = s < INT64_MIN ? INT64_MIN : s > INT64_MAX ? INT64_MAX : (int64_t)s;
	} else if (earliest(r, &min_rel)) {
		tj_base(&r->clock, min_rel, &base_ns, &f.shift);
	}
	for (size_t i = 0; i < r->thr.n_stacks; i++)
		r->counts.unmatched_begin += r->thr.stacks[i].n; /* async begins left open count here too */
	assign_planes(&f);
	sort_cap = r->cap;
	qsort(f.pb, f.n_pb, sizeof *f.pb, cmp_plane);
	finisher_maps(&f);
	size_t at = 0;
	for (uint32_t h = 0; h < f.n_hosts; h++)
		host_planes(&f, h, &hosts[h], &at, base_ns);
	free(f.pb);
	free(f.em_map);
	free(f.sm_map);
	free(f.em_list);
	free(f.sm_list);
}

