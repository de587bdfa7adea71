/* align.c - multi-host step alignment: the chief host, per-host offsets and the intersection of steps (spec §6(a)). */
#include "prep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Hosts start profiling at slightly different moments, so step i of one host
 * is not step i of another. The host with the shortest span of steps is the
 * chief; every other host is slid against it by a whole number of steps, the
 * offset whose steps overlap the chief's the most. The combined steps are the
 * chief indices every host covers. Times of different hosts are compared on
 * their absolute clock (line timestamps in ns, kept in 128 bits).
 */

typedef __int128 i128;

static i128 abs_ps(const struct xp_prep_host *h, int64_t ps)
{
	return (i128)h->host->base_ns * 1000 + ps;
}

static i128 step_begin(const struct xp_prep_host *h, size_t i)
{
	return abs_ps(h, h->steps.steps[i].begin_ps);
}

static i128 step_end(const struct xp_prep_host *h, size_t i)
{
	return abs_ps(h, h->steps.steps[i].begin_ps + h->steps.steps[i].duration_ps);
}

/* First step begin to last step end, over steps with a positive span. */
static i128 total_span(const struct xp_prep_host *h)
{
	bool any = false;
	i128 lo = 0, hi = 0;
	for (size_t i = 0; i < h->steps.n; i++) {
		if (h->steps.steps[i].duration_ps <= 0)
			continue;
		if (!any || step_begin(h, i) < lo)
			lo = step_begin(h, i);
		if (!any || step_end(h, i) > hi)
			hi = step_end(h, i);
		any = true;
	}
	return any ? hi - lo : 0;
}

static i128 overlap(i128 a0, i128 a1, i128 b0, i128 b1)
{
	i128 lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* Similarity of host h shifted by k steps against the chief: chief step
 * k+t meets host step t (k >= 0), or chief step t meets host step t-k. */
static i128 similarity(const struct xp_prep_host *chief, const struct xp_prep_host *h, long k)
{
	size_t c = k >= 0 ? (size_t)k : 0, s = k >= 0 ? 0 : (size_t)-k;
	i128 sum = 0;
	for (; c < chief->steps.n && s < h->steps.n; c++, s++)
		sum += overlap(step_begin(chief, c), step_end(chief, c), step_begin(h, s), step_end(h, s));
	return sum;
}

static long best_offset(const struct xp_prep_host *chief, const struct xp_prep_host *h)
{
	long best = 0;
	i128 best_sim = -1;
	for (long k = 0; k < (long)chief->steps.n; k++) {
		i128 sim = similarity(chief, h, k);
		if (sim > best_sim) {
			best_sim = sim;
			best = k;
		}
	}
	for (long k = -1; k > -(long)h->steps.n; k--) {
		i128 sim = similarity(chief, h, k);
		if (sim > best_sim) {
			best_sim = sim;
			best = k;
		}
	}
	return best;
}

static bool is_coordinator(const struct xp_prep *p, uint32_t h)
{
	bool any_device = false;
	for (uint32_t k = 0; k < p->n_hosts; k++)
		any_device |= p->hosts[k].steps.has_device;
	return any_device && !p->hosts[h].steps.has_device;
}

int xp_align_steps(const struct xp_prep *p, struct xp_step_align *out)
{
	memset(out, 0, sizeof *out);
	out->n_hosts = p->n_hosts;
	out->first = calloc(p->n_hosts ? p->n_hosts : 1, sizeof *out->first);
	if (!out->first)
		return -1;
	bool found = false;
	i128 chief_span = 0;
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		out->first[h] = -1;
		if (is_coordinator(p, h) || !p->hosts[h].steps.n)
			continue;
		i128 span = total_span(&p->hosts[h]);
		if (!found || span < chief_span) {
			found = true;
			chief_span = span;
			out->chief = h;
		}
	}
	if (!found)
		return 0;
	const struct xp_prep_host *chief = &p->hosts[out->chief];
	long begin = 0, end = (long)chief->steps.n;
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		if (is_coordinator(p, h))
			continue;
		const struct xp_prep_host *host = &p->hosts[h];
		long k = h == out->chief ? 0 : best_offset(chief, host);
		long cs = k >= 0 ? k : 0, hs = k >= 0 ? 0 : -k;
		long len = (long)chief->steps.n - cs;
		if ((long)host->steps.n - hs < len)
			len = (long)host->steps.n - hs;
		out->first[h] = hs - cs; /* host index = chief index + this */
		if (cs > begin)
			begin = cs;
		if (cs + len < end)
			end = cs + len;
	}
	if (begin >= end) {
		out->empty_intersect = true;
		for (uint32_t h = 0; h < p->n_hosts; h++)
			out->first[h] = -1;
	} else {
		out->n = (size_t)(end - begin);
		out->chief_first = (size_t)begin;
		for (uint32_t h = 0; h < p->n_hosts; h++)
			if (!is_coordinator(p, h))
				out->first[h] += begin; /* source index of combined step 0 */
			else
				out->first[h] = -1;
	}
	return 0;
}

void xp_step_align_free(struct xp_step_align *a)
{
	free(a->first);
	memset(a, 0, sizeof *a);
}
