/* xalloc.h - allocation that ends the program (exit status 4) when memory runs out. */
#ifndef XPSTAT_XALLOC_H
#define XPSTAT_XALLOC_H

#include <stdio.h>
#include <stdlib.h>

/* Out of memory is an internal error (exit 4); no caller can do better. */
static inline void xp_oom(void)
{
	fputs("xpstat: out of memory\n", stderr);
	exit(4);
}

/* Zero sizes still get a real allocation, so NULL always means failure. */
static inline void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xp_oom();
	return p;
}

static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		xp_oom();
	return p;
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		xp_oom();
	return p;
}

#endif
