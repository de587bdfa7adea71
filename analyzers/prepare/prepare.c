/* prepare.c - the shared preparation of every host: grouping, then the step database; reused by every analyzer. */
#include "prepare.h"
#include "group.h"
#include "formats/core/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Point each non-derived line's group array into the grouping output, which keeps using it for the
 * step database; the host owns it from here. */
static void attach_groups(struct xp_prep_host *ph, const struct xp_group_out *g)
{
	const struct xp_host *h = ph->host;
	ph->planes = xcalloc(h->n_planes, sizeof *ph->planes);
	for (uint32_t p = 0; p < h->n_planes; p++)
		ph->planes[p].lines = xcalloc(h->planes[p].n_lines, sizeof *ph->planes[p].lines);
	for (uint32_t k = 0; k < g->n_flines; k++) {
		uint32_t line, base;
		uint32_t plane = xp_group_fline_plane(g, k, &line, &base);
		ph->planes[plane].lines[line].group = g->gid + base;
	}
	ph->group_ids = g->gid;
}

static void group_out_free(struct xp_group_out *g)
{
	g->gid = NULL; /* the host's (attach_groups) */
	xp_group_out_free(g);
}

static int step_db(const struct xp_capture *c, struct xp_prep_host *ph, const struct xp_prep_opts *o,
		   struct xp_group_out *g, struct xp_err *e)
{
	int rc = 0;
	if (o->step_marker)
		rc = xp_stepdb_from_marker(c, ph, o, g, e);
	else if (xp_host_is_pytorch(ph->host) && !o->groups_only)
		xp_stepdb_pytorch(c, ph);
	else
		xp_stepdb_from_groups(c, ph, o, g);
	group_out_free(g);
	return rc;
}

/* --- the steps view ---------------------------------------------------------------- */

struct xp_steps_hold {
	pthread_mutex_t lock;
	struct xp_steps_view *view;     /* NULL until asked for */
};

struct xp_steps_hold *xp_steps_hold_new(void)
{
	struct xp_steps_hold *h = xcalloc(1, sizeof *h);
	pthread_mutex_init(&h->lock, NULL);
	return h;
}

static struct xp_steps_view *view_new(const struct xp_prep *p)
{
	struct xp_steps_view *v = xcalloc(1, sizeof *v);
	v->n_hosts = p->n_hosts;
	v->hosts = xcalloc(p->n_hosts ? p->n_hosts : 1, sizeof *v->hosts);
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		const char *name = p->hosts[h].host->name;
		size_t len = strlen(name);
		v->hosts[h].name = memcpy(xmalloc(len + 1), name, len + 1);
		v->hosts[h].steps = p->hosts[h].steps.steps;
		v->hosts[h].n = p->hosts[h].steps.n;
	}
	v->refs = 1;    /* the preparation's */
	return v;
}

struct xp_steps_view *xp_prep_steps_view(const struct xp_prep *p)
{
	struct xp_steps_hold *h = p->steps_hold;
	if (!h)
		xp_die("internal error: a preparation without its steps holder");
	pthread_mutex_lock(&h->lock);
	if (!h->view)
		h->view = view_new(p);
	struct xp_steps_view *v = h->view;
	__atomic_add_fetch(&v->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&h->lock);
	return v;
}

void xp_steps_view_unref(struct xp_steps_view *v)
{
	if (!v || __atomic_sub_fetch(&v->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (uint32_t h = 0; h < v->n_hosts; h++) {
		for (size_t s = 0; s < v->hosts[h].n; s++)
			xp_step_release((struct xp_step *)&v->hosts[h].steps[s]);
		free((void *)v->hosts[h].steps);
		free(v->hosts[h].name);
	}
	free(v->hosts);
	free(v);
}

struct xp_prep *xp_prepare(const struct xp_capture *c, const struct xp_prep_opts *o, struct xp_err *e)
{
	struct xp_prep *p = xcalloc(1, sizeof *p);
	p->cap = c;
	p->steps_hold = xp_steps_hold_new();
	if (o)
		p->opts = *o;
	p->n_hosts = c->n_hosts;
	p->hosts = xcalloc(c->n_hosts, sizeof *p->hosts);
	/* Every host's groups, then every host's step database: group ids are final before the latter. */
	struct xp_group_out *g = xcalloc(c->n_hosts + 1, sizeof *g);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		p->hosts[h].host = &c->hosts[h];
		xp_group_host(c, &p->hosts[h], p->opts.step_marker != NULL || p->opts.no_groups, &g[h]);
		attach_groups(&p->hosts[h], &g[h]);
	}
	if (p->opts.groups_ready && !p->opts.step_marker)
		p->opts.groups_ready(p, p->opts.groups_arg);
	int rc = 0;
	for (uint32_t h = 0; h < c->n_hosts; h++)
		if (rc)
			group_out_free(&g[h]);
		else
			rc = step_db(c, &p->hosts[h], &p->opts, &g[h], e);
	free(g);
	if (rc) {
		xp_prep_free(p);
		return NULL;
	}
	return p;
}

bool xp_prep_pytorch(const struct xp_prep *p)
{
	for (uint32_t h = 0; p && h < p->n_hosts; h++)
		if (p->hosts[h].steps.pytorch)
			return true;
	return false;
}

void xp_prep_free(struct xp_prep *p)
{
	if (!p)
		return;
	bool viewed = p->steps_hold && p->steps_hold->view;
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct xp_prep_host *ph = &p->hosts[h];
		if (ph->planes)
			for (uint32_t k = 0; k < ph->host->n_planes; k++)
				free(ph->planes[k].lines);
		free(ph->planes);
		xp_drop_group_names(ph);
		if (!viewed) {  /* else the view owns the steps */
			for (size_t s = 0; s < ph->steps.n; s++)
				xp_step_release(&ph->steps.steps[s]);
			free(ph->steps.steps);
		}
		free(ph->steps.dropped_why);
		free(ph->group_ids);
	}
	free(p->hosts);
	if (p->steps_hold) {
		xp_steps_view_unref(p->steps_hold->view);
		pthread_mutex_destroy(&p->steps_hold->lock);
		free(p->steps_hold);
	}
	free(p);
}
