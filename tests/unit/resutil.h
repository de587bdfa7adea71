/* resutil.h - looking up summary values and table cells of a struct xp_result by key (header-only helpers). */
#ifndef XPSTAT_TESTS_RESUTIL_H
#define XPSTAT_TESTS_RESUTIL_H

#include <string.h>

#include "formats/model/result.h"

static inline const struct xp_cell *res_sum(const struct xp_result *r, const char *key)
{
	for (size_t i = 0; r && i < r->n_summary; i++)
		if (!strcmp(r->summary[i].key, key))
			return &r->summary[i].value;
	return NULL;
}

/* Summary text ("" when absent or not text). */
static inline const char *res_sum_str(const struct xp_result *r, const char *key)
{
	const struct xp_cell *c = res_sum(r, key);
	return c && c->type == XP_T_STR ? c->v.s : "";
}

/* Summary integer, duration (ps) or bytes; -1 when absent. */
static inline int64_t res_sum_int(const struct xp_result *r, const char *key)
{
	const struct xp_cell *c = res_sum(r, key);
	if (!c)
		return -1;
	switch (c->type) {
	case XP_T_INT: case XP_T_DUR: case XP_T_BYTES: case XP_T_ID: return c->v.i;
	case XP_T_UINT: return (int64_t)c->v.u;
	case XP_T_BOOL: return c->v.b;
	default: return -1;
	}
}

/* Summary percent, fraction or double; NaN when absent. */
static inline double res_sum_dbl(const struct xp_result *r, const char *key)
{
	const struct xp_cell *c = res_sum(r, key);
	return c && (c->type == XP_T_PCT || c->type == XP_T_FRAC || c->type == XP_T_F64) ? c->v.d : NAN;
}

static inline int res_col(const struct xp_table *t, const char *key)
{
	for (size_t i = 0; t && i < t->n_cols; i++)
		if (!strcmp(t->cols[i].key, key))
			return (int)i;
	return -1;
}

static inline const struct xp_cell *res_cell(const struct xp_result *r, const char *table, size_t row, const char *key)
{
	const struct xp_table *t = xp_result_table(r, table);
	int c = res_col(t, key);
	if (!t || c < 0 || row >= t->n_rows)
		return NULL;
	return xp_table_cell(t, row, (size_t)c);
}

static inline const char *res_str(const struct xp_result *r, const char *table, size_t row, const char *key)
{
	const struct xp_cell *c = res_cell(r, table, row, key);
	return c && c->type == XP_T_STR ? c->v.s : "";
}

static inline int64_t res_int(const struct xp_result *r, const char *table, size_t row, const char *key)
{
	const struct xp_cell *c = res_cell(r, table, row, key);
	if (!c)
		return -1;
	switch (c->type) {
	case XP_T_INT: case XP_T_DUR: case XP_T_BYTES: case XP_T_ID: return c->v.i;
	case XP_T_UINT: return (int64_t)c->v.u;
	case XP_T_BOOL: return c->v.b;
	default: return -1;
	}
}

static inline double res_dbl(const struct xp_result *r, const char *table, size_t row, const char *key)
{
	const struct xp_cell *c = res_cell(r, table, row, key);
	return c && (c->type == XP_T_PCT || c->type == XP_T_FRAC || c->type == XP_T_F64) ? c->v.d : NAN;
}

static inline size_t res_rows(const struct xp_result *r, const char *table)
{
	const struct xp_table *t = xp_result_table(r, table);
	return t ? t->n_rows : 0;
}

/* Has a diagnostic with this code. */
static inline bool res_diag(const struct xp_result *r, const char *code)
{
	for (size_t i = 0; r && i < r->n_diags; i++)
		if (!strcmp(r->diags[i].code, code))
			return true;
	return false;
}

#endif
