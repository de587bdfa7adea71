/* opdb_state.c - op databases and run environments saved in a report's state, and read back (combine). */
#include "opdb_state.h"
#include "formats/core/strpool.h"
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

/* An optional text: its flag and its text ("" for NULL). */
static void set_opt(struct xp_table *t, size_t row, size_t col_has, const char *s)
{
	xp_set_bool(t, row, col_has, s != NULL);
	xp_set_str_pooled(t, row, col_has + 1, s ? s : "");
}

static char *dup_or_null(const char *s)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		xp_oom();
	return d;
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

/* The op rows of the databases saved so far, copied with their texts, made into cells when written: a cell
 * per column and row would cost a kilobyte a row, and a host op DB has a row per op (300,000 on a capture of
 * that many ops). A row's texts are the saver's pooled copies; SEG[k] says whose rows start at FIRST[k]. */
struct xp_op_rows_saver {
	struct xp_pool *texts;
	struct xp_op_row *rows;
	size_t n, cap;
	struct saved_seg {
		const char *which, *host;
		size_t first;
	} *seg;
	size_t n_seg;
};

struct xp_op_rows_saver *xp_op_rows_saver_new(void)
{
	struct xp_op_rows_saver *s = xcalloc(1, sizeof *s);
	s->texts = xp_pool_new();
	return s;
}

static const char *saved_text(struct xp_op_rows_saver *s, const char *t)
{
	return t ? xp_pool_str(s->texts, t, strlen(t)) : NULL;
}

static void save_rows(struct xp_op_rows_saver *s, const char *which, const char *host, const struct xp_op_db *db)
{
	s->seg = xrealloc(s->seg, (s->n_seg + 1) * sizeof *s->seg);
	s->seg[s->n_seg++] = (struct saved_seg){saved_text(s, which), saved_text(s, host), s->n};
	if (s->n + db->n > s->cap) {
		s->cap = s->n + db->n;
		s->rows = xrealloc(s->rows, (s->cap ? s->cap : 1) * sizeof *s->rows);
	}
	for (size_t i = 0; i < db->n; i++) {
		struct xp_op_row *r = &s->rows[s->n++];
		*r = db->rows[i];
		r->name = saved_text(s, r->name);
		r->module = saved_text(s, r->module);
		r->category = saved_text(s, r->category);
		r->provenance = saved_text(s, r->provenance);
	}
}

/* An optional text: its flag and its text ("" for NULL). */
static void opt_cells(struct xp_cell *cells, size_t col_has, const char *s)
{
	xp_cell_bool(&cells[col_has], s != NULL);
	xp_cell_text(&cells[col_has + 1], s ? s : "");
}

/* Row ROW as op_row cells (decimal texts in TEXT: at most 12 numbers of XP_DEC_SIZE bytes). */
static void fill_saved(void *src, size_t row, struct xp_cell *cells, char *text, size_t size)
{
	(void)size;
	const struct xp_op_rows_saver *s = src;
	size_t k = 0;
	while (k + 1 < s->n_seg && row >= s->seg[k + 1].first)
		k++;
	const struct xp_op_row *r = &s->rows[row];
	xp_cell_text(&cells[R_DB], s->seg[k].which);
	xp_cell_text(&cells[R_HOST], s->seg[k].host);
	xp_cell_text(&cells[R_KIND], kind_names[r->kind]);
	xp_cell_text(&cells[R_NAME], r->name);
	opt_cells(cells, R_HAS_MODULE, r->module);
	opt_cells(cells, R_HAS_CAT, r->category);
	opt_cells(cells, R_HAS_PROV, r->provenance);
	xp_state_number_cell(&cells[R_OCC], &text, (int64_t)r->occurrences, true);
	xp_state_number_cell(&cells[R_TIME], &text, r->time_ps, false);
	xp_state_number_cell(&cells[R_SELF], &text, r->self_ps, false);
	xp_state_number_cell(&cells[R_FLOPS], &text, (int64_t)r->flops, true);
	xp_state_number_cell(&cells[R_BYTES], &text, (int64_t)r->bytes_accessed, true);
	xp_cell_bool(&cells[R_EAGER], r->is_eager);
	xp_state_number_cell(&cells[R_CORES], &text, (int64_t)r->num_cores, true);
	xp_state_number_cell(&cells[R_PROGRAM], &text, r->program_id, false);
	xp_state_number_cell(&cells[R_EXEC], &text, (int64_t)r->executions, true);
	xp_cell_bool(&cells[R_COST], r->cost_known);
	xp_cell_bool(&cells[R_GAP], r->flops_gap);
	xp_state_number_cell(&cells[R_ELEM], &text, (int64_t)r->elem_type, false);
	xp_state_number_cell(&cells[R_HLO_FLOPS], &text, (int64_t)r->hlo_flops, true);
	xp_state_number_cell(&cells[R_HLO_BYTES], &text, (int64_t)r->hlo_bytes, true);
}

static void release_saved(void *src)
{
	struct xp_op_rows_saver *s = src;
	xp_pool_free(s->texts);
	free(s->rows);
	free(s->seg);
	free(s);
}

void xp_op_db_state(struct xp_result *state, struct xp_op_rows_saver *s, const char *which, const char *host,
		    const struct xp_op_db *db)
{
	db_row(xp_state_table_of(state, "op_dbs", db_columns), which, host, db);
	save_rows(s, which, host, db);
}

void xp_op_rows_state(struct xp_result *state, struct xp_op_rows_saver *s)
{
	struct xp_table *rows = xp_result_add_table(state, "op_rows", "op_rows");
	row_columns(rows);
	xp_table_rows_from(rows, s->n, fill_saved, s, release_saved);
}

/*
 * Packed databases (xp_op_dbs_state_packed): a device op DB has a row per op and kernel, 122,092 on a 64 MB
 * diverse capture, whose names repeat a few hundred op names and kernel names. Each host's distinct texts are
 * listed once, in the texts table (host, text: a host's rows are its texts 0, 1, ...), and each op row is one
 * text cell, "row", of fields separated by one space:
 *   kind name module category provenance occurrences time_ps self_ps flops bytes_accessed is_eager num_cores
 *   program_id executions cost_known flops_gap elem_type hlo_flops hlo_bytes
 * kind is "tf", "xla", "idle" or "stage"; name is text A, or "A/B" for text A, a slash and text B (split at its
 * last slash: op name and kernel); module, category and provenance are a text's number or "-" for none;
 * self_ps is "=" when it is time_ps; is_eager is 1 when eager, plus 2 when eager by the is_eager stats alone
 * (the flag overview's database has); other flags are 0 or 1; integers are decimal. Rows are packed when saved,
 * into one text (about 45 bytes a row), and made into cells one at a time when written: neither the databases
 * nor a cell per row are held.
 */

/* The packed rows, made when saved (the databases are not held): row ROW's text is text + at[ROW], its host
 * hosts[k] for start[k] <= ROW < start[k + 1]. */
struct packed_rows {
	char **hosts;
	char *text;
	size_t *at;                 /* n_rows */
	size_t *start;              /* n + 1 */
	size_t used, cap;           /* of text */
	uint32_t n;
};

/* Where the last slash of NAME splits it in two texts (0: it stays whole). */
static size_t name_split(const char *name)
{
	const char *slash = strrchr(name, '/');
	return slash && slash != name ? (size_t)(slash - name) : 0;
}

static uint32_t text_id(const struct xp_strtab *t, const char *s, size_t len)
{
	return xp_strtab_find(t, s, len, NULL);
}

static void intern_row(struct xp_strtab *t, const struct xp_op_row *r)
{
	size_t cut = name_split(r->name);
	if (cut) {
		xp_intern(t, r->name, cut);
		xp_intern(t, r->name + cut + 1, strlen(r->name + cut + 1));
	} else {
		xp_intern(t, r->name, strlen(r->name));
	}
	const char *opt[3] = {r->module, r->category, r->provenance};
	for (int i = 0; i < 3; i++)
		if (opt[i])
			xp_intern(t, opt[i], strlen(opt[i]));
}

/* " N" for text S of T, or " -" for none. */
static int opt_text(char *buf, size_t n, const struct xp_strtab *t, const char *s)
{
	return s ? snprintf(buf, n, " %" PRIu32, text_id(t, s, strlen(s))) : snprintf(buf, n, " -");
}

/* R packed in TEXT, its texts numbered in T; its length. At most 19 fields: 4 texts' numbers, 9 integers of 20
 * digits and a sign, 6 flags and small numbers: 300 bytes. */
static size_t pack_row(const struct xp_strtab *t, const struct xp_op_row *r, char *text, size_t size)
{
	size_t cut = name_split(r->name), at = 0;
	at += (size_t)snprintf(text, size, "%s %" PRIu32, kind_names[r->kind], text_id(t, r->name, cut ? cut : strlen(r->name)));
	if (cut)
		at += (size_t)snprintf(text + at, size - at, "/%" PRIu32, text_id(t, r->name + cut + 1, strlen(r->name + cut + 1)));
	at += (size_t)opt_text(text + at, size - at, t, r->module);
	at += (size_t)opt_text(text + at, size - at, t, r->category);
	at += (size_t)opt_text(text + at, size - at, t, r->provenance);
	at += (size_t)snprintf(text + at, size - at, " %" PRIu64 " %" PRId64, r->occurrences, r->time_ps);
	if (r->self_ps == r->time_ps)
		at += (size_t)snprintf(text + at, size - at, " =");
	else
		at += (size_t)snprintf(text + at, size - at, " %" PRId64, r->self_ps);
	at += (size_t)snprintf(text + at, size - at, " %" PRIu64 " %" PRIu64 " %d %" PRIu32 " %" PRId64 " %" PRIu64
			       " %d %d %d %" PRIu64 " %" PRIu64, r->flops, r->bytes_accessed,
			       r->is_eager + 2 * r->is_eager_stat, r->num_cores, r->program_id, r->executions, r->cost_known,
			       r->flops_gap, r->elem_type, r->hlo_flops, r->hlo_bytes);
	return at;
}

static void fill_packed(void *src, size_t row, struct xp_cell *cells, char *text, size_t size)
{
	(void)text;
	(void)size;
	const struct packed_rows *o = src;
	uint32_t k = 0;
	while (k + 1 < o->n && row >= o->start[k + 1])
		k++;
	xp_cell_text(&cells[0], o->hosts[k]);
	xp_cell_text(&cells[1], o->text + o->at[row]);
}

static void release_packed(void *src)
{
	struct packed_rows *o = src;
	for (uint32_t k = 0; k < o->n; k++)
		free(o->hosts[k]);
	free(o->hosts);
	free(o->text);
	free(o->at);
	free(o->start);
	free(o);
}

enum { T_HOST, T_TEXT, T_N };
static const struct xp_col_def text_cols[T_N] = {
	[T_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[T_TEXT] = {"text", NULL, XP_T_STR, XP_U_NONE, 0},
};
enum { P_HOST, P_ROW, P_N };
static const struct xp_col_def packed_cols[P_N] = {
	[P_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[P_ROW] = {"row", NULL, XP_T_STR, XP_U_NONE, 0},
};
static void text_columns(struct xp_table *t) { xp_table_cols(t, text_cols, T_N); }
static void packed_columns(struct xp_table *t) { xp_table_cols(t, packed_cols, P_N); }

/* DB's texts as rows of TEXTS (host HOST) and its rows packed at the end of O's text. */
static void pack_db(struct packed_rows *o, struct xp_table *texts, const char *host, const struct xp_op_db *db,
		    size_t first)
{
	struct xp_strtab t;
	xp_strtab_init(&t);
	for (size_t i = 0; i < db->n; i++)
		intern_row(&t, &db->rows[i]);
	for (uint32_t id = 0; id < t.n; id++) {
		size_t row = xp_table_row(texts);
		xp_set_str_pooled(texts, row, T_HOST, host);
		xp_set_str(texts, row, T_TEXT, t.strs[id]);
	}
	for (size_t i = 0; i < db->n; i++) {
		if (o->cap - o->used < XP_ROW_TEXT_SIZE) {
			o->cap = o->cap * 2 + XP_ROW_TEXT_SIZE;
			o->text = xrealloc(o->text, o->cap);
		}
		o->at[first + i] = o->used;
		o->used += pack_row(&t, &db->rows[i], o->text + o->used, XP_ROW_TEXT_SIZE) + 1;
	}
	xp_strtab_free(&t);
}

void xp_op_dbs_state_packed(struct xp_result *state, const struct xp_packed_tables *names, const char *which,
			    const char *const *hosts, const struct xp_op_db *const *dbs, uint32_t n)
{
	struct xp_table *totals = xp_state_table_of(state, names->dbs, db_columns);
	struct xp_table *texts = xp_state_table_of(state, names->texts, text_columns);
	struct packed_rows *o = xcalloc(1, sizeof *o);
	o->hosts = xcalloc(n ? n : 1, sizeof *o->hosts);
	o->start = xcalloc(n + 1, sizeof *o->start);
	o->n = n;
	for (uint32_t k = 0; k < n; k++)
		o->start[k + 1] = o->start[k] + dbs[k]->n;
	o->at = xcalloc(o->start[n] ? o->start[n] : 1, sizeof *o->at);
	for (uint32_t k = 0; k < n; k++) {
		db_row(totals, which, hosts[k], dbs[k]);
		o->hosts[k] = dup_or_null(hosts[k]);
		pack_db(o, texts, hosts[k], dbs[k], o->start[k]);
	}
	struct xp_table *rows = xp_result_add_table(state, names->rows, names->rows);
	packed_columns(rows);
	xp_table_rows_from(rows, o->start[n], fill_packed, o, release_packed);
}

void xp_run_env_state(const struct xp_capture *c, struct xp_result *state)
{
	struct xp_table *t = xp_state_table_of(state, "run_env", env_columns);
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

/* --- packed rows read back ---------------------------------------------------------------------------- */

struct packed_in {
	const char **texts;
	size_t n_texts;
};

/* The next space-separated field of *S (advanced past it and its space) as an unsigned or signed integer. */
static bool field_u64(const char **s, uint64_t *v)
{
	char *end;
	if (**s < '0' || **s > '9')
		return false;
	*v = strtoull(*s, &end, 10);
	if (*end && *end != ' ')
		return false;
	*s = *end ? end + 1 : end;
	return true;
}

static bool field_i64(const char **s, int64_t *v)
{
	bool neg = **s == '-';
	uint64_t u;
	*s += neg;
	if (!field_u64(s, &u) || u > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

static bool field_flag(const char **s, bool *v)
{
	uint64_t u;
	if (!field_u64(s, &u) || u > 1)
		return false;
	*v = u;
	return true;
}

/* A text's number (NULL for "-"); false when it is neither. */
static bool field_text(const char **s, const struct packed_in *in, const char **text)
{
	uint64_t id;
	if (**s == '-' && ((*s)[1] == ' ' || !(*s)[1])) {
		*text = NULL;
		*s += (*s)[1] ? 2 : 1;
		return true;
	}
	if (!field_u64(s, &id) || id >= in->n_texts)
		return false;
	*text = in->texts[id];
	return true;
}

/* "A" or "A/B": the name, in BUF (malloc'd). */
static bool field_name(const char **s, const struct packed_in *in, char **name)
{
	char *end;
	uint64_t a = strtoull(*s, &end, 10), b = 0;
	bool two = *end == '/';
	if (end == *s || a >= in->n_texts || **s < '0' || **s > '9')
		return false;
	*s = end;
	if (two) {
		*s += 1;
		if (**s < '0' || **s > '9')
			return false;
		b = strtoull(*s, &end, 10);
		if (b >= in->n_texts)
			return false;
		*s = end;
	}
	if (**s != ' ')
		return false;
	*s += 1;
	size_t la = strlen(in->texts[a]), lb = two ? strlen(in->texts[b]) : 0;
	*name = xcalloc(la + lb + 2, 1);
	memcpy(*name, in->texts[a], la);
	if (two) {
		(*name)[la] = '/';
		memcpy(*name + la + 1, in->texts[b], lb);
	}
	return true;
}

static bool field_kind(const char **s, enum xp_op_kind *k)
{
	const char *sp = strchr(*s, ' ');
	char kind[8];
	size_t n = sp ? (size_t)(sp - *s) : 0;
	if (!n || n >= sizeof kind)
		return false;
	memcpy(kind, *s, n);
	kind[n] = 0;
	*s = sp + 1;
	return kind_of(kind, k);
}

/* The numbers after the texts, into R. */
static bool packed_numbers(const char *s, struct xp_op_row *r)
{
	int64_t elem = 0;
	bool ok = field_u64(&s, &r->occurrences) && field_i64(&s, &r->time_ps);
	if (ok && s[0] == '=' && s[1] == ' ') {
		r->self_ps = r->time_ps;
		s += 2;
	} else {
		ok = ok && field_i64(&s, &r->self_ps);
	}
	uint64_t cores = 0, eager = 0;
	ok = ok && field_u64(&s, &r->flops) && field_u64(&s, &r->bytes_accessed) && field_u64(&s, &eager) && eager <= 3 &&
	     field_u64(&s, &cores) && cores <= UINT32_MAX && field_i64(&s, &r->program_id) &&
	     field_u64(&s, &r->executions) && field_flag(&s, &r->cost_known) && field_flag(&s, &r->flops_gap) &&
	     field_i64(&s, &elem) && elem >= INT32_MIN && elem <= INT32_MAX && field_u64(&s, &r->hlo_flops) &&
	     field_u64(&s, &r->hlo_bytes) && !*s;
	r->num_cores = (uint32_t)cores;
	r->is_eager = eager & 1;
	r->is_eager_stat = eager >> 1;
	r->elem_type = (int)elem;
	return ok;
}

static bool read_packed(const char *s, const struct packed_in *in, struct xp_op_db *db)
{
	enum xp_op_kind kind;
	const char *module, *cat, *prov;
	char *name = NULL;
	if (!s || !field_kind(&s, &kind) || !field_name(&s, in, &name) || !field_text(&s, in, &module) ||
	    !field_text(&s, in, &cat) || !field_text(&s, in, &prov)) {
		free(name);
		return false;
	}
	bool created = false;
	size_t k = xp_op_db_row(db, kind, module, name, &created);
	free(name);
	struct xp_op_row *r = &db->rows[k];
	if (!created)
		return false;   /* the same op twice */
	r->category = xp_op_db_text0(db, cat);
	r->provenance = xp_op_db_text0(db, prov);
	return packed_numbers(s, r);
}

/* Whether row ROW of T is (WHICH, HOST)'s: columns 0 and 1. */
static bool is_of(const struct xp_table *t, size_t row, const char *which, const char *host, bool *ok)
{
	const char *w = xp_state_str(t, row, 0), *h = xp_state_str(t, row, 1);
	*ok = w && h;
	return *ok && !strcmp(w, which) && !strcmp(h, host);
}

/* The host's texts of table T, in their order. */
static bool packed_texts(const struct xp_table *t, const char *host, struct packed_in *in)
{
	in->texts = xcalloc(t && t->n_rows ? t->n_rows : 1, sizeof *in->texts);
	for (size_t row = 0; t && row < t->n_rows; row++) {
		const char *h = xp_state_str(t, row, T_HOST), *text = xp_state_str(t, row, T_TEXT);
		if (!h || !text)
			return false;
		if (!strcmp(h, host))
			in->texts[in->n_texts++] = text;
	}
	return true;
}

struct xp_op_db *xp_op_db_from_packed_state(const struct xp_state_host *sh, const struct xp_packed_tables *names,
					    const char *which)
{
	const struct xp_table *dbs = xp_state_table(sh->state, names->dbs, db_columns);
	const struct xp_table *texts = xp_state_table(sh->state, names->texts, text_columns);
	const struct xp_table *rows = xp_state_table(sh->state, names->rows, packed_columns);
	const char *host = xp_state_host_name(sh->state, sh->row);
	struct packed_in in = {0};
	bool found = false, ok = dbs && host && (texts || !xp_result_table(sh->state, names->texts)) &&
				 (rows || !xp_result_table(sh->state, names->rows));
	struct xp_op_db *db = xp_op_db_empty();
	ok = ok && packed_texts(texts, host, &in);
	for (size_t row = 0; ok && row < dbs->n_rows && !found; row++)
		if (is_of(dbs, row, which, host, &ok))
			found = ok = read_totals(dbs, row, db);
	for (size_t row = 0; rows && ok && found && row < rows->n_rows; row++) {
		const char *h = xp_state_str(rows, row, P_HOST);
		ok = h != NULL;
		if (ok && !strcmp(h, host))
			ok = read_packed(xp_state_str(rows, row, P_ROW), &in, db);
	}
	free(in.texts);
	if (found && ok)
		return db;
	xp_op_db_free(db);
	return NULL;
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
