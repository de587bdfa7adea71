#!/bin/sh
# run_golden.sh - run one golden case: make its fixtures with xpgen, run xpstat, compare stdout, stderr and exit status.
# Usage: run_golden.sh XPSTAT XPGEN CASE_FILE EXPECTED_DIR
# A case file holds lines "gen: ARGS" (xpgen), "sh: COMMAND" (fixture surgery), one "run: ARGS" (xpstat),
# an optional "columns: N" (COLUMNS for the run; unset otherwise), an optional "locale: NAME" (LC_ALL for
# the run: text charts draw Unicode blocks only in a UTF-8 locale), "env: NAME=VALUE" lines (exported for the run)
# and "after: COMMAND" lines whose output is appended to stdout (to check files the run left behind),
# all run in a fresh temporary directory. XPSTAT_UPDATE_GOLDEN=1 rewrites the expected files instead.
# $XPSTAT_TESTDATA (the source's testdata/) reaches the committed fixtures, e.g. testdata/saved/; $XPSTAT is the binary.
set -u
abspath() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
xpstat=$(abspath "$1") xpgen=$(abspath "$2") case_file=$(abspath "$3") expected=$(abspath "$4")
name=$(basename "$case_file" .case)
XPSTAT_TESTDATA=$(dirname "$expected")
# Fixture commands may run xpstat itself ("sh: $XPSTAT report ..."): saved reports to combine.
XPSTAT=$xpstat
export XPSTAT_TESTDATA XPSTAT
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
run_args=
after=
columns=
locale=
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	gen:*) eval "set -- ${line#gen:}"; "$xpgen" "$@" >/dev/null || { echo "xpgen failed: $line" >&2; exit 1; } ;;
	sh:*) sh -c "${line#sh:}" || { echo "fixture command failed: $line" >&2; exit 1; } ;;
	run:*) run_args=${line#run:} ;;
	columns:*) columns=${line#columns:}; columns=${columns# } ;;
	locale:*) locale=${line#locale:}; locale=${locale# }; export LC_ALL="$locale" ;;
	env:*) env=${line#env:}; export "${env# }" ;;
	after:*) after="$after${line#after:}
" ;;
	''|'#'*) ;;
	*) echo "bad case line: $line" >&2; exit 1 ;;
	esac
done <"$case_file"
[ -n "$run_args" ] || { echo "$case_file has no run: line" >&2; exit 1; }
eval "set -- $run_args"
# Text is fitted to COLUMNS: only a case's "columns: N" line sets it.
if [ -n "$columns" ]; then
	NO_COLOR=1 COLUMNS=$columns "$xpstat" "$@" >stdout 2>stderr
else
	(unset COLUMNS; NO_COLOR=1 exec "$xpstat" "$@") >stdout 2>stderr
fi
echo $? >status
if [ -n "$after" ]; then
	printf '%s' "$after" | while IFS= read -r cmd; do sh -c "$cmd" >>stdout 2>&1; done
fi
if [ "${XPSTAT_UPDATE_GOLDEN:-0}" = 1 ]; then
	for f in stdout stderr status; do cp "$f" "$expected/$name.$f"; done
	echo "updated $name"
	exit 0
fi
bad=0
for f in stdout stderr status; do
	if ! cmp -s "$f" "$expected/$name.$f"; then
		echo "--- $name.$f differs (expected vs actual):"
		diff -u "$expected/$name.$f" "$f" | head -40
		bad=1
	fi
done
exit $bad
