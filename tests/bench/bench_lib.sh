# bench_lib.sh - what the bench scripts share, sourced with ". bench_lib.sh" after they set $measure.
# field NAME: the value of NAME=... in measure's output (stdin).
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
# Best of 3 by CPU time (user + sys): on a shared machine the wall time mostly measures the neighbours.
best_of_3() { # out-file command... ; prints "cpu_s wall_s rss_kb", fails on a non-zero exit status
	best= best_wall= best_rss=
	for rep in 1 2 3; do
		r=$("$measure" "$@")
		st=$(echo "$r" | field status)
		[ "$st" = 0 ] || { echo "bench: $2 $3 failed (status $st)" >&2; return 1; }
		cpu=$(awk -v u="$(echo "$r" | field user_s)" -v s="$(echo "$r" | field sys_s)" 'BEGIN{printf "%.3f", u+s}')
		if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN{exit !(a<b)}'; then
			best=$cpu best_wall=$(echo "$r" | field wall_s) best_rss=$(echo "$r" | field maxrss_kb)
		fi
	done
	echo "$best $best_wall $best_rss"
}
