/* work.h - counters of the work done on input-sized loops, for tests that check cost grows no faster than n log n. */
#ifndef XPSTAT_WORK_H
#define XPSTAT_WORK_H

#include <stdint.h>

/*
 * Each counter counts the steps of one loop whose cost could grow faster
 * than its input: bytes lexed again after a refill, comparisons while
 * matching planes or rows. With XPSTAT_WORK set in the environment the
 * program (cmd/main.c) prints them on stderr at exit, one line each:
 *   xpstat-work: <name> <count>
 * A test doubles a pathological input and checks each count grows by at most
 * about 2x (never wall time). Cheap enough to stay on: callers add a local
 * sum once per loop, not once per step.
 */
enum xp_work {
	XP_WORK_JSON_LEX = 0,   /* trace JSON bytes handed to the lexer, again after each refill included */
	XP_WORK_PLANES,         /* XSpace plane steps (reading, duplicate names) */
	XP_WORK_SAVED,          /* saved-report cells and keys read back */
	XP_WORK_MATCH,          /* ops and rows compared while matching two reports */
	XP_WORK_SPREAD,         /* events passed over while step groups spread down their roots' lines */
	XP_WORK_N
};

void xp_work_add(enum xp_work w, uint64_t n);
/* A counter's name ("json_lex") and its count so far. */
const char *xp_work_name(enum xp_work w);
uint64_t xp_work_count(enum xp_work w);

/* Steps of the loop being counted on this thread (comparisons made by qsort,
 * hash probes), so that the count is the work done, not the items: a
 * quadratic pass would show. Moved into a counter by xp_work_flush. */
extern _Thread_local uint64_t xp_work_steps;
void xp_work_flush(enum xp_work w);

#endif
