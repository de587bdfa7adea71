/* fuzz_trace_json.c - libFuzzer target: the trace JSON reader on arbitrary bytes, checked against cJSON, the model's invariants, and itself with a lexer thread and tiny windows. */
#include "formats/in/input.h"
#include "formats/in/trace_json.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small enough to keep a fuzzing run fast, big enough for real documents. */
#define FUZZ_MAX_OUT ((uint64_t)16 << 20)

#define ASSERT(c)                                                                                    \
	do {                                                                                         \
		if (!(c))                                                                            \
			abort();                                                                     \
	} while (0)

/* Every event and stat of an accepted document points where the model says it may. */
static void check_model(const struct xp_capture *c)
{
	const struct xp_host *h = &c->hosts[0];
	ASSERT(h->format == XP_FMT_TRACE_JSON && h->n_planes >= 1);
	uint64_t events = 0;
	for (uint32_t p = 0; p < h->n_planes; p++) {
		const struct xp_plane *pl = &h->planes[p];
		ASSERT(pl->name < c->strings.n);
		for (uint32_t i = 1; i < pl->n_emeta; i++)
			ASSERT(pl->emeta[i].name < c->strings.n && pl->emeta[i].display_name < c->strings.n);
		for (uint32_t i = 1; i < pl->n_smeta; i++)
			ASSERT(pl->smeta[i].name < c->strings.n);
		for (uint32_t k = 0; k < pl->n_lines; k++) {
			const struct xp_line *l = &pl->lines[k];
			ASSERT(l->n_blocks == (l->n_events + XP_BLOCK_EVENTS - 1) / XP_BLOCK_EVENTS);
			events += l->n_events;
			uint64_t stats = 0;
			for (uint64_t i = 0; i < l->n_events; i++) {
				ASSERT(xp_meta_of(l, i) > 0 && xp_meta_of(l, i) < pl->n_emeta);
				ASSERT(xp_dur(l, i) >= 0 && l->start_ps[i] <= INT64_MAX - xp_dur(l, i));
				if (i)
					ASSERT(l->start_ps[i] > l->start_ps[i - 1] ||
					       (l->start_ps[i] == l->start_ps[i - 1] && xp_dur(l, i) <= xp_dur(l, i - 1)));
				struct xp_stat_view v = xp_event_stats(l, i);
				stats += v.n;
				for (uint32_t s = 0; s < v.n; s++) {
					uint32_t sm = xp_stat_meta(v.keys[s]);
					unsigned kind = xp_stat_kind(v.keys[s]);
					ASSERT(sm > 0 && sm < pl->n_smeta);
					ASSERT(kind >= XP_STAT_I64 && kind <= XP_STAT_BLOBSTR && kind != XP_STAT_BYTES);
					uint64_t raw = xp_view_val(&v, s);
					if (kind == XP_STAT_STR)
						ASSERT(raw < c->strings.n);
					if (kind == XP_STAT_BLOBSTR) {
						uint32_t len;
						xp_blob_get(v.blob, raw, &len);
						ASSERT(raw + 4 + len <= v.blob->len);
					}
				}
			}
			ASSERT(stats == l->n_stats);
		}
	}
	const struct xp_json_counts *j = &h->json;
	ASSERT(j->entries == j->complete + j->begin + j->end + j->instant + j->counter + j->async + j->metadata +
				     j->flow + j->empty + j->other);
	ASSERT(events <= j->complete + j->begin + j->instant + j->counter + j->async);
}

/* Where cJSON reads a document we accepted, it finds as many traceEvents
 * entries. (cJSON refuses some valid JSON we read -- numbers over 63
 * characters, lone surrogate escapes, a byte order mark -- so its refusal
 * proves nothing.) */
static void check_against_cjson(const uint8_t *data, size_t size, const struct xp_capture *c)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	if (!doc)
		return;
	/* cJSON finds the first of duplicate keys while we stream every traceEvents
	 * array: compare only bare arrays, and objects with one traceEvents key. */
	size_t n_te = 0;
	const cJSON *it, *ev = NULL;
	if (cJSON_IsArray(doc)) {
		ev = doc;
		n_te = 1;
	} else {
		cJSON_ArrayForEach(it, doc)
			if (it->string && !strcmp(it->string, "traceEvents")) {
				ev = it;
				n_te++;
			}
	}
	if (n_te == 1 && cJSON_IsArray(ev))
		ASSERT((uint64_t)cJSON_GetArraySize(ev) == c->hosts[0].json.entries);
	cJSON_Delete(doc);
}

static bool same_str(const struct xp_capture *a, uint32_t x, const struct xp_capture *b, uint32_t y)
{
	return xp_strlen(a, x) == xp_strlen(b, y) && !memcmp(xp_str(a, x), xp_str(b, y), xp_strlen(a, x));
}

/* The second read leaves these out (xp_json_opts.drop_stats): args the
 * corpus uses and stats the reader makes itself. */
static const char *const drop[] = {"correlation", "device", "stream", "Bytes", "kernel_details", "memcpy_details",
				   "bytes_allocated", "allocator_name", "a", "k", NULL};

static bool is_dropped_name(const struct xp_capture *c, uint32_t name)
{
	for (size_t k = 0; drop[k]; k++)
		if (xp_strlen(c, name) == strlen(drop[k]) && !memcmp(xp_str(c, name), drop[k], strlen(drop[k])))
			return true;
	return false;
}

/* The lexer thread and small windows (refills in every other element) read
 * exactly what one thread with the whole text reads, less the dropped stats:
 * those are counted, and their metadata is there, marked. */
static void check_same(const struct xp_capture *a, const struct xp_capture *b)
{
	const struct xp_host *x = &a->hosts[0], *y = &b->hosts[0];
	ASSERT(!memcmp(&x->json, &y->json, sizeof x->json) && !memcmp(&x->odd, &y->odd, sizeof x->odd));
	ASSERT(x->n_planes == y->n_planes && x->base_ns == y->base_ns && x->pre_grouped == y->pre_grouped);
	for (uint32_t p = 0; p < x->n_planes; p++) {
		const struct xp_plane *pa = &x->planes[p], *pb = &y->planes[p];
		ASSERT(same_str(a, pa->name, b, pb->name) && pa->n_lines == pb->n_lines && pa->id == pb->id);
		ASSERT(pa->n_smeta == pb->n_smeta);
		for (uint32_t i = 1; i < pb->n_smeta; i++)
			ASSERT(!pa->smeta[i].dropped && pb->smeta[i].dropped == is_dropped_name(b, pb->smeta[i].name));
		for (uint32_t k = 0; k < pa->n_lines; k++) {
			const struct xp_line *la = &pa->lines[k], *lb = &pb->lines[k];
			ASSERT(la->id == lb->id && same_str(a, la->name, b, lb->name) && la->n_events == lb->n_events &&
			       la->n_stats == lb->n_stats);
			for (uint64_t i = 0; i < la->n_events; i++) {
				ASSERT(la->start_ps[i] == lb->start_ps[i] && xp_dur(la, i) == xp_dur(lb, i));
				ASSERT(same_str(a, xp_event_name(pa, la, i), b, xp_event_name(pb, lb, i)));
				struct xp_stat_view va = xp_event_stats(la, i), vb = xp_event_stats(lb, i);
				uint32_t t = 0;
				for (uint32_t s = 0; s < va.n; s++) {
					uint32_t name = pa->smeta[xp_stat_meta(va.keys[s])].name;
					if (is_dropped_name(a, name))
						continue;
					ASSERT(t < vb.n && xp_stat_kind(va.keys[s]) == xp_stat_kind(vb.keys[t]));
					ASSERT(same_str(a, name, b, pb->smeta[xp_stat_meta(vb.keys[t])].name));
					t++;
				}
				ASSERT(t == vb.n);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xp_capture *c = xp_capture_new(), *c2 = xp_capture_new();
	struct xp_err err, err2;
	memset(&err, 0, sizeof err);
	memset(&err2, 0, sizeof err2);
	struct xp_json_opts o = {FUZZ_MAX_OUT, 1, 0};
	int rc = xp_read_trace_json_mem(c, "fuzz", data, size, &o, &err);
	struct xp_json_opts o2 = {FUZZ_MAX_OUT, 2, 1 + size % 53, drop};
	int rc2 = xp_read_trace_json_mem(c2, "fuzz", data, size, &o2, &err2);
	if (rc == 0) {
		ASSERT(c->n_hosts == 1 && !err.status);
		check_model(c);
		if (xp_sniff(data, size) == XP_COMP_NONE)
			check_against_cjson(data, size, c);
		ASSERT(rc2 == 0);
		check_same(c, c2);
	} else {
		ASSERT(rc == -1 && c->n_hosts == 0 && err.status == XP_EXIT_BAD_INPUT && err.msg[0]);
		ASSERT(rc2 == -1 && c2->n_hosts == 0 && err2.status == err.status && !strcmp(err2.msg, err.msg) &&
		       err2.offset == err.offset && err2.has_offset == err.has_offset);
	}
	xp_capture_free(c);
	xp_capture_free(c2);
	return 0;
}
