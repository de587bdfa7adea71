/* fuzz_xplane.c - fuzz target: the XSpace reader never crashes and decodes exactly what protobuf-c decodes, on one thread (walk and decode in one pass) and on two (walk, then blocks). */
#include "xplane_diff.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	for (int threads = 1; threads <= 2; threads++)
		if (xp_diff_check(data, size, threads, why, sizeof why)) {
			fprintf(stderr, "xplane differential mismatch (%d thread%s): %s\n", threads, threads == 1 ? "" : "s",
				why);
			abort();
		}
	return 0;
}
