/* check.h - tiny assertion macros and test runner for the unit tests (header-only, one per program). */
#ifndef XPSTAT_TESTS_CHECK_H
#define XPSTAT_TESTS_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A test is a `static void name(void)` function listed in a struct test
 * table given to run_tests(). CHECK_* report file:line, expected and actual
 * and let the test go on; REQUIRE_* also return from the test function.
 * run_tests() prints "N passed, N failed" (tests, not checks) and returns
 * the exit status: 1 when any check failed.
 */

struct test {
	const char *name;
	void (*fn)(void);
};
#define TEST(f) {#f, f}

static int check_failed_now; /* failures in the current test */

static inline bool check_fail_head(const char *file, int line)
{
	check_failed_now++;
	fprintf(stderr, "%s:%d: ", file, line);
	return false;
}

static inline bool check_true(bool ok, const char *what, const char *file, int line)
{
	if (ok)
		return true;
	check_fail_head(file, line);
	fprintf(stderr, "expected true: %s\n", what);
	return false;
}

static inline bool check_i64(int64_t got, int64_t want, const char *what, const char *file, int line)
{
	if (got == want)
		return true;
	check_fail_head(file, line);
	fprintf(stderr, "%s: expected %" PRId64 ", actual %" PRId64 "\n", what, want, got);
	return false;
}

static inline bool check_dbl(double got, double want, double tol, const char *what, const char *file, int line)
{
	if (fabs(got - want) <= tol)
		return true;
	check_fail_head(file, line);
	fprintf(stderr, "%s: expected %.17g (+-%g), actual %.17g\n", what, want, tol, got);
	return false;
}

/* got may be a slice (len >= 0) or a NUL-terminated string (len < 0). */
static inline bool check_str(const char *got, long len, const char *want, const char *what, const char *file, int line)
{
	size_t n = got ? (len < 0 ? strlen(got) : (size_t)len) : 0;
	if (got && n == strlen(want) && !memcmp(got, want, n))
		return true;
	check_fail_head(file, line);
	fprintf(stderr, "%s: expected \"%s\", actual \"%.*s\"%s\n", what, want, (int)n, got ? got : "",
		got ? "" : " (NULL)");
	return false;
}

#define CHECK(c) check_true((c), #c, __FILE__, __LINE__)
#define CHECK_INT(got, want) check_i64((int64_t)(got), (int64_t)(want), #got, __FILE__, __LINE__)
#define CHECK_DBL(got, want, tol) check_dbl((got), (want), (tol), #got, __FILE__, __LINE__)
#define CHECK_STR(got, want) check_str((got), -1, (want), #got, __FILE__, __LINE__)
#define CHECK_SLICE(p, len, want) check_str((p), (long)(len), (want), #p, __FILE__, __LINE__)
#define REQUIRE(c) do { if (!CHECK(c)) return; } while (0)
#define REQUIRE_INT(got, want) do { if (!CHECK_INT(got, want)) return; } while (0)

static inline int run_tests(const char *prog, const struct test *t, size_t n)
{
	int passed = 0, failed = 0;
	for (size_t i = 0; i < n; i++) {
		check_failed_now = 0;
		t[i].fn();
		if (check_failed_now) {
			failed++;
			fprintf(stderr, "FAIL %s (%d check%s)\n", t[i].name, check_failed_now,
				check_failed_now == 1 ? "" : "s");
		} else {
			passed++;
		}
	}
	printf("%s: %d passed, %d failed\n", prog, passed, failed);
	return failed ? 1 : 0;
}

#define RUN_TESTS(prog, table) run_tests((prog), (table), sizeof(table) / sizeof((table)[0]))

#endif
