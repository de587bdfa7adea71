/* trace_json_stage.c - the staging model: a small hash map, pid/tid keys, processes, threads, raw lines and host-wide metadata ids. */
#include "trace_json_stage.h"
#include "trace_json_values.h"

#include <stdlib.h>

/* --- processes, threads, lines --------------------------------------------------- */

/* pid/tid: integers, and strings holding canonical integers, are one key (Kineto
 * writes tid 25738 in one event and "25738" in the next). */
struct jkey tj_jkey_of(struct tj_stage *r, const struct jval *v)
{
	struct jkey k = {0, true};
	int64_t i;
	uint64_t u;
	switch (v->type) {
	case JV_NONE:
		return k;
	case JV_NUM:
	case JV_STR:
		if (!v->esc && (v->type == JV_STR || v->is_int) && v->len &&
		    !(v->len > 1 && v->p[0] == '0') && !(v->len > 2 && v->p[0] == '-' && v->p[1] == '0') &&
		    tj_int_text(v->p, v->len, &i, &u) == 1) {
			k.v = i;
			k.str = false;
			return k;
		}
		break;
	default:
		break;
	}
	k.v = tj_intern_val(r, v, 2);
	return k;
}

/* jkey_of, remembering the last text of the pid (slot 0) and tid (slot 1):
 * consecutive events mostly share their thread. */
struct jkey tj_jkey_cached(struct tj_stage *r, const struct jval *v, int slot)
{
	struct key_memo *m = &r->thr.key_memo[slot];
	if (v->type == JV_NONE)
		return tj_jkey_of(r, v);
	if (v->type == m->type && v->esc == m->esc && v->len == m->len && v->len <= sizeof m->text &&
	    same_bytes(v->p, m->text, v->len))
		return m->key;
	struct jkey k = tj_jkey_of(r, v);
	if (v->len <= sizeof m->text) {
		m->type = v->type;
		m->esc = v->esc;
		m->len = v->len;
		memcpy(m->text, v->p, v->len);
		m->key = k;
	}
	return k;
}

uint32_t tj_get_proc(struct tj_stage *r, struct jkey pid)
{
	struct key3 k = {pid.v, 0, pid.str};
	uint32_t i = kmap_get(&r->thr.proc_map, &k);
	if (i != UINT32_MAX)
		return i;
	GROW(r->thr.procs, r->thr.n_procs, r->thr.cap_procs);
	i = (uint32_t)r->thr.n_procs++;
	memset(&r->thr.procs[i], 0, sizeof r->thr.procs[i]);
	r->thr.procs[i].pid = pid;
	kmap_put(&r->thr.proc_map, &k, i);
	return i;
}

struct tmeta *tj_get_tmeta(struct tj_stage *r, struct jkey pid, struct jkey tid)
{
	struct key3 k = thread_key(pid, tid);
	uint32_t i = kmap_get(&r->thr.tmeta_map, &k);
	if (i == UINT32_MAX) {
		GROW(r->thr.tmetas, r->thr.n_tmetas, r->thr.cap_tmetas);
		i = (uint32_t)r->thr.n_tmetas++;
		memset(&r->thr.tmetas[i], 0, sizeof r->thr.tmetas[i]);
		kmap_put(&r->thr.tmeta_map, &k, i);
	}
	return &r->thr.tmetas[i];
}

uint32_t tj_get_line_slow(struct tj_stage *r, struct jkey pid, struct jkey tid, uint8_t route)
{
	struct key3 k = thread_key(pid, tid);
	k.c |= (uint64_t)route << 2;
	if (r->thr.have_last && key3_eq(&k, &r->thr.last_key))
		return r->thr.last_line;
	uint32_t i = kmap_get(&r->thr.line_map, &k);
	if (i == UINT32_MAX) {
		GROW(r->thr.lines, r->thr.n_lines, r->thr.cap_lines);
		i = (uint32_t)r->thr.n_lines++;
		struct rline *l = &r->thr.lines[i];
		memset(l, 0, sizeof *l);
		l->pid = pid;
		l->tid = tid;
		l->route = route;
		l->proc = tj_get_proc(r, pid);
		kmap_put(&r->thr.line_map, &k, i);
	}
	r->thr.last_key = k;
	r->thr.last_line = i;
	r->thr.have_last = true;
	return i;
}

uint64_t tj_line_append(struct rline *l, int64_t start, int64_t dur, uint32_t meta)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->start = xrealloc(l->start, l->cap * sizeof *l->start);
		l->dur = xrealloc(l->dur, l->cap * sizeof *l->dur);
		l->meta = xrealloc(l->meta, l->cap * sizeof *l->meta);
		l->sbeg = xrealloc(l->sbeg, l->cap * sizeof *l->sbeg);
	}
	uint64_t i = l->n++;
	uint32_t b = (uint32_t)(i >> XP_BLOCK_SHIFT);
	if (b == l->n_blocks) {
		if (l->n_blocks == l->cap_blocks) {
			/* most lines have one block: start with one */
			l->cap_blocks = l->cap_blocks ? l->cap_blocks * 2 : 1;
			l->blocks = xrealloc(l->blocks, l->cap_blocks * sizeof *l->blocks);
		}
		memset(&l->blocks[l->n_blocks++], 0, sizeof *l->blocks);
	}
	l->start[i] = start;
	l->dur[i] = dur;
	l->meta[i] = meta;
	l->sbeg[i] = l->blocks[b].stats.n;
	return i;
}

/* Grow a string id -> index array so that sid is in it (new entries 0). */
static void by_str_reserve(uint32_t **arr, size_t *cap, uint32_t sid)
{
	if (sid < *cap)
		return;
	size_t n = *cap ? *cap : 1024;
	while (n <= sid)
		n *= 2;
	*arr = xrealloc(*arr, n * sizeof **arr);
	memset(*arr + *cap, 0, (n - *cap) * sizeof **arr);
	*cap = n;
}

/* An event name, with or without a display name: the common case without one is an array lookup. */
uint32_t tj_event_meta_slow(struct tj_stage *r, uint32_t name, uint32_t disp)
{
	struct tj_meta *m = &r->meta;
	struct key3 k = {name, disp, 0};
	if (!disp) {
		by_str_reserve(&m->em_by_str, &m->cap_em_by_str, name);
		if (m->em_by_str[name])
			return m->em_by_str[name];
	}
	uint32_t i = kmap_get(&m->em_map, &k);
	if (i != UINT32_MAX)
		return i;
	if (m->n_em + 1 >= m->cap_em) {
		m->cap_em = m->cap_em ? m->cap_em * 2 : 256;
		m->em_name = xrealloc(m->em_name, m->cap_em * sizeof *m->em_name);
		m->em_disp = xrealloc(m->em_disp, m->cap_em * sizeof *m->em_disp);
	}
	i = (uint32_t)++m->n_em; /* 0 stays "missing" */
	m->em_name[i] = name;
	m->em_disp[i] = disp;
	kmap_put(&m->em_map, &k, i);
	if (!disp)
		m->em_by_str[name] = i;
	return i;
}

static enum numkey classify_stat_name(const char *n)
{
	static const char *const ints[] = {
		"id", "step_num", "iter_num", "_r", "_a", "_pt", "_p", "_ct", "_c", "_pid", "process_id", "group_id",
		"is_eager", "is_func", "tracing_count", "correlation_id", "device_id", "stream", "program_id", "run_id",
		"scope_range_id", "device_offset_ps", "device_duration_ps", "bytes_reserved", "bytes_allocated",
		"bytes_available", "peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", "data_type",
		"index_on_host", "device_ordinal", "parent_id", "element_id", "occupancy_min_grid_size",
		"occupancy_suggested_block_size", "flops", "model_flops", "bytes_accessed", "raw_bytes_accessed",
		"queue_id", "request_id", "replica_id", "global_chip_id", "chip_ordinal", "node_ordinal", "model_id",
		"core_type", "cuda_graph_id", "cuda_graph_exec_id", "cuda_graph_orig_id", "cuda_graph_node_id",
		"unique_hlo_op_id", "_ipl_stage_id", "payload_size_bytes", "buffer_size", "bytes_transferred",
		"batch_size_after_padding", "padding_amount", "batching_input_task_size", "self_duration_ps",
		"min_duration_ps", "total_profile_duration_ps", "max_iteration_num", "step_idle_time_ps",
		"symbol_id", "all_reduce_id", "all_reduce_unique_id", "dropped_traces", "clock_rate", "core_count",
		"memory_bandwidth", "memory_size", "compute_cap_major", "compute_cap_minor", "source_line",
	};
	static const char *const doubles[] = {
		"fragmentation", "theoretical_occupancy_pct", "peak_teraflops_per_second",
		"peak_hbm_bw_gigabytes_per_second", "kpi_value", "matrix_unit_utilization_percent",
		"hbm_utilization_percent",
	};
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
		if (!strcmp(n, ints[i]))
			return NK_INT;
	for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++)
		if (!strcmp(n, doubles[i]))
			return NK_DOUBLE;
	if (!strcmp(n, "long_name"))
		return NK_LONG_NAME;
	return NK_NONE;
}

/* A new stat name's metadata: how its string values read, and whether the command keeps it. */
static uint32_t new_stat_meta(struct tj_meta *m, const char *name, uint32_t sid)
{
	if (m->n_sm + 1 >= m->cap_sm) {
		bool first = !m->cap_sm;
		m->cap_sm = m->cap_sm ? m->cap_sm * 2 : 256;
		m->sm_name = xrealloc(m->sm_name, m->cap_sm * sizeof *m->sm_name);
		m->sm_numkey = xrealloc(m->sm_numkey, m->cap_sm);
		m->sm_drop = xrealloc(m->sm_drop, m->cap_sm);
		if (first) /* id 0, "missing", reads as a kept stat without a name */
			m->sm_name[0] = m->sm_numkey[0] = m->sm_drop[0] = 0;
	}
	uint32_t i = (uint32_t)++m->n_sm;
	m->sm_name[i] = sid;
	m->sm_numkey[i] = (uint8_t)classify_stat_name(name);
	m->sm_drop[i] = 0;
	for (int k = 0; m->drop_stats && m->drop_stats[k] && k < MAX_DROPS; k++) {
		if (!strcmp(name, m->drop_stats[k])) {
			m->sm_drop[i] = (uint8_t)(k + 1);
			m->drop_sm[k] = i;
			break;
		}
	}
	return i;
}

uint32_t tj_stat_meta(struct tj_stage *r, uint32_t sid)
{
	struct tj_meta *m = &r->meta;
	by_str_reserve(&m->sm_by_str, &m->cap_sm_by_str, sid);
	if (m->sm_by_str[sid])
		return m->sm_by_str[sid];
	if (m->n_sm + 1 >= XP_STAT_META_MASK) {
		/* the model numbers stat names in 27 bits; the caller gives up on the error */
		xp_err_set(r->err, XP_EXIT_INTERNAL, NULL, "too many distinct stat names");
		r->failed = true;
		return 0;
	}
	uint32_t i = new_stat_meta(m, xp_str(r->cap, sid), sid);
	m->sm_by_str[sid] = i;
	return i;
}

uint32_t tj_stat_named(struct tj_stage *r, const char *name)
{
	return tj_stat_meta(r, xp_intern(r->st, name, strlen(name)));
}

/* --- the stage as a whole -------------------------------------------------------------- */

void tj_stage_init(struct tj_stage *r, struct xp_capture *c, const char *const *drop_stats)
{
	memset(r, 0, sizeof *r);
	r->cap = c;
	r->st = &c->strings;
	r->thr.key_memo[0].type = r->thr.key_memo[1].type = 0xff; /* matches no value */
	r->meta.drop_stats = drop_stats;
}

void tj_rline_free(struct rline *l)
{
	free(l->start);
	free(l->dur);
	free(l->meta);
	free(l->sbeg);
	for (uint32_t b = 0; b < l->n_blocks; b++) {
		xp_stats_free(&l->blocks[b].stats);
		xp_blob_free(&l->blocks[b].blob);
	}
	free(l->blocks);
	l->start = l->dur = NULL;
	l->meta = l->sbeg = NULL;
	l->blocks = NULL;
	l->n = l->cap = 0;
	l->n_blocks = l->cap_blocks = 0;
}

static void threads_free(struct tj_threads *t)
{
	for (size_t i = 0; i < t->n_lines; i++)
		tj_rline_free(&t->lines[i]);
	free(t->lines);
	for (size_t i = 0; i < t->n_stacks; i++)
		free(t->stacks[i].v);
	free(t->stacks);
	for (size_t i = 0; i < t->n_procs; i++)
		xp_stats_free(&t->procs[i].pstats);
	free(t->procs);
	free(t->tmetas);
	kmap_free(&t->proc_map);
	kmap_free(&t->tmeta_map);
	kmap_free(&t->line_map);
	kmap_free(&t->stack_map);
	kmap_free(&t->steps_seen);
}

static void meta_free(struct tj_meta *m)
{
	kmap_free(&m->em_map);
	free(m->em_name);
	free(m->em_disp);
	free(m->em_by_str);
	free(m->sm_name);
	free(m->sm_numkey);
	free(m->sm_drop);
	free(m->sm_by_str);
}

void tj_free_xpstat_hosts(struct tj_stage *r)
{
	for (uint32_t i = 0; i < r->n_xpstat_hosts; i++)
		free(r->xpstat_hosts[i]);
	free(r->xpstat_hosts);
	free(r->xpstat_bases);
	r->xpstat_hosts = NULL;
	r->xpstat_bases = NULL;
	r->n_xpstat_hosts = 0;
}

void tj_stage_free(struct tj_stage *r)
{
	threads_free(&r->thr);
	meta_free(&r->meta);
	for (int i = 0; i < 4; i++)
		free(r->scr[i].p);
	free(r->strings.e);
	cJSON_Delete(r->device_props);
	cJSON_Delete(r->dist_info);
	tj_free_xpstat_hosts(r);
}
