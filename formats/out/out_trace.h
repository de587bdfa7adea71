/* out_trace.h - Chrome Trace Event Format (what Perfetto and chrome://tracing read), written as a stream through a large buffer. */
#ifndef XPSTAT_OUT_TRACE_H
#define XPSTAT_OUT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The writer: one JSON object {"otherData":{...},"traceEvents":[...]} written event by event into
 * its own buffer, handed to F in large writes (an export is several times its capture: stdio's
 * small writes and per-call locking were most of its time). */
struct xp_tw {
	FILE *f;
	char *buf;              /* XP_TW_BUF bytes */
	size_t n;               /* bytes of buf in use */
	bool failed;            /* a write to F failed */
	bool first;             /* no element of traceEvents written yet */
	bool args_first;        /* no member of the current args object written yet */
	uint64_t n_events;      /* elements written, metadata included */
};

/* Room for this many escaped bytes of a string: each byte becomes at most 6 ("\u001f", "\ufffd"),
 * plus the quotes. */
#define XP_TW_ESCAPED_MAX(n) (6 * (size_t)(n) + 2)

/* [s, s+n) as a JSON string (quotes included) into OUT, which has XP_TW_ESCAPED_MAX(n) bytes:
 * escapes as JSON needs; bytes that are not UTF-8 become U+FFFD. Returns the bytes written. */
size_t xp_tw_escape(char *out, const char *s, size_t n);

/* The document's start: otherData's members are written by the caller between begin and
 * xp_tw_events (each with xp_tw_other_*). */
void xp_tw_begin(struct xp_tw *w, FILE *f);
void xp_tw_other_str(struct xp_tw *w, const char *key, const char *val);
void xp_tw_events(struct xp_tw *w);
/* The end of traceEvents and of the document, written out (the buffer freed); 0, or -1 on a
 * write error. */
int xp_tw_end(struct xp_tw *w);

/* Bytes as they are (text the caller escaped already). */
void xp_tw_raw(struct xp_tw *w, const char *s, size_t n);
/* The same for text whose buffer may be read for XP_TW_PAD bytes from S on, whatever N: a short one is
 * copied in one fixed-size move. */
#define XP_TW_PAD 32
void xp_tw_raw_padded(struct xp_tw *w, const char *s, size_t n);

/* Metadata events (ph M). TID < 0 with has_tid false: a process one. */
void xp_tw_meta_name(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, const char *s,
		     size_t n);
void xp_tw_meta_sort(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid, int64_t index);

/* A metadata event with args to come (xp_tw_arg_*), closed by xp_tw_close(w, true). */
void xp_tw_meta_open(struct xp_tw *w, const char *what, int64_t pid, bool has_tid, int64_t tid);

/* An event: open, its args (optional), close. PH is 'X', 'C' or 'i'; DUR is written for 'X' only. */
void xp_tw_open(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps, const char *name,
		size_t nlen);
/* The same with its name escaped by the caller (xp_tw_escape: quotes included). */
void xp_tw_open_q(struct xp_tw *w, char ph, int64_t pid, int64_t tid, int64_t ts_ps, int64_t dur_ps, const char *qname,
		  size_t qlen);
/* The same for an X event of a thread whose head HEAD ({"ph":"X","pid":P,"tid":T,"ts": as
 * xp_tw_x_head writes it, in its XP_TW_HEAD_MAX bytes) and whose name QNAME (escaped, quotes included,
 * readable for XP_TW_PAD bytes) the caller keeps. */
void xp_tw_open_x(struct xp_tw *w, const char *head, size_t hlen, int64_t ts_ps, int64_t dur_ps, const char *qname,
		  size_t qlen);
/* HEAD for xp_tw_open_x into BUF (XP_TW_HEAD_MAX bytes); its length. */
#define XP_TW_HEAD_MAX 80
size_t xp_tw_x_head(char *buf, int64_t pid, int64_t tid);
/* A further string member of the event (before its args): "cat". */
void xp_tw_field_str(struct xp_tw *w, const char *key, const char *s, size_t n);
void xp_tw_args(struct xp_tw *w);
void xp_tw_arg_key(struct xp_tw *w, const char *key, size_t klen);
/* The separator before an arg whose key the caller writes (escaped, with xp_tw_raw, then ':'). */
void xp_tw_arg_next(struct xp_tw *w);
/* A key the caller escaped (QKEY: xp_tw_escape's text, quotes included, readable for XP_TW_PAD bytes). */
void xp_tw_arg_qkey(struct xp_tw *w, const char *qkey, size_t qlen);
void xp_tw_arg_str(struct xp_tw *w, const char *key, size_t klen, const char *s, size_t n);
/* Integers a double holds exactly are numbers; the others strings (exact, and safe for JavaScript). */
void xp_tw_arg_i64(struct xp_tw *w, const char *key, size_t klen, int64_t v);
void xp_tw_arg_u64(struct xp_tw *w, const char *key, size_t klen, uint64_t v);
/* Shortest text that reads back as V, with a fraction (a reader then keeps it a double); NaN and
 * infinities as strings. */
void xp_tw_arg_f64(struct xp_tw *w, const char *key, size_t klen, double v);
/* Bytes as "base64:..." text. */
void xp_tw_arg_bytes(struct xp_tw *w, const char *key, size_t klen, const uint8_t *p, size_t n);
/* The values alone, after xp_tw_arg_key or xp_tw_arg_qkey. */
void xp_tw_val_str(struct xp_tw *w, const char *s, size_t n);
void xp_tw_val_i64(struct xp_tw *w, int64_t v);
void xp_tw_val_u64(struct xp_tw *w, uint64_t v);
void xp_tw_val_f64(struct xp_tw *w, double v);
void xp_tw_val_bytes(struct xp_tw *w, const uint8_t *p, size_t n);
void xp_tw_close(struct xp_tw *w, bool had_args);

/* A flow arrow (ph s, then f bound to the enclosing slice) with id ID. */
void xp_tw_flow(struct xp_tw *w, char ph, uint64_t id, int64_t pid, int64_t tid, int64_t ts_ps, const char *cat);

#endif
