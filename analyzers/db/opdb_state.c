/* opdb_state.c - op databases and run environments saved in a report's state, and read back (combine). */
#include "opdb_state.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * An op database is one row of op_dbs (its totals) and its rows in op_rows, both keyed by (db, host): db
 * names the database ("input_host": the host op DB input-pipeline and tf-stats read). Rows are per op
 * (never per event). Integers are decimal strings; optional texts carry a has_ flag, so NULL and "" stay
 * apart.
 */

enum { D_DB, D_HOST, D_TOTAL, D_OP_TOTAL, D_PLANES, D_DROPPED, D_XLA, D_RESOLVED, D_AMBIGUOUS, D_HLO_BAD,
       D_HAS_PROBLEM, D_PROBLEM, D_N };
static const struct xp_col_def db_cols[D_N] = {
	[D_DB] = {"db", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_TOTAL] = {"total_time_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_OP_TOTAL] = {"total_op_time_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_PLANES] = {"planes", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_DROPPED] = {"dropped_xla", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_XLA] = {"xla_events", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_RESOLVED] = {"xla_resolved", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_AMBIGUOUS] = {"xla_ambiguous", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_HLO_BAD] = {"hlo_bad", NULL, XP_T_STR, XP_U_NONE, 0},
	[D_HAS_PROBLEM] = {"has_hlo_problem", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[D_PROBLEM] = {"hlo_problem", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { R_DB, R_HOST, R_KIND, R_NAME, R_HAS_MODULE, R_MODULE, R_HAS_CAT, R_CAT, R_HAS_PROV, R_PROV, R_OCC, R_TIME,
       R_SELF, R_FLOPS, R_BYTES, R_EAGER, R_CORES, R_PROGRAM, R_EXEC, R_COST, R_GAP, R_ELEM, R_HLO_FLOPS, R_HLO_BYTES,
       R_N };
static const struct xp_col_def row_cols[R_N] = {
	[R_DB] = {"db", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_KIND] = {"kind", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_NAME] = {"name", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_HAS_MODULE] = {"has_module", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[R_MODULE] = {"module", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_HAS_CAT] = {"has_category", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[R_CAT] = {"category", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_HAS_PROV] = {"has_provenance", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[R_PROV] = {"provenance", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_OCC] = {"occurrences", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_TIME] = {"time_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_SELF] = {"self_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_FLOPS] = {"flops", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_BYTES] = {"bytes_accessed", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_EAGER] = {"is_eager", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[R_CORES] = {"num_cores", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_PROGRAM] = {"program_id", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_EXEC] = {"executions", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_COST] = {"cost_known", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[R_GAP] = {"flops_gap", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[R_ELEM] = {"elem_type", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_HLO_FLOPS] = {"hlo_flops", NULL, XP_T_STR, XP_U_NONE, 0},
	[R_HLO_BYTES] = {"hlo_bytes", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { E_HOST, E_TYPE, E_CORES, E_ACTIVE, E_GPU, E_TPU, E_N };
static const struct xp_col_def env_cols[E_N] = {
	[E_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[E_TYPE] = {"device_type", NULL, XP_T_STR, XP_U_NONE, 0},
	[E_CORES] = {"device_cores", NULL, XP_T_STR, XP_U_NONE, 0},
	[E_ACTIVE] = {"devices_with_events", NULL, XP_T_STR, XP_U_NONE, 0},
	[E_GPU] = {"gpu", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[E_TPU] = {"tpu", NULL, XP_T_BOOL, XP_U_NONE, 0},
};

static void db_columns(struct xp_table *t) { xp_table_cols(t, db_cols, D_N); }
static void row_columns(struct xp_table *t) { xp_table_cols(t, row_cols, R_N); }
static void env_columns(struct xp_table *t) { xp_table_cols(t, env_cols, E_N); }

static const char *const kind_names[] = {[XP_OPK_TF] = "tf", [XP_OPK_XLA] = "xla", [XP_OPK_IDLE] = "idle",
					 [XP_OPK_STAGE] = "stage"};

/* STATE's table NAME, made with COLUMNS when it is not there yet. */
static struct xp_table *table_of(struct xp_result *state, const char *name, void (*columns)(struct xp_table *t))
{
	struct xp_table *t = xp_result_table(state, name);
	if (!t) {
		t = xp_result_add_table(state, name, name);
		columns(t);
	}
	return t;
}

/* An optional text: its flag and its text ("" for NULL). */
static void set_opt(struct xp_table *t, size_t row, size_t col_has, const char *s)
{
	xp_set_bool(t, row, col_has, s != NULL);
	xp_set_str_pooled(t, row, col_has + 1, s ? s : "");
}

/* --- saving ----------------------------------------------------------------------------------------- */

static void db_row(struct xp_table *t, const char *which, const char *host, const struct xp_op_db *db)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, D_DB, which);
	xp_set_str(t, row, D_HOST, host);
	xp_state_set_i64(t, row, D_TOTAL, db->total_time_ps);
	xp_state_set_i64(t, row, D_OP_TOTAL, db->total_op_time_ps);
	xp_state_set_u64(t, row, D_PLANES, db->n_planes);
	xp_state_set_u64(t, row, D_DROPPED, db->n_dropped_xla);
	xp_state_set_u64(t, row, D_XLA, db->n_xla_events);
	xp_state_set_u64(t, row, D_RESOLVED, db->n_xla_resolved);
	xp_state_set_u64(t, row, D_AMBIGUOUS, db->n_xla_ambiguous);
	xp_state_set_u64(t, row, D_HLO_BAD, db->n_hlo_bad);
	set_opt(t, row, D_HAS_PROBLEM, db->hlo_problem);
}

static void op_row(struct xp_table *t, const char *which, const char *host, const struct xp_op_row *r)
{
	size_t row = xp_table_row(t);
	xp_set_str_pooled(t, row, R_DB, which);
	xp_set_str_pooled(t, row, R_HOST, host);
	xp_set_str_pooled(t, row, R_KIND, kind_names[r->kind]);
	xp_set_str(t, row, R_NAME, r->name);
	set_opt(t, row, R_HAS_MODULE, r->module);
	set_opt(t, row, R_HAS_CAT, r->category);
	set_opt(t, row, R_HAS_PROV, r->provenance);
	xp_state_set_u64(t, row, R_OCC, r->occurrences);
	xp_state_set_i64(t, row, R_TIME, r->time_ps);
	xp_state_set_i64(t, row, R_SELF, r->self_ps);
	xp_state_set_u64(t, row, R_FLOPS, r->flops);
	xp_state_set_u64(t, row, R_BYTES, r->bytes_accessed);
	xp_set_bool(t, row, R_EAGER, r->is_eager);
	xp_state_set_u64(t, row, R_CORES, r->num_cores);
	xp_state_set_i64(t, row, R_PROGRAM, r->program_id);
	xp_state_set_u64(t, row, R_EXEC, r->executions);
	xp_set_bool(t, row, R_COST, r->cost_known);
	xp_set_bool(t, row, R_GAP, r->flops_gap);
	xp_state_set_i64(t, row, R_ELEM, r->elem_type);
	xp_state_set_u64(t, row, R_HLO_FLOPS, r->hlo_flops);
	xp_state_set_u64(t, row, R_HLO_BYTES, r->hlo_bytes);
}

void xp_op_db_state(struct xp_result *state, const char *which, const char *host, const struct xp_op_db *db)
{
	db_row(table_of(state, "op_dbs", db_columns), which, host, db);
	struct xp_table *rows = table_of(state, "op_rows", row_columns);
	for (size_t i = 0; i < db->n; i++)
		op_row(rows, which, host, &db->rows[i]);
}

void xp_run_env_state(const struct xp_capture *c, struct xp_result *state)
{
	struct xp_table *t = table_of(state, "run_env", env_columns);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		struct xp_run_env e;
		xp_run_env_host(c, &c->hosts[h], &e);
		size_t row = xp_table_row(t);
		xp_set_str(t, row, E_HOST, c->hosts[h].name);
		xp_set_str(t, row, E_TYPE, e.device_type);
		xp_state_set_u64(t, row, E_CORES, e.device_cores);
		xp_state_set_u64(t, row, E_ACTIVE, e.devices_with_events);
		xp_set_bool(t, row, E_GPU, e.gpu);
		xp_set_bool(t, row, E_TPU, e.tpu);
	}
}

/* --- reading back ----------------------------------------------------------------------------------- */

/* An optional text read back: NULL when its flag is false. */
static bool opt_of(const struct xp_table *t, size_t row, size_t col_has, const char **s)
{
	bool has;
	const char *v = xp_state_str(t, row, col_has + 1);
	if (!v || !xp_state_bool(t, row, col_has, &has))
		return false;
	*s = has ? v : NULL;
	return true;
}

static bool kind_of(const char *s, enum xp_op_kind *k)
{
	for (size_t i = 0; s && i < sizeof kind_names / sizeof *kind_names; i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum xp_op_kind)i;
			return true;
		}
	return false;
}

static char *dup_or_null(const char *s)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		xp_oom();
	return d;
}

static bool read_totals(const struct xp_table *t, size_t row, struct xp_op_db *db)
{
	const char *problem;
	bool ok = xp_state_i64(t, row, D_TOTAL, &db->total_time_ps) && xp_state_i64(t, row, D_OP_TOTAL, &db->total_op_time_ps) &&
		  xp_state_u32(t, row, D_PLANES, &db->n_planes) && xp_state_u64(t, row, D_DROPPED, &db->n_dropped_xla) &&
		  xp_state_u64(t, row, D_XLA, &db->n_xla_events) && xp_state_u64(t, row, D_RESOLVED, &db->n_xla_resolved) &&
		  xp_state_u64(t, row, D_AMBIGUOUS, &db->n_xla_ambiguous) && xp_state_u64(t, row, D_HLO_BAD, &db->n_hlo_bad) &&
		  opt_of(t, row, D_HAS_PROBLEM, &problem);
	if (ok)
		db->hlo_problem = dup_or_null(problem);
	return ok;
}

static bool read_row(const struct xp_table *t, size_t row, struct xp_op_db *db)
{
	enum xp_op_kind kind;
	const char *name = xp_state_str(t, row, R_NAME), *module, *cat, *prov;
	bool created = false;
	int64_t elem = 0;
	if (!name || !kind_of(xp_state_str(t, row, R_KIND), &kind) || !opt_of(t, row, R_HAS_MODULE, &module) ||
	    !opt_of(t, row, R_HAS_CAT, &cat) || !opt_of(t, row, R_HAS_PROV, &prov))
		return false;
	size_t k = xp_op_db_row(db, kind, module, name, &created);   /* may move the rows */
	struct xp_op_row *r = &db->rows[k];
	if (!created)
		return false;   /* the same op twice */
	r->category = xp_op_db_text0(db, cat);
	r->provenance = xp_op_db_text0(db, prov);
	bool ok = xp_state_u64(t, row, R_OCC, &r->occurrences) && xp_state_i64(t, row, R_TIME, &r->time_ps) &&
		  xp_state_i64(t, row, R_SELF, &r->self_ps) && xp_state_u64(t, row, R_FLOPS, &r->flops) &&
		  xp_state_u64(t, row, R_BYTES, &r->bytes_accessed) && xp_state_bool(t, row, R_EAGER, &r->is_eager) &&
		  xp_state_u32(t, row, R_CORES, &r->num_cores) && xp_state_i64(t, row, R_PROGRAM, &r->program_id) &&
		  xp_state_u64(t, row, R_EXEC, &r->executions) && xp_state_bool(t, row, R_COST, &r->cost_known) &&
		  xp_state_bool(t, row, R_GAP, &r->flops_gap) && xp_state_i64(t, row, R_ELEM, &elem) &&
		  xp_state_u64(t, row, R_HLO_FLOPS, &r->hlo_flops) && xp_state_u64(t, row, R_HLO_BYTES, &r->hlo_bytes);
	r->elem_type = (int)elem;
	return ok && elem >= INT32_MIN && elem <= INT32_MAX;
}

/* Whether row ROW of T is (WHICH, HOST)'s: columns 0 and 1. */
static bool is_of(const struct xp_table *t, size_t row, const char *which, const char *host, bool *ok)
{
	const char *w = xp_state_str(t, row, 0), *h = xp_state_str(t, row, 1);
	*ok = w && h;
	return *ok && !strcmp(w, which) && !strcmp(h, host);
}

struct xp_op_db *xp_op_db_from_state(const struct xp_state_host *sh, const char *which)
{
	const struct xp_table *dbs = xp_state_table(sh->state, "op_dbs", db_columns);
	const struct xp_table *rows = xp_state_table(sh->state, "op_rows", row_columns);
	const char *host = xp_state_host_name(sh->state, sh->row);
	if (!dbs || !host || (!rows && xp_result_table(sh->state, "op_rows")))
		return NULL;
	struct xp_op_db *db = xp_op_db_empty();
	bool found = false, ok = true;
	for (size_t row = 0; row < dbs->n_rows && ok && !found; row++)
		if (is_of(dbs, row, which, host, &ok))
			found = ok = read_totals(dbs, row, db);
	for (size_t row = 0; rows && row < rows->n_rows && ok && found; row++)
		if (is_of(rows, row, which, host, &ok))
			ok = read_row(rows, row, db);
	if (found && ok)
		return db;
	xp_op_db_free(db);
	return NULL;
}

bool xp_run_env_from_state(const struct xp_state_host *sh, struct xp_run_env *e)
{
	const struct xp_table *t = xp_state_table(sh->state, "run_env", env_columns);
	const char *host = xp_state_host_name(sh->state, sh->row);
	memset(e, 0, sizeof *e);
	for (size_t row = 0; t && host && row < t->n_rows; row++) {
		const char *h = xp_state_str(t, row, E_HOST), *type = xp_state_str(t, row, E_TYPE);
		if (!h || strcmp(h, host))
			continue;
		if (!type || strlen(type) >= sizeof e->device_type)
			return false;
		memcpy(e->device_type, type, strlen(type) + 1);
		return xp_state_u32(t, row, E_CORES, &e->device_cores) &&
		       xp_state_u32(t, row, E_ACTIVE, &e->devices_with_events) && xp_state_bool(t, row, E_GPU, &e->gpu) &&
		       xp_state_bool(t, row, E_TPU, &e->tpu);
	}
	return false;
}
