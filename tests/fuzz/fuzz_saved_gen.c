/* fuzz_saved_gen.c - libFuzzer target: saved reports (check and compare baselines) whose decoded values a custom mutator edits -- hostile numbers, names, types, rows -- read back and then compared and checked. */
#include "fuzz_analyze.h"
#include "formats/in/report_read.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* The input: a baseline, optionally a NUL byte and a candidate (else the baseline is both). */
static void split(const uint8_t *data, size_t size, size_t *a, const uint8_t **b, size_t *bn)
{
	const uint8_t *nul = memchr(data, 0, size);
	*a = nul ? (size_t)(nul - data) : size;
	*b = nul ? nul + 1 : data;
	*bn = nul ? size - *a - 1 : size;
}

static struct xp_report *parse(const uint8_t *p, size_t n)
{
	struct xp_report *rep = NULL;
	struct xp_err err;
	memset(&err, 0, sizeof err);
	int rc = xp_report_parse("fuzz.json", (const char *)p, n, &rep, &err);
	if (rc != 0 && (rc != -1 || rep || err.status != XP_EXIT_BAD_INPUT || !err.msg[0]))
		abort();
	return rc == 0 ? rep : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t an, bn;
	const uint8_t *b;
	split(data, size, &an, &b, &bn);
	struct xp_report *base = parse(data, an), *cand = base && b != data ? parse(b, bn) : NULL;
	if (base)
		fuzz_analyze_saved(base, cand ? cand : base);
	xp_report_free(cand);
	xp_report_free(base);
	return 0;
}

/* --- the mutator: one decoded value edited --- */

static unsigned next(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static size_t count(const cJSON *n)
{
	size_t k = 1;
	for (const cJSON *c = n->child; c; c = c->next)
		k += count(c);
	return k;
}

/* The K-th node in document order, and its parent. */
static cJSON *nth(cJSON *n, cJSON *up, size_t *k, cJSON **parent)
{
	if ((*k)-- == 0) {
		*parent = up;
		return n;
	}
	for (cJSON *c = n->child; c; c = c->next) {
		cJSON *hit = nth(c, n, k, parent);
		if (hit)
			return hit;
	}
	return NULL;
}

static cJSON *hostile_value(unsigned *s)
{
	static const double nums[] = {9223372036854775808.0, 18446744073709551616.0, 1e300, -1e300, 1e308, -0.0,
				      5e-324, 9007199254740993.0, -9223372036854775808.0, 2147483648.0, 0, 1, -1,
				      0.5, 1e-9, 123456.789};
	static const char *const strs[] = {"op\x1b[31mred", "bidi\xe2\x80\xaetxt", "nl\nx", "=cmd|calc", "<b>&</b>",
					   "", "device", "host", "input", "op/1", "GPU_0_bfc", "\xc2\x9b", "pytorch-2"};
	switch (next(s) % 10) {
	case 0: return cJSON_CreateArray();
	case 1: return cJSON_CreateObject();
	case 2: return cJSON_CreateBool(next(s) & 1);
	case 3: return cJSON_CreateNull();
	case 4: case 5: return cJSON_CreateString(strs[next(s) % (sizeof strs / sizeof *strs)]);
	case 6: return cJSON_CreateNumber((double)(int)(next(s) % 2000) - 1000);
	default: return cJSON_CreateNumber(nums[next(s) % (sizeof nums / sizeof *nums)]);
	}
}

/* Edit a node (not the root) of the document: a hostile value, a copy of itself in its array, a name one byte off, or gone. */
static void edit(cJSON *root, unsigned *s)
{
	size_t total = count(root);
	if (total < 2)
		return;
	size_t k = 1 + next(s) % (total - 1);
	cJSON *parent = NULL, *n = nth(root, NULL, &k, &parent);
	if (!n || !parent)
		return;
	unsigned what = next(s) % 8;
	if (what == 0) {
		cJSON_DetachItemViaPointer(parent, n);
		cJSON_Delete(n);
	} else if (what == 1 && cJSON_IsArray(parent)) {
		cJSON *copy = cJSON_Duplicate(n, 1);
		if (copy)
			cJSON_AddItemToArray(parent, copy);
	} else if (what == 2 && cJSON_IsString(n) && n->valuestring[0]) {
		/* a name changed by one byte: another op, another step */
		char *v = strdup(n->valuestring);
		if (v) {
			v[next(s) % strlen(v)] ^= (char)(1 + next(s) % 31);
			cJSON_SetValuestring(n, v);
			free(v);
		}
	} else {
		cJSON *v = hostile_value(s);
		if (v && n->string && !(v->string = strdup(n->string))) {
			cJSON_Delete(v);
			v = NULL;
		}
		if (v)
			cJSON_ReplaceItemViaPointer(parent, n, v);
	}
}

/* libFuzzer's own mutation; this stand-in only links the replay build, which never mutates. */
__attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)data;
	(void)max_size;
	return size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	unsigned s = seed;
	size_t an, bn;
	const uint8_t *b;
	split(data, size, &an, &b, &bn);
	bool second = b != data && next(&s) % 2;
	const uint8_t *doc = second ? b : data;
	size_t dn = second ? bn : an;
	cJSON *root = next(&s) % 8 ? cJSON_ParseWithLength((const char *)doc, dn) : NULL;
	if (!root)
		return LLVMFuzzerMutate(data, size, max_size);
	for (unsigned k = 1 + next(&s) % 3; k; k--)
		edit(root, &s);
	char *text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!text)
		return LLVMFuzzerMutate(data, size, max_size);
	size_t tn = strlen(text), out;
	uint8_t *tmp = malloc(max_size ? max_size : 1);
	if (!tmp) {
		free(text);
		return size;
	}
	/* the edited document in place of the one chosen; the other kept */
	if (second && an + 1 + tn <= max_size) {
		memcpy(tmp, data, an + 1);
		memcpy(tmp + an + 1, text, tn);
		out = an + 1 + tn;
	} else if (!second && tn + (size - an) <= max_size) {
		memcpy(tmp, text, tn);
		memcpy(tmp + tn, data + an, size - an);
		out = tn + size - an;
	} else {
		out = 0;
	}
	if (out)
		memcpy(data, tmp, out);
	free(tmp);
	free(text);
	return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
