#!/bin/sh
# bench_shapes.sh - every command on captures of different shapes (xpgen --variant diverse, dynamic-shapes,
# many-hosts (a run of 16 host files, SIZE in all) and the default raw one), against `xpstat info --format json`
# (decode alone) on the same file in the same run: wall, CPU and peak RSS, medians of ROUNDS runs taken in
# alternation (info, then each command, round after round), and the targets as ratios; and the hand-written
# XSpace walker alone on one thread (xplane_walk, the decode floor). Then report on a capture BIG_SIZE large
# against the SIZE one (linear growth).
# Usage: bench_shapes.sh XPSTAT XPGEN MEASURE XPLANE_WALK [SIZE] [ROUNDS] [BIG_SIZE]   (BIG_SIZE=0: no growth check)
# Targets (default threads, one file): overview, steps, pod, input-pipeline, tf-data, tf-stats, memory, kernel-stats
# (text) wall <= 3x info's, peak RSS <= 1.5x the file; kernel-stats csv/json and report json wall <= 4x info's + output
# bytes / 200 MB/s, RSS <= 2x; report on the raw capture >= 500 MB/s; BIG_SIZE report time <= 4.4x SIZE's per 4x bytes.
# Per distinct row: about 0.3 us of CPU and 120 bytes resident (allocator events over the decode; kernel-op rows
# as diverse's over dynamic-shapes', whose events are the same).
# The script fails only when a command fails, never on time: figures depend on the machine and its load.
set -u
xpstat=$1 xpgen=$2 measure=$3 walk=$4 size=${5:-1G} rounds=${6:-3} big=${7:-4G}
dir=${XPSTAT_BENCH_DIR:-${TMPDIR:-/tmp}}/xpstat-bench-shapes.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
fail=0
# One run: appends "wall cpu rss_kb out_bytes" to $dir/<label>.runs.
run() { # label command...
	label=$1; shift
	r=$("$measure" "$dir/out" "$@")
	st=$(echo "$r" | field status)
	[ "$st" = 0 ] || { echo "bench: $label failed (status $st)"; fail=1; }
	echo "$(echo "$r" | field wall_s) $(awk -v u="$(echo "$r" | field user_s)" -v s="$(echo "$r" | field sys_s)" \
		'BEGIN{printf "%.3f", u+s}') $(echo "$r" | field maxrss_kb) $(stat -c %s "$dir/out")" >>"$dir/$label.runs"
	# A report's output is gigabytes: written back while the next command runs, it would slow that one (info,
	# the floor, follows report) by a second or more. Gone and synced before the next run, outside any timing.
	rm -f "$dir/out"
	sync
}
col() { awk -v c="$2" '{print $c}' "$dir/$1.runs" | median; }
COMMANDS="overview steps pod input-pipeline tf-data tf-stats memory kernel-stats"
summary_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"][sys.argv[1]])' "$1"; }
# kernel-stats (text) on capture A against B, of the same events: its extra CPU and peak RSS per extra kernel-op row.
rows_between() { # A B
	cat "$dir/$1.kernel-rows" "$dir/$2.kernel-rows" | awk -v a="$1" -v b="$2" '
		NR == 1 { n = $1; c = $2; r = $3 } NR == 2 { n -= $1; c -= $2; r -= $3 }
		END { if (n < 10000) exit; us = c * 1e6 / n; by = r * 1024 / n
		printf "bench: per kernel-op row, %s against %s (the same events, %d more rows): CPU %.2f us (target ~0.3: %s), resident %.0f bytes (target ~120: %s)\n",
		       a, b, n, us, (us <= 0.3 ? "met" : "MISSED"), by, (by <= 120 ? "met" : "MISSED") }'
}
per_row() { # what label rows
	awk -v what="$1" -v n="$3" -v c="$(col "$2" 2)" -v ic="$(col info 2)" -v r="$(col "$2" 3)" -v ir="$(col info 3)" \
	    -v v="$name" 'BEGIN{ if (n < 10000) exit; us = (c - ic) * 1e6 / n; b = (r - ir) * 1024 / n
		printf "bench: %s: per %s (%d): CPU %.2f us (target ~0.3: %s), resident %.0f bytes (target ~120: %s)\n",
		       v, what, n, us, (us <= 0.3 ? "met" : "MISSED"), b, (b <= 120 ? "met" : "MISSED") }'
}
bench_variant() { # name xpgen-args...
	name=$1; shift
	cap=$dir/$name.xplane.pb
	[ "$name" = many-hosts ] && cap=$dir/$name     # a run: a directory of host files, SIZE in all
	echo "bench: generating a $size $name capture..."
	nice "$xpgen" "$@" --seed 42 --target-bytes "$size" -o "$cap" >/dev/null || { fail=1; return; }
	bytes=$(du -cb "$cap" | tail -n 1 | cut -f 1)
	sync    # the capture just written: its writeback would otherwise slow the first runs
	if [ -d "$cap" ]; then cat "$cap"/* >/dev/null; else cat "$cap" >/dev/null; fi
	rm -f "$dir"/*.runs
	echo "bench: $name: $(awk -v b="$bytes" 'BEGIN{printf "%.1f MB", b/1e6}'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
	for round in $(seq "$rounds"); do
		run info "$xpstat" info --format json "$cap"
		for c in $COMMANDS; do run "$c" "$xpstat" "$c" --format json "$cap"; done
		run kernel-stats-text "$xpstat" kernel-stats "$cap"
		run kernel-stats-csv "$xpstat" kernel-stats --format csv "$cap"
		run report "$xpstat" report --format json "$cap"
	done
	if [ -f "$cap" ]; then
		"$walk" "$cap" "$rounds" | sed -n "s/^walker: */bench: $name: walker floor (one thread): /p"
	else
		echo "bench: $name: walker floor: not measured (the walker reads one file; info is the floor of the run)"
	fi
	iw=$(col info 1)
	for label in info $COMMANDS kernel-stats-text kernel-stats-csv report; do
		out=$(col "$label" 4)
		case $label in
		info) lim=1; rlim=1.5 ;;
		kernel-stats|kernel-stats-csv|report) lim=$(awk -v w="$iw" -v o="$out" 'BEGIN{printf "%.3f", 4 + o/200e6/w}'); rlim=2 ;;
		*) lim=3; rlim=1.5 ;;
		esac
		[ "$label" = kernel-stats ] && label_out="kernel-stats --format json" || label_out=$label
		awk -v l="$label_out" -v w="$(col "$label" 1)" -v c="$(col "$label" 2)" -v r="$(col "$label" 3)" -v o="$out" \
		    -v iw="$iw" -v b="$bytes" -v lim="$lim" -v rlim="$rlim" -v n="$name" 'BEGIN{
			x = w/iw; m = r*1024/b
			printf "bench: %s: %-28s wall %7.3f s (%5.2fx info; target <= %.2fx: %s), CPU %7.3f s, peak RSS %6.0f MB (%.2fx file; <= %.1fx: %s), output %.1f MB\n",
			       n, l, w, x, lim, (x <= lim ? "met" : "MISSED"), c, r/1024, m, rlim, (m <= rlim ? "met" : "MISSED"), o/1e6 }'
	done
	# What a distinct row costs (target about 0.3 us of CPU and 120 bytes resident): memory over the decode, per
	# allocator event, an upper bound (the per-event work of the command is charged to its rows too); left out
	# under 10,000 rows, where it says nothing. kernel-stats decodes the device planes alone, so info is no floor
	# for it: its rows are priced after dynamic-shapes, against diverse (the same events, more rows).
	events=$("$xpstat" memory --format json "$cap" | summary_field memory_events)
	per_row "allocator event" memory "$events"
	case $name in diverse|dynamic-shapes)
		rows=$("$xpstat" kernel-stats --format json "$cap" | summary_field rows)
		echo "$rows $(col kernel-stats-text 2) $(col kernel-stats-text 3)" >"$dir/$name.kernel-rows" ;;
	esac
	[ "$name" = dynamic-shapes ] && [ -f "$dir/diverse.kernel-rows" ] && rows_between diverse dynamic-shapes
	if [ "$name" = raw ]; then
		awk -v b="$bytes" -v w="$(col report 1)" 'BEGIN{ s = b/w/1e6
			printf "bench: raw: report %.0f MB/s (target >= 500: %s)\n", s, (s >= 500 ? "met" : "MISSED") }'
		report_1=$(col report 1) bytes_1=$bytes
	fi
	rm -rf "$cap"
}
bench_variant diverse --variant diverse
bench_variant dynamic-shapes --variant dynamic-shapes
bench_variant many-hosts --variant many-hosts
bench_variant raw --variant raw --gpus 2
if [ "$big" != 0 ]; then
	cap=$dir/big.xplane.pb
	echo "bench: generating a $big raw capture..."
	nice "$xpgen" --variant raw --gpus 2 --seed 42 --target-bytes "$big" -o "$cap" >/dev/null || exit 1
	bb=$(stat -c %s "$cap")
	cat "$cap" >/dev/null
	rm -f "$dir"/report.runs
	for round in $(seq "$rounds"); do run report "$xpstat" report --format json "$cap"; done
	awk -v w="$(col report 1)" -v w1="$report_1" -v b="$bb" -v b1="$bytes_1" 'BEGIN{ x = w/w1; lim = 4.4*(b/b1)/4
		printf "bench: report on %.2f GB: %.3f s, %.2fx the %.2f GB time for %.2fx the bytes (target <= %.2fx: %s)\n",
		       b/1e9, w, x, b1/1e9, b/b1, lim, (x <= lim ? "met" : "MISSED") }'
fi
exit $fail
