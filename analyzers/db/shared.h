/* shared.h - inputs shared by the analyses of one report, built once on first use. */
#ifndef XPSTAT_SHARED_H
#define XPSTAT_SHARED_H

#include "opdb.h"
#include "perfenv.h"
#include "prepstate.h"
#include "tfdata.h"
#include "analyzers/prepare/prepare.h"

/* Built once, on first use, by whichever thread asks first; thread-safe; never changed by readers. */
struct xp_shared *xp_shared_new(const struct xp_capture *c);
void xp_shared_free(struct xp_shared *s);
const struct xp_op_db *xp_shared_input_host_db(struct xp_shared *s);   /* xp_input_host_db(c) */
const struct xp_tfdata *xp_shared_tfdata(struct xp_shared *s);         /* xp_tfdata_build(c) */
/* Both of the above, built now (an analysis' warm: input-pipeline's, overview's). */
void xp_shared_warm_inputs(struct xp_shared *s, bool xprof_compat);
/* The capture it builds from (NULL: saved state). */
const struct xp_capture *xp_shared_capture(const struct xp_shared *s);
/* Overview's device op DB at TF level, sorted (xp_op_db_tf_device of the capture, xp_op_db_sort), built now:
 * a command run alone builds it on a second thread while the preparation is made. Taken (the caller frees it)
 * by the first to ask; NULL when it was not built, or taken already. */
void xp_shared_warm_device_tf(struct xp_shared *s, bool xprof_compat);
struct xp_op_db *xp_shared_take_device_tf(struct xp_shared *s);
/* combine: the shared inputs of N hosts read back from their saved state (hosts[h] is host h), those of the
 * state tables in TABLES (what the analyses to run declared: the input host op DB for "op_dbs", the tf.data
 * model for "tfdata_hosts", the run environments for "run_env"). Asking it for another is an internal error.
 * NULL with E set (exit 3) when a state does not read back. */
struct xp_shared *xp_shared_from_state(const struct xp_state_host *hosts, uint32_t n, const char *const *tables,
				       struct xp_err *e);
/* Host H's run environment: saved (combine), else from the capture. */
void xp_use_run_env(const struct xp_prep *p, uint32_t h, struct xp_run_env *e);
/* The shared object when p->shared is set, else a new one put in *own (the caller frees *own). */
const struct xp_op_db *xp_use_input_host_db(const struct xp_prep *p, struct xp_op_db **own);
const struct xp_tfdata *xp_use_tfdata(const struct xp_prep *p, struct xp_tfdata **own);

#endif
