/* tfop.c - TF-op name parsing (spec analyzers §0.2), memcpy names and byte counts, category names, step values. */
#include "prep.h"
#include "formats/core/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool prefix_ci(const char *s, size_t len, const char *pre)
{
	size_t n = strlen(pre);
	if (len < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)s[i]) != tolower((unsigned char)pre[i]))
			return false;
	return true;
}

/* [A-Za-z0-9.][A-Za-z0-9_./>-]* */
static bool tf_name_ok(const char *s, size_t n)
{
	if (!n || !(isalnum((unsigned char)s[0]) || s[0] == '.'))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!(isalnum((unsigned char)c) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-'))
			return false;
	}
	return true;
}

/* [A-Z_][a-zA-Z0-9_]* */
static bool tf_type_ok(const char *s, size_t n)
{
	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* [a-z_][a-z0-9_]*(\[.*\])? ; returns the length before '[' or 0 when it does not match. */
static size_t jax_type_len(const char *s, size_t n)
{
	if (!n || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	size_t i = 1;
	while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
		i++;
	if (i == n)
		return i;
	if (s[i] == '[' && s[n - 1] == ']' && n - i >= 2)
		return i;
	return 0;
}

/* Last '/' component with a trailing "_<digits>" removed. */
static void derived_type(const char *s, size_t n, const char **type, size_t *tlen)
{
	const char *slash = memrchr(s, '/', n);
	const char *t = slash ? slash + 1 : s;
	size_t len = n - (size_t)(t - s);
	size_t k = len;
	while (k > 0 && isdigit((unsigned char)t[k - 1]))
		k--;
	if (k < len && k > 0 && t[k - 1] == '_')
		len = k - 1;
	*type = t;
	*tlen = len;
}

static void set(struct xp_tfop *o, enum xp_op_cat cat, const char *name, size_t nlen, const char *type, size_t tlen)
{
	o->cat = cat;
	o->name = name;
	o->name_len = nlen;
	o->type = type;
	o->type_len = tlen;
}

void xp_parse_tf_op(const char *s, size_t len, struct xp_tfop *out)
{
	static const struct {
		const char *prefix;
		enum xp_op_cat cat;
	} memcpy_ops[] = {
		{"MemcpyHToD", XP_OP_MEMCPY_H2D}, {"MemcpyDToH", XP_OP_MEMCPY_D2H},
		{"MemcpyDToD", XP_OP_MEMCPY_D2D}, {"MemcpyHToH", XP_OP_MEMCPY_H2H},
	};
	const char *colon = memchr(s, ':', len);
	if (!colon) {
		for (size_t i = 0; i < sizeof memcpy_ops / sizeof *memcpy_ops; i++)
			if (prefix_ci(s, len, memcpy_ops[i].prefix)) {
				set(out, memcpy_ops[i].cat, s, len, memcpy_ops[i].prefix, strlen(memcpy_ops[i].prefix));
				return;
			}
		set(out, XP_OP_UNKNOWN, s, len, "", 0);
		return;
	}
	const char *left = s, *right = colon + 1;
	size_t llen = (size_t)(colon - s), rlen = len - llen - 1;
	if (llen == 8 && !memcmp(left, "Iterator", 8)) {
		set(out, XP_OP_TFDATA, s, len, "Dataset", 7);
		return;
	}
	if (tf_name_ok(left, llen) && tf_type_ok(right, rlen)) {
		set(out, XP_OP_TF, left, llen, right, rlen);
		return;
	}
	const char *t = right;
	size_t tlen = rlen;
	if (!rlen)
		derived_type(left, llen, &t, &tlen);
	size_t jl = jax_type_len(t, tlen);
	if (jl) {
		set(out, XP_OP_JAX, left, llen, t, jl);
		return;
	}
	if (!rlen) {
		set(out, XP_OP_TF, left, llen, t, tlen);
		return;
	}
	set(out, XP_OP_UNKNOWN, s, len, "", 0);
}

enum xp_op_cat xp_memcpy_kind(const char *name, size_t len, bool xprof_compat)
{
	static const struct {
		const char *prefix;
		enum xp_op_cat cat;
		bool compat;    /* one of the TF-op prefixes xprof knows */
	} names[] = {
		{"MemcpyHToD", XP_OP_MEMCPY_H2D, true}, {"MemcpyDToH", XP_OP_MEMCPY_D2H, true},
		{"MemcpyDToD", XP_OP_MEMCPY_D2D, true}, {"MemcpyHToH", XP_OP_MEMCPY_H2H, true},
		{"MemcpyH2D", XP_OP_MEMCPY_H2D, false}, {"MemcpyD2H", XP_OP_MEMCPY_D2H, false},
		{"MemcpyD2D", XP_OP_MEMCPY_D2D, false}, {"MemcpyP2P", XP_OP_MEMCPY_D2D, false},
		{"MemcpyPToP", XP_OP_MEMCPY_D2D, false}, {"MemcpyH2H", XP_OP_MEMCPY_H2H, false},
		/* ROCm's names for the same copies; its runtime also copies with a blit kernel of its own. */
		{"CopyHostToDevice", XP_OP_MEMCPY_H2D, false}, {"CopyDeviceToHost", XP_OP_MEMCPY_D2H, false},
		{"CopyDeviceToDevice", XP_OP_MEMCPY_D2D, false}, {"__amd_rocclr_copyBuffer", XP_OP_MEMCPY_D2D, false},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if ((names[i].compat || !xprof_compat) && prefix_ci(name, len, names[i].prefix))
			return names[i].cat;
	return XP_OP_UNKNOWN;
}

uint64_t xp_memcpy_bytes(const char *details, size_t len)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && (details[i] == ' ' || details[i] == '\n'))
			i++;
		size_t start = i;
		while (i < len && details[i] != ' ' && details[i] != '\n')
			i++;
		const char *tok = details + start;
		size_t tlen = i - start;
		size_t key = 0;
		if (tlen > 5 && !memcmp(tok, "size:", 5))
			key = 5;
		else if (tlen > 10 && !memcmp(tok, "num_bytes:", 10))
			key = 10;
		if (!key)
			continue;
		uint64_t v = 0;
		for (size_t k = key; k < tlen; k++) {
			if (tok[k] < '0' || tok[k] > '9' || v > (UINT64_MAX - 9) / 10)
				return 0;
			v = v * 10 + (uint64_t)(tok[k] - '0');
		}
		return v;
	}
	return 0;
}

/* --- names of types and categories ---------------------------------------- */

const char *xp_event_type_name(enum xp_event_type t)
{
	static const char *const names[XP_N_EVENT_TYPES] = {
		"unknown_time", "host_compute", "host_preprocess", "host_postprocess", "host_batch_formation",
		"host_runtime", "host_compile", "host_to_host", "host_to_device", "host_prepare",
		"device_collectives", "host_wait_input", "device_to_device", "device_to_host",
		"device_compute_32", "device_compute_16", "device_wait_device", "device_wait_host",
		"memcpy", "memset",
	};
	return (unsigned)t < XP_N_EVENT_TYPES ? names[t] : "?";
}

const char *xp_step_cat_key(enum xp_step_cat c)
{
	static const char *const keys[XP_N_STEP_CATS] = {
		"device_compute", "device_to_device", "device_collectives", "host_compute", "kernel_launch",
		"input", "output", "compilation", "all_others", "memcpy", "memset",
	};
	return (unsigned)c < XP_N_STEP_CATS ? keys[c] : "?";
}

const char *xp_step_cat_label(enum xp_step_cat c)
{
	static const char *const labels[XP_N_STEP_CATS] = {
		"Device compute", "Device to device", "Device collective communication", "Host compute",
		"Kernel launch", "Input", "Output", "Compilation", "All others", "Memcpy", "Memset",
	};
	return (unsigned)c < XP_N_STEP_CATS ? labels[c] : "?";
}

const enum xp_step_cat *xp_step_cats(bool pytorch, size_t *n)
{
	static const enum xp_step_cat tf[] = {
		XP_SC_DEVICE_COMPUTE, XP_SC_DEVICE_TO_DEVICE, XP_SC_DEVICE_COLLECTIVES, XP_SC_HOST_COMPUTE,
		XP_SC_KERNEL_LAUNCH, XP_SC_INPUT, XP_SC_OUTPUT, XP_SC_COMPILATION, XP_SC_OTHER,
	};
	static const enum xp_step_cat pt[] = {
		XP_SC_DEVICE_COMPUTE, XP_SC_MEMCPY, XP_SC_MEMSET, XP_SC_DEVICE_COLLECTIVES,
		XP_SC_KERNEL_LAUNCH, XP_SC_INPUT, XP_SC_HOST_COMPUTE, XP_SC_OTHER,
	};
	*n = pytorch ? sizeof pt / sizeof *pt : sizeof tf / sizeof *tf;
	return pytorch ? pt : tf;
}

const char *xp_step_cat_short(enum xp_step_cat c, bool pytorch)
{
	static const char *const tf[XP_N_STEP_CATS] = {
		"Compute", "Dev-to-dev", "Collectives", "Host compute", "Launch", "Input", "Output", "Compile", "Others",
		"Memcpy", "Memset",
	};
	if (pytorch && c != XP_SC_DEVICE_COLLECTIVES)
		return xp_step_cat_label_for(c, true);
	return (unsigned)c < XP_N_STEP_CATS ? tf[c] : "?";
}

size_t xp_step_cat_columns(bool pytorch, enum xp_step_cat out[XP_N_STEP_CATS], bool hidden[XP_N_STEP_CATS])
{
	size_t n, n_tf, k = 0;
	const enum xp_step_cat *shown = xp_step_cats(pytorch, &n), *tf = xp_step_cats(false, &n_tf);
	for (size_t i = 0; i < n; i++, k++) {
		out[k] = shown[i];
		hidden[k] = false;
	}
	for (size_t i = 0; i < n_tf; i++) {
		bool in = false;
		for (size_t j = 0; j < n && !in; j++)
			in = shown[j] == tf[i];
		if (!in) {
			out[k] = tf[i];
			hidden[k++] = true;
		}
	}
	return k;
}

/* Keys stay TensorFlow's (one schema); PyTorch captures name the same quantities as PyTorch does. */
const char *xp_step_cat_label_for(enum xp_step_cat c, bool pytorch)
{
	static const char *const pt[XP_N_STEP_CATS] = {
		[XP_SC_DEVICE_COMPUTE] = "Kernel", [XP_SC_DEVICE_COLLECTIVES] = "Communication",
		[XP_SC_HOST_COMPUTE] = "CPU Exec", [XP_SC_KERNEL_LAUNCH] = "Runtime", [XP_SC_INPUT] = "DataLoader",
		[XP_SC_OTHER] = "Other",
	};
	if (pytorch && (unsigned)c < XP_N_STEP_CATS && pt[c])
		return pt[c];
	return xp_step_cat_label(c);
}

int64_t xp_step_cat_ps(const struct xp_step *s, enum xp_step_cat c)
{
#define T(type) xp_step_type_ps(s, XP_ET_##type)
	switch (c) {
	case XP_SC_DEVICE_COMPUTE: return T(DEVICE_COMPUTE_16) + T(DEVICE_COMPUTE_32);
	case XP_SC_DEVICE_TO_DEVICE: return T(DEVICE_TO_DEVICE) + T(DEVICE_WAIT_DEVICE);
	case XP_SC_DEVICE_COLLECTIVES: return T(DEVICE_COLLECTIVES);
	case XP_SC_HOST_COMPUTE: return T(HOST_COMPUTE);
	case XP_SC_KERNEL_LAUNCH: return T(HOST_PREPARE);
	case XP_SC_INPUT: return T(HOST_WAIT_INPUT) + T(HOST_TO_DEVICE) + T(DEVICE_WAIT_HOST);
	case XP_SC_OUTPUT: return T(DEVICE_TO_HOST);
	case XP_SC_COMPILATION: return T(HOST_COMPILE);
	case XP_SC_OTHER: return T(UNKNOWN);
	case XP_SC_MEMCPY: return T(PT_MEMCPY);
	case XP_SC_MEMSET: return T(PT_MEMSET);
	default: return 0;
	}
#undef T
}

void xp_step_set(struct xp_step *s, const int64_t v[XP_STEP_N_VALUES], const char *name)
{
	size_t n = 0, len = name ? strlen(name) : 0;
	s->has = 0;
	for (unsigned i = 0; i < XP_STEP_N_VALUES; i++)
		if (v[i]) {
			s->has |= (uint32_t)1 << i;
			n++;
		}
	s->vals = xmalloc(n * sizeof *s->vals + len + 1);
	for (unsigned i = 0, k = 0; i < XP_STEP_N_VALUES; i++)
		if (v[i])
			s->vals[k++] = v[i];
	s->name = (char *)(s->vals + n);
	memcpy(s->name, name ? name : "", len);
	s->name[len] = 0;
}

void xp_step_release(struct xp_step *s)
{
	free(s->vals);
	s->vals = NULL;
	s->name = NULL;
	s->has = 0;
}

/* Sample standard deviation (spec §1.5). The reference's quirks (max
 * starting at DBL_MIN, NaN for one sample) are not reproduced: one sample
 * has σ 0, an empty series is all zeros. */
void xp_summarize_ms(const double *v, size_t n, struct xp_summary_stat *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (!n)
		return;
	double sum = 0, sq = 0;
	out->min = out->max = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		sq += v[i] * v[i];
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	out->avg = sum / (double)n;
	if (n > 1 && out->min != out->max) {
		double var = (sq - sum * sum / (double)n) / (double)(n - 1);
		out->sdv = var > 0 ? sqrt(var) : 0;
	}
}
