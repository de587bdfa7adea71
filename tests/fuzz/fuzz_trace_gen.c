/* fuzz_trace_gen.c - libFuzzer target: the input drives a trace JSON writer (TF, JAX and PyTorch/Kineto shapes, hostile numbers and names), read and then analyzed as report does. */
#include "fuzz_analyze.h"
#include "formats/in/trace_json.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"ProfilerStep#1", "ProfilerStep#2", "cudaLaunchKernel", "cudaMemcpyAsync", "aten::conv2d", "aten::mm",
	"volta_sgemm_128x64_nn", "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "ncclKernel_AllReduce",
	"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "Optimizer.step#SGD.step", "train 3",
	"TraceContext", "model/dense/MatMul:MatMul", "SessionRun", "fusion.3", "thread_name", "process_name",
	"process_sort_index", "ac2g", "ncclAllReduce", "cudaStreamSynchronize",
};
static const char *const cats[] = {
	"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cpu_op", "user_annotation", "python_function",
	"cuda_driver", "ac2g", "Trace", "gpu_user_annotation", "",
};
static const char *const phases[] = {"X", "X", "X", "B", "E", "i", "I", "C", "M", "b", "e", "s", "f", "n", "R", "?"};
static const char *const arg_keys[] = {
	"correlation", "External id", "device", "stream", "grid", "block", "registers per thread",
	"shared memory", "est. achieved occupancy %", "bytes", "memory bandwidth (GB/s)", "name", "step_num",
	"group_id", "Sequence number", "Fwd thread id", "labels", "sort_index",
};
/* Numbers as text: the reader turns them into exact picoseconds without a double. */
static const char *const numbers[] = {
	"0", "-0", "1", "-1", "0.5", "1e3", "1.5e-3", "4.9e-324", "1e308", "-1e308", "1e300", "9223372036854775807",
	"-9223372036854775808", "9223372036854775808", "18446744073709551616", "2147483647", "-2147483648",
	"9007199254740993", "123456789012.345678", "1E+2", "0.0000001",
};

#define N(a) (sizeof a / sizeof *a)

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

/* A JSON string of a name, escaped as JSON needs; raw bytes (invalid UTF-8) kept. */
static void put_str(FILE *o, const char *s, size_t len)
{
	fputc('"', o);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			fprintf(o, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(o, "\\u%04x", ch);
		else
			fputc(ch, o);
	}
	fputc('"', o);
}

static void put_name(struct fz *f, FILE *o, const char *const *words, size_t n)
{
	char b[256];
	size_t len = fz_name(f, words, n, b, sizeof b);
	put_str(o, b, len);
}

static void put_number(struct fz *f, FILE *o)
{
	uint8_t k = fz_u8(f);
	if (k < 96)
		fputs(numbers[k % N(numbers)], o);
	else if (k < 224)
		fprintf(o, "%u", fz_u8(f) * 100u + fz_u8(f));
	else
		fprintf(o, "%lld", (long long)fz_int(f));
}

static void put_event(struct fz *f, FILE *o)
{
	const char *ph = phases[fz_pick(f, N(phases))];
	fprintf(o, "{\"ph\":\"%s\",\"name\":", ph);
	put_name(f, o, names, N(names));
	fputs(",\"cat\":", o);
	put_name(f, o, cats, N(cats));
	fputs(",\"pid\":", o);
	fz_pick(f, 3) ? (void)fprintf(o, "%u", (unsigned)fz_pick(f, 4)) : put_number(f, o);
	fputs(",\"tid\":", o);
	fz_pick(f, 3) ? (void)fprintf(o, "%u", (unsigned)fz_pick(f, 6)) : put_number(f, o);
	fputs(",\"ts\":", o);
	fz_pick(f, 3) ? (void)fprintf(o, "%u.%u", fz_u8(f) * 10u, (unsigned)fz_pick(f, 256)) : put_number(f, o);
	if (fz_pick(f, 4)) {
		fputs(",\"dur\":", o);
		fz_pick(f, 3) ? (void)fprintf(o, "%u", fz_u8(f)) : put_number(f, o);
	}
	if (fz_pick(f, 4) == 0) {
		fputs(",\"id\":", o);
		put_number(f, o);
	}
	if (fz_pick(f, 2)) {
		fputs(",\"args\":{", o);
		for (size_t k = fz_pick(f, 5); k; k--) {
			put_name(f, o, arg_keys, N(arg_keys));
			fputc(':', o);
			switch (fz_pick(f, 4)) {
			case 0: put_name(f, o, names, N(names)); break;
			case 1: fputs("[1,2,3]", o); break;
			default: put_number(f, o); break;
			}
			if (k > 1)
				fputc(',', o);
		}
		fputc('}', o);
	}
	fputc('}', o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size, 0};
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);
	if (!o)
		abort();
	bool bare = fz_pick(&f, 8) == 0;
	if (!bare) {
		fputs("{", o);
		if (fz_pick(&f, 2))
			fputs("\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\",\"computeMajor\":8,"
			      "\"computeMinor\":0,\"totalMemory\":1e12,\"numSms\":108}],", o);
		if (fz_pick(&f, 2)) {
			fputs("\"displayTimeUnit\":\"ns\",\"host_name\":", o);
			put_name(&f, o, names, N(names));
			fputc(',', o);
		}
		fputs("\"traceEvents\":", o);
	}
	fputc('[', o);
	for (size_t n = fz_u8(&f) % 120; n; n--) {
		put_event(&f, o);
		if (n > 1)
			fputs(fz_pick(&f, 16) ? "," : ",\n   ", o);
	}
	fputc(']', o);
	if (!bare)
		fputc('}', o);
	fclose(o);
	struct xp_capture *c = xp_capture_new();
	/* a tiny window now and then: the refills must not matter */
	struct xp_json_opts jo = {.max_bytes = 1 << 24, .threads = 1, .window = fz_pick(&f, 4) ? 0 : 64};
	struct xp_err err;
	memset(&err, 0, sizeof err);
	if (xp_read_trace_json_mem(c, "fuzz.trace.json", (const uint8_t *)text, len, &jo, &err) == 0)
		fuzz_analyze_capture(c);
	else if (err.status != XP_EXIT_BAD_INPUT || !err.msg[0])
		abort();
	xp_capture_free(c);
	free(text);
	return 0;
}
