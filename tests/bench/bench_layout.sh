#!/bin/sh
# bench_layout.sh - no slower than before the restructure (issue 15): builds the commit it started from and alternates
# old and new binaries on a generated ~1 GiB XSpace capture and a ~1 GiB trace JSON (the capture of a quarter of SIZE
# exported by xp2trace); prints median new/old and the old/old spread of the same run.
# Usage: bench_layout.sh XPSTAT XPGEN MEASURE SOURCE_ROOT XP2TRACE [BASE_COMMIT] [SIZE] [RUNS]
set -u
xpstat=$1 xpgen=$2 measure=$3 src=$4 xp2trace=$5 base=${6:-e3bff57} size=${7:-1G} runs=${8:-9}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-layout.$$
mkdir -p "$dir/old" || exit 1
trap 'rm -rf "$dir"' EXIT

echo "bench: building $base (the commit the change started from)..."
git -C "$src" archive "$base" | tar -x -C "$dir/old" || exit 1
(cd "$dir/old" && meson setup build -Dtests=false >/dev/null && ninja -C build cmd/xpstat >/dev/null) ||
	{ echo "bench: could not build $base"; exit 1; }
old=$dir/old/build/cmd/xpstat

cap=$dir/bench.xplane.pb
echo "bench: generating a $size raw capture..."
"$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$size" -o "$cap" >/dev/null || exit 1
echo "bench: file $(stat -c %s "$cap" | awk '{printf "%.1f MB", $1/1e6}')"
json=$dir/bench.trace.json
echo "bench: generating its trace JSON (from a quarter of $size)..."
"$xpgen" --variant raw --gpus 2 --seed 43 --target-bytes "$(numfmt --from=iec "$size" | awk '{printf "%d", $1/4}')" \
	-o "$dir/small.xplane.pb" >/dev/null && "$xp2trace" "$dir/small.xplane.pb" "$json" || exit 1
rm -f "$dir/small.xplane.pb"
echo "bench: trace JSON $(stat -c %s "$json" | awk '{printf "%.1f MB", $1/1e6}')"
cat "$cap" "$json" >/dev/null

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
fail=0
# One job: old, new, old again, RUNS rounds. The second old series measures the noise of this machine in this run.
bench_job() { # name, input, xpstat arguments...
	name=$1 in=$2
	shift 2
	: >"$dir/t.old" && : >"$dir/t.new" && : >"$dir/t.old2"
	i=0
	while [ $i -lt "$runs" ]; do
		for which in old new old2; do
			bin=$old
			[ $which = new ] && bin=$xpstat
			r=$("$measure" "$dir/out.$which" "$bin" "$@" "$in")
			[ "$(echo "$r" | field status)" = 0 ] || { echo "bench: $which $name failed: $r"; fail=1; }
			echo "$r" | field wall_s >>"$dir/t.$which"
		done
		cmp -s "$dir/out.old" "$dir/out.new" || { echo "bench: $name: old and new outputs differ"; fail=1; }
		i=$((i + 1))
	done
	mo=$(median <"$dir/t.old") mn=$(median <"$dir/t.new") m2=$(median <"$dir/t.old2")
	awk -v n="$name" -v o="$mo" -v w="$mn" -v o2="$m2" -v k="$runs" 'BEGIN{
		r = w / o; s = o2 / o; sp = (s > 1 ? s - 1 : 1 - s)
		ok = (r <= 1.03 || r <= 1 + sp)
		printf "bench: %s: median old %.3f s, new %.3f s, new/old %.3f; old/old %.3f (spread %.1f%%), %d runs each: %s\n",
		       n, o, w, r, s, 100 * sp, k, ok ? "met" : "SLOWER"
		exit !ok }' || fail=1
}
bench_job "info --threads 1 (XSpace)" "$cap" info --format json --threads 1
bench_job "report --threads 2 (XSpace)" "$cap" report --format json --threads 2
bench_job "info --threads 1 (trace JSON)" "$json" info --format json --threads 1
bench_job "info --threads 2 (trace JSON)" "$json" info --format json --threads 2
exit $fail
