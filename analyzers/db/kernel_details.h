/* kernel_details.h - GPU kernel facts shared by kernel-stats, tf-stats and overview: the kernel_details parser and the Tensor Core rules. */
#ifndef XPSTAT_KERNEL_DETAILS_H
#define XPSTAT_KERNEL_DETAILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Profilers wrote `kernel_details` in four forms (spec xplane-format §3.4,
 * Appendix C; DESIGN §8):
 *
 *   TF <= 2.3   "registers_per_thread:R\nstatic_shared_memory_usage:S\n
 *                dynamic_shared_memory_usage:D\ngrid_x:X\ngrid_y:Y\ngrid_z:Z\n
 *                block_x:X\nblock_y:Y\nblock_z:Z"
 *   TF 2.4      "regs:R shm:S grid:X,Y,Z block:X,Y,Z"
 *   NVIDIA now  "regs:R static_shared:S dynamic_shared:D grid:X,Y,Z block:X,Y,Z occ_pct:P"
 *   AMD (ROCm)  " grid:X,Y,Z block:X,Y,Z private_mem:P group_mem:G occ_pct:P"
 *
 * The parser reads every form: the text is split at spaces, tabs, CR and
 * LF; a token is KEY:VALUE with exactly one ':' (anything else, such as
 * "occ_pct=13.0", is ignored, as the reference does); unknown keys and
 * values that do not parse (negative, past 2^32-1, grid with two numbers)
 * leave the field at its default. Defaults: grid and block 1,1,1, the rest
 * 0, no occupancy.
 *
 * Where the forms differ:
 *   - TF 2.4's single "shm" is the static shared memory (TF 2.4 wrote the
 *     static part only); dynamic stays 0.
 *   - AMD's "group_mem" (LDS per work-group) is the static shared memory,
 *     "private_mem" (scratch per work-item) goes to private_mem; AMD has no
 *     register count, so regs stays 0.
 * The input need not be NUL-terminated: only LEN bytes are read.
 */

enum xp_kd_form {
	XP_KD_NONE = 0,     /* no known key */
	XP_KD_TF23,         /* newline keys (registers_per_thread, grid_x, ...) */
	XP_KD_TF24,         /* regs/shm */
	XP_KD_NVIDIA,       /* regs/static_shared/dynamic_shared/occ_pct */
	XP_KD_AMD           /* private_mem/group_mem */
};

/* Bits of xp_kernel_details.fields: which keys were read. */
enum {
	XP_KD_F_REGS = 1u << 0,
	XP_KD_F_STATIC = 1u << 1,
	XP_KD_F_DYNAMIC = 1u << 2,
	XP_KD_F_GRID = 1u << 3,
	XP_KD_F_BLOCK = 1u << 4,
	XP_KD_F_OCC = 1u << 5,
	XP_KD_F_PRIVATE = 1u << 6
};

struct xp_kernel_details {
	uint32_t regs;              /* registers per thread */
	uint32_t static_shmem;      /* bytes per block */
	uint32_t dynamic_shmem;     /* bytes per block */
	uint32_t private_mem;       /* AMD: scratch bytes per work-item */
	uint32_t grid[3];           /* x, y, z */
	uint32_t block[3];
	double occupancy_pct;       /* theoretical occupancy, 0-100; valid with XP_KD_F_OCC */
	unsigned fields;            /* XP_KD_F_* */
	enum xp_kd_form form;
};

/* Parse LEN bytes of a kernel_details value into *out (always fully set). */
void xp_kernel_details_parse(const char *s, size_t len, struct xp_kernel_details *out);
/* "tf2.3", "tf2.4", "nvidia", "amd" or "none". */
const char *xp_kd_form_name(enum xp_kd_form f);
/* "x,y,z" of a grid or block into BUF (XP_KD_DIMS_TEXT bytes), without snprintf: rows write millions. */
#define XP_KD_DIMS_TEXT 33
void xp_kd_dims_text(const uint32_t d[3], char *buf);

/* --- Tensor Cores (spec analyzers §4.3) ------------------------------------ */

/* The kernel runs on Tensor Cores: its name holds one of the 19 substrings
 * the reference knows (16816, c1688, ..., xmma_warp_specialized_implicit_gemm). */
bool xp_kernel_uses_tensor_core(const char *name, size_t len);
/* The op could use Tensor Cores by its name: ends with Conv2D, ..., /MatMul,
 * FusedMatMul, /CudnnRNN, XlaDot, XlaDotV2, or contains BatchMatMul,
 * CudnnRNNV, CudnnRNNForward, CudnnRNNBackprop. */
bool xp_op_tensor_core_eligible(const char *op, size_t len);
/* An einsum equation with exactly two operands ("ab,bc->ac"): non-empty,
 * exactly one "->", and exactly one ',' left of it. */
bool xp_einsum_tensor_core_eligible(const char *equation, size_t len);

#endif
