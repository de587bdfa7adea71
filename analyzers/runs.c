/* runs.c - the runs of a logdir as a typed result (newest run marked). */
#include "runs.h"
#include "formats/in/input.h"
#include "formats/model/result.h"

#include <string.h>

static const struct xp_col_def run_cols[] = {
	{"logdir", "Logdir", XP_T_STR},
	{"run", "Run", XP_T_STR},
	{"newest", "Newest", XP_T_BOOL},
	{"hosts", "Hosts", XP_T_INT},
	{"directory", "Directory", XP_T_STR},
};

static struct xp_table *runs_table(struct xp_result *r)
{
	struct xp_table *t = xp_result_table(r, "runs");
	if (t)
		return t;
	t = xp_result_add_table(r, "runs", "Runs");
	xp_table_cols(t, XP_COLS(run_cols));
	return t;
}

static const struct xp_col_def run_host_cols[] = {
	{"logdir", "Logdir", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	{"run", "Run", XP_T_STR},
	{"host", "Host", XP_T_STR},
	{"format", "Format", XP_T_STR},
	{"file", "File", XP_T_STR},
};

static struct xp_table *hosts_table(struct xp_result *r)
{
	struct xp_table *t = xp_result_table(r, "run_hosts");
	if (t)
		return t;
	t = xp_result_add_table(r, "run_hosts", "Hosts");
	xp_table_cols(t, XP_COLS(run_host_cols));
	return t;
}

void xp_runs_add(struct xp_result *r, const char *logdir, const struct xp_run_list *runs)
{
	struct xp_table *rt = runs_table(r), *ht = hosts_table(r);
	for (size_t i = 0; i < runs->n; i++) {
		const struct xp_run *run = &runs->runs[i];
		size_t row = xp_table_row(rt);
		xp_set_str(rt, row, 0, logdir);
		xp_set_str(rt, row, 1, run->name);
		xp_set_bool(rt, row, 2, i + 1 == runs->n);
		xp_set_int(rt, row, 3, (int64_t)run->n_files);
		xp_set_str(rt, row, 4, run->dir);
		for (size_t k = 0; k < run->n_files; k++) {
			const struct xp_input_file *f = &run->files[k];
			size_t hr = xp_table_row(ht);
			xp_set_str(ht, hr, 0, logdir);
			xp_set_str(ht, hr, 1, run->name);
			xp_set_str(ht, hr, 2, f->host);
			xp_set_str(ht, hr, 3, f->kind == XP_FILE_TRACE_JSON ? "trace-json" : "xspace");
			xp_set_str(ht, hr, 4, f->path);
		}
	}
}

void xp_runs_finish(struct xp_result *r)
{
	struct xp_table *rt = runs_table(r), *ht = hosts_table(r);
	r->primary = 0;
	xp_sum_int(r, "runs", "Runs", (int64_t)rt->n_rows);
	xp_sum_int(r, "host_files", "Host files", (int64_t)ht->n_rows);
	if (rt->n_rows) {
		const struct xp_cell *newest = xp_table_cell(rt, rt->n_rows - 1, 1);
		xp_result_set_verdict(r, "%zu run%s; newest: %s", rt->n_rows, rt->n_rows == 1 ? "" : "s", newest->v.s);
	} else {
		xp_result_set_verdict(r, "no runs");
	}
}
