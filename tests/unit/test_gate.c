/* test_gate.c - report, check and compare through the real code (xp_prepare, every analyzer, metrics, check, compare, the JSON round trip) on capture pairs built in code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzers/check.h"
#include "analyzers/compare.h"
#include "analyzers/db/metrics.h"
#include "analyzers/db/mwu.h"
#include "analyzers/prepare/prepare.h"
#include "analyzers/report.h"
#include "formats/core/xperr.h"
#include "formats/in/report_read.h"
#include "formats/model/capture.h"
#include "formats/model/report.h"
#include "formats/model/result.h"
#include "formats/out/out.h"
#include "formats/out/out_report.h"
#include "check.h"
#include "tests/tmpdir.h"
#include "formats/out/out.h"
#include "formats/core/xperr.h"
#include "formats/out/out_report.h"
#include "formats/in/report_read.h"
#include "resutil.h"
#include "xsbuild.h"

/*
 * A pair is the same small TF program twice. Each step k is a host marker
 * (TraceContext, step_num k) of a chosen duration that holds a launch per
 * kernel; the GPU runs the kernels inside it. Kernels carry tf_op, so the
 * ops and kernels and their times are known exactly:
 *   baseline:  conv (Conv2D) 40 ns, matmul (MatMul) 20 ns, relu (Relu) 5 ns per step
 *   candidate: conv 47 ns (+7), matmul 20 ns (same), relu gone, add (AddV2) 3 ns new
 */

#define STEP_PS 1000000         /* steps start 1 us apart */

struct kern {
	const char *kernel, *op;
	int64_t dur_ps;
};

static const struct kern base_kernels[] = {
	{"conv_kernel", "model/conv/Conv2D:Conv2D", 40000},
	{"matmul_kernel", "model/dense/MatMul:MatMul", 20000},
	{"relu_kernel", "model/relu/Relu:Relu", 5000},
};
static const struct kern cand_kernels[] = {
	{"conv_kernel", "model/conv/Conv2D:Conv2D", 47000},
	{"matmul_kernel", "model/dense/MatMul:MatMul", 20000},
	{"add_kernel", "model/add/AddV2:AddV2", 3000},
};

/* N steps; step k's marker lasts marker_ps[k]. */
static struct xp_capture *build(size_t n, const int64_t *marker_ps, const struct kern *ks, size_t nk)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int main_l = xsb_line(b, h, 0, "main", 0), exec_l = xsb_line(b, h, 1, "tf_executor", 0);
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 0, "Stream #0", 0);
	int64_t corr = 1;
	for (size_t k = 0; k < n; k++) {
		int64_t at = (int64_t)k * STEP_PS;
		int e = xsb_event(b, h, main_l, "TraceContext", at, marker_ps[k]);
		xsb_stat_int(b, h, e, "step_num", (int64_t)k);
		e = xsb_event(b, h, main_l, "FunctionRun", at + 10, marker_ps[k] - 20);
		xsb_stat_int(b, h, e, "id", (int64_t)k);
		xsb_stat_int(b, h, e, "_pt", 1);
		xsb_stat_int(b, h, e, "_p", (int64_t)k);
		e = xsb_event(b, h, exec_l, "ExecutorState::Process", at + 20, 200000);
		xsb_stat_int(b, h, e, "id", (int64_t)k);
		xsb_stat_int(b, h, e, "_ct", 1);
		xsb_stat_int(b, h, e, "_c", (int64_t)k);
		int64_t dev = at + 250000;
		for (size_t i = 0; i < nk; i++, corr++) {
			e = xsb_event(b, h, exec_l, "cudaLaunchKernel", at + 30 + (int64_t)i * 1000, 500);
			xsb_stat_int(b, h, e, "correlation_id", corr);
			e = xsb_event(b, g, s, ks[i].kernel, dev, ks[i].dur_ps);
			xsb_stat_int(b, g, e, "correlation_id", corr);
			xsb_stat_str(b, g, e, "tf_op", ks[i].op);
			xsb_stat_str(b, g, e, "kernel_details", "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 "
						      "block:32,1,1 occ_pct:50.0");
			dev += ks[i].dur_ps + 1000;
		}
	}
	struct xp_capture *c = xsb_read(b);
	xsb_free(b);
	return c;
}

static struct xp_report *report_of(const struct xp_capture *c)
{
	struct xp_prep_opts po = {0};
	struct xp_err err = {0};
	/* Three threads: the capture-only analyses run while the preparation is made. */
	struct xp_report_opts ro = {.threads = 3, .state = true};
	struct xp_report *rep = xp_report_run(c, &po, &ro, NULL, &err);
	if (!rep) {
		fprintf(stderr, "xp_report_run: %s\n", err.msg);
		abort();
	}
	return rep;
}

/* The report saved as JSON and read back, as `check --baseline saved.json` does. */
static struct xp_report *round_trip(const struct xp_report *rep)
{
	char path[4096];
	tmp_template(path, sizeof path, "xpstat-test-gate");
	int fd = mkstemp(path);
	if (fd < 0)
		abort();
	FILE *f = fdopen(fd, "w");
	static char built[] = "built";
	char *in[] = {built};
	xp_report_write_json(rep, "verdict", in, 1, f);
	fclose(f);
	struct xp_report *back;
	struct xp_err err = {0};
	if (xp_report_read(path, 0, &back, &err)) {
		xp_err_print(&err);
		abort();
	}
	unlink(path);
	return back;
}

static void markers(int64_t *v, size_t n, int64_t base, int64_t jitter, int64_t scale_num, int64_t scale_den)
{
	for (size_t k = 0; k < n; k++) {
		/* A fixed pseudo-noise pattern in 0..jitter: deterministic, no seed. */
		int64_t noise = (int64_t)((k * 7919) % 13) * jitter / 12;
		v[k] = (base + noise) * scale_num / scale_den;
	}
}

/* ---- every section is there, from one preparation ---- */

static void report_sections(void)
{
	int64_t m[6];
	markers(m, 6, 800000, 0, 1, 1);
	struct xp_capture *c = build(6, m, base_kernels, 3);
	struct xp_report *rep = report_of(c);
	static const char *const keys[] = {"info", "overview", "steps", "input_pipeline", "tf_data",
					   "tf_stats", "kernel_stats", "memory", "pod"};
	REQUIRE_INT(rep->n, 9);
	for (size_t i = 0; i < rep->n; i++) {
		CHECK_STR(rep->sec[i].key, keys[i]);
		CHECK_STR(rep->sec[i].command, xp_report_command(i));
	}
	/* overview keeps every device op (not only the top 10), text shows 10. */
	const struct xp_table *t = xp_result_table(xp_report_get(rep, "overview"), "top_ops");
	REQUIRE(t);
	CHECK_INT(t->n_rows, 3);
	CHECK_INT(t->text_limit, 10);
	struct xp_metrics mm;
	xp_metrics_from_report(rep, &mm);
	REQUIRE_INT(mm.n_steps, 6);
	for (size_t k = 0; k < 6; k++)
		CHECK_INT(mm.step_ps[k], 800000);
	CHECK_INT(mm.median_ps, 800000);
	CHECK_INT(mm.avg_ps, 800000);
	/* The same numbers as overview shows. */
	CHECK_INT(res_sum_int(xp_report_get(rep, "overview"), "step_time_avg_ms"), mm.avg_ps);
	CHECK_DBL(res_sum_dbl(xp_report_get(rep, "overview"), "input_pct"), xp_metrics_cat_pct(&mm, XP_SC_INPUT), 1e-12);
	CHECK_INT(mm.kernels.n, 3);
	CHECK(mm.ops_tf.present);
	xp_metrics_free(&mm);
	xp_report_free(rep);
	xp_capture_free(c);
}

/* ---- compare: every delta exact ---- */

static long row_of(const struct xp_result *r, const char *table, const char *key, const char *value)
{
	const struct xp_table *t = xp_result_table(r, table);
	int c = res_col(t, key);
	for (size_t i = 0; t && c >= 0 && i < t->n_rows; i++) {
		const struct xp_cell *x = xp_table_cell(t, i, (size_t)c);
		if (x->type == XP_T_STR && !strcmp(x->v.s, value))
			return (long)i;
	}
	return -1;
}

static int64_t cell_i(const struct xp_result *r, const char *table, long row, const char *key)
{
	const struct xp_cell *x = row < 0 ? NULL : res_cell(r, table, (size_t)row, key);
	return x ? x->v.i : INT64_MIN;
}

static const char *cell_s(const struct xp_result *r, const char *table, long row, const char *key)
{
	const struct xp_cell *x = row < 0 ? NULL : res_cell(r, table, (size_t)row, key);
	return x && x->type == XP_T_STR ? x->v.s : "";
}

/* An op row of the device side (tf-stats lists host rows too). */
static long device_op(const struct xp_result *r, const char *name)
{
	const struct xp_table *t = xp_result_table(r, "ops");
	int cn = res_col(t, "op_name"), cs = res_col(t, "host_or_device");
	for (size_t i = 0; t && i < t->n_rows; i++)
		if (!strcmp(xp_table_cell(t, i, (size_t)cn)->v.s, name) &&
		    !strcmp(xp_table_cell(t, i, (size_t)cs)->v.s, "device"))
			return (long)i;
	return -1;
}

static void check_compare(const struct xp_result *r, size_t n)
{
	int64_t N = (int64_t)n;
	long row = device_op(r, "model/conv/Conv2D");
	CHECK_STR(cell_s(r, "ops", row, "change"), "slower");
	CHECK_INT(cell_i(r, "ops", row, "baseline_self_time_us"), N * 40000);
	CHECK_INT(cell_i(r, "ops", row, "candidate_self_time_us"), N * 47000);
	CHECK_INT(cell_i(r, "ops", row, "delta_us"), N * 7000);
	CHECK_DBL(res_cell(r, "ops", (size_t)row, "delta_pct")->v.d, 17.5, 1e-12);
	CHECK_INT(cell_i(r, "ops", row, "baseline_occurrences"), N);
	row = device_op(r, "model/dense/MatMul");
	CHECK_STR(cell_s(r, "ops", row, "change"), "same");
	CHECK_INT(cell_i(r, "ops", row, "delta_us"), 0);
	row = device_op(r, "model/relu/Relu");
	CHECK_STR(cell_s(r, "ops", row, "change"), "disappeared");
	CHECK_INT(cell_i(r, "ops", row, "baseline_self_time_us"), N * 5000);
	CHECK_INT(cell_i(r, "ops", row, "candidate_self_time_us"), 0);
	CHECK_INT(cell_i(r, "ops", row, "delta_us"), -N * 5000);
	CHECK_INT(res_cell(r, "ops", (size_t)row, "delta_pct")->v.d, -100);
	row = device_op(r, "model/add/AddV2");
	CHECK_STR(cell_s(r, "ops", row, "change"), "appeared");
	CHECK_INT(cell_i(r, "ops", row, "delta_us"), N * 3000);
	CHECK(res_cell(r, "ops", (size_t)row, "delta_pct")->type == XP_T_NULL);
	/* The largest change comes first. */
	CHECK_INT(device_op(r, "model/conv/Conv2D"), 0);

	row = row_of(r, "kernels", "kernel_name", "conv_kernel");
	CHECK_STR(cell_s(r, "kernels", row, "change"), "slower");
	CHECK_STR(cell_s(r, "kernels", row, "op_name"), "model/conv/Conv2D");
	CHECK_INT(cell_i(r, "kernels", row, "delta_us"), N * 7000);
	row = row_of(r, "kernels", "kernel_name", "relu_kernel");
	CHECK_STR(cell_s(r, "kernels", row, "change"), "disappeared");
	CHECK_INT(cell_i(r, "kernels", row, "delta_us"), -N * 5000);
	row = row_of(r, "kernels", "kernel_name", "add_kernel");
	CHECK_STR(cell_s(r, "kernels", row, "change"), "appeared");
	CHECK_INT(cell_i(r, "kernels", row, "candidate_total_duration_us"), N * 3000);
	CHECK_INT(res_sum_int(r, "kernels_slower"), 1);
	CHECK_INT(res_sum_int(r, "kernels_appeared"), 1);
	CHECK_INT(res_sum_int(r, "kernels_disappeared"), 1);

	/* Step time: every candidate marker is 100 ns longer. */
	row = row_of(r, "step_time", "metric", "step_time_median");
	CHECK_INT(cell_i(r, "step_time", row, "delta_ms"), 100000);
	row = row_of(r, "step_time", "metric", "step_time_avg");
	CHECK_INT(cell_i(r, "step_time", row, "delta_ms"), 100000);
	CHECK_INT(res_sum_int(r, "median_delta_ms"), 100000);
	/* The op set changed: not comparable, with a warning naming it. */
	CHECK_INT(res_sum_int(r, "comparable"), 0);
	row = row_of(r, "comparability", "aspect", "device_type");
	CHECK_INT(res_cell(r, "comparability", (size_t)row, "same")->v.b, 1);
	row = row_of(r, "comparability", "aspect", "ops");
	CHECK_INT(res_cell(r, "comparability", (size_t)row, "same")->v.b, 0);
	bool warned = false;
	for (size_t i = 0; i < r->n_diags; i++)
		warned |= !strcmp(r->diags[i].code, "not_comparable");
	CHECK(warned);
	/* 20 steps each, all 100 ns longer: significant. */
	CHECK_INT(res_sum_int(r, "significant"), 1);
}

static void compare_exact(void)
{
	enum { N = 20 };
	int64_t mb[N], mc[N];
	markers(mb, N, 800000, 24000, 1, 1);
	for (size_t k = 0; k < N; k++)
		mc[k] = mb[k] + 100000;
	struct xp_capture *cb = build(N, mb, base_kernels, 3), *cc = build(N, mc, cand_kernels, 3);
	struct xp_report *rb = report_of(cb), *rc = report_of(cc);
	struct xp_metrics b, c;
	xp_metrics_from_report(rb, &b);
	xp_metrics_from_report(rc, &c);
	REQUIRE_INT(b.n_steps, N);
	REQUIRE_INT(c.n_steps, N);
	for (size_t k = 0; k < N; k++) {
		CHECK_INT(b.step_ps[k], mb[k]);
		CHECK_INT(c.step_ps[k], mc[k]);
	}
	struct xp_compare_opts co = {.confidence = 0.95};
	struct xp_result *r = xp_compare(&b, &c, &co);
	check_compare(r, N);
	xp_result_free(r);

	/* The same from saved reports. */
	struct xp_report *sb = round_trip(rb), *sc = round_trip(rc);
	struct xp_metrics b2, c2;
	xp_metrics_from_report(sb, &b2);
	xp_metrics_from_report(sc, &c2);
	r = xp_compare(&b2, &c2, &co);
	check_compare(r, N);
	xp_result_free(r);

	xp_metrics_free(&b2);
	xp_metrics_free(&c2);
	xp_report_free(sb);
	xp_report_free(sc);
	xp_metrics_free(&b);
	xp_metrics_free(&c);
	xp_report_free(rb);
	xp_report_free(rc);
	xp_capture_free(cb);
	xp_capture_free(cc);
}

/* ---- check ---- */

static const char *status_of(const struct xp_result *r, const char *check)
{
	long row = row_of(r, "checks", "check", check);
	return cell_s(r, "checks", row, "status");
}

static int run_check(size_t nb, const int64_t *mb, size_t nc, const int64_t *mc, const struct xp_check_opts *o,
		     struct xp_result **out)
{
	struct xp_capture *cb = build(nb, mb, base_kernels, 3), *cc = build(nc, mc, base_kernels, 3);
	struct xp_report *rb = report_of(cb), *rc = report_of(cc);
	struct xp_report *sb = round_trip(rb);
	struct xp_metrics b, c;
	xp_metrics_from_report(sb, &b);
	xp_metrics_from_report(rc, &c);
	int status = -1;
	*out = xp_check(&c, &b, o, &status);
	xp_metrics_free(&b);
	xp_metrics_free(&c);
	xp_report_free(sb);
	xp_report_free(rb);
	xp_report_free(rc);
	xp_capture_free(cb);
	xp_capture_free(cc);
	return status;
}

static const struct xp_check_opts default_opts = {
	.regression = {XP_LIM_PCT, 0, 5.0},
	.confidence = 0.95,
	.min_steps = 5,
};

/* Noise only (the same markers in another order and a 1 % jitter): pass. */
static void check_noise(void)
{
	enum { N = 20 };
	int64_t mb[N], mc[N];
	markers(mb, N, 800000, 8000, 1, 1);
	for (size_t k = 0; k < N; k++)
		mc[k] = mb[N - 1 - k] + (int64_t)(k % 3) * 1000;
	struct xp_result *r;
	CHECK_INT(run_check(N, mb, N, mc, &default_opts, &r), XP_CHECK_PASS);
	CHECK_STR(status_of(r, "step_time_regression"), "pass");
	CHECK_STR(res_sum_str(r, "status"), "pass");
	xp_result_free(r);
}

/* 10 % slower in every step: over 5 % and significant: fail. */
static void check_slower(void)
{
	enum { N = 20 };
	int64_t mb[N], mc[N];
	markers(mb, N, 800000, 8000, 1, 1);
	markers(mc, N, 800000, 8000, 11, 10);
	struct xp_result *r;
	CHECK_INT(run_check(N, mb, N, mc, &default_opts, &r), XP_CHECK_FAIL);
	CHECK_STR(status_of(r, "step_time_regression"), "fail");
	/* Every candidate step above every baseline step: p = 1/C(40,20). */
	CHECK_DBL(res_sum_dbl(r, "p_value") / xp_mwu_min_p(N, N), 1, 1e-9);
	CHECK_DBL(res_sum_dbl(r, "median_change_pct"), 10, 0.01);
	CHECK(strstr(r->verdict, "FAIL") == r->verdict);
	CHECK(strstr(r->verdict, "Mann-Whitney U") != NULL);
	xp_result_free(r);
}

/* A 10 % rise that is not significant (a few steps, much noise) passes; a significant 2 % rise passes too. */
static void check_needs_both(void)
{
	enum { N = 6 };
	int64_t mb[N] = {800000, 1200000, 700000, 1100000, 900000, 1000000};
	int64_t mc[N] = {1000000, 1150000, 650000, 1300000, 950000, 1100000};
	struct xp_result *r;
	CHECK_INT(run_check(N, mb, N, mc, &default_opts, &r), XP_CHECK_PASS);
	CHECK(strstr(cell_s(r, "checks", row_of(r, "checks", "check", "step_time_regression"), "message"),
		     "not significant") != NULL);
	xp_result_free(r);
	enum { M = 20 };
	int64_t b2[M], c2[M];
	markers(b2, M, 800000, 0, 1, 1);
	markers(c2, M, 800000, 0, 102, 100);
	CHECK_INT(run_check(M, b2, M, c2, &default_opts, &r), XP_CHECK_PASS);
	CHECK(strstr(cell_s(r, "checks", row_of(r, "checks", "check", "step_time_regression"), "message"),
		     "within") != NULL);
	xp_result_free(r);
}

/* One slow step in an otherwise equal run: the median does not move: pass. */
static void check_outlier(void)
{
	enum { N = 20 };
	int64_t mb[N], mc[N];
	markers(mb, N, 800000, 8000, 1, 1);
	memcpy(mc, mb, sizeof mc);
	mc[7] = 990000;
	struct xp_result *r;
	CHECK_INT(run_check(N, mb, N, mc, &default_opts, &r), XP_CHECK_PASS);
	xp_result_free(r);
}

/* 3 steps: below --min-steps 5: input unusable (3), with the diagnosis. */
static void check_few_steps(void)
{
	int64_t mb[20], mc[3];
	markers(mb, 20, 800000, 8000, 1, 1);
	markers(mc, 3, 800000, 8000, 2, 1);
	struct xp_result *r;
	CHECK_INT(run_check(20, mb, 3, mc, &default_opts, &r), XP_CHECK_UNUSABLE);
	CHECK_STR(status_of(r, "min_steps"), "error");
	CHECK_STR(status_of(r, "step_time_regression"), "skip");
	CHECK_STR(res_sum_str(r, "status"), "unusable");
	bool diag = false;
	for (size_t i = 0; i < r->n_diags; i++)
		diag |= !strcmp(r->diags[i].code, "too_few_steps");
	CHECK(diag);
	CHECK(strstr(r->verdict, "fewer than --min-steps 5") != NULL);
	xp_result_free(r);
	/* --min-steps 3 lets them through, but 3 against 3 can never reach p < 0.05: still unusable. */
	struct xp_check_opts o = default_opts;
	o.min_steps = 3;
	int64_t mb3[3];
	markers(mb3, 3, 800000, 0, 1, 1);
	CHECK_INT(run_check(3, mb3, 3, mc, &o, &r), XP_CHECK_UNUSABLE);
	diag = false;
	for (size_t i = 0; i < r->n_diags; i++)
		diag |= !strcmp(r->diags[i].code, "test_powerless");
	CHECK(diag);
	xp_result_free(r);
}

/* Thresholds: exact values, a fail wins over an unanswerable check (exit 1). */
static void check_thresholds(void)
{
	enum { N = 10 };
	int64_t m[N];
	markers(m, N, 800000, 0, 1, 1);
	static char dc[] = "device_compute", ao[] = "all_others", conv[] = "model/conv/Conv2D", nope[] = "model/nope",
		    all[] = "";
	struct xp_named_limit cat[] = {{dc, {XP_LIM_DUR, 60000, 0}}, {ao, {XP_LIM_PCT, 0, 100}}};
	struct xp_named_limit op[] = {{conv, {XP_LIM_DUR, N * 40000, 0}}, {nope, {XP_LIM_DUR, 1, 0}}};
	struct xp_check_opts o = {
		.max_step = {XP_LIM_DUR, 800000, 0},
		.max_median = {XP_LIM_DUR, 799999, 0},
		.n_cat = 2, .cat = cat,
		.max_input = {XP_LIM_PCT, 0, 0},
		.n_op = 2, .op = op,
		.has_peak = true, .peak = {all, {XP_LIM_BYTES, 1 << 20, 0}},
		.confidence = 0.95, .min_steps = 5,
	};
	struct xp_result *r;
	CHECK_INT(run_check(N, m, N, m, &o, &r), XP_CHECK_FAIL);
	CHECK_STR(status_of(r, "max_step_time"), "pass");          /* 800 ns is not over 800 ns */
	CHECK_STR(status_of(r, "max_median_step_time"), "fail");   /* but over 799.999 ns */
	long row = row_of(r, "checks", "check", "max_step_time");
	CHECK_INT(cell_i(r, "checks", row, "value_ms"), 800000);
	CHECK_INT(cell_i(r, "checks", row, "limit_ms"), 800000);
	CHECK_INT(cell_i(r, "checks", row, "baseline_ms"), 800000);
	row = row_of(r, "checks", "subject", "device_compute");
	CHECK_STR(cell_s(r, "checks", row, "status"), "fail");     /* 40 + 20 + 5 ns of kernels per step */
	CHECK_INT(cell_i(r, "checks", row, "value_ms"), 65000);
	row = row_of(r, "checks", "subject", "all_others");
	CHECK_STR(cell_s(r, "checks", row, "status"), "pass");     /* a share is never over 100 % */
	CHECK_STR(status_of(r, "max_input_bound"), "pass");        /* 0 % input: not over 0 % */
	row = row_of(r, "checks", "subject", "model/conv/Conv2D");
	CHECK_STR(cell_s(r, "checks", row, "status"), "pass");
	CHECK_INT(cell_i(r, "checks", row, "value_ms"), N * 40000);
	row = row_of(r, "checks", "subject", "model/nope");
	CHECK_STR(cell_s(r, "checks", row, "status"), "error");    /* a name the capture lacks never passes */
	CHECK(strstr(cell_s(r, "checks", row, "message"), "did you mean 'model/") != NULL);
	CHECK_STR(status_of(r, "max_peak_memory"), "error");       /* no memory events in the capture */
	CHECK_STR(res_sum_str(r, "status"), "fail");
	xp_result_free(r);
}

/* ---- JUnit: every string escaped, counts that match ---- */

/* Saved documents whose command names are not names (they are echoed in
 * messages and headings) are refused, one line each, exit status 3. */
static void saved_command_names(void)
{
	static const struct {
		const char *doc, *msg;
	} cases[] = {
		{"{\"schema_version\":1,\"command\":\"steps\",\"summary\":{},\"tables\":{}}", NULL},
		{"{\"schema_version\":1,\"command\":\"kernel_stats\",\"summary\":{}}", NULL},
		{"{\"schema_version\":1,\"command\":\"st\\neps\"}", "is not a command name"},
		{"{\"schema_version\":1,\"command\":\"\"}", "is not a command name"},
		{"{\"schema_version\":1,\"command\":\"\u00e9\"}", "is not a command name"},
		{"{\"schema_version\":1,\"command\":\"report\",\"reports\":{\"steps\":{\"command\":\"steps\"}}}", NULL},
		{"{\"schema_version\":1,\"command\":\"report\",\"reports\":{\"steps\":{\"command\":\"a b\"}}}",
		 "a section's"},
		{"{\"schema_version\":1,\"command\":\"report\",\"reports\":{\"st\\u0001\":{}}}", "a section's"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct xp_report *rep = NULL;
		struct xp_err err = {0};
		int rc = xp_report_parse("saved.json", cases[i].doc, strlen(cases[i].doc), &rep, &err);
		if (!cases[i].msg) {
			if (CHECK_INT(rc, 0))
				CHECK(rep && rep->n == 1);
		} else if (CHECK_INT(rc, -1)) {
			CHECK_INT(err.status, XP_EXIT_BAD_INPUT);
			if (!CHECK(strstr(err.msg, cases[i].msg) != NULL))
				fprintf(stderr, "  case %zu: %s\n", i, err.msg);
		}
		xp_report_free(rep);
	}
}

/* Numbers in a saved document read back up to int64's ends (durations after their unit), a saturated
 * time as itself; the gate's sums and differences saturate. Past that (hand-edited or hostile: 1e300,
 * 1e19 ps) the document is refused, one line naming the key, where a cast would be undefined. */
static void saved_huge_numbers(void)
{
	const char *doc = "{\"schema_version\":1,\"command\":\"steps\",\"summary\":{\"peak_bytes\":2305843009213693000,"
			  "\"low_bytes\":-2305843009213693000,\"span_ms\":9223372036.854775807},"
			  "\"tables\":{\"steps\":[{\"freed_bytes\":1},{\"freed_bytes\":-3e15}]}}";
	struct xp_report *rep = NULL;
	struct xp_err err = {0};
	REQUIRE(xp_report_parse("saved.json", doc, strlen(doc), &rep, &err) == 0);
	const struct xp_result *r = rep->sec[0].r;
	REQUIRE_INT(r->n_summary, 3);
	CHECK(r->summary[0].value.v.i == 2305843009213692928 && r->summary[1].value.v.i == -2305843009213692928);
	CHECK(r->summary[2].value.v.i == INT64_MAX); /* a saturated span reads back as itself */
	REQUIRE_INT(r->n_tables, 1);
	const struct xp_table *t = r->tables[0];
	REQUIRE_INT(t->n_rows, 2);
	CHECK(xp_table_cell(t, 0, 0)->v.i == 1 && xp_table_cell(t, 1, 0)->v.i == -3000000000000000);
	xp_report_free(rep);
	static const char *const refused[] = {
		"{\"schema_version\":1,\"command\":\"steps\",\"summary\":{\"peak_bytes\":1e300}}",
		"{\"schema_version\":1,\"command\":\"steps\",\"summary\":{\"low_bytes\":-1e300}}",
		"{\"schema_version\":1,\"command\":\"steps\",\"tables\":{\"steps\":[{\"freed_bytes\":2.7689e20}]}}",
		/* past int64 (2^63 itself is how INT64_MAX, a saturated time, reads back: kept) */
		"{\"schema_version\":1,\"command\":\"steps\",\"tables\":{\"steps\":[{\"x\":9223372036854900000}]}}",
		"{\"schema_version\":1,\"command\":\"steps\",\"tables\":{\"steps\":[{\"step_time_ms\":1e10}]}}",
		"{\"schema_version\":1,\"command\":\"steps\",\"tables\":{\"steps\":[{\"ratio\":1e999}]}}",
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		struct xp_err e = {0};
		rep = NULL;
		if (CHECK_INT(xp_report_parse("saved.json", refused[i], strlen(refused[i]), &rep, &e), -1)) {
			CHECK_INT(e.status, XP_EXIT_BAD_INPUT);
			CHECK(strstr(e.msg, "out of range") != NULL);
		}
		xp_report_free(rep);
	}
}

static void junit_escaping(void)
{
	struct xp_result *r = xp_result_new("check");
	xp_result_set_verdict(r, "FAIL: <b>&\"'\x01\xff");
	xp_sum_str(r, "candidate", "Candidate", "a\tb\nc\rd<e>");
	struct xp_table *t = xp_result_add_table(r, "checks", "Checks");
	size_t cc = xp_table_col(t, "check", "Check", XP_T_STR, XP_U_NONE, 0);
	size_t cs = xp_table_col(t, "subject", "Of", XP_T_STR, XP_U_NONE, 0);
	size_t st = xp_table_col(t, "status", "Status", XP_T_STR, XP_U_NONE, 0);
	size_t cm = xp_table_col(t, "message", "Why", XP_T_STR, XP_U_NONE, 0);
	static const char *const status[] = {"pass", "fail", "skip", "error"};
	for (int i = 0; i < 4; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, cc, "max_op_self_time");
		xp_set_str(t, row, cs, "op\"<&>'\x1b]0;x\x07\xc3(");
		xp_set_str(t, row, st, status[i]);
		xp_set_str(t, row, cm, "a \"quoted\" <msg> & more\n");
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_INT(xp_writer_junit.write(r, f, NULL, &(struct xp_err){0}), 0);
	fclose(f);
	CHECK(strstr(buf, "tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\"") != NULL);
	/* The subject: quote, <, &, >, apostrophe escaped; ESC and BEL (no XML 1.0 character) and the bad byte as U+FFFD. */
	CHECK(strstr(buf, "name=\"max_op_self_time op&quot;&lt;&amp;&gt;&apos;\xef\xbf\xbd]0;x\xef\xbf\xbd\xef\xbf\xbd(\"") != NULL);
	CHECK(strstr(buf, "message=\"a &quot;quoted&quot; &lt;msg&gt; &amp; more&#10;\"") != NULL);
	CHECK(strstr(buf, "<property name=\"candidate\" value=\"a&#9;b&#10;c&#13;d&lt;e&gt;\"/>") != NULL);
	CHECK(strstr(buf, "<system-out>FAIL: &lt;b&gt;&amp;&quot;&apos;\xef\xbf\xbd\xef\xbf\xbd") != NULL);
	CHECK(strstr(buf, "<failure type=\"fail\"") != NULL);
	CHECK(strstr(buf, "<error type=\"error\"") != NULL);
	CHECK(strstr(buf, "<skipped message=") != NULL);
	/* Nothing raw is left: no control byte but tab and newline, no bare '<' inside attribute values. */
	for (const char *p = buf; *p; p++)
		CHECK((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t');
	free(buf);
	/* A result without checks is not check's: a usage error. */
	struct xp_result *other = xp_result_new("overview");
	f = open_memstream(&buf, &len);
	struct xp_err e = {0};
	CHECK_INT(xp_writer_junit.write(other, f, NULL, &e), XP_EXIT_USAGE);
	CHECK_STR(e.msg, "--format junit is only for check");
	fclose(f);
	free(buf);
	xp_result_free(other);
	xp_result_free(r);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(report_sections), TEST(compare_exact), TEST(check_noise), TEST(check_slower),
		TEST(check_needs_both), TEST(check_outlier), TEST(check_few_steps), TEST(check_thresholds),
		TEST(junit_escaping), TEST(saved_command_names), TEST(saved_huge_numbers),
	};
	return RUN_TESTS("test_gate", tests);
}
