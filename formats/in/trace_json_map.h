/* trace_json_map.h - trace events onto the staging model: one lexed element, and the top-level values kept. */
#ifndef XPSTAT_TRACE_JSON_MAP_H
#define XPSTAT_TRACE_JSON_MAP_H

#include "trace_json_event.h"
#include "trace_json_state.h"

/* One lexed element into the staging model; -1 with the error set. */
int tj_commit(struct tj_stage *r, const struct ev *e);
/* A top-level member other than traceEvents: the few we use are kept. */
void tj_top_value(struct tj_stage *r, const uint8_t *k, size_t kn, const struct jval *v);

#endif
