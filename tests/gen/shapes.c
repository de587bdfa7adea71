// shapes.c - xpgen's capture-shape variants: diverse, dynamic-shapes and many-hosts.
//
// The simulated CNN in xpgen.c has one shape: 30 ops, 20 kernels, one launch configuration per kernel. Captures
// users bring differ in shape: many host threads, 8 GPUs with several streams, hundreds of ops and kernels, and a
// launch configuration (kernel_details) that varies per launch (dynamic shapes, autotuning, several models in one
// process). These variants exist to keep xpstat's costs honest on such shapes; the workload is regular on purpose.
//
// Time is cut into ticks of 10 us and steps of 100 ticks. On each tick every GPU stream runs one kernel; what it is
// (op, kernel name, launch configuration, duration) is a hash of (host, stream, tick), so the host launch lines and
// the GPU stream lines can be written independently and still agree. Every line is generated twice, once to count
// its bytes (the protobuf length prefixes come first) and once to write it, so memory does not grow with the file.

#include "shapes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NOPS 504
#define NKERN 330
#define NCFG 400
#define NPAIRS 1000
#define NALC 8
#define NEXEC 8
#define STREAMS 4
#define TPS 100                   /* ticks per step */
#define US 1000000LL              /* picoseconds */
#define TICK (10 * US)
#define T0_NS 1700000000000000000LL

/* ------------------------------------------------------------------ */
/* output: a sink that counts, and writes when it has a file           */

struct sink {
	FILE *f;
	uint64_t n;
	const char *path;
};

static void die_io(const char *path)
{
	fprintf(stderr, "xpgen: %s: %s\n", path, strerror(errno));
	exit(1);
}

static void put(struct sink *s, const void *p, size_t n)
{
	s->n += n;
	if (s->f && fwrite(p, 1, n, s->f) != n)
		die_io(s->path);
}

static size_t varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

static unsigned vlen(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

/* a message built in memory: events, stats, metadata entries (all small) */
struct buf {
	uint8_t *b;
	size_t n, cap;
};

static void b_need(struct buf *m, size_t add)
{
	if (m->n + add <= m->cap)
		return;
	m->cap = (m->n + add) * 2 + 256;
	m->b = realloc(m->b, m->cap);
	if (!m->b) {
		fputs("xpgen: out of memory\n", stderr);
		exit(1);
	}
}

static void b_tagv(struct buf *m, unsigned tag, uint64_t v)
{
	b_need(m, 11);
	m->b[m->n++] = (uint8_t)tag;
	m->n += varint(m->b + m->n, v);
}

static void b_bytes(struct buf *m, unsigned tag, const void *p, size_t len)
{
	b_tagv(m, tag, len);
	b_need(m, len);
	memcpy(m->b + m->n, p, len);
	m->n += len;
}

static void b_str(struct buf *m, unsigned tag, const char *s) { b_bytes(m, tag, s, strlen(s)); }
static void b_sub(struct buf *m, unsigned tag, const struct buf *sub) { b_bytes(m, tag, sub->b, sub->n); }

/* ------------------------------------------------------------------ */
/* events                                                              */

struct ev {
	struct buf m, st;
};

static void ev_begin(struct ev *e, int64_t md, int64_t off_ps, int64_t dur_ps)
{
	e->m.n = 0;
	b_tagv(&e->m, 0x08, (uint64_t)md);
	b_tagv(&e->m, 0x10, (uint64_t)off_ps);
	if (dur_ps)
		b_tagv(&e->m, 0x18, (uint64_t)dur_ps);
}

static void ev_stat(struct ev *e, int64_t sid, unsigned tag, uint64_t v)
{
	e->st.n = 0;
	b_tagv(&e->st, 0x08, (uint64_t)sid);
	b_tagv(&e->st, tag, v);
	b_sub(&e->m, 0x22, &e->st);
}

static void ev_i64(struct ev *e, int64_t sid, int64_t v) { ev_stat(e, sid, 0x20, (uint64_t)v); }
static void ev_u64(struct ev *e, int64_t sid, uint64_t v) { ev_stat(e, sid, 0x18, v); }
static void ev_ref(struct ev *e, int64_t sid, int64_t v) { ev_stat(e, sid, 0x38, (uint64_t)v); }

static void ev_dbl(struct ev *e, int64_t sid, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	e->st.n = 0;
	b_tagv(&e->st, 0x08, (uint64_t)sid);
	b_need(&e->st, 9);
	e->st.b[e->st.n++] = 0x11;
	for (int i = 0; i < 8; i++)
		e->st.b[e->st.n++] = (uint8_t)(u >> (8 * i));
	b_sub(&e->m, 0x22, &e->st);
}

/* ------------------------------------------------------------------ */
/* the model of one host                                               */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t hash3(uint64_t seed, uint64_t a, uint64_t b) { return mix64(mix64(seed ^ a) ^ b); }

enum hsid { HS_STEP_NUM = 1, HS_R, HS_ID, HS_PT, HS_P, HS_ITER, HS_CT, HS_C, HS_CORR, HS_DEVICE, HS_ALC, HS_RESERVED,
	    HS_ALLOCATED, HS_AVAILABLE, HS_FRAG, HS_PEAK, HS_REQ, HS_ABYTES, HS_ADDR, HS_ELEMENT, HS_PARENT, HS_BUFLIM,
	    HS_PID, HS_STR0 };
static const char *const HS_NAMES[] = {NULL, "step_num", "_r", "id", "_pt", "_p", "iter_num", "_ct", "_c",
				       "correlation_id", "device_id", "allocator_name", "bytes_reserved", "bytes_allocated",
				       "bytes_available", "fragmentation", "peak_bytes_in_use", "requested_bytes",
				       "allocation_bytes", "addr", "element_id", "parent_id", "buffer_limit", "process_id"};

enum hev { HE_TRAIN = 1, HE_FRUN, HE_PROCESS, HE_LAUNCH, HE_ALLOC, HE_DEALLOC, HE_GETNEXT, HE_PREFETCH, HE_PCONSUME,
	   HE_PPRODUCE, HE_BATCH, HE_MAP, HE_MCONSUME, HE_MPRODUCE, HE_TFRECORD, HE_POLL, HE_GETNEXT_OP, HE_OP0 = 100 };
static const char *const HE_NAMES[] = {NULL, "train", "FunctionRun", "ExecutorState::Process", "cuLaunchKernel",
				       "MemoryAllocation", "MemoryDeallocation", "IteratorGetNextOp::DoCompute",
				       "Iterator::Prefetch", "PrefetchConsume", "PrefetchProduce", "Iterator::Prefetch::BatchV2",
				       "Iterator::Prefetch::BatchV2::ParallelMapV2", "ParallelMapConsume", "ParallelMapProduce",
				       "Iterator::Prefetch::BatchV2::ParallelMapV2::TFRecord", "EventMgr::PollEvents",
				       "IteratorGetNext:IteratorGetNext"};
#define NHE ((int)(sizeof HE_NAMES / sizeof HE_NAMES[0]))

enum gsid { GS_CORR = 1, GS_KDET, GS_TFOP, GS_VENDOR, GS_DEVNAME, GS_CLOCK, GS_CORES, GS_BW, GS_MEM, GS_CCMAJ, GS_CCMIN,
	    GS_STR0 = 20 };
static const char *const GS_NAMES[] = {NULL, "correlation_id", "kernel_details", "tf_op", "device_vendor",
				       "gpu_device_name", "clock_rate", "core_count", "memory_bandwidth", "memory_size",
				       "compute_cap_major", "compute_cap_minor"};

enum role { R_PY, R_LAUNCH, R_EXEC, R_GETNEXT, R_RESOURCE, R_POOL, R_EVMGR, R_STREAM };

struct model {
	enum shape_kind kind;
	uint64_t seed;
	int gpus;
	int64_t ticks;
	char *op[NOPS], *op_type[NOPS], *kern[NKERN], *cfg[NCFG];
	int pair_op[NPAIRS], pair_kern[NPAIRS], pair_shapes[NPAIRS], pair_cfg0[NPAIRS];
	uint64_t events, kernels;
};

static char *sfmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *sfmt(const char *f, ...)
{
	va_list ap;
	char *s;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		exit(1);
	va_end(ap);
	return s;
}

static const char *const OP_TYPES[] = {"MatMul", "Conv2D", "BiasAdd", "Relu", "Mul", "AddV2", "Cast", "Softmax",
				       "Sum", "Mean", "Transpose", "Reshape", "ConcatV2", "Conv2DBackpropInput",
				       "Conv2DBackpropFilter", "ReluGrad", "BiasAddGrad", "FusedBatchNormV3",
				       "FusedBatchNormGradV3", "ResourceApplyAdam", "Tile", "GatherV2", "Sqrt", "RealDiv"};
#define NTYPES ((int)(sizeof OP_TYPES / sizeof OP_TYPES[0]))

/* kernel name templates: Tensor Core GEMMs, plain GEMMs, Eigen and TF kernels, cuDNN */
static char *kernel_name(int k)
{
	int v = k / 7, a = 32 << (v % 3), b = 32 << ((v / 3) % 3);
	static const char *const EIGEN_OPS[] = {"sum", "product", "max", "difference", "quotient", "exp", "sqrt"};
	switch (k % 7) {
	case 0: return sfmt("ampere_fp16_s16816gemm_fp16_%dx%d_ldg8_f2f_stages_32x%d_nn", a, b, 3 + v % 4);
	case 1: return sfmt("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize%dx%dx32_stage%d_warpsize2x2x1_tensor16x8x16_kernel",
			    a, b, 3 + v % 5);
	case 2: return sfmt("ampere_sgemm_%dx%d_%s_v%d", a, b, v % 2 ? "nt" : "nn", v);
	case 3: return sfmt("void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<"
			    "Eigen::Tensor<float, %d, 1, long>, 16, Eigen::MakePointer>, Eigen::TensorCwiseBinaryOp<"
			    "Eigen::internal::scalar_%s_op<float const, float const>, Eigen::TensorMap<Eigen::Tensor<float const, "
			    "%d, 1, long>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long>(long)",
			    1 + v % 4, EIGEN_OPS[v % 7], 1 + v % 4);
	case 4: return sfmt("void tensorflow::functor::BlockReduceKernel<float*, float*, %d, tensorflow::functor::Sum<float> >"
			    "(float*, float*, int, tensorflow::functor::Sum<float>, float)", 64 << (v % 4));
	case 5: return sfmt("void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, %d, false, false, "
			    "true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, "
			    "int, float, float, int, float const*, float const*, bool, int, int)", v);
	default: return sfmt("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v%d", v);
	}
}

static char *launch_cfg(uint64_t seed, int c)
{
	uint64_t h = hash3(seed, 0xcf9, (uint64_t)c);
	int regs = 16 + (int)(h % 240), sshm = (int)((h >> 8) % 4) * 4096, dshm = (int)((h >> 12) % 5) * 8192;
	int gx = 1 + (int)((h >> 16) % 2048), gy = 1 + (int)((h >> 28) % 4), bx = 32 << ((h >> 32) % 6);
	double occ = (double)(1 + (h >> 40) % 16) * 6.25;
	return sfmt("regs:%d static_shared:%d dynamic_shared:%d grid:%d,%d,1 block:%d,1,1 occ_pct:%g", regs, sshm, dshm,
		    gx, gy, bx, occ);
}

static void model_init(struct model *m, enum shape_kind kind, uint64_t seed, int gpus)
{
	memset(m, 0, sizeof *m);
	m->kind = kind;
	m->seed = seed;
	m->gpus = gpus;
	for (int i = 0; i < NOPS; i++) {
		m->op_type[i] = sfmt("%s", OP_TYPES[hash3(seed, 0x07, (uint64_t)i) % NTYPES]);
		m->op[i] = sfmt("model_%d/block_%02d/layer_%d/%s", i % 3, i / 12, i % 12, m->op_type[i]);
	}
	for (int k = 0; k < NKERN; k++)
		m->kern[k] = kernel_name(k);
	for (int c = 0; c < NCFG; c++)
		m->cfg[c] = launch_cfg(seed, c);
	/* dynamic shapes: each op launches its own few kernels, each (kernel, op) pair with 1-50 launch shapes */
	for (int p = 0; p < NPAIRS; p++) {
		uint64_t h = hash3(seed, 0x9a1, (uint64_t)p);
		m->pair_op[p] = p % NOPS;
		m->pair_kern[p] = (int)(h % NKERN);
		m->pair_shapes[p] = 1 + (int)((h >> 20) % 50);
		m->pair_cfg0[p] = (int)((h >> 40) % NCFG);
	}
}

static void model_free(struct model *m)
{
	for (int i = 0; i < NOPS; i++)
		free(m->op[i]), free(m->op_type[i]);
	for (int k = 0; k < NKERN; k++)
		free(m->kern[k]);
	for (int c = 0; c < NCFG; c++)
		free(m->cfg[c]);
}

/* what stream q runs on tick i */
struct kernel { int op, kern, cfg; int64_t dur; };

static struct kernel kernel_at(const struct model *m, int q, int64_t i)
{
	uint64_t h = hash3(m->seed, (uint64_t)q + 1, (uint64_t)i);
	struct kernel k;
	if (m->kind == SHAPE_DIVERSE) { /* ops and kernels paired at random, a launch shape drawn per launch */
		k.op = (int)(h % NOPS);
		k.kern = (int)((h >> 16) % NKERN);
		k.cfg = (int)((h >> 32) % NCFG);
	} else {
		int p = (int)(h % NPAIRS);
		k.op = m->pair_op[p];
		k.kern = m->pair_kern[p];
		k.cfg = (m->pair_cfg0[p] + 7 * (int)((h >> 32) % (uint64_t)m->pair_shapes[p])) % NCFG;
	}
	k.dur = US / 2 + (int64_t)((h >> 48) % (uint64_t)(8 * US));
	return k;
}

static uint64_t corr_id(int q, int64_t i) { return ((uint64_t)(q + 1) << 32) | (uint64_t)i; }

/* stream q's place among the 8 streams that one launch line serves: its kernels are staggered by it */
static int64_t stagger(int q) { return (q % 8) * 9 * US / 10; }

/* ------------------------------------------------------------------ */
/* host lines                                                          */

struct gen {
	const struct model *m;
	struct sink *s;
	struct ev e;
	uint64_t events;
};

static void emit(struct gen *g)
{
	uint8_t hdr[11];
	hdr[0] = 0x22;
	size_t n = 1 + varint(hdr + 1, g->e.m.n);
	put(g->s, hdr, n);
	put(g->s, g->e.m.b, g->e.m.n);
	g->events++;
}

static void em_step_root(struct gen *g, int64_t k)
{
	ev_begin(&g->e, HE_TRAIN, k * TPS * TICK, TPS * TICK - US / 5);
	ev_i64(&g->e, HS_STEP_NUM, k);
	ev_i64(&g->e, HS_R, 1);
	emit(g);
	ev_begin(&g->e, HE_FRUN, k * TPS * TICK + US / 10, TPS * TICK - 2 * US / 5);
	ev_i64(&g->e, HS_ID, k + 1);
	ev_i64(&g->e, HS_R, 1);
	ev_i64(&g->e, HS_PT, 2);
	ev_u64(&g->e, HS_P, (uint64_t)k + 1);
	emit(g);
}

static void em_process(struct gen *g, int64_t k)
{
	ev_begin(&g->e, HE_PROCESS, k * TPS * TICK + US / 5, TPS * TICK - 2 * US / 5);
	ev_i64(&g->e, HS_ID, k + 1);
	ev_i64(&g->e, HS_ITER, 0);
	ev_i64(&g->e, HS_CT, 2);
	ev_u64(&g->e, HS_C, (uint64_t)k + 1);
	emit(g);
}

static void line_python(struct gen *g)
{
	for (int64_t k = 0; k < g->m->ticks / TPS; k++)
		em_step_root(g, k);
}

/* launch line L: the op that launches each kernel of GPUs 2L and 2L+1, and the launch inside it */
static void line_launch(struct gen *g, int L)
{
	const struct model *m = g->m;
	for (int64_t i = 0; i < m->ticks; i++) {
		if (i % TPS == 0)
			em_process(g, i / TPS);
		for (int q = 8 * L; q < 8 * L + 8 && q < m->gpus * STREAMS; q++) {
			struct kernel k = kernel_at(m, q, i);
			int64_t t = i * TICK + US + stagger(q);
			ev_begin(&g->e, HE_OP0 + k.op, t - US / 10, 7 * US / 10);
			emit(g);
			ev_begin(&g->e, HE_LAUNCH, t, US / 2);
			ev_u64(&g->e, HS_CORR, corr_id(q, i));
			ev_u64(&g->e, HS_DEVICE, (uint64_t)(q / STREAMS));
			emit(g);
		}
	}
}

struct alc_state { int64_t inuse, peak, reserved; };

static void em_mem(struct gen *g, bool alloc, int64_t t, int a, const struct alc_state *s, int64_t bytes, int64_t addr)
{
	ev_begin(&g->e, alloc ? HE_ALLOC : HE_DEALLOC, t, 0);
	ev_ref(&g->e, HS_ALC, HS_STR0 + a);
	ev_i64(&g->e, HS_RESERVED, s->reserved);
	ev_i64(&g->e, HS_ALLOCATED, s->inuse);
	ev_i64(&g->e, HS_AVAILABLE, (1LL << 34) - s->inuse);
	ev_dbl(&g->e, HS_FRAG, (double)((s->inuse >> 12) % 97) / 1000.0);
	ev_i64(&g->e, HS_PEAK, s->peak);
	ev_i64(&g->e, HS_REQ, bytes - 64);
	ev_i64(&g->e, HS_ABYTES, bytes);
	ev_i64(&g->e, HS_ADDR, addr);
	emit(g);
}

/* an executor thread: CPU-side ops, each allocating a buffer from its allocator and freeing it */
static void line_exec(struct gen *g, int x)
{
	const struct model *m = g->m;
	struct alc_state s = {1LL << 28, 1LL << 28, 1LL << 20};
	for (int64_t i = 0; i < m->ticks; i++) {
		if (i % TPS == 0) {
			em_process(g, i / TPS);
			if (x == 0) {
				ev_begin(&g->e, HE_GETNEXT_OP, i * TICK + 3 * US / 10, US / 2);
				emit(g);
			}
		}
		uint64_t h = hash3(m->seed, 0xe0 + (uint64_t)x, (uint64_t)i);
		int64_t t = i * TICK + US, d = 2 * US + (int64_t)((h >> 20) % (6 * US));
		int64_t bytes = 256 << ((h >> 44) % 16), addr = 0x7f0000000000LL + (int64_t)((h >> 8) % 4096) * 65536;
		ev_begin(&g->e, HE_OP0 + (int)(h % NOPS), t, d);
		emit(g);
		s.inuse += bytes;
		s.peak = s.inuse > s.peak ? s.inuse : s.peak;
		em_mem(g, true, t + US / 10, x % NALC, &s, bytes, addr);
		s.inuse -= bytes;
		em_mem(g, false, t + d - US / 10, x % NALC, &s, bytes, addr);
	}
}

static void em_el(struct gen *g, int md, int64_t t, int64_t d, int64_t el)
{
	ev_begin(&g->e, md, t, d);
	ev_i64(&g->e, HS_ELEMENT, el);
	emit(g);
}

static void em_iter(struct gen *g, int md, int64_t t, int64_t d, int64_t id, int64_t parent)
{
	ev_begin(&g->e, md, t, d);
	ev_i64(&g->e, HS_ID, id);
	ev_i64(&g->e, HS_PARENT, parent);
	emit(g);
}

enum { PREFETCH_ID = 0x1001, BATCH_ID, MAP_ID, TFRECORD_ID };

/* tf.data: the consumer takes one batch per step; a producer builds the next from 4 mapped elements */
static void line_tfdata(struct gen *g, int role, int j0)
{
	for (int64_t k = 0; k < g->m->ticks / TPS; k++) {
		int64_t s = k * TPS * TICK;
		if (role == R_GETNEXT) {
			ev_begin(&g->e, HE_GETNEXT, s + 3 * US / 10, US / 2);
			ev_i64(&g->e, HS_ID, k + 1);
			ev_i64(&g->e, HS_ITER, 0);
			emit(g);
			ev_begin(&g->e, HE_PREFETCH, s + 35 * US / 100, 3 * US / 10);
			ev_i64(&g->e, HS_ID, PREFETCH_ID);
			ev_i64(&g->e, HS_BUFLIM, 2);
			emit(g);
			em_el(g, HE_PCONSUME, s + 7 * US / 10, US / 20, k);
		} else if (role == R_RESOURCE) {
			em_el(g, HE_PPRODUCE, s + 10 * US, 400 * US, k + 1);
			em_iter(g, HE_BATCH, s + 11 * US, 398 * US, BATCH_ID, PREFETCH_ID);
			for (int j = 0; j < 4; j++) {
				int64_t t = s + 100 * US * (j + 1);
				em_iter(g, HE_MAP, t - 15 * US, 16 * US, MAP_ID, BATCH_ID);
				em_el(g, HE_MCONSUME, t + US, US / 2, (k + 1) * 4 + j);
			}
		} else {
			for (int j = j0; j < 4; j += 2) {
				int64_t t = s + 100 * US * (j + 1);
				em_el(g, HE_MPRODUCE, t - 30 * US, 29 * US, (k + 1) * 4 + j);
				em_iter(g, HE_TFRECORD, t - 29 * US, 5 * US, TFRECORD_ID, MAP_ID);
			}
		}
	}
}

static void line_evmgr(struct gen *g, int x)
{
	for (int64_t i = x; i < g->m->ticks; i += 10) {
		ev_begin(&g->e, HE_POLL, i * TICK + 2 * US, US);
		emit(g);
	}
}

/* GPU stream q: a kernel per tick */
static void line_stream(struct gen *g, int q)
{
	const struct model *m = g->m;
	for (int64_t i = 0; i < m->ticks; i++) {
		struct kernel k = kernel_at(m, q, i);
		ev_begin(&g->e, 1 + k.kern, i * TICK + 3 * US + stagger(q), k.dur);
		ev_u64(&g->e, GS_CORR, corr_id(q, i));
		ev_ref(&g->e, GS_KDET, GS_STR0 + k.cfg);
		ev_ref(&g->e, GS_TFOP, GS_STR0 + NCFG + k.op);
		emit(g);
	}
}

struct line { int role, x; int64_t id; char name[64]; };

static void gen_line(struct gen *g, const struct line *l)
{
	switch (l->role) {
	case R_PY: line_python(g); break;
	case R_LAUNCH: line_launch(g, l->x); break;
	case R_EXEC: line_exec(g, l->x); break;
	case R_GETNEXT: case R_RESOURCE: case R_POOL: line_tfdata(g, l->role, l->x); break;
	case R_EVMGR: line_evmgr(g, l->x); break;
	default: line_stream(g, l->x); break;
	}
}

/* ------------------------------------------------------------------ */
/* planes                                                              */

static int host_lines(const struct model *m, struct line *ln)
{
	int n = 0;
	uint64_t tid = hash3(m->seed, 0x71d, 0) % 100000 + 1000;
	ln[n++] = (struct line){R_PY, 0, (int64_t)tid, "python3"};
	for (int L = 0; L < (m->gpus + 1) / 2; L++)
		ln[n] = (struct line){R_LAUNCH, L, (int64_t)(tid + 1 + (uint64_t)L), ""},
		snprintf(ln[n].name, sizeof ln[n].name, "tf_gpu_private_%d/%" PRId64, L, ln[n].id), n++;
	static const struct { int role, count; const char *pool; } POOLS[] = {
		{R_EXEC, NEXEC, "tf_Compute"}, {R_GETNEXT, 1, "tf_data_iterator_get_next"},
		{R_RESOURCE, 1, "tf_data_iterator_resource"}, {R_POOL, 2, "tf_data_private_threadpool"},
		{R_EVMGR, 3, "tf_GPU_Event_Manager"}};
	for (size_t p = 0; p < sizeof POOLS / sizeof POOLS[0]; p++)
		for (int x = 0; x < POOLS[p].count; x++, n++) {
			ln[n] = (struct line){POOLS[p].role, x, (int64_t)(tid + 100 + (uint64_t)n), ""};
			snprintf(ln[n].name, sizeof ln[n].name, "%s/%" PRId64, POOLS[p].pool, ln[n].id);
		}
	return n;
}

static int gpu_lines(int gpu, struct line *ln)
{
	for (int s = 0; s < STREAMS; s++) {
		int64_t id = 7 + 10 * gpu + s;
		ln[s] = (struct line){R_STREAM, gpu * STREAMS + s, id, ""};
		snprintf(ln[s].name, sizeof ln[s].name, "Stream #%" PRId64 "(Compute)", id);
	}
	return STREAMS;
}

static void md_entry(struct buf *out, unsigned tag, int64_t id, const char *name, const char *disp)
{
	struct buf v = {0}, e = {0};
	b_tagv(&v, 0x08, (uint64_t)id);
	b_str(&v, 0x12, name);
	if (disp)
		b_str(&v, 0x22, disp);
	b_tagv(&e, 0x08, (uint64_t)id);
	b_sub(&e, 0x12, &v);
	b_sub(out, tag, &e);
	free(v.b);
	free(e.b);
}

static void pstat(struct buf *out, int64_t sid, unsigned tag, uint64_t v, const char *s)
{
	struct buf st = {0};
	b_tagv(&st, 0x08, (uint64_t)sid);
	if (s)
		b_str(&st, tag, s);
	else
		b_tagv(&st, tag, v);
	b_sub(out, 0x32, &st);
	free(st.b);
}

/* the host plane's metadata and stats, after its lines */
static void host_tail(const struct model *m, struct buf *t, int64_t pid)
{
	for (int i = 1; i < NHE; i++)
		md_entry(t, 0x22, i, HE_NAMES[i], NULL);
	for (int i = 0; i < NOPS; i++) {
		char *full = sfmt("%s:%s", m->op[i], m->op_type[i]);
		md_entry(t, 0x22, HE_OP0 + i, full, m->op_type[i]);
		free(full);
	}
	for (int i = 1; i < HS_STR0; i++)
		md_entry(t, 0x2A, i, HS_NAMES[i], NULL);
	for (int a = 0; a < NALC; a++) {
		char name[32];
		snprintf(name, sizeof name, "GPU_%d_bfc", a);
		md_entry(t, 0x2A, HS_STR0 + a, name, NULL);
	}
	pstat(t, HS_PID, 0x20, (uint64_t)pid, NULL);
}

static void gpu_tail(const struct model *m, struct buf *t)
{
	for (int k = 0; k < NKERN; k++)
		md_entry(t, 0x22, 1 + k, m->kern[k], NULL);
	for (int i = 1; i < GS_STR0 && i <= GS_CCMIN; i++)
		md_entry(t, 0x2A, i, GS_NAMES[i], NULL);
	for (int c = 0; c < NCFG; c++)
		md_entry(t, 0x2A, GS_STR0 + c, m->cfg[c], NULL);
	for (int i = 0; i < NOPS; i++) {
		char *full = sfmt("%s:%s", m->op[i], m->op_type[i]);
		md_entry(t, 0x2A, GS_STR0 + NCFG + i, full, NULL);
		free(full);
	}
	pstat(t, GS_VENDOR, 0x2A, 0, "Nvidia");
	pstat(t, GS_DEVNAME, 0x2A, 0, "NVIDIA A100-SXM4-40GB");
	pstat(t, GS_CLOCK, 0x20, 1410000, NULL);
	pstat(t, GS_CORES, 0x20, 108, NULL);
	pstat(t, GS_BW, 0x18, 1555200000000ULL, NULL);
	pstat(t, GS_MEM, 0x18, 42505273344ULL, NULL);
	pstat(t, GS_CCMAJ, 0x20, 8, NULL);
	pstat(t, GS_CCMIN, 0x20, 0, NULL);
}

static void line_head(struct buf *h, const struct line *l)
{
	h->n = 0;
	b_tagv(h, 0x08, (uint64_t)l->id);
	b_str(h, 0x12, l->name);
	b_tagv(h, 0x18, (uint64_t)T0_NS);
}

/* one plane: count every line, then write the plane with its lines regenerated */
static void plane(struct model *m, struct sink *out, int64_t id, const char *name, const struct line *ln, int nl,
		  const struct buf *tail)
{
	uint64_t *len = calloc((size_t)nl, sizeof *len), body = 0;
	struct buf head = {0}, lh = {0};
	struct gen g = {.m = m};
	for (int i = 0; i < nl; i++) {
		struct sink cnt = {0};
		g.s = &cnt;
		gen_line(&g, &ln[i]);
		line_head(&lh, &ln[i]);
		len[i] = lh.n + cnt.n;
		body += 1 + vlen(len[i]) + len[i];
	}
	b_tagv(&head, 0x08, (uint64_t)id);
	b_str(&head, 0x12, name);
	body += head.n + tail->n;
	uint8_t v[12];
	v[0] = 0x0A;
	put(out, v, 1 + varint(v + 1, body));
	put(out, head.b, head.n);
	g.s = out;
	g.events = 0;
	for (int i = 0; i < nl; i++) {
		line_head(&lh, &ln[i]);
		v[0] = 0x1A;
		put(out, v, 1 + varint(v + 1, len[i]));
		put(out, lh.b, lh.n);
		gen_line(&g, &ln[i]);
	}
	put(out, tail->b, tail->n);
	if (out->f)
		m->events += g.events;
	free(len);
	free(head.b);
	free(lh.b);
	free(g.e.m.b);
	free(g.e.st.b);
}

/* the whole XSpace of one host; with f NULL only its size is counted */
static uint64_t space(struct model *m, FILE *f, const char *path, const char *host)
{
	struct sink out = {f, 0, path};
	struct line ln[64];
	struct buf tail = {0};
	int nl = host_lines(m, ln);
	host_tail(m, &tail, ln[0].id);
	plane(m, &out, 0, "/host:CPU", ln, nl, &tail);
	tail.n = 0;
	gpu_tail(m, &tail);
	for (int gpu = 0; gpu < m->gpus; gpu++) {
		char name[32];
		snprintf(name, sizeof name, "/device:GPU:%d", gpu);
		nl = gpu_lines(gpu, ln);
		plane(m, &out, gpu, name, ln, nl, &tail);
	}
	tail.n = 0;
	b_str(&tail, 0x22, host);
	put(&out, tail.b, tail.n);
	free(tail.b);
	if (f)
		m->kernels += (uint64_t)m->ticks * (uint64_t)m->gpus * STREAMS;
	return out.n;
}

/* the file grows linearly with the ticks: measure two small captures */
static int64_t ticks_for(struct model *m, uint64_t target)
{
	m->ticks = 2 * TPS;
	uint64_t a = space(m, NULL, "", "x");
	m->ticks = 4 * TPS;
	uint64_t b = space(m, NULL, "", "x");
	double per = (double)(b - a) / (2.0 * TPS), t = ((double)target - ((double)a - 2.0 * TPS * per)) / per;
	int64_t n = t < TPS ? TPS : (int64_t)t;
	return n - n % TPS;
}

static void write_host(struct model *m, const char *path, const char *host, uint64_t target)
{
	m->ticks = target ? ticks_for(m, target) : 4 * TPS;
	FILE *f = fopen(path, "wb");
	if (!f)
		die_io(path);
	static char iobuf[1 << 20];
	setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
	space(m, f, path, host);
	if (fclose(f))
		die_io(path);
}

static void write_truth(const struct shape_opts *o, struct model *ms, char **files, int n)
{
	static const char *const KINDS[] = {"diverse", "dynamic-shapes", "many-hosts"};
	FILE *f = fopen(o->truth, "w");
	if (!f)
		die_io(o->truth);
	uint64_t ev = 0, k = 0;
	fprintf(f, "{\n  \"schema\": \"xpgen-shapes-truth/1\",\n  \"generator\": {\"variant\": \"%s\", \"seed\": %" PRIu64
		"},\n  \"hosts\": [\n", KINDS[o->kind], o->seed);
	for (int i = 0; i < n; i++) {
		fprintf(f, "    {\"file\": \"%s\", \"gpus\": %d, \"steps\": %" PRId64 ", \"events\": %" PRIu64
			", \"kernels\": %" PRIu64 "}%s\n", files[i], ms[i].gpus, ms[i].ticks / TPS, ms[i].events,
			ms[i].kernels, i + 1 < n ? "," : "");
		ev += ms[i].events;
		k += ms[i].kernels;
	}
	fprintf(f, "  ],\n  \"totals\": {\"events\": %" PRIu64 ", \"kernels\": %" PRIu64 "}\n}\n", ev, k);
	if (fclose(f))
		die_io(o->truth);
}

static char *host_name(const char *path)
{
	const char *b = strrchr(path, '/');
	char *n = sfmt("%s", b ? b + 1 : path);
	char *dot = strstr(n, ".xplane.pb");
	if (dot && dot != n)
		*dot = 0;
	return n;
}

void shapes_write(const struct shape_opts *o)
{
	int n = o->kind == SHAPE_MANY_HOSTS ? o->hosts : 1;
	struct model *ms = calloc((size_t)n, sizeof *ms);
	char **files = calloc((size_t)n, sizeof *files);
	if (!ms || !files)
		exit(1);
	if (n > 1 && mkdir(o->out, 0755) && errno != EEXIST)
		die_io(o->out);
	for (int i = 0; i < n; i++) {
		/* many hosts: 2 GPUs each and kernels paired with their ops, the file split evenly */
		model_init(&ms[i], o->kind, mix64(o->seed * 0x2545f4914f6cdd1dULL + (uint64_t)i + 1),
			   o->kind == SHAPE_MANY_HOSTS ? 2 : 8);
		char *name = n > 1 ? sfmt("worker-%d", i) : o->host ? sfmt("%s", o->host) : host_name(o->out);
		files[i] = n > 1 ? sfmt("%s/%s.xplane.pb", o->out, name) : sfmt("%s", o->out);
		write_host(&ms[i], files[i], name, o->target / (uint64_t)n);
		free(name);
	}
	if (o->truth)
		write_truth(o, ms, files, n);
	for (int i = 0; i < n; i++)
		model_free(&ms[i]), free(files[i]);
	free(ms);
	free(files);
}
