/* kernel_stats.c - the `kernel-stats` command: GPU Kernel Stats (spec analyzers §4) from the kernel report database. */
#include "kernel_stats.h"
#include "analyzers/db/hlodb.h"
#include "analyzers/db/kernel_db.h"
#include "analyzers/db/kernel_state.h"
#include "analyzers/prepare/prepare.h"
#include "analyzers/db/steptime.h"
#include "formats/core/prefetch.h"
#include "formats/core/strpool.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_KERNELS_MESSAGE "There is no GPU data to display because there were no kernels in the capture duration."

static char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* --- filters ---------------------------------------------------------------------------------- */

struct filters {
	regex_t op, kernel;
	bool has_op, has_kernel;
};

static bool compile(regex_t *re, const char *expr, const char *opt, struct xp_err *e)
{
	int rc = regcomp(re, expr, REG_EXTENDED | REG_NOSUB);
	if (!rc)
		return true;
	char buf[128];
	regerror(rc, re, buf, sizeof buf);
	xp_err_set(e, XP_EXIT_USAGE, NULL, "bad %s regular expression '%s': %s", opt, expr, buf);
	return false;
}

static bool filters_init(struct filters *f, const struct xp_kernel_stats_opts *o, struct xp_err *e)
{
	memset(f, 0, sizeof *f);
	if (o->op_regex) {
		if (!compile(&f->op, o->op_regex, "--op", e))
			return false;
		f->has_op = true;
	}
	if (o->kernel_regex) {
		if (!compile(&f->kernel, o->kernel_regex, "--kernel", e)) {
			if (f->has_op)
				regfree(&f->op);
			return false;
		}
		f->has_kernel = true;
	}
	return true;
}

static void filters_free(struct filters *f)
{
	if (f->has_op)
		regfree(&f->op);
	if (f->has_kernel)
		regfree(&f->kernel);
}

/* --op matches the op name, and for XLA kernels also MODULE/OP. */
static bool op_matches(const struct filters *f, const struct xp_kernel_report *r)
{
	if (!regexec(&f->op, r->op_name, 0, NULL, 0))
		return true;
	if (!r->module)
		return false;
	size_t n = strlen(r->module) + strlen(r->op_name) + 2;
	char *full = xcalloc(n, 1);
	snprintf(full, n, "%s/%s", r->module, r->op_name);
	bool hit = !regexec(&f->op, full, 0, NULL, 0);
	free(full);
	return hit;
}

static bool keep(const struct filters *f, const struct xp_kernel_report *r)
{
	if (f->has_kernel && regexec(&f->kernel, r->name, 0, NULL, 0))
		return false;
	return !f->has_op || op_matches(f, r);
}

/* --- the result ------------------------------------------------------------------------------- */

/* Totals over the reports that pass the filters. */
struct totals {
	uint64_t kernels;
	size_t rows, distinct;
	int64_t total_ps, tc_used_ps, tc_eligible_ps;
	int64_t eligible_of_ps;     /* what the eligible share is of: kernel time, or (PyTorch) operators' kernel time */
	bool any_module;
};

/* Distinct kernel names among the kept rows (over all hosts): names are pooled, so their ids tell. */
static size_t distinct_names(const struct xp_kernel_db *db, const bool *kept)
{
	uint32_t max = 0;
	for (size_t i = 0; i < db->n; i++)
		if (xp_pool_id(db->rows[i].name) > max)
			max = xp_pool_id(db->rows[i].name);
	bool *seen = xcalloc((size_t)max + 1, sizeof *seen);
	size_t d = 0;
	for (size_t i = 0; i < db->n; i++) {
		uint32_t id = xp_pool_id(db->rows[i].name);
		if (kept[i] && !seen[id])
			seen[id] = true, d++;
	}
	free(seen);
	return d;
}

static void sum_totals(const struct xp_kernel_db *db, const bool *kept, struct totals *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_kernel_report *r = &db->rows[i];
		if (!kept[i])
			continue;
		t->rows++;
		t->kernels += r->v.occurrences;
		t->total_ps += r->v.total_ps;
		if (r->uses_tc)
			t->tc_used_ps += r->v.total_ps;
		if (r->tc_eligible)
			t->tc_eligible_ps += r->v.total_ps;
		t->any_module |= r->module != NULL;
	}
	t->distinct = distinct_names(db, kept);
	t->eligible_of_ps = t->total_ps;
}

/* PyTorch, unfiltered: the PyTorch profiler's share, the kernels of eligible operators with no eligible operator
 * inside over the kernels operators launched (a filter picks kernel rows, so it keeps the per-row rule). */
static void pt_eligible(const struct xp_kernel_db *db, const struct xp_kernel_stats_opts *o, struct totals *t)
{
	if (!db->pt || o->op_regex || o->kernel_regex)
		return;
	t->tc_eligible_ps = db->pt_tc_bottom_ps;
	t->eligible_of_ps = db->pt_op_kernel_ps;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* The kernel_stats table's columns. */
enum {
	KC_RANK, KC_HOST, KC_TOTAL, KC_SHARE, KC_COUNT, KC_AVG, KC_MIN, KC_MAX, KC_REGS, KC_SSHM, KC_DSHM, KC_SHM,
	KC_GRID, KC_BLOCK, KC_OCC, KC_ELIG, KC_TC, KC_MODULE, KC_OP, KC_KERNEL
};
static const struct xp_col_def kernel_cols[] = {
	[KC_RANK] = {"rank", "#", XP_T_INT},
	[KC_HOST] = {"host", "Host", XP_T_STR},
	[KC_TOTAL] = {"total_duration_us", "Total", XP_T_DUR, XP_U_US},
	[KC_SHARE] = {"kernel_time_pct", "Time", XP_T_PCT},
	[KC_COUNT] = {"occurrences", "Count", XP_T_INT},
	[KC_AVG] = {"avg_duration_us", "Avg", XP_T_DUR, XP_U_US},
	[KC_MIN] = {"min_duration_us", "Min", XP_T_DUR, XP_U_US, XP_COL_TEXT_HIDDEN},
	[KC_MAX] = {"max_duration_us", "Max", XP_T_DUR, XP_U_US},
	[KC_REGS] = {"registers_per_thread", "Regs", XP_T_INT},
	[KC_SSHM] = {"static_shmem_bytes", "Static shm", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[KC_DSHM] = {"dynamic_shmem_bytes", "Dynamic shm", XP_T_BYTES, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[KC_SHM] = {"shmem_bytes", "Shm", XP_T_BYTES},
	[KC_GRID] = {"grid_dim", "Grid", XP_T_STR, XP_U_NONE, XP_COL_TEXT_RIGHT},
	[KC_BLOCK] = {"block_dim", "Block", XP_T_STR, XP_U_NONE, XP_COL_TEXT_RIGHT},
	[KC_OCC] = {"occupancy_pct", "Occ", XP_T_PCT},
	[KC_ELIG] = {"is_op_tensor_core_eligible", "TC elig", XP_T_BOOL},
	[KC_TC] = {"is_kernel_using_tensor_core", "TC", XP_T_BOOL},
	[KC_MODULE] = {"hlo_module", "Module", XP_T_STR},
	[KC_OP] = {"op_name", "Op", XP_T_STR},
	[KC_KERNEL] = {"kernel_name", "Kernel", XP_T_STR},
};

static void columns(struct xp_table *t, bool one_host, bool any_module, bool achieved)
{
	xp_table_cols(t, XP_COLS(kernel_cols));
	xp_col_hide(t, KC_HOST, one_host);
	/* Kineto records CUPTI's estimated achieved occupancy, not the theoretical one. */
	if (achieved)
		xp_col_header(t, KC_OCC, "Est. achieved occ");
	xp_col_hide(t, KC_MODULE, !any_module);
}

/* The rows shown, made when written from the sorted database (a table of cells would cost 20 cells a row, and
 * a capture with a launch shape per launch has millions of rows). */
struct shown_rows {
	struct xp_kernel_db *db;
	enum xp_kernel_sort key;
	bool *kept;             /* per database row: passes the filters */
	uint32_t *pick;         /* the database rows shown, in order: the first n_picked of the table's */
	size_t n_picked, n_rows;
	int64_t all_ps;         /* what the time share is of */
};

/* The first N rows in order: a text table reads its first rows only, CSV and JSON go on to the rest. */
static void pick_rows(struct shown_rows *s, size_t n)
{
	free(s->pick);
	s->pick = xcalloc(n ? n : 1, sizeof *s->pick);
	s->n_picked = xp_kernel_db_order(s->db, s->key, s->kept, n, s->pick);
}

static void set_cell(struct xp_cell *c, enum xp_type type, int64_t v)
{
	c->type = type;
	c->v.i = v;
}

/*
 * Rows are read in rank order, scattered over the database: without a hint each row, its launch shape and its
 * names are cache misses one after the other, most of a CSV row's time. Ask for those of rows a little ahead.
 */
enum { AHEAD_ROW = 16, AHEAD_PARTS = 8 };

static void prefetch_ahead(const struct shown_rows *s, size_t row)
{
	if (row + AHEAD_ROW < s->n_picked) {
		const char *r = (const char *)&s->db->rows[s->pick[row + AHEAD_ROW]];
		xp_prefetch(r);
		xp_prefetch(r + sizeof(struct xp_kernel_report) - 1);
	}
	if (row + AHEAD_PARTS < s->n_picked) {
		const struct xp_kernel_report *r = &s->db->rows[s->pick[row + AHEAD_PARTS]];
		xp_prefetch(r->details);
		xp_prefetch(r->name);
		xp_prefetch(r->op_name);
	}
}

static void fill_row(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size)
{
	struct shown_rows *s = src;
	if (row >= s->n_picked)
		pick_rows(s, s->n_rows);   /* every row then: CSV and JSON read them all */
	prefetch_ahead(s, row);
	const struct xp_kernel_report *r = &s->db->rows[s->pick[row]];
	set_cell(&cells[KC_RANK], XP_T_INT, (int64_t)row + 1);
	xp_cell_text(&cells[KC_HOST], xp_kernel_db_host_name(s->db, r->host));
	set_cell(&cells[KC_TOTAL], XP_T_DUR, r->v.total_ps);
	cells[KC_SHARE].type = XP_T_PCT;
	cells[KC_SHARE].v.d = pct(r->v.total_ps, s->all_ps);
	set_cell(&cells[KC_COUNT], XP_T_INT, (int64_t)r->v.occurrences);
	set_cell(&cells[KC_AVG], XP_T_DUR, xp_kernel_avg_ps(&r->v));
	set_cell(&cells[KC_MIN], XP_T_DUR, r->v.min_ps);
	set_cell(&cells[KC_MAX], XP_T_DUR, r->v.max_ps);
	if (r->details->fields & XP_KD_F_REGS)   /* AMD's form has no register count: unknown, not 0 */
		set_cell(&cells[KC_REGS], XP_T_INT, r->details->regs);
	set_cell(&cells[KC_SSHM], XP_T_BYTES, r->details->static_shmem);
	set_cell(&cells[KC_DSHM], XP_T_BYTES, r->details->dynamic_shmem);
	set_cell(&cells[KC_SHM], XP_T_BYTES, (int64_t)r->details->static_shmem + r->details->dynamic_shmem);
	_Static_assert(2 * XP_KD_DIMS_TEXT <= XP_ROW_TEXT_SIZE, "a row's text holds two launch shapes");
	(void)text_size;
	xp_kd_dims_text(r->details->grid, text);
	xp_cell_text(&cells[KC_GRID], text);
	xp_kd_dims_text(r->details->block, text + XP_KD_DIMS_TEXT);
	xp_cell_text(&cells[KC_BLOCK], text + XP_KD_DIMS_TEXT);
	if (r->has_occupancy) {
		cells[KC_OCC].type = XP_T_PCT;
		cells[KC_OCC].v.d = r->occupancy_pct;
	}
	cells[KC_ELIG].type = cells[KC_TC].type = XP_T_BOOL;
	cells[KC_ELIG].v.b = r->tc_eligible;
	cells[KC_TC].v.b = r->uses_tc;
	if (r->module)
		xp_cell_text(&cells[KC_MODULE], r->module);
	xp_cell_text(&cells[KC_OP], r->op_name);
	xp_cell_text(&cells[KC_KERNEL], r->name);
}

static void release_rows(void *src)
{
	struct shown_rows *s = src;
	xp_kernel_db_free(s->db);
	free(s->pick);
	free(s->kept);
	free(s);
}

static bool filtering(const struct xp_kernel_stats_opts *o)
{
	return o->op_regex || o->kernel_regex;
}

static void set_verdict(struct xp_result *r, const struct xp_capture *c, const struct xp_kernel_db *db,
			const struct xp_kernel_stats_opts *o, const struct totals *t)
{
	char total[32], hosts[32] = "";
	if (!db->kernels) {
		xp_result_set_verdict(r, db->gpu_planes ? "No GPU kernels in the capture"
							: "No GPU kernels: the capture has no GPU device plane");
		return;
	}
	if (!t->kernels) {
		xp_result_set_verdict(r, "No kernel matches the filters (%" PRIu64 " kernel%s in the capture)", db->kernels,
				      db->kernels == 1 ? "" : "s");
		return;
	}
	xp_format_duration(t->total_ps, total, sizeof total);
	if (c->n_hosts > 1)
		snprintf(hosts, sizeof hosts, " on %" PRIu32 " hosts", c->n_hosts);
	if (filtering(o))
		xp_result_set_verdict(r, "%" PRIu64 " of %" PRIu64 " kernels%s match the filters, %zu distinct, %s total; "
				      "%.1f%% of that time in Tensor Core kernels, %.1f%% in Tensor-Core-eligible ops",
				      t->kernels, db->kernels, hosts, t->distinct, total, pct(t->tc_used_ps, t->total_ps),
				      pct(t->tc_eligible_ps, t->eligible_of_ps));
	else
		xp_result_set_verdict(r, "%" PRIu64 " kernel%s%s, %zu distinct, %s total; %.1f%% of kernel time in "
				      "Tensor Core kernels, %.1f%% in Tensor-Core-eligible ops",
				      t->kernels, t->kernels == 1 ? "" : "s", hosts, t->distinct, total,
				      pct(t->tc_used_ps, t->total_ps), pct(t->tc_eligible_ps, t->eligible_of_ps));
}

static void summary(struct xp_result *r, const struct xp_capture *c, const struct xp_kernel_db *db,
		    const struct xp_kernel_stats_opts *o, const struct totals *t)
{
	xp_sum_int(r, "hosts", "Hosts", c->n_hosts);
	xp_sum_int(r, "gpu_planes", "GPU planes", db->gpu_planes);
	xp_sum_int(r, "kernels", "Kernels", (int64_t)t->kernels);
	xp_sum_int(r, "distinct_kernels", "Distinct kernel names", (int64_t)t->distinct);
	xp_sum_int(r, "rows", "Kernel-op rows", (int64_t)t->rows);
	xp_sum_dur(r, "kernel_time_us", "Total kernel time", t->total_ps, XP_U_US);
	xp_sum_dur(r, "tc_eligible_time_us", "Tensor-Core-eligible time", t->tc_eligible_ps, XP_U_US);
	xp_sum_pct(r, "tc_eligible_pct", "Tensor-Core-eligible share", pct(t->tc_eligible_ps, t->eligible_of_ps));
	xp_sum_dur(r, "tc_used_time_us", "Tensor Core time", t->tc_used_ps, XP_U_US);
	xp_sum_pct(r, "tc_used_pct", "Tensor Core share", pct(t->tc_used_ps, t->total_ps));
	xp_sum_int(r, "capture_kernels", "Kernels in the capture", (int64_t)db->kernels);
	xp_sum_dur(r, "capture_kernel_time_us", "Kernel time in the capture", db->total_ps, XP_U_US);
	xp_sum_str(r, "compat", "Compatibility", o->xprof_compat ? "xprof" : "xpstat");
}

static void no_kernels_diag(struct xp_result *r, const struct xp_kernel_db *db)
{
	/* The reference's text, word for word. */
	if (db->gpu_planes)
		xp_result_diag(r, XP_SEV_WARNING, "no_kernels", NULL,
			       "the GPU planes hold no kernel events: the profiler recorded no CUPTI/ROCm kernel activity "
			       "(profile while the job runs GPU work; xpstat info shows what the capture holds)",
			       NO_KERNELS_MESSAGE);
	else
		xp_result_diag(r, XP_SEV_WARNING, "no_kernels", NULL,
			       "kernel stats need a capture of a GPU job: this one has no /device:GPU plane (a CPU-only "
			       "or TPU capture); xpstat info shows what it holds",
			       NO_KERNELS_MESSAGE);
}

/* No GPU allows more than 512 registers per thread (NVIDIA 255, AMD 512 VGPRs). */
#define MAX_PLAUSIBLE_REGS 1024

/* Older ROCm collectors wrote uninitialized registers and shared memory (regs:2191500840). */
static void implausible_diag(struct xp_result *r, const struct xp_kernel_db *db)
{
	size_t n = 0;
	uint32_t max = 0;
	for (size_t i = 0; i < db->n; i++) {
		if (db->rows[i].details->regs <= MAX_PLAUSIBLE_REGS)
			continue;
		n++;
		if (db->rows[i].details->regs > max)
			max = db->rows[i].details->regs;
	}
	if (n)
		xp_result_diag(r, XP_SEV_INFO, "implausible_kernel_details", NULL,
			       "registers and shared memory are shown as written; the times are not affected",
			       "%zu kernel-op row%s report%s more than %d registers per thread (up to %" PRIu32 "): the "
			       "profiler's collector wrote uninitialized kernel_details values",
			       n, n == 1 ? "" : "s", n == 1 ? "s" : "", MAX_PLAUSIBLE_REGS, max);
}

/* The table takes KEPT. Its rows are found in order when first read: only the first text_limit rows for text. */
static void fill_table(struct xp_result *r, const struct xp_capture *c, struct xp_kernel_db *db, bool *kept,
		       const struct xp_kernel_stats_opts *o, const struct totals *t, bool pytorch)
{
	struct xp_table *tab = xp_result_add_table(r, "kernels", pytorch ? "Kernels (per kernel and op; occupancy is "
						   "the estimated achieved occupancy Kineto records)" : "Kernels (per kernel and op)");
	columns(tab, c->n_hosts <= 1, t->any_module, pytorch);
	size_t n = o->top && o->top < t->rows ? o->top : t->rows;
	struct shown_rows *s = xcalloc(1, sizeof *s);
	s->key = o->sort;
	s->kept = kept;
	s->n_rows = n;
	s->all_ps = db->total_ps;
	xp_kernel_db_keep_names(db, c);
	s->db = xp_kernel_db_ref(db);
	tab->text_limit = o->top ? o->top : 25;
	pick_rows(s, n < tab->text_limit ? n : tab->text_limit);
	xp_table_rows_from(tab, n, fill_row, s, release_rows);
	if (tab->n_rows < t->rows) {
		char note[96];
		snprintf(note, sizeof note, "top %zu of %zu rows (--top)", tab->n_rows, t->rows);
		tab->text_note = xstrndup(note, strlen(note));
	}
}

/* The result of DB (of C's hosts), made by SEMANTICS' rules (NULL: TensorFlow/JAX); the result holds DB. */
static struct xp_result *analyze(const struct xp_capture *c, struct xp_kernel_db *db,
				 const struct xp_kernel_stats_opts *o, const char *semantics, struct xp_err *e)
{
	struct filters f;
	if (!filters_init(&f, o, e))
		return NULL;
	bool *kept = xcalloc(db->n ? db->n : 1, sizeof *kept);
	for (size_t i = 0; i < db->n; i++)
		kept[i] = keep(&f, &db->rows[i]);
	struct totals t;
	sum_totals(db, kept, &t);
	pt_eligible(db, o, &t);

	struct xp_result *r = xp_result_new("kernel-stats");
	set_verdict(r, c, db, o, &t);
	summary(r, c, db, o, &t);
	fill_table(r, c, db, kept, o, &t, semantics != NULL);
	r->primary = 0;
	if (!db->kernels)
		no_kernels_diag(r, db);
	implausible_diag(r, db);
	xp_hlo_diagnostics(r, db->n_hlo_bad, db->hlo_problem, 0, 0, 0);
	xp_result_set_semantics(r, semantics);
	filters_free(&f);
	return r;
}

/* The database of C; report saves it in its state (IN's, may be NULL) for combine. */
static struct xp_result *of_capture(const struct xp_capture *c, const struct xp_kernel_stats_opts *o,
				    struct xp_result *state, struct xp_err *e)
{
	struct xp_kernel_db_opts dbo = {.xprof_compat = o->xprof_compat};
	struct xp_kernel_db *db = xp_kernel_db_build(c, &dbo);
	if (state)
		xp_kernel_db_state(db, c, state);
	struct xp_result *r = analyze(c, db, o, xp_capture_semantics(c), e);
	xp_kernel_db_free(db);
	return r;
}

struct xp_result *xp_analyze_kernel_stats(const struct xp_capture *c, const struct xp_kernel_stats_opts *o,
					  struct xp_err *e)
{
	return of_capture(c, o, NULL, e);
}

static struct xp_result *run(const struct xp_run_in *in)
{
	struct xp_kernel_stats_opts o = {0};
	if (in->opts)
		o = *(const struct xp_kernel_stats_opts *)in->opts;
	o.xprof_compat = in->xprof_compat;
	return of_capture(in->c, &o, in->state, in->err);
}

/* Several hosts from their saved databases, with the options run takes by default. */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	struct xp_kernel_db *db = xp_kernel_db_from_state(in->hosts, in->c->n_hosts, in->err);
	if (!db)
		return NULL;
	struct xp_kernel_stats_opts o = {.xprof_compat = in->xprof_compat};
	struct xp_result *r = analyze(in->c, db, &o, in->semantics, in->err);
	xp_kernel_db_free(db);
	return r;
}

static const char *const reads[] = {XP_KERNEL_DETAIL_STATS, NULL};
static const char *const state_tables[] = {XP_KERNEL_STATE_TABLES, NULL};

const struct xp_analysis xp_analysis_kernel_stats = {
	.name = "kernel-stats",
	.needs = XP_NEEDS_CAPTURE,
	.device_events_only = true,     /* the kernels of the GPU planes */
	.reads = reads,
	.opts_size = sizeof(struct xp_kernel_stats_opts),
	.run = run,
	.combine = combine,
	.state_tables = state_tables,
};
