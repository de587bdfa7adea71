/* kineto_gen.c - xpgen --kineto: small PyTorch (Kineto) traces whose step rules xpstat must apply, for golden tests. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each step N (ProfilerStep#N on the main thread, tid 1) holds, in microseconds
 * from the step's host start:
 *   [0, 20*scale)        enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ (tid 1)
 *   [20*scale, 60*scale) aten::conv2d (tid 1) with cudaLaunchKernel [25, 30)*scale inside it,
 *                        whose kernel runs on the GPU [35, 75)*scale
 *   [60*scale, 80*scale) autograd::engine::evaluate_function (tid 2: another thread), cudaLaunchKernel
 *                        [62, 64)*scale, its kernel [76, 76+40+tail)*scale: with --tail the device work
 *                        ends after the host step (an async GPU tail)
 *   the host step ends at 100*scale; steps follow each other with a 10 us gap.
 * --drop-last adds one more step that launches nothing (the PyTorch profiler drops it).
 * --rank R writes distributedInfo rank R; --skew F makes every duration F times longer.
 */

int xp_kineto_main(int argc, char **argv);

struct kopts {
	int steps, first, rank, drop_last;
	double scale, tail;
	const char *out;
};

static int usage(void)
{
	fputs("usage: xpgen --kineto [--steps N] [--first N] [--scale F] [--tail US] [--drop-last] [--rank R] -o FILE\n",
	      stderr);
	return 2;
}

static int parse(struct kopts *o, int argc, char **argv)
{
	*o = (struct kopts){.steps = 4, .first = 1, .rank = -1, .scale = 1, .tail = 0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--drop-last")) {
			o->drop_last = 1;
			continue;
		}
		if (!v)
			return usage();
		if (!strcmp(a, "--steps"))
			o->steps = atoi(v);
		else if (!strcmp(a, "--first"))
			o->first = atoi(v);
		else if (!strcmp(a, "--scale"))
			o->scale = atof(v);
		else if (!strcmp(a, "--tail"))
			o->tail = atof(v);
		else if (!strcmp(a, "--rank"))
			o->rank = atoi(v);
		else if (!strcmp(a, "-o"))
			o->out = v;
		else
			return usage();
		i++;
	}
	return o->out && o->steps > 0 && o->scale > 0 ? 0 : usage();
}

static void ev(FILE *f, const char *cat, const char *name, int pid, int tid, double ts, double dur, long corr, long ext)
{
	fprintf(f, ",\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.0f, "
		"\"dur\": %.0f, \"args\": {", cat, name, pid, tid, ts, dur);
	const char *sep = "";
	if (ext >= 0) {
		fprintf(f, "\"External id\": %ld", ext);
		sep = ", ";
	}
	if (corr >= 0)
		fprintf(f, "%s\"correlation\": %ld", sep, corr);
	if (!strcmp(cat, "kernel"))
		fprintf(f, ", \"device\": 0, \"stream\": 7, \"grid\": [80, 1, 1], \"block\": [256, 1, 1], "
			"\"registers per thread\": 32, \"shared memory\": 0, \"est. achieved occupancy %%\": 50");
	fputs("}}", f);
}

/* One step at host time T; LAUNCH = 0 for a step that launches nothing. */
static void step(FILE *f, const struct kopts *o, int n, double t, int launch, long *corr)
{
	double s = o->scale;
	char name[40];
	snprintf(name, sizeof name, "ProfilerStep#%d", n);
	ev(f, "cpu_op", name, 100, 1, t, 100 * s, -1, -1);
	ev(f, "cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 1, t, 20 * s, -1, -1);
	if (!launch)
		return;
	long c1 = (*corr)++, c2 = (*corr)++;
	ev(f, "cpu_op", "aten::conv2d", 100, 1, t + 20 * s, 40 * s, -1, c1);
	ev(f, "cuda_runtime", "cudaLaunchKernel", 100, 1, t + 25 * s, 5 * s, c1, c1);
	ev(f, "kernel", "implicit_convolve_sgemm", 0, 7, t + 35 * s, 40 * s, c1, c1);
	ev(f, "cpu_op", "autograd::engine::evaluate_function: ConvolutionBackward0", 100, 2, t + 60 * s, 20 * s, -1, c2);
	ev(f, "cuda_runtime", "cudaLaunchKernel", 100, 2, t + 62 * s, 2 * s, c2, c2);
	ev(f, "kernel", "wgrad_alg0_engine", 0, 7, t + 76 * s, (40 + o->tail) * s, c2, c2);
}

int xp_kineto_main(int argc, char **argv)
{
	struct kopts o;
	if (parse(&o, argc, argv))
		return 2;
	FILE *f = fopen(o.out, "w");
	if (!f) {
		perror(o.out);
		return 1;
	}
	fputs("{\n \"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": \"Tesla V100-SXM2-16GB\", "
	      "\"totalGlobalMem\": 16945512448, \"computeMajor\": 7, \"computeMinor\": 0, \"numSms\": 80}],\n", f);
	if (o.rank >= 0)
		fprintf(f, " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2},\n", o.rank);
	fputs(" \"traceEvents\": [\n  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 100, \"tid\": 0, "
	      "\"args\": {\"name\": \"python\"}}", f);
	double t = 1000, period = 100 * o.scale + 10;
	long corr = 1;
	for (int i = 0; i < o.steps; i++, t += period + (o.tail * o.scale))
		step(f, &o, o.first + i, t, 1, &corr);
	if (o.drop_last)
		step(f, &o, o.first + o.steps, t, 0, &corr);
	fputs("\n ]\n}\n", f);
	return fclose(f) ? 1 : 0;
}
