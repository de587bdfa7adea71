/* trace_json_doc.c - the trace JSON document walked through a window over the text: refills, the top-level object, traceEvents one element at a time. */
#include "trace_json_doc.h"
#include "trace_json_map.h"
#include "trace_json_values.h"
#include "formats/core/work.h"
#include "formats/core/xalloc.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* --- the window ------------------------------------------------------------------------- */

/* Room for n bytes in the reader's own gather buffer, keeping its first `keep` bytes. */
static void gather_room(struct tj_window *w, size_t keep, size_t n)
{
	if (w->gather_cap >= n)
		return;
	size_t cap = w->gather_cap ? w->gather_cap : w->win_init;
	while (cap < n)
		cap *= 2;
	uint8_t *g = xrealloc(NULL, cap);
	memcpy(g, w->gather, keep);
	free(w->gather);
	w->gather = g;
	w->gather_cap = cap;
}

/* The unread rest of the window, left bytes, at the start of the gather buffer. */
static void gather_start(struct tj_window *w, size_t left)
{
	if (w->buf == w->gather) {
		memmove(w->gather, w->buf + w->pos, left);
		return;
	}
	uint8_t *g = xmalloc(left ? left : 1);
	memcpy(g, w->buf + w->pos, left);
	free(w->gather);
	w->gather = g;
	w->gather_cap = left;
}

/* A decoding fault after some new text: that text is lexed first (its errors come first);
 * the fault repeats at the next pull. */
static void fault_later(struct tj_window *w)
{
	if (w->lx.err)
		memset(w->lx.err, 0, sizeof *w->lx.err);
}

/* Pieces after the rest (left bytes) in the gather buffer until the new text is at least as
 * long as the rest, the first (k bytes) already lent; the new bytes. */
static size_t gather_pieces(struct tj_window *w, size_t left, uint8_t *piece, int64_t k)
{
	size_t got = 0, room;
	for (;;) {
		gather_room(w, left + got, left + got + (size_t)k);
		memcpy(w->gather + left + got, piece, (size_t)k);
		got += (size_t)k;
		xp_pull_return(w->src, 0);
		if (got >= left)
			break;
		k = xp_pull_lend(w->src, &piece, &room, w->lx.err);
		if (k < 0) {
			fault_later(w);
			break;
		}
		if (k == 0) {
			w->lx.eof = true;
			break;
		}
	}
	return got;
}

/* The next piece of a threaded decoder as the window, in place: the unread
 * rest of the window -- part of one element -- is copied into the room in
 * front of it. An element longer than the room, or than the piece, gathers
 * in a buffer of the reader's own, which takes pieces until the new text is
 * at least as long as the rest: the rest is lexed again from its start, so
 * the text lexed again must at least double each time for the total to stay
 * within twice the input. */
static int win_borrow(struct tj_window *w)
{
	uint8_t *piece;
	size_t room, left = w->len - w->pos, got;
	int64_t k = xp_pull_lend(w->src, &piece, &room, w->lx.err);
	if (k <= 0) {
		w->lx.eof = k == 0;
		return k < 0 ? -1 : 0;
	}
	w->lx.off0 += w->pos;
	if (left <= room && (size_t)k >= left) {
		memcpy(piece - left, w->buf + w->pos, left);
		w->buf = piece - left;
		xp_pull_return(w->src, 1);
		got = (size_t)k;
	} else {
		gather_start(w, left);
		got = gather_pieces(w, left, piece, k);
		w->buf = w->gather;
	}
	xp_work_add(XP_WORK_JSON_LEX, got);
	w->len = left + got;
	w->pos = 0;
	return 0;
}

/* The unread rest to the front of the window, and room after it for at least as much as it
 * keeps (and win_min). */
static void win_compact(struct tj_window *w)
{
	if (w->pos) {
		memmove(w->buf, w->buf + w->pos, w->len - w->pos);
		w->lx.off0 += w->pos;
		w->len -= w->pos;
		w->pos = 0;
	}
	size_t want = w->len > w->win_min ? w->len : w->win_min;
	if (w->bufcap - w->len < want) {
		w->bufcap = w->bufcap * 2 > w->len + want ? w->bufcap * 2 : w->len + want;
		w->buf = xrealloc(w->buf, w->bufcap);
	}
}

/* Read until as many new bytes as the window kept (at least one) are in. */
static int win_read(struct tj_window *w)
{
	size_t got = 0, need = w->len ? w->len : 1;
	while (got < need) {
		int64_t k = xp_pull_read(w->src, w->buf + w->len, w->bufcap - w->len, w->lx.err);
		if (k < 0 && got) {
			fault_later(w);
			break;
		}
		if (k < 0)
			return -1;
		if (k == 0) {
			w->lx.eof = true;
			break;
		}
		w->len += (size_t)k;
		got += (size_t)k;
	}
	xp_work_add(XP_WORK_JSON_LEX, got);
	return 0;
}

/* The kept text (part of one element) is lexed again from its start, so at least as many new
 * bytes are pulled as are kept: the text lexed again doubles each time and the total stays
 * within twice the input, however small the decoder's pieces. */
int tj_win_more(struct tj_window *w)
{
	if (w->lx.eof)
		return 0;
	xp_work_add(XP_WORK_JSON_LEX, w->len - w->pos);
	if (w->borrow)
		return win_borrow(w);
	if (w->hand && w->hand->seal(w))
		return -1;
	win_compact(w);
	if (w->hand)
		w->hand->follow(w);
	return win_read(w);
}

/* Mapped pages already read are file-backed and read-only: given back, RSS stays at the
 * window, not the file. */
void tj_release_mapped(struct tj_window *w)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)w->map + w->released + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)w->map + w->pos) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
	w->released = w->pos;
}

void tj_window_free(struct tj_window *w)
{
	free(w->args.v);
	free(w->key);
	if (w->owned)
		free(w->buf);
	free(w->gather);
	if (w->map)
		munmap(w->map, w->map_len);
	xp_pull_close(w->src);
}

/* --- traceEvents ------------------------------------------------------------------------ */

/* One element lexed and handed on; J_MORE when the window ends inside it. */
static int element(struct tj_window *w, const uint8_t **pp)
{
	struct ev e;
	int rc = tj_lex_event(&w->lx, pp, &w->args, &e);
	if (rc)
		return rc;
	if (w->hand)
		w->hand->event(w, &e);
	else if (tj_commit(w->stage, &e))
		return J_ERR;
	return J_OK;
}

/* After an element: seal a batch for the committer, or give back the mapped pages read. */
static int element_done(struct tj_window *w)
{
	if (w->hand)
		return w->hand->due(w) && w->hand->seal(w) ? -1 : 0;
	if (w->map && w->pos - w->released >= ((size_t)8 << 20))
		tj_release_mapped(w);
	return 0;
}

/* Elements of a traceEvents array; w->pos just after its '['. */
static int stream_events(struct tj_window *w)
{
	enum { FIRST, NEXT, SEP } st = FIRST;
	w->saw_events = true;
	for (;;) {
		tj_win_sync(w);
		const uint8_t *p = w->buf + w->pos;
		int rc = jl_skip_ws(&w->lx, &p);
		if (rc == J_MORE)
			w->pos = (size_t)(p - w->buf); /* the blanks are behind us: not lexed again */
		if (rc == J_OK && st != NEXT && *p == ']') {
			w->pos = (size_t)(p + 1 - w->buf);
			return 0;
		}
		if (rc == J_OK && st == SEP) {
			if (*p == ',') {
				st = NEXT;
				w->pos = (size_t)(p + 1 - w->buf);
				continue;
			}
			rc = jl_err(&w->lx, p, "expected ',' or ']' after a traceEvents element");
		} else if (rc == J_OK && (rc = element(w, &p)) == J_OK) {
			w->pos = (size_t)(p - w->buf);
			st = SEP;
			if (element_done(w))
				return -1;
			continue;
		}
		if (rc == J_ERR || tj_win_more(w))
			return -1;
	}
}

/* --- the document ----------------------------------------------------------------------- */

enum docstate { T_START, T_OBJ_FIRST, T_OBJ_KEY, T_OBJ_SEP, T_END };

/* A step's outcome besides J_OK (go on), J_MORE and J_ERR: the document has been read. */
enum { T_DONE = 2 };

/* Past a UTF-8 byte order mark at the very start; J_MORE until there are 3 bytes to tell. */
static int skip_bom(struct tj_window *w, const uint8_t **pp)
{
	size_t k = w->len < 3 ? w->len : 3;
	if (w->lx.off0 || w->pos || memcmp(w->buf, "\xef\xbb\xbf", k))
		return J_OK;
	if (k < 3 && !w->lx.eof)
		return J_MORE;
	if (k == 3)
		*pp += 3;
	return J_OK;
}

/* '{' or '[' at p, the first byte of the document. */
static int doc_start(struct tj_window *w, const uint8_t *p, enum docstate *st)
{
	if (*p == '[') {
		w->pos = (size_t)(p + 1 - w->buf);
		if (stream_events(w))
			return J_ERR;
		*st = T_END;
		return J_OK;
	}
	if (*p != '{')
		return jl_err(&w->lx, p, "not a trace: expected '{' or '[' at the start");
	w->pos = (size_t)(p + 1 - w->buf);
	*st = T_OBJ_FIRST;
	return J_OK;
}

/* A top-level key's text, unescaped when it has escapes. */
static const uint8_t *key_text(struct tj_window *w, const struct jstr *k, size_t *n)
{
	if (!k->esc) {
		*n = k->len;
		return k->p;
	}
	if (k->len + 1 > w->key_cap) {
		w->key_cap = k->len + 1 > 256 ? k->len + 1 : 256;
		w->key = xrealloc(w->key, w->key_cap);
	}
	*n = jl_unescape(k->p, k->len, w->key, NULL);
	return w->key;
}

/* One member of the top-level object; p at its key. traceEvents streams, the rest is lexed
 * whole and kept when it is one we use. */
static int doc_member(struct tj_window *w, const uint8_t *p, enum docstate *st)
{
	struct jstr k;
	struct jval v;
	int rc;
	if (*p != '"')
		return jl_err(&w->lx, p, "expected a string key in the top-level object");
	if ((rc = jl_member_key(&w->lx, &p, &k)))
		return rc;
	size_t kn;
	const uint8_t *kp = key_text(w, &k, &kn);
	if (bytes_eq(kp, kn, "traceEvents")) {
		if (*p != '[')
			return jl_err(&w->lx, p, "traceEvents is not an array");
		w->pos = (size_t)(p + 1 - w->buf);
		if (stream_events(w))
			return J_ERR;
	} else {
		if ((rc = jl_value(&w->lx, &p, 1, &v)))
			return rc;
		if (w->hand)
			w->hand->top(w, kp, kn, &v);
		else
			tj_top_value(w->stage, kp, kn, &v);
		w->pos = (size_t)(p - w->buf);
	}
	*st = T_OBJ_SEP;
	return J_OK;
}

/* After a top-level member: ',' or the object's end. */
static int doc_sep(struct tj_window *w, const uint8_t *p, enum docstate *st)
{
	if (*p != ',' && *p != '}')
		return jl_err(&w->lx, p, "expected ',' or '}' in the top-level object");
	*st = *p == ',' ? T_OBJ_KEY : T_END;
	w->pos = (size_t)(p + 1 - w->buf);
	return J_OK;
}

/* Only whitespace may follow the document. */
static int doc_end(struct tj_window *w, const uint8_t *p)
{
	while (p < w->lx.end && jl_is_ws(*p))
		p++;
	if (p < w->lx.end)
		return jl_err(&w->lx, p, "trailing data after the JSON document");
	w->pos = (size_t)(p - w->buf);
	if (!w->lx.eof)
		return J_MORE;
	if (!w->saw_events)
		return xp_err_set(w->lx.err, XP_EXIT_BAD_INPUT, w->lx.path,
				  "not a trace: the JSON object has no traceEvents array");
	return T_DONE;
}

/* One step of the document from w->pos. */
static int doc_step(struct tj_window *w, enum docstate *st)
{
	const uint8_t *p = w->buf + w->pos;
	int rc;
	if (*st == T_END)
		return doc_end(w, p);
	if (*st == T_START && (rc = skip_bom(w, &p)))
		return rc;
	if ((rc = jl_skip_ws(&w->lx, &p))) {
		if (rc == J_MORE)
			w->pos = (size_t)(p - w->buf); /* the blanks are behind us: not lexed again */
		return rc;
	}
	switch (*st) {
	case T_START:
		return doc_start(w, p, st);
	case T_OBJ_FIRST:
		if (*p == '}')
			w->pos = (size_t)(p + 1 - w->buf);
		*st = *p == '}' ? T_END : T_OBJ_KEY;
		return J_OK;
	case T_OBJ_KEY:
		return doc_member(w, p, st);
	default:
		return doc_sep(w, p, st);
	}
}

int tj_read_document(struct tj_window *w)
{
	enum docstate st = T_START;
	for (;;) {
		tj_win_sync(w);
		int rc = doc_step(w, &st);
		if (rc == T_DONE)
			return 0;
		if (rc == J_ERR)
			return -1;
		if (rc == J_MORE && tj_win_more(w))
			return -1;
	}
}
