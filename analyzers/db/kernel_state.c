/* kernel_state.c - the kernel report database saved in a report's state, and read back into a database of several hosts (combine). */
#include "kernel_state.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Two tables: kernel_hosts, each host's totals (struct xp_kernel_host), and kernel_reports, every report
 * with what its key, its value and its row need (struct xp_kernel_report). Integers are decimal strings,
 * the occupancy a C99 hexadecimal float: both come back exact.
 */

enum { KH_HOST, KH_PLANES, KH_KERNELS, KH_TOTAL, KH_HLO_BAD, KH_HLO_WHY, KH_PT, KH_PT_OP, KH_PT_TC, KH_N };
static const struct xp_col_def host_cols[KH_N] = {
	[KH_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_PLANES] = {"gpu_planes", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_KERNELS] = {"kernels", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_TOTAL] = {"total_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_HLO_BAD] = {"hlo_bad", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_HLO_WHY] = {"hlo_problem", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_PT] = {"pytorch", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[KH_PT_OP] = {"pt_op_kernel_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[KH_PT_TC] = {"pt_tc_bottom_ps", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { KR_HOST, KR_NAME, KR_OP, KR_HAS_MODULE, KR_MODULE, KR_FIELDS, KR_REGS, KR_SSHM, KR_DSHM, KR_GRID, KR_BLOCK,
       KR_TC, KR_ELIG, KR_HAS_OCC, KR_OCC, KR_COUNT, KR_TOTAL, KR_MIN, KR_MAX, KR_N };
static const struct xp_col_def report_cols[KR_N] = {
	[KR_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_NAME] = {"kernel_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_OP] = {"op_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_HAS_MODULE] = {"has_module", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[KR_MODULE] = {"hlo_module", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_FIELDS] = {"details_fields", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_REGS] = {"registers_per_thread", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_SSHM] = {"static_shmem", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_DSHM] = {"dynamic_shmem", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_GRID] = {"grid", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_BLOCK] = {"block", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_TC] = {"uses_tc", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[KR_ELIG] = {"tc_eligible", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[KR_HAS_OCC] = {"has_occupancy", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[KR_OCC] = {"occupancy_pct", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_COUNT] = {"occurrences", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_TOTAL] = {"total_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_MIN] = {"min_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[KR_MAX] = {"max_ps", NULL, XP_T_STR, XP_U_NONE, 0},
};

static void host_columns(struct xp_table *t)
{
	xp_table_cols(t, host_cols, KH_N);
}

static void report_columns(struct xp_table *t)
{
	xp_table_cols(t, report_cols, KR_N);
}

/* --- saving ----------------------------------------------------------------------------------------- */

static void host_row(struct xp_table *t, const char *name, const struct xp_kernel_host *hs)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, KH_HOST, name);
	xp_state_set_u64(t, row, KH_PLANES, hs->gpu_planes);
	xp_state_set_u64(t, row, KH_KERNELS, hs->kernels);
	xp_state_set_i64(t, row, KH_TOTAL, hs->total_ps);
	xp_state_set_u64(t, row, KH_HLO_BAD, hs->n_hlo_bad);
	xp_set_str(t, row, KH_HLO_WHY, hs->hlo_problem ? hs->hlo_problem : "");
	xp_set_bool(t, row, KH_PT, hs->pt);
	xp_state_set_i64(t, row, KH_PT_OP, hs->pt_op_kernel_ps);
	xp_state_set_i64(t, row, KH_PT_TC, hs->pt_tc_bottom_ps);
}

/* The saved reports, made on demand from the database in the order it had when saved: SEQ numbers them. */
struct saved_rows {
	struct xp_kernel_db *db;
	uint32_t *at;           /* the row now at each saved place */
	unsigned sorts;         /* the database's sort count AT was made for */
};

static const struct xp_kernel_report *saved_row(struct saved_rows *s, size_t row)
{
	if (!s->at || s->sorts != s->db->sorts) {
		free(s->at);
		s->at = xcalloc(s->db->n ? s->db->n : 1, sizeof *s->at);
		for (size_t i = 0; i < s->db->n; i++)
			s->at[s->db->rows[i].seq] = (uint32_t)i;
		s->sorts = s->db->sorts;
	}
	return &s->db->rows[s->at[row]];
}

/* Sizes: 5 numbers of up to 20 digits and 3 of up to 10, two launch shapes of 32, an occupancy of 24. */
static void fill_report(void *src, size_t row, struct xp_cell *cells, char *text, size_t size)
{
	(void)size;
	struct saved_rows *s = src;
	const struct xp_kernel_report *r = saved_row(s, row);
	xp_cell_text(&cells[KR_HOST], xp_kernel_db_host_name(s->db, r->host));
	xp_cell_text(&cells[KR_NAME], r->name);
	xp_cell_text(&cells[KR_OP], r->op_name);
	xp_cell_bool(&cells[KR_HAS_MODULE], r->module != NULL);
	xp_cell_text(&cells[KR_MODULE], r->module ? r->module : "");
	xp_state_number_cell(&cells[KR_FIELDS], &text, r->details->fields, true);
	xp_state_number_cell(&cells[KR_REGS], &text, r->details->regs, true);
	xp_state_number_cell(&cells[KR_SSHM], &text, r->details->static_shmem, true);
	xp_state_number_cell(&cells[KR_DSHM], &text, r->details->dynamic_shmem, true);
	xp_kd_dims_text(r->details->grid, text);
	xp_cell_text(&cells[KR_GRID], text);
	text += 40;
	xp_kd_dims_text(r->details->block, text);
	xp_cell_text(&cells[KR_BLOCK], text);
	text += 40;
	xp_cell_bool(&cells[KR_TC], r->uses_tc);
	xp_cell_bool(&cells[KR_ELIG], r->tc_eligible);
	xp_cell_bool(&cells[KR_HAS_OCC], r->has_occupancy);
	int n = snprintf(text, 40, "%a", r->occupancy_pct);
	xp_cell_text(&cells[KR_OCC], text);
	text += n + 1;
	xp_state_number_cell(&cells[KR_COUNT], &text, (int64_t)r->v.occurrences, true);
	xp_state_number_cell(&cells[KR_TOTAL], &text, r->v.total_ps, false);
	xp_state_number_cell(&cells[KR_MIN], &text, r->v.min_ps, false);
	xp_state_number_cell(&cells[KR_MAX], &text, r->v.max_ps, false);
}

static void release_saved(void *src)
{
	struct saved_rows *s = src;
	xp_kernel_db_free(s->db);
	free(s->at);
	free(s);
}

void xp_kernel_db_state(struct xp_kernel_db *db, const struct xp_capture *c, struct xp_result *state)
{
	struct xp_table *hosts = xp_result_add_table(state, "kernel_hosts", "Kernel totals per host");
	host_columns(hosts);
	struct xp_table *reports = xp_result_add_table(state, "kernel_reports", "Kernel reports");
	report_columns(reports);
	for (uint32_t h = 0; h < db->n_hosts && h < c->n_hosts; h++)
		host_row(hosts, c->hosts[h].name, &db->hosts[h]);
	/* A row per kernel-op-shape: made when written, from the database the analysis keeps anyway. */
	xp_kernel_db_keep_names(db, c);
	xp_kernel_db_number(db);
	struct saved_rows *s = xcalloc(1, sizeof *s);
	s->db = xp_kernel_db_ref(db);
	xp_table_rows_from(reports, db->n, fill_report, s, release_saved);
}

/* --- reading back ----------------------------------------------------------------------------------- */

static bool dims_of(const struct xp_table *t, size_t row, size_t col, uint32_t d[3])
{
	const char *s = xp_state_str(t, row, col);
	char end;
	return s && sscanf(s, "%" SCNu32 ",%" SCNu32 ",%" SCNu32 "%c", &d[0], &d[1], &d[2], &end) == 3;
}

static bool read_host(const struct xp_table *t, size_t row, struct xp_kernel_host *hs)
{
	const char *why = xp_state_str(t, row, KH_HLO_WHY);
	bool ok = xp_state_u32(t, row, KH_PLANES, &hs->gpu_planes) && xp_state_u64(t, row, KH_KERNELS, &hs->kernels) &&
		  xp_state_i64(t, row, KH_TOTAL, &hs->total_ps) && xp_state_u64(t, row, KH_HLO_BAD, &hs->n_hlo_bad) &&
		  why && xp_state_bool(t, row, KH_PT, &hs->pt) && xp_state_i64(t, row, KH_PT_OP, &hs->pt_op_kernel_ps) &&
		  xp_state_i64(t, row, KH_PT_TC, &hs->pt_tc_bottom_ps);
	hs->hlo_problem = why && hs->n_hlo_bad ? (char *)why : NULL;
	return ok && (!hs->n_hlo_bad || *why);
}

/* Row ROW as R, whose launch shape is *D until the database keeps its copy. */
static bool read_report(const struct xp_table *t, size_t row, uint32_t host, struct xp_kernel_report *r,
			struct xp_kernel_details *d)
{
	bool has_module, uses_tc = false, tc_eligible = false, has_occupancy = false;
	const char *occ = xp_state_str(t, row, KR_OCC);
	char *end = NULL;
	memset(r, 0, sizeof *r);
	memset(d, 0, sizeof *d);
	r->details = d;
	r->host = host;
	r->name = (char *)xp_state_str(t, row, KR_NAME);
	r->op_name = (char *)xp_state_str(t, row, KR_OP);
	bool ok = r->name && r->op_name && xp_state_bool(t, row, KR_HAS_MODULE, &has_module) &&
		  xp_state_str(t, row, KR_MODULE) && xp_state_u32(t, row, KR_FIELDS, &d->fields) &&
		  xp_state_u32(t, row, KR_REGS, &d->regs) && xp_state_u32(t, row, KR_SSHM, &d->static_shmem) &&
		  xp_state_u32(t, row, KR_DSHM, &d->dynamic_shmem) && dims_of(t, row, KR_GRID, d->grid) &&
		  dims_of(t, row, KR_BLOCK, d->block) && xp_state_bool(t, row, KR_TC, &uses_tc) &&
		  xp_state_bool(t, row, KR_ELIG, &tc_eligible) && xp_state_bool(t, row, KR_HAS_OCC, &has_occupancy) &&
		  occ && xp_state_u64(t, row, KR_COUNT, &r->v.occurrences) && r->v.occurrences &&
		  xp_state_i64(t, row, KR_TOTAL, &r->v.total_ps) && xp_state_i64(t, row, KR_MIN, &r->v.min_ps) &&
		  xp_state_i64(t, row, KR_MAX, &r->v.max_ps);
	r->uses_tc = uses_tc;
	r->tc_eligible = tc_eligible;
	r->has_occupancy = has_occupancy;
	if (ok)
		r->occupancy_pct = strtod(occ, &end);
	r->module = ok && has_module ? (char *)xp_state_str(t, row, KR_MODULE) : NULL;
	return ok && end && end != occ && !*end;
}

/* Host H of the database: row ROW of its state's kernel_hosts, and its reports. */
static bool read_one(struct xp_kernel_db *db, uint32_t h, const struct xp_state_host *sh)
{
	const struct xp_table *hosts = xp_state_table(sh->state, "kernel_hosts", host_columns);
	const struct xp_table *reports = xp_state_table(sh->state, "kernel_reports", report_columns);
	const char *name = xp_state_host_name(sh->state, sh->row);
	if (!hosts || !reports || !name)
		return false;
	bool found = false;
	for (size_t row = 0; row < hosts->n_rows && !found; row++) {
		const char *hn = xp_state_str(hosts, row, KH_HOST);
		struct xp_kernel_host hs = {0};
		if (!hn || strcmp(hn, name))
			continue;
		if (!read_host(hosts, row, &hs))
			return false;
		xp_kernel_db_add_host(db, h, &hs);
		found = true;
	}
	for (size_t row = 0; row < reports->n_rows && found; row++) {
		const char *hn = xp_state_str(reports, row, KR_HOST);
		struct xp_kernel_report r;
		struct xp_kernel_details d;
		if (!hn)
			return false;
		if (strcmp(hn, name))
			continue;
		if (!read_report(reports, row, h, &r, &d))
			return false;
		xp_kernel_db_add(db, &r);
	}
	return found;
}

struct xp_kernel_db *xp_kernel_db_from_state(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e)
{
	struct xp_kernel_db *db = xp_kernel_db_new(n);
	for (uint32_t h = 0; h < n; h++)
		if (!read_one(db, h, &hosts[h])) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, hosts[h].path, "the kernel state of host %s does not read back: "
				   "not a report as this xpstat writes it", hosts[h].name);
			xp_kernel_db_free(db);
			return NULL;
		}
	return db;
}
