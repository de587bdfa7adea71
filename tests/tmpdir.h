/* tmpdir.h - where tests make their temporary files: $TMPDIR, or /tmp when it is unset or empty. */
#ifndef XPSTAT_TESTS_TMPDIR_H
#define XPSTAT_TESTS_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

/* A mkstemp/mkdtemp template "$TMPDIR/NAME-XXXXXX", so the tests honour a build machine's scratch directory. */
static inline void tmp_template(char *buf, size_t n, const char *name)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, n, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", name);
}

#endif
