/* fuzz_decompress.c - libFuzzer target: sniffing and bounded gzip/zstd decompression of arbitrary bytes. */
#include "formats/in/input.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small enough to keep a fuzzing run fast (a bomb stops at 1 MiB), big
 * enough for real decoding: gzip and zstd windows and multi-block frames. */
#define FUZZ_MAX_OUT ((uint64_t)1 << 20)

/* Decompress as COMP and check the contract: output and no error, or no
 * output and a status-3 error with a message. */
static void try_one(const uint8_t *data, size_t size, enum xp_compression comp)
{
	struct xp_err err;
	memset(&err, 0, sizeof err);
	uint8_t *out = NULL;
	uint64_t len = 0;
	int rc = xp_decompress("fuzz", data, size, comp, FUZZ_MAX_OUT, &out, &len, &err);
	if (rc == 0) {
		if (!out || err.status || len > FUZZ_MAX_OUT)
			abort();
		/* Touch both ends so that a short buffer shows up under ASan. */
		volatile uint8_t sink = len ? (uint8_t)(out[0] ^ out[len - 1]) : 0;
		(void)sink;
		free(out);
		return;
	}
	if (rc != -1 || out || len || err.status != XP_EXIT_BAD_INPUT || !err.msg[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum xp_compression c = xp_sniff(data, size);
	if (!xp_compression_name(c))
		abort();
	if (c != XP_COMP_NONE)
		try_one(data, size, c);
	/* Also as each format outright, so that header parsing sees everything. */
	if (c != XP_COMP_GZIP)
		try_one(data, size, XP_COMP_GZIP);
	if (c != XP_COMP_ZSTD)
		try_one(data, size, XP_COMP_ZSTD);
	return 0;
}
