#!/bin/sh
# scale_real.sh - runs assembled from the real captures (../shared/testdata/real; skipped, 77, when absent): one saved
# report per host (report --host-index), then combine of the whole report, byte for byte equal to 'xpstat report' over
# the run (JSON, text, Markdown, CSV), and combine --analysis of each analysis (common.sh's $combinable), byte for byte
# equal to 'xpstat NAME' over the run in text, JSON and CSV. Runs: a TensorFlow multi-worker host with a JAX GPU host
# (one host with steps, one without); three JAX captures that all record the hostname tw003 (named by their files);
# two PyTorch (Kineto) workers.
set -u
xpstat=$1 real=$2
here=$(cd "$(dirname "$0")" && pwd)
abspath() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
xpstat=$(abspath "$xpstat") real=$(abspath "$real")
[ -d "$real" ] || { echo "no real captures at $real: skipped"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/scale_real.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
. "$here/common.sh"
# A run directory $work/NAME/run of links FILE=CAPTURE (the captures stay where they are).
assemble() { # name file=capture...
	dir=$work/$1/run
	shift
	mkdir -p "$dir"
	for fc in "$@"; do
		[ -f "$real/${fc#*=}" ] || { echo "no $real/${fc#*=}: skipped"; exit 77; }
		ln -s "$real/${fc#*=}" "$dir/${fc%%=*}"
	done
}
per_host() { # name hosts
	for i in $(seq 0 $(($2 - 1))); do
		(cd "$work/$1" && "$xpstat" report --quiet --host-index "$i" --format json -o "h$i.json.zst" run) ||
			fail "$1: report --host-index $i"
	done
}
assemble tf 34.83.195.179_6003.xplane.pb=tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb \
	934987a2fc2f.xplane.pb=tracelens/te_fused_attn/934987a2fc2f.xplane.pb
per_host tf 2
cd "$work/tf" && combine_analysis_equals run h1.json.zst h0.json.zst
combine_report_equals run h1.json.zst h0.json.zst
assemble jax gemm.xplane.pb=tracelens/jax08_gemm/tw003.xplane.pb elementwise.xplane.pb=tracelens/jax08_elementwise/tw003.xplane.pb \
	conv.xplane.pb=tracelens/jax_conv_minimal_08/tw003.xplane.pb
per_host jax 3
cd "$work/jax" && combine_analysis_equals run h0.json.zst h1.json.zst h2.json.zst
combine_report_equals run h2.json.zst h0.json.zst h1.json.zst
# PyTorch: two Kineto workers (PyTorch semantics, the operators' Tensor Core share).
assemble pt rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz=hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz \
	worker0.1623143089861.pt.trace.json.gz=kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
per_host pt 2
cd "$work/pt" && combine_analysis_equals run h0.json.zst h1.json.zst
combine_report_equals run h1.json.zst h0.json.zst
cd / || exit 1
echo "scale-real: $fails failures"
[ $fails = 0 ]
