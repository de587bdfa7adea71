"""fixtures.py - the captures the html, markdown and browser suites read: generated with known truth (xpgen), and one
whose op and kernel names are hostile markup (a trace JSON made from a generated capture)."""
import json
import os
import subprocess

# Markup that would run or inject if a writer let it through; each must show as text.
HOSTILE = {
    'ampere_sgemm_32x32_sliced1x4_tn': '<script>window.__xss=1</script>sgemm',
    'MatMul': 'MatMul"><svg onload=window.__xss=2>',
    'ResourceApplyAdam': "ResourceApplyAdam'><img src=x onerror=window.__xss=3>",
    'BiasAdd': '<b>&amp;"\'</b>BiasAdd',
}


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        raise SystemExit('FAIL: %s exited %d: %s' % (' '.join(cmd), r.returncode, r.stderr.decode()[-500:]))
    return r.stdout


def generated(xpgen, d, name, *args):
    """xpgen ARGS -o d/NAME with its truth; returns (path, truth)."""
    out = os.path.join(d, name)
    truth = os.path.join(d, name + '.truth.json')
    run([xpgen, *args, '--truth', truth, '-o', out])
    with open(truth) as f:
        return out, json.load(f)


def _rename(v):
    if isinstance(v, str):
        for k, h in HOSTILE.items():
            v = v.replace(k, h)
        return v
    if isinstance(v, list):
        return [_rename(x) for x in v]
    if isinstance(v, dict):
        return {k: _rename(x) for k, x in v.items()}
    return v


def hostile(xpgen, xp2trace, d):
    """A trace JSON whose op and kernel names carry HOSTILE markup; report it with --step-marker '^train$'."""
    src, _ = generated(xpgen, d, 'plain.xplane.pb', '--variant', 'raw', '--steps', '5', '--gpus', '1', '--seed', '7')
    plain = os.path.join(d, 'plain.trace.json')
    run([xp2trace, src, plain])
    with open(plain) as f:
        doc = _rename(json.load(f))
    out = os.path.join(d, 'hostile.trace.json')
    with open(out, 'w') as f:
        json.dump(doc, f)
    return out
