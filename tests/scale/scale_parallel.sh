#!/bin/sh
# scale_parallel.sh - GNU parallel over a generated 16-host run: one report per host (report --host-index),
# saved compressed, each combined and compared byte for byte with one-process report of that host (JSON and
# CSV directory); the 16 together give the whole report, and every analysis (combine --analysis), as one process over
# the run gives it, byte for byte in every format. A saved report whose state does not read back (a cell spoilt,
# a row of any state table lost or doubled) is refused (exit 3, one line).
set -u
xpstat=$1 xpgen=$2
here=$(cd "$(dirname "$0")" && pwd)
# meson runs the test in the build directory with relative paths; the test works elsewhere.
abspath() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
xpstat=$(abspath "$xpstat") xpgen=$(abspath "$xpgen")
command -v parallel >/dev/null || { echo "FAIL: GNU parallel is not installed (tools/test.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/scale_parallel.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
. "$here/common.sh"
make_run
mkdir -p "$work/per"
# The one-liner of README and xpstat-combine(1).
(cd "$work" && seq 0 15 | parallel --halt now,fail=1 -j 2 "$xpstat" report --quiet --host-index {} --format json \
	-o per/{}.json.zst run) || fail "parallel report --host-index"
for i in $(seq 0 15); do
	case $i in 0 | 7 | 15) csv=csv ;; *) csv= ;; esac
	one_host_expected "$i" $csv
	combine_equals "per/$i.json.zst" "$i" $csv
done
# Compressed saved reports read as the plain ones: zstd and gzip decompress to report's JSON; check reads them.
(cd "$work" && "$xpstat" report --quiet --host-index 3 --format json -o p3.json run &&
	"$xpstat" report --quiet --host-index 3 --format json -o p3.json.gz run) || fail "report -o .gz"
zstd -dc "$work/per/3.json.zst" | cmp -s - "$work/p3.json" || fail "per/3.json.zst is not report's JSON"
gzip -dc "$work/p3.json.gz" | cmp -s - "$work/p3.json" || fail "p3.json.gz is not report's JSON"
for b in p3.json p3.json.gz per/3.json.zst; do
	(cd "$work" && "$xpstat" check --min-steps 1 --baseline "$b" --max-step-time 1s --format json \
		-o "check-$(basename "$b").out" "one/3/run")
	[ $? -le 1 ] || fail "check --baseline $b"
	# The result names its baseline file; all else must be the same.
	grep -v '"baseline":' "$work/check-$(basename "$b").out" >"$work/check-$(basename "$b")"
done
cmp -s "$work/check-p3.json" "$work/check-p3.json.gz" || fail "check with a .gz baseline differs"
cmp -s "$work/check-p3.json" "$work/check-3.json.zst" || fail "check with a .zst baseline differs"
cd "$work" && combine_report_equals run per/*.json.zst
# Given in any order (the shell's: 0, 1, 10, 11, ...), plain and compressed alike.
combine_analysis_equals run per/*.json.zst
combine_analysis_equals run p3.json $(ls per/*.json.zst | grep -v '/3.json')
# The other generated variants of several hosts (GPU TensorFlow raw and grouped, JAX on AMD, CPU only).
for v in raw grouped jax cpu; do
	mkdir -p "$work/$v"
	"$xpgen" --variant $v --hosts 3 -o "$work/$v/run" >/dev/null || { fail "xpgen --variant $v"; continue; }
	cd "$work/$v" || exit 1
	seq 0 2 | parallel --halt now,fail=1 -j 2 "$xpstat" report --quiet --host-index {} --format json -o h{}.json run ||
		fail "$v: report --host-index"
	combine_analysis_equals run h2.json h0.json h1.json
	combine_report_equals run h2.json h0.json h1.json
	# One saved report of the three hosts (report in one process, its state per host) gives the same.
	"$xpstat" report --quiet --format json -o all.json run || fail "$v: report of the run"
	combine_analysis_equals run all.json
	combine_report_equals run all.json
	# A combined report combines again: with the hosts' own reports it would hold them twice.
	"$xpstat" combine --quiet --format json -o again.json h1.json h0.json h2.json || fail "$v: combine"
	cmp -s again.json all.json || fail "$v: the combined report differs from report of the run"
	combine_report_equals run again.json
	[ $v = raw ] && {
		combine_refuses_state tf-data 's/"iterator_events":\t"\([0-9]\)/"iterator_events":\t"x\1/' h0.json h1.json
		combine_refuses_state input-pipeline 's/"has_category":\ttrue/"has_category":\t"true"/' h0.json h1.json
		combine_refuses_state memory 's/"pt_blind":\tfalse/"pt_blind":\t0/' h0.json h1.json
		combine_refuses_state tf-stats 's/"pt_orphan_events":\t"\([0-9]\)/"pt_orphan_events":\t"x\1/' h0.json h1.json
		combine_refuses_state tf-stats 's/"row":\t"tf \([0-9]\)/"row":\t"tf x\1/' h0.json h1.json
		combine_refuses_state overview 's/"tensor_cores":\t\([a-z]*\)/"tensor_cores":\t"\1"/' h0.json h1.json
		combine_refuses_state overview 's/"row":\t"tf \([0-9]\)/"row":\t"tf x\1/' h0.json h1.json
		combine_refuses_state info 's/"events":\t"\([0-9]\)/"events":\t"x\1/' h0.json h1.json
		combine_refuses_state info 's/"planes":\t"\([0-9]\)/"planes":\t"9\1/' h0.json h1.json
		# A row lost or doubled in any state table: refused, whatever the analysis.
		combine_refuses_rows h0.json h1.json h2.json
		# The last host's last op row of a report of three hosts.
		combine_refuses_edit op_rows 'del(.[-1])' "" all.json
	}
	cd "$work" || exit 1
done
# Hosts that record one hostname (named by their files), saved by --shard (several hosts a report, named
# apart there) and per host, combined in any mix: named as one process names them.
mkdir -p "$work/same/run"
for v in cpu jax raw; do
	"$xpgen" --variant $v --steps 1 --host samehost -o "$work/same/run/$v.xplane.pb" >/dev/null || fail "xpgen $v"
done
cd "$work/same" || exit 1
for s in 0 1; do
	"$xpstat" report --quiet --shard $s/2 --format json -o s$s.json.zst run || fail "same: report --shard $s/2"
done
for i in 0 1 2; do
	"$xpstat" report --quiet --host-index $i --format json -o h$i.json run || fail "same: report --host-index $i"
done
combine_report_equals run s0.json.zst s1.json.zst
"$xpstat" combine --quiet --format json -o c12.json h1.json h2.json || fail "same: combine of two hosts"
combine_report_equals run h0.json c12.json
combine_analysis_equals run s1.json.zst s0.json.zst
cd "$work" || exit 1
echo "scale-parallel: $fails failures"
[ $fails = 0 ]
