/* tfdata_state.h - the tf.data model in a saved report's state (each host's pipelines, calls and slowest-call iterators), and back (combine). */
#ifndef XPSTAT_TFDATA_STATE_H
#define XPSTAT_TFDATA_STATE_H

#include "tfdata.h"
#include "prepstate.h"

/* The state tables they are. */
#define XP_TFDATA_STATE_TABLES "tfdata_hosts", "tfdata_pipelines", "tfdata_calls", "tfdata_iterators"
/* T's hosts as the tables above of STATE. */
void xp_tfdata_state(const struct xp_tfdata *t, struct xp_result *state);
/* The model of the N hosts (host h: hosts[h], named as there) as xp_tfdata_build makes it of their captures;
 * its texts point into the states. NULL with E set (exit 3) when a state does not read back. */
struct xp_tfdata *xp_tfdata_from_state(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e);

#endif
