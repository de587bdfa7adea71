/* hlo.c - decoding an XLA HloProto (protobuf-c, formats/hlo.proto) into instructions with shapes, metadata, FLOPs and bytes. */
#include "hlo.h"
#include "hlo.pb-c.h"
#include "formats/core/xalloc.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Xphlo__Instruction PInstr;
typedef Xphlo__Shape PShape;

/* Shapes nest through tuple_shapes only; protobuf-c recurses once per level, so a hostile proto of
 * nested tuples could exhaust the stack. The wire is walked first and refused past this depth. */
#define MAX_TUPLE_DEPTH 64
/* Fusions call computations that may call others; a hostile proto may make them cyclic. */
#define MAX_CALL_DEPTH 32

/* --- a wire pre-walk that bounds the nesting of shapes ------------------------------------ */

static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned s = 0; s < 64 && *p < end; s += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << s;
		if (b < 0x80)
			return true;
	}
	return false;
}

/* Walk the fields of [p, end); a field in the path table is a message walked in turn. */
enum wire_msg { W_HLO, W_MODULE, W_COMP, W_INSTR, W_SHAPE, W_OTHER };

static enum wire_msg child_of(enum wire_msg m, uint64_t field)
{
	switch (m) {
	case W_HLO: return field == 1 ? W_MODULE : W_OTHER;
	case W_MODULE: return field == 3 ? W_COMP : W_OTHER;
	case W_COMP: return field == 2 ? W_INSTR : W_OTHER;
	case W_INSTR: return field == 3 ? W_SHAPE : W_OTHER;
	case W_SHAPE: return field == 4 ? W_SHAPE : W_OTHER;
	default: return W_OTHER;
	}
}

static bool walk(const uint8_t *p, const uint8_t *end, enum wire_msg m, unsigned depth)
{
	if (depth > MAX_TUPLE_DEPTH + 4)
		return false;
	while (p < end) {
		uint64_t key, n;
		if (!varint(&p, end, &key))
			return false;
		switch (key & 7) {
		case 0: if (!varint(&p, end, &n)) return false; break;
		case 1: if (end - p < 8) return false; p += 8; break;
		case 5: if (end - p < 4) return false; p += 4; break;
		case 2:
			if (!varint(&p, end, &n) || n > (uint64_t)(end - p))
				return false;
			if (child_of(m, key >> 3) != W_OTHER && !walk(p, p + n, child_of(m, key >> 3), depth + 1))
				return false;
			p += n;
			break;
		default: return false;
		}
	}
	return true;
}

/* --- element types ------------------------------------------------------------------------- */

unsigned xp_hlo_type_bytes(int t)
{
	switch (t) {
	case XP_HLO_PRED: case XP_HLO_S8: case XP_HLO_U8: case 19: case 20: case 23: case 24: case 25: case 28: case 29:
	case 33:
		return 1;
	case XP_HLO_S16: case XP_HLO_U16: case XP_HLO_F16: case XP_HLO_BF16: return 2;
	case XP_HLO_S32: case XP_HLO_U32: case XP_HLO_F32: return 4;
	case XP_HLO_S64: case XP_HLO_U64: case XP_HLO_F64: case XP_HLO_C64: return 8;
	case XP_HLO_C128: return 16;
	default: return 0;
	}
}

bool xp_hlo_type_is_16bit(int t)
{
	/* f16, bf16 and the 8-bit floats (F8E5M2 19 .. F8E3M4 29) */
	return t == XP_HLO_F16 || t == XP_HLO_BF16 || (t >= 19 && t <= 29 && t != 21 && t != 22 && t != 26 && t != 27);
}

const char *xp_hlo_type_name(int t)
{
	static const char *const names[] = {
		[1] = "pred", [2] = "s8", [3] = "s16", [4] = "s32", [5] = "s64", [6] = "u8", [7] = "u16", [8] = "u32",
		[9] = "u64", [10] = "f16", [11] = "f32", [12] = "f64", [13] = "tuple", [15] = "c64", [16] = "bf16",
		[18] = "c128", [19] = "f8e5m2", [20] = "f8e4m3fn", [28] = "f8e4m3", [24] = "f8e5m2fnuz",
		[25] = "f8e4m3fnuz",
	};
	if (t < 0 || (size_t)t >= sizeof names / sizeof *names || !names[t])
		return "";
	return names[t];
}

/* --- arithmetic that saturates instead of overflowing -------------------------------------- */

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t s;
	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

/* Elements of an array shape; false when a dimension is negative or the product overflows. */
static bool shape_elems(const PShape *s, uint64_t *out)
{
	uint64_t n = 1;
	for (size_t i = 0; i < s->n_dimensions; i++)
		if (s->dimensions[i] < 0 || !mul_ok(n, (uint64_t)s->dimensions[i], &n))
			return false;
	*out = n;
	return true;
}

/* Bytes of all array elements of a shape (tuples summed; saturating). */
static uint64_t shape_bytes(const PShape *s, unsigned depth)
{
	if (!s || depth > MAX_TUPLE_DEPTH)
		return 0;
	if (s->element_type == XP_HLO_TUPLE) {
		uint64_t sum = 0;
		for (size_t i = 0; i < s->n_tuple_shapes; i++)
			sum = add_sat(sum, shape_bytes(s->tuple_shapes[i], depth + 1));
		return sum;
	}
	uint64_t n, b;
	if (!shape_elems(s, &n))
		return UINT64_MAX;
	return mul_ok(n, xp_hlo_type_bytes(s->element_type), &b) ? b : UINT64_MAX;
}

/* The array a shape stands for: itself, or the first array element of a tuple (a GPU custom call
 * returns (result, scratch)). */
static const PShape *first_array(const PShape *s)
{
	for (unsigned d = 0; s && s->element_type == XP_HLO_TUPLE && d < MAX_TUPLE_DEPTH; d++)
		s = s->n_tuple_shapes ? s->tuple_shapes[0] : NULL;
	return s && s->element_type != XP_HLO_TUPLE ? s : NULL;
}

/* --- the module being built -------------------------------------------------------------- */

struct build {
	const Xphlo__Module *pm;
	size_t n;
	const PInstr **src;          /* by instruction index */
	struct id_ix { int64_t id; uint32_t ix; } *ids;   /* sorted by id */
	struct comp_ix { int64_t id; uint32_t comp; } *comps; /* computations sorted by id */
	size_t n_comps;
	uint8_t *comp_state;          /* per computation: 0 new, 1 in progress, 2 done */
	uint64_t *comp_flops;
	bool *comp_flops_ok;
	struct xp_hlo_module *m;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_ix *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->ix > y->ix) - (x->ix < y->ix);
}

static int cmp_comp(const void *a, const void *b)
{
	const struct comp_ix *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->comp > y->comp) - (x->comp < y->comp);
}

/* The instruction with id ID (the first stored when ids repeat), or NULL: a dangling operand. */
static const PInstr *by_id(const struct build *b, int64_t id)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n && b->ids[lo].id == id ? b->src[b->ids[lo].ix] : NULL;
}

static long comp_by_id(const struct build *b, int64_t id)
{
	size_t lo = 0, hi = b->n_comps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b->comps[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n_comps && b->comps[lo].id == id ? (long)b->comps[lo].comp : -1;
}

static const PShape *operand_shape(const struct build *b, const PInstr *in, size_t k)
{
	if (k >= in->n_operand_ids)
		return NULL;
	const PInstr *op = by_id(b, in->operand_ids[k]);
	return op ? op->shape : NULL;
}

static bool dim_of(const PShape *s, int64_t d, uint64_t *out)
{
	if (!s || d < 0 || (uint64_t)d >= s->n_dimensions || s->dimensions[d] < 0)
		return false;
	*out = (uint64_t)s->dimensions[d];
	return true;
}

/* --- FLOPs (what xprof's cost analysis counts: one multiply and one add per term) ------------- */

/* 2 x (result elements) x (product of the lhs contracting dimensions) = 2*M*N*K per batch. */
static enum xp_hlo_cost_gap dot_count(const PShape *lhs, const PShape *res, const int64_t *contracting, size_t n,
				      uint64_t *out)
{
	uint64_t elems, k = 1, d;
	if (!lhs || !res || !shape_elems(res, &elems))
		return XP_HLO_COST_SHAPE;
	for (size_t i = 0; i < n; i++) {
		if (!dim_of(lhs, contracting[i], &d))
			return XP_HLO_COST_SHAPE;
		if (!mul_ok(k, d, &k))
			return XP_HLO_COST_OVERFLOW;
	}
	return mul_ok(elems, k, out) && mul_ok(*out, 2, out) ? XP_HLO_COST_OK : XP_HLO_COST_OVERFLOW;
}

static enum xp_hlo_cost_gap dot_flops(const struct build *b, const PInstr *in, uint64_t *out)
{
	if (!in->dot_dims)
		return XP_HLO_COST_SHAPE;
	return dot_count(operand_shape(b, in, 0), first_array(in->shape), in->dot_dims->lhs_contracting,
			 in->dot_dims->n_lhs_contracting, out);
}

/* A GPU GEMM custom call (cuBLAS, hipBLASLt) keeps its dot dimension numbers in the JSON backend
 * config: gemm_backend_config.dot_dimension_numbers.lhs_contracting_dimensions, numbers as strings. */
static bool gemm_contracting(const PInstr *in, int64_t *dims, size_t cap, size_t *n)
{
	if (!in->backend_config.len || in->backend_config.len > (1u << 20))
		return false;
	cJSON *root = cJSON_ParseWithLength((const char *)in->backend_config.data, in->backend_config.len);
	const cJSON *gemm = cJSON_GetObjectItemCaseSensitive(root, "gemm_backend_config");
	const cJSON *ddn = cJSON_GetObjectItemCaseSensitive(gemm, "dot_dimension_numbers");
	const cJSON *lc = cJSON_GetObjectItemCaseSensitive(ddn, "lhs_contracting_dimensions"), *e;
	bool ok = cJSON_IsArray(lc);
	*n = 0;
	cJSON_ArrayForEach(e, lc) {
		char *end = NULL;
		double v = cJSON_IsString(e) ? strtod(e->valuestring, &end) : cJSON_IsNumber(e) ? e->valuedouble : -1;
		if (*n == cap || v < 0 || v > 64 || (end && *end)) {
			ok = false;
			break;
		}
		dims[(*n)++] = (int64_t)v;
	}
	cJSON_Delete(root);
	return ok;
}

static enum xp_hlo_cost_gap gemm_call_flops(const struct build *b, const PInstr *in, uint64_t *out)
{
	int64_t dims[8];
	size_t n;
	if (!gemm_contracting(in, dims, 8, &n))
		return XP_HLO_COST_SHAPE;
	return dot_count(operand_shape(b, in, 0), first_array(in->shape), dims, n, out);
}

static bool is_gemm_call(const PInstr *in)
{
	return in->opcode && !strcmp(in->opcode, "custom-call") && in->custom_call_target &&
	       (strstr(in->custom_call_target, "gemm") || strstr(in->custom_call_target, "matmul"));
}

/* Pairs (output position, kernel position) of one spatial dimension that read a real input element
 * (not padding, not a hole of base dilation): the convolution's multiply-adds per dimension. */
static bool valid_pairs(uint64_t in, uint64_t out, const Xphlo__WindowDim *w, uint64_t ksize, uint64_t *pairs)
{
	int64_t stride = w->stride > 0 ? w->stride : 1, wd = w->window_dilation > 0 ? w->window_dilation : 1;
	int64_t bd = w->base_dilation > 0 ? w->base_dilation : 1, pl = w->padding_low;
	if (in == 0 || out == 0 || ksize == 0) {
		*pairs = 0;
		return true;
	}
	if (ksize > (1u << 20) || in > (1ull << 40) || out > (1ull << 40) || stride > (1ll << 30) || wd > (1ll << 30) ||
	    bd > (1ll << 30) || pl > (1ll << 40) || pl < -(1ll << 40))
		return false;
	int64_t last = ((int64_t)in - 1) * bd;   /* the dilated input spans [0, last] */
	uint64_t n = 0;
	for (int64_t k = 0; k < (int64_t)ksize; k++) {
		int64_t off = k * wd - pl;         /* input position = o * stride + off */
		if (bd == 1) {
			/* o in [ceil(-off/stride), floor((last-off)/stride)] intersected with [0, out) */
			int64_t lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
			int64_t hi = last - off < 0 ? -1 : (last - off) / stride;
			if (hi > (int64_t)out - 1)
				hi = (int64_t)out - 1;
			if (hi >= lo)
				n += (uint64_t)(hi - lo + 1);
		} else {
			if (out > (1u << 20))
				return false;
			for (int64_t o = 0; o < (int64_t)out; o++) {
				int64_t pos = o * stride + off;
				n += pos >= 0 && pos <= last && pos % bd == 0;
			}
		}
	}
	*pairs = n;
	return true;
}

/* convolution: 2 x output batch x output features x kernel input features x the valid (output,
 * kernel) position pairs of every spatial dimension; the window's padding and dilations count. */
static enum xp_hlo_cost_gap conv_flops(const struct build *b, const PInstr *in, uint64_t *out)
{
	const PShape *lhs = operand_shape(b, in, 0), *rhs = operand_shape(b, in, 1), *res = first_array(in->shape);
	const Xphlo__ConvDims *cd = in->conv_dims;
	uint64_t batch, feat, kin, n;
	if (!lhs || !rhs || !res || !cd || !dim_of(res, cd->output_batch, &batch) ||
	    !dim_of(res, cd->output_feature, &feat) || !dim_of(rhs, cd->kernel_input_feature, &kin))
		return XP_HLO_COST_SHAPE;
	size_t ns = cd->n_output_spatial;
	if (cd->n_input_spatial != ns || cd->n_kernel_spatial != ns || (in->window && in->window->n_dimensions != ns))
		return XP_HLO_COST_SHAPE;
	if (!mul_ok(batch, feat, &n) || !mul_ok(n, kin, &n))
		return XP_HLO_COST_OVERFLOW;
	for (size_t i = 0; i < ns; i++) {
		uint64_t isz, osz, ksz, pairs;
		Xphlo__WindowDim unit = XPHLO__WINDOW_DIM__INIT;
		const Xphlo__WindowDim *w = in->window ? in->window->dimensions[i] : &unit;
		if (!dim_of(lhs, cd->input_spatial[i], &isz) || !dim_of(res, cd->output_spatial[i], &osz) ||
		    !dim_of(rhs, cd->kernel_spatial[i], &ksz) || !valid_pairs(isz, osz, w, ksz, &pairs))
			return XP_HLO_COST_SHAPE;
		if (!mul_ok(n, pairs, &n))
			return XP_HLO_COST_OVERFLOW;
	}
	return mul_ok(n, 2, out) ? XP_HLO_COST_OK : XP_HLO_COST_OVERFLOW;
}

static bool is_op(const PInstr *in, const char *opcode)
{
	return in->opcode && !strcmp(in->opcode, opcode);
}

/* A GPU backend's convolution is a custom call that keeps the window and dimension numbers. */
static bool is_conv_call(const PInstr *in)
{
	return is_op(in, "custom-call") && in->conv_dims && in->custom_call_target &&
	       strstr(in->custom_call_target, "conv");
}

static enum xp_hlo_cost_gap comp_flops(struct build *b, long comp, unsigned depth, uint64_t *out);

/* FLOPs of one instruction: its own for dot/convolution, its called computations' for the rest. */
static enum xp_hlo_cost_gap instr_flops(struct build *b, const PInstr *in, unsigned depth, uint64_t *out)
{
	*out = 0;
	if (is_op(in, "dot"))
		return dot_flops(b, in, out);
	if (is_op(in, "convolution") || is_conv_call(in))
		return conv_flops(b, in, out);
	if (is_gemm_call(in))
		return gemm_call_flops(b, in, out);
	if (!is_op(in, "fusion") && !is_op(in, "call"))
		return XP_HLO_COST_OK;
	for (size_t i = 0; i < in->n_called_computation_ids; i++) {
		long c = comp_by_id(b, in->called_computation_ids[i]);
		uint64_t f;
		if (c < 0)
			return XP_HLO_COST_SHAPE;
		enum xp_hlo_cost_gap g = comp_flops(b, c, depth + 1, &f);
		if (g)
			return g;
		*out = add_sat(*out, f);
	}
	return *out == UINT64_MAX ? XP_HLO_COST_OVERFLOW : XP_HLO_COST_OK;
}

/* FLOPs of a computation, memoized; a cycle or a call chain past MAX_CALL_DEPTH is a shape gap. */
static enum xp_hlo_cost_gap comp_flops(struct build *b, long comp, unsigned depth, uint64_t *out)
{
	if (b->comp_state[comp] == 2) {
		*out = b->comp_flops[comp];
		return b->comp_flops_ok[comp] ? XP_HLO_COST_OK : XP_HLO_COST_SHAPE;
	}
	if (b->comp_state[comp] == 1 || depth > MAX_CALL_DEPTH)
		return XP_HLO_COST_SHAPE;
	b->comp_state[comp] = 1;
	const Xphlo__Computation *pc = b->pm->computations[comp];
	uint64_t sum = 0;
	enum xp_hlo_cost_gap gap = XP_HLO_COST_OK;
	for (size_t i = 0; i < pc->n_instructions && !gap; i++) {
		uint64_t f;
		gap = instr_flops(b, pc->instructions[i], depth, &f);
		sum = add_sat(sum, f);
	}
	b->comp_state[comp] = 2;
	b->comp_flops[comp] = sum;
	b->comp_flops_ok[comp] = !gap;
	*out = sum;
	return gap;
}

/* --- category (what xprof's HLO op stats call it) -------------------------------------------- */

static bool fusion_holds(const struct build *b, const PInstr *in, const char *opcode)
{
	for (size_t i = 0; i < in->n_called_computation_ids; i++) {
		long c = comp_by_id(b, in->called_computation_ids[i]);
		if (c < 0)
			continue;
		const Xphlo__Computation *pc = b->pm->computations[c];
		for (size_t k = 0; k < pc->n_instructions; k++)
			if (is_op(pc->instructions[k], opcode))
				return true;
	}
	return false;
}

static char *category_of(const struct build *b, const PInstr *in)
{
	static const char *const formatting[] = {"transpose", "copy", "copy-start", "copy-done", "reshape", "bitcast"};
	const char *op = in->opcode ? in->opcode : "";
	for (size_t i = 0; i < sizeof formatting / sizeof *formatting; i++)
		if (!strcmp(op, formatting[i]))
			return strdup("data formatting");
	if (is_conv_call(in))
		return strdup("convolution");
	if (is_gemm_call(in))
		return strdup("dot");
	if (strcmp(op, "fusion"))
		return strdup(op);
	if (fusion_holds(b, in, "convolution"))
		return strdup("convolution fusion");
	if (fusion_holds(b, in, "dot"))
		return strdup("dot fusion");
	const char *k = in->fusion_kind ? in->fusion_kind : "";
	if (k[0] == 'k' && k[1]) {
		char buf[64];
		snprintf(buf, sizeof buf, "%c%s fusion", k[1] | 0x20, k + 2);
		return strdup(buf);
	}
	return strdup("fusion");
}

/* --- assembling the module ------------------------------------------------------------------ */

static char *dup_or_empty(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		xp_oom();
	return d;
}

static void fill_instr(struct build *b, struct xp_hlo_instr *o, const PInstr *in, int64_t comp_id)
{
	o->id = in->id;
	o->computation_id = comp_id;
	o->name = dup_or_empty(in->name);
	o->opcode = dup_or_empty(in->opcode);
	o->category = category_of(b, in);
	if (!o->category)
		xp_oom();
	const Xphlo__Metadata *md = in->metadata;
	o->op_name = dup_or_empty(md ? md->op_name : NULL);
	o->op_type = dup_or_empty(md ? md->op_type : NULL);
	o->source_file = dup_or_empty(md ? md->source_file : NULL);
	o->source_line = md ? md->source_line : 0;
	const PShape *arr = first_array(in->shape);
	o->elem_type = arr ? arr->element_type : (in->shape ? in->shape->element_type : 0);
	if (arr && arr->n_dimensions) {
		o->n_dims = (uint32_t)(arr->n_dimensions > 64 ? 64 : arr->n_dimensions);
		o->dims = xmalloc(o->n_dims * sizeof *o->dims);
		memcpy(o->dims, arr->dimensions, o->n_dims * sizeof *o->dims);
	}
	o->result_bytes = shape_bytes(in->shape, 0);
	o->bytes_accessed = o->result_bytes;
	for (size_t k = 0; k < in->n_operand_ids; k++)
		o->bytes_accessed = add_sat(o->bytes_accessed, shape_bytes(operand_shape(b, in, k), 0));
	o->flops_gap = instr_flops(b, in, 0, &o->flops);
	if (o->flops_gap)
		o->flops = 0;
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	const struct xp_hlo_module *m = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int d = strcmp(m->instrs[x].name, m->instrs[y].name);
	return d ? d : (x > y) - (x < y);
}

static void index_build(struct build *b)
{
	const Xphlo__Module *pm = b->pm;
	for (size_t c = 0; c < pm->n_computations; c++)
		b->n += pm->computations[c]->n_instructions;
	b->n_comps = pm->n_computations;
	b->src = xcalloc(b->n, sizeof *b->src);
	b->ids = xcalloc(b->n, sizeof *b->ids);
	b->comps = xcalloc(b->n_comps, sizeof *b->comps);
	b->comp_state = xcalloc(b->n_comps, 1);
	b->comp_flops = xcalloc(b->n_comps, sizeof *b->comp_flops);
	b->comp_flops_ok = xcalloc(b->n_comps, sizeof *b->comp_flops_ok);
	size_t k = 0;
	for (size_t c = 0; c < pm->n_computations; c++) {
		b->comps[c] = (struct comp_ix){pm->computations[c]->id, (uint32_t)c};
		for (size_t i = 0; i < pm->computations[c]->n_instructions; i++, k++) {
			b->src[k] = pm->computations[c]->instructions[i];
			b->ids[k] = (struct id_ix){b->src[k]->id, (uint32_t)k};
		}
	}
	qsort(b->ids, b->n, sizeof *b->ids, cmp_id);
	qsort(b->comps, b->n_comps, sizeof *b->comps, cmp_comp);
}

static void build_free(struct build *b)
{
	free(b->src);
	free(b->ids);
	free(b->comps);
	free(b->comp_state);
	free(b->comp_flops);
	free(b->comp_flops_ok);
}

static struct xp_hlo_module *assemble(const Xphlo__Module *pm, int64_t program_id)
{
	struct build b = {.pm = pm};
	index_build(&b);
	if (b.n > UINT32_MAX)
		b.n = UINT32_MAX;
	struct xp_hlo_module *m = xcalloc(1, sizeof *m);
	m->program_id = program_id;
	m->module_id = pm->id;
	m->name = dup_or_empty(pm->name);
	m->n_instrs = (uint32_t)b.n;
	m->instrs = xcalloc(b.n, sizeof *m->instrs);
	size_t k = 0;
	for (size_t c = 0; c < pm->n_computations && k < b.n; c++)
		for (size_t i = 0; i < pm->computations[c]->n_instructions && k < b.n; i++, k++)
			fill_instr(&b, &m->instrs[k], pm->computations[c]->instructions[i], pm->computations[c]->id);
	m->by_name = xmalloc(b.n * sizeof *m->by_name);
	for (uint32_t i = 0; i < m->n_instrs; i++)
		m->by_name[i] = i;
	qsort_r(m->by_name, m->n_instrs, sizeof *m->by_name, cmp_names, m);
	build_free(&b);
	return m;
}

struct xp_hlo_module *xp_hlo_decode(const uint8_t *data, size_t len, int64_t program_id, struct xp_err *e)
{
	if (!walk(data, data + len, W_HLO, 0)) {
		xp_err_set(e, XP_EXIT_BAD_INPUT, NULL, "the HLO proto is truncated or malformed (%zu bytes)", len);
		return NULL;
	}
	Xphlo__Hlo *h = xphlo__hlo__unpack(NULL, len, data);
	if (!h) {
		xp_err_set(e, XP_EXIT_BAD_INPUT, NULL, "the HLO proto does not decode (%zu bytes)", len);
		return NULL;
	}
	if (!h->module || !h->module->n_computations) {
		xp_err_set(e, XP_EXIT_BAD_INPUT, NULL, "the HLO proto holds no module");
		xphlo__hlo__free_unpacked(h, NULL);
		return NULL;
	}
	struct xp_hlo_module *m = assemble(h->module, program_id);
	xphlo__hlo__free_unpacked(h, NULL);
	return m;
}

void xp_hlo_module_free(struct xp_hlo_module *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n_instrs; i++) {
		struct xp_hlo_instr *in = &m->instrs[i];
		free(in->name);
		free(in->opcode);
		free(in->category);
		free(in->op_name);
		free(in->op_type);
		free(in->source_file);
		free(in->dims);
	}
	free(m->instrs);
	free(m->by_name);
	free(m->name);
	free(m);
}

const struct xp_hlo_instr *xp_hlo_find(const struct xp_hlo_module *m, const char *name, size_t len)
{
	size_t lo = 0, hi = m->n_instrs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *s = m->instrs[m->by_name[mid]].name;
		int d = strncmp(s, name, len);
		if (!d && s[len])
			d = 1;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n_instrs) {
		const char *s = m->instrs[m->by_name[lo]].name;
		if (!strncmp(s, name, len) && !s[len])
			return &m->instrs[m->by_name[lo]];
	}
	return NULL;
}
