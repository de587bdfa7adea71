/* overview.c - the Overview page: step-time summary, precision, top device ops, run environment, recommendation (spec §1.6-§1.11). */
#include "overview.h"
#include "formats/core/satint.h"
#include "formats/core/strpool.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/input_bound.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/perfenv.h"
#include "analyzers/db/steptime.h"
#include "analyzers/db/pt_advice.h"
#include "analyzers/db/pt_ops.h"
#include "analyzers/db/opdb_state.h"
#include "analyzers/db/shared.h"
#include "analyzers/db/tfs_state.h"
#include "analyzers/db/tfdata_state.h"
#include "input_pipeline.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thresholds of spec §1.10, in percent of the total step time (the input ones are in input_bound.c). */
#define HIGH_PCT 15.0           /* kernel launch, all others, device collectives */
#define MODERATE_PCT 3.0
#define LOW_16BIT_PCT 10.0

#define DEFAULT_TOP_OPS 10

static double pct_of(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* --- run environment (spec §1.9) ------------------------------------------------ */

/* --- gathering ------------------------------------------------------------------------ */

/* What overview reads of a host's capture besides its steps and run environment (saved for combine). */
struct ov_host {
	bool tf_data;               /* tf.data iterators ran */
	bool pytorch, tensor_cores; /* a PyTorch trace; a GPU with Tensor Cores */
	int64_t pt_op_kernel_ps, pt_tc_bottom_ps, pt_tc_kernel_ps;  /* PyTorch: the AMP advice's kernel times */
	const char **msgs[2];       /* the capture's errors [0] and warnings [1], sorted, each once */
	size_t n_msgs[2];
};

struct overview {
	const struct xp_prep *p;
	const struct xp_overview_opts *o;
	const struct ov_host *hosts;        /* p's hosts' */
	const struct xp_combine_in *cin;    /* combine: the saved state of the hosts; NULL: their captures */
	struct xp_op_db *device;            /* combine: device_tf_db, made first (top_ops_table frees it) */
	struct xp_step_align al;    /* the steps common to all hosts */
	uint32_t bh;                /* host whose steps make the breakdown */
	struct xp_step_db view;     /* its steps that are combined steps (a view, no copy) */
	int64_t *step_ps;           /* per combined step: the longest host's step time */
	struct xp_dur_stat step;    /* over step_ps */
	struct xp_step_totals tot;  /* of view */
	struct xp_run_env env;      /* combined over hosts */
	uint32_t host_count;        /* distinct host names */
	int64_t c16_ps, c32_ps;
	bool tf_data, tpu;
	const char *bottleneck, *level;
	double input_pct, all_others_pct;
};

static bool has_tf_data(const struct xp_capture *c, const struct xp_host *h)
{
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		if (p->kind != XP_PLANE_HOST_CPU)
			continue;
		for (uint32_t m = 1; m < p->n_emeta; m++)
			if (!strncmp(xp_str(c, p->emeta[m].name), "Iterator::", 10))
				return true;
	}
	return false;
}

static uint32_t distinct_hosts(const struct xp_prep *p)
{
	uint32_t n = 0;
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		bool seen = false;
		for (uint32_t k = 0; k < h && !seen; k++)
			seen = !strcmp(p->hosts[k].host->name, p->hosts[h].host->name);
		n += !seen;
	}
	return n;
}

/* Spec §6(a): device type from any host that has a device, core counts summed. */
static void combine_env(struct overview *ov)
{
	const struct xp_prep *p = ov->p;
	memset(&ov->env, 0, sizeof ov->env);
	snprintf(ov->env.device_type, sizeof ov->env.device_type, "CPU");
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct xp_run_env e;
		xp_use_run_env(p, h, &e);
		if ((e.gpu || e.tpu) && !ov->env.gpu && !ov->env.tpu) {
			memcpy(ov->env.device_type, e.device_type, sizeof e.device_type);
			ov->env.gpu = e.gpu;
			ov->env.tpu = e.tpu;
		}
		ov->env.device_cores += e.device_cores;
		ov->env.devices_with_events += e.devices_with_events;
	}
}

/*
 * Spec §6(a): the combined step i is every host's aligned step; its time is
 * the longest of them (the step ends when the slowest host is done), while
 * the breakdown into categories comes from one host's steps only, as the
 * reference does. Shared with input-pipeline (input_bound.c); the overview
 * owns (and frees) the alignment and the step times.
 */
static void combine_steps(struct overview *ov)
{
	struct xp_breakdown_steps bs;
	xp_breakdown_steps_init(ov->p, &bs);
	ov->al = bs.al;
	ov->bh = bs.host;
	ov->view = bs.view;
	ov->step_ps = bs.step_ps;
	ov->step = bs.step;
	ov->tot = bs.tot;
}

static void gather(struct overview *ov)
{
	const struct xp_prep *p = ov->p;
	if (p->n_hosts)
		combine_steps(ov);
	combine_env(ov);
	ov->host_count = distinct_hosts(p);
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		ov->c16_ps += p->hosts[h].steps.compute16_ps;
		ov->c32_ps += p->hosts[h].steps.compute32_ps;
		ov->tf_data |= ov->hosts[h].tf_data;
		ov->tpu |= p->hosts[h].steps.tpu;
	}
	ov->bottleneck = xp_overview_bottleneck(&ov->tot, &ov->input_pct, &ov->all_others_pct, &ov->level);
}

/* --- summary and verdict ------------------------------------------------------------------ */

static void set_verdict(struct xp_result *r, const struct overview *ov)
{
	char avg[32];
	const struct xp_dur_stat st = ov->step;
	xp_format_duration(st.avg_ps, avg, sizeof avg);
	if (!strcmp(ov->bottleneck, "unknown")) {
		if (ov->tpu)
			xp_result_set_verdict(r, "TPU capture: the TPU step-time breakdown is not supported yet");
		else if (ov->al.empty_intersect)
			xp_result_set_verdict(r, "Step time unknown: the hosts have no step in common");
		else
			xp_result_set_verdict(r, "Step time unknown: no step marker observed, so the bottleneck cannot be told");
	} else if (!strcmp(ov->level, "POTENTIALLY")) {
		xp_result_set_verdict(r, "POTENTIALLY input-bound: %.1f%% of step time is '%s' time (I/O or "
				      "Python execution?); average step time %s over %zu step%s",
				      ov->all_others_pct, ov->view.pytorch ? "Other" : "All others", avg, st.n,
				      st.n == 1 ? "" : "s");
	} else if (ov->view.pytorch) {
		xp_result_set_verdict(r, "%s input-bound: %s%.1f%% of step time in DataLoader; average step time %s "
				      "over %zu step%s",
				      ov->level, strcmp(ov->level, "NOT") ? "" : "only ", ov->input_pct, avg, st.n,
				      st.n == 1 ? "" : "s");
	} else {
		xp_result_set_verdict(r, "%s input-bound: %s%.1f%% of step time waiting for input; average step time %s "
				      "over %zu step%s",
				      ov->level, strcmp(ov->level, "NOT") ? "" : "only ", ov->input_pct, avg, st.n,
				      st.n == 1 ? "" : "s");
	}
}

static void add_summary(struct xp_result *r, const struct overview *ov)
{
	const struct xp_prep *p = ov->p;
	const struct xp_step_db *db = p->n_hosts ? &p->hosts[ov->bh].steps : NULL;
	const struct xp_dur_stat st = ov->step;
	int64_t t = ov->tot.step_ps;
	xp_sum_int(r, "hosts", "Hosts", ov->host_count);
	xp_sum_str(r, "device_type", "Device type", ov->env.device_type);
	xp_sum_int(r, "device_core_count", "Device cores", ov->env.device_cores);
	xp_sum_str(r, "breakdown_host", "Breakdown from host", db ? p->hosts[ov->bh].host->name : "");
	xp_sum_int(r, "steps", "Steps", (int64_t)st.n);
	xp_sum_str(r, "step_source", "Step markers", db ? xp_step_source_name(db->source) : "none");
	xp_sum_str(r, "compat", "Compatibility", p->opts.xprof_compat ? "xprof" : "xpstat");
	xp_sum_step_stat(r, &st);
	xp_sum_str(r, "bottleneck", "Input-bound classification", ov->bottleneck);
	bool pt = ov->view.pytorch;
	/* Shares of step time are unknown without steps, the 16/32-bit split without device compute: null. */
	size_t n = st.n;
	int64_t c = ov->c16_ps + ov->c32_ps;
	xp_sum_pct(r, "input_pct", pt ? "DataLoader" : "Input", xp_pct_if_steps(n, ov->input_pct));
	xp_sum_pct(r, "output_pct", "Output", xp_pct_if_steps(n, pct_of(ov->tot.cat_ps[XP_SC_OUTPUT], t)));
	xp_sum_pct(r, "device_compute_pct", pt ? "Kernel" : "Device compute",
		   xp_pct_if_steps(n, pct_of(ov->tot.cat_ps[XP_SC_DEVICE_COMPUTE], t)));
	xp_sum_pct(r, "device_collectives_pct", pt ? "Communication" : "Device collectives",
		   xp_pct_if_steps(n, pct_of(ov->tot.cat_ps[XP_SC_DEVICE_COLLECTIVES], t)));
	xp_sum_pct(r, "kernel_launch_pct", pt ? "Runtime" : "Kernel launch",
		   xp_pct_if_steps(n, pct_of(ov->tot.cat_ps[XP_SC_KERNEL_LAUNCH], t)));
	xp_sum_pct(r, "all_others_pct", pt ? "Other" : "All others", xp_pct_if_steps(n, ov->all_others_pct));
	xp_sum_pct(r, "device_compute_16bit_pct", "16-bit device compute", c > 0 ? pct_of(ov->c16_ps, c) : NAN);
	xp_sum_pct(r, "device_compute_32bit_pct", "32-bit device compute", c > 0 ? pct_of(ov->c32_ps, c) : NAN);
	xp_sum_bool(r, "tf_data_in_use", "tf.data in use", ov->tf_data);
}

/* --- the step_time table ----------------------------------------------------------------------- */

/* The order of the TensorFlow Profiler's Performance Summary. */
static const enum xp_step_cat summary_order[] = {
	XP_SC_OTHER, XP_SC_COMPILATION, XP_SC_OUTPUT, XP_SC_INPUT, XP_SC_KERNEL_LAUNCH, XP_SC_HOST_COMPUTE,
	XP_SC_DEVICE_COLLECTIVES, XP_SC_DEVICE_TO_DEVICE, XP_SC_DEVICE_COMPUTE,
};

/* The step_time table's columns. */
enum { TIME_KEY, TIME_LABEL, TIME_AVG, TIME_SDV, TIME_MIN, TIME_MAX, TIME_SHARE };
static const struct xp_col_def time_cols[] = {
	[TIME_KEY] = {"category", "Key", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TIME_LABEL] = {"label", "Category", XP_T_STR},
	[TIME_AVG] = {"avg_ms", "Average", XP_T_DUR, XP_U_MS},
	[TIME_SDV] = {"sdv_ms", "Std dev", XP_T_DUR, XP_U_MS},
	[TIME_MIN] = {"min_ms", "Min", XP_T_DUR, XP_U_MS},
	[TIME_MAX] = {"max_ms", "Max", XP_T_DUR, XP_U_MS},
	[TIME_SHARE] = {"step_time_pct", "Share", XP_T_PCT},
};

static void time_row(struct xp_table *t, const char *key, const char *label,
		     const struct xp_dur_stat *st, double share)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, TIME_KEY, key);
	xp_set_str(t, row, TIME_LABEL, label);
	xp_set_dur(t, row, TIME_AVG, st->avg_ps);
	xp_set_dur(t, row, TIME_SDV, st->sdv_ps);
	xp_set_dur(t, row, TIME_MIN, st->min_ps);
	xp_set_dur(t, row, TIME_MAX, st->max_ps);
	xp_set_pct(t, row, TIME_SHARE, share);
}

static void step_time_table(struct xp_result *r, const struct overview *ov)
{
	struct xp_table *t = xp_result_add_table(r, "step_time", "Step-time breakdown (per step)");
	xp_table_cols(t, XP_COLS(time_cols));
	if (!ov->p->n_hosts || !ov->tot.n)
		return;
	struct xp_dur_stat st;
	time_row(t, "step_time", "Step time", &ov->step, ov->tot.step_ps > 0 ? 100 : 0);
	bool pytorch = ov->view.pytorch;
	size_t n = sizeof summary_order / sizeof *summary_order;
	/* PyTorch: the order of the PyTorch profiler's overview. */
	const enum xp_step_cat *order = pytorch ? xp_step_cats(true, &n) : summary_order;
	for (size_t i = 0; i < n; i++) {
		enum xp_step_cat c = order[i];
		xp_step_stat(&ov->view, c, &st);
		time_row(t, xp_step_cat_key(c), xp_step_cat_label_for(c, pytorch), &st,
			 pct_of(ov->tot.cat_ps[c], ov->tot.step_ps));
	}
}

/* --- top device ops (spec §1.7) ------------------------------------------------------------------ */

static struct xp_op_db *saved_device_tf_db(const struct overview *ov);

static struct xp_op_db *device_tf_db(const struct overview *ov)
{
	if (ov->cin)
		return saved_device_tf_db(ov);
	if (ov->view.pytorch) { /* PyTorch: the operators by the device self time of the kernels they launched */
		struct xp_op_db *pt = xp_pt_op_db(ov->p->cap, true);
		xp_op_db_sort(pt);
		return pt;
	}
	struct xp_op_db *tf = ov->p->shared ? xp_shared_take_device_tf(ov->p->shared) : NULL;
	if (tf)     /* built beside the preparation (warm) */
		return tf;
	struct xp_op_db_opts oo = {.xprof_compat = ov->p->opts.xprof_compat};
	tf = xp_op_db_tf_device(ov->p->cap, &oo);
	xp_op_db_sort(tf);
	return tf;
}

static bool any_module(const struct xp_op_db *db, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (db->rows[i].module)
			return true;
	return false;
}

static void top_ops_note(struct xp_table *t, const struct xp_op_db *db, size_t shown)
{
	char note[256] = "";
	size_t len = 0;
	if (db->n > shown)
		len += (size_t)snprintf(note, sizeof note, "%zu of %zu device operations; --top N shows more.", shown, db->n);
	if (db->n_dropped_xla && len < sizeof note)
		snprintf(note + len, sizeof note - len, "%s%" PRIu64 " XLA op events left out, as xprof does without HLO "
			 "protos (--compat=xprof).", len ? " " : "", db->n_dropped_xla);
	if (note[0])
		t->text_note = strdup(note);
}

enum {
	TOP_RANK, TOP_SELF, TOP_CUM, TOP_CAT, TOP_NAME, TOP_MOD, TOP_OCC, TOP_ST, TOP_EAGER
};
static const struct xp_col_def top_op_cols[] = {
	[TOP_RANK] = {"rank", "#", XP_T_INT},
	[TOP_SELF] = {"self_time_pct", "Time", XP_T_PCT},
	[TOP_CUM] = {"cumulative_time_pct", "Cumulative", XP_T_PCT},
	[TOP_CAT] = {"category", "Category", XP_T_STR},
	[TOP_NAME] = {"operation", "Operation", XP_T_STR},
	[TOP_MOD] = {"hlo_module", "HLO module", XP_T_STR},
	[TOP_OCC] = {"occurrences", "Occurrences", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[TOP_ST] = {"self_time_us", "Self time", XP_T_DUR, XP_U_US},
	[TOP_EAGER] = {"is_eager", "Eager", XP_T_BOOL, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

/* The rows shown, made into cells when written: the device ops with their texts (the database's pool, kept
 * when the rest of the database is freed) and cumulative self time, 48 bytes an op rather than a cell per column
 * (a capture of 300,000 ops has as many rows in a report). */
struct top_rows {
	struct xp_pool *texts;
	struct top_op {
		const char *name, *category, *module;
		int64_t self_ps, cum_ps;
		uint64_t occurrences;
		bool is_eager;
	} *ops;
	int64_t total_ps;
};

static void fill_top(void *src, size_t row, struct xp_cell *cells, char *text, size_t size)
{
	(void)text;
	(void)size;
	const struct top_rows *t = src;
	const struct top_op *op = &t->ops[row];
	cells[TOP_RANK] = (struct xp_cell){.type = XP_T_INT, .v.i = (int64_t)row + 1};
	cells[TOP_SELF] = (struct xp_cell){.type = XP_T_PCT, .v.d = pct_of(op->self_ps, t->total_ps)};
	cells[TOP_CUM] = (struct xp_cell){.type = XP_T_PCT, .v.d = pct_of(op->cum_ps, t->total_ps)};
	xp_cell_text(&cells[TOP_CAT], op->category ? op->category : "");
	xp_cell_text(&cells[TOP_NAME], op->name);
	xp_cell_text(&cells[TOP_MOD], op->module);
	cells[TOP_OCC] = (struct xp_cell){.type = XP_T_INT, .v.i = (int64_t)op->occurrences};
	cells[TOP_ST] = (struct xp_cell){.type = XP_T_DUR, .v.i = op->self_ps};
	cells[TOP_EAGER] = (struct xp_cell){.type = XP_T_BOOL, .v.b = op->is_eager};
}

static void release_top(void *src)
{
	struct top_rows *t = src;
	xp_pool_free(t->texts);
	free(t->ops);
	free(t);
}

/* DB's first N rows as top rows; DB is freed. */
static struct top_rows *top_rows_of(struct xp_op_db *db, size_t n)
{
	struct top_rows *t = xcalloc(1, sizeof *t);
	t->ops = xcalloc(n ? n : 1, sizeof *t->ops);
	t->total_ps = db->total_op_time_ps;
	int64_t cum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct xp_op_row *op = &db->rows[i];
		cum += op->self_ps;
		t->ops[i] = (struct top_op){op->name, op->category, op->module, op->self_ps, cum, op->occurrences,
					    op->is_eager};
	}
	t->texts = xp_op_db_take_texts(db);
	xp_op_db_free(db);
	return t;
}

static void top_ops_table(struct xp_result *r, struct overview *ov)
{
	struct xp_op_db *db = ov->device ? ov->device : device_tf_db(ov);
	size_t n = ov->o && ov->o->top_ops ? ov->o->top_ops : DEFAULT_TOP_OPS;
	if (n > db->n)
		n = db->n;
	struct xp_table *t = xp_result_add_table(r, "top_ops", "Top device operations (self time)");
	xp_table_cols(t, XP_COLS(top_op_cols));
	xp_col_hide(t, TOP_MOD, !any_module(db, n));
	top_ops_note(t, db, n);
	xp_table_rows_from(t, n, fill_top, top_rows_of(db, n), release_top);
	ov->device = NULL;
}

/* --- run environment ------------------------------------------------------------------------------ */

enum {
	ENV_HOST, ENV_TYPE, ENV_CORES, ENV_ACT, ENV_STEPS, ENV_SRC
};
static const struct xp_col_def env_cols[] = {
	[ENV_HOST] = {"host", "Host", XP_T_STR},
	[ENV_TYPE] = {"device_type", "Device type", XP_T_STR},
	[ENV_CORES] = {"device_core_count", "Device cores", XP_T_INT},
	[ENV_ACT] = {"devices_with_events", "With events", XP_T_INT},
	[ENV_STEPS] = {"steps", "Steps", XP_T_INT},
	[ENV_SRC] = {"step_source", "Step markers", XP_T_STR},
};

static void environment_table(struct xp_result *r, const struct overview *ov)
{
	struct xp_table *t = xp_result_add_table(r, "run_environment", "Run environment");
	xp_table_cols(t, XP_COLS(env_cols));
	for (uint32_t h = 0; h < ov->p->n_hosts; h++) {
		const struct xp_prep_host *ph = &ov->p->hosts[h];
		struct xp_run_env e;
		xp_use_run_env(ov->p, h, &e);
		size_t row = xp_table_row(t);
		xp_set_str(t, row, ENV_HOST, ph->host->name);
		xp_set_str(t, row, ENV_TYPE, e.device_type);
		xp_set_int(t, row, ENV_CORES, e.device_cores);
		xp_set_int(t, row, ENV_ACT, e.devices_with_events);
		xp_set_int(t, row, ENV_STEPS, (int64_t)ph->steps.n);
		xp_set_str(t, row, ENV_SRC, xp_step_source_name(ph->steps.source));
	}
}

/* --- recommendation (spec §1.10) ------------------------------------------------------------------- */

struct reco_cols {
	struct xp_table *t;
};

enum { RECO_TOPIC, RECO_LEVEL, RECO_MESSAGE };
static const struct xp_col_def reco_cols[] = {
	[RECO_TOPIC] = {"topic", "Topic", XP_T_STR},
	[RECO_LEVEL] = {"level", "Level", XP_T_STR},
	[RECO_MESSAGE] = {"message", "Recommendation", XP_T_STR},
};

static void reco_row(const struct reco_cols *rc, const char *topic, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void reco_row(const struct reco_cols *rc, const char *topic, const char *level, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t row = xp_table_row(rc->t);
	xp_set_str(rc->t, row, RECO_TOPIC, topic);
	if (level)
		xp_set_str(rc->t, row, RECO_LEVEL, level);
	xp_set_str(rc->t, row, RECO_MESSAGE, buf);
}

static const char *level_of(double pct)
{
	return pct >= HIGH_PCT ? "high" : pct >= MODERATE_PCT ? "moderate" : "no";
}

static void input_row(const struct reco_cols *rc, const struct overview *ov)
{
	char text[512];
	xp_input_statement(ov->level, ov->input_pct, ov->all_others_pct, text, sizeof text);
	reco_row(rc, "input", ov->bottleneck, "%s", text);
}

/* Kernel launch, all others, device collectives: the reference's statement when high or moderate, else why not. */
static void level_rows(const struct reco_cols *rc, const struct overview *ov)
{
	int64_t t = ov->tot.step_ps;
	double coll = pct_of(ov->tot.cat_ps[XP_SC_DEVICE_COLLECTIVES], t);
	double kl = pct_of(ov->tot.cat_ps[XP_SC_KERNEL_LAUNCH], t);
	double ao = ov->all_others_pct;
	if (t <= 0)
		return;
	if (strcmp(level_of(coll), "no"))
		reco_row(rc, "device_collectives", level_of(coll), "%.1f %% of the total step time sampled is spent on "
			 "'Device Collective Communication'.", coll);
	else
		reco_row(rc, "device_collectives", "no", "%.1f %% of the total step time sampled is spent on 'Device "
			 "Collective Communication': below 3 %%.", coll);
	if (strcmp(level_of(kl), "no"))
		reco_row(rc, "kernel_launch", level_of(kl), "%.1f %% of the total step time sampled is spent on 'Kernel "
			 "Launch'.%s", kl, ov->tf_data ? " It could be due to CPU contention with tf.data. In this case, you "
			 "may try to set the environment variable TF_GPU_THREAD_MODE=gpu_private." : "");
	else
		reco_row(rc, "kernel_launch", "no", "%.1f %% of the total step time sampled is spent on 'Kernel Launch': "
			 "below 3 %%.", kl);
	if (!strcmp(ov->level, "POTENTIALLY"))
		reco_row(rc, "all_others", "no", "Reported with the input analysis above.");
	else if (strcmp(level_of(ao), "no"))
		reco_row(rc, "all_others", level_of(ao), "%.1f %% of the total step time sampled is spent on 'All Others' "
			 "time. This could be due to Python execution overhead.", ao);
	else
		reco_row(rc, "all_others", "no", "%.1f %% of the total step time sampled is spent on 'All Others' time: "
			 "below 3 %%.", ao);
}

static void precision_row(const struct reco_cols *rc, const struct overview *ov)
{
	int64_t total = ov->c16_ps + ov->c32_ps;
	double p16 = pct_of(ov->c16_ps, total);
	if (total <= 0)
		reco_row(rc, "precision", "no", "No device compute time: nothing to say about precision.");
	else if (p16 < LOW_16BIT_PCT)
		reco_row(rc, "precision", "low", "Only %.1f%% of device computation is 16 bit. So you might want to replace "
			 "more 32-bit Ops by 16-bit Ops to improve performance (if the reduced accuracy is acceptable).", p16);
	else
		reco_row(rc, "precision", "no", "%.1f%% of device computation is 16 bit.", p16);
}

static void next_step_row(const struct reco_cols *rc, const struct overview *ov)
{
	const char *b = ov->bottleneck;
	if (strcmp(b, "host") && strcmp(b, "both"))
		reco_row(rc, "next_step", NULL, "You may skip the rest of this page.");
	else if (!ov->tf_data)
		reco_row(rc, "next_step", NULL, "Consider using the tf.data API (https://www.tensorflow.org/guide/data) to "
			 "enable profiler's host-side analysis for input pipeline. Profiler currently does not support custom "
			 "input pipeline (please ignore Section 3 below).");
	else
		reco_row(rc, "next_step", NULL, "Look at Section 3 for the breakdown of input time on the host "
			 "(xpstat input-pipeline).");
}

/* Input-bound: what the host-side breakdown and the tf.data bottleneck analysis say to change (input_pipeline.c). */
static void input_advice_rows(const struct reco_cols *rc, const struct overview *ov)
{
	if (strcmp(ov->bottleneck, "host") && strcmp(ov->bottleneck, "both"))
		return;
	struct xp_input_advice a;
	xp_input_advice(ov->p, &ov->tot, &a);
	reco_row(rc, "host_input", a.host_level, "%s", a.host);
	reco_row(rc, "tf_data", a.tf_data_level, "%s", a.tf_data);
}

/* The reference's tips, with the xpstat command that shows the same; the tips of the non-bottleneck side are left out. */
static void tip_rows(const struct reco_cols *rc, const struct overview *ov)
{
	const char *hw = ov->env.gpu ? "GPU" : ov->env.tpu ? "TPU core" : "CPU";
	if (strcmp(ov->bottleneck, "device")) {
		reco_row(rc, "tip_host", NULL, "input_pipeline_analyzer (especially Section 3 for the breakdown of input "
			 "operations on the Host): xpstat input-pipeline");
		reco_row(rc, "tip_host", NULL, "trace_viewer (look at the activities on the timeline of each Host Thread "
			 "near the bottom of the trace view)");
	}
	if (strcmp(ov->bottleneck, "host")) {
		reco_row(rc, "tip_device", NULL, "framework_op_stats (identify the time-consuming operations executed on the "
			 "%s): xpstat tf-stats", hw);
		reco_row(rc, "tip_device", NULL, "trace_viewer (look at the activities on the timeline of each %s in the "
			 "trace view)", hw);
	}
	reco_row(rc, "doc", NULL, "Analyze tf.data performance with the TF Profiler "
		 "(https://www.tensorflow.org/guide/data_performance_analysis)");
	reco_row(rc, "doc", NULL, "Better performance with the tf.data API (https://www.tensorflow.org/guide/data_performance)");
	reco_row(rc, "faq", NULL, "Refer to the TF2 Profiler FAQ (https://www.tensorflow.org/guide/profiler#faq)");
}

/* Whether a GPU of host H has Tensor Cores (compute capability 7.0 or later). */
static bool has_tensor_cores(const struct xp_capture *c, const struct xp_host *h)
{
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		uint32_t sid = p->kind == XP_PLANE_GPU ? xp_plane_stat_id(c, p, "compute_cap_major") : 0;
		struct xp_value v;
		int64_t major;
		if (sid && xp_view_find(c, xp_plane_stats(p), sid, &v) && xp_value_int(&v, &major) && major >= 7)
			return true;
	}
	return false;
}

/* The PyTorch profiler's AMP advice: the eligible share when the GPUs have Tensor Cores that no kernel used. */
static double pt_amp_pct(const struct overview *ov)
{
	int64_t of = 0, elig = 0, tc = 0;
	bool cores = false;
	for (uint32_t h = 0; h < ov->p->n_hosts; h++) {
		const struct ov_host *f = &ov->hosts[h];
		if (!f->pytorch)
			continue;
		of = xp_sat_add(of, f->pt_op_kernel_ps);
		elig = xp_sat_add(elig, f->pt_tc_bottom_ps);
		tc = xp_sat_add(tc, f->pt_tc_kernel_ps);
		cores |= f->tensor_cores;
	}
	return cores && !tc && of > 0 ? 100.0 * (double)elig / (double)of : -1;
}

static void recommendation_table(struct xp_result *r, const struct overview *ov)
{
	struct reco_cols rc;
	rc.t = xp_result_add_table(r, "recommendation", "Recommendation");
	xp_table_cols(rc.t, XP_COLS(reco_cols));
	if (ov->view.pytorch) {
		struct xp_reco_rows rows;
		xp_pytorch_advice(&ov->tot, pt_amp_pct(ov), &rows);
		for (size_t i = 0; i < rows.n; i++)
			reco_row(&rc, rows.row[i].topic, rows.row[i].level[0] ? rows.row[i].level : NULL, "%s",
				 rows.row[i].text);
		return;
	}
	input_row(&rc, ov);
	level_rows(&rc, ov);
	precision_row(&rc, ov);
	next_step_row(&rc, ov);
	input_advice_rows(&rc, ov);
	tip_rows(&rc, ov);
}

/* --- diagnostics (spec §6e) ------------------------------------------------------------------------- */

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* XSpace errors or warnings of a host, de-duplicated and sorted as the reference does: *N of them in *OUT. */
static void sorted_messages(const struct xp_capture *c, const struct xp_host *h, bool errors, const char ***out,
			    size_t *n)
{
	uint32_t k = errors ? h->n_errors : h->n_warnings;
	const uint32_t *ids = errors ? h->errors : h->warnings;
	const char **s = xcalloc(k ? k : 1, sizeof *s);
	for (uint32_t i = 0; i < k; i++)
		s[i] = xp_str(c, ids[i]);
	qsort(s, k, sizeof *s, cmp_cstr);
	*n = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!i || strcmp(s[i], s[i - 1]))
			s[(*n)++] = s[i];
	*out = s;
}

static void capture_messages(struct xp_result *r, const char *host, const struct ov_host *f, bool errors)
{
	const char *const *s = f->msgs[errors ? 0 : 1];
	size_t n = f->n_msgs[errors ? 0 : 1];
	for (size_t i = 0; i < n; i++) {
		if (errors)
			xp_result_diag(r, XP_SEV_ERROR, "capture_error", host,
				       "the profiler reported this while capturing; the analyses may miss data", "%s", s[i]);
		else
			xp_result_diag(r, XP_SEV_WARNING, "capture_warning", host,
				       "the profiler reported this while capturing", "%s", s[i]);
	}
}

static void device_diag(struct xp_result *r, const struct xp_prep *p, uint32_t host)
{
	const struct xp_host *h = p->hosts[host].host;
	struct xp_run_env e;
	xp_use_run_env(p, host, &e);
	if (!e.gpu || e.devices_with_events)
		return;
	xp_result_diag(r, XP_SEV_WARNING, "no_device_trace", h->name,
		       "check that CUPTI (libcupti) was found when profiling (LD_LIBRARY_PATH) and profile while the "
		       "job runs work on the GPU",
		       "No device trace was collected: %" PRIu32 " GPU plane%s without events. This might happen if your "
		       "job hadn't been run on the device when sampling was turned on.",
		       e.device_cores, e.device_cores == 1 ? "" : "s");
}

static void add_diags(struct xp_result *r, const struct overview *ov)
{
	const struct xp_prep *p = ov->p;
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		const struct xp_host *host = p->hosts[h].host;
		capture_messages(r, host->name, &ov->hosts[h], true);
		capture_messages(r, host->name, &ov->hosts[h], false);
		device_diag(r, p, h);
		xp_step_diags(r, p, h);
	}
	xp_align_diags(r, p, &ov->al);
	if (p->n_hosts > 1 && ov->tot.n)
		xp_result_diag(r, XP_SEV_INFO, "breakdown_host", NULL,
			       "xpstat pod shows the step breakdown of every host side by side",
			       "%" PRIu32 " hosts, %zu steps common to all: the step time of a step is the longest host's; "
			       "the categories come from the steps of host %s only, as the TensorFlow Profiler does; top "
			       "operations, precision and the run environment use every host",
			       p->n_hosts, ov->al.n, p->hosts[ov->bh].host->name);
}

static struct xp_result *analyze(const struct xp_prep *p, const struct xp_overview_opts *o, const struct ov_host *hosts,
				 const struct xp_combine_in *cin)
{
	struct xp_result *r = xp_result_new("overview");
	struct overview ov = {.p = p, .o = o, .hosts = hosts, .cin = cin};
	gather(&ov);
	/* From saved state, first, so that a state that does not read back stops it before anything is made. */
	if (cin && !(ov.device = device_tf_db(&ov))) {
		xp_step_align_free(&ov.al);
		free(ov.step_ps);
		xp_result_free(r);
		return NULL;
	}
	set_verdict(r, &ov);
	add_summary(r, &ov);
	step_time_table(r, &ov);
	r->primary = 0;
	top_ops_table(r, &ov);
	environment_table(r, &ov);
	recommendation_table(r, &ov);
	add_diags(r, &ov);
	xp_step_align_free(&ov.al);
	/* The step times go to the text sparkline (text only). */
	r->spark_ps = ov.step_ps;
	r->n_spark = ov.step_ps ? ov.step.n : 0;
	return r;
}

/* --- each host's facts ----------------------------------------------------------------------------- */

static void host_facts(const struct xp_capture *c, const struct xp_host *h, struct ov_host *f)
{
	f->tf_data = has_tf_data(c, h);
	f->tensor_cores = has_tensor_cores(c, h);
	sorted_messages(c, h, true, &f->msgs[0], &f->n_msgs[0]);
	sorted_messages(c, h, false, &f->msgs[1], &f->n_msgs[1]);
	if (!(f->pytorch = xp_host_is_pytorch(h)))
		return;
	struct xp_pt_ops *db = xp_pt_ops_build(c, h);
	f->pt_op_kernel_ps = db->op_kernel_ps;
	f->pt_tc_bottom_ps = db->tc_bottom_ps;
	f->pt_tc_kernel_ps = db->tc_kernel_ps;
	xp_pt_ops_free(db);
}

static struct ov_host *capture_facts(const struct xp_prep *p)
{
	struct ov_host *f = xcalloc(p->n_hosts ? p->n_hosts : 1, sizeof *f);
	for (uint32_t h = 0; h < p->n_hosts; h++)
		host_facts(p->cap, p->hosts[h].host, &f[h]);
	return f;
}

static void facts_free(struct ov_host *f, uint32_t n, bool texts)
{
	for (uint32_t h = 0; f && h < n; h++)
		for (int k = 0; k < 2; k++) {
			for (size_t i = 0; texts && i < f[h].n_msgs[k]; i++)
				free((char *)f[h].msgs[k][i]);
			free(f[h].msgs[k]);
		}
	free(f);
}

struct xp_result *xp_analyze_overview(const struct xp_prep *p, const struct xp_overview_opts *o)
{
	struct ov_host *hosts = capture_facts(p);
	struct xp_result *r = analyze(p, o, hosts, NULL);
	facts_free(hosts, p->n_hosts, false);
	return r;
}

/* --- saved state (combine) -------------------------------------------------------------------------- */

/*
 * Two tables, every row naming its host: ov_hosts (its facts: tf.data, PyTorch, Tensor Cores, the AMP advice's
 * kernel times) and ov_messages (the capture's errors and warnings, sorted, each once). The device op rows are
 * tf-stats' (tfs_rows: their is_eager flag by the stats alone is overview's), the run environments
 * input-pipeline's (run_env).
 */
enum { OH_HOST, OH_TF_DATA, OH_PT, OH_TC, OH_PT_OP, OH_PT_BOTTOM, OH_PT_TC, OH_N };
static const struct xp_col_def oh_cols[OH_N] = {
	[OH_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[OH_TF_DATA] = {"tf_data", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[OH_PT] = {"pytorch", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[OH_TC] = {"tensor_cores", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[OH_PT_OP] = {"pt_op_kernel_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[OH_PT_BOTTOM] = {"pt_tc_bottom_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[OH_PT_TC] = {"pt_tc_kernel_ps", NULL, XP_T_STR, XP_U_NONE, 0},
};
enum { OM_HOST, OM_ERROR, OM_TEXT, OM_N };
static const struct xp_col_def om_cols[OM_N] = {
	[OM_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[OM_ERROR] = {"error", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[OM_TEXT] = {"text", NULL, XP_T_STR, XP_U_NONE, 0},
};
static void oh_columns(struct xp_table *t) { xp_table_cols(t, oh_cols, OH_N); }
static void om_columns(struct xp_table *t) { xp_table_cols(t, om_cols, OM_N); }

static void save_state(struct xp_result *state, const struct xp_prep *p, const struct ov_host *hosts)
{
	struct xp_table *t = xp_state_table_of(state, "ov_hosts", oh_columns);
	struct xp_table *m = xp_state_table_of(state, "ov_messages", om_columns);
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		const struct ov_host *f = &hosts[h];
		const char *name = p->hosts[h].host->name;
		size_t row = xp_table_row(t);
		xp_set_str(t, row, OH_HOST, name);
		xp_set_bool(t, row, OH_TF_DATA, f->tf_data);
		xp_set_bool(t, row, OH_PT, f->pytorch);
		xp_set_bool(t, row, OH_TC, f->tensor_cores);
		xp_state_set_i64(t, row, OH_PT_OP, f->pt_op_kernel_ps);
		xp_state_set_i64(t, row, OH_PT_BOTTOM, f->pt_tc_bottom_ps);
		xp_state_set_i64(t, row, OH_PT_TC, f->pt_tc_kernel_ps);
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < f->n_msgs[k]; i++) {
				size_t mr = xp_table_row(m);
				xp_set_str(m, mr, OM_HOST, name);
				xp_set_bool(m, mr, OM_ERROR, k == 0);
				xp_set_str(m, mr, OM_TEXT, f->msgs[k][i]);
			}
	}
}

static bool read_messages(const struct xp_table *m, const char *name, struct ov_host *f)
{
	for (size_t row = 0; m && row < m->n_rows; row++) {
		const char *hn = xp_state_str(m, row, OM_HOST), *text = xp_state_str(m, row, OM_TEXT);
		bool error;
		if (!hn || !text || !xp_state_bool(m, row, OM_ERROR, &error))
			return false;
		if (strcmp(hn, name))
			continue;
		int k = error ? 0 : 1;
		f->msgs[k] = xrealloc(f->msgs[k], (f->n_msgs[k] + 1) * sizeof *f->msgs[k]);
		f->msgs[k][f->n_msgs[k]] = strdup(text);
		if (!f->msgs[k][f->n_msgs[k]++])
			xp_oom();
	}
	return true;
}

static bool read_facts(const struct xp_state_host *sh, struct ov_host *f)
{
	const struct xp_table *t = xp_state_table(sh->state, "ov_hosts", oh_columns);
	const struct xp_table *m = xp_state_table(sh->state, "ov_messages", om_columns);
	const char *name = xp_state_host_name(sh->state, sh->row);
	if (!t || !name || (!m && xp_result_table(sh->state, "ov_messages")))
		return false;
	for (size_t row = 0; row < t->n_rows; row++) {
		const char *hn = xp_state_str(t, row, OH_HOST);
		if (!hn)
			return false;
		if (strcmp(hn, name))
			continue;
		return xp_state_bool(t, row, OH_TF_DATA, &f->tf_data) && xp_state_bool(t, row, OH_PT, &f->pytorch) &&
		       xp_state_bool(t, row, OH_TC, &f->tensor_cores) && xp_state_i64(t, row, OH_PT_OP, &f->pt_op_kernel_ps) &&
		       xp_state_i64(t, row, OH_PT_BOTTOM, &f->pt_tc_bottom_ps) &&
		       xp_state_i64(t, row, OH_PT_TC, &f->pt_tc_kernel_ps) && read_messages(m, name, f);
	}
	return false;
}

static struct xp_op_db *not_read_back(const struct overview *ov, uint32_t h, const char *what)
{
	xp_err_set(ov->cin->err, XP_EXIT_BAD_INPUT, ov->cin->hosts[h].path, "the %s of host %s does not read back: not a "
		   "report as this xpstat writes it", what, ov->cin->hosts[h].name);
	return NULL;
}

/* PyTorch: the operators of every PyTorch host as device op rows (xp_pt_op_db), from tf-stats' saved operators. */
static struct xp_op_db *saved_pt_db(const struct overview *ov)
{
	uint32_t n = ov->p->n_hosts;
	struct xp_capture names = {.n_hosts = 0};
	xp_strtab_init(&names.strings);
	struct xp_op_db *db = xp_op_db_empty();
	for (uint32_t h = 0; h < n && db; h++) {
		struct xp_tfs_host f;
		if (!xp_tfs_host_from_state(&ov->cin->hosts[h], &names, &f)) {
			xp_op_db_free(db);
			db = not_read_back(ov, h, "tf-stats state");
		} else if (f.pytorch) {
			xp_pt_op_rows(&names, f.pt, f.n_pt, true, db);
		}
		free(f.pt);
	}
	xp_strtab_free(&names.strings);
	return db;
}

/* The TF-level device op DB of device_tf_db, from the hosts' saved device op DBs (tf-stats'), merged in host
 * order with the eager flags overview's own build gives (by the is_eager stats alone). NULL with the error set
 * when a state does not read back. */
static struct xp_op_db *saved_device_tf_db(const struct overview *ov)
{
	static const struct xp_packed_tables tables = XP_TFS_DEVICE_TABLES;
	struct xp_op_db *db = ov->view.pytorch ? saved_pt_db(ov) : xp_op_db_empty();
	for (uint32_t h = 0; !ov->view.pytorch && h < ov->p->n_hosts; h++) {
		struct xp_op_db *one = xp_op_db_from_packed_state(&ov->cin->hosts[h], &tables, "device");
		if (!one) {
			xp_op_db_free(db);
			return not_read_back(ov, h, "device op state");
		}
		for (size_t i = 0; i < one->n; i++)
			one->rows[i].is_eager = one->rows[i].is_eager_stat;
		db = xp_op_db_absorb(db, one);
	}
	if (db && !ov->view.pytorch) {
		struct xp_op_db *tf = xp_op_db_tf_level(db, false);
		xp_op_db_free(db);
		db = tf;
	}
	if (db)
		xp_op_db_sort(db);
	return db;
}

/* Alone: the --top rows; in a report every device op, text showing the first. */
static struct xp_result *run(const struct xp_run_in *in)
{
	struct xp_overview_opts o = {.top_ops = SIZE_MAX};
	if (in->opts)
		o = *(const struct xp_overview_opts *)in->opts;
	o.xprof_compat = in->xprof_compat;
	struct ov_host *hosts = capture_facts(in->p);
	struct xp_result *r = analyze(in->p, &o, hosts, NULL);
	if (in->state)
		save_state(in->state, in->p, hosts);
	facts_free(hosts, in->p->n_hosts, false);
	if (!in->opts)
		xp_text_top(r, "top_ops", XP_REPORT_TEXT_TOP);
	return r;
}

/* Several hosts from their saved state, with the options its command takes by default. */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	uint32_t n = in->p->n_hosts;
	struct ov_host *hosts = xcalloc(n ? n : 1, sizeof *hosts);
	struct xp_result *r = NULL;
	uint32_t h = 0;
	while (h < n && read_facts(&in->hosts[h], &hosts[h]))
		h++;
	if (h < n) {
		xp_err_set(in->err, XP_EXIT_BAD_INPUT, in->hosts[h].path, "the overview state of host %s does not read "
			   "back: not a report as this xpstat writes it", in->hosts[h].name);
	} else {
		/* As report runs it: every device op, the first rows as text. */
		struct xp_overview_opts o = {.xprof_compat = in->xprof_compat, .top_ops = in->report ? SIZE_MAX : 0};
		r = analyze(in->p, &o, hosts, in);
		if (in->report)
			xp_text_top(r, "top_ops", XP_REPORT_TEXT_TOP);
	}
	facts_free(hosts, n, true);
	return r;
}

/* Its own, tf-stats' (the device op rows) and input-pipeline's (host op DB, run environments, tf.data model: the
 * input advice's). */
static const char *const state_tables[] = {"ov_hosts", "ov_messages", XP_TFS_STATE_TABLES, XP_OPDB_STATE_TABLES,
					   XP_TFDATA_STATE_TABLES, NULL};

/* Run alone: what it reads of the capture alone, beside the preparation (the device op DB of a PyTorch capture
 * is its operators', made from the preparation). */
static void warm(struct xp_shared *s, bool xprof_compat)
{
	xp_shared_warm_inputs(s, xprof_compat);
	const struct xp_capture *c = xp_shared_capture(s);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		if (xp_host_is_pytorch(&c->hosts[h]))
			return;
	xp_shared_warm_device_tf(s, xprof_compat);
}

const struct xp_analysis xp_analysis_overview = {
	.name = "overview",
	.needs = XP_NEEDS_PREP,
	.reads = NULL,
	.opts_size = sizeof(struct xp_overview_opts),
	.run = run,
	.warm = warm,
	.combine = combine,
	.state_tables = state_tables,
};
