/* xplane_walk.c - bench: the hand-written XSpace walker against protobuf-c's generated unpack on the same bytes, alternated, medians. */
#include "formats/in/xplane_read.h"
#include "xplane.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * DESIGN allows the hand-written decoder only while it is at least twice as fast as protobuf-c on the
 * event loop (almost all of a capture's bytes). Both decode the same bytes, already in memory, on one
 * thread, keeping every stat, and free what they built. Each round runs one of each, in turn, so that a
 * machine whose speed drifts slows both alike. Prints per decoder the median wall and CPU seconds and
 * MB/s, and the ratio of the medians; checks that both saw the same number of events.
 * Usage: xplane_walk FILE [ROUNDS]   (default 9 rounds)
 */

struct timing {
	double wall, cpu;
};

static double seconds(clockid_t clk)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct timing since(struct timing t0)
{
	return (struct timing){seconds(CLOCK_MONOTONIC) - t0.wall, seconds(CLOCK_PROCESS_CPUTIME_ID) - t0.cpu};
}

static struct timing now(void)
{
	return (struct timing){seconds(CLOCK_MONOTONIC), seconds(CLOCK_PROCESS_CPUTIME_ID)};
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = buf ? (size_t)n : 0;
	return buf;
}

/* One decode by the walker, the model built and freed; the events it found, or -1. */
static long long walk_once(const uint8_t *data, size_t len, struct timing *t)
{
	struct xp_read_opts ro = {.threads = 1};
	struct xp_err err = {0};
	struct xp_capture *c = xp_capture_new();
	struct timing t0 = now();
	int rc = xp_read_xspace(c, "bench", data, len, &ro, &err);
	long long events = 0;
	for (uint32_t h = 0; !rc && h < c->n_hosts; h++)
		for (uint32_t p = 0; p < c->hosts[h].n_planes; p++)
			for (uint32_t l = 0; l < c->hosts[h].planes[p].n_lines; l++)
				events += (long long)c->hosts[h].planes[p].lines[l].n_events;
	xp_capture_free(c);
	*t = since(t0);
	if (rc)
		xp_err_print(&err);
	return rc ? -1 : events;
}

/* One decode by protobuf-c (the tree built and freed, as a reader of it would); the events, or -1. */
static long long unpack_once(const uint8_t *data, size_t len, struct timing *t)
{
	struct timing t0 = now();
	Tensorflow__Profiler__XSpace *s = tensorflow__profiler__xspace__unpack(NULL, len, data);
	if (!s)
		return -1;
	long long events = 0;
	for (size_t p = 0; p < s->n_planes; p++)
		for (size_t l = 0; l < s->planes[p]->n_lines; l++)
			events += (long long)s->planes[p]->lines[l]->n_events;
	tensorflow__profiler__xspace__free_unpacked(s, NULL);
	*t = since(t0);
	return events;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fputs("usage: xplane_walk FILE [ROUNDS]\n", stderr);
		return 2;
	}
	int rounds = argc == 3 ? atoi(argv[2]) : 9;
	if (rounds < 1 || rounds > 1000)
		rounds = 9;
	size_t len;
	uint8_t *data = slurp(argv[1], &len);
	if (!data) {
		fprintf(stderr, "xplane_walk: cannot read %s\n", argv[1]);
		return 2;
	}
	double *ww = calloc((size_t)rounds, sizeof *ww), *wc = calloc((size_t)rounds, sizeof *wc);
	double *pw = calloc((size_t)rounds, sizeof *pw), *pc = calloc((size_t)rounds, sizeof *pc);
	long long ours = 0, theirs = 0;
	for (int i = 0; i < rounds && ours >= 0 && theirs >= 0; i++) {
		struct timing a, b;
		/* Alternate which goes first, so that neither always inherits the other's cache and heap. */
		if (i % 2) {
			theirs = unpack_once(data, len, &b);
			ours = walk_once(data, len, &a);
		} else {
			ours = walk_once(data, len, &a);
			theirs = unpack_once(data, len, &b);
		}
		ww[i] = a.wall, wc[i] = a.cpu, pw[i] = b.wall, pc[i] = b.cpu;
	}
	free(data);
	int status = 0;
	if (ours < 0 || theirs < 0 || ours != theirs) {
		fprintf(stderr, "xplane_walk: events decoded: walker %lld, protobuf-c %lld\n", ours, theirs);
		status = 1;
	} else {
		double mww = median(ww, rounds), mwc = median(wc, rounds), mpw = median(pw, rounds), mpc = median(pc, rounds);
		printf("walker:     median %.3f s wall, %.3f s cpu, %.0f MB/s (%d rounds, %lld events, %.1f MB)\n", mww, mwc,
		       (double)len / mww / 1e6, rounds, ours, (double)len / 1e6);
		printf("protobuf-c: median %.3f s wall, %.3f s cpu, %.0f MB/s\n", mpw, mpc,
		       (double)len / mpw / 1e6);
		printf("speedup: %.2fx wall, %.2fx cpu (DESIGN: >= 2x): %s\n", mpw / mww, mpc / mwc,
		       mpw / mww >= 2 && mpc / mwc >= 2 ? "met" : "MISSED");
	}
	free(ww), free(wc), free(pw), free(pc);
	return status;
}
