#!/usr/bin/env python3
"""hlo_corpus.py - the Hlo Proto stats of the real captures as a fuzz corpus, made at test time; replays it.

Usage: hlo_corpus.py REAL_DIR OUT_DIR FUZZ_HLO
Writes every `Hlo Proto` bytes stat of the /host:metadata planes under REAL_DIR (each whole, and cut in
half) into OUT_DIR, then runs FUZZ_HLO (the replay build or libFuzzer with -runs=0) over them. The
blobs are never stored in the tree. Exits 77 when REAL_DIR is absent. With --write-only, only writes
them (a starting corpus for a libFuzzer campaign: fuzz-hlo OUT_DIR testdata/fuzz/hlo).
"""
import os
import subprocess
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b, i, end):
    while i < end:
        t, i = varint(b, i)
        w = t & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = None, i + 8
        elif w == 5:
            v, i = None, i + 4
        elif w == 2:
            n, i = varint(b, i)
            v, i = (i, i + n), i + n
        else:
            raise ValueError(w)
        yield t >> 3, w, v


def blobs(b):
    """The Hlo Proto bytes stats of the /host:metadata planes of one XSpace."""
    for f, w, plane in fields(b, 0, len(b)):
        if f != 1 or w != 2:
            continue
        parts = list(fields(b, *plane))
        if not any(g == 2 and b[x[0]:x[1]] == b"/host:metadata" for g, _, x in parts):
            continue
        smeta, stats = {}, []
        for g, _, x in parts:
            if g not in (4, 5):
                continue
            key, val = 0, None
            for h, _, y in fields(b, *x):
                if h == 1:
                    key = y
                elif h == 2:
                    val = y
            for h, _, y in fields(b, *val) if val else ():
                if g == 5 and h == 2:
                    smeta[key] = b[y[0]:y[1]]
                elif g == 4 and h == 5:
                    stats.append(y)
        for st in stats:
            mid, blob = 0, None
            for h, _, y in fields(b, *st):
                if h == 1:
                    mid = y
                elif h == 6:
                    blob = b[y[0]:y[1]]
            if blob is not None and smeta.get(mid) == b"Hlo Proto":
                yield blob


def main():
    args = [a for a in sys.argv[1:] if a != "--write-only"]
    real, out = args[0], args[1]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    os.makedirs(out, exist_ok=True)
    n = 0
    for d, _, files in sorted(os.walk(real)):
        for f in sorted(files):
            if not f.endswith(".xplane.pb"):
                continue
            data = open(os.path.join(d, f), "rb").read()
            for k, blob in enumerate(blobs(data)):
                for tag, part in (("whole", blob), ("half", blob[:len(blob) // 2])):
                    with open(os.path.join(out, f"{f}.{k}.{tag}"), "wb") as o:
                        o.write(part)
                    n += 1
    print(f"hlo_corpus: {n} inputs")
    if n == 0:
        print("FAIL no Hlo Proto stat found")
        return 1
    if "--write-only" in sys.argv:
        return 0
    return subprocess.run([args[2], out]).returncode


if __name__ == "__main__":
    sys.exit(main())
