/* fuzz_hlo.c - libFuzzer target: the HLO decoder on arbitrary bytes; what it keeps must be consistent, and it keeps only what protobuf-c reads. */
#include "formats/in/hlo.h"
#include "hlo.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ASSERT(c)                      \
	do {                           \
		if (!(c))              \
			abort();       \
	} while (0)

/* Every instruction is found by its name (the first of equal names), and a cost gap means no FLOPs. */
static void check_module(const struct xp_hlo_module *m)
{
	for (uint32_t i = 0; i < m->n_instrs; i++) {
		const struct xp_hlo_instr *in = &m->instrs[i];
		ASSERT(in->name && in->opcode && in->category && in->op_name && in->op_type && in->source_file);
		const struct xp_hlo_instr *f = xp_hlo_find(m, in->name, strlen(in->name));
		ASSERT(f && !strcmp(f->name, in->name) && f <= in);
		ASSERT(in->flops_gap == XP_HLO_COST_OK || in->flops == 0);
		ASSERT(in->bytes_accessed >= in->result_bytes);
		ASSERT(in->n_dims <= 64 && (in->n_dims == 0 || in->dims));
	}
	for (uint32_t i = 1; i < m->n_instrs; i++)
		ASSERT(strcmp(m->instrs[m->by_name[i - 1]].name, m->instrs[m->by_name[i]].name) <= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xp_err why = {0};
	struct xp_hlo_module *m = xp_hlo_decode(data, size, 1, &why);
	if (!m) {
		ASSERT(why.status == XP_EXIT_BAD_INPUT && why.msg[0]);
		return 0;
	}
	/* A module decoded only where protobuf-c reads the same bytes. */
	Xphlo__Hlo *h = xphlo__hlo__unpack(NULL, size, data);
	ASSERT(h && h->module);
	size_t n = 0;
	for (size_t c = 0; c < h->module->n_computations; c++)
		n += h->module->computations[c]->n_instructions;
	ASSERT(n == m->n_instrs);
	xphlo__hlo__free_unpacked(h, NULL);
	check_module(m);
	xp_hlo_module_free(m);
	return 0;
}
