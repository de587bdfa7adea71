/* tf_stats.c - TensorFlow Stats (spec analyzers §3): per-op total and self time on the devices and the hosts, as one table. */
#include "tf_stats.h"
#include "formats/core/hash.h"
#include "analyzers/db/hostdb.h"
#include "analyzers/db/kernel_db.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/perfenv.h"
#include "analyzers/db/steptime.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/hlodb.h"
#include "analyzers/db/pt_ops.h"
#include "analyzers/db/kernel_state.h"
#include "analyzers/db/opdb_state.h"
#include "analyzers/db/tfs_state.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One table, "tf_stats": the device rows (the TF-level device op DB, spec
 * §3.2-§3.3, every host's GPUs summed) then the host rows (the host op DB,
 * §3.1, every host summed), as the reference's single table with its
 * host_or_device column: one sheet that a spreadsheet filters by side.
 * Ranks run on from the device rows into the host rows, as in the
 * reference. Percentages are of the row's own side: self time over the
 * side's total time (with IDLE) or its op time (--no-idle); the cumulative
 * column sums them in the order shown. Filters pick rows but never change
 * these totals.
 */

/* --- the two sides ------------------------------------------------------------------------------ */

struct side {
	const char *label;          /* "Device" / "Host" */
	bool device;
	struct xp_op_db *db;
	int64_t total_ps;           /* the percentages' denominator */
	size_t n_ops;               /* rows other than IDLE */
	bool eager_known;
	const struct xp_op_row **rows;  /* shown, in order */
	size_t n_rows, n_matched;   /* shown; matching the filters before --top */
};

/* Kernel time by op (spec §4.5) for the Tensor Core column, indexed by (op, module). */
struct tc_index {
	struct xp_kernel_ops *ops;
	size_t cap;
	size_t *slot;               /* op index + 1 */
	uint64_t unattributed_kernels;
	int64_t unattributed_ps;
};

struct tfs {
	const struct xp_capture *c;
	const struct xp_tf_stats_opts *o;
	regex_t op_re, type_re;
	bool has_op_re, has_type_re;
	struct side dev, host;
	struct xp_perf_env env;
	struct tc_index tc;
	uint32_t gpus, tpu_planes;
	uint64_t xla_dropped;
	uint64_t xla_events, xla_resolved, xla_ambiguous, hlo_bad;
	char *hlo_problem;
	struct xp_op_db *hlo;       /* device-level rows: one per program and HLO instruction */
	size_t roofline_rows, flops_gap_rows;  /* device rows with a cost; of them, FLOPs not countable */
	struct xp_pt_op *pt;        /* PyTorch captures: the operators, every host summed by name */
	size_t n_pt;
	bool pt_mode;               /* a PyTorch capture: operators instead of TensorFlow ops */
	uint64_t pt_orphans;        /* device events launched for no operator */
	int64_t pt_orphan_ps;
	struct xp_tfs_host *facts;  /* each host's planes, PerfEnv and PyTorch operators (c->n_hosts) */
	struct xp_op_db **keep;     /* report: each host's device op DB, for the saved state; else NULL */
};

static bool opt_eq(const char *a, const char *b)
{
	return (!a || !b) ? a == b : !strcmp(a, b);
}

static size_t tc_pos(const struct tc_index *t, const char *op, const char *module)
{
	uint64_t h = xp_hash_str(xp_hash_str(XP_HASH_SEED, op), module);
	size_t i = (size_t)h & (t->cap - 1);
	while (t->slot[i]) {
		const struct xp_kernel_op *k = &t->ops->ops[t->slot[i] - 1];
		if (!strcmp(k->op_name, op) && opt_eq(k->module, module))
			break;
		i = (i + 1) & (t->cap - 1);
	}
	return i;
}

/* From OPS, the kernels' facts by op over every host (held by the index). */
static void tc_build(struct tfs *s, struct xp_kernel_ops *ops)
{
	struct tc_index *t = &s->tc;
	t->ops = ops;
	t->cap = 64;
	while (t->cap < t->ops->n * 2 + 2)
		t->cap *= 2;
	t->slot = xcalloc(t->cap, sizeof *t->slot);
	for (size_t i = 0; i < t->ops->n; i++) {
		const struct xp_kernel_op *k = &t->ops->ops[i];
		t->slot[tc_pos(t, k->op_name, k->module)] = i + 1;
		if (!k->op_name[0] && !k->module) {
			t->unattributed_kernels += k->occurrences;
			t->unattributed_ps += k->total_ps;
		}
	}
}

/* The kernels of a device row's op, or NULL (no kernels, or not a device op). */
static const struct xp_kernel_op *tc_find(const struct tc_index *t, const struct xp_op_row *r)
{
	if (!t->slot || r->kind == XP_OPK_IDLE)
		return NULL;
	const char *module = r->kind == XP_OPK_XLA ? (r->module ? r->module : "") : NULL;
	size_t i = tc_pos(t, r->name, module);
	return t->slot[i] ? &t->ops->ops[t->slot[i] - 1] : NULL;
}

static void tc_free(struct tc_index *t)
{
	xp_kernel_ops_free(t->ops);
	free(t->slot);
}

static bool any_gpu(const struct tfs *s)
{
	for (uint32_t h = 0; h < s->c->n_hosts; h++)
		if (s->facts[h].gpu)
			return true;
	return false;
}

/* A host's planes, its first GPU plane's PerfEnv and its PyTorch operators, from its capture. */
static void host_facts(const struct xp_capture *c, const struct xp_host *host, struct xp_tfs_host *f)
{
	for (uint32_t i = 0; i < host->n_planes; i++) {
		const struct xp_plane *p = &host->planes[i];
		f->tpu_planes += p->kind == XP_PLANE_TPU;
		if (p->kind == XP_PLANE_GPU && !f->gpu)
			xp_perf_env_plane(c, p, &f->env);
		f->gpu |= f->has_env |= p->kind == XP_PLANE_GPU;
	}
	if (!(f->pytorch = xp_host_is_pytorch(host)))
		return;
	struct xp_pt_ops *db = xp_pt_ops_build(c, host);
	f->pt = xcalloc(db->n ? db->n : 1, sizeof *f->pt);
	memcpy(f->pt, db->ops, db->n * sizeof *db->ops);
	f->n_pt = db->n;
	f->pt_orphans = db->orphan_events;
	f->pt_orphan_ps = db->orphan_ps;
	xp_pt_ops_free(db);
}

/* What the hosts' facts give the run: PerfEnv (the last host whose first GPU plane has a peak, as
 * xp_perf_env_capture picks), TPU planes, PyTorch. */
static void sum_facts(struct tfs *s)
{
	memset(&s->env, 0, sizeof s->env);
	for (uint32_t h = 0; h < s->c->n_hosts; h++) {
		const struct xp_tfs_host *f = &s->facts[h];
		if (f->has_env && f->env.peak_tflops > 0)
			s->env = f->env;
		s->tpu_planes += f->tpu_planes;
	}
}

/* The device side of ALL, every host's device op DB merged in host order; TF: its TF level, or NULL to make it. */
static void device_of(struct tfs *s, struct xp_op_db *all, struct xp_op_db *tf)
{
	s->gpus = all->n_planes;
	s->xla_dropped = all->n_dropped_xla;
	s->xla_events = all->n_xla_events;
	s->xla_resolved = all->n_xla_resolved;
	s->xla_ambiguous = all->n_xla_ambiguous;
	s->hlo_bad = all->n_hlo_bad;
	s->hlo_problem = all->hlo_problem ? strdup(all->hlo_problem) : NULL;
	s->dev.db = tf ? tf : xp_op_db_tf_level(all, !s->o->no_idle);
	s->hlo = all;   /* the HLO op rows, for the hlo_ops table */
	s->dev.total_ps = s->dev.db->total_time_ps;
	/* Device ops carry is_eager in TF 2.3-2.10 captures; without it, a kernel is eager when its host launch ran
	 * inside an eager EagerExecute (the launches of xp_eager_launches). */
	s->dev.eager_known = true;
}

/* Every host's device op DB, merged in host order: each kept whole for the state (report), else only their TF
 * level and the rows other than TF ops, without a device row per TF op and kernel. */
static void device_dbs(struct tfs *s, const struct xp_op_db_opts *oo)
{
	if (!s->keep) {
		struct xp_op_db *all;
		struct xp_op_db *tf = xp_op_db_tf_device_hosts(s->c, oo, !s->o->no_idle, &all);
		device_of(s, all, tf);
		return;
	}
	struct xp_op_db *all = xp_op_db_empty();
	/* Kept for the state, each host's stays whole: merged into ALL as a copy (xp_op_db_absorb would make the
	 * first host's database the sum). One host's is ALL itself. */
	bool apart = s->c->n_hosts > 1;
	for (uint32_t h = 0; h < s->c->n_hosts; h++) {
		struct xp_op_db *one = xp_op_db_device(s->c, &s->c->hosts[h], &oo[h]);
		if (apart) {
			xp_op_db_merge(all, one);
			s->keep[h] = one;
		} else {
			all = xp_op_db_absorb(all, one);
		}
	}
	if (s->c->n_hosts == 1)
		s->keep[0] = all;
	device_of(s, all, NULL);
}

/* The kernels' per-op facts of every host, made apart from the op databases (on a second thread where allowed). */
struct kernel_job {
	const struct xp_capture *c;
	struct xp_kernel_db_opts ko;
	struct xp_kernel_ops *ops;
	pthread_t tid;
	bool apart;
};

static void *kernel_ops_thread(void *arg)
{
	struct kernel_job *j = arg;
	j->ops = xp_kernel_ops_build(j->c, &j->ko);
	return NULL;
}

/* Alone, the kernels' facts are made first, so that their database and the op database are never held
 * together; with a second thread both are made at once, which costs the peak their sum. */
static void start_kernel_ops(struct tfs *s, struct kernel_job *j)
{
	*j = (struct kernel_job){.c = s->c, .ko = {.xprof_compat = s->o->xprof_compat}};
	if (!any_gpu(s))
		return;
	j->apart = s->o->threads > 1 && !pthread_create(&j->tid, NULL, kernel_ops_thread, j);
	if (!j->apart)
		kernel_ops_thread(j);
}

static void finish_kernel_ops(struct tfs *s, struct kernel_job *j)
{
	if (j->apart)
		pthread_join(j->tid, NULL);
	if (j->ops)
		tc_build(s, j->ops);
}

static void build_device(struct tfs *s)
{
	uint32_t n = s->c->n_hosts;
	struct xp_op_db_opts *oo = xcalloc(n ? n : 1, sizeof *oo);
	for (uint32_t h = 0; h < n; h++) {
		oo[h].xprof_compat = s->o->xprof_compat;
		oo[h].eager_launches = xp_eager_launches(s->c, &s->c->hosts[h], &oo[h].n_eager_launches);
	}
	device_dbs(s, oo);
	for (uint32_t h = 0; h < n; h++)
		free((int64_t *)oo[h].eager_launches);
	free(oo);
}

/* --- PyTorch captures: the operator database on both sides ----------------------------------------- */

static int cmp_pt_name(const void *x, const void *y)
{
	const struct xp_pt_op *a = x, *b = y;
	return (a->name > b->name) - (a->name < b->name);
}

/* Every PyTorch host's operators, summed by name (string ids are the capture's). */
static void pt_collect(struct tfs *s)
{
	for (uint32_t h = 0; h < s->c->n_hosts; h++) {
		const struct xp_tfs_host *f = &s->facts[h];
		if (!f->pytorch)
			continue;
		s->pt = xrealloc(s->pt, (s->n_pt + f->n_pt + 1) * sizeof *s->pt);
		memcpy(s->pt + s->n_pt, f->pt, f->n_pt * sizeof *f->pt);
		s->n_pt += f->n_pt;
		s->pt_orphans += f->pt_orphans;
		s->pt_orphan_ps += f->pt_orphan_ps;
	}
	if (s->n_pt > 1)
		qsort(s->pt, s->n_pt, sizeof *s->pt, cmp_pt_name);
	size_t w = 0;
	for (size_t i = 0; i < s->n_pt; i++) {
		struct xp_pt_op *o = w ? &s->pt[w - 1] : NULL, *x = &s->pt[i];
		if (!o || o->name != x->name) {
			s->pt[w++] = *x;
			continue;
		}
		o->calls += x->calls;
		o->host_total_ps = xp_sat_add(o->host_total_ps, x->host_total_ps);
		o->host_self_ps = xp_sat_add(o->host_self_ps, x->host_self_ps);
		o->dev_total_ps = xp_sat_add(o->dev_total_ps, x->dev_total_ps);
		o->dev_self_ps = xp_sat_add(o->dev_self_ps, x->dev_self_ps);
		o->tc_eligible |= x->tc_eligible;
	}
	s->n_pt = w;
}

/* The operators of every PyTorch host as op rows (xp_pt_op_db of the capture). */
static struct xp_op_db *pt_op_db(const struct tfs *s, bool device)
{
	struct xp_op_db *db = xp_op_db_empty();
	for (uint32_t h = 0; h < s->c->n_hosts; h++)
		if (s->facts[h].pytorch)
			xp_pt_op_rows(s->c, s->facts[h].pt, s->facts[h].n_pt, device, db);
	return db;
}

/* The device side of a PyTorch capture: the operators' device self time, and IDLE for the rest of the GPUs'
 * busy span (device work launched for no operator counts there too). */
static void pt_device(struct tfs *s, struct xp_op_db *spans)
{
	struct xp_op_db *db = pt_op_db(s, true);
	db->total_time_ps = spans->total_time_ps > db->total_op_time_ps ? spans->total_time_ps : db->total_op_time_ps;
	if (!s->o->no_idle) {
		bool created;
		size_t k = xp_op_db_row(db, XP_OPK_IDLE, NULL, "IDLE", &created);
		struct xp_op_row *r = &db->rows[k];
		if (!r->category)
			r->category = xp_op_db_text0(db, "IDLE");
		r->time_ps = r->self_ps = db->total_time_ps - db->total_op_time_ps;
	}
	xp_op_db_sort(db);
	xp_op_db_free(s->dev.db);
	s->dev.db = db;
	s->dev.total_ps = db->total_time_ps;
	s->dev.eager_known = false;
	s->tc.unattributed_kernels = 0;
}

static void pt_host(struct tfs *s)
{
	xp_op_db_free(s->host.db);
	s->host.db = pt_op_db(s, false);
	s->host.db->total_time_ps = s->host.db->total_op_time_ps;
	xp_op_db_sort(s->host.db);
	s->host.total_ps = s->host.db->total_op_time_ps;
	s->host.eager_known = false;
}

/* The host side's eager flags and percentages' total, once its database holds every host. */
static void host_of(struct tfs *s)
{
	s->host.eager_known = false;
	for (uint32_t h = 0; h < s->c->n_hosts; h++)
		s->host.eager_known |= s->facts[h].has_host_plane;
	s->host.total_ps = s->o->no_idle ? s->host.db->total_op_time_ps : s->host.db->total_time_ps;
}

static void build_host(struct tfs *s)
{
	s->host.db = xp_op_db_empty();
	for (uint32_t h = 0; h < s->c->n_hosts; h++) {
		struct xp_host_db_info info;
		struct xp_op_db *one = xp_op_db_host(s->c, &s->c->hosts[h], &info);
		s->host.db = xp_op_db_absorb(s->host.db, one);
		s->facts[h].has_host_plane = info.has_host_plane;
	}
	host_of(s);
}

/* --- choosing and ordering rows ------------------------------------------------------------------ */

static bool matches(const regex_t *re, bool on, const char *s)
{
	return !on || regexec(re, s ? s : "", 0, NULL, 0) == 0;
}

static int64_t stage_id(const struct xp_op_row *r)
{
	return r->kind == XP_OPK_STAGE && r->module ? strtoll(r->module, NULL, 10) : -1;
}

static int cmp_desc_i64(int64_t a, int64_t b)
{
	return a == b ? 0 : (a > b ? -1 : 1);
}

/* Average self time A > B, compared exactly as fractions (rows without occurrences average 0). */
static int cmp_avg_desc(const struct xp_op_row *a, const struct xp_op_row *b)
{
	__int128 an = a->occurrences ? a->self_ps : 0, ad = a->occurrences ? (__int128)a->occurrences : 1;
	__int128 bn = b->occurrences ? b->self_ps : 0, bd = b->occurrences ? (__int128)b->occurrences : 1;
	__int128 x = an * bd, y = bn * ad;
	return x == y ? 0 : (x > y ? -1 : 1);
}

/* Name, then module, kind and stage id: rows are unique by (kind, module, name), so this is total. */
static int cmp_identity(const struct xp_op_row *a, const struct xp_op_row *b)
{
	int d = strcmp(a->name, b->name);
	if (d)
		return d;
	if (!a->module != !b->module)
		return a->module ? 1 : -1;
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	if (a->kind == XP_OPK_STAGE)
		return stage_id(a) < stage_id(b) ? -1 : stage_id(a) > stage_id(b);
	return a->module ? strcmp(a->module, b->module) : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct xp_op_row *a = *(const struct xp_op_row *const *)pa, *b = *(const struct xp_op_row *const *)pb;
	enum xp_tfs_sort key = *(const enum xp_tfs_sort *)arg;
	int d = 0;
	switch (key) {
	case XP_TFS_SORT_SELF:
		d = cmp_desc_i64(a->self_ps, b->self_ps);
		break;
	case XP_TFS_SORT_TOTAL:
		d = cmp_desc_i64(a->time_ps, b->time_ps);
		break;
	case XP_TFS_SORT_COUNT:
		d = a->occurrences == b->occurrences ? 0 : (a->occurrences > b->occurrences ? -1 : 1);
		break;
	case XP_TFS_SORT_AVG:
		d = cmp_avg_desc(a, b);
		break;
	case XP_TFS_SORT_NAME:
		d = strcmp(a->name, b->name);
		if (!d)
			d = cmp_desc_i64(a->self_ps, b->self_ps);
		break;
	}
	return d ? d : cmp_identity(a, b);
}

static void choose_rows(struct tfs *s, struct side *sd, bool shown)
{
	const struct xp_op_db *db = sd->db;
	sd->rows = xcalloc(db->n, sizeof *sd->rows);
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_op_row *r = &db->rows[i];
		bool idle = r->kind == XP_OPK_IDLE;
		sd->n_ops += !idle;
		if (!shown || (idle && s->o->no_idle))
			continue;
		if (!matches(&s->op_re, s->has_op_re, r->name) || !matches(&s->type_re, s->has_type_re, r->category))
			continue;
		sd->rows[sd->n_rows++] = r;
	}
	enum xp_tfs_sort key = s->o->sort;
	if (sd->n_rows > 1)
		qsort_r(sd->rows, sd->n_rows, sizeof *sd->rows, cmp_rows, &key);
	sd->n_matched = sd->n_rows;
	if (s->o->top && sd->n_rows > s->o->top)
		sd->n_rows = s->o->top;
}

/* --- the table ----------------------------------------------------------------------------------- */

struct cols {
	size_t rank, side, type, name, module, stage, occ, total, avg, self, avg_self, dev_pct, dev_cum, host_pct,
		host_cum, flop_rate, mem_bw, intensity, bound, tc, mode;
};

enum {
	TFS_RANK, TFS_SIDE, TFS_TYPE, TFS_NAME, TFS_MODULE, TFS_STAGE, TFS_OCC, TFS_TOTAL, TFS_AVG, TFS_SELF,
	TFS_AVG_SELF, TFS_DEV_PCT, TFS_DEV_CUM, TFS_HOST_PCT, TFS_HOST_CUM, TFS_FLOP_RATE, TFS_MEM_BW, TFS_INTENSITY,
	TFS_BOUND, TFS_TC, TFS_MODE
};
static const struct xp_col_def tf_stats_cols[] = {
	[TFS_RANK] = {"rank", "#", XP_T_INT},
	[TFS_SIDE] = {"host_or_device", "Host/device", XP_T_STR},
	[TFS_TYPE] = {"op_type", "Type", XP_T_STR},
	[TFS_NAME] = {"op_name", "Operation", XP_T_STR},
	[TFS_MODULE] = {"hlo_module", "HLO module", XP_T_STR},
	[TFS_STAGE] = {"stage_id", "Stage", XP_T_INT},
	[TFS_OCC] = {"occurrences", "Count", XP_T_INT},
	[TFS_TOTAL] = {"total_time_us", "Total time", XP_T_DUR, XP_U_US},
	[TFS_AVG] = {"avg_time_us", "Avg time", XP_T_DUR, XP_U_US, XP_COL_TEXT_HIDDEN},
	[TFS_SELF] = {"total_self_time_us", "Self time", XP_T_DUR, XP_U_US},
	[TFS_AVG_SELF] = {"avg_self_time_us", "Avg self", XP_T_DUR, XP_U_US},
	[TFS_DEV_PCT] = {"device_self_time_pct", "Device %", XP_T_PCT},
	[TFS_DEV_CUM] = {"device_cumulative_self_time_pct", "Device cum", XP_T_PCT},
	[TFS_HOST_PCT] = {"host_self_time_pct", "Host %", XP_T_PCT},
	[TFS_HOST_CUM] = {"host_cumulative_self_time_pct", "Host cum", XP_T_PCT},
	[TFS_FLOP_RATE] = {"flop_rate_gflop_per_s", "FLOP rate", XP_T_F64},
	[TFS_MEM_BW] = {"memory_bandwidth_gib_per_s", "GiB/s", XP_T_F64},
	[TFS_INTENSITY] = {"operational_intensity_flop_per_byte", "FLOP/B", XP_T_F64},
	[TFS_BOUND] = {"bound_by", "Bound by", XP_T_STR},
	[TFS_TC] = {"tensor_core_utilization_pct", "TC util", XP_T_PCT},
	[TFS_MODE] = {"execution_mode", "Mode", XP_T_STR},
};
static const struct cols tf_stats_cols_idx = {
	.rank = TFS_RANK, .side = TFS_SIDE, .type = TFS_TYPE, .name = TFS_NAME, .module = TFS_MODULE,
	.stage = TFS_STAGE, .occ = TFS_OCC, .total = TFS_TOTAL, .avg = TFS_AVG, .self = TFS_SELF,
	.avg_self = TFS_AVG_SELF, .dev_pct = TFS_DEV_PCT, .dev_cum = TFS_DEV_CUM, .host_pct = TFS_HOST_PCT,
	.host_cum = TFS_HOST_CUM, .flop_rate = TFS_FLOP_RATE, .mem_bw = TFS_MEM_BW,
	.intensity = TFS_INTENSITY, .bound = TFS_BOUND, .tc = TFS_TC, .mode = TFS_MODE
};

static void add_columns(struct xp_table *t, struct cols *k)
{
	xp_table_cols(t, XP_COLS(tf_stats_cols));
	*k = tf_stats_cols_idx;
}

/* Rounded to the nearest picosecond. */
static int64_t avg_ps(int64_t total, uint64_t n)
{
	if (!n)
		return 0;
	int64_t q = total / (int64_t)n, rem = total % (int64_t)n;
	if (rem * 2 >= (int64_t)n)
		q++;
	return q;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The table's rows, made when written from the two sides' op rows: a capture with a hundred thousand ops would
 * otherwise hold twenty cells for each. It owns what the rows point into: the op databases, the kernels' per-op
 * facts, and the running totals of the cumulative columns. */
struct table_rows {
	struct cols k;
	struct side sides[2];       /* device, host: their rows shown, in order */
	struct tc_index tc;
	struct xp_perf_env env;
	int64_t *cum;               /* per table row: its side's self time up to and with it */
};

static void cell_int(struct xp_cell *c, enum xp_type type, int64_t v)
{
	c->type = type;
	c->v.i = v;
}

static void cell_double(struct xp_cell *c, enum xp_type type, double v)
{
	c->type = type;
	c->v.d = v;
}

/* FLOP rate, bandwidth, intensity and bound-by where the row has FLOP or byte counts. */
static void set_roofline(struct xp_cell *cells, const struct cols *k, const struct xp_perf_env *env,
			 const struct xp_op_row *r)
{
	if ((!r->flops && !r->bytes_accessed) || r->time_ps <= 0)
		return;
	double ns = (double)r->time_ps / 1000.0;
	double gflops = (double)r->flops / ns, gibps = (double)r->bytes_accessed / ns / 1.073741824;
	if (r->flops)
		cell_double(&cells[k->flop_rate], XP_T_F64, gflops);
	if (r->bytes_accessed)
		cell_double(&cells[k->mem_bw], XP_T_F64, gibps);
	if (r->flops && r->bytes_accessed)
		cell_double(&cells[k->intensity], XP_T_F64, (double)r->flops / (double)r->bytes_accessed);
	/* Against a peak the device does not report, bound-by would be a guess (diagnostic bound_by_unknown). */
	if (!env->peak_flops_estimated_amd)
		xp_cell_text(&cells[k->bound], xp_bound_by(env, gflops, gibps));
}

static void fill_row(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size)
{
	(void)text;
	(void)text_size;
	const struct table_rows *t = src;
	const struct cols *k = &t->k;
	const struct side *sd = row < t->sides[0].n_rows ? &t->sides[0] : &t->sides[1];
	const struct xp_op_row *r = sd->rows[row < t->sides[0].n_rows ? row : row - t->sides[0].n_rows];
	cell_int(&cells[k->rank], XP_T_INT, (int64_t)row + 1);
	xp_cell_text(&cells[k->side], sd->label);
	xp_cell_text(&cells[k->type], r->category ? r->category : "");
	xp_cell_text(&cells[k->name], r->name);
	if (r->kind == XP_OPK_XLA && (r->module || !r->provenance))
		xp_cell_text(&cells[k->module], r->module ? r->module : ""); /* a framework op has none */
	if (r->kind == XP_OPK_STAGE)
		cell_int(&cells[k->stage], XP_T_INT, stage_id(r));
	cell_int(&cells[k->occ], XP_T_INT, (int64_t)r->occurrences);
	cell_int(&cells[k->total], XP_T_DUR, r->time_ps);
	cell_int(&cells[k->self], XP_T_DUR, r->self_ps);
	if (r->occurrences) {
		cell_int(&cells[k->avg], XP_T_DUR, avg_ps(r->time_ps, r->occurrences));
		cell_int(&cells[k->avg_self], XP_T_DUR, avg_ps(r->self_ps, r->occurrences));
	}
	cell_double(&cells[sd->device ? k->dev_pct : k->host_pct], XP_T_PCT, pct(r->self_ps, sd->total_ps));
	cell_double(&cells[sd->device ? k->dev_cum : k->host_cum], XP_T_PCT, pct(t->cum[row], sd->total_ps));
	set_roofline(cells, k, &t->env, r);
	const struct xp_kernel_op *kop = sd->device ? tc_find(&t->tc, r) : NULL;
	if (kop && kop->total_ps > 0)
		cell_double(&cells[k->tc], XP_T_PCT, pct(kop->tensor_core_ps, kop->total_ps));
	if (r->kind != XP_OPK_IDLE && sd->eager_known)
		xp_cell_text(&cells[k->mode], r->is_eager ? "Eager" : "Function");
}

static void release_rows(void *src)
{
	struct table_rows *t = src;
	for (int k = 0; k < 2; k++) {
		xp_op_db_free(t->sides[k].db);
		free(t->sides[k].rows);
	}
	tc_free(&t->tc);
	free(t->cum);
	free(t);
}

/* The device rows with a cost, and those of them whose FLOPs the shapes do not give (diagnostics). */
static void count_roofline(struct tfs *s)
{
	for (size_t i = 0; i < s->dev.n_rows; i++) {
		const struct xp_op_row *r = s->dev.rows[i];
		if (r->kind == XP_OPK_XLA && r->provenance) {
			s->roofline_rows += r->flops || r->bytes_accessed;
			s->flops_gap_rows += r->flops_gap;
		}
	}
}

/* Move the sides' databases and rows, and the kernels' per-op facts, from S into the table's rows. */
static struct table_rows *take_rows(struct tfs *s)
{
	struct table_rows *t = xcalloc(1, sizeof *t);
	t->k = tf_stats_cols_idx;
	t->sides[0] = s->dev;
	t->sides[1] = s->host;
	s->dev.db = s->host.db = NULL;
	s->dev.rows = s->host.rows = NULL;
	t->tc = s->tc;
	s->tc.ops = NULL;
	s->tc.slot = NULL;
	t->env = s->env;
	size_t n = t->sides[0].n_rows + t->sides[1].n_rows, row = 0;
	t->cum = xcalloc(n ? n : 1, sizeof *t->cum);
	for (int k = 0; k < 2; k++) {
		int64_t cum = 0;
		for (size_t i = 0; i < t->sides[k].n_rows; i++)
			t->cum[row++] = cum += t->sides[k].rows[i]->self_ps;
	}
	return t;
}

/* Text hides the columns that are empty in every row (the host pair on a device-only table, FLOP rates
 * where no op has FLOP counts, ...); CSV and JSON always carry every column. */
/* A column no row fills is left out of text (decided only when text asks: xp_table_settle_hidden). */
static void hide_empty_columns(struct xp_table *t)
{
	for (size_t c = 0; c < t->n_cols; c++)
		t->cols[c].flags |= XP_COL_TEXT_HIDE_EMPTY;
}

static void table_note(struct xp_table *t, const struct tfs *s)
{
	const struct side *sides[2] = {&s->dev, &s->host};
	char parts[2][96];
	size_t n = 0;
	for (int k = 0; k < 2; k++)
		if (sides[k]->n_rows < sides[k]->n_matched)
			snprintf(parts[n++], sizeof parts[0], "%zu of %zu %s rows", sides[k]->n_rows, sides[k]->n_matched,
				 sides[k]->device ? "device" : "host");
	if (!n)
		return;
	char note[320];
	snprintf(note, sizeof note,
		 "The top %zu of each side: %s%s%s shown; --top N shows more, and CSV and JSON carry every row "
		 "unless --top is given.", s->o->top, parts[0], n > 1 ? " and " : "", n > 1 ? parts[1] : "");
	t->text_note = strdup(note);
	if (!t->text_note)
		xp_oom();
}

static void add_table(struct xp_result *r, struct tfs *s)
{
	struct xp_table *t = xp_result_add_table(r, "tf_stats", "TensorFlow Stats: ops by self time");
	struct cols k;
	add_columns(t, &k);
	count_roofline(s);
	table_note(t, s);
	size_t n = s->dev.n_rows + s->host.n_rows;
	xp_table_rows_from(t, n, fill_row, take_rows(s), release_rows);
	hide_empty_columns(t);
}

/* --- the HLO op table (JAX and XLA captures with HLO protos) -------------------------------------- */

/* Self time descending, then module and name: the order is total. */
static int cmp_hlo_rows(const void *pa, const void *pb)
{
	const struct xp_op_row *a = *(const struct xp_op_row *const *)pa, *b = *(const struct xp_op_row *const *)pb;
	int d = cmp_desc_i64(a->self_ps, b->self_ps);
	if (!d)
		d = strcmp(a->module ? a->module : "", b->module ? b->module : "");
	return d ? d : strcmp(a->name, b->name);
}

struct hlo_cols {
	size_t rank, program, module, name, category, framework, occ, exec, total, self, pct, flops, bytes, flop_rate,
		mem_bw, intensity, bound;
};

enum {
	HLO_RANK, HLO_PROGRAM, HLO_MODULE, HLO_NAME, HLO_CATEGORY, HLO_FRAMEWORK, HLO_OCC, HLO_EXEC, HLO_TOTAL,
	HLO_SELF, HLO_PCT, HLO_FLOPS, HLO_BYTES, HLO_FLOP_RATE, HLO_MEM_BW, HLO_INTENSITY, HLO_BOUND
};
static const struct xp_col_def hlo_op_cols[] = {
	[HLO_RANK] = {"rank", "#", XP_T_INT},
	[HLO_PROGRAM] = {"program_id", "Program", XP_T_INT},
	[HLO_MODULE] = {"hlo_module", "HLO module", XP_T_STR},
	[HLO_NAME] = {"hlo_op", "HLO op", XP_T_STR},
	[HLO_CATEGORY] = {"category", "Category", XP_T_STR},
	[HLO_FRAMEWORK] = {"framework_op", "Framework op", XP_T_STR},
	[HLO_OCC] = {"occurrences", "Count", XP_T_INT},
	[HLO_EXEC] = {"executions", "Runs", XP_T_INT},
	[HLO_TOTAL] = {"total_time_us", "Total time", XP_T_DUR, XP_U_US, XP_COL_TEXT_HIDDEN},
	[HLO_SELF] = {"total_self_time_us", "Self time", XP_T_DUR, XP_U_US},
	[HLO_PCT] = {"device_self_time_pct", "Device %", XP_T_PCT},
	[HLO_FLOPS] = {"flops", "FLOPs", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HLO_BYTES] = {"bytes_accessed", "Bytes", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[HLO_FLOP_RATE] = {"flop_rate_gflop_per_s", "FLOP rate", XP_T_F64},
	[HLO_MEM_BW] = {"memory_bandwidth_gib_per_s", "GiB/s", XP_T_F64},
	[HLO_INTENSITY] = {"operational_intensity_flop_per_byte", "FLOP/B", XP_T_F64},
	[HLO_BOUND] = {"bound_by", "Bound by", XP_T_STR},
};
static const struct hlo_cols hlo_op_cols_idx = {
	.rank = HLO_RANK, .program = HLO_PROGRAM, .module = HLO_MODULE, .name = HLO_NAME,
	.category = HLO_CATEGORY, .framework = HLO_FRAMEWORK, .occ = HLO_OCC, .exec = HLO_EXEC,
	.total = HLO_TOTAL, .self = HLO_SELF, .pct = HLO_PCT, .flops = HLO_FLOPS, .bytes = HLO_BYTES,
	.flop_rate = HLO_FLOP_RATE, .mem_bw = HLO_MEM_BW, .intensity = HLO_INTENSITY, .bound = HLO_BOUND
};

static void hlo_columns(struct xp_table *t, struct hlo_cols *k)
{
	xp_table_cols(t, XP_COLS(hlo_op_cols));
	*k = hlo_op_cols_idx;
}

static void hlo_row(struct xp_table *t, const struct hlo_cols *k, const struct tfs *s, const struct xp_op_row *r,
		    int64_t rank)
{
	size_t row = xp_table_row(t);
	xp_set_int(t, row, k->rank, rank);
	if (r->program_id >= 0)
		xp_set_int(t, row, k->program, r->program_id);
	xp_set_str(t, row, k->module, r->module ? r->module : "");
	xp_set_str(t, row, k->name, r->name);
	xp_set_str(t, row, k->category, r->category ? r->category : "");
	if (r->provenance) {
		struct xp_tfop op;
		xp_parse_tf_op(r->provenance, strlen(r->provenance), &op);
		char buf[1024];
		snprintf(buf, sizeof buf, "%.*s", (int)(r->provenance[0] ? op.name_len : 0), op.name);
		xp_set_str(t, row, k->framework, buf);
	}
	xp_set_int(t, row, k->occ, (int64_t)r->occurrences);
	xp_set_int(t, row, k->exec, (int64_t)r->executions);
	xp_set_dur(t, row, k->total, r->time_ps);
	xp_set_dur(t, row, k->self, r->self_ps);
	xp_set_pct(t, row, k->pct, pct(r->self_ps, s->hlo->total_time_ps));
	if (r->cost_known && !r->flops_gap && r->flops) /* counted for dot and convolution only */
		xp_set_int(t, row, k->flops, (int64_t)(r->flops > INT64_MAX ? INT64_MAX : r->flops));
	if (r->cost_known)
		xp_set_bytes(t, row, k->bytes, (int64_t)(r->bytes_accessed > INT64_MAX ? INT64_MAX : r->bytes_accessed));
	struct cols rk = {.flop_rate = k->flop_rate, .mem_bw = k->mem_bw, .intensity = k->intensity, .bound = k->bound};
	set_roofline(xp_table_cell(t, row, 0), &rk, &s->env, r);   /* the row's cells, fresh */
}

/* One row per HLO instruction run (program, instruction), when the capture's HLO protos resolved any. */
static void add_hlo_table(struct xp_result *r, const struct tfs *s)
{
	if (!s->hlo || !s->xla_resolved)
		return;
	struct xp_table *t = xp_result_add_table(r, "hlo_ops", "HLO ops by self time (--table hlo_ops)");
	struct hlo_cols k;
	hlo_columns(t, &k);
	const struct xp_op_row **rows = xcalloc(s->hlo->n, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < s->hlo->n; i++)
		if (s->hlo->rows[i].kind == XP_OPK_XLA && s->hlo->rows[i].occurrences)
			rows[n++] = &s->hlo->rows[i];
	qsort(rows, n, sizeof *rows, cmp_hlo_rows);
	for (size_t i = 0; i < n; i++)
		hlo_row(t, &k, s, rows[i], (int64_t)i + 1);
	free(rows);
	if (n > 10) {
		/* The framework ops are the page; text shows the ten longest HLO ops under them. */
		t->text_limit = 10;
		char note[128];
		snprintf(note, sizeof note, "The top 10 of %zu HLO ops shown; --format csv --table hlo_ops has every row.", n);
		t->text_note = strdup(note);
		if (!t->text_note)
			xp_oom();
	}
}

/* --- the PyTorch operator table ------------------------------------------------------------------- */

static int cmp_pt_rows(const void *pa, const void *pb, void *arg)
{
	const struct xp_pt_op *a = *(const struct xp_pt_op *const *)pa, *b = *(const struct xp_pt_op *const *)pb;
	const struct tfs *s = arg;
	int64_t x = a->dev_self_ps, y = b->dev_self_ps;
	if (s->o->sort == XP_TFS_SORT_TOTAL)
		x = a->dev_total_ps, y = b->dev_total_ps;
	else if (s->o->sort == XP_TFS_SORT_COUNT)
		x = (int64_t)a->calls, y = (int64_t)b->calls;
	else if (s->o->sort == XP_TFS_SORT_AVG)
		x = avg_ps(a->dev_self_ps, a->calls), y = avg_ps(b->dev_self_ps, b->calls);
	if (s->o->sort != XP_TFS_SORT_NAME && x != y)
		return x > y ? -1 : 1;
	if (s->o->sort != XP_TFS_SORT_NAME && a->host_self_ps != b->host_self_ps)
		return a->host_self_ps > b->host_self_ps ? -1 : 1;
	return strcmp(xp_str(s->c, a->name), xp_str(s->c, b->name));
}

enum {
	PTO_RANK, PTO_NAME, PTO_CALLS, PTO_DSELF, PTO_DTOT, PTO_DPCT, PTO_HSELF, PTO_HTOT, PTO_HPCT, PTO_TC
};
static const struct xp_col_def pt_operator_cols[] = {
	[PTO_RANK] = {"rank", "#", XP_T_INT},
	[PTO_NAME] = {"op_name", "Operator", XP_T_STR},
	[PTO_CALLS] = {"calls", "Calls", XP_T_INT},
	[PTO_DSELF] = {"device_self_time_us", "Device self", XP_T_DUR, XP_U_US},
	[PTO_DTOT] = {"device_total_time_us", "Device total", XP_T_DUR, XP_U_US},
	[PTO_DPCT] = {"device_self_time_pct", "Device %", XP_T_PCT},
	[PTO_HSELF] = {"host_self_time_us", "Host self", XP_T_DUR, XP_U_US},
	[PTO_HTOT] = {"host_total_time_us", "Host total", XP_T_DUR, XP_U_US},
	[PTO_HPCT] = {"host_self_time_pct", "Host %", XP_T_PCT},
	[PTO_TC] = {"tensor_core_eligible", "TC eligible", XP_T_BOOL},
};

/* PyTorch captures: one row per operator as the PyTorch profiler shows it (device and host, self and total). */
static void add_pt_table(struct xp_result *r, struct tfs *s)
{
	struct xp_table *t = xp_result_add_table(r, "operators", "PyTorch operators by device self time");
	xp_table_cols(t, XP_COLS(pt_operator_cols));
	const struct xp_pt_op **rows = xcalloc(s->n_pt ? s->n_pt : 1, sizeof *rows);
	size_t n = 0;
	int64_t dev = 0, host = 0;
	for (size_t i = 0; i < s->n_pt; i++) {
		dev = xp_sat_add(dev, s->pt[i].dev_self_ps);
		host = xp_sat_add(host, s->pt[i].host_self_ps);
		if (matches(&s->op_re, s->has_op_re, xp_str(s->c, s->pt[i].name)))
			rows[n++] = &s->pt[i];
	}
	if (n > 1)
		qsort_r(rows, n, sizeof *rows, cmp_pt_rows, s);
	size_t shown = s->o->top && n > s->o->top ? s->o->top : n;
	for (size_t i = 0; i < shown; i++) {
		const struct xp_pt_op *o = rows[i];
		size_t row = xp_table_row(t);
		xp_set_int(t, row, PTO_RANK, (int64_t)i + 1);
		xp_set_str(t, row, PTO_NAME, xp_str(s->c, o->name));
		xp_set_int(t, row, PTO_CALLS, (int64_t)o->calls);
		xp_set_dur(t, row, PTO_DSELF, o->dev_self_ps);
		xp_set_dur(t, row, PTO_DTOT, o->dev_total_ps);
		xp_set_pct(t, row, PTO_DPCT, pct(o->dev_self_ps, dev));
		xp_set_dur(t, row, PTO_HSELF, o->host_self_ps);
		xp_set_dur(t, row, PTO_HTOT, o->host_total_ps);
		xp_set_pct(t, row, PTO_HPCT, pct(o->host_self_ps, host));
		xp_set_bool(t, row, PTO_TC, o->tc_eligible);
	}
	t->text_limit = s->o->top ? 0 : 25;
	free(rows);
}

/* --- summary, verdict, diagnostics -------------------------------------------------------------- */

/* The op of a side with the most self time (IDLE aside), or NULL. */
static const struct xp_op_row *top_op(const struct side *sd)
{
	const struct xp_op_row *best = NULL;
	for (size_t i = 0; i < sd->db->n; i++) {
		const struct xp_op_row *r = &sd->db->rows[i];
		if (r->kind == XP_OPK_IDLE)
			continue;
		if (!best || r->self_ps > best->self_ps || (r->self_ps == best->self_ps && cmp_identity(r, best) < 0))
			best = r;
	}
	return best;
}

static void verdict(struct xp_result *r, const struct tfs *s)
{
	const struct xp_op_row *d = top_op(&s->dev), *h = top_op(&s->host);
	const char *of = s->o->no_idle ? "op" : "total";
	char dbuf[512] = "", hbuf[512] = "";
	if (d)
		snprintf(dbuf, sizeof dbuf, "top device op %s (%.1f%% of device %s time)", d->name,
			 pct(d->self_ps, s->dev.total_ps), of);
	if (h)
		snprintf(hbuf, sizeof hbuf, "top host op %s (%.1f%% of host %s time)", h->name,
			 pct(h->self_ps, s->host.total_ps), of);
	if (!d && !h && s->xla_dropped)
		xp_result_set_verdict(r, "No ops kept: %" PRIu64 " XLA op events left out, as xprof does without HLO protos "
				      "(--compat xprof)", s->xla_dropped);
	else if (!d && !h)
		xp_result_set_verdict(r, s->pt_mode ? "No PyTorch operators found in the trace"
						    : "No TensorFlow or XLA ops found in the capture");
	else
		xp_result_set_verdict(r, "%zu device and %zu host ops; %s%s%s", s->dev.n_ops, s->host.n_ops, dbuf,
				      d && h ? "; " : "", hbuf);
}

static int64_t idle_ps(const struct xp_op_db *db)
{
	return db->total_time_ps - db->total_op_time_ps;
}

static void summary(struct xp_result *r, const struct tfs *s)
{
	const struct xp_op_db *d = s->dev.db, *h = s->host.db;
	xp_sum_int(r, "hosts", "Hosts", s->c->n_hosts);
	xp_sum_int(r, "gpus", "GPUs", s->gpus);
	xp_sum_dur(r, "device_time_us", "Device time", d->total_time_ps, XP_U_US);
	xp_sum_dur(r, "device_op_time_us", "Device op time", d->total_op_time_ps, XP_U_US);
	xp_sum_dur(r, "device_idle_time_us", "Device idle time", idle_ps(d), XP_U_US);
	xp_sum_dur(r, "host_time_us", "Host time", h->total_time_ps, XP_U_US);
	xp_sum_dur(r, "host_op_time_us", "Host op time", h->total_op_time_ps, XP_U_US);
	xp_sum_dur(r, "host_idle_time_us", "Host idle time", idle_ps(h), XP_U_US);
	xp_sum_int(r, "device_ops", "Device ops", (int64_t)s->dev.n_ops);
	xp_sum_int(r, "host_ops", "Host ops", (int64_t)s->host.n_ops);
	xp_sum_int(r, "device_rows", "Device rows", (int64_t)s->dev.n_rows);
	xp_sum_int(r, "host_rows", "Host rows", (int64_t)s->host.n_rows);
	xp_sum_bool(r, "idle_included", "IDLE rows", !s->o->no_idle);
	xp_sum_f64(r, "device_peak_gflop_per_s", "Device peak FLOP rate",
		   s->env.peak_tflops > 0 ? s->env.peak_tflops * 1000 : NAN);
	xp_sum_f64(r, "device_peak_hbm_gb_per_s", "Device peak HBM GB/s",
		   s->env.peak_hbm_gbps > 0 ? s->env.peak_hbm_gbps : NAN);
	xp_sum_int(r, "kernels_without_op", "Kernels without op",
		   (int64_t)(s->pt_mode ? s->pt_orphans : s->tc.unattributed_kernels));
	xp_sum_int(r, "xla_events_dropped", "XLA events dropped", (int64_t)s->xla_dropped);
}

static void diagnostics(struct xp_result *r, const struct tfs *s)
{
	if (s->pt_mode && s->pt_orphans) {
		char d[64];
		xp_format_duration(s->pt_orphan_ps, d, sizeof d);
		xp_result_diag(r, XP_SEV_INFO, "kernels_without_op", NULL, NULL,
			       "%" PRIu64 " device events (%s) were launched outside every operator (or their launch is not "
			       "in the trace); their time counts as device IDLE", s->pt_orphans, d);
	}
	if (s->pt_mode && !s->n_pt)
		xp_result_diag(r, XP_SEV_INFO, "no_ops", NULL, "profile with torch.profiler while the model runs",
			       "no cpu_op event in the trace");
	if (!s->pt_mode && !s->dev.n_ops && !s->host.n_ops && !s->tpu_planes && !s->xla_dropped)
		xp_result_diag(r, XP_SEV_INFO, "no_ops", NULL,
			       "profile while the model runs, with the TensorFlow or JAX profiler",
			       "no host event names a TensorFlow op and no device event carries a tf_op, level 0 "
			       "or hlo_op annotation");
	if (s->tc.unattributed_kernels) {
		char d[64];
		xp_format_duration(s->tc.unattributed_ps, d, sizeof d);
		xp_result_diag(r, XP_SEV_INFO, "kernels_without_op", NULL, NULL,
			       "%" PRIu64 " kernels (%s) carry no op annotation (tf_op, level 0 or hlo_op); their "
			       "time counts as device IDLE", s->tc.unattributed_kernels, d);
	}
	if (s->xla_dropped)
		xp_result_diag(r, XP_SEV_WARNING, "xla_ops_dropped", NULL,
			       "leave out --compat xprof to see them under their HLO op and module",
			       "%" PRIu64 " XLA op events left out, as xprof does without HLO protos (--compat xprof); "
			       "their time counts as device IDLE", s->xla_dropped);
	if (s->tpu_planes)
		xp_result_diag(r, XP_SEV_INFO, "tpu_ops_not_supported", NULL, NULL,
			       "%u TPU planes: TPU device ops are not analyzed yet, only host ops", s->tpu_planes);
	xp_hlo_diagnostics(r, s->hlo_bad, s->hlo_problem, s->xla_events, s->xla_resolved, s->xla_ambiguous);
	if (s->roofline_rows && s->env.peak_flops_estimated_amd)
		xp_result_diag(r, XP_SEV_INFO, "bound_by_unknown", NULL, NULL,
			       "bound-by is left empty: the AMD device reports no peak FLOP rate (the summary's "
			       "peak is xpstat's estimate from its architecture)");
	if (s->flops_gap_rows)
		xp_result_diag(r, XP_SEV_INFO, "flops_unknown", NULL, NULL,
			       "%zu device ops hold a dot or convolution whose FLOPs the HLO shapes do not give; "
			       "their GFLOP/s and FLOP/B are empty", s->flops_gap_rows);
}

/* --- entry point ----------------------------------------------------------------------------- */

static bool compile(regex_t *re, const char *expr, const char *opt, struct xp_err *e)
{
	int rc = regcomp(re, expr, REG_EXTENDED | REG_NOSUB);
	if (!rc)
		return true;
	char why[128];
	regerror(rc, re, why, sizeof why);
	xp_err_set(e, XP_EXIT_USAGE, NULL, "invalid %s regular expression '%s': %s", opt, expr, why);
	return false;
}

static void tfs_free(struct tfs *s)
{
	if (s->has_op_re)
		regfree(&s->op_re);
	if (s->has_type_re)
		regfree(&s->type_re);
	xp_op_db_free(s->dev.db);
	xp_op_db_free(s->host.db);
	free(s->dev.rows);
	free(s->host.rows);
	tc_free(&s->tc);
	free(s->hlo_problem);
	xp_op_db_free(s->hlo);
	free(s->pt);
	for (uint32_t h = 0; s->facts && h < s->c->n_hosts; h++)
		free(s->facts[h].pt);
	free(s->facts);
	if (s->keep)
		for (uint32_t h = 0; h < s->c->n_hosts; h++)
			if (s->keep[h] != s->hlo)
				xp_op_db_free(s->keep[h]);
	free(s->keep);
}

/* The options' regular expressions; false with E set when one does not compile. */
static bool tfs_init(struct tfs *s, struct xp_err *e)
{
	s->dev.label = "Device";
	s->dev.device = true;
	s->host.label = "Host";
	s->facts = xcalloc(s->c->n_hosts ? s->c->n_hosts : 1, sizeof *s->facts);
	if (s->o->op_regex) {
		if (!compile(&s->op_re, s->o->op_regex, "--op", e))
			return false;
		s->has_op_re = true;
	}
	if (s->o->type_regex) {
		if (!compile(&s->type_re, s->o->type_regex, "--type", e))
			return false;
		s->has_type_re = true;
	}
	return true;
}

/* The result, once both sides' databases, the kernels' shares and the hosts' facts are in place. */
static struct xp_result *finish(struct tfs *s, const char *semantics)
{
	if (s->pt_mode) {
		pt_collect(s);
		pt_device(s, s->hlo);
		pt_host(s);
	}
	choose_rows(s, &s->dev, !s->o->host_only);
	choose_rows(s, &s->host, !s->o->device_only);

	struct xp_result *r = xp_result_new("tf-stats");
	verdict(r, s);
	summary(r, s);
	if (s->pt_mode)
		add_pt_table(r, s);
	add_table(r, s);
	add_hlo_table(r, s);
	diagnostics(r, s);
	xp_result_set_semantics(r, semantics);
	return r;
}

/* The state tables of each host's device op DB (tfs_state.h). */
static const struct xp_packed_tables device_tables = XP_TFS_DEVICE_TABLES;

/* What combine rebuilds it from: each host's device op DB (its rows packed) and facts; the host side is the host op DB input-pipeline saves ("input_host"). */
static void save_state(struct tfs *s, struct xp_result *state)
{
	const struct xp_capture *c = s->c;
	const char **names = xcalloc(c->n_hosts ? c->n_hosts : 1, sizeof *names);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		names[h] = c->hosts[h].name;
		xp_tfs_host_state(state, c, c->hosts[h].name, &s->facts[h]);
	}
	xp_op_dbs_state_packed(state, &device_tables, "device", names, (const struct xp_op_db *const *)s->keep,
			       c->n_hosts);
	free(names);
}

static struct xp_result *of_capture(const struct xp_capture *c, const struct xp_tf_stats_opts *o,
				    struct xp_result *state, struct xp_err *e)
{
	static const struct xp_tf_stats_opts defaults;
	struct tfs s = {.c = c, .o = o ? o : &defaults};
	if (!tfs_init(&s, e)) {
		tfs_free(&s);
		return NULL;
	}
	for (uint32_t h = 0; h < c->n_hosts; h++)
		host_facts(c, &c->hosts[h], &s.facts[h]);
	sum_facts(&s);
	if (state)
		s.keep = xcalloc(c->n_hosts ? c->n_hosts : 1, sizeof *s.keep);
	struct kernel_job kernels;
	start_kernel_ops(&s, &kernels);
	build_device(&s);
	build_host(&s);
	finish_kernel_ops(&s, &kernels);
	s.pt_mode = xp_capture_semantics(c) != NULL;
	struct xp_result *r = finish(&s, xp_capture_semantics(c));
	if (state)
		save_state(&s, state);
	tfs_free(&s);
	return r;
}

struct xp_result *xp_analyze_tf_stats(const struct xp_capture *c, const struct xp_tf_stats_opts *o, struct xp_err *e)
{
	return of_capture(c, o, NULL, e);
}

static struct xp_result *run(const struct xp_run_in *in)
{
	struct xp_tf_stats_opts o = {0};
	if (in->opts)
		o = *(const struct xp_tf_stats_opts *)in->opts;
	o.xprof_compat = in->xprof_compat;
	return of_capture(in->c, &o, in->state, in->err);
}

/* --- several hosts from their saved state (combine) -------------------------------------------------- */

static bool not_read_back(const struct xp_combine_in *in, uint32_t h, const char *what)
{
	xp_err_set(in->err, XP_EXIT_BAD_INPUT, in->hosts[h].path, "the %s of host %s does not read back: not a report "
		   "as this xpstat writes it", what, in->hosts[h].name);
	return false;
}

/* Each host's facts and both sides' databases, merged in host order as the capture's are. */
static bool from_state(struct tfs *s, const struct xp_combine_in *in, struct xp_capture *names)
{
	uint32_t n = s->c->n_hosts;
	for (uint32_t h = 0; h < n; h++)
		if (!xp_tfs_host_from_state(&in->hosts[h], names, &s->facts[h]))
			return not_read_back(in, h, "tf-stats state");
	sum_facts(s);
	if (any_gpu(s)) {
		struct xp_kernel_db *kdb = xp_kernel_db_from_state(in->hosts, n, in->err);
		if (!kdb)
			return false;
		tc_build(s, xp_kernel_ops_by_op(kdb, true));
		xp_kernel_db_free(kdb);
	}
	struct xp_op_db *all = xp_op_db_empty();
	s->host.db = xp_op_db_empty();
	for (uint32_t h = 0; h < n; h++) {
		struct xp_op_db *dev = xp_op_db_from_packed_state(&in->hosts[h], &device_tables, "device");
		struct xp_op_db *host = dev ? xp_op_db_from_state(&in->hosts[h], "input_host") : NULL;
		if (!host) {
			xp_op_db_free(dev);
			xp_op_db_free(all);
			return not_read_back(in, h, dev ? "host op state" : "device op state");
		}
		all = xp_op_db_absorb(all, dev);
		s->host.db = xp_op_db_absorb(s->host.db, host);
	}
	device_of(s, all, NULL);
	host_of(s);
	for (uint32_t h = 0; h < n; h++)
		s->pt_mode |= s->facts[h].pytorch;
	return true;
}

/* Several hosts from their saved state, with the options run takes by default (the first rows of each side as
 * text, as the command shows them). */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	/* The operators' names are string ids: of a capture of their own, the hosts the run's. */
	struct xp_capture names = {.n_hosts = in->c->n_hosts, .hosts = in->c->hosts};
	xp_strtab_init(&names.strings);
	struct xp_tf_stats_opts o = {.xprof_compat = in->xprof_compat, .top = in->text && !in->report ? XP_TF_STATS_TEXT_TOP : 0};
	struct tfs s = {.c = &names, .o = &o};
	struct xp_result *r = NULL;
	if (tfs_init(&s, in->err) && from_state(&s, in, &names))
		r = finish(&s, in->semantics);
	tfs_free(&s);
	xp_strtab_free(&names.strings);
	return r;
}

static const char *const reads[] = {XP_KERNEL_DETAIL_STATS, NULL};
static const char *const state_tables[] = {XP_TFS_STATE_TABLES, XP_KERNEL_STATE_TABLES, "op_dbs", "op_rows", NULL};

const struct xp_analysis xp_analysis_tf_stats = {
	.name = "tf-stats",
	.needs = XP_NEEDS_CAPTURE,
	.reads = reads,
	.opts_size = sizeof(struct xp_tf_stats_opts),
	.run = run,
	.combine = combine,
	.state_tables = state_tables,
};
