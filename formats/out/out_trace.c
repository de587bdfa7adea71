/* out_trace.c - Chrome Trace Event Format JSON written as a stream: exact microseconds, escaped strings, gzip/zstd through a stdio cookie. */
#include "out_trace.h"
#include "out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* --- compression -------------------------------------------------------------------------- */

enum xp_tw_comp xp_tw_comp_of(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		return XP_TW_GZIP;
	if (n > 4 && !strcmp(path + n - 4, ".zst"))
		return XP_TW_ZSTD;
	return XP_TW_PLAIN;
}

struct zcookie {
	FILE *raw;
	enum xp_tw_comp comp;
	z_stream z;
	ZSTD_CCtx *zc;
	unsigned char out[1 << 16];
	bool failed;
};

static bool put_raw(struct zcookie *c, size_t n)
{
	if (n && fwrite(c->out, 1, n, c->raw) != n)
		c->failed = true;
	return !c->failed;
}

/* Compress [p, p+n) (FINISH: and end the stream). */
static bool gz_feed(struct zcookie *c, const char *p, size_t n, bool finish)
{
	c->z.next_in = (Bytef *)(uintptr_t)p;
	c->z.avail_in = (uInt)n;
	int rc;
	do {
		c->z.next_out = c->out;
		c->z.avail_out = sizeof c->out;
		rc = deflate(&c->z, finish ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_STREAM_ERROR || !put_raw(c, sizeof c->out - c->z.avail_out))
			return false;
	} while (c->z.avail_in || (finish && rc != Z_STREAM_END) || (!finish && !c->z.avail_out));
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
	bool ok = c->comp == XP_TW_GZIP ? gz_feed(c, buf, n, false) : zs_feed(c, buf, n, false);
	return ok ? (ssize_t)n : -1;
}

static int z_close(void *cookie)
{
	struct zcookie *c = cookie;
	bool ok = !c->failed && (c->comp == XP_TW_GZIP ? gz_feed(c, "", 0, true) : zs_feed(c, "", 0, true));
	if (c->comp == XP_TW_GZIP)
		deflateEnd(&c->z);
	else
		ZSTD_freeCCtx(c->zc);
	free(c);
	return ok ? 0 : -1;
}

FILE *xp_tw_compress(FILE *raw, enum xp_tw_comp comp)
{
	if (comp == XP_TW_PLAIN)
		return raw;
	struct zcookie *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->raw = raw;
	c->comp = comp;
	bool ok;
	if (comp == XP_TW_GZIP) {
		ok = deflateInit2(&c->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK; /* +16: gzip framing */
	} else {
		c->zc = ZSTD_createCCtx();
		ok = c->zc && !ZSTD_isError(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel, 3));
	}
	cookie_io_functions_t io = {.write = z_write, .close = z_close};
	FILE *f = ok ? fopencookie(c, "w", io) : NULL;
	if (!f) {
		if (comp == XP_TW_GZIP && ok)
			deflateEnd(&c->z);
		ZSTD_freeCCtx(c->zc);
		free(c);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 18);
	return f;
}

/* --- values ------------------------------------------------------------------------------- */

/* The decimal digits of U ending at END (printf is most of an export's time otherwise). */
static char *digits(char *end, uint64_t u)
{
	do {
		*--end = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	return end;
}

static void put_u64(FILE *f, uint64_t u)
{
	char buf[24], *e = buf + sizeof buf, *b = digits(e, u);
	fwrite_unlocked(b, 1, (size_t)(e - b), f);
}

static void put_i64(FILE *f, int64_t v)
{
	if (v < 0)
		putc_unlocked('-', f);
	put_u64(f, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v); /* |INT64_MIN| fits unsigned */
}

void xp_tw_us(FILE *f, int64_t ps)
{
	uint64_t m = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
	uint64_t frac = m % 1000000;
	char buf[40], *e = buf + sizeof buf, *b = e;
	if (frac) {
		int k = 6;
		while (frac % 10 == 0) { /* no trailing zeros */
			frac /= 10;
			k--;
		}
		for (; k > 0; k--, frac /= 10)
			*--b = (char)('0' + frac % 10);
		*--b = '.';
	}
	b = digits(b, m / 1000000);
	if (ps < 0)
		*--b = '-';
	fwrite_unlocked(b, 1, (size_t)(e - b), f);
}

void xp_tw_str(FILE *f, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	putc_unlocked('"', f);
	size_t run = 0; /* bytes copied as they are, written in one go */
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			run++;
			continue;
		}
		if (c >= 0x80) {
			uint32_t cp;
			size_t k = xp_utf8_decode(p + i, n - i, &cp);
			if (k) {
				i += k;
				run += k;
				continue;
			}
		}
		fwrite_unlocked(p + i - run, 1, run, f);
		run = 0;
		if (c == '"' || c == '\\') {
			putc_unlocked('\\', f);
			putc_unlocked((int)c, f);
		} else if (c == '\n') {
			fputs_unlocked("\\n", f);
		} else if (c == '\t') {
			fputs_unlocked("\\t", f);
		} else if (c < 0x20) {
			char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
			fputs(u, f);
		} else {
			fputs("\\ufffd", f); /* a byte that starts no UTF-8 sequence */
		}
		i++;
	}
	fwrite_unlocked(p + n - run, 1, run, f);
	putc_unlocked('"', f);
}

/* --- the document ------------------------------------------------------------------------- */

void xp_tw_begin(struct xp_tw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->first = true;
	w->args_first = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{", f);
}

void xp_tw_other_str(struct xp_tw *w, const char *key, const char *val)
{
	if (!w->args_first)
		putc(',', w->f);
	w->args_first = false;
	xp_tw_str(w->f, key, strlen(key));
	putc(':', w->f);
	xp_tw_str(w->f, val, strlen(val));
}

void xp_tw_events(struct xp_tw *w)
{
	fputs("},\"traceEvents\":[", w->f);
	w->args_first = true;
}

int xp_tw_end(struct xp_tw *w)
{
	fputs("\n]}\n", w->f);
	return ferror(w->f) ? -1 : 0;
}

static void sep(struct xp_tw *w)
{
	fputs_unlocked(w->first ? "\n" : ",\n", w->f);
	w->first = false;
	w->n_events++;
}

static void meta_head(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid)
{
	sep(w);
	fprintf(w->f, "{\"ph\":\"M\",\"pid\":%" PRId64, pid);
	if (has_tid)
		fprintf(w->f, ",\"tid\":%" PRId64, tid);
	fprintf(w->f, ",\"name\":\"%s\",\"args\":{", what);
}

void xp_tw_meta_open(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid)
{
	meta_head(w, what, pid, has_tid, tid);
	w->args_first = true;
}

void xp_tw_meta_name(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, const char *s,
		     size_t n)
{
	meta_head(w, what, pid, has_tid, tid);
	fputs("\"name\":", w->f);
	xp_tw_str(w->f, s, n);
	fputs("}}", w->f);
}

void xp_tw_meta_sort(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, int64_t index)
{
	meta_head(w, what, pid, has_tid, tid);
	fprintf(w->f, "\"sort_index\":%" PRId64 "}}", index);
}

void xp_tw_open(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps, const char *name,
		size_t nlen)
{
	FILE *f = w->f;
	sep(w);
	fputs_unlocked("{\"ph\":\"", f);
	putc_unlocked(ph, f);
	fputs_unlocked("\",\"pid\":", f);
	put_i64(f, pid);
	fputs_unlocked(",\"tid\":", f);
	put_i64(f, tid);
	fputs_unlocked(",\"ts\":", f);
	xp_tw_us(f, ts_ps);
	if (ph == 'X') {
		fputs_unlocked(",\"dur\":", f);
		xp_tw_us(f, dur_ps);
	}
	fputs_unlocked(",\"name\":", f);
	xp_tw_str(f, name, nlen);
}

void xp_tw_field_str(struct xp_tw *w, const char *key, const char *s, size_t n)
{
	fprintf(w->f, ",\"%s\":", key);
	xp_tw_str(w->f, s, n);
}

void xp_tw_args(struct xp_tw *w)
{
	fputs_unlocked(",\"args\":{", w->f);
	w->args_first = true;
}

void xp_tw_arg_key(struct xp_tw *w, const char *key, size_t klen)
{
	if (!w->args_first)
		putc_unlocked(',', w->f);
	w->args_first = false;
	xp_tw_str(w->f, key, klen);
	putc_unlocked(':', w->f);
}

void xp_tw_arg_str(struct xp_tw *w, const char *key, size_t klen, const char *s, size_t n)
{
	xp_tw_arg_key(w, key, klen);
	xp_tw_str(w->f, s, n);
}

#define EXACT_MAX ((int64_t)1 << 53) /* integers up to here survive a double (JavaScript's numbers) */

void xp_tw_arg_i64(struct xp_tw *w, const char *key, size_t klen, int64_t v)
{
	xp_tw_arg_key(w, key, klen);
	bool exact = v >= -EXACT_MAX && v <= EXACT_MAX;
	if (!exact)
		putc_unlocked('"', w->f);
	put_i64(w->f, v);
	if (!exact)
		putc_unlocked('"', w->f);
}

void xp_tw_arg_u64(struct xp_tw *w, const char *key, size_t klen, uint64_t v)
{
	xp_tw_arg_key(w, key, klen);
	bool exact = v <= (uint64_t)EXACT_MAX;
	if (!exact)
		putc_unlocked('"', w->f);
	put_u64(w->f, v);
	if (!exact)
		putc_unlocked('"', w->f);
}

void xp_tw_arg_f64(struct xp_tw *w, const char *key, size_t klen, double v)
{
	char buf[40];
	xp_tw_arg_key(w, key, klen);
	if (xp_format_f64(v, buf, sizeof buf)) {
		fputs(buf, w->f);
		if (!strpbrk(buf, ".eE"))
			fputs(".0", w->f); /* 900.0, not 900: the value reads back as a double */
	}
	else
		fputs(v != v ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"", w->f);
}

void xp_tw_arg_bytes(struct xp_tw *w, const char *key, size_t klen, const uint8_t *p, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	xp_tw_arg_key(w, key, klen);
	fputs("\"base64:", w->f);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		putc(b64[v >> 18], w->f);
		putc(b64[(v >> 12) & 63], w->f);
		putc(i + 1 < n ? b64[(v >> 6) & 63] : '=', w->f);
		putc(i + 2 < n ? b64[v & 63] : '=', w->f);
	}
	putc('"', w->f);
}

void xp_tw_close(struct xp_tw *w, bool had_args)
{
	fputs_unlocked(had_args ? "}}" : "}", w->f);
}

void xp_tw_flow(struct xp_tw *w, char ph, uint64_t id, int64_t pid, int64_t tid, int64_t ts_ps, const char *cat)
{
	sep(w);
	fprintf(w->f, "{\"ph\":\"%c\",\"id\":%" PRIu64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", ph, id, pid,
		tid);
	xp_tw_us(w->f, ts_ps);
	fprintf(w->f, ",\"cat\":\"%s\",\"name\":\"%s\"%s}", cat, cat, ph == 'f' ? ",\"bp\":\"e\"" : "");
}
