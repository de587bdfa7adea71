/* decompress.c - sniffing, bounded gzip/zstd decompression, loading one input file into memory, and a streaming pull reader. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZLIB_CONST      /* next_in is const: the input is a read-only mapping */
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

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

/* An output buffer over memory already there (P, CAP), written from its start. */
static void out_init_with(struct outbuf *o, uint8_t *p, size_t cap, uint64_t max_out)
{
	o->limit = max_out >= SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)max_out + 1;
	o->p = p;
	o->cap = cap;
	o->len = 0;
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

/* Out of memory is exit 4 and the one line it is everywhere else, not a fault of the input. */
static int no_memory(const char *path, size_t want, struct xp_err *err)
{
	(void)path;
	(void)want;
	return xp_err_set(err, XP_EXIT_INTERNAL, NULL, "out of memory");
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
 * that big, so the decoder's own window buffer stays within
 * max(128 MiB, max_out) whatever a hostile header claims. */
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

/* zstd's own words for these would mislead: our buffer is not too small, the
 * frame is inconsistent or asks for more window memory than we allow. */
static int zstd_error(const char *path, size_t ret, size_t pos, int window_log, struct xp_err *err)
{
	switch (ZSTD_getErrorCode(ret)) {
	case ZSTD_error_memory_allocation:
		return no_memory(path, 0, err);
	case ZSTD_error_dstSize_tooSmall:
		return xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos,
				 "corrupt zstd data: a block decodes to more than the frame header allows");
	case ZSTD_error_frameParameter_windowTooLarge:
		return xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos,
				 "zstd frame needs a window over %llu bytes (up to 2 GiB is allowed when --max-input-bytes is that large)",
				 1ULL << window_log);
	default:
		return xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos, "corrupt zstd data: %s",
				 ZSTD_getErrorName(ret));
	}
}

/* Decode every zstd frame (skippable ones included) of in[0..n). */
static int unzstd(const char *path, const uint8_t *in, size_t n, uint64_t max_out,
		  struct outbuf *o, struct xp_err *err)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (!dc)
		return no_memory(path, 0, err);
	int window_log = zstd_window_log_max(max_out);
	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, window_log);
	/* zstd leaves the input position alone when a call fails, so input goes
	 * in slices of its preferred size: an error is then placed within one. */
	size_t slice = ZSTD_DStreamInSize(), pos = 0;
	int rc = -1;
	for (;;) {
		if (out_reserve(o, path, max_out, err))
			break;
		ZSTD_inBuffer ib = { in, n - pos > slice ? pos + slice : n, pos };
		ZSTD_outBuffer ob = { o->p, o->cap, o->len };
		size_t ret = ZSTD_decompressStream(dc, &ob, &ib);
		o->len = ob.pos;
		if (ZSTD_isError(ret)) {
			zstd_error(path, ret, pos, window_log, err);
			break;
		}
		pos = ib.pos;
		if (o->len > max_out) {
			too_big(path, max_out, err);
			break;
		}
		if (ret == 0) {
			if (pos == n) {
				rc = 0;
				break;
			}
			if (!zstd_magic_at(in, n, pos)) {
				xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos,
					  "trailing garbage after the zstd stream");
				break;
			}
			continue;
		}
		/* Output room left after the call means the decoder flushed all it
		 * had; with no input left it can never finish the frame. */
		if (pos == n && ob.pos < ob.size) {
			xp_err_at(err, XP_EXIT_BAD_INPUT, path, pos, "truncated zstd stream");
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

static size_t first_hint(const uint8_t *in, size_t n, enum xp_compression comp, uint64_t max_out)
{
	return comp == XP_COMP_ZSTD ? zstd_hint(in, n, max_out) : (n < SIZE_MAX / 4 ? n * 4 : n);
}

static int decompress_into(const char *path, const uint8_t *in, size_t n, enum xp_compression comp,
			   uint64_t max_out, struct outbuf *o, struct xp_err *err)
{
	switch (comp) {
	case XP_COMP_GZIP: return gunzip(path, in, n, max_out, o, err);
	case XP_COMP_ZSTD: return unzstd(path, in, n, max_out, o, err);
	case XP_COMP_NONE: return copy_plain(path, in, n, max_out, o, err);
	default: return xp_err_set(err, XP_EXIT_INTERNAL, path, "unknown compression %d", (int)comp);
	}
}

int xp_decompress(const char *path, const uint8_t *in, size_t n, enum xp_compression comp,
		  uint64_t max_out, uint8_t **out, uint64_t *out_len, struct xp_err *err)
{
	*out = NULL;
	*out_len = 0;
	size_t hint = first_hint(in, n, comp, max_out);
	struct outbuf o;
	if (out_init(&o, hint, max_out))
		return no_memory(path, hint, err);
	if (decompress_into(path, in, n, comp, max_out, &o, err)) {
		free(o.p);
		return -1;
	}
	out_finish(&o, out, out_len);
	return 0;
}

/* xp_decompress into S's buffer (made or enlarged to the first guess when smaller), which keeps it after. */
static int decompress_scratch(const char *path, const uint8_t *in, size_t n, enum xp_compression comp,
			      uint64_t max_out, struct xp_scratch *s, uint64_t *out_len, struct xp_err *err)
{
	size_t hint = first_hint(in, n, comp, max_out);
	struct outbuf o;
	if (!s->p || s->cap < hint) {
		free(s->p);
		s->p = NULL;
		s->cap = 0;
		if (out_init(&o, hint, max_out))
			return no_memory(path, hint, err);
	} else {
		size_t limit = max_out >= SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)max_out + 1;
		out_init_with(&o, s->p, s->cap < limit ? s->cap : limit, max_out);
	}
	int rc = decompress_into(path, in, n, comp, max_out, &o, err);
	s->p = o.p;
	s->cap = o.cap;
	*out_len = o.len;
	return rc ? -1 : 0;
}

void xp_scratch_free(struct xp_scratch *s)
{
	free(s->p);
	s->p = NULL;
	s->cap = 0;
}

uint64_t xp_inflated_size_guess(const char *path)
{
	struct stat st;
	uint8_t head[18], tail[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 0) {
		close(fd);
		return 0;
	}
	uint64_t size = (uint64_t)st.st_size, guess = size;
	ssize_t n = pread(fd, head, sizeof head, 0);
	enum xp_compression c = n > 0 ? xp_sniff(head, (size_t)n) : XP_COMP_NONE;
	if (c == XP_COMP_GZIP && size >= 18 && pread(fd, tail, 4, (off_t)size - 4) == 4) {
		/* The trailer's ISIZE is the size modulo 2^32: count the wraps a smaller value implies. */
		guess = (uint64_t)tail[0] | (uint64_t)tail[1] << 8 | (uint64_t)tail[2] << 16 | (uint64_t)tail[3] << 24;
		while (guess < size && guess < UINT64_MAX - (1ull << 32))
			guess += 1ull << 32;
	} else if (c == XP_COMP_ZSTD) {
		unsigned long long cs = ZSTD_getFrameContentSize(head, (size_t)n);
		guess = cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR || cs < size ? size * 4 : cs;
	}
	close(fd);
	return guess;
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
	return xp_buf_open_reuse(path, max_bytes, b, NULL, err);
}

int xp_buf_open_reuse(const char *path, uint64_t max_bytes, struct xp_buf *b, struct xp_scratch *s,
		      struct xp_err *err)
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
	if (map == MAP_FAILED && map_errno == ENOMEM) /* no address space left: out of memory, as anywhere */
		return xp_err_set(err, XP_EXIT_INTERNAL, NULL, "out of memory");
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
	int rc = s ? decompress_scratch(path, map, (size_t)size, b->comp, max_bytes, s, &out_len, err)
		   : xp_decompress(path, map, (size_t)size, b->comp, max_bytes, &b->owned, &out_len, err);
	munmap(map, (size_t)size);
	if (rc) {
		b->owned = NULL;
		return -1;
	}
	b->data = s ? s->p : b->owned;
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

/* --- streaming: the pull reader ------------------------------------------ */

/*
 * The caller pulls decompressed bytes in pieces; nothing holds the whole
 * output. The decoders follow xp_decompress: gzip members and zstd frames may
 * be concatenated, anything else after the last one is trailing garbage, and
 * the --max-input-bytes limit applies to the decompressed bytes. Error
 * offsets are in the compressed file. With a helper thread, the decoder runs
 * ahead of the caller into a ring of chunks.
 */

#define XP_PULL_IN ((size_t)1 << 20)     /* compressed bytes read at a time */
#define XP_PULL_CHUNK ((size_t)1 << 20)  /* decompressed bytes per ring slot */
/* 32 MiB of decoded text ahead: the reader's pace varies over a file (slower at
 * the start, while its tables grow) and with 8 slots the decoder stood idle
 * waiting for room, then the reader for text. A power of 2: head and tail wrap.
 * Slots are touched only as they fill, so a small file costs no more. */
#define XP_PULL_SLOTS 32
#define XP_PULL_ROOM ((size_t)64 << 10)  /* free bytes before each slot's data, for a borrower's carry-over */

struct xp_pull {
	char *path;
	int fd;                 /* -1: memory input */
	enum xp_compression comp;
	uint64_t file_bytes, max_out, produced;
	uint8_t *inbuf;         /* owned input buffer (file input) */
	size_t in_cap;
	const uint8_t *in;      /* input bytes [in_pos, in_len) not yet decoded */
	size_t in_len, in_pos;
	uint64_t in_base;       /* file offset of in[0] */
	uint64_t member_start;  /* file offset of the gzip member / zstd frame being decoded */
	bool in_eof;            /* nothing follows in[in_len) */
	z_stream zs;
	bool zs_init;
	ZSTD_DCtx *zd;
	uint8_t *zbuf;          /* zstd output staging: [zpos, zlen) not handed out yet */
	size_t zcap, zlen, zpos;
	bool zfail;             /* a zstd fault follows the staged bytes */
	bool member_end;        /* at the end of a gzip member / zstd frame */
	bool done;
	bool failed;            /* err is set: fail the next read (the bytes before the fault come first) */
	struct xp_err err;      /* the decoder's error */
	/* helper thread: the decoder fills slot[tail % N], the caller drains slot[head % N]
	 * (or borrows slots head .. head + lent - 1); a slot's data starts XP_PULL_ROOM in */
	bool threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint8_t *slot[XP_PULL_SLOTS];
	size_t slot_len[XP_PULL_SLOTS];
	unsigned head, tail, lent;
	size_t head_pos;
	bool prod_end, prod_failed, cancel;
};

/* Make at least k input bytes available at in_pos, unless the input ends first. */
static int pull_need(struct xp_pull *p, size_t k)
{
	while (p->in_len - p->in_pos < k && !p->in_eof) {
		if (p->fd < 0) {
			p->in_eof = true;
			break;
		}
		size_t keep = p->in_len - p->in_pos;
		if (keep && p->in_pos)
			memmove(p->inbuf, p->inbuf + p->in_pos, keep);
		p->in_base += p->in_pos;
		p->in_pos = 0;
		p->in_len = keep;
		ssize_t n;
		do
			n = read(p->fd, p->inbuf + keep, p->in_cap - keep);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return xp_err_set(&p->err, XP_EXIT_BAD_INPUT, p->path, "read error: %s", strerror(errno));
		if (n == 0)
			p->in_eof = true;
		p->in_len += (size_t)n;
	}
	return 0;
}

/* got more bytes; past the limit, only those up to it, and the error next time. */
static int64_t pull_count(struct xp_pull *p, size_t got)
{
	if (p->produced + got > p->max_out) {
		too_big(p->path, p->max_out, &p->err);
		p->failed = true;
		got = (size_t)(p->max_out - p->produced);
	}
	p->produced += got;
	return (int64_t)got;
}

/* A decoder fault: the bytes decoded before it are handed out first, so
 * that whatever reads them meets the first fault of the stream, however
 * the output was cut into pieces. */
static int64_t pull_fault(struct xp_pull *p, size_t got)
{
	p->failed = true;
	return got ? pull_count(p, got) : -1;
}

static int64_t pull_plain(struct xp_pull *p, uint8_t *out, size_t n)
{
	size_t avail = p->in_len - p->in_pos;
	if (avail) {
		size_t k = avail < n ? avail : n;
		memcpy(out, p->in + p->in_pos, k);
		p->in_pos += k;
		return pull_count(p, k);
	}
	if (p->fd < 0 || p->in_eof)
		return 0;
	ssize_t k;
	do
		k = read(p->fd, out, n);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return xp_err_set(&p->err, XP_EXIT_BAD_INPUT, p->path, "read error: %s", strerror(errno));
	if (k == 0)
		p->in_eof = true;
	return pull_count(p, (size_t)k);
}

static int64_t pull_gzip(struct xp_pull *p, uint8_t *out, size_t n)
{
	size_t got = 0;
	while (got == 0) {
		if (p->member_end) {
			if (pull_need(p, 2))
				return -1;
			size_t avail = p->in_len - p->in_pos;
			if (avail == 0)
				return 0;
			if (!gzip_magic_at(p->in, p->in_len, p->in_pos)) {
				xp_err_at(&p->err, XP_EXIT_BAD_INPUT, p->path, p->in_base + p->in_pos,
					  "trailing garbage after the gzip stream");
				return pull_fault(p, got);
			}
			inflateReset(&p->zs);
			p->member_end = false;
			p->member_start = p->in_base + p->in_pos;
		}
		if (pull_need(p, 1))
			return -1;
		size_t avail = p->in_len - p->in_pos, room = n - got;
		p->zs.next_in = p->in + p->in_pos;
		p->zs.avail_in = (uInt)(avail > XP_ZSLICE ? XP_ZSLICE : avail);
		p->zs.next_out = out + got;
		p->zs.avail_out = (uInt)(room > XP_ZSLICE ? XP_ZSLICE : room);
		uInt in0 = p->zs.avail_in, out0 = p->zs.avail_out;
		int ret = inflate(&p->zs, Z_NO_FLUSH);
		p->in_pos += in0 - p->zs.avail_in;
		got += out0 - p->zs.avail_out;
		if (ret == Z_STREAM_END) {
			p->member_end = true;
			continue;
		}
		if (ret == Z_OK)
			continue;
		if (ret == Z_BUF_ERROR && avail)
			continue;
		if (ret == Z_BUF_ERROR)
			xp_err_at(&p->err, XP_EXIT_BAD_INPUT, p->path, p->in_base + p->in_pos, "truncated gzip stream");
		else if (ret == Z_MEM_ERROR)
			no_memory(p->path, 0, &p->err);
		else /* where the decoder stops depends on how the output was cut: name the member */
			xp_err_at(&p->err, XP_EXIT_BAD_INPUT, p->path, p->member_start,
				  "corrupt gzip data in the member starting here: %s",
				  p->zs.msg ? p->zs.msg : (ret == Z_NEED_DICT ? "needs a preset dictionary" : "invalid stream"));
		return pull_fault(p, got);
	}
	return pull_count(p, got);
}

/* Decode zstd into the staging buffer, always of one size: how zstd reports a
 * fault depends on the room it has, so the reader's pieces must not matter.
 * Returns the bytes decoded, 0 at the end, -1 on a fault before any byte;
 * a fault after some bytes sets zfail, for the next call. */
static int64_t zstd_fill(struct xp_pull *p)
{
	size_t got = 0;
	while (got == 0) {
		if (p->member_end) {
			if (pull_need(p, 4))
				return -1;
			size_t avail = p->in_len - p->in_pos;
			if (avail == 0)
				return 0;
			if (!zstd_magic_at(p->in, p->in_len, p->in_pos))
				return xp_err_at(&p->err, XP_EXIT_BAD_INPUT, p->path, p->in_base + p->in_pos,
						 "trailing garbage after the zstd stream");
			p->member_end = false;
			p->member_start = p->in_base + p->in_pos;
		}
		if (pull_need(p, 1))
			return -1;
		size_t avail = p->in_len - p->in_pos;
		ZSTD_inBuffer ib = {p->in + p->in_pos, avail, 0};
		ZSTD_outBuffer ob = {p->zbuf + got, p->zcap - got, 0};
		size_t ret = ZSTD_decompressStream(p->zd, &ob, &ib);
		p->in_pos += ib.pos;
		got += ob.pos;
		if (ZSTD_isError(ret) && ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation) {
			return no_memory(p->path, 0, &p->err);
		} else if (ZSTD_isError(ret)) {
			xp_err_at(&p->err, XP_EXIT_BAD_INPUT, p->path, p->member_start,
				  "corrupt zstd data in the frame starting here: %s", ZSTD_getErrorName(ret));
			p->zfail = got > 0;
			return got ? (int64_t)got : -1;
		}
		if (ret == 0) {
			p->member_end = true;
			continue;
		}
		/* No input left and room left for output: the frame can never end. */
		if (!avail && ob.pos < ob.size) {
			xp_err_at(&p->err, XP_EXIT_BAD_INPUT, p->path, p->in_base + p->in_pos, "truncated zstd stream");
			p->zfail = got > 0;
			return got ? (int64_t)got : -1;
		}
	}
	return (int64_t)got;
}

static int64_t pull_zstd(struct xp_pull *p, uint8_t *out, size_t n)
{
	if (p->zpos == p->zlen) {
		if (p->zfail)
			return -1;
		int64_t k = zstd_fill(p);
		if (k <= 0)
			return k;
		p->zlen = (size_t)k;
		p->zpos = 0;
	}
	size_t k = p->zlen - p->zpos < n ? p->zlen - p->zpos : n;
	memcpy(out, p->zbuf + p->zpos, k);
	p->zpos += k;
	return pull_count(p, k);
}

static int64_t pull_decode(struct xp_pull *p, uint8_t *out, size_t n)
{
	if (p->failed)
		return -1;
	if (p->done || n == 0)
		return 0;
	int64_t k;
	switch (p->comp) {
	case XP_COMP_GZIP: k = pull_gzip(p, out, n); break;
	case XP_COMP_ZSTD: k = pull_zstd(p, out, n); break;
	default: k = pull_plain(p, out, n); break;
	}
	if (k == 0 && p->failed)
		k = -1; /* a fault right at the end of what was handed out */
	if (k < 0)
		p->failed = true;
	if (k <= 0)
		p->done = true;
	return k;
}

static void *pull_producer(void *arg)
{
	struct xp_pull *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->cancel && p->tail - p->head == XP_PULL_SLOTS)
			pthread_cond_wait(&p->cv, &p->mu);
		bool cancel = p->cancel;
		unsigned s = p->tail % XP_PULL_SLOTS;
		pthread_mutex_unlock(&p->mu);
		if (cancel)
			break;
		int64_t k = pull_decode(p, p->slot[s] + XP_PULL_ROOM, XP_PULL_CHUNK);
		pthread_mutex_lock(&p->mu);
		if (k > 0) {
			p->slot_len[s] = (size_t)k;
			p->tail++;
		} else {
			p->prod_end = true;
			p->prod_failed = k < 0;
		}
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (k <= 0)
			break;
	}
	return NULL;
}

static void pull_copy_err(const struct xp_pull *p, struct xp_err *err)
{
	if (err && !err->status)
		*err = p->err;
}

/* Wait for slot head + ahead to be filled: 1 when it is, with the lock held;
 * 0 at the end and -1 when the decoder failed (err set), the lock released. */
static int pull_wait(struct xp_pull *p, unsigned ahead, struct xp_err *err)
{
	pthread_mutex_lock(&p->mu);
	while (p->head + ahead == p->tail && !p->prod_end)
		pthread_cond_wait(&p->cv, &p->mu);
	if (p->head + ahead != p->tail)
		return 1;
	bool failed = p->prod_failed;
	pthread_mutex_unlock(&p->mu);
	if (failed)
		pull_copy_err(p, err);
	return failed ? -1 : 0;
}

int64_t xp_pull_read(struct xp_pull *p, uint8_t *buf, size_t n, struct xp_err *err)
{
	if (!p->threaded) {
		int64_t k = pull_decode(p, buf, n);
		if (k < 0)
			pull_copy_err(p, err);
		return k;
	}
	int filled = pull_wait(p, 0, err);
	if (filled <= 0)
		return filled;
	unsigned s = p->head % XP_PULL_SLOTS;
	size_t avail = p->slot_len[s] - p->head_pos;
	pthread_mutex_unlock(&p->mu);
	size_t k = avail < n ? avail : n;
	memcpy(buf, p->slot[s] + XP_PULL_ROOM + p->head_pos, k);
	p->head_pos += k;
	if (p->head_pos == p->slot_len[s]) {
		pthread_mutex_lock(&p->mu);
		p->head++;
		p->head_pos = 0;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	return (int64_t)k;
}

bool xp_pull_can_lend(const struct xp_pull *p)
{
	return p->threaded;
}

int64_t xp_pull_lend(struct xp_pull *p, uint8_t **data, size_t *room, struct xp_err *err)
{
	int filled = pull_wait(p, p->lent, err);
	if (filled <= 0)
		return filled;
	unsigned s = (p->head + p->lent++) % XP_PULL_SLOTS;
	pthread_mutex_unlock(&p->mu);
	*data = p->slot[s] + XP_PULL_ROOM;
	*room = XP_PULL_ROOM;
	return (int64_t)p->slot_len[s];
}

void xp_pull_return(struct xp_pull *p, unsigned keep_last)
{
	pthread_mutex_lock(&p->mu);
	if (p->lent > keep_last) {
		p->head += p->lent - keep_last;
		p->lent = keep_last;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
}

/* Sniff, then set up the decoder (and the helper thread when asked). */
static int pull_start(struct xp_pull *p, uint64_t max_bytes, bool threaded, struct xp_err *err)
{
	p->max_out = max_bytes ? max_bytes : xp_physical_memory();
	if (pull_need(p, 4)) {
		pull_copy_err(p, err);
		return -1;
	}
	p->comp = xp_sniff(p->in + p->in_pos, p->in_len - p->in_pos);
	if (p->comp == XP_COMP_NONE && p->file_bytes > p->max_out)
		return xp_err_set(err, XP_EXIT_BAD_INPUT, p->path,
				  "file size %llu exceeds the limit of %llu bytes (--max-input-bytes)",
				  (unsigned long long)p->file_bytes, (unsigned long long)p->max_out);
	if (p->comp == XP_COMP_GZIP) {
		if (inflateInit2(&p->zs, 15 + 32) != Z_OK)
			return no_memory(p->path, sizeof p->zs, err);
		p->zs_init = true;
	} else if (p->comp == XP_COMP_ZSTD) {
		p->zcap = ZSTD_DStreamOutSize();
		if (!(p->zd = ZSTD_createDCtx()) || !(p->zbuf = malloc(p->zcap)))
			return no_memory(p->path, 0, err);
		ZSTD_DCtx_setParameter(p->zd, ZSTD_d_windowLogMax, zstd_window_log_max(p->max_out));
	}
	if (!threaded || p->comp == XP_COMP_NONE)
		return 0;
	for (unsigned i = 0; i < XP_PULL_SLOTS; i++)
		if (!(p->slot[i] = malloc(XP_PULL_ROOM + XP_PULL_CHUNK)))
			return no_memory(p->path, XP_PULL_ROOM + XP_PULL_CHUNK, err);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->threaded = pthread_create(&p->th, NULL, pull_producer, p) == 0;
	if (!p->threaded) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
	}
	return 0;
}

static struct xp_pull *pull_new(const char *path)
{
	struct xp_pull *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->fd = -1;
	p->path = strdup(path ? path : "");
	if (!p->path) {
		free(p);
		return NULL;
	}
	return p;
}

int xp_pull_open(const char *path, uint64_t max_bytes, bool threaded, struct xp_pull **out, struct xp_err *err)
{
	*out = NULL;
	struct stat st;
	int fd = open_regular(path, &st, err);
	if (fd < 0)
		return -1;
	struct xp_pull *p = pull_new(path);
	if (!p || !(p->inbuf = malloc(XP_PULL_IN))) {
		if (p)
			free(p->path);
		free(p);
		close(fd);
		return no_memory(path, XP_PULL_IN, err);
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	p->fd = fd;
	p->in = p->inbuf;
	p->in_cap = XP_PULL_IN;
	p->file_bytes = (uint64_t)st.st_size;
	if (pull_start(p, max_bytes, threaded, err)) {
		xp_pull_close(p);
		return -1;
	}
	*out = p;
	return 0;
}

int xp_pull_open_mem(const char *path, const uint8_t *data, size_t len, uint64_t max_bytes, struct xp_pull **out,
		     struct xp_err *err)
{
	*out = NULL;
	struct xp_pull *p = pull_new(path);
	if (!p)
		return no_memory(path, sizeof *p, err);
	p->in = data;
	p->in_len = len;
	p->in_eof = true;
	p->file_bytes = len;
	if (pull_start(p, max_bytes, false, err)) {
		xp_pull_close(p);
		return -1;
	}
	*out = p;
	return 0;
}

enum xp_compression xp_pull_compression(const struct xp_pull *p)
{
	return p->comp;
}

uint64_t xp_pull_file_bytes(const struct xp_pull *p)
{
	return p->file_bytes;
}

void xp_pull_close(struct xp_pull *p)
{
	if (!p)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->mu);
		p->cancel = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
	}
	for (unsigned i = 0; i < XP_PULL_SLOTS; i++)
		free(p->slot[i]);
	if (p->zs_init)
		inflateEnd(&p->zs);
	ZSTD_freeDCtx(p->zd);
	free(p->zbuf);
	if (p->fd >= 0)
		close(p->fd);
	free(p->inbuf);
	free(p->path);
	free(p);
}
