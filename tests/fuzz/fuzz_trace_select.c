/* fuzz_trace_select.c - libFuzzer target: the selection values of `xpstat trace` (--steps, --window, --min-duration) on arbitrary text. */
#include "analyzers/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A duration read back from its own picoseconds: the parser is exact. */
static void round_trip(int64_t ps)
{
	char buf[40];
	int64_t again = -1;
	snprintf(buf, sizeof buf, "%" PRId64 "ps", ps);
	if (!xp_trace_parse_duration(buf, &again) || again != ps)
		abort();
	/* and as microseconds with six fraction digits */
	snprintf(buf, sizeof buf, "%" PRId64 ".%06" PRId64, ps / 1000000, ps % 1000000);
	if (!xp_trace_parse_duration(buf, &again) || again != ps)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0; /* an embedded NUL ends the option's value, as argv would */
	int64_t a = -1, b = -1;
	if (xp_trace_parse_steps(s, &a, &b) && (a < 0 || b < a))
		abort();
	int64_t d = -1;
	if (xp_trace_parse_duration(s, &d)) {
		if (d < 0)
			abort();
		round_trip(d);
	}
	int64_t t0 = -1, t1 = -1;
	if (xp_trace_parse_window(s, &t0, &t1)) {
		if (t0 < 0 || t1 <= t0)
			abort();
		round_trip(t0);
		round_trip(t1);
	}
	free(s);
	return 0;
}
