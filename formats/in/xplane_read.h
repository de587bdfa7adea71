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
};

/* Decode one XSpace held in data[0..len) as a new host of c.
 * On broken structure: returns -1 with err set (status 3, byte offset). */
int xp_read_xspace(struct xp_capture *c, const char *path, const uint8_t *data, uint64_t len,
		   const struct xp_read_opts *o, struct xp_err *err);

#endif
