/* input_pipeline.h - the `input-pipeline` command: the Input Pipeline Analyzer (spec §2), and the input advice the overview shows. */
#ifndef XPSTAT_INPUT_PIPELINE_H
#define XPSTAT_INPUT_PIPELINE_H

#include "analyzers/analysis.h"
#include "analyzers/db/opdb.h"
#include "analyzers/db/steptime.h"
#include "formats/model/result.h"

/* --- the Input Pipeline Analyzer (spec §2), input_pipeline.c --- */

/* Categories of input ops (spec §2.2). */
enum xp_input_cat {
	XP_IC_ENQUEUE = 0,
	XP_IC_DEMANDED_READ,
	XP_IC_ADVANCED_READ,
	XP_IC_PREPROCESSING,
	XP_IC_UNKNOWN,
	XP_N_INPUT_CATS
};
/* "Enqueue", "Demanded file read", "Advanced file read", "Preprocessing", "Unknown". */
const char *xp_input_cat_label(enum xp_input_cat c);
/* The input category of a host op from its name and category (TF op type or stage
 * category), or -1 when it is no input op. */
int xp_input_op_category(const char *name, const char *category);

/* The host-side input-time breakdown (spec §2.3). */
enum xp_host_input_cat {
	XP_HI_DEMANDED_READ = 0,
	XP_HI_ADVANCED_READ,
	XP_HI_PREPROCESSING,
	XP_HI_ENQUEUE,
	XP_HI_UNCLASSIFIED,
	XP_N_HOST_INPUT
};
struct xp_host_input {
	size_t n_ops;                           /* input ops (rows of the host op DB) */
	int64_t input_op_ps;                    /* their self time */
	int64_t cat_self_ps[XP_N_INPUT_CATS];   /* their self time per category */
	double ratio;                           /* host-to-device share used to scale; 0 = none */
	int64_t ps[XP_N_HOST_INPUT];            /* the breakdown */
	bool tf_data_in_use;                    /* demanded, advanced or preprocessing > 0 */
};
void xp_host_input_breakdown(const struct xp_op_db *host_db, double h2d_ratio, bool xprof_compat,
			     struct xp_host_input *out);
const char *xp_host_input_key(enum xp_host_input_cat k);      /* "demanded_file_read", ..., "unclassified" */
const char *xp_host_input_label(enum xp_host_input_cat k);    /* "Reading data from files on demand", ... */
const char *xp_host_input_advice(enum xp_host_input_cat k);   /* spec §2.4, links as "text (URL)" */
/* Average host-to-device time over average step time of the breakdown steps (spec §2.3). */
double xp_input_h2d_ratio(const struct xp_step_totals *tot);

/* What to change about the input, for the recommendation tables: the host
 * category with the most time and its advice, the tf.data bottleneck and its
 * suggestion. Levels: a host category key or "none"; a bottleneck type key or "no". */
struct xp_input_advice {
	char host[1024], host_level[32];
	char tf_data[4096], tf_data_level[64];
	bool tf_data_in_use;
};
void xp_input_advice(const struct xp_prep *p, const struct xp_step_totals *tot, struct xp_input_advice *a);

struct xp_input_opts {
	bool xprof_compat;
};
struct xp_result *xp_analyze_input_pipeline(const struct xp_prep *p, const struct xp_input_opts *o);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_input_pipeline;

#endif
