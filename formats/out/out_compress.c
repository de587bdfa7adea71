/* out_compress.c - -o FILE.gz / FILE.zst: what a writer wrote, compressed on commit (saved reports kept small). */
#include "out.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/*
 * The writers stream into memory; commit compresses the whole text in one
 * call. Both encoders are deterministic (the gzip header carries no time or
 * name), so the same document gives the same compressed bytes, as the
 * uncompressed output does.
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

static int put_zstd(FILE *dst, const void *src, size_t n)
{
	size_t cap = ZSTD_compressBound(n);
	void *buf = malloc(cap ? cap : 1);
	if (!buf)
		return ENOMEM;
	size_t got = ZSTD_compress(buf, cap, src, n, ZSTD_LEVEL);
	int err = ZSTD_isError(got) ? EIO : fwrite(buf, 1, got, dst) == got ? 0 : EIO;
	free(buf);
	return err;
}

static int put_gzip(FILE *dst, const void *src, size_t n)
{
	z_stream z = {0};
	/* 15 + 16: a gzip wrapper; its header has no mtime or name (deflateSetHeader is not called). */
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return ENOMEM;
	unsigned char out[1 << 16];
	const unsigned char *p = src;
	int err = 0, zr;
	do {
		/* avail_in is 32 bits: feed at most 1 GiB at a time. */
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		if (!z.avail_in && n) {
			z.next_in = (unsigned char *)(uintptr_t)p;
			z.avail_in = (uInt)chunk;
			p += chunk;
			n -= chunk;
		}
		z.next_out = out;
		z.avail_out = sizeof out;
		zr = deflate(&z, n || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		size_t have = sizeof out - z.avail_out;
		if (zr == Z_STREAM_ERROR || fwrite(out, 1, have, dst) != have)
			err = EIO;
	} while (!err && zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int xp_out_compress(FILE *dst, enum xp_out_comp c, const void *src, size_t n)
{
	switch (c) {
	case XP_OUT_GZIP: return put_gzip(dst, src, n);
	case XP_OUT_ZSTD: return put_zstd(dst, src, n);
	default: return fwrite(src, 1, n, dst) == n ? 0 : EIO;
	}
}
