/* test_mwu.c - the one-sided Mann-Whitney U test against hand-computed values: exact distribution, ties, normal approximation, symmetry. */
#include "analyzers/db/metrics.h"
#include "analyzers/db/mwu.h"
#include "check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void mwu(const int64_t *x, size_t n1, const int64_t *y, size_t n2, struct xp_mwu *m)
{
	xp_mwu_greater(x, n1, y, n2, m);
}

/* Every candidate step above every baseline step: U = 9 of 9, p = 1/C(6,3) = 1/20. */
static void exact_all_above(void)
{
	int64_t x[] = {1, 2, 3}, y[] = {4, 5, 6};
	struct xp_mwu m;
	mwu(x, 3, y, 3, &m);
	CHECK(m.exact);
	CHECK_DBL(m.u, 9, 0);
	CHECK_DBL(m.p, 1.0 / 20, 1e-15);
	mwu(y, 3, x, 3, &m);
	CHECK_DBL(m.u, 0, 0);
	CHECK_DBL(m.p, 1, 0);
}

/*
 * x = {1,3,5}, y = {2,4,6}: U = 1 + 2 + 3 = 6. For n1 = n2 = 3 the 20
 * assignments give U = 0..9 with counts 1,1,2,3,3,3,3,2,1,1, so
 * P(U >= 6) = (3+2+1+1)/20 = 7/20 and, swapped, P(U >= 3) = 16/20.
 */
static void exact_interleaved(void)
{
	int64_t x[] = {5, 1, 3}, y[] = {6, 2, 4};
	struct xp_mwu m;
	mwu(x, 3, y, 3, &m);
	CHECK_DBL(m.u, 6, 0);
	CHECK_DBL(m.p, 7.0 / 20, 1e-15);
	mwu(y, 3, x, 3, &m);
	CHECK_DBL(m.u, 3, 0);
	CHECK_DBL(m.p, 16.0 / 20, 1e-15);
	/* Two-sided: twice the smaller tail. */
	CHECK_DBL(xp_mwu_two_sided(x, 3, y, 3), 0.7, 1e-15);
}

/* Symmetric samples: U at its mean. n1 = n2 = 2: U = 0..4 with counts 1,1,2,1,1; P(U >= 2) = 4/6 both ways. */
static void exact_symmetric(void)
{
	int64_t x[] = {1, 4}, y[] = {2, 3};
	struct xp_mwu a, b;
	mwu(x, 2, y, 2, &a);
	mwu(y, 2, x, 2, &b);
	CHECK_DBL(a.u, 2, 0);
	CHECK_DBL(b.u, 2, 0);
	CHECK_DBL(a.p, 4.0 / 6, 1e-15);
	CHECK_DBL(b.p, 4.0 / 6, 1e-15);
	CHECK_DBL(xp_mwu_two_sided(x, 2, y, 2), 1, 0);
}

/*
 * Ties, exact conditional distribution. x = {1,2,2}, y = {2,3,3}: midranks
 * 1 | 3 3 3 | 5.5 5.5; R_Y = 3 + 5.5 + 5.5 = 14, U = 14 - 6 = 8. Of the 20
 * 3-subsets, rank sums >= 14 are {5.5, 5.5, 3} x 3 choices of the 3: p = 3/20.
 */
static void exact_ties(void)
{
	int64_t x[] = {1, 2, 2}, y[] = {2, 3, 3};
	struct xp_mwu m;
	mwu(x, 3, y, 3, &m);
	CHECK(m.exact);
	CHECK_DBL(m.u, 8, 0);
	CHECK_DBL(m.p, 3.0 / 20, 1e-15);
	CHECK_DBL(m.tie_sum, (27 - 3) + (8 - 2), 0);
}

/* Unequal sizes are counted over the smaller sample: the same p either way. x = {1,2,3,4,5}, y = {6}: U = 5, p = 1/6. */
static void exact_unequal(void)
{
	int64_t x[] = {1, 2, 3, 4, 5}, y[] = {6};
	struct xp_mwu m;
	mwu(x, 5, y, 1, &m);
	CHECK_DBL(m.u, 5, 0);
	CHECK_DBL(m.p, 1.0 / 6, 1e-15);
	mwu(y, 1, x, 5, &m);
	CHECK_DBL(m.u, 0, 0);
	CHECK_DBL(m.p, 1, 1e-15);
	/* y in the middle: U = 2 of 5, P(U >= 2) = 4/6. */
	int64_t y2[] = {3};
	int64_t x2[] = {1, 2, 4, 5, 6};
	mwu(x2, 5, y2, 1, &m);
	CHECK_DBL(m.u, 2, 0);
	CHECK_DBL(m.p, 4.0 / 6, 1e-15);
}

/* All equal: every assignment gives the same U, so p = 1 (no evidence), exact or not. */
static void all_equal(void)
{
	int64_t x[3] = {5, 5, 5}, y[4] = {5, 5, 5, 5};
	struct xp_mwu m;
	mwu(x, 3, y, 4, &m);
	CHECK_DBL(m.u, 6, 0);
	CHECK_DBL(m.p, 1, 0);
	int64_t big[120];
	for (size_t i = 0; i < N(big); i++)
		big[i] = 7;
	mwu(big, 60, big + 60, 60, &m);
	CHECK(!m.exact);
	CHECK_DBL(m.p, 1, 0);
}

/*
 * Normal approximation (a sample of 50 or more), no ties: x = 1,3,...,99,
 * y = 2,4,...,100. U = 1 + 2 + ... + 50 = 1275; var = 50*50*101/12;
 * z = (1275 - 1250 - 0.5) / sqrt(21041.667) = 0.1688986; p = 1 - Phi(z).
 */
static void normal_no_ties(void)
{
	int64_t x[50], y[50];
	for (int i = 0; i < 50; i++) {
		x[i] = 2 * i + 1;
		y[i] = 2 * i + 2;
	}
	struct xp_mwu m;
	mwu(x, 50, y, 50, &m);
	CHECK(!m.exact);
	CHECK_DBL(m.u, 1275, 0);
	CHECK_DBL(m.z, 0.16889858694869928, 1e-12);
	CHECK_DBL(m.p, 0.43293820534119487, 1e-12);
}

/*
 * With tie correction: x = 30 x 1 and 20 x 2, y = 20 x 1 and 30 x 2.
 * U = 20 * (30 * 0.5) + 30 * (30 + 20 * 0.5) = 300 + 1200 = 1500.
 * Two tie groups of 50: sum(t^3 - t) = 2 * (125000 - 50) = 249900;
 * var = 2500/12 * (101 - 249900 / 9900) = 15782.828;
 * z = (1500 - 1250 - 0.5) / 125.6297 = 1.9859949; p = 0.0235169.
 */
static void normal_ties(void)
{
	int64_t x[50], y[50];
	for (int i = 0; i < 50; i++) {
		x[i] = i < 30 ? 1 : 2;
		y[i] = i < 20 ? 1 : 2;
	}
	struct xp_mwu m;
	mwu(x, 50, y, 50, &m);
	CHECK(!m.exact);
	CHECK_DBL(m.u, 1500, 0);
	CHECK_DBL(m.tie_sum, 249900, 0);
	CHECK_DBL(m.z, 1.9859949244648134, 1e-12);
	CHECK_DBL(m.p, 0.023516943744239557, 1e-12);
}

/*
 * Unequal sizes, candidate faster: x = 60 values 1,3,...,119, y = 50 values
 * 2,4,...,100: U = 1 + ... + 50 = 1275 < 1500 = mean; var = 3000*111/12;
 * z = (1275 - 1500 - 0.5) / 96.177 = -1.3536770, p = 0.9120803.
 */
static void normal_unequal(void)
{
	int64_t x[60], y[50];
	for (int i = 0; i < 60; i++)
		x[i] = 2 * i + 1;
	for (int i = 0; i < 50; i++)
		y[i] = 2 * i + 2;
	struct xp_mwu m;
	mwu(x, 60, y, 50, &m);
	CHECK_DBL(m.u, 1275, 0);
	CHECK_DBL(m.z, -1.3536770077981828, 1e-12);
	CHECK_DBL(m.p, 0.9120802767028181, 1e-12);
}

/* The largest exact case, 49 and 49: the counts pass 2^53, so doubles carry them to about 1e-15. */
static void exact_large(void)
{
	int64_t x[49], y[49];
	for (int i = 0; i < 49; i++) {
		x[i] = 2 * i + 1;
		y[i] = 2 * i + 2;
	}
	struct xp_mwu m;
	mwu(x, 49, y, 49, &m);
	CHECK(m.exact);
	CHECK_DBL(m.u, 49 * 50 / 2, 0);
	/* P(U >= 1225) over the C(98, 49) assignments, counted independently in exact rational arithmetic. */
	CHECK_DBL(m.p, 0.43260517857640957, 1e-13);
	/* All above: 1 / C(98, 49). */
	mwu(x, 49, x, 0, &m);
	CHECK_DBL(m.p, 1, 0);
	for (int i = 0; i < 49; i++)
		y[i] = 1000 + i;
	mwu(x, 49, y, 49, &m);
	CHECK_DBL(m.p / xp_mwu_min_p(49, 49), 1, 1e-9);
}

/* The smallest p samples can give: 1/C(6,3) = 0.05 for 3 and 3, so three steps a side can never be significant at 0.05. */
static void min_p(void)
{
	CHECK_DBL(xp_mwu_min_p(3, 3), 0.05, 1e-15);
	CHECK_DBL(xp_mwu_min_p(5, 5), 1.0 / 252, 1e-15);
	CHECK_DBL(xp_mwu_min_p(4, 2), 1.0 / 15, 1e-15);
	CHECK_DBL(xp_mwu_min_p(0, 5), 1, 0);
}

/* Deterministic and independent of input order. */
static void order_free(void)
{
	int64_t x[] = {10, 30, 20, 40, 25}, xr[] = {40, 25, 10, 20, 30};
	int64_t y[] = {35, 45, 50, 15}, yr[] = {15, 50, 45, 35};
	struct xp_mwu a, b;
	mwu(x, 5, y, 4, &a);
	mwu(xr, 5, yr, 4, &b);
	CHECK_DBL(a.u, b.u, 0);
	CHECK_DBL(a.p, b.p, 0);
	/* U = pairs y > x: 35 > 10,30,20,25 (4); 45 > 5; 50 > 5; 15 > 10 (1): 15. */
	CHECK_DBL(a.u, 15, 0);
}

/* xp_median_ps: the middle value, or the mean of the middle two rounded half up. */
static void median(void)
{
	int64_t a[] = {5, 1, 3}, b[] = {4, 1, 3, 2}, c[] = {1, 2};
	CHECK_INT(xp_median_ps(a, 3), 3);
	CHECK_INT(xp_median_ps(b, 4), 3);   /* (2 + 3) / 2 = 2.5 -> 3 */
	CHECK_INT(xp_median_ps(c, 2), 2);   /* 1.5 -> 2 */
	CHECK_INT(xp_median_ps(a, 0), 0);
	int64_t big[] = {INT64_MAX - 1, INT64_MAX - 3};
	CHECK_INT(xp_median_ps(big, 2), INT64_MAX - 2);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(exact_all_above), TEST(exact_interleaved), TEST(exact_symmetric), TEST(exact_ties),
		TEST(exact_unequal), TEST(all_equal), TEST(normal_no_ties), TEST(normal_ties), TEST(normal_unequal),
		TEST(exact_large), TEST(min_p), TEST(order_free), TEST(median),
	};
	return RUN_TESTS("test_mwu", tests);
}
