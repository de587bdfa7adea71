/* xalloc.h - allocation that ends the program (exit status 4) when memory runs out. */
#ifndef XPSTAT_XALLOC_H
#define XPSTAT_XALLOC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "xperr.h"

/* Out of memory is an internal error (exit 4, through xp_die); no caller can do better. */
static inline _Noreturn void xp_oom(void)
{
	xp_die("out of memory");
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

/* Fault in a fresh array that is about to be written whole with one call instead of one trap per
 * page: the traps were a quarter of the decode time, and on virtual machines more. Only whole
 * pages inside [p, p + n), and only from 64 KiB on; best effort (older kernels say EINVAL). */
static inline void xp_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	if (n < ((size_t)64 << 10))
		return;
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, b = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	if (b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

#endif
