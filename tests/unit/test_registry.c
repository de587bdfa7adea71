/* test_registry.c - the analyzer registry: drop lists derived from declared stats, and reading an undeclared stat stops (exit 4). */
#include "check.h"
#include "xsbuild.h"
#include "analyzers/registry.h"
#include "analyzers/memory/memory.h"
#include "analyzers/memory/profile.h"
#include "analyzers/prepare/prepare.h"
#include "formats/in/xplane_read.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The lists each command was given by hand before the registry (unread_stats.c, e3bff57). */
#define ALLOC "allocator_name", "index_on_host", "device_ordinal", "bytes_reserved", "bytes_allocated", \
	"bytes_available", "fragmentation", "peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", \
	"region_type", "data_type", "total_reserved"
#define KERNEL "kernel_details", "theoretical_occupancy_pct", "occupancy_min_grid_size", \
	"occupancy_suggested_block_size"
#define NEVER "kernel_name", "num_output_edges", "num_output_control_edges", "tf_function_call", "tracing_count", \
	"buffer_limit", "device_id", "context_id"
static const char *const all_details[] = {ALLOC, KERNEL, NEVER, NULL};
static const char *const but_kernel[] = {ALLOC, NEVER, NULL};
static const char *const but_alloc[] = {KERNEL, NEVER, NULL};
static const char *const never[] = {NEVER, NULL};

static void check_list(const char *name, const struct xp_drop_list *got, const char *const *want)
{
	size_t i = 0;
	for (; want[i] && got->names[i]; i++)
		if (strcmp(want[i], got->names[i])) {
			CHECK_STR(got->names[i], want[i]);
			fprintf(stderr, "  (%s, entry %zu)\n", name, i);
			return;
		}
	if (want[i] || got->names[i]) {
		CHECK(!want[i] && !got->names[i]);
		fprintf(stderr, "  (%s: lengths differ at %zu)\n", name, i);
	}
}

static void derived(const char *name, const char *const *want)
{
	const struct xp_analysis *a = xp_analysis_find(name);
	REQUIRE(a != NULL);
	const struct xp_analysis *const list[] = {a, NULL};
	struct xp_drop_list d;
	xp_drop_list(list, &d);
	check_list(name, &d, want);
}

/* Every command's list, derived from what its analyses declare, is the list it had by hand. */
static void test_derived_lists(void)
{
	derived("info", never);
	derived("overview", all_details);
	derived("steps", all_details);
	derived("pod", all_details);
	derived("input-pipeline", all_details);
	derived("tf-data", all_details);
	derived("kernel-stats", but_kernel);
	derived("tf-stats", but_kernel);
	derived("memory", but_alloc);
	struct xp_drop_list d;
	xp_drop_list(xp_analyses, &d); /* report, check and compare run them all */
	check_list("report", &d, never);
}

static void test_registry_order(void)
{
	static const char *const order[] = {"info", "overview", "steps", "input-pipeline", "tf-data",
					    "tf-stats", "kernel-stats", "memory", "pod", NULL};
	size_t i = 0;
	for (; order[i] && xp_analyses[i]; i++)
		CHECK_STR(xp_analyses[i]->name, order[i]);
	CHECK(!order[i] && !xp_analyses[i] && i == XP_N_ANALYSES);
	CHECK(xp_analysis_find("no-such") == NULL);
	for (i = 0; xp_analyses[i]; i++)
		CHECK_INT(xp_analysis_index(xp_analyses[i]), i);
	CHECK_INT(xp_analysis_index(NULL), XP_N_ANALYSES);
}

/* The options each analysis declares: the struct its command parses into and report may pass. */
static void test_declared_options(void)
{
	static const char *const with_opts[] = {"info", "overview", "input-pipeline", "tf-stats", "kernel-stats",
						"memory", NULL};
	for (size_t i = 0; xp_analyses[i]; i++) {
		bool has = false;
		for (const char *const *w = with_opts; *w; w++)
			has |= !strcmp(*w, xp_analyses[i]->name);
		if (!CHECK(has == (xp_analyses[i]->opts_size > 0)))
			fprintf(stderr, "  %s: opts_size %zu\n", xp_analyses[i]->name, xp_analyses[i]->opts_size);
	}
	CHECK_INT(xp_analysis_find("memory")->opts_size, sizeof(struct xp_memory_opts));
}

/* A table's columns from one declared array: order, keys, types, units, flags; then what the capture
 * decides (hidden, another header). */
static void test_declared_columns(void)
{
	enum { A, B, C };
	static const struct xp_col_def cols[] = {
		[A] = {"name", "Name", XP_T_STR},
		[B] = {"time_ms", "Time", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
		[C] = {"share_pct", NULL, XP_T_PCT, XP_U_NONE, XP_COL_TEXT_RIGHT},
	};
	struct xp_result *r = xp_result_new("t");
	struct xp_table *t = xp_result_add_table(r, "t", "T");
	CHECK_INT(xp_table_cols(t, XP_COLS(cols)), 0);
	CHECK_INT(t->n_cols, 3);
	CHECK_STR(t->cols[A].key, "name");
	CHECK_STR(t->cols[C].header, "share_pct");
	CHECK_INT(t->cols[B].type, XP_T_DUR);
	CHECK_INT(t->cols[B].unit, XP_U_MS);
	CHECK_INT(t->cols[B].flags, XP_COL_TEXT_HIDDEN);
	CHECK_INT(t->cols[C].flags, XP_COL_TEXT_RIGHT);
	xp_col_hide(t, B, false);
	xp_col_hide(t, C, true);
	CHECK_INT(t->cols[B].flags, 0);
	CHECK_INT(t->cols[C].flags, XP_COL_TEXT_RIGHT | XP_COL_TEXT_HIDDEN);
	xp_col_header(t, A, "Operator");
	CHECK_STR(t->cols[A].header, "Operator");
	CHECK_INT(xp_table_cols(t, cols, 1), 3); /* a second array goes after the first */
	CHECK_STR(t->cols[3].key, "name");
	xp_result_free(r);
}

/* A memory capture read with overview's drop list: running memory on it reads allocator stats that
 * were not loaded, which must stop with exit 4 rather than answer as if the capture lacked them. */
static int run_memory_with_drops_of(const char *command)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, h, 0, "tf_executor", 0);
	int e = xsb_event(b, h, l, "MemoryAllocation", 1000, 0);
	xsb_stat_ref(b, h, e, "allocator_name", "GPU_0_bfc");
	xsb_stat_int(b, h, e, "bytes_allocated", 4096);
	xsb_stat_int(b, h, e, "bytes_reserved", 0);
	xsb_stat_int(b, h, e, "allocation_bytes", 4096);
	size_t n;
	uint8_t *bytes = xsb_pack(b, &n);
	const struct xp_analysis *const list[] = {xp_analysis_find(command), NULL};
	struct xp_drop_list d;
	xp_drop_list(list, &d);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(12);
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		struct xp_read_opts ro = {.threads = 1, .drop_stats = d.names};
		if (xp_read_xspace(c, "mem", bytes, n, &ro, &err))
			_exit(10);
		struct xp_err perr = {0};
		struct xp_prep *p = xp_prepare(c, &(struct xp_prep_opts){0}, &perr);
		struct xp_run_in in = {.c = c, .p = p};
		struct xp_result *r = xp_analysis_memory.run(&in);
		_exit(r ? 0 : 11);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	free(bytes);
	xsb_free(b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_undeclared_read_exits_4(void)
{
	CHECK_INT(run_memory_with_drops_of("overview"), 4);
	CHECK_INT(run_memory_with_drops_of("memory"), 0);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_derived_lists),
		TEST(test_registry_order),
		TEST(test_declared_options),
		TEST(test_declared_columns),
		TEST(test_undeclared_read_exits_4),
	};
	return RUN_TESTS("test_registry", tests);
}
