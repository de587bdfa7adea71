/* xplane_meta.c - the XSpace reader's sequential step: the space, its planes, their metadata maps and plane stats. */
#include "xplane_host.h"
#include "xplane_read.h"
#include "formats/core/xalloc.h"
#include "input.h"

#include <stdlib.h>
#include <string.h>

void xpr_ranges_push(struct ranges *rs, const uint8_t *p, uint64_t len)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 16;
		rs->v = xrealloc(rs->v, rs->cap * sizeof *rs->v);
	}
	rs->v[rs->n].p = p;
	rs->v[rs->n].len = len;
	rs->n++;
}

/* The lead byte of a UTF-8 sequence: how many bytes follow, its bits and the smallest code point
 * that needs that many (anything shorter is an overlong form). False for a byte that cannot lead. */
static bool utf8_lead(uint8_t c, size_t *need, uint32_t *cp, uint32_t *min)
{
	if ((c & 0xe0) == 0xc0)
		*need = 1, *cp = c & 0x1f, *min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		*need = 2, *cp = c & 0x0f, *min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		*need = 3, *cp = c & 0x07, *min = 0x10000;
	else
		return false;
	return true;
}

static bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t need;
		uint32_t cp, min;
		if (!utf8_lead(s[i], &need, &cp, &min) || n - i <= need)
			return false;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

/* Interns a name, counting the ones that are not UTF-8 (they are kept, and escaped on output). */
uint32_t xpr_intern(struct host_reader *hr, const uint8_t *p, uint64_t len)
{
	if (!utf8_valid(p, len))
		hr->host->odd.invalid_utf8++;
	return xp_intern(&hr->cap->strings, (const char *)p, len);
}

/* --- metadata maps ---------------------------------------------------------- */

/* Map entry: the key and the value ranges (a value split over several fields merges). */
static int map_entry(struct reader *r, const uint8_t *p, const uint8_t *end, int64_t *key, struct ranges *vals)
{
	uint64_t k = 0;
	vals->n = 0;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == XPF_MAP_KEY) {
			if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, &p, end, &k))
				return -1;
		} else if (field == XPF_MAP_VALUE) {
			if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, &p, end, &body, &len))
				return -1;
			xpr_ranges_push(vals, body, len);
		} else if (xpr_skip_field(r, &p, end, wt)) {
			return -1;
		}
	}
	*key = (int64_t)k;
	return 0;
}

static int stat_meta_value(struct host_reader *hr, const uint8_t *p, const uint8_t *end, struct xp_stat_meta *sm)
{
	struct reader *r = &hr->r;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == XPF_SMETA_ID) {
			if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, &p, end, &v))
				return -1;
		} else if (field == XPF_SMETA_NAME || field == XPF_SMETA_DESCRIPTION) {
			if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, &p, end, &body, &v))
				return -1;
			if (field == XPF_SMETA_NAME)
				sm->name = xpr_intern(hr, body, v);
		} else {
			hr->host->odd.unknown_fields++;
			if (xpr_skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

/* child_id: packed (LEN) as proto3 writes it, or one varint per field; only counted. */
static int child_ids(struct reader *r, const uint8_t **pp, const uint8_t *end, unsigned wt, const uint8_t *at,
		     uint32_t *count)
{
	uint64_t v;
	if (wt == XP_WT_VARINT) {
		if (read_varint(r, pp, end, &v))
			return -1;
		(*count)++;
		return 0;
	}
	if (wt != XP_WT_LEN)
		return fail(r, at, "known field with the wrong wire type");
	const uint8_t *body;
	uint64_t len;
	if (read_len(r, pp, end, &body, &len))
		return -1;
	const uint8_t *q = body, *qend = body + len;
	while (q < qend) {
		if (read_varint(r, &q, qend, &v))
			return -1;
		(*count)++;
	}
	return 0;
}

/* A LEN field of XEventMetadata other than child_id: the names kept, metadata bytes skipped, stats decoded. */
static int event_meta_len(struct host_reader *hr, struct xp_plane *pl, struct stat_sink *sink, uint32_t field,
			  const uint8_t *body, uint64_t len, struct xp_event_meta *em)
{
	if (field == XPF_EMETA_NAME)
		em->name = xpr_intern(hr, body, len);
	else if (field == XPF_EMETA_DISPLAY_NAME)
		em->display_name = xpr_intern(hr, body, len);
	else if (field == XPF_EMETA_STATS) {
		if (xpr_decode_stat(&hr->r, body, body + len, sink))
			return -1;
		em->stat_end = pl->meta_stats.n;
	}
	return 0;
}

static int event_meta_value(struct host_reader *hr, struct xp_plane *pl, struct stat_sink *sink, const uint8_t *p,
			    const uint8_t *end, struct xp_event_meta *em)
{
	struct reader *r = &hr->r;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		switch (field) {
		case XPF_EMETA_ID:
			if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, &p, end, &v))
				return -1;
			break;
		case XPF_EMETA_NAME:
		case XPF_EMETA_METADATA:
		case XPF_EMETA_DISPLAY_NAME:
		case XPF_EMETA_STATS:
			if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, &p, end, &body, &v) ||
			    event_meta_len(hr, pl, sink, field, body, v, em))
				return -1;
			break;
		case XPF_EMETA_CHILD_ID:
			if (child_ids(r, &p, end, wt, at, &em->n_children))
				return -1;
			break;
		default:
			hr->host->odd.unknown_fields++;
			if (xpr_skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

/* Dense slots for map keys: slot 0 is "missing"; a repeated key reuses its
 * slot and the later entry replaces the earlier one. */
static uint32_t *assign_slots(struct host_reader *hr, const struct ranges *entries, struct xp_idmap *map,
			      uint32_t *n_slots)
{
	struct ranges vals = {0};
	int64_t *keys = xmalloc((entries->n + 1) * sizeof *keys);
	uint32_t *slot_of = xmalloc((entries->n + 1) * sizeof *slot_of);
	for (size_t i = 0; i < entries->n; i++)
		if (map_entry(&hr->r, entries->v[i].p, entries->v[i].p + entries->v[i].len, &keys[i], &vals)) {
			free(vals.v);
			free(keys);
			free(slot_of);
			return NULL;
		}
	xp_idmap_init(map, keys, (uint32_t)entries->n);
	uint32_t n = 1;
	for (size_t i = 0; i < entries->n; i++) {
		uint32_t s = xp_idmap_get(map, keys[i]);
		if (!s) {
			s = n++;
			xp_idmap_put(map, keys[i], s);
		}
		slot_of[i] = s;
	}
	free(vals.v);
	free(keys);
	*n_slots = n;
	return slot_of;
}

static void mark_dropped(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc)
{
	const char *const *drop = hr->opts->drop_stats;
	for (uint32_t s = 1; drop && s < pl->n_smeta; s++) {
		const char *name = xp_str(hr->cap, pl->smeta[s].name);
		for (size_t k = 0; drop[k] && !pl->smeta[s].dropped; k++)
			pl->smeta[s].dropped = !strcmp(name, drop[k]);
		pc->drops |= pl->smeta[s].dropped;
	}
}

static int plane_stat_meta(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc,
			   const struct ranges *entries)
{
	uint32_t n;
	if (entries->n >= XP_STAT_META_MASK)
		return fail(&hr->r, entries->v[0].p, "too many stat metadata entries");
	uint32_t *slot_of = assign_slots(hr, entries, &pc->smap, &n);
	if (!slot_of)
		return -1;
	pl->n_smeta = n;
	pl->smeta = xcalloc(n, sizeof *pl->smeta);
	struct ranges vals = {0};
	int rc = 0;
	for (size_t i = 0; i < entries->n && !rc; i++) {
		int64_t key;
		struct xp_stat_meta *sm = &pl->smeta[slot_of[i]];
		rc = map_entry(&hr->r, entries->v[i].p, entries->v[i].p + entries->v[i].len, &key, &vals);
		memset(sm, 0, sizeof *sm);
		sm->id = key;
		for (size_t k = 0; k < vals.n && !rc; k++)
			rc = stat_meta_value(hr, vals.v[k].p, vals.v[k].p + vals.v[k].len, sm);
	}
	free(vals.v);
	free(slot_of);
	if (!rc)
		mark_dropped(hr, pl, pc);
	return rc;
}

static int plane_event_meta(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc,
			    const struct ranges *entries)
{
	uint32_t n;
	if (entries->n >= UINT32_MAX - 1)
		return fail(&hr->r, entries->v[0].p, "too many event metadata entries");
	uint32_t *slot_of = assign_slots(hr, entries, &pc->emap, &n);
	if (!slot_of)
		return -1;
	pl->n_emeta = n;
	pl->emeta = xcalloc(n, sizeof *pl->emeta);
	struct stat_sink sink = {&pl->meta_stats, &pl->meta_blob, &pc->smap, pl->smeta, &hr->host->odd};
	struct ranges vals = {0};
	int rc = 0;
	for (size_t i = 0; i < entries->n && !rc; i++) {
		int64_t key;
		struct xp_event_meta *em = &pl->emeta[slot_of[i]];
		rc = map_entry(&hr->r, entries->v[i].p, entries->v[i].p + entries->v[i].len, &key, &vals);
		memset(em, 0, sizeof *em);
		em->id = key;
		em->stat_begin = em->stat_end = pl->meta_stats.n;
		for (size_t k = 0; k < vals.n && !rc; k++)
			rc = event_meta_value(hr, pl, &sink, vals.v[k].p, vals.v[k].p + vals.v[k].len, em);
	}
	free(vals.v);
	free(slot_of);
	return rc ? -1 : xpr_sink_check(&hr->r, &sink);
}

/* --- planes ------------------------------------------------------------------- */

static void name_plane(struct host_reader *hr, struct xp_plane *pl, const uint8_t *name, uint64_t len)
{
	pl->name = xpr_intern(hr, name, len);
	/* Merged sub-process planes carry a " [pid]" suffix (2025+). */
	uint64_t n = len;
	if (n > 3 && name[n - 1] == ']') {
		uint64_t k = n - 1;
		while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
			k--;
		if (k >= 2 && k < n - 1 && name[k - 1] == '[' && name[k - 2] == ' ') {
			n = k - 2;
			hr->host->odd.pid_suffixed_planes++;
		}
	}
	pl->base_name = xp_intern(&hr->cap->strings, (const char *)name, n);
	pl->kind = xp_classify_plane((const char *)name, n, &pl->device_ordinal);
}

/* A plane's fields as the first walk finds them: the parts decoded after it, in a fixed order. */
struct plane_parts {
	struct range name;
	struct ranges *lines;
	struct ranges emeta, smeta, stats;
};

/* The LEN field FIELD of a plane, body [body, body + len), noted in PP. */
static void plane_part(struct plane_parts *pp, uint32_t field, const uint8_t *body, uint64_t len)
{
	switch (field) {
	case XPF_PLANE_NAME:
		pp->name = (struct range){body, len};
		break;
	case XPF_PLANE_LINES:
		xpr_ranges_push(pp->lines, body, len);
		break;
	case XPF_PLANE_EVENT_METADATA:
		xpr_ranges_push(&pp->emeta, body, len);
		break;
	case XPF_PLANE_STAT_METADATA:
		xpr_ranges_push(&pp->smeta, body, len);
		break;
	default:
		xpr_ranges_push(&pp->stats, body, len);
	}
}

/* Walks a plane's fields: the id into PL, the rest into PP. */
static int plane_fields(struct host_reader *hr, struct xp_plane *pl, const uint8_t *p, const uint8_t *end,
			struct plane_parts *pp)
{
	struct reader *r = &hr->r;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t v = 0;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field == XPF_PLANE_ID) {
			if (expect_wt(r, at, wt, XP_WT_VARINT) || read_varint(r, &p, end, &v))
				return -1;
			pl->id = (int64_t)v;
		} else if (field >= XPF_PLANE_NAME && field <= XPF_PLANE_STATS) {
			if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, &p, end, &body, &v))
				return -1;
			plane_part(pp, field, body, v);
		} else {
			hr->host->odd.unknown_fields++;
			if (xpr_skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

static int plane_stats(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc, const struct ranges *stats)
{
	struct stat_sink sink = {&pl->plane_stats, &pl->plane_blob, &pc->smap, pl->smeta, &hr->host->odd};
	for (size_t i = 0; i < stats->n; i++)
		if (xpr_decode_stat(&hr->r, stats->v[i].p, stats->v[i].p + stats->v[i].len, &sink))
			return -1;
	return xpr_sink_check(&hr->r, &sink);
}

/* A plane: its fields, then its name, stat metadata (which event metadata and stats refer to),
 * event metadata and stats. The line ranges go to LINES for the later steps. */
static int read_plane(struct host_reader *hr, struct xp_plane *pl, struct plane_ctx *pc, const uint8_t *p,
		      const uint8_t *end, struct ranges *lines)
{
	struct plane_parts pp = {.name = {(const uint8_t *)"", 0}, .lines = lines};
	int rc = plane_fields(hr, pl, p, end, &pp);
	if (!rc) {
		name_plane(hr, pl, pp.name.p, pp.name.len);
		rc = plane_stat_meta(hr, pl, pc, &pp.smeta);
	}
	if (!rc)
		rc = plane_event_meta(hr, pl, pc, &pp.emeta);
	if (!rc)
		rc = plane_stats(hr, pl, pc, &pp.stats);
	free(pp.emeta.v);
	free(pp.smeta.v);
	free(pp.stats.v);
	return rc ? -1 : 0;
}

/* --- the space ------------------------------------------------------------------ */

static void push_string(uint32_t **arr, uint32_t *n, uint32_t id)
{
	*arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
	(*arr)[(*n)++] = id;
}

/* A string of the space (error, warning or host name) into the host. */
static void space_string(struct host_reader *hr, uint32_t field, const uint8_t *body, uint64_t len)
{
	struct xp_host *h = hr->host;
	uint32_t id = xpr_intern(hr, body, len);
	if (field == XPF_SPACE_ERRORS)
		push_string(&h->errors, &h->n_errors, id);
	else if (field == XPF_SPACE_WARNINGS)
		push_string(&h->warnings, &h->n_warnings, id);
	else
		push_string(&h->hostnames, &h->n_hostnames, id);
}

/* The top level: plane ranges are noted for xpr_read_planes, strings kept. */
int xpr_read_space(struct host_reader *hr, const uint8_t *p, const uint8_t *end)
{
	struct reader *r = &hr->r;
	while (p < end) {
		const uint8_t *at = p, *body;
		uint32_t field;
		unsigned wt;
		uint64_t len;
		if (get_tag(r, &p, end, &field, &wt))
			return -1;
		if (field >= XPF_SPACE_PLANES && field <= XPF_SPACE_HOSTNAMES) {
			if (expect_wt(r, at, wt, XP_WT_LEN) || read_len(r, &p, end, &body, &len))
				return -1;
			if (field == XPF_SPACE_PLANES)
				xpr_ranges_push(&hr->plane_ranges, body, len);
			else
				space_string(hr, field, body, len);
		} else {
			hr->host->odd.unknown_fields++;
			if (xpr_skip_field(r, &p, end, wt))
				return -1;
		}
	}
	return 0;
}

/* Plane I's lines become line jobs for the later steps. */
static void add_line_jobs(struct host_reader *hr, size_t i, const struct ranges *lines)
{
	struct xp_plane *pl = &hr->host->planes[i];
	pl->n_lines = (uint32_t)lines->n;
	pl->lines = xcalloc(lines->n, sizeof *pl->lines);
	hr->lines = xrealloc(hr->lines, (hr->n_lines + lines->n) * sizeof *hr->lines);
	for (size_t k = 0; k < lines->n; k++) {
		struct line_job *lj = &hr->lines[hr->n_lines++];
		memset(lj, 0, sizeof *lj);
		lj->plane = pl;
		lj->pctx = &hr->pctx[i];
		lj->line = &pl->lines[k];
		lj->beg = lines->v[k].p;
		lj->end = lines->v[k].p + lines->v[k].len;
	}
}

int xpr_read_planes(struct host_reader *hr)
{
	struct xp_host *h = hr->host;
	size_t np = hr->plane_ranges.n;
	h->planes = xcalloc(np, sizeof *h->planes);
	hr->pctx = xcalloc(np, sizeof *hr->pctx);
	struct ranges lines = {0};
	int rc = 0;
	for (size_t i = 0; i < np && !rc; i++) {
		lines.n = 0;
		h->n_planes = (uint32_t)(i + 1);
		rc = read_plane(hr, &h->planes[i], &hr->pctx[i], hr->plane_ranges.v[i].p,
				hr->plane_ranges.v[i].p + hr->plane_ranges.v[i].len, &lines);
		if (!rc)
			add_line_jobs(hr, i, &lines);
	}
	free(lines.v);
	return rc;
}

void xpr_name_line(struct host_reader *hr, struct line_job *lj)
{
	struct xp_line *l = lj->line;
	l->name = xpr_intern(hr, lj->name.p ? lj->name.p : (const uint8_t *)"", lj->name.len);
	l->display_name = xpr_intern(hr, lj->dname.p ? lj->dname.p : (const uint8_t *)"", lj->dname.len);
	l->derived = xp_line_is_derived(l->id, xp_str(hr->cap, l->name));
}
