#!/bin/sh
# bench_trace.sh - `xpstat trace` (issue 22): the full export's throughput and peak memory against `info --format json`
# on the same file, and one step's export of a 100-step capture against that capture's full export; decode included,
# on one thread, the two sides of each comparison alternated (medians of ROUNDS, CPU time: user + sys); and one
# step's export of the first capture against its full export.
# Usage: bench_trace.sh XPSTAT XPGEN MEASURE [SIZE] [ROUNDS] [VARIANT]   (SIZE: the first capture, 1G by default; e.g.
# 64M for a quick run; ROUNDS: 5; VARIANT: xpgen's variant of the first capture, raw by default, e.g. diverse)
# Targets: the full export to plain JSON >= 200 MB/s of input with peak RSS <= 1.5x the file; --steps N at most half
# the full export's time. The figures depend on the machine and its load (printed with them, with info's as the floor
# of the same run); the script fails when an export fails, writes an event that is not JSON, or --steps N writes
# events outside its step, never on time.
set -u
xpstat=$1 xpgen=$2 measure=$3 size=${4:-1G} rounds=${5:-5} variant=${6:-raw}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-trace.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/bench_lib.sh" # field

# median LIST: the median of whitespace-separated numbers (the mean of the middle two of an even count).
median() {
	echo "$1" | tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END{printf "%.3f", NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

# alternate A_OUT A_CMD B_OUT B_CMD: ROUNDS rounds of A then B (the commands are words of one string each, no
# quoting inside); sets a_cpu a_wall a_rss and b_cpu b_wall b_rss to each side's medians (CPU: user + sys).
alternate() {
	a_cpus= a_walls= a_rsss= b_cpus= b_walls= b_rsss=
	r=0
	while [ "$r" -lt "$rounds" ]; do
		r=$((r + 1))
		for side in a b; do
			if [ $side = a ]; then out=$1 cmd=$2; else out=$3 cmd=$4; fi
			# this side's last output gone first: replacing a file of gigabytes frees its blocks in the
			# writer's time (rename), which is the bench's doing, not the command's
			o=$(echo "$cmd" | sed -n 's/.* -o \([^ ]*\) .*/\1/p')
			for f in "$out" "$o"; do [ -z "$f" ] || [ "$f" = - ] || rm -f "$f"; done
			sync
			# shellcheck disable=SC2086 # the command's words
			m=$("$measure" "$out" $cmd)
			st=$(echo "$m" | field status)
			[ "$st" = 0 ] || { echo "bench: $cmd failed (status $st)" >&2; return 1; }
			cpu=$(awk -v u="$(echo "$m" | field user_s)" -v s="$(echo "$m" | field sys_s)" 'BEGIN{printf "%.3f", u+s}')
			eval "${side}_cpus=\"\$${side}_cpus $cpu\" ${side}_walls=\"\$${side}_walls $(echo "$m" | field wall_s)\""
			eval "${side}_rsss=\"\$${side}_rsss $(echo "$m" | field maxrss_kb)\""
		done
	done
	a_cpu=$(median "$a_cpus") a_wall=$(median "$a_walls") a_rss=$(median "$a_rsss")
	b_cpu=$(median "$b_cpus") b_wall=$(median "$b_walls") b_rss=$(median "$b_rsss")
}

# check_events FILE: every event line of an export parses as JSON on its own (the writer puts one per line), the
# document opens and closes as it should; prints the X events. Line by line: a full export is several times its
# capture, too big to load whole.
check_events() {
	/usr/bin/python3 - "$1" <<'EOF'
import json, sys
n = x = 0
with open(sys.argv[1], "rb") as f:
    head = f.readline()
    assert head.startswith(b'{"displayTimeUnit":"ns","otherData":{') and head.rstrip().endswith(b'"traceEvents":['), head[:80]
    tail = None
    for line in f:
        if line == b"]}\n":
            tail = line
            break
        e = json.loads(line.rstrip(b",\n"))
        n += 1
        x += e.get("ph") == "X"
    assert tail is not None and f.read() == b"", "the document does not end with ]}"
print(x)
EOF
}

fail=0
cap=$dir/big.xplane.pb
# the shape variants (diverse, ...) choose their own devices
gpus="--gpus 2"
case $variant in raw | grouped | jax) ;; *) gpus= ;; esac
echo "bench: generating a $size $variant capture (xpgen chooses the steps for the size)..."
# shellcheck disable=SC2086 # gpus: none or two words
"$xpgen" --variant "$variant" $gpus --seed 42 --target-bytes "$size" -o "$cap" >/dev/null || exit 1
bytes=$(stat -c %s "$cap")
echo "bench: file $(echo "$bytes" | awk '{printf "%.1f MB", $1/1e6}')"
cat "$cap" >/dev/null
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
alternate "$dir/info.json" "$xpstat info --format json --threads 1 $cap" \
	"-" "$xpstat trace -q --threads 1 -o $dir/full.json $cap" || exit 1
echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
xf=$(check_events "$dir/full.json") || { echo "bench: the full export is not valid JSON"; fail=1; }
out=$(stat -c %s "$dir/full.json")
rm -f "$dir/full.json" "$dir/info.json"
awk -v b="$bytes" -v o="$out" -v x="$xf" -v ic="$a_cpu" -v iw="$a_wall" -v ir="$a_rss" -v tc="$b_cpu" -v tw="$b_wall" \
    -v tr="$b_rss" 'BEGIN{
	printf "bench: info --format json (the floor): CPU %.3f s (%.0f MB/s of input), wall %.3f s, peak RSS %.0f MB (%.2fx file)\n",
	       ic, b/ic/1e6, iw, ir/1024, ir*1024/b
	printf "bench: trace, full export: CPU %.3f s (%.0f MB/s of input, %.2fx info), wall %.3f s, peak RSS %.0f MB (%.2fx file, %.2fx info), output %.1f MB, %d X events\n",
	       tc, b/tc/1e6, tc/ic, tw, tr/1024, tr*1024/b, tr/ir, o/1e6, x
	printf "bench: targets: full export >= 200 MB/s: %s; RSS <= 1.5x file: %s\n",
	       (b/tc/1e6 >= 200) ? "met" : "NOT met", (tr*1024 <= 1.5*b) ? "met" : "NOT met"
}'

# middle_step CAPTURE: the middle step's number (that its name ends with, "train 11"), as --steps takes it
middle_step() {
	"$xpstat" steps --format csv "$1" | awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="step_name") c=i; next}
		{sub(/.*[^0-9]/, "", $c); s[n++]=$c} END{print s[int(n/2)]}'
}

# One step of the big capture against its whole export (the full export alternated again, in this pair).
step=$(middle_step "$cap")
echo "bench: the same capture, $("$xpstat" steps --format csv "$cap" | tail -n +2 | wc -l) steps; exporting step $step against the whole"
alternate "-" "$xpstat trace -q --threads 1 -o $dir/full.json $cap" \
	"-" "$xpstat trace -q --threads 1 --steps $step -o $dir/step.json $cap" || exit 1
rm -f "$dir/full.json" "$dir/step.json"
awk -v fc="$a_cpu" -v sc="$b_cpu" -v sr="$b_rss" -v b="$bytes" -v n="$step" 'BEGIN{
	printf "bench: big capture, --steps %s: CPU %.3f s (%.2fx the full export, %.3f s here), peak RSS %.0f MB (%.2fx file)\n",
	       n, sc, sc/fc, fc, sr/1024, sr*1024/b
}'
rm -f "$cap"

# One step of 100 against the whole: the selection must cut the work, not just the output.
cap=$dir/steps.xplane.pb
echo "bench: generating a raw capture of 100 steps (16 GPUs)..."
"$xpgen" --variant raw --gpus 16 --seed 42 --steps 100 -o "$cap" >/dev/null || exit 1
sbytes=$(stat -c %s "$cap")
# the middle step, by the number its name ends with ("train 11"), as --steps takes it
step=$(middle_step "$cap")
[ -n "$step" ] || { echo "bench: no steps in the capture" >&2; exit 1; }
echo "bench: file $(echo "$sbytes" | awk '{printf "%.1f MB", $1/1e6}'), $("$xpstat" steps --format csv "$cap" | tail -n +2 | wc -l) steps; exporting step $step against the whole"
cat "$cap" >/dev/null
alternate "-" "$xpstat trace -q --threads 1 -o $dir/all.json $cap" \
	"-" "$xpstat trace -q --threads 1 --steps $step -o $dir/step.json $cap" || exit 1
/usr/bin/python3 - "$dir/all.json" "$dir/step.json" "$step" <<'EOF' || fail=1
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
awk -v b="$sbytes" -v fc="$a_cpu" -v fw="$a_wall" -v fr="$a_rss" -v sc="$b_cpu" -v sw="$b_wall" -v sr="$b_rss" -v n="$step" 'BEGIN{
	printf "bench: 100 steps, full export: CPU %.3f s (%.0f MB/s of input), wall %.3f s, peak RSS %.0f MB (%.2fx file)\n",
	       fc, b/fc/1e6, fw, fr/1024, fr*1024/b
	printf "bench: 100 steps, --steps %s: CPU %.3f s (%.2fx the full export), wall %.3f s, peak RSS %.0f MB\n", n, sc, sc/fc, sw, sr/1024
	printf "bench: target: --steps N <= 0.5x the full export: %s\n", (sc <= 0.5*fc) ? "met" : "NOT met"
}'
exit $fail
