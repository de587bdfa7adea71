/* decompress.c - sniffing, bounded gzip/zstd decompression and loading one input file into memory. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZLIB_CONST      /* next_in is const: the input is a read-only mapping */
#include <zlib.h>
#include <zstd.h>

/* Smallest output buffer we start with: avoids a string of tiny reallocs. */
#define XP_MIN_OUT ((size_t)64 * 1024)
/* zlib counts in uInt: feed and drain it in slices no larger than this. */
#define XP_ZSLICE ((size_t)1 << 30)

enum xp_compression xp_sniff(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return XP_COMP_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return XP_COMP_ZSTD;
	/* A zstd stream may start with a skippable frame (magic 0x184D2A5?). */
	if (n >= 4 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18)
		return XP_COMP_ZSTD;
	return XP_COMP_NONE;
}

const char *xp_compression_name(enum xp_compression c)
{
	switch (c) {
	case XP_COMP_NONE: return "none";
	case XP_COMP_GZIP: return "gzip";
	case XP_COMP_ZSTD: return "zstd";
	}
	return "unknown";
}

/* A growable output buffer whose capacity never passes limit = max_out + 1:
 * holding one byte more than allowed is how an over-limit stream is noticed. */
struct outbuf {
	uint8_t *p;
	size_t len, cap, limit;
};

static int out_init(struct outbuf *o, size_t hint, uint64_t max_out)
{
	o->limit = max_out >= SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)max_out + 1;
	size_t cap = hint < XP_MIN_OUT ? XP_MIN_OUT : hint;
	if (cap > o->limit)
		cap = o->limit;
	o->p = malloc(cap);
	if (!o->p && cap > XP_MIN_OUT) {
		/* The hint was only a guess: start small and grow instead. */
		cap = XP_MIN_OUT < o->limit ? XP_MIN_OUT : o->limit;
		o->p = malloc(cap);
	}
	o->len = 0;
	o->cap = cap;
	return o->p ? 0 : -1;
}

/* Make room for more output; 1 = at the limit already, -1 = out of memory. */
static int out_grow(struct outbuf *o)
{
	if (o->cap >= o->limit)
		return 1;
	size_t cap = o->cap > o->limit / 2 ? o->limit : o->cap * 2;
	uint8_t *p = realloc(o->p, cap);
	if (!p)
		return -1;
	o->p = p;
	o->cap = cap;
	return 0;
}

static int too_big(const char *path, uint64_t max_out, struct xp_err *err)
{
	return xp_err_set(err, XP_EXIT_BAD_INPUT, path,
			  "decompressed size exceeds the limit of %llu bytes (--max-input-bytes)",
			  (unsigned long long)max_out);
}

static int no_memory(const char *path, size_t want, struct xp_err *err)
{
	return xp_err_set(err, XP_EXIT_BAD_INPUT, path,
			  "out of memory decompressing (buffer of %zu bytes)", want);
}

/* Ensure free space in o; reports the limit or allocation failure. */
static int out_reserve(struct outbuf *o, const char *path, uint64_t max_out, struct xp_err *err)
{
	if (o->len < o->cap)
		return 0;
	int r = out_grow(o);
	if (r > 0)
		return too_big(path, max_out, err);
	if (r < 0)
		return no_memory(path, o->cap * 2, err);
	return 0;
}

/* Hand the buffer to the caller, trimmed to size (a failed trim keeps the big one). */
static void out_finish(struct outbuf *o, uint8_t **out, uint64_t *out_len)
{
	uint8_t *p = realloc(o->p, o->len ? o->len : 1);
	*out = p ? p : o->p;
	*out_len = o->len;
	o->p = NULL;
}

static bool gzip_magic_at(const uint8_t *in, size_t n, size_t pos)
{
	return n - pos >= 2 && in[pos] == 0x1f && in[pos + 1] == 0x8b;
}

/* One inflate call over the next slices of input and output. */
static int inflate_step(z_stream *zs, const uint8_t *in, size_t n, size_t *pos, struct outbuf *o)
{
	size_t in_avail = n - *pos, out_avail = o->cap - o->len;
	zs->next_in = in + *pos;
	zs->avail_in = (uInt)(in_avail > XP_ZSLICE ? XP_ZSLICE : in_avail);
	zs->next_out = o->p + o->len;
	zs->avail_out = (uInt)(out_avail > XP_ZSLICE ? XP_ZSLICE : out_avail);
	uInt in0 = zs->avail_in, out0 = zs->avail_out;
	int ret = inflate(zs, Z_NO_FLUSH);
	*pos += in0 - zs->avail_in;
	o->len += out0 - zs->avail_out;
	return ret;
}

/* Inflate gzip (or zlib, auto-detected) including concatenated gzip members. */
static int gunzip(const char *path, const uint8_t *in, size_t n, uint64_t max_out,
		  struct outbuf *o, struct xp_err *err)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return no_memory(path, sizeof zs, err);
	size_t pos = 0;
	int rc = -1;
	for (;;) {
		if (out_reserve(o, path, max_out, err))
			break;
		int ret = inflate_step(&zs, in, n, &pos, o);
		if (o->len > max_out) {
			too_big(path, max_out, err);
			break;
		}
		if (ret == Z_STREAM_END) {
			if (pos == n) {
				rc = 0;
				break;
			}
			/* gzip(1) output of "cat a.gz b.gz" is valid: go on with the next member. */
			if (!gzip_magic_at(in, n, pos)) {
				xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos,
					  "trailing garbage after the gzip stream");
				break;
			}
			inflateReset(&zs);
			continue;
		}
		if (ret == Z_OK)
			continue;
		if (ret == Z_BUF_ERROR && o->len == o->cap)
			continue;       /* only needs more output room */
		if (ret == Z_BUF_ERROR && pos == n) {
			xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos, "truncated gzip stream");
			break;
		}
		if (ret == Z_MEM_ERROR) {
			no_memory(path, 0, err);
			break;
		}
		xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos, "corrupt gzip data: %s",
			  zs.msg ? zs.msg : (ret == Z_NEED_DICT ? "needs a preset dictionary" : "invalid stream"));
		break;
	}
	inflateEnd(&zs);
	return rc;
}

static bool zstd_magic_at(const uint8_t *in, size_t n, size_t pos)
{
	return xp_sniff(in + pos, n - pos) == XP_COMP_ZSTD;
}

/* zstd refuses frames whose window passes windowLogMax (default 27 = 128 MiB).
 * Allow bigger windows (zstd --long) only when the limit lets the output be
 * that big, so the decoder's own window buffer stays bounded by max_out. */
static int zstd_window_log_max(uint64_t max_out)
{
	int lg = 27;
	while (lg < 62 && ((uint64_t)1 << lg) < max_out)
		lg++;
	ZSTD_bounds b = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
	if (!ZSTD_isError(b.error) && lg > b.upperBound)
		lg = b.upperBound;
	return lg;
}

/* Every zstd block costs at least 4 bytes and yields at most 128 KiB, so a
 * frame can honestly claim no more than this many output bytes per input byte. */
#define XP_ZSTD_MAX_RATIO 32768u

/* A known frame content size is a good first guess at the output size; a
 * claim no real frame could back is not believed. */
static size_t zstd_hint(const uint8_t *in, size_t n, uint64_t max_out)
{
	unsigned long long cs = ZSTD_getFrameContentSize(in, n);
	if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR || cs >= max_out ||
	    cs / XP_ZSTD_MAX_RATIO > n)
		return n < SIZE_MAX / 4 ? n * 4 : n;
	return (size_t)cs + 1;
}

/* Decode every zstd frame (skippable ones included) of in[0..n). */
static int unzstd(const char *path, const uint8_t *in, size_t n, uint64_t max_out,
		  struct outbuf *o, struct xp_err *err)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (!dc)
		return no_memory(path, 0, err);
	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, zstd_window_log_max(max_out));
	ZSTD_inBuffer ib = { in, n, 0 };
	int rc = -1;
	for (;;) {
		if (out_reserve(o, path, max_out, err))
			break;
		ZSTD_outBuffer ob = { o->p, o->cap, o->len };
		size_t ret = ZSTD_decompressStream(dc, &ob, &ib);
		o->len = ob.pos;
		if (ZSTD_isError(ret)) {
			xp_err_at(err, XP_EXIT_BAD_INPUT, path, ib.pos, "corrupt zstd data: %s",
				  ZSTD_getErrorName(ret));
			break;
		}
		if (o->len > max_out) {
			too_big(path, max_out, err);
			break;
		}
		if (ret == 0) {
			if (ib.pos == ib.size) {
				rc = 0;
				break;
			}
			if (!zstd_magic_at(in, n, ib.pos)) {
				xp_err_at(err, XP_EXIT_BAD_INPUT, path, ib.pos,
					  "trailing garbage after the zstd stream");
				break;
			}
			continue;
		}
		/* Output room left after the call means the decoder flushed all it
		 * had; with no input left it can never finish the frame. */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			xp_err_at(err, XP_EXIT_BAD_INPUT, path, ib.pos, "truncated zstd stream");
			break;
		}
	}
	ZSTD_freeDCtx(dc);
	return rc;
}

static int copy_plain(const char *path, const uint8_t *in, size_t n, uint64_t max_out,
		      struct outbuf *o, struct xp_err *err)
{
	if (n > max_out)
		return too_big(path, max_out, err);
	if (n > o->cap) {
		uint8_t *p = realloc(o->p, n);
		if (!p)
			return no_memory(path, n, err);
		o->p = p;
		o->cap = n;
	}
	if (n)
		memcpy(o->p, in, n);
	o->len = n;
	return 0;
}

int xp_decompress(const char *path, const uint8_t *in, size_t n, enum xp_compression comp,
		  uint64_t max_out, uint8_t **out, uint64_t *out_len, struct xp_err *err)
{
	*out = NULL;
	*out_len = 0;
	size_t hint = comp == XP_COMP_ZSTD ? zstd_hint(in, n, max_out)
		    : (n < SIZE_MAX / 4 ? n * 4 : n);
	struct outbuf o;
	if (out_init(&o, hint, max_out))
		return no_memory(path, hint, err);
	int rc;
	switch (comp) {
	case XP_COMP_GZIP: rc = gunzip(path, in, n, max_out, &o, err); break;
	case XP_COMP_ZSTD: rc = unzstd(path, in, n, max_out, &o, err); break;
	case XP_COMP_NONE: rc = copy_plain(path, in, n, max_out, &o, err); break;
	default:
		rc = xp_err_set(err, XP_EXIT_INTERNAL, path, "unknown compression %d", (int)comp);
		break;
	}
	if (rc) {
		free(o.p);
		return -1;
	}
	out_finish(&o, out, out_len);
	return 0;
}

uint64_t xp_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long page = sysconf(_SC_PAGE_SIZE);
	if (pages <= 0 || page <= 0)
		return (uint64_t)8 << 30; /* unknown: a modest machine */
	return (uint64_t)pages * (uint64_t)page;
}

/* Open read-only without blocking on a FIFO, and accept only regular files. */
static int open_regular(const char *path, struct stat *st, struct xp_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "cannot open: %s", strerror(errno));
	const char *why = NULL;
	if (fstat(fd, st) != 0)
		why = strerror(errno);
	else if (S_ISDIR(st->st_mode))
		why = "is a directory, not a capture file";
	else if (!S_ISREG(st->st_mode))
		why = "not a regular file";
	else if (st->st_size == 0)
		why = "empty file";
	if (why) {
		close(fd);
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "%s", why);
	}
	return fd;
}

int xp_buf_open(const char *path, uint64_t max_bytes, struct xp_buf *b, struct xp_err *err)
{
	memset(b, 0, sizeof *b);
	if (max_bytes == 0)
		max_bytes = xp_physical_memory();
	struct stat st;
	int fd = open_regular(path, &st, err);
	if (fd < 0)
		return -1;
	uint64_t size = (uint64_t)st.st_size;
	if (size > SIZE_MAX) {
		close(fd);
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "file of %llu bytes is too large to map",
				  (unsigned long long)size);
	}
	void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	int map_errno = errno;
	close(fd);
	if (map == MAP_FAILED)
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "cannot map: %s", strerror(map_errno));
	b->file_bytes = size;
	b->comp = xp_sniff(map, (size_t)size);
	if (b->comp == XP_COMP_NONE) {
		if (size > max_bytes) {
			munmap(map, (size_t)size);
			return xp_err_set(err, XP_EXIT_BAD_INPUT, path,
					  "file size %llu exceeds the limit of %llu bytes (--max-input-bytes)",
					  (unsigned long long)size, (unsigned long long)max_bytes);
		}
		b->map = map;
		b->map_len = (size_t)size;
		b->data = map;
		b->len = size;
		return 0;
	}
	/* Read once front to back; the mapping goes away right after. */
	madvise(map, (size_t)size, MADV_SEQUENTIAL);
	uint64_t out_len = 0;
	int rc = xp_decompress(path, map, (size_t)size, b->comp, max_bytes, &b->owned, &out_len, err);
	munmap(map, (size_t)size);
	if (rc) {
		b->owned = NULL;
		return -1;
	}
	b->data = b->owned;
	b->len = out_len;
	return 0;
}

void xp_buf_close(struct xp_buf *b)
{
	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->map_len);
	free(b->owned);
	memset(b, 0, sizeof *b);
}
