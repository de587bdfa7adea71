/* table_state.h - a result table's rows kept in a saved report's state and read back into the same table (an analysis whose rows are per host, as they are: info). */
#ifndef XPSTAT_TABLE_STATE_H
#define XPSTAT_TABLE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "formats/core/xperr.h"
#include "formats/model/result.h"

/*
 * The state table has the result table's column keys in its order; each cell as the state keeps values:
 * texts and booleans as they are, integers (durations in picoseconds, whatever the key's unit) as decimal
 * strings, doubles as "%.17g" strings (which read back to the same double), an empty cell as null. The
 * column HOST_COL holds the host each row belongs to: combine renames it.
 */

/* Rows FROM..TO of T appended to STATE's table NAME (made with T's keys when it is not there yet). */
void xp_state_keep_rows(struct xp_result *state, const char *name, const struct xp_table *t, size_t from, size_t to);

/* The rows of STATE's table NAME whose column HOST_COL is HOST, appended to T (whose columns, as the
 * analysis declares them, say what each cell reads back as) with RENAME in that column: how many, or -1 when
 * the table is missing, its keys are not T's or a cell does not read back as its column's type (a row of
 * another host is not read). */
long xp_state_restore_rows(const struct xp_result *state, const char *name, size_t host_col, const char *host,
			   struct xp_table *t, const char *rename);

/* The same for a table of many rows, packed: STATE's table NAME has two columns, "host" (column HOST_COL's text)
 * and "row" (the other cells in column order, separated by a space: "~" for an empty cell, "t" or "f", an integer
 * in decimal, a double as "%.17g", a text as its length in bytes, ":" and its bytes). */
void xp_state_keep_rows_packed(struct xp_result *state, const char *name, const struct xp_table *t, size_t host_col);
long xp_state_restore_rows_packed(const struct xp_result *state, const char *name, size_t host_col, const char *host,
				  struct xp_table *t, const char *rename);

/* Each host's row count of every table of STATE, as its table "state_rows" (host, table, rows), which a hand-edited
 * or spoilt state is checked against: host after host in the order STATE first names them (its hosts table first),
 * a host's tables by name, none of no rows (the state one process writes for several hosts is the hosts' ones
 * after another, as xp_state_merge writes them). */
#define XP_STATE_ROWS_TABLE "state_rows"
void xp_state_count_rows(struct xp_result *state);
/* Whether every table of STATE (only those KEEP names, when not NULL) holds as many rows of each of STATE's hosts
 * as its state_rows says, and none of another host; else false with the reason in WHY (WHY_SIZE bytes). */
bool xp_state_check_rows(const struct xp_result *state, const char *const *keep, char *why, size_t why_size);

struct xp_state_host;

/* The state one process writes for the N hosts (in that order) of saved reports: each state table (in the
 * order the reports hold them) with each host's rows, in host order, its "host" column renamed to the name
 * the run gives it. NULL with E set (exit 3) when a table names no host column. */
struct xp_result *xp_state_merge(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e);

#endif
