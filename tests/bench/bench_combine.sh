#!/bin/sh
# bench_combine.sh - combine's read of 64 saved per-host reports (zstd) of a generated 64-host run against report
# of one host's capture: wall time and peak memory of each. Usage: bench_combine.sh XPSTAT XPGEN MEASURE [HOSTS]
# Combine checks each report as it reads it; with several hosts it refuses at the second (exit 3: the
# multi-host tables cannot be rebuilt exactly yet), so the figure is the cost of reading two reports of the 64
# and refusing. The script fails only when a command fails unexpectedly, never on time.
set -u
xpstat=$1 xpgen=$2 measure=$3 hosts=${4:-64}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-combine.$$
mkdir -p "$dir/per" || exit 1
trap 'rm -rf "$dir"' EXIT
"$xpgen" --variant many-hosts --hosts "$hosts" -o "$dir/run" >/dev/null || exit 1
echo "bench: $hosts hosts, $(du -sb "$dir/run" | awk '{printf "%.1f MB", $1/1e6}') of captures"
i=0
while [ $i -lt "$hosts" ]; do
	"$xpstat" report --quiet --host-index $i --format json -o "$dir/per/$i.json.zst" "$dir/run" || exit 1
	i=$((i + 1))
done
echo "bench: saved reports $(du -sb "$dir/per" | awk '{printf "%.1f MB", $1/1e6}') compressed"
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
one=$("$measure" - "$xpstat" report --quiet --host-index 0 --format json -o "$dir/one.json" "$dir/run")
[ "$(echo "$one" | field status)" = 0 ] || { echo "bench: report failed"; exit 1; }
all=$("$measure" - "$xpstat" combine --format json -o "$dir/all.json" "$dir"/per/*.json.zst)
[ "$(echo "$all" | field status)" = 3 ] || { echo "bench: combine of $hosts hosts did not refuse: $all"; exit 1; }
echo "bench: report of one host:           $(echo "$one" | field wall_s) s, $(echo "$one" | field maxrss_kb) KB"
echo "bench: combine of $hosts saved reports: $(echo "$all" | field wall_s) s, $(echo "$all" | field maxrss_kb) KB (refused at the second host)"
