/* profile.h - the memory profile's collection (profile.c), as its result tables (memory.c) read it. */
#ifndef XPSTAT_MEMORY_PROFILE_H
#define XPSTAT_MEMORY_PROFILE_H

#include "analyzers/prepare/prepare.h"
#include "pt_memory.h"
#include <stdint.h>
#include <string.h>

struct xp_memory_opts {
	const char *allocator;  /* only the allocator whose memory id or allocator_name this is (NULL = all) */
	bool breakdown;         /* add the table "breakdown": allocations live at each allocator's peak */
	bool timeline;          /* add the table "timeline" */
	uint64_t points;        /* timeline: at most this many points per allocator (0 = every event) */
	bool minmax;            /* timeline: POINTS windows give their lowest and their highest point (in event
				 * order; one when they are the same event), not only the highest */
};
/* The windows of the HTML page's memory timeline (report --format html): at most twice as many points. */
#define XP_HTML_MEMORY_POINTS 1000
/* Window w of the max box filter that samples n snapshots to `points` (spec §5.3 step 5). */
void xp_memory_window(uint64_t n, uint64_t points, uint64_t w, uint64_t *first, uint64_t *len);
/* A TF DataType enum value as the reference names it: "float", "int64_ref", "unknown dtype enum (99)". */
const char *xp_memory_dtype_name(int64_t v, char *buf, size_t n);

enum { MEM_ACT_NONE = 0, MEM_ACT_ALLOC = 1, MEM_ACT_DEALLOC = 2 };

/* What an event named NAME does to memory: MEM_ACT_ALLOC, MEM_ACT_DEALLOC, or MEM_ACT_NONE (no memory event). */
static inline uint8_t xp_mem_action(const char *name)
{
	return !strcmp(name, "MemoryAllocation") ? MEM_ACT_ALLOC
	       : !strcmp(name, "MemoryDeallocation") ? MEM_ACT_DEALLOC : MEM_ACT_NONE;
}

/* Stats present on an event (struct mem_ev.have). */
enum {
	MEM_H_STACK = 1 << 0, MEM_H_HEAP = 1 << 1, MEM_H_FREE = 1 << 2, MEM_H_FRAG = 1 << 3, MEM_H_PEAK = 1 << 4,
	MEM_H_REQ = 1 << 5, MEM_H_BYTES = 1 << 6, MEM_H_ADDR = 1 << 7, MEM_H_DTYPE = 1 << 8, MEM_H_ID_INT = 1 << 9,
	MEM_H_NAME = 1 << 10
};

/* A string in the capture (interned, or in a block's blob arena); not NUL-terminated. */
struct mem_str {
	const char *s;
	uint32_t len;
};

/* One memory event as read from the model. Missing stats are 0 / empty. */
struct mem_ev {
	int64_t t;              /* absolute time, ps from the host base */
	uint8_t act;
	unsigned have;
	int64_t stack, heap, free_b, peak, req, bytes, dtype, id_int;
	uint64_t addr;
	double frag;
	struct mem_str name, op, region, shape;
	bool name_interned;     /* name is an interned string: its pointer identifies it */
	int32_t group;          /* group id from the preparation, -1 = none */
};

/* A memory event of a host: its memory line and its index in that line. */
struct mem_ref {
	uint32_t line;
	uint32_t ev;
};

/* A reference as the 8 bytes the maps and the active set keep. */
static inline uint64_t xp_mem_pack(struct mem_ref r)
{
	return (uint64_t)r.line << 32 | r.ev;
}

static inline struct mem_ref xp_mem_unpack(uint64_t v)
{
	return (struct mem_ref){(uint32_t)(v >> 32), (uint32_t)v};
}

/* uint64 -> uint64 map (linear probing, backward-shift deletion). */
struct mem_map {
	uint64_t *keys, *vals;
	uint8_t *used;
	size_t cap, n;          /* cap is 0 or a power of two */
};

/* A point of the timeline: the event, where its op/region/type/shape come from, its step. */
struct mem_point {
	struct mem_ref ev, meta;
	int32_t step;
	uint64_t index;         /* position among the allocator's events */
};

/* A row of the breakdown: allocations live at the peak with the same op, region, type and shape. */
struct mem_row {
	struct mem_str op, region, shape;
	char dtype[48];
	int64_t bytes, req;
	uint64_t occ;
};

/* One allocator (memory id) of one host: the profile. */
struct mem_alc {
	char *id;               /* memory id: index_on_host/device_ordinal, else allocator_name */
	char *name;             /* the last allocator_name seen (NULL when none) */
	uint32_t host;
	bool selected;
	/* pass 1: over every event, in time order */
	uint64_t n, n_alloc, n_dealloc, n_missing, n_unmatched;
	int64_t first_t, last_t;
	bool has_lifetime, has_peak, has_name;
	bool pt_blind;          /* PyTorch events without Total Allocated/Addr: peak and pairing unknown here */
	struct mem_ref peak_ref, life_ref, name_ref;    /* the peak; the last event with a lifetime peak, a name */
	int64_t lifetime_peak;
	int64_t peak, peak_t, stack, heap, free_b, capacity;    /* at the peak */
	double frag;
	int32_t peak_step;
	int32_t last_valid;     /* step fix state */
	bool any_step;          /* an event of it carries a step (group id): its step numbers mean something */
	struct mem_map pending; /* address -> allocation not yet freed */
	struct mem_map matched; /* seq index of a deallocation -> its allocation (timeline, or no size) */
	/* pass 2: the peak step up to the peak, and the timeline */
	uint64_t i;
	struct mem_map active;  /* address -> allocation of the peak step live at the peak */
	int64_t unmapped, unmapped_dealloc;
	struct mem_point *pts;
	size_t n_pts, cap_pts;
	uint64_t points;        /* 0: every event is a point */
	uint64_t win, win_end;
	bool have_best;
	int64_t best_v, low_v;
	struct mem_point best, low;
	bool minmax;
	/* Read back from a saved report's state (combine): its breakdown rows, texts in the state. */
	struct mem_row *saved_rows;
	size_t n_saved_rows;
};

/* The analysis state of one host. */
struct mem_host {
	const struct xp_capture *c;
	const struct xp_prep_host *ph;
	const struct xp_host *h;
	uint32_t host;
	uint8_t **act;          /* per plane: activity of each event metadata (NULL: not a host plane) */
	uint8_t **role;         /* per plane: role of each stat metadata */
	uint8_t **scan_role;    /* the same with only the roles pass 1 reads, the others R_NONE */
	struct { uint32_t plane, line; } *lines;
	uint32_t n_lines;
	struct mem_ref *seq;    /* the memory events in time order */
	uint32_t *aidx;         /* per seq entry: its allocator */
	int32_t *step;          /* per seq entry: its step id after the fix */
	uint64_t n_seq;
};

struct mem {
	const struct xp_prep *p;
	struct xp_memory_opts o;
	struct mem_host *hosts;
	struct mem_alc **alcs;  /* in the order they were met (mem_host.aidx indexes this) */
	struct mem_alc **sorted; /* by (host, id): the output order */
	size_t n_alcs, cap_alcs;
	uint32_t *ht;           /* allocator index + 1 by (host, id); 0 = empty */
	size_t hcap;
	uint64_t n_events;
	size_t n_selected;
	uint32_t hosts_with;    /* hosts with a selected allocator */
	const char *semantics;  /* the capture's rules (PyTorch's add the devices table) */
	bool saved;             /* read back from saved state (combine): no capture, the rows below */
	struct xp_pt_mem_dev *pt;       /* ... the devices table's rows */
	size_t n_pt;
};

/* Read seq entry r of host mh. */
void xp_mem_decode(const struct mem_host *mh, struct mem_ref r, struct mem_ev *e);
/* A deallocation without a size frees what its allocation (ref) took. */
void xp_mem_inherit_size(const struct mem_host *mh, struct mem_ref alloc, struct mem_ev *e);
/* Breakdown rows of a selected allocator with a peak (spec §5.3 steps 7-9), sorted and merged. */
size_t xp_mem_breakdown(const struct mem_host *mh, const struct mem_alc *a, struct mem_row **out);
int64_t xp_mem_sat_add(int64_t a, int64_t b);
int64_t xp_mem_sat_sub(int64_t a, int64_t b);

/* Both passes over every host of P: M gets the allocators and their profiles; free with xp_mem_profile_free. */
void xp_mem_profile(struct mem *m, const struct xp_prep *p, const struct xp_memory_opts *o);
void xp_mem_profile_free(struct mem *m);

#endif
