/* fuzz_report_read.c - libFuzzer target: saved xpstat JSON documents (check and compare baselines) read back from arbitrary bytes, then written out again in every format. */
#include "formats/out/out.h"
#include "formats/in/report_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ASSERT(c)                      \
	do {                           \
		if (!(c))              \
			abort();       \
	} while (0)

/* Every writer on every result read: tables of any shape a document can
 * describe (missing cells, odd numbers, invalid UTF-8) must come out whole. */
static void write_all(const struct xp_report *rep)
{
	static const struct xp_writer *const writers[] = {&xp_writer_text, &xp_writer_csv, &xp_writer_json};
	for (size_t i = 0; i < rep->n; i++) {
		const struct xp_result *r = rep->sec[i].r;
		ASSERT(r && rep->sec[i].key && rep->sec[i].command);
		for (size_t w = 0; w < sizeof writers / sizeof *writers; w++) {
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);
			ASSERT(f);
			struct xp_out_opts o = {0};
			int rc = writers[w]->write(r, f, &o, &(struct xp_err){0});
			fclose(f);
			ASSERT(rc == 0 || w == 1); /* CSV refuses a result without a table to write */
			free(buf);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xp_report *rep = NULL;
	struct xp_err err;
	memset(&err, 0, sizeof err);
	int rc = xp_report_parse("fuzz.json", (const char *)data, size, &rep, &err);
	if (rc == 0) {
		ASSERT(rep && !err.status);
		write_all(rep);
		xp_report_free(rep);
	} else {
		ASSERT(rc == -1 && !rep && err.status == XP_EXIT_BAD_INPUT && err.msg[0]);
	}
	return 0;
}
