/* capture.c - the capture model: string interning, stat arrays, blob arenas and lookups. */
#include "formats/core/hash.h"
#include "capture.h"
#include "formats/core/xalloc.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- string table ------------------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t len)
{
	return xp_hash_bytes(XP_HASH_SEED, s, len);
}

static char *pool_alloc(struct xp_strtab *t, size_t n)
{
	if (t->pool_used + n > t->pool_cap) {
		/* Chunks grow from 4 KiB to 1 MiB: a small capture (a fuzzing run, a
		 * test) should not pay for a megabyte it never fills. */
		size_t grow = t->n_chunks < 8 ? (size_t)4096 << t->n_chunks : (size_t)1 << 20;
		size_t cap = n > grow ? n : grow;
		t->chunks = xrealloc(t->chunks, (t->n_chunks + 1) * sizeof *t->chunks);
		t->pool = xrealloc(NULL, cap);
		t->chunks[t->n_chunks++] = t->pool;
		t->pool_cap = cap;
		t->pool_used = 0;
	}
	char *p = t->pool + t->pool_used;
	t->pool_used += n;
	return p;
}

static void rehash(struct xp_strtab *t, uint32_t hcap)
{
	uint32_t *h = xcalloc(hcap, sizeof *h);
	for (uint32_t id = 0; id < t->n; id++) {
		uint64_t k = hash_bytes(t->strs[id], t->lens[id]);
		uint32_t j = (uint32_t)k & (hcap - 1);
		while (h[j])
			j = (j + 1) & (hcap - 1);
		h[j] = id + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = hcap;
}

void xp_strtab_init(struct xp_strtab *t)
{
	memset(t, 0, sizeof *t);
	rehash(t, 1024);
	xp_intern(t, "", 0); /* id 0 is the empty string */
}

void xp_strtab_free(struct xp_strtab *t)
{
	for (size_t i = 0; i < t->n_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->strs);
	free(t->lens);
	free(t->hash);
	memset(t, 0, sizeof *t);
}

uint32_t xp_strtab_find(const struct xp_strtab *t, const char *s, size_t len, bool *found)
{
	uint32_t j = (uint32_t)hash_bytes(s, len) & (t->hcap - 1);
	while (t->hash[j]) {
		uint32_t id = t->hash[j] - 1;
		if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0) {
			if (found)
				*found = true;
			return id;
		}
		j = (j + 1) & (t->hcap - 1);
	}
	if (found)
		*found = false;
	return 0;
}

/* A name holding NUL bytes, each written "\\x00" as text output writes other
 * control characters: kept whole and visible, never cut at the first NUL. */
static uint32_t intern_nul(struct xp_strtab *t, const char *s, size_t len)
{
	size_t nuls = 0;
	for (size_t i = 0; i < len; i++)
		nuls += !s[i];
	if (nuls > (SIZE_MAX - len) / 3)
		xp_oom();
	char *v = xmalloc(len + 3 * nuls), *o = v;
	for (size_t i = 0; i < len; i++) {
		if (s[i]) {
			*o++ = s[i];
		} else {
			memcpy(o, "\\x00", 4);
			o += 4;
		}
	}
	uint32_t id = xp_intern(t, v, (size_t)(o - v));
	free(v);
	return id;
}

uint32_t xp_intern(struct xp_strtab *t, const char *s, size_t len)
{
	if (len > UINT32_MAX - 1)
		len = UINT32_MAX - 1;
	if (len && memchr(s, 0, len))
		return intern_nul(t, s, len);
	uint32_t j = (uint32_t)hash_bytes(s, len) & (t->hcap - 1);
	while (t->hash[j]) {
		uint32_t id = t->hash[j] - 1;
		if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
			return id;
		j = (j + 1) & (t->hcap - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
		t->lens = xrealloc(t->lens, t->cap * sizeof *t->lens);
	}
	char *copy = pool_alloc(t, len + 1);
	if (len)
		memcpy(copy, s, len);
	copy[len] = 0;
	uint32_t id = t->n++;
	t->strs[id] = copy;
	t->lens[id] = (uint32_t)len;
	t->hash[j] = id + 1;
	if ((uint64_t)t->n * 2 > t->hcap)
		rehash(t, t->hcap * 2);
	return id;
}

/* --- stats and blobs ------------------------------------------------------ */

void xp_stats_push(struct xp_stats *s, uint32_t key, uint64_t val)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		if (cap < s->cap)
			xp_die("too many stats in one block");
		s->keys = xrealloc(s->keys, (size_t)cap * sizeof *s->keys);
		s->vals = xrealloc(s->vals, (size_t)cap * sizeof *s->vals);
		s->cap = cap;
	}
	if (val > UINT32_MAX) {
		if (s->n_wide == s->cap_wide) {
			s->cap_wide = s->cap_wide ? s->cap_wide * 2 : 16;
			s->wide = xrealloc(s->wide, (size_t)s->cap_wide * sizeof *s->wide);
		}
		s->wide[s->n_wide] = val;
		val = s->n_wide++;
		key |= XP_STAT_WIDE;
	}
	s->keys[s->n] = key;
	s->vals[s->n] = (uint32_t)val;
	s->n++;
}

void xp_stats_free(struct xp_stats *s)
{
	free(s->keys);
	free(s->vals);
	free(s->wide);
	memset(s, 0, sizeof *s);
}

uint64_t xp_blob_put(struct xp_blob *b, const void *data, uint32_t len)
{
	uint64_t need = b->len + 4 + len;
	if (need > b->cap) {
		uint64_t cap = b->cap ? b->cap : 256;
		while (cap < need)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	uint64_t off = b->len;
	memcpy(b->data + off, &len, 4);
	if (len)
		memcpy(b->data + off + 4, data, len);
	b->len = need;
	return off;
}

const uint8_t *xp_blob_get(const struct xp_blob *b, uint64_t off, uint32_t *len)
{
	uint32_t n;
	if (!b->data || off + 4 > b->len) {
		*len = 0;
		return (const uint8_t *)"";
	}
	memcpy(&n, b->data + off, 4);
	*len = n;
	return b->data + off + 4;
}

void xp_blob_free(struct xp_blob *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* --- lifecycle ------------------------------------------------------------ */

struct xp_capture *xp_capture_new(void)
{
	struct xp_capture *c = xrealloc(NULL, sizeof *c);
	memset(c, 0, sizeof *c);
	xp_strtab_init(&c->strings);
	return c;
}

struct xp_host *xp_capture_add_host(struct xp_capture *c)
{
	c->hosts = xrealloc(c->hosts, (c->n_hosts + 1) * sizeof *c->hosts);
	struct xp_host *h = &c->hosts[c->n_hosts++];
	memset(h, 0, sizeof *h);
	return h;
}

/* --- durations ------------------------------------------------------------------------------ */

/* Where event AT (within BLK) is in BLK's long durations, or where it would go. */
static uint32_t long_pos(const struct xp_block *blk, uint16_t at)
{
	uint32_t lo = 0, hi = blk->n_long;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (blk->long_at[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t xp_long_dur(const struct xp_line *l, uint64_t i)
{
	const struct xp_block *blk = &l->blocks[i >> XP_BLOCK_SHIFT];
	uint16_t at = (uint16_t)(i & (XP_BLOCK_EVENTS - 1));
	uint32_t k = long_pos(blk, at);
	/* Every XP_DUR_LONG slot has its entry (xp_line_put_dur); a model built otherwise reads as the slot. */
	return k < blk->n_long && blk->long_at[k] == at ? blk->long_ps[k] : (int64_t)XP_DUR_LONG;
}

void xp_line_put_dur(struct xp_line *l, struct xp_block *blk, uint64_t i, int64_t d)
{
	if (d >= 0 && d < (int64_t)XP_DUR_LONG) {
		l->dur32[i] = (uint32_t)d;
		return;
	}
	l->dur32[i] = XP_DUR_LONG;
	if (blk->n_long == blk->cap_long) {
		blk->cap_long = blk->cap_long ? blk->cap_long * 2 : 8;
		blk->long_at = xrealloc(blk->long_at, blk->cap_long * sizeof *blk->long_at);
		blk->long_ps = xrealloc(blk->long_ps, blk->cap_long * sizeof *blk->long_ps);
	}
	blk->long_at[blk->n_long] = (uint16_t)(i & (XP_BLOCK_EVENTS - 1));
	blk->long_ps[blk->n_long++] = d;
}

void xp_line_lower_dur(struct xp_line *l, uint64_t i, int64_t d)
{
	if (l->dur32[i] != XP_DUR_LONG) {
		l->dur32[i] = (uint32_t)d; /* lower than a value that fit */
		return;
	}
	struct xp_block *blk = &l->blocks[i >> XP_BLOCK_SHIFT];
	uint32_t k = long_pos(blk, (uint16_t)(i & (XP_BLOCK_EVENTS - 1)));
	if (k < blk->n_long)
		blk->long_ps[k] = d;
}

void xp_line_size_meta(struct xp_line *l, uint64_t cap, uint32_t limit)
{
	size_t n = cap ? cap : 1;
	if (!l->meta16 && !l->meta32 && limit <= 65536)
		l->meta16 = xmalloc(n * sizeof *l->meta16);
	else if (l->meta16)
		l->meta16 = xrealloc(l->meta16, n * sizeof *l->meta16);
	else
		l->meta32 = xrealloc(l->meta32, n * sizeof *l->meta32);
}

static void free_line(struct xp_line *l)
{
	free(l->start_ps);
	free(l->dur32);
	free(l->meta16);
	free(l->meta32);
	free(l->stat_begin);
	free(l->key_begin);
	for (uint32_t b = 0; b < l->n_blocks; b++) {
		xp_stats_free(&l->blocks[b].stats);
		xp_blob_free(&l->blocks[b].blob);
		free(l->blocks[b].long_at);
		free(l->blocks[b].long_ps);
	}
	free(l->blocks);
}

void xp_line_release(struct xp_line *l)
{
	free_line(l);
	l->start_ps = NULL;
	l->dur32 = NULL;
	l->meta16 = NULL;
	l->meta32 = l->stat_begin = l->key_begin = NULL;
	l->blocks = NULL;
	l->n_blocks = 0;
	l->n_events = 0;
}

/* Block B of line L without the stats DROP marks: keys one per value into KEYS (a run of keys shared by events
 * no longer fits their kept stats), wide values and blob payloads of the kept stats alone. */
static void drop_block(struct xp_line *l, uint32_t b, const bool *drop, uint32_t n_meta, uint32_t *keys)
{
	struct xp_block *blk = &l->blocks[b];
	struct xp_stats *st = &blk->stats;
	uint64_t lo = (uint64_t)b << XP_BLOCK_SHIFT, hi = lo + XP_BLOCK_EVENTS < l->n_events ? lo + XP_BLOCK_EVENTS : l->n_events;
	uint64_t *wide = xmalloc((st->n_wide ? st->n_wide : 1) * sizeof *wide);
	struct xp_blob blob = {0};
	uint32_t out = 0, n_wide = 0, first = lo < hi ? l->stat_begin[lo] : 0;
	for (uint64_t i = lo; i < hi; i++) {
		uint32_t last = i + 1 < hi ? l->stat_begin[i + 1] : st->n, kb = xp_event_key_begin(l, i, first);
		l->stat_begin[i] = out;
		for (uint32_t j = 0; first + j < last; j++) {
			uint32_t key = st->keys[kb + j];
			if (xp_stat_meta(key) < n_meta && drop[xp_stat_meta(key)])
				continue;
			uint64_t v = (key & XP_STAT_WIDE) ? st->wide[st->vals[first + j]] : st->vals[first + j];
			if (xp_stat_kind(key) == XP_STAT_BYTES || xp_stat_kind(key) == XP_STAT_BLOBSTR) {
				uint32_t len;
				const uint8_t *p = xp_blob_get(&blk->blob, v, &len);
				v = xp_blob_put(&blob, p, len);
			}
			key &= ~XP_STAT_WIDE;
			if (v > UINT32_MAX) {
				wide[n_wide] = v;
				v = n_wide++;
				key |= XP_STAT_WIDE;
			}
			keys[out] = key;
			st->vals[out++] = (uint32_t)v;
		}
		first = last;
	}
	st->n_dropped += st->n - out;
	free(st->keys);
	st->keys = xrealloc(keys, (out ? out : 1) * sizeof *keys);
	st->vals = xrealloc(st->vals, (out ? out : 1) * sizeof *st->vals);
	st->n = st->cap = st->n_keys = out;
	free(st->wide);
	st->wide = xrealloc(wide, (n_wide ? n_wide : 1) * sizeof *wide);
	st->n_wide = st->cap_wide = n_wide;
	xp_blob_free(&blk->blob);
	blk->blob = blob;
}

void xp_line_drop_stats(struct xp_line *l, const bool *drop, uint32_t n_meta)
{
	for (uint32_t b = 0; b < l->n_blocks; b++)
		if (l->blocks[b].stats.n)
			drop_block(l, b, drop, n_meta, xmalloc((l->blocks[b].stats.n ? l->blocks[b].stats.n : 1) * sizeof(uint32_t)));
	free(l->key_begin);
	l->key_begin = NULL;
}

static void free_plane(struct xp_plane *p)
{
	for (uint32_t i = 0; i < p->n_lines; i++)
		free_line(&p->lines[i]);
	free(p->lines);
	free(p->emeta);
	free(p->smeta);
	xp_stats_free(&p->meta_stats);
	xp_blob_free(&p->meta_blob);
	xp_stats_free(&p->plane_stats);
	xp_blob_free(&p->plane_blob);
}

static void free_host(struct xp_host *host)
{
	for (uint32_t p = 0; p < host->n_planes; p++)
		free_plane(&host->planes[p]);
	free(host->planes);
	free(host->errors);
	free(host->warnings);
	free(host->hostnames);
	free(host->path);
	free(host->name);
	free(host->first_name);
}

void xp_capture_keep_hosts(struct xp_capture *c, const bool *keep)
{
	uint32_t n = 0;
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		if (keep[h])
			c->hosts[n++] = c->hosts[h];
		else
			free_host(&c->hosts[h]);
	}
	c->n_hosts = n;
}

/* Add the uint64_t counters of n words at from into into (the count structs are all uint64_t fields, but
 * xp_json_counts' trailing flag, which the caller passes less). */
static void add_counts(uint64_t *into, const uint64_t *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		into[i] += from[i];
}

static void shift_host(struct xp_host *h, int64_t delta_ps)
{
	for (uint32_t p = 0; p < h->n_planes && delta_ps; p++)
		for (uint32_t l = 0; l < h->planes[p].n_lines; l++)
			for (uint64_t i = 0; i < h->planes[p].lines[l].n_events; i++)
				h->planes[p].lines[l].start_ps[i] += delta_ps;
}

bool xp_host_absorb(struct xp_host *into, struct xp_host *from)
{
	int64_t base = into->base_ns < from->base_ns ? into->base_ns : from->base_ns;
	/* At most about a day apart, so that shifted picosecond starts stay far inside int64. */
	const int64_t max_ns = 86400ll * 1000000000ll * 10;
	if ((into->base_ns - base) > max_ns || (from->base_ns - base) > max_ns)
		return false;
	shift_host(into, (into->base_ns - base) * 1000);
	shift_host(from, (from->base_ns - base) * 1000);
	into->base_ns = from->base_ns = base;
	into->planes = xrealloc(into->planes, (size_t)(into->n_planes + from->n_planes) * sizeof *into->planes);
	memcpy(into->planes + into->n_planes, from->planes, from->n_planes * sizeof *from->planes);
	into->n_planes += from->n_planes;
	free(from->planes);
	from->planes = NULL;
	from->n_planes = 0;
	into->file_bytes += from->file_bytes;
	into->decoded_bytes += from->decoded_bytes;
	add_counts((uint64_t *)&into->odd, (const uint64_t *)&from->odd, sizeof into->odd / sizeof(uint64_t));
	add_counts((uint64_t *)&into->json, (const uint64_t *)&from->json,
		   offsetof(struct xp_json_counts, truncated) / sizeof(uint64_t));
	into->json.truncated |= from->json.truncated;
	return true;
}

void xp_capture_free(struct xp_capture *c)
{
	if (!c)
		return;
	for (uint32_t h = 0; h < c->n_hosts; h++)
		free_host(&c->hosts[h]);
	free(c->hosts);
	xp_strtab_free(&c->strings);
	free(c);
}

/* --- lookups -------------------------------------------------------------- */

uint32_t xp_plane_stat_id(const struct xp_capture *c, const struct xp_plane *p, const char *name)
{
	bool found;
	uint32_t sid = xp_strtab_find(&c->strings, name, strlen(name), &found);
	if (!found)
		return 0;
	/* Several metadata entries may carry the same name; the stats written
	 * by a producer use one of them, so the last one is as good as any and
	 * duplicates are rare enough to ignore. */
	uint32_t hit = 0;
	for (uint32_t i = 1; i < p->n_smeta; i++)
		if (p->smeta[i].name == sid)
			hit = i;
	xp_stat_must_be_loaded(c, p, hit);
	return hit;
}

void xp_stat_must_be_loaded(const struct xp_capture *c, const struct xp_plane *p, uint32_t s)
{
	/* A command's drop list and its analyses disagree: fail loudly rather
	 * than answer as if the stat were absent from the capture. */
	if (s && s < p->n_smeta && p->smeta[s].dropped) {
		xp_die("internal error: stat '%s' is read but was not loaded", xp_str(c, p->smeta[s].name));
	}
}

struct xp_stat_view xp_plane_stats(const struct xp_plane *p)
{
	struct xp_stat_view v = {p->plane_stats.keys, p->plane_stats.vals, p->plane_stats.wide, p->plane_stats.n,
				 &p->plane_blob};
	return v;
}

void xp_view_value(const struct xp_capture *c, const struct xp_stat_view *v, uint32_t k, struct xp_value *out)
{
	uint64_t raw = xp_view_val(v, k);
	memset(out, 0, sizeof *out);
	out->kind = xp_stat_kind(v->keys[k]);
	switch (out->kind) {
	case XP_STAT_I64:
		out->i = (int64_t)raw;
		out->u = raw;
		out->d = (double)(int64_t)raw;
		break;
	case XP_STAT_U64:
		out->u = raw;
		out->i = raw > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)raw;
		out->d = (double)raw;
		break;
	case XP_STAT_F64:
		memcpy(&out->d, &raw, sizeof out->d);
		break;
	case XP_STAT_STR:
		out->s = xp_str(c, (uint32_t)raw);
		out->len = xp_strlen(c, (uint32_t)raw);
		out->id = (uint32_t)raw;
		break;
	case XP_STAT_BLOBSTR:
	case XP_STAT_BYTES:
		out->s = (const char *)xp_blob_get(v->blob, raw, &out->len);
		break;
	default:
		break;
	}
}

bool xp_view_find(const struct xp_capture *c, struct xp_stat_view v, uint32_t sid, struct xp_value *out)
{
	if (!sid)
		return false;
	for (uint32_t k = v.n; k-- > 0;) {
		if (xp_stat_meta(v.keys[k]) == sid && xp_stat_kind(v.keys[k]) != XP_STAT_NONE) {
			xp_view_value(c, &v, k, out);
			return true;
		}
	}
	return false;
}

bool xp_event_find(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l,
		   uint64_t i, uint32_t sid, struct xp_value *out)
{
	if (xp_view_find(c, xp_event_stats(l, i), sid, out))
		return true;
	return xp_view_find(c, xp_meta_stats(p, xp_meta_of(l, i)), sid, out);
}

bool xp_value_int(const struct xp_value *v, int64_t *out)
{
	if (v->kind == XP_STAT_I64 || v->kind == XP_STAT_U64) {
		*out = v->i;
		return true;
	}
	return false;
}

const char *xp_value_text(const struct xp_value *v, char *buf, size_t bufsz, uint32_t *len)
{
	int n = 0;
	switch (v->kind) {
	case XP_STAT_I64:
		n = snprintf(buf, bufsz, "%" PRId64, v->i);
		break;
	case XP_STAT_U64:
		n = snprintf(buf, bufsz, "%" PRIu64, v->u);
		break;
	case XP_STAT_F64:
		n = snprintf(buf, bufsz, "%.17g", v->d);
		break;
	case XP_STAT_STR:
	case XP_STAT_BLOBSTR:
	case XP_STAT_BYTES:
		*len = v->len;
		return v->s;
	default:
		buf[0] = 0;
		break;
	}
	if (n < 0)
		n = 0;
	if ((size_t)n >= bufsz)
		n = (int)bufsz - 1;
	*len = (uint32_t)n;
	return buf;
}

/* --- names ---------------------------------------------------------------- */

const char *xp_plane_kind_name(enum xp_plane_kind k)
{
	switch (k) {
	case XP_PLANE_HOST_CPU: return "host";
	case XP_PLANE_GPU: return "gpu";
	case XP_PLANE_TPU: return "tpu";
	case XP_PLANE_DEVICE_OTHER: return "device";
	case XP_PLANE_HOST_OTHER: return "host-aux";
	default: return "other";
	}
}

static bool has_prefix(const char *s, size_t len, const char *pre)
{
	size_t n = strlen(pre);
	return len >= n && memcmp(s, pre, n) == 0;
}

static bool parse_ordinal(const char *s, size_t len, int *out)
{
	if (len == 0 || len > 9)
		return false;
	int v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

enum xp_plane_kind xp_classify_plane(const char *name, size_t len, int *ordinal)
{
	static const char *const host_cpu[] = {
		"/host:CPU", "/host:CUPTI", "/host:python-tracer", "/host:TPU-runtime",
		"/host:ROCTRACER", "/host:NVTX-CUPTI", "Host Threads",
	};
	*ordinal = -1;
	for (size_t i = 0; i < sizeof host_cpu / sizeof *host_cpu; i++)
		if (len == strlen(host_cpu[i]) && has_prefix(name, len, host_cpu[i]))
			return XP_PLANE_HOST_CPU;
	if (has_prefix(name, len, "/device:GPU:") && parse_ordinal(name + 12, len - 12, ordinal))
		return XP_PLANE_GPU;
	if (has_prefix(name, len, "GPU:") && parse_ordinal(name + 4, len - 4, ordinal))
		return XP_PLANE_GPU;
	if (has_prefix(name, len, "/device:TPU:") && parse_ordinal(name + 12, len - 12, ordinal))
		return XP_PLANE_TPU;
	if (has_prefix(name, len, "/device") || has_prefix(name, len, "#Chip") ||
	    has_prefix(name, len, "/custom:") || has_prefix(name, len, "/virtualdevice:"))
		return XP_PLANE_DEVICE_OTHER;
	if (has_prefix(name, len, "/host:") || has_prefix(name, len, "Task Environment") ||
	    has_prefix(name, len, "Host CPUs") || has_prefix(name, len, "Syscalls"))
		return XP_PLANE_HOST_OTHER;
	return XP_PLANE_OTHER;
}

bool xp_line_is_derived(int64_t id, const char *name)
{
	static const char *const derived[] = {
		"Steps", "Sparse Core Steps", "Launch Stats", "Framework Name Scope", "Framework Ops",
		"TensorFlow Name Scope", "TensorFlow Ops", "XLA Modules", "XLA Ops", "Source code",
		"CUPTI overhead",
	};
	const int64_t min_id = -559038737; /* kThreadIdDerivedMin: 0xdeadbeef as a C int */
	if (id >= min_id && id < min_id + 4096)
		return true;
	for (size_t i = 0; i < sizeof derived / sizeof *derived; i++)
		if (strcmp(name, derived[i]) == 0)
			return true;
	return false;
}

int xp_plane_kind_rank(enum xp_plane_kind k)
{
	switch (k) {
	case XP_PLANE_HOST_CPU: return 0;
	case XP_PLANE_GPU: return 1;
	case XP_PLANE_TPU: return 2;
	case XP_PLANE_DEVICE_OTHER: return 3;
	case XP_PLANE_HOST_OTHER: return 4;
	default: return 5;
	}
}

/* --- a capture's name in its run ------------------------------------------------------------------------- */

/* The last path component of the first LEN bytes of PATH. */
static const char *base_of(const char *path, size_t len, size_t *n)
{
	while (len > 1 && path[len - 1] == '/')
		len--;
	size_t b = len;
	while (b && path[b - 1] != '/')
		b--;
	*n = len - b;
	return path + b;
}

void xp_path_run_parts(const char *path, const char **name, size_t *nl, const char **run, size_t *rl)
{
	*rl = 0;
	*name = base_of(path, strlen(path), nl);
	*run = *name > path ? base_of(path, (size_t)(*name - path), rl) : ".";
	if (*name == path || !*rl) {
		*rl = 1;
		*run = ".";
	}
}

char *xp_path_in_run(const char *path)
{
	const char *name, *run;
	size_t nl, rl;
	xp_path_run_parts(path, &name, &nl, &run, &rl);
	if (rl == 1 && *run == '.')
		rl = 0;         /* a file typed without its directory: its name alone */
	char *s = xmalloc(rl + nl + 2);
	if (!rl) {
		memcpy(s, name, nl);
		s[nl] = 0;
		return s;
	}
	memcpy(s, run, rl);
	s[rl] = '/';
	memcpy(s + rl + 1, name, nl);
	s[rl + 1 + nl] = 0;
	return s;
}
