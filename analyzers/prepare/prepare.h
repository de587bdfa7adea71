/* prepare.h - shared preparation done once per host: op-name parsing, event grouping into steps, the step database. */
#ifndef XPSTAT_PREPARE_H
#define XPSTAT_PREPARE_H

#include "prep.h"
#include "formats/core/xperr.h"

/* Prepare every host of c. Returns NULL with *E set (XP_EXIT_USAGE) for a bad
 * --step-marker regex. */
struct xp_prep *xp_prepare(const struct xp_capture *c, const struct xp_prep_opts *o, struct xp_err *e);
void xp_prep_free(struct xp_prep *p);
/* A new reference to every host's steps, made on first use (any thread); never NULL. */
struct xp_steps_view *xp_prep_steps_view(const struct xp_prep *p);
void xp_steps_view_unref(struct xp_steps_view *v);
/* The holder of the view, for a preparation made elsewhere than xp_prepare (combine's, from state). */
struct xp_steps_hold *xp_steps_hold_new(void);
/* Does a host of the capture have PyTorch semantics? (Tables then show PyTorch's categories.) */
bool xp_prep_pytorch(const struct xp_prep *p);

/* The version of xpstat's PyTorch rules: raise it whenever a PyTorch number changes meaning, so that
 * check and compare refuse baselines made by the old rules. */
#define XP_SEMANTICS_PYTORCH "pytorch-3"
/* Is the host a PyTorch (Kineto) trace? Its numbers follow PyTorch's rules. */
bool xp_host_is_pytorch(const struct xp_host *h);
/* PyTorch's collective operators (nccl:/gloo: broadcast, reduce, all_reduce, all_gather, reduce_scatter). */
bool xp_pt_is_comm_name(const char *s);
/* The DataLoader's next-batch ranges (enumerate(DataLoader)#...__next__, enumerate(DataPipe)#...). */
bool xp_pt_is_dataloader_name(const char *s, size_t n);
/* XP_SEMANTICS_PYTORCH when a host of C is a PyTorch trace, else NULL (TensorFlow/JAX rules). */
const char *xp_capture_semantics(const struct xp_capture *c);

#endif
