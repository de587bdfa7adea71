/* info.c - what a capture holds (hosts, planes, devices, available analyses) and what is missing from it. */
#include "info.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/hlodb.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/prepstate.h"
#include "analyzers/db/table_state.h"
#include "analyzers/prepare/prep.h"
#include "analyzers/prepare/prepare.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-plane facts gathered in one pass over its events. */
struct plane_survey {
	uint64_t events;
	int64_t first_ps, last_ps;
	bool any_time;
	uint64_t kernels;           /* device events with kernel_details and duration > 0 */
	int64_t kernel_ps;
	uint64_t device_ops;        /* device events carrying tf_op / level 0 / hlo_op */
	uint64_t memcpys;
	uint64_t mem_alloc, mem_dealloc;
	uint64_t tfdata;            /* Iterator::* events */
	uint64_t host_ops;          /* host events named like TF ops (name:Type) */
	uint64_t launches;          /* host events with correlation_id */
	uint64_t step_roots;        /* events with _r, named TraceContext, or ProfilerStep#N */
	uint64_t steps_line_events; /* events on a derived Steps line */
	uint64_t dropped;           /* plane stat dropped_traces */
};

/* Per-host facts. */
struct host_survey {
	struct plane_survey total;
	uint64_t lines;
	uint32_t gpu_planes, gpu_active, tpu_planes, device_planes_active;
	uint8_t *kernel_seen;       /* by name id: seen as a kernel's name */
	size_t n_kernel_names;      /* distinct kernel names */
	bool level0, task_env;
	const char *producer;       /* xp_host_producer, worked out once */
};

/* Names of the metadata entries, classified once per plane. */
enum meta_flag {
	MF_ALLOC = 1, MF_DEALLOC = 2, MF_ITER = 4, MF_ROOT_NAME = 8, MF_TFOP = 16,
	MF_KERNEL_META = 32, MF_MEMCPY = 64, MF_ROOT_META = 1024
};

static bool starts(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

/* The TF-op test of spec §0.2: "scope/name:Type" with xprof's character classes, so that a JAX
 * host event such as "Compiling IR:LLVMDialectModule" does not pass for a TensorFlow op. */
static bool looks_like_tf_op(const char *s)
{
	struct xp_tfop op;
	xp_parse_tf_op(s, strlen(s), &op);
	return op.cat == XP_OP_TF;
}

static unsigned classify_name(const char *n)
{
	unsigned f = 0;
	if (!strcmp(n, "MemoryAllocation"))
		f |= MF_ALLOC;
	else if (!strcmp(n, "MemoryDeallocation"))
		f |= MF_DEALLOC;
	if (starts(n, "Iterator::"))
		f |= MF_ITER;
	if (!strcmp(n, "TraceContext") || starts(n, "ProfilerStep#"))
		f |= MF_ROOT_NAME;
	if (looks_like_tf_op(n))
		f |= MF_TFOP;
	if (starts(n, "Memcpy") || starts(n, "memcpy"))
		f |= MF_MEMCPY;
	return f;
}

struct stat_ids {
	uint32_t kernel_details, tf_op, level0, hlo_op, corr, root, dropped, hlo_module;
};

static struct stat_ids find_stat_ids(const struct xp_capture *c, const struct xp_plane *p)
{
	struct stat_ids s = {
		xp_plane_stat_id(c, p, "kernel_details"), xp_plane_stat_id(c, p, "tf_op"),
		xp_plane_stat_id(c, p, "level 0"), xp_plane_stat_id(c, p, "hlo_op"),
		xp_plane_stat_id(c, p, "correlation_id"), xp_plane_stat_id(c, p, "_r"),
		xp_plane_stat_id(c, p, "dropped_traces"), xp_plane_stat_id(c, p, "hlo_module"),
	};
	return s;
}

/* What a stat tells the survey, by stat metadata id; one pass over an event's stats
 * finds them all. */
enum stat_bit { SB_KERNEL = 1, SB_DEVICE_OP = 2, SB_CORR = 4, SB_ROOT = 8 };

static uint8_t *stat_roles(const struct xp_plane *p, const struct stat_ids *ids)
{
	uint8_t *role = xcalloc((size_t)p->n_smeta + 1, 1);
	const struct {
		uint32_t sid;
		uint8_t bit;
	} map[] = {
		{ids->kernel_details, SB_KERNEL}, {ids->tf_op, SB_DEVICE_OP}, {ids->level0, SB_DEVICE_OP},
		{ids->hlo_op, SB_DEVICE_OP}, {ids->corr, SB_CORR}, {ids->root, SB_ROOT},
	};
	for (size_t k = 0; k < sizeof map / sizeof *map; k++)
		if (map[k].sid && map[k].sid < p->n_smeta)
			role[map[k].sid] |= map[k].bit;
	return role;
}

static unsigned view_roles(struct xp_stat_view v, const uint8_t *role, uint32_t n_smeta)
{
	unsigned bits = 0;
	for (uint32_t k = 0; k < v.n; k++) {
		uint32_t sid = xp_stat_meta(v.keys[k]);
		bits |= sid < n_smeta ? role[sid] : 0;
	}
	return bits;
}

/* Kernel names seen by one thread: a flag per interned name, not a list to sort (millions of kernels
 * share a few hundred names). */
struct name_set {
	uint8_t *seen;
	size_t n;
};

static void add_kernel_name(struct name_set *ns, uint32_t name)
{
	ns->n += !ns->seen[name];
	ns->seen[name] = 1;
}

/* What the event loop needs of a plane, made once: flags per event metadata, roles per stat metadata. */
struct plane_class {
	unsigned *mf;
	uint8_t *role;
	bool zero_kernels;  /* a dur-0 kernel counts (PyTorch: a launch under the trace's microsecond) */
};

static void survey_event(const struct xp_plane *p, const struct xp_line *l, uint64_t i, const struct plane_class *pc,
			 struct plane_survey *ps, struct name_set *ns)
{
	unsigned f = pc->mf[xp_meta_of(l, i)];
	unsigned ev = view_roles(xp_event_stats(l, i), pc->role, p->n_smeta);
	bool device = p->kind == XP_PLANE_GPU || p->kind == XP_PLANE_TPU || p->kind == XP_PLANE_DEVICE_OTHER;
	if (device) {
		/* as kernel-stats counts them */
		if (!l->derived && p->kind == XP_PLANE_GPU && (xp_dur(l, i) > 0 || (pc->zero_kernels && !xp_dur(l, i))) &&
		    ((f & MF_KERNEL_META) || (ev & SB_KERNEL))) {
			ps->kernels++;
			ps->kernel_ps += xp_dur(l, i);
			add_kernel_name(ns, xp_event_name(p, l, i));
		}
		if (!l->derived && (ev & SB_DEVICE_OP))
			ps->device_ops++;
		if (!l->derived && (f & MF_MEMCPY))
			ps->memcpys++;
		return;
	}
	ps->mem_alloc += !!(f & MF_ALLOC);
	ps->mem_dealloc += !!(f & MF_DEALLOC);
	ps->tfdata += !!(f & MF_ITER);
	ps->host_ops += !!(f & MF_TFOP);
	ps->launches += !!(ev & SB_CORR);
	if ((f & (MF_ROOT_NAME | MF_ROOT_META)) || (ev & SB_ROOT))
		ps->step_roots++;
}


static void classify_plane(const struct xp_capture *c, const struct xp_plane *p, struct plane_class *pc,
			   struct plane_survey *ps, struct host_survey *hs)
{
	memset(ps, 0, sizeof *ps);
	pc->mf = xcalloc(p->n_emeta ? p->n_emeta : 1, sizeof *pc->mf);
	struct stat_ids ids = find_stat_ids(c, p);
	pc->role = stat_roles(p, &ids);
	for (uint32_t m = 1; m < p->n_emeta; m++) {
		unsigned *f = &pc->mf[m];
		*f = classify_name(xp_str(c, p->emeta[m].name));
		unsigned mv = view_roles(xp_meta_stats(p, m), pc->role, p->n_smeta);
		*f |= (mv & SB_KERNEL ? MF_KERNEL_META : 0) | (mv & SB_ROOT ? MF_ROOT_META : 0);
	}
	hs->level0 |= ids.level0 != 0;
	struct xp_value v;
	if (xp_view_find(c, xp_plane_stats(p), ids.dropped, &v))
		xp_value_int(&v, (int64_t *)&ps->dropped);
	for (uint32_t k = 0; k < p->n_lines; k++)
		ps->events += p->lines[k].n_events;
}

/* Events [FIRST, END) of line K of plane P. */
static void survey_events(const struct xp_capture *c, const struct xp_plane *p, const struct plane_class *pc,
			  uint32_t k, uint64_t first, uint64_t end, struct plane_survey *ps, struct name_set *ns)
{
	const struct xp_line *l = &p->lines[k];
	bool steps_line = l->derived && !strcmp(xp_str(c, l->name), "Steps");
	for (uint64_t i = first; i < end; i++) {
		int64_t s = l->start_ps[i], e = xp_event_end(l, i);
		if (!ps->any_time || s < ps->first_ps)
			ps->first_ps = s;
		if (!ps->any_time || e > ps->last_ps)
			ps->last_ps = e;
		ps->any_time = true;
		if (steps_line)
			ps->steps_line_events++;
		survey_event(p, l, i, pc, ps, ns);
	}
}

static void add_survey(struct plane_survey *t, const struct plane_survey *p)
{
	if (p->any_time) {
		if (!t->any_time || p->first_ps < t->first_ps)
			t->first_ps = p->first_ps;
		if (!t->any_time || p->last_ps > t->last_ps)
			t->last_ps = p->last_ps;
		t->any_time = true;
	}
	t->events += p->events;
	t->kernels += p->kernels;
	t->kernel_ps += p->kernel_ps;
	t->device_ops += p->device_ops;
	t->memcpys += p->memcpys;
	t->mem_alloc += p->mem_alloc;
	t->mem_dealloc += p->mem_dealloc;
	t->tfdata += p->tfdata;
	t->host_ops += p->host_ops;
	t->launches += p->launches;
	t->step_roots += p->step_roots;
	t->steps_line_events += p->steps_line_events;
	t->dropped += p->dropped;
}

/* --- tables ----------------------------------------------------------------- */

static const char *era_name(const struct xp_host *h, const struct host_survey *hs)
{
	if (h->format == XP_FMT_TRACE_JSON)
		return "trace JSON";
	if (h->pre_grouped)
		return "pre-grouped (TF 2.3-2.10)";
	if (hs->task_env)
		return "raw (2024 or later)";
	return "raw (TF 2.11+ / JAX)";
}

enum {
	HO_HOST, HO_FILE, HO_FMT, HO_COMP, HO_FB, HO_DB, HO_PROD, HO_ERA, HO_GRP, HO_PL, HO_LI, HO_EV, HO_SPAN, HO_K,
	HO_KD, HO_KT, HO_MA, HO_MD, HO_ER, HO_WA
};
static const struct xp_col_def hosts_cols[] = {
	[HO_HOST] = {"host", "Host", XP_T_STR},
	[HO_FILE] = {"file", "File", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_FMT] = {"format", "Format", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_COMP] = {"compression", "Compression", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_FB] = {"file_bytes", "File", XP_T_BYTES},
	[HO_DB] = {"decoded_bytes", "Decoded", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_PROD] = {"producer", "Producer", XP_T_STR},
	[HO_ERA] = {"era", "Era", XP_T_STR},
	[HO_GRP] = {"pre_grouped", "Grouped", XP_T_BOOL, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_PL] = {"planes", "Planes", XP_T_INT},
	[HO_LI] = {"lines", "Lines", XP_T_INT},
	[HO_EV] = {"events", "Events", XP_T_INT},
	[HO_SPAN] = {"span_ms", "Span", XP_T_DUR, XP_U_MS},
	[HO_K] = {"kernels", "Kernels", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_KD] = {"distinct_kernels", "Distinct kernels", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_KT] = {"kernel_time_ps", "Kernel time", XP_T_DUR, XP_U_PS, XP_COL_TEXT_HIDDEN},
	[HO_MA] = {"memory_allocations", "Allocations", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_MD] = {"memory_deallocations", "Deallocations", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_ER] = {"capture_errors", "Errors", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HO_WA] = {"capture_warnings", "Warnings", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

static void hosts_table(struct xp_result *r, const struct xp_capture *c, struct host_survey *hs)
{
	struct xp_table *t = xp_result_add_table(r, "hosts", "Hosts");
	xp_table_cols(t, XP_COLS(hosts_cols));
	for (uint32_t i = 0; i < c->n_hosts; i++) {
		const struct xp_host *h = &c->hosts[i];
		size_t row = xp_table_row(t);
		xp_set_str(t, row, HO_HOST, h->name);
		xp_set_str(t, row, HO_FILE, h->path);
		xp_set_str(t, row, HO_FMT, h->format == XP_FMT_TRACE_JSON ? "trace-json" : "xspace");
		xp_set_str(t, row, HO_COMP, h->compression == XP_COMP_GZIP ? "gzip" : h->compression == XP_COMP_ZSTD ? "zstd" : "none");
		xp_set_bytes(t, row, HO_FB, (int64_t)h->file_bytes);
		xp_set_bytes(t, row, HO_DB, (int64_t)h->decoded_bytes);
		xp_set_str(t, row, HO_PROD, hs[i].producer);
		xp_set_str(t, row, HO_ERA, era_name(h, &hs[i]));
		xp_set_bool(t, row, HO_GRP, h->pre_grouped);
		xp_set_int(t, row, HO_PL, h->n_planes);
		xp_set_int(t, row, HO_LI, (int64_t)hs[i].lines);
		xp_set_int(t, row, HO_EV, (int64_t)hs[i].total.events);
		if (hs[i].total.any_time)
			xp_set_dur(t, row, HO_SPAN, xp_sat_sub(hs[i].total.last_ps, hs[i].total.first_ps));
		xp_set_int(t, row, HO_K, (int64_t)hs[i].total.kernels);
		xp_set_int(t, row, HO_KD, (int64_t)hs[i].n_kernel_names);
		xp_set_dur(t, row, HO_KT, hs[i].total.kernel_ps);
		xp_set_int(t, row, HO_MA, (int64_t)hs[i].total.mem_alloc);
		xp_set_int(t, row, HO_MD, (int64_t)hs[i].total.mem_dealloc);
		xp_set_int(t, row, HO_ER, h->n_errors);
		xp_set_int(t, row, HO_WA, h->n_warnings);
	}
}

enum {
	PL_HOST, PL_NAME, PL_ID, PL_KIND, PL_LI, PL_EV, PL_EM, PL_SM, PL_FIRST, PL_SPAN, PL_K, PL_MEM
};
static const struct xp_col_def planes_cols[] = {
	[PL_HOST] = {"host", "Host", XP_T_STR},
	[PL_NAME] = {"plane", "Plane", XP_T_STR},
	[PL_ID] = {"plane_id", "Id", XP_T_ID},
	[PL_KIND] = {"kind", "Kind", XP_T_STR},
	[PL_LI] = {"lines", "Lines", XP_T_INT},
	[PL_EV] = {"events", "Events", XP_T_INT},
	[PL_EM] = {"event_metadata", "Event names", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[PL_SM] = {"stat_metadata", "Stat names", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[PL_FIRST] = {"first_ps", "First", XP_T_DUR, XP_U_PS, XP_COL_TEXT_HIDDEN},
	[PL_SPAN] = {"span_ms", "Span", XP_T_DUR, XP_U_MS},
	[PL_K] = {"kernels", "Kernels", XP_T_INT},
	[PL_MEM] = {"memory_events", "Memory events", XP_T_INT},
};

static void planes_table(struct xp_result *r, const struct xp_capture *c, struct plane_survey **ps)
{
	struct xp_table *t = xp_result_add_table(r, "planes", "Planes");
	xp_table_cols(t, XP_COLS(planes_cols));
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_host *host = &c->hosts[h];
		for (uint32_t i = 0; i < host->n_planes; i++) {
			const struct xp_plane *p = &host->planes[i];
			const struct plane_survey *s = &ps[h][i];
			size_t row = xp_table_row(t);
			xp_set_str(t, row, PL_HOST, host->name);
			xp_set_str(t, row, PL_NAME, xp_str(c, p->name));
			xp_set_id(t, row, PL_ID, p->id);
			xp_set_str(t, row, PL_KIND, xp_plane_kind_name(p->kind));
			xp_set_int(t, row, PL_LI, p->n_lines);
			xp_set_int(t, row, PL_EV, (int64_t)s->events);
			xp_set_int(t, row, PL_EM, p->n_emeta ? p->n_emeta - 1 : 0);
			xp_set_int(t, row, PL_SM, p->n_smeta ? p->n_smeta - 1 : 0);
			if (s->any_time) {
				xp_set_dur(t, row, PL_FIRST, s->first_ps);
				xp_set_dur(t, row, PL_SPAN, xp_sat_sub(s->last_ps, s->first_ps));
			}
			xp_set_int(t, row, PL_K, (int64_t)s->kernels);
			xp_set_int(t, row, PL_MEM, (int64_t)(s->mem_alloc + s->mem_dealloc));
		}
	}
}

enum {
	LN_HOST, LN_PLANE, LN_ID, LN_NAME, LN_DER, LN_EV, LN_ST, LN_TS
};
static const struct xp_col_def lines_cols[] = {
	[LN_HOST] = {"host", "Host", XP_T_STR},
	[LN_PLANE] = {"plane", "Plane", XP_T_STR},
	[LN_ID] = {"line_id", "Id", XP_T_ID},
	[LN_NAME] = {"line", "Line", XP_T_STR},
	[LN_DER] = {"derived", "Derived", XP_T_BOOL},
	[LN_EV] = {"events", "Events", XP_T_INT},
	[LN_ST] = {"stats", "Stats", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[LN_TS] = {"timestamp_ns", "Timestamp", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

static void lines_table(struct xp_result *r, const struct xp_capture *c)
{
	struct xp_table *t = xp_result_add_table(r, "lines", "Lines");
	xp_table_cols(t, XP_COLS(lines_cols));
	for (uint32_t h = 0; h < c->n_hosts; h++)
		for (uint32_t i = 0; i < c->hosts[h].n_planes; i++) {
			const struct xp_plane *p = &c->hosts[h].planes[i];
			for (uint32_t k = 0; k < p->n_lines; k++) {
				const struct xp_line *l = &p->lines[k];
				size_t row = xp_table_row(t);
				xp_set_str(t, row, LN_HOST, c->hosts[h].name);
				xp_set_str(t, row, LN_PLANE, xp_str(c, p->name));
				xp_set_id(t, row, LN_ID, l->id);
				xp_set_str(t, row, LN_NAME, xp_str(c, l->name));
				xp_set_bool(t, row, LN_DER, l->derived);
				xp_set_int(t, row, LN_EV, (int64_t)l->n_events);
				xp_set_int(t, row, LN_ST, (int64_t)l->n_stats);
				xp_set_int(t, row, LN_TS, l->timestamp_ns);
			}
		}
}

/* GPU model name from compute capability (spec analyzers §1.9). */
static const char *nvidia_arch(int64_t major, int64_t minor)
{
	switch (major) {
	case 2: return "Fermi";
	case 3: return "Kepler";
	case 5: return "Maxwell";
	case 6: return "Pascal";
	case 7: return minor < 5 ? "Volta" : "Turing";
	case 8: return minor == 9 ? "Ada Lovelace" : "Ampere";
	case 9: return "Hopper";
	case 10: return "Blackwell";
	default: return "";
	}
}

static bool plane_int(const struct xp_capture *c, const struct xp_plane *p, const char *name, int64_t *out)
{
	struct xp_value v;
	return xp_view_find(c, xp_plane_stats(p), xp_plane_stat_id(c, p, name), &v) && xp_value_int(&v, out);
}

/* Text of a string plane stat (blob strings are not NUL-terminated). */
static const char *plane_text(const struct xp_capture *c, const struct xp_plane *p, const char *name, uint32_t *len)
{
	struct xp_value v;
	if (xp_view_find(c, xp_plane_stats(p), xp_plane_stat_id(c, p, name), &v) &&
	    (v.kind == XP_STAT_STR || v.kind == XP_STAT_BLOBSTR)) {
		*len = v.len;
		return v.s;
	}
	return NULL;
}

struct device_cols {
	size_t host, device, vendor, model, arch, cc, cores, mem, clock, bw, events, kernels;
};

static void device_row(struct xp_table *t, const struct device_cols *dc, const struct xp_capture *c,
		       const struct xp_host *h, const struct xp_plane *p, const struct plane_survey *s)
{
	size_t row = xp_table_row(t);
	int64_t v, major = -1, minor = -1;
	xp_set_str(t, row, dc->host, h->name);
	xp_set_str(t, row, dc->device, xp_str(c, p->name));
	uint32_t vlen = 0, mlen = 0;
	const char *vendor = plane_text(c, p, "device_vendor", &vlen);
	const char *model = plane_text(c, p, "gpu_device_name", &mlen);
	if (!model)
		model = plane_text(c, p, "device_type_string", &mlen);
	if (vendor)
		xp_set_strn(t, row, dc->vendor, vendor, vlen);
	if (model)
		xp_set_strn(t, row, dc->model, model, mlen);
	if (plane_int(c, p, "compute_cap_major", &major) && plane_int(c, p, "compute_cap_minor", &minor)) {
		char cc[48];
		snprintf(cc, sizeof cc, "%" PRId64 ".%" PRId64, major, minor);
		xp_set_str(t, row, dc->cc, cc);
		if (!vendor || (vlen == 6 && !memcmp(vendor, "Nvidia", 6)))
			xp_set_str(t, row, dc->arch, nvidia_arch(major, minor));
	}
	if (plane_int(c, p, "core_count", &v))
		xp_set_int(t, row, dc->cores, v);
	if (plane_int(c, p, "memory_size", &v))
		xp_set_bytes(t, row, dc->mem, v);
	if (plane_int(c, p, "clock_rate", &v))
		xp_set_int(t, row, dc->clock, v / 1000);
	if (plane_int(c, p, "memory_bandwidth", &v))
		xp_set_int(t, row, dc->bw, v);
	xp_set_int(t, row, dc->events, (int64_t)s->events);
	xp_set_int(t, row, dc->kernels, (int64_t)s->kernels);
}

enum {
	DEV_HOST, DEV_DEVICE, DEV_VENDOR, DEV_MODEL, DEV_ARCH, DEV_CC, DEV_CORES, DEV_MEM, DEV_CLOCK, DEV_BW,
	DEV_EVENTS, DEV_KERNELS
};
static const struct xp_col_def device_cols[] = {
	[DEV_HOST] = {"host", "Host", XP_T_STR},
	[DEV_DEVICE] = {"device", "Device", XP_T_STR},
	[DEV_VENDOR] = {"vendor", "Vendor", XP_T_STR},
	[DEV_MODEL] = {"model", "Model", XP_T_STR},
	[DEV_ARCH] = {"architecture", "Arch", XP_T_STR},
	[DEV_CC] = {"compute_capability", "CC", XP_T_STR},
	[DEV_CORES] = {"core_count", "SMs/CUs", XP_T_INT},
	[DEV_MEM] = {"memory_bytes", "Memory", XP_T_BYTES},
	[DEV_CLOCK] = {"clock_mhz", "Clock MHz", XP_T_INT},
	[DEV_BW] = {"memory_bandwidth_bytes_per_s", "Mem B/s", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[DEV_EVENTS] = {"events", "Events", XP_T_INT},
	[DEV_KERNELS] = {"kernels", "Kernels", XP_T_INT},
};
static const struct device_cols device_cols_idx = {
	.host = DEV_HOST, .device = DEV_DEVICE, .vendor = DEV_VENDOR, .model = DEV_MODEL, .arch = DEV_ARCH,
	.cc = DEV_CC, .cores = DEV_CORES, .mem = DEV_MEM, .clock = DEV_CLOCK, .bw = DEV_BW,
	.events = DEV_EVENTS, .kernels = DEV_KERNELS
};

static void devices_table(struct xp_result *r, const struct xp_capture *c, struct plane_survey **ps)
{
	struct xp_table *t = xp_result_add_table(r, "devices", "Devices");
	xp_table_cols(t, XP_COLS(device_cols));
	for (uint32_t h = 0; h < c->n_hosts; h++)
		for (uint32_t i = 0; i < c->hosts[h].n_planes; i++) {
			const struct xp_plane *p = &c->hosts[h].planes[i];
			if (p->kind == XP_PLANE_GPU || p->kind == XP_PLANE_TPU)
				device_row(t, &device_cols_idx, c, &c->hosts[h], p, &ps[h][i]);
		}
}

/* The analyses table's columns. */
enum { AN_HOST, AN_ANALYSIS, AN_AVAILABLE, AN_DETAIL };
static const struct xp_col_def analysis_cols[] = {
	[AN_HOST] = {"host", "Host", XP_T_STR},
	[AN_ANALYSIS] = {"analysis", "Analysis", XP_T_STR},
	[AN_AVAILABLE] = {"available", "Data", XP_T_BOOL},
	[AN_DETAIL] = {"detail", "Detail", XP_T_STR},
};

static void analysis_row(struct xp_table *t, const char *host, const char *name,
			 bool ok, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void analysis_row(struct xp_table *t, const char *host, const char *name,
			 bool ok, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t row = xp_table_row(t);
	xp_set_str(t, row, AN_HOST, host);
	xp_set_str(t, row, AN_ANALYSIS, name);
	xp_set_bool(t, row, AN_AVAILABLE, ok);
	xp_set_str(t, row, AN_DETAIL, buf);
}

static bool has_step_markers(const struct host_survey *hs)
{
	return hs->total.step_roots > 0 || hs->total.steps_line_events > 0;
}

/* What the hlo row says: XLA device events, those resolved to an instruction, ambiguously, and the HLO protos that
 * did not decode. */
struct hlo_counts {
	uint64_t events, resolved, ambiguous, bad;
	const char *problem;
};

static bool any_hlo_op_stat(const struct xp_capture *c, const struct xp_host *h)
{
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (h->planes[i].kind == XP_PLANE_GPU && xp_plane_stat_id(c, &h->planes[i], "hlo_op"))
			return true;
	return false;
}

static void hlo_row_of(struct xp_result *r, struct xp_table *t, const char *host, const struct hlo_counts *k)
{
	if (!k->events && !k->bad)
		return;
	analysis_row(t, host, "hlo", k->resolved > 0,
		     "%" PRIu64 " of %" PRIu64 " XLA device events resolved to an HLO instruction (%.1f%%)", k->resolved,
		     k->events, k->events ? 100.0 * (double)k->resolved / (double)k->events : 0.0);
	xp_hlo_diagnostics(r, k->bad, k->problem, k->events, k->resolved, k->ambiguous);
}

/* XLA device events resolved to an instruction of the host's HLO protos (hosts with XLA ops only). A host whose GPU
 * planes name no hlo_op stat has no XLA event: its HLO protos alone are read, not its device op rows (an op and
 * kernel pair per row, millions of events to look up on a TensorFlow GPU capture). */
static void hlo_row(struct xp_result *r, struct xp_table *t, const struct xp_capture *c, uint32_t h)
{
	const struct xp_host *host = &c->hosts[h];
	if (!any_hlo_op_stat(c, host)) {
		struct xp_hlo_db *hlo = xp_hlo_db_build(c, host);
		struct hlo_counts k = {.bad = hlo->n_bad, .problem = hlo->n_bad ? hlo->first_bad : NULL};
		hlo_row_of(r, t, host->name, &k);
		xp_hlo_db_free(hlo);
		return;
	}
	struct xp_op_db *db = xp_op_db_device(c, host, NULL);
	struct hlo_counts k = {db->n_xla_events, db->n_xla_resolved, db->n_xla_ambiguous, db->n_hlo_bad, db->hlo_problem};
	hlo_row_of(r, t, host->name, &k);
	xp_op_db_free(db);
}

/* The diagnostics of one host: those of its hlo row (made with the analyses table, before every host's checks),
 * and its checks. */
struct diag_spans {
	size_t hlo_from, hlo_to, checks_from, checks_to;
};

static void analyses_table(struct xp_result *r, const struct xp_capture *c, const struct host_survey *hs,
			   struct diag_spans *spans)
{
	struct xp_table *t = xp_result_add_table(r, "analyses", "Analyses with data");
	xp_table_cols(t, XP_COLS(analysis_cols));
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const char *host = c->hosts[h].name;
		const struct plane_survey *s = &hs[h].total;
		analysis_row(t, host, "steps", has_step_markers(&hs[h]),
			     "%" PRIu64 " step root events, %" PRIu64 " Steps-line events", s->step_roots,
			     s->steps_line_events);
		analysis_row(t, host, "device_ops", s->device_ops > 0,
			     "%" PRIu64 " device events with an op annotation", s->device_ops);
		analysis_row(t, host, "kernels", s->kernels > 0, "%" PRIu64 " kernels, %zu distinct names",
			     s->kernels, hs[h].n_kernel_names);
		analysis_row(t, host, "host_ops", s->host_ops > 0, "%" PRIu64 " host TF-op events", s->host_ops);
		analysis_row(t, host, "memory", s->mem_alloc + s->mem_dealloc > 0,
			     "%" PRIu64 " allocations, %" PRIu64 " deallocations", s->mem_alloc, s->mem_dealloc);
		analysis_row(t, host, "tf_data", s->tfdata > 0, "%" PRIu64 " tf.data iterator events", s->tfdata);
		spans[h].hlo_from = r->n_diags;
		hlo_row(r, t, c, h);
		spans[h].hlo_to = r->n_diags;
	}
}

/* --- completeness report ------------------------------------------------- */

static void capture_messages(struct xp_result *r, const struct xp_capture *c, const struct xp_host *h)
{
	for (uint32_t i = 0; i < h->n_errors; i++)
		xp_result_diag(r, XP_SEV_ERROR, "capture_error", h->name,
			       "the profiler reported this while capturing; the analyses may miss data",
			       "capture error: %s", xp_str(c, h->errors[i]));
	for (uint32_t i = 0; i < h->n_warnings; i++) {
		const char *w = xp_str(c, h->warnings[i]);
		bool dropped = strstr(w, "dropped") || strstr(w, "Dropped");
		xp_result_diag(r, XP_SEV_WARNING, dropped ? "dropped_events" : "capture_warning", h->name,
			       dropped ? "profile a shorter window or fewer steps so the tracer buffers do not overflow"
				       : "the profiler reported this while capturing",
			       "capture warning: %s", w);
	}
}

static void device_checks(struct xp_result *r, const struct xp_host *h, const struct host_survey *hs)
{
	if (!hs->gpu_planes && !hs->tpu_planes) {
		xp_result_diag(r, XP_SEV_INFO, "no_device", h->name,
			       "if the job ran on a GPU, check that CUPTI (libcupti) was found when profiling",
			       "no GPU or TPU plane: a CPU-only capture");
		return;
	}
	if (hs->gpu_planes && !hs->gpu_active)
		xp_result_diag(r, XP_SEV_WARNING, "no_device_events", h->name,
			       "check that CUPTI was loaded (LD_LIBRARY_PATH) and that the profiled window ran GPU work",
			       "%u GPU planes but none has events", hs->gpu_planes);
	else if (hs->gpu_planes > hs->gpu_active)
		xp_result_diag(r, XP_SEV_INFO, "idle_devices", h->name, NULL,
			       "%u of %u GPU planes have events; the others hold only device properties", hs->gpu_active,
			       hs->gpu_planes);
	if (hs->gpu_planes && hs->total.launches && !hs->total.kernels)
		xp_result_diag(r, XP_SEV_WARNING, "missing_cupti_activity", h->name,
			       "kernel launches were seen on the host but no kernels on the device: CUPTI activity records were lost",
			       "%" PRIu64 " host launch events but no device kernels", hs->total.launches);
	if (hs->tpu_planes)
		xp_result_diag(r, XP_SEV_INFO, "tpu_steps_unsupported", h->name,
			       "info works; the step analyses will say so plainly",
			       "TPU capture: the TPU step-time breakdown is not supported yet");
	if (hs->total.dropped)
		xp_result_diag(r, XP_SEV_WARNING, "dropped_events", h->name,
			       "profile a shorter window so the tracer buffers do not overflow",
			       "%" PRIu64 " trace events were dropped while capturing", hs->total.dropped);
}

static void step_checks(struct xp_result *r, const struct xp_host *h, const struct host_survey *hs)
{
	if (has_step_markers(hs) || hs->tpu_planes)
		return;
	xp_result_diag(r, XP_SEV_WARNING, "no_step_markers", h->name,
		       "wrap each training step in tf.profiler.experimental.Trace('train', step_num=i, _r=1) (TF) or "
		       "jax.profiler.StepTraceAnnotation('train', step_num=i) (JAX)",
		       "no step markers: no event with _r, no TraceContext, no Steps line, no ProfilerStep#N");
}

static void odd_check(struct xp_result *r, const struct xp_host *h, uint64_t n, const char *code, const char *what)
{
	if (n)
		xp_result_diag(r, XP_SEV_INFO, code, h->name, NULL, "%" PRIu64 " %s", n, what);
}

static void odd_checks(struct xp_result *r, const struct xp_host *h)
{
	const struct xp_oddities *o = &h->odd;
	odd_check(r, h, o->missing_event_meta, "missing_event_metadata", "events whose metadata id has no entry (shown with an empty name)");
	odd_check(r, h, o->missing_stat_meta, "missing_stat_metadata", "stats whose metadata id has no entry");
	odd_check(r, h, o->dangling_ref, "dangling_ref_value", "string stats pointing at no metadata entry (read as empty)");
	odd_check(r, h, o->invalid_utf8, "invalid_utf8", "names with invalid UTF-8 (escaped on output)");
	odd_check(r, h, o->negative_durations, "negative_durations", "events with a negative duration (read as 0)");
	odd_check(r, h, o->unsorted_lines, "unsorted_lines", "lines whose events are not in start order");
	odd_check(r, h, o->duplicate_planes, "duplicate_planes", "planes sharing a name with an earlier plane");
	odd_check(r, h, o->duplicate_lines, "duplicate_lines", "lines sharing an id with another line of their plane");
	odd_check(r, h, o->time_overflow_lines, "time_overflow", "lines whose times overflow 64-bit picoseconds (kept relative to the line)");
	odd_check(r, h, o->unknown_fields, "unknown_fields", "unknown protobuf fields (skipped)");
	odd_check(r, h, o->aggregated_events, "aggregated_events", "aggregated events without a time (num_occurrences)");
	odd_check(r, h, o->pid_suffixed_planes, "pid_suffixed_planes", "planes with a \" [pid]\" suffix (merged sub-processes)");
	odd_check(r, h, o->value_not_set, "value_not_set", "stats without a value");
}

/* What a trace JSON file held, and whether an exporter cut it off. */
static void trace_json_checks(struct xp_result *r, const struct xp_host *h)
{
	const struct xp_json_counts *j = &h->json;
	xp_result_diag(r, XP_SEV_INFO, "trace_json_contents", h->name,
		       "flow events and other phases are not kept as events; metadata names the planes and lines",
		       "%" PRIu64 " traceEvents entries: %" PRIu64 " complete, %" PRIu64 " begin, %" PRIu64 " end, %" PRIu64
		       " instant, %" PRIu64 " counter, %" PRIu64 " async, %" PRIu64 " metadata, %" PRIu64 " flow, %" PRIu64
		       " empty, %" PRIu64 " other",
		       j->entries, j->complete, j->begin, j->end, j->instant, j->counter, j->async, j->metadata, j->flow,
		       j->empty, j->other);
	if (j->truncated)
		xp_result_diag(r, XP_SEV_WARNING, "truncated_trace", h->name,
			       "prefer the .xplane.pb next to it, which holds every event",
			       "%" PRIu64 " complete events, exactly the trace exporter's cap (1,000,000 in TF 2.3, "
			       "5,000,000 later): the trace was probably cut off and later events are missing",
			       j->complete);
	odd_check(r, h, j->zero_dur_kernels, "zero_duration_kernels",
		  xp_host_is_pytorch(h) ? "kernel events with dur 0 (shorter than the trace's time resolution; counted "
					  "with 0 s, as the PyTorch profiler counts them)"
					: "kernel events with dur 0 (shorter than the trace's time resolution; kernel "
					  "analyses skip them)");
	odd_check(r, h, j->unmatched_begin, "unmatched_begin_events",
		  "begin events (B, b) without their end (kept with duration 0)");
	odd_check(r, h, j->unmatched_end, "unmatched_end_events", "end events (E, e) without a begin (dropped)");
}

/* --- summary ------------------------------------------------------------------ */

/* What the summary adds up of one host (combine reads them back from each report's state). */
struct host_sums {
	uint64_t events, kernels, mem;
	uint32_t planes, gpus;
	bool any_time, steps;
	int64_t first_ps, last_ps;
	const char *producer;
};

static struct host_sums sums_of(const struct xp_host *h, const struct host_survey *hs)
{
	return (struct host_sums){
		.events = hs->total.events, .kernels = hs->total.kernels,
		.mem = hs->total.mem_alloc + hs->total.mem_dealloc, .planes = h->n_planes, .gpus = hs->gpu_active,
		.any_time = hs->total.any_time, .steps = has_step_markers(hs), /* as the analyses table's steps row says, TPU included */
		.first_ps = hs->total.first_ps, .last_ps = hs->total.last_ps, .producer = hs->producer,
	};
}

static void summarize(struct xp_result *r, uint32_t n_hosts, const struct host_sums *hs)
{
	uint64_t events = 0, kernels = 0, mem = 0;
	uint32_t planes = 0, gpus = 0;
	int64_t first = 0, last = 0;
	bool any = false, steps = true;
	for (uint32_t h = 0; h < n_hosts; h++) {
		events += hs[h].events;
		kernels += hs[h].kernels;
		mem += hs[h].mem;
		planes += hs[h].planes;
		gpus += hs[h].gpus;
		steps &= hs[h].steps;
		if (hs[h].any_time) {
			if (!any || hs[h].first_ps < first)
				first = hs[h].first_ps;
			if (!any || hs[h].last_ps > last)
				last = hs[h].last_ps;
			any = true;
		}
	}
	xp_sum_int(r, "hosts", "Hosts", n_hosts);
	xp_sum_int(r, "planes", "Planes", planes);
	xp_sum_int(r, "events", "Events", (int64_t)events);
	xp_sum_dur(r, "span_ms", "Time span", any ? xp_sat_sub(last, first) : 0, XP_U_MS);
	xp_sum_int(r, "active_gpus", "GPUs with events", gpus);
	xp_sum_int(r, "kernels", "Kernels", (int64_t)kernels);
	xp_sum_int(r, "memory_events", "Memory events", (int64_t)mem);
	xp_sum_bool(r, "step_markers", "Step markers", steps);
	const char *prod = n_hosts ? hs[0].producer : "unknown";
	for (uint32_t h = 1; h < n_hosts; h++)
		if (strcmp(prod, hs[h].producer))
			prod = "Mixed";
	xp_result_set_verdict(r, "%s capture: %u host%s, %u planes, %" PRIu64 " events, %u GPU%s with events%s",
			      prod, n_hosts, n_hosts == 1 ? "" : "s", planes, events, gpus, gpus == 1 ? "" : "s",
			      steps ? "" : ", no step markers");
}

/* --- the event pass, on several threads ------------------------------------------- */

/* Pieces of a host's events: the two long lines of a typical capture would keep one thread busy alone. */
#define CHUNK_EVENTS ((uint64_t)1 << 16)

struct chunk {
	uint32_t plane, line;
	uint64_t first, end;
};

struct survey_pool {
	const struct xp_capture *c;
	const struct xp_host *h;
	const struct plane_class *pc;
	const struct chunk *chunks;
	size_t n_chunks;
	atomic_size_t next;
};

/* One thread's sums: a survey per plane and its kernel names. */
struct survey_part {
	struct survey_pool *pool;
	struct plane_survey *ps;
	struct name_set names;
};

static void *survey_worker(void *arg)
{
	struct survey_part *part = arg;
	struct survey_pool *pl = part->pool;
	size_t j;
	while ((j = atomic_fetch_add(&pl->next, 1)) < pl->n_chunks) {
		const struct chunk *ch = &pl->chunks[j];
		survey_events(pl->c, &pl->h->planes[ch->plane], &pl->pc[ch->plane], ch->line, ch->first, ch->end,
			      &part->ps[ch->plane], &part->names);
	}
	return NULL;
}

static struct chunk *make_chunks(const struct xp_host *h, size_t *n)
{
	struct chunk *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (uint32_t p = 0; p < h->n_planes; p++)
		for (uint32_t k = 0; k < h->planes[p].n_lines; k++)
			for (uint64_t a = 0; a < h->planes[p].lines[k].n_events; a += CHUNK_EVENTS) {
				uint64_t b = h->planes[p].lines[k].n_events - a > CHUNK_EVENTS
						     ? a + CHUNK_EVENTS
						     : h->planes[p].lines[k].n_events;
				if (*n == cap) {
					cap = cap ? cap * 2 : 64;
					v = xrealloc(v, cap * sizeof *v);
				}
				v[(*n)++] = (struct chunk){p, k, a, b};
			}
	return v;
}

/* Every event of the host, on THREADS threads; the parts' sums are added up afterwards (the same
 * whatever the number of threads: sums, minima, maxima and a set of names). */
static void survey_all_events(const struct xp_capture *c, const struct xp_host *h, const struct plane_class *pc,
			      struct plane_survey *ps, struct host_survey *hs, int threads)
{
	size_t n_chunks;
	struct chunk *chunks = make_chunks(h, &n_chunks);
	struct survey_pool pool = {c, h, pc, chunks, n_chunks, 0};
	if (threads < 1)
		threads = 1;
	if ((size_t)threads > n_chunks)
		threads = n_chunks ? (int)n_chunks : 1;
	struct survey_part *parts = xcalloc((size_t)threads, sizeof *parts);
	pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
	for (int t = 0; t < threads; t++)
		parts[t] = (struct survey_part){&pool, xcalloc(h->n_planes ? h->n_planes : 1, sizeof *ps),
						{xcalloc((size_t)c->strings.n + 1, 1), 0}};
	/* A thread that cannot start leaves its chunks to the others. */
	int started = 0;
	while (started + 1 < threads && pthread_create(&tids[started + 1], NULL, survey_worker, &parts[started + 1]) == 0)
		started++;
	survey_worker(&parts[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);
	for (int t = 0; t < threads; t++) {
		for (uint32_t p = 0; p < h->n_planes; p++) {
			struct plane_survey part = parts[t].ps[p];
			part.events = part.dropped = 0; /* counted by classify_plane */
			add_survey(&ps[p], &part);
		}
		/* Most threads of most hosts met no kernel: skip the scan over every string id. */
		for (size_t s = 0; parts[t].names.n && s <= c->strings.n; s++)
			if (parts[t].names.seen[s] && !hs->kernel_seen[s]) {
				hs->kernel_seen[s] = 1;
				hs->n_kernel_names++;
			}
		free(parts[t].ps);
		free(parts[t].names.seen);
	}
	free(parts);
	free(tids);
	free(chunks);
}

/* A GPU plane whose name an earlier one with events has: the same GPU in another span of one worker
 * (PyTorch files joined into one host), counted once. */
static bool seen_gpu_name(const struct xp_host *h, uint32_t i, const struct plane_survey *ps)
{
	for (uint32_t j = 0; j < i; j++)
		if (h->format == XP_FMT_TRACE_JSON && h->planes[j].kind == XP_PLANE_GPU &&
		    h->planes[j].name == h->planes[i].name &&
		    (ps[j].events > 0 || !ps[i].events))
			return true;
	return false;
}

static void survey_host(const struct xp_capture *c, const struct xp_host *h, struct host_survey *hs,
			struct plane_survey *ps, int threads)
{
	memset(hs, 0, sizeof *hs);
	hs->kernel_seen = xcalloc((size_t)c->strings.n + 1, 1);
	struct plane_class *pc = xcalloc(h->n_planes ? h->n_planes : 1, sizeof *pc);
	hs->producer = xp_host_producer(c, h);
	bool zero_kernels = xp_host_is_pytorch(h);
	for (uint32_t i = 0; i < h->n_planes; i++) {
		classify_plane(c, &h->planes[i], &pc[i], &ps[i], hs);
		pc[i].zero_kernels = zero_kernels;
	}
	survey_all_events(c, h, pc, ps, hs, threads);
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		add_survey(&hs->total, &ps[i]);
		hs->lines += p->n_lines;
		bool again = seen_gpu_name(h, i, ps);
		hs->gpu_planes += p->kind == XP_PLANE_GPU && !again;
		hs->gpu_active += p->kind == XP_PLANE_GPU && ps[i].events > 0 && !again;
		hs->tpu_planes += p->kind == XP_PLANE_TPU;
		hs->task_env |= !strcmp(xp_str(c, p->base_name), "Task Environment");
		free(pc[i].mf);
		free(pc[i].role);
	}
	free(pc);
	free(hs->kernel_seen);
	hs->kernel_seen = NULL;
}

/* --- what combine rebuilds info from ---------------------------------------------------------------------- */

/*
 * Everything info says is per host but its summary, so a saved report keeps its rows as they are
 * (table_state.h): info_hosts, info_planes, info_devices and info_analyses (the tables, by their keys),
 * info_sums (what the summary adds up) and info_diags (each diagnostic, with the host it belongs to and
 * whether it is one of its checks or of its hlo row). Combine puts each host's rows in the run's host
 * order under the name the run gives it.
 */
static const char *const info_tables[][2] = {
	{"hosts", "info_hosts"}, {"planes", "info_planes"}, {"devices", "info_devices"}, {"analyses", "info_analyses"},
};
#define N_INFO_TABLES (sizeof info_tables / sizeof *info_tables)

enum { SU_HOST, SU_EVENTS, SU_KERNELS, SU_MEM, SU_PLANES, SU_GPUS, SU_ANY, SU_STEPS, SU_FIRST, SU_LAST, SU_PROD };
static const struct xp_col_def sums_cols[] = {
	[SU_HOST] = {"host", NULL, XP_T_STR}, [SU_EVENTS] = {"events", NULL, XP_T_UINT},
	[SU_KERNELS] = {"kernels", NULL, XP_T_UINT}, [SU_MEM] = {"memory_events", NULL, XP_T_UINT},
	[SU_PLANES] = {"planes", NULL, XP_T_INT}, [SU_GPUS] = {"active_gpus", NULL, XP_T_INT},
	[SU_ANY] = {"any_time", NULL, XP_T_BOOL}, [SU_STEPS] = {"step_markers", NULL, XP_T_BOOL},
	[SU_FIRST] = {"first_ps", NULL, XP_T_INT}, [SU_LAST] = {"last_ps", NULL, XP_T_INT},
	[SU_PROD] = {"producer", NULL, XP_T_STR},
};

enum { DG_HOST, DG_CHECK, DG_SEV, DG_CODE, DG_NAMES_HOST, DG_MSG, DG_HINT };
static const struct xp_col_def diag_cols[] = {
	[DG_HOST] = {"host", NULL, XP_T_STR}, [DG_CHECK] = {"check", NULL, XP_T_BOOL},
	[DG_SEV] = {"severity", NULL, XP_T_INT}, [DG_CODE] = {"code", NULL, XP_T_STR},
	[DG_NAMES_HOST] = {"names_host", NULL, XP_T_BOOL}, [DG_MSG] = {"message", NULL, XP_T_STR},
	[DG_HINT] = {"hint", NULL, XP_T_STR},
};

static void sums_row(struct xp_table *t, const char *host, const struct host_sums *s)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, SU_HOST, host);
	xp_set_uint(t, row, SU_EVENTS, s->events);
	xp_set_uint(t, row, SU_KERNELS, s->kernels);
	xp_set_uint(t, row, SU_MEM, s->mem);
	xp_set_int(t, row, SU_PLANES, s->planes);
	xp_set_int(t, row, SU_GPUS, s->gpus);
	xp_set_bool(t, row, SU_ANY, s->any_time);
	xp_set_bool(t, row, SU_STEPS, s->steps);
	xp_set_int(t, row, SU_FIRST, s->first_ps);
	xp_set_int(t, row, SU_LAST, s->last_ps);
	xp_set_str(t, row, SU_PROD, s->producer);
}

static void diag_rows(struct xp_table *t, const struct xp_result *r, const char *host, bool check, size_t from,
		      size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct xp_diag *d = &r->diags[i];
		size_t row = xp_table_row(t);
		xp_set_str(t, row, DG_HOST, host);
		xp_set_bool(t, row, DG_CHECK, check);
		xp_set_int(t, row, DG_SEV, d->severity);
		xp_set_str(t, row, DG_CODE, d->code);
		xp_set_bool(t, row, DG_NAMES_HOST, d->host != NULL);
		xp_set_str(t, row, DG_MSG, d->message);
		if (d->hint)
			xp_set_str(t, row, DG_HINT, d->hint);
	}
}

static void save_state(struct xp_result *state, const struct xp_result *r, const struct xp_capture *c,
		       const struct host_sums *sums, const struct diag_spans *spans)
{
	for (size_t k = 0; k < N_INFO_TABLES; k++) {
		const struct xp_table *t = xp_result_table(r, info_tables[k][0]);
		xp_state_keep_rows(state, info_tables[k][1], t, 0, t->n_rows);
	}
	struct xp_result *tmp = xp_result_new("state");
	struct xp_table *st = xp_result_add_table(tmp, "sums", NULL);
	struct xp_table *dt = xp_result_add_table(tmp, "diags", NULL);
	xp_table_cols(st, XP_COLS(sums_cols));
	xp_table_cols(dt, XP_COLS(diag_cols));
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		sums_row(st, c->hosts[h].name, &sums[h]);
		diag_rows(dt, r, c->hosts[h].name, false, spans[h].hlo_from, spans[h].hlo_to);
		diag_rows(dt, r, c->hosts[h].name, true, spans[h].checks_from, spans[h].checks_to);
	}
	xp_state_keep_rows(state, "info_sums", st, 0, st->n_rows);
	xp_state_keep_rows(state, "info_diags", dt, 0, dt->n_rows);
	xp_result_free(tmp);
}

/* --- the analysis ----------------------------------------------------------------------------------------- */

/* The checks of host H (its capture's messages, devices, steps, oddities). */
static void host_checks(struct xp_result *r, const struct xp_capture *c, const struct xp_host *h,
			const struct host_survey *hs)
{
	capture_messages(r, c, h);
	device_checks(r, h, hs);
	step_checks(r, h, hs);
	odd_checks(r, h);
	if (h->format == XP_FMT_TRACE_JSON)
		trace_json_checks(r, h);
}

/* The hosts table's file column: the path typed, or in a saved report the capture's name in its run
 * directory ("run/worker-0.xplane.pb"), as its provenance names it, so that a report of one host saved by a
 * job array task and a report of the whole run agree whatever path each was given. */
static void files_in_run(struct xp_result *r, const struct xp_capture *c)
{
	struct xp_table *t = xp_result_table(r, "hosts");
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		char *name = xp_path_in_run(c->hosts[h].path);
		xp_set_str(t, h, HO_FILE, name);
		free(name);
	}
}

/* IN_REPORT: as report shows it (captures named by the run, as its provenance names them); STATE: what
 * combine rebuilds the hosts from, kept there (NULL: none). */
static struct xp_result *info_of(const struct xp_capture *c, const struct xp_info_opts *o, bool in_report,
				 struct xp_result *state)
{
	struct xp_result *r = xp_result_new("info");
	uint32_t n = c->n_hosts ? c->n_hosts : 1;
	struct host_survey *hs = xcalloc(n, sizeof *hs);
	struct plane_survey **ps = xcalloc(n, sizeof *ps);
	struct host_sums *sums = xcalloc(n, sizeof *sums);
	struct diag_spans *spans = xcalloc(n, sizeof *spans);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		ps[h] = xcalloc(c->hosts[h].n_planes ? c->hosts[h].n_planes : 1, sizeof **ps);
		survey_host(c, &c->hosts[h], &hs[h], ps[h], o ? o->threads : 1);
		sums[h] = sums_of(&c->hosts[h], &hs[h]);
	}
	summarize(r, c->n_hosts, sums);
	hosts_table(r, c, hs);
	if (in_report)
		files_in_run(r, c);
	planes_table(r, c, ps);
	r->primary = r->n_tables - 1;
	devices_table(r, c, ps);
	analyses_table(r, c, hs, spans);
	if (o && o->lines)
		lines_table(r, c);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		spans[h].checks_from = r->n_diags;
		host_checks(r, c, &c->hosts[h], &hs[h]);
		spans[h].checks_to = r->n_diags;
	}
	if (state)
		save_state(state, r, c, sums, spans);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		free(ps[h]);
	free(hs);
	free(ps);
	free(sums);
	free(spans);
	return r;
}

struct xp_result *xp_analyze_info(const struct xp_capture *c, const struct xp_info_opts *o)
{
	return info_of(c, o, false, NULL);
}

static struct xp_result *run(const struct xp_run_in *in)
{
	struct xp_info_opts o = {0};
	if (in->opts)
		o = *(const struct xp_info_opts *)in->opts;
	return info_of(in->c, &o, !in->opts, in->opts ? NULL : in->state);
}

/* --- combine: the rows of each host's saved state, in the run's order ----------------------------------- */

static bool read_sums(const struct xp_table *t, size_t row, struct host_sums *s)
{
	const struct xp_cell *prod = xp_table_cell(t, row, SU_PROD);
	int64_t planes = xp_table_cell(t, row, SU_PLANES)->v.i, gpus = xp_table_cell(t, row, SU_GPUS)->v.i;
	*s = (struct host_sums){
		.events = xp_table_cell(t, row, SU_EVENTS)->v.u, .kernels = xp_table_cell(t, row, SU_KERNELS)->v.u,
		.mem = xp_table_cell(t, row, SU_MEM)->v.u, .planes = (uint32_t)planes, .gpus = (uint32_t)gpus,
		.any_time = xp_table_cell(t, row, SU_ANY)->v.b, .steps = xp_table_cell(t, row, SU_STEPS)->v.b,
		.first_ps = xp_table_cell(t, row, SU_FIRST)->v.i, .last_ps = xp_table_cell(t, row, SU_LAST)->v.i,
		.producer = prod->type == XP_T_STR ? prod->v.s : NULL,
	};
	for (size_t k = SU_EVENTS; k <= SU_LAST; k++)
		if (xp_table_cell(t, row, k)->type == XP_T_NULL)
			return false;
	return s->producer && planes >= 0 && planes <= UINT32_MAX && gpus >= 0 && gpus <= UINT32_MAX;
}

/* The diagnostics of the rows of T that are (or are not) checks, as the analysis made them. */
static bool put_diags(struct xp_result *r, const struct xp_table *t, bool checks, const char *host)
{
	for (size_t row = 0; row < t->n_rows; row++) {
		const struct xp_cell *c = xp_table_cell(t, row, DG_CHECK);
		const struct xp_cell *names_host = xp_table_cell(t, row, DG_NAMES_HOST);
		if (c->type != XP_T_BOOL || names_host->type != XP_T_BOOL ||
		    xp_table_cell(t, row, DG_SEV)->type != XP_T_INT)
			return false;
		if (c->v.b != checks)
			continue;
		int64_t sev = xp_table_cell(t, row, DG_SEV)->v.i;
		const struct xp_cell *code = xp_table_cell(t, row, DG_CODE), *msg = xp_table_cell(t, row, DG_MSG);
		const struct xp_cell *hint = xp_table_cell(t, row, DG_HINT);
		if (code->type != XP_T_STR || msg->type != XP_T_STR || sev < XP_SEV_INFO || sev > XP_SEV_ERROR)
			return false;
		xp_result_diag(r, (enum xp_severity)sev, code->v.s, xp_table_cell(t, row, DG_NAMES_HOST)->v.b ? host : NULL,
			       hint->type == XP_T_STR ? hint->v.s : NULL, "%s", msg->v.s);
	}
	return true;
}

struct host_state {
	struct xp_table *sums, *diags;      /* this host's rows, under its name in the run */
};

/* Host H's rows of every info table; false when its state does not read back. */
static bool restore_host(struct xp_result *r, struct xp_result *tmp, const struct xp_state_host *sh,
			 struct host_state *hst)
{
	const char *own = xp_state_host_name(sh->state, sh->row);
	if (!own)
		return false;
	long rows[N_INFO_TABLES];
	for (size_t k = 0; k < N_INFO_TABLES; k++)
		if ((rows[k] = xp_state_restore_rows(sh->state, info_tables[k][1], 0, own,
						     xp_result_table(r, info_tables[k][0]), sh->name)) < 0)
			return false;
	hst->sums = xp_result_add_table(tmp, "sums", NULL);
	hst->diags = xp_result_add_table(tmp, "diags", NULL);
	xp_table_cols(hst->sums, XP_COLS(sums_cols));
	xp_table_cols(hst->diags, XP_COLS(diag_cols));
	struct host_sums s;
	if (xp_state_restore_rows(sh->state, "info_sums", SU_HOST, own, hst->sums, sh->name) != 1 ||
	    !read_sums(hst->sums, 0, &s) || xp_state_restore_rows(sh->state, "info_diags", DG_HOST, own, hst->diags,
								 sh->name) < 0)
		return false;
	/* As info_of makes them: one hosts row, a planes row per plane, a device row at most per plane, six
	 * analyses rows and the hlo row when there are XLA events. */
	return rows[0] == 1 && rows[1] == s.planes && rows[2] <= rows[1] && rows[3] >= 6 && rows[3] <= 7;
}

/* The empty tables of the result, with their columns (as info_of adds them). */
static void empty_tables(struct xp_result *r)
{
	xp_table_cols(xp_result_add_table(r, "hosts", "Hosts"), XP_COLS(hosts_cols));
	xp_table_cols(xp_result_add_table(r, "planes", "Planes"), XP_COLS(planes_cols));
	r->primary = r->n_tables - 1;
	xp_table_cols(xp_result_add_table(r, "devices", "Devices"), XP_COLS(device_cols));
	xp_table_cols(xp_result_add_table(r, "analyses", "Analyses with data"), XP_COLS(analysis_cols));
}

static bool combine_hosts(struct xp_result *r, const struct xp_combine_in *in, struct host_sums *sums)
{
	uint32_t n = in->c->n_hosts;
	struct xp_result *tmp = xp_result_new("state");
	struct host_state *hst = xcalloc(n ? n : 1, sizeof *hst);
	uint32_t bad = n;
	for (uint32_t h = 0; h < n && bad == n; h++)
		if (!restore_host(r, tmp, &in->hosts[h], &hst[h]) || !read_sums(hst[h].sums, 0, &sums[h]))
			bad = h;
	/* Every host's hlo diagnostics, then every host's checks, as info_of makes them. */
	for (int checks = 0; checks < 2 && bad == n; checks++)
		for (uint32_t h = 0; h < n && bad == n; h++)
			if (!put_diags(r, hst[h].diags, checks, in->hosts[h].name))
				bad = h;
	if (bad == n)
		summarize(r, n, sums);
	else
		xp_err_set(in->err, XP_EXIT_BAD_INPUT, in->hosts[bad].path, "the info state of host %s does not read back: "
			   "not a report as this xpstat writes it", in->hosts[bad].name);
	xp_result_free(tmp);
	free(hst);
	return bad == n;
}

static struct xp_result *combine(const struct xp_combine_in *in)
{
	uint32_t n = in->c->n_hosts;
	struct xp_result *r = xp_result_new("info");
	struct host_sums *sums = xcalloc(n ? n : 1, sizeof *sums);
	empty_tables(r);
	if (!combine_hosts(r, in, sums)) {
		xp_result_free(r);
		r = NULL;
	}
	free(sums);
	return r;
}

static const char *const state_tables[] = {"info_hosts", "info_planes", "info_devices", "info_analyses", "info_sums",
					   "info_diags", NULL};
static const char *const reads[] = {XP_ALLOCATOR_STATS, XP_KERNEL_DETAIL_STATS, NULL};

const struct xp_analysis xp_analysis_info = {
	.name = "info",
	.needs = XP_NEEDS_CAPTURE,
	.reads = reads,
	.opts_size = sizeof(struct xp_info_opts),
	.run = run,
	.combine = combine,
	.state_tables = state_tables,
};
