/* trace.c - the `trace` export: every selected event with all its stats, resolved XLA facts, flows, memory counters and a step track. */
#include "trace.h"
#include "analyzers/db/hlodb.h"
#include "analyzers/db/steptime.h"
#include "analyzers/prepare/prepare.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the selection's values -------------------------------------------------------------- */

static bool parse_i64(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;
	if (!n || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

bool xp_trace_parse_steps(const char *s, int64_t *first, int64_t *last)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	if (!parse_i64(s, n, first))
		return false;
	*last = *first;
	if (colon && !parse_i64(colon + 1, strlen(colon + 1), last))
		return false;
	return *last >= *first;
}

/* Picoseconds per unit of a duration's suffix; 0 when it is none of them. */
static int64_t unit_ps(const char *u, size_t n)
{
	static const struct {
		const char *name;
		int64_t ps;
	} units[] = {{"", 1000000}, {"ps", 1}, {"ns", 1000}, {"us", 1000000}, {"ms", 1000000000}, {"s", 1000000000000}};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (strlen(units[i].name) == n && !memcmp(units[i].name, u, n))
			return units[i].ps;
	return 0;
}

/* [s, s+n): digits, an optional fraction, a unit; exact (a fraction finer than 1 ps is refused). */
static bool parse_dur_n(const char *s, size_t n, int64_t *ps)
{
	size_t i = 0;
	unsigned __int128 whole = 0, frac = 0, scale = 1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		if ((whole = whole * 10 + (unsigned)(s[i] - '0')) > (unsigned __int128)INT64_MAX)
			return false;
	size_t digits = i;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (scale > (unsigned __int128)1000000000000)
				return false; /* more fraction digits than any unit needs */
			frac = frac * 10 + (unsigned)(s[i] - '0');
			scale *= 10;
		}
	}
	int64_t u = unit_ps(s + i, n - i);
	if (!digits || !u)
		return false;
	unsigned __int128 v = whole * (unsigned __int128)u, f = frac * (unsigned __int128)u;
	if (f % scale)
		return false;
	v += f / scale;
	if (v > (unsigned __int128)INT64_MAX)
		return false;
	*ps = (int64_t)v;
	return true;
}

bool xp_trace_parse_duration(const char *s, int64_t *ps)
{
	return parse_dur_n(s, strlen(s), ps);
}

bool xp_trace_parse_window(const char *s, int64_t *t0, int64_t *t1)
{
	const char *colon = strchr(s, ':');
	return colon && parse_dur_n(s, (size_t)(colon - s), t0) && xp_trace_parse_duration(colon + 1, t1) && *t0 < *t1;
}

bool xp_trace_keeps_step(uint32_t id, const char *name, void *o)
{
	const struct xp_trace_opts *t = o;
	int64_t num = xp_step_number(id, name);
	return !t->has_steps || (num >= t->step_first && num <= t->step_last);
}

int64_t xp_trace_start_ns(const struct xp_capture *c)
{
	int64_t m = 0;
	for (uint32_t h = 0; h < c->n_hosts; h++)
		if (!h || c->hosts[h].base_ns < m)
			m = c->hosts[h].base_ns;
	return m;
}

/* --- the walk ------------------------------------------------------------------------------- */

/* One end of a flow: where its event is drawn. */
struct endpoint {
	int64_t key;
	int64_t pid, tid, ts;
};

struct endpoints {
	struct endpoint *v;
	size_t n, cap;
	size_t faulted;             /* ends [0, faulted) have their pages */
};

/* Ends faulted in ahead of the writes, as many as are written already (at least 2 Ki, at most this many, 2 MiB):
 * one call instead of a trap per page (the traps were most of the export's time per event on a virtual
 * machine), and never far past the last end (a step's export writes a few thousand). */
#define EP_FAULT_AHEAD ((size_t)1 << 16)

static void ep_push(struct endpoints *e, int64_t key, int64_t pid, int64_t tid, int64_t ts)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 256;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
		e->faulted = e->n;
	}
	if (e->n >= e->faulted) {
		size_t k = e->n < 2048 ? 2048 : e->n < EP_FAULT_AHEAD ? e->n : EP_FAULT_AHEAD;
		k = e->cap - e->n < k ? e->cap - e->n : k;
		xp_prefault(e->v + e->n, k * sizeof *e->v);
		e->faulted = e->n + k;
	}
	e->v[e->n++] = (struct endpoint){key, pid, tid, ts};
}

/* Room for N ends at once, where the system gives it (else they grow as they come): the flows' ends of a host
 * ran to millions, and each doubling copied them and touched new pages. A bound, the host's events: pages
 * past the ends written are never touched. */
static void ep_reserve(struct endpoints *e, uint64_t n)
{
	if (n <= e->cap || n > SIZE_MAX / 2 / sizeof *e->v)
		return;
	struct endpoint *v = realloc(e->v, n * sizeof *e->v);
	if (v) {
		e->v = v;
		e->cap = n;
		e->faulted = e->n;
	}
}

/* Strings of the capture as the export writes them (escaped, quoted), by string id: made on first
 * use, so that a name or a stat key is escaped once, not once per event. */
struct esc {
	uint32_t *len;              /* 0: not made yet (a made one has at least its quotes) */
	size_t *off;                /* into text */
	char *text;
	size_t n, cap;
};

/* Longer strings are escaped where they are written: the cache is for names and keys. */
#define ESC_MAX 4096
/* Allocators whose counter names are kept (a host has a few). */
#define COUNTER_NAMES 8

struct walk {
	const struct xp_capture *c;
	const struct xp_prep *p;
	const struct xp_trace_opts *o;
	struct xp_tw *w;            /* NULL: only find whether anything is selected */
	struct xp_trace_counts *n;
	regex_t plane_re, line_re;
	int64_t start_ns;
	int64_t next_pid;
	uint64_t next_flow;
	bool found;
	int failed;                 /* a streamed line could not be read: the exit status, with *err set */
	struct xp_err *err;
	/* per host */
	const struct xp_host *h;
	const struct xp_prep_host *ph;
	int64_t off_ps;             /* host base minus capture start */
	int64_t lo, hi;             /* the window in host time */
	struct xp_hlo_db *hlo;
	struct endpoints launch, kernel, child, parent;
	struct xp_step_db steps;    /* the host's, when made in the export's pass (xp_trace_lines.steps_in_pass) */
	const struct xp_plane *drop_of; /* the plane whose stat metadata DROP marks */
	bool *drop;
	int64_t mem_pid;            /* the host's memory counters' process, 0 = none yet */
	/* per plane: the stats the export reads by name, and which fact each stat metadata is (-1: none) */
	uint32_t s_corr, s_hlo_op, s_module, s_alloc, s_in_use, s_id, s_parent, s_cat, s_program;
	signed char *fact_of;
	uint64_t *seen, stamp;      /* by stat metadata: the stamp of the last event that has it */
	uint32_t *seen_at;          /* and where in that event it last comes */
	struct esc esc;
	char head[XP_TW_HEAD_MAX];  /* the line's X event head */
	struct counter_name {
		const char *s;          /* the allocator's text (an interned one keeps its address) */
		uint32_t len;
		size_t qlen;
		char q[XP_TW_ESCAPED_MAX(15 + 256)];
	} cn[COUNTER_NAMES];
	unsigned cn_next;
	size_t head_len;
};

/* String ID escaped: its text and length, or NULL when it is too long to keep. */
static const char *esc(struct walk *k, uint32_t id, size_t *len)
{
	struct esc *e = &k->esc;
	if (!e->len) {
		e->len = xcalloc(k->c->strings.n ? k->c->strings.n : 1, sizeof *e->len);
		e->off = xcalloc(k->c->strings.n ? k->c->strings.n : 1, sizeof *e->off);
	}
	if (!e->len[id]) {
		size_t n = xp_strlen(k->c, id);
		if (n > ESC_MAX)
			return NULL;
		if (e->cap - e->n < XP_TW_ESCAPED_MAX(n) + XP_TW_PAD) { /* every text readable for XP_TW_PAD bytes */
			size_t old = e->cap;
			e->cap = (e->cap ? e->cap * 2 : 1 << 16) + XP_TW_ESCAPED_MAX(n) + XP_TW_PAD;
			e->text = xrealloc(e->text, e->cap);
			memset(e->text + old, 0, e->cap - old);
		}
		e->off[id] = e->n;
		e->len[id] = (uint32_t)xp_tw_escape(e->text + e->n, xp_str(k->c, id), n);
		e->n += e->len[id];
	}
	*len = e->len[id];
	return e->text + e->off[id];
}

/* String ID as a JSON string, or (KEY) as the key of an arg. */
static void put_sid(struct walk *k, uint32_t id, bool key)
{
	size_t n;
	const char *q = esc(k, id, &n);
	if (q && key)
		xp_tw_arg_qkey(k->w, q, n);
	else if (q)
		xp_tw_raw_padded(k->w, q, n);
	else if (key)
		xp_tw_arg_key(k->w, xp_str(k->c, id), xp_strlen(k->c, id));
	else
		xp_tw_val_str(k->w, xp_str(k->c, id), xp_strlen(k->c, id));
}

static void esc_free(struct esc *e)
{
	free(e->len);
	free(e->off);
	free(e->text);
}

/* Are the step databases made in the export's own pass (the full export)? */
static bool in_pass(const struct walk *k)
{
	return k->o->lines && k->o->lines->steps_in_pass;
}

/* Host HI's step database: made in the pass, or the preparation's; NULL when there is none. */
static const struct xp_step_db *steps_of(const struct walk *k, uint32_t hi)
{
	if (in_pass(k))
		return &k->steps;
	return k->p ? &k->p->hosts[hi].steps : NULL;
}

static bool plane_selected(const struct walk *k, const struct xp_plane *p)
{
	return !k->o->plane_regex || !regexec(&k->plane_re, xp_str(k->c, p->name), 0, NULL, 0);
}

static bool line_selected(const struct walk *k, const struct xp_line *l)
{
	if (!k->o->line_regex)
		return true;
	return !regexec(&k->line_re, xp_str(k->c, l->name), 0, NULL, 0) ||
	       (l->display_name && !regexec(&k->line_re, xp_str(k->c, l->display_name), 0, NULL, 0));
}

static bool event_selected(const struct walk *k, const struct xp_line *l, uint64_t i)
{
	int64_t s = l->start_ps[i], d = xp_dur(l, i) > 0 ? xp_dur(l, i) : 0;
	if (d < k->o->min_duration_ps)
		return false;
	return d ? s < k->hi && s > k->lo - d : s >= k->lo && s < k->hi;
}

/* Host H's window in its own time; false when the selection leaves none of it. */
static bool host_window(struct walk *k, uint32_t hi)
{
	const struct xp_trace_opts *o = k->o;
	k->lo = INT64_MIN / 2;
	k->hi = INT64_MAX / 2;
	if (o->has_window) {
		k->lo = o->window_t0_ps - k->off_ps;
		k->hi = o->window_t1_ps - k->off_ps;
	}
	if (!o->has_steps)
		return true;
	const struct xp_step_db *db = steps_of(k, hi);
	int64_t a = 0, b = 0;
	bool any = false;
	for (size_t i = 0; db && i < db->n; i++) {
		const struct xp_step *s = &db->steps[i];
		int64_t num = xp_step_number(s->id, s->name);
		if (num < o->step_first || num > o->step_last)
			continue;
		if (!any || s->begin_ps < a)
			a = s->begin_ps;
		if (!any || s->begin_ps + s->duration_ps > b)
			b = s->begin_ps + s->duration_ps;
		any = true;
	}
	if (a > k->lo)
		k->lo = a;
	if (b < k->hi)
		k->hi = b;
	return any && k->lo < k->hi;
}

static const struct xp_capture *sort_c;
static const struct xp_host *sort_h;

static int cmp_plane(const void *a, const void *b)
{
	const struct xp_plane *x = &sort_h->planes[*(const uint32_t *)a], *y = &sort_h->planes[*(const uint32_t *)b];
	int kx = xp_plane_kind_rank(x->kind), ky = xp_plane_kind_rank(y->kind);
	if (kx != ky)
		return kx - ky;
	if (x->device_ordinal != y->device_ordinal)
		return x->device_ordinal < y->device_ordinal ? -1 : 1;
	int r = strcmp(xp_str(sort_c, x->name), xp_str(sort_c, y->name));
	return r ? r : (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* The stats the export reads besides writing them, taken as they are written (no second search). */
enum fact { F_CORR, F_HLO_OP, F_MODULE, F_ALLOC, F_IN_USE, F_ID, F_PARENT, F_PROGRAM, F_N };

static void plane_ids(struct walk *k, const struct xp_plane *p)
{
	k->s_corr = xp_plane_stat_id(k->c, p, "correlation_id");
	k->s_hlo_op = xp_plane_stat_id(k->c, p, "hlo_op");
	k->s_module = xp_plane_stat_id(k->c, p, "hlo_module");
	k->s_alloc = xp_plane_stat_id(k->c, p, "allocator_name");
	k->s_in_use = xp_plane_stat_id(k->c, p, "bytes_allocated");
	k->s_id = xp_plane_stat_id(k->c, p, "id");
	k->s_parent = xp_plane_stat_id(k->c, p, "parent_id");
	k->s_program = xp_plane_stat_id(k->c, p, "program_id");
	k->s_cat = xp_plane_stat_id(k->c, p, "cat");
	if (!k->w)
		return;
	const uint32_t ids[] = {k->s_corr, k->s_hlo_op, k->s_module, k->s_alloc, k->s_in_use, k->s_id, k->s_parent,
				k->s_program};
	k->seen = xrealloc(k->seen, (p->n_smeta ? p->n_smeta : 1) * sizeof *k->seen);
	k->seen_at = xrealloc(k->seen_at, (p->n_smeta ? p->n_smeta : 1) * sizeof *k->seen_at);
	memset(k->seen, 0, (p->n_smeta ? p->n_smeta : 1) * sizeof *k->seen);
	k->fact_of = xrealloc(k->fact_of, p->n_smeta ? p->n_smeta : 1);
	memset(k->fact_of, -1, p->n_smeta ? p->n_smeta : 1);
	for (int j = 0; j < F_N; j++) /* distinct names: one fact per stat metadata */
		if (ids[j] && ids[j] < p->n_smeta)
			k->fact_of[ids[j]] = (signed char)j;
}

/* --- one event ------------------------------------------------------------------------------ */

struct facts {
	struct xp_value v[F_N];
	bool has[F_N];
};

static bool fact_text(const struct facts *f, enum fact j, struct xp_value *out)
{
	if (!f->has[j])
		return false;
	*out = f->v[j];
	return out->kind == XP_STAT_STR || out->kind == XP_STAT_BLOBSTR;
}

static bool fact_int(const struct facts *f, enum fact j, int64_t *out)
{
	return f->has[j] && xp_value_int(&f->v[j], out);
}

/* Stat I of V as an arg (its key escaped once per capture, an interned value likewise), noted in F when
 * it is one of the facts. */
static void put_stat(struct walk *k, const struct xp_plane *p, const struct xp_stat_view *v, uint32_t i,
		     struct facts *f)
{
	uint32_t sm = xp_stat_meta(v->keys[i]);
	unsigned kind = xp_stat_kind(v->keys[i]);
	if (!sm || sm >= p->n_smeta || kind == XP_STAT_NONE || kind > XP_STAT_BLOBSTR)
		return;
	if (f && k->fact_of[sm] >= 0) {
		xp_view_value(k->c, v, i, &f->v[k->fact_of[sm]]);
		f->has[k->fact_of[sm]] = true;
	}
	put_sid(k, p->smeta[sm].name, true);
	uint64_t raw = xp_view_val(v, i);
	switch (kind) {
	case XP_STAT_I64: xp_tw_val_i64(k->w, (int64_t)raw); break;
	case XP_STAT_U64: xp_tw_val_u64(k->w, raw); break;
	case XP_STAT_F64: {
		double d;
		memcpy(&d, &raw, sizeof d);
		xp_tw_val_f64(k->w, d);
		break;
	}
	case XP_STAT_STR: put_sid(k, (uint32_t)raw, false); break;
	default: { /* BYTES, BLOBSTR: in the view's blob arena */
		uint32_t len;
		const char *b = (const char *)xp_blob_get(v->blob, raw, &len);
		if (kind == XP_STAT_BYTES)
			xp_tw_val_bytes(k->w, (const uint8_t *)b, len);
		else
			xp_tw_val_str(k->w, b, len);
	}
	}
}

/* Every stat of the event: its metadata's (those the event does not override), then its own. */
static void put_stats(struct walk *k, const struct xp_plane *p, const struct xp_line *l, uint64_t i, struct facts *f)
{
	struct xp_stat_view ev = xp_event_stats(l, i), mv = xp_meta_stats(p, xp_meta_of(l, i));
	/* where each stat metadata of the event last comes (a stat repeated in the event: its last copy is the
	 * one analyses read), marked by the event's stamp instead of searched for each stat */
	uint64_t stamp = ++k->stamp;
	for (uint32_t s = 0; s < ev.n; s++) {
		uint32_t sm = xp_stat_meta(ev.keys[s]);
		if (sm < p->n_smeta) { /* others are not written */
			k->seen[sm] = stamp;
			k->seen_at[sm] = s;
		}
	}
	for (uint32_t s = 0; s < mv.n; s++) {
		uint32_t sm = xp_stat_meta(mv.keys[s]);
		if (sm < p->n_smeta && k->seen[sm] != stamp)
			put_stat(k, p, &mv, s, f);
	}
	for (uint32_t s = 0; s < ev.n; s++) {
		uint32_t sm = xp_stat_meta(ev.keys[s]);
		if (sm < p->n_smeta && k->seen_at[sm] == s)
			put_stat(k, p, &ev, s, f);
	}
}

static bool text_stat(struct walk *k, const struct xp_plane *p, const struct xp_line *l, uint64_t i, uint32_t sid,
		      struct xp_value *v)
{
	return sid && xp_event_find(k->c, p, l, i, sid, v) && (v->kind == XP_STAT_STR || v->kind == XP_STAT_BLOBSTR);
}

/* What the HLO protos say of an XLA op: so that reading the export back needs none. */
static void put_hlo(struct walk *k, const struct facts *f)
{
	struct xp_value op, mod;
	if (!k->hlo || !k->hlo->n || !fact_text(f, F_HLO_OP, &op))
		return;
	bool has_mod = fact_text(f, F_MODULE, &mod);
	struct xp_hlo_hit hit;
	int64_t pid;
	bool has_pid = fact_int(f, F_PROGRAM, &pid);
	/* resolved as the analyses resolve it (analyzers/db/opdb.c): by the event's program id where it carries
	 * one, else by module name */
	if (!(has_pid && xp_hlo_db_resolve(k->hlo, true, pid, has_mod ? mod.s : NULL, has_mod ? mod.len : 0, op.s,
					   op.len, &hit)) &&
	    !xp_hlo_db_resolve(k->hlo, false, 0, has_mod ? mod.s : NULL, has_mod ? mod.len : 0, op.s, op.len, &hit))
		return;
	char fw[512];
	xp_hlo_framework_op(hit.in, fw, sizeof fw);
#define KEY(s) "xpstat.hlo." s, sizeof("xpstat.hlo." s) - 1
	xp_tw_arg_i64(k->w, KEY("program_id"), hit.mod->program_id);
	xp_tw_arg_str(k->w, KEY("module"), hit.mod->name, strlen(hit.mod->name));
	xp_tw_arg_str(k->w, KEY("instruction"), hit.in->name, strlen(hit.in->name));
	xp_tw_arg_str(k->w, KEY("opcode"), hit.in->opcode, strlen(hit.in->opcode));
	xp_tw_arg_str(k->w, KEY("category"), hit.in->category, strlen(hit.in->category));
	xp_tw_arg_str(k->w, KEY("op_name"), hit.in->op_name, strlen(hit.in->op_name));
	xp_tw_arg_str(k->w, KEY("op_type"), hit.in->op_type, strlen(hit.in->op_type));
	xp_tw_arg_str(k->w, KEY("framework_op"), fw, strlen(fw));
	xp_tw_arg_u64(k->w, KEY("flops"), hit.in->flops);
	xp_tw_arg_u64(k->w, KEY("bytes_accessed"), hit.in->bytes_accessed);
	xp_tw_arg_i64(k->w, KEY("elem_type"), hit.in->elem_type);
	if (hit.in->flops_gap)
		xp_tw_arg_i64(k->w, KEY("flops_gap"), hit.in->flops_gap);
	if (hit.ambiguous)
		xp_tw_arg_i64(k->w, KEY("ambiguous"), 1);
#undef KEY
}

/* "Memory in use: ALLOCATOR" escaped (the allocator's first 256 bytes, up to a NUL): made once per allocator
 * of the last few, not once per allocation event. */
static const char *counter_name(struct walk *k, const struct xp_value *alloc, size_t *len)
{
	for (int i = 0; i < COUNTER_NAMES; i++)
		if (k->cn[i].s == alloc->s && k->cn[i].len == alloc->len) {
			*len = k->cn[i].qlen;
			return k->cn[i].q;
		}
	struct counter_name *c = &k->cn[k->cn_next++ % COUNTER_NAMES];
	char name[300];
	size_t n = strnlen(alloc->s, alloc->len < 256 ? alloc->len : 256);
	memcpy(name, "Memory in use: ", 15);
	memcpy(name + 15, alloc->s, n);
	c->s = alloc->s;
	c->len = alloc->len;
	c->qlen = xp_tw_escape(c->q, name, 15 + n);
	*len = c->qlen;
	return c->q;
}

/* The memory in use of the event's allocator, as a counter track of the host. */
static void put_counter(struct walk *k, const struct facts *f, int64_t ts)
{
	struct xp_value alloc;
	int64_t bytes;
	if (!fact_text(f, F_ALLOC, &alloc) || !fact_int(f, F_IN_USE, &bytes))
		return;
	if (!k->mem_pid) {
		k->mem_pid = k->next_pid++;
		xp_tw_meta_name(k->w, "process_name", k->mem_pid, false, 0, "/xpstat:Memory", 14);
		xp_tw_meta_sort(k->w, "process_sort_index", k->mem_pid, false, 0, k->mem_pid);
		k->n->processes++;
	}
	size_t qn;
	const char *q = counter_name(k, &alloc, &qn);
	xp_tw_open_q(k->w, 'C', k->mem_pid, 0, ts, 0, q, qn);
	xp_tw_args(k->w);
	xp_tw_arg_i64(k->w, "bytes", 5, bytes);
	xp_tw_close(k->w, true);
	k->n->counters++;
}

/* The ends of this event's flows: launch/kernel by correlation id, tf.data iterator/parent by ids. */
static void note_flows(struct walk *k, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
		       const struct facts *f, int64_t pid, int64_t tid, int64_t ts)
{
	int64_t v;
	if (fact_int(f, F_CORR, &v))
		ep_push(p->kind == XP_PLANE_HOST_CPU ? &k->launch : &k->kernel, v, pid, tid, ts);
	if (!f->has[F_ID] && !f->has[F_PARENT])
		return;
	if (strncmp(xp_str(k->c, xp_event_name(p, l, i)), "Iterator::", 10))
		return;
	if (fact_int(f, F_ID, &v))
		ep_push(&k->parent, v, pid, tid, ts);
	if (fact_int(f, F_PARENT, &v))
		ep_push(&k->child, v, pid, tid, ts);
}

/* A line's tid: the low 32 bits of its id, as TensorFlow's exporter does (viewers read tids as
 * unsigned 32-bit numbers; derived lines' ids are negative). */
static int64_t line_tid(const struct xp_line *l)
{
	return (int64_t)(uint32_t)l->id;
}

static void put_event(struct walk *k, const struct xp_plane *p, const struct xp_line *l, uint64_t i, int64_t pid)
{
	const struct xp_event_meta *m = &p->emeta[xp_meta_of(l, i)];
	uint32_t name = m->display_name && xp_strlen(k->c, m->display_name) ? m->display_name : m->name;
	int64_t ts = k->off_ps + l->start_ps[i], dur = xp_dur(l, i) > 0 ? xp_dur(l, i) : 0;
	struct xp_value cat;
	size_t qn;
	const char *q = esc(k, name, &qn);
	if (q)
		xp_tw_open_x(k->w, k->head, k->head_len, ts, dur, q, qn);
	else
		xp_tw_open(k->w, 'X', pid, line_tid(l), ts, dur, xp_str(k->c, name), xp_strlen(k->c, name));
	if (text_stat(k, p, l, i, k->s_cat, &cat))
		xp_tw_field_str(k->w, "cat", cat.s, cat.len); /* a Kineto category: PyTorch's rules on reading */
	xp_tw_args(k->w);
	struct facts f;
	memset(f.has, 0, sizeof f.has);
	put_stats(k, p, l, i, &f);
	if (name != m->name) { /* TF's convention: the display name shows, the full name in long_name */
		xp_tw_arg_key(k->w, "long_name", 9);
		put_sid(k, m->name, false);
	}
	put_hlo(k, &f);
	xp_tw_close(k->w, true);
	k->n->events++;
	put_counter(k, &f, ts);
	note_flows(k, p, l, i, &f, pid, line_tid(l), ts);
}

/* --- planes and lines ------------------------------------------------------------------------ */

/* Line L of plane P kept for the host's step database made in the pass: with the stats it reads alone, as the
 * first read of the two-pass export holds it. */
static void keep_for_steps(struct walk *k, const struct xp_plane *p, struct xp_line *l)
{
	const char *const *names = k->o->lines->step_drop;
	if (!names || !l->n_events)
		return;
	if (k->drop_of != p) {
		k->drop = xrealloc(k->drop, p->n_smeta ? p->n_smeta : 1);
		for (uint32_t s = 0; s < p->n_smeta; s++) {
			k->drop[s] = false;
			for (size_t j = 0; names[j] && !k->drop[s]; j++)
				k->drop[s] = !strcmp(xp_str(k->c, p->smeta[s].name), names[j]);
		}
		k->drop_of = p;
	}
	xp_line_drop_stats(l, k->drop, p->n_smeta);
}

/* A line of a streamed load read as the selection needs it: to be written, or, for a selection in time or a
 * minimum duration, to find whether it selects any event (the selected events alone, or for a minimum duration
 * alone the whole line, kept until written). 0, or -1 with k->err set. */
static int load_line(struct walk *k, struct xp_line *l)
{
	const struct xp_trace_lines *s = k->o->lines;
	if (!s || (!k->w && !s->by_time && !k->o->min_duration_ps))
		return 0; /* whole lines selected: a line's event count says whether it has any */
	int64_t lo_hi[2] = {k->lo, k->hi};
	return s->load(s->arg, (struct xp_host *)k->h, l, s->by_time ? lo_hi : NULL, k->err);
}

static bool line_any(struct walk *k, const struct xp_line *l)
{
	if (!l->start_ps) /* events not read (a streamed load selecting whole lines), or none selected in time */
		return l->n_events > 0;
	for (uint64_t i = 0; i < l->n_events; i++)
		if (event_selected(k, l, i))
			return true;
	return false;
}

static void put_line_meta(struct walk *k, const struct xp_line *l, int64_t pid, uint32_t index)
{
	uint32_t name = l->name;
	struct xp_tw *w = k->w;
	xp_tw_meta_open(w, "thread_name", pid, true, line_tid(l));
	xp_tw_arg_str(w, "name", 4, xp_str(k->c, name), xp_strlen(k->c, name));
	xp_tw_arg_i64(w, "xpstat_line_id", 14, l->id); /* the exact id, for reading the export back */
	xp_tw_close(w, true);
	xp_tw_meta_sort(w, "thread_sort_index", pid, true, line_tid(l), index);
	k->head_len = xp_tw_x_head(k->head, pid, line_tid(l));
	k->n->threads++;
}

/* The plane's process: its name, with the plane's stats as further args (viewers show the name). */
static int64_t put_process(struct walk *k, const struct xp_plane *p)
{
	int64_t pid = k->next_pid++;
	xp_tw_meta_open(k->w, "process_name", pid, false, 0);
	xp_tw_arg_str(k->w, "name", 4, xp_str(k->c, p->name), xp_strlen(k->c, p->name));
	struct xp_stat_view v = xp_plane_stats(p);
	for (uint32_t i = 0; i < v.n; i++)
		if (strcmp(xp_str(k->c, p->smeta[xp_stat_meta(v.keys[i])].name), "name"))
			put_stat(k, p, &v, i, NULL);
	xp_tw_close(k->w, true);
	xp_tw_meta_sort(k->w, "process_sort_index", pid, false, 0, pid);
	if (k->c->n_hosts > 1) {
		/* labels for viewers; the host's index in otherData's xpstat_host_N for reading it back */
		xp_tw_meta_open(k->w, "process_labels", pid, false, 0);
		xp_tw_arg_str(k->w, "labels", 6, k->h->name, strlen(k->h->name));
		xp_tw_arg_i64(k->w, "xpstat_host", 11, (int64_t)(k->h - k->c->hosts));
		xp_tw_close(k->w, true);
	}
	k->n->processes++;
	return pid;
}

static void put_plane(struct walk *k, const struct xp_plane *p)
{
	int64_t pid = 0;
	plane_ids(k, p);
	if (!p->n_lines && k->w && !k->o->line_regex) {
		/* a device known by its stats alone is still a device of the capture */
		put_process(k, p);
		return;
	}
	for (uint32_t li = 0; li < p->n_lines; li++) {
		const struct xp_line *l = &p->lines[li];
		if (!line_selected(k, l))
			continue;
		if (load_line(k, (struct xp_line *)l)) {
			k->failed = XP_EXIT_BAD_INPUT;
			return;
		}
		if (!line_any(k, l))
			continue;
		k->found = true;
		if (!k->w)
			return;
		if (!pid)
			pid = put_process(k, p);
		put_line_meta(k, l, pid, li);
		for (uint64_t i = 0; i < l->n_events; i++)
			if (event_selected(k, l, i))
				put_event(k, p, l, i, pid);
		if (in_pass(k)) {
			keep_for_steps(k, p, (struct xp_line *)l);
			continue;
		}
		/* written: the export is the capture's last reader, and the memory its events held makes room
		 * for the flows' ends that build up as the host is written */
		bool big = l->n_events >= XP_BLOCK_EVENTS && !k->o->lines;
		xp_line_release((struct xp_line *)l);
#ifdef __GLIBC__
		/* the freed blocks back to the system, not only to malloc (at most one call per block); not in a
		 * streamed load, where the next line reuses them */
		if (big)
			malloc_trim(0);
#else
		(void)big;
#endif
	}
}

static int cmp_ep(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* A key's byte D, in the order of signed keys. */
static inline unsigned key_byte(int64_t key, int d)
{
	return (unsigned)((((uint64_t)key ^ (1ull << 63)) >> (8 * d)) & 255);
}

/* E's ends in cmp_ep's order (key, time, process, thread), TMP room for as many: a radix sort of the keys, a byte
 * a pass, a pass skipped where every key has the same byte (correlation ids use a few), then each run of one key
 * sorted (a key has one end or two, as a rule). qsort's comparisons through a pointer were most of the flows' time. */
static void sort_ends(struct endpoints *e, struct endpoint *tmp)
{
	size_t n = e->n, (*count)[256] = xcalloc(8, sizeof *count);
	struct endpoint *a = e->v, *b = tmp;
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 8; d++)
			count[d][key_byte(a[i].key, d)]++;
	for (int d = 0; d < 8; d++) {
		if (count[d][key_byte(a[0].key, d)] == n)
			continue;
		size_t at[256], sum = 0;
		for (int c = 0; c < 256; c++) {
			at[c] = sum;
			sum += count[d][c];
		}
		for (size_t i = 0; i < n; i++)
			b[at[key_byte(a[i].key, d)]++] = a[i];
		struct endpoint *t = a;
		a = b;
		b = t;
	}
	free(count);
	if (a != e->v)
		memcpy(e->v, a, n * sizeof *a);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && e->v[j].key == e->v[i].key; j++)
			;
		if (j - i > 1)
			qsort(e->v + i, j - i, sizeof *e->v, cmp_ep);
	}
}

/* One flow from each FROM to the first TO of its key: both ends are exported events. */
static void join_flows(struct walk *k, struct endpoints *from, struct endpoints *to, const char *cat)
{
	if (!from->n || !to->n) { /* no flow; and qsort must not be handed a NULL array (UBSan) */
		from->n = to->n = 0;
		return;
	}
	struct endpoint *tmp = xmalloc((from->n > to->n ? from->n : to->n) * sizeof *tmp);
	xp_prefault(tmp, (from->n > to->n ? from->n : to->n) * sizeof *tmp); /* written whole by the sort */
	sort_ends(from, tmp);
	sort_ends(to, tmp);
	free(tmp);
	size_t j = 0;
	for (size_t i = 0; i < from->n; i++) {
		while (j < to->n && to->v[j].key < from->v[i].key)
			j++;
		if (j == to->n)
			break;
		if (to->v[j].key != from->v[i].key)
			continue;
		const struct endpoint *a = &from->v[i], *b = &to->v[j];
		uint64_t id = ++k->next_flow;
		xp_tw_flow(k->w, 's', id, a->pid, a->tid, a->ts, cat);
		xp_tw_flow(k->w, 'f', id, b->pid, b->tid, b->ts, cat);
		k->n->flows++;
	}
	from->n = to->n = 0;
}

/* The host's steps in the window, one slice each, named by number, the breakdown as args. */
static void put_steps(struct walk *k, uint32_t hi)
{
	const struct xp_step_db *db = steps_of(k, hi);
	int64_t pid = 0;
	for (size_t i = 0; db && i < db->n; i++) {
		const struct xp_step *s = &db->steps[i];
		int64_t d = s->duration_ps > 0 ? s->duration_ps : 0, num = xp_step_number(s->id, s->name);
		if (k->o->has_steps && (num < k->o->step_first || num > k->o->step_last))
			continue;
		if (d ? !(s->begin_ps < k->hi && s->begin_ps > k->lo - d) : !(s->begin_ps >= k->lo && s->begin_ps < k->hi))
			continue;
		if (!pid) {
			pid = k->next_pid++;
			xp_tw_meta_name(k->w, "process_name", pid, false, 0, "/xpstat:Steps", 13);
			xp_tw_meta_sort(k->w, "process_sort_index", pid, false, 0, pid);
			xp_tw_meta_name(k->w, "thread_name", pid, true, 1, "xpstat steps", 12);
			k->n->processes++;
		}
		char text[24];
		int n = snprintf(text, sizeof text, "%" PRId64, num);
		xp_tw_open(k->w, 'X', pid, 1, k->off_ps + s->begin_ps, d, text, (size_t)n);
		xp_tw_args(k->w);
		xp_tw_arg_i64(k->w, "step_id", 7, s->id);
		if (s->name)
			xp_tw_arg_str(k->w, "step_name", 9, s->name, strlen(s->name));
		xp_tw_arg_i64(k->w, "step_time_ps", 12, s->duration_ps);
		for (int c = 0; c < XP_N_STEP_CATS; c++) {
			char key[64];
			int kn = snprintf(key, sizeof key, "%s_ps", xp_step_cat_key((enum xp_step_cat)c));
			xp_tw_arg_i64(k->w, key, (size_t)kn, xp_step_cat_ps(s, (enum xp_step_cat)c));
		}
		xp_tw_close(k->w, true);
		k->n->steps++;
	}
}

static void ep_free(struct endpoints *e)
{
	free(e->v);
	*e = (struct endpoints){0};
}

static void step_db_free(struct xp_step_db *db)
{
	for (size_t s = 0; s < db->n; s++)
		xp_step_release(&db->steps[s]);
	free(db->steps);
	free(db->dropped_why);
	memset(db, 0, sizeof *db);
}

/* The host's step database made in the export's pass, as `steps` makes it, from every line of the host (those
 * the selection left out read now); then the lines go. 0, or the exit status with k->err set. */
static int make_steps(struct walk *k)
{
	struct xp_host *h = (struct xp_host *)k->h;
	const struct xp_trace_lines *s = k->o->lines;
	/* the flows are written: their ends' room goes before the grouping's */
	ep_free(&k->launch);
	ep_free(&k->kernel);
	for (uint32_t i = 0; i < h->n_planes; i++)
		for (uint32_t li = 0; li < h->planes[i].n_lines; li++)
			if (!h->planes[i].lines[li].start_ps) {
				if (s->load(s->arg, h, &h->planes[i].lines[li], NULL, k->err))
					return XP_EXIT_BAD_INPUT;
				keep_for_steps(k, &h->planes[i], &h->planes[i].lines[li]);
			}
	struct xp_capture one = *k->c; /* the host alone: each host's steps are its own */
	one.n_hosts = 1;
	one.hosts = h;
	struct xp_prep *p = xp_prepare(&one, &k->p->opts, k->err);
	if (!p)
		return k->err->status ? k->err->status : XP_EXIT_INTERNAL;
	k->steps = p->hosts[0].steps;
	memset(&p->hosts[0].steps, 0, sizeof p->hosts[0].steps);
	xp_prep_free(p);
	for (uint32_t i = 0; i < h->n_planes; i++)
		for (uint32_t li = 0; li < h->planes[i].n_lines; li++)
			xp_line_release(&h->planes[i].lines[li]);
	return 0;
}

static void put_host(struct walk *k, uint32_t hi)
{
	const struct xp_host *h = &k->c->hosts[hi];
	k->h = h;
	k->off_ps = (h->base_ns - k->start_ns) * 1000;
	if (!host_window(k, hi))
		return;
	uint32_t *order = xmalloc((h->n_planes + 1) * sizeof *order);
	for (uint32_t i = 0; i < h->n_planes; i++)
		order[i] = i;
	sort_c = k->c;
	sort_h = h;
	qsort(order, h->n_planes, sizeof *order, cmp_plane);
	k->mem_pid = 0;
	if (k->w) {
		k->hlo = xp_hlo_db_build(k->c, h);
		uint64_t cpu = 0, dev = 0; /* events that can end a launch flow, and a kernel's */
		for (uint32_t i = 0; i < h->n_planes; i++)
			for (uint32_t li = 0; li < h->planes[i].n_lines; li++)
				*(h->planes[i].kind == XP_PLANE_HOST_CPU ? &cpu : &dev) += h->planes[i].lines[li].n_events;
		ep_reserve(&k->launch, cpu);
		ep_reserve(&k->kernel, dev);
	}
	for (uint32_t i = 0; i < h->n_planes && (k->w || !k->found) && !k->failed; i++)
		if (plane_selected(k, &h->planes[order[i]]))
			put_plane(k, &h->planes[order[i]]);
	free(order);
	if (!k->w)
		return;
	xp_hlo_db_free(k->hlo);
	k->hlo = NULL;
	if (k->failed)
		return;
	join_flows(k, &k->launch, &k->kernel, "launch");
	join_flows(k, &k->child, &k->parent, "tf.data");
	if (in_pass(k) && (k->failed = make_steps(k)))
		return;
	put_steps(k, hi);
	step_db_free(&k->steps);
}

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* printf onto the end of BUF, cut short when it is full. */
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	if (*n >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n = k < 0 ? len : *n + (size_t)k;
}

static int64_t first_number(const struct xp_step_db *db)
{
	int64_t m = 0;
	for (size_t i = 0; i < db->n; i++)
		if (!i || xp_step_number(db->steps[i].id, db->steps[i].name) < m)
			m = xp_step_number(db->steps[i].id, db->steps[i].name);
	return m;
}

static int64_t last_number(const struct xp_step_db *db)
{
	int64_t m = 0;
	for (size_t i = 0; i < db->n; i++)
		if (!i || xp_step_number(db->steps[i].id, db->steps[i].name) > m)
			m = xp_step_number(db->steps[i].id, db->steps[i].name);
	return m;
}

/* The step range, hosts and planes of the capture: what a selection can name. */
static void list_what_exists(const struct walk *k, char *why, size_t len)
{
	size_t n = 0;
	why[0] = 0;
	for (uint32_t h = 0; h < k->c->n_hosts; h++) {
		const struct xp_host *host = &k->c->hosts[h];
		const struct xp_step_db *db = steps_of(k, h);
		append(why, len, &n, "%shost %s: ", h ? "; " : "", host->name);
		if (db && db->n)
			append(why, len, &n, "steps %" PRId64 "..%" PRId64 ", ", first_number(db), last_number(db));
		else
			append(why, len, &n, "no steps, ");
		for (uint32_t i = 0; i < host->n_planes; i++)
			append(why, len, &n, "%s%s", i ? ", " : "planes ", xp_str(k->c, host->planes[i].name));
	}
}

static int walk(struct walk *k, const struct xp_capture *c, const struct xp_prep *p, const struct xp_trace_opts *o)
{
	k->c = c;
	k->p = p;
	k->o = o;
	k->start_ns = xp_trace_start_ns(c);
	k->next_pid = 1;
	if (o->plane_regex && regcomp(&k->plane_re, o->plane_regex, REG_EXTENDED | REG_NOSUB))
		return -1;
	if (o->line_regex && regcomp(&k->line_re, o->line_regex, REG_EXTENDED | REG_NOSUB)) {
		if (o->plane_regex)
			regfree(&k->plane_re);
		return -1;
	}
	for (uint32_t h = 0; h < c->n_hosts && (k->w || !k->found) && !k->failed; h++)
		put_host(k, h);
	if (o->plane_regex)
		regfree(&k->plane_re);
	if (o->line_regex)
		regfree(&k->line_re);
	free(k->launch.v);
	free(k->kernel.v);
	free(k->child.v);
	free(k->parent.v);
	free(k->fact_of);
	free(k->seen);
	free(k->seen_at);
	free(k->drop);
	esc_free(&k->esc);
	return 0;
}

/* Nothing selected: a usage error that lists what a selection can name. */
static void none_selected(const struct walk *k, struct xp_err *e)
{
	char why[2048] = "";
	if (k)
		list_what_exists(k, why, sizeof why);
	xp_err_set(e, XP_EXIT_USAGE, NULL, "the selection matches no event; %s", why);
}

bool xp_trace_selects_any(const struct xp_capture *c, const struct xp_prep *p, const struct xp_trace_opts *o,
			  struct xp_err *e)
{
	struct walk k = {0};
	struct xp_trace_counts n = {0};
	k.n = &n;
	k.err = e;
	if (walk(&k, c, p, o)) {
		none_selected(NULL, e);
		return false;
	}
	if (k.failed) /* a streamed line could not be read: *E says why */
		return false;
	if (!k.found)
		none_selected(&k, e);
	return k.found;
}

int xp_trace_export(struct xp_capture *c, const struct xp_prep *p, const struct xp_trace_opts *o,
		    struct xp_tw *w, struct xp_trace_counts *n, struct xp_err *e)
{
	struct walk k = {0};
	memset(n, 0, sizeof *n);
	k.w = w;
	k.n = n;
	k.err = e;
	if (walk(&k, c, p, o))
		return xp_err_set(e, XP_EXIT_INTERNAL, NULL, "trace: a selection's regular expression did not compile"),
		       XP_EXIT_INTERNAL;
	if (k.failed)
		return k.failed;
	if (!k.found) {
		none_selected(&k, e);
		return XP_EXIT_USAGE;
	}
	return 0;
}
