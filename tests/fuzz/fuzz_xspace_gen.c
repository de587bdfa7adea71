/* fuzz_xspace_gen.c - libFuzzer target: the input drives a capture builder (tests/unit/xsbuild.h), so that every run is a well-formed XSpace of hostile values, read and then analyzed as report does. */
#include "fuzz_analyze.h"
#include "../unit/xsbuild.h"
#include "formats/in/xplane_read.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const planes[] = {
	"/host:CPU", "/device:GPU:0", "/device:GPU:1", "/device:TPU:0", "/host:metadata", "/device:CUSTOM:x",
	"/device:GPU:0 (pid 7)",
};
static const char *const lines[] = {
	"python", "tf_Compute", "Stream #1(MemcpyHtoD)", "Stream #2(Compute)", "TensorFlow Ops", "XLA Ops",
	"Steps", "Task Environment", "XLA Modules", "Framework Name Scope", "tf_data_iterator_get_next",
};
static const char *const events[] = {
	"TraceContext", "SessionRun", "ExecutorState::Process", "FunctionRun", "MemoryAllocation",
	"MemoryDeallocation", "IteratorGetNext", "Iterator::Prefetch", "Iterator::Model::ParallelMap",
	"IteratorGetNextOp::DoCompute", "model/dense/MatMul:MatMul", "model/dense/BiasAdd:BiasAdd",
	"volta_sgemm_128x64_nn", "Memcpy HtoD", "Memcpy DtoH", "cudaLaunchKernel", "EagerKernelExecute",
	"train 3", "ThreadpoolListener::StartRegion", "PjRtStreamExecutorLoadedExecutable::ExecuteHelper",
	"fusion.1", "all-reduce.2", "ncclAllReduceKernel", "RecordUsage", "Produce", "Consume",
};
static const char *const stats[] = {
	"step_num", "group_id", "correlation_id", "kernel_details", "tf_op", "bytes_allocated", "bytes_reserved",
	"allocation_bytes", "allocator_name", "region_type", "data_type", "tensor_shape", "iter_num", "element_id",
	"parent_id", "is_eager", "hlo_op", "hlo_module", "program_id", "flops", "bytes_accessed", "memcpy_details",
	"device_id", "context_id", "_r", "_p", "_c", "_pt", "_ct", "step_name", "long_name", "is_root",
	"theoretical_occupancy_pct", "bytes_available", "peak_bytes_in_use", "requested_bytes", "addr",
};
static const char *const plane_stats[] = {
	"compute_cap_major", "compute_cap_minor", "peak_teraflops_per_second", "peak_hbm_bw_gigabytes_per_second",
	"clock_rate", "core_count", "memory_bandwidth", "memory_size", "device_vendor", "devcap_clock_rate",
	"devcap_core_count", "devcap_memory_bw", "devcap_compute_cap_major", "devcap_compute_cap_minor",
	"peak_sram_rd_bw_gigabytes_per_second",
};
static const char *const strvals[] = {
	"Nvidia", "AMD", "GPU_0_bfc", "cpu", "float", "[1,2,3]",
	"regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:50",
	"kind:HtoD size:4096 dest:0 async:1", "model/conv:Conv2D", "1",
};

#define N(a) (sizeof a / sizeof *a)
#define MAX_PLANES 6
#define MAX_EVENTS 300

static void add_stat(struct fz *f, struct xsb *b, int p, int ev)
{
	char name[64], sv[256];
	fz_name(f, stats, N(stats), name, sizeof name);
	switch (fz_pick(f, 5)) {
	case 0: xsb_stat_int(b, p, ev, name, fz_int(f)); break;
	case 1: xsb_stat_uint(b, p, ev, name, (uint64_t)fz_int(f)); break;
	case 2: xsb_stat_double(b, p, ev, name, fz_double(f)); break;
	case 3: fz_name(f, strvals, N(strvals), sv, sizeof sv); xsb_stat_str(b, p, ev, name, sv); break;
	default: fz_name(f, strvals, N(strvals), sv, sizeof sv); xsb_stat_ref(b, p, ev, name, sv); break;
	}
}

static void add_plane_stat(struct fz *f, struct xsb *b, int p)
{
	char name[64], sv[256];
	fz_name(f, plane_stats, N(plane_stats), name, sizeof name);
	switch (fz_pick(f, 4)) {
	case 0: xsb_plane_stat_int(b, p, name, fz_int(f)); break;
	case 1: xsb_plane_stat_uint(b, p, name, (uint64_t)fz_int(f)); break;
	case 2: xsb_plane_stat_double(b, p, name, fz_double(f)); break;
	default: fz_name(f, strvals, N(strvals), sv, sizeof sv); xsb_plane_stat_str(b, p, name, sv); break;
	}
}

/* A plane: a few lines of events whose names, times and stats the input chooses. */
static void add_plane(struct fz *f, struct xsb *b, int *budget)
{
	char name[96];
	fz_name(f, planes, N(planes), name, sizeof name);
	int p = xsb_plane(b, name, fz_int(f));
	for (size_t k = fz_pick(f, 4); k; k--)
		add_plane_stat(f, b, p);
	for (size_t nl = 1 + fz_pick(f, 4); nl && *budget > 0; nl--) {
		fz_name(f, lines, N(lines), name, sizeof name);
		int l = xsb_line(b, p, fz_pick(f, 8), name, fz_int(f));
		for (size_t ne = fz_u8(f) % 40; ne && *budget > 0; ne--, (*budget)--) {
			fz_name(f, events, N(events), name, sizeof name);
			int64_t off = fz_pick(f, 4) ? (int64_t)fz_u8(f) * 1000 : fz_int(f);
			int64_t dur = fz_pick(f, 4) ? (int64_t)fz_u8(f) * 100 : fz_int(f);
			int ev = xsb_event(b, p, l, name, off, dur);
			for (size_t ns = fz_pick(f, 5); ns; ns--)
				add_stat(f, b, p, ev);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size, 0};
	struct xsb *b = xsb_new();
	char name[96];
	if (fz_pick(&f, 2)) {
		fz_name(&f, strvals, N(strvals), name, sizeof name);
		xsb_hostname(b, name);
	}
	if (fz_pick(&f, 4) == 0)
		xsb_keep_order(b);
	int budget = MAX_EVENTS;
	for (size_t np = 1 + fz_pick(&f, MAX_PLANES); np; np--)
		add_plane(&f, b, &budget);
	size_t len;
	uint8_t *buf = xsb_pack(b, &len);
	struct xp_capture *c = xp_capture_new();
	struct xp_read_opts ro = {.threads = 1};
	struct xp_err err;
	memset(&err, 0, sizeof err);
	if (xp_read_xspace(c, "fuzz.xplane.pb", buf, len, &ro, &err) == 0)
		fuzz_analyze_capture(c);
	else if (!err.status || !err.msg[0])
		abort();
	xp_capture_free(c);
	free(buf);
	xsb_free(b);
	return 0;
}
