/* trace_json_finish.h - the staged trace events as the host's planes and lines. */
#ifndef XPSTAT_TRACE_JSON_FINISH_H
#define XPSTAT_TRACE_JSON_FINISH_H

#include "trace_json_state.h"

/* The stat names plane stats use, numbered after every event's: -1 when there are too many. */
int tj_plane_stat_names(struct tj_stage *r);
/* The staged events as the planes and lines of N_HOSTS hosts (an xpstat export of several; else 1). */
void tj_finish(struct tj_stage *r, struct xp_host *hosts, uint32_t n_hosts);

#endif
