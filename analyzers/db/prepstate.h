/* prepstate.h - the per-host state a saved report carries so that combine can rebuild the cross-host tables: each host's step database and time base. */
#ifndef XPSTAT_PREPSTATE_H
#define XPSTAT_PREPSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzers/prepare/prep.h"
#include "formats/core/xperr.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

/*
 * The state is a result ("state" in a saved report's JSON) of two tables:
 *   hosts: one row per host of the report, in its host order: host (its name in that report), base_ns, the
 *          step database's flags (source, has_device, tpu, grouping_skipped_loops, pytorch), dropped,
 *          dropped_why (has_dropped_why says whether there is one), compute16_ps, compute32_ps, first_name
 *          (the name before another host's made it unique, "" when it kept it);
 *   steps: one row per step: host, id, name, begin_ps, duration_ps, one <event type>_ps per event type,
 *          transfer_{h2d,d2h,d2d}_{count,bytes,ps}.
 * Every integer is written as a decimal string: JSON numbers pass through a double, and a time base or a
 * saturated duration lies past 2^53.
 */
struct xp_result *xp_prep_state(const struct xp_prep *p);
/* Its tables. */
#define XP_PREP_STATE_TABLES "hosts", "steps"

/* An analysis' own state tables (kernel-stats') are written and read with these: integers as decimal strings. */
void xp_state_set_i64(struct xp_table *t, size_t row, size_t col, int64_t v);
void xp_state_set_u64(struct xp_table *t, size_t row, size_t col, uint64_t v);
/* The same for a row made on demand (xp_table_rows_from): cell C's decimal text is written at *TEXT (XP_DEC_SIZE
 * bytes at most), which is advanced past it; V's bits are read as unsigned when IS_UNSIGNED. */
void xp_state_number_cell(struct xp_cell *c, char **text, int64_t v, bool is_unsigned);
/* Cell (ROW, COL) read back; false when it is not what these write. */
const char *xp_state_str(const struct xp_table *t, size_t row, size_t col);
bool xp_state_i64(const struct xp_table *t, size_t row, size_t col, int64_t *v);
bool xp_state_u64(const struct xp_table *t, size_t row, size_t col, uint64_t *v);
bool xp_state_u32(const struct xp_table *t, size_t row, size_t col, uint32_t *v);
bool xp_state_bool(const struct xp_table *t, size_t row, size_t col, bool *v);
/* STATE's table NAME, made with COLUMNS when it is not there yet (a table several hosts or databases add rows to). */
struct xp_table *xp_state_table_of(struct xp_result *state, const char *name, void (*columns)(struct xp_table *t));
/* The table NAME of STATE when its columns are exactly those COLUMNS installs, in that order (a table
 * without rows passes: JSON keeps no columns of it); NULL otherwise. */
const struct xp_table *xp_state_table(const struct xp_result *state, const char *name,
				     void (*columns)(struct xp_table *t));

/* One host to rebuild: row ROW of STATE's hosts table, named NAME in the rebuilt preparation; PATH (the
 * saved report) names it in errors. */
struct xp_state_host {
	const struct xp_result *state;
	size_t row;
	const char *name;
	const char *path;
	const char *first_name;     /* the run's: its name before another host's made it unique, or NULL */
};

/* The rows of STATE's hosts table (0 when it has none or STATE is NULL). */
size_t xp_state_hosts(const struct xp_result *state);
/* The name of host ROW of STATE, or NULL. */
const char *xp_state_host_name(const struct xp_result *state, size_t row);
/* Its name before another host's made it unique (its own when none did), or NULL. */
const char *xp_state_host_first_name(const struct xp_result *state, size_t row);

/* A preparation of the N hosts (in that order) as xp_prepare made it for their steps: what steps and pod
 * read. *CAP gets the capture its hosts point into (names and time bases only); free both with
 * xp_prep_state_free. NULL with E set (exit 3) when a state is malformed. */
struct xp_prep *xp_prep_from_state(const struct xp_state_host *hosts, uint32_t n, bool xprof_compat,
				   struct xp_capture **cap, struct xp_err *e);
void xp_prep_state_free(struct xp_prep *p, struct xp_capture *cap);

#endif
