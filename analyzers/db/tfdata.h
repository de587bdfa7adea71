/* tfdata.h - the tf.data model (spec analyzers §6(c)): every host's pipelines, their calls and iterators, and the bottleneck analysis. */
#ifndef XPSTAT_TFDATA_H
#define XPSTAT_TFDATA_H

#include "formats/model/capture.h"

/* A call slower than this (50 us) is a slow call. */
#define XP_TFDATA_SLOW_CALL_PS 50000000

enum xp_tfdata_bottleneck {
	XP_TFB_OTHER = 0,
	XP_TFB_SLOW_SOURCE,             /* TFRecord, TextLine, Generator, TensorSlice, ... */
	XP_TFB_DATA_SERVICE,
	XP_TFB_REMOTE_SOURCE,
	XP_TFB_PARALLEL_TRANSFORM,      /* Map, Interleave: have a parallel version */
	XP_TFB_SEQUENTIAL_TRANSFORM     /* Filter, Batch, Unbatch */
};

/* One iterator within one call of a pipeline, summed over its GetNext events in that call. */
struct xp_tfdata_iter {
	int64_t id, parent_id;
	bool has_parent;
	const char *long_name;      /* "Iterator::Prefetch::Map" (capture string) */
	const char *name;           /* "Map": the part after the last "::" */
	bool is_async;              /* Prefetch, ParallelMap, ParallelInterleave, ... */
	bool is_blocking;           /* on the critical path: overlaps its blocking parent */
	uint32_t depth;             /* 0 = the root iterator, at its first visit */
	int64_t start_ps;           /* first visited event */
	int64_t duration_ps, self_ps;
	uint64_t num_calls;
};

struct xp_tfdata_call {
	int64_t start_ps, latency_ps;   /* the root iterator event */
	bool has_bottleneck;            /* false when no blocking iterator has self time */
	int64_t bottleneck_id, bottleneck_self_ps;
	const char *bottleneck_name, *bottleneck_long_name;
	bool truncated;                 /* the walk hit its bound (hostile graphs) */
};

struct xp_tfdata_pipeline {
	int64_t id;                 /* root iterator id */
	bool device;                /* feeds Iterator::Prefetch::Generator (a device input pipeline) */
	char name[32];              /* "Host:0", "Device:1" */
	const char *root_name;      /* "Iterator::Prefetch" */
	size_t n_calls;
	struct xp_tfdata_call *calls;   /* slowest first (ties: earlier first) */
	int64_t avg_latency_ps;     /* integer mean, as the reference */
	int64_t min_latency_ps, max_latency_ps;
	uint64_t num_slow_calls;    /* latency > XP_TFDATA_SLOW_CALL_PS */
	size_t n_iters;
	struct xp_tfdata_iter *iters;   /* the slowest call's iterators, in first-visit (depth-first) order */
};

struct xp_tfdata_host {
	const char *host;
	size_t n_pipelines;
	struct xp_tfdata_pipeline *pipelines;   /* in order of their first call */
	uint64_t n_iterator_events;
	uint64_t n_truncated_calls;
};

/* One host pipeline of the bottleneck analysis, by its slowest call. */
struct xp_tfdata_bottleneck_row {
	uint32_t host;
	size_t pipeline;            /* index in hosts[host].pipelines */
	int64_t max_latency_ps;
	const char *iterator_name, *iterator_long_name;    /* "" when no blocking iterator */
	int64_t iterator_latency_ps;                        /* its self time */
	enum xp_tfdata_bottleneck type;
};

struct xp_tfdata {
	uint32_t n_hosts;
	struct xp_tfdata_host *hosts;
	size_t n_bottlenecks;
	struct xp_tfdata_bottleneck_row *bottlenecks;   /* slowest pipeline first: [0] is the most input-bound */
	int64_t max_latency_ps;     /* of bottlenecks[0], 0 when none */
	bool is_input_bound;        /* max_latency_ps > 50 us */
	const char *summary;        /* the reference's summary sentence */
};

/* Every host's pipelines and the bottleneck analysis. Strings point into c. */
struct xp_tfdata *xp_tfdata_build(const struct xp_capture *c);
/* The bottleneck analysis and summary of T, whose hosts are in place (xp_tfdata_build does it; combine calls it
 * on hosts read back from saved reports). */
void xp_tfdata_finish(struct xp_tfdata *t);
void xp_tfdata_free(struct xp_tfdata *t);
const struct xp_tfdata_pipeline *xp_tfdata_row_pipeline(const struct xp_tfdata *t,
							 const struct xp_tfdata_bottleneck_row *b);
enum xp_tfdata_bottleneck xp_tfdata_bottleneck_type(const char *iterator_name);
const char *xp_tfdata_bottleneck_key(enum xp_tfdata_bottleneck t);  /* "slow_source", ... */
/* The reference's suggestion as plain text, links as "text (URL)". */
const char *xp_tfdata_suggestion(enum xp_tfdata_bottleneck t);

#endif
