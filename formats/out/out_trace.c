/* out_trace.c - Chrome Trace Event Format JSON written as a stream: exact microseconds, escaped strings, one large buffer. */
#include "out_trace.h"
#include "out.h"

#include <stdlib.h>
#include <string.h>

#include "formats/core/xalloc.h"

/* The buffer: large writes, so that an export of a few GB is a few thousand write calls. */
#define TW_BUF ((size_t)1 << 20)
/* Doubles already formatted (the shortest round-trip text costs printf and strtod): a direct-mapped
 * cache by bit pattern; the memory events repeat a few fractions millions of times. */
#define F64_CACHE 1024

struct f64_text {
	uint64_t bits;
	uint8_t len;            /* 0: empty slot */
	char text[39];
};

/* --- the buffer ------------------------------------------------------------------------------ */

static void flush(struct xp_tw *w)
{
	if (w->n && !w->failed && fwrite(w->buf, 1, w->n, w->f) != w->n)
		w->failed = true;
	w->n = 0;
}

/* Room for NEED (<= TW_BUF) bytes at the end of the buffer. */
static inline char *room(struct xp_tw *w, size_t need)
{
	if (TW_BUF - w->n < need)
		flush(w);
	return w->buf + w->n;
}

void xp_tw_raw(struct xp_tw *w, const char *s, size_t n)
{
	if (TW_BUF - w->n < n) {
		flush(w);
		if (n > TW_BUF) {
			if (!w->failed && fwrite(s, 1, n, w->f) != n)
				w->failed = true;
			return;
		}
	}
	memcpy(w->buf + w->n, s, n);
	w->n += n;
}

/* Short text of a size known where it is written (the copy inlined). */
static inline void put_short(struct xp_tw *w, const char *s, size_t n)
{
	memcpy(room(w, n), s, n);
	w->n += n;
}

#define PUT(w, lit) put_short(w, lit, sizeof lit - 1)

/* O = S for N bytes, where S may be read for XP_TW_PAD bytes and O written as far: a short one in one
 * fixed-size move (most names and keys are short; a call to memcpy per value was a tenth of the export). */
static inline void copy_padded(char *o, const char *s, size_t n)
{
	if (n <= XP_TW_PAD)
		memcpy(o, s, XP_TW_PAD);
	else
		memcpy(o, s, n);
}

void xp_tw_raw_padded(struct xp_tw *w, const char *s, size_t n)
{
	if (n + XP_TW_PAD > TW_BUF) {
		xp_tw_raw(w, s, n);
		return;
	}
	copy_padded(room(w, n + XP_TW_PAD), s, n);
	w->n += n;
}

static inline void put_c(struct xp_tw *w, char c)
{
	*room(w, 1) = c;
	w->n++;
}

/* --- values ------------------------------------------------------------------------------- */

static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
			       "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
			       "8081828384858687888990919293949596979899";

/* The number of decimal digits of U: from its highest bit (log10(2) ~ 1233 / 4096), then one comparison. */
static inline size_t n_digits(uint64_t u)
{
	static const uint64_t pow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
					   10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
					   100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
					   1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
					   1000000000000000000ull, 10000000000000000000ull};
	unsigned t = (unsigned)(63 - __builtin_clzll(u | 1)) * 1233 >> 12; /* digits - 1, or one less */
	return t + 1 + (t < 19 && u >= pow10[t + 1]);
}

/* The decimal digits of U ending at END, two at a time (printf was most of an export's time). */
static char *digits(char *end, uint64_t u)
{
	while (u >= 10000) { /* four at a time: one division by a constant for two pairs */
		unsigned r = (unsigned)(u % 10000);
		u /= 10000;
		end -= 4;
		memcpy(end, pairs + 2 * (r / 100), 2);
		memcpy(end + 2, pairs + 2 * (r % 100), 2);
	}
	while (u >= 100) {
		unsigned r = (unsigned)(u % 100);
		u /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (u >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * u, 2);
	} else {
		*--end = (char)('0' + u);
	}
	return end;
}

/* Digits straight into the buffer: most of an export's bytes are numbers. */
static void put_u64(struct xp_tw *w, uint64_t u)
{
	size_t n = n_digits(u);
	char *o = room(w, n);
	digits(o + n, u);
	w->n += n;
}

static void put_i64(struct xp_tw *w, int64_t v)
{
	if (v < 0)
		put_c(w, '-');
	put_u64(w, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v); /* |INT64_MIN| fits unsigned */
}

/* Exact decimal microseconds of PS picoseconds from O on (at most US_MAX bytes), no double on the way, no
 * trailing zeros; the end. */
#define US_MAX 28
static char *us_text(char *o, int64_t ps)
{
	uint64_t m = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps, whole = m / 1000000;
	uint32_t frac = (uint32_t)(m % 1000000);
	if (ps < 0)
		*o++ = '-';
	size_t n = n_digits(whole);
	digits(o + n, whole);
	o += n;
	if (frac) {
		*o++ = '.';
		memcpy(o, pairs + 2 * (frac / 10000), 2);
		memcpy(o + 2, pairs + 2 * (frac / 100 % 100), 2);
		memcpy(o + 4, pairs + 2 * (frac % 100), 2);
		o += 6;
		while (o[-1] == '0')
			o--;
	}
	return o;
}

static void put_us(struct xp_tw *w, int64_t ps)
{
	char *o = room(w, US_MAX);
	w->n += (size_t)(us_text(o, ps) - o);
}

/* May byte C stand as it is in a JSON string (printable ASCII but the quote and the backslash)? */
static inline bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Are the eight bytes of X all plain? None has its high bit set, is below 0x20, or is a quote or a backslash
 * (a byte's zero test: (v - 0x01..) & ~v & 0x80..). */
static inline bool plain8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
	uint64_t low = (x - ones * 0x20) & ~x, zq = (q - ones) & ~q, zb = (b - ones) & ~b;
	return !((x | low | zq | zb) & highs);
}

size_t xp_tw_escape(char *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;
	*o++ = '"';
	for (size_t i = 0; i < n;) {
		uint64_t x;
		if (n - i >= 8 && (memcpy(&x, p + i, 8), plain8(x))) { /* eight plain bytes at a time */
			memcpy(o, &x, 8);
			o += 8;
			i += 8;
			continue;
		}
		unsigned char c = p[i];
		if (plain(c)) {
			*o++ = (char)c;
			i++;
			continue;
		}
		if (c >= 0x80) {
			uint32_t cp;
			size_t k = xp_utf8_decode(p + i, n - i, &cp);
			if (k) {
				memcpy(o, p + i, k);
				o += k;
				i += k;
				continue;
			}
			memcpy(o, "\\ufffd", 6); /* a byte that starts no UTF-8 sequence */
			o += 6;
		} else if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c == '\n') {
			memcpy(o, "\\n", 2);
			o += 2;
		} else if (c == '\t') {
			memcpy(o, "\\t", 2);
			o += 2;
		} else {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			memcpy(o, u, 6);
			o += 6;
		}
		i++;
	}
	*o++ = '"';
	return (size_t)(o - out);
}

/* A string escaped straight into the buffer; one longer than the buffer in pieces that end on a
 * character's boundary. */
static void put_str(struct xp_tw *w, const char *s, size_t n)
{
	if (XP_TW_ESCAPED_MAX(n) <= TW_BUF) {
		w->n += xp_tw_escape(room(w, XP_TW_ESCAPED_MAX(n)), s, n);
		return;
	}
	put_c(w, '"');
	const unsigned char *p = (const unsigned char *)s;
	size_t piece = TW_BUF / 8;
	while (n) {
		size_t k = n < piece ? n : piece;
		while (k < n && k > 0 && (p[k] & 0xc0) == 0x80)
			k--; /* not inside a UTF-8 sequence */
		if (!k)
			k = n < piece ? n : piece;
		size_t got = xp_tw_escape(room(w, XP_TW_ESCAPED_MAX(k)), (const char *)p, k);
		memmove(w->buf + w->n, w->buf + w->n + 1, got - 2); /* without its quotes */
		w->n += got - 2;
		p += k;
		n -= k;
	}
	put_c(w, '"');
}

/* --- the document ------------------------------------------------------------------------- */

void xp_tw_begin(struct xp_tw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->buf = xmalloc(TW_BUF + sizeof(struct f64_text) * F64_CACHE);
	memset(w->buf + TW_BUF, 0, sizeof(struct f64_text) * F64_CACHE);
	w->first = true;
	w->args_first = true;
	PUT(w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{");
}

void xp_tw_other_str(struct xp_tw *w, const char *key, const char *val)
{
	if (!w->args_first)
		put_c(w, ',');
	w->args_first = false;
	put_str(w, key, strlen(key));
	put_c(w, ':');
	put_str(w, val, strlen(val));
}

void xp_tw_events(struct xp_tw *w)
{
	PUT(w, "},\"traceEvents\":[");
	w->args_first = true;
}

int xp_tw_end(struct xp_tw *w)
{
	PUT(w, "\n]}\n");
	flush(w);
	free(w->buf);
	w->buf = NULL;
	return w->failed || ferror(w->f) ? -1 : 0;
}

static void sep(struct xp_tw *w)
{
	if (w->first)
		put_c(w, '\n');
	else
		PUT(w, ",\n");
	w->first = false;
	w->n_events++;
}

static void meta_head(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid)
{
	sep(w);
	PUT(w, "{\"ph\":\"M\",\"pid\":");
	put_i64(w, pid);
	if (has_tid) {
		PUT(w, ",\"tid\":");
		put_i64(w, tid);
	}
	PUT(w, ",\"name\":\"");
	xp_tw_raw(w, what, strlen(what));
	PUT(w, "\",\"args\":{");
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
	PUT(w, "\"name\":");
	put_str(w, s, n);
	PUT(w, "}}");
}

void xp_tw_meta_sort(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, int64_t index)
{
	meta_head(w, what, pid, has_tid, tid);
	PUT(w, "\"sort_index\":");
	put_i64(w, index);
	PUT(w, "}}");
}

/* An event's members up to its name's value. */
static void open_head(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps)
{
	sep(w);
	PUT(w, "{\"ph\":\"");
	put_c(w, ph);
	PUT(w, "\",\"pid\":");
	put_i64(w, pid);
	PUT(w, ",\"tid\":");
	put_i64(w, tid);
	PUT(w, ",\"ts\":");
	put_us(w, ts_ps);
	if (ph == 'X') {
		PUT(w, ",\"dur\":");
		put_us(w, dur_ps);
	}
	PUT(w, ",\"name\":");
}

void xp_tw_open(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps, const char *name,
		size_t nlen)
{
	open_head(w, ph, pid, tid, ts_ps, dur_ps);
	put_str(w, name, nlen);
}

void xp_tw_open_q(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps, const char *qname,
		  size_t qlen)
{
	open_head(w, ph, pid, tid, ts_ps, dur_ps);
	xp_tw_raw(w, qname, qlen);
}

size_t xp_tw_x_head(char *buf, int64_t pid, int64_t tid)
{
	char num[24], *e = num + sizeof num;
	size_t n = 0;
	memcpy(buf, "{\"ph\":\"X\",\"pid\":", 16);
	n = 16;
	if (pid < 0)
		buf[n++] = '-';
	char *b = digits(e, pid < 0 ? (uint64_t)0 - (uint64_t)pid : (uint64_t)pid);
	memcpy(buf + n, b, (size_t)(e - b));
	n += (size_t)(e - b);
	memcpy(buf + n, ",\"tid\":", 7);
	n += 7;
	if (tid < 0)
		buf[n++] = '-';
	b = digits(e, tid < 0 ? (uint64_t)0 - (uint64_t)tid : (uint64_t)tid);
	memcpy(buf + n, b, (size_t)(e - b));
	n += (size_t)(e - b);
	memcpy(buf + n, ",\"ts\":", 6);
	return n + 6;
}

void xp_tw_open_x(struct xp_tw *w, const char *head, size_t hlen, int64_t ts_ps, int64_t dur_ps, const char *qname,
		  size_t qlen)
{
	sep(w);
	/* head, two times of at most US_MAX bytes each, ",\"dur\":" and ",\"name\":" in one reservation */
	if (hlen + qlen + 80 + XP_TW_PAD <= TW_BUF) {
		char *o = room(w, hlen + qlen + 80 + XP_TW_PAD), *start = o;
		copy_padded(o, head, hlen);
		o = us_text(o + hlen, ts_ps);
		memcpy(o, ",\"dur\":", 7);
		o = us_text(o + 7, dur_ps);
		memcpy(o, ",\"name\":", 8);
		o += 8;
		copy_padded(o, qname, qlen);
		o += qlen;
		w->n += (size_t)(o - start);
		return;
	}
	xp_tw_raw(w, head, hlen);
	put_us(w, ts_ps);
	PUT(w, ",\"dur\":");
	put_us(w, dur_ps);
	PUT(w, ",\"name\":");
	xp_tw_raw(w, qname, qlen);
}

void xp_tw_field_str(struct xp_tw *w, const char *key, const char *s, size_t n)
{
	PUT(w, ",\"");
	xp_tw_raw(w, key, strlen(key));
	PUT(w, "\":");
	put_str(w, s, n);
}

void xp_tw_args(struct xp_tw *w)
{
	PUT(w, ",\"args\":{");
	w->args_first = true;
}

void xp_tw_arg_next(struct xp_tw *w)
{
	if (!w->args_first)
		put_c(w, ',');
	w->args_first = false;
}

void xp_tw_arg_qkey(struct xp_tw *w, const char *qkey, size_t qlen)
{
	if (qlen + 2 + XP_TW_PAD > TW_BUF) {
		xp_tw_arg_next(w);
		xp_tw_raw(w, qkey, qlen);
		put_c(w, ':');
		return;
	}
	char *o = room(w, qlen + 2 + XP_TW_PAD), *start = o;
	if (!w->args_first)
		*o++ = ',';
	w->args_first = false;
	copy_padded(o, qkey, qlen);
	o[qlen] = ':';
	w->n += (size_t)(o - start) + qlen + 1;
}

void xp_tw_arg_key(struct xp_tw *w, const char *key, size_t klen)
{
	xp_tw_arg_next(w);
	put_str(w, key, klen);
	put_c(w, ':');
}

void xp_tw_val_str(struct xp_tw *w, const char *s, size_t n)
{
	put_str(w, s, n);
}

#define EXACT_MAX ((int64_t)1 << 53) /* integers up to here survive a double (JavaScript's numbers) */

void xp_tw_val_i64(struct xp_tw *w, int64_t v)
{
	bool exact = v >= -EXACT_MAX && v <= EXACT_MAX;
	if (!exact)
		put_c(w, '"');
	put_i64(w, v);
	if (!exact)
		put_c(w, '"');
}

void xp_tw_val_u64(struct xp_tw *w, uint64_t v)
{
	bool exact = v <= (uint64_t)EXACT_MAX;
	if (!exact)
		put_c(w, '"');
	put_u64(w, v);
	if (!exact)
		put_c(w, '"');
}

/* The text of a finite V as xp_format_f64 gives it, with ".0" where it has no fraction or exponent. */
static size_t f64_text(double v, char *out)
{
	if (v == 0 || (v > -1e15 && v < 1e15 && v == (double)(int64_t)v)) {
		/* an integer of at most 15 digits: "%.15g" prints its digits, and they read back exactly */
		int64_t i = (int64_t)v;
		char buf[24], *e = buf + sizeof buf, *b = digits(e, i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i);
		size_t n = 0;
		if (i < 0)
			out[n++] = '-';
		memcpy(out + n, b, (size_t)(e - b));
		n += (size_t)(e - b);
		memcpy(out + n, ".0", 2);
		return n + 2;
	}
	char buf[40];
	xp_format_f64(v, buf, sizeof buf);
	size_t n = strlen(buf);
	memcpy(out, buf, n);
	if (!strpbrk(buf, ".eE")) {
		memcpy(out + n, ".0", 2); /* 900.0, not 900: the value reads back as a double */
		n += 2;
	}
	return n;
}

void xp_tw_val_f64(struct xp_tw *w, double v)
{
	if (v != v || v - v != 0) { /* NaN, infinities */
		const char *s = v != v ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"";
		xp_tw_raw(w, s, strlen(s));
		return;
	}
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	struct f64_text *cache = (struct f64_text *)(void *)(w->buf + TW_BUF);
	struct f64_text *t = &cache[(bits ^ bits >> 29 ^ bits >> 47) % F64_CACHE];
	if (!t->len || t->bits != bits) {
		t->bits = bits;
		t->len = (uint8_t)f64_text(v, t->text);
	}
	xp_tw_raw(w, t->text, t->len);
}

void xp_tw_val_bytes(struct xp_tw *w, const uint8_t *p, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	PUT(w, "\"base64:");
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char *o = room(w, 4);
		o[0] = b64[v >> 18];
		o[1] = b64[(v >> 12) & 63];
		o[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		o[3] = i + 2 < n ? b64[v & 63] : '=';
		w->n += 4;
	}
	put_c(w, '"');
}

void xp_tw_arg_str(struct xp_tw *w, const char *key, size_t klen, const char *s, size_t n)
{
	xp_tw_arg_key(w, key, klen);
	put_str(w, s, n);
}

void xp_tw_arg_i64(struct xp_tw *w, const char *key, size_t klen, int64_t v)
{
	xp_tw_arg_key(w, key, klen);
	xp_tw_val_i64(w, v);
}

void xp_tw_arg_u64(struct xp_tw *w, const char *key, size_t klen, uint64_t v)
{
	xp_tw_arg_key(w, key, klen);
	xp_tw_val_u64(w, v);
}

void xp_tw_arg_f64(struct xp_tw *w, const char *key, size_t klen, double v)
{
	xp_tw_arg_key(w, key, klen);
	xp_tw_val_f64(w, v);
}

void xp_tw_arg_bytes(struct xp_tw *w, const char *key, size_t klen, const uint8_t *p, size_t n)
{
	xp_tw_arg_key(w, key, klen);
	xp_tw_val_bytes(w, p, n);
}

void xp_tw_close(struct xp_tw *w, bool had_args)
{
	if (had_args)
		PUT(w, "}}");
	else
		put_c(w, '}');
}

/* -I or I at O; the end. */
static char *i64_text(char *o, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	if (v < 0)
		*o++ = '-';
	size_t n = n_digits(u);
	digits(o + n, u);
	return o + n;
}

/* N bytes of S at O; the end. */
static inline char *put_at(char *o, const char *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

/* A literal's text at O; the end. */
#define LIT(o, lit) put_at(o, lit, sizeof lit - 1)

void xp_tw_flow(struct xp_tw *w, char ph, uint64_t id, int64_t pid, int64_t tid, int64_t ts_ps, const char *cat)
{
	size_t cn = strlen(cat);
	sep(w);
	if (2 * cn + 4 * 21 + US_MAX + 64 > TW_BUF) { /* never: the categories are xpstat's own short words */
		xp_tw_raw(w, "{}", 2);
		return;
	}
	/* one reservation for the whole event: a flow is written in a few moves, not a call per member */
	char *o = room(w, 2 * cn + 4 * 21 + US_MAX + 64), *start = o;
	o = LIT(o, "{\"ph\":\"");
	*o++ = ph;
	o = LIT(o, "\",\"id\":");
	size_t n = n_digits(id);
	digits(o + n, id);
	o = LIT(o + n, ",\"pid\":");
	o = LIT(i64_text(o, pid), ",\"tid\":");
	o = LIT(i64_text(o, tid), ",\"ts\":");
	o = LIT(us_text(o, ts_ps), ",\"cat\":\"");
	memcpy(o, cat, cn);
	o = LIT(o + cn, "\",\"name\":\"");
	memcpy(o, cat, cn);
	o += cn;
	*o++ = '"';
	if (ph == 'f')
		o = LIT(o, ",\"bp\":\"e\"");
	*o++ = '}';
	w->n += (size_t)(o - start);
}
