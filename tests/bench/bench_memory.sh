#!/bin/sh
# bench_memory.sh - throughput and peak memory of `xpstat memory` (one thread, decode included) on a capture of
# 10 million allocations (and about as many deallocations), against floors measured in the same run: reading the
# file, and decoding it (`xpstat info`). Targets: >= 300 MB/s, peak RSS <= 2x the file.
# Usage: bench_memory.sh XPSTAT MEMGEN MEASURE [ALLOCATIONS]
set -u
xpstat=$1 memgen=$2 measure=$3 allocations=${4:-10000000}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-memory.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
cap=$dir/memory.xplane.pb
echo "bench: generating a capture of $allocations allocations (8 allocators, 16 thread lines)..."
"$measure" - "$memgen" --allocations "$allocations" --allocators 8 --lines 16 --step-events 100000 \
	--truth "$dir/truth.json" -o "$cap" | sed 's/^/bench: memgen /'
bytes=$(stat -c %s "$cap")
truth() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$dir/truth.json" "$1"; }
events=$(truth events)
echo "bench: file $(echo "$bytes" | awk '{printf "%.1f MB", $1/1e6}'), $events memory events ($(truth memory_allocations) allocations, $(truth memory_deallocations) deallocations)"

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
# The best of three runs of "$@": sets best (s) and best_rss (kB); fails on a non-zero status.
fail=0
best3() {
	best=
	for rep in 1 2 3; do
		r=$("$measure" "$dir/out.json" "$@")
		s=$(echo "$r" | field wall_s)
		rss=$(echo "$r" | field maxrss_kb)
		st=$(echo "$r" | field status)
		[ "$st" = 0 ] || { echo "bench: $* failed (status $st)"; fail=1; }
		cpu=$(echo "$r" | awk '{u=s=0; for (i=1;i<=NF;i++) {split($i,kv,"="); if (kv[1]=="user_s") u=kv[2]; if (kv[1]=="sys_s") s=kv[2]} print u+s}')
		if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$s; best_rss=$rss; best_cpu=$cpu; fi
	done
}
# CPU time (user + sys, when measure reports it) is printed too: on a busy machine it is the steadier figure.
report() { # label seconds rss_kb cpu_seconds
	awk -v l="$1" -v s="$2" -v r="$3" -v c="$4" -v b="$bytes" -v e="$events" 'BEGIN{
		printf "bench: %s: %.3f s, %.0f MB/s, %.1f M events/s, peak RSS %.0f MB (%.2fx file)", l, s, b/s/1e6, e/s/1e6,
		       r/1024, r*1024/b
		if (c > 0) printf "; CPU %.3f s, %.0f MB/s", c, b/c/1e6
		printf "\n" }'
}

cat "$cap" >/dev/null
floor=$("$measure" - cat "$cap")
floor_s=$(echo "$floor" | field wall_s)
echo "bench: floor, reading the file (cat): $(awk -v b="$bytes" -v s="$floor_s" 'BEGIN{printf "%.3f s, %.0f MB/s", s, b/s/1e6}')"
best3 "$xpstat" info --format json --threads 1 "$cap"
decode_s=$best decode_cpu=$best_cpu
report "floor, decoding (info --threads 1)" "$best" "$best_rss" "$best_cpu"
best3 "$xpstat" memory --format json --threads 1 "$cap"
mem_s=$best mem_rss=$best_rss mem_cpu=$best_cpu
report "memory --threads 1" "$best" "$best_rss" "$best_cpu"

# The answer must be right, or the speed means nothing.
/usr/bin/python3 - "$dir/out.json" "$dir/truth.json" <<'EOF' || fail=1
import json, sys
doc, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
if doc["summary"]["allocations"] != truth["memory_allocations"]:
    bad.append(f"allocations {doc['summary']['allocations']} != {truth['memory_allocations']}")
if doc["summary"]["deallocations"] != truth["memory_deallocations"]:
    bad.append(f"deallocations {doc['summary']['deallocations']} != {truth['memory_deallocations']}")
got = {a["allocator"]: a for a in doc["tables"]["allocators"]}
for t in truth["allocators"]:
    a = got.get(t["name"], {})
    for k in ("peak_usage_bytes", "peak_step", "unmatched_deallocations", "unfreed_allocations"):
        if a.get(k) != t[k]:
            bad.append(f"{t['name']} {k} {a.get(k)} != {t[k]}")
for b in bad:
    print("bench: wrong answer: " + b)
sys.exit(1 if bad else 0)
EOF

awk -v b="$bytes" -v m="$mem_s" -v d="$decode_s" -v r="$mem_rss" -v mc="$mem_cpu" -v dc="$decode_cpu" 'BEGIN{
	mbs = b/m/1e6; rss = r*1024/b
	printf "bench: memory takes %.2fx the decode floor (wall)", m/d
	if (mc > 0 && dc > 0) printf ", %.2fx (CPU)", mc/dc
	printf "\n"
	printf "bench: targets: 1 thread >= 300 MB/s: %.0f (%s); peak RSS <= 2x file: %.2fx (%s)\n",
	       mbs, (mbs >= 300 ? "met" : "MISSED"), rss, (rss <= 2 ? "met" : "MISSED") }'
exit $fail
