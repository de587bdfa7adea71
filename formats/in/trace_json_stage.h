/* trace_json_stage.h - the staging model's operations: pid/tid keys, processes, threads, raw lines, host-wide metadata ids. */
#ifndef XPSTAT_TRACE_JSON_STAGE_H
#define XPSTAT_TRACE_JSON_STAGE_H

#include "trace_json_state.h"

void tj_stage_init(struct tj_stage *r, struct xp_capture *c, const char *const *drop_stats);
void tj_stage_free(struct tj_stage *r);
/* Forget the host names of an xpstat export's otherData. */
void tj_free_xpstat_hosts(struct tj_stage *r);

/* pid/tid: integers, and strings holding canonical integers, are one key. */
struct jkey tj_jkey_of(struct tj_stage *r, const struct jval *v);
/* The same, remembering the last text of the pid (slot 0) and tid (slot 1). */
struct jkey tj_jkey_cached(struct tj_stage *r, const struct jval *v, int slot);

uint32_t tj_get_proc(struct tj_stage *r, struct jkey pid);
struct tmeta *tj_get_tmeta(struct tj_stage *r, struct jkey pid, struct jkey tid);
uint32_t tj_get_line_slow(struct tj_stage *r, struct jkey pid, struct jkey tid, uint8_t route);

/* The raw line of (pid, tid, route), made when new; the last one found without hashing. */
static inline uint32_t tj_get_line(struct tj_stage *r, struct jkey pid, struct jkey tid, uint8_t route)
{
	struct key3 k = thread_key(pid, tid);
	k.c |= (uint64_t)route << 2;
	if (r->thr.have_last && key3_eq(&k, &r->thr.last_key))
		return r->thr.last_line;
	return tj_get_line_slow(r, pid, tid, route);
}
/* Append an event; its index in the line. */
uint64_t tj_line_append(struct rline *l, int64_t start, int64_t dur, uint32_t meta);
/* Its events and stats freed: an empty line. */
void tj_rline_free(struct rline *l);

/* Host-wide event metadata id of (name, display name). */
uint32_t tj_event_meta_slow(struct tj_stage *r, uint32_t name, uint32_t disp);

static inline uint32_t tj_event_meta(struct tj_stage *r, uint32_t name, uint32_t disp)
{
	const struct tj_meta *m = &r->meta;
	if (!disp && name < m->cap_em_by_str && m->em_by_str[name])
		return m->em_by_str[name];
	return tj_event_meta_slow(r, name, disp);
}
/* Host-wide stat metadata id of the stat called by string id sid; 0 with an internal error
 * (status 4) when there are more stat names than the model can number. */
uint32_t tj_stat_meta(struct tj_stage *r, uint32_t sid);
uint32_t tj_stat_named(struct tj_stage *r, const char *name);

#endif
