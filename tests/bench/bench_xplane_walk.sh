#!/bin/sh
# bench_xplane_walk.sh - the hand-written XSpace walker against protobuf-c's unpack on one generated capture,
# alternated, medians (DESIGN: the walker stays only while it is >= 2x faster on the event loop).
# Usage: bench_xplane_walk.sh XPGEN XPLANE_WALK [SIZE] [ROUNDS]
# The capture is held in memory once and protobuf-c's tree takes several times its size: keep SIZE modest.
set -u
xpgen=$1 walk=$2 size=${3:-128M} rounds=${4:-9}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
cap=$dir/walk.xplane.pb
echo "bench: generating a $size raw capture..."
"$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$size" -o "$cap" >/dev/null || exit 1
out=$("$walk" "$cap" "$rounds")
status=$?
echo "$out" | sed 's/^/bench: /'
exit $status
