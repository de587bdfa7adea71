/* test_tfop.c - TF-op name parsing (spec analyzers §0.2), memcpy kinds (DESIGN §8, spec §7.2) and memcpy bytes. */
#include <string.h>

#include "analyzers/prepare/prepare.h"
#include "check.h"

struct tfop_case {
	const char *in;
	enum xp_op_cat cat;
	const char *name;
	const char *type;
};

/* One row per rule of ParseTfOpFullname; the comment names the rule. */
static const struct tfop_case tfop_cases[] = {
	/* 1. no ':' - memcpy prefixes, case-insensitive; name = whole string */
	{"MemcpyHToD", XP_OP_MEMCPY_H2D, "MemcpyHToD", "MemcpyHToD"},
	{"memcpyhtod", XP_OP_MEMCPY_H2D, "memcpyhtod", "MemcpyHToD"},
	{"MEMCPYDTOH_async", XP_OP_MEMCPY_D2H, "MEMCPYDTOH_async", "MemcpyDToH"},
	{"MemcpyDToD", XP_OP_MEMCPY_D2D, "MemcpyDToD", "MemcpyDToD"},
	{"MemcpyHToH", XP_OP_MEMCPY_H2H, "MemcpyHToH", "MemcpyHToH"},
	/* 1. no ':' and no memcpy prefix - Unknown, type "" (CUPTI's MemcpyH2D too:
	 * only xp_memcpy_kind knows those spellings) */
	{"matmul", XP_OP_UNKNOWN, "matmul", ""},
	{"MemcpyH2D", XP_OP_UNKNOWN, "MemcpyH2D", ""},
	{"Iterator", XP_OP_UNKNOWN, "Iterator", ""},
	{"", XP_OP_UNKNOWN, "", ""},
	/* 2. left part exactly "Iterator" - tf.data, type Dataset, whole name */
	{"Iterator::Prefetch::Map", XP_OP_TFDATA, "Iterator::Prefetch::Map", "Dataset"},
	{"Iterator::Range", XP_OP_TFDATA, "Iterator::Range", "Dataset"},
	/* 3. TF name and TF type */
	{"scope/name:Type", XP_OP_TF, "scope/name", "Type"},
	{"model/dense/MatMul:MatMul", XP_OP_TF, "model/dense/MatMul", "MatMul"},
	{"while/body/_1/Add_2:AddV2", XP_OP_TF, "while/body/_1/Add_2", "AddV2"},
	{"a.b>c-d:_Send", XP_OP_TF, "a.b>c-d", "_Send"},
	{"InfeedEnqueueTuple:InfeedEnqueueTuple", XP_OP_TF, "InfeedEnqueueTuple", "InfeedEnqueueTuple"},
	/* 4. JAX: right part (or the derived type) matches [a-z_][a-z0-9_]*(\[.*\])? */
	{"jit(f)/transpose:transpose[permutation=(0,3,1,2)]", XP_OP_JAX, "jit(f)/transpose", "transpose"},
	{"namescope/add:add", XP_OP_JAX, "namescope/add", "add"},
	{"namescope/add:", XP_OP_JAX, "namescope/add", "add"},
	{"x/my_op_7:", XP_OP_JAX, "x/my_op_7", "my_op"},
	/* 5. empty right part - TF with the derived type (last segment, "_<digits>" stripped) */
	{"scope/Relu_3:", XP_OP_TF, "scope/Relu_3", "Relu"},
	{"Conv2D:", XP_OP_TF, "Conv2D", "Conv2D"},
	{"a/b/MatMul_12:", XP_OP_TF, "a/b/MatMul_12", "MatMul"},
	/* 6. anything else - Unknown, name = whole string, type "" */
	{"ExecutorState::Process", XP_OP_UNKNOWN, "ExecutorState::Process", ""},
	{"IteratorGetNextOp::DoCompute", XP_OP_UNKNOWN, "IteratorGetNextOp::DoCompute", ""},
	{"_bad/name:Type", XP_OP_UNKNOWN, "_bad/name:Type", ""},
	{"op:123", XP_OP_UNKNOWN, "op:123", ""},
};

static void test_parse_tf_op_table(void)
{
	for (size_t i = 0; i < sizeof tfop_cases / sizeof tfop_cases[0]; i++) {
		const struct tfop_case *t = &tfop_cases[i];
		struct xp_tfop op;
		memset(&op, 0xa5, sizeof op);
		xp_parse_tf_op(t->in, strlen(t->in), &op);
		bool ok = CHECK_INT(op.cat, t->cat);
		ok &= CHECK_SLICE(op.name, op.name_len, t->name);
		ok &= CHECK_SLICE(op.type, op.type_len, t->type);
		if (!ok)
			fprintf(stderr, "  ... in case \"%s\"\n", t->in);
	}
}

/* The parser works on a slice: bytes after len are not part of the name. */
static void test_parse_tf_op_slice(void)
{
	const char *s = "scope/name:TypeGARBAGE";
	struct xp_tfop op;
	xp_parse_tf_op(s, strlen("scope/name:Type"), &op);
	CHECK_INT(op.cat, XP_OP_TF);
	CHECK_SLICE(op.name, op.name_len, "scope/name");
	CHECK_SLICE(op.type, op.type_len, "Type");
	xp_parse_tf_op(s, 5, &op); /* "scope" */
	CHECK_INT(op.cat, XP_OP_UNKNOWN);
	CHECK_SLICE(op.name, op.name_len, "scope");
	CHECK_INT(op.type_len, 0);
}

struct memcpy_case {
	const char *name;
	enum xp_op_cat fixed;   /* default (DESIGN §8) */
	enum xp_op_cat compat;  /* --compat=xprof (spec §7.2) */
};

static const struct memcpy_case memcpy_cases[] = {
	{"MemcpyH2D", XP_OP_MEMCPY_H2D, XP_OP_UNKNOWN},
	{"MemcpyHtoD", XP_OP_MEMCPY_H2D, XP_OP_MEMCPY_H2D},
	{"memcpyhtod", XP_OP_MEMCPY_H2D, XP_OP_MEMCPY_H2D},
	{"MemcpyHToD", XP_OP_MEMCPY_H2D, XP_OP_MEMCPY_H2D},
	{"MEMCPYH2D", XP_OP_MEMCPY_H2D, XP_OP_UNKNOWN},
	{"MemcpyD2H", XP_OP_MEMCPY_D2H, XP_OP_UNKNOWN},
	{"MemcpyDtoH", XP_OP_MEMCPY_D2H, XP_OP_MEMCPY_D2H},
	{"MemcpyDToH", XP_OP_MEMCPY_D2H, XP_OP_MEMCPY_D2H},
	{"MemcpyD2D", XP_OP_MEMCPY_D2D, XP_OP_UNKNOWN},
	{"MemcpyDtoD", XP_OP_MEMCPY_D2D, XP_OP_MEMCPY_D2D},
	{"MemcpyP2P", XP_OP_MEMCPY_D2D, XP_OP_UNKNOWN},
	{"MemcpyHToH", XP_OP_MEMCPY_H2H, XP_OP_MEMCPY_H2H},
	/* ROCm: transfers as the CUPTI names are (issue 20); xprof knows none of them */
	{"CopyHostToDevice", XP_OP_MEMCPY_H2D, XP_OP_UNKNOWN},
	{"CopyDeviceToHost", XP_OP_MEMCPY_D2H, XP_OP_UNKNOWN},
	{"CopyDeviceToDevice", XP_OP_MEMCPY_D2D, XP_OP_UNKNOWN},
	{"__amd_rocclr_copyBuffer.kd", XP_OP_MEMCPY_D2D, XP_OP_UNKNOWN},
	{"__amd_rocclr_copyBufferAligned.kd", XP_OP_MEMCPY_D2D, XP_OP_UNKNOWN},
	{"matmul", XP_OP_UNKNOWN, XP_OP_UNKNOWN},
	{"Memset", XP_OP_UNKNOWN, XP_OP_UNKNOWN},
	{"Memcpy", XP_OP_UNKNOWN, XP_OP_UNKNOWN},
	{"", XP_OP_UNKNOWN, XP_OP_UNKNOWN},
};

static void test_memcpy_kind(void)
{
	for (size_t i = 0; i < sizeof memcpy_cases / sizeof memcpy_cases[0]; i++) {
		const struct memcpy_case *t = &memcpy_cases[i];
		size_t n = strlen(t->name);
		bool ok = CHECK_INT(xp_memcpy_kind(t->name, n, false), t->fixed);
		ok &= CHECK_INT(xp_memcpy_kind(t->name, n, true), t->compat);
		if (!ok)
			fprintf(stderr, "  ... in case \"%s\"\n", t->name);
	}
}

static uint64_t bytes_of(const char *s)
{
	return xp_memcpy_bytes(s, strlen(s));
}

static void test_memcpy_bytes(void)
{
	CHECK_INT(bytes_of("kind_src:pageable kind_dst:device size:4096 dest:0 async:0"), 4096);
	CHECK_INT(bytes_of("size:12 dest:0 async:1"), 12);
	CHECK_INT(bytes_of("num_bytes:77"), 77);
	CHECK_INT(bytes_of("kind_src:pageable\nsize:5\ndest:0"), 5);
	CHECK_INT(bytes_of("kind_src:pageable kind_dst:device dest:0 async:0"), 0);
	CHECK_INT(bytes_of(""), 0);
	CHECK_INT(xp_memcpy_bytes(NULL, 0), 0);
}

/* The enum order is the overlap priority (spec §1.1). */
static void test_event_type_priorities(void)
{
	static const enum xp_event_type order[] = {
		XP_ET_UNKNOWN, XP_ET_HOST_COMPUTE, XP_ET_HOST_PREPROCESS, XP_ET_HOST_POSTPROCESS,
		XP_ET_HOST_BATCH_FORMATION, XP_ET_HOST_RUNTIME, XP_ET_HOST_COMPILE, XP_ET_HOST_TO_HOST,
		XP_ET_HOST_TO_DEVICE, XP_ET_HOST_PREPARE, XP_ET_DEVICE_COLLECTIVES, XP_ET_HOST_WAIT_INPUT,
		XP_ET_DEVICE_TO_DEVICE, XP_ET_DEVICE_TO_HOST, XP_ET_DEVICE_COMPUTE_32, XP_ET_DEVICE_COMPUTE_16,
		XP_ET_DEVICE_WAIT_DEVICE, XP_ET_DEVICE_WAIT_HOST,
	};
	for (size_t i = 1; i < sizeof order / sizeof order[0]; i++)
		CHECK(order[i - 1] < order[i]);
	for (int t = 0; t < XP_N_EVENT_TYPES; t++)
		CHECK(xp_event_type_name((enum xp_event_type)t) != NULL);
}

/* Generic categories and their sums (spec §1.1). */
static void test_step_categories(void)
{
	int64_t v[XP_STEP_N_VALUES] = {0}, *ps = v + XP_STEP_TYPE;
	for (int t = 0; t < XP_N_EVENT_TYPES; t++)
		ps[t] = (int64_t)1 << t;
	struct xp_step step = {0}, *st = &step;
	xp_step_set(st, v, "train 1");
	CHECK_INT(xp_step_cat_ps(st, XP_SC_DEVICE_COMPUTE), ps[XP_ET_DEVICE_COMPUTE_16] + ps[XP_ET_DEVICE_COMPUTE_32]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_DEVICE_TO_DEVICE), ps[XP_ET_DEVICE_TO_DEVICE] + ps[XP_ET_DEVICE_WAIT_DEVICE]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_DEVICE_COLLECTIVES), ps[XP_ET_DEVICE_COLLECTIVES]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_HOST_COMPUTE), ps[XP_ET_HOST_COMPUTE]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_KERNEL_LAUNCH), ps[XP_ET_HOST_PREPARE]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_INPUT),
		  ps[XP_ET_HOST_WAIT_INPUT] + ps[XP_ET_HOST_TO_DEVICE] + ps[XP_ET_DEVICE_WAIT_HOST]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_OUTPUT), ps[XP_ET_DEVICE_TO_HOST]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_COMPILATION), ps[XP_ET_HOST_COMPILE]);
	CHECK_INT(xp_step_cat_ps(st, XP_SC_OTHER), ps[XP_ET_UNKNOWN]);
	CHECK_STR(xp_step_cat_key(XP_SC_KERNEL_LAUNCH), "kernel_launch");
	CHECK_STR(xp_step_cat_label(XP_SC_KERNEL_LAUNCH), "Kernel launch");
	CHECK_STR(xp_step_cat_label(XP_SC_DEVICE_COMPUTE), "Device compute");
	CHECK_STR(xp_step_cat_label(XP_SC_DEVICE_COLLECTIVES), "Device collective communication");
	CHECK_STR(xp_step_cat_label(XP_SC_OTHER), "All others");
	CHECK_STR(xp_step_cat_label(XP_SC_INPUT), "Input");
	xp_step_release(st);
}

/* A step keeps its values sparse: each of them reads back, zero or not, extremes too, with its name. */
static void test_step_values(void)
{
	uint64_t seed = 88172645463325252ull;
	for (int round = 0; round < 2000; round++) {
		int64_t v[XP_STEP_N_VALUES];
		for (unsigned i = 0; i < XP_STEP_N_VALUES; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			unsigned pick = (unsigned)(seed % 8);
			v[i] = pick < 4 ? 0 : pick == 4 ? INT64_MIN : pick == 5 ? INT64_MAX : (int64_t)(seed >> 3) - (1ll << 59);
		}
		struct xp_step s = {0};
		xp_step_set(&s, v, round % 3 ? "train 7" : NULL);
		bool same = true;
		for (unsigned i = 0; i < XP_STEP_N_VALUES; i++)
			same &= xp_step_value(&s, i) == v[i];
		for (unsigned t = 0; t < XP_N_EVENT_TYPES; t++)
			same &= xp_step_type_ps(&s, (enum xp_event_type)t) == v[XP_STEP_TYPE + t];
		for (unsigned k = 0; k < 3; k++)
			same &= xp_step_transfer(&s, k, XP_XFER_BYTES) == v[XP_STEP_TRANSFER + 3 * k + 1];
		CHECK(same);
		CHECK_STR(s.name, round % 3 ? "train 7" : "");
		xp_step_release(&s);
		CHECK(s.vals == NULL && s.name == NULL);
	}
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_parse_tf_op_table), TEST(test_parse_tf_op_slice), TEST(test_memcpy_kind),
		TEST(test_memcpy_bytes), TEST(test_event_type_priorities), TEST(test_step_categories), TEST(test_step_values),
	};
	return RUN_TESTS("test_tfop", tests);
}
