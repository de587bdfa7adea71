/* mem_state.h - the memory profile's figures in a saved report's state (allocators at their peaks, the breakdown rows, PyTorch's devices), and back (combine). */
#ifndef XPSTAT_MEM_STATE_H
#define XPSTAT_MEM_STATE_H

#include "profile.h"
#include "analyzers/db/prepstate.h"

/* The state tables they are. */
#define XP_MEM_STATE_TABLES "mem_hosts", "mem_allocators", "mem_breakdown", "mem_pt_devices"
/* M's hosts, selected allocators, their breakdown rows and PyTorch devices as the tables above of STATE. */
void xp_mem_state(const struct mem *m, struct xp_result *state);
/* M as the memory analysis leaves it of the hosts of P (host h: hosts[h]), every allocator selected, for
 * mem_result (options: zeroes); SEMANTICS: the capture's rules. False with E set (exit 3) when a state does not read back.
 * Free with xp_mem_state_free. */
bool xp_mem_from_state(struct mem *m, const struct xp_prep *p, const struct xp_state_host *hosts,
		       const char *semantics, struct xp_err *e);
void xp_mem_state_free(struct mem *m);

#endif
