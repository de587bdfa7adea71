/* caputil.h - finding a builder's planes, lines and events again in a read capture (header-only helpers). */
#ifndef XPSTAT_TESTS_CAPUTIL_H
#define XPSTAT_TESTS_CAPUTIL_H

#include <stdint.h>
#include <string.h>

#include "formats/model/capture.h"
#include "xsbuild.h"

/* Index of the plane called `name` in host h, or -1. */
static inline int cap_plane(const struct xp_capture *c, uint32_t h, const char *name)
{
	const struct xp_host *host = &c->hosts[h];
	for (uint32_t i = 0; i < host->n_planes; i++)
		if (!strcmp(xp_str(c, host->planes[i].name), name))
			return (int)i;
	return -1;
}

/* Index of the line with id `id` in plane p of host h, or -1. */
static inline int cap_line(const struct xp_capture *c, uint32_t h, int p, int64_t id)
{
	if (p < 0)
		return -1;
	const struct xp_plane *pl = &c->hosts[h].planes[p];
	for (uint32_t i = 0; i < pl->n_lines; i++)
		if (pl->lines[i].id == id)
			return (int)i;
	return -1;
}

/* Where builder event `ev` of builder plane `bplane` sits in host h. */
struct cap_pos {
	int plane, line;
	uint64_t index;
	bool ok;
};

static inline struct cap_pos cap_find(const struct xp_capture *c, uint32_t h, const struct xsb *b, int bplane, int ev)
{
	struct cap_pos r = {-1, -1, 0, false};
	r.plane = cap_plane(c, h, xsb_plane_name(b, bplane));
	r.line = cap_line(c, h, r.plane, xsb_event_line_id(b, bplane, ev));
	r.index = xsb_event_index(b, bplane, ev);
	r.ok = r.line >= 0 && r.index < c->hosts[h].planes[r.plane].lines[r.line].n_events;
	return r;
}

#endif
