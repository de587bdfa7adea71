/* unread_stats.c - event stats that only some analyses read, which the other commands leave out of the load. */
#include "unread_stats.h"
#include "formats/model/capture.h"

#include <stddef.h>

/*
 * Memory events carry about ten allocator stats each and kernels a few
 * detail stats: in a large capture they are most of the stats decoded. A
 * command whose analyses never read them names them in its xp_cmd, and the
 * reader keeps their metadata but not their values. Should an analysis read
 * one anyway, it stops with an internal error (xp_stat_must_be_loaded) instead
 * of answering as if the capture lacked it; the golden tests run every
 * command this way.
 */

/* Read by memory only (tf_op and shape are also read elsewhere, so they stay). */
#define ALLOCATOR_STATS                                                                                         \
	"allocator_name", "index_on_host", "device_ordinal", "bytes_reserved", "bytes_allocated", "bytes_available", \
		"fragmentation", "peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", "region_type",  \
		"data_type"

/* Read by kernel-stats and tf-stats, and by info for its survey (memcpy_details, read by the step
 * database, stays). */
#define KERNEL_DETAIL_STATS                                                                                   \
	"kernel_details", "theoretical_occupancy_pct", "occupancy_min_grid_size", "occupancy_suggested_block_size"

/* Read by no analysis: what TensorFlow's executor, kernel launches and
 * tf.data write for other tools. */
#define NEVER_READ_STATS                                                                                        \
	"kernel_name", "num_output_edges", "num_output_control_edges", "tf_function_call", "tracing_count",    \
		"buffer_limit", "device_id", "context_id"

const char *const xp_drop_all_details[] = {ALLOCATOR_STATS, KERNEL_DETAIL_STATS, NEVER_READ_STATS, NULL};
const char *const xp_drop_but_kernel_details[] = {ALLOCATOR_STATS, NEVER_READ_STATS, NULL};
const char *const xp_drop_but_allocator_stats[] = {KERNEL_DETAIL_STATS, NEVER_READ_STATS, NULL};
const char *const xp_drop_never_read[] = {NEVER_READ_STATS, NULL};
