/* ipbuild.h - captures for the input-pipeline and tf.data tests, built in code with exact times (header-only). */
#ifndef XPSTAT_TESTS_IPBUILD_H
#define XPSTAT_TESTS_IPBUILD_H

#include "xsbuild.h"

#define PS_US 1000000LL
#define PS_MS 1000000000LL
#define NO_PARENT INT64_MIN

/* An Iterator:: event with its id and (unless NO_PARENT) parent_id. */
static inline int ipb_iter(struct xsb *b, int h, int l, const char *name, int64_t at, int64_t dur, int64_t id,
			   int64_t parent)
{
	int e = xsb_event(b, h, l, name, at, dur);
	xsb_stat_int(b, h, e, "id", id);
	if (parent != NO_PARENT)
		xsb_stat_int(b, h, e, "parent_id", parent);
	return e;
}

/* A *Produce / *Consume event with its element_id. */
static inline int ipb_element(struct xsb *b, int h, int l, const char *name, int64_t at, int64_t dur, int64_t el)
{
	int e = xsb_event(b, h, l, name, at, dur);
	xsb_stat_int(b, h, e, "element_id", el);
	return e;
}

/* A18: xplane_to_tf_data_stats_test HostInputPipeline (times in ps). */
static inline struct xsb *ipb_a18(void)
{
	struct xsb *b = xsb_new();
	xsb_hostname(b, "host1");
	int h = xsb_plane(b, "/host:CPU", 0);
	int cl = xsb_line(b, h, 1, "consumer", 0), pl = xsb_line(b, h, 2, "producer", 0);
	ipb_iter(b, h, cl, "Iterator::Prefetch", 0, 100000000, 123, NO_PARENT);
	ipb_element(b, h, cl, "PrefetchConsume", 80000000, 20000000, 100);
	ipb_iter(b, h, cl, "Iterator::Prefetch", 200000000, 20000000, 123, NO_PARENT);
	ipb_element(b, h, cl, "PrefetchConsume", 210000000, 10000000, 200);
	ipb_element(b, h, pl, "PrefetchProduce", 0, 80000000, 100);
	ipb_iter(b, h, pl, "Iterator::Prefetch::Range", 0, 80000000, 456, 123);
	ipb_element(b, h, pl, "PrefetchProduce", 100000000, 80000000, 200);
	ipb_iter(b, h, pl, "Iterator::Prefetch::Range", 100000000, 80000000, 456, 123);
	return b;
}

/*
 * A CPU-only training run: N steps of step_ms[s] ms, step s marked by TraceContext
 * (step_num s) at s * 200 ms on line "main". Within the step, the first
 * input_ms[s] ms are IteratorGetNextOp::DoCompute (waiting for input) and
 * the rest is `model/dense/MatMul:MatMul` (host compute).
 *
 * With tfdata, the tf.data pipeline Prefetch -> Map -> TFRecord feeds each
 * step: Iterator::Prefetch (id 1) runs inside the wait from +1 ms to
 * input - 1 ms with its PrefetchConsume (element s) at the end; on line
 * "tf_data_iterator_resource" PrefetchProduce (element s) holds
 * Iterator::Prefetch::Map (id 2, parent 1) from +1 ms to input - 3 ms, which
 * holds Iterator::Prefetch::Map::TFRecord (id 3, parent 2) from +2 ms for 4 ms.
 * So in step s the Prefetch call lasts input - 2 ms, Map's self time is
 * input - 8 ms and TFRecord's 4 ms: Map is the bottleneck.
 */
static inline struct xsb *ipb_cpu_steps(const int64_t *step_ms, const int64_t *input_ms, int n, bool tfdata)
{
	struct xsb *b = xsb_new();
	xsb_hostname(b, "worker");
	int h = xsb_plane(b, "/host:CPU", 0);
	int ml = xsb_line(b, h, 1, "main", 0), pl = xsb_line(b, h, 2, "tf_data_iterator_resource", 0);
	for (int s = 0; s < n; s++) {
		int64_t t = s * 200 * PS_MS, in = input_ms[s] * PS_MS, len = (step_ms ? step_ms[s] : 100) * PS_MS;
		int e = xsb_event(b, h, ml, "TraceContext", t, len);
		xsb_stat_int(b, h, e, "step_num", s);
		if (in > 0)
			xsb_event(b, h, ml, "IteratorGetNextOp::DoCompute", t, in);
		xsb_event(b, h, ml, "model/dense/MatMul:MatMul", t + in, len - in);
		if (!tfdata || in < 10 * PS_MS)
			continue;
		ipb_iter(b, h, ml, "Iterator::Prefetch", t + PS_MS, in - 2 * PS_MS, 1, NO_PARENT);
		ipb_element(b, h, ml, "PrefetchConsume", t + in - 2 * PS_MS, PS_MS / 2, s);
		ipb_element(b, h, pl, "PrefetchProduce", t + PS_MS, in - 4 * PS_MS, s);
		ipb_iter(b, h, pl, "Iterator::Prefetch::Map", t + PS_MS, in - 4 * PS_MS, 2, 1);
		ipb_iter(b, h, pl, "Iterator::Prefetch::Map::TFRecord", t + 2 * PS_MS, 4 * PS_MS, 3, 2);
	}
	return b;
}

/* The same with 100 ms steps. */
static inline struct xsb *ipb_cpu_run(const int64_t *input_ms, int n, bool tfdata)
{
	return ipb_cpu_steps(NULL, input_ms, n, tfdata);
}

#endif
