/* trace_json.h - a streaming reader of Chrome trace-event JSON (TF/JAX trace.json.gz, PyTorch/Kineto traces) into the capture model. */
#ifndef XPSTAT_TRACE_JSON_H
#define XPSTAT_TRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/model/capture.h"
#include "formats/core/xperr.h"

struct xp_json_opts {
	uint64_t max_bytes;     /* limit on the decompressed size (0 = physical memory) */
	int threads;            /* >= 2: lex on a thread of its own, decompress on another */
	size_t window;          /* bytes of text per window (0 = 4 MiB); tests make it tiny to
				 * exercise refills, and then stream even plain text in memory */
	const char *const *drop_stats; /* NULL-terminated event stat names not to keep (as
				 * xp_read_opts.drop_stats): counted and their metadata marked dropped */
};

/*
 * Read one trace JSON document as a new host of c: `{"traceEvents":[...], ...}`
 * or a bare array of events, plain, gzip or zstd. The text is never held
 * whole: events are parsed one at a time from a window over the decompressed
 * stream, so memory grows with the events kept. Times are exact: `ts`/`dur`
 * are decimal microseconds turned into integer picoseconds without a double.
 * On malformed input: returns -1 with err set (status 3, byte offset in the
 * decompressed text) and adds no host. The mapping onto planes, lines and
 * stats is described in xpstat-formats(5), section TRACE JSON.
 */
int xp_read_trace_json_file(struct xp_capture *c, const char *path, const struct xp_json_opts *o,
			    struct xp_err *err);
/* The same over bytes in memory (plain or compressed); path names them in errors. */
int xp_read_trace_json_mem(struct xp_capture *c, const char *path, const uint8_t *data, size_t len,
			   const struct xp_json_opts *o, struct xp_err *err);

/* Decimal microseconds (JSON number text, optionally signed, fraction and
 * exponent) to picoseconds, rounded to the nearest (ties away from zero).
 * False on bad syntax or a magnitude of 10^33 ps or more. Exposed for tests. */
bool xp_json_us_to_ps(const char *s, size_t len, __int128 *out);

#endif
