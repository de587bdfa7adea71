/* input_pipeline.c - the Input Pipeline Analyzer: input-bound verdict, device-side step statistics, host-side breakdown, input ops (spec §2). */
#include "input_pipeline.h"
#include "formats/core/xalloc.h"
#include "analyzers/db/input_bound.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/perfenv.h"
#include "analyzers/db/shared.h"
#include "analyzers/db/steptime.h"
#include "analyzers/db/hostdb.h"
#include "analyzers/db/opdb_state.h"
#include "analyzers/db/tfdata_state.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STEPS_TEXT_ROWS 20
#define INPUT_OPS_TEXT_ROWS 25

static double pct_of(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* --- input ops (spec §2.2) ------------------------------------------------------------------ */

const char *xp_input_cat_label(enum xp_input_cat c)
{
	switch (c) {
	case XP_IC_ENQUEUE: return "Enqueue";
	case XP_IC_DEMANDED_READ: return "Demanded file read";
	case XP_IC_ADVANCED_READ: return "Advanced file read";
	case XP_IC_PREPROCESSING: return "Preprocessing";
	case XP_IC_UNKNOWN:
	case XP_N_INPUT_CATS:
		break;
	}
	return "Unknown";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool ends_with_any(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ends_with(s, list[i]))
			return true;
	return false;
}

static bool contains_any(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(s, list[i]))
			return true;
	return false;
}

/* A dataset op: reading from files (in advance when a buffering iterator is in its path) or preprocessing. */
static enum xp_input_cat dataset_category(const char *name)
{
	static const char *const readers[] = {
		"::TFRecord", "::TextLine", "::FixedLengthRecord", "::SSTable", "::RecordIO", "::ArrayRecord",
	};
	static const char *const advance[] = {
		"::MemoryReader", "::MemoryWriter", "::Interleave", "::Prefetch", "::ParallelMap",
	};
	if (!ends_with_any(name, readers, sizeof readers / sizeof *readers))
		return XP_IC_PREPROCESSING;
	return contains_any(name, advance, sizeof advance / sizeof *advance) ? XP_IC_ADVANCED_READ : XP_IC_DEMANDED_READ;
}

int xp_input_op_category(const char *name, const char *category)
{
	if (!category)
		return -1;
	if (!strcasecmp(category, "enqueue"))
		return XP_IC_ENQUEUE;
	if (!strcasecmp(category, "read"))
		return XP_IC_DEMANDED_READ;
	if (!strcasecmp(category, "preprocessing"))
		return XP_IC_PREPROCESSING;
	if (!strcasecmp(category, "unknown"))
		return XP_IC_UNKNOWN;
	if (!strncmp(category, "InfeedEnqueue", 13) || !strcmp(category, "MemcpyHToD"))
		return XP_IC_ENQUEUE;
	if (!strcmp(category, "Dataset"))
		return (int)dataset_category(name ? name : "");
	return -1;
}

/* --- host-side breakdown (spec §2.3) ---------------------------------------------------------- */

const char *xp_host_input_key(enum xp_host_input_cat k)
{
	switch (k) {
	case XP_HI_DEMANDED_READ: return "demanded_file_read";
	case XP_HI_ADVANCED_READ: return "advanced_file_read";
	case XP_HI_PREPROCESSING: return "preprocessing";
	case XP_HI_ENQUEUE: return "enqueue";
	case XP_HI_UNCLASSIFIED:
	case XP_N_HOST_INPUT:
		break;
	}
	return "unclassified";
}

const char *xp_host_input_label(enum xp_host_input_cat k)
{
	switch (k) {
	case XP_HI_DEMANDED_READ: return "Reading data from files on demand";
	case XP_HI_ADVANCED_READ: return "Reading data from files in advance [including caching, prefetching, interleaving]";
	case XP_HI_PREPROCESSING: return "Data preprocessing";
	case XP_HI_ENQUEUE: return "Enqueuing data to be transferred to device";
	case XP_HI_UNCLASSIFIED:
	case XP_N_HOST_INPUT:
		break;
	}
	return "Other data reading or processing";
}

#define DS "https://www.tensorflow.org/api_docs/python/tf/data/Dataset#"
#define TFRECORD "https://www.tensorflow.org/api_docs/python/tf/data/TFRecordDataset#class_tfrecorddataset"

/* The reference's fixed recommendations (spec §2.4), links as "text (URL)". */
const char *xp_host_input_advice(enum xp_host_input_cat k)
{
	switch (k) {
	case XP_HI_ENQUEUE:
		return "Enqueuing data: you may want to combine small input data chunks into fewer but larger chunks.";
	case XP_HI_PREPROCESSING:
		return "Data preprocessing: you may increase num_parallel_calls in Dataset map() (" DS "map) or preprocess "
		       "the data OFFLINE.";
	case XP_HI_ADVANCED_READ:
		return "Reading data from files in advance: you may tune parameters in the following tf.data API (prefetch "
		       "size (" DS "prefetch), interleave cycle_length (" DS "interleave), reader buffer_size (" TFRECORD
		       "))";
	case XP_HI_DEMANDED_READ:
		return "Reading data from files on demand: you should read data IN ADVANCE using the following tf.data API "
		       "(prefetch (" DS "prefetch), interleave (" DS "interleave), reader buffer (" TFRECORD "))";
	case XP_HI_UNCLASSIFIED:
	case XP_N_HOST_INPUT:
		break;
	}
	return "Other data reading or processing: you may consider using the tf.data API "
	       "(https://www.tensorflow.org/programmers_guide/datasets) (if you are not using it now)";
}

static int64_t scaled(double non_enqueue, int64_t part, int64_t total)
{
	return total > 0 ? (int64_t)llround(non_enqueue * (double)part / (double)total) : 0;
}

void xp_host_input_breakdown(const struct xp_op_db *db, double h2d_ratio, bool xprof_compat, struct xp_host_input *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; db && i < db->n; i++) {
		const struct xp_op_row *op = &db->rows[i];
		int cat = op->kind == XP_OPK_IDLE ? -1 : xp_input_op_category(op->name, op->category);
		if (cat < 0)
			continue;
		out->n_ops++;
		out->input_op_ps += op->self_ps;
		out->cat_self_ps[cat] += op->self_ps;
	}
	if (!out->n_ops)
		return;
	int64_t enqueue = out->cat_self_ps[XP_IC_ENQUEUE];
	int64_t demanded = out->cat_self_ps[XP_IC_DEMANDED_READ], advanced = out->cat_self_ps[XP_IC_ADVANCED_READ];
	int64_t prep = out->cat_self_ps[XP_IC_PREPROCESSING];
	int64_t total = demanded + advanced + prep;
	double ratio = h2d_ratio < 1 ? h2d_ratio : 1;
	/*
	 * The reference scales the non-enqueue time by the host-to-device share
	 * of the step (made for TPU infeed). On GPU, xpstat counts the CUPTI
	 * copies as host-to-device time while the host has no enqueue ops, so
	 * the formula would give 0 for every category: xpstat uses it only when
	 * there is enqueue time (--compat=xprof: always).
	 */
	if (!xprof_compat && enqueue <= 0)
		ratio = 0;
	out->ratio = ratio;
	if (ratio > 0) {
		double non_enqueue = (double)enqueue * (1 - ratio) / ratio;
		out->ps[XP_HI_DEMANDED_READ] = scaled(non_enqueue, demanded, total);
		out->ps[XP_HI_ADVANCED_READ] = scaled(non_enqueue, advanced, total);
		out->ps[XP_HI_PREPROCESSING] = scaled(non_enqueue, prep, total);
		int64_t rest = (int64_t)llround(non_enqueue) - out->ps[XP_HI_DEMANDED_READ] -
			       out->ps[XP_HI_ADVANCED_READ] - out->ps[XP_HI_PREPROCESSING];
		out->ps[XP_HI_UNCLASSIFIED] = rest > 0 ? rest : 0;
	} else {
		/* Exact: non_enqueue is the categories' own sum, so nothing is left unclassified. */
		out->ps[XP_HI_DEMANDED_READ] = demanded;
		out->ps[XP_HI_ADVANCED_READ] = advanced;
		out->ps[XP_HI_PREPROCESSING] = prep;
	}
	out->ps[XP_HI_ENQUEUE] = enqueue;
	out->tf_data_in_use = out->ps[XP_HI_DEMANDED_READ] > 0 || out->ps[XP_HI_ADVANCED_READ] > 0 ||
			      out->ps[XP_HI_PREPROCESSING] > 0;
}

/* Spec §2.3: the average host-to-device time over the average step time (per-step rows of §1.5). */
double xp_input_h2d_ratio(const struct xp_step_totals *tot)
{
	if (!tot->n || tot->step_ps <= 0)
		return 0;
	return (double)tot->host_to_device_ps / (double)tot->step_ps;
}

/* --- advice shared with the overview ------------------------------------------------------------ */

/* The host category with the most time, -1 when all are 0. */
static int main_host_category(const struct xp_host_input *hi)
{
	int best = -1;
	for (int k = 0; k < XP_N_HOST_INPUT; k++)
		if (hi->ps[k] > 0 && (best < 0 || hi->ps[k] > hi->ps[best]))
			best = k;
	return best;
}

/* A PyTorch capture's input is its DataLoader (the steps' DataLoader column); the host-side breakdown reads
 * TensorFlow's input ops, so it is empty there and says so in PyTorch's terms, never with a tf.data remedy. */
static const char pt_dataloader_remedy[] =
	"Set num_workers on the DataLoader to load batches in worker processes "
	"(https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading), and pin_memory=True for "
	"faster host-to-device copies.";

static void pytorch_input_advice(struct xp_input_advice *a)
{
	snprintf(a->host_level, sizeof a->host_level, "none");
	snprintf(a->host, sizeof a->host, "The input time of a PyTorch capture is its DataLoader's (enumerate(DataLoader) "
		 "events), in the DataLoader column of the steps; the host-side breakdown is for TensorFlow input "
		 "operations and stays empty.");
	snprintf(a->tf_data_level, sizeof a->tf_data_level, "no");
	snprintf(a->tf_data, sizeof a->tf_data, "Not applicable: a PyTorch capture holds no TensorFlow input "
		 "pipeline.");
}

static int64_t host_total(const struct xp_host_input *hi)
{
	int64_t t = 0;
	for (int k = 0; k < XP_N_HOST_INPUT; k++)
		t += hi->ps[k];
	return t;
}

static void host_advice(const struct xp_host_input *hi, struct xp_input_advice *a)
{
	int k = main_host_category(hi);
	if (k < 0) {
		snprintf(a->host_level, sizeof a->host_level, "none");
		snprintf(a->host, sizeof a->host, hi->n_ops ? "The input operations on the host take no self time." :
			 "No input operations on the host (tf.data Iterator:: ops, input-pipeline stages, infeed "
			 "enqueue): the host-side breakdown is empty.");
		return;
	}
	char part[32], all[32];
	xp_format_duration(hi->ps[k], part, sizeof part);
	xp_format_duration(host_total(hi), all, sizeof all);
	snprintf(a->host_level, sizeof a->host_level, "%s", xp_host_input_key((enum xp_host_input_cat)k));
	snprintf(a->host, sizeof a->host, "%s takes most of the input time on the host: %s of %s (%.1f%%). %s",
		 xp_host_input_label((enum xp_host_input_cat)k), part, all,
		 pct_of((double)hi->ps[k], (double)host_total(hi)), xp_host_input_advice((enum xp_host_input_cat)k));
}

static void tf_data_advice(const struct xp_tfdata *t, struct xp_input_advice *a)
{
	char lat[32], max[32];
	if (!t->n_bottlenecks) {
		snprintf(a->tf_data_level, sizeof a->tf_data_level, "no");
		snprintf(a->tf_data, sizeof a->tf_data, "No host tf.data input pipeline in the capture to look into.");
		return;
	}
	const struct xp_tfdata_bottleneck_row *b = &t->bottlenecks[0];
	const struct xp_tfdata_pipeline *p = xp_tfdata_row_pipeline(t, b);
	xp_format_duration(b->max_latency_ps, max, sizeof max);
	xp_format_duration(b->iterator_latency_ps, lat, sizeof lat);
	if (!t->is_input_bound) {
		snprintf(a->tf_data_level, sizeof a->tf_data_level, "no");
		snprintf(a->tf_data, sizeof a->tf_data, "No tf.data input pipeline slower than 50 us: the slowest, %s on "
			 "%s, takes up to %s per element. Your job could be still input bound if this profile didn't "
			 "capture all workers.", p->name, t->hosts[b->host].host, max);
		return;
	}
	snprintf(a->tf_data_level, sizeof a->tf_data_level, "%s", xp_tfdata_bottleneck_key(b->type));
	if (!b->iterator_long_name[0])
		snprintf(a->tf_data, sizeof a->tf_data, "tf.data: %s on %s takes up to %s per element, but no blocking "
			 "iterator has self time (xpstat tf-data).", p->name, t->hosts[b->host].host, max);
	else
		snprintf(a->tf_data, sizeof a->tf_data, "tf.data bottleneck: %s (%s) in %s on %s, %s self time in a %s "
			 "call (xpstat tf-data). %s", b->iterator_name, b->iterator_long_name, p->name,
			 t->hosts[b->host].host, lat, max, xp_tfdata_suggestion(b->type));
}

void xp_input_advice(const struct xp_prep *p, const struct xp_step_totals *tot, struct xp_input_advice *a)
{
	memset(a, 0, sizeof *a);
	struct xp_op_db *own_db;
	const struct xp_op_db *db = xp_use_input_host_db(p, &own_db);
	struct xp_host_input hi;
	xp_host_input_breakdown(db, xp_input_h2d_ratio(tot), p->opts.xprof_compat, &hi);
	host_advice(&hi, a);
	a->tf_data_in_use = hi.tf_data_in_use;
	xp_op_db_free(own_db);
	struct xp_tfdata *own_t;
	tf_data_advice(xp_use_tfdata(p, &own_t), a);
	xp_tfdata_free(own_t);
}

/* --- the input-pipeline result ----------------------------------------------------------------- */

struct ip {
	const struct xp_prep *p;
	const struct xp_input_opts *o;
	struct xp_breakdown_steps bs;
	const char *bottleneck, *level;
	double input_pct, all_others_pct;
	const struct xp_op_db *db;
	struct xp_op_db *own_db;        /* db when it is not the report's shared one */
	struct xp_host_input hi;
	struct xp_input_advice advice;
	bool tpu, gpu;
};

static void gather(struct ip *ip)
{
	const struct xp_prep *p = ip->p;
	xp_breakdown_steps_init(p, &ip->bs);
	ip->bottleneck = xp_overview_bottleneck(&ip->bs.tot, &ip->input_pct, &ip->all_others_pct, &ip->level);
	ip->db = xp_use_input_host_db(p, &ip->own_db);
	xp_host_input_breakdown(ip->db, xp_input_h2d_ratio(&ip->bs.tot), p->opts.xprof_compat || (ip->o && ip->o->xprof_compat),
				&ip->hi);
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct xp_run_env e;
		xp_use_run_env(p, h, &e);
		ip->tpu |= e.tpu || p->hosts[h].steps.tpu;
		ip->gpu |= e.gpu;
	}
	struct xp_tfdata *own_t;
	host_advice(&ip->hi, &ip->advice);
	tf_data_advice(xp_use_tfdata(p, &own_t), &ip->advice);
	xp_tfdata_free(own_t);
	if (ip->bs.view.pytorch)
		pytorch_input_advice(&ip->advice);
}

static void lower(const char *s, char *out, size_t n)
{
	size_t i = 0;
	for (; s[i] && i + 1 < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = 0;
}

/* "; on the host, mostly data preprocessing (85.2%)" when input-bound and the host says why. */
static void host_hint(const struct ip *ip, char *buf, size_t n)
{
	int k = main_host_category(&ip->hi);
	buf[0] = 0;
	if (k < 0 || (strcmp(ip->bottleneck, "host") && strcmp(ip->bottleneck, "both")))
		return;
	char label[96];
	lower(xp_host_input_label((enum xp_host_input_cat)k), label, sizeof label);
	char *bracket = strstr(label, " [");
	if (bracket)
		*bracket = 0;
	snprintf(buf, n, "; on the host, mostly %s (%.1f%%)", label,
		 pct_of((double)ip->hi.ps[k], (double)host_total(&ip->hi)));
}

static void set_verdict(struct xp_result *r, const struct ip *ip)
{
	char avg[32], level[16], hint[160];
	const struct xp_dur_stat *st = &ip->bs.step;
	xp_format_duration(st->avg_ps, avg, sizeof avg);
	lower(ip->level, level, sizeof level);
	host_hint(ip, hint, sizeof hint);
	if (!strcmp(ip->bottleneck, "unknown")) {
		if (ip->tpu)
			xp_result_set_verdict(r, "TPU capture: the TPU step-time breakdown is not supported yet");
		else if (ip->bs.al.empty_intersect)
			xp_result_set_verdict(r, "Step time unknown: the hosts have no step in common, so the input-bound "
					      "share cannot be told");
		else
			xp_result_set_verdict(r, "Step time unknown: no step marker observed, so the input-bound share cannot "
					      "be told");
	} else if (!strcmp(ip->level, "POTENTIALLY")) {
		xp_result_set_verdict(r, "potentially input-bound: %.1f%% of step time is 'All others' time (I/O or Python "
				      "execution?); average step time %s over %zu step%s%s", ip->all_others_pct, avg, st->n,
				      st->n == 1 ? "" : "s", hint);
	} else {
		xp_result_set_verdict(r, "%s input-bound: %s%.1f%% of step time %s; average step time %s "
				      "over %zu step%s%s", level, strcmp(ip->level, "NOT") ? "" : "only ", ip->input_pct,
				      ip->bs.view.pytorch ? "in DataLoader" : "waiting for input", avg, st->n,
				      st->n == 1 ? "" : "s", hint);
	}
}

static const char *hardware_type(const struct ip *ip)
{
	return ip->tpu ? "TPU" : ip->gpu ? "GPU" : "CPU_ONLY";
}

static void next_step(const struct ip *ip, char *buf, size_t n)
{
	const char *b = ip->bottleneck;
	if (strcmp(b, "host") && strcmp(b, "both"))
		snprintf(buf, n, "You may skip the rest of this page.");
	else if (ip->bs.view.pytorch)
		snprintf(buf, n, "%s", pt_dataloader_remedy);
	else if (!ip->hi.tf_data_in_use)
		snprintf(buf, n, "Consider using the tf.data API (https://www.tensorflow.org/guide/data) to enable profiler's "
			 "host-side analysis for input pipeline. Profiler currently does not support custom input pipeline "
			 "(please ignore Section 3 below).");
	else
		snprintf(buf, n, "Look at Section 3 for the breakdown of input time on the host (the tables host_breakdown "
			 "and input_ops).");
}

static void add_summary(struct xp_result *r, const struct ip *ip)
{
	const struct xp_prep *p = ip->p;
	const struct xp_step_totals *t = &ip->bs.tot;
	const struct xp_step_db *db = p->n_hosts ? &p->hosts[ip->bs.host].steps : NULL;
	char statement[512], next[512];
	double out_pct = pct_of((double)t->cat_ps[XP_SC_OUTPUT], (double)t->step_ps);
	double comp_pct = pct_of((double)t->cat_ps[XP_SC_DEVICE_COMPUTE], (double)t->step_ps);
	double coll_pct = pct_of((double)t->cat_ps[XP_SC_DEVICE_COLLECTIVES], (double)t->step_ps);
	double idle = 100 - ip->input_pct - out_pct - comp_pct - coll_pct;
	struct xp_dur_stat in;
	xp_step_stat(&ip->bs.view, XP_SC_INPUT, &in);
	xp_input_statement(ip->level, ip->input_pct, ip->all_others_pct, statement, sizeof statement);
	next_step(ip, next, sizeof next);
	xp_sum_int(r, "hosts", "Hosts", p->n_hosts);
	xp_sum_str(r, "hardware_type", "Hardware type", hardware_type(ip));
	xp_sum_str(r, "breakdown_host", "Breakdown from host", db ? p->hosts[ip->bs.host].host->name : "");
	xp_sum_int(r, "steps", "Steps", (int64_t)ip->bs.step.n);
	xp_sum_str(r, "step_source", "Step markers", db ? xp_step_source_name(db->source) : "none");
	xp_sum_str(r, "compat", "Compatibility", p->opts.xprof_compat ? "xprof" : "xpstat");
	xp_sum_str(r, "classification", "Input-bound classification", ip->bottleneck);
	xp_sum_str(r, "level", "Level", ip->level);
	xp_sum_pct(r, "input_pct", "Input", xp_pct_if_steps(ip->bs.step.n, ip->input_pct));
	xp_sum_pct(r, "output_pct", "Output", xp_pct_if_steps(ip->bs.step.n, out_pct));
	xp_sum_pct(r, "device_compute_pct", "Device compute", xp_pct_if_steps(ip->bs.step.n, comp_pct));
	xp_sum_pct(r, "device_collectives_pct", "Device collectives", xp_pct_if_steps(ip->bs.step.n, coll_pct));
	xp_sum_pct(r, "idle_pct", "Idle (the rest)", xp_pct_if_steps(ip->bs.step.n, t->step_ps > 0 && idle > 0 ? idle : 0));
	xp_sum_pct(r, "all_others_pct", "All others", xp_pct_if_steps(ip->bs.step.n, ip->all_others_pct));
	xp_sum_str(r, "statement", "Statement", statement);
	xp_sum_step_stat(r, &ip->bs.step);
	static const char *const in_key[] = {"input_time_avg_ms", "input_time_sdv_ms", "input_time_min_ms",
					     "input_time_max_ms"};
	static const char *const in_label[] = {"Average input time", "Input standard deviation",
					       "Minimum input time", "Maximum input time"};
	xp_sum_dur_stat(r, in_key, in_label, &in);
	xp_sum_int(r, "input_ops", "Input ops", (int64_t)ip->hi.n_ops);
	xp_sum_dur(r, "input_op_time_us", "Input op self time", ip->hi.input_op_ps, XP_U_US);
	static const char *const short_label[XP_N_HOST_INPUT] = {
		"Demanded file read", "Advanced file read", "Preprocessing", "Enqueue", "Other input processing",
	};
	for (int k = 0; k < XP_N_HOST_INPUT; k++) {
		char key[48];
		snprintf(key, sizeof key, "%s_us", xp_host_input_key((enum xp_host_input_cat)k));
		xp_sum_dur(r, key, short_label[k], ip->hi.ps[k], XP_U_US);
	}
	xp_sum_bool(r, "tf_data_in_use", "tf.data in use", ip->hi.tf_data_in_use);
	xp_sum_str(r, "next_step", "Next step", next);
}

/* --- tables -------------------------------------------------------------------------------------- */

/* The step_stats table's columns. */
enum { STAT_KEY, STAT_LABEL, STAT_AVG, STAT_SDV, STAT_MIN, STAT_MAX, STAT_SHARE };
static const struct xp_col_def stat_cols[] = {
	[STAT_KEY] = {"quantity", "Key", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[STAT_LABEL] = {"label", "Quantity", XP_T_STR},
	[STAT_AVG] = {"avg_ms", "Average", XP_T_DUR, XP_U_MS},
	[STAT_SDV] = {"sdv_ms", "Std dev", XP_T_DUR, XP_U_MS},
	[STAT_MIN] = {"min_ms", "Min", XP_T_DUR, XP_U_MS},
	[STAT_MAX] = {"max_ms", "Max", XP_T_DUR, XP_U_MS},
	[STAT_SHARE] = {"step_time_pct", "Share", XP_T_PCT},
};

static void stat_row(struct xp_table *t, const char *key, const char *label,
		     const struct xp_dur_stat *st, int64_t part, int64_t whole)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, STAT_KEY, key);
	xp_set_str(t, row, STAT_LABEL, label);
	xp_set_dur(t, row, STAT_AVG, st->avg_ps);
	xp_set_dur(t, row, STAT_SDV, st->sdv_ps);
	xp_set_dur(t, row, STAT_MIN, st->min_ps);
	xp_set_dur(t, row, STAT_MAX, st->max_ps);
	xp_set_pct(t, row, STAT_SHARE, pct_of((double)part, (double)whole));
}

/* Device-side step statistics: step time, input and its two parts. */
static void step_stats_table(struct xp_result *r, const struct ip *ip)
{
	struct xp_table *t = xp_result_add_table(r, "step_stats", "Step-time statistics (device side)");
	xp_table_cols(t, XP_COLS(stat_cols));
	const struct xp_step_db *v = &ip->bs.view;
	const struct xp_step_totals *tot = &ip->bs.tot;
	if (!v->n)
		return;
	int64_t *w = calloc(v->n, sizeof *w), *h2d = calloc(v->n, sizeof *h2d);
	if (!w || !h2d)
		xp_oom();
	for (size_t i = 0; i < v->n; i++) {
		const struct xp_step *s = &v->steps[i];
		w[i] = xp_step_type_ps(s, XP_ET_HOST_WAIT_INPUT);
		h2d[i] = xp_step_type_ps(s, XP_ET_HOST_TO_DEVICE) + xp_step_type_ps(s, XP_ET_DEVICE_WAIT_HOST);
	}
	struct xp_dur_stat st;
	stat_row(t, "step_time", "Step time", &ip->bs.step, tot->step_ps, tot->step_ps);
	xp_step_stat(v, XP_SC_INPUT, &st);
	stat_row(t, "input", "Input", &st, tot->cat_ps[XP_SC_INPUT], tot->step_ps);
	xp_dur_stat(w, v->n, &st);
	stat_row(t, "host_wait_input", "Waiting for input on the host", &st, tot->wait_input_ps, tot->step_ps);
	xp_dur_stat(h2d, v->n, &st);
	stat_row(t, "host_to_device", "Host-to-device transfer", &st, tot->host_to_device_ps, tot->step_ps);
	free(w);
	free(h2d);
}

enum {
	IPH_KEY, IPH_LABEL, IPH_TIME, IPH_PCT, IPH_ADV
};
static const struct xp_col_def ip_host_cols[] = {
	[IPH_KEY] = {"category", "Key", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[IPH_LABEL] = {"label", "Category", XP_T_STR},
	[IPH_TIME] = {"time_us", "Time", XP_T_DUR, XP_U_US},
	[IPH_PCT] = {"input_pct", "Share", XP_T_PCT},
	[IPH_ADV] = {"advice", "Advice", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

static void host_breakdown_table(struct xp_result *r, const struct ip *ip)
{
	struct xp_table *t = xp_result_add_table(r, "host_breakdown", ip->bs.view.pytorch ? "Host-side input time "
						 "(TensorFlow input operations)" : "Host-side input time (Section 3)");
	xp_table_cols(t, XP_COLS(ip_host_cols));
	/* The reference's order of the host-side chart. */
	static const enum xp_host_input_cat order[] = {
		XP_HI_DEMANDED_READ, XP_HI_ADVANCED_READ, XP_HI_PREPROCESSING, XP_HI_ENQUEUE, XP_HI_UNCLASSIFIED,
	};
	int64_t total = host_total(&ip->hi);
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, IPH_KEY, xp_host_input_key(order[i]));
		xp_set_str(t, row, IPH_LABEL, xp_host_input_label(order[i]));
		xp_set_dur(t, row, IPH_TIME, ip->hi.ps[order[i]]);
		xp_set_pct(t, row, IPH_PCT, pct_of((double)ip->hi.ps[order[i]], (double)total));
		xp_set_str(t, row, IPH_ADV, xp_host_input_advice(order[i]));
	}
	if (ip->hi.ratio > 0) {
		char note[160];
		snprintf(note, sizeof note, "Non-enqueue time scaled from the enqueue time by the host-to-device share of "
			 "the step (%.3f), as the reference does.", ip->hi.ratio);
		t->text_note = strdup(note);
	}
}

enum {
	IOP_NAME, IOP_STAGE, IOP_COUNT, IOP_TIME, IOP_TPCT, IOP_SELF, IOP_SPCT, IOP_CAT, IOP_TYPE
};
static const struct xp_col_def input_op_cols[] = {
	[IOP_NAME] = {"input_op", "Input op", XP_T_STR},
	[IOP_STAGE] = {"stage_id", "Stage", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[IOP_COUNT] = {"count", "Count", XP_T_INT},
	[IOP_TIME] = {"total_time_ms", "Total time", XP_T_DUR, XP_U_MS},
	[IOP_TPCT] = {"total_time_pct", "Total %", XP_T_PCT},
	[IOP_SELF] = {"self_time_ms", "Self time", XP_T_DUR, XP_U_MS},
	[IOP_SPCT] = {"self_time_pct", "Self %", XP_T_PCT},
	[IOP_CAT] = {"category", "Category", XP_T_STR},
	[IOP_TYPE] = {"op_type", "Type", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

static void input_ops_table(struct xp_result *r, const struct ip *ip)
{
	struct xp_table *t = xp_result_add_table(r, "input_ops", "Input operations on the host (self time)");
	xp_table_cols(t, XP_COLS(input_op_cols));
	double total = (double)ip->hi.input_op_ps;
	for (size_t i = 0; i < ip->db->n; i++) {
		const struct xp_op_row *op = &ip->db->rows[i];
		int cat = op->kind == XP_OPK_IDLE ? -1 : xp_input_op_category(op->name, op->category);
		if (cat < 0)
			continue;
		size_t row = xp_table_row(t);
		xp_set_str(t, row, IOP_NAME, op->name);
		if (op->kind == XP_OPK_STAGE && op->module)
			xp_set_str(t, row, IOP_STAGE, op->module);
		xp_set_int(t, row, IOP_COUNT, (int64_t)op->occurrences);
		xp_set_dur(t, row, IOP_TIME, op->time_ps);
		xp_set_pct(t, row, IOP_TPCT, pct_of((double)op->time_ps, total));
		xp_set_dur(t, row, IOP_SELF, op->self_ps);
		xp_set_pct(t, row, IOP_SPCT, pct_of((double)op->self_ps, total));
		xp_set_str(t, row, IOP_CAT, xp_input_cat_label((enum xp_input_cat)cat));
		xp_set_str(t, row, IOP_TYPE, op->category ? op->category : "");
	}
	t->text_limit = INPUT_OPS_TEXT_ROWS;
}

enum {
	IPR_TOPIC, IPR_LEVEL, IPR_MSG
};
static const struct xp_col_def ip_reco_cols[] = {
	[IPR_TOPIC] = {"topic", "Topic", XP_T_STR},
	[IPR_LEVEL] = {"level", "Level", XP_T_STR},
	[IPR_MSG] = {"message", "Recommendation", XP_T_STR},
};

static void recommendation_table(struct xp_result *r, const struct ip *ip)
{
	struct xp_table *t = xp_result_add_table(r, "recommendation", "Recommendation");
	xp_table_cols(t, XP_COLS(ip_reco_cols));
	char statement[512], next[512];
	xp_input_statement(ip->level, ip->input_pct, ip->all_others_pct, statement, sizeof statement);
	next_step(ip, next, sizeof next);
	const char *rows[][3] = {
		{"input", ip->bottleneck, statement},
		{"next_step", NULL, next},
		{"host_input", ip->advice.host_level, ip->advice.host},
		{"tf_data", ip->advice.tf_data_level, ip->advice.tf_data},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, IPR_TOPIC, rows[i][0]);
		if (rows[i][1])
			xp_set_str(t, row, IPR_LEVEL, rows[i][1]);
		xp_set_str(t, row, IPR_MSG, rows[i][2]);
	}
}

static void add_diags(struct xp_result *r, const struct ip *ip)
{
	const struct xp_prep *p = ip->p;
	for (uint32_t h = 0; h < p->n_hosts; h++)
		xp_step_diags(r, p, h);
	xp_align_diags(r, p, &ip->bs.al);
	if (!ip->hi.n_ops && ip->bs.view.pytorch)
		xp_result_diag(r, XP_SEV_INFO, "no_input_ops", NULL, pt_dataloader_remedy,
			       "A PyTorch capture: its input time is the DataLoader's (the steps' DataLoader column); the "
			       "host-side breakdown and input_ops, for TensorFlow input operations, are empty");
	else if (!ip->hi.n_ops)
		xp_result_diag(r, XP_SEV_INFO, "no_input_ops", NULL,
			       "tf.data writes Iterator:: events when the host tracer level is 2 or more (the default); a "
			       "custom input pipeline (Python generators, feed_dict) is not analyzed: its time shows as "
			       "waiting for input or as All others",
			       "No input operations on the host: the host-side breakdown and input_ops are empty");
	if (p->n_hosts > 1 && ip->bs.view.n)
		xp_result_diag(r, XP_SEV_INFO, "breakdown_host", NULL,
			       "xpstat pod shows the step breakdown of every host side by side",
			       "%" PRIu32 " hosts: the step statistics use the steps of host %s only, as the TensorFlow "
			       "Profiler does; the host-side breakdown and input ops sum every host",
			       p->n_hosts, p->hosts[ip->bs.host].host->name);
}

struct xp_result *xp_analyze_input_pipeline(const struct xp_prep *p, const struct xp_input_opts *o)
{
	struct xp_result *r = xp_result_new("input-pipeline");
	struct ip ip = {.p = p, .o = o};
	gather(&ip);
	set_verdict(r, &ip);
	add_summary(r, &ip);
	step_stats_table(r, &ip);
	struct xp_table *steps = xp_steps_add_table(r, p, &ip.bs.al, "steps", "Steps");
	steps->text_limit = STEPS_TEXT_ROWS;
	host_breakdown_table(r, &ip);
	input_ops_table(r, &ip);
	r->primary = r->n_tables - 1;
	recommendation_table(r, &ip);
	add_diags(r, &ip);
	xp_op_db_free(ip.own_db);
	xp_breakdown_steps_free(&ip.bs);
	return r;
}

/* What combine rebuilds it from: each host's host op DB and run environment (the tf.data model is tf-data's). */
static void save_state(const struct xp_run_in *in)
{
	const struct xp_capture *c = in->c;
	struct xp_op_rows_saver *saver = xp_op_rows_saver_new();
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		/* One host: the report's shared database is that host's (sorted: combine sorts the sum again). */
		struct xp_op_db *own = c->n_hosts > 1 || !in->s ? xp_op_db_host(c, &c->hosts[h], NULL) : NULL;
		/* Sorted as the one host's shared database is, so that the state of a run is its hosts' states one after another. */
		if (own)
			xp_op_db_sort(own);
		xp_op_db_state(in->state, saver, "input_host", c->hosts[h].name, own ? own : xp_shared_input_host_db(in->s));
		xp_op_db_free(own);
	}
	xp_op_rows_state(in->state, saver);
	xp_run_env_state(c, in->state);
}

static struct xp_result *run(const struct xp_run_in *in)
{
	struct xp_input_opts o = {.xprof_compat = in->xprof_compat};
	if (in->state)
		save_state(in);
	return xp_analyze_input_pipeline(in->p, &o);
}

/* Several hosts from their saved step databases, host op DBs, run environments and tf.data models. */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	struct xp_input_opts o = {.xprof_compat = in->xprof_compat};
	return xp_analyze_input_pipeline(in->p, &o);
}

static const char *const state_tables[] = {XP_OPDB_STATE_TABLES, XP_TFDATA_STATE_TABLES, NULL};

const struct xp_analysis xp_analysis_input_pipeline = {
	.name = "input-pipeline",
	.needs = XP_NEEDS_PREP,
	.reads = NULL,
	.opts_size = sizeof(struct xp_input_opts),
	.run = run,
	.warm = xp_shared_warm_inputs,
	.combine = combine,
	.state_tables = state_tables,
};
