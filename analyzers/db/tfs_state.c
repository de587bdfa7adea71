/* tfs_state.c - tf-stats' per-host facts (planes, PerfEnv, PyTorch operators) saved in a report's state, and read back (combine). */
#include "tfs_state.h"
#include "formats/core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Two small tables, every row naming its host: tfs_hosts (what the host adds to the run's tf-stats besides its op
 * rows: planes, its first GPU plane's PerfEnv, PyTorch's launches without an operator) and tfs_pt_ops (a PyTorch
 * host's operators, summed by name on that host). Integers are decimal strings, PerfEnv's rates C99 hexadecimal
 * floats: all come back exact.
 */

enum { TH_HOST, TH_GPU, TH_TPU, TH_HOST_PLANE, TH_HAS_ENV, TH_KNOWN, TH_AMD, TH_TFLOPS, TH_HBM, TH_SRAM_RD, TH_SRAM_WR,
       TH_RIDGE, TH_EST_AMD, TH_PT, TH_ORPHANS, TH_ORPHAN_PS, TH_N };
static const struct xp_col_def host_cols[TH_N] = {
	[TH_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_GPU] = {"gpu", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_TPU] = {"tpu_planes", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_HOST_PLANE] = {"has_host_plane", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_HAS_ENV] = {"has_perf_env", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_KNOWN] = {"perf_env_known", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_AMD] = {"amd", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_TFLOPS] = {"peak_tflops", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_HBM] = {"peak_hbm_gbps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_SRAM_RD] = {"peak_sram_rd_gbps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_SRAM_WR] = {"peak_sram_wr_gbps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_RIDGE] = {"ridge_point", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_EST_AMD] = {"peak_flops_estimated_amd", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_PT] = {"pytorch", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TH_ORPHANS] = {"pt_orphan_events", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_ORPHAN_PS] = {"pt_orphan_ps", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { TP_HOST, TP_NAME, TP_CALLS, TP_HTOT, TP_HSELF, TP_DTOT, TP_DSELF, TP_TC, TP_N };
static const struct xp_col_def pt_cols[TP_N] = {
	[TP_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_NAME] = {"name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_CALLS] = {"calls", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_HTOT] = {"host_total_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_HSELF] = {"host_self_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_DTOT] = {"device_total_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_DSELF] = {"device_self_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_TC] = {"tc_eligible", NULL, XP_T_BOOL, XP_U_NONE, 0},
};

static void host_columns(struct xp_table *t) { xp_table_cols(t, host_cols, TH_N); }
static void pt_columns(struct xp_table *t) { xp_table_cols(t, pt_cols, TP_N); }

/* --- saving ----------------------------------------------------------------------------------------- */

static void set_double(struct xp_table *t, size_t row, size_t col, double v)
{
	char buf[48];
	snprintf(buf, sizeof buf, "%a", v);
	xp_set_str(t, row, col, buf);
}

static void host_row(struct xp_table *t, const char *name, const struct xp_tfs_host *h)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, TH_HOST, name);
	xp_set_bool(t, row, TH_GPU, h->gpu);
	xp_state_set_u64(t, row, TH_TPU, h->tpu_planes);
	xp_set_bool(t, row, TH_HOST_PLANE, h->has_host_plane);
	xp_set_bool(t, row, TH_HAS_ENV, h->has_env);
	xp_set_bool(t, row, TH_KNOWN, h->env.known);
	xp_set_bool(t, row, TH_AMD, h->env.amd);
	set_double(t, row, TH_TFLOPS, h->env.peak_tflops);
	set_double(t, row, TH_HBM, h->env.peak_hbm_gbps);
	set_double(t, row, TH_SRAM_RD, h->env.peak_sram_rd_gbps);
	set_double(t, row, TH_SRAM_WR, h->env.peak_sram_wr_gbps);
	set_double(t, row, TH_RIDGE, h->env.ridge_point);
	xp_set_bool(t, row, TH_EST_AMD, h->env.peak_flops_estimated_amd);
	xp_set_bool(t, row, TH_PT, h->pytorch);
	xp_state_set_u64(t, row, TH_ORPHANS, h->pt_orphans);
	xp_state_set_i64(t, row, TH_ORPHAN_PS, h->pt_orphan_ps);
}

void xp_tfs_host_state(struct xp_result *state, const struct xp_capture *c, const char *name,
		       const struct xp_tfs_host *host)
{
	host_row(xp_state_table_of(state, "tfs_hosts", host_columns), name, host);
	struct xp_table *t = xp_state_table_of(state, "tfs_pt_ops", pt_columns);
	for (size_t i = 0; i < host->n_pt; i++) {
		const struct xp_pt_op *o = &host->pt[i];
		size_t row = xp_table_row(t);
		xp_set_str_pooled(t, row, TP_HOST, name);
		xp_set_str(t, row, TP_NAME, xp_str(c, o->name));
		xp_state_set_u64(t, row, TP_CALLS, o->calls);
		xp_state_set_i64(t, row, TP_HTOT, o->host_total_ps);
		xp_state_set_i64(t, row, TP_HSELF, o->host_self_ps);
		xp_state_set_i64(t, row, TP_DTOT, o->dev_total_ps);
		xp_state_set_i64(t, row, TP_DSELF, o->dev_self_ps);
		xp_set_bool(t, row, TP_TC, o->tc_eligible);
	}
}

/* --- reading back ----------------------------------------------------------------------------------- */

static bool double_of(const struct xp_table *t, size_t row, size_t col, double *v)
{
	const char *s = xp_state_str(t, row, col);
	char *end = NULL;
	if (!s)
		return false;
	*v = strtod(s, &end);
	return end != s && !*end;
}

static bool read_host(const struct xp_table *t, size_t row, struct xp_tfs_host *h)
{
	struct xp_perf_env *e = &h->env;
	return xp_state_bool(t, row, TH_GPU, &h->gpu) && xp_state_u32(t, row, TH_TPU, &h->tpu_planes) &&
	       xp_state_bool(t, row, TH_HOST_PLANE, &h->has_host_plane) && xp_state_bool(t, row, TH_HAS_ENV, &h->has_env) &&
	       xp_state_bool(t, row, TH_KNOWN, &e->known) && xp_state_bool(t, row, TH_AMD, &e->amd) &&
	       double_of(t, row, TH_TFLOPS, &e->peak_tflops) && double_of(t, row, TH_HBM, &e->peak_hbm_gbps) &&
	       double_of(t, row, TH_SRAM_RD, &e->peak_sram_rd_gbps) && double_of(t, row, TH_SRAM_WR, &e->peak_sram_wr_gbps) &&
	       double_of(t, row, TH_RIDGE, &e->ridge_point) && xp_state_bool(t, row, TH_EST_AMD, &e->peak_flops_estimated_amd) &&
	       xp_state_bool(t, row, TH_PT, &h->pytorch) && xp_state_u64(t, row, TH_ORPHANS, &h->pt_orphans) &&
	       xp_state_i64(t, row, TH_ORPHAN_PS, &h->pt_orphan_ps);
}

static bool read_pt_op(const struct xp_table *t, size_t row, struct xp_capture *names, struct xp_pt_op *o)
{
	const char *name = xp_state_str(t, row, TP_NAME);
	memset(o, 0, sizeof *o);
	if (!name)
		return false;
	o->name = xp_intern(&names->strings, name, strlen(name));
	return xp_state_u64(t, row, TP_CALLS, &o->calls) && xp_state_i64(t, row, TP_HTOT, &o->host_total_ps) &&
	       xp_state_i64(t, row, TP_HSELF, &o->host_self_ps) && xp_state_i64(t, row, TP_DTOT, &o->dev_total_ps) &&
	       xp_state_i64(t, row, TP_DSELF, &o->dev_self_ps) && xp_state_bool(t, row, TP_TC, &o->tc_eligible);
}

static bool read_pt_ops(const struct xp_table *t, const char *name, struct xp_capture *names, struct xp_tfs_host *h)
{
	for (size_t row = 0; t && row < t->n_rows; row++) {
		const char *hn = xp_state_str(t, row, TP_HOST);
		if (!hn)
			return false;
		if (strcmp(hn, name))
			continue;
		h->pt = xrealloc(h->pt, (h->n_pt + 1) * sizeof *h->pt);
		if (!read_pt_op(t, row, names, &h->pt[h->n_pt++]))
			return false;
	}
	return true;
}

bool xp_tfs_host_from_state(const struct xp_state_host *sh, struct xp_capture *names, struct xp_tfs_host *host)
{
	const struct xp_table *hosts = xp_state_table(sh->state, "tfs_hosts", host_columns);
	const struct xp_table *pt = xp_state_table(sh->state, "tfs_pt_ops", pt_columns);
	const char *name = xp_state_host_name(sh->state, sh->row);
	memset(host, 0, sizeof *host);
	if (!hosts || !name || (!pt && xp_result_table(sh->state, "tfs_pt_ops")))
		return false;
	for (size_t row = 0; row < hosts->n_rows; row++) {
		const char *hn = xp_state_str(hosts, row, TH_HOST);
		if (!hn)
			return false;
		if (!strcmp(hn, name))
			return read_host(hosts, row, host) && read_pt_ops(pt, name, names, host);
	}
	return false;
}
