/* report.c - every analysis of one capture from one preparation, in a fixed order (`xpstat report`). */
#include "report.h"
#include "registry.h"
#include "analyzers/db/prepstate.h"
#include "analyzers/db/table_state.h"
#include "analyzers/db/shared.h"
#include "analyzers/prepare/prepare.h"
#include "formats/core/xalloc.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
/* A sanitizer's allocator stands in for glibc's, whose malloc_trim would then walk an arena never set up. */
#if defined(__SANITIZE_ADDRESS__)
#define XP_HEAP_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define XP_HEAP_OWN_ALLOCATOR 1
#endif
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each analysis runs on the same capture and the same preparation (one
 * decode, one xp_prepare). Every table is complete (no top-N cut: overview
 * keeps every device op, kernel-stats and tf-stats every row, memory the
 * allocations at each peak), so a saved report carries what a later check,
 * compare or combine needs; text still shows only the first rows.
 *
 * The analyses only read the capture and the preparation, so they run side
 * by side on o->threads threads: those that need only the capture start
 * while the preparation is still being made, the others as soon as it is
 * there. Results are put in report order afterwards, so the output is the
 * same whatever the number of threads.
 *
 * Adding an analysis: its descriptor (analysis.h) and one line in registry.c.
 */

/* The analyses run in registry order (registry.c). */
#define sections xp_analyses
#define N_SECTIONS XP_N_ANALYSES

const char *xp_report_command(size_t i)
{
	return i < N_SECTIONS ? sections[i]->name : NULL;
}

static bool wanted(const char *command, const char *const *only)
{
	if (!only)
		return true;
	for (; *only; only++)
		if (!strcmp(*only, command))
			return true;
	return false;
}

/* --- running the analyses side by side ------------------------------------------------------------ */

/* The tasks: the sections, and one that builds the shared inputs while the preparation is being made
 * (overview and input-pipeline need them after it, on the critical path). */
#define WARM_SHARED N_SECTIONS
#define N_TASKS (N_SECTIONS + 1)

struct pool {
	const struct xp_capture *c;
	const struct xp_report_opts *o;
	struct xp_shared *s;
	const struct xp_prep *p;        /* NULL until its groups are in place */
	bool groups_done;               /* p's group ids are final (its step databases may still be under way) */
	bool prep_done;                 /* made, or failed (then p stays NULL) */
	bool started[N_TASKS];          /* taken by a thread (or not wanted) */
	struct xp_result *r[N_SECTIONS];
	struct xp_result *st[N_SECTIONS];       /* each analysis' own state tables (combine) */
	pthread_mutex_t lock;
	pthread_cond_t ready;
};

static enum xp_needs task_needs(size_t i)
{
	return i < N_SECTIONS ? sections[i]->needs : XP_NEEDS_CAPTURE;
}

static bool task_waits(const struct pool *pl, size_t i)
{
	switch (task_needs(i)) {
	case XP_NEEDS_GROUPS: return !pl->groups_done && !pl->prep_done;
	case XP_NEEDS_PREP: return !pl->prep_done;
	default: return false;
	}
}

/* The next task this thread may run (the shared inputs first), or N_TASKS when none is left; waits for
 * the preparation. *P gets the preparation for an analysis that needs it (read under the lock), else NULL. */
static size_t take(struct pool *pl, bool wait, const struct xp_prep **p)
{
	pthread_mutex_lock(&pl->lock);
	for (;;) {
		bool pending = false;
		for (size_t k = 0; k < N_TASKS; k++) {
			size_t i = k == 0 ? WARM_SHARED : k - 1;
			if (pl->started[i])
				continue;
			if (task_waits(pl, i)) {
				pending = true;
				continue;
			}
			pl->started[i] = true;
			*p = task_needs(i) != XP_NEEDS_CAPTURE ? pl->p : NULL;
			pthread_mutex_unlock(&pl->lock);
			return i;
		}
		if (!pending || !wait)
			break;
		pthread_cond_wait(&pl->ready, &pl->lock);
	}
	pthread_mutex_unlock(&pl->lock);
	return N_TASKS;
}

/* An analysis frees large temporaries (sorting buffers, op databases it folded into others) in the middle of
 * the heap, where the next analysis, on another thread's arena, would reuse only part of them: the free pages
 * go back to the system while the results held for writing stay. */
static void give_back_heap(void)
{
#if defined(__GLIBC__) && !defined(XP_HEAP_OWN_ALLOCATOR)
	malloc_trim(0);
#endif
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	const struct xp_prep *p;
	size_t i;
	/* A failed preparation leaves its analyses out; the caller reports the error. Each thread writes
	 * only its own slots of pl->r, read after the joins. */
	while ((i = take(pl, true, &p)) < N_TASKS) {
		if (i == WARM_SHARED) {
			xp_shared_input_host_db(pl->s);
			xp_shared_tfdata(pl->s);
		} else if (sections[i]->needs == XP_NEEDS_CAPTURE || p) {
			struct xp_run_in in = {.c = pl->c, .p = p, .s = pl->s, .opts = pl->o->opts[i],
					       .xprof_compat = pl->o->xprof_compat, .state = pl->st[i]};
			pl->r[i] = sections[i]->run(&in);
			give_back_heap();
		}
	}
	return NULL;
}

/* xp_prepare's hook: the analyses that need only group ids may start. */
static void groups_ready(const struct xp_prep *p, void *arg)
{
	struct pool *pl = arg;
	pthread_mutex_lock(&pl->lock);
	pl->p = p;
	pl->groups_done = true;
	pthread_cond_broadcast(&pl->ready);
	pthread_mutex_unlock(&pl->lock);
}

/* FROM's tables appended to INTO's; FROM is freed. */
static void take_tables(struct xp_result *into, struct xp_result *from)
{
	for (size_t k = 0; k < from->n_tables; k++) {
		if (into->n_tables == into->cap_tables) {
			into->cap_tables = into->cap_tables ? into->cap_tables * 2 : 4;
			into->tables = xrealloc(into->tables, into->cap_tables * sizeof *into->tables);
		}
		into->tables[into->n_tables++] = from->tables[k];
	}
	from->n_tables = 0;
	xp_result_free(from);
}

struct xp_report *xp_report_run(const struct xp_capture *c, const struct xp_prep_opts *po,
				const struct xp_report_opts *o, const char *const *only, struct xp_err *e)
{
	struct pool pl = {.c = c, .o = o, .s = xp_shared_new(c)};
	size_t n = 0;
	bool need_prep = false;
	for (size_t i = 0; i < N_SECTIONS; i++) {
		/* No state unless it is written: it costs time and memory in proportion to the rows. */
		pl.st[i] = o->state ? xp_result_new("state") : NULL;
		pl.started[i] = !wanted(sections[i]->name, only);
		n += !pl.started[i];
		need_prep |= !pl.started[i] && sections[i]->needs != XP_NEEDS_CAPTURE;
	}
	/* Only overview and input-pipeline read both shared inputs (tf-data builds its own share when asked). */
	pl.started[WARM_SHARED] = !wanted("overview", only) && !wanted("input-pipeline", only);
	size_t threads = o->threads > 1 ? (size_t)o->threads : 1;
	if (threads > n)
		threads = n ? n : 1;
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.ready, NULL);
	pthread_t tid[N_SECTIONS];
	size_t helpers = 0;
	for (size_t t = 1; t < threads; t++)
		if (!pthread_create(&tid[helpers], NULL, worker, &pl))
			helpers++;
	/* This thread makes the preparation (helpers run capture-only analyses meanwhile, and memory once
	 * the group ids are in place), then works too. */
	struct xp_prep_opts with_hook = *po;
	with_hook.groups_ready = groups_ready;
	with_hook.groups_arg = &pl;
	struct xp_prep *p = need_prep ? xp_prepare(c, &with_hook, e) : NULL;
	if (p)
		p->shared = pl.s;
	pthread_mutex_lock(&pl.lock);
	pl.p = p;
	pl.prep_done = true;
	pthread_cond_broadcast(&pl.ready);
	pthread_mutex_unlock(&pl.lock);
	worker(&pl);
	for (size_t t = 0; t < helpers; t++)
		pthread_join(tid[t], NULL);
	pthread_cond_destroy(&pl.ready);
	pthread_mutex_destroy(&pl.lock);
	xp_shared_free(pl.s);
	if (need_prep && !p) {
		for (size_t i = 0; i < N_SECTIONS; i++) {
			xp_result_free(pl.r[i]);
			xp_result_free(pl.st[i]);
		}
		return NULL;
	}
	struct xp_report *rep = xp_report_new("");
	for (size_t i = 0; i < N_SECTIONS; i++)
		if (pl.r[i]) {
			xp_result_set_semantics(pl.r[i], xp_capture_semantics(c));
			xp_report_add(rep, sections[i]->name, pl.r[i]);
		}
	/* What combine rebuilds the cross-host tables from (written in saved reports only): the step databases,
	 * then each analysis' own tables in report order. */
	if (o->state) {
		rep->state = p && !p->opts.groups_only ? xp_prep_state(p) : xp_result_new("state");
		for (size_t i = 0; i < N_SECTIONS; i++)
			take_tables(rep->state, pl.st[i]);
		/* Each host's row count of each table, for combine to refuse a state with a row lost or doubled. */
		xp_state_count_rows(rep->state);
	}
	if (p)
		xp_prep_free(p);
	return rep;
}
