/* out_compress.c - -o FILE.gz / FILE.zst: what a writer writes, compressed into the file as it goes (saved reports kept small). */
#include "out.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/*
 * The writers write into a stdio stream that compresses as it goes into the
 * temporary file (an export of several GB is never held in memory). Both
 * encoders are deterministic (the gzip header carries no time or name, the
 * writers' writes are the same for the same document), so the same document
 * gives the same compressed bytes, as the uncompressed output does.
 */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n > t && !strcmp(s + n - t, tail);
}

enum xp_out_comp xp_out_comp_of(const char *path)
{
	if (ends_with(path, ".gz"))
		return XP_OUT_GZIP;
	if (ends_with(path, ".zst"))
		return XP_OUT_ZSTD;
	return XP_OUT_PLAIN;
}

/* Saved reports are written once and read many times: a level that compresses well at a few
 * tens of MB/s. */
#define ZSTD_LEVEL 9
#define GZIP_LEVEL 9

struct zcookie {
	FILE *raw;
	enum xp_out_comp comp;
	z_stream z;
	ZSTD_CCtx *zc;
	bool failed;
	unsigned char out[1 << 16];
};

static bool put_raw(struct zcookie *c, size_t n)
{
	if (n && fwrite(c->out, 1, n, c->raw) != n) {
		c->failed = true;
		xp_out_write_failed(errno);     /* stdio's close of the compressing stream cannot say why */
	}
	return !c->failed;
}

/* Compress [p, p+n) (FINISH: and end the stream). avail_in is 32 bits: at most 1 GiB at a time. */
static bool gz_feed(struct zcookie *c, const char *p, size_t n, bool finish)
{
	int rc;
	do {
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		c->z.next_in = (Bytef *)(uintptr_t)p;
		c->z.avail_in = (uInt)chunk;
		p += chunk;
		n -= chunk;
		do {
			c->z.next_out = c->out;
			c->z.avail_out = sizeof c->out;
			rc = deflate(&c->z, finish && !n ? Z_FINISH : Z_NO_FLUSH);
			if (rc == Z_STREAM_ERROR || !put_raw(c, sizeof c->out - c->z.avail_out))
				return false;
		} while (c->z.avail_in || !c->z.avail_out || (finish && !n && rc != Z_STREAM_END));
	} while (n);
	return true;
}

static bool zs_feed(struct zcookie *c, const char *p, size_t n, bool finish)
{
	ZSTD_inBuffer in = {p, n, 0};
	size_t left;
	do {
		ZSTD_outBuffer out = {c->out, sizeof c->out, 0};
		left = ZSTD_compressStream2(c->zc, &out, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left) || !put_raw(c, out.pos))
			return false;
	} while (in.pos < in.size || (finish && left));
	return true;
}

static ssize_t z_write(void *cookie, const char *buf, size_t n)
{
	struct zcookie *c = cookie;
	bool ok = !c->failed && (c->comp == XP_OUT_GZIP ? gz_feed(c, buf, n, false) : zs_feed(c, buf, n, false));
	c->failed = !ok;
	return ok ? (ssize_t)n : -1;
}

/* The end of the compressed stream into RAW (which stays open). */
static int z_close(void *cookie)
{
	struct zcookie *c = cookie;
	bool ok = !c->failed && (c->comp == XP_OUT_GZIP ? gz_feed(c, "", 0, true) : zs_feed(c, "", 0, true));
	if (c->comp == XP_OUT_GZIP)
		deflateEnd(&c->z);
	else
		ZSTD_freeCCtx(c->zc);
	free(c);
	return ok ? 0 : -1;
}

FILE *xp_out_compressor(FILE *raw, enum xp_out_comp comp)
{
	struct zcookie *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->raw = raw;
	c->comp = comp;
	bool ok;
	if (comp == XP_OUT_GZIP) {
		/* 15 + 16: a gzip wrapper; its header has no mtime or name (deflateSetHeader is not called). */
		ok = deflateInit2(&c->z, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
	} else {
		c->zc = ZSTD_createCCtx();
		ok = c->zc && !ZSTD_isError(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel, ZSTD_LEVEL));
	}
	cookie_io_functions_t io = {.write = z_write, .close = z_close};
	FILE *f = ok ? fopencookie(c, "w", io) : NULL;
	if (!f) {
		if (comp == XP_OUT_GZIP && ok)
			deflateEnd(&c->z);
		ZSTD_freeCCtx(c->zc);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 18);
	return f;
}
