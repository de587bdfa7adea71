/* xplane_host.h - the XSpace reader's state for one host, shared by its plane, event and driver files. */
#ifndef XPSTAT_XPLANE_HOST_H
#define XPSTAT_XPLANE_HOST_H

#include "formats/model/capture.h"
#include "formats/core/idmap.h"
#include "xplane_wire.h"

struct xp_read_opts;

/*
 * Decoding happens in three steps, so that the event loop (almost all of the
 * bytes) runs in parallel without locks:
 *   1. sequential (xplane_meta.c): walk XSpace and each XPlane, skipping line
 *      bodies; decode metadata maps, plane stats and strings (interning is
 *      single-threaded);
 *   2. parallel per line (xplane_events.c): walk the line's fields, count events
 *      and note where every block of XP_BLOCK_EVENTS events starts;
 *   3. parallel per block (xplane_events.c): decode events and their stats into
 *      preallocated columns. Blocks are small, so two threads share even one huge line.
 * With one thread, steps 2 and 3 are one pass per line. Every length and varint is
 * checked against the end of its enclosing message; broken structure ends the
 * read with the byte offset of the fault. A differential test checks this walker
 * against protobuf-c on the same bytes.
 */

/* A byte range collected while walking a message. */
struct range {
	const uint8_t *p;
	uint64_t len;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

void xpr_ranges_push(struct ranges *rs, const uint8_t *p, uint64_t len);

struct plane_ctx {
	struct xp_idmap emap, smap;     /* metadata id -> dense slot */
	bool drops;             /* some stat metadata is marked dropped */
};

/* A stream's note of XPR_CHUNK events of a line: where they start, and the span of their times (the earliest
 * start, the latest end) relative to the line, or in host time (line_job.spans_in_host_time). */
#define XPR_CHUNK 1024u
struct xpr_chunk {
	uint64_t at;            /* offset (from base) of the first event's tag */
	int64_t first, last;
};

struct line_job {
	struct xp_plane *plane;
	struct plane_ctx *pctx;
	struct xp_line *line;
	const uint8_t *beg, *end;
	uint64_t *block_off;    /* offset (from base) of each block's first event tag */
	uint32_t n_block_off, cap_block_off;
	struct range name, dname;
	int64_t line_base_ps;   /* (timestamp - host base) * 1000 */
	bool streamed;          /* a stream decoded its events (xp_xspace_stream_line): not again */
	struct xpr_chunk *chunks; /* a stream's (xpr_walk_line_chunks), else NULL */
	uint32_t n_chunks, cap_chunks;
	bool spans_in_host_time; /* the chunks' spans came from a whole read (xp_xspace_stream_use_spans) */
	uint64_t n_walked;      /* the events the walk counted */
};

struct block_job {
	struct line_job *lj;
	uint32_t block;
};

struct host_reader {
	struct reader r;
	struct xp_capture *cap;
	struct xp_host *host;
	const struct xp_read_opts *opts;
	struct ranges plane_ranges;
	struct plane_ctx *pctx;
	struct line_job *lines;
	size_t n_lines;
	struct block_job *blocks;
	size_t n_blocks;
	atomic_size_t next;
	struct xp_oddities *thread_odd; /* one per thread, summed at the end */
};

/* Where decoded stats go (metadata, plane and event stats alike). */
struct stat_sink {
	struct xp_stats *stats;
	struct xp_blob *blob;
	const struct xp_idmap *smap;
	const struct xp_stat_meta *smeta;
	struct xp_oddities *odd;
	bool drops;             /* skip the stats whose metadata is marked dropped */
	bool full;              /* a stat found no room (the count passed 32 bits); reported by the caller */
	/* Event stats: where the next key goes (stats->n_keys at an event's start), and the last key
	 * runs stored, which a later event with the same keys in the same order points to instead. */
	uint32_t key_at;
	uint32_t run_at[4], run_len[4];
	unsigned run_next;
};

/* xplane_meta.c: the sequential step. */
uint32_t xpr_intern(struct host_reader *hr, const uint8_t *p, uint64_t len);
int xpr_read_space(struct host_reader *hr, const uint8_t *p, const uint8_t *end);
int xpr_read_planes(struct host_reader *hr);
/* The line's names (read by the walk) into the model. */
void xpr_name_line(struct host_reader *hr, struct line_job *lj);

/* xplane_events.c: stats, events and the lines that hold them. */
int xpr_decode_stat(struct reader *r, const uint8_t *p, const uint8_t *end, struct stat_sink *s);
int xpr_sink_check(struct reader *r, const struct stat_sink *s);
int xpr_walk_line(struct host_reader *hr, struct line_job *lj);
int xpr_walk_line_chunks(struct host_reader *hr, struct line_job *lj, bool spans);
int xpr_decode_block(struct host_reader *hr, struct block_job *bj, struct xp_oddities *odd);
int xpr_walk_decode_line(struct host_reader *hr, struct line_job *lj, struct xp_oddities *odd);
/* A window in host time, for a decode of the events that overlap it alone; BASE: the line's (line_base_ps). */
struct xpr_window {
	int64_t base, lo, hi;
};
/* xpr_walk_decode_line keeping only the events that overlap W (all when W is NULL); the others are skipped
 * with their stats, only their times read. */
int xpr_walk_decode_line_in(struct host_reader *hr, struct line_job *lj, struct xp_oddities *odd,
			    const struct xpr_window *w);
void xpr_rebase_line(struct line_job *lj);
/* Drop the whole pages of [p, end) of a file mapping (xp_read_opts.release_pages): read again if needed. */
void xpr_release_range(struct host_reader *hr, const uint8_t *p, const uint8_t *end);

#endif
