/* pod.h - the `pod` command: the Pod Viewer. */
#ifndef XPSTAT_POD_H
#define XPSTAT_POD_H

#include "analyzers/analysis.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

/* The Pod Viewer: every host's step breakdown side by side. */
struct xp_result *xp_analyze_pod(const struct xp_prep *p);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_pod;

#endif
