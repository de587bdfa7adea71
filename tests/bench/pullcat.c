/* pullcat.c - bench helper: decompress a file with the project's pull reader and discard the bytes (the "decompression alone" floor). */
#include "formats/in/input.h"

#include <stdio.h>
#include <stdlib.h>

/* Usage: pullcat FILE ; prints "bytes=<decompressed bytes>". */
int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: pullcat FILE\n", stderr);
		return 2;
	}
	struct xp_err err = {0};
	struct xp_pull *p;
	if (xp_pull_open(argv[1], 0, false, &p, &err)) {
		xp_err_print(&err);
		return 3;
	}
	static uint8_t buf[1 << 20];
	unsigned long long total = 0;
	int64_t k;
	while ((k = xp_pull_read(p, buf, sizeof buf, &err)) > 0)
		total += (unsigned long long)k;
	xp_pull_close(p);
	if (k < 0) {
		xp_err_print(&err);
		return 3;
	}
	printf("bytes=%llu\n", total);
	return 0;
}
