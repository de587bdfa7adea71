/* mwu.c - the one-sided Mann-Whitney U test on per-step times: exact conditional distribution for small samples, normal approximation with tie correction above. */
#include "mwu.h"
#include "formats/core/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Definitions (xpstat-check(1) repeats them):
 *
 * X is the baseline (n1 values), Y the candidate (n2 values). Both are
 * pooled and sorted; tied values share the mean of the ranks they span
 * (midranks). U is the candidate's statistic:
 *     U = R_Y - n2 (n2 + 1) / 2
 * where R_Y is the sum of the candidate's ranks; equivalently the number of
 * pairs (x, y) with y > x plus half the pairs with y = x. The alternative
 * is "the candidate's steps tend to be longer", so the p-value is
 *     p = P(U >= U_observed)
 * under the null hypothesis that every assignment of the N = n1 + n2 values
 * to the two samples is equally likely.
 *
 * Exact (n1 < 50 and n2 < 50): that probability is counted over all
 * C(N, n2) assignments of the observed values (midranks included), so it is
 * exact also with ties (the conditional, or permutation, distribution).
 *
 * Otherwise the normal approximation with tie and continuity correction:
 *     mean = n1 n2 / 2
 *     var  = n1 n2 / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 *     z    = (U - mean - 1/2) / sqrt(var),  p = 1 - Phi(z)
 * where t runs over the sizes of the groups of tied values.
 *
 * When every value is equal (var = 0, or a single possible U) p = 1: such
 * samples give no evidence of a slowdown. Nothing is random: the same
 * samples always give the same p.
 */

#define EXACT_BELOW 50

struct tagged {
	int64_t v;
	int from_y;
};

static int cmp_tagged(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->from_y - y->from_y;
}

/* Twice the midrank of each pooled value (an integer), and sum(t^3 - t) over tie groups. */
static struct tagged *pool(const int64_t *x, size_t n1, const int64_t *y, size_t n2, long *rank2, double *tie_sum)
{
	size_t n = n1 + n2;
	struct tagged *t = xcalloc(n, sizeof *t);
	for (size_t i = 0; i < n1; i++)
		t[i] = (struct tagged){x[i], 0};
	for (size_t j = 0; j < n2; j++)
		t[n1 + j] = (struct tagged){y[j], 1};
	qsort(t, n, sizeof *t, cmp_tagged);
	*tie_sum = 0;
	for (size_t i = 0; i < n;) {
		size_t k = i;
		while (k + 1 < n && t[k + 1].v == t[i].v)
			k++;
		/* Ranks i+1 .. k+1 (1-based): twice their mean is i + k + 2. */
		for (size_t m = i; m <= k; m++)
			rank2[m] = (long)(i + k + 2);
		double g = (double)(k - i + 1);
		*tie_sum += g * g * g - g;
		i = k + 1;
	}
	return t;
}

/*
 * P(sum of the doubled ranks of a random k-subset >= s_obs): the number of
 * k-subsets of the N items per doubled rank sum, by dynamic programming over
 * the items (counts as doubles: exact below 2^53, i.e. for N up to about 55,
 * and to about 1e-15 relative above).
 */
static double upper_tail(const long *rank2, size_t n, size_t k, long s_obs)
{
	long smax = 0;
	for (size_t i = 0; i < n; i++)
		smax += rank2[i];
	size_t width = (size_t)smax + 1;
	double *cnt = xcalloc((k + 1) * width, sizeof *cnt);
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t top = i + 1 < k ? i + 1 : k;
		for (size_t j = top; j >= 1; j--) {
			double *to = cnt + j * width, *from = cnt + (j - 1) * width;
			for (long s = (long)width - 1; s >= rank2[i]; s--)
				to[s] += from[s - rank2[i]];
		}
	}
	double total = 0, tail = 0;
	const double *row = cnt + k * width;
	for (size_t s = 0; s < width; s++) {
		total += row[s];
		if ((long)s >= s_obs)
			tail += row[s];
	}
	free(cnt);
	return total > 0 ? tail / total : 1;
}

/* One tail by the exact distribution: counted over the smaller sample, which needs fewer subsets. */
static double exact_p(const struct tagged *t, const long *rank2, size_t n1, size_t n2)
{
	size_t n = n1 + n2;
	long r2_y = 0, r2_x = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].from_y)
			r2_y += rank2[i];
		else
			r2_x += rank2[i];
	}
	if (n2 <= n1)
		return upper_tail(rank2, n, n2, r2_y);
	/* R_Y >= r  <=>  R_X <= total - r: count the lower tail of X's rank sum through negated ranks. */
	long *neg = xcalloc(n, sizeof *neg);
	long maxr = (long)(2 * n + 2);   /* > every doubled rank, so every negated rank is >= 2 */
	for (size_t i = 0; i < n; i++)
		neg[i] = maxr - rank2[i];
	/* sum(neg over X) = n1 * maxr - R2_X; R2_X <= r2_x  <=>  sum(neg) >= n1 * maxr - r2_x */
	double p = upper_tail(neg, n, n1, (long)n1 * maxr - r2_x);
	free(neg);
	return p;
}

double xp_normal_upper(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

void xp_mwu_greater(const int64_t *x, size_t n1, const int64_t *y, size_t n2, struct xp_mwu *out)
{
	memset(out, 0, sizeof *out);
	out->n1 = n1;
	out->n2 = n2;
	out->p = 1;
	if (!n1 || !n2)
		return;
	size_t n = n1 + n2;
	long *rank2 = xcalloc(n, sizeof *rank2);
	double tie_sum;
	struct tagged *t = pool(x, n1, y, n2, rank2, &tie_sum);
	long r2_y = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].from_y)
			r2_y += rank2[i];
	out->u = (double)r2_y / 2 - (double)n2 * (double)(n2 + 1) / 2;
	out->tie_sum = tie_sum;
	double mean = (double)n1 * (double)n2 / 2;
	double var = (double)n1 * (double)n2 / 12 *
		     ((double)(n + 1) - tie_sum / ((double)n * (double)(n - 1 ? n - 1 : 1)));
	out->exact = n1 < EXACT_BELOW && n2 < EXACT_BELOW;
	if (out->exact) {
		out->p = exact_p(t, rank2, n1, n2);
	} else if (var > 0) {
		out->z = (out->u - mean - 0.5) / sqrt(var);
		out->p = xp_normal_upper(out->z);
	}
	if (out->p > 1)
		out->p = 1;
	free(t);
	free(rank2);
}

double xp_mwu_two_sided(const int64_t *x, size_t n1, const int64_t *y, size_t n2)
{
	struct xp_mwu g, l;
	xp_mwu_greater(x, n1, y, n2, &g);
	xp_mwu_greater(y, n2, x, n1, &l);
	double p = 2 * (g.p < l.p ? g.p : l.p);
	return p > 1 ? 1 : p;
}

double xp_mwu_min_p(size_t n1, size_t n2)
{
	if (!n1 || !n2)
		return 1;
	if (n1 < EXACT_BELOW && n2 < EXACT_BELOW) {
		/* 1 / C(n1 + n2, n2): every candidate value above every baseline value. */
		double c = 1;
		size_t k = n1 < n2 ? n1 : n2, n = n1 + n2;
		for (size_t i = 1; i <= k; i++)
			c = c * (double)(n - k + i) / (double)i;
		return 1 / c;
	}
	double mean = (double)n1 * (double)n2 / 2;
	double var = (double)n1 * (double)n2 * (double)(n1 + n2 + 1) / 12;
	return xp_normal_upper((2 * mean - mean - 0.5) / sqrt(var));
}

const char *xp_mwu_method(const struct xp_mwu *m)
{
	return m->exact ? "exact" : "normal approximation";
}
