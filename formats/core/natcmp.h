/* natcmp.h - natural order of names: runs of digits compare as numbers (worker-2 before worker-10). */
#ifndef XPSTAT_NATCMP_H
#define XPSTAT_NATCMP_H

/* <0, 0 or >0 as strcmp; equal numbers written differently (07, 7) fall back to strcmp, so the order is total. */
int xp_natcmp(const char *a, const char *b);

#endif
