/* xplane_diff.c - differential check: the hand-written XSpace walker must decode exactly what protobuf-c decodes. */
#include "xplane_diff.h"

#include "formats/in/xplane_read.h"
#include "xplane.pb-c.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Tensorflow__Profiler__XSpace PSpace;
typedef Tensorflow__Profiler__XPlane PPlane;
typedef Tensorflow__Profiler__XLine PLine;
typedef Tensorflow__Profiler__XEvent PEvent;
typedef Tensorflow__Profiler__XStat PStat;

struct diff {
	char *why;
	size_t whylen;
	const struct xp_capture *c;
	const char *const *drop;        /* the reader's drop_stats, or NULL */
};

static int mismatch(struct diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int mismatch(struct diff *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->why, d->whylen, fmt, ap);
	va_end(ap);
	return 1;
}

/* protobuf-c strings are NUL-terminated copies: compare up to the first NUL,
 * which ours holds written out as "\\x00" (xp_intern). */
static bool same_str(const char *pc, const char *ours, size_t ours_len)
{
	if (!pc) /* protobuf-c leaves some merged, unset strings NULL */
		pc = "";
	size_t n = strlen(pc);
	if (n > ours_len || memcmp(pc, ours, n) != 0)
		return false;
	return n == ours_len || ours[n] == 0 || (ours_len - n >= 4 && !memcmp(ours + n, "\\x00", 4));
}

/* Last map entry with a key wins. */
static const Tensorflow__Profiler__XStatMetadata *smeta_of(const PPlane *p, int64_t key)
{
	/* static: an entry without a value stands for an empty one */
	static const Tensorflow__Profiler__XStatMetadata empty = TENSORFLOW__PROFILER__XSTAT_METADATA__INIT;
	const Tensorflow__Profiler__XStatMetadata *m = NULL;
	for (size_t i = 0; i < p->n_stat_metadata; i++)
		if (p->stat_metadata[i]->key == key)
			m = p->stat_metadata[i]->value ? p->stat_metadata[i]->value : &empty;
	return m;
}

static const Tensorflow__Profiler__XEventMetadata *emeta_of(const PPlane *p, int64_t key, bool *found)
{
	static const Tensorflow__Profiler__XEventMetadata empty = TENSORFLOW__PROFILER__XEVENT_METADATA__INIT;
	const Tensorflow__Profiler__XEventMetadata *m = NULL;
	*found = false;
	for (size_t i = 0; i < p->n_event_metadata; i++)
		if (p->event_metadata[i]->key == key) {
			m = p->event_metadata[i]->value ? p->event_metadata[i]->value : &empty;
			*found = true;
		}
	return m;
}

/* Whether the reader was told to leave out the event stats of metadata named NAME (C strings, as it compares). */
static bool dropped_name(const struct diff *d, const char *name)
{
	for (size_t k = 0; d->drop && d->drop[k]; k++)
		if (!strcmp(d->drop[k], name ? name : ""))
			return true;
	return false;
}

/* A stat metadata name with a NUL: protobuf-c's copy stops there, ours holds all
 * of it (the NUL written as the four characters \x00), and the whole name is
 * what the reader compares with the drop list. Ours being longer than
 * protobuf-c's is the sign: a name holding the text \x00 itself is the same
 * length on both sides and is dropped like any other. */
static bool nul_named(const struct diff *d, const struct xp_plane *op, int64_t id, const char *pc_name)
{
	size_t pc_len = pc_name ? strlen(pc_name) : 0;
	for (uint32_t i = 1; i < op->n_smeta; i++)
		if (op->smeta[i].id == id)
			return xp_strlen(d->c, op->smeta[i].name) != pc_len;
	return false;
}

static bool dropped_stat(const struct diff *d, const PPlane *pp, const struct xp_plane *op, const PStat *ps)
{
	const Tensorflow__Profiler__XStatMetadata *sm = smeta_of(pp, ps->metadata_id);
	return sm && dropped_name(d, sm->name) && !nul_named(d, op, ps->metadata_id, sm->name);
}

static int cmp_stat(struct diff *d, const PPlane *pp, const struct xp_plane *op, const PStat *ps, uint32_t key,
		    uint64_t val, const struct xp_blob *blob, const char *where)
{
	const struct xp_capture *c = d->c;
	uint32_t dense = xp_stat_meta(key);
	key &= ~XP_STAT_WIDE;
	const Tensorflow__Profiler__XStatMetadata *sm = smeta_of(pp, ps->metadata_id);
	if (!sm ? dense != 0 : (dense == 0 || op->smeta[dense].id != ps->metadata_id))
		return mismatch(d, "%s: stat metadata id %lld", where, (long long)ps->metadata_id);
	unsigned kind = xp_stat_kind(key);
	uint32_t len;
	const uint8_t *b;
	switch (ps->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE__NOT_SET:
		return kind == XP_STAT_NONE ? 0 : mismatch(d, "%s: value set only in ours", where);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE:
		if (kind != XP_STAT_F64 || memcmp(&val, &ps->double_value, 8))
			return mismatch(d, "%s: double", where);
		return 0;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
		return kind == XP_STAT_U64 && val == ps->uint64_value ? 0 : mismatch(d, "%s: uint64", where);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
		return kind == XP_STAT_I64 && (int64_t)val == ps->int64_value ? 0 : mismatch(d, "%s: int64", where);
	case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE: {
		const Tensorflow__Profiler__XStatMetadata *target = smeta_of(pp, (int64_t)ps->ref_value);
		const char *want = target ? target->name : "";
		if (kind != XP_STAT_STR || !same_str(want, xp_str(c, (uint32_t)val), xp_strlen(c, (uint32_t)val)))
			return mismatch(d, "%s: ref_value %llu", where, (unsigned long long)ps->ref_value);
		return 0;
	}
	case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
		b = xp_blob_get(blob, val, &len);
		if (kind != XP_STAT_BLOBSTR || !same_str(ps->str_value, (const char *)b, len))
			return mismatch(d, "%s: str_value", where);
		return 0;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE:
		b = xp_blob_get(blob, val, &len);
		if (kind != XP_STAT_BYTES || len != ps->bytes_value.len ||
		    (len && memcmp(b, ps->bytes_value.data, len)))
			return mismatch(d, "%s: bytes_value", where);
		return 0;
	default:
		return mismatch(d, "%s: unknown value case", where);
	}
}

static int cmp_stats(struct diff *d, const PPlane *pp, const struct xp_plane *op, PStat **ps, size_t n,
		     struct xp_stat_view v, const char *where)
{
	if (n != v.n)
		return mismatch(d, "%s: %zu stats in protobuf-c, %u in ours", where, n, v.n);
	for (size_t k = 0; k < n; k++)
		if (cmp_stat(d, pp, op, ps[k], v.keys[k], xp_view_val(&v, k), v.blob, where))
			return 1;
	return 0;
}

static int cmp_metadata(struct diff *d, const PPlane *pp, const struct xp_plane *op)
{
	const struct xp_capture *c = d->c;
	for (uint32_t i = 1; i < op->n_smeta; i++) {
		const Tensorflow__Profiler__XStatMetadata *sm = smeta_of(pp, op->smeta[i].id);
		if (!sm || !same_str(sm->name, xp_str(c, op->smeta[i].name), xp_strlen(c, op->smeta[i].name)))
			return mismatch(d, "stat metadata %lld", (long long)op->smeta[i].id);
		if (op->smeta[i].dropped != (dropped_name(d, sm->name) && !nul_named(d, op, op->smeta[i].id, sm->name)))
			return mismatch(d, "stat metadata %lld: dropped flag %d", (long long)op->smeta[i].id,
					op->smeta[i].dropped);
	}
	for (uint32_t i = 1; i < op->n_emeta; i++) {
		bool found;
		const struct xp_event_meta *om = &op->emeta[i];
		const Tensorflow__Profiler__XEventMetadata *em = emeta_of(pp, om->id, &found);
		if (!found || !same_str(em->name, xp_str(c, om->name), xp_strlen(c, om->name)) ||
		    !same_str(em->display_name, xp_str(c, om->display_name), xp_strlen(c, om->display_name)) ||
		    em->n_child_id != om->n_children)
			return mismatch(d, "event metadata %lld", (long long)om->id);
		if (cmp_stats(d, pp, op, em->stats, em->n_stats, xp_meta_stats(op, i), "event metadata stats"))
			return 1;
	}
	/* Every key protobuf-c saw must have a slot in ours. */
	for (size_t i = 0; i < pp->n_event_metadata; i++) {
		bool hit = false;
		for (uint32_t k = 1; k < op->n_emeta && !hit; k++)
			hit = op->emeta[k].id == pp->event_metadata[i]->key;
		if (!hit)
			return mismatch(d, "event metadata key %lld missing", (long long)pp->event_metadata[i]->key);
	}
	return 0;
}

static int cmp_event(struct diff *d, const PPlane *pp, const struct xp_plane *op, const struct xp_line *ol,
		     const PEvent *pe, uint64_t j, int64_t line_base)
{
	bool found;
	emeta_of(pp, pe->metadata_id, &found);
	uint32_t m = xp_meta_of(ol, j);
	if (found ? (m == 0 || op->emeta[m].id != pe->metadata_id) : m != 0)
		return mismatch(d, "event %llu: metadata id %lld", (unsigned long long)j, (long long)pe->metadata_id);
	if (!ol->time_overflow) {
		int64_t off = pe->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS ? pe->offset_ps : 0;
		int64_t dur = pe->duration_ps < 0 ? 0 : pe->duration_ps;
		if (ol->start_ps[j] != line_base + off || xp_dur(ol, j) != dur)
			return mismatch(d, "event %llu: time", (unsigned long long)j);
	}
	if (!d->drop)
		return cmp_stats(d, pp, op, pe->stats, pe->n_stats, xp_event_stats(ol, j), "event stats");
	/* Only the stats the reader keeps, in their order. */
	PStat **kept = malloc((pe->n_stats + 1) * sizeof *kept);
	size_t n = 0;
	for (size_t k = 0; k < pe->n_stats; k++)
		if (!dropped_stat(d, pp, op, pe->stats[k]))
			kept[n++] = pe->stats[k];
	int rc = cmp_stats(d, pp, op, kept, n, xp_event_stats(ol, j), "event stats (some dropped)");
	free(kept);
	return rc;
}

static int cmp_line(struct diff *d, const PPlane *pp, const struct xp_plane *op, const PLine *pl,
		    const struct xp_line *ol, int64_t base_ns)
{
	const struct xp_capture *c = d->c;
	if (pl->id != ol->id || pl->display_id != ol->display_id || pl->timestamp_ns != ol->timestamp_ns ||
	    pl->duration_ps != ol->duration_ps || pl->n_events != ol->n_events ||
	    !same_str(pl->name, xp_str(c, ol->name), xp_strlen(c, ol->name)) ||
	    !same_str(pl->display_name, xp_str(c, ol->display_name), xp_strlen(c, ol->display_name)))
		return mismatch(d, "line %lld header", (long long)pl->id);
	int64_t line_base = 0;
	if (!ol->time_overflow && (__builtin_sub_overflow(pl->timestamp_ns, base_ns, &line_base) ||
				   __builtin_mul_overflow(line_base, (int64_t)1000, &line_base)))
		return mismatch(d, "line %lld: overflow not flagged", (long long)pl->id);
	bool unsorted = false;
	for (size_t j = 0; j < pl->n_events; j++) {
		if (cmp_event(d, pp, op, ol, pl->events[j], j, line_base))
			return 1;
		unsorted |= j && ol->start_ps[j] < ol->start_ps[j - 1];
	}
	/* Times were checked above: the flag must say whether they go back somewhere. */
	if (!ol->time_overflow && unsorted != ol->unsorted)
		return mismatch(d, "line %lld: unsorted flag %d, events say %d", (long long)pl->id, ol->unsorted, unsorted);
	return 0;
}

static int cmp_plane(struct diff *d, const PPlane *pp, const struct xp_plane *op, int64_t base_ns)
{
	const struct xp_capture *c = d->c;
	if (pp->id != op->id || !same_str(pp->name, xp_str(c, op->name), xp_strlen(c, op->name)) ||
	    pp->n_lines != op->n_lines)
		return mismatch(d, "plane %s header", pp->name);
	if (cmp_metadata(d, pp, op))
		return 1;
	if (cmp_stats(d, pp, op, pp->stats, pp->n_stats, xp_plane_stats(op), "plane stats"))
		return 1;
	for (size_t k = 0; k < pp->n_lines; k++)
		if (cmp_line(d, pp, op, pp->lines[k], &op->lines[k], base_ns))
			return 1;
	return 0;
}

static int cmp_strings(struct diff *d, char **pc, size_t n, const uint32_t *ours, uint32_t on, const char *what)
{
	if (n != on)
		return mismatch(d, "%s count", what);
	for (size_t i = 0; i < n; i++)
		if (!same_str(pc[i], xp_str(d->c, ours[i]), xp_strlen(d->c, ours[i])))
			return mismatch(d, "%s %zu", what, i);
	return 0;
}

static int cmp_space(struct diff *d, const PSpace *ps, const struct xp_host *h)
{
	if (cmp_strings(d, ps->errors, ps->n_errors, h->errors, h->n_errors, "errors") ||
	    cmp_strings(d, ps->warnings, ps->n_warnings, h->warnings, h->n_warnings, "warnings") ||
	    cmp_strings(d, ps->hostnames, ps->n_hostnames, h->hostnames, h->n_hostnames, "hostnames"))
		return 1;
	if (ps->n_planes != h->n_planes)
		return mismatch(d, "%zu planes in protobuf-c, %u in ours", ps->n_planes, h->n_planes);
	for (size_t i = 0; i < ps->n_planes; i++)
		if (cmp_plane(d, ps->planes[i], &h->planes[i], h->base_ns))
			return 1;
	return 0;
}

/* About half of the stat metadata names of PS (by a bit of their text), NULL-terminated; NULL for none. */
static const char **drop_some(const PSpace *ps)
{
	size_t n = 0, cap = 0;
	const char **names = NULL;
	for (size_t p = 0; ps && p < ps->n_planes; p++)
		for (size_t i = 0; i < ps->planes[p]->n_stat_metadata; i++) {
			const Tensorflow__Profiler__XStatMetadata *sm = ps->planes[p]->stat_metadata[i]->value;
			const char *name = sm && sm->name ? sm->name : "";
			if ((strlen(name) + (uint8_t)name[0]) % 2)
				continue;
			if (n + 2 > cap) {
				cap = cap ? cap * 2 : 8;
				names = realloc(names, cap * sizeof *names);
				if (!names)
					abort();
			}
			names[n++] = name;
			names[n] = NULL;
		}
	return names;
}

int xp_diff_check(const uint8_t *data, size_t size, int threads, bool drop, char *why, size_t whylen)
{
	PSpace *ps = tensorflow__profiler__xspace__unpack(NULL, size, data);
	struct xp_capture *c = xp_capture_new();
	struct xp_err err = {0};
	const char **drops = drop ? drop_some(ps) : NULL;
	struct xp_read_opts ro = {.threads = threads, .release_pages = false, .drop_stats = drops};
	int ours = xp_read_xspace(c, "fuzz", data, size, &ro, &err);
	struct diff d = {why, whylen, c, drops};
	int rc = 0;
	why[0] = 0;
	if (!ps && !ours)
		rc = mismatch(&d, "protobuf-c rejects what ours accepts");
	else if (ps && ours)
		rc = mismatch(&d, "ours rejects what protobuf-c accepts: %s", err.msg);
	else if (ps)
		rc = cmp_space(&d, ps, &c->hosts[0]);
	free(drops);
	if (ps)
		tensorflow__profiler__xspace__free_unpacked(ps, NULL);
	xp_capture_free(c);
	return rc;
}
