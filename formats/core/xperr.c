/* xperr.c - recording and printing one-line error reports. */
#include "xperr.h"

#include <stdarg.h>
#include <stdio.h>
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
	/* Control characters in paths would break the one-line promise. */
	char path[sizeof e->path];
	size_t i;
	for (i = 0; e->path[i] && i + 1 < sizeof path; i++)
		path[i] = ((unsigned char)e->path[i] < 0x20) ? '?' : e->path[i];
	path[i] = 0;
	if (path[0] && e->has_offset)
		fprintf(stderr, "xpstat: %s: %s (at byte %llu)\n", path, e->msg, (unsigned long long)e->offset);
	else if (path[0])
		fprintf(stderr, "xpstat: %s: %s\n", path, e->msg);
	else
		fprintf(stderr, "xpstat: %s\n", e->msg);
}
