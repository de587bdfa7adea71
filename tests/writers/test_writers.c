/* test_writers.c - unit tests of typed results and the text, CSV and JSON writers (exact bytes). */
#include "formats/core/dectext.h"
#include "formats/model/result.h"
#include "formats/out/out.h"
#include "tests/tmpdir.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;

#define CHECK(cond) check((cond), #cond, __LINE__)
#define CHECK_STR(got, want) check_str((got), (want), __LINE__)

static void check(bool ok, const char *what, int line)
{
	if (!ok) {
		fprintf(stderr, "test_writers.c:%d: check failed: %s\n", line, what);
		failures++;
	}
}

/* Show bytes so that a failing comparison of control characters is readable. */
static void show(const char *label, const char *s)
{
	fprintf(stderr, "  %s: \"", label);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n\"\n        \"", stderr);
		else if (c == '\\' || c == '"')
			fprintf(stderr, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputs("\"\n", stderr);
}

static void check_str(const char *got, const char *want, int line)
{
	if (got && want && strcmp(got, want) == 0)
		return;
	fprintf(stderr, "test_writers.c:%d: output differs\n", line);
	show("want", want);
	show("got ", got);
	failures++;
}

/* Run a writer into memory; its return value goes to *status. */
static char *render_e(const struct xp_writer *w, const struct xp_result *r, const struct xp_out_opts *o,
		      int *status, struct xp_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int st;

	if (!f) {
		perror("open_memstream");
		exit(99);
	}
	st = w->write(r, f, o, e);
	fclose(f);
	if (status)
		*status = st;
	return buf;
}

static char *render(const struct xp_writer *w, const struct xp_result *r, const struct xp_out_opts *o,
		    int *status)
{
	struct xp_err e = {0};
	return render_e(w, r, o, status, &e);
}

/* Like render, also giving the error the writer returned as the line cmd/ prints. The writer itself
 * must print nothing: what it wrote on stderr is checked to be empty. */
static char *render_err(const struct xp_writer *w, const struct xp_result *r, const struct xp_out_opts *o,
			int *status, char **err)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct xp_err e = {0};
	char *out;
	long n;

	if (!tmp || saved < 0) {
		perror("tmpfile");
		exit(99);
	}
	fflush(stderr);
	dup2(fileno(tmp), 2);
	out = render_e(w, r, o, status, &e);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = (long)lseek(fileno(tmp), 0, SEEK_END);
	CHECK(n == 0);
	fclose(tmp);
	CHECK(e.status == *status);
	if (asprintf(err, "xpstat: %s\n", e.msg) < 0) {
		perror("asprintf");
		exit(99);
	}
	return out;
}

static bool valid_utf8(const char *s)
{
	size_t n = strlen(s), i = 0;

	while (i < n) {
		uint32_t cp;
		size_t len = xp_utf8_decode((const unsigned char *)s + i, n - i, &cp);

		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* --- results --- */

static void test_result_building(void)
{
	struct xp_result *r = xp_result_new("build");
	struct xp_table *t = xp_result_add_table(r, "t", NULL);
	size_t a, b, row;
	int i;

	a = xp_table_col(t, "a", NULL, XP_T_INT, XP_U_NONE, 0);
	for (i = 0; i < 100; i++) {
		row = xp_table_row(t);
		xp_set_int(t, row, a, i);
	}
	/* A column added after rows keeps every earlier value in place. */
	b = xp_table_col(t, "b", "B", XP_T_STR, XP_U_NONE, 0);
	xp_set_str(t, 42, b, "x");
	xp_set_str(t, 42, b, "y");   /* replacing frees the old string */
	row = xp_table_row(t);
	xp_set_int(t, row, a, 100);
	for (i = 0; i <= 100; i++)
		CHECK(xp_table_cell(t, (size_t)i, a)->v.i == i);
	CHECK(xp_table_cell(t, 42, b)->type == XP_T_STR && strcmp(xp_table_cell(t, 42, b)->v.s, "y") == 0);
	CHECK(xp_table_cell(t, 43, b)->type == XP_T_NULL);
	CHECK(xp_table_cell(t, 100, b)->type == XP_T_NULL);
	CHECK(strcmp(t->title, "t") == 0 && strcmp(t->cols[a].header, "a") == 0);
	xp_set_strn(t, 0, b, "abcdef", 3);
	CHECK(strcmp(xp_table_cell(t, 0, b)->v.s, "abc") == 0);
	xp_set_str(t, 0, b, NULL);
	CHECK(xp_table_cell(t, 0, b)->type == XP_T_NULL);
	CHECK(xp_result_table(r, "t") == t && !xp_result_table(r, "u") && !xp_result_table(r, NULL));

	xp_result_set_verdict(r, "first %d", 1);
	xp_result_set_verdict(r, "second %s", "two");
	CHECK_STR(r->verdict, "second two");
	xp_sum_str(r, "k", NULL, NULL);
	CHECK(r->n_summary == 1 && strcmp(r->summary[0].label, "k") == 0);
	CHECK(r->summary[0].value.type == XP_T_NULL);
	xp_result_diag(r, XP_SEV_ERROR, "c", NULL, NULL, "%s", "m");
	CHECK(r->n_diags == 1 && !r->diags[0].hint && !r->diags[0].host);
	CHECK_STR(xp_severity_name(XP_SEV_INFO), "info");
	CHECK_STR(xp_severity_name(XP_SEV_WARNING), "warning");
	CHECK_STR(xp_severity_name(XP_SEV_ERROR), "error");
	CHECK_STR(xp_unit_suffix(XP_U_US), "us");
	CHECK_STR(xp_unit_suffix(XP_U_NONE), "");
	xp_result_free(r);
	xp_result_free(NULL);
}

static void test_dur_exact(void)
{
	static const struct {
		int64_t ps;
		enum xp_unit unit;
		const char *want;
	} cases[] = {
		{1, XP_U_US, "0.000001"},
		{-1500000, XP_U_US, "-1.5"},
		{0, XP_U_US, "0"},
		{0, XP_U_PS, "0"},
		{29690748000, XP_U_US, "29690.748"},
		{1000, XP_U_NS, "1"},
		{1234567, XP_U_MS, "0.001234567"},
		{-1, XP_U_S, "-0.000000000001"},
		{1500000000000, XP_U_S, "1.5"},
		{INT64_MAX, XP_U_PS, "9223372036854775807"},
		{INT64_MAX, XP_U_NONE, "9223372036854775807"},
		{INT64_MIN, XP_U_S, "-9223372.036854775808"},
		{INT64_MIN, XP_U_NONE, "-9223372036854775808"},
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		xp_format_dur_exact(cases[i].ps, cases[i].unit, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want);
	}
	xp_format_dur_exact(29690748000, XP_U_US, buf, 4);   /* truncated, never overflowing */
	CHECK_STR(buf, "296");
}

static void test_f64(void)
{
	char buf[64];

	CHECK(xp_format_f64(0.1, buf, sizeof(buf)));
	CHECK_STR(buf, "0.1");
	xp_format_f64(41.2, buf, sizeof(buf));
	CHECK_STR(buf, "41.2");
	xp_format_f64(0.1 + 0.2, buf, sizeof(buf));
	CHECK_STR(buf, "0.30000000000000004");
	xp_format_f64(-0.0, buf, sizeof(buf));
	CHECK_STR(buf, "0");
	CHECK(xp_format_f64(0.0, buf, sizeof(buf)));
	CHECK_STR(buf, "0");
	CHECK(xp_format_f64(0.0, buf, 1) && buf[0] == '\0');   /* no room for the digit: empty, as snprintf leaves it */
	xp_format_f64(1e20, buf, sizeof(buf));
	CHECK_STR(buf, "1e+20");
	xp_format_f64(1e-5, buf, sizeof(buf));
	CHECK_STR(buf, "1e-05");
	xp_format_f64(-2.5, buf, sizeof(buf));
	CHECK_STR(buf, "-2.5");
	CHECK(!xp_format_f64(NAN, buf, sizeof(buf)) && buf[0] == '\0');
	CHECK(!xp_format_f64(-INFINITY, buf, sizeof(buf)) && buf[0] == '\0');
	xp_format_f64(1.0 / 3, buf, sizeof(buf));
	CHECK(strtod(buf, NULL) == 1.0 / 3);
}

/* The reference xp_format_f64 follows: the shortest of %.15g, %.16g, %.17g that reads back (C locale). */
static void f64_reference(double v, char *buf, size_t n)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			return;
	}
}

/* The digit-writing fast path against printf: decimals of up to six places and the doubles near them, every
 * magnitude around its limits (1e-4, 1e9), negatives, and random bit patterns. */
static void test_f64_fast_path(void)
{
	static const double scales[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
	char got[64], want[64];
	uint64_t x = 0x9e3779b97f4a7c15u, bad = 0;
	for (long i = 0; i < 2000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v;
		switch (i % 7) {
		case 0: v = (double)(x % 1000000000000000u) / scales[(x >> 50) % 9]; break;
		case 1: v = (double)(x % 100000000u) / 1e6; break;
		case 2: v = nextafter((double)(x % 10000000000u) / 1e6, (x & 1) ? 1e300 : -1e300); break;
		/* The exact path, 1e-5 <= |v| < 1e14: any double there, dyadic ties, and the edges of a decade. */
		case 3: v = pow(10, -6 + (double)(x >> 11) / (double)(1ull << 53) * 21); break;
		case 4: v = ldexp((double)(x % 100000u), -(int)((x >> 40) % 40)); break;
		case 5: v = nextafter(pow(10, (int)(x % 20) - 6), (x & 1) ? 1e300 : -1e300); break;
		default: memcpy(&v, &x, sizeof v); break;
		}
		if ((x >> 20) & 1)
			v = -v;
		if (!isfinite(v) || v == 0)
			continue;
		xp_format_f64(v, got, sizeof got);
		f64_reference(v, want, sizeof want);
		if (strcmp(got, want) && bad++ < 5)
			fprintf(stderr, "xp_format_f64(%.17g): '%s', printf '%s'\n", v, got, want);
	}
	static const double edges[] = {1e-4, 0.000099999, 0.0001000001, 999999999.999999, 1e9, 999999999.9999995,
				       123456789.123456, 0.1, 0.7, 1e-6, 5e-5, 2.5e-4, 100, 31.25, 4294967.296,
				       0.0008343251499859538, 1e-5, 0.99999999999999989, 9.9999999999999982e13, 1e14,
				       0x1p-16, 0x1.fffffffffffffp-17, 0.30000000000000004, 2.0 / 3, 1e13 / 3};
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
		xp_format_f64(edges[i], got, sizeof got);
		f64_reference(edges[i], want, sizeof want);
		if (strcmp(got, want) && bad++ < 10)
			fprintf(stderr, "xp_format_f64(%.17g): '%s', printf '%s'\n", edges[i], got, want);
	}
	CHECK(bad == 0);
}

/* Decimal integers without printf (writers, saved state): the same text as printf, edges and random widths. */
static void test_dec_text(void)
{
	static const int64_t edges[] = {0, 1, -1, 9, 10, -10, 99, 100, INT64_MAX, INT64_MIN, INT64_MIN + 1,
					999999999999999999, 1000000000000000000, -1000000000000000000};
	char got[XP_DEC_SIZE], want[32];
	uint64_t x = 0x2545f4914f6cdd1du, bad = 0;
	for (long i = 0; i < 200000 + (long)(sizeof edges / sizeof *edges); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t u = i < (long)(sizeof edges / sizeof *edges) ? (uint64_t)edges[i] : x >> (x % 64);
		size_t n = xp_dec_i64(got, (int64_t)u);
		snprintf(want, sizeof want, "%" PRId64, (int64_t)u);
		if ((strcmp(got, want) || n != strlen(want)) && bad++ < 5)
			fprintf(stderr, "xp_dec_i64: '%s', printf '%s'\n", got, want);
		n = xp_dec_u64(got, u);
		snprintf(want, sizeof want, "%" PRIu64, u);
		if ((strcmp(got, want) || n != strlen(want)) && bad++ < 5)
			fprintf(stderr, "xp_dec_u64: '%s', printf '%s'\n", got, want);
	}
	CHECK(bad == 0);
}

static void test_utf8(void)
{
	char *s;

	s = xp_utf8_sanitize("ok \xc3\xa9 \xe2\x80\xae \xf0\x9f\x98\x80");
	CHECK_STR(s, "ok \xc3\xa9 \xe2\x80\xae \xf0\x9f\x98\x80");
	free(s);
	/* Stray continuation, overlong, surrogate, past U+10FFFF, truncated. */
	s = xp_utf8_sanitize("a\x80" "b\xc0\xaf" "c\xed\xa0\x80" "d\xf4\x90\x80\x80" "e\xe2\x82");
	CHECK(valid_utf8(s));
	CHECK(strncmp(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c", 12) == 0);
	free(s);
}

/* --- CSV --- */

/* A result with a mixed table "ops" (primary) and a one-column table "notes". */
static struct xp_result *csv_result(void)
{
	struct xp_result *r = xp_result_new("test");
	struct xp_table *t = xp_result_add_table(r, "ops", "Ops");
	struct xp_table *n;
	size_t row;

	xp_table_col(t, "name", "Name", XP_T_STR, XP_U_NONE, 0);
	xp_table_col(t, "count", "Count", XP_T_INT, XP_U_NONE, 0);
	xp_table_col(t, "self_time_us", "Self", XP_T_DUR, XP_U_US, 0);
	xp_table_col(t, "ratio", "Ratio", XP_T_F64, XP_U_NONE, 0);
	xp_table_col(t, "share_pct", "Share", XP_T_PCT, XP_U_NONE, 0);
	xp_table_col(t, "busy_fraction", "Busy", XP_T_FRAC, XP_U_NONE, 0);
	xp_table_col(t, "eligible", "Eligible", XP_T_BOOL, XP_U_NONE, 0);
	xp_table_col(t, "line_id", "Line", XP_T_ID, XP_U_NONE, XP_COL_TEXT_HIDDEN);
	xp_table_col(t, "bytes", "Bytes", XP_T_BYTES, XP_U_NONE, 0);

	row = xp_table_row(t);
	xp_set_str(t, row, 0, "MatMul");
	xp_set_int(t, row, 1, 3);
	xp_set_dur(t, row, 2, 29690748000);
	xp_set_f64(t, row, 3, 0.5);
	xp_set_pct(t, row, 4, 41.2);
	xp_set_frac(t, row, 5, 0.25);
	xp_set_bool(t, row, 6, true);
	xp_set_id(t, row, 7, INT64_MAX);
	xp_set_bytes(t, row, 8, 4294967296);

	row = xp_table_row(t);
	xp_set_str(t, row, 0, "a,b \"q\"");
	xp_set_int(t, row, 1, -5);
	xp_set_dur(t, row, 2, -1500000);
	xp_set_f64(t, row, 3, NAN);
	xp_set_pct(t, row, 4, INFINITY);
	xp_set_frac(t, row, 5, 1);
	xp_set_bool(t, row, 6, false);
	xp_set_id(t, row, 7, -1);

	row = xp_table_row(t);
	xp_set_str(t, row, 0, "two\nlines");
	xp_set_dur(t, row, 2, 1);
	xp_set_f64(t, row, 3, 1e-5);

	row = xp_table_row(t);
	xp_set_str(t, row, 0, " padded ");
	xp_set_dur(t, row, 2, 0);
	xp_set_str(t, row, 1, "-3");   /* text that looks like a number is still text */

	n = xp_result_add_table(r, "notes", "Notes");
	xp_table_col(n, "text", "Text", XP_T_STR, XP_U_NONE, 0);
	{
		static const char *const texts[] = {
			"=SUM(A1:A9)", "+1", "-1", "@cmd", "\tx", "\rx", "plain", "", "caf\xc3\xa9", "bad\xff",
			"x=1", "'quoted",
		};
		size_t i;

		for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
			xp_set_str(n, xp_table_row(n), 0, texts[i]);
		xp_table_row(n);   /* a NULL cell */
	}
	return r;
}

static void test_csv(void)
{
	struct xp_result *r = csv_result();
	struct xp_out_opts o = {0};
	char *out, *err;
	int st;

	out = render(&xp_writer_csv, r, &o, &st);
	CHECK(st == 0);
	CHECK_STR(out,
		  "name,count,self_time_us,ratio,share_pct,busy_fraction,eligible,line_id,bytes\r\n"
		  "MatMul,3,29690.748,0.5,41.2,0.25,true,9223372036854775807,4294967296\r\n"
		  "\"a,b \"\"q\"\"\",-5,-1.5,,,1,false,-1,\r\n"
		  "\"two\nlines\",,0.000001,1e-05,,,,,\r\n"
		  "\" padded \",'-3,0,,,,,,\r\n");
	free(out);

	o.table = "notes";
	out = render(&xp_writer_csv, r, &o, &st);
	CHECK(st == 0);
	CHECK_STR(out,
		  "text\r\n"
		  "'=SUM(A1:A9)\r\n"
		  "'+1\r\n"
		  "'-1\r\n"
		  "'@cmd\r\n"
		  "'\tx\r\n"   /* the tab is no longer leading: no quotes needed */
		  "\"'\rx\"\r\n"
		  "plain\r\n"
		  "\"\"\r\n"
		  "caf\xc3\xa9\r\n"
		  "bad\xef\xbf\xbd\r\n"
		  "x=1\r\n"
		  "'quoted\r\n"
		  "\"\"\r\n");
	free(out);

	o.csv_raw = true;
	out = render(&xp_writer_csv, r, &o, &st);
	CHECK(st == 0);
	CHECK_STR(out,
		  "text\r\n"
		  "=SUM(A1:A9)\r\n"
		  "+1\r\n"
		  "-1\r\n"
		  "@cmd\r\n"
		  "\"\tx\"\r\n"
		  "\"\rx\"\r\n"
		  "plain\r\n"
		  "\"\"\r\n"
		  "caf\xc3\xa9\r\n"
		  "bad\xef\xbf\xbd\r\n"
		  "x=1\r\n"
		  "'quoted\r\n"
		  "\"\"\r\n");
	free(out);

	o.table = "nope";
	out = render_err(&xp_writer_csv, r, &o, &st, &err);
	CHECK(st == 2);
	CHECK_STR(out, "");
	CHECK_STR(err, "xpstat: no table nope in test output; tables: ops, notes\n");
	free(out);
	free(err);
	xp_result_free(r);

	r = xp_result_new("empty");
	o.table = NULL;
	out = render_err(&xp_writer_csv, r, &o, &st, &err);
	CHECK(st == 2);
	CHECK_STR(err, "xpstat: empty output has no table to write as CSV; it has no tables\n");
	free(out);
	free(err);
	xp_result_free(r);
}

/* --- JSON --- */

static struct xp_result *json_result(void)
{
	struct xp_result *r = xp_result_new("test");
	struct xp_table *t = xp_result_add_table(r, "rows", "Rows");
	size_t row;

	xp_sum_str(r, "host", "Host", "bad\xff\xfe" "end");
	xp_sum_int(r, "big", "Big", INT64_MAX);
	xp_sum_dur(r, "span_ms", "Span", 1500000001, XP_U_MS);
	xp_sum_pct(r, "input_pct", "Input", 41.25);
	xp_sum_f64(r, "nan", "NaN", NAN);
	xp_sum_bool(r, "grouped", "Grouped", true);
	xp_sum_bytes(r, "size_bytes", "Size", 1024);
	xp_sum_str(r, "none", "None", NULL);

	xp_table_col(t, "id", "ID", XP_T_ID, XP_U_NONE, 0);
	xp_table_col(t, "name", "Name", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN);
	xp_table_col(t, "time_us", "Time", XP_T_DUR, XP_U_US, 0);
	xp_table_col(t, "n", "N", XP_T_UINT, XP_U_NONE, 0);
	xp_table_col(t, "f", "F", XP_T_FRAC, XP_U_NONE, 0);
	row = xp_table_row(t);
	xp_set_id(t, row, 0, INT64_MAX);
	xp_set_str(t, row, 1, "q\"\\\x01\n\x1b");
	xp_set_dur(t, row, 2, 1);
	xp_set_uint(t, row, 3, UINT64_MAX);
	xp_set_frac(t, row, 4, 0.1);
	xp_table_row(t);

	xp_result_add_table(r, "empty", "Empty");
	xp_result_diag(r, XP_SEV_WARNING, "no_step_markers", NULL, "pass --step-marker REGEX",
		       "no step markers in %d hosts", 2);
	xp_result_diag(r, XP_SEV_INFO, "dropped", "h1", NULL, "dropped %d events", 0);
	return r;
}

static void test_json(void)
{
	struct xp_result *r = json_result();
	cJSON *doc, *host;
	char *out;
	int st;

	out = render(&xp_writer_json, r, NULL, &st);
	CHECK(st == 0);
	CHECK_STR(out,
		  "{\n"
		  "\t\"schema_version\":\t2,\n"
		  "\t\"command\":\t\"test\",\n"
		  "\t\"summary\":\t{\n"
		  "\t\t\"host\":\t\"bad\xef\xbf\xbd\xef\xbf\xbd" "end\",\n"
		  "\t\t\"big\":\t9223372036854775807,\n"
		  "\t\t\"span_ms\":\t1.500000001,\n"
		  "\t\t\"input_pct\":\t41.25,\n"
		  "\t\t\"nan\":\tnull,\n"
		  "\t\t\"grouped\":\ttrue,\n"
		  "\t\t\"size_bytes\":\t1024,\n"
		  "\t\t\"none\":\tnull\n"
		  "\t},\n"
		  "\t\"tables\":\t{\n"
		  "\t\t\"rows\":\t[{\n"
		  "\t\t\t\t\"id\":\t\"9223372036854775807\",\n"
		  "\t\t\t\t\"name\":\t\"q\\\"\\\\\\u0001\\n\\u001b\",\n"
		  "\t\t\t\t\"time_us\":\t0.000001,\n"
		  "\t\t\t\t\"n\":\t18446744073709551615,\n"
		  "\t\t\t\t\"f\":\t0.1\n"
		  "\t\t\t}, {\n"
		  "\t\t\t\t\"id\":\tnull,\n"
		  "\t\t\t\t\"name\":\tnull,\n"
		  "\t\t\t\t\"time_us\":\tnull,\n"
		  "\t\t\t\t\"n\":\tnull,\n"
		  "\t\t\t\t\"f\":\tnull\n"
		  "\t\t\t}],\n"
		  "\t\t\"empty\":\t[]\n"
		  "\t},\n"
		  "\t\"diagnostics\":\t[{\n"
		  "\t\t\t\"severity\":\t\"warning\",\n"
		  "\t\t\t\"code\":\t\"no_step_markers\",\n"
		  "\t\t\t\"message\":\t\"no step markers in 2 hosts\",\n"
		  "\t\t\t\"hint\":\t\"pass --step-marker REGEX\",\n"
		  "\t\t\t\"host\":\tnull\n"
		  "\t\t}, {\n"
		  "\t\t\t\"severity\":\t\"info\",\n"
		  "\t\t\t\"code\":\t\"dropped\",\n"
		  "\t\t\t\"message\":\t\"dropped 0 events\",\n"
		  "\t\t\t\"hint\":\tnull,\n"
		  "\t\t\t\"host\":\t\"h1\"\n"
		  "\t\t}]\n"
		  "}\n");
	/* The document parses back, is valid UTF-8 and holds what went in. */
	CHECK(valid_utf8(out));
	doc = cJSON_Parse(out);
	CHECK(doc != NULL);
	host = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "host");
	CHECK(cJSON_IsString(host) && strcmp(host->valuestring, "bad\xef\xbf\xbd\xef\xbf\xbd" "end") == 0);
	CHECK(!cJSON_GetObjectItemCaseSensitive(doc, "verdict"));
	cJSON_Delete(doc);
	free(out);

	xp_result_set_verdict(r, "Input bound: %.1f%%", 41.25);
	out = render(&xp_writer_json, r, NULL, &st);
	CHECK(strstr(out, "\t\"command\":\t\"test\",\n\t\"verdict\":\t\"Input bound: 41.2%\",\n\t\"summary\"") != NULL);
	free(out);
	xp_result_free(r);
}

/* --- rows made on demand --- */

struct made_rows {
	int fills;
	bool released;
};

/* Row i: a name made in the row's text, a duration, a pooled-free text from the source, a null. */
static void fill_made(void *src, size_t row, struct xp_cell *cells, char *text, size_t text_size)
{
	struct made_rows *m = src;
	m->fills++;
	snprintf(text, text_size, "row %zu", row);
	xp_cell_text(&cells[0], text);
	cells[1].type = XP_T_DUR;
	cells[1].v.i = (int64_t)row * 1500000;
	xp_cell_text(&cells[2], row % 2 ? "odd" : "even");
}

static void release_made(void *src)
{
	((struct made_rows *)src)->released = true;
}

static void made_columns(struct xp_table *t)
{
	xp_table_col(t, "name", "Name", XP_T_STR, XP_U_NONE, 0);
	xp_table_col(t, "time_us", "Time", XP_T_DUR, XP_U_US, 0);
	xp_table_col(t, "parity", "Parity", XP_T_STR, XP_U_NONE, 0);
	xp_table_col(t, "none", "None", XP_T_INT, XP_U_NONE, 0);
}

/* A table whose rows a source makes when read writes the bytes of the same rows held as cells, in every format. */
static void test_rows_on_demand(void)
{
	struct xp_result *held = xp_result_new("test"), *made = xp_result_new("test");
	struct xp_table *h = xp_result_add_table(held, "rows", "Rows"), *m = xp_result_add_table(made, "rows", "Rows");
	struct made_rows src = {0};
	char name[32];
	made_columns(h);
	made_columns(m);
	for (size_t i = 0; i < 5; i++) {
		size_t row = xp_table_row(h);
		snprintf(name, sizeof name, "row %zu", i);
		xp_set_str(h, row, 0, name);
		xp_set_dur(h, row, 1, (int64_t)i * 1500000);
		xp_set_str(h, row, 2, i % 2 ? "odd" : "even");
	}
	xp_table_rows_from(m, 5, fill_made, &src, release_made);
	CHECK(m->n_rows == 5 && src.fills == 0);
	const struct xp_writer *writers[] = {&xp_writer_text, &xp_writer_csv, &xp_writer_json};
	for (size_t w = 0; w < 3; w++) {
		int st1, st2;
		char *a = render(writers[w], held, NULL, &st1), *b = render(writers[w], made, NULL, &st2);
		CHECK(st1 == 0 && st2 == 0);
		CHECK_STR(b, a);
		free(a);
		free(b);
	}
	/* Two rows read in turn stay valid together (a comparison); a third replaces the older. */
	int before = src.fills;
	const struct xp_cell *r1 = xp_table_cell(m, 1, 0), *r3 = xp_table_cell(m, 3, 0);
	CHECK(!strcmp(r1->v.s, "row 1") && !strcmp(r3->v.s, "row 3"));
	CHECK(xp_table_cell(m, 1, 2) == &r1[2] && src.fills == before + 2);
	CHECK(!strcmp(xp_table_cell(m, 4, 0)->v.s, "row 4") && !strcmp(xp_table_cell(m, 3, 0)->v.s, "row 3"));
	CHECK(src.fills == before + 3);
	xp_result_free(held);
	xp_result_free(made);
	CHECK(src.released);
}

/* --- text --- */

static void test_text_units(void)
{
	static const int64_t durs[] = {
		0, 999, -999, 1000, 999999, 12345678000, 456000000, 1200000000000, -1500000,
		4210000000000000, 9995000, 99950000,
	};
	static const int64_t sizes[] = {
		0, 512, 1023, 1024, 1536, 1048575, 524288, 4294967296, 107374182400, -2048,
		INT64_MAX,
	};
	struct xp_result *r = xp_result_new("units");
	struct xp_table *t = xp_result_add_table(r, "u", "Units");
	size_t i, row;
	char *out;

	xp_table_col(t, "d", "dur", XP_T_DUR, XP_U_US, 0);
	xp_table_col(t, "b", "bytes", XP_T_BYTES, XP_U_NONE, 0);
	xp_table_col(t, "p", "pct", XP_T_PCT, XP_U_NONE, 0);
	xp_table_col(t, "f", "frac", XP_T_FRAC, XP_U_NONE, 0);
	xp_table_col(t, "x", "f64", XP_T_F64, XP_U_NONE, 0);
	for (i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		row = xp_table_row(t);
		xp_set_dur(t, row, 0, durs[i]);
		if (i < sizeof(sizes) / sizeof(sizes[0]))
			xp_set_bytes(t, row, 1, sizes[i]);
	}
	xp_set_pct(t, 0, 2, 41.249);
	xp_set_pct(t, 1, 2, -0.01);
	xp_set_pct(t, 2, 2, NAN);
	xp_set_frac(t, 0, 3, 0.412);
	xp_set_frac(t, 1, 3, 1);
	xp_set_f64(t, 0, 4, 0.5);
	xp_set_f64(t, 1, 4, 123456.7);
	xp_set_f64(t, 2, 4, 1.23456e-5);
	xp_set_f64(t, 3, 4, -INFINITY);
	xp_set_f64(t, 4, 4, 2.0 / 3);
	xp_set_f64(t, 5, 4, 1e300);

	out = render(&xp_writer_text, r, NULL, NULL);
	CHECK_STR(out,
		  "Units\n"
		  "       dur     bytes    pct    frac       f64\n"
		  "       0 s       0 B  41.2%   41.2%       0.5\n"
		  "    999 ps     512 B   0.0%  100.0%    123457\n"
		  "   -999 ps    1023 B      -       -  1.23e-05\n"
		  "   1.00 ns   1.0 KiB      -       -      -inf\n"
		  "   1.00 us   1.5 KiB      -       -     0.667\n"
		  "   12.3 ms   1.0 MiB      -       -    1e+300\n"
		  "    456 us   512 KiB      -       -         -\n"
		  "    1.20 s   4.0 GiB      -       -         -\n"
		  "  -1.50 us   100 GiB      -       -         -\n"
		  "    4210 s  -2.0 KiB      -       -         -\n"
		  "   10.0 us   8.0 EiB      -       -         -\n"
		  "    100 us         -      -       -         -\n");
	free(out);
	xp_result_free(r);
}

static void test_text(void)
{
	struct xp_result *r = xp_result_new("info");
	struct xp_table *t;
	struct xp_out_opts o = {0};
	size_t row;
	int i;
	char *out;

	xp_result_set_verdict(r, "Your program is \x1b[31mHIGHLY\x1b[0m input-bound");
	xp_sum_str(r, "host", "Host", "gpu-node\xff");
	xp_sum_dur(r, "step_time_ms", "Average step time", 12345678000, XP_U_MS);
	xp_sum_pct(r, "input_pct", "Input", 41.2);
	xp_sum_int(r, "events", "Events", 1234567);
	xp_sum_bool(r, "grouped", "Grouped", false);
	xp_sum_bytes(r, "size_bytes", "Size", 4294967296);

	t = xp_result_add_table(r, "ops", "Top ops");
	t->text_limit = 3;
	xp_table_col(t, "rank", "#", XP_T_INT, XP_U_NONE, 0);
	xp_table_col(t, "name", "Name", XP_T_STR, XP_U_NONE, 0);
	xp_table_col(t, "secret", "Secret", XP_T_STR, XP_U_NONE, XP_COL_TEXT_HIDDEN);
	xp_table_col(t, "self_time_us", "Self time", XP_T_DUR, XP_U_US, 0);
	xp_table_col(t, "kind", "Kind", XP_T_STR, XP_U_NONE, 0);
	for (i = 0; i < 5; i++) {
		row = xp_table_row(t);
		xp_set_int(t, row, 0, i + 1);
		xp_set_dur(t, row, 3, (int64_t)(5 - i) * 1000000000);
		xp_set_str(t, row, 2, "hidden");
	}
	xp_set_str(t, 0, 1, "MatMul");
	xp_set_str(t, 1, 1, "evil\x1b]0;pwned\x07\tname\r\n");
	xp_set_str(t, 2, 1, "\xe2\x80\xae" "cba \xe6\x97\xa5\xe6\x9c\xac");
	xp_set_str(t, 0, 4, "device");
	xp_set_str(t, 2, 4, "host");

	t = xp_result_add_table(r, "empty", "Nothing here");
	xp_table_col(t, "a", "A", XP_T_INT, XP_U_NONE, 0);
	t->text_note = strdup("(a note)");

	xp_result_diag(r, XP_SEV_WARNING, "no_step_markers", NULL, "pass --step-marker REGEX",
		       "no step markers");
	xp_result_diag(r, XP_SEV_ERROR, "bad", "host\x1b", NULL, "broken");

	out = render(&xp_writer_text, r, &o, NULL);
	CHECK_STR(out,
		  "Your program is \\x1b[31mHIGHLY\\x1b[0m input-bound\n"
		  "\n"
		  "Host:              gpu-node\\xff\n"
		  "Average step time: 12.3 ms\n"
		  "Input:             41.2%\n"
		  "Events:            1234567\n"
		  "Grouped:           no\n"
		  "Size:              4.0 GiB\n"
		  "\n"
		  "Top ops\n"
		  "  #  Name                            Self time  Kind\n"
		  "  1  MatMul                            5.00 ms  device\n"
		  "  2  evil\\x1b]0;pwned\\x07\\tname\\r\\n    4.00 ms  -\n"
		  "  3  \\u202ecba \xe6\x97\xa5\xe6\x9c\xac                    3.00 ms  host\n"
		  "  \xe2\x80\xa6 2 more rows (use --format csv or json for all)\n"
		  "\n"
		  "Nothing here\n"
		  "  (no rows)\n"
		  "  (a note)\n"
		  "\n"
		  "warning: no step markers\n"
		  "  hint: pass --step-marker REGEX\n"
		  "error: host\\x1b: broken\n");
	CHECK(!strchr(out, '\x1b'));
	free(out);

	/* text_rows overrides the table's limit; one more row is "row". */
	o.text_rows = 4;
	out = render(&xp_writer_text, r, &o, NULL);
	CHECK(strstr(out, "  3  \\u202ecba \xe6\x97\xa5\xe6\x9c\xac                    3.00 ms  host\n"
			  "  4  -                                 2.00 ms  -\n"
			  "  \xe2\x80\xa6 1 more row (use --format csv or json for all)\n") != NULL);
	free(out);

	/* Colour only on the verdict and the severity words. */
	o.color = true;
	o.text_rows = 0;
	out = render(&xp_writer_text, r, &o, NULL);
	CHECK(strncmp(out, "\x1b[1mYour program is \\x1b[31mHIGHLY\\x1b[0m input-bound\x1b[0m\n", 58) == 0);
	CHECK(strstr(out, "\x1b[1;33mwarning\x1b[0m: no step markers\n") != NULL);
	CHECK(strstr(out, "\x1b[1;31merror\x1b[0m: host\\x1b: broken\n") != NULL);
	free(out);
	xp_result_free(r);

	r = xp_result_new("nothing");
	out = render(&xp_writer_text, r, NULL, NULL);
	CHECK_STR(out, "");
	free(out);
	xp_result_free(r);
}

/* --- registry and atomic files --- */

static void test_registry(void)
{
	CHECK(xp_writer_find("text") == &xp_writer_text);
	CHECK(xp_writer_find("csv") == &xp_writer_csv);
	CHECK(xp_writer_find("json") == &xp_writer_json);
	CHECK(xp_writer_find("html") == &xp_writer_html);
	CHECK(xp_writer_find("markdown") == &xp_writer_markdown);
	CHECK(!xp_writer_find("xml"));
	CHECK(!xp_writer_find(NULL));
	/* Which commands take which format (--format's validation and help). */
	CHECK(xp_writer_takes(&xp_writer_text, "steps"));
	CHECK(xp_writer_takes(&xp_writer_junit, "check"));
	CHECK(!xp_writer_takes(&xp_writer_junit, "compare"));
	CHECK(xp_writer_takes(&xp_writer_html, "report"));
	CHECK(xp_writer_takes(&xp_writer_html, "compare"));
	CHECK(!xp_writer_takes(&xp_writer_html, "check"));
	CHECK(!xp_writer_takes(&xp_writer_html, "and"));
	CHECK(xp_writer_takes(&xp_writer_markdown, "check"));
	CHECK(!xp_writer_takes(&xp_writer_markdown, "steps"));
}

/* HTML and Markdown: every string is text, never markup; the HTML page asks for nothing. */
static void test_html_markdown_escape(void)
{
	struct xp_result *r = xp_result_new("compare");
	struct xp_table *t = xp_result_add_table(r, "ops", "Ops <b>");
	size_t c_n = xp_table_col(t, "op_name", "Op|name", XP_T_STR, XP_U_NONE, 0);
	size_t c_d = xp_table_col(t, "delta_us", "Delta", XP_T_DUR, XP_U_US, 0);
	size_t row = xp_table_row(t);
	char *out;

	xp_result_set_verdict(r, "%s", "<script>alert(1)</script>");
	xp_set_str(t, row, c_n, "\"><svg onload=alert(1)>|x*_y_\n");
	xp_set_dur(t, row, c_d, 1500000);
	out = render(&xp_writer_html, r, NULL, NULL);
	CHECK(strstr(out, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	CHECK(strstr(out, "&quot;&gt;&lt;svg onload=alert(1)&gt;") != NULL);
	CHECK(strstr(out, "<svg onload") == NULL);
	CHECK(strstr(out, "<script>alert") == NULL);
	CHECK(strstr(out, "://") == NULL);          /* no URL of any kind: nothing to fetch */
	CHECK(strstr(out, "Ops &lt;b&gt;") != NULL);
	CHECK(strstr(out, "data-chart=\"compare-ops\"") != NULL);
	free(out);
	out = render(&xp_writer_markdown, r, NULL, NULL);
	CHECK(strstr(out, "**&lt;script&gt;alert(1)&lt;/script&gt;**") != NULL);
	CHECK(strstr(out, "| Op\\|name | Delta |\n|---|---:|\n") != NULL);
	/* The newline is shown as text shows it ("\\n"), its backslash escaped. */
	CHECK(strstr(out, "\\|x\\*\\_y\\_\\\\n |") != NULL);
	CHECK(strstr(out, "| 1.50 us |") != NULL);
	free(out);
	xp_result_free(r);
}

/* Names in DIR joined by ',' (sorted, dot entries too, without "." and ".."). */
static void list_dir(const char *dir, char *buf, size_t bufsz)
{
	struct dirent **names;
	int n, i;

	buf[0] = '\0';
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *s = names[i]->d_name;

		if (strcmp(s, ".") != 0 && strcmp(s, "..") != 0) {
			if (buf[0])
				strncat(buf, ",", bufsz - strlen(buf) - 1);
			strncat(buf, s, bufsz - strlen(buf) - 1);
		}
		free(names[i]);
	}
	free(names);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_outfile(void)
{
	char dir[4096];
	char path[4200], missing[4300], names[512];
	struct xp_outfile of;
	struct stat st;
	mode_t mask = umask(022);

	umask(022);
	tmp_template(dir, sizeof dir, "xpstat-writers");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(99);
	}
	snprintf(path, sizeof(path), "%s/out.csv", dir);

	CHECK(xp_outfile_open(&of, path) == 0);
	fputs("a,b\r\n", of.f);
	list_dir(dir, names, sizeof(names));
	CHECK(strncmp(names, ".xpstat-", 8) == 0 && !strchr(names, ','));
	CHECK(stat(path, &st) != 0 && errno == ENOENT);   /* nothing at PATH before commit */
	CHECK(xp_outfile_commit(&of) == 0);
	CHECK(!of.f && !of.tmp && !of.path);
	list_dir(dir, names, sizeof(names));
	CHECK_STR(names, "out.csv");
	CHECK_STR(slurp(path), "a,b\r\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);

	/* An aborted run leaves the old file and no temporary file. */
	CHECK(xp_outfile_open(&of, path) == 0);
	fputs("partial", of.f);
	xp_outfile_abort(&of);
	xp_outfile_abort(&of);
	list_dir(dir, names, sizeof(names));
	CHECK_STR(names, "out.csv");
	CHECK_STR(slurp(path), "a,b\r\n");

	/* Commit replaces, and an existing file keeps its mode (a private report stays private). */
	CHECK(chmod(path, 0600) == 0);
	CHECK(xp_outfile_open(&of, path) == 0);
	fputs("new\n", of.f);
	CHECK(xp_outfile_commit(&of) == 0);
	CHECK_STR(slurp(path), "new\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);

	/* A new file honours the umask. */
	CHECK(unlink(path) == 0);
	umask(077);
	CHECK(xp_outfile_open(&of, path) == 0);
	fputs("new\n", of.f);
	CHECK(xp_outfile_commit(&of) == 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	umask(022);

	snprintf(missing, sizeof(missing), "%s/no/such/dir/x.json", dir);
	errno = 0;
	CHECK(xp_outfile_open(&of, missing) == -1 && errno == ENOENT);
	CHECK(!of.f && !of.tmp && !of.path);

	/* A commit that cannot rename (the target is a directory) removes its temporary file. */
	snprintf(missing, sizeof(missing), "%s/sub", dir);
	CHECK(mkdir(missing, 0755) == 0);
	strncat(missing, "/x", sizeof(missing) - strlen(missing) - 1);
	CHECK(mkdir(missing, 0755) == 0);
	CHECK(xp_outfile_open(&of, missing) == 0);
	fputs("x", of.f);
	CHECK(xp_outfile_commit(&of) == -1);
	snprintf(missing, sizeof(missing), "%s/sub", dir);
	list_dir(missing, names, sizeof(names));
	CHECK_STR(names, "x");
	snprintf(missing, sizeof(missing), "%s/sub/x", dir);
	rmdir(missing);
	snprintf(missing, sizeof(missing), "%s/sub", dir);
	rmdir(missing);

	unlink(path);
	rmdir(dir);
	umask(mask);
}

int main(void)
{
	test_result_building();
	test_dur_exact();
	test_f64();
	test_f64_fast_path();
	test_dec_text();
	test_utf8();
	test_csv();
	test_json();
	test_rows_on_demand();
	test_text_units();
	test_text();
	test_registry();
	test_html_markdown_escape();
	test_outfile();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	puts("all writer tests passed");
	return 0;
}
