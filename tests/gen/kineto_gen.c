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
 * --start US puts the first step's host start at US (default 1000: two files of one worker taken at
 * different times, each counting correlation ids from 1, as two spans); --rank R writes distributedInfo rank R; --skew F makes every duration F times longer.
 * --ops adds, per step (microseconds from the step's start, scale 1):
 *   tid 1: aten::convolution [21, 59) in aten::conv2d, aten::cudnn_convolution [22, 58) in it holding the conv2d
 *          launch and a second one [40, 42) (kernel bn_fw_kernel, 10 us): one operator, two kernels;
 *          aten::add_ [82, 90) holding aten::add_ [83, 89) (one call) with a launch [84, 86) (5 us kernel);
 *          a launch [92, 94) in the step but in no operator (3 us kernel)
 *   tid 3: aten::mm [50, 70) holding aten::empty [51, 53) and a launch [60, 62) (8 us kernel)
 *   tid 4: a launch [10, 12) around which no node lies (2 us kernel)
 * --memory addr|bytes adds [memory] events on GPU 0: +1 MiB at 21, +2 MiB at 30, -1 MiB at 50, -2 MiB at 70;
 * addr: with Addr, Total Allocated and Total Reserved (4 MiB), as PyTorch >= 1.10; bytes: Bytes alone (1.9).
 */

int xp_kineto_main(int argc, char **argv);

struct kopts {
	int steps, first, rank, drop_last, ops, memory; /* memory: 0 none, 1 addr, 2 bytes */
	double scale, tail, start;
	const char *out;
};

static int usage(void)
{
	fputs("usage: xpgen --kineto [--steps N] [--first N] [--scale F] [--tail US] [--drop-last] [--rank R] [--ops]\n"
	      "       [--memory addr|bytes] [--start US] -o FILE\n",
	      stderr);
	return 2;
}

static int parse(struct kopts *o, int argc, char **argv)
{
	*o = (struct kopts){.steps = 4, .first = 1, .rank = -1, .scale = 1, .tail = 0, .start = 1000};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--drop-last") || !strcmp(a, "--ops")) {
			*(a[2] == 'd' ? &o->drop_last : &o->ops) = 1;
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
		else if (!strcmp(a, "--start"))
			o->start = atof(v);
		else if (!strcmp(a, "--tail"))
			o->tail = atof(v);
		else if (!strcmp(a, "--memory"))
			o->memory = !strcmp(v, "addr") ? 1 : !strcmp(v, "bytes") ? 2 : -1;
		else if (!strcmp(a, "--rank"))
			o->rank = atoi(v);
		else if (!strcmp(a, "-o"))
			o->out = v;
		else
			return usage();
		i++;
	}
	return o->out && o->steps > 0 && o->scale > 0 && o->memory >= 0 ? 0 : usage();
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

/* A launch on TID at host time T (duration D) whose kernel NAME runs at KT for KD. */
static void launch_kernel(FILE *f, int tid, double t, double d, const char *name, double kt, double kd, long *corr)
{
	long c = (*corr)++;
	ev(f, "cuda_runtime", "cudaLaunchKernel", 100, tid, t, d, c, c);
	ev(f, "kernel", name, 0, 7, kt, kd, c, c);
}

/* --ops: nested operators on several threads, several kernels of one operator, launches outside operators. */
static void ops(FILE *f, double t, double s, long *corr)
{
	ev(f, "cpu_op", "aten::convolution", 100, 1, t + 21 * s, 38 * s, -1, -1);
	ev(f, "cpu_op", "aten::cudnn_convolution", 100, 1, t + 22 * s, 36 * s, -1, -1);
	launch_kernel(f, 1, t + 40 * s, 2 * s, "bn_fw_kernel", t + 80 * s, 10 * s, corr);
	ev(f, "cpu_op", "aten::add_", 100, 1, t + 82 * s, 8 * s, -1, -1);
	ev(f, "cpu_op", "aten::add_", 100, 1, t + 83 * s, 6 * s, -1, -1);
	launch_kernel(f, 1, t + 84 * s, 2 * s, "elementwise_kernel", t + 91 * s, 5 * s, corr);
	launch_kernel(f, 1, t + 92 * s, 2 * s, "fill_kernel", t + 96 * s, 3 * s, corr);
	ev(f, "cpu_op", "aten::mm", 100, 3, t + 50 * s, 20 * s, -1, -1);
	ev(f, "cpu_op", "aten::empty", 100, 3, t + 51 * s, 2 * s, -1, -1);
	launch_kernel(f, 3, t + 60 * s, 2 * s, "gemm_kernel", t + 100 * s, 8 * s, corr);
	launch_kernel(f, 4, t + 10 * s, 2 * s, "orphan_kernel", t + 12 * s, 2 * s, corr);
}

static void mem(FILE *f, int kind, double ts, long bytes, long total, long addr)
{
	fprintf(f, ",\n  {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 100, \"tid\": 1, \"ts\": %.0f, "
		"\"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": %ld", ts, bytes);
	if (kind == 1)
		fprintf(f, ", \"Addr\": %ld, \"Total Allocated\": %ld, \"Total Reserved\": 4194304", addr, total);
	fputs("}}", f);
}

/* --memory: +1 MiB, +2 MiB, -1 MiB, -2 MiB on GPU 0 within the step at T. */
static void memory(FILE *f, int kind, double t, double s)
{
	const long mib = 1048576;
	mem(f, kind, t + 21 * s, mib, mib, 4096);
	mem(f, kind, t + 30 * s, 2 * mib, 3 * mib, 8192);
	mem(f, kind, t + 50 * s, -mib, 2 * mib, 4096);
	mem(f, kind, t + 70 * s, -2 * mib, 0, 8192);
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
	if (o->ops)
		ops(f, t, s, corr);
	if (o->memory)
		memory(f, o->memory, t, s);
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
	double t = o.start, period = 100 * o.scale + 10;
	long corr = 1;
	for (int i = 0; i < o.steps; i++, t += period + (o.tail * o.scale))
		step(f, &o, o.first + i, t, 1, &corr);
	if (o.drop_last)
		step(f, &o, o.first + o.steps, t, 0, &corr);
	fputs("\n ]\n}\n", f);
	return fclose(f) ? 1 : 0;
}
