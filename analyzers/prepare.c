/* prepare.c - the shared preparation of every host: grouping, then the step database; reused by every analyzer. */
#include "group.h"
#include "../formats/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Point each non-derived line's group array into the grouping output. */
static void attach_groups(struct xp_prep_host *ph, struct xp_group_out *g)
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
	g->gid = NULL;
}

static int prepare_host(const struct xp_capture *c, struct xp_prep_host *ph, const struct xp_prep_opts *o,
			char *errmsg, size_t errlen)
{
	struct xp_group_out g = {0};
	bool markers = o->step_marker != NULL;
	xp_group_host(c, ph, markers, &g);
	int rc = 0;
	if (markers)
		rc = xp_stepdb_from_marker(c, ph, o, &g, errmsg, errlen);
	else
		xp_stepdb_from_groups(c, ph, o, &g);
	attach_groups(ph, &g);
	xp_group_out_free(&g);
	return rc;
}

struct xp_prep *xp_prepare(const struct xp_capture *c, const struct xp_prep_opts *o, char *errmsg, size_t errlen)
{
	struct xp_prep *p = xcalloc(1, sizeof *p);
	p->cap = c;
	if (o)
		p->opts = *o;
	p->n_hosts = c->n_hosts;
	p->hosts = xcalloc(c->n_hosts, sizeof *p->hosts);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		p->hosts[h].host = &c->hosts[h];
		if (prepare_host(c, &p->hosts[h], &p->opts, errmsg, errlen)) {
			xp_prep_free(p);
			return NULL;
		}
	}
	return p;
}

void xp_prep_free(struct xp_prep *p)
{
	if (!p)
		return;
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct xp_prep_host *ph = &p->hosts[h];
		if (ph->planes)
			for (uint32_t k = 0; k < ph->host->n_planes; k++)
				free(ph->planes[k].lines);
		free(ph->planes);
		for (uint32_t g = 0; g < ph->n_groups; g++)
			free(ph->group_names[g]);
		free(ph->group_names);
		for (size_t s = 0; s < ph->steps.n; s++)
			free(ph->steps.steps[s].name);
		free(ph->steps.steps);
		free(ph->group_ids);
	}
	free(p->hosts);
	free(p);
}
