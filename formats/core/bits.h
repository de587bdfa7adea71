/* bits.h - counting set bits inline: without a POPCNT target, __builtin_popcount is a call into libgcc. */
#ifndef XPSTAT_CORE_BITS_H
#define XPSTAT_CORE_BITS_H

#include <stdint.h>

static inline unsigned xp_popcount64(uint64_t x)
{
#ifdef __POPCNT__
	return (unsigned)__builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

static inline unsigned xp_popcount32(uint32_t x)
{
	return xp_popcount64(x);
}

#endif
