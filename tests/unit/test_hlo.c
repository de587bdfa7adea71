/* test_hlo.c - the HLO decoder on protos built in code: FLOPs of dot and convolution from hand-computed shapes, bytes, hostile values. */
#include "check.h"
#include "formats/in/hlo.h"
#include "hlo.pb-c.h"

/* --- building a module in code ------------------------------------------------------------- */

struct mb {
	Xphlo__Hlo hlo;
	Xphlo__Module mod;
	Xphlo__Computation comp[4], *comps[4];
	Xphlo__Instruction in[16], *ins[4][16];
	Xphlo__Shape shape[16];
	Xphlo__Metadata md[16];
	int64_t dims[16][8];
	int64_t ops[16][4];
	size_t n_in;
};

static void mb_init(struct mb *b, size_t n_comps)
{
	memset(b, 0, sizeof *b);
	xphlo__hlo__init(&b->hlo);
	xphlo__module__init(&b->mod);
	b->hlo.module = &b->mod;
	b->mod.name = (char *)"m";
	b->mod.id = 7;
	for (size_t c = 0; c < n_comps; c++) {
		xphlo__computation__init(&b->comp[c]);
		b->comp[c].id = (int64_t)c + 1;
		b->comp[c].instructions = b->ins[c];
		b->comps[c] = &b->comp[c];
	}
	b->mod.computations = b->comps;
	b->mod.n_computations = n_comps;
}

/* Instruction ID named NAME in computation COMP with an array result TYPE[dims...] (n dims). */
static Xphlo__Instruction *mb_add(struct mb *b, size_t comp, int64_t id, const char *name, const char *opcode, int type,
				  size_t n, const int64_t *dims)
{
	size_t k = b->n_in++;
	Xphlo__Instruction *in = &b->in[k];
	xphlo__instruction__init(in);
	xphlo__shape__init(&b->shape[k]);
	xphlo__metadata__init(&b->md[k]);
	memcpy(b->dims[k], dims, n * sizeof *dims);
	b->shape[k].element_type = type;
	b->shape[k].dimensions = b->dims[k];
	b->shape[k].n_dimensions = n;
	in->shape = &b->shape[k];
	in->metadata = &b->md[k];
	b->md[k].op_name = (char *)"jit(f)/op";
	in->id = id;
	in->name = (char *)name;
	in->opcode = (char *)opcode;
	in->operand_ids = b->ops[k];
	b->ins[comp][b->comp[comp].n_instructions++] = in;
	return in;
}

static void mb_operands(Xphlo__Instruction *in, int64_t a, int64_t c)
{
	in->operand_ids[0] = a;
	in->operand_ids[1] = c;
	in->n_operand_ids = 2;
}

static struct xp_hlo_module *mb_decode(struct mb *b)
{
	size_t len = xphlo__hlo__get_packed_size(&b->hlo);
	uint8_t *buf = malloc(len + 1);
	xphlo__hlo__pack(&b->hlo, buf);
	struct xp_err why = {0};
	struct xp_hlo_module *m = xp_hlo_decode(buf, len, 42, &why);
	if (!m)
		fprintf(stderr, "decode: %s\n", why.msg);
	free(buf);
	return m;
}

/* --- dot --------------------------------------------------------------------------------------- */

/* f32[64,128] x f32[128,32] -> f32[64,32]: 2*M*N*K = 2*64*32*128 = 524,288 FLOPs. */
static void dot_2d(void)
{
	struct mb b;
	mb_init(&b, 1);
	mb_add(&b, 0, 1, "p0", "parameter", XP_HLO_F32, 2, (int64_t[]){64, 128});
	mb_add(&b, 0, 2, "p1", "parameter", XP_HLO_F32, 2, (int64_t[]){128, 32});
	Xphlo__Instruction *d = mb_add(&b, 0, 3, "dot.1", "dot", XP_HLO_F32, 2, (int64_t[]){64, 32});
	mb_operands(d, 1, 2);
	Xphlo__DotDims dd = XPHLO__DOT_DIMS__INIT;
	int64_t lc = 1, rc = 0;
	dd.lhs_contracting = &lc, dd.n_lhs_contracting = 1, dd.rhs_contracting = &rc, dd.n_rhs_contracting = 1;
	d->dot_dims = &dd;
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	const struct xp_hlo_instr *in = xp_hlo_find(m, "dot.1", 5);
	REQUIRE(in);
	CHECK_INT(in->flops, 524288);
	CHECK_INT(in->flops_gap, XP_HLO_COST_OK);
	/* bytes: result 64*32*4 + operands 64*128*4 + 128*32*4 */
	CHECK_INT(in->bytes_accessed, 8192 + 32768 + 16384);
	CHECK_INT(in->result_bytes, 8192);
	CHECK_STR(in->category, "dot");
	CHECK_STR(in->op_name, "jit(f)/op");
	CHECK_INT(m->program_id, 42);
	CHECK_INT(m->module_id, 7);
	CHECK(!xp_hlo_find(m, "dot", 3));
	xp_hlo_module_free(m);
}

/* Batched bf16[8,16,64] x bf16[8,64,24] -> bf16[8,16,24], contracting lhs dim 2 (64):
 * 2 * 8*16*24 * 64 = 393,216; inside a fusion the fusion carries the same count. */
static void dot_batched_in_fusion(void)
{
	struct mb b;
	mb_init(&b, 2);
	mb_add(&b, 0, 1, "fp0", "parameter", XP_HLO_BF16, 3, (int64_t[]){8, 16, 64});
	mb_add(&b, 0, 2, "fp1", "parameter", XP_HLO_BF16, 3, (int64_t[]){8, 64, 24});
	Xphlo__Instruction *d = mb_add(&b, 0, 3, "dot.7", "dot", XP_HLO_BF16, 3, (int64_t[]){8, 16, 24});
	mb_operands(d, 1, 2);
	Xphlo__DotDims dd = XPHLO__DOT_DIMS__INIT;
	int64_t lc = 2, rc = 1, bt = 0;
	dd.lhs_contracting = &lc, dd.n_lhs_contracting = 1, dd.rhs_contracting = &rc, dd.n_rhs_contracting = 1;
	dd.lhs_batch = dd.rhs_batch = &bt, dd.n_lhs_batch = dd.n_rhs_batch = 1;
	d->dot_dims = &dd;
	mb_add(&b, 1, 11, "p0", "parameter", XP_HLO_BF16, 3, (int64_t[]){8, 16, 64});
	mb_add(&b, 1, 12, "p1", "parameter", XP_HLO_BF16, 3, (int64_t[]){8, 64, 24});
	Xphlo__Instruction *f = mb_add(&b, 1, 13, "fusion.3", "fusion", XP_HLO_BF16, 3, (int64_t[]){8, 16, 24});
	mb_operands(f, 11, 12);
	int64_t called = 1;
	f->called_computation_ids = &called;
	f->n_called_computation_ids = 1;
	f->fusion_kind = (char *)"kOutput";
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "dot.7", 5)->flops, 393216);
	CHECK_INT(xp_hlo_find(m, "fusion.3", 8)->flops, 393216);
	CHECK_STR(xp_hlo_find(m, "fusion.3", 8)->category, "dot fusion");
	CHECK(xp_hlo_type_is_16bit(xp_hlo_find(m, "fusion.3", 8)->elem_type));
	xp_hlo_module_free(m);
}

/* --- convolution --------------------------------------------------------------------------- */

static Xphlo__Instruction *conv_2d(struct mb *b, Xphlo__ConvDims *cd, Xphlo__Window *w, Xphlo__WindowDim *wd,
				   Xphlo__WindowDim **wdp, int64_t pad, int64_t out_hw)
{
	/* input NCHW f32[2,3,8,8], kernel OIHW f32[4,3,3,3], output f32[2,4,out,out] */
	mb_add(b, 0, 1, "x", "parameter", XP_HLO_F32, 4, (int64_t[]){2, 3, 8, 8});
	mb_add(b, 0, 2, "k", "parameter", XP_HLO_F32, 4, (int64_t[]){4, 3, 3, 3});
	Xphlo__Instruction *c = mb_add(b, 0, 3, "convolution.1", "convolution", XP_HLO_F32, 4,
				       (int64_t[]){2, 4, out_hw, out_hw});
	mb_operands(c, 1, 2);
	static int64_t sp[2] = {2, 3};
	xphlo__conv_dims__init(cd);
	cd->input_batch = 0, cd->input_feature = 1, cd->output_batch = 0, cd->output_feature = 1;
	cd->kernel_output_feature = 0, cd->kernel_input_feature = 1;
	cd->input_spatial = cd->kernel_spatial = cd->output_spatial = sp;
	cd->n_input_spatial = cd->n_kernel_spatial = cd->n_output_spatial = 2;
	c->conv_dims = cd;
	xphlo__window__init(w);
	for (int i = 0; i < 2; i++) {
		xphlo__window_dim__init(&wd[i]);
		wd[i].size = 3, wd[i].stride = 1, wd[i].padding_low = wd[i].padding_high = pad;
		wd[i].window_dilation = wd[i].base_dilation = 1;
		wdp[i] = &wd[i];
	}
	w->dimensions = wdp;
	w->n_dimensions = 2;
	c->window = w;
	return c;
}

/* Valid 3x3 convolution, no padding: output 6x6; every (output, kernel) pair is real:
 * 2 * batch 2 * out features 4 * in features 3 * (6*3)^2 = 15,552. */
static void conv_valid(void)
{
	struct mb b;
	Xphlo__ConvDims cd;
	Xphlo__Window w;
	Xphlo__WindowDim wd[2], *wdp[2];
	mb_init(&b, 1);
	conv_2d(&b, &cd, &w, wd, wdp, 0, 6);
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "convolution.1", 13)->flops, 2 * 2 * 4 * 3 * 18 * 18);
	xp_hlo_module_free(m);
}

/* "Same" 3x3 with padding 1: output 8x8; per spatial dimension the pairs that read padding do not
 * count: 8*3 - 2 (the first output's k=0 and the last output's k=2) = 22 pairs, so
 * 2 * 2 * 4 * 3 * 22 * 22 = 23,232 (not 2*2*4*3*24*24 = 27,648). */
static void conv_padded(void)
{
	struct mb b;
	Xphlo__ConvDims cd;
	Xphlo__Window w;
	Xphlo__WindowDim wd[2], *wdp[2];
	mb_init(&b, 1);
	conv_2d(&b, &cd, &w, wd, wdp, 1, 8);
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "convolution.1", 13)->flops, 23232);
	xp_hlo_module_free(m);
}

/* Stride 2 over the same 8x8 input, valid: output 3x3, all pairs real: 2*2*4*3*(3*3)^2 = 3,888. */
static void conv_strided(void)
{
	struct mb b;
	Xphlo__ConvDims cd;
	Xphlo__Window w;
	Xphlo__WindowDim wd[2], *wdp[2];
	mb_init(&b, 1);
	conv_2d(&b, &cd, &w, wd, wdp, 0, 3);
	wd[0].stride = wd[1].stride = 2;
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "convolution.1", 13)->flops, 3888);
	xp_hlo_module_free(m);
}

/* --- hostile values ------------------------------------------------------------------------- */

/* An operand id that points nowhere: no FLOPs, a shape gap, no crash. */
static void dangling_operand(void)
{
	struct mb b;
	mb_init(&b, 1);
	mb_add(&b, 0, 1, "p0", "parameter", XP_HLO_F32, 2, (int64_t[]){4, 4});
	Xphlo__Instruction *d = mb_add(&b, 0, 3, "dot.1", "dot", XP_HLO_F32, 2, (int64_t[]){4, 4});
	mb_operands(d, 99, 1);
	Xphlo__DotDims dd = XPHLO__DOT_DIMS__INIT;
	int64_t lc = 1;
	dd.lhs_contracting = &lc, dd.n_lhs_contracting = 1;
	d->dot_dims = &dd;
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "dot.1", 5)->flops, 0);
	CHECK_INT(xp_hlo_find(m, "dot.1", 5)->flops_gap, XP_HLO_COST_SHAPE);
	xp_hlo_module_free(m);
}

/* Two fusions whose computations call each other: a gap, not endless recursion. */
static void cyclic_calls(void)
{
	struct mb b;
	mb_init(&b, 2);
	int64_t to2 = 2, to1 = 1;
	Xphlo__Instruction *f1 = mb_add(&b, 0, 1, "fusion.1", "fusion", XP_HLO_F32, 1, (int64_t[]){4});
	f1->called_computation_ids = &to2, f1->n_called_computation_ids = 1;
	Xphlo__Instruction *f2 = mb_add(&b, 1, 2, "fusion.2", "fusion", XP_HLO_F32, 1, (int64_t[]){4});
	f2->called_computation_ids = &to1, f2->n_called_computation_ids = 1;
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "fusion.1", 8)->flops_gap, XP_HLO_COST_SHAPE);
	xp_hlo_module_free(m);
}

/* Dimensions whose product overflows and negative ones: bytes saturate, FLOPs are a gap. */
static void absurd_shapes(void)
{
	struct mb b;
	mb_init(&b, 1);
	mb_add(&b, 0, 1, "p0", "parameter", XP_HLO_F32, 3, (int64_t[]){INT64_MAX, INT64_MAX, 3});
	mb_add(&b, 0, 2, "p1", "parameter", XP_HLO_F32, 2, (int64_t[]){-5, 2});
	Xphlo__Instruction *d = mb_add(&b, 0, 3, "dot.1", "dot", XP_HLO_F32, 2, (int64_t[]){1LL << 40, 1LL << 40});
	mb_operands(d, 1, 2);
	Xphlo__DotDims dd = XPHLO__DOT_DIMS__INIT;
	int64_t lc = 0;
	dd.lhs_contracting = &lc, dd.n_lhs_contracting = 1;
	d->dot_dims = &dd;
	struct xp_hlo_module *m = mb_decode(&b);
	REQUIRE(m);
	CHECK_INT(xp_hlo_find(m, "p0", 2)->result_bytes, UINT64_MAX);
	CHECK_INT(xp_hlo_find(m, "dot.1", 5)->flops, 0);
	CHECK(xp_hlo_find(m, "dot.1", 5)->flops_gap != XP_HLO_COST_OK);
	xp_hlo_module_free(m);
}

/* Truncated protos and tuples nested past any real shape: refused with a reason, never a crash. */
static void truncated_and_deep(void)
{
	struct mb b;
	mb_init(&b, 1);
	mb_add(&b, 0, 1, "p0", "parameter", XP_HLO_F32, 2, (int64_t[]){4, 4});
	size_t len = xphlo__hlo__get_packed_size(&b.hlo);
	uint8_t *buf = malloc(len);
	xphlo__hlo__pack(&b.hlo, buf);
	struct xp_err why = {0};
	for (size_t cut = 0; cut < len; cut++) {
		struct xp_hlo_module *m = xp_hlo_decode(buf, cut, 1, &why);
		if (m) /* a cut at a field boundary may still decode; it must hold what it says */
			CHECK(m->n_instrs <= 1);
		xp_hlo_module_free(m);
	}
	why = (struct xp_err){0};
	CHECK(!xp_hlo_decode(buf, len / 2, 1, &why));
	CHECK(why.status == XP_EXIT_BAD_INPUT && strstr(why.msg, "truncated") != NULL);
	free(buf);
	/* Hlo{module{computations{instructions{shape{tuple_shapes{tuple_shapes{...}}}}}}}, 10,000 deep */
	size_t depth = 10000, n = 0;
	uint8_t *deep = malloc(depth * 8 + 64);
	size_t inner = 0;
	/* built from the inside out: each level is tag 0x22 (field 4, bytes) + a length varint */
	uint8_t *end = deep + depth * 8 + 64, *p = end;
	for (size_t i = 0; i < depth; i++) {
		uint8_t v[10];
		size_t k = 0;
		for (size_t x = inner; ; x >>= 7) {
			v[k++] = (uint8_t)((x & 0x7f) | (x >= 0x80 ? 0x80 : 0));
			if (x < 0x80)
				break;
		}
		p -= k;
		memcpy(p, v, k);
		*--p = 0x22;
		inner = (size_t)(end - p);
	}
	n = inner;
	(void)n;
	/* wrap as Instruction.shape(3) inside Computation.instructions(2) inside Module.computations(3) inside Hlo(1) */
	const uint8_t tags[] = {0x1a, 0x12, 0x1a, 0x0a};
	for (size_t t = 0; t < 4; t++) {
		uint8_t v[10];
		size_t k = 0;
		for (size_t x = inner; ; x >>= 7) {
			v[k++] = (uint8_t)((x & 0x7f) | (x >= 0x80 ? 0x80 : 0));
			if (x < 0x80)
				break;
		}
		p -= k;
		memcpy(p, v, k);
		*--p = tags[t];
		inner = (size_t)(end - p);
	}
	CHECK(!xp_hlo_decode(p, inner, 1, &why));
	free(deep);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(dot_2d), TEST(dot_batched_in_fusion), TEST(conv_valid), TEST(conv_padded), TEST(conv_strided),
		TEST(dangling_operand), TEST(cyclic_calls), TEST(absurd_shapes), TEST(truncated_and_deep),
	};
	return RUN_TESTS("test_hlo", tests);
}
