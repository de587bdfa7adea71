/* opdb_state.h - op databases (one per host and kind) and each host's run environment in a saved report's state, and back (combine). */
#ifndef XPSTAT_OPDB_STATE_H
#define XPSTAT_OPDB_STATE_H

#include "opdb.h"
#include "perfenv.h"
#include "prepstate.h"

/* The state tables they are: op_dbs (each database's totals), op_rows (its rows), run_env (one row per host). */
#define XP_OPDB_STATE_TABLES "op_dbs", "op_rows", "run_env"

/* DB, host HOST's database of kind WHICH ("input_host": xp_op_db_host): its totals as a row of STATE's op_dbs
 * (made on first use) now, its rows copied into SAVER (DB is not kept). xp_op_rows_state then adds the rows of
 * every database so saved, in the order saved, as STATE's op_rows, made into cells only when written. */
struct xp_op_rows_saver;
struct xp_op_rows_saver *xp_op_rows_saver_new(void);
void xp_op_db_state(struct xp_result *state, struct xp_op_rows_saver *saver, const char *which, const char *host,
		    const struct xp_op_db *db);
/* SAVER's rows as STATE's table op_rows; STATE's table frees SAVER. */
void xp_op_rows_state(struct xp_result *state, struct xp_op_rows_saver *saver);
/* Host SH's database WHICH as it was saved (rows in the saved order); NULL when the state does not read back. */
struct xp_op_db *xp_op_db_from_state(const struct xp_state_host *sh, const char *which);

/* The tables of packed op databases: DBS, their totals (op_dbs' columns); TEXTS, each host's distinct texts; ROWS,
 * their rows, one packed text each (opdb_state.c says how). */
struct xp_packed_tables {
	const char *dbs, *texts, *rows;
};
/* DBS[k], host HOSTS[k]'s database of kind WHICH (k < N), as the packed tables NAMES of STATE. The rows are
 * packed into one text now and made into cells only when written, one at a time (a device op DB has a row per op
 * and kernel: 122,092 on a 64 MB diverse capture); DBS are not kept. */
void xp_op_dbs_state_packed(struct xp_result *state, const struct xp_packed_tables *names, const char *which,
			    const char *const *hosts, const struct xp_op_db *const *dbs, uint32_t n);
/* Host SH's database WHICH of the packed tables NAMES (rows in the saved order); NULL when they do not read back. */
struct xp_op_db *xp_op_db_from_packed_state(const struct xp_state_host *sh, const struct xp_packed_tables *names,
					    const char *which);

/* Every host's run environment (xp_run_env_host) as the table run_env of STATE. */
void xp_run_env_state(const struct xp_capture *c, struct xp_result *state);
/* Host SH's run environment; false when the state does not read back. */
bool xp_run_env_from_state(const struct xp_state_host *sh, struct xp_run_env *e);

#endif
