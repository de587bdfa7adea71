#!/bin/sh
# bench_trace_json.sh - trace JSON input: throughput and peak memory of `xpstat info` on a generated ~1 GiB trace
# JSON (xpgen capture exported by xp2trace, TF style), plain on one thread, and gzip-compressed against the time of
# decompressing it alone (the pull reader with no parsing: pullcat; gzip -dc shown for reference).
# Usage: bench_trace_json.sh XPSTAT XPGEN XP2TRACE MEASURE PULLCAT [PB_SIZE]
# Targets (printed, not asserted: DESIGN §7): plain >= 250 MB/s on one thread; peak RSS <= 0.5x the JSON size for
# both forms; .gz at most 1.3x the decompression alone. Wall times depend on the machine being otherwise idle: the
# load average and the CPU seconds are printed with them.
set -u
xpstat=$1 xpgen=$2 xp2trace=$3 measure=$4 pullcat=$5 size=${6:-260M}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-json.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
pb=$dir/bench.xplane.pb js=$dir/bench.trace.json gz=$dir/bench.trace.json.gz
echo "bench: generating a $size raw capture and its trace JSON..."
"$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$size" -o "$pb" >/dev/null || exit 1
"$xp2trace" "$pb" "$js" || exit 1
rm -f "$pb"
bytes=$(stat -c %s "$js")
echo "bench: JSON $(echo "$bytes" | awk '{printf "%.1f MB (%.2f GiB)", $1/1e6, $1/1073741824}')"

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
# best of N runs of a command (best3, best1): prints "wall user rss status" of the fastest
bestn() {
	n=$1 out=$2
	shift 2
	b=
	for rep in $(seq "$n"); do
		r=$("$measure" "$out" "$@")
		w=$(echo "$r" | field wall_s) u=$(echo "$r" | field user_s) s=$(echo "$r" | field sys_s)
		m=$(echo "$r" | field maxrss_kb) st=$(echo "$r" | field status)
		[ -n "$u" ] || u=0
		[ -n "$s" ] || s=0
		if [ -z "$b" ] || awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then
			b=1 bw=$w bu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') bm=$m bs=$st
		fi
	done
	echo "$bw $bu $bm $bs"
}
best3() { bestn 3 "$@"; }
best1() { bestn 1 "$@"; }
load() { cut -d' ' -f1 /proc/loadavg; }

cat "$js" >/dev/null
floor=$("$measure" - cat "$js" | field wall_s)
echo "bench: floor (cat FILE): $(awk -v b="$bytes" -v s="$floor" 'BEGIN{printf "%.0f MB/s", b/s/1e6}')"
fail=0

set -- $(best3 "$dir/plain.json" "$xpstat" info --format json --threads 1 "$js")
pw=$1 pu=$2 pm=$3
[ "$4" = 0 ] || { echo "bench: xpstat failed on the JSON (status $4)"; fail=1; }
events=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['events'])" "$dir/plain.json")
awk -v b="$bytes" -v w="$pw" -v u="$pu" -v m="$pm" -v e="$events" -v l="$(load)" 'BEGIN{
	printf "bench: info --threads 1 on the JSON: %.3f s (%.2f CPU s), %.0f MB/s, %.2f M events/s, peak RSS %.0f MB (%.2fx the JSON), load %s\n",
	       w, u, b/w/1e6, e/w/1e6, m/1024, m*1024/b, l }'

echo "bench: compressing (gzip -6)..."
gzip -6 -c "$js" >"$gz" || exit 1
gzbytes=$(stat -c %s "$gz")
rm -f "$js"
set -- $(best3 - gzip -dc "$gz")
gw=$1
# The ratio's two sides alternate, best of 5 each: on a shared machine the speed drifts over
# seconds, and runs taken minutes apart would compare two machines.
dw= zw=
for round in 1 2 3 4 5; do
	set -- $(best1 - "$pullcat" "$gz")
	if [ -z "$dw" ] || awk -v a="$1" -v b="$dw" 'BEGIN{exit !(a<b)}'; then dw=$1 du=$2; fi
	set -- $(best1 "$dir/gz.json" "$xpstat" info --format json "$gz")
	[ "$4" = 0 ] || { echo "bench: xpstat failed on the .gz (status $4)"; fail=1; }
	if [ -z "$zw" ] || awk -v a="$1" -v b="$zw" 'BEGIN{exit !(a<b)}'; then zw=$1 zu=$2 zm=$3; fi
done
zev=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['events'])" "$dir/gz.json")
[ "$zev" = "$events" ] || { echo "bench: the .gz gave $zev events, the JSON $events"; fail=1; }
awk -v b="$bytes" -v g="$gzbytes" -v dw="$dw" -v du="$du" -v gw="$gw" -v zw="$zw" -v zu="$zu" -v zm="$zm" -v l="$(load)" 'BEGIN{
	printf "bench: .gz %.1f MB: decompressing alone %.3f s (%.2f CPU s, %.0f MB/s of JSON; gzip -dc %.3f s)\n", g/1e6, dw, du, b/dw/1e6, gw
	printf "bench: info on the .gz: %.3f s (%.2f CPU s), %.2fx the decompression alone (%.2fx gzip -dc), peak RSS %.0f MB (%.2fx the JSON), load %s\n",
	       zw, zu, zw/dw, zw/gw, zm/1024, zm*1024/b, l }'
awk -v b="$bytes" -v pw="$pw" -v pm="$pm" -v zw="$zw" -v dw="$dw" -v zm="$zm" 'BEGIN{
	mbs = b/pw/1e6; r1 = pm*1024/b; r2 = zm*1024/b; ratio = zw/dw
	v1 = "MISSED"; if (mbs >= 250) v1 = "met"
	v2 = "MISSED"; if (r1 <= 0.5 && r2 <= 0.5) v2 = "met"
	v3 = "MISSED"; if (ratio <= 1.3) v3 = "met"
	printf "bench: targets: JSON on 1 thread >= 250 MB/s: %.0f (%s); peak RSS <= 0.5x JSON: %.2fx plain, %.2fx gz (%s); .gz <= 1.3x decompression: %.2fx (%s)\n",
	       mbs, v1, r1, r2, v2, ratio, v3 }'
exit $fail
