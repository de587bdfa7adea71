/* tfdata_state.c - the tf.data model saved in a report's state, and read back into a model of several hosts (combine). */
#include "tfdata_state.h"
#include "formats/core/xalloc.h"

#include <string.h>

/*
 * Four tables, every row naming its host: tfdata_hosts (the host's counts), tfdata_pipelines (in the host's
 * order, with the latency figures of all its calls), tfdata_calls (each pipeline's calls, slowest first: one
 * row per call of the root iterator, about one per step) and tfdata_iterators (the slowest call's iterators).
 * A call or iterator row names its pipeline by its index in the host. Integers are decimal strings.
 */

enum { TH_HOST, TH_EVENTS, TH_TRUNC, TH_N };
static const struct xp_col_def host_cols[TH_N] = {
	[TH_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_EVENTS] = {"iterator_events", NULL, XP_T_STR, XP_U_NONE, 0},
	[TH_TRUNC] = {"truncated_calls", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { TP_HOST, TP_ID, TP_DEVICE, TP_NAME, TP_ROOT, TP_AVG, TP_MIN, TP_MAX, TP_SLOW, TP_N };
static const struct xp_col_def pipe_cols[TP_N] = {
	[TP_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_ID] = {"id", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_DEVICE] = {"device", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TP_NAME] = {"name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_ROOT] = {"root_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_AVG] = {"avg_latency_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_MIN] = {"min_latency_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_MAX] = {"max_latency_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TP_SLOW] = {"slow_calls", NULL, XP_T_STR, XP_U_NONE, 0},
};

enum { TC_HOST, TC_PIPE, TC_START, TC_LAT, TC_HAS_BN, TC_BN_ID, TC_BN_SELF, TC_BN_NAME, TC_BN_LONG, TC_TRUNC, TC_N };
static const struct xp_col_def call_cols[TC_N] = {
	[TC_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_PIPE] = {"pipeline", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_START] = {"start_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_LAT] = {"latency_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_HAS_BN] = {"has_bottleneck", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TC_BN_ID] = {"bottleneck_id", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_BN_SELF] = {"bottleneck_self_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_BN_NAME] = {"bottleneck_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_BN_LONG] = {"bottleneck_long_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TC_TRUNC] = {"truncated", NULL, XP_T_BOOL, XP_U_NONE, 0},
};

enum { TI_HOST, TI_PIPE, TI_ID, TI_HAS_PARENT, TI_PARENT, TI_LONG, TI_NAME, TI_ASYNC, TI_BLOCK, TI_DEPTH, TI_START,
       TI_DUR, TI_SELF, TI_CALLS, TI_N };
static const struct xp_col_def iter_cols[TI_N] = {
	[TI_HOST] = {"host", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_PIPE] = {"pipeline", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_ID] = {"id", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_HAS_PARENT] = {"has_parent", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TI_PARENT] = {"parent_id", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_LONG] = {"long_name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_NAME] = {"name", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_ASYNC] = {"is_async", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TI_BLOCK] = {"is_blocking", NULL, XP_T_BOOL, XP_U_NONE, 0},
	[TI_DEPTH] = {"depth", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_START] = {"start_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_DUR] = {"duration_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_SELF] = {"self_ps", NULL, XP_T_STR, XP_U_NONE, 0},
	[TI_CALLS] = {"num_calls", NULL, XP_T_STR, XP_U_NONE, 0},
};

static void host_columns(struct xp_table *t) { xp_table_cols(t, host_cols, TH_N); }
static void pipe_columns(struct xp_table *t) { xp_table_cols(t, pipe_cols, TP_N); }
static void call_columns(struct xp_table *t) { xp_table_cols(t, call_cols, TC_N); }
static void iter_columns(struct xp_table *t) { xp_table_cols(t, iter_cols, TI_N); }

/* --- saving ----------------------------------------------------------------------------------------- */

static void pipe_row(struct xp_table *t, const char *host, const struct xp_tfdata_pipeline *p)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, TP_HOST, host);
	xp_state_set_i64(t, row, TP_ID, p->id);
	xp_set_bool(t, row, TP_DEVICE, p->device);
	xp_set_str(t, row, TP_NAME, p->name);
	xp_set_str(t, row, TP_ROOT, p->root_name ? p->root_name : "");
	xp_state_set_i64(t, row, TP_AVG, p->avg_latency_ps);
	xp_state_set_i64(t, row, TP_MIN, p->min_latency_ps);
	xp_state_set_i64(t, row, TP_MAX, p->max_latency_ps);
	xp_state_set_u64(t, row, TP_SLOW, p->num_slow_calls);
}

static void call_row(struct xp_table *t, const char *host, size_t pipe, const struct xp_tfdata_call *c)
{
	size_t row = xp_table_row(t);
	xp_set_str_pooled(t, row, TC_HOST, host);
	xp_state_set_u64(t, row, TC_PIPE, pipe);
	xp_state_set_i64(t, row, TC_START, c->start_ps);
	xp_state_set_i64(t, row, TC_LAT, c->latency_ps);
	xp_set_bool(t, row, TC_HAS_BN, c->has_bottleneck);
	xp_state_set_i64(t, row, TC_BN_ID, c->bottleneck_id);
	xp_state_set_i64(t, row, TC_BN_SELF, c->bottleneck_self_ps);
	xp_set_str_pooled(t, row, TC_BN_NAME, c->bottleneck_name ? c->bottleneck_name : "");
	xp_set_str_pooled(t, row, TC_BN_LONG, c->bottleneck_long_name ? c->bottleneck_long_name : "");
	xp_set_bool(t, row, TC_TRUNC, c->truncated);
}

static void iter_row(struct xp_table *t, const char *host, size_t pipe, const struct xp_tfdata_iter *it)
{
	size_t row = xp_table_row(t);
	xp_set_str(t, row, TI_HOST, host);
	xp_state_set_u64(t, row, TI_PIPE, pipe);
	xp_state_set_i64(t, row, TI_ID, it->id);
	xp_set_bool(t, row, TI_HAS_PARENT, it->has_parent);
	xp_state_set_i64(t, row, TI_PARENT, it->parent_id);
	xp_set_str(t, row, TI_LONG, it->long_name ? it->long_name : "");
	xp_set_str(t, row, TI_NAME, it->name ? it->name : "");
	xp_set_bool(t, row, TI_ASYNC, it->is_async);
	xp_set_bool(t, row, TI_BLOCK, it->is_blocking);
	xp_state_set_u64(t, row, TI_DEPTH, it->depth);
	xp_state_set_i64(t, row, TI_START, it->start_ps);
	xp_state_set_i64(t, row, TI_DUR, it->duration_ps);
	xp_state_set_i64(t, row, TI_SELF, it->self_ps);
	xp_state_set_u64(t, row, TI_CALLS, it->num_calls);
}

void xp_tfdata_state(const struct xp_tfdata *t, struct xp_result *state)
{
	struct xp_table *hosts = xp_result_add_table(state, "tfdata_hosts", "tf.data per host");
	host_columns(hosts);
	struct xp_table *pipes = xp_result_add_table(state, "tfdata_pipelines", "tf.data pipelines");
	pipe_columns(pipes);
	struct xp_table *calls = xp_result_add_table(state, "tfdata_calls", "tf.data calls");
	call_columns(calls);
	struct xp_table *iters = xp_result_add_table(state, "tfdata_iterators", "tf.data slowest-call iterators");
	iter_columns(iters);
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		const struct xp_tfdata_host *th = &t->hosts[h];
		size_t row = xp_table_row(hosts);
		xp_set_str(hosts, row, TH_HOST, th->host);
		xp_state_set_u64(hosts, row, TH_EVENTS, th->n_iterator_events);
		xp_state_set_u64(hosts, row, TH_TRUNC, th->n_truncated_calls);
		for (size_t k = 0; k < th->n_pipelines; k++) {
			const struct xp_tfdata_pipeline *p = &th->pipelines[k];
			pipe_row(pipes, th->host, p);
			for (size_t i = 0; i < p->n_calls; i++)
				call_row(calls, th->host, k, &p->calls[i]);
			for (size_t i = 0; i < p->n_iters; i++)
				iter_row(iters, th->host, k, &p->iters[i]);
		}
	}
}

/* --- reading back ----------------------------------------------------------------------------------- */

struct tables {
	const struct xp_table *hosts, *pipes, *calls, *iters;
};

static bool read_pipe(const struct xp_table *t, size_t row, struct xp_tfdata_pipeline *p)
{
	const char *name = xp_state_str(t, row, TP_NAME);
	p->root_name = xp_state_str(t, row, TP_ROOT);
	if (!name || strlen(name) >= sizeof p->name)
		return false;
	memcpy(p->name, name, strlen(name) + 1);
	return p->root_name && xp_state_i64(t, row, TP_ID, &p->id) && xp_state_bool(t, row, TP_DEVICE, &p->device) &&
	       xp_state_i64(t, row, TP_AVG, &p->avg_latency_ps) && xp_state_i64(t, row, TP_MIN, &p->min_latency_ps) &&
	       xp_state_i64(t, row, TP_MAX, &p->max_latency_ps) && xp_state_u64(t, row, TP_SLOW, &p->num_slow_calls);
}

static bool read_call(const struct xp_table *t, size_t row, struct xp_tfdata_call *c)
{
	c->bottleneck_name = xp_state_str(t, row, TC_BN_NAME);
	c->bottleneck_long_name = xp_state_str(t, row, TC_BN_LONG);
	return c->bottleneck_name && c->bottleneck_long_name && xp_state_i64(t, row, TC_START, &c->start_ps) &&
	       xp_state_i64(t, row, TC_LAT, &c->latency_ps) && xp_state_bool(t, row, TC_HAS_BN, &c->has_bottleneck) &&
	       xp_state_i64(t, row, TC_BN_ID, &c->bottleneck_id) &&
	       xp_state_i64(t, row, TC_BN_SELF, &c->bottleneck_self_ps) && xp_state_bool(t, row, TC_TRUNC, &c->truncated);
}

static bool read_iter(const struct xp_table *t, size_t row, struct xp_tfdata_iter *it)
{
	it->long_name = xp_state_str(t, row, TI_LONG);
	it->name = xp_state_str(t, row, TI_NAME);
	return it->long_name && it->name && xp_state_i64(t, row, TI_ID, &it->id) &&
	       xp_state_bool(t, row, TI_HAS_PARENT, &it->has_parent) && xp_state_i64(t, row, TI_PARENT, &it->parent_id) &&
	       xp_state_bool(t, row, TI_ASYNC, &it->is_async) && xp_state_bool(t, row, TI_BLOCK, &it->is_blocking) &&
	       xp_state_u32(t, row, TI_DEPTH, &it->depth) && xp_state_i64(t, row, TI_START, &it->start_ps) &&
	       xp_state_i64(t, row, TI_DUR, &it->duration_ps) && xp_state_i64(t, row, TI_SELF, &it->self_ps) &&
	       xp_state_u64(t, row, TI_CALLS, &it->num_calls);
}

/* Row ROW of a call or iterator table when it is host NAME's: its pipeline in *K (false: not the host's). */
static bool host_pipe(const struct xp_table *t, size_t row, size_t col_pipe, const char *name,
		      const struct xp_tfdata_host *th, size_t *k, bool *ok)
{
	const char *h = xp_state_str(t, row, 0);
	uint64_t pipe;
	*ok = h != NULL;
	if (!h || strcmp(h, name))
		return false;
	*ok = xp_state_u64(t, row, col_pipe, &pipe) && pipe < th->n_pipelines;
	*k = (size_t)pipe;
	return *ok;
}

static bool read_calls(const struct xp_table *t, const char *name, struct xp_tfdata_host *th)
{
	bool ok = true;
	size_t k;
	for (size_t row = 0; t && row < t->n_rows && ok; row++)
		if (host_pipe(t, row, TC_PIPE, name, th, &k, &ok)) {
			struct xp_tfdata_pipeline *p = &th->pipelines[k];
			p->calls = xrealloc(p->calls, (p->n_calls + 1) * sizeof *p->calls);
			memset(&p->calls[p->n_calls], 0, sizeof *p->calls);
			ok = read_call(t, row, &p->calls[p->n_calls++]);
		}
	return ok;
}

static bool read_iters(const struct xp_table *t, const char *name, struct xp_tfdata_host *th)
{
	bool ok = true;
	size_t k;
	for (size_t row = 0; t && row < t->n_rows && ok; row++)
		if (host_pipe(t, row, TI_PIPE, name, th, &k, &ok)) {
			struct xp_tfdata_pipeline *p = &th->pipelines[k];
			p->iters = xrealloc(p->iters, (p->n_iters + 1) * sizeof *p->iters);
			memset(&p->iters[p->n_iters], 0, sizeof *p->iters);
			ok = read_iter(t, row, &p->iters[p->n_iters++]);
		}
	return ok;
}

/* Host H's row of tfdata_hosts, its pipelines, their calls and iterators. */
static bool read_one(const struct tables *tb, const char *name, struct xp_tfdata_host *th)
{
	bool found = false, ok = true;
	for (size_t row = 0; row < tb->hosts->n_rows && !found && ok; row++) {
		const char *hn = xp_state_str(tb->hosts, row, TH_HOST);
		if (!hn)
			return false;
		if (strcmp(hn, name))
			continue;
		found = true;
		ok = xp_state_u64(tb->hosts, row, TH_EVENTS, &th->n_iterator_events) &&
		     xp_state_u64(tb->hosts, row, TH_TRUNC, &th->n_truncated_calls);
	}
	for (size_t row = 0; found && ok && tb->pipes && row < tb->pipes->n_rows; row++) {
		const char *hn = xp_state_str(tb->pipes, row, TP_HOST);
		if (!hn || strcmp(hn, name)) {
			ok = hn != NULL;
			continue;
		}
		th->pipelines = xrealloc(th->pipelines, (th->n_pipelines + 1) * sizeof *th->pipelines);
		memset(&th->pipelines[th->n_pipelines], 0, sizeof *th->pipelines);
		ok = read_pipe(tb->pipes, row, &th->pipelines[th->n_pipelines++]);
	}
	return found && ok && read_calls(tb->calls, name, th) && read_iters(tb->iters, name, th);
}

static bool tables_of(const struct xp_result *state, struct tables *tb)
{
	tb->hosts = xp_state_table(state, "tfdata_hosts", host_columns);
	tb->pipes = xp_state_table(state, "tfdata_pipelines", pipe_columns);
	tb->calls = xp_state_table(state, "tfdata_calls", call_columns);
	tb->iters = xp_state_table(state, "tfdata_iterators", iter_columns);
	/* A table without rows may be absent from the JSON; a malformed one is NULL while present. */
	return tb->hosts && (tb->pipes || !xp_result_table(state, "tfdata_pipelines")) &&
	       (tb->calls || !xp_result_table(state, "tfdata_calls")) &&
	       (tb->iters || !xp_result_table(state, "tfdata_iterators"));
}

struct xp_tfdata *xp_tfdata_from_state(const struct xp_state_host *hosts, uint32_t n, struct xp_err *e)
{
	struct xp_tfdata *t = xcalloc(1, sizeof *t);
	t->n_hosts = n;
	t->hosts = xcalloc(n ? n : 1, sizeof *t->hosts);
	for (uint32_t h = 0; h < n; h++) {
		struct tables tb;
		const char *saved = xp_state_host_name(hosts[h].state, hosts[h].row);
		t->hosts[h].host = hosts[h].name;
		if (!saved || !tables_of(hosts[h].state, &tb) || !read_one(&tb, saved, &t->hosts[h])) {
			xp_err_set(e, XP_EXIT_BAD_INPUT, hosts[h].path, "the tf.data state of host %s does not read back: "
				   "not a report as this xpstat writes it", hosts[h].name);
			xp_tfdata_free(t);
			return NULL;
		}
	}
	xp_tfdata_finish(t);
	return t;
}
