/* test_group.c - event grouping details (spec xplane-format §4, analyzers §0.3) seen through xp_prepare's group ids. */
#include "check.h"
#include "preputil.h"
#include "xsbuild.h"

/* ---- producer/consumer bucket limit ---- */

/* TraceContext [0, 100*n] holds n_prod producers (context 7/42) on line 0;
 * n_cons consumers (7/42) sit alone on line 1. Returns the first consumer. */
static int build_bucket(struct xsb *b, int n_prod, int n_cons)
{
	int h = xsb_plane(b, "/host:CPU", 0);
	int l0 = xsb_line(b, h, 0, "main", 0), l1 = xsb_line(b, h, 1, "worker", 0);
	int n = n_prod > n_cons ? n_prod : n_cons;
	int e = xsb_event(b, h, l0, "TraceContext", 0, 100 * (int64_t)n + 100);
	xsb_stat_int(b, h, e, "step_num", 1);
	for (int i = 0; i < n_prod; i++) {
		e = xsb_event(b, h, l0, "Producer", 100 * (int64_t)i, 50);
		xsb_stat_int(b, h, e, "_pt", 7);
		xsb_stat_uint(b, h, e, "_p", 42);
	}
	int first = -1;
	for (int i = 0; i < n_cons; i++) {
		e = xsb_event(b, h, l1, "Consumer", 100 * (int64_t)i + 60, 20);
		xsb_stat_int(b, h, e, "_ct", 7);
		xsb_stat_uint(b, h, e, "_c", 42);
		if (first < 0)
			first = e;
	}
	return first;
}

/* Consumers are linked (group 0) unless both lists have >= 64 members. */
static void check_bucket(int n_prod, int n_cons, int32_t want)
{
	struct xsb *b = xsb_new();
	int cons = build_bucket(b, n_prod, n_cons);
	struct prepared r = prep_run(b, false, NULL);
	for (int i = 0; i < n_cons; i++)
		if (!CHECK_INT(prep_group(&r, 0, cons + i), want)) {
			fprintf(stderr, "  ... consumer %d with %d producers, %d consumers\n", i, n_prod, n_cons);
			break;
		}
	prep_done(&r);
}

static void test_context_bucket_limit(void)
{
	check_bucket(64, 64, -1);
	check_bucket(100, 70, -1);
	check_bucket(63, 64, 0);
	check_bucket(64, 63, 0);
	check_bucket(1, 1, 0);
}

/* ---- TF loop ops disable grouping ---- */

static void test_loop_op_disables_grouping(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int tc = xsb_event(b, h, l, "TraceContext", 0, 100);
	xsb_stat_int(b, h, tc, "step_num", 1);
	int op = xsb_event(b, h, l, "model/dense/MatMul:MatMul", 10, 50);
	xsb_meta(b, h, "WhileOp-EvalCond"); /* only in the metadata table, no event */
	struct prepared r = prep_run(b, false, NULL);
	CHECK_INT(prep_group(&r, h, tc), -1);
	CHECK_INT(prep_group(&r, h, op), -1);
	if (CHECK(r.db)) {
		CHECK_INT(r.db->n, 0);
		CHECK(r.db->grouping_skipped_loops);
	}
	if (r.p)
		CHECK_INT(r.p->hosts[0].n_groups, 0);
	prep_done(&r);
}

/* ---- root order and group names ---- */


/* The name of step ID of DB, or "(no step)". */
static const char *step_name_of(const struct xp_step_db *db, int64_t id)
{
	for (size_t i = 0; db && i < db->n; i++)
		if (db->steps[i].id == id)
			return db->steps[i].name;
	return "(no step)";
}

/* Roots: outer (_r=2) [200,300] holding sub (_r=1); train (_r=1, step_num 5)
 * [0,100]; late [500,600] and early [400,450] (_r=1, different lines);
 * TraceContext [1000,1100] holding inner (_r=1). Level 2 first, then level 1
 * by start: outer 0, train 1, early 2, late 3, TraceContext 4. sub and inner
 * belong to the root around them. */
static void test_root_order(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l0 = xsb_line(b, h, 0, "l0", 0), l1 = xsb_line(b, h, 1, "l1", 0);
	int l2 = xsb_line(b, h, 2, "l2", 0), l3 = xsb_line(b, h, 3, "l3", 0);
	int train = xsb_event(b, h, l0, "train", 0, 100);
	xsb_stat_int(b, h, train, "_r", 1);
	xsb_stat_int(b, h, train, "step_num", 5);
	int outer = xsb_event(b, h, l1, "outer", 200, 100);
	xsb_stat_int(b, h, outer, "_r", 2);
	int sub = xsb_event(b, h, l1, "sub", 210, 40);
	xsb_stat_int(b, h, sub, "_r", 1);
	int late = xsb_event(b, h, l2, "late", 500, 100);
	xsb_stat_int(b, h, late, "_r", 1);
	int early = xsb_event(b, h, l3, "early", 400, 50);
	xsb_stat_int(b, h, early, "_r", 1);
	/* Work inside the roots without any makes them steps, which take the groups' names. */
	int in_train = xsb_event(b, h, l0, "op", 10, 20), in_late = xsb_event(b, h, l2, "op", 510, 20);
	int in_early = xsb_event(b, h, l3, "op", 410, 20);
	int tc = xsb_event(b, h, l0, "TraceContext", 1000, 100);
	int inner = xsb_event(b, h, l0, "inner", 1010, 40);
	xsb_stat_int(b, h, inner, "_r", 1);
	struct prepared r = prep_run(b, false, NULL);
	CHECK_INT(prep_group(&r, h, outer), 0);
	CHECK_INT(prep_group(&r, h, sub), 0);
	CHECK_INT(prep_group(&r, h, train), 1);
	CHECK_INT(prep_group(&r, h, early), 2);
	CHECK_INT(prep_group(&r, h, late), 3);
	CHECK_INT(prep_group(&r, h, tc), 4);
	CHECK_INT(prep_group(&r, h, inner), 4);
	CHECK_INT(prep_group(&r, h, in_train), 1);
	CHECK_INT(prep_group(&r, h, in_early), 2);
	CHECK_INT(prep_group(&r, h, in_late), 3);
	if (!CHECK(r.p) || !CHECK_INT(r.p->hosts[0].n_groups, 5))
		goto out;
	/* The groups' names went to their steps, and were freed there. */
	CHECK(r.p->hosts[0].group_names == NULL);
	CHECK_STR(step_name_of(r.db, 0), "outer 0");
	CHECK_STR(step_name_of(r.db, 1), "train 5");
	CHECK_STR(step_name_of(r.db, 2), "early 2");
	CHECK_STR(step_name_of(r.db, 3), "late 3");
	CHECK_STR(step_name_of(r.db, 4), "TraceContext 4");
out:
	prep_done(&r);
}

/* Step names: "train 5" from step_num; iter_num wins over step_num. */
static void test_step_names(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "python", 0);
	int e = xsb_event(b, h, l, "train", 0, 100);
	xsb_stat_int(b, h, e, "_r", 1);
	xsb_stat_int(b, h, e, "step_num", 5);
	xsb_event(b, h, l, "model/dense/MatMul:MatMul", 10, 40);
	e = xsb_event(b, h, l, "train", 200, 100);
	xsb_stat_int(b, h, e, "_r", 1);
	xsb_stat_int(b, h, e, "step_num", 5);
	xsb_stat_int(b, h, e, "iter_num", 7);
	xsb_event(b, h, l, "model/dense/MatMul:MatMul", 210, 40);
	struct prepared r = prep_run(b, false, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 2))
		goto out;
	CHECK_INT(r.db->steps[0].id, 0);
	CHECK_STR(r.db->steps[0].name, "train 5");
	CHECK_INT(r.db->steps[0].duration_ps, 100);
	CHECK_INT(xp_step_type_ps(&r.db->steps[0], XP_ET_HOST_COMPUTE), 40);
	CHECK_INT(r.db->steps[1].id, 1);
	CHECK_STR(r.db->steps[1].name, "train 7");
out:
	prep_done(&r);
}

/* ---- inter-thread links ---- */

/* Step 0: TraceContext [0,100] launches corr 3 at [10,20]; step 1:
 * TraceContext [110,200] launches corr 7 at [150,160]. GPU kernels: corr 3 at
 * [150,170] (inside step 1's host span), corr 7 at [180,190]. The correlation
 * id, not the time, decides: kernel 3 -> group 0, kernel 7 -> group 1. */
static void test_kernel_launch_link(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, 100);
	xsb_stat_int(b, h, e, "step_num", 1);
	int launch3 = xsb_event(b, h, l, "cudaLaunchKernel", 10, 10);
	xsb_stat_int(b, h, launch3, "correlation_id", 3);
	e = xsb_event(b, h, l, "TraceContext", 110, 90);
	xsb_stat_int(b, h, e, "step_num", 2);
	int launch7 = xsb_event(b, h, l, "cudaLaunchKernel", 150, 10);
	xsb_stat_uint(b, h, launch7, "correlation_id", 7);
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 0, "Stream #0", 0);
	int k3 = xsb_event(b, g, s, "kernel_a", 150, 20);
	xsb_stat_uint(b, g, k3, "correlation_id", 3);
	int k7 = xsb_event(b, g, s, "kernel_b", 180, 10);
	xsb_stat_uint(b, g, k7, "correlation_id", 7);
	struct prepared r = prep_run(b, true, NULL);
	CHECK_INT(prep_group(&r, h, launch3), 0);
	CHECK_INT(prep_group(&r, h, launch7), 1);
	CHECK_INT(prep_group(&r, g, k3), 0);
	CHECK_INT(prep_group(&r, g, k7), 1);
	if (CHECK(r.db) && CHECK_INT(r.db->n, 2)) {
		CHECK_INT(r.db->steps[0].begin_ps, 150);
		CHECK_INT(r.db->steps[0].duration_ps, 20);
		CHECK_INT(r.db->steps[1].begin_ps, 180);
		CHECK_INT(r.db->steps[1].duration_ps, 10);
	}
	prep_done(&r);
}

/* Correlation ids as profilers number them and as they might: one dense counter, a counter per thread
 * under the thread's number in the high 32 bits, more such clusters than the direct table takes, a cluster
 * too sparse for it, as many clusters as it takes, and ids spread over 64 bits. N_LINKS steps each launch one kernel; the kernels run in
 * reverse step order, each inside another step's span, so only the id can put one in its launch's group.
 * Step 0 launches the last step's id a second time, before that step's own launch: the later launch wins. */
enum { N_LINKS = 70 };

static uint64_t link_id(int shape, int k)
{
	switch (shape) {
	case 0: return 1000 + (uint64_t)k;                                      /* CUPTI: one counter */
	case 1: return (uint64_t)(k % 3 + 1) << 32 | (uint64_t)(k / 3);         /* per thread, 3 clusters */
	case 2: return (uint64_t)(k + 1) << 32 | 5;                             /* 70 clusters: hash map */
	case 3: return (uint64_t)1 << 32 | (uint64_t)k * 100000;                /* one sparse cluster */
	case 4: return (uint64_t)(k % 64 * 977 + 1) << 32 | (uint64_t)(k / 64); /* 64 clusters: the most */
	default: return ((uint64_t)k + 1) * 0x9E3779B97F4A7C15ull;               /* anywhere */
	}
}

static void check_link_shape(int shape)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int launch[N_LINKS];
	for (int k = 0; k < N_LINKS; k++) {
		int e = xsb_event(b, h, l, "TraceContext", 100 * (int64_t)k, 90);
		xsb_stat_int(b, h, e, "step_num", k + 1);
		if (k == 0) {
			int again = xsb_event(b, h, l, "cudaLaunchKernel", 5, 2);
			xsb_stat_uint(b, h, again, "correlation_id", link_id(shape, N_LINKS - 1));
		}
		launch[k] = xsb_event(b, h, l, "cudaLaunchKernel", 100 * (int64_t)k + 10, 10);
		xsb_stat_uint(b, h, launch[k], "correlation_id", link_id(shape, k));
	}
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 0, "Stream #0", 0);
	int kernel[N_LINKS];
	for (int k = N_LINKS - 1; k >= 0; k--) {
		kernel[k] = xsb_event(b, g, s, "kernel", 100 * (int64_t)(N_LINKS - 1 - k) + 30, 20);
		xsb_stat_uint(b, g, kernel[k], "correlation_id", link_id(shape, k));
	}
	struct prepared r = prep_run(b, true, NULL);
	for (int k = 0; k < N_LINKS; k++)
		if (!CHECK_INT(prep_group(&r, h, launch[k]), k) || !CHECK_INT(prep_group(&r, g, kernel[k]), k)) {
			fprintf(stderr, "  ... id shape %d, step %d\n", shape, k);
			break;
		}
	prep_done(&r);
}

static void test_correlation_id_shapes(void)
{
	for (int shape = 0; shape < 6; shape++)
		check_link_shape(shape);
}

/* ExecutorState::Process -> IteratorGetNextOp::DoCompute on equal (id, iter_num). */
static void test_iterator_get_next_link(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l0 = xsb_line(b, h, 0, "main", 0), l1 = xsb_line(b, h, 1, "input", 0);
	int e = xsb_event(b, h, l0, "TraceContext", 0, 100);
	xsb_stat_int(b, h, e, "step_num", 1);
	e = xsb_event(b, h, l0, "ExecutorState::Process", 10, 80);
	xsb_stat_int(b, h, e, "id", 5);
	xsb_stat_int(b, h, e, "iter_num", 0);
	int match = xsb_event(b, h, l1, "IteratorGetNextOp::DoCompute", 20, 20);
	xsb_stat_int(b, h, match, "id", 5);
	xsb_stat_int(b, h, match, "iter_num", 0);
	int other = xsb_event(b, h, l1, "IteratorGetNextOp::DoCompute", 50, 20);
	xsb_stat_int(b, h, other, "id", 6);
	xsb_stat_int(b, h, other, "iter_num", 0);
	struct prepared r = prep_run(b, false, NULL);
	CHECK_INT(prep_group(&r, h, match), 0);
	CHECK_INT(prep_group(&r, h, other), -1);
	prep_done(&r);
}

/* TF while loop: Process events of id 5 with iterations 0 and 1 become the
 * only roots (TraceContext is ignored); an iteration's later events join it. */
static void test_tf_loop_roots(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l0 = xsb_line(b, h, 0, "main", 0), l1 = xsb_line(b, h, 1, "exec1", 0);
	int l2 = xsb_line(b, h, 2, "exec2", 0);
	int tc = xsb_event(b, h, l0, "TraceContext", 0, 1000);
	xsb_stat_int(b, h, tc, "step_num", 1);
	int it0 = xsb_event(b, h, l1, "ExecutorState::Process", 10, 90);
	int op0 = xsb_event(b, h, l1, "a:A", 20, 10);
	int it1 = xsb_event(b, h, l1, "ExecutorState::Process", 200, 100);
	int op1 = xsb_event(b, h, l1, "b:B", 210, 10);
	int it1b = xsb_event(b, h, l2, "ExecutorState::Process", 250, 30);
	int iters[] = {it0, it1, it1b}, nums[] = {0, 1, 1};
	for (int i = 0; i < 3; i++) {
		xsb_stat_int(b, h, iters[i], "id", 5);
		xsb_stat_int(b, h, iters[i], "iter_num", nums[i]);
	}
	struct prepared r = prep_run(b, false, NULL);
	CHECK_INT(prep_group(&r, h, tc), -1);
	CHECK_INT(prep_group(&r, h, it0), 0);
	CHECK_INT(prep_group(&r, h, op0), 0);
	CHECK_INT(prep_group(&r, h, it1), 1);
	CHECK_INT(prep_group(&r, h, op1), 1);
	CHECK_INT(prep_group(&r, h, it1b), 1);
	prep_done(&r);
}

/* ---- GPU post-steps ---- */

/* A device event without a group inherits the most recent group in time
 * order, so it stretches the derived Steps event: kernel [200,300] (group 0)
 * then an uncorrelated memset [300,350] on another stream -> device marker
 * [200,350]. Only the correlated kernel is typed: DC32 100, UNKNOWN 50. */
static void test_ungrouped_device_event_inherits(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "main", 0);
	int e = xsb_event(b, h, l, "TraceContext", 0, 100);
	xsb_stat_int(b, h, e, "step_num", 1);
	e = xsb_event(b, h, l, "cudaLaunchKernel", 10, 10);
	xsb_stat_int(b, h, e, "correlation_id", 1);
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s0 = xsb_line(b, g, 0, "Stream #0", 0), s1 = xsb_line(b, g, 1, "Stream #1", 0);
	e = xsb_event(b, g, s0, "kernel", 200, 100);
	xsb_stat_int(b, g, e, "correlation_id", 1);
	xsb_event(b, g, s1, "memset", 300, 50);
	struct prepared r = prep_run(b, true, NULL);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	const struct xp_step *st = &r.db->steps[0];
	CHECK_INT(st->begin_ps, 200);
	CHECK_INT(st->duration_ps, 150);
	CHECK_INT(xp_step_type_ps(st, XP_ET_DEVICE_COMPUTE_32), 100);
	CHECK_INT(xp_step_type_ps(st, XP_ET_UNKNOWN), 50);
out:
	prep_done(&r);
}

/* ---- pre-grouped captures ---- */

/* TF 2.3-2.10 wrote group_id: those ids are kept, nothing is regrouped
 * (the train root without a group_id stays ungrouped). */
static void test_pregrouped_kept(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l0 = xsb_line(b, h, 0, "main", 0), l1 = xsb_line(b, h, 1, "other", 0);
	int tc = xsb_event(b, h, l0, "TraceContext", 0, 100);
	xsb_stat_int(b, h, tc, "step_num", 1);
	xsb_stat_int(b, h, tc, "group_id", 42);
	xsb_stat_str(b, h, tc, "step_name", "TraceContext 1");
	int op = xsb_event(b, h, l0, "model/dense/MatMul:MatMul", 10, 50);
	xsb_stat_int(b, h, op, "group_id", 42);
	int train = xsb_event(b, h, l1, "train", 200, 100);
	xsb_stat_int(b, h, train, "_r", 1);
	int op2 = xsb_event(b, h, l1, "model/dense/MatMul:MatMul", 210, 50);
	struct prepared r = prep_run(b, false, NULL);
	CHECK_INT(prep_group(&r, h, tc), 42);
	CHECK_INT(prep_group(&r, h, op), 42);
	CHECK_INT(prep_group(&r, h, train), -1);
	CHECK_INT(prep_group(&r, h, op2), -1);
	if (!CHECK(r.db) || !CHECK_INT(r.db->n, 1))
		goto out;
	CHECK_INT(r.db->source, XP_STEPS_PREGROUPED);
	CHECK_INT(r.db->steps[0].id, 42);
	CHECK_STR(r.db->steps[0].name, "TraceContext 1");
	CHECK_INT(r.db->steps[0].duration_ps, 100);
	CHECK_INT(xp_step_type_ps(&r.db->steps[0], XP_ET_HOST_COMPUTE), 50);
	CHECK_INT(xp_step_type_ps(&r.db->steps[0], XP_ET_UNKNOWN), 50);
out:
	prep_done(&r);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_context_bucket_limit),
		TEST(test_loop_op_disables_grouping),
		TEST(test_root_order),
		TEST(test_step_names),
		TEST(test_kernel_launch_link),
		TEST(test_correlation_id_shapes),
		TEST(test_iterator_get_next_link),
		TEST(test_tf_loop_roots),
		TEST(test_ungrouped_device_event_inherits),
		TEST(test_pregrouped_kept),
	};
	return RUN_TESTS("test_group", tests);
}
