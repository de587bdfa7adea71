/* pt_memory.c - memory as PyTorch counts it: per device of a PyTorch trace the peaks of allocated and of reserved memory. */
#include "pt_memory.h"
#include "analyzers/prepare/prepare.h"
#include "formats/core/satint.h"
#include "formats/core/xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * The PyTorch profiler's [memory] events carry the allocation's Bytes (negative
 * when freed) and, from PyTorch 1.10 on, the device's Total Allocated and Total
 * Reserved after it (and the block's Addr). Allocated memory is Total Allocated
 * where the event has it, else the running sum of Bytes since the trace began;
 * reserved memory (the caching allocator's segments, allocated memory included)
 * is Total Reserved, unknown without it. Each peak is the first time the
 * figure reaches its highest value; its step is the ProfilerStep#N whose host
 * span holds that time.
 */

struct mev {
	int64_t t;
	uint32_t alloc;             /* allocator_name string id */
	uint32_t seq;               /* order in the file, for equal times */
	int64_t bytes;              /* signed: negative when freed */
	int64_t total, reserved;
	bool has_total, has_reserved, is_alloc;
};

struct span {
	int64_t b, e, num;
};

struct pm {
	const struct xp_capture *c;
	struct mev *ev;
	size_t n, cap;
	struct span *st;
	size_t n_st, cap_st;
};

#define PUSH(arr, n, cap)                                                         \
	(((n) == (cap) ? ((cap) = (cap) ? (cap) * 2 : 256,                         \
			  (arr) = xrealloc((arr), (cap) * sizeof *(arr))) : 0), \
	 &(arr)[(n)++])

struct ids {
	uint32_t alloc, total, reserved, bytes;
};

static bool int_of(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
		   uint32_t sid, int64_t *out)
{
	struct xp_value v;
	return sid && xp_event_find(c, p, l, i, sid, &v) && xp_value_int(&v, out);
}

static void memory_event(struct pm *m, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			 const struct ids *s, bool is_alloc)
{
	struct xp_value v;
	bool found = false;
	uint32_t id = 0;
	if (s->alloc && xp_event_find(m->c, p, l, i, s->alloc, &v) && v.kind == XP_STAT_STR && v.s)
		id = xp_strtab_find(&m->c->strings, v.s, v.len, &found);
	if (!found)
		return;
	struct mev *e = PUSH(m->ev, m->n, m->cap);
	memset(e, 0, sizeof *e);
	e->t = l->start_ps[i];
	e->seq = (uint32_t)(m->n - 1);
	e->alloc = id;
	e->is_alloc = is_alloc;
	int64_t mag = 0;
	int_of(m->c, p, l, i, s->bytes, &mag);
	e->bytes = is_alloc ? mag : -mag;
	e->has_total = int_of(m->c, p, l, i, s->total, &e->total);
	e->has_reserved = int_of(m->c, p, l, i, s->reserved, &e->reserved);
}

/* "ProfilerStep#N" -> N */
static bool step_num(const char *s, int64_t *num)
{
	if (strncmp(s, "ProfilerStep#", 13) || !s[13])
		return false;
	char *end;
	long long v = strtoll(s + 13, &end, 10);
	*num = v;
	return !*end && v >= 0;
}

static void collect(struct pm *m, const struct xp_host *h)
{
	for (uint32_t pi = 0; pi < h->n_planes; pi++) {
		const struct xp_plane *p = &h->planes[pi];
		if (p->kind == XP_PLANE_GPU || p->kind == XP_PLANE_DEVICE_OTHER)
			continue;
		struct ids s = {xp_plane_stat_id(m->c, p, "allocator_name"), xp_plane_stat_id(m->c, p, "bytes_allocated"),
				xp_plane_stat_id(m->c, p, "total_reserved"), xp_plane_stat_id(m->c, p, "requested_bytes")};
		xp_stat_must_be_loaded(m->c, p, s.alloc);
		xp_stat_must_be_loaded(m->c, p, s.total);
		xp_stat_must_be_loaded(m->c, p, s.reserved);
		xp_stat_must_be_loaded(m->c, p, s.bytes);
		for (uint32_t li = 0; li < p->n_lines; li++) {
			const struct xp_line *l = &p->lines[li];
			for (uint64_t i = 0; i < l->n_events; i++) {
				const char *name = xp_str(m->c, xp_event_name(p, l, i));
				int64_t num;
				if (!strcmp(name, "MemoryAllocation") || !strcmp(name, "MemoryDeallocation"))
					memory_event(m, p, l, i, &s, name[6] == 'A');
				else if (step_num(name, &num))
					*PUSH(m->st, m->n_st, m->cap_st) = (struct span){l->start_ps[i], xp_event_end(l, i), num};
			}
		}
	}
}

static int cmp_mev(const void *x, const void *y, void *arg)
{
	const struct mev *a = x, *b = y;
	const struct xp_capture *cmp_c = arg;
	if (a->alloc != b->alloc) {
		int d = strcmp(xp_str(cmp_c, a->alloc), xp_str(cmp_c, b->alloc));
		if (d)
			return d;
		return a->alloc < b->alloc ? -1 : 1;
	}
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The step whose host span holds T, or -1. */
static int64_t step_at(const struct pm *m, int64_t t)
{
	for (size_t k = 0; k < m->n_st; k++)
		if (m->st[k].b <= t && t < m->st[k].e)
			return m->st[k].num;
	return -1;
}

static void peak_raise(struct xp_pt_peak *p, int64_t v, int64_t t)
{
	if (!p->known || v > p->v)
		*p = (struct xp_pt_peak){.known = true, .v = v, .t = t};
}

/* The step whose host span holds the peak's time. */
static void peak_step(const struct pm *m, struct xp_pt_peak *p)
{
	p->step = p->known ? step_at(m, p->t) : -1;
	p->has_step = p->step >= 0;
}

/* The devices table's columns. */
enum {
	DC_HOST, DC_DEV, DC_EVENTS, DC_ALLOC, DC_DEALLOC, DC_A_PEAK, DC_A_T, DC_A_STEP, DC_A_FROM, DC_R_PEAK, DC_R_T,
	DC_R_STEP
};
static const struct xp_col_def pt_device_cols[] = {
	[DC_HOST] = {"host", "Host", XP_T_STR},
	[DC_DEV] = {"allocator", "Device", XP_T_STR},
	[DC_EVENTS] = {"memory_events", "Events", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[DC_ALLOC] = {"allocations", "Allocs", XP_T_INT},
	[DC_DEALLOC] = {"deallocations", "Frees", XP_T_INT},
	[DC_A_PEAK] = {"allocated_peak_bytes", "Allocated peak", XP_T_BYTES},
	[DC_A_T] = {"allocated_peak_time_ms", "At", XP_T_DUR, XP_U_MS},
	[DC_A_STEP] = {"allocated_peak_step", "Step", XP_T_INT},
	[DC_A_FROM] = {"allocated_from", "From", XP_T_STR},
	[DC_R_PEAK] = {"reserved_peak_bytes", "Reserved peak", XP_T_BYTES},
	[DC_R_T] = {"reserved_peak_time_ms", "At", XP_T_DUR, XP_U_MS},
	[DC_R_STEP] = {"reserved_peak_step", "Step", XP_T_INT},
};

static void set_peak(struct xp_table *t, size_t row, size_t c_v, size_t c_t, size_t c_s, const struct xp_pt_peak *p)
{
	if (!p->known)
		return; /* unknown stays null */
	xp_set_bytes(t, row, c_v, p->v);
	xp_set_dur(t, row, c_t, p->t);
	if (p->has_step)
		xp_set_int(t, row, c_s, p->step);
}

/* Events [i, j) of one allocator of host H, in time order: its row. */
static struct xp_pt_mem_dev device_of(const struct pm *m, const struct xp_host *h, size_t i, size_t j)
{
	struct xp_pt_mem_dev d = {.host = h->name, .allocator = xp_str(m->c, m->ev[i].alloc), .events = j - i};
	int64_t running = 0;
	uint64_t n_total = 0;
	for (size_t q = i; q < j; q++) {
		const struct mev *e = &m->ev[q];
		running = xp_sat_add(running, e->bytes);
		d.allocations += e->is_alloc;
		n_total += e->has_total;
		peak_raise(&d.allocated, e->has_total ? e->total : running, e->t);
		if (e->has_reserved)
			peak_raise(&d.reserved, e->reserved, e->t);
	}
	peak_step(m, &d.allocated);
	peak_step(m, &d.reserved);
	d.from = n_total == j - i ? "total_allocated" : n_total ? "mixed" : "running_sum";
	return d;
}

static void device_row(struct xp_table *t, const struct xp_pt_mem_dev *d)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, DC_HOST, d->host);
	xp_set_str(t, row, DC_DEV, d->allocator);
	xp_set_int(t, row, DC_EVENTS, (int64_t)d->events);
	xp_set_int(t, row, DC_ALLOC, (int64_t)d->allocations);
	xp_set_int(t, row, DC_DEALLOC, (int64_t)(d->events - d->allocations));
	set_peak(t, row, DC_A_PEAK, DC_A_T, DC_A_STEP, &d->allocated);
	xp_set_str(t, row, DC_A_FROM, d->from);
	set_peak(t, row, DC_R_PEAK, DC_R_T, DC_R_STEP, &d->reserved);
}

size_t xp_pt_memory_devices(const struct xp_capture *c, const char *allocator, struct xp_pt_mem_dev **out)
{
	size_t n = 0;
	*out = NULL;
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		if (!xp_host_is_pytorch(&c->hosts[h]))
			continue;
		struct pm m = {.c = c};
		collect(&m, &c->hosts[h]);
		if (m.n > 1)
			qsort_r(m.ev, m.n, sizeof *m.ev, cmp_mev, (void *)c);
		for (size_t i = 0, j; i < m.n; i = j) {
			for (j = i; j < m.n && m.ev[j].alloc == m.ev[i].alloc; j++)
				;
			if (allocator && strcmp(allocator, xp_str(c, m.ev[i].alloc)))
				continue;
			*out = xrealloc(*out, (n + 1) * sizeof **out);
			(*out)[n++] = device_of(&m, &c->hosts[h], i, j);
		}
		free(m.ev);
		free(m.st);
	}
	return n;
}

void xp_pt_memory_table_of(struct xp_result *r, const struct xp_pt_mem_dev *d, size_t n)
{
	struct xp_table *t = xp_result_add_table(r, "devices", "PyTorch memory per device (allocated and reserved peaks)");
	xp_table_cols(t, XP_COLS(pt_device_cols));
	for (size_t i = 0; i < n; i++)
		device_row(t, &d[i]);
}

void xp_pt_memory_table(struct xp_result *r, const struct xp_capture *c, const char *allocator)
{
	struct xp_pt_mem_dev *d;
	size_t n = xp_pt_memory_devices(c, allocator, &d);
	xp_pt_memory_table_of(r, d, n);
	free(d);
}
