/* out_trace.h - Chrome Trace Event Format (what Perfetto and chrome://tracing read), written as a stream, gzip or zstd by name. */
#ifndef XPSTAT_OUT_TRACE_H
#define XPSTAT_OUT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Compression of a trace file, from its name: ".gz" gzip, ".zst" zstd, else none. */
enum xp_tw_comp { XP_TW_PLAIN = 0, XP_TW_GZIP, XP_TW_ZSTD };
enum xp_tw_comp xp_tw_comp_of(const char *path);

/* A stream that compresses into RAW (which it does not close): fclose it to write the end of
 * the compressed stream; NULL when out of memory. PLAIN returns RAW itself. */
FILE *xp_tw_compress(FILE *raw, enum xp_tw_comp comp);

/* The writer: one JSON object {"otherData":{...},"traceEvents":[...]} written event by event. */
struct xp_tw {
	FILE *f;
	bool first;             /* no element of traceEvents written yet */
	bool args_first;        /* no member of the current args object written yet */
	uint64_t n_events;      /* elements written, metadata included */
};

/* Exact decimal microseconds of PS picoseconds: no double on the way. */
void xp_tw_us(FILE *f, int64_t ps);
/* A JSON string of [s, s+n): escapes as JSON needs; bytes that are not UTF-8 become U+FFFD. */
void xp_tw_str(FILE *f, const char *s, size_t n);

/* The document's start: otherData's members are written by the caller between begin and
 * xp_tw_events (each with xp_tw_other_*). */
void xp_tw_begin(struct xp_tw *w, FILE *f);
void xp_tw_other_str(struct xp_tw *w, const char *key, const char *val);
void xp_tw_events(struct xp_tw *w);
/* The end of traceEvents and of the document; 0, or -1 on a write error. */
int xp_tw_end(struct xp_tw *w);

/* Metadata events (ph M). TID < 0 with has_tid false: a process one. */
void xp_tw_meta_name(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, const char *s,
		     size_t n);
void xp_tw_meta_sort(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, int64_t index);

/* A metadata event with args to come (xp_tw_arg_*), closed by xp_tw_close(w, true). */
void xp_tw_meta_open(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid);

/* An event: open, its args (optional), close. PH is 'X', 'C' or 'i'; DUR is written for 'X' only. */
void xp_tw_open(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps, const char *name,
		size_t nlen);
/* A further string member of the event (before its args): "cat". */
void xp_tw_field_str(struct xp_tw *w, const char *key, const char *s, size_t n);
void xp_tw_args(struct xp_tw *w);
void xp_tw_arg_key(struct xp_tw *w, const char *key, size_t klen);
void xp_tw_arg_str(struct xp_tw *w, const char *key, size_t klen, const char *s, size_t n);
/* Integers a double holds exactly are numbers; the others strings (exact, and safe for JavaScript). */
void xp_tw_arg_i64(struct xp_tw *w, const char *key, size_t klen, int64_t v);
void xp_tw_arg_u64(struct xp_tw *w, const char *key, size_t klen, uint64_t v);
/* Shortest text that reads back as V, with a fraction (a reader then keeps it a double); NaN and
 * infinities as strings. */
void xp_tw_arg_f64(struct xp_tw *w, const char *key, size_t klen, double v);
/* Bytes as "base64:..." text. */
void xp_tw_arg_bytes(struct xp_tw *w, const char *key, size_t klen, const uint8_t *p, size_t n);
void xp_tw_close(struct xp_tw *w, bool had_args);

/* A flow arrow (ph s, then f bound to the enclosing slice) with id ID. */
void xp_tw_flow(struct xp_tw *w, char ph, uint64_t id, int64_t pid, int64_t tid, int64_t ts_ps, const char *cat);

#endif
