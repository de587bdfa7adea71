/* test_tf_data.c - tf.data bottleneck analysis on the spec's worked example A18 and on built pipelines (exact numbers). */
#include <math.h>

#include "analyzers/db/tfdata.h"
#include "analyzers/tf_data.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "check.h"
#include "ipbuild.h"
#include "resutil.h"
#include "xsbuild.h"

#define SUGGEST_OTHER "See this (https://www.tensorflow.org/guide/data_performance_analysis) for suggestions."

struct built {
	struct xsb *b;
	struct xp_capture *c;
	struct xp_tfdata *t;
};

static struct built build(struct xsb *b)
{
	struct built r = {b, xsb_read(b), NULL};
	r.t = xp_tfdata_build(r.c);
	return r;
}

static void done(struct built *r)
{
	xp_tfdata_free(r->t);
	xp_capture_free(r->c);
	xsb_free(r->b);
}

static const struct xp_tfdata_iter *find_iter(const struct xp_tfdata_pipeline *p, int64_t id)
{
	for (size_t i = 0; i < p->n_iters; i++)
		if (p->iters[i].id == id)
			return &p->iters[i];
	return NULL;
}

/* ---- A18 ---- */

static void test_a18_pipeline(void)
{
	struct built r = build(ipb_a18());
	REQUIRE_INT(r.t->n_hosts, 1);
	const struct xp_tfdata_host *h = &r.t->hosts[0];
	CHECK_STR(h->host, "host1");
	REQUIRE_INT(h->n_pipelines, 1);
	const struct xp_tfdata_pipeline *p = &h->pipelines[0];
	CHECK_STR(p->name, "Host:0");
	CHECK_INT(p->id, 123);
	CHECK(!p->device);
	CHECK_STR(p->root_name, "Iterator::Prefetch");
	CHECK_INT(p->n_calls, 2);
	CHECK_INT(p->avg_latency_ps, 60000000);
	CHECK_INT(p->min_latency_ps, 20000000);
	CHECK_INT(p->max_latency_ps, 100000000);
	CHECK_INT(p->num_slow_calls, 1);
	CHECK_INT(h->n_iterator_events, 4);
	CHECK_INT(h->n_truncated_calls, 0);
	done(&r);
}

static void test_a18_slowest_call(void)
{
	struct built r = build(ipb_a18());
	const struct xp_tfdata_pipeline *p = &r.t->hosts[0].pipelines[0];
	REQUIRE_INT(p->n_calls, 2);
	/* Slowest call first: Prefetch self 20,000,000, Range self 80,000,000, both blocking. */
	const struct xp_tfdata_call *c0 = &p->calls[0];
	CHECK_INT(c0->start_ps, 0);
	CHECK_INT(c0->latency_ps, 100000000);
	CHECK(c0->has_bottleneck);
	CHECK_INT(c0->bottleneck_id, 456);
	CHECK_INT(c0->bottleneck_self_ps, 80000000);
	CHECK_STR(c0->bottleneck_name, "Range");
	REQUIRE_INT(p->n_iters, 2);
	const struct xp_tfdata_iter *pf = find_iter(p, 123), *range = find_iter(p, 456);
	REQUIRE(pf && range);
	CHECK(pf == &p->iters[0]);   /* the root first */
	CHECK_INT(pf->self_ps, 20000000);
	CHECK_INT(pf->duration_ps, 100000000);
	CHECK(pf->is_blocking);
	CHECK(pf->is_async);
	CHECK_INT(pf->depth, 0);
	CHECK_STR(pf->name, "Prefetch");
	CHECK(!pf->has_parent);
	CHECK_INT(range->self_ps, 80000000);
	CHECK_INT(range->duration_ps, 80000000);
	CHECK(range->is_blocking);
	CHECK(!range->is_async);
	CHECK_INT(range->depth, 1);
	CHECK_INT(range->parent_id, 123);
	CHECK_STR(range->name, "Range");
	CHECK_STR(range->long_name, "Iterator::Prefetch::Range");
	CHECK_INT(range->num_calls, 1);
	/* Second call: Range [100M,180M] does not overlap Prefetch [200M,220M]: bottleneck Prefetch 20,000,000. */
	const struct xp_tfdata_call *c1 = &p->calls[1];
	CHECK_INT(c1->latency_ps, 20000000);
	CHECK_INT(c1->start_ps, 200000000);
	CHECK(c1->has_bottleneck);
	CHECK_INT(c1->bottleneck_id, 123);
	CHECK_INT(c1->bottleneck_self_ps, 20000000);
	done(&r);
}

static void test_a18_bottleneck_analysis(void)
{
	struct built r = build(ipb_a18());
	REQUIRE_INT(r.t->n_bottlenecks, 1);
	const struct xp_tfdata_bottleneck_row *b = &r.t->bottlenecks[0];
	CHECK_INT(b->host, 0);
	CHECK_STR(xp_tfdata_row_pipeline(r.t, b)->name, "Host:0");
	CHECK_INT(b->max_latency_ps, 100000000);
	CHECK_STR(b->iterator_name, "Range");
	CHECK_STR(b->iterator_long_name, "Iterator::Prefetch::Range");
	CHECK_INT(b->iterator_latency_ps, 80000000);
	CHECK_INT(b->type, XP_TFB_OTHER);
	CHECK_STR(xp_tfdata_suggestion(b->type), SUGGEST_OTHER);
	CHECK(r.t->is_input_bound);
	CHECK_INT(r.t->max_latency_ps, 100000000);
	CHECK_STR(r.t->summary, "Your profile has a tf.data input pipeline slower than 50 us. For each slow input "
		  "pipeline, below shows a bottleneck in the input pipeline and a suggestion on how to fix it.");
	done(&r);
}

static void test_a18_result(void)
{
	struct xsb *b = ipb_a18();
	struct xp_capture *c = xsb_read(b);
	struct xp_result *r = xp_analyze_tf_data(c);
	CHECK_STR(r->verdict, "tf.data input pipeline slower than 50 us: Host:0 on host1 takes up to 100 us per "
		  "element; bottleneck Range (Iterator::Prefetch::Range), 80.0 us self time");
	CHECK_STR(r->command, "tf-data");
	CHECK_INT(res_sum_int(r, "input_pipelines"), 1);
	CHECK_INT(res_sum_int(r, "host_input_pipelines"), 1);
	CHECK_INT(res_sum_int(r, "device_input_pipelines"), 0);
	CHECK_INT(res_sum_int(r, "calls"), 2);
	CHECK_INT(res_sum_int(r, "is_input_bound"), 1);
	CHECK_STR(res_sum_str(r, "bottleneck_host"), "host1");
	CHECK_STR(res_sum_str(r, "bottleneck_input_pipeline"), "Host:0");
	CHECK_INT(res_sum_int(r, "max_latency_us"), 100000000);
	CHECK_STR(res_sum_str(r, "bottleneck_iterator"), "Range");
	CHECK_STR(res_sum_str(r, "bottleneck_iterator_long_name"), "Iterator::Prefetch::Range");
	CHECK_INT(res_sum_int(r, "bottleneck_latency_us"), 80000000);
	CHECK_STR(res_sum_str(r, "bottleneck_type"), "other");
	CHECK_STR(res_sum_str(r, "suggestion"), SUGGEST_OTHER);
	CHECK_INT(res_rows(r, "bottleneck_analysis"), 1);
	CHECK_INT(res_int(r, "bottleneck_analysis", 0, "pipeline_id"), 123);
	CHECK_INT(res_rows(r, "input_pipelines"), 1);
	CHECK_INT(res_int(r, "input_pipelines", 0, "avg_latency_us"), 60000000);
	CHECK_INT(res_int(r, "input_pipelines", 0, "slow_calls"), 1);
	CHECK_INT(res_rows(r, "slowest_call"), 2);
	CHECK_STR(res_str(r, "slowest_call", 1, "iterator"), "Range");
	CHECK_INT(res_int(r, "slowest_call", 1, "is_bottleneck"), 1);
	CHECK_INT(res_int(r, "slowest_call", 0, "is_bottleneck"), 0);
	CHECK_INT(res_int(r, "slowest_call", 0, "is_async"), 1);
	CHECK_INT(res_rows(r, "calls"), 2);
	CHECK_STR(res_str(r, "calls", 1, "bottleneck_iterator"), "Prefetch");
	CHECK_INT(res_int(r, "calls", 1, "bottleneck_latency_us"), 20000000);
	CHECK_INT(res_int(r, "calls", 1, "is_slow"), 0);
	CHECK(!res_diag(r, "no_tf_data"));
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- a slow Map behind Prefetch ---- */

static const int64_t slow_map_input[] = {40, 30, 50};

static void test_slow_map(void)
{
	struct built r = build(ipb_cpu_run(slow_map_input, 3, true));
	REQUIRE_INT(r.t->hosts[0].n_pipelines, 1);
	const struct xp_tfdata_pipeline *p = &r.t->hosts[0].pipelines[0];
	CHECK_STR(p->name, "Host:0");
	CHECK_INT(p->n_calls, 3);
	/* Calls last input - 2 ms: 38, 28, 48 ms. */
	CHECK_INT(p->max_latency_ps, 48 * PS_MS);
	CHECK_INT(p->min_latency_ps, 28 * PS_MS);
	CHECK_INT(p->avg_latency_ps, 38 * PS_MS);
	CHECK_INT(p->num_slow_calls, 3);
	CHECK_INT(p->calls[0].start_ps, 400 * PS_MS + PS_MS);
	REQUIRE_INT(p->n_iters, 3);
	const struct xp_tfdata_iter *pf = find_iter(p, 1), *map = find_iter(p, 2), *rec = find_iter(p, 3);
	REQUIRE(pf && map && rec);
	CHECK_INT(pf->self_ps, 2 * PS_MS);
	CHECK_INT(map->self_ps, 42 * PS_MS);
	CHECK_INT(map->duration_ps, 46 * PS_MS);
	CHECK_INT(rec->self_ps, 4 * PS_MS);
	CHECK(pf->is_blocking && map->is_blocking && rec->is_blocking);
	CHECK_INT(map->depth, 1);
	CHECK_INT(rec->depth, 2);
	CHECK(&p->iters[0] == pf && &p->iters[1] == map && &p->iters[2] == rec);
	REQUIRE_INT(r.t->n_bottlenecks, 1);
	const struct xp_tfdata_bottleneck_row *b = &r.t->bottlenecks[0];
	CHECK_STR(b->iterator_name, "Map");
	CHECK_STR(b->iterator_long_name, "Iterator::Prefetch::Map");
	CHECK_INT(b->iterator_latency_ps, 42 * PS_MS);
	CHECK_INT(b->max_latency_ps, 48 * PS_MS);
	CHECK_INT(b->type, XP_TFB_PARALLEL_TRANSFORM);
	CHECK_STR(xp_tfdata_bottleneck_key(b->type), "slow_transformation_with_parallel_version");
	CHECK_STR(xp_tfdata_suggestion(b->type),
		  "1. Parallelize this transformation by setting num_parallel_calls=tf.data.experimental.AUTOTUNE. See "
		  "this (https://www.tensorflow.org/guide/data_performance#parallelizing_data_transformation) for more "
		  "details. 2. Consider adding cache after this transformation if your data fits into memory and it is "
		  "appropriate (e.g., there is no randomness in upstream transformations like shuffle). See this "
		  "(https://www.tensorflow.org/guide/data_performance#caching) for more details. 3. Find more resources "
		  "here (https://www.tensorflow.org/guide/data_performance_analysis#transformation_datasets).");
	done(&r);
}

/* ---- device pipelines, summaries, odd graphs ---- */

/* The 8xV100 capture's shape: Prefetch consumes what Iterator::Prefetch::Generator produced. */
static struct xsb *build_device_pipeline(int64_t root_dur)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int cl = xsb_line(b, h, 1, "tf_data_iterator_get_next_as_optional", 0);
	int pl = xsb_line(b, h, 2, "tf_data_iterator_resource", 0);
	xsb_event(b, h, cl, "IteratorGetNextAsOptionalOp::DoCompute", 0, root_dur + 2000);
	ipb_iter(b, h, cl, "Iterator::Prefetch", 1000, root_dur, -88, NO_PARENT);
	ipb_element(b, h, cl, "PrefetchConsume", root_dur, 500, 0);
	ipb_element(b, h, pl, "PrefetchProduce", 2000, root_dur - 3000, 0);
	ipb_iter(b, h, pl, "Iterator::Prefetch::Generator", 2500, root_dur - 4000, 77, -88);
	return b;
}

static void test_device_pipeline(void)
{
	struct built r = build(build_device_pipeline(7077234000));
	REQUIRE_INT(r.t->hosts[0].n_pipelines, 1);
	const struct xp_tfdata_pipeline *p = &r.t->hosts[0].pipelines[0];
	CHECK(p->device);
	CHECK_STR(p->name, "Device:0");
	CHECK_INT(p->id, -88);
	REQUIRE_INT(p->n_iters, 2);
	CHECK_STR(p->iters[1].long_name, "Iterator::Prefetch::Generator");
	CHECK_INT(p->iters[1].self_ps, 7077234000 - 4000);
	CHECK_INT(p->iters[0].self_ps, 4000);
	CHECK_STR(p->calls[0].bottleneck_name, "Generator");
	/* Device pipelines are left out of the bottleneck analysis, as the reference does. */
	CHECK_INT(r.t->n_bottlenecks, 0);
	CHECK(!r.t->is_input_bound);
	CHECK_STR(r.t->summary, "No tf.data activity captured in your profile. If your job uses tf.data, try to capture "
		  "a longer profile.");
	struct xp_result *res = xp_analyze_tf_data(r.c);
	CHECK_STR(res->verdict, "No host tf.data input pipeline to analyze: 1 device input pipeline (slowest call 7.08 ms, "
		  "Device:0 on test)");
	CHECK(res_diag(res, "device_input_pipelines"));
	CHECK_STR(res_str(res, "input_pipelines", 0, "type"), "device");
	xp_result_free(res);
	done(&r);
}

static void test_fast_pipeline_summary(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	ipb_iter(b, h, l, "Iterator::Batch", 0, 50000000, 5, NO_PARENT);    /* exactly 50 us: not slow */
	ipb_iter(b, h, l, "Iterator::Batch::Repeat", 1000, 30000000, 6, 5);
	ipb_iter(b, h, l, "Iterator::Batch::Repeat::Map", 2000, 20000000, 7, 6);
	struct built r = build(b);
	REQUIRE_INT(r.t->n_bottlenecks, 1);
	CHECK(!r.t->is_input_bound);
	CHECK_INT(r.t->hosts[0].pipelines[0].num_slow_calls, 0);
	/* Batch self 20 us, Repeat 10 us, Map 20 us: the first visited of equal self times wins. */
	CHECK_STR(r.t->bottlenecks[0].iterator_long_name, "Iterator::Batch");
	CHECK_INT(r.t->bottlenecks[0].iterator_latency_ps, 20000000);
	CHECK_INT(r.t->bottlenecks[0].type, XP_TFB_SEQUENTIAL_TRANSFORM);
	CHECK_STR(r.t->summary, "Your profile does not have any tf.data input pipeline slower than 50 us. Your job could "
		  "be still input bound if this profile didn't capture all workers.");
	struct xp_result *res = xp_analyze_tf_data(r.c);
	CHECK_STR(res->verdict, "No tf.data input pipeline slower than 50 us: the slowest, Host:0 on test, takes up "
		  "to 50.0 us per element");
	xp_result_free(res);
	done(&r);
}

static void test_nested_bottleneck_long_name(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	ipb_iter(b, h, l, "Iterator::Batch", 0, 200 * PS_US, 5, NO_PARENT);
	ipb_iter(b, h, l, "Iterator::Batch::Repeat", 10 * PS_US, 180 * PS_US, 6, 5);
	ipb_iter(b, h, l, "Iterator::Batch::Repeat::Map", 20 * PS_US, 150 * PS_US, 7, 6);
	struct built r = build(b);
	REQUIRE_INT(r.t->n_bottlenecks, 1);
	CHECK_STR(r.t->bottlenecks[0].iterator_long_name, "Iterator::Batch::Repeat::Map");
	CHECK_STR(r.t->bottlenecks[0].iterator_name, "Map");
	CHECK_INT(r.t->bottlenecks[0].iterator_latency_ps, 150 * PS_US);
	CHECK(r.t->is_input_bound);
	done(&r);
}

static void test_no_tf_data(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	xsb_event(b, h, l, "TraceContext", 0, 100);
	xsb_event(b, h, l, "Iterator::Prefetch", 0, 100);     /* no id stat: not a pipeline */
	struct built r = build(b);
	CHECK_INT(r.t->hosts[0].n_pipelines, 0);
	CHECK_INT(r.t->n_bottlenecks, 0);
	CHECK_STR(r.t->summary, "No tf.data activity captured in your profile. If your job uses tf.data, try to capture "
		  "a longer profile.");
	struct xp_result *res = xp_analyze_tf_data(r.c);
	CHECK_STR(res->verdict, "No tf.data activity captured");
	CHECK(res_diag(res, "no_tf_data"));
	CHECK_STR(res_sum_str(res, "bottleneck_iterator"), "");
	xp_result_free(res);
	done(&r);
}

/* An async (_a) Consume is not nested, so it links nothing; an async producer iterator is not nested either. */
static void test_async_events_not_nested(void)
{
	struct xsb *b = ipb_a18();
	int h = 0;
	int l = xsb_line(b, h, 3, "other", 0);
	int e = ipb_iter(b, h, l, "Iterator::Shuffle", 0, 90 * PS_US, 9, NO_PARENT);
	xsb_stat_int(b, h, e, "_a", 1);
	ipb_iter(b, h, l, "Iterator::Shuffle::Range", 10 * PS_US, 60 * PS_US, 10, 9);
	struct built r = build(b);
	REQUIRE_INT(r.t->hosts[0].n_pipelines, 2);
	/* Both pipelines start at 0 ps: numbered by id, Shuffle (9) before Prefetch (123). */
	const struct xp_tfdata_pipeline *sh = &r.t->hosts[0].pipelines[0];
	CHECK_STR(sh->root_name, "Iterator::Shuffle");
	CHECK_STR(sh->name, "Host:0");
	CHECK_INT(sh->n_iters, 1);     /* Range is not Shuffle's child */
	CHECK_INT(sh->iters[0].self_ps, 90 * PS_US);
	CHECK_STR(r.t->hosts[0].pipelines[1].root_name, "Iterator::Prefetch");
	CHECK_STR(r.t->hosts[0].pipelines[1].name, "Host:1");
	done(&r);
}

/* Two hosts: the slower pipeline is the most input-bound. */
static void test_two_hosts(void)
{
	struct xsb *bs[2] = {ipb_a18(), build_device_pipeline(1000)};
	int h = 0;
	int l = xsb_line(bs[1], h, 9, "x", 0);
	ipb_iter(bs[1], h, l, "Iterator::TFRecord", 0, 300 * PS_US, 1, NO_PARENT);
	xsb_hostname(bs[1], "host2");
	struct xp_capture *c = xsb_read_hosts(bs, 2);
	struct xp_tfdata *t = xp_tfdata_build(c);
	REQUIRE_INT(t->n_bottlenecks, 2);
	CHECK_INT(t->bottlenecks[0].host, 1);
	CHECK_STR(t->bottlenecks[0].iterator_name, "TFRecord");
	CHECK_INT(t->bottlenecks[0].type, XP_TFB_SLOW_SOURCE);
	CHECK_INT(t->bottlenecks[1].host, 0);
	CHECK_INT(t->max_latency_ps, 300 * PS_US);
	/* TFRecord's call starts at 0 ps, the device pipeline's at 1000 ps. */
	CHECK_STR(t->hosts[1].pipelines[0].name, "Host:0");
	CHECK_STR(t->hosts[1].pipelines[1].name, "Device:0");
	xp_tfdata_free(t);
	xp_capture_free(c);
	xsb_free(bs[0]);
	xsb_free(bs[1]);
}

/* Links can make a cycle (Prefetch consumes what Map produced and the other way round): the walk stops at
 * depth 100; with two links each way the paths double at every level, and the walk stops at its bound. */
static struct xsb *build_cycle(int consumes)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l1 = xsb_line(b, h, 1, "a", 0), l2 = xsb_line(b, h, 2, "b", 0);
	ipb_element(b, h, l1, "PrefetchProduce", 0, 100 * PS_US, 8);
	ipb_iter(b, h, l1, "Iterator::Prefetch", 0, 100 * PS_US, 1, 2);
	ipb_element(b, h, l2, "PrefetchProduce", 0, 100 * PS_US, 7);
	ipb_iter(b, h, l2, "Iterator::Prefetch::Map", 0, 100 * PS_US, 2, 1);
	for (int k = 0; k < consumes; k++) {
		ipb_element(b, h, l1, "PrefetchConsume", (10 + k) * PS_US, PS_US / 2, 7);
		ipb_element(b, h, l2, "PrefetchConsume", (20 + k) * PS_US, PS_US / 2, 8);
	}
	return b;
}

static void test_cycle_is_bounded(void)
{
	struct built r = build(build_cycle(1));
	REQUIRE_INT(r.t->hosts[0].n_pipelines, 1);
	const struct xp_tfdata_pipeline *p = &r.t->hosts[0].pipelines[0];
	CHECK_INT(p->n_calls, 1);
	REQUIRE_INT(p->n_iters, 2);
	/* Levels 0..100 are visited: 51 Prefetch and 50 Map visits. */
	CHECK_INT(p->iters[0].num_calls, 51);
	CHECK_INT(p->iters[1].num_calls, 50);
	CHECK_INT(r.t->hosts[0].n_truncated_calls, 0);
	done(&r);
	r = build(build_cycle(2));
	CHECK_INT(r.t->hosts[0].n_truncated_calls, 1);
	CHECK(r.t->hosts[0].pipelines[0].calls[0].truncated);
	struct xp_result *res = xp_analyze_tf_data(r.c);
	CHECK(res_diag(res, "tf_data_walk_truncated"));
	xp_result_free(res);
	done(&r);
}

static const struct test tests[] = {
	TEST(test_a18_pipeline),
	TEST(test_a18_slowest_call),
	TEST(test_a18_bottleneck_analysis),
	TEST(test_a18_result),
	TEST(test_slow_map),
	TEST(test_device_pipeline),
	TEST(test_fast_pipeline_summary),
	TEST(test_nested_bottleneck_long_name),
	TEST(test_no_tf_data),
	TEST(test_async_events_not_nested),
	TEST(test_two_hosts),
	TEST(test_cycle_is_bounded),
};

int main(void)
{
	return RUN_TESTS("test_tf_data", tests);
}
