/* test_memory.c - the memory profile on the spec's worked examples (A10, D4) and hand-built captures: fragmentation, breakdown, time order, odd input. */
#include <stdlib.h>

#include "analyzers/memory/memory.h"
#include "analyzers/memory/profile.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "check.h"
#include "xsbuild.h"

/* ---- running the analysis and reading its result ---- */

struct run {
	struct xp_capture *c;
	struct xp_prep *p;
	struct xp_result *r;
	struct xp_err err;      /* why r is NULL (an unknown --allocator) */
};

static struct run run_caps(struct xp_capture *c, const struct xp_memory_opts *o)
{
	struct run x = {c, NULL, NULL, {0}};
	struct xp_prep_opts po = {0};
	struct xp_err err = {0};
	x.p = xp_prepare(c, &po, &err);
	if (!x.p) {
		fprintf(stderr, "xp_prepare failed: %s\n", err.msg);
		abort();
	}
	x.r = xp_analyze_memory(x.p, o, &x.err);
	return x;
}

static struct run run_one(struct xsb *b, const struct xp_memory_opts *o)
{
	return run_caps(xsb_read(b), o);
}

static void run_done(struct run *x)
{
	xp_result_free(x->r);
	xp_prep_free(x->p);
	xp_capture_free(x->c);
}

static const struct xp_table *table(const struct run *x, const char *name)
{
	return xp_result_table(x->r, name);
}

static size_t col(const struct xp_table *t, const char *key)
{
	for (size_t i = 0; i < t->n_cols; i++)
		if (!strcmp(t->cols[i].key, key))
			return i;
	fprintf(stderr, "no column %s in table %s\n", key, t->name);
	abort();
}

/* Integer-like cell (int, bytes, duration, id); INT64_MIN for an empty cell. */
static int64_t ival(const struct xp_table *t, size_t row, const char *key)
{
	const struct xp_cell *c = xp_table_cell(t, row, col(t, key));
	return c->type == XP_T_NULL ? INT64_MIN : c->v.i;
}

static double dval(const struct xp_table *t, size_t row, const char *key)
{
	const struct xp_cell *c = xp_table_cell(t, row, col(t, key));
	return c->type == XP_T_NULL ? NAN : c->v.d;
}

static const char *sval(const struct xp_table *t, size_t row, const char *key)
{
	const struct xp_cell *c = xp_table_cell(t, row, col(t, key));
	return c->type == XP_T_STR ? c->v.s : "(null)";
}

static int64_t summary_int(const struct run *x, const char *key)
{
	for (size_t i = 0; i < x->r->n_summary; i++)
		if (!strcmp(x->r->summary[i].key, key))
			return x->r->summary[i].value.v.i;
	fprintf(stderr, "no summary key %s\n", key);
	abort();
}

static bool has_diag(const struct run *x, const char *code)
{
	for (size_t i = 0; i < x->r->n_diags; i++)
		if (!strcmp(x->r->diags[i].code, code))
			return true;
	return false;
}

/* ---- building memory events ---- */

struct mstats {
	const char *allocator;  /* allocator_name (NULL: none) */
	int64_t reserved, allocated, available, peak, requested, alloc_bytes;
	uint64_t addr;
	double frag;
	int64_t dtype;          /* < 0: no data_type stat */
	const char *tf_op, *region, *shape;
	int64_t group;          /* < 0: no group_id stat */
};

static int mem_event(struct xsb *b, int plane, int line, bool alloc, int64_t offset_ps, const struct mstats *s)
{
	int e = xsb_event(b, plane, line, alloc ? "MemoryAllocation" : "MemoryDeallocation", offset_ps, 0);
	if (s->allocator)
		xsb_stat_ref(b, plane, e, "allocator_name", s->allocator);
	xsb_stat_int(b, plane, e, "bytes_reserved", s->reserved);
	xsb_stat_int(b, plane, e, "bytes_allocated", s->allocated);
	xsb_stat_int(b, plane, e, "bytes_available", s->available);
	xsb_stat_double(b, plane, e, "fragmentation", s->frag);
	xsb_stat_int(b, plane, e, "peak_bytes_in_use", s->peak);
	xsb_stat_int(b, plane, e, "requested_bytes", s->requested);
	xsb_stat_int(b, plane, e, "allocation_bytes", s->alloc_bytes);
	xsb_stat_uint(b, plane, e, "addr", s->addr);
	if (s->dtype >= 0)
		xsb_stat_int(b, plane, e, "data_type", s->dtype);
	if (s->tf_op)
		xsb_stat_str(b, plane, e, "tf_op", s->tf_op);
	if (s->region)
		xsb_stat_str(b, plane, e, "region_type", s->region);
	if (s->shape)
		xsb_stat_str(b, plane, e, "shape", s->shape);
	if (s->group >= 0)
		xsb_stat_int(b, plane, e, "group_id", s->group);
	return e;
}

/* A10: xplane_to_memory_profile_test OneAllocatorMultiActivitiesTest. */
static struct xsb *build_a10(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "tf_executor", 0);
	mem_event(b, h, l, true, 40000, &(struct mstats){"GPU_0_bfc", 2000, 3000, 5000, 8500, 200, 256, 222333, 0, 1,
							   "foo/bar", "output", "[3, 3, 512, 512]", -1});
	mem_event(b, h, l, false, 50000, &(struct mstats){"GPU_0_bfc", 2000, 2744, 5256, 8500, 200, 256, 222333, 0, 0,
							    NULL, NULL, NULL, -1});
	mem_event(b, h, l, true, 70000, &(struct mstats){"GPU_0_bfc", 2000, 5000, 3000, 9500, 300, 300, 345678, 0, 9,
							   "mul_grad/Sum", "temp", "[1, 2]", -1});
	return b;
}

static const struct xp_memory_opts all_tables = {NULL, true, true, 0};

static void test_a10_summary(void)
{
	struct xsb *b = build_a10();
	struct run x = run_one(b, &all_tables);
	const struct xp_table *t = table(&x, "allocators");
	REQUIRE(t && t->n_rows == 1);
	CHECK_STR(sval(t, 0, "allocator"), "GPU_0_bfc");
	CHECK_STR(sval(t, 0, "allocator_name"), "GPU_0_bfc");
	CHECK_INT(ival(t, 0, "peak_usage_bytes"), 7000);
	CHECK_INT(ival(t, 0, "peak_time_ms"), 70000); /* raw ps */
	CHECK_INT(ival(t, 0, "memory_capacity_bytes"), 10000);
	CHECK_INT(ival(t, 0, "peak_heap_lifetime_bytes"), 9500);
	CHECK_INT(ival(t, 0, "stack_bytes"), 2000);
	CHECK_INT(ival(t, 0, "heap_bytes"), 5000);
	CHECK_INT(ival(t, 0, "free_bytes"), 3000);
	CHECK_DBL(dval(t, 0, "fragmentation_pct"), 0, 0);
	CHECK_DBL(dval(t, 0, "peak_usage_pct"), 70.0, 1e-12);
	CHECK_INT(ival(t, 0, "peak_step"), INT64_MIN);   /* no groups: no step is known (empty, not 0) */
	CHECK_INT(ival(t, 0, "allocations"), 2);
	CHECK_INT(ival(t, 0, "deallocations"), 1);
	CHECK_INT(ival(t, 0, "memory_events"), 3);
	CHECK_INT(ival(t, 0, "unmatched_deallocations"), 0);
	CHECK_INT(ival(t, 0, "unfreed_allocations"), 1);
	CHECK_INT(ival(t, 0, "events_missing_stats"), 0);
	CHECK_INT(ival(t, 0, "first_event_ms"), 40000);
	CHECK_INT(ival(t, 0, "last_event_ms"), 70000);
	CHECK_INT(summary_int(&x, "allocators"), 1);
	CHECK_INT(summary_int(&x, "allocations"), 2);
	CHECK_INT(summary_int(&x, "deallocations"), 1);
	CHECK(x.r->verdict && strstr(x.r->verdict, "GPU_0_bfc"));
	run_done(&x);
	xsb_free(b);
}

static void test_a10_breakdown(void)
{
	struct xsb *b = build_a10();
	struct run x = run_one(b, &all_tables);
	const struct xp_table *t = table(&x, "breakdown");
	REQUIRE(t);
	REQUIRE_INT(t->n_rows, 3);
	/* unmapped = 5000 - 256 + 256 - 300 = 4700 */
	CHECK_STR(sval(t, 0, "op_name"), "unused preallocated device memory");
	CHECK_INT(ival(t, 0, "allocation_bytes"), 4700);
	CHECK_INT(ival(t, 0, "requested_bytes"), 4700);
	CHECK_STR(sval(t, 0, "region_type"), "persist/dynamic");
	CHECK_STR(sval(t, 0, "data_type"), "INVALID");
	CHECK_STR(sval(t, 0, "shape"), "unknown");
	CHECK_STR(sval(t, 1, "op_name"), "stack");
	CHECK_INT(ival(t, 1, "allocation_bytes"), 2000);
	CHECK_STR(sval(t, 1, "region_type"), "stack");
	CHECK_STR(sval(t, 2, "op_name"), "mul_grad/Sum");
	CHECK_INT(ival(t, 2, "allocation_bytes"), 300);
	CHECK_INT(ival(t, 2, "requested_bytes"), 300);
	CHECK_INT(ival(t, 2, "occurrences"), 1);
	CHECK_STR(sval(t, 2, "region_type"), "temp");
	CHECK_STR(sval(t, 2, "data_type"), "int64");
	CHECK_STR(sval(t, 2, "shape"), "[1, 2]");
	for (size_t r = 0; r < 3; r++)
		CHECK_INT(ival(t, r, "step"), INT64_MIN);   /* no groups: no step known */
	CHECK_INT(x.r->primary, 2); /* --timeline given too: CSV writes the timeline */
	run_done(&x);
	xsb_free(b);
}

static void test_a10_timeline(void)
{
	struct xsb *b = build_a10();
	struct run x = run_one(b, &all_tables);
	const struct xp_table *t = table(&x, "timeline");
	REQUIRE(t);
	REQUIRE_INT(t->n_rows, 3);
	static const int64_t time[] = {40000, 50000, 70000}, use[] = {5000, 4744, 7000}, heap[] = {3000, 2744, 5000};
	for (size_t r = 0; r < 3; r++) {
		CHECK_INT(ival(t, r, "time_ms"), time[r]);
		CHECK_INT(ival(t, r, "in_use_bytes"), use[r]);
		CHECK_INT(ival(t, r, "heap_bytes"), heap[r]);
		CHECK_INT(ival(t, r, "stack_bytes"), 2000);
		CHECK_INT(ival(t, r, "event_index"), (int64_t)r);
		CHECK_INT(ival(t, r, "step"), INT64_MIN);   /* no groups: no step known */
	}
	CHECK_STR(sval(t, 0, "activity"), "allocation");
	CHECK_STR(sval(t, 1, "activity"), "deallocation");
	/* The deallocation takes its allocation's op, region, type and shape (spec §5.3 step 4). */
	CHECK_STR(sval(t, 1, "op_name"), "foo/bar");
	CHECK_STR(sval(t, 1, "region_type"), "output");
	CHECK_STR(sval(t, 1, "data_type"), "float");
	CHECK_STR(sval(t, 1, "shape"), "[3, 3, 512, 512]");
	CHECK_INT(ival(t, 1, "free_bytes"), 5256);
	CHECK_INT(ival(t, 1, "allocation_bytes"), 256);
	CHECK_INT(ival(t, 1, "address"), 222333);
	CHECK_STR(sval(t, 2, "data_type"), "int64");
	run_done(&x);
	xsb_free(b);
}

/* Without --breakdown/--timeline there is only the allocators table. */
static void test_tables_on_request(void)
{
	struct xsb *b = build_a10();
	struct run x = run_one(b, NULL);
	CHECK_INT(x.r->n_tables, 1);
	CHECK(table(&x, "allocators") != NULL);
	CHECK(table(&x, "breakdown") == NULL);
	CHECK_INT(x.r->primary, 0);
	run_done(&x);
	struct xp_memory_opts o = {NULL, true, false, 0};
	x = run_one(b, &o);
	CHECK_INT(x.r->n_tables, 2);
	CHECK_INT(x.r->primary, 1);
	run_done(&x);
	xsb_free(b);
}

/* ---- D4: timeline sampling ---- */

static void test_d4_windows(void)
{
	uint64_t first, len;
	xp_memory_window(2500, 1000, 0, &first, &len);
	CHECK_INT(first, 0);
	CHECK_INT(len, 2);
	xp_memory_window(2500, 1000, 499, &first, &len);
	CHECK_INT(first, 998);
	CHECK_INT(len, 2);
	xp_memory_window(2500, 1000, 500, &first, &len);
	CHECK_INT(first, 1000);
	CHECK_INT(len, 3);
	xp_memory_window(2500, 1000, 999, &first, &len);
	CHECK_INT(first, 2497);
	CHECK_INT(len, 3);
	/* Windows tile [0, n) exactly. */
	uint64_t next = 0;
	for (uint64_t w = 0; w < 1000; w++) {
		xp_memory_window(2500, 1000, w, &first, &len);
		CHECK_INT(first, next);
		next = first + len;
	}
	CHECK_INT(next, 2500);
	/* n <= points: every snapshot is its own window. */
	xp_memory_window(7, 1000, 3, &first, &len);
	CHECK_INT(first, 3);
	CHECK_INT(len, 1);
}

/* Heap of event i: distinct values with ties inside some windows. */
static int64_t d4_heap(int i)
{
	return 1000 + (int64_t)((i * 7919) % 1999) / 2 * 2;
}

static void test_d4_sampling(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "tf_executor", 0);
	for (int i = 0; i < 2500; i++)
		mem_event(b, h, l, true, 1000 * (int64_t)(i + 1),
			  &(struct mstats){"cpu", 0, d4_heap(i), 0, 0, 8, 8, (uint64_t)(1 + i), 0, 1, "op", "output", "[1]",
					   -1});
	struct xp_memory_opts o = {NULL, false, true, 1000};
	struct run x = run_one(b, &o);
	const struct xp_table *t = table(&x, "timeline");
	REQUIRE(t);
	REQUIRE_INT(t->n_rows, 1000);
	/* 500 windows of 2 from 0, then 500 windows of 3 from 1000; the first largest of each. */
	int bad = 0;
	for (int w = 0; w < 1000; w++) {
		int start = w < 500 ? 2 * w : 1000 + 3 * (w - 500), width = w < 500 ? 2 : 3, best = start;
		for (int i = start; i < start + width; i++)
			if (d4_heap(i) > d4_heap(best))
				best = i;
		if (ival(t, (size_t)w, "event_index") != best || ival(t, (size_t)w, "heap_bytes") != d4_heap(best))
			bad++;
	}
	CHECK_INT(bad, 0);
	/* Counts are over all events, not the sampled ones (spec §7 item 9). */
	CHECK_INT(ival(table(&x, "allocators"), 0, "allocations"), 2500);
	run_done(&x);
	/* Without a point limit, every event. */
	o.points = 0;
	x = run_one(b, &o);
	CHECK_INT(table(&x, "timeline")->n_rows, 2500);
	run_done(&x);
	xsb_free(b);
}

/* ---- absolute time (DESIGN §8) ---- */

/* Line "a" starts at 0, line "b" 10 us later. By offset, b's event (1 us) comes
 * before a's (5 us); by absolute time it comes after (11 us). */
static void test_absolute_time(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int la = xsb_line(b, h, 1, "a", 0), lb = xsb_line(b, h, 2, "b", 10000);
	mem_event(b, h, lb, true, 1000000, &(struct mstats){"GPU_0_bfc", 0, 300, 700, 400, 100, 100, 2, 0.25, 1, "late",
							     "output", "[2]", -1});
	mem_event(b, h, la, true, 5000000, &(struct mstats){"GPU_0_bfc", 0, 200, 800, 300, 200, 200, 1, 0.5, 1, "early",
							     "output", "[1]", -1});
	struct run x = run_one(b, &all_tables);
	const struct xp_table *t = table(&x, "timeline");
	REQUIRE(t && t->n_rows == 2);
	CHECK_INT(ival(t, 0, "time_ms"), 5000000);
	CHECK_STR(sval(t, 0, "op_name"), "early");
	CHECK_INT(ival(t, 1, "time_ms"), 11000000);
	CHECK_STR(sval(t, 1, "op_name"), "late");
	const struct xp_table *a = table(&x, "allocators");
	CHECK_INT(ival(a, 0, "peak_usage_bytes"), 300);
	CHECK_INT(ival(a, 0, "peak_time_ms"), 11000000);
	/* The lifetime peak is the last event's, in time order. */
	CHECK_INT(ival(a, 0, "peak_heap_lifetime_bytes"), 400);
	CHECK_DBL(dval(a, 0, "fragmentation_pct"), 25.0, 1e-12);
	CHECK_INT(ival(a, 0, "first_event_ms"), 5000000);
	run_done(&x);
	xsb_free(b);
}

/* ---- fragmentation and breakdown on a hand-built capture ---- */

/* Allocator GPU_1_bfc, steps from group_id (a pre-grouped capture):
 *   step 3: alloc A (addr 10, 1024 B, "old/op") - not in the peak step
 *   step 4: alloc B (20, 4096, "conv", req 4000), alloc C (30, 4096, "conv", req 4000),
 *           alloc D (40, 4096, "conv", req 3000), alloc E (50, 512, "bias"), free E,
 *           free F (addr 99, 256 B: allocated before the capture), alloc G (60, 2048, "relu")
 *           <- peak: stack 1000 + heap 20000, free 9000, fragmentation 0.125
 *   step 4: free B (after the peak)
 */
static struct xsb *build_breakdown(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "tf_Compute", 0);
	const char *g = "GPU_1_bfc";
	mem_event(b, h, l, true, 100, &(struct mstats){g, 1000, 6000, 24000, 6000, 1024, 1024, 10, 0.1, 1, "old/op",
							"persist", "[256]", 3});
	mem_event(b, h, l, true, 200, &(struct mstats){g, 1000, 10096, 19904, 10096, 4000, 4096, 20, 0.1, 19, "conv",
							"output", "[8,8]", 4});
	mem_event(b, h, l, true, 300, &(struct mstats){g, 1000, 14192, 15808, 14192, 4000, 4096, 30, 0.1, 19, "conv",
							"output", "[8,8]", 4});
	mem_event(b, h, l, true, 400, &(struct mstats){g, 1000, 18288, 11712, 18288, 3000, 4096, 40, 0.1, 19, "conv",
							"output", "[8,8]", 4});
	mem_event(b, h, l, true, 500, &(struct mstats){g, 1000, 18800, 11200, 18800, 500, 512, 50, 0.1, 1, "bias",
							"temp", "[128]", 4});
	mem_event(b, h, l, false, 600, &(struct mstats){g, 1000, 18288, 11712, 18800, 500, 512, 50, 0.1, -1, NULL, NULL,
							 NULL, 4});
	mem_event(b, h, l, false, 700, &(struct mstats){g, 1000, 18032, 11968, 18800, 256, 256, 99, 0.1, -1, NULL, NULL,
							 NULL, 4});
	mem_event(b, h, l, true, 800, &(struct mstats){g, 1000, 20000, 9000, 20000, 1968, 2048, 60, 0.125, 1, "relu",
							"output", "[16]", 4});
	mem_event(b, h, l, false, 900, &(struct mstats){g, 1000, 15904, 14096, 20000, 4000, 4096, 20, 0.2, -1, NULL,
							 NULL, NULL, 4});
	return b;
}

static void test_breakdown_rows(void)
{
	struct xsb *b = build_breakdown();
	struct run x = run_one(b, &all_tables);
	const struct xp_table *a = table(&x, "allocators");
	REQUIRE(a && a->n_rows == 1);
	CHECK_INT(ival(a, 0, "peak_usage_bytes"), 21000);
	CHECK_INT(ival(a, 0, "peak_time_ms"), 800);
	CHECK_INT(ival(a, 0, "peak_step"), 4);
	CHECK_INT(ival(a, 0, "memory_capacity_bytes"), 30000);
	CHECK_DBL(dval(a, 0, "fragmentation_pct"), 12.5, 1e-12);
	CHECK_INT(ival(a, 0, "unmatched_deallocations"), 1);
	CHECK_INT(ival(a, 0, "unfreed_allocations"), 4); /* A, C, D, G */
	CHECK_INT(ival(a, 0, "peak_heap_lifetime_bytes"), 20000);
	const struct xp_table *t = table(&x, "breakdown");
	REQUIRE(t);
	/*
	 * Peak step 4 up to t=800: active B, C, D, G; E freed; F freed without allocation.
	 * unmapped = 20000 - 4096*3 - 512 + 512 + 256 - 2048 = 5920; minus F's 256 = 5664.
	 * Rows: unused 5664, conv 4096/4000 x2 (B, C merged), conv 4096/3000, relu 2048, stack 1000.
	 */
	REQUIRE_INT(t->n_rows, 5);
	CHECK_STR(sval(t, 0, "op_name"), "unused preallocated device memory");
	CHECK_INT(ival(t, 0, "allocation_bytes"), 5664);
	CHECK_STR(sval(t, 1, "op_name"), "conv");
	CHECK_INT(ival(t, 1, "requested_bytes"), 4000);
	CHECK_INT(ival(t, 1, "occurrences"), 2);
	CHECK_STR(sval(t, 1, "data_type"), "half");
	CHECK_STR(sval(t, 1, "shape"), "[8,8]");
	CHECK_STR(sval(t, 2, "op_name"), "conv");
	CHECK_INT(ival(t, 2, "requested_bytes"), 3000);
	CHECK_INT(ival(t, 2, "occurrences"), 1);
	CHECK_STR(sval(t, 3, "op_name"), "relu");
	CHECK_INT(ival(t, 3, "allocation_bytes"), 2048);
	CHECK_INT(ival(t, 3, "requested_bytes"), 1968);
	CHECK_STR(sval(t, 4, "op_name"), "stack");
	CHECK_INT(ival(t, 4, "allocation_bytes"), 1000);
	for (size_t r = 0; r < 5; r++)
		CHECK_INT(ival(t, r, "step"), 4);
	CHECK(has_diag(&x, "unmatched_deallocations"));
	CHECK(has_diag(&x, "unfreed_allocations"));
	CHECK(!has_diag(&x, "memory_stats_missing"));
	/* The last deallocation takes B's metadata; the unmatched one keeps its own (none). */
	const struct xp_table *tl = table(&x, "timeline");
	REQUIRE(tl && tl->n_rows == 9);
	CHECK_STR(sval(tl, 8, "op_name"), "conv");
	CHECK_STR(sval(tl, 5, "op_name"), "bias");
	CHECK_STR(sval(tl, 6, "op_name"), "");
	CHECK_STR(sval(tl, 6, "data_type"), "INVALID");
	CHECK_INT(ival(tl, 0, "step"), 3);
	run_done(&x);
	xsb_free(b);
}

/* ---- allocator ids, filters, several hosts ---- */

static void test_allocator_ids(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "t", 0);
	struct mstats s = {"TPU_0", 0, 100, 900, 100, 100, 100, 1, 0, 1, "x", "output", "[1]", -1};
	int e = mem_event(b, h, l, true, 10, &s);
	xsb_stat_int(b, h, e, "index_on_host", 2);
	s.allocator = "cpu_bfc";
	mem_event(b, h, l, true, 20, &s);
	s.allocator = NULL;
	mem_event(b, h, l, true, 30, &s);
	struct run x = run_one(b, NULL);
	const struct xp_table *t = table(&x, "allocators");
	REQUIRE(t && t->n_rows == 3);
	/* Sorted by id: "" (no allocator stat), "2" (index_on_host wins over the name), "cpu_bfc". */
	CHECK_STR(sval(t, 0, "allocator"), "");
	CHECK_STR(sval(t, 1, "allocator"), "2");
	CHECK_STR(sval(t, 1, "allocator_name"), "TPU_0");
	CHECK_STR(sval(t, 2, "allocator"), "cpu_bfc");
	CHECK_INT(ival(t, 0, "events_missing_stats"), 1);
	CHECK(has_diag(&x, "memory_stats_missing"));
	run_done(&x);
	/* --allocator matches the id or the name. */
	struct xp_memory_opts o = {"TPU_0", false, false, 0};
	x = run_one(b, &o);
	t = table(&x, "allocators");
	REQUIRE(t && t->n_rows == 1);
	CHECK_STR(sval(t, 0, "allocator"), "2");
	CHECK_INT(summary_int(&x, "allocators"), 1);
	CHECK_INT(summary_int(&x, "memory_events"), 1);
	run_done(&x);
	/* An unknown one is a usage error that lists those there are (the events without a name: id ""). */
	o.allocator = "nosuch";
	x = run_one(b, &o);
	CHECK(x.r == NULL);
	CHECK_INT(x.err.status, XP_EXIT_USAGE);
	CHECK_STR(x.err.msg, "no allocator 'nosuch'; allocators: , 2 (TPU_0), cpu_bfc");
	run_done(&x);
	xsb_free(b);
}

static void test_hosts(void)
{
	struct xsb *bs[2];
	for (int k = 0; k < 2; k++) {
		bs[k] = xsb_new();
		xsb_hostname(bs[k], k ? "worker-1" : "worker-0");
		int h = xsb_plane(bs[k], "/host:CPU", 0);
		int l = xsb_line(bs[k], h, 0, "t", 0);
		for (int i = 0; i <= k; i++)
			mem_event(bs[k], h, l, true, 10 * (i + 1),
				  &(struct mstats){"GPU_0_bfc", 0, 100 * (k + 1) * (i + 1), 0, 0, 8, 8, (uint64_t)i + 1, 0, 1,
						   "x", "output", "[1]", -1});
	}
	struct run x = run_caps(xsb_read_hosts(bs, 2), NULL);
	const struct xp_table *t = table(&x, "allocators");
	REQUIRE(t && t->n_rows == 2);
	CHECK_STR(sval(t, 0, "host"), "worker-0");
	CHECK_STR(sval(t, 1, "host"), "worker-1");
	CHECK_INT(ival(t, 0, "allocations"), 1);
	CHECK_INT(ival(t, 1, "allocations"), 2);
	CHECK_INT(ival(t, 1, "peak_usage_bytes"), 400);
	CHECK_INT(summary_int(&x, "hosts_with_memory_events"), 2);
	CHECK(strstr(x.r->verdict, "worker-1") != NULL);
	run_done(&x);
	xsb_free(bs[0]);
	xsb_free(bs[1]);
}

/* ---- odd input ---- */

static void test_no_events(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "t", 0);
	xsb_event(b, h, l, "SomethingElse", 0, 10);
	/* Memory events on a device plane are not the host allocator's. */
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int gl = xsb_line(b, g, 0, "Stream #0", 0);
	xsb_event(b, g, gl, "MemoryAllocation", 0, 0);
	struct run x = run_one(b, &all_tables);
	CHECK_INT(summary_int(&x, "allocators"), 0);
	CHECK_INT(summary_int(&x, "memory_events"), 0);
	CHECK(has_diag(&x, "no_memory_events"));
	CHECK_INT(table(&x, "breakdown")->n_rows, 0);
	CHECK_INT(table(&x, "timeline")->n_rows, 0);
	run_done(&x);
	xsb_free(b);
}

/* Bare events (no stats at all), strings where numbers belong, hostile values: counted, no crash. */
static void test_hostile_stats(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "t", 0);
	xsb_event(b, h, l, "MemoryDeallocation", 5, 0);
	int e = xsb_event(b, h, l, "MemoryAllocation", 10, 0);
	xsb_stat_str(b, h, e, "bytes_allocated", "lots");
	xsb_stat_str(b, h, e, "allocator_name", "a");
	e = mem_event(b, h, l, true, 20, &(struct mstats){"a", INT64_MAX, INT64_MAX, INT64_MAX, -5, -1, -1, 0, NAN,
							   150, "x", "output", "[1]", -1});
	mem_event(b, h, l, false, 30, &(struct mstats){"a", 0, INT64_MIN, 0, 0, 0, INT64_MIN, 0, 0, -1, NULL, NULL,
							NULL, -1});
	struct run x = run_one(b, &all_tables);
	const struct xp_table *t = table(&x, "allocators");
	REQUIRE(t && t->n_rows == 2);
	CHECK_STR(sval(t, 0, "allocator"), "");
	CHECK_INT(ival(t, 0, "deallocations"), 1);
	CHECK_INT(ival(t, 0, "events_missing_stats"), 1);
	CHECK_INT(ival(t, 1, "events_missing_stats"), 1);
	CHECK_INT(ival(t, 1, "peak_usage_bytes"), INT64_MAX); /* saturated, not wrapped */
	CHECK_STR(sval(table(&x, "timeline"), 2, "data_type"), "unknown dtype enum (50)_ref");
	run_done(&x);
	xsb_free(b);
}

/* fragmentation_pct is the reported fraction x 100 as a decimal: 0.072 gives 7.2 exactly. */
static void test_fragmentation_pct(void)
{
	static const double frag[] = {0.072, 0.1, 1e-7, 0.123456789, 0.5};
	static const double want[] = {7.2, 10, 1e-5, 12.3456789, 50};
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "t", 0);
	for (int i = 0; i < 5; i++)
		mem_event(b, h, l, true, 10 * (i + 1), &(struct mstats){"a", 0, 100 + i, 10, 0, 4, 4, (uint64_t)i + 1,
									 frag[i], 1, "x", "output", "[1]", -1});
	struct run x = run_one(b, &all_tables);
	const struct xp_table *t = table(&x, "timeline");
	REQUIRE(t && t->n_rows == 5);
	for (size_t r = 0; r < 5; r++)
		CHECK_DBL(dval(t, r, "fragmentation_pct"), want[r], 0);
	CHECK_DBL(dval(table(&x, "allocators"), 0, "fragmentation_pct"), 50, 0);
	run_done(&x);
	xsb_free(b);
}

/* A deallocation without allocation_bytes (PJRT's TPU allocator) frees its allocation's size. */
static void test_dealloc_without_size(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "t", 0);
	mem_event(b, h, l, true, 10, &(struct mstats){"TPU", 0, 1000, 9000, 1000, 900, 1000, 7, 0, 1, "big", "output",
						       "[250]", -1});
	mem_event(b, h, l, true, 20, &(struct mstats){"TPU", 0, 1100, 8900, 1100, 100, 100, 8, 0, 1, "small", "output",
						       "[25]", -1});
	int e = xsb_event(b, h, l, "MemoryDeallocation", 30, 0);
	xsb_stat_ref(b, h, e, "allocator_name", "TPU");
	xsb_stat_int(b, h, e, "bytes_allocated", 100);
	xsb_stat_int(b, h, e, "bytes_reserved", 0);
	xsb_stat_int(b, h, e, "bytes_available", 9900);
	xsb_stat_uint(b, h, e, "addr", 7);
	mem_event(b, h, l, true, 40, &(struct mstats){"TPU", 0, 1300, 8700, 1300, 1200, 1200, 9, 0, 1, "peak",
						       "output", "[300]", -1});
	struct run x = run_one(b, &all_tables);
	const struct xp_table *a = table(&x, "allocators");
	CHECK_INT(ival(a, 0, "events_missing_stats"), 0);
	CHECK_INT(ival(a, 0, "peak_usage_bytes"), 1300);
	const struct xp_table *tl = table(&x, "timeline");
	REQUIRE(tl && tl->n_rows == 4);
	CHECK_INT(ival(tl, 2, "allocation_bytes"), 1000);
	CHECK_INT(ival(tl, 2, "requested_bytes"), 900);
	CHECK_STR(sval(tl, 2, "op_name"), "big");
	/* unmapped = 1300 - 1000 - 100 + 1000 - 1200 = 0: no "unused preallocated" row. */
	const struct xp_table *t = table(&x, "breakdown");
	REQUIRE(t);
	REQUIRE_INT(t->n_rows, 2);
	CHECK_STR(sval(t, 0, "op_name"), "peak");
	CHECK_STR(sval(t, 1, "op_name"), "small");
	run_done(&x);
	xsb_free(b);
}

static void test_dtype_names(void)
{
	char buf[48];
	CHECK_STR(xp_memory_dtype_name(0, buf, sizeof buf), "INVALID");
	CHECK_STR(xp_memory_dtype_name(1, buf, sizeof buf), "float");
	CHECK_STR(xp_memory_dtype_name(14, buf, sizeof buf), "bfloat16");
	CHECK_STR(xp_memory_dtype_name(19, buf, sizeof buf), "half");
	CHECK_STR(xp_memory_dtype_name(30, buf, sizeof buf), "uint4");
	CHECK_STR(xp_memory_dtype_name(31, buf, sizeof buf), "unknown dtype enum (31)");
	CHECK_STR(xp_memory_dtype_name(100, buf, sizeof buf), "unknown dtype enum (100)");
	CHECK_STR(xp_memory_dtype_name(101, buf, sizeof buf), "float_ref");
	CHECK_STR(xp_memory_dtype_name(109, buf, sizeof buf), "int64_ref");
	CHECK_STR(xp_memory_dtype_name(-3, buf, sizeof buf), "unknown dtype enum (-3)");
}

static const struct test tests[] = {
	TEST(test_a10_summary),
	TEST(test_a10_breakdown),
	TEST(test_a10_timeline),
	TEST(test_tables_on_request),
	TEST(test_d4_windows),
	TEST(test_d4_sampling),
	TEST(test_absolute_time),
	TEST(test_breakdown_rows),
	TEST(test_allocator_ids),
	TEST(test_hosts),
	TEST(test_no_events),
	TEST(test_hostile_stats),
	TEST(test_fragmentation_pct),
	TEST(test_dealloc_without_size),
	TEST(test_dtype_names),
};

int main(void)
{
	return RUN_TESTS("test_memory", tests);
}
