/* steptime.c - step-time helpers the analyses share: totals, statistics, aligned views, diagnostics, and one row per step (the step-time graph as a table). */
#include "steptime.h"
#include "formats/core/xalloc.h"
#include "formats/core/dectext.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- totals and summary statistics --------------------------------------------- */

void xp_step_totals(const struct xp_step_db *db, struct xp_step_totals *t)
{
	memset(t, 0, sizeof *t);
	t->n = db->n;
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_step *s = &db->steps[i];
		t->step_ps += s->duration_ps;
		for (int c = 0; c < XP_N_STEP_CATS; c++)
			t->cat_ps[c] += xp_step_cat_ps(s, (enum xp_step_cat)c);
		t->wait_input_ps += xp_step_type_ps(s, XP_ET_HOST_WAIT_INPUT);
		t->host_to_device_ps += xp_step_type_ps(s, XP_ET_HOST_TO_DEVICE) + xp_step_type_ps(s, XP_ET_DEVICE_WAIT_HOST);
	}
}

/* Average, min and max exactly in integer ps; σ through the shared summary (spec §1.5). */
void xp_sum_dur_stat(struct xp_result *r, const char *const key[4], const char *const label[4],
		     const struct xp_dur_stat *st)
{
	const int64_t ps[] = {st->avg_ps, st->sdv_ps, st->min_ps, st->max_ps};
	for (size_t i = 0; i < 4; i++) {
		if (st->n)
			xp_sum_dur(r, key[i], label[i], ps[i], XP_U_MS);
		else
			xp_sum_null(r, key[i], label[i]);
	}
}

void xp_sum_step_stat(struct xp_result *r, const struct xp_dur_stat *st)
{
	static const char *const key[] = {"step_time_avg_ms", "step_time_sdv_ms", "step_time_min_ms",
					  "step_time_max_ms"};
	static const char *const label[] = {"Average step time", "Standard deviation", "Minimum step time",
					    "Maximum step time"};
	xp_sum_dur_stat(r, key, label, st);
}

void xp_dur_stat(const int64_t *v, size_t n, struct xp_dur_stat *o)
{
	memset(o, 0, sizeof *o);
	o->n = n;
	if (!n)
		return;
	double *ms = xcalloc(n, sizeof *ms);
	int64_t sum = 0;
	o->min_ps = o->max_ps = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		ms[i] = (double)v[i] / 1e9;
		if (v[i] < o->min_ps)
			o->min_ps = v[i];
		if (v[i] > o->max_ps)
			o->max_ps = v[i];
	}
	/* Round half up; step times are never negative. */
	o->avg_ps = (sum + (int64_t)(n / 2)) / (int64_t)n;
	struct xp_summary_stat s;
	xp_summarize_ms(ms, n, &s);
	o->sdv_ps = isfinite(s.sdv) && s.sdv > 0 ? (int64_t)llround(s.sdv * 1e9) : 0;
	free(ms);
}

static int64_t step_value(const struct xp_step *s, enum xp_step_cat cat)
{
	return cat == XP_N_STEP_CATS ? s->duration_ps : xp_step_cat_ps(s, cat);
}

void xp_step_stat(const struct xp_step_db *db, enum xp_step_cat cat, struct xp_dur_stat *out)
{
	int64_t *v = xcalloc(db->n, sizeof *v);
	for (size_t i = 0; i < db->n; i++)
		v[i] = step_value(&db->steps[i], cat);
	xp_dur_stat(v, db->n, out);
	free(v);
}

struct xp_step_db xp_step_view(const struct xp_step_db *db, const struct xp_step_align *a, uint32_t h)
{
	struct xp_step_db v = *db;
	if (!a)
		return v;
	if (h >= a->n_hosts || a->first[h] < 0 || (size_t)a->first[h] + a->n > db->n) {
		v.n = 0;
		return v;
	}
	v.steps += a->first[h];
	v.n = a->n;
	return v;
}

void xp_align_or_die(const struct xp_prep *p, struct xp_step_align *a)
{
	if (xp_align_steps(p, a)) {
		xp_oom();
	}
}

const char *xp_step_source_name(enum xp_step_source s)
{
	switch (s) {
	case XP_STEPS_GROUPED: return "grouped";
	case XP_STEPS_PREGROUPED: return "pre-grouped";
	case XP_STEPS_MARKER_REGEX: return "step-marker";
	case XP_STEPS_NONE: break;
	}
	return "none";
}

/* Three significant digits in the largest unit that keeps the value at or above 1, as text output does. */
void xp_format_duration(int64_t ps, char *buf, size_t n)
{
	static const char *const unit[] = {"ps", "ns", "us", "ms", "s"};
	double v = (double)(ps < 0 ? -ps : ps);
	int u = 0;
	while (v >= 999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	int decimals = u == 0 || v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
	snprintf(buf, n, "%s%.*f %s", ps < 0 ? "-" : "", decimals, v, unit[u]);
}

/* --- diagnostics ------------------------------------------------------------------- */

#define STEP_HINT \
	"mark each training step: in TensorFlow wrap it in tf.profiler.experimental.Trace('train', " \
	"step_num=i, _r=1), in JAX in jax.profiler.StepTraceAnnotation('train', step_num=i); for this " \
	"capture, --step-marker REGEX makes each host event whose name matches one step (e.g. " \
	"--step-marker '^jit_train_step$')"

static void no_steps_diag(struct xp_result *r, const struct xp_prep *p, const struct xp_prep_host *ph)
{
	const char *host = ph->host->name;
	const struct xp_step_db *db = &ph->steps;
	if (p->opts.step_marker && db->n_dropped) {
		xp_result_diag(r, XP_SEV_WARNING, "no_step_markers", host,
			       "match only the event that spans one whole step: nested matches (PjitFunction(train_step) "
			       "around jit_train_step) cut it short, so anchor the expression, e.g. '^jit_train_step$'",
			       "No step marker observed and hence the step time is unknown: the %" PRIu64 " host events "
			       "that --step-marker '%s' matched make no step with %s compute time",
			       db->n_dropped, p->opts.step_marker, db->has_device ? "device" : "host");
		return;
	}
	if (p->opts.step_marker) {
		xp_result_diag(r, XP_SEV_WARNING, "no_step_markers", host,
			       "check the expression (POSIX extended, found anywhere in the name) against the host event "
			       "names that the trace viewer shows",
			       "No step marker observed and hence the step time is unknown: --step-marker '%s' matched "
			       "no host event",
			       p->opts.step_marker);
		return;
	}
	/* The reference's text, word for word, so that it can be searched for. */
	xp_result_diag(r, XP_SEV_WARNING, "no_step_markers", host, STEP_HINT,
		       "No step marker observed and hence the step time is unknown. This may happen if (1) training "
		       "steps are not instrumented (e.g., if you are not using Keras) or (2) the profiling duration "
		       "is shorter than the step time. For (1), you need to add step instrumentation; for (2), you "
		       "may try to profile longer.");
}

void xp_step_diags(struct xp_result *r, const struct xp_prep *p, uint32_t host)
{
	const struct xp_prep_host *ph = &p->hosts[host];
	const struct xp_step_db *db = &ph->steps;
	const char *name = ph->host->name;
	if (db->tpu) {
		xp_result_diag(r, XP_SEV_WARNING, "tpu_unsupported", name,
			       "xpstat info, memory and tf-stats read TPU captures where the data allows; TensorBoard's "
			       "Profiler shows the TPU step breakdown",
			       "TPU capture: the TPU step-time breakdown is not supported yet");
		return;
	}
	if (db->grouping_skipped_loops)
		xp_result_diag(r, XP_SEV_WARNING, "grouping_skipped", name,
			       "use --step-marker REGEX to name the host event of one step",
			       "the capture has TF loop ops (WhileOp-EvalCond, WhileOp-StartBody, ForOp, ParallelForOp "
			       "or ForeverOp): events are not grouped into steps, as the TensorFlow Profiler does");
	if (!db->n)
		no_steps_diag(r, p, ph);
	if (db->n_dropped && db->dropped_why)
		xp_result_diag(r, XP_SEV_INFO, "steps_dropped", name,
			       "the PyTorch profiler leaves out such steps too; with torch.profiler.schedule, profile "
			       "one more active step so that the last one's kernels are captured",
			       "%" PRIu64 " step%s dropped: %s", db->n_dropped, db->n_dropped == 1 ? "" : "s",
			       db->dropped_why);
	else if (db->n_dropped && (db->n || !p->opts.step_marker))
		xp_result_diag(r, XP_SEV_INFO, "steps_dropped", name,
			       "usually the first or last step, cut by the profiling window; profile a few more steps",
			       "%" PRIu64 " step%s dropped: %s", db->n_dropped, db->n_dropped == 1 ? "" : "s",
			       db->has_device ? "no device compute time in the step" : "no host compute time in the step");
}

void xp_align_diags(struct xp_result *r, const struct xp_prep *p, const struct xp_step_align *a)
{
	if (p->n_hosts < 2 || !a->empty_intersect)
		return;
	/* The reference's text, word for word. */
	xp_result_diag(r, XP_SEV_WARNING, "empty_intersection", NULL,
		       "compare the hosts' steps with xpstat pod (--table steps); profile every host in the same window "
		       "and make sure each host marks its steps",
		       "Although there are steps observed on some host(s), the intersection of the steps over all hosts "
		       "is empty (because the differences among individual host's step sequences are too big). "
		       "Consequently, the overall step time is unknown.");
}

/* --- the steps table ------------------------------------------------------------------ */

/* The steps table: fixed columns, one per step-time category the capture has, fixed columns again. */
struct step_cols {
	size_t cat[XP_N_STEP_CATS], wait_input, h2d, input_pct;
	size_t n_cats;
	enum xp_step_cat which[XP_N_STEP_CATS];
};

static const struct xp_col_def step_tail_cols[] = {
	{"host_wait_input_ms", "Wait input", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	{"host_to_device_ms", "Host to device", XP_T_DUR, XP_U_MS, XP_COL_TEXT_HIDDEN},
	{"input_pct", "Input %", XP_T_PCT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
};

enum {
	SC_HOST, SC_COMBINED, SC_STEP, SC_NAME, SC_START, SC_TIME
};
static const struct xp_col_def step_cols[] = {
	[SC_HOST] = {"host", "Host", XP_T_STR},
	[SC_COMBINED] = {"combined_step", "Aligned", XP_T_INT},
	[SC_STEP] = {"step", "Id", XP_T_INT, XP_U_NONE, XP_COL_TEXT_HIDDEN},
	[SC_NAME] = {"step_name", "Step", XP_T_STR},
	[SC_START] = {"start_ms", "Start", XP_T_DUR, XP_U_MS},
	[SC_TIME] = {"step_time_ms", "Step time", XP_T_DUR, XP_U_MS},
};

static void step_columns(struct xp_table *t, struct step_cols *sc, bool one_host, const int64_t *cat_total,
			 bool pytorch)
{
	bool hidden[XP_N_STEP_CATS];
	char key[64];
	xp_table_cols(t, XP_COLS(step_cols));
	xp_col_hide(t, SC_HOST, one_host);
	xp_col_hide(t, SC_COMBINED, one_host);
	sc->n_cats = xp_step_cat_columns(pytorch, sc->which, hidden);
	for (size_t k = 0; k < sc->n_cats; k++) {
		enum xp_step_cat c = sc->which[k];
		snprintf(key, sizeof key, "%s_ms", xp_step_cat_key(c));
		/* Categories that are zero in every step only widen the text. */
		sc->cat[k] = xp_table_col(t, key, xp_step_cat_short(c, pytorch), XP_T_DUR, XP_U_MS,
					  cat_total[c] && !hidden[k] ? 0 : XP_COL_TEXT_HIDDEN);
	}
	size_t first = xp_table_cols(t, XP_COLS(step_tail_cols));
	sc->wait_input = first + 0;
	sc->h2d = first + 1;
	sc->input_pct = first + 2;
}

/* The steps table's rows, made when written from the preparation's steps (its view outlives the preparation,
 * which report frees before it writes): three tables of every step would otherwise hold a copy each. */
struct step_rows {
	struct xp_steps_view *v;
	struct step_cols sc;
	size_t *first_row;      /* per host: its first row; [n_hosts]: the rows */
	long *aligned_first;    /* per host: its step index of combined step 0, -1 = none (xp_step_align.first) */
	size_t aligned_n;       /* combined steps */
};

static void cell_int(struct xp_cell *c, enum xp_type type, int64_t v)
{
	c->type = type;
	c->v.i = v;
}

/* Index of host H's step I among the combined steps, or -1. */
static long combined_index(const struct step_rows *r, uint32_t h, size_t i)
{
	long first = r->aligned_first ? r->aligned_first[h] : -1;
	if (first < 0 || i < (size_t)first || i - (size_t)first >= r->aligned_n)
		return -1;
	return (long)(i - (size_t)first);
}

_Static_assert(XP_ROW_TEXT_SIZE >= XP_DEC_SIZE, "a step id fits a row's text");

static void fill_step(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size)
{
	(void)text_size;
	const struct step_rows *r = src;
	const struct step_cols *sc = &r->sc;
	uint32_t h = 0;
	while (row >= r->first_row[h + 1])
		h++;
	size_t i = row - r->first_row[h];
	const struct xp_step *s = &r->v->hosts[h].steps[i];
	long combined = combined_index(r, h, i);
	xp_cell_text(&cells[SC_HOST], r->v->hosts[h].name);
	if (combined >= 0)
		cell_int(&cells[SC_COMBINED], XP_T_INT, combined);
	cell_int(&cells[SC_STEP], XP_T_INT, s->id);
	xp_dec_i64(text, s->id);
	xp_cell_text(&cells[SC_NAME], s->name && *s->name ? s->name : text);
	cell_int(&cells[SC_START], XP_T_DUR, s->begin_ps);
	cell_int(&cells[SC_TIME], XP_T_DUR, s->duration_ps);
	for (size_t k = 0; k < sc->n_cats; k++)
		cell_int(&cells[sc->cat[k]], XP_T_DUR, xp_step_cat_ps(s, sc->which[k]));
	cell_int(&cells[sc->wait_input], XP_T_DUR, xp_step_type_ps(s, XP_ET_HOST_WAIT_INPUT));
	cell_int(&cells[sc->h2d], XP_T_DUR, xp_step_type_ps(s, XP_ET_HOST_TO_DEVICE) + xp_step_type_ps(s, XP_ET_DEVICE_WAIT_HOST));
	int64_t input = xp_step_cat_ps(s, XP_SC_INPUT);
	cells[sc->input_pct].type = XP_T_PCT;
	cells[sc->input_pct].v.d = s->duration_ps > 0 ? 100.0 * (double)input / (double)s->duration_ps : 0;
}

static void release_steps(void *src)
{
	struct step_rows *r = src;
	xp_steps_view_unref(r->v);
	free(r->first_row);
	free(r->aligned_first);
	free(r);
}

/* The rows of P's steps, A's alignment copied (pod and input-pipeline free theirs before the table is written). */
static struct step_rows *step_rows_new(const struct xp_prep *p, const struct xp_step_align *a, const struct step_cols *sc)
{
	struct step_rows *r = xcalloc(1, sizeof *r);
	r->v = xp_prep_steps_view(p);
	r->sc = *sc;
	r->first_row = xcalloc((size_t)r->v->n_hosts + 1, sizeof *r->first_row);
	for (uint32_t h = 0; h < r->v->n_hosts; h++)
		r->first_row[h + 1] = r->first_row[h] + r->v->hosts[h].n;
	if (a) {
		r->aligned_first = xcalloc(r->v->n_hosts ? r->v->n_hosts : 1, sizeof *r->aligned_first);
		for (uint32_t h = 0; h < r->v->n_hosts; h++)
			r->aligned_first[h] = h < a->n_hosts ? a->first[h] : -1;
		r->aligned_n = a->n;
	}
	return r;
}

struct xp_table *xp_steps_add_table(struct xp_result *r, const struct xp_prep *p, const struct xp_step_align *a,
				    const char *name, const char *title)
{
	int64_t cat_total[XP_N_STEP_CATS] = {0};
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		struct xp_step_totals t;
		xp_step_totals(&p->hosts[h].steps, &t);
		for (int c = 0; c < XP_N_STEP_CATS; c++)
			cat_total[c] += t.cat_ps[c];
	}
	struct xp_table *t = xp_result_add_table(r, name, title);
	struct step_cols sc;
	step_columns(t, &sc, p->n_hosts <= 1, cat_total, xp_prep_pytorch(p));
	struct step_rows *rows = step_rows_new(p, a, &sc);
	xp_table_rows_from(t, rows->first_row[rows->v->n_hosts], fill_step, rows, release_steps);
	return t;
}

int64_t xp_step_number(int64_t id, const char *name)
{
	size_t n = name ? strlen(name) : 0, k = n;
	while (k && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == n || n - k > 18 || (k && name[k - 1] == '-'))
		return id; /* no digits at the end, too many, or a negative number */
	int64_t v = 0;
	for (size_t i = k; i < n; i++)
		v = v * 10 + (name[i] - '0');
	return v;
}
