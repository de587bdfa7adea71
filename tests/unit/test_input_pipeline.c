/* test_input_pipeline.c - the Input Pipeline Analyzer on the spec's worked examples (D2, A3/D3) and built runs (exact numbers). */
#include <math.h>

#include "analyzers/db/hostdb.h"
#include "analyzers/db/opdb.h"
#include "analyzers/input_pipeline.h"
#include "analyzers/overview.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "check.h"
#include "ipbuild.h"
#include "preputil.h"
#include "resutil.h"
#include "xsbuild.h"

struct run {
	struct prepared pr;
	struct xp_result *r;
};

static struct run analyze(struct xsb *b, bool compat)
{
	struct run x = {prep_run(b, compat, NULL), NULL};
	if (x.pr.p) {
		struct xp_input_opts o = {.xprof_compat = compat};
		x.r = xp_analyze_input_pipeline(x.pr.p, &o);
	}
	return x;
}

static void finish(struct run *x)
{
	xp_result_free(x->r);
	prep_done(&x->pr);
}

/* Row of input_ops whose input_op is NAME and (when not NULL) stage_id is STAGE, or -1. */
static long op_row(const struct xp_result *r, const char *name, const char *stage)
{
	for (size_t i = 0; i < res_rows(r, "input_ops"); i++)
		if (!strcmp(res_str(r, "input_ops", i, "input_op"), name) &&
		    (!stage || !strcmp(res_str(r, "input_ops", i, "stage_id"), stage)))
			return (long)i;
	return -1;
}

static const char *reco(const struct xp_result *r, const char *topic, const char *key)
{
	for (size_t i = 0; i < res_rows(r, "recommendation"); i++)
		if (!strcmp(res_str(r, "recommendation", i, "topic"), topic))
			return res_str(r, "recommendation", i, key);
	return "(none)";
}

/* ---- D2: input classification ---- */

/* Two steps of 100 ms and 60 ms with input 25 ms and 15 ms (a CPU-only capture). */
static void test_d2_classification(void)
{
	static const int64_t step_ms[] = {100, 60}, input_ms[] = {25, 15};
	struct run x = analyze(ipb_cpu_steps(step_ms, input_ms, 2, false), false);
	REQUIRE(x.r);
	const struct xp_result *r = x.r;
	CHECK_INT(res_sum_int(r, "steps"), 2);
	CHECK_DBL(res_sum_dbl(r, "input_pct"), 25.0, 1e-12);
	CHECK_STR(res_sum_str(r, "classification"), "host");
	CHECK_STR(res_sum_str(r, "level"), "HIGHLY");
	CHECK_STR(res_sum_str(r, "hardware_type"), "CPU_ONLY");
	CHECK_STR(res_sum_str(r, "statement"), "Your program is HIGHLY input-bound because 25.0% of the total step time "
		  "sampled is waiting for input. Therefore, you should first focus on reducing the input time.");
	CHECK_STR(r->verdict, "highly input-bound: 25.0% of step time waiting for input; average step time 80.0 ms over 2 "
		  "steps");
	/* avg 80.0 ms; sdv = sqrt(((100^2 + 60^2) - 160^2 / 2) / 1) = 28.28... ms */
	CHECK_INT(res_sum_int(r, "step_time_avg_ms"), 80 * PS_MS);
	CHECK_INT(res_sum_int(r, "step_time_sdv_ms"), (int64_t)llround(sqrt(800.0) * 1e9));
	CHECK_INT(res_sum_int(r, "step_time_min_ms"), 60 * PS_MS);
	CHECK_INT(res_sum_int(r, "step_time_max_ms"), 100 * PS_MS);
	CHECK_INT(res_sum_int(r, "input_time_avg_ms"), 20 * PS_MS);
	CHECK_INT(res_sum_int(r, "input_time_sdv_ms"), (int64_t)llround(sqrt(50.0) * 1e9));
	CHECK_INT(res_sum_int(r, "input_time_min_ms"), 15 * PS_MS);
	CHECK_INT(res_sum_int(r, "input_time_max_ms"), 25 * PS_MS);
	/* step_stats: step time, input, waiting, host-to-device */
	REQUIRE_INT(res_rows(r, "step_stats"), 4);
	CHECK_STR(res_str(r, "step_stats", 1, "quantity"), "input");
	CHECK_INT(res_int(r, "step_stats", 1, "avg_ms"), 20 * PS_MS);
	CHECK_DBL(res_dbl(r, "step_stats", 1, "step_time_pct"), 25.0, 1e-12);
	CHECK_INT(res_int(r, "step_stats", 2, "max_ms"), 25 * PS_MS);
	CHECK_INT(res_int(r, "step_stats", 3, "max_ms"), 0);
	/* per-step rows */
	REQUIRE_INT(res_rows(r, "steps"), 2);
	CHECK_INT(res_int(r, "steps", 0, "step_time_ms"), 100 * PS_MS);
	CHECK_INT(res_int(r, "steps", 1, "input_ms"), 15 * PS_MS);
	CHECK_DBL(res_dbl(r, "steps", 1, "input_pct"), 25.0, 1e-12);
	CHECK_STR(reco(r, "input", "level"), "host");
	/* no tf.data: the reference's advice to use it */
	CHECK_STR(reco(r, "next_step", "message"), "Consider using the tf.data API (https://www.tensorflow.org/guide/data) "
		  "to enable profiler's host-side analysis for input pipeline. Profiler currently does not support custom "
		  "input pipeline (please ignore Section 3 below).");
	CHECK(res_diag(r, "no_input_ops"));
	finish(&x);
}

/* ---- A3 / D3: input-pipeline stages on the host ---- */

static struct xsb *build_a3(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "tf_data", 0);
	static const struct {
		const char *name;
		int64_t at, dur, id;
	} ev[] = {
		{"ShuffleMapDataset", 100000000, 10000000, 1}, {"MapMapDataset", 100000000, 8000000, 2},
		{"ShuffleMapDataset", 120000000, 10000000, 3}, {"MapMapDataset", 120000000, 8000000, 4},
	};
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
		int e = xsb_event(b, h, l, ev[i].name, ev[i].at, ev[i].dur);
		xsb_stat_int(b, h, e, "_ipl_stage_id", ev[i].id);
		xsb_stat_str(b, h, e, "_ipl_stage_name", ev[i].name);
		xsb_stat_str(b, h, e, "_ipl_stage_cat", "preprocessing");
	}
	return b;
}

static void test_a3_d3_stage_ops(void)
{
	struct run x = analyze(build_a3(), false);
	REQUIRE(x.r);
	const struct xp_result *r = x.r;
	REQUIRE_INT(res_rows(r, "input_ops"), 4);
	CHECK_INT(res_sum_int(r, "input_ops"), 4);
	CHECK_INT(res_sum_int(r, "input_op_time_us"), 20000000);
	/* Self time descending: the Map stages (8,000,000) before the Shuffle stages (2,000,000); ties by stage id. */
	CHECK_STR(res_str(r, "input_ops", 0, "input_op"), "MapMapDataset");
	CHECK_STR(res_str(r, "input_ops", 0, "stage_id"), "2");
	CHECK_STR(res_str(r, "input_ops", 1, "stage_id"), "4");
	CHECK_STR(res_str(r, "input_ops", 2, "stage_id"), "1");
	long sh = op_row(r, "ShuffleMapDataset", "1"), mp = op_row(r, "MapMapDataset", "4");
	REQUIRE(sh >= 0 && mp >= 0);
	/* D3: Shuffle(id 1) time 0.01 ms, self 0.002 ms, 50 % and 10 % of the input op time, Preprocessing. */
	CHECK_INT(res_int(r, "input_ops", (size_t)sh, "total_time_ms"), 10000000);
	CHECK_INT(res_int(r, "input_ops", (size_t)sh, "self_time_ms"), 2000000);
	CHECK_DBL(res_dbl(r, "input_ops", (size_t)sh, "total_time_pct"), 50.0, 1e-12);
	CHECK_DBL(res_dbl(r, "input_ops", (size_t)sh, "self_time_pct"), 10.0, 1e-12);
	CHECK_STR(res_str(r, "input_ops", (size_t)sh, "category"), "Preprocessing");
	CHECK_STR(res_str(r, "input_ops", (size_t)sh, "op_type"), "preprocessing");
	CHECK_INT(res_int(r, "input_ops", (size_t)sh, "count"), 1);
	CHECK_INT(res_int(r, "input_ops", (size_t)mp, "total_time_ms"), 8000000);
	CHECK_INT(res_int(r, "input_ops", (size_t)mp, "self_time_ms"), 8000000);
	CHECK_DBL(res_dbl(r, "input_ops", (size_t)mp, "self_time_pct"), 40.0, 1e-12);
	/* No steps, so ratio 0: preprocessing_us = 20.000, the others 0. */
	CHECK_INT(res_sum_int(r, "preprocessing_us"), 20000000);
	CHECK_INT(res_sum_int(r, "demanded_file_read_us"), 0);
	CHECK_INT(res_sum_int(r, "advanced_file_read_us"), 0);
	CHECK_INT(res_sum_int(r, "enqueue_us"), 0);
	CHECK_INT(res_sum_int(r, "unclassified_us"), 0);
	CHECK_INT(res_sum_int(r, "tf_data_in_use"), 1);
	CHECK_STR(res_sum_str(r, "classification"), "unknown");
	CHECK_STR(res_sum_str(r, "statement"), "No step time measured. Therefore we cannot tell where the performance "
		  "bottleneck is.");
	CHECK_STR(r->verdict, "Step time unknown: no step marker observed, so the input-bound share cannot be told");
	CHECK(res_diag(r, "no_step_markers"));
	CHECK_STR(res_str(r, "host_breakdown", 2, "category"), "preprocessing");
	CHECK_INT(res_int(r, "host_breakdown", 2, "time_us"), 20000000);
	CHECK_DBL(res_dbl(r, "host_breakdown", 2, "input_pct"), 100.0, 1e-12);
	CHECK_STR(reco(r, "host_input", "level"), "preprocessing");
	finish(&x);
}

/* ---- generated runs ---- */

static const int64_t slow_map_input[] = {40, 30, 50};

/* 40 % waiting, fed by Prefetch -> Map -> TFRecord with a slow Map. */
static void test_input_bound_run(void)
{
	struct run x = analyze(ipb_cpu_run(slow_map_input, 3, true), false);
	REQUIRE(x.r);
	const struct xp_result *r = x.r;
	CHECK_DBL(res_sum_dbl(r, "input_pct"), 40.0, 1e-12);
	CHECK_STR(res_sum_str(r, "classification"), "host");
	/* Host ops: Prefetch self 38+28+48 ms, Map self 32+22+42 ms, TFRecord 3 x 4 ms. */
	CHECK_INT(res_sum_int(r, "input_ops"), 3);
	CHECK_INT(res_sum_int(r, "input_op_time_us"), 222 * PS_MS);
	CHECK_INT(res_sum_int(r, "preprocessing_us"), 210 * PS_MS);
	CHECK_INT(res_sum_int(r, "advanced_file_read_us"), 12 * PS_MS);
	CHECK_INT(res_sum_int(r, "demanded_file_read_us"), 0);
	CHECK_STR(r->verdict, "highly input-bound: 40.0% of step time waiting for input; average step time 100 ms over 3 "
		  "steps; on the host, mostly data preprocessing (94.6%)");
	REQUIRE_INT(res_rows(r, "input_ops"), 3);
	CHECK_STR(res_str(r, "input_ops", 0, "input_op"), "Iterator::Prefetch");
	CHECK_INT(res_int(r, "input_ops", 0, "count"), 3);
	CHECK_INT(res_int(r, "input_ops", 0, "self_time_ms"), 114 * PS_MS);
	CHECK_STR(res_str(r, "input_ops", 1, "input_op"), "Iterator::Prefetch::Map");
	CHECK_INT(res_int(r, "input_ops", 1, "total_time_ms"), 108 * PS_MS);
	CHECK_INT(res_int(r, "input_ops", 1, "self_time_ms"), 96 * PS_MS);
	CHECK_DBL(res_dbl(r, "input_ops", 1, "self_time_pct"), 100.0 * 96 / 222, 1e-9);
	CHECK_STR(res_str(r, "input_ops", 1, "category"), "Preprocessing");
	CHECK_STR(res_str(r, "input_ops", 2, "input_op"), "Iterator::Prefetch::Map::TFRecord");
	CHECK_STR(res_str(r, "input_ops", 2, "category"), "Advanced file read");
	CHECK_STR(reco(r, "next_step", "message"), "Look at Section 3 for the breakdown of input time on the host (the "
		  "tables host_breakdown and input_ops).");
	CHECK_STR(reco(r, "host_input", "message"), "Data preprocessing takes most of the input time on the host: 210 ms "
		  "of 222 ms (94.6%). Data preprocessing: you may increase num_parallel_calls in Dataset map() "
		  "(https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map) or preprocess the data OFFLINE.");
	/* The slow Map stage behind Prefetch. */
	CHECK_STR(reco(r, "tf_data", "level"), "slow_transformation_with_parallel_version");
	const char *msg = reco(r, "tf_data", "message");
	CHECK(!strncmp(msg, "tf.data bottleneck: Map (Iterator::Prefetch::Map) in Host:0 on worker, 42.0 ms self time in "
		       "a 48.0 ms call (xpstat tf-data). 1. Parallelize this transformation", 150));
	CHECK(!res_diag(r, "no_input_ops"));
	finish(&x);
}

static void test_moderately_input_bound(void)
{
	static const int64_t input_ms[] = {5, 6, 7};
	struct run x = analyze(ipb_cpu_run(input_ms, 3, false), false);
	REQUIRE(x.r);
	CHECK_DBL(res_sum_dbl(x.r, "input_pct"), 6.0, 1e-12);
	CHECK_STR(res_sum_str(x.r, "classification"), "both");
	CHECK_STR(x.r->verdict, "moderately input-bound: 6.0% of step time waiting for input; average step time 100 ms "
		  "over 3 steps");
	CHECK_STR(res_sum_str(x.r, "statement"), "Your program is MODERATELY input-bound because 6.0% of the total step "
		  "time sampled is waiting for input. Therefore, you would need to reduce both the input time and other "
		  "time.");
	finish(&x);
}

/* Under 5 % waiting, nothing uncovered: not input-bound. */
static void test_compute_bound_run(void)
{
	static const int64_t input_ms[] = {3, 3, 3};
	struct run x = analyze(ipb_cpu_run(input_ms, 3, false), false);
	REQUIRE(x.r);
	const struct xp_result *r = x.r;
	CHECK_DBL(res_sum_dbl(r, "input_pct"), 3.0, 1e-12);
	CHECK_DBL(res_sum_dbl(r, "all_others_pct"), 0.0, 0);
	CHECK_STR(res_sum_str(r, "classification"), "device");
	CHECK_STR(res_sum_str(r, "level"), "NOT");
	CHECK_STR(r->verdict, "not input-bound: only 3.0% of step time waiting for input; average step time 100 ms over "
		  "3 steps");
	CHECK_STR(res_sum_str(r, "statement"), "Your program is NOT input-bound because only 3.0% of the total step time "
		  "sampled is waiting for input. Therefore, you should focus on reducing other time.");
	CHECK_STR(res_sum_str(r, "next_step"), "You may skip the rest of this page.");
	CHECK_INT(res_sum_int(r, "input_time_sdv_ms"), 0);
	CHECK_STR(reco(r, "host_input", "level"), "none");
	CHECK_STR(reco(r, "tf_data", "level"), "no");
	finish(&x);
}

/* Steps with uncovered time: 'All others' >= 3 % makes it POTENTIALLY input-bound. */
static void test_potentially_input_bound(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "main", 0);
	for (int s = 0; s < 2; s++) {
		int e = xsb_event(b, h, l, "TraceContext", s * 200 * PS_MS, 100 * PS_MS);
		xsb_stat_int(b, h, e, "step_num", s);
		xsb_event(b, h, l, "model/dense/MatMul:MatMul", s * 200 * PS_MS + 10 * PS_MS, 90 * PS_MS);
	}
	struct run x = analyze(b, false);
	REQUIRE(x.r);
	CHECK_DBL(res_sum_dbl(x.r, "all_others_pct"), 10.0, 1e-12);
	CHECK_STR(res_sum_str(x.r, "classification"), "both");
	CHECK_STR(x.r->verdict, "potentially input-bound: 10.0% of step time is 'All others' time (I/O or Python "
		  "execution?); average step time 100 ms over 2 steps");
	CHECK_STR(res_sum_str(x.r, "statement"), "Your program is POTENTIALLY input-bound because 10.0% of the total "
		  "step time sampled is spent on 'All Others' time (which could be due to I/O or Python execution or "
		  "both).");
	finish(&x);
}

/* ---- the host breakdown formula (spec §2.3) ---- */

static struct xp_op_db *op_db(int64_t enqueue, int64_t demanded, int64_t advanced, int64_t prep, int64_t unknown)
{
	struct xp_op_db *db = xp_op_db_empty();
	xp_op_db_enter(db, XP_OPK_TF, NULL, "InfeedEnqueueTuple", "InfeedEnqueueTuple", 1, enqueue, 0, 0, 0, false, true);
	xp_op_db_enter(db, XP_OPK_TF, NULL, "Iterator::Range::TFRecord", "Dataset", 1, demanded, 0, 0, 0, false, true);
	xp_op_db_enter(db, XP_OPK_TF, NULL, "Iterator::Prefetch::TFRecord", "Dataset", 1, advanced, 0, 0, 0, false, true);
	xp_op_db_enter(db, XP_OPK_STAGE, "7", "Decode", "Preprocessing", 1, prep, 0, 0, 0, false, true);
	xp_op_db_enter(db, XP_OPK_STAGE, "8", "Mystery", "unknown", 1, unknown, 0, 0, 0, false, true);
	xp_op_db_enter(db, XP_OPK_TF, NULL, "model/MatMul", "MatMul", 1, 999 * PS_MS, 0, 0, 0, false, true);
	return db;
}

static void test_breakdown_scaled(void)
{
	struct xp_op_db *db = op_db(30 * PS_MS, 25 * PS_MS, 25 * PS_MS, 50 * PS_MS, 7 * PS_MS);
	struct xp_host_input hi;
	/* ratio 0.25: non-enqueue = 30 * 0.75 / 0.25 = 90 ms, shared 25:25:50. */
	xp_host_input_breakdown(db, 0.25, false, &hi);
	CHECK_INT(hi.n_ops, 5);
	CHECK_INT(hi.input_op_ps, 137 * PS_MS);
	CHECK_DBL(hi.ratio, 0.25, 0);
	CHECK_INT(hi.ps[XP_HI_ENQUEUE], 30 * PS_MS);
	CHECK_INT(hi.ps[XP_HI_DEMANDED_READ], 22500 * PS_US);
	CHECK_INT(hi.ps[XP_HI_ADVANCED_READ], 22500 * PS_US);
	CHECK_INT(hi.ps[XP_HI_PREPROCESSING], 45 * PS_MS);
	CHECK_INT(hi.ps[XP_HI_UNCLASSIFIED], 0);
	CHECK_INT(hi.cat_self_ps[XP_IC_UNKNOWN], 7 * PS_MS);
	CHECK(hi.tf_data_in_use);
	/* A ratio above 1 counts as 1: no non-enqueue time at all. */
	xp_host_input_breakdown(db, 1.5, false, &hi);
	CHECK_INT(hi.ps[XP_HI_PREPROCESSING], 0);
	CHECK(!hi.tf_data_in_use);
	xp_op_db_free(db);
}

/* No enqueue time: xpstat keeps the raw times; the reference's formula gives 0 (--compat=xprof). */
static void test_breakdown_without_enqueue(void)
{
	struct xp_op_db *db = op_db(0, 10 * PS_MS, 20 * PS_MS, 30 * PS_MS, 0);
	struct xp_host_input hi;
	xp_host_input_breakdown(db, 0.2, false, &hi);
	CHECK_DBL(hi.ratio, 0, 0);
	CHECK_INT(hi.ps[XP_HI_DEMANDED_READ], 10 * PS_MS);
	CHECK_INT(hi.ps[XP_HI_ADVANCED_READ], 20 * PS_MS);
	CHECK_INT(hi.ps[XP_HI_PREPROCESSING], 30 * PS_MS);
	xp_host_input_breakdown(db, 0.2, true, &hi);
	CHECK_DBL(hi.ratio, 0.2, 0);
	CHECK_INT(hi.ps[XP_HI_PREPROCESSING], 0);
	CHECK_INT(hi.ps[XP_HI_DEMANDED_READ], 0);
	CHECK(!hi.tf_data_in_use);
	xp_host_input_breakdown(db, 0, true, &hi);
	CHECK_INT(hi.ps[XP_HI_PREPROCESSING], 30 * PS_MS);
	xp_op_db_free(db);
}

/* Spec §2.2: which ops are input ops, and their category. */
static void test_input_op_categories(void)
{
	CHECK_INT(xp_input_op_category("x", "Enqueue"), XP_IC_ENQUEUE);
	CHECK_INT(xp_input_op_category("x", "READ"), XP_IC_DEMANDED_READ);
	CHECK_INT(xp_input_op_category("x", "preprocessing"), XP_IC_PREPROCESSING);
	CHECK_INT(xp_input_op_category("x", "Unknown"), XP_IC_UNKNOWN);
	CHECK_INT(xp_input_op_category("infeed", "InfeedEnqueueTuple"), XP_IC_ENQUEUE);
	CHECK_INT(xp_input_op_category("copy", "MemcpyHToD"), XP_IC_ENQUEUE);
	CHECK_INT(xp_input_op_category("Iterator::Batch::TFRecord", "Dataset"), XP_IC_DEMANDED_READ);
	CHECK_INT(xp_input_op_category("Iterator::Batch::TextLine", "Dataset"), XP_IC_DEMANDED_READ);
	CHECK_INT(xp_input_op_category("Iterator::Interleave::FixedLengthRecord", "Dataset"), XP_IC_ADVANCED_READ);
	CHECK_INT(xp_input_op_category("Iterator::ParallelMap::ArrayRecord", "Dataset"), XP_IC_ADVANCED_READ);
	CHECK_INT(xp_input_op_category("Iterator::MemoryReader::SSTable", "Dataset"), XP_IC_ADVANCED_READ);
	CHECK_INT(xp_input_op_category("Iterator::TFRecord::Map", "Dataset"), XP_IC_PREPROCESSING);
	CHECK_INT(xp_input_op_category("Iterator::Prefetch", "Dataset"), XP_IC_PREPROCESSING);
	CHECK_INT(xp_input_op_category("IteratorGetNext", "IteratorGetNext"), -1);
	CHECK_INT(xp_input_op_category("model/MatMul", "MatMul"), -1);
	CHECK_INT(xp_input_op_category("x", NULL), -1);
	CHECK_STR(xp_input_cat_label(XP_IC_ADVANCED_READ), "Advanced file read");
	CHECK_STR(xp_host_input_key(XP_HI_UNCLASSIFIED), "unclassified");
	CHECK_STR(xp_host_input_label(XP_HI_ADVANCED_READ),
		  "Reading data from files in advance [including caching, prefetching, interleaving]");
	CHECK_STR(xp_host_input_advice(XP_HI_ENQUEUE),
		  "Enqueuing data: you may want to combine small input data chunks into fewer but larger chunks.");
}

/* The overview's recommendation gains the same two rows when the run is input-bound. */
static void test_overview_advice(void)
{
	struct prepared pr = prep_run(ipb_cpu_run(slow_map_input, 3, true), false, NULL);
	REQUIRE(pr.p);
	struct xp_overview_opts o = {0};
	struct xp_result *r = xp_analyze_overview(pr.p, &o);
	CHECK_STR(reco(r, "host_input", "level"), "preprocessing");
	CHECK_STR(reco(r, "tf_data", "level"), "slow_transformation_with_parallel_version");
	xp_result_free(r);
	prep_done(&pr);
	static const int64_t low[] = {3, 3, 3};
	pr = prep_run(ipb_cpu_run(low, 3, false), false, NULL);
	REQUIRE(pr.p);
	r = xp_analyze_overview(pr.p, &o);
	CHECK_STR(reco(r, "host_input", "level"), "(none)");
	xp_result_free(r);
	prep_done(&pr);
}

/* Two hosts: the host ops add up, the step statistics come from the first host. */
static void test_two_hosts(void)
{
	struct xsb *bs[2] = {ipb_cpu_run(slow_map_input, 3, true), ipb_cpu_run(slow_map_input, 3, true)};
	xsb_hostname(bs[1], "worker2");
	struct xp_capture *c = xsb_read_hosts(bs, 2);
	struct xp_err err = {0};
	struct xp_prep_opts po = {0};
	struct xp_prep *p = xp_prepare(c, &po, &err);
	REQUIRE(p);
	struct xp_result *r = xp_analyze_input_pipeline(p, NULL);
	CHECK_INT(res_sum_int(r, "hosts"), 2);
	CHECK_INT(res_sum_int(r, "input_op_time_us"), 444 * PS_MS);
	CHECK_INT(res_int(r, "input_ops", 0, "count"), 6);
	CHECK_DBL(res_sum_dbl(r, "input_pct"), 40.0, 1e-12);
	CHECK_STR(res_sum_str(r, "breakdown_host"), "worker");
	CHECK(res_diag(r, "breakdown_host"));
	xp_result_free(r);
	xp_prep_free(p);
	xp_capture_free(c);
	xsb_free(bs[0]);
	xsb_free(bs[1]);
}

static const struct test tests[] = {
	TEST(test_d2_classification),
	TEST(test_a3_d3_stage_ops),
	TEST(test_input_bound_run),
	TEST(test_moderately_input_bound),
	TEST(test_compute_bound_run),
	TEST(test_potentially_input_bound),
	TEST(test_breakdown_scaled),
	TEST(test_breakdown_without_enqueue),
	TEST(test_input_op_categories),
	TEST(test_overview_advice),
	TEST(test_two_hosts),
};

int main(void)
{
	return RUN_TESTS("test_input_pipeline", tests);
}
