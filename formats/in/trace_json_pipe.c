/* trace_json_pipe.c - the lexer thread: elements lexed ahead into batches that the caller's thread commits in order. */
#include "trace_json_pipe.h"
#include "trace_json_map.h"
#include "trace_json_values.h"
#include "formats/core/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

/*
 * The lexer fills a batch: lexed elements (struct ev, args copied) whose spans
 * point into the batch's text. A batch is sealed -- handed to the committing
 * thread, never to move again -- when the window must be refilled (the
 * unread rest goes to a new batch's text) or, when all the text is in memory
 * (a mapped file), every window's worth of bytes. At most PIPE_DEPTH batches wait; the last one carries
 * the lexer's verdict. When the committer fails it cancels, and the lexer
 * stops at its next hand-over. With gzip or zstd a third thread decompresses
 * ahead of both (the pull reader).
 */

#define PIPE_DEPTH 3

enum item_kind { IT_EVENT = 0, IT_DEVICE_PROPS, IT_DIST_INFO, IT_HOST_NAME, IT_OTHER_DATA };

static const char *const top_keys[] = {"", "deviceProperties", "distributedInfo", "host_name", "otherData"};

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

struct tj_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch *head, *tail;
	unsigned depth;
	bool cancel;
	const uint8_t *whole;   /* all the text is in memory (a mapped file, a buffer): batches point into it */
	size_t mark;            /* whole text: where the batch being filled starts */
	struct batch *spare;    /* committed batches, kept for reuse: their memory is already touched */
	struct batch *cur;      /* the lexer's, being filled */
	struct xp_err lex_err;
};

/* --- batches ------------------------------------------------------------------------------ */

static void batch_reset(struct batch *b)
{
	b->next = NULL;
	b->n = b->na = 0;
	b->off0 = b->done = b->decoded = 0;
	b->last = false;
	b->status = 0;
}

/* A batch to fill: a spare one, or a new one; with room for textcap bytes unless the text is whole. */
static struct batch *batch_new(struct tj_pipe *q, size_t textcap)
{
	pthread_mutex_lock(&q->mu);
	struct batch *b = q->spare;
	if (b)
		q->spare = b->next;
	pthread_mutex_unlock(&q->mu);
	if (b)
		batch_reset(b);
	else
		b = xcalloc(1, sizeof *b);
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
static void batch_recycle(struct tj_pipe *q, struct batch *b)
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

static void batch_list_free(struct batch *b)
{
	while (b) {
		struct batch *next = b->next;
		batch_free(b);
		b = next;
	}
}

/* Hand a batch to the committer; -1 when it gave up. */
static int pipe_put(struct tj_pipe *q, struct batch *b)
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

static struct batch *pipe_get(struct tj_pipe *q)
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

/* --- the lexer's side ---------------------------------------------------------------------- */

/* Seal the batch being filled when it holds anything; the window moves to a
 * new batch (with the unread rest of the text, when the text is owned). */
static int pipe_seal(struct tj_window *w)
{
	struct tj_pipe *q = w->pipe;
	struct batch *b = q->cur;
	if (!b->n)
		return 0;
	struct batch *nb;
	if (q->whole) {
		b->done = q->mark = w->pos;
		nb = batch_new(q, 0);
	} else {
		/* the unread rest moves to the new batch's text, and the window with it */
		size_t rest = w->len - w->pos;
		size_t cap = rest + w->win_min > w->win_init ? rest + w->win_min : w->win_init;
		nb = batch_new(q, cap);
		memcpy(nb->text, w->buf + w->pos, rest);
		nb->off0 = w->lx.off0 + w->pos;
		w->buf = nb->text;
		w->bufcap = nb->textcap;
		w->len = rest;
		w->lx.off0 = nb->off0;
		w->pos = 0;
	}
	q->cur = nb;
	return pipe_put(q, b);
}

/* The batch being filled (still empty: nothing points into it) follows its window as it moves. */
static void pipe_follow(struct tj_window *w)
{
	struct batch *b = w->pipe->cur;
	b->text = w->buf;
	b->textcap = w->bufcap;
	b->base = w->buf;
	b->off0 = w->lx.off0;
}

/* All the text is in memory: seal every window's worth of it. */
static bool pipe_due(const struct tj_window *w)
{
	return w->pipe->whole && w->pos - w->pipe->mark >= w->win_init;
}

static struct item *pipe_item(struct tj_window *w, uint8_t kind)
{
	struct batch *b = w->pipe->cur;
	GROW(b->items, b->n, b->cap);
	struct item *it = &b->items[b->n++];
	it->kind = kind;
	it->a0 = b->na;
	return it;
}

static void pipe_event(struct tj_window *w, const struct ev *e)
{
	struct batch *b = w->pipe->cur;
	if (b->na + e->na > b->cap_args) {
		while (b->na + e->na > b->cap_args)
			b->cap_args = b->cap_args ? b->cap_args * 2 : 1024;
		b->args = xrealloc(b->args, b->cap_args * sizeof *b->args);
	}
	if (e->na)
		memcpy(b->args + b->na, e->av, e->na * sizeof *b->args);
	struct item *it = pipe_item(w, IT_EVENT);
	it->e = *e;
	b->na += e->na;
}

/* The top-level values the committer uses; the rest is only validated. */
static void pipe_top(struct tj_window *w, const uint8_t *k, size_t kn, const struct jval *v)
{
	for (uint8_t kind = IT_DEVICE_PROPS; kind <= IT_OTHER_DATA; kind++)
		if (bytes_eq(k, kn, top_keys[kind])) {
			pipe_item(w, kind)->e.args = *v;
			return;
		}
}

static const struct tj_handoff handoff = {
	.event = pipe_event,
	.top = pipe_top,
	.seal = pipe_seal,
	.follow = pipe_follow,
	.due = pipe_due,
};

static void *lexer_main(void *arg)
{
	struct tj_window *lw = arg;
	struct tj_pipe *q = lw->pipe;
	int rc = tj_read_document(lw);
	struct batch *b = q->cur;
	q->cur = NULL;
	b->last = true;
	b->status = rc;
	b->err = q->lex_err;
	b->done = lw->pos;
	b->decoded = lw->lx.off0 + lw->len;
	pipe_put(q, b);
	return NULL;
}

/* --- the committer's side ------------------------------------------------------------------- */

/* A batch's items into the stage; its text is the committer's view for error offsets. */
static int commit_batch(struct tj_window *w, struct batch *b, struct jlex *view)
{
	int rc = 0;
	view->base = b->base;
	view->off0 = b->off0;
	for (size_t i = 0; i < b->n && !rc; i++) {
		struct item *it = &b->items[i];
		if (it->kind == IT_EVENT) {
			it->e.av = b->args ? b->args + it->a0 : NULL;
			rc = tj_commit(w->stage, &it->e);
		} else {
			const char *k = top_keys[it->kind];
			tj_top_value(w->stage, (const uint8_t *)k, strlen(k), &it->e.args);
		}
	}
	if (!rc && w->map && b->done) {
		w->pos = b->done;
		tj_release_mapped(w);
	}
	return rc;
}

/* The committer: batches in order; the lexer's error after everything before it. */
static int pipe_commit(struct tj_window *w, struct tj_pipe *q, uint64_t *decoded)
{
	struct jlex view = w->lx;
	const struct jlex *was = w->stage->at;
	w->stage->at = &view;
	for (;;) {
		struct batch *b = pipe_get(q);
		int rc = commit_batch(w, b, &view);
		bool last = b->last;
		if (!rc && last && b->status) {
			if (w->lx.err && !w->lx.err->status)
				*w->lx.err = b->err;
			rc = -1;
		}
		if (last)
			*decoded = b->decoded;
		batch_recycle(q, b);
		if (rc || last) {
			w->stage->at = was;
			return rc;
		}
	}
}

/* The lexer's window: the stream, or all the text in memory, taken over from w. */
static struct tj_window *lexer_window(struct tj_window *w, struct tj_pipe *q)
{
	struct tj_window *lw = xcalloc(1, sizeof *lw);
	lw->lx.path = w->lx.path;
	lw->lx.err = &q->lex_err;
	lw->pipe = q;
	lw->hand = &handoff;
	lw->win_init = w->win_init;
	lw->win_min = w->win_min;
	lw->src = w->src;
	if (!w->src) {
		q->whole = w->buf;
		lw->buf = w->buf;
		lw->len = w->len;
		lw->lx.eof = true;
	}
	q->cur = batch_new(q, lw->win_init);
	if (!q->whole) {
		lw->buf = q->cur->text;
		lw->bufcap = q->cur->textcap;
	}
	return lw;
}

/* After the lexer stopped: every batch, and what the lexer allocated for lexing. */
static void pipe_free(struct tj_pipe *q, struct tj_window *lw)
{
	batch_list_free(q->head);
	batch_list_free(q->spare);
	if (q->cur)
		batch_free(q->cur);
	free(lw->args.v);
	free(lw->key);
	free(lw);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
}

static void pipe_cancel(struct tj_pipe *q)
{
	pthread_mutex_lock(&q->mu);
	q->cancel = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

bool tj_pipe_run(struct tj_window *w, int *rc, uint64_t *decoded)
{
	struct tj_pipe q;
	memset(&q, 0, sizeof q);
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	struct tj_window *lw = lexer_window(w, &q);
	pthread_t th;
	if (pthread_create(&th, NULL, lexer_main, lw) != 0) {
		pipe_free(&q, lw);
		return false;
	}
	if (w->owned) {
		free(w->buf); /* batches hold the text from now on */
		w->buf = NULL;
		w->owned = false;
	}
	*rc = pipe_commit(w, &q, decoded);
	if (*rc)
		pipe_cancel(&q);
	pthread_join(th, NULL);
	pipe_free(&q, lw);
	w->buf = (uint8_t *)(uintptr_t)q.whole; /* NULL when the batches owned the text */
	return true;
}
