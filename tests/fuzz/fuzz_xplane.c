/* fuzz_xplane.c - fuzz target: the XSpace reader never crashes and decodes exactly what protobuf-c decodes. */
#include "xplane_diff.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	if (xp_diff_check(data, size, 1, why, sizeof why)) {
		fprintf(stderr, "xplane differential mismatch: %s\n", why);
		abort();
	}
	return 0;
}
