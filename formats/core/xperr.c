/* xperr.c - recording and printing one-line error reports. */
#include "xperr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_path(struct xp_err *e, const char *path)
{
	snprintf(e->path, sizeof e->path, "%s", path ? path : "");
}

int xp_err_set(struct xp_err *e, int status, const char *path, const char *fmt, ...)
{
	if (!e || e->status)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->status = status;
	e->has_offset = false;
	set_path(e, path);
	return -1;
}

int xp_err_at(struct xp_err *e, int status, const char *path, uint64_t offset, const char *fmt, ...)
{
	if (!e || e->status)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->status = status;
	e->has_offset = true;
	e->offset = offset;
	set_path(e, path);
	return -1;
}

void xp_err_print(const struct xp_err *e)
{
	/* Names in paths and messages come from the input: escaped, as text output shows them, so that
	 * the message stays one line and nothing in it reaches the terminal as a control sequence. */
	char path[4 * sizeof e->path], msg[4 * sizeof e->msg];
	xp_safe_text(path, sizeof path, e->path);
	xp_safe_text(msg, sizeof msg, e->msg);
	if (path[0] && e->has_offset)
		fprintf(stderr, "xpstat: %s: %s (at byte %llu)\n", path, msg, (unsigned long long)e->offset);
	else if (path[0])
		fprintf(stderr, "xpstat: %s: %s\n", path, msg);
	else
		fprintf(stderr, "xpstat: %s\n", msg);
}

size_t xp_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len, i;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool xp_must_escape(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* One escape for code point CP (or the invalid byte CP when BYTE) at DST, when it fits in ROOM. */
static size_t put_esc(char *dst, size_t room, uint32_t cp, bool byte)
{
	char e[12];
	if (cp == '\t' || cp == '\n' || cp == '\r')
		snprintf(e, sizeof e, "\\%c", cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r');
	else if (byte || cp < 0x80)
		snprintf(e, sizeof e, "\\x%02x", (unsigned)cp);
	else
		snprintf(e, sizeof e, "\\u%04x", (unsigned)cp);
	size_t n = strlen(e);
	if (n >= room)
		return 0;
	memcpy(dst, e, n);
	return n;
}

char *xp_safe_text(char *dst, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	while (i < n && o + 1 < cap) {
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp), k;
		if (!len || xp_must_escape(cp))
			k = put_esc(dst + o, cap - o, len ? cp : p[i], !len);
		else
			k = len < cap - o ? (memcpy(dst + o, s + i, len), len) : 0;
		if (!k)
			break;
		o += k;
		i += len ? len : 1;
	}
	dst[o] = 0;
	return dst;
}

void xp_veprintf(const char *fmt, va_list ap)
{
	char raw[2048], safe[4 * sizeof raw];
	vsnprintf(raw, sizeof raw, fmt, ap);
	size_t n = strlen(raw);
	char end = n && (raw[n - 1] == '\n' || raw[n - 1] == '\r') ? raw[--n] : 0;
	raw[n] = 0;
	xp_safe_text(safe, sizeof safe, raw);
	fputs(safe, stderr);
	if (end)
		fputc(end, stderr);
}

void xp_eprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	xp_veprintf(fmt, ap);
	va_end(ap);
}

void xp_die(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	xp_eprintf("xpstat: %s\n", msg);
	exit(XP_EXIT_INTERNAL);
}
