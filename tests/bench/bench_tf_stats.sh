#!/bin/sh
# bench_tf_stats.sh - throughput and peak memory of `xpstat tf-stats` on one thread, decode included, on a generated
# ~1 GiB capture; against `xpstat info` (decode alone) and reading the file, measured in the same run.
# Usage: bench_tf_stats.sh XPSTAT XPGEN MEASURE [SIZE]
# Targets: tf-stats on 1 thread >= 300 MB/s, peak RSS <= 2x the file size. The figures depend on the machine and
# its load (printed with them); the script fails only when tf-stats fails or its output is wrong, never on time.
set -u
xpstat=$1 xpgen=$2 measure=$3 size=${4:-1G}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-tfs.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
cap=$dir/big.xplane.pb
echo "bench: generating a $size raw capture (2 GPUs)..."
"$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$size" --truth "$dir/truth.json" -o "$cap" >/dev/null || exit 1
bytes=$(stat -c %s "$cap")
events=$(/usr/bin/python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print(t['totals']['events'])" "$dir/truth.json")
echo "bench: file $(echo "$bytes" | awk '{printf "%.1f MB", $1/1e6}'), $events events"

. "$(dirname "$0")/bench_lib.sh" # field, best_of_3
cat "$cap" >/dev/null
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
floor=$("$measure" - cat "$cap" | field wall_s)
fail=0
set -- $(best_of_3 "$dir/info.json" "$xpstat" info --format json --threads 1 "$cap") || exit 1
info_cpu=$1 info_s=$2 info_rss=$3
set -- $(best_of_3 "$dir/tfs.json" "$xpstat" tf-stats --format json --threads 1 "$cap") || exit 1
tfs_cpu=$1 tfs_s=$2 tfs_rss=$3
echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The output must be whole: the device op time is at least the kernel time xpgen wrote.
/usr/bin/python3 - "$dir/tfs.json" "$dir/truth.json" <<'EOF' || fail=1
import json, sys
doc, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
s = doc["summary"]
kernel_ps = sum(h["kernel_time_ps"] for h in truth["hosts"])
op_ps = round(s["device_op_time_us"] * 1e6)
ok = op_ps >= kernel_ps and s["host_ops"] > 0 and s["kernels_without_op"] == 0
print(f"bench: tf-stats: {s['device_ops']} device and {s['host_ops']} host ops, device op time {op_ps} ps "
      f"(kernels {kernel_ps} ps): {'ok' if ok else 'WRONG'}")
sys.exit(0 if ok else 1)
EOF
awk -v b="$bytes" -v e="$events" -v f="$floor" -v ic="$info_cpu" -v is="$info_s" -v ir="$info_rss" \
    -v tc="$tfs_cpu" -v ts="$tfs_s" -v tr="$tfs_rss" 'BEGIN{
	printf "bench: floor (cat FILE): %.3f s, %.0f MB/s\n", f, b/f/1e6
	printf "bench: info --threads 1 (decode): CPU %.3f s (%.0f MB/s), wall %.3f s (%.0f MB/s), peak RSS %.0f MB (%.2fx file)\n",
	       ic, b/ic/1e6, is, b/is/1e6, ir/1024, ir*1024/b
	printf "bench: tf-stats --threads 1: CPU %.3f s (%.0f MB/s, %.1f M events/s), wall %.3f s (%.0f MB/s), peak RSS %.0f MB (%.2fx file); analysis %.3f s CPU over decode\n",
	       tc, b/tc/1e6, e/tc/1e6, ts, b/ts/1e6, tr/1024, tr*1024/b, tc-ic
	m = b/tc/1e6; w = b/ts/1e6; r = tr*1024/b
	printf("bench: targets: 1 thread >= 300 MB/s: %.0f MB/s by CPU time (%s), %.0f by wall time (%s); peak RSS <= 2x file: %.2fx (%s)\n",
	       m, (m >= 300 ? "met" : "MISSED"), w, (w >= 300 ? "met" : "missed: see the load average"), r, (r <= 2 ? "met" : "MISSED")) }'
exit $fail
