/* capture.h - the in-memory capture model every reader fills and every analyzer reads. */
#ifndef XPSTAT_CAPTURE_H
#define XPSTAT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/*
 * Layout (DESIGN §4): capture -> hosts -> planes -> lines -> events.
 * Events are columnar per line: start/duration/metadata arrays, and stats in
 * blocks of XP_BLOCK_EVENTS events so that one big line can be decoded by
 * several threads at once. Strings are interned once per capture and named by
 * a 32-bit id; id 0 is the empty string.
 *
 * Times are picoseconds relative to the host's base (the smallest line
 * timestamp of that host), so they fit int64 without overflow.
 */

#define XP_BLOCK_SHIFT 16
#define XP_BLOCK_EVENTS (1u << XP_BLOCK_SHIFT)

/* Kinds of stat value, stored in the top 4 bits of a stat key. */
enum xp_stat_kind {
	XP_STAT_NONE = 0,   /* oneof not set */
	XP_STAT_I64 = 1,
	XP_STAT_U64 = 2,
	XP_STAT_F64 = 3,
	XP_STAT_STR = 4,    /* interned string id (str_value or resolved ref_value) */
	XP_STAT_BYTES = 5,  /* offset of a length-prefixed blob in the owner's blob arena */
	XP_STAT_BLOBSTR = 6 /* str_value kept in the blob arena (not interned) */
};

#define XP_STAT_KIND_SHIFT 28
/* Values that do not fit 32 bits live in the block's wide[] array and the
 * 32-bit value slot holds their index: most stats are small integers and
 * interned strings, so this keeps a stat at 8 bytes. */
#define XP_STAT_WIDE (1u << 27)
#define XP_STAT_META_MASK ((1u << 27) - 1)
static inline uint32_t xp_stat_make_key(unsigned kind, uint32_t meta)
{
	return ((uint32_t)kind << XP_STAT_KIND_SHIFT) | (meta & XP_STAT_META_MASK);
}
static inline unsigned xp_stat_kind(uint32_t key) { return key >> XP_STAT_KIND_SHIFT; }
/* Dense stat-metadata index within the plane (0 = "no such metadata"). */
static inline uint32_t xp_stat_meta(uint32_t key) { return key & XP_STAT_META_MASK; }

/* A block of stats: keys[] and vals[] are parallel arrays. */
struct xp_stats {
	uint32_t *keys;
	uint32_t *vals;     /* the value, or an index into wide[] (XP_STAT_WIDE) */
	uint64_t *wide;     /* bit patterns: int64, uint64, double, string id, blob offset */
	uint32_t n, cap;
	uint32_t n_wide, cap_wide;
	uint32_t n_dropped;     /* decoded but not kept (xp_read_opts.drop_stats) */
	uint32_t n_keys;        /* keys[] in use when events share them (xp_line.key_begin) */
};

/* Growable byte arena for str_value / bytes_value payloads (u32 length + bytes). */
struct xp_blob {
	uint8_t *data;
	uint64_t len, cap;
};

/* A duration stored as 32 bits: one of XP_DUR_LONG picoseconds (4.29 ms) or more, or negative, is kept in its
 * block's long_at/long_ps instead and its 32-bit slot holds XP_DUR_LONG. */
#define XP_DUR_LONG UINT32_MAX

/* One block of up to XP_BLOCK_EVENTS events of a line. */
struct xp_block {
	struct xp_stats stats;
	struct xp_blob blob;
	/* The durations that do not fit 32 bits: event (index within the block, ascending) and value. Most
	 * events of a capture are far shorter than 4.29 ms, so a duration costs 4 bytes, not 8. */
	uint16_t *long_at;
	int64_t *long_ps;
	uint32_t n_long, cap_long;
	/* Set by the thread that decodes the block, folded into the line after. */
	uint32_t n_aggregated;
	bool time_overflow;
	bool unsorted;
};

struct xp_line {
	int64_t id;
	int64_t display_id;
	uint32_t name;          /* interned */
	uint32_t display_name;  /* interned */
	int64_t timestamp_ns;   /* as in the file */
	int64_t duration_ps;
	bool derived;           /* 0xdeadbeef range or a known derived name */
	bool time_overflow;     /* timestamp too far from the host base */
	bool unsorted;          /* events not in (start asc) order as stored */
	uint64_t n_events;
	int64_t *start_ps;      /* relative to host base */
	uint32_t *dur32;        /* durations: read them with xp_dur (XP_DUR_LONG: in the block's long_ps) */
	/* Dense event-metadata index into plane->emeta of each event, read with xp_meta_of: 16 bits where every
	 * index fits (a plane of at most 65,536 metadata entries), else 32. One of the two is set. */
	uint16_t *meta16;
	uint32_t *meta32;
	uint32_t *stat_begin;   /* first stat of event i within its block */
	/* First key of event i within its block's keys, or NULL: keys run with the values. The XSpace
	 * reader stores a run of keys once for the events whose stats come in the same order. */
	uint32_t *key_begin;
	uint32_t n_blocks;
	struct xp_block *blocks;
	uint64_t n_stats;       /* total over blocks, dropped ones included: the stats in the capture */
	/* events carrying num_occurrences (aggregated planes) */
	uint64_t n_aggregated;
};

struct xp_event_meta {
	int64_t id;
	uint32_t name;
	uint32_t display_name;
	uint32_t stat_begin, stat_end; /* range in plane->meta_stats */
	uint32_t n_children;
};

struct xp_stat_meta {
	int64_t id;
	uint32_t name;          /* stat name, or interned string value */
	bool dropped;           /* its event stats were not loaded (xp_read_opts.drop_stats) */
};

enum xp_plane_kind {
	XP_PLANE_OTHER = 0,
	XP_PLANE_HOST_CPU,      /* /host:CPU and merged host sources */
	XP_PLANE_GPU,           /* /device:GPU:N */
	XP_PLANE_TPU,           /* /device:TPU:N (TensorCore) */
	XP_PLANE_DEVICE_OTHER,  /* other /device:, #Chip, /custom: */
	XP_PLANE_HOST_OTHER     /* /host:metadata, Task Environment, ... */
};

struct xp_plane {
	int64_t id;
	uint32_t name;          /* as in the file */
	uint32_t base_name;     /* name without a trailing " [pid]" */
	enum xp_plane_kind kind;
	int device_ordinal;     /* N of /device:GPU:N or TPU:N, else -1 */
	uint32_t n_lines;
	struct xp_line *lines;
	uint32_t n_emeta;       /* index 0 is the "missing metadata" entry */
	struct xp_event_meta *emeta;
	uint32_t n_smeta;       /* index 0 is the "missing metadata" entry */
	struct xp_stat_meta *smeta;
	struct xp_stats meta_stats;  /* stats of event metadata entries */
	struct xp_blob meta_blob;
	struct xp_stats plane_stats; /* XPlane.stats */
	struct xp_blob plane_blob;
	uint32_t dup_of_plane;       /* set by the reader when two planes share a name (1-based, 0 = none) */
};

/* Odd-but-readable content, counted per host for info's completeness report. */
struct xp_oddities {
	uint64_t missing_event_meta;   /* events whose metadata_id has no entry */
	uint64_t missing_stat_meta;    /* stats whose metadata_id has no entry */
	uint64_t dangling_ref;         /* ref_value pointing nowhere */
	uint64_t invalid_utf8;         /* names/strings with invalid UTF-8 */
	uint64_t negative_durations;
	uint64_t unsorted_lines;       /* lines whose events are not in start order */
	uint64_t duplicate_planes;
	uint64_t duplicate_lines;      /* lines sharing an id within a plane */
	uint64_t time_overflow_lines;
	uint64_t unknown_fields;
	uint64_t aggregated_events;
	uint64_t pid_suffixed_planes;
	uint64_t value_not_set;        /* stats with no value */
};

enum xp_source_format {
	XP_FMT_XSPACE = 1,
	XP_FMT_TRACE_JSON = 2
};

enum xp_compression {
	XP_COMP_NONE = 0,
	XP_COMP_GZIP,
	XP_COMP_ZSTD
};

/* What a trace JSON file held, for info's completeness report (zero for XSpace). */
struct xp_json_counts {
	uint64_t entries;              /* elements of traceEvents ({} included) */
	uint64_t complete, begin, end, instant, counter, metadata, flow, async, empty, other;
	uint64_t unmatched_begin;      /* B without E (kept with duration 0) */
	uint64_t unmatched_end;        /* E without B, and async ends without a begin (dropped) */
	uint64_t zero_dur_kernels;     /* kernel events with dur 0 (below the trace's time resolution) */
	uint64_t kineto_events;        /* events with a Kineto category (cpu_op, kernel, ...): a PyTorch trace */
	bool truncated;                /* complete events exactly 1,000,000 or 5,000,000: an exporter's cap */
};

struct xp_host {
	char *path;             /* file it came from */
	char *name;             /* hostnames[0], else file name minus suffix */
	char *first_name;       /* the name before another host's made it unique (by file, "#2"); NULL: name */
	enum xp_source_format format;
	enum xp_compression compression;
	uint64_t file_bytes;    /* on disk */
	uint64_t decoded_bytes; /* after decompression */
	int64_t base_ns;        /* the host's time base */
	uint32_t n_planes;
	struct xp_plane *planes;
	uint32_t n_errors, n_warnings, n_hostnames;
	uint32_t *errors, *warnings, *hostnames; /* interned */
	bool pre_grouped;       /* a group_id stat metadata exists (TF 2.3-2.10) */
	struct xp_oddities odd;
	struct xp_json_counts json; /* format XP_FMT_TRACE_JSON only */
};

/* String interning: one table per capture. */
struct xp_strtab {
	char **strs;            /* NUL-terminated copies; lens[] holds real length */
	uint32_t *lens;
	uint32_t n, cap;
	uint32_t *hash;         /* open addressing: 0 = empty, else id+1 */
	uint32_t hcap;
	char *pool;             /* bump allocator chunks */
	size_t pool_used, pool_cap;
	void **chunks;
	size_t n_chunks;
};

struct xp_capture {
	struct xp_strtab strings;
	uint32_t n_hosts;
	struct xp_host *hosts;
};

/* --- strings ------------------------------------------------------------ */
void xp_strtab_init(struct xp_strtab *t);
void xp_strtab_free(struct xp_strtab *t);
/* Intern bytes [s, s+len); returns the id. Never fails (aborts on OOM). */
uint32_t xp_intern(struct xp_strtab *t, const char *s, size_t len);
/* Look up without inserting; returns 0 (the empty string) when absent
 * and sets *found accordingly when found is non-NULL. */
uint32_t xp_strtab_find(const struct xp_strtab *t, const char *s, size_t len, bool *found);
static inline const char *xp_str(const struct xp_capture *c, uint32_t id) { return c->strings.strs[id]; }
static inline uint32_t xp_strlen(const struct xp_capture *c, uint32_t id) { return c->strings.lens[id]; }

/* --- lifecycle ---------------------------------------------------------- */
struct xp_capture *xp_capture_new(void);
void xp_capture_free(struct xp_capture *c);
/* Drop the hosts whose keep[] entry is false (keeps the order of the rest). */
void xp_capture_keep_hosts(struct xp_capture *c, const bool *keep);
/* Move from's planes into into (two files of one worker): both get the earlier time base, event starts
 * shifted to it, so the files' events keep their absolute times; sizes and counts add up. from is left
 * with no planes, for xp_capture_keep_hosts to drop. False (nothing moved) when the bases are too far
 * apart for picosecond starts. */
bool xp_host_absorb(struct xp_host *into, struct xp_host *from);
/* Free line L's events and their stats, once its last reader is done (trace frees each line once written):
 * it keeps its name and ids, with no events. */
void xp_line_release(struct xp_line *l);
/* Drop the event stats of line L whose stat metadata index M has DROP[M] (M < N_META), as a load that left them
 * out would hold the line (trace keeps what its step database reads). */
void xp_line_drop_stats(struct xp_line *l, const bool *drop, uint32_t n_meta);
/* Appends a zeroed host and returns it (pointer valid until the next call). */
struct xp_host *xp_capture_add_host(struct xp_capture *c);

/* A capture's path as a saved report names it, the same whatever path was typed: its file name (*NAME, NL
 * bytes) and its directory's name (*RUN, RL bytes; "." for a file typed without a directory). */
void xp_path_run_parts(const char *path, const char **name, size_t *nl, const char **run, size_t *rl);
/* "RUN/NAME" of xp_path_run_parts ("NAME" when RUN is "."), malloc'd. */
char *xp_path_in_run(const char *path);

/* --- stats arrays ------------------------------------------------------- */
void xp_stats_push(struct xp_stats *s, uint32_t key, uint64_t val);
void xp_stats_free(struct xp_stats *s);
uint64_t xp_blob_put(struct xp_blob *b, const void *data, uint32_t len);
const uint8_t *xp_blob_get(const struct xp_blob *b, uint64_t off, uint32_t *len);
void xp_blob_free(struct xp_blob *b);

/* --- lookups used by analyzers ----------------------------------------- */
/* Dense stat-metadata index of the stat called `name` in the plane, or 0. */
uint32_t xp_plane_stat_id(const struct xp_capture *c, const struct xp_plane *p, const char *name);
/* Stat metadata S of plane P is about to be read by name: an internal error
 * (exit 4) when the command left its event stats out of the load. */
void xp_stat_must_be_loaded(const struct xp_capture *c, const struct xp_plane *p, uint32_t s);
/* Event i's dense event-metadata index. */
static inline uint32_t xp_meta_of(const struct xp_line *l, uint64_t i)
{
	return l->meta16 ? l->meta16[i] : l->meta32[i];
}
/* For readers: the metadata index array of L for CAP events, 16 bits wide when every index is below LIMIT
 * <= 65,536 (l->meta16 or l->meta32 set, the other NULL); grown by the same call. */
void xp_line_size_meta(struct xp_line *l, uint64_t cap, uint32_t limit);
static inline void xp_line_put_meta(struct xp_line *l, uint64_t i, uint32_t m)
{
	if (l->meta16)
		l->meta16[i] = (uint16_t)m;
	else
		l->meta32[i] = m;
}
/* Dense event-metadata index list is not needed; event names come from emeta. */
static inline uint32_t xp_event_name(const struct xp_plane *p, const struct xp_line *l, uint64_t i)
{
	return p->emeta[xp_meta_of(l, i)].name;
}
/* The duration of event i of L that its 32-bit slot could not hold. */
int64_t xp_long_dur(const struct xp_line *l, uint64_t i);
/* Event i's duration (the readers keep it >= 0 and its end <= INT64_MAX). */
static inline int64_t xp_dur(const struct xp_line *l, uint64_t i)
{
	uint32_t d = l->dur32[i];
	return __builtin_expect(d != XP_DUR_LONG, 1) ? (int64_t)d : xp_long_dur(l, i);
}
/* For readers: event i's duration D, written in order of i within BLK, the block holding i (the one being
 * filled, which may be a copy of l->blocks[i >> XP_BLOCK_SHIFT]). */
void xp_line_put_dur(struct xp_line *l, struct xp_block *blk, uint64_t i, int64_t d);
/* For readers: event i's duration, already put, lowered to D (a clamp that keeps its end <= INT64_MAX). */
void xp_line_lower_dur(struct xp_line *l, uint64_t i, int64_t d);
static inline int64_t xp_event_end(const struct xp_line *l, uint64_t i)
{
	return l->start_ps[i] + xp_dur(l, i);
}

/* A view of the stats of one event (or of a metadata entry, or a plane). */
struct xp_stat_view {
	const uint32_t *keys;
	const uint32_t *vals;
	const uint64_t *wide;
	uint32_t n;
	const struct xp_blob *blob;
};
/* The raw 64-bit value of stat k of a view. */
static inline uint64_t xp_view_val(const struct xp_stat_view *v, uint32_t k)
{
	return (v->keys[k] & XP_STAT_WIDE) ? v->wide[v->vals[k]] : v->vals[k];
}
/* Where event i's keys start in its block; FIRST is where its values start. */
static inline uint32_t xp_event_key_begin(const struct xp_line *l, uint64_t i, uint32_t first)
{
	return l->key_begin ? l->key_begin[i] : first;
}

/* Inline: analyzers ask for one per event, tens of millions of times. */
static inline struct xp_stat_view xp_event_stats(const struct xp_line *l, uint64_t i)
{
	struct xp_stat_view v = {0};
	uint32_t b = (uint32_t)(i >> XP_BLOCK_SHIFT);
	const struct xp_block *blk = &l->blocks[b];
	uint32_t first = l->stat_begin[i];
	uint32_t last = blk->stats.n;
	if (i + 1 < l->n_events && ((i + 1) >> XP_BLOCK_SHIFT) == b)
		last = l->stat_begin[i + 1];
	v.n = last - first;
	if (v.n) { /* the arrays are NULL while a block has no stats */
		v.keys = blk->stats.keys + xp_event_key_begin(l, i, first);
		v.vals = blk->stats.vals + first;
	}
	v.wide = blk->stats.wide;
	v.blob = &blk->blob;
	return v;
}

static inline struct xp_stat_view xp_meta_stats(const struct xp_plane *p, uint32_t emeta)
{
	struct xp_stat_view v = {0};
	const struct xp_event_meta *m = &p->emeta[emeta];
	v.n = m->stat_end - m->stat_begin;
	if (v.n) {
		v.keys = p->meta_stats.keys + m->stat_begin;
		v.vals = p->meta_stats.vals + m->stat_begin;
	}
	v.wide = p->meta_stats.wide;
	v.blob = &p->meta_blob;
	return v;
}
struct xp_stat_view xp_plane_stats(const struct xp_plane *p);

/* A typed stat value found by name. */
struct xp_value {
	unsigned kind;          /* enum xp_stat_kind; XP_STAT_NONE when absent */
	int64_t i;              /* I64/U64 (U64 values above INT64_MAX saturate here) */
	uint64_t u;             /* U64 and I64 bit pattern */
	double d;
	const char *s;          /* STR/BLOBSTR/BYTES payload (not NUL-terminated for BYTES) */
	uint32_t len;
	uint32_t id;            /* STR: its id in the capture's strings (one text, one id; of strings.n) */
};
/* Find the last stat with dense metadata index `sid` in the view (last wins). */
bool xp_view_find(const struct xp_capture *c, struct xp_stat_view v, uint32_t sid, struct xp_value *out);
/* The value of stat K of view V. */
void xp_view_value(const struct xp_capture *c, const struct xp_stat_view *v, uint32_t k, struct xp_value *out);
/* Event stats first, then metadata stats: the event's copy wins (spec §1.3). */
bool xp_event_find(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l,
		   uint64_t i, uint32_t sid, struct xp_value *out);
/* Integer value of a stat as int-or-uint; false when absent or not an integer. */
bool xp_value_int(const struct xp_value *v, int64_t *out);
/* Value of a stat as text; numbers are printed in decimal into buf. */
const char *xp_value_text(const struct xp_value *v, char *buf, size_t bufsz, uint32_t *len);

/* Name helpers. */
const char *xp_plane_kind_name(enum xp_plane_kind k);
/* xprof's process order of plane kinds: host threads, then the devices (GPU, TPU, other), then the rest. */
int xp_plane_kind_rank(enum xp_plane_kind k);
enum xp_plane_kind xp_classify_plane(const char *name, size_t len, int *ordinal);
bool xp_line_is_derived(int64_t id, const char *name);

#endif
