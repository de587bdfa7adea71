# common.sh - what the scale tests share: failing with a reason, and a generated 16-host run with its
# one-process reports (sourced; sets work, fails).
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The run: 16 hosts, one file each (xpgen --variant many-hosts), in $work/run.
make_run() {
	"$xpgen" --variant many-hosts --hosts 16 -o "$work/run" >/dev/null || { echo "FAIL: xpgen"; exit 1; }
}
# The file name of the I-th capture in report's stable order (by file name).
nth_file() { ls "$work/run" | LC_ALL=C sort | sed -n "$(($1 + 1))p"; }
# One-process reports of host I alone, in a run directory of the same name (what combine of its saved report
# must equal): $work/one/I/run/<file>, expected JSON $work/one/I.json and CSV directory $work/one/I-csv.
one_host_expected() {
	mkdir -p "$work/one/$1/run"
	ln "$work/run/$(nth_file "$1")" "$work/one/$1/run/" || cp "$work/run/$(nth_file "$1")" "$work/one/$1/run/"
	(cd "$work/one/$1" && "$xpstat" report --quiet --format json -o ../"$1".json run) || fail "report host $1"
	[ "${2:-}" = csv ] || return 0
	(cd "$work/one/$1" && "$xpstat" report --quiet --format csv -o ../"$1"-csv run) || fail "report csv host $1"
}
# A saved report (plain or compressed) combined alone equals the one-process report of its host.
combine_equals() { # saved-report host-index [csv]
	(cd "$work" && "$xpstat" combine --format json -o combined.json "$1") || { fail "combine $1"; return; }
	cmp -s "$work/combined.json" "$work/one/$2.json" || fail "combine $1 differs from report of host $2"
	[ "${3:-}" = csv ] || return 0
	rm -rf "$work/combined-csv"
	(cd "$work" && "$xpstat" combine --format csv -o combined-csv "$1") || { fail "combine csv $1"; return; }
	diff -r "$work/combined-csv" "$work/one/$2-csv" >/dev/null || fail "combine csv $1 differs from report of host $2"
}
# Several hosts' reports, the whole report: equal byte for byte to 'xpstat report' over the whole run as JSON (the saved
# report, state and all), text, Markdown, the HTML page, a CSV directory and one CSV table. Run from $work; RUN is the
# run directory.
combine_report_equals() { # run-directory reports...
	run=$1
	shift
	for f in json text markdown html; do
		"$xpstat" report --quiet --format $f -o "$work/expected.$f" "$run" 2>"$work/expected.err" ||
			{ fail "report --format $f $run: $(cat "$work/expected.err")"; continue; }
		rm -f "$work/combined.$f"
		"$xpstat" combine --quiet --format $f -o "$work/combined.$f" "$@" 2>"$work/combined.err" ||
			{ fail "combine --format $f: $(cat "$work/combined.err")"; continue; }
		cmp -s "$work/expected.$f" "$work/combined.$f" ||
			fail "combine --format $f of $# reports differs from report over $run: $(diff "$work/expected.$f" "$work/combined.$f" | head -5)"
	done
	rm -rf "$work/expected-csv" "$work/combined-csv"
	"$xpstat" report --quiet --format csv -o "$work/expected-csv" "$run" || fail "report --format csv $run"
	"$xpstat" combine --quiet --format csv -o "$work/combined-csv" "$@" || fail "combine --format csv"
	diff -r "$work/expected-csv" "$work/combined-csv" >/dev/null || fail "combine --format csv differs from report over $run"
	"$xpstat" report --format csv --table pod-hosts "$run" >"$work/expected.csv" || fail "report --table pod-hosts $run"
	"$xpstat" combine --format csv --table pod-hosts "$@" >"$work/combined.csv" || fail "combine --table pod-hosts"
	cmp -s "$work/expected.csv" "$work/combined.csv" || fail "combine --table pod-hosts differs from report over $run"
}
# The analyses combine --analysis rebuilds of several hosts.
combinable="info steps pod kernel-stats tf-data input-pipeline memory tf-stats overview"
# Several hosts' reports, one analysis (combine --analysis, each of $combinable): equal byte for byte to 'xpstat ANALYSIS'
# over the whole run, in text, JSON and CSV (each table). Run from $work; RUN is the run directory.
combine_analysis_equals() { # run-directory reports...
	run=$1
	shift
	for a in $combinable; do
		for f in text json csv; do
			tables=main
			[ $f = csv ] && [ $a = pod ] && tables="main steps"
			[ $f = csv ] && [ $a = tf-data ] && tables="main input_pipelines slowest_call calls"
			[ $f = csv ] && [ $a = input-pipeline ] && tables="main steps host_breakdown step_stats"
			[ $f = csv ] && [ $a = overview ] && tables="main top_ops run_environment recommendation"
			[ $f = csv ] && [ $a = info ] && tables="main hosts devices analyses"
			for t in $tables; do
				opt=
				[ $t = main ] || opt="--table $t"
				# shellcheck disable=SC2086
				"$xpstat" $a --format $f $opt "$run" >"$work/expected.out" 2>"$work/expected.err" ||
					{ fail "$a --format $f $opt $run: $(cat "$work/expected.err")"; continue; }
				# shellcheck disable=SC2086
				"$xpstat" combine --analysis $a --format $f $opt "$@" >"$work/combined.out" 2>"$work/combined.err" ||
					{ fail "combine --analysis $a --format $f $opt: $(cat "$work/combined.err")"; continue; }
				cmp -s "$work/expected.out" "$work/combined.out" ||
					fail "combine --analysis $a --format $f $opt differs from '$a' over $run: $(diff "$work/expected.out" "$work/combined.out" | head -5)"
				# The progress and Read lines go to stdout/stderr alike; stderr must agree too.
				cmp -s "$work/expected.err" "$work/combined.err" ||
					fail "combine --analysis $a --format $f $opt: stderr differs: $(cat "$work/combined.err")"
			done
		done
	done
}
# A saved report whose state does not read back (EXPR, a sed expression, spoils one cell of it): combine --analysis
# ANALYSIS refuses it (exit 3, one line naming the report, nothing written). Run from $work's run directory.
combine_refuses_state() { # analysis sed-expression report other-reports...
	a=$1 expr=$2 r=$3
	shift 3
	sed "$expr" "$r" >bad-state.json
	cmp -s "$r" bad-state.json && { fail "combine --analysis $a: '$expr' changed nothing in $r"; return; }
	rm -f bad-state.out
	"$xpstat" combine --analysis "$a" -o bad-state.out bad-state.json "$@" 2>bad-state.err
	st=$?
	[ $st = 3 ] || fail "combine --analysis $a of a spoilt state: exit $st, not 3"
	[ "$(wc -l <bad-state.err)" = 1 ] || fail "combine --analysis $a of a spoilt state: not one line: $(cat bad-state.err)"
	grep -q 'bad-state.json: .*does not read back' bad-state.err || fail "combine --analysis $a: $(cat bad-state.err)"
	[ ! -e bad-state.out ] || fail "combine --analysis $a of a spoilt state wrote its output"
}
# The analysis that reads a state table (combine --analysis keeps its tables and the step databases').
analysis_of_table() { # table
	case $1 in
	info_*) echo info ;; kernel_*) echo kernel-stats ;; tfdata_*) echo tf-data ;; mem_*) echo memory ;;
	tfs_*) echo tf-stats ;; ov_*) echo overview ;; op_dbs | op_rows | run_env) echo input-pipeline ;; *) echo steps ;;
	esac
}
# Saved report R with jq's EXPR applied to its state table T, combined (OPTS: --analysis NAME or none) with the
# other reports: refused, exit 3, one line naming the table, nothing written.
combine_refuses_edit() { # table jq-expression opts report other-reports...
	t=$1 expr=$2 opts=$3 r=$4
	shift 4
	jq ".state.tables.\"$t\" |= ($expr)" "$r" >bad-rows.json || { fail "jq $expr on $t of $r"; return; }
	rm -f bad-rows.out
	# shellcheck disable=SC2086 # OPTS is none or two words
	"$xpstat" combine $opts --format json -o bad-rows.out bad-rows.json "$@" 2>bad-rows.err
	st=$?
	[ $st = 3 ] || fail "combine $opts of $t with $expr: exit $st, not 3"
	[ "$(wc -l <bad-rows.err)" = 1 ] || fail "combine $opts of $t with $expr: not one line: $(cat bad-rows.err)"
	# A row count lost or doubled is told by the table it counts.
	named=$t
	[ "$t" = state_rows ] && named='[a-z_0-9]*'
	grep -q "bad-rows.json: its state table $named does not read back: .*: not a report as this xpstat writes it" \
		bad-rows.err || fail "combine $opts of $t with $expr: $(cat bad-rows.err)"
	[ ! -e bad-rows.out ] || fail "combine $opts of $t with $expr wrote its output"
}
# Every state table of saved report R that holds rows (state_rows too), with its first row lost (combined as the
# analysis that reads it) and its last row doubled (combined as the whole report): both refused.
combine_refuses_rows() { # report other-reports...
	tables=$(jq -r '.state.tables | to_entries[] | select(.value | length > 0) | .key' "$1")
	[ "$(echo "$tables" | wc -w)" -ge 20 ] || { fail "$1: only these state tables hold rows: $tables"; return; }
	for t in $tables; do
		combine_refuses_edit "$t" 'del(.[0])' "--analysis $(analysis_of_table "$t")" "$@"
		combine_refuses_edit "$t" '. + [.[-1]]' "" "$@"
	done
}
