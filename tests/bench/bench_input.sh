#!/bin/sh
# bench_input.sh - throughput and peak memory of `xpstat overview`, `xpstat input-pipeline` and `xpstat tf-data` on
# one thread, decode included, on a generated ~1 GiB capture (overview also on two); against `xpstat info` (decode
# alone), `xpstat steps` (decode and the shared step preparation) and reading the file, measured in the same run.
# Usage: bench_input.sh XPSTAT XPGEN MEASURE [SIZE]
# Targets: each command on 1 thread >= 300 MB/s, peak RSS <= 2x the file size. The figures depend on the machine and
# its load (printed with them); the script fails only when a command fails or its output is wrong, never on time.
set -u
xpstat=$1 xpgen=$2 measure=$3 size=${4:-1G}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-input.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
cap=$dir/big.xplane.pb
echo "bench: generating a $size raw capture (2 GPUs)..."
"$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$size" --truth "$dir/truth.json" -o "$cap" >/dev/null || exit 1
bytes=$(stat -c %s "$cap")
events=$(/usr/bin/python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print(t['totals']['events'])" "$dir/truth.json")
echo "bench: file $(echo "$bytes" | awk '{printf "%.1f MB", $1/1e6}'), $events events"

. "$(dirname "$0")/bench_lib.sh" # field, best_of_3
report() { # label cpu wall rss
	awk -v b="$bytes" -v e="$events" -v l="$1" -v c="$2" -v w="$3" -v r="$4" 'BEGIN{
		printf "bench: %s --threads 1: CPU %.3f s (%.0f MB/s, %.1f M events/s), wall %.3f s (%.0f MB/s), peak RSS %.0f MB (%.2fx file)\n",
		       l, c, b/c/1e6, e/c/1e6, w, b/w/1e6, r/1024, r*1024/b }'
}
target() { # label cpu wall rss
	awk -v b="$bytes" -v l="$1" -v c="$2" -v w="$3" -v r="$4" 'BEGIN{
		m = b/c/1e6; s = b/w/1e6; x = r*1024/b
		printf "bench: target %s: 1 thread >= 300 MB/s: %.0f MB/s by CPU time (%s), %.0f by wall time (%s); peak RSS <= 2x file: %.2fx (%s)\n",
		       l, m, (m >= 300 ? "met" : "MISSED"), s, (s >= 300 ? "met" : "missed: see the load average"), x, (x <= 2 ? "met" : "MISSED") }'
}
cat "$cap" >/dev/null
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
floor=$("$measure" - cat "$cap" | field wall_s)
fail=0
set -- $(best_of_3 "$dir/info.json" "$xpstat" info --format json --threads 1 "$cap") || exit 1
info_cpu=$1 info_s=$2 info_rss=$3
set -- $(best_of_3 "$dir/steps.json" "$xpstat" steps --format json --threads 1 "$cap") || exit 1
steps_cpu=$1 steps_s=$2 steps_rss=$3
set -- $(best_of_3 "$dir/ov.json" "$xpstat" overview --format json --threads 1 "$cap") || exit 1
ov_cpu=$1 ov_s=$2 ov_rss=$3
set -- $(best_of_3 "$dir/ov2.json" "$xpstat" overview --format json --threads 2 "$cap") || exit 1
ov2_cpu=$1 ov2_s=$2 ov2_rss=$3
set -- $(best_of_3 "$dir/ip.json" "$xpstat" input-pipeline --format json --threads 1 "$cap") || exit 1
ip_cpu=$1 ip_s=$2 ip_rss=$3
set -- $(best_of_3 "$dir/tfd.json" "$xpstat" tf-data --format json --threads 1 "$cap") || exit 1
tfd_cpu=$1 tfd_s=$2 tfd_rss=$3
echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The output must be whole: every step analyzed, input % a ratio of the step sums, one pipeline call per step.
/usr/bin/python3 - "$dir/ip.json" "$dir/tfd.json" "$dir/steps.json" <<'PY' || fail=1
import json, sys
ip, tfd, steps = (json.load(open(p)) for p in sys.argv[1:4])
rows = steps["tables"]["steps"]
want = 100.0 * sum(r["input_ms"] for r in rows) / sum(r["step_time_ms"] for r in rows)
s, t = ip["summary"], tfd["summary"]
ok = (s["steps"] == len(rows) > 0 and abs(s["input_pct"] - want) <= 1e-9 * want and s["input_ops"] > 0
      and t["host_input_pipelines"] == 1 and t["calls"] >= len(rows))
print(f"bench: input-pipeline: {s['steps']} steps, input {s['input_pct']:.3f}% ({s['classification']}), "
      f"{s['input_ops']} input ops; tf-data: {t['input_pipelines']} pipeline(s), {t['calls']} calls, "
      f"{t['iterator_events']} iterator events: {'ok' if ok else 'WRONG'}")
sys.exit(0 if ok else 1)
PY
awk -v b="$bytes" -v f="$floor" 'BEGIN{ printf "bench: floor (cat FILE): %.3f s, %.0f MB/s\n", f, b/f/1e6 }'
report "info (decode)" "$info_cpu" "$info_s" "$info_rss"
report "steps (decode + step preparation)" "$steps_cpu" "$steps_s" "$steps_rss"
report "overview" "$ov_cpu" "$ov_s" "$ov_rss"
awk -v b="$bytes" -v c="$ov2_cpu" -v w="$ov2_s" -v r="$ov2_rss" -v w1="$ov_s" 'BEGIN{
	printf "bench: overview --threads 2: CPU %.3f s, wall %.3f s (%.0f MB/s, %.2fx one thread), peak RSS %.0f MB (%.2fx file)\n",
	       c, w, b/w/1e6, w1/w, r/1024, r*1024/b }'
report "input-pipeline" "$ip_cpu" "$ip_s" "$ip_rss"
report "tf-data" "$tfd_cpu" "$tfd_s" "$tfd_rss"
awk -v s="$steps_cpu" -v i="$ip_cpu" -v d="$info_cpu" -v t="$tfd_cpu" 'BEGIN{
	printf "bench: analysis CPU over its base: input-pipeline %.3f s over steps, tf-data %.3f s over info\n", i-s, t-d }'
target overview "$ov_cpu" "$ov_s" "$ov_rss"
target input-pipeline "$ip_cpu" "$ip_s" "$ip_rss"
target tf-data "$tfd_cpu" "$tfd_s" "$tfd_rss"
exit $fail
