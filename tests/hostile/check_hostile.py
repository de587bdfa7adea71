#!/usr/bin/env python3
"""check_hostile.py - the catalogue of hostile inputs, each class a small generated input with its stated outcome:
'ok' (read; info and report exit 0, what info must count in its completeness report), or 'bad' (one-line error,
exit 3, nothing written). For every class: no control character from the input in any output or message, no file
left next to the -o target, and (in the sanitizer build) no undefined behaviour: that exits 1."""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402
import saved  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz'))
import hlo_seeds as hs  # noqa: E402  (the HloProto encoder of the fuzz-hlo seeds)

XPSTAT = os.path.abspath(sys.argv[1])
I64_MAX, I64_MIN, I32_MAX, I32_MIN = 2**63 - 1, -2**63, 2**31 - 1, -2**31
# What a terminal acts on: C0 but newline and tab (JSON's indentation; a tab from the input is escaped), DEL, C1 (UTF-8 C2 80..9F), bidi overrides/isolates, and a raw ESC.
CONTROL = re.compile(rb'[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]')
NASTY = ['op\x1b[31mred', 'osc\x1b]0;title\x07', 'c1\u009b2J', 'bidi\u202etxt.exe', 'nl\nsecond', 'cr\rback',
         'nul\x00cut', '=cmd|calc', '+SUM(1)', '-1+2', '@x', '<b>&amp;"\'</b>']


def xs_file(d, planes, name='h.xplane.pb', **kw):
    p = os.path.join(d, name)
    with open(p, 'wb') as f:
        f.write(wire.xspace(planes, **kw))
    return p


def host_plane(events, metas, line_ts=1000, lines=None, stat_metas=(), stats=()):
    lines = lines if lines is not None else [wire.line(1, 'python', line_ts, events)]
    return wire.plane(1, '/host:CPU', lines=lines, event_metas=metas, stat_metas=stat_metas, stats=stats)


def int_extremes(d):
    offs = [0, 1, -1, I32_MAX, I32_MIN, I64_MAX, I64_MIN, 2**53 + 1]
    evs = [wire.event(1, o, abs(o) % 1000) for o in offs] + [wire.event(1, 5, v) for v in (I64_MAX, I32_MAX, 2**62)]
    return [xs_file(d, [host_plane(evs, [(1, 'op')])])]


def offset_min(d):
    return [xs_file(d, [host_plane([wire.event(1, I64_MIN, 5), wire.event(1, 10, 5)], [(1, 'op')])])]


def line_ts_overflow(d):
    """timestamp_ns that overflows when scaled to picoseconds."""
    lines = [wire.line(1, 'a', I64_MAX, [wire.event(1, 1, 1)]), wire.line(2, 'b', I64_MIN, [wire.event(1, 1, 1)]),
             wire.line(3, 'c', 2**53, [wire.event(1, 1, 1)])]
    return [xs_file(d, [host_plane(None, [(1, 'op')], lines=lines)])]


def negative_durations(d):
    return [xs_file(d, [host_plane([wire.event(1, 10, -1), wire.event(1, 20, I64_MIN)], [(1, 'op')])])]


def out_of_order(d):
    return [xs_file(d, [host_plane([wire.event(1, t, 3) for t in (900, 5, 400, 5, 1)], [(1, 'op')])])]


def dangling_ids(d):
    ev = [wire.event(77, 1, 1, [wire.stat(99, 5), wire.stat(1, ('ref', 12345))]), wire.event(1, 2, 1)]
    return [xs_file(d, [host_plane(ev, [(1, 'op')], stat_metas=[(1, 'step_num')])])]


def colliding_ids(d):
    lines = [wire.line(7, 'same', 1, [wire.event(1, 1, 1)]), wire.line(7, 'same', 1, [wire.event(2, 1, 1)])]
    pl = wire.plane(1, '/host:CPU', lines=lines, event_metas=[(1, 'a'), (1, 'b'), (2, 'c')])
    return [xs_file(d, [pl, pl])]


def nasty_names(d, extra_planes=()):
    metas = [(i + 1, n) for i, n in enumerate(NASTY)]
    evs = [wire.event(i + 1, 10 * i, 5) for i in range(len(NASTY))]
    lines = [wire.line(i + 1, n, 1000, evs) for i, n in enumerate(NASTY[:4])]
    pl = wire.plane(1, '/host:CPU', lines=lines, event_metas=metas)
    return [xs_file(d, [pl] + [wire.plane(2 + i, n) for i, n in enumerate(NASTY)], hostnames=['host\x1b[2J\u202e'],
                    errors=['err\x1b]8;;x\x07'], warnings=['w\u009bq'])]


def invalid_utf8(d):
    bad = [b'\xff\xfe', b'a\xc0\xafb', b'\xed\xa0\x80', b'\xf4\x90\x80\x80', b'\xe2\x80', b'\xc2']
    metas = [(i + 1, b) for i, b in enumerate(bad)]
    evs = [wire.event(i + 1, i, 1) for i in range(len(bad))]
    return [xs_file(d, [host_plane(evs, metas)], name='u.xplane.pb', hostnames=[b'h\xff\x9b'])]


def hostile_doubles(d):
    """NaN, +-inf, denormals, 1e308, -0 as event and GPU device stats (compute capability, peaks)."""
    vals = [float('nan'), float('inf'), -float('inf'), 5e-324, 1e308, -0.0, 1e300]
    names = ['compute_cap_major', 'compute_cap_minor', 'peak_teraflops_per_second', 'clock_rate', 'core_count',
             'memory_bandwidth', 'peak_sram_rd_bw_gigabytes_per_second']
    sm = [(i + 1, n) for i, n in enumerate(names)]
    st = [wire.stat(i + 1, vals[i % len(vals)]) for i in range(len(names))]
    k = [wire.event(1, 10, 100, [wire.stat(1, v) for v in vals])]
    gpu = wire.plane(2, '/device:GPU:0', lines=[wire.line(1, 'stream 1', 1000, k)], event_metas=[(1, 'kern')],
                     stat_metas=sm, stats=st)
    host = host_plane([wire.event(1, 1, 1, [wire.stat(1, v) for v in vals])], [(1, 'op')], stat_metas=sm)
    return [xs_file(d, [host, gpu])]


def many_planes(d):
    return [xs_file(d, [wire.plane(i, '/device:CUSTOM:%d' % (i % 1000)) for i in range(100000)])]


def many_lines(d):
    lines = [wire.line(i, 'l%d' % i, 1000, [wire.event(1, i, 1)]) for i in range(100000)]
    return [xs_file(d, [host_plane(None, [(1, 'op')], lines=lines)])]


def many_steps(d):
    """100,000 step markers (TF's _r=1 with a step_num), each its own step."""
    evs = [wire.event(1, i * 1000, 900, [wire.stat(1, i), wire.stat(2, 1)]) for i in range(100000)]
    pl = wire.plane(1, '/host:CPU', lines=[wire.line(1, 'python', 1000, evs)], event_metas=[(1, 'train')],
                    stat_metas=[(1, 'step_num'), (2, '_r')])
    return [xs_file(d, [pl])]


def many_hosts(d):
    """A run directory of 1,000 hosts, one file each."""
    run = os.path.join(d, 'run')
    os.mkdir(run)
    data = wire.xspace([host_plane([wire.event(1, 1, 1)], [(1, 'op')])])
    for h in range(1000):
        with open(os.path.join(run, 'host%04d.xplane.pb' % h), 'wb') as f:
            f.write(data)
    return [run]


def xs_truncated(d):
    data = wire.xspace([host_plane([wire.event(1, 1, 1)] * 50, [(1, 'op')])])
    p = os.path.join(d, 't.xplane.pb')
    with open(p, 'wb') as f:
        f.write(data[:len(data) * 2 // 3])
    return [p]


def xs_length_past_end(d):
    p = os.path.join(d, 'l.xplane.pb')
    with open(p, 'wb') as f:
        f.write(b'\x0a\xff\xff\xff\xff\x0f' + b'\x00' * 10)
    return [p]


def hlo_file(d, progs, ops, numbered=False, op_stat='hlo_op'):
    """A JAX GPU capture: /host:metadata with one event metadata entry per (program id, Hlo Proto stat value:
    bytes, or a str for a stat that is not bytes), and a GPU plane with one kernel per (program id, HLO op)
    carrying hlo_module/hlo_op/program_id, so the analyses resolve them through the HLO."""
    metas = [(pid, 'jit_f(%d)' % pid, [wire.stat(1, v if isinstance(v, str) else ('bytes', v))]) for pid, v in progs]
    if numbered:
        # JAX 0.5 and later: entries numbered 1, 2, ..., the program id in a program_id stat
        metas = [(k + 1, n, st + [wire.stat(2, pid)]) for k, (pid, n, st) in enumerate(metas)]
    meta = wire.plane(3, '/host:metadata', event_metas=metas, stat_metas=[(1, 'Hlo Proto'), (2, 'program_id')])
    evs = [wire.event(1 + i, 1000 * i, 800, [wire.stat(1, 'jit_f'), wire.stat(2, op), wire.stat(3, pid)])
           for i, (pid, op) in enumerate(ops)]
    gpu = wire.plane(2, '/device:GPU:0', lines=[wire.line(1, 'stream 1', 1000, evs)],
                     event_metas=[(1 + i, 'kernel_%d' % i) for i in range(len(ops))],
                     stat_metas=[(1, 'hlo_module'), (2, op_stat), (3, 'program_id')])
    return [xs_file(d, [gpu, meta])]


F32 = hs.F32
DOT_DIMS = hs.ld(30, hs.packed(1, [1]) + hs.packed(2, [0]))


def param(iid, dims):
    return hs.instr('p%d' % iid, 'parameter', hs.shape(F32, dims), iid)


def fusion(name, iid, called, operands=()):
    return hs.instr(name, 'fusion', hs.shape(F32, [4]), iid, operands, hs.ld(11, 'kLoop') + hs.packed(38, called))


def hlo_dangling_operands(d):
    """Operand ids and a called computation id that point nowhere (past the end, negative, INT64_MAX, itself)."""
    dot = hs.instr('dot.1', 'dot', hs.shape(F32, [64, 32]), 3, (99, -1, I64_MAX), DOT_DIMS)
    add = hs.instr('add.5', 'add', hs.shape(F32, [4]), 5, (5, 5, I64_MIN))
    main = hs.comp(1, 'main', [param(1, [64, 128]), dot, add, fusion('fusion.1', 4, [999, -7], (1, 12345))])
    return hlo_file(d, [(7, hs.hlo('jit_f', [main]))], [(7, 'dot.1'), (7, 'fusion.1'), (7, 'add.5')])


def hlo_cyclic_calls(d):
    """A fusion calling a computation (with a dot) whose fusion calls back, and a computation calling itself."""
    main = hs.comp(1, 'main', [param(1, [64, 128]), fusion('fusion.1', 2, [2], (1,))])
    fused = hs.comp(2, 'fused', [param(11, [64, 128]), param(12, [128, 32]),
                                 hs.instr('dot.1', 'dot', hs.shape(F32, [64, 32]), 13, (11, 12), DOT_DIMS),
                                 fusion('fusion.2', 14, [1], (13,))])
    selfc = hs.comp(3, 'self', [fusion('fusion.3', 21, [3, 3, 2])])
    ops = [(7, 'fusion.1'), (7, 'fusion.2'), (7, 'fusion.3'), (7, 'dot.1')]
    return hlo_file(d, [(7, hs.hlo('jit_f', [main, fused, selfc]))], ops)


def hlo_absurd_shapes(d):
    """Dimensions whose product overflows int64, negative and INT64_MIN dimensions, a dot and a convolution over
    them, 5,000 dimensions, an element type past the enum."""
    big = 2**62
    ins = [param(1, [big, 2**40]), param(2, [2**40, big]),
           hs.instr('dot.big', 'dot', hs.shape(F32, [big, big, 16]), 3, (1, 2), DOT_DIMS),
           hs.instr('neg', 'add', hs.shape(F32, [-1, I64_MIN, 3]), 4, (1, 2)),
           hs.instr('dot.neg', 'dot', hs.shape(F32, [-5, 3]), 5, (4, 4), DOT_DIMS),
           hs.instr('wide', 'add', hs.shape(F32, [2] * 5000), 6),
           hs.instr('etype', 'add', hs.shape(99999, [I64_MAX]), 7, (6,))]
    x = param(11, [big, 3, big, 8])
    k = param(12, [big, 3, 3, big])
    wd = hs.num(1, big) + hs.num(2, 1) + hs.num(3, I64_MAX) + hs.num(4, -1) + hs.num(5, 1) + hs.num(6, 0)
    cd = hs.num(3, 1) + hs.num(4, 0) + hs.packed(6, [2, 3]) + hs.num(7, 0) + hs.num(8, 1) + hs.num(9, 0) + \
        hs.num(10, 1) + hs.packed(11, [2, 3]) + hs.packed(12, [2, 3])
    conv = hs.instr('convolution.1', 'convolution', hs.shape(F32, [big, big, big, 8]), 13, (11, 12),
                    hs.ld(15, hs.ld(1, wd) + hs.ld(1, wd)) + hs.ld(16, cd))
    main = hs.comp(1, 'main', ins + [x, k, conv])
    ops = [(7, n) for n in ('dot.big', 'neg', 'dot.neg', 'wide', 'etype', 'convolution.1')]
    return hlo_file(d, [(7, hs.hlo('jit_f', [main]))], ops)


def hlo_huge_repeated(d):
    """100,000 instructions in one computation, one with 100,000 operands, a fusion calling 100,000 computation
    ids, and a chain of 20,000 computations each calling the next."""
    n, s4 = 100000, hs.shape(F32, [4])
    ins = [hs.instr('add.%d' % i, 'add', s4, i + 1, (i,) if i else ()) for i in range(n)]
    ins.append(hs.instr('concatenate.1', 'concatenate', hs.shape(F32, [4 * n]), n + 1, range(1, n + 1)))
    ins.append(fusion('fusion.wide', n + 2, range(2, n + 2)))
    chain = [hs.comp(2 + j, 'c%d' % j, [fusion('fusion.c%d' % j, n + 10 + j, [3 + j])]) for j in range(20000)]
    ops = [(7, 'add.0'), (7, 'add.99999'), (7, 'concatenate.1'), (7, 'fusion.wide'), (7, 'fusion.c0')]
    return hlo_file(d, [(7, hs.hlo('jit_f', [hs.comp(1, 'main', ins)] + chain))], ops)


def hlo_unreadable(d):
    """One good program, one cut in half, one garbage, one whose Hlo Proto stat is a string, not bytes."""
    main = hs.comp(1, 'main', [param(1, [64, 128]), param(2, [128, 32]),
                               hs.instr('dot.1', 'dot', hs.shape(F32, [64, 32]), 3, (1, 2), DOT_DIMS)])
    good = hs.hlo('jit_f', [main])
    progs = [(5, good), (6, good[:len(good) // 2]), (7, b'\x0a\xff\xff\xff\xff\x0f' + b'\xff' * 40), (8, 'text')]
    return hlo_file(d, progs, [(p, 'dot.1') for p in (5, 6, 7, 8)])


def hlo_unreadable_tf_kernels(d):
    """HLO protos that do not decode on a host whose kernels are TensorFlow's (tf_op, no hlo_op stat at all): info
    reads the protos alone there, and must still say that they do not decode."""
    progs = [(6, b'\x0a\xff\xff\xff\xff\x0f' + b'\xff' * 40), (8, 'text')]
    return hlo_file(d, progs, [(6, 'MatMul'), (8, 'Relu')], op_stat='tf_op')


def hlo_program_id_stat(d):
    """Two compilations of jit_f (ids 100 and 200, different shapes) in entries numbered 1 and 2: each event
    resolves by its program id to its own program, with that program's FLOPs, not ambiguously by name."""
    def prog(n):
        return hs.hlo('jit_f', [hs.comp(1, 'main', [param(1, [64, 128]), param(2, [128, n]),
                                                   hs.instr('dot.1', 'dot', hs.shape(F32, [64, n]), 3, (1, 2),
                                                            DOT_DIMS)])])
    return hlo_file(d, [(100, prog(32)), (200, prog(16))], [(200, 'dot.1'), (100, 'dot.1')], numbered=True)


def tj_file(d, doc, name='t.trace.json', raw=None):
    p = os.path.join(d, name)
    with open(p, 'wb') as f:
        f.write(raw if raw is not None else json.dumps(doc).encode())
    return p


def X(pid, tid, ts, dur, name='op', **kw):
    return dict(ph='X', pid=pid, tid=tid, ts=ts, dur=dur, name=name, **kw)


def tj_ids(d):
    evs = [X(I64_MAX, I64_MAX, 1, 1), X(I64_MIN, I64_MIN, 2, 1), X(0, -1, 3, 1), X(2**64 - 1, 2**64, 4, 1),
           dict(ph='M', name='process_name', pid=I64_MAX, args=dict(name='p')),
           dict(ph='C', name='ctr', pid=I64_MAX, tid=1, ts=5, args=dict(v=1)),
           dict(ph='b', name='as', cat='c', id=I64_MAX, pid=I64_MAX, tid=I64_MAX, ts=6)]
    return [tj_file(d, dict(traceEvents=evs))]


def tj_times(d):
    raw = (b'{"traceEvents":[' + b','.join(
        b'{"ph":"X","pid":1,"tid":1,"ts":%s,"dur":%s,"name":"t"}' % (t, u) for t, u in
        [(b'1e308', b'1'), (b'-1e308', b'1'), (b'4.9e-324', b'1e-320'), (b'-0', b'-0'), (b'9223372036854775807', b'1'),
         (b'-9223372036854775808', b'9223372036854775807'), (b'1', b'-5'), (b'3', b'1e300'), (b'2', b'-1e300')])
        + b']}')
    return [tj_file(d, None, raw=raw)]


def tj_nasty_names(d):
    evs = [X(1, 1, i, 1, name=n, cat=n, args={n: n}) for i, n in enumerate(NASTY)]
    evs += [dict(ph='M', name='process_name', pid=1, args=dict(name=NASTY[0])),
            dict(ph='M', name='thread_name', pid=1, tid=1, args=dict(name=NASTY[1]))]
    return [tj_file(d, dict(traceEvents=evs, host_name=NASTY[3]))]


def tj_invalid_utf8(d):
    raw = b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a\xff\xc0\x80\xed\xa0\x80b"}]}'
    return [tj_file(d, None, raw=raw)]


def tj_deep(d):
    raw = b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":' + b'[' * 100000 + b']' * 100000 + b'}]}'
    return [tj_file(d, None, raw=raw)]


def tj_many_threads(d):
    return [tj_file(d, dict(traceEvents=[X(1 + i % 7, i, i, 1) for i in range(100000)]))]


def tj_syntax(d):
    return [tj_file(d, None, raw=b'{"traceEvents":[{"ph":"X","pid":1,,}]}')]


def tj_control_raw(d):
    return [tj_file(d, None, raw=b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a\x1b[31m"}]}')]


def gz_blanks(d):
    p = os.path.join(d, 'b.trace.json.gz')
    with gzip.open(p, 'wb') as f:
        f.write(b'{"traceEvents":[' + b' ' * (8 << 20) + json.dumps(X(1, 1, 1, 1)).encode() + b']}')
    return [p]


def zst_long_element(d):
    p = os.path.join(d, 'l.trace.json.zst')
    body = b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"' + b'n' * (4 << 20) + b'"}]}'
    subprocess.run(['zstd', '-q', '-f', '-o', p], input=body, check=True)
    return [p]


def gz_truncated(d):
    p = os.path.join(d, 't.trace.json.gz')
    data = gzip.compress(json.dumps(dict(traceEvents=[X(1, 1, i, 1) for i in range(2000)])).encode())
    with open(p, 'wb') as f:
        f.write(data[:len(data) // 2])
    return [p]


def zst_trailing_garbage(d):
    p = os.path.join(d, 'g.trace.json.zst')
    r = subprocess.run(['zstd', '-q', '-c'], input=json.dumps(dict(traceEvents=[X(1, 1, 1, 1)])).encode(),
                       stdout=subprocess.PIPE, check=True)
    with open(p, 'wb') as f:
        f.write(r.stdout + b'garbage!')
    return [p]


def gz_bomb(d):
    p = os.path.join(d, 'bomb.trace.json.gz')
    with gzip.open(p, 'wb') as f:
        f.write(b'{"traceEvents":[' + b' ' * (64 << 20) + b']}')
    return ['--max-input-bytes', '1000000', p]


def xs_gz_named_pb(d):
    p = os.path.join(d, 'z.xplane.pb')
    with open(p, 'wb') as f:
        f.write(gzip.compress(wire.xspace([host_plane([wire.event(1, 1, 1)], [(1, 'op')])])))
    return [p]


def sv(d, doc, name='s.json'):
    return [saved.write(os.path.join(d, name), doc)] * 2


def saved_doc(**sec):
    return {'schema_version': 1, 'command': 'steps', 'summary': {}, 'tables': {}, 'diagnostics': [], **sec}


SAVED_BAD = {
    'saved-grid': lambda d: sv(d, saved_doc(tables={'x': [{'k%d' % i: 1} for i in range(3000)]})),
    'saved-reports-garbage': lambda d: sv(d, {'schema_version': 1, 'command': 'report', 'reports': 'garbage'}),
    'saved-cell-array': lambda d: sv(d, saved_doc(tables={'steps': [{'a': [1, 2]}]})),
    'saved-cell-object': lambda d: sv(d, saved_doc(tables={'steps': [{'a': {'b': 1}}]})),
    'saved-table-object': lambda d: sv(d, saved_doc(tables={'steps': {'a': 1}})),
    'saved-mixed-column': lambda d: sv(d, saved_doc(tables={'steps': [{'a': 1}, {'a': True}]})),
    'saved-huge-numbers': lambda d: sv(d, saved_doc(summary={'peak_bytes': 1e300})),
    'saved-int64-overflow': lambda d: sv(d, saved_doc(tables={'steps': [{'step_time_ms': 2**63}]})),
    'saved-not-object': lambda d: sv(d, [1, 2]),
    'saved-escape-key': lambda d: sv(d, saved_doc(tables={'steps': [{'a\x1b[31m\u202e': [1]}]})),
}


def saved_nasty_ok(d):
    doc = saved.report(50)
    for row in doc['reports']['tf_stats']['tables']['tf_stats']:
        row['op_name'] = NASTY[row['rank'] % len(NASTY)] + str(row['rank'])
    return [saved.write(os.path.join(d, 'a.json'), doc), saved.write(os.path.join(d, 'b.json'), saved.report(50, 3))]


def saved_saturated(d):
    """Times at int64's ends, as report writes them for a capture whose clock jumped: read, compared."""
    docs = [saved.report(20), saved.report(20, 3)]
    for k, doc in enumerate(docs):
        for i, row in enumerate(doc['reports']['steps']['tables']['steps']):
            row['step_time_ms'] = 9223372036.854775807 if (i + k) % 2 else -9223372036.854775808
        for row in doc['reports']['tf_stats']['tables']['tf_stats']:
            row['total_self_time_us'] = row['total_time_us'] = 9223372036854.775807
    return [saved.write(os.path.join(d, n), doc) for n, doc in zip(('a.json', 'b.json'), docs)]


def saved_many_ops(d):
    return [saved.write(os.path.join(d, 'a.json'), saved.report(100000)),
            saved.write(os.path.join(d, 'b.json'), saved.report(100000, 3))]


# name, generator, outcome ('ok' / 'bad'), what info must say for 'ok' (a regular expression, or None)
XS = [
    ('xs-int-extremes', int_extremes, 'ok', rb'overflow 64-bit picoseconds'),
    ('xs-offset-min', offset_min, 'ok', rb'Time span: +9223372 s'),
    ('xs-line-timestamp-overflow', line_ts_overflow, 'ok', rb'overflow 64-bit picoseconds'),
    ('xs-negative-durations', negative_durations, 'ok', rb'2 events with a negative duration'),
    ('xs-out-of-order', out_of_order, 'ok', rb'1 lines whose events are not in start order'),
    ('xs-dangling-ids', dangling_ids, 'ok', None),
    ('xs-colliding-ids', colliding_ids, 'ok', rb'Planes: +2'),
    ('xs-nasty-names', nasty_names, 'ok', rb'Planes: +13'),
    ('xs-invalid-utf8', invalid_utf8, 'ok', None),
    ('xs-hostile-doubles', hostile_doubles, 'ok', rb'GPUs with events: 1'),
    ('xs-many-planes', many_planes, 'ok', rb'Planes: +100000'),
    ('xs-many-lines', many_lines, 'ok', rb'Events: +100000'),
    ('xs-gz-named-pb', xs_gz_named_pb, 'ok', rb'Events: +1'),
    ('xs-many-steps', many_steps, 'ok', rb'Step markers: +yes'),
    ('xs-many-hosts', many_hosts, 'ok', rb'Hosts: +1000'),
    ('xs-truncated', xs_truncated, 'bad', None),
    ('xs-length-past-end', xs_length_past_end, 'bad', None),
    ('hlo-dangling-operands', hlo_dangling_operands, 'ok', rb'3 of 3 XLA device events resolved'),
    ('hlo-cyclic-calls', hlo_cyclic_calls, 'ok', rb'4 of 4 XLA device events resolved'),
    ('hlo-absurd-shapes', hlo_absurd_shapes, 'ok', rb'6 of 6 XLA device events resolved'),
    ('hlo-huge-repeated', hlo_huge_repeated, 'ok', rb'5 of 5 XLA device events resolved'),
    ('hlo-program-id-stat', hlo_program_id_stat, 'ok', rb'2 of 2 XLA device events resolved'),
    ('hlo-unreadable', hlo_unreadable, 'ok', rb'(?s)1 of 4 XLA device events resolved.*3 HLO protos of \S+ do not decode'),
    ('hlo-unreadable-tf-kernels', hlo_unreadable_tf_kernels, 'ok',
     rb'(?s)0 of 0 XLA device events resolved.*2 HLO protos of \S+ do not decode'),
    ('tj-extreme-ids', tj_ids, 'ok', None),
    ('tj-extreme-times', tj_times, 'bad', None),
    ('tj-nasty-names', tj_nasty_names, 'ok', None),
    ('tj-invalid-utf8', tj_invalid_utf8, 'bad', None),
    ('tj-deep-nesting', tj_deep, 'bad', None),
    ('tj-many-threads', tj_many_threads, 'ok', rb'100000 complete'),
    ('tj-syntax', tj_syntax, 'bad', None),
    ('tj-raw-control', tj_control_raw, 'bad', None),
    ('gz-blank-run', gz_blanks, 'ok', rb'1 complete'),
    ('zst-long-element', zst_long_element, 'ok', rb'1 complete'),
    ('gz-truncated', gz_truncated, 'bad', None),
    ('zst-trailing-garbage', zst_trailing_garbage, 'bad', None),
    ('gz-bomb', gz_bomb, 'bad', None),
]
SAVED = [(n, g, 'bad', None) for n, g in SAVED_BAD.items()] + [
    ('saved-nasty-names', saved_nasty_ok, 'ok', None),
    ('saved-many-ops', saved_many_ops, 'ok', None),
    ('saved-saturated-times', saved_saturated, 'ok', None),
]


def hlo_rows_no_cost(rows):
    """Shapes that overflow or are negative give no bytes (null), never a saturated count."""
    return ['%s: bytes %r, GiB/s %r' % (r['hlo_op'], r['bytes_accessed'], r['memory_bandwidth_gib_per_s'])
            for r in rows if r['bytes_accessed'] is not None or r['memory_bandwidth_gib_per_s'] is not None]


def hlo_rows_dot_kept(rows):
    """The dot inside the cycle keeps its FLOPs (2*64*32*128)."""
    dots = [r for r in rows if r['hlo_op'] == 'dot.1']
    return [] if len(dots) == 1 and dots[0]['flops'] == 524288 else ['dot.1: %r' % dots]


# What `tf-stats --table hlo_ops --format json` must say of the HLO classes' rows: a list of problems.
def hlo_rows_by_program(rows):
    """Each compilation's dot keeps its own FLOPs: 2*64*32*128 and 2*64*16*128."""
    flops = sorted(r['flops'] or 0 for r in rows if r['hlo_op'] == 'dot.1')
    return [] if flops == [262144, 524288] else ['dot.1 FLOPs %r' % flops]


HLO_OPS = {'hlo-absurd-shapes': hlo_rows_no_cost, 'hlo-cyclic-calls': hlo_rows_dot_kept,
           'hlo-program-id-stat': hlo_rows_by_program}


def run(args, cwd):
    r = subprocess.run([XPSTAT] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return r.returncode, r.stdout, r.stderr


def baseline_problems(inputs, out):
    """What report writes of a capture it reads is a baseline: check against it makes a verdict."""
    base = os.path.join(out, 'base.json')
    rc, _, se = run(['report', '--format', 'json', '-o', base] + inputs, out)
    if rc != 0:
        return ['report -o base.json: exit %d: %r' % (rc, se[-300:])]
    rc, so, se = run(['check', '--baseline', base] + inputs, out)
    os.unlink(base)
    # pass, fail, or unusable (no steps to test): a verdict either way; a baseline refused is none
    if rc in (0, 1) or (rc == 3 and so.startswith(b'UNUSABLE')):
        return []
    return ['check --baseline (its own report): exit %d: %r' % (rc, se[-300:])]


def problems(name, outcome, expect, inputs, out, saved_case):
    bad = []
    cmds = [['compare'] + inputs] if saved_case else [['info'] + inputs, ['report'] + inputs]
    for k, cmd in enumerate(cmds):
        for fmt in (['--format', 'text'], ['--format', 'json']) if k == 0 else (['--format', 'text'],):
            target = os.path.join(out, 'r%d.out' % k)
            rc, so, se = run(cmd + fmt + ['-o', target], out)
            rc2, so2, se2 = run(cmd + fmt, out)
            written = open(target, 'rb').read() if os.path.exists(target) else b''
            for what, text in (('stdout', so2), ('stderr', se + se2), ('-o file', written)):
                m = CONTROL.search(text)
                if m:
                    bad.append('%s %s: control byte %r in %s' % (' '.join(cmd[:1]), fmt[1], m.group(), what))
            if outcome == 'bad':
                if rc != 3 or rc2 != 3:
                    bad.append('%s: exit %d/%d, want 3' % (cmd[0], rc, rc2))
                if len(se.splitlines()) != 1 or not se.startswith(b'xpstat: '):
                    bad.append('%s: want one error line, got %r' % (cmd[0], se[:300]))
                if os.path.exists(target):
                    bad.append('%s: %s written on an error' % (cmd[0], target))
            elif rc not in (0, 1) or rc2 not in (0, 1) or (not saved_case and (rc, rc2) != (0, 0)):
                bad.append('%s: exit %d/%d: %r' % (cmd[0], rc, rc2, se[-300:]))
            if k == 0 and fmt[1] == 'text' and expect and outcome == 'ok' and not re.search(expect, so2):
                bad.append('info does not say %r' % expect)
            if os.path.exists(target):
                os.unlink(target)
            left = os.listdir(out)
            if left:
                bad.append('%s left %s' % (cmd[0], left))
    if outcome == 'ok' and not saved_case:
        bad += baseline_problems(inputs, out)
    if name in HLO_OPS:
        rc, so, se = run(['tf-stats', '--table', 'hlo_ops', '--format', 'json'] + inputs, out)
        rows = json.loads(so)['tables']['hlo_ops'] if rc == 0 else []
        bad += ['tf-stats: exit %d' % rc] * (rc != 0) + ['hlo_ops ' + b for b in HLO_OPS[name](rows)]
    return bad


def main():
    only = sys.argv[2:]
    n_bad = 0
    cases = [(c, False) for c in XS] + [(c, True) for c in SAVED]
    for (name, gen, outcome, expect), saved_case in cases:
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as d:
            ind, out = os.path.join(d, 'in'), os.path.join(d, 'out')
            os.mkdir(ind)
            os.mkdir(out)
            inputs = gen(ind)
            bad = problems(name, outcome, expect, inputs, out, saved_case)
        print('%s %s (%s)%s' % ('FAIL' if bad else 'ok', name, outcome, ''.join('\n  ' + b for b in bad)))
        n_bad += bool(bad)
    print('%d classes, %d failed' % (len(cases) if not only else len(only), n_bad))
    return 1 if n_bad else 0


if __name__ == '__main__':
    sys.exit(main())
