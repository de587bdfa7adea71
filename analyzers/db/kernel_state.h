/* kernel_state.h - the kernel report database in a saved report's state (each host's totals and reports), and back (combine). */
#ifndef XPSTAT_KERNEL_STATE_H
#define XPSTAT_KERNEL_STATE_H

#include "kernel_db.h"
#include "prepstate.h"

/* The state tables they are. */
#define XP_KERNEL_STATE_TABLES "kernel_hosts", "kernel_reports"
/* DB's hosts (named as in C) and reports as the tables kernel_hosts and kernel_reports of STATE; the reports are
 * made from DB when written, which STATE holds until freed (DB's order now is theirs, whatever sorts it later). */
void xp_kernel_db_state(struct xp_kernel_db *db, const struct xp_capture *c, struct xp_result *state);
/* The database of the N hosts (host h: hosts[h]) as reading their captures builds it, unsorted; NULL with E
 * set (exit 3) when a state does not read back. */
struct xp_kernel_db *xp_kernel_db_from_state(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e);

#endif
