/* shared.h - inputs shared by the analyses of one report, built once on first use. */
#ifndef XPSTAT_SHARED_H
#define XPSTAT_SHARED_H

#include "opdb.h"
#include "tfdata.h"
#include "analyzers/prepare/prepare.h"

/* Built once, on first use, by whichever thread asks first; thread-safe; never changed by readers. */
struct xp_shared *xp_shared_new(const struct xp_capture *c);
void xp_shared_free(struct xp_shared *s);
const struct xp_op_db *xp_shared_input_host_db(struct xp_shared *s);   /* xp_input_host_db(c) */
const struct xp_tfdata *xp_shared_tfdata(struct xp_shared *s);         /* xp_tfdata_build(c) */
/* The shared object when p->shared is set, else a new one put in *own (the caller frees *own). */
const struct xp_op_db *xp_use_input_host_db(const struct xp_prep *p, struct xp_op_db **own);
const struct xp_tfdata *xp_use_tfdata(const struct xp_prep *p, struct xp_tfdata **own);

#endif
