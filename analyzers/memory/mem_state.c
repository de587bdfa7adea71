/* mem_state.c - the memory profile's figures saved in a report's state, and read back for several hosts (combine). */
#include "mem_state.h"
#include "formats/core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Four tables, every row naming its host: mem_hosts (its memory events), mem_allocators (each allocator's
 * counts and its figures at the peak, in output order), mem_breakdown (the allocations live at each
 * allocator's peak, merged: the breakdown table's rows) and mem_pt_devices (PyTorch: each device's
 * allocated and reserved peaks). Integers are decimal strings, the fragmentation a C99 hexadecimal float.
 */

enum { MH_HOST, MH_EVENTS, MH_N };
static const struct xp_col_def host_cols[MH_N] = {
	[MH_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[MH_EVENTS] = {"memory_events", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { MA_HOST, MA_ID, MA_HAS_NAME, MA_NAME, MA_N_EV, MA_ALLOC, MA_DEALLOC, MA_MISSING, MA_UNMATCHED, MA_UNFREED,
       MA_FIRST, MA_LAST, MA_HAS_LIFE, MA_LIFE, MA_HAS_PEAK, MA_PEAK, MA_PEAK_T, MA_STACK, MA_HEAP, MA_FREE, MA_CAP,
       MA_FRAG, MA_STEP, MA_ANY_STEP, MA_BLIND, MA_N };
static const struct xp_col_def alc_cols[MA_N] = {
	[MA_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_ID] = {"id", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_HAS_NAME] = {"has_name", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[MA_NAME] = {"name", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_N_EV] = {"events", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_ALLOC] = {"allocations", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_DEALLOC] = {"deallocations", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_MISSING] = {"missing", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_UNMATCHED] = {"unmatched", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_UNFREED] = {"unfreed", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_FIRST] = {"first_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_LAST] = {"last_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_HAS_LIFE] = {"has_lifetime", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[MA_LIFE] = {"lifetime_peak", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_HAS_PEAK] = {"has_peak", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[MA_PEAK] = {"peak", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_PEAK_T] = {"peak_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_STACK] = {"stack", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_HEAP] = {"heap", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_FREE] = {"free", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_CAP] = {"capacity", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_FRAG] = {"fragmentation", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_STEP] = {"peak_step", NULL, XP_T_STR, XP_U_NONE, 0},
	[MA_ANY_STEP] = {"any_step", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[MA_BLIND] = {"pt_blind", NULL, XP_T_BOOL, XP_U_NONE, 0},
};

enum { MB_HOST, MB_ID, MB_OP, MB_REGION, MB_SHAPE, MB_DTYPE, MB_BYTES, MB_REQ, MB_OCC, MB_N };
static const struct xp_col_def row_cols[MB_N] = {
	[MB_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_ID] = {"allocator", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_OP] = {"op_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_REGION] = {"region_type", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_SHAPE] = {"shape", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_DTYPE] = {"data_type", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_BYTES] = {"allocation_bytes", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_REQ] = {"requested_bytes", NULL, XP_T_STR, XP_U_NONE, 0},
	[MB_OCC] = {"occurrences", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { MP_HOST, MP_ALC, MP_FROM, MP_EVENTS, MP_ALLOCS, MP_A = MP_ALLOCS + 1, MP_R = MP_A + 5, MP_N = MP_R + 5 };
/* A peak's five columns from its first: known, value, time, has_step, step. */
enum { PK_KNOWN, PK_V, PK_T, PK_HAS_STEP, PK_STEP };

static void host_columns(struct xp_table *t) { xp_table_cols(t, host_cols, MH_N); }
static void alc_columns(struct xp_table *t) { xp_table_cols(t, alc_cols, MA_N); }
static void row_columns(struct xp_table *t) { xp_table_cols(t, row_cols, MB_N); }

static void pt_columns(struct xp_table *t)
{
	static const struct xp_col_def head[MP_A] = {
		[MP_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
		[MP_ALC] = {"allocator", NULL, XP_T_STR, XP_U_NONE, 0},
		[MP_FROM] = {"allocated_from", NULL, XP_T_STR, XP_U_NONE, 0},
		[MP_EVENTS] = {"memory_events", NULL, XP_T_STR, XP_U_NONE, 0},
		[MP_ALLOCS] = {"allocations", NULL, XP_T_STR, XP_U_NONE, 0},
	};
	static const char *const side[2] = {"allocated", "reserved"};
	static const char *const what[5] = {"known", "bytes", "ps", "has_step", "step"};
	xp_table_cols(t, head, MP_A);
	for (int s = 0; s < 2; s++)
		for (int w = 0; w < 5; w++) {
			char key[48];
			snprintf(key, sizeof key, "%s_%s", side[s], what[w]);
			xp_table_col(t, key, key, w == PK_KNOWN || w == PK_HAS_STEP ? XP_T_BOOL : XP_T_STR, XP_U_NONE, 0);
		}
}

/* --- saving ----------------------------------------------------------------------------------------- */

static void alc_row(struct xp_table *t, const char *host, const struct mem_alc *a)
{
	size_t row = xp_table_row(t);
	char frag[48];
	xp_set_str(t, row, MA_HOST, host);
	xp_set_str(t, row, MA_ID, a->id);
	xp_set_bool(t, row, MA_HAS_NAME, a->name != NULL);
	xp_set_str(t, row, MA_NAME, a->name ? a->name : "");
	xp_state_set_u64(t, row, MA_N_EV, a->n);
	xp_state_set_u64(t, row, MA_ALLOC, a->n_alloc);
	xp_state_set_u64(t, row, MA_DEALLOC, a->n_dealloc);
	xp_state_set_u64(t, row, MA_MISSING, a->n_missing);
	xp_state_set_u64(t, row, MA_UNMATCHED, a->n_unmatched);
	xp_state_set_u64(t, row, MA_UNFREED, a->pending.n);
	xp_state_set_i64(t, row, MA_FIRST, a->first_t);
	xp_state_set_i64(t, row, MA_LAST, a->last_t);
	xp_set_bool(t, row, MA_HAS_LIFE, a->has_lifetime);
	xp_state_set_i64(t, row, MA_LIFE, a->lifetime_peak);
	xp_set_bool(t, row, MA_HAS_PEAK, a->has_peak);
	xp_state_set_i64(t, row, MA_PEAK, a->peak);
	xp_state_set_i64(t, row, MA_PEAK_T, a->peak_t);
	xp_state_set_i64(t, row, MA_STACK, a->stack);
	xp_state_set_i64(t, row, MA_HEAP, a->heap);
	xp_state_set_i64(t, row, MA_FREE, a->free_b);
	xp_state_set_i64(t, row, MA_CAP, a->capacity);
	snprintf(frag, sizeof frag, "%a", a->frag);
	xp_set_str(t, row, MA_FRAG, frag);
	xp_state_set_i64(t, row, MA_STEP, a->peak_step);
	xp_set_bool(t, row, MA_ANY_STEP, a->any_step);
	xp_set_bool(t, row, MA_BLIND, a->pt_blind);
}

static void breakdown_rows(struct xp_table *t, const char *host, const struct mem *m, const struct mem_alc *a)
{
	struct mem_row *rows = NULL;   /* the breakdown makes its array even when it holds no row */
	size_t n = a->has_peak ? xp_mem_breakdown(&m->hosts[a->host], a, &rows) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct mem_row *b = &rows[i];
		size_t row = xp_table_row(t);
		xp_set_str_pooled(t, row, MB_HOST, host);
		xp_set_str_pooled(t, row, MB_ID, a->id);
		xp_set_strn(t, row, MB_OP, b->op.s ? b->op.s : "", b->op.s ? b->op.len : 0);
		xp_set_strn(t, row, MB_REGION, b->region.s ? b->region.s : "", b->region.s ? b->region.len : 0);
		xp_set_strn(t, row, MB_SHAPE, b->shape.s ? b->shape.s : "", b->shape.s ? b->shape.len : 0);
		xp_set_str(t, row, MB_DTYPE, b->dtype);
		xp_state_set_i64(t, row, MB_BYTES, b->bytes);
		xp_state_set_i64(t, row, MB_REQ, b->req);
		xp_state_set_u64(t, row, MB_OCC, b->occ);
	}
	free(rows);
}

static void peak_cells(struct xp_table *t, size_t row, size_t col, const struct xp_pt_peak *p)
{
	xp_set_bool(t, row, col + PK_KNOWN, p->known);
	xp_state_set_i64(t, row, col + PK_V, p->v);
	xp_state_set_i64(t, row, col + PK_T, p->t);
	xp_set_bool(t, row, col + PK_HAS_STEP, p->has_step);
	xp_state_set_i64(t, row, col + PK_STEP, p->step);
}

static void pt_rows(struct xp_table *t, const struct xp_capture *c)
{
	struct xp_pt_mem_dev *d;
	size_t n = xp_pt_memory_devices(c, NULL, &d);
	for (size_t i = 0; i < n; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, MP_HOST, d[i].host);
		xp_set_str(t, row, MP_ALC, d[i].allocator);
		xp_set_str(t, row, MP_FROM, d[i].from);
		xp_state_set_u64(t, row, MP_EVENTS, d[i].events);
		xp_state_set_u64(t, row, MP_ALLOCS, d[i].allocations);
		peak_cells(t, row, MP_A, &d[i].allocated);
		peak_cells(t, row, MP_R, &d[i].reserved);
	}
	free(d);
}

void xp_mem_state(const struct mem *m, struct xp_result *state)
{
	struct xp_table *hosts = xp_result_add_table(state, "mem_hosts", "Memory events per host");
	host_columns(hosts);
	struct xp_table *alcs = xp_result_add_table(state, "mem_allocators", "Allocators");
	alc_columns(alcs);
	struct xp_table *rows = xp_result_add_table(state, "mem_breakdown", "Breakdown at each peak");
	row_columns(rows);
	struct xp_table *pt = xp_result_add_table(state, "mem_pt_devices", "PyTorch devices");
	pt_columns(pt);
	for (uint32_t h = 0; h < m->p->n_hosts; h++) {
		size_t row = xp_table_row(hosts);
		xp_set_str(hosts, row, MH_HOST, m->p->hosts[h].host->name);
		xp_state_set_u64(hosts, row, MH_EVENTS, m->hosts[h].n_seq);
	}
	for (size_t i = 0; i < m->n_alcs; i++) {
		const struct mem_alc *a = m->sorted[i];
		if (!a->selected)
			continue;
		alc_row(alcs, m->p->hosts[a->host].host->name, a);
		breakdown_rows(rows, m->p->hosts[a->host].host->name, m, a);
	}
	if (m->semantics)
		pt_rows(pt, m->p->cap);
}

/* --- reading back ----------------------------------------------------------------------------------- */

struct tables {
	const struct xp_table *hosts, *alcs, *rows, *pt;
};

static bool tables_of(const struct xp_result *state, struct tables *tb)
{
	tb->hosts = xp_state_table(state, "mem_hosts", host_columns);
	tb->alcs = xp_state_table(state, "mem_allocators", alc_columns);
	tb->rows = xp_state_table(state, "mem_breakdown", row_columns);
	tb->pt = xp_state_table(state, "mem_pt_devices", pt_columns);
	return tb->hosts && tb->alcs && tb->rows && tb->pt;
}

static bool is_host(const struct xp_table *t, size_t row, const char *host, bool *ok)
{
	const char *h = xp_state_str(t, row, 0);
	*ok = h != NULL;
	return h && !strcmp(h, host);
}

static char *dup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		xp_oom();
	return d;
}

static bool read_alc(const struct xp_table *t, size_t row, struct mem_alc *a)
{
	const char *id = xp_state_str(t, row, MA_ID), *name = xp_state_str(t, row, MA_NAME);
	const char *frag = xp_state_str(t, row, MA_FRAG);
	int64_t step;
	bool has_name;
	char *end = NULL;
	bool ok = id && name && frag && xp_state_bool(t, row, MA_HAS_NAME, &has_name) &&
		  xp_state_u64(t, row, MA_N_EV, &a->n) && xp_state_u64(t, row, MA_ALLOC, &a->n_alloc) &&
		  xp_state_u64(t, row, MA_DEALLOC, &a->n_dealloc) && xp_state_u64(t, row, MA_MISSING, &a->n_missing) &&
		  xp_state_u64(t, row, MA_UNMATCHED, &a->n_unmatched) && xp_state_u64(t, row, MA_UNFREED, &a->pending.n) &&
		  xp_state_i64(t, row, MA_FIRST, &a->first_t) && xp_state_i64(t, row, MA_LAST, &a->last_t) &&
		  xp_state_bool(t, row, MA_HAS_LIFE, &a->has_lifetime) && xp_state_i64(t, row, MA_LIFE, &a->lifetime_peak) &&
		  xp_state_bool(t, row, MA_HAS_PEAK, &a->has_peak) && xp_state_i64(t, row, MA_PEAK, &a->peak) &&
		  xp_state_i64(t, row, MA_PEAK_T, &a->peak_t) && xp_state_i64(t, row, MA_STACK, &a->stack) &&
		  xp_state_i64(t, row, MA_HEAP, &a->heap) && xp_state_i64(t, row, MA_FREE, &a->free_b) &&
		  xp_state_i64(t, row, MA_CAP, &a->capacity) && xp_state_i64(t, row, MA_STEP, &step) &&
		  step >= INT32_MIN && step <= INT32_MAX && xp_state_bool(t, row, MA_ANY_STEP, &a->any_step) &&
		  xp_state_bool(t, row, MA_BLIND, &a->pt_blind);
	if (!ok)
		return false;
	a->frag = strtod(frag, &end);
	a->peak_step = (int32_t)step;
	a->id = dup(id);
	a->name = has_name ? dup(name) : NULL;
	a->selected = true;
	return end != frag && !*end;
}

static struct mem_str str_of(const char *s)
{
	return (struct mem_str){s, (uint32_t)strlen(s)};
}

static bool read_row(const struct xp_table *t, size_t row, struct mem_row *b)
{
	const char *op = xp_state_str(t, row, MB_OP), *region = xp_state_str(t, row, MB_REGION);
	const char *shape = xp_state_str(t, row, MB_SHAPE), *dtype = xp_state_str(t, row, MB_DTYPE);
	if (!op || !region || !shape || !dtype || strlen(dtype) >= sizeof b->dtype)
		return false;
	b->op = str_of(op);
	b->region = str_of(region);
	b->shape = str_of(shape);
	memcpy(b->dtype, dtype, strlen(dtype) + 1);
	return xp_state_i64(t, row, MB_BYTES, &b->bytes) && xp_state_i64(t, row, MB_REQ, &b->req) &&
	       xp_state_u64(t, row, MB_OCC, &b->occ);
}

/* The breakdown rows of allocator A of host HOST (saved after it, in order). */
static bool read_rows(const struct xp_table *t, const char *host, struct mem_alc *a)
{
	bool ok = true;
	for (size_t row = 0; row < t->n_rows && ok; row++) {
		const char *id = xp_state_str(t, row, MB_ID);
		if (!is_host(t, row, host, &ok) || !id || strcmp(id, a->id)) {
			ok = ok && id;
			continue;
		}
		a->saved_rows = xrealloc(a->saved_rows, (a->n_saved_rows + 1) * sizeof *a->saved_rows);
		ok = read_row(t, row, &a->saved_rows[a->n_saved_rows++]);
	}
	return ok;
}

static bool read_peak(const struct xp_table *t, size_t row, size_t col, struct xp_pt_peak *p)
{
	return xp_state_bool(t, row, col + PK_KNOWN, &p->known) && xp_state_i64(t, row, col + PK_V, &p->v) &&
	       xp_state_i64(t, row, col + PK_T, &p->t) && xp_state_bool(t, row, col + PK_HAS_STEP, &p->has_step) &&
	       xp_state_i64(t, row, col + PK_STEP, &p->step);
}

static bool read_pt(struct mem *m, const struct xp_table *t, const char *saved, const char *host)
{
	bool ok = true;
	for (size_t row = 0; row < t->n_rows && ok; row++) {
		if (!is_host(t, row, saved, &ok))
			continue;
		m->pt = xrealloc(m->pt, (m->n_pt + 1) * sizeof *m->pt);
		struct xp_pt_mem_dev *d = &m->pt[m->n_pt++];
		*d = (struct xp_pt_mem_dev){.host = host, .allocator = xp_state_str(t, row, MP_ALC),
					    .from = xp_state_str(t, row, MP_FROM)};
		ok = d->allocator && d->from && xp_state_u64(t, row, MP_EVENTS, &d->events) &&
		     xp_state_u64(t, row, MP_ALLOCS, &d->allocations) && d->allocations <= d->events &&
		     read_peak(t, row, MP_A, &d->allocated) && read_peak(t, row, MP_R, &d->reserved);
	}
	return ok;
}

/* Host H: its events, allocators (with their breakdown rows) and PyTorch devices. */
static bool read_host(struct mem *m, uint32_t h, const struct xp_state_host *sh)
{
	struct tables tb;
	const char *saved = xp_state_host_name(sh->state, sh->row);
	bool found = false, ok = saved && tables_of(sh->state, &tb);
	for (size_t row = 0; ok && !found && row < tb.hosts->n_rows; row++)
		if (is_host(tb.hosts, row, saved, &ok)) {
			uint64_t n;
			found = ok = xp_state_u64(tb.hosts, row, MH_EVENTS, &n);
			m->n_events += n;
		}
	bool any = false;
	for (size_t row = 0; ok && found && row < tb.alcs->n_rows; row++) {
		if (!is_host(tb.alcs, row, saved, &ok))
			continue;
		struct mem_alc *a = xcalloc(1, sizeof *a);
		a->host = h;
		m->alcs = xrealloc(m->alcs, (m->n_alcs + 1) * sizeof *m->alcs);
		m->alcs[m->n_alcs++] = a;
		ok = read_alc(tb.alcs, row, a) && read_rows(tb.rows, saved, a);
		any = true;
	}
	m->hosts_with += any;
	return ok && found && read_pt(m, tb.pt, saved, sh->name);
}

bool xp_mem_from_state(struct mem *m, const struct xp_prep *p, const struct xp_state_host *hosts,
		       const char *semantics, struct xp_err *e)
{
	*m = (struct mem){.p = p, .semantics = semantics, .saved = true};
	for (uint32_t h = 0; h < p->n_hosts; h++)
		if (!read_host(m, h, &hosts[h])) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, hosts[h].path, "the memory state of host %s does not read back: "
				   "not a report as this xpstat writes it", hosts[h].name);
			xp_mem_state_free(m);
			return false;
		}
	/* Saved in output order, hosts in the run's order: already sorted. */
	m->sorted = xmalloc((m->n_alcs + 1) * sizeof *m->sorted);
	if (m->n_alcs)
		memcpy(m->sorted, m->alcs, m->n_alcs * sizeof *m->sorted);
	m->n_selected = m->n_alcs;
	return true;
}

void xp_mem_state_free(struct mem *m)
{
	for (size_t i = 0; i < m->n_alcs; i++) {
		free(m->alcs[i]->id);
		free(m->alcs[i]->name);
		free(m->alcs[i]->saved_rows);
		free(m->alcs[i]);
	}
	free(m->alcs);
	free(m->sorted);
	free(m->pt);
	memset(m, 0, sizeof *m);
}
