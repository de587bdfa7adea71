/* trace_json_event.h - one traceEvents element lexed: the members the mapping uses, as spans into the window. */
#ifndef XPSTAT_TRACE_JSON_EVENT_H
#define XPSTAT_TRACE_JSON_EVENT_H

#include "json_lex.h"

struct ev {
	const uint8_t *at;
	size_t members;
	struct jval ph, name, cat, pid, tid, ts, dur, id, id2, args;
	size_t na;              /* args members in av[0..na) when args is an object */
	const struct jarg *av;
	bool ts_done, dur_done; /* ts_ps / dur_ps hold the value, converted while lexing */
	__int128 ts_ps, dur_ps;
};

/* Room for the members of an element's args, reused from element to element. */
struct tj_args {
	struct jarg *v;
	size_t cap;
};

/* One traceEvents element; *pp at its first byte, left past it. J_MORE: lex it again once the
 * window has more text. e->av points into a. */
int tj_lex_event(const struct jlex *lx, const uint8_t **pp, struct tj_args *a, struct ev *e);

#endif
