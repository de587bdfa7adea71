/* fuzz_xplane.c - fuzz target: the XSpace reader never crashes and decodes exactly what protobuf-c decodes, on one thread (walk and decode in one pass) and on two (walk, then blocks), and keeps exactly the stats it is not told to drop. */
#include "xplane_diff.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	/* Every stat on both paths; then some dropped, on the path the input's first byte picks. */
	for (int k = 0; k < 3; k++) {
		int threads = k < 2 ? 1 + k : 1 + (size && (data[0] & 1));
		bool drop = k == 2;
		if (xp_diff_check(data, size, threads, drop, why, sizeof why)) {
			fprintf(stderr, "xplane differential mismatch (%d thread%s%s): %s\n", threads,
				threads == 1 ? "" : "s", drop ? ", some stats dropped" : "", why);
			abort();
		}
	}
	return 0;
}
