/* test_input.c - unit tests of capture discovery (runs, hosts, file choice) and bounded decompression. */
#include "formats/in/input.h"
#include "tests/tmpdir.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

static int failures, checks;

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), __FILE__, __LINE__)

static void check(bool ok, const char *what, const char *file, int line)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
}

static void check_str(const char *got, const char *want, const char *file, int line)
{
	checks++;
	if (!got || strcmp(got, want)) {
		failures++;
		fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", file, line, got ? got : "(null)", want);
	}
}

static bool contains(const char *s, const char *part)
{
	return s && strstr(s, part);
}

/* ---- temp trees ---- */

static char root[256];

static char *at(const char *rel)
{
	static char buf[4][1024];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
	return buf[k];
}

static void mkdirs(const char *path)
{
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

/* Write a file under the temp root, creating its directories. */
static void put(const char *rel, const void *data, size_t n)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", at(rel));
	char *slash = strrchr(dir, '/');
	*slash = 0;
	mkdirs(dir);
	FILE *f = fopen(at(rel), "wb");
	if (!f) {
		perror(at(rel));
		exit(99);
	}
	if (n && fwrite(data, 1, n, f) != n)
		exit(99);
	fclose(f);
}

static void put_str(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

static void set_mtime(const char *rel, time_t t)
{
	struct timeval tv[2] = { { t, 0 }, { t, 0 } };
	utimes(at(rel), tv);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- compression helpers ---- */

struct bytes {
	uint8_t *p;
	size_t n;
};

static void gz_feed(z_stream *zs, const uint8_t *in, size_t n, int flush, struct bytes *out)
{
	zs->next_in = (Bytef *)(uintptr_t)in;
	zs->avail_in = (uInt)n;
	int ret;
	do {
		out->p = realloc(out->p, out->n + 65536);
		zs->next_out = out->p + out->n;
		zs->avail_out = 65536;
		ret = deflate(zs, flush);
		out->n += 65536 - zs->avail_out;
	} while (zs->avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
}

/* gzip of `reps` copies of in[0..n). */
static struct bytes gzip_of(const void *in, size_t n, int reps)
{
	struct bytes out = { 0 };
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	for (int i = 0; i < reps; i++)
		gz_feed(&zs, in, n, Z_NO_FLUSH, &out);
	gz_feed(&zs, NULL, 0, Z_FINISH, &out);
	deflateEnd(&zs);
	return out;
}

static struct bytes zstd_of(const void *in, size_t n, int reps)
{
	struct bytes out = { 0 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t chunk = ZSTD_CStreamOutSize();
	for (int i = 0; i <= reps; i++) {
		ZSTD_inBuffer ib = { in, i < reps ? n : 0, 0 };
		ZSTD_EndDirective mode = i < reps ? ZSTD_e_continue : ZSTD_e_end;
		size_t left;
		do {
			out.p = realloc(out.p, out.n + chunk);
			ZSTD_outBuffer ob = { out.p + out.n, chunk, 0 };
			left = ZSTD_compressStream2(cc, &ob, &ib, mode);
			out.n += ob.pos;
		} while (mode == ZSTD_e_end ? left != 0 : ib.pos < ib.size);
	}
	ZSTD_freeCCtx(cc);
	return out;
}

/* A streamed zstd frame (no content size) with the given window log. */
static struct bytes zstd_window_of(const void *in, size_t n, int window_log)
{
	struct bytes out = { 0 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, window_log);
	size_t cap = ZSTD_compressBound(n) + 64;
	out.p = malloc(cap);
	ZSTD_outBuffer ob = { out.p, cap, 0 };
	ZSTD_inBuffer ib = { in, n, 0 };
	ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_continue);
	ZSTD_inBuffer none = { NULL, 0, 0 };
	while (ZSTD_compressStream2(cc, &ob, &none, ZSTD_e_end) != 0)
		;
	out.n = ob.pos;
	ZSTD_freeCCtx(cc);
	return out;
}

static void append(struct bytes *a, const void *p, size_t n)
{
	a->p = realloc(a->p, a->n + n);
	memcpy(a->p + a->n, p, n);
	a->n += n;
}

/* Compressible but not trivial data. */
static uint8_t *sample(size_t n)
{
	uint8_t *p = malloc(n);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)("abcdefgh"[(x >> 16) & 7] + (i % 97 == 0));
	}
	return p;
}

/* ---- decompression tests ---- */

static void test_sniff(void)
{
	const uint8_t gz[] = { 0x1f, 0x8b, 8 }, zs[] = { 0x28, 0xb5, 0x2f, 0xfd }, skip[] = { 0x50, 0x2a, 0x4d, 0x18 };
	const uint8_t pb[] = { 0x0a, 0x05 };
	CHECK(xp_sniff(gz, sizeof gz) == XP_COMP_GZIP);
	CHECK(xp_sniff(zs, sizeof zs) == XP_COMP_ZSTD);
	CHECK(xp_sniff(skip, sizeof skip) == XP_COMP_ZSTD);
	CHECK(xp_sniff(pb, sizeof pb) == XP_COMP_NONE);
	CHECK(xp_sniff(gz, 1) == XP_COMP_NONE);
	CHECK(xp_sniff(zs, 3) == XP_COMP_NONE);
	CHECK_STR(xp_compression_name(XP_COMP_NONE), "none");
	CHECK_STR(xp_compression_name(XP_COMP_GZIP), "gzip");
	CHECK_STR(xp_compression_name(XP_COMP_ZSTD), "zstd");
	CHECK(xp_physical_memory() > 0);
}

/* Decompress c and compare with `reps` copies of want[0..n). */
static void expect_round_trip(struct bytes c, enum xp_compression comp, const uint8_t *want, size_t n, int reps)
{
	struct xp_err err = { 0 };
	uint8_t *out = NULL;
	uint64_t len = 0;
	CHECK(xp_sniff(c.p, c.n) == comp);
	CHECK(xp_decompress("t", c.p, c.n, comp, (uint64_t)1 << 30, &out, &len, &err) == 0);
	CHECK(err.status == 0);
	CHECK(len == (uint64_t)n * (uint64_t)reps);
	bool same = out && len == (uint64_t)n * (uint64_t)reps;
	for (int i = 0; same && i < reps; i++)
		same = !memcmp(out + (size_t)i * n, want, n);
	CHECK(same);
	free(out);
}

static void test_round_trips(void)
{
	size_t n = 1 << 20;
	uint8_t *data = sample(n);
	struct bytes g = gzip_of(data, n, 3), z = zstd_of(data, n, 3);
	expect_round_trip(g, XP_COMP_GZIP, data, n, 3);
	expect_round_trip(z, XP_COMP_ZSTD, data, n, 3);

	/* Concatenated gzip members and several zstd frames, plus a skippable frame. */
	struct bytes g1 = gzip_of(data, n, 1), gg = { 0 };
	append(&gg, g1.p, g1.n);
	append(&gg, g1.p, g1.n);
	expect_round_trip(gg, XP_COMP_GZIP, data, n, 2);
	struct bytes z1 = zstd_of(data, n, 1), zz = { 0 };
	const uint8_t skippable[] = { 0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'x', 'y', 'z' };
	append(&zz, z1.p, z1.n);
	append(&zz, skippable, sizeof skippable);
	append(&zz, z1.p, z1.n);
	expect_round_trip(zz, XP_COMP_ZSTD, data, n, 2);

	/* Empty payloads are fine. */
	struct bytes ge = gzip_of("", 0, 1), ze = zstd_of("", 0, 1);
	expect_round_trip(ge, XP_COMP_GZIP, data, 0, 1);
	expect_round_trip(ze, XP_COMP_ZSTD, data, 0, 1);

	free(g.p), free(z.p), free(g1.p), free(gg.p), free(z1.p), free(zz.p), free(ge.p), free(ze.p);
	free(data);
}

static struct xp_err decompress_err(struct bytes c, enum xp_compression comp, uint64_t max_out)
{
	struct xp_err err = { 0 };
	uint8_t *out = (uint8_t *)1;
	uint64_t len = 7;
	CHECK(xp_decompress("cap.gz", c.p, c.n, comp, max_out, &out, &len, &err) == -1);
	CHECK(out == NULL && len == 0);
	CHECK(err.status == XP_EXIT_BAD_INPUT);
	CHECK_STR(err.path, "cap.gz");
	return err;
}

static void test_broken_streams(void)
{
	size_t n = 200000;
	uint8_t *data = sample(n);
	struct bytes g = gzip_of(data, n, 1), z = zstd_of(data, n, 1);

	struct bytes cut = { g.p, g.n / 2 };
	struct xp_err e = decompress_err(cut, XP_COMP_GZIP, 1 << 30);
	CHECK_STR(e.msg, "truncated gzip stream");
	CHECK(e.has_offset && e.offset == g.n / 2);
	cut.n = g.n - 1;        /* only the trailer's last byte missing */
	e = decompress_err(cut, XP_COMP_GZIP, 1 << 30);
	CHECK_STR(e.msg, "truncated gzip stream");
	cut.n = 5;
	e = decompress_err(cut, XP_COMP_GZIP, 1 << 30);
	CHECK_STR(e.msg, "truncated gzip stream");
	CHECK(e.has_offset && e.offset == 5);

	cut = (struct bytes){ z.p, z.n / 2 };
	e = decompress_err(cut, XP_COMP_ZSTD, 1 << 30);
	CHECK_STR(e.msg, "truncated zstd stream");
	CHECK(e.has_offset && e.offset == z.n / 2);
	cut.n = z.n - 1;
	e = decompress_err(cut, XP_COMP_ZSTD, 1 << 30);
	CHECK_STR(e.msg, "truncated zstd stream");

	/* Trailing garbage after complete streams. */
	struct bytes gt = { 0 }, zt = { 0 };
	append(&gt, g.p, g.n);
	append(&gt, "junk", 4);
	e = decompress_err(gt, XP_COMP_GZIP, 1 << 30);
	CHECK(contains(e.msg, "trailing garbage"));
	CHECK(e.has_offset && e.offset == g.n);
	append(&zt, z.p, z.n);
	append(&zt, "junk", 4);
	e = decompress_err(zt, XP_COMP_ZSTD, 1 << 30);
	CHECK(contains(e.msg, "trailing garbage"));
	CHECK(e.has_offset && e.offset == z.n);

	/* Corrupt data in the middle. */
	struct bytes gc = { 0 }, zc = { 0 };
	append(&gc, g.p, g.n);
	for (size_t i = 100; i < 140; i++)
		gc.p[i] ^= 0x5a;
	e = decompress_err(gc, XP_COMP_GZIP, 1 << 30);
	CHECK(contains(e.msg, "corrupt gzip data") || contains(e.msg, "truncated"));
	CHECK(e.has_offset);
	append(&zc, z.p, z.n);
	for (size_t i = 20; i < 60; i++)
		zc.p[i] ^= 0x5a;
	e = decompress_err(zc, XP_COMP_ZSTD, 1 << 30);
	CHECK(contains(e.msg, "corrupt zstd data"));
	CHECK(e.has_offset && e.offset < zc.n);

	/* Deep in a big stream, the offset still says roughly where: a bad
	 * second frame after 1 MB of good zstd, and flipped bytes in gzip. */
	size_t big = 3 << 20;
	uint8_t *bd = sample(big);
	struct bytes zb = zstd_of(bd, big, 1);
	size_t second = zb.n;
	const uint8_t bad_frame[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x08, 0, 0, 0, 0, 0 }; /* reserved bit set */
	append(&zb, bad_frame, sizeof bad_frame);
	e = decompress_err(zb, XP_COMP_ZSTD, 1 << 30);
	CHECK(contains(e.msg, "corrupt zstd data"));
	CHECK(e.has_offset && e.offset <= second && e.offset + ZSTD_DStreamInSize() >= second);
	struct bytes gb = gzip_of(bd, big, 1);
	second = gb.n;
	const uint8_t bad_member[] = { 0x1f, 0x8b, 0x09, 0, 0, 0, 0, 0, 0, 3 }; /* method 9 */
	append(&gb, bad_member, sizeof bad_member);
	e = decompress_err(gb, XP_COMP_GZIP, 1 << 30);
	CHECK(contains(e.msg, "corrupt gzip data"));
	CHECK(e.has_offset && e.offset >= second && e.offset <= second + sizeof bad_member);
	free(zb.p), free(gb.p), free(bd);

	/* Not compressed at all, though called so. */
	struct bytes junk = { data, 100 };
	e = decompress_err(junk, XP_COMP_GZIP, 1 << 30);
	CHECK(contains(e.msg, "corrupt gzip data"));
	e = decompress_err(junk, XP_COMP_ZSTD, 1 << 30);
	CHECK(contains(e.msg, "corrupt zstd data"));
	struct bytes none = { data, 0 };
	e = decompress_err(none, XP_COMP_ZSTD, 1 << 30);
	CHECK(contains(e.msg, "truncated zstd stream"));

	free(g.p), free(z.p), free(gt.p), free(zt.p), free(gc.p), free(zc.p);
	free(data);
}

static void test_limits(void)
{
	/* 100 MB of zeros: a bomb for a 1 MiB limit. */
	uint8_t *zeros = calloc(1, 1 << 20);
	struct bytes g = gzip_of(zeros, 1 << 20, 100), z = zstd_of(zeros, 1 << 20, 100);
	CHECK(g.n < (1 << 20) && z.n < (1 << 20));
	struct xp_err e = decompress_err(g, XP_COMP_GZIP, 1 << 20);
	CHECK_STR(e.msg, "decompressed size exceeds the limit of 1048576 bytes (--max-input-bytes)");
	e = decompress_err(z, XP_COMP_ZSTD, 1 << 20);
	CHECK_STR(e.msg, "decompressed size exceeds the limit of 1048576 bytes (--max-input-bytes)");

	/* Exactly at the limit is allowed; one byte over is not. */
	struct bytes g1 = gzip_of(zeros, 1000, 1), z1 = zstd_of(zeros, 1000, 1);
	uint8_t *out;
	uint64_t len;
	struct xp_err ok = { 0 };
	CHECK(xp_decompress("t", g1.p, g1.n, XP_COMP_GZIP, 1000, &out, &len, &ok) == 0 && len == 1000);
	free(out);
	CHECK(xp_decompress("t", z1.p, z1.n, XP_COMP_ZSTD, 1000, &out, &len, &ok) == 0 && len == 1000);
	free(out);
	CHECK(ok.status == 0);
	/* A zstd window over 128 MiB needs a limit that large. */
	struct bytes zw = zstd_window_of(zeros, 1000, 28);
	e = decompress_err(zw, XP_COMP_ZSTD, 1 << 20);
	CHECK(contains(e.msg, "zstd frame needs a window over 134217728 bytes"));
	CHECK(xp_decompress("t", zw.p, zw.n, XP_COMP_ZSTD, (uint64_t)1 << 28, &out, &len, &ok) == 0 && len == 1000);
	free(out);
	free(zw.p);

	/* Not compressed: a bounded copy. */
	CHECK(xp_decompress("t", zeros, 1000, XP_COMP_NONE, 1000, &out, &len, &ok) == 0 && len == 1000);
	free(out);
	struct bytes plain = { zeros, 1000 };
	e = decompress_err(plain, XP_COMP_NONE, 999);
	CHECK(contains(e.msg, "exceeds the limit of 999 bytes"));
	e = decompress_err(g1, XP_COMP_GZIP, 999);
	CHECK(contains(e.msg, "exceeds the limit of 999 bytes"));
	e = decompress_err(z1, XP_COMP_ZSTD, 999);
	CHECK(contains(e.msg, "exceeds the limit of 999 bytes"));

	free(g.p), free(z.p), free(g1.p), free(z1.p);
	free(zeros);
}

static void test_buf_open(void)
{
	size_t n = 300000;
	uint8_t *data = sample(n);
	struct bytes g = gzip_of(data, n, 1), z = zstd_of(data, n, 1);
	put("files/plain.xplane.pb", data, n);
	put("files/c.xplane.pb.gz", g.p, g.n);
	put("files/named-wrong.xplane.pb", z.p, z.n);   /* zstd, whatever the name says */
	put("files/empty.xplane.pb", "", 0);
	put("files/bomb.gz", g.p, g.n);

	struct xp_buf b;
	struct xp_err err = { 0 };
	CHECK(xp_buf_open(at("files/plain.xplane.pb"), 0, &b, &err) == 0);
	CHECK(b.comp == XP_COMP_NONE && b.map && !b.owned && b.len == n && b.file_bytes == n);
	CHECK(b.data && !memcmp(b.data, data, n));
	xp_buf_close(&b);
	CHECK(b.data == NULL && b.map == NULL);

	CHECK(xp_buf_open(at("files/c.xplane.pb.gz"), 0, &b, &err) == 0);
	CHECK(b.comp == XP_COMP_GZIP && !b.map && b.owned && b.len == n && b.file_bytes == g.n);
	CHECK(b.data && !memcmp(b.data, data, n));
	xp_buf_close(&b);

	CHECK(xp_buf_open(at("files/named-wrong.xplane.pb"), 1 << 30, &b, &err) == 0);
	CHECK(b.comp == XP_COMP_ZSTD && b.len == n && b.data && !memcmp(b.data, data, n));
	xp_buf_close(&b);
	CHECK(err.status == 0);

	struct xp_err e = { 0 };
	CHECK(xp_buf_open(at("files/bomb.gz"), 1000, &b, &e) == -1);
	CHECK(e.status == 3 && contains(e.msg, "exceeds the limit of 1000 bytes (--max-input-bytes)"));
	CHECK(b.data == NULL && b.owned == NULL);

	memset(&e, 0, sizeof e);
	CHECK(xp_buf_open(at("files/plain.xplane.pb"), 1000, &b, &e) == -1);
	CHECK(e.status == 3 && contains(e.msg, "exceeds the limit of 1000 bytes"));

	memset(&e, 0, sizeof e);
	CHECK(xp_buf_open(at("files/empty.xplane.pb"), 0, &b, &e) == -1);
	CHECK(e.status == 3);
	CHECK_STR(e.msg, "empty file");
	CHECK_STR(e.path, at("files/empty.xplane.pb"));

	memset(&e, 0, sizeof e);
	CHECK(xp_buf_open(at("files/missing.xplane.pb"), 0, &b, &e) == -1);
	CHECK(e.status == 3);
	CHECK_STR(e.msg, "cannot open: No such file or directory");

	memset(&e, 0, sizeof e);
	CHECK(xp_buf_open(at("files"), 0, &b, &e) == -1);
	CHECK(e.status == 3 && contains(e.msg, "directory"));

	memset(&e, 0, sizeof e);
	CHECK(mkfifo(at("files/fifo"), 0600) == 0);
	CHECK(xp_buf_open(at("files/fifo"), 0, &b, &e) == -1);
	CHECK(e.status == 3);
	CHECK_STR(e.msg, "not a regular file");

	/* One scratch buffer for several files in turn (combine): each reads whole, from the buffer's start; a
	 * buffer larger than the limit does not let a bomb through; a failure keeps the buffer for the next. */
	struct xp_scratch sc = { 0 };
	memset(&e, 0, sizeof e);
	CHECK(xp_buf_open_reuse(at("files/c.xplane.pb.gz"), 0, &b, &sc, &e) == 0);
	CHECK(b.comp == XP_COMP_GZIP && !b.owned && b.data == sc.p && b.len == n && !memcmp(b.data, data, n));
	xp_buf_close(&b);
	CHECK(sc.p && sc.cap >= n);
	CHECK(xp_buf_open_reuse(at("files/named-wrong.xplane.pb"), 0, &b, &sc, &e) == 0);
	CHECK(b.comp == XP_COMP_ZSTD && b.data == sc.p && b.len == n && !memcmp(b.data, data, n));
	xp_buf_close(&b);
	uint8_t *first = sc.p;
	CHECK(xp_buf_open_reuse(at("files/named-wrong.xplane.pb"), 0, &b, &sc, &e) == 0);
	CHECK(b.data == sc.p && b.len == n && !memcmp(b.data, data, n));
	CHECK(sc.p == first);   /* big enough already: not made again */
	xp_buf_close(&b);
	CHECK(xp_buf_open_reuse(at("files/bomb.gz"), 1000, &b, &sc, &e) == -1);
	CHECK(e.status == 3 && contains(e.msg, "exceeds the limit of 1000 bytes (--max-input-bytes)"));
	memset(&e, 0, sizeof e);
	CHECK(xp_buf_open_reuse(at("files/plain.xplane.pb"), 0, &b, &sc, &e) == 0);
	CHECK(b.map && b.data != sc.p && b.len == n && !memcmp(b.data, data, n));   /* plain: mapped as ever */
	xp_buf_close(&b);
	CHECK(xp_buf_open_reuse(at("files/c.xplane.pb.gz"), 0, &b, &sc, &e) == 0);
	CHECK(b.len == n && !memcmp(b.data, data, n));
	xp_buf_close(&b);
	xp_scratch_free(&sc);
	CHECK(sc.p == NULL && sc.cap == 0);

	xp_buf_close(NULL);
	free(g.p), free(z.p);
	free(data);
}

/* ---- discovery tests ---- */

static void test_host_names(void)
{
	const char *cases[][2] = {
		{ "a/b/34.83.195.179_6003.xplane.pb", "34.83.195.179_6003" },
		{ "localhost.xplane.pb.gz", "localhost" },
		{ "h.xplane.pb.zst", "h" },
		{ "/x/localhost.trace.json.gz", "localhost" },
		{ "host.trace.json", "host" },
		{ "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "rank-0.Apr_03_18_51_38.1102" },
		{ "worker0.1623143089861.pt.trace.json", "worker0.1623143089861" },
		{ "gaunernst_bert-small-uncased__1016001.json.gz", "gaunernst_bert-small-uncased__1016001" },
		{ "perfetto_trace.json.gz", "perfetto_trace" },
		{ "capture.bin", "capture.bin" },
		{ "x.json", "x" },
		{ ".xplane.pb", ".xplane" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *h = xp_host_from_filename(cases[i][0]);
		CHECK_STR(h, cases[i][1]);
		free(h);
	}
	CHECK(xp_host_matches("10.0.0.1:6009", "10.0.0.1_6009"));
	CHECK(xp_host_matches("10.0.0.1_6009", "10.0.0.1:6009"));
	CHECK(xp_host_matches("a", "a"));
	CHECK(!xp_host_matches("a", "ab"));
	CHECK(!xp_host_matches("ab", "a"));
	CHECK(!xp_host_matches("a-b", "a_b"));
	CHECK(xp_host_matches("", ""));
}

static struct xp_input_list resolve1(const char *path, const char *run, const char *host, int want_rc,
				     struct xp_err *err)
{
	struct xp_input_list l;
	char *paths[] = { (char *)path };
	memset(err, 0, sizeof *err);
	int rc = xp_resolve_inputs(paths, 1, run, host, &l, err);
	CHECK(rc == want_rc);
	if (rc != want_rc)
		fprintf(stderr, "  resolving %s: status %d: %s\n", path, err->status, err->msg);
	return l;
}

/* Keras writes runs under logs/train/plugins/profile/; runs may live at any depth. */
static void make_logdir(void)
{
	put_str("logs/train/plugins/profile/2024_01_01_00_00_00/h1.xplane.pb", "a");
	put_str("logs/train/plugins/profile/2024_02_01_00_00_00/h1.xplane.pb", "b");
	put_str("logs/train/plugins/profile/2024_02_01_00_00_00/h2.xplane.pb", "c");
	put_str("logs/validation/plugins/profile/2023_12_31_00_00_00/v.xplane.pb", "d");
	put_str("logs/plugins/profile/2022_06_01_00_00_00/top.xplane.pb", "e");
	put_str("logs/deep/a/b/plugins/profile/2021_01_01_00_00_00/x.xplane.pb.gz", "f");
	put_str("logs/train/events.out.tfevents.1.host.profile-empty", "");
	mkdirs(at("logs/train/plugins/profile/2025_01_01_00_00_00"));  /* an empty run: not listed */
	put_str("logs/train/plugins/profile/2025_02_01_00_00_00/h.op_stats_v2.pb", "x");
	symlink("..", at("logs/deep/loop"));    /* a cycle the walk must not follow */
}

static void test_runs(void)
{
	make_logdir();
	struct xp_run_list rl;
	struct xp_err err = { 0 };
	CHECK(xp_list_runs(at("logs"), &rl, &err) == 0);
	const char *want[] = {
		"deep/a/b/2021_01_01_00_00_00", "2022_06_01_00_00_00", "validation/2023_12_31_00_00_00",
		"train/2024_01_01_00_00_00", "train/2024_02_01_00_00_00",
	};
	CHECK(rl.n == 5);
	for (size_t i = 0; i < rl.n && i < 5; i++)
		CHECK_STR(rl.runs[i].name, want[i]);
	if (rl.n == 5) {
		CHECK(rl.runs[4].n_files == 2);
		CHECK_STR(rl.runs[4].files[0].host, "h1");
		CHECK_STR(rl.runs[4].files[1].host, "h2");
		CHECK_STR(rl.runs[4].dir, at("logs/train/plugins/profile/2024_02_01_00_00_00"));
		CHECK_STR(rl.runs[0].files[0].path, at("logs/deep/a/b/plugins/profile/2021_01_01_00_00_00/x.xplane.pb.gz"));
		CHECK(rl.runs[0].files[0].kind == XP_FILE_XSPACE);
	}
	xp_run_list_free(&rl);

	/* Newest by default, then --run by full and by short name. */
	struct xp_input_list l = resolve1(at("logs"), NULL, NULL, 0, &err);
	CHECK_STR(l.run_name, "train/2024_02_01_00_00_00");
	CHECK(l.n == 2);
	if (l.n == 2) {
		CHECK_STR(l.files[0].path, at("logs/train/plugins/profile/2024_02_01_00_00_00/h1.xplane.pb"));
		CHECK_STR(l.files[1].host, "h2");
	}
	xp_input_list_free(&l);
	l = resolve1(at("logs/"), "train/2024_01_01_00_00_00", NULL, 0, &err);
	CHECK_STR(l.run_name, "train/2024_01_01_00_00_00");
	CHECK(l.n == 1);
	xp_input_list_free(&l);
	l = resolve1(at("logs"), "2023_12_31_00_00_00", NULL, 0, &err);
	CHECK_STR(l.run_name, "validation/2023_12_31_00_00_00");
	CHECK(l.n == 1 && !strcmp(l.files[0].host, "v"));
	xp_input_list_free(&l);

	l = resolve1(at("logs"), "nope", NULL, -1, &err);
	CHECK(err.status == XP_EXIT_USAGE);
	char msg[1024];
	snprintf(msg, sizeof msg, "no run nope in %s; runs: deep/a/b/2021_01_01_00_00_00, 2022_06_01_00_00_00, "
		 "validation/2023_12_31_00_00_00, train/2024_01_01_00_00_00, train/2024_02_01_00_00_00", at("logs"));
	CHECK_STR(err.msg, msg);
	CHECK(l.n == 0 && l.files == NULL);

	/* A logdir that is a plugins/profile directory itself: plain run names. */
	CHECK(xp_list_runs(at("logs/train/plugins/profile"), &rl, &err) == 0);
	CHECK(rl.n == 2 && !strcmp(rl.runs[rl.n - 1].name, "2024_02_01_00_00_00"));
	xp_run_list_free(&rl);
	CHECK(xp_list_runs(at("logs/train/plugins"), &rl, &err) == 0);
	CHECK(rl.n == 2 && !strcmp(rl.runs[0].name, "2024_01_01_00_00_00"));
	xp_run_list_free(&rl);

	/* A run directory as a logdir: one run named after it. */
	CHECK(xp_list_runs(at("logs/train/plugins/profile/2024_02_01_00_00_00/"), &rl, &err) == 0);
	CHECK(rl.n == 1 && !strcmp(rl.runs[0].name, "2024_02_01_00_00_00") && rl.runs[0].n_files == 2);
	xp_run_list_free(&rl);
}

static void test_run_ties(void)
{
	/* The same run name in two places, neither of them train/: the choice is the
	 * user's (exit 2 with the runs, issue 21), a short --run is ambiguous, and the
	 * full name picks. */
	put_str("tie/b/plugins/profile/2024_05_05_05_05_05/old.xplane.pb", "x");
	put_str("tie/a/plugins/profile/2024_05_05_05_05_05/new.xplane.pb", "x");
	put_str("tie/c/plugins/profile/2024_01_01_00_00_00/older.xplane.pb", "x");
	set_mtime("tie/b/plugins/profile/2024_05_05_05_05_05", 1000000);
	set_mtime("tie/a/plugins/profile/2024_05_05_05_05_05", 2000000);
	struct xp_err err;
	struct xp_input_list l = resolve1(at("tie"), NULL, NULL, -1, &err);
	CHECK(err.status == XP_EXIT_USAGE && contains(err.msg, "several newest runs named 2024_05_05_05_05_05"));
	CHECK(contains(err.msg, "runs: b/2024_05_05_05_05_05, a/2024_05_05_05_05_05"));
	l = resolve1(at("tie"), "a/2024_05_05_05_05_05", NULL, 0, &err);
	CHECK_STR(l.run_name, "a/2024_05_05_05_05_05");
	CHECK(l.n == 1 && !strcmp(l.files[0].host, "new"));
	xp_input_list_free(&l);
	l = resolve1(at("tie"), "2024_05_05_05_05_05", NULL, -1, &err);
	CHECK(err.status == XP_EXIT_USAGE && contains(err.msg, "ambiguous run 2024_05_05_05_05_05"));
	CHECK(contains(err.msg, "runs: b/2024_05_05_05_05_05, a/2024_05_05_05_05_05"));
	l = resolve1(at("tie"), "b/2024_05_05_05_05_05", NULL, 0, &err);
	CHECK(l.n == 1 && !strcmp(l.files[0].host, "old"));
	xp_input_list_free(&l);
}

static void test_run_dir_choice(void)
{
	/* JAX-style run: xplane preferred over the trace JSON of the same host,
	 * perfetto_trace.json.gz dropped, caches and tool outputs ignored. */
	const char *names[] = {
		"h.xplane.pb", "h.trace.json.gz", "perfetto_trace.json.gz", "g.trace.json.gz",
		"h.op_stats_v2.pb", "x.SSTABLE", "h.hlo_proto.pb", ".cached_tools.json", "cache_version.txt",
		"h.overview_page.pb", "h.input_pipeline.pb", "h.tensorflow_stats.pb", "h.kernel_stats.pb",
		"h.memory_profile.json.gz", "h.overview_page.json", "h.pod_viewer.json", "misc.json",
		"a.xplane.pb.gz", "a.xplane.pb",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "run/%s", names[i]);
		put_str(rel, "x");
	}
	mkdirs(at("run/h.xplane.pb.d"));
	struct xp_err err;
	struct xp_input_list l = resolve1(at("run"), NULL, NULL, 0, &err);
	CHECK(l.run_name == NULL);
	CHECK(l.n == 3);
	if (l.n == 3) {
		CHECK_STR(l.files[0].path, at("run/a.xplane.pb"));
		CHECK(l.files[0].kind == XP_FILE_XSPACE);
		CHECK_STR(l.files[1].path, at("run/g.trace.json.gz"));
		CHECK(l.files[1].kind == XP_FILE_TRACE_JSON);
		CHECK_STR(l.files[2].path, at("run/h.xplane.pb"));
		CHECK_STR(l.files[2].host, "h");
	}
	xp_input_list_free(&l);

	/* Only a perfetto trace: use it. */
	put_str("pf/perfetto_trace.json.gz", "x");
	put_str("pf/cache_version.txt", "1");
	l = resolve1(at("pf"), NULL, NULL, 0, &err);
	CHECK(l.n == 1 && l.files[0].kind == XP_FILE_TRACE_JSON);
	xp_input_list_free(&l);

	/* Kineto names vary: any *.json[.gz] of a directory without better names. */
	put_str("kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "x");
	put_str("kineto/gaunernst_bert-small-uncased__1016001.json.gz", "x");
	put_str("kineto/benchmark_result_924719_1679055439_trace.json.gz", "x");
	put_str("kineto/notes.txt", "x");
	l = resolve1(at("kineto"), NULL, NULL, 0, &err);
	CHECK(l.n == 1);        /* the *.pt.trace.json.gz name marks the directory: only that */
	xp_input_list_free(&l);
	put_str("kineto2/gaunernst_bert-small-uncased__1016001.json.gz", "x");
	put_str("kineto2/benchmark_result_924719_1679055439_trace.json.gz", "x");
	l = resolve1(at("kineto2"), NULL, NULL, 0, &err);
	CHECK(l.n == 2);
	if (l.n == 2) {
		CHECK_STR(l.files[0].host, "benchmark_result_924719_1679055439_trace");
		CHECK_STR(l.files[1].host, "gaunernst_bert-small-uncased__1016001");
		CHECK(l.files[1].kind == XP_FILE_TRACE_JSON);
	}
	xp_input_list_free(&l);

	/* Only tool outputs and caches (a TPU-era run): nothing to read. */
	put_str("tools/10.240.1.50.pod_viewer.json", "x");
	put_str("tools/10.240.1.50.overview_page.json", "x");
	put_str("tools/10.240.1.50.tensorflow_stats.pb", "x");
	l = resolve1(at("tools"), NULL, NULL, -1, &err);
	CHECK(err.status == XP_EXIT_BAD_INPUT && contains(err.msg, "no profiler captures found under"));
}

static void test_hosts_and_paths(void)
{
	put_str("multi/10.0.0.1_6009.xplane.pb", "x");
	put_str("multi/worker_1.xplane.pb", "x");
	put_str("multi/worker_2.xplane.pb", "x");
	struct xp_err err;
	struct xp_input_list l = resolve1(at("multi"), NULL, "10.0.0.1:6009", 0, &err);
	CHECK(l.n == 1 && !strcmp(l.files[0].host, "10.0.0.1_6009"));
	xp_input_list_free(&l);
	l = resolve1(at("multi"), NULL, "worker:2", 0, &err);
	CHECK(l.n == 1 && !strcmp(l.files[0].host, "worker_2"));
	xp_input_list_free(&l);
	l = resolve1(at("multi"), NULL, "nope", -1, &err);
	CHECK(err.status == XP_EXIT_USAGE);
	CHECK_STR(err.msg, "no host nope; hosts: 10.0.0.1_6009, worker_1, worker_2");

	/* Several paths: in order, duplicates (by realpath) removed. */
	put_str("other/z.xplane.pb", "x");
	symlink(at("multi"), at("multi-link"));
	char *paths[] = { at("other"), at("multi/worker_2.xplane.pb"), at("multi-link"), at("other/z.xplane.pb") };
	memset(&err, 0, sizeof err);
	CHECK(xp_resolve_inputs(paths, 4, NULL, NULL, &l, &err) == 0);
	CHECK(l.n == 4);
	if (l.n == 4) {
		CHECK_STR(l.files[0].host, "z");
		CHECK_STR(l.files[1].host, "worker_2");
		CHECK_STR(l.files[2].host, "10.0.0.1_6009");
		CHECK_STR(l.files[3].host, "worker_1");
	}
	xp_input_list_free(&l);

	/* A file is used as is, whatever its name. */
	put_str("odd/capture.bin", "x");
	put_str("odd/trace.json.data", "x");
	l = resolve1(at("odd/capture.bin"), "ignored", NULL, 0, &err);
	CHECK(l.n == 1 && l.files[0].kind == XP_FILE_XSPACE && !strcmp(l.files[0].host, "capture.bin"));
	CHECK(l.run_name == NULL);
	xp_input_list_free(&l);
	l = resolve1(at("odd/trace.json.data"), NULL, NULL, 0, &err);
	CHECK(l.n == 1 && l.files[0].kind == XP_FILE_TRACE_JSON);
	xp_input_list_free(&l);

	/* Errors: missing path, empty directory, no paths. */
	l = resolve1(at("missing"), NULL, NULL, -1, &err);
	CHECK(err.status == XP_EXIT_BAD_INPUT);
	CHECK_STR(err.msg, "cannot open: No such file or directory");
	CHECK_STR(err.path, at("missing"));
	mkdirs(at("empty"));
	l = resolve1(at("empty/"), NULL, NULL, -1, &err);
	CHECK(err.status == XP_EXIT_BAD_INPUT);
	char msg[1024];
	snprintf(msg, sizeof msg, "no profiler captures found under %s (expected %s/plugins/profile/<run>/<host>.xplane.pb)",
		 at("empty"), at("empty"));
	CHECK_STR(err.msg, msg);
	struct xp_run_list rl;
	memset(&err, 0, sizeof err);
	CHECK(xp_list_runs(at("empty"), &rl, &err) == -1 && err.status == XP_EXIT_BAD_INPUT);
	memset(&err, 0, sizeof err);
	CHECK(xp_resolve_inputs(NULL, 0, NULL, NULL, &l, &err) == -1 && err.status == XP_EXIT_USAGE);
	xp_input_list_free(NULL);
	xp_run_list_free(NULL);
}

int main(void)
{
	tmp_template(root, sizeof root, "xpstat-input");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 99;
	}
	test_sniff();
	test_round_trips();
	test_broken_streams();
	test_limits();
	test_buf_open();
	test_host_names();
	test_runs();
	test_run_ties();
	test_run_dir_choice();
	test_hosts_and_paths();
	rm_tree(root);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
