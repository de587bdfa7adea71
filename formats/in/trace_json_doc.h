/* trace_json_doc.h - the lexing side of the trace JSON reader: a window over the text and the document walked through it. */
#ifndef XPSTAT_TRACE_JSON_DOC_H
#define XPSTAT_TRACE_JSON_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "json_lex.h"
#include "trace_json_event.h"

struct tj_window;
struct tj_stage;
struct tj_pipe;

/* What the lexer thread does with what the walker lexed (trace_json_pipe.c). Without one,
 * each element is committed into the stage as soon as it is lexed. */
struct tj_handoff {
	void (*event)(struct tj_window *w, const struct ev *e);
	void (*top)(struct tj_window *w, const uint8_t *k, size_t kn, const struct jval *v);
	int (*seal)(struct tj_window *w);       /* the window is about to move: hand off what points into it */
	void (*follow)(struct tj_window *w);    /* it was reallocated */
	bool (*due)(const struct tj_window *w); /* after an element: seal now */
};

/* A window over the decompressed text: stream bytes [lx.off0, lx.off0 + len) are buf[0, len).
 * It holds the text from the current element on, and grows only when one element is bigger. */
struct tj_window {
	struct jlex lx;         /* what the lexer sees: base and end follow buf and len */
	uint8_t *buf;
	size_t len, bufcap, pos;
	bool owned;             /* buf is ours to free */
	struct xp_pull *src;    /* the stream; NULL when all the text is in memory */
	bool borrow;            /* the window is in the decoder's pieces (xp_pull_lend), not copied */
	uint8_t *gather;        /* borrowing: the reader's own window, for an element longer than the room */
	size_t gather_cap;
	void *map;              /* a plain file, mapped: the window is all of it */
	size_t map_len, released;
	size_t win_init, win_min; /* window size at the start, least room to read into */
	struct tj_args args;    /* the members of the element's args */
	uint8_t *key;           /* a top-level key, unescaped */
	size_t key_cap;
	bool saw_events;
	const struct tj_handoff *hand; /* on the lexer thread */
	struct tj_pipe *pipe;   /* the hand-off's state */
	struct tj_stage *stage; /* one thread: where elements are committed */
};

/* The lexer's view after buf or len moved. */
static inline void tj_win_sync(struct tj_window *w)
{
	w->lx.base = w->buf;
	w->lx.end = w->buf + w->len;
}

/* Keep buf[pos, len), pull more text after it; at the end of the stream set eof. -1 with the error set. */
int tj_win_more(struct tj_window *w);
/* Give back the mapped pages already read (up to pos). */
void tj_release_mapped(struct tj_window *w);
/* What the window owns: its buffers, the mapping, the stream. */
void tj_window_free(struct tj_window *w);
/* The whole document. -1 with the error set. */
int tj_read_document(struct tj_window *w);

#endif
