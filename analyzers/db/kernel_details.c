/* kernel_details.c - parse the four kernel_details forms and apply the Tensor Core rules (spec analyzers §4.2-§4.3). */
#include "kernel_details.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A slice of the input: never NUL-terminated. */
struct slice {
	const char *p;
	size_t n;
};

static bool slice_is(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && !memcmp(s.p, lit, n);
}

/* A decimal uint32 with an optional '+', as absl::SimpleAtoi reads it; false past 2^32-1. */
static bool parse_u32(struct slice s, uint32_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	if (s.n && s.p[0] == '+')
		i++;
	if (i == s.n)
		return false;
	for (; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s.p[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* "X,Y,Z": all three must parse, else nothing changes (the reference keeps its default). */
static bool parse_dim3(struct slice s, uint32_t out[3])
{
	uint32_t v[3];
	size_t k = 0, start = 0;
	for (size_t i = 0; i <= s.n; i++) {
		if (i < s.n && s.p[i] != ',')
			continue;
		if (k == 3 || !parse_u32((struct slice){s.p + start, i - start}, &v[k]))
			return false;
		k++;
		start = i + 1;
	}
	if (k != 3)
		return false;
	memcpy(out, v, sizeof v);
	return true;
}

/* A finite decimal number ("50", "12.5", "1e2"); strtod needs a NUL-terminated copy. */
static bool parse_pct(struct slice s, double *out)
{
	char buf[64];
	if (!s.n || s.n >= sizeof buf)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!strchr("0123456789.eE+-", s.p[i]))
			return false;
	memcpy(buf, s.p, s.n);
	buf[s.n] = 0;
	char *end;
	double v = strtod(buf, &end);
	if (*end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

/* Which family a key belongs to, for xp_kernel_details.form. */
enum key_family { FAM_COMMON, FAM_TF23, FAM_TF24, FAM_NVIDIA, FAM_AMD };

struct seen {
	bool tf23, tf24, nvidia, amd, common;
};

static void note(struct seen *sn, enum key_family f)
{
	switch (f) {
	case FAM_TF23: sn->tf23 = true; break;
	case FAM_TF24: sn->tf24 = true; break;
	case FAM_NVIDIA: sn->nvidia = true; break;
	case FAM_AMD: sn->amd = true; break;
	case FAM_COMMON: sn->common = true; break;
	}
}

/* One component of the TF <= 2.3 form (grid_x ... block_z); false when KEY is none. */
static bool tf23_dim(struct xp_kernel_details *d, struct slice key, struct slice val)
{
	static const char *const names[6] = {"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z"};
	for (int k = 0; k < 6; k++) {
		if (!slice_is(key, names[k]))
			continue;
		uint32_t *dst = k < 3 ? &d->grid[k] : &d->block[k - 3];
		if (parse_u32(val, dst))
			d->fields |= k < 3 ? XP_KD_F_GRID : XP_KD_F_BLOCK;
		return true;
	}
	return false;
}

/* Scalar keys: the uint32 field of KEY, its bit and family; NULL when KEY is none of them. */
static uint32_t *scalar_field(struct xp_kernel_details *d, struct slice key, unsigned *bit, enum key_family *fam)
{
	static const struct {
		const char *key;
		size_t off;
		unsigned bit;
		enum key_family fam;
	} keys[] = {
		{"regs", offsetof(struct xp_kernel_details, regs), XP_KD_F_REGS, FAM_COMMON},
		{"static_shared", offsetof(struct xp_kernel_details, static_shmem), XP_KD_F_STATIC, FAM_NVIDIA},
		{"dynamic_shared", offsetof(struct xp_kernel_details, dynamic_shmem), XP_KD_F_DYNAMIC, FAM_NVIDIA},
		{"shm", offsetof(struct xp_kernel_details, static_shmem), XP_KD_F_STATIC, FAM_TF24},
		{"group_mem", offsetof(struct xp_kernel_details, static_shmem), XP_KD_F_STATIC, FAM_AMD},
		{"private_mem", offsetof(struct xp_kernel_details, private_mem), XP_KD_F_PRIVATE, FAM_AMD},
		{"registers_per_thread", offsetof(struct xp_kernel_details, regs), XP_KD_F_REGS, FAM_TF23},
		{"static_shared_memory_usage", offsetof(struct xp_kernel_details, static_shmem), XP_KD_F_STATIC, FAM_TF23},
		{"dynamic_shared_memory_usage", offsetof(struct xp_kernel_details, dynamic_shmem), XP_KD_F_DYNAMIC,
		 FAM_TF23},
	};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		if (slice_is(key, keys[k].key)) {
			*bit = keys[k].bit;
			*fam = keys[k].fam;
			return (uint32_t *)((char *)d + keys[k].off);
		}
	}
	return NULL;
}

static void parse_token(struct xp_kernel_details *d, struct slice tok, struct seen *sn)
{
	const char *colon = memchr(tok.p, ':', tok.n);
	if (!colon || memchr(colon + 1, ':', tok.n - (size_t)(colon - tok.p) - 1))
		return; /* exactly two parts, or the token is ignored */
	struct slice key = {tok.p, (size_t)(colon - tok.p)};
	struct slice val = {colon + 1, tok.n - key.n - 1};
	unsigned bit;
	enum key_family fam;
	uint32_t *field = scalar_field(d, key, &bit, &fam);
	if (field) {
		note(sn, fam);
		if (parse_u32(val, field))
			d->fields |= bit;
	} else if (slice_is(key, "grid") || slice_is(key, "block")) {
		bool grid = key.p[0] == 'g';
		note(sn, FAM_COMMON);
		if (parse_dim3(val, grid ? d->grid : d->block))
			d->fields |= grid ? XP_KD_F_GRID : XP_KD_F_BLOCK;
	} else if (slice_is(key, "occ_pct")) {
		note(sn, FAM_NVIDIA);
		if (parse_pct(val, &d->occupancy_pct))
			d->fields |= XP_KD_F_OCC;
	} else if (tf23_dim(d, key, val)) {
		note(sn, FAM_TF23);
	}
}

static enum xp_kd_form form_of(const struct seen *sn)
{
	if (sn->amd)
		return XP_KD_AMD;
	if (sn->tf23)
		return XP_KD_TF23;
	if (sn->tf24)
		return XP_KD_TF24;
	if (sn->nvidia || sn->common)
		return XP_KD_NVIDIA;
	return XP_KD_NONE;
}

static bool is_sep(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

void xp_kernel_details_parse(const char *s, size_t len, struct xp_kernel_details *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < 3; k++)
		out->grid[k] = out->block[k] = 1;
	struct seen sn = {0};
	size_t i = 0;
	while (s && i < len) {
		while (i < len && is_sep(s[i]))
			i++;
		size_t start = i;
		while (i < len && !is_sep(s[i]))
			i++;
		if (i > start)
			parse_token(out, (struct slice){s + start, i - start}, &sn);
	}
	out->form = form_of(&sn);
}

const char *xp_kd_form_name(enum xp_kd_form f)
{
	switch (f) {
	case XP_KD_TF23: return "tf2.3";
	case XP_KD_TF24: return "tf2.4";
	case XP_KD_NVIDIA: return "nvidia";
	case XP_KD_AMD: return "amd";
	case XP_KD_NONE: break;
	}
	return "none";
}

/* --- Tensor Cores ------------------------------------------------------------------ */

static bool contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (n > len)
		return false;
	for (size_t i = 0; i + n <= len; i++)
		if (s[i] == needle[0] && !memcmp(s + i, needle, n))
			return true;
	return false;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return n <= len && !memcmp(s + len - n, suffix, n);
}

bool xp_kernel_uses_tensor_core(const char *name, size_t len)
{
	/* The reference's list (xprof kernel_stats_utils): cuBLAS/cuDNN kernel families that use HMMA/IMMA. */
	static const char *const tc[] = {
		"16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group",
		"first_layer_wgrad_kernel", "h1688", "h884", "hmma", "i16832", "i8816", "s884", "s1688",
		"xmma_gemm", "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_sparse_gemm",
		"xmma_warp_specialized_implicit_gemm",
	};
	for (size_t k = 0; name && k < sizeof tc / sizeof tc[0]; k++)
		if (contains(name, len, tc[k]))
			return true;
	return false;
}

bool xp_op_tensor_core_eligible(const char *op, size_t len)
{
	static const char *const suffix[] = {
		"Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D", "DepthwiseConv2dNative",
		"DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput", "/MatMul", "FusedMatMul",
		"/CudnnRNN", "XlaDot", "XlaDotV2",
	};
	static const char *const infix[] = {"BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop"};
	if (!op)
		return false;
	for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++)
		if (ends_with(op, len, suffix[k]))
			return true;
	for (size_t k = 0; k < sizeof infix / sizeof infix[0]; k++)
		if (contains(op, len, infix[k]))
			return true;
	return false;
}

/* Occurrences of NEEDLE in [s, s+len), not overlapping. */
static size_t count(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle), c = 0;
	for (size_t i = 0; i + n <= len;) {
		if (!memcmp(s + i, needle, n)) {
			c++;
			i += n;
		} else {
			i++;
		}
	}
	return c;
}

bool xp_einsum_tensor_core_eligible(const char *eq, size_t len)
{
	if (!eq || !len || count(eq, len, "->") != 1)
		return false;
	size_t lhs = 0;
	while (memcmp(eq + lhs, "->", 2))
		lhs++;
	return count(eq, lhs, ",") == 1;
}

void xp_kd_dims_text(const uint32_t d[3], char *buf)
{
	char *p = buf;
	for (int k = 0; k < 3; k++) {
		char digits[10];
		int len = 0;
		uint32_t v = d[k];
		do
			digits[len++] = (char)('0' + v % 10);
		while (v /= 10);
		if (k)
			*p++ = ',';
		while (len)
			*p++ = digits[--len];
	}
	*p = '\0';
}
