/* prepare.h - shared preparation done once per host: op-name parsing, event grouping into steps, the step database. */
#ifndef XPSTAT_PREPARE_H
#define XPSTAT_PREPARE_H

#include "prep.h"

/* Prepare every host of c. Returns NULL with *errmsg set for a bad
 * --step-marker regex (the caller's usage error). */
struct xp_prep *xp_prepare(const struct xp_capture *c, const struct xp_prep_opts *o, char *errmsg, size_t errlen);
void xp_prep_free(struct xp_prep *p);
/* Does a host of the capture have PyTorch semantics? (Tables then show PyTorch's categories.) */
bool xp_prep_pytorch(const struct xp_prep *p);

#endif
