/* prep.h - what the preparation makes, once per host: op names (tfop.c), the step database, the per-host preparation, aligned steps (align.c). */
#ifndef XPSTAT_PREP_H
#define XPSTAT_PREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/core/bits.h"
#include "formats/model/capture.h"

/* --- TF-op names (spec analyzers §0.2) ------------------------------------ */

enum xp_op_cat {
	XP_OP_UNKNOWN = 0,
	XP_OP_TF,
	XP_OP_JAX,
	XP_OP_TFDATA,
	XP_OP_MEMCPY_H2D,
	XP_OP_MEMCPY_D2H,
	XP_OP_MEMCPY_D2D,
	XP_OP_MEMCPY_H2H
};

/* name/type point into the parsed string (or to static text for memcpy types). */
struct xp_tfop {
	enum xp_op_cat cat;
	const char *name;
	size_t name_len;
	const char *type;
	size_t type_len;
};

void xp_parse_tf_op(const char *s, size_t len, struct xp_tfop *out);

/* Which framework wrote host H's capture: "TensorFlow", "JAX", "PyTorch (XSpace)", "PyTorch (trace JSON)",
 * "trace JSON" or "unknown" (static text), from its metadata names and stats alone. */
const char *xp_host_producer(const struct xp_capture *c, const struct xp_host *h);

/* Device memcpy direction from an event name, in every spelling CUPTI and TF
 * use (MemcpyH2D, MemcpyHtoD, MemcpyHToD, any case; P2P counts as D2D).
 * With xprof_compat only the TF-op prefixes MemcpyHToD/DToH/DToD/HToH count
 * (spec §7 item 2). Returns XP_OP_UNKNOWN when it is no memcpy. */
enum xp_op_cat xp_memcpy_kind(const char *name, size_t len, bool xprof_compat);
/* Bytes of a memcpy from memcpy_details ("size:N", or "num_bytes:N"); 0 when absent. */
uint64_t xp_memcpy_bytes(const char *details, size_t len);

/* --- event types of the step-time breakdown (spec §1.1) ------------------- */

/* Values are the priorities: a higher type wins where events overlap. */
enum xp_event_type {
	XP_ET_UNKNOWN = 0,
	XP_ET_HOST_COMPUTE,
	XP_ET_HOST_PREPROCESS,
	XP_ET_HOST_POSTPROCESS,
	XP_ET_HOST_BATCH_FORMATION,
	XP_ET_HOST_RUNTIME,
	XP_ET_HOST_COMPILE,
	XP_ET_HOST_TO_HOST,
	XP_ET_HOST_TO_DEVICE,
	XP_ET_HOST_PREPARE,
	XP_ET_DEVICE_COLLECTIVES,
	XP_ET_HOST_WAIT_INPUT,
	XP_ET_DEVICE_TO_DEVICE,
	XP_ET_DEVICE_TO_HOST,
	XP_ET_DEVICE_COMPUTE_32,
	XP_ET_DEVICE_COMPUTE_16,
	XP_ET_DEVICE_WAIT_DEVICE,
	XP_ET_DEVICE_WAIT_HOST,
	XP_ET_PT_MEMCPY,            /* PyTorch captures: the Memcpy and Memset categories */
	XP_ET_PT_MEMSET,
	XP_N_EVENT_TYPES
};

const char *xp_event_type_name(enum xp_event_type t);

/* The categories users see (spec §1.1, §1.5). */
enum xp_step_cat {
	XP_SC_DEVICE_COMPUTE = 0,   /* COMPUTE_16 + COMPUTE_32 */
	XP_SC_DEVICE_TO_DEVICE,     /* DEVICE_TO_DEVICE + DEVICE_WAIT_DEVICE */
	XP_SC_DEVICE_COLLECTIVES,
	XP_SC_HOST_COMPUTE,
	XP_SC_KERNEL_LAUNCH,        /* HOST_PREPARE */
	XP_SC_INPUT,                /* HOST_WAIT_INPUT + HOST_TO_DEVICE + DEVICE_WAIT_HOST */
	XP_SC_OUTPUT,               /* DEVICE_TO_HOST */
	XP_SC_COMPILATION,          /* HOST_COMPILE */
	XP_SC_OTHER,                /* UNKNOWN ("All others") */
	XP_SC_MEMCPY,               /* PyTorch captures only (PT_MEMCPY) */
	XP_SC_MEMSET,               /* PyTorch captures only (PT_MEMSET) */
	XP_N_STEP_CATS
};

const char *xp_step_cat_key(enum xp_step_cat c);    /* snake_case, e.g. "kernel_launch" */
const char *xp_step_cat_label(enum xp_step_cat c);  /* "Kernel launch" */
/* The categories a capture's steps show, in order: TensorFlow/JAX's, or PyTorch's (Kernel, Memcpy,
 * Memset, Communication, Runtime, DataLoader, CPU Exec, Other), whose labels these are. */
const enum xp_step_cat *xp_step_cats(bool pytorch, size_t *n);
const char *xp_step_cat_label_for(enum xp_step_cat c, bool pytorch);
/* Short text header of a category column. */
const char *xp_step_cat_short(enum xp_step_cat c, bool pytorch);
/* A table's category columns: the capture's categories in its order, then TensorFlow's others, which a
 * PyTorch table keeps in CSV/JSON (one schema) and hides in text (*hidden). Returns how many. */
size_t xp_step_cat_columns(bool pytorch, enum xp_step_cat out[XP_N_STEP_CATS], bool hidden[XP_N_STEP_CATS]);
struct xp_step;
int64_t xp_step_cat_ps(const struct xp_step *s, enum xp_step_cat c);

/* --- the step database ---------------------------------------------------- */

/* A step's values, by index: the breakdown by event type (XP_STEP_TYPE + type), then the H2D, D2H and D2D
 * device copies' count, bytes and time (XP_STEP_TRANSFER + 3 * kind + field). */
enum {
	XP_STEP_TYPE = 0,
	XP_STEP_TRANSFER = XP_N_EVENT_TYPES,
	XP_STEP_N_VALUES = XP_STEP_TRANSFER + 9
};
enum xp_transfer_field { XP_XFER_COUNT = 0, XP_XFER_BYTES = 1, XP_XFER_PS = 2 };

/* A step keeps only its values that are not zero, with its name, in one allocation: a step has a few of
 * its 29 values, and a capture can have millions of steps. Read them with xp_step_type_ps and
 * xp_step_transfer; make them with xp_step_set; free them with xp_step_release. */
struct xp_step {
	int64_t id;             /* group id (or marker ordinal with --step-marker) */
	int64_t begin_ps;       /* step marker start, host time base */
	int64_t duration_ps;    /* step time */
	char *name;             /* step name ("train 12", or the id as text); never NULL once set */
	int64_t *vals;          /* the values not zero, in index order, then the name */
	uint32_t has;           /* bit i: value i is not zero */
};
_Static_assert(XP_STEP_N_VALUES <= 32, "a step's values fit its mask");

static inline int64_t xp_step_value(const struct xp_step *s, unsigned i)
{
	uint32_t bit = (uint32_t)1 << i;
	return s->has & bit ? s->vals[xp_popcount32(s->has & (bit - 1))] : 0;
}

/* Breakdown of type T; the types sum to duration_ps. */
static inline int64_t xp_step_type_ps(const struct xp_step *s, enum xp_event_type t)
{
	return xp_step_value(s, XP_STEP_TYPE + (unsigned)t);
}

/* Device copies of KIND (0 H2D, 1 D2H, 2 D2D) in the step: their count, bytes or time (F). */
static inline int64_t xp_step_transfer(const struct xp_step *s, unsigned kind, enum xp_transfer_field f)
{
	return xp_step_value(s, XP_STEP_TRANSFER + 3 * kind + (unsigned)f);
}

/* Give step S the values V and a copy of NAME (NULL: ""); S holds none yet. */
void xp_step_set(struct xp_step *s, const int64_t v[XP_STEP_N_VALUES], const char *name);
/* Free what xp_step_set gave S. */
void xp_step_release(struct xp_step *s);

enum xp_step_source {
	XP_STEPS_NONE = 0,      /* no step markers */
	XP_STEPS_GROUPED,       /* groups made by xpstat (EventForest) */
	XP_STEPS_PREGROUPED,    /* group_id written by the profiler (TF 2.3-2.10) */
	XP_STEPS_MARKER_REGEX   /* --step-marker */
};

struct xp_step_db {
	size_t n;
	struct xp_step *steps;          /* ascending id */
	enum xp_step_source source;
	bool has_device;                /* a GPU plane with events */
	bool tpu;                       /* TPU capture: breakdown not supported */
	bool grouping_skipped_loops;    /* a TF loop op disabled grouping (spec §4 step 0) */
	uint64_t n_dropped;             /* steps dropped as malformed (no compute) */
	char *dropped_why;              /* which and why, when the rule says more than "no compute" (PyTorch) */
	bool pytorch;                   /* PyTorch semantics: ProfilerStep spans, PyTorch categories */
	int64_t compute16_ps, compute32_ps; /* precision over all segments (spec §1.6) */
};

/* --- per-host preparation ------------------------------------------------- */

struct xp_prep;

struct xp_prep_opts {
	bool xprof_compat;      /* --compat=xprof: no host events on GPU, xprof's memcpy names */
	const char *step_marker; /* --step-marker REGEX (NULL = use groups) */
	bool groups_only;       /* group ids per event, but no step database (memory needs no more) */
	bool no_groups;         /* with groups_only: no grouping either, every group id -1 (memory of a capture
				 * without memory events, which reads no group id) */
	/* Called once every host's group ids are in place (xp_prep_line.group), before the step
	 * databases are built: report starts memory there. Not called with step_marker. */
	void (*groups_ready)(const struct xp_prep *p, void *arg);
	void *groups_arg;
	/* When set, the step database of grouped steps holds only the steps it keeps (by id and the name the
	 * step gets), the others never typed nor swept: trace --steps needs the steps it selects alone. The
	 * database's totals (compute16_ps, n_dropped...) then cover the kept steps only. */
	bool (*keep_step)(uint32_t id, const char *name, void *arg);
	void *keep_arg;
	/* Threads the step breakdown may use (0 or 1: the calling one): a command run alone gives its --threads. */
	int threads;
};

struct xp_prep_line {
	int32_t *group;         /* group id per event, -1 = none (NULL for derived lines) */
};

struct xp_prep_plane {
	struct xp_prep_line *lines;
};

struct xp_prep_host {
	const struct xp_host *host;
	struct xp_prep_plane *planes;
	uint32_t n_groups;
	char **group_names;     /* by group id (NULL entries: implicit roots); NULL once the steps are made */
	struct xp_step_db steps;
	int32_t *group_ids;     /* storage behind planes[].lines[].group */
};

struct xp_shared;
struct xp_steps_hold;

struct xp_prep {
	const struct xp_capture *cap;
	struct xp_prep_opts opts;
	uint32_t n_hosts;
	struct xp_prep_host *hosts;
	struct xp_shared *shared;       /* set by report: inputs built once for all its analyses; else NULL */
	struct xp_steps_hold *steps_hold;   /* private: the steps view (xp_prep_steps_view) */
};

/*
 * Every host's steps, counted by references, for tables that make their rows when written: report frees the
 * preparation before it writes, and steps, pod and input-pipeline each show every step. The view owns the
 * step arrays once made; the preparation's step databases keep pointing at them, read-only.
 */
struct xp_steps_view_host {
	char *name;                     /* the host's name */
	const struct xp_step *steps;
	size_t n;
};

struct xp_steps_view {
	uint32_t n_hosts;
	struct xp_steps_view_host *hosts;
	long refs;                      /* atomic */
};

/* --- several hosts (spec §6(a)) ---------------------------------------------- */

/* Which steps of each host make up the combined steps. */
struct xp_step_align {
	size_t n;               /* combined steps (0 when none or the intersection is empty) */
	uint32_t chief;         /* host with the shortest span of steps */
	size_t chief_first;     /* the chief's step index of combined step 0 */
	bool empty_intersect;   /* hosts have steps but no step is common to all */
	uint32_t n_hosts;
	long *first;            /* per host: its step index of combined step 0; -1 = not aligned (coordinator) */
};

/* Align the hosts' steps; hosts without a device when another host has one
 * (coordinators) take no part. Returns -1 only when out of memory. */
int xp_align_steps(const struct xp_prep *p, struct xp_step_align *out);
void xp_step_align_free(struct xp_step_align *a);

/* Step-time summary over steps (spec §1.5): sample standard deviation. */
struct xp_summary_stat {
	double avg, sdv, min, max;  /* milliseconds */
	size_t n;
};
void xp_summarize_ms(const double *v, size_t n, struct xp_summary_stat *out);

#endif
