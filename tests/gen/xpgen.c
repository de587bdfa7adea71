// xpgen.c - deterministic generator of realistic XSpace profiler captures (*.xplane.pb) for xpstat's fixtures, sample and benchmarks.
//
// Written for xpstat from the field table of spec/xplane-format.md (§1.2) and
// the shapes described there (§2-§4, Appendix C). Everything is derived from
// one splitmix64 stream per host, so the same arguments give the same bytes.
//
// How the file is streamed: a protobuf LEN field needs its length before its
// content, and XLines can be gigabytes long. The generator therefore runs the
// whole simulation twice. Pass 1 only counts the encoded size of every line.
// That fixes the position of every line in the file, so pass 2 can write each
// line's events straight to their final offsets (pwrite from small per-line
// buffers) while the simulation sweeps the steps once, in time order. Memory
// stays bounded by the number of lines, not by the file size.

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "shapes.h"

#define US 1000LL                 /* time unit inside the generator is ns, like the real producers */
#define MAXGPU 16
#define MAXOPS 40
#define MAXDEPTH 8
#define MAXRI 16
#define NB 4                      /* map elements per batch in the simulated tf.data pipeline */
#define LBUF (1u << 20)           /* per-line write buffer */
#define EVCAP 4096
#define STEP_LIST_MAX 10000       /* per-step truth only for captures a test would inspect */
#define DERIVED_ID (-559038737LL) /* 0xdeadbeef as a C int: the derived-line id base */

/* ------------------------------------------------------------------ */
/* errors and memory                                                   */

__attribute__((noreturn, format(printf, 2, 3)))
static void die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("xpgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die(1, "out of memory");
	return p;
}

static void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die(1, "out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(1, "out of memory");
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

__attribute__((format(printf, 1, 2)))
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		die(1, "out of memory");
	va_end(ap);
	return s;
}

/* ------------------------------------------------------------------ */
/* deterministic randomness                                            */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct rng { uint64_t s; };

static uint64_t rnext(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

/* inclusive range; the modulo bias is irrelevant for test data */
static int64_t rr(struct rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnext(r) % (uint64_t)(hi - lo + 1));
}

static int64_t jit(struct rng *r, int64_t v, int pct)
{
	return v + v * rr(r, -pct, pct) / 100;
}

/* ------------------------------------------------------------------ */
/* protobuf wire encoding                                              */

static inline unsigned vlen(uint64_t v)
{
	return v ? (unsigned)(70 - __builtin_clzll(v)) / 7 : 1;
}

static inline uint8_t *put_v(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint64_t dbl_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

static uint8_t *put_fixed64(uint8_t *p, uint64_t u)
{
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(u >> (8 * i)); /* little-endian whatever the host is */
	return p;
}

/* A growable message buffer for the small messages of the skeleton
 * (headers, metadata entries, plane stats). */
struct mb { uint8_t *b; size_t n, cap; };

static void mb_need(struct mb *m, size_t add)
{
	if (m->n + add > m->cap) {
		m->cap = (m->n + add) * 2 + 256;
		m->b = xrealloc(m->b, m->cap);
	}
}

static void mb_tagv(struct mb *m, unsigned field, uint64_t v)
{
	mb_need(m, 22);
	uint8_t *p = put_v(m->b + m->n, (uint64_t)field << 3);
	p = put_v(p, v);
	m->n = (size_t)(p - m->b);
}

/* proto3 leaves scalar fields at their default out of the encoding */
static void mb_int(struct mb *m, unsigned field, int64_t v)
{
	if (v)
		mb_tagv(m, field, (uint64_t)v);
}

static void mb_bytes(struct mb *m, unsigned field, const void *s, size_t n)
{
	mb_need(m, n + 22);
	uint8_t *p = put_v(m->b + m->n, (uint64_t)field << 3 | 2);
	p = put_v(p, n);
	memcpy(p, s, n);
	m->n = (size_t)(p - m->b) + n;
}

static void mb_str(struct mb *m, unsigned field, const char *s)
{
	if (s && *s)
		mb_bytes(m, field, s, strlen(s));
}

static void mb_sub(struct mb *m, unsigned field, const struct mb *sub)
{
	mb_bytes(m, field, sub->b, sub->n);
}

/* ------------------------------------------------------------------ */
/* metadata tables: names interned per plane, ids 1, 2, 3 ... like the  */
/* reference XPlaneBuilder                                             */

struct strtab {
	char **s;
	uint32_t *len;
	char **disp;
	size_t n, cap;
	uint32_t *ht;
	size_t hcap;
};

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
	return h;
}

static void st_rehash(struct strtab *t, size_t hcap)
{
	free(t->ht);
	t->ht = xcalloc(hcap, sizeof *t->ht);
	t->hcap = hcap;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = fnv(t->s[i], t->len[i]) & (hcap - 1);
		while (t->ht[k])
			k = (k + 1) & (hcap - 1);
		t->ht[k] = (uint32_t)(i + 1);
	}
}

static int64_t st_add_n(struct strtab *t, const char *s, size_t n)
{
	if ((t->n + 1) * 2 > t->hcap)
		st_rehash(t, t->hcap ? t->hcap * 2 : 64);
	size_t k = fnv(s, n) & (t->hcap - 1);
	while (t->ht[k]) {
		size_t i = t->ht[k] - 1;
		if (t->len[i] == n && !memcmp(t->s[i], s, n))
			return (int64_t)i + 1;
		k = (k + 1) & (t->hcap - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->s = xrealloc(t->s, t->cap * sizeof *t->s);
		t->len = xrealloc(t->len, t->cap * sizeof *t->len);
		t->disp = xrealloc(t->disp, t->cap * sizeof *t->disp);
	}
	t->s[t->n] = xstrndup(s, n);
	t->len[t->n] = (uint32_t)n;
	t->disp[t->n] = NULL;
	t->ht[k] = (uint32_t)(t->n + 1);
	return (int64_t)++t->n;
}

static int64_t st_add(struct strtab *t, const char *s)
{
	return st_add_n(t, s, strlen(s));
}

/* drops the entries added last (ids above n) */
static void st_truncate(struct strtab *t, size_t n)
{
	for (size_t i = n; i < t->n; i++) {
		free(t->s[i]);
		free(t->disp[i]);
	}
	if (n < t->n) {
		t->n = n;
		st_rehash(t, t->hcap);
	}
}

static void st_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->s[i]);
		free(t->disp[i]);
	}
	free(t->s);
	free(t->len);
	free(t->disp);
	free(t->ht);
	memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ */
/* the simulated workload: a small CNN trained with Keras/TF, and a     */
/* JAX train step. Names imitate real cuDNN/cuBLAS/Eigen/XLA kernels.   */

enum { K_CONV, K_BIAS, K_RELU, K_POOL, K_SGEMM_NN, K_SGEMM_NT, K_SGEMM_TN, K_HGEMM_NN, K_HGEMM_TN,
       K_PHILOX, K_MUL, K_CAST, K_SOFTMAX, K_XENT, K_REDUCE, K_BIASGRAD, K_RELUGRAD, K_POOLGRAD,
       K_WGRAD, K_ADAM, K_ADDI64, NK };

struct kdef {
	const char *volta, *ampere; /* name by GPU generation (grouped = V100, raw = A100) */
	int regs, sshm, dshm, g[3], b[3];
	double occ;
	int us; /* nominal duration */
};

#define EIGEN_EVAL(expr) "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<" \
	"Eigen::TensorMap<Eigen::Tensor<float, 1, 1, long>, 16, Eigen::MakePointer>, " expr " const> const, " \
	"Eigen::GpuDevice>, long>(Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<float, 1, 1, long>, " \
	"16, Eigen::MakePointer>, " expr " const> const, Eigen::GpuDevice>, long)"
#define EIGEN_IN "Eigen::TensorMap<Eigen::Tensor<float const, 1, 1, long>, 16, Eigen::MakePointer> const"

static const struct kdef KERNELS[NK] = {
	[K_CONV] = {"volta_scudnn_128x64_relu_interior_nn_v1", "ampere_scudnn_128x64_relu_interior_nn_v1",
		    126, 0, 37376, {85, 2, 1}, {128, 1, 1}, 12.5, 62},
	[K_BIAS] = {EIGEN_EVAL("Eigen::TensorCwiseBinaryOp<Eigen::internal::scalar_sum_op<float const, float const>, " EIGEN_IN ", "
			       "Eigen::TensorBroadcastingOp<Eigen::array<long, 1ul> const, " EIGEN_IN "> const>"), NULL,
		    32, 0, 0, {160, 1, 1}, {1024, 1, 1}, 100, 6},
	[K_RELU] = {EIGEN_EVAL("Eigen::TensorCwiseUnaryOp<Eigen::internal::scalar_max_op<float const, float const, 0>, " EIGEN_IN ">"),
		    NULL, 16, 0, 0, {160, 1, 1}, {1024, 1, 1}, 100, 5},
	[K_POOL] = {"void cudnn::pooling_fw_4d_kernel<float, float, cudnn::maxpooling_func<float, (cudnnNanPropagation_t)0>, 0, false>"
		    "(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, cudnnPoolingStruct, float, float, int, "
		    "cudnn::reduced_divisor, cudnn::reduced_divisor)", NULL,
		    32, 0, 0, {169, 1, 1}, {256, 1, 1}, 100, 9},
	[K_SGEMM_NN] = {"volta_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", 126, 12544, 0, {1, 4, 1}, {128, 1, 1}, 25, 18},
	[K_SGEMM_NT] = {"volta_sgemm_64x64_nt", "ampere_sgemm_64x64_nt", 126, 8192, 0, {2, 169, 1}, {64, 1, 1}, 25, 24},
	[K_SGEMM_TN] = {"volta_sgemm_32x32_sliced1x4_tn", "ampere_sgemm_32x32_sliced1x4_tn", 86, 8192, 0, {4, 1, 1}, {128, 1, 1}, 50, 10},
	[K_HGEMM_NN] = {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
			132, 0, 65536, {1, 1, 1}, {256, 1, 1}, 12.5, 14},
	[K_HGEMM_TN] = {"volta_fp16_s884gemm_fp16_64x64_ldg8_f2f_tn", "ampere_fp16_s16816gemm_fp16_64x64_ldg8_f2f_stages_64x5_tn",
			120, 0, 32768, {2, 1, 1}, {128, 1, 1}, 25, 12},
	[K_PHILOX] = {"void tensorflow::functor::FillPhiloxRandomKernelLaunch<tensorflow::random::UniformDistribution<"
		      "tensorflow::random::PhiloxRandom, float> >(unsigned long, unsigned long const*, tensorflow::random::PhiloxRandom, "
		      "float*, long, tensorflow::random::UniformDistribution<tensorflow::random::PhiloxRandom, float>)", NULL,
		      38, 0, 0, {160, 1, 1}, {1024, 1, 1}, 50, 11},
	[K_MUL] = {EIGEN_EVAL("Eigen::TensorCwiseBinaryOp<Eigen::internal::scalar_product_op<float const, float const>, "
			      EIGEN_IN ", " EIGEN_IN ">"), NULL, 18, 0, 0, {160, 1, 1}, {1024, 1, 1}, 100, 5},
	[K_CAST] = {"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<"
		    "Eigen::Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, Eigen::TensorConversionOp<Eigen::half, "
		    EIGEN_IN "> const> const, Eigen::GpuDevice>, long>(Eigen::TensorEvaluator<Eigen::TensorAssignOp<"
		    "Eigen::TensorMap<Eigen::Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, Eigen::TensorConversionOp<"
		    "Eigen::half, " EIGEN_IN "> const> const, Eigen::GpuDevice>, long)", NULL,
		    20, 0, 0, {40, 1, 1}, {1024, 1, 1}, 100, 4},
	[K_SOFTMAX] = {"void tensorflow::(anonymous namespace)::GenerateNormalizedProb<float, float, 4>(float const*, float const*, "
		       "float const*, float*, int, int, bool)", NULL, 28, 0, 0, {1, 1, 1}, {128, 1, 1}, 50, 4},
	[K_XENT] = {"void tensorflow::functor::(anonymous namespace)::SparseXentLossGradKernel<float, int>(float const*, int const*, "
		    "float const*, float*, float*, int, int)", NULL, 24, 0, 0, {1, 1, 1}, {320, 1, 1}, 62.5, 4},
	[K_REDUCE] = {"void tensorflow::functor::BlockReduceKernel<float*, float*, 256, tensorflow::functor::Sum<float> >(float*, "
		      "float*, int, tensorflow::functor::Sum<float>, std::iterator_traits<float*>::value_type)", NULL,
		      32, 2048, 0, {1, 1, 1}, {256, 1, 1}, 100, 3},
	[K_BIASGRAD] = {"void tensorflow::BiasGradNHWC_SharedAtomics<float>(int, float const*, float*, int)", NULL,
			24, 0, 512, {80, 1, 1}, {1024, 1, 1}, 100, 7},
	[K_RELUGRAD] = {EIGEN_EVAL("Eigen::TensorSelectOp<Eigen::TensorCwiseBinaryOp<Eigen::internal::scalar_cmp_op<float const, "
				   "float const, (Eigen::internal::ComparisonName)5>, " EIGEN_IN ", Eigen::TensorCwiseNullaryOp<"
				   "Eigen::internal::scalar_constant_op<float const>, " EIGEN_IN "> const> const, " EIGEN_IN ", "
				   "Eigen::TensorCwiseNullaryOp<Eigen::internal::scalar_constant_op<float const>, " EIGEN_IN "> const>"),
			NULL, 22, 0, 0, {160, 1, 1}, {1024, 1, 1}, 100, 6},
	[K_POOLGRAD] = {"void cudnn::pooling_bw_kernel_max_nchw<float, float, (cudnnNanPropagation_t)0, false>(cudnnTensorStruct, "
			"float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, "
			"cudnnPoolingStruct, float, float, int, cudnn::reduced_divisor, cudnn::reduced_divisor, "
			"cudnn::reduced_divisor, cudnn::reduced_divisor)", NULL, 40, 0, 0, {676, 1, 1}, {256, 1, 1}, 75, 16},
	[K_WGRAD] = {"void cudnn::detail::wgrad_alg0_engine<float, 128, 6, 8, 3, 3, 5, false, 512>(int, int, int, float const*, int, "
		     "float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)", NULL,
		     64, 25600, 0, {4, 1, 32}, {128, 1, 1}, 37.5, 80},
	[K_ADAM] = {"void tensorflow::functor::ApplyAdamKernel<float>(int, float*, float*, float*, float const*, float const*, "
		    "float const*, float const*, float const*, float const*, float const*, bool)", NULL,
		    30, 0, 0, {108, 1, 1}, {1024, 1, 1}, 100, 8},
	[K_ADDI64] = {"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<"
		      "Eigen::TensorFixedSize<long long, Eigen::Sizes<>, 1, long>, 16, Eigen::MakePointer>, Eigen::TensorCwiseBinaryOp<"
		      "Eigen::internal::scalar_sum_op<long long const, long long const>, Eigen::TensorMap<Eigen::TensorFixedSize<"
		      "long long, Eigen::Sizes<>, 1, long>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long>"
		      "(Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::TensorFixedSize<long long, "
		      "Eigen::Sizes<>, 1, long>, 16, Eigen::MakePointer>, Eigen::TensorCwiseBinaryOp<Eigen::internal::scalar_sum_op<"
		      "long long const, long long const>, Eigen::TensorMap<Eigen::TensorFixedSize<long long, Eigen::Sizes<>, 1, "
		      "long>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long)", NULL,
		      16, 0, 0, {1, 1, 1}, {1, 1, 1}, 3.125, 2},
};

enum io { IO_NONE, IO_H2D, IO_D2H, IO_WAIT };

/* One graph op: name and type as the executor records them, host time,
 * kernels launched, output and workspace tensors. */
struct odef {
	const char *name, *type;
	int host_us, cpu_us;
	int8_t k[3];
	int out_bytes, temp_bytes;
	const char *shape;
	int dtype;      /* tensorflow DataType: 1 float, 19 half, 3 int32, 9 int64 */
	enum io io;
};

#define KN {-1, -1, -1}
static const struct odef MODEL[] = {
	{"IteratorGetNext", "IteratorGetNext", 6, 6, KN, 100352, 0, "[32,28,28,1]", 1, IO_WAIT},
	{"model/conv2d/Conv2D", "Conv2D", 16, 410, {K_CONV, -1, -1}, 2768896, 1048576, "[32,26,26,32]", 1, IO_NONE},
	{"model/conv2d/BiasAdd", "BiasAdd", 9, 60, {K_BIAS, -1, -1}, 2768896, 0, "[32,26,26,32]", 1, IO_NONE},
	{"model/conv2d/Relu", "Relu", 8, 45, {K_RELU, -1, -1}, 2768896, 0, "[32,26,26,32]", 1, IO_NONE},
	{"model/max_pooling2d/MaxPool", "MaxPool", 10, 70, {K_POOL, -1, -1}, 692224, 0, "[32,13,13,32]", 1, IO_NONE},
	{"model/flatten/Reshape", "Reshape", 3, 3, KN, 0, 0, NULL, 1, IO_NONE},
	{"model/dense/MatMul", "MatMul", 12, 230, {K_SGEMM_NN, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"model/dense/BiasAdd", "BiasAdd", 8, 8, {K_BIAS, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"model/dense/Relu", "Relu", 7, 6, {K_RELU, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"model/dropout/dropout/random_uniform/RandomUniform", "RandomUniform", 11, 25, {K_PHILOX, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"model/dropout/dropout/Mul_1", "Mul", 7, 6, {K_MUL, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"model/dense_1/Cast", "Cast", 7, 5, {K_CAST, -1, -1}, 8192, 0, "[32,128]", 19, IO_NONE},
	{"model/dense_1/MatMul", "MatMul", 12, 30, {K_HGEMM_NN, -1, -1}, 640, 0, "[32,10]", 19, IO_NONE},
	{"model/dense_1/BiasAdd", "BiasAdd", 8, 4, {K_BIAS, -1, -1}, 640, 0, "[32,10]", 19, IO_NONE},
	{"model/softmax/Softmax", "Softmax", 9, 6, {K_SOFTMAX, -1, -1}, 1280, 0, "[32,10]", 1, IO_NONE},
	{"sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits",
	 "SparseSoftmaxCrossEntropyWithLogits", 14, 12, {K_SOFTMAX, K_XENT, -1}, 1408, 0, "[32]", 1, IO_NONE},
	{"sparse_categorical_crossentropy/weighted_loss/Sum", "Sum", 9, 4, {K_REDUCE, -1, -1}, 4, 0, "[]", 1, IO_NONE},
	{"gradient_tape/model/dense_1/MatMul/MatMul", "MatMul", 12, 28, {K_HGEMM_TN, -1, -1}, 8192, 0, "[32,128]", 19, IO_NONE},
	{"gradient_tape/model/dense_1/MatMul/MatMul_1", "MatMul", 11, 24, {K_SGEMM_TN, -1, -1}, 5120, 0, "[128,10]", 1, IO_NONE},
	{"gradient_tape/model/dense_1/BiasAdd/BiasAddGrad", "BiasAddGrad", 9, 5, {K_BIASGRAD, -1, -1}, 40, 0, "[10]", 1, IO_NONE},
	{"gradient_tape/model/dropout/dropout/Mul/Mul", "Mul", 7, 6, {K_MUL, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"gradient_tape/model/dense/ReluGrad", "ReluGrad", 8, 7, {K_RELUGRAD, -1, -1}, 16384, 0, "[32,128]", 1, IO_NONE},
	{"gradient_tape/model/dense/MatMul/MatMul", "MatMul", 12, 240, {K_SGEMM_NT, -1, -1}, 692224, 0, "[32,5408]", 1, IO_NONE},
	{"gradient_tape/model/dense/MatMul/MatMul_1", "MatMul", 12, 250, {K_SGEMM_TN, -1, -1}, 2768896, 0, "[5408,128]", 1, IO_NONE},
	{"gradient_tape/model/max_pooling2d/MaxPool/MaxPoolGrad", "MaxPoolGrad", 12, 95, {K_POOLGRAD, -1, -1}, 2768896, 0,
	 "[32,26,26,32]", 1, IO_NONE},
	{"gradient_tape/model/conv2d/ReluGrad", "ReluGrad", 8, 50, {K_RELUGRAD, -1, -1}, 2768896, 0, "[32,26,26,32]", 1, IO_NONE},
	{"gradient_tape/model/conv2d/Conv2D/Conv2DBackpropFilter", "Conv2DBackpropFilter", 18, 520, {K_WGRAD, -1, -1}, 1152, 2097152,
	 "[3,3,1,32]", 1, IO_NONE},
	{"Adam/Adam/update/ResourceApplyAdam", "ResourceApplyAdam", 10, 12, {K_ADAM, -1, -1}, 0, 0, NULL, 1, IO_NONE},
	{"Adam/Adam/update_1/ResourceApplyAdam", "ResourceApplyAdam", 10, 6, {K_ADAM, -1, -1}, 0, 0, NULL, 1, IO_NONE},
	{"Adam/Adam/update_2/ResourceApplyAdam", "ResourceApplyAdam", 10, 110, {K_ADAM, -1, -1}, 0, 0, NULL, 1, IO_NONE},
	{"Adam/Adam/update_3/ResourceApplyAdam", "ResourceApplyAdam", 10, 6, {K_ADAM, -1, -1}, 0, 0, NULL, 1, IO_NONE},
	{"Adam/Adam/AssignAddVariableOp", "AssignAddVariableOp", 7, 3, {K_ADDI64, -1, -1}, 0, 0, NULL, 9, IO_NONE},
	{"Identity", "Identity", 6, 3, KN, 4, 0, "[]", 1, IO_D2H},
};
#define NMODEL ((int)(sizeof MODEL / sizeof MODEL[0]))

/* ops the executor places on the CPU next to the GPU work (metrics, casts) */
static const struct odef HOSTG[] = {
	{"ReadVariableOp", "ReadVariableOp", 3, 3, KN, 0, 0, NULL, 1, IO_NONE},
	{"metrics/accuracy/Cast", "Cast", 5, 5, KN, 128, 0, "[32]", 1, IO_NONE},
	{"metrics/accuracy/ArgMax", "ArgMax", 7, 7, KN, 256, 0, "[32]", 9, IO_NONE},
	{"metrics/accuracy/Equal", "Equal", 5, 5, KN, 32, 0, "[32]", 10, IO_NONE},
	{"metrics/accuracy/Cast_1", "Cast", 4, 4, KN, 128, 0, "[32]", 1, IO_NONE},
	{"metrics/accuracy/Sum", "Sum", 5, 5, KN, 4, 0, "[]", 1, IO_NONE},
	{"metrics/accuracy/AssignAddVariableOp", "AssignAddVariableOp", 4, 4, KN, 0, 0, NULL, 1, IO_NONE},
	{"metrics/accuracy/Size", "Size", 3, 3, KN, 4, 0, "[]", 3, IO_NONE},
	{"metrics/accuracy/AssignAddVariableOp_1", "AssignAddVariableOp", 4, 4, KN, 0, 0, NULL, 1, IO_NONE},
	{"metrics/accuracy/div_no_nan", "DivNoNan", 5, 5, KN, 4, 0, "[]", 1, IO_NONE},
	{"Identity_1", "Identity", 3, 3, KN, 4, 0, "[]", 1, IO_NONE},
	{"Identity_2", "Identity", 3, 3, KN, 4, 0, "[]", 1, IO_NONE},
};
#define NHOSTG ((int)(sizeof HOSTG / sizeof HOSTG[0]))

/* JAX train step as XLA compiled it for an AMD GPU */
struct jdef { const char *kernel, *hlo_op, *name; int us, g[3], b[3], group_mem; };
static const struct jdef JAXK[] = {
	{"input_transpose_fusion", "transpose.4", "jit(train_step)/jit(main)/transpose", 9, {256, 1, 1}, {256, 1, 1}, 16384},
	{"Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_"
	 "ASCE01_ASEM1_AAC0_BL1_BS1_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS1_FSSC10_FL0_GRPM1_GRVW8_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_"
	 "LBSPPA128_LBSPPB128_LPA0_LPB0_LDL1_LRVW16_LWPMn1_LDW0_FMA_MIAV1_MDA2_MO40_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1",
	 "custom-call.3", "jit(train_step)/jit(main)/dot_general", 48, {16, 18, 1}, {256, 1, 1}, 65408},
	{"loop_add_fusion", "add_fusion", "jit(train_step)/jit(main)/add", 6, {1024, 1, 1}, {256, 1, 1}, 0},
	{"loop_convert_fusion", "convert_fusion.1", "jit(train_step)/jit(main)/convert_element_type", 4, {512, 1, 1}, {256, 1, 1}, 0},
	{"gemm_fusion_dot_general_1.kd", "gemm_fusion_dot_general.1", "jit(train_step)/jit(main)/dot_general", 36, {16, 128, 1},
	 {256, 1, 1}, 8704},
	{"input_reduce_fusion", "reduce.7", "jit(train_step)/jit(main)/reduce_sum", 7, {32, 1, 1}, {1024, 1, 1}, 4096},
	{"input_exponential_reduce_fusion", "exponential_reduce_fusion", "jit(train_step)/jit(main)/exp", 8, {32, 1, 1}, {1024, 1, 1}, 4096},
	{"loop_multiply_fusion", "multiply_fusion.2", "jit(train_step)/jit(main)/mul", 5, {1024, 1, 1}, {256, 1, 1}, 0},
	{"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_"
	 "ASCE01_ASEM1_AAC0_BL1_BS1_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS1_FSSC10_FL0_GRPM1_GRVW8_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA",
	 "custom-call.5", "jit(train_step)/jit(main)/transpose(jvp(dot_general))", 52, {16, 16, 1}, {256, 1, 1}, 51200},
	{"loop_select_fusion", "select_fusion", "jit(train_step)/jit(main)/select_n", 5, {1024, 1, 1}, {256, 1, 1}, 0},
	{"input_reduce_fusion_1", "reduce.12", "jit(train_step)/jit(main)/reduce_sum", 6, {64, 1, 1}, {1024, 1, 1}, 4096},
	{"wrapped_broadcast.kd", "wrapped_broadcast", "jit(train_step)/jit(main)/broadcast_in_dim", 3, {256, 1, 1}, {256, 1, 1}, 0},
	{"loop_subtract_multiply_fusion", "subtract_multiply_fusion", "jit(train_step)/jit(main)/sub", 7, {2048, 1, 1}, {256, 1, 1}, 0},
	{"loop_sqrt_divide_fusion", "sqrt_divide_fusion", "jit(train_step)/jit(main)/sqrt", 7, {2048, 1, 1}, {256, 1, 1}, 0},
	{"loop_add_fusion_3", "add_fusion.3", "jit(train_step)/jit(main)/add", 6, {2048, 1, 1}, {256, 1, 1}, 0},
	{"__amd_rocclr_copyBuffer.kd", "copy.1", "jit(train_step)/jit(main)/copy", 3, {1, 1, 1}, {512, 1, 1}, 0},
};
#define NJAXK ((int)(sizeof JAXK / sizeof JAXK[0]))
#define NJOUT 5
static const int JOUT_BYTES[NJOUT] = {2097152, 2097152, 524288, 4194304, 4};

/* python-tracer events the JAX python thread shows around each step */
static const char *const PYEV[] = {"$builtins isinstance", "$dtypes.py:478 issubdtype", "$<unknown> append",
				   "$array.py:263 sharding", "$core.py:2002 canonicalize_shape", "$builtins len"};
#define NPYEV ((int)(sizeof PYEV / sizeof PYEV[0]))

/* ------------------------------------------------------------------ */
/* options                                                             */

enum variant { V_RAW, V_GROUPED, V_JAX, V_CPU, V_DIVERSE, V_DYNAMIC, V_MANY_HOSTS, NVARIANT };
enum cmp { C_NONE, C_GZIP, C_ZSTD };
static const char *const VARIANT_NAMES[] = {"raw", "grouped", "jax", "cpu", "diverse", "dynamic-shapes", "many-hosts"};
static const char *const CMP_NAMES[] = {"none", "gzip", "zstd"};

struct opts {
	enum variant variant;
	int hosts, gpus;
	bool gpus_set, steps_set, odd;
	int64_t steps;
	uint64_t seed, target;
	enum cmp cmp;
	const char *truth, *out, *host;
};

/* ------------------------------------------------------------------ */
/* capture model                                                       */

/* one JAX replica's host-side times in a step */
struct jrep { int64_t x0, x1, e0, e1, sem, tfree[NJOUT], talloc[NJOUT], tta, ttf, rec; };

enum role { R_PYTHON, R_HEAVY, R_COMPUTE, R_EVMGR, R_GETNEXT, R_RESOURCE, R_POOL, R_MULTI, R_COLLECTIVE, R_GPUPRIV,
	    R_JPY, R_JEXEC, R_JHT, R_JPOOL, R_GPU, R_ODD, R_ODD_UNSORTED, R_ODD_DUPID, R_ODD_EPOCH, R_ODD_CHUNK,
	    R_ODD_PID, NROLE };

struct line {
	int plane;
	int role, ri;
	int64_t id;
	char *name;
	int64_t ts_ns;
	uint64_t bytes, events;   /* encoded events so far in this pass */
	uint64_t want_bytes;      /* pass 1's total, checked by pass 2 */
	uint64_t woff;            /* pass 2: file offset of the next event */
	uint64_t wend;            /* pass 2: where this line's events must end */
	uint8_t *buf;
	size_t used;
};

enum sv { SV_I64, SV_U64, SV_STR, SV_DBL };
struct pstat { int64_t sid; enum sv kind; int64_t i; double d; char *s; };

struct plane {
	int64_t id;
	char *name;
	struct strtab ev, st;
	struct pstat *ps;
	int nps;
	int l0, nl;               /* its lines: h->ln[l0 .. l0+nl) */
};

/* stat metadata ids on one plane (0 = not defined there) */
struct sids {
	int64_t step_num, r, id, iter_num, pt, p, ct, c, group_id, step_name, tf_function_call, tracing_count,
		correlation_id, device_id, kernel_details, tf_op, level0, memcpy_details, context_id, hlo_op, hlo_module,
		program_id, name, occ_pct, occ_grid, occ_block, kernel_name, num_output_edges, num_output_control_edges, allocator_name, bytes_reserved,
		bytes_allocated, bytes_available, fragmentation, peak_bytes_in_use, requested_bytes, allocation_bytes, addr,
		region_type, data_type, shape, element_id, parent_id, buffer_limit, is_eager;
};

/* event metadata ids of the host plane */
struct hev {
	int64_t train, train_function, function_run, process, epo, launch, h2d_launch, d2h_launch, mem_alloc, mem_dealloc,
		getnext, it_prefetch, prefetch_consume, prefetch_produce, it_batch, it_map, map_consume, map_produce,
		it_tfrecord, captured_run, done_cb, collective, identity_op, retval_op, poll;
	/* jax */
	int64_t jit_step, py_loop, pjit, parse_args, pjrt_exec, block, exec_helper, semaphore, enqueue, record_usage,
		tp_start, tp_exec, tp_stop, pyev[NPYEV], jlaunch, jh2d, jd2h;
};

struct alc {
	char *name;
	int64_t ref;              /* host-plane id of the interned name */
	int64_t limit, reserved, inuse, peak, base, off;
	int64_t inuse0, peak0;    /* state when the profile starts */
	/* chunks waiting to be freed by a later op: FIFO */
	int64_t qaddr[64], qbytes[64], qreq[64], qat[64];
	int qh, qt;
	int64_t temp_addr, temp_bytes, temp_req;
	uint64_t nalloc, nfree;
};

/* launches one replica makes per step, in order */
struct ltmpl { uint8_t kind; uint8_t op; int8_t kern; int bytes; };
enum { L_KERNEL, L_H2D, L_D2H };

enum ckind { C_ALLOC_OUT, C_ALLOC_TEMP, C_LAUNCH, C_FREE_TEMP, C_FREE_OLD };
struct child { int64_t t, d; uint8_t kind; int16_t launch; };
struct slot { int rep, op, graph, alc; int64_t t, d, et, ed; int c0, nc; };

struct heavy {
	int line;
	int nslots;
	struct slot *sl;
	struct child *ch;
	int64_t p0, p1;           /* ExecutorState::Process span this step */
};

struct gpu {
	int plane;
	int lcomp, lh2d, ld2h, lsteps, lops, lscope;
	struct sids s;
	int64_t kmd[NK > NJAXK ? NK : NJAXK], kdet[NK > NJAXK ? NK : NJAXK];
	int64_t optf[MAXOPS], opev[MAXOPS];
	int64_t scope_md[MAXOPS][MAXDEPTH];
	int nscope[MAXOPS];
	int run_last[MAXOPS][MAXDEPTH];
	int64_t ldet[64];         /* memcpy_details per launch (ref) */
	char *ldet_s[64];         /* ... and as text for str_value */
	int64_t h2d_md, d2h_md, xla_module, hlo_module, hlo_op[NJAXK], jname[NJAXK], step_md0;
	/* per step: device times for each launch of this replica */
	int64_t *dt, *dd, *lt, *ld;
	int64_t free_at;          /* device busy until */
	int64_t step_lo, step_hi;
};

struct truth {
	uint64_t mem_alloc, mem_dealloc, kernels, kernel_ps, h2d, d2h, h2d_bytes, d2h_bytes, launches;
	uint8_t kused[NK > NJAXK ? NK : NJAXK];
	int64_t *st_start, *st_dur, *st_wait, *st_dev; /* per step (ns) when steps <= STEP_LIST_MAX */
	int64_t profile_end;
	unsigned odd_missing_event_md, odd_missing_stat_md, odd_dangling_ref, odd_bad_utf8, odd_unsorted_lines,
		odd_dup_planes, odd_dup_line_ids, odd_pid_planes, odd_epoch_lines, odd_unknown_fields, odd_negative_durations;
};

struct host {
	const struct opts *o;
	enum variant v;
	int index, gpus, nrep;
	char *name, *file;
	uint64_t seed;
	int64_t steps;
	int64_t step_base;        /* step_num of step 0, like Keras' profile_batch */
	int64_t pid, prefetch_id, batch_id, map_id, tfrecord_id, program_id;
	struct plane *pl;
	int npl, cpl;
	struct line *ln;
	int nln, cln;
	int hostp;
	int rl[NROLE][MAXRI];     /* role -> line index */
	struct sids hs;
	struct hev he;
	struct strtab inl;        /* grouped: host strings written inline */
	int64_t opev[2][MAXGPU][MAXOPS], opname[2][MAXGPU][MAXOPS], opfull[2][MAXGPU][MAXOPS];
	int64_t shape_ref[2][MAXOPS], region_out, region_temp, fn_call_ref, hkmd[NK];
	int64_t ref_ident, ref_retval, ref_mdi, ref_getnext;
	int64_t odd_bad_name_md, odd_ev_md, odd_odd_stat;
	struct gpu gpu[MAXGPU];
	struct alc *alc;
	int nalc;
	struct ltmpl lt[64];
	int nlt, op_l0[MAXOPS], op_nl[MAXOPS], nfree[2][MAXOPS];
	struct heavy hv[2];
	/* simulation state */
	struct rng rng;
	struct jrep jr[MAXGPU];
	int64_t disp_end, blk0, blk1, pool_t, dev_hi;
	int64_t t_next, S, E, Epre, W, g0, proc_t, prod_t0, prod_t1, cj[NB], light_t, step_id;
	bool writing;
	int fd;
	uint64_t stop_at, skel0, ev_total; /* --target-bytes: end the count pass once the file is this big */
	struct truth tr;
	uint64_t file_bytes;
};

static int add_plane(struct host *h, int64_t id, const char *name)
{
	if (h->npl == h->cpl) {
		h->cpl = h->cpl ? h->cpl * 2 : 8;
		h->pl = xrealloc(h->pl, (size_t)h->cpl * sizeof *h->pl);
	}
	struct plane *p = &h->pl[h->npl];
	memset(p, 0, sizeof *p);
	p->id = id;
	p->name = fmt("%s", name);
	p->l0 = h->nln;
	return h->npl++;
}

static int add_line(struct host *h, int plane, int role, int ri, int64_t id, char *name, int64_t ts_ns)
{
	if (h->nln == h->cln) {
		h->cln = h->cln ? h->cln * 2 : 32;
		h->ln = xrealloc(h->ln, (size_t)h->cln * sizeof *h->ln);
	}
	struct line *L = &h->ln[h->nln];
	memset(L, 0, sizeof *L);
	L->plane = plane;
	L->role = role;
	L->ri = ri;
	L->id = id;
	L->name = name;
	L->ts_ns = ts_ns;
	h->pl[plane].nl++;
	return h->nln++;
}

static void add_pstat(struct plane *p, const char *name, enum sv kind, int64_t i, double d, const char *s)
{
	p->ps = xrealloc(p->ps, (size_t)(p->nps + 1) * sizeof *p->ps);
	p->ps[p->nps++] = (struct pstat){st_add(&p->st, name), kind, i, d, s ? fmt("%s", s) : NULL};
}

static int64_t ev_md(struct plane *p, const char *name, const char *disp)
{
	int64_t id = st_add(&p->ev, name);
	if (disp && !p->ev.disp[id - 1])
		p->ev.disp[id - 1] = fmt("%s", disp);
	return id;
}

/* ------------------------------------------------------------------ */
/* event encoding and emission                                         */

struct ev { uint8_t *p; uint8_t b[EVCAP]; };

static void ev_raw(struct ev *e, int64_t mid, int64_t off_ps, int64_t dur_ps)
{
	e->p = e->b;
	*e->p++ = 0x08;
	e->p = put_v(e->p, (uint64_t)mid);
	*e->p++ = 0x10;
	e->p = put_v(e->p, (uint64_t)off_ps);
	if (dur_ps) {
		*e->p++ = 0x18;
		e->p = put_v(e->p, (uint64_t)dur_ps);
	}
}

/* t and d in ns since the profile start; offsets are relative to the line */
static void ev_begin(struct ev *e, const struct line *L, int64_t mid, int64_t t, int64_t d)
{
	ev_raw(e, mid, (t - L->ts_ns) * 1000, d * 1000);
}

/* the hot path: a stat is at most 22 bytes, so its length is one byte,
 * patched after the body is written */
static void st_varint(struct ev *e, int64_t sid, uint8_t tag, uint64_t v)
{
	if (!sid)
		return;
	uint8_t *p = e->p, *len;
	*p++ = 0x22;
	len = p++;
	*p++ = 0x08;
	p = put_v(p, (uint64_t)sid);
	*p++ = tag;
	p = put_v(p, v);
	*len = (uint8_t)(p - len - 1);
	e->p = p;
}

static void ev_i64(struct ev *e, int64_t sid, int64_t v) { st_varint(e, sid, 0x20, (uint64_t)v); }
static void ev_u64(struct ev *e, int64_t sid, uint64_t v) { st_varint(e, sid, 0x18, v); }
static void ev_ref(struct ev *e, int64_t sid, int64_t ref) { st_varint(e, sid, 0x38, (uint64_t)ref); }

static void ev_dbl(struct ev *e, int64_t sid, double d)
{
	if (!sid)
		return;
	*e->p++ = 0x22;
	*e->p++ = (uint8_t)(2 + vlen((uint64_t)sid) + 8);
	*e->p++ = 0x08;
	e->p = put_v(e->p, (uint64_t)sid);
	*e->p++ = 0x11;
	e->p = put_fixed64(e->p, dbl_bits(d));
}

static void ev_str(struct ev *e, int64_t sid, const char *s)
{
	size_t n = strlen(s);
	if (!sid || n > 1024)
		return;
	uint64_t body = 1 + vlen((uint64_t)sid) + 1 + vlen(n) + n;
	*e->p++ = 0x22;
	e->p = put_v(e->p, body);
	*e->p++ = 0x08;
	e->p = put_v(e->p, (uint64_t)sid);
	*e->p++ = 0x2A;
	e->p = put_v(e->p, n);
	memcpy(e->p, s, n);
	e->p += n;
}

static void line_flush(struct host *h, struct line *L)
{
	size_t done = 0;
	while (done < L->used) {
		ssize_t w = pwrite(h->fd, L->buf + done, L->used - done, (off_t)(L->woff + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die(1, "write %s: %s", h->file, strerror(errno));
		done += (size_t)w;
	}
	L->woff += L->used;
	L->used = 0;
}

static void emit(struct host *h, int li, struct ev *e)
{
	struct line *L = &h->ln[li];
	size_t n = (size_t)(e->p - e->b);
	size_t tot = 1 + vlen(n) + n;
	if (n > EVCAP - 64)
		die(4, "internal: event too large");
	L->bytes += tot;
	L->events++;
	h->ev_total += tot;
	if (!h->writing)
		return;
	if (L->used + tot > LBUF)
		line_flush(h, L);
	uint8_t *p = L->buf + L->used;
	*p++ = 0x22;
	p = put_v(p, n);
	memcpy(p, e->b, n);
	L->used += tot;
}

/* the common case: an event without per-event stats */
static void emit0(struct host *h, int li, int64_t mid, int64_t t, int64_t d)
{
	struct ev e;
	ev_begin(&e, &h->ln[li], mid, t, d);
	emit(h, li, &e);
}

static bool grouped(const struct host *h) { return h->v == V_GROUPED; }

static void ev_group(struct host *h, struct ev *e, int64_t sid, int64_t s)
{
	if (grouped(h))
		ev_i64(e, sid, s);
}

/* host-side strings: interned in stat_metadata (ref_value) by current
 * writers; TF 2.4 wrote them inline, so grouped keeps them in a private table */
static int64_t hstr(struct host *h, const char *s)
{
	return grouped(h) ? st_add(&h->inl, s) : st_add(&h->pl[h->hostp].st, s);
}

static void ev_hs(struct host *h, struct ev *e, int64_t sid, int64_t ref)
{
	if (grouped(h))
		ev_str(e, sid, h->inl.s[ref - 1]);
	else
		ev_ref(e, sid, ref);
}

#define SID(f, nm) (s->f = st_add(&p->st, (nm)))

static void host_sids(struct host *h)
{
	struct plane *p = &h->pl[h->hostp];
	struct sids *s = &h->hs;
	SID(pt, "_pt");
	SID(p, "_p");
	SID(ct, "_ct");
	SID(c, "_c");
	SID(correlation_id, "correlation_id");
	SID(allocator_name, "allocator_name");
	SID(bytes_reserved, "bytes_reserved");
	SID(bytes_allocated, "bytes_allocated");
	SID(bytes_available, "bytes_available");
	SID(fragmentation, "fragmentation");
	SID(peak_bytes_in_use, "peak_bytes_in_use");
	SID(requested_bytes, "requested_bytes");
	SID(allocation_bytes, "allocation_bytes");
	SID(addr, "addr");
	SID(id, "id");
	SID(data_type, "data_type");
	if (h->v == V_JAX) {
		SID(device_id, "device_id");
		return;
	}
	SID(step_num, "step_num");
	SID(r, "_r");
	SID(iter_num, "iter_num");
	SID(tf_function_call, "tf_function_call");
	SID(tracing_count, "tracing_count");
	SID(kernel_name, "kernel_name");
	SID(num_output_edges, "num_output_edges");
	SID(num_output_control_edges, "num_output_control_edges");
	SID(tf_op, "tf_op");
	SID(region_type, "region_type");
	SID(shape, "shape");
	SID(element_id, "element_id");
	SID(parent_id, "parent_id");
	SID(buffer_limit, "buffer_limit");
	if (h->v == V_RAW)
		SID(device_id, "device_id");
	if (grouped(h)) {
		SID(group_id, "group_id");
		SID(step_name, "step_name");
		SID(is_eager, "is_eager");
	}
}

static const char *rep_prefix(int rep, char *buf, size_t n)
{
	if (rep <= 0)
		buf[0] = 0;
	else
		snprintf(buf, n, "replica_%d/", rep);
	return buf;
}

static const struct odef *graph_op(int graph, int op)
{
	return graph ? &HOSTG[op] : &MODEL[op];
}

static int graph_len(int graph) { return graph ? NHOSTG : NMODEL; }

/* TF op metadata of one replica: event (name:Type, shown as Type), the name
 * for ExecutorPropagateOutputs, and name:Type as a string stat value */
static void host_op_md(struct host *h, int graph, int rep)
{
	struct plane *p = &h->pl[h->hostp];
	char pre[32];
	rep_prefix(rep, pre, sizeof pre);
	for (int i = 0; i < graph_len(graph); i++) {
		const struct odef *od = graph_op(graph, i);
		char *full = fmt("%s%s:%s", pre, od->name, od->type);
		char *nm = fmt("%s%s", pre, od->name);
		int r = rep < 0 ? 0 : rep;
		h->opev[graph][r][i] = ev_md(p, full, od->type);
		h->opname[graph][r][i] = hstr(h, nm);
		h->opfull[graph][r][i] = hstr(h, full);
		if (od->shape)
			h->shape_ref[graph][i] = hstr(h, od->shape);
		free(full);
		free(nm);
	}
}

static uint32_t rtid(struct host *h)
{
	return (uint32_t)rr(&h->rng, 100000000, 4294967295LL);
}

/* a thread line named like TF's thread pools: <pool>/<tid as int32> */
static void tline(struct host *h, int role, int ri, const char *pool, int64_t ts)
{
	uint32_t tid = rtid(h);
	add_line(h, h->hostp, role, ri, tid, fmt("%s/%d", pool, (int32_t)tid), ts);
}

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->role != y->role ? x->role - y->role : x->ri - y->ri;
}

static void tf_host_lines(struct host *h, int64_t ts)
{
	bool gpu = h->v != V_CPU;
	add_line(h, h->hostp, R_PYTHON, 0, h->pid, fmt("python3"), ts);
	tline(h, R_HEAVY, 0, gpu ? "tf_gpu_private_0" : "tf_Compute", ts);
	tline(h, R_HEAVY, 1, gpu && h->gpus > 1 ? "tf_gpu_private_1" : "tf_Compute", ts);
	for (int k = 0; k < (gpu ? 4 : 6); k++)
		tline(h, R_COMPUTE, k, "tf_Compute", ts);
	for (int k = 0; gpu && k < 6; k++)
		tline(h, R_EVMGR, k, "tf_GPU_Event_Manager", ts);
	if (gpu)
		tline(h, R_GPUPRIV, 0, "tf_gpu_private_0", ts);
	tline(h, R_GETNEXT, 0, "tf_data_iterator_get_next", ts);
	for (int k = 0; k < 2; k++) {
		tline(h, R_RESOURCE, k, "tf_data_iterator_resource", ts);
		tline(h, R_POOL, k, "tf_data_private_threadpool", ts);
		tline(h, R_MULTI, k, "tf_data_multi_device_iterator_get_next", ts);
	}
	tline(h, R_COLLECTIVE, 0, "collective_ops", ts);
}

static void jax_host_lines(struct host *h, int64_t ts)
{
	add_line(h, h->hostp, R_JPY, 0, (int64_t)(rnext(&h->rng) >> 2), fmt("python"), ts);
	for (int r = 0; r < h->gpus; r++) {
		int64_t neg = -(int64_t)(rnext(&h->rng) >> 3) - 1;
		add_line(h, h->hostp, R_JEXEC, r, neg, fmt("py_xla_execute/%" PRId64, neg), ts);
		int64_t tid = rr(&h->rng, 1000, 65000);
		add_line(h, h->hostp, R_JHT, r, tid, fmt("Host Threads/%" PRId64, tid), ts);
	}
	for (int k = 0; k < 4; k++) {
		int64_t id = (int64_t)rnext(&h->rng);
		add_line(h, h->hostp, R_JPOOL, k, id, fmt("tf_pjrt_thread_pool/%" PRId64, id), ts);
	}
}

static void tf_host_events(struct host *h)
{
	struct plane *p = &h->pl[h->hostp];
	struct hev *e = &h->he;
	e->train = ev_md(p, "train", NULL);
	e->train_function = ev_md(p, "train_function", NULL);
	e->function_run = ev_md(p, "FunctionRun", NULL);
	e->process = ev_md(p, "ExecutorState::Process", NULL);
	e->epo = ev_md(p, "ExecutorPropagateOutputs", NULL);
	e->mem_alloc = ev_md(p, "MemoryAllocation", NULL);
	e->mem_dealloc = ev_md(p, "MemoryDeallocation", NULL);
	e->getnext = ev_md(p, "IteratorGetNextOp::DoCompute", NULL);
	e->it_prefetch = ev_md(p, "Iterator::Prefetch", "Iterator::Prefetch");
	e->prefetch_consume = ev_md(p, "PrefetchConsume", NULL);
	e->prefetch_produce = ev_md(p, "PrefetchProduce", NULL);
	e->it_batch = ev_md(p, "Iterator::Prefetch::BatchV2", "Iterator::BatchV2");
	e->it_map = ev_md(p, "Iterator::Prefetch::BatchV2::ParallelMapV2", "Iterator::ParallelMapV2");
	e->map_consume = ev_md(p, "ParallelMapConsume", NULL);
	e->map_produce = ev_md(p, "ParallelMapProduce", NULL);
	e->it_tfrecord = ev_md(p, "Iterator::Prefetch::BatchV2::ParallelMapV2::TFRecord", "Iterator::TFRecord");
	e->captured_run = ev_md(p, "InstantiatedCapturedFunction::RunWithBorrowedArgs", NULL);
	e->done_cb = ev_md(p, "ExecutorDoneCallback", NULL);
	e->collective = ev_md(p, "BaseCollectiveExecutor::ExecuteAsync", NULL);
	e->identity_op = ev_md(p, "Identity_3:Identity", "Identity");
	e->retval_op = ev_md(p, "identity_RetVal:_Retval", "_Retval");
	if (h->v == V_CPU)
		return;
	e->launch = ev_md(p, "cuLaunchKernel", NULL);
	e->h2d_launch = ev_md(p, "cuMemcpyHtoDAsync_v2", NULL);
	e->d2h_launch = ev_md(p, "cuMemcpyDtoHAsync_v2", NULL);
	/* TF 2.4's CUPTI host events were named after the kernel they launched */
	for (int k = 0; grouped(h) && k < NK; k++)
		h->hkmd[k] = ev_md(p, KERNELS[k].volta, NULL);
}

static void jax_host_events(struct host *h)
{
	struct plane *p = &h->pl[h->hostp];
	struct hev *e = &h->he;
	e->jit_step = ev_md(p, "jit_train_step", NULL);
	e->py_loop = ev_md(p, "$train.py:61 train_loop", NULL);
	e->pjit = ev_md(p, "PjitFunction(train_step)", NULL);
	e->parse_args = ev_md(p, "ParseArguments", NULL);
	e->pjrt_exec = ev_md(p, "PJRT_LoadedExecutable_Execute linkage", NULL);
	e->block = ev_md(p, "$array.py:365 block_until_ready", NULL);
	e->exec_helper = ev_md(p, "PjRtStreamExecutorLoadedExecutable::ExecuteHelper", NULL);
	e->semaphore = ev_md(p, "ComputeSemaphoreAcquire", NULL);
	e->enqueue = ev_md(p, "PjRtStreamExecutorLoadedExecutable::EnqueueExecution", NULL);
	e->record_usage = ev_md(p, "RecordUsage", NULL);
	e->tp_start = ev_md(p, "ThreadpoolListener::StartRegion", NULL);
	e->tp_exec = ev_md(p, "BufferSequencingEvent::Execute", NULL);
	e->tp_stop = ev_md(p, "ThreadpoolListener::StopRegion", NULL);
	for (int i = 0; i < NPYEV; i++)
		e->pyev[i] = ev_md(p, PYEV[i], NULL);
	e->mem_alloc = ev_md(p, "MemoryAllocation", NULL);
	e->mem_dealloc = ev_md(p, "MemoryDeallocation", NULL);
	e->jlaunch = ev_md(p, "hipModuleLaunchKernel", NULL);
	e->jh2d = ev_md(p, "hipMemcpyHtoDAsync", NULL);
	e->jd2h = ev_md(p, "hipMemcpyDtoHAsync", NULL);
}

static void build_host_plane(struct host *h, int64_t ts)
{
	h->hostp = add_plane(h, 0, "/host:CPU");
	host_sids(h);
	if (h->v == V_JAX) {
		jax_host_lines(h, ts);
		jax_host_events(h);
	} else {
		tf_host_lines(h, ts);
		tf_host_events(h);
		for (int r = 0; r < h->nrep; r++)
			host_op_md(h, 0, r);
		if (h->v == V_CPU)
			host_op_md(h, 0, -1);
		host_op_md(h, 1, -1);
		h->ref_ident = hstr(h, "Identity_3");
		h->ref_retval = hstr(h, "identity_RetVal");
		h->ref_mdi = hstr(h, "MultiDeviceIteratorGetNextFromShard");
		h->ref_getnext = hstr(h, "IteratorGetNext");
		h->region_out = hstr(h, "output");
		h->region_temp = hstr(h, "temp");
		h->fn_call_ref = hstr(h, "notTraced-nonXla");
	}
	struct plane *p = &h->pl[h->hostp];
	qsort(&h->ln[p->l0], (size_t)p->nl, sizeof *h->ln, line_cmp); /* the post-processor sorts host lines by name */
	if (!grouped(h))
		add_pstat(p, "process_id", SV_I64, h->pid, 0, NULL);
}

/* ------------------------------------------------------------------ */
/* GPU planes                                                          */

static void gpu_caps(struct host *h, struct plane *p)
{
	if (h->v == V_JAX) {
		add_pstat(p, "device_vendor", SV_STR, 0, 0, "AMD");
		add_pstat(p, "gpu_device_name", SV_STR, 0, 0, "gfx942");
		add_pstat(p, "clock_rate", SV_I64, 2100000, 0, NULL);
		add_pstat(p, "core_count", SV_I64, 304, 0, NULL);
		add_pstat(p, "memory_bandwidth", SV_U64, 5300000000000LL, 0, NULL);
		add_pstat(p, "memory_size", SV_U64, 206141652992LL, 0, NULL);
		add_pstat(p, "compute_cap_major", SV_I64, 9, 0, NULL);
		add_pstat(p, "compute_cap_minor", SV_I64, 4, 0, NULL);
	} else if (grouped(h)) { /* TF 2.4 recorded no vendor or name */
		add_pstat(p, "clock_rate", SV_I64, 1530000, 0, NULL);
		add_pstat(p, "core_count", SV_I64, 80, 0, NULL);
		add_pstat(p, "memory_bandwidth", SV_U64, 898048000000LL, 0, NULL);
		add_pstat(p, "memory_size", SV_U64, 16945512448LL, 0, NULL);
		add_pstat(p, "compute_cap_major", SV_I64, 7, 0, NULL);
		add_pstat(p, "compute_cap_minor", SV_I64, 0, 0, NULL);
	} else {
		add_pstat(p, "device_vendor", SV_STR, 0, 0, "Nvidia");
		add_pstat(p, "gpu_device_name", SV_STR, 0, 0, "NVIDIA A100-SXM4-40GB");
		add_pstat(p, "clock_rate", SV_I64, 1410000, 0, NULL);
		add_pstat(p, "core_count", SV_I64, 108, 0, NULL);
		add_pstat(p, "memory_bandwidth", SV_U64, 1555200000000LL, 0, NULL);
		add_pstat(p, "memory_size", SV_U64, 42505273344LL, 0, NULL);
		add_pstat(p, "compute_cap_major", SV_I64, 8, 0, NULL);
		add_pstat(p, "compute_cap_minor", SV_I64, 0, 0, NULL);
	}
}

static const char *kname(const struct host *h, int k)
{
	const struct kdef *kd = &KERNELS[k];
	return h->v == V_RAW && kd->ampere ? kd->ampere : kd->volta;
}

static char *kdetails(const struct host *h, int k)
{
	const struct kdef *d = &KERNELS[k];
	if (grouped(h))
		return fmt("regs:%d shm:%d grid:%d,%d,%d block:%d,%d,%d", d->regs, d->sshm + d->dshm, d->g[0], d->g[1],
			   d->g[2], d->b[0], d->b[1], d->b[2]);
	return fmt("regs:%d static_shared:%d dynamic_shared:%d grid:%d,%d,%d block:%d,%d,%d occ_pct:%g", d->regs, d->sshm,
		   d->dshm, d->g[0], d->g[1], d->g[2], d->b[0], d->b[1], d->b[2], d->occ);
}

static char *memcpy_details(const struct host *h, int kind, int bytes, int dev)
{
	if (h->v == V_JAX)
		return fmt("kind:Unknown size:%d dest:%d async:1", bytes, dev);
	if (grouped(h))
		return fmt("size:%d dest:%d async:%d", bytes, dev, kind == L_D2H);
	if (kind == L_H2D)
		return fmt("kind_src:pageable kind_dst:device size:%d dest:%d async:0", bytes, dev);
	return fmt("kind_src:device kind_dst:pageable size:%d dest:%d async:1", bytes, dev);
}

/* name-scope runs: consecutive kernel ops that share a scope prefix form
 * one event on the derived line, as xprof's derived timeline merges them */
static int split_scopes(const char *name, char comp[][64], int max)
{
	int n = 0;
	const char *s = name;
	for (const char *q; (q = strchr(s, '/')) && n < max; s = q + 1) {
		size_t len = (size_t)(q - s) < 63 ? (size_t)(q - s) : 63;
		memcpy(comp[n], s, len);
		comp[n++][len] = 0;
	}
	return n;
}

static void gpu_scopes(struct host *h, struct gpu *G, int r)
{
	struct plane *p = &h->pl[G->plane];
	char comp[MAXOPS][MAXDEPTH][64], pre[32];
	rep_prefix(r, pre, sizeof pre);
	for (int i = 0; i < NMODEL; i++) {
		char *nm = fmt("%s%s", pre, MODEL[i].name);
		G->nscope[i] = MODEL[i].k[0] < 0 ? 0 : split_scopes(nm, comp[i], MAXDEPTH);
		for (int d = 0; d < G->nscope[i]; d++)
			G->scope_md[i][d] = ev_md(p, comp[i][d], NULL);
		free(nm);
	}
	for (int i = NMODEL - 1; i >= 0; i--) {
		for (int d = 0; d < G->nscope[i]; d++) {
			int j = i + 1;
			while (j < NMODEL && MODEL[j].k[0] < 0)
				j++; /* ops without kernels leave no trace on the device */
			bool same = j < NMODEL && G->nscope[j] > d;
			for (int x = 0; same && x <= d; x++)
				same = !strcmp(comp[i][x], comp[j][x]);
			G->run_last[i][d] = same ? G->run_last[j][d] : i;
		}
	}
}

static void gpu_tf_md(struct host *h, struct gpu *G, int r)
{
	struct plane *p = &h->pl[G->plane];
	struct sids *s = &G->s;
	char pre[32];
	SID(correlation_id, "correlation_id");
	if (grouped(h))
		SID(context_id, "context_id");
	SID(kernel_details, "kernel_details");
	if (grouped(h))
		SID(level0, "level 0");
	else
		SID(tf_op, "tf_op");
	SID(memcpy_details, "memcpy_details");
	if (h->v == V_RAW) { /* current collectors add the occupancy calculator's results */
		SID(occ_pct, "theoretical_occupancy_pct");
		SID(occ_grid, "occupancy_min_grid_size");
		SID(occ_block, "occupancy_suggested_block_size");
	}
	if (grouped(h)) {
		SID(group_id, "group_id");
		SID(step_name, "step_name");
	}
	for (int k = 0; k < NK; k++) {
		char *d = kdetails(h, k);
		G->kmd[k] = ev_md(p, kname(h, k), NULL);
		G->kdet[k] = st_add(&p->st, d);
		free(d);
	}
	G->h2d_md = ev_md(p, "MemcpyH2D", NULL);
	G->d2h_md = ev_md(p, "MemcpyD2H", NULL);
	rep_prefix(r, pre, sizeof pre);
	for (int i = 0; i < NMODEL; i++) {
		char *full = fmt("%s%s:%s", pre, MODEL[i].name, MODEL[i].type);
		G->optf[i] = st_add(&p->st, full);
		if (grouped(h) && MODEL[i].k[0] >= 0)
			G->opev[i] = ev_md(p, full, NULL);
		free(full);
	}
	if (grouped(h))
		gpu_scopes(h, G, r);
}

static void gpu_jax_md(struct host *h, struct gpu *G)
{
	struct plane *p = &h->pl[G->plane];
	struct sids *s = &G->s;
	SID(correlation_id, "correlation_id");
	SID(kernel_details, "kernel_details");
	SID(tf_op, "tf_op");
	SID(hlo_op, "hlo_op");
	SID(hlo_module, "hlo_module");
	SID(program_id, "program_id");
	SID(name, "name");
	SID(memcpy_details, "memcpy_details");
	G->xla_module = st_add(&p->st, "XlaModule:");
	G->hlo_module = st_add(&p->st, "jit_train_step");
	for (int k = 0; k < NJAXK; k++) {
		const struct jdef *j = &JAXK[k];
		char *d = fmt(" grid:%d,%d,%d block:%d,%d,%d private_mem:0 group_mem:%d occ_pct:%d", j->g[0], j->g[1], j->g[2],
			      j->b[0], j->b[1], j->b[2], j->group_mem, j->group_mem > 32768 ? 25 : 50);
		G->kmd[k] = ev_md(p, j->kernel, NULL);
		G->kdet[k] = st_add(&p->st, d);
		G->hlo_op[k] = st_add(&p->st, j->hlo_op);
		G->jname[k] = st_add(&p->st, j->name);
		free(d);
	}
	G->h2d_md = ev_md(p, "MemcpyH2D", NULL);
	G->d2h_md = ev_md(p, "MemcpyD2H", NULL);
}

static void build_gpu(struct host *h, int r, int64_t ts)
{
	struct gpu *G = &h->gpu[r];
	char nm[32];
	snprintf(nm, sizeof nm, "/device:GPU:%d", r);
	G->plane = add_plane(h, r, nm);
	struct plane *p = &h->pl[G->plane];
	gpu_caps(h, p);
	int64_t cs = 7 + 10 * r + rr(&h->rng, 0, 3);
	bool jax = h->v == V_JAX;
	G->lcomp = add_line(h, G->plane, R_GPU, r, cs, fmt("Stream #%" PRId64 "(%s)", cs, jax ? "Kernel" : "Compute"), ts);
	G->lh2d = add_line(h, G->plane, R_GPU, r, cs + 4, fmt("Stream #%" PRId64 "(MemcpyH2D)", cs + 4), ts);
	G->ld2h = add_line(h, G->plane, R_GPU, r, cs + 5, fmt("Stream #%" PRId64 "(MemcpyD2H)", cs + 5), ts);
	if (grouped(h)) {
		G->lops = add_line(h, G->plane, R_GPU, r, DERIVED_ID + 3, fmt("TensorFlow Ops"), ts);
		G->lscope = add_line(h, G->plane, R_GPU, r, DERIVED_ID + 2, fmt("TensorFlow Name Scope"), ts);
		G->lsteps = add_line(h, G->plane, R_GPU, r, DERIVED_ID, fmt("Steps"), ts);
	}
	if (jax)
		gpu_jax_md(h, G);
	else
		gpu_tf_md(h, G, r);
	for (int li = 0; li < h->nlt; li++) {
		if (h->lt[li].kind == L_KERNEL)
			continue;
		G->ldet_s[li] = memcpy_details(h, h->lt[li].kind, h->lt[li].bytes, r);
		if (!grouped(h))
			G->ldet[li] = st_add(&p->st, G->ldet_s[li]);
	}
	/* step events are named by their group id; interned last so the ids run
	 * consecutively and a shortened capture can drop the tail */
	for (int64_t s = 0; grouped(h) && s < h->steps; s++) {
		char b[24];
		snprintf(b, sizeof b, "%" PRId64, s);
		int64_t id = ev_md(p, b, NULL);
		if (!s)
			G->step_md0 = id;
	}
	G->dt = xcalloc(64, sizeof(int64_t));
	G->dd = xcalloc(64, sizeof(int64_t));
	G->lt = xcalloc(64, sizeof(int64_t));
	G->ld = xcalloc(64, sizeof(int64_t));
}

/* ------------------------------------------------------------------ */
/* simulated graph: launches, allocators, executor threads             */

static void build_launches(struct host *h)
{
	h->nlt = 0;
	if (h->v == V_JAX) {
		h->lt[h->nlt++] = (struct ltmpl){L_H2D, 0, -1, 1048576};
		for (int k = 0; k < NJAXK; k++)
			h->lt[h->nlt++] = (struct ltmpl){L_KERNEL, 0, (int8_t)k, 0};
		h->lt[h->nlt++] = (struct ltmpl){L_D2H, 0, -1, 4};
		return;
	}
	for (int i = 0; i < NMODEL; i++) {
		h->op_l0[i] = h->nlt;
		if (MODEL[i].io == IO_WAIT) {
			h->lt[h->nlt++] = (struct ltmpl){L_H2D, (uint8_t)i, -1, 100352};
			h->lt[h->nlt++] = (struct ltmpl){L_H2D, (uint8_t)i, -1, 128};
		}
		for (int j = 0; j < 3 && MODEL[i].k[j] >= 0; j++)
			h->lt[h->nlt++] = (struct ltmpl){L_KERNEL, (uint8_t)i, MODEL[i].k[j], 0};
		if (MODEL[i].io == IO_D2H)
			h->lt[h->nlt++] = (struct ltmpl){L_D2H, (uint8_t)i, -1, 4};
		h->op_nl[i] = h->nlt - h->op_l0[i];
	}
}

/* outputs of op j are freed by op j+2 (their last consumer), the rest by the
 * graph's last op, so every step ends with the allocator back at its baseline */
static void build_frees(struct host *h)
{
	for (int g = 0; g < 2; g++) {
		int n = graph_len(g);
		for (int j = 0; j < n; j++)
			if (graph_op(g, j)->out_bytes)
				h->nfree[g][j + 2 < n ? j + 2 : n - 1]++;
	}
}

static int add_alc(struct host *h, const char *name, int64_t limit, int64_t base, int64_t inuse)
{
	h->alc = xrealloc(h->alc, (size_t)(h->nalc + 1) * sizeof *h->alc);
	struct alc *a = &h->alc[h->nalc];
	memset(a, 0, sizeof *a);
	a->name = fmt("%s", name);
	a->ref = hstr(h, name);
	a->limit = limit;
	a->base = base;
	a->inuse = inuse;
	a->peak = inuse + 64 * 1048576LL; /* warm-up steps before the profile peaked higher */
	a->inuse0 = a->inuse;
	a->peak0 = a->peak;
	return h->nalc++;
}

static void add_slots(struct heavy *hv, int graph, int rep, int alc)
{
	int n = graph_len(graph);
	hv->sl = xrealloc(hv->sl, (size_t)(hv->nslots + n) * sizeof *hv->sl);
	for (int i = 0; i < n; i++)
		hv->sl[hv->nslots++] = (struct slot){.rep = rep, .op = i, .graph = graph, .alc = alc};
}

/* replicas are interleaved op by op on a shared executor thread */
static void add_replica_slots(struct host *h, struct heavy *hv, int first, const int *alcs)
{
	hv->sl = xrealloc(hv->sl, (size_t)(hv->nslots + NMODEL * h->nrep) * sizeof *hv->sl);
	for (int i = 0; i < NMODEL; i++)
		for (int r = first; r < h->nrep; r += 2)
			hv->sl[hv->nslots++] = (struct slot){.rep = r, .op = i, .graph = 0, .alc = alcs[r]};
}

static void build_heavy(struct host *h)
{
	int alcs[MAXGPU];
	int64_t limit = grouped(h) ? 15080950784LL : 40190427136LL;
	for (int r = 0; r < h->nrep; r++) {
		char nm[32];
		snprintf(nm, sizeof nm, "GPU_%d_bfc", r);
		alcs[r] = add_alc(h, nm, limit, 0x7f2a00000000LL + ((int64_t)r << 36), 157286400LL + r * 4096LL);
	}
	for (int k = 0; k < 2; k++)
		h->hv[k].line = h->rl[R_HEAVY][k];
	if (h->v == V_CPU) {
		int cpu = add_alc(h, "cpu", 68719476736LL, 0x55d3c0000000LL, 50331648LL);
		add_slots(&h->hv[0], 0, -1, cpu);
		add_slots(&h->hv[1], 1, -1, -1);
	} else if (h->nrep == 1) {
		int cpu = add_alc(h, "cpu", 68719476736LL, 0x55d3c0000000LL, 50331648LL);
		add_slots(&h->hv[0], 0, 0, alcs[0]);
		add_slots(&h->hv[1], 1, -1, cpu);
	} else {
		add_replica_slots(h, &h->hv[0], 0, alcs);
		add_replica_slots(h, &h->hv[1], 1, alcs);
	}
	for (int k = 0; k < 2; k++) {
		struct heavy *hv = &h->hv[k];
		int nch = 0;
		for (int i = 0; i < hv->nslots; i++)
			nch += 4 + h->op_nl[hv->sl[i].op] + h->nfree[hv->sl[i].graph][hv->sl[i].op];
		hv->ch = xcalloc((size_t)nch, sizeof *hv->ch);
	}
}

static void build_jax_alcs(struct host *h)
{
	for (int r = 0; r < h->gpus; r++) {
		char nm[32];
		snprintf(nm, sizeof nm, "GPU_%d_bfc", r);
		add_alc(h, nm, 199715979264LL, 0x7ef000000000LL + ((int64_t)r << 38), 8589934592LL);
	}
}

static void build_taskenv(struct host *h)
{
	int pi = add_plane(h, 0, "Task Environment");
	uint64_t start = 1767225600000000000ULL + (h->seed % 1000000) * 1000000ULL;
	add_pstat(&h->pl[pi], "profile_start_time", SV_U64, (int64_t)start, 0, NULL);
	add_pstat(&h->pl[pi], "profile_stop_time", SV_U64, (int64_t)start, 0, NULL); /* set after pass 1 */
}

/* odd-but-readable content for the readers' tolerance tests */
static void build_odd(struct host *h, int64_t ts)
{
	struct plane *p = &h->pl[h->hostp];
	int64_t pyid = h->ln[h->rl[h->v == V_JAX ? R_JPY : R_PYTHON][0]].id;
	h->odd_ev_md = ev_md(p, "odd_event", NULL);
	h->odd_odd_stat = st_add(&p->st, "odd_ref");
	static const char bad[] = "bad\xff\xfe name \xc3"; /* not UTF-8: stray bytes and a cut sequence */
	h->odd_bad_name_md = st_add_n(&p->ev, bad, sizeof bad - 1);
	add_line(h, h->hostp, R_ODD, 0, 4242, fmt("odd_thread/4242"), ts);
	add_line(h, h->hostp, R_ODD_UNSORTED, 0, 4243, fmt("odd_unsorted/4243"), ts);
	add_line(h, h->hostp, R_ODD_DUPID, 0, pyid, fmt("%s", h->v == V_JAX ? "python" : "python3"), ts);
	add_line(h, h->hostp, R_ODD_EPOCH, 0, 4244, fmt("odd_epoch/4244"), 1700000000123456789LL);
	h->tr.odd_missing_event_md = h->tr.odd_missing_stat_md = h->tr.odd_dangling_ref = 1;
	h->tr.odd_bad_utf8 = h->tr.odd_unsorted_lines = h->tr.odd_dup_line_ids = h->tr.odd_epoch_lines = 1;
	h->tr.odd_unknown_fields = h->tr.odd_negative_durations = 1;
}

static void build_odd_planes(struct host *h, int64_t ts)
{
	int a = add_plane(h, 0, "/host:CPU"); /* a second chunk of the host plane */
	ev_md(&h->pl[a], "odd_chunk_event", NULL);
	add_line(h, a, R_ODD_CHUNK, 0, 4245, fmt("odd_chunk/4245"), ts);
	int b = add_plane(h, 0, "/host:CPU [4242]"); /* a merged sub-process */
	ev_md(&h->pl[b], "odd_subprocess_event", NULL);
	add_pstat(&h->pl[b], "process_id", SV_I64, 4242, 0, NULL);
	add_line(h, b, R_ODD_PID, 0, 4242, fmt("python3"), ts);
	h->tr.odd_dup_planes = h->tr.odd_pid_planes = 1;
}

static void map_roles(struct host *h)
{
	memset(h->rl, -1, sizeof h->rl);
	for (int i = 0; i < h->nln; i++)
		if (h->ln[i].ri < MAXRI)
			h->rl[h->ln[i].role][h->ln[i].ri] = i;
}

static void build_host(struct host *h)
{
	h->rng.s = h->seed;
	h->pid = rr(&h->rng, 1000, 4194303);
	h->prefetch_id = (int64_t)(rnext(&h->rng) >> 2);
	h->batch_id = (int64_t)(rnext(&h->rng) >> 2);
	h->map_id = (int64_t)(rnext(&h->rng) >> 2);
	h->tfrecord_id = (int64_t)(rnext(&h->rng) >> 2);
	h->program_id = rr(&h->rng, 1000000, 9999999);
	h->step_base = 10;
	int64_t host_ts = rr(&h->rng, 150000, 350000); /* lines are normalized: ns since the session start */
	int64_t dev_ts = host_ts + rr(&h->rng, 3000, 9000);
	build_launches(h);
	build_host_plane(h, host_ts);
	map_roles(h);
	if (h->o->odd)
		build_odd(h, host_ts);
	for (int r = 0; r < h->gpus; r++)
		build_gpu(h, r, dev_ts);
	if (!grouped(h))
		build_taskenv(h);
	if (h->o->odd)
		build_odd_planes(h, host_ts);
	map_roles(h);
	if (h->v == V_JAX) {
		build_jax_alcs(h);
	} else {
		build_frees(h);
		build_heavy(h);
	}
	if (h->steps <= STEP_LIST_MAX) {
		h->tr.st_start = xcalloc((size_t)h->steps, sizeof(int64_t));
		h->tr.st_dur = xcalloc((size_t)h->steps, sizeof(int64_t));
		h->tr.st_wait = xcalloc((size_t)h->steps, sizeof(int64_t));
		h->tr.st_dev = xcalloc((size_t)h->steps, sizeof(int64_t));
	}
}

/* ------------------------------------------------------------------ */
/* simulation, TF flavour: each step is laid out first (all times, the  */
/* device queue), then emitted line by line in time order              */

static int64_t corr_id(const struct host *h, int64_t s, int rep, int li)
{
	int nrep = h->gpus > 0 ? h->gpus : 1;
	return 1 + (s * nrep + (rep < 0 ? 0 : rep)) * h->nlt + li;
}

static int64_t step_id(const struct host *h, int64_t s)
{
	return (int64_t)(mix64(h->seed ^ (uint64_t)(s + 1) * 0xd1b54a32d192ed03ULL) >> 2);
}

static int ctx_type(const struct host *h) { return grouped(h) ? 1 : 2; } /* legacy in TF 2.4, tf_executor now */

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t input_wait(struct host *h)
{
	int big = 10 + 5 * (h->index % 3); /* the hosts of a pod differ a little */
	if (rr(&h->rng, 0, 99) < big)
		return rr(&h->rng, 150, 900) * US;
	return rr(&h->rng, 8, 40) * US;
}

static void add_child(struct heavy *hv, int *ci, int kind, int64_t t, int64_t d, int launch)
{
	hv->ch[*ci] = (struct child){t, d, (uint8_t)kind, (int16_t)launch};
	(*ci)++;
}

static int64_t lay_launches(struct host *h, struct heavy *hv, const struct slot *sl, int *ci, int64_t x)
{
	for (int li = h->op_l0[sl->op]; li < h->op_l0[sl->op] + h->op_nl[sl->op]; li++) {
		int64_t d = rr(&h->rng, 2500, 5500);
		add_child(hv, ci, C_LAUNCH, x, d, li);
		h->gpu[sl->rep].lt[li] = x;
		h->gpu[sl->rep].ld[li] = d;
		x += d + rr(&h->rng, 300, 800);
	}
	return x;
}

/* one op with its nested events; returns the time after its ExecutorPropagateOutputs */
static int64_t lay_slot(struct host *h, struct heavy *hv, struct slot *sl, int *ci, int64_t c)
{
	const struct odef *od = graph_op(sl->graph, sl->op);
	bool gpu = h->v != V_CPU && sl->rep >= 0 && sl->graph == 0;
	bool mem = sl->alc >= 0;
	int64_t x = c + US;
	sl->t = c;
	sl->c0 = *ci;
	if (od->io == IO_WAIT && sl->rep <= 0) {
		/* waits for input while IteratorGetNextOp::DoCompute runs on a tf.data thread */
		h->g0 = c + US / 2;
		x = h->g0 + h->W + US / 2;
	}
	if (mem && od->out_bytes) {
		add_child(hv, ci, C_ALLOC_OUT, x, 0, -1);
		x += rr(&h->rng, 300, 700);
	}
	if (mem && od->temp_bytes) {
		add_child(hv, ci, C_ALLOC_TEMP, x, 0, -1);
		x += rr(&h->rng, 200, 500);
	}
	if (gpu)
		x = lay_launches(h, hv, sl, ci, x);
	if (mem && od->temp_bytes) {
		add_child(hv, ci, C_FREE_TEMP, x, 0, -1);
		x += rr(&h->rng, 200, 400);
	}
	for (int k = 0; mem && k < h->nfree[sl->graph][sl->op]; k++) {
		add_child(hv, ci, C_FREE_OLD, x, 0, -1);
		x += rr(&h->rng, 200, 400);
	}
	sl->d = jit(&h->rng, (gpu ? od->host_us : od->cpu_us) * US, 10);
	if (sl->d < x - c + 500)
		sl->d = x - c + rr(&h->rng, 500, 1500);
	sl->nc = *ci - sl->c0;
	sl->et = c + sl->d + rr(&h->rng, 200, 600);
	sl->ed = rr(&h->rng, 300, 1500);
	return sl->et + sl->ed + rr(&h->rng, 300, 900);
}

static void lay_heavy(struct host *h, int k, int64_t c)
{
	struct heavy *hv = &h->hv[k];
	int ci = 0;
	hv->p0 = c;
	c += 2 * US;
	for (int i = 0; i < hv->nslots; i++)
		c = lay_slot(h, hv, &hv->sl[i], &ci, c);
	hv->p1 = c + 2 * US;
}

static int64_t dev_dur(struct host *h, const struct ltmpl *l)
{
	if (l->kind == L_KERNEL)
		return jit(&h->rng, (h->v == V_JAX ? JAXK[l->kern].us : KERNELS[l->kern].us) * US, 10);
	return 1500 + l->bytes / 12 + rr(&h->rng, 0, 500); /* about 12 GB/s over PCIe */
}

/* a replica's device work runs in launch order, one operation at a time */
static void lay_device(struct host *h, int r)
{
	struct gpu *G = &h->gpu[r];
	int64_t f = G->free_at;
	G->step_lo = INT64_MAX;
	G->step_hi = 0;
	for (int li = 0; li < h->nlt; li++) {
		/* separate statements: C leaves the order of argument evaluation
		 * open; this is the order the first (gcc-built) fixtures used */
		int64_t gap = rr(&h->rng, 1000, 2500);
		int64_t ready = G->lt[li] + rr(&h->rng, 4000, 8000);
		int64_t t = max64(ready, f + gap);
		G->dt[li] = t;
		G->dd[li] = dev_dur(h, &h->lt[li]);
		f = t + G->dd[li];
		if (t < G->step_lo)
			G->step_lo = t;
		G->step_hi = f;
	}
	G->free_at = f;
}

/* the prefetch thread builds the next batch from NB parallel-map elements */
static void lay_producer(struct host *h, int64_t t0)
{
	h->prod_t0 = t0;
	h->cj[0] = t0 + 17 * US;
	for (int j = 1; j < NB; j++)
		h->cj[j] = h->cj[j - 1] + rr(&h->rng, 18, 22) * US;
	h->prod_t1 = h->cj[NB - 1] + 3 * US;
}

static void tf_layout(struct host *h, int64_t s)
{
	h->S = h->t_next;
	h->W = input_wait(h);
	h->step_id = step_id(h, s);
	h->proc_t = h->S + 25 * US;
	lay_heavy(h, 0, h->proc_t);
	lay_heavy(h, 1, h->proc_t + h->W + 20 * US); /* the other thread's ops need the input too */
	int64_t end = max64(h->hv[0].p1, h->hv[1].p1);
	for (int r = 0; r < h->gpus; r++) {
		lay_device(h, r);
		end = max64(end, h->gpu[r].step_hi);
	}
	h->light_t = h->g0 + h->W + 30 * US;
	lay_producer(h, h->g0 + h->W + 8 * US);
	end = max64(end, max64(h->prod_t1, h->light_t + 115 * US));
	h->Epre = end + 2 * US;
	h->E = h->Epre + 12 * US + rr(&h->rng, 0, 8) * US;
	h->t_next = h->E + rr(&h->rng, 20, 60) * US;
}

/* ---- TF emission ---- */

static void em_python(struct host *h, int64_t s)
{
	int li = h->rl[R_PYTHON][0];
	const struct line *L = &h->ln[li];
	const struct sids *k = &h->hs;
	int64_t S = h->S, D = h->E - h->S;
	struct ev e;
	ev_begin(&e, L, h->he.train, S, D);
	ev_i64(&e, k->step_num, h->step_base + s);
	ev_i64(&e, k->r, 1);
	if (grouped(h)) {
		char b[40];
		snprintf(b, sizeof b, "train %" PRId64, h->step_base + s);
		ev_i64(&e, k->group_id, s);
		ev_str(&e, k->step_name, b);
	}
	emit(h, li, &e);
	ev_begin(&e, L, h->he.train_function, S + 2 * US, D - 4 * US);
	ev_hs(h, &e, k->tf_function_call, h->fn_call_ref);
	ev_i64(&e, k->tracing_count, 1);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
	ev_begin(&e, L, h->he.function_run, S + 4 * US, D - 8 * US);
	ev_i64(&e, k->id, h->step_id);
	if (!grouped(h))
		ev_i64(&e, k->r, 1);
	ev_i64(&e, k->pt, ctx_type(h));
	ev_u64(&e, k->p, (uint64_t)h->step_id);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
}

static void mem_common(struct host *h, struct ev *e, const struct line *L, int64_t t, const struct alc *a, bool alloc,
		       int64_t req, int64_t bytes, int64_t addr)
{
	const struct sids *k = &h->hs;
	ev_begin(e, L, alloc ? h->he.mem_alloc : h->he.mem_dealloc, t, 0);
	ev_hs(h, e, k->allocator_name, a->ref);
	ev_i64(e, k->bytes_reserved, a->reserved);
	ev_i64(e, k->bytes_allocated, a->inuse);
	ev_i64(e, k->bytes_available, a->limit - a->reserved - a->inuse);
	ev_dbl(e, k->fragmentation, (double)((a->inuse >> 12) % 97) / 1000.0);
	ev_i64(e, k->peak_bytes_in_use, a->peak);
	ev_i64(e, k->requested_bytes, req);
	ev_i64(e, k->allocation_bytes, bytes);
	ev_i64(e, k->addr, addr);
}

static int64_t alc_take(struct host *h, struct alc *a, int64_t req, int64_t *bytes)
{
	*bytes = req < 256 ? 256 : (req + 255) & ~255LL; /* BFC rounds to 256-byte chunks */
	int64_t addr = a->base + a->off;
	a->off += *bytes;
	a->inuse += *bytes;
	if (a->inuse > a->peak)
		a->peak = a->inuse;
	a->nalloc++;
	h->tr.mem_alloc++;
	return addr;
}

static void alc_give(struct host *h, struct alc *a, int64_t bytes)
{
	a->inuse -= bytes;
	a->nfree++;
	h->tr.mem_dealloc++;
}

static void em_alloc(struct host *h, int li, int64_t t, const struct slot *sl, bool temp, int64_t s)
{
	const struct odef *od = graph_op(sl->graph, sl->op);
	const struct sids *k = &h->hs;
	struct alc *a = &h->alc[sl->alc];
	int64_t req = temp ? od->temp_bytes : od->out_bytes, bytes;
	int64_t addr = alc_take(h, a, req, &bytes);
	int r = sl->rep < 0 ? 0 : sl->rep;
	if (temp) {
		a->temp_addr = addr;
		a->temp_bytes = bytes;
		a->temp_req = req;
	} else {
		int n = graph_len(sl->graph), q = a->qt++ % 64;
		a->qaddr[q] = addr;
		a->qbytes[q] = bytes;
		a->qreq[q] = req;
		a->qat[q] = sl->op + 2 < n ? sl->op + 2 : n - 1;
	}
	struct ev e;
	mem_common(h, &e, &h->ln[li], t, a, true, req, bytes, addr);
	ev_hs(h, &e, k->tf_op, h->opfull[sl->graph][r][sl->op]);
	ev_i64(&e, k->id, h->step_id);
	ev_hs(h, &e, k->region_type, temp ? h->region_temp : h->region_out);
	ev_i64(&e, k->data_type, od->dtype);
	if (od->shape && !temp)
		ev_hs(h, &e, k->shape, h->shape_ref[sl->graph][sl->op]);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
}

static void em_free(struct host *h, int li, int64_t t, struct alc *a, int64_t addr, int64_t bytes, int64_t req, int64_t s)
{
	struct ev e;
	alc_give(h, a, bytes);
	mem_common(h, &e, &h->ln[li], t, a, false, req, bytes, addr);
	ev_group(h, &e, h->hs.group_id, s);
	emit(h, li, &e);
}

static void em_free_old(struct host *h, int li, int64_t t, const struct slot *sl, int64_t s)
{
	struct alc *a = &h->alc[sl->alc];
	if (a->qh == a->qt || a->qat[a->qh % 64] > sl->op)
		die(4, "internal: allocator queue out of step");
	int q = a->qh++ % 64;
	em_free(h, li, t, a, a->qaddr[q], a->qbytes[q], a->qreq[q], s);
}

static void em_launch(struct host *h, int li, const struct child *c, const struct slot *sl, int64_t s)
{
	const struct ltmpl *l = &h->lt[c->launch];
	const struct sids *k = &h->hs;
	int64_t md = l->kind == L_H2D ? h->he.h2d_launch : l->kind == L_D2H ? h->he.d2h_launch
		: grouped(h) ? h->hkmd[l->kern] : h->he.launch;
	struct ev e;
	ev_begin(&e, &h->ln[li], md, c->t, c->d);
	ev_u64(&e, k->correlation_id, (uint64_t)corr_id(h, s, sl->rep, c->launch));
	ev_u64(&e, k->device_id, (uint64_t)sl->rep);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
	h->tr.launches++;
}

static void em_epo(struct host *h, int li, int64_t t, int64_t d, int64_t name_ref, int edges, int64_t s)
{
	const struct sids *k = &h->hs;
	struct ev e;
	ev_begin(&e, &h->ln[li], h->he.epo, t, d);
	ev_i64(&e, k->id, h->step_id);
	ev_hs(h, &e, k->kernel_name, name_ref);
	ev_i64(&e, k->num_output_edges, edges);
	ev_i64(&e, k->num_output_control_edges, 0);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
}

static void em_child(struct host *h, int li, const struct child *c, const struct slot *sl, int64_t s)
{
	struct alc *a = sl->alc >= 0 ? &h->alc[sl->alc] : NULL;
	switch (c->kind) {
	case C_ALLOC_OUT:
		em_alloc(h, li, c->t, sl, false, s);
		break;
	case C_ALLOC_TEMP:
		em_alloc(h, li, c->t, sl, true, s);
		break;
	case C_LAUNCH:
		em_launch(h, li, c, sl, s);
		break;
	case C_FREE_TEMP:
		em_free(h, li, c->t, a, a->temp_addr, a->temp_bytes, a->temp_req, s);
		break;
	default:
		em_free_old(h, li, c->t, sl, s);
		break;
	}
}

static void em_slot(struct host *h, struct heavy *hv, const struct slot *sl, int64_t s)
{
	int r = sl->rep < 0 ? 0 : sl->rep;
	struct ev e;
	ev_begin(&e, &h->ln[hv->line], h->opev[sl->graph][r][sl->op], sl->t, sl->d);
	if (grouped(h)) {
		ev_i64(&e, h->hs.group_id, s);
		ev_i64(&e, h->hs.is_eager, 0);
	}
	emit(h, hv->line, &e);
	for (int i = sl->c0; i < sl->c0 + sl->nc; i++)
		em_child(h, hv->line, &hv->ch[i], sl, s);
	em_epo(h, hv->line, sl->et, sl->ed, h->opname[sl->graph][r][sl->op], 1 + sl->op % 3, s);
}

static void em_process(struct host *h, int li, int64_t t, int64_t d, int64_t s)
{
	const struct sids *k = &h->hs;
	struct ev e;
	ev_begin(&e, &h->ln[li], h->he.process, t, d);
	ev_i64(&e, k->id, h->step_id);
	ev_i64(&e, k->iter_num, 0);
	ev_i64(&e, k->ct, ctx_type(h));
	ev_u64(&e, k->c, (uint64_t)h->step_id);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
}

static void em_heavy(struct host *h, int k, int64_t s)
{
	struct heavy *hv = &h->hv[k];
	em_process(h, hv->line, hv->p0, hv->p1 - hv->p0, s);
	for (int i = 0; i < hv->nslots; i++)
		em_slot(h, hv, &hv->sl[i], s);
}

static void em_consumer(struct host *h, int64_t s)
{
	int li = h->rl[R_GETNEXT][0];
	const struct line *L = &h->ln[li];
	const struct sids *k = &h->hs;
	int64_t g0 = h->g0, W = h->W;
	struct ev e;
	ev_begin(&e, L, h->he.getnext, g0, W);
	ev_i64(&e, k->id, h->step_id);
	ev_i64(&e, k->iter_num, 0);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
	ev_begin(&e, L, h->he.it_prefetch, g0 + US, W - 2 * US);
	ev_i64(&e, k->id, h->prefetch_id);
	ev_i64(&e, k->buffer_limit, 2);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
	ev_begin(&e, L, h->he.prefetch_consume, g0 + W - 3 * US, US);
	ev_i64(&e, k->element_id, s);
	ev_group(h, &e, k->group_id, s);
	emit(h, li, &e);
	em_epo(h, li, g0 + W + US, US, h->ref_getnext, 2, s);
}

static void em_iter(struct host *h, int li, int64_t md, int64_t t, int64_t d, int64_t id, int64_t parent)
{
	struct ev e;
	ev_begin(&e, &h->ln[li], md, t, d);
	ev_i64(&e, h->hs.id, id);
	ev_i64(&e, h->hs.parent_id, parent);
	emit(h, li, &e);
}

static void em_element(struct host *h, int li, int64_t md, int64_t t, int64_t d, int64_t el)
{
	struct ev e;
	ev_begin(&e, &h->ln[li], md, t, d);
	ev_i64(&e, h->hs.element_id, el);
	emit(h, li, &e);
}

/* a parallel-map worker: read a record, run the map function */
static void em_worker(struct host *h, int j, int64_t el)
{
	int li = h->rl[R_POOL][j % 2];
	const struct sids *k = &h->hs;
	int64_t ws = h->cj[j] - 30 * US, tr = rr(&h->rng, 4, 8) * US;
	int64_t fid = (int64_t)(mix64(h->seed ^ 0xda7aULL ^ (uint64_t)(el * NB + j)) >> 2);
	struct ev e;
	em_element(h, li, h->he.map_produce, ws, 29 * US, el * NB + j);
	em_iter(h, li, h->he.it_tfrecord, ws + US, tr, h->tfrecord_id, h->map_id);
	ev_begin(&e, &h->ln[li], h->he.captured_run, ws + 2 * US + tr, h->cj[j] - 2 * US - (ws + 2 * US + tr));
	ev_i64(&e, k->id, fid);
	emit(h, li, &e);
	ev_begin(&e, &h->ln[li], h->he.function_run, ws + 3 * US + tr, h->cj[j] - 3 * US - (ws + 3 * US + tr));
	ev_i64(&e, k->id, fid);
	if (!grouped(h))
		ev_i64(&e, k->r, 1); /* tf.data function runs look like roots; grouping must drop them */
	emit(h, li, &e);
}

static void em_producer(struct host *h, int64_t el)
{
	int li = h->rl[R_RESOURCE][0];
	int64_t t0 = h->prod_t0, t1 = h->prod_t1;
	em_element(h, li, h->he.prefetch_produce, t0, t1 - t0, el);
	em_iter(h, li, h->he.it_batch, t0 + US, t1 - t0 - 2 * US, h->batch_id, h->prefetch_id);
	for (int j = 0; j < NB; j++) {
		em_iter(h, li, h->he.it_map, h->cj[j] - 15 * US, 16 * US, h->map_id, h->batch_id);
		em_element(h, li, h->he.map_consume, h->cj[j], 500, el * NB + j);
	}
	for (int j = 0; j < NB; j++)
		em_worker(h, j, el);
}

static void em_small_exec(struct host *h, int li, int64_t a, int64_t op_md, int64_t name_ref, int64_t s)
{
	struct ev e;
	em_process(h, li, a, 9 * US, s);
	ev_begin(&e, &h->ln[li], op_md, a + 2 * US, 3 * US);
	if (grouped(h)) {
		ev_i64(&e, h->hs.group_id, s);
		ev_i64(&e, h->hs.is_eager, 0);
	}
	emit(h, li, &e);
	em_epo(h, li, a + 5500, 2 * US, name_ref, 1, s);
}

/* the threads that hold the remaining ~20 % of the host events */
static void em_light(struct host *h, int64_t s)
{
	int64_t a0 = h->light_t;
	for (int k = 0; k < MAXRI; k++)
		if (h->rl[R_COMPUTE][k] >= 0)
			em_small_exec(h, h->rl[R_COMPUTE][k], a0 + k * 12 * US, h->he.identity_op, h->ref_ident, s);
	if (h->rl[R_GPUPRIV][0] >= 0)
		em_small_exec(h, h->rl[R_GPUPRIV][0], a0 + 75 * US, h->he.retval_op, h->ref_retval, s);
	if (h->gpus > 1 || s % 16 == 0)
		emit0(h, h->rl[R_COLLECTIVE][0], h->he.collective, a0 + 88 * US, 10 * US);
	for (int k = 0; k < 2; k++)
		if (s % 8 == k * 4)
			em_epo(h, h->rl[R_MULTI][k], a0 + 100 * US + k * 5 * US, 3 * US, h->ref_mdi, 1, s);
	if (s % 8 == 3)
		em_epo(h, h->rl[R_RESOURCE][1], a0 + 110 * US, 2 * US, h->ref_getnext, 1, s);
}

static void em_evmgr(struct host *h, int64_t s)
{
	for (int k = 0; k < 6; k++) {
		int li = h->rl[R_EVMGR][k];
		if (li < 0)
			continue;
		if (k == 0) {
			struct ev e;
			ev_begin(&e, &h->ln[li], h->he.done_cb, h->Epre, 3 * US);
			ev_i64(&e, h->hs.id, h->step_id);
			emit(h, li, &e);
		} else if (k <= 2) {
			em_epo(h, li, h->Epre + 4 * US * k, 2 * US, h->ref_retval, 1, s);
		} else if (s % 16 == k) {
			em_epo(h, li, h->Epre + US, 2 * US, h->ref_retval, 1, s);
		}
	}
}

/* what the CUPTI/ROCm collector attaches to a device event */
static void device_stats(const struct host *h, const struct gpu *G, const struct ltmpl *l, int li, struct ev *e)
{
	const struct sids *k = &G->s;
	if (l->kind != L_KERNEL) {
		if (grouped(h))
			ev_str(e, k->memcpy_details, G->ldet_s[li]);
		else
			ev_ref(e, k->memcpy_details, G->ldet[li]);
	} else {
		ev_ref(e, k->kernel_details, G->kdet[l->kern]);
	}
	if (k->occ_pct && l->kind == L_KERNEL) {
		const struct kdef *kd = &KERNELS[l->kern];
		ev_dbl(e, k->occ_pct, kd->occ);
		ev_i64(e, k->occ_grid, 2L * 108);
		ev_i64(e, k->occ_block, kd->b[0] >= 1024 ? 1024 : 2 * kd->b[0]);
	}
	if (h->v == V_JAX && l->kind == L_KERNEL) {
		ev_ref(e, k->tf_op, G->xla_module);
		ev_ref(e, k->hlo_module, G->hlo_module);
		ev_ref(e, k->hlo_op, G->hlo_op[l->kern]);
		ev_i64(e, k->program_id, h->program_id);
		ev_ref(e, k->name, G->jname[l->kern]);
	} else if (h->v != V_JAX) {
		ev_ref(e, grouped(h) ? k->level0 : k->tf_op, G->optf[l->op]);
	}
}

static void count_device_event(struct host *h, const struct ltmpl *l, int64_t d)
{
	if (l->kind == L_KERNEL) {
		h->tr.kernels++;
		h->tr.kernel_ps += (uint64_t)d * 1000;
		h->tr.kused[l->kern] = 1;
	} else if (l->kind == L_H2D) {
		h->tr.h2d++;
		h->tr.h2d_bytes += (uint64_t)l->bytes;
	} else {
		h->tr.d2h++;
		h->tr.d2h_bytes += (uint64_t)l->bytes;
	}
}

static void em_device_event(struct host *h, int r, int li, int64_t s)
{
	struct gpu *G = &h->gpu[r];
	const struct ltmpl *l = &h->lt[li];
	int line = l->kind == L_KERNEL ? G->lcomp : l->kind == L_H2D ? G->lh2d : G->ld2h;
	int64_t md = l->kind == L_KERNEL ? G->kmd[l->kern] : l->kind == L_H2D ? G->h2d_md : G->d2h_md;
	struct ev e;
	ev_begin(&e, &h->ln[line], md, G->dt[li], G->dd[li]);
	ev_u64(&e, G->s.correlation_id, (uint64_t)corr_id(h, s, r, li));
	if (grouped(h))
		ev_str(&e, G->s.context_id, "$$1");
	device_stats(h, G, l, li, &e);
	ev_group(h, &e, G->s.group_id, s);
	emit(h, line, &e);
	count_device_event(h, l, G->dd[li]);
}

/* span of an op's kernels on the device this step */
static void op_kspan(const struct host *h, const struct gpu *G, int op, int64_t *t0, int64_t *t1)
{
	*t0 = INT64_MAX;
	*t1 = 0;
	for (int li = h->op_l0[op]; li < h->op_l0[op] + h->op_nl[op]; li++) {
		if (h->lt[li].kind != L_KERNEL)
			continue;
		if (G->dt[li] < *t0)
			*t0 = G->dt[li];
		*t1 = max64(*t1, G->dt[li] + G->dd[li]);
	}
}

static void em_group_ev(struct host *h, int line, int64_t md, int64_t t, int64_t d, int64_t gsid, int64_t s)
{
	struct ev e;
	ev_begin(&e, &h->ln[line], md, t, d);
	ev_i64(&e, gsid, s);
	emit(h, line, &e);
}

/* TF 2.4 wrote the derived lines into the capture */
static void em_derived(struct host *h, int r, int64_t s)
{
	struct gpu *G = &h->gpu[r];
	int64_t gs = G->s.group_id, t0, t1, u0, u1;
	for (int i = 0; i < NMODEL; i++) {
		if (MODEL[i].k[0] < 0)
			continue;
		op_kspan(h, G, i, &t0, &t1);
		em_group_ev(h, G->lops, G->opev[i], t0, t1 - t0, gs, s);
	}
	int prev = -1;
	for (int i = 0; i < NMODEL; i++) {
		if (MODEL[i].k[0] < 0)
			continue;
		op_kspan(h, G, i, &t0, &t1);
		for (int d = 0; d < G->nscope[i]; d++) {
			bool starts = prev < 0 || G->nscope[prev] <= d || G->run_last[prev][d] != G->run_last[i][d];
			if (!starts)
				continue;
			op_kspan(h, G, G->run_last[i][d], &u0, &u1);
			em_group_ev(h, G->lscope, G->scope_md[i][d], t0, u1 - t0, gs, s);
		}
		prev = i;
	}
	char b[40];
	struct ev e;
	snprintf(b, sizeof b, "train %" PRId64, h->step_base + s);
	ev_begin(&e, &h->ln[G->lsteps], G->step_md0 + s, G->step_lo, G->step_hi - G->step_lo);
	ev_i64(&e, gs, s);
	ev_str(&e, G->s.step_name, b);
	emit(h, G->lsteps, &e);
}

static void tf_emit(struct host *h, int64_t s)
{
	for (int i = 0; i < h->nalc; i++)
		if (h->alc[i].qh == h->alc[i].qt)
			h->alc[i].off = 0; /* every chunk of the last step is back: BFC hands out the same addresses */
	em_python(h, s);
	em_heavy(h, 0, s);
	em_heavy(h, 1, s);
	em_consumer(h, s);
	em_producer(h, s + 1); /* laid out by tf_layout, during this step */
	em_light(h, s);
	em_evmgr(h, s);
	for (int r = 0; r < h->gpus; r++) {
		for (int li = 0; li < h->nlt; li++)
			em_device_event(h, r, li, s);
		if (grouped(h))
			em_derived(h, r, s);
	}
}

/* ------------------------------------------------------------------ */
/* simulation, JAX flavour: python dispatches the jitted step, a PjRt   */
/* thread per GPU enqueues it, the runtime's API thread launches       */

static void jax_lay_rep(struct host *h, int r, int64_t a, int64_t s)
{
	struct jrep *j = &h->jr[r];
	struct gpu *G = &h->gpu[r];
	j->x0 = a + 5 * US + r * 4 * US;
	j->sem = j->x0 + 500;
	int64_t x = j->x0 + 2 * US;
	for (int i = 0; i < NJOUT; i++) {
		j->tfree[i] = x;
		x += s > 0 ? rr(&h->rng, 200, 400) : 0;
	}
	for (int i = 0; i < NJOUT; i++) {
		j->talloc[i] = x;
		x += rr(&h->rng, 200, 400);
	}
	j->tta = x;
	j->e0 = x + rr(&h->rng, 200, 400) + 500;
	int64_t y = j->e0 + 500;
	for (int li = 0; li < h->nlt; li++) {
		G->lt[li] = y;
		G->ld[li] = rr(&h->rng, 2000, 4500);
		y += G->ld[li] + rr(&h->rng, 300, 700);
	}
	j->e1 = y + 500;
	j->ttf = j->e1 + 300;
	j->rec = j->e1 + 800;
	j->x1 = j->e1 + 2 * US;
}

static void jax_layout(struct host *h, int64_t s)
{
	h->S = h->t_next;
	h->W = 0;
	h->step_id = step_id(h, s);
	int64_t a = h->S + 5 * US;
	h->disp_end = 0;
	for (int r = 0; r < h->gpus; r++) {
		jax_lay_rep(h, r, a, s);
		h->disp_end = max64(h->disp_end, h->jr[r].x1 + 3 * US);
	}
	h->dev_hi = 0;
	for (int r = 0; r < h->gpus; r++) {
		lay_device(h, r);
		h->dev_hi = max64(h->dev_hi, h->gpu[r].step_hi);
	}
	h->pool_t = h->dev_hi + 2 * US;
	h->blk0 = h->disp_end + 2 * US;
	h->blk1 = max64(h->dev_hi + 5 * US, h->blk0 + 2 * US);
	h->E = max64(max64(h->dev_hi + 8 * US, h->blk1 + 3 * US), h->pool_t + 6 * US) + rr(&h->rng, 0, 5) * US;
	h->t_next = h->E + rr(&h->rng, 30, 90) * US;
}

static void jax_python(struct host *h, int64_t s)
{
	int li = h->rl[R_JPY][0];
	const struct line *L = &h->ln[li];
	int64_t S = h->S, a = S + 5 * US;
	struct ev e;
	emit0(h, li, h->he.jit_step, S, h->E - S);
	emit0(h, li, h->he.py_loop, S + US, h->E - S - 2 * US);
	for (int i = 0; i < 3; i++)
		emit0(h, li, h->he.pyev[(s + i) % NPYEV], S + 2 * US + i * 600, 300);
	ev_begin(&e, L, h->he.pjit, a, h->disp_end - a);
	ev_i64(&e, h->hs.pt, 5); /* pjrt context: links the dispatch to the PjRt execute threads */
	ev_u64(&e, h->hs.p, (uint64_t)h->step_id);
	emit(h, li, &e);
	emit0(h, li, h->he.parse_args, a + US, 2 * US);
	emit0(h, li, h->he.pjrt_exec, a + 4 * US, h->disp_end - a - 5 * US);
	emit0(h, li, h->he.pyev[(s + 3) % NPYEV], h->disp_end + 500, 300);
	emit0(h, li, h->he.block, h->blk0, h->blk1 - h->blk0);
}

static int64_t jax_addr(const struct alc *a, int bank, int i)
{
	int64_t off = (int64_t)bank * 32 * 1048576LL;
	for (int k = 0; k < i; k++)
		off += (JOUT_BYTES[k] + 255) & ~255LL;
	return a->base + off;
}

static void jax_mem(struct host *h, int li, int64_t t, struct alc *a, bool alloc, int64_t req, int64_t addr)
{
	int64_t bytes = req < 256 ? 256 : (req + 255) & ~255LL;
	struct ev e;
	if (alloc) {
		a->inuse += bytes;
		if (a->inuse > a->peak)
			a->peak = a->inuse;
		a->nalloc++;
		h->tr.mem_alloc++;
	} else {
		alc_give(h, a, bytes);
	}
	mem_common(h, &e, &h->ln[li], t, a, alloc, req, bytes, addr);
	emit(h, li, &e);
}

/* buffers are donated: step s frees the outputs of step s-1 and allocates its own */
static void jax_exec(struct host *h, int r, int64_t s)
{
	int li = h->rl[R_JEXEC][r];
	struct jrep *j = &h->jr[r];
	struct alc *a = &h->alc[r];
	struct ev e;
	ev_begin(&e, &h->ln[li], h->he.exec_helper, j->x0, j->x1 - j->x0);
	ev_i64(&e, h->hs.ct, 5);
	ev_u64(&e, h->hs.c, (uint64_t)h->step_id);
	emit(h, li, &e);
	emit0(h, li, h->he.semaphore, j->sem, US);
	for (int i = 0; s > 0 && i < NJOUT; i++)
		jax_mem(h, li, j->tfree[i], a, false, JOUT_BYTES[i], jax_addr(a, (int)((s - 1) % 2), i));
	for (int i = 0; i < NJOUT; i++)
		jax_mem(h, li, j->talloc[i], a, true, JOUT_BYTES[i], jax_addr(a, (int)(s % 2), i));
	jax_mem(h, li, j->tta, a, true, 8388608, a->base + 64 * 1048576LL);
	emit0(h, li, h->he.enqueue, j->e0, j->e1 - j->e0);
	jax_mem(h, li, j->ttf, a, false, 8388608, a->base + 64 * 1048576LL);
	emit0(h, li, h->he.record_usage, j->rec, 600);
}

static void jax_launches(struct host *h, int r, int64_t s)
{
	int li = h->rl[R_JHT][r];
	struct gpu *G = &h->gpu[r];
	for (int k = 0; k < h->nlt; k++) {
		int kind = h->lt[k].kind;
		struct ev e;
		ev_begin(&e, &h->ln[li], kind == L_KERNEL ? h->he.jlaunch : kind == L_H2D ? h->he.jh2d : h->he.jd2h,
			 G->lt[k], G->ld[k]);
		ev_u64(&e, h->hs.correlation_id, (uint64_t)corr_id(h, s, r, k));
		ev_u64(&e, h->hs.device_id, (uint64_t)r);
		emit(h, li, &e);
		h->tr.launches++;
	}
}

static void jax_emit(struct host *h, int64_t s)
{
	jax_python(h, s);
	for (int r = 0; r < h->gpus; r++) {
		jax_exec(h, r, s);
		jax_launches(h, r, s);
	}
	int pl = h->rl[R_JPOOL][s % 4];
	emit0(h, pl, h->he.tp_start, h->pool_t, 500);
	emit0(h, pl, h->he.tp_exec, h->pool_t + US, 2 * US);
	emit0(h, pl, h->he.tp_stop, h->pool_t + 3500, 500);
	for (int r = 0; r < h->gpus; r++)
		for (int li = 0; li < h->nlt; li++)
			em_device_event(h, r, li, s);
}

/* ------------------------------------------------------------------ */
/* odd-but-readable content (--odd)                                    */

static void em_odd(struct host *h)
{
	struct plane *p = &h->pl[h->hostp];
	int li = h->rl[R_ODD][0];
	const struct line *L = &h->ln[li];
	int64_t t = 400 * US;
	struct ev e;
	emit0(h, li, (int64_t)p->ev.n + 1000, t, 2 * US);  /* no event_metadata entry */
	emit0(h, li, h->odd_bad_name_md, t + 3 * US, 2 * US); /* name is not UTF-8 */
	ev_begin(&e, L, h->odd_ev_md, t + 6 * US, 2 * US);
	*e.p++ = 15 << 3; /* field 15, varint: unknown to every schema */
	e.p = put_v(e.p, 42);
	emit(h, li, &e);
	emit0(h, li, h->odd_ev_md, t + 9 * US, -5 * US);   /* negative duration */
	ev_begin(&e, L, h->odd_ev_md, t + 12 * US, 2 * US);
	ev_i64(&e, (int64_t)p->st.n + 1000, 7);           /* no stat_metadata entry */
	emit(h, li, &e);
	ev_begin(&e, L, h->odd_ev_md, t + 15 * US, 2 * US);
	ev_ref(&e, h->odd_odd_stat, (int64_t)p->st.n + 2000); /* ref_value pointing nowhere */
	emit(h, li, &e);
	for (int i = 0; i < 4; i++)                       /* an unsorted line */
		emit0(h, h->rl[R_ODD_UNSORTED][0], h->odd_ev_md, 500 * US + (3 - i) * 3 * US, 2 * US);
	for (int i = 0; i < 2; i++)                       /* a second line with the python thread's id */
		emit0(h, h->rl[R_ODD_DUPID][0], h->odd_ev_md, 600 * US + i * 5 * US, 3 * US);
	int ep = h->rl[R_ODD_EPOCH][0];                   /* never normalized: ns since the epoch */
	for (int i = 0; i < 2; i++) {
		ev_raw(&e, h->odd_ev_md, 1000000 + i * 4000000, 2000000);
		emit(h, ep, &e);
	}
	for (int i = 0; i < 3; i++)
		emit0(h, h->rl[R_ODD_CHUNK][0], 1, 700 * US + i * 10 * US, 4 * US);
	for (int i = 0; i < 2; i++)
		emit0(h, h->rl[R_ODD_PID][0], 1, 800 * US + i * 10 * US, 4 * US);
}

/* ------------------------------------------------------------------ */
/* passes                                                              */

static void reset_state(struct host *h)
{
	h->rng.s = h->seed ^ 0x5eed5eed5eed5eedULL;
	h->t_next = 2000 * US;
	for (int r = 0; r < h->gpus; r++)
		h->gpu[r].free_at = 0;
	for (int i = 0; i < h->nalc; i++) {
		struct alc *a = &h->alc[i];
		a->inuse = a->inuse0;
		a->peak = a->peak0;
		a->off = 0;
		a->qh = a->qt = 0;
		a->nalloc = a->nfree = 0;
	}
	struct truth *t = &h->tr;
	t->mem_alloc = t->mem_dealloc = t->kernels = t->kernel_ps = t->h2d = t->d2h = 0;
	t->h2d_bytes = t->d2h_bytes = t->launches = 0;
	memset(t->kused, 0, sizeof t->kused);
	for (int i = 0; i < h->nln; i++)
		h->ln[i].bytes = h->ln[i].events = 0;
	h->ev_total = 0;
}

static void record_step(struct host *h, int64_t s)
{
	if (!h->tr.st_start)
		return;
	h->tr.st_start[s] = h->S;
	h->tr.st_dur[s] = h->E - h->S;
	h->tr.st_wait[s] = h->W;
	h->tr.st_dev[s] = h->gpus ? h->gpu[0].step_hi - h->gpu[0].step_lo : 0;
}

static void run_pass(struct host *h)
{
	reset_state(h);
	if (h->o->odd)
		em_odd(h);
	if (h->v != V_JAX) {
		lay_producer(h, h->t_next - 200 * US); /* element 0 was prefetched before the first step */
		em_producer(h, 0);
	}
	for (int64_t s = 0; s < h->steps; s++) {
		uint64_t before = h->ev_total;
		if (h->v == V_JAX) {
			jax_layout(h, s);
			jax_emit(h, s);
		} else {
			tf_layout(h, s);
			tf_emit(h, s);
		}
		record_step(h, s);
		/* a shorter capture is exactly a prefix of a longer one, so pass 2 can
		 * stop here too; stop at the step boundary nearest to the target */
		if (h->stop_at && h->skel0 + h->ev_total + (h->ev_total - before) / 2 >= h->stop_at && s + 1 < h->steps) {
			h->steps = s + 1;
			break;
		}
	}
	h->tr.profile_end = h->E;
}

/* ------------------------------------------------------------------ */
/* the file skeleton: everything but the events, written around the    */
/* regions that pass 2 fills                                           */

struct pw { int fd; uint64_t off; struct mb m; const char *path; };

static void pw_flush(struct pw *w)
{
	size_t done = 0;
	while (done < w->m.n) {
		ssize_t n = pwrite(w->fd, w->m.b + done, w->m.n - done, (off_t)(w->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(1, "write %s: %s", w->path, strerror(errno));
		done += (size_t)n;
	}
	w->off += w->m.n;
	w->m.n = 0;
}

static uint64_t piece(struct pw *w, const struct mb *m)
{
	if (w) {
		mb_need(&w->m, m->n);
		memcpy(w->m.b + w->m.n, m->b, m->n);
		w->m.n += m->n;
		if (w->m.n > LBUF)
			pw_flush(w);
	}
	return m->n;
}

static void mb_lenhdr(struct mb *m, unsigned field, uint64_t len)
{
	mb_need(m, 22);
	uint8_t *p = put_v(m->b + m->n, (uint64_t)field << 3 | 2);
	p = put_v(p, len);
	m->n = (size_t)(p - m->b);
}

static void mb_stat(struct mb *m, const struct pstat *ps)
{
	mb_int(m, 1, ps->sid);
	switch (ps->kind) {
	case SV_I64:
		mb_tagv(m, 4, (uint64_t)ps->i);
		break;
	case SV_U64:
		mb_tagv(m, 3, (uint64_t)ps->i);
		break;
	case SV_DBL:
		mb_need(m, 9);
		m->b[m->n++] = 0x11;
		put_fixed64(m->b + m->n, dbl_bits(ps->d));
		m->n += 8;
		break;
	default:
		mb_bytes(m, 5, ps->s, strlen(ps->s));
		break;
	}
}

static uint64_t lines_part(struct host *h, const struct plane *p, struct pw *w, struct mb *m, struct mb *in)
{
	uint64_t n = 0;
	for (int i = p->l0; i < p->l0 + p->nl; i++) {
		struct line *L = &h->ln[i];
		in->n = 0;
		mb_int(in, 1, L->id);
		mb_str(in, 2, L->name);
		mb_int(in, 3, L->ts_ns);
		m->n = 0;
		mb_lenhdr(m, 3, in->n + L->want_bytes);
		n += piece(w, m) + piece(w, in) + L->want_bytes;
		if (w) {
			pw_flush(w);
			L->woff = w->off;
			L->wend = w->off + L->want_bytes;
			w->off = L->wend;
		}
	}
	return n;
}

/* map entries: {key = 1, value = 2}, the value repeating its id */
static uint64_t md_part(const struct strtab *t, unsigned field, bool event, struct pw *w, struct mb *m, struct mb *in)
{
	uint64_t n = 0;
	struct mb ent = {0};
	for (size_t i = 0; i < t->n; i++) {
		in->n = 0;
		mb_int(in, 1, (int64_t)i + 1);
		mb_bytes(in, 2, t->s[i], t->len[i]);
		if (event && t->disp[i])
			mb_str(in, 4, t->disp[i]);
		ent.n = 0;
		mb_int(&ent, 1, (int64_t)i + 1);
		mb_sub(&ent, 2, in);
		m->n = 0;
		mb_sub(m, field, &ent);
		n += piece(w, m);
	}
	free(ent.b);
	return n;
}

static uint64_t plane_body(struct host *h, const struct plane *p, struct pw *w)
{
	struct mb m = {0}, in = {0};
	uint64_t n;
	mb_int(&m, 1, p->id);
	mb_str(&m, 2, p->name);
	n = piece(w, &m);
	n += lines_part(h, p, w, &m, &in);
	n += md_part(&p->ev, 4, true, w, &m, &in);
	n += md_part(&p->st, 5, false, w, &m, &in);
	for (int i = 0; i < p->nps; i++) {
		in.n = 0;
		mb_stat(&in, &p->ps[i]);
		m.n = 0;
		mb_sub(&m, 6, &in);
		n += piece(w, &m);
	}
	free(m.b);
	free(in.b);
	return n;
}

/* XSpace: planes, then hostnames (absent from the TF 2.4 proto) */
static uint64_t space(struct host *h, struct pw *w)
{
	struct mb m = {0};
	uint64_t n = 0;
	for (int i = 0; i < h->npl; i++) {
		uint64_t ps = plane_body(h, &h->pl[i], NULL);
		m.n = 0;
		mb_lenhdr(&m, 1, ps);
		n += piece(w, &m);
		n += w ? plane_body(h, &h->pl[i], w) : ps;
	}
	if (!grouped(h)) {
		m.n = 0;
		mb_str(&m, 4, h->name);
		n += piece(w, &m);
	}
	free(m.b);
	return n;
}

/* ------------------------------------------------------------------ */
/* output files                                                        */

static void write_all(FILE *f, const void *b, size_t n, const char *path)
{
	if (n && fwrite(b, 1, n, f) != n)
		die(1, "write %s: %s", path, strerror(errno));
}

static void gzip_file(FILE *in, FILE *out, const char *path, uint8_t *ib, uint8_t *ob, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	/* windowBits 31 = gzip wrapper; level 1 because benchmarks compress gigabytes */
	if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		die(1, "deflateInit2 failed");
	int flush = Z_NO_FLUSH, rc;
	do {
		size_t n = fread(ib, 1, cap, in);
		if (ferror(in))
			die(1, "read temporary file: %s", strerror(errno));
		flush = feof(in) ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = ib;
		z.avail_in = (uInt)n;
		do {
			z.next_out = ob;
			z.avail_out = (uInt)cap;
			rc = deflate(&z, flush);
			if (rc == Z_STREAM_ERROR)
				die(1, "deflate failed");
			write_all(out, ob, cap - z.avail_out, path);
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	if (rc != Z_STREAM_END)
		die(1, "deflate did not finish");
	deflateEnd(&z);
}

static void zstd_file(FILE *in, FILE *out, const char *path, uint8_t *ib, uint8_t *ob, size_t cap, uint64_t size)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	if (!cc)
		die(1, "ZSTD_createCCtx failed");
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setPledgedSrcSize(cc, size);
	bool last = false;
	while (!last) {
		size_t n = fread(ib, 1, cap, in);
		if (ferror(in))
			die(1, "read temporary file: %s", strerror(errno));
		last = feof(in);
		ZSTD_inBuffer zi = {ib, n, 0};
		size_t rem;
		do {
			ZSTD_outBuffer zo = {ob, cap, 0};
			rem = ZSTD_compressStream2(cc, &zo, &zi, last ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(rem))
				die(1, "zstd: %s", ZSTD_getErrorName(rem));
			write_all(out, ob, zo.pos, path);
		} while (last ? rem != 0 : zi.pos < zi.size);
	}
	ZSTD_freeCCtx(cc);
}

/* streams the finished temporary file into the compressed output */
static void finish_output(const char *tmp, const char *path, enum cmp c, uint64_t size)
{
	if (c == C_NONE) {
		if (rename(tmp, path))
			die(1, "rename %s: %s", path, strerror(errno));
		return;
	}
	size_t cap = 4u << 20;
	uint8_t *ib = xmalloc(cap), *ob = xmalloc(cap);
	char *part = fmt("%s.part", path);
	FILE *in = fopen(tmp, "rb"), *out = fopen(part, "wb");
	if (!in || !out)
		die(1, "open %s: %s", in ? part : tmp, strerror(errno));
	if (c == C_GZIP)
		gzip_file(in, out, path, ib, ob, cap);
	else
		zstd_file(in, out, path, ib, ob, cap, size);
	fclose(in);
	if (fclose(out))
		die(1, "write %s: %s", path, strerror(errno));
	if (rename(part, path))
		die(1, "rename %s: %s", path, strerror(errno));
	unlink(tmp);
	free(part);
	free(ib);
	free(ob);
}

static void set_stop_time(struct host *h)
{
	for (int i = 0; i < h->npl; i++) {
		struct plane *p = &h->pl[i];
		if (strcmp(p->name, "Task Environment"))
			continue;
		p->ps[1].i = p->ps[0].i + h->tr.profile_end + 1000000; /* the session stopped 1 ms after the last step */
	}
}

static void count_pass(struct host *h)
{
	if (h->stop_at)
		h->skel0 = space(h, NULL);
	run_pass(h);
	h->stop_at = 0;
	for (int r = 0; grouped(h) && r < h->gpus; r++)
		st_truncate(&h->pl[h->gpu[r].plane].ev, (size_t)(h->gpu[r].step_md0 - 1 + h->steps));
	for (int i = 0; i < h->nln; i++)
		h->ln[i].want_bytes = h->ln[i].bytes;
	set_stop_time(h);
	h->file_bytes = space(h, NULL);
}

static void write_pass(struct host *h)
{
	char *tmp = fmt("%s.tmp", h->file);
	h->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (h->fd < 0)
		die(1, "open %s: %s", tmp, strerror(errno));
	if (ftruncate(h->fd, (off_t)h->file_bytes))
		die(1, "ftruncate %s: %s", tmp, strerror(errno));
	struct pw w = {h->fd, 0, {0}, tmp};
	uint64_t n = space(h, &w);
	pw_flush(&w);
	free(w.m.b);
	if (n != h->file_bytes || w.off != n)
		die(4, "internal: skeleton size changed");
	for (int i = 0; i < h->nln; i++)
		h->ln[i].buf = xmalloc(LBUF);
	h->writing = true;
	run_pass(h);
	h->writing = false;
	for (int i = 0; i < h->nln; i++) {
		struct line *L = &h->ln[i];
		line_flush(h, L);
		if (L->bytes != L->want_bytes || L->woff != L->wend)
			die(4, "internal: line %s changed between passes", L->name);
		free(L->buf);
		L->buf = NULL;
	}
	if (close(h->fd))
		die(1, "close %s: %s", tmp, strerror(errno));
	finish_output(tmp, h->file, h->o->cmp, h->file_bytes);
	free(tmp);
}

static void free_host(struct host *h)
{
	for (int i = 0; i < h->npl; i++) {
		struct plane *p = &h->pl[i];
		st_free(&p->ev);
		st_free(&p->st);
		for (int k = 0; k < p->nps; k++)
			free(p->ps[k].s);
		free(p->ps);
		free(p->name);
	}
	for (int i = 0; i < h->nln; i++) {
		free(h->ln[i].name);
		free(h->ln[i].buf);
	}
	for (int r = 0; r < h->gpus; r++) {
		struct gpu *G = &h->gpu[r];
		free(G->dt);
		free(G->dd);
		free(G->lt);
		free(G->ld);
		for (int li = 0; li < 64; li++)
			free(G->ldet_s[li]);
	}
	for (int i = 0; i < h->nalc; i++)
		free(h->alc[i].name);
	for (int k = 0; k < 2; k++) {
		free(h->hv[k].sl);
		free(h->hv[k].ch);
	}
	st_free(&h->inl);
	free(h->alc);
	free(h->pl);
	free(h->ln);
	free(h->tr.st_start);
	free(h->tr.st_dur);
	free(h->tr.st_wait);
	free(h->tr.st_dev);
	free(h->name);
	free(h->file);
	memset(h, 0, sizeof *h);
}

/* ------------------------------------------------------------------ */
/* truth file: what was written, for exact assertions in later tests   */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p); /* names here are ASCII; keep the file ASCII whatever happens */
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static uint64_t plane_events(const struct host *h, const struct plane *p)
{
	uint64_t n = 0;
	for (int i = p->l0; i < p->l0 + p->nl; i++)
		n += h->ln[i].events;
	return n;
}

static void truth_planes(FILE *f, const struct host *h)
{
	fprintf(f, "      \"planes\": [\n");
	for (int i = 0; i < h->npl; i++) {
		const struct plane *p = &h->pl[i];
		fprintf(f, "        {\"name\": ");
		json_str(f, p->name);
		fprintf(f, ", \"id\": \"%" PRId64 "\", \"lines_count\": %d, \"events\": %" PRIu64
			", \"event_metadata\": %zu, \"stat_metadata\": %zu, \"plane_stats\": %d, \"lines\": [",
			p->id, p->nl, plane_events(h, p), p->ev.n, p->st.n, p->nps);
		for (int k = p->l0; k < p->l0 + p->nl; k++) {
			const struct line *L = &h->ln[k];
			fprintf(f, "%s\n          {\"name\": ", k == p->l0 ? "" : ",");
			json_str(f, L->name);
			fprintf(f, ", \"id\": \"%" PRId64 "\", \"timestamp_ns\": \"%" PRId64 "\", \"events\": %" PRIu64 "}",
				L->id, L->ts_ns, L->events);
		}
		fprintf(f, "%s]}%s\n", p->nl ? "\n        " : "", i + 1 < h->npl ? "," : "");
	}
	fprintf(f, "      ],\n");
}

static void truth_allocators(FILE *f, const struct host *h)
{
	fprintf(f, "      \"allocators\": [");
	for (int i = 0; i < h->nalc; i++) {
		const struct alc *a = &h->alc[i];
		fprintf(f, "%s\n        {\"name\": ", i ? "," : "");
		json_str(f, a->name);
		fprintf(f, ", \"allocations\": %" PRIu64 ", \"deallocations\": %" PRIu64 ", \"bytes_limit\": %" PRId64
			", \"initial_bytes_allocated\": %" PRId64 ", \"final_bytes_allocated\": %" PRId64
			", \"peak_bytes_in_use\": %" PRId64 "}",
			a->nalloc, a->nfree, a->limit, a->inuse0, a->inuse, a->peak);
	}
	fprintf(f, "%s],\n", h->nalc ? "\n      " : "");
}

static void truth_steps(FILE *f, const struct host *h)
{
	fprintf(f, "      \"step_list\": [");
	for (int64_t s = 0; h->tr.st_start && s < h->steps; s++)
		fprintf(f, "%s\n        {\"step_num\": %" PRId64 ", \"group_id\": %" PRId64 ", \"start_ps\": %" PRId64
			", \"duration_ps\": %" PRId64 ", \"input_wait_ps\": %" PRId64 ", \"device_span_ps\": %" PRId64 "}",
			s ? "," : "", h->step_base + s, s, h->tr.st_start[s] * 1000, h->tr.st_dur[s] * 1000,
			h->tr.st_wait[s] * 1000, h->tr.st_dev[s] * 1000);
	fprintf(f, "%s]", h->tr.st_start && h->steps ? "\n      " : "");
}

static void truth_odd(FILE *f, const struct truth *t)
{
	fprintf(f, ",\n      \"odd\": {\"missing_event_metadata\": %u, \"missing_stat_metadata\": %u, "
		"\"dangling_ref_values\": %u, \"invalid_utf8_names\": %u, \"unsorted_lines\": %u, "
		"\"duplicate_plane_names\": %u, \"duplicate_line_ids\": %u, \"pid_suffixed_planes\": %u, "
		"\"epoch_timestamp_lines\": %u, \"unknown_fields\": %u, \"negative_durations\": %u}",
		t->odd_missing_event_md, t->odd_missing_stat_md, t->odd_dangling_ref, t->odd_bad_utf8,
		t->odd_unsorted_lines, t->odd_dup_planes, t->odd_dup_line_ids, t->odd_pid_planes, t->odd_epoch_lines,
		t->odd_unknown_fields, t->odd_negative_durations);
}

static uint64_t host_events(const struct host *h)
{
	uint64_t n = 0;
	for (int i = 0; i < h->npl; i++)
		n += plane_events(h, &h->pl[i]);
	return n;
}

static unsigned distinct_kernels(const struct host *h)
{
	unsigned n = 0;
	for (size_t k = 0; k < sizeof h->tr.kused; k++)
		n += h->tr.kused[k];
	return n;
}

static void truth_host(FILE *f, const struct host *h, bool last)
{
	const struct truth *t = &h->tr;
	uint64_t dev = 0;
	for (int r = 0; r < h->gpus; r++)
		dev += plane_events(h, &h->pl[h->gpu[r].plane]);
	fprintf(f, "    {\n      \"host\": ");
	json_str(f, h->name);
	fprintf(f, ",\n      \"file\": ");
	json_str(f, h->file);
	fprintf(f, ",\n      \"uncompressed_bytes\": %" PRIu64 ",\n      \"hostnames_field\": %s,\n"
		"      \"pre_grouped\": %s,\n      \"step_marker\": \"%s\",\n      \"planes_count\": %d,\n",
		h->file_bytes, grouped(h) ? "false" : "true", grouped(h) ? "true" : "false",
		h->v == V_JAX ? "jit_train_step" : "train", h->npl);
	truth_planes(f, h);
	fprintf(f, "      \"events\": %" PRIu64 ",\n      \"device_events\": %" PRIu64 ",\n"
		"      \"steps\": %" PRId64 ",\n      \"first_step_num\": %" PRId64 ",\n"
		"      \"profile_duration_ps\": %" PRId64 ",\n"
		"      \"memory_allocations\": %" PRIu64 ",\n      \"memory_deallocations\": %" PRIu64 ",\n",
		host_events(h), dev, h->steps, h->step_base, t->profile_end * 1000, t->mem_alloc, t->mem_dealloc);
	truth_allocators(f, h);
	fprintf(f, "      \"kernels\": %" PRIu64 ",\n      \"kernel_names_distinct\": %u,\n      \"kernel_time_ps\": %" PRIu64
		",\n      \"memcpy_h2d\": %" PRIu64 ",\n      \"memcpy_d2h\": %" PRIu64 ",\n      \"memcpy_h2d_bytes\": %" PRIu64
		",\n      \"memcpy_d2h_bytes\": %" PRIu64 ",\n      \"launch_events\": %" PRIu64 ",\n",
		t->kernels, distinct_kernels(h), t->kernel_ps, t->h2d, t->d2h, t->h2d_bytes, t->d2h_bytes, t->launches);
	truth_steps(f, h);
	if (h->o->odd)
		truth_odd(f, t);
	fprintf(f, "\n    }%s\n", last ? "" : ",");
}

static void write_truth(const struct opts *o, struct host *hs)
{
	FILE *f = fopen(o->truth, "w");
	if (!f)
		die(1, "open %s: %s", o->truth, strerror(errno));
	uint64_t ev = 0, bytes = 0, kern = 0;
	for (int i = 0; i < o->hosts; i++) {
		ev += host_events(&hs[i]);
		bytes += hs[i].file_bytes;
		kern += hs[i].tr.kernels;
	}
	fprintf(f, "{\n  \"schema\": \"xpgen-truth/1\",\n  \"generator\": {\"variant\": \"%s\", \"seed\": %" PRIu64
		", \"steps\": %" PRId64 ", \"gpus\": %d, \"hosts\": %d, \"compress\": \"%s\", \"odd\": %s, \"target_bytes\": %" PRIu64
		"},\n  \"totals\": {\"hosts\": %d, \"events\": %" PRIu64 ", \"uncompressed_bytes\": %" PRIu64 ", \"kernels\": %" PRIu64
		"},\n  \"hosts\": [\n",
		VARIANT_NAMES[o->variant], o->seed, o->steps, hs[0].gpus, o->hosts, CMP_NAMES[o->cmp], o->odd ? "true" : "false",
		o->target, o->hosts, ev, bytes, kern);
	for (int i = 0; i < o->hosts; i++)
		truth_host(f, &hs[i], i + 1 == o->hosts);
	fprintf(f, "  ]\n}\n");
	if (fclose(f))
		die(1, "write %s: %s", o->truth, strerror(errno));
}

/* ------------------------------------------------------------------ */
/* command line                                                        */

static void usage(FILE *f)
{
	fputs("usage: xpgen [OPTIONS] -o OUT\n"
	      "Write a deterministic, realistic TensorFlow/JAX profiler capture (XSpace, *.xplane.pb).\n\n"
	      "  --variant raw|grouped|jax|cpu  raw: current TF on NVIDIA GPUs (default); grouped: TF 2.4 style,\n"
	      "                                 with group_id and derived Steps/TensorFlow Ops lines; jax: JAX on\n"
	      "                                 AMD GPUs, no step markers; cpu: TF without GPUs\n"
	      "  --variant diverse|dynamic-shapes|many-hosts\n"
	      "                                 capture shapes, not workloads: 20 host threads, 8 GPUs x 4 streams,\n"
	      "                                 504 ops, 330 kernels; diverse: op, kernel and launch shape drawn per\n"
	      "                                 launch; dynamic-shapes: each (kernel, op) pair with 1-50 launch\n"
	      "                                 shapes; many-hosts: that, 2 GPUs a host, --hosts files (default 16)\n"
	      "                                 in the directory OUT. Only --seed, --target-bytes, --host, --truth\n"
	      "  --steps N                      training steps to simulate (default 4)\n"
	      "  --target-bytes N[k|M|G]        choose the steps so each file is about N bytes (1G = 1 GiB)\n"
	      "  --gpus N                       GPUs per host, 1-16 (default 1; cpu: 0)\n"
	      "  --hosts N                      hosts; with N > 1, OUT is a directory of <host>.xplane.pb\n"
	      "                                 files for hosts worker-0, worker-1, ...\n"
	      "  --host NAME                    host name of a single-host capture (default: from OUT)\n"
	      "  --seed S                       seed of the simulation (default 1)\n"
	      "  --compress none|gzip|zstd      compress the output (suffix .gz/.zst added in a directory)\n"
	      "  --odd                          add odd-but-readable content for tolerance tests\n"
	      "  --truth FILE.json              write what was generated (counts, per-plane and per-step numbers)\n"
	      "  -o, --output OUT               output file, or directory with --hosts N > 1\n"
	      "  -h, --help                     show this help\n",
	      f);
}

static uint64_t parse_u64(const char *opt, const char *v, bool suffix)
{
	char *end;
	errno = 0;
	uint64_t n = strtoull(v, &end, 10);
	if (errno || end == v || *v == '-')
		die(2, "%s: not a number: %s", opt, v);
	if (suffix && *end) {
		int sh = strchr("kK", *end) ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;
		if (sh < 0 || end[1])
			die(2, "%s: bad size suffix: %s", opt, v);
		if (n > (UINT64_MAX >> sh))
			die(2, "%s: too large: %s", opt, v);
		n <<= sh;
	} else if (*end) {
		die(2, "%s: not a number: %s", opt, v);
	}
	return n;
}

static int pick(const char *opt, const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	die(2, "%s: unknown value: %s", opt, v);
}

static void parse_opt(struct opts *o, const char *opt, const char *v)
{
	if (!strcmp(opt, "--variant"))
		o->variant = (enum variant)pick(opt, v, VARIANT_NAMES, NVARIANT);
	else if (!strcmp(opt, "--compress"))
		o->cmp = (enum cmp)pick(opt, v, CMP_NAMES, 3);
	else if (!strcmp(opt, "--hosts"))
		o->hosts = (int)parse_u64(opt, v, false);
	else if (!strcmp(opt, "--steps"))
		o->steps = (int64_t)parse_u64(opt, v, false), o->steps_set = true;
	else if (!strcmp(opt, "--seed"))
		o->seed = parse_u64(opt, v, false);
	else if (!strcmp(opt, "--target-bytes"))
		o->target = parse_u64(opt, v, true);
	else if (!strcmp(opt, "--gpus"))
		o->gpus = (int)parse_u64(opt, v, false), o->gpus_set = true;
	else if (!strcmp(opt, "--truth"))
		o->truth = v;
	else if (!strcmp(opt, "-o") || !strcmp(opt, "--output"))
		o->out = v;
	else if (!strcmp(opt, "--host"))
		o->host = v;
	else
		die(2, "unknown option: %s (see --help)", opt);
}

static void check_opts(struct opts *o)
{
	if (!o->out)
		die(2, "no output given (-o OUT; see --help)");
	if (o->hosts < 1 || o->hosts > 1024)
		die(2, "--hosts must be 1-1024");
	if (o->steps_set && o->target)
		die(2, "give --steps or --target-bytes, not both");
	if (o->steps < 1 || o->steps > 100000000)
		die(2, "--steps must be 1-100000000");
	if (o->variant == V_CPU) {
		if (o->gpus_set && o->gpus)
			die(2, "--variant cpu has no GPUs");
		o->gpus = 0;
	} else if (o->gpus < 1 || o->gpus > MAXGPU) {
		die(2, "--gpus must be 1-%d", MAXGPU);
	}
	if (o->host && o->hosts > 1)
		die(2, "--host names a single host; with --hosts N they are worker-0 ...");
}

static bool takes_value(const char *a, const char *eq)
{
	static const char *const known[] = {"--variant", "--compress", "--hosts", "--steps", "--seed", "--target-bytes",
					    "--gpus", "--truth", "-o", "--output", "--host"};
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strlen(known[i]) == n && !strncmp(a, known[i], n))
			return true;
	return false;
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	*o = (struct opts){.variant = V_RAW, .hosts = 1, .gpus = 1, .steps = 4, .seed = 1, .cmp = C_NONE};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--odd")) {
			o->odd = true;
			continue;
		}
		const char *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
		if (!takes_value(a, eq))
			die(2, a[0] == '-' ? "unknown option: %s (see --help)" : "unexpected argument: %s (see --help)", a);
		if (eq) {
			char *opt = xstrndup(a, (size_t)(eq - a));
			parse_opt(o, opt, eq + 1);
			free(opt);
		} else if (i + 1 < argc) {
			parse_opt(o, a, argv[++i]);
		} else {
			die(2, "%s needs a value (see --help)", a);
		}
	}
	check_opts(o);
}

/* host name as xprof derives it: the file name minus .xplane.pb */
static char *name_from_path(const char *path)
{
	const char *b = strrchr(path, '/');
	char *n = fmt("%s", b ? b + 1 : path);
	static const char *const sfx[] = {".gz", ".zst", ".xplane.pb"};
	for (int i = 0; i < 3; i++) {
		size_t ln = strlen(n), ls = strlen(sfx[i]);
		if (ln > ls && !strcmp(n + ln - ls, sfx[i]))
			n[ln - ls] = 0;
	}
	if (!*n || strchr(n, '.') == n) {
		free(n);
		n = fmt("localhost");
	}
	return n;
}

static void init_host(struct host *h, const struct opts *o, int index, int64_t steps)
{
	memset(h, 0, sizeof *h);
	h->o = o;
	h->v = o->variant;
	h->index = index;
	h->gpus = o->gpus;
	h->nrep = h->v == V_RAW || h->v == V_GROUPED ? o->gpus : 0;
	h->steps = steps;
	h->seed = mix64(o->seed * 0x2545f4914f6cdd1dULL + (uint64_t)index + 1);
	if (o->hosts > 1) {
		static const char *const sfx[] = {"", ".gz", ".zst"};
		h->name = fmt("worker-%d", index);
		h->file = fmt("%s/%s.xplane.pb%s", o->out, h->name, sfx[o->cmp]);
	} else {
		h->name = o->host ? fmt("%s", o->host) : name_from_path(o->out);
		h->file = fmt("%s", o->out);
	}
}

static uint64_t sized_capture(const struct opts *o, int64_t steps)
{
	struct host h;
	init_host(&h, o, 0, steps);
	build_host(&h);
	count_pass(&h);
	uint64_t n = h.file_bytes;
	free_host(&h);
	return n;
}

/* the file grows linearly with the steps: measure two small captures */
static int64_t steps_for_target(const struct opts *o)
{
	uint64_t a = sized_capture(o, 8), b = sized_capture(o, 40);
	double per = (double)(b - a) / 32.0, fixed = (double)a - 8 * per;
	double s = ((double)o->target - fixed) / per;
	return s < 1 ? 1 : (int64_t)(s + 0.5);
}

static void mkdir_p(const char *dir)
{
	char *p = fmt("%s", dir);
	for (char *q = p + 1; ; q++) {
		if (*q != '/' && *q)
			continue;
		char c = *q;
		*q = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			die(1, "mkdir %s: %s", p, strerror(errno));
		if (!c)
			break;
		*q = c;
	}
	free(p);
}

/* the shape variants (shapes.c): one model, no simulation; many-hosts writes 16 files unless --hosts says */
static void write_shapes(const struct opts *o)
{
	if (o->cmp != C_NONE || o->odd || o->steps_set || o->gpus_set)
		die(2, "--variant %s takes only --seed, --target-bytes, --hosts, --host and --truth", VARIANT_NAMES[o->variant]);
	if (o->variant != V_MANY_HOSTS && o->hosts > 1)
		die(2, "--hosts goes with --variant many-hosts");
	struct shape_opts so = {.kind = o->variant == V_DIVERSE ? SHAPE_DIVERSE : o->variant == V_DYNAMIC ? SHAPE_DYNAMIC
				: SHAPE_MANY_HOSTS, .seed = o->seed, .target = o->target, .hosts = o->hosts > 1 ? o->hosts : 16,
				.out = o->out, .truth = o->truth, .host = o->host};
	shapes_write(&so);
}

int xp_kineto_main(int argc, char **argv); /* kineto_gen.c */

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--kineto"))
		return xp_kineto_main(argc - 1, argv + 1);
	struct opts o;
	parse_args(&o, argc, argv);
	if (o.variant >= V_DIVERSE) {
		write_shapes(&o);
		return 0;
	}
	/* with a target, host 0 runs until its file is big enough (the estimate
	 * from small captures misses the varints that grow with time) */
	int64_t steps = o.target ? steps_for_target(&o) * 5 / 4 + 16 : o.steps;
	if (o.hosts > 1) {
		mkdir_p(o.out);
	} else if (strrchr(o.out, '/')) { /* a logdir's run directory is deep: create it */
		char *dir = xstrndup(o.out, (size_t)(strrchr(o.out, '/') - o.out));
		if (*dir)
			mkdir_p(dir);
		free(dir);
	}
	struct host *hs = xcalloc((size_t)o.hosts, sizeof *hs);
	for (int i = 0; i < o.hosts; i++) {
		init_host(&hs[i], &o, i, steps);
		hs[i].stop_at = i == 0 ? o.target : 0;
		build_host(&hs[i]);
		count_pass(&hs[i]);
		steps = o.steps = hs[i].steps;
		write_pass(&hs[i]);
	}
	if (o.truth)
		write_truth(&o, hs);
	for (int i = 0; i < o.hosts; i++)
		free_host(&hs[i]);
	free(hs);
	return 0;
}
