/* test_steps.c - the step database on the spec's worked examples (A11-A13, D1, D2) and DESIGN §8 decisions. */
#include <float.h>
#include <math.h>

#include "check.h"
#include "preputil.h"
#include "xsbuild.h"

#define COMPAT true
#define DEFAULT false

/* ---- captures ---- */

/* One step of the xprof tests: TraceContext -> FunctionRun -(context 1/id)-> ExecutorState::Process
 * -> matmul (launch, correlation_id corr), at `at` ps on the host lines. */
static void tf_step(struct xsb *b, int host, int main_l, int exec_l, int64_t at, int64_t step_num, int64_t id,
		    int64_t corr, int64_t exec_dur, int64_t op_dur)
{
	int e = xsb_event(b, host, main_l, "TraceContext", at, 100);
	xsb_stat_int(b, host, e, "step_num", step_num);
	e = xsb_event(b, host, main_l, "FunctionRun", at + 10, 90);
	xsb_stat_int(b, host, e, "id", id);
	xsb_stat_int(b, host, e, "_pt", 1);
	xsb_stat_int(b, host, e, "_p", id);
	e = xsb_event(b, host, exec_l, "ExecutorState::Process", at + 20, exec_dur);
	xsb_stat_int(b, host, e, "id", id);
	xsb_stat_int(b, host, e, "_ct", 1);
	xsb_stat_int(b, host, e, "_c", id);
	e = xsb_event(b, host, exec_l, "matmul", at + 30, op_dur);
	if (corr >= 0)
		xsb_stat_int(b, host, e, "correlation_id", corr);
}

/* A GPU plane with one stream holding the kernel `name` [at, at+dur] launched as corr. */
static int gpu_kernel(struct xsb *b, const char *name, int64_t at, int64_t dur, int64_t corr)
{
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 0, "Stream #0", 0);
	int e = xsb_event(b, g, s, name, at, dur);
	xsb_stat_int(b, g, e, "correlation_id", corr);
	return g;
}

/* A11: xplane_to_op_stats_test GpuStepDbTest. */
static struct xsb *build_a11(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int main_l = xsb_line(b, h, 0, "main", 0), exec_l = xsb_line(b, h, 1, "tf_executor", 0);
	tf_step(b, h, main_l, exec_l, 0, 123, 0, 100, 20, 10);
	gpu_kernel(b, "matmul", 50, 40, 100);
	return b;
}

/* A12: xplane_to_op_stats_test CpuOnlyStepDbTest. */
static struct xsb *build_a12(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int main_l = xsb_line(b, h, 0, "main", 0), exec_l = xsb_line(b, h, 1, "tf_executor", 0);
	tf_step(b, h, main_l, exec_l, 0, 123, 0, -1, 80, 70);
	return b;
}

/* A13: xplane_to_step_events_test - two host steps (123, 456), only the first on the device. */
static struct xsb *build_a13(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int main_l = xsb_line(b, h, 0, "main", 0), exec_l = xsb_line(b, h, 1, "tf_executor", 0);
	tf_step(b, h, main_l, exec_l, 0, 123, 0, 100, 20, 10);
	tf_step(b, h, main_l, exec_l, 300, 456, 1, 200, 20, 10);
	gpu_kernel(b, "matmul", 50, 40, 100);
	return b;
}

/* D1 built as a GPU capture (host events merged by default):
 *   TraceContext [0,150]                 explicit host marker (step 0)
 *   model/dense/MatMul:MatMul [0,100]    HOST_COMPUTE
 *   IteratorGetNextOp::DoCompute [70,120] HOST_WAIT_INPUT
 *   cudaLaunchKernel [70,75], corr 9     HOST_PREPARE, hidden below HWI and DC32
 *   GPU volta_sgemm [50,80], corr 9      DEVICE_COMPUTE_32, device marker [50,80]
 * All host events are nested in TraceContext on one line, so they share its group. */
static struct xsb *build_d1(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, 150);
	xsb_stat_int(b, h, e, "step_num", 1);
	xsb_event(b, h, l, "model/dense/MatMul:MatMul", 0, 100);
	xsb_event(b, h, l, "IteratorGetNextOp::DoCompute", 70, 50);
	e = xsb_event(b, h, l, "cudaLaunchKernel", 70, 5);
	xsb_stat_int(b, h, e, "correlation_id", 9);
	gpu_kernel(b, "volta_sgemm", 50, 30, 9);
	return b;
}

/* ---- A11 ---- */

/* Reference numbers: device events only. */
static void test_a11_gpu_step_compat(void)
{
	struct prepared r = prep_run(build_a11(), COMPAT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK(r.db->has_device);
	CHECK_INT(r.db->source, XP_STEPS_GROUPED);
	CHECK_INT(s->id, 0);
	CHECK_STR(s->name, "0");
	CHECK_INT(s->begin_ps, 50);
	CHECK_INT(s->duration_ps, 40);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 40);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 0);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_PREPARE), 0);
	CHECK_INT(step_sum(s), s->duration_ps);
	CHECK_INT(r.db->compute32_ps, 40);
	CHECK_INT(r.db->compute16_ps, 0);
out:
	prep_done(&r);
}

/*
 * Default (DESIGN §8: TF 2.4 semantics, host events merged):
 * grouping: TraceContext is the only root (group 0); FunctionRun nests in it,
 * Process is FunctionRun's consumer (context 1/0), host matmul nests in
 * Process, the GPU matmul is linked by correlation_id 100. Step 0 is on the
 * device (Steps event [50,90]), so its host events are kept:
 *   TraceContext [0,100]   explicit host marker, sets the name "TraceContext 123"
 *   FunctionRun            not real compute, ignored
 *   Process [20,40]        HOST_PREPARE (name ExecutorState::Process, device exists)
 *   matmul [30,40]         HOST_PREPARE (has correlation_id)
 *   GPU matmul [50,90]     DEVICE_COMPUTE_32
 * Step time: host marker [0,100] contains device marker [50,90] -> [0,100], 100 ps.
 * Sweep: [20,30) HP, [30,40) HP, [40,40) HP, [40,50) UNKNOWN, [50,90) DC32.
 * Clipped to [0,100]: HP 20, DC32 40, UNKNOWN 10 + (100 - 70 uncovered) = 40.
 */
static void test_a11_gpu_step_default(void)
{
	struct prepared r = prep_run(build_a11(), DEFAULT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->id, 0);
	CHECK_STR(s->name, "TraceContext 123");
	CHECK_INT(s->begin_ps, 0);
	CHECK_INT(s->duration_ps, 100);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 40);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_PREPARE), 20);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 40);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), 0);
	CHECK_INT(xp_step_cat_ps(s, XP_SC_KERNEL_LAUNCH), 20);
	CHECK_INT(step_sum(s), 100);
	CHECK_INT(r.db->compute32_ps, 40);
	CHECK_INT(r.db->compute16_ps, 0);
out:
	prep_done(&r);
}

/* ---- A12 ---- */

/* CPU-only: marker TraceContext [0,100]; Process [20,100] and matmul [30,100]
 * are HOST_COMPUTE (80 ps after overlap removal), the rest UNKNOWN (20 ps).
 * The mode does not matter without a device. */
static void check_a12(bool compat)
{
	struct prepared r = prep_run(build_a12(), compat, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK(!r.db->has_device);
	CHECK_INT(s->id, 0);
	CHECK_STR(s->name, "TraceContext 123");
	CHECK_INT(s->begin_ps, 0);
	CHECK_INT(s->duration_ps, 100);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), 80);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 20);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_PREPARE), 0);
	CHECK_INT(step_sum(s), 100);
	CHECK_INT(r.db->compute16_ps + r.db->compute32_ps, 0);
out:
	prep_done(&r);
}

static void test_a12_cpu_only_step(void)
{
	check_a12(DEFAULT);
	check_a12(COMPAT);
}

/* ---- A13 ---- */

/* Default: only step 0 (on the device) survives; its Process and matmul are
 * HOST_PREPARE (has-device semantics), FunctionRun is not added. Same numbers
 * as A11's default; step 1 (TraceContext 456) is not a step at all. */
static void test_a13_host_steps_filtered_default(void)
{
	struct prepared r = prep_run(build_a13(), DEFAULT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->id, 0);
	CHECK_STR(s->name, "TraceContext 123");
	CHECK_INT(s->duration_ps, 100);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_PREPARE), 20);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), 0);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 40);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 40);
	CHECK_INT(step_sum(s), 100);
out:
	prep_done(&r);
}

static void test_a13_host_steps_filtered_compat(void)
{
	struct prepared r = prep_run(build_a13(), COMPAT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	CHECK_INT(r.db->steps[0].id, 0);
	CHECK_INT(r.db->steps[0].duration_ps, 40);
	CHECK_INT(xp_step_type_ps(&r.db->steps[0], XP_ET_DEVICE_COMPUTE_32), 40);
out:
	prep_done(&r);
}

/* ---- A16 inputs: several hosts ---- */

/* A16's two hosts (host1, host2: A12 with the op `aaa:bbb`) prepared in one
 * capture: one step per host, as A12. Combining them (cores {1, 1001}, the
 * host op DB row aaa/bbb self 140 ps) and A17's step intersection have no
 * API in prepare.h yet, so only the per-host part is checked. */
static struct xsb *build_a16_host(const char *hostname)
{
	struct xsb *b = xsb_new();
	xsb_hostname(b, hostname);
	int h = xsb_plane(b, "/host:CPU", 0);
	int main_l = xsb_line(b, h, 0, "main", 0), exec_l = xsb_line(b, h, 1, "tf_executor", 0);
	int e = xsb_event(b, h, main_l, "TraceContext", 0, 100);
	xsb_stat_int(b, h, e, "step_num", 123);
	e = xsb_event(b, h, main_l, "FunctionRun", 10, 90);
	xsb_stat_int(b, h, e, "id", 0);
	xsb_stat_int(b, h, e, "_pt", 1);
	xsb_stat_int(b, h, e, "_p", 0);
	e = xsb_event(b, h, exec_l, "ExecutorState::Process", 20, 80);
	xsb_stat_int(b, h, e, "id", 0);
	xsb_stat_int(b, h, e, "_ct", 1);
	xsb_stat_int(b, h, e, "_c", 0);
	xsb_event(b, h, exec_l, "aaa:bbb", 30, 70);
	return b;
}

static void test_a16_per_host_steps(void)
{
	struct xsb *b[2] = {build_a16_host("host1"), build_a16_host("host2")};
	struct xp_capture *c = xsb_read_hosts(b, 2);
	struct xp_prep_opts o = {0};
	struct xp_err err = {0};
	struct xp_prep *p = xp_prepare(c, &o, &err);
	if (!CHECK(p) || !CHECK_INT(p->n_hosts, 2))
		goto out;
	for (uint32_t i = 0; i < 2; i++) {
		const struct xp_step_db *db = &p->hosts[i].steps;
		CHECK_STR(p->hosts[i].host->name, i ? "host2" : "host1");
		if (!CHECK_INT(db->n, 1))
			continue;
		CHECK_STR(db->steps[0].name, "TraceContext 123");
		CHECK_INT(db->steps[0].duration_ps, 100);
		CHECK_INT(xp_step_type_ps(&db->steps[0], XP_ET_HOST_COMPUTE), 80);
		CHECK_INT(xp_step_type_ps(&db->steps[0], XP_ET_UNKNOWN), 20);
	}
out:
	if (p)
		xp_prep_free(p);
	xp_capture_free(c);
	xsb_free(b[0]);
	xsb_free(b[1]);
}

/* ---- D1 ---- */

/* Segments [0,50) HC, [50,70) DC32, [70,80) DC32 (140 > 110 and > 90),
 * [80,120) HWI; marker [0,150]: HC 50, DC32 30, HWI 40, UNKNOWN 30, HP 0. */
static void test_d1_overlap_resolution(void)
{
	struct prepared r = prep_run(build_d1(), DEFAULT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->duration_ps, 150);
	CHECK_INT(s->begin_ps, 0);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), 50);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 30);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_WAIT_INPUT), 40);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 30);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_PREPARE), 0);
	CHECK_INT(step_sum(s), 150);
	CHECK_INT(xp_step_cat_ps(s, XP_SC_INPUT), 40);
	CHECK_INT(r.db->compute32_ps, 30);
out:
	prep_done(&r);
}

/* A host step whose events lie days apart (2^59 ps): too far for the sweep's packed keys, so it sorts the
 * boundaries themselves; the sums come out as for a short step. */
static void test_step_spanning_days(void)
{
	const int64_t far = INT64_C(1) << 59;
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, far);
	xsb_stat_int(b, h, e, "step_num", 1);
	xsb_event(b, h, l, "model/dense/MatMul:MatMul", 0, 100);
	xsb_event(b, h, l, "model/dense/Relu:Relu", far - 100, 50);
	struct prepared r = prep_run(b, DEFAULT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->duration_ps, far);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), 150);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), far - 150);
	CHECK_INT(step_sum(s), far);
out:
	prep_done(&r);
}

/* Step S of test_steps_in_parts as DB has it: 0 when right, else 1. */
static int wrong_step(const struct xp_step_db *db, int s, int64_t len)
{
	const struct xp_step *st = &db->steps[s];
	return st->begin_ps != (int64_t)s * len || st->duration_ps != len - 1000 ||
	       xp_step_type_ps(st, XP_ET_HOST_COMPUTE) != 10 * (100 + s % 7) ||
	       xp_step_type_ps(st, XP_ET_DEVICE_COMPUTE_32) != 10 * (1 + s % 5) || step_sum(st) != len - 1000;
}

/* More spans than one part of the step sweep holds (2^18): the spans reach their steps a part at a time, and
 * every step still gets exactly its own, on one thread and on two (each sweeps the steps of half the spans, and
 * the database has them in step order with the same totals). The device spans are gathered before the host
 * ones, so the gathered order is not the steps' order. Step S: 100 + S % 7 host ops of 10 ps, then a launch of
 * a kernel of 10 * (1 + S % 5) ps. */
static void test_steps_in_parts(void)
{
	enum { STEPS = 3000, LEN = 5000 };
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	size_t spans = 0;
	int64_t device = 0;
	for (int s = 0; s < STEPS; s++) {
		int64_t at = (int64_t)s * LEN;
		int e = xsb_event(b, h, l, "TraceContext", at, LEN - 1000);
		xsb_stat_int(b, h, e, "step_num", s);
		for (int j = 0; j < 100 + s % 7; j++, spans++)
			xsb_event(b, h, l, "model/dense/MatMul:MatMul", at + 10 * j, 10);
		e = xsb_event(b, h, l, "cudaLaunchKernel", at + 3000, 5);
		xsb_stat_int(b, h, e, "correlation_id", s + 1);
		gpu_kernel(b, "volta_sgemm", at + 3500, 10 * (1 + s % 5), s + 1);
		device += 10 * (1 + s % 5);
	}
	CHECK(spans > (size_t)1 << 18);
	struct xp_capture *c = xsb_read(b);
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_prep_opts o = {.threads = threads};
		struct xp_err err = {0};
		struct xp_prep *p = xp_prepare(c, &o, &err);
		if (!CHECK(p) || !CHECK_INT(p->hosts[0].steps.n, STEPS)) {
			if (p)
				xp_prep_free(p);
			continue;
		}
		const struct xp_step_db *db = &p->hosts[0].steps;
		int bad = 0;
		for (int s = 0; s < STEPS; s++)
			bad += wrong_step(db, s, LEN);
		CHECK_INT(bad, 0);
		CHECK_INT(db->compute32_ps, device);
		CHECK_INT(db->n_dropped, 0);
		xp_prep_free(p);
	}
	xp_capture_free(c);
	xsb_free(b);
}

/* The same capture with xprof's semantics: only the device marker [50,80]. */
static void test_d1_compat_device_only(void)
{
	struct prepared r = prep_run(build_d1(), COMPAT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->begin_ps, 50);
	CHECK_INT(s->duration_ps, 30);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 30);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), 0);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_WAIT_INPUT), 0);
	CHECK_INT(step_sum(s), 30);
out:
	prep_done(&r);
}

/* ---- D2 and §1.5 summary statistics ---- */

static void test_d2_summary(void)
{
	struct xp_summary_stat st;
	const double two[] = {100.0, 60.0};
	xp_summarize_ms(two, 2, &st);
	CHECK_INT(st.n, 2);
	CHECK_DBL(st.avg, 80.0, 1e-12);
	CHECK_DBL(st.sdv, sqrt(800.0), 1e-9); /* sqrt(((100²+60²) - 160²/2) / 1) = 28.2842712... */
	CHECK_DBL(st.sdv, 28.284271247461902, 1e-9);
	CHECK_DBL(st.min, 60.0, 0);
	CHECK_DBL(st.max, 100.0, 0);
}

/* One sample: σ is 0. xprof computes 0/0 here when the value is 0 (its max
 * starts at DBL_MIN, so min != max) and prints "nan"; xpstat does the right
 * thing (DESIGN §5): equal samples have σ 0, and max of {0} is 0, not DBL_MIN. */
static void test_summary_single_and_zero(void)
{
	struct xp_summary_stat st;
	const double one[] = {42.5};
	xp_summarize_ms(one, 1, &st);
	CHECK_INT(st.n, 1);
	CHECK_DBL(st.avg, 42.5, 0);
	CHECK_DBL(st.sdv, 0.0, 0);
	CHECK_DBL(st.min, 42.5, 0);
	CHECK_DBL(st.max, 42.5, 0);
	const double zero[] = {0.0};
	xp_summarize_ms(zero, 1, &st);
	CHECK(!isnan(st.sdv));
	CHECK_DBL(st.sdv, 0.0, 0);
	CHECK_DBL(st.max, 0.0, 0);
	const double zeros[] = {0.0, 0.0, 0.0};
	xp_summarize_ms(zeros, 3, &st);
	CHECK_DBL(st.sdv, 0.0, 0);
	CHECK_DBL(st.max, 0.0, 0);
	/* Equal samples: forced to 0, never a rounding NaN. */
	const double same[] = {0.1, 0.1, 0.1};
	xp_summarize_ms(same, 3, &st);
	CHECK_DBL(st.sdv, 0.0, 0);
}

static void test_summary_empty(void)
{
	struct xp_summary_stat st;
	memset(&st, 0x5a, sizeof st);
	xp_summarize_ms(NULL, 0, &st);
	CHECK_INT(st.n, 0);
	CHECK_DBL(st.avg, 0.0, 0);
	CHECK_DBL(st.sdv, 0.0, 0);
	CHECK_DBL(st.min, 0.0, 0);
	CHECK_DBL(st.max, 0.0, 0);
}

/* ---- device classification (spec §1.2, DESIGN §8) ---- */

/* Host TraceContext [0,1000] (step 0) with launches; GPU stream:
 *   MemcpyH2D [100,200] corr 2, memcpy_details size:4096
 *   volta_sgemm [200,500] corr 1
 *   MemcpyD2H [500,550] corr 3, memcpy_details size:12 */
static struct xsb *build_memcpy(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, 1000);
	xsb_stat_int(b, h, e, "step_num", 1);
	for (int k = 0; k < 3; k++) {
		e = xsb_event(b, h, l, k ? "cudaMemcpyAsync" : "cudaLaunchKernel", 10 + 10 * k, 10);
		xsb_stat_int(b, h, e, "correlation_id", k + 1);
	}
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 7, "Stream #7", 0);
	e = xsb_event(b, g, s, "MemcpyH2D", 100, 100);
	xsb_stat_int(b, g, e, "correlation_id", 2);
	xsb_stat_str(b, g, e, "memcpy_details", "kind_src:pageable kind_dst:device size:4096 dest:0 async:0");
	e = xsb_event(b, g, s, "volta_sgemm", 200, 300);
	xsb_stat_int(b, g, e, "correlation_id", 1);
	e = xsb_event(b, g, s, "MemcpyD2H", 500, 50);
	xsb_stat_int(b, g, e, "correlation_id", 3);
	xsb_stat_ref(b, g, e, "memcpy_details", "size:12 dest:0 async:1");
	return b;
}

/* Default: CUPTI memcpy names are transfers. Step [0,1000]:
 * HP 30 (three launches [10,40]), H2D 100, DC32 300, D2H 50, UNKNOWN 520. */
static void test_device_memcpy_default(void)
{
	struct prepared r = prep_run(build_memcpy(), DEFAULT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->duration_ps, 1000);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_PREPARE), 30);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_TO_DEVICE), 100);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 300);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_TO_HOST), 50);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 520);
	CHECK_INT(xp_step_cat_ps(s, XP_SC_OUTPUT), 50);
	CHECK_INT(xp_step_transfer(s, 0, XP_XFER_COUNT), 1);
	CHECK_INT(xp_step_transfer(s, 0, XP_XFER_BYTES), 4096);
	CHECK_INT(xp_step_transfer(s, 0, XP_XFER_PS), 100);
	CHECK_INT(xp_step_transfer(s, 1, XP_XFER_COUNT), 1);
	CHECK_INT(xp_step_transfer(s, 1, XP_XFER_BYTES), 12);
	CHECK_INT(xp_step_transfer(s, 1, XP_XFER_PS), 50);
	CHECK_INT(xp_step_transfer(s, 2, XP_XFER_COUNT), 0);
	CHECK_INT(r.db->compute32_ps, 300);
out:
	prep_done(&r);
}

/* xprof: MemcpyH2D/MemcpyD2H do not match MemcpyHToD/..., so they are 32-bit
 * compute; the step is the device marker [100,550]. */
static void test_device_memcpy_compat(void)
{
	struct prepared r = prep_run(build_memcpy(), COMPAT, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->begin_ps, 100);
	CHECK_INT(s->duration_ps, 450);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 450);
	CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_TO_DEVICE), 0);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_TO_HOST), 0);
	CHECK_INT(xp_step_transfer(s, 0, XP_XFER_COUNT) + xp_step_transfer(s, 1, XP_XFER_COUNT) + xp_step_transfer(s, 2, XP_XFER_COUNT), 0);
	CHECK_INT(r.db->compute32_ps, 450);
out:
	prep_done(&r);
}

/* Precision (spec §1.2 rule 3, §1.6): name half/fp16 -> 16-bit unless a shape
 * stat says otherwise. Kernels [0,60] fp16 name, [100,140] shape half[2,2],
 * [150,180] name half_kernel but shape float[3] -> 16-bit 100, 32-bit 30.
 * Compat step = Steps event [0,180]: DC16 100, DC32 30, gaps UNKNOWN 50. */
static struct xsb *build_precision(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, 1000);
	xsb_stat_int(b, h, e, "step_num", 1);
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 7, "Stream #7", 0);
	static const struct {
		const char *name, *shape;
		int64_t at, dur;
	} k[] = {{"volta_fp16_s884gemm", NULL, 0, 60}, {"my_kernel", "half[2,2]", 100, 40},
		 {"half_kernel", "float[3]", 150, 30}};
	for (int i = 0; i < 3; i++) {
		e = xsb_event(b, h, l, "cudaLaunchKernel", 10 + 10 * i, 5);
		xsb_stat_int(b, h, e, "correlation_id", 50 + i);
		e = xsb_event(b, g, s, k[i].name, k[i].at, k[i].dur);
		xsb_stat_int(b, g, e, "correlation_id", 50 + i);
		if (k[i].shape)
			xsb_stat_str(b, g, e, "shape", k[i].shape);
	}
	return b;
}

static void check_precision(bool compat)
{
	struct prepared r = prep_run(build_precision(), compat, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	CHECK_INT(r.db->compute16_ps, 100);
	CHECK_INT(r.db->compute32_ps, 30);
	if (!compat)
		goto out;
	const struct xp_step *s = &r.db->steps[0];
	CHECK_INT(s->duration_ps, 180);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_16), 100);
	CHECK_INT(xp_step_type_ps(s, XP_ET_DEVICE_COMPUTE_32), 30);
	CHECK_INT(xp_step_type_ps(s, XP_ET_UNKNOWN), 50);
out:
	prep_done(&r);
}

static void test_precision(void)
{
	check_precision(COMPAT);
	check_precision(DEFAULT);
}

/* ---- well-formed steps, no markers ---- */

/* A CPU-only step without HOST_COMPUTE (FunctionRun is not real compute) is dropped. */
static void test_malformed_step_dropped(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, 100);
	xsb_stat_int(b, h, e, "step_num", 1);
	xsb_event(b, h, l, "FunctionRun", 10, 80);
	struct prepared r = prep_run(b, DEFAULT, NULL);
	if (!CHECK(r.db))
		goto out;
	CHECK_INT(r.db->n, 0);
	CHECK_INT(r.db->n_dropped, 1);
out:
	prep_done(&r);
}

/* No root at all: no groups, no steps. */
static void test_no_step_markers(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	xsb_event(b, h, l, "model/dense/MatMul:MatMul", 0, 100);
	struct prepared r = prep_run(b, DEFAULT, NULL);
	if (!CHECK(r.db))
		goto out;
	CHECK_INT(r.db->n, 0);
	CHECK_INT(r.db->source, XP_STEPS_NONE);
out:
	prep_done(&r);
}

/* ---- --step-marker (DESIGN §8) ---- */

/* Markers on two lines, inserted out of time order, each holding one compute
 * op; a non-matching lookalike is no step. Steps: [0,100], [100,250], [300,400]
 * numbered 0, 1, 2 in time order. */
static struct xsb *build_markers(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l0 = xsb_line(b, h, 0, "a", 0), l1 = xsb_line(b, h, 1, "b", 0);
	xsb_event(b, h, l0, "my_step", 300, 100);
	xsb_event(b, h, l0, "work", 310, 80);
	xsb_event(b, h, l0, "my_step", 0, 100);
	xsb_event(b, h, l0, "work", 10, 50);
	xsb_event(b, h, l1, "my_step", 100, 150);
	xsb_event(b, h, l1, "work", 120, 80);
	xsb_event(b, h, l1, "not_my_step", 500, 100);
	xsb_event(b, h, l1, "work", 510, 10);
	return b;
}

static void test_step_marker_regex(void)
{
	struct prepared r = prep_run(build_markers(), DEFAULT, "^my_step$");
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 3))
		goto out;
	CHECK_INT(r.db->source, XP_STEPS_MARKER_REGEX);
	static const int64_t begin[] = {0, 100, 300}, dur[] = {100, 150, 100}, hc[] = {50, 80, 80};
	for (int i = 0; i < 3; i++) {
		const struct xp_step *s = &r.db->steps[i];
		CHECK_INT(s->id, i);
		CHECK_INT(s->begin_ps, begin[i]);
		CHECK_INT(s->duration_ps, dur[i]);
		CHECK_INT(xp_step_type_ps(s, XP_ET_HOST_COMPUTE), hc[i]);
		CHECK_INT(step_sum(s), dur[i]);
	}
out:
	prep_done(&r);
}

static void test_step_marker_bad_regex(void)
{
	struct xsb *b = build_markers();
	struct xp_capture *c = xsb_read(b);
	struct xp_prep_opts o = {.step_marker = "(["};
	struct xp_err err = {0};
	struct xp_prep *p = xp_prepare(c, &o, &err);
	CHECK(p == NULL);
	CHECK(err.status == XP_EXIT_USAGE && err.msg[0] != 0);
	if (p)
		xp_prep_free(p);
	xp_capture_free(c);
	xsb_free(b);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_a11_gpu_step_compat),
		TEST(test_a11_gpu_step_default),
		TEST(test_a12_cpu_only_step),
		TEST(test_a13_host_steps_filtered_default),
		TEST(test_a13_host_steps_filtered_compat),
		TEST(test_a16_per_host_steps),
		TEST(test_d1_overlap_resolution),
		TEST(test_step_spanning_days),
		TEST(test_steps_in_parts),
		TEST(test_d1_compat_device_only),
		TEST(test_d2_summary),
		TEST(test_summary_single_and_zero),
		TEST(test_summary_empty),
		TEST(test_device_memcpy_default),
		TEST(test_device_memcpy_compat),
		TEST(test_precision),
		TEST(test_malformed_step_dropped),
		TEST(test_no_step_markers),
		TEST(test_step_marker_regex),
		TEST(test_step_marker_bad_regex),
	};
	return RUN_TESTS("test_steps", tests);
}
