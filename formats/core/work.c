/* work.c - the work counters (work.h): relaxed atomic sums, read by cmd/ at exit. */
#include "work.h"

static uint64_t counts[XP_WORK_N];
static const char *const names[XP_WORK_N] = {"json_lex", "planes", "saved", "match", "spread"};

_Thread_local uint64_t xp_work_steps;

void xp_work_flush(enum xp_work w)
{
	xp_work_add(w, xp_work_steps);
	xp_work_steps = 0;
}

void xp_work_add(enum xp_work w, uint64_t n)
{
	__atomic_fetch_add(&counts[w], n, __ATOMIC_RELAXED);
}

const char *xp_work_name(enum xp_work w)
{
	return names[w];
}

uint64_t xp_work_count(enum xp_work w)
{
	return __atomic_load_n(&counts[w], __ATOMIC_RELAXED);
}
