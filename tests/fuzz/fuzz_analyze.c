/* fuzz_analyze.c - the analyses behind the readers for the structure-aware fuzz targets (fuzz_analyze.h). */
#include "fuzz_analyze.h"

#include "analyzers/check.h"
#include "analyzers/compare.h"
#include "analyzers/report.h"
#include "formats/in/report_read.h"
#include "formats/out/out.h"
#include "formats/out/out_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASSERT(c)                      \
	do {                           \
		if (!(c))              \
			abort();       \
	} while (0)

static void write_result(const struct xp_result *r)
{
	static const struct xp_writer *const writers[] = {&xp_writer_text, &xp_writer_csv, &xp_writer_json};
	for (size_t w = 0; w < sizeof writers / sizeof *writers; w++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		ASSERT(f);
		struct xp_out_opts o = {.width = w == 0 ? 80 : 0};
		struct xp_err e = {0};
		int rc = writers[w]->write(r, f, &o, &e);
		fclose(f);
		ASSERT(rc == 0 || w == 1); /* CSV refuses a result without a table */
		free(buf);
	}
}

static char *report_json(const struct xp_report *rep, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	ASSERT(f);
	static char input[] = "fuzz";
	char *inputs[] = {input};
	ASSERT(xp_report_write_json(rep, "fuzz", inputs, 1, f) == 0);
	fclose(f);
	return buf;
}

static void report_text(const struct xp_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ASSERT(f);
	struct xp_out_opts o = {0};
	struct xp_err e = {0};
	ASSERT(xp_report_write_text(rep, "fuzz", f, &o, &e) == 0);
	fclose(f);
	free(buf);
}

void fuzz_analyze_saved(const struct xp_report *base, const struct xp_report *cand)
{
	struct xp_metrics mb, mc;
	xp_metrics_from_report(base, &mb);
	xp_metrics_from_report(cand, &mc);
	struct xp_compare_opts co = {.confidence = 0.95};
	struct xp_result *r = xp_compare(&mb, &mc, &co);
	ASSERT(r);
	write_result(r);
	xp_result_free(r);
	static char input[] = "input", op1[] = "op/1", any[] = "";
	struct xp_named_limit cat = {input, {XP_LIM_PCT, 0, 10}};
	struct xp_named_limit op = {op1, {XP_LIM_DUR, 1000000, 0}};
	struct xp_check_opts o = {
		.max_step = {XP_LIM_DUR, 100000000000LL, 0},
		.max_median = {XP_LIM_DUR, 1, 0},
		.n_cat = 1, .cat = &cat,
		.max_input = {XP_LIM_PCT, 0, 5},
		.n_op = 1, .op = &op,
		.has_peak = true, .peak = {any, {XP_LIM_BYTES, INT64_MAX, 0}},
		.regression = {XP_LIM_PCT, 0, 5},
		.confidence = 0.95, .min_steps = 2, .baseline_source = "base.json",
	};
	int status = -1;
	r = xp_check(&mc, &mb, &o, &status);
	ASSERT(r && (status == XP_CHECK_PASS || status == XP_CHECK_FAIL || status == XP_CHECK_UNUSABLE));
	write_result(r);
	xp_result_free(r);
	xp_metrics_free(&mb);
	xp_metrics_free(&mc);
}

static struct xp_report *run(const struct xp_capture *c, int threads)
{
	struct xp_err err = {0};
	struct xp_prep_opts po = {0};
	struct xp_report_opts ro = {.threads = threads, .state = true};
	struct xp_report *rep = xp_report_run(c, &po, &ro, NULL, &err);
	ASSERT(rep);
	return rep;
}

void fuzz_analyze_capture(const struct xp_capture *c)
{
	struct xp_report *rep = run(c, 1), *rep2 = run(c, 2);
	size_t len, len2;
	char *json = report_json(rep, &len), *json2 = report_json(rep2, &len2);
	/* same bytes whatever the threads */
	ASSERT(len == len2 && !memcmp(json, json2, len));
	free(json2);
	xp_report_free(rep2);
	report_text(rep);
	for (size_t i = 0; i < rep->n; i++)
		write_result(rep->sec[i].r);
	/* what report writes, check and compare read back */
	struct xp_report *saved = NULL;
	struct xp_err err;
	memset(&err, 0, sizeof err);
	if (xp_report_parse("fuzz.json", json, len, &saved, &err) != 0) {
		/* Whatever a capture holds, what report writes is a baseline. */
		fprintf(stderr, "fuzz: report's own JSON does not read back: %s\n", err.msg);
		abort();
	}
	fuzz_analyze_saved(saved, saved);
	xp_report_free(saved);
	xp_report_free(rep);
	free(json);
}

/* --- the input as a source of values --- */

uint8_t fz_u8(struct fz *f)
{
	return f->i < f->n ? f->p[f->i++] : 0;
}

uint64_t fz_u64(struct fz *f)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | fz_u8(f);
	return v;
}

size_t fz_pick(struct fz *f, size_t n)
{
	return fz_u8(f) % n;
}

int64_t fz_int(struct fz *f)
{
	static const int64_t hard[] = {
		0, 1, -1, 2, INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN, INT64_MAX - 1,
		INT64_MIN + 1, INT64_MAX / 1000, INT64_MAX / 1000000 + 1, (int64_t)1 << 53, ((int64_t)1 << 53) + 1,
		1000, 1000000, 1000000000, -1000000,
	};
	uint8_t k = fz_u8(f);
	if (k < 64)
		return hard[k % (sizeof hard / sizeof *hard)];
	if (k < 192)
		return (int64_t)(fz_u8(f) * 1000u + fz_u8(f));
	return (int64_t)fz_u64(f);
}

double fz_double(struct fz *f)
{
	static const double hard[] = {0.0, -0.0, 1.0, -1.0, 5e-324, 2.2250738585072014e-308, 1e300, -1e300, 1e308,
				      9.3e18, -9.3e18, 0.5, 100.0};
	uint8_t k = fz_u8(f);
	if (k < 16)
		return NAN;
	if (k < 24)
		return k & 1 ? INFINITY : -INFINITY;
	if (k < 128)
		return hard[k % (sizeof hard / sizeof *hard)];
	uint64_t bits = fz_u64(f);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

size_t fz_name(struct fz *f, const char *const *words, size_t n_words, char *buf, size_t size)
{
	static const char *const hostile[] = {
		"op\x1b[31mred", "osc\x1b]0;title\x07", "c1\xc2\x9b\x32J", "bidi\xe2\x80\xaetxt", "nl\nsecond",
		"=cmd|calc", "+SUM(1)", "-1+2", "@x", "<b>&amp;\"'</b>", "\xff\xfe", "a\xc0\xaf", "\xed\xa0\x80",
		"", " ", "a,b;c", "x/y:z", "%s%n",
	};
	uint8_t k = fz_u8(f);
	const char *w = k < 200 && n_words ? words[k % n_words] : hostile[k % (sizeof hostile / sizeof *hostile)];
	size_t len = strlen(w);
	if (len >= size)
		len = size - 1;
	memcpy(buf, w, len);
	/* sometimes a suffix (op/3, step 12) or a NUL inside */
	uint8_t s = fz_u8(f);
	if (s >= 224 && len + 4 < size)
		len += (size_t)snprintf(buf + len, size - len, "/%u", s & 7);
	else if (s == 223 && len + 3 < size) {
		memcpy(buf + len, "\0z", 2);
		len += 2;
	}
	buf[len] = 0;
	return len;
}
