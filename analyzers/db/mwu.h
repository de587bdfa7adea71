/* mwu.h - the one-sided Mann-Whitney U test that check and compare use. */
#ifndef XPSTAT_MWU_H
#define XPSTAT_MWU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xp_mwu {
	size_t n1, n2;          /* baseline and candidate sample sizes */
	double u;               /* the candidate's U: pairs with y > x, plus half the ties */
	double p;               /* P(U >= u) under H0: the candidate is not slower */
	bool exact;             /* the exact conditional distribution (both samples < 50) */
	double z;               /* normal approximation: the continuity-corrected z (0 when exact) */
	double tie_sum;         /* sum over tie groups of t^3 - t */
};

/* Test "Y (candidate) tends to be larger than X (baseline)". p = 1 when a sample is empty. */
void xp_mwu_greater(const int64_t *x, size_t n1, const int64_t *y, size_t n2, struct xp_mwu *out);
/* Two-sided p: twice the smaller one-sided p, at most 1. */
double xp_mwu_two_sided(const int64_t *x, size_t n1, const int64_t *y, size_t n2);
/* The smallest one-sided p that samples of these sizes can give (no ties): 1/C(n1+n2, n2) when exact. */
double xp_mwu_min_p(size_t n1, size_t n2);
/* "exact" or "normal approximation". */
const char *xp_mwu_method(const struct xp_mwu *m);
/* 1 - Phi(z). */
double xp_normal_upper(double z);

#endif
