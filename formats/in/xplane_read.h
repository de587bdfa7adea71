/* xplane_read.h - decoding an XSpace protobuf (*.xplane.pb) into the capture model. */
#ifndef XPSTAT_XPLANE_READ_H
#define XPSTAT_XPLANE_READ_H

#include <stdint.h>

#include "formats/model/capture.h"
#include "formats/core/xperr.h"

struct xp_read_opts {
	int threads;            /* decode threads (>= 1) */
	bool release_pages;     /* madvise(DONTNEED) decoded ranges of a file mapping */
	/* Names of stats whose event values are not kept (NULL-terminated, or
	 * NULL for none): the command never reads them. Their metadata stays,
	 * marked dropped; metadata and plane stats are always kept. */
	const char *const *drop_stats;
	/* xp_xspace_stream_open: note the span of times of each run of events, so that xp_xspace_stream_line_in
	 * skips the runs outside its window unread (the walk of the headers then reads every event's times). */
	bool stream_spans;
	/* Decode the events of device planes (GPU, TPU, other devices) only: every other plane keeps its lines,
	 * their names and times, with no events. Their framing is still checked; what lies inside their events
	 * is not read (a command that reads device events alone: kernel-stats). */
	bool device_events_only;
};

/* Decode one XSpace held in data[0..len) as a new host of c.
 * On broken structure: returns -1 with err set (status 3, byte offset). */
int xp_read_xspace(struct xp_capture *c, const char *path, const uint8_t *data, uint64_t len,
		   const struct xp_read_opts *o, struct xp_err *err);

/*
 * Streamed reading (the trace export): xp_xspace_stream_open reads the host, its planes, metadata and
 * lines (names, ids, timestamps, event counts) as a new host of C, without their events; each line's
 * events are then decoded when asked for, the same values xp_read_xspace gives, on one thread, so that
 * a reader that releases each line once used (xp_line_release) holds one line's events at a time. The
 * stream takes BUF (the file's bytes) and holds it until closed. On broken structure: -1 with ERR set,
 * no stream.
 */
struct xp_buf;
struct xp_xspace_stream;
int xp_xspace_stream_open(struct xp_capture *c, const char *path, struct xp_buf *buf, const struct xp_read_opts *o,
			  struct xp_xspace_stream **out, struct xp_err *err);
/* Is H (wherever the host array has moved it) the stream's host? */
bool xp_xspace_stream_is_for(const struct xp_xspace_stream *s, const struct xp_host *h);
/* Decode the events of line L of host H; 0, also when L is not the stream's or was decoded already (once
 * only: a reader releases it when done). -1 with ERR set on broken structure. */
int xp_xspace_stream_line(struct xp_xspace_stream *s, struct xp_host *h, struct xp_line *l, struct xp_err *err);
/* The same keeping only the events that overlap [LO, HI) in host time (an instant one: LO <= start < HI);
 * the others are skipped, only their times read. */
int xp_xspace_stream_line_in(struct xp_xspace_stream *s, struct xp_host *h, struct xp_line *l, int64_t lo, int64_t hi,
			     struct xp_err *err);
void xp_xspace_stream_close(struct xp_xspace_stream *s);

/* The span of times of each run of events of every line of host H as a whole read gave it (xp_read_xspace, any
 * drop_stats): given to a stream of the same file (xp_xspace_stream_use_spans), its decode in a window skips
 * the runs outside it without the walk of every event's times that stream_spans makes. */
struct xp_run_spans;
struct xp_run_spans *xp_run_spans_of(const struct xp_host *h);
void xp_run_spans_free(struct xp_run_spans *sp);
/* false (nothing changed) when SP does not fit the stream's lines and their event counts. */
bool xp_xspace_stream_use_spans(struct xp_xspace_stream *s, const struct xp_run_spans *sp);

/* The streams of a load (xp_ctx.streams), one per XSpace file; SPANS: opened with xp_read_opts.stream_spans. */
struct xp_xspace_streams {
	struct xp_xspace_stream **v;
	size_t n;
	bool spans;
};
void xp_xspace_streams_close(struct xp_xspace_streams *l);

#endif
