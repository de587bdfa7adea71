/* xplane_diff.h - differential check of the XSpace walker against protobuf-c. */
#ifndef XPSTAT_XPLANE_DIFF_H
#define XPSTAT_XPLANE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when both decoders agree (both reject, or both accept the same content);
 * 1 with a reason in why[] otherwise. With DROP, ours is told to leave out
 * the event stats of about half the stat metadata names (xp_read_opts.drop_stats),
 * and must keep exactly the others. */
int xp_diff_check(const uint8_t *data, size_t size, int threads, bool drop, char *why, size_t whylen);

#endif
