/* memory.c - the `memory` command: the memory profile (profile.c) as a result: verdict, summary, the allocators, breakdown and timeline tables, diagnostics. */
#include "memory.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/steptime.h"
#include "profile.h"
#include "pt_memory.h"
#include "mem_state.h"
#include "analyzers/db/prepstate.h"
#include "analyzers/db/table_state.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fmt_bytes(int64_t v, char *buf, size_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double x = v < 0 ? -(double)v : (double)v;
	int u = 0;
	while (x >= 1024 && u < 6) {
		x /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, n, "%s%.0f B", v < 0 ? "-" : "", x);
	else
		snprintf(buf, n, "%s%.*f %s", v < 0 ? "-" : "", x < 100 ? 1 : 0, x, unit[u]);
}

/* fragmentation x 100 as the decimal a reader expects: 0.072 gives 7.2, not
 * 7.199999999999999. The shortest decimal of the fraction, exponent + 2. */
static double frag_pct(double f)
{
	char buf[40];
	if (!isfinite(f) || f == 0)
		return f * 100.0;
	for (int prec = 0; prec <= 16; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	char *e = strchr(buf, 'e');
	if (!e)
		return f * 100.0;
	long exp = strtol(e + 1, NULL, 10);
	snprintf(e, sizeof buf - (size_t)(e - buf), "e%ld", exp + 2);
	return strtod(buf, NULL);
}

static double pct_of(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static const char *host_name(const struct mem *m, const struct mem_alc *a)
{
	return m->p->hosts[a->host].host->name;
}

static void set_str(struct xp_table *t, size_t row, size_t col, struct mem_str s)
{
	xp_set_strn(t, row, col, s.s ? s.s : "", s.s ? s.len : 0);
}

/* An allocator none of whose events carries a step has no step numbers: the cell stays empty, not 0. */
static void set_step(struct xp_table *t, size_t row, size_t col, const struct mem_alc *a, int32_t step)
{
	if (a->any_step)
		xp_set_int(t, row, col, step);
}

/* --- allocators ---------------------------------------------------------------------- */

struct acols {
	size_t host, id, name, alloc, dealloc, events, cap, life, peak, peak_pct, peak_t, step, stack, heap, free_b,
		frag, first, last, unmatched, unfreed, missing;
};

enum {
	AC_HOST, AC_ID, AC_NAME, AC_ALLOC, AC_DEALLOC, AC_EVENTS, AC_CAP, AC_LIFE, AC_PEAK, AC_PEAK_PCT, AC_PEAK_T,
	AC_STEP, AC_STACK, AC_HEAP, AC_FREE_B, AC_FRAG, AC_FIRST, AC_LAST, AC_UNMATCHED, AC_UNFREED, AC_MISSING
};
static const struct xp_col_def allocator_cols[] = {
	[AC_HOST] = {"host", "Host", XP_T_STR},
	[AC_ID] = {"allocator", "Allocator", XP_T_STR},
	[AC_NAME] = {"allocator_name", "Name", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[AC_ALLOC] = {"allocations", "Allocs", XP_T_INT},
	[AC_DEALLOC] = {"deallocations", "Deallocs", XP_T_INT},
	[AC_EVENTS] = {"memory_events", "Events", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[AC_CAP] = {"memory_capacity_bytes", "Capacity", XP_T_BYTES},
	[AC_LIFE] = {"peak_heap_lifetime_bytes", "Lifetime peak", XP_T_BYTES},
	[AC_PEAK] = {"peak_usage_bytes", "Peak usage", XP_T_BYTES},
	[AC_PEAK_PCT] = {"peak_usage_pct", "of cap.", XP_T_PCT},
	[AC_PEAK_T] = {"peak_time_ms", "At", XP_T_DUR, XP_U_MS},
	[AC_STEP] = {"peak_step", "Step", XP_T_INT},
	[AC_STACK] = {"stack_bytes", "Stack", XP_T_BYTES},
	[AC_HEAP] = {"heap_bytes", "Heap", XP_T_BYTES},
	[AC_FREE_B] = {"free_bytes", "Free", XP_T_BYTES},
	[AC_FRAG] = {"fragmentation_pct", "Frag.", XP_T_PCT},
	[AC_FIRST] = {"first_event_ms", "First", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[AC_LAST] = {"last_event_ms", "Last", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[AC_UNMATCHED] = {"unmatched_deallocations", "Unmatched", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[AC_UNFREED] = {"unfreed_allocations", "Unfreed", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[AC_MISSING] = {"events_missing_stats", "Missing", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};
static const struct acols allocator_cols_idx = {
	.host = AC_HOST, .id = AC_ID, .name = AC_NAME, .alloc = AC_ALLOC, .dealloc = AC_DEALLOC,
	.events = AC_EVENTS, .cap = AC_CAP, .life = AC_LIFE, .peak = AC_PEAK, .peak_pct = AC_PEAK_PCT,
	.peak_t = AC_PEAK_T, .step = AC_STEP, .stack = AC_STACK, .heap = AC_HEAP, .free_b = AC_FREE_B,
	.frag = AC_FRAG, .first = AC_FIRST, .last = AC_LAST, .unmatched = AC_UNMATCHED,
	.unfreed = AC_UNFREED, .missing = AC_MISSING
};

static void allocator_columns(struct xp_table *t, struct acols *c)
{
	xp_table_cols(t, XP_COLS(allocator_cols));
	*c = allocator_cols_idx;
}

static void allocator_row(struct xp_table *t, const struct acols *c, const struct mem *m, const struct mem_alc *a)
{
	size_t r = xp_table_row(t);
	xp_set_str(t, r, c->host, host_name(m, a));
	xp_set_str(t, r, c->id, a->id);
	if (a->name)
		xp_set_str(t, r, c->name, a->name);
	xp_set_int(t, r, c->alloc, (int64_t)a->n_alloc);
	xp_set_int(t, r, c->dealloc, (int64_t)a->n_dealloc);
	xp_set_int(t, r, c->events, (int64_t)a->n);
	if (a->has_lifetime)
		xp_set_bytes(t, r, c->life, a->lifetime_peak);
	xp_set_dur(t, r, c->first, a->first_t);
	xp_set_dur(t, r, c->last, a->last_t);
	if (!a->pt_blind) { /* unknown where nothing pairs a free with its allocation */
		xp_set_int(t, r, c->unmatched, (int64_t)a->n_unmatched);
		xp_set_int(t, r, c->unfreed, (int64_t)a->pending.n);
	}
	xp_set_int(t, r, c->missing, (int64_t)a->n_missing);
	if (!a->has_peak)
		return;     /* no event with stack+heap >= 0: the peak cells stay empty */
	xp_set_bytes(t, r, c->cap, a->capacity);
	xp_set_bytes(t, r, c->peak, a->peak);
	if (a->capacity > 0)
		xp_set_pct(t, r, c->peak_pct, pct_of(a->peak, a->capacity));
	xp_set_dur(t, r, c->peak_t, a->peak_t);
	set_step(t, r, c->step, a, a->peak_step);
	xp_set_bytes(t, r, c->stack, a->stack);
	xp_set_bytes(t, r, c->heap, a->heap);
	xp_set_bytes(t, r, c->free_b, a->free_b);
	xp_set_pct(t, r, c->frag, frag_pct(a->frag));
}

/* --- breakdown ------------------------------------------------------------------------ */

struct bcols {
	size_t host, id, op, bytes, req, occ, region, dtype, shape, step;
};

enum {
	BD_HOST, BD_ID, BD_OP, BD_BYTES, BD_REQ, BD_OCC, BD_REGION, BD_DTYPE, BD_SHAPE, BD_STEP
};
static const struct xp_col_def breakdown_cols[] = {
	[BD_HOST] = {"host", "Host", XP_T_STR},
	[BD_ID] = {"allocator", "Allocator", XP_T_STR},
	[BD_OP] = {"op_name", "Op name", XP_T_STR},
	[BD_BYTES] = {"allocation_bytes", "Allocation", XP_T_BYTES},
	[BD_REQ] = {"requested_bytes", "Requested", XP_T_BYTES},
	[BD_OCC] = {"occurrences", "Occurrences", XP_T_INT},
	[BD_REGION] = {"region_type", "Region", XP_T_STR},
	[BD_DTYPE] = {"data_type", "Data type", XP_T_STR},
	[BD_SHAPE] = {"shape", "Shape", XP_T_STR},
	[BD_STEP] = {"step", "Step", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};
static const struct bcols breakdown_cols_idx = {
	.host = BD_HOST, .id = BD_ID, .op = BD_OP, .bytes = BD_BYTES, .req = BD_REQ, .occ = BD_OCC,
	.region = BD_REGION, .dtype = BD_DTYPE, .shape = BD_SHAPE, .step = BD_STEP
};

static void breakdown_columns(struct xp_table *t, struct bcols *c)
{
	xp_table_cols(t, XP_COLS(breakdown_cols));
	*c = breakdown_cols_idx;
}

static void breakdown_add(struct xp_table *t, const struct bcols *c, const struct mem *m, const struct mem_alc *a)
{
	if (!a->has_peak)
		return;
	struct mem_row *own = NULL;
	const struct mem_row *rows = a->saved_rows;
	size_t n = m->saved ? a->n_saved_rows : xp_mem_breakdown(&m->hosts[a->host], a, &own);
	if (!m->saved)
		rows = own;
	for (size_t i = 0; i < n; i++) {
		const struct mem_row *b = &rows[i];
		size_t r = xp_table_row(t);
		xp_set_str(t, r, c->host, host_name(m, a));
		xp_set_str(t, r, c->id, a->id);
		set_str(t, r, c->op, b->op);
		xp_set_bytes(t, r, c->bytes, b->bytes);
		xp_set_bytes(t, r, c->req, b->req);
		xp_set_int(t, r, c->occ, (int64_t)b->occ);
		set_str(t, r, c->region, b->region);
		xp_set_str(t, r, c->dtype, b->dtype);
		set_str(t, r, c->shape, b->shape);
		set_step(t, r, c->step, a, a->peak_step);
	}
	free(own);
}

/* --- timeline ---------------------------------------------------------------------------- */

struct tcols {
	size_t host, id, index, time, act, use, stack, heap, free_b, frag, req, bytes, op, step, region, dtype, shape,
		addr;
};

enum {
	TL_HOST, TL_ID, TL_INDEX, TL_TIME, TL_ACT, TL_USE, TL_STACK, TL_HEAP, TL_FREE_B, TL_FRAG, TL_REQ, TL_BYTES,
	TL_OP, TL_STEP, TL_REGION, TL_DTYPE, TL_SHAPE, TL_ADDR
};
static const struct xp_col_def timeline_cols[] = {
	[TL_HOST] = {"host", "Host", XP_T_STR},
	[TL_ID] = {"allocator", "Allocator", XP_T_STR},
	[TL_INDEX] = {"event_index", "Event", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TL_TIME] = {"time_ms", "Time", XP_T_DUR, XP_U_MS},
	[TL_ACT] = {"activity", "Activity", XP_T_STR},
	[TL_USE] = {"in_use_bytes", "In use", XP_T_BYTES},
	[TL_STACK] = {"stack_bytes", "Stack", XP_T_BYTES},
	[TL_HEAP] = {"heap_bytes", "Heap", XP_T_BYTES},
	[TL_FREE_B] = {"free_bytes", "Free", XP_T_BYTES},
	[TL_FRAG] = {"fragmentation_pct", "Frag.", XP_T_PCT},
	[TL_REQ] = {"requested_bytes", "Requested", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TL_BYTES] = {"allocation_bytes", "Size", XP_T_BYTES},
	[TL_OP] = {"op_name", "Op name", XP_T_STR},
	[TL_STEP] = {"step", "Step", XP_T_INT},
	[TL_REGION] = {"region_type", "Region", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TL_DTYPE] = {"data_type", "Data type", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TL_SHAPE] = {"shape", "Shape", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TL_ADDR] = {"address", "Address", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};
static const struct tcols timeline_cols_idx = {
	.host = TL_HOST, .id = TL_ID, .index = TL_INDEX, .time = TL_TIME, .act = TL_ACT, .use = TL_USE,
	.stack = TL_STACK, .heap = TL_HEAP, .free_b = TL_FREE_B, .frag = TL_FRAG, .req = TL_REQ,
	.bytes = TL_BYTES, .op = TL_OP, .step = TL_STEP, .region = TL_REGION, .dtype = TL_DTYPE,
	.shape = TL_SHAPE, .addr = TL_ADDR
};

static void timeline_columns(struct xp_table *t, struct tcols *c)
{
	xp_table_cols(t, XP_COLS(timeline_cols));
	*c = timeline_cols_idx;
}

static void timeline_row(struct xp_table *t, const struct tcols *c, const struct mem *m, const struct mem_alc *a,
			 const struct mem_point *pt)
{
	const struct mem_host *mh = &m->hosts[a->host];
	struct mem_ev e, meta;
	char dt[48];
	xp_mem_decode(mh, pt->ev, &e);
	const struct mem_ev *md = &e;
	if (pt->meta.line != pt->ev.line || pt->meta.ev != pt->ev.ev) {
		xp_mem_decode(mh, pt->meta, &meta);
		md = &meta;
		if (!(e.have & MEM_H_BYTES))
			xp_mem_inherit_size(mh, pt->meta, &e);
	}
	size_t r = xp_table_row(t);
	xp_set_str(t, r, c->host, host_name(m, a));
	xp_set_str(t, r, c->id, a->id);
	xp_set_int(t, r, c->index, (int64_t)pt->index);
	xp_set_dur(t, r, c->time, e.t);
	xp_set_str(t, r, c->act, e.act == MEM_ACT_ALLOC ? "allocation" : "deallocation");
	xp_set_bytes(t, r, c->use, xp_mem_sat_add(e.stack, e.heap));
	xp_set_bytes(t, r, c->stack, e.stack);
	xp_set_bytes(t, r, c->heap, e.heap);
	xp_set_bytes(t, r, c->free_b, e.free_b);
	xp_set_pct(t, r, c->frag, frag_pct(e.frag));
	xp_set_bytes(t, r, c->req, e.req);
	xp_set_bytes(t, r, c->bytes, e.bytes);
	set_str(t, r, c->op, md->op);
	set_step(t, r, c->step, a, pt->step);
	set_str(t, r, c->region, md->region);
	xp_set_str(t, r, c->dtype, xp_memory_dtype_name(md->dtype, dt, sizeof dt));
	set_str(t, r, c->shape, md->shape);
	xp_set_id(t, r, c->addr, (int64_t)e.addr);
}

/* --- verdict, summary, diagnostics -------------------------------------------------------- */

/* The selected allocator with the largest peak usage (ties: first in output order). */
static const struct mem_alc *top_allocator(const struct mem *m)
{
	const struct mem_alc *top = NULL;
	for (size_t i = 0; i < m->n_alcs; i++) {
		const struct mem_alc *a = m->sorted[i];
		if (a->selected && a->has_peak && (!top || a->peak > top->peak))
			top = a;
	}
	return top;
}

static void set_verdict(struct xp_result *r, const struct mem *m)
{
	const struct mem_alc *a = top_allocator(m);
	size_t n = m->n_selected;
	if (!n) {
		xp_result_set_verdict(r, "No memory events: the capture has no MemoryAllocation or MemoryDeallocation events");
		return;
	}
	if (!a && m->semantics) {
		xp_result_set_verdict(r, "%zu allocator%s; PyTorch's figures in the devices table", n, n == 1 ? "" : "s");
		return;
	}
	if (!a) {
		xp_result_set_verdict(r, "%zu allocator%s, none with a peak (stack + heap is negative in every event)", n,
				      n == 1 ? "" : "s");
		return;
	}
	char peak[32], cap[32], at[32], where[160] = "", pct[64] = "";
	fmt_bytes(a->peak, peak, sizeof peak);
	fmt_bytes(a->capacity, cap, sizeof cap);
	xp_format_duration(a->peak_t, at, sizeof at);
	if (m->p->n_hosts > 1)
		snprintf(where, sizeof where, " on %s", host_name(m, a));
	if (a->capacity > 0)
		snprintf(pct, sizeof pct, " (%.1f%% of %s)", pct_of(a->peak, a->capacity), cap);
	/* An allocator none of whose events belongs to a step has no step to name: "step 0" would be made up. */
	char step[32] = "";
	if (a->any_step)
		snprintf(step, sizeof step, ", step %" PRId32, a->peak_step);
	if (n == 1)
		xp_result_set_verdict(r, "Allocator %s%s peaks at %s%s at %s%s; fragmentation %.1f%%", a->id, where,
				      peak, pct, at, step, frag_pct(a->frag));
	else
		xp_result_set_verdict(r, "%zu allocators on %" PRIu32 " host%s; highest peak: %s%s at %s%s at %s%s", n,
				      m->hosts_with, m->hosts_with == 1 ? "" : "s", a->id, where, peak, pct, at, step);
}

static void add_summary(struct xp_result *r, const struct mem *m)
{
	uint64_t ev = 0, al = 0, de = 0, un = 0, uf = 0, mi = 0;
	bool blind = false;
	for (size_t i = 0; i < m->n_alcs; i++) {
		const struct mem_alc *a = m->alcs[i];
		if (!a->selected)
			continue;
		blind |= a->pt_blind;
		ev += a->n;
		al += a->n_alloc;
		de += a->n_dealloc;
		un += a->pt_blind ? 0 : a->n_unmatched;
		uf += a->pt_blind ? 0 : a->pending.n;
		mi += a->n_missing;
	}
	xp_sum_int(r, "hosts", "Hosts", m->p->n_hosts);
	xp_sum_int(r, "hosts_with_memory_events", "Hosts with memory events", m->hosts_with);
	xp_sum_int(r, "allocators", "Allocators", (int64_t)m->n_selected);
	xp_sum_int(r, "memory_events", "Memory events", (int64_t)ev);
	xp_sum_int(r, "allocations", "Allocations", (int64_t)al);
	xp_sum_int(r, "deallocations", "Deallocations", (int64_t)de);
	if (blind) { /* some allocator's frees cannot be paired with their allocations: unknown, not 0 */
		xp_sum_f64(r, "unmatched_deallocations", "Deallocations without allocation", NAN);
		xp_sum_f64(r, "unfreed_allocations", "Allocations never freed", NAN);
	} else {
		xp_sum_int(r, "unmatched_deallocations", "Deallocations without allocation", (int64_t)un);
		xp_sum_int(r, "unfreed_allocations", "Allocations never freed", (int64_t)uf);
	}
	xp_sum_int(r, "events_missing_stats", "Events missing stats", (int64_t)mi);
}

static void alc_diags(struct xp_result *r, const struct mem *m, const struct mem_alc *a)
{
	const char *host = host_name(m, a);
	if (a->pt_blind) {
		xp_result_diag(r, XP_SEV_INFO, "memory_totals_missing", host,
			       "the devices table has the running sum of Bytes; PyTorch 1.10 and later record the totals",
			       "%s: the %" PRIu64 " PyTorch memory events carry no Total Allocated or Addr: this table's "
			       "peak and pairing are unknown", a->id, a->n);
		return;
	}
	if (a->n_missing)
		xp_result_diag(r, XP_SEV_WARNING, "memory_stats_missing", host,
			       "such events count as 0 bytes at address 0, as in the reference",
			       "%s: %" PRIu64 " of %" PRIu64 " memory events lack the allocator, bytes_allocated, addr "
			       "or (allocations) allocation_bytes stat", a->id, a->n_missing, a->n);
	if (a->n_unmatched)
		xp_result_diag(r, XP_SEV_INFO, "unmatched_deallocations", host, NULL,
			       "%s: %" PRIu64 " deallocation%s without an allocation in the profile (allocated before "
			       "it started)", a->id, a->n_unmatched, a->n_unmatched == 1 ? "" : "s");
	if (a->pending.n)
		xp_result_diag(r, XP_SEV_INFO, "unfreed_allocations", host, NULL,
			       "%s: %zu allocation%s not freed by the end of the profile", a->id, a->pending.n,
			       a->pending.n == 1 ? "" : "s");
}

static void add_diags(struct xp_result *r, const struct mem *m)
{
	if (!m->n_events) {
		xp_result_diag(r, XP_SEV_WARNING, "no_memory_events", NULL,
			       "TensorFlow records them at host_tracer_level 2 or more (the default); JAX and PJRT "
			       "allocators on GPU and TPU record them too",
			       "no MemoryAllocation or MemoryDeallocation events on any host plane");
		return;
	}
	for (size_t i = 0; i < m->n_alcs; i++)
		if (m->sorted[i]->selected)
			alc_diags(r, m, m->sorted[i]);
}

/* An unknown --allocator: a usage error that names the allocators there are. */
static void unknown_allocator(const struct mem *m, struct xp_err *e)
{
	size_t len = 0, cap = 256;
	char *list = malloc(cap);
	if (!list)
		xp_oom();
	list[0] = 0;
	for (size_t i = 0; i < m->n_alcs; i++) {
		const struct mem_alc *a = m->sorted[i];
		size_t need = strlen(a->id) + (a->name ? strlen(a->name) : 0) + 8;
		while (len + need >= cap) {
			list = realloc(list, cap *= 2);
			if (!list)
				xp_oom();
		}
		len += (size_t)snprintf(list + len, cap - len, "%s%s", i ? ", " : "", a->id);
		if (a->name && strcmp(a->name, a->id))
			len += (size_t)snprintf(list + len, cap - len, " (%s)", a->name);
	}
	if (m->n_alcs)
		xp_err_set(e, XP_EXIT_USAGE, NULL, "no allocator '%s'; allocators: %s", m->o.allocator, list);
	else
		xp_err_set(e, XP_EXIT_USAGE, NULL, "no allocator '%s': the capture has no memory events", m->o.allocator);
	free(list);
}

/* M's timeline packed into STATE, an allocator at a time (as cells, a pod's timelines would be a transient
 * hundred MB). */
static void timeline_state(struct xp_result *state, const struct mem *m)
{
	/* The table is there (empty) for a capture without memory events too. */
	for (size_t i = 0; i <= m->n_alcs; i++) {
		const struct mem_alc *a = i ? m->sorted[i - 1] : NULL;
		if (a && (!a->selected || !a->n_pts))
			continue;
		struct xp_result *tmp = xp_result_new("state");
		struct xp_table *tt = xp_result_add_table(tmp, "timeline", NULL);
		struct tcols tc;
		timeline_columns(tt, &tc);
		for (size_t k = 0; a && k < a->n_pts; k++)
			timeline_row(tt, &tc, m, a, &a->pts[k]);
		xp_state_keep_rows_packed(state, "mem_timeline", tt, TL_HOST);
		xp_result_free(tmp);
	}
}

/* The timeline table of M's selected allocators. */
static struct xp_table *timeline_table(struct xp_result *r, const struct mem *m)
{
	struct xp_table *tt = xp_result_add_table(r, "timeline", "Memory timeline");
	struct tcols tc;
	timeline_columns(tt, &tc);
	for (size_t i = 0; i < m->n_alcs; i++) {
		const struct mem_alc *a = m->sorted[i];
		for (size_t k = 0; a->selected && k < a->n_pts; k++)
			timeline_row(tt, &tc, m, a, &a->pts[k]);
	}
	return tt;
}

static void mem_result(struct xp_result *r, const struct mem *m)
{
	set_verdict(r, m);
	add_summary(r, m);
	struct xp_table *at = xp_result_add_table(r, "allocators", "Allocators (at each allocator's peak)");
	struct acols ac;
	allocator_columns(at, &ac);
	for (size_t i = 0; i < m->n_alcs; i++)
		if (m->sorted[i]->selected)
			allocator_row(at, &ac, m, m->sorted[i]);
	r->primary = 0;
	if (m->semantics && m->saved) {
		xp_pt_memory_table_of(r, m->pt, m->n_pt);
		r->primary = r->n_tables - 1;
	} else if (m->semantics) {
		xp_pt_memory_table(r, m->p->cap, m->o.allocator);
		r->primary = r->n_tables - 1;
	}
	if (m->o.breakdown) {
		struct xp_table *bt = xp_result_add_table(r, "breakdown", "Memory breakdown at the peak");
		struct bcols bc;
		breakdown_columns(bt, &bc);
		for (size_t i = 0; i < m->n_alcs; i++)
			if (m->sorted[i]->selected)
				breakdown_add(bt, &bc, m, m->sorted[i]);
		r->primary = r->n_tables - 1;
	}
	if (m->o.timeline) {
		timeline_table(r, m);
		r->primary = r->n_tables - 1;
	}
	add_diags(r, m);
}

/* The result of M; report saves M in STATE (when not NULL) for combine. */
static struct xp_result *analyze(const struct xp_prep *p, const struct xp_memory_opts *o, struct xp_result *state,
				 struct xp_err *e)
{
	struct mem m;
	xp_mem_profile(&m, p, o);
	if (m.o.allocator && !m.n_selected) {
		unknown_allocator(&m, e);
		xp_mem_profile_free(&m);
		return NULL;
	}
	m.semantics = xp_capture_semantics(p->cap);
	struct xp_result *r = xp_result_new("memory");
	for (size_t i = 0; i < m.n_alcs; i++) {
		struct mem_alc *a = m.alcs[i];
		/* The reference's walk counts such events as 0 bytes at address 0: made-up figures, left out */
		if (a->n_missing && xp_host_is_pytorch(p->hosts[a->host].host)) {
			a->pt_blind = true;
			a->has_peak = false;
		}
	}
	/* A saved report's state carries the HTML page's sampled timeline (combine writes the page too); its own
	 * memory section has no timeline. */
	bool timeline_for_state = state && m.o.timeline;
	m.o.timeline = m.o.timeline && !timeline_for_state;
	mem_result(r, &m);
	if (state)
		xp_mem_state(&m, state);
	if (timeline_for_state)
		timeline_state(state, &m);
	xp_result_set_semantics(r, m.semantics);
	xp_mem_profile_free(&m);
	return r;
}

struct xp_result *xp_analyze_memory(const struct xp_prep *p, const struct xp_memory_opts *o, struct xp_err *e)
{
	return analyze(p, o, NULL, e);
}

/* In a report the breakdown too, text showing its first rows. Reads group ids only (XP_NEEDS_GROUPS). */
bool xp_memory_needs_groups(const struct xp_capture *c)
{
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_host *host = &c->hosts[h];
		if (xp_host_is_pytorch(host))
			return true;
		for (uint32_t p = 0; p < host->n_planes; p++) {
			const struct xp_plane *pl = &host->planes[p];
			for (uint32_t m = 1; pl->kind == XP_PLANE_HOST_CPU && m < pl->n_emeta; m++)
				if (xp_mem_action(xp_str(c, pl->emeta[m].name)) != MEM_ACT_NONE)
					return true;
		}
	}
	return false;
}

static struct xp_result *run(const struct xp_run_in *in)
{
	/* Saved, the report keeps the timeline the HTML page draws in its state. */
	struct xp_memory_opts o = {.breakdown = true, .timeline = in->state != NULL, .points = XP_HTML_MEMORY_POINTS,
				   .minmax = true};
	if (in->opts)
		o = *(const struct xp_memory_opts *)in->opts;
	struct xp_result *r = analyze(in->p, &o, in->opts ? NULL : in->state, in->err);
	if (!in->opts)
		xp_text_top(r, "breakdown", XP_REPORT_TEXT_TOP);
	return r;
}

/* The HTML page's timeline: each host's saved rows, in the run's host order (allocators are in host order). */
static bool timeline_of_state(struct xp_result *r, const struct xp_combine_in *in)
{
	struct xp_table *tt = xp_result_add_table(r, "timeline", "Memory timeline");
	struct tcols tc;
	timeline_columns(tt, &tc);
	r->primary = r->n_tables - 1;
	for (uint32_t h = 0; h < in->p->n_hosts; h++) {
		const char *own = xp_state_host_name(in->hosts[h].state, in->hosts[h].row);
		if (!own || xp_state_restore_rows_packed(in->hosts[h].state, "mem_timeline", TL_HOST, own, tt,
							 in->hosts[h].name) < 0) {
			xp_err_set(in->err, XP_EXIT_BAD_INPUT, in->hosts[h].path, "the memory timeline of host %s does not "
				   "read back: not a report as this xpstat writes it", in->hosts[h].name);
			return false;
		}
	}
	return true;
}

/* Several hosts from their saved allocators, breakdowns and PyTorch devices, as report runs it. */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	struct mem m;
	if (!xp_mem_from_state(&m, in->p, in->hosts, in->semantics, in->err))
		return NULL;
	m.o.breakdown = in->report;     /* the command shows it with --breakdown only */
	struct xp_result *r = xp_result_new("memory");
	mem_result(r, &m);
	xp_mem_state_free(&m);
	if (in->html && !timeline_of_state(r, in)) {
		xp_result_free(r);
		return NULL;
	}
	if (in->report && !in->html)
		xp_text_top(r, "breakdown", XP_REPORT_TEXT_TOP);
	return r;
}

static const char *const state_tables[] = {XP_MEM_STATE_TABLES, "mem_timeline", NULL};

static const char *const reads[] = {XP_ALLOCATOR_STATS, NULL};

const struct xp_analysis xp_analysis_memory = {
	.name = "memory",
	.needs = XP_NEEDS_GROUPS,
	.reads = reads,
	.opts_size = sizeof(struct xp_memory_opts),
	.run = run,
	.combine = combine,
	.state_tables = state_tables,
};
