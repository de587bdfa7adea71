/* xsbuild.c - XSpace test-capture builder on protobuf-c generated structs (see xsbuild.h). */
#include "xsbuild.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/in/xplane_read.h"
#include "xplane.pb-c.h"

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;
typedef Tensorflow__Profiler__XStatMetadata XStatMetadata;
typedef Tensorflow__Profiler__XPlane__EventMetadataEntry EventMetaEntry;
typedef Tensorflow__Profiler__XPlane__StatMetadataEntry StatMetaEntry;

/* Builder-side bookkeeping of one event; the XEvent itself lives in its XLine. */
struct xsb_ev {
	XEvent *pb;
	int line;
	uint64_t pos;   /* index in the line after packing */
};

struct xsb_plane {
	XPlane *pb;
	struct xsb_ev *evs;
	size_t n_evs;
	/* Event metadata by name: 1 + its index, open addressing. Tests make planes of 70,000 names, which a
	 * scan per name made quadratic (minutes under the sanitizers). */
	size_t *mslot, mcap;
};

struct xsb {
	XSpace *space;
	struct xsb_plane *planes;
	size_t n_planes;
	bool keep_order;
};

/* ---- small helpers ---- */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("xsbuild: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		die("out of memory");
	return d;
}

/* Append one pointer to a malloc'd array of pointers counted by *n. */
static void push_ptr(void ***arr, size_t *n, void *p)
{
	void **v = *arr;
	/* Room doubles at powers of two: a copy per push made 70,000 pushes quadratic where realloc moves
	 * (always, under the sanitizers). */
	if (!(*n & (*n - 1)) && !(v = realloc(*arr, (*n ? 2 * *n : 1) * sizeof *v)))
		die("out of memory");
	v[(*n)++] = p;
	*arr = v;
}

static struct xsb_plane *plane_at(const struct xsb *b, int plane)
{
	if (plane < 0 || (size_t)plane >= b->n_planes)
		die("no plane %d", plane);
	return &b->planes[plane];
}

static struct xsb_ev *event_at(const struct xsb *b, int plane, int ev)
{
	struct xsb_plane *pl = plane_at(b, plane);
	if (ev < 0 || (size_t)ev >= pl->n_evs)
		die("no event %d in plane %d", ev, plane);
	return &pl->evs[ev];
}

/* ---- lifecycle and XSpace fields ---- */

struct xsb *xsb_new(void)
{
	struct xsb *b = xzalloc(sizeof *b);
	b->space = xzalloc(sizeof *b->space);
	tensorflow__profiler__xspace__init(b->space);
	return b;
}

void xsb_free(struct xsb *b)
{
	if (!b)
		return;
	/* Everything hanging off the XSpace was malloc'd: protobuf-c frees it. */
	tensorflow__profiler__xspace__free_unpacked(b->space, NULL);
	for (size_t i = 0; i < b->n_planes; i++) {
		free(b->planes[i].evs);
		free(b->planes[i].mslot);
	}
	free(b->planes);
	free(b);
}

void xsb_hostname(struct xsb *b, const char *name)
{
	push_ptr((void ***)&b->space->hostnames, &b->space->n_hostnames, xstrdup(name));
}

void xsb_error(struct xsb *b, const char *msg)
{
	push_ptr((void ***)&b->space->errors, &b->space->n_errors, xstrdup(msg));
}

void xsb_warning(struct xsb *b, const char *msg)
{
	push_ptr((void ***)&b->space->warnings, &b->space->n_warnings, xstrdup(msg));
}

void xsb_keep_order(struct xsb *b)
{
	b->keep_order = true;
}

/* ---- structure ---- */

int xsb_plane(struct xsb *b, const char *name, int64_t id)
{
	XPlane *p = xzalloc(sizeof *p);
	tensorflow__profiler__xplane__init(p);
	p->id = id;
	p->name = xstrdup(name);
	push_ptr((void ***)&b->space->planes, &b->space->n_planes, p);
	struct xsb_plane *v = realloc(b->planes, (b->n_planes + 1) * sizeof *v);
	if (!v)
		die("out of memory");
	b->planes = v;
	b->planes[b->n_planes] = (struct xsb_plane){.pb = p};
	return (int)b->n_planes++;
}

int xsb_line(struct xsb *b, int plane, int64_t id, const char *name, int64_t timestamp_ns)
{
	XPlane *p = plane_at(b, plane)->pb;
	XLine *l = xzalloc(sizeof *l);
	tensorflow__profiler__xline__init(l);
	l->id = id;
	l->display_id = id;
	l->name = xstrdup(name);
	l->timestamp_ns = timestamp_ns;
	push_ptr((void ***)&p->lines, &p->n_lines, l);
	return (int)p->n_lines - 1;
}

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The slot of event metadata NAME in PL's index: its entry, or the empty slot where it goes. */
static size_t *meta_slot(struct xsb_plane *pl, const char *name)
{
	XPlane *p = pl->pb;
	if ((p->n_event_metadata + 1) * 2 > pl->mcap) {
		free(pl->mslot);
		pl->mcap = pl->mcap ? pl->mcap * 2 : 64;
		pl->mslot = xzalloc(pl->mcap * sizeof *pl->mslot);
		for (size_t i = 0; i < p->n_event_metadata; i++) {
			size_t k = name_hash(p->event_metadata[i]->value->name) & (pl->mcap - 1);
			while (pl->mslot[k])
				k = (k + 1) & (pl->mcap - 1);
			pl->mslot[k] = i + 1;
		}
	}
	size_t k = name_hash(name) & (pl->mcap - 1);
	while (pl->mslot[k] && strcmp(p->event_metadata[pl->mslot[k] - 1]->value->name, name))
		k = (k + 1) & (pl->mcap - 1);
	return &pl->mslot[k];
}

int64_t xsb_meta(struct xsb *b, int plane, const char *name)
{
	struct xsb_plane *pl = plane_at(b, plane);
	XPlane *p = pl->pb;
	size_t *slot = meta_slot(pl, name);
	if (*slot)
		return p->event_metadata[*slot - 1]->key;
	*slot = p->n_event_metadata + 1;
	XEventMetadata *m = xzalloc(sizeof *m);
	tensorflow__profiler__xevent_metadata__init(m);
	m->id = (int64_t)p->n_event_metadata + 1;
	m->name = xstrdup(name);
	EventMetaEntry *e = xzalloc(sizeof *e);
	tensorflow__profiler__xplane__event_metadata_entry__init(e);
	e->key = m->id;
	e->value = m;
	push_ptr((void ***)&p->event_metadata, &p->n_event_metadata, e);
	return m->id;
}

int64_t xsb_stat_meta(struct xsb *b, int plane, const char *name)
{
	XPlane *p = plane_at(b, plane)->pb;
	for (size_t i = 0; i < p->n_stat_metadata; i++)
		if (!strcmp(p->stat_metadata[i]->value->name, name))
			return p->stat_metadata[i]->key;
	XStatMetadata *m = xzalloc(sizeof *m);
	tensorflow__profiler__xstat_metadata__init(m);
	m->id = (int64_t)p->n_stat_metadata + 1;
	m->name = xstrdup(name);
	StatMetaEntry *e = xzalloc(sizeof *e);
	tensorflow__profiler__xplane__stat_metadata_entry__init(e);
	e->key = m->id;
	e->value = m;
	push_ptr((void ***)&p->stat_metadata, &p->n_stat_metadata, e);
	return m->id;
}

int xsb_event(struct xsb *b, int plane, int line, const char *name, int64_t offset_ps, int64_t dur_ps)
{
	struct xsb_plane *pl = plane_at(b, plane);
	if (line < 0 || (size_t)line >= pl->pb->n_lines)
		die("no line %d in plane %d", line, plane);
	XEvent *e = xzalloc(sizeof *e);
	tensorflow__profiler__xevent__init(e);
	e->metadata_id = xsb_meta(b, plane, name);
	e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
	e->offset_ps = offset_ps;
	e->duration_ps = dur_ps;
	XLine *l = pl->pb->lines[line];
	push_ptr((void ***)&l->events, &l->n_events, e);
	struct xsb_ev *v = pl->evs;
	if (!(pl->n_evs & (pl->n_evs - 1)) && !(v = realloc(pl->evs, (pl->n_evs ? 2 * pl->n_evs : 1) * sizeof *v)))
		die("out of memory");
	pl->evs = v;
	pl->evs[pl->n_evs] = (struct xsb_ev){.pb = e, .line = line, .pos = l->n_events - 1};
	return (int)pl->n_evs++;
}

/* ---- stats ---- */

/* A new stat named `stat` appended to the list (*n, *v) of a plane's object. */
static XStat *new_stat(struct xsb *b, int plane, size_t *n, XStat ***v, const char *stat)
{
	XStat *s = xzalloc(sizeof *s);
	tensorflow__profiler__xstat__init(s);
	s->metadata_id = xsb_stat_meta(b, plane, stat);
	push_ptr((void ***)v, n, s);
	return s;
}

static XStat *event_stat(struct xsb *b, int plane, int ev, const char *stat)
{
	XEvent *e = event_at(b, plane, ev)->pb;
	return new_stat(b, plane, &e->n_stats, &e->stats, stat);
}

static XStat *plane_stat(struct xsb *b, int plane, const char *stat)
{
	XPlane *p = plane_at(b, plane)->pb;
	return new_stat(b, plane, &p->n_stats, &p->stats, stat);
}

static XStat *meta_stat(struct xsb *b, int plane, const char *event_name, const char *stat)
{
	int64_t id = xsb_meta(b, plane, event_name);
	XPlane *p = plane_at(b, plane)->pb;
	XEventMetadata *m = p->event_metadata[id - 1]->value;
	return new_stat(b, plane, &m->n_stats, &m->stats, stat);
}

static void set_int(XStat *s, int64_t v)
{
	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
	s->int64_value = v;
}

static void set_uint(XStat *s, uint64_t v)
{
	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
	s->uint64_value = v;
}

static void set_double(XStat *s, double v)
{
	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
	s->double_value = v;
}

static void set_str(XStat *s, const char *v)
{
	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
	s->str_value = xstrdup(v);
}

void xsb_stat_int(struct xsb *b, int plane, int ev, const char *stat, int64_t v)
{
	set_int(event_stat(b, plane, ev, stat), v);
}

void xsb_stat_uint(struct xsb *b, int plane, int ev, const char *stat, uint64_t v)
{
	set_uint(event_stat(b, plane, ev, stat), v);
}

void xsb_stat_double(struct xsb *b, int plane, int ev, const char *stat, double v)
{
	set_double(event_stat(b, plane, ev, stat), v);
}

void xsb_stat_str(struct xsb *b, int plane, int ev, const char *stat, const char *v)
{
	set_str(event_stat(b, plane, ev, stat), v);
}

void xsb_stat_ref(struct xsb *b, int plane, int ev, const char *stat, const char *v)
{
	XStat *s = event_stat(b, plane, ev, stat);
	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE;
	s->ref_value = (uint64_t)xsb_stat_meta(b, plane, v);
}

void xsb_stat_bytes(struct xsb *b, int plane, int ev, const char *stat, const void *v, size_t len)
{
	XStat *s = event_stat(b, plane, ev, stat);
	s->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE;
	s->bytes_value.data = xzalloc(len);
	if (len)
		memcpy(s->bytes_value.data, v, len);
	s->bytes_value.len = len;
}

void xsb_plane_stat_int(struct xsb *b, int plane, const char *stat, int64_t v)
{
	set_int(plane_stat(b, plane, stat), v);
}

void xsb_plane_stat_uint(struct xsb *b, int plane, const char *stat, uint64_t v)
{
	set_uint(plane_stat(b, plane, stat), v);
}

void xsb_plane_stat_double(struct xsb *b, int plane, const char *stat, double v)
{
	set_double(plane_stat(b, plane, stat), v);
}

void xsb_plane_stat_str(struct xsb *b, int plane, const char *stat, const char *v)
{
	set_str(plane_stat(b, plane, stat), v);
}

void xsb_meta_stat_int(struct xsb *b, int plane, const char *event_name, const char *stat, int64_t v)
{
	set_int(meta_stat(b, plane, event_name, stat), v);
}

void xsb_meta_stat_str(struct xsb *b, int plane, const char *event_name, const char *stat, const char *v)
{
	set_str(meta_stat(b, plane, event_name, stat), v);
}

/* ---- packing ---- */

/* Sort key of one event of a line: the writers' order, then insertion order. */
struct sort_item {
	int64_t offset, dur;
	size_t ev;      /* index in the plane's evs */
};

static int cmp_item(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Put the events of one line in order and record each event's position. */
static void order_line(struct xsb_plane *pl, int line, bool keep_order)
{
	XLine *l = pl->pb->lines[line];
	struct sort_item *items = xzalloc(l->n_events * sizeof *items);
	size_t k = 0;
	for (size_t i = 0; i < pl->n_evs; i++)
		if (pl->evs[i].line == line)
			items[k++] = (struct sort_item){pl->evs[i].pb->offset_ps, pl->evs[i].pb->duration_ps, i};
	if (!keep_order)
		qsort(items, k, sizeof *items, cmp_item);
	for (size_t j = 0; j < k; j++) {
		l->events[j] = pl->evs[items[j].ev].pb;
		pl->evs[items[j].ev].pos = j;
	}
	free(items);
}

uint8_t *xsb_pack(struct xsb *b, size_t *len)
{
	for (size_t p = 0; p < b->n_planes; p++)
		for (size_t l = 0; l < b->planes[p].pb->n_lines; l++)
			order_line(&b->planes[p], (int)l, b->keep_order);
	size_t n = tensorflow__profiler__xspace__get_packed_size(b->space);
	uint8_t *buf = xzalloc(n);
	if (tensorflow__profiler__xspace__pack(b->space, buf) != n)
		die("pack wrote an unexpected size");
	*len = n;
	return buf;
}

static void read_one(struct xp_capture *c, struct xsb *b, const char *path)
{
	size_t len;
	uint8_t *buf = xsb_pack(b, &len);
	struct xp_read_opts ro = {.threads = 1};
	struct xp_err err;
	memset(&err, 0, sizeof err);
	if (xp_read_xspace(c, path, buf, len, &ro, &err))
		die("%s: xp_read_xspace failed: %s", path, err.msg);
	free(buf);
}

struct xp_capture *xsb_read(struct xsb *b)
{
	struct xp_capture *c = xp_capture_new();
	read_one(c, b, "test.xplane.pb");
	return c;
}

struct xp_capture *xsb_read_hosts(struct xsb *const *bs, size_t n)
{
	struct xp_capture *c = xp_capture_new();
	for (size_t i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof path, "host%zu.xplane.pb", i);
		read_one(c, bs[i], path);
	}
	return c;
}

/* ---- where events landed ---- */

uint64_t xsb_event_index(const struct xsb *b, int plane, int ev)
{
	return event_at(b, plane, ev)->pos;
}

int64_t xsb_event_line_id(const struct xsb *b, int plane, int ev)
{
	const struct xsb_ev *e = event_at(b, plane, ev);
	return plane_at(b, plane)->pb->lines[e->line]->id;
}

const char *xsb_plane_name(const struct xsb *b, int plane)
{
	return plane_at(b, plane)->pb->name;
}
