/* fuzz_analyze.h - what the structure-aware fuzz targets do with a capture or a saved report: report's analyses, every writer, check and compare. */
#ifndef XPSTAT_FUZZ_ANALYZE_H
#define XPSTAT_FUZZ_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/model/capture.h"
#include "formats/model/report.h"

/* Every analysis report runs on C (one and two threads must agree byte for
 * byte), its text and JSON, its JSON read back as a saved report, and
 * compare and check of that report against itself. Aborts on any broken
 * invariant. */
void fuzz_analyze_capture(const struct xp_capture *c);

/* A saved report (BASE) against another (CAND): compare, check with every
 * kind of limit, each result written in every format. */
void fuzz_analyze_saved(const struct xp_report *base, const struct xp_report *cand);

/* A reader of the fuzz input: values taken in order, zeros past the end. */
struct fz {
	const uint8_t *p;
	size_t n, i;
};
uint8_t fz_u8(struct fz *f);
uint64_t fz_u64(struct fz *f);
/* An integer the analyses find hard: 0, +-1, the 32- and 64-bit limits, values
 * that overflow once scaled to picoseconds, or plain small ones. */
int64_t fz_int(struct fz *f);
/* A double the analyses find hard: NaN, +-inf, denormals, 1e300, -0, or plain ones. */
double fz_double(struct fz *f);
/* One of N (N > 0). */
size_t fz_pick(struct fz *f, size_t n);
/* A name: from WORDS (the names the analyses look for) or a hostile one (terminal
 * escapes, NUL, invalid UTF-8, CSV formula leaders, markup), into BUF. Returns its length. */
size_t fz_name(struct fz *f, const char *const *words, size_t n_words, char *buf, size_t size);

#endif
