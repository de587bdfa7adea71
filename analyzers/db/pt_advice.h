/* pt_advice.h - the recommendations of a PyTorch capture, in PyTorch's terms. */
#ifndef XPSTAT_PT_ADVICE_H
#define XPSTAT_PT_ADVICE_H

#include "steptime.h"

struct xp_reco_row {
	char topic[32], level[16], text[640];
};
struct xp_reco_rows {
	size_t n;
	struct xp_reco_row row[8];
};
/* AMP_PCT: the share of operators' kernel time launched by Tensor Core eligible operators when the GPUs have
 * Tensor Cores and no kernel used them (the PyTorch profiler's AMP advice), else negative. */
void xp_pytorch_advice(const struct xp_step_totals *t, double amp_pct, struct xp_reco_rows *r);

#endif
