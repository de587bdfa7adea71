/* producer.c - which framework wrote a host's capture, from its metadata names and stats (info's Producer column, provenance). */
#include "prep.h"

#include <string.h>

enum { FW_TF = 1, FW_JAX = 2, FW_TORCH = 4 };

static bool starts(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

/* What one event name says of the framework. Stream executor callbacks ("ThenExecuteCallback:GetEvent...")
 * are shaped like TF ops but appear in JAX captures too: they say nothing. */
static unsigned name_framework(const char *n)
{
	unsigned f = 0;
	struct xp_tfop op;
	xp_parse_tf_op(n, strlen(n), &op);
	if (op.cat == XP_OP_TF && !starts(n, "Then"))
		f |= FW_TF;
	if (!strcmp(n, "ExecutorState::Process") || !strcmp(n, "FunctionRun") || !strcmp(n, "SessionRun") ||
	    starts(n, "EagerExecute") || starts(n, "EagerKernelExecute"))
		f |= FW_TF;
	if (starts(n, "PjitFunction") || strstr(n, "PjRt") || starts(n, "pjit") || starts(n, "jit_") ||
	    strstr(n, "py_xla_execute"))
		f |= FW_JAX;
	if (starts(n, "ProfilerStep#") || starts(n, "aten::"))
		f |= FW_TORCH;
	return f;
}

static unsigned host_frameworks(const struct xp_capture *c, const struct xp_host *h)
{
	unsigned f = 0;
	for (uint32_t i = 0; i < h->n_planes; i++) {
		const struct xp_plane *p = &h->planes[i];
		for (uint32_t m = 1; m < p->n_emeta; m++)
			f |= name_framework(xp_str(c, p->emeta[m].name));
		if (xp_plane_stat_id(c, p, "hlo_module"))
			f |= FW_JAX;  /* XLA programs: JAX, unless TF names say TF compiled them */
	}
	return f;
}

const char *xp_host_producer(const struct xp_capture *c, const struct xp_host *h)
{
	unsigned f = host_frameworks(c, h);
	if (h->format == XP_FMT_TRACE_JSON)
		return f & FW_TORCH ? "PyTorch (trace JSON)" : "trace JSON";
	if ((f & FW_TORCH) && !(f & FW_TF))
		return "PyTorch (XSpace)";
	if (f & FW_TF)
		return "TensorFlow";
	if (f & FW_JAX)
		return "JAX";
	return "unknown";
}
