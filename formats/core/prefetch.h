/* prefetch.h - ask the CPU for a cache line ahead of its use, for walks over rows scattered in memory. */
#ifndef XPSTAT_PREFETCH_H
#define XPSTAT_PREFETCH_H

/* GCC drops __builtin_prefetch in a function whose only effect it is (seen with GCC 12 at -O2), so on x86 the
 * instruction is written out; elsewhere the builtin is the hint. */
static inline void xp_prefetch(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

#endif
