#!/usr/bin/env python3
# xpcheck.py - independent checker for xpgen output: strict wire walk of an XSpace plus semantic checks against the truth file.
#
# Usage: xpcheck.py CAPTURE[.gz|.zst] [TRUTH.json [HOST_INDEX]]
# Exit status 0 when every check passes; the failures are listed otherwise.
# It re-reads the file from scratch (no code shared with xpgen), so it catches
# encoder bugs: bad lengths, unsorted or overlapping events, dangling ids,
# kernels without a launch, allocator arithmetic that does not add up.
import gzip
import json
import struct
import subprocess
import sys
from collections import Counter, defaultdict

DERIVED_MIN = -559038737


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            if s > 70:
                raise ValueError("varint over 10 bytes at %d" % i)
            return r, i


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def fields(b, i, end):
    while i < end:
        t, i = varint(b, i)
        f, w = t >> 3, t & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v = b[i:i + 8]
            i += 8
        elif w == 2:
            n, i = varint(b, i)
            v = (i, i + n)
            i += n
        else:
            raise ValueError("wire type %d at %d" % (w, i))
        if i > end:
            raise ValueError("field %d runs past its message (%d > %d)" % (f, i, end))
        yield f, w, v


class Stat:
    __slots__ = ("mid", "kind", "val")


def parse_stat(b, rng):
    st = Stat()
    st.mid, st.kind, st.val = 0, None, None
    for f, w, v in fields(b, *rng):
        if f == 1:
            st.mid = s64(v)
        elif f == 2:
            st.kind, st.val = "d", struct.unpack("<d", v)[0]
        elif f == 3:
            st.kind, st.val = "u", v
        elif f == 4:
            st.kind, st.val = "i", s64(v)
        elif f == 5:
            st.kind, st.val = "s", b[v[0]:v[1]]
        elif f == 6:
            st.kind, st.val = "b", b[v[0]:v[1]]
        elif f == 7:
            st.kind, st.val = "r", v
        else:
            raise ValueError("XStat field %d" % f)
    return st


def parse_md(b, rng, unknown):
    key, name, disp = 0, b"", b""
    for f, w, v in fields(b, *rng):
        if f == 1:
            key = s64(v)
        elif f == 2:
            for g, _, x in fields(b, *v):
                if g == 2:
                    name = b[x[0]:x[1]]
                elif g == 4:
                    disp = b[x[0]:x[1]]
                elif g not in (1, 3, 5, 6):
                    unknown.append(g)
    return key, name, disp


def load(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    elif data[:4] == b"\x28\xb5\x2f\xfd":
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    return data


def parse_space(b):
    planes, hostnames = [], []
    unknown = []
    for f, w, v in fields(b, 0, len(b)):
        if f == 1:
            planes.append(parse_plane(b, v, unknown))
        elif f == 4:
            hostnames.append(b[v[0]:v[1]].decode())
        else:
            unknown.append(("space", f))
    return planes, hostnames, unknown


def parse_plane(b, rng, unknown):
    p = {"id": 0, "name": "", "lines": [], "em": {}, "disp": {}, "sm": {}, "stats": []}
    for f, w, v in fields(b, *rng):
        if f == 1:
            p["id"] = s64(v)
        elif f == 2:
            p["name"] = b[v[0]:v[1]].decode()
        elif f == 3:
            p["lines"].append(parse_line(b, v, unknown))
        elif f == 4:
            k, n, d = parse_md(b, v, unknown)
            p["em"][k] = n
            p["disp"][k] = d
        elif f == 5:
            k, n, _ = parse_md(b, v, unknown)
            p["sm"][k] = n
        elif f == 6:
            p["stats"].append(parse_stat(b, v))
        else:
            unknown.append(("plane", f))
    return p


def parse_line(b, rng, unknown):
    L = {"id": 0, "name": "", "ts": 0, "events": []}
    for f, w, v in fields(b, *rng):
        if f == 1:
            L["id"] = s64(v)
        elif f == 2:
            L["name"] = b[v[0]:v[1]].decode()
        elif f == 3:
            L["ts"] = s64(v)
        elif f == 4:
            ev = {"mid": 0, "off": 0, "dur": 0, "stats": [], "unknown": []}
            for g, _, x in fields(b, *v):
                if g == 1:
                    ev["mid"] = s64(x)
                elif g == 2:
                    ev["off"] = s64(x)
                elif g == 3:
                    ev["dur"] = s64(x)
                elif g == 4:
                    ev["stats"].append(parse_stat(b, x))
                else:
                    ev["unknown"].append(g)
            L["events"].append(ev)
        else:
            unknown.append(("line", f))
    return L


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, msg):
        if len(self.errors) < 50:
            self.errors.append(msg)

    def stats_of(self, p, ev):
        out = {}
        for st in ev["stats"]:
            name = p["sm"].get(st.mid)
            if name is None:
                continue
            name = name.decode()
            val = st.val
            if st.kind == "r":
                val = p["sm"].get(val)
            out[name] = (st.kind, val)
        return out


def is_odd_line(L):
    return L["name"].startswith("odd_") or (L["ts"] > 10**17)


def check(path, truth=None, host_index=0):
    c = Checker()
    planes, hostnames, unknown = parse_space(load(path))
    if unknown:
        c.err("unknown structural fields: %r" % unknown[:5])
    launches = {}
    kernels = []
    mem = defaultdict(list)
    counts = Counter()
    line_ids = Counter()
    for p in planes:
        is_gpu = p["name"].startswith("/device:GPU:")
        for L in p["lines"]:
            line_ids[(p["name"], L["id"])] += 1
            evs = L["events"]
            counts["events"] += len(evs)
            base = L["ts"] * 1000 if L["ts"] < 10**17 else 0
            if is_odd_line(L):
                continue
            prev = None
            stack = []
            for ev in evs:
                t, d = base + ev["off"], ev["dur"]
                if d < 0:
                    c.err("%s/%s: negative duration" % (p["name"], L["name"]))
                if ev["mid"] not in p["em"]:
                    c.err("%s/%s: event metadata %d missing" % (p["name"], L["name"], ev["mid"]))
                if ev["unknown"]:
                    c.err("%s/%s: unknown event fields" % (p["name"], L["name"]))
                key = (t, -d)
                if prev is not None and key < prev:
                    c.err("%s/%s: unsorted at %d" % (p["name"], L["name"], t))
                prev = key
                # nesting: no partial overlap with any open ancestor
                while stack and t >= stack[-1]:
                    if t == stack[-1] and d == 0:
                        break
                    stack.pop()
                if stack and t + d > stack[-1]:
                    c.err("%s/%s: partial overlap at %d (%s)" % (p["name"], L["name"], t, p["em"].get(ev["mid"])))
                stack.append(t + d)
                for st in ev["stats"]:
                    if st.mid not in p["sm"]:
                        c.err("%s/%s: stat metadata %d missing" % (p["name"], L["name"], st.mid))
                    if st.kind == "r" and st.val not in p["sm"]:
                        c.err("%s/%s: dangling ref %d" % (p["name"], L["name"], st.val))
                s = c.stats_of(p, ev)
                name = p["em"].get(ev["mid"], b"").decode("utf-8", "replace")
                if p["name"] == "/host:CPU":
                    if "correlation_id" in s:
                        cid = s["correlation_id"][1]
                        if cid in launches:
                            c.err("duplicate correlation id %d" % cid)
                        launches[cid] = t
                    if name in ("MemoryAllocation", "MemoryDeallocation"):
                        mem[s["allocator_name"][1]].append((t, name, s))
                elif is_gpu and L["id"] >= 0 or (is_gpu and L["id"] < DERIVED_MIN):
                    if "kernel_details" in s and d > 0:
                        counts["kernels"] += 1
                        counts["kernel_ps"] += d
                        counts["kname:" + name] = 1
                    if name == "MemcpyH2D":
                        counts["h2d"] += 1
                    if name == "MemcpyD2H":
                        counts["d2h"] += 1
                    if "correlation_id" in s:
                        kernels.append((s["correlation_id"][1], t, name))
                if name == "MemoryAllocation":
                    counts["alloc"] += 1
                if name == "MemoryDeallocation":
                    counts["dealloc"] += 1
    for cid, t, name in kernels:
        if cid not in launches:
            c.err("device event %s: correlation id %d has no host launch" % (name, cid))
        elif launches[cid] > t:
            c.err("device event %s starts before its launch" % name)
    for alloc_name, evs in mem.items():
        check_allocator(c, alloc_name, sorted(evs, key=lambda x: x[0]))
    result = {"planes": planes, "hostnames": hostnames, "counts": counts, "line_ids": line_ids}
    if truth:
        compare_truth(c, result, truth["hosts"][host_index])
    return c.errors, result


def check_allocator(c, name, evs):
    live = {}
    inuse = peak = None
    for t, kind, s in evs:
        alloc = kind == "MemoryAllocation"
        b = s["allocation_bytes"][1]
        after = s["bytes_allocated"][1]
        if inuse is not None:
            want = inuse + b if alloc else inuse - b
            if after != want:
                c.err("%s: bytes_allocated %d, expected %d at %d" % (name, after, want, t))
        inuse = after
        pk = s["peak_bytes_in_use"][1]
        if peak is not None and pk != max(peak, inuse):
            c.err("%s: peak %d, expected %d" % (name, pk, max(peak, inuse)))
        peak = pk
        if s["bytes_reserved"][1] + after + s["bytes_available"][1] <= 0:
            c.err("%s: bytes_available inconsistent" % name)
        addr = s["addr"][1]
        if alloc:
            if addr in live:
                c.err("%s: address %x handed out twice" % (name, addr))
            live[addr] = b
        else:
            if live.pop(addr, None) != b:
                c.err("%s: deallocation of %x matches no allocation" % (name, addr))


def compare_truth(c, r, th):
    planes = r["planes"]
    if len(planes) != th["planes_count"]:
        c.err("planes: %d, truth %d" % (len(planes), th["planes_count"]))
    for p, tp in zip(planes, th["planes"]):
        n = sum(len(L["events"]) for L in p["lines"])
        if p["name"] != tp["name"] or str(p["id"]) != tp["id"] or n != tp["events"] or len(p["lines"]) != tp["lines_count"]:
            c.err("plane %s differs from truth" % p["name"])
        if len(p["em"]) != tp["event_metadata"] or len(p["sm"]) != tp["stat_metadata"]:
            c.err("plane %s metadata counts differ from truth" % p["name"])
        for L, tl in zip(p["lines"], tp["lines"]):
            if L["name"] != tl["name"] or str(L["id"]) != tl["id"] or len(L["events"]) != tl["events"]:
                c.err("line %s differs from truth" % L["name"])
    k = r["counts"]
    checks = [("events", k["events"]), ("memory_allocations", k["alloc"]), ("memory_deallocations", k["dealloc"]),
              ("kernels", k["kernels"]), ("kernel_time_ps", k["kernel_ps"]), ("memcpy_h2d", k["h2d"]),
              ("memcpy_d2h", k["d2h"]),
              ("kernel_names_distinct", sum(1 for x in k if x.startswith("kname:")))]
    for key, got in checks:
        if got != th[key]:
            c.err("%s: file has %d, truth says %d" % (key, got, th[key]))
    if th["hostnames_field"] != bool(r["hostnames"]):
        c.err("hostnames field presence differs")
    if r["hostnames"] and r["hostnames"] != [th["host"]]:
        c.err("hostnames %r, truth %r" % (r["hostnames"], th["host"]))


def main():
    if len(sys.argv) < 2:
        print(__doc__ or "usage: xpcheck.py CAPTURE [TRUTH [HOST]]", file=sys.stderr)
        return 2
    truth = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
    host = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    errors, r = check(sys.argv[1], truth, host)
    k = r["counts"]
    print("%s: %d planes, %d events, %d kernels, %d allocations, %d deallocations" % (
        sys.argv[1], len(r["planes"]), k["events"], k["kernels"], k["alloc"], k["dealloc"]))
    for e in errors:
        print("  FAIL", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
