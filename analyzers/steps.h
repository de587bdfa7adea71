/* steps.h - the `steps` command: one row per step of every host. */
#ifndef XPSTAT_STEPS_H
#define XPSTAT_STEPS_H

#include "analyzers/analysis.h"
#include "analyzers/prepare/prepare.h"
#include "formats/model/result.h"

/* The `steps` command: one row per step of every host. */
struct xp_result *xp_analyze_steps(const struct xp_prep *p);

/* The analysis as report and cmd/ run it (registry.c). */
extern const struct xp_analysis xp_analysis_steps;

#endif
