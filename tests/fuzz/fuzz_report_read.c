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

/* What combine --analysis reads of the same bytes (the sections' numbers lexed, not parsed): it fails with a
 * reason or succeeds, and where both readings succeed they agree on the sections, captures and state. (It is
 * the stricter reader of the JSON -- UTF-8, control characters, text after the document -- and the laxer of
 * the numbers, which it does not read, so neither success implies the other.) */
static void heads_agree(const uint8_t *data, size_t size, const struct xp_report *whole)
{
	static const char *const keep[] = {"hosts", "steps", NULL};
	for (int k = 0; k < 2; k++) {
		struct xp_report *h = NULL;
		struct xp_err err = {0};
		int rc = xp_report_parse_heads("fuzz.json", (const char *)data, size, k ? keep : NULL, &h, &err);
		ASSERT(rc == -1 ? !h && err.status == XP_EXIT_BAD_INPUT && err.msg[0] : rc == 0 && h);
		if (h && whole) {
			ASSERT(h->n == whole->n && h->n_captures == whole->n_captures);
			ASSERT(k || !h->state == !whole->state);
		}
		xp_report_free(h);
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
	} else {
		ASSERT(rc == -1 && !rep && err.status == XP_EXIT_BAD_INPUT && err.msg[0]);
	}
	heads_agree(data, size, rep);
	xp_report_free(rep);
	return 0;
}
