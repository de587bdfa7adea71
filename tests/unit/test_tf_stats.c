/* test_tf_stats.c - TensorFlow Stats on the spec's worked examples (A1-A5, A19, A20) and on captures whose every CSV number is known. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzers/db/hostdb.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/perfenv.h"
#include "analyzers/tf_stats.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"
#include "formats/out/out.h"
#include "check.h"
#include "formats/out/out.h"
#include "xsbuild.h"

#define NS 1000     /* ps per ns */
#define US 1000000  /* ps per us */

/* ---- helpers ---- */

static const struct xp_op_row *row_of(const struct xp_op_db *db, enum xp_op_kind kind, const char *module,
				      const char *name)
{
	return xp_op_db_find(db, kind, module, name);
}

/* Host op DB of host 0 of a built capture. */
static struct xp_op_db *host_db(struct xsb *b, struct xp_capture **cap, struct xp_host_db_info *info)
{
	*cap = xsb_read(b);
	return xp_op_db_host(*cap, &(*cap)->hosts[0], info);
}

static struct xp_result *analyze(const struct xp_capture *c, const struct xp_tf_stats_opts *o)
{
	struct xp_err err = {0};
	struct xp_result *r = xp_analyze_tf_stats(c, o, &err);
	if (!r)
		fprintf(stderr, "xp_analyze_tf_stats: %s\n", err.msg);
	return r;
}

/* The result rendered by a writer, as a malloc'd string. */
static char *render(const struct xp_result *r, const struct xp_writer *w)
{
	/* Static: gcc -O3 otherwise takes the returned text for a pointer into this frame. */
	static char *buf;
	static size_t len;
	buf = NULL;
	len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xp_out_opts oo = {0};
	if (!f)
		abort();
	w->write(r, f, &oo, &(struct xp_err){0});
	fclose(f);
	return buf;
}

static size_t col(const struct xp_table *t, const char *key)
{
	for (size_t i = 0; i < t->n_cols; i++)
		if (!strcmp(t->cols[i].key, key))
			return i;
	fprintf(stderr, "no column %s\n", key);
	abort();
}

static const struct xp_cell *cell(const struct xp_table *t, size_t row, const char *key)
{
	return xp_table_cell(t, row, col(t, key));
}

static const char *cell_str(const struct xp_table *t, size_t row, const char *key)
{
	const struct xp_cell *c = cell(t, row, key);
	return c->type == XP_T_STR ? c->v.s : "(null)";
}

static bool cell_null(const struct xp_table *t, size_t row, const char *key)
{
	return cell(t, row, key)->type == XP_T_NULL;
}

static int64_t summary_i64(const struct xp_result *r, const char *key)
{
	for (size_t i = 0; i < r->n_summary; i++)
		if (!strcmp(r->summary[i].key, key))
			return r->summary[i].value.v.i;
	fprintf(stderr, "no summary %s\n", key);
	abort();
}

/* ---- captures ---- */

/* A1: two host lines. */
static struct xsb *build_a1(struct xsb *b)
{
	int h = xsb_plane(b, "/host:CPU", 0);
	int l10 = xsb_line(b, h, 10, "thread 10", 0), l20 = xsb_line(b, h, 20, "thread 20", 0);
	xsb_event(b, h, l10, "TfOp1:TfOp1", 100000 * NS, 8000 * NS);
	xsb_event(b, h, l20, "TfOp1:TfOp1", 100000 * NS, 8000 * NS);
	xsb_event(b, h, l20, "TfOp2:TfOp2", 110000 * NS, 10000 * NS);
	return b;
}

/* A4's GPU plane (the kernels of A5 too when A5). */
static void build_a4_gpu(struct xsb *b, bool a5)
{
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s10 = xsb_line(b, g, 10, "Stream #10", 0), s20 = xsb_line(b, g, 20, "Stream #20", 0);
	int e;
	e = xsb_event(b, g, s10, "kernel1", 100000 * NS, 8000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "TfOp1:TfOp1");
	e = xsb_event(b, g, s10, "kernel2", 110000 * NS, 10000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "TfOp1:TfOp1");
	e = xsb_event(b, g, s20, "kernel1", 100000 * NS, 8000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "TfOp1:TfOp1");
	e = xsb_event(b, g, s20, "kernel2", 110000 * NS, 10000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "TfOp1:TfOp1");
	e = xsb_event(b, g, s20, "kernel3", 120000 * NS, 10000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "TfOp2:TfOp2");
	if (!a5)
		return;
	static const char details[] = "regs:32\nstatic_shared:0\ndynamic_shared:16384\ngrid:2,1,1\nblock:32,1,1\nocc_pct:100";
	e = xsb_event(b, g, s20, "volta_fp16_s884gemm", 130000 * NS, 10000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "Conv2D:Conv2D");
	xsb_stat_str(b, g, e, "kernel_details", details);
	e = xsb_event(b, g, s20, "kernel5", 150000 * NS, 10000 * NS);
	xsb_stat_str(b, g, e, "tf_op", "Conv2D:Conv2D");
	xsb_stat_str(b, g, e, "kernel_details", details);
}

/* ---- A1-A3: the host op DB ---- */

static void test_a1_host_self_and_idle(void)
{
	struct xp_capture *c;
	struct xp_host_db_info info;
	struct xsb *b = build_a1(xsb_new());
	struct xp_op_db *db = host_db(b, &c, &info);
	CHECK_INT(db->n, 3);
	const struct xp_op_row *op1 = row_of(db, XP_OPK_TF, NULL, "TfOp1"), *op2 = row_of(db, XP_OPK_TF, NULL, "TfOp2");
	const struct xp_op_row *idle = row_of(db, XP_OPK_IDLE, NULL, "IDLE");
	REQUIRE(op1 && op2 && idle);
	CHECK_STR(op1->category, "TfOp1");
	CHECK_INT(op1->occurrences, 2);
	CHECK_INT(op1->time_ps, 16000000);
	CHECK_INT(op1->self_ps, 16000000);
	CHECK_INT(op2->occurrences, 1);
	CHECK_INT(op2->time_ps, 10000000);
	CHECK_STR(idle->category, "IDLE");
	CHECK_INT(idle->occurrences, 0);
	CHECK_INT(idle->time_ps, 2000000);
	CHECK_INT(idle->self_ps, 2000000);
	CHECK_INT(db->total_op_time_ps, 26000000);
	CHECK_INT(db->total_time_ps, 28000000);
	CHECK_INT(info.lines, 2);
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

static void test_a2_xla_cpu_tf_op_stat(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "xla cpu", 0);
	int e = xsb_event(b, h, l, "xla_op", 100000 * NS, 8000 * NS);
	xsb_stat_str(b, h, e, "tf_op", "tf_op");
	e = xsb_event(b, h, l, "xla_op2", 110000 * NS, 10000 * NS);
	xsb_stat_str(b, h, e, "tf_op", "tf_op2");
	struct xp_capture *c;
	struct xp_op_db *db = host_db(b, &c, NULL);
	CHECK_INT(db->n, 3);
	const struct xp_op_row *a = row_of(db, XP_OPK_TF, NULL, "tf_op"), *a2 = row_of(db, XP_OPK_TF, NULL, "tf_op2");
	const struct xp_op_row *idle = row_of(db, XP_OPK_IDLE, NULL, "IDLE");
	REQUIRE(a && a2 && idle);
	CHECK_INT(a->occurrences, 1);
	CHECK_INT(a->time_ps, 8000000);
	CHECK_INT(a->self_ps, 8000000);
	CHECK_STR(a->category, "");
	CHECK_INT(a2->time_ps, 10000000);
	CHECK_INT(a2->self_ps, 10000000);
	CHECK_INT(idle->time_ps, 2000000);
	CHECK_INT(db->total_time_ps, 20000000);
	CHECK_INT(db->total_op_time_ps, 18000000);
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

static struct xsb *build_a3(struct xsb *b)
{
	static const struct {
		const char *name;
		int64_t at, dur, id;
	} ev[] = {
		{"ShuffleMapDataset", 100000000, 10000000, 1},
		{"MapMapDataset", 100000000, 8000000, 2},
		{"ShuffleMapDataset", 120000000, 10000000, 3},
		{"MapMapDataset", 120000000, 8000000, 4},
	};
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "tf_data", 0);
	for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
		int e = xsb_event(b, h, l, ev[i].name, ev[i].at, ev[i].dur);
		xsb_stat_int(b, h, e, "_ipl_stage_id", ev[i].id);
		xsb_stat_str(b, h, e, "_ipl_stage_cat", "preprocessing");
		xsb_stat_str(b, h, e, "_ipl_stage_name", ev[i].name);
	}
	return b;
}

static void test_a3_input_pipeline_stages(void)
{
	struct xsb *b = build_a3(xsb_new());
	struct xp_capture *c;
	struct xp_op_db *db = host_db(b, &c, NULL);
	CHECK_INT(db->n, 5);
	const char *ids[] = {"1", "2", "3", "4"};
	for (int i = 0; i < 4; i++) {
		bool shuffle = i % 2 == 0;
		const struct xp_op_row *r = row_of(db, XP_OPK_STAGE, ids[i], shuffle ? "ShuffleMapDataset" : "MapMapDataset");
		if (!CHECK(r))
			continue;
		CHECK_STR(r->category, "preprocessing");
		CHECK_INT(r->occurrences, 1);
		CHECK_INT(r->time_ps, shuffle ? 10000000 : 8000000);
		CHECK_INT(r->self_ps, shuffle ? 2000000 : 8000000);
	}
	const struct xp_op_row *idle = row_of(db, XP_OPK_IDLE, NULL, "IDLE");
	REQUIRE(idle);
	CHECK_INT(idle->time_ps, 10000000);
	CHECK_INT(db->total_time_ps, 30000000);
	CHECK_INT(db->total_op_time_ps, 20000000);

	/* In the table: one row per stage id, the id in stage_id; ties in self time by name, then id. */
	struct xp_result *r = analyze(c, NULL);
	REQUIRE(r);
	const struct xp_table *t = xp_result_table(r, "tf_stats");
	REQUIRE(t && t->n_rows == 5);
	static const char *const names[] = {"IDLE", "MapMapDataset", "MapMapDataset", "ShuffleMapDataset",
					    "ShuffleMapDataset"};
	static const int64_t stage[] = {-1, 2, 4, 1, 3};
	for (size_t i = 0; i < 5; i++) {
		CHECK_STR(cell_str(t, i, "op_name"), names[i]);
		CHECK_STR(cell_str(t, i, "host_or_device"), "Host");
		if (stage[i] < 0)
			CHECK(cell_null(t, i, "stage_id"));
		else
			CHECK_INT(cell(t, i, "stage_id")->v.i, stage[i]);
	}
	xp_result_free(r);
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- A4, A5: the device op DB and the end-to-end table ---- */

static void test_a4_gpu_op_db(void)
{
	struct xsb *b = xsb_new();
	build_a4_gpu(b, false);
	struct xp_capture *c = xsb_read(b);
	struct xp_op_db *db = xp_op_db_device(c, &c->hosts[0], NULL);
	CHECK_INT(db->n, 4);
	const struct xp_op_row *k1 = row_of(db, XP_OPK_TF, NULL, "TfOp1/kernel1");
	const struct xp_op_row *k2 = row_of(db, XP_OPK_TF, NULL, "TfOp1/kernel2");
	const struct xp_op_row *k3 = row_of(db, XP_OPK_TF, NULL, "TfOp2/kernel3");
	const struct xp_op_row *idle = row_of(db, XP_OPK_IDLE, NULL, "IDLE");
	REQUIRE(k1 && k2 && k3 && idle);
	CHECK_STR(k1->category, "TfOp1");
	CHECK_INT(k1->occurrences, 2);
	CHECK_INT(k1->time_ps, 16000 * NS);
	CHECK_INT(k1->self_ps, 16000 * NS);
	CHECK_INT(k2->occurrences, 2);
	CHECK_INT(k2->time_ps, 20000 * NS);
	CHECK_INT(k3->occurrences, 1);
	CHECK_INT(k3->time_ps, 10000 * NS);
	CHECK_INT(idle->time_ps, 0);
	CHECK_INT(db->total_op_time_ps, 46000 * NS);
	CHECK_INT(db->total_time_ps, 46000 * NS);
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

static void test_a5_gpu_tf_stats(void)
{
	struct xsb *b = xsb_new();
	build_a4_gpu(b, true);
	struct xp_capture *c = xsb_read(b);
	struct xp_result *r = analyze(c, NULL);
	REQUIRE(r);
	const struct xp_table *t = xp_result_table(r, "tf_stats");
	REQUIRE(t);
	REQUIRE_INT(t->n_rows, 4);
	static const char *const names[] = {"TfOp1", "Conv2D", "TfOp2", "IDLE"};
	static const int64_t occ[] = {2, 1, 1, 0}, self_us[] = {36, 20, 10, 0};
	static const double pct[] = {100.0 * 36 / 66, 100.0 * 20 / 66, 100.0 * 10 / 66, 0};
	static const double cum[] = {100.0 * 36 / 66, 100.0 * 56 / 66, 100, 100};
	for (size_t i = 0; i < 4; i++) {
		CHECK_INT(cell(t, i, "rank")->v.i, (int64_t)i + 1);
		CHECK_STR(cell_str(t, i, "host_or_device"), "Device");
		CHECK_STR(cell_str(t, i, "op_name"), names[i]);
		CHECK_INT(cell(t, i, "occurrences")->v.i, occ[i]);
		CHECK_INT(cell(t, i, "total_self_time_us")->v.i, self_us[i] * US);
		CHECK_DBL(cell(t, i, "device_self_time_pct")->v.d, pct[i], 1e-12);
		CHECK_DBL(cell(t, i, "device_cumulative_self_time_pct")->v.d, cum[i], 1e-12);
		CHECK(cell_null(t, i, "host_self_time_pct"));
		CHECK(cell_null(t, i, "bound_by"));
	}
	CHECK_STR(cell_str(t, 0, "op_type"), "TfOp1");
	CHECK_STR(cell_str(t, 1, "op_type"), "Conv2D");
	CHECK_INT(cell(t, 0, "avg_time_us")->v.i, 18 * US);
	/* Conv2D: one of its two 10 us kernels (s884) uses Tensor Cores. */
	CHECK_DBL(cell(t, 1, "tensor_core_utilization_pct")->v.d, 50.0, 0);
	CHECK(cell_null(t, 0, "tensor_core_utilization_pct"));    /* TfOp1's kernels carry no kernel_details */
	CHECK_STR(cell_str(t, 0, "execution_mode"), "Function");
	CHECK(cell_null(t, 3, "execution_mode"));
	CHECK_INT(summary_i64(r, "device_time_us"), 66000 * NS);
	CHECK_INT(summary_i64(r, "device_idle_time_us"), 0);
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- A19: builder arithmetic ---- */

static void test_a19_builder(void)
{
	struct xp_op_db *db = xp_op_db_empty();
	size_t row = xp_op_db_enter(db, XP_OPK_TF, NULL, "op", "Type", 2, 1000, 100, 10, 20, false, false);
	const struct xp_op_row *r = &db->rows[row];
	CHECK_INT(r->self_ps, 900);
	CHECK_INT(r->flops, 20);
	CHECK_INT(r->bytes_accessed, 40);
	xp_op_db_enter(db, XP_OPK_TF, NULL, "op", "Type", 1, 500, 50, 5, 10, true, false);
	r = &db->rows[row];
	CHECK_INT(r->occurrences, 3);
	CHECK_INT(r->time_ps, 1500);
	CHECK_INT(r->self_ps, 1350);
	CHECK_INT(r->flops, 25);
	CHECK_INT(r->bytes_accessed, 50);
	CHECK(!r->is_eager);
	xp_op_db_free(db);

	db = xp_op_db_empty();
	row = xp_op_db_enter(db, XP_OPK_TF, NULL, "host op", "Type", 1, 1000, 200, 0, 0, true, true);
	CHECK_INT(db->rows[row].self_ps, 800);
	CHECK_INT(db->total_op_time_ps, 800);
	CHECK(db->rows[row].is_eager);
	xp_op_db_free(db);
}

/* ---- A20: idle time ratio, as the IDLE row's share ---- */

static void check_idle_ratio(int64_t total, int64_t op, double want_pct)
{
	struct xsb *b = xsb_new();
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 1, "Stream #1", 0);
	int e = xsb_event(b, g, s, "kernel", 0, op);
	xsb_stat_str(b, g, e, "tf_op", "model/op:Op");
	/* An un-annotated copy ends the span: it is IDLE time. */
	xsb_event(b, g, s, "MemcpyD2H", total - 1000, 1000);
	struct xp_capture *c = xsb_read(b);
	struct xp_result *r = analyze(c, NULL);
	const struct xp_table *t = r ? xp_result_table(r, "tf_stats") : NULL;
	if (CHECK(t) && CHECK_INT(t->n_rows, 2)) {
		size_t idle = strcmp(cell_str(t, 0, "op_name"), "IDLE") ? 1 : 0;
		CHECK_STR(cell_str(t, idle, "op_name"), "IDLE");
		CHECK_DBL(cell(t, idle, "device_self_time_pct")->v.d, want_pct, 1e-12);
		CHECK_INT(cell(t, idle, "total_self_time_us")->v.i, total - op);
	}
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

static void test_a20_idle_ratio(void)
{
	check_idle_ratio(100000000, 60000000, 40.0);
	check_idle_ratio(200000000, 150000000, 25.0);
}

/* ---- the sweep beyond the examples ---- */

/* Nested ops: self time is the span minus direct children; XLA:CPU tf_op events nest like ops. */
static void test_nested_self_time(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	xsb_event(b, h, l, "model/dense:Dense", 0, 100 * US);
	int e = xsb_event(b, h, l, "fusion", 10 * US, 30 * US);
	xsb_stat_str(b, h, e, "tf_op", "model/dense/MatMul:MatMul");
	xsb_event(b, h, l, "model/dense/BiasAdd:BiasAdd", 50 * US, 20 * US);
	xsb_event(b, h, l, "model/dense/BiasAdd/inner:Add", 55 * US, 5 * US);
	xsb_event(b, h, l, "ExecutorState::Process", 60 * US, 5 * US); /* no op: no child time */
	struct xp_capture *c;
	struct xp_op_db *db = host_db(b, &c, NULL);
	const struct xp_op_row *dense = row_of(db, XP_OPK_TF, NULL, "model/dense");
	const struct xp_op_row *mm = row_of(db, XP_OPK_TF, NULL, "model/dense/MatMul");
	const struct xp_op_row *bias = row_of(db, XP_OPK_TF, NULL, "model/dense/BiasAdd");
	const struct xp_op_row *add = row_of(db, XP_OPK_TF, NULL, "model/dense/BiasAdd/inner");
	REQUIRE(dense && mm && bias && add);
	CHECK_INT(dense->time_ps, 100 * US);
	CHECK_INT(dense->self_ps, 50 * US);
	CHECK_STR(dense->category, "Dense");
	CHECK_INT(mm->self_ps, 30 * US);
	CHECK_STR(mm->category, "MatMul");
	CHECK_INT(bias->self_ps, 15 * US);
	CHECK_INT(add->self_ps, 5 * US);
	CHECK_INT(db->total_op_time_ps, 100 * US);
	CHECK_INT(db->total_time_ps, 100 * US);
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* Overlapping (not nested) ops: the end of A pops B, which is dropped; B's end then finds nothing. */
static void test_overlap_drops(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	xsb_event(b, h, l, "a:A", 0, 100);
	xsb_event(b, h, l, "b:B", 50, 100);
	struct xp_capture *c;
	struct xp_op_db *db = host_db(b, &c, NULL);
	const struct xp_op_row *a = row_of(db, XP_OPK_TF, NULL, "a");
	REQUIRE(a);
	CHECK_INT(a->self_ps, 100);
	CHECK_INT(a->occurrences, 1);
	CHECK(!row_of(db, XP_OPK_TF, NULL, "b"));   /* it never ended: no row */
	CHECK_INT(db->n, 2);
	CHECK_INT(db->total_op_time_ps, 100);
	CHECK_INT(db->total_time_ps, 150);
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* A line stored out of order gives the same numbers as the sorted one. */
static void test_unsorted_line(void)
{
	struct xp_op_db *db[2];
	struct xp_capture *c[2];
	struct xsb *b[2];
	for (int k = 0; k < 2; k++) {
		b[k] = xsb_new();
		if (k)
			xsb_keep_order(b[k]);
		int h = xsb_plane(b[k], "/host:CPU", 0);
		int l = xsb_line(b[k], h, 1, "t", 0);
		xsb_event(b[k], h, l, "inner:Inner", 20, 10);
		xsb_event(b[k], h, l, "outer:Outer", 0, 100);
		xsb_event(b[k], h, l, "later:Later", 200, 50);
		db[k] = host_db(b[k], &c[k], NULL);
	}
	CHECK(c[1]->hosts[0].planes[0].lines[0].unsorted);
	for (int k = 0; k < 2; k++) {
		const struct xp_op_row *o = row_of(db[k], XP_OPK_TF, NULL, "outer");
		if (CHECK(o))
			CHECK_INT(o->self_ps, 90);
		CHECK_INT(db[k]->total_time_ps, 250);
		CHECK_INT(db[k]->total_op_time_ps, 150);
		xp_op_db_free(db[k]);
		xp_capture_free(c[k]);
		xsb_free(b[k]);
	}
}

/* Memory events name the op that allocated in tf_op: they are no op execution. */
static void test_memory_events_ignored(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	xsb_event(b, h, l, "op:Op", 0, 100);
	int e = xsb_event(b, h, l, "MemoryAllocation", 10, 0);
	xsb_stat_str(b, h, e, "tf_op", "op");
	e = xsb_event(b, h, l, "MemoryDeallocation", 20, 0);
	xsb_stat_str(b, h, e, "tf_op", "other");
	struct xp_capture *c;
	struct xp_op_db *db = host_db(b, &c, NULL);
	CHECK_INT(db->n, 2);
	const struct xp_op_row *op = row_of(db, XP_OPK_TF, NULL, "op");
	if (CHECK(op))
		CHECK_INT(op->occurrences, 1);
	CHECK(!row_of(db, XP_OPK_TF, NULL, "other"));
	xp_op_db_free(db);
	xp_capture_free(c);
	xsb_free(b);
}

/* Eager: the is_eager stat where present, else inside an EagerExecute whose is_func is 0 (spec §0.3). */
static void test_eager_marking(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "t", 0);
	int e = xsb_event(b, h, l, "EagerExecute", 0, 100);
	xsb_stat_int(b, h, e, "is_func", 0);
	xsb_event(b, h, l, "eager_op:MatMul", 10, 50);
	e = xsb_event(b, h, l, "EagerExecute", 200, 100);
	xsb_stat_int(b, h, e, "is_func", 1);
	xsb_event(b, h, l, "func_op:MatMul", 210, 50);
	xsb_event(b, h, l, "graph_op:MatMul", 400, 50);
	e = xsb_event(b, h, l, "stat_op:MatMul", 500, 50);
	xsb_stat_int(b, h, e, "is_eager", 1);
	struct xp_capture *c = xsb_read(b);
	struct xp_result *r = analyze(c, NULL);
	const struct xp_table *t = r ? xp_result_table(r, "tf_stats") : NULL;
	REQUIRE(t);
	for (size_t i = 0; i < t->n_rows; i++) {
		const char *name = cell_str(t, i, "op_name");
		const char *want = !strcmp(name, "IDLE") ? NULL
				   : (!strcmp(name, "eager_op") || !strcmp(name, "stat_op")) ? "Eager" : "Function";
		if (want)
			CHECK_STR(cell_str(t, i, "execution_mode"), want);
		else
			CHECK(cell_null(t, i, "execution_mode"));
	}
	CHECK_INT(t->n_rows, 5);
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* Device kernels without is_eager: eager when their host launch ran inside an eager EagerExecute. */
static void test_device_eager_marking(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 1, "python", 0);
	int e = xsb_event(b, h, l, "EagerExecute", 0, 100);
	xsb_stat_int(b, h, e, "is_func", 0);
	xsb_event(b, h, l, "eager_mm:MatMul", 10, 50);
	e = xsb_event(b, h, l, "cudaLaunchKernel", 20, 5);
	xsb_stat_int(b, h, e, "correlation_id", 7);
	e = xsb_event(b, h, l, "EagerExecute", 200, 100);
	xsb_stat_int(b, h, e, "is_func", 1);
	xsb_event(b, h, l, "fn_mm:MatMul", 210, 50);
	e = xsb_event(b, h, l, "cudaLaunchKernel", 220, 5);
	xsb_stat_int(b, h, e, "correlation_id", 8);
	int g = xsb_plane(b, "/device:GPU:0", 1);
	int s = xsb_line(b, g, 1, "Stream #1", 0);
	e = xsb_event(b, g, s, "k1", 1000, 100);
	xsb_stat_str(b, g, e, "tf_op", "eager_mm:MatMul");
	xsb_stat_int(b, g, e, "correlation_id", 7);
	e = xsb_event(b, g, s, "k2", 2000, 100);
	xsb_stat_str(b, g, e, "tf_op", "fn_mm:MatMul");
	xsb_stat_int(b, g, e, "correlation_id", 8);
	struct xp_capture *c = xsb_read(b);
	size_t n = 0;
	int64_t *ids = xp_eager_launches(c, &c->hosts[0], &n);
	if (CHECK_INT(n, 1))
		CHECK_INT(ids[0], 7);
	free(ids);
	struct xp_tf_stats_opts o = {.device_only = true, .no_idle = true};
	struct xp_result *r = analyze(c, &o);
	const struct xp_table *t = r ? xp_result_table(r, "tf_stats") : NULL;
	if (CHECK(t) && CHECK_INT(t->n_rows, 2)) {
		for (size_t i = 0; i < 2; i++)
			CHECK_STR(cell_str(t, i, "execution_mode"),
				  strcmp(cell_str(t, i, "op_name"), "eager_mm") ? "Function" : "Eager");
	}
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- whole tables: every number of the CSV ---- */

/* A1's host plane and A5's GPU plane in one capture: the CSV, byte for byte. */
static void test_csv_a1_a5(void)
{
	struct xsb *b = build_a1(xsb_new());
	build_a4_gpu(b, true);
	struct xp_capture *c = xsb_read(b);
	struct xp_result *r = analyze(c, NULL);
	REQUIRE(r);
	char *csv = render(r, &xp_writer_csv);
	static const char want[] =
		"rank,host_or_device,op_type,op_name,hlo_module,stage_id,occurrences,total_time_us,avg_time_us,"
		"total_self_time_us,avg_self_time_us,device_self_time_pct,device_cumulative_self_time_pct,"
		"host_self_time_pct,host_cumulative_self_time_pct,flop_rate_gflop_per_s,memory_bandwidth_gib_per_s,"
		"operational_intensity_flop_per_byte,bound_by,tensor_core_utilization_pct,execution_mode\r\n"
		"1,Device,TfOp1,TfOp1,,,2,36,18,36,18,54.54545454545455,54.54545454545455,,,,,,,,Function\r\n"
		"2,Device,Conv2D,Conv2D,,,1,20,20,20,20,30.303030303030305,84.84848484848484,,,,,,,50,Function\r\n"
		"3,Device,TfOp2,TfOp2,,,1,10,10,10,10,15.151515151515152,100,,,,,,,,Function\r\n"
		"4,Device,IDLE,IDLE,,,0,0,,0,,0,100,,,,,,,,\r\n"
		"5,Host,TfOp1,TfOp1,,,2,16,8,16,8,,,57.142857142857146,57.142857142857146,,,,,,Function\r\n"
		"6,Host,TfOp2,TfOp2,,,1,10,10,10,10,,,35.714285714285715,92.85714285714286,,,,,,Function\r\n"
		"7,Host,IDLE,IDLE,,,0,2,,2,,,,7.142857142857143,100,,,,,,\r\n";
	CHECK_STR(csv, want);
	free(csv);

	/* --no-idle: percentages of op time; --sort name; --top 1 per side. */
	xp_result_free(r);
	struct xp_tf_stats_opts o = {.no_idle = true, .sort = XP_TFS_SORT_NAME, .top = 1};
	r = analyze(c, &o);
	REQUIRE(r);
	csv = render(r, &xp_writer_csv);
	const char *body = strchr(csv, '\n');
	CHECK_STR(body ? body + 1 : csv,
		  "1,Device,Conv2D,Conv2D,,,1,20,20,20,20,30.303030303030305,30.303030303030305,,,,,,,50,Function\r\n"
		  "2,Host,TfOp1,TfOp1,,,2,16,8,16,8,,,61.53846153846154,61.53846153846154,,,,,,Function\r\n");
	free(csv);
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* JAX: kernels with hlo_op/hlo_module (and tf_op "XlaModule:") are reported under their HLO op and module,
 * with FLOP and byte counts where the events carry them. */
static void test_xla_rows(void)
{
	struct xsb *b = xsb_new();
	int g = xsb_plane(b, "/device:GPU:0", 1);
	xsb_plane_stat_str(b, g, "device_vendor", "Nvidia");
	xsb_plane_stat_int(b, g, "compute_cap_major", 7);
	xsb_plane_stat_int(b, g, "compute_cap_minor", 0);
	xsb_plane_stat_int(b, g, "core_count", 80);
	xsb_plane_stat_int(b, g, "clock_rate", 1530000);
	xsb_plane_stat_uint(b, g, "memory_bandwidth", 900000000000ull);
	int s = xsb_line(b, g, 1, "Stream #1", 0);
	static const struct {
		const char *kernel, *hlo;
		int64_t at, dur;
		uint64_t flops, bytes;
	} k[] = {
		{"gemm_kernel", "dot.1", 0, 2 * US, 2000000000ull, 1000000},     /* 1000 TFLOP/s: compute */
		{"gemm_kernel", "dot.1", 10 * US, 2 * US, 2000000000ull, 1000000},
		{"loop_fusion", "fusion.3", 20 * US, 4 * US, 4000, 4000000000ull}, /* 1000 GB/s: HBM */
	};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		int e = xsb_event(b, g, s, k[i].kernel, k[i].at, k[i].dur);
		xsb_stat_str(b, g, e, "tf_op", "XlaModule:");
		xsb_stat_str(b, g, e, "hlo_op", k[i].hlo);
		xsb_stat_str(b, g, e, "hlo_module", "jit_train_step");
		xsb_stat_uint(b, g, e, "flops", k[i].flops);
		xsb_stat_uint(b, g, e, "bytes_accessed", k[i].bytes);
	}
	struct xp_capture *c = xsb_read(b);
	struct xp_tf_stats_opts o = {.no_idle = true};
	struct xp_result *r = analyze(c, &o);
	REQUIRE(r);
	char *csv = render(r, &xp_writer_csv);
	const char *body = strchr(csv, '\n');
	/* dot.1: 4e9 FLOP in 4 us = 1e6 GFLOP/s; 2e6 B in 4000 ns = 500 B/ns = 465.66 GiB/s; 2000 FLOP/B.
	 * fusion.3: 4000 FLOP in 4000 ns = 1 GFLOP/s; 1e6 B/ns = 931322.57 GiB/s; 1e-6 FLOP/B. */
	CHECK_STR(body ? body + 1 : csv,
		  "1,Device,dot,dot.1,jit_train_step,,2,4,2,4,2,50,50,,,1000000,465.6612873077392,2000,Compute,,Function\r\n"
		  "2,Device,fusion,fusion.3,jit_train_step,,1,4,4,4,4,50,100,,,1,931322.5746154785,1e-06,HBM,,Function\r\n");
	free(csv);
	xp_result_free(r);

	/* --compat xprof drops them, as xprof does without HLO protos. */
	o.xprof_compat = true;
	r = analyze(c, &o);
	REQUIRE(r);
	const struct xp_table *t = xp_result_table(r, "tf_stats");
	CHECK_INT(t->n_rows, 0);
	CHECK_INT(summary_i64(r, "xla_events_dropped"), 3);
	xp_result_free(r);
	xp_capture_free(c);
	xsb_free(b);
}

/* Several hosts: host DBs summed, device DBs summed (spec §3.4). */
static void test_multi_host(void)
{
	struct xsb *b[2];
	for (int k = 0; k < 2; k++) {
		b[k] = build_a1(xsb_new());
		build_a4_gpu(b[k], false);
		xsb_hostname(b[k], k ? "host2" : "host1");
	}
	struct xp_capture *c = xsb_read_hosts(b, 2);
	struct xp_result *r = analyze(c, NULL);
	REQUIRE(r);
	char *csv = render(r, &xp_writer_csv);
	const char *body = strchr(csv, '\n');
	CHECK_STR(body ? body + 1 : csv,
		  "1,Device,TfOp1,TfOp1,,,4,72,18,72,18,78.26086956521739,78.26086956521739,,,,,,,,Function\r\n"
		  "2,Device,TfOp2,TfOp2,,,2,20,10,20,10,21.73913043478261,100,,,,,,,,Function\r\n"
		  "3,Device,IDLE,IDLE,,,0,0,,0,,0,100,,,,,,,,\r\n"
		  "4,Host,TfOp1,TfOp1,,,4,32,8,32,8,,,57.142857142857146,57.142857142857146,,,,,,Function\r\n"
		  "5,Host,TfOp2,TfOp2,,,2,20,10,20,10,,,35.714285714285715,92.85714285714286,,,,,,Function\r\n"
		  "6,Host,IDLE,IDLE,,,0,4,,4,,,,7.142857142857143,100,,,,,,\r\n");
	CHECK_INT(summary_i64(r, "hosts"), 2);
	CHECK_INT(summary_i64(r, "gpus"), 2);
	free(csv);
	xp_result_free(r);
	xp_capture_free(c);
	for (int k = 0; k < 2; k++)
		xsb_free(b[k]);
}

/* Filters and sort keys. */
static void test_filters_and_sort(void)
{
	struct xsb *b = build_a1(xsb_new());
	build_a4_gpu(b, true);
	struct xp_capture *c = xsb_read(b);
	struct {
		struct xp_tf_stats_opts o;
		const char *want;   /* op names, in order */
	} cases[] = {
		{{.op_regex = "^TfOp"}, "TfOp1 TfOp2 TfOp1 TfOp2"},
		{{.type_regex = "Conv"}, "Conv2D"},
		{{.device_only = true, .no_idle = true}, "TfOp1 Conv2D TfOp2"},
		{{.host_only = true}, "TfOp1 TfOp2 IDLE"},
		{{.sort = XP_TFS_SORT_COUNT, .host_only = true}, "TfOp1 TfOp2 IDLE"},
		{{.sort = XP_TFS_SORT_TOTAL, .device_only = true}, "TfOp1 Conv2D TfOp2 IDLE"},
		{{.sort = XP_TFS_SORT_AVG, .device_only = true}, "Conv2D TfOp1 TfOp2 IDLE"},
		{{.sort = XP_TFS_SORT_NAME, .device_only = true}, "Conv2D IDLE TfOp1 TfOp2"},
		{{.top = 2, .no_idle = true}, "TfOp1 Conv2D TfOp1 TfOp2"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct xp_result *r = analyze(c, &cases[i].o);
		if (!CHECK(r))
			continue;
		const struct xp_table *t = xp_result_table(r, "tf_stats");
		char got[256] = "";
		for (size_t k = 0; k < t->n_rows; k++)
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", k ? " " : "", cell_str(t, k, "op_name"));
		if (!CHECK_STR(got, cases[i].want))
			fprintf(stderr, "  case %zu\n", i);
		xp_result_free(r);
	}
	struct xp_err err = {0};
	struct xp_tf_stats_opts bad = {.op_regex = "("};
	CHECK(!xp_analyze_tf_stats(c, &bad, &err));
	CHECK(strstr(err.msg, "--op") != NULL);
	xp_capture_free(c);
	xsb_free(b);
}

/* PerfEnv (spec §3.6, Appendix A14): the peaks bound-by compares against. */
static void test_perf_env(void)
{
	struct xsb *b = xsb_new();
	int g = xsb_plane(b, "/device:GPU:0", 1);
	xsb_plane_stat_int(b, g, "clock_rate", 1530000);
	xsb_plane_stat_int(b, g, "core_count", 80);
	xsb_plane_stat_uint(b, g, "memory_bandwidth", 900000000000ull);
	xsb_plane_stat_int(b, g, "compute_cap_major", 7);
	xsb_plane_stat_int(b, g, "compute_cap_minor", 0);
	int a = xsb_plane(b, "/device:GPU:1", 2);
	xsb_plane_stat_str(b, a, "device_vendor", "AMD");
	xsb_plane_stat_str(b, a, "gpu_device_name", "gfx942");
	xsb_plane_stat_int(b, a, "clock_rate", 2100000);
	xsb_plane_stat_int(b, a, "core_count", 304);
	xsb_plane_stat_uint(b, a, "memory_bandwidth", 5300000000000ull);
	struct xp_capture *c = xsb_read(b);
	struct xp_perf_env e;
	xp_perf_env_plane(c, &c->hosts[0].planes[0], &e);
	CHECK_DBL(e.peak_tflops, 125.33760, 1e-9);
	CHECK_DBL(e.peak_hbm_gbps, 900, 1e-9);
	CHECK_DBL(e.ridge_point, 139.264, 1e-9);
	xp_perf_env_plane(c, &c->hosts[0].planes[1], &e);
	CHECK(e.amd);
	CHECK_DBL(e.peak_tflops, 1307.4432, 1e-9);
	CHECK_DBL(e.peak_sram_rd_gbps, 81715.2, 1e-6);
	CHECK_DBL(e.peak_sram_wr_gbps, 81715.2, 1e-6);
	CHECK_STR(xp_bound_by(&e, 0, 0), "Unknown");
	xp_capture_free(c);
	xsb_free(b);
}

/* ---- xp_op_db_tf_device: the TF level without device rows ---- */

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void check_same_rows(const struct xp_op_row *g, const struct xp_op_row *w)
{
	CHECK_STR(g->name, w->name);
	CHECK(same_text(g->module, w->module));
	CHECK(same_text(g->category, w->category));
	CHECK(same_text(g->provenance, w->provenance));
	CHECK_INT(g->kind, w->kind);
	CHECK_INT(g->occurrences, w->occurrences);
	CHECK_INT(g->time_ps, w->time_ps);
	CHECK_INT(g->self_ps, w->self_ps);
	CHECK_INT(g->is_eager, w->is_eager);
	CHECK_INT(g->is_eager_stat, w->is_eager_stat);
	CHECK_INT(g->num_cores, w->num_cores);
	CHECK_INT(g->executions, w->executions);
	CHECK_INT(g->cost_known, w->cost_known);
	CHECK_INT(g->program_id, w->program_id);
}

/* Rows of DB that are not TF ops. */
static size_t rows_but_tf(const struct xp_op_db *db)
{
	size_t n = 0;
	for (size_t i = 0; i < db->n; i++)
		n += db->rows[i].kind != XP_OPK_TF;
	return n;
}

/* xp_op_db_tf_device_hosts (tf-stats' way, options per host, IDLE or not) is xp_op_db_tf_level of ALL, the
 * hosts' device DBs merged; the rows it hands back besides hold all of ALL's but the TF ops, and its totals. */
static void check_tf_device_hosts(const struct xp_capture *c, const struct xp_op_db *all)
{
	struct xp_op_db_opts *oo = calloc(c->n_hosts, sizeof *oo);
	for (int idle = 0; idle < 2; idle++) {
		struct xp_op_db *rest, *got = xp_op_db_tf_device_hosts(c, oo, idle, &rest);
		struct xp_op_db *want = xp_op_db_tf_level(all, idle);
		xp_op_db_sort(want);
		xp_op_db_sort(got);
		CHECK_INT(got->n, want->n);
		for (size_t i = 0; i < got->n && i < want->n; i++)
			check_same_rows(&got->rows[i], &want->rows[i]);
		CHECK_INT(got->total_time_ps, want->total_time_ps);
		CHECK_INT(rows_but_tf(rest), rows_but_tf(all));
		CHECK_INT(rest->total_time_ps, all->total_time_ps);
		CHECK_INT(rest->total_op_time_ps, all->total_op_time_ps);
		CHECK_INT(rest->n_planes, all->n_planes);
		xp_op_db_free(got);
		xp_op_db_free(want);
		xp_op_db_free(rest);
	}
	free(oo);
}

/* xp_op_db_tf_device(C's hosts) is xp_op_db_tf_level of their device DBs merged in host order, row for row once
 * sorted; returns its row count. */
static size_t check_tf_device(const struct xp_capture *c)
{
	struct xp_prep_opts po = {0};
	struct xp_err err = {0};
	struct xp_prep *p = xp_prepare(c, &po, &err);
	if (!CHECK(p != NULL))
		return 0;
	struct xp_op_db *all = xp_op_db_empty();
	for (uint32_t h = 0; h < p->n_hosts; h++)
		all = xp_op_db_absorb(all, xp_op_db_device(c, p->hosts[h].host, NULL));
	struct xp_op_db *want = xp_op_db_tf_level(all, false), *got = xp_op_db_tf_device(c, NULL);
	xp_op_db_sort(want);
	xp_op_db_sort(got);
	size_t n = got->n;
	CHECK_INT(got->n, want->n);
	for (size_t i = 0; i < got->n && i < want->n; i++)
		check_same_rows(&got->rows[i], &want->rows[i]);
	CHECK_INT(got->total_time_ps, want->total_time_ps);
	CHECK_INT(got->total_op_time_ps, want->total_op_time_ps);
	CHECK_INT(got->n_planes, want->n_planes);
	check_tf_device_hosts(c, all);
	xp_op_db_free(got);
	xp_op_db_free(want);
	xp_op_db_free(all);
	xp_prep_free(p);
	return n;
}

/* One GPU plane of kernels of TF ops: texts inline and by reference, an op whose kernels ran different times,
 * eager flags that differ by kernel, and (SLASH) the kernel names that give two ops one device row name. */
static void build_tf_device(struct xsb *b, int gpu, bool slash)
{
	char name[32];
	snprintf(name, sizeof name, "/device:GPU:%d", gpu);
	int g = xsb_plane(b, name, gpu + 1);
	int s = xsb_line(b, g, 10, "Stream #10", 0);
	static const char *const ops[] = {"a/Op1:MatMul", "a/Op1:MatMul", "Op2", "a/Op1:Other", "Op2:Conv2D"};
	static const char *const kernels[] = {"k1", "k2", "k1", "k3", "k2"};
	for (int i = 0; i < 12; i++) {
		int e = xsb_event(b, g, s, kernels[(i + gpu) % 5], (int64_t)(i * 20 + gpu) * NS, (int64_t)(5 + i) * NS);
		if (i % 2)
			xsb_stat_str(b, g, e, "tf_op", ops[(i * 3 + gpu) % 5]);
		else
			xsb_stat_ref(b, g, e, "tf_op", ops[i % 5]);
		if (i % 3)
			xsb_stat_int(b, g, e, "is_eager", (i + gpu) % 2);
	}
	if (!slash)
		return;
	int e = xsb_event(b, g, s, "b/k9", 300 * NS, 7 * NS);
	xsb_stat_str(b, g, e, "tf_op", "a:T");
	e = xsb_event(b, g, s, "k9", 310 * NS, 9 * NS);
	xsb_stat_str(b, g, e, "tf_op", "a/b:U");
}

static void test_tf_device(void)
{
	for (int slash = 0; slash < 2; slash++) {
		struct xsb *b[2];
		for (int k = 0; k < 2; k++) {
			b[k] = xsb_new();
			xsb_hostname(b[k], k ? "host2" : "host1");
			build_tf_device(b[k], k, false);
			build_tf_device(b[k], k + 1, slash && k);
		}
		struct xp_capture *c = xsb_read_hosts(b, 2);
		/* a/Op1, Op2 (and with the shared name "a/b/k9", "a" only: its first op takes the row) */
		CHECK_INT(check_tf_device(c), slash ? 3 : 2);
		xp_capture_free(c);
		for (int k = 0; k < 2; k++)
			xsb_free(b[k]);
	}
}

static const struct test tests[] = {
	TEST(test_a1_host_self_and_idle),
	TEST(test_a2_xla_cpu_tf_op_stat),
	TEST(test_a3_input_pipeline_stages),
	TEST(test_a4_gpu_op_db),
	TEST(test_a5_gpu_tf_stats),
	TEST(test_a19_builder),
	TEST(test_a20_idle_ratio),
	TEST(test_nested_self_time),
	TEST(test_overlap_drops),
	TEST(test_unsorted_line),
	TEST(test_memory_events_ignored),
	TEST(test_eager_marking),
	TEST(test_device_eager_marking),
	TEST(test_csv_a1_a5),
	TEST(test_xla_rows),
	TEST(test_multi_host),
	TEST(test_filters_and_sort),
	TEST(test_perf_env),
	TEST(test_tf_device),
};

int main(void)
{
	return RUN_TESTS("test_tf_stats", tests);
}
