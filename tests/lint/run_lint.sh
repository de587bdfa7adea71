#!/bin/sh
# run_lint.sh - every table of every command as CSV through check_csv, and every JSON document through its schema.
# Usage: run_lint.sh XPSTAT XPGEN CHECK_CSV CHECK_JSON_PY SCHEMA_DIR [REAL_DIR]
set -u
abspath() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
xpstat=$(abspath "$1") xpgen=$(abspath "$2") check_csv=$(abspath "$3") check_json=$(abspath "$4") schemas=$(abspath "$5") real=${6:-}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
n=0
mkdir -p "$work/logs/plugins/profile/2026_01_01_00_00_00"
"$xpgen" --variant raw --steps 3 --gpus 2 --seed 21 -o "$work/raw.xplane.pb" >/dev/null || exit 1
"$xpgen" --variant grouped --steps 3 --gpus 2 --seed 22 -o "$work/grouped.xplane.pb" >/dev/null || exit 1
"$xpgen" --variant jax --steps 2 --gpus 1 --seed 23 -o "$work/jax.xplane.pb" >/dev/null || exit 1
"$xpgen" --variant cpu --steps 2 --seed 24 --odd -o "$work/odd.xplane.pb" >/dev/null || exit 1
"$xpgen" --variant raw --hosts 2 --steps 2 --gpus 1 --seed 25 -o "$work/logs/plugins/profile/2026_01_01_00_00_00" >/dev/null || exit 1
inputs="$work/raw.xplane.pb $work/grouped.xplane.pb $work/jax.xplane.pb $work/odd.xplane.pb $work/logs"
if [ -n "$real" ] && [ -d "$real" ]; then
	inputs="$inputs $(find "$real" -name '*.xplane.pb' | sort | tr '\n' ' ')"
fi

# The table names of a JSON document (its "tables" object, in order): lint takes them from the output,
# so a table a command adds is linted without an edit here.
tables_of() { # json-file
	/usr/bin/python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["tables"]))' "$1"
}

check() { # what, command...
	what=$1
	shift
	n=$((n + 1))
	if ! "$@" >"$work/check.log" 2>&1; then
		echo "FAIL $what"
		cat "$work/check.log"
		fail=1
	fi
}

for in in $inputs; do
	"$xpstat" info --lines --format json "$in" >"$work/out.json" || { echo "FAIL info json $in"; fail=1; continue; }
	check "info json $in" /usr/bin/python3 "$check_json" "$schemas/info.schema.json" "$work/out.json"
	for t in $(tables_of "$work/out.json"); do
		"$xpstat" info --lines --format csv --table "$t" "$in" >"$work/out.csv" || { echo "FAIL info csv $t $in"; fail=1; continue; }
		check "info --table $t $in" "$check_csv" "$work/out.csv"
	done
done
# The step commands: every table as CSV, the whole result against its schema.
lint_step_command() { # command input [options...]
	cmd=$1 in=$2
	shift 2
	"$xpstat" "$cmd" "$@" --format json "$in" >"$work/out.json" || { echo "FAIL $cmd $* json $in"; fail=1; return; }
	check "$cmd $* json $in" /usr/bin/python3 "$check_json" "$schemas/$cmd.schema.json" "$work/out.json"
	for t in $(tables_of "$work/out.json"); do
		"$xpstat" "$cmd" "$@" --format csv --table "$t" "$in" >"$work/out.csv" || { echo "FAIL $cmd $* csv $t $in"; fail=1; continue; }
		check "$cmd $* --table $t $in" "$check_csv" "$work/out.csv"
	done
}
for in in $inputs; do
	for cmd in overview steps pod; do
		lint_step_command "$cmd" "$in"
	done
done
for cmd in overview steps pod; do
	lint_step_command "$cmd" "$work/jax.xplane.pb" --step-marker '^jit_train_step$'
	lint_step_command "$cmd" "$work/raw.xplane.pb" --compat xprof
done
"$xpstat" runs --format json "$work/logs" >"$work/out.json" || fail=1
check "runs json" /usr/bin/python3 "$check_json" "$schemas/runs.schema.json" "$work/out.json"
for t in $(tables_of "$work/out.json"); do
	"$xpstat" runs --format csv --table "$t" "$work/logs" >"$work/out.csv" || fail=1
	check "runs --table $t" "$check_csv" "$work/out.csv"
done
# kernel-stats: every table as CSV (the tables its JSON names) and the whole result against its schema; filters,
# --top, --sort, --compat too.
lint_kernel_stats() { # input [options...]
	in=$1
	shift
	"$xpstat" kernel-stats "$@" --format json "$in" >"$work/out.json" || { echo "FAIL kernel-stats $* json $in"; fail=1; return; }
	check "kernel-stats $* json $in" /usr/bin/python3 "$check_json" "$schemas/kernel-stats.schema.json" "$work/out.json"
	for t in $(tables_of "$work/out.json"); do
		"$xpstat" kernel-stats "$@" --format csv --table "$t" "$in" >"$work/out.csv" || { echo "FAIL kernel-stats $* csv $t $in"; fail=1; continue; }
		check "kernel-stats $* --table $t $in" "$check_csv" "$work/out.csv"
	done
}
for in in $inputs; do
	lint_kernel_stats "$in"
done
lint_kernel_stats "$work/raw.xplane.pb" --op 'MatMul' --top 3
lint_kernel_stats "$work/jax.xplane.pb" --compat xprof --sort count
lint_kernel_stats "$work/grouped.xplane.pb" --kernel '^nothing$'
# tf-stats: every table as CSV (the tables its JSON names), the whole result against its schema, and each CSV
# cell for cell against the JSON.
csv_matches_json=$(dirname "$check_json")/csv_matches_json.py
lint_tf_stats() { # input [options...]
	in=$1
	shift
	"$xpstat" tf-stats "$@" --format json "$in" >"$work/out.json" || { echo "FAIL tf-stats $* json $in"; fail=1; return; }
	check "tf-stats $* json $in" /usr/bin/python3 "$check_json" "$schemas/tf-stats.schema.json" "$work/out.json"
	for t in $(tables_of "$work/out.json"); do
		"$xpstat" tf-stats "$@" --format csv --table "$t" "$in" >"$work/out.csv" || { echo "FAIL tf-stats $* csv $t $in"; fail=1; continue; }
		check "tf-stats $* --table $t $in" "$check_csv" "$work/out.csv"
		check "tf-stats $* csv = json $t $in" /usr/bin/python3 "$csv_matches_json" "$work/out.csv" "$work/out.json" "$t"
	done
}
for in in $inputs; do
	lint_tf_stats "$in"
done
lint_tf_stats "$work/raw.xplane.pb" --no-idle --top 5 --sort total
lint_tf_stats "$work/grouped.xplane.pb" --device-only --op 'MatMul|Conv' --sort avg
lint_tf_stats "$work/odd.xplane.pb" --host-only --type '^Dataset$' --sort name
lint_tf_stats "$work/jax.xplane.pb" --compat xprof --sort count
# memory: every table as CSV (and cell for cell against the JSON), the whole result against its schema.
lint_memory() { # input [options...]
	in=$1
	shift
	"$xpstat" memory --breakdown --timeline "$@" --format json "$in" >"$work/out.json" || { echo "FAIL memory $* json $in"; fail=1; return; }
	for t in $(tables_of "$work/out.json"); do
		"$xpstat" memory --breakdown --timeline "$@" --format csv --table "$t" "$in" >"$work/out.csv" || { echo "FAIL memory $* csv $t $in"; fail=1; continue; }
		check "memory $* --table $t $in" "$check_csv" "$work/out.csv"
		check "memory $* csv = json $t $in" /usr/bin/python3 "$(dirname "$check_json")/csv_matches_json.py" "$work/out.csv" "$work/out.json" "$t"
	done
	"$xpstat" memory "$@" --format json "$in" >"$work/out.json" || { echo "FAIL memory $* json $in"; fail=1; return; }
	check "memory $* json $in" /usr/bin/python3 "$check_json" "$schemas/memory.schema.json" "$work/out.json"
	"$xpstat" memory --breakdown --timeline "$@" --format json "$in" >"$work/out.json" || { echo "FAIL memory $* json $in"; fail=1; return; }
	check "memory --breakdown --timeline $* json $in" /usr/bin/python3 "$check_json" "$schemas/memory.schema.json" "$work/out.json"
}
for in in $inputs; do
	lint_memory "$in"
done
lint_memory "$work/raw.xplane.pb" --points 7
lint_memory "$work/logs" --allocator cpu
# input-pipeline, tf-data: every table as CSV (and cell for cell against the JSON), the whole result against its schema.
lint_input_command() { # command input [options...]
	cmd=$1 in=$2
	shift 2
	"$xpstat" "$cmd" "$@" --format json "$in" >"$work/in.json" || { echo "FAIL $cmd $* json $in"; fail=1; return; }
	check "$cmd $* json $in" /usr/bin/python3 "$check_json" "$schemas/$cmd.schema.json" "$work/in.json"
	for t in $(tables_of "$work/in.json"); do
		"$xpstat" "$cmd" "$@" --format csv --table "$t" "$in" >"$work/in.csv" || { echo "FAIL $cmd $* csv $t $in"; fail=1; continue; }
		check "$cmd $* --table $t $in" "$check_csv" "$work/in.csv"
		check "$cmd $* csv = json $t $in" /usr/bin/python3 "$(dirname "$check_json")/csv_matches_json.py" "$work/in.csv" "$work/in.json" "$t"
	done
}
for in in $inputs; do
	lint_input_command input-pipeline "$in"
	lint_input_command tf-data "$in"
done
lint_input_command input-pipeline "$work/jax.xplane.pb" --step-marker '^jit_train_step$'
lint_input_command input-pipeline "$work/raw.xplane.pb" --compat xprof
# report: one JSON document whose analyses each meet their own schema ($ref), every table as a CSV file of -o DIR;
# check in every format (its exit status 0, 1 or 3 is the verdict, not a lint failure); compare, every table.
gate="--min-steps 1 --max-step-time 1s --max-median-step-time 1s --max-category input=10% --max-category device_compute=1ms"
gate="$gate --max-input-bound 50% --max-op-self-time IDLE=1ms --max-peak-memory 1G"
for in in $inputs; do
	"$xpstat" report --format json "$in" >"$work/report.json" || { echo "FAIL report json $in"; fail=1; continue; }
	check "report json $in" /usr/bin/python3 "$check_json" "$schemas/report.schema.json" "$work/report.json"
	# combine: a saved report (compressed) of its hosts comes back as the same document (report's schema).
	"$xpstat" report --format json -o "$work/report.json.zst" "$in" || { echo "FAIL report json.zst $in"; fail=1; continue; }
	if "$xpstat" combine --format json -o "$work/combine.json" "$work/report.json.zst" 2>"$work/combine.err"; then
		check "combine json $in" /usr/bin/python3 "$check_json" "$schemas/report.schema.json" "$work/combine.json"
		check "combine = report $in" cmp -s "$work/combine.json" "$work/report.json"
	else
		echo "FAIL combine $in: $(cat "$work/combine.err")"
		fail=1
	fi
	rm -rf "$work/report-csv"
	"$xpstat" report --format csv -o "$work/report-csv" "$in" || { echo "FAIL report csv $in"; fail=1; continue; }
	for f in "$work/report-csv"/*.csv; do
		check "report csv $(basename "$f") $in" "$check_csv" "$f"
	done
	for fmt in json csv junit; do
		# shellcheck disable=SC2086
		"$xpstat" check $gate --baseline "$work/report.json" --format $fmt "$in" >"$work/check.$fmt"
		st=$?
		[ $st = 0 ] || [ $st = 1 ] || [ $st = 3 ] || { echo "FAIL check --format $fmt $in: status $st"; fail=1; }
	done
	check "check json $in" /usr/bin/python3 "$check_json" "$schemas/check.schema.json" "$work/check.json"
	check "check csv $in" "$check_csv" "$work/check.csv"
	check "check junit $in" /usr/bin/python3 "$(dirname "$check_json")/check_junit.py" "$work/check.junit"
	# Without a baseline what is not known is null (schema version 2), not "" or 0.
	"$xpstat" check --max-step-time 1s --format json "$in" >"$work/check-alone.json"
	check "check json without baseline $in" /usr/bin/python3 "$check_json" "$schemas/check.schema.json" "$work/check-alone.json"
	"$xpstat" compare --format json "$work/report.json" "$in" >"$work/compare.json" || { echo "FAIL compare json $in"; fail=1; continue; }
	check "compare json $in" /usr/bin/python3 "$check_json" "$schemas/compare.schema.json" "$work/compare.json"
	for t in $(tables_of "$work/compare.json"); do
		"$xpstat" compare --format csv --table "$t" "$work/report.json" "$in" >"$work/compare.csv" || { echo "FAIL compare csv $t $in"; fail=1; continue; }
		check "compare --table $t $in" "$check_csv" "$work/compare.csv"
	done
done
# A result saved by the previous version (schema_version 1) is still a baseline.
for saved in "$schemas"/../testdata/saved/*-v1*.json; do
	"$xpstat" check --min-steps 1 --max-regression 50% --baseline "$saved" --format json "$work/raw.xplane.pb" >"$work/check-v1.json"
	check "check json, baseline $(basename "$saved")" /usr/bin/python3 "$check_json" "$schemas/check.schema.json" "$work/check-v1.json"
	"$xpstat" compare --format json "$saved" "$work/raw.xplane.pb" >"$work/compare-v1.json"
	check "compare json, baseline $(basename "$saved")" /usr/bin/python3 "$check_json" "$schemas/compare.schema.json" "$work/compare-v1.json"
done
echo "lint: $n checks, $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
