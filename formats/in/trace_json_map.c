/* trace_json_map.c - trace events onto the model: phases, Kineto categories and TF's conventions, stats from args. */
#include "trace_json_map.h"
#include "trace_json_stage.h"
#include "trace_json_values.h"

#include <inttypes.h>
#include <stdio.h>
#include <strings.h>

/* Kineto / PyTorch event categories that change the mapping. */
enum cat { C_NONE = 0, C_KERNEL, C_MEMCPY, C_MEMSET, C_GPU_ANNOT, C_DEVICE, C_RUNTIME, C_HOST };

/* --- times ---------------------------------------------------------------------------------- */

/* ts of an event, relative to the first ts of the file. */
static int event_ts(struct tj_stage *r, const struct ev *e, int64_t *rel, bool *overflow)
{
	const struct jval *v = &e->ts;
	__int128 ps;
	int rc = tj_time_ps(v, e->ts_done, e->ts_ps, &ps);
	if (rc == TM_BAD)
		return jl_err(r->at, v->p, "ts is not a number");
	if (rc == TM_RANGE || tj_ts_rel(&r->clock, ps, rel, overflow) == TM_RANGE)
		return jl_err(r->at, v->p, "ts out of range (more than 9e15 microseconds)");
	return 0;
}

static int event_dur(struct tj_stage *r, const struct ev *e, int64_t *dur)
{
	const struct jval *v = &e->dur;
	__int128 ps = 0;
	bool negative;
	*dur = 0;
	if (v->type == JV_NONE)
		return 0;
	int rc = tj_time_ps(v, e->dur_done, e->dur_ps, &ps);
	if (rc == TM_BAD)
		return jl_err(r->at, v->p, "dur is not a number");
	if (rc == TM_RANGE || tj_dur(ps, dur, &negative) == TM_RANGE)
		return jl_err(r->at, v->p, "dur out of range");
	r->odd.negative_durations += negative;
	return 0;
}

/* --- stats ---------------------------------------------------------------------------------- */

/* A stat the command does not keep: counted, and its name remembered for the plane's metadata. */
static bool dropped(struct tj_stage *r, struct rline *l, uint32_t sm)
{
	if (!r->meta.sm_drop[sm])
		return false;
	l->n_dropped++;
	l->dropped_names |= (uint64_t)1 << (r->meta.sm_drop[sm] - 1);
	return true;
}

static void push(struct tj_stage *r, struct rline *l, uint32_t sm, unsigned kind, uint64_t val)
{
	if (!dropped(r, l, sm))
		xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(kind, sm), val);
}

static void push_i64(struct tj_stage *r, struct rline *l, uint32_t sm, int64_t v)
{
	push(r, l, sm, XP_STAT_I64, (uint64_t)v);
}

/* A string stat: interned when short, else kept in the block's blob. */
static void push_text(struct tj_stage *r, struct rline *l, uint32_t sm, const uint8_t *p, size_t n)
{
	if (dropped(r, l, sm))
		return;
	if (n <= INTERN_MAX) {
		xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(XP_STAT_STR, sm), tj_intern(r, p, n));
		return;
	}
	if (n > UINT32_MAX - 8)
		n = UINT32_MAX - 8;
	xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(XP_STAT_BLOBSTR, sm),
		      xp_blob_put(&cur_block(l)->blob, p, (uint32_t)n));
}

static void push_cstr(struct tj_stage *r, struct rline *l, const char *name, const char *s)
{
	uint32_t sm = tj_stat_named(r, name);
	if (!dropped(r, l, sm))
		xp_stats_push(&cur_block(l)->stats, xp_stat_make_key(XP_STAT_STR, sm), xp_intern(r->st, s, strlen(s)));
}

/* The stat metadata id of an args key. The same keys come in event after event: a small cache
 * spares hashing them. Two ways a set, the newer first: keys that collide (tf_op and
 * occupancy_min_grid_size on the same kernels) both stay. 0: too many stat names. */
static uint32_t arg_stat(struct tj_stage *r, const struct jstr *key)
{
	/* scratch slots: 0 holds the event name, 1 values, 2 keys, 3 numbers */
	size_t kn = key->len;
	const uint8_t *kp = key->p;
	if (key->esc) {
		uint8_t *b = tj_scratch(r, 2, key->len);
		kn = jl_unescape(key->p, key->len, b, &r->odd.invalid_utf8);
		kp = b;
	}
	size_t set = (kn * 31 + (kn ? kp[0] * 7u + kp[kn / 2] * 13u + kp[kn - 1] : 0)) & 254;
	struct key_slot *ks = &r->meta.key_cache[set];
	if (ks[0].s && ks[0].len == kn && same_bytes((const uint8_t *)ks[0].s, kp, kn))
		return ks[0].sm;
	if (ks[1].s && ks[1].len == kn && same_bytes((const uint8_t *)ks[1].s, kp, kn))
		return ks[1].sm;
	uint32_t sid = tj_intern(r, kp, kn), sm = tj_stat_meta(r, sid);
	if (sm) {
		ks[1] = ks[0];
		ks[0] = (struct key_slot){xp_str(r->cap, sid), (uint32_t)kn, sm};
	}
	return sm;
}

/* Integer text as an I64 or (above INT64_MAX) U64 stat; false when it is not one. */
static bool push_int_text(struct tj_stage *r, struct rline *l, uint32_t sm, const uint8_t *p, size_t n)
{
	int64_t i;
	uint64_t u;
	int k = tj_int_text(p, n, &i, &u);
	if (k == 1)
		push_i64(r, l, sm, i);
	else if (k == 2)
		push(r, l, sm, XP_STAT_U64, u);
	return k != 0;
}

static void push_double(struct tj_stage *r, struct rline *l, uint32_t sm, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	push(r, l, sm, XP_STAT_F64, u);
}

/* A number keeps its type: integers as such, the rest as a finite double. */
static int push_number(struct tj_stage *r, struct rline *l, uint32_t sm, const struct jval *v)
{
	double d;
	if (v->is_int && push_int_text(r, l, sm, v->p, v->len))
		return 0;
	if (!tj_text_double(r, v->p, v->len, &d))
		return jl_err(r->at, v->p, "number out of range");
	push_double(r, l, sm, d);
	return 0;
}

/* A string: TF's string numbers of known numeric stats are converted, the rest kept as text. */
static void push_string(struct tj_stage *r, struct rline *l, uint32_t sm, const struct jval *v)
{
	size_t n;
	double d;
	const uint8_t *p = tj_str_bytes(r, v, 1, &n);
	uint8_t nk = r->meta.sm_numkey[sm];
	if (nk == NK_INT && push_int_text(r, l, sm, p, n))
		return;
	if (nk == NK_DOUBLE && tj_text_double(r, p, n, &d)) {
		push_double(r, l, sm, d);
		return;
	}
	push_text(r, l, sm, p, n);
}

/* One args member as a stat; arrays and objects become compact JSON. */
static int push_arg(struct tj_stage *r, struct rline *l, const struct jarg *a)
{
	uint32_t sm = arg_stat(r, &a->key);
	const struct jval *v = &a->val;
	size_t n;
	if (!sm)
		return -1;
	/* A dropped string or container needs no conversion; numbers go on, for their range check.
	 * A string with escapes is unescaped all the same (rare): its invalid UTF-8 is counted as a
	 * kept string's is, so that the completeness report does not depend on the command. */
	if (v->type != JV_NUM && r->meta.sm_drop[sm]) {
		if (v->type == JV_STR && v->esc)
			tj_unescaped(r, v, 1, &n);
		dropped(r, l, sm);
		return 0;
	}
	switch (v->type) {
	case JV_NULL:
		return 0;
	case JV_TRUE:
	case JV_FALSE:
		push_i64(r, l, sm, v->type == JV_TRUE);
		return 0;
	case JV_NUM:
		return push_number(r, l, sm, v);
	case JV_STR:
		push_string(r, l, sm, v);
		return 0;
	default: {
		const uint8_t *p = tj_compact(r, v, 1, &n);
		push_text(r, l, sm, p, n);
		return 0;
	}
	}
}

static const struct jval *arg(struct tj_stage *r, const struct ev *e, const char *key)
{
	size_t n = strlen(key);
	for (size_t k = e->na; k-- > 0;)
		if (!e->av[k].key.esc && e->av[k].key.len == n && !memcmp(e->av[k].key.p, key, n))
			return &e->av[k].val;
	return NULL;
}

static bool arg_int(struct tj_stage *r, const struct ev *e, const char *key, int64_t *out)
{
	const struct jval *v = arg(r, e, key);
	return v && tj_val_int(v, out);
}

/* --- the Kineto mapping ---------------------------------------------------------------- */

static enum cat classify_cat(const struct jval *c)
{
	if (c->type != JV_STR || c->esc || !c->len)
		return C_NONE;
	const char *p = (const char *)c->p;
	size_t n = c->len;
#define IS(s) (n == sizeof(s) - 1 && !strncasecmp(p, s, n))
	if (IS("kernel"))
		return C_KERNEL;
	if (IS("gpu_memcpy") || IS("memcpy"))
		return C_MEMCPY;
	if (IS("gpu_memset") || IS("memset"))
		return C_MEMSET;
	if (IS("gpu_user_annotation"))
		return C_GPU_ANNOT;
	if (IS("cuda_profiler_range"))
		return C_DEVICE;
	if (IS("cuda_runtime") || IS("cuda_driver") || IS("runtime") || IS("driver"))
		return C_RUNTIME;
	if (IS("cpu_op") || IS("operator") || IS("user_annotation") || IS("python_function") || IS("python") ||
	    IS("cpu_instant_event") || IS("overhead"))
		return C_HOST;
#undef IS
	return C_NONE;
}

/* [x, y, z] of three non-negative integers. */
static bool arr3(const struct jval *v, uint64_t out[3])
{
	if (!v || v->type != JV_ARR)
		return false;
	const uint8_t *p = v->p + 1, *end = v->p + v->len - 1;
	for (int k = 0; k < 3; k++) {
		while (p < end && jl_is_ws(*p))
			p++;
		if (p >= end || !jl_is_digit(*p))
			return false;
		uint64_t x = 0;
		while (p < end && jl_is_digit(*p)) {
			if (x > UINT32_MAX)
				return false;
			x = x * 10 + (uint64_t)(*p++ - '0');
		}
		out[k] = x;
		while (p < end && jl_is_ws(*p))
			p++;
		if (k < 2 && (p >= end || *p++ != ','))
			return false;
	}
	while (p < end && jl_is_ws(*p))
		p++;
	return p == end;
}

/* kernel_details in the current NVIDIA form from Kineto's kernel args; only the fields the trace has. */
static void synth_kernel(struct tj_stage *r, struct rline *l, const struct ev *e)
{
	char buf[256];
	size_t n = 0;
	int64_t regs, shm;
	uint64_t g[3], b[3];
	if (arg_int(r, e, "registers per thread", &regs))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " regs:%" PRId64, regs);
	if (arg_int(r, e, "shared memory", &shm))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " static_shared:%" PRId64 " dynamic_shared:0", shm);
	if (arr3(arg(r, e, "grid"), g))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " grid:%" PRIu64 ",%" PRIu64 ",%" PRIu64, g[0], g[1], g[2]);
	if (arr3(arg(r, e, "block"), b))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " block:%" PRIu64 ",%" PRIu64 ",%" PRIu64, b[0], b[1], b[2]);
	const struct jval *occ = arg(r, e, "est. achieved occupancy %");
	if (occ && occ->type == JV_NUM && occ->len < 64)
		n += (size_t)snprintf(buf + n, sizeof buf - n, " occ_pct:%.*s", (int)occ->len, (const char *)occ->p);
	if (!n) {
		/* No launch facts (ROCm traces): kernel_details must still be there, and
		 * non-empty, for the event to count as a kernel; say what is known. */
		int64_t dev, stream;
		if (arg_int(r, e, "device", &dev))
			n += (size_t)snprintf(buf + n, sizeof buf - n, " device:%" PRId64, dev);
		if (arg_int(r, e, "stream", &stream))
			n += (size_t)snprintf(buf + n, sizeof buf - n, " stream:%" PRId64, stream);
		if (!n)
			n = (size_t)snprintf(buf, sizeof buf, " launch:unknown");
	}
	push_cstr(r, l, "kernel_details", buf + 1);
}

static void synth_correlation(struct tj_stage *r, struct rline *l, const struct ev *e)
{
	int64_t c;
	if (arg_int(r, e, "correlation", &c))
		push_i64(r, l, tj_stat_named(r, "correlation_id"), c);
}

/* "(Pageable -> Device)" -> "kind_src:pageable kind_dst:device " */
static size_t copy_kinds(const uint8_t *name, size_t n, char *out, size_t cap)
{
	const uint8_t *lp = memchr(name, '(', n), *arrow, *rp;
	if (!lp)
		return 0;
	size_t rest = n - (size_t)(lp - name);
	if (!(rp = memchr(lp, ')', rest)) || !(arrow = memmem(lp, (size_t)(rp - lp), "->", 2)))
		return 0;
	char a[32], b[32];
	size_t na = 0, nb = 0;
	for (const uint8_t *q = lp + 1; q < arrow && na < sizeof a - 1; q++)
		if (!jl_is_ws(*q))
			a[na++] = (char)(*q | 0x20);
	for (const uint8_t *q = arrow + 2; q < rp && nb < sizeof b - 1; q++)
		if (!jl_is_ws(*q))
			b[nb++] = (char)(*q | 0x20);
	if (!na || !nb)
		return 0;
	int k = snprintf(out, cap, "kind_src:%.*s kind_dst:%.*s ", (int)na, a, (int)nb, b);
	return k > 0 && (size_t)k < cap ? (size_t)k : 0;
}

/* "Memcpy HtoD (Pageable -> Device)" -> "MemcpyH2D" (the CUPTI activity names). */
static const char *memcpy_name(const uint8_t *p, size_t n)
{
	if (n < 11 || memcmp(p, "Memcpy ", 7) || (p[8] | 0x20) != 't' || (p[9] | 0x20) != 'o' ||
	    (n > 11 && p[11] != ' '))
		return "MemcpyOther";
	static const struct {
		char s, d;
		const char *name;
	} map[] = {
		{'H', 'D', "MemcpyH2D"}, {'D', 'H', "MemcpyD2H"}, {'D', 'D', "MemcpyD2D"},
		{'H', 'H', "MemcpyH2H"}, {'P', 'P', "MemcpyP2P"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (p[7] == map[i].s && p[10] == map[i].d)
			return map[i].name;
	return "MemcpyOther";
}

static void synth_copy(struct tj_stage *r, struct rline *l, const struct ev *e, const uint8_t *name, size_t n,
		       bool memset_)
{
	char buf[160];
	size_t k = 0;
	int64_t bytes;
	bool has = arg_int(r, e, "bytes", &bytes);
	if (memset_) {
		k = (size_t)snprintf(buf, sizeof buf, "kind:device");
		if (has)
			k += (size_t)snprintf(buf + k, sizeof buf - k, " num_bytes:%" PRId64, bytes);
		push_cstr(r, l, "Memset_details", buf);
	} else {
		k = copy_kinds(name, n, buf, sizeof buf);
		if (has)
			snprintf(buf + k, sizeof buf - k, "size:%" PRId64, bytes);
		else if (k)
			buf[k - 1] = 0;
		else
			buf[0] = 0;
		if (has || k)
			push_cstr(r, l, "memcpy_details", buf);
	}
	synth_correlation(r, l, e);
}

/* [memory] instants -> MemoryAllocation / MemoryDeallocation with allocator stats. */
static void synth_memory(struct tj_stage *r, struct rline *l, const struct ev *e, int64_t bytes)
{
	int64_t id = -1, type = -1, v;
	bool has_id = arg_int(r, e, "Device Id", &id), has_type = arg_int(r, e, "Device Type", &type);
	char alloc[64];
	if ((has_type && (type == 1 || type == 6)) || (!has_type && has_id && id >= 0))
		snprintf(alloc, sizeof alloc, "GPU_%" PRId64, id); /* CUDA, HIP */
	else if ((has_type && type == 0) || (has_id && id < 0) || (!has_type && !has_id))
		snprintf(alloc, sizeof alloc, "CPU");
	else
		snprintf(alloc, sizeof alloc, "DEVICE%" PRId64 "_%" PRId64, type, id);
	push_cstr(r, l, "allocator_name", alloc);
	if (arg_int(r, e, "Total Allocated", &v))
		push_i64(r, l, tj_stat_named(r, "bytes_allocated"), v);
	/* PyTorch's reserved memory holds the allocated memory: it is no TensorFlow stack reservation to add to it. */
	if (arg_int(r, e, "Total Reserved", &v))
		push_i64(r, l, tj_stat_named(r, "total_reserved"), v);
	int64_t mag = bytes == INT64_MIN ? INT64_MAX : bytes < 0 ? -bytes : bytes;
	push_i64(r, l, tj_stat_named(r, "requested_bytes"), mag);
	push_i64(r, l, tj_stat_named(r, "allocation_bytes"), mag);
	const struct jval *addr = arg(r, e, "Addr");
	int64_t ai;
	uint64_t au;
	int k = addr && addr->type == JV_NUM && addr->is_int ? tj_int_text(addr->p, addr->len, &ai, &au) : 0;
	if (k == 1)
		push(r, l, tj_stat_named(r, "addr"), ai >= 0 ? XP_STAT_U64 : XP_STAT_I64, (uint64_t)ai);
	else if (k == 2)
		push(r, l, tj_stat_named(r, "addr"), XP_STAT_U64, au);
}

/* "ProfilerStep#N" with N all digits. */
static bool profiler_step(const uint8_t *p, size_t n, int64_t *num)
{
	uint64_t u;
	return n > 13 && !memcmp(p, "ProfilerStep#", 13) && tj_int_text(p + 13, n - 13, num, &u) == 1 && p[13] != '-';
}

/* --- commit: one element into the staging model ------------------------------------------ */

static struct stack *get_stack(struct tj_stage *r, const struct key3 *k, bool create)
{
	uint32_t i = kmap_get(&r->thr.stack_map, k);
	if (i == UINT32_MAX) {
		if (!create)
			return NULL;
		GROW(r->thr.stacks, r->thr.n_stacks, r->thr.cap_stacks);
		i = (uint32_t)r->thr.n_stacks++;
		memset(&r->thr.stacks[i], 0, sizeof r->thr.stacks[i]);
		kmap_put(&r->thr.stack_map, k, i);
	}
	return &r->thr.stacks[i];
}

static void stack_push(struct stack *s, uint32_t line, uint64_t ev)
{
	GROW(s->v, s->n, s->cap);
	s->v[s->n].line = line;
	s->v[s->n].ev = ev;
	s->n++;
}

/* Close the event on top of the stack at ts rel. */
static bool stack_pop(struct tj_stage *r, struct stack *s, int64_t rel)
{
	if (!s || !s->n)
		return false;
	struct stack_ent t = s->v[--s->n];
	struct rline *l = &r->thr.lines[t.line];
	int64_t d;
	if (__builtin_sub_overflow(rel, l->start[t.ev], &d))
		d = rel > l->start[t.ev] ? INT64_MAX : -1;
	if (d < 0) {
		r->odd.negative_durations++;
		d = 0;
	}
	l->dur[t.ev] = d;
	return true;
}

/* The key of an async event's stack: pid, category and id (or id2) as text. */
static struct key3 async_key(struct tj_stage *r, const struct ev *e, struct jkey pid)
{
	const struct jval *id = e->id.type ? &e->id : &e->id2;
	struct key3 k = {pid.v, e->cat.type ? tj_intern_val(r, &e->cat, 1) : 0, 4};
	k.c |= (uint64_t)(id->type ? tj_intern_val(r, id, 2) : 0) << 8 | (uint64_t)pid.str;
	return k;
}

/* The args of a process_name but its name: the plane's stats, as `xpstat trace` writes them. */
static void proc_stats(struct tj_stage *r, struct proc *p, const struct ev *e)
{
	for (size_t k = 0; k < e->na; k++) {
		const struct jarg *a = &e->av[k];
		const struct jval *v = &a->val;
		if (a->key.len == 4 && !a->key.esc && !memcmp(a->key.p, "name", 4))
			continue;
		uint32_t sm = arg_stat(r, &a->key);
		int64_t i;
		uint64_t u;
		double d;
		size_t n;
		int kind = v->type == JV_NUM && v->is_int ? tj_int_text(v->p, v->len, &i, &u) : 0;
		if (!sm)
			return;
		if (kind == 1 || v->type == JV_TRUE || v->type == JV_FALSE) {
			xp_stats_push(&p->pstats, xp_stat_make_key(XP_STAT_I64, sm), kind == 1 ? (uint64_t)i : v->type == JV_TRUE);
		} else if (kind == 2) {
			xp_stats_push(&p->pstats, xp_stat_make_key(XP_STAT_U64, sm), u);
		} else if (v->type == JV_NUM && tj_text_double(r, v->p, v->len, &d)) {
			memcpy(&u, &d, sizeof u);
			xp_stats_push(&p->pstats, xp_stat_make_key(XP_STAT_F64, sm), u);
		} else if (v->type == JV_STR) {
			const uint8_t *s = tj_str_bytes(r, v, 1, &n);
			if (r->meta.sm_numkey[sm] == NK_INT && tj_int_text(s, n, &i, &u))
				xp_stats_push(&p->pstats, xp_stat_make_key(i < 0 || (uint64_t)i == u ? XP_STAT_I64 : XP_STAT_U64, sm),
					      (uint64_t)i == u || i < 0 ? (uint64_t)i : u);
			else
				xp_stats_push(&p->pstats, xp_stat_make_key(XP_STAT_STR, sm), xp_intern(r->st, (const char *)s, n));
		}
	}
}

static void handle_metadata(struct tj_stage *r, const struct ev *e, const uint8_t *name, size_t n)
{
	struct jkey pid = tj_jkey_of(r, &e->pid), tid = tj_jkey_of(r, &e->tid);
	const struct jval *v;
	int64_t sort;
	if (bytes_eq(name, n, "process_name") && (v = arg(r, e, "name"))) {
		uint32_t s = tj_intern_val(r, v, 1), i = tj_get_proc(r, pid);
		r->thr.procs[i].name = s;
		r->thr.procs[i].has_name = true;
		if (e->na > 1)
			proc_stats(r, &r->thr.procs[i], e);
	} else if (bytes_eq(name, n, "process_labels") && (v = arg(r, e, "labels"))) {
		uint32_t s = tj_intern_val(r, v, 1), i = tj_get_proc(r, pid);
		r->thr.procs[i].labels = s;
		r->thr.procs[i].has_labels = true;
		int64_t host;
		if (arg_int(r, e, "xpstat_host", &host) && host >= 0 && host < XP_MAX_EXPORT_HOSTS)
			r->thr.procs[i].xp_host = (uint32_t)host;
	} else if (bytes_eq(name, n, "thread_name") && (v = arg(r, e, "name"))) {
		uint32_t s = tj_intern_val(r, v, 1);
		struct tmeta *t = tj_get_tmeta(r, pid, tid);
		t->name = s;
		t->has_name = true;
		t->has_line_id = arg_int(r, e, "xpstat_line_id", &t->line_id);
	} else if (bytes_eq(name, n, "thread_sort_index") && arg_int(r, e, "sort_index", &sort)) {
		struct tmeta *t = tj_get_tmeta(r, pid, tid);
		t->sort = sort;
		t->has_sort = true;
	} else if (bytes_eq(name, n, "process_name") || bytes_eq(name, n, "process_labels") ||
		   bytes_eq(name, n, "process_sort_index")) {
		tj_get_proc(r, pid);
	}
}

enum evkind { EV_COMPLETE, EV_BEGIN, EV_INSTANT, EV_COUNTER, EV_ASYNC_BEGIN, EV_ASYNC_INSTANT };

/* What an event is called, and what its name makes of it. */
struct naming {
	const uint8_t *name;    /* the name's text (in scratch slot 0 when unescaped) */
	size_t nlen;
	uint32_t name_id, disp_id;
	const struct jval *long_name; /* TF's full name in args, not kept as a stat */
	bool memory, is_step;
	int64_t mem_bytes, step;
};

static uint8_t route_of(enum cat cat)
{
	return cat == C_KERNEL || cat == C_MEMCPY || cat == C_MEMSET || cat == C_DEVICE ? RT_DEVICE
	       : cat == C_GPU_ANNOT			       ? RT_ANNOT
	       : cat == C_RUNTIME || cat == C_HOST	       ? RT_HOST
							       : RT_AUTO;
}

static const struct jval *long_name_arg(const struct ev *e)
{
	const struct jval *v = NULL;
	for (size_t k = 0; k < e->na; k++)
		if (e->av[k].key.len == 9 && e->av[k].val.type == JV_STR &&
		    same_bytes(e->av[k].key.p, (const uint8_t *)"long_name", 9))
			v = &e->av[k].val;
	return v;
}

/* The event's name and display name: [memory] instants and copies get the names the
 * analyses look for, with the trace's name as display name; *route may be forced. */
static void event_names(struct tj_stage *r, const struct ev *e, enum cat cat, uint8_t *route, struct naming *n)
{
	memset(n, 0, sizeof *n);
	n->name = e->name.type ? tj_val_text(r, &e->name, 0, &n->nlen) : (const uint8_t *)"";
	n->memory = bytes_eq(n->name, n->nlen, "[memory]") && arg_int(r, e, "Bytes", &n->mem_bytes);
	if (n->memory) {
		*route = RT_HOST;
		n->name_id = xp_intern(r->st, n->mem_bytes < 0 ? "MemoryDeallocation" : "MemoryAllocation",
				       n->mem_bytes < 0 ? 18 : 16);
		n->disp_id = tj_intern(r, n->name, n->nlen);
	} else if (cat == C_MEMCPY || cat == C_MEMSET) {
		const char *cn = cat == C_MEMSET ? "Memset" : memcpy_name(n->name, n->nlen);
		n->name_id = xp_intern(r->st, cn, strlen(cn));
		n->disp_id = tj_intern(r, n->name, n->nlen);
	} else {
		n->long_name = long_name_arg(e);
		if (n->long_name) {
			/* TF wrote the display name as name and the full one in args. */
			n->disp_id = tj_intern(r, n->name, n->nlen);
			n->name_id = tj_intern_val(r, n->long_name, 1);
		} else {
			n->name_id = tj_intern(r, n->name, n->nlen);
		}
		n->is_step = *route != RT_DEVICE && *route != RT_ANNOT && profiler_step(n->name, n->nlen, &n->step);
	}
}

/* The args as stats (but the long name), and "args" that is not an object whole as one. */
static int push_args(struct tj_stage *r, struct rline *l, const struct ev *e, const struct jval *long_name)
{
	for (size_t k = 0; k < e->na; k++)
		if (&e->av[k].val != long_name && push_arg(r, l, &e->av[k]))
			return -1;
	if (e->args.type && e->args.type != JV_OBJ) {
		struct jarg a = {{(const uint8_t *)"args", 4, false}, e->args};
		if (push_arg(r, l, &a))
			return -1;
	}
	return 0;
}

/* A device event marks its process as a device, and the first "device" arg names its ordinal. */
static void note_device(struct tj_stage *r, struct rline *l, const struct ev *e)
{
	struct proc *p = &r->thr.procs[l->proc];
	int64_t dev;
	p->device_events = true;
	if (!l->has_dev_arg && arg_int(r, e, "device", &dev)) {
		l->dev_arg = dev;
		l->has_dev_arg = true;
		if (!p->has_dev_arg) {
			p->dev_arg = dev;
			p->has_dev_arg = true;
		}
	}
}

/* The stats the analyses expect that Kineto writes otherwise (kernel details, copies,
 * allocator stats, step roots). */
static void synthesize(struct tj_stage *r, struct rline *l, const struct ev *e, enum cat cat, const struct naming *n)
{
	switch (cat) {
	case C_KERNEL:
		synth_kernel(r, l, e);
		synth_correlation(r, l, e);
		break;
	case C_MEMCPY:
	case C_MEMSET:
		/* name is in scratch 0: still intact (nothing above reused slot 0 after it) */
		synth_copy(r, l, e, n->name, n->nlen, cat == C_MEMSET);
		break;
	case C_RUNTIME:
		synth_correlation(r, l, e);
		break;
	default:
		break;
	}
	if (n->memory)
		synth_memory(r, l, e, n->mem_bytes);
	if (n->is_step) {
		/* One step per distinct ProfilerStep#N on the host: a root for grouping. */
		struct key3 k = {n->step, 0, 0};
		if (kmap_get(&r->thr.steps_seen, &k) == UINT32_MAX) {
			kmap_put(&r->thr.steps_seen, &k, 0);
			push_i64(r, l, tj_stat_named(r, "_r"), 1);
			push_i64(r, l, tj_stat_named(r, "step_num"), n->step);
		}
	}
}

/* The raw line of an event: counters, async events and GPU annotations have one per process. */
static uint32_t event_line(struct tj_stage *r, const struct ev *e, uint8_t route)
{
	struct jkey pid = tj_jkey_cached(r, &e->pid, 0), tid = {0, false};
	if (route != RT_COUNTER && route != RT_ASYNC && route != RT_ANNOT)
		tid = tj_jkey_cached(r, &e->tid, 1);
	return tj_get_line(r, pid, tid, route);
}

/* Append the event; *line and *index say where it went. */
static int add_event(struct tj_stage *r, const struct ev *e, enum evkind kind, uint32_t *line_out, uint64_t *ev_out)
{
	int64_t start, dur = 0;
	bool overflow = false;
	if (event_ts(r, e, &start, &overflow) || (kind == EV_COMPLETE && event_dur(r, e, &dur)))
		return -1;
	enum cat cat = classify_cat(&e->cat);
	uint8_t route = route_of(cat);
	struct naming n;
	event_names(r, e, cat, &route, &n);
	if (kind == EV_COUNTER)
		route = RT_COUNTER;
	else if (kind == EV_ASYNC_BEGIN || kind == EV_ASYNC_INSTANT)
		route = RT_ASYNC;
	uint32_t li = event_line(r, e, route);
	struct rline *l = &r->thr.lines[li];
	l->overflow |= overflow;
	uint64_t i = tj_line_append(l, start, dur, tj_event_meta(r, n.name_id, n.disp_id));
	if (push_args(r, l, e, n.long_name))
		return -1;
	if (cat != C_NONE) {
		/* PyTorch semantics tell operators, Python functions, runtime and driver calls apart. */
		size_t cn;
		const uint8_t *cp = tj_val_text(r, &e->cat, 1, &cn);
		push_text(r, l, tj_stat_named(r, "cat"), cp, cn);
		r->counts.kineto_events++;
	}
	if (route == RT_DEVICE || route == RT_ANNOT)
		note_device(r, l, e);
	if (!r->has_origin) /* an xpstat export carries what would be synthesized, as it was */
		synthesize(r, l, e, cat, &n);
	if (cat == C_KERNEL && kind == EV_COMPLETE && dur == 0)
		r->counts.zero_dur_kernels++;
	*line_out = li;
	*ev_out = i;
	return r->failed ? -1 : 0;
}

/* An E event closes its thread's last B; e and F close an async begin of their id. */
static int commit_end(struct tj_stage *r, const struct ev *e, uint8_t ph)
{
	struct xp_json_counts *c = &r->counts;
	int64_t rel;
	bool ovf = false;
	if (ph == 'E')
		c->end++;
	else
		c->async++;
	if (!e->ts.type) {
		c->unmatched_end++;
		return 0;
	}
	if (event_ts(r, e, &rel, &ovf))
		return -1;
	struct jkey pid = tj_jkey_of(r, &e->pid);
	struct key3 k;
	if (ph == 'E') {
		k = thread_key(pid, tj_jkey_of(r, &e->tid));
		k.c |= 8; /* not an async key: those have bit 2 set */
	} else {
		k = async_key(r, e, pid);
	}
	if (!stack_pop(r, get_stack(r, &k, false), rel))
		c->unmatched_end++;
	return 0;
}

/* The kind of event a phase makes, and its count; NULL for a phase that is not kept. */
static uint64_t *phase_kind(struct xp_json_counts *c, uint8_t ph, enum evkind *kind)
{
	switch (ph) {
	case 'X': *kind = EV_COMPLETE; return &c->complete;
	case 'B': *kind = EV_BEGIN; return &c->begin;
	case 'i': case 'I': case 'R': *kind = EV_INSTANT; return &c->instant;
	case 'C': *kind = EV_COUNTER; return &c->counter;
	case 'b': case 'S': *kind = EV_ASYNC_BEGIN; return &c->async;
	case 'n': *kind = EV_ASYNC_INSTANT; return &c->async;
	default: return NULL;
	}
}

/* A kept event; B and async begins wait on a stack for their end. */
static int commit_event(struct tj_stage *r, const struct ev *e, uint8_t ph)
{
	enum evkind kind = EV_COMPLETE;
	uint64_t *count = phase_kind(&r->counts, ph, &kind);
	uint32_t li;
	uint64_t i;
	if (!count || !e->ts.type) {
		/* an unknown phase, or no time to place the event at */
		r->counts.other++;
		return 0;
	}
	(*count)++;
	if (add_event(r, e, kind, &li, &i))
		return -1;
	if (kind == EV_BEGIN) {
		struct key3 k = thread_key(tj_jkey_of(r, &e->pid), tj_jkey_of(r, &e->tid));
		k.c |= 8;
		stack_push(get_stack(r, &k, true), li, i);
	} else if (kind == EV_ASYNC_BEGIN) {
		struct key3 k = async_key(r, e, tj_jkey_of(r, &e->pid));
		stack_push(get_stack(r, &k, true), li, i);
	}
	return 0;
}

int tj_commit(struct tj_stage *r, const struct ev *e)
{
	struct xp_json_counts *c = &r->counts;
	c->entries++;
	if (!e->members) {
		c->empty++;
		return 0;
	}
	if (e->ph.type != JV_STR || e->ph.len != 1 || e->ph.esc) {
		c->other++;
		return 0;
	}
	uint8_t ph = e->ph.p[0];
	if (ph == 'M') {
		c->metadata++;
		size_t n = 0;
		const uint8_t *name = e->name.type == JV_STR ? tj_str_bytes(r, &e->name, 0, &n) : (const uint8_t *)"";
		handle_metadata(r, e, name, n);
		return 0;
	}
	if (ph == 's' || ph == 't' || ph == 'f') {
		c->flow++;
		return 0;
	}
	if (ph == 'E' || ph == 'e' || ph == 'F')
		return commit_end(r, e, ph);
	return commit_event(r, e, ph);
}

/* --- top-level values ---------------------------------------------------------------------- */

/* An integer written as a string in otherData (xpstat_start_ns, xpstat_host_base_ns_N). */
static bool other_int(const cJSON *o, const char *key, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	uint64_t u;
	return cJSON_IsString(v) && tj_int_text((const uint8_t *)v->valuestring, strlen(v->valuestring), out, &u) == 1;
}

/* xpstat_host_0, xpstat_host_1, ... while they are strings, each with its base when given. */
static void xpstat_host_names(struct tj_stage *r, const cJSON *o)
{
	char key[48];
	for (uint32_t i = 0; i < XP_MAX_EXPORT_HOSTS; i++) {
		snprintf(key, sizeof key, "xpstat_host_%u", i);
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, key);
		if (!cJSON_IsString(h))
			break;
		r->xpstat_hosts = xrealloc(r->xpstat_hosts, (i + 1) * sizeof *r->xpstat_hosts);
		r->xpstat_bases = xrealloc(r->xpstat_bases, (i + 1) * sizeof *r->xpstat_bases);
		if (!(r->xpstat_hosts[i] = strdup(h->valuestring)))
			xp_oom();
		snprintf(key, sizeof key, "xpstat_host_base_ns_%u", i);
		if (!other_int(o, key, &r->xpstat_bases[i]))
			r->xpstat_bases[i] = r->origin_ns;
		r->n_xpstat_hosts = i + 1;
	}
}

/* What `xpstat trace` writes in otherData to make its export read back as the capture: where ts 0
 * is (xpstat_start_ns) and its hosts' names. Other producers' otherData is left alone. */
static void xpstat_other_data(struct tj_stage *r, const struct jval *v)
{
	cJSON *o = cJSON_ParseWithLength((const char *)v->p, v->len);
	const cJSON *prod = cJSON_GetObjectItemCaseSensitive(o, "producer");
	int64_t ns;
	if (cJSON_IsString(prod) && !strncmp(prod->valuestring, "xpstat ", 7) && other_int(o, "xpstat_start_ns", &ns)) {
		r->has_origin = true;
		r->origin_ns = ns;
		tj_free_xpstat_hosts(r);
		xpstat_host_names(r, o);
	}
	cJSON_Delete(o);
}

void tj_top_value(struct tj_stage *r, const uint8_t *k, size_t kn, const struct jval *v)
{
	if (bytes_eq(k, kn, "deviceProperties") && v->type == JV_ARR) {
		cJSON_Delete(r->device_props);
		r->device_props = cJSON_ParseWithLength((const char *)v->p, v->len);
	} else if (bytes_eq(k, kn, "distributedInfo") && v->type == JV_OBJ) {
		cJSON_Delete(r->dist_info);
		r->dist_info = cJSON_ParseWithLength((const char *)v->p, v->len);
	} else if (bytes_eq(k, kn, "otherData") && v->type == JV_OBJ) {
		xpstat_other_data(r, v);
	} else if (bytes_eq(k, kn, "host_name") && v->type == JV_STR) {
		r->host_name = tj_intern_val(r, v, 1);
		r->has_host_name = true;
	}
	/* displayTimeUnit only sets a viewer's display unit: ts and dur are microseconds. */
}

