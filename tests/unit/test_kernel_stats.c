/* test_kernel_stats.c - kernel_details forms, Tensor Core rules and GPU kernel stats on the spec's examples (A6-A9) and beyond. */
#include <stdlib.h>
#include <string.h>

#include "analyzers/db/kernel_db.h"
#include "analyzers/db/kernel_details.h"
#include "analyzers/kernel_stats.h"
#include "analyzers/prepare/prepare.h"
#include "formats/in/trace_json.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "check.h"
#include "xsbuild.h"

/* ---- helpers ---- */

static size_t col(const struct xp_table *t, const char *key)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (!strcmp(t->cols[c].key, key))
			return c;
	fprintf(stderr, "no column %s\n", key);
	abort();
}

static const struct xp_cell *cell(const struct xp_table *t, size_t row, const char *key)
{
	return xp_table_cell(t, row, col(t, key));
}

static const struct xp_kv *sum(const struct xp_result *r, const char *key)
{
	for (size_t i = 0; i < r->n_summary; i++)
		if (!strcmp(r->summary[i].key, key))
			return &r->summary[i];
	fprintf(stderr, "no summary key %s\n", key);
	abort();
}

/* The report of kernel NAME (the first one in DB order), or NULL. */
static const struct xp_kernel_report *find(const struct xp_kernel_db *db, const char *name)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcmp(db->rows[i].name, name))
			return &db->rows[i];
	return NULL;
}

static int gpu_plane(struct xsb *b, int ordinal)
{
	char name[32];
	snprintf(name, sizeof name, "/device:GPU:%d", ordinal);
	return xsb_plane(b, name, ordinal + 1);
}

/* A kernel event with kernel_details DETAILS (str_value) and tf_op OP (when not NULL). */
static int kernel(struct xsb *b, int plane, int line, const char *name, int64_t at, int64_t dur, const char *details,
		  const char *op)
{
	int e = xsb_event(b, plane, line, name, at, dur);
	if (details)
		xsb_stat_str(b, plane, e, "kernel_details", details);
	if (op)
		xsb_stat_str(b, plane, e, "tf_op", op);
	return e;
}

/* ---- A6: xplane_to_kernel_stats_db_test MultiKernels ---- */

static struct xp_capture *build_a6(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1(Compute)", 0);
	kernel(b, g, l, "kernel_name_shortest", 10000, 1000,
	       "regs:16 static_shared:0 dynamic_shared:0 grid:1,1,1 block:1,1,1 occ_pct:50.0", "mul_786");
	kernel(b, g, l, "kernel_name_middle", 20000, 2000,
	       "regs:32 static_shared:0 dynamic_shared:16384 grid:2,1,1 block:32,1,1 occ_pct=13.0", "Conv2D");
	int e = kernel(b, g, l, "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_tn", 30000, 3000,
		       "regs:32 static_shared:0 dynamic_shared:16384 grid:3,1,1 block:64,1,1 occ_pct:25.0", "Einsum_80");
	xsb_stat_str(b, g, e, "equation", "");
	struct xp_capture *c = xsb_read(b);
	xsb_free(b);
	return c;
}

static void test_a6_reports(void)
{
	struct xp_capture *c = build_a6();
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	xp_kernel_db_sort(db, XP_KSORT_TOTAL);
	REQUIRE_INT(db->n, 3);
	CHECK_INT(db->kernels, 3);
	CHECK_INT(db->total_ps, 6000);
	const struct xp_kernel_report *r = &db->rows[0];
	CHECK_STR(r->name, "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_tn");
	CHECK_INT(r->v.total_ps, 3000);     /* 3 ns */
	CHECK(r->uses_tc);
	CHECK(r->tc_eligible);              /* forced by the kernel's Tensor Core use */
	CHECK_STR(r->op_name, "Einsum_80");
	CHECK(r->module == NULL);
	CHECK(r->has_occupancy);
	CHECK_DBL(r->occupancy_pct, 25.0, 0);
	r = &db->rows[1];
	CHECK_STR(r->name, "kernel_name_middle");
	CHECK_INT(r->v.total_ps, 2000);
	CHECK(!r->uses_tc);
	CHECK(r->tc_eligible);              /* "Conv2D" suffix */
	CHECK_INT(r->details->regs, 32);
	CHECK_INT(r->details->dynamic_shmem, 16384);
	CHECK_INT(r->details->grid[0], 2);
	CHECK_INT(r->details->grid[1], 1);
	CHECK_INT(r->details->grid[2], 1);
	CHECK_INT(r->details->block[0], 32);
	CHECK_INT(r->details->block[1], 1);
	CHECK_INT(r->details->block[2], 1);
	CHECK(!r->has_occupancy);           /* "occ_pct=13.0" is no KEY:VALUE token */
	CHECK_DBL(r->occupancy_pct, 0, 0);
	r = &db->rows[2];
	CHECK_STR(r->name, "kernel_name_shortest");
	CHECK_INT(r->v.total_ps, 1000);
	CHECK_INT(r->details->regs, 16);
	for (int k = 0; k < 3; k++) {
		CHECK_INT(r->details->grid[k], 1);
		CHECK_INT(r->details->block[k], 1);
	}
	CHECK(!r->uses_tc);
	CHECK(!r->tc_eligible);
	CHECK_STR(r->op_name, "mul_786");
	xp_kernel_db_free(db);
	xp_capture_free(c);
}

static void test_a6_table(void)
{
	struct xp_capture *c = build_a6();
	struct xp_kernel_stats_opts o = {0};
	struct xp_err err = {0};
	struct xp_result *r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	const struct xp_table *t = xp_result_table(r, "kernels");
	REQUIRE(t != NULL);
	REQUIRE_INT(t->n_rows, 3);
	static const int64_t total_ps[3] = {3000, 2000, 1000};    /* total_duration_us 0.003, 0.002, 0.001 */
	static const int64_t shmem[3] = {16384, 16384, 0};
	static const char *const block[3] = {"64,1,1", "32,1,1", "1,1,1"};
	for (size_t i = 0; i < 3; i++) {
		CHECK_INT(cell(t, i, "rank")->v.i, (int64_t)i + 1);
		CHECK_INT(cell(t, i, "total_duration_us")->type, XP_T_DUR);
		CHECK_INT(cell(t, i, "total_duration_us")->v.i, total_ps[i]);
		CHECK_INT(cell(t, i, "avg_duration_us")->v.i, total_ps[i]);
		CHECK_INT(cell(t, i, "occurrences")->v.i, 1);
		CHECK_INT(cell(t, i, "shmem_bytes")->v.i, shmem[i]);
		CHECK_STR(cell(t, i, "block_dim")->v.s, block[i]);
	}
	CHECK_INT(t->cols[col(t, "total_duration_us")].unit, XP_U_US);
	char buf[64];
	xp_format_dur_exact(cell(t, 0, "total_duration_us")->v.i, XP_U_US, buf, sizeof buf);
	CHECK_STR(buf, "0.003");
	CHECK_STR(cell(t, 0, "grid_dim")->v.s, "3,1,1");
	CHECK(cell(t, 0, "is_kernel_using_tensor_core")->v.b);
	CHECK(cell(t, 0, "is_op_tensor_core_eligible")->v.b);
	CHECK(!cell(t, 1, "is_kernel_using_tensor_core")->v.b);
	CHECK(cell(t, 1, "is_op_tensor_core_eligible")->v.b);
	CHECK(!cell(t, 2, "is_op_tensor_core_eligible")->v.b);
	CHECK_INT(cell(t, 1, "occupancy_pct")->type, XP_T_NULL);
	CHECK_DBL(cell(t, 2, "occupancy_pct")->v.d, 50.0, 0);
	CHECK_INT(cell(t, 0, "hlo_module")->type, XP_T_NULL);
	CHECK_STR(cell(t, 2, "op_name")->v.s, "mul_786");
	/* Summary: 3 kernels, 6 ns; Tensor Core kernels 3 ns (50%), eligible 5 ns. */
	CHECK_INT(sum(r, "kernels")->value.v.i, 3);
	CHECK_INT(sum(r, "distinct_kernels")->value.v.i, 3);
	CHECK_INT(sum(r, "kernel_time_us")->value.v.i, 6000);
	CHECK_INT(sum(r, "tc_used_time_us")->value.v.i, 3000);
	CHECK_INT(sum(r, "tc_eligible_time_us")->value.v.i, 5000);
	CHECK_DBL(sum(r, "tc_used_pct")->value.v.d, 50.0, 1e-12);
	CHECK_DBL(sum(r, "tc_eligible_pct")->value.v.d, 100.0 * 5 / 6, 1e-12);
	CHECK_STR(r->verdict, "3 kernels, 3 distinct, 6.00 ns total; 50.0% of kernel time in Tensor Core kernels, "
			      "83.3% in Tensor-Core-eligible ops");
	CHECK_INT(r->n_diags, 0);
	xp_result_free(r);
	xp_capture_free(c);
}

/* ---- A7: kernel_stats_utils_test TestGroupKernelReportsByOpName ---- */

static const struct xp_kernel_details no_shape;

static struct xp_kernel_report report(const char *name, const char *op, int64_t ns, bool tc, bool eligible)
{
	struct xp_kernel_report r;
	memset(&r, 0, sizeof r);
	r.details = &no_shape;
	r.name = (char *)name;
	r.op_name = (char *)op;
	r.uses_tc = tc;
	r.tc_eligible = eligible;
	r.v = (struct xp_kernel_value){1, ns * 1000, ns * 1000, ns * 1000};
	return r;
}

static void test_a7_group_by_op(void)
{
	struct xp_kernel_report rows[3] = {
		report("op1_kernel1", "op1", 1000, true, true),
		report("op1_kernel2", "op1", 1000, false, true),
		report("op2_kernel1", "op2", 100, false, false),
	};
	struct xp_kernel_db db = {.n = 3, .rows = rows};
	struct xp_kernel_ops *ops = xp_kernel_ops_by_op(&db, false);
	REQUIRE_INT(ops->n, 2);
	const struct xp_kernel_op *op1 = xp_kernel_ops_find(ops, 0, "op1", NULL);
	const struct xp_kernel_op *op2 = xp_kernel_ops_find(ops, 0, "op2", NULL);
	REQUIRE(op1 && op2);
	CHECK(op1->tc_eligible);
	CHECK_INT(op1->total_ps, 2000000);
	CHECK_INT(op1->tensor_core_ps, 1000000);
	CHECK_DBL((double)op1->tensor_core_ps / (double)op1->total_ps, 0.5, 0);   /* TC utilization */
	CHECK_INT(op1->occurrences, 2);
	CHECK(!op2->tc_eligible);
	CHECK_INT(op2->total_ps, 100000);
	CHECK_INT(op2->tensor_core_ps, 0);
	CHECK(xp_kernel_ops_find(ops, 0, "op1", "module") == NULL);   /* TF and XLA ops never mix */
	xp_kernel_ops_free(ops);
}

/* An op's eligibility is its longest report's even when the database is not sorted (tf-stats does not sort it):
 * the reports of one op in capture order, the short one first. */
static void test_a7_first_report_unsorted(void)
{
	struct xp_kernel_report rows[3] = {
		report("op1_short", "op1", 10, false, false),
		report("op1_long", "op1", 1000, true, true),
		report("op1_middle", "op1", 500, false, false),
	};
	struct xp_kernel_db db = {.n = 3, .rows = rows};
	struct xp_kernel_ops *ops = xp_kernel_ops_by_op(&db, false);
	REQUIRE_INT(ops->n, 1);
	CHECK(ops->ops[0].tc_eligible);
	CHECK_INT(ops->ops[0].total_ps, 1510000);
	xp_kernel_ops_free(ops);
	rows[1].v.total_ps = 5000;  /* now the middle one is the longest: not eligible */
	ops = xp_kernel_ops_by_op(&db, false);
	CHECK(!ops->ops[0].tc_eligible);
	xp_kernel_ops_free(ops);
}

/* A7 through a capture: the same numbers from real events, with real op names. */
static void test_a7_through_capture(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	const char *kd = "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:1,1,1 occ_pct:10";
	kernel(b, g, l, "volta_h884gemm_op1_kernel1", 0, 1000000, kd, "model/op1/MatMul:MatMul");
	kernel(b, g, l, "op1_kernel2", 2000000, 1000000, kd, "model/op1/MatMul:MatMul");
	kernel(b, g, l, "op2_kernel1", 4000000, 100000, kd, "model/op2:Relu");
	struct xp_capture *c = xsb_read(b);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	xp_kernel_db_sort(db, XP_KSORT_TOTAL);
	struct xp_kernel_ops *ops = xp_kernel_ops_by_op(db, false);
	REQUIRE_INT(ops->n, 2);
	const struct xp_kernel_op *op1 = xp_kernel_ops_find(ops, 0, "model/op1/MatMul", NULL);
	const struct xp_kernel_op *op2 = xp_kernel_ops_find(ops, 0, "model/op2", NULL);
	REQUIRE(op1 && op2);
	CHECK(op1->tc_eligible);
	CHECK_INT(op1->total_ps, 2000000);
	CHECK_INT(op1->tensor_core_ps, 1000000);
	CHECK(!op2->tc_eligible);
	CHECK_INT(op2->total_ps, 100000);
	CHECK_INT(op2->tensor_core_ps, 0);
	xp_kernel_ops_free(ops);
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- A8: KernelDetailsTokenizer ---- */

static void test_a8_tokenizer(void)
{
	struct xp_kernel_details d;
	xp_kernel_details_parse("odd grid:3,2,1", 14, &d);
	CHECK_INT(d.grid[0], 3);
	CHECK_INT(d.grid[1], 2);
	CHECK_INT(d.grid[2], 1);
	xp_kernel_details_parse("block:6,5,4 odd ", 16, &d);
	CHECK_INT(d.block[0], 6);
	CHECK_INT(d.block[1], 5);
	CHECK_INT(d.block[2], 4);
	const char *s = "block:1,2,3 odd grid:4,5,6";
	xp_kernel_details_parse(s, strlen(s), &d);
	CHECK_INT(d.block[0], 1);
	CHECK_INT(d.block[1], 2);
	CHECK_INT(d.block[2], 3);
	CHECK_INT(d.grid[0], 4);
	CHECK_INT(d.grid[1], 5);
	CHECK_INT(d.grid[2], 6);
	s = "static_shared:7 dynamic_shared:8";
	xp_kernel_details_parse(s, strlen(s), &d);
	CHECK_INT(d.static_shmem, 7);
	CHECK_INT(d.dynamic_shmem, 8);
	/* The ToXStat form. */
	s = "regs:10 static_shared:128 dynamic_shared:256 grid:3,2,1 block:32,8,4 occ_pct:50";
	xp_kernel_details_parse(s, strlen(s), &d);
	CHECK_INT(d.regs, 10);
	CHECK_INT(d.static_shmem, 128);
	CHECK_INT(d.dynamic_shmem, 256);
	CHECK_INT(d.block[0], 32);
	CHECK_INT(d.block[1], 8);
	CHECK_INT(d.block[2], 4);
	CHECK_INT(d.grid[0], 3);
	CHECK_INT(d.grid[1], 2);
	CHECK_INT(d.grid[2], 1);
	CHECK(d.fields & XP_KD_F_OCC);
	CHECK_DBL(d.occupancy_pct, 50, 0);
	CHECK_INT(d.form, XP_KD_NVIDIA);
}

/* Values that do not parse keep the defaults; only LEN bytes are read. */
static void test_tokenizer_bad_values(void)
{
	struct xp_kernel_details d;
	const char *s = "regs:4294967296 grid:1,2 block:1,2,3,4 static_shared:-1 dynamic_shared:1x occ_pct:nan a:b:c";
	xp_kernel_details_parse(s, strlen(s), &d);
	CHECK_INT(d.regs, 0);
	CHECK_INT(d.grid[0], 1);
	CHECK_INT(d.grid[1], 1);
	CHECK_INT(d.block[0], 1);
	CHECK_INT(d.block[2], 1);
	CHECK_INT(d.static_shmem, 0);
	CHECK_INT(d.dynamic_shmem, 0);
	CHECK_INT(d.fields, 0);
	s = "regs:4294967295 grid:0,0,0";
	xp_kernel_details_parse(s, strlen(s), &d);
	CHECK_INT(d.regs, 4294967295u);
	CHECK_INT(d.grid[0], 0);
	/* A slice: "regs:12" of "regs:123" is read as 12. */
	xp_kernel_details_parse("regs:123", 7, &d);
	CHECK_INT(d.regs, 12);
	xp_kernel_details_parse(NULL, 0, &d);
	CHECK_INT(d.form, XP_KD_NONE);
	CHECK_INT(d.block[1], 1);
}

/* ---- A9: TestInsertOrUpdateKernelReport ---- */

static void test_a9_value_merge(void)
{
	struct xp_kernel_value a = {2, 1700, 500, 1200}, b = {1, 900, 900, 900};
	struct xp_kernel_value x = a, y = b;
	xp_kernel_value_merge(&x, &b);
	xp_kernel_value_merge(&y, &a);
	const struct xp_kernel_value *m[2] = {&x, &y};
	for (int i = 0; i < 2; i++) {
		CHECK_INT(m[i]->total_ps, 2600);
		CHECK_INT(m[i]->min_ps, 500);
		CHECK_INT(m[i]->max_ps, 1200);
		CHECK_INT(m[i]->occurrences, 3);
	}
	struct xp_kernel_value z = {0, 0, 0, 0};
	xp_kernel_value_merge(&z, &b);      /* into an empty value: b itself */
	CHECK_INT(z.min_ps, 900);
	CHECK_INT(z.occurrences, 1);
}

/* ---- the four kernel_details forms, as str_value and as ref_value ---- */

struct form_case {
	const char *kernel, *details;
	enum xp_kd_form form;
	uint32_t regs, sshm, dshm, grid[3], block[3];
	bool occ;
	double occ_pct;
};

static const struct form_case forms[] = {
	{"k_tf23", "registers_per_thread:40\nstatic_shared_memory_usage:2048\ndynamic_shared_memory_usage:512\n"
		   "grid_x:80\ngrid_y:2\ngrid_z:1\nblock_x:256\nblock_y:1\nblock_z:1",
	 XP_KD_TF23, 40, 2048, 512, {80, 2, 1}, {256, 1, 1}, false, 0},
	{"k_tf24", "regs:32 shm:4096 grid:160,1,1 block:1024,1,1", XP_KD_TF24, 32, 4096, 0, {160, 1, 1}, {1024, 1, 1},
	 false, 0},
	{"k_nvidia", "regs:126 static_shared:12544 dynamic_shared:16 grid:1,4,1 block:128,1,1 occ_pct:12.5", XP_KD_NVIDIA,
	 126, 12544, 16, {1, 4, 1}, {128, 1, 1}, true, 12.5},
	{"k_amd", " grid:16,18,1 block:256,1,1 private_mem:64 group_mem:65408 occ_pct:0", XP_KD_AMD, 0, 65408, 0,
	 {16, 18, 1}, {256, 1, 1}, true, 0},
};
#define N_FORMS (sizeof forms / sizeof forms[0])

static void check_form(const struct xp_kernel_report *r, const struct form_case *f)
{
	CHECK_INT(r->details->form, f->form);
	CHECK_INT(r->details->regs, f->regs);
	CHECK_INT(r->details->static_shmem, f->sshm);
	CHECK_INT(r->details->dynamic_shmem, f->dshm);
	for (int k = 0; k < 3; k++) {
		CHECK_INT(r->details->grid[k], f->grid[k]);
		CHECK_INT(r->details->block[k], f->block[k]);
	}
	CHECK_INT(r->has_occupancy, f->occ);
	CHECK_DBL(r->occupancy_pct, f->occ_pct, 0);
}

static void test_four_forms_parse(void)
{
	for (size_t i = 0; i < N_FORMS; i++) {
		struct xp_kernel_details d;
		xp_kernel_details_parse(forms[i].details, strlen(forms[i].details), &d);
		CHECK_INT(d.form, forms[i].form);
		CHECK_INT(d.regs, forms[i].regs);
		CHECK_INT(d.static_shmem, forms[i].sshm);
		CHECK_INT(d.dynamic_shmem, forms[i].dshm);
		CHECK_INT(d.grid[1], forms[i].grid[1]);
		CHECK_INT(d.block[0], forms[i].block[0]);
	}
	struct xp_kernel_details d;
	xp_kernel_details_parse(forms[3].details, strlen(forms[3].details), &d);
	CHECK_INT(d.private_mem, 64);
	CHECK(!(d.fields & XP_KD_F_REGS));
	CHECK_STR(xp_kd_form_name(XP_KD_TF23), "tf2.3");
	CHECK_STR(xp_kd_form_name(XP_KD_AMD), "amd");
}

/* Each form as str_value, as ref_value and (str) on the event metadata, through the reader. */
static void test_four_forms_str_ref_meta(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	char name[64];
	for (size_t i = 0; i < N_FORMS; i++) {
		int64_t at = (int64_t)i * 30000;
		snprintf(name, sizeof name, "%s_str", forms[i].kernel);
		kernel(b, g, l, name, at, 1000, forms[i].details, "scope/op:Op");
		snprintf(name, sizeof name, "%s_ref", forms[i].kernel);
		int e = kernel(b, g, l, name, at + 10000, 1000, NULL, "scope/op:Op");
		xsb_stat_ref(b, g, e, "kernel_details", forms[i].details);
		snprintf(name, sizeof name, "%s_meta", forms[i].kernel);
		kernel(b, g, l, name, at + 20000, 1000, NULL, "scope/op:Op");
		xsb_meta_stat_str(b, g, name, "kernel_details", forms[i].details);
	}
	struct xp_capture *c = xsb_read(b);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	CHECK_INT(db->kernels, 3 * N_FORMS);
	REQUIRE_INT(db->n, 3 * N_FORMS);
	static const char *const how[3] = {"str", "ref", "meta"};
	for (size_t i = 0; i < N_FORMS; i++) {
		for (int h = 0; h < 3; h++) {
			snprintf(name, sizeof name, "%s_%s", forms[i].kernel, how[h]);
			const struct xp_kernel_report *r = find(db, name);
			if (!CHECK(r != NULL))
				continue;
			check_form(r, &forms[i]);
			CHECK_STR(r->op_name, "scope/op");
		}
	}
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- what is not a kernel ---- */

static void test_not_kernels(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int hl = xsb_line(b, h, 5, "tf_gpu_private", 0);
	/* A host launch event with a garbage copy of kernel_details. */
	int e = xsb_event(b, h, hl, "cudaLaunchKernel", 0, 5000);
	xsb_stat_ref(b, h, e, "kernel_details", "regs:4294967297 shm:4294967297 grid:1992,139757090178736,971983408 block:0,0,0");
	xsb_stat_int(b, h, e, "correlation_id", 7);
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	const char *kd = "regs:8 shm:0 grid:1,1,1 block:32,1,1";
	kernel(b, g, l, "real_kernel", 0, 2000, kd, "a:A");
	kernel(b, g, l, "zero_length", 3000, 0, kd, "a:A");
	kernel(b, g, l, "empty_details", 4000, 2000, "", "a:A");
	kernel(b, g, l, "MemcpyH2D", 7000, 2000, NULL, "a:A");
	/* A derived line (0xdeadbeef as int) carries copies that are not kernels. */
	int dl = xsb_line(b, g, -559038737, "Steps", 0);
	kernel(b, g, dl, "derived_copy", 0, 9000, kd, "a:A");
	int dl2 = xsb_line(b, g, -559038737 + 3, "TensorFlow Ops", 0);
	kernel(b, g, dl2, "derived_op", 0, 9000, kd, "a:A");
	struct xp_capture *c = xsb_read(b);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	CHECK_INT(db->kernels, 1);
	CHECK_INT(db->total_ps, 2000);
	CHECK_INT(db->gpu_planes, 1);
	REQUIRE_INT(db->n, 1);
	CHECK_STR(db->rows[0].name, "real_kernel");
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- the op of a kernel ---- */

static void test_op_sources(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	const char *kd = "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:100";
	kernel(b, g, l, "k_tf_op", 0, 1000, kd, "model/dense/MatMul:MatMul");
	int e = kernel(b, g, l, "k_level0", 2000, 1000, kd, NULL);
	xsb_stat_str(b, g, e, "level 0", "replica_1/conv/Conv2D:Conv2D");
	e = kernel(b, g, l, "k_both", 4000, 1000, kd, "first/Op:Op");
	xsb_stat_str(b, g, e, "level 0", "second/Op:Op");
	e = kernel(b, g, l, "k_jax", 6000, 1000, NULL, NULL);
	xsb_stat_ref(b, g, e, "kernel_details", kd);
	xsb_stat_ref(b, g, e, "tf_op", "XlaModule:");
	xsb_stat_ref(b, g, e, "hlo_op", "fusion.3");
	xsb_stat_ref(b, g, e, "hlo_module", "jit_train_step");
	e = kernel(b, g, l, "k_jax_path", 8000, 1000, kd, "XlaModule:");
	xsb_stat_str(b, g, e, "hlo_op", "jit_f::custom-call.5");
	kernel(b, g, l, "k_none", 10000, 1000, kd, NULL);
	struct xp_capture *c = xsb_read(b);

	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	const struct xp_kernel_report *r;
	if (CHECK((r = find(db, "k_tf_op")) != NULL)) {
		CHECK_STR(r->op_name, "model/dense/MatMul");
		CHECK(r->module == NULL);
		CHECK(r->tc_eligible);          /* "/MatMul" */
	}
	if (CHECK((r = find(db, "k_level0")) != NULL)) {
		CHECK_STR(r->op_name, "replica_1/conv/Conv2D");
		CHECK(r->tc_eligible);
	}
	if (CHECK((r = find(db, "k_both")) != NULL))
		CHECK_STR(r->op_name, "first/Op");     /* tf_op before level 0 */
	if (CHECK((r = find(db, "k_jax")) != NULL)) {
		CHECK_STR(r->op_name, "fusion.3");
		CHECK_STR(r->module, "jit_train_step");
	}
	if (CHECK((r = find(db, "k_jax_path")) != NULL)) {
		CHECK_STR(r->op_name, "custom-call.5");  /* the last "::" part */
		CHECK_STR(r->module, "");               /* XLA kernel without hlo_module */
	}
	if (CHECK((r = find(db, "k_none")) != NULL)) {
		CHECK_STR(r->op_name, "");
		CHECK(r->module == NULL);
	}
	xp_kernel_db_free(db);

	/* --compat xprof: the reference reads tf_op, so JAX kernels are "XlaModule". */
	struct xp_kernel_db_opts compat = {.xprof_compat = true};
	db = xp_kernel_db_build(c, &compat);
	if (CHECK((r = find(db, "k_jax")) != NULL)) {
		CHECK_STR(r->op_name, "XlaModule");
		CHECK(r->module == NULL);
	}
	if (CHECK((r = find(db, "k_level0")) != NULL))
		CHECK_STR(r->op_name, "replica_1/conv/Conv2D");
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- Tensor Core rules ---- */

static bool uses(const char *name)
{
	return xp_kernel_uses_tensor_core(name, strlen(name));
}

static bool eligible(const char *op)
{
	return xp_op_tensor_core_eligible(op, strlen(op));
}

static bool einsum(const char *eq)
{
	return xp_einsum_tensor_core_eligible(eq, strlen(eq));
}

static void test_tensor_core_rules(void)
{
	static const char *const tc[] = {
		"ampere_fp16_s16816gemm_fp16", "sm80_xmma_gemm_f16f16", "cutlass_c1688gemm", "cudnn_conv1x1_kernel",
		"conv2d_c1_k1_nhwc", "dgrad_1x1_stride_2x2", "direct_group_conv", "first_layer_wgrad_kernel",
		"turing_h1688gemm", "volta_h884gemm_64x64", "hmma_kernel", "i16832gemm", "i8816gemm",
		"volta_fp16_s884gemm", "turing_s1688gemm", "xmma_implicit_gemm_x", "xmma_sparse_conv_x",
		"xmma_sparse_gemm_x", "sm90_xmma_warp_specialized_implicit_gemm",
	};
	for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++)
		if (!CHECK(uses(tc[i])))
			fprintf(stderr, "  kernel %s\n", tc[i]);
	CHECK(!uses("volta_sgemm_128x64_nn"));
	CHECK(!uses("void Eigen::internal::EigenMetaKernel<>"));
	CHECK(!uses("Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1"));   /* AMD matrix cores: not in the list */
	CHECK(!xp_kernel_uses_tensor_core("s884", 3));                    /* only LEN bytes */

	static const char *const yes[] = {
		"Conv2D", "model/conv/Conv2D", "grad/Conv2DBackpropFilter", "grad/Conv2DBackpropInput", "c/Conv3D",
		"d/DepthwiseConv2dNative", "d/DepthwiseConv2dNativeBackpropFilter", "d/DepthwiseConv2dNativeBackpropInput",
		"dense/MatMul", "x/_FusedMatMul", "FusedMatMul", "rnn/CudnnRNN", "XlaDot", "cluster/XlaDotV2",
		"attention/BatchMatMulV2", "BatchMatMul", "r/CudnnRNNV3", "r/CudnnRNNForward_1", "r/CudnnRNNBackpropV3",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!CHECK(eligible(yes[i])))
			fprintf(stderr, "  op %s\n", yes[i]);
	static const char *const no[] = {"MatMul", "dense/MatMul_1", "Conv2D_1", "CudnnRNN", "relu", "", "Einsum"};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (!CHECK(!eligible(no[i])))
			fprintf(stderr, "  op %s\n", no[i]);

	CHECK(einsum("ab,bc->ac"));
	CHECK(einsum("BTNH,BFNH->BNFT"));
	CHECK(!einsum(""));
	CHECK(!einsum("abc->ac"));
	CHECK(!einsum("a,b,c->d"));
	CHECK(!einsum("ab,bc"));
	CHECK(!einsum("a,b->c->d"));
	CHECK(einsum(",->"));         /* one ',' and one "->": two (empty) operands, as the reference splits */
}

/* The einsum rule through a capture: a non-TC kernel of an Einsum op with a two-operand equation. */
static void test_einsum_through_capture(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	const char *kd = "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:100";
	int e = kernel(b, g, l, "volta_sgemm_einsum2", 0, 1000, kd, "attn/Einsum:Einsum");
	xsb_stat_str(b, g, e, "equation", "ab,bc->ac");
	e = kernel(b, g, l, "volta_sgemm_einsum3", 2000, 1000, kd, "attn/Einsum_1:Einsum");
	xsb_stat_str(b, g, e, "equation", "a,b,c->d");
	struct xp_capture *c = xsb_read(b);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	const struct xp_kernel_report *r;
	if (CHECK((r = find(db, "volta_sgemm_einsum2")) != NULL))
		CHECK(r->tc_eligible && !r->uses_tc);
	if (CHECK((r = find(db, "volta_sgemm_einsum3")) != NULL))
		CHECK(!r->tc_eligible);
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- occupancy, grouping, averages ---- */

static void test_occupancy_and_grouping(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l1 = xsb_line(b, g, 1, "Stream #1", 0), l2 = xsb_line(b, g, 2, "Stream #2", 0);
	/* TF 2.4 form (no occ_pct) with the stat: the stat gives the occupancy. */
	int e = kernel(b, g, l1, "k_stat", 0, 1000, "regs:8 shm:0 grid:1,1,1 block:32,1,1", "a:A");
	xsb_stat_double(b, g, e, "theoretical_occupancy_pct", 62.5);
	/* occ_pct and the stat: occ_pct wins; the occupancy of the first occurrence is kept. */
	e = kernel(b, g, l1, "k_both", 2000, 1000, "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:50",
		   "a:A");
	xsb_stat_double(b, g, e, "theoretical_occupancy_pct", 10);
	/* Same kernel, same details, another stream and another occupancy: one report, 3 occurrences. */
	e = kernel(b, g, l2, "k_both", 500, 1001, "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:75",
		   "a:A");
	kernel(b, g, l2, "k_both", 4000, 1000, "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:50",
	       "a:A");
	/* Same kernel, another grid: its own report. */
	kernel(b, g, l2, "k_both", 6000, 999, "regs:8 static_shared:0 dynamic_shared:0 grid:2,1,1 block:32,1,1 occ_pct:50",
	       "a:A");
	/* Same kernel, another op: its own report. */
	kernel(b, g, l2, "k_both", 8000, 7, "regs:8 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:50",
	       "b:B");
	struct xp_capture *c = xsb_read(b);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	xp_kernel_db_sort(db, XP_KSORT_TOTAL);
	REQUIRE_INT(db->n, 4);
	const struct xp_kernel_report *r = &db->rows[0];
	CHECK_STR(r->name, "k_both");
	CHECK_INT(r->v.occurrences, 3);
	CHECK_INT(r->v.total_ps, 3001);
	CHECK_INT(r->v.min_ps, 1000);
	CHECK_INT(r->v.max_ps, 1001);
	CHECK_INT(xp_kernel_avg_ps(&r->v), 1000);      /* 1000.33 ps, to the nearest ps */
	CHECK(r->has_occupancy);
	/* The first occurrence in reading order: stream 1 is read before stream 2. */
	CHECK_DBL(r->occupancy_pct, 50, 0);
	r = &db->rows[1];
	CHECK_STR(r->name, "k_stat");
	CHECK_DBL(r->occupancy_pct, 62.5, 0);
	CHECK_INT(db->rows[2].details->grid[0], 2);
	CHECK_STR(db->rows[3].op_name, "b");
	struct xp_kernel_value half = {2, 3, 1, 2};
	CHECK_INT(xp_kernel_avg_ps(&half), 2);        /* 1.5 ps rounds half up */
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* Equal totals: the reference's key order (name, grid, block, regs, ...), then module and host. */
static void test_tie_order(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	kernel(b, g, l, "b", 0, 100, "regs:8 grid:1,1,1 block:1,1,1", "x:X");
	kernel(b, g, l, "a", 1000, 100, "regs:9 grid:1,1,1 block:1,1,1", "x:X");
	kernel(b, g, l, "a", 2000, 100, "regs:8 grid:1,1,1 block:2,1,1", "x:X");
	kernel(b, g, l, "a", 3000, 100, "regs:8 grid:1,1,1 block:1,1,1", "y:Y");
	kernel(b, g, l, "a", 4000, 100, "regs:8 grid:1,1,1 block:1,1,1", "x:X");
	kernel(b, g, l, "c", 5000, 50, "regs:8 grid:1,1,1 block:1,1,1", "x:X");
	kernel(b, g, l, "c", 6000, 50, "regs:8 grid:1,1,1 block:1,1,1", "x:X");
	struct xp_capture *c = xsb_read(b);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	xp_kernel_db_sort(db, XP_KSORT_TOTAL);
	REQUIRE_INT(db->n, 6);
	/* a/x/regs8/block1, a/y (op after regs and block), a/regs9, a/block2 ... */
	CHECK_STR(db->rows[0].name, "a");
	CHECK_INT(db->rows[0].details->block[0], 1);
	CHECK_INT(db->rows[0].details->regs, 8);
	CHECK_STR(db->rows[0].op_name, "x");
	CHECK_STR(db->rows[1].op_name, "y");
	CHECK_INT(db->rows[2].details->block[0], 1);
	CHECK_INT(db->rows[2].details->regs, 9);
	CHECK_INT(db->rows[3].details->block[0], 2);
	CHECK_STR(db->rows[4].name, "b");
	CHECK_STR(db->rows[5].name, "c");   /* 2 x 50 = 100 too */
	xp_kernel_db_sort(db, XP_KSORT_NAME);
	CHECK_STR(db->rows[5].name, "c");
	CHECK_STR(db->rows[4].name, "b");
	xp_kernel_db_sort(db, XP_KSORT_COUNT);
	CHECK_STR(db->rows[0].name, "c");
	xp_kernel_db_sort(db, XP_KSORT_MAX);
	CHECK_STR(db->rows[5].name, "c");
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- several hosts: reports concatenated, never merged (spec §4.4) ---- */

static struct xsb *host_with_kernel(const char *host, int64_t dur)
{
	struct xsb *b = xsb_new();
	xsb_hostname(b, host);
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	kernel(b, g, l, "volta_h884gemm", 0, dur, "regs:8 grid:1,1,1 block:1,1,1", "d/MatMul:MatMul");
	kernel(b, g, l, "relu", 2 * dur, 10, "regs:8 grid:1,1,1 block:1,1,1", "d/Relu:Relu");
	return b;
}

static void test_multi_host(void)
{
	struct xsb *b[2] = {host_with_kernel("host1", 1000), host_with_kernel("host2", 1000)};
	struct xp_capture *c = xsb_read_hosts(b, 2);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	xp_kernel_db_sort(db, XP_KSORT_TOTAL);
	REQUIRE_INT(db->n, 4);
	CHECK_INT(db->kernels, 4);
	CHECK_STR(db->rows[0].name, "volta_h884gemm");
	CHECK_INT(db->rows[0].host, 0);
	CHECK_STR(db->rows[1].name, "volta_h884gemm");
	CHECK_INT(db->rows[1].host, 1);
	struct xp_kernel_ops *per_host = xp_kernel_ops_by_op(db, false), *merged = xp_kernel_ops_by_op(db, true);
	CHECK_INT(per_host->n, 4);
	CHECK_INT(merged->n, 2);
	const struct xp_kernel_op *o = xp_kernel_ops_find(merged, 0, "d/MatMul", NULL);
	if (CHECK(o != NULL)) {
		CHECK_INT(o->total_ps, 2000);
		CHECK_INT(o->tensor_core_ps, 2000);
	}
	xp_kernel_ops_free(per_host);
	xp_kernel_ops_free(merged);
	xp_kernel_db_free(db);
	struct xp_kernel_db *one = xp_kernel_db_host(c, 1, NULL);
	CHECK_INT(one->n, 2);
	CHECK_INT(one->rows[0].host, 1);
	xp_kernel_db_free(one);

	struct xp_kernel_stats_opts o2 = {0};
	struct xp_err err = {0};
	struct xp_result *r = xp_analyze_kernel_stats(c, &o2, &err);
	REQUIRE(r != NULL);
	const struct xp_table *t = xp_result_table(r, "kernels");
	REQUIRE_INT(t->n_rows, 4);
	CHECK_STR(cell(t, 0, "host")->v.s, "host1");
	CHECK_STR(cell(t, 1, "host")->v.s, "host2");
	CHECK_INT(t->cols[col(t, "host")].flags & XP_COL_TEXT_HIDDEN, 0);
	CHECK_INT(sum(r, "distinct_kernels")->value.v.i, 2);
	CHECK_STR(r->verdict, "4 kernels on 2 hosts, 2 distinct, 2.02 ns total; 99.0% of kernel time in Tensor Core "
			      "kernels, 99.0% in Tensor-Core-eligible ops");
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b[0]);
	xsb_free(b[1]);
}

/* xp_kernel_ops_build (kernels summed by op and by report key as read, the first key deciding where an op's
 * kernels disagree on eligibility) against xp_kernel_ops_by_op of the whole database, on two hosts of random kernels: ops whose
 * kernels all use Tensor Cores, none do, or some do (then the longest row decides), with and without an
 * eligible op name. */
static void test_ops_build_as_by_op(void)
{
	static const char *const names[] = {"volta_h884gemm_a", "sgemm_b", "relu_c", "turing_s1688gemm_d"};
	static const char *const ops[] = {"m/dense/MatMul:MatMul", "m/relu:Relu", "m/add:AddV2", "m/conv/Conv2D:Conv2D",
					  "m/mixed:Mul"};
	struct xsb *b[2];
	uint64_t x = 12345;
	for (int h = 0; h < 2; h++) {
		b[h] = xsb_new();
		xsb_hostname(b[h], h ? "hb" : "ha");
		int g = gpu_plane(b[h], 0);
		int l = xsb_line(b[h], g, 1, "Stream #1", 0);
		for (int k = 0; k < 400; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			char kd[96];
			snprintf(kd, sizeof kd, "regs:%d static_shared:0 dynamic_shared:0 grid:%d,1,1 block:64,1,1",
				 16 + (int)(x % 3) * 8, 1 + (int)(x >> 8) % 5);
			size_t op = (x >> 16) % 5;
			/* relu and add only ever run non-TC kernels; the others any */
			size_t name = op == 1 || op == 2 ? 1 + (x >> 24) % 2 : (x >> 24) % 4;
			kernel(b[h], g, l, names[name], k * 100000, 1000 + (int64_t)((x >> 32) % 50000), kd, ops[op]);
		}
		/* the longest row of the mixed op runs no Tensor Cores: the op is not eligible, though some are */
		if (h == 1)
			kernel(b[h], g, l, "sgemm_b", 50000000, 9000000, "regs:8 grid:1,1,1 block:1,1,1", ops[4]);
	}
	struct xp_capture *c = xsb_read_hosts(b, 2);
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	struct xp_kernel_ops *want = xp_kernel_ops_by_op(db, true), *got = xp_kernel_ops_build(c, NULL);
	REQUIRE_INT(got->n, want->n);
	size_t mixed = 0;
	for (size_t k = 0; k < want->n; k++) {
		const struct xp_kernel_op *w = &want->ops[k], *o = &got->ops[k];
		CHECK_STR(o->op_name, w->op_name);
		CHECK(!o->module && !w->module);
		CHECK_INT(o->host, w->host);
		CHECK_INT(o->total_ps, w->total_ps);
		CHECK_INT(o->tensor_core_ps, w->tensor_core_ps);
		CHECK_INT(o->occurrences, w->occurrences);
		CHECK_INT(o->tc_eligible, w->tc_eligible);
		mixed += w->tensor_core_ps && w->tensor_core_ps < w->total_ps && !w->tc_eligible;
	}
	CHECK(mixed >= 1);      /* the case the totals by report key are for */
	xp_kernel_ops_free(want);
	xp_kernel_ops_free(got);
	xp_kernel_db_free(db);
	xp_capture_free(c);
	xsb_free(b[0]);
	xsb_free(b[1]);
}

/* xp_kernel_ops_build against xp_kernel_ops_by_op of C's whole database: the same ops in the same order and
 * facts. The eligibility of each op named in NAMES must be WANT_ELIG's, in both. */
static void check_ops_build(const struct xp_capture *c, const char *const *names, const bool *want_elig, size_t n)
{
	struct xp_kernel_db *db = xp_kernel_db_build(c, NULL);
	struct xp_kernel_ops *want = xp_kernel_ops_by_op(db, true), *got = xp_kernel_ops_build(c, NULL);
	REQUIRE_INT(got->n, want->n);
	for (size_t k = 0; k < want->n; k++) {
		const struct xp_kernel_op *w = &want->ops[k], *o = &got->ops[k];
		CHECK_STR(o->op_name, w->op_name);
		CHECK_INT(o->total_ps, w->total_ps);
		CHECK_INT(o->tensor_core_ps, w->tensor_core_ps);
		CHECK_INT(o->occurrences, w->occurrences);
		CHECK_INT(o->tc_eligible, w->tc_eligible);
	}
	for (size_t i = 0; i < n; i++) {
		const struct xp_kernel_op *w = xp_kernel_ops_find(want, 0, names[i], NULL);
		const struct xp_kernel_op *o = xp_kernel_ops_find(got, 0, names[i], NULL);
		if (CHECK(w && o)) {
			CHECK_INT(w->tc_eligible, want_elig[i]);
			CHECK_INT(o->tc_eligible, want_elig[i]);
		}
	}
	xp_kernel_ops_free(want);
	xp_kernel_ops_free(got);
	xp_kernel_db_free(db);
}

/* The ops of mixed kernels whose first row is found only from whole rows: a row's total is the sum of its
 * kernels (two short ineligible kernels outweigh one longer Tensor Core kernel); two kernel_details texts that
 * differ only in occupancy are one row; ties on total go to the kernel name, then the grid; one key on two hosts
 * is two rows. */
static void test_ops_build_edges(void)
{
	static const char *const ops[] = {"m/sum", "m/occ", "m/tie_name", "m/tie_name2", "m/tie_grid", "m/hosts"};
	static const bool elig[] = {false, false, false, true, false, true};
	const char *kd = "regs:8 grid:1,1,1 block:1,1,1";
	struct xsb *b[2];
	for (int h = 0; h < 2; h++) {
		b[h] = xsb_new();
		xsb_hostname(b[h], h ? "hb" : "ha");
		int g = gpu_plane(b[h], 0);
		int l = xsb_line(b[h], g, 1, "Stream #1", 0);
		int64_t t = 0;
		if (h == 0) {
			kernel(b[h], g, l, "volta_h884gemm_a", t += 100000, 3000, kd, ops[0]);
			kernel(b[h], g, l, "sgemm_b", t += 100000, 2000, kd, ops[0]);
			kernel(b[h], g, l, "sgemm_b", t += 100000, 2000, kd, ops[0]);
			/* 5000 ps in one row (occupancy is not in the key) against 4000 of Tensor Core kernels */
			kernel(b[h], g, l, "sgemm_b", t += 100000, 2500, "regs:8 grid:1,1,1 block:1,1,1 occ_pct:50",
			       ops[1]);
			kernel(b[h], g, l, "sgemm_b", t += 100000, 2500, "regs:8 grid:1,1,1 block:1,1,1 occ_pct:25",
			       ops[1]);
			kernel(b[h], g, l, "volta_h884gemm_a", t += 100000, 4000, kd, ops[1]);
			/* equal totals: "sgemm_b" sorts before "volta_h884gemm_a", "a_h884gemm" before "sgemm_b" */
			kernel(b[h], g, l, "volta_h884gemm_a", t += 100000, 1000, kd, ops[2]);
			kernel(b[h], g, l, "sgemm_b", t += 100000, 1000, kd, ops[2]);
			kernel(b[h], g, l, "sgemm_b", t += 100000, 1000, kd, ops[3]);
			kernel(b[h], g, l, "a_h884gemm", t += 100000, 1000, kd, ops[3]);
			/* equal totals and names, the Tensor Core one eligible by its einsum: the smaller grid first */
			int e = kernel(b[h], g, l, "sgemm_b", t += 100000, 1000, "regs:8 grid:2,1,1 block:1,1,1", ops[4]);
			xsb_stat_str(b[h], g, e, "equation", "ab,bc->ac");
			kernel(b[h], g, l, "sgemm_b", t += 100000, 1000, "regs:8 grid:1,1,1 block:1,1,1", ops[4]);
		}
		/* each host's row 3000, the other kind 5000 over both: rows are per host */
		kernel(b[h], g, l, "sgemm_b", t += 100000, 2500, kd, ops[5]);
		kernel(b[h], g, l, "volta_h884gemm_a", t += 100000, 3000, kd, ops[5]);
	}
	struct xp_capture *c = xsb_read_hosts(b, 2);
	check_ops_build(c, ops, elig, sizeof ops / sizeof *ops);
	xp_capture_free(c);
	xsb_free(b[0]);
	xsb_free(b[1]);
}

/* PyTorch: the op is the launching operator, eligible as that call is (its own Tensor Core kernel makes it so):
 * one operator's calls disagree, and its first row decides, summed over calls. */
static void test_ops_build_pytorch(void)
{
	static const char *const doc =
		"{\"traceEvents\": ["
		"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 100, \"tid\": 0, \"args\": {\"name\": \"python\"}},"
#define PT_CALL(op, ts, corr, kname, kdur)                                                                       \
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" op "\", \"pid\": 100, \"tid\": 1, \"ts\": " #ts             \
	", \"dur\": 10, \"args\": {}},"                                                                            \
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 1, \"ts\": " #ts \
	", \"dur\": 2, \"args\": {\"correlation\": " #corr "}},"                                                      \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" kname "\", \"pid\": 0, \"tid\": 7, \"ts\": " #ts            \
	", \"dur\": " #kdur ", \"args\": {\"correlation\": " #corr ", \"device\": 0, \"stream\": 7, \"grid\": [1, 1, 1], "   \
	"\"block\": [64, 1, 1], \"registers per thread\": 32, \"shared memory\": 0}},"
		PT_CALL("aten::custom", 1000, 1, "volta_h884gemm_a", 30)
		PT_CALL("aten::custom", 1100, 2, "sgemm_b", 20)
		PT_CALL("aten::custom", 1200, 3, "sgemm_b", 20)
		PT_CALL("aten::other", 1300, 4, "volta_h884gemm_a", 10)
		PT_CALL("aten::other", 1400, 5, "sgemm_b", 10)
		PT_CALL("aten::third", 1500, 6, "a_h884gemm", 10)
		PT_CALL("aten::third", 1600, 7, "sgemm_b", 10)
#undef PT_CALL
		"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"gpu\"}}"
		"]}";
	static const char *const ops[] = {"aten::custom", "aten::other", "aten::third"};
	static const bool elig[] = {false, false, true};
	struct xp_capture *c = xp_capture_new();
	struct xp_err err;
	memset(&err, 0, sizeof err);
	REQUIRE_INT(xp_read_trace_json_mem(c, "t.pt.trace.json", (const uint8_t *)doc, strlen(doc), NULL, &err), 0);
	REQUIRE(c->n_hosts == 1 && xp_host_is_pytorch(&c->hosts[0]));
	check_ops_build(c, ops, elig, sizeof ops / sizeof *ops);
	xp_capture_free(c);
}

/* ---- filters, sort, top, verdicts, no GPU ---- */

static void test_filters_and_top(void)
{
	struct xsb *bs[1] = {host_with_kernel("h", 1000)};
	struct xp_capture *c = xsb_read_hosts(bs, 1);
	struct xp_err err = {0};
	struct xp_kernel_stats_opts o = {.op_regex = "Relu$"};
	struct xp_result *r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	const struct xp_table *t = xp_result_table(r, "kernels");
	REQUIRE_INT(t->n_rows, 1);
	CHECK_STR(cell(t, 0, "kernel_name")->v.s, "relu");
	CHECK_DBL(cell(t, 0, "kernel_time_pct")->v.d, 100.0 * 10 / 1010, 1e-12);   /* share of all kernel time */
	CHECK_INT(sum(r, "capture_kernels")->value.v.i, 2);
	CHECK_STR(r->verdict, "1 of 2 kernels match the filters, 1 distinct, 10 ps total; 0.0% of that time in "
			      "Tensor Core kernels, 0.0% in Tensor-Core-eligible ops");
	xp_result_free(r);

	o = (struct xp_kernel_stats_opts){.kernel_regex = "^nothing$"};
	r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	CHECK_STR(r->verdict, "No kernel matches the filters (2 kernels in the capture)");
	CHECK_INT(xp_result_table(r, "kernels")->n_rows, 0);
	xp_result_free(r);

	o = (struct xp_kernel_stats_opts){.top = 1, .sort = XP_KSORT_NAME};
	r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	t = xp_result_table(r, "kernels");
	REQUIRE_INT(t->n_rows, 1);
	CHECK_STR(cell(t, 0, "kernel_name")->v.s, "relu");
	CHECK_INT(sum(r, "rows")->value.v.i, 2);
	CHECK_STR(t->text_note, "top 1 of 2 rows (--top)");
	xp_result_free(r);

	o = (struct xp_kernel_stats_opts){.op_regex = "("};
	CHECK(xp_analyze_kernel_stats(c, &o, &err) == NULL);
	CHECK(strstr(err.msg, "--op") != NULL);
	xp_capture_free(c);
	xsb_free(bs[0]);
}

/* --op also matches MODULE/OP of XLA kernels. */
static void test_op_filter_module(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 0);
	int l = xsb_line(b, g, 1, "Stream #1", 0);
	int e = kernel(b, g, l, "loop_add_fusion", 0, 1000, " grid:1,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0",
		       "XlaModule:");
	xsb_stat_ref(b, g, e, "hlo_op", "add_fusion");
	xsb_stat_ref(b, g, e, "hlo_module", "jit_train_step");
	kernel(b, g, l, "other", 2000, 1000, " grid:1,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0", "x:X");
	struct xp_capture *c = xsb_read(b);
	struct xp_err err = {0};
	struct xp_kernel_stats_opts o = {.op_regex = "^jit_train_step/"};
	struct xp_result *r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	const struct xp_table *t = xp_result_table(r, "kernels");
	REQUIRE_INT(t->n_rows, 1);
	CHECK_STR(cell(t, 0, "hlo_module")->v.s, "jit_train_step");
	CHECK_STR(cell(t, 0, "op_name")->v.s, "add_fusion");
	CHECK_INT(cell(t, 0, "registers_per_thread")->type, XP_T_NULL);    /* AMD: no register count */
	CHECK_INT(t->cols[col(t, "hlo_module")].flags & XP_COL_TEXT_HIDDEN, 0);
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

static void check_no_kernels(struct xsb *b, const char *verdict)
{
	struct xp_capture *c = xsb_read(b);
	struct xp_err err = {0};
	struct xp_kernel_stats_opts o = {0};
	struct xp_result *r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	CHECK_STR(r->verdict, verdict);
	REQUIRE_INT(r->n_diags, 1);
	CHECK_STR(r->diags[0].code, "no_kernels");
	CHECK_STR(r->diags[0].message,
		  "There is no GPU data to display because there were no kernels in the capture duration.");
	CHECK_INT(xp_result_table(r, "kernels")->n_rows, 0);
	CHECK_INT(sum(r, "kernels")->value.v.i, 0);
	xp_result_free(r);
	xp_capture_free(c);
}

static void test_no_gpu(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "main", 0);
	xsb_event(b, h, l, "MatMul", 0, 100);
	check_no_kernels(b, "No GPU kernels: the capture has no GPU device plane");
	int g = gpu_plane(b, 0);
	int gl = xsb_line(b, g, 1, "Stream #1", 0);
	xsb_event(b, g, gl, "MemcpyH2D", 0, 100);
	check_no_kernels(b, "No GPU kernels in the capture");
	xsb_free(b);
}

/* Collectors that wrote uninitialized registers (ROCm, JAX ~0.6): an info diagnostic, values as written. */
static void test_implausible_registers(void)
{
	struct xsb *b = xsb_new();
	int g = gpu_plane(b, 7);
	int l = xsb_line(b, g, 1, "Stream #1(Kernel)", 0);
	kernel(b, g, l, "input_transpose_fusion", 0, 1000,
	       "regs:2191500840 static_shared:32462 dynamic_shared:0 grid:69840,1,1 block:256,1,1 occ_pct:0", NULL);
	struct xp_capture *c = xsb_read(b);
	struct xp_err err = {0};
	struct xp_kernel_stats_opts o = {0};
	struct xp_result *r = xp_analyze_kernel_stats(c, &o, &err);
	REQUIRE(r != NULL);
	REQUIRE_INT(r->n_diags, 1);
	CHECK_STR(r->diags[0].code, "implausible_kernel_details");
	CHECK_INT(cell(xp_result_table(r, "kernels"), 0, "registers_per_thread")->v.i, 2191500840);
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* Picking the first rows of a database (a text table's) gives the rows a full sort puts first, in every order, with
 * ties of total decided the same way; asking for every row gives the whole sorted order. */
static void test_order_without_sort(void)
{
	static const char *const names[] = {"gemm", "relu", "reduce", "copy"};
	struct xp_kernel_db *db = xp_kernel_db_new(1);
	struct xp_kernel_host hs = {0};
	xp_kernel_db_add_host(db, 0, &hs);
	unsigned seed = 7;
	for (int i = 0; i < 400; i++) {
		struct xp_kernel_details d;
		memset(&d, 0, sizeof d);
		seed = seed * 1103515245u + 12345u;
		d.grid[0] = 1 + seed % 5;
		d.regs = 16 * (1 + seed % 3);
		int64_t ps = (int64_t)(1 + (seed >> 8) % 40) * 1000;   /* many ties of total */
		struct xp_kernel_report r = report(names[(seed >> 4) % 4], (seed >> 6) % 2 ? "op_a" : "op_b", 0, false, false);
		r.details = &d;
		r.v = (struct xp_kernel_value){1 + (seed >> 12) % 3, ps, ps, ps};
		xp_kernel_db_add(db, &r);
	}
	bool *kept = calloc(db->n, sizeof *kept);
	for (size_t i = 0; i < db->n; i++)
		kept[i] = i % 3 != 0;
	for (int key = XP_KSORT_TOTAL; key <= XP_KSORT_NAME; key++) {
		uint32_t few[25], *all = calloc(db->n, sizeof *all), *sorted = calloc(db->n, sizeof *sorted);
		size_t n_few = xp_kernel_db_order(db, (enum xp_kernel_sort)key, kept, 25, few);
		size_t n_all = xp_kernel_db_order(db, (enum xp_kernel_sort)key, kept, db->n, all);
		CHECK_INT(n_few, 25);
		/* The same rows by a full sort: number them, sort, and list the kept ones in their new order. */
		xp_kernel_db_number(db);
		xp_kernel_db_sort(db, (enum xp_kernel_sort)key);
		size_t m = 0;
		bool *kept_now = calloc(db->n, sizeof *kept_now);
		for (size_t i = 0; i < db->n; i++)
			if ((kept_now[i] = kept[db->rows[i].seq]))
				sorted[m++] = db->rows[i].seq;
		CHECK_INT(n_all, m);
		for (size_t i = 0; i < m && i < n_all; i++)
			CHECK_INT(all[i], sorted[i]);
		for (size_t i = 0; i < n_few; i++)
			CHECK_INT(few[i], sorted[i]);
		/* The database is in sorted order now: later rounds read it as their starting order. */
		memcpy(kept, kept_now, db->n * sizeof *kept);
		free(kept_now);
		free(all);
		free(sorted);
	}
	free(kept);
	xp_kernel_db_free(db);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_a6_reports),
		TEST(test_a6_table),
		TEST(test_a7_group_by_op),
		TEST(test_a7_first_report_unsorted),
		TEST(test_a7_through_capture),
		TEST(test_a8_tokenizer),
		TEST(test_tokenizer_bad_values),
		TEST(test_a9_value_merge),
		TEST(test_four_forms_parse),
		TEST(test_four_forms_str_ref_meta),
		TEST(test_not_kernels),
		TEST(test_op_sources),
		TEST(test_tensor_core_rules),
		TEST(test_einsum_through_capture),
		TEST(test_occupancy_and_grouping),
		TEST(test_tie_order),
		TEST(test_multi_host),
		TEST(test_ops_build_as_by_op),
		TEST(test_ops_build_edges),
		TEST(test_ops_build_pytorch),
		TEST(test_filters_and_top),
		TEST(test_op_filter_module),
		TEST(test_no_gpu),
		TEST(test_implausible_registers),
		TEST(test_order_without_sort),
	};
	return RUN_TESTS("test_kernel_stats", tests);
}
