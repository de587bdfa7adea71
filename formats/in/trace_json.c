/* trace_json.c - streaming Chrome trace-event JSON reader: one event object at a time from a window over the (decompressed) text into the columnar model. */
#include "trace_json.h"
#include "input.h"
#include "formats/core/xalloc.h"
#include "formats/core/work.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <pthread.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Reading happens in two phases.
 *
 * 1. Streaming. A window holds the decompressed text from the current event
 *    on (it grows only when one event is bigger than it). The validating
 *    lexer below walks one traceEvents element at a time and records spans
 *    into the window; nothing is kept unless the whole element was read. If
 *    the window ends inside the element, more text is pulled and the element
 *    is lexed again from its start (once per window refill at most). A
 *    complete element is then committed: its event is appended to the raw
 *    line of its (pid, tid, route), columnar and in blocks of XP_BLOCK_EVENTS
 *    exactly as the model wants them, with stats keyed by host-wide metadata
 *    ids. Times are kept relative to the first ts seen.
 *
 * 2. Finishing. Processes become planes (their names, labels and the
 *    categories of their events decide which), raw lines become lines, lines
 *    not in (start asc, duration desc) order are sorted, the host-wide
 *    metadata ids are renumbered per plane, and times are shifted so that
 *    the earliest event starts within the first nanosecond of the host base.
 *
 * With two threads or more, phase 1 is split: a lexer thread lexes elements
 * into batches (their spans point into the batch's own text, or into the
 * mapped file) and the caller's thread commits them in order; with gzip or
 * zstd a third thread decompresses ahead of both (see the pull reader).
 *
 * Only the top-level values other than traceEvents that we use
 * (deviceProperties, distributedInfo) are parsed as trees (cJSON); they are
 * small. Every byte is validated: RFC 8259 syntax, UTF-8, control
 * characters, nesting depth. Lone UTF-16 surrogates in \u escapes are read as
 * U+FFFD and counted as invalid UTF-8.
 */

#define MAX_DEPTH 64                    /* nesting of arrays/objects below an event */
#define WIN_INIT ((size_t)4 << 20)      /* window bytes at the start */
#define WIN_MIN_READ ((size_t)1 << 20)  /* grow the window when less room is left */
#define INTERN_MAX 4096                 /* longer string values go to the block's blob */
#define MAX_DROPS 64                    /* drop_stats names honoured (a bit each per line); later ones are kept */
#define DERIVED_MIN (-559038737)        /* 0xdeadbeef as an int: the derived line id range */

enum { J_OK = 0, J_MORE = 1, J_ERR = -1 };
enum { JV_NONE = 0, JV_STR, JV_NUM, JV_TRUE, JV_FALSE, JV_NULL, JV_ARR, JV_OBJ };
/* Where an event's line lives: from its process (auto), or forced by its category. */
enum route { RT_AUTO = 0, RT_HOST, RT_DEVICE, RT_ANNOT, RT_COUNTER, RT_ASYNC };
/* Kineto / PyTorch event categories that change the mapping. */
enum cat { C_NONE = 0, C_KERNEL, C_MEMCPY, C_MEMSET, C_GPU_ANNOT, C_DEVICE, C_RUNTIME, C_HOST };
/* What a stat name says about TF's string args (TF writes every arg as a string). */
enum numkey { NK_NONE = 0, NK_INT, NK_DOUBLE, NK_LONG_NAME };

#define GROW(arr, n, cap)                                                      \
	do {                                                                   \
		if ((n) >= (cap)) {                                            \
			(cap) = (cap) ? (cap) * 2 : 16;                        \
			(arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr)); \
		}                                                              \
	} while (0)

/* --- a hash map from a three-part key to an index --------------------------- */

struct key3 {
	int64_t a, b;
	uint64_t c;
};

struct kmap {
	struct key3 *keys;
	uint32_t *vals;         /* index + 1; 0 = empty slot */
	size_t cap, n;
};

static uint64_t key3_hash(const struct key3 *k)
{
	uint64_t h = (uint64_t)k->a * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)k->b + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
	h ^= k->c * 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
}

static bool key3_eq(const struct key3 *x, const struct key3 *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

static uint32_t kmap_get(const struct kmap *m, const struct key3 *k)
{
	if (!m->cap)
		return UINT32_MAX;
	size_t j = key3_hash(k) & (m->cap - 1);
	while (m->vals[j]) {
		if (key3_eq(&m->keys[j], k))
			return m->vals[j] - 1;
		j = (j + 1) & (m->cap - 1);
	}
	return UINT32_MAX;
}

static void kmap_put(struct kmap *m, const struct key3 *k, uint32_t v)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct kmap old = *m;
		m->cap = old.cap ? old.cap * 2 : 64;
		m->keys = xcalloc(m->cap, sizeof *m->keys);
		m->vals = xcalloc(m->cap, sizeof *m->vals);
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.vals[i])
				kmap_put(m, &old.keys[i], old.vals[i] - 1);
		free(old.keys);
		free(old.vals);
	}
	size_t j = key3_hash(k) & (m->cap - 1);
	while (m->vals[j] && !key3_eq(&m->keys[j], k))
		j = (j + 1) & (m->cap - 1);
	if (!m->vals[j])
		m->n++;
	m->keys[j] = *k;
	m->vals[j] = v + 1;
}

static void kmap_free(struct kmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* --- the reader's state --------------------------------------------------------- */

/* A pid or tid: an integer, or an interned string (Kineto writes "Spans", "stream 7"). */
struct jkey {
	int64_t v;
	bool str;
};

struct jstr {
	const uint8_t *p;
	size_t len;
	bool esc;
};

struct jval {
	uint8_t type;
	bool esc;               /* JV_STR with escapes */
	bool is_int;            /* JV_NUM without fraction or exponent */
	const uint8_t *p;       /* JV_STR: the content between the quotes; else the whole text */
	size_t len;
};

struct jarg {
	struct jstr key;
	struct jval val;
};

/* The members of one traceEvents element we use, as spans into the window. */
struct ev {
	const uint8_t *at;
	size_t members;
	struct jval ph, name, cat, pid, tid, ts, dur, id, id2, args;
	size_t na;              /* args members in av[0..na) when args is an object */
	const struct jarg *av;
	bool ts_done, dur_done; /* ts_ps / dur_ps hold the value, converted while lexing */
	__int128 ts_ps, dur_ps;
};

struct proc {
	struct jkey pid;
	uint32_t name, labels;
	bool has_name, has_labels, device_events, has_dev_arg;
	int64_t dev_arg;        /* "device" arg of its device events */
};

struct tmeta {
	uint32_t name;
	bool has_name, has_sort;
	int64_t sort;
};

/* A raw line: the events of one (pid, tid, route), in arrival order. */
struct rline {
	struct jkey pid, tid;
	uint8_t route;
	uint32_t proc;
	uint64_t n, cap;
	int64_t *start, *dur;
	uint32_t *meta, *sbeg;
	struct xp_block *blocks;
	uint32_t n_blocks, cap_blocks;
	uint64_t n_dropped;     /* stats not kept (xp_json_opts.drop_stats) */
	uint64_t dropped_names; /* which: bit k = drop_stats[k] */
	bool overflow, has_dev_arg;
	int64_t dev_arg;
	uint32_t plane;         /* set when finishing */
};

struct stack_ent {
	uint32_t line;
	uint64_t ev;
};

struct stack {
	struct stack_ent *v;
	size_t n, cap;
};

struct scratch {
	uint8_t *p;
	size_t cap;
};

/* A cache in front of the capture's string table: the same few names, keys
 * and values come back in every event, and a word-at-a-time hash is much
 * cheaper than the table's byte-at-a-time one. */
struct scache_ent {
	uint64_t hash;
	uint32_t id;            /* string id + 1; 0 = empty slot */
	uint32_t len;
};

struct scache {
	struct scache_ent *e;
	size_t cap, n;
};

struct reader {
	struct xp_capture *cap;
	struct xp_strtab *st;
	const char *path;
	struct xp_err *err;
	/* the window: stream bytes [off0, off0 + len) are buf[0, len) */
	uint8_t *buf;
	size_t len, bufcap, pos;
	uint64_t off0;
	bool eof, owned;
	struct xp_pull *src;
	bool borrow;            /* the window is in the decoder's pieces (xp_pull_lend), not copied */
	uint8_t *gather;        /* borrowing: the reader's own window, for an element longer than the room */
	size_t gather_cap;
	void *map;              /* a plain file, mapped: the window is all of it */
	size_t map_len, released;
	uint64_t file_bytes;
	enum xp_compression comp;
	uint64_t decoded;       /* bytes of text read, when the lexer ran on its own thread */
	struct pipe *pipe;      /* the lexer's side of the lexer thread (NULL: one thread does it all) */
	bool pipelined;         /* lex on a thread of its own (--threads 2 or more) */
	size_t win_init, win_min; /* window size at the start, least room to read into */
	const uint8_t *end;
	/* lexing */
	struct jarg *args;
	size_t cap_args;
	struct scratch scr[4];
	struct scache strings;
	/* staging */
	struct proc *procs;
	size_t n_procs, cap_procs;
	struct kmap proc_map;
	struct tmeta *tmetas;
	size_t n_tmetas, cap_tmetas;
	struct kmap tmeta_map;
	struct rline *lines;
	size_t n_lines, cap_lines;
	struct kmap line_map;
	struct key3 last_key;
	uint32_t last_line;
	bool have_last;
	struct stack *stacks;
	size_t n_stacks, cap_stacks;
	struct kmap stack_map;
	struct kmap steps_seen;
	/* host-wide metadata: event names (name, display) and stat names */
	uint32_t *em_name, *em_disp;
	size_t n_em, cap_em;
	struct kmap em_map;
	uint32_t *em_by_str;    /* name string id -> event metadata id without a display name */
	size_t cap_em_by_str;
	struct key_slot {       /* direct-mapped: args key text -> stat metadata id */
		const char *s;
		uint32_t len, sm;
	} key_cache[256];
	struct key_memo {       /* the last pid and tid text and their keys */
		uint8_t type;
		bool esc;
		size_t len;
		uint8_t text[24];
		struct jkey key;
	} key_memo[2];
	uint32_t *sm_name;
	uint8_t *sm_numkey;
	uint8_t *sm_drop;       /* 0: kept; k + 1: drop_stats[k], not kept */
	size_t n_sm, cap_sm;
	const char *const *drop_stats;
	uint32_t drop_sm[MAX_DROPS]; /* stat metadata id of drop_stats[k], once seen */
	uint32_t *sm_by_str;    /* string id -> stat metadata id (0 = none yet) */
	size_t cap_sm_by_str;
	/* time: picoseconds relative to the first ts seen */
	bool have_t0;
	__int128 t0;
	/* the rest of the document */
	bool saw_events;
	cJSON *device_props, *dist_info;
	uint32_t host_name;
	bool has_host_name;
	struct xp_json_counts counts;
	struct xp_oddities odd;
};

/* --- the window --------------------------------------------------------------- */

static int jerr(struct reader *r, const uint8_t *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int jerr(struct reader *r, const uint8_t *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	uint64_t off = r->off0 + (uint64_t)(p - r->buf);
	xp_err_at(r->err, XP_EXIT_BAD_INPUT, r->path, off, "malformed trace JSON: %s", msg);
	return J_ERR;
}

static inline int at_end(struct reader *r, const uint8_t *p)
{
	if (!r->eof)
		return J_MORE;
	return jerr(r, p, "unexpected end of input");
}

static int pipe_seal(struct reader *r);
static void pipe_follow(struct reader *r);
static void release_mapped(struct reader *r);

/* Room for n bytes in the reader's own gather buffer, keeping its first `keep` bytes. */
static void gather_room(struct reader *r, size_t keep, size_t n)
{
	if (r->gather_cap >= n)
		return;
	size_t cap = r->gather_cap ? r->gather_cap : r->win_init;
	while (cap < n)
		cap *= 2;
	uint8_t *g = xrealloc(NULL, cap);
	memcpy(g, r->gather, keep);
	free(r->gather);
	r->gather = g;
	r->gather_cap = cap;
}

/* The next piece of a threaded decoder as the window, in place: the unread
 * rest of the window -- part of one element -- is copied into the room in
 * front of it. An element longer than the room, or than the piece, gathers
 * in a buffer of the reader's own, which takes pieces until the new text is
 * at least as long as the rest: the rest is lexed again from its start, so
 * the text lexed again must at least double each time for the total to stay
 * within twice the input. */
static int win_borrow(struct reader *r)
{
	uint8_t *piece;
	size_t room, left = r->len - r->pos;
	int64_t k = xp_pull_lend(r->src, &piece, &room, r->err);
	if (k <= 0) {
		r->eof = k == 0;
		return k < 0 ? -1 : 0;
	}
	r->off0 += r->pos;
	if (left <= room && (size_t)k >= left) {
		memcpy(piece - left, r->buf + r->pos, left);
		r->buf = piece - left;
		xp_pull_return(r->src, 1);
		xp_work_add(XP_WORK_JSON_LEX, (size_t)k);
		r->len = left + (size_t)k;
		r->pos = 0;
		return 0;
	}
	if (r->buf == r->gather) {
		memmove(r->gather, r->buf + r->pos, left);
	} else {
		uint8_t *g = xmalloc(left ? left : 1);
		memcpy(g, r->buf + r->pos, left);
		free(r->gather);
		r->gather = g;
		r->gather_cap = left;
	}
	size_t got = 0;
	for (;;) {
		gather_room(r, left + got, left + got + (size_t)k);
		memcpy(r->gather + left + got, piece, (size_t)k);
		got += (size_t)k;
		xp_pull_return(r->src, 0);
		if (got >= left)
			break;
		k = xp_pull_lend(r->src, &piece, &room, r->err);
		if (k < 0) {
			/* text before a decoding fault is lexed first (its errors come first); the fault repeats */
			memset(r->err, 0, sizeof *r->err);
			break;
		}
		if (k == 0) {
			r->eof = true;
			break;
		}
	}
	xp_work_add(XP_WORK_JSON_LEX, got);
	r->buf = r->gather;
	r->len = left + got;
	r->pos = 0;
	return 0;
}

/* Keep buf[pos, len), pull more text after it; at the end of the stream set eof.
 * The kept text (part of one element) is lexed again from its start, so at
 * least as many new bytes are pulled as are kept: the text lexed again
 * doubles each time and the total stays within twice the input, however
 * small the decoder's pieces. */
static int win_more(struct reader *r)
{
	if (r->eof)
		return 0;
	xp_work_add(XP_WORK_JSON_LEX, r->len - r->pos);
	if (r->borrow)
		return win_borrow(r);
	if (r->pipe && pipe_seal(r))
		return -1;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->off0 += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	size_t want = r->len > r->win_min ? r->len : r->win_min;
	if (r->bufcap - r->len < want) {
		r->bufcap = r->bufcap * 2 > r->len + want ? r->bufcap * 2 : r->len + want;
		r->buf = xrealloc(r->buf, r->bufcap);
	}
	if (r->pipe)
		pipe_follow(r);
	size_t got = 0, need = r->len ? r->len : 1;
	while (got < need) {
		int64_t k = xp_pull_read(r->src, r->buf + r->len, r->bufcap - r->len, r->err);
		if (k < 0 && got) {
			/* text before a decoding fault is lexed first (its errors come first); the fault repeats */
			memset(r->err, 0, sizeof *r->err);
			break;
		}
		if (k < 0)
			return -1;
		if (k == 0) {
			r->eof = true;
			break;
		}
		r->len += (size_t)k;
		got += (size_t)k;
	}
	xp_work_add(XP_WORK_JSON_LEX, got);
	return 0;
}

static uint8_t *scratch(struct reader *r, int slot, size_t n)
{
	struct scratch *s = &r->scr[slot];
	if (n + 1 > s->cap) {
		s->cap = n + 1 > 256 ? n + 1 : 256;
		s->p = xrealloc(s->p, s->cap);
	}
	return s->p;
}

/* --- the lexer ------------------------------------------------------------------ */

/* 0: plain string byte; 1 '"'; 2 '\\'; 3 control; 4 first byte of a UTF-8 sequence (or invalid). */
static const uint8_t str_class[256] = {
	[0 ... 0x1f] = 3, ['"'] = 1, ['\\'] = 2, [0x80 ... 0xff] = 4,
};

static inline bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_ws(uint8_t c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Eight bytes (a little-endian load) that are all decimal digits: each in
 * 0x30..0x39, so its high nibble is 3 and adding 6 keeps it 3. */
static inline bool eight_digits(uint64_t x)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull, sixes = 0x0606060606060606ull;
	return (x & hi) == threes && ((x + sixes) & hi) == threes;
}

/* Their value, the first byte the most significant digit: neighbouring
 * digits, then pairs, then quads are joined by one multiply each. */
static inline uint64_t eight_digits_value(uint64_t x)
{
	x = ((x & 0x0f0f0f0f0f0f0f0full) * (10 * 256 + 1)) >> 8;
	x = ((x & 0x00ff00ff00ff00ffull) * (100 * 65536 + 1)) >> 16;
	return ((x & 0x0000ffff0000ffffull) * (10000 * 4294967296ull + 1)) >> 32;
}

/* Nonzero in each byte of x that is not a digit -- exact up to the first such
 * byte, which is all that is read: a byte's carry (from +6) only spoils those
 * after it. */
static inline uint64_t non_digits(uint64_t x)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull, sixes = 0x0606060606060606ull;
	return ((x & hi) ^ threes) | (((x + sixes) & hi) ^ threes);
}

/* The first byte at or after p, before end, that is not a decimal digit (eight a step). */
static inline const uint8_t *skip_digits(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		uint64_t m = non_digits(x);
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
	while (p < end && is_digit(*p))
		p++;
	return p;
}

/* The value of the n (at most 19) digits at p: eight at a time, and the rest
 * as the low digits of a word when eight bytes can be read there. */
static inline uint64_t digits_value(const uint8_t *p, size_t n, const uint8_t *end)
{
	static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
	uint64_t v = 0, x;
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&x, p, 8);
		v = v * 100000000 + eight_digits_value(x);
	}
	if (n && end - p >= 8) {
		memcpy(&x, p, 8);
		return v * pow10[n] + eight_digits_value(x << (8 * (8 - n))); /* zero bytes read as leading 0s */
	}
	for (; n; n--, p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

static inline int skip_ws(struct reader *r, const uint8_t **pp)
{
	const uint8_t *p = *pp, *end = r->end;
	if (p < end && *p > ' ')
		return J_OK; /* the usual case: compact JSON has no space there */
	while (p < end && is_ws(*p))
		p++;
	*pp = p;
	return p < end ? J_OK : at_end(r, p);
}

/* Length of the UTF-8 sequence at p (p[0] >= 0x80): -1 invalid, 0 cut by the window end. */
static int utf8_len(const uint8_t *p, const uint8_t *end)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	int n;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f; /* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* nothing past U+10FFFF */
	} else {
		return -1;
	}
	for (int k = 1; k < n; k++) {
		if (p + k >= end)
			return 0;
		uint8_t b = p[k];
		if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf))
			return -1;
	}
	return n;
}

static inline int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* *pp at the opening quote. Inlined where it is called: most values and keys are strings, and
 * a call's frame cost as much as scanning a short one. */
static inline __attribute__((always_inline)) int lex_string(struct reader *r, const uint8_t **pp, struct jstr *s)
{
	const uint8_t *p = *pp + 1, *end = r->end;
	s->p = p;
	s->len = 0;
	s->esc = false;
	for (;;) {
#ifdef __SSE2__
		/* 16 bytes at a time: stop at '"', '\\', a control byte or a non-ASCII one
		 * (signed bytes below 0x20 are both of the last two). */
		const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
		while (p + 16 <= end) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
						 _mm_cmplt_epi8(v, space));
			unsigned bits = (unsigned)_mm_movemask_epi8(m);
			if (bits) {
				p += __builtin_ctz(bits);
				break;
			}
			p += 16;
		}
#endif
		while (p < end && !str_class[*p])
			p++;
		if (p >= end)
			return at_end(r, p);
		switch (str_class[*p]) {
		case 1:
			s->len = (size_t)(p - s->p);
			*pp = p + 1;
			return J_OK;
		case 2:
			s->esc = true;
			if (end - p < 2)
				return at_end(r, end);
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				p += 2;
				break;
			case 'u':
				for (int k = 2; k < 6; k++) {
					if (p + k >= end)
						return at_end(r, end);
					if (hexval(p[k]) < 0)
						return jerr(r, p, "invalid \\u escape");
				}
				p += 6;
				break;
			default:
				return jerr(r, p, "invalid escape sequence (backslash followed by byte 0x%02x)", p[1]);
			}
			break;
		case 3:
			return jerr(r, p, "unescaped control character 0x%02x in a string", *p);
		default: {
			int n = utf8_len(p, end);
			if (n < 0)
				return jerr(r, p, "invalid UTF-8 in a string");
			if (n == 0)
				return at_end(r, end);
			p += n;
		}
		}
	}
}

static int lex_number(struct reader *r, const uint8_t **pp, struct jval *v)
{
	const uint8_t *p = *pp, *end = r->end, *s = p;
	bool is_int = true;
	if (*p == '-' && ++p >= end)
		return at_end(r, p);
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		p = skip_digits(p, end);
	} else {
		return jerr(r, p, "invalid number");
	}
	if (p < end && *p == '.') {
		is_int = false;
		if (++p >= end)
			return at_end(r, p);
		if (!is_digit(*p))
			return jerr(r, p, "invalid number: no digit after '.'");
		p = skip_digits(p, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		is_int = false;
		if (++p >= end)
			return at_end(r, p);
		if ((*p == '+' || *p == '-') && ++p >= end)
			return at_end(r, p);
		if (!is_digit(*p))
			return jerr(r, p, "invalid number: no digit in the exponent");
		p = skip_digits(p, end);
	}
	if (p >= end && !r->eof)
		return J_MORE; /* the number may go on */
	v->type = JV_NUM;
	v->is_int = is_int;
	v->esc = false;
	v->p = s;
	v->len = (size_t)(p - s);
	*pp = p;
	return J_OK;
}

static int lex_literal(struct reader *r, const uint8_t **pp, const char *lit, uint8_t type, struct jval *v)
{
	const uint8_t *p = *pp;
	size_t n = strlen(lit), avail = (size_t)(r->end - p), k = avail < n ? avail : n;
	if (memcmp(p, lit, k))
		return jerr(r, p, "invalid literal (expected %s)", lit);
	if (k < n)
		return at_end(r, r->end);
	v->type = type;
	v->p = p;
	v->len = n;
	*pp = p + n;
	return J_OK;
}

static int lex_value(struct reader *r, const uint8_t **pp, int depth, struct jval *v);

static int lex_container(struct reader *r, const uint8_t **pp, int depth, struct jval *v)
{
	const uint8_t *start = *pp, *p = start + 1;
	bool obj = *start == '{';
	uint8_t close = obj ? '}' : ']';
	int rc;
	if (depth >= MAX_DEPTH)
		return jerr(r, start, "nesting deeper than %d levels", MAX_DEPTH);
	if ((rc = skip_ws(r, &p)))
		return rc;
	if (*p == close) {
		p++;
		goto done;
	}
	for (;;) {
		if (obj) {
			struct jstr k;
			if (*p != '"')
				return jerr(r, p, "expected a string key in an object");
			if ((rc = lex_string(r, &p, &k)) || (rc = skip_ws(r, &p)))
				return rc;
			if (*p != ':')
				return jerr(r, p, "expected ':' after an object key");
			p++;
			if ((rc = skip_ws(r, &p)))
				return rc;
		}
		struct jval sub;
		if ((rc = lex_value(r, &p, depth + 1, &sub)) || (rc = skip_ws(r, &p)))
			return rc;
		if (*p == ',') {
			p++;
			if ((rc = skip_ws(r, &p)))
				return rc;
			continue;
		}
		if (*p == close) {
			p++;
			break;
		}
		return jerr(r, p, obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
	}
done:
	v->type = obj ? JV_OBJ : JV_ARR;
	v->esc = false;
	v->p = start;
	v->len = (size_t)(p - start);
	*pp = p;
	return J_OK;
}

/* *pp at the first byte of a value (not whitespace, not the window end). */
static int lex_value(struct reader *r, const uint8_t **pp, int depth, struct jval *v)
{
	const uint8_t *p = *pp;
	int rc;
	v->esc = v->is_int = false;
	switch (*p) {
	case '"': {
		struct jstr s;
		if ((rc = lex_string(r, &p, &s)))
			return rc;
		v->type = JV_STR;
		v->p = s.p;
		v->len = s.len;
		v->esc = s.esc;
		break;
	}
	case '{':
	case '[':
		if ((rc = lex_container(r, &p, depth, v)))
			return rc;
		break;
	case 't':
		if ((rc = lex_literal(r, &p, "true", JV_TRUE, v)))
			return rc;
		break;
	case 'f':
		if ((rc = lex_literal(r, &p, "false", JV_FALSE, v)))
			return rc;
		break;
	case 'n':
		if ((rc = lex_literal(r, &p, "null", JV_NULL, v)))
			return rc;
		break;
	default:
		if (*p != '-' && !is_digit(*p))
			return jerr(r, p, "unexpected byte 0x%02x where a value should start", *p);
		if ((rc = lex_number(r, &p, v)))
			return rc;
	}
	*pp = p;
	return J_OK;
}

/* lex_value, with strings and plain integers -- most values (pid, tid) --
 * lexed without its frame. */
static inline int lex_member_value(struct reader *r, const uint8_t **pp, int depth, struct jval *v)
{
	const uint8_t *p = *pp;
	if (*p == '"') {
		struct jstr s;
		int rc = lex_string(r, pp, &s);
		*v = (struct jval){.type = JV_STR, .esc = s.esc, .p = s.p, .len = s.len};
		return rc;
	}
	if (*p >= '1' && *p <= '9') {
		const uint8_t *q = skip_digits(p, r->end);
		if (q < r->end && *q != '.' && *q != 'e' && *q != 'E') {
			*v = (struct jval){.type = JV_NUM, .is_int = true, .p = p, .len = (size_t)(q - p)};
			*pp = q;
			return J_OK;
		}
	}
	return lex_value(r, pp, depth, v);
}

/* Event keys we read; anything else is validated and skipped. */
enum evkey { EK_OTHER = 0, EK_PH, EK_NAME, EK_CAT, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ID, EK_ID2, EK_ARGS };

static enum evkey event_key(const uint8_t *k, size_t n)
{
	switch (n) {
	case 2:
		if (!memcmp(k, "ph", 2))
			return EK_PH;
		if (!memcmp(k, "ts", 2))
			return EK_TS;
		if (!memcmp(k, "id", 2))
			return EK_ID;
		break;
	case 3:
		if (!memcmp(k, "pid", 3))
			return EK_PID;
		if (!memcmp(k, "tid", 3))
			return EK_TID;
		if (!memcmp(k, "dur", 3))
			return EK_DUR;
		if (!memcmp(k, "cat", 3))
			return EK_CAT;
		if (!memcmp(k, "id2", 3))
			return EK_ID2;
		break;
	case 4:
		if (!memcmp(k, "name", 4))
			return EK_NAME;
		if (!memcmp(k, "args", 4))
			return EK_ARGS;
		break;
	}
	return EK_OTHER;
}

static size_t unescape(const uint8_t *p, size_t len, uint8_t *out, uint64_t *lone_surrogates);

static enum evkey resolve_key(const struct jstr *k)
{
	if (!k->esc)
		return event_key(k->p, k->len);
	if (k->len > 32)
		return EK_OTHER;
	uint8_t tmp[32];
	return event_key(tmp, unescape(k->p, k->len, tmp, NULL));
}

/* The members of "args" (an object) into r->args. *pp at '{'. */
static int lex_args(struct reader *r, const uint8_t **pp, struct ev *e)
{
	const uint8_t *start = *pp, *p = start + 1;
	int rc;
	e->na = 0;
	if ((rc = skip_ws(r, &p)))
		return rc;
	if (*p != '}') {
		for (;;) {
			/* lexed in place: a copy of a just-written jarg would stall on store forwarding */
			GROW(r->args, e->na, r->cap_args);
			struct jarg *a = &r->args[e->na];
			if (*p != '"')
				return jerr(r, p, "expected a string key in an object");
			if ((rc = lex_string(r, &p, &a->key)) || (rc = skip_ws(r, &p)))
				return rc;
			if (*p != ':')
				return jerr(r, p, "expected ':' after an object key");
			p++;
			if ((rc = skip_ws(r, &p)) || (rc = lex_member_value(r, &p, 2, &a->val)) || (rc = skip_ws(r, &p)))
				return rc;
			e->na++;
			if (*p == ',') {
				p++;
				if ((rc = skip_ws(r, &p)))
					return rc;
				continue;
			}
			if (*p == '}')
				break;
			return jerr(r, p, "expected ',' or '}' in an object");
		}
	}
	p++;
	e->args.type = JV_OBJ;
	e->args.p = start;
	e->args.len = (size_t)(p - start);
	*pp = p;
	return J_OK;
}

static struct jval *ev_field(struct ev *e, enum evkey k)
{
	switch (k) {
	case EK_PH: return &e->ph;
	case EK_NAME: return &e->name;
	case EK_CAT: return &e->cat;
	case EK_PID: return &e->pid;
	case EK_TID: return &e->tid;
	case EK_TS: return &e->ts;
	case EK_DUR: return &e->dur;
	case EK_ID: return &e->id;
	case EK_ID2: return &e->id2;
	case EK_ARGS: return &e->args;
	default: return NULL;
	}
}

/* The usual keys, spelled without escapes, recognised without lexing them as
 * strings; *after is past the closing quote. EK_OTHER: take the general path. */
static inline enum evkey quick_key(const uint8_t *p, const uint8_t *end, const uint8_t **after)
{
	if (end - p < 7)
		return EK_OTHER;
#define KEY(s, k)                                                     \
	if (!memcmp(p + 1, s "\"", sizeof(s))) {                      \
		*after = p + sizeof(s) + 1;                            \
		return k;                                              \
	}
	switch (p[1]) {
	case 'p': KEY("ph", EK_PH) KEY("pid", EK_PID) break;
	case 't': KEY("ts", EK_TS) KEY("tid", EK_TID) break;
	case 'd': KEY("dur", EK_DUR) break;
	case 'n': KEY("name", EK_NAME) break;
	case 'a': KEY("args", EK_ARGS) break;
	case 'c': KEY("cat", EK_CAT) break;
	case 'i': KEY("id", EK_ID) KEY("id2", EK_ID2) break;
	default: break;
	}
#undef KEY
	return EK_OTHER;
}

/* A ts or dur in its common form -- [-]digits[.digits], at most 18 digits
 * before the point -- lexed and turned into picoseconds in one pass, rounded
 * as us_to_ps does. False: anything else (an exponent, a leading zero, the
 * window's end), for the general lexer and us_to_ps to take. */
static inline bool lex_time(const uint8_t *p, const uint8_t *end, struct jval *v, __int128 *ps)
{
	const uint8_t *q = p, *digits;
	bool neg = *q == '-', up = false;
	q += neg;
	if (q >= end || !is_digit(*q) || (*q == '0' && q + 1 < end && is_digit(q[1])))
		return false;
	uint64_t whole, frac = 0;
	q = skip_digits(digits = q, end);
	if (q - digits > 18)
		return false;
	whole = digits_value(digits, (size_t)(q - digits), end);
	int nfrac = 0;
	bool point = q < end && *q == '.';
	if (point) {
		digits = ++q;
		q = skip_digits(q, end);
		if (q == digits)
			return false;
		/* digits past the seventh only need to be digits */
		nfrac = q - digits < 6 ? (int)(q - digits) : 6;
		frac = digits_value(digits, (size_t)nfrac, end);
		up = q - digits > 6 && digits[6] >= '5'; /* the first digit past the picosecond: ties away from zero */
	}
	if (q >= end || *q == 'e' || *q == 'E')
		return false;
	for (; nfrac < 6; nfrac++)
		frac *= 10;
	__int128 mag = (__int128)whole * 1000000 + (__int128)(frac + up);
	*ps = neg ? -mag : mag;
	v->type = JV_NUM;
	v->esc = false;
	v->is_int = !point;
	v->p = p;
	v->len = (size_t)(q - p);
	return true;
}

/* A string of one plain ASCII character at p: "X". */
static inline bool one_char_string(const uint8_t *p, const uint8_t *end)
{
	return end - p >= 3 && p[0] == '"' && p[2] == '"' && p[1] >= 0x20 && p[1] < 0x80 && p[1] != '"' && p[1] != '\\';
}

/* One traceEvents element; *pp at its first byte. */
static int lex_event(struct reader *r, const uint8_t **pp, struct ev *e)
{
	const uint8_t *p = *pp;
	int rc;
	e->members = e->na = 0;
	e->ts_done = e->dur_done = false;
	e->ph.type = e->name.type = e->cat.type = e->pid.type = e->tid.type = JV_NONE;
	e->ts.type = e->dur.type = e->id.type = e->id2.type = e->args.type = JV_NONE;
	e->at = p;
	if (*p != '{')
		return jerr(r, p, "a traceEvents element is not an object");
	p++;
	if ((rc = skip_ws(r, &p)))
		return rc;
	if (*p == '}') {
		*pp = p + 1;
		return J_OK;
	}
	for (;;) {
		if (*p != '"')
			return jerr(r, p, "expected a string key in an object");
		const uint8_t *after;
		enum evkey which = quick_key(p, r->end, &after);
		if (which != EK_OTHER) {
			p = after;
		} else {
			struct jstr k;
			if ((rc = lex_string(r, &p, &k)))
				return rc;
			which = resolve_key(&k);
		}
		if ((rc = skip_ws(r, &p)))
			return rc;
		if (*p != ':')
			return jerr(r, p, "expected ':' after an object key");
		p++;
		if ((rc = skip_ws(r, &p)))
			return rc;
		e->members++;
		if (which == EK_PH && one_char_string(p, r->end)) {
			/* "X": the usual one-letter phase, without the string lexer */
			e->ph = (struct jval){.type = JV_STR, .p = p + 1, .len = 1};
			p += 3;
		} else if (which == EK_TS || which == EK_DUR) {
			bool *done = which == EK_TS ? &e->ts_done : &e->dur_done;
			struct jval *dst = which == EK_TS ? &e->ts : &e->dur;
			__int128 *ps = which == EK_TS ? &e->ts_ps : &e->dur_ps;
			if ((*done = lex_time(p, r->end, dst, ps)))
				p += dst->len;
			else
				rc = lex_value(r, &p, 1, dst);
		} else if (which == EK_ARGS && *p == '{') {
			rc = lex_args(r, &p, e);
		} else {
			struct jval tmp, *dst = ev_field(e, which);
			rc = lex_member_value(r, &p, 1, dst ? dst : &tmp);
			if (which == EK_ARGS)
				e->na = 0;
		}
		if (rc || (rc = skip_ws(r, &p)))
			return rc;
		if (*p == ',') {
			p++;
			if ((rc = skip_ws(r, &p)))
				return rc;
			continue;
		}
		if (*p == '}')
			break;
		return jerr(r, p, "expected ',' or '}' in an object");
	}
	e->av = r->args; /* now that lex_args cannot move them any more */
	*pp = p + 1;
	return J_OK;
}

/* --- values ------------------------------------------------------------------------ */

static size_t put_utf8(uint8_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (uint8_t)(0xc0 | (cp >> 6));
		o[1] = (uint8_t)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (uint8_t)(0xe0 | (cp >> 12));
		o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (uint8_t)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | (cp >> 18));
	o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (uint8_t)(0x80 | (cp & 0x3f));
	return 4;
}

static uint32_t hex4(const uint8_t *p)
{
	return (uint32_t)(hexval(p[0]) << 12 | hexval(p[1]) << 8 | hexval(p[2]) << 4 | hexval(p[3]));
}

/* Decode the escapes of a lexed string span into out (never longer than the span). A lone
 * surrogate becomes U+FFFD and is counted in *lone_surrogates -- NULL for text that is only
 * matched, never kept (keys we look for): no oddity of the data, and on the lexer thread its
 * count would not reach the committer's. */
static size_t unescape(const uint8_t *p, size_t len, uint8_t *out, uint64_t *lone_surrogates)
{
	const uint8_t *end = p + len;
	size_t n = 0;
	while (p < end) {
		const uint8_t *bs = memchr(p, '\\', (size_t)(end - p));
		size_t plain = bs ? (size_t)(bs - p) : (size_t)(end - p);
		memcpy(out + n, p, plain);
		n += plain;
		p += plain;
		if (!bs)
			break;
		uint8_t c = p[1];
		p += 2;
		switch (c) {
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': {
			uint32_t cp = hex4(p);
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
			    hex4(p + 2) >= 0xdc00 && hex4(p + 2) <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(p + 2) - 0xdc00);
				p += 6;
			} else if (cp >= 0xd800 && cp <= 0xdfff) {
				cp = 0xfffd; /* a lone surrogate */
				if (lone_surrogates)
					(*lone_surrogates)++;
			}
			n += put_utf8(out + n, cp);
			break;
		}
		default: out[n++] = c; break; /* '"', '\\', '/' */
		}
	}
	return n;
}

/* The bytes of a string value, unescaped into scratch slot when needed. */
static const uint8_t *str_bytes(struct reader *r, const struct jval *v, int slot, size_t *len)
{
	if (!v->esc) {
		*len = v->len;
		return v->p;
	}
	uint8_t *b = scratch(r, slot, v->len);
	*len = unescape(v->p, v->len, b, &r->odd.invalid_utf8);
	return b;
}

/* An array or object as compact JSON text: the source without insignificant whitespace. */
static const uint8_t *compact(struct reader *r, const struct jval *v, int slot, size_t *len)
{
	uint8_t *o = scratch(r, slot, v->len);
	bool in_str = false, esc = false;
	size_t n = 0;
	for (size_t i = 0; i < v->len; i++) {
		uint8_t c = v->p[i];
		if (in_str) {
			o[n++] = c;
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (!is_ws(c)) {
			o[n++] = c;
			in_str = c == '"';
		}
	}
	*len = n;
	return o;
}

/* Any value as text: strings unescaped, the rest as compact JSON. */
static const uint8_t *val_text(struct reader *r, const struct jval *v, int slot, size_t *len)
{
	if (v->type == JV_STR)
		return str_bytes(r, v, slot, len);
	if (v->type == JV_ARR || v->type == JV_OBJ)
		return compact(r, v, slot, len);
	*len = v->len;
	return v->p;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ull;
	h = (h << 27 | h >> 37) * 0xc2b2ae3d27d4eb4full;
	return h;
}

static uint64_t fast_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0x2545f4914f6cdd1dull ^ n;
	size_t i = 0;
	if (n >= 32) {
		/* four independent lanes: long kernel names hash at several bytes a cycle */
		uint64_t a = h, b = h ^ 0x9e3779b97f4a7c15ull, c = h ^ 0xbf58476d1ce4e5b9ull, d = h ^ 0x94d049bb133111ebull;
		for (; i + 32 <= n; i += 32) {
			a = mix(a, load64(p + i));
			b = mix(b, load64(p + i + 8));
			c = mix(c, load64(p + i + 16));
			d = mix(d, load64(p + i + 24));
		}
		h = mix(mix(mix(a, b), c), d);
	}
	for (; i + 8 <= n; i += 8)
		h = mix(h, load64(p + i));
	if (i < n) {
		/* the tail: the last 8 bytes again when there are 8, else byte by byte
		 * (a memcpy into a word would stall on store forwarding) */
		uint64_t t = 0;
		if (n >= 8) {
			t = load64(p + n - 8);
		} else {
			for (size_t k = i; k < n; k++)
				t = t << 8 | p[k];
		}
		h = mix(h, t);
	}
	h ^= h >> 32;
	return h ? h : 1;
}

static void scache_grow(struct scache *c)
{
	struct scache old = *c;
	c->cap = old.cap ? old.cap * 2 : 256;
	c->e = xcalloc(c->cap, sizeof *c->e);
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.e[i].id)
			continue;
		size_t j = old.e[i].hash & (c->cap - 1);
		while (c->e[j].id)
			j = (j + 1) & (c->cap - 1);
		c->e[j] = old.e[i];
	}
	free(old.e);
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* memcmp(a, b, n) == 0 for the short names and keys most events carry,
 * without a call: overlapping words cover up to 32 bytes. */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n >= 8 && n <= 16)
		return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
	if (n > 16 && n <= 32)
		return load64(a) == load64(b) && load64(a + 8) == load64(b + 8) && load64(a + n - 16) == load64(b + n - 16) &&
		       load64(a + n - 8) == load64(b + n - 8);
	if (n >= 4 && n < 8)
		return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
	if (n < 4) /* first, middle and last cover 1 to 3 bytes */
		return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
	return !memcmp(a, b, n);
}

static uint32_t intern(struct reader *r, const uint8_t *p, size_t len)
{
	struct scache *c = &r->strings;
	if (len > INTERN_MAX)
		return xp_intern(r->st, (const char *)p, len);
	if ((c->n + 1) * 2 > c->cap)
		scache_grow(c);
	uint64_t h = fast_hash(p, len);
	size_t j = h & (c->cap - 1);
	while (c->e[j].id) {
		const struct scache_ent *x = &c->e[j];
		if (x->hash == h && x->len == len && same_bytes((const uint8_t *)r->st->strs[x->id - 1], p, len))
			return x->id - 1;
		j = (j + 1) & (c->cap - 1);
	}
	uint32_t id = xp_intern(r->st, (const char *)p, len);
	c->e[j] = (struct scache_ent){h, id + 1, (uint32_t)len};
	c->n++;
	return id;
}

static uint32_t intern_val(struct reader *r, const struct jval *v, int slot)
{
	size_t n;
	const uint8_t *p = val_text(r, v, slot, &n);
	return intern(r, p, n);
}

static bool bytes_eq(const uint8_t *p, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(p, s, n);
}

/* Integer text (optional '-', digits): 1 = int64 in *i, 2 = uint64 above INT64_MAX in *u, 0 = neither. */
static int int_text(const uint8_t *p, size_t len, int64_t *i, uint64_t *u)
{
	size_t k = 0;
	bool neg = len && p[0] == '-';
	k = neg;
	if (k == len || len - k > 20)
		return 0;
	uint64_t v = 0;
	/* 19 digits always fit in 64 bits: only a 20th can overflow, and is added last */
	size_t last = len - k == 20 ? len - 1 : len;
	for (; last - k >= 8; k += 8) {
		uint64_t x;
		memcpy(&x, p + k, 8);
		if (!eight_digits(x))
			return 0;
		v = v * 100000000 + eight_digits_value(x);
	}
	for (; k < last; k++) {
		if (!is_digit(p[k]))
			return 0;
		v = v * 10 + (unsigned)(p[k] - '0');
	}
	if (last < len) {
		unsigned d = (unsigned)(p[last] - '0');
		if (!is_digit(p[last]) || v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return 0;
		*i = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
		return 1;
	}
	if (v <= (uint64_t)INT64_MAX) {
		*i = (int64_t)v;
		return 1;
	}
	*u = v;
	return 2;
}

/* A value as int64: integer numbers, and strings holding one (TF writes numbers as strings). */
static bool val_int(const struct jval *v, int64_t *out)
{
	uint64_t u;
	if ((v->type == JV_NUM && v->is_int) || (v->type == JV_STR && !v->esc))
		return int_text(v->p, v->len, out, &u) == 1;
	return false;
}

/* strtod on a copy (the window is not NUL-terminated); false unless all of it is a finite number. */
/* [-]digits[.digits] with at most 15 digits in all: the digits as an integer
 * and the power of ten are both exact doubles, so one division is the
 * correctly rounded value, as strtod's. False: anything else, for strtod. */
static bool plain_decimal(const uint8_t *p, size_t len, double *out)
{
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	size_t i = len && p[0] == '-';
	uint64_t m = 0;
	int digits = 0, nfrac = 0;
	for (; i < len && is_digit(p[i]); i++, digits++)
		m = m * 10 + (uint64_t)(p[i] - '0');
	if (!digits)
		return false;
	if (i < len && p[i] == '.') {
		for (i++; i < len && is_digit(p[i]); i++, nfrac++)
			m = m * 10 + (uint64_t)(p[i] - '0');
		if (!nfrac)
			return false;
	}
	if (i != len || digits + nfrac > 15)
		return false;
	double d = (double)m / pow10[nfrac];
	*out = p[0] == '-' ? -d : d;
	return true;
}

static bool text_double(struct reader *r, const uint8_t *p, size_t len, double *out)
{
	if (plain_decimal(p, len, out))
		return true;
	if (!len || len > 4096)
		return false;
	char *b = (char *)scratch(r, 3, len);
	memcpy(b, p, len);
	b[len] = 0;
	char *e;
	double d = strtod(b, &e);
	if (e != b + len || !isfinite(d))
		return false;
	*out = d;
	return true;
}

/* --- exact decimal time ------------------------------------------------------------- */

static __int128 pow10_33(void)
{
	return (__int128)1000000000000000000ll * 1000000000000000ll;
}

static int us_to_ps_slow(const uint8_t *s, size_t len, __int128 *out);

/* 0 ok, 1 bad syntax, 2 out of range (|ps| >= 10^33). The common form (no
 * exponent, at most 30 digits before the picosecond point) digit by digit
 * without a division; the rest below. */
static int us_to_ps(const uint8_t *s, size_t len, __int128 *out)
{
	size_t i = 0;
	bool neg = len && s[0] == '-', up = false;
	i = neg;
	if (i < len && s[i] == '0' && i + 1 < len && is_digit(s[i + 1]))
		return 1;
	uint64_t acc = 0;
	unsigned __int128 big = 0;
	int nd = 0;
#define PUSH(d)                                                    \
	do {                                                       \
		if (nd < 18)                                       \
			acc = acc * 10 + (d);                      \
		else                                               \
			big = (nd == 18 ? acc : big) * 10 + (d);   \
		nd++;                                              \
	} while (0)
	size_t ib = i;
	for (; i < len && is_digit(s[i]) && nd < 24; i++)
		PUSH((uint64_t)(s[i] - '0'));
	if (i == ib || (i < len && is_digit(s[i])))
		return us_to_ps_slow(s, len, out);
	int nfrac = 0;
	if (i < len && s[i] == '.') {
		size_t fb = ++i;
		for (; i < len && is_digit(s[i]); i++, nfrac++) {
			if (nfrac < 6)
				PUSH((uint64_t)(s[i] - '0'));
			else if (nfrac == 6)
				up = s[i] >= '5'; /* the first dropped digit: ties away from zero */
		}
		if (i == fb)
			return 1;
	}
	if (i != len)
		return us_to_ps_slow(s, len, out);
	for (; nfrac < 6; nfrac++)
		PUSH(0);
#undef PUSH
	__int128 v = nd <= 18 ? (__int128)acc : (__int128)big;
	*out = neg ? -(v + up) : v + up;
	return 0;
}

static int us_to_ps_slow(const uint8_t *s, size_t len, __int128 *out)
{
	size_t i = 0;
	bool neg = len && s[0] == '-';
	i = neg;
	size_t ib = i;
	while (i < len && is_digit(s[i]))
		i++;
	size_t ie = i, fb = i, fe = i;
	if (ie == ib || (ie - ib > 1 && s[ib] == '0'))
		return 1;
	if (i < len && s[i] == '.') {
		fb = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		fe = i;
		if (fe == fb)
			return 1;
	}
	int64_t exp = 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		bool eneg = false;
		if (++i < len && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		size_t eb = i;
		for (; i < len && is_digit(s[i]); i++)
			if (exp < 100000000)
				exp = exp * 10 + (s[i] - '0');
		if (i == eb)
			return 1;
		if (eneg)
			exp = -exp;
	}
	if (i != len)
		return 1;
	/* value = D * 10^e10, D = the integer digits followed by the fraction digits */
	int64_t nint = (int64_t)(ie - ib), nfrac = (int64_t)(fe - fb), n = nint + nfrac;
	int64_t e10 = exp - nfrac + 6;
	int64_t keep = n + e10; /* digits before the picosecond point */
	const __int128 lim = pow10_33();
	__int128 acc = 0;
	int64_t take = keep < n ? keep : n;
	for (int64_t k = 0; k < take; k++) {
		uint8_t d = k < nint ? s[ib + (size_t)k] : s[fb + (size_t)(k - nint)];
		acc = acc * 10 + (d - '0');
		if (acc >= lim)
			return 2;
	}
	if (keep > n) {
		for (int64_t k = n; k < keep && acc; k++) {
			acc *= 10;
			if (acc >= lim)
				return 2;
		}
	} else if (keep >= 0 && keep < n) {
		uint8_t d = keep < nint ? s[ib + (size_t)keep] : s[fb + (size_t)(keep - nint)];
		if (d >= '5' && ++acc >= lim)
			return 2;
	}
	*out = neg ? -acc : acc;
	return 0;
}

bool xp_json_us_to_ps(const char *s, size_t len, __int128 *out)
{
	return us_to_ps((const uint8_t *)s, len, out) == 0;
}

/* A ts or dur value in picoseconds: 0 ok, 1 not a number, 2 out of range (as us_to_ps). */
static int time_ps(const struct jval *v, bool done, __int128 converted, __int128 *ps)
{
	if (done) {
		*ps = converted;
		return 0;
	}
	return v->type == JV_NUM || (v->type == JV_STR && !v->esc) ? us_to_ps(v->p, v->len, ps) : 1;
}

/* ts of an event, relative to the first ts of the file. */
static int event_ts(struct reader *r, const struct ev *e, int64_t *rel, bool *overflow)
{
	/* |ts| below 9e21 ps keeps the host base (in ns) inside int64. */
	const __int128 lim = (__int128)9000000000000000000ll * 1000;
	const struct jval *v = &e->ts;
	__int128 ps;
	int rc = time_ps(v, e->ts_done, e->ts_ps, &ps);
	if (rc == 1)
		return jerr(r, v->p, "ts is not a number");
	if (rc == 2 || ps >= lim || ps <= -lim)
		return jerr(r, v->p, "ts out of range (more than 9e15 microseconds)");
	if (!r->have_t0) {
		r->t0 = ps;
		r->have_t0 = true;
	}
	__int128 d = ps - r->t0;
	if (d > INT64_MAX || d < INT64_MIN) {
		*overflow = true;
		*rel = d > 0 ? INT64_MAX : INT64_MIN;
	} else {
		*rel = (int64_t)d;
	}
	return 0;
}

static int event_dur(struct reader *r, const struct ev *e, int64_t *dur)
{
	const struct jval *v = &e->dur;
	__int128 ps = 0;
	*dur = 0;
	if (v->type == JV_NONE)
		return 0;
	int rc = time_ps(v, e->dur_done, e->dur_ps, &ps);
	if (rc == 1)
		return jerr(r, v->p, "dur is not a number");
	if (rc == 2 || ps > INT64_MAX || ps < -INT64_MAX)
		return jerr(r, v->p, "dur out of range");
	if (ps < 0) {
		r->odd.negative_durations++;
		ps = 0;
	}
	*dur = (int64_t)ps;
	return 0;
}

/* --- staging: processes, threads, lines, metadata ------------------------------------- */

/* pid/tid: integers, and strings holding canonical integers, are one key (Kineto
 * writes tid 25738 in one event and "25738" in the next). */
static struct jkey jkey_of(struct reader *r, const struct jval *v)
{
	struct jkey k = {0, true};
	int64_t i;
	uint64_t u;
	switch (v->type) {
	case JV_NONE:
		return k;
	case JV_NUM:
	case JV_STR:
		if (!v->esc && (v->type == JV_STR || v->is_int) && v->len &&
		    !(v->len > 1 && v->p[0] == '0') && !(v->len > 2 && v->p[0] == '-' && v->p[1] == '0') &&
		    int_text(v->p, v->len, &i, &u) == 1) {
			k.v = i;
			k.str = false;
			return k;
		}
		break;
	default:
		break;
	}
	k.v = intern_val(r, v, 2);
	return k;
}

/* jkey_of, remembering the last text of the pid (slot 0) and tid (slot 1):
 * consecutive events mostly share their thread. */
static struct jkey jkey_cached(struct reader *r, const struct jval *v, int slot)
{
	struct key_memo *m = &r->key_memo[slot];
	if (v->type == JV_NONE)
		return jkey_of(r, v);
	if (v->type == m->type && v->esc == m->esc && v->len == m->len && v->len <= sizeof m->text &&
	    same_bytes(v->p, m->text, v->len))
		return m->key;
	struct jkey k = jkey_of(r, v);
	if (v->len <= sizeof m->text) {
		m->type = v->type;
		m->esc = v->esc;
		m->len = v->len;
		memcpy(m->text, v->p, v->len);
		m->key = k;
	}
	return k;
}

static uint32_t get_proc(struct reader *r, struct jkey pid)
{
	struct key3 k = {pid.v, 0, pid.str};
	uint32_t i = kmap_get(&r->proc_map, &k);
	if (i != UINT32_MAX)
		return i;
	GROW(r->procs, r->n_procs, r->cap_procs);
	i = (uint32_t)r->n_procs++;
	memset(&r->procs[i], 0, sizeof r->procs[i]);
	r->procs[i].pid = pid;
	kmap_put(&r->proc_map, &k, i);
	return i;
}

static struct key3 thread_key(struct jkey pid, struct jkey tid)
{
	struct key3 k = {pid.v, tid.v, (uint64_t)pid.str | (uint64_t)tid.str << 1};
	return k;
}

static struct tmeta *get_tmeta(struct reader *r, struct jkey pid, struct jkey tid)
{
	struct key3 k = thread_key(pid, tid);
	uint32_t i = kmap_get(&r->tmeta_map, &k);
	if (i == UINT32_MAX) {
		GROW(r->tmetas, r->n_tmetas, r->cap_tmetas);
		i = (uint32_t)r->n_tmetas++;
		memset(&r->tmetas[i], 0, sizeof r->tmetas[i]);
		kmap_put(&r->tmeta_map, &k, i);
	}
	return &r->tmetas[i];
}

static uint32_t get_line(struct reader *r, struct jkey pid, struct jkey tid, uint8_t route)
{
	struct key3 k = thread_key(pid, tid);
	k.c |= (uint64_t)route << 2;
	if (r->have_last && key3_eq(&k, &r->last_key))
		return r->last_line;
	uint32_t i = kmap_get(&r->line_map, &k);
	if (i == UINT32_MAX) {
		GROW(r->lines, r->n_lines, r->cap_lines);
		i = (uint32_t)r->n_lines++;
		struct rline *l = &r->lines[i];
		memset(l, 0, sizeof *l);
		l->pid = pid;
		l->tid = tid;
		l->route = route;
		l->proc = get_proc(r, pid);
		kmap_put(&r->line_map, &k, i);
	}
	r->last_key = k;
	r->last_line = i;
	r->have_last = true;
	return i;
}

static uint64_t line_append(struct rline *l, int64_t start, int64_t dur, uint32_t meta)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->start = xrealloc(l->start, l->cap * sizeof *l->start);
		l->dur = xrealloc(l->dur, l->cap * sizeof *l->dur);
		l->meta = xrealloc(l->meta, l->cap * sizeof *l->meta);
		l->sbeg = xrealloc(l->sbeg, l->cap * sizeof *l->sbeg);
	}
	uint64_t i = l->n++;
	uint32_t b = (uint32_t)(i >> XP_BLOCK_SHIFT);
	if (b == l->n_blocks) {
		if (l->n_blocks == l->cap_blocks) {
			/* most lines have one block: start with one */
			l->cap_blocks = l->cap_blocks ? l->cap_blocks * 2 : 1;
			l->blocks = xrealloc(l->blocks, l->cap_blocks * sizeof *l->blocks);
		}
		memset(&l->blocks[l->n_blocks++], 0, sizeof *l->blocks);
	}
	l->start[i] = start;
	l->dur[i] = dur;
	l->meta[i] = meta;
	l->sbeg[i] = l->blocks[b].stats.n;
	return i;
}

static struct xp_block *cur_block(struct rline *l)
{
	return &l->blocks[l->n_blocks - 1];
}

/* Host-wide event metadata id of (name, display name). */
/* Grow a string id -> index array so that sid is in it (new entries 0). */
static void by_str_reserve(uint32_t **arr, size_t *cap, uint32_t sid)
{
	if (sid < *cap)
		return;
	size_t n = *cap ? *cap : 1024;
	while (n <= sid)
		n *= 2;
	*arr = xrealloc(*arr, n * sizeof **arr);
	memset(*arr + *cap, 0, (n - *cap) * sizeof **arr);
	*cap = n;
}

static uint32_t event_meta(struct reader *r, uint32_t name, uint32_t disp)
{
	struct key3 k = {name, disp, 0};
	if (!disp) {
		/* the common case, without a display name: an array lookup */
		by_str_reserve(&r->em_by_str, &r->cap_em_by_str, name);
		if (r->em_by_str[name])
			return r->em_by_str[name];
	}
	uint32_t i = kmap_get(&r->em_map, &k);
	if (i != UINT32_MAX)
		return i;
	if (r->n_em + 1 >= r->cap_em) {
		r->cap_em = r->cap_em ? r->cap_em * 2 : 256;
		r->em_name = xrealloc(r->em_name, r->cap_em * sizeof *r->em_name);
		r->em_disp = xrealloc(r->em_disp, r->cap_em * sizeof *r->em_disp);
	}
	i = (uint32_t)++r->n_em; /* 0 stays "missing" */
	r->em_name[i] = name;
	r->em_disp[i] = disp;
	kmap_put(&r->em_map, &k, i);
	if (!disp)
		r->em_by_str[name] = i;
	return i;
}

static enum numkey classify_stat_name(const char *n)
{
	static const char *const ints[] = {
		"id", "step_num", "iter_num", "_r", "_a", "_pt", "_p", "_ct", "_c", "_pid", "process_id", "group_id",
		"is_eager", "is_func", "tracing_count", "correlation_id", "device_id", "stream", "program_id", "run_id",
		"scope_range_id", "device_offset_ps", "device_duration_ps", "bytes_reserved", "bytes_allocated",
		"bytes_available", "peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", "data_type",
		"index_on_host", "device_ordinal", "parent_id", "element_id", "occupancy_min_grid_size",
		"occupancy_suggested_block_size", "flops", "model_flops", "bytes_accessed", "raw_bytes_accessed",
		"queue_id", "request_id", "replica_id", "global_chip_id", "chip_ordinal", "node_ordinal", "model_id",
		"core_type", "cuda_graph_id", "cuda_graph_exec_id", "cuda_graph_orig_id", "cuda_graph_node_id",
		"unique_hlo_op_id", "_ipl_stage_id", "payload_size_bytes", "buffer_size", "bytes_transferred",
		"batch_size_after_padding", "padding_amount", "batching_input_task_size", "self_duration_ps",
		"min_duration_ps", "total_profile_duration_ps", "max_iteration_num", "step_idle_time_ps",
		"symbol_id", "all_reduce_id", "all_reduce_unique_id", "dropped_traces", "clock_rate", "core_count",
		"memory_bandwidth", "memory_size", "compute_cap_major", "compute_cap_minor", "source_line",
	};
	static const char *const doubles[] = {
		"fragmentation", "theoretical_occupancy_pct", "peak_teraflops_per_second",
		"peak_hbm_bw_gigabytes_per_second", "kpi_value", "matrix_unit_utilization_percent",
		"hbm_utilization_percent",
	};
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
		if (!strcmp(n, ints[i]))
			return NK_INT;
	for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++)
		if (!strcmp(n, doubles[i]))
			return NK_DOUBLE;
	if (!strcmp(n, "long_name"))
		return NK_LONG_NAME;
	return NK_NONE;
}

/* Host-wide stat metadata id of the stat called by string id sid. */
static uint32_t stat_meta(struct reader *r, uint32_t sid)
{
	if (sid >= r->cap_sm_by_str) {
		size_t cap = r->cap_sm_by_str ? r->cap_sm_by_str : 1024;
		while (cap <= sid)
			cap *= 2;
		r->sm_by_str = xrealloc(r->sm_by_str, cap * sizeof *r->sm_by_str);
		memset(r->sm_by_str + r->cap_sm_by_str, 0, (cap - r->cap_sm_by_str) * sizeof *r->sm_by_str);
		r->cap_sm_by_str = cap;
	}
	uint32_t i = r->sm_by_str[sid];
	if (i)
		return i;
	if (r->n_sm + 1 >= XP_STAT_META_MASK) {
		fputs("xpstat: too many distinct stat names\n", stderr);
		exit(4);
	}
	if (r->n_sm + 1 >= r->cap_sm) {
		r->cap_sm = r->cap_sm ? r->cap_sm * 2 : 256;
		r->sm_name = xrealloc(r->sm_name, r->cap_sm * sizeof *r->sm_name);
		r->sm_numkey = xrealloc(r->sm_numkey, r->cap_sm);
		r->sm_drop = xrealloc(r->sm_drop, r->cap_sm);
	}
	i = (uint32_t)++r->n_sm;
	const char *name = xp_str(r->cap, sid);
	r->sm_name[i] = sid;
	r->sm_numkey[i] = (uint8_t)classify_stat_name(name);
	r->sm_drop[i] = 0;
	for (int k = 0; r->drop_stats && r->drop_stats[k] && k < MAX_DROPS; k++) {
		if (!strcmp(name, r->drop_stats[k])) {
			r->sm_drop[i] = (uint8_t)(k + 1);
			r->drop_sm[k] = i;
			break;
		}
	}
	r->sm_by_str[sid] = i;
	return i;
}

/* A stat the command does not keep: counted, and its name remembered for the plane's metadata. */
static bool dropped(struct reader *r, struct rline *l, uint32_t sm)
{
	if (!r->sm_drop[sm])
		return false;
	l->n_dropped++;
	l->dropped_names |= (uint64_t)1 << (r->sm_drop[sm] - 1);
	return true;
}

static uint32_t stat_named(struct reader *r, const char *name)
{
	return stat_meta(r, xp_intern(r->st, name, strlen(name)));
}

static void push(struct reader *r, struct rline *l, uint32_t sm, unsigned kind, uint64_t val)
{
	if (!dropped(r, l, sm))
		xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(kind, sm), val);
}

static void push_i64(struct reader *r, struct rline *l, uint32_t sm, int64_t v)
{
	push(r, l, sm, XP_STAT_I64, (uint64_t)v);
}

/* A string stat: interned when short, else kept in the block's blob. */
static void push_text(struct reader *r, struct rline *l, uint32_t sm, const uint8_t *p, size_t n)
{
	if (dropped(r, l, sm))
		return;
	if (n <= INTERN_MAX) {
		xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(XP_STAT_STR, sm), intern(r, p, n));
		return;
	}
	if (n > UINT32_MAX - 8)
		n = UINT32_MAX - 8;
	xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(XP_STAT_BLOBSTR, sm),
		      xp_blob_put(&cur_block(l)->blob, p, (uint32_t)n));
}

static void push_cstr(struct reader *r, struct rline *l, const char *name, const char *s)
{
	uint32_t sm = stat_named(r, name);
	if (!dropped(r, l, sm))
		xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(XP_STAT_STR, sm), xp_intern(r->st, s, strlen(s)));
}

/* One args member as a stat: numbers keep their type (TF's string numbers of
 * known numeric stats are converted), arrays and objects become compact JSON. */
static int push_arg(struct reader *r, struct rline *l, const struct jarg *a)
{
	/* scratch slots: 0 holds the event name, 1 values, 2 keys, 3 numbers */
	size_t kn = a->key.len;
	const uint8_t *kp = a->key.p;
	if (a->key.esc) {
		uint8_t *b = scratch(r, 2, a->key.len);
		kn = unescape(a->key.p, a->key.len, b, &r->odd.invalid_utf8);
		kp = b;
	}
	/* The same keys come in event after event: a small cache spares hashing them.
	 * Two ways a set, the newer first: keys that collide (tf_op and
	 * occupancy_min_grid_size on the same kernels) both stay. */
	size_t set = (kn * 31 + (kn ? kp[0] * 7u + kp[kn / 2] * 13u + kp[kn - 1] : 0)) & 254;
	struct key_slot *ks = &r->key_cache[set];
	uint32_t sm;
	if (ks[0].s && ks[0].len == kn && same_bytes((const uint8_t *)ks[0].s, kp, kn)) {
		sm = ks[0].sm;
	} else if (ks[1].s && ks[1].len == kn && same_bytes((const uint8_t *)ks[1].s, kp, kn)) {
		sm = ks[1].sm;
	} else {
		uint32_t sid = intern(r, kp, kn);
		sm = stat_meta(r, sid);
		ks[1] = ks[0];
		ks[0] = (struct key_slot){xp_str(r->cap, sid), (uint32_t)kn, sm};
	}
	const struct jval *v = &a->val;
	/* A dropped string or container needs no conversion; numbers go on, for their range check. */
	if (v->type != JV_NUM && r->sm_drop[sm]) {
		dropped(r, l, sm);
		return 0;
	}
	int64_t i;
	uint64_t u;
	double d;
	switch (v->type) {
	case JV_NULL:
		return 0;
	case JV_TRUE:
	case JV_FALSE:
		push_i64(r, l, sm, v->type == JV_TRUE);
		return 0;
	case JV_NUM:
		if (v->is_int) {
			int k = int_text(v->p, v->len, &i, &u);
			if (k == 1) {
				push_i64(r, l, sm, i);
				return 0;
			}
			if (k == 2) {
				push(r, l, sm, XP_STAT_U64, u);
				return 0;
			}
		}
		if (!text_double(r, v->p, v->len, &d))
			return jerr(r, v->p, "number out of range");
		memcpy(&u, &d, sizeof u);
		push(r, l, sm, XP_STAT_F64, u);
		return 0;
	case JV_STR: {
		size_t n;
		const uint8_t *p = str_bytes(r, v, 1, &n);
		uint8_t nk = r->sm_numkey[sm];
		if (nk == NK_INT) {
			int k = int_text(p, n, &i, &u);
			if (k == 1) {
				push_i64(r, l, sm, i);
				return 0;
			}
			if (k == 2) {
				push(r, l, sm, XP_STAT_U64, u);
				return 0;
			}
		} else if (nk == NK_DOUBLE && text_double(r, p, n, &d)) {
			memcpy(&u, &d, sizeof u);
			push(r, l, sm, XP_STAT_F64, u);
			return 0;
		}
		push_text(r, l, sm, p, n);
		return 0;
	}
	default: {
		size_t n;
		const uint8_t *p = compact(r, v, 1, &n);
		push_text(r, l, sm, p, n);
		return 0;
	}
	}
}

static const struct jval *arg(struct reader *r, const struct ev *e, const char *key)
{
	size_t n = strlen(key);
	for (size_t k = e->na; k-- > 0;)
		if (!e->av[k].key.esc && e->av[k].key.len == n && !memcmp(e->av[k].key.p, key, n))
			return &e->av[k].val;
	return NULL;
}

static bool arg_int(struct reader *r, const struct ev *e, const char *key, int64_t *out)
{
	const struct jval *v = arg(r, e, key);
	return v && val_int(v, out);
}

/* --- the Kineto mapping ---------------------------------------------------------------- */

static enum cat classify_cat(const struct jval *c)
{
	if (c->type != JV_STR || c->esc || !c->len)
		return C_NONE;
	const char *p = (const char *)c->p;
	size_t n = c->len;
#define IS(s) (n == sizeof(s) - 1 && !strncasecmp(p, s, n))
	if (IS("kernel"))
		return C_KERNEL;
	if (IS("gpu_memcpy") || IS("memcpy"))
		return C_MEMCPY;
	if (IS("gpu_memset") || IS("memset"))
		return C_MEMSET;
	if (IS("gpu_user_annotation"))
		return C_GPU_ANNOT;
	if (IS("cuda_profiler_range"))
		return C_DEVICE;
	if (IS("cuda_runtime") || IS("cuda_driver") || IS("runtime") || IS("driver"))
		return C_RUNTIME;
	if (IS("cpu_op") || IS("operator") || IS("user_annotation") || IS("python_function") || IS("python") ||
	    IS("cpu_instant_event") || IS("overhead"))
		return C_HOST;
#undef IS
	return C_NONE;
}

/* [x, y, z] of three non-negative integers. */
static bool arr3(const struct jval *v, uint64_t out[3])
{
	if (!v || v->type != JV_ARR)
		return false;
	const uint8_t *p = v->p + 1, *end = v->p + v->len - 1;
	for (int k = 0; k < 3; k++) {
		while (p < end && is_ws(*p))
			p++;
		if (p >= end || !is_digit(*p))
			return false;
		uint64_t x = 0;
		while (p < end && is_digit(*p)) {
			if (x > UINT32_MAX)
				return false;
			x = x * 10 + (uint64_t)(*p++ - '0');
		}
		out[k] = x;
		while (p < end && is_ws(*p))
			p++;
		if (k < 2 && (p >= end || *p++ != ','))
			return false;
	}
	while (p < end && is_ws(*p))
		p++;
	return p == end;
}

/* kernel_details in the current NVIDIA form from Kineto's kernel args; only the fields the trace has. */
static void synth_kernel(struct reader *r, struct rline *l, const struct ev *e)
{
	char buf[256];
	size_t n = 0;
	int64_t regs, shm;
	uint64_t g[3], b[3];
	if (arg_int(r, e, "registers per thread", &regs))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " regs:%" PRId64, regs);
	if (arg_int(r, e, "shared memory", &shm))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " static_shared:%" PRId64 " dynamic_shared:0", shm);
	if (arr3(arg(r, e, "grid"), g))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " grid:%" PRIu64 ",%" PRIu64 ",%" PRIu64, g[0], g[1], g[2]);
	if (arr3(arg(r, e, "block"), b))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " block:%" PRIu64 ",%" PRIu64 ",%" PRIu64, b[0], b[1], b[2]);
	const struct jval *occ = arg(r, e, "est. achieved occupancy %");
	if (occ && occ->type == JV_NUM && occ->len < 64)
		n += (size_t)snprintf(buf + n, sizeof buf - n, " occ_pct:%.*s", (int)occ->len, (const char *)occ->p);
	if (!n) {
		/* No launch facts (ROCm traces): kernel_details must still be there, and
		 * non-empty, for the event to count as a kernel; say what is known. */
		int64_t dev, stream;
		if (arg_int(r, e, "device", &dev))
			n += (size_t)snprintf(buf + n, sizeof buf - n, " device:%" PRId64, dev);
		if (arg_int(r, e, "stream", &stream))
			n += (size_t)snprintf(buf + n, sizeof buf - n, " stream:%" PRId64, stream);
		if (!n)
			n = (size_t)snprintf(buf, sizeof buf, " launch:unknown");
	}
	push_cstr(r, l, "kernel_details", buf + 1);
}

static void synth_correlation(struct reader *r, struct rline *l, const struct ev *e)
{
	int64_t c;
	if (arg_int(r, e, "correlation", &c))
		push_i64(r, l, stat_named(r, "correlation_id"), c);
}

/* "(Pageable -> Device)" -> "kind_src:pageable kind_dst:device " */
static size_t copy_kinds(const uint8_t *name, size_t n, char *out, size_t cap)
{
	const uint8_t *lp = memchr(name, '(', n), *arrow, *rp;
	if (!lp)
		return 0;
	size_t rest = n - (size_t)(lp - name);
	if (!(rp = memchr(lp, ')', rest)) || !(arrow = memmem(lp, (size_t)(rp - lp), "->", 2)))
		return 0;
	char a[32], b[32];
	size_t na = 0, nb = 0;
	for (const uint8_t *q = lp + 1; q < arrow && na < sizeof a - 1; q++)
		if (!is_ws(*q))
			a[na++] = (char)(*q | 0x20);
	for (const uint8_t *q = arrow + 2; q < rp && nb < sizeof b - 1; q++)
		if (!is_ws(*q))
			b[nb++] = (char)(*q | 0x20);
	if (!na || !nb)
		return 0;
	int k = snprintf(out, cap, "kind_src:%.*s kind_dst:%.*s ", (int)na, a, (int)nb, b);
	return k > 0 && (size_t)k < cap ? (size_t)k : 0;
}

/* "Memcpy HtoD (Pageable -> Device)" -> "MemcpyH2D" (the CUPTI activity names). */
static const char *memcpy_name(const uint8_t *p, size_t n)
{
	if (n < 11 || memcmp(p, "Memcpy ", 7) || (p[8] | 0x20) != 't' || (p[9] | 0x20) != 'o' ||
	    (n > 11 && p[11] != ' '))
		return "MemcpyOther";
	static const struct {
		char s, d;
		const char *name;
	} map[] = {
		{'H', 'D', "MemcpyH2D"}, {'D', 'H', "MemcpyD2H"}, {'D', 'D', "MemcpyD2D"},
		{'H', 'H', "MemcpyH2H"}, {'P', 'P', "MemcpyP2P"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (p[7] == map[i].s && p[10] == map[i].d)
			return map[i].name;
	return "MemcpyOther";
}

static void synth_copy(struct reader *r, struct rline *l, const struct ev *e, const uint8_t *name, size_t n,
		       bool memset_)
{
	char buf[160];
	size_t k = 0;
	int64_t bytes;
	bool has = arg_int(r, e, "bytes", &bytes);
	if (memset_) {
		k = (size_t)snprintf(buf, sizeof buf, "kind:device");
		if (has)
			k += (size_t)snprintf(buf + k, sizeof buf - k, " num_bytes:%" PRId64, bytes);
		push_cstr(r, l, "Memset_details", buf);
	} else {
		k = copy_kinds(name, n, buf, sizeof buf);
		if (has)
			snprintf(buf + k, sizeof buf - k, "size:%" PRId64, bytes);
		else if (k)
			buf[k - 1] = 0;
		else
			buf[0] = 0;
		if (has || k)
			push_cstr(r, l, "memcpy_details", buf);
	}
	synth_correlation(r, l, e);
}

/* [memory] instants -> MemoryAllocation / MemoryDeallocation with allocator stats. */
static void synth_memory(struct reader *r, struct rline *l, const struct ev *e, int64_t bytes)
{
	int64_t id = -1, type = -1, v;
	bool has_id = arg_int(r, e, "Device Id", &id), has_type = arg_int(r, e, "Device Type", &type);
	char alloc[64];
	if ((has_type && (type == 1 || type == 6)) || (!has_type && has_id && id >= 0))
		snprintf(alloc, sizeof alloc, "GPU_%" PRId64, id); /* CUDA, HIP */
	else if ((has_type && type == 0) || (has_id && id < 0) || (!has_type && !has_id))
		snprintf(alloc, sizeof alloc, "CPU");
	else
		snprintf(alloc, sizeof alloc, "DEVICE%" PRId64 "_%" PRId64, type, id);
	push_cstr(r, l, "allocator_name", alloc);
	if (arg_int(r, e, "Total Allocated", &v))
		push_i64(r, l, stat_named(r, "bytes_allocated"), v);
	if (arg_int(r, e, "Total Reserved", &v))
		push_i64(r, l, stat_named(r, "bytes_reserved"), v);
	int64_t mag = bytes == INT64_MIN ? INT64_MAX : bytes < 0 ? -bytes : bytes;
	push_i64(r, l, stat_named(r, "requested_bytes"), mag);
	push_i64(r, l, stat_named(r, "allocation_bytes"), mag);
	const struct jval *addr = arg(r, e, "Addr");
	int64_t ai;
	uint64_t au;
	int k = addr && addr->type == JV_NUM && addr->is_int ? int_text(addr->p, addr->len, &ai, &au) : 0;
	if (k == 1)
		push(r, l, stat_named(r, "addr"), ai >= 0 ? XP_STAT_U64 : XP_STAT_I64, (uint64_t)ai);
	else if (k == 2)
		push(r, l, stat_named(r, "addr"), XP_STAT_U64, au);
}

/* "ProfilerStep#N" with N all digits. */
static bool profiler_step(const uint8_t *p, size_t n, int64_t *num)
{
	uint64_t u;
	return n > 13 && !memcmp(p, "ProfilerStep#", 13) && int_text(p + 13, n - 13, num, &u) == 1 && p[13] != '-';
}

/* --- commit: one element into the staging model ------------------------------------------ */

static struct stack *get_stack(struct reader *r, const struct key3 *k, bool create)
{
	uint32_t i = kmap_get(&r->stack_map, k);
	if (i == UINT32_MAX) {
		if (!create)
			return NULL;
		GROW(r->stacks, r->n_stacks, r->cap_stacks);
		i = (uint32_t)r->n_stacks++;
		memset(&r->stacks[i], 0, sizeof r->stacks[i]);
		kmap_put(&r->stack_map, k, i);
	}
	return &r->stacks[i];
}

static void stack_push(struct stack *s, uint32_t line, uint64_t ev)
{
	GROW(s->v, s->n, s->cap);
	s->v[s->n].line = line;
	s->v[s->n].ev = ev;
	s->n++;
}

/* Close the event on top of the stack at ts rel. */
static bool stack_pop(struct reader *r, struct stack *s, int64_t rel)
{
	if (!s || !s->n)
		return false;
	struct stack_ent t = s->v[--s->n];
	struct rline *l = &r->lines[t.line];
	int64_t d;
	if (__builtin_sub_overflow(rel, l->start[t.ev], &d))
		d = rel > l->start[t.ev] ? INT64_MAX : -1;
	if (d < 0) {
		r->odd.negative_durations++;
		d = 0;
	}
	l->dur[t.ev] = d;
	return true;
}

/* The key of an async event's stack: pid, category and id (or id2) as text. */
static struct key3 async_key(struct reader *r, const struct ev *e, struct jkey pid)
{
	const struct jval *id = e->id.type ? &e->id : &e->id2;
	struct key3 k = {pid.v, e->cat.type ? intern_val(r, &e->cat, 1) : 0, 4};
	k.c |= (uint64_t)(id->type ? intern_val(r, id, 2) : 0) << 8 | (uint64_t)pid.str;
	return k;
}

static void handle_metadata(struct reader *r, const struct ev *e, const uint8_t *name, size_t n)
{
	struct jkey pid = jkey_of(r, &e->pid), tid = jkey_of(r, &e->tid);
	const struct jval *v;
	int64_t sort;
	if (bytes_eq(name, n, "process_name") && (v = arg(r, e, "name"))) {
		uint32_t s = intern_val(r, v, 1), i = get_proc(r, pid);
		r->procs[i].name = s;
		r->procs[i].has_name = true;
	} else if (bytes_eq(name, n, "process_labels") && (v = arg(r, e, "labels"))) {
		uint32_t s = intern_val(r, v, 1), i = get_proc(r, pid);
		r->procs[i].labels = s;
		r->procs[i].has_labels = true;
	} else if (bytes_eq(name, n, "thread_name") && (v = arg(r, e, "name"))) {
		uint32_t s = intern_val(r, v, 1);
		struct tmeta *t = get_tmeta(r, pid, tid);
		t->name = s;
		t->has_name = true;
	} else if (bytes_eq(name, n, "thread_sort_index") && arg_int(r, e, "sort_index", &sort)) {
		struct tmeta *t = get_tmeta(r, pid, tid);
		t->sort = sort;
		t->has_sort = true;
	} else if (bytes_eq(name, n, "process_name") || bytes_eq(name, n, "process_labels") ||
		   bytes_eq(name, n, "process_sort_index")) {
		get_proc(r, pid);
	}
}

enum evkind { EV_COMPLETE, EV_BEGIN, EV_INSTANT, EV_COUNTER, EV_ASYNC_BEGIN, EV_ASYNC_INSTANT };

/* Append the event; *line and *index say where it went. */
static int add_event(struct reader *r, const struct ev *e, enum evkind kind, uint32_t *line_out, uint64_t *ev_out)
{
	int64_t start, dur = 0;
	bool overflow = false;
	if (event_ts(r, e, &start, &overflow))
		return -1;
	if (kind == EV_COMPLETE && event_dur(r, e, &dur))
		return -1;
	enum cat cat = classify_cat(&e->cat);
	size_t nlen = 0;
	const uint8_t *name = e->name.type ? val_text(r, &e->name, 0, &nlen) : (const uint8_t *)"";
	uint32_t name_id, disp_id = 0;
	uint8_t route = cat == C_KERNEL || cat == C_MEMCPY || cat == C_MEMSET || cat == C_DEVICE ? RT_DEVICE
		      : cat == C_GPU_ANNOT ? RT_ANNOT
		      : cat == C_RUNTIME || cat == C_HOST ? RT_HOST
		      : RT_AUTO;
	int64_t mem_bytes = 0, step = 0;
	bool memory = bytes_eq(name, nlen, "[memory]") && arg_int(r, e, "Bytes", &mem_bytes);
	bool is_step = false;
	const struct jval *long_name = NULL;
	if (memory) {
		route = RT_HOST;
		name_id = xp_intern(r->st, mem_bytes < 0 ? "MemoryDeallocation" : "MemoryAllocation",
				    mem_bytes < 0 ? 18 : 16);
		disp_id = intern(r, name, nlen);
	} else if (cat == C_MEMCPY || cat == C_MEMSET) {
		const char *cn = cat == C_MEMSET ? "Memset" : memcpy_name(name, nlen);
		name_id = xp_intern(r->st, cn, strlen(cn));
		disp_id = intern(r, name, nlen);
	} else {
		for (size_t k = 0; k < e->na; k++)
			if (e->av[k].key.len == 9 && e->av[k].val.type == JV_STR &&
			    same_bytes(e->av[k].key.p, (const uint8_t *)"long_name", 9))
				long_name = &e->av[k].val;
		if (long_name) {
			/* TF wrote the display name as name and the full one in args. */
			disp_id = intern(r, name, nlen);
			name_id = intern_val(r, long_name, 1);
		} else {
			name_id = intern(r, name, nlen);
		}
		is_step = route != RT_DEVICE && route != RT_ANNOT && profiler_step(name, nlen, &step);
	}
	if (kind == EV_COUNTER)
		route = RT_COUNTER;
	else if (kind == EV_ASYNC_BEGIN || kind == EV_ASYNC_INSTANT)
		route = RT_ASYNC;
	struct jkey pid = jkey_cached(r, &e->pid, 0), tid = {0, false};
	if (route != RT_COUNTER && route != RT_ASYNC && route != RT_ANNOT)
		tid = jkey_cached(r, &e->tid, 1);
	uint32_t li = get_line(r, pid, tid, route);
	struct rline *l = &r->lines[li];
	l->overflow |= overflow;
	uint64_t i = line_append(l, start, dur, event_meta(r, name_id, disp_id));
	for (size_t k = 0; k < e->na; k++)
		if (&e->av[k].val != long_name && push_arg(r, l, &e->av[k]))
			return -1;
	if (e->args.type && e->args.type != JV_OBJ) {
		/* "args" that is not an object: kept whole as one stat */
		struct jarg a = {{(const uint8_t *)"args", 4, false}, e->args};
		if (push_arg(r, l, &a))
			return -1;
	}
	if (cat != C_NONE) {
		/* PyTorch semantics tell operators, Python functions, runtime and driver calls apart. */
		size_t cn;
		const uint8_t *cp = val_text(r, &e->cat, 1, &cn);
		push_text(r, l, stat_named(r, "cat"), cp, cn);
		r->counts.kineto_events++;
	}
	if (route == RT_DEVICE || route == RT_ANNOT) {
		struct proc *p = &r->procs[l->proc];
		int64_t dev;
		p->device_events = true;
		if (!l->has_dev_arg && arg_int(r, e, "device", &dev)) {
			l->dev_arg = dev;
			l->has_dev_arg = true;
			if (!p->has_dev_arg) {
				p->dev_arg = dev;
				p->has_dev_arg = true;
			}
		}
	}
	switch (cat) {
	case C_KERNEL:
		synth_kernel(r, l, e);
		synth_correlation(r, l, e);
		if (kind == EV_COMPLETE && dur == 0)
			r->counts.zero_dur_kernels++;
		break;
	case C_MEMCPY:
	case C_MEMSET:
		/* name is in scratch 0: still intact (nothing above reused slot 0 after it) */
		synth_copy(r, l, e, name, nlen, cat == C_MEMSET);
		break;
	case C_RUNTIME:
		synth_correlation(r, l, e);
		break;
	default:
		break;
	}
	if (memory)
		synth_memory(r, l, e, mem_bytes);
	if (is_step) {
		/* One step per distinct ProfilerStep#N on the host: a root for grouping. */
		struct key3 k = {step, 0, 0};
		if (kmap_get(&r->steps_seen, &k) == UINT32_MAX) {
			kmap_put(&r->steps_seen, &k, 0);
			push_i64(r, l, stat_named(r, "_r"), 1);
			push_i64(r, l, stat_named(r, "step_num"), step);
		}
	}
	*line_out = li;
	*ev_out = i;
	return 0;
}

static int commit(struct reader *r, const struct ev *e)
{
	struct xp_json_counts *c = &r->counts;
	c->entries++;
	if (!e->members) {
		c->empty++;
		return 0;
	}
	if (e->ph.type != JV_STR || e->ph.len != 1 || e->ph.esc) {
		c->other++;
		return 0;
	}
	uint8_t ph = e->ph.p[0];
	if (ph == 'M') {
		c->metadata++;
		size_t n = 0;
		const uint8_t *name = e->name.type == JV_STR ? str_bytes(r, &e->name, 0, &n) : (const uint8_t *)"";
		handle_metadata(r, e, name, n);
		return 0;
	}
	if (ph == 's' || ph == 't' || ph == 'f') {
		c->flow++;
		return 0;
	}
	if (ph == 'E' || ph == 'e' || ph == 'F') {
		int64_t rel;
		bool ovf = false;
		if (ph == 'E')
			c->end++;
		else
			c->async++;
		if (!e->ts.type) {
			c->unmatched_end++;
			return 0;
		}
		if (event_ts(r, e, &rel, &ovf))
			return -1;
		struct jkey pid = jkey_of(r, &e->pid);
		struct key3 k;
		if (ph == 'E') {
			k = thread_key(pid, jkey_of(r, &e->tid));
			k.c |= 8; /* not an async key: those have bit 2 set */
		} else {
			k = async_key(r, e, pid);
		}
		if (!stack_pop(r, get_stack(r, &k, false), rel))
			c->unmatched_end++;
		return 0;
	}
	enum evkind kind;
	uint64_t *count;
	switch (ph) {
	case 'X': kind = EV_COMPLETE; count = &c->complete; break;
	case 'B': kind = EV_BEGIN; count = &c->begin; break;
	case 'i': case 'I': case 'R': kind = EV_INSTANT; count = &c->instant; break;
	case 'C': kind = EV_COUNTER; count = &c->counter; break;
	case 'b': case 'S': kind = EV_ASYNC_BEGIN; count = &c->async; break;
	case 'n': kind = EV_ASYNC_INSTANT; count = &c->async; break;
	default: count = NULL; break;
	}
	if (!count || !e->ts.type) {
		/* an unknown phase, or no time to place the event at */
		c->other++;
		return 0;
	}
	(*count)++;
	uint32_t li;
	uint64_t i;
	if (add_event(r, e, kind, &li, &i))
		return -1;
	if (kind == EV_BEGIN) {
		struct key3 k = thread_key(jkey_of(r, &e->pid), jkey_of(r, &e->tid));
		k.c |= 8;
		stack_push(get_stack(r, &k, true), li, i);
	} else if (kind == EV_ASYNC_BEGIN) {
		struct key3 k = async_key(r, e, jkey_of(r, &e->pid));
		stack_push(get_stack(r, &k, true), li, i);
	}
	return 0;
}

/* --- the document ----------------------------------------------------------------------- */

/* --- the lexer thread ---------------------------------------------------------------------- */

/*
 * The lexer fills a batch: lexed elements (struct ev, args copied) whose spans
 * point into the batch's text. A batch is sealed -- handed to the committing
 * thread, never to move again -- when the window must be refilled (the
 * unread rest goes to a new batch's text) or, when all the text is in memory
 * (a mapped file), every window's worth of bytes. At most PIPE_DEPTH batches wait; the last one carries
 * the lexer's verdict. When the committer fails it cancels, and the lexer
 * stops at its next hand-over.
 */

#define PIPE_DEPTH 3

enum item_kind { IT_EVENT = 0, IT_DEVICE_PROPS, IT_DIST_INFO, IT_HOST_NAME };

struct item {
	uint8_t kind;
	size_t a0;              /* its args: batch->args[a0 .. a0 + e.na) */
	struct ev e;            /* IT_EVENT; else e.args holds the top-level value */
};

struct batch {
	struct batch *next;
	uint8_t *text;          /* owned text, or NULL on a mapped file */
	size_t textcap;
	const uint8_t *base;    /* what offsets count from: text, or the mapping */
	uint64_t off0;          /* stream offset of base[0] */
	size_t done;            /* mapped file: the text is used up to here */
	struct item *items;
	size_t n, cap;
	struct jarg *args;
	size_t na, cap_args;
	bool last;              /* the lexer's verdict follows */
	int status;
	struct xp_err err;
	uint64_t decoded;
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch *head, *tail;
	unsigned depth;
	bool cancel;
	const uint8_t *whole;   /* all the text is in memory (a mapped file, a buffer): batches point into it */
	size_t mark;            /* whole text: where the batch being filled starts */
	struct batch *spare;    /* committed batches, kept for reuse: their memory is already touched */
	struct batch *cur;      /* the lexer's, being filled */
	struct reader *lexer;
	struct xp_err lex_err;
};

static struct batch *batch_new(struct reader *r, size_t textcap)
{
	struct pipe *q = r->pipe;
	pthread_mutex_lock(&q->mu);
	struct batch *b = q->spare;
	if (b)
		q->spare = b->next;
	pthread_mutex_unlock(&q->mu);
	if (b) {
		b->next = NULL;
		b->n = b->na = 0;
		b->off0 = b->done = b->decoded = 0;
		b->last = false;
		b->status = 0;
	} else {
		b = xcalloc(1, sizeof *b);
	}
	if (q->whole) {
		b->base = q->whole;
	} else {
		if (b->textcap < textcap) {
			b->text = xrealloc(b->text, textcap);
			b->textcap = textcap;
		}
		b->base = b->text;
	}
	return b;
}

/* A committed batch goes back for the lexer to fill again. */
static void batch_recycle(struct pipe *q, struct batch *b)
{
	pthread_mutex_lock(&q->mu);
	b->next = q->spare;
	q->spare = b;
	pthread_mutex_unlock(&q->mu);
}

static void batch_free(struct batch *b)
{
	free(b->text);
	free(b->items);
	free(b->args);
	free(b);
}

/* Hand a batch to the committer; -1 when it gave up. */
static int pipe_put(struct pipe *q, struct batch *b)
{
	pthread_mutex_lock(&q->mu);
	while (q->depth >= PIPE_DEPTH && !q->cancel)
		pthread_cond_wait(&q->cv, &q->mu);
	bool cancel = q->cancel;
	if (!cancel) {
		if (q->tail)
			q->tail->next = b;
		else
			q->head = b;
		q->tail = b;
		q->depth++;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	if (cancel)
		batch_free(b);
	return cancel ? -1 : 0;
}

static struct batch *pipe_get(struct pipe *q)
{
	pthread_mutex_lock(&q->mu);
	while (!q->head)
		pthread_cond_wait(&q->cv, &q->mu);
	struct batch *b = q->head;
	q->head = b->next;
	if (!q->head)
		q->tail = NULL;
	q->depth--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return b;
}

/* Seal the batch being filled when it holds anything; the window moves to a
 * new batch (with the unread rest of the text, when the text is owned). */
static int pipe_seal(struct reader *r)
{
	struct pipe *q = r->pipe;
	struct batch *b = q->cur;
	if (!b->n)
		return 0;
	struct batch *nb;
	if (q->whole) {
		b->done = q->mark = r->pos;
		nb = batch_new(r, 0);
	} else {
		size_t rest = r->len - r->pos;
		size_t cap = rest + r->win_min > r->win_init ? rest + r->win_min : r->win_init;
		nb = batch_new(r, cap);
		memcpy(nb->text, r->buf + r->pos, rest);
		nb->off0 = r->off0 + r->pos;
		r->buf = nb->text;
		r->bufcap = nb->textcap;
		r->len = rest;
		r->off0 = nb->off0;
		r->pos = 0;
	}
	q->cur = nb;
	return pipe_put(q, b);
}

/* The batch being filled (still empty: nothing points into it) follows its window as it moves. */
static void pipe_follow(struct reader *r)
{
	struct batch *b = r->pipe->cur;
	b->text = r->buf;
	b->textcap = r->bufcap;
	b->base = r->buf;
	b->off0 = r->off0;
}

static struct item *pipe_item(struct reader *r, uint8_t kind)
{
	struct batch *b = r->pipe->cur;
	GROW(b->items, b->n, b->cap);
	struct item *it = &b->items[b->n++];
	it->kind = kind;
	it->a0 = b->na;
	return it;
}

static int pipe_event(struct reader *r, const struct ev *e)
{
	struct batch *b = r->pipe->cur;
	if (b->na + e->na > b->cap_args) {
		while (b->na + e->na > b->cap_args)
			b->cap_args = b->cap_args ? b->cap_args * 2 : 1024;
		b->args = xrealloc(b->args, b->cap_args * sizeof *b->args);
	}
	if (e->na)
		memcpy(b->args + b->na, e->av, e->na * sizeof *b->args);
	struct item *it = pipe_item(r, IT_EVENT);
	it->e = *e;
	b->na += e->na;
	return 0;
}

/* The top-level values the committer uses; the rest is only validated. */
static int pipe_top(struct reader *r, const uint8_t *k, size_t kn, const struct jval *v)
{
	uint8_t kind = bytes_eq(k, kn, "deviceProperties") ? IT_DEVICE_PROPS
		     : bytes_eq(k, kn, "distributedInfo") ? IT_DIST_INFO
		     : bytes_eq(k, kn, "host_name") ? IT_HOST_NAME
		     : IT_EVENT;
	if (kind != IT_EVENT)
		pipe_item(r, kind)->e.args = *v;
	return 0;
}

static int read_document(struct reader *r);

static void *lexer_main(void *arg)
{
	struct reader *lr = arg;
	struct pipe *q = lr->pipe;
	int rc = read_document(lr);
	struct batch *b = q->cur;
	q->cur = NULL;
	b->last = true;
	b->status = rc;
	b->err = q->lex_err;
	b->done = lr->pos;
	b->decoded = lr->off0 + lr->len;
	pipe_put(q, b);
	return NULL;
}

static void top_value(struct reader *r, const uint8_t *k, size_t kn, const struct jval *v);
static int commit(struct reader *r, const struct ev *e);

/* The committer: batches in order; the lexer's error after everything before it. */
static int pipe_commit(struct reader *r, struct pipe *q)
{
	for (;;) {
		struct batch *b = pipe_get(q);
		r->buf = (uint8_t *)(uintptr_t)b->base;
		r->off0 = b->off0;
		int rc = 0;
		for (size_t i = 0; i < b->n && !rc; i++) {
			struct item *it = &b->items[i];
			if (it->kind == IT_EVENT) {
				it->e.av = b->args ? b->args + it->a0 : NULL;
				rc = commit(r, &it->e);
			} else {
				static const char *const keys[] = {"", "deviceProperties", "distributedInfo", "host_name"};
				top_value(r, (const uint8_t *)keys[it->kind], strlen(keys[it->kind]), &it->e.args);
			}
		}
		if (!rc && r->map && b->done) {
			r->pos = b->done;
			release_mapped(r);
		}
		bool last = b->last;
		if (!rc && last && b->status) {
			if (r->err && !r->err->status)
				*r->err = b->err;
			rc = -1;
		}
		if (last)
			r->decoded = b->decoded;
		batch_recycle(q, b);
		if (rc || last)
			return rc;
	}
}

/* Lex on a thread of our own while this one commits; false when the thread cannot start. */
static bool pipe_run(struct reader *r, int *rc)
{
	struct pipe q;
	memset(&q, 0, sizeof q);
	struct reader *lr = xcalloc(1, sizeof *lr);
	lr->path = r->path;
	lr->err = &q.lex_err;
	lr->pipe = &q;
	lr->key_memo[0].type = lr->key_memo[1].type = 0xff;
	lr->win_init = r->win_init;
	lr->win_min = r->win_min;
	/* the lexer takes over the text: the stream, or all of it in memory */
	lr->src = r->src;
	if (!r->src) {
		q.whole = r->buf;
		lr->buf = r->buf;
		lr->len = r->len;
		lr->eof = true;
	}
	q.lexer = lr;
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	q.cur = batch_new(lr, lr->win_init);
	if (!q.whole) {
		lr->buf = q.cur->text;
		lr->bufcap = q.cur->textcap;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, lexer_main, lr) != 0) {
		batch_free(q.cur);
		free(lr);
		pthread_mutex_destroy(&q.mu);
		pthread_cond_destroy(&q.cv);
		return false;
	}
	if (r->owned) {
		free(r->buf); /* batches hold the text from now on */
		r->buf = NULL;
		r->owned = false;
	}
	*rc = pipe_commit(r, &q);
	if (*rc) {
		pthread_mutex_lock(&q.mu);
		q.cancel = true;
		pthread_cond_broadcast(&q.cv);
		pthread_mutex_unlock(&q.mu);
	}
	pthread_join(th, NULL);
	while (q.head) {
		struct batch *b = q.head;
		q.head = b->next;
		batch_free(b);
	}
	while (q.spare) {
		struct batch *b = q.spare;
		q.spare = b->next;
		batch_free(b);
	}
	if (q.cur)
		batch_free(q.cur);
	/* what the lexer allocated for lexing */
	free(lr->args);
	for (int i = 0; i < 4; i++)
		free(lr->scr[i].p);
	free(lr);
	pthread_mutex_destroy(&q.mu);
	pthread_cond_destroy(&q.cv);
	r->buf = (uint8_t *)(uintptr_t)q.whole; /* NULL when the batches owned the text */
	return true;
}

/* Give back the mapped pages already read: they are file-backed and read-only,
 * so RSS stays at the window, not the file. */
static void release_mapped(struct reader *r)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)r->map + r->released + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)r->map + r->pos) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
	r->released = r->pos;
}

/* Elements of a traceEvents array; r->pos just after its '['. */
static int stream_events(struct reader *r)
{
	enum { FIRST, NEXT, SEP } st = FIRST;
	r->saw_events = true;
	for (;;) {
		const uint8_t *p = r->buf + r->pos;
		r->end = r->buf + r->len;
		int rc = skip_ws(r, &p);
		if (rc == J_MORE)
			r->pos = (size_t)(p - r->buf); /* the blanks are behind us: not lexed again */
		if (rc == J_OK) {
			if (st == SEP) {
				if (*p == ',') {
					st = NEXT;
					r->pos = (size_t)(p + 1 - r->buf);
					continue;
				}
				if (*p == ']') {
					r->pos = (size_t)(p + 1 - r->buf);
					return 0;
				}
				rc = jerr(r, p, "expected ',' or ']' after a traceEvents element");
			} else if (st == FIRST && *p == ']') {
				r->pos = (size_t)(p + 1 - r->buf);
				return 0;
			} else {
				struct ev e;
				rc = lex_event(r, &p, &e);
				if (rc == J_OK) {
					if (r->pipe ? pipe_event(r, &e) : commit(r, &e))
						return -1;
					r->pos = (size_t)(p - r->buf);
					st = SEP;
					if (r->pipe) {
						if (r->pipe->whole && r->pos - r->pipe->mark >= r->win_init && pipe_seal(r))
							return -1;
					} else if (r->map && r->pos - r->released >= ((size_t)8 << 20)) {
						release_mapped(r);
					}
					continue;
				}
			}
		}
		if (rc == J_ERR || win_more(r))
			return -1;
	}
}

static void top_value(struct reader *r, const uint8_t *k, size_t kn, const struct jval *v)
{
	if (bytes_eq(k, kn, "deviceProperties") && v->type == JV_ARR) {
		cJSON_Delete(r->device_props);
		r->device_props = cJSON_ParseWithLength((const char *)v->p, v->len);
	} else if (bytes_eq(k, kn, "distributedInfo") && v->type == JV_OBJ) {
		cJSON_Delete(r->dist_info);
		r->dist_info = cJSON_ParseWithLength((const char *)v->p, v->len);
	} else if (bytes_eq(k, kn, "host_name") && v->type == JV_STR) {
		r->host_name = intern_val(r, v, 1);
		r->has_host_name = true;
	}
	/* displayTimeUnit only sets a viewer's display unit: ts and dur are microseconds. */
}

static int read_document(struct reader *r)
{
	enum { T_START, T_OBJ_FIRST, T_OBJ_KEY, T_OBJ_SEP, T_END } st = T_START;
	for (;;) {
		const uint8_t *p = r->buf + r->pos;
		r->end = r->buf + r->len;
		int rc;
		if (st == T_END) {
			while (p < r->end && is_ws(*p))
				p++;
			if (p < r->end)
				return jerr(r, p, "trailing data after the JSON document");
			r->pos = (size_t)(p - r->buf);
			if (r->eof)
				return r->saw_events ? 0 : xp_err_set(r->err, XP_EXIT_BAD_INPUT, r->path,
									"not a trace: the JSON object has no traceEvents array");
			if (win_more(r))
				return -1;
			continue;
		}
		if (st == T_START && r->off0 == 0 && r->pos == 0) {
			/* a UTF-8 byte order mark: wait until there are 3 bytes to tell */
			size_t k = r->len < 3 ? r->len : 3;
			if (!memcmp(r->buf, "\xef\xbb\xbf", k)) {
				if (k < 3 && !r->eof) {
					if (win_more(r))
						return -1;
					continue;
				}
				if (k == 3)
					p += 3;
			}
		}
		rc = skip_ws(r, &p);
		if (rc == J_MORE)
			r->pos = (size_t)(p - r->buf); /* the blanks are behind us: not lexed again */
		if (rc == J_OK) {
			switch (st) {
			case T_START:
				if (*p == '[') {
					r->pos = (size_t)(p + 1 - r->buf);
					if (stream_events(r))
						return -1;
					st = T_END;
					continue;
				}
				if (*p != '{')
					return jerr(r, p, "not a trace: expected '{' or '[' at the start");
				r->pos = (size_t)(p + 1 - r->buf);
				st = T_OBJ_FIRST;
				continue;
			case T_OBJ_FIRST:
				if (*p == '}') {
					r->pos = (size_t)(p + 1 - r->buf);
					st = T_END;
					continue;
				}
				st = T_OBJ_KEY;
				continue;
			case T_OBJ_KEY: {
				struct jstr k;
				struct jval v;
				if (*p != '"')
					return jerr(r, p, "expected a string key in the top-level object");
				if ((rc = lex_string(r, &p, &k)) || (rc = skip_ws(r, &p)))
					break;
				if (*p != ':')
					return jerr(r, p, "expected ':' after an object key");
				p++;
				if ((rc = skip_ws(r, &p)))
					break;
				size_t kn;
				const uint8_t *kp = k.esc ? (kn = unescape(k.p, k.len, scratch(r, 0, k.len), NULL), r->scr[0].p) : (kn = k.len, k.p);
				if (bytes_eq(kp, kn, "traceEvents")) {
					if (*p != '[')
						return jerr(r, p, "traceEvents is not an array");
					r->pos = (size_t)(p + 1 - r->buf);
					if (stream_events(r))
						return -1;
					st = T_OBJ_SEP;
					continue;
				}
				if ((rc = lex_value(r, &p, 1, &v)))
					break;
				if (r->pipe ? pipe_top(r, kp, kn, &v) : (top_value(r, kp, kn, &v), 0))
					return -1;
				r->pos = (size_t)(p - r->buf);
				st = T_OBJ_SEP;
				continue;
			}
			case T_OBJ_SEP:
				if (*p == ',') {
					r->pos = (size_t)(p + 1 - r->buf);
					st = T_OBJ_KEY;
					continue;
				}
				if (*p == '}') {
					r->pos = (size_t)(p + 1 - r->buf);
					st = T_END;
					continue;
				}
				return jerr(r, p, "expected ',' or '}' in the top-level object");
			default:
				break;
			}
		}
		if (rc == J_ERR)
			return -1;
		if (win_more(r))
			return -1;
	}
}

/* --- finishing: planes and lines ----------------------------------------------------------- */

/* "id" of a deviceProperties entry, when it is a sane ordinal. */
static bool dev_id(const cJSON *d, int *out)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
	if (!cJSON_IsNumber(id) || !(id->valuedouble >= 0 && id->valuedouble < 65536))
		return false;
	*out = (int)id->valuedouble;
	return true;
}

struct plane_build {
	uint32_t name;          /* interned plane name */
	enum xp_plane_kind kind;
	int ordinal;
	int64_t id;
	bool has_id;
	uint32_t *lines;        /* raw line indices */
	size_t n_lines, cap_lines;
	bool named;             /* a process_name or deviceProperties names it */
};

struct finisher {
	struct reader *r;
	struct plane_build *pb;
	size_t n_pb, cap_pb;
	struct kmap pb_map;     /* plane name -> index in pb */
	int64_t shift;          /* subtracted from every start */
	/* per plane: host-wide metadata id -> plane id (0 = not yet) */
	uint32_t *em_map, *sm_map;
	uint32_t *em_list, *sm_list; /* plane id -> host-wide id */
	uint32_t n_em_list, n_sm_list;
};

static uint32_t intern_fmt(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static uint32_t intern_fmt(struct reader *r, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	return xp_intern(r->st, buf, (size_t)n);
}

static uint32_t find_plane(struct finisher *f, uint32_t name)
{
	struct key3 k = {name, 0, 0};
	uint32_t i = kmap_get(&f->pb_map, &k);
	if (i != UINT32_MAX)
		return i;
	kmap_put(&f->pb_map, &k, (uint32_t)f->n_pb);
	GROW(f->pb, f->n_pb, f->cap_pb);
	struct plane_build *b = &f->pb[f->n_pb];
	memset(b, 0, sizeof *b);
	b->name = name;
	b->kind = xp_classify_plane(xp_str(f->r->cap, name), xp_strlen(f->r->cap, name), &b->ordinal);
	return (uint32_t)f->n_pb++;
}

/* "GPU 3" (Kineto's process labels) -> 3 */
static bool gpu_label(const char *s, int *n)
{
	if (strncmp(s, "GPU ", 4) || !is_digit((uint8_t)s[4]) || strlen(s + 4) > 6)
		return false;
	for (const char *p = s + 4; *p; p++)
		if (!is_digit((uint8_t)*p))
			return false;
	*n = atoi(s + 4);
	return true;
}

static int64_t device_ordinal(const struct proc *p, const struct rline *l)
{
	if (l && l->has_dev_arg)
		return l->dev_arg;
	if (p->has_dev_arg)
		return p->dev_arg;
	if (!p->pid.str && p->pid.v >= 0 && p->pid.v < 65536)
		return p->pid.v;
	return 0;
}

/* The plane a process maps to (as an interned name). */
static uint32_t proc_plane(struct reader *r, const struct proc *p)
{
	const char *nm = p->has_name ? xp_str(r->cap, p->name) : NULL;
	const char *lb = p->has_labels ? xp_str(r->cap, p->labels) : NULL;
	int n;
	if (nm && nm[0] == '/')
		return p->name; /* TF/JAX: the XSpace plane name */
	if ((lb && gpu_label(lb, &n)) || (nm && gpu_label(nm, &n)))
		return intern_fmt(r, "/device:GPU:%d", n);
	if (p->device_events && !(lb && !strcmp(lb, "CPU")))
		return intern_fmt(r, "/device:GPU:%" PRId64, device_ordinal(p, NULL));
	if (p->pid.str) {
		const char *s = xp_str(r->cap, (uint32_t)p->pid.v);
		size_t len = xp_strlen(r->cap, (uint32_t)p->pid.v);
		if (!len)
			return xp_intern(r->st, "/host:unnamed", 13);
		char *b = xrealloc(NULL, len + 7);
		memcpy(b, "/host:", 6);
		memcpy(b + 6, s, len);
		uint32_t id = xp_intern(r->st, b, len + 6);
		free(b);
		return id;
	}
	return xp_intern(r->st, "/host:CPU", 9);
}

static bool is_device_kind(enum xp_plane_kind k)
{
	return k == XP_PLANE_GPU || k == XP_PLANE_TPU || k == XP_PLANE_DEVICE_OTHER;
}

static void plane_add_line(struct finisher *f, uint32_t plane, uint32_t line)
{
	struct plane_build *b = &f->pb[plane];
	GROW(b->lines, b->n_lines, b->cap_lines);
	b->lines[b->n_lines++] = line;
	f->r->lines[line].plane = plane;
	const struct proc *p = &f->r->procs[f->r->lines[line].proc];
	if (!b->has_id && !p->pid.str) {
		b->id = p->pid.v;
		b->has_id = true;
	}
}

/* Threads named in metadata are lines even when none of their events was kept
 * (TF writes every line of the XSpace; its memory events are not exported). */
static void metadata_lines(struct reader *r)
{
	for (size_t i = 0; i < r->tmeta_map.cap; i++) {
		if (!r->tmeta_map.vals[i])
			continue;
		const struct key3 *k = &r->tmeta_map.keys[i];
		struct jkey pid = {k->a, k->c & 1}, tid = {k->b, (k->c >> 1) & 1};
		get_line(r, pid, tid, RT_AUTO);
	}
}

static void assign_planes(struct finisher *f)
{
	struct reader *r = f->r;
	metadata_lines(r);
	uint32_t *proc_pl = xcalloc(r->n_procs, sizeof *proc_pl);
	uint32_t host = find_plane(f, xp_intern(r->st, "/host:CPU", 9));
	f->pb[host].named = true; /* always there, maybe empty */
	for (size_t i = 0; i < r->n_procs; i++) {
		proc_pl[i] = find_plane(f, proc_plane(r, &r->procs[i]));
		if (r->procs[i].has_name && r->procs[i].name == f->pb[proc_pl[i]].name)
			f->pb[proc_pl[i]].named = true; /* TF/JAX wrote the plane, lines or not */
	}
	for (size_t i = 0; i < r->n_lines; i++) {
		struct rline *l = &r->lines[i];
		const struct proc *p = &r->procs[l->proc];
		uint32_t pl = proc_pl[l->proc];
		if (l->route == RT_HOST)
			pl = find_plane(f, xp_intern(r->st, "/host:CPU", 9));
		else if ((l->route == RT_DEVICE || l->route == RT_ANNOT) && !is_device_kind(f->pb[pl].kind))
			pl = find_plane(f, intern_fmt(r, "/device:GPU:%" PRId64, device_ordinal(p, l)));
		plane_add_line(f, pl, (uint32_t)i);
	}
	free(proc_pl);
	/* Devices known from deviceProperties have a plane even without events. */
	const cJSON *d;
	int id;
	cJSON_ArrayForEach(d, r->device_props)
		if (dev_id(d, &id)) {
			uint32_t pl = find_plane(f, intern_fmt(r, "/device:GPU:%d", id));
			f->pb[pl].named = true;
		}
	/* Planes with no line are kept only when the file named them (TF, deviceProperties). */
	size_t k = 0;
	for (size_t i = 0; i < f->n_pb; i++) {
		struct plane_build *b = &f->pb[i];
		if (!b->named && !b->n_lines) {
			free(b->lines);
			continue;
		}
		f->pb[k++] = *b;
	}
	f->n_pb = k;
	kmap_free(&f->pb_map);
	for (size_t i = 0; i < f->n_pb; i++)
		for (size_t j = 0; j < f->pb[i].n_lines; j++)
			r->lines[f->pb[i].lines[j]].plane = (uint32_t)i;
}

static int kind_rank(enum xp_plane_kind k)
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

static const struct xp_capture *sort_cap;

static int cmp_plane(const void *a, const void *b)
{
	const struct plane_build *x = a, *y = b;
	int kx = kind_rank(x->kind), ky = kind_rank(y->kind);
	if (kx != ky)
		return kx - ky;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	return strcmp(xp_str(sort_cap, x->name), xp_str(sort_cap, y->name));
}

/* Line order in a plane: derived last; by thread sort index (else tid); string tids, counters and async after. */
struct line_order {
	uint32_t line;
	int cls;                /* 0 integer tid, 1 string tid, 2 counters, 3 async, 4 annotations */
	int64_t key;
	uint32_t name;
};

static int cmp_line_order(const void *a, const void *b)
{
	const struct line_order *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls - y->cls;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	int c = strcmp(xp_str(sort_cap, x->name), xp_str(sort_cap, y->name));
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint32_t trimmed(struct reader *r, uint32_t id)
{
	const char *s = xp_str(r->cap, id);
	size_t n = xp_strlen(r->cap, id);
	if (!n || !is_ws((uint8_t)s[n - 1]))
		return id;
	while (n && is_ws((uint8_t)s[n - 1]))
		n--;
	return xp_intern(r->st, s, n);
}

static uint32_t line_name(struct reader *r, const struct rline *l, int cls)
{
	switch (cls) {
	case 2: return xp_intern(r->st, "Counters", 8);
	case 3: return xp_intern(r->st, "Async", 5);
	case 4: return xp_intern(r->st, "GPU user annotations", 20);
	default: break;
	}
	struct key3 k = thread_key(l->pid, l->tid);
	uint32_t t = kmap_get(&r->tmeta_map, &k);
	if (t != UINT32_MAX && r->tmetas[t].has_name)
		return trimmed(r, r->tmetas[t].name);
	if (l->tid.str)
		return (uint32_t)l->tid.v;
	return intern_fmt(r, "%" PRId64, l->tid.v);
}

/* --- finishing: one line ----------------------------------------------------------------- */

static const struct rline *sort_line;

static int cmp_event(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	const struct rline *l = sort_line;
	if (l->start[x] != l->start[y])
		return l->start[x] < l->start[y] ? -1 : 1;
	if (l->dur[x] != l->dur[y])
		return l->dur[x] > l->dur[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static bool line_sorted(const struct rline *l)
{
	for (uint64_t i = 1; i < l->n; i++)
		if (l->start[i] < l->start[i - 1] || (l->start[i] == l->start[i - 1] && l->dur[i] > l->dur[i - 1]))
			return false;
	return true;
}

static uint32_t map_em(struct finisher *f, uint32_t g)
{
	if (!g)
		return 0;
	if (!f->em_map[g]) {
		f->em_list[++f->n_em_list] = g;
		f->em_map[g] = f->n_em_list;
	}
	return f->em_map[g];
}

static uint32_t map_sm(struct finisher *f, uint32_t g)
{
	if (!g)
		return 0;
	if (!f->sm_map[g]) {
		f->sm_list[++f->n_sm_list] = g;
		f->sm_map[g] = f->n_sm_list;
	}
	return f->sm_map[g];
}

static uint32_t remap_key(struct finisher *f, uint32_t key)
{
	return (key & ~(uint32_t)XP_STAT_META_MASK) | map_sm(f, xp_stat_meta(key));
}

/* Put the events of a line in (start asc, duration desc) order, stats and blobs with them. */
static void sort_events(struct rline *l)
{
	uint64_t n = l->n;
	uint64_t *order = xrealloc(NULL, n * sizeof *order);
	for (uint64_t i = 0; i < n; i++)
		order[i] = i;
	sort_line = l;
	qsort(order, n, sizeof *order, cmp_event);
	int64_t *start = xrealloc(NULL, n * sizeof *start), *dur = xrealloc(NULL, n * sizeof *dur);
	uint32_t *meta = xrealloc(NULL, n * sizeof *meta), *sbeg = xrealloc(NULL, n * sizeof *sbeg);
	struct xp_block *blocks = xcalloc(l->n_blocks, sizeof *blocks);
	for (uint64_t j = 0; j < n; j++) {
		uint64_t o = order[j];
		start[j] = l->start[o];
		dur[j] = l->dur[o];
		meta[j] = l->meta[o];
		const struct xp_block *ob = &l->blocks[o >> XP_BLOCK_SHIFT];
		struct xp_block *nb = &blocks[j >> XP_BLOCK_SHIFT];
		uint32_t first = l->sbeg[o];
		uint32_t last = (o + 1 < n && ((o + 1) >> XP_BLOCK_SHIFT) == (o >> XP_BLOCK_SHIFT)) ? l->sbeg[o + 1]
												 : ob->stats.n;
		sbeg[j] = nb->stats.n;
		for (uint32_t k = first; k < last; k++) {
			uint32_t key = ob->stats.keys[k];
			uint64_t v = (key & XP_STAT_WIDE) ? ob->stats.wide[ob->stats.vals[k]] : ob->stats.vals[k];
			unsigned kind = xp_stat_kind(key);
			if (kind == XP_STAT_BLOBSTR || kind == XP_STAT_BYTES) {
				uint32_t len;
				const uint8_t *p = xp_blob_get(&ob->blob, v, &len);
				v = xp_blob_put(&nb->blob, p, len);
			}
			xp_stats_push(&nb->stats, key & ~(uint32_t)XP_STAT_WIDE, v);
		}
	}
	for (uint32_t b = 0; b < l->n_blocks; b++) {
		xp_stats_free(&l->blocks[b].stats);
		xp_blob_free(&l->blocks[b].blob);
	}
	free(l->blocks);
	free(l->start);
	free(l->dur);
	free(l->meta);
	free(l->sbeg);
	free(order);
	l->blocks = blocks;
	l->start = start;
	l->dur = dur;
	l->meta = meta;
	l->sbeg = sbeg;
	l->cap = n;
}

static void shrink_stats(struct xp_block *blk)
{
	struct xp_stats *st = &blk->stats;
	if (st->n && st->cap > st->n) {
		st->keys = xrealloc(st->keys, (size_t)st->n * sizeof *st->keys);
		st->vals = xrealloc(st->vals, (size_t)st->n * sizeof *st->vals);
		st->cap = st->n;
	}
	if (st->n_wide && st->cap_wide > st->n_wide) {
		st->wide = xrealloc(st->wide, (size_t)st->n_wide * sizeof *st->wide);
		st->cap_wide = st->n_wide;
	}
	if (blk->blob.len && blk->blob.cap > blk->blob.len) {
		blk->blob.data = xrealloc(blk->blob.data, blk->blob.len);
		blk->blob.cap = blk->blob.len;
	}
}

/* Move a raw line into the model: sorted, renumbered for its plane, times shifted to the host base. */
static void build_line(struct finisher *f, struct rline *rl, struct xp_line *l, int64_t base_ns)
{
	struct reader *r = f->r;
	if (!line_sorted(rl))
		sort_events(rl);
	uint64_t n = rl->n;
	if (rl->cap > n) {
		rl->start = xrealloc(rl->start, n * sizeof *rl->start);
		rl->dur = xrealloc(rl->dur, n * sizeof *rl->dur);
		rl->meta = xrealloc(rl->meta, n * sizeof *rl->meta);
		rl->sbeg = xrealloc(rl->sbeg, n * sizeof *rl->sbeg);
	}
	l->n_events = n;
	l->start_ps = rl->start;
	l->dur_ps = rl->dur;
	l->meta = rl->meta;
	l->stat_begin = rl->sbeg;
	l->blocks = rl->blocks;
	l->n_blocks = rl->n_blocks;
	l->timestamp_ns = base_ns;
	bool overflow = rl->overflow;
	int64_t first = 0, last = 0;
	for (uint64_t i = 0; i < n; i++) {
		int64_t s;
		if (__builtin_sub_overflow(l->start_ps[i], f->shift, &s)) {
			s = f->shift > 0 ? INT64_MIN : INT64_MAX;
			overflow = true;
		}
		if (s > INT64_MAX - l->dur_ps[i]) {
			l->dur_ps[i] = INT64_MAX - s; /* keep end <= INT64_MAX */
			overflow = true;
		}
		l->start_ps[i] = s;
		l->meta[i] = map_em(f, l->meta[i]);
		if (!i || s < first)
			first = s;
		if (!i || s + l->dur_ps[i] > last)
			last = s + l->dur_ps[i];
	}
	for (uint32_t b = 0; b < l->n_blocks; b++) {
		struct xp_stats *st = &l->blocks[b].stats;
		for (uint32_t k = 0; k < st->n; k++)
			st->keys[k] = remap_key(f, st->keys[k]);
		shrink_stats(&l->blocks[b]);
		l->n_stats += st->n;
	}
	/* the dropped stats count, and their names stay in the plane's metadata (marked in build_plane) */
	l->n_stats += rl->n_dropped;
	for (uint64_t m = rl->dropped_names; m; m &= m - 1)
		map_sm(f, r->drop_sm[__builtin_ctzll(m)]);
	if (!n || __builtin_sub_overflow(last, first, &l->duration_ps))
		l->duration_ps = n ? INT64_MAX : 0;
	l->time_overflow = overflow;
	if (overflow)
		r->odd.time_overflow_lines++;
	rl->start = rl->dur = NULL;
	rl->meta = rl->sbeg = NULL;
	rl->blocks = NULL;
	rl->n = rl->n_blocks = 0;
}

/* --- finishing: plane stats --------------------------------------------------------------- */

static void plane_stat(struct finisher *f, struct xp_plane *p, const char *name, unsigned kind, uint64_t v)
{
	uint32_t sm = map_sm(f, stat_named(f->r, name));
	xp_stats_push(&p->plane_stats, xp_stat_make_key(kind, sm), v);
}

static void plane_stat_str(struct finisher *f, struct xp_plane *p, const char *name, const char *s)
{
	plane_stat(f, p, name, XP_STAT_STR, xp_intern(f->r->st, s, strlen(s)));
}

static const char *vendor_of(const char *model)
{
	if (strstr(model, "AMD") || strstr(model, "Radeon") || strstr(model, "Instinct"))
		return "AMD";
	if (strstr(model, "NVIDIA") || strstr(model, "Tesla") || strstr(model, "Quadro") || strstr(model, "GeForce") ||
	    strstr(model, "TITAN"))
		return "Nvidia";
	return NULL;
}

static void device_stats(struct finisher *f, struct xp_plane *p, const struct plane_build *b)
{
	const cJSON *d;
	if (b->kind != XP_PLANE_GPU)
		return;
	cJSON_ArrayForEach(d, f->r->device_props) {
		int id;
		if (!dev_id(d, &id) || id != b->ordinal)
			continue;
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
		static const struct {
			const char *key, *stat;
		} ints[] = {
			{"numSms", "core_count"}, {"totalGlobalMem", "memory_size"},
			{"computeMajor", "compute_cap_major"}, {"computeMinor", "compute_cap_minor"},
		};
		if (cJSON_IsString(name) && name->valuestring) {
			plane_stat_str(f, p, "gpu_device_name", name->valuestring);
			const char *v = vendor_of(name->valuestring);
			if (v)
				plane_stat_str(f, p, "device_vendor", v);
		}
		for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, ints[k].key);
			if (cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble < 9.2e18)
				plane_stat(f, p, ints[k].stat, XP_STAT_I64, (uint64_t)(int64_t)x->valuedouble);
		}
		break;
	}
}

static void host_stats(struct finisher *f, struct xp_plane *p)
{
	static const char *const keys[] = {"rank", "world_size"};
	for (size_t k = 0; k < 2; k++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(f->r->dist_info, keys[k]);
		if (cJSON_IsNumber(x) && fabs(x->valuedouble) < 9.2e18)
			plane_stat(f, p, keys[k], XP_STAT_I64, (uint64_t)(int64_t)x->valuedouble);
	}
}

/* --- finishing: the host ------------------------------------------------------------------- */

/* Append the events of src (with their stats) to dst: one thread's events may
 * have come in on several raw lines (by category) and land on one plane. */
static void merge_lines(struct rline *dst, struct rline *src)
{
	for (uint64_t o = 0; o < src->n; o++) {
		const struct xp_block *ob = &src->blocks[o >> XP_BLOCK_SHIFT];
		uint32_t first = src->sbeg[o];
		uint32_t last = (o + 1 < src->n && ((o + 1) >> XP_BLOCK_SHIFT) == (o >> XP_BLOCK_SHIFT)) ? src->sbeg[o + 1]
												     : ob->stats.n;
		line_append(dst, src->start[o], src->dur[o], src->meta[o]);
		struct xp_block *nb = cur_block(dst);
		for (uint32_t k = first; k < last; k++) {
			uint32_t key = ob->stats.keys[k];
			uint64_t v = (key & XP_STAT_WIDE) ? ob->stats.wide[ob->stats.vals[k]] : ob->stats.vals[k];
			unsigned kind = xp_stat_kind(key);
			if (kind == XP_STAT_BLOBSTR || kind == XP_STAT_BYTES) {
				uint32_t len;
				const uint8_t *p = xp_blob_get(&ob->blob, v, &len);
				v = xp_blob_put(&nb->blob, p, len);
			}
			xp_stats_push(&nb->stats, key & ~(uint32_t)XP_STAT_WIDE, v);
		}
	}
	dst->overflow |= src->overflow;
	dst->n_dropped += src->n_dropped;
	dst->dropped_names |= src->dropped_names;
	free(src->start);
	free(src->dur);
	free(src->meta);
	free(src->sbeg);
	for (uint32_t b = 0; b < src->n_blocks; b++) {
		xp_stats_free(&src->blocks[b].stats);
		xp_blob_free(&src->blocks[b].blob);
	}
	free(src->blocks);
	src->start = src->dur = NULL;
	src->meta = src->sbeg = NULL;
	src->blocks = NULL;
	src->n = src->cap = 0;
	src->n_blocks = src->cap_blocks = 0;
}

static int line_class(const struct rline *l)
{
	return l->route == RT_ANNOT ? 4 : l->route == RT_ASYNC ? 3 : l->route == RT_COUNTER ? 2 : l->tid.str;
}

/* One line per (pid, tid) -- or per counters/async/annotations -- in the plane. */
static void merge_plane_lines(struct reader *r, struct plane_build *b)
{
	struct kmap seen = {0};
	size_t k = 0;
	for (size_t i = 0; i < b->n_lines; i++) {
		struct rline *l = &r->lines[b->lines[i]];
		int cls = line_class(l);
		struct key3 key = thread_key(l->pid, l->tid);
		if (cls >= 2)
			key = (struct key3){0, 0, 0};
		key.c |= (uint64_t)cls << 4;
		uint32_t first = kmap_get(&seen, &key);
		if (first == UINT32_MAX) {
			kmap_put(&seen, &key, b->lines[i]);
			b->lines[k++] = b->lines[i];
		} else {
			merge_lines(&r->lines[first], l);
		}
	}
	b->n_lines = k;
	kmap_free(&seen);
}

static void build_plane(struct finisher *f, struct plane_build *b, struct xp_plane *p, int64_t base_ns)
{
	merge_plane_lines(f->r, b);
	struct reader *r = f->r;
	/* the maps are all zero here: each plane resets the entries it used */
	f->n_em_list = f->n_sm_list = 0;
	p->name = p->base_name = b->name;
	p->kind = b->kind;
	p->device_ordinal = b->ordinal;
	p->id = b->ordinal >= 0 ? b->ordinal : b->has_id ? b->id : 0;
	struct line_order *lo = xcalloc(b->n_lines, sizeof *lo);
	sort_cap = r->cap;
	for (size_t i = 0; i < b->n_lines; i++) {
		const struct rline *l = &r->lines[b->lines[i]];
		struct line_order *o = &lo[i];
		o->line = b->lines[i];
		o->cls = line_class(l);
		struct key3 k = thread_key(l->pid, l->tid);
		uint32_t t = kmap_get(&r->tmeta_map, &k);
		o->key = o->cls ? 0 : (t != UINT32_MAX && r->tmetas[t].has_sort) ? r->tmetas[t].sort : l->tid.v;
		o->name = line_name(r, l, o->cls);
	}
	qsort(lo, b->n_lines, sizeof *lo, cmp_line_order);
	p->n_lines = (uint32_t)b->n_lines;
	p->lines = xcalloc(b->n_lines, sizeof *p->lines);
	int64_t max_tid = -1;
	for (size_t i = 0; i < b->n_lines; i++)
		if (lo[i].cls == 0 && r->lines[lo[i].line].tid.v > max_tid)
			max_tid = r->lines[lo[i].line].tid.v;
	/* derived lines take ids above every tid; past INT64_MAX they wrap (defined: unsigned) */
	uint64_t next_id = max_tid < ((int64_t)1 << 32) ? (uint64_t)1 << 32 : (uint64_t)max_tid + 1;
	for (size_t i = 0; i < b->n_lines; i++) {
		struct rline *rl = &r->lines[lo[i].line];
		struct xp_line *l = &p->lines[i];
		l->name = lo[i].name;
		l->id = lo[i].cls == 0 ? rl->tid.v : lo[i].cls == 4 ? DERIVED_MIN + 100 : (int64_t)next_id++;
		l->derived = lo[i].cls == 4 || xp_line_is_derived(l->id, xp_str(r->cap, l->name));
		build_line(f, rl, l, base_ns);
	}
	free(lo);
	if (p->kind == XP_PLANE_HOST_CPU)
		host_stats(f, p);
	device_stats(f, p, b);
	p->n_emeta = f->n_em_list + 1;
	p->emeta = xcalloc(p->n_emeta, sizeof *p->emeta);
	for (uint32_t i = 1; i < p->n_emeta; i++) {
		p->emeta[i].id = i;
		p->emeta[i].name = r->em_name[f->em_list[i]];
		p->emeta[i].display_name = r->em_disp[f->em_list[i]];
	}
	p->n_smeta = f->n_sm_list + 1;
	p->smeta = xcalloc(p->n_smeta, sizeof *p->smeta);
	for (uint32_t i = 1; i < p->n_smeta; i++) {
		p->smeta[i].id = i;
		p->smeta[i].name = r->sm_name[f->sm_list[i]];
		p->smeta[i].dropped = r->sm_drop[f->sm_list[i]] != 0;
	}
	for (uint32_t i = 1; i <= f->n_em_list; i++)
		f->em_map[f->em_list[i]] = 0;
	for (uint32_t i = 1; i <= f->n_sm_list; i++)
		f->sm_map[f->sm_list[i]] = 0;
}

/* The earliest start over all lines, relative to the first ts. */
static bool earliest(struct reader *r, int64_t *min)
{
	bool any = false;
	for (size_t i = 0; i < r->n_lines; i++)
		for (uint64_t k = 0; k < r->lines[i].n; k++)
			if (!any || r->lines[i].start[k] < *min) {
				*min = r->lines[i].start[k];
				any = true;
			}
	return any;
}

static int64_t floor_div(__int128 a, int64_t b)
{
	__int128 q = a / b;
	if ((a % b) && (a < 0))
		q--;
	return (int64_t)q;
}

static void finish(struct reader *r, struct xp_host *h)
{
	struct finisher f = {.r = r};
	int64_t min_rel = 0;
	int64_t base_ns = 0;
	if (earliest(r, &min_rel)) {
		__int128 base_ps = r->t0 + min_rel;
		base_ns = floor_div(base_ps, 1000);
		__int128 shift = (__int128)base_ns * 1000 - r->t0;
		f.shift = shift < INT64_MIN ? INT64_MIN : shift > INT64_MAX ? INT64_MAX : (int64_t)shift;
	}
	/* the names plane stats use, so that every stat name exists before planes are built */
	static const char *const plane_stat_names[] = {
		"gpu_device_name", "device_vendor", "core_count", "memory_size", "compute_cap_major",
		"compute_cap_minor", "rank", "world_size",
	};
	for (size_t i = 0; i < sizeof plane_stat_names / sizeof *plane_stat_names; i++)
		stat_named(r, plane_stat_names[i]);
	for (size_t i = 0; i < r->n_stacks; i++)
		r->counts.unmatched_begin += r->stacks[i].n; /* async begins left open count here too */
	assign_planes(&f);
	sort_cap = r->cap;
	qsort(f.pb, f.n_pb, sizeof *f.pb, cmp_plane);
	f.em_map = xcalloc(r->n_em + 1, sizeof *f.em_map);
	f.sm_map = xcalloc(r->n_sm + 1, sizeof *f.sm_map);
	f.em_list = xcalloc(r->n_em + 1, sizeof *f.em_list);
	f.sm_list = xcalloc(r->n_sm + 1, sizeof *f.sm_list);
	h->base_ns = base_ns;
	h->n_planes = (uint32_t)f.n_pb;
	h->planes = xcalloc(f.n_pb, sizeof *h->planes);
	for (size_t i = 0; i < f.n_pb; i++) {
		build_plane(&f, &f.pb[i], &h->planes[i], base_ns);
		free(f.pb[i].lines);
	}
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (xp_plane_stat_id(r->cap, &h->planes[i], "group_id"))
			h->pre_grouped = true;
	free(f.pb);
	free(f.em_map);
	free(f.sm_map);
	free(f.em_list);
	free(f.sm_list);
}

/* --- entry points -------------------------------------------------------------------------- */

static void reader_free(struct reader *r)
{
	for (size_t i = 0; i < r->n_lines; i++) {
		struct rline *l = &r->lines[i];
		free(l->start);
		free(l->dur);
		free(l->meta);
		free(l->sbeg);
		for (uint32_t b = 0; b < l->n_blocks; b++) {
			xp_stats_free(&l->blocks[b].stats);
			xp_blob_free(&l->blocks[b].blob);
		}
		free(l->blocks);
	}
	free(r->lines);
	for (size_t i = 0; i < r->n_stacks; i++)
		free(r->stacks[i].v);
	free(r->stacks);
	free(r->procs);
	free(r->tmetas);
	kmap_free(&r->proc_map);
	kmap_free(&r->tmeta_map);
	kmap_free(&r->line_map);
	kmap_free(&r->stack_map);
	kmap_free(&r->steps_seen);
	kmap_free(&r->em_map);
	free(r->em_name);
	free(r->em_disp);
	free(r->em_by_str);
	free(r->sm_name);
	free(r->sm_numkey);
	free(r->sm_drop);
	free(r->sm_by_str);
	free(r->args);
	for (int i = 0; i < 4; i++)
		free(r->scr[i].p);
	free(r->strings.e);
	cJSON_Delete(r->device_props);
	cJSON_Delete(r->dist_info);
	if (r->owned)
		free(r->buf);
	free(r->gather);
	if (r->map)
		munmap(r->map, r->map_len);
	xp_pull_close(r->src);
}

static int run(struct reader *r)
{
	r->comp = r->src ? xp_pull_compression(r->src) : XP_COMP_NONE;
	r->file_bytes = r->src ? xp_pull_file_bytes(r->src) : r->map ? r->map_len : r->len;
	int rc;
	if (!(r->pipelined && pipe_run(r, &rc))) {
		rc = read_document(r);
		r->decoded = r->off0 + r->len;
	}
	if (rc)
		return -1;
	struct xp_host *h = xp_capture_add_host(r->cap);
	h->path = strdup(r->path);
	h->name = xp_host_from_filename(r->path);
	h->format = XP_FMT_TRACE_JSON;
	h->compression = r->comp;
	h->file_bytes = r->file_bytes;
	h->decoded_bytes = r->decoded;
	if (r->has_host_name) {
		h->hostnames = xrealloc(NULL, sizeof *h->hostnames);
		h->hostnames[0] = r->host_name;
		h->n_hostnames = 1;
	}
	r->counts.truncated = r->counts.complete == 1000000 || r->counts.complete == 5000000;
	finish(r, h);
	h->odd = r->odd;
	h->json = r->counts;
	return 0;
}

static void reader_init(struct reader *r, struct xp_capture *c, const char *path, const struct xp_json_opts *o,
			struct xp_err *err)
{
	memset(r, 0, sizeof *r);
	r->cap = c;
	r->st = &c->strings;
	r->path = path ? path : "";
	r->err = err;
	r->pipelined = o && o->threads >= 2;
	r->win_init = o && o->window ? o->window : WIN_INIT;
	r->win_min = o && o->window ? (o->window / 4 ? o->window / 4 : 1) : WIN_MIN_READ;
	r->key_memo[0].type = r->key_memo[1].type = 0xff; /* matches no value */
	r->drop_stats = o ? o->drop_stats : NULL;
}

/* Plain text: map the file rather than copy it through a window (no read()
 * copies; pages are released behind the reader). False: keep the stream. */
static bool map_plain(struct reader *r)
{
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX &&
	    (uint64_t)st.st_size == xp_pull_file_bytes(r->src))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	xp_pull_close(r->src);
	r->src = NULL;
	r->map = map;
	r->map_len = (size_t)st.st_size;
	r->buf = map;
	r->len = r->map_len;
	r->eof = true;
	return true;
}

int xp_read_trace_json_file(struct xp_capture *c, const char *path, const struct xp_json_opts *o,
			    struct xp_err *err)
{
	struct reader r;
	reader_init(&r, c, path, o, err);
	bool threaded = o && o->threads >= 2;
	if (xp_pull_open(path, o ? o->max_bytes : 0, threaded, &r.src, err))
		return -1;
	/* A thread per stage while there are threads for them: decompressing takes one, so lexing
	 * gets its own from three on. On two cores a third thread only adds switching (a 1 GiB
	 * .gz: 1.5x the decompression alone with two threads, 1.7x with three). */
	if (r.pipelined && xp_pull_compression(r.src) != XP_COMP_NONE && o->threads < 3)
		r.pipelined = false;
	if (xp_pull_compression(r.src) == XP_COMP_NONE && map_plain(&r)) {
		int rc = run(&r);
		reader_free(&r);
		return rc;
	}
	if (!r.pipelined && xp_pull_can_lend(r.src)) {
		static uint8_t nothing[1];
		r.borrow = true;
		r.buf = nothing;
		int rc = run(&r);
		reader_free(&r);
		return rc;
	}
	r.owned = true;
	r.bufcap = r.win_init;
	r.buf = xrealloc(NULL, r.bufcap);
	int rc = run(&r);
	reader_free(&r);
	return rc;
}

int xp_read_trace_json_mem(struct xp_capture *c, const char *path, const uint8_t *data, size_t len,
			   const struct xp_json_opts *o, struct xp_err *err)
{
	struct reader r;
	reader_init(&r, c, path, o, err);
	if (xp_sniff(data, len) == XP_COMP_NONE && !(o && o->window)) {
		/* plain text in memory: the window is all of it */
		r.buf = (uint8_t *)(uintptr_t)data;
		r.len = len;
		r.eof = true;
	} else {
		/* compressed, or a test's small window: stream it */
		if (xp_pull_open_mem(path, data, len, o ? o->max_bytes : 0, &r.src, err))
			return -1;
		r.owned = true;
		r.bufcap = r.win_init;
		r.buf = xrealloc(NULL, r.bufcap);
	}
	int rc = run(&r);
	reader_free(&r);
	return rc;
}
