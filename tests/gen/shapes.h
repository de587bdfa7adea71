/* shapes.h - xpgen's capture-shape variants (diverse, dynamic-shapes, many-hosts): streamed XSpace files whose
 * shape, not workload, is the point: many threads, GPUs and streams, hundreds of ops and kernels, many launch shapes. */
#ifndef XPGEN_SHAPES_H
#define XPGEN_SHAPES_H

#include <stdint.h>

enum shape_kind { SHAPE_DIVERSE, SHAPE_DYNAMIC, SHAPE_MANY_HOSTS };

struct shape_opts {
	enum shape_kind kind;
	uint64_t seed, target;   /* target: bytes of the whole capture (0: a small one) */
	int hosts;               /* many-hosts: files written into the directory `out` */
	const char *out, *truth, *host;
};

/* Writes the capture; exits with a message on an I/O error. */
void shapes_write(const struct shape_opts *o);

#endif
