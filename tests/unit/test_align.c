/* test_align.c - multi-host step alignment: spec Appendix A16 (two hosts, one combined step) and A17 (step intersection). */
#include "check.h"
#include "xsbuild.h"
#include "analyzers/prepare/prepare.h"

#include <stdlib.h>

/* One host of A17: `steps` CPU steps of `len` ps, the first starting at
 * `shift` ps; TraceContext markers with host compute inside. */
static struct xsb *stepped_host(const char *name, int steps, int64_t shift, int64_t len, int64_t last_shorter)
{
	struct xsb *b = xsb_new();
	xsb_hostname(b, name);
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "main", 0);
	for (int i = 0; i < steps; i++) {
		int64_t d = len - (i == steps - 1 ? last_shorter : 0);
		int e = xsb_event(b, h, l, "TraceContext", shift + i * len, d);
		xsb_stat_int(b, h, e, "step_num", i);
		xsb_event(b, h, l, "op:Op", shift + i * len, d);
	}
	return b;
}

static struct xp_prep *prepare_hosts(struct xsb **b, size_t n, struct xp_capture **c)
{
	*c = xsb_read_hosts(b, n);
	struct xp_prep_opts o = {0};
	struct xp_err err = {0};
	return xp_prepare(*c, &o, &err);
}

static void free_all(struct xsb **b, size_t n, struct xp_capture *c, struct xp_prep *p)
{
	xp_prep_free(p);
	xp_capture_free(c);
	for (size_t i = 0; i < n; i++)
		xsb_free(b[i]);
}

/* A17: 4 hosts x 10 steps of 2e9 ps, host i starting i steps later; host 0's
 * last step is 1 ps shorter, so it is the chief. */
static void test_a17_shifted_by_steps(void)
{
	const int64_t len = 2000000000;
	struct xsb *b[4];
	char name[16];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "host%d", i);
		b[i] = stepped_host(name, 10, i * len, len, i == 0 ? 1 : 0);
	}
	struct xp_capture *c;
	struct xp_prep *p = prepare_hosts(b, 4, &c);
	struct xp_step_align a;
	REQUIRE(p && xp_align_steps(p, &a) == 0);
	CHECK_INT(a.chief, 0);
	CHECK_INT(a.n, 7);
	CHECK(!a.empty_intersect);
	CHECK_INT(a.first[0], 3);   /* FirstStepIndex(host 0) = 3 */
	CHECK_INT(a.first[1], 2);   /* host 1's step 2 is chief step 3 */
	CHECK_INT(a.first[2], 1);
	CHECK_INT(a.first[3], 0);
	xp_step_align_free(&a);
	free_all(b, 4, c, p);
}

/* A17 with a shift of 0 or 100 ps: all 10 steps, every first index 0. */
static void test_a17_small_shift(void)
{
	const int64_t len = 2000000000;
	for (int64_t shift = 0; shift <= 100; shift += 100) {
		struct xsb *b[4];
		char name[16];
		for (int i = 0; i < 4; i++) {
			snprintf(name, sizeof name, "host%d", i);
			b[i] = stepped_host(name, 10, i * shift, len, i == 0 ? 1 : 0);
		}
		struct xp_capture *c;
		struct xp_prep *p = prepare_hosts(b, 4, &c);
		struct xp_step_align a;
		REQUIRE(p && xp_align_steps(p, &a) == 0);
		CHECK_INT(a.n, 10);
		for (int i = 0; i < 4; i++)
			CHECK_INT(a.first[i], 0);
		xp_step_align_free(&a);
		free_all(b, 4, c, p);
	}
}

/* A16: two identical hosts with one step each give one combined step. */
static void test_a16_two_hosts_one_step(void)
{
	struct xsb *b[2] = {stepped_host("host1", 1, 0, 100, 0), stepped_host("host2", 1, 0, 100, 0)};
	struct xp_capture *c;
	struct xp_prep *p = prepare_hosts(b, 2, &c);
	struct xp_step_align a;
	REQUIRE(p && xp_align_steps(p, &a) == 0);
	CHECK_INT(a.n, 1);
	CHECK_INT(a.chief, 0);
	CHECK_INT(a.first[0], 0);
	CHECK_INT(a.first[1], 0);
	xp_step_align_free(&a);
	free_all(b, 2, c, p);
}

/* Steps that never meet: a host with no steps empties the intersection. */
static void test_empty_intersection(void)
{
	struct xsb *b[2] = {stepped_host("host1", 3, 0, 100, 0), xsb_new()};
	xsb_hostname(b[1], "host2");
	int h = xsb_plane(b[1], "/host:CPU", 0);
	int l = xsb_line(b[1], h, 1, "main", 0);
	xsb_event(b[1], h, l, "op:Op", 0, 10);
	struct xp_capture *c;
	struct xp_prep *p = prepare_hosts(b, 2, &c);
	struct xp_step_align a;
	REQUIRE(p && xp_align_steps(p, &a) == 0);
	CHECK(a.empty_intersect);
	CHECK_INT(a.n, 0);
	xp_step_align_free(&a);
	free_all(b, 2, c, p);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_a17_shifted_by_steps),
		TEST(test_a17_small_shift),
		TEST(test_a16_two_hosts_one_step),
		TEST(test_empty_intersection),
	};
	return RUN_TESTS("unit-align", tests);
}
