#!/bin/sh
# check_readme.sh - README's code blocks that run offline (every xpstat command in them reads only testdata/)
# are run, each in a fresh copy of testdata/, with the built xpstat first on PATH: each must exit 0.
# Usage: check_readme.sh XPSTAT SOURCE_ROOT (needs bash and jq, in tools/test.sh packages)
set -u
xpstat=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin" && ln -s "$xpstat" "$work/bin/xpstat" || exit 1
# Blocks of ```sh, numbered, one file each; a block runs offline when it calls xpstat and names no path
# outside testdata/ (no logs/, ~, /scratch, build/, baseline.json from a training run).
awk -v dir="$work" '
	/^```sh[ \t]*$/ { n++; f = sprintf("%s/block%02d.sh", dir, n); inb = 1; next }
	/^```/ { inb = 0; next }
	inb { print > f }
' "$root/README.md"
ran=0 bad=0
for b in "$work"/block*.sh; do
	[ -e "$b" ] || continue
	grep -q '^ *xpstat ' "$b" || continue
	if grep -E -q '(logs/|~|/scratch|\$USER|build/|baseline\.json|candidate\.json|tools/)' "$b"; then
		continue
	fi
	run=$(mktemp -d "$work/run.XXXXXX") && cp -R "$root/testdata" "$run/testdata" || exit 1
	if ! (cd "$run" && PATH="$work/bin:$PATH" bash -e -o pipefail "$b") >"$run.out" 2>&1; then
		echo "README block $(basename "$b" .sh) failed:"
		sed 's/^/  | /' "$b"
		sed 's/^/  > /' "$run.out" | head -20
		bad=$((bad + 1))
	fi
	ran=$((ran + 1))
done
echo "check_readme: $ran offline blocks run, $bad failed"
[ "$ran" -gt 0 ] || { echo "no offline block found: the README or this test changed"; exit 1; }
[ "$bad" -eq 0 ]
