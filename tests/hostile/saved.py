"""saved.py - saved xpstat JSON documents for the hostile suite: reports with n ops, and the growth cases over them."""
import json
import os


def section(command, tables, summary=None):
    return {'schema_version': 1, 'command': command, 'verdict': '', 'summary': summary or {}, 'tables': tables,
            'diagnostics': []}


def tf_stats_row(i, side, name, self_us):
    return {'rank': i + 1, 'host_or_device': side, 'op_type': 'Op%d' % (i % 7), 'op_name': name,
            'hlo_module': None, 'occurrences': 1 + i % 3, 'total_time_us': self_us, 'total_self_time_us': self_us}


def steps_rows(n, step_us=1000.0):
    return [{'host': 'h', 'combined_step': k, 'step': k, 'step_name': 'train %d' % k, 'start_ms': k * 2.0,
             'step_time_ms': step_us / 1000 + k * 0.001, 'device_compute_ms': 0.5, 'input_ms': 0.1}
            for k in range(n)]


def report(n_ops, seed=0, steps=12):
    """A saved report: n_ops device and host ops in tf_stats, and a few steps."""
    rows = [tf_stats_row(i, 'Device' if i % 2 else 'Host', 'op/%d' % i, 1.0 + (i * 7 + seed) % 13)
            for i in range(n_ops)]
    return {'schema_version': 1, 'command': 'report', 'verdict': '', 'inputs': [],
            'reports': {'steps': section('steps', {'steps': steps_rows(steps, 1000.0 + seed)}),
                        'tf_stats': section('tf_stats', {'tf_stats': rows})}}


def write(path, doc):
    with open(path, 'w') as f:
        json.dump(doc, f)
    return path


def two_reports(n, d):
    return [write(os.path.join(d, 'base.json'), report(n, 0)), write(os.path.join(d, 'cand.json'), report(n, 3))]


def compare_ops(n, d):
    return two_reports(n, d)


def check_ops(n, d):
    b, c = two_reports(n, d)
    return ['--baseline', b, c]


def wide_rows(n, d):
    """n rows of a table with 8 keys each, in a different order in every row."""
    keys = ['k%d' % j for j in range(8)]
    rows = []
    for i in range(n):
        order = keys[i % 8:] + keys[:i % 8]
        rows.append({k: i for k in order})
    doc = report(4)
    doc['reports']['tf_stats']['tables']['extra'] = rows
    p = write(os.path.join(d, 'wide.json'), doc)
    return [p, p]


def sparse_rows(n, d):
    """A first row of n keys, then n rows of one key each: a grid of every row by every key would be n^2 cells."""
    doc = report(4)
    doc['reports']['tf_stats']['tables']['extra'] = [{'k%d' % j: 1 for j in range(n)}] + [{'k%d' % i: 1}
                                                                                         for i in range(n)]
    p = write(os.path.join(d, 'sparse.json'), doc)
    return [p, p]


def distinct_keys(n, d):
    """n rows, each with a key of its own."""
    doc = report(4)
    doc['reports']['tf_stats']['tables']['extra'] = [{'k%d' % i: i, 'v': 1} for i in range(n)]
    p = write(os.path.join(d, 'distinct.json'), doc)
    return [p, p]


GROWTH_CASES = [
    ('saved-compare-ops', compare_ops, ['compare'], 'match', 20000),
    ('saved-check-ops', check_ops, ['check'], 'match', 20000),
    ('saved-read-rows', wide_rows, ['compare'], 'saved', 20000),
    ('saved-read-sparse', sparse_rows, ['compare'], 'saved', 10000),
    ('saved-read-distinct-keys', distinct_keys, ['compare'], 'saved', 20000),
]
