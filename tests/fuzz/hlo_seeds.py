#!/usr/bin/env python3
"""hlo_seeds.py - small synthetic HloProtos for the fuzz-hlo corpus (testdata/fuzz/hlo/), built by hand here.

Usage: hlo_seeds.py OUT_DIR
A dot, a convolution with a window, a fusion calling a computation, a GEMM custom call with a JSON
backend config, nested tuple shapes, a dangling operand and two computations calling each other.
"""
import os
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7


def ld(f, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(f << 3 | 2) + varint(len(payload)) + payload


def num(f, v):
    return varint(f << 3) + varint(v)


def packed(f, vals):
    return ld(f, b"".join(varint(v) for v in vals))


def shape(t, dims, tuples=()):
    return num(2, t) + packed(3, dims) + b"".join(ld(4, s) for s in tuples)


def instr(name, op, shp, iid, operands=(), extra=b"", op_name="jit(f)/op"):
    return (ld(1, name) + ld(2, op) + ld(3, shp) + ld(7, ld(1, op.split("-")[0]) + ld(2, op_name)) + num(35, iid) +
            (packed(36, operands) if operands else b"") + extra)


def comp(cid, name, instrs):
    return ld(1, name) + b"".join(ld(2, i) for i in instrs) + num(5, cid)


def hlo(name, comps):
    return ld(1, ld(1, name) + b"".join(ld(3, c) for c in comps) + num(5, 1))


F32, BF16, TUPLE = 11, 16, 13


def seeds():
    p0 = instr("p0", "parameter", shape(F32, [64, 128]), 1)
    p1 = instr("p1", "parameter", shape(F32, [128, 32]), 2)
    dot = instr("dot.1", "dot", shape(F32, [64, 32]), 3, (1, 2), ld(30, packed(1, [1]) + packed(2, [0])))
    yield "dot", hlo("m_dot", [comp(1, "main", [p0, p1, dot])])
    x = instr("x", "parameter", shape(F32, [2, 3, 8, 8]), 1)
    k = instr("k", "parameter", shape(F32, [4, 3, 3, 3]), 2)
    wd = num(1, 3) + num(2, 1) + num(3, 1) + num(4, 1) + num(5, 1) + num(6, 1)
    cd = num(3, 1) + num(4, 0) + packed(6, [2, 3]) + num(7, 0) + num(8, 1) + num(9, 0) + num(10, 1) + \
        packed(11, [2, 3]) + packed(12, [2, 3])
    conv = instr("convolution.1", "convolution", shape(F32, [2, 4, 8, 8]), 3, (1, 2),
                 ld(15, ld(1, wd) + ld(1, wd)) + ld(16, cd))
    yield "conv", hlo("m_conv", [comp(1, "main", [x, k, conv])])
    fused = comp(2, "fused", [p0, p1, dot])
    fusion = instr("fusion.3", "fusion", shape(F32, [64, 32]), 13, (11, 12), ld(11, "kOutput") + packed(38, [2]))
    outer = comp(1, "main", [instr("a", "parameter", shape(F32, [64, 128]), 11),
                             instr("b", "parameter", shape(F32, [128, 32]), 12), fusion])
    yield "fusion", hlo("m_fusion", [fused, outer])
    cfg = ('{"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],'
           '"rhs_contracting_dimensions":["0"]}}}')
    gemm = instr("custom-call.1", "custom-call", shape(TUPLE, [], [shape(BF16, [64, 32]), shape(6, [1024])]), 3,
                 (1, 2), ld(28, "__cublas$lt$matmul") + ld(43, cfg))
    yield "gemm_call", hlo("m_gemm", [comp(1, "main", [p0, p1, gemm])])
    nested = shape(F32, [4])
    for _ in range(20):
        nested = shape(TUPLE, [], [nested, shape(BF16, [2, 2])])
    yield "tuples", hlo("m_tuple", [comp(1, "main", [instr("t", "tuple", nested, 1)])])
    yield "dangling", hlo("m_dangle", [comp(1, "main", [p0, instr("dot.2", "dot", shape(F32, [4]), 3, (99, 1))])])
    f1 = instr("fusion.1", "fusion", shape(F32, [4]), 1, (), packed(38, [2]))
    f2 = instr("fusion.2", "fusion", shape(F32, [4]), 2, (), packed(38, [1]))
    yield "cycle", hlo("m_cycle", [comp(1, "a", [f1]), comp(2, "b", [f2])])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
