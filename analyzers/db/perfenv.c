/* perfenv.c - the GPU performance envelope (spec analyzers §3.6): peak FLOP rate and bandwidths from a GPU plane's stats, the bound-by verdict of an op, and the run environment of a host. */
#include "perfenv.h"
#include "formats/model/capture.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FLOPs per SM per cycle (spec §3.6): CUDA-core fp32 and fp16, Tensor-core fp32 (tf32) and fp16; 0 = none. */
static const struct nv_caps {
	int major, minor;
	double cuda32, cuda16, tc32, tc16;
} NV_CAPS[] = {
	{10, 0, 296, 592, 4096, 8192},
	{9, 0, 256, 512, 2048, 4096},
	{8, 9, 256, 256, 512, 1024},
	{8, 6, 256, 256, 256, 1024},
	{8, 0, 128, 512, 1024, 2048},
	{7, 5, 128, 256, 0, 1024},
	{7, 0, 128, 256, 0, 1024},
	{6, 1, 256, 4, 0, 0},
	{6, 0, 128, 256, 0, 0},
	{5, 0, 256, 0, 0, 0},
	{3, 0, 384, 0, 0, 0},
	{2, 0, 64, 0, 0, 0},
};

/* AMD: FLOPs and LDS bytes per CU per cycle by architecture. */
static const struct amd_caps {
	const char *arch;
	double flops, lds_bytes;
} AMD_CAPS[] = {
	{"gfx908", 1024, 128},
	{"gfx90a", 1024, 128},
	{"gfx942", 2048, 128},
	{"gfx950", 4096, 256},
};

#define DEVICE_NUM_MAX 1e15 /* past any core count, clock (kHz), bandwidth (B/s) or peak a device reports */

/* A numeric device property; a non-finite or absurd one (a hostile capture: inf, 1e300) is absent,
 * so that nothing derived from it overflows or is cast out of range. */
static bool plane_num(const struct xp_capture *c, const struct xp_plane *p, const char *name, double *out)
{
	struct xp_value v;
	int64_t n;
	uint32_t sid = xp_plane_stat_id(c, p, name);
	if (!sid || !xp_view_find(c, xp_plane_stats(p), sid, &v))
		return false;
	if (v.kind == XP_STAT_U64)
		*out = (double)v.u;
	else if (xp_value_int(&v, &n))
		*out = (double)n;
	else if (v.kind == XP_STAT_F64 && isfinite(v.d))
		*out = v.d;
	else
		return false;
	if (!(fabs(*out) <= DEVICE_NUM_MAX)) {
		*out = 0;
		return false;
	}
	return true;
}

/* A compute capability as an int: -1 when out of any real range. */
static int cap_int(double v)
{
	return v >= 0 && v < 1000 ? (int)v : -1;
}

static bool plane_str(const struct xp_capture *c, const struct xp_plane *p, const char *name, char *buf, size_t n)
{
	struct xp_value v;
	uint32_t sid = xp_plane_stat_id(c, p, name);
	buf[0] = 0;
	if (!sid || !xp_view_find(c, xp_plane_stats(p), sid, &v) || (v.kind != XP_STAT_STR && v.kind != XP_STAT_BLOBSTR))
		return false;
	size_t len = v.len < n - 1 ? v.len : n - 1;
	memcpy(buf, v.s, len);
	buf[len] = 0;
	return true;
}

/* The highest table entry at or below the capability, else the lowest. */
static const struct nv_caps *nv_lookup(int major, int minor)
{
	size_t n = sizeof NV_CAPS / sizeof *NV_CAPS;
	for (size_t i = 0; i < n; i++)
		if (NV_CAPS[i].major < major || (NV_CAPS[i].major == major && NV_CAPS[i].minor <= minor))
			return &NV_CAPS[i];
	return &NV_CAPS[n - 1];
}

static double max4(double a, double b, double c, double d)
{
	double m = a > b ? a : b;
	m = m > c ? m : c;
	return m > d ? m : d;
}

static const struct amd_caps *amd_lookup(const char *device_name, int major, int minor)
{
	const char *arch = NULL;
	if (!strncmp(device_name, "gfx", 3))
		arch = device_name;
	else if (major == 9 && minor == 4)
		arch = "gfx942";
	else if (major == 9 && minor == 5)
		arch = "gfx950";
	for (size_t i = 0; arch && i < sizeof AMD_CAPS / sizeof *AMD_CAPS; i++)
		if (!strcmp(AMD_CAPS[i].arch, arch))
			return &AMD_CAPS[i];
	return NULL;
}

void xp_perf_env_plane(const struct xp_capture *c, const struct xp_plane *p, struct xp_perf_env *e)
{
	memset(e, 0, sizeof *e);
	char vendor[32], device[64];
	double cores = 0, clock_khz = 0, bw = 0, major = 0, minor = 0, peak = 0, rd = 0, wr = 0;
	plane_str(c, p, "device_vendor", vendor, sizeof vendor);
	plane_str(c, p, "gpu_device_name", device, sizeof device);
	plane_num(c, p, "core_count", &cores);
	plane_num(c, p, "clock_rate", &clock_khz);
	plane_num(c, p, "memory_bandwidth", &bw);
	plane_num(c, p, "compute_cap_major", &major);
	plane_num(c, p, "compute_cap_minor", &minor);
	plane_num(c, p, "peak_teraflops_per_second", &peak);
	plane_num(c, p, "peak_sram_rd_bw_gigabytes_per_second", &rd);
	plane_num(c, p, "peak_sram_wr_bw_gigabytes_per_second", &wr);
	double ghz = clock_khz / 1e6, per_cycle = 0, sram_bytes = 0;
	e->amd = !strcmp(vendor, "AMD");
	if (e->amd) {
		const struct amd_caps *a = amd_lookup(device, cap_int(major), cap_int(minor));
		per_cycle = a ? a->flops : 0;
		sram_bytes = a ? a->lds_bytes : 0;
	} else {
		const struct nv_caps *n = nv_lookup(cap_int(major), cap_int(minor));
		per_cycle = max4(n->cuda32, n->cuda16, n->tc32, n->tc16);
		sram_bytes = major <= 2 ? 64 : 256;
	}
	e->peak_tflops = peak > 0 ? peak : cores * per_cycle * ghz / 1000;
	e->peak_flops_estimated_amd = e->amd && !(peak > 0);
	e->peak_hbm_gbps = bw / 1e9;
	e->peak_sram_rd_gbps = rd > 0 ? rd : cores * sram_bytes * ghz;
	e->peak_sram_wr_gbps = wr > 0 ? wr : cores * sram_bytes * ghz;
	e->ridge_point = e->peak_hbm_gbps > 0 ? e->peak_tflops * 1000 / e->peak_hbm_gbps : 0;
	e->known = e->peak_tflops > 0 || e->peak_hbm_gbps > 0;
}

void xp_perf_env_capture(const struct xp_capture *c, struct xp_perf_env *e)
{
	memset(e, 0, sizeof *e);
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_host *host = &c->hosts[h];
		for (uint32_t i = 0; i < host->n_planes; i++) {
			if (host->planes[i].kind != XP_PLANE_GPU)
				continue;
			struct xp_perf_env one;
			xp_perf_env_plane(c, &host->planes[i], &one);
			if (one.peak_tflops > 0)
				*e = one;
			break;
		}
	}
}

/* GB/s to GiB/s. */
static double gib(double gbps)
{
	return gbps / 1.073741824;
}

const char *xp_bound_by(const struct xp_perf_env *e, double gflops, double gibps)
{
	const char *bound = "Unknown";
	double util = 0, u;
	if (e->peak_tflops > 0 && (u = gflops / (e->peak_tflops * 1000)) > util) {
		bound = "Compute";
		util = u;
	}
	if (e->peak_hbm_gbps > 0 && (u = gibps / gib(e->peak_hbm_gbps)) > util) {
		bound = "HBM";
		util = u;
	}
	if (e->peak_sram_wr_gbps > 0 && (u = gibps / gib(e->peak_sram_wr_gbps)) > util)
		bound = "Shm/L1";
	return bound;
}

/* --- run environment (spec §1.9) ------------------------------------------------------- */

static bool plane_int(const struct xp_capture *c, const struct xp_plane *p, const char *name, int64_t *out)
{
	struct xp_value v;
	return xp_view_find(c, xp_plane_stats(p), xp_plane_stat_id(c, p, name), &v) && xp_value_int(&v, out);
}

/* A string plane stat copied into buf ("" when absent). */
static const char *plane_text(const struct xp_capture *c, const struct xp_plane *p, const char *name, char *buf,
			      size_t n)
{
	struct xp_value v;
	buf[0] = 0;
	if (xp_view_find(c, xp_plane_stats(p), xp_plane_stat_id(c, p, name), &v) &&
	    (v.kind == XP_STAT_STR || v.kind == XP_STAT_BLOBSTR))
		snprintf(buf, n, "%.*s", (int)v.len, v.s);
	return buf;
}

static const char *nvidia_generation(int64_t major, int64_t minor)
{
	switch (major) {
	case 2: return " (Fermi)";
	case 3: return " (Kepler)";
	case 5: return " (Maxwell)";
	case 6: return " (Pascal)";
	case 7: return minor < 5 ? " (Volta)" : " (Turing)";
	case 8: return minor == 9 ? " (Ada Lovelace)" : " (Ampere)";
	case 9: return " (Hopper)";
	case 10: return " (Blackwell)";
	default: return "";
	}
}

/*
 * The model name of the first GPU plane. Older TensorFlow (2.4 era) wrote
 * no device_vendor stat, only the compute capability, which then always
 * means NVIDIA; xprof says "GPU" for those, xpstat names the generation.
 */
static void gpu_model(const struct xp_capture *c, const struct xp_plane *p, char *out, size_t n)
{
	char vendor[64], name[64];
	int64_t major = -1, minor = -1;
	plane_text(c, p, "device_vendor", vendor, sizeof vendor);
	bool cc = plane_int(c, p, "compute_cap_major", &major) && plane_int(c, p, "compute_cap_minor", &minor);
	if (!strcmp(vendor, "Nvidia") || (!vendor[0] && cc)) {
		snprintf(out, n, "Nvidia GPU%s", cc ? nvidia_generation(major, minor) : "");
	} else if (!strcmp(vendor, "AMD")) {
		if (plane_text(c, p, "gpu_device_name", name, sizeof name)[0])
			snprintf(out, n, "AMD GPU - %s", name);
		else if (cc && major >= 9 && major <= 11)
			snprintf(out, n, "AMD GPU - gfx-%" PRId64 "XX series", major);
		else
			snprintf(out, n, "AMD GPU");
	} else {
		snprintf(out, n, "GPU");
	}
}

static bool plane_has_events(const struct xp_plane *p)
{
	for (uint32_t k = 0; k < p->n_lines; k++)
		if (p->lines[k].n_events)
			return true;
	return false;
}

void xp_run_env_host(const struct xp_capture *c, const struct xp_host *h, struct xp_run_env *e)
{
	const struct xp_plane *first_gpu = NULL, *first_tpu = NULL;
	memset(e, 0, sizeof *e);
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		if (p->kind == XP_PLANE_TPU && !first_tpu)
			first_tpu = p;
		if (p->kind == XP_PLANE_GPU && !first_gpu)
			first_gpu = p;
	}
	e->tpu = first_tpu != NULL;
	e->gpu = !e->tpu && first_gpu != NULL;
	enum xp_plane_kind want = e->tpu ? XP_PLANE_TPU : XP_PLANE_GPU;
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (h->planes[i].kind == want) {
			e->device_cores++;
			e->devices_with_events += plane_has_events(&h->planes[i]);
		}
	if (e->tpu) {
		if (!plane_text(c, first_tpu, "device_type_string", e->device_type, sizeof e->device_type)[0])
			snprintf(e->device_type, sizeof e->device_type, "TPU");
	} else if (e->gpu) {
		gpu_model(c, first_gpu, e->device_type, sizeof e->device_type);
	} else {
		snprintf(e->device_type, sizeof e->device_type, "CPU");
	}
}
