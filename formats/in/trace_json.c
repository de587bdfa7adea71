/* trace_json.c - streaming Chrome trace-event JSON reader: one event object at a time from a window over the (decompressed) text into the columnar model. */
#include "trace_json.h"
#include "input.h"
#include "trace_json_doc.h"
#include "trace_json_finish.h"
#include "trace_json_pipe.h"
#include "trace_json_stage.h"
#include "formats/core/xalloc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * The pieces: json_lex the lexer; trace_json_event one element;
 * trace_json_time exact times; trace_json_doc the window and the document;
 * trace_json_pipe the lexer thread; trace_json_map the mapping onto the
 * staging model (trace_json_state's types, trace_json_stage,
 * trace_json_values, trace_json_kmap); trace_json_finish planes and lines.
 */

#define WIN_INIT ((size_t)4 << 20)      /* window bytes at the start */
#define WIN_MIN_READ ((size_t)1 << 20)  /* grow the window when less room is left */

struct reader {
	struct tj_window w;     /* the lexing side */
	struct tj_stage s;      /* the committing side */
	bool pipelined;         /* lex on a thread of its own (--threads 2 or more) */
	uint64_t decoded;       /* bytes of text read */
};

static void reader_init(struct reader *r, struct xp_capture *c, const char *path, const struct xp_json_opts *o,
			struct xp_err *err)
{
	memset(&r->w, 0, sizeof r->w);
	tj_stage_init(&r->s, c, o ? o->drop_stats : NULL);
	r->w.lx.path = path ? path : "";
	r->w.lx.err = r->s.err = err;
	r->w.stage = &r->s;
	r->s.at = &r->w.lx;
	r->pipelined = o && o->threads >= 2;
	r->decoded = 0;
	r->w.win_init = o && o->window ? o->window : WIN_INIT;
	r->w.win_min = o && o->window ? (o->window / 4 ? o->window / 4 : 1) : WIN_MIN_READ;
}

static void reader_free(struct reader *r)
{
	tj_stage_free(&r->s);
	tj_window_free(&r->w);
}

bool xp_json_us_to_ps(const char *s, size_t len, __int128 *out)
{
	return tj_us_to_ps((const uint8_t *)s, len, out) == TM_OK;
}

static char *copy_str(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* One host of the document: its file, and its name (an xpstat export's, else the file's). The
 * file's sizes and the reading's counts go with the first host only, so that sums over hosts
 * count the file once. */
static void host_of_file(struct reader *r, struct xp_host *h, uint32_t k, enum xp_compression comp,
			 uint64_t file_bytes)
{
	struct tj_stage *s = &r->s;
	h->path = copy_str(r->w.lx.path);
	h->name = s->n_xpstat_hosts ? copy_str(s->xpstat_hosts[k]) : xp_host_from_filename(r->w.lx.path);
	h->format = XP_FMT_TRACE_JSON;
	h->compression = comp;
	if (k == 0) {
		h->file_bytes = file_bytes;
		h->decoded_bytes = r->decoded;
		h->odd = s->odd;
		h->json = s->counts;
	}
	if (s->has_host_name) {
		h->hostnames = xmalloc(sizeof *h->hostnames);
		h->hostnames[0] = s->host_name;
		h->n_hostnames = 1;
	}
}

/* The hosts the document makes (one, or each host of an xpstat export), then their planes. */
static void make_host(struct reader *r, enum xp_compression comp, uint64_t file_bytes)
{
	struct tj_stage *s = &r->s;
	uint32_t n = s->n_xpstat_hosts ? s->n_xpstat_hosts : 1, first = s->cap->n_hosts;
	s->counts.truncated = s->counts.complete == 1000000 || s->counts.complete == 5000000;
	for (uint32_t k = 0; k < n; k++)
		xp_capture_add_host(s->cap);
	tj_finish(s, &s->cap->hosts[first], n);
	for (uint32_t k = 0; k < n; k++)
		host_of_file(r, &s->cap->hosts[first + k], k, comp, file_bytes);
}

static int run(struct reader *r)
{
	struct tj_window *w = &r->w;
	enum xp_compression comp = w->src ? xp_pull_compression(w->src) : XP_COMP_NONE;
	uint64_t file_bytes = w->src ? xp_pull_file_bytes(w->src) : w->map ? w->map_len : w->len;
	int rc;
	if (!(r->pipelined && tj_pipe_run(w, &rc, &r->decoded))) {
		rc = tj_read_document(w);
		r->decoded = w->lx.off0 + w->len;
	}
	if (rc || tj_plane_stat_names(&r->s))
		return -1;
	make_host(r, comp, file_bytes);
	return 0;
}

/* Plain text: map the file rather than copy it through a window (no read()
 * copies; pages are released behind the reader). False: keep the stream. */
static bool map_plain(struct tj_window *w)
{
	int fd = open(w->lx.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX &&
	    (uint64_t)st.st_size == xp_pull_file_bytes(w->src))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	xp_pull_close(w->src);
	w->src = NULL;
	w->map = map;
	w->map_len = (size_t)st.st_size;
	w->buf = map;
	w->len = w->map_len;
	w->lx.eof = true;
	return true;
}

/* A window of our own over the stream. */
static void own_window(struct tj_window *w)
{
	w->owned = true;
	w->bufcap = w->win_init;
	w->buf = xmalloc(w->bufcap);
}

/* How the text reaches the lexer: mapped, lent by a threaded decoder, or copied into a window. */
static void choose_window(struct reader *r)
{
	static uint8_t nothing[1];
	struct tj_window *w = &r->w;
	if (xp_pull_compression(w->src) == XP_COMP_NONE && map_plain(w))
		return;
	if (!r->pipelined && xp_pull_can_lend(w->src)) {
		w->borrow = true;
		w->buf = nothing;
		return;
	}
	own_window(w);
}

int xp_read_trace_json_file(struct xp_capture *c, const char *path, const struct xp_json_opts *o,
			    struct xp_err *err)
{
	struct reader r;
	reader_init(&r, c, path, o, err);
	bool threaded = o && o->threads >= 2;
	if (xp_pull_open(path, o ? o->max_bytes : 0, threaded, &r.w.src, err))
		return -1;
	/* A thread per stage while there are threads for them: decompressing takes one, so lexing
	 * gets its own from three on. On two cores a third thread only adds switching (a 1 GiB
	 * .gz: 1.5x the decompression alone with two threads, 1.7x with three). */
	if (r.pipelined && xp_pull_compression(r.w.src) != XP_COMP_NONE && o->threads < 3)
		r.pipelined = false;
	choose_window(&r);
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
		r.w.buf = (uint8_t *)(uintptr_t)data;
		r.w.len = len;
		r.w.lx.eof = true;
	} else {
		/* compressed, or a test's small window: stream it */
		if (xp_pull_open_mem(path, data, len, o ? o->max_bytes : 0, &r.w.src, err)) {
			reader_free(&r);
			return -1;
		}
		own_window(&r.w);
	}
	int rc = run(&r);
	reader_free(&r);
	return rc;
}
