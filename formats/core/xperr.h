/* xperr.h - error reports that carry a file, a reason and a byte offset, and the exit statuses. */
#ifndef XPSTAT_XPERR_H
#define XPSTAT_XPERR_H

#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

/* Exit statuses (DESIGN §3). */
enum xp_exit {
	XP_EXIT_OK = 0,
	XP_EXIT_CHECK_FAILED = 1,
	XP_EXIT_USAGE = 2,
	XP_EXIT_BAD_INPUT = 3,
	XP_EXIT_INTERNAL = 4
};

struct xp_err {
	int status;             /* enum xp_exit; 0 when no error */
	bool has_offset;
	uint64_t offset;        /* byte offset in the (decompressed) input */
	char path[512];
	char msg[2048 + 64];    /* room for a list of names (report: every table; trace: what a selection can name) */
};

/* Record an error; the first one recorded wins. Returns -1 for convenience. */
int xp_err_set(struct xp_err *e, int status, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int xp_err_at(struct xp_err *e, int status, const char *path, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* One line: "xpstat: PATH: MSG (at byte N)". */
void xp_err_print(const struct xp_err *e);

/* Length (1-4) of the valid UTF-8 sequence at S (N bytes left) with its code
 * point in *CP, or 0 when S does not start a valid one (overlong, surrogate,
 * past U+10FFFF, truncated). */
size_t xp_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* A code point a terminal would act on rather than show: C0 and C1 controls,
 * DEL, and the bidirectional overrides and marks. */
bool xp_must_escape(uint32_t cp);
/* S for a terminal, into DST (CAP bytes, always terminated, cut short when
 * full): what xp_must_escape names as \t \n \r \xNN or \uNNNN, bytes of
 * invalid UTF-8 as \xNN -- as text output shows names. Returns DST. */
char *xp_safe_text(char *dst, size_t cap, const char *s);

/* fprintf(stderr, ...) for text that holds names from the input (paths, hosts, runs, tables): the
 * formatted text is escaped as xp_safe_text does, but for one newline or carriage return at its end. */
void xp_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void xp_veprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The one way code below cmd/ ends the program: out of memory (xp_oom), or a promise of the code
 * itself broken (a cell outside its table, a stat read that no analysis declared). One line
 * "xpstat: MSG" on stderr, escaped as xp_eprintf does, and exit status 4 -- never abort(), whose
 * SIGABRT reads as a crash. Everything the input can cause is an xp_err instead. */
_Noreturn void xp_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
