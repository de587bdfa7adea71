/* trace_json_state.h - the committing side's state of the trace JSON reader: staged processes, threads, raw lines and host-wide metadata (types only). */
#ifndef XPSTAT_TRACE_JSON_STATE_H
#define XPSTAT_TRACE_JSON_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "formats/core/xalloc.h"
#include "formats/model/capture.h"
#include "json_lex.h"
#include "trace_json_kmap.h"
#include "trace_json_time.h"

#define INTERN_MAX 4096 /* longer string values go to the block's blob */
#define MAX_DROPS 64    /* drop_stats names honoured (a bit each per line); later ones are kept */

#define GROW(arr, n, cap)                                                      \
	do {                                                                   \
		if ((n) >= (cap)) {                                            \
			(cap) = (cap) ? (cap) * 2 : 16;                        \
			(arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr)); \
		}                                                              \
	} while (0)

/* Where an event's line lives: from its process (auto), or forced by its category. */
enum route { RT_AUTO = 0, RT_HOST, RT_DEVICE, RT_ANNOT, RT_COUNTER, RT_ASYNC };
/* What a stat name says about TF's string args (TF writes every arg as a string). */
enum numkey { NK_NONE = 0, NK_INT, NK_DOUBLE, NK_LONG_NAME };

/* A pid or tid: an integer, or an interned string (Kineto writes "Spans", "stream 7"). */
struct jkey {
	int64_t v;
	bool str;
};

/* The most hosts an xpstat export names (xpstat_host_N in otherData). */
#define XP_MAX_EXPORT_HOSTS 65536

struct proc {
	struct jkey pid;
	uint32_t name, labels;
	bool has_name, has_labels, device_events, has_dev_arg;
	int64_t dev_arg;        /* "device" arg of its device events */
	uint32_t xp_host;       /* an xpstat export of several hosts: its host's index (process_labels) */
	struct xp_stats pstats; /* its plane's stats: the other args of process_name (an xpstat export) */
};

struct tmeta {
	uint32_t name;
	bool has_name, has_sort, has_line_id;
	int64_t sort;
	int64_t line_id;        /* an xpstat export's thread: the capture's line id (tid is its low 32 bits) */
};

/* A raw line: the events of one (pid, tid, route), in arrival order. */
struct rline {
	struct jkey pid, tid;
	uint8_t route;
	uint32_t proc;
	uint64_t n, cap;
	int64_t *start, *dur;
	uint32_t *meta, *sbeg;
	struct xp_block *blocks;
	uint32_t n_blocks, cap_blocks;
	uint64_t n_dropped;     /* stats not kept (xp_json_opts.drop_stats) */
	uint64_t dropped_names; /* which: bit k = drop_stats[k] */
	bool overflow, has_dev_arg;
	int64_t dev_arg;
	uint32_t plane;         /* set when finishing */
};

/* Open B events of a thread, or async begins of an id, closed by their ends. */
struct stack_ent {
	uint32_t line;
	uint64_t ev;
};

struct stack {
	struct stack_ent *v;
	size_t n, cap;
};

/* Processes, threads and lines as events name them. */
struct tj_threads {
	struct proc *procs;
	size_t n_procs, cap_procs;
	struct kmap proc_map;
	struct tmeta *tmetas;
	size_t n_tmetas, cap_tmetas;
	struct kmap tmeta_map;
	struct rline *lines;
	size_t n_lines, cap_lines;
	struct kmap line_map;
	struct key3 last_key;   /* the line of the last event: the next one is mostly on it */
	uint32_t last_line;
	bool have_last;
	struct key_memo {       /* the last pid and tid text and their keys */
		uint8_t type;
		bool esc;
		size_t len;
		uint8_t text[24];
		struct jkey key;
	} key_memo[2];
	struct stack *stacks;
	size_t n_stacks, cap_stacks;
	struct kmap stack_map;
	struct kmap steps_seen; /* ProfilerStep#N numbers already made step roots */
};

/* Host-wide metadata: event names (name, display) and stat names; planes renumber them. */
struct tj_meta {
	uint32_t *em_name, *em_disp;
	size_t n_em, cap_em;
	struct kmap em_map;
	uint32_t *em_by_str;    /* name string id -> event metadata id without a display name */
	size_t cap_em_by_str;
	uint32_t *sm_name;
	uint8_t *sm_numkey;
	uint8_t *sm_drop;       /* 0: kept; k + 1: drop_stats[k], not kept */
	size_t n_sm, cap_sm;
	uint32_t *sm_by_str;    /* string id -> stat metadata id (0 = none yet) */
	size_t cap_sm_by_str;
	const char *const *drop_stats;
	uint32_t drop_sm[MAX_DROPS]; /* stat metadata id of drop_stats[k], once seen */
	struct key_slot {       /* two ways a set: args key text -> stat metadata id */
		const char *s;
		uint32_t len, sm;
	} key_cache[256];
};

struct scratch {
	uint8_t *p;
	size_t cap;
};

/* A cache in front of the capture's string table: the same few names, keys
 * and values come back in every event, and a word-at-a-time hash is much
 * cheaper than the table's byte-at-a-time one. */
struct scache_ent {
	uint64_t hash;
	uint32_t id;            /* string id + 1; 0 = empty slot */
	uint32_t len;
};

struct scache {
	struct scache_ent *e;
	size_t cap, n;
};

/* The committing side of the reader: everything events and top-level values leave behind. */
struct tj_stage {
	struct xp_capture *cap;
	struct xp_strtab *st;
	const struct jlex *at;  /* the text being committed: error offsets count in it */
	struct xp_err *err;
	bool failed;            /* an error that is not the text's (too many stat names) is in err */
	struct scratch scr[4];  /* slots: 0 the event name, 1 values, 2 keys, 3 numbers */
	struct scache strings;
	struct tj_threads thr;
	struct tj_meta meta;
	struct tj_clock clock;
	cJSON *device_props, *dist_info;
	uint32_t host_name;
	bool has_host_name;
	/* An xpstat export (otherData): ts 0 is this absolute time, and its hosts' names. */
	bool has_origin;
	int64_t origin_ns;
	char **xpstat_hosts;
	int64_t *xpstat_bases;  /* each host's base (xpstat_host_base_ns_N), else origin_ns */
	uint32_t n_xpstat_hosts;
	struct xp_json_counts counts;
	struct xp_oddities odd;
};

static inline struct key3 thread_key(struct jkey pid, struct jkey tid)
{
	struct key3 k = {pid.v, tid.v, (uint64_t)pid.str | (uint64_t)tid.str << 1};
	return k;
}

static inline struct xp_block *cur_block(struct rline *l)
{
	return &l->blocks[l->n_blocks - 1];
}

#endif
