/* perfenv.h - what the capture ran on: the run environment of a host (spec §1.9) and the GPU performance envelope (spec §3.6). */
#ifndef XPSTAT_PERFENV_H
#define XPSTAT_PERFENV_H

#include "formats/model/capture.h"

/* Run environment of one host (spec §1.9). */
struct xp_run_env {
	char device_type[96];       /* "Nvidia GPU (Volta)", "AMD GPU - gfx942", "GPU", "TPU v6 Lite", "CPU" */
	uint32_t device_cores;      /* GPU planes (TPU planes on TPU hosts) */
	uint32_t devices_with_events;
	bool gpu, tpu;
};
void xp_run_env_host(const struct xp_capture *c, const struct xp_host *h, struct xp_run_env *e);

/* --- GPU performance envelope (spec analyzers §3.6), perfenv.c --- */

struct xp_perf_env {
	bool known;                 /* a GPU plane with enough stats */
	bool amd;
	double peak_tflops;         /* TFLOP/s */
	double peak_hbm_gbps;       /* GB/s (10^9 bytes) */
	double peak_sram_rd_gbps, peak_sram_wr_gbps;
	double ridge_point;         /* FLOP per byte: peak GFLOP/s / HBM GB/s */
	bool peak_flops_estimated_amd; /* an AMD device that reports no peak FLOP rate: xpstat's table estimate */
};
/* PerfEnv of one GPU plane from its stats. */
void xp_perf_env_plane(const struct xp_capture *c, const struct xp_plane *p, struct xp_perf_env *e);
/* PerfEnv of the capture: the first GPU plane of each host; the last host with a positive peak wins (spec §6(a)). */
void xp_perf_env_capture(const struct xp_capture *c, struct xp_perf_env *e);
/* "Compute", "HBM", "Shm/L1" or "Unknown" (spec §3.5) for an op's GFLOP/s and GiB/s. */
const char *xp_bound_by(const struct xp_perf_env *e, double gflops, double gibps);

#endif
