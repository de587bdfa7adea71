#!/bin/sh
# bench_trace.sh - `xpstat trace` on a generated capture of many steps: the full export's throughput and peak memory,
# and one step's export against it (the selection must cut the work), decode included, on one thread.
# Usage: bench_trace.sh XPSTAT XPGEN MEASURE [SIZE]   (SIZE: the capture, 1G by default; e.g. 64M for a quick run)
# Targets (issue 22): --steps N at most half the full export's time; the full export to plain JSON >= 200 MB/s of
# input with peak RSS <= 1.5x the file. The figures depend on the machine and its load (printed with them); the
# script fails when an export fails, is not valid JSON, or --steps N writes events outside its step, never on time.
set -u
xpstat=$1 xpgen=$2 measure=$3 size=${4:-1G}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-trace.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
cap=$dir/big.xplane.pb
echo "bench: generating a $size raw capture (2 GPUs; xpgen chooses the steps for the size)..."
"$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$size" -o "$cap" >/dev/null || exit 1
bytes=$(stat -c %s "$cap")
echo "bench: file $(echo "$bytes" | awk '{printf "%.1f MB", $1/1e6}')"
. "$(dirname "$0")/bench_lib.sh" # field, best_of_3
# the middle step, by the number its name ends with ("train 11"), as --steps takes it
step=$("$xpstat" steps --format csv "$cap" | awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="step_name") c=i; next}
	{sub(/.*[^0-9]/, "", $c); s[n++]=$c} END{print s[int(n/2)]}')
[ -n "$step" ] || { echo "bench: no steps in the capture" >&2; exit 1; }
echo "bench: $("$xpstat" steps --format csv "$cap" | tail -n +2 | wc -l) steps; exporting step $step against the whole"
cat "$cap" >/dev/null
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
set -- $(best_of_3 /dev/null "$xpstat" trace -q --threads 1 -o "$dir/full.json" "$cap") || exit 1
full_cpu=$1 full_s=$2 full_rss=$3
set -- $(best_of_3 /dev/null "$xpstat" trace -q --threads 1 --steps "$step" -o "$dir/step.json" "$cap") || exit 1
step_cpu=$1 step_s=$2 step_rss=$3
echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
fail=0
/usr/bin/python3 - "$dir/full.json" "$dir/step.json" "$step" <<'EOF' || fail=1
import json, sys
full, one = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n = sys.argv[3]
xf = sum(1 for e in full["traceEvents"] if e.get("ph") == "X")
xs = [e for e in one["traceEvents"] if e.get("ph") == "X"]
track = [e for e in xs if e["name"] == n and "step_time_ps" in e.get("args", {})]
ok = len(track) == 1
if ok:
    lo, hi = track[0]["ts"], track[0]["ts"] + track[0]["dur"]
    ok = all(e["ts"] < hi and e["ts"] + e["dur"] > lo or (e["dur"] == 0 and lo <= e["ts"] < hi) for e in xs)
print(f"bench: full export {xf} X events; --steps {n}: {len(xs)} X events, all within the step: {'ok' if ok else 'WRONG'}")
sys.exit(0 if ok and len(xs) < xf else 1)
EOF
out=$(stat -c %s "$dir/full.json")
awk -v b="$bytes" -v o="$out" -v fc="$full_cpu" -v fs="$full_s" -v fr="$full_rss" -v sc="$step_cpu" -v ss="$step_s" \
    -v sr="$step_rss" -v n="$step" 'BEGIN{
	printf "bench: full export: CPU %.3f s (%.0f MB/s of input), wall %.3f s, peak RSS %.0f MB (%.2fx file), output %.1f MB\n",
	       fc, b/fc/1e6, fs, fr/1024, fr*1024/b, o/1e6
	printf "bench: --steps %s: CPU %.3f s (%.2fx the full export), wall %.3f s, peak RSS %.0f MB\n", n, sc, sc/fc, ss, sr/1024
	printf "bench: targets: --steps <= 0.5x full: %s; full >= 200 MB/s: %s; RSS <= 1.5x file: %s\n",
	       (sc <= 0.5*fc) ? "met" : "NOT met", (b/fc/1e6 >= 200) ? "met" : "NOT met", (fr*1024 <= 1.5*b) ? "met" : "NOT met"
}'
exit $fail
