/* tf_data.c - the `tf-data` command: verdict, summary, bottleneck analysis, pipelines, the slowest call's iterators, every call. */
#include "tf_data.h"
#include "analyzers/db/steptime.h"
#include "analyzers/db/shared.h"
#include "analyzers/db/tfdata_state.h"
#include "formats/model/capture.h"
#include "formats/model/result.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define CALLS_TEXT_ROWS 10

static size_t count_pipelines(const struct xp_tfdata *t, int device)
{
	size_t n = 0;
	for (uint32_t h = 0; h < t->n_hosts; h++)
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++)
			n += device < 0 || t->hosts[h].pipelines[k].device == (device != 0);
	return n;
}

/* The slowest device pipeline, for the verdict when there is no host pipeline. */
static const struct xp_tfdata_pipeline *slowest_device(const struct xp_tfdata *t, uint32_t *host)
{
	const struct xp_tfdata_pipeline *best = NULL;
	for (uint32_t h = 0; h < t->n_hosts; h++)
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++) {
			const struct xp_tfdata_pipeline *p = &t->hosts[h].pipelines[k];
			if (p->device && (!best || p->max_latency_ps > best->max_latency_ps)) {
				best = p;
				*host = h;
			}
		}
	return best;
}

static void set_verdict(struct xp_result *r, const struct xp_tfdata *t)
{
	char max[32], self[32];
	if (t->n_bottlenecks) {
		const struct xp_tfdata_bottleneck_row *b = &t->bottlenecks[0];
		const struct xp_tfdata_pipeline *p = xp_tfdata_row_pipeline(t, b);
		xp_format_duration(b->max_latency_ps, max, sizeof max);
		xp_format_duration(b->iterator_latency_ps, self, sizeof self);
		if (!t->is_input_bound)
			xp_result_set_verdict(r, "No tf.data input pipeline slower than 50 us: the slowest, %s on %s, takes "
					      "up to %s per element", p->name, t->hosts[b->host].host, max);
		else if (b->iterator_long_name[0])
			xp_result_set_verdict(r, "tf.data input pipeline slower than 50 us: %s on %s takes up to %s per "
					      "element; bottleneck %s (%s), %s self time", p->name, t->hosts[b->host].host,
					      max, b->iterator_name, b->iterator_long_name, self);
		else
			xp_result_set_verdict(r, "tf.data input pipeline slower than 50 us: %s on %s takes up to %s per "
					      "element; no blocking iterator has self time", p->name,
					      t->hosts[b->host].host, max);
		return;
	}
	uint32_t h = 0;
	const struct xp_tfdata_pipeline *d = slowest_device(t, &h);
	if (d) {
		size_t n = count_pipelines(t, 1);
		xp_format_duration(d->max_latency_ps, max, sizeof max);
		xp_result_set_verdict(r, "No host tf.data input pipeline to analyze: %zu device input pipeline%s (slowest "
				      "call %s, %s on %s)", n, n == 1 ? "" : "s", max, d->name, t->hosts[h].host);
		return;
	}
	xp_result_set_verdict(r, "No tf.data activity captured");
}

static void add_summary(struct xp_result *r, const struct xp_tfdata *t)
{
	const struct xp_tfdata_bottleneck_row *b = t->n_bottlenecks ? &t->bottlenecks[0] : NULL;
	const struct xp_tfdata_pipeline *p = b ? xp_tfdata_row_pipeline(t, b) : NULL;
	uint64_t events = 0, calls = 0;
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		events += t->hosts[h].n_iterator_events;
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++)
			calls += t->hosts[h].pipelines[k].n_calls;
	}
	xp_sum_int(r, "hosts", "Hosts", t->n_hosts);
	xp_sum_int(r, "input_pipelines", "Input pipelines", (int64_t)count_pipelines(t, -1));
	xp_sum_int(r, "host_input_pipelines", "Host input pipelines", (int64_t)count_pipelines(t, 0));
	xp_sum_int(r, "device_input_pipelines", "Device input pipelines", (int64_t)count_pipelines(t, 1));
	xp_sum_int(r, "iterator_events", "Iterator events", (int64_t)events);
	xp_sum_int(r, "calls", "Pipeline calls", (int64_t)calls);
	xp_sum_bool(r, "is_input_bound", "Slower than 50 us", t->is_input_bound);
	xp_sum_str(r, "summary", "Summary", t->summary);
	xp_sum_str(r, "bottleneck_host", "Most input-bound host", b ? t->hosts[b->host].host : "");
	xp_sum_str(r, "bottleneck_input_pipeline", "Its slowest pipeline", p ? p->name : "");
	xp_sum_dur(r, "max_latency_us", "Slowest call", t->max_latency_ps, XP_U_US);
	xp_sum_str(r, "bottleneck_iterator", "Bottleneck iterator", b ? b->iterator_name : "");
	xp_sum_str(r, "bottleneck_iterator_long_name", "Bottleneck long name", b ? b->iterator_long_name : "");
	xp_sum_dur(r, "bottleneck_latency_us", "Bottleneck self time", b ? b->iterator_latency_ps : 0, XP_U_US);
	xp_sum_str(r, "bottleneck_type", "Bottleneck type", b ? xp_tfdata_bottleneck_key(b->type) : "");
	xp_sum_str(r, "suggestion", "Suggestion", b ? xp_tfdata_suggestion(b->type) : "");
}

enum {
	BOT_HOST, BOT_PIPE, BOT_ID, BOT_MAX, BOT_IT, BOT_LONG, BOT_LAT, BOT_TYPE, BOT_SUG
};
static const struct xp_col_def bottleneck_cols[] = {
	[BOT_HOST] = {"host", "Host", XP_T_STR},
	[BOT_PIPE] = {"input_pipeline", "Pipeline", XP_T_STR},
	[BOT_ID] = {"pipeline_id", "Id", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[BOT_MAX] = {"max_latency_us", "Max latency", XP_T_DUR, XP_U_US},
	[BOT_IT] = {"iterator", "Bottleneck", XP_T_STR},
	[BOT_LONG] = {"iterator_long_name", "Long name", XP_T_STR},
	[BOT_LAT] = {"iterator_latency_us", "Self time", XP_T_DUR, XP_U_US},
	[BOT_TYPE] = {"bottleneck_type", "Type", XP_T_STR},
	[BOT_SUG] = {"suggestion", "Suggestion", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

static void bottleneck_table(struct xp_result *r, const struct xp_tfdata *t)
{
	struct xp_table *tb = xp_result_add_table(r, "bottleneck_analysis", "Bottleneck analysis (host input pipelines, "
						  "slowest first)");
	xp_table_cols(tb, XP_COLS(bottleneck_cols));
	for (size_t i = 0; i < t->n_bottlenecks; i++) {
		const struct xp_tfdata_bottleneck_row *b = &t->bottlenecks[i];
		const struct xp_tfdata_pipeline *p = xp_tfdata_row_pipeline(t, b);
		size_t row = xp_table_row(tb);
		xp_set_str(tb, row, BOT_HOST, t->hosts[b->host].host);
		xp_set_str(tb, row, BOT_PIPE, p->name);
		xp_set_id(tb, row, BOT_ID, p->id);
		xp_set_dur(tb, row, BOT_MAX, b->max_latency_ps);
		xp_set_str(tb, row, BOT_IT, b->iterator_name);
		xp_set_str(tb, row, BOT_LONG, b->iterator_long_name);
		xp_set_dur(tb, row, BOT_LAT, b->iterator_latency_ps);
		xp_set_str(tb, row, BOT_TYPE, xp_tfdata_bottleneck_key(b->type));
		xp_set_str(tb, row, BOT_SUG, xp_tfdata_suggestion(b->type));
	}
	if (t->n_bottlenecks > 1)
		tb->text_note = strdup("Suggestions for each row: --format csv or json.");
}

enum {
	PIPE_HOST, PIPE_PIPE, PIPE_ID, PIPE_TYPE, PIPE_ROOT, PIPE_CALLS, PIPE_AVG, PIPE_MIN, PIPE_MAX, PIPE_SLOW,
	PIPE_IT, PIPE_LONG, PIPE_LAT
};
static const struct xp_col_def pipeline_cols[] = {
	[PIPE_HOST] = {"host", "Host", XP_T_STR},
	[PIPE_PIPE] = {"input_pipeline", "Pipeline", XP_T_STR},
	[PIPE_ID] = {"pipeline_id", "Id", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[PIPE_TYPE] = {"type", "Type", XP_T_STR},
	[PIPE_ROOT] = {"root_iterator", "Root iterator", XP_T_STR},
	[PIPE_CALLS] = {"calls", "Calls", XP_T_INT},
	[PIPE_AVG] = {"avg_latency_us", "Average", XP_T_DUR, XP_U_US},
	[PIPE_MIN] = {"min_latency_us", "Min", XP_T_DUR, XP_U_US},
	[PIPE_MAX] = {"max_latency_us", "Max", XP_T_DUR, XP_U_US},
	[PIPE_SLOW] = {"slow_calls", "Slow calls", XP_T_INT},
	[PIPE_IT] = {"bottleneck_iterator", "Bottleneck", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[PIPE_LONG] = {"bottleneck_long_name", "Bottleneck (slowest call)", XP_T_STR},
	[PIPE_LAT] = {"bottleneck_latency_us", "Self time", XP_T_DUR, XP_U_US},
};

static void pipelines_table(struct xp_result *r, const struct xp_tfdata *t)
{
	struct xp_table *tb = xp_result_add_table(r, "input_pipelines", "Input pipelines");
	xp_table_cols(tb, XP_COLS(pipeline_cols));
	xp_col_hide(tb, PIPE_HOST, t->n_hosts <= 1);
	for (uint32_t h = 0; h < t->n_hosts; h++)
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++) {
			const struct xp_tfdata_pipeline *p = &t->hosts[h].pipelines[k];
			const struct xp_tfdata_call *s = p->n_calls ? &p->calls[0] : NULL;
			size_t row = xp_table_row(tb);
			xp_set_str(tb, row, PIPE_HOST, t->hosts[h].host);
			xp_set_str(tb, row, PIPE_PIPE, p->name);
			xp_set_id(tb, row, PIPE_ID, p->id);
			xp_set_str(tb, row, PIPE_TYPE, p->device ? "device" : "host");
			xp_set_str(tb, row, PIPE_ROOT, p->root_name);
			xp_set_int(tb, row, PIPE_CALLS, (int64_t)p->n_calls);
			xp_set_dur(tb, row, PIPE_AVG, p->avg_latency_ps);
			xp_set_dur(tb, row, PIPE_MIN, p->min_latency_ps);
			xp_set_dur(tb, row, PIPE_MAX, p->max_latency_ps);
			xp_set_int(tb, row, PIPE_SLOW, (int64_t)p->num_slow_calls);
			xp_set_str(tb, row, PIPE_IT, s && s->has_bottleneck ? s->bottleneck_name : "");
			xp_set_str(tb, row, PIPE_LONG, s && s->has_bottleneck ? s->bottleneck_long_name : "");
			xp_set_dur(tb, row, PIPE_LAT, s ? s->bottleneck_self_ps : 0);
		}
}

enum {
	SLOW_HOST, SLOW_PIPE, SLOW_DEPTH, SLOW_ID, SLOW_PAR, SLOW_NAME, SLOW_LONG, SLOW_ASYNC, SLOW_BLOCK, SLOW_BN,
	SLOW_CALLS, SLOW_START, SLOW_DUR, SLOW_SELF
};
static const struct xp_col_def slowest_call_cols[] = {
	[SLOW_HOST] = {"host", "Host", XP_T_STR},
	[SLOW_PIPE] = {"input_pipeline", "Pipeline", XP_T_STR},
	[SLOW_DEPTH] = {"depth", "Depth", XP_T_INT},
	[SLOW_ID] = {"iterator_id", "Id", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[SLOW_PAR] = {"parent_id", "Parent id", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[SLOW_NAME] = {"iterator", "Iterator", XP_T_STR},
	[SLOW_LONG] = {"iterator_long_name", "Long name", XP_T_STR},
	[SLOW_ASYNC] = {"is_async", "Async", XP_T_BOOL},
	[SLOW_BLOCK] = {"is_blocking", "Blocking", XP_T_BOOL},
	[SLOW_BN] = {"is_bottleneck", "Bottleneck", XP_T_BOOL},
	[SLOW_CALLS] = {"calls", "Calls", XP_T_INT},
	[SLOW_START] = {"start_ms", "Start", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	[SLOW_DUR] = {"duration_us", "Duration", XP_T_DUR, XP_U_US},
	[SLOW_SELF] = {"self_time_us", "Self time", XP_T_DUR, XP_U_US},
};

/* Every pipeline's slowest call, iterator by iterator: the blocking ones are its critical path. */
static void slowest_call_table(struct xp_result *r, const struct xp_tfdata *t)
{
	struct xp_table *tb = xp_result_add_table(r, "slowest_call", "Slowest call of each pipeline (critical path: "
						  "blocking iterators)");
	xp_table_cols(tb, XP_COLS(slowest_call_cols));
	xp_col_hide(tb, SLOW_HOST, t->n_hosts <= 1);
	for (uint32_t h = 0; h < t->n_hosts; h++)
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++) {
			const struct xp_tfdata_pipeline *p = &t->hosts[h].pipelines[k];
			const struct xp_tfdata_call *s = p->n_calls ? &p->calls[0] : NULL;
			for (size_t i = 0; i < p->n_iters; i++) {
				const struct xp_tfdata_iter *it = &p->iters[i];
				size_t row = xp_table_row(tb);
				xp_set_str(tb, row, SLOW_HOST, t->hosts[h].host);
				xp_set_str(tb, row, SLOW_PIPE, p->name);
				xp_set_int(tb, row, SLOW_DEPTH, it->depth);
				xp_set_id(tb, row, SLOW_ID, it->id);
				if (it->has_parent)
					xp_set_id(tb, row, SLOW_PAR, it->parent_id);
				xp_set_str(tb, row, SLOW_NAME, it->name);
				xp_set_str(tb, row, SLOW_LONG, it->long_name);
				xp_set_bool(tb, row, SLOW_ASYNC, it->is_async);
				xp_set_bool(tb, row, SLOW_BLOCK, it->is_blocking);
				xp_set_bool(tb, row, SLOW_BN, s && s->has_bottleneck && s->bottleneck_id == it->id);
				xp_set_int(tb, row, SLOW_CALLS, (int64_t)it->num_calls);
				xp_set_dur(tb, row, SLOW_START, it->start_ps);
				xp_set_dur(tb, row, SLOW_DUR, it->duration_ps);
				xp_set_dur(tb, row, SLOW_SELF, it->self_ps);
			}
		}
}

enum {
	CALL_HOST, CALL_PIPE, CALL_RANK, CALL_START, CALL_LAT, CALL_SLOW, CALL_IT, CALL_LONG, CALL_ID, CALL_SELF
};
static const struct xp_col_def call_cols[] = {
	[CALL_HOST] = {"host", "Host", XP_T_STR},
	[CALL_PIPE] = {"input_pipeline", "Pipeline", XP_T_STR},
	[CALL_RANK] = {"rank", "#", XP_T_INT},
	[CALL_START] = {"start_ms", "Start", XP_T_DUR, XP_U_MS},
	[CALL_LAT] = {"latency_us", "Latency", XP_T_DUR, XP_U_US},
	[CALL_SLOW] = {"is_slow", "Slow", XP_T_BOOL},
	[CALL_IT] = {"bottleneck_iterator", "Bottleneck", XP_T_STR},
	[CALL_LONG] = {"bottleneck_long_name", "Long name", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CALL_ID] = {"bottleneck_id", "Id", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[CALL_SELF] = {"bottleneck_latency_us", "Self time", XP_T_DUR, XP_U_US},
};

static void calls_table(struct xp_result *r, const struct xp_tfdata *t)
{
	struct xp_table *tb = xp_result_add_table(r, "calls", "Calls (slowest first)");
	xp_table_cols(tb, XP_COLS(call_cols));
	xp_col_hide(tb, CALL_HOST, t->n_hosts <= 1);
	for (uint32_t h = 0; h < t->n_hosts; h++)
		for (size_t k = 0; k < t->hosts[h].n_pipelines; k++) {
			const struct xp_tfdata_pipeline *p = &t->hosts[h].pipelines[k];
			for (size_t i = 0; i < p->n_calls; i++) {
				const struct xp_tfdata_call *cl = &p->calls[i];
				size_t row = xp_table_row(tb);
				xp_set_str(tb, row, CALL_HOST, t->hosts[h].host);
				xp_set_str(tb, row, CALL_PIPE, p->name);
				xp_set_int(tb, row, CALL_RANK, (int64_t)i + 1);
				xp_set_dur(tb, row, CALL_START, cl->start_ps);
				xp_set_dur(tb, row, CALL_LAT, cl->latency_ps);
				xp_set_bool(tb, row, CALL_SLOW, cl->latency_ps > XP_TFDATA_SLOW_CALL_PS);
				xp_set_str(tb, row, CALL_IT, cl->has_bottleneck ? cl->bottleneck_name : "");
				xp_set_str(tb, row, CALL_LONG, cl->has_bottleneck ? cl->bottleneck_long_name : "");
				if (cl->has_bottleneck)
					xp_set_id(tb, row, CALL_ID, cl->bottleneck_id);
				xp_set_dur(tb, row, CALL_SELF, cl->bottleneck_self_ps);
			}
		}
	tb->text_limit = CALLS_TEXT_ROWS;
}

static void add_diags(struct xp_result *r, const struct xp_tfdata *t)
{
	size_t device = count_pipelines(t, 1);
	for (uint32_t h = 0; h < t->n_hosts; h++)
		if (t->hosts[h].n_truncated_calls)
			xp_result_diag(r, XP_SEV_WARNING, "tf_data_walk_truncated", t->hosts[h].host,
				       "the capture links tf.data iterators into a graph far larger than real pipelines "
				       "make; check it with xpstat info",
				       "%" PRIu64 " pipeline call%s walked only in part: the iterator graph under them "
				       "repeats too often", t->hosts[h].n_truncated_calls,
				       t->hosts[h].n_truncated_calls == 1 ? "" : "s");
	if (device)
		xp_result_diag(r, XP_SEV_INFO, "device_input_pipelines", NULL,
			       "input_pipelines and slowest_call show them; their slowest calls are the time the "
			       "device-side prefetch waited",
			       "%zu device input pipeline%s (feeding Iterator::Prefetch::Generator, as a distribution "
			       "strategy's input does) left out of the bottleneck analysis, as the TensorFlow Profiler does",
			       device, device == 1 ? "" : "s");
	if (!count_pipelines(t, -1))
		xp_result_diag(r, XP_SEV_INFO, "no_tf_data", NULL,
			       "if the job uses tf.data, profile longer, with the host tracer at level 2 or more (the "
			       "default); a custom (non-tf.data) input pipeline has no iterator events",
			       "No tf.data activity captured: no root iterator event (Iterator::<name> with an id stat) "
			       "on any host");
}

struct xp_result *xp_tf_data_result(const struct xp_tfdata *t)
{
	struct xp_result *r = xp_result_new("tf-data");
	set_verdict(r, t);
	add_summary(r, t);
	bottleneck_table(r, t);
	r->primary = 0;
	pipelines_table(r, t);
	slowest_call_table(r, t);
	calls_table(r, t);
	add_diags(r, t);
	return r;
}

struct xp_result *xp_analyze_tf_data(const struct xp_capture *c)
{
	struct xp_tfdata *t = xp_tfdata_build(c);
	struct xp_result *r = xp_tf_data_result(t);
	xp_tfdata_free(t);
	return r;
}

/* In a report, from the tf.data model the report's analyses share; saved in its state for combine. */
static struct xp_result *run(const struct xp_run_in *in)
{
	if (!in->s && !in->state)
		return xp_analyze_tf_data(in->c);
	struct xp_tfdata *own = NULL;
	const struct xp_tfdata *t = in->s ? xp_shared_tfdata(in->s) : (own = xp_tfdata_build(in->c));
	if (in->state)
		xp_tfdata_state(t, in->state);
	struct xp_result *r = xp_tf_data_result(t);
	xp_tfdata_free(own);
	return r;
}

/* Several hosts from their saved models (combine puts them in the preparation's shared inputs). */
static struct xp_result *combine(const struct xp_combine_in *in)
{
	struct xp_tfdata *own;
	struct xp_result *r = xp_tf_data_result(xp_use_tfdata(in->p, &own));
	xp_tfdata_free(own);
	return r;
}

static const char *const state_tables[] = {XP_TFDATA_STATE_TABLES, NULL};

const struct xp_analysis xp_analysis_tf_data = {
	.name = "tf-data",
	.needs = XP_NEEDS_CAPTURE,
	.reads = NULL,
	.run = run,
	.combine = combine,
	.state_tables = state_tables,
};
