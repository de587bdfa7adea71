/* test_xsbuild.c - the test-capture builder round-trips through the real XSpace reader. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caputil.h"
#include "check.h"
#include "xsbuild.h"
#include "formats/in/input.h"
#include "formats/in/xplane_read.h"
#include "formats/core/xperr.h"

/* Value of stat `name` on event (p, l, i) of host 0. */
static bool event_stat(const struct xp_capture *c, int p, int l, uint64_t i, const char *name, struct xp_value *v)
{
	const struct xp_plane *pl = &c->hosts[0].planes[p];
	return xp_event_find(c, pl, &pl->lines[l], i, xp_plane_stat_id(c, pl, name), v);
}

static const char *event_name(const struct xp_capture *c, struct cap_pos pos)
{
	const struct xp_plane *pl = &c->hosts[0].planes[pos.plane];
	return xp_str(c, xp_event_name(pl, &pl->lines[pos.line], pos.index));
}

static void test_structure(void)
{
	struct xsb *b = xsb_new();
	int host = xsb_plane(b, "/host:CPU", 7);
	int gpu = xsb_plane(b, "/device:GPU:1", 8);
	int l0 = xsb_line(b, host, 10, "python", 1000);
	int l1 = xsb_line(b, gpu, 20, "Stream #20", 1002);
	int e0 = xsb_event(b, host, l0, "TraceContext", 5, 100);
	int e1 = xsb_event(b, gpu, l1, "kernel", 0, 40);
	struct xp_capture *c = xsb_read(b);
	REQUIRE_INT(c->n_hosts, 1);
	int ph = cap_plane(c, 0, "/host:CPU"), pg = cap_plane(c, 0, "/device:GPU:1");
	REQUIRE(ph >= 0 && pg >= 0);
	const struct xp_plane *h = &c->hosts[0].planes[ph], *g = &c->hosts[0].planes[pg];
	CHECK_INT(h->id, 7);
	CHECK_INT(h->kind, XP_PLANE_HOST_CPU);
	CHECK_INT(g->kind, XP_PLANE_GPU);
	CHECK_INT(g->device_ordinal, 1);
	struct cap_pos p0 = cap_find(c, 0, b, host, e0), p1 = cap_find(c, 0, b, gpu, e1);
	REQUIRE(p0.ok && p1.ok);
	CHECK_STR(xp_str(c, h->lines[p0.line].name), "python");
	CHECK_INT(h->lines[p0.line].timestamp_ns, 1000);
	CHECK_STR(event_name(c, p0), "TraceContext");
	CHECK_STR(event_name(c, p1), "kernel");
	/* The host base is the smallest line timestamp (1000 ns). */
	CHECK_INT(h->lines[p0.line].start_ps[p0.index], 5);
	CHECK_INT(xp_dur(&h->lines[p0.line], p0.index), 100);
	CHECK_INT(g->lines[p1.line].start_ps[p1.index], 2000);
	xp_capture_free(c);
	xsb_free(b);
}

static void test_metadata_ids(void)
{
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int q = xsb_plane(b, "/device:GPU:0", 1);
	int l = xsb_line(b, p, 1, "t", 0);
	CHECK_INT(xsb_meta(b, p, "a"), 1);
	xsb_event(b, p, l, "b", 0, 1);
	CHECK_INT(xsb_meta(b, p, "b"), 2);
	CHECK_INT(xsb_meta(b, p, "a"), 1);
	CHECK_INT(xsb_meta(b, q, "b"), 1);
	CHECK_INT(xsb_stat_meta(b, p, "step_num"), 1);
	CHECK_INT(xsb_stat_meta(b, p, "group_id"), 2);
	CHECK_INT(xsb_stat_meta(b, q, "group_id"), 1);
	struct xp_capture *c = xsb_read(b);
	int pp = cap_plane(c, 0, "/host:CPU");
	REQUIRE(pp >= 0);
	const struct xp_plane *pl = &c->hosts[0].planes[pp];
	bool found_a = false;
	for (uint32_t k = 1; k < pl->n_emeta; k++)
		if (!strcmp(xp_str(c, pl->emeta[k].name), "a"))
			found_a = pl->emeta[k].id == 1;
	CHECK(found_a);
	CHECK(c->hosts[0].pre_grouped); /* a group_id stat metadata exists */
	xp_capture_free(c);
	xsb_free(b);
}

static void test_stat_kinds(void)
{
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int e = xsb_event(b, p, l, "ev", 0, 10);
	xsb_stat_int(b, p, e, "i", -5);
	xsb_stat_uint(b, p, e, "u", 18446744073709551615ull);
	xsb_stat_double(b, p, e, "d", 2.5);
	xsb_stat_str(b, p, e, "s", "hello");
	xsb_stat_ref(b, p, e, "r", "interned text");
	xsb_stat_bytes(b, p, e, "y", "\x01\x02", 2);
	xsb_meta_stat_str(b, p, "ev", "m", "from metadata");
	xsb_plane_stat_int(b, p, "pi", 42);
	xsb_plane_stat_str(b, p, "ps", "plane text");
	struct xp_capture *c = xsb_read(b);
	struct cap_pos pos = cap_find(c, 0, b, p, e);
	REQUIRE(pos.ok);
	struct xp_value v;
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "i", &v));
	CHECK_INT(v.kind, XP_STAT_I64);
	CHECK_INT(v.i, -5);
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "u", &v));
	CHECK_INT(v.kind, XP_STAT_U64);
	CHECK(v.u == 18446744073709551615ull);
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "d", &v));
	CHECK_DBL(v.d, 2.5, 0);
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "s", &v));
	CHECK_SLICE(v.s, v.len, "hello");
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "r", &v));
	CHECK_INT(v.kind, XP_STAT_STR);
	CHECK_SLICE(v.s, v.len, "interned text");
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "y", &v));
	CHECK_INT(v.kind, XP_STAT_BYTES);
	CHECK(v.len == 2 && v.s[0] == 1 && v.s[1] == 2);
	REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "m", &v));
	CHECK_SLICE(v.s, v.len, "from metadata");
	const struct xp_plane *pl = &c->hosts[0].planes[pos.plane];
	REQUIRE(xp_view_find(c, xp_plane_stats(pl), xp_plane_stat_id(c, pl, "pi"), &v));
	CHECK_INT(v.i, 42);
	REQUIRE(xp_view_find(c, xp_plane_stats(pl), xp_plane_stat_id(c, pl, "ps"), &v));
	CHECK_SLICE(v.s, v.len, "plane text");
	CHECK(!c->hosts[0].pre_grouped);
	xp_capture_free(c);
	xsb_free(b);
}

/* Events come back in the writers' order: offset ascending, duration descending. */
static void test_event_order(void)
{
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int late = xsb_event(b, p, l, "late", 50, 10);
	int inner = xsb_event(b, p, l, "inner", 0, 10);
	int outer = xsb_event(b, p, l, "outer", 0, 100);
	struct xp_capture *c = xsb_read(b);
	CHECK_INT(xsb_event_index(b, p, outer), 0);
	CHECK_INT(xsb_event_index(b, p, inner), 1);
	CHECK_INT(xsb_event_index(b, p, late), 2);
	struct cap_pos pos = cap_find(c, 0, b, p, late);
	REQUIRE(pos.ok);
	CHECK_STR(event_name(c, pos), "late");
	CHECK(!c->hosts[0].planes[pos.plane].lines[pos.line].unsorted);
	xp_capture_free(c);
	xsb_free(b);
}

static void test_keep_order(void)
{
	struct xsb *b = xsb_new();
	xsb_keep_order(b);
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int late = xsb_event(b, p, l, "late", 50, 10);
	xsb_event(b, p, l, "early", 0, 10);
	struct xp_capture *c = xsb_read(b);
	CHECK_INT(xsb_event_index(b, p, late), 0);
	struct cap_pos pos = cap_find(c, 0, b, p, late);
	REQUIRE(pos.ok);
	CHECK_STR(event_name(c, pos), "late");
	CHECK(c->hosts[0].planes[pos.plane].lines[pos.line].unsorted);
	xp_capture_free(c);
	xsb_free(b);
}

static void test_hosts(void)
{
	struct xsb *b[2] = {xsb_new(), xsb_new()};
	xsb_hostname(b[0], "host1");
	xsb_hostname(b[1], "host2");
	xsb_error(b[1], "oops");
	xsb_warning(b[1], "careful");
	for (int i = 0; i < 2; i++)
		xsb_line(b[i], xsb_plane(b[i], "/host:CPU", 0), 0, "t", 0);
	struct xp_capture *c = xsb_read_hosts(b, 2);
	REQUIRE_INT(c->n_hosts, 2);
	CHECK_STR(c->hosts[0].name, "host1");
	CHECK_STR(c->hosts[1].name, "host2");
	CHECK_INT(c->hosts[0].n_errors, 0);
	REQUIRE_INT(c->hosts[1].n_errors, 1);
	CHECK_STR(xp_str(c, c->hosts[1].errors[0]), "oops");
	REQUIRE_INT(c->hosts[1].n_warnings, 1);
	CHECK_STR(xp_str(c, c->hosts[1].warnings[0]), "careful");
	xp_capture_free(c);
	xsb_free(b[0]);
	xsb_free(b[1]);
}

/* Packing twice gives the same bytes (the builder is deterministic). */
static void test_pack_stable(void)
{
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int e = xsb_event(b, p, l, "x", 3, 4);
	xsb_stat_str(b, p, e, "s", "v");
	size_t n1, n2;
	uint8_t *a = xsb_pack(b, &n1), *a2 = xsb_pack(b, &n2);
	CHECK(n1 == n2 && !memcmp(a, a2, n1));
	CHECK(n1 > 0);
	free(a);
	free(a2);
	xsb_free(b);
}

/* Varints of every length, 1 to 10 bytes, in offsets, durations and stat values: the
 * reader decodes up to 8 bytes in one load and the rest byte by byte. */
static void test_varint_lengths(void)
{
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int ev[10];
	uint64_t val[10];
	for (int k = 0; k < 10; k++) {
		/* 7(k+1) bits: the largest value that still fits in k+1 bytes (all bits for 10). */
		val[k] = k == 9 ? UINT64_MAX : (1ull << (7 * (k + 1))) - 1;
		int64_t t = k < 9 ? (int64_t)(val[k] >> 1) : INT64_MAX / 4;
		ev[k] = xsb_event(b, p, l, "ev", t, k < 8 ? (int64_t)val[k] : 7);
		xsb_stat_uint(b, p, ev[k], "u", val[k]);
		xsb_stat_uint(b, p, ev[k], "one_more", k < 9 ? val[k] + 1 : 0);
	}
	struct xp_capture *c = xsb_read(b);
	for (int k = 0; k < 10; k++) {
		struct cap_pos pos = cap_find(c, 0, b, p, ev[k]);
		REQUIRE(pos.ok);
		const struct xp_line *ln = &c->hosts[0].planes[pos.plane].lines[pos.line];
		CHECK_INT(ln->start_ps[pos.index], k < 9 ? (int64_t)(val[k] >> 1) : INT64_MAX / 4);
		CHECK_INT(xp_dur(ln, pos.index), k < 8 ? (int64_t)val[k] : 7);
		struct xp_value v;
		REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "u", &v));
		CHECK(v.u == val[k]);
		REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "one_more", &v));
		CHECK(v.u == (k < 9 ? val[k] + 1 : 0));
	}
	xp_capture_free(c);
	xsb_free(b);
}

/* Read BYTES with THREADS threads: 0 when accepted, else the error's offset and message. */
static int read_raw(const uint8_t *bytes, size_t n, int threads, struct xp_err *err)
{
	struct xp_capture *c = xp_capture_new();
	struct xp_read_opts ro = {.threads = threads};
	memset(err, 0, sizeof *err);
	int rc = xp_read_xspace(c, "raw", bytes, n, &ro, err);
	xp_capture_free(c);
	return rc;
}

/* A length prefix is a 32-bit varint: up to 5 bytes, as protobuf-c reads it; a longer one (the value
 * fits, the encoding is not canonical) is refused, also on the event fast paths. */
static void test_long_length_prefix(void)
{
	/* XSpace.hostnames (field 4): "", "", then "" with a 7-byte length. */
	static const uint8_t top[] = {0x22, 0x00, 0x22, 0x00, 0x22, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	/* The same with a 5-byte length: accepted. */
	static const uint8_t top5[] = {0x22, 0x80, 0x80, 0x80, 0x80, 0x00};
	/* XSpace{plane{id 1, name "/host:CPU", line{id 1, event with a 6-byte length}}}. */
	static const uint8_t event[] = {
		0x0a, 0x18, 0x08, 0x01, 0x12, 0x09, '/', 'h', 'o', 's', 't', ':', 'C', 'P', 'U',
		0x1a, 0x09, 0x08, 0x01, 0x22, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
	};
	struct xp_err err;
	for (int threads = 1; threads <= 2; threads++) {
		CHECK(read_raw(top, sizeof top, threads, &err) != 0);
		CHECK_INT(err.offset, 5);
		CHECK_STR(err.msg, "corrupt XSpace: length longer than 5 bytes");
		CHECK(read_raw(top5, sizeof top5, threads, &err) == 0);
		CHECK(read_raw(event, sizeof event, threads, &err) != 0);
		CHECK_INT(err.offset, 20);
		CHECK_STR(err.msg, "corrupt XSpace: length longer than 5 bytes");
	}
}

/* Dense id of the stat metadata named NAME, without xp_plane_stat_id (which refuses dropped stats). */
static uint32_t smeta_named(const struct xp_capture *c, const struct xp_plane *pl, const char *name)
{
	for (uint32_t s = 1; s < pl->n_smeta; s++)
		if (!strcmp(xp_str(c, pl->smeta[s].name), name))
			return s;
	return 0;
}

static bool view_has(struct xp_stat_view v, uint32_t sid)
{
	for (uint32_t k = 0; k < v.n; k++)
		if (xp_stat_meta(v.keys[k]) == sid)
			return true;
	return false;
}

/* xp_read_opts.drop_stats: the named event stats are not kept, on one thread and on two; their
 * metadata stays and is marked; metadata and plane stats and the oddities are as in a full read;
 * reading a dropped stat by name is an internal error (exit 4). */
/* BYTES read as one host with options O; aborts when reading fails. */
static struct xp_capture *read_with(const uint8_t *bytes, size_t n, struct xp_read_opts o)
{
	struct xp_capture *c = xp_capture_new();
	struct xp_err err = {0};
	if (xp_read_xspace(c, "test", bytes, n, &o, &err)) {
		fprintf(stderr, "xp_read_xspace failed: %s\n", err.msg);
		abort();
	}
	return c;
}

static struct xp_capture *read_whole(const uint8_t *bytes, size_t n)
{
	return read_with(bytes, n, (struct xp_read_opts){.threads = 1});
}

static void test_drop_stats(void)
{
	static const char *const drop[] = {"gone", "gone_ref", NULL};
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int ev[3];
	for (int k = 0; k < 3; k++) {
		ev[k] = xsb_event(b, p, l, "ev", k * 100, 10);
		xsb_stat_str(b, p, ev[k], "gone", "a string the reader need not copy");
		xsb_stat_int(b, p, ev[k], "keep", 7 + k);
		xsb_stat_ref(b, p, ev[k], "gone_ref", "interned");
		xsb_stat_uint(b, p, ev[k], "wide", 1ull << 40 | (uint64_t)k);
	}
	xsb_meta_stat_str(b, p, "ev", "gone", "metadata stats stay");
	xsb_plane_stat_int(b, p, "gone", 5);
	size_t n;
	uint8_t *bytes = xsb_pack(b, &n);
	struct xp_capture *full = read_whole(bytes, n);
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_capture *c = read_with(bytes, n, (struct xp_read_opts){.threads = threads, .drop_stats = drop});
		const struct xp_plane *pl = &c->hosts[0].planes[0];
		uint32_t gone = smeta_named(c, pl, "gone"), gone_ref = smeta_named(c, pl, "gone_ref");
		REQUIRE(gone && gone_ref);
		CHECK(pl->smeta[gone].dropped && pl->smeta[gone_ref].dropped);
		CHECK(!pl->smeta[smeta_named(c, pl, "keep")].dropped);
		for (int k = 0; k < 3; k++) {
			struct cap_pos pos = cap_find(c, 0, b, p, ev[k]);
			REQUIRE(pos.ok);
			struct xp_stat_view v = xp_event_stats(&pl->lines[pos.line], pos.index);
			CHECK_INT(v.n, 2);
			CHECK(!view_has(v, gone) && !view_has(v, gone_ref));
			struct xp_value val;
			REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "keep", &val));
			CHECK_INT(val.i, 7 + k);
			REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "wide", &val));
			CHECK(val.u == (1ull << 40 | (uint64_t)k));
			CHECK(view_has(xp_meta_stats(pl, xp_meta_of(&pl->lines[pos.line], pos.index)), gone));
		}
		CHECK(view_has(xp_plane_stats(pl), gone));
		/* A line's stat count is the capture's, dropped ones included (info shows it). */
		CHECK_INT(pl->lines[0].n_stats, 12);
		CHECK_INT(pl->lines[0].n_stats, full->hosts[0].planes[0].lines[0].n_stats);
		CHECK(memcmp(&c->hosts[0].odd, &full->hosts[0].odd, sizeof c->hosts[0].odd) == 0);
		fflush(NULL);
		pid_t child = fork();
		REQUIRE(child >= 0);
		if (child == 0) {
			REQUIRE(freopen("/dev/null", "w", stderr) != NULL);
			xp_plane_stat_id(c, pl, "gone");
			_exit(0);
		}
		int status = 0;
		REQUIRE(waitpid(child, &status, 0) == child);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
		xp_capture_free(c);
	}
	xp_capture_free(full);
	free(bytes);
	xsb_free(b);
}

/* A read of device events alone: the host plane keeps its line, name and time base, with no events; the GPU
 * plane's events are those of a whole read (the host line's earlier timestamp still sets the base). */
static void test_device_events_only(void)
{
	struct xsb *b = xsb_new();
	int h = xsb_plane(b, "/host:CPU", 0), g = xsb_plane(b, "/device:GPU:0", 1);
	int hl = xsb_line(b, h, 1, "python3", 0), gl = xsb_line(b, g, 2, "Stream #7(Compute)", 5);
	for (int k = 0; k < 3; k++) {
		int e = xsb_event(b, h, hl, "cudaLaunchKernel", k * 100, 10);
		xsb_stat_int(b, h, e, "correlation_id", k);
		e = xsb_event(b, g, gl, "volta_sgemm", k * 100 + 20, 50);
		xsb_stat_int(b, g, e, "correlation_id", k);
	}
	size_t n;
	uint8_t *bytes = xsb_pack(b, &n);
	struct xp_capture *full = read_whole(bytes, n);
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_capture *c = read_with(bytes, n, (struct xp_read_opts){.threads = threads, .device_events_only = true});
		const struct xp_host *got = &c->hosts[0], *want = &full->hosts[0];
		REQUIRE(got->n_planes == 2 && want->planes[0].lines[0].n_events == 3);
		CHECK_INT(got->base_ns, want->base_ns);
		const struct xp_line *host_line = &got->planes[0].lines[0];
		CHECK_INT(host_line->n_events, 0);
		CHECK_STR(xp_str(c, host_line->name), "python3");
		const struct xp_line *gpu = &got->planes[1].lines[0], *gpu_full = &want->planes[1].lines[0];
		REQUIRE(gpu->n_events == 3);
		for (uint64_t i = 0; i < 3; i++) {
			CHECK_INT(gpu->start_ps[i], gpu_full->start_ps[i]);
			CHECK_INT(xp_dur(gpu, i), 50);
			struct xp_value v;
			REQUIRE(event_stat(c, 1, 0, (uint32_t)i, "correlation_id", &v));
			CHECK_INT(v.i, (int64_t)i);
		}
		xp_capture_free(c);
	}
	xp_capture_free(full);
	free(bytes);
	xsb_free(b);
}

/* Events whose stats come with the same keys in the same order share one run of keys; the values
 * stay each event's own, and an event with its keys in another order keeps a run of its own. */
static void test_shared_keys(void)
{
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int l = xsb_line(b, p, 1, "t", 0);
	int ev[100];
	for (int k = 0; k < 100; k++) {
		ev[k] = xsb_event(b, p, l, "ev", k * 10, 5);
		if (k == 50) { /* the same stats, another order */
			xsb_stat_uint(b, p, ev[k], "b", 1000 + (uint64_t)k);
			xsb_stat_int(b, p, ev[k], "a", k);
		} else {
			xsb_stat_int(b, p, ev[k], "a", k);
			xsb_stat_uint(b, p, ev[k], "b", 1000 + (uint64_t)k);
		}
	}
	size_t n;
	uint8_t *bytes = xsb_pack(b, &n);
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		REQUIRE(xp_read_xspace(c, "keys", bytes, n, &(struct xp_read_opts){.threads = threads}, &err) == 0);
		const struct xp_line *line = &c->hosts[0].planes[0].lines[0];
		REQUIRE(line->key_begin != NULL);
		CHECK_INT(line->blocks[0].stats.n, 200);
		CHECK_INT(line->blocks[0].stats.n_keys, 4);
		for (int k = 0; k < 100; k++) {
			struct cap_pos pos = cap_find(c, 0, b, p, ev[k]);
			REQUIRE(pos.ok);
			struct xp_value v;
			REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "a", &v));
			CHECK_INT(v.i, k);
			REQUIRE(event_stat(c, pos.plane, pos.line, pos.index, "b", &v));
			CHECK(v.u == 1000 + (uint64_t)k);
		}
		xp_capture_free(c);
	}
	free(bytes);
	xsb_free(b);
}

/* Line L of the stream's read (decoded in [lo, hi) when WINDOW) holds the events of the whole read's line W
 * that overlap the window (an instant one: lo <= start < hi), with the same times, metadata and stats. */
static void check_stream_line(const struct xp_capture *cw, const struct xp_line *w, const struct xp_capture *cs,
			      const struct xp_line *l, bool window, int64_t lo, int64_t hi)
{
	uint64_t j = 0;
	for (uint64_t i = 0; i < w->n_events; i++) {
		int64_t s = w->start_ps[i], d = xp_dur(w, i);
		if (window && !(d ? s < hi && s + d > lo : s >= lo && s < hi))
			continue;
		REQUIRE(j < l->n_events);
		CHECK_INT(l->start_ps[j], s);
		CHECK_INT(xp_dur(l, j), d);
		CHECK_INT(xp_meta_of(l, j), xp_meta_of(w, i));
		struct xp_stat_view a = xp_event_stats(w, i), b = xp_event_stats(l, j);
		REQUIRE_INT(b.n, a.n);
		for (uint32_t k = 0; k < a.n; k++) {
			CHECK_INT(b.keys[k], a.keys[k]);
			if (xp_stat_kind(a.keys[k]) == XP_STAT_STR)
				CHECK_STR(xp_str(cs, (uint32_t)xp_view_val(&b, k)), xp_str(cw, (uint32_t)xp_view_val(&a, k)));
			else if (xp_stat_kind(a.keys[k]) <= XP_STAT_F64)
				CHECK(xp_view_val(&b, k) == xp_view_val(&a, k));
		}
		j++;
	}
	CHECK_INT(l->n_events, j);
}

/* xp_xspace_stream_*: line headers first, then each line's events, whole or in a window (chunks of 1,024 events
 * outside it skipped), give what xp_read_xspace gives: lines at other timestamps (their own bases), an unsorted
 * line, varints of every length, a line of 3,000 events. */
static void test_stream(void)
{
	struct xsb *b = xsb_new();
	xsb_keep_order(b);
	int p = xsb_plane(b, "/host:CPU", 0), g = xsb_plane(b, "/device:GPU:0", 1);
	int l0 = xsb_line(b, p, 1, "t", 5000), l1 = xsb_line(b, g, 2, "Stream #2", 1000), l2 = xsb_line(b, p, 3, "u", 9);
	for (int k = 0; k < 3000; k++) {
		int e = xsb_event(b, g, l1, k % 3 ? "kernel" : "copy", (int64_t)k * 1000, k % 7 ? 500 : 0);
		xsb_stat_uint(b, g, e, "correlation_id", (uint64_t)k);
		if (k % 5 == 0)
			xsb_stat_str(b, g, e, "tf_op", k % 2 ? "a:A" : "b:B");
	}
	for (int k = 0; k < 10; k++) { /* 1 to 10 byte varints; out of order */
		uint64_t v = k == 9 ? UINT64_MAX : (1ull << (7 * (k + 1))) - 1;
		int e = xsb_event(b, p, l0, "ev", k < 9 ? (int64_t)(v >> 1) : INT64_MAX / 4, k < 8 ? (int64_t)v : 7);
		xsb_stat_uint(b, p, e, "u", v);
		xsb_event(b, p, l2, "late", 900000 - k * 1000, 2000);
	}
	size_t n;
	uint8_t *bytes = xsb_pack(b, &n);
	struct xp_read_opts ro = {.threads = 1};
	struct xp_err err = {0};
	struct xp_capture *cw = xp_capture_new();
	REQUIRE(!xp_read_xspace(cw, "s", bytes, n, &ro, &err));
	static const int64_t windows[][2] = {{0, 1}, {1500000, 1600000}, {2000000, 2000001}, {4000000, 9000000},
					     {-5, 1000000000}, {INT64_MIN / 2, INT64_MAX / 2},
					     {2014499, 2014600}, {2013000, 2013001}, /* the last events of the first chunk */
					     {2015000, 2015001}}; /* the first of the second */
	/* each window without the runs' spans (every event's times read), with those the stream's walk notes, and
	 * with those of the whole read (runs outside skipped unread) */
	const size_t nw = sizeof windows / sizeof *windows;
	struct xp_run_spans *spans = xp_run_spans_of(&cw->hosts[0]);
	for (size_t t = 0; t <= 3 * nw; t++) {
		bool window = t < 3 * nw;
		const int64_t *wt = windows[t / 3];
		struct xp_read_opts so = {.threads = 1, .stream_spans = t % 3 == 1};
		struct xp_capture *cs = xp_capture_new();
		struct xp_buf buf = {.data = bytes, .len = n};
		struct xp_xspace_stream *st;
		REQUIRE(!xp_xspace_stream_open(cs, "s", &buf, &so, &st, &err));
		if (t % 3 == 2)
			REQUIRE(xp_xspace_stream_use_spans(st, spans));
		struct xp_host *h = &cs->hosts[0];
		CHECK_INT(h->base_ns, cw->hosts[0].base_ns);
		REQUIRE_INT(h->n_planes, cw->hosts[0].n_planes);
		for (uint32_t i = 0; i < h->n_planes; i++) {
			REQUIRE_INT(h->planes[i].n_lines, cw->hosts[0].planes[i].n_lines);
			for (uint32_t k = 0; k < h->planes[i].n_lines; k++) {
				struct xp_line *l = &h->planes[i].lines[k];
				const struct xp_line *w = &cw->hosts[0].planes[i].lines[k];
				CHECK_INT(l->n_events, w->n_events); /* the headers' count, before any event is read */
				CHECK_INT(l->timestamp_ns, w->timestamp_ns);
				CHECK_STR(xp_str(cs, l->name), xp_str(cw, w->name));
				int rc = window ? xp_xspace_stream_line_in(st, h, l, wt[0], wt[1], &err)
						: xp_xspace_stream_line(st, h, l, &err);
				REQUIRE(!rc);
				check_stream_line(cw, w, cs, l, window, window ? wt[0] : 0, window ? wt[1] : 0);
				xp_line_release(l);
			}
		}
		xp_xspace_stream_close(st);
		xp_capture_free(cs);
	}
	xp_run_spans_free(spans);
	xp_capture_free(cw);
	free(bytes);
	xsb_free(b);
}

/* Durations are 32 bits in the model; those of 2^32 - 1 ps or more live beside them in their block. Every one
 * reads back exactly, in both blocks of a line, from the decode on one thread (fused) and on two (by block),
 * and a duration whose end would pass INT64_MAX is clamped as before. */
static void test_long_durations(void)
{
	static const int64_t durs[] = {0, 1, 4294967294ll, 4294967295ll, 4294967296ll, 1000000000000ll,
				       INT64_MAX / 2, 7};
	const size_t nd = sizeof durs / sizeof *durs;
	const int n = XP_BLOCK_EVENTS + 1000; /* two blocks */
	struct xsb *b = xsb_new();
	int p = xsb_plane(b, "/host:CPU", 0);
	int line = xsb_line(b, p, 1, "t", 0);
	xsb_keep_order(b);
	for (int k = 0; k < n; k++)
		/* the long ones at both ends of each block and in between */
		xsb_event(b, p, line, "e", (int64_t)k * 10, k % 97 == 0 || k == XP_BLOCK_EVENTS - 1 ||
			  k == XP_BLOCK_EVENTS ? durs[(size_t)k % nd] : k);
	/* its end passes INT64_MAX: clamped to end there */
	xsb_event(b, p, line, "e", INT64_MAX - 5, INT64_MAX / 2);
	/* a line that starts near the end of time: a long duration clamped once the line is placed (the
	 * one-thread decode lowers the long value it kept) */
	int late = xsb_line(b, p, 2, "late", INT64_MAX / 1000 - 10);
	xsb_event(b, p, late, "e", 0, INT64_MAX / 2);
	size_t len;
	uint8_t *bytes = xsb_pack(b, &len);
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		REQUIRE(xp_read_xspace(c, "long", bytes, len, &(struct xp_read_opts){.threads = threads}, &err) == 0);
		const struct xp_line *l = &c->hosts[0].planes[0].lines[0];
		REQUIRE_INT(l->n_events, n + 1);
		uint32_t n_long = 0;
		for (int k = 0; k < n; k++) {
			int64_t want = k % 97 == 0 || k == XP_BLOCK_EVENTS - 1 || k == XP_BLOCK_EVENTS ? durs[(size_t)k % nd] : k;
			CHECK_INT(xp_dur(l, (uint64_t)k), want);
			n_long += want >= (int64_t)XP_DUR_LONG;
		}
		CHECK_INT(l->blocks[0].n_long + l->blocks[1].n_long, n_long);
		CHECK(n_long > 100);
		CHECK(xp_event_end(l, (uint64_t)n) == INT64_MAX);
		CHECK_INT(xp_dur(l, (uint64_t)n), 5);
		const struct xp_line *ll = &c->hosts[0].planes[0].lines[1];
		REQUIRE_INT(ll->n_events, 1);
		CHECK(xp_event_end(ll, 0) == INT64_MAX);
		CHECK(xp_dur(ll, 0) > 0 && xp_dur(ll, 0) < 20000);
		CHECK(c->hosts[0].odd.time_overflow_lines == 2);
		xp_capture_free(c);
	}
	free(bytes);
	xsb_free(b);
}

/* Metadata indexes are 16 bits on a plane of at most 65,536 entries, 32 beyond: events name their metadata
 * right either way, on one thread and on two. */
static void test_wide_metadata(void)
{
	const int n = 70000;
	struct xsb *b = xsb_new();
	int big = xsb_plane(b, "/host:CPU", 0), small = xsb_plane(b, "/device:GPU:0", 1);
	int lb = xsb_line(b, big, 1, "t", 0), ls = xsb_line(b, small, 1, "s", 0);
	char name[32];
	for (int k = 0; k < n; k++) {
		snprintf(name, sizeof name, "e%d", k);
		xsb_event(b, big, lb, name, (int64_t)k * 10, 5);
	}
	xsb_event(b, small, ls, "k", 0, 5);
	size_t len;
	uint8_t *bytes = xsb_pack(b, &len);
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		REQUIRE(xp_read_xspace(c, "meta", bytes, len, &(struct xp_read_opts){.threads = threads}, &err) == 0);
		const struct xp_plane *pb = &c->hosts[0].planes[0], *ps = &c->hosts[0].planes[1];
		const struct xp_line *l = &pb->lines[0];
		REQUIRE_INT(l->n_events, n);
		CHECK(l->meta32 && !l->meta16);
		CHECK(ps->lines[0].meta16 && !ps->lines[0].meta32);
		for (int k = 0; k < n; k += 997) {
			snprintf(name, sizeof name, "e%d", k);
			CHECK_STR(xp_str(c, xp_event_name(pb, l, (uint64_t)k)), name);
		}
		snprintf(name, sizeof name, "e%d", n - 1);
		CHECK_STR(xp_str(c, xp_event_name(pb, l, (uint64_t)n - 1)), name);
		CHECK_STR(xp_str(c, xp_event_name(ps, &ps->lines[0], 0)), "k");
		xp_capture_free(c);
	}
	free(bytes);
	xsb_free(b);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_structure), TEST(test_metadata_ids), TEST(test_stat_kinds), TEST(test_event_order),
		TEST(test_keep_order), TEST(test_hosts), TEST(test_pack_stable), TEST(test_varint_lengths),
		TEST(test_long_length_prefix), TEST(test_drop_stats), TEST(test_device_events_only), TEST(test_shared_keys), TEST(test_stream),
		TEST(test_long_durations), TEST(test_wide_metadata),
	};
	return RUN_TESTS("test_xsbuild", tests);
}
