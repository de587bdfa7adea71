/* tf_data.h - the `tf-data` command: the tf.data bottleneck analysis as a result. */
#ifndef XPSTAT_TF_DATA_H
#define XPSTAT_TF_DATA_H

#include "analyzers/analysis.h"
#include "analyzers/db/tfdata.h"
#include "formats/model/result.h"

/* The `tf-data` command (tf_data_result.c): from the capture, or from its tf.data model. */
struct xp_result *xp_analyze_tf_data(const struct xp_capture *c);
struct xp_result *xp_tf_data_result(const struct xp_tfdata *t);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_tf_data;

#endif
