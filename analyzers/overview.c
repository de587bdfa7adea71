/* overview.c - the Overview page: step-time summary, precision, top device ops, run environment, recommendation (spec §1.6-§1.11). */
#include "overview.h"
#include "formats/core/satint.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/input_bound.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/perfenv.h"
#include "analyzers/db/steptime.h"
#include "analyzers/db/pt_advice.h"
#include "analyzers/db/pt_ops.h"
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

struct overview {
	const struct xp_prep *p;
	const struct xp_overview_opts *o;
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
		xp_run_env_host(p->cap, p->hosts[h].host, &e);
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
		ov->tf_data |= has_tf_data(p->cap, p->hosts[h].host);
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

static struct xp_op_db *device_tf_db(const struct overview *ov)
{
	if (ov->view.pytorch) { /* PyTorch: the operators by the device self time of the kernels they launched */
		struct xp_op_db *pt = xp_pt_op_db(ov->p->cap, true);
		xp_op_db_sort(pt);
		return pt;
	}
	struct xp_op_db_opts oo = {.xprof_compat = ov->p->opts.xprof_compat};
	struct xp_op_db *all = xp_op_db_empty();
	for (uint32_t h = 0; h < ov->p->n_hosts; h++) {
		struct xp_op_db *one = xp_op_db_device(ov->p->cap, ov->p->hosts[h].host, &oo);
		all = xp_op_db_absorb(all, one);
	}
	struct xp_op_db *tf = xp_op_db_tf_level(all, false);
	xp_op_db_free(all);
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

static void top_ops_table(struct xp_result *r, const struct overview *ov)
{
	struct xp_op_db *db = device_tf_db(ov);
	size_t n = ov->o && ov->o->top_ops ? ov->o->top_ops : DEFAULT_TOP_OPS;
	if (n > db->n)
		n = db->n;
	struct xp_table *t = xp_result_add_table(r, "top_ops", "Top device operations (self time)");
	xp_table_cols(t, XP_COLS(top_op_cols));
	xp_col_hide(t, TOP_MOD, !any_module(db, n));
	int64_t cum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct xp_op_row *op = &db->rows[i];
		size_t row = xp_table_row(t);
		cum += op->self_ps;
		xp_set_int(t, row, TOP_RANK, (int64_t)i + 1);
		xp_set_pct(t, row, TOP_SELF, pct_of(op->self_ps, db->total_op_time_ps));
		xp_set_pct(t, row, TOP_CUM, pct_of(cum, db->total_op_time_ps));
		xp_set_str(t, row, TOP_CAT, op->category ? op->category : "");
		xp_set_str(t, row, TOP_NAME, op->name);
		if (op->module)
			xp_set_str(t, row, TOP_MOD, op->module);
		xp_set_int(t, row, TOP_OCC, (int64_t)op->occurrences);
		xp_set_dur(t, row, TOP_ST, op->self_ps);
		xp_set_bool(t, row, TOP_EAGER, op->is_eager);
	}
	top_ops_note(t, db, n);
	xp_op_db_free(db);
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
		xp_run_env_host(ov->p->cap, ph->host, &e);
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
static double pt_amp_pct(const struct xp_capture *c)
{
	int64_t of = 0, elig = 0, tc = 0;
	bool cores = false;
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		if (!xp_host_is_pytorch(&c->hosts[h]))
			continue;
		struct xp_pt_ops *db = xp_pt_ops_build(c, &c->hosts[h]);
		of = xp_sat_add(of, db->op_kernel_ps);
		elig = xp_sat_add(elig, db->tc_bottom_ps);
		tc = xp_sat_add(tc, db->tc_kernel_ps);
		cores |= has_tensor_cores(c, &c->hosts[h]);
		xp_pt_ops_free(db);
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
		xp_pytorch_advice(&ov->tot, pt_amp_pct(ov->p->cap), &rows);
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

/* XSpace errors or warnings, de-duplicated and sorted as the reference does. */
static void capture_messages(struct xp_result *r, const struct xp_capture *c, const struct xp_host *h, bool errors)
{
	uint32_t n = errors ? h->n_errors : h->n_warnings;
	const uint32_t *ids = errors ? h->errors : h->warnings;
	if (!n)
		return;
	const char **s = calloc(n, sizeof *s);
	if (!s)
		xp_oom();
	for (uint32_t i = 0; i < n; i++)
		s[i] = xp_str(c, ids[i]);
	qsort(s, n, sizeof *s, cmp_cstr);
	for (uint32_t i = 0; i < n; i++) {
		if (i && !strcmp(s[i], s[i - 1]))
			continue;
		if (errors)
			xp_result_diag(r, XP_SEV_ERROR, "capture_error", h->name,
				       "the profiler reported this while capturing; the analyses may miss data", "%s", s[i]);
		else
			xp_result_diag(r, XP_SEV_WARNING, "capture_warning", h->name,
				       "the profiler reported this while capturing", "%s", s[i]);
	}
	free(s);
}

static void device_diag(struct xp_result *r, const struct xp_capture *c, const struct xp_host *h)
{
	struct xp_run_env e;
	xp_run_env_host(c, h, &e);
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
		capture_messages(r, p->cap, host, true);
		capture_messages(r, p->cap, host, false);
		device_diag(r, p->cap, host);
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

struct xp_result *xp_analyze_overview(const struct xp_prep *p, const struct xp_overview_opts *o)
{
	struct xp_result *r = xp_result_new("overview");
	struct overview ov = {.p = p, .o = o};
	gather(&ov);
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

/* Alone: the --top rows; in a report every device op, text showing the first. */
static struct xp_result *run(const struct xp_run_in *in)
{
	struct xp_overview_opts o = {.top_ops = SIZE_MAX};
	if (in->opts)
		o = *(const struct xp_overview_opts *)in->opts;
	o.xprof_compat = in->xprof_compat;
	struct xp_result *r = xp_analyze_overview(in->p, &o);
	if (!in->opts)
		xp_text_top(r, "top_ops", XP_REPORT_TEXT_TOP);
	return r;
}

const struct xp_analysis xp_analysis_overview = {
	.name = "overview",
	.needs = XP_NEEDS_PREP,
	.reads = NULL,
	.opts_size = sizeof(struct xp_overview_opts),
	.run = run,
};
