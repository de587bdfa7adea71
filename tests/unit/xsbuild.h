/* xsbuild.h - build XSpace test captures in code: real protobuf bytes via protobuf-c, read back with xp_read_xspace. */
#ifndef XPSTAT_TESTS_XSBUILD_H
#define XPSTAT_TESTS_XSBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/model/capture.h"

/*
 * Usage:
 *   struct xsb *b = xsb_new();
 *   int host = xsb_plane(b, "/host:CPU", 0);
 *   int line = xsb_line(b, host, 10, "python", 0);
 *   int ev = xsb_event(b, host, line, "TraceContext", 0, 100);
 *   xsb_stat_int(b, host, ev, "step_num", 123);
 *   struct xp_capture *c = xsb_read(b);
 *   ...
 *   xp_capture_free(c);
 *   xsb_free(b);
 *
 * Planes, lines and events are named by small integers returned by the
 * builder: a plane index, a line index within its plane and an event index
 * within its plane. Event and stat metadata ids are allocated per plane by
 * name, 1, 2, 3, ... in order of first use, like TF's XPlaneBuilder. At pack
 * time every line's events are put in the order the profiler writes them
 * (offset ascending, duration descending, then insertion order) unless
 * xsb_keep_order() was called. Every failure (out of memory, bad index, a
 * capture that does not read back) aborts the test program.
 */

struct xsb;

struct xsb *xsb_new(void);
void xsb_free(struct xsb *b);

/* XSpace-level fields. */
void xsb_hostname(struct xsb *b, const char *name);
void xsb_error(struct xsb *b, const char *msg);
void xsb_warning(struct xsb *b, const char *msg);
/* Keep events in insertion order instead of the writers' sorted order. */
void xsb_keep_order(struct xsb *b);

/* Structure. */
int xsb_plane(struct xsb *b, const char *name, int64_t id);
int xsb_line(struct xsb *b, int plane, int64_t id, const char *name, int64_t timestamp_ns);
int xsb_event(struct xsb *b, int plane, int line, const char *name, int64_t offset_ps, int64_t dur_ps);
/* Event metadata id of `name` in the plane, created when new (no event needed). */
int64_t xsb_meta(struct xsb *b, int plane, const char *name);
/* Stat metadata id of `name` in the plane, created when new. */
int64_t xsb_stat_meta(struct xsb *b, int plane, const char *name);

/* Stats on an event. */
void xsb_stat_int(struct xsb *b, int plane, int ev, const char *stat, int64_t v);
void xsb_stat_uint(struct xsb *b, int plane, int ev, const char *stat, uint64_t v);
void xsb_stat_double(struct xsb *b, int plane, int ev, const char *stat, double v);
void xsb_stat_str(struct xsb *b, int plane, int ev, const char *stat, const char *v);
/* ref_value: v is interned as a stat metadata entry named v. */
void xsb_stat_ref(struct xsb *b, int plane, int ev, const char *stat, const char *v);
void xsb_stat_bytes(struct xsb *b, int plane, int ev, const char *stat, const void *v, size_t len);

/* Stats on the plane (XPlane.stats). */
void xsb_plane_stat_int(struct xsb *b, int plane, const char *stat, int64_t v);
void xsb_plane_stat_uint(struct xsb *b, int plane, const char *stat, uint64_t v);
void xsb_plane_stat_double(struct xsb *b, int plane, const char *stat, double v);
void xsb_plane_stat_str(struct xsb *b, int plane, const char *stat, const char *v);

/* Stats on the event metadata entry called `event_name` (created when new). */
void xsb_meta_stat_int(struct xsb *b, int plane, const char *event_name, const char *stat, int64_t v);
void xsb_meta_stat_str(struct xsb *b, int plane, const char *event_name, const char *stat, const char *v);

/* Serialize: a malloc'd buffer of *len bytes (the caller frees it). */
uint8_t *xsb_pack(struct xsb *b, size_t *len);

/* Pack and decode with xp_read_xspace as one host; aborts when reading fails. */
struct xp_capture *xsb_read(struct xsb *b);
/* Several builders as several hosts of one capture, in array order. */
struct xp_capture *xsb_read_hosts(struct xsb *const *bs, size_t n);

/* Where an event landed, valid after xsb_pack/xsb_read: its position in its
 * line (after sorting) and the id of that line. */
uint64_t xsb_event_index(const struct xsb *b, int plane, int ev);
int64_t xsb_event_line_id(const struct xsb *b, int plane, int ev);
const char *xsb_plane_name(const struct xsb *b, int plane);

#endif
