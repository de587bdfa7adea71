/* hlo.h - one XLA HLO module decoded from a capture's `Hlo Proto` stat: instructions with shapes, metadata and cost. */
#ifndef XPSTAT_HLO_H
#define XPSTAT_HLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/core/xperr.h"

/* Element types read from the instruction's shape (XLA's PrimitiveType numbers). */
enum xp_hlo_type {
	XP_HLO_PRED = 1, XP_HLO_S8 = 2, XP_HLO_S16 = 3, XP_HLO_S32 = 4, XP_HLO_S64 = 5,
	XP_HLO_U8 = 6, XP_HLO_U16 = 7, XP_HLO_U32 = 8, XP_HLO_U64 = 9,
	XP_HLO_F16 = 10, XP_HLO_F32 = 11, XP_HLO_F64 = 12, XP_HLO_TUPLE = 13,
	XP_HLO_C64 = 15, XP_HLO_BF16 = 16, XP_HLO_C128 = 18
};

/* Why FLOPs could not be counted (0 = counted). */
enum xp_hlo_cost_gap {
	XP_HLO_COST_OK = 0,
	XP_HLO_COST_SHAPE,      /* an operand id dangles or a shape does not fit the dimension numbers */
	XP_HLO_COST_OVERFLOW    /* the count does not fit 64 bits */
};

struct xp_hlo_instr {
	int64_t id;
	char *name, *opcode, *category;
	char *op_name, *op_type, *source_file;  /* metadata ("" when absent) */
	int32_t source_line;
	int elem_type;          /* of the result; for a tuple, of its first array element */
	uint32_t n_dims;
	int64_t *dims;
	uint64_t result_bytes;  /* all array elements of the result (tuples summed) */
	uint64_t bytes_accessed;/* operands' results plus its own */
	uint64_t flops;         /* dot and convolution, and fusions/calls holding them */
	enum xp_hlo_cost_gap flops_gap;
	int64_t computation_id; /* the computation it belongs to */
};

struct xp_hlo_module {
	int64_t program_id;     /* the /host:metadata event metadata id */
	int64_t module_id;      /* HloModuleProto.id */
	char *name;
	uint32_t n_instrs;
	struct xp_hlo_instr *instrs;
	uint32_t *by_name;      /* instruction indices sorted by name (first of equal names first) */
};

/* Decode one serialized HloProto. Returns NULL with *E set (a one-line reason, XP_EXIT_BAD_INPUT) when
 * it does not decode (truncated, malformed) or holds nothing; never aborts on hostile values. */
struct xp_hlo_module *xp_hlo_decode(const uint8_t *data, size_t len, int64_t program_id, struct xp_err *e);
void xp_hlo_module_free(struct xp_hlo_module *m);
/* The instruction called NAME (the first one in module order), or NULL. */
const struct xp_hlo_instr *xp_hlo_find(const struct xp_hlo_module *m, const char *name, size_t len);

/* Bytes of one element of TYPE, 0 when it has no fixed size (tuple, token, opaque, sub-byte). */
unsigned xp_hlo_type_bytes(int type);
/* 16-bit or narrower floating point (what the overview counts as 16-bit compute). */
bool xp_hlo_type_is_16bit(int type);
/* "bf16", "f32", ...; "" when unknown. */
const char *xp_hlo_type_name(int type);

#endif
