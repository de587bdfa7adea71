/* pt_advice.c - the recommendations of a PyTorch capture, in PyTorch's terms (DataLoader, AMP, torch.profiler). */
#include "pt_advice.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * The statements follow the PyTorch profiler's overview (its thresholds:
 * DataLoader over 5% of the step, communication over 10%), plus xpstat's
 * own for the CUDA runtime and Other, with the remedy a PyTorch user has.
 * Never a Keras, tf.data or TensorFlow-profiler remedy.
 */

#define DATALOADER_PCT 5.0
#define COMM_PCT 10.0
#define LEVEL_PCT 3.0

static double share(const struct xp_step_totals *t, enum xp_step_cat c)
{
	return t->step_ps > 0 ? 100.0 * (double)t->cat_ps[c] / (double)t->step_ps : 0;
}

static void row(struct xp_reco_rows *r, const char *topic, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void row(struct xp_reco_rows *r, const char *topic, const char *level, const char *fmt, ...)
{
	if (r->n >= sizeof r->row / sizeof *r->row)
		return;
	struct xp_reco_row *o = &r->row[r->n++];
	snprintf(o->topic, sizeof o->topic, "%s", topic);
	snprintf(o->level, sizeof o->level, "%s", level ? level : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->text, sizeof o->text, fmt, ap);
	va_end(ap);
}

static void dataloader_row(struct xp_reco_rows *r, double dl)
{
	if (dl > DATALOADER_PCT)
		row(r, "input", "high", "This run has high time cost on input data loading: %.1f%% of the step time is in "
		    "DataLoader. Set num_workers on the DataLoader to load batches in worker processes "
		    "(https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading), and pin_memory=True "
		    "for faster host-to-device copies.", dl);
	else
		row(r, "input", "no", "Only %.1f%% of the step time is in DataLoader: input loading is not the bottleneck.",
		    dl);
}

static void comm_row(struct xp_reco_rows *r, double comm)
{
	if (comm > COMM_PCT)
		row(r, "communication", "high", "This run has high time cost on communication: %.1f%% of the step time is "
		    "in NCCL/Gloo communication. Try gradient compression (https://pytorch.org/docs/stable/"
		    "ddp_comm_hooks.html), gradient accumulation or a larger batch size.", comm);
}

static void runtime_row(struct xp_reco_rows *r, double rt, double other)
{
	if (rt >= LEVEL_PCT)
		row(r, "kernel_launch", "high", "%.1f%% of the step time is in the CUDA runtime (kernel launches, "
		    "synchronization): many small kernels; larger batches, torch.compile or CUDA graphs launch fewer.", rt);
	if (other >= LEVEL_PCT)
		row(r, "all_others", "high", "%.1f%% of the step time is Other: neither kernels, copies, the CUDA runtime, "
		    "DataLoader nor operators ran; this is often Python overhead or waiting, look at the timeline.", other);
}

void xp_pytorch_advice(const struct xp_step_totals *t, double amp_pct, struct xp_reco_rows *r)
{
	memset(r, 0, sizeof *r);
	if (!t->n || t->step_ps <= 0) {
		row(r, "input", "unknown", "No ProfilerStep in the capture, so the step time is unknown: profile with "
		    "torch.profiler.profile(schedule=torch.profiler.schedule(...)) and call prof.step() after each "
		    "training step.");
		return;
	}
	dataloader_row(r, share(t, XP_SC_INPUT));
	comm_row(r, share(t, XP_SC_DEVICE_COLLECTIVES));
	runtime_row(r, share(t, XP_SC_KERNEL_LAUNCH), share(t, XP_SC_OTHER));
	if (amp_pct > 0)
		row(r, "precision", "high", "Kernels with %.0f%% of the time are launched by Tensor Core eligible operators, "
		    "and no kernel used Tensor Cores: enable Automatic Mixed Precision "
		    "(https://pytorch.org/docs/stable/amp.html) to run them in FP16 on Tensor Cores.", amp_pct);
	row(r, "tip_device", NULL, "operators and their kernels: xpstat tf-stats and xpstat kernel-stats; "
	    "Automatic Mixed Precision (https://pytorch.org/docs/stable/amp.html) runs eligible operators on Tensor Cores.");
	row(r, "tip_host", NULL, "the timeline of each thread: open the trace in Perfetto (https://ui.perfetto.dev) or "
	    "chrome://tracing");
}
