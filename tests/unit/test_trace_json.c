/* test_trace_json.c - the trace JSON reader on small hand-written documents: exact times, phases, args, Kineto and TF mapping, bad input. */
#include "check.h"
#include "tests/tmpdir.h"
#include "formats/model/capture.h"
#include "formats/in/input.h"
#include "formats/in/trace_json.h"

#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

/* --- helpers ------------------------------------------------------------------- */

static struct xp_capture *read_doc(const char *doc, struct xp_err *err)
{
	struct xp_capture *c = xp_capture_new();
	memset(err, 0, sizeof *err);
	xp_read_trace_json_mem(c, "t.json", (const uint8_t *)doc, strlen(doc), NULL, err);
	return c;
}

/* Read a document that must be fine; NULL (and a failed check) otherwise. */
static struct xp_capture *read_ok(const char *doc)
{
	struct xp_err err;
	struct xp_capture *c = read_doc(doc, &err);
	if (!CHECK_INT(err.status, 0) || !CHECK_INT(c->n_hosts, 1)) {
		fprintf(stderr, "  error: %s (at %llu)\n", err.msg, (unsigned long long)err.offset);
		xp_capture_free(c);
		return NULL;
	}
	return c;
}

static const struct xp_plane *plane(const struct xp_capture *c, const char *name)
{
	const struct xp_host *h = &c->hosts[0];
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (!strcmp(xp_str(c, h->planes[i].name), name))
			return &h->planes[i];
	return NULL;
}

static const struct xp_line *line(const struct xp_capture *c, const struct xp_plane *p, const char *name)
{
	for (uint32_t i = 0; p && i < p->n_lines; i++)
		if (!strcmp(xp_str(c, p->lines[i].name), name))
			return &p->lines[i];
	return NULL;
}

static const char *ev_name(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i)
{
	return xp_str(c, xp_event_name(p, l, i));
}

static bool stat_of(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
		    const char *name, struct xp_value *v)
{
	return xp_event_find(c, p, l, i, xp_plane_stat_id(c, p, name), v);
}

static int64_t stat_int(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			const char *name)
{
	struct xp_value v;
	int64_t x = -999;
	if (!stat_of(c, p, l, i, name, &v) || !xp_value_int(&v, &x))
		return -999;
	return x;
}

static const char *stat_text(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l,
			     uint64_t i, const char *name, uint32_t *len)
{
	static char buf[64];
	struct xp_value v;
	if (!stat_of(c, p, l, i, name, &v)) {
		*len = 0;
		return NULL;
	}
	return xp_value_text(&v, buf, sizeof buf, len);
}

#define CHECK_STAT_STR(c, p, l, i, name, want)                                  \
	do {                                                                    \
		uint32_t len_;                                                  \
		const char *s_ = stat_text((c), (p), (l), (i), (name), &len_); \
		CHECK_SLICE(s_, len_, (want));                                  \
	} while (0)

/* --- exact time --------------------------------------------------------------- */

static int64_t ps(const char *s)
{
	__int128 v;
	if (!xp_json_us_to_ps(s, strlen(s), &v))
		return INT64_MIN;
	return (int64_t)v;
}

static void us_to_ps_exact(void)
{
	CHECK_INT(ps("2.752"), 2752000);
	CHECK_INT(ps("0"), 0);
	CHECK_INT(ps("-0"), 0);
	CHECK_INT(ps("1e3"), 1000000000);
	CHECK_INT(ps("1E-6"), 1);
	CHECK_INT(ps("1.5e+2"), 150000000);
	CHECK_INT(ps("-1.5"), -1500000);
	/* TF writes a zero duration as max(0, 1 ps) printed with %.17g */
	CHECK_INT(ps("9.9999999999999995e-07"), 1);
	CHECK_INT(ps("0.0000004"), 0);
	CHECK_INT(ps("0.0000005"), 1);  /* ties away from zero */
	CHECK_INT(ps("-0.0000005"), -1);
	CHECK_INT(ps("0.00000049999999999999999999"), 0);
	CHECK_INT(ps("123456.789012"), 123456789012);
	CHECK_INT(ps("0.000000000000000000001e21"), 1000000);
	CHECK_INT(ps("1e-99999999999"), 0);
	CHECK_INT(ps("0e99999999999"), 0);
	/* epoch-sized: beyond int64 picoseconds, exact in 128 bits */
	__int128 v;
	CHECK(xp_json_us_to_ps("1712195495505772.8", 18, &v));
	CHECK(v == (__int128)1712195495505772800ll * 1000 + 0);
	CHECK(xp_json_us_to_ps("1712195495505772.123456789", 26, &v));
	CHECK(v == (__int128)1712195495505772123ll * 1000 + 457);
	CHECK(xp_json_us_to_ps("9.99e26", 7, &v));
	CHECK(v == (__int128)999000000000000000ll * 1000000000000000ll);
	/* the 64-bit, 128-bit and exponent paths agree at their seams */
	CHECK_INT(ps("1.9999995"), 2000000);
	CHECK_INT(ps("1.99999949"), 1999999);
	CHECK_INT(ps("123456789012.345678"), 123456789012345678);
	CHECK_INT(ps("1234567890123.4567891"), 1234567890123456789);
	CHECK_INT(ps("123456789012.3456789e1"), 1234567890123456789);
	CHECK(xp_json_us_to_ps("123456789012345678901234.5", 26, &v));
	CHECK(v == (__int128)123456789012345678ll * 1000000000000ll + 901234500000ll);
	CHECK(xp_json_us_to_ps("1234567890123456789012345.5", 27, &v));
	CHECK(v == (__int128)1234567890123456789ll * 1000000000000ll + 12345500000ll);
	CHECK(xp_json_us_to_ps("12345678901234567890123456.25e-1", 32, &v));
	CHECK(v == (__int128)1234567890123456789ll * 1000000000000ll + 12345625000ll);
	static const char *const bad[] = {"", "-", "01", "1.", ".5", "+1", "1e", "1e+", "0x10", "1.2.3", "NaN",
					  "1 ", " 1", "--1", "1e1.5", "1e40", "1e27", "-1e27"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (!CHECK(!xp_json_us_to_ps(bad[i], strlen(bad[i]), &v)))
			fprintf(stderr, "  accepted \"%s\"\n", bad[i]);
}

/* The reader converts ts and dur while lexing them when they have the common
 * form, and through us_to_ps otherwise: both must give us_to_ps's value.
 * Random decimal texts (long and short whole parts, fractions past the
 * picosecond, exponents, signs, windows cutting the numbers) as dur, and as
 * ts against a first event at 0. */
static void times_while_lexing(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char doc[512], num[96];
	int checked = 0;
	/* whole parts that wrap 64 bits into the valid range */
	static const char *const fixed[] = {"18446744073709551616", "18446744073709551617.25", "36893488147419103232.5",
					    "-18446744073709551616", "1000000000000000000000.000001"};
	const int n_fixed = (int)(sizeof fixed / sizeof *fixed);
	for (int round = 0; round < 4000 + 2 * n_fixed; round++) {
		size_t n = 0;
		if (round >= 4000) {
			n = strlen(fixed[(round - 4000) / 2]);
			memcpy(num, fixed[(round - 4000) / 2], n + 1);
			goto read;
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t x = seed >> 11;
		int whole = 1 + (int)(x % 21), frac = (int)((x >> 5) % 24) - 4;
		bool neg = (x >> 10) % 7 == 0, expo = (x >> 13) % 9 == 0;
		if (neg)
			num[n++] = '-';
		for (int k = 0; k < whole; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			num[n++] = (char)('0' + (k == 0 && whole > 1 ? 1 + (seed >> 60) % 9 : (seed >> 59) % 10));
		}
		if (frac > 0) {
			num[n++] = '.';
			for (int k = 0; k < frac; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				/* mostly 4s, 5s and 9s: the rounding digit's neighbours */
				num[n++] = (char)("0123456789445599"[(seed >> 60) & 15]);
			}
		}
		if (expo)
			n += (size_t)snprintf(num + n, sizeof num - n, "e%d", (int)((x >> 17) % 9) - 4);
		num[n] = 0;
read:;
		__int128 want = 0;
		bool as_dur = round % 2, valid = xp_json_us_to_ps(num, n, &want);
		/* the reader's limits: dur within int64, |ts| below 9e21 ps */
		const __int128 ts_lim = (__int128)9000000000000000000ll * 1000;
		bool fails = !valid || (as_dur ? want > INT64_MAX || want < -INT64_MAX : want >= ts_lim || want <= -ts_lim);
		if (as_dur && want < 0)
			want = 0; /* a negative dur is counted and taken as 0 */
		bool comparable = !fails && want >= 0 && want < INT64_MAX;
		snprintf(doc, sizeof doc,
			 "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":%s,\"name\":\"a\"},"
			 "{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":%s,\"name\":\"b\"}]}",
			 as_dur ? num : "0", as_dur ? "0" : num);
		size_t windows[] = {0, 7, 31};
		for (size_t w = 0; w < 3; w++) {
			struct xp_capture *c = xp_capture_new();
			struct xp_err err = {0};
			struct xp_json_opts o = {.window = windows[w]};
			int rc = xp_read_trace_json_mem(c, "t.json", (const uint8_t *)doc, strlen(doc), &o, &err);
			if (!CHECK_INT(rc, fails ? -1 : 0) || !comparable) {
				if (rc != (fails ? -1 : 0))
					fprintf(stderr, "  %s as %s: %s\n", num, as_dur ? "dur" : "ts", rc ? err.msg : "accepted");
				checked += rc == (fails ? -1 : 0);
				xp_capture_free(c);
				continue;
			}
			const struct xp_line *l = &plane(c, "/host:CPU")->lines[0];
			uint64_t a = l->start_ps[0] == 0 && !strcmp(ev_name(c, plane(c, "/host:CPU"), l, 0), "a") ? 0 : 1;
			int64_t got = as_dur ? xp_dur(l, a) : l->start_ps[1 - a] - l->start_ps[a];
			if (!CHECK(got == (int64_t)want))
				fprintf(stderr, "  %s as %s: got %lld, want %lld\n", num, as_dur ? "dur" : "ts", (long long)got,
					(long long)want);
			checked++;
			xp_capture_free(c);
		}
	}
	CHECK(checked > 10000);
}

/* One event with args "n": number (its text) and key: "text"; their stats into *v, *w. */
static bool two_args(const char *number, const char *key, const char *text, struct xp_value *v, struct xp_value *w)
{
	char doc[256];
	snprintf(doc, sizeof doc,
		 "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"a\",\"args\":{\"n\":%s,\"%s\":\"%s\"}}]", number,
		 key, text);
	struct xp_capture *c = read_ok(doc);
	if (!c)
		return false;
	const struct xp_plane *p = plane(c, "/host:CPU");
	const struct xp_line *l = &p->lines[0];
	bool ok = stat_of(c, p, l, 0, "n", v) && stat_of(c, p, l, 0, key, w);
	xp_capture_free(c);
	return ok;
}

/* Integers of 1 to 21 digits, signed or not, as a number arg and as a string
 * arg of a stat TF writes as a string number (correlation_id): kept as int64,
 * else as uint64, else as a double (the number) or the text (the string). */
static void integers_of_any_length(void)
{
	uint64_t seed = 12345;
	char num[32];
	for (int round = 0; round < 3000; round++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		int digits = 1 + (int)((seed >> 33) % 21);
		bool neg = (seed >> 40) % 3 == 0;
		size_t n = 0;
		if (neg)
			num[n++] = '-';
		for (int k = 0; k < digits; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* mostly 9s and 1s, 0s near the int64 and uint64 limits */
			num[n++] = k == 0 ? (char)("1911289"[(seed >> 60) % 7]) : (char)("0123456789918"[(seed >> 59) % 13]);
		}
		num[n] = 0;
		unsigned __int128 mag = 0;
		for (int k = neg; k < (int)n; k++)
			mag = mag * 10 + (unsigned)(num[k] - '0');
		bool fits_i = neg ? mag <= (unsigned __int128)INT64_MAX + 1 : mag <= INT64_MAX;
		bool fits_u = !neg && mag <= UINT64_MAX;
		struct xp_value v, w;
		bool ok = two_args(num, "correlation_id", num, &v, &w);
		int64_t want_i = fits_i ? (neg ? (int64_t)(0 - (uint64_t)mag) : (int64_t)mag) : 0;
		if (fits_i)
			ok = ok && v.kind == XP_STAT_I64 && v.i == want_i && w.kind == XP_STAT_I64 && w.i == want_i;
		else if (fits_u)
			ok = ok && v.kind == XP_STAT_U64 && v.u == (uint64_t)mag && w.kind == XP_STAT_U64 && w.u == (uint64_t)mag;
		else
			ok = ok && v.kind == XP_STAT_F64 && v.d == strtod(num, NULL) && w.kind == XP_STAT_STR;
		if (!CHECK(ok))
			fprintf(stderr, "  %s: kinds %u %u\n", num, v.kind, w.kind);
	}
}

/* Decimals of 1 to 20 digits, with fractions, as a number arg and as a string
 * arg of a stat TF writes as a string number (theoretical_occupancy_pct):
 * the double strtod gives, to the bit. */
static void decimals_as_doubles(void)
{
	uint64_t seed = 777;
	char num[40];
	for (int round = 0; round < 3000; round++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		int whole = 1 + (int)((seed >> 33) % 10), frac = (int)((seed >> 40) % 12);
		size_t n = 0;
		if ((seed >> 50) % 4 == 0)
			num[n++] = '-';
		for (int k = 0; k < whole + frac; k++) {
			if (k == whole)
				num[n++] = '.';
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			num[n++] = (char)('0' + (k == 0 && whole > 1 ? 1 + (seed >> 60) % 9 : (seed >> 58) % 10));
		}
		num[n] = 0;
		double want = strtod(num, NULL);
		struct xp_value v, w;
		bool ok = two_args(frac ? num : "0.5", "theoretical_occupancy_pct", num, &v, &w) && v.kind == XP_STAT_F64 &&
			  w.kind == XP_STAT_F64 && !memcmp(&w.d, &want, sizeof want) && (!frac || !memcmp(&v.d, &want, sizeof want));
		if (!CHECK(ok))
			fprintf(stderr, "  %s: %.17g %.17g, want %.17g\n", num, v.d, w.d, want);
	}
}

static void epoch_times(void)
{
	struct xp_capture *c = read_ok(
		"{\"traceEvents\":[\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1712195495505773.125,\"dur\":2.752,\"name\":\"b\"},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1712195495505772.8,\"dur\":1e3,\"name\":\"a\"},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1712195495505772.8000005,\"name\":\"c\"},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1712195495505774,\"dur\":-3,\"name\":\"d\"}\n"
		"],\"displayTimeUnit\":\"ns\"}");
	if (!c)
		return;
	const struct xp_host *h = &c->hosts[0];
	CHECK_INT(h->base_ns, 1712195495505772800ll);
	CHECK_INT(h->format, XP_FMT_TRACE_JSON);
	const struct xp_plane *p = plane(c, "/host:CPU");
	REQUIRE(p && p->n_lines == 1);
	const struct xp_line *l = &p->lines[0];
	REQUIRE_INT(l->n_events, 4);
	/* sorted by start, then longer first */
	CHECK_STR(ev_name(c, p, l, 0), "a");
	CHECK_INT(l->start_ps[0], 0);
	CHECK_INT(xp_dur(l, 0), 1000000000);
	CHECK_STR(ev_name(c, p, l, 1), "c");
	CHECK_INT(l->start_ps[1], 1); /* 0.5 ps rounds up */
	CHECK_INT(xp_dur(l, 1), 0);   /* no dur */
	CHECK_STR(ev_name(c, p, l, 2), "b");
	CHECK_INT(l->start_ps[2], 325000);
	CHECK_INT(xp_dur(l, 2), 2752000);
	CHECK_STR(ev_name(c, p, l, 3), "d");
	CHECK_INT(l->start_ps[3], 1200000);
	CHECK_INT(xp_dur(l, 3), 0);
	CHECK_INT(h->odd.negative_durations, 1);
	CHECK_INT(h->json.complete, 4);
	CHECK_INT(h->json.entries, 4);
	CHECK_INT(l->id, 2);
	CHECK_STR(xp_str(c, l->name), "2");
	xp_capture_free(c);
}

/* --- phases ------------------------------------------------------------------- */

static void begin_end_pairs(void)
{
	struct xp_capture *c = read_ok(
		"[{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,\"name\":\"outer\",\"cat\":\"cpu_op\"},"
		"{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":12,\"name\":\"inner\"},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":15},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":21},"
		"{\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":30,\"name\":\"open\"},"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"main \"}}]");
	if (!c)
		return;
	const struct xp_plane *p = plane(c, "/host:CPU");
	const struct xp_line *l = line(c, p, "main");
	REQUIRE(l && l->n_events == 2);
	CHECK_STR(ev_name(c, p, l, 0), "outer");
	CHECK_INT(l->start_ps[0], 0);
	CHECK_INT(xp_dur(l, 0), 10000000);
	CHECK_STR(ev_name(c, p, l, 1), "inner");
	CHECK_INT(l->start_ps[1], 2000000);
	CHECK_INT(xp_dur(l, 1), 3000000);
	const struct xp_line *l3 = line(c, p, "3");
	REQUIRE(l3 && l3->n_events == 1);
	CHECK_INT(xp_dur(l3, 0), 0);
	const struct xp_json_counts *j = &c->hosts[0].json;
	CHECK_INT(j->begin, 3);
	CHECK_INT(j->end, 3);
	CHECK_INT(j->unmatched_begin, 1);
	CHECK_INT(j->unmatched_end, 1);
	CHECK_INT(j->metadata, 1);
	xp_capture_free(c);
}

static void instant_counter_flow_async(void)
{
	struct xp_capture *c = read_ok(
		"{\"traceEvents\":[{\"ph\":\"i\",\"pid\":5,\"tid\":6,\"ts\":1,\"name\":\"mark\",\"s\":\"t\"},"
		"{\"ph\":\"I\",\"pid\":5,\"tid\":6,\"ts\":2,\"name\":\"mark2\"},"
		"{\"ph\":\"C\",\"pid\":5,\"ts\":3,\"name\":\"mem\",\"args\":{\"used\":10,\"free\":2.5}},"
		"{\"ph\":\"s\",\"pid\":5,\"tid\":6,\"ts\":1,\"id\":1,\"name\":\"f\",\"cat\":\"ac2g\"},"
		"{\"ph\":\"f\",\"pid\":5,\"tid\":6,\"ts\":2,\"id\":1,\"name\":\"f\",\"cat\":\"ac2g\",\"bp\":\"e\"},"
		"{\"ph\":\"b\",\"pid\":5,\"tid\":7,\"ts\":4,\"id\":\"0x1\",\"cat\":\"io\",\"name\":\"read\"},"
		"{\"ph\":\"e\",\"pid\":5,\"tid\":8,\"ts\":9,\"id\":\"0x1\",\"cat\":\"io\",\"name\":\"read\"},"
		"{\"ph\":\"P\",\"pid\":5,\"tid\":6,\"ts\":2,\"name\":\"sample\"},"
		"{\"pid\":5,\"tid\":6,\"ts\":2,\"name\":\"no phase\"},"
		"{}]}");
	if (!c)
		return;
	const struct xp_plane *p = plane(c, "/host:CPU");
	const struct xp_line *l = line(c, p, "6");
	REQUIRE(l && l->n_events == 2);
	CHECK_INT(xp_dur(l, 0), 0);
	CHECK_INT(l->start_ps[1] - l->start_ps[0], 1000000);
	const struct xp_line *cl = line(c, p, "Counters");
	REQUIRE(cl && cl->n_events == 1);
	CHECK_STR(ev_name(c, p, cl, 0), "mem");
	CHECK_INT(stat_int(c, p, cl, 0, "used"), 10);
	struct xp_value v;
	CHECK(stat_of(c, p, cl, 0, "free", &v) && v.kind == XP_STAT_F64 && v.d == 2.5);
	const struct xp_line *al = line(c, p, "Async");
	REQUIRE(al && al->n_events == 1);
	CHECK_STR(ev_name(c, p, al, 0), "read");
	CHECK_INT(xp_dur(al, 0), 5000000);
	const struct xp_json_counts *j = &c->hosts[0].json;
	CHECK_INT(j->entries, 10);
	CHECK_INT(j->instant, 2);
	CHECK_INT(j->counter, 1);
	CHECK_INT(j->flow, 2);
	CHECK_INT(j->async, 2);
	CHECK_INT(j->other, 2);
	CHECK_INT(j->empty, 1);
	CHECK_INT(j->unmatched_end, 0);
	xp_capture_free(c);
}

/* --- args ---------------------------------------------------------------------- */

static void args_of_every_type(void)
{
	struct xp_capture *c = read_ok(
		"{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"e\",\"args\":{"
		"\"i\":-42,\"u\":18446744073709551615,\"big\":123456789012345678901234567890,\"f\":1.5,"
		"\"t\":true,\"no\":false,\"n\":null,\"s\":\"text\",\"esc\":\"a\\\"b\\\\c\\/d\\n\\u00e9\","
		"\"arr\":[1, 2 ,\"x y\"],\"obj\":{ \"a\" : [1, {\"b\": null}] },\"empty\":{},\"e\\u0078\":7}}]}");
	if (!c)
		return;
	const struct xp_plane *p = plane(c, "/host:CPU");
	REQUIRE(p && p->n_lines == 1);
	const struct xp_line *l = &p->lines[0];
	struct xp_value v;
	CHECK(stat_of(c, p, l, 0, "i", &v) && v.kind == XP_STAT_I64 && v.i == -42);
	CHECK(stat_of(c, p, l, 0, "u", &v) && v.kind == XP_STAT_U64 && v.u == UINT64_MAX);
	CHECK(stat_of(c, p, l, 0, "big", &v) && v.kind == XP_STAT_F64 && v.d == 1.2345678901234568e29);
	CHECK(stat_of(c, p, l, 0, "f", &v) && v.kind == XP_STAT_F64 && v.d == 1.5);
	CHECK(stat_of(c, p, l, 0, "t", &v) && v.kind == XP_STAT_I64 && v.i == 1);
	CHECK(stat_of(c, p, l, 0, "no", &v) && v.kind == XP_STAT_I64 && v.i == 0);
	CHECK(!stat_of(c, p, l, 0, "n", &v));
	CHECK_STAT_STR(c, p, l, 0, "s", "text");
	CHECK_STAT_STR(c, p, l, 0, "esc", "a\"b\\c/d\n\xc3\xa9");
	CHECK_STAT_STR(c, p, l, 0, "arr", "[1,2,\"x y\"]");
	CHECK_STAT_STR(c, p, l, 0, "obj", "{\"a\":[1,{\"b\":null}]}");
	CHECK_STAT_STR(c, p, l, 0, "empty", "{}");
	CHECK_INT(stat_int(c, p, l, 0, "ex"), 7);
	CHECK_INT(l->n_stats, 12);
	xp_capture_free(c);
}

static uint32_t smeta_named(const struct xp_capture *c, const struct xp_plane *p, const char *name)
{
	for (uint32_t s = 1; s < p->n_smeta; s++)
		if (!strcmp(xp_str(c, p->smeta[s].name), name))
			return s;
	return 0;
}

/* xp_json_opts.drop_stats: the named args (and synthesized stats) are not kept,
 * on one thread and through the lexer thread; their metadata stays, marked,
 * and every line's stat count is as in a full read. A number out of range
 * fails the read whether its stat is kept or not. */
static void drop_stats(void)
{
	static const char *const drop[] = {"kernel_name", "gone", "kernel_details", "huge", NULL};
	const char *doc =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"a\","
		"\"args\":{\"kernel_name\":\"k\",\"keep\":1,\"gone\":[1,{\"x\":2}]}},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"name\":\"b\","
		"\"args\":{\"gone\":2.5,\"keep\":\"x\"}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":4,\"dur\":2,\"name\":\"volta_sgemm\","
		"\"args\":{\"device\":0,\"grid\":[1,2,3],\"block\":[4,5,6],\"correlation\":9}}]}";
	struct xp_err err = {0};
	struct xp_capture *full = xp_capture_new();
	REQUIRE(xp_read_trace_json_mem(full, "full", (const uint8_t *)doc, strlen(doc), NULL, &err) == 0);
	for (int threads = 1; threads <= 3; threads += 2) {
		struct xp_capture *c = xp_capture_new();
		struct xp_json_opts o = {.threads = threads, .window = threads > 1 ? 16 : 0, .drop_stats = drop};
		REQUIRE(xp_read_trace_json_mem(c, "dropped", (const uint8_t *)doc, strlen(doc), &o, &err) == 0);
		REQUIRE_INT(c->hosts[0].n_planes, full->hosts[0].n_planes);
		for (uint32_t k = 0; k < c->hosts[0].n_planes; k++) {
			const struct xp_plane *p = &c->hosts[0].planes[k], *fp = &full->hosts[0].planes[k];
			CHECK_INT(p->n_smeta, fp->n_smeta);
			REQUIRE_INT(p->n_lines, fp->n_lines);
			for (uint32_t i = 0; i < p->n_lines; i++) {
				const struct xp_line *l = &p->lines[i];
				CHECK_INT(l->n_stats, fp->lines[i].n_stats);
				for (uint64_t e = 0; e < l->n_events; e++) {
					struct xp_stat_view v = xp_event_stats(l, e);
					for (uint32_t s = 0; s < v.n; s++)
						CHECK(!p->smeta[xp_stat_meta(v.keys[s])].dropped);
				}
			}
		}
		const struct xp_plane *host = plane(c, "/host:CPU"), *gpu = plane(c, "/device:GPU:0");
		REQUIRE(host && gpu);
		uint32_t kn = smeta_named(c, host, "kernel_name"), gone = smeta_named(c, host, "gone");
		CHECK(kn && host->smeta[kn].dropped && gone && host->smeta[gone].dropped);
		CHECK(!host->smeta[smeta_named(c, host, "keep")].dropped);
		uint32_t kd = smeta_named(c, gpu, "kernel_details");
		CHECK(kd && gpu->smeta[kd].dropped);
		CHECK_INT(stat_int(c, host, line(c, host, "1"), 0, "keep"), 1);
		CHECK_STAT_STR(c, host, line(c, host, "2"), 0, "keep", "x");
		CHECK_INT(stat_int(c, gpu, &gpu->lines[0], 0, "correlation_id"), 9);
		xp_capture_free(c);
	}
	xp_capture_free(full);
	/* out of range: an error, dropped or not */
	const char *bad = "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"huge\":1e999}}]";
	for (int d = 0; d < 2; d++) {
		struct xp_capture *c = xp_capture_new();
		struct xp_json_opts o = {.drop_stats = d ? drop : NULL};
		CHECK_INT(xp_read_trace_json_mem(c, "bad", (const uint8_t *)bad, strlen(bad), &o, &err), -1);
		CHECK_INT(err.status, XP_EXIT_BAD_INPUT);
		xp_capture_free(c);
	}
}

/* A lone surrogate counts as invalid UTF-8 where the text is kept (a name, an args key), not in
 * keys that are only matched (an event's, the document's): the same count on one thread and
 * with the lexer on a thread of its own. */
static void lone_surrogates_counted_where_kept(void)
{
	const char *doc = "{\"x\\ud800\":1,\"traceEvents\":[{\"ph\":\"X\",\"p\\udc00h\":0,\"pid\":1,\"tid\":1,\"ts\":0,"
			  "\"name\":\"a\\ud800b\",\"args\":{\"k\\udc00\":1}}]}";
	for (int threads = 1; threads <= 2; threads++) {
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		struct xp_json_opts o = {.threads = threads};
		if (CHECK_INT(xp_read_trace_json_mem(c, "t.json", (const uint8_t *)doc, strlen(doc), &o, &err), 0))
			CHECK_INT(c->hosts[0].odd.invalid_utf8, 2);
		xp_capture_free(c);
	}
}

static void long_strings_and_windows(void)
{
	/* An arg longer than the intern limit goes to the blob; one longer than the
	 * reader's window makes it grow; through a gzip file both ways. */
	size_t big = (size_t)9 << 20;
	char *doc = malloc(big + 512);
	REQUIRE(doc);
	int n = sprintf(doc, "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"e\","
			     "\"args\":{\"long\":\"");
	memset(doc + n, 'x', big);
	n += (int)big;
	n += sprintf(doc + n, "\",\"short\":\"%s\"}},{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":5,\"name\":\"f\"}]}",
		     "abc");
	char tmpl[4096];
	tmp_template(tmpl, sizeof tmpl, "xpstat-tj");
	int fd = mkstemp(tmpl);
	REQUIRE(fd >= 0);
	close(fd);
	gzFile gz = gzopen(tmpl, "wb1");
	REQUIRE(gz);
	gzwrite(gz, doc, (unsigned)n);
	gzclose(gz);
	for (int threads = 0; threads < 3; threads++) {
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		struct xp_json_opts o = {0, threads};
		int rc = threads ? xp_read_trace_json_file(c, tmpl, &o, &err)
				 : xp_read_trace_json_mem(c, "mem", (const uint8_t *)doc, (size_t)n, &o, &err);
		if (CHECK_INT(rc, 0) && CHECK_INT(c->n_hosts, 1)) {
			const struct xp_plane *p = plane(c, "/host:CPU");
			const struct xp_line *l = p ? &p->lines[0] : NULL;
			if (CHECK(l && l->n_events == 2)) {
				struct xp_value v;
				CHECK(stat_of(c, p, l, 0, "long", &v) && v.kind == XP_STAT_BLOBSTR && v.len == big &&
				      v.s[0] == 'x' && v.s[big - 1] == 'x');
				CHECK_STAT_STR(c, p, l, 0, "short", "abc");
				CHECK_INT(l->start_ps[1], 5000000);
			}
			CHECK_INT(c->hosts[0].decoded_bytes, n);
			CHECK_INT(c->hosts[0].compression, threads ? XP_COMP_GZIP : XP_COMP_NONE);
		} else {
			fprintf(stderr, "  threads %d: %s\n", threads, err.msg);
		}
		xp_capture_free(c);
	}
	/* the gzip file cut short: the decompressor's error, with its offset in the compressed bytes */
	FILE *f = fopen(tmpl, "rb");
	if (CHECK(f != NULL)) {
		static uint8_t gzbuf[1 << 16];
		size_t got = fread(gzbuf, 1, sizeof gzbuf, f);
		fclose(f);
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		CHECK_INT(xp_read_trace_json_mem(c, "cut.json.gz", gzbuf, got / 2, NULL, &err), -1);
		CHECK_INT(err.status, XP_EXIT_BAD_INPUT);
		CHECK(strstr(err.msg, "truncated gzip stream") != NULL);
		CHECK(err.has_offset && err.offset == got / 2);
		CHECK_INT(c->n_hosts, 0);
		xp_capture_free(c);
	}
	unlink(tmpl);
	free(doc);
}

static void unicode_escapes(void)
{
	struct xp_capture *c = read_ok(
		"[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"caf\\u00e9 \\ud83d\\ude00 \\u4e2d\"},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"name\":\"lone \\ud800 x\"},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"name\":\"raw caf\xc3\xa9 \xf0\x9f\x98\x80\"},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":3,\"name\":\"nul \\u0000 x\"}]");
	if (!c)
		return;
	const struct xp_plane *p = plane(c, "/host:CPU");
	const struct xp_line *l = &p->lines[0];
	REQUIRE_INT(l->n_events, 4);
	CHECK_STR(ev_name(c, p, l, 0), "caf\xc3\xa9 \xf0\x9f\x98\x80 \xe4\xb8\xad");
	CHECK_STR(ev_name(c, p, l, 1), "lone \xef\xbf\xbd x");
	CHECK_STR(ev_name(c, p, l, 2), "raw caf\xc3\xa9 \xf0\x9f\x98\x80");
	/* NUL is kept written out, as text output writes controls: never a name cut at it */
	CHECK_STR(ev_name(c, p, l, 3), "nul \\x00 x");
	CHECK_INT(c->hosts[0].odd.invalid_utf8, 1);
	xp_capture_free(c);
}

static void bare_array_and_empty(void)
{
	struct xp_capture *c = read_ok(" \n[ ]\n ");
	if (c) {
		CHECK_INT(c->hosts[0].n_planes, 1); /* an empty /host:CPU */
		CHECK_INT(c->hosts[0].json.entries, 0);
		xp_capture_free(c);
	}
	c = read_ok("\xef\xbb\xbf{\"traceEvents\":[{}],\"otherData\":{\"x\":[1,2,{}]},\"z\":null}");
	if (c) {
		CHECK_INT(c->hosts[0].json.empty, 1);
		xp_capture_free(c);
	}
}

/* --- Kineto and TF mapping ---------------------------------------------------------- */

static const char kineto_doc[] =
	"{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"totalGlobalMem\":"
	"85018279936,\"computeMajor\":9,\"computeMinor\":0,\"numSms\":132}],\"distributedInfo\":{\"rank\":3,"
	"\"world_size\":8},\"traceEvents\":[\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":100,\"pid\":4242,\"tid\":0,\"args\":{\"name\":\"python3\"}},\n"
	"{\"name\":\"process_labels\",\"ph\":\"M\",\"ts\":100,\"pid\":4242,\"tid\":0,\"args\":{\"labels\":\"CPU\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":100,\"pid\":0,\"tid\":0,\"args\":{\"name\":\"python3\"}},\n"
	"{\"name\":\"process_labels\",\"ph\":\"M\",\"ts\":100,\"pid\":0,\"tid\":0,\"args\":{\"labels\":\"GPU 0\"}},\n"
	"{\"name\":\"process_labels\",\"ph\":\"M\",\"ts\":100,\"pid\":1,\"tid\":0,\"args\":{\"labels\":\"GPU 1\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":100,\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":4242,\"tid\":4242,\"ts\":100,"
	"\"dur\":50,\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":4242,\"tid\":4242,\"ts\":101,\"dur\":10,"
	"\"args\":{\"External id\":2,\"Input Dims\":[[2, 3], [3, 4]]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":4242,\"tid\":4242,\"ts\":102,"
	"\"dur\":3,\"args\":{\"cbid\":211,\"correlation\":77}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm_128x64\",\"pid\":0,\"tid\":7,\"ts\":110,\"dur\":4.5,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":77,\"registers per thread\":128,\"shared memory\":"
	"16384,\"blocks per SM\":1.5,\"grid\":[16, 2, 1],\"block\":[256, 1, 1],\"est. achieved occupancy %\":25}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,"
	"\"ts\":105,\"dur\":2,\"args\":{\"device\":0,\"correlation\":78,\"bytes\":1024}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,"
	"\"ts\":104,\"dur\":1,\"args\":{\"device\":0,\"correlation\":79,\"bytes\":64}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":0,\"tid\":7,\"ts\":104,"
	"\"dur\":20},\n"
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":4242,\"tid\":4242,"
	"\"ts\":103,\"args\":{\"Total Reserved\":2097152,\"Total Allocated\":1024,\"Bytes\":1024,"
	"\"Addr\":139637976727552,\"Device Id\":0,\"Device Type\":1}},\n"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":4242,\"tid\":\"4242\",\"ts\":140,"
	"\"args\":{\"Bytes\":-16,\"Device Id\":-1,\"Device Type\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"train.py(1): <module>\",\"pid\":0,\"tid\":0,"
	"\"ts\":99,\"dur\":60},\n"
	"{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\","
	"\"ts\":99,\"dur\":70},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tiny\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":0,"
	"\"args\":{\"device\":0,\"correlation\":80}}\n"
	"]}";

static void kineto_mapping(void)
{
	struct xp_capture *c = read_ok(kineto_doc);
	if (!c)
		return;
	const struct xp_host *h = &c->hosts[0];
	CHECK_INT(h->n_planes, 3); /* /host:CPU, /device:GPU:0 (GPU 1 has no events, no properties), /host:Spans */
	const struct xp_plane *host = plane(c, "/host:CPU"), *gpu = plane(c, "/device:GPU:0");
	REQUIRE(host && gpu);
	CHECK(plane(c, "/device:GPU:1") == NULL);
	CHECK(plane(c, "/host:Spans") != NULL);
	CHECK_INT(gpu->kind, XP_PLANE_GPU);
	CHECK_INT(gpu->device_ordinal, 0);
	CHECK_INT(host->id, 4242);
	/* host thread 4242 (int and "4242" are one thread), and the python tracer line of pid 0 */
	const struct xp_line *main = line(c, host, "4242");
	REQUIRE(main && main->n_events == 5);
	CHECK_STR(ev_name(c, host, main, 0), "ProfilerStep#3");
	CHECK_INT(stat_int(c, host, main, 0, "_r"), 1);
	CHECK_INT(stat_int(c, host, main, 0, "step_num"), 3);
	CHECK_INT(stat_int(c, host, main, 0, "External id"), 1);
	CHECK_STR(ev_name(c, host, main, 1), "aten::mm");
	CHECK_STAT_STR(c, host, main, 1, "Input Dims", "[[2,3],[3,4]]");
	CHECK_STR(ev_name(c, host, main, 2), "cudaLaunchKernel");
	CHECK_INT(stat_int(c, host, main, 2, "correlation_id"), 77);
	CHECK_STR(ev_name(c, host, main, 3), "MemoryAllocation");
	CHECK_STAT_STR(c, host, main, 3, "allocator_name", "GPU_0");
	CHECK_INT(stat_int(c, host, main, 3, "bytes_allocated"), 1024);
	/* Total Reserved holds the allocated memory: its own stat, never TensorFlow's stack reservation */
	CHECK_INT(stat_int(c, host, main, 3, "total_reserved"), 2097152);
	CHECK_INT(stat_int(c, host, main, 3, "bytes_reserved"), -999);
	CHECK_INT(stat_int(c, host, main, 3, "requested_bytes"), 1024);
	CHECK_INT(stat_int(c, host, main, 3, "allocation_bytes"), 1024);
	CHECK_INT(stat_int(c, host, main, 3, "addr"), 139637976727552);
	CHECK_STR(ev_name(c, host, main, 4), "MemoryDeallocation");
	CHECK_STAT_STR(c, host, main, 4, "allocator_name", "CPU");
	CHECK_INT(stat_int(c, host, main, 4, "requested_bytes"), 16);
	const struct xp_line *py = line(c, host, "0");
	CHECK(py && py->n_events == 1);
	/* the device: a stream line, and the annotations on a derived line */
	const struct xp_line *s7 = line(c, gpu, "stream 7");
	REQUIRE(s7 && s7->n_events == 4);
	CHECK_INT(s7->id, 7);
	CHECK_STR(ev_name(c, gpu, s7, 0), "Memset");
	CHECK_STAT_STR(c, gpu, s7, 0, "Memset_details", "kind:device num_bytes:64");
	CHECK_STR(ev_name(c, gpu, s7, 1), "MemcpyH2D");
	CHECK_STR(xp_str(c, gpu->emeta[xp_meta_of(s7, 1)].display_name), "Memcpy HtoD (Pageable -> Device)");
	CHECK_STAT_STR(c, gpu, s7, 1, "memcpy_details", "kind_src:pageable kind_dst:device size:1024");
	CHECK_INT(stat_int(c, gpu, s7, 1, "correlation_id"), 78);
	CHECK_STR(ev_name(c, gpu, s7, 2), "sgemm_128x64");
	CHECK_INT(xp_dur(s7, 2), 4500000);
	CHECK_STAT_STR(c, gpu, s7, 2, "kernel_details",
		       "regs:128 static_shared:16384 dynamic_shared:0 grid:16,2,1 block:256,1,1 occ_pct:25");
	CHECK_INT(stat_int(c, gpu, s7, 2, "correlation_id"), 77);
	CHECK_STAT_STR(c, gpu, s7, 3, "kernel_details", "device:0");
	const struct xp_line *an = line(c, gpu, "GPU user annotations");
	REQUIRE(an && an->n_events == 1);
	CHECK(an->derived);
	CHECK_INT(stat_int(c, gpu, an, 0, "_r"), -999);
	/* device properties as plane stats */
	struct xp_value v;
	int64_t x;
	CHECK(xp_view_find(c, xp_plane_stats(gpu), xp_plane_stat_id(c, gpu, "core_count"), &v) &&
	      xp_value_int(&v, &x) && x == 132);
	CHECK(xp_view_find(c, xp_plane_stats(gpu), xp_plane_stat_id(c, gpu, "memory_size"), &v) &&
	      xp_value_int(&v, &x) && x == 85018279936);
	CHECK(xp_view_find(c, xp_plane_stats(gpu), xp_plane_stat_id(c, gpu, "compute_cap_major"), &v) &&
	      xp_value_int(&v, &x) && x == 9);
	CHECK(xp_view_find(c, xp_plane_stats(gpu), xp_plane_stat_id(c, gpu, "device_vendor"), &v) &&
	      v.len == 6 && !memcmp(v.s, "Nvidia", 6));
	CHECK(xp_view_find(c, xp_plane_stats(host), xp_plane_stat_id(c, host, "rank"), &v) &&
	      xp_value_int(&v, &x) && x == 3);
	CHECK_INT(h->json.zero_dur_kernels, 1);
	CHECK(!h->pre_grouped);
	CHECK_INT(h->base_ns, 99000);
	xp_capture_free(c);
}

static void tf_mapping(void)
{
	struct xp_capture *c = read_ok(
		"{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":["
		"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}},"
		"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":1}},"
		"{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:1\"}},"
		"{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
		"{\"ph\":\"M\",\"pid\":701,\"tid\":12,\"name\":\"thread_name\",\"args\":{\"name\":\"tf_Compute\"}},"
		"{\"ph\":\"M\",\"pid\":701,\"tid\":12,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":2}},"
		"{\"ph\":\"M\",\"pid\":701,\"tid\":9,\"name\":\"thread_name\",\"args\":{\"name\":\"python\"}},"
		"{\"ph\":\"M\",\"pid\":701,\"tid\":9,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":1}},"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #3(Compute)\"}},"
		"{\"ph\":\"X\",\"pid\":701,\"tid\":12,\"ts\":1.5,\"dur\":2,\"name\":\"MatMul\",\"args\":{"
		"\"correlation_id\":\"12345\",\"group_id\":\"4\",\"long_name\":\"dense/MatMul:MatMul\"}},"
		"{\"ph\":\"X\",\"pid\":701,\"tid\":9,\"ts\":1,\"dur\":9,\"name\":\"train 4\",\"args\":{"
		"\"step_num\":\"4\",\"group_id\":\"4\",\"step_name\":\"train 4\"}},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":2,\"dur\":9.9999999999999995e-07,\"name\":\"volta_sgemm\","
		"\"args\":{\"correlation_id\":\"12345\",\"kernel_details\":\"regs:32 static_shared:0 dynamic_shared:0 "
		"grid:1,1,1 block:32,1,1 occ_pct:50\",\"theoretical_occupancy_pct\":\"50.5\",\"tf_op\":\"dense/MatMul:MatMul\","
		"\"context_id\":\"$$1\"}},{}]}");
	if (!c)
		return;
	const struct xp_host *h = &c->hosts[0];
	CHECK(h->pre_grouped);
	CHECK_INT(h->n_planes, 3);
	CHECK_STR(xp_str(c, h->planes[0].name), "/host:CPU");
	CHECK_STR(xp_str(c, h->planes[1].name), "/device:GPU:0");
	CHECK_STR(xp_str(c, h->planes[2].name), "/device:GPU:1");
	CHECK_INT(h->planes[2].n_lines, 0);
	const struct xp_plane *host = &h->planes[0], *gpu = &h->planes[1];
	REQUIRE_INT(host->n_lines, 2);
	CHECK_STR(xp_str(c, host->lines[0].name), "python"); /* thread_sort_index order */
	CHECK_STR(xp_str(c, host->lines[1].name), "tf_Compute");
	const struct xp_line *l = &host->lines[1];
	CHECK_STR(ev_name(c, host, l, 0), "dense/MatMul:MatMul");
	CHECK_STR(xp_str(c, host->emeta[xp_meta_of(l, 0)].display_name), "MatMul");
	struct xp_value v;
	CHECK(stat_of(c, host, l, 0, "correlation_id", &v) && v.kind == XP_STAT_I64 && v.i == 12345);
	CHECK(!stat_of(c, host, l, 0, "long_name", &v));
	CHECK_INT(stat_int(c, host, &host->lines[0], 0, "step_num"), 4);
	const struct xp_line *g = line(c, gpu, "Stream #3(Compute)");
	REQUIRE(g && g->n_events == 1);
	CHECK_INT(xp_dur(g, 0), 1);
	CHECK(stat_of(c, gpu, g, 0, "theoretical_occupancy_pct", &v) && v.kind == XP_STAT_F64 && v.d == 50.5);
	CHECK_STAT_STR(c, gpu, g, 0, "context_id", "$$1");
	CHECK_STAT_STR(c, gpu, g, 0, "tf_op", "dense/MatMul:MatMul");
	CHECK_INT(h->json.empty, 1);
	CHECK_INT(h->json.metadata, 9);
	CHECK(!h->json.truncated);
	xp_capture_free(c);
}

/* --- bad input ------------------------------------------------------------------- */

struct bad_case {
	const char *doc;
	size_t len;             /* 0: strlen */
	long offset;            /* expected byte offset; -1: no offset */
	const char *msg;        /* a substring of the message */
};

static void malformed_inputs(void)
{
	static char deep[1024];
	int n = sprintf(deep, "[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":");
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	deep[n] = 0;
	static const struct bad_case cases[] = {
		{"", 0, 0, "unexpected end"},
		{"   ", 0, 3, "unexpected end"},
		{"42", 0, 0, "expected '{' or '['"},
		{"{\"a\":1}", 0, -1, "no traceEvents"},
		{"{\"traceEvents\":{}}", 0, 15, "not an array"},
		{"{\"traceEvents\":[{\"ph\":\"X\",}]}", 0, 26, "expected a string key"},
		{"{\"traceEvents\":[{\"ph\":\"X\"", 0, 25, "unexpected end"},
		{"{\"traceEvents\":[{\"ph\":\"X\"}", 0, 26, "unexpected end"},
		{"{\"traceEvents\":[{\"ph\":\"X\"}]", 0, 27, "unexpected end"},
		{"{\"traceEvents\":[{\"name\":\"a\xff\"}]}", 0, 26, "invalid UTF-8"},
		{"{\"traceEvents\":[{\"name\":\"a\xc3\"}]}", 0, 26, "invalid UTF-8"},
		{"{\"traceEvents\":[{\"name\":\"\xed\xa0\x80\"}]}", 0, 25, "invalid UTF-8"},
		{"{\"traceEvents\":[{\"name\":\"\xc0\xaf\"}]}", 0, 25, "invalid UTF-8"},
		{"{\"traceEvents\":[{\"name\":\"a\tb\"}]}", 0, 26, "control character"},
		{"{\"traceEvents\":[{\"name\":\"a\\xb\"}]}", 0, 26, "invalid escape"},
		{"{\"traceEvents\":[{\"name\":\"a\\u12g4\"}]}", 0, 26, "\\u escape"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1e400}]}", 0, 31, "ts out of range"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1e16}]}", 0, 31, "ts out of range"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":\"soon\"}]}", 0, 32, "ts is not a number"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":0,\"dur\":1e13}]}", 0, 39, "dur out of range"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":0,\"args\":{\"x\":1e400}}]}", 0, 45, "number out of range"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":01}]}", 0, 32, "expected ',' or '}'"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":-}]}", 0, 32, "invalid number"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1.}]}", 0, 33, "no digit after"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":NaN}]}", 0, 31, "where a value should start"},
		{"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":tru}]}", 0, 31, "invalid literal"},
		{"{\"traceEvents\":[{\"ph\" \"X\"}]}", 0, 22, "expected ':'"},
		{"{\"traceEvents\":[{}{}]}", 0, 18, "expected ',' or ']'"},
		{"{\"traceEvents\":[{},]}", 0, 19, "not an object"},
		{"{\"traceEvents\":[1]}", 0, 16, "not an object"},
		{"{\"traceEvents\":[]} x", 0, 19, "trailing data"},
		{"{\"traceEvents\":[]}{}", 0, 18, "trailing data"},
		{"{\"traceEvents\":[],}", 0, 18, "expected a string key"},
		{"[{\"ph\":\"X\",\"ts\":1,\"name\":\"a\\", 0, 28, "unexpected end"},
		{"[{\"ph\":\"X\",\"ts\":1,\"name\":\"a\\u00", 0, 31, "unexpected end"},
		{"[{\"ph\":\"X\",\"ts\":1,\"name\":\"a\0b\"}]", 31, 27, "control character"},
		{deep, 0, 92, "nesting deeper"},
		/* digits followed by the bytes just past '9' (':' to '?'), read eight at a time */
		{"[{\"ph\":\"X\",\"ts\":12345678;}]", 0, 24, "expected ',' or '}'"},
		{"[{\"ph\":\"X\",\"ts\":1.2345678?9}]", 0, 25, "expected ',' or '}'"},
		{"[{\"ph\":\"X\",\"pid\":123456789=}]", 0, 26, "expected ',' or '}'"},
		{"[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":12345678901234567<}}]", 0, 47, "expected ',' or '}'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct bad_case *bc = &cases[i];
		struct xp_capture *c = xp_capture_new();
		struct xp_err err = {0};
		size_t len = bc->len ? bc->len : strlen(bc->doc);
		int rc = xp_read_trace_json_mem(c, "bad.json", (const uint8_t *)bc->doc, len, NULL, &err);
		/* every check runs (no short circuit), so a failure shows them all */
		bool ok = (int)CHECK_INT(rc, -1) & (int)CHECK_INT(err.status, XP_EXIT_BAD_INPUT) &
			  (int)CHECK_INT(c->n_hosts, 0);
		if (bc->offset >= 0)
			ok &= (int)CHECK(err.has_offset) & (int)CHECK_INT(err.offset, bc->offset);
		ok &= CHECK(strstr(err.msg, bc->msg) != NULL);
		if (!ok)
			fprintf(stderr, "  case %zu: \"%s\" -> %s (at %llu)\n", i, bc->doc, err.msg,
				(unsigned long long)err.offset);
		xp_capture_free(c);
	}
}

static void truncated_trace(void)
{
	/* exactly 1,000,000 complete events: TF 2.3's cap */
	size_t cap = (size_t)1000000 * 72 + 64;
	char *doc = malloc(cap);
	REQUIRE(doc);
	size_t n = (size_t)sprintf(doc, "{\"traceEvents\":[");
	for (int i = 0; i < 1000000; i++)
		n += (size_t)sprintf(doc + n, "%s{\"ph\":\"X\",\"pid\":501,\"tid\":1,\"ts\":%d,\"dur\":1,\"name\":\"op\"}",
				     i ? "," : "", i);
	n += (size_t)sprintf(doc + n, ",{}]}");
	struct xp_capture *c = xp_capture_new();
	struct xp_err err = {0};
	CHECK_INT(xp_read_trace_json_mem(c, "t.json", (const uint8_t *)doc, n, NULL, &err), 0);
	if (CHECK_INT(c->n_hosts, 1)) {
		CHECK(c->hosts[0].json.truncated);
		CHECK_INT(c->hosts[0].planes[0].lines[0].n_events, 1000000);
		CHECK_INT(c->hosts[0].planes[0].lines[0].n_blocks, 16);
	}
	xp_capture_free(c);
	free(doc);
}

/* --- the same model whatever the threads and the window ---------------------------- */

struct digest {
	char *p;
	size_t len, cap;
};

static void dput(struct digest *d, const char *s, size_t n)
{
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		d->p = realloc(d->p, d->cap);
		if (!d->p)
			abort();
	}
	memcpy(d->p + d->len, s, n);
	d->len += n;
	d->p[d->len] = 0;
}

static void dprintf_(struct digest *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dprintf_(struct digest *d, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	dput(d, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Everything of host 0 as text: planes, lines, events, stats (by name), plane stats, counts. */
static char *digest(const struct xp_capture *c)
{
	struct digest d = {0};
	const struct xp_host *h = &c->hosts[0];
	dprintf_(&d, "base %" PRId64 " grouped %d planes %u\n", h->base_ns, h->pre_grouped, h->n_planes);
	for (uint32_t p = 0; p < h->n_planes; p++) {
		const struct xp_plane *pl = &h->planes[p];
		dprintf_(&d, "plane %s kind %d id %" PRId64 " lines %u\n", xp_str(c, pl->name), pl->kind, pl->id, pl->n_lines);
		struct xp_stat_view pv = xp_plane_stats(pl);
		for (uint32_t k = 0; k < pv.n; k++) {
			struct xp_value v;
			char buf[64];
			uint32_t len;
			xp_view_find(c, pv, xp_stat_meta(pv.keys[k]), &v);
			const char *t = xp_value_text(&v, buf, sizeof buf, &len);
			dprintf_(&d, " ps %s=", xp_str(c, pl->smeta[xp_stat_meta(pv.keys[k])].name));
			dput(&d, t, len);
		}
		for (uint32_t k = 0; k < pl->n_lines; k++) {
			const struct xp_line *l = &pl->lines[k];
			dprintf_(&d, "line %" PRId64 " %s derived %d events %" PRIu64 " stats %" PRIu64 "\n", l->id,
				 xp_str(c, l->name), l->derived, l->n_events, l->n_stats);
			for (uint64_t i = 0; i < l->n_events; i++) {
				const struct xp_event_meta *m = &pl->emeta[xp_meta_of(l, i)];
				dprintf_(&d, "  %" PRId64 " %" PRId64 " ", l->start_ps[i], xp_dur(l, i));
				dput(&d, xp_str(c, m->name), xp_strlen(c, m->name));
				dput(&d, "|", 1);
				dput(&d, xp_str(c, m->display_name), xp_strlen(c, m->display_name));
				struct xp_stat_view v = xp_event_stats(l, i);
				for (uint32_t s = 0; s < v.n; s++) {
					struct xp_value val;
					char buf[64];
					uint32_t len;
					memset(&val, 0, sizeof val);
					/* the value of this very stat, not the last of its name */
					struct xp_stat_view one = v;
					one.keys += s;
					one.vals += s;
					one.n = 1;
					xp_view_find(c, one, xp_stat_meta(v.keys[s]), &val);
					const char *t = xp_value_text(&val, buf, sizeof buf, &len);
					dprintf_(&d, " %s:%u=", xp_str(c, pl->smeta[xp_stat_meta(v.keys[s])].name), val.kind);
					dput(&d, t, len);
				}
				dput(&d, "\n", 1);
			}
		}
	}
	const struct xp_json_counts *j = &h->json;
	dprintf_(&d, "counts %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n",
		 j->entries, j->complete, j->begin, j->end, j->instant, j->counter, j->metadata, j->flow, j->async,
		 j->empty, j->other, j->unmatched_begin, j->unmatched_end, j->zero_dur_kernels, j->truncated);
	dprintf_(&d, "odd %" PRIu64 " %" PRIu64 " %" PRIu64 " bytes %" PRIu64 "\n", h->odd.negative_durations,
		 h->odd.invalid_utf8, h->odd.time_overflow_lines, h->decoded_bytes);
	return d.p;
}

/* A bigger document: every phase, escapes, several threads, out of order. */
/* The first ts after from, of four characters or more, becomes 9e99 (spaces pad it). */
static void ts_out_of_range(char *from)
{
	for (char *at = strstr(from, "\"ts\":"); at; at = strstr(at + 5, "\"ts\":")) {
		char *num = at + 5, *end = num;
		while ((*end >= '0' && *end <= '9') || *end == '.')
			end++;
		if (end - num >= 4) {
			memset(num, ' ', (size_t)(end - num));
			memcpy(num, "9e99", 4);
			return;
		}
	}
}

/* The first read's digest is *want; each later one must equal it. */
static void same_digest(char **want, const struct xp_capture *c, const char *what)
{
	char *got = digest(c);
	if (!*want) {
		*want = got;
		return;
	}
	if (!CHECK(strcmp(got, *want) == 0))
		fprintf(stderr, "  %s differs\n", what);
	free(got);
}

/* The first read's error is *want; each later one must be the same at the same offset. */
static void same_error(struct xp_err *want, const struct xp_err *err, const char *what)
{
	CHECK_INT(err->status, XP_EXIT_BAD_INPUT);
	if (!want->status) {
		*want = *err;
		return;
	}
	if (!CHECK(!strcmp(err->msg, want->msg) && err->offset == want->offset))
		fprintf(stderr, "  %s: %s at %llu, want %s at %llu\n", what, err->msg, (unsigned long long)err->offset,
			want->msg, (unsigned long long)want->offset);
}

/* n elements; every long_every-th (0: none) carries an arg of 100,000 bytes. */
static char *mixed_doc_of(int n, int long_every, size_t *len)
{
	struct digest d = {0};
	dput(&d, kineto_doc, strlen(kineto_doc) - 3); /* without "\n]}" */
	for (int i = 0; i < n; i++) {
		int tid = i % 7, ts = (i * 7919) % 5000;
		if (long_every && i % long_every == long_every - 1) {
			dprintf_(&d, ",\n{\"ph\":\"i\",\"pid\":4242,\"tid\":%d,\"ts\":%d,\"name\":\"long\",\"args\":{\"s\":\"",
				 tid, ts);
			for (int k = 0; k < 10000; k++)
				dput(&d, "0123456789", 10);
			dput(&d, "\"}}", 3);
			continue;
		}
		switch (i % 6) {
		case 0:
			dprintf_(&d, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":4242,\"tid\":%d,\"ts\":%d.%03d,"
				 "\"dur\":%d.5,\"name\":\"op\\u00e9%d\",\"args\":{\"k\":[%d,{\"x\":\"y\"}],\"f\":%d.25}}",
				 tid, ts, i % 1000, i % 13, i % 17, i, i);
			break;
		case 1:
			dprintf_(&d, ",\n{\"ph\":\"B\",\"pid\":4242,\"tid\":%d,\"ts\":%d,\"name\":\"b%d\"}", tid, ts,
				 i % 5);
			break;
		case 2:
			dprintf_(&d, ",\n{\"ph\":\"E\",\"pid\":4242,\"tid\":%d,\"ts\":%d}", tid, ts + 3);
			break;
		case 3:
			dprintf_(&d, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
				 "\"ts\":%d,\"dur\":%d,\"args\":{\"correlation\":%d,\"grid\":[%d,1,1],\"block\":[32,1,1]}}",
				 i % 9, ts, i % 4, i, i % 100 + 1);
			break;
		case 4:
			dprintf_(&d, ",\n{\"ph\":\"C\",\"pid\":4242,\"ts\":%d,\"name\":\"c\",\"args\":{\"v\":%d}}", ts,
				 i);
			break;
		default:
			dprintf_(&d, ",\n{\"ph\":\"s\",\"pid\":4242,\"tid\":%d,\"ts\":%d,\"id\":%d},{}", tid, ts, i);
		}
	}
	const char *tail = "\n],\"traceName\":\"mixed\"}";
	dput(&d, tail, strlen(tail));
	*len = d.len;
	return d.p;
}

static char *mixed_doc(size_t *len)
{
	return mixed_doc_of(3000, 0, len);
}

/* A gzip file of a document; the caller unlinks and frees the name. */
static char *gz_file(const char *doc, size_t len)
{
	char *tmpl = malloc(4096);
	tmp_template(tmpl, 4096, "xpstat-tj");
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		free(tmpl);
		return NULL;
	}
	close(fd);
	gzFile gz = gzopen(tmpl, "wb1");
	if (!gz || gzwrite(gz, doc, (unsigned)len) != (int)len || gzclose(gz) != Z_OK) {
		unlink(tmpl);
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* A .gz of several MiB read from a file: on one thread the decoder's output is
 * copied into the reader's window; on two the reader lexes the decoder's
 * pieces in place (xp_pull_lend), carrying each piece's cut element over, and
 * gathering elements longer than the room; on three a lexer thread copies
 * into batches. The same model, and the same first error at the same offset. */
static void same_model_through_lent_pieces(void)
{
	size_t len;
	char *doc = mixed_doc_of(60000, 997, &len);
	REQUIRE(len > ((size_t)8 << 20));
	char *late = strdup(doc), *range = strdup(doc);
	late[len - 30] = '\x01';
	ts_out_of_range(range + len / 2);
	const char *docs[] = {doc, late, range};
	for (size_t k = 0; k < 3; k++) {
		char *path = gz_file(docs[k], len);
		REQUIRE(path);
		char *want = NULL;
		struct xp_err want_err = {0};
		for (int threads = 1; threads <= 3; threads++) {
			struct xp_capture *c = xp_capture_new();
			struct xp_err err = {0};
			struct xp_json_opts o = {0, threads};
			int rc = xp_read_trace_json_file(c, path, &o, &err);
			char what[64];
			snprintf(what, sizeof what, "doc %zu threads %d", k, threads);
			if (CHECK_INT(rc, k == 0 ? 0 : -1)) {
				if (k == 0)
					same_digest(&want, c, what);
				else
					same_error(&want_err, &err, what);
				if (k == 2)
					CHECK(strstr(err.msg, "ts out of range") != NULL);
			} else {
				fprintf(stderr, "  %s: %s\n", what, rc ? err.msg : "accepted");
			}
			xp_capture_free(c);
		}
		free(want);
		unlink(path);
		free(path);
	}
	free(doc);
	free(late);
	free(range);
}

static void same_model_any_threads_and_window(void)
{
	size_t mlen;
	char *mixed = mixed_doc(&mlen);
	const char *docs[] = {kineto_doc, mixed};
	const size_t lens[] = {strlen(kineto_doc), mlen};
	static const size_t windows[] = {0, 7, 64, 1000, 65536};
	for (size_t k = 0; k < 2; k++) {
		char *want = NULL;
		for (int threads = 1; threads <= 2; threads++)
			for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
				struct xp_capture *c = xp_capture_new();
				struct xp_err err = {0};
				struct xp_json_opts o = {0, threads, windows[w]};
				int rc = xp_read_trace_json_mem(c, "m.json", (const uint8_t *)docs[k], lens[k], &o, &err);
				char what[64];
				snprintf(what, sizeof what, "doc %zu threads %d window %zu", k, threads, windows[w]);
				if (CHECK_INT(rc, 0) && CHECK_INT(c->n_hosts, 1))
					same_digest(&want, c, what);
				else
					fprintf(stderr, "  %s: %s\n", what, err.msg);
				xp_capture_free(c);
			}
		free(want);
	}
	free(mixed);
}

static void same_errors_any_threads_and_window(void)
{
	/* a document that breaks late, and one whose commit fails (ts out of range) */
	size_t mlen;
	char *mixed = mixed_doc(&mlen);
	char *late = strdup(mixed), *range = strdup(mixed);
	late[mlen - 30] = '\x01';
	ts_out_of_range(range + mlen / 2);
	const char *docs[] = {late, range};
	for (size_t k = 0; k < 2; k++) {
		struct xp_err want = {0};
		for (int threads = 1; threads <= 2; threads++)
			for (size_t w = 0; w < 3; w++) {
				static const size_t windows[] = {0, 13, 4096};
				struct xp_capture *c = xp_capture_new();
				struct xp_err err = {0};
				struct xp_json_opts o = {0, threads, windows[w]};
				CHECK_INT(xp_read_trace_json_mem(c, "e.json", (const uint8_t *)docs[k], mlen, &o, &err), -1);
				CHECK_INT(c->n_hosts, 0);
				char what[64];
				snprintf(what, sizeof what, "doc %zu threads %d window %zu", k, threads, windows[w]);
				same_error(&want, &err, what);
				if (k == 1)
					CHECK(strstr(err.msg, "ts out of range") != NULL);
				xp_capture_free(c);
			}
	}
	free(late);
	free(range);
	free(mixed);
}

/* Durations from 2^32 - 1 ps (4294.967295 us) up are kept beside the 32-bit ones: each reads back exactly. */
static void long_durations(void)
{
	struct xp_capture *c = read_ok("{\"traceEvents\":["
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\",\"ts\":0,\"dur\":4294.967294},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"b\",\"ts\":1,\"dur\":4294.967295},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"c\",\"ts\":2,\"dur\":1000000},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"d\",\"ts\":3,\"dur\":2}]}");
	if (!c)
		return;
	const struct xp_plane *p = plane(c, "/host:CPU");
	REQUIRE(p && p->n_lines == 1);
	const struct xp_line *l = &p->lines[0];
	REQUIRE_INT(l->n_events, 4);
	CHECK_INT(xp_dur(l, 0), 4294967294ll);
	CHECK_INT(xp_dur(l, 1), 4294967295ll);
	CHECK_INT(xp_dur(l, 2), 1000000000000ll);
	CHECK_INT(xp_dur(l, 3), 2000000);
	CHECK_INT(l->blocks[0].n_long, 2);
	xp_capture_free(c);
}

/* A line of more than 65,536 distinct event names keeps 32-bit metadata indexes; a small one 16-bit ones. */
static void wide_metadata(void)
{
	const int n = 66000;
	size_t cap = (size_t)n * 80 + 64, len = 0;
	char *doc = malloc(cap);
	REQUIRE(doc);
	len += (size_t)snprintf(doc + len, cap - len, "{\"traceEvents\":[");
	for (int k = 0; k < n; k++)
		len += (size_t)snprintf(doc + len, cap - len, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"e%d\",\"ts\":%d,\"dur\":1}",
					k ? "," : "", k, k * 2);
	len += (size_t)snprintf(doc + len, cap - len, ",{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"name\":\"e5\",\"ts\":1,\"dur\":1}]}");
	struct xp_capture *c = read_ok(doc);
	free(doc);
	if (!c)
		return;
	const struct xp_plane *p = plane(c, "/host:CPU");
	REQUIRE(p && p->n_lines == 2);
	const struct xp_line *big = p->lines[0].n_events == (uint64_t)n ? &p->lines[0] : &p->lines[1];
	const struct xp_line *small = big == &p->lines[0] ? &p->lines[1] : &p->lines[0];
	REQUIRE_INT(big->n_events, n);
	CHECK(big->meta32 && !big->meta16);
	CHECK(small->meta16 && !small->meta32);
	char name[32];
	for (int k = 0; k < n; k += 1001) {
		snprintf(name, sizeof name, "e%d", k);
		CHECK_STR(ev_name(c, p, big, (uint64_t)k), name);
	}
	CHECK_STR(ev_name(c, p, small, 0), "e5");
	xp_capture_free(c);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(us_to_ps_exact), TEST(times_while_lexing), TEST(integers_of_any_length), TEST(decimals_as_doubles), TEST(epoch_times), TEST(begin_end_pairs), TEST(instant_counter_flow_async),
		TEST(args_of_every_type), TEST(drop_stats), TEST(lone_surrogates_counted_where_kept),
		TEST(long_strings_and_windows), TEST(unicode_escapes),
		TEST(bare_array_and_empty), TEST(kineto_mapping), TEST(tf_mapping), TEST(malformed_inputs),
		TEST(truncated_trace), TEST(same_model_any_threads_and_window), TEST(same_errors_any_threads_and_window),
		TEST(same_model_through_lent_pieces), TEST(long_durations), TEST(wide_metadata),
	};
	return RUN_TESTS("test_trace_json", tests);
}
